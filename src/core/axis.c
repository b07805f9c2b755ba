/* Kernels (kernels.h) of the one-dof joints that turn about or slide along a coordinate axis
 * e_k of their joint frame, when the parent joint frame is a pure translation p of the
 * parent body frame and the child joint frame is the child body frame: the usual robot
 * joint. Then X_up = (R, p) with R the rotation about e_k (revolute) or the identity
 * (prismatic), and S = [e_k; 0] or [0; e_k] in body coordinates, constant.
 *
 * Every step is the generic step with the products by the exact zeros and ones of R, S and
 * the velocity-product acceleration c = v x (S qd) left out; the remaining terms are summed
 * in the generic order, so the results are the generic ones bit for bit (up to the sign of
 * zero). The rotation about e_k by (c, s): with (i, j) = (k+1, k+2) mod 3,
 * R_kk = 1, R_ii = R_jj = c, R_ji = s, R_ij = -s, the other entries 0 (revolute.c builds
 * the same matrix). One template per step, instantiated for revolute / prismatic and
 * k = 0, 1, 2: six kernel tables. */
#include "core/kernels.h"
/* -O3 as for the generic passes (aba.c, kinematics.c, spatial.c); the basic-block vectorizer
   stays off as in kinematics.c (store-forwarding stalls on the chain's critical path). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-tree-slp-vectorize")
#endif

/* GCC: the RNEA steps without automatic vectorization (their 6-vector loops, vectorized,
   read back what the parent's step stored one double at a time; measured with bench/ab.sh:
   RNEA 8-18 % faster without it, ABA and CRBA unchanged or slower). */
#if defined(__GNUC__) && !defined(__clang__)
#define AX_NOVEC __attribute__((optimize("no-tree-vectorize")))
#else
#define AX_NOVEC
#endif

/* The templates below are folded by the compiler for constant kind and k: force inlining. */
#if defined(__GNUC__)
#define AX_INLINE static inline __attribute__((always_inline))
#else
#define AX_INLINE static inline
#endif

/* Rotation about e_k by the angle of cosine c and sine s; ms = -s. */
typedef struct ax_rot { double c, s, ms; } ax_rot;
enum { AX_ZERO, AX_ONE, AX_C, AX_S, AX_MS };

/* Kind of entry R_rm of the rotation about e_k. */
AX_INLINE int ax_kind(int k, int r, int m)
{
    if (r == k || m == k) return r == m ? AX_ONE : AX_ZERO;
    if (r == m) return AX_C;
    return r == (k + 1) % 3 ? AX_MS : AX_S;
}

/* R_rm x for an entry that is not zero. */
AX_INLINE double ax_term(int kind, ax_rot R, double x)
{
    return kind == AX_ONE ? x : kind == AX_C ? R.c * x : kind == AX_S ? R.s * x : R.ms * x;
}

/* Sum over m = 0, 1, 2 of R_rm x_m (tr = 0: (R x)_r) or R_mr x_m (tr = 1: (R^T x)_r), left
   to right, the zero entries left out. rev = 0: R is the identity. */
AX_INLINE double ax_dot(int rev, int k, ax_rot R, int tr, int r, const double x[3])
{
    double acc = 0.0;
    int any = 0;
    MBS_UNROLL(3)
    for (int m = 0; m < 3; ++m) {
        const int kind = rev ? (tr ? ax_kind(k, m, r) : ax_kind(k, r, m)) : (r == m ? AX_ONE
                                                                                : AX_ZERO);
        if (kind == AX_ZERO) continue;
        const double t = ax_term(kind, R, x[m]);
        acc = any ? acc + t : t;
        any = 1;
    }
    return acc;
}

/* o = R x (tr = 0) or R^T x (tr = 1); o may not alias x. */
AX_INLINE void ax_mulv(int rev, int k, ax_rot R, int tr, double *restrict o,
                       const double *restrict x)
{
    MBS_UNROLL(3)
    for (int r = 0; r < 3; ++r) o[r] = ax_dot(rev, k, R, tr, r, x);
}

