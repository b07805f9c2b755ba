/* Small fixed-size spatial algebra (Featherstone, RBDA ch. 2), hand-written, inline.
 * Motion vectors m = [w; v] (angular first), force vectors f = [n; f].
 * 3x3 matrices are row-major. A pose (R, p) places frame B in frame A: x_A = R x_B + p.
 * A Plücker transform from A to B is stored as that pose of B in A:
 *   X_BA m = [R^T w; R^T (v - p x w)],   X_BA^T f = [R n + p x (R f); R f]   (RBDA eq. 2.24). */
#ifndef MBS_CORE_SPATIAL_H
#define MBS_CORE_SPATIAL_H

#include <math.h>
#include <string.h>

/* Ask for complete unrolling of the next loop (n iterations) where the compiler supports it. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define MBS_UNROLL_PRAGMA(x) _Pragma(#x)
#define MBS_UNROLL(n) MBS_UNROLL_PRAGMA(GCC unroll n)
#else
#define MBS_UNROLL(n)
#endif

/* Force inlining of a small kernel helper where the compiler supports it. */
#if defined(__GNUC__)
#define MBS_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define MBS_ALWAYS_INLINE static inline
#endif

/* Two-lane doubles for the hot kernels: the GCC/Clang vector extension (SSE2 on x86-64, NEON
   on AArch64, scalar code elsewhere) or a plain struct; each lane computes exactly the IEEE
   operations a scalar expression would (no contraction, no reassociation). */
#if defined(__GNUC__)
typedef double mbs_d2 __attribute__((vector_size(16)));
static inline mbs_d2 d2_set(double lo, double hi) { return (mbs_d2){lo, hi}; }
static inline mbs_d2 d2_add(mbs_d2 a, mbs_d2 b) { return a + b; }
static inline mbs_d2 d2_mul(mbs_d2 a, mbs_d2 b) { return a * b; }
static inline mbs_d2 d2_sub(mbs_d2 a, mbs_d2 b) { return a - b; }
static inline double d2_lo(mbs_d2 a) { return a[0]; }
static inline double d2_hi(mbs_d2 a) { return a[1]; }
#else
typedef struct mbs_d2 { double x[2]; } mbs_d2;
static inline mbs_d2 d2_set(double lo, double hi) { mbs_d2 r = {{lo, hi}}; return r; }
static inline mbs_d2 d2_add(mbs_d2 a, mbs_d2 b) { return d2_set(a.x[0] + b.x[0], a.x[1] + b.x[1]); }
static inline mbs_d2 d2_mul(mbs_d2 a, mbs_d2 b) { return d2_set(a.x[0] * b.x[0], a.x[1] * b.x[1]); }
static inline mbs_d2 d2_sub(mbs_d2 a, mbs_d2 b) { return d2_set(a.x[0] - b.x[0], a.x[1] - b.x[1]); }
static inline double d2_lo(mbs_d2 a) { return a.x[0]; }
static inline double d2_hi(mbs_d2 a) { return a.x[1]; }
#endif
static inline mbs_d2 d2_splat(double x) { return d2_set(x, x); }

/* a0 b0 + a1 b1 + a2 b2, lane by lane, summed left to right */
static inline mbs_d2 d2_dot3(mbs_d2 a0, mbs_d2 b0, mbs_d2 a1, mbs_d2 b1, mbs_d2 a2, mbs_d2 b2)
{
    return d2_add(d2_add(d2_mul(a0, b0), d2_mul(a1, b1)), d2_mul(a2, b2));
}

typedef struct mbs_pose {
    double R[9];
    double p[3];
} mbs_pose;

