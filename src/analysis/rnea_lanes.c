/* The per-body and per-dof terms of the inverse-dynamics derivatives (rnea_derivatives.c,
 * whose top comment gives the equations), eight bodies or dofs at a time: gathered into rows
 * of 8 lanes, computed by loops over the lanes that the compiler runs on wide registers, and
 * scattered back. The recursions (velocities, accelerations, composites) stay sequential in
 * rnea_derivatives.c; what each body or dof computes from their results is independent.
 * Forces fixed in the world (host wrenches, point gravity) take the body-by-body code. */
#include "analysis/derivs.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* o = a x b, scalars of one lane. */
#define LANE_CROSS(o, a, b)                                                                  \
    do {                                                                                     \
        (o)[0] = (a)[1] * (b)[2] - (a)[2] * (b)[1];                                          \
        (o)[1] = (a)[2] * (b)[0] - (a)[0] * (b)[2];                                          \
        (o)[2] = (a)[0] * (b)[1] - (a)[1] * (b)[0];                                          \
    } while (0)

/* ------------------------------------------------------------------ bodies */

/* The inputs of a body: its world rotation R, origin o (subtree root), inertia in body
   coordinates (m, h, J), velocity and acceleration (world). */
enum { B_R = 0, B_O = 9, B_M = 12, B_H = 13, B_J = 16, B_V = 25, B_A = 31, B_N = 37 };
/* Its outputs: Ic in world axes (m, h, J: mbs_rbi's layout), F, P, B11. */
enum { C_M = 0, C_H = 1, C_J = 4, C_F = 13, C_P = 19, C_B = 22, C_N = 31 };

/* Bodies at[0 .. n) (the last repeated to 8) gathered into G. */
static void gather_bodies(const mbs_data *d, const int *at, int n, double G[B_N][8])
{
    const mbs_derivs *w = d->derivs;
    for (int e = 0; e < 8; ++e) {
        const int b = at[e < n ? e : n - 1];
        const mbs_rbi *I = &d->model->bodies[b].rbi;
        for (int c = 0; c < 9; ++c) G[B_R + c][e] = d->x_world[b].R[c], G[B_J + c][e] = I->I[c];
        for (int c = 0; c < 3; ++c) G[B_O + c][e] = w->o[3 * b + c], G[B_H + c][e] = I->h[c];
        G[B_M][e] = I->m;
        for (int c = 0; c < 6; ++c)
            G[B_V + c][e] = w->vel[6 * b + c], G[B_A + c][e] = w->acc[6 * b + c];
    }
}

/* The world inertia of lane e (RBDA eq. 2.66, as rbi_transform_rp: h_A = R h + m p,
   J_A = R J R^T - [p]x[y]x - [h_A]x[p]x with y = R h) into O's Ic rows. */
MBS_ALWAYS_INLINE void lane_world_inertia(const double (*restrict G)[8], int e,
                                          double (*restrict O)[8])
{
    double R[9], J[9], T[9], y[3], p[3];
    const double m = G[B_M][e];
    for (int c = 0; c < 9; ++c) R[c] = G[B_R + c][e], J[c] = G[B_J + c][e];
    for (int c = 0; c < 3; ++c) p[c] = G[B_O + c][e];
    for (int i = 0; i < 3; ++i) {
        y[i] = R[3 * i] * G[B_H][e] + R[3 * i + 1] * G[B_H + 1][e] + R[3 * i + 2] * G[B_H + 2][e];
        for (int j = 0; j < 3; ++j) /* T = J R^T */
            T[3 * i + j] = J[3 * i] * R[3 * j] + J[3 * i + 1] * R[3 * j + 1] + J[3 * i + 2] * R[3 * j + 2];
    }
    const double py = p[0] * y[0] + p[1] * y[1] + p[2] * y[2];
    const double diag = 2.0 * py + m * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    static const int row[6] = {0, 0, 0, 1, 1, 2}, col[6] = {0, 1, 2, 1, 2, 2};
    for (int k = 0; k < 6; ++k) { /* the upper triangle, mirrored */
        const int i = row[k], j = col[k];
        double s = R[3 * i] * T[j] + R[3 * i + 1] * T[3 + j] + R[3 * i + 2] * T[6 + j];
        s = s - (y[i] * p[j] + p[i] * y[j]) - m * p[i] * p[j];
        s += i == j ? diag : 0.0;
        O[C_J + 3 * i + j][e] = O[C_J + 3 * j + i][e] = s;
    }
    O[C_M][e] = m;
    for (int i = 0; i < 3; ++i) O[C_H + i][e] = y[i] + m * p[i];
}

/* F = I a + v x* I v, P and B11 (rnea_derivatives.c's inertia_b11) of lane e from its
   world inertia in O. */
