/* Parameters of the later modelling elements on a compiled model (mbs_param_kind from
 * MBS_PARAM_ROTOR_INERTIA on, and the spring coefficients of a line force with two masses):
 * a model changed by mbs_model_set_param gives bit for bit the forward dynamics, energy and
 * RK4 trajectory of the model compiled with the new value -- rotors native to ABA (on a fixed
 * and on a moving housing) and solved as coupling rows (a housing off the joint's parent, a
 * 2-dof joint), point masses on a spring-damper and on a two-mass line force, joint friction,
 * and rotors and a line mass in a closed loop, the values of joint stops' laws (through
 * impacts and elastic contact); a data object made before the change sees it;
 * every invalid value is refused naming the element, with the model unchanged. */
#include "common.h"
#include "run_helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Every value the tests change. */
typedef struct evalues {
    double J[4], n[4];                    /* rotors 0..3 */
    double coulomb, stiction, viscous;    /* joint friction */
    double mass, frac;                    /* spring-damper with a point mass */
    double mass_a, dist_a, mass_b, dist_b, k2, d2, rest2; /* line force with two masses */
} evalues;

static evalues base_values(void)
{
    const evalues v = {.J = {2e-3, 1e-3, 5e-4, 8e-4}, .n = {20.0, -12.0, 30.0, 8.0},
                       .coulomb = 0.3, .stiction = 0.5, .viscous = 0.2,
                       .mass = 0.4, .frac = 0.3,
                       .mass_a = 0.6, .dist_a = 0.25, .mass_b = 0.3, .dist_b = 0.15,
                       .k2 = 30.0, .d2 = 0.4, .rest2 = 0.8};
    return v;
}

/* A body def with mass, com and a diagonal inertia. */
static mbs_body_def body(double m, double cx, double cy, double cz, double i1, double i2, double i3)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = m;
    bd.com[0] = cx, bd.com[1] = cy, bd.com[2] = cz;
    bd.inertia[0] = i1, bd.inertia[4] = i2, bd.inertia[8] = i3;
    return bd;
}

/* Add a joint of type between parent and child at pos on the parent, axis ax; its id. */
static int joint(mbs_builder *b, mbs_joint_type type, int parent, int child, double px, double py,
                 double pz, double ax, double ay, double az)
{
    mbs_joint_def j = mbs_default_joint_def(type);
    j.parent = parent, j.child = child;
    j.frame_parent.pos[0] = px, j.frame_parent.pos[1] = py, j.frame_parent.pos[2] = pz;
    j.axis[0] = ax, j.axis[1] = ay, j.axis[2] = az;
    const int id = mbs_add_joint(b, &j);
    assert_true(id >= 0);
    return id;
}

/* Add rotor k of v on joint, dof, housing and axis. */
static void rotor(mbs_builder *b, const evalues *v, int k, int jt, int dof, int housing, double ax,
                  double ay, double az)
{
    mbs_rotor_def r = mbs_default_rotor_def();
    r.joint = jt, r.dof = dof, r.housing = housing, r.inertia = v->J[k], r.ratio = v->n[k];
    r.axis[0] = ax, r.axis[1] = ay, r.axis[2] = az;
    assert_int_equal(mbs_add_rotor(b, &r), k);
}

/* A turntable (revolute z on the world), an arm on it (revolute about y), a slide on the arm
   (prismatic x, with joint friction: force element 0) and a universal wrist. Rotors: 0 on
   the turntable in the world (native), 1 on the arm's joint housed by the turntable (native,
   moving housing), 2 on the slide housed by the turntable (a coupling row: not the joint's
   parent), 3 on the wrist's second dof housed by the arm (a row: 2-dof joint). */
