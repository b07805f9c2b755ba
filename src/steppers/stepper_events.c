/* State events in the steppers (src/events/events.h). Every step starts from modes that fit
 * the state (begin); the event functions g (user events, friction, stops) are watched along
 * the step and each crossing is handled where it happens:
 *  - fixed-step kinds: a step is taken; when some g changed sign between its start and end
 *    the crossing is bracketed by steps of the same method from the same start, [a, b] with
 *    g on the old side at a and on the new side at b, shrunk by the Illinois variant of
 *    regula falsi (Dowell and Jarratt 1971) with a bisection when it stalls, until
 *    b - a <= event_tol (default 1e-9 s); the state at b (the far side, so the crossing is
 *    not seen twice) is taken, the handlers run, the modes settle, and the step goes on from
 *    there to t + dt. With the local-error estimate on, each piece is checked on its own.
 *  - CVODE: its root finding (CVodeRootInit at create) stops at the crossings; cv_step calls
 *    mbs_stepper_events_fire there and restarts the integrator.
 * A crossing is a sign change away from a nonzero value in a direction the function counts,
 * or a falling-only function leaving zero downwards (events.h); two crossings of one function inside one step cancel and are not seen. The
 * state saved, restored and compared here includes the user states (src/ustates/): event
 * functions may read them and handlers change them. All scratch is taken at create. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events/events.h"
#include "loops/loops.h"
#include "steppers/stepper.h"

#define EVENT_TOL_DEFAULT 1e-9  /* s: default mbs_stepper_def.event_tol */
#define EVENTS_PER_STEP 1000    /* handled crossings per mbs_stepper_step call at most */
#define LOCATE_MAXIT 200        /* trial steps per crossing at most (bisection halves) */

typedef struct mbs_stepper_events {
    int nfn;
    double tol;
    double *g0, *g1, *ga, *gb, *gt; /* [nfn] at the piece's start, end, bracket, trial */
    int *fired;                     /* [nfn] */
    double ts, *qs, *vs, *as, *xs;  /* start of the current piece of the step */
    double tb, *qb, *vb, *ab, *xb;  /* the state at the bracket's far end */
    double *qr, *vr;                /* the state handlers started from */
    int g_valid;                    /* g0 holds the functions at the snapshot's state */
    int snap_valid;                 /* the state and inputs the last step left: */
    double snap_t, *snap_q, *snap_v, *snap_tau, *snap_limit, *snap_x;
    mbs_wrench_input *snap_wrench;
    mbs_ev_state bak;               /* the modes before the step (restored on failure) */
    double *bak_tau;
    mbs_wrench_input *bak_wrench;
    long nfired;                    /* crossings handled in this mbs_stepper_step call */
} mbs_stepper_events;

/* ---------------------------------------------------------------- create, backup */

static double *dalloc(int n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(double)); }

/* See stepper.h. */
int mbs_stepper_events_init(mbs_stepper *s)
{
    const mbs_model *m = s->d->model;
    s->ev = NULL;
    if (!m->ev || m->ev->nfn == 0) return MBS_OK;
    mbs_stepper_events *E = calloc(1, sizeof *E);
    if (!E) return MBS_ERR_NOMEM;
    s->ev = E;
    const int nf = m->ev->nfn, nq = s->nq, nv = s->nv, na = s->naux, nb = m->nbody, nx = s->nux;
    E->nfn = nf;
    E->tol = s->def.event_tol > 0.0 ? s->def.event_tol : EVENT_TOL_DEFAULT;
    double **dp[] = {&E->g0, &E->g1, &E->ga, &E->gb, &E->gt, &E->qs, &E->vs, &E->as, &E->qb,
                     &E->vb, &E->ab, &E->qr, &E->vr, &E->snap_q, &E->snap_v, &E->snap_tau,
                     &E->snap_limit, &E->bak_tau, &E->xs, &E->xb, &E->snap_x};
    const int dn[] = {nf, nf, nf, nf, nf, nq, nv, na, nq, nv, na, nq, nv, nq, nv, nv,
                      m->ev->nfric, nv, nx, nx, nx};
    int ok = 1;
    for (size_t i = 0; i < sizeof dp / sizeof dp[0]; ++i) ok &= (*dp[i] = dalloc(dn[i])) != NULL;
    E->fired = calloc((size_t)nf, sizeof(int));
    E->snap_wrench = calloc((size_t)nb, sizeof(mbs_wrench_input));
    E->bak_wrench = calloc((size_t)nb, sizeof(mbs_wrench_input));
    ok &= E->fired && E->snap_wrench && E->bak_wrench;
    return ok && mbs_ev_state_alloc(m, &E->bak) == MBS_OK ? MBS_OK : MBS_ERR_NOMEM;
}

