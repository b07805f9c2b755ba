/* Linearisation and modes of models with user states (src/analysis/linearize.c, modes.c):
 * a DC motor (current i a user state, L di/dt = u - R i - k_e w, torque k_t i) on a flywheel
 * (the third-order linear model: A and B entry by entry, the eigenvalues against the roots of
 * its characteristic polynomial), on a pendulum (A against the closed form and against
 * five-point differences of the whole right-hand side [v; qacc; xdot]) and on a four-bar
 * (the mechanical block against the same four-bar without the motor driven by tau = k_t i,
 * the current's column against k_t times that model's B). The data's state comes back bit
 * for bit. Parameter sensitivities of the motor-driven pendulum with y = [q; v; i] against
 * five-point differences of tight CVODE runs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "loop_mechanisms.h"

#define G 9.81

/* A motor on v index vidx under the voltage u + tau_gain tau[vidx]. */
typedef struct dc_motor {
    double R, L, ke, kt, u, tau_gain;
    int vidx;
} dc_motor;

static const dc_motor MOTOR = {2.0, 0.01, 0.5, 0.4, 9.0, 0.0, 0};

/* L di/dt = u - R i - k_e w; torque k_t i on the coordinate. */
static int motor_rate(mbs_data *d, const double *x, double *xdot, void *user)
{
    const dc_motor *p = user;
    const double u = p->u + p->tau_gain * mbs_data_tau(d)[p->vidx];
    xdot[0] = (u - p->R * x[0] - p->ke * mbs_data_v(d)[p->vidx]) / p->L;
    return mbs_apply_generalized_force(d, p->vidx, p->kt * x[0]);
}

/* test_shaft (l, J, b > 0) with the motor p on it. */
static mbs_model *motor_shaft(dc_motor *p, double l, double J, double b)
{
    mbs_builder *bl = test_shaft(l, J, b);
    assert_int_equal(mbs_add_user_states(bl, "motor", 1, motor_rate, p), 1);
    mbs_model *m = test_compile_ok(bl);
    p->vidx = 0;
    return m;
}

/* The data's q, v, tau, user states and qacc (forward dynamics at them). */
typedef struct state_copy {
    double q[8], v[8], tau[8], x[8], qacc[8];
} state_copy;

