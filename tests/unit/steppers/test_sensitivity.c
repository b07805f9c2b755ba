/* Parameter sensitivities by SUNDIALS CVODES (ROBOTRAN §3.5.2): the pendulum's d(period)/
 * d(length) against the closed forms (small amplitude 2 pi sqrt(L/g), and the elliptic
 * integral 4 sqrt(L/g) K(sin(theta0/2)) at large amplitude), CVODES' sensitivities of a
 * spatial tree against central differences of two runs, the same for the later kinds (rotor
 * inertia and ratio, line masses and their places, joint friction), the model's parameters
 * put back, continuation, determinism and every bad input. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define G 9.81

/* ---------------------------------------------------------------- pendulum period */

/* K(k) = pi / (2 AGM(1, sqrt(1 - k^2))), the complete elliptic integral of the first kind. */
static double ellip_k(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40 && fabs(a - b) > 1e-17 * a; ++i) {
        const double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return PI / (2.0 * a);
}

/* A point mass (zero inertia) at com (0, 0, -L) on a revolute joint about x at the world
   origin: theta'' = -(g / L) sin theta. */
static mbs_model *pendulum(double L)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "bob";
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.com[2] = -L;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1;
    j.axis[0] = 1, j.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* d(period)/d(length) from the sensitivity of theta to the com coordinate c_z = -L at the
   first zero crossing t1 = T/4 (T from the closed form): theta(t1(L), L) = 0 gives
   dt1/dL = -(dtheta/dL) / theta', dT/dL = 4 dt1/dL = 4 (dtheta/dc_z) / theta'. */
static double period_derivative(double L, double theta0, double T, double *theta_end)
{
    mbs_model *m = pendulum(L);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = theta0;
    const mbs_param p = {MBS_PARAM_COM, 1, 2};
    mbs_sens_def sd = mbs_default_sens_def();
    sd.rtol = 1e-9;
    sd.atol = 1e-11 * theta0;
    mbs_sens *s = NULL;
    int st = mbs_sens_create(m, d, &p, 1, &sd, &s);
    if (st != MBS_OK) print_error("sens_create: %s\n", mbs_data_error(d));
    assert_int_equal(st, MBS_OK);
    st = mbs_sens_run(s, T / 4.0);
    if (st != MBS_OK) print_error("sens_run: %s\n", mbs_data_error(d));
    assert_int_equal(st, MBS_OK);
    double dq, dv;
    assert_int_equal(mbs_sens_get(s, 0, &dq, &dv), MBS_OK);
    *theta_end = mbs_data_q(d)[0];
    const double dTdL = 4.0 * dq / mbs_data_v(d)[0];
    mbs_sens_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return dTdL;
}

/* Small amplitude (theta0 = 1e-3, T within 6e-8 of 2 pi sqrt(L/g)): dT/dL = pi / sqrt(g L)
   to 1e-6 relative; large amplitude (theta0 = 2.5 rad): T = 4 sqrt(L/g) K(sin(theta0/2)),
   dT/dL = T / (2L) to 1e-7 relative (CVODES Adams, rtol 1e-9; measured 7e-8 and 1.4e-8). */
static void test_period_derivative(void **state)
{
    (void)state;
    const double L = 0.8;
    double th;
    const double small_T = 2.0 * PI * sqrt(L / G) * (1.0 + 1e-6 / 16.0);
    const double small = period_derivative(L, 1e-3, small_T, &th);
    const double small_ref = PI / sqrt(G * L);
    print_message("small amplitude: dT/dL = %.12f, 2 pi sqrt(L/g)/(2L) = %.12f (rel %.2e), "
                  "theta(T/4) = %.1e\n", small, small_ref, fabs(small - small_ref) / small_ref, th);
    assert_true(fabs(small - small_ref) < 1e-6 * small_ref);
    assert_true(fabs(th) < 1e-10);
    const double th0 = 2.5, T = 4.0 * sqrt(L / G) * ellip_k(sin(0.5 * th0));
    const double large = period_derivative(L, th0, T, &th), large_ref = T / (2.0 * L);
    print_message("amplitude 2.5 rad: T = %.12f, dT/dL = %.12f, T/(2L) = %.12f (rel %.2e), "
                  "theta(T/4) = %.1e\n", T, large, large_ref, fabs(large - large_ref) / large_ref, th);
    assert_true(fabs(large - large_ref) < 1e-7 * large_ref);
    assert_true(fabs(th) < 1e-7);
}

