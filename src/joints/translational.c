/* Translational joint: q = position of the Fc origin in Fp (3), v = its velocity in Fp (3);
 * Fc keeps the orientation of Fp (nq = nv = 3). The joint of a point mass (Otter, Elmqvist,
 * Mattsson 2003, Fig. 7; MSL Parts.PointMass): compile gives it to a point mass that would
 * otherwise get an automatic free joint, whose rotation is undefined. As a cut joint it
 * locks the relative rotation. */
#include "core/joint.h"

/* Fc in Fp: no rotation, translation q. */
static void translational_transform(const mbs_joint_model *j, const double *aux,
                                    const double *q, mbs_pose *X)
{
    (void)j;
    (void)aux;
    m3_identity(X->R);
    v3_copy(X->p, q);
}

/* S = [0 0 0; e_x e_y e_z] (R = I: Fc and Fp coordinates agree), c_J = 0. */
static void translational_motion(const mbs_joint_model *j, const double *q, const double *v,
                                 double *S, double cJ[6])
{
    (void)j;
    (void)q;
    (void)v;
    memset(S, 0, 18 * sizeof(double));
    S[3] = S[10] = S[17] = 1.0;
    if (cJ) memset(cJ, 0, 6 * sizeof(double));
}

/* Cut rows: the torque in Fp (3 ANGLE rows locking the rotation). */
static int translational_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    (void)j;
    return mbs_cut_lock_rotation(rows);
}

const mbs_joint_ops mbs_joint_translational_ops = {
    .name = "translational",
    .nq = 3,
    .nv = 3,
    .naux = 0,
    .transform = translational_transform,
    .motion = translational_motion,
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = translational_cut_rows,
};
