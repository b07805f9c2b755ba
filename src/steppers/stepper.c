/* The one stepper interface: CVODE-like lifecycle create -> step -> destroy.
 * Every allocation happens in mbs_stepper_create. A step backs up time, q, v, aux and qacc,
 * lets the kind advance the data, and on any failure restores the backup bit for bit. After
 * a successful step quaternions are normalised and every Cardan joint may change its
 * reference frame "Fix" (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §6.5); such a re-base is an event for the integrator.
 * With cut joints the start state is closed before the step and the end state after it,
 * and a new loop selection or partition is an event too (see stepper.h). User states are
 * backed up, checked and restored with q and v. */
#include "steppers/stepper.h"
#include "events/events.h"
#include "loops/loops.h"
#include "ustates/ustates.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kind table indexed by mbs_stepper_kind: the only place a kind is looked up. */
static const mbs_stepper_vtable *const stepper_kinds[] = {
    &mbs_stepper_vt_euler,
    &mbs_stepper_vt_rk4,
    &mbs_stepper_vt_cvode_adams,
    &mbs_stepper_vt_cvode_bdf,
};
#define NKINDS ((int)(sizeof stepper_kinds / sizeof stepper_kinds[0]))

/* Defaults: rtol 1e-6, atol 1e-8, no step limit, 10000 internal steps per call, no
   local-error estimate, events located within 1e-9 s. */
mbs_stepper_def mbs_default_stepper_def(mbs_stepper_kind kind)
{
    mbs_stepper_def def;
    memset(&def, 0, sizeof def);
    def.kind = kind;
    def.rtol = 1e-6;
    def.atol = 1e-8;
    def.max_step = 0.0;
    def.max_internal_steps = 10000;
    def.event_tol = 1e-9;
    return def;
}

/* Check a stepper definition; MBS_ERR_ARG with a message naming the field. */
static int check_def(mbs_data *d, const mbs_stepper_def *def)
{
    if (!def) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_stepper_create: def is NULL");
    if ((int)def->kind < 0 || (int)def->kind >= NKINDS)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_stepper_create: unknown stepper kind %d",
                             (int)def->kind);
    if (!(def->rtol > 0.0) || !isfinite(def->rtol))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG,
                             "mbs_stepper_create: rtol = %g must be positive and finite",
                             def->rtol);
    if (!(def->atol > 0.0) || !isfinite(def->atol))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG,
                             "mbs_stepper_create: atol = %g must be positive and finite",
                             def->atol);
    if (!(def->max_step >= 0.0) || !isfinite(def->max_step))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG,
                             "mbs_stepper_create: max_step = %g must be >= 0 and finite "
                             "(0: no limit)", def->max_step);
    if (!(def->err_rtol >= 0.0) || !(def->err_atol >= 0.0) || !isfinite(def->err_rtol) ||
        !isfinite(def->err_atol))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_stepper_create: err_rtol = %g and err_atol = "
                             "%g must be >= 0 and finite (0, 0: no estimate)", def->err_rtol,
                             def->err_atol);
    if (!(def->event_tol >= 0.0) || !isfinite(def->event_tol))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_stepper_create: event_tol = %g must be >= 0 "
                             "and finite (0: the default 1e-9 s)", def->event_tol);
    if (def->max_internal_steps <= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG,
                             "mbs_stepper_create: max_internal_steps = %ld must be positive",
                             def->max_internal_steps);
    if (def->max_work > 0 && stepper_kinds[def->kind]->order == 0)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_stepper_create: max_work = %lu bounds "
                             "fixed-step kinds only (0 for CVODE)", def->max_work);
    return MBS_OK;
}

/* Collect the tree joints that may re-base (Cardan) into s->rebase. */
static int collect_rebase(mbs_stepper *s)
{
    const mbs_model *m = s->d->model;
    int n = 0;
    for (int i = 0; i < m->ntree; ++i)
        if (m->joints[m->tree[i]].ops && m->joints[m->tree[i]].ops->rebase) ++n;
    s->nrebase = n;
    if (n == 0) return MBS_OK;
    s->rebase = calloc((size_t)n, sizeof *s->rebase);
    if (!s->rebase) return MBS_ERR_NOMEM;
    n = 0;
    for (int i = 0; i < m->ntree; ++i)
        if (m->joints[m->tree[i]].ops && m->joints[m->tree[i]].ops->rebase)
            s->rebase[n++] = m->tree[i];
    return MBS_OK;
}

