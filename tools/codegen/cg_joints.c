/* One emitter per joint type (the formulas of src/joints/, over symbolic scalars), looked
 * up by the joint's ops table: the generator never switches on a type. Cardan joints are
 * not generated (their reference frame is re-based at run time: use quaternions). */
#include "cg.h"

static cg_val zero(void) { return cg_const(0.0); }

static void set_zero(cg_val *x, int n)
{
    for (int i = 0; i < n; ++i) x[i] = zero();
}

static void set_const3(cg_val *x, const double a[3])
{
    for (int i = 0; i < 3; ++i) x[i] = cg_const(a[i]);
}

/* o = R(u, th)^T x for a constant axis u and x (c = cos th, s = sin th), as
   mbs_rotate_axis_angle with -s. */
static void rotate_t(cg_out *o, cg_val r[3], const double u[3], cg_val c, cg_val s,
                     const double x[3])
{
    const cg_val k = cg_mul(o, cg_sub(o, cg_const(1.0), c), cg_const(u[0] * x[0] + u[1] * x[1] + u[2] * x[2]));
    const double ux[3] = {u[1] * x[2] - u[2] * x[1], u[2] * x[0] - u[0] * x[2], u[0] * x[1] - u[1] * x[0]};
    for (int i = 0; i < 3; ++i)
        r[i] = cg_add(o, cg_sub(o, cg_mul(o, c, cg_const(x[i])), cg_mul(o, s, cg_const(ux[i]))),
                      cg_mul(o, k, cg_const(u[i])));
}

static void trig(cg_out *o, cg_val q, cg_val *c, cg_val *s)
{
    *c = cg_call(o, "cos", q);
    *s = cg_call(o, "sin", q);
}

/* ---- revolute: R(axis, q), S = [axis; 0] */
static void rev_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    cg_val c, s;
    trig(o, q[0], &c, &s);
    cg_axis_angle(o, X->R, j->axis, c, s);
    set_zero(X->p, 3);
}
static void rev_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    (void)o, (void)q, (void)v;
    set_const3(S, j->axis);
    set_zero(S + 3, 3);
    if (cJ) set_zero(cJ, 6);
}

/* ---- prismatic: p = axis q, S = [0; axis] */
static void pri_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    cg_pose_identity(X);
    for (int i = 0; i < 3; ++i) X->p[i] = cg_mul(o, cg_const(j->axis[i]), q[0]);
}
static void pri_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    (void)o, (void)q, (void)v;
    set_zero(S, 3);
    set_const3(S + 3, j->axis);
    if (cJ) set_zero(cJ, 6);
}

/* ---- cylindrical: q = [s, phi] */
static void cyl_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    cg_val c, s;
    trig(o, q[1], &c, &s);
    cg_axis_angle(o, X->R, j->axis, c, s);
    for (int i = 0; i < 3; ++i) X->p[i] = cg_mul(o, cg_const(j->axis[i]), q[0]);
}
static void cyl_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    (void)o, (void)q, (void)v;
    set_zero(S, 3), set_const3(S + 3, j->axis);
    set_const3(S + 6, j->axis), set_zero(S + 9, 3);
    if (cJ) set_zero(cJ, 6);
}

/* ---- universal: R = R(axis, a1) R(axis2, a2); S = [R2^T axis, axis2; 0, 0] */
static void uni_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    cg_val c1, s1, c2, s2, R1[9], R2[9];
    trig(o, q[0], &c1, &s1);
    trig(o, q[1], &c2, &s2);
    cg_axis_angle(o, R1, j->axis, c1, s1);
    cg_axis_angle(o, R2, j->axis2, c2, s2);
    cg_m3_mul(o, X->R, R1, R2);
    set_zero(X->p, 3);
}
static void uni_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    cg_val c, s, a2[3];
    trig(o, q[1], &c, &s);
    rotate_t(o, S, j->axis2, c, s, j->axis);
    set_zero(S + 3, 3);
    set_const3(S + 6, j->axis2), set_zero(S + 9, 3);
    if (!cJ) return;
    set_const3(a2, j->axis2);
    cg_cross(o, cJ, S, a2);
    const cg_val vv = cg_mul(o, v[0], v[1]);
    for (int i = 0; i < 3; ++i) cJ[i] = cg_mul(o, cJ[i], vv);
    set_zero(cJ + 3, 3);
}

