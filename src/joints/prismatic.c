/* Prismatic joint: q = displacement along the unit axis, v = its rate (nq = nv = 1). */
#include "core/joint.h"
#include "core/kernels.h"

/* Fc in Fp: no rotation, translation q axis. */
static void prismatic_transform(const mbs_joint_model *j, const double *aux, const double *q,
                                mbs_pose *X)
{
    (void)aux;
    m3_identity(X->R);
    v3_scale(X->p, j->axis, q[0]);
}

/* S = [0; axis] (R = I, so Fc and Fp coordinates agree); c_J = 0. */
static void prismatic_motion(const mbs_joint_model *j, const double *q, const double *v,
                             double *S, double cJ[6])
{
    (void)q;
    (void)v;
    S[0] = S[1] = S[2] = 0.0;
    S[3] = j->axis[0];
    S[4] = j->axis[1];
    S[5] = j->axis[2];
    if (cJ) memset(cJ, 0, 6 * sizeof(double));
}

/* Cut rows: the force perpendicular to the axis (2 POINT rows along u1, u2) and the torque
   in Fp (3 ANGLE rows locking the rotation). */
static int prismatic_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    int n = mbs_cut_points_perp(rows, j->axis);
    return n + mbs_cut_lock_rotation(rows + n);
}

const mbs_joint_ops mbs_joint_prismatic_ops = {
    .name = "prismatic",
    .nq = 1,
    .nv = 1,
    .naux = 0,
    .transform = prismatic_transform,
    .motion = prismatic_motion,
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = prismatic_cut_rows,
    .kernels = mbs_kernels_prismatic_axis, /* about / along a coordinate axis */
};