/* Allocate an array of n doubles (at least one). */
static double *alloc_doubles(int n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(double)); }

/* Allocate the start and backup arrays and the re-base list. */
static int alloc_common(mbs_stepper *s)
{
    s->q0 = alloc_doubles(s->nq);
    s->v0 = alloc_doubles(s->nv);
    s->x0 = alloc_doubles(s->nux);
    s->bak_x = alloc_doubles(s->nux);
    s->bak_q = alloc_doubles(s->nq);
    s->bak_v = alloc_doubles(s->nv);
    s->bak_qacc = alloc_doubles(s->nv);
    s->bak_lambda = alloc_doubles(s->d->model->ncon + mbs_nqrow(s->d->model));
    if (s->naux > 0) s->bak_aux = alloc_doubles(s->naux);
    if (mbs_loops_snap_create(s->d, &s->bak_loops) != MBS_OK) return MBS_ERR_NOMEM;
    if (!s->q0 || !s->v0 || !s->x0 || !s->bak_x || !s->bak_q || !s->bak_v || !s->bak_qacc ||
        !s->bak_lambda || (s->naux > 0 && !s->bak_aux))
        return MBS_ERR_NOMEM;
    if (mbs_stepper_error_init(s) != MBS_OK) return MBS_ERR_NOMEM;
    if (mbs_stepper_events_init(s) != MBS_OK) return MBS_ERR_NOMEM;
    return collect_rebase(s);
}

/* Create a stepper for d; NULL on failure with the message in mbs_data_error(d). */
mbs_stepper *mbs_stepper_create(mbs_data *d, const mbs_stepper_def *def)
{
    if (!d) return NULL;
    if (check_def(d, def) != MBS_OK) return NULL;
    mbs_stepper *s = calloc(1, sizeof *s);
    if (!s) {
        MBS_DATA_FAIL(d, MBS_ERR_NOMEM, "mbs_stepper_create: out of memory");
        return NULL;
    }
    s->d = d;
    s->def = *def;
    s->kind = stepper_kinds[def->kind];
    s->nq = d->model->nq;
    s->nv = d->model->nv;
    s->naux = d->model->naux;
    s->nux = d->model->nux;
    s->input_rev = d->input_rev;
    s->loop_rank = -1; /* recorded at the first step */
    s->loop_rank_t = NAN;
    s->param_rev = d->model->param_rev;
    if (alloc_common(s) != MBS_OK) {
        MBS_DATA_FAIL(d, MBS_ERR_NOMEM, "mbs_stepper_create: out of memory");
        mbs_stepper_destroy(s);
        return NULL;
    }
    if (s->kind->init(s) != MBS_OK) { /* message written by the kind */
        mbs_stepper_destroy(s);
        return NULL;
    }
    return s;
}

/* Free a stepper and everything it took (NULL allowed). */
void mbs_stepper_destroy(mbs_stepper *s)
{
    if (!s) return;
    if (s->kind) s->kind->fini(s);
    free(s->work);
    free(s->rebase);
    free(s->q0);
    free(s->v0);
    free(s->x0);
    free(s->bak_x);
    free(s->bak_q);
    free(s->bak_v);
    free(s->bak_aux);
    free(s->bak_qacc);
    free(s->bak_lambda);
    free(s->errw);
    mbs_loops_snap_free(s->bak_loops);
    mbs_loops_snap_free(s->err_loops0);
    mbs_loops_snap_free(s->err_loops1);
    mbs_stepper_events_fini(s);
    free(s);
}

