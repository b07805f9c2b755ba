/* The world-frame articulated-body pass of the forward-dynamics derivatives
 * (src/derivatives/world_aba.c): its qacc against mbs_forward_dynamics (the body-frame ABA,
 * 1e-12 relative) on random trees of every joint type with no, uniform gravity, damped
 * joint and line springs (f_ext and gen_force nonzero), without force elements (gravity as
 * the base's acceleration) and on floating chains (free root,
 * spherical, universal, revolute); the path it takes (applies) and the fallback with a
 * host wrench (the derivatives against central differences there); a model with a native
 * rotor is not served; a massless end body gives MBS_ERR_SINGULAR with qacc untouched; a
 * repeated call gives the same bits. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "derivatives/derivs.h"

#define NMAX 80

static double A1[NMAX * NMAX], A2[NMAX * NMAX], A3[NMAX * NMAX];
static double worst_rel; /* the largest qacc difference measured (printed at the end) */

/* max |a - b| / max(1, max |b|) over n entries. */
static double rel_diff(const double *a, const double *b, int n)
{
    double e = 0.0, s = 1.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
    return e / s;
}

/* qacc of mbs_forward_dynamics_derivatives (path world: the world-frame pass) against
   mbs_forward_dynamics at the data's state (called after it), 1e-12 relative. */
static void check_qacc(mbs_data *d, int world, int seed)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    double qacc[NMAX];
    assert_int_equal(mbs_derivs_world_aba_applies(d), world);
    const int st = mbs_forward_dynamics_derivatives(d, A1, A2, A3);
    if (st != MBS_OK) print_message("seed %d: %s\n", seed, mbs_data_error(d));
    assert_int_equal(st, MBS_OK);
    memcpy(qacc, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double rel = rel_diff(qacc, mbs_data_qacc(d), nv);
    if (rel > 1e-12 || getenv("DERIV_VERBOSE"))
        print_message("qacc seed %d: rel %.3g\n", seed, rel);
    worst_rel = fmax(worst_rel, rel);
    assert_true(rel <= 1e-12);
}

/* The options of random tree seed: sizes 2..13, fixed joints every third, quaternions only
   every fourth. */
static test_tree_opts tree_opts(int seed)
{
    test_tree_opts o = test_default_tree_opts(2 + seed % 12);
    o.fixed_joints = seed % 3 == 0;
    o.quaternions_only = seed % 4 == 0;
    return o;
}

/* check_qacc on the random tree of model_seed and options o at a random state from
   state_seed (label names the case); gravity_base: the pass must take gravity as the base's
   acceleration (uniform gravity, force elements on joints' coordinates alone). */
static void check_random_tree(const test_tree_opts *o, uint64_t model_seed,
                              uint64_t state_seed, int gravity_base, int label)
{
    mbs_model *m = test_random_tree(model_seed, o);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    if (gravity_base) assert_int_equal(d->derivs->joint_elements, 1);
    test_rng r;
    test_rng_seed(&r, state_seed);
    test_random_state(&r, d, 1.0, 1.5, 2.0);
    check_qacc(d, 1, label);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Random trees of every joint type: no gravity and uniform, damped springs. */
static void test_random_trees(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 60; ++seed) {
        test_tree_opts o = tree_opts(seed);
        o.gravity = seed % 2;
        o.springs = 2;
        check_random_tree(&o, (uint64_t)seed + 500, (uint64_t)seed * 13 + 3, 0, seed);
    }
    print_message("world-frame ABA: largest qacc difference %.3g (relative)\n", worst_rel);
}

/* Random trees without force elements under uniform gravity: f_ext holds gravity alone, so
   the pass takes it as the base's acceleration (world_aba.c) and reads no f_ext. */
static void test_gravity_as_base_acceleration(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 40; ++seed) {
        test_tree_opts o = tree_opts(seed);
        o.gravity = 1;
        o.springs = 0; /* no force element at all */
        check_random_tree(&o, (uint64_t)seed + 700, (uint64_t)seed * 17 + 9, 1, 200 + seed);
    }
}

