/* Geometry as parameters of a compiled model (MBS_PARAM_FRAME_*, MBS_PARAM_ROD_LENGTH,
 * MBS_PARAM_CURVE_SIZE): a model changed after compile gives bit for bit the dynamics and
 * trajectories of the model compiled with the new value (a 3-D tree whose joints change
 * kernels with their frames, a four-bar closed by a cut revolute, a slider-crank closed by a
 * distance rod, an ellipse rolling on a line); data objects made before a change follow it;
 * the four-bar's coupler tip differentiated to its link lengths against the closure's
 * implicit derivative;
 * the period of a pendulum as its length changes against the elliptic-integral closed form;
 * CVODES sensitivities to link lengths and a frame angle against central differences; bad
 * parameters and values refused with the model unchanged. */
#include "common.h"
#include "run_helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define NJ 4

/* ---------------------------------------------------------------- a tree from values */

/* Frame positions and Cardan angles of the tree's four joints. */
typedef struct gvals {
    double pp[NJ][3], cp[NJ][3], pa[NJ][3], ca[NJ][3];
} gvals;

static gvals tree_values(void)
{
    gvals v;
    memset(&v, 0, sizeof v);
    v.pp[1][2] = -0.5, v.pp[1][0] = 0.1; /* link 1 */
    v.cp[1][2] = 0.05;                   /* joint 1 off the child's origin */
    v.pp[2][2] = -0.4, v.pa[2][0] = 0.3, v.pa[2][2] = -0.2;
    v.ca[2][1] = 0.25;
    v.pp[3][1] = 0.2; /* joint 3's child frame the body frame: axis kernels */
    return v;
}

/* Joint j's definition with the frames of v. */
static void put_frames(mbs_joint_def *j, const gvals *v, int k)
{
    memcpy(j->frame_parent.pos, v->pp[k], sizeof v->pp[k]);
    memcpy(j->frame_child.pos, v->cp[k], sizeof v->cp[k]);
    mbs_cardan_rot(j->frame_parent.rot, v->pa[k]);
    mbs_cardan_rot(j->frame_child.rot, v->ca[k]);
}

/* 3-D path (planar off): 1 on a revolute x from the world (joint 0), 2 on a revolute y from
   1 (joint 1), 3 on a quaternion spherical from 2 (joint 2), 4 on a prismatic x from 1 with
   its child frame the body frame (joint 3, the axis kernels while its frames allow them). */
static mbs_model *tree_build(const gvals *v)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_planar(b, MBS_PLANAR_OFF), MBS_OK);
    const double g[3] = {0.3, 0.0, -9.81};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    for (int i = 1; i <= 4; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0 + 0.2 * i;
        bd.com[0] = 0.02 * i, bd.com[2] = -0.1;
        bd.inertia[0] = 0.02, bd.inertia[4] = 0.03, bd.inertia[8] = 0.025;
        assert_int_equal(mbs_add_body(b, &bd), i);
    }
    const mbs_joint_type type[NJ] = {MBS_JOINT_REVOLUTE, MBS_JOINT_REVOLUTE,
                                     MBS_JOINT_SPHERICAL, MBS_JOINT_PRISMATIC};
    const int parent[NJ] = {0, 1, 2, 1};
    for (int k = 0; k < NJ; ++k) {
        mbs_joint_def j = mbs_default_joint_def(type[k]);
        j.parent = parent[k], j.child = k + 1;
        j.axis[0] = k != 1, j.axis[1] = k == 1, j.axis[2] = 0.0;
        put_frames(&j, v, k);
        assert_int_equal(mbs_add_joint(b, &j), k);
    }
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

/* Write a frame parameter's value into v; for an angle, the other two as m reads them. */
static void put(gvals *v, const mbs_model *m, const mbs_param *p, double x)
{
    double(*tab)[3] = p->kind == MBS_PARAM_FRAME_PARENT_POS   ? v->pp
                      : p->kind == MBS_PARAM_FRAME_CHILD_POS  ? v->cp
                      : p->kind == MBS_PARAM_FRAME_PARENT_ROT ? v->pa
                                                              : v->ca;
    if (p->kind == MBS_PARAM_FRAME_PARENT_ROT || p->kind == MBS_PARAM_FRAME_CHILD_ROT)
        for (int i = 0; i < 3; ++i) {
            const mbs_param q = {p->kind, p->id, i};
            assert_int_equal(mbs_model_get_param(m, &q, &tab[p->id][i]), MBS_OK);
        }
    tab[p->id][p->index] = x;
}