/* The state and inputs a step starts from must be finite. */
static int check_start(mbs_data *d)
{
    const mbs_model *m = d->model;
    int i;
    if (!isfinite(d->time))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "mbs_stepper_step: time is not finite");
    if ((i = mbs_first_nonfinite(d->q, m->nq)) >= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "mbs_stepper_step: q[%d] = %g is not finite",
                             i, d->q[i]);
    if ((i = mbs_first_nonfinite(d->v, m->nv)) >= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "mbs_stepper_step: v[%d] = %g is not finite",
                             i, d->v[i]);
    if ((i = mbs_first_nonfinite(d->tau, m->nv)) >= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE,
                             "mbs_stepper_step: tau[%d] = %g is not finite", i, d->tau[i]);
    if ((i = mbs_ustates_first_nonfinite(d)) >= 0) {
        char buf[160];
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "mbs_stepper_step: %s = %g is not finite",
                             mbs_ustates_label(m, i, buf, (int)sizeof buf), d->ux[i]);
    }
    return MBS_OK;
}

/* Copy time, q, v, aux, qacc, user states and the loop solver's state of the data into the
   backup. */
static void backup(mbs_stepper *s)
{
    const mbs_data *d = s->d;
    s->bak_t = d->time;
    memcpy(s->bak_q, d->q, (size_t)s->nq * sizeof(double));
    memcpy(s->bak_v, d->v, (size_t)s->nv * sizeof(double));
    memcpy(s->bak_qacc, d->qacc, (size_t)s->nv * sizeof(double));
    memcpy(s->bak_lambda, d->lambda, (size_t)(d->model->ncon + mbs_nqrow(d->model)) * sizeof(double));
    if (s->naux > 0) memcpy(s->bak_aux, d->aux, (size_t)s->naux * sizeof(double));
    if (s->nux > 0) memcpy(s->bak_x, d->ux, (size_t)s->nux * sizeof(double));
    mbs_stepper_events_backup(s);
    mbs_loops_snap_save(d, s->bak_loops);
}

/* Put the backup back into the data (the message in d->error is kept). */
static void restore(mbs_stepper *s)
{
    mbs_data *d = s->d;
    d->time = s->bak_t;
    memcpy(d->q, s->bak_q, (size_t)s->nq * sizeof(double));
    memcpy(d->v, s->bak_v, (size_t)s->nv * sizeof(double));
    memcpy(d->qacc, s->bak_qacc, (size_t)s->nv * sizeof(double));
    memcpy(d->lambda, s->bak_lambda, (size_t)(d->model->ncon + mbs_nqrow(d->model)) * sizeof(double));
    if (s->naux > 0) memcpy(d->aux, s->bak_aux, (size_t)s->naux * sizeof(double));
    if (s->nux > 0) memcpy(d->ux, s->bak_x, (size_t)s->nux * sizeof(double));
    mbs_stepper_events_restore(s);
    mbs_loops_snap_restore(d, s->bak_loops); /* with the modes: the selection they had */
}

/* See stepper.h: the start of the next (sub)step is the data's current state. */
void mbs_stepper_set_start(mbs_stepper *s)
{
    const mbs_data *d = s->d;
    s->t0 = d->time;
    memcpy(s->q0, d->q, (size_t)s->nq * sizeof(double));
    memcpy(s->v0, d->v, (size_t)s->nv * sizeof(double));
    if (s->nux > 0) memcpy(s->x0, d->ux, (size_t)s->nux * sizeof(double));
}

/* Close the loops of the data's state (holding u; prescribed motions at the data's time) and
   project v, with a new partition when J_v is ill-conditioned and the dropped rows checked;
   the message says where. */
static int close_loops(mbs_stepper *s, const char *where)
{
    mbs_data *d = s->d;
    int st = mbs_events_update_targets(d);
    if (st != MBS_OK) return st;
    if (!mbs_loops_active(d) || mbs_loops_is_closed(d)) return MBS_OK;
    st = mbs_loops_close(d, MBS_CLOSE_REPARTITION | MBS_CLOSE_RECOVER | MBS_CLOSE_CHECK);
    if (st == MBS_OK) return MBS_OK;
    char inner[MBS_ERROR_LEN];
    memcpy(inner, d->error, sizeof inner);
    inner[sizeof inner - 1] = '\0';
    return MBS_DATA_FAIL(d, st, "%s: %s step at t = %.17g: %s", s->kind->name, where, d->time,
                         inner);
}

/* See stepper.h. */
int mbs_stepper_close(mbs_stepper *s, const char *where) { return close_loops(s, where); }

