/* The data side of events, motions, friction, brakes and stops: modes, row targets, counts
 * (allocated at mbs_data_create) and the public queries and host inputs on them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events/events.h"

/* calloc of n elements (at least one). */
static void *alloc0(size_t n, size_t sz) { return calloc(n > 0 ? n : 1, sz); }

/* See events.h. */
int mbs_ev_state_alloc(const mbs_model *m, mbs_ev_state *s)
{
    const mbs_events_model *ev = m->ev;
    memset(s, 0, sizeof *s);
    s->row_on = alloc0((size_t)ev->nqrow, 1);
    s->row_pos = alloc0((size_t)ev->nqrow, sizeof(double));
    s->fmode = alloc0((size_t)ev->nfric, sizeof(int));
    s->flimit = alloc0((size_t)ev->nfric, sizeof(double));
    s->smode = alloc0((size_t)ev->nstop, sizeof(int));
    s->count = alloc0((size_t)ev->nevent, sizeof(long));
    return s->row_on && s->row_pos && s->fmode && s->flimit && s->smode && s->count
               ? MBS_OK : MBS_ERR_NOMEM;
}

/* See events.h. */
void mbs_ev_state_free(mbs_ev_state *s)
{
    free(s->row_on);
    free(s->row_pos);
    free(s->fmode);
    free(s->flimit);
    free(s->smode);
    free(s->count);
    memset(s, 0, sizeof *s);
}

/* See events.h. */
void mbs_ev_state_copy(const mbs_model *m, mbs_ev_state *dst, const mbs_ev_state *src)
{
    const mbs_events_model *ev = m->ev;
    memcpy(dst->row_on, src->row_on, (size_t)ev->nqrow);
    memcpy(dst->row_pos, src->row_pos, (size_t)ev->nqrow * sizeof(double));
    memcpy(dst->fmode, src->fmode, (size_t)ev->nfric * sizeof(int));
    memcpy(dst->flimit, src->flimit, (size_t)ev->nfric * sizeof(double));
    memcpy(dst->smode, src->smode, (size_t)ev->nstop * sizeof(int));
    memcpy(dst->count, src->count, (size_t)ev->nevent * sizeof(long));
}

/* Initial modes: motion rows on, frictions undecided, brakes at their initial limit, stops
   free. */
static void init_state(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_events_model *ev = m->ev;
    for (int i = 0; i < ev->nmotion; ++i) d->ev->st.row_on[ev->motions[i].row] = 1;
    for (int k = 0; k < ev->nfric; ++k) {
        const mbs_force_model *f = &m->forces[ev->fric[k]];
        d->ev->st.fmode[k] = MBS_FRIC_UNDECIDED;
        d->ev->st.flimit[k] = f->ops == &mbs_force_joint_brake_ops ? f->coulomb : 0.0;
    }
    for (int k = 0; k < ev->nstop; ++k) d->ev->st.smode[k] = MBS_STOP_FREE;
}

/* See events.h. */
int mbs_events_data_create(mbs_data *d)
{
    const mbs_model *m = d->model;
    d->ev = NULL;
    if (!m->ev) return MBS_OK;
    mbs_events_data *e = calloc(1, sizeof *e);
    if (!e) return MBS_ERR_NOMEM;
    d->ev = e;
    const size_t nr = (size_t)m->ev->nqrow;
    e->row_vel = alloc0(nr, sizeof(double));
    e->row_acc = alloc0(nr, sizeof(double));
    e->fforce = alloc0((size_t)m->ev->nfric, sizeof(double));
    if (!e->row_vel || !e->row_acc || !e->fforce || mbs_ev_state_alloc(m, &e->st) != MBS_OK)
        return MBS_ERR_NOMEM;
    d->fric_mode = e->st.fmode, d->fric_limit = e->st.flimit, d->fric_force = e->fforce;
    init_state(d);
    return MBS_OK;
}

/* See events.h. */
void mbs_events_data_destroy(mbs_data *d)
{
    if (!d || !d->ev) return;
    mbs_ev_state_free(&d->ev->st);
    free(d->ev->row_vel);
    free(d->ev->row_acc);
    free(d->ev->fforce);
    free(d->ev);
    d->ev = NULL;
}