static state_copy copy_state(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    state_copy s;
    memset(&s, 0, sizeof s);
    memcpy(s.q, mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    memcpy(s.v, mbs_data_v(d), (size_t)mbs_model_nv(m) * sizeof(double));
    memcpy(s.tau, mbs_data_tau(d), (size_t)mbs_model_nv(m) * sizeof(double));
    memcpy(s.x, mbs_data_user_states(d), (size_t)mbs_model_nuser_states(m) * sizeof(double));
    memcpy(s.qacc, mbs_data_qacc(d), (size_t)mbs_model_nv(m) * sizeof(double));
    return s;
}

static double worst; /* largest |a - b| / max(1, |b|) of near() since the last report */

/* |a - b| <= tol max(1, |b|), naming the entry when not. */
static void near(double a, double b, double tol, const char *what, int i, int j)
{
    worst = fmax(worst, fabs(a - b) / fmax(1.0, fabs(b)));
    if (!(fabs(a - b) <= tol * fmax(1.0, fabs(b))))
        fail_msg("%s[%d][%d] = %.15g, expected %.15g (tol %g)", what, i, j, a, b, tol);
}

/* Print the largest relative difference of the checks since the last call. */
static void report(const char *what)
{
    print_message("%s: largest difference %.2e (relative to max(1, |expected|))\n", what, worst);
    worst = 0.0;
}

/* mbs_linearize (A, B) with q, v, tau and the user states checked to come back bitwise (qacc
   to 1e-12); returns nx. */
static int linearize_restoring(mbs_data *d, double *A, double *B)
{
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const state_copy before = copy_state(d);
    int nx = 0;
    const int st = mbs_linearize(d, A, B, &nx);
    if (st != MBS_OK) fail_msg("linearize: %s", mbs_data_error(d));
    const state_copy after = copy_state(d);
    assert_memory_equal(&before, &after, offsetof(state_copy, qacc));
    for (int i = 0; i < mbs_model_nv(mbs_data_model(d)); ++i) /* the loops' partition may */
        near(after.qacc[i], before.qacc[i], 1e-12, "qacc", i, 0); /* have moved: rounding */
    return nx;
}

/* Flywheel J, damping b, motor: x = (theta, w, i),
       A = [0 1 0; 0 -b/J k_t/J; 0 -k_e/L -R/L],  B = [0; 1/J; 0],
   eigenvalues 0 and the roots of s^2 + (b/J + R/L) s + (b R + k_e k_t) / (J L). The motor is
   linear, so the central differences are exact to rounding: 1e-9 per entry (relative to
   max(1, |A_ij|); 3.3e-11 measured); the eigenvalues 1e-9 relative (1.0e-11 measured);
   mbs_modes returns nx = 3 of them. A motor
   whose voltage reads tau (u + 3 tau) has B's current row 3 / L. */
static void test_flywheel_motor(void **state)
{
    (void)state;
    dc_motor p = MOTOR;
    const double J = 0.02, b = 0.05;
    mbs_model *m = motor_shaft(&p, 0.0, J, b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[0] = 3.0, mbs_data_user_states(d)[0] = 1.5, mbs_data_tau(d)[0] = 0.2;
    double A[9], B[3];
    assert_int_equal(linearize_restoring(d, A, B), 3);
    const double Ac[9] = {0, 1, 0, 0, -b / J, p.kt / J, 0, -p.ke / p.L, -p.R / p.L};
    const double Bc[3] = {0, 1.0 / J, 0};
    for (int i = 0; i < 3; ++i) {
        near(B[i], Bc[i], 1e-9, "B", i, 0);
        for (int j = 0; j < 3; ++j) near(A[3 * i + j], Ac[3 * i + j], 1e-9, "A", i, j);
    }
    report("flywheel A, B vs closed form");
    double re[3], im[3];
    int n = 3;
    assert_int_equal(mbs_modes(d, re, im, &n), MBS_OK);
    assert_int_equal(n, 3);
    const double s1 = b / J + p.R / p.L, s0 = (b * p.R + p.ke * p.kt) / (J * p.L);
    const double disc = sqrt(s1 * s1 - 4.0 * s0); /* real roots for these values */
    const double roots[3] = {0.0, (-s1 + disc) / 2.0, (-s1 - disc) / 2.0}; /* |.| ascending */
    for (int k = 0; k < 3; ++k) {
        print_message("flywheel mode %d: %.12g (closed form %.12g)\n", k, re[k], roots[k]);
        assert_true(fabs(im[k]) == 0.0);
        assert_true(fabs(re[k] - roots[k]) <= 1e-9 * fmax(fabs(roots[k]), 1e-3));
    }
    p.tau_gain = 3.0;
    assert_int_equal(linearize_restoring(d, A, B), 3);
    near(B[2], 3.0 / p.L, 1e-9, "B (voltage from tau)", 2, 0);
    near(B[1], 1.0 / J, 1e-9, "B (voltage from tau)", 1, 0);
    for (int k = 0; k < 9; ++k) near(A[k], Ac[k], 1e-9, "A (voltage from tau)", k / 3, k % 3);
    report("flywheel, voltage from tau: A, B");
    n = 2; /* capacity below nx: refused, outputs untouched */
    re[2] = 7.0;
    assert_int_equal(mbs_modes(d, re, im, &n), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "2 nv + nux = 3"));
    assert_true(re[2] == 7.0 && n == 2);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The right-hand side f = [v; qacc; xdot] of the pendulum at q = q0 + e_0, v, x. */
static void pendulum_rhs(mbs_data *d, const double *x0, const double *dx, double *f)
{
    mbs_data_q(d)[0] = x0[0] + dx[0];
    mbs_data_v(d)[0] = x0[1] + dx[1];
    mbs_data_user_states(d)[0] = x0[2] + dx[2];
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    f[0] = mbs_data_v(d)[0];
    f[1] = mbs_data_qacc(d)[0];
    assert_int_equal(mbs_user_states_derivative(d, f + 2), MBS_OK);
}

/* Pendulum (mass 1, l, J about the centre of mass, damping b) with the motor, at theta 0.6,
   w -1.2, i 2.5: I = J + l^2, A = [0 1 0; -g l cos(theta)/I -b/I k_t/I; 0 -k_e/L -R/L]
   (1e-9), and A against five-point differences of f (step 1e-3, 1e-9; 2.8e-11 measured). */
static void test_pendulum_motor(void **state)
{
    (void)state;
    dc_motor p = MOTOR;
    const double l = 0.4, J = 0.003, b = 0.02, I = J + l * l;
    mbs_model *m = motor_shaft(&p, l, J, b);
    mbs_data *d = mbs_data_create(m);
    const double x0[3] = {0.6, -1.2, 2.5};
    mbs_data_q(d)[0] = x0[0], mbs_data_v(d)[0] = x0[1], mbs_data_user_states(d)[0] = x0[2];
    double A[9], B[3], f[5][3];
    assert_int_equal(linearize_restoring(d, A, B), 3);
    const double Ac[9] = {0, 1, 0, -G * l * cos(x0[0]) / I, -b / I, p.kt / I,
                          0, -p.ke / p.L, -p.R / p.L};
    for (int k = 0; k < 9; ++k) near(A[k], Ac[k], 1e-9, "A", k / 3, k % 3);
    report("pendulum A vs closed form");
    const double h = 1e-3, c[5] = {1.0 / 12, -2.0 / 3, 0, 2.0 / 3, -1.0 / 12};
    for (int j = 0; j < 3; ++j) {
        for (int s = 0; s < 5; ++s) {
            double dx[3] = {0, 0, 0};
            dx[j] = (s - 2) * h;
            pendulum_rhs(d, x0, dx, f[s]);
        }
        for (int i = 0; i < 3; ++i) {
            double fd = 0.0;
            for (int s = 0; s < 5; ++s) fd += c[s] * f[s][i] / h;
            near(A[3 * i + j], fd, 1e-9, "A vs differences", i, j);
        }
    }
    report("pendulum A vs five-point differences of [v; qacc; xdot]");
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The four-bar's crank motor: added by lm_build_fourbar_ex. */
static int add_crank_motor(mbs_builder *b, const lm_mech *mech, void *user)
{
    (void)mech;
    const int id = mbs_add_user_states(b, "crank motor", 1, motor_rate, user);
    return id < 0 ? id : MBS_OK;
}

/* A four-bar state off equilibrium, moving, loops closed. */
static void fourbar_state(const lm_fourbar *fb, const lm_mech *mech, mbs_data *d)
{
    double th[3], w[3] = {0.8, 0.0, 0.0};
    th[0] = 0.7;
    assert_int_equal(lm_fourbar_position(fb, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_set(fb, mech, d, th, w);
    assert_int_equal(mbs_assemble(d), MBS_OK);
}

/* The four-bar with the motor on its crank (x = (du, du', i), nx = 3) against the same
   four-bar without it, its crank driven by tau = k_t i: the mechanical 2 x 2 block agrees to
   1e-8 (9e-11 measured), the current's column is k_t times that model's B column of the crank, its row
   (0, -k_e/L, -R/L) with the crank independent; mbs_modes gives 3 eigenvalues. */
static void test_fourbar_motor(void **state)
{
    (void)state;
    dc_motor p = MOTOR;
    const double i0 = 1.3;
    lm_fourbar fb = lm_default_fourbar();
    fb.damping = 0.05;
    lm_mech with, without;
    assert_int_equal(lm_build_fourbar_ex(&fb, add_crank_motor, &p, &with), MBS_OK);
    assert_int_equal(lm_build_fourbar(&fb, &without), MBS_OK);
    p.vidx = mbs_model_joint_vadr(with.model, with.joint[0]);
    mbs_data *d = mbs_data_create(with.model), *e = mbs_data_create(without.model);
    fourbar_state(&fb, &with, d);
    fourbar_state(&fb, &without, e);
    mbs_data_user_states(d)[0] = i0;
    mbs_data_tau(e)[p.vidx] = p.kt * i0;
    unsigned char indep[8];
    int nd = 0;
    assert_int_equal(mbs_linearize_coordinates(d, indep, &nd), MBS_OK);
    assert_int_equal(nd, 1);
    assert_true(indep[p.vidx]); /* the crank is the independent coordinate here */
    double A[9], B[3 * 8], A2[4], B2[2 * 8];
    assert_int_equal(linearize_restoring(d, A, B), 3);
    assert_int_equal(linearize_restoring(e, A2, B2), 2);
    const int nv = mbs_model_nv(without.model);
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) near(A[3 * i + j], A2[2 * i + j], 1e-8, "A", i, j);
        near(A[3 * i + 2], p.kt * B2[nv * i + p.vidx], 1e-8, "A (current column)", i, 2);
        near(B[nv * i + p.vidx], B2[nv * i + p.vidx], 1e-8, "B", i, p.vidx);
    }
    const double row[3] = {0.0, -p.ke / p.L, -p.R / p.L};
    for (int j = 0; j < 3; ++j) near(A[6 + j], row[j], 1e-8, "A (current row)", 2, j);
    for (int j = 0; j < nv; ++j) near(B[2 * nv + j], 0.0, 1e-12, "B (current row)", 2, j);
    report("four-bar A, B vs the four-bar driven by tau = k_t i");
    double re[3], im[3];
    int n = 3;
    assert_int_equal(mbs_modes(d, re, im, &n), MBS_OK);
    assert_int_equal(n, 3);
    mbs_data_destroy(d);
    mbs_data_destroy(e);
    lm_mech_free(&with);
    lm_mech_free(&without);
}

/* ---------------------------------------------------------------- sensitivities */

#define SENS_T 0.5

/* The pendulum with the motor from theta 0.6 at rest, no current. */
static void sens_start(mbs_data *d)
{
    mbs_data_q(d)[0] = 0.6, mbs_data_v(d)[0] = 0.0, mbs_data_user_states(d)[0] = 0.0;
}

/* y = (theta, w, i) at SENS_T from sens_start with parameter p at value x (CVODE BDF, rtol
   1e-11; the parameter put back to nominal afterwards). */
static void y_at(mbs_model *m, const mbs_param *p, double x, double nominal, double y[3])
{
    assert_int_equal(mbs_model_set_param(m, p, x), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    sens_start(d);
    mbs_stepper *st = test_stepper_tight(d, MBS_STEP_CVODE_BDF);
    assert_int_equal(mbs_stepper_step(st, SENS_T), MBS_OK);
    y[0] = mbs_data_q(d)[0], y[1] = mbs_data_v(d)[0], y[2] = mbs_data_user_states(d)[0];
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    assert_int_equal(mbs_model_set_param(m, p, nominal), MBS_OK);
}

/* The motor-driven pendulum's sensitivities to its mass, inertia and damping at t = 0.5
   (CVODES Adams and BDF, rtol 1e-8, steps <= 2e-3 s; y = [q; v; i]) against five-point
   differences of runs with steps 1e-2 |p|: within 1e-6 of each sensitivity vector's largest
   entry, the current's included (2.1e-7 Adams, 3.5e-7 BDF measured; BDF with unlimited
   steps is at about 3e-6, its own truncation error on the stiff current); a run leaves the data
   at t = 0.5 with the current as integrated; a current changed after it refuses the next run
   until a restart, a non-finite one refuses the restart. */
static void test_sensitivities(void **state)
{
    (void)state;
    dc_motor p = MOTOR;
    mbs_model *m = motor_shaft(&p, 0.4, 0.003, 0.02);
    const mbs_param params[3] = {{MBS_PARAM_MASS, 1, 0}, {MBS_PARAM_INERTIA, 1, 4},
                                 {MBS_PARAM_DAMPING, 0, 0}};
    double fd[3][3], nominal[3];
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(mbs_model_get_param(m, &params[k], &nominal[k]), MBS_OK);
        const double h = 1e-2 * fabs(nominal[k]), c[4] = {-2, -1, 1, 2};
        double y[4][3];
        for (int s = 0; s < 4; ++s) y_at(m, &params[k], nominal[k] + c[s] * h, nominal[k], y[s]);
        for (int i = 0; i < 3; ++i)
            fd[k][i] = (8.0 * (y[2][i] - y[1][i]) - (y[3][i] - y[0][i])) / (12.0 * h);
    }
    for (int kind = MBS_STEP_CVODE_ADAMS; kind <= MBS_STEP_CVODE_BDF; ++kind) {
        mbs_data *d = mbs_data_create(m);
        sens_start(d);
        mbs_sens_def sd = mbs_default_sens_def();
        sd.kind = (mbs_stepper_kind)kind;
        sd.max_step = 2e-3; /* the current's time constant L/R is 5 ms */
        mbs_sens *s = NULL;
        assert_int_equal(mbs_sens_create(m, d, params, 3, &sd, &s), MBS_OK);
        if (mbs_sens_run(s, SENS_T) != MBS_OK) fail_msg("sens_run: %s", mbs_data_error(d));
        double yref[3];
        y_at(m, &params[0], nominal[0], nominal[0], yref);
        near(mbs_data_user_states(d)[0], yref[2], 1e-6, "current at the end", 0, 0);
        double rel = 0.0;
        for (int k = 0; k < 3; ++k) {
            double S[3], scale = 0.0, err = 0.0;
            assert_int_equal(mbs_sens_get(s, k, S, S + 1), MBS_OK);
            assert_int_equal(mbs_sens_get_user_states(s, k, S + 2), MBS_OK);
            for (int i = 0; i < 3; ++i) scale = fmax(scale, fabs(fd[k][i]));
            for (int i = 0; i < 3; ++i) err = fmax(err, fabs(S[i] - fd[k][i]));
            assert_true(scale > 1e-3 && fabs(fd[k][2]) > 1e-3); /* the current moves too */
            if (!(err <= 1e-6 * scale))
                fail_msg("kind %d parameter %d: error %.3e of scale %.3e", kind, k, err, scale);
            rel = fmax(rel, err / scale);
        }
        print_message("CVODES %s sensitivities with the current vs five-point differences: "
                      "%.2e of the largest entry\n", kind == MBS_STEP_CVODE_BDF ? "BDF" : "Adams",
                      rel);
        const double i_end = mbs_data_user_states(d)[0]; /* a changed current: refused */
        mbs_data_user_states(d)[0] = i_end + 1.0;
        assert_int_equal(mbs_sens_run(s, SENS_T + 0.1), MBS_ERR_STATE);
        assert_true(mbs_data_user_states(d)[0] == i_end + 1.0 && mbs_data_time(d) == SENS_T);
        assert_int_equal(mbs_sens_restart(s), MBS_OK); /* from there: runs */
        assert_int_equal(mbs_sens_run(s, SENS_T + 0.1), MBS_OK);
        mbs_data_user_states(d)[0] = NAN;
        assert_int_equal(mbs_sens_restart(s), MBS_ERR_NONFINITE);
        assert_int_equal(mbs_sens_get_user_states(s, 3, fd[0]), MBS_ERR_ARG);
        assert_int_equal(mbs_sens_get_user_states(s, 0, NULL), MBS_ERR_ARG);
        assert_int_equal(mbs_sens_get_user_states(NULL, 0, fd[0]), MBS_ERR_ARG);
        mbs_sens_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* xdot = -3 x: one user state's rate. */
static int decay_rate(mbs_data *d, const double *x, double *xdot, void *user)
{
    (void)d, (void)user;
    xdot[0] = -3.0 * x[0];
    return MBS_OK;
}

/* A model without a degree of freedom (one body welded to the world) and one user state
   xdot = -3 x: nx = 1, A = [-3], one eigenvalue -3 (the sort's scratch of two values must not
   come from A's single entry; ASan reports the write past it). */
static void test_modes_one_state(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    const int body = mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_FIXED);
    jd.parent = MBS_WORLD, jd.child = body;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    assert_true(mbs_add_user_states(b, "decay", 1, decay_rate, NULL) >= 0);
    mbs_model *m = test_compile_ok(b);
    assert_int_equal(mbs_model_nv(m), 0);
    mbs_data *d = mbs_data_create(m);
    double re[2] = {0.0, 0.0}, im[2] = {1.0, 1.0};
    int n = 2;
    if (mbs_modes(d, re, im, &n) != MBS_OK) fail_msg("mbs_modes: %s", mbs_data_error(d));
    assert_int_equal(n, 1);
    assert_true(re[0] == -3.0 && im[0] == 0.0);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flywheel_motor),
        cmocka_unit_test(test_pendulum_motor),
        cmocka_unit_test(test_fourbar_motor),
        cmocka_unit_test(test_sensitivities),
        cmocka_unit_test(test_modes_one_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
