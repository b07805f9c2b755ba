/* Real-time guarantee: after mbs_data_create (and mbs_stepper_create) the dynamics calls
 * perform no heap allocation. The allocator of this executable is interposed (count_alloc.h):
 * malloc, calloc, realloc, free and the aligned variants forward to glibc's __libc_* and
 * count between count_begin and count_end. To cover a new call, add a row to the table in main's tests
 * (a function `int call(mbs_data *d)`) or a test that uses count_calls(). Closed loops: the
 * table, fixed-step stepping and a failed step (restoring the loop solver's state) on
 * N-four-bars (test_loops_no_alloc). */
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "loop_assemblies.h"
#include "count_alloc.h"
#include "elements_models.h"

/* ---------------------------------------------------------------- calls under test */
typedef int (*data_call)(mbs_data *d);
static double outbuf[1 << 16]; /* outputs (M and a vector up to nv = 255), allocated before counting */

static int call_forward(mbs_data *d) { return mbs_forward_dynamics(d); }
static int call_inverse(mbs_data *d)
{
    return mbs_inverse_dynamics(d, mbs_data_qacc(d), outbuf);
}
static int call_mass(mbs_data *d) { return mbs_mass_matrix(d, outbuf); }
static int call_bias(mbs_data *d) { return mbs_bias_forces(d, outbuf); }
static int call_queries(mbs_data *d)
{
    const int last = mbs_model_nbody(d->model) - 1;
    const double pt[3] = {0.1, 0.0, 0.0};
    double a[6], c[3], l[3], h[3], F[3], T[3];
    int st = mbs_point_jacobian(d, last, pt, outbuf);
    if (st == MBS_OK) st = mbs_point_bias_acceleration(d, last, pt, a);
    if (st == MBS_OK) st = mbs_com(d, c);
    if (st == MBS_OK) st = mbs_momentum(d, l, h);
    if (st == MBS_OK) st = mbs_forward_dynamics(d);
    for (int j = 0; st == MBS_OK && j < mbs_model_njoint(d->model); ++j)
        if (mbs_model_joint_is_cut(d->model, j) || mbs_model_joint_nv(d->model, j) >= 0)
            st = mbs_joint_reaction(d, j, F, T);
    return st;
}
/* Forward dynamics, then the actuated inverse dynamics of its qacc with every coordinate
   actuated (over-actuated with loops: the minimum-norm path through LAPACK). */
static int call_actuated(mbs_data *d)
{
    static int act[256];
    const int nv = mbs_model_nv(d->model);
    for (int k = 0; k < nv; ++k) act[k] = k;
    int st = mbs_forward_dynamics(d);
    if (st == MBS_OK) st = mbs_inverse_dynamics_actuated(d, mbs_data_qacc(d), act, nv, outbuf);
    return st;
}
static int call_mass_factor_solve(mbs_data *d)
{
    const int nv = mbs_model_nv(d->model);
    double *x = outbuf + (size_t)nv * (size_t)nv;
    for (int i = 0; i < nv; ++i) x[i] = 1.0 + i;
    const int st = mbs_mass_matrix_factor(d, outbuf);
    return st == MBS_OK ? mbs_mass_matrix_solve(d, outbuf, x) : st;
}
static int call_energy(mbs_data *d)
{
    double T, V;
    return mbs_energy(d, &T, &V);
}
static int call_kinematics(mbs_data *d)
{
    mbs_kinematics(d);
    mbs_kinematics_pos(d);
    return MBS_OK;
}
static int call_pose_velocity(mbs_data *d)
{
    double p[3], R[9], w[3];
    const int last = mbs_model_nbody(d->model) - 1;
    int st = mbs_body_pose(d, last, p, R);
    if (st == MBS_OK) st = mbs_body_velocity(d, last, p, w);
    return st;
}
static int call_wrench(mbs_data *d)
{
    const double F[3] = {1, 2, 3}, T[3] = {0.1, 0.2, 0.3}, P[3] = {0.1, 0, 0};
    return mbs_set_body_wrench(d, 1, F, T, P);
}
/* Derivatives (trees and loops), linearisation and modes; outputs up to nv = 180. */
static double derivbuf[6 * 180 * 180];
static int call_derivatives(mbs_data *d)
{
    const int nv = mbs_model_nv(d->model), loops = mbs_model_ncon(d->model) > 0;
    double *a = derivbuf, *b = a + (size_t)nv * (size_t)nv, *c = b + (size_t)nv * (size_t)nv;
    int st = MBS_OK, nx = 0, n = 2 * nv;
    if (!loops) st = mbs_inverse_dynamics_derivatives(d, mbs_data_qacc(d), a, b, c);
    if (st == MBS_OK) st = mbs_forward_dynamics_derivatives(d, a, b, c);
    if (st == MBS_ERR_STATE) st = MBS_OK; /* elements outside the analytic derivatives
                                             (couplings, nodes, coordinate rows) */
    if (loops && st == MBS_ERR_SINGULAR) st = MBS_OK; /* loops near a singular position */
    if (st == MBS_OK) st = mbs_linearize(d, derivbuf, derivbuf + 4 * (size_t)nv * (size_t)nv, &nx);
    if (st == MBS_OK) st = mbs_modes(d, outbuf, outbuf + n, &n);
    return st;
}
static int call_assemble(mbs_data *d)
{
    int rank;
    const int st = mbs_assemble(d);
    return st == MBS_OK ? mbs_constraint_info(d, &rank, NULL) : st;
}

