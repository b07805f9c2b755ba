/* mbs-codegen (tools/codegen/): the generated C against the library on random trees of every
 * joint type (quaternion roots, springs, uniform and point gravity): forward and inverse
 * dynamics to 1e-12, RK4 trajectories over 1 s to 1e-12 of their range; the generated file
 * compiles with -std=c99 -Wall -Wextra -Werror and needs nothing but libm (its undefined
 * symbols are checked); models it cannot handle are refused with a reason. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codegen_build.h"
#include "common.h"

typedef int (*fd_fn)(const double *, const double *, const double *, double *);
typedef int (*rk4_fn)(double *, double *, double *, const double *, double);

/* A generated model compiled into a shared object and loaded. */
typedef struct gen_model {
    void *so;
    fd_fn fd, id;
    rk4_fn rk4;
    int nline;
} gen_model;

/* Generate, compile (strict C99, warnings as errors), check the undefined symbols, load. */
static void generate(const mbs_model *m, const char *dir, gen_model *g)
{
    char msg[2200];
    g->nline = cgb_build(m, NULL, dir, "-O1", 1, &g->so, msg, (int)sizeof msg);
    if (g->nline < 0) fail_msg("%s", msg);
    *(void **)&g->fd = cgb_fn(g->so, "forward_dynamics");
    *(void **)&g->id = cgb_fn(g->so, "inverse_dynamics");
    *(void **)&g->rk4 = cgb_fn(g->so, "rk4_step");
    assert_true(g->fd && g->id && g->rk4);
}

/* Forward and inverse dynamics at random states: 1e-12 relative. */
static void check_dynamics(const mbs_model *m, mbs_data *d, const gen_model *g, test_rng *r)
{
    const int nv = mbs_model_nv(m);
    double qacc[64], tau[64];
    for (int k = 0; k < 5; ++k) {
        test_random_state(r, d, 1.0, 1.0, 2.0);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        assert_int_equal(g->fd(mbs_data_q(d), mbs_data_v(d), mbs_data_tau(d), qacc), 0);
        test_assert_close(qacc, mbs_data_qacc(d), nv, 1e-12, "generated forward dynamics");
        assert_int_equal(g->id(mbs_data_q(d), mbs_data_v(d), mbs_data_qacc(d), tau), 0);
        test_assert_close(tau, mbs_data_tau(d), nv, 1e-11, "generated inverse dynamics");
    }
}

