/* The articulated-body algorithm (Featherstone 2008, "Rigid Body Dynamics Algorithms",
 * table 7.1) in the world axes about each subtree's root origin of the derivative passes
 * (derivs.h), for the forward-dynamics derivatives: one set of kinematics and inertias
 * serves the ABA, the inverse-dynamics derivative passes and M^-1 (minv.c). In a common
 * frame a motion or force passes between bodies unchanged (no X^T IA X per joint):
 *   pass A (parents first): o_b, S, v_b = v_p + S qd, c_b = the joint's Sdot qd
 *       (one dof: Sdot = v_b x S = v_p x S = dV, so c = dV qd), E = dV + Sdot;
 *   bodies: I_b in world axes, P, B11, F = v x* I v (rnea_lanes.c);
 *   pass B (children first): IA_b = I_b + sum over children, pA_b = v x* I v - f_ext + ...,
 *       U = IA S, D = S^T U, u = tau + gen_force - S^T pA,
 *       IA_p += IA - U D^-1 U^T, pA_p += pA + (IA - U D^-1 U^T) c + U D^-1 u;
 *   pass C (parents first): a' = a_p + c, qdd = D^-1 (u - U^T a'), a = a' + S qdd, and
 *       dA = a_p x S + v_p x dV, F += I a.
 * The derivative passes take gravity as the world's acceleration a0 = -g and pass C keeps
 * a_d = a + a0 (a0 is the same spatial vector at every body in a fixed frame). When f_ext
 * holds uniform gravity alone (force elements only on joints' dofs: they add to gen_force),
 * the ABA takes it so too (Featherstone 2008, §5.3: the base accelerating at -g) and reads
 * no f_ext; otherwise gravity stays in f_ext as in mbs_aba (a_0 = 0 for qdd) and U^T a' is
 * formed as U^T (a'_d - a0). */
#include "derivatives/derivs.h"
#include "core/kernels.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* The articulated inertias (w->IAw): 6 rows of IA_LD entries, the last two zero, so a row
   is one vector of 8 lanes (or two of 4). */
#define IA_LD 8
#define IA_SIZE (6 * IA_LD)

/* See derivs.h: native rotors and cut-joint rows take the general path. */
int mbs_derivs_world_aba_model(const mbs_model *m)
{
    if (m->ncrow_solve > 0) return 0;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        if (jm->rotor_D != 0.0 || jm->rotor_parent) return 0;
    }
    return 1;
}

/* See derivs.h: so do forces fixed in the world. */
int mbs_derivs_world_aba_applies(const mbs_data *d)
{
    return d->derivs->world_model && !mbs_derivs_world_fixed(d);
}

/* ------------------------------------------------------------------ pass A */

/* A one-dof joint (dof i, child b, parent velocity vp): S, dV = vp x S, E = 2 dV, the
   child's velocity vp + S qd and bias c = dV qd. */
MBS_ALWAYS_INLINE void one_dof_velocity(const mbs_data *d, mbs_derivs *w, int i, int b,
                             const double *vp)
{
    double *D = w->dof + MBS_DV_STRIDE * i, *v = w->vel + 6 * b, *c = w->cb + 6 * b;
    double *S = D, *dV = D + MBS_DV_DV, *E = D + MBS_DV_E;
    const double qd = d->v[i];
    mbs_derivs_world_s(d, w, i, b, S);
    mv_cross_m(dV, vp, S);
    for (int e = 0; e < 6; ++e) {
        E[e] = dV[e] + dV[e];
        v[e] = vp[e] + S[e] * qd;
        c[e] = dV[e] * qd;
    }
}

/* A joint of any dofs: the level machinery at qdd = 0 from a zero acceleration leaves the
   child's velocity and, as its acceleration, the bias c (dA is redone in pass C). */
static void joint_velocity(const mbs_data *d, mbs_derivs *w, const mbs_joint_model *jm,
                           int b, int p)
{
    mbs_pose X;
    mbs_derivs_subtree_pose(d, w, b, p, &X);
    double *u = w->vel + 6 * b, *c = w->cb + 6 * b;
    for (int e = 0; e < 6; ++e) u[e] = p > 0 ? w->vel[6 * p + e] : 0.0, c[e] = 0.0;
    mbs_derivs_joint_velocity(d, w, jm, &X, u);
    mbs_derivs_joint_acceleration(d, w, jm, NULL, 0, c); /* dA waits for pass C */
}

