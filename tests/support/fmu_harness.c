/* The importer of tests/system/test_fmu.c (fmu_harness.h). */
#define _POSIX_C_SOURCE 200809L
#include "fmu_harness.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

#include "fmi2_check.h"

int fmu_log_count;
char fmu_log_last[512];

/* Counts messages and keeps the last (formatted) one. */
static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st, fmi2String cat,
                   fmi2String msg, ...)
{
    (void)env, (void)name, (void)st, (void)cat;
    va_list ap;
    va_start(ap, msg);
    vsnprintf(fmu_log_last, sizeof fmu_log_last, msg, ap);
    va_end(ap);
    fmu_log_count++;
}
const fmi2CallbackFunctions fmu_callbacks = {logger, calloc, free, NULL, NULL};

static void sh(const char *cmd)
{
    if (system(cmd) != 0) fail_msg("command failed: %s", cmd);
}

char *fmu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    if (len) *len = (size_t)n;
    return s;
}

static char scratch_dir[64];

const char *fmu_scratch(int slot, const char *name, const char *text)
{
    static char path[4][192];
    if (!scratch_dir[0]) {
        snprintf(scratch_dir, sizeof scratch_dir, "/tmp/mbs_fmu_files_XXXXXX");
        assert_non_null(mkdtemp(scratch_dir));
    }
    snprintf(path[slot], sizeof path[slot], "%s/%s", scratch_dir, name);
    FILE *f = fopen(path[slot], "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path[slot];
}

void fmu_scratch_clean(void)
{
    char cmd[128];
    if (!scratch_dir[0]) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
    sh(cmd);
    scratch_dir[0] = '\0';
}

/* Unzip every entry of the FMU into dir (libzip). */
static void unzip(const char *fmu_path, const char *dir)
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

/* Names, causalities and the GUID from the (checked) description. */
static void read_variables(fmu_unit *u)
{
    xmlDoc *doc = xmlReadMemory(u->description, (int)u->description_len, "md.xml", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    xmlNode *root = xmlDocGetRootElement(doc), *vars = NULL;
    xmlChar *g = xmlGetProp(root, (const xmlChar *)"guid");
    snprintf(u->guid, sizeof u->guid, "%s", (const char *)g);
    xmlFree(g);
    for (xmlNode *n = root->children; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, "ModelVariables")) vars = n;
    for (xmlNode *v = vars->children; v; v = v->next) u->nvar += v->type == XML_ELEMENT_NODE;
    u->names = calloc((size_t)u->nvar, sizeof *u->names);
    u->causality = calloc((size_t)u->nvar, sizeof *u->causality);
    assert_true(u->names && u->causality);
    for (xmlNode *v = vars->children; v; v = v->next) {
        if (v->type != XML_ELEMENT_NODE) continue;
        xmlChar *n = xmlGetProp(v, (const xmlChar *)"name"), *c = xmlGetProp(v, (const xmlChar *)"causality"),
                *r = xmlGetProp(v, (const xmlChar *)"valueReference");
        const int vr = atoi((const char *)r);
        assert_true(vr >= 0 && vr < u->nvar); /* the runtime's references are positions */
        snprintf(u->names[vr], sizeof u->names[vr], "%s", (const char *)n);
        snprintf(u->causality[vr], sizeof u->causality[vr], "%s", (const char *)c);
        xmlFree(n), xmlFree(c), xmlFree(r);
    }
    xmlFreeDoc(doc);
}

/* dlopen the binary and look up the functions. */
static void load_binary(fmu_unit *u)
{
    char path[256];
    fmi *f = &u->f;
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", u->dir, u->ident);
    f->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!f->so) fail_msg("dlopen: %s", dlerror());
    struct { void **fn; const char *name; } syms[] = {
        {(void **)&f->instantiate, "fmi2Instantiate"}, {(void **)&f->free_instance, "fmi2FreeInstance"},
        {(void **)&f->setup, "fmi2SetupExperiment"}, {(void **)&f->enter_init, "fmi2EnterInitializationMode"},
        {(void **)&f->exit_init, "fmi2ExitInitializationMode"}, {(void **)&f->terminate, "fmi2Terminate"},
        {(void **)&f->reset, "fmi2Reset"}, {(void **)&f->set_real, "fmi2SetReal"},
        {(void **)&f->get_real, "fmi2GetReal"}, {(void **)&f->set_boolean, "fmi2SetBoolean"},
        {(void **)&f->get_boolean, "fmi2GetBoolean"}, {(void **)&f->do_step, "fmi2DoStep"},
        {(void **)&f->set_integer, "fmi2SetInteger"}, {(void **)&f->get_integer, "fmi2GetInteger"},
        {(void **)&f->real_status, "fmi2GetRealStatus"}, {(void **)&f->version, "fmi2GetVersion"}};
    for (size_t k = 0; k < sizeof syms / sizeof syms[0]; ++k)
        if (!(*syms[k].fn = dlsym(f->so, syms[k].name))) fail_msg("%s is not exported", syms[k].name);
    assert_string_equal(f->version(), "2.0");
    assert_null(dlsym(f->so, "mbs_forward_dynamics")); /* only fmi2* are exported */
    assert_null(dlsym(f->so, "tool_elements_read"));
}

