/* Mode changes of friction, brakes and restitution stops (events.h): the variable-structure
 * treatment of the Modelica library (Otter, Elmqvist, Mattsson 1999) with the
 * holding force computed as the multiplier of a coordinate row.
 *  - lock: a friction whose rate reached zero (or is at rest when stepping starts) is held by
 *    its row (target: the current q); resolve then keeps it locked while the force needed to
 *    hold it stays within the break-away limit, else it slides in the direction of the net
 *    force (opposite to the holding force).
 *  - impact: a restitution stop reached moving outward: an impulse (mbs_loops_impulse, every
 *    other row respected) reverses the rate, scaled by the coefficient; slower than
 *    rest_velocity it stays in contact (its row, target the limit), released by resolve when
 *    the contact would have to pull. A friction on the same dof rests while the stop holds.
 * The dynamics needed here run through mbs_stepper_eval (loops closed, motions at t). */
#include <math.h>
#include <string.h>

#include "events/events.h"
#include "loops/loops.h"
#include "steppers/stepper.h"

/* -1, 0, +1. */
static int sgn(double x) { return (x > 0.0) - (x < 0.0); }

static const mbs_force_model *fric_force(const mbs_data *d, int k)
{
    return &d->model->forces[d->model->ev->fric[k]];
}
static const mbs_force_model *stop_force(const mbs_data *d, int k)
{
    return &d->model->forces[d->model->ev->stop[k]];
}
static int fric_row(const mbs_data *d, int k) { return d->model->ev->nmotion + k; }
static double row_lambda(const mbs_data *d, int r) { return d->lambda[d->model->ncon + r]; }

/* Friction k held at its current position (tentatively: resolve decides). */
static void lock(mbs_data *d, int k)
{
    d->ev->st.fmode[k] = MBS_FRIC_LOCKED;
    mbs_events_set_row(d, fric_row(d, k), 1, d->q[fric_force(d, k)->qindex]);
}

/* Friction k sliding in direction s (+-1). */
static void slide(mbs_data *d, int k, int s)
{
    d->ev->st.fmode[k] = s > 0 ? MBS_FRIC_SLIDE_POS : MBS_FRIC_SLIDE_NEG;
    mbs_events_set_row(d, fric_row(d, k), 0, 0.0);
}

/* The host (or a handler) set the state of friction k's dof: at rest it locks, moving it
   slides the way it moves. */
static void fric_host(mbs_data *d, int k, int *changed)
{
    const int mode = d->ev->st.fmode[k];
    const double v = d->v[fric_force(d, k)->vindex];
    if (mode == MBS_FRIC_SUSPENDED) return;
    if (v == 0.0) {
        *changed |= mode != MBS_FRIC_LOCKED;
        lock(d, k);
        return;
    }
    const int s = sgn(v);
    if (mode == MBS_FRIC_LOCKED || mode == MBS_FRIC_UNDECIDED ||
        (mode == MBS_FRIC_SLIDE_POS) != (s > 0)) {
        slide(d, k, s);
        *changed = 1;
    }
}

/* Restitution stop k reached on side `upper` (0 lower, 1 upper): impulse to -e v (0 when
   slower than rest_velocity: contact), then the dof is put on the limit; a rebound leaves
   the row off again. */
static int impact(mbs_stepper *s, int k, int upper)
{
    mbs_data *d = s->d;
    const mbs_events_model *ev = d->model->ev;
    const mbs_force_model *f = stop_force(d, k);
    const int row = ev->stop_row[k], fr = ev->stop_fric[k];
    const double vin = d->v[f->vindex];
    if (upper ? vin < 0.0 : vin > 0.0) return MBS_OK; /* already moving away */
    double vout = -f->restitution * vin;
    const int contact = !(fabs(vout) >= f->rest_velocity);
    if (contact) vout = 0.0;
    if (fr >= 0) { /* the stop holds the dof now */
        d->ev->st.fmode[fr] = MBS_FRIC_SUSPENDED;
        mbs_events_set_row(d, fric_row(d, fr), 0, 0.0);
    }
    mbs_events_set_row(d, row, 1, upper ? f->upper : f->lower);
    d->ev->row_vel[row] = vout;
    int st = mbs_loops_impulse(d);
    if (st == MBS_OK) st = mbs_stepper_close(s, "impact on a stop:");
    d->ev->row_vel[row] = 0.0;
    if (st != MBS_OK) return st;
    d->ev->st.smode[k] = contact ? (upper ? MBS_STOP_AT_UPPER : MBS_STOP_AT_LOWER) : MBS_STOP_FREE;
    if (!contact) {
        mbs_events_set_row(d, row, 0, 0.0);
        if (fr >= 0) slide(d, fr, sgn(vout));
    }
    return MBS_OK;
}

/* Contact of stop k ends: its row off; a friction on the dof decides again (at rest). */
static void release_stop(mbs_data *d, int k)
{
    const int fr = d->model->ev->stop_fric[k];
    d->ev->st.smode[k] = MBS_STOP_FREE;
    mbs_events_set_row(d, d->model->ev->stop_row[k], 0, 0.0);
    if (fr >= 0) lock(d, fr);
}

/* The host set the state of restitution stop k's dof: beyond a limit moving outward it is
   an impact; in contact but off the limit or moving away it is released. */
