/* Spatial inertia transforms (RBDA §2.13, eq. 2.66), written with 3x3 blocks. */
#include "core/spatial.h"

/* Row i of S (row stride ss) dotted with row j of R: (S R^T)_ij. */
#define SRT(S, ss, R, i, j) \
    ((S)[(ss) * (i)] * (R)[3 * (j)] + (S)[(ss) * (i) + 1] * (R)[3 * (j) + 1] + \
     (S)[(ss) * (i) + 2] * (R)[3 * (j) + 2])
/* (R T)_ij for a 3x3 T. */
#define RT(R, T, i, j) ((R)[3 * (i)] * (T)[j] + (R)[3 * (i) + 1] * (T)[3 + (j)] + (R)[3 * (i) + 2] * (T)[6 + (j)])

/* O = R S R^T for a symmetric 3x3 S; S and O are 3x3 blocks with row strides ss and os
   (3 for a 3x3 matrix, 6 for a block of a 6x6). Upper triangle computed, mirrored;
   unrolled by hand (the hot kernel of the articulated-body pass). */
static inline void rotate_sym(double *O, int os, const double R[9], const double *S, int ss)
{
    const double T[9] = {SRT(S, ss, R, 0, 0), SRT(S, ss, R, 0, 1), SRT(S, ss, R, 0, 2),
                         SRT(S, ss, R, 1, 0), SRT(S, ss, R, 1, 1), SRT(S, ss, R, 1, 2),
                         SRT(S, ss, R, 2, 0), SRT(S, ss, R, 2, 1), SRT(S, ss, R, 2, 2)};
    O[0] = RT(R, T, 0, 0);
    O[os + 1] = RT(R, T, 1, 1);
    O[2 * os + 2] = RT(R, T, 2, 2);
    O[1] = O[os] = RT(R, T, 0, 1);
    O[2] = O[2 * os] = RT(R, T, 0, 2);
    O[os + 2] = O[2 * os + 1] = RT(R, T, 1, 2);
}

/* I_A = X^T I_B X for a rigid-body inertia (RBDA eq. 2.66 with E = R^T, r = p):
 *   h_A = R h + m p,  Ibar_A = R Ibar R^T - [p]x[y]x - [h_A]x[p]x  with y = R h,
 * expanded with [a]x[b]x = b a^T - (a.b) 1. */
void rbi_transform_to_parent(mbs_rbi *out, const mbs_pose *X, const mbs_rbi *in)
{
    const double *p = X->p;
    const double m = in->m;
    double y[3], Ir[9];
    m3_mulv(y, X->R, in->h);
    rotate_sym(Ir, 3, X->R, in->I, 3);
    const double py = v3_dot(p, y), pp = v3_dot(p, p);
    const double diag = 2.0 * py + m * pp;
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) {
            double s = Ir[3 * i + j] - (y[i] * p[j] + p[i] * y[j]) - m * p[i] * p[j];
            if (i == j) s += diag;
            out->I[3 * i + j] = s;
            out->I[3 * j + i] = s;
        }
    out->m = m;
    for (int i = 0; i < 3; ++i) out->h[i] = y[i] + m * p[i];
}

/* I_A = X^T I_B X for a symmetric 6x6 [A B; B^T C] (angular first). With r = R^T p (the
 * origin of A in B coordinates) X = diag(E, E) [1 0; -[r] 1], E = R^T, so first shift in B
 * coordinates,  W = B + [r] C,  A' = A - B [r] + [r] W^T  (C unchanged),
 * then rotate every block: A'' = R A' R^T, B'' = R W R^T, C'' = R C R^T. */
void m6_transform_to_parent(double out[36], const mbs_pose *X, const double in[36])
{
    const double *R = X->R;
    double r[3], W[9], Ap[9], xb[9], xw[9], T[9];
    m3_tmulv(r, R, X->p);
    /* W = B + [r] C, column j: B e_j + r x (C e_j) */
#define W_COL(j)                                                   \
    do {                                                           \
        const double c0 = in[21 + (j)], c1 = in[27 + (j)], c2 = in[33 + (j)]; \
        W[j] = in[3 + (j)] + r[1] * c2 - r[2] * c1;                \
        W[3 + (j)] = in[9 + (j)] + r[2] * c0 - r[0] * c2;          \
        W[6 + (j)] = in[15 + (j)] + r[0] * c1 - r[1] * c0;         \
    } while (0)
    W_COL(0);
    W_COL(1);
    W_COL(2);
#undef W_COL
    /* r x (row i of B) = row i of -B[r]; r x (row i of W) = column i of [r] W^T */
    v3_cross(xb, r, in + 3);
    v3_cross(xb + 3, r, in + 9);
    v3_cross(xb + 6, r, in + 15);
    v3_cross(xw, r, W);
    v3_cross(xw + 3, r, W + 3);
    v3_cross(xw + 6, r, W + 6);
    Ap[0] = in[0] + xb[0] + xw[0];
    Ap[4] = in[7] + xb[4] + xw[4];
    Ap[8] = in[14] + xb[8] + xw[8];
    Ap[1] = Ap[3] = in[1] + xb[1] + xw[3];
    Ap[2] = Ap[6] = in[2] + xb[2] + xw[6];
    Ap[5] = Ap[7] = in[8] + xb[5] + xw[7];
    rotate_sym(out, 6, R, Ap, 3);
    rotate_sym(out + 21, 6, R, in + 21, 6);
    m3_mult(T, W, R); /* B'' = R (W R^T), B''^T mirrored into the lower-left block */
    out[3] = out[18] = RT(R, T, 0, 0);
    out[4] = out[24] = RT(R, T, 0, 1);
    out[5] = out[30] = RT(R, T, 0, 2);
    out[9] = out[19] = RT(R, T, 1, 0);
    out[10] = out[25] = RT(R, T, 1, 1);
    out[11] = out[31] = RT(R, T, 1, 2);
    out[15] = out[20] = RT(R, T, 2, 0);
    out[16] = out[26] = RT(R, T, 2, 1);
    out[17] = out[32] = RT(R, T, 2, 2);
}
