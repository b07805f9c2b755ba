/* Spatial inertia transforms (RBDA §2.13, eq. 2.66), written with 3x3 blocks. */
#include "core/spatial.h"

/* O = A [p]x: row i is (row i of A) x p; O may not alias A. */
static void m3_mul_skew(double O[9], const double A[9], const double p[3])
{
    for (int i = 0; i < 3; ++i) v3_cross(O + 3 * i, A + 3 * i, p);
}

/* O = [p]x A: column j is p x (column j of A); O may not alias A. */
static void skew_mul_m3(double O[9], const double p[3], const double A[9])
{
    for (int j = 0; j < 3; ++j) {
        const double a0 = A[j], a1 = A[3 + j], a2 = A[6 + j];
        O[j] = p[1] * a2 - p[2] * a1;
        O[3 + j] = p[2] * a0 - p[0] * a2;
        O[6 + j] = p[0] * a1 - p[1] * a0;
    }
}

/* O = R S R^T for a symmetric S (only the upper triangle is computed, then mirrored). */
static void m3_rotate_sym(double O[9], const double R[9], const double S[9])
{
    double T[9];
    m3_mult(T, S, R); /* T = S R^T */
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) {
            double s = R[3 * i] * T[j] + R[3 * i + 1] * T[3 + j] + R[3 * i + 2] * T[6 + j];
            O[3 * i + j] = s;
            O[3 * j + i] = s;
        }
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
    m3_rotate_sym(Ir, X->R, in->I);
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

/* Extract/insert the 3x3 block at (r, c) of a 6x6 row-major matrix. */
static void m6_get_block(double B[9], const double M[36], int r, int c)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) B[3 * i + j] = M[6 * (r + i) + c + j];
}

/* I_A = X^T I_B X for a symmetric 6x6 [A B; B^T C] (angular first).
 * X = [E 0; -E[p] E] with E = R^T, so after rotating every block (A1 = R A R^T, ...):
 *   C'' = C1,  B'' = B1 + [p] C1,  A'' = A1 - B1[p] - (B1[p])^T - [p] C1 [p]. */
void m6_transform_to_parent(double out[36], const mbs_pose *X, const double in[36])
{
    const double *R = X->R, *p = X->p;
    double A[9], B[9], C[9], T[9], A1[9], B1[9], C1[9];
    double BP[9], W[9], WP[9];
    m6_get_block(A, in, 0, 0);
    m6_get_block(B, in, 0, 3);
    m6_get_block(C, in, 3, 3);
    m3_rotate_sym(A1, R, A);
    m3_rotate_sym(C1, R, C);
    m3_mult(T, B, R);
    m3_mul(B1, R, T);
    m3_mul_skew(BP, B1, p);   /* B1 [p] */
    skew_mul_m3(W, p, C1);    /* [p] C1 */
    for (int k = 0; k < 9; ++k) W[k] += B1[k];
    m3_mul_skew(WP, W, p);    /* B1[p] + [p]C1[p] */
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) { /* symmetric blocks: upper triangle, mirrored */
            const double a = A1[3 * i + j] - WP[3 * i + j] - BP[3 * j + i];
            out[6 * i + j] = out[6 * j + i] = a;
            out[6 * (i + 3) + j + 3] = out[6 * (j + 3) + i + 3] = C1[3 * i + j];
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            out[6 * i + j + 3] = W[3 * i + j];
            out[6 * (j + 3) + i] = W[3 * i + j];
        }
}
