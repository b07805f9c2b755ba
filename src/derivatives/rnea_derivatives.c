/* Analytical derivatives of the recursive Newton-Euler inverse dynamics of a tree:
 * dtau/dq (tangent coordinates), dtau/dv and dtau/dqacc = M, by one forward and one backward
 * pass over the joints, the recursive differentiation of ROBOTRAN (Docquier, Poncelet,
 * Fisette 2013, §3.5.2) in the spatial form of Carpentier and Mansard 2018 ("Analytical
 * Derivatives of Rigid Body Dynamics Algorithms", §III), extended to joints whose motion
 * subspace moves with their own coordinates through the joint levels (derivs.h).
 *
 * With f_i = I_i a_i + v_i x* I_i v_i - fe_i (world axes) and F_b the sum of f over the
 * subtree of body b, tau_k = S_k . F_b(k). For dof l moving body i:
 *     df_i/dq_l = S_l x* f_i + I_i dA_l + B_i dV_l + K_i S_l,
 *     df_i/dv_l = B_i S_l + I_i E_l,
 * B_i x = v_i x* I_i x - I_i (v_i x x) + x x* (I_i v_i), and K_i S_l = S_l x* fe_i - dfe_i/dq_l
 * for the forces fixed in the world (host wrenches, point gravity; uniform gravity enters as
 * the world's acceleration -g). The S_l x* f term cancels against dS_k/dq_l . F when l
 * precedes k, which leaves for the pair (k, l) with b the deeper of their bodies:
 *     dtau_k/dq_l = S_k . (Ic_b dA_l + Bc_b dV_l + Kc_b S_l) [+ S_k . (S_l x* F_b) when k
 *                   precedes l strictly],
 *     dtau_k/dv_l = S_k . (Bc_b S_l + Ic_b E_l),   M_kl = S_k . Ic_b S_l,
 * composites (c) summed over the subtree. B's right half is zero and its lower-left block is
 * -2 [P]x with P the linear momentum, so a body keeps the 3 x 3 block B11 and P.
 * This file holds the recursions (velocities, accelerations, composites) and the
 * body-by-body terms of models with forces fixed in the world; without them the bodies' and
 * one-dof joints' terms go eight at a time (rnea_lanes.c) and the pairs with ancestors eight
 * ancestors at a time (rnea_pairs.c). */
#include "ustates/ustates.h"
#include "derivatives/derivs.h"
#include "events/events.h"
/* -O3 (GCC) vectorizes the 6-vector loops of both passes. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* ------------------------------------------------------------------ forward pass */

/* See derivs.h: -g for a uniform field (the gravity of every body at once), 0 otherwise
   (point gravity is a force of each body). */
void mbs_derivs_world_acceleration(const mbs_model *m, double a0[6])
{
    for (int e = 0; e < 6; ++e) a0[e] = 0.0;
    if (m->gravity_kind == MBS_GRAVITY_UNIFORM) v3_scale(a0 + 3, m->gravity, -1.0);
}

/* See derivs.h: the origin (mbs_derivs_origin), the world rotation. */
void mbs_derivs_subtree_pose(const mbs_data *d, mbs_derivs *w, int b, int p, mbs_pose *X)
{
    mbs_derivs_origin(d, w, b, p);
    for (int e = 0; e < 9; ++e) X->R[e] = d->x_world[b].R[e];
    v3_copy(X->p, w->o + 3 * b);
}

/* The level [k, e) of the dofs from i: its end dof (levels of joint.h). */
static int level_end(const mbs_joint_model *jm, int k)
{
    int e = k + 1;
    while (e < jm->nv && jm->ops->level[e] == jm->ops->level[k]) ++e;
    return e;
}

/* The velocity half of the dofs [k, e) of one level: with u the velocity of the frame
   before it, Sdot = w x S (w the velocity after it; into sd), dV = u x S, E = dV + Sdot and,
   as dA's second term, u x dV; then u = w. */