/* ---------------------------------------------------------------- vs central differences */

/* A free rigid body hanging from the world by a spring-damper, a link on a revolute joint
   with a joint spring-damper, a point mass on a spherical joint at its end (a swing joint),
   uniform gravity. */
static mbs_model *tree(void)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.3, -G};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0;
    bd.com[0] = 0.1;
    bd.inertia[0] = 0.3, bd.inertia[4] = 0.25, bd.inertia[8] = 0.35, bd.inertia[1] = bd.inertia[3] = 0.01;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd = mbs_default_body_def();
    bd.com[0] = 0.3;
    bd.inertia[0] = 0.01, bd.inertia[4] = 0.05, bd.inertia[8] = 0.05;
    assert_int_equal(mbs_add_body(b, &bd), 2);
    bd = mbs_default_body_def();
    bd.mass = 0.5;
    bd.com[2] = -0.4;
    memset(bd.inertia, 0, sizeof bd.inertia);
    assert_int_equal(mbs_add_body(b, &bd), 3);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = 0.4;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.parent = 2, j.child = 3, j.frame_parent.pos[0] = 0.6;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_b = 1, sd.point_a[2] = 1.0, sd.point_b[1] = 0.1;
    sd.stiffness = 60.0, sd.damping = 0.5, sd.rest_length = 0.7;
    assert_int_equal(mbs_add_spring_damper(b, &sd), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 4.0, 0.3, 0.2), 1);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* The start state of the tree runs. */
static void tree_start(mbs_data *d)
{
    test_rng r;
    test_rng_seed(&r, 21);
    test_random_state(&r, d, 0.6, 1.0, 0.0);
}

typedef void (*start_fn)(mbs_data *d);

