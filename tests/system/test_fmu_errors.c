/* The mbs FMU refusing what an importer or a model file gets wrong (fmu_harness.h): calls in
 * the wrong state, NaN, infinite and other bad values (nothing written, the instance still
 * usable), a DoStep that fails (fmi2Discard with time, state and outputs bitwise as before,
 * and the run then going on as if the step had never been tried), fmi2Reset, and model files
 * whose <input> or <track> elements mbs-fmu refuses with file, line and element.
 * Env: MBS_FMU, MBS_FMU_RUNTIME, MBS_MODELS (set by meson). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fmu_harness.h"

static fmu_unit pend, loop; /* double_pendulum.xml; the tilted four-bar with a wrench input */

/* The FMUs every test uses: packed once. */
static int pack_all(void **state)
{
    (void)state;
    char path[512], text[65536];
    snprintf(path, sizeof path, "%s/double_pendulum.xml", getenv("MBS_MODELS"));
    fmu_unit_open(&pend, path, "double_pendulum");
    snprintf(path, sizeof path, "%s/planar_loop_tilted.xml", getenv("MBS_MODELS"));
    char *model = fmu_slurp(path, NULL);
    char *end = strstr(model, "</robot>");
    snprintf(text, sizeof text, "%.*s  <input name=\"push\" link=\"rod3\" point=\"0 0.6 0.35\"/>\n%s",
             (int)(end - model), model, end);
    free(model);
    fmu_unit_open(&loop, fmu_scratch(0, "loop_input.xml", text), "loop_input");
    return 0;
}

static int unpack_all(void **state)
{
    (void)state;
    fmu_unit_close(&pend);
    fmu_unit_close(&loop);
    fmu_scratch_clean();
    return 0;
}

/* The status of a call is fmi2Error and the logger got a message containing part. */
#define REFUSED(call, part)                                                                        \
    do {                                                                                           \
        const int before_ = fmu_log_count;                                                         \
        assert_int_equal((call), fmi2Error);                                                       \
        assert_int_equal(fmu_log_count, before_ + 1);                                              \
        if (!strstr(fmu_log_last, (part))) fail_msg("message '%s' lacks '%s'", fmu_log_last, (part)); \
    } while (0)

/* Every call made out of its state (FMI 2.0 §4.2.4) is refused with a message, and the
   instance then runs on normally; fmi2Reset goes back to the instantiated state, after which
   a run equals a fresh instance's bit for bit. */
