/* Rotation utilities: quaternions, exponential/logarithm maps, Cardan angles (rotation.h). */
#include "core/rotation.h"

#include <float.h>
#include <math.h>

#include "core/spatial.h"

/* Below this angle (rad) the exp/log maps use their Taylor series; the first neglected
   term is ~angle^6/6e5 relative, far below DBL_EPSILON. */
#define SERIES_ANGLE 1e-3
/* |cos a2| below which Cardan rates are numerically singular (a2 within 1e-12 rad of
   +-pi/2, where the rates would exceed 1e12 |w|). */
#define CARDAN_SINGULAR_COS 1e-12

/* The identity rotation (1, 0, 0, 0). */
void mbs_quat_identity(double q[4])
{
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
}

/* Hamilton product: (aw bw - av.bv, aw bv + bw av + av x bv). */
void mbs_quat_mul(double o[4], const double a[4], const double b[4])
{
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    o[0] = w;
    o[1] = x;
    o[2] = y;
    o[3] = z;
}

/* Conjugate (w, -x, -y, -z). */
void mbs_quat_conj(double o[4], const double q[4])
{
    o[0] = q[0];
    o[1] = -q[1];
    o[2] = -q[2];
    o[3] = -q[3];
}

/* Unit scaling; rescales by the largest component first when |q|^2 would under/overflow,
   and falls back to the identity for zero or non-finite q. */
void mbs_quat_normalize(double q[4])
{
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(n2 > 1e-200 && n2 < 1e200)) {
        double m = fmax(fmax(fabs(q[0]), fabs(q[1])), fmax(fabs(q[2]), fabs(q[3])));
        if (!(m > 0.0 && m <= DBL_MAX) || !isfinite(q[0] + q[1] + q[2] + q[3])) {
            mbs_quat_identity(q);
            return;
        }
        for (int i = 0; i < 4; ++i) q[i] /= m;
        n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    }
    double s = 1.0 / sqrt(n2);
    for (int i = 0; i < 4; ++i) q[i] *= s;
}

/* R(q) = I + 2w[v]x + 2[v]x^2 scaled by 1/|q|^2 so the result is orthogonal for any q != 0. */
void mbs_quat_to_mat(double R[9], const double q[4])
{
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(n2 > 0.0)) {
        m3_identity(R);
        return;
    }
    double s = 2.0 / n2;
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double xx = s * x * x, yy = s * y * y, zz = s * z * z;
    double xy = s * x * y, xz = s * x * z, yz = s * y * z;
    double wx = s * w * x, wy = s * w * y, wz = s * w * z;
    R[0] = 1.0 - yy - zz; R[1] = xy - wz;       R[2] = xz + wy;
    R[3] = xy + wz;       R[4] = 1.0 - xx - zz; R[5] = yz - wx;
    R[6] = xz - wy;       R[7] = yz + wx;       R[8] = 1.0 - xx - yy;
}

/* Shepperd's method: take the square root of the largest of 4w^2, 4x^2, 4y^2, 4z^2
   (from the trace and diagonal) and the other components from off-diagonal sums. */
void mbs_mat_to_quat(double q[4], const double R[9])
{
    double tr = R[0] + R[4] + R[8];
    if (tr >= R[0] && tr >= R[4] && tr >= R[8]) {
        double r = sqrt(1.0 + tr), f = 0.5 / r;
        q[0] = 0.5 * r;
        q[1] = (R[7] - R[5]) * f;
        q[2] = (R[2] - R[6]) * f;
        q[3] = (R[3] - R[1]) * f;
    } else if (R[0] >= R[4] && R[0] >= R[8]) {
        double r = sqrt(fmax(1.0 + R[0] - R[4] - R[8], 0.0)), f = 0.5 / r;
        q[1] = 0.5 * r;
        q[0] = (R[7] - R[5]) * f;
        q[2] = (R[1] + R[3]) * f;
        q[3] = (R[2] + R[6]) * f;
    } else if (R[4] >= R[8]) {
        double r = sqrt(fmax(1.0 - R[0] + R[4] - R[8], 0.0)), f = 0.5 / r;
        q[2] = 0.5 * r;
        q[0] = (R[2] - R[6]) * f;
        q[1] = (R[1] + R[3]) * f;
        q[3] = (R[5] + R[7]) * f;
    } else {
        double r = sqrt(fmax(1.0 - R[0] - R[4] + R[8], 0.0)), f = 0.5 / r;
        q[3] = 0.5 * r;
        q[0] = (R[3] - R[1]) * f;
        q[1] = (R[2] + R[6]) * f;
        q[2] = (R[5] + R[7]) * f;
    }
    if (q[0] < 0.0)
        for (int i = 0; i < 4; ++i) q[i] = -q[i];
    mbs_quat_normalize(q);
}

