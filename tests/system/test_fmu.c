/* mbs-fmu and the FMU runtime, used as an FMI 2.0 co-simulation importer would
 * (fmu_harness.h): every packed modelDescription.xml checked against the standard's structure
 * (fmi2_check.h, which is itself shown to reject broken descriptions); trajectories equal to
 * mbs-sim's run of the same model file and step, bit for bit, for a tree and a closed loop,
 * stepped by instances of both FMUs at once; joint forces and body wrenches as inputs (a free
 * body against its closed form, a loop against the library holding the same wrench); tracked
 * points as outputs; the CVODE option against the library's CVODE (the error cases are in
 * tests/system/test_fmu_errors.c). Env: MBS_FMU, MBS_FMU_RUNTIME, MBS_TEST_DATA, MBS_MODELS (set by meson). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmi2_check.h"
#include "fmu_harness.h"
#include "mbs/mbs.h"
#include "sim.h"

/* Path of a file of the models folder or of tests/data (static buffer per slot). */
static const char *model_file(int slot, const char *env, const char *name)
{
    static char path[4][512];
    snprintf(path[slot], sizeof path[slot], "%s/%s", getenv(env), name);
    return path[slot];
}

/* A model file's text with extra elements inserted before </robot> (a scratch file). */
static const char *with_elements(int slot, const char *path, const char *extra, const char *name)
{
    char *text = fmu_slurp(path, NULL);
    char *end = strstr(text, "</robot>");
    assert_non_null(end);
    const size_t n = strlen(text) + strlen(extra) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(end - text), text, extra, end);
    const char *p = fmu_scratch(slot, name, out);
    free(out);
    free(text);
    return p;
}

/* ---------------------------------------------------------------- the library's runs */

/* A model file loaded, compiled and started (loops assembled) with a stepper of def. */
typedef struct lib_run {
    mbs_builder *b;
    mbs_model *m;
    mbs_data *d;
    mbs_stepper *s;
} lib_run;

static void lib_open(lib_run *r, const char *path, const mbs_stepper_def *def)
{
    r->b = mbs_builder_create();
    assert_int_equal(mbs_builder_load(r->b, path), MBS_OK);
    assert_int_equal(mbs_compile(r->b, &r->m), MBS_OK);
    r->d = mbs_data_create(r->m);
    if (mbs_model_ncon(r->m) > 0) assert_int_equal(mbs_assemble(r->d), MBS_OK);
    r->s = mbs_stepper_create(r->d, def);
    assert_non_null(r->s);
}

static void lib_close(lib_run *r)
{
    mbs_stepper_destroy(r->s);
    mbs_data_destroy(r->d);
    mbs_model_destroy(r->m);
    mbs_builder_destroy(r->b);
}

/* The q and v of a joint in the library's data (one dof). */
static double lib_q(const lib_run *r, const char *joint)
{
    return mbs_data_q(r->d)[mbs_model_joint_qadr(r->m, mbs_model_find_joint(r->m, joint))];
}
static double lib_v(const lib_run *r, const char *joint)
{
    return mbs_data_v(r->d)[mbs_model_joint_vadr(r->m, mbs_model_find_joint(r->m, joint))];
}

/* ---------------------------------------------------------------- description checks */

