/* The model files of the closed-form loops (models/NAME.xml; mbs-sim's elements <simulation>, <initial>,
 * <track>, <plot> stripped here, the <initial> values set through the API) against the same
 * mechanisms built in C or against closed forms:
 *   engine_v6            closed in closed form (six JointRRP, no Newton iteration) = the
 *                        same file closed by Newton (q after assembly, qacc 1e-12);
 *   fourbar_analytic     = tests/support/loop_assemblies.h's MSL Fourbar_analytic (1e-12), JointSSP;
 *   macpherson           JointUPS then JointSSR, 5 s RK4 against its Newton path (1e-9),
 *                        no Newton iteration, energy conserved, the strut's length its slide;
 *   cam_follower         lift e sin(theta) + r (1e-10) and energy over 60 s;
 *   rolling_ellipse      centre height = support function (1e-9), energy (1e-9), CVODE. */
#include "common.h"
#include "loop_assemblies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXINIT 32

/* One <initial joint q v> of a file. */
typedef struct init_entry {
    char joint[64];
    double q[8], v[8];
    int nq, nv;
} init_entry;

/* Numbers of attribute attr in line (up to max); their count. */
static int attr_numbers(const char *line, const char *attr, double *x, int max)
{
    char key[32];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *p = strstr(line, key);
    if (!p) return 0;
    p += strlen(key);
    int n = 0;
    while (n < max && *p != '"') {
        char *end;
        x[n] = strtod(p, &end);
        if (end == p) break;
        ++n, p = end;
    }
    return n;
}

/* models/NAME.xml copied to a temporary file without mbs-sim's elements; its <initial>
   entries into init (*ninit); replace (may be NULL) swapped for with in each line. */
static void strip_model(const char *name, const char *tmp, init_entry *init, int *ninit,
                        const char *replace, const char *with)
{
    const char *dir = getenv("MBS_MODELS");
    assert_non_null(dir);
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%s.xml", dir, name);
    FILE *in = fopen(path, "r"), *out = fopen(tmp, "w");
    assert_non_null(in);
    assert_non_null(out);
    int in_sim = 0;
    *ninit = 0;
    while (fgets(line, sizeof line, in)) {
        if (strstr(line, "<simulation")) in_sim = 1;
        if (in_sim) {
            in_sim = !strstr(line, "/>");
            continue;
        }
        if (strstr(line, "<track") || strstr(line, "<plot")) continue;
        if (strstr(line, "<initial")) {
            init_entry *e = &init[(*ninit)++];
            const char *j = strstr(line, "joint=\"") + 7;
            snprintf(e->joint, sizeof e->joint, "%.*s", (int)(strchr(j, '"') - j), j);
            e->nq = attr_numbers(line, "q", e->q, 8);
            e->nv = attr_numbers(line, "v", e->v, 8);
            continue;
        }
        char *r = replace ? strstr(line, replace) : NULL;
        if (r) fprintf(out, "%.*s%s%s", (int)(r - line), line, with, r + strlen(replace));
        else fputs(line, out);
    }
    fclose(in);
    fclose(out);
}

/* The model of models/NAME.xml (mbs-sim elements stripped) and its data at the start. */
static mbs_model *load_model(const char *name, mbs_data **d, const char *replace, const char *with)
{
    char tmp[256];
    init_entry init[MAXINIT];
    int ninit;
    snprintf(tmp, sizeof tmp, "test_models_closure_%s.xml", name);
    strip_model(name, tmp, init, &ninit, replace, with);
    mbs_builder *b = mbs_builder_create();
    int rc = mbs_builder_load(b, tmp);
    mbs_model *m = NULL;
    if (rc == MBS_OK) rc = mbs_compile(b, &m);
    if (rc != MBS_OK) print_error("%s: %s\n", name, mbs_builder_error(b));
    assert_int_equal(rc, MBS_OK);
    mbs_builder_destroy(b);
    remove(tmp);
    *d = mbs_data_create(m);
    for (int i = 0; i < ninit; ++i) {
        const int j = mbs_model_find_joint(m, init[i].joint);
        assert_true(j >= 0);
        for (int k = 0; k < init[i].nq; ++k) mbs_data_q(*d)[mbs_model_joint_qadr(m, j) + k] = init[i].q[k];
        for (int k = 0; k < init[i].nv; ++k) mbs_data_v(*d)[mbs_model_joint_vadr(m, j) + k] = init[i].v[k];
    }
    return m;
}

