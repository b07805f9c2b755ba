/* Kernels of the planar passes (planar.h): one step of one tree joint, picked at compile by
 * the joint's kind and geometry, so that the passes (planar_dyn.c) never switch on a type.
 * Motion vectors m = (w, vx, vy), force vectors f = (n, fx, fy) and inertias in world axes
 * at the body's origin; articulated inertias as the upper triangle (00, 01, 02, 11, 12, 22)
 * of [I, -hy, hx; -hy, m, 0; hx, 0, m] plus what the children hand up (Featherstone, "Rigid
 * Body Dynamics Algorithms" 2008, table 7.1). Between a parent and its child the transform
 * is the shift by the child's origin d from the parent's: X = [1 0; J d 1], J d = (-dy, dx).
 *
 * Three families:
 *  - a revolute joint whose child origin lies on its axis (r = 0, the usual joint frame):
 *    S = (s, 0, 0), so D = IA_00, the articulated inertia handed up has a zero first row
 *    and column, the force handed up has the joint torque as moment, and the pose's
 *    translation is the constant a;
 *  - any revolute or prismatic joint: S = (S0, R_b S_lin) of a constant S in the child's
 *    planar frame, U = IA S, the rank-one update written out;
 *  - planar (3 dofs) and fixed joints: a small dense D. */
#include "planar/planar.h"

#include <math.h>

/* GCC: -O3 unrolls and inlines the passes' 3-vector loops (as for src/core/aba.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-tree-slp-vectorize")
#endif
/* The templates below are folded by the compiler for a constant flag: force inlining. */
#if defined(__GNUC__)
#define PK_INLINE static inline __attribute__((always_inline))
#else
#define PK_INLINE static inline
#endif

#define PK_SINGULAR_EPS 1e-12 /* a pivot below this fraction of the inertia scale: singular */

/* See planar.h. */
int mbs_planar_singular(mbs_data *d, int b)
{
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "body %s: articulated inertia singular "
                         "(massless end of a chain?)", mbs_body_label(d->model, b, buf, (int)sizeof buf));
}

/* ---------------------------------------------------------------- shared pieces */

/* max(x, y) for y not NaN: y when x is NaN, as fmax (inline: fmax is a libm call). */
PK_INLINE double pk_max(double x, double y) { return x > y ? x : y; }

/* 1 when the pivot D is singular against the inertia scale of IA. */
PK_INLINE int pk_singular(double D, const double *IA)
{
    return !(D > PK_SINGULAR_EPS * pk_max(IA[0] + IA[3] + IA[5], 1e-300));
}

/* IA_p += X^T Ia X for the symmetric Ia = [a b^T; b C] (upper triangle) and the shift by d:
   with t = J d and y = b + C t, X^T Ia X = [a + b.t + t.y, y^T; y, C]. */
PK_INLINE void pk_inertia_add(double *restrict IAp, const double *restrict d,
                              const double *restrict Ia)
{
    const double t0 = -d[1], t1 = d[0];
    const double b0 = Ia[1], b1 = Ia[2], C00 = Ia[3], C01 = Ia[4], C11 = Ia[5];
    const double y0 = b0 + C00 * t0 + C01 * t1, y1 = b1 + C01 * t0 + C11 * t1;
    IAp[0] += Ia[0] + b0 * t0 + b1 * t1 + t0 * y0 + t1 * y1;
    IAp[1] += y0, IAp[2] += y1;
    IAp[3] += C00, IAp[4] += C01, IAp[5] += C11;
}

/* Velocity of the child from its parent's and the joint's vJ, and c = v x vJ + cJ =
   (0, w J vJ_lin - wJ J v_lin) + cJ. */
PK_INLINE void pk_motion(mbs_planar_data *w, const mbs_planar_joint *pj, const double vJ[3],
                         const double cJ[3])
{
    const int b = pj->child;
    double vp[3];
    mbs_planar_shift_m(vp, w->dp + 2 * b, w->vel + 3 * pj->parent);
    double *restrict vb = w->vel + 3 * b, *restrict cb = w->c + 3 * b;
    vb[0] = vp[0] + vJ[0], vb[1] = vp[1] + vJ[1], vb[2] = vp[2] + vJ[2];
    cb[0] = cJ[0];
    cb[1] = cJ[1] - vb[0] * vJ[2] + vJ[0] * vb[2];
    cb[2] = cJ[2] + vb[0] * vJ[1] - vJ[0] * vb[1];
}

