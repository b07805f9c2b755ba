/* Articulated-body forward dynamics (RBDA table 7.1) in body coordinates. External forces
 * (gravity included) enter as f_ext, generalized forces as tau + gen_force; a_0 = 0.
 * Articulated inertias are symmetric: they are built and accumulated in their upper
 * triangles only and completed (lower triangle mirrored) when the body's own joint is
 * processed, so d->IA holds full matrices after the backward pass. */
#include "core/internal.h"

/* A pivot of D below this fraction of the inertia scale seen by the joint is singular. */
#define ABA_SINGULAR_EPS 1e-12

/* Inertia scale the motion s sees in the PSD 6x6 matrix IA: an upper bound (within 2) of
   s^T IA s for any direction of that size, |s_ang|^2 tr(A) + |s_lin|^2 tr(C). */
static double joint_scale(const double s[6], const double IA[36])
{
    const double trA = IA[0] + IA[7] + IA[14], trC = IA[21] + IA[28] + IA[35];
    return v3_dot(s, s) * trA + v3_dot(s + 3, s + 3) * trC;
}

/* Initialisation: IA_i = I_i (upper triangle), pA_i = v_i x* I_i v_i - f_ext_i. */
static void aba_init(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const int b = m->joints[m->tree[t]].child;
        const mbs_rbi *I = &m->bodies[b].rbi;
        const double *restrict fe = d->f_ext + 6 * b;
        double v[6], Iv[6], vIv[6];
        for (int e = 0; e < 6; ++e) v[e] = d->vel[6 * b + e];
        rbi_to_m6_upper(d->IA + 36 * b, I);
        rbi_mulv(Iv, I, v);
        mv_cross_f(vIv, v, Iv);
        double *restrict pA = d->f + 6 * b;
        for (int e = 0; e < 6; ++e) pA[e] = vIv[e] - fe[e];
    }
}

/* Report a singular articulated inertia at body b. */
static int aba_singular(mbs_data *d, int b)
{
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR,
                         "body %s: articulated inertia singular (massless end of a chain?)",
                         mbs_body_label(d->model, b, buf, (int)sizeof buf));
}

/* Complete the symmetric M from its upper triangle and return U = M s and W = M w, each
   entry of the upper triangle loaded once. */
static void sym6_complete_mulv2(double *restrict M, const double *restrict s,
                                const double *restrict w, double *restrict U,
                                double *restrict W)
{
    double u[6], x[6];
    MBS_UNROLL(6)
    for (int i = 0; i < 6; ++i) {
        u[i] = M[7 * i] * s[i];
        x[i] = M[7 * i] * w[i];
    }
    MBS_UNROLL(5)
    for (int i = 0; i < 5; ++i) {
        MBS_UNROLL(5)
        for (int j = i + 1; j < 6; ++j) {
            const double mij = M[6 * i + j];
            M[6 * j + i] = mij;
            u[i] += mij * s[j];
            u[j] += mij * s[i];
            x[i] += mij * w[j];
            x[j] += mij * w[i];
        }
    }
    for (int i = 0; i < 6; ++i) U[i] = u[i], W[i] = x[i];
}

/* One-dof joint: U = IA S, D = S^T U, u = tau - S^T pA; the upper triangle of
   Ia = IA - U U^T / D (into Ia) and pa = pA + IA c + U (u - U^T c) / D (into pa).
   Completes IA. Returns 0 or MBS_ERR_SINGULAR. */
static int aba_joint_1(mbs_data *d, int t, const mbs_joint_model *jm, double *restrict Ia,
                       double *restrict pa)
{
    const int i = jm->vadr, b = jm->child;
    double *restrict IA = d->IA + 36 * b;
    const double *restrict pA = d->f + 6 * b;
    const double *restrict S = d->S + 6 * i;
    const double *restrict c = d->cvel + 6 * b;
    double U[6], Ic[6];
    sym6_complete_mulv2(IA, S, c, U, Ic);
    const double D = s6_dot(S, U);
    if (!(D > ABA_SINGULAR_EPS * joint_scale(S, IA))) return aba_singular(d, b);
    const double dinv = 1.0 / D;
    const double u = d->tau[i] + d->gen_force[i] - s6_dot(S, pA);
    const double g = dinv * (u - s6_dot(U, c));
    MBS_UNROLL(6)
    for (int r = 0; r < 6; ++r) {
        const double Ur = dinv * U[r];
        MBS_UNROLL(6)
        for (int k = r; k < 6; ++k) Ia[6 * r + k] = IA[6 * r + k] - Ur * U[k];
    }
    for (int e = 0; e < 6; ++e) pa[e] = pA[e] + Ic[e] + U[e] * g;
    for (int e = 0; e < 6; ++e) d->U[6 * i + e] = U[e];
    d->Dinv[36 * t] = dinv;
    d->u[i] = u;
    return MBS_OK;
}

