/* Steppers: fixed-step (semi-implicit Euler, RK4) and CVODE (Adams, BDF).
 * Analytic checks: pendulum period (elliptic integral), harmonic oscillator, Kepler orbits,
 * constant-input motions; conservation: energy, angular momentum; order of convergence;
 * quaternion vs Cardan free bodies through the Cardan singularity (re-base events); no heap
 * allocation in fixed-step stepping; bitwise determinism; failed steps leave the data
 * untouched; every bad input. Measured numbers are printed with print_message. */
#include "common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "count_alloc.h"

/* ------------------------------------------------------------ helpers */
static const double PI = 3.14159265358979323846;

/* Compile b (destroyed afterwards), failing the test with the builder's message. */
static mbs_model *compile_ok(mbs_builder *b)
{
    mbs_model *m = NULL;
    int st = mbs_compile(b, &m);
    if (st != MBS_OK) print_error("compile: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    assert_int_equal(st, MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Diagonal inertia. */
static void diag_inertia(double I[9], double a, double b, double c)
{
    memset(I, 0, 9 * sizeof(double));
    I[0] = a;
    I[4] = b;
    I[8] = c;
}

/* Stepper of a kind with tolerances (CVODE kinds) or fail. */
static mbs_stepper *stepper_ok(mbs_data *d, mbs_stepper_kind kind, double rtol, double atol)
{
    mbs_stepper_def def = mbs_default_stepper_def(kind);
    def.rtol = rtol;
    def.atol = atol;
    def.max_internal_steps = 200000;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    if (!s) print_error("stepper_create: %s\n", mbs_data_error(d));
    assert_non_null(s);
    return s;
}

/* n steps of dt, each must succeed. */
static void step_n(mbs_stepper *s, mbs_data *d, int n, double dt)
{
    for (int i = 0; i < n; ++i) {
        int st = mbs_stepper_step(s, dt);
        if (st != MBS_OK) {
            print_error("step %d at t = %.17g: %s: %s\n", i, mbs_data_time(d),
                        mbs_status_name(st), mbs_data_error(d));
            fail();
        }
    }
}

/* Total energy of the data. */
static double total_energy(mbs_data *d, double *scale)
{
    double ke = 0, pe = 0;
    assert_int_equal(mbs_energy(d, &ke, &pe), MBS_OK);
    if (scale) *scale = fabs(ke) + fabs(pe);
    return ke + pe;
}

/* Complete elliptic integral of the first kind K(k) by the arithmetic-geometric mean. */
static double ellip_k(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 60 && fabs(a - b) > 1e-16 * a; ++i) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return PI / (2.0 * a);
}

/* Max |A - B| over 9 entries. */
static double mat_diff(const double A[9], const double B[9])
{
    double e = 0;
    for (int i = 0; i < 9; ++i) e = fmax(e, fabs(A[i] - B[i]));
    return e;
}

/* ------------------------------------------------------------ models */
/* Physical pendulum: one body, com at distance l below a revolute pivot about x. */
static mbs_model *pendulum_model(double l, double ic)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 1.0;
    bd.com[2] = -l;
    diag_inertia(bd.inertia, ic, ic, ic);
    int body = mbs_add_body(b, &bd);
    assert_true(body >= 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD;
    jd.child = body;
    jd.axis[0] = 1.0;
    jd.axis[1] = 0.0;
    jd.axis[2] = 0.0;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    return compile_ok(b);
}

/* Control of the test force callback. */
typedef struct cb_ctl {
    long calls;
    long fail_at; /* return `ret` on this call number (0: never) */
    int ret;
    long nan_at;  /* write NaN into tau[0] on this call number (0: never) */
} cb_ctl;

/* Test force law: no force; fails or poisons tau on the call numbers set in ctl. */
static int ctl_callback(mbs_data *d, void *user)
{
    cb_ctl *c = user;
    c->calls++;
    if (c->fail_at > 0 && c->calls == c->fail_at) return c->ret;
    if (c->nan_at > 0 && c->calls == c->nan_at) mbs_data_tau(d)[0] = NAN;
    return 0;
}

/* Chain of n bodies on revolute joints (axes x, y, x, ...) under gravity; with ctl a force
   callback is added. */
static mbs_model *chain_model(int n, cb_ctl *ctl)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    for (int i = 1; i <= n; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0;
        bd.com[2] = -0.25;
        diag_inertia(bd.inertia, 0.01, 0.012, 0.003);
        assert_int_equal(mbs_add_body(b, &bd), i);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i - 1;
        jd.child = i;
        if (i > 1) jd.frame_parent.pos[2] = -0.5;
        jd.axis[0] = (i % 2) ? 1.0 : 0.0;
        jd.axis[1] = (i % 2) ? 0.0 : 1.0;
        jd.axis[2] = 0.0;
        assert_int_equal(mbs_add_joint(b, &jd), i - 1);
    }
    if (ctl) assert_true(mbs_add_force_callback(b, "ctl", ctl_callback, ctl) >= 0);
    return compile_ok(b);
}

/* Initial state of the 3-chain. */
static void chain_init(mbs_data *d)
{
    static const double q[3] = {0.7, -0.4, 1.1}, v[3] = {0.3, -0.2, 0.5};
    memcpy(mbs_data_q(d), q, sizeof q);
    memcpy(mbs_data_v(d), v, sizeof v);
}

/* One free body (automatic free root joint), no gravity, asymmetric inertia. */
static mbs_model *free_body_model(mbs_rotation rot, double mass, const double I[3])
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    assert_int_equal(mbs_builder_set_root_rotation(b, rot), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = mass;
    diag_inertia(bd.inertia, I[0], I[1], I[2]);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    return compile_ok(b);
}

/* ------------------------------------------------------------ tests */
/* Default def; create with NULL data/def, bad kind, rtol, atol, max_step,
   max_internal_steps: NULL with a message naming the field; NULL stepper. */