static mbs_model *rotor_tree(const evalues *v)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.3, -9.81};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = body(1.5, 0.3, 0.05, 0.0, 0.02, 0.05, 0.06);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd = body(1.0, 0.2, 0.0, 0.05, 0.01, 0.03, 0.03);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    bd = body(0.6, 0.1, 0.0, 0.0, 0.005, 0.01, 0.01);
    assert_int_equal(mbs_add_body(b, &bd), 3);
    bd = body(0.4, 0.0, 0.0, -0.1, 0.004, 0.004, 0.002);
    assert_int_equal(mbs_add_body(b, &bd), 4);
    joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, 1, 0, 0, 0, 0, 0, 1);
    joint(b, MBS_JOINT_REVOLUTE, 1, 2, 0.5, 0, 0, 0, 1, 0);
    joint(b, MBS_JOINT_PRISMATIC, 2, 3, 0.4, 0, 0, 1, 0, 0);
    joint(b, MBS_JOINT_UNIVERSAL, 2, 4, 0, 0, 0.3, 0, 0, 1);
    rotor(b, v, 0, 0, 0, MBS_WORLD, 0, 0, 1);
    rotor(b, v, 1, 1, 0, 1, 0.1, 1, 0.2);
    rotor(b, v, 2, 2, 0, 1, 1, 0, 0.3);
    rotor(b, v, 3, 3, 1, 2, 0, 0.4, 1);
    mbs_joint_friction_def fd = mbs_default_joint_friction_def();
    fd.name = "slide friction", fd.joint = 2;
    fd.coulomb = v->coulomb, fd.stiction = v->stiction, fd.viscous = v->viscous;
    assert_int_equal(mbs_add_joint_friction(b, &fd), 0);
    mbs_joint_brake_def br = mbs_default_joint_brake_def();
    br.name = "brake", br.joint = 1, br.limit = 0.0;
    assert_int_equal(mbs_add_joint_brake(b, &br), 1);
    return test_compile_ok(b);
}

/* Two pendulums on spherical joints (bodies 1, 2), a slider on a prismatic z joint (3).
   Force elements: 0 "rope", a spring-damper with a point mass from the world to the slider;
   1 "cylinder", a line force with two masses between the pendulums; 2 "plain", a massless
   spring-damper from pendulum 2 to the world. */
static mbs_model *line_model(const evalues *v)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.2, -9.81};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = body(1.2, 0.0, -0.5, 0.1, 0.03, 0.01, 0.02);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd = body(0.9, 0.1, -0.6, 0.0, 0.02, 0.01, 0.03);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    bd = body(0.7, 0.0, 0.0, 0.0, 0.01, 0.01, 0.01);
    assert_int_equal(mbs_add_body(b, &bd), 3);
    joint(b, MBS_JOINT_SPHERICAL, MBS_WORLD, 1, 0, 0, 0, 0, 0, 1);
    joint(b, MBS_JOINT_SPHERICAL, MBS_WORLD, 2, 1, 0, 0, 0, 0, 1);
    joint(b, MBS_JOINT_PRISMATIC, MBS_WORLD, 3, 0.5, 0.5, 0, 0, 0, 1);
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    s.name = "rope", s.body_b = 3, s.stiffness = 40.0, s.damping = 0.3, s.rest_length = 0.7;
    s.point_a[0] = 0.5, s.point_a[1] = 0.5, s.point_a[2] = 1.0, s.point_b[0] = 0.1;
    s.mass = v->mass, s.mass_fraction = v->frac;
    assert_int_equal(mbs_add_spring_damper(b, &s), 0);
    mbs_line_force_two_masses_def t = mbs_default_line_force_two_masses_def();
    t.name = "cylinder", t.body_a = 1, t.body_b = 2;
    t.stiffness = v->k2, t.damping = v->d2, t.rest_length = v->rest2;
    t.point_a[1] = -0.8, t.point_b[1] = -0.7, t.point_b[2] = 0.1;
    t.mass_a = v->mass_a, t.distance_a = v->dist_a, t.mass_b = v->mass_b, t.distance_b = v->dist_b;
    assert_int_equal(mbs_add_line_force_two_masses(b, &t), 1);
    s = mbs_default_spring_damper_def();
    s.name = "plain", s.body_a = 2, s.stiffness = 10.0, s.rest_length = 0.5;
    s.point_a[1] = -0.6, s.point_b[0] = 1.5, s.point_b[2] = 0.2;
    assert_int_equal(mbs_add_spring_damper(b, &s), 2);
    return test_compile_ok(b);
}