/* Motion i's targets at time t into its row; a status naming the motion. */
static int motion_targets(mbs_data *d, int i, double t)
{
    const mbs_motion_model *mo = &d->model->ev->motions[i];
    double p = NAN, v = NAN, a = NAN;
    char jl[96];
    const int rc = mo->fn(t, &p, &v, &a, mo->user);
    d->callback_status = rc;
    if (rc != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "joint motion #%d on joint %s returned %d (%s) "
                             "at t = %.17g", i, mbs_joint_label(d->model, mo->joint, jl, 96), rc,
                             rc > 0 ? "recoverable" : "fatal", t);
    if (!isfinite(p) || !isfinite(v) || !isfinite(a))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "joint motion #%d on joint %s: position %g, "
                             "velocity %g, acceleration %g at t = %.17g (not finite)", i,
                             mbs_joint_label(d->model, mo->joint, jl, 96), p, v, a, t);
    d->ev->st.row_pos[mo->row] = p;
    d->ev->row_vel[mo->row] = v;
    d->ev->row_acc[mo->row] = a;
    return MBS_OK;
}

/* See events.h. */
int mbs_events_update_targets(mbs_data *d)
{
    mbs_events_data *e = d->ev;
    if (!e || d->model->ev->nmotion == 0) return MBS_OK;
    if (e->target_valid && memcmp(&e->target_time, &d->time, sizeof(double)) == 0)
        return MBS_OK;
    e->target_valid = 0;
    for (int i = 0; i < d->model->ev->nmotion; ++i) {
        const int st = motion_targets(d, i, d->time);
        if (st != MBS_OK) return st;
    }
    e->target_time = d->time;
    e->target_valid = 1;
    return MBS_OK;
}

/* See events.h. */
void mbs_events_set_row(mbs_data *d, int row, int on, double pos)
{
    mbs_events_data *e = d->ev;
    on = on != 0;
    if (e->st.row_on[row] != on) {
        e->st.row_on[row] = (unsigned char)on;
        e->rows_serial++;
        if (d->rows_changed) d->rows_changed(d, 1);
    } else if (on && memcmp(&e->st.row_pos[row], &pos, sizeof pos) != 0) {
        if (d->rows_changed) d->rows_changed(d, 0);
    }
    if (on) e->st.row_pos[row] = pos;
    e->row_vel[row] = e->row_acc[row] = 0.0;
}

/* See events.h. */
int mbs_events_rows_on(const mbs_data *d)
{
    if (!d->ev) return 0;
    const unsigned char *on = d->ev->st.row_on;
    for (int k = 0; k < d->model->ev->nqrow; ++k)
        if (on[k]) return 1;
    return 0;
}

/* See events.h. */
double mbs_fric_coulomb(const mbs_data *d, int i)
{
    const mbs_force_model *f = &d->model->forces[d->model->ev->fric[i]];
    return f->ops == &mbs_force_joint_brake_ops ? d->ev->st.flimit[i] : f->coulomb;
}
double mbs_fric_stiction(const mbs_data *d, int i)
{
    const mbs_force_model *f = &d->model->forces[d->model->ev->fric[i]];
    return f->ops == &mbs_force_joint_brake_ops ? f->stiction * d->ev->st.flimit[i] : f->stiction;
}

/* ---------------------------------------------------------------- public queries */

/* Slot of the friction (or brake) on (joint, dof), -1 if none. */
static int fric_slot(const mbs_data *d, int joint, int dof)
{
    const mbs_events_model *ev = d && d->model->ev ? d->model->ev : NULL;
    for (int k = 0; ev && k < ev->nfric; ++k) {
        const mbs_force_model *f = &d->model->forces[ev->fric[k]];
        if (f->joint == joint && f->dof == dof) return k;
    }
    return -1;
}

/* Slot of the stop on (joint, dof), -1 if none. */
static int stop_slot(const mbs_data *d, int joint, int dof)
{
    const mbs_events_model *ev = d && d->model->ev ? d->model->ev : NULL;
    for (int k = 0; ev && k < ev->nstop; ++k) {
        const mbs_force_model *f = &d->model->forces[ev->stop[k]];
        if (f->joint == joint && f->dof == dof) return k;
    }
    return -1;
}

