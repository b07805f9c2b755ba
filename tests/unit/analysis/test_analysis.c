/* Analyses (src/analysis/): inverse dynamics with actuated coordinates against forward
 * dynamics and the slider-crank's Lagrange equation from mbs_energy (virtual work), the
 * minimum-norm solution of an over-actuated four-bar in closed form from its two single-
 * actuator solutions, an under-actuated five-bar (reachable and not); bad input with the
 * data and outputs unchanged. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "loop_mechanisms.h"

#define NMAX 64
#define PI 3.14159265358979323846

/* ---------------------------------------------------------------- helpers */

/* Snapshot of q, v, tau and time to check that a failed call changed nothing. */
typedef struct snapshot {
    double q[NMAX], v[NMAX], tau[NMAX], t;
} snapshot;

static void snap(mbs_data *d, snapshot *s)
{
    const mbs_model *m = mbs_data_model(d);
    memcpy(s->q, mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
    memcpy(s->v, mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
    memcpy(s->tau, mbs_data_tau(d), sizeof(double) * (size_t)mbs_model_nv(m));
    s->t = mbs_data_time(d);
}

/* q, v, tau and time bitwise as in the snapshot. */
static void assert_unchanged(mbs_data *d, const snapshot *s)
{
    const mbs_model *m = mbs_data_model(d);
    assert_memory_equal(s->q, mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
    assert_memory_equal(s->v, mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
    assert_memory_equal(s->tau, mbs_data_tau(d), sizeof(double) * (size_t)mbs_model_nv(m));
    assert_true(s->t == mbs_data_time(d));
}

/* 300 RK4 steps of 1 ms on a and b: q and v bitwise equal after each (a failed call left
   nothing behind that changes the steps after it: loop selection, partition, strategy). */
static void assert_same_run(mbs_data *a, mbs_data *b)
{
    const mbs_model *m = mbs_data_model(a);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *sa = mbs_stepper_create(a, &sd), *sb = mbs_stepper_create(b, &sd);
    assert_true(sa && sb);
    for (int k = 0; k < 300; ++k) {
        assert_int_equal(mbs_stepper_step(sa, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(sb, 1e-3), MBS_OK);
        if (memcmp(mbs_data_q(a), mbs_data_q(b), sizeof(double) * (size_t)mbs_model_nq(m)) ||
            memcmp(mbs_data_v(a), mbs_data_v(b), sizeof(double) * (size_t)mbs_model_nv(m)))
            fail_msg("step %d: the run after the failed call differs from the untried one", k);
    }
    mbs_stepper_destroy(sa);
    mbs_stepper_destroy(sb);
}

/* status == want and the message contains every given word (NULL-terminated). */
static void assert_fails(int status, int want, mbs_data *d, ...)
{
    if (status != want)
        fail_msg("status %s, want %s (%s)", mbs_status_name(status), mbs_status_name(want),
                 mbs_data_error(d));
    va_list ap;
    va_start(ap, d);
    for (const char *w = va_arg(ap, const char *); w; w = va_arg(ap, const char *))
        if (!strstr(mbs_data_error(d), w)) fail_msg("message '%s' lacks '%s'", mbs_data_error(d), w);
    va_end(ap);
}

/* Forward dynamics of tau (nv): qacc into out. */
static void forward_with(mbs_data *d, const double *tau, double *out)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    double keep[NMAX];
    memcpy(keep, mbs_data_tau(d), sizeof(double) * (size_t)nv);
    memcpy(mbs_data_tau(d), tau, sizeof(double) * (size_t)nv);
    const int st = mbs_forward_dynamics(d);
    if (st != MBS_OK) fail_msg("forward dynamics: %s", mbs_data_error(d));
    memcpy(out, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    memcpy(mbs_data_tau(d), keep, sizeof(double) * (size_t)nv);
}

/* ID_actuated(qacc) then forward dynamics of its tau returns qacc (tol, relative). */
static void check_roundtrip(mbs_data *d, const double *qacc, const int *act, int nact, double tol,
                            double *tau_out)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    double back[NMAX];
    const int st = mbs_inverse_dynamics_actuated(d, qacc, act, nact, tau_out);
    if (st != MBS_OK) fail_msg("inverse_dynamics_actuated: %s", mbs_data_error(d));
    for (int k = 0; k < nv; ++k) {
        int a = 0;
        for (int i = 0; i < nact; ++i) a |= act[i] == k;
        if (!a && tau_out[k] != 0.0) fail_msg("tau_out[%d] = %g on an unactuated index", k, tau_out[k]);
    }
    forward_with(d, tau_out, back);
    test_assert_close(back, qacc, nv, tol, "FD(ID_actuated(qacc)) vs qacc");
}

/* The four-bar p built into mech, with data at the closed state of crank angle th2 and rate
   w2 (branch +1), assembled. */
static mbs_data *fourbar_at(const lm_fourbar *p, lm_mech *mech, double th2, double w2)
{
    assert_int_equal(lm_build_fourbar(p, mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech->model);
    double th[3] = {th2, 0, 0}, w[3] = {w2, 0, 0}, al[3];
    assert_int_equal(lm_fourbar_position(p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_rates(p, th, w[0], 0.0, w, al);
    lm_fourbar_set(p, mech, d, th, w);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    return d;
}

/* ---------------------------------------------------------------- actuated inverse dynamics */

/* Four-bar (each cut choice), slider-crank (each cut choice) and the six-cylinder engine at
   closed moving states: the crank alone drives them (fully actuated); FD returns qacc. */
static void test_actuated_roundtrip(void **state)
{
    (void)state;
    double tau[NMAX], qacc[NMAX], tr[NMAX] = {0};
    const int cuts[3] = {LM_CUT_B, LM_CUT_A, LM_CUT_O4};
    for (int c = 0; c < 3; ++c) {
        lm_fourbar p = lm_default_fourbar();
        p.cut = cuts[c];
        lm_mech mech;
        mbs_data *d = fourbar_at(&p, &mech, 0.7, 1.3);
        tr[mbs_model_joint_vadr(mech.model, mech.joint[0])] = 2.5; /* a crank torque */
        forward_with(d, tr, qacc);
        const int act = mbs_model_joint_vadr(mech.model, mech.joint[0]);
        check_roundtrip(d, qacc, &act, 1, 1e-10, tau);
        assert_true(fabs(tau[act] - 2.5) <= 1e-10 * 2.5);
        memset(tr, 0, sizeof tr);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
    const int sc_cuts[3] = {LM_SC_CUT_B, LM_SC_CUT_SLIDER, LM_SC_CUT_A};
    for (int c = 0; c < 3; ++c) {
        lm_slider_crank p = lm_default_slider_crank();
        p.cut = sc_cuts[c];
        lm_mech mech;
        assert_int_equal(lm_build_slider_crank(&p, &mech), MBS_OK);
        mbs_data *d = mbs_data_create(mech.model);
        double x[3], phi[3];
        lm_slider_crank_kin(&p, 1.1, -2.0, 0.0, x, phi);
        const double s[3] = {1.1, phi[0], x[0]}, sd[3] = {-2.0, phi[1], x[1]};
        lm_slider_crank_set(&p, &mech, d, s, sd);
        assert_int_equal(mbs_assemble(d), MBS_OK);
        const int act = mbs_model_joint_vadr(mech.model, mech.joint[0]);
        tr[act] = -1.5;
        forward_with(d, tr, qacc);
        check_roundtrip(d, qacc, &act, 1, 1e-10, tau);
        memset(tr, 0, sizeof tr);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
    lm_mech eng;
    assert_int_equal(lm_build_engine6(&eng), MBS_OK);
    mbs_data *d = mbs_data_create(eng.model);
    lm_engine_set(&eng, 6, 0.4, 30.0, d);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const int act = mbs_model_joint_vadr(eng.model, eng.joint[0]);
    tr[act] = 40.0;
    forward_with(d, tr, qacc);
    check_roundtrip(d, qacc, &act, 1, 1e-10, tau);
    mbs_data_destroy(d);
    lm_mech_free(&eng);
}

/* The slider-crank's crank torque against Lagrange's equation for its one coordinate, built
   from mbs_energy alone (virtual work): with T = m(th) w^2 / 2, potential V(th) and a force F
   along x on the slider, tau = m al + m'(th) w^2 / 2 + V'(th) - F x'(th); m', V', x' by
   central differences over closed configurations of the closed form (h = 1e-5), 1e-9. */
static void test_actuated_slider_crank_virtual_work(void **state)
{
    (void)state;
    lm_slider_crank p = lm_default_slider_crank();
    lm_mech mech;
    assert_int_equal(lm_build_slider_crank(&p, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    const int nv = mbs_model_nv(mech.model);
    const double F = 35.0;
    const double force[3] = {F, 0, 0}, zero[3] = {0, 0, 0};
    assert_int_equal(mbs_set_body_wrench(d, mech.body[2], force, zero, zero), MBS_OK);
    const double ths[3] = {0.3, 2.0, 4.4}, ws[3] = {0.0, 3.0, -5.0}, als[3] = {0.0, 7.0, -2.0};
    for (int c = 0; c < 3; ++c) {
        /* m(th), V(th), x(th) at th and th +- h */
        const double h = 1e-5;
        double mth[3], V[3], X[3];
        for (int k = 0; k < 3; ++k) {
            const double th = ths[c] + (k - 1) * h;
            double x[3], phi[3], T, Vk;
            lm_slider_crank_kin(&p, th, 1.0, 0.0, x, phi);
            const double s[3] = {th, phi[0], x[0]}, sd[3] = {1.0, phi[1], x[1]};
            lm_slider_crank_set(&p, &mech, d, s, sd);
            assert_int_equal(mbs_energy(d, &T, &Vk), MBS_OK);
            mth[k] = 2.0 * T, V[k] = Vk, X[k] = x[0];
        }
        const double dm = (mth[2] - mth[0]) / (2 * h), dV = (V[2] - V[0]) / (2 * h);
        const double dx = (X[2] - X[0]) / (2 * h);
        const double want = mth[1] * als[c] + 0.5 * dm * ws[c] * ws[c] + dV - F * dx;
        /* the state and its accelerations from the closed form */
        double x[3], phi[3], qacc[NMAX], tau[NMAX];
        lm_slider_crank_kin(&p, ths[c], ws[c], als[c], x, phi);
        const double s[3] = {ths[c], phi[0], x[0]}, sd[3] = {ws[c], phi[1], x[1]};
        const double sdd[3] = {als[c], phi[2], x[2]};
        lm_slider_crank_set(&p, &mech, d, s, sdd); /* v slot: the relative accelerations */
        memcpy(qacc, mbs_data_v(d), sizeof(double) * (size_t)nv);
        lm_slider_crank_set(&p, &mech, d, s, sd);
        const int act = mbs_model_joint_vadr(mech.model, mech.joint[0]);
        assert_int_equal(mbs_inverse_dynamics_actuated(d, qacc, &act, 1, tau), MBS_OK);
        if (fabs(tau[act] - want) > 1e-9 * (1.0 + fabs(want)))
            fail_msg("th %g: crank torque %.12g, Lagrange %.12g", ths[c], tau[act], want);
    }
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* Over-actuated four-bar (crank and rocker, one dof): the solutions form the line
   t_c / tau_c + t_r / tau_r = 1 through the two single-actuator solutions; the minimum-norm
   one is its closest point to 0. FD returns qacc. */
static void test_actuated_over(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    mbs_data *d = fourbar_at(&p, &mech, 2.1, -0.8);
    const int crank = mbs_model_joint_vadr(mech.model, mech.joint[0]);
    const int rocker = mbs_model_joint_vadr(mech.model, mech.joint[2]);
    double tr[NMAX] = {0}, qacc[NMAX], tc[NMAX], tk[NMAX], t2[NMAX];
    tr[crank] = 3.0;
    forward_with(d, tr, qacc);
    check_roundtrip(d, qacc, &crank, 1, 1e-10, tc);
    check_roundtrip(d, qacc, &rocker, 1, 1e-10, tk);
    const int both[2] = {rocker, crank};
    check_roundtrip(d, qacc, both, 2, 1e-10, t2);
    const double a = 1.0 / tc[crank], b = 1.0 / tk[rocker], s = a * a + b * b;
    const double want[2] = {a / s, b / s}, got[2] = {t2[crank], t2[rocker]};
    test_assert_close(got, want, 2, 1e-10, "minimum-norm (crank, rocker) torques");
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* A five-bar linkage (two dof): ground pivots (0,0) and (0.5,0), cranks 0.3 and 0.35,
   links 0.45 and 0.4 meeting at a revolute cut joint "tip"; gravity -y. Joints 0..3 =
   crank1, link2, crank2, link3 (tree), 4 = tip (cut). */
static mbs_model *fivebar(void)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -9.81, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    const double len[4] = {0.3, 0.45, 0.35, 0.4};
    for (int i = 0; i < 4; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0 + 0.2 * i;
        bd.com[0] = 0.5 * len[i];
        bd.inertia[0] = 1e-4, bd.inertia[4] = bd.inertia[8] = bd.mass * len[i] * len[i] / 12.0;
        assert_int_equal(mbs_add_body(b, &bd), i + 1);
    }
    const int parent[4] = {MBS_WORLD, 1, MBS_WORLD, 3};
    const double px[4] = {0.0, 0.3, 0.5, 0.35};
    for (int i = 0; i < 4; ++i) {
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = parent[i], j.child = i + 1;
        j.frame_parent.pos[0] = px[i];
        assert_int_equal(mbs_add_joint(b, &j), i);
    }
    mbs_joint_def cut = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    cut.name = "tip", cut.parent = 2, cut.child = 4, cut.cut = 1;
    cut.frame_parent.pos[0] = 0.45, cut.frame_child.pos[0] = 0.4;
    assert_int_equal(mbs_add_joint(b, &cut), 4);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Closed moving state of the five-bar near cranks (1.4, 1.9). */
static void fivebar_state(mbs_data *d)
{
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    q[0] = 1.4, q[1] = -1.2, q[2] = 1.9, q[3] = 1.0;
    v[0] = 0.7, v[1] = 0.0, v[2] = -0.4, v[3] = 0.0;
    assert_int_equal(mbs_assemble(d), MBS_OK);
}

/* Under-actuated five-bar (crank1 actuated): a qacc from a crank1 torque is reachable (the
   torque comes back); one from a torque on crank2 is not: MBS_ERR_INCONSISTENT naming the
   loop ("tip"), outputs and data unchanged. Both cranks: fully actuated. */
static void test_actuated_under(void **state)
{
    (void)state;
    mbs_model *m = fivebar();
    mbs_data *d = mbs_data_create(m);
    fivebar_state(d);
    const int nv = mbs_model_nv(m);
    double tr[NMAX] = {0}, qacc[NMAX], tau[NMAX];
    tr[0] = 1.7;
    forward_with(d, tr, qacc);
    const int one = 0, two[2] = {0, 2};
    check_roundtrip(d, qacc, &one, 1, 1e-10, tau);
    assert_true(fabs(tau[0] - 1.7) <= 1e-10 * 1.7);
    tr[2] = -0.9;
    forward_with(d, tr, qacc);
    check_roundtrip(d, qacc, two, 2, 1e-10, tau);
    test_assert_close(tau, tr, nv, 1e-10, "both cranks: the torques come back");
    snapshot s;
    snap(d, &s);
    double out[NMAX];
    for (int k = 0; k < nv; ++k) out[k] = 123.0;
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, &one, 1, out), MBS_ERR_INCONSISTENT, d,
                 "not reachable", "\"tip\"", NULL);
    for (int k = 0; k < nv; ++k) assert_true(out[k] == 123.0);
    assert_unchanged(d, &s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Trees: all coordinates actuated = mbs_inverse_dynamics (1e-12) on random trees; a subset
   is reachable for a qacc that forward dynamics makes from a tau on that subset, and not
   otherwise (naming the joint). */
static void test_actuated_tree(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        test_tree_opts o = test_default_tree_opts(3 + (int)(seed % 5));
        o.springs = 2;
        mbs_model *m = test_random_tree(seed, &o);
        mbs_data *d = mbs_data_create(m);
        const int nv = mbs_model_nv(m);
        test_rng r;
        test_rng_seed(&r, seed);
        test_random_state(&r, d, 1.0, 1.0, 1.0);
        double qacc[NMAX], t1[NMAX], t2[NMAX], tr[NMAX] = {0};
        int all[NMAX];
        for (int k = 0; k < nv; ++k) qacc[k] = test_rng_uniform(&r, -2, 2), all[k] = nv - 1 - k;
        assert_int_equal(mbs_inverse_dynamics(d, qacc, t1), MBS_OK);
        assert_int_equal(mbs_inverse_dynamics_actuated(d, qacc, all, nv, t2), MBS_OK);
        test_assert_close(t2, t1, nv, 1e-12, "all actuated vs inverse dynamics");
        int sub[NMAX], ns = 0;
        for (int k = 0; k < nv; k += 2) sub[ns++] = k, tr[k] = test_rng_uniform(&r, -3, 3);
        forward_with(d, tr, qacc);
        check_roundtrip(d, qacc, sub, ns, 1e-9, t2);
        if (nv > 1) {
            tr[1] = 1.0;
            forward_with(d, tr, qacc);
            assert_fails(mbs_inverse_dynamics_actuated(d, qacc, sub, ns, t2), MBS_ERR_INCONSISTENT,
                         d, "in no loop", "v[", NULL);
        }
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Bad input: NULL, counts, indices, duplicates, non-finite qacc, a qacc that violates the
   loop at acceleration level; each its status and message, outputs and data unchanged. */
static void test_actuated_bad_input(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    mbs_data *d = fourbar_at(&p, &mech, 0.7, 1.3);
    snapshot s;
    snap(d, &s);
    double qacc[3] = {0, 0, 0}, out[3] = {7, 7, 7};
    const int one = 0, dup[2] = {1, 1}, bad = 3;
    assert_int_equal(mbs_inverse_dynamics_actuated(NULL, qacc, &one, 1, out), MBS_ERR_ARG);
    assert_fails(mbs_inverse_dynamics_actuated(d, NULL, &one, 1, out), MBS_ERR_ARG, d, "NULL", NULL);
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, NULL, 1, out), MBS_ERR_ARG, d, "NULL", NULL);
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, &one, 1, NULL), MBS_ERR_ARG, d, "NULL", NULL);
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, &one, -1, out), MBS_ERR_ARG, d, "nact", NULL);
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, &one, 4, out), MBS_ERR_ARG, d, "nact", NULL);
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, &bad, 1, out), MBS_ERR_ARG, d, "actuated[0] = 3", NULL);
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, dup, 2, out), MBS_ERR_ARG, d, "twice", NULL);
    qacc[1] = NAN;
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, &one, 1, out), MBS_ERR_NONFINITE, d, "qacc[1]", NULL);
    qacc[1] = 0.0, qacc[0] = 5.0; /* the crank accelerates, nothing else: violates the loop */
    assert_fails(mbs_inverse_dynamics_actuated(d, qacc, &one, 1, out), MBS_ERR_INCONSISTENT, d,
                 "cut joint", NULL);
    for (int k = 0; k < 3; ++k) assert_true(out[k] == 7.0);
    assert_unchanged(d, &s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* ---------------------------------------------------------------- equilibrium */

/* A bar on a revolute z joint at the world origin, com at (0, l, 0) (standing up at q = 0),
   gravity -y, a torsion spring k about q = 0 (k = 0: none): V = m g l cos q + k q^2 / 2. */
static mbs_model *spring_pendulum(double m, double l, double k, double g)
{
    mbs_builder *b = mbs_builder_create();
    const double gv[3] = {0.0, -g, 0.0};
    if (g == 0.0)
        assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    else
        assert_int_equal(mbs_builder_set_gravity(b, gv), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = m, bd.com[1] = l;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "pivot", j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    if (k > 0.0) assert_true(mbs_add_joint_spring_damper(b, 0, 0, k, 0.0, 0.0) >= 0);
    mbs_model *model = NULL;
    assert_int_equal(mbs_compile(b, &model), MBS_OK);
    mbs_builder_destroy(b);
    return model;
}

/* Root of k x = c sin x by bisection on [lo, hi] (a sign change there). */
static double spring_root(double k, double c, double lo, double hi)
{
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        if ((k * lo - c * sin(lo)) * (k * mid - c * sin(mid)) <= 0.0)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

/* Inverted pendulum with a torsion spring k < m g l: k q = m g l sin q has roots 0 and
   +-q*; from starts near each the iteration finds it to 1e-10, v = 0. */
static void test_equilibrium_spring_pendulum(void **state)
{
    (void)state;
    const double m = 2.0, l = 0.5, g = 9.81, c = m * g * l, k = 0.6 * c;
    mbs_model *model = spring_pendulum(m, l, k, g);
    mbs_data *d = mbs_data_create(model);
    const double root = spring_root(k, c, 0.5, 3.0);
    const double starts[4] = {1.0, 2.5, -1.7, 0.2}, want[4] = {root, root, -root, 0.0};
    for (int i = 0; i < 4; ++i) {
        mbs_data_q(d)[0] = starts[i];
        mbs_data_v(d)[0] = 0.3;
        const int st = mbs_equilibrium(d, NULL);
        if (st != MBS_OK) fail_msg("start %g: %s", starts[i], mbs_data_error(d));
        if (fabs(mbs_data_q(d)[0] - want[i]) > 1e-10)
            fail_msg("start %g: q %.15g, closed form %.15g", starts[i], mbs_data_q(d)[0], want[i]);
        assert_true(mbs_data_v(d)[0] == 0.0);
    }
    mbs_data_destroy(d);
    mbs_model_destroy(model);
}

/* A planar four-bar (ground pivots (0,0) and (0.6,0); crank 0.25, coupler 0.7, rocker 0.5;
   bars of 1, 1.5, 1.2 kg) in gravity -y with a line spring-damper from the world point
   (0.9, 0.8) to the coupler's middle and a damper on the crank. Joints 0 crank (state
   priority), 1 coupler, 2 rocker, 3 cut "B" (coupler-rocker). */
static mbs_model *spring_fourbar(void)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -9.81, 0.0}, len[3] = {0.25, 0.7, 0.5}, mass[3] = {1.0, 1.5, 1.2};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    for (int i = 0; i < 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = mass[i], bd.com[0] = 0.5 * len[i];
        bd.inertia[0] = 1e-4, bd.inertia[4] = bd.inertia[8] = mass[i] * len[i] * len[i] / 12.0;
        assert_int_equal(mbs_add_body(b, &bd), i + 1);
    }
    const int parent[3] = {MBS_WORLD, 1, MBS_WORLD};
    const double px[3] = {0.0, 0.25, 0.6}, q0[3] = {1.2, -0.9, 1.9};
    for (int i = 0; i < 3; ++i) {
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = parent[i], j.child = i + 1, j.state_priority = i == 0;
        j.frame_parent.pos[0] = px[i];
        assert_int_equal(mbs_add_joint(b, &j), i);
        (void)q0;
    }
    mbs_joint_def cut = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    cut.name = "B", cut.parent = 2, cut.child = 3, cut.cut = 1;
    cut.frame_parent.pos[0] = 0.7, cut.frame_child.pos[0] = 0.5;
    assert_int_equal(mbs_add_joint(b, &cut), 3);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = MBS_WORLD, sd.body_b = 2;
    sd.point_a[0] = 0.9, sd.point_a[1] = 0.8, sd.point_b[0] = 0.35;
    sd.stiffness = 120.0, sd.damping = 4.0, sd.rest_length = 0.2;
    assert_true(mbs_add_spring_damper(b, &sd) >= 0);
    assert_true(mbs_add_joint_spring_damper(b, 0, 0, 0.0, 0.5, 0.0) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Gap between the two frames of the four-bar's cut joint B, from body poses. */
static double fourbar_gap(mbs_data *d)
{
    double p2[3], R2[9], p3[3], R3[9];
    assert_int_equal(mbs_body_pose(d, 2, p2, R2), MBS_OK);
    assert_int_equal(mbs_body_pose(d, 3, p3, R3), MBS_OK);
    double gap = 0.0;
    for (int i = 0; i < 3; ++i) gap = fmax(gap, fabs(p2[i] + R2[3 * i] * 0.7 - p3[i] - R3[3 * i] * 0.5));
    return gap;
}

/* The spring four-bar from a closed state near crank 1.2 at rest. */
static void spring_fourbar_start(mbs_data *d)
{
    double *q = mbs_data_q(d);
    q[0] = 1.2, q[1] = -0.9, q[2] = 1.9;
    memset(mbs_data_v(d), 0, 3 * sizeof(double));
    assert_int_equal(mbs_assemble(d), MBS_OK);
}

/* Four-bar with a spring: at the equilibrium the loop is closed (1e-12 from body poses), the
   potential is stationary along the mechanism's motion (central difference over closed
   configurations: dV/dth2 below 1e-8 of m g l), the crank needs no torque to hold it
   (actuated inverse dynamics at rest, 1e-9), and a 40 s damped simulation from the same start
   comes to rest there (CVODE BDF, 1e-9 rad). */
static void test_equilibrium_fourbar(void **state)
{
    (void)state;
    mbs_model *m = spring_fourbar();
    mbs_data *d = mbs_data_create(m);
    spring_fourbar_start(d);
    assert_int_equal(mbs_equilibrium(d, NULL), MBS_OK);
    double qe[3];
    memcpy(qe, mbs_data_q(d), sizeof qe);
    assert_true(fourbar_gap(d) < 1e-12);
    double tau[3], zero[3] = {0, 0, 0};
    const int crank = 0;
    assert_int_equal(mbs_inverse_dynamics_actuated(d, zero, &crank, 1, tau), MBS_OK);
    assert_true(fabs(tau[0]) < 1e-9);
    const double h = 1e-5;
    double V[2];
    for (int s = 0; s < 2; ++s) {
        memcpy(mbs_data_q(d), qe, sizeof qe);
        mbs_data_q(d)[0] = qe[0] + (s ? h : -h);
        assert_int_equal(mbs_assemble(d), MBS_OK);
        assert_true(fabs(mbs_data_q(d)[0] - (qe[0] + (s ? h : -h))) < 1e-15);
        double T;
        assert_int_equal(mbs_energy(d, &T, &V[s]), MBS_OK);
    }
    const double dV = (V[1] - V[0]) / (2 * h);
    if (fabs(dV) > 1e-8 * 9.81) fail_msg("dV/dth2 = %g at the equilibrium", dV);
    spring_fourbar_start(d);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_CVODE_BDF);
    sd.rtol = 1e-10, sd.atol = 1e-12;
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    assert_non_null(st);
    assert_int_equal(mbs_stepper_step(st, 40.0), MBS_OK);
    mbs_stepper_destroy(st);
    if (fabs(mbs_data_q(d)[0] - qe[0]) > 1e-9)
        fail_msg("simulation rests at crank %.12g, equilibrium %.12g", mbs_data_q(d)[0], qe[0]);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Data of the spring four-bar m at rest from its start with coordinate k held: q_k bitwise
   unchanged and the loop closed (1e-12 from body poses). */
static mbs_data *fourbar_held_rest(const mbs_model *m, int k)
{
    mbs_data *d = mbs_data_create(m);
    spring_fourbar_start(d);
    const double held = mbs_data_q(d)[k];
    unsigned char mask[3] = {0, 0, 0};
    mask[k] = 1;
    assert_int_equal(mbs_equilibrium(d, mask), MBS_OK);
    assert_true(mbs_data_q(d)[k] == held);
    assert_true(fourbar_gap(d) < 1e-12);
    return d;
}

/* Held coordinates keep their values bitwise: a double pendulum hanging (gravity -y, links
   along x) with joint 1 held at 0.4 rad has link 2 hanging straight down, q2 = -pi/2 - 0.4
   (1e-10); the spring four-bar with its crank held is only closed. */
static void test_equilibrium_fixed(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -9.81, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    for (int i = 0; i < 2; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.com[0] = 0.5;
        assert_int_equal(mbs_add_body(b, &bd), i + 1);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = i, j.child = i + 1, j.frame_parent.pos[0] = i ? 1.0 : 0.0;
        assert_int_equal(mbs_add_joint(b, &j), i);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.4, mbs_data_q(d)[1] = -1.0;
    const unsigned char fix[2] = {1, 0};
    assert_int_equal(mbs_equilibrium(d, fix), MBS_OK);
    assert_true(mbs_data_q(d)[0] == 0.4);
    assert_true(fabs(mbs_data_q(d)[1] - (-PI / 2 - 0.4)) < 1e-10);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    m = spring_fourbar();
    mbs_data_destroy(fourbar_held_rest(m, 0));
    mbs_model_destroy(m);
}

/* A spherical pendulum (quaternion) with a line spring from the world to a point off its
   axis (a spring on the axis would leave the spin about it free: not isolated):
   the equilibrium makes the potential stationary in all three tangent directions (central
   differences of mbs_energy, 1e-9 of m g l). */
static void test_equilibrium_quaternion(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0, bd.com[0] = 0.4;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = MBS_WORLD, sd.body_b = 1, sd.point_b[0] = 0.8, sd.point_b[1] = 0.15;
    sd.point_a[0] = 0.3, sd.point_a[1] = 0.5, sd.point_a[2] = 0.2;
    sd.stiffness = 50.0, sd.rest_length = 0.1;
    assert_true(mbs_add_spring_damper(b, &sd) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    const double w[3] = {0.3, -0.8, 0.5};
    double q0[4];
    mbs_neutral_q(m, q0);
    assert_int_equal(mbs_integrate_q(m, q0, w, 1.0, mbs_data_q(d)), MBS_OK);
    assert_int_equal(mbs_equilibrium(d, NULL), MBS_OK);
    double qe[4], qq[4], T, Vp, Vm;
    memcpy(qe, mbs_data_q(d), sizeof qe);
    const double h = 1e-5;
    for (int k = 0; k < 3; ++k) {
        double e[3] = {0, 0, 0};
        e[k] = 1.0;
        assert_int_equal(mbs_integrate_q(m, qe, e, h, qq), MBS_OK);
        memcpy(mbs_data_q(d), qq, sizeof qq);
        assert_int_equal(mbs_energy(d, &T, &Vp), MBS_OK);
        assert_int_equal(mbs_integrate_q(m, qe, e, -h, qq), MBS_OK);
        memcpy(mbs_data_q(d), qq, sizeof qq);
        assert_int_equal(mbs_energy(d, &T, &Vm), MBS_OK);
        if (fabs(Vp - Vm) / (2 * h) > 1e-9 * 2.0 * 9.81 * 0.4)
            fail_msg("dV/dw_%d = %g at the equilibrium", k, (Vp - Vm) / (2 * h));
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* No equilibrium (a constant torque above m g l: CONVERGENCE), one that is not isolated (no
   gravity, no spring: SINGULAR), bad masks (a value 2, part of a quaternion, a four-bar
   with two coordinates held), NULL: each its status and message, q, v, tau unchanged; after
   the four-bar's failure the run goes on bitwise as on data that never tried. */
static void test_equilibrium_bad(void **state)
{
    (void)state;
    const double m = 2.0, l = 0.5, g = 9.81;
    mbs_model *model = spring_pendulum(m, l, 0.0, g);
    mbs_data *d = mbs_data_create(model);
    mbs_data_q(d)[0] = 2.0, mbs_data_v(d)[0] = 0.5, mbs_data_tau(d)[0] = 1.5 * m * g * l;
    snapshot s;
    snap(d, &s);
    assert_fails(mbs_equilibrium(d, NULL), MBS_ERR_CONVERGENCE, d, "none found", "\"pivot\"", NULL);
    assert_unchanged(d, &s);
    const unsigned char two = 2;
    assert_fails(mbs_equilibrium(d, &two), MBS_ERR_ARG, d, "fixed[0] = 2", NULL);
    assert_unchanged(d, &s);
    assert_int_equal(mbs_equilibrium(NULL, NULL), MBS_ERR_ARG);
    mbs_data_tau(d)[0] = 0.8 * m * g * l; /* below m g l: two equilibria per turn */
    assert_int_equal(mbs_equilibrium(d, NULL), MBS_OK);
    assert_true(fabs(m * g * l * sin(mbs_data_q(d)[0]) + 0.8 * m * g * l) < 1e-12 * m * g * l);
    mbs_data_destroy(d);
    mbs_model_destroy(model);

    model = spring_pendulum(m, l, 0.0, 0.0); /* every angle is an equilibrium */
    d = mbs_data_create(model);
    mbs_data_q(d)[0] = 0.3;
    snap(d, &s);
    assert_fails(mbs_equilibrium(d, NULL), MBS_ERR_SINGULAR, d, "not isolated", "v[0]", NULL);
    assert_unchanged(d, &s);
    mbs_data_destroy(d);
    mbs_model_destroy(model);

    test_tree_opts o = test_default_tree_opts(5);
    o.quaternions_only = 1;
    for (uint64_t seed = 1; seed < 40; ++seed) { /* a tree with a quaternion joint */
        model = test_random_tree(seed, &o);
        int jq = -1;
        for (int j = 0; j < mbs_model_njoint(model) && jq < 0; ++j)
            if (mbs_model_joint_nq(model, j) != mbs_model_joint_nv(model, j)) jq = j;
        if (jq >= 0) break;
        mbs_model_destroy(model);
        model = NULL;
    }
    assert_non_null(model);
    d = mbs_data_create(model);
    unsigned char mask[NMAX] = {0};
    for (int j = 0; j < mbs_model_njoint(model); ++j)
        if (mbs_model_joint_nq(model, j) != mbs_model_joint_nv(model, j)) {
            mask[mbs_model_joint_vadr(model, j) + mbs_model_joint_nv(model, j) - 2] = 1;
            break;
        }
    snap(d, &s);
    assert_fails(mbs_equilibrium(d, mask), MBS_ERR_ARG, d, "part of the rotation", "quaternion", NULL);
    assert_unchanged(d, &s);
    mbs_data_destroy(d);
    mbs_model_destroy(model);

    model = spring_fourbar();
    d = mbs_data_create(model);
    spring_fourbar_start(d);
    snap(d, &s);
    const unsigned char both[3] = {1, 0, 1};
    assert_fails(mbs_equilibrium(d, both), MBS_ERR_ARG, d, "fixed holds", "\"B\"", NULL);
    assert_unchanged(d, &s);
    mbs_data *untried = mbs_data_create(model);
    spring_fourbar_start(untried);
    assert_same_run(d, untried); /* the loop solver's state was put back too */
    mbs_data_destroy(untried);
    mbs_data_destroy(d);
    mbs_model_destroy(model);
}

/* ---------------------------------------------------------------- position solving */

#define L1 1.0
#define L2 0.7

/* Double pendulum in the x-y plane (revolute z joints "j1", "j2", links along x of lengths
   L1, L2, bodies "link1", "link2"), gravity -y. */
static mbs_model *double_pendulum(void)
{
    mbs_builder *b = mbs_builder_create();
    const double len[2] = {L1, L2};
    const char *bn[2] = {"link1", "link2"}, *jn[2] = {"j1", "j2"};
    for (int i = 0; i < 2; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.name = bn[i], bd.com[0] = 0.5 * len[i];
        assert_int_equal(mbs_add_body(b, &bd), i + 1);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.name = jn[i], j.parent = i, j.child = i + 1, j.frame_parent.pos[0] = i ? L1 : 0.0;
        assert_int_equal(mbs_add_joint(b, &j), i);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Two-link inverse kinematics in closed form: elbow sign +1 / -1. */
static void two_link_ik(double x, double y, int elbow, double q[2])
{
    const double c2 = (x * x + y * y - L1 * L1 - L2 * L2) / (2.0 * L1 * L2);
    q[1] = elbow * acos(c2);
    q[0] = atan2(y, x) - atan2(L2 * sin(q[1]), L1 + L2 * cos(q[1]));
}

/* MSL's DoublePendulumInitTip: the tip placed at (0.9, 0.8) from starts near either elbow
   gives the closed-form angles of that elbow (1e-10); a 3-D target (z = 0 on the planar arm:
   a row that holds whatever q is) the same; with j1 held at the elbow-up value the same
   solution, j1 bitwise unchanged. */
static void test_positions_double_pendulum(void **state)
{
    (void)state;
    mbs_model *m = double_pendulum();
    mbs_data *d = mbs_data_create(m);
    const mbs_position_target tip = {2, {L2, 0, 0}, {0.9, 0.8, 0.0}};
    const double starts[2][2] = {{0.2, 1.0}, {1.2, -1.1}};
    for (int e = 0; e < 2; ++e) {
        double want[2];
        two_link_ik(0.9, 0.8, e ? -1 : 1, want);
        mbs_data_q(d)[0] = starts[e][0], mbs_data_q(d)[1] = starts[e][1];
        const int st = mbs_solve_positions(d, &tip, 1, NULL);
        if (st != MBS_OK) fail_msg("elbow %d: %s", e, mbs_data_error(d));
        test_assert_close(mbs_data_q(d), want, 2, 1e-10, "two-link IK");
    }
    double want[2];
    two_link_ik(0.9, 0.8, 1, want);
    mbs_data_q(d)[0] = want[0], mbs_data_q(d)[1] = 0.4;
    const unsigned char hold[2] = {1, 0};
    assert_int_equal(mbs_solve_positions(d, &tip, 1, hold), MBS_OK);
    assert_true(mbs_data_q(d)[0] == want[0]);
    assert_true(fabs(mbs_data_q(d)[1] - want[1]) < 1e-10);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Out of reach: a tip target 2 m from the pivot (arms 1.7 m; link1 placed along it by another
   target) is MBS_ERR_INCONSISTENT naming it,
   0.3 m away; a 3-D target 0.1 m off the arm's plane likewise, 0.1 m away; data unchanged. */
static void test_positions_unreachable(void **state)
{
    (void)state;
    mbs_model *m = double_pendulum();
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.3, mbs_data_q(d)[1] = 0.5, mbs_data_v(d)[0] = 1.0;
    snapshot s;
    snap(d, &s);
    const mbs_position_target far[2] = {{1, {0.5, 0, 0}, {0.3, 0.4, 0.0}},
                                        {2, {L2, 0, 0}, {1.2, 1.6, 0.0}}};
    assert_fails(mbs_solve_positions(d, far, 2, NULL), MBS_ERR_INCONSISTENT, d,
                 "target 1 (body \"link2\")", "0.3 m away", NULL);
    assert_unchanged(d, &s);
    const mbs_position_target off = {2, {L2, 0, 0}, {0.9, 0.8, 0.1}};
    assert_fails(mbs_solve_positions(d, &off, 1, NULL), MBS_ERR_INCONSISTENT, d, "target 0",
                 "0.1 m away", NULL);
    assert_unchanged(d, &s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The four-bar's coupler point (0.3, 0.05) on the coupler placed where it is at crank 1.0,
   from the closed state at crank 1.3: crank 1.0 again (1e-9), the point on target (1e-10),
   the loop closed (1e-12 from body poses). */
static void test_positions_fourbar(void **state)
{
    (void)state;
    mbs_model *m = spring_fourbar();
    mbs_data *d = mbs_data_create(m);
    double *q = mbs_data_q(d);
    q[0] = 1.0, q[1] = -0.9, q[2] = 1.9;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_true(q[0] == 1.0);
    double pos[3], R[9];
    mbs_position_target t = {2, {0.3, 0.05, 0.0}, {0, 0, 0}};
    assert_int_equal(mbs_body_pose(d, 2, pos, R), MBS_OK);
    for (int i = 0; i < 3; ++i) t.pos[i] = pos[i] + R[3 * i] * 0.3 + R[3 * i + 1] * 0.05;
    q[0] = 1.3;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const int st = mbs_solve_positions(d, &t, 1, NULL);
    if (st != MBS_OK) fail_msg("%s", mbs_data_error(d));
    assert_true(fabs(q[0] - 1.0) < 1e-9);
    assert_int_equal(mbs_body_pose(d, 2, pos, R), MBS_OK);
    for (int i = 0; i < 3; ++i)
        assert_true(fabs(pos[i] + R[3 * i] * 0.3 + R[3 * i + 1] * 0.05 - t.pos[i]) < 1e-10);
    assert_true(fourbar_gap(d) < 1e-12);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Random trees of every joint type (quaternions included): two points of the last body
   placed where a random configuration puts them, from another one; both on target (1e-10). */
static void test_positions_random_trees(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        test_tree_opts o = test_default_tree_opts(6);
        mbs_model *m = test_random_tree(seed + 100, &o);
        mbs_data *d = mbs_data_create(m);
        const int nq = mbs_model_nq(m), body = mbs_model_nbody(m) - 1;
        test_rng r;
        test_rng_seed(&r, seed);
        test_random_state(&r, d, 1.0, 0.0, 0.0);
        mbs_position_target t[2] = {{body, {0.1, 0.0, 0.0}, {0}}, {body, {0.0, 0.2, -0.1}, {0}}};
        for (int k = 0; k < 2; ++k) {
            double pos[3], R[9];
            assert_int_equal(mbs_body_pose(d, body, pos, R), MBS_OK);
            for (int i = 0; i < 3; ++i)
                t[k].pos[i] = pos[i] + R[3 * i] * t[k].point[0] + R[3 * i + 1] * t[k].point[1] +
                              R[3 * i + 2] * t[k].point[2];
        }
        double q0[NMAX], dv[NMAX];
        memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
        for (int k = 0; k < mbs_model_nv(m); ++k) dv[k] = test_rng_uniform(&r, -0.3, 0.3);
        assert_int_equal(mbs_integrate_q(m, q0, dv, 1.0, mbs_data_q(d)), MBS_OK);
        const int st = mbs_solve_positions(d, t, 2, NULL);
        if (st != MBS_OK) fail_msg("seed %d: %s", (int)seed, mbs_data_error(d));
        for (int k = 0; k < 2; ++k) {
            double pos[3], R[9];
            assert_int_equal(mbs_body_pose(d, body, pos, R), MBS_OK);
            for (int i = 0; i < 3; ++i) {
                const double x = pos[i] + R[3 * i] * t[k].point[0] + R[3 * i + 1] * t[k].point[1] +
                                 R[3 * i + 2] * t[k].point[2];
                if (fabs(x - t[k].pos[i]) > 1e-10) fail_msg("seed %d target %d: off by %g", (int)seed, k, x - t[k].pos[i]);
            }
        }
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Bad input: NULL, counts, bodies, non-finite targets, masks; each its status and message,
   data unchanged. */
static void test_positions_bad_input(void **state)
{
    (void)state;
    mbs_model *m = double_pendulum();
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.3;
    snapshot s;
    snap(d, &s);
    mbs_position_target t = {2, {L2, 0, 0}, {0.9, 0.8, 0.0}};
    assert_int_equal(mbs_solve_positions(NULL, &t, 1, NULL), MBS_ERR_ARG);
    assert_fails(mbs_solve_positions(d, NULL, 1, NULL), MBS_ERR_ARG, d, "NULL targets", NULL);
    assert_fails(mbs_solve_positions(d, &t, -1, NULL), MBS_ERR_ARG, d, "n < 0", NULL);
    t.body = 0;
    assert_fails(mbs_solve_positions(d, &t, 1, NULL), MBS_ERR_ARG, d, "targets[0].body = 0", NULL);
    t.body = 3;
    assert_fails(mbs_solve_positions(d, &t, 1, NULL), MBS_ERR_ARG, d, "targets[0].body = 3", NULL);
    t.body = 2, t.pos[1] = NAN;
    assert_fails(mbs_solve_positions(d, &t, 1, NULL), MBS_ERR_ARG, d, "not finite", NULL);
    t.pos[1] = 0.8;
    const unsigned char bad[2] = {0, 3};
    assert_fails(mbs_solve_positions(d, &t, 1, bad), MBS_ERR_ARG, d, "fixed[1] = 3", "\"j2\"", NULL);
    const unsigned char all[2] = {1, 1};
    assert_fails(mbs_solve_positions(d, &t, 1, all), MBS_ERR_INCONSISTENT, d, "target 0", NULL);
    assert_unchanged(d, &s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Held coordinates that the loops' partition would make dependent: the five-bar (two dof)
   with crank 2 held (bitwise) comes to rest where crank 2 alone can hold it (the actuated
   inverse dynamics at rest with only crank 2 actuated is reachable, 1e-9 of m g l), closed
   (its cut residual from body poses 1e-12); the spring four-bar with its rocker held is
   only closed, rocker bitwise; solve_positions with the crank held moves the rest so that a
   rocker point reaches where it is at crank 0.9, crank bitwise. */
static void test_loops_held_dependent(void **state)
{
    (void)state;
    mbs_model *m = fivebar();
    mbs_data *d = mbs_data_create(m);
    fivebar_state(d);
    memset(mbs_data_v(d), 0, 4 * sizeof(double));
    const double crank2 = mbs_data_q(d)[2];
    const unsigned char hold2[4] = {0, 0, 1, 0};
    { int st0 = mbs_equilibrium(d, hold2); if (st0) fail_msg("%s", mbs_data_error(d)); }
    assert_true(mbs_data_q(d)[2] == crank2);
    double zero[4] = {0, 0, 0, 0}, tau[4], p2[3], R2[9], p4[3], R4[9];
    const int act = 2;
    const int st = mbs_inverse_dynamics_actuated(d, zero, &act, 1, tau);
    if (st != MBS_OK) fail_msg("%s", mbs_data_error(d));
    assert_int_equal(mbs_body_pose(d, 2, p2, R2), MBS_OK);
    assert_int_equal(mbs_body_pose(d, 4, p4, R4), MBS_OK);
    for (int i = 0; i < 3; ++i) assert_true(fabs(p2[i] + R2[3 * i] * 0.45 - p4[i] - R4[3 * i] * 0.4) < 1e-12);
    mbs_data_destroy(d);
    mbs_model_destroy(m);

    m = spring_fourbar();
    d = fourbar_held_rest(m, 2);
    double *q = mbs_data_q(d), pos[3], R[9];
    q[0] = 0.9;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    mbs_position_target t = {3, {0.25, 0.0, 0.0}, {0, 0, 0}};
    assert_int_equal(mbs_body_pose(d, 3, pos, R), MBS_OK);
    for (int i = 0; i < 3; ++i) t.pos[i] = pos[i] + R[3 * i] * 0.25;
    q[0] = 1.3;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const double crank = q[0];
    const unsigned char hold_c[3] = {1, 0, 0};
    assert_fails(mbs_solve_positions(d, &t, 1, hold_c), MBS_ERR_INCONSISTENT, d, "target 0", NULL);
    q[0] = 0.9;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    q[2] += 0.05; /* off the loop: the solver closes it, the crank held */
    assert_int_equal(mbs_solve_positions(d, &t, 1, hold_c), MBS_OK);
    assert_true(q[0] == 0.9 && crank == 1.3);
    assert_int_equal(mbs_body_pose(d, 3, pos, R), MBS_OK);
    for (int i = 0; i < 3; ++i) assert_true(fabs(pos[i] + R[3 * i] * 0.25 - t.pos[i]) < 1e-10);
    assert_true(fourbar_gap(d) < 1e-12);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- reaction reuse */

/* Reaction of joint j in a fresh data object at d's state (its first query: no reuse). */
static void fresh_reaction(mbs_data *d, int j, double F[3], double T[3])
{
    const mbs_model *m = mbs_data_model(d);
    mbs_data *e = mbs_data_create(m);
    memcpy(mbs_data_q(e), mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
    memcpy(mbs_data_v(e), mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
    memcpy(mbs_data_tau(e), mbs_data_tau(d), sizeof(double) * (size_t)mbs_model_nv(m));
    const double f[3] = {0.5, -1.0, 2.0}, t[3] = {0.1, 0.0, -0.2}, p[3] = {0.1, 0.0, 0.0};
    if (mbs_data_time(d) > 0.0) assert_int_equal(mbs_set_body_wrench(e, 1, f, t, p), MBS_OK);
    assert_int_equal(mbs_data_set_time(e, mbs_data_time(d)), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(e), MBS_OK);
    assert_int_equal(mbs_joint_reaction(e, j, F, T), MBS_OK);
    mbs_data_destroy(e);
}

/* The reactions of all joints from one backward pass equal each joint's reaction computed
   alone (bitwise), and follow a new state: tau changed, then a host wrench (marked by
   t = 1 here), each followed by forward dynamics. */
static void test_reactions_reused(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        test_tree_opts o = test_default_tree_opts(4 + (int)seed);
        o.springs = 2;
        mbs_model *m = test_random_tree(seed + 30, &o);
        mbs_data *d = mbs_data_create(m);
        test_rng r;
        test_rng_seed(&r, seed);
        test_random_state(&r, d, 1.0, 1.0, 1.0);
        for (int round = 0; round < 3; ++round) {
            if (round == 1) mbs_data_tau(d)[0] += 1.0;
            if (round == 2) {
                const double f[3] = {0.5, -1.0, 2.0}, t[3] = {0.1, 0.0, -0.2}, p[3] = {0.1, 0.0, 0.0};
                assert_int_equal(mbs_set_body_wrench(d, 1, f, t, p), MBS_OK);
                assert_int_equal(mbs_data_set_time(d, 1.0), MBS_OK);
            }
            assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
            for (int j = 0; j < mbs_model_njoint(m); ++j) {
                double F[3], T[3], F2[3], T2[3];
                assert_int_equal(mbs_joint_reaction(d, j, F, T), MBS_OK);
                fresh_reaction(d, j, F2, T2);
                assert_memory_equal(F, F2, sizeof F);
                assert_memory_equal(T, T2, sizeof T);
            }
        }
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_actuated_roundtrip),
        cmocka_unit_test(test_actuated_slider_crank_virtual_work),
        cmocka_unit_test(test_actuated_over),
        cmocka_unit_test(test_actuated_under),
        cmocka_unit_test(test_actuated_tree),
        cmocka_unit_test(test_actuated_bad_input),
        cmocka_unit_test(test_equilibrium_spring_pendulum),
        cmocka_unit_test(test_equilibrium_fourbar),
        cmocka_unit_test(test_equilibrium_fixed),
        cmocka_unit_test(test_equilibrium_quaternion),
        cmocka_unit_test(test_equilibrium_bad),
        cmocka_unit_test(test_positions_double_pendulum),
        cmocka_unit_test(test_positions_unreachable),
        cmocka_unit_test(test_positions_fourbar),
        cmocka_unit_test(test_positions_random_trees),
        cmocka_unit_test(test_positions_bad_input),
        cmocka_unit_test(test_loops_held_dependent),
        cmocka_unit_test(test_reactions_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
