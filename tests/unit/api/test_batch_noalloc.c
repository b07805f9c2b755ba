/* Real-time guarantee of batch runs (suite 'alloc'): after mbs_batch_create, mbs_batch_run
 * allocates nothing on any thread (count_alloc.h counts every thread): a shared four-bar on
 * two threads, per-run parameters on two models of a random tree, and a run failing on a
 * non-finite joint force. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common.h"
#include "count_alloc.h"
#include "loop_mechanisms.h"

/* Create a batch of nrun runs on models[0..T), start each at a seeded state, run it in two
   counted calls; the status of the second. */
static int counted_batch(mbs_model **models, int T, int nrun, const mbs_param *p, int np,
                         const double *values, int nan_run)
{
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_batch *b = mbs_batch_create(models, T, nrun, &def);
    assert_non_null(b);
    assert_int_equal(mbs_batch_set_params(b, p, np, values), MBS_OK);
    for (int k = 0; k < nrun; k++) {
        mbs_data *d = mbs_batch_data(b, k);
        test_rng rng;
        test_rng_seed(&rng, 30u + (unsigned)k);
        test_random_state(&rng, d, 0.3, 0.5, 0.0);
        if (mbs_model_ncon(models[0]) > 0) assert_int_equal(mbs_assemble(d), MBS_OK);
    }
    if (nan_run >= 0) mbs_data_tau(mbs_batch_data(b, nan_run))[0] = NAN;
    mbs_batch_run(b, 1e-3, 1); /* first steps (a loop selection is made once) */
    count_begin();
    mbs_batch_run(b, 1e-3, 50);
    int st = mbs_batch_run(b, 1e-3, 50); /* failed runs stay stopped */
    assert_int_equal(count_end(), 0);
    mbs_batch_destroy(b);
    return st;
}

static void batch_no_alloc(void **state)
{
    (void)state;
    lm_mech mech;
    lm_fourbar fb = lm_default_fourbar();
    assert_int_equal(lm_build_fourbar(&fb, &mech), MBS_OK);
    mbs_model *shared[2] = {mech.model, mech.model};
    assert_int_equal(counted_batch(shared, 2, 6, NULL, 0, NULL, -1), MBS_OK);
    test_tree_opts o = test_default_tree_opts(8);
    o.springs = 2;
    mbs_model *models[2] = {test_random_tree(4, &o), test_random_tree(4, &o)};
    const mbs_param p = {MBS_PARAM_MASS, 2, 0};
    const double values[5] = {0.5, 1.0, 1.5, 2.0, 2.5};
    assert_int_equal(counted_batch(models, 2, 5, &p, 1, values, -1), MBS_OK);
    assert_int_equal(counted_batch(models, 2, 5, NULL, 0, NULL, 3), MBS_ERR_NONFINITE);
    mbs_model_destroy(models[0]);
    mbs_model_destroy(models[1]);
    lm_mech_free(&mech);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(batch_no_alloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