/* See stepper.h. */
void mbs_stepper_events_fini(mbs_stepper *s)
{
    mbs_stepper_events *E = s->ev;
    if (!E) return;
    void *p[] = {E->g0, E->g1, E->ga, E->gb, E->gt, E->qs, E->vs, E->as, E->qb, E->vb, E->ab,
                 E->qr, E->vr, E->snap_q, E->snap_v, E->snap_tau, E->snap_limit, E->bak_tau,
                 E->fired, E->snap_wrench, E->bak_wrench, E->xs, E->xb, E->snap_x};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    mbs_ev_state_free(&E->bak);
    free(E);
    s->ev = NULL;
}

/* See stepper.h: the modes, the counts and the inputs a handler may change. */
void mbs_stepper_events_backup(mbs_stepper *s)
{
    mbs_stepper_events *E = s->ev;
    const mbs_data *d = s->d;
    if (!E) return;
    mbs_ev_state_copy(d->model, &E->bak, &d->ev->st);
    memcpy(E->bak_tau, d->tau, (size_t)s->nv * sizeof(double));
    memcpy(E->bak_wrench, d->wrench_in, (size_t)d->model->nbody * sizeof(mbs_wrench_input));
}

/* See stepper.h. */
void mbs_stepper_events_restore(mbs_stepper *s)
{
    mbs_stepper_events *E = s->ev;
    mbs_data *d = s->d;
    if (!E) return;
    mbs_ev_state_copy(d->model, &d->ev->st, &E->bak);
    memcpy(d->tau, E->bak_tau, (size_t)s->nv * sizeof(double));
    memcpy(d->wrench_in, E->bak_wrench, (size_t)d->model->nbody * sizeof(mbs_wrench_input));
    d->ev->in_handler = d->ev->direction = 0;
    d->ev->target_valid = 0;
    E->g_valid = 0; /* the loops' selection for these modes: stepper.c restore() */
}

/* ---------------------------------------------------------------- snapshot */

/* 1 when the host changed the state or an input since the last step. */
static int host_changed(const mbs_stepper *s)
{
    const mbs_stepper_events *E = s->ev;
    const mbs_data *d = s->d;
    const int nb = d->model->nbody, nf = d->model->ev->nfric;
    return memcmp(&E->snap_t, &d->time, sizeof(double)) != 0 ||
           memcmp(E->snap_q, d->q, (size_t)s->nq * sizeof(double)) != 0 ||
           memcmp(E->snap_v, d->v, (size_t)s->nv * sizeof(double)) != 0 ||
           memcmp(E->snap_x, d->ux, (size_t)s->nux * sizeof(double)) != 0 ||
           memcmp(E->snap_tau, d->tau, (size_t)s->nv * sizeof(double)) != 0 ||
           memcmp(E->snap_limit, d->ev->st.flimit, (size_t)nf * sizeof(double)) != 0 ||
           memcmp(E->snap_wrench, d->wrench_in, (size_t)nb * sizeof(mbs_wrench_input)) != 0;
}

/* See stepper.h: remember the state and inputs this step left. */
void mbs_stepper_events_end(mbs_stepper *s)
{
    mbs_stepper_events *E = s->ev;
    const mbs_data *d = s->d;
    if (!E) return;
    E->snap_t = d->time;
    memcpy(E->snap_q, d->q, (size_t)s->nq * sizeof(double));
    memcpy(E->snap_v, d->v, (size_t)s->nv * sizeof(double));
    memcpy(E->snap_x, d->ux, (size_t)s->nux * sizeof(double));
    memcpy(E->snap_tau, d->tau, (size_t)s->nv * sizeof(double));
    memcpy(E->snap_limit, d->ev->st.flimit, (size_t)d->model->ev->nfric * sizeof(double));
    memcpy(E->snap_wrench, d->wrench_in, (size_t)d->model->nbody * sizeof(mbs_wrench_input));
    E->snap_valid = 1;
    E->g_valid = !s->kind->roots;
}

/* ---------------------------------------------------------------- functions, firing */

/* See stepper.h: with the dynamics there when a function needs them (or the state is not
   closed yet). */