static void test_bad_inputs(void **state)
{
    (void)state;
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_CVODE_BDF);
    assert_int_equal(def.kind, MBS_STEP_CVODE_BDF);
    assert_true(def.rtol == 1e-6 && def.atol == 1e-8 && def.max_step == 0.0);
    assert_int_equal(def.max_internal_steps, 10000);

    mbs_model *m = pendulum_model(1.0, 1e-3);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    assert_null(mbs_stepper_create(NULL, &def));
    assert_null(mbs_stepper_create(d, NULL));
    assert_true(strlen(mbs_data_error(d)) > 0);

    mbs_stepper_def bad[7];
    for (int i = 0; i < 7; ++i) bad[i] = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    bad[0].kind = (mbs_stepper_kind)7;
    bad[1].rtol = 0.0;
    bad[2].rtol = NAN;
    bad[3].atol = -1.0;
    bad[4].max_step = -1.0;
    bad[5].max_internal_steps = 0;
    bad[6].kind = (mbs_stepper_kind)-1;
    static const char *const field[7] = {"kind", "rtol", "rtol", "atol", "max_step",
                                         "max_internal_steps", "kind"};
    for (int i = 0; i < 7; ++i) {
        assert_null(mbs_stepper_create(d, &bad[i]));
        assert_non_null(strstr(mbs_data_error(d), field[i]));
    }

    assert_int_equal(mbs_stepper_step(NULL, 0.1), MBS_ERR_ARG);
    mbs_stepper_destroy(NULL);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Bad dt (NaN, 0, < 0, inf), dt below the time resolution, too few internal steps
   (CVODE: CV_TOO_MUCH_WORK; fixed step: too many substeps): status, message, data kept. */
static void test_bad_step(void **state)
{
    (void)state;
    mbs_model *m = pendulum_model(1.0, 1e-3);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    mbs_data_q(d)[0] = 0.5;
    mbs_stepper_def tight = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    tight.max_internal_steps = 3;
    mbs_stepper *kinds[2] = {stepper_ok(d, MBS_STEP_RK4, 1e-6, 1e-8),
                             mbs_stepper_create(d, &tight)};
    assert_non_null(kinds[1]);
    const double bad_dt[4] = {NAN, 0.0, -0.1, INFINITY};
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 4; ++i) {
            double t0 = mbs_data_time(d), q0 = mbs_data_q(d)[0];
            assert_int_equal(mbs_stepper_step(kinds[k], bad_dt[i]), MBS_ERR_ARG);
            assert_true(strstr(mbs_data_error(d), "dt") != NULL);
            assert_true(mbs_data_time(d) == t0 && mbs_data_q(d)[0] == q0);
        }
    /* 3 internal steps cannot cover 10 s of pendulum motion at rtol 1e-6. */
    double t0 = mbs_data_time(d), q0 = mbs_data_q(d)[0], v0 = mbs_data_v(d)[0];
    int st = mbs_stepper_step(kinds[1], 10.0);
    assert_int_equal(st, MBS_ERR_SOLVER);
    assert_non_null(strstr(mbs_data_error(d), "CV_TOO_MUCH_WORK"));
    print_message("max_internal_steps = 3: %s\n", mbs_data_error(d));
    assert_true(mbs_data_time(d) == t0 && mbs_data_q(d)[0] == q0 && mbs_data_v(d)[0] == v0);
    /* dt below the resolution of t */
    mbs_data_set_time(d, 1e20);
    assert_int_equal(mbs_stepper_step(kinds[0], 1e-3), MBS_ERR_ARG);
    assert_true(mbs_data_time(d) == 1e20);
    /* t + dt beyond the doubles: refused, t kept (Euler and RK4 returned MBS_OK, t = +inf) */
    mbs_stepper *euler = stepper_ok(d, MBS_STEP_EULER, 1e-6, 1e-8);
    for (int k = 0; k < 2; ++k) {
        mbs_data_set_time(d, DBL_MAX); /* q + dt v stays finite: only the time overflows */
        assert_int_equal(mbs_stepper_step(k ? euler : kinds[0], 1e293), MBS_ERR_NONFINITE);
        assert_non_null(strstr(mbs_data_error(d), "not finite"));
        assert_true(mbs_data_time(d) == DBL_MAX && mbs_data_q(d)[0] == q0);
    }
    mbs_stepper_destroy(euler);
    /* RK4 with max_step 1e-6 and at most 3 substeps cannot take dt = 1 */
    mbs_stepper_def fixed = mbs_default_stepper_def(MBS_STEP_RK4);
    fixed.max_step = 1e-6;
    fixed.max_internal_steps = 3;
    mbs_stepper *sub = mbs_stepper_create(d, &fixed);
    assert_non_null(sub);
    mbs_data_set_time(d, 2.0);
    assert_int_equal(mbs_stepper_step(sub, 1.0), MBS_ERR_SOLVER);
    assert_non_null(strstr(mbs_data_error(d), "max_internal_steps"));
    assert_true(mbs_data_time(d) == 2.0 && mbs_data_q(d)[0] == q0);
    mbs_stepper_destroy(sub);
    mbs_stepper_destroy(kinds[0]);
    mbs_stepper_destroy(kinds[1]);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* CVODE honours max_step: at rtol 1e-3, 0.1 s of pendulum motion takes fewer than 50
   internal steps, but not with steps of at most 1e-3 (MBS_ERR_SOLVER, data kept). */
