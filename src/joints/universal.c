/* Universal joint: q = [a1, a2], R = R(axis, a1) R(axis2, a2) (axis2 in the rotated frame);
   v = [a1', a2'] (nq = nv = 2). */
#include "core/joint.h"
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
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = universal_cut_rows,
    .level = {0, 1}, /* axis on the parent, then axis2 on the child */
};
