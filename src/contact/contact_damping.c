/* The damping of the contact law for a restitution e (shapes.h). For the normal law alone,
 * m x'' = -k x^n (1 + c x' / v0), x(0) = 0, x'(0) = v0, the scaling x = X s with
 * X = (m v0^2 / k)^(1 / (n + 1)) and t = (X / v0) tau leaves s'' = -s^n (1 + c s'), s'(0) = 1:
 * the rebound speed over v0 depends on c and n alone. Hunt and Crossley ("Coefficient of
 * restitution interpreted as damping in vibroimpact", 1975) give c = 3 (1 - e) / 2, exact to
 * first order in 1 - e; here c is solved for the rebound e itself (bisection on the scaled
 * impact, integrated by RK4), so that a point on a fixed surface rebounds with e at any
 * speed. */
#include "contact/shapes.h"

#include <math.h>

/* Acceleration of the scaled impact (the force never pulls). */
static double acc(double s, double v, double c, double n)
{
    return s > 0.0 ? -pow(s, n) * fmax(0.0, 1.0 + c * v) : 0.0;
}

/* Rebound speed over approach speed of the scaled impact with damping c. */
static double rebound(double c, double n)
{
    const double h = 2e-3;
    double s = 0.0, v = 1.0;
    for (int i = 0; i < 200000; ++i) {
        const double k1v = acc(s, v, c, n), k1s = v;
        const double k2v = acc(s + 0.5 * h * k1s, v + 0.5 * h * k1v, c, n), k2s = v + 0.5 * h * k1v;
        const double k3v = acc(s + 0.5 * h * k2s, v + 0.5 * h * k2v, c, n), k3s = v + 0.5 * h * k2v;
        const double k4v = acc(s + h * k3s, v + h * k3v, c, n), k4s = v + h * k3v;
        const double s1 = s + h / 6.0 * (k1s + 2.0 * k2s + 2.0 * k3s + k4s);
        const double v1 = v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        if (s1 <= 0.0 && i > 0) return -(v + (v1 - v) * s / (s - s1)); /* out: interpolated */
        if (v1 >= 0.0 && v < 0.0 && acc(s1, v1, c, n) == 0.0) return 0.0; /* stuck */
        s = s1, v = v1;
    }
    return 0.0;
}

/* See shapes.h. */
double mbs_contact_damping(double e, double n)
{
    if (e >= 1.0) return 0.0;
    double lo = 0.0, hi = 1.5 * (1.0 - e);
    while (rebound(hi, n) > e && hi < 1e6) lo = hi, hi *= 2.0;
    for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (rebound(mid, n) > e) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}