int mbs_stepper_events_g(mbs_stepper *s, double *g, const char *where)
{
    mbs_data *d = s->d;
    if (mbs_events_need_dynamics(d) || !mbs_loops_is_closed(d)) {
        const int st = mbs_stepper_eval(s, where, NULL);
        if (st != MBS_OK) return st;
    }
    return mbs_events_eval(d, g);
}

/* See stepper.h. */
void mbs_stepper_events_dirs(const mbs_stepper *s, int *dir)
{
    for (int i = 0; i < s->ev->nfn; ++i) dir[i] = mbs_events_direction(s->d, i);
}

/* User handler of event i (direction +-1); MBS_ERR_CALLBACK when it fails or moves t. */
static int user_handler(mbs_stepper *s, int i, int direction)
{
    mbs_data *d = s->d;
    const mbs_event_model *e = &d->model->ev->events[i];
    const double t = d->time;
    char buf[96];
    d->ev->st.count[i]++;
    if (!e->h) return MBS_OK;
    d->ev->in_handler = 1 + i;
    d->ev->direction = direction;
    const int rc = e->h(d, e->user);
    d->ev->in_handler = d->ev->direction = 0;
    if (rc < 0)
        return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "event %s: handler returned %d at t = %.17g",
                             mbs_name_label(e->name, i, buf, (int)sizeof buf), rc, t);
    if (memcmp(&t, &d->time, sizeof t) != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "event %s: the handler changed the time (t = "
                             "%.17g) at t = %.17g", mbs_name_label(e->name, i, buf, (int)sizeof buf),
                             d->time, t);
    return MBS_OK;
}

/* After the handlers: a finite state, normalised, modes fitting what handlers set, loops
   closed, locks and contacts settled. */
static int settle(mbs_stepper *s)
{
    mbs_data *d = s->d;
    const mbs_stepper_events *E = s->ev;
    int changed = 0;
    if (!mbs_all_finite(d->q, s->nq) || !mbs_all_finite(d->v, s->nv) ||
        !mbs_all_finite(d->tau, s->nv) || !mbs_all_finite(d->ux, s->nux))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s: an event handler at t = %.17g left q, v, "
                             "tau or the user states not finite", s->kind->name, d->time);
    mbs_normalize_q(d->model, d->q);
    int st = mbs_events_host_rules(s, E->qr, E->vr, &changed);
    if (st == MBS_OK) st = mbs_stepper_close(s, "event at the");
    if (st == MBS_OK) st = mbs_events_resolve(s, &changed);
    return st;
}

/* See stepper.h: user handlers first, then the elements' mode changes, in function order. */
int mbs_stepper_events_fire(mbs_stepper *s, const int *fired)
{
    mbs_stepper_events *E = s->ev;
    mbs_data *d = s->d;
    const int nevent = d->model->ev->nevent;
    if (++E->nfired > EVENTS_PER_STEP)
        return MBS_DATA_FAIL(d, MBS_ERR_SOLVER, "%s: more than %d events in one step (chattering "
                             "at t = %.17g?)", s->kind->name, EVENTS_PER_STEP, d->time);
    memcpy(E->qr, d->q, (size_t)s->nq * sizeof(double));
    memcpy(E->vr, d->v, (size_t)s->nv * sizeof(double));
    int st = MBS_OK;
    for (int i = 0; i < E->nfn && st == MBS_OK; ++i)
        if (fired[i]) st = i < nevent ? user_handler(s, i, fired[i]) : mbs_events_internal(s, i);
    return st == MBS_OK ? settle(s) : st;
}

/* ---------------------------------------------------------------- begin */

/* See stepper.h: nothing to do when the state and inputs are those the last step left;
   else the host rules (for the dofs the host moved), the loops closed, the locks and
   contacts settled and (fixed-step kinds) the functions evaluated. */
int mbs_stepper_events_begin(mbs_stepper *s, int *event)
{
    mbs_stepper_events *E = s->ev;
    E->nfired = 0;
    if (E->snap_valid && (s->kind->roots || E->g_valid) && !host_changed(s))
        return mbs_stepper_close(s, "start of the");
    int changed = 0;
    int st = mbs_events_host_rules(s, E->snap_valid ? E->snap_q : NULL,
                                   E->snap_valid ? E->snap_v : NULL, &changed);
    if (st == MBS_OK) st = mbs_stepper_close(s, "start of the");
    if (st == MBS_OK) st = mbs_events_resolve(s, &changed);
    if (st == MBS_OK && !s->kind->roots)
        st = mbs_stepper_events_g(s, E->g0, "event functions at the start of the step");
    *event |= changed;
    return st;
}

