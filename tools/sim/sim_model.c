/* mbs-sim's model files: a URDF or mbs superset file run as a mechanism. The library builds
 * the model (mbs_builder_load, start values from <initial>); mbs-sim reads its own elements
 * with libxml2 (docs/model-files.md "Tool elements"; <track> by the reader mbs-fmu shares):
 *   <simulation title source t_end stepper dt rtol atol energy energy_tol closure_tol/>
 *   <track label link point/>    <plot signals/>
 * Without them a file runs 5 s of RK4 at 1 ms with no energy check. Loops report the largest
 * violation of their cut joints measured from body poses (sim_model_closure). */
#define _DEFAULT_SOURCE /* readlink */
#include <dirent.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "sim.h"
#include "tool_elements.h"

#define MAX_TRACK 64
#define MAX_PLOT SIM_MAX_SIGNALS

/* A model file's mechanism and the storage its strings point into. */
typedef struct sim_model {
    mech m; /* first: sim_model_free gets &m */
    char name[128], title[512], source[512], path[1024], dir[1024];
    mech_point track[MAX_TRACK + 1];
    tool_point points[MAX_TRACK]; /* what track[i] points into */
    const char *plot[MAX_PLOT + 1];
    char signals[512];
} sim_model;

/* "path:line: <tag>: message" into err; returns -1. */
static int fail(const sim_model *s, const xmlNode *n, char *err, size_t len, const char *fmt, ...)
{
    char msg[SIM_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, len, "%s:%ld: <%s>: %s", s->path, xmlGetLineNo(n), (const char *)n->name, msg);
    return -1;
}

/* One attribute of <simulation> into the mechanism; -1 with a message. */
static int sim_attr(sim_model *s, const xmlNode *n, const char *key, const char *val, char *err,
                    size_t len)
{
    static const char *const num_keys[] = {"t_end", "dt", "rtol", "atol", "energy_tol",
                                           "closure_tol"};
    double *num[] = {&s->m.t_end, &s->m.dt, &s->m.rtol, &s->m.atol, &s->m.energy_tol,
                     &s->m.closure_tol};
    for (size_t k = 0; k < sizeof num_keys / sizeof num_keys[0]; ++k)
        if (!strcmp(key, num_keys[k])) {
            if (tool_numbers(val, num[k], 1) < 0 || !(*num[k] > 0.0))
                return fail(s, n, err, len, "%s=\"%s\": expected a positive number", key, val);
            return 0;
        }
    if (!strcmp(key, "title")) return snprintf(s->title, sizeof s->title, "%s", val), 0;
    if (!strcmp(key, "source")) return snprintf(s->source, sizeof s->source, "%s", val), 0;
    if (!strcmp(key, "stepper")) {
        const int k = sim_stepper_parse(val);
        if (k < 0) return fail(s, n, err, len, "stepper=\"%s\": expected rk4, euler, adams or bdf", val);
        s->m.stepper = (mbs_stepper_kind)k;
        return 0;
    }
    if (!strcmp(key, "energy")) {
        static const char *const kinds[] = {"conservative", "dissipative", "driven"};
        for (int k = 0; k < 3; ++k)
            if (!strcmp(val, kinds[k])) return s->m.energy = (mech_energy)k, 0;
        return fail(s, n, err, len, "energy=\"%s\": expected conservative, dissipative or driven", val);
    }
    return fail(s, n, err, len, "unknown attribute %s (title, source, t_end, stepper, dt, rtol, "
                "atol, energy, energy_tol, closure_tol)", key);
}

/* <simulation .../>: every attribute. */
static int read_simulation(sim_model *s, const xmlNode *n, char *err, size_t len)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        char val[512];
        tool_attr(n, (const char *)a->name, val, sizeof val);
        if (sim_attr(s, n, (const char *)a->name, val, err, len) < 0) return -1;
    }
    return 0;
}

/* <track label link point/>: one more recorded point (the reader mbs-fmu shares). */
static int read_track(sim_model *s, const xmlNode *n, char *err, size_t len)
{
    int i = 0;
    while (s->track[i].label) ++i;
    if (i == MAX_TRACK) return fail(s, n, err, len, "more than %d tracked points", MAX_TRACK);
    char msg[SIM_MSG];
    if (tool_read_point(n, "label", s->points, i, &s->points[i], msg, sizeof msg) < 0)
        return fail(s, n, err, len, "%s", msg);
    s->track[i].label = s->points[i].name;
    s->track[i].body = s->points[i].link;
    memcpy(s->track[i].point, s->points[i].point, sizeof s->track[i].point);
    s->m.track = s->track;
    return 0;
}