/* Re-base every Cardan joint whose middle angle nears its singularity (Otter, Elmqvist, Mattsson 2003 §6.5);
   1 when one did (an event for the integrator). */
static int rebase_cardan(mbs_stepper *s)
{
    mbs_data *d = s->d;
    const mbs_model *m = d->model;
    int event = 0;
    for (int k = 0; k < s->nrebase; ++k) {
        const mbs_joint_model *j = &m->joints[s->rebase[k]];
        double *aux = j->auxadr >= 0 ? d->aux + j->auxadr : NULL;
        if (j->ops->rebase(j, aux, d->q + j->qadr, d->v + j->vadr)) event = 1;
    }
    return event;
}

/* Record the loops' cut-joint rank at the data's time (the start of a step the host may have
   moved the state to). */
static void record_loop_rank(mbs_stepper *s)
{
    s->loop_rank = mbs_loops_cut_rank(s->d, s->loop_dropped, (int)sizeof s->loop_dropped);
    s->loop_rank_t = s->d->time;
}

/* Rows that the selection dropped as dependent (at a singular position: a four-bar stretched
   flat, where the rows lose rank though they are independent everywhere near it) became
   independent within the step: the state there was closed only to the rounding over the
   distance, the branch to follow undetermined, and the closure now snaps the velocities onto
   a branch (1e-3 of the energy for the A02 four-bars started flat). Refused: MBS_ERR_SINGULAR. */
static int check_loop_rank(mbs_stepper *s)
{
    const int r0 = s->loop_rank;
    const double t0 = s->loop_rank_t;
    char dropped[96];
    memcpy(dropped, s->loop_dropped, sizeof dropped);
    record_loop_rank(s);
    if (r0 < 0 || s->loop_rank <= r0) return MBS_OK;
    return MBS_DATA_FAIL(s->d, MBS_ERR_SINGULAR, "%s step from t = %.17g: loops: the rows of cut "
                         "joint %s, dependent at t = %.17g (rank %d), became independent (rank "
                         "%d): the loops were closed at a singular position (a four-bar "
                         "stretched flat), where the branch the motion follows is not "
                         "determined and the closure would snap the velocities; start the "
                         "motion off that position", s->kind->name, s->t0, dropped, t0, r0,
                         s->loop_rank);
}

/* After a step: normalise quaternions, check finiteness, close the loops, check that no
   dependent rows became independent, re-base Cardan joints (event). */
static int finish_step(mbs_stepper *s, int *event)
{
    mbs_data *d = s->d;
    const mbs_model *m = d->model;
    int i;
    *event = 0;
    if ((i = mbs_first_nonfinite(d->q, m->nq)) >= 0 || (i = mbs_first_nonfinite(d->v, m->nv)) >= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE,
                             "%s step from t = %.17g: the state became non-finite (index %d)",
                             s->kind->name, s->t0, i);
    if ((i = mbs_ustates_first_nonfinite(d)) >= 0) {
        char buf[160];
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s step from t = %.17g: %s became "
                             "non-finite", s->kind->name, s->t0,
                             mbs_ustates_label(m, i, buf, (int)sizeof buf));
    }
    if (mbs_normalize_q(m, d->q) != MBS_OK)
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "%s step: normalising q failed",
                             s->kind->name);
    int st = close_loops(s, "end of the");
    if (st == MBS_OK) st = check_loop_rank(s);
    if (st != MBS_OK) return st;
    *event = rebase_cardan(s);
    if ((i = mbs_first_nonfinite(d->q, m->nq)) >= 0 || (i = mbs_first_nonfinite(d->v, m->nv)) >= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s step from t = %.17g: the state became "
                             "non-finite closing the loops or re-basing (index %d)",
                             s->kind->name, s->t0, i);
    return MBS_OK;
}

/* One (sub)step of h from the data's state: the kind's step, then finish_step. */
int mbs_stepper_substep(mbs_stepper *s, double h, int *event)
{
    *event = 0;
    const int st = s->kind->step(s, h);
    return st == MBS_OK ? finish_step(s, event) : st;
}

