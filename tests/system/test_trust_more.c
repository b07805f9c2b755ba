/* Answers that must be right or refused, second part: a revolute joint whose axis passes
 * through a point mass (no inertia about the axis: the coordinate moves nothing) is refused
 * at compile naming the body and the joint, while the same mass off the axis, or with a
 * rotor on the joint, compiles and runs. A prescribed motion whose velocity or acceleration
 * is not the derivative of its position is refused at the first step, naming the motion.
 * The semi-implicit Euler stepper's divergence guard: a step beyond its stability fails
 * (MBS_ERR_SOLVER) within a few steps instead of returning MBS_OK while the energy grows to
 * 1e305; stable steps are never refused over 10^5 steps. Loops started exactly at a singular
 * position (the IFToMM A02 four-bars stretched flat, whose rows are dependent only there):
 * every step answered MBS_OK keeps the energy, and the step that leaves the position, whose
 * closure would snap the velocities, is refused naming the cut joint. mbs_modes near that
 * position: the closed-form eigenvalues, or refused. mbs_cut_joint_closure_reason says why a
 * loop closed in closed form runs the general dynamics (rotors) or Newton. */
#include "common.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A body "pm" of mass 1 at com (inertia all zero unless J > 0: diag(J)) on a revolute
   joint "hinge" about z through the origin, gravity -y. Returns the compile status; the
   builder's message is copied into msg. */
static int axis_mass_case(const double com[3], double J, int rotor, char msg[1024])
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_gravity(b, (const double[3]){0, -9.81, 0}), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "pm";
    for (int k = 0; k < 9; ++k) bd.inertia[k] = k % 4 == 0 ? J : 0.0;
    memcpy(bd.com, com, sizeof bd.com);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.name = "hinge";
    jd.child = 1;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    if (rotor) {
        mbs_rotor_def rd = mbs_default_rotor_def();
        rd.joint = 0, rd.inertia = 0.01;
        assert_true(mbs_add_rotor(b, &rd) >= 0);
    }
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    snprintf(msg, 1024, "%s", mbs_builder_error(b));
    if (st == MBS_OK) { /* it runs: forward dynamics is finite */
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.3;
        if (mbs_forward_dynamics(d) != MBS_OK) fail_msg("%s", mbs_data_error(d));
        assert_true(isfinite(mbs_data_qacc(d)[0]));
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
    mbs_builder_destroy(b);
    return st;
}

/* The axis through the mass (at the origin, or 0.5 along the axis): refused at compile
   (MBS_ERR_SINGULAR) naming body and joint, not at the first dynamics call. Off the axis,
   with inertia about the axis, or with a rotor on the joint: compiles and runs. */
static void test_axis_through_point_mass(void **state)
{
    (void)state;
    char msg[1024];
    const double on[2][3] = {{0, 0, 0}, {0, 0, 0.5}}, off[3] = {0.5, 0, 0};
    for (int c = 0; c < 2; ++c) {
        assert_int_equal(axis_mass_case(on[c], 0.0, 0, msg), MBS_ERR_SINGULAR);
        assert_non_null(strstr(msg, "\"pm\""));
        assert_non_null(strstr(msg, "\"hinge\""));
    }
    assert_int_equal(axis_mass_case(off, 0.0, 0, msg), MBS_OK);
    assert_int_equal(axis_mass_case(on[1], 1e-3, 0, msg), MBS_OK);
    assert_int_equal(axis_mass_case(on[1], 0.0, 1, msg), MBS_OK);
}

/* Motions of a pendulum's hinge: p = 0.3 sin(w t) with w = 5, the velocity and the
   acceleration right (case 0), the velocity missing its factor w (1), the acceleration left
   at 0 (2), the velocity of the wrong sign (3). */
static int motion_case(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    const int c = *(const int *)user;
    const double w = 5.0;
    pos[0] = 0.3 * sin(w * t);
    vel[0] = (c == 1 ? 0.3 : c == 3 ? -0.3 * w : 0.3 * w) * cos(w * t);
    acc[0] = c == 2 ? 0.0 : -0.3 * w * w * sin(w * t);
    return 0;
}

/* A consistent motion runs 10^4 RK4 steps with the default settings, its angle where the
   motion puts it; each inconsistent one fails the first step with MBS_ERR_INCONSISTENT
   naming the motion and the joint, time and state as before. */