/* Each packed description passes; the checker rejects each way of breaking one. */
static void test_description(void **state)
{
    (void)state;
    fmu_unit u;
    fmu_unit_open(&u, model_file(0, "MBS_TEST_DATA", "fmu_double_pendulum.urdf"), "pend");
    static const struct { const char *from, *to, *why; } breaks[] = {
        {" guid=", " nothing=", "attribute nothing is not in the schema"},
        {"fmiVersion=\"2.0\"", "fmiVersion=\"3.0\"", "fmiVersion=\"3.0\""},
        {"<ModelStructure>", "<ModelStructure><Foo/>", "<Foo> is not allowed here"},
        {"<LogCategories>", "<DefaultExperiment/><LogCategories>", "<LogCategories> is out of the schema's order"},
        {"causality=\"input\" variability=\"continuous\"", "causality=\"input\" variability=\"fixed\"", "causality input with variability fixed"},
        {"causality=\"input\" variability=\"continuous\">", "causality=\"input\" variability=\"continuous\" initial=\"exact\">", "initial is not allowed with causality input"},
        {"initial=\"calculated\">\n      <Real/>", "initial=\"calculated\">\n      <Real start=\"1\"/>", "must not have a start value"},
        {"<Real start=\"0.001\"/>", "<Real/>", "needs a start value"},
        {"name=\"shoulder.q\"", "name=\"1shoulder.q\"", "breaks the structured naming convention"},
        {"name=\"shoulder.v\"", "name=\"shoulder.q\"", "name shoulder.q is used twice"},
        {"valueReference=\"3\"", "valueReference=\"2\"", "value reference 2 of Real is used twice"},
        {"      <Unknown index=\"5\" dependencies=\"\"/>\n", "", "belongs in <Outputs> but is missing"},
        {"<Unknown index=\"5\" dependencies=\"\"/>", "<Unknown index=\"5\" dependencies=\"4\"/>", "dependency 4 is not a known"},
        {"    <InitialUnknowns>\n      <Unknown index=\"4\"/>\n", "    <InitialUnknowns>\n", "belongs in <InitialUnknowns> but is missing"},
        {"<Boolean start=\"false\"/>", "<Boolean start=\"no\"/>", "start=\"no\" is not a valid value"},
        {"canHandleVariableCommunicationStepSize=\"true\"", "canHandleVariableCommunicationStepSize=\"yes\"", "is not a valid value"},
        {"<CoSimulation modelIdentifier=\"pend\"", "<CoSimulation modelIdentifier=\"pe-nd\"", "not a C identifier"},
    };
    char err[512];
    for (size_t k = 0; k < sizeof breaks / sizeof breaks[0]; ++k) {
        const char *at = strstr(u.description, breaks[k].from);
        if (!at) fail_msg("case %zu: '%s' is not in the description", k, breaks[k].from);
        const size_t size = u.description_len + strlen(breaks[k].to) + 1;
        char *text = malloc(size);
        assert_non_null(text);
        snprintf(text, size, "%.*s%s%s", (int)(at - u.description), u.description, breaks[k].to, at + strlen(breaks[k].from));
        const int st = fmi2_check_description(text, strlen(text), err, sizeof err);
        if (st == 0 || !strstr(err, breaks[k].why))
            fail_msg("case %zu (%s): expected '%s', got %s", k, breaks[k].to, breaks[k].why, st ? err : "valid");
        free(text);
    }
    fmu_unit_close(&u);
    /* the grammar itself: plain, quoted, indexed, der(); and what it refuses */
    const char *good[] = {"a", "a.b[1].c", "'free-ball'.q[0]", "'a\\'b'.x", "der(x)", "der(a.b,2)", "v[1,2]"};
    const char *wrong[] = {"1a", "a.", "'a'b", "''", "a[]", "a b", "'a\"b'", "der(x", "a..b"};
    for (size_t k = 0; k < sizeof good / sizeof good[0]; ++k) assert_true(fmi2_structured_name(good[k]));
    for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; ++k)
        if (fmi2_structured_name(wrong[k])) fail_msg("'%s' passed the grammar", wrong[k]);
}

/* ---------------------------------------------------------------- against mbs-sim */

/* In-process `mbs-sim run FILE --t-end T --stepper rk4 --dt 0.001` (the program's own code):
   every sample kept. */
