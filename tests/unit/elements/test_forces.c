/* Force elements: line spring-damper, joint spring-damper, force callbacks and their
 * validation. Every force is checked against something independent: finite differences of
 * the potential, an analytic closed form, a host wrench, or a conservation law. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NV_MAX 32
#define NQ_MAX 40

/* ---------------------------------------------------------------- helpers */

static mbs_model *compile_ok(mbs_builder *b)
{
    mbs_model *m = NULL;
    int rc = mbs_compile(b, &m);
    if (rc != MBS_OK) print_error("compile: %s: %s\n", mbs_status_name(rc), mbs_builder_error(b));
    assert_int_equal(rc, MBS_OK);
    assert_non_null(m);
    return m;
}

static mbs_body_def body_def(double mass, double cx, double cy, double cz, double ixx,
                             double iyy, double izz)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = mass;
    def.com[0] = cx; def.com[1] = cy; def.com[2] = cz;
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = ixx; def.inertia[4] = iyy; def.inertia[8] = izz;
    return def;
}

static mbs_spring_damper_def line_def(const char *name, int a, const double pa[3], int b,
                                      const double pb[3], double k, double d, double l0)
{
    mbs_spring_damper_def def = mbs_default_spring_damper_def();
    def.name = name;
    def.body_a = a;
    def.body_b = b;
    memcpy(def.point_a, pa, sizeof def.point_a);
    memcpy(def.point_b, pb, sizeof def.point_b);
    def.stiffness = k;
    def.damping = d;
    def.rest_length = l0;
    return def;
}

static void set_state(mbs_data *d, const double *q, const double *v)
{
    const mbs_model *m = mbs_data_model(d);
    memcpy(mbs_data_q(d), q, sizeof(double) * (size_t)mbs_model_nq(m));
    memcpy(mbs_data_v(d), v, sizeof(double) * (size_t)mbs_model_nv(m));
}

static double potential_energy(mbs_data *d)
{
    double ke = 0.0, pe = 0.0;
    assert_int_equal(mbs_energy(d, &ke, &pe), MBS_OK);
    return pe;
}

/* Generalized forces of all elements at v = 0 without gravity: M qacc + c = tau gives Q = -c. */
static void element_forces(mbs_data *d, double *Q)
{
    int nv = mbs_model_nv(mbs_data_model(d));
    assert_int_equal(mbs_bias_forces(d, Q), MBS_OK);
    for (int i = 0; i < nv; ++i) Q[i] = -Q[i];
}

/* A random configuration: random q via integrate_q from neutral along a random v. */
static void random_q(const mbs_model *m, test_rng *rng, double scale, double *q)
{
    double v[NV_MAX], q0[NQ_MAX];
    assert_int_equal(mbs_neutral_q(m, q0), MBS_OK);
    for (int i = 0; i < mbs_model_nv(m); ++i) v[i] = test_rng_uniform(rng, -scale, scale);
    assert_int_equal(mbs_integrate_q(m, q0, v, 1.0, q), MBS_OK);
}

/* World position of a point given in body coordinates. */
static void world_point(mbs_data *d, int body, const double p[3], double out[3])
{
    double pos[3], R[9];
    assert_int_equal(mbs_body_pose(d, body, pos, R), MBS_OK);
    for (int i = 0; i < 3; ++i) out[i] = pos[i] + R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2];
}

static double distance(mbs_data *d, int a, const double pa[3], int b, const double pb[3])
{
    double xa[3], xb[3];
    world_point(d, a, pa, xa);
    world_point(d, b, pb, xb);
    return sqrt((xb[0] - xa[0]) * (xb[0] - xa[0]) + (xb[1] - xa[1]) * (xb[1] - xa[1]) +
                (xb[2] - xa[2]) * (xb[2] - xa[2]));
}

/* ---------------------------------------------------------------- a three-spring tree */

static const double S1A[3] = {0.2, 0.3, -0.1}, S1B[3] = {0.3, 0.1, 0.05};
static const double S2A[3] = {-0.2, 0.1, 0.0}, S2B[3] = {0.4, 0.2, -0.1};
static const double S3A[3] = {0.1, 0.0, 0.3}, S3B[3] = {1.0, 1.0, 1.0};

/* body 1 floats (automatic free joint), body 2 hangs on a revolute from body 1; three line
   springs (world-1, 1-2, 2-world) and a joint spring on the revolute. damping scales all
   damping coefficients. */
static mbs_model *spring_tree(double damping)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def b1 = body_def(2.0, 0.1, -0.05, 0.2, 0.3, 0.4, 0.5);
    mbs_body_def b2 = body_def(1.0, 0.25, 0.0, 0.0, 0.01, 0.05, 0.05);
    assert_int_equal(mbs_add_body(b, &b1), 1);
    assert_int_equal(mbs_add_body(b, &b2), 2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "hinge";
    j.parent = 1;
    j.child = 2;
    j.frame_parent.pos[0] = 0.5;
    j.axis[0] = 0.0; j.axis[1] = 0.6; j.axis[2] = 0.8;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    mbs_spring_damper_def s1 = line_def("s1", MBS_WORLD, S1A, 1, S1B, 40.0, 3.0 * damping, 0.5);
    mbs_spring_damper_def s2 = line_def("s2", 1, S2A, 2, S2B, 25.0, 1.5 * damping, 0.3);
    mbs_spring_damper_def s3 = line_def("s3", 2, S3A, MBS_WORLD, S3B, 10.0, 0.5 * damping, 0.0);
    assert_int_equal(mbs_add_spring_damper(b, &s1), 0);
    assert_int_equal(mbs_add_spring_damper(b, &s2), 1);
    assert_int_equal(mbs_add_spring_damper(b, &s3), 2);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 3.0, 0.7 * damping, 0.4), 3);
    mbs_model *m = compile_ok(b);
    assert_int_equal(mbs_model_nforce(m), 4);
    assert_int_equal(mbs_model_nv(m), 7);
    mbs_builder_destroy(b);
    return m;
}