/* <plot signals="a,b,c"/>: the default plot columns (checked against the CSV columns when a
   plot is made). */
static int read_plot(sim_model *s, const xmlNode *n, char *err, size_t len)
{
    if (s->m.plot) return fail(s, n, err, len, "a second <plot>");
    if (!tool_attr(n, "signals", s->signals, sizeof s->signals) || !s->signals[0])
        return fail(s, n, err, len, "attribute signals is missing");
    int k = 0;
    for (char *tok = strtok(s->signals, ","); tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ') ++tok;
        char *e = tok + strlen(tok);
        while (e > tok && e[-1] == ' ') *--e = '\0';
        if (!*tok) continue;
        if (k == MAX_PLOT) return fail(s, n, err, len, "more than %d signals", MAX_PLOT);
        s->plot[k++] = tok;
    }
    if (k == 0) return fail(s, n, err, len, "attribute signals is empty");
    s->m.plot = s->plot;
    return 0;
}

/* The mbs-sim elements of the document (the rest is the library's). */
static int read_elements(sim_model *s, const xmlNode *robot, char *err, size_t len)
{
    int nsim = 0;
    for (const xmlNode *n = robot->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        const char *tag = (const char *)n->name;
        int st = 0;
        if (!strcmp(tag, "simulation"))
            st = nsim++ ? fail(s, n, err, len, "a second <simulation>") : read_simulation(s, n, err, len);
        else if (!strcmp(tag, "track"))
            st = read_track(s, n, err, len);
        else if (!strcmp(tag, "plot"))
            st = read_plot(s, n, err, len);
        if (st < 0) return -1;
    }
    return 0;
}

/* Name (file name without .xml / .urdf / .sdf), folder and default settings. */
static void set_defaults(sim_model *s, const char *path)
{
    snprintf(s->path, sizeof s->path, "%s", path);
    const char *base = strrchr(path, '/');
    snprintf(s->name, sizeof s->name, "%s", base ? base + 1 : path);
    char *dot = strrchr(s->name, '.');
    if (dot && (!strcmp(dot, ".xml") || !strcmp(dot, ".urdf") || !strcmp(dot, ".sdf"))) *dot = '\0';
    snprintf(s->dir, sizeof s->dir, "%.*s", base ? (int)(base - path) : 1, base ? path : ".");
    if (!s->dir[0]) snprintf(s->dir, sizeof s->dir, "/");
    snprintf(s->title, sizeof s->title, "model file %s", path);
    snprintf(s->source, sizeof s->source, "%s", sim_is_sdf(path) ? "SDFormat file (libsdformat)"
                                                                   : "model file (URDF or mbs's superset)");
    mech *m = &s->m;
    m->name = s->name, m->title = s->title, m->source = s->source;
    m->path = s->path, m->dir = s->dir;
    m->t_end = 5.0, m->stepper = MBS_STEP_RK4, m->dt = 1e-3, m->rtol = 1e-8, m->atol = 1e-10;
    m->energy = MECH_DRIVEN, m->energy_tol = 1e-6, m->closure_tol = 1e-8;
}

/* See sim.h. */
mech *sim_model_open(const char *path, char *err, size_t len)
{
    sim_model *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, len, "out of memory"), NULL;
    set_defaults(s, path);
    if (sim_is_sdf(path)) /* SDFormat: the defaults (none of mbs-sim's elements); read at run */
        return &s->m;
    int st = 0;
    xmlDoc *doc = io_read_doc(path, err, len, &st); /* as the library reads it */
    const xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!doc) {
        st = -1;
    } else if (!root || strcmp((const char *)root->name, "robot") != 0) {
        mbs_builder *b = mbs_builder_create(); /* the library's message for what is wrong */
        const int lst = b ? mbs_builder_load(b, path) : MBS_ERR_NOMEM;
        snprintf(err, len, "%s", lst != MBS_OK && b ? mbs_builder_error(b) : "cannot be read");
        mbs_builder_destroy(b);
        st = -1;
    } else {
        st = read_elements(s, root, err, len);
    }
    xmlFreeDoc(doc);
    if (st < 0) {
        free(s);
        return NULL;
    }
    return &s->m;
}

/* See sim.h. */
void sim_model_free(mech *m) { free(m); /* m is the first member of its sim_model */ }

/* ---------------------------------------------------------------- the models folder */

#ifndef MBS_SIM_SOURCE_MODELS /* set by tools/meson.build */
#define MBS_SIM_SOURCE_MODELS "models"
#define MBS_SIM_BUILD_ROOT "build"
#define MBS_SIM_REL_MODELS "../share/mbs/models"
#define MBS_SIM_INSTALL_MODELS "/usr/local/share/mbs/models"
#endif