/* q, v at t = 1 from the start state with a CVODE stepper (Adams, rtol 1e-12). */
static void plain_run(const mbs_model *m, start_fn start, double *q, double *v)
{
    mbs_data *d = mbs_data_create(m);
    start(d);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    sd.rtol = 1e-12, sd.atol = 1e-14, sd.max_internal_steps = 1000000;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    assert_int_equal(mbs_stepper_step(s, 1.0), MBS_OK);
    memcpy(q, mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    memcpy(v, mbs_data_v(d), (size_t)mbs_model_nv(m) * sizeof(double));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
}

#define MAXP 16

/* y = [q; v] at t = 1 (plain_run) with parameter p at value x (put back to nominal after). */
static void run_at(mbs_model *m, start_fn start, const mbs_param *p, double x, double nominal,
                   double *y)
{
    assert_int_equal(mbs_model_set_param(m, p, x), MBS_OK);
    plain_run(m, start, y, y + mbs_model_nq(m));
    assert_int_equal(mbs_model_set_param(m, p, nominal), MBS_OK);
}

/* Central differences of y = [q; v] at t = 1 to each parameter, fd[k] for parameter k, step
   h = rel max(|p|, floor): (y(p + h) - y(p - h)) / 2h, or with five_point the fourth-order
   (8 (y(p + h) - y(p - h)) - (y(p + 2h) - y(p - 2h))) / 12h. */
static void central_differences(mbs_model *m, start_fn start, const mbs_param *params, int np,
                                const double *nominal, double rel, double floor, int five_point,
                                double fd[][32])
{
    const int n = mbs_model_nq(m) + mbs_model_nv(m);
    for (int k = 0; k < np; ++k) {
        const double h = rel * fmax(fabs(nominal[k]), floor), p = nominal[k];
        double yp[32], ym[32], yp2[32], ym2[32];
        run_at(m, start, &params[k], p + h, p, yp);
        run_at(m, start, &params[k], p - h, p, ym);
        for (int i = 0; i < n; ++i) fd[k][i] = (yp[i] - ym[i]) / (2.0 * h);
        if (!five_point) continue;
        run_at(m, start, &params[k], p + 2.0 * h, p, yp2);
        run_at(m, start, &params[k], p - 2.0 * h, p, ym2);
        for (int i = 0; i < n; ++i)
            fd[k][i] = (8.0 * (yp[i] - ym[i]) - (yp2[i] - ym2[i])) / (12.0 * h);
    }
}

/* CVODES (Adams and BDF, rtol 1e-8) sensitivities at t = 1 of np parameters against central
   differences of CVODE runs (rtol 1e-12; central_differences): within 1e-6 of each sensitivity vector's
   largest entry; every parameter moves the motion (largest entry > 1e-3); the model's
   parameters bitwise the nominal ones after the run. */
static void check_vs_central(mbs_model *m, start_fn start, const mbs_param *params, int np,
                             double rel, double floor, int five_point, const char *what)
{
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    assert_true(nq <= 16 && nv <= 16 && np <= MAXP);
    double nominal[MAXP], fd[MAXP][32];
    for (int k = 0; k < np; ++k)
        assert_int_equal(mbs_model_get_param(m, &params[k], &nominal[k]), MBS_OK);
    central_differences(m, start, params, np, nominal, rel, floor, five_point, fd);
    for (int kind = MBS_STEP_CVODE_ADAMS; kind <= MBS_STEP_CVODE_BDF; ++kind) {
        mbs_data *d = mbs_data_create(m);
        start(d);
        mbs_sens_def sd = mbs_default_sens_def();
        sd.kind = (mbs_stepper_kind)kind;
        sd.rtol = 1e-8, sd.atol = 1e-10;
        mbs_sens *s = NULL;
        assert_int_equal(mbs_sens_create(m, d, params, np, &sd, &s), MBS_OK);
        int st = mbs_sens_run(s, 1.0);
        if (st != MBS_OK) print_error("sens_run: %s\n", mbs_data_error(d));
        assert_int_equal(st, MBS_OK);
        double worst = 0.0;
        for (int k = 0; k < np; ++k) {
            double S[32], scale = 0.0, err = 0.0, x;
            assert_int_equal(mbs_sens_get(s, k, S, S + nq), MBS_OK);
            for (int i = 0; i < nq + nv; ++i) scale = fmax(scale, fabs(fd[k][i]));
            for (int i = 0; i < nq + nv; ++i) err = fmax(err, fabs(S[i] - fd[k][i]));
            worst = fmax(worst, err / scale);
            if (!(scale > 1e-3) || !(err <= 1e-6 * scale))
                print_error("parameter %d: scale %.3e, error %.3e\n", k, scale, err);
            assert_true(scale > 1e-3); /* each parameter moves the motion */
            assert_int_equal(mbs_model_get_param(m, &params[k], &x), MBS_OK);
            assert_memory_equal(&x, &nominal[k], sizeof x);
        }
        print_message("%s: CVODES %s sensitivities vs central differences: %.2e of the largest "
                      "entry (%d parameters)\n", what, kind == MBS_STEP_CVODE_BDF ? "BDF" : "Adams",
                      worst, np);
        assert_true(worst < 1e-6);
        mbs_sens_destroy(s);
        mbs_data_destroy(d);
    }
}

static const mbs_param TREE_PARAMS[] = {
    {MBS_PARAM_MASS, 1, 0},      {MBS_PARAM_INERTIA, 1, 0}, {MBS_PARAM_INERTIA, 1, 1},
    {MBS_PARAM_COM, 2, 0},       {MBS_PARAM_MASS, 3, 0},    {MBS_PARAM_COM, 3, 2},
    {MBS_PARAM_STIFFNESS, 0, 0}, {MBS_PARAM_DAMPING, 1, 0}, {MBS_PARAM_REST, 0, 0},
    {MBS_PARAM_GRAVITY, 0, 1},
};
#define NTP ((int)(sizeof TREE_PARAMS / sizeof TREE_PARAMS[0]))

/* Ten parameters of every first kind (masses, inertia entries on and off the diagonal, com
   coordinates of a link and of a swing point mass, spring stiffness, damping, rest length,
   a gravity component) of the tree (check_vs_central with steps 1e-4 max(|p|, 1); measured
   <= 3e-7). */
static void test_vs_central_differences(void **state)
{
    (void)state;
    mbs_model *m = tree();
    check_vs_central(m, tree_start, TREE_PARAMS, NTP, 1e-4, 1.0, 0, "tree");
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- later element kinds */

/* A turntable (revolute z), an arm on it (revolute y) and a slider on the world (prismatic x).
   Rotor 0 on the arm's joint housed by the turntable (native to ABA, moving housing), rotor 1
   on the turntable's joint housed by the arm (a coupling row). Force elements: 0 a
   spring-damper with a point mass from the world to the arm, 1 a line force with two masses
   from the world to the arm, 2 joint friction on the slider, 3 a massless spring-damper from
   the world to the turntable, 4 an elastic stop (lower limit 0) under a block on a vertical
   prismatic joint. */
static mbs_model *elements_tree(void)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.3, -G};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 1.5, bd.com[0] = 0.3, bd.com[1] = 0.05;
    bd.inertia[0] = 0.02, bd.inertia[4] = 0.05, bd.inertia[8] = 0.06;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd = mbs_default_body_def();
    bd.com[0] = 0.2, bd.com[2] = 0.05;
    bd.inertia[0] = 0.01, bd.inertia[4] = 0.03, bd.inertia[8] = 0.03;
    assert_int_equal(mbs_add_body(b, &bd), 2);
    bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 3);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = 0.5, j.axis[1] = 1, j.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = 3, j.frame_parent.pos[1] = 1.0, j.axis[0] = 1, j.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &j), 2);
    mbs_rotor_def r = mbs_default_rotor_def();
    r.joint = 1, r.housing = 1, r.inertia = 1e-3, r.ratio = 10.0;
    r.axis[0] = 0.1, r.axis[1] = 1.0, r.axis[2] = 0.2;
    assert_int_equal(mbs_add_rotor(b, &r), 0);
    r = mbs_default_rotor_def();
    r.joint = 0, r.housing = 2, r.inertia = 5e-4, r.ratio = 8.0;
    assert_int_equal(mbs_add_rotor(b, &r), 1);
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    s.body_b = 2, s.point_a[2] = 1.0, s.point_b[0] = 0.4;
    s.stiffness = 40.0, s.damping = 0.3, s.rest_length = 0.8, s.mass = 0.4, s.mass_fraction = 0.3;
    assert_int_equal(mbs_add_spring_damper(b, &s), 0);
    mbs_line_force_two_masses_def t = mbs_default_line_force_two_masses_def();
    t.body_b = 2, t.point_a[1] = -1.0, t.point_a[2] = 0.5, t.point_b[0] = 0.4, t.point_b[2] = 0.1;
    t.stiffness = 30.0, t.damping = 0.2, t.rest_length = 0.9;
    t.mass_a = 0.6, t.distance_a = 0.3, t.mass_b = 0.3, t.distance_b = 0.2;
    assert_int_equal(mbs_add_line_force_two_masses(b, &t), 1);
    mbs_joint_friction_def fd = mbs_default_joint_friction_def();
    fd.joint = 2, fd.coulomb = 0.5, fd.stiction = 0.8, fd.viscous = 0.3;
    assert_int_equal(mbs_add_joint_friction(b, &fd), 2);
    s = mbs_default_spring_damper_def();
    s.body_b = 1, s.point_a[1] = 1.0, s.point_b[0] = 0.3, s.stiffness = 5.0, s.rest_length = 1.0;
    assert_int_equal(mbs_add_spring_damper(b, &s), 3);
    bd = mbs_default_body_def();
    bd.mass = 0.5;
    assert_int_equal(mbs_add_body(b, &bd), 4);
    j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = 4, j.frame_parent.pos[1] = -1.0;
    assert_int_equal(mbs_add_joint(b, &j), 3);
    mbs_joint_stop_def st = mbs_default_joint_stop_def();
    st.joint = 3, st.lower = 0.0, st.law = MBS_STOP_ELASTIC, st.stiffness = 20.0, st.damping = 2.0;
    assert_int_equal(mbs_add_joint_stop(b, &st), 4);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* The tree's random start, the slider at 2 m/s: friction decelerates it by at most 1.1 m/s^2,
   so it slides forward through the whole run (no lock: the sensitivities are smooth); the
   block 0.2 m into its soft stop at rest, near its equilibrium 0.245 m, about which it
   oscillates without leaving the contact. */
