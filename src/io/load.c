/* mbs_builder_load: the file read with libxml2, then its links, joints and elements handed
 * to the builder in that order; any failure rolls the builder back (io.h). */
#include "io/io.h"

#include <libxml/parser.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int io_is(const xmlNode *n, const char *tag)
{
    return n && n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, tag);
}

xmlNode *io_child(const xmlNode *n, const char *tag)
{
    for (xmlNode *k = n->children; k; k = k->next)
        if (io_is(k, tag)) return k;
    return NULL;
}

int io_attr(const xmlNode *n, const char *name, char *buf, int len)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v) return 0;
    snprintf(buf, (size_t)len, "%s", (const char *)v);
    xmlFree(v);
    return 1;
}

/* "<tag name="x">" of an element, for messages. */
static void describe(const xmlNode *n, char *buf, int len)
{
    char name[96];
    if (!n) {
        snprintf(buf, (size_t)len, "file");
    } else if (io_attr(n, "name", name, (int)sizeof name)) {
        snprintf(buf, (size_t)len, "<%s name=\"%s\">", (const char *)n->name, name);
    } else {
        snprintf(buf, (size_t)len, "<%s>", (const char *)n->name);
    }
}

int io_fail(io_ctx *c, const xmlNode *n, int status, const char *fmt, ...)
{
    char msg[MBS_ERROR_LEN], where[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    describe(n, where, (int)sizeof where);
    return mbs_errorf(c->b->error, status, "%s:%ld: %s: %s", c->path, n ? xmlGetLineNo(n) : 0L,
                      where, msg);
}

int io_fail_builder(io_ctx *c, const xmlNode *n, int status)
{
    char msg[MBS_ERROR_LEN];
    snprintf(msg, sizeof msg, "%s", c->b->error);
    return io_fail(c, n, status, "%s", msg);
}

/* Numbers separated by white space: at most max into out; their number, or -1 for a token
   that is not a finite number (beyond 1e300 counts as not finite) or more than max. */
static int parse_numbers(const char *s, double *out, int max)
{
    int k = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') ++s;
        if (!*s) return k;
        char *end;
        const double x = strtod(s, &end);
        if (end == s || !(x == x) || x > 1e300 || x < -1e300 || k == max) return -1;
        out[k++] = x;
        s = end;
    }
}

int io_number_list(io_ctx *c, const xmlNode *n, const char *name, double *out, int max,
                   int *count)
{
    char buf[512];
    if (!io_attr(n, name, buf, (int)sizeof buf)) return 0;
    *count = parse_numbers(buf, out, max);
    if (*count < 0)
        return io_fail(c, n, MBS_ERR_ARG, "attribute %s=\"%s\": expected at most %d finite "
                       "numbers", name, buf, max);
    return 1;
}

int io_numbers(io_ctx *c, const xmlNode *n, const char *name, double *out, int count)
{
    char buf[512];
    double v[16];
    if (!io_attr(n, name, buf, (int)sizeof buf)) return 0;
    if (count > 16 || parse_numbers(buf, v, count) != count)
        return io_fail(c, n, MBS_ERR_ARG, "attribute %s=\"%s\": expected %d finite numbers",
                       name, buf, count);
    memcpy(out, v, (size_t)count * sizeof *out);
    return 1;
}

int io_integer(io_ctx *c, const xmlNode *n, const char *name, int lo, int hi, int *out)
{
    double x = 0.0;
    const int got = io_numbers(c, n, name, &x, 1);
    if (got <= 0) return got;
    /* range first: converting a double outside int's range is undefined */
    if (!(x >= (double)lo && x <= (double)hi) || x != floor(x))
        return io_fail(c, n, MBS_ERR_ARG, "attribute %s=\"%g\": expected an integer in [%d, %d]", name, x, lo, hi);
    *out = (int)x;
    return 1;
}

/* R = Rz(yaw) Ry(pitch) Rx(roll): URDF's fixed-axis roll, pitch, yaw. */
static void rpy_matrix(const double rpy[3], double R[9])
{
    const double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
    const double cy = cos(rpy[2]), sy = sin(rpy[2]);
    const double M[9] = {cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
                         sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
                         -sp, cp * sr, cp * cr};
    memcpy(R, M, sizeof M);
}

