/* Joint friction with locking, brakes (src/steppers/event_modes.c, src/elements/joint_friction.c).
 * Closed forms: a block on an incline sticks for tan a < mu_s (locked, friction m g sin a)
 * and slides with g (sin a - mu cos a) otherwise, thrown up the slope it stops at
 * v0 / (g (sin a + mu cos a)) and then sticks or slides back (1e-9); a pendulum with
 * Coulomb friction: each half swing from theta_a to theta_b obeys
 * m g l (cos theta_b - cos theta_a) = tau_c (theta_a - theta_b) (so the amplitude falls by
 * 4 tau_c / (m g l) per cycle for small swings) and it comes to rest inside the stiction band;
 * stick-slip of a mass on a spring dragged by a belt, period 2 D / v_b + (pi + 2 atan2(v_b /
 * w, D)) / w with D = (F_s - F_c) / k; a flywheel stopped by a brake whose limit the host
 * sets. Every bad input. */
#include "common.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double G = 9.81;
#define PI 3.14159265358979323846

/* ------------------------------------------------------------ block on an incline */
#define BM 2.0

/* A block of mass BM on a prismatic joint along x (down the slope), gravity turned by the
   slope angle a: g (sin a, 0, -cos a). Friction coefficients mu (sliding), mus (static)
   become forces with the normal force m g cos a. */
static mbs_model *incline(double a, double mu, double mus)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {G * sin(a), 0.0, -G * cos(a)};
    mbs_builder_set_gravity(b, g);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = BM;
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.name = "slope";
    jd.child = 1;
    jd.axis[0] = 1.0, jd.axis[2] = 0.0;
    mbs_add_joint(b, &jd);
    mbs_joint_friction_def fd = mbs_default_joint_friction_def();
    fd.name = "contact";
    fd.joint = 0;
    fd.coulomb = mu * BM * G * cos(a);
    fd.stiction = mus * BM * G * cos(a);
    assert_int_equal(mbs_add_joint_friction(b, &fd), 0);
    return test_compile_ok(b);
}

/* Released at rest: sticks (tan a < mu_s) holding m g sin a, or slides from t = 0 with
   g (sin a - mu cos a); every kind. */
static void test_incline_release(void **state)
{
    (void)state;
    const double mu = 0.3, mus = 0.5;
    const double angles[2] = {0.4, 0.6}; /* tan 0.4 = 0.42 < 0.5 < tan 0.6 = 0.68 */
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS, MBS_STEP_EULER};
    for (int ia = 0; ia < 2; ++ia)
        for (int k = 0; k < 3; ++k) {
            const double a = angles[ia], acc = G * (sin(a) - mu * cos(a));
            mbs_model *m = incline(a, mu, mus);
            mbs_data *d = mbs_data_create(m);
            mbs_stepper *s = test_stepper_tight(d, kinds[k]);
            double worst = 0.0;
            for (int i = 1; i <= 200; ++i) {
                assert_int_equal(mbs_stepper_step(s, 5e-3), MBS_OK);
                const double t = mbs_data_time(d);
                if (ia == 0) {
                    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
                    worst = fmax(worst, fabs(mbs_data_q(d)[0]) + fabs(mbs_data_v(d)[0]));
                    worst = fmax(worst, fabs(mbs_data_friction_force(d, 0, 0) + BM * G * sin(a)));
                } else {
                    /* semi-implicit Euler: exactly x_n = a h^2 n (n + 1) / 2, v_n = a h n */
                    const double h = 5e-3, x = kinds[k] == MBS_STEP_EULER
                                                   ? 0.5 * acc * h * h * i * (i + 1.0) : 0.5 * acc * t * t;
                    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 0);
                    worst = fmax(worst, fabs(mbs_data_q(d)[0] - x));
                    worst = fmax(worst, fabs(mbs_data_v(d)[0] - acc * t));
                    worst = fmax(worst, fabs(mbs_data_friction_force(d, 0, 0) + mu * BM * G * cos(a)));
                }
            }
            print_message("incline %.1f rad, kind %d: %s, error %.2e\n", a, k,
                          ia == 0 ? "sticks" : "slides", worst);
            assert_true(worst <= 1e-9);
            mbs_stepper_destroy(s);
            mbs_data_destroy(d);
            mbs_model_destroy(m);
        }
}