static void elements_start(mbs_data *d)
{
    tree_start(d);
    const mbs_model *m = mbs_data_model(d);
    mbs_data_v(d)[mbs_model_joint_vadr(m, 2)] = 2.0;
    mbs_data_q(d)[mbs_model_joint_qadr(m, 3)] = -0.2; /* the block in its stop, at rest */
    mbs_data_v(d)[mbs_model_joint_vadr(m, 3)] = 0.0;
}

static const mbs_param ELEMENT_PARAMS[] = {
    {MBS_PARAM_ROTOR_INERTIA, 0, 0},   {MBS_PARAM_ROTOR_RATIO, 0, 0},
    {MBS_PARAM_ROTOR_INERTIA, 1, 0},   {MBS_PARAM_ROTOR_RATIO, 1, 0},
    {MBS_PARAM_LINE_MASS, 0, 0},       {MBS_PARAM_LINE_MASS_PLACE, 0, 0},
    {MBS_PARAM_LINE_MASS, 1, 0},       {MBS_PARAM_LINE_MASS, 1, 1},
    {MBS_PARAM_LINE_MASS_PLACE, 1, 0}, {MBS_PARAM_LINE_MASS_PLACE, 1, 1},
    {MBS_PARAM_STIFFNESS, 1, 0},       {MBS_PARAM_FRICTION, 2, 0},
    {MBS_PARAM_FRICTION, 2, 2},        {MBS_PARAM_STOP, 4, 0},
    {MBS_PARAM_STOP, 4, 1},
};
#define NEP ((int)(sizeof ELEMENT_PARAMS / sizeof ELEMENT_PARAMS[0]))