/* A four-bar (crank, coupler, rocker; the rocker's pin to the coupler cut) with rotor 0 on
   the crank in the world (native), rotor 1 on the coupler joint housed by the crank (native,
   moving), rotor 2 on the rocker housed by the coupler (a row), and force element 0, a
   spring-damper with a point mass from the world to the coupler. */
static mbs_model *fourbar(const evalues *v)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -9.81, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = body(1.0, 0.0, 0.5, 0.0, 0.09, 0.01, 0.09);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd = body(2.0, 1.0, 0.0, 0.0, 0.01, 0.7, 0.7);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    bd = body(1.2, 0.0, 0.6, 0.0, 0.15, 0.01, 0.15);
    assert_int_equal(mbs_add_body(b, &bd), 3);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1, j.state_priority = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    joint(b, MBS_JOINT_REVOLUTE, 1, 2, 0, 1, 0, 0, 0, 1);
    joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, 3, 2, -0.2, 0, 0, 0, 1);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 2, j.child = 3, j.cut = 1, j.frame_parent.pos[0] = 2, j.frame_child.pos[1] = 1.2;
    assert_int_equal(mbs_add_joint(b, &j), 3);
    rotor(b, v, 0, 0, 0, MBS_WORLD, 0, 0, 1);
    rotor(b, v, 1, 1, 0, 1, 0, 0.3, 1);
    rotor(b, v, 2, 2, 0, 2, 0.2, 0, 1);
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    s.name = "hanging", s.body_b = 2, s.stiffness = 20.0, s.rest_length = 1.0;
    s.point_a[0] = 1, s.point_a[1] = -1, s.point_b[0] = 1;
    s.mass = v->mass, s.mass_fraction = v->frac;
    assert_int_equal(mbs_add_spring_damper(b, &s), 0);
    return test_compile_ok(b);
}

/* Write a parameter's value into the values a model is compiled from. */
static void put(evalues *v, const mbs_param *p, double x)
{
    switch (p->kind) {
    case MBS_PARAM_ROTOR_INERTIA: v->J[p->id] = x; break;
    case MBS_PARAM_ROTOR_RATIO: v->n[p->id] = x; break;
    case MBS_PARAM_FRICTION: *(p->index == 0 ? &v->coulomb : p->index == 1 ? &v->stiction
                                                                            : &v->viscous) = x;
        break;
    case MBS_PARAM_LINE_MASS: *(p->id == 0 ? &v->mass : p->index == 0 ? &v->mass_a : &v->mass_b) = x;
        break;
    case MBS_PARAM_LINE_MASS_PLACE:
        *(p->id == 0 ? &v->frac : p->index == 0 ? &v->dist_a : &v->dist_b) = x;
        break;
    case MBS_PARAM_STIFFNESS: v->k2 = x; break;
    case MBS_PARAM_DAMPING: v->d2 = x; break;
    case MBS_PARAM_REST: v->rest2 = x; break;
    default: fail();
    }
}

typedef struct pcase { mbs_param p; double x; } pcase;

/* For each case: the model built from the base values and changed by mbs_model_set_param
   reads the value back and runs bitwise as the model built with it: forward dynamics and
   energy on three random states (loops assembled), 200 RK4 steps (run_assert_same). */