static void test_cvode_max_step(void **state)
{
    (void)state;
    mbs_model *m = pendulum_model(1.0, 1e-3);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.5;
    mbs_stepper_def lim = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    lim.rtol = 1e-3;
    lim.max_internal_steps = 50;
    mbs_stepper *free_run = mbs_stepper_create(d, &lim);
    lim.max_step = 1e-3;
    mbs_stepper *capped = mbs_stepper_create(d, &lim);
    assert_non_null(free_run);
    assert_non_null(capped);
    assert_int_equal(mbs_stepper_step(capped, 0.1), MBS_ERR_SOLVER);
    assert_true(mbs_data_time(d) == 0.0 && mbs_data_q(d)[0] == 0.5 && mbs_data_v(d)[0] == 0.0);
    assert_int_equal(mbs_stepper_step(free_run, 0.1), MBS_OK);
    mbs_stepper_destroy(free_run);
    mbs_stepper_destroy(capped);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Fixed-step kinds split a call into ceil(dt / max_step) equal steps: 10 RK4 calls of
   0.04 with max_step 0.01 equal 40 calls of 0.01 bit for bit (autonomous system), and the
   time is advanced by exactly dt per call. */
static void test_substeps(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[2] = {MBS_STEP_EULER, MBS_STEP_RK4};
    mbs_model *m = chain_model(3, NULL);
    for (int k = 0; k < 2; ++k) {
        mbs_data *d1 = mbs_data_create(m), *d2 = mbs_data_create(m);
        chain_init(d1);
        chain_init(d2);
        mbs_stepper_def def = mbs_default_stepper_def(kinds[k]);
        def.max_step = 0.01;
        mbs_stepper *s1 = mbs_stepper_create(d1, &def);
        mbs_stepper *s2 = stepper_ok(d2, kinds[k], 1e-6, 1e-8);
        assert_non_null(s1);
        count_begin();
        step_n(s1, d1, 10, 0.04);
        step_n(s2, d2, 40, 0.01);
        assert_int_equal(count_end(), 0);
        assert_memory_equal(mbs_data_q(d1), mbs_data_q(d2), 3 * sizeof(double));
        assert_memory_equal(mbs_data_v(d1), mbs_data_v(d2), 3 * sizeof(double));
        assert_true(fabs(mbs_data_time(d1) - 0.4) < 1e-15);
        assert_true(mbs_data_q(d1)[0] != 0.7); /* it moved */
        mbs_stepper_destroy(s1);
        mbs_stepper_destroy(s2);
        mbs_data_destroy(d1);
        mbs_data_destroy(d2);
    }
    mbs_model_destroy(m);
}

/* Period of a physical pendulum vs T = 4 sqrt(l_eq/g) K(sin(theta0/2)), CVODE rtol 1e-12:
   relative error <= 1e-7 for 10, 90 and 170 degrees, Adams and BDF. */
static void test_pendulum_period(void **state)
{
    (void)state;
    const double l = 1.0, ic = 1e-3, g = 9.81;
    const double leq = (ic + l * l) / l; /* (I_c + m l^2) / (m l), m = 1 */
    const double amp_deg[3] = {10.0, 90.0, 170.0};
    const mbs_stepper_kind kinds[2] = {MBS_STEP_CVODE_ADAMS, MBS_STEP_CVODE_BDF};
    mbs_model *m = pendulum_model(l, ic);
    for (int k = 0; k < 2; ++k)
        for (int a = 0; a < 3; ++a) {
            double th0 = amp_deg[a] * PI / 180.0;
            double T = 4.0 * sqrt(leq / g) * ellip_k(sin(0.5 * th0));
            mbs_data *d = mbs_data_create(m);
            assert_non_null(d);
            mbs_data_q(d)[0] = th0;
            mbs_stepper *s = stepper_ok(d, kinds[k], 1e-12, 1e-14);
            step_n(s, d, 200, T / 200.0);
            /* near t = T: theta' = acc (t - T_measured), acc = -(g/leq) sin(theta0) */
            double acc = -(g / leq) * sin(th0);
            double Tm = mbs_data_time(d) - mbs_data_v(d)[0] / acc;
            double err = fabs(Tm - T) / T;
            print_message("pendulum %s %5.1f deg: T = %.12f s, measured %.12f, rel err %.2e, "
                          "|theta(T) - theta0| = %.2e\n", kinds[k] == MBS_STEP_CVODE_BDF ?
                          "BDF  " : "Adams", amp_deg[a], T, Tm, err,
                          fabs(mbs_data_q(d)[0] - th0));
            assert_true(err <= 1e-7);
            assert_true(fabs(mbs_data_q(d)[0] - th0) <= 1e-7);
            mbs_stepper_destroy(s);
            mbs_data_destroy(d);
        }
    mbs_model_destroy(m);
}

/* Max relative energy error over `steps` steps of dt: |E - E0| / (|KE0| + |PE0|). */
static double energy_drift(mbs_stepper *s, mbs_data *d, int steps, double dt)
{
    double scale, e0 = total_energy(d, &scale), worst = 0.0;
    for (int i = 0; i < steps; ++i) {
        step_n(s, d, 1, dt);
        worst = fmax(worst, fabs(total_energy(d, NULL) - e0) / scale);
    }
    return worst;
}

/* World angular momentum about the com of a free body (origin at the com): R I w_body. */
static void free_body_momentum(mbs_data *d, const double I[3], double L[3])
{
    const mbs_model *m = mbs_data_model(d);
    const double *w = mbs_data_v(d) + mbs_model_joint_vadr(m, 0) + 3;
    double pos[3], R[9], Iw[3] = {I[0] * w[0], I[1] * w[1], I[2] * w[2]};
    assert_int_equal(mbs_body_pose(d, 1, pos, R), MBS_OK);
    for (int i = 0; i < 3; ++i) L[i] = R[3 * i] * Iw[0] + R[3 * i + 1] * Iw[1] + R[3 * i + 2] * Iw[2];
}

/* Energy conservation tolerance of the CVODE runs (rtol 1e-11, 10 s). */
#define ENERGY_TOL 1e-8

/* Triple pendulum, CVODE Adams: max |E - E0| / (|KE0| + |PE0|) <= 1e-8 over 10 s. */
static void test_energy_chain(void **state)
{
    (void)state;
    const double tol = ENERGY_TOL;
    mbs_model *m = chain_model(3, NULL);
    mbs_data *d = mbs_data_create(m);
    chain_init(d);
    mbs_stepper *s = stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-11, 1e-13);
    double e = energy_drift(s, d, 1000, 0.01);
    print_message("triple pendulum, CVODE Adams, 10 s: max rel energy error %.2e\n", e);
    assert_true(e <= tol);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Torque-free tumbling body, CVODE BDF: energy and world angular momentum conserved to
   1e-8 relative over 10 s. */
static void test_energy_tumbling(void **state)
{
    (void)state;
    const double tol = ENERGY_TOL;
    const double I[3] = {0.12, 0.2, 0.3};
    mbs_model *m = free_body_model(MBS_ROT_QUATERNION, 2.0, I);
    mbs_data *d = mbs_data_create(m);
    double *v = mbs_data_v(d) + mbs_model_joint_vadr(m, 0);
    const double v0[6] = {0.1, -0.2, 0.3, 1.0, 3.0, -0.5};
    memcpy(v, v0, sizeof v0);
    double L0[3], L[3];
    free_body_momentum(d, I, L0);
    mbs_stepper *s = stepper_ok(d, MBS_STEP_CVODE_BDF, 1e-11, 1e-13);
    double e = energy_drift(s, d, 1000, 0.01);
    free_body_momentum(d, I, L);
    double dl = 0.0;
    for (int i = 0; i < 3; ++i) dl = fmax(dl, fabs(L[i] - L0[i]));
    dl /= sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
    print_message("tumbling body, CVODE BDF, 10 s: rel energy error %.2e, rel |dL| %.2e\n", e,
                  dl);
    assert_true(e <= tol);
    assert_true(dl <= tol);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Free body on a spring to the world origin under gravity, CVODE BDF: energy (kinetic,
   gravity, spring) conserved to 1e-8 relative over 10 s. */
static void test_energy_spring(void **state)
{
    (void)state;
    const double tol = ENERGY_TOL;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = MBS_WORLD;
    sd.body_b = 1;
    sd.stiffness = 50.0;
    sd.rest_length = 1.0;
    assert_true(mbs_add_spring_damper(b, &sd) >= 0);
    mbs_model *m = compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, 0);
    q[0] = 0.8;
    q[2] = -1.2;
    double *v = mbs_data_v(d) + mbs_model_joint_vadr(m, 0);
    v[1] = 1.0;
    v[2] = 0.3;
    v[3] = 0.5;
    v[5] = 0.2;
    mbs_stepper *s = stepper_ok(d, MBS_STEP_CVODE_BDF, 1e-11, 1e-13);
    double e = energy_drift(s, d, 1000, 0.01);
    print_message("body on a spring, CVODE BDF, 10 s: max rel energy error %.2e\n", e);
    assert_true(e <= tol);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Max relative energy error of the 3-chain with RK4 over t_end. */
static double chain_rk4_energy_error(const mbs_model *m, double dt, double t_end)
{
    mbs_data *d = mbs_data_create(m);
    chain_init(d);
    mbs_stepper *s = stepper_ok(d, MBS_STEP_RK4, 1e-6, 1e-8);
    double e = energy_drift(s, d, (int)lround(t_end / dt), dt);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    return e;
}

/* Body rotation of the tumbling body after t_end with a stepper kind. */
static void tumble_rotation(const mbs_model *m, mbs_stepper_kind kind, double dt, double t_end,
                            double R[9])
{
    mbs_data *d = mbs_data_create(m);
    const double v0[6] = {0.0, 0.0, 0.0, 1.0, 3.0, -0.5};
    memcpy(mbs_data_v(d) + mbs_model_joint_vadr(m, 0), v0, sizeof v0);
    mbs_stepper *s = stepper_ok(d, kind, 1e-13, 1e-15);
    step_n(s, d, (int)lround(t_end / dt), dt);
    double pos[3];
    assert_int_equal(mbs_body_pose(d, 1, pos, R), MBS_OK);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
}

/* RK4 is 4th order: energy error of a triple pendulum and orientation error of a tumbling
   body (on the rotation group) shrink by 16 (in [12, 20]) when dt halves. */
static void test_rk4_order(void **state)
{
    (void)state;
    mbs_model *m = chain_model(3, NULL);
    double e1 = chain_rk4_energy_error(m, 0.01, 2.0);
    double e2 = chain_rk4_energy_error(m, 0.005, 2.0);
    print_message("RK4 triple pendulum energy error: dt 0.01 %.3e, dt 0.005 %.3e, ratio %.2f\n",
                  e1, e2, e1 / e2);
    assert_true(e1 / e2 >= 12.0 && e1 / e2 <= 20.0);
    mbs_model_destroy(m);

    const double I[3] = {0.12, 0.2, 0.3};
    m = free_body_model(MBS_ROT_QUATERNION, 2.0, I);
    double Rref[9], R1[9], R2[9];
    tumble_rotation(m, MBS_STEP_CVODE_ADAMS, 0.02, 2.0, Rref);
    tumble_rotation(m, MBS_STEP_RK4, 0.02, 2.0, R1);
    tumble_rotation(m, MBS_STEP_RK4, 0.01, 2.0, R2);
    double r1 = mat_diff(R1, Rref), r2 = mat_diff(R2, Rref);
    print_message("RK4 tumbling body rotation error: dt 0.02 %.3e, dt 0.01 %.3e, ratio %.2f\n",
                  r1, r2, r1 / r2);
    assert_true(r1 / r2 >= 12.0 && r1 / r2 <= 20.0);
    mbs_model_destroy(m);
}

/* Mass on a prismatic joint with a joint spring (omega = 2), no gravity. */
static mbs_model *oscillator_model(double mass, double k)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = mass;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.parent = MBS_WORLD;
    jd.child = 1;
    jd.axis[0] = 1.0;
    jd.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    if (k > 0.0) assert_true(mbs_add_joint_spring_damper(b, 0, 0, k, 0.0, 0.0) >= 0);
    return compile_ok(b);
}

/* Semi-implicit Euler: 1st order (x error ratio in [1.8, 2.2] when dt halves) and
   symplectic (oscillator energy error bounded: last of 100 periods <= 1.1 x first). */
static void test_euler(void **state)
{
    (void)state;
    mbs_model *m = oscillator_model(1.0, 4.0);
    double err[2];
    for (int r = 0; r < 2; ++r) {
        double dt = r ? 5e-4 : 1e-3;
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 1.0;
        mbs_stepper *s = stepper_ok(d, MBS_STEP_EULER, 1e-6, 1e-8);
        step_n(s, d, (int)lround(1.0 / dt), dt);
        err[r] = fabs(mbs_data_q(d)[0] - cos(2.0 * mbs_data_time(d)));
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    print_message("Euler oscillator x error: dt 1e-3 %.3e, dt 5e-4 %.3e, ratio %.3f\n", err[0],
                  err[1], err[0] / err[1]);
    assert_true(err[0] / err[1] >= 1.8 && err[0] / err[1] <= 2.2);

    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 1.0;
    mbs_stepper *s = stepper_ok(d, MBS_STEP_EULER, 1e-6, 1e-8);
    const double dt = 0.01, period = PI;
    const int per = (int)lround(period / dt);
    double first = 0.0, last = 0.0;
    for (int i = 0; i < 100 * per; ++i) {
        step_n(s, d, 1, dt);
        double x = mbs_data_q(d)[0], v = mbs_data_v(d)[0];
        double e = fabs(0.5 * v * v + 2.0 * x * x - 2.0) / 2.0;
        if (i < per) first = fmax(first, e);
        if (i >= 99 * per) last = fmax(last, e);
    }
    print_message("Euler oscillator energy error: first period %.3e, 100th period %.3e\n", first,
                  last);
    assert_true(first > 0.0 && first < 0.05);
    assert_true(last <= 1.1 * first);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A free body in point gravity mu around the origin, started at r0 with velocity v0. */
static void kepler_run(double rp, double e, double tilt, double *ret_r, double *ret_v,
                       double *de, double *dh)
{
    const double mu = 3.986004418e14;
    const double a = rp / (1.0 - e), T = 2.0 * PI * sqrt(a * a * a / mu);
    const double vp = sqrt(mu * (1.0 + e) / rp);
    mbs_builder *b = mbs_builder_create();
    const double c[3] = {0.0, 0.0, 0.0};
    assert_int_equal(mbs_builder_set_point_gravity(b, c, mu), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 100.0;
    diag_inertia(bd.inertia, 10.0, 12.0, 15.0);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_model *m = compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, 0);
    double *v = mbs_data_v(d) + mbs_model_joint_vadr(m, 0);
    const double r0[3] = {rp, 0.0, 0.0}, u0[3] = {0.0, vp * cos(tilt), vp * sin(tilt)};
    memcpy(q, r0, sizeof r0);
    memcpy(v, u0, sizeof u0);
    const double eps0 = 0.5 * vp * vp - mu / rp, h0 = rp * vp;
    mbs_stepper *s = stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-12, 1e-9);
    *de = *dh = 0.0;
    for (int i = 0; i < 100; ++i) {
        step_n(s, d, 1, T / 100.0);
        double r = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        double eps = 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - mu / r;
        double h[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2],
                       q[0] * v[1] - q[1] * v[0]};
        *de = fmax(*de, fabs(eps - eps0) / fabs(eps0));
        *dh = fmax(*dh, fabs(sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) - h0) / h0);
    }
    *ret_r = *ret_v = 0.0;
    for (int i = 0; i < 3; ++i) {
        *ret_r = fmax(*ret_r, fabs(q[i] - r0[i]) / rp);
        *ret_v = fmax(*ret_v, fabs(v[i] - u0[i]) / vp);
    }
    print_message("Kepler e = %.1f, T = %.3f s: return |dr|/rp %.2e, |dv|/vp %.2e, energy %.2e, "
                  "angular momentum %.2e\n", e, T, *ret_r, *ret_v, *de, *dh);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Circular and elliptic (e = 0.3) orbits return to the start after T = 2 pi sqrt(a^3/mu)
   (relative 1e-7), conserving energy and angular momentum (relative 1e-9). */
static void test_kepler(void **state)
{
    (void)state;
    const double ecc[2] = {0.0, 0.3};
    for (int i = 0; i < 2; ++i) {
        double rr, rv, de, dh;
        kepler_run(7.0e6, ecc[i], 0.5, &rr, &rv, &de, &dh);
        assert_true(rr <= 1e-7 && rv <= 1e-7);
        assert_true(de <= 1e-9 && dh <= 1e-9);
    }
}

/* Quaternion and Cardan free bodies with the same initial motion; the body spins about its
   y axis so the middle Cardan angle is driven past 90 degrees. Returns the worst pose
   difference and the number of re-bases seen (jumps of the middle angle) in *nrebase. */
static double cardan_vs_quaternion(mbs_stepper_kind kind, double dt, double t_end, int *nrebase,
                                   double *max_a2)
{
    const double I[3] = {0.12, 0.2, 0.3};
    mbs_model *mq = free_body_model(MBS_ROT_QUATERNION, 1.0, I);
    mbs_model *mc = free_body_model(MBS_ROT_CARDAN, 1.0, I);
    assert_int_equal(mbs_model_nq(mc), 6);
    mbs_data *dq = mbs_data_create(mq), *dc = mbs_data_create(mc);
    /* at the identity the Cardan rates equal the body angular velocity */
    const double v0[6] = {0.05, 0.0, -0.1, 0.4, 2.0, 0.3};
    memcpy(mbs_data_v(dq), v0, sizeof v0);
    memcpy(mbs_data_v(dc), v0, sizeof v0);
    mbs_stepper *sq = stepper_ok(dq, kind, 1e-11, 1e-13), *sc = stepper_ok(dc, kind, 1e-11, 1e-13);
    const int a2 = mbs_model_joint_qadr(mc, 0) + 4;
    double worst = 0.0, prev = mbs_data_q(dc)[a2];
    *nrebase = 0;
    *max_a2 = 0.0;
    for (int i = 0; i < (int)lround(t_end / dt); ++i) {
        step_n(sq, dq, 1, dt);
        step_n(sc, dc, 1, dt);
        double pq[3], Rq[9], pc[3], Rc[9];
        assert_int_equal(mbs_body_pose(dq, 1, pq, Rq), MBS_OK);
        assert_int_equal(mbs_body_pose(dc, 1, pc, Rc), MBS_OK);
        worst = fmax(worst, mat_diff(Rq, Rc));
        for (int k = 0; k < 3; ++k) worst = fmax(worst, fabs(pq[k] - pc[k]));
        double a = mbs_data_q(dc)[a2];
        if (fabs(a - prev) > 0.3) ++*nrebase;
        *max_a2 = fmax(*max_a2, fabs(a));
        prev = a;
    }
    mbs_stepper_destroy(sq);
    mbs_stepper_destroy(sc);
    mbs_data_destroy(dq);
    mbs_data_destroy(dc);
    mbs_model_destroy(mq);
    mbs_model_destroy(mc);
    return worst;
}

/* Cardan root body re-bases near the singularity and follows the quaternion body: poses
   agree to 1e-7 (RK4, dt 1e-3; CVODE rtol 1e-11) over 4 s, the middle angle stays away from
   90 degrees and at least one re-base happened. */
static void test_cardan_rebase(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS, MBS_STEP_CVODE_BDF};
    const double dts[3] = {1e-3, 1e-2, 1e-2};
    for (int k = 0; k < 3; ++k) {
        int n = 0;
        double a2 = 0.0, e = cardan_vs_quaternion(kinds[k], dts[k], 4.0, &n, &a2);
        print_message("Cardan vs quaternion (kind %d): max pose difference %.2e, %d re-bases, "
                      "max |a2| %.4f rad\n", (int)kinds[k], e, n, a2);
        assert_true(e <= 1e-7);
        assert_true(n >= 1);
        assert_true(a2 < 0.5 * PI - 0.05);
    }
}

