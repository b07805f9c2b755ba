/* Joint friction whose normal force is the joint's own reaction (mbs_add_reaction_friction;
 * Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library", §8), against closed
 * forms:
 *   - a block on a prismatic joint pressed onto its slide by gravity and a host force with a
 *     sideways part: N = |m g + F_down, F_side|; it slides with a = (P - mu N) / m (RK4
 *     exact for this quadratic motion, 1e-9), sticks for a push P just below mu_stick N and
 *     breaks away just above it;
 *   - a pendulum on a revolute bearing of radius r whose radial load depends on the angular
 *     acceleration, which depends on the friction torque mu r (|F_radial| + axial |F_axial|):
 *     one forward dynamics against the root of that scalar equation (bisection), 1e-10;
 *   - a bearing so large that the friction raises its own load faster than it grows: the
 *     iteration does not settle, MBS_ERR_CONVERGENCE naming the element, qacc as it was;
 *   - bad definitions refused, and mbs_set_brake_limit on a reaction friction. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define G 9.81
#define BM 2.0
#define FDOWN 5.0 /* host force pressing the block onto its slide */
#define FSIDE 3.0 /* and across it */
#define MU 0.3
#define MUS 0.45

/* ------------------------------------------------------------ block on a slide */

/* Block of mass BM on a prismatic joint along world x, gravity -z, a reaction friction. */
static mbs_model *block(void)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.0, -G};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = BM;
    bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = 0.1;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.child = 1, jd.axis[0] = 1.0, jd.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    mbs_reaction_friction_def rf = mbs_default_reaction_friction_def();
    rf.name = "slide", rf.joint = 0, rf.mu = MU, rf.mu_stick = MUS;
    assert_int_equal(mbs_add_reaction_friction(b, &rf), 0);
    return test_compile_ok(b);
}

/* The normal force the slide really carries. */
static double block_normal(void)
{
    return hypot(BM * G + FDOWN, FSIDE);
}

/* A data of the block pressed by the host force, pushed by P along the slide, at v0. */
static mbs_data *block_data(const mbs_model *m, double P, double v0)
{
    mbs_data *d = mbs_data_create(m);
    const double f[3] = {0.0, FSIDE, -FDOWN}, t[3] = {0, 0, 0}, o[3] = {0, 0, 0};
    assert_int_equal(mbs_set_body_wrench(d, 1, f, t, o), MBS_OK);
    mbs_data_tau(d)[0] = P;
    mbs_data_v(d)[0] = v0;
    return d;
}

/* Sliding at v0 > 0 under a push P: qacc = (P - mu N) / m at once, the friction force
   -mu N; 1 s of RK4 steps follow x = v0 t + a t^2 / 2 (1e-9) while it slides. */
