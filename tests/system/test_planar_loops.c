/* Planar models with loops in planar algebra (src/loops/analytic/planar_loops.c): a planar model
 * whose loops are all planar closed-form assemblies (JointRRR, RRP, RPP; Otter, Elmqvist,
 * Mattsson 2003, "The New Modelica MultiBody Library", §7.3) runs its kinematics, forces and
 * reduced dynamics with 3-vectors (Höbinger, Otter, "PlanarMultiBody - a Modelica library
 * for planar multi-body systems"), the constraint rows its assemblies use kept without a rank
 * decision (no QR: the out-of-plane rows of a revolute or prismatic cut are simply not
 * rows of a planar loop). Against the same mechanism compiled with MBS_PLANAR_OFF (the 3-D
 * path, closed forms too) and with Newton's closure (3-D), from the same start:
 *   - is_planar 1 (0 for the others), kept rows = 2 per loop, no Newton iteration;
 *   - at the assembled state q, v, qacc and lambda within 1e-12;
 *   - 1 s of RK4 at 1 ms: q within 1e-12 of the 3-D closed-form path (1e-9 of Newton's).
 * IFToMM A02 passes singular positions (its parallelograms flat, the couplers in line with
 * the cranks' tops) where Newton takes over on both closed-form paths (the planar model then
 * runs the 3-D path). Each hands over with the partition of its own row selection (the
 * planar model never made one before), so from there the three trajectories agree to the
 * hand-over's Newton tolerance (1e-8 over the second), not to rounding.
 * Mechanisms: the four-bar with each of its three cuts and in a plane tilted by 0.5 rad, the
 * slider-crank with each of its cuts, the Scotch yoke (JointRPP), the inline six and
 * mbs-sim's V6 engine (six coupled JointRRP), IFToMM A02 with 4 coupled loops. */
#include "common.h"
#include "loop_assemblies.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct pcase {
    const char *name;
    int (*build)(int arg, lm_mech *mech);
    void (*start)(int arg, const lm_mech *mech, mbs_data *d);
    int arg;
    int handover; /* passes singular positions where Newton takes over (A02) */
} pcase;

/* ---- builders and starts (arg: the cut, the kind, ...) */
static lm_fourbar fourbar_params(int arg)
{
    lm_fourbar p = lm_default_fourbar();
    p.cut = arg % 3;
    if (arg >= 3) p.tilt = 0.5;
    return p;
}
static int fourbar_build(int arg, lm_mech *mech)
{
    const lm_fourbar p = fourbar_params(arg);
    return lm_build_fourbar(&p, mech);
}
static void fourbar_start(int arg, const lm_mech *mech, mbs_data *d)
{
    const lm_fourbar p = fourbar_params(arg);
    double th[3] = {0.4, 0.0, 0.0}, w[3] = {3.0, 0.0, 0.0};
    assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_set(&p, mech, d, th, w); /* rates of the dependent angles left to assembly */
}

static lm_slider_crank slider_params(int arg)
{
    lm_slider_crank p = lm_default_slider_crank();
    p.cut = arg;
    return p;
}
static int slider_build(int arg, lm_mech *mech)
{
    const lm_slider_crank p = slider_params(arg);
    return lm_build_slider_crank(&p, mech);
}
static void slider_start(int arg, const lm_mech *mech, mbs_data *d)
{
    const lm_slider_crank p = slider_params(arg);
    double x[3], phi[3];
    lm_slider_crank_kin(&p, 0.7, 0.0, 0.0, x, phi);
    const double s[3] = {0.7, phi[0], x[0]}, sd[3] = {8.0, 0.0, 0.0};
    lm_slider_crank_set(&p, mech, d, s, sd);
}

static int yoke_build(int arg, lm_mech *mech)
{
    (void)arg;
    return lm_build_assembly(LM_ASM_RPP, mech);
}
static void yoke_start(int arg, const lm_mech *mech, mbs_data *d)
{
    (void)arg;
    lm_assembly_guess(LM_ASM_RPP, mech, 0.6, 4.0, 0.01, d);
}