/* Fixed-step stepping allocates nothing (counter proven live by mbs_stepper_create), CVODE
   stepping neither; two runs from the same state are bitwise identical step by step. */
static void test_noalloc_determinism(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[4] = {MBS_STEP_EULER, MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS,
                                       MBS_STEP_CVODE_BDF};
    const double I[3] = {0.12, 0.2, 0.3};
    mbs_model *models[2] = {chain_model(3, NULL), free_body_model(MBS_ROT_QUATERNION, 2.0, I)};
    for (int mi = 0; mi < 2; ++mi)
        for (int k = 0; k < 4; ++k) {
            const mbs_model *m = models[mi];
            const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
            mbs_data *d[2] = {mbs_data_create(m), mbs_data_create(m)};
            mbs_stepper *s[2];
            for (int r = 0; r < 2; ++r) {
                if (mi == 0) chain_init(d[r]);
                else {
                    const double v0[6] = {0.1, 0.0, 0.2, 1.0, 3.0, -0.5};
                    memcpy(mbs_data_v(d[r]), v0, sizeof v0);
                }
                count_begin();
                s[r] = stepper_ok(d[r], kinds[k], 1e-8, 1e-10);
                long created = count_end();
                assert_true(created > 0);
            }
            count_begin();
            for (int i = 0; i < 500; ++i) {
                int st0 = mbs_stepper_step(s[0], 0.005), st1 = mbs_stepper_step(s[1], 0.005);
                if (st0 != MBS_OK || st1 != MBS_OK) break;
                if (memcmp(mbs_data_q(d[0]), mbs_data_q(d[1]), (size_t)nq * sizeof(double)) ||
                    memcmp(mbs_data_v(d[0]), mbs_data_v(d[1]), (size_t)nv * sizeof(double))) {
                    count_end();
                    print_error("model %d kind %d: runs differ at step %d\n", mi, k, i);
                    fail();
                }
            }
            long n = count_end();
            print_message("model %d kind %d: %ld allocations in 2 x 500 steps, t = %.3f\n", mi,
                          k, n, mbs_data_time(d[0]));
            assert_int_equal(n, 0);
            assert_true(fabs(mbs_data_time(d[0]) - 2.5) < 1e-12);
            assert_true(mbs_data_time(d[0]) == mbs_data_time(d[1]));
            for (int r = 0; r < 2; ++r) {
                mbs_stepper_destroy(s[r]);
                mbs_data_destroy(d[r]);
            }
        }
    mbs_model_destroy(models[0]);
    mbs_model_destroy(models[1]);
}

