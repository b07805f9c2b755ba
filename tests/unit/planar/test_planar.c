/* Planar models (src/planar/): compile finds them, and their planar forward dynamics equals
 * the 3-D path's (MBS_PLANAR_OFF) to 1e-12 on random planar trees of revolute, prismatic,
 * planar and fixed joints in a random plane, with frames turned about its normal, bodies
 * with out-of-plane centres of mass and full inertias, uniform gravity with an out-of-plane
 * part, point gravity, line and joint spring-dampers and host wrenches; RK4 trajectories
 * agree too. The same with revolute joints whose child frame sits on the axis (the planar
 * kernels written out for them), without forces (no world frames made), with a host wrench
 * set and cleared; the picked kernels are the expected ones and agree with the generic ones
 * to rounding. Models that leave the plane keep the 3-D path. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "core/internal.h"
#include "planar/planar.h"

#define NMAX 32

/* Rotation by angle about the unit axis n (row-major). */
static void rot_about(const double n[3], double a, double R[9])
{
    const double c = cos(a), s = sin(a), t = 1.0 - c;
    const double x = n[0], y = n[1], z = n[2];
    const double M[9] = {t * x * x + c, t * x * y - s * z, t * x * z + s * y,
                         t * x * y + s * z, t * y * y + c, t * y * z - s * x,
                         t * x * z - s * y, t * y * z + s * x, t * z * z + c};
    memcpy(R, M, sizeof M);
}

static void unit(test_rng *r, double u[3])
{
    double l;
    do {
        for (int k = 0; k < 3; ++k) u[k] = test_rng_uniform(r, -1, 1);
        l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    } while (l < 0.1);
    for (int k = 0; k < 3; ++k) u[k] /= l;
}

/* A vector perpendicular to n (unit). */
static void perp(test_rng *r, const double n[3], double u[3])
{
    double a[3];
    unit(r, a);
    const double d = a[0] * n[0] + a[1] * n[1] + a[2] * n[2];
    for (int k = 0; k < 3; ++k) u[k] = a[k] - d * n[k];
    const double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; ++k) u[k] /= l;
}

/* Options of the random trees. */
enum {
    TREE_AT_AXIS = 1,  /* revolute joints' child frames on their axes (r = 0) */
    TREE_NO_FORCES = 2, /* no spring-dampers */
    TREE_CHAINS = 4     /* most joints revolute, most parents the body before (serial runs) */
};

