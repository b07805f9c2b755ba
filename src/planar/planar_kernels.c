/* Kernels of the planar passes (planar.h): one step of one tree joint, picked at compile by
 * the joint's kind and geometry, so that the passes (planar_dyn.c) never switch on a type.
 * Motion vectors m = (w, vx, vy), force vectors f = (n, fx, fy), articulated inertias as the
 * upper triangle (00, 01, 02, 11, 12, 22) of [I, -hy, hx; -hy, m, 0; hx, 0, m] plus what the
 * children hand up (Featherstone, "Rigid Body Dynamics Algorithms" 2008, table 7.1).
 *
 * Three families:
 *  - a revolute joint whose child origin lies on its axis (r = 0, the usual joint frame):
 *    S = (s, 0, 0), so D = IA_00, the articulated inertia handed up has a zero first row
 *    and column (its 2 x 2 rest turns with the joint), the force handed up has the joint
 *    torque as moment, and the pose's translation is the constant a;
 *  - any revolute or prismatic joint: S constant in the child frame, U = IA S, the rank-one
 *    update written out; the prismatic pose has no rotation, so its transforms are shifts;
 *  - planar (3 dofs) and fixed joints: a small dense D. */
#include "planar/planar.h"

#include <math.h>

/* GCC: -O3 unrolls and inlines the passes' 3-vector loops (as for src/core/aba.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
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

/* o = X m for the motion transform parent -> child of pose (cos, sin, px, py):
   w' = w, v' = R^T (v + w J p), J p = (-py, px). */
PK_INLINE void pk_xm(double *restrict o, const double *restrict pose, const double *restrict m)
{
    const double c = pose[0], s = pose[1];
    const double t0 = m[1] - m[0] * pose[3], t1 = m[2] + m[0] * pose[2];
    o[0] = m[0], o[1] = c * t0 + s * t1, o[2] = -s * t0 + c * t1;
}

/* f_p += X^T f: the force f of the child handed to its parent, f_p = R f, n_p = n + p x f_p. */
PK_INLINE void pk_xf_add(double *restrict fp, const double *restrict pose, const double f[3])
{
    const double c = pose[0], s = pose[1];
    const double F0 = c * f[1] - s * f[2], F1 = s * f[1] + c * f[2];
    fp[0] += f[0] + pose[2] * F1 - pose[3] * F0;
    fp[1] += F0, fp[2] += F1;
}

/* IA_p += X^T Ia X for the symmetric Ia = [a b^T; b C] (upper triangle) and the motion
   transform X = [1 0; t Q] (Q = R^T, t = R^T J p) of the pose: with y = b + C t,
   X^T Ia X = [a + b.t + t.y, (R y)^T; R y, R C R^T]. rot = 0: R = I (c = 1, s = 0). */
PK_INLINE void pk_transform_add(int rot, double *restrict IAp, const double *restrict pose,
                                const double *restrict Ia)
{
    const double c = pose[0], s = pose[1], px = pose[2], py = pose[3];
    const double t0 = rot ? -c * py + s * px : -py, t1 = rot ? s * py + c * px : px;
    const double b0 = Ia[1], b1 = Ia[2], C00 = Ia[3], C01 = Ia[4], C11 = Ia[5];
    const double y0 = b0 + C00 * t0 + C01 * t1, y1 = b1 + C01 * t0 + C11 * t1;
    IAp[0] += Ia[0] + b0 * t0 + b1 * t1 + t0 * y0 + t1 * y1;
    if (!rot) {
        IAp[1] += y0, IAp[2] += y1;
        IAp[3] += C00, IAp[4] += C01, IAp[5] += C11;
        return;
    }
    IAp[1] += c * y0 - s * y1, IAp[2] += s * y0 + c * y1;
    const double k00 = c * C00 - s * C01, k01 = c * C01 - s * C11; /* rows of R C */
    const double k10 = s * C00 + c * C01, k11 = s * C01 + c * C11;
    IAp[3] += k00 * c - k01 * s, IAp[4] += k00 * s + k01 * c, IAp[5] += k10 * s + k11 * c;
}

/* World angle and origin are not the kernels' business; velocity of the child from its
   parent's and the joint's vJ, and c = v x vJ + cJ = (0, w J vJ_lin - wJ J v_lin) + cJ. */