/* Number of substeps of a call: ceil(dt / max_step) for fixed-step kinds with a max_step
   (a relative 1e-9 slack keeps dt = n max_step at n), else 1; < 0: over the cap. */
long mbs_stepper_substeps(const mbs_stepper *s, double dt)
{
    if (!s->kind->substeps || s->def.max_step <= 0.0 || dt <= s->def.max_step) return 1;
    double n = ceil(dt / s->def.max_step * (1.0 - 1e-9));
    return n > (double)s->def.max_internal_steps ? -1 : (long)n;
}

/* Validate dt and the start state; MBS_OK or a status with the message set. */
static int check_step(mbs_stepper *s, double dt, long *n)
{
    mbs_data *d = s->d;
    if (!(dt > 0.0) || !isfinite(dt))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_stepper_step: dt = %g must be positive and "
                             "finite", dt);
    int st = check_start(d);
    if (st != MBS_OK) return st;
    if (!(d->time + dt > d->time))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_stepper_step: dt = %g is below the "
                             "resolution of t = %.17g", dt, d->time);
    if (!isfinite(d->time + dt))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "mbs_stepper_step: t + dt = %.17g + %g is "
                             "not finite", d->time, dt);
    if ((*n = mbs_stepper_substeps(s, dt)) < 0)
        return MBS_DATA_FAIL(d, MBS_ERR_SOLVER, "mbs_stepper_step: %s: dt = %g needs more than "
                             "max_internal_steps = %ld steps of max_step = %g", s->kind->name,
                             dt, s->def.max_internal_steps, s->def.max_step);
    return MBS_OK;
}

/* MBS_ERR_STATE inside an event function or handler (the stepper is running). */
static int refuse_in_event(mbs_data *d)
{
    if (!d->ev || !d->ev->in_handler) return MBS_OK;
    char buf[96];
    const int i = d->ev->in_handler - 1;
    return MBS_DATA_FAIL(d, MBS_ERR_STATE, "mbs_stepper_step: not allowed inside event %s (its "
                         "function or handler runs within a step)",
                         mbs_name_label(d->model->ev->events[i].name, i, buf, (int)sizeof buf));
}

/* One (sub)step of h: with event functions, the fixed-step kinds locate their crossings
   (stepper_events.c); else the kind's step, with the local-error estimate when asked. */
static int substep_any(mbs_stepper *s, double h, int *event)
{
    if (s->ev && !s->kind->roots) return mbs_stepper_events_substep(s, h, event);
    return s->errw ? mbs_stepper_error_step(s, h, event) : mbs_stepper_substep(s, h, event);
}

/* MBS_ERR_DEADLINE: the step's work reached max_work at `where` (an evaluation would exceed
   it, or the step's end found it exceeded). */
static int deadline_fail(mbs_stepper *s, const char *where)
{
    return MBS_DATA_FAIL(s->d, MBS_ERR_DEADLINE, "%s step from t = %.17g: more than max_work "
                         "= %lu work units (evaluations, Newton iterations, factorisations) at "
                         "%s", s->kind->name, s->bak_t, s->def.max_work, where);
}

/* Keep the counters of this call (since w0) when it took the most work units so far. */
static void note_seen(mbs_stepper *s, const mbs_work *w0)
{
    mbs_work w = s->d->work_count;
    w.evals -= w0->evals, w.newton -= w0->newton, w.factor -= w0->factor;
    w.select -= w0->select, w.event_iter -= w0->event_iter;
    if (mbs_work_units(&w) > mbs_work_units(&s->seen)) s->seen = w;
}

/* Advance the data's time by dt; on failure time, q, v, aux, user states and qacc (and the
   event modes and the inputs an event handler changed) are as before. */
