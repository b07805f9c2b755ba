/* libFuzzer harness: FMI 2.0 co-simulation call sequences on the mbs FMU runtime
 * (tools/fmu/, linked in). At start-up two unpacked FMUs are written to a temporary folder
 * (resources/model.xml with the GUID the packer gives it): models/double_pendulum.xml and
 * models/planar_loop_tilted.xml, each with a wrench <input>. The input bytes are a sequence
 * of calls in any order: Instantiate (valid and refused variants), SetupExperiment,
 * Enter/ExitInitializationMode, SetReal/GetReal/SetBoolean with value references valid and
 * not, DoStep with t and h from the input (0, negative, tiny, huge, NaN), CancelStep, Reset,
 * Terminate, FreeInstance, the status queries and the calls the FMU does not offer; a call
 * after FreeInstance is skipped (undefined in FMI). The contract: a valid fmi2Status from
 * every call, a refusal logged with a message, after an fmi2OK DoStep a finite time equal to
 * t + h and later than before and finite outputs, and a refused call leaving time and every
 * GetReal value bitwise as before. Each input's internal steps are bounded. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fmu_guid.h"
#include "fmu_instance.h"

#define FZ_MODELS 2
#define FZ_MAX_VARS 64
#define FZ_STEP_BUDGET 100.0 /* internal steps per input: some 0.35 ms each on the loop */
#define FZ_CVODE_STEP 0.01   /* what a CVODE DoStep costs: h / FZ_CVODE_STEP internal steps */

typedef struct fz_fmu_model {
    char resources[600], guid[64];
    fmu_vars vars; /* the table the runtime builds from the same file */
    mbs_model *m;
    fmi2ValueReference step_size, use_cvode;
} fz_fmu_model;

static fz_fmu_model models[FZ_MODELS];
static char root[64];
static int log_count;

/* Every message: a valid status and non-empty text (formatted here, so a bad format shows). */
static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st,
                   fmi2String cat, fmi2String msg, ...)
{
    char text[1024];
    va_list ap;
    (void)env, (void)name;
    va_start(ap, msg);
    vsnprintf(text, sizeof text, msg, ap);
    va_end(ap);
    fz_require(st >= fmi2OK && st <= fmi2Fatal && cat && *cat, "logger", "status or category");
    fz_require(text[0] != '\0', "logger", "empty message");
    log_count++;
}
static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

static void cleanup(void)
{
    char cmd[128];
    for (int k = 0; k < FZ_MODELS; ++k) fmu_vars_free(&models[k].vars), mbs_model_destroy(models[k].m);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (root[0] && system(cmd) != 0) fprintf(stderr, "fuzz_fmu: cannot remove %s\n", root);
}