/* S of a rotation by s about the joint point, the child origin at R_b r from it. */
PK_INLINE void pk_rotation_s(const mbs_planar_joint *pj, const double *th, double *S)
{
    const double c = th[0], s = th[1];
    const double rw0 = c * pj->r[0] - s * pj->r[1], rw1 = s * pj->r[0] + c * pj->r[1];
    S[0] = pj->s, S[1] = -pj->s * rw1, S[2] = pj->s * rw0;
}

/* S of a translation along the in-plane axis u of the parent's planar frame. */
PK_INLINE void pk_translation_s(const double *th_p, const double u[2], double *S)
{
    const double c = th_p[0], s = th_p[1];
    S[0] = 0.0, S[1] = c * u[0] - s * u[1], S[2] = s * u[0] + c * u[1];
}

/* ---------------------------------------------------------------- generic runs */

/* A run's passes joint by joint, each by its own kernels (what every kernel family that
   does not chain takes; runs of such joints have one joint). */
static void gen_down_run(const mbs_planar_joint *pj, int n, const double *q, const double *v,
                         mbs_planar_data *w)
{
    for (int k = 0; k < n; ++k) {
        pj[k].kern->pose_motion(&pj[k], q, v, w);
        mbs_planar_body_start(pj[k].body, w, pj[k].child);
    }
}

static int gen_backward_run(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int n)
{
    for (int k = n - 1; k >= 0; --k) {
        const int st = pj[k].kern->aba_backward(d, w, &pj[k]);
        if (st != MBS_OK) return st;
    }
    return MBS_OK;
}

static void gen_forward_run(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int n)
{
    for (int k = 0; k < n; ++k) pj[k].kern->aba_forward(d, w, &pj[k]);
}

/* See planar.h. */
void mbs_planar_runs(mbs_planar *p, int ntree)
{
    for (int t = 0; t < ntree; ++t) {
        mbs_planar_joint *pj = &p->joints[t], *prev = t > 0 ? pj - 1 : NULL;
        const int cont = prev && pj->kern->chains && prev->kern == pj->kern &&
                         pj->parent == prev->child;
        pj->run_first = cont ? prev->run_first : t;
        pj->run_len = 0;
        p->joints[pj->run_first].run_len++;
    }
    for (int t = 0; t < ntree; ++t) p->joints[t].run_len = p->joints[p->joints[t].run_first].run_len;
}

/* ---------------------------------------------------------------- revolute, r = 0 */

/* What a rev0 step carries to the next joint of its run: the frame (th, P) and velocity of
   the body, or its acceleration. */
typedef struct pk_carry {
    double c, s, P0, P1, v0, v1, v2;
} pk_carry;

/* The child's pose in its parent: the rotation by s q about the joint point a (the child
   origin). */
PK_INLINE void rev0_angle(const mbs_planar_joint *pj, const double *q, mbs_planar_data *w)
{
    const double phi = pj->s * q[pj->qadr];
    double *restrict pose = w->pose + 4 * pj->child;
    pose[0] = cos(phi), pose[1] = sin(phi), pose[2] = pj->a[0], pose[3] = pj->a[1];
}

/* Frame (as mbs_planar_frame), v = X v_p + (s qd, 0, 0) and c = (0, wJ v_y, -wJ v_x) of the
   child from its pose and its parent's frame and velocity fp; the child's returned. */
PK_INLINE pk_carry rev0_down_step(const mbs_planar_joint *pj, const double *v,
                                  mbs_planar_data *w, pk_carry fp)
{
    const int b = pj->child;
    const double cq = w->pose[4 * b], sq = w->pose[4 * b + 1];
    pk_carry f;
    f.c = fp.c * cq - fp.s * sq, f.s = fp.s * cq + fp.c * sq;
    const double d0 = fp.c * pj->a[0] - fp.s * pj->a[1], d1 = fp.s * pj->a[0] + fp.c * pj->a[1];
    f.P0 = fp.P0 + d0, f.P1 = fp.P1 + d1;
    w->th[2 * b] = f.c, w->th[2 * b + 1] = f.s, w->dp[2 * b] = d0, w->dp[2 * b + 1] = d1;
    w->P[2 * b] = f.P0, w->P[2 * b + 1] = f.P1;
    const double *h = pj->body->h;
    w->hw[2 * b] = f.c * h[0] - f.s * h[1], w->hw[2 * b + 1] = f.s * h[0] + f.c * h[1];
    const double wJ = pj->s * v[pj->vadr], vp1 = fp.v1 - fp.v0 * d1, vp2 = fp.v2 + fp.v0 * d0;
    f.v0 = fp.v0 + wJ, f.v1 = vp1, f.v2 = vp2;
    double *restrict vb = w->vel + 3 * b, *restrict cb = w->c + 3 * b;
    vb[0] = f.v0, vb[1] = f.v1, vb[2] = f.v2;
    cb[0] = 0.0, cb[1] = wJ * vp2, cb[2] = -wJ * vp1;
    return f;
}

