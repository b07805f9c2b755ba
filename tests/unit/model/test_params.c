/* Parameters of a compiled model changed for a new run (mbs_model_set_param, _set_body,
 * _set_gravity, _set_point_gravity): a model changed after compile gives bit for bit the
 * dynamics and trajectories of the model compiled with the new value (3-D path, planar path,
 * point masses with their swing axes, force elements, gravity); data objects created before
 * the change see it at their next call; a stepper restarts CVODE; every invalid value is
 * refused with the model unchanged. */
#include "common.h"
#include "run_helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- a model from values */

/* Every value the test changes, so that a model can be compiled with any of them. */
typedef struct values {
    double mass[6], com[6][3], inertia[6][9]; /* bodies 1..5 (index 0 unused) */
    double k[3], d[3], rest[3];               /* line spring 0, joint spring 1, line spring 2 */
    double g[3];
    int point;                  /* 1: point gravity (center, mu) instead of g */
    double center[3], mu;
} values;

static values base_values(void)
{
    values v;
    memset(&v, 0, sizeof v);
    const double m[6] = {0, 2.0, 1.0, 0.8, 0.5, 1.5};
    const double I[6][3] = {{0, 0, 0}, {0.3, 0.25, 0.35}, {0.02, 0.1, 0.1}, {0.05, 0.06, 0.07},
                            {0, 0, 0}, {0.1, 0.1, 0.1}};
    for (int b = 1; b <= 5; ++b) {
        v.mass[b] = m[b];
        v.com[b][0] = 0.1 * b, v.com[b][1] = -0.05 * b, v.com[b][2] = 0.02;
        for (int k = 0; k < 3; ++k) v.inertia[b][4 * k] = I[b][k];
    }
    v.com[4][0] = 0.0, v.com[4][1] = 0.0, v.com[4][2] = -0.4; /* the point mass hangs */
    v.k[0] = 40.0, v.d[0] = 0.5, v.rest[0] = 0.6;
    v.k[1] = 3.0, v.d[1] = 0.1, v.rest[1] = 0.2;
    v.k[2] = 25.0, v.d[2] = 0.2, v.rest[2] = 0.5;
    v.g[0] = 0.0, v.g[1] = 0.5, v.g[2] = -9.81;
    return v;
}

/* Body 1 on its automatic free root, 2 on a revolute from 1, 3 on a spherical from 2, the
   point mass 4 on a spherical from 3 (a swing joint), 5 on a prismatic from the world; a line
   spring-damper world-1, a joint spring-damper on the revolute, a line spring-damper 4-5. */
static mbs_model *build(const values *v)
{
    mbs_builder *b = mbs_builder_create();
    if (v->point)
        assert_int_equal(mbs_builder_set_point_gravity(b, v->center, v->mu), MBS_OK);
    else
        assert_int_equal(mbs_builder_set_gravity(b, v->g), MBS_OK);
    for (int i = 1; i <= 5; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = v->mass[i];
        memcpy(bd.com, v->com[i], sizeof bd.com);
        memcpy(bd.inertia, v->inertia[i], sizeof bd.inertia);
        assert_int_equal(mbs_add_body(b, &bd), i);
    }
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = 0.5;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.parent = 2, j.child = 3, j.frame_parent.pos[0] = 0.6;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    j.parent = 3, j.child = 4, j.frame_parent.pos[1] = 0.3;
    assert_int_equal(mbs_add_joint(b, &j), 2);
    j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = 5, j.axis[0] = 1, j.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &j), 3);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_b = 1, sd.point_a[2] = 1.0;
    sd.stiffness = v->k[0], sd.damping = v->d[0], sd.rest_length = v->rest[0];
    assert_int_equal(mbs_add_spring_damper(b, &sd), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, v->k[1], v->d[1], v->rest[1]), 1);
    sd = mbs_default_spring_damper_def();
    sd.body_a = 4, sd.body_b = 5;
    sd.stiffness = v->k[2], sd.damping = v->d[2], sd.rest_length = v->rest[2];
    assert_int_equal(mbs_add_spring_damper(b, &sd), 2);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Write a parameter's value into the values the model is compiled from. */
