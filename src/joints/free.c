/* Free joint, two rotation options. q = [p, rotation], p = position of the Fc origin in Fp;
 * v = [linear velocity of the Fc origin in Fp, angular part]:
 *  - quaternion: rotation = unit quaternion, angular part = w in Fc (nq = 7, nv = 6);
 *  - Cardan: rotation = angles a, R = Fix Rx(a1) Ry(a2) Rz(a3) with Fix in aux (9 values),
 *    angular part = angle rates (nq = nv = 6), re-based near the singularity (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §6.5). */
#include "core/joint.h"
#include "core/rotation.h"

/* Linear columns S_k = [0; R^T e_k] (row k of R) and c_J's linear part
   d/dt(R^T vlin) = -w x (R^T vlin), w the angular velocity in Fc (Rdot = R [w]x). */
static void free_linear_motion(const double R[9], const double *vlin, const double w[3],
                               double *S, double cJ[6])
{
    for (int k = 0; k < 3; ++k) {
        double *col = S + 6 * k;
        col[0] = col[1] = col[2] = 0.0;
        v3_copy(col + 3, R + 3 * k);
    }
    if (cJ) {
        double u[3];
        m3_tmulv(u, R, vlin);
        v3_cross(cJ + 3, u, w);
    }
}

/* p_out = p + dt vlin: exact, since vlin is in the (fixed) parent frame. */
static void free_position_integrate(const double *q, const double *v, double dt, double *q_out)
{
    for (int k = 0; k < 3; ++k) q_out[k] = q[k] + dt * v[k];
}

/* ---------------------------------------------------------------- quaternion */

/* Fc in Fp: R = R(quat), p. */
static void freeq_transform(const mbs_joint_model *j, const double *aux, const double *q,
                            mbs_pose *X)
{
    (void)j;
    (void)aux;
    mbs_quat_to_mat(X->R, q + 3);
    v3_copy(X->p, q);
}

/* S = [0 I; R^T 0], c_J = [0; -w x R^T vlin] (RBDA §4.4, Sdot v). */
static void freeq_motion(const mbs_joint_model *j, const double *q, const double *v, double *S,
                         double cJ[6])
{
    double R[9];
    (void)j;
    mbs_quat_to_mat(R, q + 3);
    free_linear_motion(R, v, v + 3, S, cJ);
    memset(S + 18, 0, 18 * sizeof(double));
    S[18] = S[25] = S[32] = 1.0;
    if (cJ) cJ[0] = cJ[1] = cJ[2] = 0.0;
}

/* p + dt vlin, quat (x) exp(w dt). */
static void freeq_integrate(const mbs_joint_model *j, const double *q, const double *v,
                            double dt, double *q_out)
{
    (void)j;
    free_position_integrate(q, v, dt, q_out);
    mbs_quat_integrate(q_out + 3, q + 3, v + 3, dt);
}

/* [p1 - p0, log(conj(quat0) (x) quat1)]. */
static void freeq_difference(const mbs_joint_model *j, const double *q0, const double *q1,
                             double *v_out)
{
    (void)j;
    for (int k = 0; k < 3; ++k) v_out[k] = q1[k] - q0[k];
    mbs_quat_difference(v_out + 3, q0 + 3, q1 + 3);
}

/* qdot = [vlin, 1/2 quat (x) (0, w)]. */
static void freeq_qdot(const mbs_joint_model *j, const double *q, const double *v,
                       double *qdot)
{
    (void)j;
    v3_copy(qdot, v);
    mbs_quat_deriv(qdot + 3, q + 3, v + 3);
}

/* Neutral: origin, identity quaternion. */
static void freeq_neutral(const mbs_joint_model *j, double *q)
{
    (void)j;
    q[0] = q[1] = q[2] = 0.0;
    mbs_quat_identity(q + 3);
}

/* Unit quaternion (identity for zero or non-finite); the position is kept. */
static void freeq_normalize(const mbs_joint_model *j, double *q)
{
    (void)j;
    mbs_quat_normalize(q + 3);
}

/* The position's offset has no rate term (p + dt vlin); the rotation's as for the ball:
   T = [0 0; 0 -[w]x]. */
static void freeq_chart_rate(const mbs_joint_model *j, const double *v, double *T)
{
    (void)j;
    memset(T, 0, 36 * sizeof(double));
    mbs_quat_chart_rate(v + 3, T + 21, 6);
}

