/* The check that a prescribed motion's velocity and acceleration are the derivatives of its
 * position (and velocity), made once before the first step of a stepper. A motion whose
 * velocity misses a chain-rule factor, or whose acceleration is left at 0, is otherwise
 * integrated without complaint: the closure puts the coordinate where the position says,
 * while the velocity and the driving force follow the wrong derivatives, so energy and
 * reactions are wrong with MBS_OK. At the start t0 of the first step and in its middle (the
 * motion is only sampled where that step evaluates it: it may start at t0, or end later)
 * the derivatives are compared with one-sided second-order differences at two step sizes,
 * and the motion is refused only when both disagree by more than 1e-3 of the larger value
 * plus the differences' rounding (gross errors; the truncation is (w h)^2 / 3 of the value
 * for a frequency w, 3e-5 at w = 1e3 rad/s and h = 1e-5 s). */
#include "events/events.h"

#include <float.h>
#include <math.h>

#define REL_TOL 1e-3    /* disagreement refused, relative to the larger of the two values */
#define ABS_TOL 1e-8    /* ... plus this times (1 + |value differentiated|): rounding */

/* Position, velocity and acceleration of motion mo at t, t + h, t + 2h into p, v, a;
   a status naming motion i on failure. */
static int samples(mbs_data *d, int i, double t, double h, double p[3], double v[3],
                   double a[3])
{
    const mbs_motion_model *mo = &d->model->ev->motions[i];
    char jl[96];
    for (int k = 0; k < 3; ++k) {
        const double tk = t + k * h;
        p[k] = v[k] = a[k] = NAN;
        const int rc = mo->fn(tk, &p[k], &v[k], &a[k], mo->user);
        if (rc != 0)
            return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "joint motion #%d on joint %s returned "
                                 "%d at t = %.17g (checking its derivatives)", i,
                                 mbs_joint_label(d->model, mo->joint, jl, 96), rc, tk);
        if (!isfinite(p[k]) || !isfinite(v[k]) || !isfinite(a[k]))
            return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "joint motion #%d on joint %s: not "
                                 "finite at t = %.17g", i,
                                 mbs_joint_label(d->model, mo->joint, jl, 96), tk);
    }
    return MBS_OK;
}

/* The one-sided second-order difference of f sampled at t, t + h, t + 2h. */
static double diff(const double f[3], double h) { return (-3.0 * f[0] + 4.0 * f[1] - f[2]) / (2.0 * h); }

/* 1 when the derivative given, g, disagrees with the difference of f grossly. */
static int disagrees(const double f[3], double g, double h)
{
    const double fd = diff(f, h);
    const double round = 4.0 * DBL_EPSILON * (fabs(f[0]) + fabs(f[1]) + fabs(f[2])) / h;
    return fabs(g - fd) > REL_TOL * fmax(fabs(g), fabs(fd)) + ABS_TOL * (1.0 + fabs(f[0])) +
                              round;
}

/* Motion i at time t, sampled up to t + hmax / 4: 0 consistent, 1 velocity, 2 acceleration
   disagree at both step sizes (*fd the difference at the finer one); < 0 a status. */
static int check_at(mbs_data *d, int i, double t, double hmax, double *given, double *fd)
{
    int bad = 3;
    for (int k = 0; k < 2 && bad; ++k) {
        const double h = fmin(1e-5 * fmax(1.0, fabs(t)), hmax / 8.0) * (k ? 0.1 : 1.0);
        double p[3], v[3], a[3];
        const int st = samples(d, i, t, h, p, v, a);
        if (st != MBS_OK) return st;
        bad = disagrees(p, v[0], h) ? 1 : disagrees(v, a[0], h) ? 2 : 0;
        *given = bad == 1 ? v[0] : a[0];
        *fd = bad == 1 ? diff(p, h) : diff(v, h);
    }
    return bad;
}

/* See events.h. */
int mbs_events_check_motions(mbs_data *d, double dt)
{
    const mbs_model *m = d->model;
    for (int i = 0; m->ev && i < m->ev->nmotion; ++i)
        for (int k = 0; k < 2; ++k) {
            double given = 0.0, fd = 0.0;
            const double t = d->time + 0.5 * k * dt;
            const int bad = check_at(d, i, t, dt, &given, &fd);
            if (bad < 0) return bad;
            if (!bad) continue;
            char jl[96];
            return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "joint motion #%d on joint %s: its "
                                 "%s %.6g at t = %.17g is not the derivative of its %s (%.6g "
                                 "by finite differences)", i,
                                 mbs_joint_label(m, m->ev->motions[i].joint, jl, 96),
                                 bad == 1 ? "velocity" : "acceleration", given, t,
                                 bad == 1 ? "position" : "velocity", fd);
        }
    return MBS_OK;
}
