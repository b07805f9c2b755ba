/* mbs-codegen on models with cut joints (tools/codegen/cg_loops*.c): the generated C against
 * the library on the planar four-bar and slider-crank (tests/support/loop_mechanisms.c), the V6
 * engine (models/engine_v6.xml: six coupled loops, 12 of 30 rows kept), the spatial four-bar
 * (models/spatial_fourbar.xml) and the other loop model files (a MacPherson strut, two
 * coupled spatial loops with a dependent quaternion, redundant rows): constrained forward
 * dynamics and multipliers to 1e-12 and inverse dynamics to 1e-11 at closed states along a
 * library run, the closure of a perturbed state to 1e-12, and RK4 trajectories of 1 s at
 * 1 kHz (then 0.5 s at 100 Hz) with closure at every stage to 1e-9, the library keeping the
 * frozen partition. Each file compiles with -std=c99 -Wall -Wextra -Werror and needs nothing
 * but libm. The limits: non-finite input, a singular J_v, a state too far for the fixed
 * Newton count, and a partition that turns singular along the motion each return their
 * status and keep the state; curve joints, prescribed motions, events and user states are
 * refused, naming them. */
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
#include "loop_mechanisms.h"

typedef int (*fd_fn)(const double *, const double *, const double *, double *);
typedef int (*fdl_fn)(const double *, const double *, const double *, double *, double *);
typedef int (*close_fn)(double *, double *);
typedef int (*rk4_fn)(double *, double *, double *, const double *, double);

#define NMAX 64

/* A generated loop model compiled into a shared object and loaded. */
typedef struct gen_loops {
    void *so;
    fd_fn fd, id;
    fdl_fn fdl;
    close_fn close;
    rk4_fn rk4;
    const int *ind;
    int nline;
} gen_loops;

/* The generated code of m with the partition of the data's (closed) q. */
static void generate(const mbs_model *m, mbs_data *d, const char *dir, gen_loops *g)
{
    char msg[2200];
    g->nline = cgb_build(m, mbs_data_q(d), dir, "-O1", 1, &g->so, msg, (int)sizeof msg);
    if (g->nline < 0) fail_msg("%s", msg);
    *(void **)&g->fd = cgb_fn(g->so, "forward_dynamics");
    *(void **)&g->fdl = cgb_fn(g->so, "forward_dynamics_lambda");
    *(void **)&g->id = cgb_fn(g->so, "inverse_dynamics");
    *(void **)&g->close = cgb_fn(g->so, "close");
    *(void **)&g->rk4 = cgb_fn(g->so, "rk4_step");
    g->ind = cgb_fn(g->so, "independent");
    assert_true(g->fd && g->fdl && g->id && g->close && g->rk4 && g->ind);
}

/* The library's partition is the generated one (so the two integrate the same coordinates). */
static void check_partition(mbs_data *d, const gen_loops *g)
{
    unsigned char ind[NMAX];
    int n = 0, k = 0;
    assert_int_equal(mbs_linearize_coordinates(d, ind, &n), MBS_OK);
    for (int i = 0; i < mbs_model_nv(mbs_data_model(d)); ++i)
        if (ind[i]) assert_int_equal(g->ind[k++], i);
    assert_int_equal(g->ind[k], -1);
}

/* Forward dynamics, multipliers and inverse dynamics at the data's closed state. */
static void check_state(mbs_data *d, const gen_loops *g)
{
    const mbs_model *m = mbs_data_model(d);
    const int nv = mbs_model_nv(m), ncon = mbs_model_ncon(m);
    double qacc[NMAX], lam[4 * NMAX], tau[NMAX], tau_lib[NMAX];
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_int_equal(g->fdl(mbs_data_q(d), mbs_data_v(d), mbs_data_tau(d), qacc, lam), 0);
    test_assert_close(qacc, mbs_data_qacc(d), nv, 1e-12, "generated constrained qacc");
    test_assert_close(lam, mbs_data_lambda(d), ncon, 1e-12, "generated multipliers");
    assert_int_equal(mbs_inverse_dynamics(d, mbs_data_qacc(d), tau_lib), MBS_OK);
    assert_int_equal(g->id(mbs_data_q(d), mbs_data_v(d), mbs_data_qacc(d), tau), 0);
    test_assert_close(tau, tau_lib, nv, 1e-11, "generated inverse dynamics");
}