static void level_velocity(const mbs_data *d, double *dof, double *sd, int k, int e,
                           double u[6])
{
    double wv[6];
    for (int c = 0; c < 6; ++c) wv[c] = u[c];
    for (int i = k; i < e; ++i)
        for (int c = 0; c < 6; ++c) wv[c] += dof[MBS_DV_STRIDE * i + c] * d->v[i];
    for (int i = k; i < e; ++i) {
        double *D = dof + MBS_DV_STRIDE * i, *Sd = sd + 6 * i;
        mv_cross_m(D + MBS_DV_DV, u, D);
        if (e - k == 1) /* w x S = u x S + qd S x S = dV: one dof at this level */
            for (int c = 0; c < 6; ++c) Sd[c] = D[MBS_DV_DV + c];
        else
            mv_cross_m(Sd, wv, D);
        mv_cross_m(D + MBS_DV_DA, u, D + MBS_DV_DV);
        for (int c = 0; c < 6; ++c) D[MBS_DV_E + c] = D[MBS_DV_DV + c] + Sd[c];
    }
    for (int c = 0; c < 6; ++c) u[c] = wv[c];
}

/* The acceleration half, after level_velocity: with al the acceleration of the frame before
   the level, dA = al x S + u x dV (with_da; else dA is left as it is) and al += S qdd +
   Sdot qd (qacc NULL: qdd = 0). */
static void level_acceleration(const mbs_data *d, double *dof, const double *sd, int k,
                               int e, const double *qacc, int with_da, double al[6])
{
    double dal[6] = {0, 0, 0, 0, 0, 0}, t[6];
    for (int i = k; i < e; ++i) {
        double *D = dof + MBS_DV_STRIDE * i;
        const double *Sd = sd + 6 * i;
        if (with_da) {
            mv_cross_m(t, al, D);
            for (int c = 0; c < 6; ++c) D[MBS_DV_DA + c] = t[c] + D[MBS_DV_DA + c];
        }
        for (int c = 0; c < 6; ++c) dal[c] += (qacc ? D[c] * qacc[i] : 0.0) + Sd[c] * d->v[i];
    }
    for (int c = 0; c < 6; ++c) al[c] += dal[c];
}

/* See derivs.h. */
void mbs_derivs_joint_velocity(const mbs_data *d, mbs_derivs *w, const mbs_joint_model *jm,
                               const mbs_pose *X, double u[6])
{
    const int n = jm->nv, v0 = jm->vadr;
    for (int k = 0; k < n; ++k)
        xm_apply_inv(w->dof + MBS_DV_STRIDE * (v0 + k), X, d->S + 6 * (v0 + k));
    for (int k = 0, e; k < n; k = e) {
        e = level_end(jm, k);
        level_velocity(d, w->dof, w->sd, v0 + k, v0 + e, u);
    }
}

/* See derivs.h. */
void mbs_derivs_joint_acceleration(const mbs_data *d, mbs_derivs *w,
                                   const mbs_joint_model *jm, const double *qacc, int with_da,
                                   double al[6])
{
    const int n = jm->nv, v0 = jm->vadr;
    for (int k = 0, e; k < n; k = e) {
        e = level_end(jm, k);
        level_acceleration(d, w->dof, w->sd, v0 + k, v0 + e, qacc, with_da, al);
    }
}

/* K -= [a]x [b]x = b a^T - (a . b) I in the 3 x 3 block at K (row stride 6). */
static void add_neg_cross_cross(double *K, const double a[3], const double b[3])
{
    const double ab = v3_dot(a, b);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) K[6 * i + j] -= b[i] * a[j] - (i == j ? ab : 0.0);
}

/* K += [-[x]x] in the 3 x 3 block at K (row stride 6). */
static void add_neg_cross(double *K, const double x[3])
{
    K[1] += x[2], K[2] -= x[1];
    K[6] -= x[2], K[8] += x[0];
    K[12] += x[1], K[13] -= x[0];
}

/* A host input wrench of body b (world force F at point p, torque n): fe += [n + p x F; F],
   K += [[-[p]x[F]x - [n]x, 0]; [-[F]x, 0]] (the force keeps its world direction). */
static void host_wrench(const mbs_data *d, int b, const mbs_pose *X, double fe[6],
                        double K[36])
{
    const mbs_wrench_input *in = &d->wrench_in[b];
    double p[3], t[3];
    pose_apply(p, X, in->point);
    v3_cross(t, p, in->force);
    for (int e = 0; e < 3; ++e) fe[e] += in->torque[e] + t[e], fe[3 + e] += in->force[e];
    add_neg_cross_cross(K, p, in->force);
    add_neg_cross(K, in->torque);
    add_neg_cross(K + 18, in->force);
}

