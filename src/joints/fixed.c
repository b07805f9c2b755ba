/* Fixed joint: no coordinates (nq = nv = 0); the joint frames always coincide. */
#include "core/joint.h"

/* Fc in Fp: the identity. */
static void fixed_transform(const mbs_joint_model *j, const double *aux, const double *q,
                            mbs_pose *X)
{
    (void)j;
    (void)aux;
    (void)q;
    pose_identity(X);
}

/* S has no columns; the joint adds no velocity, c_J = 0. */
static void fixed_motion(const mbs_joint_model *j, const double *q, const double *v, double *S,
                         double cJ[6])
{
    (void)j;
    (void)q;
    (void)v;
    (void)S;
    if (cJ) memset(cJ, 0, 6 * sizeof(double));
}

/* Cut rows: the cut force in Fp (3 POINT rows) and the torque in Fp (3 ANGLE rows). */
static int fixed_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    (void)j;
    int n = mbs_cut_points3(rows);
    return n + mbs_cut_lock_rotation(rows + n);
}

const mbs_joint_ops mbs_joint_fixed_ops = {
    .name = "fixed",
    .nq = 0,
    .nv = 0,
    .naux = 0,
    .transform = fixed_transform,
    .motion = fixed_motion,
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = fixed_cut_rows,
};