static int stop_host(mbs_stepper *s, int k, int *changed)
{
    mbs_data *d = s->d;
    const mbs_force_model *f = stop_force(d, k);
    const double q = d->q[f->qindex], v = d->v[f->vindex];
    const int mode = d->ev->st.smode[k];
    if (f->law != MBS_STOP_RESTITUTION) return MBS_OK;
    if (mode == MBS_STOP_FREE) {
        const int lo = q <= f->lower && v <= 0.0, up = q >= f->upper && v >= 0.0;
        if (!lo && !up) return MBS_OK;
        *changed = 1;
        return impact(s, k, up);
    }
    const int up = mode == MBS_STOP_AT_UPPER;
    if (up ? (q < f->upper || v < 0.0) : (q > f->lower || v > 0.0)) {
        release_stop(d, k);
        *changed = 1;
    }
    return MBS_OK;
}

/* 1 when dof index i of q or v differs from the reference (NULL: everything differs). */
static int moved(const mbs_data *d, const double *q_ref, const double *v_ref, int qi, int vi)
{
    if (!q_ref || !v_ref) return 1;
    return memcmp(&d->q[qi], &q_ref[qi], sizeof(double)) != 0 ||
           memcmp(&d->v[vi], &v_ref[vi], sizeof(double)) != 0;
}

/* See events.h: the modes made consistent with a state the host or a handler set. */
int mbs_events_host_rules(mbs_stepper *s, const double *q_ref, const double *v_ref, int *changed)
{
    mbs_data *d = s->d;
    const mbs_events_model *ev = d->model->ev;
    for (int k = 0; k < ev->nstop; ++k) {
        const mbs_force_model *f = stop_force(d, k);
        if (!moved(d, q_ref, v_ref, f->qindex, f->vindex)) continue;
        const int st = stop_host(s, k, changed);
        if (st != MBS_OK) return st;
    }
    for (int k = 0; k < ev->nfric; ++k) {
        const mbs_force_model *f = fric_force(d, k);
        if (d->ev->st.fmode[k] == MBS_FRIC_UNDECIDED || moved(d, q_ref, v_ref, f->qindex, f->vindex))
            fric_host(d, k, changed);
    }
    return MBS_OK;
}

/* Amount by which lock or contact `which` (friction slot, or nfric + stop slot) exceeds
   what it may hold (> 0: it lets go); -INFINITY when it holds nothing. */
static double excess(const mbs_data *d, int which)
{
    const mbs_events_model *ev = d->model->ev;
    if (which < ev->nfric) {
        if (d->ev->st.fmode[which] != MBS_FRIC_LOCKED) return -INFINITY;
        return fabs(row_lambda(d, fric_row(d, which))) - mbs_fric_stiction(d, which);
    }
    const int k = which - ev->nfric, mode = d->ev->st.smode[k];
    if (mode == MBS_STOP_FREE) return -INFINITY;
    const double lam = row_lambda(d, ev->stop_row[k]);
    return mode == MBS_STOP_AT_LOWER ? -lam : lam; /* the pull it would need */
}

/* Let go of lock or contact `which`: a friction slides away from its holding force. */
static void let_go(mbs_data *d, int which)
{
    const mbs_events_model *ev = d->model->ev;
    if (which < ev->nfric) slide(d, which, -sgn(row_lambda(d, fric_row(d, which))));
    else release_stop(d, which - ev->nfric);
}

/* See events.h: the locks and contacts kept are those whose holding forces stay within
   their limits, found by letting go of the worst one and solving again (at most every
   friction twice and every stop once). */
int mbs_events_resolve(mbs_stepper *s, int *changed)
{
    mbs_data *d = s->d;
    const mbs_events_model *ev = d->model->ev;
    const int n = ev->nfric + ev->nstop;
    for (int it = 0; it <= 2 * n; ++it) {
        if (!mbs_events_need_dynamics(d)) return MBS_OK;
        int st = mbs_stepper_eval(s, "holding forces", NULL);
        if (st != MBS_OK) return st;
        int worst = -1;
        double w = 0.0;
        for (int k = 0; k < n; ++k) {
            const double e = excess(d, k);
            if (e > w) w = e, worst = k;
        }
        if (worst < 0) return MBS_OK;
        let_go(d, worst);
        *changed = 1;
    }
    return MBS_DATA_FAIL(d, MBS_ERR_SOLVER, "%s: the locks and stop contacts at t = %.17g do not "
                         "settle", s->kind->name, d->time);
}

/* See events.h: what a crossing of internal function i starts (user events: nothing). */
int mbs_events_internal(mbs_stepper *s, int i)
{
    mbs_data *d = s->d;
    const mbs_events_model *ev = d->model->ev;
    int k = i - ev->nevent;
    if (k < 0) return MBS_OK;
    if (k < ev->nfric) {
        const int mode = d->ev->st.fmode[k];
        if (mode == MBS_FRIC_SLIDE_POS || mode == MBS_FRIC_SLIDE_NEG || mode == MBS_FRIC_UNDECIDED)
            lock(d, k); /* the rate reached zero: hold it, resolve decides */
        return MBS_OK;
    }
    k -= ev->nfric;
    const int stop = k >> 1, upper = k & 1;
    if (stop_force(d, stop)->law != MBS_STOP_RESTITUTION ||
        d->ev->st.smode[stop] != MBS_STOP_FREE)
        return MBS_OK; /* elastic: a restart only; a contact's end: resolve lets go */
    return impact(s, stop, upper);
}