static void sim_trajectory(const char *path, const char *t_end, sim_result *r)
{
    char *argv[] = {(char *)path, "--t-end", (char *)t_end, "--stepper", "rk4", "--dt", "0.001"};
    sim_options o;
    sim_settings s;
    sim_io io;
    char err[SIM_MSG];
    memset(&io, 0, sizeof io);
    assert_int_equal(sim_parse_run(7, argv, &o, err, sizeof err), 0);
    mech *m = sim_model_find(o.mechanism, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_int_equal(sim_resolve(m, &o, &s, err, sizeof err), 0);
    if (sim_run(m, &s, &io, r, err, sizeof err) != MBS_OK) fail_msg("%s", err);
    assert_int_equal(r->table.stride, 1);
    sim_model_free(m);
}

/* The FMU variable of a CSV column of mbs-sim (one-dof joints, tracked points): "q.J" is
   "J.q", "x.L" is "L.x"; -1 for the other columns (time, energies, residual). */
static int column_vr(const fmu_unit *u, const char *column)
{
    char name[200];
    if (strlen(column) < 3 || column[1] != '.' || !strchr("qvxyz", column[0])) return -1;
    snprintf(name, sizeof name, "%s.%c", column + 2, column[0]);
    const int vr = fmu_find(u, name);
    if (vr < 0) fail_msg("%s: mbs-sim column %s has no FMU variable %s", u->ident, column, name);
    return vr;
}

/* An FMU instance stepped like mbs-sim (to k dt, the last target t_end) beside its run. */
typedef struct beside {
    const fmu_unit *u;
    fmi2Component c;
    sim_result r;
    int *vr; /* [ncol] */
    double t;
} beside;

static void beside_open(beside *b, const fmu_unit *u, const char *path, const char *t_end)
{
    memset(b, 0, sizeof *b);
    b->u = u;
    sim_trajectory(path, t_end, &b->r);
    b->vr = calloc((size_t)b->r.table.ncol, sizeof *b->vr);
    for (int col = 0; col < b->r.table.ncol; ++col) b->vr[col] = column_vr(u, b->r.table.names[col]);
    b->c = fmu_start(u, u->ident, 0.0, 0, 1e-3);
}

/* Sample k of the FMU equals row k of mbs-sim bit for bit; returns the columns compared. */
static int beside_compare(const beside *b, long k)
{
    int n = 0;
    for (int col = 0; col < b->r.table.ncol; ++col) {
        if (b->vr[col] < 0) continue;
        double got;
        const fmi2ValueReference vr = (fmi2ValueReference)b->vr[col];
        assert_int_equal(b->u->f.get_real(b->c, &vr, 1, &got), fmi2OK);
        const double want = b->r.table.rows[k * b->r.table.ncol + col];
        if (memcmp(&got, &want, sizeof got) != 0)
            fail_msg("%s sample %ld: %s = %.17g, mbs-sim %.17g", b->u->ident, k, b->r.table.names[col], got, want);
        ++n;
    }
    return n;
}

static void beside_step(beside *b, long k, long nsteps, double t_end)
{
    const double target = k == nsteps ? t_end : (double)k * 1e-3;
    const double h = target - b->t;
    assert_int_equal(b->u->f.do_step(b->c, b->t, h, fmi2True), fmi2OK);
    b->t += h;
}

static void beside_close(beside *b)
{
    b->u->f.free_instance(b->c);
    sim_result_free(&b->r);
    free(b->vr);
}

/* The double pendulum of models/ (tracked elbow and tip) and the planar four-bar in a tilted
   plane (a closed loop with a fixed cut joint, tracked coupler point), one instance of each
   FMU stepped in turn: every sample of 0.3 s equals mbs-sim's run of the same file. */
static void test_matches_mbs_sim(void **state)
{
    (void)state;
    const char *files[2] = {model_file(0, "MBS_MODELS", "double_pendulum.xml"),
                            model_file(1, "MBS_MODELS", "planar_loop_tilted.xml")};
    fmu_unit u[2];
    beside b[2];
    fmu_unit_open(&u[0], files[0], "double_pendulum");
    fmu_unit_open(&u[1], files[1], "planar_loop_tilted");
    for (int i = 0; i < 2; ++i) beside_open(&b[i], &u[i], files[i], "0.3");
    const long nsteps = 300;
    int compared[2] = {0, 0};
    for (int i = 0; i < 2; ++i) compared[i] += beside_compare(&b[i], 0);
    for (long k = 1; k <= nsteps; ++k)
        for (int i = 0; i < 2; ++i) {
            beside_step(&b[i], k, nsteps, 0.3);
            compared[i] += beside_compare(&b[i], k);
        }
    assert_int_equal(compared[0], 301 * (2 + 2 + 6)); /* q, v of 2 joints; 2 points */
    assert_int_equal(compared[1], 301 * (4 + 4 + 3)); /* q, v of 4 joints; 1 point */
    assert_true(b[1].r.residual < 1e-9); /* the loop stayed closed */
    for (int i = 0; i < 2; ++i) beside_close(&b[i]), fmu_unit_close(&u[i]);
}

/* ---------------------------------------------------------------- inputs */

#define FREE_BODY \
    "<?xml version=\"1.0\"?>\n<robot name=\"free_body_inputs\">\n  <gravity xyz=\"0 0 0\"/>\n" \
    "  <link name=\"world\"/>\n  <link name=\"ball\"><inertial><mass value=\"2\"/>\n" \
    "    <inertia ixx=\"0.5\" ixy=\"0\" ixz=\"0\" iyy=\"0.5\" iyz=\"0\" izz=\"0.5\"/></inertial></link>\n" \
    "  <joint name=\"free-ball\" type=\"floating\"><parent link=\"world\"/><child link=\"ball\"/></joint>\n" \
    "  <initial joint=\"free-ball\" q=\"0 0 0 0.7071067811865476 0 0 0.7071067811865476\"/>\n" \
    "  <input name=\"push\" link=\"ball\"/>\n  <track label=\"mark\" link=\"ball\" point=\"0.1 0 0\"/>\n" \
    "</robot>\n"

/* Steps of dt from the FMU's time t (updated) for duration T. */
static void run_for(const fmi *f, fmi2Component c, double *t, double dt, int n)
{
    for (int k = 0; k < n; ++k, *t += dt) assert_int_equal(f->do_step(c, *t, dt, fmi2True), fmi2OK);
}

/* A free ball (m = 2 kg, I = 0.5 kg m^2, turned 90 deg about z, no gravity) pushed through its
   centre by push.fx = 2 N for 1 s moves x = F t^2 / (2 m) = 0.5 m along world x (a force in
   body axes would move it along y); then push.tz = 0.3 N m for 1 s turns it by
   T t^2 / (2 I) = 0.3 rad while it coasts at 1 m/s: the tracked mark at (0.1, 0, 0) of the
   ball is at (1.5 - 0.1 sin 0.3, 0.1 cos 0.3, 0). The names are quoted ('free-ball'). */
static void test_wrench_free_body(void **state)
{
    (void)state;
    fmu_unit u;
    fmu_unit_open(&u, fmu_scratch(0, "free_body_inputs.xml", FREE_BODY), "free_body");
    const fmi *f = &u.f;
    fmu_vr(&u, "'free-ball'.q[6]", "output");
    fmu_vr(&u, "'free-ball'.tau[5]", "input");
    const char *in[6] = {"push.fx", "push.fy", "push.fz", "push.tx", "push.ty", "push.tz"};
    fmi2ValueReference w[6], mark[3];
    for (int k = 0; k < 6; ++k) w[k] = fmu_vr(&u, in[k], "input");
    mark[0] = fmu_vr(&u, "mark.x", "output"), mark[1] = fmu_vr(&u, "mark.y", "output"), mark[2] = fmu_vr(&u, "mark.z", "output");
    fmi2Component c = fmu_start(&u, "ball", 0.0, 0, 1e-3);
    double t = 0.0, p[3], got[6];
    const double push[6] = {2, 0, 0, 0, 0, 0}, turn[6] = {0, 0, 0, 0, 0, 0.3};
    assert_int_equal(f->get_real(c, mark, 3, p), fmi2OK);
    assert_true(fabs(p[0]) < 1e-15 && fabs(p[1] - 0.1) < 1e-15 && p[2] == 0.0);
    assert_int_equal(f->set_real(c, w, 6, push), fmi2OK);
    assert_int_equal(f->get_real(c, w, 6, got), fmi2OK);
    assert_memory_equal(got, push, sizeof push);
    run_for(f, c, &t, 0.01, 100); /* 10 internal steps each */
    assert_int_equal(f->get_real(c, mark, 3, p), fmi2OK);
    assert_true(fabs(p[0] - 0.5) < 1e-12 && fabs(p[1] - 0.1) < 1e-12 && fabs(p[2]) < 1e-12);
    assert_int_equal(f->set_real(c, w, 6, turn), fmi2OK);
    run_for(f, c, &t, 0.01, 100);
    assert_int_equal(f->get_real(c, mark, 3, p), fmi2OK);
    const double want[3] = {1.5 - 0.1 * sin(0.3), 0.1 * cos(0.3), 0.0};
    for (int k = 0; k < 3; ++k)
        if (fabs(p[k] - want[k]) > 1e-9) fail_msg("mark[%d] = %.15g, closed form %.15g", k, p[k], want[k]);
    f->free_instance(c);
    fmu_unit_close(&u);
}

#define LOOP_INPUT "  <input name=\"push\" link=\"rod3\" point=\"0 0.6062177826491071 0.35\"/>\n"

/* The tilted four-bar with a wrench input at the tip of rod3 (a force and a torque in world
   axes): 200 RK4 steps of 1 ms equal the library holding the same wrench with
   mbs_set_body_wrench bit for bit, and differ from the unpushed run. mbs-sim reads the same
   file (it ignores <input>). */
static void test_wrench_loop(void **state)
{
    (void)state;
    const char *path = with_elements(0, model_file(0, "MBS_MODELS", "planar_loop_tilted.xml"), LOOP_INPUT, "loop_input.xml");
    char err[SIM_MSG];
    mech *m = sim_model_open(path, err, sizeof err);
    assert_non_null(m);
    sim_model_free(m);
    fmu_unit u;
    fmu_unit_open(&u, path, "loop_input");
    const fmi *f = &u.f;
    const char *in[6] = {"push.fx", "push.fy", "push.fz", "push.tx", "push.ty", "push.tz"};
    const double wrench[6] = {3.0, 0.5, -1.0, 0.0, 0.2, 0.1}, point[3] = {0, 0.6062177826491071, 0.35};
    fmi2ValueReference w[6];
    for (int k = 0; k < 6; ++k) w[k] = fmu_vr(&u, in[k], "input");
    fmi2Component c = fmu_start(&u, "pushed", 0.0, 0, 1e-3), c0 = fmu_start(&u, "free", 0.0, 0, 1e-3);
    assert_int_equal(f->set_real(c, w, 6, wrench), fmi2OK);
    double t = 0.0, t0 = 0.0;
    run_for(f, c, &t, 1e-3, 200);
    run_for(f, c0, &t0, 1e-3, 200);
    lib_run r;
    const mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    lib_open(&r, path, &def);
    assert_int_equal(mbs_set_body_wrench(r.d, mbs_model_find_body(r.m, "rod3"), wrench, wrench + 3, point), MBS_OK);
    for (int k = 0; k < 200; ++k) assert_int_equal(mbs_stepper_step(r.s, 1e-3), MBS_OK);
    const char *joints[4] = {"rev1", "rev2", "rev3", "rev4"};
    for (int j = 0; j < 4; ++j) {
        char name[32];
        double q, v, q0;
        snprintf(name, sizeof name, "%s.q", joints[j]);
        fmi2ValueReference vq = fmu_vr(&u, name, "output");
        snprintf(name, sizeof name, "%s.v", joints[j]);
        fmi2ValueReference vv = fmu_vr(&u, name, "output");
        f->get_real(c, &vq, 1, &q), f->get_real(c, &vv, 1, &v), f->get_real(c0, &vq, 1, &q0);
        const double lq = lib_q(&r, joints[j]), lv = lib_v(&r, joints[j]);
        if (memcmp(&q, &lq, sizeof q) || memcmp(&v, &lv, sizeof v))
            fail_msg("%s: FMU q %.17g v %.17g, library %.17g %.17g", joints[j], q, v, lq, lv);
        if (j == 0) assert_true(fabs(q - q0) > 1e-4); /* the push moved the loop */
    }
    lib_close(&r);
    f->free_instance(c), f->free_instance(c0);
    fmu_unit_close(&u);
}

/* ---------------------------------------------------------------- CVODE */

/* mbs.use_cvode with tolerance 1e-8 from fmi2SetupExperiment: 50 communication steps of
   10 ms equal the library's CVODE Adams (rtol 1e-8, atol 1e-11) stepped to the same points bit
   for bit, and agree with the FMU's RK4 at 1 ms within 1e-6. */
static void test_cvode_option(void **state)
{
    (void)state;
    fmu_unit u;
    fmu_unit_open(&u, model_file(0, "MBS_MODELS", "double_pendulum.xml"), "cvode");
    const fmi *f = &u.f;
    fmi2Component cv = fmu_start(&u, "cv", 1e-8, 1, 0.0), rk = fmu_start(&u, "rk", 0.0, 0, 1e-3);
    fmi2ValueReference flag = fmu_vr(&u, "mbs.use_cvode", "parameter");
    fmi2Boolean on = fmi2False;
    assert_int_equal(f->get_boolean(cv, &flag, 1, &on), fmi2OK);
    assert_int_equal(on, fmi2True);
    double t = 0.0, t2 = 0.0;
    run_for(f, cv, &t, 0.01, 50);
    run_for(f, rk, &t2, 0.01, 50);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    def.rtol = 1e-8, def.atol = 1e-3 * 1e-8;
    lib_run r;
    lib_open(&r, model_file(0, "MBS_MODELS", "double_pendulum.xml"), &def);
    for (int k = 0; k < 50; ++k) assert_int_equal(mbs_stepper_step(r.s, 0.01), MBS_OK);
    const char *names[4] = {"revolute1.q", "revolute2.q", "revolute1.v", "revolute2.v"};
    for (int k = 0; k < 4; ++k) {
        fmi2ValueReference vr = fmu_vr(&u, names[k], "output");
        double a, b;
        f->get_real(cv, &vr, 1, &a), f->get_real(rk, &vr, 1, &b);
        char joint[16];
        snprintf(joint, sizeof joint, "%.9s", names[k]);
        const double l = k < 2 ? lib_q(&r, joint) : lib_v(&r, joint);
        if (memcmp(&a, &l, sizeof a)) fail_msg("%s: FMU CVODE %.17g, library %.17g", names[k], a, l);
        if (fabs(a - b) > 1e-6) fail_msg("%s: CVODE %.12g, RK4 %.12g", names[k], a, b);
    }
    lib_close(&r);
    f->free_instance(cv), f->free_instance(rk);
    fmu_unit_close(&u);
}

/* ---------------------------------------------------------------- two instances */

/* The URDF double pendulum: two instances with different joint forces stepped side by side
   (200 communication steps of 1 ms, the internal step) end bit for bit where the library
   stepping the same file ends. */
static void test_importer_run(void **state)
{
    (void)state;
    const char *path = model_file(0, "MBS_TEST_DATA", "fmu_double_pendulum.urdf");
    fmu_unit u;
    fmu_unit_open(&u, path, "fmu_double_pendulum");
    const fmi *f = &u.f;
    const fmi2ValueReference tau[2] = {fmu_vr(&u, "shoulder.tau", "input"), fmu_vr(&u, "elbow.tau", "input")};
    const fmi2ValueReference q[2] = {fmu_vr(&u, "shoulder.q", "output"), fmu_vr(&u, "elbow.q", "output")};
    const fmi2ValueReference v[2] = {fmu_vr(&u, "shoulder.v", "output"), fmu_vr(&u, "elbow.v", "output")};
    const double tau_ab[2][2] = {{0.5, -0.2}, {-1.0, 0.3}};
    fmi2Component c[2] = {fmu_start(&u, "a", 0.0, 0, 0.0), fmu_start(&u, "b", 0.0, 0, 0.0)};
    for (int i = 0; i < 2; ++i) assert_int_equal(f->set_real(c[i], tau, 2, tau_ab[i]), fmi2OK);
    double t = 0.0;
    for (int k = 0; k < 200; ++k, t += 1e-3)
        for (int i = 0; i < 2; ++i) assert_int_equal(f->do_step(c[i], t, 1e-3, fmi2True), fmi2OK);
    double qa[2];
    for (int i = 0; i < 2; ++i) {
        double fq[2], fv[2];
        f->get_real(c[i], q, 2, fq), f->get_real(c[i], v, 2, fv);
        lib_run r;
        const mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        lib_open(&r, path, &def);
        mbs_data_tau(r.d)[mbs_model_joint_vadr(r.m, mbs_model_find_joint(r.m, "shoulder"))] = tau_ab[i][0];
        mbs_data_tau(r.d)[mbs_model_joint_vadr(r.m, mbs_model_find_joint(r.m, "elbow"))] = tau_ab[i][1];
        for (int k = 0; k < 200; ++k) assert_int_equal(mbs_stepper_step(r.s, 1e-3), MBS_OK);
        const double lq[2] = {lib_q(&r, "shoulder"), lib_q(&r, "elbow")}, lv[2] = {lib_v(&r, "shoulder"), lib_v(&r, "elbow")};
        assert_memory_equal(fq, lq, sizeof fq);
        assert_memory_equal(fv, lv, sizeof fv);
        if (i == 0) qa[0] = fq[0];
        else assert_true(fabs(qa[0] - fq[0]) > 1e-3); /* different inputs, different motion */
        lib_close(&r);
    }
    assert_int_equal(f->terminate(c[0]), fmi2OK);
    f->free_instance(c[0]), f->free_instance(c[1]);
    fmu_unit_close(&u);
}

int main(void)
{
    if (!getenv("MBS_FMU") || !getenv("MBS_FMU_RUNTIME") || !getenv("MBS_TEST_DATA") || !getenv("MBS_MODELS")) {
        printf("test_fmu: MBS_FMU, MBS_FMU_RUNTIME, MBS_TEST_DATA and MBS_MODELS must be set (meson does)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_description),
        cmocka_unit_test(test_importer_run),
        cmocka_unit_test(test_matches_mbs_sim),
        cmocka_unit_test(test_wrench_free_body),
        cmocka_unit_test(test_wrench_loop),
        cmocka_unit_test(test_cvode_option),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    fmu_scratch_clean();
    return failed;
}
