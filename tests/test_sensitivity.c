/* Parameter sensitivities by SUNDIALS CVODES (ROBOTRAN §3.5.2): the pendulum's d(period)/
 * d(length) against the closed forms (small amplitude 2 pi sqrt(L/g), and the elliptic
 * integral 4 sqrt(L/g) K(sin(theta0/2)) at large amplitude), CVODES' sensitivities of a
 * spatial tree against central differences of two runs, the model's parameters put back,
 * continuation, determinism and every bad input. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define G 9.81

/* ---------------------------------------------------------------- pendulum period */

/* K(k) = pi / (2 AGM(1, sqrt(1 - k^2))), the complete elliptic integral of the first kind. */
static double ellip_k(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40 && fabs(a - b) > 1e-17 * a; ++i) {
        const double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return PI / (2.0 * a);
}

/* A point mass (zero inertia) at com (0, 0, -L) on a revolute joint about x at the world
   origin: theta'' = -(g / L) sin theta. */
static mbs_model *pendulum(double L)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "bob";
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.com[2] = -L;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1;
    j.axis[0] = 1, j.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* d(period)/d(length) from the sensitivity of theta to the com coordinate c_z = -L at the
   first zero crossing t1 = T/4 (T from the closed form): theta(t1(L), L) = 0 gives
   dt1/dL = -(dtheta/dL) / theta', dT/dL = 4 dt1/dL = 4 (dtheta/dc_z) / theta'. */
static double period_derivative(double L, double theta0, double T, double *theta_end)
{
    mbs_model *m = pendulum(L);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = theta0;
    const mbs_param p = {MBS_PARAM_COM, 1, 2};
    mbs_sens_def sd = mbs_default_sens_def();
    sd.rtol = 1e-9;
    sd.atol = 1e-11 * theta0;
    mbs_sens *s = NULL;
    int st = mbs_sens_create(m, d, &p, 1, &sd, &s);
    if (st != MBS_OK) print_error("sens_create: %s\n", mbs_data_error(d));
    assert_int_equal(st, MBS_OK);
    st = mbs_sens_run(s, T / 4.0);
    if (st != MBS_OK) print_error("sens_run: %s\n", mbs_data_error(d));
    assert_int_equal(st, MBS_OK);
    double dq, dv;
    assert_int_equal(mbs_sens_get(s, 0, &dq, &dv), MBS_OK);
    *theta_end = mbs_data_q(d)[0];
    const double dTdL = 4.0 * dq / mbs_data_v(d)[0];
    mbs_sens_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return dTdL;
}

/* Small amplitude (theta0 = 1e-3, T within 6e-8 of 2 pi sqrt(L/g)): dT/dL = pi / sqrt(g L)
   to 1e-6 relative; large amplitude (theta0 = 2.5 rad): T = 4 sqrt(L/g) K(sin(theta0/2)),
   dT/dL = T / (2L) to 1e-7 relative (CVODES Adams, rtol 1e-9; measured 7e-8 and 1.4e-8). */
static void test_period_derivative(void **state)
{
    (void)state;
    const double L = 0.8;
    double th;
    const double small_T = 2.0 * PI * sqrt(L / G) * (1.0 + 1e-6 / 16.0);
    const double small = period_derivative(L, 1e-3, small_T, &th);
    const double small_ref = PI / sqrt(G * L);
    print_message("small amplitude: dT/dL = %.12f, 2 pi sqrt(L/g)/(2L) = %.12f (rel %.2e), "
                  "theta(T/4) = %.1e\n", small, small_ref, fabs(small - small_ref) / small_ref, th);
    assert_true(fabs(small - small_ref) < 1e-6 * small_ref);
    assert_true(fabs(th) < 1e-10);
    const double th0 = 2.5, T = 4.0 * sqrt(L / G) * ellip_k(sin(0.5 * th0));
    const double large = period_derivative(L, th0, T, &th), large_ref = T / (2.0 * L);
    print_message("amplitude 2.5 rad: T = %.12f, dT/dL = %.12f, T/(2L) = %.12f (rel %.2e), "
                  "theta(T/4) = %.1e\n", T, large, large_ref, fabs(large - large_ref) / large_ref, th);
    assert_true(fabs(large - large_ref) < 1e-7 * large_ref);
    assert_true(fabs(th) < 1e-7);
}