/* Q = -dV/de_i: generalized forces of the springs against central differences of the
   potential along each velocity direction (q (+) h e_i), h = 1e-5. */
static void test_spring_force_is_minus_gradient(void **state)
{
    (void)state;
    mbs_model *m = spring_tree(0.0);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double q[NQ_MAX], qp[NQ_MAX], v0[NV_MAX] = {0}, e[NV_MAX], Q[NV_MAX], fd[NV_MAX];
    const double h = 1e-5;
    double worst = 0.0;
    test_rng rng;
    test_rng_seed(&rng, 7);
    for (int trial = 0; trial < 6; ++trial) {
        random_q(m, &rng, 1.2, q);
        set_state(d, q, v0);
        element_forces(d, Q);
        for (int i = 0; i < nv; ++i) {
            memset(e, 0, sizeof e);
            e[i] = 1.0;
            assert_int_equal(mbs_integrate_q(m, q, e, h, qp), MBS_OK);
            set_state(d, qp, v0);
            double vp = potential_energy(d);
            assert_int_equal(mbs_integrate_q(m, q, e, -h, qp), MBS_OK);
            set_state(d, qp, v0);
            double vm = potential_energy(d);
            fd[i] = -(vp - vm) / (2.0 * h);
        }
        worst = fmax(worst, test_rel_diff(Q, fd, nv));
        test_assert_close(Q, fd, nv, 1e-9, "spring Q vs -dV/dq");
        set_state(d, q, v0);
    }
    (void)nq;
    print_message("spring forces vs -grad V (6 random poses, 7 dof): max rel err %.2e\n", worst);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Damping: Q_d = -d_line Ldot grad L per line element plus -d_joint qdot on the joint, with
   grad L from central differences of the point distance (mbs_body_pose) and Ldot = grad L . v. */
static void test_damper_force_matches_rate_of_length(void **state)
{
    (void)state;
    mbs_model *m0 = spring_tree(0.0), *m1 = spring_tree(1.0);
    mbs_data *d0 = mbs_data_create(m0), *d1 = mbs_data_create(m1);
    assert_non_null(d0);
    assert_non_null(d1);
    int nv = mbs_model_nv(m0);
    double q[NQ_MAX], qp[NQ_MAX], v[NV_MAX], e[NV_MAX], c0[NV_MAX], c1[NV_MAX];
    double Q[NV_MAX], expect[NV_MAX], grad[3][NV_MAX], vzero[NV_MAX] = {0};
    const int la[3] = {MBS_WORLD, 1, 2}, lb[3] = {1, 2, MBS_WORLD};
    const double *pa[3] = {S1A, S2A, S3A}, *pb[3] = {S1B, S2B, S3B};
    const double dline[3] = {3.0, 1.5, 0.5}, h = 1e-6;
    test_rng rng;
    test_rng_seed(&rng, 11);
    random_q(m0, &rng, 1.0, q);
    for (int i = 0; i < nv; ++i) v[i] = test_rng_uniform(&rng, -2.0, 2.0);
    for (int i = 0; i < nv; ++i) {
        memset(e, 0, sizeof e);
        e[i] = 1.0;
        double lp[3], lm[3];
        assert_int_equal(mbs_integrate_q(m0, q, e, h, qp), MBS_OK);
        set_state(d0, qp, vzero);
        for (int k = 0; k < 3; ++k) lp[k] = distance(d0, la[k], pa[k], lb[k], pb[k]);
        assert_int_equal(mbs_integrate_q(m0, q, e, -h, qp), MBS_OK);
        set_state(d0, qp, vzero);
        for (int k = 0; k < 3; ++k) lm[k] = distance(d0, la[k], pa[k], lb[k], pb[k]);
        for (int k = 0; k < 3; ++k) grad[k][i] = (lp[k] - lm[k]) / (2.0 * h);
    }
    memset(expect, 0, sizeof expect);
    for (int k = 0; k < 3; ++k) {
        double ldot = 0.0;
        for (int i = 0; i < nv; ++i) ldot += grad[k][i] * v[i];
        for (int i = 0; i < nv; ++i) expect[i] -= dline[k] * ldot * grad[k][i];
    }
    expect[6] -= 0.7 * v[6]; /* joint damper on the revolute (last dof) */
    set_state(d0, q, v);
    set_state(d1, q, v);
    assert_int_equal(mbs_bias_forces(d0, c0), MBS_OK);
    assert_int_equal(mbs_bias_forces(d1, c1), MBS_OK);
    for (int i = 0; i < nv; ++i) Q[i] = c0[i] - c1[i];
    print_message("damping Q vs -d Ldot grad L: rel err %.2e\n", test_rel_diff(Q, expect, nv));
    test_assert_close(Q, expect, nv, 1e-9, "damping forces");
    mbs_data_destroy(d0);
    mbs_data_destroy(d1);
    mbs_model_destroy(m0);
    mbs_model_destroy(m1);
}

/* ---------------------------------------------------------------- 1-D closed forms */

/* A body of mass 2 on a prismatic joint along x, spring from the world origin to the body
   origin: qacc = -T sign(q) / m with T = k (|q| - L0) + d d|q|/dt. */
static mbs_model *prismatic_spring(double k, double d, double l0)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def body = body_def(2.0, 0.0, 0.0, 0.0, 0.1, 0.1, 0.1);
    int id = mbs_add_body(b, &body);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = id;
    j.axis[0] = 1.0; j.axis[1] = 0.0; j.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    const double zero[3] = {0.0, 0.0, 0.0};
    mbs_spring_damper_def s = line_def("axial", MBS_WORLD, zero, id, zero, k, d, l0);
    assert_int_equal(mbs_add_spring_damper(b, &s), 0);
    mbs_model *m = compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

static double prismatic_qacc(mbs_model *m, double q, double v)
{
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    mbs_data_q(d)[0] = q;
    mbs_data_v(d)[0] = v;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double a = mbs_data_qacc(d)[0];
    mbs_data_destroy(d);
    return a;
}

/* Tension, compression, the far side of the anchor, and damping alone (sign and size). */
static void test_line_spring_damper_closed_form(void **state)
{
    (void)state;
    mbs_model *m = prismatic_spring(10.0, 3.0, 1.0);
    /* stretched and opening: T = 10 (1.5 - 1) + 3 (0.7) = 7.1 pulls back */
    assert_float_equal(prismatic_qacc(m, 1.5, 0.7), -7.1 / 2.0, 1e-12);
    /* compressed: T = 10 (0.4 - 1) + 3 (0.7) = -3.9 pushes out */
    assert_float_equal(prismatic_qacc(m, 0.4, 0.7), 3.9 / 2.0, 1e-12);
    /* on the -x side, closing: L = 1.5, dL/dt = -0.7, T = 5 - 2.1 = 2.9 pulls toward +x */
    assert_float_equal(prismatic_qacc(m, -1.5, 0.7), 2.9 / 2.0, 1e-12);
    mbs_model_destroy(m);

    mbs_model *damper = prismatic_spring(0.0, 3.0, 0.0);
    /* damper alone opposes the motion: F = -d v */
    assert_float_equal(prismatic_qacc(damper, 1.5, 0.7), -2.1 / 2.0, 1e-12);
    assert_float_equal(prismatic_qacc(damper, 1.5, -0.4), 1.2 / 2.0, 1e-12);
    assert_float_equal(prismatic_qacc(damper, -0.8, 0.0), 0.0, 1e-15);
    mbs_model_destroy(damper);
}

/* Coincident end points: no direction, so no force and no NaN; potential 1/2 k L0^2. */
static void test_line_spring_coincident_points(void **state)
{
    (void)state;
    mbs_model *m = prismatic_spring(50.0, 2.0, 0.5);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    mbs_data_q(d)[0] = 0.0;
    mbs_data_v(d)[0] = 0.3;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_true(isfinite(mbs_data_qacc(d)[0]));
    assert_float_equal(mbs_data_qacc(d)[0], 0.0, 1e-15);
    assert_float_equal(potential_energy(d), 0.5 * 50.0 * 0.25, 1e-12);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A free body (mass 3) hangs from a world point on a spring attached 0.2 m above its com:
   qacc = 0 at the analytic rest extension m g / k, and a damped RK4 run settles there. */
static void test_static_equilibrium_mass_on_spring(void **state)
{
    (void)state;
    const double mass = 3.0, k = 300.0, dmp = 30.0, l0 = 0.4, g = 9.81, top = 0.2;
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    const double gvec[3] = {0.0, 0.0, -g};
    assert_int_equal(mbs_builder_set_gravity(b, gvec), MBS_OK);
    mbs_body_def body = body_def(mass, 0.0, 0.0, 0.0, 0.02, 0.03, 0.04);
    int id = mbs_add_body(b, &body);
    const double anchor[3] = {0.0, 0.0, 0.0}, attach[3] = {0.0, 0.0, top};
    mbs_spring_damper_def s = line_def("hanger", MBS_WORLD, anchor, id, attach, k, dmp, l0);
    assert_int_equal(mbs_add_spring_damper(b, &s), 0);
    mbs_model *m = compile_ok(b);
    mbs_builder_destroy(b);
    assert_int_equal(mbs_model_nq(m), 7);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    double z_eq = -(l0 + mass * g / k) - top; /* body origin (com) height at rest */
    double *q = mbs_data_q(d);
    q[2] = z_eq;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    for (int i = 0; i < 6; ++i) assert_float_equal(mbs_data_qacc(d)[i], 0.0, 1e-12);
    q[2] = z_eq - 0.05; /* 5 cm lower: net upward pull k 0.05 / m */
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_float_equal(mbs_data_qacc(d)[2], k * 0.05 / mass, 1e-12);

    /* damped settling: zeta = d / (2 sqrt(k m)) = 0.5, decay e^{-5 t}: 6 s gives < 1e-12 */
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    assert_non_null(st);
    for (int n = 0; n < 6000; ++n) assert_int_equal(mbs_stepper_step(st, 1e-3), MBS_OK);
    double extension = -(mbs_data_q(d)[2] + top) - l0;
    print_message("hanging mass: extension %.12f, analytic m g / k = %.12f\n", extension,
                  mass * g / k);
    assert_float_equal(extension, mass * g / k, 1e-9);
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Two free bodies joined by a spring in zero gravity: energy is conserved (d = 0) or never
   increases (d > 0), and linear momentum is conserved in both cases. */
static void run_two_body_spring(double damping, double *energy_drift, double *momentum_drift,
                                int *energy_increase)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def b1 = body_def(1.5, 0.0, 0.0, 0.0, 0.02, 0.03, 0.04);
    mbs_body_def b2 = body_def(0.7, 0.0, 0.0, 0.0, 0.01, 0.01, 0.015);
    assert_int_equal(mbs_add_body(b, &b1), 1);
    assert_int_equal(mbs_add_body(b, &b2), 2);
    const double pa[3] = {0.1, 0.05, 0.0}, pb[3] = {-0.05, 0.0, 0.08};
    mbs_spring_damper_def s = line_def("link", 1, pa, 2, pb, 80.0, damping, 0.3);
    assert_int_equal(mbs_add_spring_damper(b, &s), 0);
    mbs_model *m = compile_ok(b);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    int q2 = mbs_model_joint_qadr(m, 1), v2 = mbs_model_joint_vadr(m, 1);
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    q[q2 + 0] = 0.5; q[q2 + 1] = 0.1; q[q2 + 2] = -0.05;
    const double vel[12] = {0.1, -0.2, 0.05, 0.3, -0.1, 0.2, -0.3, 0.1, 0.2, 0.0, 0.4, -0.2};
    memcpy(v, vel, 6 * sizeof(double));
    memcpy(v + v2, vel + 6, 6 * sizeof(double));
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    assert_non_null(st);
    double ke, pe, e0, p0[3], lin[3], ang[3], prev;
    assert_int_equal(mbs_energy(d, &ke, &pe), MBS_OK);
    e0 = prev = ke + pe;
    for (int c = 0; c < 3; ++c) p0[c] = 0.0;
    for (int body = 1; body <= 2; ++body) {
        assert_int_equal(mbs_body_velocity(d, body, lin, ang), MBS_OK);
        for (int c = 0; c < 3; ++c) p0[c] += (body == 1 ? 1.5 : 0.7) * lin[c];
    }
    *energy_drift = *momentum_drift = 0.0;
    *energy_increase = 0;
    for (int n = 0; n < 2000; ++n) {
        assert_int_equal(mbs_stepper_step(st, 1e-3), MBS_OK);
        assert_int_equal(mbs_energy(d, &ke, &pe), MBS_OK);
        *energy_drift = fmax(*energy_drift, fabs(ke + pe - e0));
        if (ke + pe > prev + 1e-12) *energy_increase = 1;
        prev = ke + pe;
        double p[3] = {0.0, 0.0, 0.0};
        for (int body = 1; body <= 2; ++body) {
            assert_int_equal(mbs_body_velocity(d, body, lin, ang), MBS_OK);
            for (int c = 0; c < 3; ++c) p[c] += (body == 1 ? 1.5 : 0.7) * lin[c];
        }
        for (int c = 0; c < 3; ++c) *momentum_drift = fmax(*momentum_drift, fabs(p[c] - p0[c]));
    }
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

static void test_two_body_spring_conservation(void **state)
{
    (void)state;
    double de, dp;
    int up;
    run_two_body_spring(0.0, &de, &dp, &up);
    print_message("two bodies, spring, RK4 1 ms, 2 s: |dE| %.2e J, |dp| %.2e kg m/s\n", de, dp);
    assert_true(de < 1e-9);
    assert_true(dp < 1e-12);
    run_two_body_spring(2.0, &de, &dp, &up);
    print_message("with damping 2 N s/m: energy lost %.3e J, |dp| %.2e\n", de, dp);
    assert_false(up);
    assert_true(de > 1e-3); /* the damper does dissipate */
    assert_true(dp < 1e-12);
}

/* ---------------------------------------------------------------- joint spring-damper */

/* A revolute behind a quaternion free joint (qindex 7 != vindex 6), a planar joint (dof 2 =
   phi) and a cylindrical joint (dof 1 = phi): Q = -k (q - q0) - d v at the right index. */
/* The generalized forces Q (nv) and potential energy that models[1]'s elements add to the
   same tree without them (models[0]) at q, v: bias forces c0 - c1, V1 - V0. */
static double added_forces(mbs_model *const models[2], const double *q, const double *v,
                           double *Q)
{
    double c0[NV_MAX], c1[NV_MAX];
    mbs_data *d0 = mbs_data_create(models[0]), *d1 = mbs_data_create(models[1]);
    assert_non_null(d0);
    assert_non_null(d1);
    set_state(d0, q, v);
    set_state(d1, q, v);
    assert_int_equal(mbs_bias_forces(d0, c0), MBS_OK);
    assert_int_equal(mbs_bias_forces(d1, c1), MBS_OK);
    for (int i = 0; i < mbs_model_nv(models[1]); ++i) Q[i] = c0[i] - c1[i];
    const double pe = potential_energy(d1) - potential_energy(d0);
    mbs_data_destroy(d0);
    mbs_data_destroy(d1);
    return pe;
}

static void test_joint_spring_damper(void **state)
{
    (void)state;
    mbs_model *models[2];
    for (int with = 0; with < 2; ++with) {
        mbs_builder *b = mbs_builder_create();
        assert_non_null(b);
        assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
        mbs_body_def bd = body_def(1.0, 0.1, 0.2, 0.0, 0.02, 0.03, 0.04);
        for (int i = 0; i < 4; ++i) assert_int_equal(mbs_add_body(b, &bd), i + 1);
        mbs_joint_def jf = mbs_default_joint_def(MBS_JOINT_FREE);
        jf.child = 1;
        mbs_joint_def jr = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jr.parent = 1; jr.child = 2; jr.frame_parent.pos[0] = 0.3;
        mbs_joint_def jp = mbs_default_joint_def(MBS_JOINT_PLANAR);
        jp.parent = 2; jp.child = 3;
        mbs_joint_def jc = mbs_default_joint_def(MBS_JOINT_CYLINDRICAL);
        jc.parent = 3; jc.child = 4;
        assert_int_equal(mbs_add_joint(b, &jf), 0);
        assert_int_equal(mbs_add_joint(b, &jr), 1);
        assert_int_equal(mbs_add_joint(b, &jp), 2);
        assert_int_equal(mbs_add_joint(b, &jc), 3);
        if (with) {
            assert_int_equal(mbs_add_joint_spring_damper(b, 1, 0, 5.0, 0.3, 0.2), 0);
            assert_int_equal(mbs_add_joint_spring_damper(b, 2, 2, 2.0, 0.0, -0.5), 1);
            assert_int_equal(mbs_add_joint_spring_damper(b, 3, 1, 0.0, 1.5, 0.0), 2);
            assert_int_equal(mbs_add_joint_spring_damper(b, 3, 0, 4.0, 0.0, 0.25), 3);
        }
        models[with] = compile_ok(b);
        mbs_builder_destroy(b);
    }
    mbs_model *m = models[1];
    int nv = mbs_model_nv(m), nq = mbs_model_nq(m);
    assert_int_equal(nv, 6 + 1 + 3 + 2);
    assert_int_equal(nq, 7 + 1 + 3 + 2);
    int qr = mbs_model_joint_qadr(m, 1), vr = mbs_model_joint_vadr(m, 1);
    int qp = mbs_model_joint_qadr(m, 2), vp = mbs_model_joint_vadr(m, 2);
    int qc = mbs_model_joint_qadr(m, 3), vc = mbs_model_joint_vadr(m, 3);
    assert_int_equal(qr, 7);
    assert_int_equal(vr, 6);
    double q[NQ_MAX], v[NV_MAX], Q[NV_MAX], expect[NV_MAX] = {0};
    test_rng rng;
    test_rng_seed(&rng, 3);
    random_q(m, &rng, 0.8, q);
    for (int i = 0; i < nv; ++i) v[i] = test_rng_uniform(&rng, -1.0, 1.0);
    q[qr] = 0.7; v[vr] = -1.1;
    expect[vr] = -5.0 * (0.7 - 0.2) + 0.3 * 1.1;        /* -2.17 */
    expect[vp + 2] = -2.0 * (q[qp + 2] + 0.5);
    expect[vc + 1] = -1.5 * v[vc + 1];
    expect[vc] = -4.0 * (q[qc] - 0.25);
    double pe = added_forces(models, q, v, Q);
    test_assert_close(Q, expect, nv, 1e-12, "joint spring-damper Q");
    double pe_expect = 0.5 * 5.0 * 0.25 + 0.5 * 2.0 * (q[qp + 2] + 0.5) * (q[qp + 2] + 0.5) +
                       0.5 * 4.0 * (q[qc] - 0.25) * (q[qc] - 0.25);
    assert_float_equal(pe, pe_expect, 1e-12);
    mbs_model_destroy(models[0]);
    mbs_model_destroy(models[1]);
}

/* Compile rejects a joint spring-damper on a dof that does not exist or whose q is not a
   scalar coordinate of v (spherical quaternion). */
static void test_joint_spring_damper_rejected_by_compile(void **state)
{
    (void)state;
    for (int which = 0; which < 2; ++which) {
        mbs_builder *b = mbs_builder_create();
        assert_non_null(b);
        mbs_body_def bd = mbs_default_body_def();
        assert_int_equal(mbs_add_body(b, &bd), 1);
        mbs_joint_def j = mbs_default_joint_def(which ? MBS_JOINT_SPHERICAL : MBS_JOINT_REVOLUTE);
        j.name = "j";
        j.child = 1;
        assert_int_equal(mbs_add_joint(b, &j), 0);
        /* revolute has dof 0 only; spherical has no scalar dof at all */
        assert_int_equal(mbs_add_joint_spring_damper(b, 0, which ? 0 : 1, 1.0, 0.0, 0.0), 0);
        mbs_model *m = NULL;
        int rc = mbs_compile(b, &m);
        assert_true(rc < 0);
        assert_null(m);
        assert_true(strlen(mbs_builder_error(b)) > 0);
        print_message("compile rejects: %s\n", mbs_builder_error(b));
        mbs_builder_destroy(b);
    }
}

/* ---------------------------------------------------------------- callbacks */

typedef struct cb_user {
    int calls;
    int ret;               /* value to return */
    int body;
    double force[3], torque[3], point[3];
    int gindex;
    double gforce;
    int bad_status[8];     /* statuses of the invalid calls made inside the callback */
    int try_bad;
} cb_user;

static int wrench_callback(mbs_data *d, void *user)
{
    cb_user *u = user;
    u->calls++;
    if (u->try_bad) {
        const double nan3[3] = {NAN, 0.0, 0.0}, inf3[3] = {0.0, INFINITY, 0.0};
        int nb = mbs_model_nbody(mbs_data_model(d)), nv = mbs_model_nv(mbs_data_model(d));
        u->bad_status[0] = mbs_apply_body_wrench(d, -1, u->force, u->torque, u->point);
        u->bad_status[1] = mbs_apply_body_wrench(d, nb, u->force, u->torque, u->point);
        u->bad_status[2] = mbs_apply_body_wrench(d, u->body, nan3, u->torque, u->point);
        u->bad_status[3] = mbs_apply_body_wrench(d, u->body, u->force, inf3, u->point);
        u->bad_status[4] = mbs_apply_body_wrench(d, u->body, u->force, u->torque, nan3);
        u->bad_status[5] = mbs_apply_generalized_force(d, -1, 1.0);
        u->bad_status[6] = mbs_apply_generalized_force(d, nv, 1.0);
        u->bad_status[7] = mbs_apply_generalized_force(d, 0, NAN);
    }
    int rc = mbs_apply_body_wrench(d, u->body, u->force, u->torque, u->point);
    if (rc != MBS_OK) return -100;
    rc = mbs_apply_generalized_force(d, u->gindex, u->gforce);
    if (rc != MBS_OK) return -101;
    return u->ret;
}

/* body 1 free (automatic root), body 2 on a universal joint from body 1; with_cb adds the
   wrench callback named "pusher". */
static mbs_model *callback_model(int with_cb, cb_user *u)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    const double g[3] = {0.0, -9.81, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def b1 = body_def(2.0, 0.1, 0.0, -0.1, 0.05, 0.06, 0.07);
    mbs_body_def b2 = body_def(1.2, 0.0, 0.3, 0.0, 0.02, 0.01, 0.02);
    assert_int_equal(mbs_add_body(b, &b1), 1);
    assert_int_equal(mbs_add_body(b, &b2), 2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_UNIVERSAL);
    j.parent = 1; j.child = 2; j.frame_parent.pos[1] = 0.4;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    if (with_cb) assert_int_equal(mbs_add_force_callback(b, "pusher", wrench_callback, u), 0);
    mbs_model *m = compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

static cb_user default_user(void)
{
    cb_user u;
    memset(&u, 0, sizeof u);
    u.body = 2;
    u.force[0] = 1.5; u.force[1] = -2.0; u.force[2] = 0.7;
    u.torque[0] = 0.3; u.torque[1] = 0.1; u.torque[2] = -0.4;
    u.point[0] = 0.2; u.point[1] = 0.5; u.point[2] = -0.1;
    u.gindex = 6;
    u.gforce = 0.7;
    return u;
}

/* The callback's wrench and generalized force give the same qacc as the host inputs
   mbs_set_body_wrench and tau. */
static void test_callback_equals_host_wrench(void **state)
{
    (void)state;
    cb_user u = default_user();
    mbs_model *mc = callback_model(1, &u), *mh = callback_model(0, NULL);
    mbs_data *dc = mbs_data_create(mc), *dh = mbs_data_create(mh);
    assert_non_null(dc);
    assert_non_null(dh);
    int nv = mbs_model_nv(mc);
    double q[NQ_MAX], v[NV_MAX], qc[NV_MAX];
    test_rng rng;
    test_rng_seed(&rng, 5);
    random_q(mc, &rng, 1.0, q);
    for (int i = 0; i < nv; ++i) v[i] = test_rng_uniform(&rng, -1.0, 1.0);
    set_state(dc, q, v);
    set_state(dh, q, v);
    assert_int_equal(mbs_set_body_wrench(dh, u.body, u.force, u.torque, u.point), MBS_OK);
    mbs_data_tau(dh)[u.gindex] = u.gforce;
    assert_int_equal(mbs_forward_dynamics(dc), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(dh), MBS_OK);
    assert_int_equal(u.calls, 1);
    memcpy(qc, mbs_data_qacc(dc), sizeof(double) * (size_t)nv);
    print_message("callback vs host wrench: rel diff %.2e\n",
                  test_rel_diff(qc, mbs_data_qacc(dh), nv));
    test_assert_close(qc, mbs_data_qacc(dh), nv, 1e-13, "callback vs host wrench");
    mbs_data_destroy(dc);
    mbs_data_destroy(dh);
    mbs_model_destroy(mc);
    mbs_model_destroy(mh);
}

static int free_body_push(mbs_data *d, void *user)
{
    const double *w = user; /* force[3], torque[3], point[3] */
    return mbs_apply_body_wrench(d, 1, w, w + 3, w + 6) == MBS_OK ? 0 : -1;
}

/* A free body at rest with its com at the origin and identity orientation: a world force F
   at body point p with torque T gives qacc = [F / m, I^-1 (p x F + T)] (Newton-Euler). */
static void test_callback_wrench_newton_euler(void **state)
{
    (void)state;
    const double w[9] = {1.0, -2.0, 0.5, 0.2, 0.1, -0.3, 0.3, -0.1, 0.2};
    const double mass = 2.5, I[3] = {0.2, 0.3, 0.4};
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def bd = body_def(mass, 0.0, 0.0, 0.0, I[0], I[1], I[2]);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    assert_int_equal(mbs_add_force_callback(b, NULL, free_body_push, (void *)w), 0);
    mbs_model *m = compile_ok(b);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double *a = mbs_data_qacc(d);
    double n[3] = {w[7] * w[2] - w[8] * w[1] + w[3], w[8] * w[0] - w[6] * w[2] + w[4],
                   w[6] * w[1] - w[7] * w[0] + w[5]};
    for (int i = 0; i < 3; ++i) {
        assert_float_equal(a[i], w[i] / mass, 1e-13);
        assert_float_equal(a[3 + i], n[i] / I[i], 1e-13);
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A callback returning > 0 or < 0 makes forward dynamics fail with MBS_ERR_CALLBACK, a
   message naming it and saying recoverable/fatal, and qacc as it was. */
static void test_callback_failure(void **state)
{
    (void)state;
    cb_user u = default_user();
    mbs_model *m = callback_model(1, &u);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    int nv = mbs_model_nv(m);
    double before[NV_MAX];
    mbs_data_v(d)[3] = 0.3;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    memcpy(before, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    mbs_data_v(d)[3] = -0.9; /* another spin: a successful call would change qacc */

    u.ret = 3;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_CALLBACK);
    assert_non_null(strstr(mbs_data_error(d), "force callback \"pusher\" returned 3 (recoverable)"));
    assert_memory_equal(before, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    print_message("%s\n", mbs_data_error(d));

    u.ret = -2;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_CALLBACK);
    assert_non_null(strstr(mbs_data_error(d), "force callback \"pusher\" returned -2 (fatal)"));
    assert_memory_equal(before, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    print_message("%s\n", mbs_data_error(d));

    u.ret = 0; /* recovers: the next evaluation succeeds and changes qacc */
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double change = 0.0;
    for (int i = 0; i < nv; ++i) change = fmax(change, fabs(mbs_data_qacc(d)[i] - before[i]));
    assert_true(change > 1e-3);
    assert_int_equal(u.calls, 4);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* mbs_apply_* are rejected outside a callback (MBS_ERR_STATE) and with bad arguments inside
   one (MBS_ERR_ARG) without adding anything. */
static void test_apply_validation(void **state)
{
    (void)state;
    cb_user u = default_user();
    mbs_model *m = callback_model(1, &u);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    const double f[3] = {1.0, 0.0, 0.0};
    assert_int_equal(mbs_apply_body_wrench(d, 1, f, f, f), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "inside a force callback"));
    assert_int_equal(mbs_apply_generalized_force(d, 0, 1.0), MBS_ERR_STATE);
    assert_int_equal(mbs_apply_body_wrench(NULL, 1, f, f, f), MBS_ERR_ARG);
    assert_int_equal(mbs_apply_generalized_force(NULL, 0, 1.0), MBS_ERR_ARG);

    /* reference: the same callback without the invalid calls */
    int nv = mbs_model_nv(m);
    double ref[NV_MAX];
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    memcpy(ref, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    u.try_bad = 1;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    for (int i = 0; i < 8; ++i) assert_int_equal(u.bad_status[i], MBS_ERR_ARG);
    assert_memory_equal(ref, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    /* after the callback returned, apply_* is rejected again */
    assert_int_equal(mbs_apply_generalized_force(d, 0, 1.0), MBS_ERR_STATE);

    /* a wrench on the world is accepted and moves nothing: only the generalized force acts */
    u.try_bad = 0;
    u.body = MBS_WORLD;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    mbs_model *mh = callback_model(0, NULL);
    mbs_data *dh = mbs_data_create(mh);
    assert_non_null(dh);
    mbs_data_tau(dh)[u.gindex] = u.gforce;
    assert_int_equal(mbs_forward_dynamics(dh), MBS_OK);
    test_assert_close(mbs_data_qacc(d), mbs_data_qacc(dh), nv, 1e-15, "wrench on the world");
    mbs_data_destroy(dh);
    mbs_model_destroy(mh);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- builder validation */

static int noop_callback(mbs_data *d, void *user)
{
    (void)d;
    (void)user;
    return 0;
}

/* Two bodies and a revolute "elbow" (joint 0) from the world to body 1. */
static mbs_builder *validation_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "elbow";
    j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    return b;
}

static const double P0[3] = {0.0, 0.0, 0.0}, P1[3] = {0.1, 0.0, 0.0};

/* Every bad line-element parameter: MBS_ERR_ARG, message naming "sd" and the parameter. */
static void test_line_element_rejects_bad_parameters(void **state)
{
    (void)state;
    mbs_builder *b = validation_builder();
    const double pn[3] = {0.0, NAN, 0.0};
    mbs_spring_damper_def good = line_def("sd", 1, P0, 2, P1, 10.0, 1.0, 0.2);
    struct { mbs_spring_damper_def def; const char *what; } bad[16];
    int nbad = 0;
    for (int i = 0; i < 16; ++i) bad[i].def = good;
    bad[nbad].def.stiffness = -1.0; bad[nbad++].what = "stiffness";
    bad[nbad].def.damping = -0.5; bad[nbad++].what = "damping";
    bad[nbad].def.rest_length = -0.1; bad[nbad++].what = "rest_length";
    bad[nbad].def.stiffness = NAN; bad[nbad++].what = "stiffness";
    bad[nbad].def.damping = INFINITY; bad[nbad++].what = "damping";
    bad[nbad].def.rest_length = -INFINITY; bad[nbad++].what = "rest_length";
    bad[nbad].def.body_a = -1; bad[nbad++].what = "body_a";
    bad[nbad].def.body_a = 3; bad[nbad++].what = "body_a";
    bad[nbad].def.body_b = 99; bad[nbad++].what = "body_b";
    memcpy(bad[nbad].def.point_a, pn, sizeof pn); bad[nbad++].what = "point";
    memcpy(bad[nbad].def.point_b, pn, sizeof pn); bad[nbad++].what = "point";
    bad[nbad].def.body_b = 1; memcpy(bad[nbad].def.point_b, P0, sizeof P0);
    bad[nbad++].what = "same point";
    for (int i = 0; i < nbad; ++i) {
        assert_int_equal(mbs_add_spring_damper(b, &bad[i].def), MBS_ERR_ARG);
        const char *msg = mbs_builder_error(b);
        if (!strstr(msg, "\"sd\"") || !strstr(msg, bad[i].what)) {
            print_error("case %d: message \"%s\" lacks \"sd\" or \"%s\"\n", i, msg, bad[i].what);
            fail();
        }
    }
    assert_int_equal(mbs_add_spring_damper(b, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "NULL"));
    assert_int_equal(mbs_add_spring_damper(NULL, &good), MBS_ERR_ARG);
    /* nothing was added: the first accepted element gets id 0 */
    assert_int_equal(mbs_add_spring_damper(b, &good), 0);
    mbs_builder_destroy(b);
}

/* Constant joint forces on a revolute dof, a spherical quaternion joint's angular dof and
   a free joint's rotational dof: the generalized forces (bias force difference) are exactly
   the values, the potential energy is unchanged (a drive stores none); bad input. */
static void test_joint_force(void **state)
{
    (void)state;
    mbs_model *models[2];
    for (int with = 0; with < 2; ++with) {
        mbs_builder *b = mbs_builder_create();
        const double g[3] = {0.3, -9.81, 0.2};
        assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
        mbs_body_def bd = body_def(1.0, 0.1, 0.2, 0.0, 0.02, 0.03, 0.04);
        for (int i = 0; i < 3; ++i) assert_int_equal(mbs_add_body(b, &bd), i + 1);
        mbs_joint_def jf = mbs_default_joint_def(MBS_JOINT_FREE);
        jf.child = 1;
        mbs_joint_def jr = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jr.parent = 1, jr.child = 2, jr.frame_parent.pos[0] = 0.3;
        mbs_joint_def js = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
        js.parent = 2, js.child = 3, js.frame_parent.pos[1] = 0.2;
        assert_int_equal(mbs_add_joint(b, &jf), 0);
        assert_int_equal(mbs_add_joint(b, &jr), 1);
        assert_int_equal(mbs_add_joint(b, &js), 2);
        if (with) {
            assert_int_equal(mbs_add_joint_force(b, 1, 0, 2.5), 0);
            assert_int_equal(mbs_add_joint_force(b, 2, 1, -0.75), 1);
            assert_int_equal(mbs_add_joint_force(b, 0, 4, 1.25), 2);
            assert_int_equal(mbs_add_joint_force(b, 1, 0, 0.5), 3); /* forces add up */
        }
        models[with] = compile_ok(b);
        mbs_builder_destroy(b);
    }
    mbs_model *m = models[1];
    const int nv = mbs_model_nv(m), vr = mbs_model_joint_vadr(m, 1), vs = mbs_model_joint_vadr(m, 2);
    double q[NQ_MAX], v[NV_MAX], Q[NV_MAX], expect[NV_MAX] = {0};
    test_rng rng;
    test_rng_seed(&rng, 11);
    random_q(m, &rng, 0.8, q);
    for (int i = 0; i < nv; ++i) v[i] = test_rng_uniform(&rng, -1.0, 1.0);
    expect[vr] = 3.0, expect[vs + 1] = -0.75, expect[4] = 1.25;
    const double pe = added_forces(models, q, v, Q);
    test_assert_close(Q, expect, nv, 1e-13, "joint force Q");
    assert_true(pe == 0.0);
    mbs_model_destroy(models[0]);
    mbs_model_destroy(models[1]);
    /* bad input: builder calls, then compile (dof beyond nv, a cut joint) */
    mbs_builder *b = validation_builder();
    assert_int_equal(mbs_add_joint_force(NULL, 0, 0, 1.0), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint_force(b, 1, 0, 1.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "joint force #0: unknown joint 1"));
    assert_int_equal(mbs_add_joint_force(b, 0, -1, 1.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "joint force #0 on joint \"elbow\": dof -1 is negative"));
    assert_int_equal(mbs_add_joint_force(b, 0, 0, NAN), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint_force(b, 0, 0, 1e101), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "force is not finite"));
    assert_int_equal(mbs_add_joint_force(b, 0, 1, 1.0), 0);
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *bad = NULL;
    assert_int_equal(mbs_compile(b, &bad), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "joint force #0: dof 1 out of range (joint \"elbow\""));
    mbs_builder_destroy(b);
}

/* Bad joint spring-damper parameters: unknown joint, negative dof, negative or non-finite
   coefficients, non-finite rest position. */
static void test_joint_element_rejects_bad_parameters(void **state)
{
    (void)state;
    mbs_builder *b = validation_builder();
    assert_int_equal(mbs_add_joint_spring_damper(b, 1, 0, 1.0, 0.0, 0.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "unknown joint 1"));
    assert_int_equal(mbs_add_joint_spring_damper(b, -1, 0, 1.0, 0.0, 0.0), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, -1, 1.0, 0.0, 0.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "\"elbow\""));
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, -1.0, 0.0, 0.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "stiffness"));
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 1.0, -2.0, 0.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "damping"));
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, NAN, 0.0, 0.0), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 1.0, INFINITY, 0.0), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 1.0, 0.0, NAN), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "rest position"));
    assert_int_equal(mbs_add_joint_spring_damper(NULL, 0, 0, 1.0, 0.0, 0.0), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 0.0, 0.0, -3.0), 0);
    mbs_builder_destroy(b);
}

