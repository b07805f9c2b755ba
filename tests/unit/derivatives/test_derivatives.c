/* Analytical derivatives of the dynamics (src/analysis/): dtau/dq, dtau/dv of the inverse
 * dynamics and dqacc/dq, dqacc/dv of the forward dynamics against central finite differences
 * of mbs_inverse_dynamics / mbs_forward_dynamics (1e-7 relative) along tangent coordinates on
 * random trees of every joint type (quaternion and Cardan, free roots of both kinds), with
 * uniform and point gravity, joint and line spring-dampers, host wrenches and force
 * callbacks; identities dtau/dqacc = M from CRBA (1e-12) and dqacc/dq = -M^-1 dtau/dq at
 * qacc = FD(q, v, tau), M^-1 M = I; bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"

#define NMAX 80

static double A1[NMAX * NMAX], A2[NMAX * NMAX], A3[NMAX * NMAX];
static double F1[NMAX * NMAX], F2[NMAX * NMAX], M0[NMAX * NMAX];

/* Relative error max |a - b| / (1 + max |b|) of two n x n matrices, printing the worst
   entry when it is above tol. */
static double matrix_error(const double *a, const double *b, int n, double tol, const char *what,
                           int seed)
{
    double emax = 0.0, bmax = 0.0;
    int worst = 0;
    for (int i = 0; i < n * n; ++i) {
        bmax = fmax(bmax, fabs(b[i]));
        if (fabs(a[i] - b[i]) > emax) emax = fabs(a[i] - b[i]), worst = i;
    }
    const double rel = emax / (1.0 + bmax);
    if (rel > tol || getenv("DERIV_VERBOSE"))
        print_message("%s seed %d: entry (%d, %d) analytic %.12g, reference %.12g, rel %.3g\n",
                      what, seed, worst / n, worst % n, a[worst], b[worst], rel);
    return rel;
}

/* What a finite-difference column is taken of. */
typedef enum fd_fn { FD_TAU, FD_QACC } fd_fn;

/* tau = ID(qacc) or qacc = FD at the data's state into out (nv). */
static void evaluate(mbs_data *d, fd_fn fn, const double *qacc, double *out)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    if (fn == FD_TAU) {
        assert_int_equal(mbs_inverse_dynamics(d, qacc, out), MBS_OK);
    } else {
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        memcpy(out, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    }
}

/* Central differences of fn along tangent coordinate / rate j at step h into col (nv). */
static void central_column(mbs_data *d, fd_fn fn, const double *qacc, int wrt_v, int j, double h,
                           double *col)
{
    const mbs_model *m = mbs_data_model(d);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double q0[NMAX], v0[NMAX], dx[NMAX] = {0}, p[NMAX], mm[NMAX];
    memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(v0, mbs_data_v(d), sizeof(double) * (size_t)nv);
    for (int s = 0; s < 2; ++s) {
        const double step = s == 0 ? h : -h;
        if (wrt_v) {
            mbs_data_v(d)[j] = v0[j] + step;
        } else {
            dx[j] = step;
            assert_int_equal(mbs_integrate_q(m, q0, dx, 1.0, mbs_data_q(d)), MBS_OK);
            dx[j] = 0.0;
        }
        evaluate(d, fn, qacc, s == 0 ? p : mm);
        memcpy(mbs_data_q(d), q0, sizeof(double) * (size_t)nq);
        memcpy(mbs_data_v(d), v0, sizeof(double) * (size_t)nv);
    }
    for (int i = 0; i < nv; ++i) col[i] = (p[i] - mm[i]) / (2.0 * h);
}

/* Central differences of fn along every tangent coordinate (wrt_v = 0) or rate (wrt_v = 1),
   Richardson-extrapolated from steps h and h/2 (error O(h^4)), into D (nv x nv, row-major:
   D[i][j] = d out_i / d x_j). */
static void finite_differences(mbs_data *d, fd_fn fn, const double *qacc, int wrt_v, double h,
                               double *D)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    double c1[NMAX], c2[NMAX];
    for (int j = 0; j < nv; ++j) {
        central_column(d, fn, qacc, wrt_v, j, h, c1);
        central_column(d, fn, qacc, wrt_v, j, 0.5 * h, c2);
        for (int i = 0; i < nv; ++i) D[nv * i + j] = (4.0 * c2[i] - c1[i]) / 3.0;
    }
}