static void put(values *v, const mbs_param *p, double x)
{
    switch (p->kind) {
    case MBS_PARAM_MASS: v->mass[p->id] = x; break;
    case MBS_PARAM_COM: v->com[p->id][p->index] = x; break;
    case MBS_PARAM_INERTIA:
        v->inertia[p->id][p->index] = x;
        v->inertia[p->id][3 * (p->index % 3) + p->index / 3] = x;
        break;
    case MBS_PARAM_STIFFNESS: v->k[p->id] = x; break;
    case MBS_PARAM_DAMPING: v->d[p->id] = x; break;
    case MBS_PARAM_REST: v->rest[p->id] = x; break;
    case MBS_PARAM_GRAVITY: v->g[p->index] = x; break;
    default: fail();
    }
}

/* The two models run alike bitwise (run_helpers.h): one random state, 300 RK4 steps. */
static void assert_same_runs(const mbs_model *ma, const mbs_model *mb, uint64_t seed)
{
    run_assert_same(ma, mb, seed, 1, 300);
}

/* ---------------------------------------------------------------- same as compiled */

/* For a mass, com and inertia entries (rigid bodies and the swing point mass, whose axes
   follow its new offset), line and joint spring coefficients and a gravity component: the
   compiled model changed by mbs_model_set_param gives bitwise the forward dynamics, energy
   and 300 RK4 steps of the model compiled with the new value; get_param reads it back. */
static void test_set_param_equals_compiled(void **state)
{
    (void)state;
    const struct { mbs_param p; double x; } cases[] = {
        {{MBS_PARAM_MASS, 1, 0}, 2.5},      {{MBS_PARAM_MASS, 4, 0}, 0.9},
        {{MBS_PARAM_MASS, 5, 0}, 0.25},     {{MBS_PARAM_COM, 2, 1}, 0.3},
        {{MBS_PARAM_COM, 4, 0}, 0.15},      {{MBS_PARAM_INERTIA, 1, 0}, 0.5},
        {{MBS_PARAM_INERTIA, 2, 1}, 0.01},  {{MBS_PARAM_INERTIA, 3, 8}, 0.1},
        {{MBS_PARAM_STIFFNESS, 0, 0}, 77.0}, {{MBS_PARAM_DAMPING, 2, 0}, 1.5},
        {{MBS_PARAM_REST, 1, 0}, -0.4},     {{MBS_PARAM_REST, 0, 0}, 0.9},
        {{MBS_PARAM_STIFFNESS, 1, 0}, 0.0}, {{MBS_PARAM_GRAVITY, 0, 2}, -3.7},
    };
    const int n = (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < n; ++c) {
        values v = base_values();
        mbs_model *ma = build(&v);
        assert_int_equal(mbs_model_set_param(ma, &cases[c].p, cases[c].x), MBS_OK);
        double back = 0.0;
        assert_int_equal(mbs_model_get_param(ma, &cases[c].p, &back), MBS_OK);
        assert_true(back == cases[c].x);
        assert_string_equal(mbs_model_error(ma), "");
        put(&v, &cases[c].p, cases[c].x);
        mbs_model *mb = build(&v);
        assert_same_runs(ma, mb, 100 + (uint64_t)c);
        mbs_model_destroy(ma);
        mbs_model_destroy(mb);
    }
}

/* A whole body at once, and gravity replaced by point gravity and back to uniform: bitwise
   the compiled models. */
