/* Batch runs (mbs_batch_*): K runs of one model on T threads equal, bit for bit, the same
 * runs stepped one by one on the main thread (a random tree and a four-bar, T = 1, 2, 4, with
 * and without per-run parameters); a run given a non-finite input fails alone and the others
 * go on. Run under ThreadSanitizer by scripts/test-tsan.sh (suite 'threads'). The batch's
 * allocation count is checked in test_noalloc. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "loop_mechanisms.h"

#define NRUN 7
#define NSTEP 100
#define MAXN 128
#define DT 1e-3

/* Start state of run k: seeded random q, v (assembled when the model has loops). */
static int start_run(mbs_data *d, int k)
{
    test_rng rng;
    test_rng_seed(&rng, 100u + (unsigned)k);
    test_random_state(&rng, d, 0.3, 0.5, 0.0);
    return mbs_model_ncon(mbs_data_model(d)) > 0 ? mbs_assemble(d) : MBS_OK;
}

/* Run k alone: its parameters (np of them, from values) set on m, a fresh data and stepper,
   NSTEP steps; the end state in q, v and the status returned. */
static int serial_run(mbs_model *m, int k, mbs_stepper_kind kind, const mbs_param *p, int np,
                      const double *values, double *q, double *v)
{
    for (int i = 0; i < np; i++)
        assert_int_equal(mbs_model_set_param(m, &p[i], values[k * np + i]), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(kind);
    assert_int_equal(start_run(d, k), MBS_OK);
    mbs_stepper *st = mbs_stepper_create(d, &def);
    int status = MBS_OK;
    for (int n = 0; n < NSTEP && status == MBS_OK; n++) status = mbs_stepper_step(st, DT);
    memcpy(q, mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
    memcpy(v, mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    return status;
}

/* The NRUN runs as a batch on T threads (models[0..T)), in two calls of NSTEP/2 steps
   (chunked runs are the same steps), each compared with its serial run on ref. */
static void check_batch(mbs_model **models, int T, mbs_model *ref, mbs_stepper_kind kind,
                        const mbs_param *p, int np, const double *values)
{
    const int nq = mbs_model_nq(ref), nv = mbs_model_nv(ref);
    assert_true(nq <= MAXN);
    mbs_stepper_def def = mbs_default_stepper_def(kind);
    mbs_batch *b = mbs_batch_create(models, T, NRUN, &def);
    assert_non_null(b);
    assert_int_equal(mbs_batch_set_params(b, p, np, values), MBS_OK);
    for (int k = 0; k < NRUN; k++) assert_int_equal(start_run(mbs_batch_data(b, k), k), MBS_OK);
    assert_int_equal(mbs_batch_run(b, DT, NSTEP / 2), MBS_OK);
    assert_int_equal(mbs_batch_run(b, DT, NSTEP - NSTEP / 2), MBS_OK);
    double q[MAXN], v[MAXN];
    for (int k = 0; k < NRUN; k++) {
        assert_int_equal(serial_run(ref, k, kind, p, np, values, q, v), MBS_OK);
        mbs_data *d = mbs_batch_data(b, k);
        assert_memory_equal(mbs_data_q(d), q, sizeof(double) * (size_t)nq);
        assert_memory_equal(mbs_data_v(d), v, sizeof(double) * (size_t)nv);
        assert_true(fabs(mbs_data_time(d) - NSTEP * DT) < 1e-12);
    }
    /* the runs started apart and stayed apart (the comparison is not vacuous) */
    assert_true(memcmp(mbs_data_q(mbs_batch_data(b, 0)), mbs_data_q(mbs_batch_data(b, 1)),
                       sizeof(double) * (size_t)nq) != 0);
    mbs_batch_destroy(b);
}

/* One shared model on T = 1, 2, 4 threads. */
static void check_shared(mbs_model *m, mbs_stepper_kind kind)
{
    mbs_model *models[4] = {m, m, m, m};
    for (int T = 1; T <= 4; T *= 2) check_batch(models, T, m, kind, NULL, 0, NULL);
}

static void tree_batch(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(12);
    o.springs = 2;
    mbs_model *m = test_random_tree(7, &o);
    assert_non_null(m);
    check_shared(m, MBS_STEP_RK4);
    check_shared(m, MBS_STEP_CVODE_ADAMS);
    mbs_model_destroy(m);
}

static void fourbar_batch(void **state)
{
    (void)state;
    lm_mech mech;
    lm_fourbar p = lm_default_fourbar();
    p.damping = 0.05;
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    check_shared(mech.model, MBS_STEP_RK4);
    lm_mech_free(&mech);
}

/* Per-run masses of body 1 and 3: one model per thread (four compiles of one description),
   each run equal to setting its masses on one model and stepping alone. */
static void tree_params_batch(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(6);
    mbs_model *models[4], *ref = test_random_tree(5, &o);
    for (int t = 0; t < 4; t++) assert_non_null(models[t] = test_random_tree(5, &o));
    const mbs_param p[2] = {{MBS_PARAM_MASS, 1, 0}, {MBS_PARAM_MASS, 3, 0}};
    double values[NRUN * 2];
    for (int k = 0; k < NRUN * 2; k++) values[k] = 0.5 + 0.25 * k;
    for (int T = 1; T <= 4; T *= 2) check_batch(models, T, ref, MBS_STEP_RK4, p, 2, values);
    /* a model shared by two threads cannot take per-run parameters */
    mbs_model *shared[2] = {ref, ref};
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_batch *b = mbs_batch_create(shared, 2, 3, &def);
    assert_int_equal(mbs_batch_set_params(b, p, 2, values), MBS_ERR_ARG);
    mbs_batch_destroy(b);
    for (int t = 0; t < 4; t++) mbs_model_destroy(models[t]);
    mbs_model_destroy(ref);
}

/* Run 2 of 5 gets a NaN joint force: it stops with MBS_ERR_NONFINITE at its first step and
   keeps its state; the other runs finish and equal their serial runs. */
static void failing_run_stops_alone(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(5);
    mbs_model *m = test_random_tree(9, &o);
    mbs_model *models[2] = {m, m};
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_batch *b = mbs_batch_create(models, 2, 5, &def);
    assert_non_null(b);
    for (int k = 0; k < 5; k++) assert_int_equal(start_run(mbs_batch_data(b, k), k), MBS_OK);
    mbs_data_tau(mbs_batch_data(b, 2))[0] = NAN;
    double q0[MAXN];
    memcpy(q0, mbs_data_q(mbs_batch_data(b, 2)), sizeof(double) * (size_t)mbs_model_nq(m));
    assert_int_equal(mbs_batch_run(b, DT, NSTEP), MBS_ERR_NONFINITE);
    assert_int_equal(mbs_batch_status(b, 2), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(mbs_batch_data(b, 2)), "tau"));
    assert_memory_equal(mbs_data_q(mbs_batch_data(b, 2)), q0, sizeof(double) * (size_t)mbs_model_nq(m));
    assert_true(mbs_data_time(mbs_batch_data(b, 2)) == 0.0);
    double q[MAXN], v[MAXN];
    for (int k = 0; k < 5; k++) {
        if (k == 2) continue;
        assert_int_equal(mbs_batch_status(b, k), MBS_OK);
        assert_int_equal(serial_run(m, k, MBS_STEP_RK4, NULL, 0, NULL, q, v), MBS_OK);
        assert_memory_equal(mbs_data_q(mbs_batch_data(b, k)), q, sizeof(double) * (size_t)mbs_model_nq(m));
    }
    /* bad arguments */
    assert_int_equal(mbs_batch_run(b, NAN, 1), MBS_ERR_ARG);
    assert_int_equal(mbs_batch_run(b, DT, -1), MBS_ERR_ARG);
    assert_null(mbs_batch_data(b, 5));
    assert_int_equal(mbs_batch_status(b, -1), MBS_ERR_ARG);
    assert_null(mbs_batch_create(models, 0, 5, &def));
    assert_null(mbs_batch_create(models, 2, 0, &def));
    mbs_batch_destroy(b);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tree_batch),
        cmocka_unit_test(fourbar_batch),
        cmocka_unit_test(tree_params_batch),
        cmocka_unit_test(failing_run_stops_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
