/* Instances in the SIMD lanes (mbs_lanes_*): on the benchmarks' 30-link chain and humanoid
 * (free base) and on a chain with springs, every variant the build holds and the processor
 * runs gives every instance the qacc of mbs_forward_dynamics on the same state to 1e-13 of its
 * largest entry, for counts that are not a multiple of the lane width. A bad instance fails
 * alone (its qacc as it was, the others computed); loops are refused; nothing allocates. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "count_alloc.h"
#include "bench_common.h"
#include "loop_mechanisms.h"
#include "core/simd.h"

#define TOL 1e-13
#define NINST 13

static double worst; /* largest relative difference seen (printed) */

/* A random state of instance k: q moved from neutral by random dq, random v and tau. */
static void random_state(mbs_data *d, unsigned seed)
{
    const mbs_model *m = mbs_data_model(d);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double *q0 = malloc(sizeof(double) * (size_t)nq), *dq = malloc(sizeof(double) * (size_t)nv);
    srand(seed);
    for (int i = 0; i < nv; ++i) dq[i] = 2.0 * rand() / RAND_MAX - 1.0;
    assert_int_equal(mbs_neutral_q(m, q0), MBS_OK);
    assert_int_equal(mbs_integrate_q(m, q0, dq, 1.0, mbs_data_q(d)), MBS_OK);
    for (int i = 0; i < nv; ++i) {
        mbs_data_v(d)[i] = 4.0 * rand() / RAND_MAX - 2.0;
        mbs_data_tau(d)[i] = 2.0 * rand() / RAND_MAX - 1.0;
    }
    free(q0);
    free(dq);
}

