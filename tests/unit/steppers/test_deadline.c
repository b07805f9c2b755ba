/* The work bound of a step (mbs_stepper_def.max_work) and the work counters (mbs_data_work).
 * A run of a shipped model is taken twice, the same way up to its last step, which one
 * stepper takes unbounded and another with a bound: below the step's work the step is
 * refused with MBS_ERR_DEADLINE and time, q and v are bit for bit those before it; at the
 * step's work it is taken, bit for bit as unbounded. Trees (RK4: 4 evaluations, Euler: 1),
 * a loop closed by Newton's method (its iterations and factorisations count) and a step
 * with a located event (its trial steps' evaluations count). */
#include "common.h"
#include "loop_mechanisms.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define NMAX 64

/* State before and after the last step of a run, its status and its work. */
typedef struct last_step {
    int st;
    double t0, t1, q0[NMAX], v0[NMAX], q1[NMAX], v1[NMAX];
    mbs_work w; /* work of the last step */
} last_step;

static mbs_model *load(const char *name)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    if (lm_load_model(b, name) != MBS_OK) fail_msg("%s: %s", name, mbs_builder_error(b));
    return test_compile_ok(b);
}

static mbs_stepper *make_stepper(mbs_data *d, mbs_stepper_kind kind, unsigned long max_work)
{
    mbs_stepper_def def = mbs_default_stepper_def(kind);
    def.max_work = max_work;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    if (!s) fail_msg("stepper: %s", mbs_data_error(d));
    return s;
}

/* k unbounded steps of 1 ms from the model's start, then one step by a stepper with
   max_work into *out. */
static void run(const mbs_model *m, mbs_stepper_kind kind, int k, unsigned long max_work,
                last_step *out)
{
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    assert_true(nq <= NMAX && nv <= NMAX);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    mbs_stepper *s = make_stepper(d, kind, 0);
    for (int i = 0; i < k; ++i)
        if (mbs_stepper_step(s, 1e-3) != MBS_OK) fail_msg("step %d: %s", i, mbs_data_error(d));
    mbs_stepper_destroy(s);
    s = make_stepper(d, kind, max_work);
    mbs_work w0, w1;
    out->t0 = mbs_data_time(d);
    memcpy(out->q0, mbs_data_q(d), (size_t)nq * sizeof(double));
    memcpy(out->v0, mbs_data_v(d), (size_t)nv * sizeof(double));
    assert_int_equal(mbs_data_work(d, &w0), MBS_OK);
    out->st = mbs_stepper_step(s, 1e-3);
    assert_int_equal(mbs_data_work(d, &w1), MBS_OK);
    out->t1 = mbs_data_time(d);
    memcpy(out->q1, mbs_data_q(d), (size_t)nq * sizeof(double));
    memcpy(out->v1, mbs_data_v(d), (size_t)nv * sizeof(double));
    out->w.evals = w1.evals - w0.evals;
    out->w.newton = w1.newton - w0.newton;
    out->w.factor = w1.factor - w0.factor;
    out->w.select = w1.select - w0.select;
    out->w.event_iter = w1.event_iter - w0.event_iter;
    if (out->st == MBS_ERR_DEADLINE) assert_non_null(strstr(mbs_data_error(d), "max_work"));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
}

/* The last step of k unbounded steps takes u units: bound u - 1 refuses it with the state
   as before bit for bit, bound u takes it bit for bit as unbounded. */
static void check_bound(const mbs_model *m, mbs_stepper_kind kind, int k, unsigned long u)
{
    const size_t nq = (size_t)mbs_model_nq(m), nv = (size_t)mbs_model_nv(m);
    last_step ref, lo, at;
    run(m, kind, k, 0, &ref);
    assert_int_equal(ref.st, MBS_OK);
    assert_int_equal(mbs_work_units(&ref.w), u);
    if (u > 1) { /* (a bound of 0 is no bound) */
        run(m, kind, k, u - 1, &lo);
        assert_int_equal(lo.st, MBS_ERR_DEADLINE);
        assert_memory_equal(&lo.t1, &lo.t0, sizeof(double));
        assert_memory_equal(lo.q1, lo.q0, nq * sizeof(double));
        assert_memory_equal(lo.v1, lo.v0, nv * sizeof(double));
        assert_memory_equal(lo.q0, ref.q0, nq * sizeof(double)); /* the same run to there */
    }
    run(m, kind, k, u, &at);
    assert_int_equal(at.st, MBS_OK);
    assert_memory_equal(&at.t1, &ref.t1, sizeof(double));
    assert_memory_equal(at.q1, ref.q1, nq * sizeof(double));
    assert_memory_equal(at.v1, ref.v1, nv * sizeof(double));
}

/* The number of unbounded steps before the first of steps 1..kmax whose work has
   counter > 0 (a located event, Newton iterations); that step's units in *u. */
