/* The event functions (events.h): user events first, then one per friction or brake, then
 * two per stop (lower, upper). What each one measures depends on its element's mode:
 *   friction sliding        v                     both directions (the rate reaches zero)
 *   friction locked         stiction - |lambda|   falling (the holding force leaves the band)
 *   elastic stop            q - lower, upper - q  both (contact starts or ends)
 *   restitution stop, free  q - lower, upper - q  falling (an impact)
 *   ... in contact          the push of the stop  falling (it would have to pull)
 * An infinite limit, a friction held by a stop: the constant 1 (never crosses). */
#include <math.h>

#include "events/events.h"

/* Friction slot and stop slot/side of function i (-1 when not of that kind). */
static int fric_of(const mbs_events_model *ev, int i)
{
    const int k = i - ev->nevent;
    return k >= 0 && k < ev->nfric ? k : -1;
}
static int stop_of(const mbs_events_model *ev, int i, int *upper)
{
    const int k = i - ev->nevent - ev->nfric;
    *upper = k & 1;
    return k >= 0 ? k >> 1 : -1;
}

/* Multiplier of coordinate row k at the last dynamics evaluation. */
static double row_lambda(const mbs_data *d, int k) { return d->lambda[d->model->ncon + k]; }

/* See events.h. */
int mbs_events_direction(const mbs_data *d, int i)
{
    const mbs_events_model *ev = d->model->ev;
    int upper, k = fric_of(ev, i);
    if (i < ev->nevent) return 0;
    if (k >= 0) return d->ev->st.fmode[k] == MBS_FRIC_LOCKED ? -1 : 0;
    k = stop_of(ev, i, &upper);
    return d->model->forces[ev->stop[k]].law == MBS_STOP_ELASTIC ? 0 : -1;
}

/* See events.h. */
int mbs_events_need_dynamics(const mbs_data *d)
{
    const mbs_events_model *ev = d->model->ev;
    for (int k = 0; k < ev->nfric; ++k)
        if (d->ev->st.fmode[k] == MBS_FRIC_LOCKED) return 1;
    for (int k = 0; k < ev->nstop; ++k)
        if (d->ev->st.smode[k] != MBS_STOP_FREE) return 1;
    return 0;
}

/* Friction slot k's function. */
static double fric_fn(const mbs_data *d, int k)
{
    const int mode = d->ev->st.fmode[k];
    if (mode == MBS_FRIC_SUSPENDED) return 1.0;
    if (mode == MBS_FRIC_LOCKED)
        return mbs_fric_stiction(d, k) - fabs(row_lambda(d, d->model->ev->nmotion + k));
    return d->v[d->model->forces[d->model->ev->fric[k]].vindex];
}

/* Stop slot k's function on one side. */
static double stop_fn(const mbs_data *d, int k, int upper)
{
    const mbs_force_model *f = &d->model->forces[d->model->ev->stop[k]];
    const int mode = d->ev->st.smode[k];
    if (mode == (upper ? MBS_STOP_AT_UPPER : MBS_STOP_AT_LOWER)) {
        const double lam = row_lambda(d, d->model->ev->stop_row[k]);
        return upper ? -lam : lam; /* the push away from the limit */
    }
    const double lim = upper ? f->upper : f->lower, q = d->q[f->qindex];
    if (!isfinite(lim)) return 1.0;
    return upper ? lim - q : q - lim;
}

/* The user's g of event i, guarded: a non-finite value is an error naming the event. */
static int user_fn(mbs_data *d, int i, double *g)
{
    const mbs_event_model *e = &d->model->ev->events[i];
    char buf[96];
    d->ev->in_handler = 1 + i;
    *g = e->g(d, e->user);
    d->ev->in_handler = 0;
    if (isfinite(*g)) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "event %s: g = %g at t = %.17g is not finite",
                         mbs_name_label(e->name, i, buf, (int)sizeof buf), *g, d->time);
}

/* See events.h. */
int mbs_events_eval(mbs_data *d, double *g)
{
    const mbs_events_model *ev = d->model->ev;
    for (int i = 0; i < ev->nevent; ++i) {
        const int st = user_fn(d, i, &g[i]);
        if (st != MBS_OK) return st;
    }
    for (int k = 0; k < ev->nfric; ++k) g[ev->nevent + k] = fric_fn(d, k);
    for (int k = 0; k < ev->nstop; ++k) {
        g[ev->nevent + ev->nfric + 2 * k] = stop_fn(d, k, 0);
        g[ev->nevent + ev->nfric + 2 * k + 1] = stop_fn(d, k, 1);
    }
    return MBS_OK;
}

/* See events.h: a sign change away from a nonzero value (a function that starts at zero
   counts only once it has left it), except for a falling-only function: leaving zero
   downwards is its crossing (a restitution stop's coordinate put on the limit by an impact
   that lands below it within one step: the bounce too short for a step, near the Zeno time). */
int mbs_events_crossed(const mbs_data *d, int i, double a, double b)
{
    const int dir = mbs_events_direction(d, i);
    const int falling = (a > 0.0 && b <= 0.0) || (dir < 0 && a == 0.0 && b < 0.0);
    const int rising = a < 0.0 && b >= 0.0;
    return (dir <= 0 && falling) || (dir >= 0 && rising);
}