MBS_ALWAYS_INLINE void lane_body_forces(const double (*restrict G)[8], int e,
                                        double (*restrict O)[8])
{
    double J[9], h[3], v[6], a[6], hv[6], ia[6], t[3], r[3], A[9];
    const double m = O[C_M][e];
    for (int c = 0; c < 9; ++c) J[c] = O[C_J + c][e];
    for (int c = 0; c < 3; ++c) h[c] = O[C_H + c][e];
    for (int c = 0; c < 6; ++c) v[c] = G[B_V + c][e], a[c] = G[B_A + c][e];
    for (int k = 0; k < 2; ++k) { /* hv = I v, ia = I a */
        const double *x = k ? a : v;
        double *o = k ? ia : hv;
        LANE_CROSS(t, h, x + 3);
        LANE_CROSS(r, h, x);
        for (int c = 0; c < 3; ++c)
            o[c] = J[3 * c] * x[0] + J[3 * c + 1] * x[1] + J[3 * c + 2] * x[2] + t[c],
            o[3 + c] = m * x[3 + c] - r[c];
    }
    LANE_CROSS(t, v, hv); /* v x* hv = [w x n + u x P; w x P] */
    LANE_CROSS(r, v + 3, hv + 3);
    for (int c = 0; c < 3; ++c) O[C_F + c][e] = ia[c] + (t[c] + r[c]);
    LANE_CROSS(t, v, hv + 3);
    for (int c = 0; c < 3; ++c) O[C_F + 3 + c][e] = ia[3 + c] + t[c], O[C_P + c][e] = hv[3 + c];
    for (int j = 0; j < 3; ++j) { /* A = [w]x J */
        A[j] = -v[2] * J[3 + j] + v[1] * J[6 + j];
        A[3 + j] = v[2] * J[j] - v[0] * J[6 + j];
        A[6 + j] = -v[1] * J[j] + v[0] * J[3 + j];
    }
    const double uh = 2.0 * (v[3] * h[0] + v[4] * h[1] + v[5] * h[2]);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            O[C_B + 3 * i + j][e] = A[3 * i + j] + A[3 * j + i] - (h[i] * v[3 + j] + v[3 + i] * h[j]) +
                                    (i == j ? uh : 0.0);
    const double *n = hv; /* - [n]x */
    O[C_B + 1][e] += n[2], O[C_B + 2][e] -= n[1], O[C_B + 3][e] -= n[2];
    O[C_B + 5][e] += n[0], O[C_B + 6][e] += n[1], O[C_B + 7][e] -= n[0];
}

/* The body terms of the 8 lanes. */
MBS_WIDE_LOOPS static void lanes_bodies(const double (*restrict G)[8], double (*restrict O)[8])
{
    for (int e = 0; e < 8; ++e) {
        lane_world_inertia(G, e, O);
        lane_body_forces(G, e, O);
    }
}