/* Point gravity on body b: m g(c) at its com c; fe += [c x m g; m g] and K += [[c]x Phi;
   Phi] with Phi = m [-[g]x + G [c]x, -G] (G = dg/dx, the gravity gradient; row i of
   G [c]x is G_i x c). */
static void point_gravity(const mbs_data *d, int b, const mbs_pose *X, double fe[6],
                          double K[36])
{
    const mbs_model *m = d->model;
    const mbs_body_model *body = &m->bodies[b];
    double ca[3], c[3], r[3], g[3], G[9], Phi[18];
    pose_apply(ca, &d->x_world[b], body->com);
    pose_apply(c, X, body->com);
    v3_sub(r, ca, m->gravity_center);
    const double r2 = v3_dot(r, r), mass = body->mass;
    if (!(r2 > 0.0)) return; /* a body at the centre feels nothing (gravity.c) */
    const double k = -m->gravity_mu / (r2 * sqrt(r2));
    v3_scale(g, r, k);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) G[3 * i + j] = k * ((i == j) - 3.0 * r[i] * r[j] / r2);
    for (int i = 0; i < 3; ++i) {
        double gc[3];
        v3_cross(gc, G + 3 * i, c);
        for (int j = 0; j < 3; ++j)
            Phi[6 * i + j] = mass * gc[j], Phi[6 * i + 3 + j] = -mass * G[3 * i + j];
    }
    double mg[3], t[3];
    v3_scale(mg, g, mass);
    add_neg_cross(Phi, mg); /* m (-[g]x) */
    v3_cross(t, c, mg);
    for (int e = 0; e < 3; ++e) fe[e] += t[e], fe[3 + e] += mg[e];
    for (int j = 0; j < 6; ++j) { /* K += [[c]x Phi; Phi] column by column */
        const double col[3] = {Phi[j], Phi[6 + j], Phi[12 + j]};
        double cx[3];
        v3_cross(cx, c, col);
        for (int i = 0; i < 3; ++i) K[6 * i + j] += cx[i], K[6 * (3 + i) + j] += col[i];
    }
}

/* The forces of body b that stay fixed in the world while it moves (host wrench, point
   gravity) into fe, and their stiffness into K (both zeroed first). */
static void world_fixed_forces(const mbs_data *d, int b, const mbs_pose *X, double fe[6],
                               double K[36])
{
    for (int e = 0; e < 36; ++e) K[e] = 0.0;
    if (d->wrench_in[b].set) host_wrench(d, b, X, fe, K);
    if (d->model->gravity_kind == MBS_GRAVITY_POINT && d->model->bodies[b].mass != 0.0)
        point_gravity(d, b, X, fe, K);
}

/* See derivs.h. */
int mbs_derivs_world_fixed(const mbs_data *d)
{
    if (d->model->gravity_kind == MBS_GRAVITY_POINT) return 1;
    for (int b = 1; b < d->model->nbody; ++b)
        if (d->wrench_in[b].set) return 1;
    return 0;
}

/* Body b's own terms (the composites start from them): I in world axes, its momentum,
   F = I a + v x* I v - fe, B11, P and K. */
static void body_forward(const mbs_data *d, mbs_derivs *w, int b, const mbs_pose *X)
{
    mbs_rbi *I = &w->Ic[b];
    rbi_transform_to_parent(I, X, &d->model->bodies[b].rbi);
    const double *v = w->vel + 6 * b, *a = w->acc + 6 * b;
    double h[6], Ia[6], vxh[6], fe[6] = {0, 0, 0, 0, 0, 0};
    rbi_mulv(h, I, v);
    rbi_mulv(Ia, I, a);
    mv_cross_f(vxh, v, h);
    if (w->has_K) world_fixed_forces(d, b, X, fe, w->K + 36 * b);
    double *F = w->F + 6 * b;
    for (int e = 0; e < 6; ++e) F[e] = Ia[e] + vxh[e] - fe[e];
    v3_copy(w->P + 3 * b, h + 3);
    mbs_inertia_b11(I, v, h, w->B11 + 9 * b);
}