static int six_build(int arg, lm_mech *mech)
{
    (void)arg;
    return lm_build_engine6(mech);
}
static void six_start(int arg, const lm_mech *mech, mbs_data *d)
{
    (void)arg;
    lm_engine_set(mech, 6, 0.2, 20.0, d);
}

static int v6_build(int arg, lm_mech *lm)
{
    (void)arg;
    lm_mech_init(lm);
    mbs_builder *b = mbs_builder_create();
    return lm_finish(b, lm, lm_load_model(b, "engine_v6"));
}
static void v6_start(int arg, const lm_mech *lm, mbs_data *d)
{
    (void)arg, (void)lm, (void)d; /* the file's start values: data start there */
}

static int a02_build(int arg, lm_mech *mech) { return lm_build_a02(arg, mech); }
static void a02_start(int arg, const lm_mech *mech, mbs_data *d) { lm_a02_initial(arg, mech, d); }

static const pcase cases[] = {
    {"four-bar, cut at B", fourbar_build, fourbar_start, LM_CUT_B, 0},
    {"four-bar, cut at A", fourbar_build, fourbar_start, LM_CUT_A, 0},
    {"four-bar, cut at O4", fourbar_build, fourbar_start, LM_CUT_O4, 0},
    {"four-bar, tilted plane", fourbar_build, fourbar_start, 3 + LM_CUT_B, 0},
    {"slider-crank, cut at B", slider_build, slider_start, LM_SC_CUT_B, 0},
    {"slider-crank, cut slider", slider_build, slider_start, LM_SC_CUT_SLIDER, 0},
    {"slider-crank, cut at A", slider_build, slider_start, LM_SC_CUT_A, 0},
    {"Scotch yoke (JointRPP)", yoke_build, yoke_start, 0, 0},
    {"inline six", six_build, six_start, 0, 0},
    {"mbs-sim engine_v6", v6_build, v6_start, 0, 0},
    {"IFToMM A02, 4 loops", a02_build, a02_start, 4, 1},
};

/* ---- one mechanism, three ways: [0] planar closed forms, [1] 3-D closed forms, [2] 3-D
   Newton */
typedef struct trio {
    lm_mech m[3];
    mbs_data *d[3];
    int nq, nv, ncon;
} trio;

static void trio_make(trio *t, const pcase *c)
{
    static const mbs_closure cl[3] = {MBS_CLOSURE_ANALYTIC, MBS_CLOSURE_ANALYTIC,
                                      MBS_CLOSURE_NEWTON};
    static const mbs_planar_mode pl[3] = {MBS_PLANAR_AUTO, MBS_PLANAR_OFF, MBS_PLANAR_AUTO};
    for (int k = 0; k < 3; ++k) {
        lm_set_closure(cl[k]);
        lm_set_planar(pl[k]);
        const int st = c->build(c->arg, &t->m[k]);
        if (st != MBS_OK) print_error("%s: %s\n", c->name, t->m[k].error);
        assert_int_equal(st, MBS_OK);
        t->d[k] = mbs_data_create(t->m[k].model);
        assert_non_null(t->d[k]);
    }
    lm_set_closure(MBS_CLOSURE_ANALYTIC);
    lm_set_planar(MBS_PLANAR_AUTO);
    t->nq = mbs_model_nq(t->m[0].model), t->nv = mbs_model_nv(t->m[0].model);
    t->ncon = mbs_model_ncon(t->m[0].model);
}

static void trio_free(trio *t)
{
    for (int k = 0; k < 3; ++k) {
        mbs_data_destroy(t->d[k]);
        lm_mech_free(&t->m[k]);
    }
}

