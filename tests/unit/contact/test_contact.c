/* Curve-curve contact (src/contact/; Höbinger, Otter, "PlanarMultiBody - a Modelica library
 * for planar multi-body systems", §7, CurveCurveJoint), checked against closed forms:
 *   - an ellipse rolling without slipping on a line: energy conserved to 1e-9 (CVODE); the
 *     centre's height is the ellipse's support function sqrt(a^2 sin^2 phi + b^2 cos^2 phi)
 *     and the contact point on the line moves by the arc length rolled off the ellipse
 *     (Gauss-Legendre quadrature of |p'(s)|), to 1e-9;
 *   - a disc cam (circle of radius r, its centre e from the axis) under a flat-faced
 *     follower: the follower's lift is e sin(theta) + r at every step (1e-10); with the cam
 *     at rest where the contact normal passes through its axis the contact force is the
 *     follower's weight (1e-12);
 *   - long runs: a disc spinning at 1000 rad/s rolls 1e4 rad on a line, a gear pair (two
 *     pitch circles) turns 1e4 rad: slip and energy (the contact parameters of periodic
 *     curves kept within one period, the solve's tolerances relative to the curves); the
 *     disc cam's circle as a closed user curve turns 19 times, its parameter within its
 *     period;
 *   - bad input: a zero radius, a user curve without a function, two lines, a user curve
 *     that fails, curves that cannot touch at the start: each a status and a message, the
 *     builder or the state unchanged. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define G 9.81

/* ---------------------------------------------------------------- rolling ellipse */

#define EA 0.3 /* semi-axes of the ellipse */
#define EB 0.15

/* Ellipse (mass 2, its centre the body origin) on a planar joint in the world x-y plane,
   rolling on the line y = 0 (world x axis, normal +y). *joint_planar, *joint_curve. */
