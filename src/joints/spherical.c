/* Spherical joint, two coordinate options:
 *  - quaternion: q = unit quaternion (w, x, y, z) of Fc in Fp, v = angular velocity of Fc in
 *    Fc coordinates (nq = 4, nv = 3);
 *  - Cardan: q = angles a, R = Fix Rx(a1) Ry(a2) Rz(a3) with the reference rotation Fix kept
 *    in aux (9 values, row-major), v = angle rates (nq = nv = 3), re-based near the
 *    singularity (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §6.5). */
#include "core/joint.h"
#include "core/rotation.h"

/* S = [I; 0]: the velocity is the angular velocity itself (Fc origin fixed). */
static void spherical_identity_S(double *S)
{
    memset(S, 0, 18 * sizeof(double));
    S[0] = S[7] = S[14] = 1.0;
}

/* ---------------------------------------------------------------- quaternion */

/* Fc in Fp: R = R(q), no translation. */
static void sphq_transform(const mbs_joint_model *j, const double *aux, const double *q,
                           mbs_pose *X)
{
    (void)j;
    (void)aux;
    mbs_quat_to_mat(X->R, q);
    X->p[0] = X->p[1] = X->p[2] = 0.0;
}

/* S = [I; 0] constant in Fc coordinates, so c_J = 0. */
static void sphq_motion(const mbs_joint_model *j, const double *q, const double *v, double *S,
                        double cJ[6])
{
    (void)j;
    (void)q;
    (void)v;
    spherical_identity_S(S);
    if (cJ) memset(cJ, 0, 6 * sizeof(double));
}

/* Exponential map: q_out = q (x) exp(w dt), normalized. */
static void sphq_integrate(const mbs_joint_model *j, const double *q, const double *v,
                           double dt, double *q_out)
{
    (void)j;
    mbs_quat_integrate(q_out, q, v, dt);
}

/* Logarithm map: v_out = log(conj(q0) (x) q1). */
static void sphq_difference(const mbs_joint_model *j, const double *q0, const double *q1,
                            double *v_out)
{
    (void)j;
    mbs_quat_difference(v_out, q0, q1);
}

/* qdot = 1/2 q (x) (0, w). */
static void sphq_qdot(const mbs_joint_model *j, const double *q, const double *v,
                      double *qdot)
{
    (void)j;
    mbs_quat_deriv(qdot, q, v);
}

/* Neutral: the identity quaternion. */
static void sphq_neutral(const mbs_joint_model *j, double *q)
{
    (void)j;
    mbs_quat_identity(q);
}

/* Unit quaternion (identity for zero or non-finite q). */
static void sphq_normalize(const mbs_joint_model *j, double *q)
{
    (void)j;
    mbs_quat_normalize(q);
}

/* Tangent offset dq of q = q* (x) exp(dq) with body rates v: d(dq)/dt = dv - v x dq to
   first order, T = -[v]x. */
static void sphq_chart_rate(const mbs_joint_model *j, const double *v, double *T)
{
    (void)j;
    mbs_quat_chart_rate(v, T, 3);
}

/* Cut rows: the cut force in Fp (3 POINT rows); a ball joint transmits no torque. */
static int spherical_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    (void)j;
    return mbs_cut_points3(rows);
}

const mbs_joint_ops mbs_joint_spherical_quat_ops = {
    .name = "spherical",
    .nq = 4,
    .nv = 3,
    .naux = 0,
    .transform = sphq_transform,
    .motion = sphq_motion,
    .integrate = sphq_integrate,
    .difference = sphq_difference,
    .qdot = sphq_qdot,
    .neutral = sphq_neutral,
    .normalize = sphq_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = spherical_cut_rows,
    .chart_rate = sphq_chart_rate,
};

/* ---------------------------------------------------------------- Cardan */

/* Fc in Fp: R = Fix Rx(a1) Ry(a2) Rz(a3) (Fix = I when aux is NULL). */
static void sphc_transform(const mbs_joint_model *j, const double *aux, const double *q,
                           mbs_pose *X)
{
    (void)j;
    if (aux) {
        double Ra[9];
        mbs_cardan_to_mat(Ra, q);
        m3_mul(X->R, aux, Ra);
    } else {
        mbs_cardan_to_mat(X->R, q);
    }
    X->p[0] = X->p[1] = X->p[2] = 0.0;
}

/* S = [Jc(a); 0] (w = Jc adot in Fc, independent of Fix); c_J = [dJc/dt adot; 0]. */
static void sphc_motion(const mbs_joint_model *j, const double *q, const double *v, double *S,
                        double cJ[6])
{
    double J[9];
    (void)j;
    mbs_cardan_rate_matrix(J, q);
    for (int k = 0; k < 3; ++k) {
        double *col = S + 6 * k;
        col[0] = J[k];
        col[1] = J[3 + k];
        col[2] = J[6 + k];
        col[3] = col[4] = col[5] = 0.0;
    }
    if (cJ) {
        double Jd[9];
        mbs_cardan_rate_matrix_dot(Jd, q, v);
        m3_mulv(cJ, Jd, v);
        cJ[3] = cJ[4] = cJ[5] = 0.0;
    }
}

/* Fix = I. */
static void sphc_aux_init(const mbs_joint_model *j, double *aux)
{
    (void)j;
    m3_identity(aux);
}

/* Re-base when |cos a2| < MBS_CARDAN_REBASE_COS (rotation.h): Otter, Elmqvist, Mattsson
   2003, "The New Modelica MultiBody Library", §6.5. */
static int sphc_rebase(const mbs_joint_model *j, double *aux, double *q, double *v)
{
    (void)j;
    return mbs_cardan_rebase(aux, q, v);
}

const mbs_joint_ops mbs_joint_spherical_cardan_ops = {
    .name = "spherical_cardan",
    .nq = 3,
    .nv = 3,
    .naux = 9,
    .transform = sphc_transform,
    .motion = sphc_motion,
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = sphc_aux_init,
    .rebase = sphc_rebase,
    .cut_rows = spherical_cut_rows,
    .level = {0, 1, 2}, /* Rx(a1), then Ry(a2), then Rz(a3) about the moved axes */
};
