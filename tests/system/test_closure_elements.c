/* Loops closed in closed form with elements acting on the tree (src/loops/analytic/
 * tree_elements.c): joint friction, rotors and prescribed motion leave the closed form in
 * place where it is valid, each checked against the same model closed by Newton:
 *   - the V6 engine (six JointRRP on one crankshaft) with Coulomb, viscous friction and
 *     stiction on the crankshaft: it slows down and locks; the closed forms serve throughout
 *     (no Newton iteration), the trajectory agrees with Newton's to 1e-9;
 *   - MSL's Fourbar_analytic (JointSSP) driven through a gearbox rotor (ratio 10) on its
 *     crank, a second rotor housed on the crank: closed forms, no Newton iteration, energy
 *     kept, agreement with Newton to 1e-9;
 *   - a prescribed motion of a dependent coordinate (a connecting rod's angle in the
 *     engine): the closed form cannot hold it and the crank's rate both, Newton serves
 *     (mbs_cut_joint_closure says so) and the motion is followed to 1e-10. */
#include "common.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* models/NAME.xml with the closure mode given, add() adding elements before compile (with
   the file's model compiled alone, to find ids by name: a builder's ids are the model's). */
typedef void (*add_fn)(mbs_builder *b, const mbs_model *ids);
static mbs_model *load_with(const char *name, mbs_closure mode, add_fn add)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(lm_load_model(b, name), MBS_OK);
    mbs_model *ids = NULL;
    assert_int_equal(mbs_compile(b, &ids), MBS_OK);
    assert_int_equal(mbs_builder_set_closure(b, mode), MBS_OK);
    add(b, ids);
    mbs_model_destroy(ids);
    return test_compile_ok(b);
}

static int find_joint(const mbs_model *m, const char *name)
{
    const int j = mbs_model_find_joint(m, name);
    assert_true(j >= 0);
    return j;
}

/* Largest difference of q over n RK4 steps of dt between an analytic and a Newton data of
   the same model; each step must be MBS_OK, the analytic one without a Newton iteration and
   with its loops closed in closed form (cut joint `cut`). *T_end the kinetic energy at the
   end. */
static double run_pair(mbs_data *da, mbs_data *dn, int cut, int n, double dt, double *T_end)
{
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *sa = mbs_stepper_create(da, &sd), *sn = mbs_stepper_create(dn, &sd);
    assert_non_null(sa);
    assert_non_null(sn);
    const int nq = mbs_model_nq(mbs_data_model(da));
    double dq = 0.0, V;
    for (int k = 1; k <= n; ++k) {
        assert_int_equal(mbs_stepper_step(sa, dt), MBS_OK);
        assert_int_equal(mbs_stepper_step(sn, dt), MBS_OK);
        assert_int_equal(mbs_cut_joint_closure(da, cut), MBS_CLOSURE_ANALYTIC);
        for (int i = 0; i < nq; ++i)
            dq = fmax(dq, fabs(mbs_data_q(da)[i] - mbs_data_q(dn)[i]));
    }
    assert_int_equal(mbs_loop_newton_iterations(da), 0);
    assert_int_equal(mbs_energy(da, T_end, &V), MBS_OK);
    mbs_stepper_destroy(sa);
    mbs_stepper_destroy(sn);
    return dq;
}

/* ---------------------------------------------------------------- engine, crank friction */

static void add_crank_friction(mbs_builder *b, const mbs_model *ids)
{
    mbs_joint_friction_def f = mbs_default_joint_friction_def();
    f.name = "crank_friction", f.joint = mbs_model_find_joint(ids, "bearing");
    f.coulomb = 8.0, f.stiction = 12.0, f.viscous = 0.2;
    assert_true(mbs_add_joint_friction(b, &f) >= 0);
}

/* The engine coasts from 10 rad/s against the friction and locks: closed form throughout. */
static void test_engine_crank_friction(void **state)
{
    (void)state;
    mbs_model *ma = load_with("engine_v6", MBS_CLOSURE_ANALYTIC, add_crank_friction);
    mbs_model *mn = load_with("engine_v6", MBS_CLOSURE_NEWTON, add_crank_friction);
    const int crank = find_joint(ma, "bearing"), cut = find_joint(ma, "B1_1");
    mbs_data *da = mbs_data_create(ma), *dn = mbs_data_create(mn);
    assert_int_equal(mbs_assemble(da), MBS_OK);
    assert_int_equal(mbs_assemble(dn), MBS_OK);
    assert_int_equal(mbs_cut_joint_closure(da, cut), MBS_CLOSURE_ANALYTIC);
    assert_int_equal(mbs_cut_joint_closure(dn, cut), MBS_CLOSURE_NEWTON);
    double T;
    const double dq = run_pair(da, dn, cut, 3000, 1e-3, &T);
    const int locked = mbs_joint_is_locked(da, crank, 0);
    print_message("engine with crank friction, 3 s: |q analytic - q Newton| %.1e, crank rate "
                  "%.3g rad/s, locked %d, T %.3g J, Newton iterations %ld (Newton path %ld)\n",
                  dq, mbs_data_v(da)[mbs_model_joint_vadr(ma, crank)], locked, T,
                  mbs_loop_newton_iterations(da), mbs_loop_newton_iterations(dn));
    assert_true(dq <= 1e-9);
    assert_int_equal(locked, 1); /* it came to rest: the lock is a row on the crank */
    assert_int_equal(mbs_joint_is_locked(dn, crank, 0), 1);
    mbs_data_destroy(da), mbs_data_destroy(dn);
    mbs_model_destroy(ma), mbs_model_destroy(mn);
}

