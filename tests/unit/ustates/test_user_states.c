/* User state equations integrated with the mechanism (Docquier, Poncelet, Fisette 2013,
 * ROBOTRAN §4.2.2 and §5.1): a DC motor whose current i is a user state,
 *     L di/dt = u(t) - R i - k_e w,   torque k_t i on the driven coordinate,
 * drives a flywheel, a pendulum and a four-bar. Checked against closed forms (steady states,
 * the current of a motor on a prescribed motion or a locked shaft), the energy balance with
 * the electrical power (integral of u i = change of kinetic + potential + magnetic energy +
 * R i^2 losses + damping, the integrals themselves user states of a second element), state
 * events on a user state whose handler resets it, determinism, failed steps restoring the
 * states bit for bit, the local-error estimate, and every bad input. */
#include "common.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define G 9.81

static const mbs_stepper_kind KINDS[4] = {MBS_STEP_EULER, MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS,
                                          MBS_STEP_CVODE_BDF};

/* ---------------------------------------------------------------- the motor */

/* A DC motor on coordinate vidx and the energy meter that integrates its powers. */
typedef struct motor {
    double R, L, ke, kt;         /* ohm, H, V s/rad, N m/A */
    double u0, ua, uw;           /* voltage u(t) = u0 + ua sin(uw t) */
    double b;                    /* viscous damping on the coordinate (for the meter) */
    int vidx;                    /* v index of the driven coordinate (set after compile) */
    int adr, meter_adr;          /* addresses of the current and of the meter's states */
    double fail_after;           /* t > fail_after: the function returns fail_rc or NaN */
    int fail_rc;                 /* 0: returns a NaN derivative; else this value */
    int calls;
} motor;

static motor default_motor(void)
{
    motor p;
    memset(&p, 0, sizeof p);
    p.R = 2.0, p.L = 0.01, p.ke = 0.5, p.kt = 0.5;
    p.u0 = 9.0;
    p.fail_after = INFINITY;
    return p;
}

static double voltage(const motor *p, double t) { return p->u0 + p->ua * sin(p->uw * t); }

/* L di/dt = u - R i - k_e w; torque k_t i. */
static int motor_fn(mbs_data *d, const double *x, double *xdot, void *user)
{
    motor *p = user;
    const double t = mbs_data_time(d), w = mbs_data_v(d)[p->vidx];
    p->calls++;
    if (t > p->fail_after) {
        if (p->fail_rc != 0) return p->fail_rc;
        xdot[0] = NAN;
        return 0;
    }
    xdot[0] = (voltage(p, t) - p->R * x[0] - p->ke * w) / p->L;
    return mbs_apply_generalized_force(d, p->vidx, p->kt * x[0]);
}

/* Energy meter: d/dt (E_in, E_R, E_b) = (u i, R i^2, b w^2), reading the motor's current. */
static int meter_fn(mbs_data *d, const double *x, double *xdot, void *user)
{
    const motor *p = user;
    const double i = mbs_data_user_states(d)[p->adr], w = mbs_data_v(d)[p->vidx];
    (void)x;
    xdot[0] = voltage(p, mbs_data_time(d)) * i;
    xdot[1] = p->R * i * i;
    xdot[2] = p->b * w * w;
    return 0;
}

/* The motor p on the shaft of bl (and its meter when meter is set), compiled (bl
   destroyed); p->vidx and the addresses are set. */
static mbs_model *with_motor(mbs_builder *bl, motor *p, int meter, int *motor_id)
{
    const int id = mbs_add_user_states(bl, "motor", 1, motor_fn, p);
    assert_true(id >= 0);
    const int mid = meter ? mbs_add_user_states(bl, "meter", 3, meter_fn, p) : -1;
    if (meter) assert_true(mid >= 0);
    mbs_model *m = test_compile_ok(bl);
    p->vidx = mbs_model_joint_vadr(m, 0);
    p->adr = mbs_model_user_states_adr(m, id);
    p->meter_adr = meter ? mbs_model_user_states_adr(m, mid) : -1;
    if (motor_id) *motor_id = id;
    return m;
}

/* The shaft (l, J, b) with the motor p (and meter). */
static mbs_model *rig(motor *p, double l, double J, double b, int meter, int *motor_id)
{
    p->b = b;
    return with_motor(test_shaft(l, J, b), p, meter, motor_id);
}

/* Step d to time t_end with steps of dt; fails the test with the data's message. */
static void run_to(mbs_stepper *s, mbs_data *d, double t_end, double dt)
{
    while (mbs_data_time(d) < t_end - 0.5 * dt) {
        const int st = mbs_stepper_step(s, dt);
        if (st != MBS_OK) fail_msg("step at t = %g: %s", mbs_data_time(d), mbs_data_error(d));
    }
}

/* ---------------------------------------------------------------- steady states */

/* Flywheel (J, damping b) under a constant voltage u: w_ss = u k_t / (R b + k_e k_t),
   i_ss = u b / (R b + k_e k_t); reached to 1e-9 by RK4 (the steady state is an exact fixed
   point of the scheme) and by CVODE BDF. */
