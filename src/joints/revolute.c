/* Revolute joint: q = angle about the unit axis, v = its rate (nq = nv = 1). */
#include "joints/joint.h"

/* Fc in Fp: rotation by q about axis (one sin/cos + Rodrigues), no translation. */
static void revolute_transform(const mbs_joint_model *j, const double *aux, const double *q,
                               mbs_pose *X)
{
    (void)aux;
    m3_axis_angle(X->R, j->axis, q[0]);
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

/* Euclidean chart: q_out = q + dt v. */
static void revolute_integrate(const mbs_joint_model *j, const double *q, const double *v,
                               double dt, double *q_out)
{
    (void)j;
    q_out[0] = q[0] + dt * v[0];
}

/* v_out = q1 - q0 (no wrapping: angles are continuous coordinates). */
static void revolute_difference(const mbs_joint_model *j, const double *q0, const double *q1,
                                double *v_out)
{
    (void)j;
    v_out[0] = q1[0] - q0[0];
}

/* qdot = v. */
static void revolute_qdot(const mbs_joint_model *j, const double *q, const double *v,
                          double *qdot)
{
    (void)j;
    (void)q;
    qdot[0] = v[0];
}

/* Neutral angle 0: the joint frames coincide. */
static void revolute_neutral(const mbs_joint_model *j, double *q)
{
    (void)j;
    q[0] = 0.0;
}

/* Every real angle is valid: nothing to project. */
static void revolute_normalize(const mbs_joint_model *j, double *q)
{
    (void)j;
    (void)q;
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
    .integrate = revolute_integrate,
    .difference = revolute_difference,
    .qdot = revolute_qdot,
    .neutral = revolute_neutral,
    .normalize = revolute_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = revolute_cut_rows,
};
