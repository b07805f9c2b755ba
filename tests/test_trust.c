/* Answers that must be right or refused (the second-wave elements and the fixed-step
 * steppers): RK4's divergence guard on by default -- a step beyond the method's stability
 * fails with MBS_ERR_SOLVER, state restored bit for bit, instead of returning MBS_OK while
 * the energy grows to 1e305; a stable step is never refused over 10^5 steps. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A mass of 1 kg on a prismatic joint with a spring of stiffness k, no gravity, started
   0.01 m from rest: omega = sqrt(k). */
static mbs_model *spring_model(double k, double g)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_gravity(b, (const double[3]){0, 0, -g}), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "mass";
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.name = "x";
    jd.child = 1;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, k, 0.0, 0.0), 0);
    return test_compile_ok(b);
}

static double energy(mbs_data *d)
{
    double ke, pe;
    assert_int_equal(mbs_energy(d, &ke, &pe), MBS_OK);
    return ke + pe;
}

/* RK4 with the library's default stepper settings at h omega from 3 to 1e3: the first step
   fails, the state is restored, the message suggests a step; that step then runs 10^5 steps
   with MBS_OK and the energy within RK4's dissipation. */
static void test_guard_refuses_unstable_steps(void **state)
{
    (void)state;
    const double k = 1e8, w = 1e4, hw[] = {3.0, 5.0, 10.0, 1e3};
    mbs_model *m = spring_model(k, 0.0);
    for (int c = 0; c < 4; ++c) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.01;
        const double e0 = energy(d);
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        mbs_stepper *s = mbs_stepper_create(d, &def);
        const double h = hw[c] / w;
        assert_int_equal(mbs_stepper_step(s, h), MBS_ERR_SOLVER);
        assert_true(mbs_data_q(d)[0] == 0.01 && mbs_data_v(d)[0] == 0.0);
        assert_true(mbs_data_time(d) == 0.0);
        const char *msg = strstr(mbs_data_error(d), "use dt <= ");
        assert_non_null(strstr(mbs_data_error(d), "beyond the method's stability"));
        assert_non_null(msg);
        const double hs = strtod(msg + 10, NULL);
        assert_true(hs > 0.0 && hs * w <= 2.2 && hs * w >= 1.5);
        for (long i = 0; i < 100000; ++i)
            if (mbs_stepper_step(s, hs) != MBS_OK) fail_msg("%s", mbs_data_error(d));
        const double e = energy(d);
        assert_true(e <= e0 * (1.0 + 1e-9)); /* RK4 inside its region only dissipates */
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* Without the guard (no_divergence_guard, a hard real-time loop) the old behaviour: MBS_OK
   while the energy explodes, until it overflows. */
static void test_guard_opt_out(void **state)
{
    (void)state;
    mbs_model *m = spring_model(1e8, 0.0);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.01;
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    def.no_divergence_guard = 1;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    int n = 0;
    while (n < 1000 && mbs_stepper_step(s, 1e-3) == MBS_OK) ++n;
    assert_true(n > 50 && n < 1000);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Stable steps are never refused: the spring at h omega 2.5 and 0.1, with and without
   gravity, from rest at its equilibrium (rounding only) and displaced, 10^5 steps each. */
static void test_guard_accepts_stable_steps(void **state)
{
    (void)state;
    const double hw[] = {2.5, 0.1}, q0[] = {0.0, 0.01, -9.81e-8};
    for (int gi = 0; gi < 2; ++gi) {
        mbs_model *m = spring_model(1e8, gi ? 9.81 : 0.0);
        for (int c = 0; c < 2; ++c)
            for (int k = 0; k < 3; ++k) {
                mbs_data *d = mbs_data_create(m);
                mbs_data_q(d)[0] = q0[k];
                mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guard_refuses_unstable_steps),
        cmocka_unit_test(test_guard_opt_out),
        cmocka_unit_test(test_guard_accepts_stable_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