/* The frame and velocity of body b from memory. */
PK_INLINE pk_carry pk_carry_load(const mbs_planar_data *w, int b)
{
    const pk_carry f = {w->th[2 * b], w->th[2 * b + 1], w->P[2 * b], w->P[2 * b + 1],
                        w->vel[3 * b], w->vel[3 * b + 1], w->vel[3 * b + 2]};
    return f;
}

static void rev0_pose_motion(const mbs_planar_joint *pj, const double *q, const double *v,
                             mbs_planar_data *w)
{
    rev0_angle(pj, q, w);
    rev0_down_step(pj, v, w, pk_carry_load(w, pj->parent));
}

/* The first pass over a run: every angle's cos and sin first (a libm call in the recursion
   would spill what it carries), then the frame and velocity carried from joint to joint. */
static void rev0_down_run(const mbs_planar_joint *pj, int n, const double *q, const double *v,
                          mbs_planar_data *w)
{
    for (int k = 0; k < n; ++k) rev0_angle(&pj[k], q, w);
    pk_carry f = pk_carry_load(w, pj->parent);
    for (int k = 0; k < n; ++k) {
        f = rev0_down_step(&pj[k], v, w, f);
        mbs_planar_body_start(pj[k].body, w, pj[k].child);
    }
}

/* Pose, then the frame. */
static void rev0_pose(const mbs_planar_joint *pj, const double *q, mbs_planar_data *w)
{
    rev0_angle(pj, q, w);
    mbs_planar_frame(w, pj->body, pj->child, pj->parent);
}

/* S = (s, 0, 0). */
static void rev0_subspace(const mbs_planar_joint *pj, mbs_planar_data *w)
{
    double *S = w->S + 3 * pj->vadr;
    S[0] = pj->s, S[1] = S[2] = 0.0;
}

/* v = X v_p + (s qd, 0, 0), c = (0, wJ v_y, -wJ v_x). */
static void rev0_motion(const mbs_planar_joint *pj, const double *v, mbs_planar_data *w)
{
    const int b = pj->child;
    const double wJ = pj->s * v[pj->vadr];
    double vp[3];
    mbs_planar_shift_m(vp, w->dp + 2 * b, w->vel + 3 * pj->parent);
    double *restrict vb = w->vel + 3 * b, *restrict cb = w->c + 3 * b;
    vb[0] = vp[0] + wJ, vb[1] = vp[1], vb[2] = vp[2];
    cb[0] = 0.0, cb[1] = wJ * vp[2], cb[2] = -wJ * vp[1];
}

/* An articulated inertia (upper triangle) and bias force as named values (kept in
   registers along a run). */
typedef struct pk_art {
    double I0, I1, I2, I3, I4, I5, f0, f1, f2;
} pk_art;

/* The backward step on the child's IA and pA (x): D = IA_00, u = tau - s pA_0; with
   k = (IA_01, IA_02) / D the child hands up Ia = [0 0; 0 C] with C = IA_lin - k b^T and
   pa = (s (tau + Q), pA_lin + C c + s k u); *up = their shift to the parent (t = J d,
   y = C t): [t.y, y^T; y, C] with t.y = t.IA_lin t - (b.t)^2 / D (one product after the
   division) and the force at the parent's origin. Nothing handed up at the world. */