/* The same as ax_dot on two lanes (the block rotations of the inertia transform). */
AX_INLINE mbs_d2 ax_dot2(int k, ax_rot R, int tr, int r, const mbs_d2 x[3])
{
    mbs_d2 acc = d2_splat(0.0);
    int any = 0;
    MBS_UNROLL(3)
    for (int m = 0; m < 3; ++m) {
        const int kind = tr ? ax_kind(k, m, r) : ax_kind(k, r, m);
        if (kind == AX_ZERO) continue;
        const mbs_d2 t = kind == AX_ONE ? x[m]
                         : d2_mul(x[m], d2_splat(kind == AX_C ? R.c : kind == AX_S ? R.s : R.ms));
        acc = any ? d2_add(acc, t) : t;
        any = 1;
    }
    return acc;
}

/* o = R S R^T for two 3x3 S at once (spatial.c rotate2): T = S R^T, then the upper triangle
   (O00, O01, O02, O11, O12, O22) of R T. */
AX_INLINE void ax_rotate2(int k, ax_rot R, mbs_d2 o[6], const mbs_d2 s[9])
{
    mbs_d2 t[9], col[3];
    MBS_UNROLL(3)
    for (int i = 0; i < 3; ++i)
        MBS_UNROLL(3)
        for (int j = 0; j < 3; ++j) t[3 * i + j] = ax_dot2(k, R, 0, j, s + 3 * i);
    static const int ur[6] = {0, 0, 0, 1, 1, 2}, uc[6] = {0, 1, 2, 1, 2, 2};
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) {
        MBS_UNROLL(3)
        for (int m = 0; m < 3; ++m) col[m] = t[3 * m + uc[e]];
        o[e] = ax_dot2(k, R, 0, ur[e], col);
    }
}

/* Upper triangle of out += X^T in X (spatial.c m6_sym_transform_add) for X = (R, p). */
AX_INLINE void ax_sym_transform_add(int rev, int k, ax_rot R, double *restrict out,
                                    const double p[3], const double *restrict in)
{
    double r[3], W[9], Ap[6];
    ax_mulv(rev, k, R, 1, r, p);
    m6_sym_shift(in, r, W, Ap);
    static const int up[6] = {0, 1, 2, 7, 8, 14}; /* upper triangle of a 3x3 block of a 6x6 */
    if (!rev) { /* R = I: the blocks as they are */
        MBS_UNROLL(6)
        for (int e = 0; e < 6; ++e) out[up[e]] += Ap[e];
        MBS_UNROLL(6)
        for (int e = 0; e < 6; ++e) out[21 + up[e]] += in[21 + up[e]];
        MBS_UNROLL(3)
        for (int a = 0; a < 3; ++a)
            MBS_UNROLL(3)
            for (int b = 0; b < 3; ++b) out[6 * a + 3 + b] += W[3 * a + b];
        return;
    }
    const double Cu[6] = {in[21], in[22], in[23], in[28], in[29], in[35]};
    mbs_d2 ac[9], ww[9], oac[6], oww[6];
    m6_blocks_lanes(Ap, Cu, W, ac, ww);
    ax_rotate2(k, R, oac, ac);
    ax_rotate2(k, R, oww, ww);
    m6_blocks_add(out, oac, oww);
}

/* o = X m = [R^T w; R^T (v - p x w)] (spatial.h xm_apply). */
AX_INLINE void ax_xm_apply(int rev, int k, ax_rot R, double *restrict o, const double p[3],
                           const double *restrict m)
{
    double t[3], u[3];
    ax_mulv(rev, k, R, 1, o, m);
    v3_cross(t, p, m);
    v3_sub(u, m + 3, t);
    ax_mulv(rev, k, R, 1, o + 3, u);
}

/* o = X^T f = [R n + p x (R f); R f] (spatial.h xf_apply_transpose). */
AX_INLINE void ax_xf_apply_transpose(int rev, int k, ax_rot R, double *restrict o,
                                     const double p[3], const double *restrict f)
{
    double n[3], t[3];
    ax_mulv(rev, k, R, 0, o + 3, f + 3);
    ax_mulv(rev, k, R, 0, n, f);
    v3_cross(t, p, o + 3);
    v3_add(o, n, t);
}