/* o = x + 2w (v x x) + 2 v x (v x x) for unit q. */
void mbs_quat_rotate(double o[3], const double q[4], const double x[3])
{
    double t[3], u[3];
    v3_cross(t, q + 1, x);
    v3_scale(t, t, 2.0);
    v3_cross(u, q + 1, t);
    o[0] = x[0] + q[0] * t[0] + u[0];
    o[1] = x[1] + q[0] * t[1] + u[1];
    o[2] = x[2] + q[0] * t[2] + u[2];
}

/* q = (cos(th/2), sin(th/2)/th r); sin(th/2)/th = 1/2 - th^2/48 + th^4/3840 near 0. */
void mbs_quat_exp(double q[4], const double r[3])
{
    double th2 = v3_dot(r, r);
    double th = sqrt(th2);
    double k;
    if (th < SERIES_ANGLE)
        k = 0.5 - th2 / 48.0 + th2 * th2 / 3840.0;
    else
        k = sin(0.5 * th) / th;
    q[0] = cos(0.5 * th);
    q[1] = k * r[0];
    q[2] = k * r[1];
    q[3] = k * r[2];
}

/* r = 2 atan2(|v|, w) v/|v| with w >= 0 (shortest path); atan(t)/t series for small t. */
void mbs_quat_log(double r[3], const double q[4])
{
    double sgn = (q[0] < 0.0) ? -1.0 : 1.0;
    double w = sgn * q[0];
    double s = v3_norm(q + 1);
    double k;
    if (s == 0.0) {
        r[0] = r[1] = r[2] = 0.0;
        return;
    }
    if (s < SERIES_ANGLE * w) {
        double t2 = (s / w) * (s / w);
        k = 2.0 / w * (1.0 - t2 / 3.0 + t2 * t2 / 5.0 - t2 * t2 * t2 / 7.0);
    } else {
        k = 2.0 * atan2(s, w) / s;
    }
    k *= sgn;
    r[0] = k * q[1];
    r[1] = k * q[2];
    r[2] = k * q[3];
}

/* o = normalize(q (x) exp(w dt)). */
void mbs_quat_integrate(double o[4], const double q[4], const double w[3], double dt)
{
    double r[3], e[4];
    v3_scale(r, w, dt);
    mbs_quat_exp(e, r);
    mbs_quat_mul(o, q, e);
    mbs_quat_normalize(o);
}

/* r = log(conj(q0) (x) q1). */
void mbs_quat_difference(double r[3], const double q0[4], const double q1[4])
{
    double c[4], d[4];
    mbs_quat_conj(c, q0);
    mbs_quat_mul(d, c, q1);
    mbs_quat_log(r, d);
}

/* qdot = 1/2 q (x) (0, w) = 1/2 (-v.w, qw w + v x w). */
void mbs_quat_deriv(double qdot[4], const double q[4], const double w[3])
{
    double c[3];
    v3_cross(c, q + 1, w);
    double w0 = -0.5 * v3_dot(q + 1, w);
    qdot[1] = 0.5 * (q[0] * w[0] + c[0]);
    qdot[2] = 0.5 * (q[0] * w[1] + c[1]);
    qdot[3] = 0.5 * (q[0] * w[2] + c[2]);
    qdot[0] = w0;
}

/* See rotation.h: T = -[w]x (row stride ld). */
void mbs_quat_chart_rate(const double w[3], double *T, int ld)
{
    T[0] = 0.0, T[1] = w[2], T[2] = -w[1];
    T[ld] = -w[2], T[ld + 1] = 0.0, T[ld + 2] = w[0];
    T[2 * ld] = w[1], T[2 * ld + 1] = -w[0], T[2 * ld + 2] = 0.0;
}

/* Rotation vector of R through its quaternion. */
void mbs_mat_log(double r[3], const double R[9])
{
    double q[4];
    mbs_mat_to_quat(q, R);
    mbs_quat_log(r, q);
}

/* Project R back onto the rotations through its (normalized) quaternion. */
void mbs_mat_orthonormalize(double R[9])
{
    double q[4];
    mbs_mat_to_quat(q, R);
    mbs_quat_to_mat(R, q);
}