static void test_motion_consistency(void **state)
{
    (void)state;
    for (int c = 0; c < 4; ++c) {
        mbs_builder *b = mbs_builder_create();
        mbs_body_def bd = mbs_default_body_def();
        bd.name = "arm";
        bd.com[0] = 0.5;
        assert_int_equal(mbs_add_body(b, &bd), 1);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.name = "drive";
        jd.child = 1;
        assert_int_equal(mbs_add_joint(b, &jd), 0);
        assert_int_equal(mbs_add_joint_motion(b, 0, 0, motion_case, &c), 0);
        mbs_model *m = test_compile_ok(b);
        mbs_data *d = mbs_data_create(m);
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        mbs_stepper *s = mbs_stepper_create(d, &def);
        assert_non_null(s);
        const int st = mbs_stepper_step(s, 1e-3);
        if (c == 0) {
            if (st != MBS_OK) fail_msg("%s", mbs_data_error(d));
            for (int i = 1; i < 10000; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
            assert_true(fabs(mbs_data_q(d)[0] - 0.3 * sin(50.0)) < 1e-12);
        } else {
            print_message("case %d: %s\n", c, mbs_data_error(d));
            assert_int_equal(st, MBS_ERR_INCONSISTENT);
            assert_non_null(strstr(mbs_data_error(d), "motion #0"));
            assert_non_null(strstr(mbs_data_error(d), "\"drive\""));
            assert_true(mbs_data_time(d) == 0.0);
        }
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* A mass of 1 kg on a prismatic joint with a spring of stiffness k, gravity g along -z,
   started 0.01 m from its spring's zero at rest: omega = sqrt(k). */
static mbs_model *spring_model(double k, double g)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_gravity(b, (const double[3]){0, 0, -g}), MBS_OK);
    test_prismatic_body(b, "mass", "x");
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, k, 0.0, 0.0), 0);
    return test_compile_ok(b);
}

static double total_energy(mbs_data *d)
{
    double ke, pe;
    assert_int_equal(mbs_energy(d, &ke, &pe), MBS_OK);
    return ke + pe;
}

/* Euler with the default settings on a 1e8 N/m spring at h omega 2.1 to 1e3 (1 ms: 10):
   MBS_ERR_SOLVER naming the stability at the second step beyond h omega 2.4 (the guard
   compares steps, so the first one returns MBS_OK with the energy grown up to
   (h omega)^4-fold: q1 = (1 - (h omega)^2) q0), within 10 steps at 2.1, state restored; the suggested step then runs 10^5 steps
   with MBS_OK and the energy it restarted from kept within Euler's bounded error. */
static void test_euler_guard_refuses(void **state)
{
    (void)state;
    const double w = 1e4, hw[] = {2.1, 2.5, 3.0, 10.0, 1e3};
    mbs_model *m = spring_model(w * w, 0.0);
    for (int c = 0; c < 5; ++c) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.01;
        const double e0 = total_energy(d);
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_EULER);
        mbs_stepper *s = mbs_stepper_create(d, &def);
        int st = MBS_OK, n = 0;
        double emax = e0;
        for (; n < 1000 && st == MBS_OK; ++n)
            if ((st = mbs_stepper_step(s, hw[c] / w)) == MBS_OK) emax = fmax(emax, total_energy(d));
        print_message("Euler h omega %g: refused at step %d, energy grew %.3g-fold: %s\n", hw[c],
                      n, emax / e0, mbs_data_error(d));
        assert_int_equal(st, MBS_ERR_SOLVER);
        assert_true(n <= (hw[c] > 2.4 ? 2 : 10));
        assert_true(emax < (1e3 + 2.0 * pow(hw[c], 4)) * e0);
        const char *msg = strstr(mbs_data_error(d), "use dt <= ");
        assert_non_null(strstr(mbs_data_error(d), "beyond the method's stability"));
        assert_non_null(msg);
        const double hs = strtod(msg + 10, NULL), e1 = total_energy(d);
        assert_true(hs > 0.0 && hs * w < 2.0 && hs * w > 1.0);
        for (long i = 0; i < 100000; ++i)
            if (mbs_stepper_step(s, hs) != MBS_OK) fail_msg("%s", mbs_data_error(d));
        /* Euler's energy error at h w <= 1.5 stays below 1 / (1 - (h w / 2)^2) = 2.3 */
        assert_true(total_energy(d) < 3.0 * e1);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* Stable Euler steps are never refused: h omega from 0.01 to 1.99, with and without gravity,
   from rest at the equilibrium (rounding only) and displaced, 10^5 steps each, and a damped
   spring at h c 1.5 (h omega 0.3). */