static void test_wrong_state(void **state)
{
    (void)state;
    const fmi *f = &pend.f;
    const fmi2ValueReference q = fmu_vr(&pend, "revolute1.q", "output"), tau = fmu_vr(&pend, "revolute1.tau", "input"),
                             ss = fmu_vr(&pend, "mbs.step_size", "parameter"), cv = fmu_vr(&pend, "mbs.use_cvode", "parameter");
    const double one = 1.0, dt = 1e-3;
    const fmi2Boolean on = fmi2True;
    double x;
    fmi2Component c = f->instantiate("s", fmi2CoSimulation, pend.guid, pend.resources, &fmu_callbacks, 0, 0);
    assert_non_null(c);
    REFUSED(f->do_step(c, 0.0, 0.01, fmi2True), "fmi2DoStep: not allowed in this state");
    REFUSED(f->exit_init(c), "fmi2ExitInitializationMode: not allowed");
    REFUSED(f->terminate(c), "fmi2Terminate: not allowed");
    REFUSED(f->get_real(c, &q, 1, &x), "fmi2GetReal: not allowed before fmi2EnterInitializationMode");
    assert_int_equal(f->setup(c, 0, 0.0, 0.0, 0, 0.0), fmi2OK);
    assert_int_equal(f->enter_init(c), fmi2OK);
    REFUSED(f->enter_init(c), "fmi2EnterInitializationMode: not allowed");
    REFUSED(f->setup(c, 0, 0.0, 0.0, 0, 0.0), "fmi2SetupExperiment: not allowed");
    REFUSED(f->do_step(c, 0.0, 0.01, fmi2True), "fmi2DoStep: not allowed");
    REFUSED(f->set_real(c, &q, 1, &one), "revolute1.q is not an input");
    assert_int_equal(f->exit_init(c), fmi2OK);
    REFUSED(f->exit_init(c), "fmi2ExitInitializationMode: not allowed");
    REFUSED(f->set_real(c, &ss, 1, &dt), "mbs.step_size is fixed after initialization");
    REFUSED(f->set_boolean(c, &cv, 1, &on), "mbs.use_cvode is fixed after initialization");
    assert_int_equal(f->set_real(c, &tau, 1, &one), fmi2OK);
    assert_int_equal(f->do_step(c, 0.0, 0.01, fmi2True), fmi2OK);
    double q_first;
    assert_int_equal(f->get_real(c, &q, 1, &q_first), fmi2OK);
    assert_int_equal(f->terminate(c), fmi2OK);
    REFUSED(f->do_step(c, 0.01, 0.01, fmi2True), "fmi2DoStep: not allowed");
    REFUSED(f->set_real(c, &tau, 1, &one), "the FMU is terminated");
    REFUSED(f->terminate(c), "fmi2Terminate: not allowed");
    assert_int_equal(f->get_real(c, &q, 1, &x), fmi2OK); /* reading a terminated FMU is allowed */
    assert_true(x == q_first);
    assert_int_equal(f->reset(c), fmi2OK); /* back to instantiated: the same run again */
    REFUSED(f->do_step(c, 0.0, 0.01, fmi2True), "fmi2DoStep: not allowed");
    assert_int_equal(f->setup(c, 0, 0.0, 0.0, 0, 0.0), fmi2OK);
    assert_int_equal(f->enter_init(c), fmi2OK);
    assert_int_equal(f->get_real(c, &tau, 1, &x), fmi2OK);
    assert_true(x == 0.0); /* inputs back at their start value */
    assert_int_equal(f->exit_init(c), fmi2OK);
    assert_int_equal(f->set_real(c, &tau, 1, &one), fmi2OK);
    assert_int_equal(f->do_step(c, 0.0, 0.01, fmi2True), fmi2OK);
    assert_int_equal(f->get_real(c, &q, 1, &x), fmi2OK);
    assert_memory_equal(&x, &q_first, sizeof x);
    f->free_instance(c);
}

/* NaN, infinite, non-positive and unknown: refused, nothing written (a vector with one bad
   value writes none of it), the instance goes on. Instantiation with a wrong GUID, a model
   exchange request or no resources gives NULL with a message. */