/* A NULL callback is rejected; accepted elements of all kinds get ids 0, 1, 2, 3 in creation
   order and only they reach the model. */
static void test_callback_rejects_null_and_ids_in_order(void **state)
{
    (void)state;
    mbs_builder *b = validation_builder();
    assert_int_equal(mbs_add_force_callback(b, "law", NULL, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "\"law\""));
    assert_int_equal(mbs_add_force_callback(NULL, "law", noop_callback, NULL), MBS_ERR_ARG);
    mbs_spring_damper_def good = line_def("sd", 1, P0, 2, P1, 10.0, 1.0, 0.2);
    mbs_spring_damper_def world_to_world = line_def(NULL, MBS_WORLD, P0, MBS_WORLD, P1, 0, 0, 0);
    assert_int_equal(mbs_add_spring_damper(b, &good), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 0.0, 0.0, -3.0), 1);
    assert_int_equal(mbs_add_force_callback(b, NULL, noop_callback, NULL), 2);
    good.stiffness = -1.0;
    assert_int_equal(mbs_add_spring_damper(b, &good), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "\"sd\""));
    assert_int_equal(mbs_add_spring_damper(b, &world_to_world), 3);
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = compile_ok(b);
    assert_int_equal(mbs_model_nforce(m), 4);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

static int reentrant_callback(mbs_data *d, void *user)
{
    int *status = user;
    *status = mbs_forward_dynamics(d);
    return 0;
}

