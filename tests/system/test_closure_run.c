/* Loops closed in closed form, in motion (src/loops/analytic/; Otter, Elmqvist, Mattsson 2003,
 * "The New Modelica MultiBody Library", §7.2-7.3):
 *   - trajectories against the Newton path over 5 s with RK4 at 1 ms (1e-9): an inline six
 *     (six coupled JointRRP loops on one crankshaft), mbs-sim's V6 engine (MSL EngineV6's
 *     parts) and MSL Fourbar_analytic (JointSSP), with no Newton iteration on the analytic
 *     side and energy conserved;
 *   - singular positions: a double rocker whose prioritised crank reaches its limit
 *     positions again and again is handed to Newton there and back (events), its energy
 *     conserved; a loop that cannot close is Newton's error with the state unchanged;
 *   - bad input: a loop whose axes are parallel but whose frames sit apart along them (it can
 *     never close) is MBS_ERR_INCONSISTENT with a message, the state unchanged. */
#include "common.h"
#include "loop_assemblies.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Two datas of one mechanism (closed forms, Newton) stepped side by side. */
typedef struct twin {
    mbs_model *ma, *mn;
    mbs_data *da, *dn;
    mbs_stepper *sa, *sn;
} twin;

/* Start both from the closed (analytic) state of da, RK4 steppers. */
static void twin_start(twin *t)
{
    assert_int_equal(mbs_assemble(t->da), MBS_OK);
    memcpy(mbs_data_q(t->dn), mbs_data_q(t->da), (size_t)mbs_model_nq(t->ma) * sizeof(double));
    memcpy(mbs_data_v(t->dn), mbs_data_v(t->da), (size_t)mbs_model_nv(t->ma) * sizeof(double));
    assert_int_equal(mbs_assemble(t->dn), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    t->sa = mbs_stepper_create(t->da, &sd);
    t->sn = mbs_stepper_create(t->dn, &sd);
    assert_non_null(t->sa);
    assert_non_null(t->sn);
}

/* 5 s of RK4 at 1 ms side by side: the largest q difference, the energy drift of the
   analytic run (relative to its kinetic energy at the start); the cut's closure stays
   analytic without a Newton iteration. */
static void twin_run(twin *t, int cut, const char *what)
{
    const int nq = mbs_model_nq(t->ma);
    double T0, V0, T, V, worst = 0.0, drift = 0.0;
    assert_int_equal(mbs_energy(t->da, &T0, &V0), MBS_OK);
    for (int k = 0; k < 5000; ++k) {
        assert_int_equal(mbs_stepper_step(t->sa, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(t->sn, 1e-3), MBS_OK);
        for (int i = 0; i < nq; ++i)
            worst = fmax(worst, fabs(mbs_data_q(t->da)[i] - mbs_data_q(t->dn)[i]));
        assert_int_equal(mbs_energy(t->da, &T, &V), MBS_OK);
        drift = fmax(drift, fabs(T + V - T0 - V0) / T0);
        assert_int_equal(mbs_cut_joint_closure(t->da, cut), MBS_CLOSURE_ANALYTIC);
    }
    print_message("%-34s max |q_analytic - q_Newton| %.2e, energy drift %.2e, Newton "
                  "iterations %ld (Newton path %ld)\n", what, worst, drift,
                  mbs_loop_newton_iterations(t->da), mbs_loop_newton_iterations(t->dn));
    assert_true(worst <= 1e-9);
    assert_true(drift <= 1e-7);
    assert_int_equal(mbs_loop_newton_iterations(t->da), 0);
    assert_true(mbs_loop_newton_iterations(t->dn) > 0);
}

static void twin_free(twin *t)
{
    mbs_stepper_destroy(t->sa);
    mbs_stepper_destroy(t->sn);
    mbs_data_destroy(t->da);
    mbs_data_destroy(t->dn);
}

/* ---------------------------------------------------------------- trajectories */

/* Inline six (tests/support/loop_mechanisms.h) from 20 rad/s, and MSL Fourbar_analytic. */
static void test_trajectories_lm(void **state)
{
    (void)state;
    lm_mech a, n;
    twin t;
    assert_int_equal(lm_build_engine6(&a), MBS_OK);
    lm_set_closure(MBS_CLOSURE_NEWTON);
    assert_int_equal(lm_build_engine6(&n), MBS_OK);
    t.ma = a.model, t.mn = n.model;
    t.da = mbs_data_create(t.ma), t.dn = mbs_data_create(t.mn);
    lm_engine_set(&a, 6, 0.2, 20.0, t.da);
    twin_start(&t);
    twin_run(&t, a.unit[0][2], "inline six, 6 x JointRRP");
    twin_free(&t);
    lm_mech_free(&n);
    lm_mech_free(&a);

    lm_set_closure(MBS_CLOSURE_ANALYTIC);
    assert_int_equal(lm_build_fourbar_analytic(&a), MBS_OK);
    lm_set_closure(MBS_CLOSURE_NEWTON);
    assert_int_equal(lm_build_fourbar_analytic(&n), MBS_OK);
    lm_set_closure(MBS_CLOSURE_ANALYTIC);
    t.ma = a.model, t.mn = n.model;
    t.da = mbs_data_create(t.ma), t.dn = mbs_data_create(t.mn);
    lm_fourbar_analytic_start(&a, t.da);
    twin_start(&t);
    twin_run(&t, a.cut_id[0], "MSL Fourbar_analytic, JointSSP");
    twin_free(&t);
    lm_mech_free(&n);
    lm_mech_free(&a);
}

/* mbs-sim's V6 engine (models/engine_v6.xml), compiled both ways. */
static void test_trajectory_engine_v6(void **state)
{
    (void)state;
    twin t;
    mbs_model *m[2];
    for (int k = 0; k < 2; ++k) {
        mbs_builder *b = mbs_builder_create();
        assert_int_equal(mbs_builder_set_closure(b, k ? MBS_CLOSURE_NEWTON : MBS_CLOSURE_ANALYTIC), MBS_OK);
        assert_int_equal(lm_load_model(b, "engine_v6"), MBS_OK);
        assert_int_equal(mbs_compile(b, &m[k]), MBS_OK);
        mbs_builder_destroy(b);
    }
    t.ma = m[0], t.mn = m[1];
    t.da = mbs_data_create(t.ma), t.dn = mbs_data_create(t.mn);
    /* both data start at the file's start values */
    const int cut = mbs_model_find_joint(t.ma, "B1_1");
    assert_string_equal(mbs_model_cut_assembly(t.ma, cut), "JointRRP");
    twin_start(&t);
    twin_run(&t, cut, "mbs-sim engine_v6, 6 x JointRRP");
    twin_free(&t);
    mbs_model_destroy(m[0]);
    mbs_model_destroy(m[1]);
}

/* ---------------------------------------------------------------- singular positions */

/* A double rocker (crank 0.5, coupler 0.25, rocker 0.45, ground 0.55: the coupler is the
   shortest link, so neither crank nor rocker turns round) started with the prioritised
   crank swinging through: at its limit positions the coupler and the rocker line up (the
   triangle of JointRRR goes flat), so Newton takes over there and hands back after; the
   state stays closed and energy is conserved (RK4 at 0.25 ms, 3 s). */
static void test_dead_points_hand_over(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    p.a = 0.5, p.b = 0.25, p.c = 0.45, p.d = 0.55, p.ground_angle = 0.0;
    lm_mech mech;
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    double th[3] = {0.9, 0, 0}, w[3], al[3]; /* the crank rocks between 0.37 and 1.46 */
    assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_rates(&p, th, 3.0, 0.0, w, al);
    lm_fourbar_set(&p, &mech, d, th, w);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    double T0, V0, T, V, drift = 0.0, res = 0.0;
    assert_int_equal(mbs_energy(d, &T0, &V0), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    int changes = 0, last = MBS_CLOSURE_ANALYTIC, newton_steps = 0;
    for (int k = 0; k < 12000; ++k) {
        assert_int_equal(mbs_stepper_step(s, 2.5e-4), MBS_OK);
        const int c = mbs_cut_joint_closure(d, mech.joint[3]);
        changes += c != last, last = c, newton_steps += c == MBS_CLOSURE_NEWTON;
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        drift = fmax(drift, fabs(T + V - T0 - V0) / T0);
        res = fmax(res, lm_residual(&mech, d));
    }
    print_message("double rocker 3 s: %d strategy changes, %d of 12000 steps with Newton, "
                  "residual %.1e, energy drift %.1e\n", changes, newton_steps, res, drift);
    assert_true(changes >= 4 && newton_steps > 0 && newton_steps < 6000);
    assert_true(res <= 1e-12 && drift <= 1e-6);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* Copy of q, v to compare after a failing call. */
typedef struct snap {
    double q[16], v[16];
    int nq, nv;
} snap;
static void snap_take(mbs_data *d, snap *s)
{
    s->nq = mbs_model_nq(mbs_data_model(d)), s->nv = mbs_model_nv(mbs_data_model(d));
    memcpy(s->q, mbs_data_q(d), (size_t)s->nq * sizeof(double));
    memcpy(s->v, mbs_data_v(d), (size_t)s->nv * sizeof(double));
}
static void snap_same(mbs_data *d, const snap *s)
{
    assert_memory_equal(s->q, mbs_data_q(d), (size_t)s->nq * sizeof(double));
    assert_memory_equal(s->v, mbs_data_v(d), (size_t)s->nv * sizeof(double));
}

/* A four-bar that cannot close (ground 1.0 against links 0.1, 0.2, 0.2): the closed form
   has no real position, Newton takes over and fails (MBS_ERR_CONVERGENCE) with a message;
   a planar four-bar whose coupler's joint sits 0.05 above the rocker's along the parallel
   axes can never close: MBS_ERR_INCONSISTENT naming the cut joint and the offset. Both
   leave q and v as they were. */
static void test_bad_loops(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    p.a = 0.1, p.b = 0.2, p.c = 0.2, p.d = 1.0;
    lm_mech mech;
    snap s;
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    mbs_data_q(d)[0] = 0.3;
    snap_take(d, &s);
    int rc = mbs_assemble(d);
    print_message("cannot close: %s (%s)\n", mbs_status_name(rc), mbs_data_error(d));
    assert_int_equal(rc, MBS_ERR_CONVERGENCE);
    snap_same(d, &s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);

    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    const int b1 = mbs_add_body(b, &bd), b2 = mbs_add_body(b, &bd), b3 = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = b1, j.state_priority = 1;
    assert_true(mbs_add_joint(b, &j) >= 0);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = b1, j.child = b2, j.frame_parent.pos[0] = 0.2;
    assert_true(mbs_add_joint(b, &j) >= 0);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = b3, j.frame_parent.pos[0] = 0.6;
    assert_true(mbs_add_joint(b, &j) >= 0);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "B", j.parent = b2, j.child = b3, j.cut = 1;
    j.frame_parent.pos[0] = 0.7, j.frame_parent.pos[2] = 0.05, j.frame_child.pos[0] = 0.5;
    const int cut = mbs_add_joint(b, &j);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    assert_string_equal(mbs_model_cut_assembly(m, cut), "JointRRR");
    d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.4, mbs_data_q(d)[1] = 1.3, mbs_data_q(d)[2] = 1.8;
    snap_take(d, &s);
    rc = mbs_assemble(d);
    print_message("parallel axes, not planar: %s (%s)\n", mbs_status_name(rc), mbs_data_error(d));
    assert_int_equal(rc, MBS_ERR_INCONSISTENT);
    assert_non_null(strstr(mbs_data_error(d), "\"B\""));
    assert_non_null(strstr(mbs_data_error(d), "parallel"));
    snap_same(d, &s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trajectories_lm),
        cmocka_unit_test(test_trajectory_engine_v6),
        cmocka_unit_test(test_dead_points_hand_over),
        cmocka_unit_test(test_bad_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