/* max |a_i - b_i| */
static double absdiff(const double *a, const double *b, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

static void copy_state(const trio *t, int from, int to)
{
    memcpy(mbs_data_q(t->d[to]), mbs_data_q(t->d[from]), (size_t)t->nq * sizeof(double));
    memcpy(mbs_data_v(t->d[to]), mbs_data_v(t->d[from]), (size_t)t->nv * sizeof(double));
}

/* The kept rows: 2 per loop on the planar path (the assemblies' rows, no rank decision);
   every loop of these is closed by a revolute or prismatic cut (5 rows). */
static void check_rows(trio *t, const char *what)
{
    int rank = -1;
    const int nloop = t->ncon / 5;
    assert_int_equal(t->ncon, 5 * nloop);
    assert_int_equal(mbs_constraint_info(t->d[0], &rank, NULL), MBS_OK);
    if (rank != 2 * nloop) print_error("%s: rank %d for %d loops\n", what, rank, nloop);
    assert_int_equal(rank, 2 * nloop);
}

static void test_planar_vs_3d(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const pcase *pc = &cases[c];
        trio t;
        trio_make(&t, pc);
        assert_int_equal(mbs_model_is_planar(t.m[0].model), 1);
        assert_int_equal(mbs_model_is_planar(t.m[1].model), 0);
        assert_int_equal(mbs_model_is_planar(t.m[2].model), 0);
        pc->start(pc->arg, &t.m[0], t.d[0]);
        copy_state(&t, 0, 1);
        copy_state(&t, 0, 2);
        for (int k = 0; k < 3; ++k) {
            const int st = mbs_assemble(t.d[k]);
            if (st != MBS_OK) print_error("%s [%d]: %s\n", pc->name, k, mbs_data_error(t.d[k]));
            assert_int_equal(st, MBS_OK);
        }
        double eq[2], ev[2], ea[2], el[2];
        for (int k = 0; k < 2; ++k) {
            eq[k] = absdiff(mbs_data_q(t.d[0]), mbs_data_q(t.d[k + 1]), t.nq);
            ev[k] = absdiff(mbs_data_v(t.d[0]), mbs_data_v(t.d[k + 1]), t.nv);
        }
        /* the dynamics at the same (planar-closed) state */
        copy_state(&t, 0, 1);
        copy_state(&t, 0, 2);
        for (int k = 0; k < 3; ++k) assert_int_equal(mbs_forward_dynamics(t.d[k]), MBS_OK);
        for (int k = 0; k < 2; ++k) {
            ea[k] = test_rel_diff(mbs_data_qacc(t.d[0]), mbs_data_qacc(t.d[k + 1]), t.nv);
            el[k] = test_rel_diff(mbs_data_lambda(t.d[0]), mbs_data_lambda(t.d[k + 1]), t.ncon);
        }
        check_rows(&t, pc->name);
        /* 1 s of RK4 at 1 ms */
        mbs_stepper *s[3];
        mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
        for (int k = 0; k < 3; ++k) {
            s[k] = mbs_stepper_create(t.d[k], &sd);
            assert_non_null(s[k]);
        }
        double et[2] = {0.0, 0.0};
        for (int i = 0; i < 1000; ++i) {
            for (int k = 0; k < 3; ++k) assert_int_equal(mbs_stepper_step(s[k], 1e-3), MBS_OK);
            for (int k = 0; k < 2; ++k)
                et[k] = fmax(et[k], absdiff(mbs_data_q(t.d[0]), mbs_data_q(t.d[k + 1]), t.nq));
        }
        const long it = mbs_loop_newton_iterations(t.d[0]);
        print_message("%-26s vs 3-D closed forms: q %.1e v %.1e qacc %.1e lambda %.1e, 1 s "
                      "%.1e | vs 3-D Newton: q %.1e qacc %.1e lambda %.1e, 1 s %.1e | Newton "
                      "iterations %ld\n", pc->name, eq[0], ev[0], ea[0], el[0], et[0], eq[1],
                      ea[1], el[1], et[1], it);
        assert_true(eq[0] <= 1e-12 && ev[0] <= 1e-12 && ea[0] <= 1e-12 && el[0] <= 1e-12);
        assert_true(et[0] <= (pc->handover ? 1e-8 : 1e-12));
        assert_true(eq[1] <= 1e-11 && ev[1] <= 1e-10 && ea[1] <= 1e-12 && el[1] <= 1e-12);
        assert_true(et[1] <= (pc->handover ? 1e-8 : 1e-9));
        if (pc->handover) assert_true(it > 0);
        else assert_int_equal(it, 0);
        for (int k = 0; k < 3; ++k) mbs_stepper_destroy(s[k]);
        trio_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planar_vs_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