/* The model options of random tree number k: sizes 2..9, gravity none / uniform / point,
   damped springs every other time, every third with quaternions only. */
static test_tree_opts tree_opts(int k)
{
    test_tree_opts o = test_default_tree_opts(2 + k % 8);
    o.gravity = k % 3;
    o.springs = k % 2 ? 2 : 1;
    o.quaternions_only = k % 3 == 2;
    return o;
}

/* dtau/dq, dtau/dv against central differences of the inverse dynamics, dtau/dqacc
   against CRBA, on a data at a random state with a random qacc. */
static void check_inverse(mbs_data *d, int seed, test_rng *r)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    double qacc[NMAX];
    for (int i = 0; i < nv; ++i) qacc[i] = test_rng_uniform(r, -2.0, 2.0);
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, A1, A2, A3), MBS_OK);
    finite_differences(d, FD_TAU, qacc, 0, 1e-4, F1);
    finite_differences(d, FD_TAU, qacc, 1, 1e-4, F2);
    assert_int_equal(mbs_mass_matrix(d, M0), MBS_OK);
    assert_true(matrix_error(A1, F1, nv, 1e-7, "dtau/dq", seed) <= 1e-7);
    assert_true(matrix_error(A2, F2, nv, 1e-7, "dtau/dv", seed) <= 1e-7);
    assert_true(matrix_error(A3, M0, nv, 1e-12, "dtau/dqacc vs CRBA", seed) <= 1e-12);
}

/* RNEA derivatives on random trees of every joint type. */
static void test_inverse_random_trees(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 60; ++seed) {
        test_tree_opts o = tree_opts(seed);
        mbs_model *m = test_random_tree((uint64_t)seed, &o);
        mbs_data *d = mbs_data_create(m);
        assert_non_null(d);
        test_rng r;
        test_rng_seed(&r, (uint64_t)seed * 7 + 1);
        test_random_state(&r, d, 1.0, 1.5, 1.0);
        check_inverse(d, seed, &r);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* dqacc/dq, dqacc/dv against central differences of the forward dynamics; the identities
   dqacc/dq = -M^-1 dtau/dq at qacc = FD(q, v, tau) and M^-1 M = I. */
static void check_forward(mbs_data *d, int seed)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    static double Minv[NMAX * NMAX], Dt[NMAX * NMAX], P[NMAX * NMAX];
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, A2, Minv), MBS_OK);
    double qacc[NMAX];
    memcpy(qacc, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    finite_differences(d, FD_QACC, NULL, 0, 1e-4, F1);
    finite_differences(d, FD_QACC, NULL, 1, 1e-4, F2);
    assert_true(matrix_error(A1, F1, nv, 1e-7, "dqacc/dq", seed) <= 1e-7);
    assert_true(matrix_error(A2, F2, nv, 1e-7, "dqacc/dv", seed) <= 1e-7);
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, Dt, NULL, M0), MBS_OK);
    for (int i = 0; i < nv; ++i) /* P = -Minv dtau/dq, and Minv M */
        for (int j = 0; j < nv; ++j) {
            double x = 0.0, y = 0.0;
            for (int k = 0; k < nv; ++k) x -= Minv[nv * i + k] * Dt[nv * k + j], y += Minv[nv * i + k] * M0[nv * k + j];
            P[nv * i + j] = x, A3[nv * i + j] = y;
        }
    for (int i = 0; i < nv * nv; ++i) F1[i] = i % (nv + 1) == 0;
    assert_true(matrix_error(A1, P, nv, 1e-10, "dqacc/dq vs -M^-1 dtau/dq", seed) <= 1e-10);
    assert_true(matrix_error(A3, F1, nv, 1e-10, "M^-1 M vs I", seed) <= 1e-10);
    /* again, on the workspace the calls above left: bitwise the same */
    assert_int_equal(mbs_forward_dynamics_derivatives(d, Dt, P, F1), MBS_OK);
    const size_t bytes = sizeof(double) * (size_t)nv * (size_t)nv;
    assert_memory_equal(Dt, A1, bytes);
    assert_memory_equal(P, A2, bytes);
    assert_memory_equal(F1, Minv, bytes);
}