PK_INLINE int rev0_backward_step(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj,
                                 pk_art x, pk_art *up)
{
    const int b = pj->child, i = pj->vadr;
    const double D = x.I0, s = pj->s, tq = d->tau[i] + d->gen_force[i];
    const double u = tq - s * x.f0;
    if (!(D > PK_SINGULAR_EPS * pk_max(x.I0 + x.I3 + x.I5, 1e-300))) return mbs_planar_singular(d, b);
    const double Di = 1.0 / D, k0 = x.I1 * Di, k1 = x.I2 * Di;
    w->Dinv[3 * i] = Di, w->u[i] = u, w->U[3 * i + 1] = k0, w->U[3 * i + 2] = k1;
    if (pj->parent == 0) return MBS_OK;
    const double C00 = x.I3 - k0 * x.I1, C01 = x.I4 - k0 * x.I2, C11 = x.I5 - k1 * x.I2;
    const double *c = w->c + 3 * b, su = s * u;
    const double pa0 = s * tq, pa1 = x.f1 + (C00 * c[1] + C01 * c[2]) + k0 * su,
                 pa2 = x.f2 + (C01 * c[1] + C11 * c[2]) + k1 * su;
    const double *dp = w->dp + 2 * b, t0 = -dp[1], t1 = dp[0];
    const double bt = x.I1 * t0 + x.I2 * t1, bt2 = bt * bt;
    const double tIt = t0 * (x.I3 * t0 + x.I4 * t1) + t1 * (x.I4 * t0 + x.I5 * t1);
    up->I0 = tIt - bt2 * Di;
    up->I1 = C00 * t0 + C01 * t1, up->I2 = C01 * t0 + C11 * t1;
    up->I3 = C00, up->I4 = C01, up->I5 = C11;
    up->f0 = pa0 + dp[0] * pa2 - dp[1] * pa1, up->f1 = pa1, up->f2 = pa2;
    return MBS_OK;
}

/* IA, pA of body b from memory. */
PK_INLINE pk_art rev0_load(const mbs_planar_data *w, int b)
{
    const double *IA = w->IA + 6 * b, *f = w->f + 3 * b;
    const pk_art x = {IA[0], IA[1], IA[2], IA[3], IA[4], IA[5], f[0], f[1], f[2]};
    return x;
}

/* IA, pA of body b from memory plus what its child in the run hands up. */
PK_INLINE pk_art rev0_gather(const mbs_planar_data *w, int b, pk_art h)
{
    const double *IA = w->IA + 6 * b, *f = w->f + 3 * b;
    const pk_art x = {IA[0] + h.I0, IA[1] + h.I1, IA[2] + h.I2, IA[3] + h.I3, IA[4] + h.I4,
                      IA[5] + h.I5, f[0] + h.f0, f[1] + h.f1, f[2] + h.f2};
    return x;
}

/* IA_p += h, pA_p += its force in memory (the parent outside the run, unless the world). */
PK_INLINE void rev0_hand_up(mbs_planar_data *w, int par, pk_art h)
{
    if (par == 0) return;
    double *IA = w->IA + 6 * par, *f = w->f + 3 * par;
    IA[0] += h.I0, IA[1] += h.I1, IA[2] += h.I2, IA[3] += h.I3, IA[4] += h.I4, IA[5] += h.I5;
    f[0] += h.f0, f[1] += h.f1, f[2] += h.f2;
}

static int rev0_aba_backward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    pk_art up = {0, 0, 0, 0, 0, 0, 0, 0, 0}; /* written unless the parent is the world */
    const int st = rev0_backward_step(d, w, pj, rev0_load(w, pj->child), &up);
    if (st == MBS_OK) rev0_hand_up(w, pj->parent, up);
    return st;
}

/* The backward pass over a run, last joint first: what a child hands up stays in
   registers for its parent, the run's first joint hands up to memory. */
static int rev0_backward_run(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int n)
{
    pk_art up = {0, 0, 0, 0, 0, 0, 0, 0, 0}; /* written unless the parent is the world */
    int st = rev0_backward_step(d, w, &pj[n - 1], rev0_load(w, pj[n - 1].child), &up);
    for (int k = n - 2; k >= 0 && st == MBS_OK; --k)
        st = rev0_backward_step(d, w, &pj[k], rev0_gather(w, pj[k].child, up), &up);
    if (st == MBS_OK) rev0_hand_up(w, pj->parent, up);
    return st;
}