/* level_forward and the child's velocity u and acceleration al for a joint of one dof i
   (body b, parent velocity up and acceleration ap): S x S = 0 leaves Sdot = dV, E = 2 dV. */
static void one_dof_forward(const mbs_data *d, mbs_derivs *w, int i, int b, const double *up,
                            const double *ap, double qdd)
{
    const double qd = d->v[i];
    double *D = w->dof + MBS_DV_STRIDE * i, *u = w->vel + 6 * b, *al = w->acc + 6 * b, t[6];
    double *S = D, *dV = D + MBS_DV_DV, *dA = D + MBS_DV_DA, *E = D + MBS_DV_E;
    mbs_derivs_world_s(d, w, i, b, S);
    mv_cross_m(dV, up, S);
    mv_cross_m(dA, ap, S);
    mv_cross_m(t, up, dV);
    for (int c = 0; c < 6; ++c) {
        dA[c] += t[c];
        E[c] = dV[c] + dV[c];
        u[c] = up[c] + S[c] * qd;
        al[c] = ap[c] + (S[c] * qdd + dV[c] * qd);
    }
}

/* Forward pass over the tree, parents first. */
static void derivs_forward(const mbs_data *d, mbs_derivs *w, const double *qacc)
{
    const mbs_model *m = d->model;
    double a0[6];
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    mbs_derivs_world_acceleration(m, a0);
    w->has_K = mbs_derivs_world_fixed(d);
    for (int t = 0; t < m->ntree; ++t) {
        const int *j = w->wtree + 4 * t, b = j[0], p = j[1]; /* child, parent, nv, vadr */
        if (j[2] == 1 && !w->has_K) {
            mbs_derivs_origin(d, w, b, p);
            one_dof_forward(d, w, j[3], b, p > 0 ? w->vel + 6 * p : zero,
                            p > 0 ? w->acc + 6 * p : a0, qacc[j[3]]);
            mbs_derivs_body_inputs(d, w, t, b, 1);
            continue;
        }
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        mbs_pose X;
        mbs_derivs_subtree_pose(d, w, b, p, &X);
        double *u = w->vel + 6 * b, *al = w->acc + 6 * b;
        for (int e = 0; e < 6; ++e)
            u[e] = p > 0 ? w->vel[6 * p + e] : 0.0, al[e] = p > 0 ? w->acc[6 * p + e] : a0[e];
        mbs_derivs_joint_velocity(d, w, jm, &X, u);
        mbs_derivs_joint_acceleration(d, w, jm, qacc, 1, al);
        if (w->has_K) body_forward(d, w, b, &X);
        else mbs_derivs_body_inputs(d, w, t, b, 1);
    }
    if (!w->has_K) mbs_derivs_bodies(d); /* eight at a time (rnea_lanes.c) */
}

/* ------------------------------------------------------------------ backward pass */

/* The vectors of one dof k of a joint into body b (composites complete), see the top. */
typedef struct dof_vecs {
    double Y[6];  /* Ic S */
    double Z[3];  /* angular part of Bc^T S (its linear part is zero) */
    double W[6];  /* Kc^T S */
    double P[6];  /* Ic dA + Bc dV + Kc S */
    double SF[6]; /* S x* F */
    double Q[6];  /* Bc S + Ic E */
} dof_vecs;

/* Bc x for the composite of body b: [B11 x_ang; -2 P x x_ang]. */
static void bc_mulv(const mbs_derivs *w, int b, const double x[6], double o[6])
{
    mbs_bc_mulv(w->B11 + 9 * b, w->P + 3 * b, x, o);
}