/* ---- planar: q = [x, y, phi] */
static void pla_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    cg_val c, s;
    trig(o, q[2], &c, &s);
    cg_axis_angle(o, X->R, j->axis, c, s);
    for (int i = 0; i < 3; ++i)
        X->p[i] = cg_add(o, cg_mul(o, cg_const(j->axis2[i]), q[0]),
                         cg_mul(o, cg_const(j->axis3[i]), q[1]));
}
static void pla_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    cg_val c, s, u[3], a[3], w[3];
    trig(o, q[2], &c, &s);
    set_zero(S, 3), rotate_t(o, S + 3, j->axis, c, s, j->axis2);
    set_zero(S + 6, 3), rotate_t(o, S + 9, j->axis, c, s, j->axis3);
    set_const3(S + 12, j->axis), set_zero(S + 15, 3);
    if (!cJ) return;
    for (int i = 0; i < 3; ++i) u[i] = cg_add(o, cg_mul(o, S[3 + i], v[0]), cg_mul(o, S[9 + i], v[1]));
    set_const3(a, j->axis);
    cg_cross(o, w, a, u);
    set_zero(cJ, 3);
    for (int i = 0; i < 3; ++i) cJ[3 + i] = cg_neg(o, cg_mul(o, w[i], v[2]));
}

/* ---- spherical (quaternion): R(q), S = [I; 0] */
static void sph_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    (void)j;
    cg_quat_to_mat(o, X->R, q);
    set_zero(X->p, 3);
}
static void identity_angular(cg_val *S)
{
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 6; ++i) S[6 * k + i] = cg_const(i == k ? 1.0 : 0.0);
}
static void sph_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    (void)o, (void)j, (void)q, (void)v;
    identity_angular(S);
    if (cJ) set_zero(cJ, 6);
}

/* ---- free (quaternion): q = [p, quat], v = [v_lin in Fp, w in Fc];
   S = [0 I; R^T 0], c_J = [0; (R^T v_lin) x w] */
static void fre_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    (void)j;
    cg_quat_to_mat(o, X->R, q + 3);
    for (int i = 0; i < 3; ++i) X->p[i] = q[i];
}
static void fre_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    (void)j;
    cg_val R[9], u[3];
    cg_quat_to_mat(o, R, q + 3);
    for (int k = 0; k < 3; ++k) {
        set_zero(S + 6 * k, 3);
        for (int i = 0; i < 3; ++i) S[6 * k + 3 + i] = R[3 * k + i];
    }
    identity_angular(S + 18);
    if (!cJ) return;
    cg_m3_tmulv(o, u, R, v);
    set_zero(cJ, 3);
    cg_cross(o, cJ + 3, u, v + 3);
}

/* ---- translational: p = q, S = [0; I] */
static void tra_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    (void)o, (void)j;
    cg_pose_identity(X);
    for (int i = 0; i < 3; ++i) X->p[i] = q[i];
}
static void tra_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    (void)o, (void)j, (void)q, (void)v;
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 6; ++i) S[6 * k + i] = cg_const(i == 3 + k ? 1.0 : 0.0);
    if (cJ) set_zero(cJ, 6);
}

/* ---- fixed */
static void fix_transform(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X)
{
    (void)o, (void)j, (void)q;
    cg_pose_identity(X);
}
static void fix_motion(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                       cg_val *S, cg_val *cJ)
{
    (void)o, (void)j, (void)q, (void)v, (void)S;
    if (cJ) set_zero(cJ, 6);
}

static const cg_joint_emitter emitters[] = {
    {&mbs_joint_revolute_ops, rev_transform, rev_motion, 0, 0},
    {&mbs_joint_prismatic_ops, pri_transform, pri_motion, 0, 0},
    {&mbs_joint_cylindrical_ops, cyl_transform, cyl_motion, 0, 0},
    {&mbs_joint_universal_ops, uni_transform, uni_motion, 0, 0},
    {&mbs_joint_planar_ops, pla_transform, pla_motion, 0, 0},
    {&mbs_joint_spherical_quat_ops, sph_transform, sph_motion, 1, 0},
    {&mbs_joint_free_quat_ops, fre_transform, fre_motion, 1, 3},
    {&mbs_joint_fixed_ops, fix_transform, fix_motion, 0, 0},
    {&mbs_joint_translational_ops, tra_transform, tra_motion, 0, 0},
};

const cg_joint_emitter *cg_joint_emitter_for(const mbs_joint_model *j)
{
    for (size_t k = 0; k < sizeof emitters / sizeof emitters[0]; ++k)
        if (emitters[k].ops == j->ops) return &emitters[k];
    return NULL;
}
