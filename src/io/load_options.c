/* Robot files as they ship (mbs_load_options): foreign elements skipped with a warning,
 * rounding junk in inertias read as zero, inertias that cannot act (a link welded to the
 * world) ignored, MuJoCo's balanceinertia on request, and the root's free joint. */
#include "io/io.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inertia entries below this fraction of the file's largest are junk (1e-18 .. 1e-35 where
   an exporter meant 0): far below any physical part of the same robot. The floor never
   exceeds JUNK_MAX (kg m^2, a gram at a millimetre), so that a file with absurd moments
   (1e20) cannot pass a real negative moment off as junk. */
#define JUNK_FRACTION 1e-12
#define JUNK_MAX 1e-9

void io_options_begin(io_ctx *c, const xmlNode *robot, const mbs_load_options *opt)
{
    static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    c->opt = opt ? *opt : mbs_default_load_options();
    c->robot = robot;
    double big = 0.0;
    for (const xmlNode *l = robot->children; l; l = l->next) {
        const xmlNode *in = io_is(l, "link") ? io_child(l, "inertial") : NULL;
        const xmlNode *ie = in ? io_child(in, "inertia") : NULL;
        for (int k = 0; ie && k < 6; ++k) {
            const char *a = io_attr(ie, names[k]);
            if (a) {
                const double x = fabs(strtod(a, NULL));
                if (x <= 1e300) big = fmax(big, x); /* NaN and huge: refused by the reader */
            }
        }
    }
    c->inertia_floor = fmin(JUNK_FRACTION * big, JUNK_MAX);
}

void io_warn(io_ctx *c, const xmlNode *n, const char *fmt, ...)
{
    if (!c->opt.warning) return;
    char msg[1024], tag[128], full[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n->ns && n->ns->prefix)
        snprintf(tag, sizeof tag, "%s:%s", (const char *)n->ns->prefix, (const char *)n->name);
    else
        snprintf(tag, sizeof tag, "%s", (const char *)n->name);
    const char *name = io_attr(n, "name");
    if (name)
        snprintf(full, sizeof full, "%s:%ld: <%s name=\"%.96s\">: %s", c->path, xmlGetLineNo(n), tag, name, msg);
    else
        snprintf(full, sizeof full, "%s:%ld: <%s>: %s", c->path, xmlGetLineNo(n), tag, msg);
    c->opt.warning(c->opt.user, full);
}

int io_skip_foreign(io_ctx *c, const xmlNode *n)
{
    static const char *const others[] = {"sensor", "mujoco", "frame"}; /* URDF, MuJoCo, Drake */
    const char *tag = (const char *)n->name;
    int foreign = n->ns != NULL || strchr(tag, ':') != NULL; /* declared or undeclared prefix */
    for (size_t k = 0; k < sizeof others / sizeof others[0]; ++k) foreign |= !strcmp(tag, others[k]);
    if (!foreign) return MBS_ERR_ARG;
    if (n->ns && n->ns->href)
        io_warn(c, n, "skipped (namespace %s: not URDF or mbs)", (const char *)n->ns->href);
    else
        io_warn(c, n, "skipped (not part of URDF's links and joints or of mbs's superset)");
    return MBS_OK;
}

/* The tree joint (not cut) whose child is link name, or NULL. */
static const xmlNode *parent_joint(const io_ctx *c, const char *name)
{
    for (const xmlNode *j = c->robot->children; j; j = j->next) {
        const xmlNode *ch = io_is(j, "joint") ? io_child(j, "child") : NULL;
        const char *link = ch ? io_attr(ch, "link") : NULL, *cut = ch ? io_attr(j, "cut") : NULL;
        if (!link || strcmp(link, name)) continue;
        if (cut && !strcmp(cut, "true")) continue;
        return j;
    }
    return NULL;
}

/* 1 if link name can never move: the world, the welded root, or fixed to such a link. */
static int immobile(const io_ctx *c, const char *name)
{
    const char *cur = name;
    for (int depth = 0; depth < 100000; ++depth) {
        if (!strcmp(cur, "world")) return 1;
        const xmlNode *j = parent_joint(c, cur), *p = j ? io_child(j, "parent") : NULL;
        if (!j) return !c->opt.floating_base; /* the root: welded unless floating */
        const char *type = io_attr(j, "type");
        cur = p ? io_attr(p, "link") : NULL;
        if (!type || strcmp(type, "fixed") || !cur) return 0;
    }
    return 0;
}

/* bd's inertia entries below the floor set to 0; how many there were. */
static int zero_junk(const io_ctx *c, mbs_body_def *bd)
{
    int junk = 0;
    for (int k = 0; k < 9; ++k)
        if (bd->inertia[k] != 0.0 && fabs(bd->inertia[k]) < c->inertia_floor) bd->inertia[k] = 0.0, ++junk;
    return junk;
}

/* Only an inertia that mbs_add_body would refuse is touched: valid files load as before. */
void io_settle_inertia(io_ctx *c, const xmlNode *n, mbs_body_def *bd)
{
    char err[MBS_ERROR_LEN], lbl[160];
    double sym[9] = {0};
    snprintf(lbl, sizeof lbl, "\"%s\"", bd->name);
    if (mbs_body_def_check(err, bd, lbl, sym) == MBS_OK) return;
    mbs_body_def z = *bd;
    const int junk = zero_junk(c, &z);
    if (junk && mbs_body_def_check(err, &z, lbl, sym) == MBS_OK) {
        io_warn(c, n, "%d inertia entries below %g (1e-12 of the file's largest, at most 1e-9) read as 0", junk,
                c->inertia_floor);
        memcpy(bd->inertia, z.inertia, sizeof z.inertia);
        return;
    }
    if (immobile(c, bd->name)) {
        io_warn(c, n, "the link cannot move (welded to the world), its inertia is ignored: %s", err);
        memset(bd->inertia, 0, sizeof bd->inertia);
        return;
    }
    /* balance only what the option is for; other failures stay refused by mbs_add_body */
    if (!c->opt.balance_inertia || !strstr(err, "triangle inequality")) return;
    const double mean = (sym[0] + sym[4] + sym[8]) / 3.0; /* sym: written before the test */
    memset(z.inertia, 0, sizeof z.inertia);
    z.inertia[0] = z.inertia[4] = z.inertia[8] = mean;
    if (mbs_body_def_check(err, &z, lbl, sym) != MBS_OK) return;
    io_warn(c, n, "principal moments violate the triangle inequality: balanced to %g each "
            "(balance_inertia)", mean);
    memcpy(bd->inertia, z.inertia, sizeof z.inertia);
}

mbs_joint_type io_root_joint(const io_ctx *c, const char **name)
{
    *name = c->opt.floating_base ? "floating_base" : NULL;
    return c->opt.floating_base ? MBS_JOINT_FREE : MBS_JOINT_FIXED;
}