/* Floating chains (multi-dof joints: free, spherical, universal) of both rotation kinds, at
   random states, one of them far from the world origin. */
static void test_floating_chains(void **state)
{
    (void)state;
    static const mbs_rotation rots[] = {MBS_ROT_QUATERNION, MBS_ROT_CARDAN};
    for (int k = 0; k < 6; ++k) {
        mbs_model *m = test_floating_chain(4 + 3 * k, rots[k % 2]);
        mbs_data *d = mbs_data_create(m);
        assert_non_null(d);
        test_rng r;
        test_rng_seed(&r, 900 + (uint64_t)k);
        test_random_state(&r, d, 0.8, 1.5, 1.0);
        if (k == 5) mbs_data_q(d)[0] += 3e3, mbs_data_q(d)[1] -= 2e3;
        check_qacc(d, 1, 100 + k);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* A host wrench (a force fixed in the world) takes the body-frame path: same qacc, and the
   derivatives against central differences of the forward dynamics (1e-7 relative). */
static void test_fallback_host_wrench(void **state)
{
    (void)state;
    mbs_model *m = test_floating_chain(5, MBS_ROT_QUATERNION);
    mbs_data *d = mbs_data_create(m);
    const int nv = mbs_model_nv(m), nq = mbs_model_nq(m);
    test_rng r;
    test_rng_seed(&r, 17);
    test_random_state(&r, d, 0.8, 1.0, 1.0);
    check_qacc(d, 1, 200);
    const double F[3] = {1.0, -2.0, 0.5}, T[3] = {0.3, 0.1, -0.4}, P[3] = {0.1, 0.0, -0.2};
    assert_int_equal(mbs_set_body_wrench(d, 3, F, T, P), MBS_OK);
    check_qacc(d, 0, 201);
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, A2, NULL), MBS_OK);
    const double h = 1e-5, *qacc = mbs_data_qacc(d);
    double q0[NMAX], v0[NMAX], ap[NMAX], dx[NMAX] = {0};
    memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(v0, mbs_data_v(d), sizeof(double) * (size_t)nv);
    double emax = 0.0, smax = 1.0;
    for (int j = 0; j < nv; ++j) /* column j of dqacc/dq and dqacc/dv by central differences */
        for (int wrt_v = 0; wrt_v < 2; ++wrt_v) {
            for (int s = 0; s < 2; ++s) {
                const double step = s ? -h : h;
                dx[j] = step;
                if (wrt_v) mbs_data_v(d)[j] = v0[j] + step;
                else assert_int_equal(mbs_integrate_q(m, q0, dx, 1.0, mbs_data_q(d)), MBS_OK);
                assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
                for (int i = 0; i < nv; ++i) ap[i] = s ? (ap[i] - qacc[i]) / (2.0 * h) : qacc[i];
                memcpy(mbs_data_q(d), q0, sizeof(double) * (size_t)nq);
                memcpy(mbs_data_v(d), v0, sizeof(double) * (size_t)nv);
            }
            dx[j] = 0.0;
            const double *an = wrt_v ? A2 : A1;
            for (int i = 0; i < nv; ++i)
                emax = fmax(emax, fabs(an[nv * i + j] - ap[i])), smax = fmax(smax, fabs(ap[i]));
        }
    assert_true(emax / smax <= 1e-7);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A native rotor (a geared rotor on the second joint of a floating chain, housed by the
   first body): the world-frame pass does not serve the model (mbs_derivs_world_aba_model),
   and the analytic derivatives refuse it with MBS_ERR_STATE before any pass runs. */
static void test_rotor_model(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    for (int i = 1; i <= 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0 + 0.5 * i, bd.com[0] = 0.2;
        assert_int_equal(mbs_add_body(b, &bd), i);
    }
    for (int i = 1; i <= 3; ++i) {
        mbs_joint_def jd = mbs_default_joint_def(i == 1 ? MBS_JOINT_FREE : MBS_JOINT_REVOLUTE);
        jd.parent = i - 1, jd.child = i, jd.axis[0] = 0.0, jd.axis[1] = 1.0, jd.axis[2] = 0.0;
        if (i > 1) jd.frame_parent.pos[0] = 0.4;
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    mbs_rotor_def r = mbs_default_rotor_def();
    r.joint = 1, r.inertia = 0.02, r.ratio = 30.0, r.housing = 1, r.axis[1] = 1.0;
    assert_true(mbs_add_rotor(b, &r) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    test_rng rng;
    test_rng_seed(&rng, 77);
    test_random_state(&rng, d, 0.8, 1.0, 1.0);
    assert_int_equal(mbs_derivs_world_aba_model(m), 0);
    assert_int_equal(mbs_derivs_world_aba_applies(d), 0);
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, A2, A3), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "rotors"));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A massless end body: MBS_ERR_SINGULAR naming it, as mbs_forward_dynamics; qacc untouched. */
static void test_singular_end(void **state)
{
    (void)state;
    mbs_model *m = test_massless_tip();
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.3;
    assert_int_equal(mbs_derivs_world_aba_applies(d), 1);
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, A2, A3), MBS_ERR_SINGULAR);
    assert_non_null(strstr(mbs_data_error(d), "\"tip\""));
    assert_non_null(strstr(mbs_data_error(d), "singular"));
    assert_true(mbs_data_qacc(d)[0] == 0.0 && mbs_data_qacc(d)[1] == 0.0);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Determinism: the call repeated, after mbs_forward_dynamics and after a call at another
   state (the workspace then holds other values), gives the same bits. */
