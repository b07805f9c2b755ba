/* State events and joint stops (src/events/, src/steppers/stepper_events.c).
 * Closed forms: a body falling from z0 crosses z = 0 at t = sqrt(2 z0 / g) (RK4 is exact for
 * this quadratic motion, so the location error is the event tolerance alone; CVODE within
 * its own accuracy); a bouncing ball with restitution e hits at t_1 = sqrt(2 z0 / g),
 * t_{k+1} = t_k + 2 e^k v_1 / g and rebounds with e^k v_1 -- by a user event reversing the
 * velocity and by a restitution stop; an elastic stop conserves energy. Also: NaN from g,
 * a failing handler (state restored bitwise), the handler's direction, determinism,
 * composition with the local-error estimate and with max_step substeps. */
#include "common.h"
#include "loop_mechanisms.h"
#include "loops/loops.h" /* mbs_loops_events: partitions made */

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
        mbs_model *m = test_compile_ok(b);
        assert_int_equal(mbs_model_nevent(m), 1);
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = z0;
        mbs_stepper *s = test_stepper_tight(d, kinds[k]);
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
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = z0;
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
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
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = z0;
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
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

/* ------------------------------------------------------------ elastic stop */

/* Contact time of a ball hitting an elastic stop (q < 0: q'' = -g - (k/m) q) at speed v1:
   q = (g/w^2)(cos w t - 1) - (v1/w) sin w t returns to 0 at t with tan(w t / 2) =
   -v1 w / g ... solved by Newton from pi / w. */
static double contact_time(double k, double v1)
{
    const double w = sqrt(k), a = G / (w * w), c = v1 / w;
    double t = 3.14159265358979323846 / w;
    for (int it = 0; it < 60; ++it) {
        const double f = a * (cos(w * t) - 1.0) - c * sin(w * t);
        const double df = -a * w * sin(w * t) - c * w * cos(w * t);
        t -= f / df;
    }
    return t;
}

/* A ball on an elastic stop (k = 1e4, no damping): the crossings into and out of contact
   are located; the contact lasts the closed-form time, the ball leaves with the speed it
   came in with and climbs back to z0 (energy conserved). */
