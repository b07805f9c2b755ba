/* Rotation utilities: unit quaternions (scalar first, Hamilton product), rotation vectors
 * (exponential / logarithm maps), Cardan angles x-y-z about the moving axes and their rate
 * matrices. Matrices are 3x3 row-major. A rotation R maps child to parent coordinates:
 * x_parent = R x_child. All functions are allocation-free and do bounded work. */
#ifndef MBS_CORE_ROTATION_H
#define MBS_CORE_ROTATION_H

/* Cardan re-base threshold: a Cardan joint changes its reference frame "Fix" when
   |cos(a2)| < MBS_CARDAN_REBASE_COS, i.e. |a2| > acos(0.3) = 72.5 degrees (within 17.5
   degrees of the singularity at +-90 degrees). Up to there det Jc = cos(a2) stays >= 0.3
   in magnitude; after the re-base the angles are 0 and Jc = I. */
#define MBS_CARDAN_REBASE_COS 0.3

/* o = R(u, th) x for a unit axis u, given c = cos th and s = sin th (Rodrigues:
   x c + s u x x + (1 - c)(u.x) u); pass -s for R^T x. o may not alias x. */
static inline void mbs_rotate_axis_angle(double o[3], const double u[3], double c, double s,
                                         const double x[3])
{
    double k = (1.0 - c) * (u[0] * x[0] + u[1] * x[1] + u[2] * x[2]);
    o[0] = c * x[0] + s * (u[1] * x[2] - u[2] * x[1]) + k * u[0];
    o[1] = c * x[1] + s * (u[2] * x[0] - u[0] * x[2]) + k * u[1];
    o[2] = c * x[2] + s * (u[0] * x[1] - u[1] * x[0]) + k * u[2];
}

/* ---- quaternions q = (w, x, y, z) */
void mbs_quat_identity(double q[4]);
/* o = a (x) b (Hamilton product; R(a (x) b) = R(a) R(b)); o may alias a or b. */
void mbs_quat_mul(double o[4], const double a[4], const double b[4]);
/* o = conjugate of q (the inverse of a unit quaternion); o may alias q. */
void mbs_quat_conj(double o[4], const double q[4]);
/* Scale q to unit length; zero, tiny-underflowing or non-finite q becomes the identity. */
void mbs_quat_normalize(double q[4]);
/* Rotation matrix of q, exactly orthogonal for any non-zero q (uses 2/|q|^2); identity for
   q = 0. */
void mbs_quat_to_mat(double R[9], const double q[4]);
/* Unit quaternion with w >= 0 of a rotation matrix (Shepperd's method). */
void mbs_mat_to_quat(double q[4], const double R[9]);
/* o = R(q) x for a unit q; o may alias x. */
void mbs_quat_rotate(double o[3], const double q[4], const double x[3]);
/* Exponential map: unit quaternion of the rotation vector r (angle |r| about r/|r|),
   q = (cos(|r|/2), sin(|r|/2) r/|r|); series near |r| = 0. */
void mbs_quat_exp(double q[4], const double r[3]);
/* Logarithm map: rotation vector r of q along the shortest path (|r| <= pi; q and -q give
   the same r); q need not be unit. */
void mbs_quat_log(double r[3], const double q[4]);
/* o = q (x) exp(w dt), normalized: integration of a body-frame angular velocity w held
   constant over dt; o may alias q. */
void mbs_quat_integrate(double o[4], const double q[4], const double w[3], double dt);
/* r = log(conj(q0) (x) q1): the body-frame rotation vector with
   mbs_quat_integrate(q0, r, 1) == q1. */
void mbs_quat_difference(double r[3], const double q0[4], const double q1[4]);
/* qdot = 1/2 q (x) (0, w), w the angular velocity in the rotated (child) frame. */
void mbs_quat_deriv(double qdot[4], const double q[4], const double w[3]);
/* The rate of the tangent offset dr of q = q* (x) exp(dr) when q* turns with body rates w:
   d(dr)/dt = dw - w x dr to first order; writes -[w]x into the 3 x 3 block at T with row
   stride ld. */
void mbs_quat_chart_rate(const double w[3], double *T, int ld);

/* ---- rotation matrices */
/* Rotation vector of R (shortest path, |r| <= pi). */
void mbs_mat_log(double r[3], const double R[9]);
/* Nearest rotation (through the quaternion of R); R in place. */
void mbs_mat_orthonormalize(double R[9]);

/* ---- Cardan angles a = (a1, a2, a3): R = Rx(a1) Ry(a2) Rz(a3) */
void mbs_cardan_to_mat(double R[9], const double a[3]);
/* Angles of R with a2 in [-pi/2, pi/2], a1, a3 in [-pi, pi]. Near the singularity
   (cos a2 -> 0) only a1 +- a3 is determined; the split returned still reproduces R to
   rounding (a1 = 0 when cos a2 is exactly 0). */
void mbs_mat_to_cardan(double a[3], const double R[9]);
/* Rate matrix Jc (3x3): angular velocity in the child frame w = Jc(a) adot,
   Jc = [c2 c3, s3, 0; -c2 s3, c3, 0; s2, 0, 1]. */
void mbs_cardan_rate_matrix(double J[9], const double a[3]);
/* Time derivative of Jc(a) along the rates adot. */
void mbs_cardan_rate_matrix_dot(double Jd[9], const double a[3], const double adot[3]);
/* adot = Jc(a)^-1 w; returns 0, or -1 (adot untouched) when |cos(a2)| < 1e-12 (numerically
   singular) or a is not finite. */
int mbs_cardan_rates(double adot[3], const double a[3], const double w[3]);
/* Re-base (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §6.5): when |cos(a2)| < MBS_CARDAN_REBASE_COS, set fix = fix R(a)
   (orthonormalized), a = 0 and adot = Jc(a) adot (so w in the child frame is unchanged);
   returns 1 then, else 0 with nothing changed. fix is 3x3 row-major. */
int mbs_cardan_rebase(double fix[9], double a[3], double adot[3]);

#endif