/* Index of the motion subspace S = e_sk (6-vector) and the mask of the exact zeros of
   c = v x (S qd): the entries k and k + 3 (revolute), the angular ones and k + 3 (prismatic). */
AX_INLINE int ax_sidx(int rev, int k) { return rev ? k : k + 3; }
AX_INLINE int ax_czero(int rev, int k) { return rev ? (1 << k) | (8 << k) : 7 | (8 << k); }

/* sum over e of a_e b_e left to right, the entries of mask left out (s6_dot). */
AX_INLINE double ax_dot6(int mask, const double *restrict a, const double *restrict b)
{
    double acc = 0.0;
    int any = 0;
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) {
        if (mask & (1 << e)) continue;
        acc = any ? acc + a[e] * b[e] : a[e] * b[e];
        any = 1;
    }
    return acc;
}

/* The rotation of the joint at q (revolute), the identity's (prismatic: unused). */
AX_INLINE ax_rot ax_rotation(int rev, double q)
{
    ax_rot R = {1.0, 0.0, -0.0};
    if (rev) {
        R.c = cos(q), R.s = sin(q);
        R.ms = -R.s;
    }
    return R;
}

/* The rotation stored in x_up (read back by the later passes). */
AX_INLINE ax_rot ax_stored(int rev, int k, const mbs_pose *X)
{
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    ax_rot R = {1.0, 0.0, -0.0};
    if (rev) R.c = X->R[4 * i], R.s = X->R[3 * j + i], R.ms = X->R[3 * i + j];
    return R;
}

/* ---------------------------------------------------------------- kinematics */

/* x_up[b] = (R, p + q e_k) and x_world[b] = x_world[p] x_up[b] (kinematics.c pose_compose). */
AX_INLINE ax_rot ax_pose(int rev, int k, mbs_data *d, const mbs_joint_model *jm, int b, int p)
{
    const double q = d->q[jm->qadr];
    const ax_rot R = ax_rotation(rev, q);
    mbs_pose *restrict up = &d->x_up[b], *restrict xw = &d->x_world[b];
    const mbs_pose *restrict xp = &d->x_world[p];
    MBS_UNROLL(3)
    for (int r = 0; r < 3; ++r)
        MBS_UNROLL(3)
        for (int m = 0; m < 3; ++m) {
            const int kind = rev ? ax_kind(k, r, m) : (r == m ? AX_ONE : AX_ZERO);
            up->R[3 * r + m] = kind == AX_ZERO ? 0.0 : ax_term(kind, R, 1.0);
        }
    MBS_UNROLL(3)
    for (int r = 0; r < 3; ++r) up->p[r] = (!rev && r == k ? q : 0.0) + jm->frame_parent.p[r];
    MBS_UNROLL(3)
    for (int r = 0; r < 3; ++r) {
        MBS_UNROLL(3)
        for (int col = 0; col < 3; ++col) { /* row r of R_p times column col of R */
            double acc = 0.0;
            int any = 0;
            MBS_UNROLL(3)
            for (int m = 0; m < 3; ++m) {
                const int kind = rev ? ax_kind(k, m, col) : (m == col ? AX_ONE : AX_ZERO);
                if (kind == AX_ZERO) continue;
                const double t = ax_term(kind, R, xp->R[3 * r + m]);
                acc = any ? acc + t : t;
                any = 1;
            }
            xw->R[3 * r + col] = acc;
        }
        const double *a = xp->R + 3 * r;
        xw->p[r] = a[0] * up->p[0] + a[1] * up->p[1] + a[2] * up->p[2] + xp->p[r];
    }
    return R;
}