static const struct {
    const char *name;
    data_call fn;
} calls[] = {
    {"set_body_wrench", call_wrench},   {"forward_dynamics", call_forward},
    {"inverse_dynamics", call_inverse}, {"mass_matrix", call_mass},
    {"bias_forces", call_bias},         {"energy", call_energy},
    {"mass_matrix_factor/solve", call_mass_factor_solve},
    {"point_jacobian/bias/com/momentum/joint_reaction", call_queries},
    {"kinematics", call_kinematics},    {"body_pose/velocity", call_pose_velocity},
    {"assemble", call_assemble},
    {"inverse_dynamics_actuated", call_actuated},
    {"inverse/forward_dynamics_derivatives, linearize, modes", call_derivatives},
};

/* 1: linearize may refuse (MBS_ERR_SINGULAR) near a singular position of the loops, where
   its differences lose their accuracy; the refusal must not allocate either. */
static int near_singular;

/* Every call of the table succeeds on d without allocating or freeing. */
static void run_table(mbs_data *d)
{
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; ++k) {
        count_begin();
        const int st = calls[k].fn(d);
        const long n = count_end();
        if (st != MBS_OK && !(near_singular && st == MBS_ERR_SINGULAR && calls[k].fn == call_derivatives))
            fail_msg("%s: %s (%s)", calls[k].name, mbs_status_name(st), mbs_data_error(d));
        if (n != 0) fail_msg("%s: %ld allocations/frees", calls[k].name, n);
    }
}

/* The counter works: creating and destroying data allocates and frees. */
static void test_counter_works(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(4);
    mbs_model *m = test_random_tree(1, &o);
    count_begin();
    mbs_data *d = mbs_data_create(m);
    const long created = count_end();
    assert_non_null(d);
    assert_true(created > 0);
    count_begin();
    mbs_data_destroy(d);
    assert_true(count_end() > 0);
    count_begin();
    void *volatile p = malloc(16); /* volatile: the pair is not optimised away */
    free(p);
    assert_int_equal(count_end(), 2);
    mbs_model_destroy(m);
}