/* The vectors of dof i (its [S | dV | dA | E] at D) against the composites of body b. */
static void dof_vectors(const mbs_derivs *w, int b, const double *D, dof_vecs *o)
{
    const mbs_rbi *I = &w->Ic[b];
    const double *S = D, *B = w->B11 + 9 * b, *P = w->P + 3 * b, *K = w->K + 36 * b;
    double t[6], u[6];
    rbi_mulv(o->Y, I, S);
    m3_tmulv(o->Z, B, S);
    v3_cross(t, P, S + 3);
    v3_axpy(o->Z, 2.0, t);
    rbi_mulv(t, I, D + MBS_DV_DA);
    bc_mulv(w, b, D + MBS_DV_DV, u);
    for (int e = 0; e < 6; ++e) o->P[e] = t[e] + u[e];
    for (int e = 0; e < 6; ++e) o->W[e] = 0.0;
    if (w->has_K) {
        for (int r = 0; r < 6; ++r)
            for (int e = 0; e < 6; ++e) {
                o->W[e] += K[6 * r + e] * S[r];
                o->P[r] += K[6 * r + e] * S[e];
            }
    }
    mv_cross_f(o->SF, S, w->F + 6 * b);
    rbi_mulv(t, I, D + MBS_DV_E);
    bc_mulv(w, b, S, u);
    for (int e = 0; e < 6; ++e) o->Q[e] = u[e] + t[e];
}

/* Output pointers with their row stride (each nullable). */
typedef struct deriv_out {
    double *dq, *dv, *M;
    int ld, ldm; /* of dq and dv; of M */
} deriv_out;

/* Entries of the dof pairs within one joint (k row, l column). */
static void same_joint_entries(const mbs_derivs *w, const mbs_joint_model *jm,
                               const dof_vecs *vec, const deriv_out *o)
{
    const unsigned char *level = jm->ops->level;
    for (int k = 0; k < jm->nv; ++k) {
        const int ik = jm->vadr + k;
        const double *Sk = w->dof + MBS_DV_STRIDE * ik;
        for (int l = 0; l < jm->nv; ++l) {
            const size_t at = (size_t)ik * (size_t)o->ld + (size_t)(jm->vadr + l);
            if (o->M)
                o->M[(size_t)ik * (size_t)o->ldm + (size_t)(jm->vadr + l)] = s6_dot(Sk, vec[l].Y);
            if (jm->vadr + l < w->ndead) continue; /* a column left out (derivs.h) */
            if (o->dq)
                o->dq[at] += s6_dot(Sk, vec[l].P) + (level[l] > level[k] ? s6_dot(Sk, vec[l].SF) : 0.0);
            if (o->dv) o->dv[at] += s6_dot(Sk, vec[l].Q);
        }
    }
}

/* Entries of the pairs of a dof ik of the joint (vectors v) with every ancestor dof l. */
static void ancestor_entries(const mbs_model *m, const mbs_derivs *w, int ik,
                             const dof_vecs *v, const deriv_out *o)
{
    const size_t ld = (size_t)o->ld, ldm = (size_t)o->ldm, k = (size_t)ik;
    double PF[6];
    for (int e = 0; e < 6; ++e) PF[e] = v->P[e] + v->SF[e];
    for (int l = m->dof_parent[m->joints[m->dof_joint[ik]].vadr]; l >= 0; l = m->dof_parent[l]) {
        const double *D = w->dof + MBS_DV_STRIDE * l, *S = D;
        const size_t L = (size_t)l;
        if (o->dq) {
            o->dq[k * ld + L] += s6_dot(D + MBS_DV_DA, v->Y) + v3_dot(D + MBS_DV_DV, v->Z) +
                                 (w->has_K ? s6_dot(S, v->W) : 0.0);
            o->dq[L * ld + k] += s6_dot(S, PF);
        }
        if (o->dv) {
            o->dv[k * ld + L] += v3_dot(S, v->Z) + s6_dot(D + MBS_DV_E, v->Y);
            o->dv[L * ld + k] += s6_dot(S, v->Q);
        }
        if (o->M) o->M[k * ldm + L] = o->M[L * ldm + k] = s6_dot(S, v->Y);
    }
}

/* Ic_p += Ic_b: 13 contiguous doubles (m, h, I). */
static void rbi_accumulate(mbs_rbi *restrict o, const mbs_rbi *restrict a)
{
    o->m += a->m;
    for (int e = 0; e < 3; ++e) o->h[e] += a->h[e];
    for (int e = 0; e < 9; ++e) o->I[e] += a->I[e];
}