/* 1 if path is a folder. */
static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* See sim.h. */
int sim_models_dir(char *dir, size_t len, char *err, size_t n)
{
    const char *env = getenv("MBS_MODELS");
    if (env && env[0]) {
        if (is_dir(env)) return snprintf(dir, len, "%s", env), 0;
        return snprintf(err, n, "MBS_MODELS=%s is not a folder", env), -1;
    }
    char exe[1024];
    const ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = '\0';
        const size_t nb = strlen(MBS_SIM_BUILD_ROOT);
        if (!strncmp(exe, MBS_SIM_BUILD_ROOT, nb) && exe[nb] == '/' && is_dir(MBS_SIM_SOURCE_MODELS))
            return snprintf(dir, len, "%s", MBS_SIM_SOURCE_MODELS), 0;
        char *slash = strrchr(exe, '/');
        if (slash && MBS_SIM_REL_MODELS[0]) {
            *slash = '\0';
            char rel[2048];
            snprintf(rel, sizeof rel, "%s/%s", exe, MBS_SIM_REL_MODELS);
            if (is_dir(rel)) return snprintf(dir, len, "%s", rel), 0;
        }
    }
    if (is_dir(MBS_SIM_INSTALL_MODELS)) return snprintf(dir, len, "%s", MBS_SIM_INSTALL_MODELS), 0;
    snprintf(err, n, "no models folder (%s is missing; set MBS_MODELS to a folder of model "
             "files)", MBS_SIM_INSTALL_MODELS);
    return -1;
}

/* qsort order of names. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .xml files of dir, sorted ("name.xml" strings, caller frees each and the array). */
static char **model_files(const char *dir, int *count, char *err, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) return snprintf(err, n, "cannot read the models folder %s", dir), NULL;
    char **names = NULL;
    int cnt = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".xml") != 0) continue;
        if (cnt == cap) {
            char **grown = realloc(names, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        if (!(names[cnt] = strdup(e->d_name))) break;
        ++cnt;
    }
    closedir(d);
    if (cnt > 0) qsort(names, (size_t)cnt, sizeof *names, by_name);
    *count = cnt;
    return names ? names : calloc(1, sizeof *names);
}

/* See sim.h. */
void sim_models_free(mech **all, int count)
{
    for (int i = 0; i < count && all; ++i) sim_model_free(all[i]);
    free(all);
}

/* See sim.h. */
mech **sim_models_all(int *count, char *err, size_t n)
{
    char dir[1024];
    int nf = 0;
    if (sim_models_dir(dir, sizeof dir, err, n) < 0) return NULL;
    char **files = model_files(dir, &nf, err, n);
    if (!files) return NULL;
    mech **all = calloc((size_t)nf + 1, sizeof *all);
    int ok = all != NULL;
    for (int i = 0; i < nf && ok; ++i) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        ok = (all[i] = sim_model_open(path, err, n)) != NULL;
    }
    for (int i = 0; i < nf; ++i) free(files[i]);
    free(files);
    if (!ok) {
        sim_models_free(all, nf);
        return NULL;
    }
    *count = nf;
    return all;
}

/* 1 for a model name: lower case letters, digits and '_'. */
static int model_name(const char *name)
{
    if (!name[0]) return 0;
    for (const char *c = name; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
    return 1;
}

/* See sim.h. */
mech *sim_model_find(const char *name, char *err, size_t n)
{
    if (sim_is_model_file(name)) return sim_model_open(name, err, n);
    char dir[1024], path[2048];
    if (sim_models_dir(dir, sizeof dir, err, n) < 0) return NULL;
    snprintf(path, sizeof path, "%s/%s.xml", dir, name);
    struct stat st;
    if (model_name(name) && stat(path, &st) == 0) return sim_model_open(path, err, n);
    int nf = 0;
    char **files = model_files(dir, &nf, err, n);
    size_t len = (size_t)snprintf(err, n, "unknown model '%s' (in %s:", name, dir);
    for (int i = 0; i < nf; ++i) {
        files[i][strlen(files[i]) - 4] = '\0';
        if (len < n) len += (size_t)snprintf(err + len, n - len, " %s%s", files[i], i + 1 < nf ? "," : "");
        free(files[i]);
    }
    if (len < n) snprintf(err + len, n - len, ")");
    free(files);
    return NULL;
}

/* 1 if name ends with .urdf, .xml or .sdf (a file rather than a model's name). */
int sim_is_model_file(const char *name)
{
    const size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".urdf")) || (n > 4 && !strcmp(name + n - 4, ".xml"))
        || sim_is_sdf(name);
}