/* ABA derivatives on random trees of every joint type. */
static void test_forward_random_trees(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 40; ++seed) {
        test_tree_opts o = tree_opts(seed + 3);
        mbs_model *m = test_random_tree((uint64_t)seed + 100, &o);
        mbs_data *d = mbs_data_create(m);
        assert_non_null(d);
        test_rng r;
        test_rng_seed(&r, (uint64_t)seed * 11 + 5);
        test_random_state(&r, d, 1.0, 1.5, 2.0);
        check_forward(d, seed);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Quaternion and Cardan floating roots, at rest and moving, and a floating base far from the
   world origin (root-frame algebra keeps its digits). */
static void test_floating_roots(void **state)
{
    (void)state;
    for (int rot = 0; rot < 2; ++rot)
        for (int moving = 0; moving < 2; ++moving) {
            mbs_model *m = test_floating_chain(6, rot ? MBS_ROT_CARDAN : MBS_ROT_QUATERNION);
            mbs_data *d = mbs_data_create(m);
            test_rng r;
            test_rng_seed(&r, 5 + (uint64_t)(2 * rot + moving));
            test_random_state(&r, d, 1.0, moving ? 2.0 : 0.0, 1.0);
            check_inverse(d, 1000 + 2 * rot + moving, &r);
            check_forward(d, 1000 + 2 * rot + moving);
            mbs_data_destroy(d);
            mbs_model_destroy(m);
        }
}

/* A tree of revolute joints (19 dofs, three groups of 8 columns) in which the breadth-first
   order leaves runs of single children: body 1 on the world carries a short arm (2, 3) and a
   long one (4 .. 16) that ends in a fork (17; 18 with 19), so the column passes of M^-1 meet
   runs fed by a fork's forces, runs into a fork and runs started left of a group. */
static mbs_model *forked_chains(void)
{
    mbs_builder *b = mbs_builder_create();
    test_rng r;
    test_rng_seed(&r, 123);
    static const int parent[20] = {0, 0, 1, 2, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                   16, 16, 18};
    for (int i = 1; i < 20; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 0.5 + 0.1 * i;
        bd.com[0] = 0.15, bd.com[2] = 0.02 * i;
        test_random_inertia(&r, 0.01, 0.1, bd.inertia);
        assert_int_equal(mbs_add_body(b, &bd), i);
    }
    for (int i = 1; i < 20; ++i) {
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = parent[i], jd.child = i;
        jd.frame_parent.pos[0] = 0.3;
        jd.axis[i % 3] = 1.0, jd.axis[(i + 1) % 3] = 0.4;
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Both derivatives and M^-1 of model m (of nv dofs, destroyed) at a moving state drawn from
   rng_seed; seed names the case in messages. */
static void check_model_moving(mbs_model *m, int nv, uint64_t rng_seed, int seed)
{
    assert_int_equal(mbs_model_nv(m), nv);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    test_rng r;
    test_rng_seed(&r, rng_seed);
    test_random_state(&r, d, 1.0, 1.5, 1.0);
    check_inverse(d, seed, &r);
    check_forward(d, seed);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Derivatives of the forked chains at a moving state. */
static void test_forked_chains(void **state)
{
    (void)state;
    check_model_moving(forked_chains(), 19, 77, 2000);
}

/* A floating base with four limbs: 6 joints (a prismatic among revolutes) ending in a fork
   of two; revolute, revolute, spherical, revolute, revolute; revolute, revolute, fixed,
   revolute, revolute; three revolutes. 28 dofs, four groups of 8 columns that each hold
   parts of two limbs. The depth-first layout keeps each limb's dofs together, so the
   backward column passes skip the limbs a column cannot reach (a fixed joint and a
   multi-dof one among the runs, forces reaching the base from four sides). */
static mbs_model *four_limbs_with(mbs_rotation rot, int elements);
static mbs_model *four_limbs(void) { return four_limbs_with(MBS_ROT_QUATERNION, 0); }

/* four_limbs with the base's rotation option rot; elements 1: joint springs on the first
   and second limbs' first joints, 2: those and a line spring from the world to the base. */
static mbs_model *four_limbs_with(mbs_rotation rot, int elements)
{
    static const int len[4] = {8, 5, 5, 3};
    static const mbs_joint_type kind[4][8] = {
        {MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE, MBS_JOINT_PRISMATIC, MBS_JOINT_REVOLUTE,
         MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE},
        {MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE, MBS_JOINT_SPHERICAL, MBS_JOINT_REVOLUTE,
         MBS_JOINT_REVOLUTE},
        {MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE, MBS_JOINT_FIXED, MBS_JOINT_REVOLUTE,
         MBS_JOINT_REVOLUTE},
        {MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE}};
    mbs_builder *b = mbs_builder_create();
    test_rng r;
    test_rng_seed(&r, 321);
    int nbody = 0;
    for (int i = 0; i <= 21; ++i) { /* the base and 21 limb bodies */
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 0.6 + 0.05 * i;
        bd.com[0] = 0.12, bd.com[1] = 0.01 * i;
        test_random_inertia(&r, 0.01, 0.1, bd.inertia);
        assert_int_equal(mbs_add_body(b, &bd), ++nbody);
    }
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_FREE);
    jd.parent = MBS_WORLD, jd.child = 1, jd.rotation = rot;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    int child = 1;
    for (int l = 0; l < 4; ++l)
        for (int k = 0; k < len[l]; ++k) {
            jd = mbs_default_joint_def(kind[l][k]);
            ++child; /* the fork: the last two joints of the first limb share a parent */
            jd.parent = k == 0 ? 1 : (l == 0 && k == 7 ? child - 2 : child - 1);
            jd.child = child;
            jd.frame_parent.pos[0] = 0.25, jd.frame_parent.pos[1] = 0.05 * (l - 1.5);
            jd.axis[(l + k) % 3] = 1.0, jd.axis[(l + k + 1) % 3] = 0.3;
            assert_true(mbs_add_joint(b, &jd) >= 0);
        }
    assert_int_equal(child, 22);
    if (elements > 0) {
        assert_true(mbs_add_joint_spring_damper(b, 1, 0, 3.0, 0.4, 0.1) >= 0);
        assert_true(mbs_add_joint_spring_damper(b, 9, 0, 2.0, 0.3, -0.2) >= 0);
    }
    if (elements == 2) {
        mbs_spring_damper_def sd = mbs_default_spring_damper_def();
        sd.body_a = MBS_WORLD, sd.body_b = 1, sd.point_a[2] = 1.0, sd.point_b[0] = 0.1;
        sd.stiffness = 40.0, sd.damping = 1.0, sd.rest_length = 0.5;
        assert_true(mbs_add_spring_damper(b, &sd) >= 0);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Derivatives and M^-1 of the four limbs at a moving state. The limbs were added one after
   the other, so the depth-first layout (docs/api.md, mbs_compile) gives the joints their
   coordinates in id order, each limb's together (breadth-first would interleave them); the
   passes' walks rely on it. */
static void test_four_limbs(void **state)
{
    (void)state;
    mbs_model *m = four_limbs();
    for (int j = 1; j < mbs_model_njoint(m); ++j)
        assert_int_equal(mbs_model_joint_vadr(m, j),
                         mbs_model_joint_vadr(m, j - 1) + mbs_model_joint_nv(m, j - 1));
    mbs_model_destroy(m);
    check_model_moving(four_limbs(), 28, 91, 2100);
}

/* The largest |entry| of columns [0, 3) of the nv x nv matrix A. */
static double first_columns_max(const double *A, int nv)
{
    double x = 0.0;
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < 3; ++j) x = fmax(x, fabs(A[nv * i + j]));
    return x;
}

/* A floating base's translations (Galilean invariance, derivs.h lin_root): with uniform
   gravity and joint springs on other dofs, dqacc/dq and dqacc/dv have zero columns for
   them, which the call leaves out of its passes; the finite differences agree, and so do
   the other columns. A line spring to the world makes those columns nonzero, and the call
   then computes them (the differences say so too). */
static void test_floating_translations(void **state)
{
    (void)state;
    for (int rot = 0; rot < 2; ++rot)
        for (int elements = 1; elements <= 2; ++elements) {
            const int seed = 2200 + 10 * rot + elements;
            mbs_model *m = four_limbs_with(rot ? MBS_ROT_CARDAN : MBS_ROT_QUATERNION, elements);
            const int nv = mbs_model_nv(m);
            mbs_data *d = mbs_data_create(m);
            test_rng r;
            test_rng_seed(&r, (uint64_t)seed);
            test_random_state(&r, d, 1.0, 1.5, 1.0);
            check_forward(d, seed); /* leaves dqacc/dq in A1, dqacc/dv in A2 */
            if (elements == 1) {
                assert_true(first_columns_max(A1, nv) == 0.0);
                assert_true(first_columns_max(A2, nv) == 0.0);
            } else {
                assert_true(first_columns_max(A1, nv) > 1e-3);
            }
            mbs_data_destroy(d);
            mbs_model_destroy(m);
        }
}

/* A Cardan root that has been re-based (its reference frame Fix turned away from the
   identity by stepping through the middle angle's singularity): the derivatives still match
   the finite differences. */
static void test_rebased_cardan_root(void **state)
{
    (void)state;
    mbs_model *m = test_floating_chain(3, MBS_ROT_CARDAN);
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[4] = 3.0; /* a2' of the root: a2 reaches 90 degrees after about 0.5 s */
    mbs_data_v(d)[3] = 0.4, mbs_data_v(d)[5] = -0.3;
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    double a2max = 0.0;
    for (int k = 0; k < 1000; ++k) {
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        a2max = fmax(a2max, fabs(mbs_data_q(d)[4]));
    }
    mbs_stepper_destroy(s);
    print_message("re-based Cardan root: max |a2| %.3f over 1 s at a2' = 3 rad/s\n", a2max);
    assert_true(a2max < 1.5); /* never at the singularity: re-based on the way */
    test_rng r;
    test_rng_seed(&r, 17);
    check_inverse(d, 3000, &r);
    check_forward(d, 3000);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A force law mbs cannot see: quadratic drag at a body point plus a generalized force
   -k sin(q_0) - c v_0 v_0 |v_0| on the first dof. */
static int drag_callback(mbs_data *d, void *user)
{
    const int body = *(const int *)user;
    const double pt[3] = {0.1, -0.2, 0.05};
    double pos[3], R[9], lin[3], ang[3], vp[3], r[3];
    mbs_body_pose(d, body, pos, R);
    mbs_body_velocity(d, body, lin, ang);
    for (int i = 0; i < 3; ++i) r[i] = R[3 * i] * pt[0] + R[3 * i + 1] * pt[1] + R[3 * i + 2] * pt[2];
    vp[0] = lin[0] + ang[1] * r[2] - ang[2] * r[1];
    vp[1] = lin[1] + ang[2] * r[0] - ang[0] * r[2];
    vp[2] = lin[2] + ang[0] * r[1] - ang[1] * r[0];
    const double s = sqrt(vp[0] * vp[0] + vp[1] * vp[1] + vp[2] * vp[2]), c = 0.7;
    const double F[3] = {-c * s * vp[0], -c * s * vp[1], -c * s * vp[2]};
    if (mbs_apply_body_wrench(d, body, F, NULL, pt) != MBS_OK) return -1;
    const double q0 = mbs_data_q(d)[0], v0 = mbs_data_v(d)[0];
    return mbs_apply_generalized_force(d, 0, -3.0 * sin(q0) - 0.2 * v0 * fabs(v0)) != MBS_OK;
}

/* Host wrenches (world force and torque at a body point) and a force callback (central
   differences of its forces alone) on random trees, both derivatives against the dynamics'
   finite differences. */
static void test_wrenches_and_callbacks(void **state)
{
    (void)state;
    static int body;
    for (int seed = 1; seed <= 12; ++seed) {
        test_tree_opts o = tree_opts(seed);
        o.nbody = 3 + seed % 5;
        o.gravity = 1 + seed % 2; /* uniform, point */
        mbs_model *m0 = test_random_tree((uint64_t)seed + 300, &o);
        /* the same tree with a callback: rebuilt from its definitions */
        mbs_builder *b = mbs_builder_create();
        for (int i = 1; i < mbs_model_nbody(m0); ++i) {
            mbs_body_def bd;
            mbs_model_body_def(m0, i, &bd);
            mbs_add_body(b, &bd);
        }
        for (int j = 0; j < mbs_model_njoint(m0); ++j) {
            mbs_joint_def jd;
            mbs_model_joint_def(m0, j, &jd);
            mbs_add_joint(b, &jd);
        }
        double g[3];
        mbs_model_gravity(m0, g);
        if (o.gravity == 1) mbs_builder_set_gravity(b, g);
        else mbs_builder_set_point_gravity(b, (const double[3]){3.0, 4.0, 3.5}, 20.0);
        body = mbs_model_nbody(m0) - 1;
        assert_true(mbs_add_force_callback(b, "drag", drag_callback, &body) >= 0);
        mbs_model *m = NULL;
        assert_int_equal(mbs_compile(b, &m), MBS_OK);
        mbs_builder_destroy(b);
        mbs_data *d = mbs_data_create(m);
        test_rng r;
        test_rng_seed(&r, (uint64_t)seed + 77);
        test_random_state(&r, d, 1.0, 1.5, 1.0);
        for (int k = 1; k < mbs_model_nbody(m); k += 2) {
            const double F[3] = {1.0 * k, -2.0, 0.5}, T[3] = {0.3, 0.1, -0.4 * k}, P[3] = {0.2, 0.1, -0.3};
            assert_int_equal(mbs_set_body_wrench(d, k, F, T, P), MBS_OK);
        }
        double q0[NMAX], v0[NMAX];
        memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
        memcpy(v0, mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
        check_inverse(d, 2000 + seed, &r);
        check_forward(d, 2000 + seed);
        assert_memory_equal(q0, mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
        assert_memory_equal(v0, mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
        mbs_data_destroy(d);
        mbs_model_destroy(m);
        mbs_model_destroy(m0);
    }
}

/* A callback that fails on its second call. */
static int failing_callback(mbs_data *d, void *user)
{
    (void)d;
    int *calls = user;
    return ++*calls >= 2 ? -7 : 0;
}

/* Bad input: NULL data and arguments, all outputs NULL, a closed loop, non-finite qacc and
   state, a failing callback (q and v restored), each with its status and message. */
static void test_bad_input(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(3);
    mbs_model *m = test_random_tree(5, &o);
    mbs_data *d = mbs_data_create(m);
    const int nv = mbs_model_nv(m);
    double qacc[NMAX] = {0};
    assert_int_equal(mbs_inverse_dynamics_derivatives(NULL, qacc, A1, A2, A3), MBS_ERR_ARG);
    assert_int_equal(mbs_forward_dynamics_derivatives(NULL, A1, A2, A3), MBS_ERR_ARG);
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, NULL, A1, A2, A3), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "NULL qacc"));
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, NULL, NULL, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "every output is NULL"));
    assert_int_equal(mbs_forward_dynamics_derivatives(d, NULL, NULL, NULL), MBS_ERR_ARG);
    qacc[nv - 1] = NAN;
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, A1, NULL, NULL), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "qacc"));
    qacc[nv - 1] = 0.0;
    mbs_data_v(d)[0] = INFINITY;
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, NULL, NULL), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "v[0]"));
    mbs_data_v(d)[0] = 0.0;
    /* only some outputs: the same numbers as all of them */
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, A1, A2, A3), MBS_OK);
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, NULL, F2, NULL), MBS_OK);
    assert_memory_equal(A2, F2, sizeof(double) * (size_t)(nv * nv));
    mbs_data_destroy(d);
    mbs_model_destroy(m);

    /* a closed loop: a pendulum whose tip is also held by a ball cut joint */
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = 1;
    mbs_add_joint(b, &jd);
    jd = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    jd.parent = MBS_WORLD, jd.child = 1, jd.cut = 1, jd.frame_parent.pos[0] = 1.0, jd.frame_child.pos[0] = 1.0;
    mbs_add_joint(b, &jd);
    int calls = 0;
    mbs_add_force_callback(b, "fails", failing_callback, &calls);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    d = mbs_data_create(m);
    /* its forward dynamics is differentiated (test_loop_derivatives.c): the callback's
       failure in the differences is reported; inverse dynamics of loops is refused */
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, NULL, NULL), MBS_ERR_CALLBACK);
    assert_non_null(strstr(mbs_data_error(d), "fails"));
    assert_true(mbs_data_q(d)[0] == 0.0 && mbs_data_v(d)[0] == 0.0);
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, A1, NULL, NULL), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "cut joints"));
    mbs_data_destroy(d);
    mbs_model_destroy(m);

    /* a failing callback during the central differences: its status, q and v restored */
    mbs_builder_destroy(b);
    b = mbs_builder_create();
    bd.com[1] = 0.5; /* off the axis x: gravity -z turns it */
    mbs_add_body(b, &bd);
    jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = 1, jd.axis[0] = 1.0, jd.axis[2] = 0.0;
    mbs_add_joint(b, &jd);
    mbs_add_force_callback(b, "fails", failing_callback, &calls);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.3, mbs_data_v(d)[0] = -0.2;
    calls = 0;
    qacc[0] = 0.0;
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, A1, A2, NULL), MBS_ERR_CALLBACK);
    assert_non_null(strstr(mbs_data_error(d), "fails"));
    assert_true(mbs_data_q(d)[0] == 0.3 && mbs_data_v(d)[0] == -0.2);
    calls = 0; /* the forward derivatives: ABA passes (call 1), the differences fail */
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, NULL, NULL), MBS_ERR_CALLBACK);
    assert_true(mbs_data_q(d)[0] == 0.3 && mbs_data_v(d)[0] == -0.2);
    assert_true(mbs_data_qacc(d)[0] == 0.0); /* qacc as it was (never computed) */
    calls = -100; /* no failure: qacc of the state (the weight turns the body) */
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, NULL, NULL), MBS_OK);
    assert_true(fabs(mbs_data_qacc(d)[0]) > 1.0);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A callback that calls every new entry point on its own data: each must be refused. */