/* Pass A over the tree, parents first (joints by w->wtree: the model's joint records are
   large, one cache line or more each). */
MBS_WIDE_LOOPS static void pass_velocities(const mbs_data *d, mbs_derivs *w)
{
    const mbs_model *m = d->model;
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    for (int t = 0; t < m->ntree; ++t) {
        const int *e = w->wtree + 4 * t, b = e[0], p = e[1];
        if (e[2] == 1) {
            mbs_derivs_origin(d, w, b, p);
            one_dof_velocity(d, w, e[3], b, p > 0 ? w->vel + 6 * p : zero);
        } else {
            joint_velocity(d, w, &m->joints[m->tree[t]], b, p);
        }
        mbs_derivs_body_inputs(d, w, t, b, 0);
    }
}

/* M = the 6x6 of I (rbi_to_m6's: J, [h]x; [h]x^T, m 1) in rows of IA_LD, the padding zero. */
MBS_ALWAYS_INLINE void rbi_to_ia(double *restrict M, const mbs_rbi *restrict I)
{
    const double *h = I->h, hx[9] = {0.0, -h[2], h[1], h[2], 0.0, -h[0], -h[1], h[0], 0.0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            M[IA_LD * i + j] = I->I[3 * i + j];
            M[IA_LD * i + j + 3] = hx[3 * i + j];
            M[IA_LD * (j + 3) + i] = hx[3 * i + j];
            M[IA_LD * (i + 3) + j + 3] = i == j ? I->m : 0.0;
        }
    for (int r = 0; r < 6; ++r) M[IA_LD * r + 6] = M[IA_LD * r + 7] = 0.0;
}

/* IA_b = I_b (all 36 entries in rows of 8, the last two zero; kept symmetric bit for bit)
   and pA_b = v x* I v - f_ext, f_ext moved to world axes about the subtree origin
   ([R n + o x R f; R f]), after the bodies' lanes left F = v x* I v; pA_b = F when gravity
   is the base's acceleration (g_base: f_ext is gravity alone). */
MBS_WIDE_LOOPS static void articulated_init(mbs_data *d, const mbs_derivs *w, int g_base)
{
    for (int b = 1; b < d->model->nbody; ++b) {
        const double *R = d->x_world[b].R, *o = w->o + 3 * b, *fe = d->f_ext + 6 * b;
        const double *F = w->F + 6 * b;
        double n[3], f[3], t[3], *pA = d->f + 6 * b;
        rbi_to_ia(w->IAw + IA_SIZE * b, &w->Ic[b]);
        if (g_base) {
            for (int e = 0; e < 6; ++e) pA[e] = F[e];
            continue;
        }
        m3_mulv(n, R, fe);
        m3_mulv(f, R, fe + 3);
        v3_cross(t, o, f);
        for (int e = 0; e < 3; ++e) pA[e] = F[e] - (n[e] + t[e]), pA[3 + e] = F[3 + e] - f[e];
    }
}

/* o = IA s for IA in rows of IA_LD. */
static inline void ia_mulv(double o[6], const double *IA, const double s[6])
{
    for (int r = 0; r < 6; ++r) o[r] = s6_dot(IA + IA_LD * r, s);
}

/* mbs_aba_joint_scale for IA in rows of IA_LD. */
static inline double ia_joint_scale(const double s[6], const double *IA)
{
    const double trA = IA[0] + IA[IA_LD + 1] + IA[2 * IA_LD + 2];
    const double trC = IA[3 * IA_LD + 3] + IA[4 * IA_LD + 4] + IA[5 * IA_LD + 5];
    return v3_dot(s, s) * trA + v3_dot(s + 3, s + 3) * trC;
}

/* ------------------------------------------------------------------ pass B */

/* a . b as a pairwise sum: three levels of adds, not five (the passes wait on it). */
static inline double dot6(const double *a, const double *b)
{
    return ((a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])) +
           (a[4] * b[4] + a[5] * b[5]);
}

/* o = M x of the symmetric M (its rows r, loaded) as a combination of the rows, summed
   pairwise (short chains: the parent waits on U). */
