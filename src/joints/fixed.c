/* Fixed joint: no coordinates (nq = nv = 0); the joint frames always coincide. */
#include "joints/joint.h"

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

/* Empty q: nothing moves. */
static void fixed_integrate(const mbs_joint_model *j, const double *q, const double *v,
                            double dt, double *q_out)
{
    (void)j;
    (void)q;
    (void)v;
    (void)dt;
    (void)q_out;
}

/* Empty v: nothing to write. */
static void fixed_difference(const mbs_joint_model *j, const double *q0, const double *q1,
                             double *v_out)
{
    (void)j;
    (void)q0;
    (void)q1;
    (void)v_out;
}

/* Empty qdot: nothing to write. */
static void fixed_qdot(const mbs_joint_model *j, const double *q, const double *v, double *qdot)
{
    (void)j;
    (void)q;
    (void)v;
    (void)qdot;
}

/* Empty q: the neutral configuration is implicit. */
static void fixed_neutral(const mbs_joint_model *j, double *q)
{
    (void)j;
    (void)q;
}

/* Empty q: nothing to project. */
static void fixed_normalize(const mbs_joint_model *j, double *q)
{
    (void)j;
    (void)q;
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
    .integrate = fixed_integrate,
    .difference = fixed_difference,
    .qdot = fixed_qdot,
    .neutral = fixed_neutral,
    .normalize = fixed_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = fixed_cut_rows,
};