/* ---------------------------------------------------------------- fixed-step location */

/* Copy the data's t, q, v, aux, user states into (t, q, v, a, x), or back. */
static void save_state(const mbs_stepper *s, double *t, double *q, double *v, double *a,
                       double *x)
{
    const mbs_data *d = s->d;
    *t = d->time;
    memcpy(q, d->q, (size_t)s->nq * sizeof(double));
    memcpy(v, d->v, (size_t)s->nv * sizeof(double));
    if (s->naux > 0) memcpy(a, d->aux, (size_t)s->naux * sizeof(double));
    if (s->nux > 0) memcpy(x, d->ux, (size_t)s->nux * sizeof(double));
}
static void load_state(mbs_stepper *s, double t, const double *q, const double *v,
                       const double *a, const double *x)
{
    mbs_data *d = s->d;
    d->time = t;
    memcpy(d->q, q, (size_t)s->nq * sizeof(double));
    memcpy(d->v, v, (size_t)s->nv * sizeof(double));
    if (s->naux > 0) memcpy(d->aux, a, (size_t)s->naux * sizeof(double));
    if (s->nux > 0) memcpy(d->ux, x, (size_t)s->nux * sizeof(double));
}

/* A step of h from the piece's start (the kind's start set there), functions into g. */
static int trial(mbs_stepper *s, double h, double *g, int *ev)
{
    mbs_stepper_events *E = s->ev;
    load_state(s, E->ts, E->qs, E->vs, E->as, E->xs);
    mbs_stepper_set_start(s);
    const int st = mbs_stepper_substep(s, h, ev);
    return st == MBS_OK ? mbs_stepper_events_g(s, g, "event functions") : st;
}

/* 1 when some function crossed between the values a and b. */
static int any_crossing(const mbs_stepper *s, const double *a, const double *b)
{
    for (int i = 0; i < s->ev->nfn; ++i)
        if (mbs_events_crossed(s->d, i, a[i], b[i])) return 1;
    return 0;
}

/* Next trial inside (a, b): the earliest regula-falsi estimate over the functions that cross
   in [a, b], their values at a scaled by wa and at b by wb (Illinois), kept at least tol / 2
   inside the bracket; the midpoint when bisect. */
static double next_trial(const mbs_stepper *s, double a, double b, double wa, double wb,
                         int bisect)
{
    const mbs_stepper_events *E = s->ev;
    double x = b;
    for (int i = 0; i < E->nfn && !bisect; ++i) {
        if (!mbs_events_crossed(s->d, i, E->ga[i], E->gb[i])) continue;
        const double fa = wa * E->ga[i], fb = wb * E->gb[i];
        const double xi = a + (b - a) * fa / (fa - fb);
        if (xi < x) x = xi;
    }
    if (bisect || !(x > a && x < b)) x = 0.5 * (a + b);
    const double margin = fmin(0.5 * E->tol, 0.25 * (b - a));
    return fmin(fmax(x, a + margin), b - margin);
}

/* The state at the bracket's far end b becomes the data's. */
static void take_far_end(mbs_stepper *s)
{
    const mbs_stepper_events *E = s->ev;
    load_state(s, E->tb, E->qb, E->vb, E->ab, E->xb);
}

/* Shrink the bracket [0, hs] of the piece (gb = g at hs, ga = g at its start, the data at
   hs) to b - a <= tol; the data then holds the state at b (*hb = b). *evb: a re-base
   happened in the step to b (in: in the step to hs). */
static int locate(mbs_stepper *s, double hs, int *evb, double *hb)
{
    mbs_stepper_events *E = s->ev;
    double a = 0.0, b = hs, wa = 1.0, wb = 1.0;
    int side = 0, stall = 0, ev = 0;
    save_state(s, &E->tb, E->qb, E->vb, E->ab, E->xb);
    for (int it = 0; it < LOCATE_MAXIT && b - a > E->tol && E->ts + a < E->ts + b; ++it) {
        const double width = b - a, x = next_trial(s, a, b, wa, wb, stall >= 2);
        s->d->work_count.event_iter++;
        const int st = trial(s, x, E->gt, &ev);
        if (st != MBS_OK) return st;
        if (any_crossing(s, E->ga, E->gt)) { /* the crossing is in [a, x] */
            b = x;
            *evb = ev;
            memcpy(E->gb, E->gt, (size_t)E->nfn * sizeof(double));
            save_state(s, &E->tb, E->qb, E->vb, E->ab, E->xb);
            wa = side == 1 ? 0.5 * wa : 1.0, wb = 1.0, side = 1;
        } else {
            a = x;
            memcpy(E->ga, E->gt, (size_t)E->nfn * sizeof(double));
            wb = side == -1 ? 0.5 * wb : 1.0, wa = 1.0, side = -1;
        }
        stall = b - a > 0.5 * width ? stall + 1 : 0;
    }
    take_far_end(s);
    *hb = b;
    return MBS_OK;
}