/* vel[b] = X vel[p] + S qd, cvel[b] = vel[b] x (S qd) (kinematics.c body_velocity). */
AX_INLINE void ax_motion(int rev, int k, mbs_data *d, const mbs_joint_model *jm, int b, int p,
                         ax_rot R)
{
    const int i = (k + 1) % 3, j = (k + 2) % 3, o = rev ? 0 : 3;
    const double qd = d->v[jm->vadr];
    double *restrict v = d->vel + 6 * b, *restrict c = d->cvel + 6 * b;
    double x[6];
    ax_xm_apply(rev, k, R, x, d->x_up[b].p, d->vel + 6 * p);
    x[o + k] += qd;
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) v[e] = x[e], c[e] = 0.0;
    c[o + i] = x[j] * qd, c[o + j] = -(x[i] * qd); /* (angular part of v) x qd e_k */
    if (rev) c[3 + i] = x[3 + j] * qd, c[3 + j] = -(x[3 + i] * qd); /* (linear part) x qd e_k */
}

/* ---------------------------------------------------------------- ABA */

/* Complete the symmetric IA from its upper triangle, U = its column s, Ic = IA c for c with
   exact zeros at the entries of mask, summed as kernels.h mbs_sym6_complete_mulv2 does. */
AX_INLINE void ax_complete_col_mulv(int s, int mask, double *restrict M,
                                    const double *restrict c, double *restrict U,
                                    double *restrict Ic)
{
    double x[6] = {0};
    int any[6] = {0};
    MBS_UNROLL(6)
    for (int i = 0; i < 6; ++i)
        if (!(mask & (1 << i))) x[i] = M[7 * i] * c[i], any[i] = 1;
    MBS_UNROLL(5)
    for (int i = 0; i < 5; ++i)
        MBS_UNROLL(6)
        for (int j = i + 1; j < 6; ++j) {
            const double mij = M[6 * i + j];
            M[6 * j + i] = mij;
            if (!(mask & (1 << j))) x[i] = any[i] ? x[i] + mij * c[j] : mij * c[j], any[i] = 1;
            if (!(mask & (1 << i))) x[j] = any[j] ? x[j] + mij * c[i] : mij * c[i], any[j] = 1;
        }
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) U[e] = M[6 * e + s], Ic[e] = x[e];
}

/* Backward step (aba.c mbs_aba_backward_1 with S = e_s). */
AX_INLINE int ax_aba_backward(int rev, int k, mbs_data *d, int t, const mbs_joint_model *jm,
                              int p)
{
    const int i = jm->vadr, b = jm->child, s = ax_sidx(rev, k), mask = ax_czero(rev, k);
    double *restrict IA = d->IA + 36 * b;
    const double *restrict pA = d->f + 6 * b, *restrict c = d->cvel + 6 * b;
    double U[6], Ic[6], Ia[36], pa[6], f[6];
    ax_complete_col_mulv(s, mask, IA, c, U, Ic);
    const double D = U[s] + jm->rotor_D; /* + native rotors' J ratio^2 */
    const double scale = rev ? IA[0] + IA[7] + IA[14] : IA[21] + IA[28] + IA[35];
    if (!(D > MBS_ABA_SINGULAR_EPS * scale)) return mbs_aba_singular(d, b);
    const double dinv = 1.0 / D;
    const double u = d->tau[i] + d->gen_force[i] - pA[s];
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) d->U[6 * i + e] = U[e];
    d->Dinv[6 * i] = dinv;
    d->u[i] = u;
    if (p == 0) return MBS_OK;
    const double g = dinv * (u - ax_dot6(mask, U, c));
    mbs_aba_articulated_1(Ia, IA, U, dinv);
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) pa[e] = pA[e] + Ic[e] + U[e] * g;
    const mbs_pose *X = &d->x_up[b];
    const ax_rot R = ax_stored(rev, k, X);
    ax_sym_transform_add(rev, k, R, d->IA + 36 * p, X->p, Ia);
    ax_xf_apply_transpose(rev, k, R, f, X->p, pa);
    double *restrict pAp = d->f + 6 * p;
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) pAp[e] += f[e];
    if (jm->rotor_parent) mbs_aba_rotor_propagate(d, jm, b, p, U, dinv, g);
    return MBS_OK;
}