/* ---------------------------------------------------------------- four-bar, rotors */

static void add_rotors(mbs_builder *b, const mbs_model *ids)
{
    mbs_rotor_def r = mbs_default_rotor_def();
    r.name = "gearbox", r.joint = mbs_model_find_joint(ids, "j1");
    r.inertia = 2e-4, r.ratio = 10.0, r.axis[0] = 1.0, r.axis[2] = 0.0; /* j1 turns about x */
    assert_true(mbs_add_rotor(b, &r) >= 0);
    r.name = "on_crank", r.ratio = -3.0, r.housing = mbs_model_find_body(ids, "b1");
    assert_true(r.housing > 0);
    assert_true(mbs_add_rotor(b, &r) >= 0);
}

/* Fourbar_analytic with its crank driven through a gearbox: 2 s of RK4 at 1 ms. */
static void test_fourbar_rotor(void **state)
{
    (void)state;
    mbs_model *ma = load_with("fourbar_analytic", MBS_CLOSURE_ANALYTIC, add_rotors);
    mbs_model *mn = load_with("fourbar_analytic", MBS_CLOSURE_NEWTON, add_rotors);
    const int cut = find_joint(ma, "rod");
    mbs_data *da = mbs_data_create(ma), *dn = mbs_data_create(mn);
    assert_int_equal(mbs_assemble(da), MBS_OK);
    assert_int_equal(mbs_assemble(dn), MBS_OK);
    double T0, V0, T, V;
    assert_int_equal(mbs_energy(da, &T0, &V0), MBS_OK);
    const double dq = run_pair(da, dn, cut, 2000, 1e-3, &T);
    assert_int_equal(mbs_energy(da, &T, &V), MBS_OK);
    const double dE = fabs(T + V - T0 - V0) / T0;
    print_message("four-bar with rotors, 2 s: |q analytic - q Newton| %.1e, energy %.1e of T0\n",
                  dq, dE);
    assert_true(dq <= 1e-9);
    assert_true(dE <= 1e-6);
    mbs_data_destroy(da), mbs_data_destroy(dn);
    mbs_model_destroy(ma), mbs_model_destroy(mn);
}

/* ---------------------------------------------------------------- fall back */

static int rod_swing(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    (void)user;
    pos[0] = 0.05 * sin(5.0 * t), vel[0] = 0.25 * cos(5.0 * t);
    acc[0] = -1.25 * sin(5.0 * t);
    return 0;
}

static void add_rod_motion(mbs_builder *b, const mbs_model *ids)
{
    assert_true(mbs_add_joint_motion(b, mbs_model_find_joint(ids, "B2_1"), 0, rod_swing,
                                     NULL) >= 0);
}

/* A motion of a rod's angle (a dependent coordinate of its JointRRP): Newton serves. */
static void test_dependent_motion_falls_back(void **state)
{
    (void)state;
    mbs_model *m = load_with("engine_v6", MBS_CLOSURE_ANALYTIC, add_rod_motion);
    const int cut = find_joint(m, "B1_1"), rod = find_joint(m, "B2_1");
    mbs_data *d = mbs_data_create(m);
    memset(mbs_data_v(d), 0, (size_t)mbs_model_nv(m) * sizeof(double));
    assert_int_equal(mbs_assemble(d), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    double err = 0.0;
    for (int k = 1; k <= 500; ++k) {
        const int rc = mbs_stepper_step(s, 1e-3);
        if (rc != MBS_OK) print_error("step %d: %s\n", k, mbs_data_error(d));
        assert_int_equal(rc, MBS_OK);
        assert_int_equal(mbs_cut_joint_closure(d, cut), MBS_CLOSURE_NEWTON);
        double p, v, a;
        rod_swing(mbs_data_time(d), &p, &v, &a, NULL);
        err = fmax(err, fabs(mbs_data_q(d)[mbs_model_joint_qadr(m, rod)] - p));
    }
    print_message("rod motion: Newton serves, |q - p(t)| %.1e\n", err);
    assert_true(err <= 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_crank_friction),
        cmocka_unit_test(test_fourbar_rotor),
        cmocka_unit_test(test_dependent_motion_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
