/* Restitution stops near the Zeno time (src/events/): a ball dropped onto a stop bounces with
 * e^k v_1 at t_{k+1} = t_k + 2 e^k v_1 / g until the Zeno time t_1 (1 + e) / (1 - e); the
 * last bounces are shorter than a step, so the coordinate leaves the limit it was put on and
 * lands below it within one step. Over the four steppers, dt 1e-4 .. 1e-2, e 0.1 .. 0.95 and
 * the default and a larger rest velocity, the ball must never be below the limit by more than
 * the event location's error and must end in resting contact holding m g. */
#include "common.h"

#include <math.h>
#include <stdio.h>

static const double G = 9.81;
static const double Z0 = 0.2; /* drop height [m]: t_1 = 0.2 s, Zeno time 7.8 s at e = 0.95 */

/* A ball of mass 1 on a vertical prismatic joint onto a restitution stop at 0 (rv <= 0: the
   default rest velocity). */
static mbs_model *ball_on_stop(double e, double rv)
{
    mbs_builder *b = mbs_builder_create();
    test_prismatic_body(b, "ball", "z");
    mbs_joint_stop_def sd = mbs_default_joint_stop_def();
    sd.name = "floor";
    sd.joint = 0;
    sd.lower = 0.0;
    sd.restitution = e;
    if (rv > 0.0) sd.rest_velocity = rv;
    assert_int_equal(mbs_add_joint_stop(b, &sd), 0);
    return test_compile_ok(b);
}

/* Steps past the Zeno time; the lowest q at a step's end (and via mbs_joint_stop_beyond). */
static double run_case(mbs_stepper_kind kind, double dt, double e, double rv, int *state)
{
    mbs_model *m = ball_on_stop(e, rv);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = Z0;
    mbs_stepper_def def = mbs_default_stepper_def(kind); /* the library's defaults */
    mbs_stepper *s = mbs_stepper_create(d, &def);
    assert_non_null(s);
    const double t1 = sqrt(2.0 * Z0 / G), zeno = t1 * (1.0 + e) / (1.0 - e);
    const long n = (long)ceil((zeno + 0.2) / dt);
    double qmin = INFINITY, beyond = 0.0;
    for (long i = 0; i < n; ++i) {
        const int st = mbs_stepper_step(s, dt);
        if (st != MBS_OK) fail_msg("step at t = %g: %s", mbs_data_time(d), mbs_data_error(d));
        qmin = fmin(qmin, mbs_data_q(d)[0]);
        beyond = fmax(beyond, mbs_joint_stop_beyond(d, NULL));
    }
    assert_true(beyond == fmax(0.0, -qmin));
    *state = mbs_joint_stop_state(d, 0, 0);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double qacc = mbs_data_qacc(d)[0];
    if (*state == 1 && fabs(qacc) > 1e-9) *state = -1; /* in contact but not held */
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return qmin;
}

static void test_zeno_matrix(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[] = {MBS_STEP_EULER, MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS,
                                      MBS_STEP_CVODE_BDF};
    const char *names[] = {"euler", "rk4", "cvode adams", "cvode bdf"};
    const double dts[] = {1e-4, 1e-3, 1e-2}, es[] = {0.1, 0.5, 0.8, 0.95}, rvs[] = {0.0, 0.05};
    /* event_tol 1e-9 s at the impact speed sqrt(2 g Z0) ~ 2 m/s, with a margin */
    const double tol = 1e-8;
    int bad = 0;
    for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 4; ++j)
                for (int r = 0; r < 2; ++r) {
                    int st = 0;
                    const double qmin = run_case(kinds[k], dts[i], es[j], rvs[r], &st);
                    if (qmin >= -tol && st == 1) continue;
                    print_error("%s dt %g e %g rest_velocity %s: lowest q %.3g, stop state %d\n",
                                names[k], dts[i], es[j], rvs[r] > 0.0 ? "0.05" : "default",
                                qmin, st);
                    ++bad;
                }
    assert_int_equal(bad, 0);
}

/* A pendulum (1 kg at 0.5 m, revolute about y) between restitution stops at -0.3 and 0.3
   rad with e = 0.9 and the default rest velocity, started at 0 with 6 rad/s: it strikes
   both stops, each impact taking energy, until it swings between them. Over 10^5 steps
   (RK4 and Euler at 1 ms, restarts after every impact) it is never beyond either limit, and
   its energy never rises (RK4: 1e-9 relative). */
static void test_two_stops_long(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "bob";
    bd.com[2] = -0.5;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.name = "hinge";
    jd.child = 1;
    jd.axis[1] = 1.0, jd.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    mbs_joint_stop_def sd = mbs_default_joint_stop_def();
    sd.joint = 0, sd.lower = -0.3, sd.upper = 0.3, sd.restitution = 0.9;
    assert_int_equal(mbs_add_joint_stop(b, &sd), 0);
    mbs_model *m = test_compile_ok(b);
    const mbs_stepper_kind kinds[2] = {MBS_STEP_RK4, MBS_STEP_EULER};
    for (int k = 0; k < 2; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_v(d)[0] = 6.0;
        mbs_stepper_def def = mbs_default_stepper_def(kinds[k]);
        mbs_stepper *s = mbs_stepper_create(d, &def);
        double T, V, e_prev;
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        e_prev = T + V;
        const double e0 = e_prev;
        double beyond = 0.0, rise = 0.0;
        for (long i = 0; i < 100000; ++i) {
            if (mbs_stepper_step(s, 1e-3) != MBS_OK) fail_msg("%s", mbs_data_error(d));
            beyond = fmax(beyond, mbs_joint_stop_beyond(d, NULL));
            assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
            rise = fmax(rise, T + V - e_prev);
            e_prev = T + V;
        }
        const double bottom = -G * 0.5; /* energy at rest hanging */
        print_message("two stops, kind %d: beyond %.2e, largest energy rise in a step %.2e J, "
                      "energy %.4g of %.4g J above rest\n", k, beyond, rise, e_prev - bottom,
                      e0 - bottom);
        assert_true(beyond <= 1e-8);
        assert_true(e_prev - bottom < 0.5 * (e0 - bottom)); /* the impacts took energy */
        if (kinds[k] == MBS_STEP_RK4) assert_true(rise <= 1e-9 * (e0 - bottom));
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* mbs_joint_stop_beyond: 0 within the limits, the distance and the element beyond them; an
   elastic stop's penetration does not count. */
static void test_beyond_query(void **state)
{
    (void)state;
    mbs_model *m = ball_on_stop(0.5, 0.0);
    mbs_data *d = mbs_data_create(m);
    int el = 7;
    mbs_data_q(d)[0] = 0.3;
    assert_true(mbs_joint_stop_beyond(d, &el) == 0.0);
    assert_int_equal(el, -1);
    mbs_data_q(d)[0] = -0.25;
    assert_true(mbs_joint_stop_beyond(d, &el) == 0.25);
    assert_int_equal(el, 0);
    assert_true(isnan(mbs_joint_stop_beyond(NULL, &el)));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_beyond_query),
        cmocka_unit_test(test_zeno_matrix),
        cmocka_unit_test(test_two_stops_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