MBS_ALWAYS_INLINE void sym6_combine(const mbs_d8 r[6], const double *restrict x,
                                    double *restrict o)
{
    mbs_d8 a, b, c;
    D8_SCALE(a, x[0], r[0]), D8_AXPY(a, x[1], r[1]);
    D8_SCALE(b, x[2], r[2]), D8_AXPY(b, x[3], r[3]);
    D8_SCALE(c, x[4], r[4]), D8_AXPY(c, x[5], r[5]);
    D8_AXPY(a, 1.0, b); /* (a + b) + c, exactly */
    D8_AXPY(a, 1.0, c);
    D8_STORE(o, a);
}

/* U = M s and Y = M y of the symmetric M (rows of IA_LD = 8, zero padded: U, Y padded too),
   its rows loaded once. */
MBS_ALWAYS_INLINE void sym6_mulv2(const double *restrict M, const double *restrict s,
                                  const double *restrict y, double *restrict U,
                                  double *restrict Y)
{
    mbs_d8 r[6];
    for (int j = 0; j < 6; ++j) D8_LOAD(r[j], M + IA_LD * j);
    sym6_combine(r, s, U);
    sym6_combine(r, y, Y);
}

/* Mp += M - (U_r U_k) dinv over the rows of IA_LD (the same bits at (r, k) and (k, r): Mp
   stays symmetric; U's padding zero keeps Mp's), a row a vector. */
MBS_ALWAYS_INLINE void sym6_downdate_add(double *restrict Mp, const double *restrict M,
                                         const double *restrict U, double dinv)
{
    mbs_d8 u, t, m, p;
    D8_LOAD(u, U);
    for (int r = 0; r < 6; ++r) {
        D8_LOAD(m, M + IA_LD * r);
        D8_LOAD(p, Mp + IA_LD * r);
        D8_SCALE(t, U[r], u);
        D8_SCALE(t, dinv, t);
        D8_SUB(m, t);
        D8_AXPY(p, 1.0, m);
        D8_STORE(Mp + IA_LD * r, p);
    }
}

/* A one-dof joint (dof i, child b, parent p or the world): U, D, u; Uw = U, W = U / D and
   k = (u - U^T (c - a0)) / D (pass C: qdd = k - W^T a_p; a0 NULL when gravity is the base's
   acceleration, in a_p); into the parent IA - U U^T / D and pA + IA c + U (u - U^T c) / D. */
MBS_ALWAYS_INLINE int one_dof_articulated(mbs_data *d, mbs_derivs *w, int i, int b, int p,
                               const double *a0)
{
    const double *IA = w->IAw + IA_SIZE * b;
    double U[IA_LD], Ic[IA_LD], *W = w->Ww + 6 * i;
    const double *pA = d->f + 6 * b, *S = w->dof + MBS_DV_STRIDE * i, *c = w->cb + 6 * b;
    sym6_mulv2(IA, S, c, U, Ic);
    const double D = dot6(S, U);
    if (!(D > MBS_ABA_SINGULAR_EPS * ia_joint_scale(S, IA))) return mbs_aba_singular(d, b);
    const double dinv = 1.0 / D, u = d->tau[i] + d->gen_force[i] - dot6(S, pA);
    for (int e = 0; e < 6; ++e) w->Uw[6 * i + e] = U[e], W[e] = dinv * U[e];
    d->Dinv[6 * i] = dinv;
    d->u[i] = u;
    const double g = dinv * (u - dot6(U, c));
    w->kq[i] = a0 ? g + dot6(W, a0) : g;
    if (p == 0) return MBS_OK;
    double *restrict IAp = w->IAw + IA_SIZE * p, *restrict pAp = d->f + 6 * p;
    sym6_downdate_add(IAp, IA, U, dinv);
    for (int e = 0; e < 6; ++e) pAp[e] += pA[e] + Ic[e] + U[e] * g;
    return MBS_OK;
}

/* Into the parent p of a joint of n dofs (W = Dinv U known): IA - sum W_l U_l^T (its upper
   triangle, mirrored) and pA + IA c + sum W_l (u_l - U_l^T c). */