/* a = X a_p + c, qdd = D^-1 u - s (a_0 + k . a_lin), a += S qdd; a_p in, the child's out. */
PK_INLINE void rev0_forward_step(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj,
                                 double a[3])
{
    const int b = pj->child, i = pj->vadr;
    const double *restrict c = w->c + 3 * b, *restrict k = w->U + 3 * i, *dp = w->dp + 2 * b;
    const double a0 = a[0], a1 = a[1] - a[0] * dp[1] + c[1], a2 = a[2] + a[0] * dp[0] + c[2];
    const double qdd = w->Dinv[3 * i] * w->u[i] - pj->s * (a0 + k[1] * a1 + k[2] * a2);
    d->qacc[i] = qdd;
    a[0] = a0 + pj->s * qdd, a[1] = a1, a[2] = a2;
    double *restrict ab = w->acc + 3 * b;
    ab[0] = a[0], ab[1] = a1, ab[2] = a2;
}

static void rev0_aba_forward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const double *ap = w->acc + 3 * pj->parent;
    double a[3] = {ap[0], ap[1], ap[2]};
    rev0_forward_step(d, w, pj, a);
}

/* The forward pass over a run, the acceleration carried from joint to joint. */
static void rev0_forward_run(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int n)
{
    const double *ap = w->acc + 3 * pj->parent;
    double a[3] = {ap[0], ap[1], ap[2]};
    for (int k = 0; k < n; ++k) rev0_forward_step(d, w, &pj[k], a);
}

static const mbs_planar_kernels rev0_kernels = {
    "planar revolute at the origin", rev0_pose, rev0_subspace, rev0_motion, rev0_pose_motion,
    rev0_aba_backward, rev0_aba_forward, 1, rev0_down_run, rev0_backward_run, rev0_forward_run, 1};

/* ---------------------------------------------------------------- one dof */

/* Revolute (rot = 1): the rotation by s q about a, the child origin at R r from it;
   prismatic (rot = 0): the translation q u. Then the frame. */
PK_INLINE void one_pose(int rot, const mbs_planar_joint *pj, const double *q, mbs_planar_data *w)
{
    const int b = pj->child;
    const double x = q[pj->qadr];
    double *pose = w->pose + 4 * b;
    if (rot) {
        const double phi = pj->s * x, c = cos(phi), s = sin(phi);
        pose[0] = c, pose[1] = s;
        pose[2] = pj->a[0] + (c * pj->r[0] - s * pj->r[1]);
        pose[3] = pj->a[1] + (s * pj->r[0] + c * pj->r[1]);
    } else {
        pose[0] = 1.0, pose[1] = 0.0;
        pose[2] = pj->a[0] + pj->r[0] + x * pj->u[0], pose[3] = pj->a[1] + pj->r[1] + x * pj->u[1];
    }
    mbs_planar_frame(w, pj->body, b, pj->parent);
}

/* S: the rotation about the joint point or the translation along u. */
PK_INLINE void one_subspace(int rot, const mbs_planar_joint *pj, mbs_planar_data *w)
{
    double *S = w->S + 3 * pj->vadr;
    if (rot)
        pk_rotation_s(pj, w->th + 2 * pj->child, S);
    else
        pk_translation_s(w->th + 2 * pj->parent, pj->u, S);
}

/* S, v = X v_p + S qd, c = v x (S qd). */
PK_INLINE void one_motion(int rot, const mbs_planar_joint *pj, const double *v, mbs_planar_data *w)
{
    one_subspace(rot, pj, w);
    const double *S = w->S + 3 * pj->vadr, qd = v[pj->vadr];
    static const double cJ[3] = {0.0, 0.0, 0.0};
    const double vJ[3] = {S[0] * qd, S[1] * qd, S[2] * qd};
    pk_motion(w, pj, vJ, cJ);
}

/* U = IA S, D = S.U, u = tau - S.pA; the child hands up Ia = IA - U U^T / D and
   pa = pA + Ia c + U u / D. */
