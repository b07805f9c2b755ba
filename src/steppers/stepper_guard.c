/* The divergence guards of the RK4 and Euler steppers (on by default; mbs_stepper_def
 * no_divergence_guard turns it off). An explicit step beyond the method's stability region
 * (h |lambda| above about 2.8 for RK4, lambda an eigenvalue of the linearised dynamics: a
 * stiff spring or contact at too large a step) multiplies that mode by |R(h lambda)| > 1 every
 * step, and the energy grows without bound while each step returns MBS_OK. The guard
 * estimates h |lambda| from the stages already computed, by two steps of the power method
 * (stiffness detection, Hairer and Wanner, "Solving Ordinary Differential Equations II",
 * 1996, §IV.2; Shampine 1977): with k_i = (V_i, A_i) the stage derivatives, y2 - y1 = h/2 k1,
 * y3 - y2 = h/2 (k2 - k1) ~ h/2 J (y2 - y1) and h/2 (k3 - k2) ~ (h/2)^2 J^2 (y2 - y1). In the
 * norm of (dq, h dv) the first-order form of q'' = a(q, v) has J^2 = -(h omega)^2 for an
 * undamped mode of frequency omega, so
 *     (h |lambda| / 2)^2 ~ sqrt((h/2)^2 |A2 - A1|^2 + h^2 |A3 - A2|^2) / sqrt(|V1|^2 + h^2 |A1|^2)
 * whatever the direction of y2 - y1. Differences at the rounding level of the accelerations
 * (a state at rest, forces that balance) or below sqrt(DBL_MIN) (a motion decayed to nothing,
 * whose squares underflow) are not measured. Costs O(nv) per step. */
#include "steppers/stepper.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define RK4_BOUND 2.78    /* h |lambda| refused: RK4 is stable on [-2.785, 0] and to 2.83i */
#define RK4_SUGGEST 2.0   /* h |lambda| of the suggested step */
#define SIGNIFICANT 1e-9  /* stage differences below this times the accelerations: rounding */

/* Sum of squares of a - b (b NULL: of a) over n entries, and the largest |a| into *amax. */
static double sq(const double *a, const double *b, int n, double *amax)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        const double x = b ? a[i] - b[i] : a[i];
        s += x * x;
        *amax = fmax(*amax, fabs(a[i]));
    }
    return s;
}

/* 1 when the differences (squared sums d1, d2) stand out of the rounding of values up to
   vmax (plus an acceleration scale g); below sqrt(DBL_MIN) the squares underflow, and a
   motion decayed to nothing is no signal. */
static int significant(double d1, double d2, double vmax, double g)
{
    const double floor = fmax(SIGNIFICANT * (vmax + g), sqrt(DBL_MIN));
    return sqrt(d1) > floor || sqrt(d2) > floor;
}

/* Sum of squares of K a - K b (b < 0: of K a) over the user states that are not quadratures
   (model ux_quad), and the largest |K a| into *amax. */
static double sq_states(const mbs_model *m, const double *const K[4], int a, int b, double *amax)
{
    double s = 0.0;
    for (int i = 0; i < m->nux; ++i) {
        if (m->ux_quad && m->ux_quad[i]) continue;
        const double x = b >= 0 ? K[a][i] - K[b][i] : K[a][i];
        s += x * x;
        *amax = fmax(*amax, fabs(K[a][i]));
    }
    return s;
}

/* See stepper.h. User states x (first order) take part with their stages K, except the
   quadratures (whose rates feed nothing back). */
double mbs_rk4_stiffness(const mbs_stepper *s, double h, const double *V1,
                         const double *const A[4], const double *const K[4])
{
    const int nv = s->nv, nx = s->nux;
    const mbs_model *m = s->d->model;
    double amax = 0.0, kmax = 0.0, vmax = 0.0;
    const double d21 = sq(A[1], A[0], nv, &amax), d32 = sq(A[2], A[1], nv, &amax);
    const double a1 = sq(A[0], NULL, nv, &amax), v1 = sq(V1, NULL, nv, &vmax);
    const double k32 = nx ? sq_states(m, K, 2, 1, &kmax) : 0.0;
    const double k21 = nx ? sq_states(m, K, 1, 0, &kmax) : 0.0;
    const double k1 = nx ? sq_states(m, K, 0, -1, &kmax) : 0.0;
    const double g = m->gravity_kind == MBS_GRAVITY_UNIFORM
                         ? sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] +
                                m->gravity[2] * m->gravity[2])
                         : 0.0;
    if (!significant(d21, d32, amax, g) && !significant(k21, k32, kmax, 0.0)) return 0.0;
    const double den = sqrt(v1 + h * h * a1 + k1);
    if (!(den > 0.0)) return 0.0;
    const double ratio = sqrt(0.25 * h * h * d21 + h * h * d32 + k32) / den;
    return 2.0 * sqrt(ratio);
}

