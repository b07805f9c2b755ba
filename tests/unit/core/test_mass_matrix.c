/* The mass matrix (world-frame composite-rigid-body algorithm, lower triangle) and its
 * tree-sparse factorisation: checked against inverse dynamics column by column, forward
 * dynamics, translation invariance far from the origin, and bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"

#define NMAX 64

/* Column i of M is ID(e_i) - ID(0) (RNEA, an independent algorithm): 1e-11 relative. */
static void check_columns(mbs_data *d, int nv, const double *M)
{
    double tau0[NMAX], taui[NMAX], e[NMAX] = {0};
    assert_int_equal(mbs_inverse_dynamics(d, e, tau0), MBS_OK);
    double scale = 0.0;
    for (int k = 0; k < nv * nv; ++k) scale = fmax(scale, fabs(M[k]));
    for (int i = 0; i < nv; ++i) {
        e[i] = 1.0;
        assert_int_equal(mbs_inverse_dynamics(d, e, taui), MBS_OK);
        e[i] = 0.0;
        for (int r = 0; r < nv; ++r)
            if (fabs(M[nv * r + i] - (taui[r] - tau0[r])) > 1e-11 * scale)
                fail_msg("M[%d][%d] = %.17g, RNEA column %.17g", r, i, M[nv * r + i],
                         taui[r] - tau0[r]);
    }
}

/* Solving with the factor inverts M, and M^-1 (tau - c) is forward dynamics: 1e-10. */
static void check_factor(mbs_data *d, int nv, const double *M)
{
    static double LDL[NMAX * NMAX];
    double x[NMAX], b[NMAX], c[NMAX];
    assert_int_equal(mbs_mass_matrix_factor(d, LDL), MBS_OK);
    for (int i = 0; i < nv; ++i) x[i] = b[i] = sin(1.0 + i);
    assert_int_equal(mbs_mass_matrix_solve(d, LDL, x), MBS_OK);
    for (int r = 0; r < nv; ++r) { /* M x = b */
        double s = 0.0;
        for (int k = 0; k < nv; ++k) s += M[nv * r + k] * x[k];
        assert_true(fabs(s - b[r]) <= 1e-10 * (1.0 + fabs(b[r])));
    }
    assert_int_equal(mbs_bias_forces(d, c), MBS_OK);
    const double *tau = mbs_data_tau(d);
    for (int i = 0; i < nv; ++i) x[i] = tau[i] - c[i];
    assert_int_equal(mbs_mass_matrix_solve(d, LDL, x), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    test_assert_close(x, mbs_data_qacc(d), nv, 1e-10, "M^-1 (tau - c) vs forward dynamics");
}

/* Random branched trees of every joint type, springs and gravity included. */
static void test_random_trees(void **state)
{
    (void)state;
    static double M[NMAX * NMAX];
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        test_tree_opts o = test_default_tree_opts(3 + (int)(seed % 9));
        o.springs = 2;
        mbs_model *m = test_random_tree(seed, &o);
        mbs_data *d = mbs_data_create(m);
        const int nv = mbs_model_nv(m);
        assert_true(nv <= NMAX);
        test_rng r;
        test_rng_seed(&r, seed);
        test_random_state(&r, d, 1.0, 1.0, 2.0);
        for (int k = 0; k < NMAX * NMAX; ++k) M[k] = NAN; /* every entry must be written */
        assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
        for (int i = 0; i < nv; ++i) /* exactly symmetric */
            for (int j = 0; j < i; ++j) assert_true(M[nv * i + j] == M[nv * j + i]);
        check_columns(d, nv, M);
        check_factor(d, nv, M);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* A floating three-body chain: body 1 free (automatic root), body 2 on a revolute, body 3
   on a spherical joint. */
static mbs_model *floating_chain(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    for (int i = 0; i < 3; ++i) {
        bd.mass = 1.0 + i;
        bd.com[0] = 0.1 * (i + 1);
        for (int k = 0; k < 9; ++k) bd.inertia[k] = (k % 4 == 0) ? 0.02 + 0.01 * i : 0.0;
        assert_true(mbs_add_body(b, &bd) > 0);
    }
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = 1, jd.child = 2, jd.frame_parent.pos[0] = 0.3;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    jd = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    jd.parent = 2, jd.child = 3, jd.frame_parent.pos[1] = 0.25;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* M does not depend on where the system is: the same configuration 5e4 m away from the
   origin gives the same M to 1e-12 (the algorithm works about each root body's origin). */
static void test_far_from_origin(void **state)
{
    (void)state;
    mbs_model *m = floating_chain();
    mbs_data *d = mbs_data_create(m);
    const int nv = mbs_model_nv(m), nq = mbs_model_nq(m);
    double M0[NMAX * NMAX], M1[NMAX * NMAX], q0[NMAX];
    test_rng r;
    test_rng_seed(&r, 5);
    test_random_state(&r, d, 1.0, 1.0, 0.0);
    memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
    assert_int_equal(mbs_mass_matrix(d, M0), MBS_OK);
    const int qa = mbs_model_joint_qadr(m, 2); /* the automatic free joint: position first */
    mbs_data_q(d)[qa] += 3e4, mbs_data_q(d)[qa + 1] -= 4e4, mbs_data_q(d)[qa + 2] += 1e4;
    assert_int_equal(mbs_mass_matrix(d, M1), MBS_OK);
    test_assert_close(M1, M0, nv * nv, 1e-12, "M translated by 5e4 m");
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* NULL outputs, a non-finite b, a factor that is not one, a singular M: status + message. */
static void test_bad_input(void **state)
{
    (void)state;
    mbs_model *m = floating_chain();
    mbs_data *d = mbs_data_create(m);
    const int nv = mbs_model_nv(m);
    double LDL[NMAX * NMAX] = {0}, x[NMAX] = {0};
    assert_int_equal(mbs_mass_matrix_factor(NULL, LDL), MBS_ERR_ARG);
    assert_int_equal(mbs_mass_matrix_factor(d, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "mass_matrix_factor"));
    assert_int_equal(mbs_mass_matrix_solve(d, LDL, x), MBS_ERR_ARG); /* zero D */
    assert_non_null(strstr(mbs_data_error(d), "LDL[0][0]"));
    assert_int_equal(mbs_mass_matrix_factor(d, LDL), MBS_OK);
    x[nv - 1] = NAN;
    assert_int_equal(mbs_mass_matrix_solve(d, LDL, x), MBS_ERR_NONFINITE);
    assert_true(isnan(x[nv - 1])); /* b left as it was */
    assert_int_equal(mbs_mass_matrix_solve(d, NULL, x), MBS_ERR_ARG);
    mbs_data_q(d)[0] = INFINITY;
    assert_int_equal(mbs_mass_matrix_factor(d, LDL), MBS_ERR_NONFINITE);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    /* a massless body at the end of a chain: M singular */
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_true(mbs_add_body(b, &bd) > 0);
    bd.mass = 0.0;
    for (int k = 0; k < 9; ++k) bd.inertia[k] = 0.0;
    assert_true(mbs_add_body(b, &bd) > 0);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = 1;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    jd.parent = 1, jd.child = 2, jd.frame_parent.pos[0] = 0.5;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    d = mbs_data_create(m);
    assert_int_equal(mbs_mass_matrix_factor(d, LDL), MBS_ERR_SINGULAR);
    assert_non_null(strstr(mbs_data_error(d), "singular"));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_far_from_origin),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
