/* The per-body and per-dof terms of the inverse-dynamics derivatives (rnea_derivatives.c,
 * whose top comment gives the equations), eight bodies or dofs at a time: their inputs
 * stored in rows by the passes that compute them (w->brow, w->lane), computed by loops over
 * the lanes that the compiler runs on wide registers, the results stored back per body or
 * in kvec's rows. The recursions (velocities, accelerations, composites) stay sequential in
 * rnea_derivatives.c; what each body or dof computes from their results is independent.
 * Forces fixed in the world (host wrenches, point gravity) take the body-by-body code. */
#include "derivatives/derivs.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* ------------------------------------------------------------------ bodies */

/* The inputs of a body: its world rotation R, origin o (subtree root), inertia in body
   coordinates (m, h, J), velocity and acceleration (world). */
enum { B_R = 0, B_O = 9, B_M = 12, B_H = 13, B_J = 16, B_V = 25, B_A = 31, B_N = 37 };
_Static_assert(B_N == MBS_BODY_N, "w->brow holds B_N rows");
/* Its outputs: Ic in world axes (m, h, J: mbs_rbi's layout), F, P, B11. */
enum { C_M = 0, C_H = 1, C_J = 4, C_F = 13, C_P = 19, C_B = 22, C_N = 31 };

/* See derivs.h: column t of w->brow (stored long before the lanes read the rows). */
void mbs_derivs_body_inputs(const mbs_data *d, mbs_derivs *w, int t, int b, int with_acc)
{
    const mbs_rbi *I = &d->model->bodies[b].rbi;
    const double *R = d->x_world[b].R;
    const size_t ld = (size_t)w->ldb;
    double *G = w->brow + t;
#define ROW(r) G[ld * (size_t)(r)]
    for (int c = 0; c < 9; ++c) ROW(B_R + c) = R[c], ROW(B_J + c) = I->I[c];
    for (int c = 0; c < 3; ++c) ROW(B_O + c) = w->o[3 * b + c], ROW(B_H + c) = I->h[c];
    ROW(B_M) = I->m;
    for (int c = 0; c < 6; ++c)
        ROW(B_V + c) = w->vel[6 * b + c], ROW(B_A + c) = with_acc ? w->acc[6 * b + c] : 0.0;
#undef ROW
}

/* The world inertia of lane e, rbi_transform_rp's (RBDA eq. 2.66): y = R h and the upper
   triangle of R J R^T here, the shift to the subtree origin by rbi_shifted. */
MBS_ALWAYS_INLINE void lane_world_inertia(const double *restrict L, size_t ld, int e,
                                          mbs_rbi *I)
{
#define G(row) L[ld * (size_t)(row) + (size_t)e]
    double R[9], J[9], T[9], y[3], p[3], Ir[6], I6[6];
    static const int row[6] = {0, 0, 0, 1, 1, 2}, col[6] = {0, 1, 2, 1, 2, 2};
    for (int c = 0; c < 9; ++c) R[c] = G(B_R + c), J[c] = G(B_J + c);
    for (int c = 0; c < 3; ++c) p[c] = G(B_O + c), I->h[c] = G(B_H + c);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) /* T = J R^T */
            T[3 * i + j] = J[3 * i] * R[3 * j] + J[3 * i + 1] * R[3 * j + 1] + J[3 * i + 2] * R[3 * j + 2];
    m3_mulv(y, R, I->h);
    for (int k = 0; k < 6; ++k) {
        const int i = row[k], j = col[k];
        Ir[k] = R[3 * i] * T[j] + R[3 * i + 1] * T[3 + j] + R[3 * i + 2] * T[6 + j];
    }
    I->m = G(B_M);
#undef G
    rbi_shifted(I6, I->h, I->m, y, Ir, p);
    for (int k = 0; k < 6; ++k) I->I[3 * row[k] + col[k]] = I->I[3 * col[k] + row[k]] = I6[k];
}

/* The world inertia of lane e and, from it, F = I a + v x* I v, P and B11 (as
   rnea_derivatives.c's body_forward) into O. */
