/* Adding curve joints to a builder and compiling their curves (contact.h). */
#include "contact/contact.h"

#include <math.h>
#include <stdlib.h>

#include "core/builder.h"

/* See mbs.h. */
mbs_curve_joint_def mbs_default_curve_joint_def(void)
{
    mbs_curve_joint_def d;
    memset(&d, 0, sizeof d);
    const mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_FIXED);
    d.frame_parent = j.frame_parent, d.frame_child = j.frame_child;
    d.curve_parent.kind = d.curve_child.kind = MBS_CURVE_LINE;
    return d;
}

/* A curve's parameters; MBS_ERR_ARG naming the joint and which curve. */
static int check_curve(mbs_builder *b, const mbs_curve *c, const char *which, const char *lbl)
{
    const int k = (int)c->kind;
    if (k < (int)MBS_CURVE_LINE || k > (int)MBS_CURVE_USER)
        return mbs_errorf(b->error, MBS_ERR_ARG, "curve joint %s: %s curve: unknown kind %d", lbl,
                          which, k);
    if (c->kind == MBS_CURVE_USER && !c->fn)
        return mbs_errorf(b->error, MBS_ERR_ARG, "curve joint %s: %s curve: a user curve needs "
                          "fn", lbl, which);
    if (c->kind == MBS_CURVE_USER && !(c->period >= 0.0 && c->period <= MBS_MAX_VALUE))
        return mbs_errorf(b->error, MBS_ERR_ARG, "curve joint %s: %s curve: period %g must be "
                          ">= 0 and finite", lbl, which, c->period);
    const int ellipse = c->kind == MBS_CURVE_ELLIPSE;
    if ((c->kind == MBS_CURVE_CIRCLE || ellipse) && !(c->a > 0.0 && c->a <= MBS_MAX_VALUE))
        return mbs_errorf(b->error, MBS_ERR_ARG, "curve joint %s: %s curve: %s %g must be > 0 "
                          "and finite", lbl, which, ellipse ? "semi-axis a" : "radius a", c->a);
    if (ellipse && !(c->b > 0.0 && c->b <= MBS_MAX_VALUE))
        return mbs_errorf(b->error, MBS_ERR_ARG, "curve joint %s: %s curve: semi-axis b %g must "
                          "be > 0 and finite", lbl, which, c->b);
    return MBS_OK;
}

/* The compiled form of one curve (side: see contact.h and mbs.h). */
static mbs_curve_model curve_model(const mbs_curve *c)
{
    mbs_curve_model m;
    m.kind = c->kind, m.a = c->a, m.b = c->b, m.fn = c->fn, m.user = c->user;
    m.side = (c->kind == MBS_CURVE_LINE ? -1.0 : 1.0) * (c->flip ? -1.0 : 1.0);
    m.period = c->kind == MBS_CURVE_USER ? c->period : 0.0;
    mbs_curve_derive(&m);
    return m;
}

/* See contact.h. */
void mbs_curve_derive(mbs_curve_model *m)
{
    const double twopi = 6.283185307179586;
    if (m->kind == MBS_CURVE_CIRCLE) m->period = twopi * m->a;
    if (m->kind == MBS_CURVE_ELLIPSE) m->period = twopi;
    m->size = m->kind == MBS_CURVE_CIRCLE    ? m->a
              : m->kind == MBS_CURVE_ELLIPSE ? fmax(m->a, m->b)
                                             : 0.0;
}

/* Validate def; MBS_ERR_ARG naming the joint. */
static int check_def(mbs_builder *b, const mbs_curve_joint_def *def, const char *lbl)
{
    int st = check_curve(b, &def->curve_parent, "parent", lbl);
    if (st == MBS_OK) st = check_curve(b, &def->curve_child, "child", lbl);
    if (st != MBS_OK) return st;
    if (def->curve_parent.kind == MBS_CURVE_LINE && def->curve_child.kind == MBS_CURVE_LINE)
        return mbs_errorf(b->error, MBS_ERR_ARG, "curve joint %s: two lines cannot touch at one "
                          "point", lbl);
    if (!(fabs(def->s_parent) <= MBS_MAX_VALUE) || !(fabs(def->s_child) <= MBS_MAX_VALUE))
        return mbs_errorf(b->error, MBS_ERR_ARG, "curve joint %s: s_parent %g or s_child %g is "
                          "not finite", lbl, def->s_parent, def->s_child);
    return MBS_OK;
}

/* See mbs.h: a cut joint of type MBS_JOINT_CURVE (the plane normal z of its frames as its
   axis, x as axis2) and its curves kept by the builder. */
static int add_curve_joint_impl(mbs_builder *b, const mbs_curve_joint_def *def)
{
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_curve_joint: def is NULL");
    char lbl[96];
    mbs_name_label(def->name, b->njoint, lbl, (int)sizeof lbl);
    int st = check_def(b, def, lbl);
    if (st != MBS_OK) return st;
    if (mbs_builder_grow((void **)&b->curves, &b->curve_cap, b->ncurve + 1, sizeof *b->curves) != 0)
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "curve joint %s: out of memory", lbl);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_CURVE);
    j.name = def->name, j.parent = def->parent, j.child = def->child;
    j.frame_parent = def->frame_parent, j.frame_child = def->frame_child;
    const int id = mbs_builder_push_joint(b, &j, 1);
    if (id < 0) return id;
    mbs_curve_pair *p = &b->curves[b->ncurve];
    p->c[0] = curve_model(&def->curve_parent), p->c[1] = curve_model(&def->curve_child);
    p->s0[0] = def->s_parent, p->s0[1] = def->s_child;
    p->rolling = def->rolling != 0;
    p->joint = id;
    b->ncurve++;
    return id;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_curve_joint(mbs_builder *b, const mbs_curve_joint_def *def)
{
    return mbs_builder_note(b, "mbs_add_curve_joint", add_curve_joint_impl(b, def));
}

/* See contact.h. */
void mbs_curve_rollback(mbs_builder *b, int njoint)
{
    int n = 0;
    for (int i = 0; i < b->ncurve; ++i)
        if (b->curves[i].joint < njoint) b->curves[n++] = b->curves[i];
    b->ncurve = n;
}

/* See contact.h. */
int mbs_curve_compile(const mbs_builder *b, int joint, mbs_joint_model *jm)
{
    for (int i = 0; i < b->ncurve; ++i) {
        if (b->curves[i].joint != joint) continue;
        jm->curve = malloc(sizeof *jm->curve);
        if (!jm->curve) return MBS_ERR_NOMEM;
        *jm->curve = b->curves[i];
        return MBS_OK;
    }
    return MBS_ERR_STATE;
}
