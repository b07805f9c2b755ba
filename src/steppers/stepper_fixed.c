/* Fixed-step kinds: semi-implicit (symplectic) Euler and a 4th-order Runge-Kutta on the
 * q-manifold. Both are allocation-free (RK4's stage scratch is taken at create), do a fixed
 * amount of work per step and are deterministic. They start from the backup (t0, q0, v0)
 * that stepper.c took and write the end state into the data.
 *
 * RK4 scheme. The state (q, v) lives on G x R^nv where G is the product of the joints'
 * q-manifolds; the flow of a frozen velocity w for time h is integrate(q, w, h) (mbs_integrate_q,
 * e.g. q (x) exp(h w / 2) for a quaternion). We use the commutator-free Lie group method of
 * Celledoni, Marthinsen and Owren (FGCS 19, 2003) built on the classical RK4 tableau; with
 * F_k = (V_k, A_k) the stage velocity and acceleration:
 *   stage 1: Q1 = q0,                                V1 = v0,            A1 = a(t0, Q1, V1)
 *   stage 2: Q2 = integrate(q0, V1, h/2),            V2 = v0 + h/2 A1,   A2 = a(t0+h/2, Q2, V2)
 *   stage 3: Q3 = integrate(q0, V2, h/2),            V3 = v0 + h/2 A2,   A3 = a(t0+h/2, Q3, V3)
 *   stage 4: Q4 = integrate(Q2, V3 - V1/2, h),       V4 = v0 + h A3,     A4 = a(t0+h, Q4, V4)
 *   q1 = integrate(integrate(q0, (3V1 + 2V2 + 2V3 - V4)/12, h), (-V1 + 2V2 + 2V3 + 3V4)/12, h)
 *   v1 = v0 + h/6 (A1 + 2A2 + 2A3 + A4)
 * It is 4th order on Lie groups without commutators, and on vector spaces (revolute,
 * prismatic, Cardan angles, positions) it is exactly the classical RK4. With cut joints each
 * stage evaluation closes the stage's loops holding u and projects its velocity (stepper.h):
 * the scheme then is RK4 for (u, u'), the dependent coordinates follow by closure.
 * User states x (src/ustates/) with derivative K = f(t, q, v, x) take the classical stages
 * in the same evaluations: X1 = x0, X2 = x0 + h/2 K1, X3 = x0 + h/2 K2, X4 = x0 + h K3,
 * x1 = x0 + h/6 (K1 + 2 K2 + 2 K3 + K4); the semi-implicit Euler step advances them by
 * explicit Euler, x1 = x0 + h K(t0, q0, v0, x0). */
#include "steppers/stepper.h"

#include <stdlib.h>
#include <string.h>

/* Fixed-step kinds keep no integrator state between steps. */
static void fixed_sync(mbs_stepper *s, int event)
{
    (void)s;
    (void)event;
}

/* Euler's scratch: the last step's acceleration (its divergence guard). */
static int euler_init(mbs_stepper *s)
{
    s->work = calloc(s->nv > 0 ? (size_t)s->nv : 1, sizeof(double));
    if (!s->work)
        return MBS_DATA_FAIL(s->d, MBS_ERR_NOMEM, "mbs_stepper_create: Euler: out of memory");
    mbs_euler_guard_reset(s);
    return MBS_OK;
}

/* A jump (event, re-base, restored failure) breaks the guard's sequence of steps. */
static void euler_sync(mbs_stepper *s, int event)
{
    if (event) mbs_euler_guard_reset(s);
}

/* Nothing kind-specific to free (s->work is freed by stepper.c). */
static void fixed_fini(mbs_stepper *s) { (void)s; }

/* Semi-implicit Euler: v1 = v0 + h a(t0, q0, v0); q1 = integrate(q0, v1, h); user states
   x1 = x0 + h K(t0, q0, v0, x0). */
