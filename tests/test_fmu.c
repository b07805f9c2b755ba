/* mbs-fmu and the FMU runtime, used as an importer would (FMI 2.0 co-simulation): pack a
 * URDF double pendulum, unzip it (libzip), check modelDescription.xml's structure (libxml2),
 * dlopen binaries/linux64/<id>.so, instantiate, set inputs, step, read outputs, free — and
 * compare with the library stepping the same file (bitwise: the same RK4 steps); two
 * instances at once; a DoStep that fails keeps time and state; calls in the wrong state and
 * NaN inputs are errors. Env: MBS_FMU (the packer), MBS_FMU_RUNTIME, MBS_TEST_DATA. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

#include "fmi2.h"
#include "mbs/mbs.h"

/* The FMI functions the harness calls, from dlsym. */
typedef struct fmi {
    void *so;
    fmi2Component (*instantiate)(fmi2String, fmi2Type, fmi2String, fmi2String,
                                 const fmi2CallbackFunctions *, fmi2Boolean, fmi2Boolean);
    void (*free_instance)(fmi2Component);
    fmi2Status (*setup)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real);
    fmi2Status (*enter_init)(fmi2Component), (*exit_init)(fmi2Component), (*terminate)(fmi2Component);
    fmi2Status (*set_real)(fmi2Component, const fmi2ValueReference *, size_t, const fmi2Real *);
    fmi2Status (*get_real)(fmi2Component, const fmi2ValueReference *, size_t, fmi2Real *);
    fmi2Status (*do_step)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
    const char *(*version)(void);
} fmi;

static char dir[64], guid[64], resources[256], ident[64] = "fmu_double_pendulum";
static fmi2ValueReference vr_tau[2], vr_q[2], vr_v[2];
static int nlog;

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st, fmi2String cat,
                   fmi2String msg, ...)
{
    (void)env, (void)name, (void)st, (void)cat, (void)msg;
    nlog++;
}
static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

static void sh(const char *cmd)
{
    if (system(cmd) != 0) fail_msg("command failed: %s", cmd);
}

/* Unzip every entry of the FMU into dir (libzip). */
static void unzip(const char *fmu_path)
{
    int err = 0;
    zip_t *z = zip_open(fmu_path, ZIP_RDONLY, &err);
    assert_non_null(z);
    for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        char path[512], cmd[600];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
        sh(cmd);
        zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)i, 0);
        FILE *out = fopen(path, "wb");
        assert_true(f && out);
        char buf[4096];
        zip_int64_t n;
        while ((n = zip_fread(f, buf, sizeof buf)) > 0) fwrite(buf, 1, (size_t)n, out);
        fclose(out);
        zip_fclose(f);
    }
    zip_close(z);
}

/* Value reference of the variable named name, checking its causality. */
static fmi2ValueReference vr_of(xmlNode *vars, const char *name, const char *causality)
{
    for (xmlNode *v = vars->children; v; v = v->next) {
        if (v->type != XML_ELEMENT_NODE) continue;
        xmlChar *n = xmlGetProp(v, (const xmlChar *)"name");
        xmlChar *c = xmlGetProp(v, (const xmlChar *)"causality");
        xmlChar *r = xmlGetProp(v, (const xmlChar *)"valueReference");
        const int hit = n && !strcmp((const char *)n, name);
        fmi2ValueReference vr = r ? (fmi2ValueReference)atoi((const char *)r) : 0;
        if (hit) assert_string_equal((const char *)c, causality);
        xmlFree(n), xmlFree(c), xmlFree(r);
        if (hit) return vr;
    }
    fail_msg("no variable %s", name);
    return 0;
}

/* modelDescription.xml: the standard's structure (root attributes, CoSimulation with the
   identifier, unique value references, ModelStructure indices that name outputs). */