static void test_block_slides(void **state)
{
    (void)state;
    mbs_model *m = block();
    const double P = 4.0, v0 = 0.5, N = block_normal(), a = (P - MU * N) / BM;
    mbs_data *d = block_data(m, P, v0);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    print_message("sliding: qacc %.15f, closed form (P - mu N) / m = %.15f (N = %.6f N)\n",
                  mbs_data_qacc(d)[0], a, N);
    assert_true(fabs(mbs_data_qacc(d)[0] - a) <= 1e-12 * fabs(a));
    assert_true(fabs(mbs_data_friction_force(d, 0, 0) + MU * N) <= 1e-12 * N);
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    double worst = 0.0;
    const double t_stop = -v0 / a; /* decelerating (a < 0): it stops at t_stop */
    for (int i = 1; i <= 200 && 5e-3 * i < 0.9 * t_stop; ++i) {
        assert_int_equal(mbs_stepper_step(s, 5e-3), MBS_OK);
        const double t = mbs_data_time(d);
        worst = fmax(worst, fabs(mbs_data_q(d)[0] - (v0 * t + 0.5 * a * t * t)));
        worst = fmax(worst, fabs(mbs_data_v(d)[0] - (v0 + a * t)));
    }
    print_message("sliding run: worst error %.2e (stops at %.3f s)\n", worst, t_stop);
    assert_true(worst <= 1e-9);
    /* after the stop it sticks: P < mu_stick N */
    for (int i = 0; i < 100; ++i) assert_int_equal(mbs_stepper_step(s, 5e-3), MBS_OK);
    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
    assert_true(fabs(mbs_data_friction_force(d, 0, 0) + P) <= 1e-9 * P);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Released at rest under pushes 2 % below and above mu_stick N: locked for 1 s holding P,
   or sliding from t = 0 with (P - mu N) / m (1e-9). A law with N = m g (no host force)
   would put the threshold 21 % lower. */
static void test_block_threshold(void **state)
{
    (void)state;
    mbs_model *m = block();
    const double N = block_normal(), frac[2] = {0.98, 1.02};
    for (int k = 0; k < 2; ++k) {
        const double P = frac[k] * MUS * N, a = (P - MU * N) / BM;
        mbs_data *d = block_data(m, P, 0.0);
        mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
        double worst = 0.0;
        for (int i = 1; i <= 200; ++i) {
            assert_int_equal(mbs_stepper_step(s, 5e-3), MBS_OK);
            const double t = mbs_data_time(d);
            if (k == 0) {
                assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
                worst = fmax(worst, fabs(mbs_data_q(d)[0]) + fabs(mbs_data_friction_force(d, 0, 0) + P));
            } else {
                assert_int_equal(mbs_joint_is_locked(d, 0, 0), 0);
                worst = fmax(worst, fabs(mbs_data_q(d)[0] - 0.5 * a * t * t));
            }
        }
        print_message("push %.2f mu_stick N: %s, error %.2e\n", frac[k],
                      k == 0 ? "sticks" : "slides", worst);
        assert_true(worst <= 1e-9);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ bearing */

#define PM 1.5
#define PL 0.4
#define PIC 0.01
#define GX 2.0 /* gravity along the axis: an axial load */

/* Pendulum (mass PM, com PL below the axis, inertia PIC about it) on a revolute x with a
   reaction friction of journal radius r, coefficient mu, axial weight 0.5. */
static mbs_model *bearing(double r, double mu)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {GX, 0.0, -G};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = PM, bd.com[2] = -PL;
    bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = PIC;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = 1, jd.axis[0] = 1.0, jd.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    mbs_reaction_friction_def rf = mbs_default_reaction_friction_def();
    rf.name = "bearing", rf.joint = 0, rf.mu = mu, rf.radius = r, rf.axial = 0.5;
    assert_int_equal(mbs_add_reaction_friction(b, &rf), 0);
    return test_compile_ok(b);
}

/* f(alpha) = I_O alpha - gravity's moment + the friction torque at alpha (omega > 0): the
   bearing force R = m a_c - m g with a_c = alpha e_x x c - omega^2 c, c = Rx(th) (0, 0, -l). */
static double bearing_residual(double alpha, double th, double w, double r, double mu)
{
    const double cy = PL * sin(th), cz = -PL * cos(th);
    const double ay = -alpha * cz - w * w * cy, az = alpha * cy - w * w * cz;
    const double Rx = -PM * GX, Ry = PM * ay, Rz = PM * (az + G);
    const double torque = mu * r * (hypot(Ry, Rz) + 0.5 * fabs(Rx));
    const double IO = PIC + PM * PL * PL, tg = PM * (cy * -G - cz * 0.0);
    return IO * alpha - tg + torque;
}

/* One forward dynamics at th = 0.7, omega = 2 against the root of bearing_residual (60
   bisections on [-100, 100]): 1e-10; the friction force equals mu r (|F_radial| +
   axial |F_axial|) of the reaction mbs_joint_reaction reports (1e-12). */
static void test_bearing_consistent(void **state)
{
    (void)state;
    const double r = 0.05, mu = 0.4, th = 0.7, w = 2.0;
    mbs_model *m = bearing(r, mu);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = th, mbs_data_v(d)[0] = w;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double lo = -100.0, hi = 100.0;
    for (int i = 0; i < 200 && hi - lo > 1e-14; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (bearing_residual(mid, th, w, r, mu) > 0.0) hi = mid;
        else lo = mid;
    }
    const double alpha = 0.5 * (lo + hi), got = mbs_data_qacc(d)[0];
    const double free_alpha = PM * PL * sin(th) * -G / (PIC + PM * PL * PL);
    print_message("bearing: qacc %.15f, root of the closed form %.15f (frictionless %.6f)\n",
                  got, alpha, free_alpha);
    assert_true(fabs(got - alpha) <= 1e-10 * fabs(alpha));
    double F[3], T[3];
    assert_int_equal(mbs_joint_reaction(d, 0, F, T), MBS_OK);
    const double lim = mu * r * (hypot(F[1], F[2]) + 0.5 * fabs(F[0]));
    assert_true(fabs(mbs_data_friction_force(d, 0, 0) + lim) <= 1e-12 * lim);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A journal radius 10 l / mu: the friction torque's own contribution to the radial load
   outgrows it (slope mu r m l / I_O ~ 9), so the limits do not settle: MBS_ERR_CONVERGENCE
   naming the element, qacc bitwise as it was. */
static void test_bearing_jams(void **state)
{
    (void)state;
    const double mu = 0.4, r = 10.0 * PL / mu;
    mbs_model *m = bearing(r, mu);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.7, mbs_data_v(d)[0] = 2.0;
    const double before = mbs_data_qacc(d)[0];
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_CONVERGENCE);
    print_message("jammed: %s\n", mbs_data_error(d));
    assert_non_null(strstr(mbs_data_error(d), "\"bearing\""));
    assert_memory_equal(&before, mbs_data_qacc(d), sizeof before);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ refused */

/* A spherical joint, mu 0, mu_stick below mu, a revolute without radius, a negative axial
   weight, NaN: MBS_ERR_ARG with a message, the builder unchanged; the host may not set a
   reaction friction's limit. */
static void test_refused(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = 0.1;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = 1;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    jd = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    jd.parent = 1, jd.child = 2;
    assert_int_equal(mbs_add_joint(b, &jd), 1);
    const struct { int joint; double mu, mus, r, ax; const char *msg; } bad[] = {
        {1, 0.3, 0.0, 0.1, 0.0, "revolute or prismatic"},
        {0, 0.0, 0.0, 0.1, 0.0, "mu must be > 0"},
        {0, 0.3, 0.2, 0.1, 0.0, "mu_stick = 0.2 must be >= 0.3"},
        {0, 0.3, 0.0, 0.0, 0.0, "radius must be > 0"},
        {0, 0.3, 0.0, 0.1, -1.0, "axial = -1 must be >= 0"},
        {0, NAN, 0.0, 0.1, 0.0, "not finite"},
        {7, 0.3, 0.0, 0.1, 0.0, "unknown joint"},
    };
    for (int c = 0; c < (int)(sizeof bad / sizeof bad[0]); ++c) {
        mbs_reaction_friction_def rf = mbs_default_reaction_friction_def();
        rf.joint = bad[c].joint, rf.mu = bad[c].mu, rf.mu_stick = bad[c].mus;
        rf.radius = bad[c].r, rf.axial = bad[c].ax;
        assert_int_equal(mbs_add_reaction_friction(b, &rf), MBS_ERR_ARG);
        if (!strstr(mbs_builder_error(b), bad[c].msg)) print_error("%s\n", mbs_builder_error(b));
        assert_non_null(strstr(mbs_builder_error(b), bad[c].msg));
    }
    mbs_builder_destroy(b);
    mbs_model *m = block();
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_set_brake_limit(d, 0, 1.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "reaction friction"));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_slides),
        cmocka_unit_test(test_block_threshold),
        cmocka_unit_test(test_bearing_consistent),
        cmocka_unit_test(test_bearing_jams),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