PK_INLINE void pk_motion_add(mbs_planar_data *w, const mbs_planar_joint *pj, const double vJ[3],
                             const double cJ[3])
{
    const int b = pj->child;
    double vp[3];
    pk_xm(vp, w->pose + 4 * b, w->vel + 3 * pj->parent);
    double *restrict vb = w->vel + 3 * b, *restrict cb = w->c + 3 * b;
    vb[0] = vp[0] + vJ[0], vb[1] = vp[1] + vJ[1], vb[2] = vp[2] + vJ[2];
    cb[0] = cJ[0];
    cb[1] = cJ[1] - vb[0] * vJ[2] + vJ[0] * vb[2];
    cb[2] = cJ[2] + vb[0] * vJ[1] - vJ[0] * vb[1];
}

/* ---------------------------------------------------------------- revolute, r = 0 */

/* Pose: the rotation by s q about the joint point a (the child origin). */
static void rev0_pose(const mbs_planar_joint *pj, const double *q, double *pose)
{
    const double phi = pj->s * q[pj->qadr];
    pose[0] = cos(phi), pose[1] = sin(phi), pose[2] = pj->a[0], pose[3] = pj->a[1];
}

/* S = (s, 0, 0). */
static void rev0_subspace(const mbs_planar_joint *pj, const double *pose, double *S)
{
    (void)pose;
    S[0] = pj->s, S[1] = S[2] = 0.0;
}

/* v = X v_p + (s qd, 0, 0), c = (0, wJ v_y, -wJ v_x). */
static void rev0_motion(const mbs_planar_joint *pj, const double *v, mbs_planar_data *w)
{
    const int b = pj->child;
    const double wJ = pj->s * v[pj->vadr];
    double vp[3];
    pk_xm(vp, w->pose + 4 * b, w->vel + 3 * pj->parent);
    double *restrict vb = w->vel + 3 * b, *restrict cb = w->c + 3 * b;
    vb[0] = vp[0] + wJ, vb[1] = vp[1], vb[2] = vp[2];
    cb[0] = 0.0, cb[1] = wJ * vp[2], cb[2] = -wJ * vp[1];
}

static void rev0_pose_motion(const mbs_planar_joint *pj, const double *q, const double *v,
                             mbs_planar_data *w)
{
    rev0_pose(pj, q, w->pose + 4 * pj->child);
    rev0_motion(pj, v, w);
}

/* D = IA_00, u = tau - s pA_0; with k = (IA_01, IA_02) / D the child hands up
   Ia = [0 0; 0 C - k b^T] and pa = (s (tau + Q), pA_lin + Ia c + s k u). */
static int rev0_aba_backward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const int b = pj->child, par = pj->parent, i = pj->vadr;
    const double *restrict IA = w->IA + 6 * b, *restrict pA = w->f + 3 * b;
    const double D = IA[0], s = pj->s, tq = d->tau[i] + d->gen_force[i];
    const double u = tq - s * pA[0];
    if (!(D > PK_SINGULAR_EPS * fmax(IA[0] + IA[3] + IA[5], 1e-300))) return mbs_planar_singular(d, b);
    const double Di = 1.0 / D, k0 = IA[1] * Di, k1 = IA[2] * Di;
    w->Dinv[3 * i] = Di, w->u[i] = u, w->U[3 * i + 1] = k0, w->U[3 * i + 2] = k1;
    if (par == 0) return MBS_OK;
    const double Ia[6] = {0.0, 0.0, 0.0, IA[3] - k0 * IA[1], IA[4] - k0 * IA[2], IA[5] - k1 * IA[2]};
    const double *c = w->c + 3 * b, su = s * u;
    const double pa[3] = {s * tq, pA[1] + (Ia[3] * c[1] + Ia[4] * c[2]) + k0 * su,
                          pA[2] + (Ia[4] * c[1] + Ia[5] * c[2]) + k1 * su};
    const double *pose = w->pose + 4 * b;
    pk_transform_add(1, w->IA + 6 * par, pose, Ia);
    pk_xf_add(w->f + 3 * par, pose, pa);
    return MBS_OK;
}

/* a = X a_p + c, qdd = D^-1 u - s (a_0 + k . a_lin), a += S qdd. */
static void rev0_aba_forward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const int b = pj->child, i = pj->vadr;
    const double *restrict c = w->c + 3 * b, *restrict k = w->U + 3 * i;
    double a[3];
    pk_xm(a, w->pose + 4 * b, w->acc + 3 * pj->parent);
    a[1] += c[1], a[2] += c[2];
    const double qdd = w->Dinv[3 * i] * w->u[i] - pj->s * (a[0] + k[1] * a[1] + k[2] * a[2]);
    d->qacc[i] = qdd;
    double *restrict ab = w->acc + 3 * b;
    ab[0] = a[0] + pj->s * qdd, ab[1] = a[1], ab[2] = a[2];
}

