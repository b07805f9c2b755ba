/* Planar joint: q = [x, y, phi]; the Fc origin at x axis2 + y axis3 in Fp, rotation phi
   about the plane normal axis (axis3 = axis x axis2); v = [x', y', phi'] (nq = nv = 3). */
#include "core/joint.h"
#include "core/rotation.h"

/* Fc in Fp: R = R(axis, phi), p = x axis2 + y axis3. */
static void planar_transform(const mbs_joint_model *j, const double *aux, const double *q,
                             mbs_pose *X)
{
    (void)aux;
    m3_axis_angle(X->R, j->axis, q[2]);
    v3_scale(X->p, j->axis2, q[0]);
    v3_axpy(X->p, q[1], j->axis3);
}

/* The origin velocity x' axis2 + y' axis3 is given in Fp: in Fc it is R^T of it, so
   S = [0, 0, axis; R^T axis2, R^T axis3, 0]; with d/dt(R^T u) = -phi' axis x R^T u,
   c_J = [0; -phi' axis x (x' R^T axis2 + y' R^T axis3)] (RBDA §4.4, Sdot v). */
static void planar_motion(const mbs_joint_model *j, const double *q, const double *v,
                          double *S, double cJ[6])
{
    double c = cos(q[2]), s = sin(q[2]);
    S[0] = S[1] = S[2] = 0.0;
    mbs_rotate_axis_angle(S + 3, j->axis, c, -s, j->axis2);
    S[6] = S[7] = S[8] = 0.0;
    mbs_rotate_axis_angle(S + 9, j->axis, c, -s, j->axis3);
    v3_copy(S + 12, j->axis);
    S[15] = S[16] = S[17] = 0.0;
    if (cJ) {
        double u[3];
        v3_scale(u, S + 3, v[0]);
        v3_axpy(u, v[1], S + 9);
        v3_cross(cJ + 3, j->axis, u);
        v3_scale(cJ + 3, cJ + 3, -v[2]);
        cJ[0] = cJ[1] = cJ[2] = 0.0;
    }
}

/* Cut rows: the force along the plane normal (1 POINT row) and the torques about the
   in-plane axes axis2, axis3 (2 ANGLE rows keeping the normals parallel). */
static int planar_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    int n = mbs_cut_point(rows, j->axis);
    return n + mbs_cut_keep_axis(rows + n, j->axis, j->axis2, j->axis3);
}

const mbs_joint_ops mbs_joint_planar_ops = {
    .name = "planar",
    .nq = 3,
    .nv = 3,
    .naux = 0,
    .transform = planar_transform,
    .motion = planar_motion,
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = planar_cut_rows,
    .level = {0, 0, 1}, /* x, y along parent axes, then the turn about the moved origin */
};