static int first_step_with(const mbs_model *m, mbs_stepper_kind kind, int kmax,
                           size_t counter, unsigned long *u)
{
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    mbs_stepper *s = make_stepper(d, kind, 0);
    int found = -1;
    for (int k = 0; k < kmax && found < 0; ++k) {
        mbs_work w0, w1;
        mbs_data_work(d, &w0);
        if (mbs_stepper_step(s, 1e-3) != MBS_OK) fail_msg("step %d: %s", k, mbs_data_error(d));
        mbs_data_work(d, &w1);
        unsigned long c0, c1;
        memcpy(&c0, (const char *)&w0 + counter, sizeof c0);
        memcpy(&c1, (const char *)&w1 + counter, sizeof c1);
        if (c1 > c0) {
            *u = mbs_work_units(&w1) - mbs_work_units(&w0);
            found = k;
        }
    }
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    if (found < 0) fail_msg("no step with the counter in %d steps", kmax);
    return found;
}

/* A tree: RK4 takes 4 evaluations a step, Euler 1, and nothing else. */
static void test_tree(void **state)
{
    (void)state;
    mbs_model *m = load("triple_pendulum");
    last_step r;
    run(m, MBS_STEP_RK4, 10, 0, &r);
    assert_int_equal(r.w.evals, 4);
    assert_int_equal(r.w.newton + r.w.factor + r.w.select + r.w.event_iter, 0);
    check_bound(m, MBS_STEP_RK4, 10, 4);
    check_bound(m, MBS_STEP_EULER, 10, 1);
    run(m, MBS_STEP_RK4, 10, 1, &r); /* not even its first evaluation */
    assert_int_equal(r.st, MBS_ERR_DEADLINE);
    run(m, MBS_STEP_RK4, 10, 1000, &r); /* a generous bound changes nothing */
    assert_int_equal(r.st, MBS_OK);
    mbs_model_destroy(m);
}

/* The first RK4 step of the model whose counter is nonzero takes more than its 4
   evaluations: bounds below its work, at it and at 4 (the evaluations alone). */
static void check_first_step_with(const char *name, size_t counter, int kmax)
{
    mbs_model *m = load(name);
    unsigned long u = 0;
    const int k = first_step_with(m, MBS_STEP_RK4, kmax, counter, &u);
    assert_true(u > 4);
    check_bound(m, MBS_STEP_RK4, k, u);
    last_step r;
    run(m, MBS_STEP_RK4, k, 4, &r); /* its 4 evaluations fit, the rest does not */
    assert_int_equal(r.st, MBS_ERR_DEADLINE);
    mbs_model_destroy(m);
}

/* A loop closed by Newton's method (spatial four-bar): a step's Newton iterations and
   factorisations count. */
static void test_loop_newton(void **state)
{
    (void)state;
    check_first_step_with("spatial_fourbar", offsetof(mbs_work, newton), 20);
}

/* A step with a located event (the bouncing ball's first impact): the trial steps of the
   location are evaluations of the step. */
static void test_event(void **state)
{
    (void)state;
    check_first_step_with("bouncing_ball", offsetof(mbs_work, event_iter), 3000);
}