/* ---------------------------------------------------------------- closure residual */

/* World frame of a body frame: position p and rotation R (row-major). */
static int frame_world(mbs_data *d, int body, const mbs_frame *f, double p[3], double R[9])
{
    double bp[3], bR[9];
    const int st = mbs_body_pose(d, body, bp, bR);
    if (st != MBS_OK) return st;
    for (int i = 0; i < 3; ++i) {
        p[i] = bp[i];
        for (int j = 0; j < 3; ++j) {
            p[i] += bR[3 * i + j] * f->pos[j];
            R[3 * i + j] = 0.0;
            for (int k = 0; k < 3; ++k) R[3 * i + j] += bR[3 * i + k] * f->rot[3 * k + j];
        }
    }
    return MBS_OK;
}

/* |a x b|, a . b and |x| of 3-vectors. */
static double cross_norm(const double a[3], const double b[3])
{
    const double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                         a[0] * b[1] - a[1] * b[0]};
    return sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}
static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm(const double a[3]) { return sqrt(dot(a, a)); }

/* Violation of one cut joint from its frames' offset dp (in Fp) and relative rotation Rr
   (Fc in Fp): origins apart, offset across the axis or along the normal, distance error,
   axes misaligned (sine of the angle), rotation off identity (largest entry of Rr - I). */
static double violation(const mbs_joint_def *j, const double dp[3], const double Rr[9])
{
    double ra[3], rot = 0.0, across[3];
    for (int i = 0; i < 3; ++i) {
        ra[i] = Rr[3 * i] * j->axis[0] + Rr[3 * i + 1] * j->axis[1] + Rr[3 * i + 2] * j->axis[2];
        across[i] = dp[i] - dot(j->axis, dp) * j->axis[i];
        for (int k = 0; k < 3; ++k) rot = fmax(rot, fabs(Rr[3 * i + k] - (i == k)));
    }
    switch (j->type) {
    case MBS_JOINT_REVOLUTE: return fmax(norm(dp), cross_norm(j->axis, ra));
    case MBS_JOINT_SPHERICAL: return norm(dp);
    case MBS_JOINT_FIXED: return fmax(norm(dp), rot);
    case MBS_JOINT_PRISMATIC: return fmax(norm(across), rot);
    case MBS_JOINT_CYLINDRICAL: return fmax(norm(across), cross_norm(j->axis, ra));
    case MBS_JOINT_PLANAR: return fmax(fabs(dot(j->axis, dp)), cross_norm(j->axis, ra));
    case MBS_JOINT_DISTANCE: return fabs(norm(dp) - j->length);
    case MBS_JOINT_UNIVERSAL: {
        double ra2[3];
        for (int i = 0; i < 3; ++i)
            ra2[i] = Rr[3 * i] * j->axis2[0] + Rr[3 * i + 1] * j->axis2[1] + Rr[3 * i + 2] * j->axis2[2];
        return fmax(norm(dp), fabs(dot(j->axis, ra2) - dot(j->axis, j->axis2)));
    }
    case MBS_JOINT_CURVE: return 0.0; /* its frames carry no curve geometry: the contact is
                                         kept by the library's contact search (its closure
                                         is reported by mbs_curve_joint_contact) */
    default: return 0.0; /* free, translational: nothing to violate */
    }
}

/* See sim.h. */
double sim_model_closure(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    double worst = 0.0;
    for (int j = 0; j < mbs_model_njoint(m); ++j) {
        mbs_joint_def jd;
        double pp[3], Rp[9], pc[3], Rc[9], dp[3] = {0, 0, 0}, Rr[9];
        if (mbs_model_joint_is_cut(m, j) != 1 || mbs_model_joint_def(m, j, &jd) != MBS_OK)
            continue;
        if (frame_world(d, jd.parent, &jd.frame_parent, pp, Rp) != MBS_OK ||
            frame_world(d, jd.child, &jd.frame_child, pc, Rc) != MBS_OK)
            return INFINITY;
        for (int i = 0; i < 3; ++i) /* dp = Rp^T (pc - pp), Rr = Rp^T Rc */
            for (int k = 0; k < 3; ++k) {
                dp[i] += Rp[3 * k + i] * (pc[k] - pp[k]);
                Rr[3 * i + k] = Rp[i] * Rc[k] + Rp[3 + i] * Rc[3 + k] + Rp[6 + i] * Rc[6 + k];
            }
        const double v = violation(&jd, dp, Rr);
        worst = isfinite(v) ? fmax(worst, v) : INFINITY;
    }
    return worst;
}