/* Rotor inertias and ratios (native on a moving housing, a coupling row), the point masses
   and places of a spring-damper and of a line force with two masses, its stiffness, the
   coulomb and viscous values of a sliding joint friction, the stiffness and damping of an
   elastic stop in contact: check_vs_central with five-point differences of steps 1e-2 |p|
   (relative: a rotor inertia is 1e-3 kg m^2; two-point differences are within 1e-6 for no
   single step size here: truncation for the ratios and the stiffness, rounding of the runs
   for the distance of a small mass; steps of 1e-3 |p| leave the rounding of the runs at
   4e-6 of the stop damping's sensitivity). */
static void test_element_kinds(void **state)
{
    (void)state;
    mbs_model *m = elements_tree();
    double q[16], v[16];
    plain_run(m, elements_start, q, v);
    assert_true(v[mbs_model_joint_vadr(m, 2)] > 0.5); /* still sliding forward at t = 1 */
    assert_true(q[mbs_model_joint_qadr(m, 3)] < -0.1); /* still in the stop's contact */
    check_vs_central(m, elements_start, ELEMENT_PARAMS, NEP, 1e-2, 0.0, 1,
                     "rotors, line masses, friction, stop");
    mbs_model_destroy(m);
}

/* The later kinds refused by mbs_sens_create: a point mass compiled 0 (no inertial rows), a
   bad rotor id, a spring-damper's friction, two same parameters, the damping of a line
   through a node, a restitution stop's value; *out untouched. */