MBS_ALWAYS_INLINE void lane_body(const double *restrict L, size_t ld, int e,
                                 double (*restrict O)[8])
{
    mbs_rbi I;
    double v[6], a[6], hv[6], ia[6], vxh[6], B[9];
    lane_world_inertia(L, ld, e, &I);
    for (int c = 0; c < 6; ++c)
        v[c] = L[ld * (size_t)(B_V + c) + (size_t)e], a[c] = L[ld * (size_t)(B_A + c) + (size_t)e];
    rbi_mulv(hv, &I, v);
    rbi_mulv(ia, &I, a);
    mv_cross_f(vxh, v, hv);
    mbs_inertia_b11(&I, v, hv, B);
    O[C_M][e] = I.m;
    for (int c = 0; c < 3; ++c) O[C_H + c][e] = I.h[c], O[C_P + c][e] = hv[3 + c];
    for (int c = 0; c < 9; ++c) O[C_J + c][e] = I.I[c], O[C_B + c][e] = B[c];
    for (int c = 0; c < 6; ++c) O[C_F + c][e] = ia[c] + vxh[c];
}

/* The body terms of the 8 lanes from the rows at L (stride ld). */
MBS_WIDE_LOOPS static void lanes_bodies(const double *restrict L, size_t ld,
                                        double (*restrict O)[8])
{
    for (int e = 0; e < 8; ++e) lane_body(L, ld, e, O);
}

/* See derivs.h. */
void mbs_derivs_bodies(const mbs_data *d)
{
    mbs_derivs *w = d->derivs;
    const int nb = d->model->ntree;
    double O[C_N][8];
    for (int g = 0; g < nb; g += 8) {
        const int n = nb - g < 8 ? nb - g : 8;
        lanes_bodies(w->brow + g, (size_t)w->ldb, O);
        for (int e = 0; e < n; ++e) {
            const int b = w->wtree[4 * (g + e)]; /* the child of tree joint g + e */
            mbs_rbi *I = &w->Ic[b];
            I->m = O[C_M][e];
            for (int c = 0; c < 3; ++c) I->h[c] = O[C_H + c][e], w->P[3 * b + c] = O[C_P + c][e];
            for (int c = 0; c < 9; ++c) I->I[c] = O[C_J + c][e], w->B11[9 * b + c] = O[C_B + c][e];
            for (int c = 0; c < 6; ++c) w->F[6 * b + c] = O[C_F + c][e];
        }
    }
}

/* ------------------------------------------------------------------ one-dof joints */

/* The inputs of a dof of a one-dof joint, one row of 8 lanes each: its body's composites
   (Ic: m, h, J; B11; P; F) and its S, the angular part of dV, dA, E. */
enum { G_M = 0, G_H = 1, G_J = 4, G_B = 13, G_P = 22, G_F = 25, G_S = 31, G_DV = 37,
       G_DA = 40, G_E = 46, G_N = 52 };
_Static_assert(G_N == MBS_LANE_N, "w->lane holds G_N rows");
/* Its outputs: the vectors kept for the pairs (Y, Z, PF, Q: kvec's layout), then the
   diagonal entries S.P, S.Q, S.Y. */
enum { O_Y = 0, O_Z = 6, O_PF = 9, O_Q = 15, O_DQ = 21, O_DV = 22, O_M = 23, O_N = 24 };

/* See derivs.h: column dslot[i] of w->lane, when the backward pass reaches the joint (the
   rows are read eight columns at a time long after these stores). */
void mbs_derivs_lane_inputs(mbs_derivs *w, int i, int b)
{
    const mbs_rbi *I = &w->Ic[b];
    const double *D = w->dof + MBS_DV_STRIDE * i;
    const size_t ld = (size_t)w->lds;
    double *G = w->lane + w->dslot[i];
#define LANE(row) G[ld * (size_t)(row)]
    LANE(G_M) = I->m;
    for (int c = 0; c < 3; ++c) LANE(G_H + c) = I->h[c], LANE(G_P + c) = w->P[3 * b + c];
    for (int c = 0; c < 9; ++c) LANE(G_J + c) = I->I[c], LANE(G_B + c) = w->B11[9 * b + c];
    for (int c = 0; c < 6; ++c) {
        LANE(G_F + c) = w->F[6 * b + c], LANE(G_S + c) = D[c];
        LANE(G_DA + c) = D[MBS_DV_DA + c], LANE(G_E + c) = D[MBS_DV_E + c];
    }
    for (int c = 0; c < 3; ++c) LANE(G_DV + c) = D[MBS_DV_DV + c];
#undef LANE
}