/* Cholesky-invert the n x n SPD D (row-major, n <= 6) into Dinv; pivots are checked
   against scale[k]. Returns 0 or 1 when singular. */
static int small_spd_inverse(int n, const double *D, const double *scale, double *Dinv)
{
    double L[36] = {0};
    for (int j = 0; j < n; ++j) {
        double s = D[n * j + j];
        for (int k = 0; k < j; ++k) s -= L[6 * j + k] * L[6 * j + k];
        if (!(s > ABA_SINGULAR_EPS * scale[j])) return 1;
        L[6 * j + j] = sqrt(s);
        for (int r = j + 1; r < n; ++r) {
            double x = D[n * r + j];
            for (int k = 0; k < j; ++k) x -= L[6 * r + k] * L[6 * j + k];
            L[6 * r + j] = x / L[6 * j + j];
        }
    }
    for (int col = 0; col < n; ++col) { /* solve L L^T x = e_col */
        double y[6];
        for (int r = 0; r < n; ++r) {
            double x = (r == col) ? 1.0 : 0.0;
            for (int k = 0; k < r; ++k) x -= L[6 * r + k] * y[k];
            y[r] = x / L[6 * r + r];
        }
        for (int r = n - 1; r >= 0; --r) {
            double x = y[r];
            for (int k = r + 1; k < n; ++k) x -= L[6 * k + r] * y[k];
            y[r] = x / L[6 * r + r];
        }
        for (int r = 0; r < n; ++r) Dinv[n * r + col] = y[r];
    }
    return 0;
}

/* Any-dof joint (0..6): the matrix form of aba_joint_1 with Dinv = (S^T U)^-1 (completes IA
   first, writes the full Ia). */
static int aba_joint_n(mbs_data *d, int t, const mbs_joint_model *jm, double Ia[36],
                       double pa[6])
{
    const int n = jm->nv, i0 = jm->vadr, b = jm->child;
    m6_sym_mirror(d->IA + 36 * b);
    const double *IA = d->IA + 36 * b, *pA = d->f + 6 * b, *c = d->cvel + 6 * b;
    const double *S = d->S + 6 * i0;
    double *U = d->U + 6 * i0, *Dinv = d->Dinv + 36 * t;
    double D[36], scale[6], r[6], g[6], Ic[6];
    m6_mulv(Ic, IA, c);
    for (int k = 0; k < n; ++k) {
        m6_mulv(U + 6 * k, IA, S + 6 * k);
        scale[k] = joint_scale(S + 6 * k, IA);
        d->u[i0 + k] = d->tau[i0 + k] + d->gen_force[i0 + k] - s6_dot(S + 6 * k, pA);
        r[k] = d->u[i0 + k] - s6_dot(U + 6 * k, c);
    }
    for (int k = 0; k < n; ++k)
        for (int l = 0; l < n; ++l) D[n * k + l] = s6_dot(S + 6 * k, U + 6 * l);
    if (n > 0 && small_spd_inverse(n, D, scale, Dinv)) return aba_singular(d, b);
    for (int k = 0; k < n; ++k) {
        g[k] = 0.0;
        for (int l = 0; l < n; ++l) g[k] += Dinv[n * k + l] * r[l];
    }
    for (int e = 0; e < 36; ++e) Ia[e] = IA[e];
    for (int e = 0; e < 6; ++e) pa[e] = pA[e] + Ic[e];
    for (int k = 0; k < n; ++k) {
        const double *Uk = U + 6 * k;
        for (int l = 0; l < n; ++l) {
            const double *Ul = U + 6 * l, w = Dinv[n * k + l];
            for (int e = 0; e < 6; ++e)
                for (int f = 0; f < 6; ++f) Ia[6 * e + f] -= Uk[e] * w * Ul[f];
        }
        for (int e = 0; e < 6; ++e) pa[e] += Uk[e] * g[k];
    }
    return MBS_OK;
}

