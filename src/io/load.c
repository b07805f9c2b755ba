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

const char *io_attr(const xmlNode *n, const char *name)
{
    const xmlAttr *a = xmlHasProp(n, (const xmlChar *)name);
    if (!a) return NULL;
    /* one text node: documents with a DTD are refused, so no entity reference is left */
    const xmlNode *t = a->children;
    return t && t->type == XML_TEXT_NODE && t->content ? (const char *)t->content : "";
}

int io_one(io_ctx *c, const xmlNode *n, const char *tag, const xmlNode **out)
{
    *out = io_child(n, tag);
    for (const xmlNode *k = *out ? (*out)->next : NULL; k; k = k->next)
        if (io_is(k, tag))
            return io_fail(c, k, MBS_ERR_ARG, "a second <%s> in <%s> (one is meant; the first "
                           "is at line %ld)", tag, (const char *)n->name, xmlGetLineNo(*out));
    return MBS_OK;
}

int io_check_attrs(io_ctx *c, const xmlNode *n, const char *const *known)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        if (a->ns) continue; /* a namespace's attribute belongs to another tool */
        int k = 0;
        while (known[k] && strcmp(known[k], (const char *)a->name)) ++k;
        if (known[k]) continue;
        char list[300] = "";
        for (size_t j = 0, len = 0; known[j] && len < sizeof list; ++j)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "", known[j]);
        return io_fail(c, n, MBS_ERR_ARG, "unknown attribute %.64s (known: %s)",
                       (const char *)a->name, list);
    }
    return MBS_OK;
}

/* "<tag name="x">" of an element, for messages (a long name cut: it is only a place). */
static void describe(const xmlNode *n, char *buf, int len)
{
    const char *name = n ? io_attr(n, "name") : NULL;
    if (!n) {
        snprintf(buf, (size_t)len, "file");
    } else if (name) {
        snprintf(buf, (size_t)len, "<%s name=\"%.96s\">", (const char *)n->name, name);
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
    const char *buf = io_attr(n, name);
    if (!buf) return 0;
    *count = parse_numbers(buf, out, max);
    if (*count < 0)
        return io_fail(c, n, MBS_ERR_ARG, "attribute %s=\"%.64s\": expected at most %d finite "
                       "numbers", name, buf, max);
    return 1;
}

int io_numbers(io_ctx *c, const xmlNode *n, const char *name, double *out, int count)
{
    const char *buf = io_attr(n, name);
    double v[16];
    if (!buf) return 0;
    if (count > 16 || parse_numbers(buf, v, count) != count)
        return io_fail(c, n, MBS_ERR_ARG, "attribute %s=\"%.64s\": expected %d finite numbers",
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

int io_flag(io_ctx *c, const xmlNode *n, const char *name, int *out)
{
    const char *buf = io_attr(n, name);
    if (!buf) return MBS_OK;
    if (!strcmp(buf, "true") || !strcmp(buf, "1")) *out = 1;
    else if (!strcmp(buf, "false") || !strcmp(buf, "0")) *out = 0;
    else return io_fail(c, n, MBS_ERR_ARG, "attribute %s must be true or false, not \"%.64s\"", name, buf);
    return MBS_OK;
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
    static const char *const known[] = {"xyz", "rpy", "rot", NULL};
    const xmlNode *o;
    int st = io_one(c, n, tag, &o);
    if (st != MBS_OK || !o) return st;
    /* URDF's <origin> may carry other tools' attributes; the superset's frames may not */
    if (strcmp(tag, "origin") && (st = io_check_attrs(c, o, known)) != MBS_OK) return st;
    st = io_numbers(c, o, "xyz", f->pos, 3);
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
    const int i = io_names_find(&c->link_names, name);
    return i >= 0 ? &c->links[i] : NULL;
}

int io_joint_id(const io_ctx *c, const char *name)
{
    for (int j = 0; j < c->first_joint; ++j)
        if (c->b->joints[j].name && !strcmp(c->b->joints[j].name, name)) return j;
    return io_names_find(&c->joint_names, name);
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
    for (xmlNode *n = robot->children; st == MBS_OK && n; n = n->next)
        if (io_is(n, "joint")) st = io_read_mimic(c, n);
    for (xmlNode *n = robot->children; st == MBS_OK && n; n = n->next) {
        if (io_is(n, "link")) st = io_read_visuals(c, n, io_find_link(c, io_attr(n, "name")));
    }
    for (xmlNode *n = robot->children; st == MBS_OK && n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && !io_is(n, "link") && !io_is(n, "joint"))
            st = io_read_element(c, n);
    return st;
}

static int builder_load_impl(mbs_builder *b, const char *path)
{
    return mbs_builder_load_with(b, path, NULL);
}

int mbs_builder_load_with(mbs_builder *b, const char *path, const mbs_load_options *opt)
{
    if (!b) return MBS_ERR_ARG;
    if (!path) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_builder_load: path is NULL");
    int st = MBS_OK;
    xmlDoc *doc = io_read_doc(path, b->error, MBS_ERROR_LEN, &st);
    if (!doc) return st;
    io_ctx c;
    memset(&c, 0, sizeof c);
    c.b = b, c.path = path, c.first_joint = b->njoint;
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
    io_names_free(&c.link_names);
    io_names_free(&c.joint_names);
    xmlFreeDoc(doc);
    return st;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_builder_load(mbs_builder *b, const char *path)
{
    return mbs_builder_note(b, "mbs_builder_load", builder_load_impl(b, path));
}