/* The bound is the fixed-step kinds'; the status has its name; NULL arguments. */
static void test_api(void **state)
{
    (void)state;
    assert_string_equal(mbs_status_name(MBS_ERR_DEADLINE), "MBS_ERR_DEADLINE");
    assert_int_equal(mbs_default_stepper_def(MBS_STEP_RK4).max_work, 0);
    mbs_model *m = load("pendulum");
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_CVODE_BDF);
    def.max_work = 10;
    assert_null(mbs_stepper_create(d, &def));
    assert_non_null(strstr(mbs_data_error(d), "max_work"));
    mbs_work w;
    assert_int_equal(mbs_data_work(NULL, &w), MBS_ERR_ARG);
    assert_int_equal(mbs_data_work(d, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_work_units(NULL), 0);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* mbs_stepper_worst_work of a stepper made with def on the model: status, cap, seen. */
static int worst(const mbs_model *m, mbs_stepper_def def, int steps, mbs_work *cap,
                 mbs_work *seen)
{
    mbs_data *d = mbs_data_create(m);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    if (!s) fail_msg("stepper: %s", mbs_data_error(d));
    for (int k = 0; k < steps; ++k)
        if (mbs_stepper_step(s, 1e-3) != MBS_OK) fail_msg("step %d: %s", k, mbs_data_error(d));
    const int st = mbs_stepper_worst_work(s, 1e-3, cap, seen);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    return st;
}

/* 1 when every counter of w is the given one. */
static int work_is(const mbs_work *w, unsigned long e, unsigned long n, unsigned long f,
                   unsigned long sel, unsigned long it)
{
    return w->evals == e && w->newton == n && w->factor == f && w->select == sel &&
           w->event_iter == it;
}

/* A tree's bound is exact: its evaluations, times the substeps of max_step, times 3 with
   the local-error estimate; what the stepper saw is that too. */
static void test_worst_tree(void **state)
{
    (void)state;
    mbs_model *m = load("triple_pendulum");
    mbs_work cap, seen;
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    assert_int_equal(worst(m, def, 10, &cap, &seen), MBS_OK);
    assert_true(work_is(&cap, 4, 0, 0, 0, 0) && work_is(&seen, 4, 0, 0, 0, 0));
    def.max_step = 0.4e-3; /* 3 substeps */
    assert_int_equal(worst(m, def, 1, &cap, NULL), MBS_OK);
    assert_true(work_is(&cap, 12, 0, 0, 0, 0));
    def = mbs_default_stepper_def(MBS_STEP_EULER);
    def.err_rtol = 1e-3; /* the full step and two half steps */
    assert_int_equal(worst(m, def, 10, &cap, &seen), MBS_OK);
    assert_true(work_is(&cap, 3, 0, 0, 0, 0) && work_is(&seen, 3, 0, 0, 0, 0));
    mbs_model_destroy(m);
}

/* Every shipped model, RK4 and Euler, 1000 steps: no step took more of any counter than the
   bound, and the largest step's work is what the stepper reports as seen. */
static void test_worst_shipped(void **state)
{
    (void)state;
    static const char *const names[] = {
        "a02_fourbars", "bouncing_ball", "cam_follower", "door_hinges", "double_pendulum",
        "engine_cylindrical", "engine_v6", "fourbar_analytic", "free_body_springs",
        "friction_pendulum", "limited_pendulum", "macpherson", "pendulum", "planar_loop_tilted",
        "point_gravity", "robot_r3", "rolling_ellipse", "slope_blocks", "spatial_fourbar",
        "spring_with_mass", "three_springs", "triple_pendulum", "two_loops"};
    static const mbs_stepper_kind kinds[2] = {MBS_STEP_RK4, MBS_STEP_EULER};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        mbs_model *m = load(names[i]);
        for (int k = 0; k < 2; ++k) {
            mbs_data *d = mbs_data_create(m);
            mbs_stepper *s = make_stepper(d, kinds[k], 0);
            mbs_work cap, seen, most = {0}, w0, w1;
            assert_int_equal(mbs_stepper_worst_work(s, 1e-3, &cap, NULL), MBS_OK);
            for (int n = 0; n < 1000; ++n) {
                mbs_data_work(d, &w0);
                if (mbs_stepper_step(s, 1e-3) != MBS_OK)
                    fail_msg("%s step %d: %s", names[i], n, mbs_data_error(d));
                mbs_data_work(d, &w1);
                const mbs_work w = {w1.evals - w0.evals, w1.newton - w0.newton,
                                    w1.factor - w0.factor, w1.select - w0.select,
                                    w1.event_iter - w0.event_iter};
                if (w.evals > cap.evals || w.newton > cap.newton || w.factor > cap.factor ||
                    w.select > cap.select || w.event_iter > cap.event_iter)
                    fail_msg("%s step %d: work above the bound", names[i], n);
                if (mbs_work_units(&w) > mbs_work_units(&most)) most = w;
            }
            assert_int_equal(mbs_stepper_worst_work(s, 1e-3, &cap, &seen), MBS_OK);
            assert_memory_equal(&seen, &most, sizeof seen);
            print_message("%-18s %-5s bound %9lu units, seen %4lu\n", names[i],
                          k == 0 ? "RK4" : "Euler", mbs_work_units(&cap), mbs_work_units(&seen));
            mbs_stepper_destroy(s);
            mbs_data_destroy(d);
        }
        mbs_model_destroy(m);
    }
}

/* No bound for the CVODE kinds; a dt the step would refuse; NULL arguments. */
static void test_worst_refusals(void **state)
{
    (void)state;
    mbs_model *m = load("pendulum");
    mbs_work cap;
    assert_int_equal(worst(m, mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS), 0, &cap, NULL),
                     MBS_ERR_STATE);
    mbs_data *d = mbs_data_create(m);
    mbs_stepper *s = make_stepper(d, MBS_STEP_RK4, 0);
    assert_int_equal(mbs_stepper_worst_work(s, -1e-3, &cap, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "mbs_stepper_worst_work"));
    assert_int_equal(mbs_stepper_worst_work(s, 1e-3, NULL, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_stepper_worst_work(NULL, 1e-3, &cap, NULL), MBS_ERR_ARG);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_loop_newton),
        cmocka_unit_test(test_event),
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_worst_tree),
        cmocka_unit_test(test_worst_shipped),
        cmocka_unit_test(test_worst_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