/* See stepper.h. */
int mbs_rk4_guard(mbs_stepper *s, double h, const double *V1, const double *const A[4],
                  const double *const K[4])
{
    if (s->def.no_divergence_guard) return MBS_OK;
    const double hl = mbs_rk4_stiffness(s, h, V1, A, K);
    if (!(hl > RK4_BOUND)) return MBS_OK;
    return MBS_DATA_FAIL(s->d, MBS_ERR_SOLVER, "RK4 step from t = %.17g: the step is beyond the "
                         "method's stability (h times the fastest rate is about %.3g, above "
                         "%.3g): the motion would grow without bound; use dt <= %.3g s, an "
                         "implicit stepper (cvode_bdf), or no_divergence_guard", s->t0, hl,
                         RK4_BOUND, h * RK4_SUGGEST / hl);
}

/* The semi-implicit Euler guard. Its one evaluation per step gives no stages to compare, so
 * it compares steps: for a linearised motion the increments of the state over a step,
 * e_n = (q_{n+1} - q_n, v_{n+1} - v_n) / h = (v_{n+1}, h a_n), follow e_{n+1} = Phi e_n (a
 * constant force drops out), and the power quotient c = <e_n, e_{n-1}> / |e_{n-1}|^2 tends
 * to the dominant eigenvalue of Phi. Semi-implicit Euler loses stability only through a real
 * eigenvalue below -1 (for x'' = -w^2 x - c x' its eigenvalues obey l^2 - (2 - hc - h^2 w^2) l
 * + 1 - hc = 0: complex ones have |l|^2 = 1 - hc, and l = 1 needs w = 0), a motion that
 * reverses and grows every step. Stable steps give c down to -3.5 once (a mode passing near
 * zero) but c < -2 at most once in a row, < -1.5 twice, < -1.2 five times, < -1.05 twenty
 * times (every h w below 2 and damping inside the region, sampled); the guard refuses at
 * twice those counts. So h w = 10 is refused at the second step, 2.1 within 10 and 2.001 within 40;
 * below about 2.0005 (l > -1.02) the growth is slow and not refused. */
static const struct { double c; int n; } EULER_RUNS[] = {
    {4.0, 1}, {2.0, 2}, {1.5, 4}, {1.2, 10}, {1.05, 40}};

/* See stepper.h. */
void mbs_euler_guard_reset(mbs_stepper *s)
{
    s->eg_valid = 0;
    for (int k = 0; k < MBS_EULER_NRUN; ++k) s->eg_run[k] = 0;
}

/* The power quotient c of the step's increment (v1, h a) against the last one (v0, h a0),
   or 1 when the last increment is not significant (rounding, rest). */
static double euler_quotient(const mbs_stepper *s, double h, const double *v1, const double *a)
{
    const double *a0 = s->work, *v0 = s->v0;
    double num = 0.0, den = 0.0, big = 0.0;
    for (int i = 0; i < s->nv; ++i) {
        num += v1[i] * v0[i] + h * h * a[i] * a0[i];
        den += v0[i] * v0[i] + h * h * a0[i] * a0[i];
        big = fmax(big, fmax(fabs(v0[i]), h * fabs(a0[i])));
    }
    const mbs_model *m = s->d->model;
    const double g = m->gravity_kind == MBS_GRAVITY_UNIFORM ? sqrt(v3_dot(m->gravity, m->gravity)) : 0.0;
    if (!(big > fmax(SIGNIFICANT * h * g, sqrt(DBL_MIN)))) return 1.0;
    return num / den;
}

/* See stepper.h. */
int mbs_euler_guard(mbs_stepper *s, double h, const double *v1, const double *a)
{
    if (s->def.no_divergence_guard) return MBS_OK;
    const int cont = s->eg_valid && s->eg_h == h && s->eg_t == s->t0;
    const double c = cont ? euler_quotient(s, h, v1, a) : 1.0;
    int refuse = 0;
    for (int k = 0; k < MBS_EULER_NRUN; ++k) {
        s->eg_run[k] = c < -EULER_RUNS[k].c ? s->eg_run[k] + 1 : 0;
        refuse |= s->eg_run[k] >= EULER_RUNS[k].n;
    }
    if (refuse) {
        /* an undamped mode with eigenvalue c: (h w)^2 = 2 - c - 1/c */
        const double hw = sqrt(2.0 - c - 1.0 / c);
        mbs_euler_guard_reset(s);
        return MBS_DATA_FAIL(s->d, MBS_ERR_SOLVER, "Euler step from t = %.17g: the step is "
                             "beyond the method's stability (the motion reverses and grows "
                             "%.3g-fold every step; h times the fastest rate is about %.3g, "
                             "above 2): it would grow without bound; use dt <= %.3g s, an "
                             "implicit stepper (cvode_bdf), or no_divergence_guard", s->t0,
                             -c, hw, h * 1.5 / hw);
    }
    memcpy(s->work, a, (size_t)s->nv * sizeof(double));
    s->eg_valid = 1, s->eg_h = h, s->eg_t = s->t0 + h;
    return MBS_OK;
}