/* Every frame kind on the tree, among them the prismatic's child frame leaving the body frame
   (its axis kernels give way to the generic ones) and joint 1's coming back to it (the
   generic kernels give way to the axis ones): the changed model runs bitwise as the model
   compiled with the new value (forward dynamics, energy, 300 RK4 steps); a position reads
   back exactly. */
static void test_tree_equals_compiled(void **state)
{
    (void)state;
    const struct { mbs_param p; double x; } cases[] = {
        {{MBS_PARAM_FRAME_PARENT_POS, 1, 2}, -0.7}, {{MBS_PARAM_FRAME_CHILD_POS, 3, 0}, 0.1},
        {{MBS_PARAM_FRAME_CHILD_POS, 1, 2}, 0.0},   {{MBS_PARAM_FRAME_PARENT_ROT, 2, 0}, -0.4},
        {{MBS_PARAM_FRAME_CHILD_ROT, 2, 1}, 0.6},   {{MBS_PARAM_FRAME_PARENT_ROT, 3, 2}, 0.2},
        {{MBS_PARAM_FRAME_PARENT_POS, 0, 1}, 0.3},
    };
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); ++c) {
        gvals v = tree_values();
        mbs_model *ma = tree_build(&v);
        put(&v, ma, &cases[c].p, cases[c].x);
        assert_int_equal(mbs_model_set_param(ma, &cases[c].p, cases[c].x), MBS_OK);
        double back = 0.0;
        assert_int_equal(mbs_model_get_param(ma, &cases[c].p, &back), MBS_OK);
        if (cases[c].p.kind <= MBS_PARAM_FRAME_CHILD_POS) assert_true(back == cases[c].x);
        else assert_true(fabs(back - cases[c].x) < 1e-15);
        mbs_model *mb = tree_build(&v);
        run_assert_same(ma, mb, 300 + (uint64_t)c, 2, 300);
        mbs_model_destroy(ma);
        mbs_model_destroy(mb);
    }
}

/* A data object made before the change follows it at its next call: forward dynamics, a point
   Jacobian and the mass matrix bitwise those of a data made after it, through kernels that change both ways (the revolute joint 1
   gets the axis kernels when its child frame comes to the body frame, leaves them, comes
   back, leaves them by a turned parent frame and comes back: its constant subspace written
   again each time). */
static void test_existing_data_follows(void **state)
{
    (void)state;
    gvals v = tree_values();
    mbs_model *m = tree_build(&v);
    mbs_data *old = mbs_data_create(m);
    const mbs_param pos = {MBS_PARAM_FRAME_CHILD_POS, 1, 2}, rot = {MBS_PARAM_FRAME_PARENT_ROT, 1, 1};
    const mbs_param *p[5] = {&pos, &pos, &pos, &rot, &rot};
    const double x[5] = {0.0, 0.1, 0.0, 0.3, 0.0};
    for (int k = 0; k < 5; ++k) {
        test_rng r;
        test_rng_seed(&r, 40 + (uint64_t)k);
        test_random_state(&r, old, 0.5, 0.5, 0.5);
        assert_int_equal(mbs_forward_dynamics(old), MBS_OK); /* the old geometry's state */
        assert_int_equal(mbs_model_set_param(m, p[k], x[k]), MBS_OK);
        mbs_data *fresh = mbs_data_create(m);
        memcpy(mbs_data_q(fresh), mbs_data_q(old), (size_t)mbs_model_nq(m) * sizeof(double));
        memcpy(mbs_data_v(fresh), mbs_data_v(old), (size_t)mbs_model_nv(m) * sizeof(double));
        memcpy(mbs_data_tau(fresh), mbs_data_tau(old), (size_t)mbs_model_nv(m) * sizeof(double));
        assert_int_equal(mbs_forward_dynamics(old), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(fresh), MBS_OK);
        const int nv = mbs_model_nv(m);
        assert_memory_equal(mbs_data_qacc(old), mbs_data_qacc(fresh), (size_t)nv * sizeof(double));
        double Jo[6 * 16], Jf[6 * 16], Mo[16 * 16], Mf[16 * 16];
        const double pt[3] = {0.1, 0.2, -0.3};
        assert_int_equal(mbs_point_jacobian(old, 3, pt, Jo), MBS_OK);
        assert_int_equal(mbs_point_jacobian(fresh, 3, pt, Jf), MBS_OK);
        assert_memory_equal(Jo, Jf, (size_t)(6 * nv) * sizeof(double));
        assert_int_equal(mbs_mass_matrix(old, Mo), MBS_OK);
        assert_int_equal(mbs_mass_matrix(fresh, Mf), MBS_OK);
        assert_memory_equal(Mo, Mf, (size_t)(nv * nv) * sizeof(double));
        mbs_data_destroy(fresh);
    }
    mbs_data_destroy(old);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- loops */

/* A builder for the 3-D path with Newton closure, gravity along -y. */
static mbs_builder *loop_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_planar(b, MBS_PLANAR_OFF), MBS_OK);
    assert_int_equal(mbs_builder_set_closure(b, MBS_CLOSURE_NEWTON), MBS_OK);
    const double g[3] = {0.0, -9.81, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    return b;
}

