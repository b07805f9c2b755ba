/* Cylindrical joint: q = [s, phi], translation s along and rotation phi about the unit axis;
   v = [s', phi'] (nq = nv = 2). */
#include "joints/joint.h"

/* Fc in Fp: R = R(axis, phi), p = s axis. */
static void cylindrical_transform(const mbs_joint_model *j, const double *aux, const double *q,
                                  mbs_pose *X)
{
    (void)aux;
    m3_axis_angle(X->R, j->axis, q[1]);
    v3_scale(X->p, j->axis, q[0]);
}

/* S = [0 axis; axis 0]: the axis and the origin (on the axis) are invariant under the
   rotation, so S is constant and c_J = 0. */
static void cylindrical_motion(const mbs_joint_model *j, const double *q, const double *v,
                               double *S, double cJ[6])
{
    (void)q;
    (void)v;
    S[0] = S[1] = S[2] = 0.0;
    v3_copy(S + 3, j->axis);
    v3_copy(S + 6, j->axis);
    S[9] = S[10] = S[11] = 0.0;
    if (cJ) memset(cJ, 0, 6 * sizeof(double));
}

/* Euclidean chart: q_out = q + dt v. */
static void cylindrical_integrate(const mbs_joint_model *j, const double *q, const double *v,
                                  double dt, double *q_out)
{
    (void)j;
    q_out[0] = q[0] + dt * v[0];
    q_out[1] = q[1] + dt * v[1];
}

/* v_out = q1 - q0. */
static void cylindrical_difference(const mbs_joint_model *j, const double *q0,
                                   const double *q1, double *v_out)
{
    (void)j;
    v_out[0] = q1[0] - q0[0];
    v_out[1] = q1[1] - q0[1];
}

/* qdot = v. */
static void cylindrical_qdot(const mbs_joint_model *j, const double *q, const double *v,
                             double *qdot)
{
    (void)j;
    (void)q;
    qdot[0] = v[0];
    qdot[1] = v[1];
}

/* Neutral [0, 0]. */
static void cylindrical_neutral(const mbs_joint_model *j, double *q)
{
    (void)j;
    q[0] = q[1] = 0.0;
}

/* Every real q is valid: nothing to project. */
static void cylindrical_normalize(const mbs_joint_model *j, double *q)
{
    (void)j;
    (void)q;
}

/* Cut rows: the force perpendicular to the axis (POINT along u1, u2) and the torques about
   u1, u2 (ANGLE rows keeping the axes parallel). */
static int cylindrical_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    int n = mbs_cut_points_perp(rows, j->axis);
    return n + mbs_cut_keep_axis(rows + n, j->axis, NULL, NULL);
}

const mbs_joint_ops mbs_joint_cylindrical_ops = {
    .name = "cylindrical",
    .nq = 2,
    .nv = 2,
    .naux = 0,
    .transform = cylindrical_transform,
    .motion = cylindrical_motion,
    .integrate = cylindrical_integrate,
    .difference = cylindrical_difference,
    .qdot = cylindrical_qdot,
    .neutral = cylindrical_neutral,
    .normalize = cylindrical_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = cylindrical_cut_rows,
};