/* Forward step (aba.c mbs_aba_forward_1 with S = e_s). */
AX_INLINE void ax_aba_forward(int rev, int k, mbs_data *d, int t, const mbs_joint_model *jm,
                              int p)
{
    const int i = jm->vadr, b = jm->child, s = ax_sidx(rev, k), mask = ax_czero(rev, k);
    const double *restrict U = d->U + 6 * i, *restrict c = d->cvel + 6 * b;
    const double *restrict ap = d->acc + 6 * p;
    double *restrict ab = d->acc + 6 * b;
    const mbs_pose *X = &d->x_up[b];
    const ax_rot R = ax_stored(rev, k, X);
    double Up[6], a[6];
    ax_xf_apply_transpose(rev, k, R, Up, X->p, U);
    const double uc = d->u[i] - ax_dot6(mask, U, c);
    const double Ua = ((Up[0] * ap[0] + Up[1] * ap[1]) + (Up[2] * ap[2] + Up[3] * ap[3])) +
                      (Up[4] * ap[4] + Up[5] * ap[5]);
    const double Ur = jm->rotor_parent ? v3_dot(jm->rotor_U, ap) : 0.0; /* native rotors */
    const double qdd = d->Dinv[6 * i] * (uc - Ua - Ur);
    ax_xm_apply(rev, k, R, a, X->p, ap);
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e)
        ab[e] = e == s ? a[e] + qdd : (mask & (1 << e)) ? a[e] : a[e] + c[e];
    d->qacc[i] = qdd;
}

/* ---------------------------------------------------------------- RNEA */

/* Forward step (rnea.c mbs_rnea_forward_generic with S = e_s). */
AX_INLINE void ax_rnea_forward(int rev, int k, mbs_data *d, const mbs_joint_model *jm, int b,
                               int p, const double *qacc)
{
    const int s = ax_sidx(rev, k), mask = ax_czero(rev, k);
    const double *restrict c = d->cvel + 6 * b;
    const mbs_pose *X = &d->x_up[b];
    double a[6];
    ax_xm_apply(rev, k, ax_stored(rev, k, X), a, X->p, d->acc + 6 * p);
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e)
        if (!(mask & (1 << e))) a[e] += c[e];
    if (qacc) a[s] += qacc[jm->vadr];
    double *restrict ab = d->acc + 6 * b;
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) ab[e] = a[e];
    mbs_rnea_body_force(d->f + 6 * b, &d->model->bodies[b].rbi, a, d->vel + 6 * b,
                        d->f_ext + 6 * b);
}

/* Backward step (rnea.c mbs_rnea_backward_generic with S = e_s). */
AX_INLINE void ax_rnea_backward(int rev, int k, mbs_data *d, const mbs_joint_model *jm, int b,
                                int p, double *tau)
{
    const double *restrict f = d->f + 6 * b;
    tau[jm->vadr] = f[ax_sidx(rev, k)] - d->gen_force[jm->vadr];
    if (p <= 0) return;
    const mbs_pose *X = &d->x_up[b];
    double fp[6];
    ax_xf_apply_transpose(rev, k, ax_stored(rev, k, X), fp, X->p, f);
    double *restrict fpar = d->f + 6 * p;
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) fpar[e] += fp[e];
}

/* ---------------------------------------------------------------- CRBA */

/* Frame step (crba.c mbs_crba_frame_generic with S = e_s): Sw = [R_w e_k; p_root x R_w e_k]
   (revolute) or [0; R_w e_k] (prismatic), R_w e_k the column k of the world rotation. */
AX_INLINE void ax_crba_frame(int rev, int k, mbs_data *d, const mbs_joint_model *jm, int b,
                             int p)
{
    const double *pr = mbs_crba_root_origin(d, b, p), *Rw = d->x_world[b].R;
    double *restrict Sw = d->Sw + 6 * jm->vadr;
    d->Ic[b] = d->model->bodies[b].rbi;
    const double a[3] = {Rw[k], Rw[3 + k], Rw[6 + k]};
    if (rev) {
        v3_copy(Sw, a);
        v3_cross(Sw + 3, pr, a);
    } else {
        Sw[0] = Sw[1] = Sw[2] = 0.0;
        v3_copy(Sw + 3, a);
    }
}