static int one_aba_backward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const int b = pj->child, par = pj->parent, i = pj->vadr;
    const double *restrict IA = w->IA + 6 * b, *restrict pA = w->f + 3 * b, *restrict S = w->S + 3 * i;
    double *restrict U = w->U + 3 * i;
    U[0] = IA[0] * S[0] + IA[1] * S[1] + IA[2] * S[2];
    U[1] = IA[1] * S[0] + IA[3] * S[1] + IA[4] * S[2];
    U[2] = IA[2] * S[0] + IA[4] * S[1] + IA[5] * S[2];
    const double D = S[0] * U[0] + S[1] * U[1] + S[2] * U[2];
    const double u = d->tau[i] + d->gen_force[i] - (S[0] * pA[0] + S[1] * pA[1] + S[2] * pA[2]);
    w->u[i] = u;
    if (pk_singular(D, IA)) return mbs_planar_singular(d, b);
    const double Di = 1.0 / D;
    w->Dinv[3 * i] = Di;
    if (par == 0) return MBS_OK;
    const double k0 = U[0] * Di, k1 = U[1] * Di, k2 = U[2] * Di;
    const double Ia[6] = {IA[0] - k0 * U[0], IA[1] - k0 * U[1], IA[2] - k0 * U[2],
                          IA[3] - k1 * U[1], IA[4] - k1 * U[2], IA[5] - k2 * U[2]};
    const double *c = w->c + 3 * b, du = Di * u;
    const double pa[3] = {pA[0] + Ia[0] * c[0] + Ia[1] * c[1] + Ia[2] * c[2] + U[0] * du,
                          pA[1] + Ia[1] * c[0] + Ia[3] * c[1] + Ia[4] * c[2] + U[1] * du,
                          pA[2] + Ia[2] * c[0] + Ia[4] * c[1] + Ia[5] * c[2] + U[2] * du};
    pk_inertia_add(w->IA + 6 * par, w->dp + 2 * b, Ia);
    mbs_planar_shift_f_add(w->f + 3 * par, w->dp + 2 * b, pa);
    return MBS_OK;
}

/* a = X a_p + c, qdd = D^-1 (u - U.a), a += S qdd. */
static void one_aba_forward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const int b = pj->child, i = pj->vadr;
    const double *restrict U = w->U + 3 * i, *restrict S = w->S + 3 * i, *restrict c = w->c + 3 * b;
    double a[3];
    mbs_planar_shift_m(a, w->dp + 2 * b, w->acc + 3 * pj->parent);
    a[0] += c[0], a[1] += c[1], a[2] += c[2];
    const double qdd = w->Dinv[3 * i] * (w->u[i] - (U[0] * a[0] + U[1] * a[1] + U[2] * a[2]));
    d->qacc[i] = qdd;
    double *restrict ab = w->acc + 3 * b;
    ab[0] = a[0] + S[0] * qdd, ab[1] = a[1] + S[1] * qdd, ab[2] = a[2] + S[2] * qdd;
}

/* The two instances: rot = 1 (revolute), rot = 0 (prismatic). */
#define PK_ONE(NAME, ROT)                                                                        \
    static void NAME##_pose(const mbs_planar_joint *pj, const double *q, mbs_planar_data *w)     \
    {                                                                                            \
        one_pose(ROT, pj, q, w);                                                                 \
    }                                                                                            \
    static void NAME##_subspace(const mbs_planar_joint *pj, mbs_planar_data *w)                  \
    {                                                                                            \
        one_subspace(ROT, pj, w);                                                                \
    }                                                                                            \
    static void NAME##_motion(const mbs_planar_joint *pj, const double *v, mbs_planar_data *w)   \
    {                                                                                            \
        one_motion(ROT, pj, v, w);                                                               \
    }                                                                                            \
    static void NAME##_pose_motion(const mbs_planar_joint *pj, const double *q, const double *v, \
                                   mbs_planar_data *w)                                           \
    {                                                                                            \
        one_pose(ROT, pj, q, w);                                                                 \
        one_motion(ROT, pj, v, w);                                                               \
    }                                                                                            \
    static const mbs_planar_kernels NAME##_kernels = {                                           \
        "planar " #NAME, NAME##_pose, NAME##_subspace, NAME##_motion, NAME##_pose_motion,        \
        one_aba_backward, one_aba_forward, 0, gen_down_run, gen_backward_run, gen_forward_run, 0};
PK_ONE(revolute, 1)
PK_ONE(prismatic, 0)

/* ---------------------------------------------------------------- planar and fixed joints */

/* The child's pose: rotation s q2 (planar) about the joint point, translation q0 u + q1 w;
   then the frame. */