static const mbs_planar_kernels rev0_kernels = {
    "planar revolute at the origin", rev0_pose, rev0_subspace, rev0_motion, rev0_pose_motion,
    rev0_aba_backward, rev0_aba_forward, 1};

/* ---------------------------------------------------------------- one dof, S constant */

/* Revolute (rot = 1): the rotation by s q about a, the child origin at R r from it;
   prismatic (rot = 0): the translation q u. */
PK_INLINE void one_pose(int rot, const mbs_planar_joint *pj, const double *q, double *pose)
{
    const double x = q[pj->qadr];
    if (rot) {
        const double phi = pj->s * x, c = cos(phi), s = sin(phi);
        pose[0] = c, pose[1] = s;
        pose[2] = pj->a[0] + (c * pj->r[0] - s * pj->r[1]);
        pose[3] = pj->a[1] + (s * pj->r[0] + c * pj->r[1]);
    } else {
        pose[0] = 1.0, pose[1] = 0.0;
        pose[2] = pj->a[0] + pj->r[0] + x * pj->u[0], pose[3] = pj->a[1] + pj->r[1] + x * pj->u[1];
    }
}

/* S = s (1, -r_y, r_x) (revolute) or (0, u) (prismatic). */
PK_INLINE void one_subspace(int rot, const mbs_planar_joint *pj, double *S)
{
    if (rot)
        S[0] = pj->s, S[1] = -pj->s * pj->r[1], S[2] = pj->s * pj->r[0];
    else
        S[0] = 0.0, S[1] = pj->u[0], S[2] = pj->u[1];
}

/* v = X v_p + S qd, c = v x (S qd). */
PK_INLINE void one_motion(const mbs_planar_joint *pj, const double *v, mbs_planar_data *w)
{
    const double *S = w->S + 3 * pj->vadr, qd = v[pj->vadr];
    static const double cJ[3] = {0.0, 0.0, 0.0};
    const double vJ[3] = {S[0] * qd, S[1] * qd, S[2] * qd};
    pk_motion_add(w, pj, vJ, cJ);
}

/* U = IA S, D = S.U, u = tau - S.pA; the child hands up Ia = IA - U U^T / D and
   pa = pA + Ia c + U u / D. */
PK_INLINE int one_aba_backward(int rot, mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
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
    if (!(D > PK_SINGULAR_EPS * fmax(IA[0] + IA[3] + IA[5], 1e-300))) return mbs_planar_singular(d, b);
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
    const double *pose = w->pose + 4 * b;
    pk_transform_add(rot, w->IA + 6 * par, pose, Ia);
    pk_xf_add(w->f + 3 * par, pose, pa);
    return MBS_OK;
}

/* a = X a_p + c, qdd = D^-1 (u - U.a), a += S qdd. */
static void one_aba_forward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const int b = pj->child, i = pj->vadr;
    const double *restrict U = w->U + 3 * i, *restrict S = w->S + 3 * i, *restrict c = w->c + 3 * b;
    double a[3];
    pk_xm(a, w->pose + 4 * b, w->acc + 3 * pj->parent);
    a[0] += c[0], a[1] += c[1], a[2] += c[2];
    const double qdd = w->Dinv[3 * i] * (w->u[i] - (U[0] * a[0] + U[1] * a[1] + U[2] * a[2]));
    d->qacc[i] = qdd;
    double *restrict ab = w->acc + 3 * b;
    ab[0] = a[0] + S[0] * qdd, ab[1] = a[1] + S[1] * qdd, ab[2] = a[2] + S[2] * qdd;
}

/* The two instances: rot = 1 (revolute), rot = 0 (prismatic). */
#define PK_ONE(NAME, ROT)                                                                        \
    static void NAME##_pose(const mbs_planar_joint *pj, const double *q, double *pose)           \
    {                                                                                            \
        one_pose(ROT, pj, q, pose);                                                              \
    }                                                                                            \
    static void NAME##_subspace(const mbs_planar_joint *pj, const double *pose, double *S)       \
    {                                                                                            \
        (void)pose;                                                                              \
        one_subspace(ROT, pj, S);                                                                \
    }                                                                                            \
    static void NAME##_motion(const mbs_planar_joint *pj, const double *v, mbs_planar_data *w)   \
    {                                                                                            \
        one_motion(pj, v, w);                                                                    \
    }                                                                                            \
    static void NAME##_pose_motion(const mbs_planar_joint *pj, const double *q, const double *v, \
                                   mbs_planar_data *w)                                           \
    {                                                                                            \
        one_pose(ROT, pj, q, w->pose + 4 * pj->child);                                           \
        one_motion(pj, v, w);                                                                    \
    }                                                                                            \
    static int NAME##_aba_backward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)  \
    {                                                                                            \
        return one_aba_backward(ROT, d, w, pj);                                                  \
    }                                                                                            \
    static const mbs_planar_kernels NAME##_kernels = {                                           \
        "planar " #NAME, NAME##_pose, NAME##_subspace, NAME##_motion, NAME##_pose_motion,        \
        NAME##_aba_backward, one_aba_forward, 1};