static int euler_step(mbs_stepper *s, double h)
{
    mbs_data *d = s->d;
    int st = mbs_stepper_eval(s, "Euler step", NULL);
    if (st != MBS_OK) return st;
    for (int i = 0; i < s->nv; ++i) d->v[i] = s->v0[i] + h * d->qacc[i];
    if ((st = mbs_euler_guard(s, h, d->v, d->qacc)) != MBS_OK) return st;
    for (int i = 0; i < s->nux; ++i) d->ux[i] = s->x0[i] + h * d->uxdot[i];
    st = mbs_stepper_integrate(s, s->q0, d->v, h, d->q);
    if (st != MBS_OK) return st;
    d->time = s->t0 + h;
    return MBS_OK;
}

/* Stage scratch: V2, V3, V4, A1..A4, W (nv each), Q2 (nq) and K1..K4 (nux each). */
static int rk4_init(mbs_stepper *s)
{
    size_t n = 8 * (size_t)s->nv + (size_t)s->nq + 4 * (size_t)s->nux;
    s->work = calloc(n > 0 ? n : 1, sizeof(double));
    if (!s->work)
        return MBS_DATA_FAIL(s->d, MBS_ERR_NOMEM, "mbs_stepper_create: RK4: out of memory");
    return MBS_OK;
}

/* Pointers into the RK4 scratch. */
typedef struct rk4_scratch {
    double *V2, *V3, *V4, *A[4], *W, *Q2, *K[4];
} rk4_scratch;

/* Lay out the scratch block of s. */
static rk4_scratch rk4_layout(const mbs_stepper *s)
{
    rk4_scratch r;
    double *p = s->work;
    int nv = s->nv;
    r.V2 = p;
    r.V3 = p + nv;
    r.V4 = p + 2 * nv;
    for (int k = 0; k < 4; ++k) r.A[k] = p + (3 + k) * nv;
    r.W = p + 7 * nv;
    r.Q2 = p + 8 * nv;
    for (int k = 0; k < 4; ++k) r.K[k] = r.Q2 + s->nq + (size_t)k * (size_t)s->nux;
    return r;
}

/* Evaluate stage k (0-based) at the data's q, v, user states and time t; copy qacc into a
   and the user states' derivatives into K[k]. With cut joints the evaluation closes the
   stage's loops: the closed q and projected v are copied back into Q and V (nullable), so
   later stages start from consistent values. */
static int rk4_eval(mbs_stepper *s, int k, double t, double *a, double *Q, double *V,
                    double *const K[4])
{
    static const char *const where[4] = {"RK4 stage 1", "RK4 stage 2", "RK4 stage 3",
                                         "RK4 stage 4"};
    mbs_data *d = s->d;
    d->time = t;
    int st = mbs_stepper_eval(s, where[k], NULL);
    if (st != MBS_OK) return st;
    memcpy(a, d->qacc, (size_t)s->nv * sizeof(double));
    if (s->nux > 0) memcpy(K[k], d->uxdot, (size_t)s->nux * sizeof(double));
    if (Q) memcpy(Q, d->q, (size_t)s->nq * sizeof(double));
    if (V) memcpy(V, d->v, (size_t)s->nv * sizeof(double));
    return MBS_OK;
}

/* out = v0 + c a */
static void vel_stage(const mbs_stepper *s, double c, const double *a, double *out)
{
    for (int i = 0; i < s->nv; ++i) out[i] = s->v0[i] + c * a[i];
}

/* The data's user states = x0 + c K (the next stage's). */
static void ustate_stage(mbs_stepper *s, double c, const double *K)
{
    for (int i = 0; i < s->nux; ++i) s->d->ux[i] = s->x0[i] + c * K[i];
}

