/* Spatial algebra over symbolic scalars, the same conventions as src/core/spatial.h
 * (Featherstone, "Rigid Body Dynamics Algorithms" 2008, ch. 2): poses are the pose of B in
 * A, motion vectors [w; v], force vectors [n; f], 6 x 6 matrices row-major. */
#include "cg.h"

void cg_pose_const(cg_pose *X, const mbs_pose *P)
{
    for (int i = 0; i < 9; ++i) X->R[i] = cg_const(P->R[i]);
    for (int i = 0; i < 3; ++i) X->p[i] = cg_const(P->p[i]);
}

void cg_pose_identity(cg_pose *X)
{
    for (int i = 0; i < 9; ++i) X->R[i] = cg_const(i % 4 == 0 ? 1.0 : 0.0);
    for (int i = 0; i < 3; ++i) X->p[i] = cg_const(0.0);
}

cg_val cg_dot(cg_out *o, const cg_val *a, const cg_val *b, int n)
{
    cg_val s = cg_mul(o, a[0], b[0]);
    for (int k = 1; k < n; ++k) s = cg_add(o, s, cg_mul(o, a[k], b[k]));
    return s;
}

/* r = A x */
void cg_m3_mulv(cg_out *o, cg_val r[3], const cg_val A[9], const cg_val x[3])
{
    for (int i = 0; i < 3; ++i) r[i] = cg_dot(o, A + 3 * i, x, 3);
}

/* r = A^T x */
void cg_m3_tmulv(cg_out *o, cg_val r[3], const cg_val A[9], const cg_val x[3])
{
    for (int i = 0; i < 3; ++i) {
        const cg_val col[3] = {A[i], A[3 + i], A[6 + i]};
        r[i] = cg_dot(o, col, x, 3);
    }
}

void cg_m3_mul(cg_out *o, cg_val C[9], const cg_val A[9], const cg_val B[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const cg_val col[3] = {B[j], B[3 + j], B[6 + j]};
            C[3 * i + j] = cg_dot(o, A + 3 * i, col, 3);
        }
}

void cg_cross(cg_out *o, cg_val r[3], const cg_val a[3], const cg_val b[3])
{
    cg_val t[3];
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        t[i] = cg_sub(o, cg_mul(o, a[j], b[k]), cg_mul(o, a[k], b[j]));
    }
    for (int i = 0; i < 3; ++i) r[i] = t[i];
}

void cg_pose_mul(cg_out *o, cg_pose *C, const cg_pose *A, const cg_pose *B)
{
    cg_pose r;
    cg_m3_mul(o, r.R, A->R, B->R);
    cg_m3_mulv(o, r.p, A->R, B->p);
    for (int i = 0; i < 3; ++i) r.p[i] = cg_add(o, r.p[i], A->p[i]);
    *C = r;
}