/* Multiplier of coordinate row k (the last dynamics evaluation). */
static double row_lambda(const mbs_data *d, int k) { return d->lambda[d->model->ncon + k]; }

/* Coordinate row of friction slot k. */
static int fric_row(const mbs_data *d, int k) { return d->model->ev->nmotion + k; }

double mbs_data_driving_force(const mbs_data *d, int joint, int dof)
{
    const mbs_events_model *ev = d && d->model->ev ? d->model->ev : NULL;
    for (int i = 0; ev && i < ev->nmotion; ++i)
        if (ev->motions[i].joint == joint && ev->motions[i].dof == dof)
            return row_lambda(d, ev->motions[i].row);
    return NAN;
}

int mbs_joint_is_locked(const mbs_data *d, int joint, int dof)
{
    const int k = fric_slot(d, joint, dof);
    if (k < 0) return MBS_ERR_ARG;
    const int mode = d->ev->st.fmode[k];
    return mode == MBS_FRIC_LOCKED || mode == MBS_FRIC_SUSPENDED;
}

double mbs_data_friction_force(const mbs_data *d, int joint, int dof)
{
    const int k = fric_slot(d, joint, dof);
    if (k < 0) return NAN;
    switch (d->ev->st.fmode[k]) {
    case MBS_FRIC_LOCKED: return row_lambda(d, fric_row(d, k));
    case MBS_FRIC_SUSPENDED: return 0.0;
    default: return d->ev->fforce[k];
    }
}

int mbs_joint_stop_state(const mbs_data *d, int joint, int dof)
{
    const int k = stop_slot(d, joint, dof);
    if (k < 0) return MBS_ERR_ARG;
    const mbs_force_model *f = &d->model->forces[d->model->ev->stop[k]];
    if (f->law == MBS_STOP_RESTITUTION)
        return d->ev->st.smode[k] == MBS_STOP_AT_LOWER ? 1 : d->ev->st.smode[k] == MBS_STOP_AT_UPPER ? 2 : 0;
    const double q = d->q[f->qindex];
    return q < f->lower ? 1 : q > f->upper ? 2 : 0;
}

/* How far the coordinate of a restitution stop is beyond its limit (the worst one), 0 when
   every one is within; the stop's element id in *element (-1 when none). */
double mbs_joint_stop_beyond(const mbs_data *d, int *element)
{
    if (element) *element = -1;
    if (!d) return NAN;
    const mbs_model *m = d->model;
    double worst = 0.0;
    for (int k = 0; m->ev && k < m->ev->nstop; ++k) {
        const mbs_force_model *f = &m->forces[m->ev->stop[k]];
        const double q = d->q[f->qindex];
        const double p = fmax(f->lower - q, q - f->upper);
        if (f->law != MBS_STOP_RESTITUTION || !(p > worst)) continue;
        worst = p;
        if (element) *element = m->ev->stop[k];
    }
    return worst;
}

int mbs_set_brake_limit(mbs_data *d, int brake, double limit)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_set_brake_limit");
    if (nested != MBS_OK) return nested;
    const mbs_model *m = d->model;
    if (brake < 0 || brake >= m->nforce || m->forces[brake].ops != &mbs_force_joint_brake_ops)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "set_brake_limit: force element %d is not a joint "
                             "brake", brake);
    if (m->forces[brake].reaction)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "set_brake_limit: force element %d is a reaction "
                             "friction, whose limit follows its joint's reaction", brake);
    if (!(limit >= 0.0) || !(limit <= MBS_MAX_VALUE))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "set_brake_limit: brake %d: limit = %g must be >= 0 "
                             "and finite", brake, limit);
    d->ev->st.flimit[m->forces[brake].slot] = limit;
    return MBS_OK;
}

int mbs_model_nevent(const mbs_model *m)
{
    if (!m) return MBS_ERR_ARG;
    return m->ev ? m->ev->nevent : 0;
}

int mbs_data_event_direction(const mbs_data *d) { return d && d->ev ? d->ev->direction : 0; }

long mbs_data_event_count(const mbs_data *d, int event)
{
    if (!d || event < 0 || event >= mbs_model_nevent(d->model)) return MBS_ERR_ARG;
    return d->ev->st.count[event];
}