/* Snapshot of time, q, v. */
typedef struct snap {
    double t, q[8], v[8];
} snap;

/* Take a snapshot of the data (nq, nv <= 8). */
static snap take_snap(mbs_data *d)
{
    snap s;
    memset(&s, 0, sizeof s);
    const mbs_model *m = mbs_data_model(d);
    s.t = mbs_data_time(d);
    memcpy(s.q, mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    memcpy(s.v, mbs_data_v(d), (size_t)mbs_model_nv(m) * sizeof(double));
    return s;
}

/* Assert the data is bitwise at the snapshot. */
static void assert_at_snap(mbs_data *d, const snap *s0)
{
    snap s1 = take_snap(d);
    assert_memory_equal(&s1, s0, sizeof s1);
}

/* One failing step: expected status, message non-empty, data unchanged bit for bit. */
static void expect_failed_step(mbs_stepper *s, mbs_data *d, int status)
{
    snap s0 = take_snap(d);
    int st = mbs_stepper_step(s, 0.01);
    print_message("  failed step: %s: %s\n", mbs_status_name(st), mbs_data_error(d));
    assert_int_equal(st, status);
    assert_true(strlen(mbs_data_error(d)) > 0);
    assert_at_snap(d, &s0);
}

/* A fatal or recoverable callback failure mid-step, a NaN in tau (before and during a
   step): the step fails with the status, time/q/v stay bitwise, and stepping recovers. */
static void test_failed_step_fixed(void **state)
{
    (void)state;
    static cb_ctl ctl;
    memset(&ctl, 0, sizeof ctl);
    mbs_model *m = chain_model(3, &ctl);
    mbs_data *d = mbs_data_create(m), *dref = mbs_data_create(m);
    chain_init(d);
    chain_init(dref);
    mbs_stepper *s = stepper_ok(d, MBS_STEP_RK4, 1e-6, 1e-8);
    mbs_stepper *sref = stepper_ok(dref, MBS_STEP_RK4, 1e-6, 1e-8);
    step_n(s, d, 5, 0.01);
    step_n(sref, dref, 5, 0.01);
    ctl.fail_at = ctl.calls + 3; /* RK4 stage 3 */
    ctl.ret = -1;
    expect_failed_step(s, d, MBS_ERR_CALLBACK);
    ctl.fail_at = ctl.calls + 4; /* stage 4, recoverable: a fixed step cannot retry */
    ctl.ret = 1;
    expect_failed_step(s, d, MBS_ERR_CALLBACK);
    ctl.fail_at = 0;
    ctl.nan_at = ctl.calls + 2; /* tau poisoned during stage 2 */
    expect_failed_step(s, d, MBS_ERR_NONFINITE);
    ctl.nan_at = 0;
    mbs_data_tau(d)[0] = 0.0;
    mbs_data_tau(d)[1] = NAN; /* poisoned before the step */
    expect_failed_step(s, d, MBS_ERR_NONFINITE);
    mbs_data_tau(d)[1] = 0.0;
    step_n(s, d, 3, 0.01);
    step_n(sref, dref, 3, 0.01);
    snap a = take_snap(d), b = take_snap(dref);
    assert_memory_equal(&a, &b, sizeof a); /* recovered exactly onto the reference */
    mbs_stepper_destroy(s);
    mbs_stepper_destroy(sref);
    mbs_data_destroy(d);
    mbs_data_destroy(dref);
    mbs_model_destroy(m);
}

/* CVODE: a recoverable callback failure is retried (step succeeds, still on the reference
   trajectory to 1e-7), a fatal one and a NaN fail with the data untouched; then recovery. */
static void test_failed_step_cvode(void **state)
{
    (void)state;
    static cb_ctl ctl;
    memset(&ctl, 0, sizeof ctl);
    mbs_model *m = chain_model(3, &ctl);
    const mbs_stepper_kind kinds[2] = {MBS_STEP_CVODE_ADAMS, MBS_STEP_CVODE_BDF};
    for (int k = 0; k < 2; ++k) {
        mbs_data *d = mbs_data_create(m), *dref = mbs_data_create(m);
        chain_init(d);
        chain_init(dref);
        mbs_stepper *s = stepper_ok(d, kinds[k], 1e-10, 1e-12);
        mbs_stepper *sref = stepper_ok(dref, kinds[k], 1e-10, 1e-12);
        step_n(s, d, 5, 0.01);
        step_n(sref, dref, 5, 0.01);
        ctl.fail_at = ctl.calls + 1; /* first evaluation of the next step, recoverable */
        ctl.ret = 1;
        step_n(s, d, 1, 0.01);
        assert_true(ctl.calls > ctl.fail_at); /* it failed and CVODE went on */
        step_n(sref, dref, 1, 0.01);
        ctl.fail_at = ctl.calls + 1;
        ctl.ret = -2;
        expect_failed_step(s, d, MBS_ERR_CALLBACK);
        assert_non_null(strstr(mbs_data_error(d), "CV_"));
        ctl.fail_at = 0;
        ctl.nan_at = ctl.calls + 1;
        expect_failed_step(s, d, MBS_ERR_NONFINITE);
        ctl.nan_at = 0;
        mbs_data_tau(d)[0] = NAN;
        expect_failed_step(s, d, MBS_ERR_NONFINITE);
        mbs_data_tau(d)[0] = 0.0;
        step_n(s, d, 50, 0.01);
        step_n(sref, dref, 50, 0.01);
        assert_true(mbs_data_time(d) == mbs_data_time(dref));
        test_assert_close(mbs_data_q(d), mbs_data_q(dref), 3, 1e-7, "q after recovery");
        test_assert_close(mbs_data_v(d), mbs_data_v(dref), 3, 1e-7, "v after recovery");
        mbs_stepper_destroy(s);
        mbs_stepper_destroy(sref);
        mbs_data_destroy(d);
        mbs_data_destroy(dref);
    }
    mbs_model_destroy(m);
}

/* tau changed between steps on a prismatic mass takes effect (piecewise constant
   acceleration: RK4 exact to 1e-12, CVODE detects the change: 1e-8), RK4 without allocation. */
static void test_input_tau(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS, MBS_STEP_CVODE_BDF};
    const double tols[3] = {1e-12, 1e-8, 1e-8};
    mbs_model *m = oscillator_model(2.0, 0.0);
    for (int k = 0; k < 3; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_stepper *s = stepper_ok(d, kinds[k], 1e-12, 1e-14);
        double *tau = mbs_data_tau(d);
        count_begin();
        tau[0] = 3.0; /* a = 1.5 for 0.1 s */
        step_n(s, d, 10, 0.01);
        tau[0] = -1.0; /* a = -0.5 for 0.1 s */
        step_n(s, d, 10, 0.01);
        long n = count_end();
        if (kinds[k] == MBS_STEP_RK4) assert_int_equal(n, 0);
        double x1 = 0.5 * 1.5 * 0.01, v1 = 0.15;
        double x = x1 + v1 * 0.1 - 0.25 * 0.01, v = v1 - 0.05;
        print_message("tau input, kind %d: x err %.2e, v err %.2e\n", (int)kinds[k],
                      fabs(mbs_data_q(d)[0] - x), fabs(mbs_data_v(d)[0] - v));
        assert_true(fabs(mbs_data_q(d)[0] - x) <= tols[k]);
        assert_true(fabs(mbs_data_v(d)[0] - v) <= tols[k]);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* A host body wrench changed between steps on a free body (force, then torque about a
   principal axis): position, velocity and rotation match the analytic motion (RK4 1e-12,
   CVODE 1e-8), RK4 without allocation. */
static void test_input_wrench(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS, MBS_STEP_CVODE_BDF};
    const double tols[3] = {1e-12, 1e-8, 1e-8};
    const double I[3] = {0.1, 0.2, 0.3};
    mbs_model *m = free_body_model(MBS_ROT_QUATERNION, 2.0, I);
    for (int k = 0; k < 3; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_stepper *s = stepper_ok(d, kinds[k], 1e-12, 1e-14);
        const double f1[3] = {0.0, 4.0, 0.0}, t1[3] = {0.0, 0.0, 0.6}, zero[3] = {0, 0, 0};
        const double f2[3] = {1.0, 0.0, 0.0};
        count_begin();
        assert_int_equal(mbs_set_body_wrench(d, 1, f1, t1, zero), MBS_OK);
        step_n(s, d, 10, 0.01); /* a_y = 2, wz' = 2 for 0.1 s */
        assert_int_equal(mbs_set_body_wrench(d, 1, f2, zero, zero), MBS_OK);
        step_n(s, d, 10, 0.01); /* a_x = 0.5, wz = 0.2 for 0.1 s */
        long n = count_end();
        if (kinds[k] == MBS_STEP_RK4) assert_int_equal(n, 0);
        double pos[3], R[9], lin[3], ang[3];
        assert_int_equal(mbs_body_pose(d, 1, pos, R), MBS_OK);
        assert_int_equal(mbs_body_velocity(d, 1, lin, ang), MBS_OK);
        const double pos_x[3] = {0.25 * 0.01, 0.01 + 0.2 * 0.1, 0.0};
        const double lin_x[3] = {0.05, 0.2, 0.0}, ang_x[3] = {0.0, 0.0, 0.2};
        double th = 0.01 + 0.2 * 0.1; /* rotation angle about z */
        const double R_x[9] = {cos(th), -sin(th), 0.0, sin(th), cos(th), 0.0, 0.0, 0.0, 1.0};
        double err = fmax(mat_diff(R, R_x), 0.0);
        for (int i = 0; i < 3; ++i) {
            err = fmax(err, fabs(pos[i] - pos_x[i]));
            err = fmax(err, fabs(lin[i] - lin_x[i]));
            err = fmax(err, fabs(ang[i] - ang_x[i]));
        }
        print_message("wrench input, kind %d: max error %.2e\n", (int)kinds[k], err);
        assert_true(err <= tols[k]);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* The host rewinds t, q, v between CVODE steps: the stepper notices and restarts, so the
   second run matches the first (1e-9). */
static void test_cvode_host_reset(void **state)
{
    (void)state;
    mbs_model *m = pendulum_model(1.0, 1e-3);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 1.0;
    mbs_stepper *s = stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-11, 1e-13);
    step_n(s, d, 50, 0.02);
    double q1 = mbs_data_q(d)[0], v1 = mbs_data_v(d)[0];
    mbs_data_q(d)[0] = 1.0;
    mbs_data_v(d)[0] = 0.0;
    assert_int_equal(mbs_data_set_time(d, 0.0), MBS_OK);
    step_n(s, d, 50, 0.02);
    print_message("host reset: q diff %.2e, v diff %.2e\n", fabs(mbs_data_q(d)[0] - q1),
                  fabs(mbs_data_v(d)[0] - v1));
    assert_true(fabs(mbs_data_q(d)[0] - q1) <= 1e-9 && fabs(mbs_data_v(d)[0] - v1) <= 1e-9);
    assert_true(fabs(mbs_data_time(d) - 1.0) < 1e-12);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_bad_step),
        cmocka_unit_test(test_substeps),
        cmocka_unit_test(test_cvode_max_step),
        cmocka_unit_test(test_pendulum_period),
        cmocka_unit_test(test_energy_chain),
        cmocka_unit_test(test_energy_tumbling),
        cmocka_unit_test(test_energy_spring),
        cmocka_unit_test(test_rk4_order),
        cmocka_unit_test(test_euler),
        cmocka_unit_test(test_kepler),
        cmocka_unit_test(test_cardan_rebase),
        cmocka_unit_test(test_noalloc_determinism),
        cmocka_unit_test(test_failed_step_fixed),
        cmocka_unit_test(test_failed_step_cvode),
        cmocka_unit_test(test_input_tau),
        cmocka_unit_test(test_input_wrench),
        cmocka_unit_test(test_cvode_host_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