static void test_flywheel_steady_state(void **state)
{
    (void)state;
    motor p = default_motor();
    p.R = 1.0, p.L = 0.01, p.ke = p.kt = 0.05, p.u0 = 12.0;
    const double J = 0.01, b = 0.1;
    mbs_model *m = rig(&p, 0.0, J, b, 0, NULL);
    const double den = p.R * b + p.ke * p.kt;
    const double w_ss = p.u0 * p.kt / den, i_ss = p.u0 * b / den;
    const mbs_stepper_kind kinds[2] = {MBS_STEP_RK4, MBS_STEP_CVODE_BDF};
    for (int k = 0; k < 2; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_stepper *s = test_stepper_tight(d, kinds[k]);
        run_to(s, d, 4.0, 1e-3); /* slowest time constant ~0.1 s */
        const double w = mbs_data_v(d)[p.vidx], i = mbs_data_user_states(d)[p.adr];
        if (fabs(w - w_ss) > 1e-9 * w_ss || fabs(i - i_ss) > 1e-9 * i_ss)
            fail_msg("kind %d: w = %.15g (w_ss %.15g), i = %.15g (i_ss %.15g)", (int)kinds[k], w,
                     w_ss, i, i_ss);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* Pendulum (mass 1, centre of mass l below the axis, damping b) under a constant voltage:
   at rest i_ss = u / R and k_t i_ss = m g l sin(theta_ss). */
static void test_pendulum_steady_state(void **state)
{
    (void)state;
    motor p = default_motor();
    const double l = 0.5, b = 2.0;
    mbs_model *m = rig(&p, l, 1e-3, b, 0, NULL);
    const double i_ss = p.u0 / p.R, th_ss = asin(p.kt * i_ss / (G * l));
    const mbs_stepper_kind kinds[2] = {MBS_STEP_RK4, MBS_STEP_CVODE_BDF};
    for (int k = 0; k < 2; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_stepper *s = test_stepper_tight(d, kinds[k]);
        run_to(s, d, 10.0, 1e-3);
        /* theta about y: the centre of mass at (-l sin th, 0, -l cos th); gravity torque
           -m g l sin th, so the motor holds it at positive th */
        const double th = mbs_data_q(d)[0], i = mbs_data_user_states(d)[p.adr];
        if (fabs(th - th_ss) > 1e-9 || fabs(i - i_ss) > 1e-9 * i_ss)
            fail_msg("kind %d: theta = %.15g (%.15g), i = %.15g (%.15g)", (int)kinds[k], th,
                     th_ss, i, i_ss);
        assert_true(fabs(mbs_data_v(d)[0]) < 1e-9);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- energy balance */

/* E_in - (change of kinetic + potential + magnetic energy) - E_R - E_b, relative to E_in. */
static double energy_residual(mbs_data *d, const motor *p, double E0, double i0)
{
    double K = 0.0, V = 0.0;
    assert_int_equal(mbs_energy(d, &K, &V), MBS_OK);
    const double *x = mbs_data_user_states(d), i = x[p->adr];
    const double *e = x + p->meter_adr;
    const double res = e[0] - (K + V - E0) - 0.5 * p->L * (i * i - i0 * i0) - e[1] - e[2];
    return res / fabs(e[0]);
}

/* A pendulum swung by a sinusoidal voltage (through resonance and back): the electrical
   energy put in equals the mechanical energy gained plus the magnetic energy plus the
   resistive and viscous losses. RK4 (dt 1e-3): 1e-9 (measured 2.2e-10); CVODE (rtol 1e-11):
   1e-9 (2e-12 Adams, 3e-11 BDF); Euler (first order, dt 1e-4): 1e-4 (2.7e-5). */
static void test_energy_balance(void **state)
{
    (void)state;
    motor p = default_motor();
    p.u0 = 1.0, p.ua = 8.0, p.uw = 4.0;
    mbs_model *m = rig(&p, 0.5, 1e-3, 0.05, 1, NULL);
    const double tol[4] = {1e-4, 1e-9, 1e-9, 1e-9}, dt[4] = {1e-4, 1e-3, 1e-2, 1e-2};
    for (int k = 0; k < 4; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.3;
        mbs_data_user_states(d)[p.adr] = 0.2;
        double K0, V0;
        assert_int_equal(mbs_energy(d, &K0, &V0), MBS_OK);
        mbs_stepper *s = test_stepper_tight(d, KINDS[k]);
        run_to(s, d, 3.0, dt[k]);
        const double res = energy_residual(d, &p, K0 + V0, 0.2);
        const double *e = mbs_data_user_states(d) + p.meter_adr;
        print_message("kind %d: E_in %.6f J, R losses %.6f J, damping %.6f J, residual %.2e\n",
                      (int)KINDS[k], e[0], e[1], e[2], res);
        assert_true(e[0] > 1.0 && e[1] > 0.1 && e[2] > 0.01); /* every term matters */
        if (!(fabs(res) <= tol[k]))
            fail_msg("kind %d: energy residual %.3g > %g", (int)KINDS[k], res, tol[k]);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* The crank of the four-bar (closed loop, gravity, damping on the crank) driven by the
   motor, turning ten times in 2 s: the balance holds (the cut joint does no work) to the
   integrator's accuracy, the loop stays closed. RK4 with steps of 5e-4 and 2.5e-4 s (the
   residual falls by more than 2^4: 9.7e-8 -> 2.7e-9) and CVODE BDF (rtol 1e-11): 1e-8. */
typedef struct fourbar_ctx {
    motor *p;
    int motor_id, meter_id;
} fourbar_ctx;

static int fourbar_extra(mbs_builder *b, const lm_mech *mech, void *user)
{
    fourbar_ctx *c = user;
    (void)mech;
    c->motor_id = mbs_add_user_states(b, "crank motor", 1, motor_fn, c->p);
    c->meter_id = mbs_add_user_states(b, "meter", 3, meter_fn, c->p);
    return c->motor_id < 0 ? c->motor_id : c->meter_id < 0 ? c->meter_id : MBS_OK;
}

static void test_fourbar_driven(void **state)
{
    (void)state;
    motor p = default_motor();
    p.u0 = 24.0, p.ua = 4.0, p.uw = 3.0;
    lm_fourbar fb = lm_default_fourbar();
    fb.damping = 0.02;
    fourbar_ctx c = {&p, -1, -1};
    lm_mech mech;
    if (lm_build_fourbar_ex(&fb, fourbar_extra, &c, &mech) != MBS_OK) fail_msg("%s", mech.error);
    const mbs_model *m = mech.model;
    p.vidx = mbs_model_joint_vadr(m, mech.joint[0]);
    p.adr = mbs_model_user_states_adr(m, c.motor_id);
    p.meter_adr = mbs_model_user_states_adr(m, c.meter_id);
    p.b = fb.damping;
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_RK4, MBS_STEP_CVODE_BDF};
    const double dt[3] = {5e-4, 2.5e-4, 1e-3};
    double res_prev = 0.0;
    for (int k = 0; k < 3; ++k) {
        mbs_data *d = mbs_data_create(m);
        double th[3], w[3] = {0.0, 0.0, 0.0};
        th[0] = 0.5;
        assert_int_equal(lm_fourbar_position(&fb, th[0], 1, &th[1], &th[2]), 0);
        lm_fourbar_set(&fb, &mech, d, th, w);
        assert_int_equal(mbs_assemble(d), MBS_OK);
        double K0, V0;
        assert_int_equal(mbs_energy(d, &K0, &V0), MBS_OK);
        mbs_stepper *s = test_stepper_tight(d, kinds[k]);
        const double th0 = lm_q(d, &mech, mech.joint[0]);
        run_to(s, d, 2.0, dt[k]);
        const double res = energy_residual(d, &p, K0 + V0, 0.0);
        const double *e = mbs_data_user_states(d) + p.meter_adr;
        print_message("four-bar kind %d dt %g: crank turned %.3f rad, E_in %.4f J, residual "
                      "%.2e, closure %.2e\n", (int)kinds[k], dt[k],
                      lm_q(d, &mech, mech.joint[0]) - th0, e[0], res, lm_residual(&mech, d));
        assert_true(lm_q(d, &mech, mech.joint[0]) - th0 > 20.0 * PI); /* the crank turns */
        if (k == 0) res_prev = res;
        else if (!(fabs(res) <= 1e-8))
            fail_msg("kind %d: energy residual %.3g", (int)kinds[k], res);
        if (k == 1) assert_true(fabs(res_prev) > 16.0 * fabs(res)); /* 4th order at least */
        assert_true(lm_residual(&mech, d) < 1e-9);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    lm_mech_free(&mech);
}

/* ---------------------------------------------------------------- with coordinate rows */

/* theta(t) = A sin(w t) prescribed on the pendulum with the motor on it: the current follows
   the linear ODE L i' = u0 - R i - k_e A w cos(w t) in closed form, and the driving force is
   the tau the free coordinate would need, M theta'' + m g l sin theta + b theta' - k_t i. */
#define MOTION_A 0.4
#define MOTION_W 3.0
static int sine_motion(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    (void)user;
    pos[0] = MOTION_A * sin(MOTION_W * t);
    vel[0] = MOTION_A * MOTION_W * cos(MOTION_W * t);
    acc[0] = -MOTION_A * MOTION_W * MOTION_W * sin(MOTION_W * t);
    return 0;
}

/* i(t) of L i' = u - R i - k_e A w cos(w t), i(0) = i0. */
static double motion_current(const motor *p, double i0, double t)
{
    const double A = MOTION_A, w = MOTION_W, R = p->R, L = p->L;
    const double den = L * L * w * w + R * R;
    const double C = -p->ke * A * w * R / den, D = -p->ke * A * w * w * L / den;
    const double ip = p->u0 / R + C * cos(w * t) + D * sin(w * t);
    return ip + (i0 - p->u0 / R - C) * exp(-R * t / L);
}

static void test_prescribed_motion(void **state)
{
    (void)state;
    motor p = default_motor();
    const double l = 0.5, J = 1e-3, b = 0.3;
    mbs_builder *bl = test_shaft(l, J, b);
    assert_true(mbs_add_joint_motion(bl, 0, 0, sine_motion, NULL) >= 0);
    mbs_model *m = with_motor(bl, &p, 0, NULL);
    for (int k = 1; k < 4; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_stepper *s = test_stepper_tight(d, KINDS[k]);
        run_to(s, d, 1.0, 1e-3);
        const double t = mbs_data_time(d), i = mbs_data_user_states(d)[p.adr];
        const double i_ref = motion_current(&p, 0.0, t);
        if (fabs(i - i_ref) > 1e-9 * fabs(i_ref))
            fail_msg("kind %d: i = %.15g, closed form %.15g", (int)KINDS[k], i, i_ref);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        double pos, vel, acc;
        sine_motion(t, &pos, &vel, &acc, NULL);
        const double Ip = J + l * l;
        const double need = Ip * acc + G * l * sin(pos) + b * vel - p.kt * i;
        const double drive = mbs_data_driving_force(d, 0, 0);
        if (fabs(drive - need) > 1e-9 * (1.0 + fabs(need)))
            fail_msg("kind %d: driving force %.15g, expected %.15g", (int)KINDS[k], drive, need);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* A flywheel held by friction whose stiction exceeds the motor's stall torque: it stays
   locked and the current rises as i = u/R (1 - exp(-R t / L)). Every kind. */
static void test_locked_by_friction(void **state)
{
    (void)state;
    motor p = default_motor();
    p.u0 = 1.0; /* stall torque k_t u / R = 0.25 N m */
    mbs_builder *bl = test_shaft(0.0, 1e-3, 0.0);
    mbs_joint_friction_def fd = mbs_default_joint_friction_def();
    fd.joint = 0, fd.coulomb = 0.3, fd.stiction = 0.4;
    assert_true(mbs_add_joint_friction(bl, &fd) >= 0);
    mbs_model *m = with_motor(bl, &p, 0, NULL);
    for (int k = 0; k < 4; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_stepper *s = test_stepper_tight(d, KINDS[k]);
        run_to(s, d, 0.02, 1e-4); /* four electrical time constants */
        const double i = mbs_data_user_states(d)[p.adr];
        const double i_ref = p.u0 / p.R * (1.0 - exp(-p.R * mbs_data_time(d) / p.L));
        const double tol = KINDS[k] == MBS_STEP_EULER ? 2e-2 : 1e-8;
        if (fabs(i - i_ref) > tol * i_ref)
            fail_msg("kind %d: i = %.15g, closed form %.15g", (int)KINDS[k], i, i_ref);
        assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
        assert_true(mbs_data_v(d)[0] == 0.0);
        /* the friction holds the motor torque */
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        assert_true(fabs(mbs_data_friction_force(d, 0, 0) + p.kt * i) < 1e-12);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- events */

/* A saw-tooth: timer x' = 1, event x = 0.25 resets it to 0 (handler), on a swinging
   pendulum. After 0.9 s: 3 resets and x = 0.15, to the event tolerance. */
static int timer_fn(mbs_data *d, const double *x, double *xdot, void *user)
{
    (void)d, (void)x, (void)user;
    xdot[0] = 1.0;
    return 0;
}
static double timer_g(mbs_data *d, void *user)
{
    const int *adr = user;
    return mbs_data_user_states(d)[*adr] - 0.25;
}
static int timer_reset(mbs_data *d, void *user)
{
    const double zero = 0.0;
    (void)user;
    return mbs_data_set_user_states(d, 0, &zero);
}

static void test_events_on_user_states(void **state)
{
    (void)state;
    static int adr;
    mbs_builder *bl = test_shaft(0.4, 1e-3, 0.0);
    assert_int_equal(mbs_add_user_states(bl, "timer", 1, timer_fn, NULL), 0);
    assert_int_equal(mbs_add_event(bl, "reset", timer_g, timer_reset, &adr), 0);
    mbs_model *m = test_compile_ok(bl);
    adr = mbs_model_user_states_adr(m, 0);
    assert_int_equal(adr, 0);
    for (int k = 0; k < 4; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 1.0; /* swinging */
        mbs_stepper *s = test_stepper_tight(d, KINDS[k]);
        run_to(s, d, 0.9, 0.01);
        const double x = mbs_data_user_states(d)[0];
        print_message("kind %d: %ld resets, x(0.9) = %.15g\n", (int)KINDS[k],
                      mbs_data_event_count(d, 0), x);
        assert_int_equal(mbs_data_event_count(d, 0), 3);
        if (fabs(x - 0.15) > 1e-9) fail_msg("kind %d: x = %.15g, expected 0.15", (int)KINDS[k], x);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- determinism, failures */

/* Two data side by side: q, v and the user states bitwise equal after 300 steps. */
static void test_determinism(void **state)
{
    (void)state;
    motor p = default_motor();
    p.ua = 5.0, p.uw = 6.0;
    mbs_model *m = rig(&p, 0.5, 1e-3, 0.05, 1, NULL);
    const int nux = mbs_model_nuser_states(m);
    assert_int_equal(nux, 4);
    for (int k = 0; k < 4; ++k) {
        mbs_data *d[2];
        mbs_stepper *s[2];
        for (int r = 0; r < 2; ++r) {
            d[r] = mbs_data_create(m);
            mbs_data_q(d[r])[0] = 0.3;
            s[r] = test_stepper_tight(d[r], KINDS[k]);
        }
        for (int i = 0; i < 300; ++i)
            for (int r = 0; r < 2; ++r) assert_int_equal(mbs_stepper_step(s[r], 2e-3), MBS_OK);
        assert_memory_equal(mbs_data_q(d[0]), mbs_data_q(d[1]), sizeof(double));
        assert_memory_equal(mbs_data_v(d[0]), mbs_data_v(d[1]), sizeof(double));
        assert_memory_equal(mbs_data_user_states(d[0]), mbs_data_user_states(d[1]),
                            (size_t)nux * sizeof(double));
        assert_true(mbs_data_user_states(d[0])[0] != 0.0);
        for (int r = 0; r < 2; ++r) {
            mbs_stepper_destroy(s[r]);
            mbs_data_destroy(d[r]);
        }
    }
    mbs_model_destroy(m);
}

/* Snapshot of the data's t, q, v and user states. */
typedef struct snap {
    double t, q, v, x[4];
} snap;
static snap take_snap(mbs_data *d, int nux)
{
    snap s;
    memset(&s, 0, sizeof s);
    s.t = mbs_data_time(d), s.q = mbs_data_q(d)[0], s.v = mbs_data_v(d)[0];
    memcpy(s.x, mbs_data_user_states(d), (size_t)nux * sizeof(double));
    return s;
}

/* The motor's function fails from t = 0.05 on (fatal return, recoverable return, NaN): the
   step that meets it fails with MBS_ERR_CALLBACK or MBS_ERR_NONFINITE naming "motor" (CVODE
   Adams retries a recoverable failure until its corrector gives up: MBS_ERR_SOLVER, the
   message naming the last failure), and t, q, v and every user state are bitwise as before
   the call, for every kind. */
static void test_failed_step_restores(void **state)
{
    (void)state;
    const int rcs[3] = {-3, 2, 0};
    const int status[3] = {MBS_ERR_CALLBACK, MBS_ERR_CALLBACK, MBS_ERR_NONFINITE};
    for (int f = 0; f < 3; ++f)
        for (int k = 0; k < 4; ++k) {
            motor p = default_motor();
            p.ua = 3.0, p.uw = 5.0;
            mbs_model *m = rig(&p, 0.5, 1e-3, 0.05, 1, NULL);
            mbs_data *d = mbs_data_create(m);
            mbs_data_q(d)[0] = 0.2;
            mbs_stepper *s = test_stepper_tight(d, KINDS[k]);
            run_to(s, d, 0.04, 0.01);
            p.fail_after = 0.05, p.fail_rc = rcs[f];
            snap before = take_snap(d, 4);
            int st = MBS_OK;
            for (int i = 0; i < 5 && st == MBS_OK; ++i) {
                before = take_snap(d, 4);
                st = mbs_stepper_step(s, 0.01);
            }
            const int adams_retried = rcs[f] > 0 && KINDS[k] == MBS_STEP_CVODE_ADAMS;
            assert_int_equal(st, adams_retried ? MBS_ERR_SOLVER : status[f]);
            assert_non_null(strstr(mbs_data_error(d), "\"motor\""));
            const snap after = take_snap(d, 4);
            assert_memory_equal(&before, &after, sizeof before);
            /* the data goes on from there once the function recovers */
            p.fail_after = INFINITY;
            assert_int_equal(mbs_stepper_step(s, 0.01), MBS_OK);
            mbs_stepper_destroy(s);
            mbs_data_destroy(d);
            mbs_model_destroy(m);
        }
}

/* A stiff user state x' = -200 x beside a pendulum at rest in its equilibrium: the
   mechanism has no error, so the local-error estimate of RK4 (step 0.01: error ~ 3e-3
   relative) fails the step only because it compares the user states; the state is restored
   bitwise. With a small enough step it passes. */
static int decay_fn(mbs_data *d, const double *x, double *xdot, void *user)
{
    (void)d, (void)user;
    xdot[0] = -200.0 * x[0];
    return 0;
}

static void test_error_estimate(void **state)
{
    (void)state;
    mbs_builder *bl = test_shaft(0.5, 1e-3, 0.0);
    const int id = mbs_add_user_states(bl, "decay", 1, decay_fn, NULL);
    const double one = 1.0;
    assert_int_equal(mbs_set_user_states_start(bl, id, &one, 1), MBS_OK);
    mbs_model *m = test_compile_ok(bl);
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    def.err_rtol = 1e-6, def.err_atol = 1e-9;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    assert_non_null(s);
    const snap before = take_snap(d, 1);
    assert_int_equal(mbs_stepper_step(s, 0.01), MBS_ERR_SOLVER);
    assert_non_null(strstr(mbs_data_error(d), "local error"));
    const snap after = take_snap(d, 1);
    assert_memory_equal(&before, &after, sizeof before);
    assert_int_equal(mbs_stepper_step(s, 1e-4), MBS_OK);
    const double x = mbs_data_user_states(d)[0];
    assert_true(fabs(x - exp(-200.0 * 1e-4)) < 1e-10); /* RK4: (h k)^5 / 120 = 3e-11 */
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- queries */

/* Layout, start values, the derivative query (closed form, state untouched) and the forces
   in forward dynamics: qacc = (k_t i - b w) / J of the flywheel. */
static void test_queries(void **state)
{
    (void)state;
    motor p = default_motor();
    const double J = 0.02, b = 0.1;
    int id = -1;
    mbs_model *m = rig(&p, 0.0, J, b, 1, &id);
    assert_int_equal(id, 1); /* after the joint spring-damper */
    assert_int_equal(mbs_model_nuser_states(m), 4);
    assert_int_equal(mbs_model_user_states_adr(m, id), 0);
    assert_int_equal(mbs_model_user_states_adr(m, id + 1), 1);
    assert_int_equal(mbs_model_user_states_adr(m, 0), MBS_ERR_ARG); /* the damper */
    assert_int_equal(mbs_model_user_states_adr(m, 7), MBS_ERR_ARG);
    assert_int_equal(mbs_model_user_states_adr(NULL, id), MBS_ERR_ARG);
    assert_int_equal(mbs_model_nforce(m), 3);
    double x0[4] = {1, 1, 1, 1};
    assert_int_equal(mbs_model_user_states_start(m, x0), MBS_OK);
    for (int i = 0; i < 4; ++i) assert_true(x0[i] == 0.0);

    mbs_data *d = mbs_data_create(m);
    const double i0 = 1.5, w0 = 3.0;
    assert_int_equal(mbs_data_set_user_states(d, id, &i0), MBS_OK);
    mbs_data_v(d)[0] = w0;
    assert_int_equal(mbs_data_set_time(d, 0.25), MBS_OK);
    double xdot[4] = {0};
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double qacc = mbs_data_qacc(d)[0];
    assert_true(fabs(qacc - (p.kt * i0 - b * w0) / J) < 1e-12 * fabs(qacc));
    assert_int_equal(mbs_user_states_derivative(d, xdot), MBS_OK);
    const double di = (p.u0 - p.R * i0 - p.ke * w0) / p.L;
    assert_true(fabs(xdot[0] - di) < 1e-12 * fabs(di));
    assert_true(fabs(xdot[1] - p.u0 * i0) < 1e-12);
    assert_true(fabs(xdot[2] - p.R * i0 * i0) < 1e-12);
    assert_true(fabs(xdot[3] - b * w0 * w0) < 1e-12);
    assert_true(mbs_data_qacc(d)[0] == qacc); /* qacc as forward dynamics left it */
    assert_true(mbs_data_user_states(d)[0] == i0 && mbs_data_v(d)[0] == w0);
    /* inverse dynamics includes the motor torque: tau = J qacc + b w - k_t i */
    double tau = 0.0;
    assert_int_equal(mbs_inverse_dynamics(d, &qacc, &tau), MBS_OK);
    assert_true(fabs(tau) < 1e-12);
    /* the joint reaction about the axis: J qacc (what the motor and the damper transmit) */
    double F[3], T[3];
    assert_int_equal(mbs_joint_reaction(d, 0, F, T), MBS_OK);
    assert_true(fabs(T[1] - J * qacc) < 1e-12);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Start values given on the builder: the data starts there. A model of user states alone
   (no bodies): every stepper integrates them. */
static void test_start_values(void **state)
{
    (void)state;
    mbs_builder *bl = mbs_builder_create();
    const int e0 = mbs_add_user_states(bl, "a", 2, decay_fn, NULL);
    const int e1 = mbs_add_user_states(bl, NULL, 3, timer_fn, NULL);
    const double xa[2] = {0.5, -2.0}, xb[3] = {1.0, 2.0, 3.0};
    assert_int_equal(mbs_set_user_states_start(bl, e1, xb, 3), MBS_OK);
    assert_int_equal(mbs_set_user_states_start(bl, e0, xa, 2), MBS_OK);
    mbs_model *m = test_compile_ok(bl);
    assert_int_equal(mbs_model_user_states_adr(m, e1), 2);
    mbs_data *d = mbs_data_create(m);
    const double expect[5] = {0.5, -2.0, 1.0, 2.0, 3.0};
    assert_memory_equal(mbs_data_user_states(d), expect, sizeof expect);
    mbs_data_destroy(d);
    /* no mechanism at all: the steppers integrate the states alone (x0' = -200 x0, x2' = 1;
       the functions leave the other derivatives at their zero) */
    for (int k = 0; k < 4; ++k) {
        d = mbs_data_create(m);
        mbs_stepper *s = test_stepper_tight(d, KINDS[k]);
        run_to(s, d, 0.01, KINDS[k] == MBS_STEP_EULER ? 1e-5 : 1e-4);
        const double *x = mbs_data_user_states(d), t = mbs_data_time(d);
        const double tol = KINDS[k] == MBS_STEP_EULER ? 1e-2 : 1e-8; /* RK4: 2.7e-9 */
        const double x0 = 0.5 * exp(-200.0 * t);
        if (fabs(x[0] - x0) > tol * x0)
            fail_msg("kind %d: x0 = %.15g, exact %.15g", (int)KINDS[k], x[0], x0);
        assert_true(x[1] == -2.0 && x[3] == 2.0 && x[4] == 3.0);
        assert_true(fabs(x[2] - (1.0 + t)) < 1e-12);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* A thrust x[0] along world z on the body's centre of mass (x constant). */
static int thrust_fn(mbs_data *d, const double *x, double *xdot, void *user)
{
    const double f[3] = {0.0, 0.0, x[0]}, com[3] = {0.0, 0.0, -0.5};
    (void)xdot, (void)user;
    return mbs_apply_body_wrench(d, 1, f, NULL, com);
}

/* The joint reaction follows the user states it depends on: another thrust, another
   reaction (no stale cache: q, v, qacc, tau unchanged); the same thrust again, bitwise the
   same reaction; after forward dynamics the reaction force balances gravity, thrust and the
   body's acceleration. */
static void test_reaction_follows_states(void **state)
{
    (void)state;
    mbs_builder *bl = test_shaft(0.5, 1e-3, 0.0);
    const int id = mbs_add_user_states(bl, "thrust", 1, thrust_fn, NULL);
    mbs_model *m = test_compile_ok(bl);
    mbs_data *d = mbs_data_create(m);
    const double x0 = 3.0, x1 = 7.0;
    assert_int_equal(mbs_data_set_user_states(d, id, &x0), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double F0[3], F1[3], F2[3], T[3];
    assert_int_equal(mbs_joint_reaction(d, 0, F0, T), MBS_OK);
    assert_true(fabs(F0[2] - (G - x0)) < 1e-12); /* at rest, hanging: the axle carries the rest */
    assert_int_equal(mbs_data_set_user_states(d, id, &x1), MBS_OK);
    assert_int_equal(mbs_joint_reaction(d, 0, F1, T), MBS_OK);
    assert_true(fabs(F1[2] - (G - x1)) < 1e-12);
    assert_int_equal(mbs_data_set_user_states(d, id, &x0), MBS_OK);
    assert_int_equal(mbs_joint_reaction(d, 0, F2, T), MBS_OK);
    assert_memory_equal(F0, F2, sizeof F0);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- bad input */

/* Calls refused inside the function (it must not change the state or evaluate). */
static int nested_status[3];
static int nested_fn(mbs_data *d, const double *x, double *xdot, void *user)
{
    double buf[1] = {0.0};
    (void)user;
    xdot[0] = -x[0];
    nested_status[0] = mbs_data_set_user_states(d, 0, buf);
    nested_status[1] = mbs_user_states_derivative(d, buf);
    nested_status[2] = mbs_forward_dynamics(d);
    return 0;
}

/* The builder calls: NULL function, n out of range, start values NaN, too large, of the
   wrong count, for another element; nothing is added or changed. Returns the model with a
   user-state element (id 1, nested_fn) after a joint spring. */
static mbs_model *bad_builder_input(void)
{
    mbs_builder *bl = mbs_builder_create();
    assert_int_equal(mbs_add_user_states(NULL, "x", 1, decay_fn, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_add_user_states(bl, "x", 1, NULL, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(bl), "NULL"));
    assert_int_equal(mbs_add_user_states(bl, "x", 0, decay_fn, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_add_user_states(bl, "x", -2, decay_fn, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_add_user_states(bl, "x", 2000000, decay_fn, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(bl), "\"x\""));
    mbs_body_def bd = mbs_default_body_def();
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = mbs_add_body(bl, &bd);
    assert_int_equal(mbs_add_joint(bl, &jd), 0);
    assert_int_equal(mbs_add_joint_spring_damper(bl, 0, 0, 1.0, 0.0, 0.0), 0);
    const int id = mbs_add_user_states(bl, "x", 1, nested_fn, NULL);
    assert_int_equal(id, 1); /* the rejected calls added nothing */
    const double nan1 = NAN, two[2] = {1.0, 2.0}, big = 1e300;
    assert_int_equal(mbs_set_user_states_start(bl, id, &nan1, 1), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(bl), "x0[0]"));
    assert_int_equal(mbs_set_user_states_start(bl, id, &big, 1), MBS_ERR_ARG);
    assert_int_equal(mbs_set_user_states_start(bl, id, two, 2), MBS_ERR_ARG);
    assert_int_equal(mbs_set_user_states_start(bl, id, NULL, 1), MBS_ERR_ARG);
    assert_int_equal(mbs_set_user_states_start(bl, 0, two, 1), MBS_ERR_ARG); /* a spring */
    assert_int_equal(mbs_set_user_states_start(bl, 5, two, 1), MBS_ERR_ARG);
    assert_int_equal(mbs_set_user_states_start(NULL, id, two, 1), MBS_ERR_ARG);
    mbs_builder_clear_error(bl); /* the failures above were handled */
    mbs_model *m = test_compile_ok(bl);
    assert_int_equal(mbs_model_nuser_states(m), 1);
    double x0 = 1.0;
    assert_int_equal(mbs_model_user_states_start(m, &x0), MBS_OK);
    assert_true(x0 == 0.0); /* no rejected start value was kept */
    return m;
}

/* Every bad input of the builder, model and data calls, nested calls, a non-finite state,
   modes with too little room for the user states. */
static void test_bad_input(void **state)
{
    (void)state;
    mbs_model *m = bad_builder_input();
    const int id = 1;
    const double nan1 = NAN, two[2] = {1.0, 2.0};
    assert_true(mbs_model_nuser_states(NULL) == MBS_ERR_ARG);
    assert_int_equal(mbs_model_user_states_start(m, NULL), MBS_ERR_ARG);
    assert_null(mbs_data_user_states(NULL));
    mbs_data *d = mbs_data_create(m);
    mbs_data_user_states(d)[0] = 0.7;
    assert_int_equal(mbs_data_set_user_states(d, id, &nan1), MBS_ERR_ARG);
    assert_int_equal(mbs_data_set_user_states(d, 0, two), MBS_ERR_ARG);
    assert_int_equal(mbs_data_set_user_states(d, id, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_data_set_user_states(NULL, id, two), MBS_ERR_ARG);
    assert_true(mbs_data_user_states(d)[0] == 0.7); /* unchanged */
    double xdot = 0.0;
    assert_int_equal(mbs_user_states_derivative(d, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_user_states_derivative(NULL, &xdot), MBS_ERR_ARG);

    /* nested calls from inside the function: refused, the evaluation goes on */
    assert_int_equal(mbs_user_states_derivative(d, &xdot), MBS_OK);
    assert_true(xdot == -0.7);
    for (int i = 0; i < 3; ++i) assert_int_equal(nested_status[i], MBS_ERR_STATE);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_non_null(strstr(mbs_data_error(d),
                           "not allowed inside the callback of user states \"x\""));
    assert_true(mbs_data_user_states(d)[0] == 0.7);

    /* a non-finite state: dynamics, the query and a step refuse it, naming the element */
    mbs_data_user_states(d)[0] = NAN;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "user states \"x\""));
    assert_int_equal(mbs_user_states_derivative(d, &xdot), MBS_ERR_NONFINITE);
    assert_true(xdot == -0.7);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "x[0] of user states \"x\""));
    assert_true(mbs_data_time(d) == 0.0);
    mbs_stepper_destroy(s);

    /* linearisation includes the state (x = (dq, dv, x_user)): modes need room for 3;
       sensitivity runs take user states */
    mbs_data_user_states(d)[0] = 0.7;
    double A[9], re[3], im[3];
    int nx = 0, n = 2;
    assert_int_equal(mbs_linearize(d, A, NULL, &nx), MBS_OK);
    assert_int_equal(nx, 3);
    assert_true(fabs(A[8] + 1.0) < 1e-9); /* xdot = -x */
    assert_int_equal(mbs_modes(d, re, im, &n), MBS_ERR_ARG);
    assert_true(n == 2 && mbs_data_user_states(d)[0] == 0.7);
    const mbs_param mass = {MBS_PARAM_MASS, 1, 0};
    const mbs_sens_def sdef = mbs_default_sens_def();
    mbs_sens *sens = NULL;
    assert_int_equal(mbs_sens_create(m, d, &mass, 1, &sdef, &sens), MBS_OK);
    mbs_sens_destroy(sens);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The derivative function returning NaN or a negative value: forward dynamics and the query
   fail with the status and message, qacc and the output as they were. */
static void test_bad_derivative(void **state)
{
    (void)state;
    motor p = default_motor();
    mbs_model *m = rig(&p, 0.5, 1e-3, 0.0, 0, NULL);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double qacc = mbs_data_qacc(d)[0];
    mbs_data_set_time(d, 1.0);
    mbs_data_user_states(d)[0] = 3.0; /* a torque: qacc would change */
    p.fail_after = 0.5;
    for (int f = 0; f < 2; ++f) {
        p.fail_rc = f == 0 ? 0 : -1;
        const int want = f == 0 ? MBS_ERR_NONFINITE : MBS_ERR_CALLBACK;
        assert_int_equal(mbs_forward_dynamics(d), want);
        assert_non_null(strstr(mbs_data_error(d), "user states \"motor\""));
        assert_true(mbs_data_qacc(d)[0] == qacc);
        double xdot = 42.0;
        assert_int_equal(mbs_user_states_derivative(d, &xdot), want);
        assert_true(xdot == 42.0);
        assert_true(mbs_data_user_states(d)[0] == 3.0);
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flywheel_steady_state),
        cmocka_unit_test(test_pendulum_steady_state),
        cmocka_unit_test(test_energy_balance),
        cmocka_unit_test(test_fourbar_driven),
        cmocka_unit_test(test_prescribed_motion),
        cmocka_unit_test(test_locked_by_friction),
        cmocka_unit_test(test_events_on_user_states),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_failed_step_restores),
        cmocka_unit_test(test_error_estimate),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_start_values),
        cmocka_unit_test(test_reaction_follows_states),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_bad_derivative),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