PK_ONE(revolute, 1)
PK_ONE(prismatic, 0)

/* ---------------------------------------------------------------- planar and fixed joints */

/* The child's pose: rotation s q2 (planar) about the joint point, translation q0 u + q1 w. */
static void multi_pose(const mbs_planar_joint *pj, const double *q, double *pose)
{
    double c = 1.0, s = 0.0, x = 0.0, y = 0.0;
    if (pj->nv == 3) {
        const double phi = pj->s * q[pj->qadr + 2];
        c = cos(phi), s = sin(phi), x = q[pj->qadr], y = q[pj->qadr + 1];
    }
    pose[0] = c, pose[1] = s;
    pose[2] = pj->a[0] + (c * pj->r[0] - s * pj->r[1]);
    pose[3] = pj->a[1] + (s * pj->r[0] + c * pj->r[1]);
    if (pj->nv == 3) pose[2] += x * pj->u[0] + y * pj->w[0], pose[3] += x * pj->u[1] + y * pj->w[1];
}

/* S of a planar joint: the translations along u, w turned into the child frame, then the
   rotation (s, -s r_y, s r_x); nothing for a fixed joint. */
static void multi_subspace(const mbs_planar_joint *pj, const double *pose, double *S)
{
    if (pj->nv == 0) return;
    const double c = pose[0], s = pose[1];
    S[0] = 0.0, S[1] = c * pj->u[0] + s * pj->u[1], S[2] = -s * pj->u[0] + c * pj->u[1];
    S[3] = 0.0, S[4] = c * pj->w[0] + s * pj->w[1], S[5] = -s * pj->w[0] + c * pj->w[1];
    S[6] = pj->s, S[7] = -pj->s * pj->r[1], S[8] = pj->s * pj->r[0];
}

/* S, v = X v_p + S qd, c = v x vJ + cJ with cJ = -wz J (R^T lin) of the translations. */
static void multi_motion(const mbs_planar_joint *pj, const double *v, mbs_planar_data *w)
{
    double vJ[3] = {0.0, 0.0, 0.0}, cJ[3] = {0.0, 0.0, 0.0};
    if (pj->nv == 3) {
        double *S = w->S + 3 * pj->vadr;
        const double *qd = v + pj->vadr;
        multi_subspace(pj, w->pose + 4 * pj->child, S);
        const double lx = qd[0] * S[1] + qd[1] * S[4], ly = qd[0] * S[2] + qd[1] * S[5];
        const double wz = pj->s * qd[2];
        cJ[1] = wz * ly, cJ[2] = -wz * lx;
        for (int k = 0; k < 3; ++k)
            for (int e = 0; e < 3; ++e) vJ[e] += S[3 * k + e] * qd[k];
    }
    pk_motion_add(w, pj, vJ, cJ);
}

static void multi_pose_motion(const mbs_planar_joint *pj, const double *q, const double *v,
                              mbs_planar_data *w)
{
    multi_pose(pj, q, w->pose + 4 * pj->child);
    multi_motion(pj, v, w);
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
    const double tol = PK_SINGULAR_EPS * fmax(IA[0] + IA[3] + IA[5], 1e-300);
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
    const double *pose = w->pose + 4 * b;
    pk_transform_add(1, w->IA + 6 * par, pose, Ia);
    pk_xf_add(w->f + 3 * par, pose, pa);
    return MBS_OK;
}

/* a = X a_p + c, qdd = D^-1 (u - U^T a), a += S qdd. */
static void multi_aba_forward(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj)
{
    const int b = pj->child, nv = pj->nv, i0 = pj->vadr;
    double a[3], x[3];
    pk_xm(a, w->pose + 4 * b, w->acc + 3 * pj->parent);
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

static const mbs_planar_kernels multi_kernels = {
    "planar multi-dof or fixed", multi_pose, multi_subspace, multi_motion, multi_pose_motion,
    multi_aba_backward, multi_aba_forward, 0};

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