/* Stages 1-4 of the scheme in the file comment; fills r's V and A arrays. */
static int rk4_stages(mbs_stepper *s, double h, const rk4_scratch *r)
{
    mbs_data *d = s->d;
    const int nv = s->nv;
    int st = rk4_eval(s, 0, s->t0, r->A[0], NULL, NULL, r->K); /* d holds (q0, v0, x0) */
    if (st != MBS_OK) return st;
    if ((st = mbs_stepper_integrate(s, s->q0, s->v0, 0.5 * h, r->Q2)) != MBS_OK) return st;
    memcpy(d->q, r->Q2, (size_t)s->nq * sizeof(double));
    vel_stage(s, 0.5 * h, r->A[0], r->V2);
    memcpy(d->v, r->V2, (size_t)nv * sizeof(double));
    ustate_stage(s, 0.5 * h, r->K[0]);
    if ((st = rk4_eval(s, 1, s->t0 + 0.5 * h, r->A[1], r->Q2, r->V2, r->K)) != MBS_OK) return st;
    if ((st = mbs_stepper_integrate(s, s->q0, r->V2, 0.5 * h, d->q)) != MBS_OK) return st;
    vel_stage(s, 0.5 * h, r->A[1], r->V3);
    memcpy(d->v, r->V3, (size_t)nv * sizeof(double));
    ustate_stage(s, 0.5 * h, r->K[1]);
    if ((st = rk4_eval(s, 2, s->t0 + 0.5 * h, r->A[2], NULL, r->V3, r->K)) != MBS_OK) return st;
    for (int i = 0; i < nv; ++i) r->W[i] = r->V3[i] - 0.5 * s->v0[i];
    if ((st = mbs_stepper_integrate(s, r->Q2, r->W, h, d->q)) != MBS_OK) return st;
    vel_stage(s, h, r->A[2], r->V4);
    memcpy(d->v, r->V4, (size_t)nv * sizeof(double));
    ustate_stage(s, h, r->K[2]);
    return rk4_eval(s, 3, s->t0 + h, r->A[3], NULL, r->V4, r->K);
}

/* One commutator-free RK4 step (file comment). */
static int rk4_step(mbs_stepper *s, double h)
{
    mbs_data *d = s->d;
    const int nv = s->nv;
    rk4_scratch r = rk4_layout(s);
    int st = rk4_stages(s, h, &r);
    if (st == MBS_OK)
        st = mbs_rk4_guard(s, h, s->v0, (const double *const *)r.A, (const double *const *)r.K);
    if (st != MBS_OK) return st;
    const double *V1 = s->v0;
    for (int i = 0; i < nv; ++i)
        r.W[i] = (3.0 * V1[i] + 2.0 * r.V2[i] + 2.0 * r.V3[i] - r.V4[i]) / 12.0;
    if ((st = mbs_stepper_integrate(s, s->q0, r.W, h, r.Q2)) != MBS_OK) return st;
    for (int i = 0; i < nv; ++i)
        r.W[i] = (-V1[i] + 2.0 * r.V2[i] + 2.0 * r.V3[i] + 3.0 * r.V4[i]) / 12.0;
    if ((st = mbs_stepper_integrate(s, r.Q2, r.W, h, d->q)) != MBS_OK) return st;
    for (int i = 0; i < nv; ++i)
        d->v[i] = s->v0[i] + h / 6.0 * (r.A[0][i] + 2.0 * r.A[1][i] + 2.0 * r.A[2][i] + r.A[3][i]);
    for (int i = 0; i < s->nux; ++i)
        d->ux[i] = s->x0[i] + h / 6.0 * (r.K[0][i] + 2.0 * r.K[1][i] + 2.0 * r.K[2][i] + r.K[3][i]);
    d->time = s->t0 + h;
    return MBS_OK;
}

const mbs_stepper_vtable mbs_stepper_vt_euler = {
    .name = "Euler",
    .order = 1,
    .stages = 1,
    .substeps = 1,
    .stage_recover = 1,
    .init = euler_init,
    .fini = fixed_fini,
    .step = euler_step,
    .sync = euler_sync,
};

const mbs_stepper_vtable mbs_stepper_vt_rk4 = {
    .name = "RK4",
    .order = 4,
    .stages = 4,
    .substeps = 1,
    .stage_recover = 1,
    .init = rk4_init,
    .fini = fixed_fini,
    .step = rk4_step,
    .sync = fixed_sync,
};