/* A random planar tree with normal n in the world (every body frame turned about n only). */
static void build_opts(uint64_t seed, mbs_builder *b, int n_body, double n[3], int opts)
{
    test_rng r;
    test_rng_seed(&r, seed);
    unit(&r, n);
    for (int i = 1; i <= n_body; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = test_rng_uniform(&r, 0.5, 2.0);
        for (int k = 0; k < 3; ++k) bd.com[k] = test_rng_uniform(&r, -0.3, 0.3);
        test_random_inertia(&r, 0.01, 0.1, bd.inertia);
        assert_int_equal(mbs_add_body(b, &bd), i);
        static const mbs_joint_type types[] = {MBS_JOINT_REVOLUTE, MBS_JOINT_PRISMATIC,
                                               MBS_JOINT_REVOLUTE, MBS_JOINT_PLANAR, MBS_JOINT_FIXED};
        mbs_joint_type type = i == 1 ? MBS_JOINT_REVOLUTE : types[(seed + (uint64_t)i) % 5];
        if ((opts & TREE_CHAINS) && test_rng_uniform(&r, 0, 1) < 0.6) type = MBS_JOINT_REVOLUTE;
        mbs_joint_def jd = mbs_default_joint_def(type);
        jd.parent = test_rng_int(&r, 0, i - 1), jd.child = i;
        if ((opts & TREE_CHAINS) && test_rng_uniform(&r, 0, 1) < 0.7) jd.parent = i - 1;
        /* body frames are all turned about n from the world's, so n has the same coordinates
           in every body: frames turned about n keep it */
        rot_about(n, test_rng_uniform(&r, -3, 3), jd.frame_parent.rot);
        rot_about(n, test_rng_uniform(&r, -3, 3), jd.frame_child.rot);
        for (int k = 0; k < 3; ++k)
            jd.frame_parent.pos[k] = test_rng_uniform(&r, -0.4, 0.4),
            jd.frame_child.pos[k] = test_rng_uniform(&r, -0.2, 0.2);
        if ((opts & TREE_AT_AXIS) && type == MBS_JOINT_REVOLUTE)
            jd.frame_child.pos[0] = jd.frame_child.pos[1] = jd.frame_child.pos[2] = 0.0;
        /* joint axes in Fp coordinates: Fp is turned about n, so n keeps its coordinates */
        const double sign = test_rng_uniform(&r, 0, 1) < 0.5 ? -1.0 : 1.0;
        for (int k = 0; k < 3; ++k) jd.axis[k] = sign * n[k];
        if (type == MBS_JOINT_PRISMATIC) perp(&r, n, jd.axis);
        if (type == MBS_JOINT_PLANAR) perp(&r, n, jd.axis2);
        const int j = mbs_add_joint(b, &jd);
        assert_true(j >= 0);
        if (!(opts & TREE_NO_FORCES) && (type == MBS_JOINT_REVOLUTE || type == MBS_JOINT_PRISMATIC))
            assert_true(mbs_add_joint_spring_damper(b, j, 0, test_rng_uniform(&r, 1, 10),
                                                    test_rng_uniform(&r, 0, 1), 0.2) >= 0);
    }
    if (opts & TREE_NO_FORCES) return;
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = 0, sd.body_b = n_body, sd.stiffness = 20.0, sd.damping = 0.5, sd.rest_length = 0.3;
    for (int k = 0; k < 3; ++k) sd.point_a[k] = test_rng_uniform(&r, -0.5, 0.5), sd.point_b[k] = 0.1;
    assert_true(mbs_add_spring_damper(b, &sd) >= 0);
}

static void build(uint64_t seed, mbs_builder *b, int n_body, double n[3])
{
    build_opts(seed, b, n_body, n, 0);
}

/* Host wrench on body 1 in compare(). */
enum { WRENCH_NONE, WRENCH_SET, WRENCH_CLEARED };

static int chained_total; /* joints that continued a serial run, over check_kernels calls */

/* qacc of the planar model with its picked kernels and with the generic ones: equal to
   rounding (the kernels at the axis reorder the arithmetic), and bitwise repeatable; with
   the serial runs cut into single joints bitwise the same (the runs carry in registers what
   the single joints pass through memory). */
static void check_kernels(mbs_data *dp, int at_axis)
{
    mbs_model *m = (mbs_model *)(uintptr_t)mbs_data_model(dp); /* the test swaps kernels */
    const int nv = m->nv;
    double picked[NMAX], again[NMAX], generic[NMAX];
    assert_int_equal(mbs_forward_dynamics(dp), MBS_OK);
    memcpy(picked, mbs_data_qacc(dp), sizeof(double) * (size_t)nv);
    assert_int_equal(mbs_forward_dynamics(dp), MBS_OK);
    memcpy(again, mbs_data_qacc(dp), sizeof(double) * (size_t)nv);
    assert_memory_equal(picked, again, sizeof(double) * (size_t)nv);
    int n_chained = 0; /* joints that continue a serial run: the same with every run cut */
    for (int t = 0; t < m->ntree; ++t) {
        mbs_planar_joint *pj = &m->planar->joints[t];
        n_chained += pj->run_first != t;
        pj->run_first = t, pj->run_len = 1;
    }
    assert_int_equal(mbs_forward_dynamics(dp), MBS_OK);
    assert_memory_equal(picked, mbs_data_qacc(dp), sizeof(double) * (size_t)nv);
    mbs_planar_runs(m->planar, m->ntree);
    chained_total += n_chained;
    int n_axis = 0;
    for (int t = 0; t < m->ntree; ++t) {
        mbs_planar_joint *pj = &m->planar->joints[t];
        const int axis = pj->kind == MBS_PL_REVOLUTE && pj->r[0] == 0.0 && pj->r[1] == 0.0;
        n_axis += axis;
        assert_string_equal(pj->kern->name, axis ? "planar revolute at the origin"
                                                 : mbs_planar_kernels_generic(pj)->name);
        pj->kern = mbs_planar_kernels_generic(pj);
    }
    if (at_axis) assert_true(n_axis > 0);
    assert_int_equal(mbs_forward_dynamics(dp), MBS_OK);
    memcpy(generic, mbs_data_qacc(dp), sizeof(double) * (size_t)nv);
    for (int t = 0; t < m->ntree; ++t) m->planar->joints[t].kern = mbs_planar_kernels_pick(&m->planar->joints[t]);
    test_assert_close(picked, generic, nv, 1e-13, "planar kernels vs generic");
}