/* <name>/resources/model.xml: the model file with one line added before </robot>. */
static void write_fmu(fz_fmu_model *fm, const char *name, const char *file, const char *extra)
{
    char path[512], text[65536], why[512];
    const char *dir = getenv("MBS_MODELS") ? getenv("MBS_MODELS") : "models";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *in = fopen(path, "rb");
    fz_require(in != NULL, "start-up", path);
    const size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    char *end = strstr(text, "</robot>");
    fz_require(end != NULL, "start-up", "no </robot>");
    snprintf(path, sizeof path, "mkdir -p '%s/%s/resources'", root, name);
    fz_require(system(path) == 0, "start-up", path);
    snprintf(path, sizeof path, "%s/%s/resources/model.xml", root, name);
    FILE *out = fopen(path, "wb");
    fz_require(out != NULL, "start-up", path);
    fprintf(out, "%.*s%s\n%s", (int)(end - text), text, extra, end);
    fclose(out);
    fz_require(fmu_guid_of_file(path, fm->guid, sizeof fm->guid) == 0, "start-up", "guid");
    fz_require(fmu_model_load(path, &fm->m, &fm->vars, why, sizeof why) == 0, "start-up", why);
    snprintf(fm->resources, sizeof fm->resources, "file://%s/%s/resources", root, name);
    fz_require(fm->vars.n <= FZ_MAX_VARS, "start-up", "too many variables");
    for (int i = 0; i < fm->vars.n; ++i) {
        if (fm->vars.v[i].kind == FMU_STEP_SIZE) fm->step_size = (fmi2ValueReference)i;
        if (fm->vars.v[i].kind == FMU_USE_CVODE) fm->use_cvode = (fmi2ValueReference)i;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(root, sizeof root, "/tmp/mbs_fuzz_fmu_XXXXXX");
    fz_require(mkdtemp(root) != NULL, "start-up", "mkdtemp");
    atexit(cleanup);
    write_fmu(&models[0], "pendulum", "double_pendulum.xml",
              "  <input name=\"push\" link=\"link2\" point=\"0.5 0 0\"/>");
    write_fmu(&models[1], "loop", "planar_loop_tilted.xml",
              "  <input name=\"push\" link=\"rod3\" point=\"0 0.6062177826491071 0.35\"/>");
    return 0;
}

/* The session of one input: the instance (NULL: none), its model and the steps spent. */
typedef struct session {
    fz f;
    fmi2Component c;
    const fz_fmu_model *fm;
    double steps;
} session;

/* What a refused call must leave as it was: time and every Real variable (status and value). */
typedef struct snapshot {
    double t, x[FZ_MAX_VARS];
    int st[FZ_MAX_VARS];
} snapshot;

static void take(const session *s, snapshot *p)
{
    memset(p, 0, sizeof *p);
    fz_require(fmi2GetRealStatus(s->c, fmi2LastSuccessfulTime, &p->t) == fmi2OK, "GetRealStatus", "time");
    for (int i = 0; i < s->fm->vars.n; ++i) {
        const fmi2ValueReference vr = (fmi2ValueReference)i;
        p->st[i] = i == (int)s->fm->use_cvode ? -1 : (int)fmi2GetReal(s->c, &vr, 1, &p->x[i]);
    }
}

/* A status is one a synchronous co-simulation call may answer; a refusal has a message. */
static void check_status(int st, int logs_before, const char *call)
{
    fz_require(st >= fmi2OK && st <= fmi2Fatal, call, "not an fmi2Status");
    if (st != fmi2OK && st != fmi2Warning) fz_require(log_count > logs_before, call, "refused without a message");
}

/* After a refused call the snapshot is unchanged, bit for bit. */
static void check_kept(const session *s, const snapshot *before, const char *call)
{
    snapshot after;
    take(s, &after);
    fz_require(!memcmp(&before->t, &after.t, sizeof after.t), call, "refused but time changed");
    for (int i = 0; i < s->fm->vars.n; ++i)
        fz_require(before->st[i] == after.st[i] && !memcmp(&before->x[i], &after.x[i], sizeof after.x[i]),
                   call, s->fm->vars.v[i].name);
}

/* A value reference: mostly a variable of the model, sometimes one past the end or huge. */
static fmi2ValueReference any_vr(session *s)
{
    const unsigned k = fz_byte(&s->f);
    if (k < 230) return (fmi2ValueReference)(k % (unsigned)s->fm->vars.n);
    return k < 245 ? (fmi2ValueReference)s->fm->vars.n + (k & 3) : 0xffffffffu - (k & 1);
}

/* Instantiate: the pendulum or the loop, or a refused variant (wrong GUID, type, name,
   resource location), which must answer NULL. A live instance is freed first. */
static void op_instantiate(session *s)
{
    const unsigned k = fz_byte(&s->f), logging = fz_byte(&s->f) & 1;
    const fz_fmu_model *fm = &models[k % FZ_MODELS];
    const unsigned bad = (k / FZ_MODELS) % 8; /* 0..3 valid, 4..7 one argument wrong */
    if (s->c) fmi2FreeInstance(s->c), s->c = NULL;
    fmi2Component c = fmi2Instantiate(bad == 6 ? "" : "fuzz", bad == 5 ? fmi2ModelExchange : fmi2CoSimulation,
                                      bad == 4 ? "{00000000-0000-0000-0000-000000000000}" : fm->guid,
                                      bad == 7 ? "http://example.invalid/resources" : fm->resources,
                                      &callbacks, fmi2False, (fmi2Boolean)logging);
    if (bad >= 4) {
        fz_require(c == NULL, "fmi2Instantiate", "a wrong argument accepted");
        return;
    }
    fz_require(c != NULL, "fmi2Instantiate", "a valid FMU refused");
    s->c = c, s->fm = fm;
}

/* SetReal of 1..3 references and values from the input. */
static int op_set_real(session *s, const snapshot *before)
{
    (void)before;
    fmi2ValueReference vr[3];
    double x[3];
    const size_t n = 1 + fz_byte(&s->f) % 3;
    for (size_t i = 0; i < n; ++i) {
        vr[i] = any_vr(s);
        x[i] = vr[i] == s->fm->step_size ? fz_real(&s->f, 2e-3) : fz_real(&s->f, 20.0);
    }
    return fmi2SetReal(s->c, vr, n, x);
}

/* GetReal of 1..3 references from the input. */
static int op_get_real(session *s, const snapshot *before)
{
    (void)before;
    fmi2ValueReference vr[3];
    double x[3];
    const size_t n = 1 + fz_byte(&s->f) % 3;
    for (size_t i = 0; i < n; ++i) vr[i] = any_vr(s);
    return fmi2GetReal(s->c, vr, n, x);
}

static int op_setup(session *s, const snapshot *before)
{
    (void)before;
    const fmi2Boolean tol_on = fz_byte(&s->f) & 1;
    const double tol = fz_real(&s->f, 1e-4), t0 = fz_real(&s->f, 1.0);
    return fmi2SetupExperiment(s->c, tol_on, tol, t0, fmi2False, 0.0);
}

static int op_set_boolean(session *s, const snapshot *before)
{
    (void)before;
    const fmi2ValueReference vr = fz_byte(&s->f) < 200 ? s->fm->use_cvode : any_vr(s);
    const fmi2Boolean on = fz_byte(&s->f) & 1;
    return fmi2SetBoolean(s->c, &vr, 1, &on);
}

/* h: whole or fractional internal steps, a tiny one, or 0, negative, huge, NaN, Inf. */
static double any_h(fz *f, double dt)
{
    const unsigned k = fz_byte(f), x = fz_byte(f);
    if (k < 120) return dt * (double)(1 + x % 40);
    if (k < 150) return dt * 0.37 * (double)(1 + x % 40);
    if (k < 180) return pow(10.0, -(double)(x % 24));
    return fz_real(f, 0.02);
}

/* t: the FMU's time, nudged within or beyond the runtime's tolerance, or any value. */
static double any_t(fz *f, double now)
{
    const unsigned k = fz_byte(f), x = fz_byte(f);
    if (k < 190) return now;
    if (k < 230) return now + ldexp((double)x - 128.0, -40) * fmax(1.0, fabs(now));
    return fz_real(f, 1.0);
}

/* DoStep from t by h, unless the internal steps it would take exceed the input's budget.
   After fmi2OK: time is finite, exactly t + h and later than before; outputs are finite. */
static int op_do_step(session *s, const snapshot *before)
{
    double dt = 1e-3;
    fmi2Boolean cvode = fmi2False;
    fmi2GetReal(s->c, &s->fm->step_size, 1, &dt); /* refused before initialization: dt kept */
    fmi2GetBoolean(s->c, &s->fm->use_cvode, 1, &cvode);
    const double h = any_h(&s->f, dt), t = any_t(&s->f, before->t);
    const double cost = ceil(h / (cvode ? FZ_CVODE_STEP : dt));
    if (isfinite(h) && h > 0.0 && (cvode || cost <= 1e7) && !(s->steps + cost <= FZ_STEP_BUDGET))
        return -1;
    s->steps += isfinite(cost) && cost > 0.0 ? cost : 0.0;
    const int st = (int)fmi2DoStep(s->c, t, h, fmi2True);
    if (st != fmi2OK) return st;
    snapshot after;
    take(s, &after);
    fz_require(isfinite(after.t) && after.t == t + h && after.t > before->t, "fmi2DoStep", "time after an OK step");
    for (int i = 0; i < s->fm->vars.n; ++i)
        fz_require(after.st[i] != fmi2OK || isfinite(after.x[i]), "fmi2DoStep", s->fm->vars.v[i].name);
    return st;
}

/* The status queries: fmi2LastSuccessfulTime must be the time; the others are synchronous. */
static int op_status(session *s, const snapshot *before)
{
    const unsigned k = fz_byte(&s->f);
    const fmi2StatusKind kind = (fmi2StatusKind)(fz_byte(&s->f) % 4);
    double t = NAN;
    fmi2Status value;
    fmi2Boolean b;
    fmi2Integer i;
    fmi2String str;
    switch (k % 5) {
    case 0: {
        const int st = fmi2GetRealStatus(s->c, kind, &t);
        fz_require(st != fmi2OK || !memcmp(&t, &before->t, sizeof t), "fmi2GetRealStatus", "time");
        return st;
    }
    case 1: return fmi2GetStatus(s->c, kind, &value);
    case 2: return fmi2GetBooleanStatus(s->c, kind, &b);
    case 3: return fmi2GetIntegerStatus(s->c, kind, &i);
    default: return fmi2GetStringStatus(s->c, kind, &str);
    }
}

/* GetBoolean of one reference from the input. */
static int op_get_boolean(session *s, const snapshot *before)
{
    (void)before;
    const fmi2ValueReference vr = fz_byte(&s->f) < 128 ? s->fm->use_cvode : any_vr(s);
    fmi2Boolean b;
    return fmi2GetBoolean(s->c, &vr, 1, &b);
}

/* The parts the FMU does not offer, and the Integer and String variables it lacks. */
static int op_not_offered(session *s, const snapshot *before)
{
    (void)before;
    const fmi2ValueReference vr = any_vr(s);
    fmi2FMUstate state = NULL;
    fmi2Integer i = 0;
    fmi2String str = "x";
    double x = 0.0;
    fmi2Byte bytes[8] = {0};
    size_t n = 0;
    switch (fz_byte(&s->f) % 8) {
    case 0: return fmi2GetFMUstate(s->c, &state);
    case 1: return fmi2SetFMUstate(s->c, state);
    case 2: return fmi2SerializedFMUstateSize(s->c, state, &n);
    case 3: return fmi2DeSerializeFMUstate(s->c, bytes, sizeof bytes, &state);
    case 4: return fmi2GetInteger(s->c, &vr, 1, &i);
    case 5: return fmi2SetString(s->c, &vr, 1, &str);
    case 6: return fmi2GetDirectionalDerivative(s->c, &vr, 1, &vr, 1, &x, &x);
    default: return fmi2SetRealInputDerivatives(s->c, &vr, 1, &i, &x);
    }
}

static int op_enter(session *s, const snapshot *b) { (void)b; return fmi2EnterInitializationMode(s->c); }
static int op_exit(session *s, const snapshot *b) { (void)b; return fmi2ExitInitializationMode(s->c); }
static int op_cancel(session *s, const snapshot *b) { (void)b; return fmi2CancelStep(s->c); }
static int op_reset(session *s, const snapshot *b) { (void)b; return fmi2Reset(s->c); }
static int op_terminate(session *s, const snapshot *b) { (void)b; return fmi2Terminate(s->c); }
static int op_logging(session *s, const snapshot *b)
{
    (void)b;
    return fmi2SetDebugLogging(s->c, fz_byte(&s->f) & 1, 0, NULL);
}

/* The calls on a live instance, chosen by the input's op byte (instantiate and free apart). */
static const struct {
    const char *name;
    int (*call)(session *s, const snapshot *before); /* an fmi2Status, or -1: skipped */
} ops[] = {
    {"fmi2SetupExperiment", op_setup}, {"fmi2EnterInitializationMode", op_enter},
    {"fmi2ExitInitializationMode", op_exit}, {"fmi2SetReal", op_set_real},
    {"fmi2GetReal", op_get_real}, {"fmi2SetBoolean", op_set_boolean},
    {"fmi2GetBoolean", op_get_boolean}, {"fmi2DoStep", op_do_step}, {"fmi2DoStep", op_do_step},
    {"fmi2CancelStep", op_cancel}, {"fmi2Reset", op_reset}, {"fmi2Terminate", op_terminate},
    {"status queries", op_status}, {"fmi2SetDebugLogging", op_logging},
    {"not offered", op_not_offered},
};
#define NOPS ((unsigned)(sizeof ops / sizeof ops[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    session s = {{data, size}, NULL, &models[0], 0.0};
    for (int calls = 0; s.f.n > 0 && calls < 200; ++calls) {
        const unsigned op = fz_byte(&s.f) % (NOPS + 2);
        if (op == NOPS) {
            op_instantiate(&s);
        } else if (!s.c) {
            continue; /* no instance (none yet, or freed): a call would be undefined */
        } else if (op == NOPS + 1) {
            fmi2FreeInstance(s.c), s.c = NULL;
        } else {
            snapshot before;
            take(&s, &before);
            const int logs = log_count, st = ops[op].call(&s, &before);
            if (st < 0) continue;
            check_status(st, logs, ops[op].name);
            if (st != fmi2OK && st != fmi2Warning) check_kept(&s, &before, ops[op].name);
        }
    }
    if (s.c) fmi2FreeInstance(s.c);
    return 0;
}