/* Dynamics evaluated from inside a force callback is refused with MBS_ERR_STATE, and the
   outer evaluation still gives the right qacc (that of a model with a no-op callback). */
static void test_callback_reentry_rejected(void **state)
{
    (void)state;
    int inner = 12345;
    double qacc[2][NV_MAX];
    for (int reenter = 0; reenter < 2; ++reenter) {
        mbs_builder *b = validation_builder();
        mbs_spring_damper_def s = line_def("sd", 1, P1, 2, P0, 10.0, 1.0, 0.2);
        assert_int_equal(mbs_add_spring_damper(b, &s), 0);
        if (reenter) assert_int_equal(mbs_add_force_callback(b, "re", reentrant_callback, &inner), 1);
        else assert_int_equal(mbs_add_force_callback(b, "noop", noop_callback, NULL), 1);
        mbs_model *m = compile_ok(b);
        mbs_builder_destroy(b);
        mbs_data *d = mbs_data_create(m);
        assert_non_null(d);
        mbs_data_q(d)[0] = 0.3;
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        memcpy(qacc[reenter], mbs_data_qacc(d), sizeof(double) * (size_t)mbs_model_nv(m));
        if (reenter) assert_int_equal(inner, MBS_ERR_STATE);
        assert_int_equal(mbs_model_nv(m), 7);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
    test_assert_close(qacc[1], qacc[0], 7, 1e-15, "qacc with a re-entrant callback");
}

/* The default definition is the documented one. */
static void test_default_def(void **state)
{
    (void)state;
    mbs_spring_damper_def def = mbs_default_spring_damper_def();
    assert_null(def.name);
    assert_int_equal(def.body_a, MBS_WORLD);
    assert_int_equal(def.body_b, MBS_WORLD);
    for (int i = 0; i < 3; ++i) {
        assert_true(def.point_a[i] == 0.0);
        assert_true(def.point_b[i] == 0.0);
    }
    assert_true(def.stiffness == 0.0 && def.damping == 0.0 && def.rest_length == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_def),
        cmocka_unit_test(test_spring_force_is_minus_gradient),
        cmocka_unit_test(test_damper_force_matches_rate_of_length),
        cmocka_unit_test(test_line_spring_damper_closed_form),
        cmocka_unit_test(test_line_spring_coincident_points),
        cmocka_unit_test(test_static_equilibrium_mass_on_spring),
        cmocka_unit_test(test_two_body_spring_conservation),
        cmocka_unit_test(test_joint_spring_damper),
        cmocka_unit_test(test_joint_spring_damper_rejected_by_compile),
        cmocka_unit_test(test_callback_equals_host_wrench),
        cmocka_unit_test(test_callback_wrench_newton_euler),
        cmocka_unit_test(test_callback_failure),
        cmocka_unit_test(test_apply_validation),
        cmocka_unit_test(test_line_element_rejects_bad_parameters),
        cmocka_unit_test(test_joint_element_rejects_bad_parameters),
        cmocka_unit_test(test_joint_force),
        cmocka_unit_test(test_callback_rejects_null_and_ids_in_order),
        cmocka_unit_test(test_callback_reentry_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
