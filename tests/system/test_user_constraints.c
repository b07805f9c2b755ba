/* User constraints and joint couplings (mbs_add_user_constraint, mbs_add_joint_coupling,
 * URDF <mimic>): a knife edge on an inclined plane against its closed form (a velocity-level
 * constraint), a gear pair against the same pendulum with the reflected inertia, a gripper
 * whose finger mimics the other, a door whose second hinge is a user constraint (redundant
 * rows dropped), a wrong user Jacobian refused, and the analyses that refuse velocity-level
 * rows. Env: MBS_TEST_DATA (the URDF). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "loop_mechanisms.h"

#define KNIFE_G 1.5     /* gravity along x: the plane's slope times g */
#define KNIFE_W 2.0     /* spin rate of the blade */

/* Three massless-carrier joints x, y (prismatic) and the blade's heading (revolute z). */
static int knife_chain(mbs_builder *b)
{
    mbs_body_def none = mbs_default_body_def(), blade = mbs_default_body_def();
    none.mass = 0.0;
    memset(none.inertia, 0, sizeof none.inertia);
    blade.mass = 2.0;
    blade.inertia[0] = blade.inertia[4] = 0.1, blade.inertia[8] = 0.2;
    const int bx = mbs_add_body(b, &none), by = mbs_add_body(b, &none);
    const int bd = mbs_add_body(b, &blade);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.parent = MBS_WORLD, j.child = bx, j.axis[0] = 1, j.axis[2] = 0;
    mbs_add_joint(b, &j);
    j.parent = bx, j.child = by, j.axis[0] = 0, j.axis[1] = 1;
    mbs_add_joint(b, &j);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = by, j.child = bd;
    return mbs_add_joint(b, &j);
}

/* The blade slides along its heading only: -sin(th) xdot + cos(th) ydot = 0. */
static int knife_rows(mbs_data *d, double *h, double *J, double *jdotv, void *user)
{
    (void)h, (void)user;
    const double *q = mbs_data_q(d), *v = mbs_data_v(d);
    const double s = sin(q[2]), c = cos(q[2]);
    if (J) J[0] = -s, J[1] = c, J[2] = 0.0;
    if (jdotv) jdotv[0] = -v[2] * (c * v[0] + s * v[1]);
    return 0;
}