static inline void v3_set(double a[3], double x, double y, double z) { a[0] = x; a[1] = y; a[2] = z; }
static inline void v3_copy(double a[3], const double b[3]) { a[0] = b[0]; a[1] = b[1]; a[2] = b[2]; }
static inline double v3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double v3_norm(const double a[3]) { return sqrt(v3_dot(a, a)); }
static inline void v3_add(double o[3], const double a[3], const double b[3])
{
    o[0] = a[0] + b[0]; o[1] = a[1] + b[1]; o[2] = a[2] + b[2];
}
static inline void v3_sub(double o[3], const double a[3], const double b[3])
{
    o[0] = a[0] - b[0]; o[1] = a[1] - b[1]; o[2] = a[2] - b[2];
}
static inline void v3_scale(double o[3], const double a[3], double s)
{
    o[0] = a[0] * s; o[1] = a[1] * s; o[2] = a[2] * s;
}
/* o += s a */
static inline void v3_axpy(double o[3], double s, const double a[3])
{
    o[0] += s * a[0]; o[1] += s * a[1]; o[2] += s * a[2];
}
/* o = a x b; o may not alias a or b */
static inline void v3_cross(double o[3], const double a[3], const double b[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static inline void m3_identity(double R[9])
{
    memset(R, 0, 9 * sizeof(double));
    R[0] = R[4] = R[8] = 1.0;
}
/* o = A b */
static inline void m3_mulv(double o[3], const double A[9], const double b[3])
{
    o[0] = A[0] * b[0] + A[1] * b[1] + A[2] * b[2];
    o[1] = A[3] * b[0] + A[4] * b[1] + A[5] * b[2];
    o[2] = A[6] * b[0] + A[7] * b[1] + A[8] * b[2];
}
/* o = A^T b */
static inline void m3_tmulv(double o[3], const double A[9], const double b[3])
{
    o[0] = A[0] * b[0] + A[3] * b[1] + A[6] * b[2];
    o[1] = A[1] * b[0] + A[4] * b[1] + A[7] * b[2];
    o[2] = A[2] * b[0] + A[5] * b[1] + A[8] * b[2];
}
/* O = A B; O may not alias */
static inline void m3_mul(double O[9], const double A[9], const double B[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            O[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}
/* O = A^T B */
static inline void m3_tmul(double O[9], const double A[9], const double B[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            O[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}
/* O = A B^T */
static inline void m3_mult(double O[9], const double A[9], const double B[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            O[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
}
static inline void m3_transpose(double O[9], const double A[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) O[3 * i + j] = A[3 * j + i];
}
/* Rotation by angle about unit axis (Rodrigues). */
static inline void m3_axis_angle(double R[9], const double u[3], double angle)
{
    double c = cos(angle), s = sin(angle), t = 1.0 - c;
    R[0] = t * u[0] * u[0] + c;        R[1] = t * u[0] * u[1] - s * u[2]; R[2] = t * u[0] * u[2] + s * u[1];
    R[3] = t * u[0] * u[1] + s * u[2]; R[4] = t * u[1] * u[1] + c;        R[5] = t * u[1] * u[2] - s * u[0];
    R[6] = t * u[0] * u[2] - s * u[1]; R[7] = t * u[1] * u[2] + s * u[0]; R[8] = t * u[2] * u[2] + c;
}

/* ---- poses */
static inline void pose_identity(mbs_pose *X)
{
    m3_identity(X->R);
    X->p[0] = X->p[1] = X->p[2] = 0.0;
}
/* C = A * B (B given in A's child frame): R = Ra Rb, p = Ra pb + pa */
static inline void pose_mul(mbs_pose *C, const mbs_pose *A, const mbs_pose *B)
{
    double t[3];
    m3_mul(C->R, A->R, B->R);
    m3_mulv(t, A->R, B->p);
    v3_add(C->p, t, A->p);
}
/* C = A * B^-1: R = Ra Rb^T, p = pa - R pb */
static inline void pose_mul_inv(mbs_pose *C, const mbs_pose *A, const mbs_pose *B)
{
    double t[3];
    m3_mult(C->R, A->R, B->R);
    m3_mulv(t, C->R, B->p);
    v3_sub(C->p, A->p, t);
}
static inline void pose_inverse(mbs_pose *I, const mbs_pose *A)
{
    double t[3];
    m3_transpose(I->R, A->R);
    m3_mulv(t, I->R, A->p);
    v3_scale(I->p, t, -1.0);
}
/* x_A = R x_B + p */
static inline void pose_apply(double o[3], const mbs_pose *X, const double x[3])
{
    double t[3];
    m3_mulv(t, X->R, x);
    v3_add(o, t, X->p);
}

/* ---- Plücker transforms, stored as the pose of B in A (see top of file) */
/* o = X_BA m (motion from A to B coordinates) */
static inline void xm_apply(double o[6], const mbs_pose *X, const double m[6])
{
    double t[3], u[3];
    m3_tmulv(o, X->R, m);
    v3_cross(t, X->p, m);
    v3_sub(u, m + 3, t);
    m3_tmulv(o + 3, X->R, u);
}
/* o = X_BA^{-1} m (motion from B to A coordinates) for X = (R, p) given apart */
static inline void xm_apply_inv_rp(double o[6], const double R[9], const double p[3],
                                   const double m[6])
{
    double t[3];
    m3_mulv(o, R, m);
    m3_mulv(t, R, m + 3);
    v3_cross(o + 3, p, o);
    v3_add(o + 3, o + 3, t);
}
/* o = X_BA^{-1} m (motion from B to A coordinates) */
static inline void xm_apply_inv(double o[6], const mbs_pose *X, const double m[6])
{
    xm_apply_inv_rp(o, X->R, X->p, m);
}
/* o = X_BA^T f (force from B to A coordinates) for X = (R, p) given apart */
static inline void xf_apply_transpose_rp(double o[6], const double R[9], const double p[3],
                                         const double f[6])
{
    double n[3], t[3];
    m3_mulv(o + 3, R, f + 3);
    m3_mulv(n, R, f);
    v3_cross(t, p, o + 3);
    v3_add(o, n, t);
}
/* o = X_BA^T f (force from B to A coordinates) */
static inline void xf_apply_transpose(double o[6], const mbs_pose *X, const double f[6])
{
    xf_apply_transpose_rp(o, X->R, X->p, f);
}
/* o = X_BA^{-T} f (force from A to B coordinates) */
static inline void xf_apply_inv_transpose(double o[6], const mbs_pose *X, const double f[6])
{
    double t[3], u[3];
    v3_cross(t, X->p, f + 3);
    v3_sub(u, f, t);
    m3_tmulv(o, X->R, u);
    m3_tmulv(o + 3, X->R, f + 3);
}

/* ---- spatial cross products */
/* o = m1 x m2 (motion cross motion) */
static inline void mv_cross_m(double o[6], const double a[6], const double b[6])
{
    double t[3];
    v3_cross(o, a, b);
    v3_cross(o + 3, a, b + 3);
    v3_cross(t, a + 3, b);
    v3_add(o + 3, o + 3, t);
}
/* o = m x* f (motion cross force) */
static inline void mv_cross_f(double o[6], const double m[6], const double f[6])
{
    double t[3];
    v3_cross(o, m, f);
    v3_cross(t, m + 3, f + 3);
    v3_add(o, o, t);
    v3_cross(o + 3, m, f + 3);
}
static inline double s6_dot(const double a[6], const double b[6])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* ---- rigid-body inertia about a frame origin: mass m, h = m c, Ibar = I_c + m [c]x^T [c]x
 * (RBDA eq. 2.63): I v = [Ibar w + h x v; m v - h x w] */
typedef struct mbs_rbi {
    double m;
    double h[3];
    double I[9]; /* rotational inertia about the frame origin, symmetric */
} mbs_rbi;

static inline void rbi_mulv(double o[6], const mbs_rbi *I, const double v[6])
{
    double t[3];
    m3_mulv(o, I->I, v);
    v3_cross(t, I->h, v + 3);
    v3_add(o, o, t);
    v3_cross(t, I->h, v);
    o[3] = I->m * v[3] - t[0];
    o[4] = I->m * v[4] - t[1];
    o[5] = I->m * v[5] - t[2];
}

/* rbi_mulv on two motion vectors at once, one per lane: o[e] = (I x_lo, I x_hi)[e], each
   lane the same arithmetic as rbi_mulv. */
MBS_ALWAYS_INLINE void rbi_mulv2(mbs_d2 o[6], const mbs_rbi *I, const mbs_d2 x[6])
{
    const double *J = I->I, *h = I->h;
    mbs_d2 t[3], u[3];
    MBS_UNROLL(3)
    for (int r = 0; r < 3; ++r)
        o[r] = d2_dot3(d2_splat(J[3 * r]), x[0], d2_splat(J[3 * r + 1]), x[1],
                       d2_splat(J[3 * r + 2]), x[2]);
    MBS_UNROLL(3)
    for (int r = 0; r < 3; ++r) { /* t = h x x_lin, u = h x x_ang */
        const int i = (r + 1) % 3, j = (r + 2) % 3;
        t[r] = d2_sub(d2_mul(d2_splat(h[i]), x[3 + j]), d2_mul(d2_splat(h[j]), x[3 + i]));
        u[r] = d2_sub(d2_mul(d2_splat(h[i]), x[j]), d2_mul(d2_splat(h[j]), x[i]));
    }
    const mbs_d2 m = d2_splat(I->m);
    MBS_UNROLL(3)
    for (int r = 0; r < 3; ++r) {
        o[r] = d2_add(o[r], t[r]);
        o[3 + r] = d2_sub(d2_mul(m, x[3 + r]), u[r]);
    }
}

/* Full 6x6 symmetric matrix of a rigid-body inertia, row-major (for articulated inertias). */
static inline void rbi_to_m6(double M[36], const mbs_rbi *I)
{
    const double *h = I->h;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            M[6 * i + j] = I->I[3 * i + j];
            M[6 * (i + 3) + j + 3] = (i == j) ? I->m : 0.0;
        }
    /* upper-right block [h]x, lower-left [h]x^T */
    double hx[9] = {0, -h[2], h[1], h[2], 0, -h[0], -h[1], h[0], 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            M[6 * i + j + 3] = hx[3 * i + j];
            M[6 * (j + 3) + i] = hx[3 * i + j];
        }
}

/* o = M v for a 6x6 row-major matrix */
static inline void m6_mulv(double o[6], const double M[36], const double v[6])
{
    for (int i = 0; i < 6; ++i) {
        const double *r = M + 6 * i;
        o[i] = r[0] * v[0] + r[1] * v[1] + r[2] * v[2] + r[3] * v[3] + r[4] * v[4] + r[5] * v[5];
    }
}

/* Copy the upper triangle of a row-major 6x6 into its lower triangle. */
static inline void m6_sym_mirror(double M[36])
{
    for (int i = 1; i < 6; ++i)
        for (int j = 0; j < i; ++j) M[6 * i + j] = M[6 * j + i];
}

/* Upper triangle of the symmetric 6x6 of a rigid-body inertia (see rbi_to_m6); the lower
   triangle of M is not written. */
static inline void rbi_to_m6_upper(double M[36], const mbs_rbi *I)
{
    const double *h = I->h, *J = I->I;
    M[0] = J[0], M[1] = J[1], M[2] = J[2], M[7] = J[4], M[8] = J[5], M[14] = J[8];
    M[3] = 0.0, M[4] = -h[2], M[5] = h[1];
    M[9] = h[2], M[10] = 0.0, M[11] = -h[0];
    M[15] = -h[1], M[16] = h[0], M[17] = 0.0;
    M[21] = M[28] = M[35] = I->m;
    M[22] = M[23] = M[29] = 0.0;
}

/* The shift of a symmetric 6x6 in = [A B; B^T C] (angular first, upper triangle read) to a
 * point at r, in B coordinates: X = [1 0; -[r] 1], X^T in X = [A' W; W^T C] with
 * W = B + [r] C and A' = A - B [r] + [r] W^T (symmetric; its upper triangle Ap = (A'00, A'01,
 * A'02, A'11, A'12, A'22)). Row i of -B[r] is r x (row i of B); column j of [r] W^T is
 * r x (row j of W). W row-major. The first half of m6_sym_transform_add (X = diag(E, E)
 * [1 0; -[r] 1] with E = R^T, r = R^T p). */
static inline void m6_sym_shift(const double *restrict in, const double r[3], double W[9],
                                double Ap[6])
{
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
}

/* The second half of m6_sym_transform_add rotates the blocks as lane pairs: A'' = R A' R^T
   and C'' = R C R^T as the two lanes of one rotation (ac, 3x3 from the upper triangles a of
   A' and c of C), B'' = R W R^T with W and W^T as the two lanes (ww; lane 1 gives B''^T,
   i.e. the entries of B'' below its diagonal). */
static inline void m6_blocks_lanes(const double a[6], const double c[6], const double W[9],
                                   mbs_d2 ac[9], mbs_d2 ww[9])
{
    static const int sym[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5}; /* 3x3 entry -> upper index */
    for (int e = 0; e < 9; ++e) {
        ac[e] = d2_set(a[sym[e]], c[sym[e]]);
        ww[e] = d2_set(W[e], W[3 * (e % 3) + e / 3]);
    }
}

/* out (upper triangle) += the rotated blocks: oac the upper triangles (O00, O01, O02, O11,
   O12, O22) of A'' (lane 0) and C'' (lane 1), oww those of B'' (lane 0) and B''^T (lane 1). */
static inline void m6_blocks_add(double *restrict out, const mbs_d2 oac[6],
                                 const mbs_d2 oww[6])
{
    static const int up[6] = {0, 1, 2, 7, 8, 14}; /* upper triangle of a 3x3 block of a 6x6 */
    for (int k = 0; k < 6; ++k) {
        out[up[k]] += d2_lo(oac[k]);
        out[21 + up[k]] += d2_hi(oac[k]);
    }
    out[3] += d2_lo(oww[0]);
    out[4] += d2_lo(oww[1]), out[9] += d2_hi(oww[1]);
    out[5] += d2_lo(oww[2]), out[15] += d2_hi(oww[2]);
    out[10] += d2_lo(oww[3]);
    out[11] += d2_lo(oww[4]), out[16] += d2_hi(oww[4]);
    out[17] += d2_lo(oww[5]);
}

/* Rigid-body inertia expressed in B, transformed to A: I_A = X_BA^T I_B X_BA. */
void rbi_transform_to_parent(mbs_rbi *out, const mbs_pose *X, const mbs_rbi *in);
/* The same with the pose given as R and p. */
void rbi_transform_rp(mbs_rbi *out, const double R[9], const double p[3], const mbs_rbi *in);
/* out += X^T in X for X = (R, p) (rbi_transform_rp added in place; out may not alias in). */
void rbi_transform_add(mbs_rbi *restrict out, const double R[9], const double p[3],
                       const mbs_rbi *restrict in);

/* Second half of rbi_transform_rp (RBDA eq. 2.66 with E = R^T, r = p): from the mass m, the
   rotated y = R h and upper triangle Ir of R Ibar R^T, the upper triangle I6 (00, 01, 02,
   11, 12, 22) of Ibar_A = Ir - [p]x[y]x - [h_A]x[p]x and h_A = y + m p, expanded with
   [a]x[b]x = b a^T - (a.b) 1. Every rotation kernel that feeds it gives the same sums. */
static inline void rbi_shifted(double I6[6], double hA[3], double m, const double y[3],
                               const double Ir[6], const double p[3])
{
    static const int row[6] = {0, 0, 0, 1, 1, 2}, col[6] = {0, 1, 2, 1, 2, 2};
    const double py = v3_dot(p, y), pp = v3_dot(p, p);
    const double diag = 2.0 * py + m * pp;
    for (int e = 0; e < 6; ++e) { /* one loop of fixed length: it unrolls (and vectorizes
                                     across callers' lanes, rnea_lanes.c) */
        const int i = row[e], j = col[e];
        const double s = Ir[e] - (y[i] * p[j] + p[i] * y[j]) - m * p[i] * p[j];
        I6[e] = i == j ? s + diag : s;
    }
    for (int i = 0; i < 3; ++i) hA[i] = y[i] + m * p[i];
}

/* out += the inertia of rbi_shifted (the composite-inertia step of the CRBA). */
static inline void rbi_shifted_add(mbs_rbi *restrict out, double m, const double y[3],
                                   const double Ir[6], const double p[3])
{
    double I6[6], hA[3];
    rbi_shifted(I6, hA, m, y, Ir, p);
    out->I[0] += I6[0], out->I[1] += I6[1], out->I[2] += I6[2];
    out->I[3] += I6[1], out->I[4] += I6[3], out->I[5] += I6[4];
    out->I[6] += I6[2], out->I[7] += I6[4], out->I[8] += I6[5];
    out->m += m;
    for (int i = 0; i < 3; ++i) out->h[i] += hA[i];
}
/* 6x6 symmetric articulated inertia in B transformed to A: I_A = X_BA^T I_B X_BA. */
void m6_transform_to_parent(double out[36], const mbs_pose *X, const double in[36]);
/* Upper triangle of out += X_BA^T in X_BA for a symmetric 6x6 in B of which only the upper
   triangle is read; the lower triangle of out is neither read nor written. */
void m6_sym_transform_add(double *restrict out, const mbs_pose *X, const double *restrict in);

#endif