static void multi_pose(const mbs_planar_joint *pj, const double *q, mbs_planar_data *w)
{
    const int b = pj->child;
    double c = 1.0, s = 0.0, x = 0.0, y = 0.0, *pose = w->pose + 4 * b;
    if (pj->nv == 3) {
        const double phi = pj->s * q[pj->qadr + 2];
        c = cos(phi), s = sin(phi), x = q[pj->qadr], y = q[pj->qadr + 1];
    }
    pose[0] = c, pose[1] = s;
    pose[2] = pj->a[0] + (c * pj->r[0] - s * pj->r[1]);
    pose[3] = pj->a[1] + (s * pj->r[0] + c * pj->r[1]);
    if (pj->nv == 3) pose[2] += x * pj->u[0] + y * pj->w[0], pose[3] += x * pj->u[1] + y * pj->w[1];
    mbs_planar_frame(w, pj->body, b, pj->parent);
}

/* S of a planar joint: the translations along u, w, then the rotation; nothing for a fixed
   joint. */
static void multi_subspace(const mbs_planar_joint *pj, mbs_planar_data *w)
{
    if (pj->nv == 0) return;
    double *S = w->S + 3 * pj->vadr;
    const double *th_p = w->th + 2 * pj->parent;
    pk_translation_s(th_p, pj->u, S);
    pk_translation_s(th_p, pj->w, S + 3);
    pk_rotation_s(pj, w->th + 2 * pj->child, S + 6);
}

/* S, v = X v_p + S qd, c = v x vJ + cJ with cJ = -wz J lin of the translations' velocity. */
static void multi_motion(const mbs_planar_joint *pj, const double *v, mbs_planar_data *w)
{
    double vJ[3] = {0.0, 0.0, 0.0}, cJ[3] = {0.0, 0.0, 0.0};
    if (pj->nv == 3) {
        const double *S = w->S + 3 * pj->vadr, *qd = v + pj->vadr;
        multi_subspace(pj, w);
        const double lx = qd[0] * S[1] + qd[1] * S[4], ly = qd[0] * S[2] + qd[1] * S[5];
        const double wz = pj->s * qd[2];
        cJ[1] = wz * ly, cJ[2] = -wz * lx;
        for (int k = 0; k < 3; ++k)
            for (int e = 0; e < 3; ++e) vJ[e] += S[3 * k + e] * qd[k];
    }
    pk_motion(w, pj, vJ, cJ);
}

/* Inverse of the SPD n x n D (n <= 3) into Di; 0 when a pivot is not above tol. */
static int small_inverse(const double *D, int n, double tol, double *Di)
{
    double a[9], inv[9];
    for (int i = 0; i < n * n; ++i) a[i] = D[i];
    for (int i = 0; i < n; ++i) /* Gauss-Jordan without pivoting (SPD) */
        for (int j = 0; j < n; ++j) inv[n * i + j] = i == j;
    for (int k = 0; k < n; ++k) {
        const double piv = a[n * k + k];
        if (!(piv > tol)) return 0;
        for (int j = 0; j < n; ++j) a[n * k + j] /= piv, inv[n * k + j] /= piv;
        for (int i = 0; i < n; ++i) {
            if (i == k) continue;
            const double f = a[n * i + k];
            for (int j = 0; j < n; ++j) a[n * i + j] -= f * a[n * k + j], inv[n * i + j] -= f * inv[n * k + j];
        }
    }
    for (int i = 0; i < n * n; ++i) Di[i] = inv[i];
    return 1;
}

