/* The tools' elements of a model file (tool_elements.h): <track> and <input>. */
#include "tool_elements.h"
#include "io/io.h"

#include <libxml/parser.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tool_attr(const xmlNode *n, const char *name, char *buf, size_t len)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v) return 0;
    snprintf(buf, len, "%s", (const char *)v);
    xmlFree(v);
    return 1;
}

int tool_numbers(const char *s, double *out, int count)
{
    for (int i = 0; i < count; ++i) {
        char *end;
        out[i] = strtod(s, &end);
        if (end == s || !isfinite(out[i])) return -1;
        s = end;
    }
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') ++s;
    return *s ? -1 : 0;
}

/* The reason into msg; returns -1. */
static int reason(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return -1;
}

int tool_read_point(const xmlNode *n, const char *name_attr, const tool_point *prev, int nprev,
                    tool_point *out, char *msg, size_t len)
{
    char pt[256] = "0 0 0";
    memset(out, 0, sizeof *out);
    out->line = xmlGetLineNo(n);
    if (!tool_attr(n, name_attr, out->name, sizeof out->name) || !out->name[0])
        return reason(msg, len, "attribute %s is missing", name_attr);
    for (const char *c = out->name; *c; ++c) /* names CSV columns and FMU variables */
        if (*c == ',' || *c == ' ' || *c == '"' || *c == '\'')
            return reason(msg, len, "%s=\"%s\": no commas, spaces or quotes (it names CSV "
                          "columns and FMU variables)", name_attr, out->name);
    for (int i = 0; i < nprev; ++i)
        if (!strcmp(prev[i].name, out->name))
            return reason(msg, len, "%s=\"%s\" is given twice (also on line %ld)", name_attr,
                          out->name, prev[i].line);
    if (!tool_attr(n, "link", out->link, sizeof out->link))
        return reason(msg, len, "attribute link is missing");
    tool_attr(n, "point", pt, sizeof pt);
    if (tool_numbers(pt, out->point, 3) < 0)
        return reason(msg, len, "point=\"%s\": expected 3 finite numbers", pt);
    return 0;
}

/* Number of top-level elements called tag. */
static int count(const xmlNode *root, const char *tag)
{
    int k = 0;
    for (const xmlNode *n = root->children; n; n = n->next)
        k += n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, tag);
    return k;
}

/* The <track> and <input> elements of the document into e (arrays sized by count). */
static int read_points(const char *path, const xmlNode *root, tool_elements *e, char *err,
                       size_t len)
{
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        const int is_track = !strcmp((const char *)n->name, "track");
        if (!is_track && strcmp((const char *)n->name, "input") != 0) continue;
        tool_point *list = is_track ? e->track : e->input;
        int *cnt = is_track ? &e->ntrack : &e->ninput;
        char msg[400];
        if (tool_read_point(n, is_track ? "label" : "name", list, *cnt, &list[*cnt], msg,
                            sizeof msg) < 0)
            return snprintf(err, len, "%s:%ld: <%s>: %s", path, xmlGetLineNo(n),
                            (const char *)n->name, msg), -1;
        ++*cnt;
    }
    return 0;
}

int tool_elements_read(const char *path, tool_elements *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    int st = 0;
    xmlDoc *doc = io_read_doc(path, err, len, &st); /* as the library reads it */
    const xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!doc) {
        st = -1;
    } else if (!root || strcmp((const char *)root->name, "robot") != 0) {
        snprintf(err, len, "%s: not a model file (no <robot> element)", path);
        st = -1;
    } else {
        out->track = calloc((size_t)count(root, "track") + 1, sizeof *out->track);
        out->input = calloc((size_t)count(root, "input") + 1, sizeof *out->input);
        if (!out->track || !out->input) st = -1, snprintf(err, len, "out of memory");
        else st = read_points(path, root, out, err, len);
    }
    xmlFreeDoc(doc);
    if (st < 0) tool_elements_free(out);
    return st;
}

void tool_elements_free(tool_elements *e)
{
    free(e->track);
    free(e->input);
    memset(e, 0, sizeof *e);
}

int tool_point_world(mbs_data *d, int body, const double point[3], double out[3])
{
    double pos[3], R[9];
    const int st = mbs_body_pose(d, body, pos, R);
    if (st < 0) return st;
    for (int a = 0; a < 3; ++a)
        out[a] = pos[a] + R[3 * a] * point[0] + R[3 * a + 1] * point[1] + R[3 * a + 2] * point[2];
    return MBS_OK;
}