/* See derivs.h. */
void mbs_derivs_bodies(const mbs_data *d)
{
    mbs_derivs *w = d->derivs;
    const int nb = d->model->nbody - 1, *at = w->bodies;
    double G[B_N][8], O[C_N][8];
    for (int g = 0; g < nb; g += 8) {
        const int n = nb - g < 8 ? nb - g : 8;
        gather_bodies(d, at + g, n, G);
        lanes_bodies((const double(*)[8])G, O);
        for (int e = 0; e < n; ++e) {
            const int b = at[g + e];
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
/* Its outputs: the vectors kept for the pairs (Y, Z, PF, Q: kvec's layout), then the
   diagonal entries S.P, S.Q, S.Y. */
enum { O_Y = 0, O_Z = 6, O_PF = 9, O_Q = 15, O_DQ = 21, O_DV = 22, O_M = 23, O_N = 24 };

/* The lanes of up to 8 dofs (list at, n of them; the last repeated) gathered into G. */
static void gather_dofs(const mbs_data *d, const int *at, int n, double G[G_N][8])
{
    const mbs_model *m = d->model;
    const mbs_derivs *w = d->derivs;
    for (int e = 0; e < 8; ++e) {
        const int i = at[e < n ? e : n - 1], b = m->joints[m->dof_joint[i]].child;
        const mbs_rbi *I = &w->Ic[b];
        const double *D = w->dof + MBS_DV_STRIDE * i;
        G[G_M][e] = I->m;
        for (int c = 0; c < 3; ++c) G[G_H + c][e] = I->h[c], G[G_P + c][e] = w->P[3 * b + c];
        for (int c = 0; c < 9; ++c) G[G_J + c][e] = I->I[c], G[G_B + c][e] = w->B11[9 * b + c];
        for (int c = 0; c < 6; ++c) {
            G[G_F + c][e] = w->F[6 * b + c], G[G_S + c][e] = D[c];
            G[G_DA + c][e] = D[MBS_DV_DA + c], G[G_E + c][e] = D[MBS_DV_E + c];
        }
        for (int c = 0; c < 3; ++c) G[G_DV + c][e] = D[MBS_DV_DV + c];
    }
}

/* o = Ic x of lane e: [J x_ang + h x x_lin; m x_lin - h x x_ang]. */
MBS_ALWAYS_INLINE void lane_inertia(const double G[G_N][8], int e, const double x[6],
                                    double o[6])
{
    const double h[3] = {G[G_H][e], G[G_H + 1][e], G[G_H + 2][e]};
    double t[3], r[3];
    LANE_CROSS(t, h, x + 3);
    LANE_CROSS(r, h, x);
    for (int c = 0; c < 3; ++c)
        o[c] = G[G_J + 3 * c][e] * x[0] + G[G_J + 3 * c + 1][e] * x[1] +
               G[G_J + 3 * c + 2][e] * x[2] + t[c];
    for (int c = 0; c < 3; ++c) o[3 + c] = G[G_M][e] * x[3 + c] - r[c];
}

/* o = Bc x of lane e (x's angular part): [B11 x; 2 x x P]. */
MBS_ALWAYS_INLINE void lane_bc(const double G[G_N][8], int e, const double x[3], double o[6])
{
    const double P[3] = {G[G_P][e], G[G_P + 1][e], G[G_P + 2][e]};
    double t[3];
    for (int c = 0; c < 3; ++c)
        o[c] = G[G_B + 3 * c][e] * x[0] + G[G_B + 3 * c + 1][e] * x[1] +
               G[G_B + 3 * c + 2][e] * x[2];
    LANE_CROSS(t, x, P);
    for (int c = 0; c < 3; ++c) o[3 + c] = 2.0 * t[c];
}

/* The vectors of dof_vectors (rnea_derivatives.c) and the diagonal entries, lane e. */
MBS_ALWAYS_INLINE void lane_vectors(const double G[G_N][8], int e, double O[O_N][8])
{
    double S[6], dA[6], E[6], dV[3], F[6], P[3], y[6], a[6], b[6], sf[6], t[3];
    for (int c = 0; c < 6; ++c)
        S[c] = G[G_S + c][e], dA[c] = G[G_DA + c][e], E[c] = G[G_E + c][e], F[c] = G[G_F + c][e];
    for (int c = 0; c < 3; ++c) dV[c] = G[G_DV + c][e], P[c] = G[G_P + c][e];
    lane_inertia(G, e, S, y);
    for (int c = 0; c < 6; ++c) O[O_Y + c][e] = y[c];
    LANE_CROSS(t, P, S + 3); /* Z = B11^T S_ang + 2 P x S_lin */
    for (int c = 0; c < 3; ++c)
        O[O_Z + c][e] = G[G_B + c][e] * S[0] + G[G_B + 3 + c][e] * S[1] +
                        G[G_B + 6 + c][e] * S[2] + 2.0 * t[c];
    lane_inertia(G, e, dA, a); /* P = Ic dA + Bc dV */
    lane_bc(G, e, dV, b);
    LANE_CROSS(sf, S, F); /* S x* F */
    LANE_CROSS(t, S + 3, F + 3);
    for (int c = 0; c < 3; ++c) sf[c] += t[c];
    LANE_CROSS(sf + 3, S, F + 3);
    double sp = 0.0, sq = 0.0, sy = 0.0;
    for (int c = 0; c < 6; ++c) {
        const double pc = a[c] + b[c];
        O[O_PF + c][e] = pc + sf[c];
        sp += S[c] * pc, sy += S[c] * y[c];
    }
    lane_inertia(G, e, E, a); /* Q = Bc S + Ic E */
    lane_bc(G, e, S, b);
    for (int c = 0; c < 6; ++c) O[O_Q + c][e] = b[c] + a[c], sq += S[c] * (b[c] + a[c]);
    O[O_DQ][e] = sp, O[O_DV][e] = sq, O[O_M][e] = sy;
}

/* lane_vectors of the 8 lanes (a loop the compiler runs on wide registers). */
MBS_WIDE_LOOPS static void lanes_vectors(const double (*restrict G)[8], double (*restrict O)[8])
{
    for (int e = 0; e < 8; ++e) lane_vectors(G, e, O);
}

/* See derivs.h. */
void mbs_derivs_one_dof(const mbs_data *d, double *dq, double *dv, int ld, double *M, int ldm)
{
    const mbs_derivs *w = d->derivs;
    double G[G_N][8], O[O_N][8];
    for (int g = 0; g < w->none; g += 8) {
        const int n = w->none - g < 8 ? w->none - g : 8, *at = w->one + g;
        gather_dofs(d, at, n, G);
        lanes_vectors((const double(*)[8])G, O);
        for (int e = 0; e < n; ++e) {
            const size_t i = (size_t)at[e];
            double *kv = w->kvec + MBS_KVEC * i;
            for (int c = 0; c < MBS_KVEC; ++c) kv[c] = O[c][e];
            dq[i * (size_t)ld + i] += O[O_DQ][e];
            dv[i * (size_t)ld + i] += O[O_DV][e];
            if (M) M[i * (size_t)ldm + i] = O[O_M][e];
        }
    }
}