static void test_elastic_stop(void **state)
{
    (void)state;
    const double z0 = 0.5, k = 1e4;
    rec r = {0};
    mbs_builder *b = ball_builder();
    mbs_joint_stop_def sd = mbs_default_joint_stop_def();
    sd.joint = 0, sd.lower = 0.0, sd.law = MBS_STOP_ELASTIC, sd.stiffness = k;
    assert_true(mbs_add_joint_stop(b, &sd) >= 0);
    mbs_add_event(b, "watch", g_height, h_record, &r);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = z0;
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    double T0, V0, zmax = 0.0;
    mbs_energy(d, &T0, &V0);
    for (int i = 0; i < 3600; ++i) {
        assert_int_equal(mbs_stepper_step(s, 2e-4), MBS_OK);
        if (r.n >= 2) zmax = fmax(zmax, mbs_data_q(d)[0]);
        if (i == 100) assert_int_equal(mbs_joint_stop_state(d, 0, 0), 0);
        if (r.n == 1) assert_int_equal(mbs_joint_stop_state(d, 0, 0), 1);
    }
    const double v1 = sqrt(2.0 * G * z0), tin = sqrt(2.0 * z0 / G);
    assert_true(r.n >= 2);
    assert_int_equal(r.dir[0], -1);
    assert_int_equal(r.dir[1], 1);
    const double tc = contact_time(k, v1);
    double T, V;
    mbs_energy(d, &T, &V);
    print_message("elastic stop: contact %.12f s (closed form %.12f), in at %.12f (%.12f), out at "
                  "%.6f m/s (in %.6f), back to %.9f m (z0 %.3f), energy drift %.2e\n",
                  r.t[1] - r.t[0], tc, r.t[0], tin, r.v[1], r.v[0], zmax, z0,
                  (T + V - T0 - V0) / (T0 + V0));
    assert_true(fabs(r.t[0] - tin) <= 1e-10);
    assert_true(fabs(r.t[1] - r.t[0] - tc) <= 1e-8);
    assert_true(fabs(r.v[1] - v1) <= 1e-6 * v1 && fabs(r.v[0] + v1) <= 1e-9 * v1);
    assert_true(fabs(zmax - z0) <= 1e-8);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ failures */
typedef struct bad {
    double t_bad;   /* g returns NaN after this time */
    int handler_rc; /* the handler's return */
    int move_time;  /* the handler changes the time */
    int nested;     /* the handler calls mbs_stepper_step */
    mbs_stepper *s;
    int nested_status;
} bad;

static double g_bad(mbs_data *d, void *user)
{
    const bad *x = user;
    return mbs_data_time(d) > x->t_bad ? NAN : mbs_data_q(d)[0];
}
static int h_bad(mbs_data *d, void *user)
{
    bad *x = user;
    mbs_data_v(d)[0] = 1.0; /* a change the failure must undo */
    mbs_data_tau(d)[0] = 5.0;
    if (x->move_time) mbs_data_set_time(d, 0.0);
    if (x->nested) x->nested_status = mbs_stepper_step(x->s, 1e-3);
    return x->handler_rc;
}

/* One kind and failure case: stepping until the crossing at 0.45 s fails it with status
   `want`, q, v, t, tau and the event count bitwise as before that step. */
static void failure_case(mbs_stepper_kind kind, bad *x, int want, const char *msg)
{
    mbs_builder *b = ball_builder();
    mbs_add_event(b, "floor", g_bad, h_bad, x);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 1.0;
    mbs_stepper *s = test_stepper_tight(d, kind);
    x->s = s;
    int st = MBS_OK, i = 0;
    double q = 0, v = 0, t = 0, tau = 0;
    for (; i < 1000 && st == MBS_OK; ++i) {
        q = mbs_data_q(d)[0], v = mbs_data_v(d)[0], t = mbs_data_time(d), tau = mbs_data_tau(d)[0];
        st = mbs_stepper_step(s, 1e-2);
    }
    if (st != want) fail_msg("kind %d: status %d, want %d (%s)", kind, st, want, mbs_data_error(d));
    if (!strstr(mbs_data_error(d), msg)) fail_msg("\"%s\" lacks \"%s\"", mbs_data_error(d), msg);
    assert_true(memcmp(&q, mbs_data_q(d), sizeof q) == 0 && memcmp(&v, mbs_data_v(d), sizeof v) == 0);
    assert_true(memcmp(&t, &(double){mbs_data_time(d)}, sizeof t) == 0 && tau == mbs_data_tau(d)[0]);
    assert_int_equal(mbs_data_event_count(d, 0), 0);
    if (x->nested) assert_int_equal(x->nested_status, MBS_ERR_STATE);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A NaN from g, a handler returning < 0, a handler moving the time: the step fails with its
   status and leaves the state bitwise as before; a nested step in a handler is refused. */
static void test_failures(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_EULER, MBS_STEP_CVODE_ADAMS};
    for (int k = 0; k < 3; ++k) {
        bad x1 = {0.3, 0, 0, 0, NULL, 0};
        failure_case(kinds[k], &x1, MBS_ERR_NONFINITE, "event \"floor\": g = nan");
        bad x2 = {1e9, -3, 0, 0, NULL, 0};
        failure_case(kinds[k], &x2, MBS_ERR_CALLBACK, "event \"floor\": handler returned -3");
        bad x3 = {1e9, 0, 1, 0, NULL, 0};
        failure_case(kinds[k], &x3, MBS_ERR_CALLBACK, "the handler changed the time");
        bad x4 = {1e9, -1, 0, 1, NULL, 0};
        failure_case(kinds[k], &x4, MBS_ERR_CALLBACK, "handler returned -1");
    }
}

/* ------------------------------------------------------------ composition */

/* The bouncing stop with the local-error estimate on (no step fails: each piece is
   compared on its own) and with max_step substeps: the same impact times. */
static void test_with_error_estimate_and_substeps(void **state)
{
    (void)state;
    for (int c = 0; c < 2; ++c) {
        rec r = {0};
        mbs_builder *b = ball_builder();
        mbs_joint_stop_def sd = mbs_default_joint_stop_def();
        sd.joint = 0, sd.lower = 0.0, sd.restitution = 0.7;
        mbs_add_joint_stop(b, &sd);
        mbs_add_event(b, NULL, g_height, h_record, &r);
        mbs_model *m = test_compile_ok(b);
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 1.0;
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        def.event_tol = 1e-12;
        if (c == 0) def.err_rtol = 1e-8, def.err_atol = 1e-10;
        else def.max_step = 1e-3;
        mbs_stepper *s = mbs_stepper_create(d, &def);
        for (int i = 0; i < 200; ++i) assert_int_equal(mbs_stepper_step(s, 1e-2), MBS_OK);
        double t[8], vin[8];
        bounce_closed_form(1.0, 0.7, 8, t, vin);
        double worst = 0.0;
        for (int i = 0; i < 4; ++i) worst = fmax(worst, fabs(r.t[i] - t[i]));
        print_message("%s: %d impacts, worst time error %.2e s\n",
                      c == 0 ? "error estimate" : "substeps", r.n, worst);
        assert_true(r.n >= 4 && worst <= 1e-10);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* g of a four-bar (closed loop, RK4, the partition renewed along the way) and of a tumbling
   Cardan free body (re-based): at each handler call |g| <= |dg/dt| event_tol + roundoff. */
typedef struct at_event {
    int n;
    double worst;
    int body;
    double level;
} at_event;

static double g_body_x(mbs_data *d, void *user)
{
    const at_event *a = user;
    double p[3], R[9];
    mbs_body_pose(d, a->body, p, R);
    return p[0] - a->level;
}
static int h_check(mbs_data *d, void *user)
{
    at_event *a = user;
    double p[3], R[9], lin[3], ang[3];
    mbs_body_pose(d, a->body, p, R);
    mbs_body_velocity(d, a->body, lin, ang);
    /* the body origin's x rate */
    a->worst = fmax(a->worst, fabs(p[0] - a->level) / (fabs(lin[0]) * 1e-12 + 1e-14));
    a->n++;
    return 0;
}

/* Adds the x event of a four-bar's coupler (lm_build_fourbar_ex). */
static int add_x_event(mbs_builder *b, const lm_mech *mech, void *user)
{
    (void)mech;
    const int id = mbs_add_event(b, "pin A", g_body_x, h_check, user);
    return id < 0 ? id : MBS_OK;
}

/* The crank angle (q[0]) minus 0.3; its handler records q and |rate| in a rec. */
static double g_crank(mbs_data *d, void *user)
{
    (void)user;
    return mbs_data_q(d)[0] - 0.3;
}
static int h_crank(mbs_data *d, void *user)
{
    rec *r = user;
    if (r->n < 64) r->v[r->n] = mbs_data_q(d)[0], r->t[r->n] = mbs_data_v(d)[0];
    r->n++;
    return 0;
}

static void test_loops_and_cardan(void **state)
{
    (void)state;
    /* a tumbling free body with Cardan angles drifting along x */
    at_event a = {0, 0.0, 1, 0.9};
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_no_gravity(b);
    mbs_builder_set_root_rotation(b, MBS_ROT_CARDAN);
    mbs_body_def bd = mbs_default_body_def();
    bd.inertia[0] = 0.12, bd.inertia[4] = 0.2, bd.inertia[8] = 0.3;
    mbs_add_body(b, &bd);
    mbs_add_event(b, "x", g_body_x, h_check, &a);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    const double v0[6] = {0.3, 0.0, 0.0, 1.0, 3.0, -0.5};
    memcpy(mbs_data_v(d), v0, sizeof v0);
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    int nrebase = 0;
    for (int i = 0; i < 4000; ++i) {
        const double prev = mbs_data_q(d)[4]; /* the middle Cardan angle */
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        if (fabs(mbs_data_q(d)[4] - prev) > 0.3 && a.n == 0) ++nrebase; /* before the event */
    }
    print_message("Cardan body: %d re-bases before the crossing at 3 s, |g| / (|dg/dt| tol) <= "
                  "%.2f\n", nrebase, a.worst);
    assert_true(nrebase >= 1);
    assert_int_equal(a.n, 1);
    assert_true(a.worst <= 1.0);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    /* a four-bar swinging under gravity: the coupler's origin (pin A) crossing x = 0.05 */
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    at_event a2 = {0, 0.0, 0, 0.05};
    if (lm_build_fourbar_ex(&p, add_x_event, &a2, &mech) != MBS_OK) fail_msg("%s", mech.error);
    a2.body = mech.body[1];
    d = mbs_data_create(mech.model);
    s = test_stepper_tight(d, MBS_STEP_RK4);
    for (int i = 0; i < 3000; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    print_message("four-bar: %d crossings, |g| / (|dg/dt| tol) <= %.2f, closure %.2e\n", a2.n,
                  a2.worst, lm_residual(&mech, d));
    assert_true(a2.n >= 2);
    assert_true(a2.worst <= 1.0);
    assert_true(lm_residual(&mech, d) <= 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* A bar of length L and 1 kg along body x (pivot at the origin). */
static int add_bar_len(mbs_builder *b, double L)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.com[0] = 0.5 * L;
    bd.inertia[0] = 1e-4, bd.inertia[4] = bd.inertia[8] = L * L / 12.0;
    return mbs_add_body(b, &bd);
}

/* A triple rocker (crank 0.5 with state priority, coupler 0.4, rocker 0.6, ground 0.8, no
   gravity): the crank swings between its limit positions, where the partition must be
   renewed; an event on the crank angle (0.3 rad, both directions) is located there within
   event_tol, the loops stay closed and energy is conserved across events and renewals. */
static void test_repartition(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_no_gravity(b);
    const double len[3] = {0.5, 0.4, 0.6};
    for (int i = 0; i < 3; ++i) add_bar_len(b, len[i]);
    const int parent[4] = {0, 1, 0, 2}, child[4] = {1, 2, 3, 3};
    const double px[4] = {0.0, 0.5, 0.8, 0.4}, cx[4] = {0.0, 0.0, 0.0, 0.6};
    for (int j = 0; j < 4; ++j) {
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = parent[j], jd.child = child[j], jd.cut = j == 3, jd.state_priority = j == 0;
        jd.frame_parent.pos[0] = px[j], jd.frame_child.pos[0] = cx[j];
        mbs_add_joint(b, &jd);
    }
    rec r = {0};
    mbs_add_event(b, "crank", g_crank, h_crank, &r);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    q[mbs_model_joint_qadr(m, 0)] = 0.5, q[mbs_model_joint_qadr(m, 1)] = 1.2;
    q[mbs_model_joint_qadr(m, 2)] = 2.0, v[mbs_model_joint_vadr(m, 0)] = 3.0;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    double T0, V0, T, V, drift = 0.0, worst = 0.0;
    mbs_energy(d, &T0, &V0);
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    const long parts0 = mbs_loops_events(d);
    for (int i = 0; i < 3000; ++i) {
        const int n0 = r.n;
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        mbs_energy(d, &T, &V);
        drift = fmax(drift, fabs(T + V - T0 - V0) / T0);
        for (int k = n0; k < r.n && k < 64; ++k) /* at the handler: just past the crossing */
            worst = fmax(worst, fabs(r.v[k] - 0.3) / (fabs(r.t[k]) * 1e-12 + 1e-14));
    }
    const long parts = mbs_loops_events(d) - parts0;
    print_message("triple rocker: %ld partitions made, %d crossings, |g| / (|dg/dt| tol) <= %.2f, "
                  "energy drift %.2e\n", parts, r.n, worst, drift);
    assert_true(parts >= 2);
    assert_true(r.n >= 2);
    assert_true(worst <= 1.0);
    assert_true(drift <= 1e-6);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ determinism */

/* Two data stepped side by side (a bouncing stop, a user event, friction): bitwise equal. */
static void test_determinism(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS, MBS_STEP_CVODE_BDF};
    for (int k = 0; k < 3; ++k) {
        rec r[2] = {{0}, {0}};
        mbs_model *m[2];
        mbs_data *d[2];
        mbs_stepper *s[2];
        for (int j = 0; j < 2; ++j) {
            mbs_builder *b = ball_builder();
            mbs_joint_stop_def sd = mbs_default_joint_stop_def();
            sd.joint = 0, sd.lower = 0.0, sd.restitution = 0.6;
            mbs_add_joint_stop(b, &sd);
            mbs_joint_friction_def fd = mbs_default_joint_friction_def();
            fd.joint = 0, fd.coulomb = 1.0, fd.stiction = 1.5, fd.viscous = 0.1;
            mbs_add_joint_friction(b, &fd);
            mbs_add_event(b, NULL, g_height, h_record, &r[j]);
            m[j] = test_compile_ok(b);
            d[j] = mbs_data_create(m[j]);
            mbs_data_q(d[j])[0] = 1.0;
            s[j] = test_stepper_tight(d[j], kinds[k]);
        }
        for (int i = 0; i < 1500; ++i) {
            assert_int_equal(mbs_stepper_step(s[0], 2e-3), MBS_OK);
            assert_int_equal(mbs_stepper_step(s[1], 2e-3), MBS_OK);
            assert_memory_equal(mbs_data_q(d[0]), mbs_data_q(d[1]), sizeof(double));
            assert_memory_equal(mbs_data_v(d[0]), mbs_data_v(d[1]), sizeof(double));
        }
        assert_int_equal(r[0].n, r[1].n);
        assert_memory_equal(r[0].t, r[1].t, (size_t)r[0].n * sizeof(double));
        print_message("kind %d: %d events, bitwise equal; stop state %d\n", k, r[0].n,
                      mbs_joint_stop_state(d[0], 0, 0));
        for (int j = 0; j < 2; ++j) {
            mbs_stepper_destroy(s[j]);
            mbs_data_destroy(d[j]);
            mbs_model_destroy(m[j]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_falling_crossing),
        cmocka_unit_test(test_bounce_user_event),
        cmocka_unit_test(test_bounce_stop),
        cmocka_unit_test(test_elastic_stop),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_with_error_estimate_and_substeps),
        cmocka_unit_test(test_loops_and_cardan),
        cmocka_unit_test(test_repartition),
        cmocka_unit_test(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