/* Backward pass: per joint U, D^-1, u; IA_p += X^T Ia X (upper triangle), pA_p += X^T pa. */
static int aba_backward(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        double Ia[36], pa[6], fX[6];
        const int st = jm->nv == 1 ? aba_joint_1(d, t, jm, Ia, pa) : aba_joint_n(d, t, jm, Ia, pa);
        if (st != MBS_OK) return st;
        if (p == 0) continue;
        m6_sym_transform_add(d->IA + 36 * p, &d->x_up[b], Ia);
        xf_apply_transpose(fX, &d->x_up[b], pa);
        double *restrict pAp = d->f + 6 * p;
        for (int e = 0; e < 6; ++e) pAp[e] += fX[e];
    }
    return MBS_OK;
}

/* Forward pass of a joint of n != 1 dofs: qdd = D^-1 (u - U^T a'), a = a' + S qdd. */
static void aba_forward_n(mbs_data *d, int t, const mbs_joint_model *jm, double a[6])
{
    const int n = jm->nv, i0 = jm->vadr;
    double r[6];
    for (int k = 0; k < n; ++k) r[k] = d->u[i0 + k] - s6_dot(d->U + 6 * (i0 + k), a);
    for (int k = 0; k < n; ++k) {
        double qdd = 0.0;
        for (int l = 0; l < n; ++l) qdd += d->Dinv[36 * t + n * k + l] * r[l];
        d->qacc[i0 + k] = qdd;
    }
    for (int k = 0; k < n; ++k)
        for (int e = 0; e < 6; ++e) a[e] += d->S[6 * (i0 + k) + e] * d->qacc[i0 + k];
}

/* One-dof joint of the forward pass: a' = X a_p + c, qdd = D^-1 (u - U^T a'), a = a' + S qdd.
   U^T a' is evaluated as (X^T U)^T a_p + U^T c, so that qdd waits only for one dot product
   after a_p (the chain's critical path) while a' is formed alongside. */
static inline void aba_forward_1(mbs_data *d, int t, const mbs_joint_model *jm,
                                 const mbs_pose *restrict X, const double *restrict ap,
                                 double a[6])
{
    const int i = jm->vadr, b = jm->child;
    const double *restrict U = d->U + 6 * i, *restrict c = d->cvel + 6 * b;
    const double *restrict S = d->S + 6 * i;
    double Up[6];
    xf_apply_transpose(Up, X, U);
    const double uc = d->u[i] - s6_dot(U, c);
    const double qdd = d->Dinv[36 * t] * (uc - s6_dot(Up, ap));
    xm_apply(a, X, ap);
    for (int e = 0; e < 6; ++e) a[e] += c[e] + S[e] * qdd;
    d->qacc[i] = qdd;
}

/* Forward pass: a' = X a_p + c, qdd = D^-1 (u - U^T a'), a = a' + S qdd. */
static void aba_forward(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        const double *restrict ap = d->acc + 6 * p;
        double a[6];
        if (jm->nv == 1) {
            aba_forward_1(d, t, jm, &d->x_up[b], ap, a);
        } else {
            const double *restrict c = d->cvel + 6 * b;
            xm_apply(a, &d->x_up[b], ap);
            for (int e = 0; e < 6; ++e) a[e] += c[e];
            aba_forward_n(d, t, jm, a);
        }
        double *restrict ab = d->acc + 6 * b;
        for (int e = 0; e < 6; ++e) ab[e] = a[e];
    }
}

/* qacc from tau + gen_force at the current kinematics and forces (RBDA table 7.1); on
   MBS_ERR_SINGULAR qacc is untouched. */
int mbs_aba(mbs_data *d)
{
    aba_init(d);
    const int st = aba_backward(d);
    if (st != MBS_OK) return st;
    aba_forward(d);
    return MBS_OK;
}
