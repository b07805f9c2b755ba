/* Defects found by fuzzing (no garbage returned as OK), each reproduced first:
 * inertia validation that overflowed, nested calls from a force callback that corrupted the
 * outer evaluation, non-finite results returned as MBS_OK (integrate_q, body_velocity,
 * assemble), and one refusal rule for calls made inside a force callback. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "core/builder.h"

/* diag(1, 1, -DBL_MAX), all -DBL_MAX, DBL_MAX mass: refused at mbs_add_body. */
static void test_inertia_overflow(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.inertia[0] = bd.inertia[4] = 1.0, bd.inertia[8] = -DBL_MAX;
    assert_int_equal(mbs_add_body(b, &bd), MBS_ERR_ARG);
    for (int i = 0; i < 9; ++i) bd.inertia[i] = i % 4 == 0 ? -DBL_MAX : 0.0;
    assert_int_equal(mbs_add_body(b, &bd), MBS_ERR_ARG);
    bd = mbs_default_body_def();
    bd.mass = DBL_MAX;
    assert_int_equal(mbs_add_body(b, &bd), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "1e100"));
    bd = mbs_default_body_def();
    bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = 1e90; /* huge but representable: fine */
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = 1, jd.frame_parent.pos[0] = 1e300;
    assert_int_equal(mbs_add_joint(b, &jd), MBS_ERR_ARG);
    assert_true(mbs_add_joint_spring_damper(b, 0, 0, DBL_MAX, 0.0, 0.0) < 0);
    const double g[3] = {0.0, 0.0, -DBL_MAX};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_ERR_ARG);
    mbs_builder_destroy(b);
}

/* ---- nested calls from inside a force callback */
typedef struct nested_case {
    int which, status;
} nested_case;

static int nested_callback(mbs_data *d, void *user)
{
    nested_case *c = user;
    double buf[64], T, V, F[3] = {1, 0, 0}, Tq[3] = {0, 0, 0};
    int rank;
    switch (c->which) {
    case 0: c->status = mbs_forward_dynamics(d); break;
    case 1: c->status = mbs_mass_matrix(d, buf); break;
    case 2: c->status = mbs_energy(d, &T, &V); break;
    case 3: c->status = mbs_assemble(d); break;
    case 4: { /* a NaN argument: still MBS_ERR_STATE, checked first */
        const double nanq[1] = {NAN};
        c->status = mbs_inverse_dynamics(d, nanq, buf);
        break;
    }
    case 5: c->status = mbs_bias_forces(d, buf); break;
    case 6: c->status = mbs_constraint_info(d, &rank, NULL); break;
    case 7: c->status = mbs_joint_reaction(d, 0, F, Tq); break;
    case 8: c->status = mbs_data_set_time(d, 1.0); break;
    case 9: c->status = mbs_set_body_wrench(d, 1, F, Tq, NULL); break;
    default: { /* kinematic queries are allowed */
        double p[3], R[9];
        c->status = mbs_body_pose(d, 1, p, R);
    }
    }
    const double f[3] = {0.0, 0.0, 5.0};
    return mbs_apply_body_wrench(d, 1, f, NULL, NULL);
}

/* A pendulum pushed by a callback that also tries call `which` from inside. */
static mbs_model *pushed_pendulum(nested_case *c, mbs_builder **bp)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.com[0] = 0.5;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = 1, jd.axis[0] = 0, jd.axis[1] = 1, jd.axis[2] = 0;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    assert_true(mbs_add_force_callback(b, "pusher", nested_callback, c) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    *bp = b;
    return m;
}

/* Every refused call answers MBS_ERR_STATE naming the callback, before touching anything:
   the outer forward dynamics returns, bit for bit, what it returns with an allowed query in
   the callback instead (which = 10). A nested call with a NaN argument answers STATE too. */
