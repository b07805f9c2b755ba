/* Articulated-body forward dynamics (RBDA table 7.1) in body coordinates. External forces
 * (gravity included) enter as f_ext, generalized forces as tau + gen_force; a_0 = 0.
 * Articulated inertias are symmetric: they are built and accumulated in their upper
 * triangles only and completed (lower triangle mirrored) when the body's own joint is
 * processed, so d->IA holds full matrices after the backward pass. */
#include "core/kernels.h"
/* -O3 (GCC) vectorizes the 6-vector and upper-triangle loops of the passes; measured
   ~3-5 ns per body less on the benchmark chains and humanoid. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* Initialisation: IA_i = I_i (upper triangle), pA_i = v_i x* I_i v_i - f_ext_i, over the
   bodies in any order (every body but the world has a tree joint). */
static void aba_init(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int b = 1; b < m->nbody; ++b) {
        const mbs_rbi *I = &m->bodies[b].rbi;
        const double *restrict v = d->vel + 6 * b, *restrict fe = d->f_ext + 6 * b;
        double Iv[6], vIv[6];
        rbi_to_m6_upper(d->IA + 36 * b, I);
        rbi_mulv(Iv, I, v);
        mv_cross_f(vIv, v, Iv);
        double *restrict pA = d->f + 6 * b;
        for (int e = 0; e < 6; ++e) pA[e] = vIv[e] - fe[e];
    }
}

/* See kernels.h: report a singular articulated inertia at body b. */
int mbs_aba_singular(mbs_data *d, int b)
{
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR,
                         "body %s: articulated inertia singular (massless end of a chain?)",
                         mbs_body_label(d->model, b, buf, (int)sizeof buf));
}

/* Native rotors of a one-dof joint housed by its parent p (src/elements/couplings.h): the
   rotors are a second child of p moved by the joint's coordinate with motion [n ratio; 0] and
   inertia J n n^T (pure rotation, parent coordinates). With U_r = [rotor_U; 0] and
   Uh = X^T U the child's U in p coordinates, the composite passes to p
   IA_p += I_r - (Uh U_r^T + U_r Uh^T + U_r U_r^T) / D and pA_p += U_r g (their gyroscopic
   bias is a force, f_ext of p). Upper triangle of IA_p only. */
void mbs_aba_rotor_propagate(mbs_data *d, const mbs_joint_model *jm, int b, int p,
                             const double U[6], double dinv, double g)
{
    double Uh[6];
    const double *Ur = jm->rotor_U;
    double *restrict IAp = d->IA + 36 * p;
    xf_apply_transpose(Uh, &d->x_up[b], U);
    for (int r = 0; r < 3; ++r) {
        for (int k = r; k < 3; ++k)
            IAp[6 * r + k] += jm->rotor_I[3 * r + k] -
                              dinv * (Uh[r] * Ur[k] + Ur[r] * Uh[k] + Ur[r] * Ur[k]);
        for (int k = 3; k < 6; ++k) IAp[6 * r + k] -= dinv * Ur[r] * Uh[k];
        d->f[6 * p + r] += Ur[r] * g;
    }
}

/* One-dof joint: U = IA S, D = S^T U, u = tau - S^T pA, then into the parent p (when not the
   world) IA_p += X^T Ia X with Ia = IA - U U^T / D (upper triangle) and pA_p += X^T pa with
   pa = pA + IA c + U (u - U^T c) / D. Completes IA. Returns 0 or MBS_ERR_SINGULAR. The
   generic backward kernel of one-dof joints. */
int mbs_aba_backward_1(mbs_data *d, int t, const mbs_joint_model *jm, int p)
{
    const int i = jm->vadr, b = jm->child;
    double *restrict IA = d->IA + 36 * b;
    const double *restrict pA = d->f + 6 * b;
    const double *restrict S = d->S + 6 * i;
    const double *restrict c = d->cvel + 6 * b;
    double U[6], Ic[6], Ia[36], pa[6], f[6];
    mbs_sym6_complete_mulv2(IA, S, c, U, Ic);
    const double D = s6_dot(S, U) + jm->rotor_D; /* + native rotors' J ratio^2 */
    if (!(D > MBS_ABA_SINGULAR_EPS * mbs_aba_joint_scale(S, IA))) return mbs_aba_singular(d, b);
    const double dinv = 1.0 / D;
    const double u = d->tau[i] + d->gen_force[i] - s6_dot(S, pA);
    for (int e = 0; e < 6; ++e) d->U[6 * i + e] = U[e];
    d->Dinv[6 * i] = dinv;
    d->u[i] = u;
    if (p == 0) return MBS_OK;
    const double g = dinv * (u - s6_dot(U, c));
    mbs_aba_articulated_1(Ia, IA, U, dinv);
    for (int e = 0; e < 6; ++e) pa[e] = pA[e] + Ic[e] + U[e] * g;
    m6_sym_transform_add(d->IA + 36 * p, &d->x_up[b], Ia);
    xf_apply_transpose(f, &d->x_up[b], pa);
    double *restrict pAp = d->f + 6 * p;
    for (int e = 0; e < 6; ++e) pAp[e] += f[e];
    if (jm->rotor_parent) mbs_aba_rotor_propagate(d, jm, b, p, U, dinv, g);
    return MBS_OK;
}