/* Thrown up the slope with v0: decelerates with g (sin a + mu cos a) to rest at
   t_s = v0 / that, located as an event; then sticks (a = 0.4) or slides back down with
   g (sin a - mu cos a) (a = 0.6). RK4 is exact for these piecewise quadratic motions. */
static void test_incline_throw(void **state)
{
    (void)state;
    const double mu = 0.3, mus = 0.5, v0 = -1.5;
    const double angles[2] = {0.4, 0.6};
    for (int ia = 0; ia < 2; ++ia) {
        const double a = angles[ia], up = G * (sin(a) + mu * cos(a)), down = G * (sin(a) - mu * cos(a));
        const double ts = -v0 / up, xs = v0 * ts + 0.5 * up * ts * ts;
        mbs_model *m = incline(a, mu, mus);
        mbs_data *d = mbs_data_create(m);
        mbs_data_v(d)[0] = v0;
        mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
        double worst = 0.0;
        for (int i = 1; i <= 150; ++i) {
            assert_int_equal(mbs_stepper_step(s, 1e-2), MBS_OK);
            const double t = mbs_data_time(d);
            double x = v0 * t + 0.5 * up * t * t, v = v0 + up * t;
            if (t > ts) {
                const double tt = t - ts;
                x = xs + (ia == 1 ? 0.5 * down * tt * tt : 0.0);
                v = ia == 1 ? down * tt : 0.0;
                assert_int_equal(mbs_joint_is_locked(d, 0, 0), ia == 0);
            }
            worst = fmax(worst, fmax(fabs(mbs_data_q(d)[0] - x), fabs(mbs_data_v(d)[0] - v)));
        }
        print_message("thrown up the %.1f rad slope: stops at %.6f s, then %s; error %.2e\n", a,
                      ts, ia == 0 ? "sticks" : "slides back", worst);
        assert_true(worst <= 1e-9);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* A block sliding down the 0.6 rad slope into a restitution stop at x = 0.5 (friction and
   stop on one dof): it bounces, comes to rest on the stop (friction resting: the contact
   holds m g sin a, is_locked 1); pulled up the slope by tau below m g sin a + F_s the
   contact lets go and friction holds it at the stop; above that it slides up with
   (tau - m g sin a - F_c) / m. */
static void test_incline_into_stop(void **state)
{
    (void)state;
    const double a = 0.6, mu = 0.3, mus = 0.5;
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {G * sin(a), 0.0, -G * cos(a)};
    mbs_builder_set_gravity(b, g);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = BM;
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.child = 1, jd.axis[0] = 1.0, jd.axis[2] = 0.0;
    mbs_add_joint(b, &jd);
    mbs_joint_friction_def fd = mbs_default_joint_friction_def();
    fd.joint = 0, fd.coulomb = mu * BM * G * cos(a), fd.stiction = mus * BM * G * cos(a);
    mbs_add_joint_friction(b, &fd);
    mbs_joint_stop_def sd = mbs_default_joint_stop_def();
    sd.joint = 0, sd.upper = 0.5, sd.restitution = 0.5, sd.rest_velocity = 0.05;
    mbs_add_joint_stop(b, &sd);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    const double down = BM * G * sin(a), fc = fd.coulomb, fs = fd.stiction;
    for (int i = 0; i < 2000; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    assert_int_equal(mbs_joint_stop_state(d, 0, 0), 2);
    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
    assert_true(mbs_data_q(d)[0] == 0.5 && mbs_data_v(d)[0] == 0.0);
    assert_true(mbs_data_friction_force(d, 0, 0) == 0.0);
    mbs_data_tau(d)[0] = -(down + 0.5 * fs); /* pulls up the slope: friction holds the rest */
    for (int i = 0; i < 200; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    assert_int_equal(mbs_joint_stop_state(d, 0, 0), 0);
    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
    assert_true(mbs_data_q(d)[0] == 0.5 && mbs_data_v(d)[0] == 0.0);
    const double held = mbs_data_friction_force(d, 0, 0);
    mbs_data_tau(d)[0] = -(down + 1.2 * fs); /* beyond the band: slides up the slope */
    const double t0 = mbs_data_time(d), acc = (-(down + 1.2 * fs) + down + fc) / BM;
    for (int i = 0; i < 200; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    const double t = mbs_data_time(d) - t0;
    print_message("into a stop: rests on it, held by friction %.6f (expect %.6f), slides up: "
                  "error %.2e\n", held, 0.5 * fs, fabs(mbs_data_q(d)[0] - 0.5 - 0.5 * acc * t * t));
    assert_true(fabs(held - 0.5 * fs) <= 1e-12);
    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 0);
    assert_true(fabs(mbs_data_q(d)[0] - 0.5 - 0.5 * acc * t * t) <= 1e-12);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ pendulum */
#define PMASS 1.0
#define PLEN 0.5
#define PIC 0.002 /* inertia about the centre of mass */

typedef struct turns {
    int n;
    double q[256];
} turns;

static double g_rate(mbs_data *d, void *user)
{
    (void)user;
    return mbs_data_v(d)[0];
}
static int h_turn(mbs_data *d, void *user)
{
    turns *r = user;
    if (r->n < 256) r->q[r->n++] = mbs_data_q(d)[0];
    return 0;
}

/* The other turning point of a half swing from theta_a under Coulomb torque tc:
   m g l (cos b - cos a) = tc (|a| + |b|), b on the other side (Newton). */
static double next_turn(double a, double tc)
{
    const double mgl = PMASS * G * PLEN, sa = a > 0.0 ? 1.0 : -1.0;
    double b = -a + 2.0 * sa * tc / mgl; /* small-swing guess */
    for (int it = 0; it < 50; ++it) {
        const double f = mgl * (cos(b) - cos(a)) - tc * (fabs(a) + fabs(b));
        const double df = -mgl * sin(b) - tc * (b > 0.0 ? 1.0 : -1.0);
        b -= f / df;
    }
    return b;
}

/* A pendulum with Coulomb friction released at 0.1 rad: turning points from the energy
   balance of each half swing (1e-8), amplitude loss per cycle 4 tc / (m g l) (to the swing's
   nonlinearity, theta^2 / 8 < 3e-3 of it), and rest inside the stiction band. */
static void test_pendulum_coulomb(void **state)
{
    (void)state;
    const double tc = 0.02, ts = 0.03, th0 = 0.1;
    turns r = {0};
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = PMASS;
    bd.com[2] = -PLEN;
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = PIC;
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = 1;
    jd.axis[1] = 1.0, jd.axis[2] = 0.0;
    mbs_add_joint(b, &jd);
    mbs_joint_friction_def fd = mbs_default_joint_friction_def();
    fd.joint = 0;
    fd.coulomb = tc;
    fd.stiction = ts;
    mbs_add_joint_friction(b, &fd);
    mbs_add_event(b, "turn", g_rate, h_turn, &r);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = th0;
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    for (int i = 0; i < 12000; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    double a = th0, worst = 0.0, loss_err = 0.0;
    const double mgl = PMASS * G * PLEN;
    int k = 0;
    for (; k < r.n && fabs(mgl * sin(a)) > ts; ++k) { /* the swings that start sliding */
        const double bturn = next_turn(a, tc);
        worst = fmax(worst, fabs(r.q[k] - bturn));
        if (k >= 1 && fabs(mgl * sin(bturn)) > ts) { /* a full cycle r.q[k - 1] to r.q[k + 1] */
            const double cyc = fabs(r.q[k - 1]) - fabs(next_turn(bturn, tc));
            loss_err = fmax(loss_err, fabs(cyc - 4.0 * tc / mgl) / (4.0 * tc / mgl));
        }
        a = bturn;
    }
    const double rest = mbs_data_q(d)[0];
    print_message("Coulomb pendulum: %d half swings, turning points within %.2e rad of the energy "
                  "balance; per-cycle loss within %.1e of 4 tc / (m g l) = %.5f; rest at %.5f rad "
                  "(band %.5f), locked %d\n", k, worst, loss_err, 4.0 * tc / mgl, rest,
                  asin(ts / mgl), mbs_joint_is_locked(d, 0, 0));
    assert_true(k >= 4);
    assert_true(worst <= 1e-8);
    assert_true(loss_err <= 3e-3); /* the nonlinearity of swings of 0.1 rad */
    assert_int_equal(r.n, k); /* no more turns after it stuck */
    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
    assert_true(fabs(rest - r.q[k - 1]) <= 1e-12 && mbs_data_v(d)[0] == 0.0);
    assert_true(fabs(mgl * sin(rest)) <= ts);
    assert_true(fabs(fabs(mbs_data_friction_force(d, 0, 0)) - mgl * fabs(sin(rest))) <= 1e-12);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ belt */
static int belt_motion(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    const double vb = *(const double *)user;
    pos[0] = vb * t, vel[0] = vb, acc[0] = 0.0;
    return 0;
}

typedef struct stamps {
    int n;
    double t[64];
} stamps;

static double g_slip(mbs_data *d, void *user)
{
    (void)user;
    return mbs_data_v(d)[1]; /* the mass relative to the belt */
}
static int h_stamp(mbs_data *d, void *user)
{
    stamps *r = user;
    if (r->n < 64 && mbs_data_event_direction(d) > 0) r->t[r->n++] = mbs_data_time(d);
    return 0;
}

/* Stick-slip: a mass m on a spring k (anchored to the world) carried by a belt moving at
   v_b (a prescribed motion); friction between mass and belt on their relative coordinate.
   The times the mass sticks again (the relative rate reaching zero from below) repeat with
   the period of the closed form. */
static void test_belt_stick_slip(void **state)
{
    (void)state;
    static const double vb = 0.1;
    const double mass = 1.0, k = 100.0, fs = 2.0, fc = 1.2, w = sqrt(k / mass);
    const double D = (fs - fc) / k, T = 2.0 * D / vb + (PI + 2.0 * atan2(vb / w, D)) / w;
    stamps r = {0};
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_no_gravity(b);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 10.0;
    mbs_add_body(b, &bd); /* the belt */
    bd.mass = mass;
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.axis[0] = 1.0, jd.axis[2] = 0.0;
    jd.child = 1;
    mbs_add_joint(b, &jd);
    jd.parent = 1, jd.child = 2;
    mbs_add_joint(b, &jd);
    mbs_add_joint_motion(b, 0, 0, belt_motion, (void *)&vb);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_b = 2;
    sd.point_a[0] = -1.0;
    sd.stiffness = k;
    sd.rest_length = 1.0;
    mbs_add_spring_damper(b, &sd);
    mbs_joint_friction_def fd = mbs_default_joint_friction_def();
    fd.joint = 1, fd.coulomb = fc, fd.stiction = fs;
    mbs_add_joint_friction(b, &fd);
    mbs_add_event(b, "sticks", g_slip, h_stamp, &r);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[0] = vb;
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    double worst = 0.0;
    for (int i = 0; i < 3000; ++i) {
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        if (mbs_joint_is_locked(d, 1, 0)) /* stuck: the spring is within the band */
            worst = fmax(worst, fabs(mbs_data_v(d)[1]) + fmax(0.0, fabs(k * (mbs_data_q(d)[0] + mbs_data_q(d)[1])) - fs));
    }
    double perr = 0.0;
    for (int i = 1; i < r.n; ++i) perr = fmax(perr, fabs(r.t[i] - r.t[i - 1] - T));
    /* the first stick-slip cycle: stuck from x = 0 to F_s / k, then the slip */
    const double t1 = fs / k / vb + (PI + 2.0 * atan2(vb / w, D)) / w;
    print_message("belt stick-slip: %d cycles, period %.9f s (closed form %.9f), error %.2e; first "
                  "sticking at %.9f (closed form %.9f)\n", r.n, r.n > 1 ? r.t[1] - r.t[0] : 0.0,
                  T, perr, r.n > 0 ? r.t[0] : 0.0, t1);
    assert_true(r.n >= 3);
    assert_true(perr <= 1e-9);
    assert_true(fabs(r.t[0] - t1) <= 1e-9);
    assert_true(worst <= 1e-12);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ brake */

/* A flywheel (J = 0.5) spinning at 10 rad/s; the host sets the brake's limit 2 N m at
   t = 1: it stops at t = 3.5 and stays locked; a torque 2.5 (below peak 1.5 x 2 = 3) is
   held, 3.5 slides it with (3.5 - 2) / J; limit 0 frees it. */
static void test_brake(void **state)
{
    (void)state;
    const double J = 0.5;
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_no_gravity(b);
    mbs_body_def bd = mbs_default_body_def();
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = bd.inertia[4] = 0.3, bd.inertia[8] = J;
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = 1;
    mbs_add_joint(b, &jd);
    mbs_joint_brake_def bk = mbs_default_joint_brake_def();
    bk.name = "brake";
    bk.joint = 0;
    bk.peak = 1.5;
    const int brake = mbs_add_joint_brake(b, &bk);
    if (brake != 0) fail_msg("%s", mbs_builder_error(b));
    mbs_model *m = test_compile_ok(b);
    for (int kind = 0; kind < 2; ++kind) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_v(d)[0] = 10.0;
        mbs_stepper *s = test_stepper_tight(d, kind == 0 ? MBS_STEP_RK4 : MBS_STEP_CVODE_ADAMS);
        double worst = 0.0, w_expect = 10.0;
        for (int i = 1; i <= 700; ++i) {
            const double t0 = mbs_data_time(d);
            if (i == 101) assert_int_equal(mbs_set_brake_limit(d, brake, 2.0), MBS_OK);
            if (i == 401) mbs_data_tau(d)[0] = 2.5;
            if (i == 501) mbs_data_tau(d)[0] = 3.5;
            if (i == 601) assert_int_equal(mbs_set_brake_limit(d, brake, 0.0), MBS_OK);
            assert_int_equal(mbs_stepper_step(s, 1e-2), MBS_OK);
            const double t = mbs_data_time(d);
            if (i <= 100) w_expect = 10.0;
            else if (i <= 400) w_expect = fmax(0.0, 10.0 - 4.0 * (t - 1.0));
            else if (i <= 500) w_expect = 0.0;
            else if (i <= 600) w_expect = 3.0 * (t - 5.0);
            else w_expect = 3.0 + 7.0 * (t - 6.0);
            worst = fmax(worst, fabs(mbs_data_v(d)[0] - w_expect));
            if (i > 360 && i <= 500) assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
            if (i > 400 && i <= 500)
                worst = fmax(worst, fabs(mbs_data_friction_force(d, 0, 0) + 2.5));
            (void)t0;
        }
        print_message("brake, kind %d: rate error %.2e\n", kind, worst);
        assert_true(worst <= 1e-9);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ a loop */

static int add_crank_friction(mbs_builder *b, const lm_mech *mech, void *user)
{
    (void)user;
    mbs_joint_friction_def f = mbs_default_joint_friction_def();
    f.joint = mech->joint[0], f.coulomb = 0.4, f.stiction = 0.6, f.viscous = 0.05;
    const int id = mbs_add_joint_friction(b, &f);
    return id < 0 ? id : MBS_OK;
}

static int hold_at(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    (void)t;
    pos[0] = *(const double *)user, vel[0] = acc[0] = 0.0;
    return 0;
}
static int add_crank_hold(mbs_builder *b, const lm_mech *mech, void *user)
{
    const int id = mbs_add_joint_motion(b, mech->joint[0], 0, hold_at, user);
    return id < 0 ? id : MBS_OK;
}

/* Potential energy of the four-bar closed with its crank held at th (a motion, assembled
   from the state q0). */
static double fourbar_potential(const lm_fourbar *p, double th, const double *q0)
{
    lm_mech mech;
    double hold = th;
    if (lm_build_fourbar_ex(p, add_crank_hold, &hold, &mech) != MBS_OK) fail_msg("%s", mech.error);
    mbs_data *d = mbs_data_create(mech.model);
    memcpy(mbs_data_q(d), q0, (size_t)mbs_model_nq(mech.model) * sizeof(double));
    assert_int_equal(mbs_assemble(d), MBS_OK);
    double T, V;
    mbs_energy(d, &T, &V);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
    return V;
}

/* A four-bar under gravity with Coulomb + viscous friction on its crank (a coordinate row
   with the cut-joint rows) swings and comes to rest locked; the holding torque is dV/dth of
   the loop closed at the crank angle (central differences, 1e-7), inside the band. */
static void test_fourbar_friction(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    if (lm_build_fourbar_ex(&p, add_crank_friction, NULL, &mech) != MBS_OK) fail_msg("%s", mech.error);
    mbs_data *d = mbs_data_create(mech.model);
    double th3, th4, th[3], w[3] = {3.0, 0.0, 0.0}, al[3];
    lm_fourbar_position(&p, 1.0, 1, &th3, &th4);
    th[0] = 1.0, th[1] = th3, th[2] = th4;
    lm_fourbar_rates(&p, th, 3.0, 0.0, w, al);
    lm_fourbar_set(&p, &mech, d, th, w);
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    int i = 0;
    for (; i < 20000 && !(mbs_joint_is_locked(d, mech.joint[0], 0) == 1 && i > 100); ++i)
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    for (int k = 0; k < 500; ++k) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    const double crank = lm_q(d, &mech, mech.joint[0]), eps = 1e-5;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double hold = mbs_data_friction_force(d, mech.joint[0], 0);
    const double *q = mbs_data_q(d);
    const double dV = (fourbar_potential(&p, crank + eps, q) - fourbar_potential(&p, crank - eps, q)) /
                      (2.0 * eps);
    double vmax = 0.0, amax = 0.0;
    for (int k = 0; k < mbs_model_nv(mech.model); ++k)
        vmax = fmax(vmax, fabs(mbs_data_v(d)[k])), amax = fmax(amax, fabs(mbs_data_qacc(d)[k]));
    print_message("four-bar with crank friction: locked after %.3f s at %.6f rad, holding torque "
                  "%.9f N m, dV/dth %.9f, |v| %.1e, |qacc| %.1e, closure %.1e\n", i * 1e-3,
                  crank, hold, dV, vmax, amax, lm_residual(&mech, d));
    assert_int_equal(mbs_joint_is_locked(d, mech.joint[0], 0), 1);
    assert_true(fabs(hold - dV) <= 1e-7 * (1.0 + fabs(dV)));
    assert_true(fabs(hold) <= 0.6);
    assert_true(vmax <= 1e-12 && amax <= 1e-10);
    assert_true(lm_residual(&mech, d) <= 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* ------------------------------------------------------------ bad input */

/* The builder's message must name the element and contain `what`. */
static void expect_msg(const mbs_builder *b, const char *what)
{
    if (!strstr(mbs_builder_error(b), what))
        fail_msg("message \"%s\" lacks \"%s\"", mbs_builder_error(b), what);
}

/* A builder with a revolute "hinge" (0), a spherical "ball" (1), a prismatic slide (2) and a
   revolute cut joint "cut" (3) closing a loop with the slide. */
static mbs_builder *joints_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    for (int i = 0; i < 3; ++i) mbs_add_body(b, &bd);
    const mbs_joint_type types[4] = {MBS_JOINT_REVOLUTE, MBS_JOINT_SPHERICAL, MBS_JOINT_PRISMATIC,
                                     MBS_JOINT_REVOLUTE};
    const char *names[4] = {"hinge", "ball", "slide", "cut"};
    const int parent[4] = {0, 1, 0, 0}, child[4] = {1, 2, 3, 3};
    for (int j = 0; j < 4; ++j) {
        mbs_joint_def jd = mbs_default_joint_def(types[j]);
        jd.name = names[j];
        jd.parent = parent[j], jd.child = child[j];
        jd.cut = j == 3;
        mbs_add_joint(b, &jd);
    }
    return b;
}

/* Builder calls: each wrong value its status and message; the builder unchanged. */
static void test_bad_builder_calls(void **state)
{
    (void)state;
    mbs_builder *b = joints_builder();
    mbs_joint_friction_def f = mbs_default_joint_friction_def();
    assert_int_equal(mbs_add_joint_friction(NULL, &f), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint_friction(b, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint_friction(b, &f), MBS_ERR_ARG); /* joint -1 */
    expect_msg(b, "unknown joint -1");
    f.joint = 0, f.dof = -1;
    assert_int_equal(mbs_add_joint_friction(b, &f), MBS_ERR_ARG);
    expect_msg(b, "dof -1 is negative");
    f.dof = 0, f.name = "fr", f.coulomb = 2.0, f.stiction = 1.0;
    assert_int_equal(mbs_add_joint_friction(b, &f), MBS_ERR_ARG);
    expect_msg(b, "joint friction \"fr\" on joint \"hinge\": stiction = 1 is below coulomb = 2");
    f.coulomb = -1.0;
    assert_int_equal(mbs_add_joint_friction(b, &f), MBS_ERR_ARG);
    expect_msg(b, "coulomb = -1 must be >= 0");
    f.coulomb = NAN;
    assert_int_equal(mbs_add_joint_friction(b, &f), MBS_ERR_ARG);
    expect_msg(b, "coulomb = nan is not finite");
    f.coulomb = 1.0, f.viscous = -0.1;
    assert_int_equal(mbs_add_joint_friction(b, &f), MBS_ERR_ARG);
    expect_msg(b, "viscous = -0.1 must be >= 0");
    f.viscous = INFINITY;
    assert_int_equal(mbs_add_joint_friction(b, &f), MBS_ERR_ARG);
    mbs_joint_brake_def bk = mbs_default_joint_brake_def();
    bk.joint = 0, bk.peak = 0.5;
    assert_int_equal(mbs_add_joint_brake(b, &bk), MBS_ERR_ARG);
    expect_msg(b, "peak = 0.5 must be >= 1");
    bk.peak = 1.0, bk.limit = -2.0;
    assert_int_equal(mbs_add_joint_brake(b, &bk), MBS_ERR_ARG);
    expect_msg(b, "limit = -2 must be >= 0");
    assert_int_equal(mbs_add_joint_brake(b, NULL), MBS_ERR_ARG);
    mbs_joint_stop_def sp = mbs_default_joint_stop_def();
    sp.joint = 2;
    assert_int_equal(mbs_add_joint_stop(b, &sp), MBS_ERR_ARG);
    expect_msg(b, "no limit");
    sp.lower = 1.0, sp.upper = 0.5;
    assert_int_equal(mbs_add_joint_stop(b, &sp), MBS_ERR_ARG);
    expect_msg(b, "lower = 1 must be below upper = 0.5");
    sp.lower = NAN;
    assert_int_equal(mbs_add_joint_stop(b, &sp), MBS_ERR_ARG);
    expect_msg(b, "must be numbers");
    sp.lower = 0.0, sp.restitution = 1.5;
    assert_int_equal(mbs_add_joint_stop(b, &sp), MBS_ERR_ARG);
    expect_msg(b, "restitution = 1.5 must be in [0, 1]");
    sp.restitution = 0.5, sp.rest_velocity = 0.0;
    assert_int_equal(mbs_add_joint_stop(b, &sp), MBS_ERR_ARG);
    expect_msg(b, "rest_velocity must be > 0");
    sp.rest_velocity = 1e-3, sp.law = MBS_STOP_ELASTIC;
    assert_int_equal(mbs_add_joint_stop(b, &sp), MBS_ERR_ARG);
    expect_msg(b, "needs stiffness > 0");
    sp.law = (mbs_stop_law)7;
    assert_int_equal(mbs_add_joint_stop(b, &sp), MBS_ERR_ARG);
    expect_msg(b, "unknown law 7");
    assert_int_equal(mbs_add_joint_motion(b, 0, 0, NULL, NULL), MBS_ERR_ARG);
    expect_msg(b, "function is NULL");
    assert_int_equal(mbs_add_joint_motion(b, 9, 0, belt_motion, NULL), MBS_ERR_ARG);
    expect_msg(b, "unknown joint 9");
    assert_int_equal(mbs_add_event(b, "e", NULL, NULL, NULL), MBS_ERR_ARG);
    expect_msg(b, "event \"e\": function g is NULL");
    assert_int_equal(mbs_add_event(NULL, "e", g_slip, NULL, NULL), MBS_ERR_ARG);
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK); /* nothing was added */
    assert_int_equal(mbs_model_nforce(m), 0);
    assert_int_equal(mbs_model_nevent(m), 0);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Elements that compile refuses: a cut joint, a spherical joint, a dof out of range, two
   frictions or a motion and a friction on one dof. */
static void test_bad_compile(void **state)
{
    (void)state;
    struct { int joint, dof, second; const char *msg; } cases[] = {
        {3, 0, 0, "joint friction #0: joint \"cut\" is a cut joint"},
        {1, 0, 0, "is a spherical joint"},
        {0, 1, 0, "dof 1 out of range (joint \"hinge\" has 1)"},
        {0, 0, 1, "already has joint friction"},
        {0, 0, 2, "its dof has a prescribed motion"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        mbs_builder *b = joints_builder();
        mbs_joint_friction_def f = mbs_default_joint_friction_def();
        f.joint = cases[c].joint, f.dof = cases[c].dof, f.coulomb = f.stiction = 1.0;
        assert_true(mbs_add_joint_friction(b, &f) >= 0);
        if (cases[c].second == 1) assert_true(mbs_add_joint_friction(b, &f) >= 0);
        if (cases[c].second == 2) assert_true(mbs_add_joint_motion(b, 0, 0, belt_motion, NULL) >= 0);
        mbs_model *m = NULL;
        assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
        assert_null(m);
        expect_msg(b, cases[c].msg);
        mbs_builder_destroy(b);
    }
    mbs_builder *b = joints_builder(); /* a motion on a cut joint, two motions on one dof */
    mbs_add_joint_motion(b, 3, 0, belt_motion, NULL);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    expect_msg(b, "joint motion #0: joint \"cut\" is a cut joint");
    mbs_builder_destroy(b);
    b = joints_builder();
    mbs_add_joint_motion(b, 2, 0, belt_motion, NULL);
    mbs_add_joint_motion(b, 2, 0, belt_motion, NULL);
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    expect_msg(b, "joint motions #0 and #1 drive the same dof");
    mbs_builder_destroy(b);
}

/* Queries and inputs on the data: bad ids give NaN or MBS_ERR_ARG with a message. */
static void test_bad_data_calls(void **state)
{
    (void)state;
    mbs_model *m = incline(0.4, 0.3, 0.5);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_joint_is_locked(d, 0, 1), MBS_ERR_ARG);
    assert_int_equal(mbs_joint_is_locked(d, 5, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_joint_is_locked(NULL, 0, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 0); /* undecided before the first step */
    assert_true(isnan(mbs_data_friction_force(d, 0, 1)));
    assert_true(isnan(mbs_data_friction_force(NULL, 0, 0)));
    assert_int_equal(mbs_joint_stop_state(d, 0, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_set_brake_limit(d, 0, 1.0), MBS_ERR_ARG); /* a friction, not a brake */
    assert_non_null(strstr(mbs_data_error(d), "force element 0 is not a joint brake"));
    assert_int_equal(mbs_set_brake_limit(NULL, 0, 1.0), MBS_ERR_ARG);
    assert_int_equal(mbs_data_event_count(d, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_data_event_direction(d), 0);
    assert_int_equal(mbs_model_nevent(NULL), MBS_ERR_ARG);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    def.event_tol = -1.0;
    assert_null(mbs_stepper_create(d, &def));
    assert_non_null(strstr(mbs_data_error(d), "event_tol = -1"));
    def.event_tol = NAN;
    assert_null(mbs_stepper_create(d, &def));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incline_release),
        cmocka_unit_test(test_incline_throw),
        cmocka_unit_test(test_incline_into_stop),
        cmocka_unit_test(test_pendulum_coulomb),
        cmocka_unit_test(test_belt_stick_slip),
        cmocka_unit_test(test_brake),
        cmocka_unit_test(test_fourbar_friction),
        cmocka_unit_test(test_bad_builder_calls),
        cmocka_unit_test(test_bad_compile),
        cmocka_unit_test(test_bad_data_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