void cg_pose_mul_inv(cg_out *o, cg_pose *C, const cg_pose *A, const cg_pose *B)
{
    cg_pose r;
    cg_val Bt[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Bt[3 * i + j] = B->R[3 * j + i];
    cg_m3_mul(o, r.R, A->R, Bt);
    cg_m3_mulv(o, r.p, r.R, B->p);
    for (int i = 0; i < 3; ++i) r.p[i] = cg_sub(o, A->p[i], r.p[i]);
    *C = r;
}

/* Rodrigues with a constant unit axis: R = c I + s [u]x + (1 - c) u u^T, the diagonal as
   u_i^2 + (1 - u_i^2) c so that it folds to 1 or c about a coordinate axis. */
void cg_axis_angle(cg_out *o, cg_val R[9], const double u[3], cg_val c, cg_val s)
{
    const cg_val t = cg_sub(o, cg_const(1.0), c);
    const double ux[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const double uu = u[i] * u[j];
            if (i == j)
                R[3 * i + j] = cg_add(o, cg_const(uu), cg_mul(o, cg_const(1.0 - uu), c));
            else
                R[3 * i + j] = cg_add(o, cg_mul(o, t, cg_const(uu)), cg_mul(o, s, cg_const(ux[3 * i + j])));
        }
}

/* R(q) scaled by 2 / |q|^2 (orthogonal for any q != 0), as mbs_quat_to_mat. */
void cg_quat_to_mat(cg_out *o, cg_val R[9], const cg_val q[4])
{
    const cg_val s = cg_div(o, cg_const(2.0), cg_dot(o, q, q, 4));
    const cg_val w = q[0], x = q[1], y = q[2], z = q[3];
    const cg_val xx = cg_mul(o, cg_mul(o, s, x), x), yy = cg_mul(o, cg_mul(o, s, y), y);
    const cg_val zz = cg_mul(o, cg_mul(o, s, z), z), xy = cg_mul(o, cg_mul(o, s, x), y);
    const cg_val xz = cg_mul(o, cg_mul(o, s, x), z), yz = cg_mul(o, cg_mul(o, s, y), z);
    const cg_val wx = cg_mul(o, cg_mul(o, s, w), x), wy = cg_mul(o, cg_mul(o, s, w), y);
    const cg_val wz = cg_mul(o, cg_mul(o, s, w), z), one = cg_const(1.0);
    R[0] = cg_sub(o, cg_sub(o, one, yy), zz), R[1] = cg_sub(o, xy, wz), R[2] = cg_add(o, xz, wy);
    R[3] = cg_add(o, xy, wz), R[4] = cg_sub(o, cg_sub(o, one, xx), zz), R[5] = cg_sub(o, yz, wx);
    R[6] = cg_sub(o, xz, wy), R[7] = cg_add(o, yz, wx), R[8] = cg_sub(o, cg_sub(o, one, xx), yy);
}

/* motion A -> B: [R^T w; R^T (v - p x w)] */
void cg_xm_apply(cg_out *o, cg_val r[6], const cg_pose *X, const cg_val m[6])
{
    cg_val t[3], u[3];
    cg_m3_tmulv(o, r, X->R, m);
    cg_cross(o, t, X->p, m);
    for (int i = 0; i < 3; ++i) u[i] = cg_sub(o, m[3 + i], t[i]);
    cg_m3_tmulv(o, r + 3, X->R, u);
}

/* motion B -> A: [R w; p x (R w) + R v] */
void cg_xm_apply_inv(cg_out *o, cg_val r[6], const cg_pose *X, const cg_val m[6])
{
    cg_val t[3], rw[3], c[3];
    cg_m3_mulv(o, rw, X->R, m);
    cg_m3_mulv(o, t, X->R, m + 3);
    cg_cross(o, c, X->p, rw);
    for (int i = 0; i < 3; ++i) r[i] = rw[i], r[3 + i] = cg_add(o, c[i], t[i]);
}

/* force B -> A: [R n + p x (R f); R f] */
void cg_xf_apply_transpose(cg_out *o, cg_val r[6], const cg_pose *X, const cg_val f[6])
{
    cg_val n[3], rf[3], c[3];
    cg_m3_mulv(o, rf, X->R, f + 3);
    cg_m3_mulv(o, n, X->R, f);
    cg_cross(o, c, X->p, rf);
    for (int i = 0; i < 3; ++i) r[i] = cg_add(o, n[i], c[i]), r[3 + i] = rf[i];
}

void cg_mv_cross_m(cg_out *o, cg_val r[6], const cg_val a[6], const cg_val b[6])
{
    cg_val w[3], v1[3], v2[3];
    cg_cross(o, w, a, b);
    cg_cross(o, v1, a, b + 3);
    cg_cross(o, v2, a + 3, b);
    for (int i = 0; i < 3; ++i) r[i] = w[i], r[3 + i] = cg_add(o, v1[i], v2[i]);
}

void cg_mv_cross_f(cg_out *o, cg_val r[6], const cg_val m[6], const cg_val f[6])
{
    cg_val n1[3], n2[3], f1[3];
    cg_cross(o, n1, m, f);
    cg_cross(o, n2, m + 3, f + 3);
    cg_cross(o, f1, m, f + 3);
    for (int i = 0; i < 3; ++i) r[i] = cg_add(o, n1[i], n2[i]), r[3 + i] = f1[i];
}

void cg_m6_mulv(cg_out *o, cg_val r[6], const cg_val M[36], const cg_val v[6])
{
    for (int i = 0; i < 6; ++i) r[i] = cg_dot(o, M + 6 * i, v, 6);
}

/* The 6 x 6 matrix of the motion transform A -> B: [R^T 0; -R^T [p]x R^T]. */
static void motion_matrix(cg_out *o, cg_val X[36], const cg_pose *P)
{
    cg_val px[9] = {cg_const(0), cg_neg(o, P->p[2]), P->p[1], P->p[2], cg_const(0),
                    cg_neg(o, P->p[0]), cg_neg(o, P->p[1]), P->p[0], cg_const(0)};
    cg_val Rt[9], Rtpx[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Rt[3 * i + j] = P->R[3 * j + i];
    cg_m3_mul(o, Rtpx, Rt, px);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            X[6 * i + j] = Rt[3 * i + j];
            X[6 * i + j + 3] = cg_const(0.0);
            X[6 * (i + 3) + j] = cg_neg(o, Rtpx[3 * i + j]);
            X[6 * (i + 3) + j + 3] = Rt[3 * i + j];
        }
}

/* out = X^T M X, symmetric M in B: upper triangle computed, mirrored. */
void cg_m6_transform_to_parent(cg_out *o, cg_val out[36], const cg_pose *P, const cg_val M[36])
{
    cg_val X[36], MX[36];
    motion_matrix(o, X, P);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            const cg_val col[6] = {X[j], X[6 + j], X[12 + j], X[18 + j], X[24 + j], X[30 + j]};
            MX[6 * i + j] = cg_dot(o, M + 6 * i, col, 6);
        }
    for (int i = 0; i < 6; ++i)
        for (int j = i; j < 6; ++j) {
            const cg_val xi[6] = {X[i], X[6 + i], X[12 + i], X[18 + i], X[24 + i], X[30 + i]};
            const cg_val mj[6] = {MX[j], MX[6 + j], MX[12 + j], MX[18 + j], MX[24 + j], MX[30 + j]};
            out[6 * i + j] = out[6 * j + i] = cg_dot(o, xi, mj, 6);
        }
}

/* The 6 x 6 of a rigid-body inertia about the body origin (constant). */
void cg_rbi_m6(cg_val M[36], const mbs_rbi *I)
{
    const double *h = I->h;
    const double hx[9] = {0, -h[2], h[1], h[2], 0, -h[0], -h[1], h[0], 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            M[6 * i + j] = cg_const(I->I[3 * i + j]);
            M[6 * (i + 3) + j + 3] = cg_const(i == j ? I->m : 0.0);
            M[6 * i + j + 3] = cg_const(hx[3 * i + j]);
            M[6 * (j + 3) + i] = cg_const(hx[3 * i + j]);
        }
}