/* Every call of the table on random trees (all joint kinds, both gravity fields). */
static void test_dynamics_no_alloc(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 6; ++seed) {
        test_tree_opts o = test_default_tree_opts(4 + 3 * seed);
        o.gravity = seed % 3;
        o.springs = (seed + 1) % 3; /* none, undamped, damped force elements */
        mbs_model *m = test_random_tree((uint64_t)seed, &o);
        mbs_data *d = mbs_data_create(m);
        assert_non_null(d);
        test_rng r;
        test_rng_seed(&r, (uint64_t)seed);
        test_random_state(&r, d, 1, 1, 1);
        run_table(d);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* A user force law that pushes body 1 and drives dof 0. */
static int push(mbs_data *d, void *user)
{
    const double F[3] = {0.0, 1.0, 0.0}, P[3] = {0.1, 0.0, 0.0};
    (void)user;
    const int st = mbs_apply_body_wrench(d, 1, F, NULL, P);
    return st == MBS_OK ? mbs_apply_generalized_force(d, 0, 0.5) : st;
}

/* The table on a chain with a force callback (apply_* inside the callback). */
static void test_callback_no_alloc(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    for (int i = 1; i <= 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.com[0] = 0.2;
        assert_int_equal(mbs_add_body(b, &bd), i);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = i - 1, j.child = i;
        j.frame_parent.pos[0] = 0.4;
        assert_true(mbs_add_joint(b, &j) >= 0);
    }
    assert_true(mbs_add_force_callback(b, "push", push, NULL) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    run_table(d);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Failing calls do not allocate either (message formatting included). */
static void test_errors_no_alloc(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(5);
    mbs_model *m = test_random_tree(3, &o);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    mbs_data_v(d)[0] = NAN;
    count_begin();
    const int st = mbs_forward_dynamics(d);
    const int st2 = mbs_set_body_wrench(d, -1, NULL, NULL, NULL);
    const int st3 = mbs_forward_dynamics_derivatives(d, outbuf, NULL, NULL);
    int n = 1;
    mbs_data_v(d)[0] = 0.0;
    const int st4 = mbs_modes(d, outbuf, outbuf + 8, &n);
    assert_int_equal(count_end(), 0);
    assert_int_equal(st, MBS_ERR_NONFINITE);
    assert_int_equal(st2, MBS_ERR_ARG);
    assert_int_equal(st3, MBS_ERR_NONFINITE);
    assert_int_equal(st4, MBS_ERR_ARG);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- closed loops */

/* Body of mass 1 along x (com 0.5, I about the com diag(0, 1/12, 1/12) + 1e-3). */
static int add_bar(mbs_builder *b)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.com[0] = 0.5;
    bd.inertia[4] = bd.inertia[8] = 1.0 / 12.0;
    return mbs_add_body(b, &bd);
}

/* Revolute z joint parent -> child at pos_p on the parent and pos_c on the child. */
static int add_rev(mbs_builder *b, int parent, int child, double xp, double xc, int cut)
{
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = parent, j.child = child, j.cut = cut;
    j.frame_parent.pos[0] = xp;
    j.frame_child.pos[0] = xc;
    return mbs_add_joint(b, &j);
}

/* The N-four-bar of IFToMM A02: n + 1 cranks pinned at (i, 0) (joints 0..n), couplers from
   their tops (joints n+1..2n), revolute cuts coupler i -> crank i + 1 (2n+1..3n); gravity -y.
   n = 1 is a planar four-bar (rank 2 of 5 rows), n = 10 has 20 active rows (LAPACK path).
   held: cranks 0 and n held at assembly (mbs_set_joint_hold). */
static mbs_model *nfourbar_held(int n, int held)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    const double g[3] = {0.0, -9.81, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    for (int i = 0; i < 2 * n + 1; ++i) assert_int_equal(add_bar(b), i + 1);
    for (int i = 0; i <= n; ++i) {
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.child = 1 + i, j.frame_parent.pos[0] = (double)i, j.state_priority = i == 0;
        assert_true(mbs_add_joint(b, &j) >= 0);
    }
    for (int i = 0; i < n; ++i) assert_true(add_rev(b, 1 + i, n + 2 + i, 1.0, 0.0, 0) >= 0);
    for (int i = 0; i < n; ++i) assert_true(add_rev(b, n + 2 + i, 2 + i, 1.0, 1.0, 1) >= 0);
    const unsigned char one = 1;
    if (held) assert_int_equal(mbs_set_joint_hold(b, 0, &one, 1), MBS_OK);
    if (held) assert_int_equal(mbs_set_joint_hold(b, n, &one, 1), MBS_OK);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

static mbs_model *nfourbar(int n) { return nfourbar_held(n, 0); }

/* The parallelogram state: cranks at th with rate w, couplers level. */
static void nfourbar_state(mbs_data *d, int n, double th, double w)
{
    const mbs_model *m = mbs_data_model(d);
    for (int j = 0; j < 2 * n + 1; ++j) {
        mbs_data_q(d)[mbs_model_joint_qadr(m, j)] = j <= n ? th : -th;
        mbs_data_v(d)[mbs_model_joint_vadr(m, j)] = j <= n ? w : -w;
    }
}

/* n fixed steps of a stepper kind on d allocate nothing. */
static void steps_no_alloc(mbs_data *d, mbs_stepper_kind kind, int n)
{
    mbs_stepper_def sd = mbs_default_stepper_def(kind);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    count_begin();
    int st = MBS_OK;
    for (int k = 0; k < n && st == MBS_OK; ++k) st = mbs_stepper_step(s, 1e-3);
    const long c = count_end();
    if (st != MBS_OK) fail_msg("step: %s", mbs_data_error(d));
    if (c != 0) fail_msg("%ld allocations/frees in %d steps", c, n);
    mbs_stepper_destroy(s);
}

/* A stepper of kind on d; err: the local-error estimate's tolerance (0: none); max: CVODE's
   internal steps per call. */
static mbs_stepper *stepper_of(mbs_data *d, mbs_stepper_kind kind, double err, long max)
{
    mbs_stepper_def sd = mbs_default_stepper_def(kind);
    sd.err_rtol = sd.err_atol = err;
    sd.rtol = sd.atol = max > 0 ? 1e-13 : sd.rtol;
    if (max > 0) sd.max_internal_steps = max;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    return s;
}

/* Steps that fail and put the data and the loop solver's state back (RK4 whose local-error
   estimate exceeds 1e-15; CVODE BDF at tolerance 1e-13 allowed one internal step), between
   steps that succeed (RK4 with the estimate: its two loop solver snapshots; CVODE BDF),
   allocate nothing. */
static void failed_steps_no_alloc(mbs_data *d)
{
    mbs_stepper *s[4] = {stepper_of(d, MBS_STEP_RK4, 1e-2, 0), stepper_of(d, MBS_STEP_RK4, 1e-15, 0),
                         stepper_of(d, MBS_STEP_CVODE_BDF, 0.0, 0),
                         stepper_of(d, MBS_STEP_CVODE_BDF, 0.0, 1)};
    int st = MBS_OK, failed = 0;
    count_begin();
    for (int k = 0; k < 4 && st == MBS_OK; ++k) {
        st = mbs_stepper_step(s[k & 2], 1e-3); /* the good one of the kind */
        if (st == MBS_OK) failed += mbs_stepper_step(s[k | 1], 1e-3) != MBS_OK;
    }
    const long c = count_end();
    if (st != MBS_OK) fail_msg("%s", mbs_data_error(d));
    if (c != 0) fail_msg("%ld allocations/frees", c);
    assert_int_equal(failed, 4);
    for (int k = 0; k < 4; ++k) mbs_stepper_destroy(s[k]);
}

/* The table and fixed-step stepping (Euler, RK4) on closed loops: the four-bar (own dense
   kernels), the 10-four-bar (LAPACK kernels), first assembly (row selection by dgeqp3)
   included; a near-singular state, whose accelerations are smoothed; and a step ending next
   to the singular state, whose velocity projection truncates near-dependent rows. */
static void test_loops_no_alloc(void **state)
{
    (void)state;
    const int sizes[2] = {1, 10};
    for (int k = 0; k < 2; ++k) {
        const int n = sizes[k];
        mbs_model *m = nfourbar(n);
        mbs_data *d = mbs_data_create(m);
        assert_non_null(d);
        nfourbar_state(d, n, 1.0, -2.0);
        mbs_data_q(d)[mbs_model_joint_qadr(m, n)] += 1e-3; /* not yet closed */
        run_table(d);
        steps_no_alloc(d, MBS_STEP_EULER, 20);
        steps_no_alloc(d, MBS_STEP_RK4, 20);
        failed_steps_no_alloc(d);
        nfourbar_state(d, n, 2e-5, -4.8); /* near the flat singular configuration */
        near_singular = 1;
        run_table(d);                     /* ends closed (assemble): smoothed dynamics */
        near_singular = 0;
        count_begin();
        const int st = mbs_forward_dynamics(d);
        assert_int_equal(count_end(), 0);
        assert_int_equal(st, MBS_OK);
        steps_no_alloc(d, MBS_STEP_RK4, 5);
        /* a step ending within ~1e-5 rad of flat: its velocity takes the near-singular
           projection (pivoted Cholesky of J_v J_v^T, loops.h) */
        nfourbar_state(d, n, 4.8e-3 + 5.5e-6, -4.8);
        assert_int_equal(mbs_assemble(d), MBS_OK);
        steps_no_alloc(d, MBS_STEP_RK4, 3);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Assembly with held coordinates (two QR passes, the held check, and the assembly without
   holds that names a held value the loops cannot keep) allocates nothing. */
static void test_hold_no_alloc(void **state)
{
    (void)state;
    const int n = 10;
    mbs_model *m = nfourbar_held(n, 1);
    mbs_data *d = mbs_data_create(m);
    nfourbar_state(d, n, 1.0, -2.0);
    mbs_data_q(d)[mbs_model_joint_qadr(m, 1)] += 1e-3; /* not closed; crank 1 not held */
    count_begin();
    int st = mbs_assemble(d);
    assert_int_equal(count_end(), 0);
    if (st != MBS_OK) fail_msg("assemble: %s", mbs_data_error(d));
    mbs_data_q(d)[mbs_model_joint_qadr(m, n)] += 1e-2; /* crank n held away from crank 0 */
    count_begin();
    st = mbs_assemble(d);
    assert_int_equal(count_end(), 0);
    assert_int_equal(st, MBS_ERR_INCONSISTENT);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The analyses allocate nothing either: equilibrium and position solving on the four-bar
   (loops: partition, closure, LAPACK least squares) and on a random tree, the actuated
   inverse dynamics of an under-actuated (crank only) four-bar. */
static void test_analyses_no_alloc(void **state)
{
    (void)state;
    mbs_model *m = nfourbar(1);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    nfourbar_state(d, 1, 1.0, 0.0);
    double p[3], R[9];
    assert_int_equal(mbs_body_pose(d, 3, p, R), MBS_OK); /* the coupler's origin */
    mbs_position_target t = {3, {0.0, 0.0, 0.0}, {p[0], p[1], p[2]}};
    nfourbar_state(d, 1, 1.2, 0.0);
    const int crank = 0;
    count_begin();
    int st = mbs_equilibrium(d, NULL);
    if (st == MBS_OK) st = mbs_solve_positions(d, &t, 1, NULL);
    if (st == MBS_OK) st = mbs_forward_dynamics(d);
    if (st == MBS_OK) st = mbs_inverse_dynamics_actuated(d, mbs_data_qacc(d), &crank, 1, outbuf);
    long c = count_end();
    if (st != MBS_OK) fail_msg("%s", mbs_data_error(d));
    if (c != 0) fail_msg("%ld allocations/frees", c);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    test_tree_opts o = test_default_tree_opts(6);
    o.springs = 1;
    m = test_random_tree(7, &o);
    d = mbs_data_create(m);
    const int last = mbs_model_nbody(m) - 1;
    assert_int_equal(mbs_body_pose(d, last, p, R), MBS_OK);
    mbs_position_target tt = {last, {0.0, 0.0, 0.0}, {p[0] + 0.01, p[1], p[2]}};
    count_begin();
    st = mbs_solve_positions(d, &tt, 1, NULL);
    const int st2 = mbs_equilibrium(d, NULL);
    c = count_end();
    if (st != MBS_OK) fail_msg("%s", mbs_data_error(d));
    (void)st2; /* a random tree may have no isolated equilibrium: only the allocations count */
    if (c != 0) fail_msg("%ld allocations/frees", c);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The four-bar's rotor inertias and ratios and its line mass and place changed between
   dynamics evaluations: no allocation. */
static void params_no_alloc(mbs_model *m, mbs_data *d)
{
    const mbs_param p[6] = {{MBS_PARAM_ROTOR_INERTIA, 0, 0}, {MBS_PARAM_ROTOR_RATIO, 1, 0},
                            {MBS_PARAM_ROTOR_INERTIA, 2, 0}, {MBS_PARAM_ROTOR_RATIO, 2, 0},
                            {MBS_PARAM_LINE_MASS, 0, 0}, {MBS_PARAM_LINE_MASS_PLACE, 0, 0}};
    const double x[6] = {2e-3, 6.0, 3e-3, -4.0, 0.7, 0.4};
    count_begin();
    for (int k = 0; k < 6; ++k) {
        assert_int_equal(mbs_model_set_param(m, &p[k], x[k]), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    }
    assert_int_equal(count_end(), 0);
}

/* Line masses, rotors and nodes: the table on trees with line masses (one at a
   fraction, two at distances) and with rotors on every kind of housing; forward dynamics
   and fixed-step stepping there, on branches joined by a line mass, on a four-bar with
   rotors and a line mass (the loop solver's Schur path; also with its rotor and line-mass
   parameters changed), on ThreeSprings and on springs in series through nodes (Newton on the
   nodes). */
static void test_elements_no_alloc(void **state)
{
    (void)state;
    mbs_model *tables[3] = {em_chain_line_mass(0, 0), em_chain_line_mass(1, 0),
                            em_rotor_chain(6, 3, 1)};
    for (int k = 0; k < 3; ++k) {
        mbs_data *d = mbs_data_create(tables[k]);
        test_rng r;
        test_rng_seed(&r, (uint64_t)k + 1);
        em_random_state(&r, d);
        run_table(d);
        steps_no_alloc(d, MBS_STEP_EULER, 10);
        steps_no_alloc(d, MBS_STEP_RK4, 10);
        mbs_data_destroy(d);
        mbs_model_destroy(tables[k]);
    }
    mbs_model *steps[5] = {em_branches(0.8, 0.3, 0.0), em_branches(0.8, 0.3, 0.25),
                           em_fourbar(1), em_three_springs(), em_series_springs(0)};
    for (int k = 0; k < 5; ++k) {
        mbs_data *d = mbs_data_create(steps[k]);
        if (k < 2) {
            test_rng r;
            test_rng_seed(&r, 9);
            em_random_state(&r, d);
        } else if (k == 2) {
            mbs_data_v(d)[0] = 2.0;
        } else {
            mbs_data_q(d)[0] = k == 3 ? 0.5 : 0.9;
        }
        count_begin();
        const int st = mbs_forward_dynamics(d);
        assert_int_equal(count_end(), 0);
        if (st != MBS_OK) fail_msg("model %d: %s", k, mbs_data_error(d));
        steps_no_alloc(d, MBS_STEP_EULER, 10);
        steps_no_alloc(d, MBS_STEP_RK4, 10);
        if (k == 2) params_no_alloc(steps[k], d);
        mbs_data_destroy(d);
        mbs_model_destroy(steps[k]);
    }
}

/* ---------------------------------------------------------------- events, friction, stops */

static int sine(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    (void)user;
    pos[0] = 0.1 * sin(3.0 * t), vel[0] = 0.3 * cos(3.0 * t), acc[0] = -0.9 * sin(3.0 * t);
    return 0;
}
static double height(mbs_data *d, void *user)
{
    (void)user;
    return mbs_data_q(d)[1] - 0.01;
}
static int reverse(mbs_data *d, void *user)
{
    (void)user;
    mbs_data_tau(d)[0] = 0.0;
    return mbs_data_event_direction(d) != 0 ? 0 : -1;
}

/* Add body and joint (type, axis) from parent; its id. */
static int add_link(mbs_builder *b, int parent, mbs_joint_type type, int axis)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.com[2] = -0.3;
    const int body = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(type);
    j.parent = parent, j.child = body;
    j.axis[0] = axis == 0, j.axis[1] = axis == 1, j.axis[2] = axis == 2;
    return mbs_add_joint(b, &j);
}

/* A pendulum with friction (locks), a ball on a restitution stop (bounces, rests), a driven
   slider carrying a braked pendulum, a body on an elastic stop, a user event. */
static mbs_model *gadget(void)
{
    mbs_builder *b = mbs_builder_create();
    add_link(b, 0, MBS_JOINT_REVOLUTE, 1);          /* joint 0: friction */
    add_link(b, 0, MBS_JOINT_PRISMATIC, 2);         /* joint 1: restitution stop */
    add_link(b, 0, MBS_JOINT_PRISMATIC, 0);         /* joint 2: driven */
    add_link(b, 3, MBS_JOINT_REVOLUTE, 1);          /* joint 3: brake */
    add_link(b, 0, MBS_JOINT_PRISMATIC, 2);         /* joint 4: elastic stop */
    mbs_joint_friction_def f = mbs_default_joint_friction_def();
    f.joint = 0, f.coulomb = 0.3, f.stiction = 0.5, f.viscous = 0.01;
    assert_true(mbs_add_joint_friction(b, &f) >= 0);
    mbs_joint_stop_def sp = mbs_default_joint_stop_def();
    sp.joint = 1, sp.lower = 0.0, sp.upper = 1.0, sp.rest_velocity = 0.05;
    assert_true(mbs_add_joint_stop(b, &sp) >= 0);
    sp.joint = 4, sp.law = MBS_STOP_ELASTIC, sp.stiffness = 1e3, sp.damping = 5.0;
    assert_true(mbs_add_joint_stop(b, &sp) >= 0);
    mbs_joint_brake_def bk = mbs_default_joint_brake_def();
    bk.joint = 3, bk.limit = 0.5, bk.peak = 1.2;
    assert_true(mbs_add_joint_brake(b, &bk) >= 0);
    assert_true(mbs_add_joint_motion(b, 2, 0, sine, NULL) >= 0);
    assert_true(mbs_add_event(b, "height", height, reverse, NULL) >= 0);
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fail_msg("%s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* The element queries and the brake input. */
static int call_event_queries(mbs_data *d)
{
    const double x = mbs_data_driving_force(d, 2, 0) + mbs_data_friction_force(d, 0, 0);
    const int st = mbs_joint_is_locked(d, 0, 0) < 0 || mbs_joint_stop_state(d, 1, 0) < 0 ||
                   mbs_data_event_count(d, 0) < 0 || !isfinite(x);
    return st ? MBS_ERR_STATE : mbs_set_brake_limit(d, 3, 0.6);
}

/* Stepping (every kind) through locks, impacts, contacts, unlocks and user events, the
   table and the queries: nothing allocated after create. */
static void test_events_no_alloc(void **state)
{
    (void)state;
    mbs_model *m = gadget();
    const mbs_stepper_kind kinds[4] = {MBS_STEP_EULER, MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS,
                                       MBS_STEP_CVODE_BDF};
    for (int k = 0; k < 4; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.6, mbs_data_q(d)[1] = 0.3;
        mbs_data_q(d)[mbs_model_joint_qadr(m, 4)] = 0.2;
        mbs_stepper_def sd = mbs_default_stepper_def(kinds[k]);
        mbs_stepper *s = mbs_stepper_create(d, &sd);
        assert_non_null(s);
        count_begin();
        int st = MBS_OK;
        for (int i = 0; i < 2500 && st == MBS_OK; ++i) {
            if (i == 1000) mbs_data_tau(d)[mbs_model_joint_vadr(m, 3)] = 1.0; /* the brake slips */
            st = mbs_stepper_step(s, 1e-3);
        }
        if (st == MBS_OK) st = call_event_queries(d);
        const long c = count_end();
        if (st != MBS_OK) fail_msg("kind %d: %s", k, mbs_data_error(d));
        if (c != 0) fail_msg("kind %d: %ld allocations/frees", k, c);
        assert_true(mbs_data_event_count(d, 0) >= 2);
        assert_int_equal(mbs_joint_stop_state(d, 1, 0), 1); /* resting on the stop */
        assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);  /* the friction pendulum */
        run_table(d);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* A pendulum on a bearing with reaction friction (its limits iterated with the dynamics at
   every evaluation) swinging down and sticking, every kind: nothing allocated after create. */
static void test_reaction_friction_no_alloc(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    add_link(b, 0, MBS_JOINT_REVOLUTE, 0);
    mbs_reaction_friction_def rf = mbs_default_reaction_friction_def();
    rf.joint = 0, rf.mu = 0.3, rf.mu_stick = 0.4, rf.radius = 0.05, rf.axial = 0.5;
    assert_true(mbs_add_reaction_friction(b, &rf) >= 0);
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fail_msg("%s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS, MBS_STEP_CVODE_BDF};
    for (int k = 0; k < 3; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.5;
        mbs_stepper_def sd = mbs_default_stepper_def(kinds[k]);
        mbs_stepper *s = mbs_stepper_create(d, &sd);
        assert_non_null(s);
        count_begin();
        int st = MBS_OK;
        for (int i = 0; i < 1000 && st == MBS_OK; ++i) st = mbs_stepper_step(s, 1e-3);
        const long c = count_end();
        if (st != MBS_OK) fail_msg("kind %d: %s", k, mbs_data_error(d));
        if (c != 0) fail_msg("kind %d: %ld allocations/frees", k, c);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- point masses, two-frame forces, line laws */

/* A two-frame force value from a callback: allocation-free. */
static int wind(mbs_data *d, double t, double force[3], double torque[3], void *user)
{
    (void)d, (void)user;
    force[0] = sin(t), force[1] = 0.2, force[2] = 0.0;
    torque[0] = torque[1] = 0.0, torque[2] = 0.1;
    return 0;
}
/* A hardening user line law and its potential. */
static int hard_law(double L, double rate, double t, double *tension, void *user)
{
    (void)t, (void)user;
    *tension = 30.0 * (L - 0.5) + 100.0 * pow(L - 0.5, 3) + 0.2 * rate;
    return 0;
}
static double hard_potential(double L, void *user)
{
    (void)user;
    return 15.0 * (L - 0.5) * (L - 0.5) + 25.0 * pow(L - 0.5, 4);
}

/* Body 1 rigid on its free root; 2 an arm on a revolute from 1; 3 a point mass on a
   spherical joint at the arm's end (a swing joint); 4 a point mass alone (a translational
   root); a two-frame force 1 -> 2 (host input, frame_b), a world force with a callback on
   4, a user line law 4 - 1 with its potential, a spring-damper from 3 to the world. */
static mbs_model *point_mass_elements_model(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.inertia[0] = 0.1, bd.inertia[4] = 0.2, bd.inertia[8] = 0.25;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd.com[0] = 0.3;
    assert_int_equal(mbs_add_body(b, &bd), 2);
    mbs_body_def pm = mbs_default_body_def();
    memset(pm.inertia, 0, sizeof pm.inertia);
    pm.com[2] = -0.3;
    assert_int_equal(mbs_add_body(b, &pm), 3);
    pm.com[2] = 0.0;
    assert_int_equal(mbs_add_body(b, &pm), 4);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = 0.3;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.parent = 2, j.child = 3, j.frame_parent.pos[0] = 0.6;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    mbs_frame_force_def fd = mbs_default_frame_force_def();
    fd.body_a = 1, fd.body_b = 2, fd.frame_b.pos[0] = 0.5, fd.force[1] = 1.0;
    assert_int_equal(mbs_add_frame_force(b, &fd), 0);
    fd = mbs_default_frame_force_def();
    fd.body_b = 4, fd.resolve = MBS_RESOLVE_WORLD, fd.fn = wind;
    assert_int_equal(mbs_add_frame_force(b, &fd), 1);
    mbs_line_force_def ld = mbs_default_line_force_def();
    ld.body_a = 4, ld.body_b = 1, ld.law = hard_law, ld.potential = hard_potential;
    ld.point_b[1] = 0.1;
    assert_int_equal(mbs_add_line_force(b, &ld), 2);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = 3, sd.stiffness = 20.0, sd.damping = 0.1, sd.rest_length = 0.4;
    sd.point_b[2] = 1.0;
    assert_int_equal(mbs_add_spring_damper(b, &sd), 3);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Point masses (translational and swing joints), two-frame forces (host input, callback) and a
   user line law: the table, the host input, parameter changes and stepping with every kind
   (CVODE restarting after each input or parameter change) allocate nothing. */
static void test_point_mass_elements_no_alloc(void **state)
{
    (void)state;
    mbs_model *m = point_mass_elements_model();
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    mbs_data_q(d)[7] = 0.5; /* the arm turned, and turning */
    mbs_data_v(d)[6] = 1.0;
    run_table(d);
    const mbs_param pmass = {MBS_PARAM_MASS, 3, 0}, pk = {MBS_PARAM_STIFFNESS, 3, 0};
    const double f[3] = {0.0, 2.0, 0.5};
    for (int kind = MBS_STEP_EULER; kind <= MBS_STEP_CVODE_BDF; ++kind) {
        mbs_stepper_def sd = mbs_default_stepper_def((mbs_stepper_kind)kind);
        mbs_stepper *s = mbs_stepper_create(d, &sd);
        assert_non_null(s);
        count_begin();
        int st = MBS_OK;
        for (int k = 0; k < 20 && st == MBS_OK; ++k) {
            if (k == 5) st = mbs_set_frame_force(d, 0, f, NULL);
            if (k == 10 && st == MBS_OK) st = mbs_model_set_param(m, &pmass, 1.2);
            if (k == 15 && st == MBS_OK) st = mbs_model_set_param(m, &pk, 25.0);
            if (st == MBS_OK) st = mbs_stepper_step(s, 1e-3);
        }
        const long c = count_end();
        if (st != MBS_OK) fail_msg("kind %d: %s", kind, mbs_data_error(d));
        if (c != 0) fail_msg("kind %d: %ld allocations/frees in 20 steps", kind, c);
        mbs_stepper_destroy(s);
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Loops closed in closed form (src/loops/analytic/): the table and fixed-step stepping on every
   assembly kind (tests/support/loop_assemblies.h) and on six coupled loops, from a state not yet
   closed; the closure stays analytic. The N-four-bars above are JointRRR chains: closed
   forms while regular, Newton near the flat configuration (the hand-over included); after
   the table (whose linearisation runs on Newton's partition) the steps take no Newton
   iteration. */
static void test_analytic_no_alloc(void **state)
{
    (void)state;
    for (int k = 0; k <= LM_ASM_COUNT; ++k) {
        lm_mech mech;
        const int rc = k < LM_ASM_COUNT ? lm_build_assembly((lm_asm_kind)k, &mech) : lm_build_engine6(&mech);
        assert_int_equal(rc, MBS_OK);
        mbs_data *d = mbs_data_create(mech.model);
        assert_non_null(d);
        if (k < LM_ASM_COUNT) lm_assembly_guess((lm_asm_kind)k, &mech, 0.3, 2.0, 0.01, d);
        else lm_engine_set(&mech, 6, 0.2, 20.0, d), mbs_data_q(d)[1] += 1e-3;
        run_table(d); /* its linearisation suspends the closed forms: Newton serves it */
        steps_no_alloc(d, MBS_STEP_EULER, 1); /* the closed forms take over again */
        const long newton0 = mbs_loop_newton_iterations(d);
        steps_no_alloc(d, MBS_STEP_EULER, 20);
        steps_no_alloc(d, MBS_STEP_RK4, 20);
        assert_int_equal(mbs_cut_joint_closure(d, mech.cut_id[0]), MBS_CLOSURE_ANALYTIC);
        assert_int_equal(mbs_loop_newton_iterations(d), newton0);
        failed_steps_no_alloc(d);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
}

/* A curve-curve contact (src/contact/): a wheel (circle) rolling on a line, with its
   contact solves and their rates, through the table and RK4 stepping. */
static void test_curve_no_alloc(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -9.81, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.com[0] = 0.05; /* off centre: it rocks */
    const int body = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PLANAR);
    j.child = body;
    assert_true(mbs_add_joint(b, &j) >= 0);
    mbs_curve_joint_def c = mbs_default_curve_joint_def();
    c.child = body, c.rolling = 1, c.s_child = -0.15 * 1.5707963267948966;
    c.curve_child.kind = MBS_CURVE_CIRCLE, c.curve_child.a = 0.15;
    const int cj = mbs_add_curve_joint(b, &c);
    assert_true(cj >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[1] = 0.2, mbs_data_q(d)[2] = 0.4;
    run_table(d);
    steps_no_alloc(d, MBS_STEP_RK4, 20);
    double s[2];
    count_begin();
    const int st = mbs_curve_joint_contact(d, cj, s, NULL, NULL);
    assert_int_equal(count_end(), 0);
    assert_int_equal(st, MBS_OK);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}


/* ---------------------------------------------------------------- user state equations */

/* A DC motor on joint 0 (current: user state 0, L di/dt = u - R i - k_e w, torque k_t i),
   a timer (user state 1, reset by an event at 0.05 s) and, once `fail` is set, a NaN
   derivative. */
static int ustate_fail;
static int dc_motor(mbs_data *d, const double *x, double *xdot, void *user)
{
    (void)user;
    xdot[0] = (12.0 - 2.0 * x[0] - 0.5 * mbs_data_v(d)[0]) / 0.01;
    if (ustate_fail) xdot[0] = NAN;
    return mbs_apply_generalized_force(d, 0, 0.5 * x[0]);
}
static int timer(mbs_data *d, const double *x, double *xdot, void *user)
{
    (void)d, (void)x, (void)user;
    xdot[0] = 1.0;
    return 0;
}
static double timer_due(mbs_data *d, void *user)
{
    (void)user;
    return mbs_data_user_states(d)[1] - 0.05;
}
static int timer_reset(mbs_data *d, void *user)
{
    const double zero = 0.0;
    (void)user;
    return mbs_data_set_user_states(d, 2, &zero);
}

/* The motor swinging a pendulum, the timer and its event: dynamics, the derivative query,
   the derivatives, linearisation and modes with the user states, setting the states, stepping every kind (RK4 also with the local-error
   estimate) through the events, and a failing step allocate nothing. */
static void test_user_states_no_alloc(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.com[2] = -0.5;
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = mbs_add_body(b, &bd);
    jd.axis[1] = 1.0, jd.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 0.0, 0.5, 0.0), 0);
    assert_int_equal(mbs_add_user_states(b, "motor", 1, dc_motor, NULL), 1);
    assert_int_equal(mbs_add_user_states(b, "timer", 1, timer, NULL), 2);
    assert_int_equal(mbs_add_event(b, "due", timer_due, timer_reset, NULL), 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    for (int kind = 0; kind < 5; ++kind) {
        mbs_data *d = mbs_data_create(m);
        mbs_stepper_def sd = mbs_default_stepper_def(kind < 4 ? (mbs_stepper_kind)kind : MBS_STEP_RK4);
        if (kind == 4) sd.err_rtol = 1e-3, sd.err_atol = 1e-3;
        mbs_stepper *s = mbs_stepper_create(d, &sd);
        assert_non_null(s);
        const double x[1] = {0.5};
        double xdot[2], tau = 0.0;
        count_begin();
        int st = mbs_data_set_user_states(d, 1, x);
        if (st == MBS_OK) st = mbs_forward_dynamics(d);
        if (st == MBS_OK) st = mbs_user_states_derivative(d, xdot);
        if (st == MBS_OK) st = mbs_inverse_dynamics(d, mbs_data_qacc(d), &tau);
        if (st == MBS_OK) st = mbs_forward_dynamics_derivatives(d, outbuf, outbuf + 1, outbuf + 2);
        int nx = 0, n = 4; /* x = (dq, dv, current, timer) */
        if (st == MBS_OK) st = mbs_linearize(d, derivbuf, derivbuf + 16, &nx);
        if (st == MBS_OK) st = mbs_modes(d, outbuf, outbuf + 4, &n);
        if (st == MBS_OK && (nx != 4 || n != 4)) st = MBS_ERR_STATE;
        for (int i = 0; i < 190 && st == MBS_OK; ++i) st = mbs_stepper_step(s, 1e-3);
        ustate_fail = 1;
        const int failed = mbs_stepper_step(s, 1e-3);
        ustate_fail = 0;
        const long c = count_end();
        if (st != MBS_OK) fail_msg("kind %d: %s", kind, mbs_data_error(d));
        if (c != 0) fail_msg("kind %d: %ld allocations/frees", kind, c);
        assert_int_equal(failed, MBS_ERR_NONFINITE);
        assert_int_equal(mbs_data_event_count(d, 0), 3); /* resets at 0.05, 0.1, 0.15 s */
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* Knife-edge row (velocity level, J given, J̇v by differences). */
static int uc_knife(mbs_data *d, double *h, double *J, double *jdotv, void *user)
{
    (void)h, (void)jdotv, (void)user;
    const double th = mbs_data_q(d)[2];
    if (J) J[0] = -sin(th), J[1] = cos(th), J[2] = J[3] = 0.0;
    return 0;
}

/* A holonomic row given by h alone (Jacobian and J̇v by differences): q3 = 0.3 q2. */
static int uc_ratio(mbs_data *d, double *h, double *J, double *jdotv, void *user)
{
    (void)J, (void)jdotv, (void)user;
    double p[3], R[9];
    if (mbs_body_pose(d, 3, p, R) != MBS_OK) return -1; /* a kinematic query inside */
    h[0] = mbs_data_q(d)[3] - 0.3 * mbs_data_q(d)[2];
    return 0;
}

/* A knife edge (with knife) and a pendulum pair held by a user row and a coupling. */
static mbs_model *uc_model(int knife)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def none = mbs_default_body_def(), body = mbs_default_body_def();
    none.mass = 0.0;
    memset(none.inertia, 0, sizeof none.inertia);
    const int bx = mbs_add_body(b, &none), by = mbs_add_body(b, &none);
    const int bd = mbs_add_body(b, &body), bp = mbs_add_body(b, &body), bq = mbs_add_body(b, &body);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.parent = MBS_WORLD, j.child = bx, j.axis[0] = 1, j.axis[2] = 0;
    mbs_add_joint(b, &j);
    j.parent = bx, j.child = by, j.axis[0] = 0, j.axis[1] = 1;
    mbs_add_joint(b, &j);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = by, j.child = bd;
    mbs_add_joint(b, &j);
    j.parent = MBS_WORLD, j.child = bp, j.axis[0] = 1, j.axis[2] = 0;
    mbs_add_joint(b, &j);
    j.child = bq;
    const int jq = mbs_add_joint(b, &j);
    mbs_user_constraint_def u = mbs_default_user_constraint_def();
    u.nrow = 1, u.velocity_level = 1, u.jacobian = 1, u.fn = uc_knife;
    if (knife) mbs_add_user_constraint(b, &u);
    u = mbs_default_user_constraint_def();
    u.nrow = 1, u.fn = uc_ratio;
    mbs_add_user_constraint(b, &u);
    mbs_joint_coupling_def c = mbs_default_joint_coupling_def();
    c.joint_a = jq, c.joint_b = 3, c.ratio = 2.0;
    mbs_add_joint_coupling(b, &c);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* User constraints (their differences included) and a coupling allocate nothing after
   mbs_data_create: every call of the table (the velocity-level row left out: linearize
   refuses it), dynamics and steps. */
static void test_user_constraints_no_alloc(void **state)
{
    (void)state;
    for (int knife = 0; knife < 2; ++knife) {
        mbs_model *m = uc_model(knife);
        mbs_data *d = mbs_data_create(m);
        mbs_data_v(d)[2] = 1.5, mbs_data_v(d)[0] = 0.3;
        assert_int_equal(mbs_assemble(d), MBS_OK);
        if (!knife) run_table(d);
        count_begin();
        const int st = mbs_forward_dynamics(d);
        assert_int_equal(count_end(), 0);
        assert_int_equal(st, MBS_OK);
        steps_no_alloc(d, MBS_STEP_RK4, 20);
        steps_no_alloc(d, MBS_STEP_EULER, 20);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_works),
        cmocka_unit_test(test_dynamics_no_alloc),
        cmocka_unit_test(test_callback_no_alloc),
        cmocka_unit_test(test_errors_no_alloc),
        cmocka_unit_test(test_loops_no_alloc),
        cmocka_unit_test(test_analytic_no_alloc),
        cmocka_unit_test(test_curve_no_alloc),
        cmocka_unit_test(test_hold_no_alloc),
        cmocka_unit_test(test_elements_no_alloc),
        cmocka_unit_test(test_analyses_no_alloc),
        cmocka_unit_test(test_events_no_alloc),
        cmocka_unit_test(test_reaction_friction_no_alloc),
        cmocka_unit_test(test_point_mass_elements_no_alloc),
        cmocka_unit_test(test_user_states_no_alloc),
        cmocka_unit_test(test_user_constraints_no_alloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
