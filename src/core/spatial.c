/* Spatial inertia transforms (RBDA §2.13, eq. 2.66), written with 3x3 blocks. */
#include "core/spatial.h"
/* The inertia transforms are the hot kernel of ABA: at -O3 GCC vectorizes their block
   rotations (measured: backward ABA pass 76 -> 70 ns per body). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

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

/* O = R S R^T for two 3x3 matrices S at once, one per lane (s row-major, R as splats): the
   upper triangle o = (O00, O01, O02, O11, O12, O22) of each, via T = S R^T (27 products)
   and then 6 entries of R T. */
static inline void rotate2(mbs_d2 o[6], const mbs_d2 Rs[9], const mbs_d2 s[9])
{
    mbs_d2 t[9];
    MBS_UNROLL(3)
    for (int i = 0; i < 3; ++i)
        MBS_UNROLL(3)
        for (int j = 0; j < 3; ++j)
            t[3 * i + j] = d2_dot3(s[3 * i], Rs[3 * j], s[3 * i + 1], Rs[3 * j + 1], s[3 * i + 2],
                                   Rs[3 * j + 2]);
    o[0] = d2_dot3(Rs[0], t[0], Rs[1], t[3], Rs[2], t[6]);
    o[1] = d2_dot3(Rs[0], t[1], Rs[1], t[4], Rs[2], t[7]);
    o[2] = d2_dot3(Rs[0], t[2], Rs[1], t[5], Rs[2], t[8]);
    o[3] = d2_dot3(Rs[3], t[1], Rs[4], t[4], Rs[5], t[7]);
    o[4] = d2_dot3(Rs[3], t[2], Rs[4], t[5], Rs[5], t[8]);
    o[5] = d2_dot3(Rs[6], t[2], Rs[7], t[5], Rs[8], t[8]);
}

/* Rotate the blocks of a shifted articulated inertia and add them to out's upper triangle:
   A'' = R A' R^T and C'' = R C R^T as the two lanes of one rotation (a = upper triangle of
   A', c = of C), B'' = R W R^T with W and W^T as the two lanes (lane 1 gives B''^T, i.e.
   the entries of B'' below its diagonal). */
static void rotate_blocks_add(double *restrict out, const double R[9], const double a[6],
                              const double c[6], const double W[9])
{
    mbs_d2 Rs[9], o[6];
    for (int e = 0; e < 9; ++e) Rs[e] = d2_splat(R[e]);
    const mbs_d2 ac[9] = {d2_set(a[0], c[0]), d2_set(a[1], c[1]), d2_set(a[2], c[2]),
                          d2_set(a[1], c[1]), d2_set(a[3], c[3]), d2_set(a[4], c[4]),
                          d2_set(a[2], c[2]), d2_set(a[4], c[4]), d2_set(a[5], c[5])};
    rotate2(o, Rs, ac);
    static const int up[6] = {0, 1, 2, 7, 8, 14}; /* upper triangle of a 3x3 block of a 6x6 */
    for (int k = 0; k < 6; ++k) {
        out[up[k]] += d2_lo(o[k]);
        out[21 + up[k]] += d2_hi(o[k]);
    }
    const mbs_d2 ww[9] = {d2_set(W[0], W[0]), d2_set(W[1], W[3]), d2_set(W[2], W[6]),
                          d2_set(W[3], W[1]), d2_set(W[4], W[4]), d2_set(W[5], W[7]),
                          d2_set(W[6], W[2]), d2_set(W[7], W[5]), d2_set(W[8], W[8])};
    rotate2(o, Rs, ww);
    out[3] += d2_lo(o[0]);
    out[4] += d2_lo(o[1]), out[9] += d2_hi(o[1]);
    out[5] += d2_lo(o[2]), out[15] += d2_hi(o[2]);
    out[10] += d2_lo(o[3]);
    out[11] += d2_lo(o[4]), out[16] += d2_hi(o[4]);
    out[17] += d2_lo(o[5]);
}

/* Upper triangle of out += X^T in X for a symmetric 6x6 in = [A B; B^T C] (angular first)
 * of which only the upper triangle is read (RBDA eq. 2.66 applied to an articulated
 * inertia). With r = R^T p (the origin of A in B coordinates), X = diag(E, E) [1 0; -[r] 1],
 * E = R^T: first shift in B coordinates,  W = B + [r] C,  A' = A - B [r] + [r] W^T
 * (symmetric; C unchanged), then rotate every block: A'' = R A' R^T, B'' = R W R^T,
 * C'' = R C R^T. Row i of -B[r] is r x (row i of B); column j of [r] W^T is r x (row j of W). */
void m6_sym_transform_add(double *restrict out, const mbs_pose *X, const double *restrict in)
{
    double R[9], r[3], W[9], Ap[6];
    for (int e = 0; e < 9; ++e) R[e] = X->R[e];
    m3_tmulv(r, R, X->p);
    const double c00 = in[21], c01 = in[22], c02 = in[23], c11 = in[28], c12 = in[29],
                 c22 = in[35];
    W[0] = in[3] + (r[1] * c02 - r[2] * c01); /* column j of W: B e_j + r x (C e_j) */
    W[3] = in[9] + (r[2] * c00 - r[0] * c02);
    W[6] = in[15] + (r[0] * c01 - r[1] * c00);
    W[1] = in[4] + (r[1] * c12 - r[2] * c11);
    W[4] = in[10] + (r[2] * c01 - r[0] * c12);
    W[7] = in[16] + (r[0] * c11 - r[1] * c01);
    W[2] = in[5] + (r[1] * c22 - r[2] * c12);
    W[5] = in[11] + (r[2] * c02 - r[0] * c22);
    W[8] = in[17] + (r[0] * c12 - r[1] * c02);
    const double *B0 = in + 3, *B1 = in + 9, *B2 = in + 15;
    Ap[0] = in[0] + (r[1] * (B0[2] + W[2]) - r[2] * (B0[1] + W[1]));
    Ap[1] = in[1] + (r[2] * B0[0] - r[0] * B0[2]) + (r[1] * W[5] - r[2] * W[4]);
    Ap[2] = in[2] + (r[0] * B0[1] - r[1] * B0[0]) + (r[1] * W[8] - r[2] * W[7]);
    Ap[3] = in[7] + (r[2] * (B1[0] + W[3]) - r[0] * (B1[2] + W[5]));
    Ap[4] = in[8] + (r[0] * B1[1] - r[1] * B1[0]) + (r[2] * W[6] - r[0] * W[8]);
    Ap[5] = in[14] + (r[0] * (B2[1] + W[7]) - r[1] * (B2[0] + W[6]));
    const double Cu[6] = {c00, c01, c02, c11, c12, c22};
    rotate_blocks_add(out, R, Ap, Cu, W);
}

/* Full symmetric I_A = X^T I_B X (see m6_sym_transform_add), lower triangle mirrored. */
void m6_transform_to_parent(double out[36], const mbs_pose *X, const double in[36])
{
    for (int e = 0; e < 36; ++e) out[e] = 0.0;
    m6_sym_transform_add(out, X, in);
    m6_sym_mirror(out);
}