/* Cut rows: none (a free joint constrains nothing). */
static int free_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    (void)j;
    (void)rows;
    return 0;
}

const mbs_joint_ops mbs_joint_free_quat_ops = {
    .name = "free",
    .nq = 7,
    .nv = 6,
    .naux = 0,
    .transform = freeq_transform,
    .motion = freeq_motion,
    .integrate = freeq_integrate,
    .difference = freeq_difference,
    .qdot = freeq_qdot,
    .neutral = freeq_neutral,
    .normalize = freeq_normalize,
    .aux_init = NULL,
    .rebase = NULL,
    .cut_rows = free_cut_rows,
    .level = {0, 0, 0, 1, 1, 1}, /* translation along parent axes, then the ball */
    .chart_rate = freeq_chart_rate,
};

/* ---------------------------------------------------------------- Cardan */

/* Rotation of Fc in Fp: Fix Rx(a1) Ry(a2) Rz(a3) (Fix = I when aux is NULL). */
static void freec_rotation(const double *aux, const double a[3], double R[9])
{
    if (aux) {
        double Ra[9];
        mbs_cardan_to_mat(Ra, a);
        m3_mul(R, aux, Ra);
    } else {
        mbs_cardan_to_mat(R, a);
    }
}

/* Fc in Fp: R = Fix R(a), p. */
static void freec_transform(const mbs_joint_model *j, const double *aux, const double *q,
                            mbs_pose *X)
{
    (void)j;
    freec_rotation(aux, q + 3, X->R);
    v3_copy(X->p, q);
}

/* S = [0 Jc(a); R^T 0] with R = Fix R(a); c_J = [dJc/dt adot; -w x R^T vlin],
   w = Jc adot (RBDA §4.4, Sdot v). */
static void freec_motion_aux(const mbs_joint_model *j, const double *aux, const double *q,
                             const double *v, double *S, double cJ[6])
{
    double R[9], J[9], w[3];
    (void)j;
    freec_rotation(aux, q + 3, R);
    mbs_cardan_rate_matrix(J, q + 3);
    m3_mulv(w, J, v + 3);
    free_linear_motion(R, v, w, S, cJ);
    for (int k = 0; k < 3; ++k) {
        double *col = S + 18 + 6 * k;
        col[0] = J[k];
        col[1] = J[3 + k];
        col[2] = J[6 + k];
        col[3] = col[4] = col[5] = 0.0;
    }
    if (cJ) {
        double Jd[9];
        mbs_cardan_rate_matrix_dot(Jd, q + 3, v + 3);
        m3_mulv(cJ, Jd, v + 3);
    }
}

/* The aux-free entry: exact only while Fix = I; callers use mbs_joint_motion (motion_aux). */
static void freec_motion(const mbs_joint_model *j, const double *q, const double *v, double *S,
                         double cJ[6])
{
    freec_motion_aux(j, NULL, q, v, S, cJ);
}

/* Fix = I. */
static void freec_aux_init(const mbs_joint_model *j, double *aux)
{
    (void)j;
    m3_identity(aux);
}

/* Re-base the angles (p and vlin, in Fp, are unchanged): Otter, Elmqvist, Mattsson 2003,
   "The New Modelica MultiBody Library", §6.5. */
static int freec_rebase(const mbs_joint_model *j, double *aux, double *q, double *v)
{
    (void)j;
    return mbs_cardan_rebase(aux, q + 3, v + 3);
}

const mbs_joint_ops mbs_joint_free_cardan_ops = {
    .name = "free_cardan",
    .nq = 6,
    .nv = 6,
    .naux = 9,
    .transform = freec_transform,
    .motion = freec_motion,
    .integrate = mbs_joint_euclid_integrate,
    .difference = mbs_joint_euclid_difference,
    .qdot = mbs_joint_euclid_qdot,
    .neutral = mbs_joint_euclid_neutral,
    .normalize = mbs_joint_euclid_normalize,
    .aux_init = freec_aux_init,
    .rebase = freec_rebase,
    .motion_aux = freec_motion_aux,
    .cut_rows = free_cut_rows,
    .level = {0, 0, 0, 1, 2, 3}, /* translation, then Rx(a1), Ry(a2), Rz(a3) */
};