/* Flags of the functions that crossed between ga and gb (+1 rose, -1 fell). */
static void fired_flags(mbs_stepper *s)
{
    mbs_stepper_events *E = s->ev;
    for (int i = 0; i < E->nfn; ++i)
        E->fired[i] = mbs_events_crossed(s->d, i, E->ga[i], E->gb[i]) ? (E->gb[i] > E->ga[i] ? 1 : -1) : 0;
}

/* One piece of a step: from the data's state to t_end, or to the first crossing (handled
   there). *done = 1 when t_end was reached. */
static int piece(mbs_stepper *s, double t_end, int *done, int *event)
{
    mbs_stepper_events *E = s->ev;
    mbs_data *d = s->d;
    const double hs = t_end - d->time;
    int ev = 0;
    *done = !(hs > 0.0);
    if (*done) return MBS_OK;
    save_state(s, &E->ts, E->qs, E->vs, E->as, E->xs);
    if (s->errw) mbs_stepper_error_begin(s);
    int st = trial(s, hs, E->g1, &ev);
    if (st != MBS_OK) return st;
    *event |= ev;
    if (!any_crossing(s, E->g0, E->g1)) {
        *done = 1;
        memcpy(E->g0, E->g1, (size_t)E->nfn * sizeof(double));
        d->time = t_end;
        return s->errw ? mbs_stepper_error_check(s, hs, ev) : MBS_OK;
    }
    memcpy(E->ga, E->g0, (size_t)E->nfn * sizeof(double));
    memcpy(E->gb, E->g1, (size_t)E->nfn * sizeof(double));
    double hb = hs;
    if ((st = locate(s, hs, &ev, &hb)) != MBS_OK) return st;
    if (s->errw && (st = mbs_stepper_error_check(s, hb, ev)) != MBS_OK) return st;
    fired_flags(s);
    if ((st = mbs_stepper_events_fire(s, E->fired)) != MBS_OK) return st;
    *event = 1;
    return mbs_stepper_events_g(s, E->g0, "event functions after an event");
}

/* See stepper.h: the start (a closure, the modes settled: each friction let go at most
   twice, each stop once, an evaluation per round, and the functions); per piece a trial step
   and LOCATE_MAXIT more, the estimate's two half steps, the handlers (a closure, an impact's
   projection no more than another, the modes settled) and the functions again; at most
   EVENTS_PER_STEP crossings in the call and one last piece per substep. */
void mbs_stepper_events_worst(const mbs_stepper *s, long n, const mbs_work *eval,
                              const mbs_work *close, const mbs_work *sub, mbs_work *cap)
{
    const mbs_events_model *ev = s->d->model->ev;
    const unsigned long rounds = 2UL * (unsigned long)(ev->nfric + ev->nstop) + 1UL;
    const unsigned long pieces = EVENTS_PER_STEP + (unsigned long)n;
    mbs_work resolve = {0}, trial = *sub, piece = {0};
    mbs_work_add(&resolve, eval, rounds);
    mbs_work_add(cap, &resolve, 1);
    mbs_work_add(cap, eval, 1);
    mbs_work_add(&trial, eval, 1);
    mbs_work_add(&piece, &trial, 1 + LOCATE_MAXIT);
    if (s->errw) mbs_work_add(&piece, sub, 2);
    mbs_work_add(&piece, close, 2);
    mbs_work_add(&piece, &resolve, 1);
    mbs_work_add(&piece, eval, 1);
    piece.event_iter += LOCATE_MAXIT;
    mbs_work_add(cap, &piece, pieces);
}

/* See stepper.h. */
int mbs_stepper_events_substep(mbs_stepper *s, double h, int *event)
{
    const double t_end = s->t0 + h;
    int done = 0, st = MBS_OK;
    *event = 0;
    while (st == MBS_OK && !done) st = piece(s, t_end, &done, event);
    if (st == MBS_OK) s->d->time = t_end;
    return st;
}