/* The knife-edge model, its bias given (bias 1) or left to differences (0). */
static mbs_model *knife_model(int bias)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {KNIFE_G, 0.0, 0.0};
    mbs_builder_set_gravity(b, g);
    knife_chain(b);
    mbs_user_constraint_def u = mbs_default_user_constraint_def();
    u.name = "knife", u.nrow = 1, u.velocity_level = 1, u.jacobian = 1, u.bias = bias;
    u.fn = knife_rows;
    assert_int_equal(mbs_add_user_constraint(b, &u), 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Largest deviation of x, y, th from the closed form (Neimark and Fufaev's knife edge on an
   inclined plane): th = w t, x = g (1 - cos 2wt) / 4w^2, y = g (t - sin(2wt) / 2w) / 2w. */
static double knife_run(mbs_model *m, mbs_stepper_kind kind, double dt, double T)
{
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[2] = KNIFE_W;
    mbs_stepper_def sd = mbs_default_stepper_def(kind);
    sd.rtol = 1e-10, sd.atol = 1e-12;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    double err = 0.0;
    const int n = (int)lround(T / dt);
    for (int i = 1; i <= n; ++i) {
        assert_int_equal(mbs_stepper_step(s, dt), MBS_OK);
        const double t = mbs_data_time(d), w = KNIFE_W, *q = mbs_data_q(d);
        const double x = KNIFE_G * (1.0 - cos(2 * w * t)) / (4 * w * w);
        const double y = KNIFE_G * (t - sin(2 * w * t) / (2 * w)) / (2 * w);
        err = fmax(err, fmax(fabs(q[0] - x), fmax(fabs(q[1] - y), fabs(q[2] - w * t))));
    }
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    return err;
}

static void test_knife_edge_closed_form(void **state)
{
    (void)state;
    for (int bias = 1; bias >= 0; --bias) {
        mbs_model *m = knife_model(bias);
        const double e_rk4 = knife_run(m, MBS_STEP_RK4, 1e-3, 5.0);
        const double e_bdf = knife_run(m, MBS_STEP_CVODE_BDF, 1e-2, 5.0);
        printf("knife edge (bias %s): max |q - closed form| over 5 s: RK4 1 ms %.3g, "
               "CVODE BDF rtol 1e-10 %.3g\n", bias ? "given" : "by differences", e_rk4, e_bdf);
        assert_true(e_rk4 < 1e-9);
        assert_true(e_bdf < 1e-6);
        mbs_model_destroy(m);
    }
}

#define DISC_R 0.3      /* radius of the rolling disc */
#define DISC_M 1.5

/* The disc's axis n (world) is its body y; the contact point is c + R d, d the unit vector of
   the disc's plane pointing most downward: d = -(k - (k.n) n) / |k - (k.n) n|. */
static void disc_contact(mbs_data *d, int body, double r[3], double Rw[9], double *s)
{
    double p[3];
    mbs_body_pose(d, body, p, Rw);
    const double n[3] = {Rw[1], Rw[4], Rw[7]}, kn = n[2];
    const double w[3] = {-kn * n[0], -kn * n[1], 1.0 - kn * n[2]};
    *s = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    for (int e = 0; e < 3; ++e) r[e] = -DISC_R * w[e] / *s;
}

/* Holonomic row: the contact point is on the plane z = 0 (Jacobian by differences). */
static int disc_height(mbs_data *d, double *h, double *J, double *jdotv, void *user)
{
    (void)J, (void)jdotv;
    double r[3], Rw[9], s;
    disc_contact(d, *(const int *)user, r, Rw, &s);
    h[0] = mbs_data_q(d)[2] - DISC_R * s;
    return 0;
}

/* Velocity level: the contact point's material velocity has no horizontal component,
   pdot + (R w_body) x r = 0 with v = [pdot (world), w_body] (free joint). */
static int disc_no_slip(mbs_data *d, double *h, double *J, double *jdotv, void *user)
{
    (void)h, (void)jdotv;
    double r[3], Rw[9], s;
    disc_contact(d, *(const int *)user, r, Rw, &s);
    for (int i = 0; i < 2 && J; ++i) {
        double *Ji = J + 6 * i;
        for (int k = 0; k < 3; ++k) Ji[k] = i == k;
        for (int k = 0; k < 3; ++k) { /* -(r x R e_k)_i */
            const double c[3] = {Rw[k], Rw[3 + k], Rw[6 + k]};
            const double x[3] = {r[1] * c[2] - r[2] * c[1], r[2] * c[0] - r[0] * c[2],
                                 r[0] * c[1] - r[1] * c[0]};
            Ji[3 + k] = -x[i];
        }
    }
    return 0;
}

/* A thin disc on a free joint with both constraints, gravity g. */
static mbs_model *disc_model(const double g[3], int *body)
{
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_gravity(b, g);
    mbs_body_def disc = mbs_default_body_def();
    disc.mass = DISC_M;
    const double A = DISC_M * DISC_R * DISC_R / 4;
    disc.inertia[0] = disc.inertia[8] = A, disc.inertia[4] = 2 * A;
    *body = mbs_add_body(b, &disc);
    mbs_joint_def f = mbs_default_joint_def(MBS_JOINT_FREE);
    f.parent = MBS_WORLD, f.child = *body;
    mbs_add_joint(b, &f);
    mbs_user_constraint_def u = mbs_default_user_constraint_def();
    u.name = "contact height", u.nrow = 1, u.fn = disc_height, u.user = body;
    u.scale = DISC_R;
    mbs_add_user_constraint(b, &u);
    u.name = "no slip", u.nrow = 2, u.velocity_level = 1, u.jacobian = 1, u.fn = disc_no_slip;
    mbs_add_user_constraint(b, &u);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Upright down an incline (gravity tilted by beta): x = g sin(beta) t^2 / 3 (a = g sin(beta)
   / (1 + C / m R^2), C = m R^2 / 2); then tilted and spinning on a level plane: the energy
   stays (rolling does no work) and the contact point does not slip or leave the plane. */
static void test_rolling_disc(void **state)
{
    (void)state;
    const double beta = 0.2, g0 = 9.81;
    const double gi[3] = {g0 * sin(beta), 0.0, -g0 * cos(beta)}, gl[3] = {0.0, 0.0, -g0};
    int body;
    mbs_model *m = disc_model(gi, &body);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[2] = DISC_R;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    for (int i = 0; i < 1000; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    const double x = g0 * sin(beta) / 3.0, dx = fabs(mbs_data_q(d)[0] - x);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    m = disc_model(gl, &body);
    d = mbs_data_create(m);
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    q[3] = cos(0.15), q[4] = sin(0.15); /* tilted 0.3 rad about x (quaternion w, x, y, z) */
    v[0] = 1.0, v[4] = -1.0 / DISC_R, v[5] = 0.8;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    double T0, V0, T, V, slip = 0.0, drift = 0.0;
    mbs_energy(d, &T0, &V0);
    s = mbs_stepper_create(d, &sd);
    for (int i = 0; i < 2000; ++i) {
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        double r[3], Rw[9], sn, lin[3], ang[3];
        disc_contact(d, body, r, Rw, &sn);
        mbs_body_velocity(d, body, lin, ang);
        for (int e = 0; e < 2; ++e) {
            const double vp = lin[e] + (e == 0 ? ang[1] * r[2] - ang[2] * r[1]
                                               : ang[2] * r[0] - ang[0] * r[2]);
            slip = fmax(slip, fabs(vp));
        }
        drift = fmax(drift, fabs(mbs_data_q(d)[2] - DISC_R * sn));
    }
    mbs_energy(d, &T, &V);
    const double de = fabs(T + V - T0 - V0);
    printf("rolling disc: incline x after 1 s %.3g off g sin(b) t^2 / 3; tilted roll 2 s: "
           "energy change %.3g of %.3g J, max slip %.3g m/s, max height residual %.3g m\n",
           dx, de, T0 + V0, slip, drift);
    assert_true(dx < 1e-10);
    assert_true(de < 1e-7 * fabs(T0 + V0) + 1e-9);
    assert_true(slip < 1e-10 && drift < 1e-12);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Velocity-level rows: the analyses that cannot use them refuse, naming the constraint. */
static void test_knife_edge_refused_by_analyses(void **state)
{
    (void)state;
    mbs_model *m = knife_model(1);
    mbs_data *d = mbs_data_create(m);
    double A[36], B[18], re[6], im[6];
    int nx = 0;
    assert_int_equal(mbs_linearize(d, A, B, &nx), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "user constraint \"knife\""));
    assert_int_equal(mbs_equilibrium(d, NULL), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "velocity-level"));
    assert_int_equal(mbs_modes(d, re, im, &nx), MBS_ERR_STATE);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK); /* dynamics serve them */
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

#define GEAR_R (-3.0)   /* q_disc = R q_arm + C */
#define GEAR_C 0.1
#define GEAR_I 0.02     /* the disc's inertia about its axis */

/* A pendulum arm on a revolute joint, and (coupled) a disc on another one. */
static mbs_model *gear_model(int coupled)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -9.81, 0.0};
    mbs_builder_set_gravity(b, g);
    mbs_body_def arm = mbs_default_body_def(), disc = mbs_default_body_def();
    arm.com[0] = 0.5;
    arm.inertia[0] = arm.inertia[4] = 0.2;
    arm.inertia[8] = 0.02 + (coupled ? 0 : GEAR_R * GEAR_R * GEAR_I);
    disc.inertia[0] = disc.inertia[4] = GEAR_I / 2, disc.inertia[8] = GEAR_I;
    const int ba = mbs_add_body(b, &arm);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = MBS_WORLD, j.child = ba;
    const int ja = mbs_add_joint(b, &j);
    if (coupled) {
        const int bd = mbs_add_body(b, &disc);
        j.child = bd, j.frame_parent.pos[0] = 2.0;
        const int jd = mbs_add_joint(b, &j);
        mbs_joint_coupling_def c = mbs_default_joint_coupling_def();
        c.name = "gear", c.joint_a = jd, c.joint_b = ja, c.ratio = GEAR_R, c.offset = GEAR_C;
        assert_int_equal(mbs_add_joint_coupling(b, &c), 0);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* The coupled pair moves as one joint with inertia I_arm + R^2 I_disc; the coupling's lambda
   is the torque that drives the disc (I_disc qacc_disc). */
static void test_gear_pair_reflected_inertia(void **state)
{
    (void)state;
    mbs_model *mc = gear_model(1), *m1 = gear_model(0);
    assert_int_equal(mbs_model_nuser_constraints(mc), 1);
    const int row = mbs_model_user_constraint_row(mc, 0);
    assert_int_equal(row, 0);
    mbs_data *dc = mbs_data_create(mc), *d1 = mbs_data_create(m1);
    mbs_data_q(dc)[0] = mbs_data_q(d1)[0] = 0.7;
    mbs_data_q(dc)[1] = GEAR_R * 0.7 + GEAR_C;
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *sc = mbs_stepper_create(dc, &sd), *s1 = mbs_stepper_create(d1, &sd);
    double err = 0.0, lam_err = 0.0, hold = 0.0;
    for (int i = 0; i < 3000; ++i) {
        assert_int_equal(mbs_stepper_step(sc, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(s1, 1e-3), MBS_OK);
        const double *qc = mbs_data_q(dc);
        err = fmax(err, fabs(qc[0] - mbs_data_q(d1)[0]));
        hold = fmax(hold, fabs(qc[1] - GEAR_R * qc[0] - GEAR_C));
        assert_int_equal(mbs_forward_dynamics(dc), MBS_OK);
        lam_err = fmax(lam_err, fabs(mbs_data_lambda(dc)[row] - GEAR_I * mbs_data_qacc(dc)[1]));
    }
    printf("gear pair vs reflected inertia over 3 s (RK4 1 ms): max |q_arm diff| %.3g, "
           "coupling residual %.3g, |lambda - I qacc_disc| %.3g\n", err, hold, lam_err);
    assert_true(err < 1e-10);
    assert_true(hold < 1e-12);
    assert_true(lam_err < 1e-10);
    mbs_stepper_destroy(sc);
    mbs_stepper_destroy(s1);
    mbs_data_destroy(dc);
    mbs_data_destroy(d1);
    mbs_model_destroy(mc);
    mbs_model_destroy(m1);
}

/* The analyses on a coupled pair: equilibrium hangs the arm down (the disc following), and
   the modes are the single joint's with the reflected inertia. */
/* The derivative engine and the sensitivity runs do not take user rows: refused, not
   answered with the rows' derivatives left out. */
static void test_gear_pair_derivatives_refused(void **state)
{
    (void)state;
    mbs_model *m = gear_model(1);
    mbs_data *d = mbs_data_create(m);
    const int nv = mbs_model_nv(m);
    double *A = calloc((size_t)(3 * nv * nv), sizeof(double));
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A, A + nv * nv, A + 2 * nv * nv),
                     MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "joint couplings"));
    mbs_param p = {MBS_PARAM_MASS, 1, 0};
    mbs_sens_def sd = mbs_default_sens_def();
    mbs_sens *s = NULL;
    assert_int_equal(mbs_sens_create(m, d, &p, 1, &sd, &s), MBS_ERR_STATE);
    assert_null(s);
    free(A);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

static void test_gear_pair_analyses(void **state)
{
    (void)state;
    mbs_model *mc = gear_model(1), *m1 = gear_model(0);
    mbs_data *dc = mbs_data_create(mc), *d1 = mbs_data_create(m1);
    mbs_data_q(dc)[0] = mbs_data_q(d1)[0] = -1.2;
    mbs_data_q(dc)[1] = GEAR_R * -1.2 + GEAR_C;
    assert_int_equal(mbs_equilibrium(dc, NULL), MBS_OK);
    const double *q = mbs_data_q(dc);
    assert_true(fabs(q[0] + acos(-1.0) / 2) < 1e-9);
    assert_true(fabs(q[1] - GEAR_R * q[0] - GEAR_C) < 1e-12);
    mbs_data_q(d1)[0] = q[0];
    double rc[4], ic[4], r1[2], i1[2];
    int nc = 4, n1 = 2;
    assert_int_equal(mbs_modes(dc, rc, ic, &nc), MBS_OK);
    assert_int_equal(mbs_modes(d1, r1, i1, &n1), MBS_OK);
    assert_int_equal(nc, 2);
    const double w = sqrt(9.81 * 0.5 / (0.02 + 0.25 + GEAR_R * GEAR_R * GEAR_I));
    printf("gear pair at equilibrium: modes %.9f i (coupled), %.9f i (one joint), closed form "
           "%.9f\n", ic[0], i1[0], w);
    assert_true(fabs(ic[0] - i1[0]) < 1e-6 * w && fabs(ic[0] - w) < 1e-6 * w);
    /* inverse dynamics of the coupled pair: tau = 0 gives qacc, so the minimum-norm tau
       that forward dynamics turns into qacc is 0 */
    mbs_data_q(dc)[0] = 0.4;
    mbs_data_q(dc)[1] = GEAR_R * 0.4 + GEAR_C;
    mbs_data_v(dc)[0] = 1.0, mbs_data_v(dc)[1] = GEAR_R;
    assert_int_equal(mbs_forward_dynamics(dc), MBS_OK);
    double qacc[2] = {mbs_data_qacc(dc)[0], mbs_data_qacc(dc)[1]}, tau[2];
    assert_int_equal(mbs_inverse_dynamics(dc, qacc, tau), MBS_OK);
    printf("gear pair inverse dynamics of its free motion: tau (%.3g, %.3g)\n", tau[0], tau[1]);
    assert_true(fabs(tau[0]) < 1e-12 && fabs(tau[1]) < 1e-12);
    mbs_data_destroy(dc);
    mbs_data_destroy(d1);
    mbs_model_destroy(mc);
    mbs_model_destroy(m1);
}

/* A disc on its own revolute joint, geared to the four-bar's crank (extra of the builder). */
static int add_geared_disc(mbs_builder *b, const lm_mech *mech, void *user)
{
    (void)user;
    mbs_body_def disc = mbs_default_body_def();
    disc.inertia[0] = disc.inertia[4] = GEAR_I / 2, disc.inertia[8] = GEAR_I;
    const int bd = mbs_add_body(b, &disc);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = MBS_WORLD, j.child = bd, j.frame_parent.pos[2] = -0.5;
    const int jd = mbs_add_joint(b, &j);
    mbs_joint_coupling_def c = mbs_default_joint_coupling_def();
    c.name = "crank gear", c.joint_a = jd, c.joint_b = mech->joint[0], c.ratio = GEAR_R;
    return mbs_add_joint_coupling(b, &c) < 0 ? MBS_ERR_ARG : MBS_OK;
}

/* A coupling in a loop: a four-bar (Newton closure, cut joint B) drives a geared disc. The
   energy stays, the loop and the coupling hold, lambda drives the disc. */
static void test_coupling_in_four_bar(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    assert_int_equal(lm_build_fourbar_ex(&p, add_geared_disc, NULL, &mech), MBS_OK);
    const mbs_model *m = mech.model;
    const int row = mbs_model_user_constraint_row(m, 0);
    assert_int_equal(row, 5); /* after the cut revolute's 5 rows */
    const int vd = mbs_model_joint_vadr(m, mbs_model_njoint(m) - 1);
    const int vc = mbs_model_joint_vadr(m, mech.joint[0]);
    mbs_data *d = mbs_data_create(m);
    double th3, th4;
    assert_int_equal(lm_fourbar_position(&p, 0.8, 1, &th3, &th4), 0);
    const double th[3] = {0.8, th3, th4}, w[3] = {3.0, 0.0, 0.0};
    double wr[3], al[3];
    lm_fourbar_rates(&p, th, w[0], 0.0, wr, al);
    lm_fourbar_set(&p, &mech, d, th, wr);
    mbs_data_q(d)[vd] = GEAR_R * mbs_data_q(d)[vc], mbs_data_v(d)[vd] = GEAR_R * wr[0];
    assert_int_equal(mbs_assemble(d), MBS_OK);
    double T0, V0, T, V, hold = 0.0, lam = 0.0, loop = 0.0;
    mbs_energy(d, &T0, &V0);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    for (int i = 0; i < 2000; ++i) {
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        const double *q = mbs_data_q(d);
        hold = fmax(hold, fabs(q[vd] - GEAR_R * q[vc]));
        loop = fmax(loop, lm_residual(&mech, d));
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        lam = fmax(lam, fabs(mbs_data_lambda(d)[row] - GEAR_I * mbs_data_qacc(d)[vd]));
    }
    mbs_energy(d, &T, &V);
    printf("four-bar with a geared disc, 2 s RK4 1 ms: energy change %.3g of %.3g J, coupling "
           "%.3g, loop residual %.3g, |lambda - I qacc_disc| %.3g\n", fabs(T + V - T0 - V0),
           T0 + V0, hold, loop, lam);
    assert_true(fabs(T + V - T0 - V0) < 1e-6 * (T0 + fabs(V0)));
    assert_true(hold < 1e-12 && loop < 1e-10 && lam < 1e-9);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* URDF <mimic joint multiplier offset>: q_right = 0.5 q_left + 0.01; a force on the left
   finger accelerates both as one coordinate of mass m_l + 0.25 m_r. */
static void test_mimic_gripper_urdf(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/gripper_mimic.urdf", getenv("MBS_TEST_DATA"));
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_load(b, path), MBS_OK);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    assert_int_equal(mbs_model_nuser_constraints(m), 1);
    assert_int_equal(mbs_model_find_user_constraint(m, "finger_right_joint"), 0);
    const int jl = mbs_model_find_joint(m, "finger_left_joint");
    const int jr = mbs_model_find_joint(m, "finger_right_joint");
    const int il = mbs_model_joint_vadr(m, jl), ir = mbs_model_joint_vadr(m, jr);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[il] = 0.02;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const double *q = mbs_data_q(d);
    assert_true(fabs(q[ir] - 0.5 * q[il] - 0.01) < 1e-12);
    const double ql0 = q[il];
    mbs_data_tau(d)[il] = 1.0;
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    for (int i = 0; i < 500; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    const double a = 1.0 / (0.1 + 0.25 * 0.2), t = mbs_data_time(d);
    const double want = ql0 + 0.5 * a * t * t, dev = fabs(q[il] - want);
    printf("mimic gripper: q_left %.12f (closed form %.12f), q_right - 0.5 q_left - 0.01 = "
           "%.3g\n", q[il], want, q[ir] - 0.5 * q[il] - 0.01);
    assert_true(dev < 1e-10);
    assert_true(fabs(q[ir] - 0.5 * q[il] - 0.01) < 1e-12);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The second hinge of the door, coaxial with the first (axis x): the door's point (1, 0, 0)
   stays at the world's (1, 0, 0), its x axis stays the world's. */
static int hinge_rows(mbs_data *d, double *h, double *J, double *jdotv, void *user)
{
    (void)J, (void)jdotv;
    const int body = *(const int *)user;
    double p[3], R[9];
    if (mbs_body_pose(d, body, p, R) != MBS_OK) return -1;
    h[0] = R[0] + p[0] - 1.0, h[1] = R[3] + p[1], h[2] = R[6] + p[2];
    h[3] = R[3], h[4] = R[6];
    return 0;
}

/* A door: on a tree revolute (axis x), or free, held by a cut revolute and the user hinge. */
static mbs_model *door_model(int two_hinges, int *body)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def door = mbs_default_body_def();
    door.mass = 3.0, door.com[1] = 0.4;
    door.inertia[0] = 0.2, door.inertia[4] = 0.05, door.inertia[8] = 0.2;
    *body = mbs_add_body(b, &door);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = MBS_WORLD, j.child = *body, j.axis[0] = 1, j.axis[2] = 0;
    if (two_hinges) {
        j.cut = 1;
        mbs_joint_def f = mbs_default_joint_def(MBS_JOINT_FREE);
        f.parent = MBS_WORLD, f.child = *body;
        mbs_add_joint(b, &f);
        mbs_user_constraint_def u = mbs_default_user_constraint_def();
        u.name = "hinge 2", u.nrow = 5, u.fn = hinge_rows, u.user = body;
        assert_int_equal(mbs_add_user_constraint(b, &u), 0);
    }
    mbs_add_joint(b, &j);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* The user hinge repeats the cut revolute's rows: 5 of the 10 are dropped by the QR and the
   door swings as on one hinge (Jacobian and quadratic terms by differences). */
static void test_door_redundant_user_hinge(void **state)
{
    (void)state;
    int b1, b2;
    mbs_model *m1 = door_model(0, &b1), *m2 = door_model(1, &b2);
    mbs_data *d1 = mbs_data_create(m1), *d2 = mbs_data_create(m2);
    int rank = -1;
    unsigned char active[10];
    assert_int_equal(mbs_model_ncon(m2), 10);
    assert_int_equal(mbs_constraint_info(d2, &rank, active), MBS_OK);
    assert_int_equal(rank, 5);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s1 = mbs_stepper_create(d1, &sd), *s2 = mbs_stepper_create(d2, &sd);
    double err = 0.0;
    for (int i = 0; i < 1000; ++i) {
        assert_int_equal(mbs_stepper_step(s1, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(s2, 1e-3), MBS_OK);
        double p1[3], R1[9], p2[3], R2[9];
        mbs_body_pose(d1, b1, p1, R1);
        mbs_body_pose(d2, b2, p2, R2);
        for (int k = 0; k < 9; ++k) err = fmax(err, fabs(R1[k] - R2[k]));
        for (int k = 0; k < 3; ++k) err = fmax(err, fabs(p1[k] - p2[k]));
    }
    double p[3], R[9];
    mbs_body_pose(d1, b1, p, R);
    printf("door on a revolute and a redundant user hinge: rank %d of 10, max pose diff "
           "%.3g over 1 s (angle reached %.3f rad)\n", rank, err, atan2(R[7], R[4]));
    assert_true(err < 1e-8);
    assert_true(fabs(atan2(R[7], R[4])) > 0.5); /* it did swing */
    mbs_stepper_destroy(s1);
    mbs_stepper_destroy(s2);
    mbs_data_destroy(d1);
    mbs_data_destroy(d2);
    mbs_model_destroy(m1);
    mbs_model_destroy(m2);
}

/* A given Jacobian with a wrong entry: the first selection refuses it, naming the
   constraint, its row and column. */
static int wrong_rows(mbs_data *d, double *h, double *J, double *jdotv, void *user)
{
    (void)user;
    const double *q = mbs_data_q(d);
    h[0] = q[0] - 0.5 * q[1];
    if (J) J[0] = 1.0, J[1] = 0.5, J[2] = 0.0; /* the sign of J[1] is wrong */
    if (jdotv) jdotv[0] = 0.0;
    return 0;
}

static void test_wrong_jacobian_refused(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    knife_chain(b);
    mbs_user_constraint_def u = mbs_default_user_constraint_def();
    u.name = "slanted", u.nrow = 1, u.jacobian = 1, u.bias = 1, u.fn = wrong_rows;
    assert_int_equal(mbs_add_user_constraint(b, &u), 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_CALLBACK);
    printf("refused: %s\n", mbs_data_error(d));
    assert_non_null(strstr(mbs_data_error(d), "user constraint \"slanted\""));
    assert_non_null(strstr(mbs_data_error(d), "column 1"));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Bad definitions are refused before anything is stored. */
static void test_bad_definitions(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    knife_chain(b);
    mbs_user_constraint_def u = mbs_default_user_constraint_def();
    u.nrow = 1, u.fn = knife_rows, u.velocity_level = 1;
    assert_int_equal(mbs_add_user_constraint(b, &u), MBS_ERR_ARG); /* no J at velocity level */
    mbs_builder_clear_error(b);
    mbs_joint_coupling_def c = mbs_default_joint_coupling_def();
    c.joint_a = 0, c.joint_b = 2, c.ratio = 0.0;
    assert_int_equal(mbs_add_joint_coupling(b, &c), MBS_ERR_ARG);
    mbs_builder_clear_error(b);
    c.ratio = 1.0, c.dof_a = 3; /* a prismatic joint has one dof: refused at compile */
    assert_int_equal(mbs_add_joint_coupling(b, &c), 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "joint coupling #0"));
    mbs_builder_destroy(b);
}

int main(void)
{
    if (!getenv("MBS_TEST_DATA")) {
        printf("test_user_constraints: MBS_TEST_DATA must be set (meson does)\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_knife_edge_closed_form),
        cmocka_unit_test(test_knife_edge_refused_by_analyses),
        cmocka_unit_test(test_rolling_disc),
        cmocka_unit_test(test_gear_pair_reflected_inertia),
        cmocka_unit_test(test_gear_pair_analyses),
        cmocka_unit_test(test_gear_pair_derivatives_refused),
        cmocka_unit_test(test_coupling_in_four_bar),
        cmocka_unit_test(test_mimic_gripper_urdf),
        cmocka_unit_test(test_door_redundant_user_hinge),
        cmocka_unit_test(test_wrong_jacobian_refused),
        cmocka_unit_test(test_bad_definitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