static void test_set_body_and_gravity(void **state)
{
    (void)state;
    values v = base_values();
    mbs_model *ma = build(&v);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 3.0;
    bd.com[0] = -0.2, bd.com[2] = 0.1;
    const double I[9] = {0.4, 0.01, 0.0, 0.01, 0.3, 0.02, 0.0, 0.02, 0.5};
    memcpy(bd.inertia, I, sizeof I);
    assert_int_equal(mbs_model_set_body(ma, 3, &bd), MBS_OK);
    v.mass[3] = 3.0;
    memcpy(v.com[3], bd.com, sizeof bd.com);
    memcpy(v.inertia[3], I, sizeof I);
    const double g2[3] = {1.0, -2.0, -8.0};
    assert_int_equal(mbs_model_set_gravity(ma, g2), MBS_OK);
    memcpy(v.g, g2, sizeof g2);
    mbs_model *mb = build(&v);
    assert_same_runs(ma, mb, 7);
    mbs_model_destroy(mb);
    /* point gravity (then its mu changed), then uniform again */
    const double c[3] = {0.0, 0.0, -5.0};
    assert_int_equal(mbs_model_set_point_gravity(ma, c, 300.0), MBS_OK);
    mbs_param mu = {MBS_PARAM_GRAVITY_MU, 0, 0};
    double x = 0.0;
    assert_int_equal(mbs_model_get_param(ma, &mu, &x), MBS_OK);
    assert_true(x == 300.0);
    assert_int_equal(mbs_model_set_param(ma, &mu, 250.0), MBS_OK);
    v.point = 1;
    memcpy(v.center, c, sizeof c);
    v.mu = 250.0;
    mb = build(&v);
    assert_same_runs(ma, mb, 9);
    mbs_model_destroy(mb);
    v.point = 0;
    assert_int_equal(mbs_model_set_gravity(ma, g2), MBS_OK);
    mb = build(&v);
    assert_same_runs(ma, mb, 8);
    mbs_model_destroy(ma);
    mbs_model_destroy(mb);
}

/* A planar chain (three revolutes about z with joint springs) compiled on the planar path:
   mass, com and inertia changed after compile update the planar inertias, bitwise the
   compiled model with those values. */
static mbs_model *planar_chain(double m2, double cx2, double izz2)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -9.81, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    for (int i = 1; i <= 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = i == 2 ? m2 : 1.0;
        bd.com[0] = i == 2 ? cx2 : 0.5;
        bd.inertia[8] = i == 2 ? izz2 : 0.02;
        bd.inertia[0] = 0.04, bd.inertia[4] = bd.inertia[8];
        assert_int_equal(mbs_add_body(b, &bd), i);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = i - 1, j.child = i;
        if (i > 1) j.frame_parent.pos[0] = 1.0;
        assert_int_equal(mbs_add_joint(b, &j), i - 1);
        assert_int_equal(mbs_add_joint_spring_damper(b, i - 1, 0, 2.0, 0.1, 0.0), i - 1);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    assert_int_equal(mbs_model_is_planar(m), 1);
    return m;
}

static void test_planar_path(void **state)
{
    (void)state;
    mbs_model *ma = planar_chain(1.0, 0.5, 0.02);
    const mbs_param pm = {MBS_PARAM_MASS, 2, 0}, pc = {MBS_PARAM_COM, 2, 0};
    const mbs_param pi = {MBS_PARAM_INERTIA, 2, 8}, pi4 = {MBS_PARAM_INERTIA, 2, 4};
    assert_int_equal(mbs_model_set_param(ma, &pm, 1.7), MBS_OK);
    assert_int_equal(mbs_model_set_param(ma, &pc, 0.35), MBS_OK);
    assert_int_equal(mbs_model_set_param(ma, &pi4, 0.05), MBS_OK);
    assert_int_equal(mbs_model_set_param(ma, &pi, 0.05), MBS_OK);
    mbs_model *mb = planar_chain(1.7, 0.35, 0.05);
    assert_int_equal(mbs_model_is_planar(ma), 1);
    assert_same_runs(ma, mb, 11);
    mbs_model_destroy(ma);
    mbs_model_destroy(mb);
}

/* ---------------------------------------------------------------- data and steppers */