static void test_repeat_bitwise(void **state)
{
    (void)state;
    static double B1[NMAX * NMAX], B2[NMAX * NMAX], B3[NMAX * NMAX];
    mbs_model *m = test_floating_chain(9, MBS_ROT_QUATERNION);
    mbs_data *d = mbs_data_create(m);
    const int nv = mbs_model_nv(m), nq = mbs_model_nq(m);
    const size_t nn = sizeof(double) * (size_t)nv * (size_t)nv;
    double q0[NMAX], v0[NMAX], t0[NMAX], qacc[NMAX];
    test_rng r;
    test_rng_seed(&r, 31);
    test_random_state(&r, d, 0.8, 1.5, 1.0);
    memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(v0, mbs_data_v(d), sizeof(double) * (size_t)nv);
    memcpy(t0, mbs_data_tau(d), sizeof(double) * (size_t)nv);
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A1, A2, A3), MBS_OK);
    memcpy(qacc, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    for (int round = 0; round < 2; ++round) {
        if (round == 0) {
            assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        } else { /* another state, then back */
            test_random_state(&r, d, 0.8, 1.5, 1.0);
            assert_int_equal(mbs_forward_dynamics_derivatives(d, B1, B2, B3), MBS_OK);
            memcpy(mbs_data_q(d), q0, sizeof(double) * (size_t)nq);
            memcpy(mbs_data_v(d), v0, sizeof(double) * (size_t)nv);
            memcpy(mbs_data_tau(d), t0, sizeof(double) * (size_t)nv);
        }
        assert_int_equal(mbs_forward_dynamics_derivatives(d, B1, B2, B3), MBS_OK);
        assert_memory_equal(B1, A1, nn);
        assert_memory_equal(B2, A2, nn);
        assert_memory_equal(B3, A3, nn);
        assert_memory_equal(mbs_data_qacc(d), qacc, sizeof(double) * (size_t)nv);
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_gravity_as_base_acceleration),
        cmocka_unit_test(test_floating_chains),
        cmocka_unit_test(test_fallback_host_wrench),
        cmocka_unit_test(test_rotor_model),
        cmocka_unit_test(test_singular_end),
        cmocka_unit_test(test_repeat_bitwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
