/* Planar contact curves (contact.h): a point, its unit tangent and normal and their
 * derivatives along the parameter, for lines, circles, ellipses and user curves. */
#include "contact/contact.h"

#include <math.h>

/* p, dp/ds, d^2p/ds^2 of curve c at s; MBS_OK or MBS_ERR_CALLBACK. */
static int curve_raw(const mbs_curve_model *c, double s, double p[2], double d1[2], double d2[2])
{
    switch (c->kind) {
    case MBS_CURVE_LINE:
        p[0] = s, p[1] = 0.0, d1[0] = 1.0, d1[1] = 0.0, d2[0] = d2[1] = 0.0;
        return MBS_OK;
    case MBS_CURVE_CIRCLE: {
        const double u = s / c->a, cu = cos(u), su = sin(u);
        p[0] = c->a * cu, p[1] = c->a * su;
        d1[0] = -su, d1[1] = cu;
        d2[0] = -cu / c->a, d2[1] = -su / c->a;
        return MBS_OK;
    }
    case MBS_CURVE_ELLIPSE: {
        const double cs = cos(s), sn = sin(s);
        p[0] = c->a * cs, p[1] = c->b * sn;
        d1[0] = -c->a * sn, d1[1] = c->b * cs;
        d2[0] = -p[0], d2[1] = -p[1];
        return MBS_OK;
    }
    default:
        return c->fn(s, p, d1, d2, c->user) == 0 ? MBS_OK : MBS_ERR_CALLBACK;
    }
}

/* See contact.h: t = p' / |p'|, t' = (p'' - t (t . p'')) / |p'|, n = side (t_y, -t_x). */
int mbs_curve_eval(const mbs_curve_model *c, double s, mbs_curve_pt *o)
{
    double d1[2], d2[2];
    const int st = curve_raw(c, s, o->p, d1, d2);
    if (st != MBS_OK) return st;
    o->speed = hypot(d1[0], d1[1]);
    if (!(o->speed > 0.0) || !isfinite(o->speed) || !isfinite(o->p[0]) || !isfinite(o->p[1]))
        return MBS_ERR_SINGULAR;
    o->t[0] = d1[0] / o->speed, o->t[1] = d1[1] / o->speed;
    const double tp = o->t[0] * d2[0] + o->t[1] * d2[1];
    o->dt[0] = (d2[0] - o->t[0] * tp) / o->speed, o->dt[1] = (d2[1] - o->t[1] * tp) / o->speed;
    o->n[0] = c->side * o->t[1], o->n[1] = -c->side * o->t[0];
    o->dn[0] = c->side * o->dt[1], o->dn[1] = -c->side * o->dt[0];
    return MBS_OK;
}

/* See contact.h: the parameter stays where rounding is that of one turn (after thousands of
   turns cos(s / a) would carry the rounding of s and the contact solve could not converge). */
double mbs_curve_wrap(const mbs_curve_model *c, double s)
{
    return c->period > 0.0 ? s - c->period * floor(s / c->period + 0.5) : s;
}