/* The vectors of dof_vectors (rnea_derivatives.c) and the diagonal entries, lane e. */
MBS_ALWAYS_INLINE void lane_vectors(const double *restrict L, size_t ld, int e,
                                    double O[O_N][8])
{
#define G(row) L[ld * (size_t)(row) + (size_t)e]
    mbs_rbi I;
    double S[6], dA[6], E[6], dV[6] = {0, 0, 0, 0, 0, 0}, F[6], P[3], B[9], y[6], a[6], b[6];
    double sf[6], t[3], Z[3];
    I.m = G(G_M);
    for (int c = 0; c < 3; ++c) I.h[c] = G(G_H + c), P[c] = G(G_P + c), dV[c] = G(G_DV + c);
    for (int c = 0; c < 9; ++c) I.I[c] = G(G_J + c), B[c] = G(G_B + c);
    for (int c = 0; c < 6; ++c)
        S[c] = G(G_S + c), dA[c] = G(G_DA + c), E[c] = G(G_E + c), F[c] = G(G_F + c);
#undef G
    rbi_mulv(y, &I, S);
    m3_tmulv(Z, B, S); /* Z = B11^T S_ang + 2 P x S_lin */
    v3_cross(t, P, S + 3);
    v3_axpy(Z, 2.0, t);
    rbi_mulv(a, &I, dA); /* P = Ic dA + Bc dV */
    mbs_bc_mulv(B, P, dV, b);
    mv_cross_f(sf, S, F);
    double sp = 0.0, sq = 0.0, sy = 0.0;
    for (int c = 0; c < 6; ++c) {
        const double pc = a[c] + b[c];
        O[O_Y + c][e] = y[c], O[O_PF + c][e] = pc + sf[c];
        sp += S[c] * pc, sy += S[c] * y[c];
    }
    for (int c = 0; c < 3; ++c) O[O_Z + c][e] = Z[c];
    rbi_mulv(a, &I, E); /* Q = Bc S + Ic E */
    mbs_bc_mulv(B, P, S, b);
    for (int c = 0; c < 6; ++c) O[O_Q + c][e] = b[c] + a[c], sq += S[c] * (b[c] + a[c]);
    O[O_DQ][e] = sp, O[O_DV][e] = sq, O[O_M][e] = sy;
}

/* lane_vectors of the 8 lanes from the rows at L (stride ld; a loop the compiler runs on
   wide registers). */
MBS_WIDE_LOOPS static void lanes_vectors(const double *restrict L, size_t ld,
                                         double (*restrict O)[8])
{
    for (int e = 0; e < 8; ++e) lane_vectors(L, ld, e, O);
}

/* See derivs.h: the inputs from w->lane (mbs_derivs_lane_inputs), the vectors into kvec's
   rows (eight contiguous dofs: a vector per row). */
void mbs_derivs_one_dof(const mbs_data *d, double *dq, double *dv, int ld, double *M, int ldm)
{
    mbs_derivs *w = d->derivs;
    const size_t ldk = (size_t)w->ldkv;
    double O[O_N][8];
    for (int g = 0; g < w->none; g += 8) {
        const int n = w->none - g < 8 ? w->none - g : 8, *at = w->one + g;
        lanes_vectors(w->lane + g, (size_t)w->lds, O);
        if (n == 8 && at[7] - at[0] == 7) {
            for (int c = 0; c < MBS_KVEC; ++c) {
                mbs_d8 v;
                D8_LOAD(v, O[c]);
                D8_STORE(w->kvec + ldk * (size_t)c + (size_t)at[0], v);
            }
        } else {
            for (int e = 0; e < n; ++e)
                for (int c = 0; c < MBS_KVEC; ++c) w->kvec[ldk * (size_t)c + (size_t)at[e]] = O[c][e];
        }
        for (int e = 0; e < n; ++e) {
            const size_t i = (size_t)at[e];
            dq[i * (size_t)ld + i] += O[O_DQ][e];
            dv[i * (size_t)ld + i] += O[O_DV][e];
            if (M) M[i * (size_t)ldm + i] = O[O_M][e];
        }
    }
}