/* R = Rx(a1) Ry(a2) Rz(a3), multiplied out. */
void mbs_cardan_to_mat(double R[9], const double a[3])
{
    double s1 = sin(a[0]), c1 = cos(a[0]);
    double s2 = sin(a[1]), c2 = cos(a[1]);
    double s3 = sin(a[2]), c3 = cos(a[2]);
    R[0] = c2 * c3;
    R[1] = -c2 * s3;
    R[2] = s2;
    R[3] = s1 * s2 * c3 + c1 * s3;
    R[4] = c1 * c3 - s1 * s2 * s3;
    R[5] = -s1 * c2;
    R[6] = s1 * s3 - c1 * s2 * c3;
    R[7] = c1 * s2 * s3 + s1 * c3;
    R[8] = c1 * c2;
}

/* a1 from the last column (-R12, R22) = c2 (s1, c1); then M = Rx(a1)^T R = Ry(a2) Rz(a3),
   whose entries give a2 and a3 well conditioned even near cos(a2) = 0: an error d in a1
   there only changes R by d cos(a2). */
void mbs_mat_to_cardan(double a[3], const double R[9])
{
    double a1 = atan2(-R[5], R[8]);
    double s1 = sin(a1), c1 = cos(a1);
    double m10 = c1 * R[3] + s1 * R[6], m11 = c1 * R[4] + s1 * R[7];
    double m22 = -s1 * R[5] + c1 * R[8];
    a[0] = a1;
    a[1] = atan2(R[2], m22);
    a[2] = atan2(m10, m11);
}

/* Jc: columns Rz^T Ry^T e1, Rz^T e2, e3 (w = R^T Rdot for R = Rx Ry Rz). */
void mbs_cardan_rate_matrix(double J[9], const double a[3])
{
    double s2 = sin(a[1]), c2 = cos(a[1]);
    double s3 = sin(a[2]), c3 = cos(a[2]);
    J[0] = c2 * c3;  J[1] = s3; J[2] = 0.0;
    J[3] = -c2 * s3; J[4] = c3; J[5] = 0.0;
    J[6] = s2;       J[7] = 0.0; J[8] = 1.0;
}

/* dJc/dt = sum_k dJc/da_k adot_k (only a2, a3 enter). */
void mbs_cardan_rate_matrix_dot(double Jd[9], const double a[3], const double adot[3])
{
    double s2 = sin(a[1]), c2 = cos(a[1]);
    double s3 = sin(a[2]), c3 = cos(a[2]);
    double d2 = adot[1], d3 = adot[2];
    Jd[0] = -s2 * c3 * d2 - c2 * s3 * d3; Jd[1] = c3 * d3;  Jd[2] = 0.0;
    Jd[3] = s2 * s3 * d2 - c2 * c3 * d3;  Jd[4] = -s3 * d3; Jd[5] = 0.0;
    Jd[6] = c2 * d2;                      Jd[7] = 0.0;      Jd[8] = 0.0;
}

/* Solve Jc adot = w: a1' = (c3 w1 - s3 w2)/c2, a2' = s3 w1 + c3 w2, a3' = w3 - s2 a1'. */
int mbs_cardan_rates(double adot[3], const double a[3], const double w[3])
{
    double s2 = sin(a[1]), c2 = cos(a[1]);
    double s3 = sin(a[2]), c3 = cos(a[2]);
    if (!(fabs(c2) >= CARDAN_SINGULAR_COS)) return -1;
    double d1 = (c3 * w[0] - s3 * w[1]) / c2;
    adot[0] = d1;
    adot[1] = s3 * w[0] + c3 * w[1];
    adot[2] = w[2] - s2 * d1;
    return 0;
}

/* Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library", §6.5: move the
   rotation into the reference frame when a2 nears +-90 degrees;
   at a = 0 Jc = I, so the new rates are the angular velocity itself. */
int mbs_cardan_rebase(double fix[9], double a[3], double adot[3])
{
    if (!(fabs(cos(a[1])) < MBS_CARDAN_REBASE_COS)) return 0;
    double J[9], w[3], R[9], F[9];
    mbs_cardan_rate_matrix(J, a);
    m3_mulv(w, J, adot);
    mbs_cardan_to_mat(R, a);
    m3_mul(F, fix, R);
    mbs_mat_orthonormalize(F);
    memcpy(fix, F, sizeof F);
    a[0] = a[1] = a[2] = 0.0;
    v3_copy(adot, w);
    return 1;
}