/* Four-bar in the x-y plane on the 3-D path with Newton closure: crank (a) on a revolute z
   at the origin (joint 0), coupler (b) on a revolute at the crank's tip (joint 1), rocker
   (c) on a revolute at (d, 0) (joint 2), the cut revolute joining the coupler's tip and the
   rocker's (joint 3). */
static mbs_model *fourbar_build_held(double a, double b_, double c, double d, int hold);
static mbs_model *fourbar_build(double a, double b_, double c, double d)
{
    return fourbar_build_held(a, b_, c, d, 0);
}

/* The same, the crank held at its start angle by mbs_assemble when hold. */
static mbs_model *fourbar_build_held(double a, double b_, double c, double d, int hold)
{
    mbs_builder *b = loop_builder();
    const double len[3] = {0.3, 1.0, 0.8}; /* inertias of the nominal links */
    for (int i = 0; i < 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0 + 0.5 * i, bd.com[0] = 0.5 * len[i];
        bd.inertia[0] = 1e-3, bd.inertia[4] = bd.inertia[8] = bd.mass * len[i] * len[i] / 12.0;
        assert_int_equal(mbs_add_body(b, &bd), i + 1);
    }
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = a;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 3, j.frame_parent.pos[0] = d;
    assert_int_equal(mbs_add_joint(b, &j), 2);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 2, j.child = 3, j.cut = 1, j.frame_parent.pos[0] = b_, j.frame_child.pos[0] = c;
    assert_int_equal(mbs_add_joint(b, &j), 3);
    const double q0[1] = {1.0};
    assert_int_equal(mbs_set_joint_start(b, 0, q0, (int)(sizeof q0 / sizeof q0[0]), NULL, 0), MBS_OK);
    const unsigned char held[1] = {1};
    if (hold) assert_int_equal(mbs_set_joint_hold(b, 0, held, 1), MBS_OK);
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

/* Slider-crank closed by a rod: crank of length a on a revolute z (joint 0), slider on a
   prismatic x (joint 1), a distance joint of length l from the crank's tip to the slider
   (joint 2). */
static mbs_model *rod_build(double a, double l)
{
    mbs_builder *b = loop_builder();
    for (int i = 1; i <= 2; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0, bd.com[0] = i == 1 ? 0.1 : 0.0;
        bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = 0.01;
        assert_int_equal(mbs_add_body(b, &bd), i);
    }
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = 2, j.axis[0] = 1.0, j.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    j = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = a, j.length = l;
    assert_int_equal(mbs_add_joint(b, &j), 2);
    const double q0[1] = {a + l};
    assert_int_equal(mbs_set_joint_start(b, 1, q0, 1, NULL, 0), MBS_OK);
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

/* An ellipse (semi-axes ea, eb) on a planar joint rolling on the world's x axis (joint 1). */
static mbs_model *ellipse_build(double ea, double eb)
{
    mbs_builder *b = loop_builder();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0;
    bd.inertia[0] = bd.inertia[4] = 0.02, bd.inertia[8] = 0.04;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PLANAR);
    j.child = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    const double q0[3] = {0.0, 0.15, 0.0};
    assert_int_equal(mbs_set_joint_start(b, 0, q0, (int)(sizeof q0 / sizeof q0[0]), NULL, 0), MBS_OK);
    mbs_curve_joint_def c = mbs_default_curve_joint_def();
    c.parent = MBS_WORLD, c.child = 1, c.rolling = 1;
    c.curve_parent.kind = MBS_CURVE_LINE;
    c.curve_child.kind = MBS_CURVE_ELLIPSE, c.curve_child.a = ea, c.curve_child.b = eb;
    c.s_child = -0.5 * PI;
    assert_int_equal(mbs_add_curve_joint(b, &c), 1);
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

/* Link lengths of the four-bar (crank, coupler through the cut frame, rocker, ground), an
   angle of the cut's frame, the rod's length and the rolling ellipse's semi-axes: bitwise
   the models compiled with the new values (assembled states, 300 RK4 steps). */
static void test_loops_equal_compiled(void **state)
{
    (void)state;
    const double a = 0.3, b = 1.0, c = 0.8, d = 1.0;
    const struct { mbs_param p; double v[4]; } fb[] = {
        {{MBS_PARAM_FRAME_PARENT_POS, 1, 0}, {0.33, b, c, d}},
        {{MBS_PARAM_FRAME_PARENT_POS, 3, 0}, {a, 1.05, c, d}},
        {{MBS_PARAM_FRAME_CHILD_POS, 3, 0}, {a, b, 0.75, d}},
        {{MBS_PARAM_FRAME_PARENT_POS, 2, 0}, {a, b, c, 0.95}},
    };
    for (int k = 0; k < 4; ++k) {
        mbs_model *ma = fourbar_build(a, b, c, d);
        assert_int_equal(mbs_model_set_param(ma, &fb[k].p, fb[k].v[k]), MBS_OK);
        mbs_model *mb = fourbar_build(fb[k].v[0], fb[k].v[1], fb[k].v[2], fb[k].v[3]);
        run_assert_same(ma, mb, 500 + (uint64_t)k, 2, 300);
        mbs_model_destroy(ma);
        mbs_model_destroy(mb);
    }
    const mbs_param rod = {MBS_PARAM_ROD_LENGTH, 2, 0};
    mbs_model *ma = rod_build(0.2, 0.7), *mb = rod_build(0.2, 0.65);
    assert_int_equal(mbs_model_set_param(ma, &rod, 0.65), MBS_OK);
    run_assert_same(ma, mb, 600, 2, 300);
    mbs_model_destroy(ma);
    mbs_model_destroy(mb);
    for (int i = 2; i <= 3; ++i) {
        const mbs_param e = {MBS_PARAM_CURVE_SIZE, 1, i};
        ma = ellipse_build(0.3, 0.15);
        mb = ellipse_build(i == 2 ? 0.32 : 0.3, i == 3 ? 0.16 : 0.15);
        assert_int_equal(mbs_model_set_param(ma, &e, i == 2 ? 0.32 : 0.16), MBS_OK);
        run_assert_same(ma, mb, 700 + (uint64_t)i, 1, 300);
        mbs_model_destroy(ma);
        mbs_model_destroy(mb);
    }
}

/* The coupler's tip B (the rocker's tip, c along its x axis) of the assembled four-bar. */
static void coupler_tip(mbs_data *d, double c, double B[2])
{
    double pos[3], rot[9];
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(mbs_body_pose(d, 3, pos, rot), MBS_OK);
    B[0] = pos[0] + rot[0] * c, B[1] = pos[1] + rot[3] * c;
}

/* Sensitivities of the four-bar's coupler tip B at a held crank angle th to the crank length
   a, the coupler length b and the ground length d: five-point differences (h = 1e-3) of the
   changed model assembled again, against the implicit derivative of the closure
   |B - A| = b, |B - D| = c with A = a (cos th, sin th), D = (d, 0):
   (B - A) . (dB - dA) = b db, (B - D) . (dB - dD) = 0; within 1e-8. Loop models are not
   taken by the CVODES sensitivity runs, so the model's own derivative is the difference. */
static void test_fourbar_coupler_sensitivity(void **state)
{
    (void)state;
    const double a = 0.3, b = 1.0, c = 0.8, d = 1.0, th = 1.0, h = 1e-3;
    mbs_model *m = fourbar_build_held(a, b, c, d, 1);
    mbs_data *dt = mbs_data_create(m);
    double B[2];
    coupler_tip(dt, c, B);
    const double A[2] = {a * cos(th), a * sin(th)}, D[2] = {d, 0.0};
    assert_true(fabs(hypot(B[0] - A[0], B[1] - A[1]) - b) < 1e-12);
    const mbs_param P[3] = {{MBS_PARAM_FRAME_PARENT_POS, 1, 0}, {MBS_PARAM_FRAME_PARENT_POS, 3, 0},
                            {MBS_PARAM_FRAME_PARENT_POS, 2, 0}};
    const double nominal[3] = {a, b, d};
    /* rows (B - A) and (B - D); right-hand sides per parameter: (B - A).dA + b db, (B - D).dD */
    const double r1[3] = {(B[0] - A[0]) * cos(th) + (B[1] - A[1]) * sin(th), b, 0.0};
    const double r2[3] = {0.0, 0.0, B[0] - D[0]};
    const double det = (B[0] - A[0]) * (B[1] - D[1]) - (B[1] - A[1]) * (B[0] - D[0]);
    for (int k = 0; k < 3; ++k) {
        const double ex[2] = {(r1[k] * (B[1] - D[1]) - r2[k] * (B[1] - A[1])) / det,
                              ((B[0] - A[0]) * r2[k] - (B[0] - D[0]) * r1[k]) / det};
        double Bs[4][2]; /* at +h, -h, +2h, -2h */
        const double step[4] = {h, -h, 2 * h, -2 * h};
        for (int i = 0; i < 4; ++i) {
            assert_int_equal(mbs_model_set_param(m, &P[k], nominal[k] + step[i]), MBS_OK);
            coupler_tip(dt, c, Bs[i]);
        }
        assert_int_equal(mbs_model_set_param(m, &P[k], nominal[k]), MBS_OK);
        double fd[2];
        for (int i = 0; i < 2; ++i)
            fd[i] = (8.0 * (Bs[0][i] - Bs[1][i]) - (Bs[2][i] - Bs[3][i])) / (12.0 * h);
        const double err = hypot(fd[0] - ex[0], fd[1] - ex[1]);
        print_message("four-bar dB/d(length %d): differences (%.9f, %.9f), implicit (%.9f, "
                      "%.9f), error %.1e\n", k, fd[0], fd[1], ex[0], ex[1], err);
        assert_true(err < 1e-8 * hypot(ex[0], ex[1]) + 1e-9);
    }
    mbs_data_destroy(dt);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- pendulum period */

/* Complete elliptic integral of the first kind K(k) by the arithmetic-geometric mean. */
static double ellip_k(double k)
{
    double a = 1.0, g = sqrt(1.0 - k * k);
    for (int i = 0; i < 40 && fabs(a - g) > 1e-16 * a; ++i) {
        const double an = 0.5 * (a + g);
        g = sqrt(a * g), a = an;
    }
    return PI / (2.0 * a);
}

/* Body of mass M and inertia IC about its com (its origin) hanging below a revolute x whose
   child frame is L above the origin: a compound pendulum of length L. */
#define PM 1.5
#define PIC 0.02
static mbs_model *pendulum_build(double L)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_planar(b, MBS_PLANAR_OFF), MBS_OK);
    const double g[3] = {0.0, 0.0, -9.81};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = PM, bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = PIC;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1, j.axis[0] = 1.0, j.axis[2] = 0.0, j.frame_child.pos[2] = L;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

/* Period of the pendulum released at rest from amplitude th0: from the release, the time
   of the first return to th0 (the velocity's second zero crossing, located by the secant
   on dense CVODE steps). */
static double measured_period(const mbs_model *m, double th0)
{
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = th0;
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    sd.rtol = 1e-12, sd.atol = 1e-13;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    const double dt = 1e-3;
    double vprev = 0.0, t = 0.0, found = -1.0;
    int crossings = 0;
    while (found < 0.0 && t < 20.0) {
        assert_int_equal(mbs_stepper_step(s, dt), MBS_OK);
        t += dt;
        const double v = mbs_data_v(d)[0];
        if (t > 1.5 * dt && ((vprev < 0.0 && v >= 0.0) || (vprev > 0.0 && v <= 0.0)) &&
            ++crossings == 2)
            found = t - dt * v / (v - vprev);
        vprev = v;
    }
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    return found;
}

/* One compiled pendulum, its length changed by MBS_PARAM_FRAME_CHILD_POS to 0.5, 1 and 2 m:
   the period T = 4 sqrt(I_O / (M g L)) K(sin(th0 / 2)) (I_O = IC + M L^2) to 1e-6 at
   th0 = 0.5 rad, and near the small-amplitude 2 pi sqrt(I_O / (M g L)) at th0 = 0.01. The
   secant on 1 ms samples costs ~1e-7 of the period. */
static void test_pendulum_period(void **state)
{
    (void)state;
    mbs_model *m = pendulum_build(0.8);
    const mbs_param len = {MBS_PARAM_FRAME_CHILD_POS, 0, 2};
    const double Ls[3] = {0.5, 1.0, 2.0}, amp[2] = {0.5, 0.01};
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(mbs_model_set_param(m, &len, Ls[i]), MBS_OK);
        const double IO = PIC + PM * Ls[i] * Ls[i], w = sqrt(PM * 9.81 * Ls[i] / IO);
        for (int a = 0; a < 2; ++a) {
            const double T = measured_period(m, amp[a]);
            const double exact = 4.0 / w * ellip_k(sin(0.5 * amp[a])), small = 2.0 * PI / w;
            print_message("L = %.1f m, amplitude %.2f rad: period %.9f s, closed form %.9f s "
                          "(%.1e), small-amplitude %.9f s\n", Ls[i], amp[a], T, exact,
                          fabs(T - exact) / exact, small);
            assert_true(fabs(T - exact) < 1e-6 * exact);
            if (a == 1) assert_true(fabs(T - small) < 1e-5 * small);
        }
    }
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- sensitivities */

/* q, v at t = 1 from the tree's start (CVODE Adams, rtol 1e-12). */
static void tree_start(mbs_data *d)
{
    const int nq = mbs_model_nq(mbs_data_model(d));
    for (int i = 0; i < nq; ++i) mbs_data_q(d)[i] = 0.0;
    mbs_data_q(d)[0] = 0.4, mbs_data_q(d)[1] = -0.3;
    mbs_data_q(d)[2] = 1.0; /* joint 2's quaternion w */
    mbs_data_v(d)[0] = 0.5, mbs_data_v(d)[3] = 0.7;
}

static void plain_run(const mbs_model *m, double *y)
{
    mbs_data *d = mbs_data_create(m);
    tree_start(d);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    sd.rtol = 1e-12, sd.atol = 1e-14, sd.max_internal_steps = 1000000;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    assert_int_equal(mbs_stepper_step(s, 1.0), MBS_OK);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    memcpy(y, mbs_data_q(d), (size_t)nq * sizeof(double));
    memcpy(y + nq, mbs_data_v(d), (size_t)nv * sizeof(double));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
}

/* CVODES sensitivities at t = 1 of the tree's motion to a link length (joint 1's parent
   offset), a child-frame offset, a frame angle and the prismatic's offset against central
   differences of tight CVODE runs (h = 1e-4): within 1e-6 of each vector's largest entry. */
static void test_sensitivity_vs_central(void **state)
{
    (void)state;
    gvals v = tree_values();
    mbs_model *m = tree_build(&v);
    const mbs_param P[4] = {{MBS_PARAM_FRAME_PARENT_POS, 1, 2}, {MBS_PARAM_FRAME_CHILD_POS, 1, 2},
                            {MBS_PARAM_FRAME_PARENT_ROT, 2, 0}, {MBS_PARAM_FRAME_PARENT_POS, 3, 1}};
    const int np = 4, nq = mbs_model_nq(m), n = nq + mbs_model_nv(m);
    double fd[4][32], nominal[4];
    for (int k = 0; k < np; ++k) {
        assert_int_equal(mbs_model_get_param(m, &P[k], &nominal[k]), MBS_OK);
        const double h = 1e-4;
        double yp[32], ym[32];
        assert_int_equal(mbs_model_set_param(m, &P[k], nominal[k] + h), MBS_OK);
        plain_run(m, yp);
        assert_int_equal(mbs_model_set_param(m, &P[k], nominal[k] - h), MBS_OK);
        plain_run(m, ym);
        assert_int_equal(mbs_model_set_param(m, &P[k], nominal[k]), MBS_OK);
        for (int i = 0; i < n; ++i) fd[k][i] = (yp[i] - ym[i]) / (2.0 * h);
    }
    mbs_data *d = mbs_data_create(m);
    tree_start(d);
    mbs_sens_def sd = mbs_default_sens_def();
    mbs_sens *s = NULL;
    assert_int_equal(mbs_sens_create(m, d, P, np, &sd, &s), MBS_OK);
    const int st = mbs_sens_run(s, 1.0);
    if (st != MBS_OK) print_error("%s\n", mbs_data_error(d));
    assert_int_equal(st, MBS_OK);
    for (int k = 0; k < np; ++k) {
        double S[32], scale = 0.0, err = 0.0;
        assert_int_equal(mbs_sens_get(s, k, S, S + nq), MBS_OK);
        for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(fd[k][i]));
        for (int i = 0; i < n; ++i) err = fmax(err, fabs(S[i] - fd[k][i]));
        print_message("geometry parameter %d: sensitivity vs central differences %.2e of the "
                      "largest entry %.3e\n", k, err / scale, scale);
        assert_true(scale > 1e-3);
        assert_true(err <= 1e-6 * scale);
    }
    mbs_sens_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- refusals */

/* A parameter that names no such geometry, or a value the builder refuses: MBS_ERR_ARG with
   a message, the model bitwise as it was; the planar path's models refuse the kinds. */
static void test_refused(void **state)
{
    (void)state;
    gvals v = tree_values();
    mbs_model *m = tree_build(&v), *ref = tree_build(&v);
    const struct { mbs_param p; double x; const char *msg; } bad[] = {
        {{MBS_PARAM_FRAME_PARENT_POS, 9, 0}, 0.1, "out of range"},
        {{MBS_PARAM_FRAME_PARENT_POS, 0, 3}, 0.1, "out of range"},
        {{MBS_PARAM_ROD_LENGTH, 1, 0}, 0.5, "not a distance joint"},
        {{MBS_PARAM_CURVE_SIZE, 1, 0}, 0.5, "not a curve joint"},
        {{MBS_PARAM_FRAME_CHILD_POS, 1, 0}, NAN, "not finite"},
        {{MBS_PARAM_FRAME_PARENT_ROT, 1, 0}, INFINITY, "not finite"},
    };
    for (int c = 0; c < (int)(sizeof bad / sizeof bad[0]); ++c) {
        assert_int_equal(mbs_model_set_param(m, &bad[c].p, bad[c].x), MBS_ERR_ARG);
        assert_non_null(strstr(mbs_model_error(m), bad[c].msg));
    }
    run_assert_same(m, ref, 900, 1, 50);
    mbs_model_destroy(m);
    mbs_model_destroy(ref);
    m = rod_build(0.2, 0.7);
    const mbs_param rod = {MBS_PARAM_ROD_LENGTH, 2, 0};
    assert_int_equal(mbs_model_set_param(m, &rod, 0.0), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "must be > 0"));
    mbs_model_destroy(m);
    m = ellipse_build(0.3, 0.15);
    const mbs_param line = {MBS_PARAM_CURVE_SIZE, 1, 0};
    assert_int_equal(mbs_model_set_param(m, &line, 0.3), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "is a line"));
    mbs_model_destroy(m);
    /* the same pendulum on the planar path (compile's default) refuses geometry */
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = 0.1;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1, j.frame_child.pos[1] = 0.5;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    m = run_compile_ok(b);
    mbs_builder_destroy(b);
    const mbs_param pl = {MBS_PARAM_FRAME_CHILD_POS, 0, 1};
    assert_int_equal(mbs_model_set_param(m, &pl, 0.6), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_model_error(m), "MBS_PLANAR_OFF"));
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_equals_compiled),
        cmocka_unit_test(test_existing_data_follows),
        cmocka_unit_test(test_loops_equal_compiled),
        cmocka_unit_test(test_fourbar_coupler_sensitivity),
        cmocka_unit_test(test_pendulum_period),
        cmocka_unit_test(test_sensitivity_vs_central),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