void fmu_unit_open(fmu_unit *u, const char *model_path, const char *ident)
{
    char cmd[1024], err[512];
    memset(u, 0, sizeof *u);
    snprintf(u->ident, sizeof u->ident, "%s", ident);
    snprintf(u->dir, sizeof u->dir, "/tmp/mbs_fmu_XXXXXX");
    assert_non_null(mkdtemp(u->dir));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o %s/p.fmu --name %s --runtime '%s' > /dev/null",
             getenv("MBS_FMU"), model_path, u->dir, ident, getenv("MBS_FMU_RUNTIME"));
    sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/p.fmu", u->dir);
    unzip(cmd, u->dir);
    snprintf(u->resources, sizeof u->resources, "file://%s/resources", u->dir);
    snprintf(cmd, sizeof cmd, "%s/modelDescription.xml", u->dir);
    u->description = fmu_slurp(cmd, &u->description_len);
    if (fmi2_check_description(u->description, u->description_len, err, sizeof err) != 0)
        fail_msg("%s: modelDescription.xml: %s", model_path, err);
    read_variables(u);
    load_binary(u);
}

void fmu_unit_close(fmu_unit *u)
{
    char cmd[128];
    if (u->f.so) dlclose(u->f.so);
    free(u->description);
    free(u->names);
    free(u->causality);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", u->dir);
    sh(cmd);
    memset(u, 0, sizeof *u);
}

int fmu_find(const fmu_unit *u, const char *name)
{
    for (int i = 0; i < u->nvar; ++i)
        if (!strcmp(u->names[i], name)) return i;
    return -1;
}

fmi2ValueReference fmu_vr(const fmu_unit *u, const char *name, const char *causality)
{
    const int i = fmu_find(u, name);
    if (i < 0) fail_msg("%s: no variable %s", u->ident, name);
    assert_string_equal(u->causality[i], causality);
    return (fmi2ValueReference)i;
}

fmi2Component fmu_start(const fmu_unit *u, const char *name, double tol, int use_cvode, double step)
{
    const fmi *f = &u->f;
    fmi2Component c = f->instantiate(name, fmi2CoSimulation, u->guid, u->resources, &fmu_callbacks, 0, 0);
    assert_non_null(c);
    assert_int_equal(f->setup(c, tol > 0.0, tol, 0.0, 0, 0.0), fmi2OK);
    assert_int_equal(f->enter_init(c), fmi2OK);
    const fmi2ValueReference cv = fmu_vr(u, "mbs.use_cvode", "parameter"),
                             ss = fmu_vr(u, "mbs.step_size", "parameter");
    const fmi2Boolean on = use_cvode ? fmi2True : fmi2False;
    assert_int_equal(f->set_boolean(c, &cv, 1, &on), fmi2OK);
    if (step > 0.0) assert_int_equal(f->set_real(c, &ss, 1, &step), fmi2OK);
    assert_int_equal(f->exit_init(c), fmi2OK);
    return c;
}
