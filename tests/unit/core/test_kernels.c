/* Kernels of the hot passes (src/core/kernels.h): the kernels specialised to a joint's
 * geometry (revolute and prismatic joints about a coordinate axis of a translated parent
 * frame) are picked where they apply and give the generic kernels' results bit for bit
 * (up to the sign of zero) in every evaluation that runs the passes: forward and inverse
 * dynamics, mass matrix, bias forces, body velocities, RK4 steps; with gravity, springs,
 * native rotors and a line with a point mass. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"

/* Joint kinds of the test trees: 0-5 specialised (revolute x, y, z, prismatic x, y, z),
   6-9 generic (revolute about a random axis, revolute z in a rotated parent frame, revolute
   z with a child frame offset, spherical). */
#define NKIND 10
static const char *const kind_kernels[NKIND] = {
    "revolute x", "revolute y", "revolute z", "prismatic x", "prismatic y", "prismatic z",
    "generic 1-dof", "generic 1-dof", "generic 1-dof", "generic n-dof"};

static void v3set(double a[3], double x, double y, double z) { a[0] = x, a[1] = y, a[2] = z; }

/* A random body: mass in [0.5, 3], com and inertia random. */
static mbs_body_def random_body(test_rng *r)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = test_rng_uniform(r, 0.5, 3.0);
    for (int i = 0; i < 3; ++i) bd.com[i] = test_rng_uniform(r, -0.2, 0.2);
    test_random_inertia(r, 0.01, 0.05, bd.inertia);
    return bd;
}

/* Joint of kind into body from parent, with a random translated parent frame. */
static mbs_joint_def kind_joint(test_rng *r, int kind, int parent, int body)
{
    mbs_joint_def j = mbs_default_joint_def(kind == 9 ? MBS_JOINT_SPHERICAL
                                            : kind >= 3 && kind <= 5 ? MBS_JOINT_PRISMATIC
                                                                     : MBS_JOINT_REVOLUTE);
    j.parent = parent, j.child = body;
    for (int i = 0; i < 3; ++i) j.frame_parent.pos[i] = test_rng_uniform(r, -0.4, 0.4);
    v3set(j.axis, 0.0, 0.0, 0.0);
    if (kind <= 5) j.axis[kind % 3] = 1.0;
    if (kind == 6)
        v3set(j.axis, test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1), 0.5);
    if (kind == 7) {
        j.axis[2] = 1.0;
        test_random_rotation(r, j.frame_parent.rot);
    }
    if (kind == 8) {
        j.axis[2] = 1.0;
        v3set(j.frame_child.pos, 0.1, -0.05, 0.02);
    }
    return j;
}

/* A random tree of n bodies, joint kinds drawn in turn (kinds[] gets each body's), each
   body's parent random among the earlier ones; gravity, and with elements a joint spring, a
   line spring, rotors housed by the parent and by the world, a line with a point mass. */