int mbs_stepper_step(mbs_stepper *s, double dt)
{
    if (!s) return MBS_ERR_ARG;
    int nested = mbs_refuse_nested(s->d, "mbs_stepper_step");
    if (nested == MBS_OK) nested = refuse_in_event(s->d);
    if (nested != MBS_OK) return nested;
    long n = 1;
    int st = check_step(s, dt, &n), event = 0;
    if (st == MBS_OK && !s->motions_checked) st = mbs_events_check_motions(s->d, dt);
    if (st != MBS_OK) return st;
    s->motions_checked = 1;
    if (s->input_rev != s->d->input_rev || s->param_rev != s->d->model->param_rev) {
        s->kind->sync(s, 1); /* a frame-force input or a parameter changed: restart */
        s->input_rev = s->d->input_rev;
        s->param_rev = s->d->model->param_rev;
    }
    backup(s);
    mbs_data *d = s->d;
    const mbs_work w0 = d->work_count;
    d->work_stop = s->def.max_work ? mbs_work_units(&d->work_count) + s->def.max_work : 0;
    const long ev0 = mbs_loops_events(s->d);
    event = rebase_cardan(s); /* a host may have set a Cardan middle angle near 90 degrees */
    st = s->ev ? mbs_stepper_events_begin(s, &event) : close_loops(s, "start of the");
    if (st == MBS_OK && s->loop_rank_t != d->time) record_loop_rank(s); /* the host moved it */
    if (st == MBS_OK && event) s->kind->sync(s, 1); /* CVODE restarts from the settled state */
    for (long i = 0; i < n && st == MBS_OK; ++i) {
        int ev = 0;
        mbs_stepper_set_start(s);
        st = substep_any(s, dt / (double)n, &ev);
        event |= ev;
    }
    if (st == MBS_OK && d->work_stop && mbs_work_units(&d->work_count) > d->work_stop)
        st = deadline_fail(s, "the end of the step");
    d->work_stop = 0;
    note_seen(s, &w0);
    if (st != MBS_OK) {
        restore(s);
        s->kind->sync(s, 1);
        return st;
    }
    s->d->time = s->bak_t + dt;
    s->kind->sync(s, event || mbs_loops_events(s->d) != ev0);
    mbs_stepper_events_end(s);
    return MBS_OK;
}

/* Forward dynamics with a finite-qacc check; failures get `where` as a prefix. */
int mbs_stepper_eval(mbs_stepper *s, const char *where, int *recoverable)
{
    mbs_data *d = s->d;
    char inner[MBS_ERROR_LEN];
    int st = MBS_OK, i = -1, closure = 0;
    if (recoverable) *recoverable = 0;
    if (d->work_stop && mbs_work_units(&d->work_count) >= d->work_stop)
        return deadline_fail(s, where); /* one more evaluation would exceed max_work */
    d->work_count.evals++;
    st = mbs_events_update_targets(d); /* prescribed motions at the stage's time */
    if (st == MBS_OK && mbs_loops_active(d) && !mbs_loops_is_closed(d)) {
        st = mbs_loops_close(d, s->kind->stage_recover ? MBS_CLOSE_RECOVER : 0);
        closure = st != MBS_OK;
    }
    if (st == MBS_OK) st = mbs_forward_dynamics(d);
    if (st == MBS_OK && (i = mbs_first_nonfinite(d->qacc, s->nv)) < 0) return MBS_OK;
    if (st == MBS_OK) {
        st = MBS_ERR_NONFINITE;
        snprintf(inner, sizeof inner, "qacc[%d] = %g is not finite", i, d->qacc[i]);
    } else {
        memcpy(inner, d->error, sizeof inner);
        inner[sizeof inner - 1] = '\0';
    }
    if (recoverable)
        *recoverable = (st == MBS_ERR_CALLBACK && d->callback_status > 0) || closure;
    return MBS_DATA_FAIL(d, st, "%s at t = %.17g: %s", where, d->time, inner);
}

/* q_out = integrate(q, v, h) with a message when v is not finite. */
int mbs_stepper_integrate(mbs_stepper *s, const double *q, const double *v, double h,
                          double *q_out)
{
    int i = mbs_first_nonfinite(v, s->nv);
    if (i >= 0)
        return MBS_DATA_FAIL(s->d, MBS_ERR_NONFINITE, "%s step from t = %.17g: stage velocity "
                             "v[%d] is not finite", s->kind->name, s->t0, i);
    int st = mbs_integrate_q(s->d->model, q, v, h, q_out);
    if (st != MBS_OK)
        return MBS_DATA_FAIL(s->d, st, "%s step from t = %.17g: integrating q failed",
                             s->kind->name, s->t0);
    return MBS_OK;
}