/* Cholesky-invert the n x n SPD D (row-major, n <= 6) into Dinv: D = L L^T, then
   Dinv = L^-T L^-1 with one division per pivot. Pivots are checked against scale[k].
   Returns 0 or 1 when singular. Inlined with a constant n, the loops unroll. */
static inline int spd_inverse(int n, const double *D, const double *scale, double *Dinv)
{
    double L[36] = {0}, Li[36] = {0}, id[6] = {0}; /* Li = L^-1 (lower), id[j] = 1 / L_jj */
    MBS_UNROLL(6)
    for (int j = 0; j < n; ++j) {
        double s = D[n * j + j];
        MBS_UNROLL(6)
        for (int k = 0; k < j; ++k) s -= L[6 * j + k] * L[6 * j + k];
        if (!(s > MBS_ABA_SINGULAR_EPS * scale[j])) return 1;
        L[6 * j + j] = sqrt(s);
        id[j] = 1.0 / L[6 * j + j];
        MBS_UNROLL(6)
        for (int r = j + 1; r < n; ++r) {
            double x = D[n * r + j];
            MBS_UNROLL(6)
            for (int k = 0; k < j; ++k) x -= L[6 * r + k] * L[6 * j + k];
            L[6 * r + j] = x * id[j];
        }
    }
    MBS_UNROLL(6)
    for (int j = 0; j < n; ++j) { /* column j of L^-1 by forward substitution */
        Li[6 * j + j] = id[j];
        MBS_UNROLL(6)
        for (int r = j + 1; r < n; ++r) {
            double x = 0.0;
            MBS_UNROLL(6)
            for (int k = j; k < r; ++k) x -= L[6 * r + k] * Li[6 * k + j];
            Li[6 * r + j] = x * id[r];
        }
    }
    MBS_UNROLL(6)
    for (int i = 0; i < n; ++i)
        MBS_UNROLL(6)
        for (int j = i; j < n; ++j) {
            double x = 0.0;
            MBS_UNROLL(6)
            for (int k = j; k < n; ++k) x += Li[6 * k + i] * Li[6 * k + j];
            Dinv[n * i + j] = Dinv[n * j + i] = x;
        }
    return 0;
}

/* See kernels.h. */
int mbs_small_spd_inverse(int n, const double *D, const double *scale, double *Dinv)
{
    switch (n) { /* a constant size each: the loops unroll within the 6 x 6 arrays */
    case 6: return spd_inverse(6, D, scale, Dinv);
    case 5: return spd_inverse(5, D, scale, Dinv);
    case 4: return spd_inverse(4, D, scale, Dinv);
    case 3: return spd_inverse(3, D, scale, Dinv);
    case 2: return spd_inverse(2, D, scale, Dinv);
    case 1: return spd_inverse(1, D, scale, Dinv);
    default: return n == 0 ? 0 : 1;
    }
}

/* Into the parent p of a joint of n != 1 dofs: Ia = IA - (U Dinv) U^T (upper triangle),
   pa = pA + IA c + U Dinv (u - U^T c), then IA_p += X^T Ia X and pA_p += X^T pa. */
static void aba_propagate_n(mbs_data *d, int t, const mbs_joint_model *jm, int p)
{
    const int n = jm->nv, i0 = jm->vadr, b = jm->child;
    const double *IA = d->IA + 36 * b, *pA = d->f + 6 * b, *c = d->cvel + 6 * b;
    const double *U = d->U + 6 * i0, *Dinv = d->Dinv + 6 * i0;
    double Ia[36], pa[6], UD[36], r[6], fX[6];
    m6_mulv(pa, IA, c);
    for (int e = 0; e < 6; ++e) pa[e] += pA[e];
    for (int k = 0; k < n; ++k) r[k] = d->u[i0 + k] - s6_dot(U + 6 * k, c);
    for (int l = 0; l < n; ++l) /* UD = U Dinv (column l), pa += UD_l r_l */
        for (int e = 0; e < 6; ++e) {
            double x = 0.0;
            for (int k = 0; k < n; ++k) x += U[6 * k + e] * Dinv[n * k + l];
            UD[6 * l + e] = x;
            pa[e] += x * r[l];
        }
    for (int e = 0; e < 6; ++e)
        for (int f = e; f < 6; ++f) {
            double x = IA[6 * e + f];
            for (int l = 0; l < n; ++l) x -= UD[6 * l + e] * U[6 * l + f];
            Ia[6 * e + f] = x;
        }
    m6_sym_transform_add(d->IA + 36 * p, &d->x_up[b], Ia);
    xf_apply_transpose(fX, &d->x_up[b], pa);
    for (int e = 0; e < 6; ++e) d->f[6 * p + e] += fX[e];
}

/* Any-dof joint (0..6): the matrix form of mbs_aba_backward_1 with Dinv = (S^T U)^-1
   (completes IA first). Returns 0 or MBS_ERR_SINGULAR. The generic kernel of n != 1 dofs. */