/* d and e assembled, then the same q (1e-12) and qacc (1e-12 relative). */
static void same_start(mbs_data *d, mbs_data *e, const char *what)
{
    const mbs_model *m = mbs_data_model(d);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    assert_int_equal(nq, mbs_model_nq(mbs_data_model(e)));
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(mbs_assemble(e), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(e), MBS_OK);
    const double eq = test_rel_diff(mbs_data_q(d), mbs_data_q(e), nq);
    const double ea = test_rel_diff(mbs_data_qacc(d), mbs_data_qacc(e), nv);
    print_message("%s: model file vs C: q %.1e, qacc %.1e\n", what, eq, ea);
    assert_true(eq <= 1e-12 && ea <= 1e-12);
}

static void test_engine_v6_analytic(void **state)
{
    (void)state;
    mbs_data *d, *e;
    mbs_model *m = load_model("engine_v6", &d, NULL, NULL);
    mbs_model *mn = load_model("engine_v6", &e, "<gravity", "<closure strategy=\"newton\"/><gravity");
    assert_string_equal(mbs_model_cut_assembly(m, mbs_model_find_joint(m, "B1_1")), "JointRRP");
    assert_null(mbs_model_cut_assembly(mn, mbs_model_find_joint(mn, "B1_1")));
    same_start(d, e, "engine_v6 closed form vs Newton");
    assert_int_equal(mbs_loop_newton_iterations(d), 0);
    mbs_data_destroy(d), mbs_data_destroy(e);
    mbs_model_destroy(m), mbs_model_destroy(mn);
}

static void test_fourbar_analytic(void **state)
{
    (void)state;
    mbs_data *d;
    mbs_model *m = load_model("fourbar_analytic", &d, NULL, NULL);
    assert_string_equal(mbs_model_cut_assembly(m, mbs_model_find_joint(m, "rod")), "JointSSP");
    lm_mech c;
    assert_int_equal(lm_build_fourbar_analytic(&c), MBS_OK);
    mbs_data *e = mbs_data_create(c.model);
    lm_fourbar_analytic_start(&c, e);
    same_start(d, e, "fourbar_analytic");
    mbs_data_destroy(d), mbs_data_destroy(e);
    mbs_model_destroy(m);
    lm_mech_free(&c);
}