/* ---------------------------------------------------------------- vs central differences */

/* A free rigid body hanging from the world by a spring-damper, a link on a revolute joint
   with a joint spring-damper, a point mass on a spherical joint at its end (a swing joint),
   uniform gravity. */
static mbs_model *tree(void)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.3, -G};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0;
    bd.com[0] = 0.1;
    bd.inertia[0] = 0.3, bd.inertia[4] = 0.25, bd.inertia[8] = 0.35, bd.inertia[1] = bd.inertia[3] = 0.01;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd = mbs_default_body_def();
    bd.com[0] = 0.3;
    bd.inertia[0] = 0.01, bd.inertia[4] = 0.05, bd.inertia[8] = 0.05;
    assert_int_equal(mbs_add_body(b, &bd), 2);
    bd = mbs_default_body_def();
    bd.mass = 0.5;
    bd.com[2] = -0.4;
    memset(bd.inertia, 0, sizeof bd.inertia);
    assert_int_equal(mbs_add_body(b, &bd), 3);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = 0.4;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.parent = 2, j.child = 3, j.frame_parent.pos[0] = 0.6;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_b = 1, sd.point_a[2] = 1.0, sd.point_b[1] = 0.1;
    sd.stiffness = 60.0, sd.damping = 0.5, sd.rest_length = 0.7;
    assert_int_equal(mbs_add_spring_damper(b, &sd), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 4.0, 0.3, 0.2), 1);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* The start state of the tree runs. */
static void tree_start(mbs_data *d)
{
    test_rng r;
    test_rng_seed(&r, 21);
    test_random_state(&r, d, 0.6, 1.0, 0.0);
}

