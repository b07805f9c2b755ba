/* Universal joint: q = [a1, a2], R = R(axis, a1) R(axis2, a2) (axis2 in the rotated frame);
   v = [a1', a2'] (nq = nv = 2). */
#include "joints/joint.h"
#include "core/rotation.h"

/* Fc in Fp: R = R(axis, a1) R(axis2, a2), no translation. */
static void universal_transform(const mbs_joint_model *j, const double *aux, const double *q,
                                mbs_pose *X)
{
    double R1[9], R2[9];
    (void)aux;
    m3_axis_angle(R1, j->axis, q[0]);
    m3_axis_angle(R2, j->axis2, q[1]);
    m3_mul(X->R, R1, R2);
    X->p[0] = X->p[1] = X->p[2] = 0.0;
}

/* w = R^T Rdot = a1' R2^T axis + a2' axis2, so S = [R2^T axis, axis2; 0, 0];
   c_J = a1' d/dt(R2^T axis) = a1' a2' (R2^T axis) x axis2 (RBDA §4.4, Sdot v). */
static void universal_motion(const mbs_joint_model *j, const double *q, const double *v,
                             double *S, double cJ[6])
{
    mbs_rotate_axis_angle(S, j->axis2, cos(q[1]), -sin(q[1]), j->axis);
    S[3] = S[4] = S[5] = 0.0;
    v3_copy(S + 6, j->axis2);
    S[9] = S[10] = S[11] = 0.0;
    if (cJ) {
        v3_cross(cJ, S, j->axis2);
        v3_scale(cJ, cJ, v[0] * v[1]);
        cJ[3] = cJ[4] = cJ[5] = 0.0;
    }
}

/* Euclidean chart: q_out = q + dt v. */
static void universal_integrate(const mbs_joint_model *j, const double *q, const double *v,
                                double dt, double *q_out)
{
    (void)j;
    q_out[0] = q[0] + dt * v[0];
    q_out[1] = q[1] + dt * v[1];
}

/* v_out = q1 - q0. */
static void universal_difference(const mbs_joint_model *j, const double *q0, const double *q1,
                                 double *v_out)
{
    (void)j;
    v_out[0] = q1[0] - q0[0];
    v_out[1] = q1[1] - q0[1];
}

/* qdot = v. */
static void universal_qdot(const mbs_joint_model *j, const double *q, const double *v,
                           double *qdot)
{
    (void)j;
    (void)q;
    qdot[0] = v[0];
    qdot[1] = v[1];
}

/* Neutral [0, 0]. */
static void universal_neutral(const mbs_joint_model *j, double *q)
{
    (void)j;
    q[0] = q[1] = 0.0;
}

/* Every real q is valid: nothing to project. */
static void universal_normalize(const mbs_joint_model *j, double *q)
{
    (void)j;
    (void)q;
}

/* Cut rows: the cut force in Fp (3 POINT rows) and one ANGLE row keeping the angle between
   axis (on the parent) and axis2 (on the child); its multiplier is the torque about the
   unit normal axis x axis2 / |axis x axis2| of the cross (scale -1 / |axis x axis2|). */
static int universal_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    double n[3];
    v3_cross(n, j->axis, j->axis2);
    int k = mbs_cut_points3(rows);
    return k + mbs_cut_angle(rows + k, j->axis, j->axis2, -1.0 / v3_norm(n));
}

const mbs_joint_ops mbs_joint_universal_ops = {
    .name = "universal",
    .nq = 2,
    .nv = 2,
    .naux = 0,
    .transform = universal_transform,
    .motion = universal_motion,
    .integrate = universal_integrate,
    .difference = universal_difference,
    .qdot = universal_qdot,
    .neutral = universal_neutral,
    .normalize = universal_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = universal_cut_rows,
};
