/* Revolute joint: q = angle about the unit axis, v = its rate (nq = nv = 1). */
#include "core/joint.h"
#include "core/kernels.h"

/* Fc in Fp: rotation by q about axis (one sin/cos + Rodrigues), no translation. About a
   coordinate axis +-e_k the diagonal entry R_kk is exactly 1 (Rodrigues gives (1 - c) + c,
   one ulp below 1 for some c < 0), so that R equals the rotation the kernels of
   src/core/axis_*.c build from c and s. */
static void revolute_transform(const mbs_joint_model *j, const double *aux, const double *q,
                               mbs_pose *X)
{
    (void)aux;
    const double *a = j->axis;
    m3_axis_angle(X->R, a, q[0]);
    for (int k = 0; k < 3; ++k)
        if (a[(k + 1) % 3] == 0.0 && a[(k + 2) % 3] == 0.0) X->R[4 * k] = 1.0;
    X->p[0] = X->p[1] = X->p[2] = 0.0;
}

/* S = [axis; 0] (the axis is invariant under its own rotation); c_J = 0. */
static void revolute_motion(const mbs_joint_model *j, const double *q, const double *v,
                            double *S, double cJ[6])
{
    (void)q;
    (void)v;
    S[0] = j->axis[0];
    S[1] = j->axis[1];
    S[2] = j->axis[2];
    S[3] = S[4] = S[5] = 0.0;
    if (cJ) memset(cJ, 0, 6 * sizeof(double));
}

/* Cut rows: the cut force in Fp (3 POINT rows) and the torques about u1, u2 perpendicular
   to the axis (2 ANGLE rows keeping the child's axis on the parent's). */
static int revolute_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    int n = mbs_cut_points3(rows);
    return n + mbs_cut_keep_axis(rows + n, j->axis, NULL, NULL);
}

const mbs_joint_ops mbs_joint_revolute_ops = {
    .name = "revolute",
    .nq = 1,
    .nv = 1,
    .naux = 0,
    .transform = revolute_transform,
    .motion = revolute_motion,
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = revolute_cut_rows,
    .kernels = mbs_kernels_revolute_axis, /* about / along a coordinate axis */
};