/* The closure of a perturbed closed state: the same q and v as the library's assembly. */
static void check_closure(mbs_data *d, const gen_loops *g, test_rng *r)
{
    const mbs_model *m = mbs_data_model(d);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double q[NMAX], v[NMAX], dq[NMAX];
    for (int i = 0; i < nv; ++i) dq[i] = test_rng_uniform(r, -1e-4, 1e-4);
    assert_int_equal(mbs_integrate_q(m, mbs_data_q(d), dq, 1.0, q), MBS_OK);
    for (int i = 0; i < nv; ++i) v[i] = mbs_data_v(d)[i] + test_rng_uniform(r, -1e-3, 1e-3);
    memcpy(mbs_data_q(d), q, sizeof(double) * (size_t)nq);
    memcpy(mbs_data_v(d), v, sizeof(double) * (size_t)nv);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(g->close(q, v), 0);
    test_assert_close(q, mbs_data_q(d), nq, 1e-12, "generated closure: q");
    test_assert_close(v, mbs_data_v(d), nv, 1e-12, "generated closure: v");
}

/* n RK4 steps of h from the data's closed state, library and generated code side by side:
   the dynamics compared every n / 10 steps, the states at every step to 1e-9. */
static void check_run(mbs_data *d, const gen_loops *g, double h, int n)
{
    const mbs_model *m = mbs_data_model(d);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double q[NMAX], v[NMAX], tau[NMAX], t = 0.0;
    memcpy(q, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(v, mbs_data_v(d), sizeof(double) * (size_t)nv);
    memcpy(tau, mbs_data_tau(d), sizeof(double) * (size_t)nv);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    assert_non_null(s);
    t = mbs_data_time(d);
    for (int k = 1; k <= n; ++k) {
        assert_int_equal(mbs_stepper_step(s, h), MBS_OK);
        assert_int_equal(g->rk4(&t, q, v, tau, h), 0);
        test_assert_close(q, mbs_data_q(d), nq, 1e-9, "generated RK4 with closure: q");
        test_assert_close(v, mbs_data_v(d), nv, 1e-9, "generated RK4 with closure: v");
        if (k % (n / 10) == 0) check_state(d, g);
    }
    assert_true(fabs(t - mbs_data_time(d)) < 1e-12);
    check_partition(d, g);
    mbs_stepper_destroy(s);
}

/* Every check on model m at the data's closed start state (tau set by the caller). */
static void check_model(mbs_data *d, uint64_t seed)
{
    char dir[32];
    gen_loops g;
    test_rng r;
    assert_int_equal(cgb_mkdir(dir), 0);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    generate(mbs_data_model(d), d, dir, &g);
    check_partition(d, &g);
    check_state(d, &g);
    check_run(d, &g, 1e-3, 1000); /* 1 s at 1 kHz */
    check_run(d, &g, 1e-2, 50);   /* 0.5 s more at 100 Hz (the four-bar: ~0.2 rad per step) */
    test_rng_seed(&r, seed);
    check_closure(d, &g, &r);
    dlclose(g.so);
    cgb_rmdir(dir);
}

/* The planar four-bar (JointRRR in the library) from a closed crank angle, crank driven. */
static void test_fourbar(void **state)
{
    (void)state;
    lm_mech mech;
    lm_fourbar p = lm_default_fourbar();
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    double th[3] = {0.7, 0.0, 0.0}, w[3] = {3.0, 0.0, 0.0}, al[3];
    assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_rates(&p, th, w[0], 0.0, w, al);
    lm_fourbar_set(&p, &mech, d, th, w);
    mbs_data_tau(d)[mbs_model_joint_vadr(mech.model, mech.joint[0])] = 1.5;
    check_model(d, 11);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* The offset slider-crank (JointRRP) at 5 rad/s. */
static void test_slider_crank(void **state)
{
    (void)state;
    lm_mech mech;
    lm_slider_crank p = lm_default_slider_crank();
    assert_int_equal(lm_build_slider_crank(&p, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    double x[3], phi[3];
    lm_slider_crank_kin(&p, 0.4, 5.0, 0.0, x, phi);
    const double s[3] = {0.4, phi[0], x[0]}, sd[3] = {5.0, phi[1], x[1]};
    lm_slider_crank_set(&p, &mech, d, s, sd);
    check_model(d, 12);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* A free body (its automatic root: position and quaternion) held at a point by a spherical
   cut joint to the world, a link hinged below it, and a distance joint from the link's tip to
   the world: two loops whose dependent coordinates lie in the free joint, quaternion
   included, so the closure moves them on the sphere. */
static void test_free_body(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.0, -9.81};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0, bd.com[0] = 0.2, bd.com[2] = -0.1;
    bd.inertia[0] = 0.02, bd.inertia[4] = 0.03, bd.inertia[8] = 0.04;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd.mass = 0.7, bd.com[0] = 0.25, bd.com[2] = 0.0;
    assert_int_equal(mbs_add_body(b, &bd), 2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = 0.4, j.axis[0] = 0.0, j.axis[1] = 1.0;
    j.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.parent = MBS_WORLD, j.child = 1, j.frame_parent.pos[2] = 1.0, j.name = "ball", j.cut = 1;
    j.frame_child.pos[1] = 0.1;
    assert_true(mbs_add_joint(b, &j) >= 0);
    j = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    j.parent = MBS_WORLD, j.child = 2, j.length = 0.8, j.name = "tether";
    j.frame_parent.pos[0] = 0.9, j.frame_parent.pos[1] = -0.1, j.frame_parent.pos[2] = 0.2;
    j.frame_child.pos[0] = 0.5; /* closed at q = 0 with the body at (0, -0.1, 1) */
    assert_true(mbs_add_joint(b, &j) >= 0);
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fail_msg("%s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    const double v[7] = {0.1, -0.2, 0.05, 0.8, -1.1, 0.6, 1.5};
    assert_int_equal(mbs_model_nv(m), 7);
    memcpy(mbs_data_v(d), v, sizeof v);
    check_model(d, 21);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Door3 (a door on a hinge and a rod closed by a fixed cut joint: 6 rows, redundant ones
   dropped) and the one-cylinder engine with its piston on a cylindrical joint (rank 3 of 5),
   each from a rate on its first joint. */
static void test_more_mechanisms(void **state)
{
    (void)state;
    for (int k = 0; k < 2; ++k) {
        lm_mech mech;
        const int st = k == 0 ? lm_build_door(2, 1, NULL, &mech)
                              : lm_build_engine1(MBS_JOINT_CYLINDRICAL, &mech);
        if (st != MBS_OK) fail_msg("%s", mech.error);
        mbs_data *d = mbs_data_create(mech.model);
        if (k == 1) lm_engine_set(&mech, 1, 0.4, 0.0, d);
        mbs_data_v(d)[mbs_model_joint_vadr(mech.model, mech.joint[0])] = k == 0 ? 0.7 : 12.0;
        check_model(d, 31 + (uint64_t)k);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
}

/* A model file with its start values. */
static mbs_model *load(const char *name)
{
    mbs_builder *b = mbs_builder_create();
    mbs_model *m = NULL;
    if (lm_load_model(b, name) != MBS_OK) fail_msg("%s: %s", name, mbs_builder_error(b));
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* The V6 engine coasting from 10 rad/s and the spatial four-bar from 300 deg/s. */
static void test_model_files(void **state)
{
    (void)state;
    const char *names[7] = {"engine_v6", "spatial_fourbar", "macpherson", "two_loops",
                            "engine_cylindrical", "door_hinges", "planar_loop_tilted"};
    for (int k = 0; k < 7; ++k) {
        print_message("%s\n", names[k]);
        mbs_model *m = load(names[k]);
        mbs_data *d = mbs_data_create(m);
        check_model(d, 13 + (uint64_t)k);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* The generated closure's status at the four-bar state of absolute angles th (q[1] NaN when
   nan), asserting that it leaves q and v as they were when it fails. */
static int close_status(const lm_fourbar *p, const lm_mech *mech, mbs_data *d, const gen_loops *g,
                        const double th[3], int nan)
{
    const double w[3] = {1.0, 0.0, 0.0};
    double q[3], v[3], q0[3], v0[3];
    lm_fourbar_set(p, mech, d, th, w);
    memcpy(q, mbs_data_q(d), sizeof q), memcpy(v, mbs_data_v(d), sizeof v);
    if (nan) q[1] = NAN;
    memcpy(q0, q, sizeof q), memcpy(v0, v, sizeof v);
    const int st = g->close(q, v);
    if (st != 0) assert_memory_equal(q, q0, sizeof q), assert_memory_equal(v, v0, sizeof v);
    return st;
}

/* Non-finite input, and a state too far from closure for the fixed Newton count. */
static void check_close_fails(const lm_fourbar *p, const lm_mech *mech, mbs_data *d,
                              const gen_loops *g)
{
    double th[3] = {0.7, 0.0, 0.0};
    assert_int_equal(lm_fourbar_position(p, th[0], 1, &th[1], &th[2]), 0);
    assert_int_equal(close_status(p, mech, d, g, th, 0), 0);
    assert_int_equal(close_status(p, mech, d, g, th, 1), -1);
    th[1] += 1.0, th[2] -= 1.0;
    assert_int_equal(close_status(p, mech, d, g, th, 0), -3);
}

/* A closed limit position of the crank (coupler and rocker in line): J_v singular. */
static void check_close_singular(const lm_fourbar *p, const lm_mech *mech, mbs_data *d,
                                 const gen_loops *g)
{
    const double c = (p->a * p->a + p->d * p->d - (p->b + p->c) * (p->b + p->c)) / (2.0 * p->a * p->d);
    double th[3] = {p->ground_angle + acos(c), 0.0, 0.0};
    const double ax = p->a * cos(th[0]), ay = p->a * sin(th[0]);
    th[1] = atan2(p->d * sin(p->ground_angle) - ay, p->d * cos(p->ground_angle) - ax);
    th[2] = th[1] + 3.141592653589793;
    assert_int_equal(close_status(p, mech, d, g, th, 0), -2);
}

/* A non-Grashof four-bar whose crank swings into a limit position within 2 s: the library
   makes a new partition there and goes on; the generated code, its partition frozen,
   returns a status (J_v singular, or a closure that cannot converge) and keeps the last
   state. */
static void check_limit_position(const gen_loops *g, mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    double q[NMAX], v[NMAX], tau[NMAX], q0[NMAX], t = 0.0;
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    memcpy(q, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(v, mbs_data_v(d), sizeof(double) * (size_t)nv);
    memset(tau, 0, sizeof tau);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    int st = 0, n = 0;
    for (; n < 2000 && st == 0; ++n) {
        memcpy(q0, q, sizeof(double) * (size_t)nq);
        st = g->rk4(&t, q, v, tau, 1e-3);
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    }
    print_message("non-Grashof four-bar: generated RK4 status %d at step %d, t = %g\n", st, n, t);
    assert_true(st == -2 || st == -3);
    assert_memory_equal(q, q0, sizeof(double) * (size_t)nq);
    for (int k = 0; k < 500; ++k) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    mbs_stepper_destroy(s);
}

/* The limits of the frozen partition and the fixed Newton count (see check_close_fails and
   check_limit_position). */
static void test_limits(void **state)
{
    (void)state;
    char dir[32];
    assert_int_equal(cgb_mkdir(dir), 0);
    for (int k = 0; k < 2; ++k) {
        lm_mech mech;
        lm_fourbar p = lm_default_fourbar();
        if (k == 1) p.a = 0.5, p.b = 0.6, p.c = 0.55, p.d = 0.7; /* s + l > p + q */
        assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
        mbs_data *d = mbs_data_create(mech.model);
        double th[3] = {k ? 1.2 : 0.7, 0.0, 0.0}, w[3] = {k ? 4.0 : 1.0, 0.0, 0.0}, al[3];
        assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
        lm_fourbar_rates(&p, th, w[0], 0.0, w, al);
        lm_fourbar_set(&p, &mech, d, th, w);
        assert_int_equal(mbs_assemble(d), MBS_OK);
        gen_loops g;
        generate(mech.model, d, dir, &g);
        if (k == 0) {
            check_close_fails(&p, &mech, d, &g);
        } else {
            check_limit_position(&g, d);
            check_close_singular(&p, &mech, d, &g);
        }
        dlclose(g.so);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
    cgb_rmdir(dir);
}

static int motion(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    (void)user;
    pos[0] = 0.1 * t, vel[0] = 0.1, acc[0] = 0.0;
    return 0;
}
static double bump(mbs_data *d, void *user)
{
    (void)user;
    return mbs_data_q(d)[0];
}
static int no_states(mbs_data *d, const double *x, double *xdot, void *user)
{
    (void)d, (void)x, (void)user;
    xdot[0] = 0.0;
    return 0;
}

/* A pendulum with one more element of kind k: the generator's refusal names it. */
static void refuse(int k, const char *want)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.com[0] = 0.5;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = 1, jd.name = "hinge";
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    if (k == 0) {
        mbs_curve_joint_def c = mbs_default_curve_joint_def();
        c.name = "cam", c.parent = MBS_WORLD, c.child = 1;
        c.curve_child.kind = MBS_CURVE_CIRCLE, c.curve_child.a = 0.1;
        c.frame_parent.pos[1] = -1.0;
        assert_true(mbs_add_curve_joint(b, &c) >= 0);
    } else if (k == 1) {
        assert_int_equal(mbs_add_joint_motion(b, 0, 0, motion, NULL), MBS_OK);
    } else if (k == 2) {
        assert_true(mbs_add_event(b, "bump", bump, NULL, NULL) >= 0);
    } else if (k == 3) {
        assert_true(mbs_add_user_states(b, "motor", 1, no_states, NULL) >= 0);
    } else { /* a rod far too long for the pendulum to reach: no closed start */
        jd = mbs_default_joint_def(MBS_JOINT_DISTANCE);
        jd.child = 1, jd.length = 5.0, jd.name = "rod";
        jd.frame_child.pos[0] = 1.0, jd.frame_parent.pos[1] = 0.5;
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fail_msg("%s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    char why[256];
    FILE *f = tmpfile();
    cg_options opt = {.prefix = "gen"};
    assert_int_equal(cg_write(f, m, &opt, why, (int)sizeof why), -1);
    fclose(f);
    print_message("refused: %s\n", why);
    if (!strstr(why, want)) fail_msg("refusal \"%s\" does not name %s", why, want);
    mbs_model_destroy(m);
}

/* What the generator cannot write is refused, naming the part. */
static void test_refusals(void **state)
{
    (void)state;
    const char *want[5] = {"joint \"cam\": a curve-curve contact", "prescribed motion of joint \"hinge\"",
                           "event \"bump\"", "\"motor\" (user states)", "cannot be closed at the start"};
    for (int k = 0; k < 5; ++k) refuse(k, want[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fourbar),
        cmocka_unit_test(test_slider_crank),
        cmocka_unit_test(test_model_files),
        cmocka_unit_test(test_free_body),
        cmocka_unit_test(test_more_mechanisms),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