/* Upper triangle o of R S R^T for a symmetric S (spatial.c rotate_sym_upper): T = S R^T,
   T_ij = sum_m S_im R_jm, then O_ij = sum_m R_im T_mj, each left to right. */
AX_INLINE void ax_rotate_sym_upper(int rev, int k, ax_rot R, double o[6], const double S[9])
{
    double t[9], col[3];
    MBS_UNROLL(3)
    for (int i = 0; i < 3; ++i)
        MBS_UNROLL(3)
        for (int j = 0; j < 3; ++j) t[3 * i + j] = ax_dot(rev, k, R, 0, j, S + 3 * i);
    static const int ur[6] = {0, 0, 0, 1, 1, 2}, uc[6] = {0, 1, 2, 1, 2, 2};
    MBS_UNROLL(6)
    for (int e = 0; e < 6; ++e) {
        MBS_UNROLL(3)
        for (int m = 0; m < 3; ++m) col[m] = t[3 * m + uc[e]];
        o[e] = ax_dot(rev, k, R, 0, ur[e], col);
    }
}

/* Backward step (crba.c mbs_crba_backward_generic with S = e_s): Ic S is the column s of
   Ic, [I e_k; e_k x h] (revolute) or [h x e_k; m e_k] (prismatic). */
AX_INLINE void ax_crba_backward(int rev, int k, mbs_data *d, const mbs_joint_model *jm, int b,
                                int p)
{
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    const mbs_rbi *restrict Ic = &d->Ic[b];
    double f[6];
    if (rev) {
        f[0] = Ic->I[k], f[1] = Ic->I[3 + k], f[2] = Ic->I[6 + k];
        f[3 + k] = 0.0, f[3 + i] = -Ic->h[j], f[3 + j] = Ic->h[i];
    } else {
        f[k] = 0.0, f[i] = Ic->h[j], f[j] = -Ic->h[i];
        f[3] = f[4] = f[5] = 0.0;
        f[3 + k] = Ic->m;
    }
    mbs_crba_force_to_root(d, b, d->Fw + 6 * jm->vadr, f);
    if (p <= 0) return;
    const mbs_pose *X = &d->x_up[b];
    const ax_rot R = ax_stored(rev, k, X);
    double y[3], Ir[6];
    ax_mulv(rev, k, R, 0, y, Ic->h);
    ax_rotate_sym_upper(rev, k, R, Ir, Ic->I);
    rbi_shifted_add(&d->Ic[p], Ic->m, y, Ir, X->p);
}

/* ---------------------------------------------------------------- the six tables */