static mbs_model *rolling_ellipse(int *jp, int *jc)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -G, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0;
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = 0.25 * bd.mass * EB * EB, bd.inertia[4] = 0.25 * bd.mass * EA * EA;
    bd.inertia[8] = 0.25 * bd.mass * (EA * EA + EB * EB); /* thin elliptic disc */
    const int body = mbs_add_body(b, &bd);
    assert_true(body > 0);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PLANAR);
    j.child = body, j.name = "plane";
    *jp = mbs_add_joint(b, &j);
    assert_true(*jp >= 0);
    mbs_curve_joint_def c = mbs_default_curve_joint_def();
    c.name = "roll", c.parent = MBS_WORLD, c.child = body, c.rolling = 1;
    c.curve_parent.kind = MBS_CURVE_LINE;
    c.curve_child.kind = MBS_CURVE_ELLIPSE, c.curve_child.a = EA, c.curve_child.b = EB;
    c.s_child = -0.5 * PI; /* the bottom at phi = 0 */
    *jc = mbs_add_curve_joint(b, &c);
    assert_true(*jc >= 0);
    mbs_model *m = NULL;
    const int rc = mbs_compile(b, &m);
    if (rc != MBS_OK) print_error("%s\n", mbs_builder_error(b));
    assert_int_equal(rc, MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Arc length of the ellipse from s0 to s1 (signed): 64-point composite Gauss-Legendre
   (4 points on each of 16 panels) of |p'(s)| = sqrt(a^2 sin^2 s + b^2 cos^2 s). */
static double ellipse_arc(double s0, double s1)
{
    static const double x[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
                                0.8611363115940526};
    static const double w[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
                                0.3478548451374538};
    const int panels = 16;
    const double h = (s1 - s0) / panels;
    double sum = 0.0;
    for (int p = 0; p < panels; ++p)
        for (int k = 0; k < 4; ++k) {
            const double s = s0 + h * (p + 0.5 + 0.5 * x[k]), sn = sin(s), cs = cos(s);
            sum += w[k] * 0.5 * h * sqrt(EA * EA * sn * sn + EB * EB * cs * cs);
        }
    return sum;
}

/* Tilted by 0.7 rad and released: 3 s of CVODE Adams (1e-12). */
static void test_rolling_ellipse(void **state)
{
    (void)state;
    int jp, jc;
    mbs_model *m = rolling_ellipse(&jp, &jc);
    mbs_data *d = mbs_data_create(m);
    double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, jp);
    q[0] = 0.0, q[1] = 0.2, q[2] = 0.7; /* x, y (a guess), phi */
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(mbs_cut_joint_closure(d, jc), MBS_CLOSURE_NEWTON);
    double s0[2], T, V, T0, V0;
    assert_int_equal(mbs_curve_joint_contact(d, jc, s0, NULL, NULL), MBS_OK);
    assert_int_equal(mbs_energy(d, &T0, &V0), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    sd.rtol = sd.atol = 1e-12;
    sd.max_internal_steps = 100000;
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    assert_non_null(st);
    double dE = 0.0, eh = 0.0, ex = 0.0, phimin = INFINITY, phimax = -INFINITY;
    for (int k = 1; k <= 300; ++k) {
        const int rc = mbs_stepper_step(st, 0.01);
        if (rc != MBS_OK) print_error("step %d: %s\n", k, mbs_data_error(d));
        assert_int_equal(rc, MBS_OK);
        double s[2];
        assert_int_equal(mbs_curve_joint_contact(d, jc, s, NULL, NULL), MBS_OK);
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        dE = fmax(dE, fabs(T + V - T0 - V0) / (2.0 * G * EA));
        const double phi = q[2], h = sqrt(EA * EA * sin(phi) * sin(phi) + EB * EB * cos(phi) * cos(phi));
        eh = fmax(eh, fabs(q[1] - h));
        ex = fmax(ex, fabs((s[0] - s0[0]) - ellipse_arc(s0[1], s[1])));
        phimin = fmin(phimin, phi), phimax = fmax(phimax, phi);
    }
    print_message("rolling ellipse 3 s: phi in [%.3f, %.3f], energy error %.1e (of m g a), centre "
                  "height vs support function %.1e, contact travel vs arc length %.1e\n", phimin,
                  phimax, dE, eh, ex);
    assert_true(phimin < -0.5 && phimax > 0.5); /* it rocks to and fro */
    assert_true(dE <= 1e-9);
    assert_true(eh <= 1e-9);
    assert_true(ex <= 1e-9);
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- disc cam */

#define CAM_R 0.1  /* disc radius */
#define CAM_E 0.04 /* its centre from the axis */
#define FOLLOWER_M 0.8

/* Disc cam turning about world z at the origin (a heavy flywheel), a flat-faced follower on
   a prismatic joint along y (its face the body's x axis, facing down). joint ids out. */
/* The disc's circle as a user curve (arc length s, closed: period 2 pi r). */
static int user_circle(double s, double p[2], double dp[2], double ddp[2], void *user)
{
    (void)user;
    const double u = s / CAM_R, c = cos(u), sn = sin(u);
    p[0] = CAM_R * c, p[1] = CAM_R * sn, dp[0] = -sn, dp[1] = c;
    ddp[0] = -c / CAM_R, ddp[1] = -sn / CAM_R;
    return 0;
}

static mbs_model *disc_cam(int *jcam, int *jf, int *jc, double axis_y_reach, int user)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -G, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 5.0, bd.com[0] = CAM_E;
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = bd.inertia[4] = 1.0, bd.inertia[8] = 2.0; /* a flywheel */
    const int cam = mbs_add_body(b, &bd);
    bd = mbs_default_body_def();
    bd.mass = FOLLOWER_M;
    const int fol = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = cam, j.name = "cam";
    *jcam = mbs_add_joint(b, &j);
    j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = fol, j.name = "follower", j.axis[0] = axis_y_reach > 0 ? 1.0 : 0.0;
    j.axis[1] = axis_y_reach > 0 ? 0.0 : 1.0, j.axis[2] = 0.0;
    j.frame_parent.pos[1] = axis_y_reach > 0 ? axis_y_reach : 0.0;
    *jf = mbs_add_joint(b, &j);
    mbs_curve_joint_def c = mbs_default_curve_joint_def();
    c.name = "contact", c.parent = cam, c.child = fol;
    c.frame_parent.pos[0] = CAM_E;
    c.curve_parent.kind = MBS_CURVE_CIRCLE, c.curve_parent.a = CAM_R;
    if (user) {
        c.curve_parent.kind = MBS_CURVE_USER, c.curve_parent.fn = user_circle;
        c.curve_parent.period = 2.0 * PI * CAM_R;
    }
    c.curve_child.kind = MBS_CURVE_LINE, c.curve_child.flip = 1; /* face down */
    c.s_parent = 0.5 * PI * CAM_R;                               /* the top of the disc */
    *jc = mbs_add_curve_joint(b, &c);
    assert_true(*jcam >= 0 && *jf >= 0 && *jc >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* The lift follows the cam over 2 s of RK4 at 1 ms from 6 rad/s; the contact force carries
   the follower's weight at rest with the contact above the axis. */
static void test_disc_cam(void **state)
{
    (void)state;
    int jcam, jf, jc;
    mbs_model *m = disc_cam(&jcam, &jf, &jc, 0.0, 0);
    mbs_data *d = mbs_data_create(m);
    const int qc = mbs_model_joint_qadr(m, jcam), qf = mbs_model_joint_qadr(m, jf);
    mbs_data_q(d)[qf] = 0.2; /* a guess */
    mbs_data_v(d)[mbs_model_joint_vadr(m, jcam)] = 6.0;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    double err = 0.0, lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < 2000; ++k) {
        assert_int_equal(mbs_stepper_step(st, 1e-3), MBS_OK);
        const double th = mbs_data_q(d)[qc], y = mbs_data_q(d)[qf];
        err = fmax(err, fabs(y - (CAM_E * sin(th) + CAM_R)));
        lo = fmin(lo, y), hi = fmax(hi, y);
    }
    print_message("disc cam 2 s: lift in [%.4f, %.4f] (cam: [%.4f, %.4f]), |lift - (e sin theta + "
                  "r)| %.1e\n", lo, hi, CAM_R - CAM_E, CAM_R + CAM_E, err);
    assert_true(err <= 1e-10);
    assert_true(hi - lo > 2.0 * CAM_E - 1e-3);
    mbs_data_q(d)[qc] = 0.5 * PI, mbs_data_q(d)[qf] = CAM_E + CAM_R;
    memset(mbs_data_v(d), 0, 2 * sizeof(double));
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double fn = mbs_data_lambda(d)[0];
    print_message("contact force at rest %.15f N, weight %.15f N\n", fn, FOLLOWER_M * G);
    assert_true(fabs(fn - FOLLOWER_M * G) <= 1e-12 * FOLLOWER_M * G);
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}


/* ---------------------------------------------------------------- long rolling */

#define DISC_R 0.1

/* A disc (radius DISC_R, mass 1) on a planar joint in the world x-y plane rolling on the line
   y = 0 without gravity; *jp, *jc the planar and curve joints. */
static mbs_model *rolling_disc(int *jp, int *jc)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.0, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 1.0;
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = bd.inertia[4] = 0.25 * DISC_R * DISC_R, bd.inertia[8] = 0.5 * DISC_R * DISC_R;
    const int body = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PLANAR);
    j.child = body, j.name = "plane";
    *jp = mbs_add_joint(b, &j);
    mbs_curve_joint_def c = mbs_default_curve_joint_def();
    c.name = "roll", c.parent = MBS_WORLD, c.child = body, c.rolling = 1;
    c.curve_child.kind = MBS_CURVE_CIRCLE, c.curve_child.a = DISC_R;
    c.s_child = -0.5 * PI * DISC_R; /* the bottom */
    *jc = mbs_add_curve_joint(b, &c);
    assert_true(*jp >= 0 && *jc >= 0);
    return test_compile_ok(b); /* destroys b */
}