/* Element (i, j) of a symmetric 3 x 3 stored as its upper triangle. */
static inline double sym_at(const double *A, int i, int j)
{
    static const int idx[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
    return A[idx[3 * i + j]];
}

/* The generic backward step for nv = 0..3 (RBDA table 7.1). */
static int multi_aba_backward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const int b = pj->child, par = pj->parent, nv = pj->nv, i0 = pj->vadr;
    const double *IA = w->IA + 6 * b, *pA = w->f + 3 * b, *S = w->S + 3 * i0;
    double *U = w->U + 3 * i0, D[9], Di[9], Dinv_u[3] = {0, 0, 0};
    for (int k = 0; k < nv; ++k) {
        for (int e = 0; e < 3; ++e)
            U[3 * k + e] = sym_at(IA, e, 0) * S[3 * k] + sym_at(IA, e, 1) * S[3 * k + 1] +
                           sym_at(IA, e, 2) * S[3 * k + 2];
        w->u[i0 + k] = d->tau[i0 + k] + d->gen_force[i0 + k] -
                       (S[3 * k] * pA[0] + S[3 * k + 1] * pA[1] + S[3 * k + 2] * pA[2]);
        for (int l = 0; l < nv; ++l)
            D[nv * k + l] = S[3 * l] * U[3 * k] + S[3 * l + 1] * U[3 * k + 1] + S[3 * l + 2] * U[3 * k + 2];
    }
    const double tol = PK_SINGULAR_EPS * pk_max(IA[0] + IA[3] + IA[5], 1e-300);
    if (nv > 0 && !small_inverse(D, nv, tol, Di)) return mbs_planar_singular(d, b);
    for (int k = 0; k < nv; ++k)
        for (int l = 0; l < nv; ++l) w->Dinv[3 * (i0 + k) + l] = Di[nv * k + l];
    if (par == 0) return MBS_OK;
    for (int k = 0; k < nv; ++k)
        for (int l = 0; l < nv; ++l) Dinv_u[k] += Di[nv * k + l] * w->u[i0 + l];
    static const int ur[6] = {0, 0, 0, 1, 1, 2}, uc[6] = {0, 1, 2, 1, 2, 2};
    double Ia[6], pa[3];
    for (int e = 0; e < 6; ++e) {
        Ia[e] = IA[e];
        for (int k = 0; k < nv; ++k)
            for (int l = 0; l < nv; ++l) Ia[e] -= U[3 * k + ur[e]] * Di[nv * k + l] * U[3 * l + uc[e]];
    }
    const double *c = w->c + 3 * b;
    for (int e = 0; e < 3; ++e) {
        pa[e] = pA[e] + sym_at(Ia, e, 0) * c[0] + sym_at(Ia, e, 1) * c[1] + sym_at(Ia, e, 2) * c[2];
        for (int k = 0; k < nv; ++k) pa[e] += U[3 * k + e] * Dinv_u[k];
    }
    pk_inertia_add(w->IA + 6 * par, w->dp + 2 * b, Ia);
    mbs_planar_shift_f_add(w->f + 3 * par, w->dp + 2 * b, pa);
    return MBS_OK;
}

/* a = X a_p + c, qdd = D^-1 (u - U^T a), a += S qdd. */
static void multi_aba_forward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const int b = pj->child, nv = pj->nv, i0 = pj->vadr;
    double a[3], x[3];
    mbs_planar_shift_m(a, w->dp + 2 * b, w->acc + 3 * pj->parent);
    for (int e = 0; e < 3; ++e) a[e] += w->c[3 * b + e];
    const double *U = w->U + 3 * i0, *S = w->S + 3 * i0;
    for (int k = 0; k < nv; ++k)
        x[k] = w->u[i0 + k] - (U[3 * k] * a[0] + U[3 * k + 1] * a[1] + U[3 * k + 2] * a[2]);
    for (int k = 0; k < nv; ++k) {
        double qdd = 0.0;
        for (int l = 0; l < nv; ++l) qdd += w->Dinv[3 * (i0 + k) + l] * x[l];
        d->qacc[i0 + k] = qdd;
        for (int e = 0; e < 3; ++e) a[e] += S[3 * k + e] * qdd;
    }
    for (int e = 0; e < 3; ++e) w->acc[3 * b + e] = a[e];
}

static void multi_pose_motion(const mbs_planar_joint *pj, const double *q, const double *v,
                              mbs_planar_data *w)
{
    multi_pose(pj, q, w);
    multi_motion(pj, v, w);
}

static const mbs_planar_kernels multi_kernels = {
    "planar multi-dof or fixed", multi_pose, multi_subspace, multi_motion, multi_pose_motion,
    multi_aba_backward, multi_aba_forward, 0, gen_down_run, gen_backward_run, gen_forward_run, 0};

/* ---------------------------------------------------------------- picking */

/* See planar.h. */
const mbs_planar_kernels *mbs_planar_kernels_generic(const mbs_planar_joint *pj)
{
    if (pj->kind == MBS_PL_REVOLUTE) return &revolute_kernels;
    if (pj->kind == MBS_PL_PRISMATIC) return &prismatic_kernels;
    return &multi_kernels;
}

/* See planar.h: a revolute joint with its child origin on the axis takes rev0. */
const mbs_planar_kernels *mbs_planar_kernels_pick(const mbs_planar_joint *pj)
{
    if (pj->kind == MBS_PL_REVOLUTE && pj->r[0] == 0.0 && pj->r[1] == 0.0) return &rev0_kernels;
    return mbs_planar_kernels_generic(pj);
}