static void test_bad_values(void **state)
{
    (void)state;
    const fmi *f = &loop.f;
    fmu_log_count = 0;
    assert_null(f->instantiate("x", fmi2CoSimulation, "{bad}", loop.resources, &fmu_callbacks, 0, 0));
    assert_true(strstr(fmu_log_last, "GUID {bad} does not match") != NULL);
    assert_null(f->instantiate("x", fmi2ModelExchange, loop.guid, loop.resources, &fmu_callbacks, 0, 0));
    assert_true(strstr(fmu_log_last, "co-simulation only") != NULL);
    assert_null(f->instantiate("x", fmi2CoSimulation, loop.guid, NULL, &fmu_callbacks, 0, 0));
    assert_null(f->instantiate("x", fmi2CoSimulation, loop.guid, "file:///nonexistent", &fmu_callbacks, 0, 0));
    assert_int_equal(fmu_log_count, 4);
    char dir[] = "/tmp/mbs_fmu_fifo_XXXXXX", fifo[64], uri[80]; /* it blocked for ever */
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/model.urdf", dir);
    snprintf(uri, sizeof uri, "file://%s", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_null(f->instantiate("x", fmi2CoSimulation, loop.guid, uri, &fmu_callbacks, 0, 0));
    assert_true(strstr(fmu_log_last, "no model.urdf or model.xml") != NULL);
    remove(fifo), rmdir(dir);
    fmu_log_count = 4;
    fmi2Component c = f->instantiate("v", fmi2CoSimulation, loop.guid, loop.resources, &fmu_callbacks, 0, 0);
    const fmi2ValueReference ss = fmu_vr(&loop, "mbs.step_size", "parameter"), fx = fmu_vr(&loop, "push.fx", "input"),
                             tz = fmu_vr(&loop, "push.tz", "input"), tau = fmu_vr(&loop, "rev1.tau", "input"),
                             cv = fmu_vr(&loop, "mbs.use_cvode", "parameter");
    const double bad_step[3] = {NAN, 0.0, -1e-3};
    for (int k = 0; k < 3; ++k) REFUSED(f->set_real(c, &ss, 1, &bad_step[k]), "mbs.step_size");
    assert_int_equal(f->setup(c, 0, 0.0, 0.0, 0, 0.0), fmi2OK);
    assert_int_equal(f->enter_init(c), fmi2OK);
    assert_int_equal(f->exit_init(c), fmi2OK);
    const double good[2] = {1.0, 2.0}, bad[3] = {NAN, INFINITY, -INFINITY};
    const fmi2ValueReference pair[2] = {fx, tz};
    assert_int_equal(f->set_real(c, pair, 2, good), fmi2OK);
    for (int k = 0; k < 3; ++k) {
        const double mixed[2] = {5.0, bad[k]};
        REFUSED(f->set_real(c, pair, 2, mixed), "push.tz");
        REFUSED(f->set_real(c, &tau, 1, &bad[k]), "rev1.tau");
    }
    double got[2], x;
    assert_int_equal(f->get_real(c, pair, 2, got), fmi2OK);
    assert_memory_equal(got, good, sizeof good); /* push.fx kept 1, not 5 */
    assert_int_equal(f->get_real(c, &tau, 1, &x), fmi2OK);
    assert_true(x == 0.0);
    const fmi2ValueReference unknown = (fmi2ValueReference)loop.nvar;
    REFUSED(f->get_real(c, &unknown, 1, &x), "no variable with value reference");
    REFUSED(f->set_real(c, &unknown, 1, &x), "no variable with value reference");
    REFUSED(f->get_real(c, &cv, 1, &x), "mbs.use_cvode is a Boolean");
    REFUSED(f->do_step(c, NAN, 0.01, fmi2True), "fmi2DoStep");
    REFUSED(f->do_step(c, 0.0, NAN, fmi2True), "fmi2DoStep");
    REFUSED(f->do_step(c, 0.0, 0.0, fmi2True), "fmi2DoStep");
    REFUSED(f->do_step(c, 0.0, INFINITY, fmi2True), "fmi2DoStep");
    REFUSED(f->do_step(c, 0.5, 0.01, fmi2True), "but the FMU is at 0");
    /* h / step_size beyond 2^63 ran no step and answered fmi2OK with the time moved; 10^9
       steps in one call had no bound: both refused, the instance still at 0 and usable */
    REFUSED(f->do_step(c, 0.0, 1e17, fmi2True), "internal steps, beyond the bound of 10000000");
    REFUSED(f->do_step(c, 0.0, 1e6, fmi2True), "1e+09 internal steps");
    /* t inside the tolerance before the FMU's time and h shorter than the gap answered fmi2OK
       and set the time back to t + h = -4e-10 (found by tests/fuzz/fuzz_fmu.c) */
    REFUSED(f->do_step(c, -5e-10, 1e-10, fmi2True), "the time would go backwards");
    assert_int_equal(f->real_status(c, fmi2LastSuccessfulTime, &x), fmi2OK);
    assert_true(x == 0.0);
    assert_int_equal(f->do_step(c, 0.0, 0.01, fmi2True), fmi2OK);
    f->free_instance(c);
    c = f->instantiate("tiny", fmi2CoSimulation, loop.guid, loop.resources, &fmu_callbacks, 0, 0);
    const double tiny = 1e-300;
    assert_int_equal(f->set_real(c, &ss, 1, &tiny), fmi2OK);
    assert_int_equal(f->setup(c, 0, 0.0, 1e17, 0, 0.0), fmi2OK);
    assert_int_equal(f->enter_init(c), fmi2OK);
    assert_int_equal(f->exit_init(c), fmi2OK);
    REFUSED(f->do_step(c, 1e17, 1.0, fmi2True), "below the rounding of t"); /* 1e17 + 1 == 1e17 */
    REFUSED(f->do_step(c, 1e17, 100.0, fmi2True), "beyond the bound"); /* 1e302 steps */
    f->free_instance(c);
}

/* Every output (q, v, tracked points) and the time, bitwise. */
static void snapshot(const fmu_unit *u, fmi2Component c, double *out)
{
    for (fmi2ValueReference vr = 0; vr < (fmi2ValueReference)u->nvar; ++vr)
        if (!strcmp(u->causality[vr], "output")) assert_int_equal(u->f.get_real(c, &vr, 1, out++), fmi2OK);
    assert_int_equal(u->f.real_status(c, fmi2LastSuccessfulTime, out), fmi2OK);
}

/* A DoStep the library cannot finish (an input of 1e20 makes the pendulum's state overflow
   in the second of the 100 internal steps of a 0.1 s communication step, the loop's closure
   fail in the first) answers fmi2Discard with time,
   every output and the state as they were, bit for bit (on the loop 1e7 too: its closure
   fails some 30 internal steps in, so the FMU puts back what the steps before changed,
   the loop solver's state included). With the input put back the run goes
   on as an instance's that never tried the step, bit for bit: on the pendulum (a joint
   force) and on the loop (a wrench input), whose loop solver state (selection, partition,
   last closed state, reused factorisation) is put back with the rest (docs/fmu.md). */
static void test_rejected_step(void **state)
{
    (void)state;
    const struct { fmu_unit *u; const char *input; double huge; } cases[3] = {
        {&pend, "revolute1.tau", 1e20}, {&loop, "push.fx", 1e20}, {&loop, "push.fx", 1e7}};
    for (int i = 0; i < 3; ++i) {
        const fmu_unit *u = cases[i].u;
        const fmi *f = &u->f;
        const fmi2ValueReference in = fmu_vr(u, cases[i].input, "input");
        fmi2Component c = fmu_start(u, "tried", 0.0, 0, 1e-3), ref = fmu_start(u, "ref", 0.0, 0, 1e-3);
        double t = 0.0, before[64] = {0}, after[64] = {0}, other[64] = {0};
        const double huge = cases[i].huge, small = 0.5;
        for (int k = 0; k < 20; ++k, t += 0.01) {
            assert_int_equal(f->do_step(c, t, 0.01, fmi2True), fmi2OK);
            assert_int_equal(f->do_step(ref, t, 0.01, fmi2True), fmi2OK);
        }
        assert_int_equal(f->set_real(c, &in, 1, &small), fmi2OK);
        assert_int_equal(f->set_real(ref, &in, 1, &small), fmi2OK);
        snapshot(u, c, before);
        assert_int_equal(f->set_real(c, &in, 1, &huge), fmi2OK);
        const int before_log = fmu_log_count;
        assert_int_equal(f->do_step(c, t, 0.1, fmi2True), fmi2Discard); /* fails after some of its 100 steps */
        assert_true(fmu_log_count == before_log + 1 && strstr(fmu_log_last, "state kept"));
        snapshot(u, c, after);
        assert_memory_equal(before, after, sizeof before);
        assert_int_equal(f->set_real(c, &in, 1, &small), fmi2OK);
        for (int k = 0; k < 20; ++k, t += 0.01) {
            assert_int_equal(f->do_step(c, t, 0.01, fmi2True), fmi2OK);
            assert_int_equal(f->do_step(ref, t, 0.01, fmi2True), fmi2OK);
        }
        snapshot(u, c, after);
        snapshot(u, ref, other);
        for (int k = 0; k < 64; ++k) /* bitwise, the loop too (see above) */
            if (memcmp(&after[k], &other[k], sizeof(double)) != 0)
                fail_msg("%s: output %d is %.17g, the untried run %.17g", u->ident, k, after[k], other[k]);
        f->free_instance(c), f->free_instance(ref);
    }
}

#define BOB_FILE(extra)                                                                            \
    "<?xml version=\"1.0\"?>\n<robot name=\"p\">\n  <link name=\"world\"/>\n"                      \
    "  <link name=\"bob\"><inertial><mass value=\"1\"/>"                                          \
    "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"    \
    "  <joint name=\"rev\" type=\"revolute\"><parent link=\"world\"/><child link=\"bob\"/>"        \
    "<axis xyz=\"0 0 1\"/></joint>\n  " extra "\n</robot>\n"

/* An instance of the pendulum FMU whose internal RK4 steps are bounded by mbs.max_work. */
static fmi2Component start_bounded(const char *name, fmi2Integer max_work)
{
    const fmi *f = &pend.f;
    const fmi2ValueReference mw = fmu_vr(&pend, "mbs.max_work", "parameter");
    fmi2Component c = f->instantiate(name, fmi2CoSimulation, pend.guid, pend.resources, &fmu_callbacks, 0, 0);
    assert_non_null(c);
    assert_int_equal(f->setup(c, 0, 0.0, 0.0, 0, 0.0), fmi2OK);
    assert_int_equal(f->enter_init(c), fmi2OK);
    assert_int_equal(f->set_integer(c, &mw, 1, &max_work), fmi2OK);
    assert_int_equal(f->exit_init(c), fmi2OK);
    return c;
}

/* mbs.max_work bounds every internal step of a DoStep (the library's mbs_stepper_def.max_work):
   the pendulum's RK4 step takes 4 evaluations, so a bound of 4 runs bitwise as unbounded and
   a bound of 3 answers fmi2Discard with time and outputs bitwise as before; bad values and
   a change after initialization are refused. */
static void test_max_work(void **state)
{
    (void)state;
    const fmi *f = &pend.f;
    const fmi2ValueReference mw = fmu_vr(&pend, "mbs.max_work", "parameter");
    fmi2Component ref = fmu_start(&pend, "ref", 0.0, 0, 1e-3), at = start_bounded("at", 4),
                  below = start_bounded("below", 3);
    double a[64] = {0}, b[64] = {0}, x;
    double t = 0.0;
    for (int k = 0; k < 20; ++k, t += 0.01) {
        assert_int_equal(f->do_step(ref, t, 0.01, fmi2True), fmi2OK);
        assert_int_equal(f->do_step(at, t, 0.01, fmi2True), fmi2OK);
    }
    snapshot(&pend, ref, a);
    snapshot(&pend, at, b);
    assert_memory_equal(a, b, sizeof a);
    fmi2Integer got = -1;
    assert_int_equal(f->get_integer(at, &mw, 1, &got), fmi2OK);
    assert_int_equal(got, 4);
    snapshot(&pend, below, a);
    const int before_log = fmu_log_count;
    assert_int_equal(f->do_step(below, 0.0, 0.01, fmi2True), fmi2Discard);
    assert_true(fmu_log_count == before_log + 1 && strstr(fmu_log_last, "max_work = 3"));
    snapshot(&pend, below, b);
    assert_memory_equal(a, b, sizeof a);
    const fmi2Integer neg = -1, four = 4;
    REFUSED(f->set_integer(at, &mw, 1, &four), "mbs.max_work is fixed after initialization");
    REFUSED(f->get_real(at, &mw, 1, &x), "mbs.max_work is an Integer");
    f->free_instance(ref), f->free_instance(at), f->free_instance(below);
    fmi2Component c = f->instantiate("neg", fmi2CoSimulation, pend.guid, pend.resources, &fmu_callbacks, 0, 0);
    REFUSED(f->set_integer(c, &mw, 1, &neg), "mbs.max_work = -1 is not valid");
    f->free_instance(c);
}

/* mbs-fmu refuses a file whose tool elements are wrong: exit status 1, the message naming
   the file, the line and the element; nothing is written. */
static void test_pack_errors(void **state)
{
    (void)state;
    static const struct { const char *text, *why; } cases[] = {
        {BOB_FILE("<input name=\"a\" link=\"nope\"/>"), ": line 6: <input> \"a\": link \"nope\" is not in the model"},
        {BOB_FILE("<input name=\"a\" link=\"world\"/>"), "link \"world\" is the world"},
        {BOB_FILE("<input name=\"a\" link=\"bob\"/><input name=\"b\" link=\"bob\"/>"), "link \"bob\" already takes input \"a\" (one input per link)"},
        {BOB_FILE("<input name=\"a\" link=\"bob\"/>\n  <input name=\"a\" link=\"bob\"/>"), ":7: <input>: name=\"a\" is given twice (also on line 6)"},
        {BOB_FILE("<input link=\"bob\"/>"), ":6: <input>: attribute name is missing"},
        {BOB_FILE("<input name=\"a b\" link=\"bob\"/>"), "no commas, spaces or quotes"},
        {BOB_FILE("<input name=\"a\"/>"), "attribute link is missing"},
        {BOB_FILE("<input name=\"a\" link=\"bob\" point=\"1 2\"/>"), "point=\"1 2\": expected 3 finite numbers"},
        {BOB_FILE("<input name=\"a\" link=\"bob\" point=\"1 nan 2\"/>"), "expected 3 finite numbers"},
        {BOB_FILE("<track label=\"t\" link=\"nope\"/>"), "<track> \"t\": link \"nope\" is not in the model"},
        {BOB_FILE("<track label=\"t\" link=\"bob\"/><track label=\"t\" link=\"bob\"/>"), "label=\"t\" is given twice"},
        {BOB_FILE("<inputs name=\"a\" link=\"bob\"/>"), "unknown element"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const char *path = fmu_scratch(1, "bad.xml", cases[k].text);
        char cmd[1024], out[256], errfile[256];
        snprintf(out, sizeof out, "%s.fmu", path);
        snprintf(errfile, sizeof errfile, "%s.err", path);
        remove(out);
        snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --runtime '%s' 2> '%s' > /dev/null", getenv("MBS_FMU"), path,
                 out, getenv("MBS_FMU_RUNTIME"), errfile);
        const int st = system(cmd);
        char *msg = fmu_slurp(errfile, NULL);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !strstr(msg, cases[k].why) || !strstr(msg, path))
            fail_msg("case %zu: status %d, message '%s' (expected '%s')", k, st, msg, cases[k].why);
        free(msg);
        FILE *f = fopen(out, "rb");
        assert_null(f); /* no FMU left behind */
    }
}