static mbs_model *axis_tree(uint64_t seed, int n, int elements, int *kinds)
{
    test_rng r;
    test_rng_seed(&r, seed);
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    const double g[3] = {0.3, -1.2, -9.6};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    int joints[64];
    for (int i = 1; i <= n; ++i) {
        mbs_body_def bd = random_body(&r);
        assert_int_equal(mbs_add_body(b, &bd), i);
        kinds[i] = (int)((seed + (uint64_t)i) % NKIND);
        const int parent = i == 1 ? MBS_WORLD : test_rng_int(&r, 1, i - 1);
        mbs_joint_def j = kind_joint(&r, kinds[i], parent, i);
        joints[i] = mbs_add_joint(b, &j);
        assert_true(joints[i] >= 0);
        if (elements && kinds[i] <= 2) { /* native rotors: housed by the parent or the world */
            mbs_rotor_def rd = mbs_default_rotor_def();
            rd.joint = joints[i], rd.inertia = 2e-4, rd.ratio = 20.0 + i;
            rd.housing = i % 2 ? parent : MBS_WORLD;
            v3set(rd.axis, 0.1, 0.2, 1.0);
            assert_true(mbs_add_rotor(b, &rd) >= 0);
        }
    }
    if (elements) {
        assert_true(mbs_add_joint_spring_damper(b, joints[n], 0, 5.0, 0.3, 0.1) >= 0);
        mbs_spring_damper_def s = mbs_default_spring_damper_def();
        s.body_a = 1, s.body_b = n, s.stiffness = 40.0, s.damping = 0.5, s.rest_length = 0.2;
        v3set(s.point_a, 0.1, 0.0, 0.0);
        assert_true(mbs_add_spring_damper(b, &s) >= 0);
        s.body_a = MBS_WORLD, s.body_b = n - 1, s.mass = 0.4, s.mass_fraction = 0.3;
        assert_true(mbs_add_spring_damper(b, &s) >= 0);
    }
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    if (st != MBS_OK) fail_msg("compile: %s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Every result an evaluation produces, concatenated. */
typedef struct results {
    int n;
    double *x;
} results;

static void put(results *res, const double *x, int n)
{
    memcpy(res->x + res->n, x, sizeof(double) * (size_t)n);
    res->n += n;
}

/* Evaluate the model at three seeded states: qacc, tau of a random qacc, M, c, body
   velocities, then q and v after 10 RK4 steps. */
static void evaluate(const mbs_model *m, uint64_t seed, results *res)
{
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m), nb = mbs_model_nbody(m);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    double *buf = calloc((size_t)(nv * nv + nv + 8), sizeof(double));
    assert_non_null(buf);
    test_rng r;
    test_rng_seed(&r, seed);
    for (int s = 0; s < 3; ++s) {
        test_random_state(&r, d, 3.0, 2.0, 1.0);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        put(res, mbs_data_qacc(d), nv);
        for (int i = 0; i < nv; ++i) buf[nv * nv + i] = test_rng_uniform(&r, -1, 1);
        assert_int_equal(mbs_inverse_dynamics(d, buf + nv * nv, buf), MBS_OK);
        put(res, buf, nv);
        assert_int_equal(mbs_mass_matrix(d, buf), MBS_OK);
        put(res, buf, nv * nv);
        assert_int_equal(mbs_bias_forces(d, buf), MBS_OK);
        put(res, buf, nv);
        for (int body = 1; body < nb; ++body) {
            assert_int_equal(mbs_body_velocity(d, body, buf, buf + 3), MBS_OK);
            put(res, buf, 6);
        }
    }
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *st = mbs_stepper_create(d, &def);
    assert_non_null(st);
    for (int k = 0; k < 10; ++k) assert_int_equal(mbs_stepper_step(st, 1e-3), MBS_OK);
    put(res, mbs_data_q(d), nq);
    put(res, mbs_data_v(d), nv);
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    free(buf);
}

/* Set every tree joint's kernels to the generic ones (generic 1) or back to the picked ones. */
static void set_kernels(const mbs_model *m, int generic)
{
    mbs_model *mm = (mbs_model *)(uintptr_t)m; /* the test swaps the kernels of its model */
    for (int t = 0; t < mm->ntree; ++t) {
        mbs_joint_model *jm = &mm->joints[mm->tree[t]];
        jm->kern = generic ? mbs_kernels_generic(jm) : mbs_kernels_pick(jm);
    }
}

/* The picked kernels are the expected ones and equal the generic ones bit for bit. */
static void check_tree(uint64_t seed, int n, int elements)
{
    int kinds[64];
    mbs_model *m = axis_tree(seed, n, elements, kinds);
    for (int body = 1; body <= n; ++body) {
        const mbs_joint_model *jm = &m->joints[m->bodies[body].joint];
        assert_string_equal(jm->kern->name, kind_kernels[kinds[body]]);
    }
    const int nv = mbs_model_nv(m), nb = mbs_model_nbody(m);
    const size_t cap = (size_t)(3 * (nv * nv + 3 * nv + 6 * nb) + mbs_model_nq(m) + nv);
    results a = {0, calloc(cap, sizeof(double))}, g = {0, calloc(cap, sizeof(double))};
    assert_true(a.x && g.x);
    evaluate(m, seed + 1, &a);
    set_kernels(m, 1);
    evaluate(m, seed + 1, &g);
    set_kernels(m, 0);
    assert_int_equal(a.n, g.n);
    for (int i = 0; i < a.n; ++i)
        if (!(a.x[i] == g.x[i])) /* == : +0 and -0 compare equal */
            fail_msg("seed %llu: result %d differs: %.17g (specialised) vs %.17g (generic)",
                     (unsigned long long)seed, i, a.x[i], g.x[i]);
    free(a.x);
    free(g.x);
    mbs_model_destroy(m);
}

/* Trees of 12 and 30 bodies without and with elements. */
static void test_kernels_equal_generic(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        check_tree(seed, 12, 0);
        check_tree(seed + 100, 30, 1);
    }
}

/* Joints whose geometry almost fits keep the generic kernels: an axis a hair off e_z, a
   parent frame with a rotation, a cut joint (no kernels). */
static void test_kernels_pick(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    for (int i = 1; i <= 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        assert_int_equal(mbs_add_body(b, &bd), i);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = i - 1, j.child = i;
        v3set(j.axis, 0.0, i == 1 ? 1e-9 : 0.0, 1.0);
        if (i == 2) j.frame_parent.rot[0] = j.frame_parent.rot[4] = -1.0; /* Rz(pi) */
        assert_true(mbs_add_joint(b, &j) >= 0);
    }
    mbs_joint_def cut = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    cut.parent = MBS_WORLD, cut.child = 3, cut.cut = 1;
    const int jc = mbs_add_joint(b, &cut);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    static const char *const want[4] = {"", "generic 1-dof", "generic 1-dof", "revolute z"};
    for (int body = 1; body <= 3; ++body)
        assert_string_equal(m->joints[m->bodies[body].joint].kern->name, want[body]);
    assert_null(m->joints[jc].kern);
    mbs_model_destroy(m);
}

/* A mass matrix that overflows (a prismatic coordinate of 1e200 puts a mass 1e200 m from
   the revolute axis above it) is MBS_ERR_NONFINITE naming the joint, found by the row pass
   itself; the same model at a normal q is fine. */
static void test_mass_matrix_overflow(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    for (int i = 1; i <= 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        assert_int_equal(mbs_add_body(b, &bd), i);
        mbs_joint_def j = mbs_default_joint_def(i == 2 ? MBS_JOINT_PRISMATIC : MBS_JOINT_REVOLUTE);
        j.name = i == 1 ? "hinge" : i == 2 ? "slider" : "wrist";
        j.parent = i - 1, j.child = i;
        v3set(j.axis, i == 2 ? 1.0 : 0.0, 0.0, i == 2 ? 0.0 : 1.0);
        assert_true(mbs_add_joint(b, &j) >= 0);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    double M[9], LDL[9];
    mbs_data_q(d)[1] = 0.5;
    assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
    mbs_data_q(d)[1] = 1e200;
    assert_int_equal(mbs_mass_matrix(d, M), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "mass_matrix: M["));
    assert_int_equal(mbs_mass_matrix_factor(d, LDL), MBS_ERR_NONFINITE);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_equal_generic),
        cmocka_unit_test(test_kernels_pick),
        cmocka_unit_test(test_mass_matrix_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