/* A data object created before the change sees it at its next call (its forward dynamics
   equals a fresh data's, bitwise). A body on a prismatic z joint under gravity stepped by
   CVODE (Adams, BDF) with g changed from -9.81 to -3 at t = 0.5 between steps follows the
   closed form z = g1 t^2/2, then z(0.5) + v(0.5) u + g2 u^2/2 (1e-9): the stepper restarts
   on the change. */
static void test_data_sees_change(void **state)
{
    (void)state;
    values v = base_values();
    mbs_model *m = build(&v);
    mbs_data *old = mbs_data_create(m);
    test_rng r;
    test_rng_seed(&r, 3);
    test_random_state(&r, old, 0.5, 0.5, 0.0);
    assert_int_equal(mbs_forward_dynamics(old), MBS_OK);
    const mbs_param p = {MBS_PARAM_MASS, 2, 0};
    assert_int_equal(mbs_model_set_param(m, &p, 4.0), MBS_OK);
    mbs_data *fresh = mbs_data_create(m);
    memcpy(mbs_data_q(fresh), mbs_data_q(old), (size_t)mbs_model_nq(m) * sizeof(double));
    memcpy(mbs_data_v(fresh), mbs_data_v(old), (size_t)mbs_model_nv(m) * sizeof(double));
    assert_int_equal(mbs_forward_dynamics(old), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(fresh), MBS_OK);
    assert_memory_equal(mbs_data_qacc(old), mbs_data_qacc(fresh),
                        (size_t)mbs_model_nv(m) * sizeof(double));
    mbs_data_destroy(old);
    mbs_data_destroy(fresh);
    mbs_model_destroy(m);

    for (int kind = MBS_STEP_CVODE_ADAMS; kind <= MBS_STEP_CVODE_BDF; ++kind) {
        mbs_builder *b = mbs_builder_create();
        mbs_body_def bd = mbs_default_body_def();
        assert_int_equal(mbs_add_body(b, &bd), 1);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
        j.child = 1;
        assert_int_equal(mbs_add_joint(b, &j), 0);
        assert_int_equal(mbs_compile(b, &m), MBS_OK);
        mbs_builder_destroy(b);
        mbs_data *d = mbs_data_create(m);
        mbs_stepper_def sd = mbs_default_stepper_def((mbs_stepper_kind)kind);
        sd.rtol = 1e-11, sd.atol = 1e-13;
        mbs_stepper *s = mbs_stepper_create(d, &sd);
        assert_non_null(s);
        double worst = 0.0;
        const double g1 = -9.81, g2 = -3.0;
        for (int k = 1; k <= 20; ++k) {
            if (k == 11) {
                const double g[3] = {0.0, 0.0, g2};
                assert_int_equal(mbs_model_set_gravity(m, g), MBS_OK);
            }
            assert_int_equal(mbs_stepper_step(s, 0.05), MBS_OK);
            const double t = mbs_data_time(d), u = t - 0.5;
            const double z = t <= 0.5 + 1e-12 ? 0.5 * g1 * t * t
                                              : 0.125 * g1 + 0.5 * g1 * u + 0.5 * g2 * u * u;
            worst = fmax(worst, fabs(mbs_data_q(d)[0] - z));
        }
        print_message("gravity changed mid-run, %s: z vs closed form %.2e\n",
                      kind == MBS_STEP_CVODE_BDF ? "BDF" : "Adams", worst);
        assert_true(worst < 1e-9);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* ---------------------------------------------------------------- refused values */

/* Every invalid parameter call is refused with its status and a message naming the body or
   element, and leaves the model exactly as it was (same dynamics bit for bit): negative or
   non-finite masses, a com beyond 1e100, inertias that are not positive semi-definite or
   break the triangle inequality, mass 0 with inertia, the point mass given inertia, a rigid
   free body made a point mass, a swing point mass moved to its joint centre, negative or
   NaN coefficients, a negative rest length, mu <= 0, bad ids, indices and kinds, a frame
   force's stiffness, the world, NULL arguments. */
static void test_refused(void **state)
{
    (void)state;
    values v = base_values();
    mbs_model *m = build(&v);
    double before[32], after[32];
    const int nv = mbs_model_nv(m);
    run_fingerprint(m, before);
    const struct { mbs_param p; double x; const char *msg; } bad[] = {
        {{MBS_PARAM_MASS, 1, 0}, -1.0, "mass is negative"},
        {{MBS_PARAM_MASS, 1, 0}, NAN, "not finite"},
        {{MBS_PARAM_COM, 2, 0}, 1e101, "com is not finite"},
        {{MBS_PARAM_INERTIA, 1, 0}, -0.1, "not positive semi-definite"},
        {{MBS_PARAM_INERTIA, 1, 0}, 0.7, "triangle inequality"},
        {{MBS_PARAM_INERTIA, 1, 1}, 0.5, "not positive semi-definite"},
        {{MBS_PARAM_INERTIA, 4, 0}, 0.01, "triangle inequality"},
        {{MBS_PARAM_MASS, 4, 0}, 0.0, "must keep mass > 0"},
        {{MBS_PARAM_COM, 4, 2}, 0.0, "compile the model again"},
        {{MBS_PARAM_STIFFNESS, 0, 0}, -1.0, "stiffness must be >= 0"},
        {{MBS_PARAM_DAMPING, 1, 0}, NAN, "damping is not finite"},
        {{MBS_PARAM_REST, 2, 0}, -0.1, "rest_length must be >= 0"},
        {{MBS_PARAM_REST, 1, 0}, INFINITY, "rest position is not finite"},
        {{MBS_PARAM_GRAVITY, 0, 1}, NAN, "gravity"},
        {{MBS_PARAM_GRAVITY_MU, 0, 0}, 1.0, "no point gravity"},
        {{MBS_PARAM_MASS, 0, 0}, 1.0, "body 0 out of range"},
        {{MBS_PARAM_MASS, 6, 0}, 1.0, "body 6 out of range"},
        {{MBS_PARAM_COM, 1, 3}, 0.0, "index 3 out of range"},
        {{MBS_PARAM_MASS, 1, 1}, 1.0, "index 1 out of range"},
        {{MBS_PARAM_STIFFNESS, 3, 0}, 1.0, "force element 3 out of range"},
        {{(mbs_param_kind)99, 1, 0}, 1.0, "unknown kind"},
    };
    const int n = (int)(sizeof bad / sizeof bad[0]);
    for (int c = 0; c < n; ++c) {
        int st = mbs_model_set_param(m, &bad[c].p, bad[c].x);
        if (st != MBS_ERR_ARG || !strstr(mbs_model_error(m), bad[c].msg))
            print_error("case %d: %s: \"%s\"\n", c, mbs_status_name(st), mbs_model_error(m));
        assert_int_equal(st, MBS_ERR_ARG);
        assert_non_null(strstr(mbs_model_error(m), bad[c].msg));
    }
    /* the point mass given an inertia */
    mbs_body_def pm = mbs_default_body_def();
    memcpy(pm.com, v.com[4], sizeof pm.com);
    assert_int_equal(mbs_model_set_body(m, 4, &pm), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "must keep mass > 0 and zero inertia"));
    memset(pm.inertia, 0, sizeof pm.inertia);
    assert_int_equal(mbs_model_set_body(m, 0, &pm), MBS_ERR_ARG);
    assert_int_equal(mbs_model_set_body(m, 1, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_set_body(NULL, 1, &pm), MBS_ERR_ARG);
    pm.mass = 0.0;
    pm.inertia[0] = 1.0;
    assert_int_equal(mbs_model_set_body(m, 2, &pm), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "mass is 0 but inertia is not zero"));
    const double nan3[3] = {NAN, 0, 0}, c0[3] = {0, 0, 0};
    assert_int_equal(mbs_model_set_gravity(m, nan3), MBS_ERR_ARG);
    assert_int_equal(mbs_model_set_gravity(m, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_set_point_gravity(m, c0, 0.0), MBS_ERR_ARG);
    assert_int_equal(mbs_model_set_point_gravity(m, nan3, 1.0), MBS_ERR_ARG);
    assert_int_equal(mbs_model_set_point_gravity(m, NULL, 1.0), MBS_ERR_ARG);
    assert_int_equal(mbs_model_set_param(m, NULL, 1.0), MBS_ERR_ARG);
    assert_int_equal(mbs_model_set_param(NULL, &bad[0].p, 1.0), MBS_ERR_ARG);
    double x;
    assert_int_equal(mbs_model_get_param(m, &bad[0].p, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_get_param(m, &bad[15].p, &x), MBS_ERR_ARG);
    assert_string_equal(mbs_model_error(NULL), "");
    run_fingerprint(m, after);
    assert_memory_equal(before, after, (size_t)nv * sizeof(double));
    mbs_model_destroy(m);

    /* an element without coefficients */
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_frame_force_def fd = mbs_default_frame_force_def();
    fd.name = "push";
    fd.body_b = 1;
    assert_int_equal(mbs_add_frame_force(b, &fd), 0);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    const mbs_param ps = {MBS_PARAM_STIFFNESS, 0, 0};
    assert_int_equal(mbs_model_set_param(m, &ps, 1.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "\"push\" is a frame force"));
    /* the rigid body alone on its free root made a point mass: compile would drop its
       rotation */
    pm = mbs_default_body_def();
    memset(pm.inertia, 0, sizeof pm.inertia);
    assert_int_equal(mbs_model_set_body(m, 1, &pm), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "compile the model again"));
    mbs_model_destroy(m);
}

/* What the callback of test_set_param_in_callback saw: the model to change, the statuses. */
typedef struct nested_set {
    mbs_model *m;
    int st[3];
} nested_set;

/* A force callback that tries to change its own model while it runs. */
static int set_param_cb(mbs_data *d, void *user)
{
    (void)d;
    nested_set *n = user;
    const mbs_param mass = {MBS_PARAM_MASS, 1, 0};
    const double g[3] = {0.0, 0.0, -1.0};
    n->st[0] = mbs_model_set_param(n->m, &mass, 5.0);
    n->st[1] = mbs_model_set_gravity(n->m, g);
    mbs_body_def bd = mbs_default_body_def();
    n->st[2] = mbs_model_set_body(n->m, 1, &bd);
    return 0;
}

/* mbs_model_set_param (and the other model setters) from inside a force callback would
   change the evaluation that is running: refused with MBS_ERR_STATE naming the callback
   (it was applied); the same call outside the callback goes through. */
static void test_set_param_in_callback(void **state)
{
    (void)state;
    nested_set n = {NULL, {0, 0, 0}};
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.child = 1;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    assert_true(mbs_add_force_callback(b, "meddler", set_param_cb, &n) >= 0);
    assert_int_equal(mbs_compile(b, &n.m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(n.m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    for (int k = 0; k < 3; ++k) assert_int_equal(n.st[k], MBS_ERR_STATE);
    assert_non_null(strstr(mbs_model_error(n.m), "mbs_model_set_body: not allowed inside the "
                           "callback of force callback \"meddler\""));
    const mbs_param mass = {MBS_PARAM_MASS, 1, 0};
    double x = 0.0;
    assert_int_equal(mbs_model_get_param(n.m, &mass, &x), MBS_OK);
    assert_true(x == 2.0);
    assert_int_equal(mbs_model_set_param(n.m, &mass, 5.0), MBS_OK); /* outside: applied */
    assert_int_equal(mbs_model_get_param(n.m, &mass, &x), MBS_OK);
    assert_true(x == 5.0);
    mbs_data_destroy(d);
    mbs_model_destroy(n.m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_param_equals_compiled),
        cmocka_unit_test(test_set_body_and_gravity),
        cmocka_unit_test(test_planar_path),
        cmocka_unit_test(test_data_sees_change),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_set_param_in_callback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