static void check_cases(mbs_model *(*build)(const evalues *), const pcase *cases, int n,
                        uint64_t seed)
{
    for (int c = 0; c < n; ++c) {
        evalues v = base_values();
        mbs_model *ma = build(&v);
        const int st = mbs_model_set_param(ma, &cases[c].p, cases[c].x);
        if (st != MBS_OK) print_error("case %d: %s\n", c, mbs_model_error(ma));
        assert_int_equal(st, MBS_OK);
        double back = 0.0;
        assert_int_equal(mbs_model_get_param(ma, &cases[c].p, &back), MBS_OK);
        assert_true(back == cases[c].x);
        put(&v, &cases[c].p, cases[c].x);
        mbs_model *mb = build(&v);
        run_assert_same(ma, mb, seed + (uint64_t)c, 3, 200);
        mbs_model_destroy(ma);
        mbs_model_destroy(mb);
    }
}

/* ---------------------------------------------------------------- same as compiled */

/* Rotor inertias and ratios (native in the world, native on a moving housing, coupling rows
   off the parent and on a 2-dof joint; a ratio changing sign) and the three friction values:
   bitwise the compiled model. */
static void test_rotor_tree(void **state)
{
    (void)state;
    const pcase cases[] = {
        {{MBS_PARAM_ROTOR_INERTIA, 0, 0}, 3.5e-3}, {{MBS_PARAM_ROTOR_INERTIA, 1, 0}, 0.7e-3},
        {{MBS_PARAM_ROTOR_INERTIA, 2, 0}, 2e-3},   {{MBS_PARAM_ROTOR_INERTIA, 3, 0}, 1e-4},
        {{MBS_PARAM_ROTOR_RATIO, 0, 0}, -7.0},     {{MBS_PARAM_ROTOR_RATIO, 1, 0}, 25.0},
        {{MBS_PARAM_ROTOR_RATIO, 2, 0}, 0.5},      {{MBS_PARAM_ROTOR_RATIO, 3, 0}, -3.0},
        {{MBS_PARAM_FRICTION, 0, 0}, 0.45},        {{MBS_PARAM_FRICTION, 0, 1}, 0.9},
        {{MBS_PARAM_FRICTION, 0, 2}, 1.5},
    };
    check_cases(rotor_tree, cases, (int)(sizeof cases / sizeof cases[0]), 300);
}

/* The spring-damper's point mass and fraction (to both ends), the two masses and distances of
   the line force with two masses, and its stiffness, damping and rest length. */
static void test_line_masses(void **state)
{
    (void)state;
    const pcase cases[] = {
        {{MBS_PARAM_LINE_MASS, 0, 0}, 1.1},        {{MBS_PARAM_LINE_MASS_PLACE, 0, 0}, 0.0},
        {{MBS_PARAM_LINE_MASS_PLACE, 0, 0}, 1.0},  {{MBS_PARAM_LINE_MASS_PLACE, 0, 0}, 0.65},
        {{MBS_PARAM_LINE_MASS, 1, 0}, 0.2},        {{MBS_PARAM_LINE_MASS, 1, 1}, 0.9},
        {{MBS_PARAM_LINE_MASS_PLACE, 1, 0}, 0.4},  {{MBS_PARAM_LINE_MASS_PLACE, 1, 1}, 0.0},
        {{MBS_PARAM_STIFFNESS, 1, 0}, 55.0},       {{MBS_PARAM_DAMPING, 1, 0}, 0.0},
        {{MBS_PARAM_REST, 1, 0}, 0.6},
    };
    check_cases(line_model, cases, (int)(sizeof cases / sizeof cases[0]), 400);
}