/* 1 s of RK4 at 1 kHz with tau held: generated vs library, 1e-12 of the range. */
static void check_trajectory(const mbs_model *m, mbs_data *d, const gen_model *g, test_rng *r)
{
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double q[64], v[64], tau[64], t = 0.0;
    test_random_state(r, d, 0.5, 0.5, 0.5);
    memcpy(q, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(v, mbs_data_v(d), sizeof(double) * (size_t)nv);
    memcpy(tau, mbs_data_tau(d), sizeof(double) * (size_t)nv);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    for (int n = 0; n < 1000; ++n) {
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        assert_int_equal(g->rk4(&t, q, v, tau, 1e-3), 0);
    }
    mbs_stepper_destroy(s);
    test_assert_close(q, mbs_data_q(d), nq, 1e-12, "generated RK4: q after 1 s");
    test_assert_close(v, mbs_data_v(d), nv, 1e-11, "generated RK4: v after 1 s");
}

/* Generate m's code into dir, check its dynamics and trajectory against the library (random
   states from seed), destroy m. */
static void check_generated(mbs_model *m, const char *dir, uint64_t seed)
{
    mbs_data *d = mbs_data_create(m);
    gen_model g;
    generate(m, dir, &g);
    test_rng r;
    test_rng_seed(&r, seed);
    check_dynamics(m, d, &g, &r);
    check_trajectory(m, d, &g, &r);
    dlclose(g.so);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

static void test_random_trees(void **state)
{
    (void)state;
    char dir[32];
    assert_int_equal(cgb_mkdir(dir), 0);
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        test_tree_opts o = test_default_tree_opts(4 + (int)(seed % 5));
        o.springs = 2;
        o.gravity = 1 + (int)(seed % 2);
        o.quaternions_only = 1;
        check_generated(test_random_tree(seed, &o), dir, seed);
    }
    cgb_rmdir(dir);
}

/* A constant joint force (a drive) beside a joint spring: generated code equals the library. */
/* The model path in the generated file's first comment cannot end it or open another: a
   path holding "*" "/" injected what followed into the code. The first comment end is the
   header's own, and a newline in the path is no line break. */
static void test_source_comment(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = 1;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    mbs_model *m = test_compile_ok(b);
    char *text = NULL, why[256];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    cg_options opt = {.prefix = "gen", .source = "/tmp/evil*/ int injected = 1; /*\nx/model.urdf"};
    assert_true(cg_write(f, m, &opt, why, (int)sizeof why) > 0);
    fclose(f);
    const char *end = strstr(text, "*/"), *own = strstr(text, "no SUNDIALS. */");
    assert_non_null(own);
    assert_true(end == own + strlen("no SUNDIALS. "));
    const char *opened = strstr(text + 2, "/*");
    assert_true(!opened || opened > end);
    assert_non_null(strstr(text, "evil*\\/ int injected = 1; /\\*\\012x/model.urdf"));
    free(text);
    mbs_model_destroy(m);
}

static void test_joint_force(void **state)
{
    (void)state;
    char dir[32];
    assert_int_equal(cgb_mkdir(dir), 0);
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.com[0] = 0.3;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = 1, jd.axis[0] = 0.3, jd.axis[1] = 1.0;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    jd.parent = 1, jd.child = 2, jd.frame_parent.pos[0] = 0.6;
    assert_int_equal(mbs_add_joint(b, &jd), 1);
    assert_true(mbs_add_joint_force(b, 0, 0, 2.5) >= 0);
    assert_true(mbs_add_joint_spring_damper(b, 1, 0, 3.0, 0.2, 0.1) >= 0);
    assert_true(mbs_add_joint_force(b, 1, 0, -0.5) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    check_generated(m, dir, 7);
    cgb_rmdir(dir);
}

/* A Cardan root and a force callback: refused, naming the part (loops: test_codegen_loops). */
static int no_force(mbs_data *d, void *user)
{
    (void)d, (void)user;
    return 0;
}

static void test_refusals(void **state)
{
    (void)state;
    char why[256];
    test_tree_opts o = test_default_tree_opts(5);
    o.quaternions_only = 0;
    int cardan_found = 0;
    for (uint64_t seed = 1; seed <= 20 && !cardan_found; ++seed) {
        mbs_model *m = test_random_tree(seed, &o);
        if (cg_check_model(m, why, (int)sizeof why) != 0) {
            assert_non_null(strstr(why, "Cardan"));
            cardan_found = 1;
        }
        mbs_model_destroy(m);
    }
    assert_true(cardan_found);
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = 1;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    assert_true(mbs_add_force_callback(b, "motor", no_force, NULL) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(cg_check_model(m, why, (int)sizeof why), -1);
    assert_non_null(strstr(why, "\"motor\""));
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    /* Modelica elements: a rotor, a point mass on a line, a node */
    for (int k = 0; k < 3; ++k) {
        b = mbs_builder_create();
        mbs_add_body(b, &bd);
        jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.child = 1;
        mbs_add_joint(b, &jd);
        mbs_spring_damper_def s = mbs_default_spring_damper_def();
        s.name = "heavy", s.body_b = 1, s.stiffness = 1.0, s.point_a[0] = 1.0;
        if (k == 0) {
            mbs_rotor_def r = mbs_default_rotor_def();
            r.name = "gearbox", r.joint = 0, r.inertia = 1e-3;
            assert_int_equal(mbs_add_rotor(b, &r), 0);
        } else if (k == 1) {
            s.mass = 0.3;
            assert_true(mbs_add_spring_damper(b, &s) >= 0);
        } else {
            mbs_body_def nd = mbs_default_body_def();
            nd.name = "knot", nd.mass = 0.0;
            memset(nd.inertia, 0, sizeof nd.inertia);
            const int n = mbs_add_body(b, &nd);
            s.body_a = n;
            assert_true(mbs_add_spring_damper(b, &s) >= 0);
            s.body_b = MBS_WORLD;
            assert_true(mbs_add_spring_damper(b, &s) >= 0);
        }
        assert_int_equal(mbs_compile(b, &m), MBS_OK);
        assert_int_equal(cg_check_model(m, why, (int)sizeof why), -1);
        const char *want[3] = {"rotor \"gearbox\"", "\"heavy\" has point masses", "node \"knot\""};
        if (!strstr(why, want[k])) print_error("%s\n", why);
        assert_non_null(strstr(why, want[k]));
        mbs_model_destroy(m);
        mbs_builder_destroy(b);
    }
}

/* Translational joints (a point mass's automatic root, and one a user made under a link on a
   revolute joint) in point gravity: generated dynamics and RK4 as the library's; a point
   mass on a spherical joint (its swing joint) is refused naming the joint. */
static void test_translational(void **state)
{
    (void)state;
    char dir[32], why[256];
    assert_int_equal(cgb_mkdir(dir), 0);
    mbs_builder *b = mbs_builder_create();
    const double c[3] = {0.0, 0.0, -3.0};
    assert_int_equal(mbs_builder_set_point_gravity(b, c, 5.0), MBS_OK);
    mbs_body_def pm = mbs_default_body_def();
    memset(pm.inertia, 0, sizeof pm.inertia);
    assert_int_equal(mbs_add_body(b, &pm), 1);
    mbs_body_def bd = mbs_default_body_def();
    bd.com[0] = 0.2;
    bd.inertia[0] = 0.02, bd.inertia[4] = 0.03, bd.inertia[8] = 0.04;
    assert_int_equal(mbs_add_body(b, &bd), 2);
    assert_int_equal(mbs_add_body(b, &bd), 3);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_TRANSLATIONAL);
    j.child = 2, j.frame_parent.pos[1] = 1.0;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 2, j.child = 3, j.frame_parent.pos[0] = 0.4, j.axis[1] = 1.0, j.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_nq(m), 7);
    mbs_data *d = mbs_data_create(m);
    gen_model g;
    generate(m, dir, &g);
    test_rng r;
    test_rng_seed(&r, 77);
    check_dynamics(m, d, &g, &r);
    check_trajectory(m, d, &g, &r);
    dlclose(g.so);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    pm.com[2] = -0.5;
    assert_int_equal(mbs_add_body(b, &pm), 4);
    j.parent = 3, j.child = 4, j.name = "ball";
    assert_int_equal(mbs_add_joint(b, &j), 2);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(cg_check_model(m, why, (int)sizeof why), -1);
    assert_non_null(strstr(why, "\"ball\""));
    assert_non_null(strstr(why, "not generated"));
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    cgb_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translational),
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_joint_force),
        cmocka_unit_test(test_source_comment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