/* q, v at t = 1 from the start state with a CVODE stepper (Adams, rtol 1e-12). */
static void plain_run(const mbs_model *m, double *q, double *v)
{
    mbs_data *d = mbs_data_create(m);
    tree_start(d);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    sd.rtol = 1e-12, sd.atol = 1e-14, sd.max_internal_steps = 1000000;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    assert_int_equal(mbs_stepper_step(s, 1.0), MBS_OK);
    memcpy(q, mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    memcpy(v, mbs_data_v(d), (size_t)mbs_model_nv(m) * sizeof(double));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
}

static const mbs_param TREE_PARAMS[] = {
    {MBS_PARAM_MASS, 1, 0},      {MBS_PARAM_INERTIA, 1, 0}, {MBS_PARAM_INERTIA, 1, 1},
    {MBS_PARAM_COM, 2, 0},       {MBS_PARAM_MASS, 3, 0},    {MBS_PARAM_COM, 3, 2},
    {MBS_PARAM_STIFFNESS, 0, 0}, {MBS_PARAM_DAMPING, 1, 0}, {MBS_PARAM_REST, 0, 0},
    {MBS_PARAM_GRAVITY, 0, 1},
};
#define NTP ((int)(sizeof TREE_PARAMS / sizeof TREE_PARAMS[0]))

/* Sensitivities of q and v at t = 1 to ten parameters of every kind (masses, inertia entries
   on and off the diagonal, com coordinates of a link and of a swing point mass, spring
   stiffness, damping, rest length, a gravity component): CVODES (Adams and BDF, rtol 1e-8)
   against central differences of two CVODE runs at p +- 1e-4 max(|p|, 1) (rtol 1e-12),
   within 1e-6 of each sensitivity vector's largest entry (measured <= 3e-7). The model's parameters are bitwise the nominal
   ones after the run. */
static void test_vs_central_differences(void **state)
{
    (void)state;
    mbs_model *m = tree();
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    assert_true(nq <= 16 && nv <= 16);
    double nominal[NTP];
    for (int k = 0; k < NTP; ++k) assert_int_equal(mbs_model_get_param(m, &TREE_PARAMS[k], &nominal[k]), MBS_OK);
    double fd[NTP][32];
    for (int k = 0; k < NTP; ++k) {
        const double h = 1e-4 * fmax(fabs(nominal[k]), 1.0);
        double qp[16], vp[16], qm[16], vm[16];
        assert_int_equal(mbs_model_set_param(m, &TREE_PARAMS[k], nominal[k] + h), MBS_OK);
        plain_run(m, qp, vp);
        assert_int_equal(mbs_model_set_param(m, &TREE_PARAMS[k], nominal[k] - h), MBS_OK);
        plain_run(m, qm, vm);
        assert_int_equal(mbs_model_set_param(m, &TREE_PARAMS[k], nominal[k]), MBS_OK);
        for (int i = 0; i < nq; ++i) fd[k][i] = (qp[i] - qm[i]) / (2.0 * h);
        for (int i = 0; i < nv; ++i) fd[k][nq + i] = (vp[i] - vm[i]) / (2.0 * h);
    }
    for (int kind = MBS_STEP_CVODE_ADAMS; kind <= MBS_STEP_CVODE_BDF; ++kind) {
        mbs_data *d = mbs_data_create(m);
        tree_start(d);
        mbs_sens_def sd = mbs_default_sens_def();
        sd.kind = (mbs_stepper_kind)kind;
        sd.rtol = 1e-8, sd.atol = 1e-10;
        mbs_sens *s = NULL;
        assert_int_equal(mbs_sens_create(m, d, TREE_PARAMS, NTP, &sd, &s), MBS_OK);
        int st = mbs_sens_run(s, 1.0);
        if (st != MBS_OK) print_error("sens_run: %s\n", mbs_data_error(d));
        assert_int_equal(st, MBS_OK);
        double worst = 0.0;
        for (int k = 0; k < NTP; ++k) {
            double S[32], scale = 0.0, err = 0.0, x;
            assert_int_equal(mbs_sens_get(s, k, S, S + nq), MBS_OK);
            for (int i = 0; i < nq + nv; ++i) scale = fmax(scale, fabs(fd[k][i]));
            for (int i = 0; i < nq + nv; ++i) err = fmax(err, fabs(S[i] - fd[k][i]));
            worst = fmax(worst, err / scale);
            assert_true(scale > 1e-3); /* each parameter moves the motion */
            assert_int_equal(mbs_model_get_param(m, &TREE_PARAMS[k], &x), MBS_OK);
            assert_memory_equal(&x, &nominal[k], sizeof x);
        }
        print_message("CVODES %s sensitivities vs central differences: %.2e of the largest "
                      "entry (10 parameters)\n", kind == MBS_STEP_CVODE_BDF ? "BDF" : "Adams",
                      worst);
        assert_true(worst < 1e-6);
        mbs_sens_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* Two runs from the same start are bitwise equal; a run to 0.5 then on to 1 agrees with one
   run to 1 (1e-7 of the sensitivity scale); mbs_sens_restart starts the sensitivities at 0
   from the data's state. */
static void test_continuation_and_determinism(void **state)
{
    (void)state;
    mbs_model *m = tree();
    const int n = mbs_model_nq(m) + mbs_model_nv(m), nq = mbs_model_nq(m);
    double S[3][2][32];
    memset(S, 0, sizeof S);
    for (int r = 0; r < 3; ++r) {
        mbs_data *d = mbs_data_create(m);
        tree_start(d);
        mbs_sens_def sd = mbs_default_sens_def();
        sd.rtol = 1e-8, sd.atol = 1e-10;
        mbs_sens *s = NULL;
        assert_int_equal(mbs_sens_create(m, d, TREE_PARAMS + 4, 2, &sd, &s), MBS_OK);
        if (r == 2) assert_int_equal(mbs_sens_run(s, 0.5), MBS_OK);
        assert_int_equal(mbs_sens_run(s, 1.0), MBS_OK);
        assert_true(mbs_data_time(d) == 1.0);
        for (int k = 0; k < 2; ++k) assert_int_equal(mbs_sens_get(s, k, S[r][k], S[r][k] + nq), MBS_OK);
        if (r == 2) {
            assert_int_equal(mbs_sens_restart(s), MBS_OK);
            double z[32];
            assert_int_equal(mbs_sens_get(s, 0, z, z + nq), MBS_OK);
            for (int i = 0; i < n; ++i) assert_true(z[i] == 0.0);
            assert_int_equal(mbs_sens_run(s, 1.2), MBS_OK);
        }
        mbs_sens_destroy(s);
        mbs_data_destroy(d);
    }
    assert_memory_equal(S[0], S[1], sizeof S[0]);
    for (int k = 0; k < 2; ++k) {
        double scale = 0.0;
        for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(S[0][k][i]));
        test_assert_close(S[2][k], S[0][k], n, 1e-7 * scale, "run to 0.5 then 1 vs run to 1");
    }
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- bad input */

/* Refused arguments (status, message, nothing created), a closed-loop model, a run that
   would go backwards, a data state or parameter changed behind the run's back (MBS_ERR_STATE,
   state unchanged), bad parameter index for get. */
static void test_bad_input(void **state)
{
    (void)state;
    mbs_model *m = tree(), *m2 = tree();
    mbs_data *d = mbs_data_create(m);
    tree_start(d);
    mbs_sens_def sd = mbs_default_sens_def();
    mbs_sens *s = NULL;
    const mbs_param p[2] = {{MBS_PARAM_MASS, 1, 0}, {MBS_PARAM_MASS, 1, 0}};
    const mbs_param pi[2] = {{MBS_PARAM_INERTIA, 1, 1}, {MBS_PARAM_INERTIA, 1, 3}};
    const mbs_param pm = {MBS_PARAM_INERTIA, 3, 0}, bad = {MBS_PARAM_STIFFNESS, 5, 0};
    assert_int_equal(mbs_sens_create(m, NULL, p, 1, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(NULL, d, p, 1, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m2, d, p, 1, &sd, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "not the data's model"));
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, NULL, 1, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, p, 0, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, p, 2, &sd, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "are the same"));
    assert_int_equal(mbs_sens_create(m, d, pi, 2, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, &pm, 1, &sd, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "point mass"));
    assert_int_equal(mbs_sens_create(m, d, &bad, 1, &sd, &s), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_create(m, d, p, 1, NULL, &s), MBS_ERR_ARG);
    sd.kind = MBS_STEP_RK4;
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_ARG);
    sd = mbs_default_sens_def();
    sd.rtol = -1.0;
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_ARG);
    sd = mbs_default_sens_def();
    sd.max_step = NAN;
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_ARG);
    sd = mbs_default_sens_def();
    sd.max_internal_steps = 0;
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_ARG);
    assert_null(s);
    sd = mbs_default_sens_def();
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_OK);
    assert_int_equal(mbs_sens_run(s, 0.0), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_run(s, NAN), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_run(NULL, 1.0), MBS_ERR_ARG);
    double dq[16];
    assert_int_equal(mbs_sens_get(s, 1, dq, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_get(NULL, 0, dq, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_sens_run(s, 0.2), MBS_OK);
    /* the host moves the state, or a parameter, behind the run's back */
    mbs_data_v(d)[0] += 0.1;
    double q0[16];
    memcpy(q0, mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    assert_int_equal(mbs_sens_run(s, 0.4), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "mbs_sens_restart"));
    assert_memory_equal(q0, mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    assert_true(mbs_data_time(d) == 0.2);
    assert_int_equal(mbs_sens_restart(s), MBS_OK);
    assert_int_equal(mbs_sens_run(s, 0.4), MBS_OK);
    assert_int_equal(mbs_model_set_param(m, &p[0], 2.5), MBS_OK);
    assert_int_equal(mbs_sens_run(s, 0.6), MBS_ERR_STATE);
    assert_int_equal(mbs_sens_restart(NULL), MBS_ERR_ARG);
    mbs_sens_destroy(s);
    mbs_sens_destroy(NULL);
    mbs_data_destroy(d);
    mbs_model_destroy(m2);
    mbs_model_destroy(m);

    /* a closed loop */
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    j.child = 1, j.length = 1.0, j.frame_child.pos[0] = 1.0;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    d = mbs_data_create(m);
    assert_int_equal(mbs_sens_create(m, d, p, 1, &sd, &s), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "closed loops"));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_period_derivative),
        cmocka_unit_test(test_vs_central_differences),
        cmocka_unit_test(test_continuation_and_determinism),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
