/* Cylindrical joint: q = [s, phi], translation s along and rotation phi about the unit axis;
   v = [s', phi'] (nq = nv = 2). */
#include "core/joint.h"

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
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = cylindrical_cut_rows,
};