static void check_description(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    xmlNode *root = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)root->name, "fmiModelDescription");
    xmlChar *ver = xmlGetProp(root, (const xmlChar *)"fmiVersion"), *g = xmlGetProp(root, (const xmlChar *)"guid");
    assert_string_equal((const char *)ver, "2.0");
    snprintf(guid, sizeof guid, "%s", (const char *)g);
    xmlFree(ver), xmlFree(g);
    xmlNode *vars = NULL, *structure = NULL;
    int cosim = 0;
    for (xmlNode *n = root->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (!strcmp((const char *)n->name, "ModelVariables")) vars = n;
        if (!strcmp((const char *)n->name, "ModelStructure")) structure = n;
        if (!strcmp((const char *)n->name, "CoSimulation")) {
            xmlChar *id = xmlGetProp(n, (const xmlChar *)"modelIdentifier");
            assert_string_equal((const char *)id, ident);
            xmlFree(id);
            cosim = 1;
        }
    }
    assert_true(cosim && vars && structure);
    int nvar = 0, seen[64] = {0};
    const char *causality[64];
    for (xmlNode *v = vars->children; v; v = v->next) {
        if (v->type != XML_ELEMENT_NODE) continue;
        xmlChar *r = xmlGetProp(v, (const xmlChar *)"valueReference");
        xmlChar *c = xmlGetProp(v, (const xmlChar *)"causality");
        const int vr = atoi((const char *)r);
        assert_true(vr >= 0 && vr < 64 && !seen[vr]); /* unique */
        seen[vr] = 1;
        causality[nvar++] = !strcmp((const char *)c, "output") ? "output" : "other";
        xmlFree(r), xmlFree(c);
    }
    int nout = 0;
    for (xmlNode *s = structure->children; s; s = s->next) {
        if (s->type != XML_ELEMENT_NODE || strcmp((const char *)s->name, "Outputs")) continue;
        for (xmlNode *u = s->children; u; u = u->next) {
            if (u->type != XML_ELEMENT_NODE) continue;
            xmlChar *ix = xmlGetProp(u, (const xmlChar *)"index");
            const int i = atoi((const char *)ix);
            xmlFree(ix);
            assert_true(i >= 1 && i <= nvar);
            assert_string_equal(causality[i - 1], "output");
            nout++;
        }
    }
    assert_int_equal(nout, 4); /* q and v of two joints */
    const char *joints[2] = {"shoulder", "elbow"};
    for (int k = 0; k < 2; ++k) {
        char name[64];
        snprintf(name, sizeof name, "%s.tau", joints[k]), vr_tau[k] = vr_of(vars, name, "input");
        snprintf(name, sizeof name, "%s.q", joints[k]), vr_q[k] = vr_of(vars, name, "output");
        snprintf(name, sizeof name, "%s.v", joints[k]), vr_v[k] = vr_of(vars, name, "output");
    }
    xmlFreeDoc(doc);
}

static void load_fmi(fmi *f)
{
    char path[256];
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", dir, ident);
    f->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!f->so) fail_msg("dlopen: %s", dlerror());
    *(void **)&f->instantiate = dlsym(f->so, "fmi2Instantiate");
    *(void **)&f->free_instance = dlsym(f->so, "fmi2FreeInstance");
    *(void **)&f->setup = dlsym(f->so, "fmi2SetupExperiment");
    *(void **)&f->enter_init = dlsym(f->so, "fmi2EnterInitializationMode");
    *(void **)&f->exit_init = dlsym(f->so, "fmi2ExitInitializationMode");
    *(void **)&f->terminate = dlsym(f->so, "fmi2Terminate");
    *(void **)&f->set_real = dlsym(f->so, "fmi2SetReal");
    *(void **)&f->get_real = dlsym(f->so, "fmi2GetReal");
    *(void **)&f->do_step = dlsym(f->so, "fmi2DoStep");
    *(void **)&f->version = dlsym(f->so, "fmi2GetVersion");
    assert_true(f->instantiate && f->free_instance && f->setup && f->enter_init && f->exit_init &&
                f->terminate && f->set_real && f->get_real && f->do_step && f->version);
    assert_string_equal(f->version(), "2.0");
    assert_null(dlsym(f->so, "mbs_forward_dynamics")); /* only fmi2* are exported */
}

/* An instance through initialization, with torques tau on the two joints. */
static fmi2Component start(const fmi *f, const char *name, const double tau[2])
{
    fmi2Component c = f->instantiate(name, fmi2CoSimulation, guid, resources, &callbacks, 0, 0);
    assert_non_null(c);
    assert_int_equal(f->setup(c, 0, 0.0, 0.0, 0, 0.0), fmi2OK);
    assert_int_equal(f->enter_init(c), fmi2OK);
    assert_int_equal(f->set_real(c, vr_tau, 2, tau), fmi2OK);
    assert_int_equal(f->exit_init(c), fmi2OK);
    return c;
}

