/* Swing joint: the spherical joint into a point mass, reduced. A point mass hanging at the
 * offset c from the joint centre (Fc coordinates) has no inertia about the line through the
 * centre and the mass: the spin about it moves nothing and would leave the articulated
 * inertia singular. Compile gives such a spherical joint this ops table instead: the child's
 * angular velocity is restricted to the two directions perpendicular to c, so
 *   q = unit quaternion (w, x, y, z) of Fc in Fp (4), as for the spherical joint;
 *   v = [w1, w2], the angular velocity w = w1 axis + w2 axis2 in Fc (2),
 * with axis, axis2, axis3 = c / |c| a right-handed unit triad fixed in Fc (compile, from
 * mbs_cut_perp(axis3)). The quaternion still carries a spin about axis3 (drifting as the
 * swing moves along curved paths); it is a gauge that changes no point of the mass's
 * position, which is the only thing a point mass has. The difference of two quaternions is
 * therefore taken on the sphere of mass positions: the shortest swing that carries the mass
 * from one position to the other. */
#include "core/joint.h"
#include "core/rotation.h"

/* w = v0 axis + v1 axis2 (Fc coordinates). */
static void swing_omega(const mbs_joint_model *j, const double *v, double w[3])
{
    v3_scale(w, j->axis, v[0]);
    v3_axpy(w, v[1], j->axis2);
}

/* Fc in Fp: R = R(q), no translation. */
static void swing_transform(const mbs_joint_model *j, const double *aux, const double *q,
                            mbs_pose *X)
{
    (void)j;
    (void)aux;
    mbs_quat_to_mat(X->R, q);
    X->p[0] = X->p[1] = X->p[2] = 0.0;
}

/* S = [axis axis2; 0 0], constant in Fc coordinates, so c_J = 0. */
static void swing_motion(const mbs_joint_model *j, const double *q, const double *v,
                         double *S, double cJ[6])
{
    (void)q;
    (void)v;
    memset(S, 0, 12 * sizeof(double));
    v3_copy(S, j->axis);
    v3_copy(S + 6, j->axis2);
    if (cJ) memset(cJ, 0, 6 * sizeof(double));
}

/* q_out = q (x) exp(w dt), normalized. */
static void swing_integrate(const mbs_joint_model *j, const double *q, const double *v,
                            double dt, double *q_out)
{
    double w[3];
    swing_omega(j, v, w);
    mbs_quat_integrate(q_out, q, w, dt);
}

/* The shortest swing from q0 to q1 of the mass direction: with u = R0^T R1 axis3 (q1's mass
   direction in q0's Fc), the rotation vector r = angle(axis3, u) (axis3 x u) / |axis3 x u|
   (perpendicular to axis3) in q0's Fc, so that integrate(q0, v_out, 1) puts the mass where
   q1 does; opposite directions swing by pi about axis. */
static void swing_difference(const mbs_joint_model *j, const double *q0, const double *q1,
                             double *v_out)
{
    double q0c[4], rel[4], u[3], n[3], r[3];
    mbs_quat_conj(q0c, q0);
    mbs_quat_mul(rel, q0c, q1);
    mbs_quat_normalize(rel);
    mbs_quat_rotate(u, rel, j->axis3);
    v3_cross(n, j->axis3, u);
    const double s = v3_norm(n), c = v3_dot(j->axis3, u), angle = atan2(s, c);
    if (s > 0.0)
        v3_scale(r, n, angle / s);
    else
        v3_scale(r, j->axis, angle); /* 0 (same direction) or pi (opposite) */
    v_out[0] = v3_dot(r, j->axis);
    v_out[1] = v3_dot(r, j->axis2);
}

/* qdot = 1/2 q (x) (0, w). */
static void swing_qdot(const mbs_joint_model *j, const double *q, const double *v,
                       double *qdot)
{
    double w[3];
    swing_omega(j, v, w);
    mbs_quat_deriv(qdot, q, w);
}

/* Neutral: the identity quaternion. */
static void swing_neutral(const mbs_joint_model *j, double *q)
{
    (void)j;
    mbs_quat_identity(q);
}

/* Unit quaternion (identity for zero or non-finite q). */
static void swing_normalize(const mbs_joint_model *j, double *q)
{
    (void)j;
    mbs_quat_normalize(q);
}

/* Cut rows (a reduced joint is a tree joint; for completeness): those of a ball joint. */
static int swing_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    (void)j;
    return mbs_cut_points3(rows);
}

const mbs_joint_ops mbs_joint_swing_ops = {
    .name = "spherical_point_mass",
    .nq = 4,
    .nv = 2,
    .naux = 0,
    .transform = swing_transform,
    .motion = swing_motion,
    .integrate = swing_integrate,
    .difference = swing_difference,
    .qdot = swing_qdot,
    .neutral = swing_neutral,
    .normalize = swing_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = swing_cut_rows,
};