int io_origin(io_ctx *c, const xmlNode *n, const char *tag, mbs_frame *f)
{
    double rpy[3] = {0, 0, 0};
    memset(f, 0, sizeof *f);
    f->rot[0] = f->rot[4] = f->rot[8] = 1.0;
    const xmlNode *o = io_child(n, tag);
    if (!o) return MBS_OK;
    int st = io_numbers(c, o, "xyz", f->pos, 3);
    const int has_rpy = st >= 0 ? io_numbers(c, o, "rpy", rpy, 3) : 0;
    const int has_rot = st >= 0 && has_rpy >= 0 ? io_numbers(c, o, "rot", f->rot, 9) : 0;
    if (st < 0 || has_rpy < 0 || has_rot < 0) return MBS_ERR_ARG;
    if (has_rpy && has_rot) return io_fail(c, o, MBS_ERR_ARG, "give rpy or rot, not both");
    if (has_rot && mbs_rot_check(f->rot) != 0)
        return io_fail(c, o, MBS_ERR_ARG, "rot is not a rotation matrix (row-major, orthonormal "
                       "within 1e-9, determinant +1)");
    if (rpy[0] != 0.0 || rpy[1] != 0.0 || rpy[2] != 0.0) rpy_matrix(rpy, f->rot);
    return MBS_OK;
}

io_link *io_find_link(io_ctx *c, const char *name)
{
    for (int i = 0; i < c->nlink; ++i)
        if (!strcmp(c->links[i].name, name)) return &c->links[i];
    return NULL;
}

/* Links, then joints (which need the links), the root's weld to the world, the check that
   every moving link carries mass somewhere below it, visuals, and the other elements. */
static int read_robot(io_ctx *c, const xmlNode *robot)
{
    int st = io_read_materials(c, robot);
    for (xmlNode *n = robot->children; st == MBS_OK && n; n = n->next)
        if (io_is(n, "link")) st = io_read_link(c, n);
    for (xmlNode *n = robot->children; st == MBS_OK && n; n = n->next)
        if (io_is(n, "joint")) st = io_read_joint(c, n);
    if (st == MBS_OK) st = io_weld_root(c, robot);
    for (xmlNode *n = robot->children; st == MBS_OK && n; n = n->next) {
        if (!io_is(n, "link")) continue;
        char name[128];
        io_attr(n, "name", name, (int)sizeof name);
        const io_link *l = io_find_link(c, name);
        st = io_read_visuals(c, n, l);
    }
    for (xmlNode *n = robot->children; st == MBS_OK && n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && !io_is(n, "link") && !io_is(n, "joint"))
            st = io_read_element(c, n);
    return st;
}

/* Read the file; libxml2 prints nothing (its message goes into ours). */
static xmlDoc *read_xml(mbs_builder *b, const char *path, int *st)
{
    xmlInitParser();
    xmlResetLastError();
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (doc) return doc;
    const xmlError *e = xmlGetLastError();
    char msg[200] = "cannot be read";
    if (e && e->message) {
        snprintf(msg, sizeof msg, "%s", e->message);
        msg[strcspn(msg, "\n")] = '\0';
    }
    *st = mbs_errorf(b->error, MBS_ERR_ARG, "%s:%d: not a model file: %s", path, e ? e->line : 0, msg);
    return NULL;
}

int mbs_builder_load(mbs_builder *b, const char *path)
{
    return mbs_builder_load_with(b, path, NULL);
}

int mbs_builder_load_with(mbs_builder *b, const char *path, const mbs_load_options *opt)
{
    if (!b) return MBS_ERR_ARG;
    if (!path) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_builder_load: path is NULL");
    int st = io_check_file(b, path);
    xmlDoc *doc = st == MBS_OK ? read_xml(b, path, &st) : NULL;
    if (!doc) return st;
    io_ctx c;
    memset(&c, 0, sizeof c);
    c.b = b, c.path = path;
    const xmlNode *root = xmlDocGetRootElement(doc);
    const mbs_builder_mark mark = mbs_builder_get_mark(b);
    if (!io_is(root, "robot"))
        st = io_fail(&c, root, MBS_ERR_ARG, "the root element must be <robot> (URDF)");
    else
        io_options_begin(&c, root, opt), st = read_robot(&c, root);
    if (st != MBS_OK) mbs_builder_rollback(b, &mark);
    free(c.links);
    free(c.mats);
    free(c.tj);
    xmlFreeDoc(doc);
    return st;
}