/* The kernels of kind NAME (rev 1: revolute, 0: prismatic) about e_K. */
#define AX_KERNELS(NAME, REV, K, LABEL)                                                        \
    static void NAME##_pose(mbs_data *d, const mbs_joint_model *jm, int b, int p)             \
    {                                                                                          \
        (void)ax_pose(REV, K, d, jm, b, p);                                                    \
    }                                                                                          \
    static void NAME##_pose_motion(mbs_data *d, const mbs_joint_model *jm, int b, int p)      \
    {                                                                                          \
        ax_motion(REV, K, d, jm, b, p, ax_pose(REV, K, d, jm, b, p));                          \
    }                                                                                          \
    static int NAME##_aba_backward(mbs_data *d, int t, const mbs_joint_model *jm, int p)      \
    {                                                                                          \
        return ax_aba_backward(REV, K, d, t, jm, p);                                           \
    }                                                                                          \
    static void NAME##_aba_forward(mbs_data *d, int t, const mbs_joint_model *jm, int p)      \
    {                                                                                          \
        ax_aba_forward(REV, K, d, t, jm, p);                                                   \
    }                                                                                          \
    AX_NOVEC static void NAME##_rnea_forward(mbs_data *d, const mbs_joint_model *jm, int b,   \
                                             int p,                                            \
                                    const double *qacc)                                        \
    {                                                                                          \
        ax_rnea_forward(REV, K, d, jm, b, p, qacc);                                            \
    }                                                                                          \
    AX_NOVEC static void NAME##_rnea_backward(mbs_data *d, const mbs_joint_model *jm, int b,  \
                                              int p,                                           \
                                     double *tau)                                              \
    {                                                                                          \
        ax_rnea_backward(REV, K, d, jm, b, p, tau);                                            \
    }                                                                                          \
    static void NAME##_crba_frame(mbs_data *d, const mbs_joint_model *jm, int b, int p)       \
    {                                                                                          \
        ax_crba_frame(REV, K, d, jm, b, p);                                                    \
    }                                                                                          \
    static void NAME##_crba_backward(mbs_data *d, const mbs_joint_model *jm, int b, int p)    \
    {                                                                                          \
        ax_crba_backward(REV, K, d, jm, b, p);                                                 \
    }                                                                                          \
    static void NAME##_pose_crba(mbs_data *d, const mbs_joint_model *jm, int b, int p)        \
    {                                                                                          \
        (void)ax_pose(REV, K, d, jm, b, p);                                                    \
        ax_crba_frame(REV, K, d, jm, b, p);                                                    \
    }                                                                                          \
    static const mbs_joint_kernels NAME = {                                                    \
        .name = LABEL,                                                                         \
        .pose = NAME##_pose,                                                                   \
        .pose_motion = NAME##_pose_motion,                                                     \
        .subspace = ax_subspace_const,                                                         \
        .aba_backward = NAME##_aba_backward,                                                   \
        .aba_forward = NAME##_aba_forward,                                                     \
        .rnea_forward = NAME##_rnea_forward,                                                   \
        .rnea_backward = NAME##_rnea_backward,                                                 \
        .crba_frame = NAME##_crba_frame,                                                       \
        .crba_backward = NAME##_crba_backward,                                                 \
        .pose_crba = NAME##_pose_crba,                                                         \
        .const_subspace = 1,                                                                   \
    };

/* S is constant: written once at data creation (kernels.c). */
static void ax_subspace_const(mbs_data *d, const mbs_joint_model *jm)
{
    (void)d;
    (void)jm;
}

AX_KERNELS(revolute_x, 1, 0, "revolute x")
AX_KERNELS(revolute_y, 1, 1, "revolute y")
AX_KERNELS(revolute_z, 1, 2, "revolute z")
AX_KERNELS(prismatic_x, 0, 0, "prismatic x")
AX_KERNELS(prismatic_y, 0, 1, "prismatic y")
AX_KERNELS(prismatic_z, 0, 2, "prismatic z")

/* k when jm's axis is e_k exactly, its parent joint frame a translation and its child joint
   frame the child body frame; -1 otherwise. */
static int axis_geometry(const mbs_joint_model *jm)
{
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (!jm->frame_child_identity || memcmp(jm->frame_parent.R, I3, sizeof I3) != 0) return -1;
    MBS_UNROLL(3)
    for (int k = 0; k < 3; ++k)
        if (jm->axis[k] == 1.0 && jm->axis[(k + 1) % 3] == 0.0 && jm->axis[(k + 2) % 3] == 0.0)
            return k;
    return -1;
}

/* See kernels.h. */
const mbs_joint_kernels *mbs_kernels_revolute_axis(const mbs_joint_model *jm)
{
    static const mbs_joint_kernels *const tab[3] = {&revolute_x, &revolute_y, &revolute_z};
    const int k = axis_geometry(jm);
    return k >= 0 ? tab[k] : NULL;
}

/* See kernels.h. */
const mbs_joint_kernels *mbs_kernels_prismatic_axis(const mbs_joint_model *jm)
{
    static const mbs_joint_kernels *const tab[3] = {&prismatic_x, &prismatic_y, &prismatic_z};
    const int k = axis_geometry(jm);
    return k >= 0 ? tab[k] : NULL;
}