/* fmi2Instantiate's resource location as RFC 3986 and FMI 2.0 section 2.1.3 define it: an
   escaped space, the host localhost, file:/path, a trailing slash and the scheme in capitals
   are read; another host, a bad escape and another scheme are refused with a message. */
static void test_resource_uris(void **state)
{
    (void)state;
    const fmi *f = &pend.f;
    char link[128], uri[512];
    snprintf(link, sizeof link, "%s/res dir", pend.dir);
    assert_int_equal(symlink("resources", link), 0);
    const char *const good[] = {"file://%s/res%%20dir", "FILE://localhost%s/res%%20dir/",
                                "file://LocalHost%s/resources", "file:%s/resources/",
                                "file://%s/res%%20d%%69r?query#fragment", "%s/res dir"};
    for (size_t k = 0; k < sizeof good / sizeof good[0]; ++k) {
        snprintf(uri, sizeof uri, good[k], pend.dir);
        fmi2Component c = f->instantiate("u", fmi2CoSimulation, pend.guid, uri, &fmu_callbacks, 0, 0);
        if (!c) fail_msg("%s refused: %s", uri, fmu_log_last);
        f->free_instance(c);
    }
    const char *const bad[][2] = {{"file://otherhost%s/resources", "host \"otherhost\" is not this machine"},
                                  {"file://%s/res%%2", "bad percent-escape"},
                                  {"file://%s/res%%00dir", "%00 in the path"},
                                  {"http://localhost%s/resources", "only file: URIs"},
                                  {"file:res%s", "not an absolute path"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        snprintf(uri, sizeof uri, bad[k][0], pend.dir);
        assert_null(f->instantiate("u", fmi2CoSimulation, pend.guid, uri, &fmu_callbacks, 0, 0));
        if (!strstr(fmu_log_last, bad[k][1])) fail_msg("%s: \"%s\"", uri, fmu_log_last);
    }
    unlink(link);
}

/* Runs cmd (stderr into a scratch file); the exit status, the message in msg (caller frees). */
static int run_cmd(const char *cmd, char **msg)
{
    char full[4096];
    const char *err = fmu_scratch(2, "cmd.err", "");
    snprintf(full, sizeof full, "%s 2> '%s' > /dev/null", cmd, err);
    const int st = system(full);
    *msg = fmu_slurp(err, NULL);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* mbs-fmu run from the build tree finds the runtime beside itself (no MBS_FMU_RUNTIME); a
   copy elsewhere names the places it looked; a missing runtime or model file is named with
   the system's reason; --help exits 0. */
static void test_runtime_lookup(void **state)
{
    (void)state;
    char cmd[3000], model[512], out[512], copy[512];
    char *msg;
    snprintf(model, sizeof model, "%s/double_pendulum.xml", getenv("MBS_MODELS"));
    snprintf(out, sizeof out, "%s/lookup.fmu", pend.dir);
    snprintf(cmd, sizeof cmd, "env -u MBS_FMU_RUNTIME '%s' '%s' -o '%s'", getenv("MBS_FMU"), model, out);
    if (run_cmd(cmd, &msg) != 0) fail_msg("from the build tree: %s", msg);
    free(msg);
    snprintf(copy, sizeof copy, "%s/mbs-fmu", pend.dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && env -u MBS_FMU_RUNTIME '%s' '%s' -o '%s'", getenv("MBS_FMU"),
             copy, copy, model, out);
    assert_int_equal(run_cmd(cmd, &msg), 1);
    if (!strstr(msg, "the FMU runtime libmbs_fmi2.so is not in ") || !strstr(msg, pend.dir)) fail_msg("%s", msg);
    free(msg);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --runtime '%s/none.so'", getenv("MBS_FMU"), model, out, pend.dir);
    assert_int_equal(run_cmd(cmd, &msg), 1);
    if (!strstr(msg, "none.so: No such file or directory")) fail_msg("%s", msg);
    free(msg);
    snprintf(cmd, sizeof cmd, "'%s' '%s/none.xml' -o '%s'", getenv("MBS_FMU"), pend.dir, out);
    assert_int_equal(run_cmd(cmd, &msg), 1);
    if (!strstr(msg, "none.xml: No such file or directory")) fail_msg("%s", msg);
    free(msg);
    snprintf(cmd, sizeof cmd, "'%s' --help", getenv("MBS_FMU"));
    assert_int_equal(run_cmd(cmd, &msg), 0);
    free(msg);
}

int main(void)
{
    if (!getenv("MBS_FMU") || !getenv("MBS_FMU_RUNTIME") || !getenv("MBS_MODELS")) {
        printf("test_fmu_errors: MBS_FMU, MBS_FMU_RUNTIME and MBS_MODELS must be set (meson does)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrong_state),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_rejected_step),
        cmocka_unit_test(test_max_work),
        cmocka_unit_test(test_pack_errors),
        cmocka_unit_test(test_resource_uris),
        cmocka_unit_test(test_runtime_lookup),
    };
    return cmocka_run_group_tests(tests, pack_all, unpack_all);
}