/* The same model compiled with and without the planar path: qacc equal to 1e-12 at random
   states, and RK4 over 0.2 s equal to 1e-11. */
static void compare_opts(mbs_builder *b, uint64_t seed, int wrench, int at_axis)
{
    mbs_model *mp = NULL, *m3 = NULL;
    assert_int_equal(mbs_compile(b, &mp), MBS_OK);
    assert_int_equal(mbs_builder_set_planar(b, MBS_PLANAR_OFF), MBS_OK);
    assert_int_equal(mbs_compile(b, &m3), MBS_OK);
    assert_int_equal(mbs_builder_set_planar(b, MBS_PLANAR_AUTO), MBS_OK);
    assert_int_equal(mbs_model_is_planar(mp), 1);
    assert_int_equal(mbs_model_is_planar(m3), 0);
    mbs_data *dp = mbs_data_create(mp), *d3 = mbs_data_create(m3);
    const int nq = mbs_model_nq(mp), nv = mbs_model_nv(mp);
    assert_true(nv <= NMAX);
    test_rng r;
    test_rng_seed(&r, seed + 100);
    for (int k = 0; k < 5; ++k) {
        test_random_state(&r, d3, 1.0, 1.0, 1.0);
        memcpy(mbs_data_q(dp), mbs_data_q(d3), sizeof(double) * (size_t)nq);
        memcpy(mbs_data_v(dp), mbs_data_v(d3), sizeof(double) * (size_t)nv);
        memcpy(mbs_data_tau(dp), mbs_data_tau(d3), sizeof(double) * (size_t)nv);
        const double F[3] = {1.0, -2.0, 0.5}, T[3] = {0.3, 0.1, -0.2}, P[3] = {0.1, 0.2, 0.05};
        if (wrench != WRENCH_NONE) {
            assert_int_equal(mbs_set_body_wrench(d3, 1, F, T, P), MBS_OK);
            assert_int_equal(mbs_set_body_wrench(dp, 1, F, T, P), MBS_OK);
        }
        if (wrench == WRENCH_CLEARED) {
            assert_int_equal(mbs_set_body_wrench(d3, 1, NULL, NULL, NULL), MBS_OK);
            assert_int_equal(mbs_set_body_wrench(dp, 1, NULL, NULL, NULL), MBS_OK);
        }
        assert_int_equal(mbs_forward_dynamics(d3), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(dp), MBS_OK);
        test_assert_close(mbs_data_qacc(dp), mbs_data_qacc(d3), nv, 1e-12, "planar qacc vs 3-D");
        if (k == 0) check_kernels(dp, at_axis);
    }
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *sp = mbs_stepper_create(dp, &def), *s3 = mbs_stepper_create(d3, &def);
    for (int k = 0; k < 200; ++k) {
        assert_int_equal(mbs_stepper_step(sp, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(s3, 1e-3), MBS_OK);
    }
    test_assert_close(mbs_data_q(dp), mbs_data_q(d3), nq, 1e-11, "planar RK4 q after 0.2 s");
    mbs_stepper_destroy(sp), mbs_stepper_destroy(s3);
    mbs_data_destroy(dp), mbs_data_destroy(d3);
    mbs_model_destroy(mp), mbs_model_destroy(m3);
}

static void compare(mbs_builder *b, uint64_t seed) { compare_opts(b, seed, WRENCH_SET, 0); }

static void test_random_planar_trees(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        mbs_builder *b = mbs_builder_create();
        double n[3];
        build(seed, b, 3 + (int)(seed % 8), n);
        double g[3] = {3.0 * n[0] + 1.0, -9.81 + 3.0 * n[1], 2.0 + 3.0 * n[2]};
        if (seed % 3 == 0) {
            const double c[3] = {4.0, -3.0, 5.0};
            assert_int_equal(mbs_builder_set_point_gravity(b, c, 30.0), MBS_OK);
        } else {
            assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
        }
        compare(b, seed);
        mbs_builder_destroy(b);
    }
}