static void test_nested_calls(void **state)
{
    (void)state;
    nested_case ref_case = {10, 99};
    mbs_builder *b = NULL;
    mbs_model *m = pushed_pendulum(&ref_case, &b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.3;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_int_equal(ref_case.status, MBS_OK);
    const double ref = mbs_data_qacc(d)[0];
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    for (int which = 0; which < 10; ++which) {
        nested_case c = {which, 99};
        m = pushed_pendulum(&c, &b);
        d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.3;
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        assert_int_equal(c.status, MBS_ERR_STATE);
        if (!strstr(mbs_data_error(d), "\"pusher\""))
            fail_msg("call %d: message '%s' does not name the callback", which, mbs_data_error(d));
        assert_true(mbs_data_qacc(d)[0] == ref);
        assert_true(mbs_data_time(d) == 0.0);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
        mbs_builder_destroy(b);
    }
}

/* q + dt v overflowing, a velocity that overflows, and assemble: failures, not OK garbage. */
static void test_nonfinite_outputs(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.parent = MBS_WORLD, jd.child = 1;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    const double q[1] = {1e308}, v[1] = {1e308};
    double out[1] = {42.0};
    assert_int_equal(mbs_integrate_q(m, q, v, 10.0, out), MBS_ERR_NONFINITE);
    assert_true(out[0] == 42.0); /* nothing written */
    mbs_data_destroy(mbs_data_create(m));
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    /* a body far from its joint axis spinning fast: its origin's velocity overflows */
    b = mbs_builder_create();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = 1, jd.frame_child.pos[0] = 1e100;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[0] = 1e300;
    double lin[3] = {7, 7, 7}, ang[3] = {7, 7, 7};
    assert_int_equal(mbs_body_velocity(d, 1, lin, ang), MBS_ERR_NONFINITE);
    assert_true(lin[0] == 7.0 && ang[0] == 7.0); /* outputs unwritten */
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    /* the fuzzer's assemble case: a free body on a spherical cut joint whose child is the
       world, a non-unit quaternion far away: OK with a finite closed state, or a failure */
    b = mbs_builder_create();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    jd = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    jd.parent = 1, jd.child = MBS_WORLD, jd.cut = 1;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    d = mbs_data_create(m);
    double *qs = mbs_data_q(d);
    qs[0] = -30.07, qs[3] = 0.3, qs[4] = 2.0, qs[5] = -1.0, qs[6] = 0.5;
    mbs_data_v(d)[2] = 0.24;
    const int st = mbs_assemble(d);
    if (st == MBS_OK) {
        for (int i = 0; i < 7; ++i) assert_true(isfinite(qs[i]));
        for (int i = 0; i < 6; ++i) assert_true(isfinite(mbs_data_v(d)[i]));
        assert_true(fabs(qs[0]) < 1e-12); /* the joint closed: the body origin at the world's */
    } else {
        assert_true(qs[0] == -30.07);
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* RK4 at 1 ms on a k = 1e8 spring: with the estimate the first step fails (MBS_ERR_SOLVER,
   state restored, a step suggested); without it the state overflows and the step that
   produced it is MBS_ERR_NONFINITE, never OK. The estimate leaves accepted steps bitwise. */
static void test_error_estimate(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.parent = MBS_WORLD, jd.child = 1;
    const int j = mbs_add_joint(b, &jd);
    assert_true(mbs_add_joint_spring_damper(b, j, 0, 1e8, 0.0, 0.0) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    /* 0: the guard alone (the default), 1: the estimate, 2: neither (no_divergence_guard) */
    for (int on = 0; on < 3; ++on) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.01;
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        if (on == 1) def.err_rtol = 1e-6, def.err_atol = 1e-9;
        def.no_divergence_guard = on == 2;
        mbs_stepper *s = mbs_stepper_create(d, &def);
        int st = MBS_OK, k = 0;
        for (; k < 2000 && st == MBS_OK; ++k) {
            st = mbs_stepper_step(s, 1e-3);
            if (st == MBS_OK) assert_true(isfinite(mbs_data_q(d)[0]) && isfinite(mbs_data_v(d)[0]));
        }
        assert_int_equal(st, on < 2 ? MBS_ERR_SOLVER : MBS_ERR_NONFINITE);
        if (on < 2) {
            assert_int_equal(k, 1); /* the very first step */
            assert_true(mbs_data_q(d)[0] == 0.01 && mbs_data_time(d) == 0.0);
            /* the guard sees it in the step's own stages, before the estimate's half steps */
            assert_non_null(strstr(mbs_data_error(d), "beyond the method's stability"));
        }
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    /* a soft spring: with and without the estimate the same trajectory, bit for bit */
    double q[2];
    mbs_model_destroy(m);
    assert_int_equal(mbs_builder_set_gravity(b, (const double[3]){0, 0, -9.81}), MBS_OK);
    b->forces[0].stiffness = 10.0;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    for (int on = 0; on < 2; ++on) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.3;
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        if (on) def.err_rtol = 1e-6, def.err_atol = 1e-9;
        mbs_stepper *s = mbs_stepper_create(d, &def);
        for (int k = 0; k < 500; ++k) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        q[on] = mbs_data_q(d)[0];
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    assert_true(q[0] == q[1]);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* A host that sets a Cardan middle angle at exactly 90 degrees (or within 1e-3): the step
   re-bases the joint first and succeeds. */
static void test_cardan_host_singularity(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.inertia[0] = 0.01, bd.inertia[4] = 0.02, bd.inertia[8] = 0.025;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    jd.parent = MBS_WORLD, jd.child = 1, jd.rotation = MBS_ROT_CARDAN;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    const double angles[3] = {acos(-1.0) / 2, acos(-1.0) / 2 - 1e-3, -acos(-1.0) / 2 + 5e-4};
    for (int k = 0; k < 3; ++k) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[1] = angles[k];
        mbs_data_v(d)[0] = 0.5, mbs_data_v(d)[1] = -0.3, mbs_data_v(d)[2] = 0.2;
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        mbs_stepper *s = mbs_stepper_create(d, &def);
        for (int i = 0; i < 100; ++i)
            if (mbs_stepper_step(s, 1e-3) != MBS_OK) fail_msg("angle %g: %s", angles[k], mbs_data_error(d));
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inertia_overflow),
        cmocka_unit_test(test_nested_calls),
        cmocka_unit_test(test_nonfinite_outputs),
        cmocka_unit_test(test_error_estimate),
        cmocka_unit_test(test_cardan_host_singularity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
