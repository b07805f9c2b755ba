/* One compiled model shared by two threads, each with its own data and stepper (the model is
 * immutable after compile; parameter reads write nothing into it). Each thread's trajectory must equal, bit for bit,
 * the same run made alone on the main thread. Run under ThreadSanitizer by
 * scripts/test-tsan.sh, which makes any shared mutable state a failure. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "loop_mechanisms.h"

#define NSTEP 200
#define MAXN 128

/* One run: a seed for its start state, the kind of stepper, its end state. */
typedef struct run {
    const mbs_model *m;
    unsigned seed;
    mbs_stepper_kind kind;
    int status;
    double q[MAXN], v[MAXN];
} run;

/* Step a fresh data object of the shared model NSTEP times from a seeded state. */
static void *run_steps(void *arg)
{
    run *r = arg;
    mbs_data *d = mbs_data_create(r->m);
    mbs_stepper_def def = mbs_default_stepper_def(r->kind);
    test_rng rng;
    test_rng_seed(&rng, r->seed);
    test_random_state(&rng, d, 0.3, 0.5, 0.0);
    r->status = mbs_assemble(d);
    mbs_stepper *st = mbs_stepper_create(d, &def);
    for (int n = 0; n < NSTEP && r->status == MBS_OK; n++)
        r->status = st ? mbs_stepper_step(st, 1e-3) : MBS_ERR_NOMEM;
    memcpy(r->q, mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(r->m));
    memcpy(r->v, mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(r->m));
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    return NULL;
}

/* Two threads on model m, then the same two runs alone: bitwise equal end states. */
static void check_shared(const mbs_model *m, mbs_stepper_kind kind)
{
    assert_true(mbs_model_nq(m) <= MAXN);
    run par[2] = {{m, 11u, kind, 0, {0}, {0}}, {m, 12u, kind, 0, {0}, {0}}};
    run seq[2] = {par[0], par[1]};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, run_steps, &par[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        run_steps(&seq[i]);
        assert_int_equal(par[i].status, MBS_OK);
        assert_int_equal(seq[i].status, MBS_OK);
        assert_memory_equal(par[i].q, seq[i].q, sizeof(double) * (size_t)mbs_model_nq(m));
        assert_memory_equal(par[i].v, seq[i].v, sizeof(double) * (size_t)mbs_model_nv(m));
    }
    /* the two threads' runs started apart and stayed apart (the comparison is not vacuous) */
    assert_true(memcmp(par[0].q, par[1].q, sizeof(double) * (size_t)mbs_model_nq(m)) != 0);
}

static void tree_rk4_and_cvode(void **state)
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

static void fourbar_rk4(void **state)
{
    (void)state;
    lm_mech mech;
    lm_fourbar p = lm_default_fourbar();
    p.damping = 0.05;
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    check_shared(mech.model, MBS_STEP_RK4);
    lm_mech_free(&mech);
}

/* Parameter reads of one shared model from two threads, failing ones included: reading
   writes nothing into the model (a race ThreadSanitizer reports otherwise), and each thread
   reads its own failure's message. */
typedef struct reader {
    const mbs_model *m;
    int bad_body;        /* an out-of-range body id this thread asks for */
    int ok;              /* every good read gave the mass, every bad one its own message */
} reader;

static void *read_params(void *arg)
{
    reader *r = arg;
    char want[64];
    snprintf(want, sizeof want, "body %d out of range", r->bad_body);
    r->ok = 1;
    for (int n = 0; n < 2000; n++) {
        double x = 0.0;
        const mbs_param good = {MBS_PARAM_MASS, 1, 0}, bad = {MBS_PARAM_MASS, r->bad_body, 0};
        r->ok &= mbs_model_get_param(r->m, &good, &x) == MBS_OK && x > 0.0;
        r->ok &= mbs_model_get_param(r->m, &bad, &x) == MBS_ERR_ARG;
        r->ok &= strstr(mbs_model_error(r->m), want) != NULL;
    }
    return NULL;
}

static void shared_parameter_reads(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(4);
    mbs_model *m = test_random_tree(3, &o);
    assert_non_null(m);
    reader r[2] = {{m, 100, 0}, {m, 200, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, read_params, &r[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_true(r[0].ok && r[1].ok);
    /* a failed change is the model's message again, for every thread */
    const mbs_param bad = {MBS_PARAM_MASS, 1, 0};
    assert_int_equal(mbs_model_set_param(m, &bad, -1.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "mass"));
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tree_rk4_and_cvode),
        cmocka_unit_test(fourbar_rk4),
        cmocka_unit_test(shared_parameter_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