static void test_element_kinds_refused(void **state)
{
    (void)state;
    mbs_model *m = elements_tree();
    mbs_data *d = mbs_data_create(m);
    elements_start(d);
    const mbs_sens_def sd = mbs_default_sens_def();
    mbs_sens *s = NULL;
    const struct { mbs_param p[2]; int np; const char *msg; } bad[] = {
        {{{MBS_PARAM_LINE_MASS, 3, 0}}, 1, "force element 3 was compiled 0 and stays 0"},
        {{{MBS_PARAM_ROTOR_RATIO, 2, 0}}, 1, "rotor 2 out of range"},
        {{{MBS_PARAM_LINE_MASS, 1, 2}}, 1, "index 2 out of range"},
        {{{MBS_PARAM_FRICTION, 0, 0}}, 1, "is a spring-damper, which has no friction values"},
        {{{MBS_PARAM_ROTOR_INERTIA, 1, 0}, {MBS_PARAM_ROTOR_INERTIA, 1, 0}}, 2, "are the same"},
        {{{MBS_PARAM_STOP, 4, 2}}, 1, "has the elastic law, which has no restitution"},
    };
    for (int c = 0; c < (int)(sizeof bad / sizeof bad[0]); ++c) {
        assert_int_equal(mbs_sens_create(m, d, bad[c].p, bad[c].np, &sd, &s), MBS_ERR_ARG);
        if (!strstr(mbs_data_error(d), bad[c].msg)) print_error("%s\n", mbs_data_error(d));
        assert_non_null(strstr(mbs_data_error(d), bad[c].msg));
        assert_null(s);
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);

    /* a node between two springs on a slider, a restitution stop on the slider */
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd.mass = 0.0;
    memset(bd.inertia, 0, sizeof bd.inertia);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = 1, j.axis[0] = 1, j.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    mbs_spring_damper_def sp = mbs_default_spring_damper_def();
    sp.body_b = 2, sp.stiffness = 100.0, sp.rest_length = 0.2;
    assert_int_equal(mbs_add_spring_damper(b, &sp), 0);
    sp.body_a = 2, sp.body_b = 1, sp.stiffness = 200.0, sp.rest_length = 0.3;
    assert_int_equal(mbs_add_spring_damper(b, &sp), 1);
    mbs_joint_stop_def stop = mbs_default_joint_stop_def();
    stop.joint = 0, stop.upper = 2.0;
    assert_int_equal(mbs_add_joint_stop(b, &stop), 2);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.8;
    const mbs_param damping = {MBS_PARAM_DAMPING, 1, 0}, k = {MBS_PARAM_STIFFNESS, 1, 0};
    assert_int_equal(mbs_sens_create(m, d, &damping, 1, &sd, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "touches a node, its damping stays 0"));
    const mbs_param e = {MBS_PARAM_STOP, 2, 2};
    assert_int_equal(mbs_sens_create(m, d, &e, 1, &sd, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "act at impacts, which a sensitivity run does not"));
    assert_int_equal(mbs_sens_create(m, d, &k, 1, &sd, &s), MBS_OK);
    mbs_sens_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Two runs from the same start are bitwise equal; a run to 0.5 then on to 1 agrees with one
   run to 1 (1e-7 of the sensitivity scale); mbs_sens_restart starts the sensitivities at 0
   from the data's state. */
static void test_continuation_and_determinism(void **state)
{
    (void)state;
    mbs_model *m = tree();
    const int n = mbs_model_nq(m) + mbs_model_nv(m), nq = mbs_model_nq(m);
    double S[3][2][32];
    memset(S, 0, sizeof S);
    for (int r = 0; r < 3; ++r) {
        mbs_data *d = mbs_data_create(m);
        tree_start(d);
        mbs_sens_def sd = mbs_default_sens_def();
        sd.rtol = 1e-8, sd.atol = 1e-10;
        mbs_sens *s = NULL;
        assert_int_equal(mbs_sens_create(m, d, TREE_PARAMS + 4, 2, &sd, &s), MBS_OK);
        if (r == 2) assert_int_equal(mbs_sens_run(s, 0.5), MBS_OK);
        assert_int_equal(mbs_sens_run(s, 1.0), MBS_OK);
        assert_true(mbs_data_time(d) == 1.0);
        for (int k = 0; k < 2; ++k) assert_int_equal(mbs_sens_get(s, k, S[r][k], S[r][k] + nq), MBS_OK);
        if (r == 2) {
            assert_int_equal(mbs_sens_restart(s), MBS_OK);
            double z[32];
            assert_int_equal(mbs_sens_get(s, 0, z, z + nq), MBS_OK);
            for (int i = 0; i < n; ++i) assert_true(z[i] == 0.0);
            assert_int_equal(mbs_sens_run(s, 1.2), MBS_OK);
        }
        mbs_sens_destroy(s);
        mbs_data_destroy(d);
    }
    assert_memory_equal(S[0], S[1], sizeof S[0]);
    for (int k = 0; k < 2; ++k) {
        double scale = 0.0;
        for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(S[0][k][i]));
        test_assert_close(S[2][k], S[0][k], n, 1e-7 * scale, "run to 0.5 then 1 vs run to 1");
    }
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- bad input */

/* Refused arguments (status, message, nothing created), a closed-loop model, a run that
   would go backwards, a data state or parameter changed behind the run's back (MBS_ERR_STATE,
   state unchanged), bad parameter index for get. */
static void test_bad_input(void **state)
{
    (void)state;
    mbs_model *m = tree(), *m2 = tree();
    mbs_data *d = mbs_data_create(m);
    tree_start(d);
    mbs_sens_def sd = mbs_default_sens_def();
    mbs_sens *s = NULL;
    const mbs_param p[2] = {{MBS_PARAM_MASS, 1, 0}, {MBS_PARAM_MASS, 1, 0}};
    const mbs_param pi[2] = {{MBS_PARAM_INERTIA, 1, 1}, {MBS_PARAM_INERTIA, 1, 3}};
    const mbs_param pm = {MBS_PARAM_INERTIA, 3, 0}, bad = {MBS_PARAM_STIFFNESS, 5, 0};
    assert_int_equal(mbs_sens_create(m, NULL, p, 1, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(NULL, d, p, 1, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m2, d, p, 1, &sd, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "not the data's model"));
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, NULL, 1, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, p, 0, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, p, 2, &sd, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "are the same"));
    assert_int_equal(mbs_sens_create(m, d, pi, 2, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, &pm, 1, &sd, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "point mass"));
    assert_int_equal(mbs_sens_create(m, d, &bad, 1, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, p, 1, NULL, &s), MBS_ERR_ARG);
    sd.kind = MBS_STEP_RK4;
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_ARG);
    sd = mbs_default_sens_def();
    sd.rtol = -1.0;
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_ARG);
    sd = mbs_default_sens_def();
    sd.max_step = NAN;
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_ARG);
    sd = mbs_default_sens_def();
    sd.max_internal_steps = 0;
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_ARG);
    assert_null(s);
    sd = mbs_default_sens_def();
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_OK);
    assert_int_equal(mbs_sens_run(s, 0.0), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_run(s, NAN), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_run(NULL, 1.0), MBS_ERR_ARG);
    double dq[16];
    assert_int_equal(mbs_sens_get(s, 1, dq, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_get(NULL, 0, dq, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_run(s, 0.2), MBS_OK);
    /* the host moves the state, or a parameter, behind the run's back */
    mbs_data_v(d)[0] += 0.1;
    double q0[16];
    memcpy(q0, mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    assert_int_equal(mbs_sens_run(s, 0.4), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "mbs_sens_restart"));
    assert_memory_equal(q0, mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    assert_true(mbs_data_time(d) == 0.2);
    assert_int_equal(mbs_sens_restart(s), MBS_OK);
    assert_int_equal(mbs_sens_run(s, 0.4), MBS_OK);
    assert_int_equal(mbs_model_set_param(m, &p[0], 2.5), MBS_OK);
    assert_int_equal(mbs_sens_run(s, 0.6), MBS_ERR_STATE);
    assert_int_equal(mbs_sens_restart(NULL), MBS_ERR_ARG);
    mbs_sens_destroy(s);
    mbs_sens_destroy(NULL);
    mbs_data_destroy(d);
    mbs_model_destroy(m2);
    mbs_model_destroy(m);

    /* a closed loop */
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    j.child = 1, j.length = 1.0, j.frame_child.pos[0] = 1.0;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    d = mbs_data_create(m);
    /* a closed loop's start state must be closed (runs: test_loop_derivatives.c) */
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "mbs_assemble first"));
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_OK);
    mbs_sens_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_period_derivative),
        cmocka_unit_test(test_vs_central_differences),
        cmocka_unit_test(test_element_kinds),
        cmocka_unit_test(test_element_kinds_refused),
        cmocka_unit_test(test_continuation_and_determinism),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
