/* An optional local-error estimate for the fixed-step kinds (mbs_stepper_def err_rtol,
 * err_atol): each step is also taken as two half steps (step doubling, Hairer, Nørsett,
 * Wanner, "Solving Ordinary Differential Equations I", §II.4); where the two results differ
 * by more than err_atol + err_rtol |x| in some coordinate (or user state) the step fails
 * with MBS_ERR_SOLVER and a suggested step size h (1 / ratio)^(1 / (order + 1)) 0.9. The state kept is the full
 * step's (with its qacc, lambda and the loop solver's state; the half steps start from the
 * loop solver's state at the step's start), so results are bit for bit those without the
 * estimate. Scratch at create. */
#include "steppers/stepper.h"
#include "events/events.h"
#include "loops/loops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Layout of s->errw: the start (t, q, v, aux, user states x), the full step's result (q, v,
   aux, x, and the qacc, lambda it left), and the difference in tangent coordinates (nv). */
typedef struct err_ws {
    double *q0, *v0, *a0, *x0, *q1, *v1, *a1, *x1, *acc1, *lam1, *dq;
} err_ws;

/* Multipliers of the data: cut-joint and coordinate rows. */
static int nlambda(const mbs_stepper *s) { return s->d->model->ncon + mbs_nqrow(s->d->model); }

static err_ws layout(const mbs_stepper *s)
{
    err_ws w;
    double *p = s->errw;
    w.q0 = p, p += s->nq;
    w.v0 = p, p += s->nv;
    w.a0 = p, p += s->naux;
    w.x0 = p, p += s->nux;
    w.q1 = p, p += s->nq;
    w.v1 = p, p += s->nv;
    w.a1 = p, p += s->naux;
    w.x1 = p, p += s->nux;
    w.acc1 = p, p += s->nv;
    w.lam1 = p, p += nlambda(s);
    w.dq = p;
    return w;
}

int mbs_stepper_error_init(mbs_stepper *s)
{
    s->errw = NULL;
    if (!(s->def.err_rtol > 0.0) && !(s->def.err_atol > 0.0)) return MBS_OK;
    if (s->kind->order == 0) return MBS_OK; /* CVODE controls its error with rtol, atol */
    s->errw = calloc((size_t)(3 * (s->nq + s->nv + s->naux + s->nux) + s->nv + nlambda(s) + 1),
                     sizeof(double));
    if (!s->errw || mbs_loops_snap_create(s->d, &s->err_loops0) != MBS_OK ||
        mbs_loops_snap_create(s->d, &s->err_loops1) != MBS_OK)
        return MBS_ERR_NOMEM;
    return MBS_OK;
}

static void save(const mbs_data *d, const mbs_stepper *s, double *q, double *v, double *a,
                 double *x)
{
    memcpy(q, d->q, (size_t)s->nq * sizeof(double));
    memcpy(v, d->v, (size_t)s->nv * sizeof(double));
    memcpy(a, d->aux, (size_t)s->naux * sizeof(double));
    memcpy(x, d->ux, (size_t)s->nux * sizeof(double));
}

static void load(mbs_data *d, const mbs_stepper *s, const double *q, const double *v,
                 const double *a, const double *x)
{
    memcpy(d->q, q, (size_t)s->nq * sizeof(double));
    memcpy(d->v, v, (size_t)s->nv * sizeof(double));
    memcpy(d->aux, a, (size_t)s->naux * sizeof(double));
    memcpy(d->ux, x, (size_t)s->nux * sizeof(double));
}

/* Largest |x_full - x_half| / (atol + rtol |x|) over q (tangent coordinates), v and the
   user states. */
static double error_ratio(const mbs_stepper *s, const err_ws *w)
{
    const mbs_data *d = s->d;
    const double rt = s->def.err_rtol, at = s->def.err_atol;
    double r = 0.0;
    mbs_difference_q(d->model, w->q1, d->q, w->dq);
    for (int i = 0; i < s->nv; ++i) {
        r = fmax(r, fabs(w->dq[i]) / (at + rt)); /* q: relative to 1 (rad or m) */
        r = fmax(r, fabs(d->v[i] - w->v1[i]) / (at + rt * fmax(fabs(w->v1[i]), fabs(d->v[i]))));
    }
    for (int i = 0; i < s->nux; ++i)
        r = fmax(r, fabs(d->ux[i] - w->x1[i]) / (at + rt * fmax(fabs(w->x1[i]), fabs(d->ux[i]))));
    return r;
}

/* See stepper.h: the data's state is the start of the step to be checked. */
void mbs_stepper_error_begin(mbs_stepper *s)
{
    const err_ws w = layout(s);
    save(s->d, s, w.q0, w.v0, w.a0, w.x0);
    s->err_t0 = s->d->time;
    s->err_loops = mbs_loops_events(s->d);
    mbs_loops_snap_save(s->d, s->err_loops0);
}

/* See stepper.h: two half steps from the saved start, compared with the step's result in
   the data (kept there); a re-base or a new loop partition changes the coordinates: no
   comparison then. */
int mbs_stepper_error_check(mbs_stepper *s, double h, int event)
{
    mbs_data *d = s->d;
    const err_ws w = layout(s);
    const double t0 = s->err_t0;
    int ev2 = 0, ev3 = 0;
    save(d, s, w.q1, w.v1, w.a1, w.x1);
    memcpy(w.acc1, d->qacc, (size_t)s->nv * sizeof(double));
    memcpy(w.lam1, d->lambda, (size_t)nlambda(s) * sizeof(double));
    mbs_loops_snap_save(d, s->err_loops1);
    const int full_events = mbs_loops_events(d) != s->err_loops;
    const double t1 = d->time;
    load(d, s, w.q0, w.v0, w.a0, w.x0); /* two half steps from the same start */
    mbs_loops_snap_restore(d, s->err_loops0);
    d->time = t0;
    mbs_stepper_set_start(s);
    int st = mbs_stepper_substep(s, 0.5 * h, &ev2);
    if (st == MBS_OK) {
        mbs_stepper_set_start(s);
        st = mbs_stepper_substep(s, 0.5 * h, &ev3);
    }
    const int events = event || ev2 || ev3 || full_events || mbs_loops_events(d) != s->err_loops;
    const double ratio = st == MBS_OK && !events ? error_ratio(s, &w) : 0.0;
    load(d, s, w.q1, w.v1, w.a1, w.x1); /* the full step's result, as without the estimate */
    d->time = t1;
    memcpy(d->qacc, w.acc1, (size_t)s->nv * sizeof(double));
    memcpy(d->lambda, w.lam1, (size_t)nlambda(s) * sizeof(double));
    mbs_loops_snap_restore(d, s->err_loops1);
    if (st != MBS_OK || !(ratio > 1.0)) return MBS_OK; /* half steps failing: no estimate */
    const double hs = 0.9 * h * pow(1.0 / ratio, 1.0 / (double)(s->kind->order + 1));
    return MBS_DATA_FAIL(d, MBS_ERR_SOLVER, "%s step from t = %.17g: the local error estimate is "
                         "%.3g times the tolerance (err_rtol %g, err_atol %g); a step of about "
                         "%.3g s would meet it", s->kind->name, t0, ratio, s->def.err_rtol,
                         s->def.err_atol, hs);
}

/* See stepper.h: the step, then its check. */
int mbs_stepper_error_step(mbs_stepper *s, double h, int *event)
{
    mbs_stepper_error_begin(s);
    const int st = mbs_stepper_substep(s, h, event);
    return st == MBS_OK ? mbs_stepper_error_check(s, h, *event) : st;
}