/* The composites of body b into its parent p: same frame, plain sums. */
static void composite_into_parent(mbs_derivs *w, int b, int p)
{
    rbi_accumulate(&w->Ic[p], &w->Ic[b]);
    for (int e = 0; e < 9; ++e) w->B11[9 * p + e] += w->B11[9 * b + e];
    for (int e = 0; e < 3; ++e) w->P[3 * p + e] += w->P[3 * b + e];
    for (int e = 0; e < 6; ++e) w->F[6 * p + e] += w->F[6 * b + e];
    if (w->has_K)
        for (int e = 0; e < 36; ++e) w->K[36 * p + e] += w->K[36 * b + e];
}

/* The vectors of dof i that its pairs with ancestors read (rnea_pairs.c): Y, Z, P + SF, Q. */
static void keep_vectors(mbs_derivs *w, int i, const dof_vecs *v)
{
    double *o = w->kvec + i;
    const size_t ld = (size_t)w->ldkv;
    for (int e = 0; e < 6; ++e) {
        o[ld * (size_t)e] = v->Y[e], o[ld * (size_t)(9 + e)] = v->P[e] + v->SF[e];
        o[ld * (size_t)(15 + e)] = v->Q[e];
    }
    for (int e = 0; e < 3; ++e) o[ld * (size_t)(6 + e)] = v->Z[e];
}

/* Backward pass over the tree, children first: the entries of every joint's dofs (its pairs
   with ancestors here, or, lanes, after the pass by rnea_pairs.c from the vectors kept),
   then its composites into the parent. */
static void derivs_backward(const mbs_data *d, mbs_derivs *w, const deriv_out *o, int lanes)
{
    const mbs_model *m = d->model;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const int *j = w->wtree + 4 * t, b = j[0], p = j[1]; /* child, parent, nv, vadr */
        if (j[2] == 1 && lanes) { /* its vectors after the pass (rnea_lanes.c) */
            mbs_derivs_lane_inputs(w, j[3], b);
            if (p > 0) composite_into_parent(w, b, p);
            continue;
        }
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        dof_vecs vec[6];
        for (int k = 0; k < jm->nv; ++k)
            dof_vectors(w, b, w->dof + MBS_DV_STRIDE * (jm->vadr + k), &vec[k]);
        if (jm->nv > 0) same_joint_entries(w, jm, vec, o);
        for (int k = 0; k < jm->nv; ++k) {
            if (lanes) keep_vectors(w, jm->vadr + k, &vec[k]);
            else ancestor_entries(m, w, jm->vadr + k, &vec[k], o);
        }
        if (p > 0) composite_into_parent(w, b, p);
    }
}

/* See derivs.h. */
void mbs_derivs_rnea(mbs_data *d, const double *qacc, double *dq, double *dv, int ld,
                     double *M, int ldm)
{
    mbs_derivs *w = d->derivs;
    const deriv_out o = {dq, dv, M, ld, ldm};
    if (qacc) derivs_forward(d, w, qacc); /* NULL: mbs_derivs_world_aba did it */
    const int lanes = dq && dv && !w->has_K; /* the common case: no term of K */
    derivs_backward(d, w, &o, lanes);
    if (lanes) {
        mbs_derivs_one_dof(d, dq, dv, ld, M, ldm);
        mbs_derivs_pairs(d, dq, dv, ld, M, ldm);
    }
}

/* ------------------------------------------------------------------ public entry */

/* Zero the n x cols block at A (row stride ld; one call when the rows are contiguous);
   nothing for NULL. */
static void zero_block(double *A, int n, int cols, int ld)
{
    if (!A) return;
    if (cols == ld) {
        memset(A, 0, sizeof(double) * (size_t)n * (size_t)ld);
        return;
    }
    for (int i = 0; i < n; ++i) memset(A + (size_t)i * (size_t)ld, 0, sizeof(double) * (size_t)cols);
}

