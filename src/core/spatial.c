/* Spatial inertia transforms (RBDA §2.13, eq. 2.66), written with 3x3 blocks. */
#include "core/spatial.h"
/* The inertia transforms are the hot kernel of ABA: at -O3 GCC vectorizes their block
   rotations (measured: backward ABA pass 76 -> 70 ns per body). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* Upper triangle of O = R S R^T for a symmetric 3x3 S (row-major), the entries of
   T = S R^T, T_ij = S_i0 R_j0 + S_i1 R_j1 + S_i2 R_j2, and O_ij = R_i0 T_0j + R_i1 T_1j +
   R_i2 T_2j summed left to right, two at a time in the lanes: (T_i0, T_i1) per row of T,
   then (O00, O01), (O11, O12) and (O02, O22). o = (O00, O01, O02, O11, O12, O22). */
static inline void rotate_sym_upper(double o[6], const double R[9], const double S[9])
{
    mbs_d2 t01[3], t12[3];
    double t2[3];
    const mbs_d2 r0 = d2_set(R[0], R[3]), r1 = d2_set(R[1], R[4]), r2 = d2_set(R[2], R[5]);
    for (int i = 0; i < 3; ++i) {
        const double *si = S + 3 * i;
        t01[i] = d2_dot3(d2_splat(si[0]), r0, d2_splat(si[1]), r1, d2_splat(si[2]), r2);
        t2[i] = si[0] * R[6] + si[1] * R[7] + si[2] * R[8];
        t12[i] = d2_set(d2_hi(t01[i]), t2[i]);
    }
    const mbs_d2 o01 = d2_dot3(d2_splat(R[0]), t01[0], d2_splat(R[1]), t01[1], d2_splat(R[2]),
                               t01[2]);
    const mbs_d2 o12 = d2_dot3(d2_splat(R[3]), t12[0], d2_splat(R[4]), t12[1], d2_splat(R[5]),
                               t12[2]);
    const mbs_d2 o22 = d2_dot3(d2_set(R[0], R[6]), d2_splat(t2[0]), d2_set(R[1], R[7]),
                               d2_splat(t2[1]), d2_set(R[2], R[8]), d2_splat(t2[2]));
    o[0] = d2_lo(o01), o[1] = d2_hi(o01), o[2] = d2_lo(o22);
    o[3] = d2_lo(o12), o[4] = d2_hi(o12), o[5] = d2_hi(o22);
}

/* I_A = X^T I_B X for a rigid-body inertia (RBDA eq. 2.66 with E = R^T, r = p):
 *   h_A = R h + m p,  Ibar_A = R Ibar R^T - [p]x[y]x - [h_A]x[p]x  with y = R h,
 * expanded with [a]x[b]x = b a^T - (a.b) 1. */
void rbi_transform_rp(mbs_rbi *out, const double R[9], const double p[3], const mbs_rbi *in)
{
    double y[3], Ir[6], I6[6], hA[3];
    m3_mulv(y, R, in->h);
    rotate_sym_upper(Ir, R, in->I);
    rbi_shifted(I6, hA, in->m, y, Ir, p);
    static const int row[6] = {0, 0, 0, 1, 1, 2}, col[6] = {0, 1, 2, 1, 2, 2};
    for (int e = 0; e < 6; ++e) out->I[3 * row[e] + col[e]] = out->I[3 * col[e] + row[e]] = I6[e];
    out->m = in->m;
    for (int i = 0; i < 3; ++i) out->h[i] = hA[i];
}

/* See spatial.h. */
void rbi_transform_add(mbs_rbi *restrict out, const double R[9], const double p[3],
                       const mbs_rbi *restrict in)
{
    double y[3], Ir[6];
    m3_mulv(y, R, in->h);
    rotate_sym_upper(Ir, R, in->I);
    rbi_shifted_add(out, in->m, y, Ir, p);
}

/* See spatial.h. */
void rbi_transform_to_parent(mbs_rbi *out, const mbs_pose *X, const mbs_rbi *in)
{
    rbi_transform_rp(out, X->R, X->p, in);
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

/* Rotate the blocks of a shifted articulated inertia and add them to out's upper triangle
   (spatial.h m6_blocks_lanes, m6_blocks_add). */
static void rotate_blocks_add(double *restrict out, const double R[9], const double a[6],
                              const double c[6], const double W[9])
{
    mbs_d2 Rs[9], ac[9], ww[9], oac[6], oww[6];
    for (int e = 0; e < 9; ++e) Rs[e] = d2_splat(R[e]);
    m6_blocks_lanes(a, c, W, ac, ww);
    rotate2(oac, Rs, ac);
    rotate2(oww, Rs, ww);
    m6_blocks_add(out, oac, oww);
}

/* Upper triangle of out += X^T in X for a symmetric 6x6 in = [A B; B^T C] (angular first)
 * of which only the upper triangle is read (RBDA eq. 2.66 applied to an articulated
 * inertia): with r = R^T p, first the shift in B coordinates (m6_sym_shift), then every
 * block rotated: A'' = R A' R^T, B'' = R W R^T, C'' = R C R^T. */
void m6_sym_transform_add(double *restrict out, const mbs_pose *X, const double *restrict in)
{
    double R[9], r[3], W[9], Ap[6];
    for (int e = 0; e < 9; ++e) R[e] = X->R[e];
    m3_tmulv(r, R, X->p);
    m6_sym_shift(in, r, W, Ap);
    const double Cu[6] = {in[21], in[22], in[23], in[28], in[29], in[35]};
    rotate_blocks_add(out, R, Ap, Cu, W);
}

/* Full symmetric I_A = X^T I_B X (see m6_sym_transform_add), lower triangle mirrored. */
void m6_transform_to_parent(double out[36], const mbs_pose *X, const double in[36])
{
    for (int e = 0; e < 36; ++e) out[e] = 0.0;
    m6_sym_transform_add(out, X, in);
    m6_sym_mirror(out);
}
