/* A minimal FMI 2.0 and FMI 3.0 co-simulation importer that needs the C library alone (dlopen
 * is in it), so that tests/system/fmu_portable.py can run an FMU in a root holding nothing else and
 * tests/system/fmu3.py can run an FMU of each version side by side:
 *   fmu_min_importer DIR T_END H [cvode]
 * DIR is an unzipped FMU; its binaries/linux64/<modelIdentifier>.so (FMI 3.0:
 * binaries/x86_64-linux/) is loaded, stepped from 0 to T_END in steps of H (mbs.use_cvode set
 * with "cvode"), and every output printed after each step with 17 significant digits (FMI 3:
 * the outputs its ModelStructure lists, in order). Exit status 0, or 1 with the reason on
 * stderr. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2.h"
#include "fmi3.h"

enum { MAX_OUT = 256 };

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st, fmi2String cat,
                   fmi2String msg, ...)
{
    (void)env, (void)st, (void)cat;
    va_list ap;
    va_start(ap, msg);
    fprintf(stderr, "%s: ", name);
    vfprintf(stderr, msg, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "fmu_min_importer: %s%s\n", what, detail ? detail : "");
    return 1;
}

/* The file's text (malloc'd), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = calloc(1, 1 << 20);
    if (s) s[fread(s, 1, (1 << 20) - 1, f)] = '\0';
    fclose(f);
    return s;
}

/* The value of attribute name="..." after p, copied into out. */
static int attribute(const char *p, const char *name, char *out, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *s = strstr(p, key);
    if (!s) return -1;
    s += strlen(key);
    const char *e = strchr(s, '"');
    if (!e || (size_t)(e - s) >= len) return -1;
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = '\0';
    return 0;
}

/* The value references of the outputs, in the description's order; their count. */
static int outputs(const char *desc, fmi2ValueReference *vr)
{
    int n = 0;
    char buf[64];
    for (const char *p = strstr(desc, "<ScalarVariable"); p && n < MAX_OUT;
         p = strstr(p + 1, "<ScalarVariable")) {
        if (attribute(p, "causality", buf, sizeof buf) == 0 && !strcmp(buf, "output")
            && attribute(p, "valueReference", buf, sizeof buf) == 0)
            vr[n++] = (fmi2ValueReference)strtoul(buf, NULL, 10);
    }
    return n;
}

typedef struct api {
    fmi2Component (*instantiate)(fmi2String, fmi2Type, fmi2String, fmi2String,
                                 const fmi2CallbackFunctions *, fmi2Boolean, fmi2Boolean);
    fmi2Status (*setup)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real);
    fmi2Status (*enter)(fmi2Component), (*exit)(fmi2Component);
    fmi2Status (*set_bool)(fmi2Component, const fmi2ValueReference *, size_t, const fmi2Boolean *);
    fmi2Status (*step)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
    fmi2Status (*get_real)(fmi2Component, const fmi2ValueReference *, size_t, fmi2Real *);
    void (*free_instance)(fmi2Component);
} api;

/* The functions of the FMU; nonzero when one is missing. */
static int bind(void *so, api *a)
{
    const struct { void **fn; const char *name; } syms[] = {
        {(void **)&a->instantiate, "fmi2Instantiate"}, {(void **)&a->setup, "fmi2SetupExperiment"},
        {(void **)&a->enter, "fmi2EnterInitializationMode"},
        {(void **)&a->exit, "fmi2ExitInitializationMode"}, {(void **)&a->set_bool, "fmi2SetBoolean"},
        {(void **)&a->step, "fmi2DoStep"}, {(void **)&a->get_real, "fmi2GetReal"},
        {(void **)&a->free_instance, "fmi2FreeInstance"}};
    for (size_t k = 0; k < sizeof syms / sizeof syms[0]; ++k)
        if (!(*syms[k].fn = dlsym(so, syms[k].name))) return 1;
    return 0;
}