/* The library on the same file: RK4 at 1 ms for n steps with tau held. */
static void library_run(const double tau[2], int n, double q[2], double v[2])
{
    char path[512];
    snprintf(path, sizeof path, "%s/fmu_double_pendulum.urdf", getenv("MBS_TEST_DATA"));
    mbs_builder *b = mbs_builder_create();
    mbs_model *m = NULL;
    assert_int_equal(mbs_builder_load(b, path), MBS_OK);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    const int a = mbs_model_joint_vadr(m, mbs_model_find_joint(m, "shoulder"));
    const int e = mbs_model_joint_vadr(m, mbs_model_find_joint(m, "elbow"));
    mbs_data_tau(d)[a] = tau[0], mbs_data_tau(d)[e] = tau[1];
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    for (int k = 0; k < n; ++k) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    q[0] = mbs_data_q(d)[a], q[1] = mbs_data_q(d)[e], v[0] = mbs_data_v(d)[a], v[1] = mbs_data_v(d)[e];
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

static void setup_fmu(void)
{
    char cmd[1024], src[512];
    snprintf(dir, sizeof dir, "/tmp/mbs_fmu_XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(src, sizeof src, "%s/fmu_double_pendulum.urdf", getenv("MBS_TEST_DATA"));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o %s/p.fmu --runtime '%s' > /dev/null", getenv("MBS_FMU"),
             src, dir, getenv("MBS_FMU_RUNTIME"));
    sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/p.fmu", dir);
    unzip(cmd);
    snprintf(resources, sizeof resources, "file://%s/resources", dir);
    check_description();
}

/* Two instances stepped side by side (200 communication steps of 1 ms, the internal step)
   equal the library's runs of the same file bit for bit; then 10 ms communication steps
   (10 internal steps each) stay within 1e-12 of them. */
static void test_importer_run(void **state)
{
    (void)state;
    fmi f;
    setup_fmu();
    load_fmi(&f);
    const double tau_a[2] = {0.5, -0.2}, tau_b[2] = {-1.0, 0.3};
    fmi2Component a = start(&f, "a", tau_a), b = start(&f, "b", tau_b);
    double t = 0.0;
    for (int k = 0; k < 200; ++k, t += 1e-3) {
        assert_int_equal(f.do_step(a, t, 1e-3, fmi2True), fmi2OK);
        assert_int_equal(f.do_step(b, t, 1e-3, fmi2True), fmi2OK);
    }
    double qa[2], va[2], qb[2], vb[2], ql[2], vl[2];
    f.get_real(a, vr_q, 2, qa), f.get_real(a, vr_v, 2, va);
    f.get_real(b, vr_q, 2, qb), f.get_real(b, vr_v, 2, vb);
    library_run(tau_a, 200, ql, vl);
    assert_memory_equal(qa, ql, sizeof qa);
    assert_memory_equal(va, vl, sizeof va);
    library_run(tau_b, 200, ql, vl);
    assert_memory_equal(qb, ql, sizeof qb);
    assert_memory_equal(vb, vl, sizeof vb);
    assert_true(fabs(qa[0] - qb[0]) > 1e-3); /* different inputs, different motion */
    assert_int_equal(f.terminate(a), fmi2OK);
    f.free_instance(a);
    f.free_instance(b);
    dlclose(f.so);
}

/* Errors: a wrong GUID, a NaN input, a step from the wrong time, a call after terminate, and
   a step that fails (a torque that overflows the state) leaving time and state as they were. */
static void test_errors(void **state)
{
    (void)state;
    fmi f;
    load_fmi(&f);
    nlog = 0;
    assert_null(f.instantiate("x", fmi2CoSimulation, "{bad}", resources, &callbacks, 0, 0));
    assert_null(f.instantiate("x", fmi2ModelExchange, guid, resources, &callbacks, 0, 0));
    assert_true(nlog >= 2);
    const double zero[2] = {0.0, 0.0};
    fmi2Component c = start(&f, "c", zero);
    const double nan[1] = {NAN};
    assert_int_equal(f.set_real(c, vr_tau, 1, nan), fmi2Error);
    assert_int_equal(f.do_step(c, 0.5, 0.01, fmi2True), fmi2Error); /* the FMU is at 0 */
    assert_int_equal(f.do_step(c, 0.0, 0.01, fmi2True), fmi2OK);
    double q0[2], q1[2], huge[2] = {1e300, 1e300}, t;
    f.get_real(c, vr_q, 2, q0);
    assert_int_equal(f.set_real(c, vr_tau, 2, huge), fmi2OK);
    assert_int_equal(f.do_step(c, 0.01, 0.01, fmi2True), fmi2Discard);
    f.get_real(c, vr_q, 2, q1);
    assert_memory_equal(q0, q1, sizeof q0);
    fmi2Status (*real_status)(fmi2Component, fmi2StatusKind, fmi2Real *);
    *(void **)&real_status = dlsym(f.so, "fmi2GetRealStatus");
    assert_int_equal(real_status(c, fmi2LastSuccessfulTime, &t), fmi2OK);
    assert_true(t == 0.01);
    assert_int_equal(f.terminate(c), fmi2OK);
    assert_int_equal(f.do_step(c, 0.01, 0.01, fmi2True), fmi2Error);
    f.free_instance(c);
    dlclose(f.so);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

int main(void)
{
    if (!getenv("MBS_FMU") || !getenv("MBS_FMU_RUNTIME") || !getenv("MBS_TEST_DATA")) {
        printf("test_fmu: MBS_FMU, MBS_FMU_RUNTIME and MBS_TEST_DATA must be set (meson does)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_importer_run),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