static int nesting_callback(mbs_data *d, void *user)
{
    int *st = user;
    double qacc[1] = {0.0}, x[4], y[4];
    int n = 2, nx = 0;
    unsigned char f[1];
    st[0] = mbs_inverse_dynamics_derivatives(d, qacc, x, NULL, NULL);
    st[1] = mbs_forward_dynamics_derivatives(d, x, NULL, NULL);
    st[2] = mbs_linearize(d, x, NULL, &nx);
    st[3] = mbs_linearize_coordinates(d, f, &n);
    st[4] = mbs_modes(d, x, y, &n);
    st[5] = strstr(mbs_data_error(d), "nester") != NULL;
    return 0;
}

/* Called from inside a force callback, the derivatives, linearize and modes answer
   MBS_ERR_STATE naming the callback; the outer evaluation goes on. */
static void test_nested_refused(void **state)
{
    (void)state;
    int st[6] = {0, 0, 0, 0, 0, 0};
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = 1;
    mbs_add_joint(b, &jd);
    mbs_add_force_callback(b, "nester", nesting_callback, st);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    for (int i = 0; i < 5; ++i) assert_int_equal(st[i], MBS_ERR_STATE);
    assert_int_equal(st[5], 1);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inverse_random_trees),
        cmocka_unit_test(test_forward_random_trees),
        cmocka_unit_test(test_floating_roots),
        cmocka_unit_test(test_forked_chains),
        cmocka_unit_test(test_four_limbs),
        cmocka_unit_test(test_floating_translations),
        cmocka_unit_test(test_rebased_cardan_root),
        cmocka_unit_test(test_wrenches_and_callbacks),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_nested_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