MBS_ALWAYS_INLINE void joint_propagate(mbs_data *d, const mbs_derivs *w,
                                       const mbs_joint_model *jm, int n, int p)
{
    const int i0 = jm->vadr, b = jm->child;
    const double *IA = w->IAw + IA_SIZE * b, *pA = d->f + 6 * b, *c = w->cb + 6 * b;
    const double *U = w->Uw + 6 * i0, *W = w->Ww + 6 * i0;
    double pa[6], r[6], *IAp = w->IAw + IA_SIZE * p;
    ia_mulv(pa, IA, c);
    for (int k = 0; k < n; ++k) r[k] = d->u[i0 + k] - s6_dot(U + 6 * k, c);
    for (int e = 0; e < 6; ++e) {
        pa[e] += pA[e];
        for (int l = 0; l < n; ++l) pa[e] += W[6 * l + e] * r[l];
        d->f[6 * p + e] += pa[e];
    }
    for (int e = 0; e < 6; ++e)
        for (int f = e; f < 6; ++f) {
            double x = IA[IA_LD * e + f];
            for (int l = 0; l < n; ++l) x -= W[6 * l + e] * U[6 * l + f];
            IAp[IA_LD * e + f] += x;
            if (f != e) IAp[IA_LD * f + e] += x;
        }
}

/* A joint of any dofs: U_k = IA S_k, D = S^T U inverted (Cholesky, aba.c), u; Uw = U,
   Ww = Dinv U; then into the parent. MBS_OK or MBS_ERR_SINGULAR. n = the joint's dofs. */
MBS_ALWAYS_INLINE int joint_articulated_n(mbs_data *d, mbs_derivs *w,
                                          const mbs_joint_model *jm, int n, int p)
{
    const int i0 = jm->vadr, b = jm->child;
    const double *IA = w->IAw + IA_SIZE * b;
    double *U = w->Uw + 6 * i0, *Dinv = d->Dinv + 6 * i0;
    double D[36] = {0}, scale[6] = {0}; /* (n = 0: unread) */
    const double *pA = d->f + 6 * b;
    for (int k = 0; k < n; ++k) {
        const double *S = w->dof + MBS_DV_STRIDE * (i0 + k);
        ia_mulv(U + 6 * k, IA, S);
        scale[k] = ia_joint_scale(S, IA);
        d->u[i0 + k] = d->tau[i0 + k] + d->gen_force[i0 + k] - s6_dot(S, pA);
    }
    for (int k = 0; k < n; ++k) /* D symmetric: upper triangle, mirrored */
        for (int l = k; l < n; ++l)
            D[n * k + l] = D[n * l + k] = s6_dot(w->dof + MBS_DV_STRIDE * (i0 + k), U + 6 * l);
    if (mbs_small_spd_inverse(n, D, scale, Dinv)) return mbs_aba_singular(d, b);
    for (int k = 0; k < n; ++k)
        for (int e = 0; e < 6; ++e) {
            double x = 0.0;
            for (int l = 0; l < n; ++l) x += Dinv[n * k + l] * U[6 * l + e];
            w->Ww[6 * (i0 + k) + e] = x;
        }
    if (p > 0) joint_propagate(d, w, jm, n, p);
    return MBS_OK;
}

/* joint_articulated_n, the free joint's 6 dofs as a constant (its loops unrolled). */
static int joint_articulated(mbs_data *d, mbs_derivs *w, const mbs_joint_model *jm, int p)
{
    const int n = jm->nv < 6 ? jm->nv : 6;
    return n == 6 ? joint_articulated_n(d, w, jm, 6, p) : joint_articulated_n(d, w, jm, n, p);
}

/* Pass B over the tree, children first (its 6-vector loops also compiled wide, derivs.h);
   a0 as one_dof_articulated's. */
MBS_WIDE_LOOPS static int pass_articulated(mbs_data *d, mbs_derivs *w, const double *a0)
{
    const mbs_model *m = d->model;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const int *e = w->wtree + 4 * t, b = e[0], p = e[1];
        const int st = e[2] == 1 ? one_dof_articulated(d, w, e[3], b, p, a0)
                                 : joint_articulated(d, w, &m->joints[m->tree[t]], p);
        if (st != MBS_OK) return st;
    }
    return MBS_OK;
}

/* ------------------------------------------------------------------ pass C */

/* F_b += I_b a_b: the body's force at its acceleration, now known. */
MBS_ALWAYS_INLINE void body_force(mbs_derivs *w, int b)
{
    double Ia[6];
    rbi_mulv(Ia, &w->Ic[b], w->acc + 6 * b);
    for (int e = 0; e < 6; ++e) w->F[6 * b + e] += Ia[e];
}