/* In a closed loop: the three rotors' inertias and ratios, the line's mass and place. */
static void test_loop(void **state)
{
    (void)state;
    const pcase cases[] = {
        {{MBS_PARAM_ROTOR_INERTIA, 0, 0}, 5e-3}, {{MBS_PARAM_ROTOR_RATIO, 1, 0}, 4.0},
        {{MBS_PARAM_ROTOR_INERTIA, 2, 0}, 3e-4}, {{MBS_PARAM_ROTOR_RATIO, 2, 0}, -9.0},
        {{MBS_PARAM_LINE_MASS, 0, 0}, 0.8},      {{MBS_PARAM_LINE_MASS_PLACE, 0, 0}, 0.9},
    };
    check_cases(fourbar, cases, (int)(sizeof cases / sizeof cases[0]), 500);
}

/* A data object made before a rotor's change sees it at its next call: its qacc equals that
   of a data object made after, bitwise, and differs from before the change. */
static void test_data_sees_change(void **state)
{
    (void)state;
    evalues v = base_values();
    mbs_model *m = rotor_tree(&v);
    mbs_data *d = mbs_data_create(m);
    const int nv = mbs_model_nv(m);
    test_rng r;
    test_rng_seed(&r, 7);
    test_random_state(&r, d, 0.5, 1.0, 0.5);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double before[16], after[16];
    memcpy(before, mbs_data_qacc(d), (size_t)nv * sizeof(double));
    const mbs_param p = {MBS_PARAM_ROTOR_RATIO, 1, 0};
    assert_int_equal(mbs_model_set_param(m, &p, 40.0), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    memcpy(after, mbs_data_qacc(d), (size_t)nv * sizeof(double));
    assert_true(memcmp(before, after, (size_t)nv * sizeof(double)) != 0);
    mbs_data *fresh = mbs_data_create(m);
    test_rng_seed(&r, 7);
    test_random_state(&r, fresh, 0.5, 1.0, 0.5);
    assert_int_equal(mbs_forward_dynamics(fresh), MBS_OK);
    assert_memory_equal(after, mbs_data_qacc(fresh), (size_t)nv * sizeof(double));
    mbs_data_destroy(fresh);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- refused values */

typedef struct bad_case { mbs_param p; double x; const char *msg; } bad_case;

/* Every case refused with MBS_ERR_ARG and its message; the model's dynamics bitwise as
   before. */
static void check_refused(mbs_model *m, const bad_case *bad, int n)
{
    double before[32], after[32];
    run_fingerprint(m, before);
    for (int c = 0; c < n; ++c) {
        const int st = mbs_model_set_param(m, &bad[c].p, bad[c].x);
        if (st != MBS_ERR_ARG || !strstr(mbs_model_error(m), bad[c].msg))
            print_error("case %d: %s: \"%s\"\n", c, mbs_status_name(st), mbs_model_error(m));
        assert_int_equal(st, MBS_ERR_ARG);
        assert_non_null(strstr(mbs_model_error(m), bad[c].msg));
    }
    run_fingerprint(m, after);
    assert_memory_equal(before, after, (size_t)mbs_model_nv(m) * sizeof(double));
}

/* Rotors: inertia <= 0, NaN, Inf; ratio 0, NaN, beyond 1e100; bad rotor ids and indices.
   Friction: negative, NaN, stiction below coulomb either way; a brake; indices. Line masses:
   negative, NaN, a mass compiled > 0 set to 0 and one compiled 0 set > 0, a fraction outside
   [0, 1], negative or infinite distances, a second mass of a spring-damper, a mass of a
   joint friction; damping on a line through a node; get_param of a bad kind. */
static void test_refused(void **state)
{
    (void)state;
    evalues v = base_values();
    mbs_model *m = rotor_tree(&v);
    const bad_case rotor_bad[] = {
        {{MBS_PARAM_ROTOR_INERTIA, 0, 0}, 0.0, "rotor #0: inertia must be > 0"},
        {{MBS_PARAM_ROTOR_INERTIA, 1, 0}, -1e-3, "inertia must be > 0 and finite"},
        {{MBS_PARAM_ROTOR_INERTIA, 2, 0}, NAN, "inertia must be > 0 and finite"},
        {{MBS_PARAM_ROTOR_INERTIA, 3, 0}, INFINITY, "inertia must be > 0 and finite"},
        {{MBS_PARAM_ROTOR_RATIO, 0, 0}, 0.0, "ratio must be nonzero and finite"},
        {{MBS_PARAM_ROTOR_RATIO, 1, 0}, NAN, "ratio must be nonzero and finite"},
        {{MBS_PARAM_ROTOR_RATIO, 2, 0}, -1e101, "ratio must be nonzero and finite"},
        {{MBS_PARAM_ROTOR_INERTIA, 4, 0}, 1e-3, "rotor 4 out of range"},
        {{MBS_PARAM_ROTOR_RATIO, -1, 0}, 1.0, "rotor -1 out of range"},
        {{MBS_PARAM_ROTOR_RATIO, 0, 1}, 1.0, "index 1 out of range"},
        {{MBS_PARAM_FRICTION, 0, 0}, -0.1, "joint friction \"slide friction\": coulomb must be >= 0"},
        {{MBS_PARAM_FRICTION, 0, 2}, NAN, "viscous is not finite"},
        {{MBS_PARAM_FRICTION, 0, 0}, 0.6, "stiction = 0.5 is below coulomb = 0.6"},
        {{MBS_PARAM_FRICTION, 0, 1}, 0.2, "stiction = 0.2 is below coulomb = 0.3"},
        {{MBS_PARAM_FRICTION, 0, 3}, 1.0, "index 3 out of range"},
        {{MBS_PARAM_FRICTION, 1, 0}, 1.0, "\"brake\" is a joint brake, which has no friction "
                                          "values (a brake's limit is a host input"},
        {{MBS_PARAM_FRICTION, 2, 0}, 1.0, "force element 2 out of range"},
        {{MBS_PARAM_LINE_MASS, 0, 0}, 1.0, "is a joint friction, which has no point mass"},
        {{MBS_PARAM_STOP, 0, 0}, 1.0, "is a joint friction, not a joint stop"},
        {{(mbs_param_kind)(MBS_PARAM_CURVE_SIZE + 1), 0, 0}, 1.0, "unknown kind"},
    };
    check_refused(m, rotor_bad, (int)(sizeof rotor_bad / sizeof rotor_bad[0]));
    double x;
    assert_int_equal(mbs_model_get_param(m, &rotor_bad[7].p, &x), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "rotor 4 out of range"));
    mbs_model_destroy(m);

    m = line_model(&v);
    const bad_case line_bad[] = {
        {{MBS_PARAM_LINE_MASS, 0, 0}, -0.1, "spring-damper \"rope\": mass must be >= 0"},
        {{MBS_PARAM_LINE_MASS, 1, 1}, NAN, "\"cylinder\": mass_b is not finite"},
        {{MBS_PARAM_LINE_MASS, 0, 0}, 0.0, "mass was compiled > 0 and must stay > 0"},
        {{MBS_PARAM_LINE_MASS, 1, 0}, 0.0, "mass_a was compiled > 0 and must stay > 0"},
        {{MBS_PARAM_LINE_MASS, 2, 0}, 0.5, "\"plain\": mass was compiled = 0 and must stay = 0"},
        {{MBS_PARAM_LINE_MASS, 0, 1}, 0.5, "spring-damper \"rope\" has one point mass"},
        {{MBS_PARAM_LINE_MASS, 1, 2}, 0.5, "index 2 out of range"},
        {{MBS_PARAM_LINE_MASS_PLACE, 0, 0}, 1.5, "mass_fraction must be in [0, 1] (got 1.5)"},
        {{MBS_PARAM_LINE_MASS_PLACE, 0, 0}, -0.1, "mass_fraction must be in [0, 1]"},
        {{MBS_PARAM_LINE_MASS_PLACE, 0, 0}, NAN, "mass_fraction must be in [0, 1]"},
        {{MBS_PARAM_LINE_MASS_PLACE, 1, 0}, -0.2, "distance_a must be >= 0"},
        {{MBS_PARAM_LINE_MASS_PLACE, 1, 1}, INFINITY, "distance_b is not finite"},
        {{MBS_PARAM_STIFFNESS, 1, 0}, -1.0, "line force with two masses \"cylinder\": stiffness"},
        {{MBS_PARAM_REST, 1, 0}, NAN, "rest_length is not finite"},
        {{MBS_PARAM_FRICTION, 0, 0}, 0.1, "spring-damper, which has no friction values"},
        {{MBS_PARAM_LINE_MASS, 3, 0}, 0.1, "force element 3 out of range"},
        {{MBS_PARAM_ROTOR_INERTIA, 0, 0}, 0.1, "the model has 0 rotors"},
    };
    check_refused(m, line_bad, (int)(sizeof line_bad / sizeof line_bad[0]));
    mbs_model_destroy(m);

    /* a node between two springs: their damping stays 0 */
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = body(1.0, 0, 0, 0, 0.01, 0.01, 0.01);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd = mbs_default_body_def();
    bd.mass = 0.0;
    memset(bd.inertia, 0, sizeof bd.inertia);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    joint(b, MBS_JOINT_PRISMATIC, MBS_WORLD, 1, 0, 0, 0, 1, 0, 0);
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    s.name = "left", s.body_b = 2, s.stiffness = 100.0, s.rest_length = 0.2;
    assert_int_equal(mbs_add_spring_damper(b, &s), 0);
    s.name = "right", s.body_a = 2, s.body_b = 1, s.stiffness = 200.0, s.rest_length = 0.3;
    assert_int_equal(mbs_add_spring_damper(b, &s), 1);
    m = test_compile_ok(b);
    assert_int_equal(mbs_model_nnode(m), 1);
    const bad_case node_bad[] = {
        {{MBS_PARAM_DAMPING, 1, 0}, 0.5, "spring-damper \"right\": it touches a node"},
        {{MBS_PARAM_LINE_MASS, 0, 0}, 0.5, "must stay = 0"},
    };
    check_refused(m, node_bad, 2);
    const mbs_param ok = {MBS_PARAM_DAMPING, 0, 0};
    assert_int_equal(mbs_model_set_param(m, &ok, 0.0), MBS_OK);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- joint stops */

/* A pendulum (revolute x) with a restitution stop at +-0.3 rad (restitution e, rest velocity
   rv: force element 0) and a slider (prismatic x) with an elastic stop at +-0.05 m
   (stiffness k, damping c: element 1); from q = 0, v = (3, 1) both hit their stops within
   0.1 s. */
static mbs_model *stop_model(double e, double rv, double k, double c)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.0, -9.81};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = body(1.0, 0.0, 0.0, -0.5, 0.01, 0.01, 0.01);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd = body(0.5, 0.0, 0.0, 0.0, 0.01, 0.01, 0.01);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, 1, 0, 0, 0, 1, 0, 0);
    joint(b, MBS_JOINT_PRISMATIC, MBS_WORLD, 2, 0, 1, 0, 1, 0, 0);
    mbs_joint_stop_def sd = mbs_default_joint_stop_def();
    sd.name = "bump", sd.joint = 0, sd.lower = -0.3, sd.upper = 0.3;
    sd.law = MBS_STOP_RESTITUTION, sd.restitution = e, sd.rest_velocity = rv;
    assert_int_equal(mbs_add_joint_stop(b, &sd), 0);
    sd = mbs_default_joint_stop_def();
    sd.name = "buffer", sd.joint = 1, sd.lower = -0.05, sd.upper = 0.05;
    sd.law = MBS_STOP_ELASTIC, sd.stiffness = k, sd.damping = c;
    assert_int_equal(mbs_add_joint_stop(b, &sd), 1);
    return test_compile_ok(b);
}