int mbs_aba_backward_n(mbs_data *d, int t, const mbs_joint_model *jm, int p)
{
    const int n = jm->nv, i0 = jm->vadr, b = jm->child;
    m6_sym_mirror(d->IA + 36 * b);
    double M[36], S[36], U[36], D[36], scale[6];
    for (int e = 0; e < 36; ++e) M[e] = d->IA[36 * b + e];
    for (int e = 0; e < 6 * n; ++e) S[e] = d->S[6 * i0 + e];
    const double *restrict pA = d->f + 6 * b;
    for (int k = 0; k < n; ++k) {
        m6_mulv(U + 6 * k, M, S + 6 * k);
        scale[k] = mbs_aba_joint_scale(S + 6 * k, M);
        d->u[i0 + k] = d->tau[i0 + k] + d->gen_force[i0 + k] - s6_dot(S + 6 * k, pA);
    }
    for (int e = 0; e < 6 * n; ++e) d->U[6 * i0 + e] = U[e];
    for (int k = 0; k < n; ++k) /* D symmetric: upper triangle, mirrored */
        for (int l = k; l < n; ++l) D[n * k + l] = D[n * l + k] = s6_dot(S + 6 * k, U + 6 * l);
    if (n > 0 && mbs_small_spd_inverse(n, D, scale, d->Dinv + 6 * i0)) return mbs_aba_singular(d, b);
    if (p > 0) aba_propagate_n(d, t, jm, p);
    return MBS_OK;
}

/* Backward pass: per joint U, D^-1, u; IA_p += X^T Ia X (upper triangle), pA_p += X^T pa. */
static int aba_backward(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int st = jm->kern->aba_backward(d, t, jm, jm->parent);
        if (st != MBS_OK) return st;
    }
    return MBS_OK;
}

/* Forward step of a joint of n != 1 dofs: a = a' + S qdd into acc[b], with a' = X a_p + c
   and qdd = D^-1 (u - U^T a'). The generic kernel of n != 1 dofs. */
void mbs_aba_forward_n(mbs_data *d, int t, const mbs_joint_model *jm, int p)
{
    const int n = jm->nv, i0 = jm->vadr;
    const mbs_pose *X = &d->x_up[jm->child];
    const double *restrict ap = d->acc + 6 * p;
    double *restrict ab = d->acc + 6 * jm->child;
    const double *c = d->cvel + 6 * jm->child;
    double a[6], r[6];
    xm_apply(a, X, ap);
    for (int e = 0; e < 6; ++e) a[e] += c[e];
    for (int k = 0; k < n; ++k) r[k] = d->u[i0 + k] - s6_dot(d->U + 6 * (i0 + k), a);
    for (int k = 0; k < n; ++k) {
        double qdd = 0.0;
        for (int l = 0; l < n; ++l) qdd += d->Dinv[6 * i0 + n * k + l] * r[l];
        d->qacc[i0 + k] = qdd;
    }
    for (int k = 0; k < n; ++k)
        for (int e = 0; e < 6; ++e) a[e] += d->S[6 * (i0 + k) + e] * d->qacc[i0 + k];
    for (int e = 0; e < 6; ++e) ab[e] = a[e];
}

/* One-dof joint of the forward pass: a = a' + S qdd into acc[b], with a' = X a_p + c and
   qdd = D^-1 (u - U^T a'). U^T a' is evaluated as (X^T U)^T a_p + U^T c (pairwise sum), so
   that qdd waits only for one short dot product after a_p (the chain's critical path) while
   a' is formed alongside. The generic kernel of one-dof joints. */
void mbs_aba_forward_1(mbs_data *d, int t, const mbs_joint_model *jm, int p)
{
    const int i = jm->vadr, b = jm->child;
    const mbs_pose *restrict X = &d->x_up[b];
    const double *restrict ap = d->acc + 6 * p;
    double *restrict ab = d->acc + 6 * b;
    const double *restrict U = d->U + 6 * i, *restrict c = d->cvel + 6 * b;
    const double *restrict S = d->S + 6 * i;
    double Up[6], a[6];
    xf_apply_transpose(Up, X, U);
    const double uc = d->u[i] - s6_dot(U, c);
    const double Ua = ((Up[0] * ap[0] + Up[1] * ap[1]) + (Up[2] * ap[2] + Up[3] * ap[3])) +
                      (Up[4] * ap[4] + Up[5] * ap[5]);
    const double Ur = jm->rotor_parent ? v3_dot(jm->rotor_U, ap) : 0.0; /* native rotors */
    const double qdd = d->Dinv[6 * i] * (uc - Ua - Ur);
    xm_apply(a, X, ap);
    for (int e = 0; e < 6; ++e) ab[e] = a[e] + (c[e] + S[e] * qdd);
    d->qacc[i] = qdd;
}

/* Forward pass: a' = X a_p + c, qdd = D^-1 (u - U^T a'), a = a' + S qdd. */
static void aba_forward(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        jm->kern->aba_forward(d, t, jm, jm->parent);
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
    return d->model->ncrow_solve > 0 ? d->model->coupling_hooks->aba_after(d) : MBS_OK;
}