/* Trees with revolute joints on their child frames' origins (the kernels written out for
   them), with and without forces, gravity uniform, point or zero, a host wrench set, set
   and cleared, or never. */
static void test_axis_trees(void **state)
{
    (void)state;
    for (uint64_t seed = 21; seed <= 44; ++seed) {
        mbs_builder *b = mbs_builder_create();
        double n[3];
        const int opts = TREE_AT_AXIS | (seed % 2 ? TREE_NO_FORCES : 0) | (seed % 3 ? TREE_CHAINS : 0);
        build_opts(seed, b, 3 + (int)(seed % 10), n, opts);
        const double g[3] = {1.0 + n[0], -9.81, 2.0 * n[2]}, c[3] = {4.0, -3.0, 5.0};
        if (seed % 4 == 1)
            assert_int_equal(mbs_builder_set_point_gravity(b, c, 30.0), MBS_OK);
        else if (seed % 4 != 3)
            assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
        else
            assert_int_equal(mbs_builder_set_gravity(b, (const double[3]){0.0, 0.0, 0.0}), MBS_OK);
        compare_opts(b, seed, (int)(seed % 3), 1);
        mbs_builder_destroy(b);
    }
    print_message("axis trees: %d joints continued a serial run\n", chained_total);
    assert_true(chained_total > 20); /* the runs were exercised */
}

/* Leaving the plane, a loop or a force callback: the 3-D path. */
static int no_force(mbs_data *d, void *u)
{
    (void)d, (void)u;
    return 0;
}

static void test_not_planar(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; ++variant) {
        mbs_builder *b = mbs_builder_create();
        double n[3];
        build(7, b, 4, n);
        if (variant == 0) { /* a revolute joint whose axis is tilted 1e-6 out of the normal */
            mbs_body_def bd = mbs_default_body_def();
            const int body = mbs_add_body(b, &bd);
            mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
            jd.parent = 1, jd.child = body;
            jd.axis[0] = n[0] + 1e-6, jd.axis[1] = n[1], jd.axis[2] = n[2];
            assert_true(mbs_add_joint(b, &jd) >= 0);
        } else if (variant == 1) { /* a universal joint */
            mbs_body_def bd = mbs_default_body_def();
            const int body = mbs_add_body(b, &bd);
            mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_UNIVERSAL);
            jd.parent = 1, jd.child = body;
            assert_true(mbs_add_joint(b, &jd) >= 0);
        } else {
            assert_true(mbs_add_force_callback(b, "f", no_force, NULL) >= 0);
        }
        mbs_model *m = NULL;
        assert_int_equal(mbs_compile(b, &m), MBS_OK);
        assert_int_equal(mbs_model_is_planar(m), 0);
        mbs_model_destroy(m);
        mbs_builder_destroy(b);
    }
    assert_int_equal(mbs_builder_set_planar(NULL, MBS_PLANAR_OFF), MBS_ERR_ARG);
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_planar(b, (mbs_planar_mode)7), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "planar"));
    assert_int_equal(mbs_model_is_planar(NULL), MBS_ERR_ARG);
    mbs_builder_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_planar_trees),
        cmocka_unit_test(test_axis_trees),
        cmocka_unit_test(test_not_planar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