/* q, v (4) after 300 RK4 steps of 1 ms from q = 0, v = (3, 1). */
static void stop_run(const mbs_model *m, double *qv)
{
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[0] = 3.0, mbs_data_v(d)[1] = 1.0;
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    for (int k = 0; k < 300; ++k) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    memcpy(qv, mbs_data_q(d), 2 * sizeof(double));
    memcpy(qv + 2, mbs_data_v(d), 2 * sizeof(double));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
}

/* Each value of a stop's law changed on the compiled model: the run through the impacts and
   the elastic contact is bitwise the compiled model's and differs from the unchanged one's
   (the value acts in the run). */
static void test_stops(void **state)
{
    (void)state;
    const double base[4] = {0.5, 1e-3, 2000.0, 1.0};
    const struct { int index; double x; } cases[] = {{2, 0.8}, {3, 2.0}, {0, 500.0}, {1, 5.0}};
    double before[4];
    mbs_model *m0 = stop_model(base[0], base[1], base[2], base[3]);
    stop_run(m0, before);
    mbs_model_destroy(m0);
    for (int c = 0; c < 4; ++c) {
        double v[4] = {base[0], base[1], base[2], base[3]}, after[4], compiled[4], back;
        mbs_model *ma = stop_model(v[0], v[1], v[2], v[3]);
        const mbs_param p = {MBS_PARAM_STOP, cases[c].index < 2, cases[c].index};
        assert_int_equal(mbs_model_set_param(ma, &p, cases[c].x), MBS_OK);
        assert_int_equal(mbs_model_get_param(ma, &p, &back), MBS_OK);
        assert_true(back == cases[c].x);
        v[(cases[c].index + 2) % 4] = cases[c].x; /* index 2, 3 -> v[0], v[1]; 0, 1 -> v[2], v[3] */
        mbs_model *mb = stop_model(v[0], v[1], v[2], v[3]);
        stop_run(ma, after);
        stop_run(mb, compiled);
        assert_memory_equal(after, compiled, sizeof after);
        assert_true(memcmp(after, before, sizeof after) != 0);
        mbs_model_destroy(ma);
        mbs_model_destroy(mb);
    }
    mbs_model *m = stop_model(base[0], base[1], base[2], base[3]);
    const bad_case bad[] = {
        {{MBS_PARAM_STOP, 0, 0}, 1.0, "joint stop \"bump\" has the restitution law, which has no "
                                      "stiffness"},
        {{MBS_PARAM_STOP, 1, 2}, 0.5, "\"buffer\" has the elastic law, which has no restitution"},
        {{MBS_PARAM_STOP, 1, 0}, 0.0, "joint stop \"buffer\": stiffness must be > 0"},
        {{MBS_PARAM_STOP, 1, 0}, NAN, "stiffness is not finite"},
        {{MBS_PARAM_STOP, 1, 1}, -1.0, "damping must be >= 0"},
        {{MBS_PARAM_STOP, 0, 2}, 1.5, "restitution = 1.5 must be in [0, 1]"},
        {{MBS_PARAM_STOP, 0, 2}, -0.5, "restitution must be >= 0"},
        {{MBS_PARAM_STOP, 0, 3}, 0.0, "rest_velocity must be > 0"},
        {{MBS_PARAM_STOP, 0, 3}, INFINITY, "rest_velocity is not finite"},
        {{MBS_PARAM_STOP, 0, 4}, 1.0, "index 4 out of range"},
        {{MBS_PARAM_STOP, 2, 0}, 1.0, "force element 2 out of range"},
        {{MBS_PARAM_STIFFNESS, 1, 0}, 1.0, "which has no stiffness, damping or rest value"},
    };
    check_refused(m, bad, (int)(sizeof bad / sizeof bad[0]));
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotor_tree),
        cmocka_unit_test(test_line_masses),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_data_sees_change),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
