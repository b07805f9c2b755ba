/* Every SIMD variant of the derivative engine (src/core/simd.h) the build holds and the
 * processor runs, against the scalar variant: mbs_inverse_dynamics_derivatives (dtau/dq,
 * dtau/dv, M) and mbs_forward_dynamics_derivatives (dqacc/dq, dqacc/dv, M^-1 and qacc) on the
 * 7- and 30-link chains and the humanoid of the benchmarks, random trees of every joint type
 * with joint and line springs (damped), uniform and point gravity, and a floating chain:
 * 1e-13 relative to the largest entry of each scalar result (the variants do the same IEEE
 * operations in the same order, so they agree bit for bit today). The scalar variant's own
 * check is test_derivatives (finite differences, identities). Also: the start-up choice
 * honours MBS_SIMD, and a variant the processor lacks is refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "bench_common.h"
#include "core/simd.h"

#define NMAX 80
#define TOL 1e-13

/* The results of one variant at one state: dtau/dq, dtau/dv, M, dqacc/dq, dqacc/dv, M^-1,
   qacc. */
typedef struct results {
    double r[6][NMAX * NMAX];
    double qacc[NMAX];
} results;

static results ref, got;
static double worst; /* the largest relative difference seen (printed at the end) */

/* All results of the data's state with the variant in use. */
static void evaluate(mbs_data *d, results *o)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    double qacc[NMAX];
    for (int i = 0; i < nv; ++i) qacc[i] = 0.3 * sin(1.0 + i);
    int st = mbs_inverse_dynamics_derivatives(d, qacc, o->r[0], o->r[1], o->r[2]);
    if (st == MBS_OK) st = mbs_forward_dynamics_derivatives(d, o->r[3], o->r[4], o->r[5]);
    if (st != MBS_OK) print_message("%s\n", mbs_data_error(d));
    assert_int_equal(st, MBS_OK);
    memcpy(o->qacc, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
}

/* max |a - b| / max |b| (0 when b is zero). */
static double rel(const double *a, const double *b, int n)
{
    double e = 0.0, s = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
    return s > 0.0 ? e / s : e;
}

/* Every available variant against the scalar one at nstate random states of m. */
static void check_model(mbs_model *m, const char *name, int nstate, uint64_t seed)
{
    static const char *const what[6] = {"dtau/dq", "dtau/dv", "M", "dqacc/dq", "dqacc/dv",
                                        "M^-1"};
    assert_non_null(m);
    const int nv = mbs_model_nv(m);
    assert_true(nv <= NMAX);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    const mbs_simd_kind start = mbs_simd_current();
    test_rng r;
    test_rng_seed(&r, seed);
    for (int s = 0; s < nstate; ++s) {
        test_random_state(&r, d, 1.0, 1.0, 1.0);
        assert_int_equal(mbs_simd_use(MBS_SIMD_SCALAR), 0);
        evaluate(d, &ref);
        for (int k = MBS_SIMD_SCALAR + 1; k < MBS_SIMD_NKIND; ++k) {
            if (mbs_simd_use((mbs_simd_kind)k) != 0) continue;
            assert_string_equal(mbs_simd_variant(), mbs_simd_kind_name((mbs_simd_kind)k));
            evaluate(d, &got);
            for (int o = 0; o < 6; ++o) {
                const double e = rel(got.r[o], ref.r[o], nv * nv);
                worst = fmax(worst, e);
                if (e > TOL)
                    print_message("%s state %d, %s: %s differs by %.3g\n", name, s,
                                  mbs_simd_kind_name((mbs_simd_kind)k), what[o], e);
                assert_true(e <= TOL);
            }
            assert_true(rel(got.qacc, ref.qacc, nv) <= TOL);
        }
    }
    assert_int_equal(mbs_simd_use(start), 0);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

static void test_chains_and_humanoid(void **state)
{
    (void)state;
    bench_link links[30];
    mbs_model *m = NULL;
    bench_chain_links(7, 1, links);
    assert_int_equal(bench_chain_mbs(7, links, NULL, NULL, &m), 0);
    check_model(m, "chain 7", 4, 11);
    bench_chain_links(30, 1, links);
    assert_int_equal(bench_chain_mbs(30, links, NULL, NULL, &m), 0);
    check_model(m, "chain 30", 3, 12);
    assert_int_equal(bench_humanoid_mbs(&m), 0);
    check_model(m, "humanoid", 3, 13);
    check_model(test_floating_chain(6, MBS_ROT_QUATERNION), "floating chain", 3, 14);
}

/* Random trees with force elements: joint and line springs, damped; uniform gravity, point
   gravity (forces fixed in the world: the body-frame path); a free root in some. */
static void test_random_trees(void **state)
{
    (void)state;
    for (int seed = 0; seed < 12; ++seed) {
        test_tree_opts o = test_default_tree_opts(3 + (seed * 5) % 22);
        o.springs = 1 + seed % 2;
        o.gravity = seed % 4 == 3 ? 2 : 1;
        o.roots = seed % 3 == 0;
        o.fixed_joints = seed % 2;
        char name[32];
        snprintf(name, sizeof name, "random tree %d", seed);
        check_model(test_random_tree((uint64_t)seed + 700, &o), name, 2, (uint64_t)seed);
    }
}

/* The start-up choice: MBS_SIMD when it names an available variant, else the widest; a
   variant the build or the processor lacks is refused and changes nothing. */
static void test_choice(void **state)
{
    (void)state;
    const char *env = getenv("MBS_SIMD");
    int named = -1;
    for (int k = 0; k < MBS_SIMD_NKIND; ++k)
        if (env && strcmp(env, mbs_simd_kind_name((mbs_simd_kind)k)) == 0 &&
            mbs_simd_available((mbs_simd_kind)k))
            named = k;
    if (named >= 0) {
        assert_int_equal(mbs_simd_current(), named);
    } else {
        for (int k = mbs_simd_current() + 1; k < MBS_SIMD_NKIND; ++k)
            if (k != MBS_SIMD_NEON) assert_false(mbs_simd_available((mbs_simd_kind)k));
    }
    assert_string_equal(mbs_simd_variant(), mbs_simd_kind_name(mbs_simd_current()));
    assert_true(mbs_simd_available(MBS_SIMD_SCALAR));
    const mbs_simd_kind now = mbs_simd_current();
#if defined(__x86_64__)
    assert_int_equal(mbs_simd_use(MBS_SIMD_NEON), -1);
#elif defined(__aarch64__)
    assert_int_equal(mbs_simd_use(MBS_SIMD_AVX2), -1);
#endif
    assert_int_equal(mbs_simd_use(MBS_SIMD_NKIND), -1);
    assert_int_equal(mbs_simd_current(), now);
    print_message("variant at start-up: %s; available:", mbs_simd_variant());
    for (int k = 0; k < MBS_SIMD_NKIND; ++k)
        if (mbs_simd_available((mbs_simd_kind)k))
            print_message(" %s", mbs_simd_kind_name((mbs_simd_kind)k));
    print_message("\n");
}

static int report(void **state)
{
    (void)state;
    print_message("largest difference of a variant from the scalar one: %.3g\n", worst);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_chains_and_humanoid),
        cmocka_unit_test(test_random_trees),
    };
    return cmocka_run_group_tests(tests, NULL, report);
}