/* Step the instance and print the outputs after each step. */
static int run(const api *a, fmi2Component c, const fmi2ValueReference *vr, int n, double t_end,
               double h)
{
    fmi2Real y[MAX_OUT];
    const long steps = (long)(t_end / h + 0.5);
    for (long k = 0; k < steps; ++k) {
        if (a->step(c, (double)k * h, h, fmi2True) != fmi2OK) return fail("fmi2DoStep failed", NULL);
        if (a->get_real(c, vr, (size_t)n, y) != fmi2OK) return fail("fmi2GetReal failed", NULL);
        printf("%.17g", (double)(k + 1) * h);
        for (int i = 0; i < n; ++i) printf(" %.17g", y[i]);
        putchar('\n');
    }
    return 0;
}

static void logger3(fmi3InstanceEnvironment env, fmi3Status st, fmi3String cat, fmi3String msg)
{
    (void)env, (void)st, (void)cat;
    fprintf(stderr, "fmi3: %s\n", msg);
}

/* FMI 3.0: the outputs of <ModelStructure> (<Output valueReference=...>); their count. */
static int outputs3(const char *desc, fmi3ValueReference *vr)
{
    int n = 0;
    char buf[64];
    for (const char *p = strstr(desc, "<Output "); p && n < MAX_OUT; p = strstr(p + 1, "<Output "))
        if (attribute(p, "valueReference", buf, sizeof buf) == 0) vr[n++] = (fmi3ValueReference)strtoul(buf, NULL, 10);
    return n;
}

typedef struct api3 {
    fmi3Instance (*instantiate)(fmi3String, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean, fmi3Boolean,
                                fmi3Boolean, const fmi3ValueReference[], size_t, fmi3InstanceEnvironment,
                                fmi3LogMessageCallback, fmi3IntermediateUpdateCallback);
    fmi3Status (*enter)(fmi3Instance, fmi3Boolean, fmi3Float64, fmi3Float64, fmi3Boolean, fmi3Float64);
    fmi3Status (*exit)(fmi3Instance);
    fmi3Status (*set_bool)(fmi3Instance, const fmi3ValueReference[], size_t, const fmi3Boolean[], size_t);
    fmi3Status (*step)(fmi3Instance, fmi3Float64, fmi3Float64, fmi3Boolean, fmi3Boolean *, fmi3Boolean *,
                       fmi3Boolean *, fmi3Float64 *);
    fmi3Status (*get)(fmi3Instance, const fmi3ValueReference[], size_t, fmi3Float64[], size_t);
    void (*free_instance)(fmi3Instance);
} api3;

