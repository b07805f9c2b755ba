/* The variable table of an mbs FMU (see fmu_vars.h). */
#include "fmu_vars.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fmu_var_causality(fmu_var_kind kind)
{
    static const char *const names[] = {"input", "output", "output", "parameter", "parameter",
                                        "input", "output", "parameter"};
    return names[kind];
}

static int is_letter(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

int fmu_is_plain_name(const char *s)
{
    if (!is_letter(*s)) return 0;
    for (++s; *s; ++s)
        if (!is_letter(*s) && !is_digit(*s)) return 0;
    return 1;
}

/* A name part of the structured naming convention (FMI 2.0 §2.2.9): raw when it is a plain
   identifier, else a Q-name: quoted, with ' " \ escaped and any byte outside the Q-char set
   (control characters, non-ASCII) written as '_'. */
static void name_part(const char *raw, char *out, size_t len)
{
    if (fmu_is_plain_name(raw)) {
        snprintf(out, len, "%s", raw);
        return;
    }
    static const char qchar[] = "!#$%&()*+,-./:;<>=?@[]^{}|~ ";
    size_t k = 0;
    out[k++] = '\'';
    for (const char *c = raw; *c && k + 4 < len; ++c) {
        if (*c == '\'' || *c == '"' || *c == '\\') out[k++] = '\\', out[k++] = *c;
        else out[k++] = (is_letter(*c) || is_digit(*c) || strchr(qchar, *c)) ? *c : '_';
    }
    out[k++] = '\'';
    out[k] = '\0';
}

/* Append variable "<base>.<what>[k]" (k < 0: no subscript). */
static void add(fmu_vars *t, const char *base, const char *what, int k, fmu_var_kind kind,
                int index, int comp)
{
    fmu_var *v = &t->v[t->n++];
    if (k < 0)
        snprintf(v->name, sizeof v->name, "%s.%s", base, what);
    else
        snprintf(v->name, sizeof v->name, "%s.%s[%d]", base, what, k);
    v->kind = kind;
    v->index = index;
    v->comp = comp;
}

/* Inputs, coordinates and rates of the tree joints. */
static void joint_vars(const mbs_model *m, fmu_vars *out)
{
    for (int j = 0; j < mbs_model_njoint(m); ++j) {
        const int nq = mbs_model_joint_nq(m, j), nv = mbs_model_joint_nv(m, j);
        char raw[100], name[140];
        const char *jn = mbs_model_joint_name(m, j);
        if (nq <= 0) continue; /* cut and fixed joints have no coordinates */
        if (jn && *jn) snprintf(raw, sizeof raw, "%s", jn);
        else snprintf(raw, sizeof raw, "joint%d", j);
        name_part(raw, name, sizeof name);
        const int qa = mbs_model_joint_qadr(m, j), va = mbs_model_joint_vadr(m, j);
        for (int k = 0; k < nv; ++k) add(out, name, "tau", nv > 1 ? k : -1, FMU_TAU, va + k, 0);
        for (int k = 0; k < nq; ++k) add(out, name, "q", nq > 1 ? k : -1, FMU_Q, qa + k, 0);
        for (int k = 0; k < nv; ++k) add(out, name, "v", nv > 1 ? k : -1, FMU_V, va + k, 0);
    }
}

/* The message into why; returns -1. */
static int fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Body of the link of a <track> (any link but the world) or an <input> (a body with mass:
   not the world, not a node); -1 with a message. */
static int resolve(const mbs_model *m, const tool_point *p, const char *tag, int input, char *why,
                   size_t len)
{
    const int body = mbs_model_find_body(m, p->link);
    if (body < 0)
        return fail(why, len, "line %ld: <%s> \"%s\": link \"%s\" is not in the model", p->line,
                    tag, p->name, p->link);
    if (body == MBS_WORLD)
        return fail(why, len, "line %ld: <%s> \"%s\": link \"%s\" is the world (fixed)", p->line,
                    tag, p->name, p->link);
    if (input && mbs_model_body_is_node(m, body) == 1)
        return fail(why, len, "line %ld: <input> \"%s\": link \"%s\" is a node (massless, it "
                    "takes only line forces)", p->line, p->name, p->link);
    return body;
}

/* Resolve every point, one input per link (the library holds one input wrench per body),
   and add their variables. */
static int point_vars(const mbs_model *m, const tool_elements *e, fmu_vars *out, char *why,
                      size_t len)
{
    static const char *const wrench[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
    static const char *const xyz[3] = {"x", "y", "z"};
    char name[140];
    for (int i = 0; i < e->ninput; ++i) {
        fmu_link_point *p = &out->input[i];
        if ((p->body = resolve(m, &e->input[i], "input", 1, why, len)) < 0) return -1;
        memcpy(p->point, e->input[i].point, sizeof p->point);
        for (int k = 0; k < i; ++k)
            if (out->input[k].body == p->body)
                return fail(why, len, "line %ld: <input> \"%s\": link \"%s\" already takes input "
                            "\"%s\" (one input per link)", e->input[i].line, e->input[i].name,
                            e->input[i].link, e->input[k].name);
        name_part(e->input[i].name, name, sizeof name);
        for (int c = 0; c < 6; ++c) add(out, name, wrench[c], -1, FMU_WRENCH, i, c);
    }
    for (int i = 0; i < e->ntrack; ++i) {
        fmu_link_point *p = &out->track[i];
        if ((p->body = resolve(m, &e->track[i], "track", 0, why, len)) < 0) return -1;
        memcpy(p->point, e->track[i].point, sizeof p->point);
        name_part(e->track[i].name, name, sizeof name);
        for (int c = 0; c < 3; ++c) add(out, name, xyz[c], -1, FMU_TRACK, i, c);
    }
    out->ninput = e->ninput, out->ntrack = e->ntrack;
    return 0;
}

/* Every name once (a joint called like an input or a label could collide). */
static int unique_names(const fmu_vars *t, char *why, size_t len)
{
    for (int i = 0; i < t->n; ++i)
        for (int k = 0; k < i; ++k)
            if (!strcmp(t->v[i].name, t->v[k].name))
                return fail(why, len, "two FMU variables are called %s (rename a joint, an "
                            "<input> or a <track>)", t->v[i].name);
    return 0;
}

int fmu_vars_make(const mbs_model *m, const tool_elements *e, fmu_vars *out, char *why,
                  size_t len)
{
    memset(out, 0, sizeof *out);
    const size_t n = 3 + 2 * (size_t)mbs_model_nv(m) + (size_t)mbs_model_nq(m) +
                     6 * (size_t)e->ninput + 3 * (size_t)e->ntrack;
    out->v = calloc(n, sizeof(fmu_var));
    out->track = calloc((size_t)e->ntrack + 1, sizeof *out->track);
    out->input = calloc((size_t)e->ninput + 1, sizeof *out->input);
    int st = out->v && out->track && out->input ? 0 : fail(why, len, "out of memory");
    if (st == 0) {
        add(out, "mbs", "step_size", -1, FMU_STEP_SIZE, 0, 0);
        add(out, "mbs", "use_cvode", -1, FMU_USE_CVODE, 0, 0);
        joint_vars(m, out);
        st = point_vars(m, e, out, why, len);
    }
    /* last, so that the value references of the variables above stay as they were */
    if (st == 0) add(out, "mbs", "max_work", -1, FMU_MAX_WORK, 0, 0);
    if (st == 0) st = unique_names(out, why, len);
    if (st != 0) fmu_vars_free(out);
    return st;
}

void fmu_vars_free(fmu_vars *vars)
{
    free(vars->v);
    free(vars->track);
    free(vars->input);
    memset(vars, 0, sizeof *vars);
}

int fmu_model_load(const char *path, mbs_model **m, fmu_vars *vars, char *why, size_t len)
{
    *m = NULL;
    memset(vars, 0, sizeof *vars);
    mbs_builder *b = mbs_builder_create();
    int st = b ? mbs_builder_load(b, path) : MBS_ERR_NOMEM;
    if (st == MBS_OK) st = mbs_compile(b, m);
    if (st != MBS_OK) snprintf(why, len, "%s", b ? mbs_builder_error(b) : "out of memory");
    mbs_builder_destroy(b);
    if (st != MBS_OK) return -1;
    tool_elements e;
    char msg[512];
    st = tool_elements_read(path, &e, why, len);
    if (st == 0 && fmu_vars_make(*m, &e, vars, msg, sizeof msg) != 0)
        st = -1, snprintf(why, len, "%s: %s", path, msg);
    tool_elements_free(&e);
    if (st != 0) mbs_model_destroy(*m), *m = NULL;
    return st;
}