/* A one-dof joint: qdd = D^-1 (u - U^T (a_p + c - a0)) = k - W^T a_p (one short dot
   product after a_p, the chain's critical path), a = a_p + c + S qdd,
   dA = a_p x S + v_p x dV. */
MBS_ALWAYS_INLINE void one_dof_acceleration(mbs_data *d, mbs_derivs *w, int i, int b, const double *vp,
                                 const double *ap)
{
    double *D = w->dof + MBS_DV_STRIDE * i, *a = w->acc + 6 * b, t[6], x[6];
    const double *S = D, *c = w->cb + 6 * b;
    for (int e = 0; e < 6; ++e) t[e] = ap[e] + c[e];
    const double qdd = w->kq[i] - dot6(w->Ww + 6 * i, ap);
    for (int e = 0; e < 6; ++e) a[e] = t[e] + S[e] * qdd;
    mv_cross_m(D + MBS_DV_DA, ap, S);
    mv_cross_m(x, vp, D + MBS_DV_DV);
    for (int e = 0; e < 6; ++e) D[MBS_DV_DA + e] += x[e];
    d->qacc[i] = qdd;
}

/* A joint of any dofs: qdd = Dinv (u - U^T (a_p + c - a0)) (a0 NULL: gravity in a_p, the
   base's acceleration), then the acceleration half of the level machinery at that qdd from
   the parent's acceleration (dA and a; S, dV, E and Sdot are pass A's). */
static void joint_acceleration(mbs_data *d, mbs_derivs *w, const mbs_joint_model *jm,
                               const double *ap, const double *a0)
{
    const int n = jm->nv < 6 ? jm->nv : 6, i0 = jm->vadr, b = jm->child;
    const double *U = w->Uw + 6 * i0, *c = w->cb + 6 * b, *Dinv = d->Dinv + 6 * i0;
    double t[6], r[6], *a = w->acc + 6 * b;
    for (int e = 0; e < 6; ++e) t[e] = ap[e] + c[e];
    for (int k = 0; k < n; ++k) {
        const double u = a0 ? d->u[i0 + k] + s6_dot(U + 6 * k, a0) : d->u[i0 + k];
        r[k] = u - s6_dot(U + 6 * k, t);
    }
    for (int k = 0; k < n; ++k) {
        double x = 0.0;
        for (int l = 0; l < n; ++l) x += Dinv[n * k + l] * r[l];
        d->qacc[i0 + k] = x;
    }
    for (int e = 0; e < 6; ++e) a[e] = ap[e];
    mbs_derivs_joint_acceleration(d, w, jm, d->qacc, 1, a); /* S, dV, E from pass A */
}

/* Pass C over the tree, parents first, from the world's acceleration a0 (aba_a0 as
   joint_acceleration's a0). */
MBS_WIDE_LOOPS static void pass_accelerations(mbs_data *d, mbs_derivs *w, const double a0[6],
                                              const double *aba_a0)
{
    const mbs_model *m = d->model;
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    for (int t = 0; t < m->ntree; ++t) {
        const int *e = w->wtree + 4 * t, b = e[0], p = e[1];
        const double *vp = p > 0 ? w->vel + 6 * p : zero, *ap = p > 0 ? w->acc + 6 * p : a0;
        if (e[2] == 1) one_dof_acceleration(d, w, e[3], b, vp, ap);
        else joint_acceleration(d, w, &m->joints[m->tree[t]], ap, aba_a0);
        body_force(w, b);
    }
}

/* See derivs.h. */
int mbs_derivs_world_aba(mbs_data *d)
{
    mbs_derivs *w = d->derivs;
    w->has_K = 0;
    pass_velocities(d, w);
    mbs_derivs_bodies(d); /* I, P, B11, F = v x* I v, eight at a time (rnea_lanes.c) */
    const int g_base = w->joint_elements; /* f_ext holds gravity alone (see the top) */
    articulated_init(d, w, g_base);
    double a0[6];
    mbs_derivs_world_acceleration(d->model, a0);
    const int st = pass_articulated(d, w, g_base ? NULL : a0);
    if (st != MBS_OK) return st;
    pass_accelerations(d, w, a0, g_base ? NULL : a0);
    return MBS_OK;
}
