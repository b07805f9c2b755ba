/* State events and joint stops (src/events/, src/solvers/stepper_events.c).
 * Closed forms: a body falling from z0 crosses z = 0 at t = sqrt(2 z0 / g) (RK4 is exact for
 * this quadratic motion, so the location error is the event tolerance alone; CVODE within
 * its own accuracy); a bouncing ball with restitution e hits at t_1 = sqrt(2 z0 / g),
 * t_{k+1} = t_k + 2 e^k v_1 / g and rebounds with e^k v_1 -- by a user event reversing the
 * velocity and by a restitution stop; an elastic stop conserves energy. Also: NaN from g,
 * a failing handler (state restored bitwise), the handler's direction, determinism,
 * composition with the local-error estimate and with max_step substeps. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double G = 9.81;

/* A point-like body of mass 1 on a vertical prismatic joint (q = height); *joint = 0. */
static mbs_builder *ball_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "ball";
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.name = "z";
    jd.parent = MBS_WORLD;
    jd.child = 1;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    return b;
}

/* Compile (the builder is destroyed), failing with its message. */
static mbs_model *compile_ok(mbs_builder *b)
{
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    if (st != MBS_OK) fail_msg("compile: %s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

static mbs_stepper *stepper(mbs_data *d, mbs_stepper_kind kind, double tol)
{
    mbs_stepper_def def = mbs_default_stepper_def(kind);
    def.event_tol = tol;
    def.rtol = 1e-11;
    def.atol = 1e-12;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    if (!s) fail_msg("stepper: %s", mbs_data_error(d));
    return s;
}

/* ------------------------------------------------------------ recording events */
typedef struct rec {
    int n;
    double t[64], v[64];
    int dir[64];
    double e;      /* > 0: the handler reverses a falling velocity, scaled by e */
} rec;

static double g_height(mbs_data *d, void *user)
{
    (void)user;
    return mbs_data_q(d)[0];
}

static int h_record(mbs_data *d, void *user)
{
    rec *r = user;
    if (r->n < 64) {
        r->t[r->n] = mbs_data_time(d);
        r->v[r->n] = mbs_data_v(d)[0];
        r->dir[r->n] = mbs_data_event_direction(d);
        r->n++;
    }
    if (r->e > 0.0 && mbs_data_event_direction(d) < 0) mbs_data_v(d)[0] *= -r->e;
    return 0;
}

/* Falling from z0 = 1: crossing time with RK4 (exact motion) and the CVODE kinds. */
static void test_falling_crossing(void **state)
{
    (void)state;
    const double z0 = 1.0, tc = sqrt(2.0 * z0 / G);
    const mbs_stepper_kind kinds[] = {MBS_STEP_RK4, MBS_STEP_EULER, MBS_STEP_CVODE_ADAMS,
                                      MBS_STEP_CVODE_BDF};
    const double tol[] = {1e-10, 2e-3, 1e-7, 1e-7};
    for (int k = 0; k < 4; ++k) {
        rec r = {0};
        mbs_builder *b = ball_builder();
        assert_int_equal(mbs_add_event(b, "floor", g_height, h_record, &r), 0);
        mbs_model *m = compile_ok(b);
        assert_int_equal(mbs_model_nevent(m), 1);
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = z0;
        mbs_stepper *s = stepper(d, kinds[k], 1e-12);
        for (int i = 0; i < 500; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        assert_int_equal(r.n, 1);
        assert_int_equal(r.dir[0], -1);
        assert_int_equal(mbs_data_event_count(d, 0), 1);
        print_message("kind %d: crossing at %.15f, closed form %.15f, error %.2e\n", k, r.t[0],
                      tc, r.t[0] - tc);
        assert_true(fabs(r.t[0] - tc) <= tol[k]);
        if (kinds[k] == MBS_STEP_RK4) assert_true(r.t[0] >= tc - 1e-14); /* on the far side */
        assert_true(fabs(mbs_data_time(d) - 0.5) < 1e-12); /* steps still end at t + dt */
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Impact times t_k and speeds of a ball bouncing with restitution e from z0. */
static void bounce_closed_form(double z0, double e, int n, double *t, double *vin)
{
    const double v1 = sqrt(2.0 * G * z0);
    double tk = sqrt(2.0 * z0 / G), vk = v1;
    for (int k = 0; k < n; ++k) {
        t[k] = tk;
        vin[k] = -vk;
        tk += 2.0 * e * vk / G;
        vk *= e;
    }
}

/* A user event that reverses the velocity: impact times to 1e-10 s with RK4. */
static void test_bounce_user_event(void **state)
{
    (void)state;
    const double z0 = 1.0, e = 0.8;
    rec r = {0};
    r.e = e;
    mbs_builder *b = ball_builder();
    mbs_add_event(b, NULL, g_height, h_record, &r);
    mbs_model *m = compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = z0;
    mbs_stepper *s = stepper(d, MBS_STEP_RK4, 1e-12);
    for (int i = 0; i < 4000; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    double t[16], vin[16];
    bounce_closed_form(z0, e, 16, t, vin);
    int k = 0; /* falling crossings only (the handler also sees the ball leave) */
    double worst = 0.0;
    for (int i = 0; i < r.n && k < 8; ++i) {
        if (r.dir[i] > 0) continue;
        worst = fmax(worst, fabs(r.t[i] - t[k]));
        assert_true(fabs(r.v[i] - vin[k]) <= 1e-8 * fabs(vin[0]));
        ++k;
    }
    print_message("user-event bounce: %d impacts, worst time error %.2e s\n", k, worst);
    assert_true(k == 8);
    assert_true(worst <= 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A restitution stop: impact times to 1e-10 s, rebound speeds e^k v_1, then resting
   contact (rest_velocity) with the stop holding m g. */
static void test_bounce_stop(void **state)
{
    (void)state;
    const double z0 = 1.0, e = 0.5;
    rec r = {0};
    mbs_builder *b = ball_builder();
    mbs_joint_stop_def sd = mbs_default_joint_stop_def();
    sd.joint = 0;
    sd.lower = 0.0;
    sd.restitution = e;
    sd.rest_velocity = 0.05;
    const int stop = mbs_add_joint_stop(b, &sd);
    assert_true(stop >= 0);
    mbs_add_event(b, "watch", g_height, h_record, &r);
    mbs_model *m = compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = z0;
    mbs_stepper *s = stepper(d, MBS_STEP_RK4, 1e-12);
    double t[16], vin[16], vplus[16] = {0};
    bounce_closed_form(z0, e, 16, t, vin);
    for (int i = 0; i < 3000; ++i) {
        const int before = r.n;
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        if (r.n == before + 1 && r.n <= 16) /* free flight since the impact: exact in RK4 */
            vplus[r.n - 1] = mbs_data_v(d)[0] + G * (mbs_data_time(d) - r.t[r.n - 1]);
        assert_true(r.n <= before + 1);
    }
    int nb = 0;
    double worst = 0.0, worst_v = 0.0;
    while (nb < r.n && fabs(vin[nb]) * e >= sd.rest_velocity) {
        worst = fmax(worst, fabs(r.t[nb] - t[nb]));
        worst_v = fmax(worst_v, fabs(vplus[nb] - e * fabs(vin[nb])));
        ++nb;
    }
    print_message("stop bounce: %d rebounds, worst impact time error %.2e s, worst rebound "
                  "speed error %.2e m/s; at rest: q %.3e, state %d\n", nb, worst, worst_v,
                  mbs_data_q(d)[0], mbs_joint_stop_state(d, 0, 0));
    assert_true(nb >= 4);
    assert_true(worst <= 1e-10);
    assert_true(worst_v <= 1e-9);
    assert_int_equal(mbs_joint_stop_state(d, 0, 0), 1);
    assert_true(fabs(mbs_data_q(d)[0]) <= 1e-12 && fabs(mbs_data_v(d)[0]) <= 1e-12);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_falling_crossing),
        cmocka_unit_test(test_bounce_user_event),
        cmocka_unit_test(test_bounce_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