/* Load, initialise and run an FMI 3.0 FMU as main does an FMI 2.0 one. */
static int run3(const char *dir, const char *desc, double t_end, double h, int cvode)
{
    char path[4096], ident[128], token[128];
    fmi3ValueReference vr[MAX_OUT];
    const int n = outputs3(desc, vr);
    if (attribute(desc, "modelIdentifier", ident, sizeof ident)
        || attribute(desc, "instantiationToken", token, sizeof token))
        return fail("no modelIdentifier or instantiationToken", NULL);
    snprintf(path, sizeof path, "%s/binaries/x86_64-linux/%s.so", dir, ident);
    void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!so) return fail("dlopen: ", dlerror());
    api3 a;
    const struct { void **fn; const char *name; } syms[] = {
        {(void **)&a.instantiate, "fmi3InstantiateCoSimulation"}, {(void **)&a.enter, "fmi3EnterInitializationMode"},
        {(void **)&a.exit, "fmi3ExitInitializationMode"}, {(void **)&a.set_bool, "fmi3SetBoolean"},
        {(void **)&a.step, "fmi3DoStep"}, {(void **)&a.get, "fmi3GetFloat64"},
        {(void **)&a.free_instance, "fmi3FreeInstance"}};
    for (size_t k = 0; k < sizeof syms / sizeof syms[0]; ++k)
        if (!(*syms[k].fn = dlsym(so, syms[k].name))) return fail("missing ", syms[k].name);
    snprintf(path, sizeof path, "%s/resources/", dir); /* FMI 3: a path, not a URI */
    fmi3Instance c = a.instantiate("portable", token, path, false, false, false, false, NULL, 0, NULL, logger3, NULL);
    if (!c) return fail("fmi3InstantiateCoSimulation failed", NULL);
    const fmi3ValueReference cvode_vr = 1;
    const fmi3Boolean on = true;
    if (cvode && a.set_bool(c, &cvode_vr, 1, &on, 1) != fmi3OK) return fail("setting mbs.use_cvode failed", NULL);
    if (a.enter(c, true, 1e-8, 0.0, false, 0.0) != fmi3OK || a.exit(c) != fmi3OK) return fail("initialization failed", NULL);
    fmi3Float64 y[MAX_OUT], reached = 0.0;
    fmi3Boolean event, stop, early;
    const long steps = (long)(t_end / h + 0.5);
    for (long k = 0; k < steps; ++k) {
        if (a.step(c, (double)k * h, h, true, &event, &stop, &early, &reached) != fmi3OK)
            return fail("fmi3DoStep failed", NULL);
        if (reached != (double)k * h + h) return fail("fmi3DoStep: lastSuccessfulTime is not t + h", NULL);
        if (a.get(c, vr, (size_t)n, y, (size_t)n) != fmi3OK) return fail("fmi3GetFloat64 failed", NULL);
        printf("%.17g", (double)(k + 1) * h);
        for (int i = 0; i < n; ++i) printf(" %.17g", y[i]);
        putchar('\n');
    }
    a.free_instance(c);
    dlclose(so);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) return fail("usage: fmu_min_importer DIR T_END H [cvode]", NULL);
    char path[4096], ident[128], guid[128], uri[4200];
    snprintf(path, sizeof path, "%s/modelDescription.xml", argv[1]);
    char *desc = slurp(path);
    if (!desc) return fail("cannot read ", path);
    if (strstr(desc, "fmiVersion=\"3.0\"")) {
        const int rc = run3(argv[1], desc, strtod(argv[2], NULL), strtod(argv[3], NULL),
                            argc > 4 && !strcmp(argv[4], "cvode"));
        free(desc);
        return rc;
    }
    fmi2ValueReference vr[MAX_OUT];
    const int n = outputs(desc, vr);
    if (attribute(desc, "modelIdentifier", ident, sizeof ident) || attribute(desc, "guid", guid, sizeof guid))
        return fail("no modelIdentifier or guid in ", path);
    free(desc);
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", argv[1], ident);
    void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!so) return fail("dlopen: ", dlerror());
    api a;
    if (bind(so, &a)) return fail("a fmi2 function is missing in ", path);
    snprintf(uri, sizeof uri, "file://%s/resources", argv[1]);
    const fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    fmi2Component c = a.instantiate("portable", fmi2CoSimulation, guid, uri, &cb, fmi2False, fmi2False);
    if (!c) return fail("fmi2Instantiate failed", NULL);
    const fmi2ValueReference cvode_vr = 1; /* mbs.use_cvode (tools/fmu/fmu_vars.c) */
    const fmi2Boolean on = fmi2True;
    if (argc > 4 && !strcmp(argv[4], "cvode") && a.set_bool(c, &cvode_vr, 1, &on) != fmi2OK)
        return fail("setting mbs.use_cvode failed", NULL);
    if (a.setup(c, fmi2True, 1e-8, 0.0, fmi2False, 0.0) != fmi2OK || a.enter(c) != fmi2OK
        || a.exit(c) != fmi2OK)
        return fail("initialization failed", NULL);
    const int rc = run(&a, c, vr, n, strtod(argv[2], NULL), strtod(argv[3], NULL));
    a.free_instance(c);
    dlclose(so);
    return rc;
}