/* 5 s of RK4 at 1 ms: the file and its Newton twin (strategy replaced). */
static void test_macpherson(void **state)
{
    (void)state;
    mbs_data *d, *e;
    mbs_model *m = load_model("macpherson", &d, NULL, NULL);
    mbs_model *mn = load_model("macpherson", &e, "<gravity", "<closure strategy=\"newton\"/><gravity");
    const int ball = mbs_model_find_joint(m, "ball"), tie = mbs_model_find_joint(m, "tie_rod");
    assert_string_equal(mbs_model_cut_assembly(m, ball), "JointUPS");
    assert_string_equal(mbs_model_cut_assembly(m, tie), "JointSSR");
    assert_null(mbs_model_cut_assembly(mn, ball));
    assert_int_equal(mbs_assemble(d), MBS_OK);
    memcpy(mbs_data_q(e), mbs_data_q(d), (size_t)mbs_model_nq(m) * sizeof(double));
    memcpy(mbs_data_v(e), mbs_data_v(d), (size_t)mbs_model_nv(m) * sizeof(double));
    assert_int_equal(mbs_assemble(e), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *sa = mbs_stepper_create(d, &sd), *sn = mbs_stepper_create(e, &sd);
    const int qs = mbs_model_joint_qadr(m, mbs_model_find_joint(m, "damper"));
    const int body = mbs_model_find_body(m, "strut_lower");
    double T0, V0, T, V, worst = 0.0, drift = 0.0, strut = 0.0, lo = INFINITY, hi = -INFINITY;
    assert_int_equal(mbs_energy(d, &T0, &V0), MBS_OK);
    for (int k = 0; k < 5000; ++k) {
        assert_int_equal(mbs_stepper_step(sa, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(sn, 1e-3), MBS_OK);
        for (int i = 0; i < mbs_model_nq(m); ++i)
            worst = fmax(worst, fabs(mbs_data_q(d)[i] - mbs_data_q(e)[i]));
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        drift = fmax(drift, fabs(T + V - T0 - V0) / T0);
        double p[3], R[9];
        assert_int_equal(mbs_body_pose(d, body, p, R), MBS_OK);
        const double len = sqrt(p[0] * p[0] + (p[1] - 0.8) * (p[1] - 0.8) + (p[2] - 0.6) * (p[2] - 0.6));
        strut = fmax(strut, fabs(len - mbs_data_q(d)[qs]));
        lo = fmin(lo, mbs_data_q(d)[qs]), hi = fmax(hi, mbs_data_q(d)[qs]);
    }
    print_message("macpherson 5 s: strut %.4f..%.4f m, max |q_analytic - q_Newton| %.1e, energy "
                  "drift %.1e, |strut length - slide| %.1e, Newton iterations %ld (Newton path %ld)\n",
                  lo, hi, worst, drift, strut, mbs_loop_newton_iterations(d),
                  mbs_loop_newton_iterations(e));
    assert_true(worst <= 1e-9 && drift <= 1e-6 && strut <= 1e-12 && hi - lo > 1e-3);
    assert_int_equal(mbs_loop_newton_iterations(d), 0);
    assert_int_equal(mbs_cut_joint_closure(d, tie), MBS_CLOSURE_ANALYTIC);
    mbs_stepper_destroy(sa), mbs_stepper_destroy(sn);
    mbs_data_destroy(d), mbs_data_destroy(e);
    mbs_model_destroy(m), mbs_model_destroy(mn);
}

/* 60 s (the file's 5 s twelve times over: 57 turns of the cam) of RK4 at the file's 1 ms:
   the lift stays e sin(theta) + r, the energy within RK4's error (it falls 16x per halving of
   the step), the circle's parameter within one period. */
static void test_cam_follower(void **state)
{
    (void)state;
    mbs_data *d;
    mbs_model *m = load_model("cam_follower", &d, NULL, NULL);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const int qc = mbs_model_joint_qadr(m, mbs_model_find_joint(m, "shaft"));
    const int qf = mbs_model_joint_qadr(m, mbs_model_find_joint(m, "guide"));
    const int jc = mbs_model_find_joint(m, "contact");
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    double err = 0.0, dE = 0.0, T0, V0, T, V, sc[2];
    assert_int_equal(mbs_energy(d, &T0, &V0), MBS_OK);
    for (int k = 1; k <= 60000; ++k) {
        const int rc = mbs_stepper_step(s, 1e-3);
        if (rc != MBS_OK) print_error("t %.3f: %s\n", 1e-3 * k, mbs_data_error(d));
        assert_int_equal(rc, MBS_OK);
        err = fmax(err, fabs(mbs_data_q(d)[qf] - (0.04 * sin(mbs_data_q(d)[qc]) + 0.1)));
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        dE = fmax(dE, fabs(T + V - T0 - V0) / (T0 + V0));
    }
    assert_int_equal(mbs_curve_joint_contact(d, jc, sc, NULL, NULL), MBS_OK);
    print_message("cam_follower 60 s (%.0f rad): |lift - (e sin theta + r)| %.1e, energy %.1e, s "
                  "(%.4f, %.4f)\n", mbs_data_q(d)[qc], err, dE, sc[0], sc[1]);
    assert_true(mbs_data_q(d)[qc] > 300.0);
    assert_true(err <= 1e-10);
    assert_true(dE <= 1e-9);
    assert_true(fabs(sc[0]) <= 3.14159265358979 * 0.1);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

static void test_rolling_ellipse(void **state)
{
    (void)state;
    mbs_data *d;
    mbs_model *m = load_model("rolling_ellipse", &d, NULL, NULL);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, mbs_model_find_joint(m, "plane"));
    double T0, V0, T, V, eh = 0.0, dE = 0.0;
    assert_int_equal(mbs_energy(d, &T0, &V0), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    sd.rtol = sd.atol = 1e-12;
    sd.max_internal_steps = 100000;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    for (int k = 0; k < 100; ++k) {
        assert_int_equal(mbs_stepper_step(s, 0.01), MBS_OK);
        const double h = sqrt(0.09 * sin(q[2]) * sin(q[2]) + 0.0225 * cos(q[2]) * cos(q[2]));
        eh = fmax(eh, fabs(q[1] - h));
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        dE = fmax(dE, fabs(T + V - T0 - V0) / (2.0 * 9.81 * 0.3));
    }
    print_message("rolling_ellipse 1 s: centre height vs support function %.1e, energy %.1e\n", eh, dE);
    assert_true(eh <= 1e-9 && dE <= 1e-9);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_v6_analytic),
        cmocka_unit_test(test_fourbar_analytic),
        cmocka_unit_test(test_macpherson),
        cmocka_unit_test(test_cam_follower),
        cmocka_unit_test(test_rolling_ellipse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