/* one takes d's q, v and tau (the same model). */
static void copy_state(mbs_data *one, mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    memcpy(mbs_data_q(one), mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
    memcpy(mbs_data_v(one), mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
    memcpy(mbs_data_tau(one), mbs_data_tau(d), sizeof(double) * (size_t)mbs_model_nv(m));
}

/* Every instance's qacc against the one-instance call, with the variant in use. */
static void compare_instances(mbs_lanes *l, mbs_data *one)
{
    const mbs_model *m = mbs_data_model(one);
    const int nv = mbs_model_nv(m);
    assert_int_equal(mbs_lanes_forward_dynamics(l), MBS_OK);
    assert_int_equal(mbs_lanes_failed(l), -1);
    for (int k = 0; k < mbs_lanes_count(l); ++k) {
        mbs_data *d = mbs_lanes_data(l, k);
        copy_state(one, d);
        assert_int_equal(mbs_forward_dynamics(one), MBS_OK);
        double scale = 0.0, diff = 0.0;
        for (int i = 0; i < nv; ++i) {
            scale = fmax(scale, fabs(mbs_data_qacc(one)[i]));
            diff = fmax(diff, fabs(mbs_data_qacc(one)[i] - mbs_data_qacc(d)[i]));
        }
        worst = fmax(worst, diff / scale);
        assert_true(diff <= TOL * scale);
    }
}

/* The model with NINST random instances, on every variant available. */
static void check_model(mbs_model *m)
{
    mbs_lanes *l = mbs_lanes_create(m, NINST);
    mbs_data *one = mbs_data_create(m);
    assert_non_null(l);
    assert_non_null(one);
    assert_int_equal(mbs_lanes_count(l), NINST);
    for (int k = 0; k < NINST; ++k) random_state(mbs_lanes_data(l, k), 100u + (unsigned)k);
    const mbs_simd_kind start = mbs_simd_current();
    for (int v = 0; v < MBS_SIMD_NKIND; ++v) {
        if (mbs_simd_use((mbs_simd_kind)v) != 0) continue;
        print_message("%s: W = %d\n", mbs_simd_variant(), mbs_lanes_width());
        compare_instances(l, one);
    }
    assert_int_equal(mbs_simd_use(start), 0);
    mbs_data_destroy(one);
    mbs_lanes_destroy(l);
}

static void test_chain30(void **state)
{
    (void)state;
    bench_link links[30];
    bench_chain_links(30, BENCH_CHAIN_SEED, links);
    mbs_model *m = NULL;
    assert_int_equal(bench_chain_mbs(30, links, NULL, NULL, &m), MBS_OK);
    check_model(m);
    mbs_model_destroy(m);
}

static void test_humanoid(void **state)
{
    (void)state;
    mbs_model *m = NULL;
    assert_int_equal(bench_humanoid_mbs(&m), MBS_OK);
    check_model(m);
    mbs_model_destroy(m);
    print_message("largest relative difference: %.3g\n", worst);
}

/* The chain's lanes compute kinematics and gravity themselves; an instance with a host wrench
   sends its group through the instances' own force passes, with the same results. */
static void test_chain30_wrench(void **state)
{
    (void)state;
    bench_link links[30];
    bench_chain_links(30, BENCH_CHAIN_SEED, links);
    mbs_model *m = NULL;
    assert_int_equal(bench_chain_mbs(30, links, NULL, NULL, &m), MBS_OK);
    mbs_lanes *l = mbs_lanes_create(m, NINST);
    mbs_data *one = mbs_data_create(m);
    for (int k = 0; k < NINST; ++k) random_state(mbs_lanes_data(l, k), 300u + (unsigned)k);
    const double f[3] = {3.0, -2.0, 5.0}, t[3] = {0.5, 0.1, -0.2}, at[3] = {0.1, 0.0, 0.0};
    assert_int_equal(mbs_set_body_wrench(mbs_lanes_data(l, 3), 17, f, t, at), MBS_OK);
    assert_int_equal(mbs_lanes_forward_dynamics(l), MBS_OK);
    const int nv = mbs_model_nv(m);
    const double zero[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < NINST; ++k) { /* one: the same state, the wrench of instance k */
        mbs_data *d = mbs_lanes_data(l, k);
        assert_int_equal(mbs_set_body_wrench(one, 17, k == 3 ? f : zero, k == 3 ? t : zero, at),
                         MBS_OK);
        copy_state(one, d);
        assert_int_equal(mbs_forward_dynamics(one), MBS_OK);
        for (int i = 0; i < nv; ++i)
            assert_true(fabs(mbs_data_qacc(one)[i] - mbs_data_qacc(d)[i]) <=
                        TOL * (1.0 + fabs(mbs_data_qacc(one)[i])) * 100.0);
    }
    mbs_data_destroy(one);
    mbs_lanes_destroy(l);
    mbs_model_destroy(m);
}

/* A chain with joint springs and a spherical (quaternion) joint: forces of elements enter
   through each instance's own force pass. */
static void test_springs(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    int parent = MBS_WORLD;
    for (int i = 0; i < 5; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0 + i;
        bd.com[0] = 0.3;
        bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = 0.05;
        const int body = mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(i == 2 ? MBS_JOINT_SPHERICAL : MBS_JOINT_REVOLUTE);
        jd.parent = parent;
        jd.child = body;
        jd.frame_parent.pos[0] = parent == MBS_WORLD ? 0.0 : 0.6;
        jd.axis[0] = 0.0, jd.axis[1] = i % 2 ? 1.0 : 0.0, jd.axis[2] = i % 2 ? 0.0 : 1.0;
        const int j = mbs_add_joint(b, &jd);
        if (i != 2) assert_true(mbs_add_joint_spring_damper(b, j, 0, 50.0, 0.5, 0.1) >= 0);
        parent = body;
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    check_model(m);
    mbs_model_destroy(m);
}

/* A NaN in one instance's v: that instance fails alone, its qacc as it was. */
static void test_bad_instance(void **state)
{
    (void)state;
    mbs_model *m = NULL;
    assert_int_equal(bench_humanoid_mbs(&m), MBS_OK);
    mbs_lanes *l = mbs_lanes_create(m, 6);
    assert_non_null(l);
    for (int k = 0; k < 6; ++k) random_state(mbs_lanes_data(l, k), 7u + (unsigned)k);
    mbs_data *bad = mbs_lanes_data(l, 2);
    const int nv = mbs_model_nv(m);
    assert_true(nv <= 64);
    double before[64];
    assert_int_equal(mbs_lanes_forward_dynamics(l), MBS_OK);
    memcpy(before, mbs_data_qacc(bad), sizeof(double) * (size_t)nv);
    mbs_data_v(bad)[3] = NAN;
    assert_int_equal(mbs_lanes_forward_dynamics(l), MBS_ERR_NONFINITE);
    assert_int_equal(mbs_lanes_failed(l), 2);
    assert_non_null(strstr(mbs_lanes_error(l), "instance 2"));
    for (int i = 0; i < nv; ++i) assert_true(mbs_data_qacc(bad)[i] == before[i]);
    mbs_data *other = mbs_lanes_data(l, 5), *one = mbs_data_create(m);
    copy_state(one, other);
    assert_int_equal(mbs_forward_dynamics(one), MBS_OK);
    for (int i = 0; i < nv; ++i)
        assert_true(fabs(mbs_data_qacc(one)[i] - mbs_data_qacc(other)[i]) <= 1e-10 * (1.0 + fabs(mbs_data_qacc(one)[i])));
    mbs_data_destroy(one);
    mbs_lanes_destroy(l);
    mbs_model_destroy(m);
}

/* Loops are refused with MBS_ERR_STATE naming what the passes do not take. */
static void test_loops_refused(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    mbs_lanes *l = mbs_lanes_create(mech.model, 3);
    assert_non_null(l);
    assert_int_equal(mbs_lanes_forward_dynamics(l), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_lanes_error(l), "cut joints"));
    mbs_lanes_destroy(l);
    assert_null(mbs_lanes_create(NULL, 3));
    assert_null(mbs_lanes_create(mech.model, 0));
    lm_mech_free(&mech);
}

/* After creation the lane passes allocate nothing. */
static void test_noalloc(void **state)
{
    (void)state;
    mbs_model *m = NULL;
    assert_int_equal(bench_humanoid_mbs(&m), MBS_OK);
    mbs_lanes *l = mbs_lanes_create(m, 11);
    for (int k = 0; k < 11; ++k) random_state(mbs_lanes_data(l, k), 3u + (unsigned)k);
    count_begin();
    int st = MBS_OK;
    for (int r = 0; r < 10; ++r) st |= mbs_lanes_forward_dynamics(l);
    assert_int_equal(count_end(), 0);
    assert_int_equal(st, MBS_OK);
    mbs_lanes_destroy(l);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain30),      cmocka_unit_test(test_chain30_wrench),
        cmocka_unit_test(test_springs),
        cmocka_unit_test(test_humanoid),     cmocka_unit_test(test_bad_instance),
        cmocka_unit_test(test_loops_refused), cmocka_unit_test(test_noalloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