static void test_euler_guard_accepts(void **state)
{
    (void)state;
    const double hw[] = {0.01, 0.5, 1.9, 1.99}, q0[] = {0.0, 0.01, -9.81e-8};
    for (int gi = 0; gi < 2; ++gi) {
        mbs_model *m = spring_model(1e8, gi ? 9.81 : 0.0);
        for (int c = 0; c < 4; ++c)
            for (int k = 0; k < 3; ++k) {
                mbs_data *d = mbs_data_create(m);
                mbs_data_q(d)[0] = q0[k];
                mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_EULER);
                mbs_stepper *s = mbs_stepper_create(d, &def);
                for (long i = 0; i < 100000; ++i)
                    if (mbs_stepper_step(s, hw[c] / 1e4) != MBS_OK)
                        fail_msg("g %d, h omega %g, q0 %g, step %ld: %s", gi, hw[c], q0[k], i,
                                 mbs_data_error(d));
                mbs_stepper_destroy(s);
                mbs_data_destroy(d);
            }
        mbs_model_destroy(m);
    }
    mbs_builder *b = mbs_builder_create(); /* damper c = 1e3 at h c 1.5, spring h omega 0.3 */
    test_prismatic_body(b, "mass", "x");
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 4e4, 1e3, 0.0), 0);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.01;
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_EULER);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    for (long i = 0; i < 100000; ++i)
        if (mbs_stepper_step(s, 1.5e-3) != MBS_OK) fail_msg("damped: %s", mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The IFToMM A02 mechanism (n four-bars) at crank angle th, all cranks at rate w, couplers
   level, assembled; RK4 at 1 ms with the default settings for 200 steps. Returns the first
   failing status (MBS_OK when none) and the largest |dE / E| over the steps answered
   MBS_OK. */
static int a02_from(int n, double th, double w, double *de, char msg[1024])
{
    lm_mech mech;
    lm_mech_init(&mech);
    assert_int_equal(lm_build_a02(n, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    for (int j = 0; j < 2 * n + 1; ++j) {
        mbs_data_q(d)[mbs_model_joint_qadr(mech.model, j)] = j <= n ? th : -th;
        mbs_data_v(d)[mbs_model_joint_vadr(mech.model, j)] = j <= n ? w : -w;
    }
    if (mbs_assemble(d) != MBS_OK) fail_msg("%s", mbs_data_error(d));
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    const double e0 = total_energy(d);
    int st = MBS_OK;
    *de = 0.0;
    for (int k = 0; k < 200 && st == MBS_OK; ++k)
        if ((st = mbs_stepper_step(s, 1e-3)) == MBS_OK)
            *de = fmax(*de, fabs(total_energy(d) - e0) / e0);
    snprintf(msg, 1024, "%s", mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
    return st;
}

/* Exactly flat (and 1e-12 from it, where the rows are dependent to rounding): no step
   answered MBS_OK loses more than 1e-8 of the energy, and the run is refused
   (MBS_ERR_SINGULAR naming a cut joint) rather than snapped; 1e-3 rad from flat it runs 200
   steps within 1e-8. One four-bar pair (n = 1) and the benchmark's 40. */
static void test_loops_started_singular(void **state)
{
    (void)state;
    const int n[2] = {1, 40};
    const double th[2] = {0.0, 1e-12};
    char msg[1024];
    double de;
    for (int c = 0; c < 2; ++c) {
        for (int k = 0; k < 2; ++k) {
            const int st = a02_from(n[c], th[k], -4.8, &de, msg);
            print_message("A02 n %d from %g: status %d, |dE/E| %.3g: %s\n", n[c], th[k], st, de,
                          msg);
            assert_true(de < 1e-8);
            assert_int_equal(st, MBS_ERR_SINGULAR);
            assert_non_null(strstr(msg, "cut joint"));
        }
        assert_int_equal(a02_from(n[c], 1e-3, -4.8, &de, msg), MBS_OK);
        assert_true(de < 1e-8);
    }
}

/* mbs_modes of A02 (n four-bars) at rest at crank angle th from flat: on the parallelogram
   branch I th'' = -g c cos th, so the eigenvalues are +-sqrt(k sin th), k = g c / I (for n = 40:
   I = 41/3 + 40, c = 41/2 + 40). Returns the status of assemble or modes; *err the largest
   relative error of the eigenvalues' magnitudes when MBS_OK. */
static int a02_modes(int n, double th, double *err, char msg[1024])
{
    lm_mech mech;
    lm_mech_init(&mech);
    assert_int_equal(lm_build_a02(n, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    for (int j = 0; j < 2 * n + 1; ++j)
        mbs_data_q(d)[mbs_model_joint_qadr(mech.model, j)] = j <= n ? th : -th;
    int st = mbs_assemble(d), nx = 4 * n + 2;
    double re[4 * 40 + 2], im[4 * 40 + 2];
    if (st == MBS_OK) st = mbs_modes(d, re, im, &nx);
    snprintf(msg, 1024, "%s", mbs_data_error(d));
    const double k = 9.81 * (0.5 * (n + 1) + n) / ((n + 1) / 3.0 + n);
    const double lam = sqrt(k * sin(mbs_data_q(d)[0]));
    *err = 0.0;
    if (st == MBS_OK) {
        assert_int_equal(nx, 2);
        for (int i = 0; i < nx; ++i)
            *err = fmax(*err, fabs(hypot(re[i], im[i]) - lam) / lam);
    }
    mbs_data_destroy(d);
    lm_mech_free(&mech);
    return st;
}

/* From 0.5 rad to exactly flat: every answer MBS_OK has the closed-form eigenvalues to 1e-3
   (and two of them, the mechanism's one degree of freedom), the others are refused with
   MBS_ERR_SINGULAR; 0.5 and 0.1 rad are answered. */
static void test_modes_near_singular(void **state)
{
    (void)state;
    const double th[] = {0.5, 0.1, 1e-2, 3e-3, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-9, 0.0};
    char msg[1024];
    for (size_t c = 0; c < sizeof th / sizeof th[0]; ++c) {
        double err;
        const int st = a02_modes(40, th[c], &err, msg);
        print_message("A02 modes at %g: status %d, error %.3g %s\n", th[c], st, err,
                      st ? msg : "");
        if (c < 2) assert_int_equal(st, MBS_OK);
        if (st == MBS_OK)
            assert_true(err < 1e-3);
        else
            assert_int_equal(st, MBS_ERR_SINGULAR);
    }
}

/* Fourbar_analytic: closed form with the reduced dynamics; with a gearbox rotor on its crank
   still closed form (no Newton iteration) but the general dynamics, and the reason names the
   rotors; with the Newton closure the reason says Newton. */
static void test_closure_reason(void **state)
{
    (void)state;
    for (int c = 0; c < 3; ++c) {
        mbs_builder *b = mbs_builder_create();
        assert_int_equal(lm_load_model(b, "fourbar_analytic"), MBS_OK);
        mbs_model *ids = NULL;
        assert_int_equal(mbs_compile(b, &ids), MBS_OK);
        if (c == 1) {
            mbs_rotor_def r = mbs_default_rotor_def();
            r.joint = mbs_model_find_joint(ids, "j1");
            r.inertia = 2e-4, r.ratio = 10.0, r.axis[0] = 1.0, r.axis[2] = 0.0;
            assert_true(mbs_add_rotor(b, &r) >= 0);
        }
        if (c == 2) assert_int_equal(mbs_builder_set_closure(b, MBS_CLOSURE_NEWTON), MBS_OK);
        const int cut = mbs_model_find_joint(ids, "rod");
        mbs_model_destroy(ids);
        mbs_model *m = test_compile_ok(b);
        mbs_data *d = mbs_data_create(m);
        assert_int_equal(mbs_assemble(d), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        const char *why = mbs_cut_joint_closure_reason(d, cut);
        assert_non_null(why);
        print_message("case %d: %d, %s\n", c, mbs_cut_joint_closure(d, cut), why);
        assert_int_equal(mbs_cut_joint_closure(d, cut),
                         c == 2 ? MBS_CLOSURE_NEWTON : MBS_CLOSURE_ANALYTIC);
        assert_non_null(strstr(why, c == 0 ? "reduced" : c == 1 ? "rotors" : "Newton"));
        assert_null(mbs_cut_joint_closure_reason(d, 0)); /* not a cut joint */
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axis_through_point_mass),
        cmocka_unit_test(test_motion_consistency),
        cmocka_unit_test(test_euler_guard_refuses),
        cmocka_unit_test(test_euler_guard_accepts),
        cmocka_unit_test(test_loops_started_singular),
        cmocka_unit_test(test_modes_near_singular),
        cmocka_unit_test(test_closure_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