/* Energy (relative), slip (m) and the angle turned of one long run of n RK4 steps of dt with
   the default step settings; the slip of each step is |slip(q)| from slip_fn. */
typedef double (*slip_fn)(mbs_data *d, const double *q0);
static void long_run(mbs_data *d, int n, double dt, slip_fn slip, double out[2])
{
    const int nq = mbs_model_nq(mbs_data_model(d));
    double q0[8], T0, V0, T, V;
    memcpy(q0, mbs_data_q(d), (size_t)nq * sizeof(double));
    assert_int_equal(mbs_energy(d, &T0, &V0), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    assert_non_null(st);
    out[0] = out[1] = 0.0;
    for (int k = 1; k <= n; ++k) {
        const int rc = mbs_stepper_step(st, dt);
        if (rc != MBS_OK) print_error("step %d (t %.3f): %s\n", k, k * dt, mbs_data_error(d));
        assert_int_equal(rc, MBS_OK);
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        out[0] = fmax(out[0], fabs(T + V - T0 - V0) / fabs(T0 + V0));
        out[1] = fmax(out[1], slip(d, q0));
    }
    mbs_stepper_destroy(st);
}

/* x + r phi stays where it started (rolling to the left for positive phi). */
static double disc_slip(mbs_data *d, const double *q0)
{
    const double *q = mbs_data_q(d);
    return fabs((q[0] - q0[0]) + DISC_R * (q[2] - q0[2]));
}

/* A disc spinning at 1000 rad/s rolls 1e4 rad (1e4 RK4 steps of 1 ms, 1000 m along the
   line): the circle's parameter stays within one period, the energy (constant) within 1e-11.
   The slip x + r phi stays under 1e-12 of the distance: x's own rounding (its ulp at 1000 m
   is 1.1e-13, rounded the same way in each of the 1e4 steps) sets that floor; the gear pair
   below, whose positions stay bounded, keeps it under 1e-10 m. */
static void test_disc_rolls_far(void **state)
{
    (void)state;
    int jp, jc;
    mbs_model *m = rolling_disc(&jp, &jc);
    mbs_data *d = mbs_data_create(m);
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    q[1] = DISC_R;
    v[2] = 1000.0, v[0] = -DISC_R * v[2];
    assert_int_equal(mbs_assemble(d), MBS_OK);
    double r[2], s[2];
    long_run(d, 10000, 1e-3, disc_slip, r);
    assert_int_equal(mbs_curve_joint_contact(d, jc, s, NULL, NULL), MBS_OK);
    print_message("disc rolled %.0f rad (x %.1f m): energy %.1e, slip %.1e m, s (%.4f, %.4f)\n",
                  q[2], q[0], r[0], r[1], s[0], s[1]);
    assert_true(q[2] >= 1e4 - 1.0);
    assert_true(r[0] <= 1e-11);
    assert_true(r[1] <= 1e-12 * fabs(q[0]));
    assert_true(fabs(s[1]) <= PI * DISC_R); /* the circle's parameter wrapped */
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

#define GEAR_R1 0.05
#define GEAR_R2 0.08

/* Two pitch circles (radii GEAR_R1, GEAR_R2) on revolute joints about world z, their centres
   GEAR_R1 + GEAR_R2 apart along x, rolling on each other; *j1, *j2 the revolutes. */
static mbs_model *gear_pair(int *j1, int *j2)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -G, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 1.0;
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = bd.inertia[4] = 0.02, bd.inertia[8] = 0.03;
    const int g1 = mbs_add_body(b, &bd);
    bd.inertia[8] = 0.03, bd.com[1] = 0.01; /* off its axis: gravity turns it unevenly */
    const int g2 = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = g1, j.name = "gear1";
    *j1 = mbs_add_joint(b, &j);
    j.child = g2, j.name = "gear2", j.frame_parent.pos[0] = GEAR_R1 + GEAR_R2;
    *j2 = mbs_add_joint(b, &j);
    mbs_curve_joint_def c = mbs_default_curve_joint_def();
    c.name = "mesh", c.parent = g1, c.child = g2, c.rolling = 1;
    c.curve_parent.kind = c.curve_child.kind = MBS_CURVE_CIRCLE;
    c.curve_parent.a = GEAR_R1, c.curve_child.a = GEAR_R2;
    c.s_parent = 0.0, c.s_child = PI * GEAR_R2; /* touching on the x axis */
    const int jc = mbs_add_curve_joint(b, &c);
    if (jc < 0) print_error("%s\n", mbs_builder_error(b));
    assert_true(*j1 >= 0 && *j2 >= 0 && jc >= 0);
    return test_compile_ok(b); /* destroys b */
}

/* r1 theta1 + r2 theta2 stays where it started. */
static double gear_slip(mbs_data *d, const double *q0)
{
    const double *q = mbs_data_q(d);
    return fabs(GEAR_R1 * (q[0] - q0[0]) + GEAR_R2 * (q[1] - q0[1]));
}

/* The pinion turns 1e4 rad at 1000 rad/s (1e4 RK4 steps of 1 ms), gravity on the wheel's
   offset centre of mass loading the mesh: slip under 1e-10 m, energy within RK4's error
   (5e-10 of it; 3e-11 at half the step: the 16x of a fourth-order method). */
static void test_gears_turn_far(void **state)
{
    (void)state;
    int j1, j2;
    mbs_model *m = gear_pair(&j1, &j2);
    mbs_data *d = mbs_data_create(m);
    double *v = mbs_data_v(d);
    v[0] = 1000.0, v[1] = -GEAR_R1 / GEAR_R2 * v[0];
    assert_int_equal(mbs_assemble(d), MBS_OK);
    double r[2];
    long_run(d, 10000, 1e-3, gear_slip, r);
    const double *q = mbs_data_q(d);
    print_message("gears turned %.0f and %.0f rad: energy %.1e, slip %.1e m\n", q[0], q[1], r[0],
                  r[1]);
    assert_true(q[0] >= 1e4 - 1.0);
    assert_true(r[0] <= 1e-9);
    assert_true(r[1] <= 1e-10);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The disc cam's circle as a closed user curve (a cam profile of the host's): 20 s of RK4
   at 1 ms from 6 rad/s (19 turns); the parameter stays within its period, the lift follows
   the cam (as an open curve, period 0, the parameter grows to -11.8 over the 19 turns, its
   rounding with it). */
static void test_user_cam_turns(void **state)
{
    (void)state;
    int jcam, jf, jc;
    mbs_model *m = disc_cam(&jcam, &jf, &jc, 0.0, 1);
    mbs_data *d = mbs_data_create(m);
    const int qc = mbs_model_joint_qadr(m, jcam), qf = mbs_model_joint_qadr(m, jf);
    mbs_data_q(d)[qf] = 0.2;
    mbs_data_v(d)[mbs_model_joint_vadr(m, jcam)] = 6.0;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    double err = 0.0, s[2];
    for (int k = 1; k <= 20000; ++k) {
        const int rc = mbs_stepper_step(st, 1e-3);
        if (rc != MBS_OK) print_error("t %.3f: %s\n", 1e-3 * k, mbs_data_error(d));
        assert_int_equal(rc, MBS_OK);
        const double th = mbs_data_q(d)[qc], y = mbs_data_q(d)[qf];
        err = fmax(err, fabs(y - (CAM_E * sin(th) + CAM_R)));
    }
    assert_int_equal(mbs_curve_joint_contact(d, jc, s, NULL, NULL), MBS_OK);
    print_message("user cam 20 s (%.0f rad): |lift - (e sin theta + r)| %.1e, s %.4f\n",
                  mbs_data_q(d)[qc], err, s[0]);
    assert_true(mbs_data_q(d)[qc] > 100.0);
    assert_true(err <= 1e-10);
    assert_true(fabs(s[0]) <= PI * CAM_R);
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- bad input */

static int failing_curve(double s, double p[2], double dp[2], double ddp[2], void *user)
{
    (void)user;
    p[0] = s, p[1] = 0.0, dp[0] = 1.0, dp[1] = 0.0, ddp[0] = ddp[1] = 0.0;
    return s > 1.0; /* fails beyond s = 1 */
}

/* Each bad definition: MBS_ERR_ARG, a message naming the joint and what, the builder still
   compiles without it; a failing user curve and curves that cannot touch: the assembly's
   status with a message, q and v unchanged. */
static void test_bad_curves(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    const int body = mbs_add_body(b, &bd);
    mbs_curve_joint_def c = mbs_default_curve_joint_def();
    c.name = "c", c.child = body;
    c.curve_parent.kind = MBS_CURVE_CIRCLE, c.curve_parent.a = 0.0;
    assert_int_equal(mbs_add_curve_joint(b, &c), MBS_ERR_ARG);
    print_message("%s\n", mbs_builder_error(b));
    assert_non_null(strstr(mbs_builder_error(b), "radius"));
    c.curve_parent.kind = MBS_CURVE_ELLIPSE, c.curve_parent.a = 1.0, c.curve_parent.b = -1.0;
    assert_int_equal(mbs_add_curve_joint(b, &c), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "semi-axis b"));
    c.curve_parent.kind = MBS_CURVE_USER;
    assert_int_equal(mbs_add_curve_joint(b, &c), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "fn"));
    c.curve_parent.fn = failing_curve, c.curve_parent.period = -1.0;
    assert_int_equal(mbs_add_curve_joint(b, &c), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "period"));
    c.curve_parent.fn = NULL, c.curve_parent.period = 0.0;
    c.curve_parent.kind = MBS_CURVE_LINE;
    assert_int_equal(mbs_add_curve_joint(b, &c), MBS_ERR_ARG);
    print_message("%s\n", mbs_builder_error(b));
    assert_non_null(strstr(mbs_builder_error(b), "two lines"));
    c.curve_parent.kind = (mbs_curve_kind)9;
    assert_int_equal(mbs_add_curve_joint(b, &c), MBS_ERR_ARG);
    c.curve_parent.kind = MBS_CURVE_CIRCLE, c.curve_parent.a = 1.0, c.s_child = NAN;
    assert_int_equal(mbs_add_curve_joint(b, &c), MBS_ERR_ARG);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_CURVE);
    j.child = body;
    assert_int_equal(mbs_add_joint(b, &j), MBS_ERR_ARG); /* only through mbs_add_curve_joint */
    assert_int_equal(mbs_add_curve_joint(NULL, &c), MBS_ERR_ARG);
    assert_int_equal(mbs_add_curve_joint(b, NULL), MBS_ERR_ARG);
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_njoint(m), 1); /* the automatic free joint only */
    mbs_model_destroy(m);
    mbs_builder_destroy(b);

    int jcam, jf, jc;
    m = disc_cam(&jcam, &jf, &jc, 0.5, 0); /* the follower slides along x at y = 0.5: out of reach */
    mbs_data *d = mbs_data_create(m);
    double q0[2], v0[2];
    memcpy(q0, mbs_data_q(d), sizeof q0), memcpy(v0, mbs_data_v(d), sizeof v0);
    const int rc = mbs_assemble(d);
    print_message("cannot touch: %s (%s)\n", mbs_status_name(rc), mbs_data_error(d));
    assert_true(rc < 0);
    assert_non_null(strstr(mbs_data_error(d), "\"contact\""));
    assert_memory_equal(q0, mbs_data_q(d), sizeof q0);
    assert_memory_equal(v0, mbs_data_v(d), sizeof v0);
    assert_int_equal(mbs_curve_joint_contact(d, jcam, NULL, NULL, NULL), MBS_ERR_ARG);
    mbs_data_destroy(d);
    mbs_model_destroy(m);

    b = mbs_builder_create(); /* a user curve that fails beyond s = 1 */
    const int body2 = mbs_add_body(b, &bd);
    j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = body2, j.axis[2] = 0.0, j.axis[1] = 1.0;
    assert_true(mbs_add_joint(b, &j) >= 0);
    c = mbs_default_curve_joint_def();
    c.name = "user", c.child = body2;
    c.curve_parent.kind = MBS_CURVE_USER, c.curve_parent.fn = failing_curve;
    c.curve_child.kind = MBS_CURVE_CIRCLE, c.curve_child.a = 0.1, c.s_parent = 5.0;
    assert_true(mbs_add_curve_joint(b, &c) >= 0);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    d = mbs_data_create(m);
    const int rc2 = mbs_assemble(d);
    print_message("failing user curve: %s (%s)\n", mbs_status_name(rc2), mbs_data_error(d));
    assert_true(rc2 < 0 && strstr(mbs_data_error(d), "\"user\""));
    assert_int_equal(mbs_curve_joint_contact(d, 1, NULL, NULL, NULL), MBS_ERR_CALLBACK);
    print_message("%s\n", mbs_data_error(d));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rolling_ellipse),
        cmocka_unit_test(test_disc_cam),
        cmocka_unit_test(test_disc_rolls_far),
        cmocka_unit_test(test_gears_turn_far),
        cmocka_unit_test(test_user_cam_turns),
        cmocka_unit_test(test_bad_curves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