/* See derivs.h: 0 x is 0 for a finite x and NaN otherwise, summed in two lanes per row. */
int mbs_derivs_block_finite(mbs_data *d, const double *A, int n, int ld, const char *call,
                            const char *what)
{
    if (!A) return MBS_OK;
    const mbs_d2 zero = d2_splat(0.0);
    for (int i = 0; i < n; ++i) {
        const double *restrict r = A + (size_t)i * (size_t)ld;
        mbs_d2 z0 = zero, z1 = zero;
        int j = 0;
        for (; j + 4 <= n; j += 4) {
            z0 = d2_add(z0, d2_mul(zero, d2_set(r[j], r[j + 1])));
            z1 = d2_add(z1, d2_mul(zero, d2_set(r[j + 2], r[j + 3])));
        }
        for (; j < n; ++j) z0 = d2_add(z0, d2_mul(zero, d2_splat(r[j])));
        z0 = d2_add(z0, z1);
        if (d2_lo(z0) + d2_hi(z0) != 0.0)
            return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s: %s is not finite (row %d)", call,
                                 what, i);
    }
    return MBS_OK;
}

/* MBS_ERR_STATE naming call and the part of the model the analytic derivatives do not cover
   (cut joints only when loops is 0), else MBS_OK. */
static int covered(mbs_data *d, const char *call, int loops)
{
    const mbs_model *m = d->model;
    const char *what = m->nuc > 0 ? "user constraints or joint couplings (their rows' own "
                                     "derivatives are not taken)"
                       : m->ncon > 0 && !loops ? "cut joints (closed loops)"
                       : m->ncrow > 0  ? "inertial couplings (rotors or point masses on lines)"
                       : m->nnode > 0  ? "nodes (force elements in series)"
                       : mbs_nqrow(m) > 0 ? "coordinate rows (prescribed motion, friction "
                                            "locks or stops)"
                                          : NULL;
    if (!what) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_STATE, "%s: the model has %s; the analytic derivatives "
                         "are those of trees of rigid bodies%s (mbs_linearize differentiates "
                         "such models numerically)", call, what,
                         loops ? " and of their closed loops" : "");
}

/* See derivs.h. */
int mbs_derivs_trees_only(mbs_data *d, const char *call) { return covered(d, call, 0); }

/* See derivs.h. */
int mbs_derivs_loops_only(mbs_data *d, const char *call) { return covered(d, call, 1); }

/* See derivs.h. */
int mbs_derivs_eval(mbs_data *d, const double *qacc, double *dq, double *dv, int ld, double *M,
                    int ldm, const char *call)
{
    const int nv = d->model->nv;
    zero_block(dq, nv, nv, ld);
    zero_block(dv, nv, nv, ld);
    zero_block(M, nv, nv, ldm);
    mbs_derivs_rnea(d, qacc, dq, dv, ld, M, ldm);
    return mbs_derivs_elements(d, dq, dv, ld);
}

/* See derivs.h. */
int mbs_derivs_tree(mbs_data *d, const double *qacc, double *dq, double *dv, int ld,
                    double *M, int ldm, const char *call)
{
    const int nv = d->model->nv;
    int st = mbs_derivs_trees_only(d, call);
    if (st == MBS_OK) st = mbs_check_state(d, 1, 0);
    if (st != MBS_OK) return st;
    for (int i = 0; i < nv; ++i)
        if (!isfinite(qacc[i]))
            return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s: qacc[%d] is not finite", call, i);
    mbs_kinematics(d);
    st = mbs_derivs_eval(d, qacc, dq, dv, ld, M, ldm, call);
    if (st == MBS_OK) st = mbs_derivs_block_finite(d, dq, nv, ld, call, "dtau/dq");
    if (st == MBS_OK) st = mbs_derivs_block_finite(d, dv, nv, ld, call, "dtau/dv");
    if (st == MBS_OK) st = mbs_derivs_block_finite(d, M, nv, ldm, call, "dtau/dqacc");
    return st;
}

int mbs_inverse_dynamics_derivatives(mbs_data *d, const double *qacc, double *dtau_dq,
                                     double *dtau_dv, double *dtau_dqacc)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_inverse_dynamics_derivatives");
    if (nested != MBS_OK) return nested;
    if (!qacc)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "inverse_dynamics_derivatives: NULL qacc");
    if (!dtau_dq && !dtau_dv && !dtau_dqacc)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "inverse_dynamics_derivatives: every output is "
                             "NULL (nothing to compute)");
    const int nv = d->model->nv;
    return mbs_derivs_tree(d, qacc, dtau_dq, dtau_dv, nv, dtau_dqacc, nv,
                           "inverse_dynamics_derivatives");
}
