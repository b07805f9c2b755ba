/* Start values of tree joints and the coordinates held at assembly (MSL's start values with
 * fixed = true; Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library", §2). The builder keeps one entry per
 * call; compile lays them out over q and v (neutral and zero elsewhere) so that
 * mbs_data_create starts there, and mbs_assemble (src/loops/loops_select.c) keeps the held ones. */
#include "core/builder.h"
#include "core/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUAT_TOL 1e-6 /* a start quaternion may be off unit norm by this much */

/* "name" (id N) or #N of a builder joint. */
static const char *joint_lbl(const mbs_builder *b, int joint, char *buf, int len)
{
    const char *name = b->joints[joint].name;
    if (name && name[0])
        snprintf(buf, (size_t)len, "\"%s\" (id %d)", name, joint);
    else
        snprintf(buf, (size_t)len, "#%d", joint);
    return buf;
}

/* The coordinate ops of a builder joint that may take start values; a status (message
   naming the call and the joint) for a bad id or a cut joint. */
static int start_ops(mbs_builder *b, int joint, const char *call, const mbs_joint_ops **ops)
{
    char lbl[96];
    if (joint < 0 || joint >= b->njoint)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: joint %d does not exist (the builder "
                          "has %d joints)", call, joint, b->njoint);
    const mbs_joint_def *d = &b->joints[joint];
    *ops = d->cut ? NULL : mbs_joint_ops_for(d->type, d->rotation);
    if (!*ops)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: joint %s is a cut joint: it closes a "
                          "loop and has no coordinates", call, joint_lbl(b, joint, lbl, 96));
    return MBS_OK;
}

/* MBS_ERR_ARG unless count (the caller's) equals want (the joint's). */
static int check_count(mbs_builder *b, int joint, const char *what, int count, int want,
                       const char *type)
{
    if (count == want) return MBS_OK;
    char lbl[96];
    return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: start %s needs %d values for a %s "
                      "joint, got %d", joint_lbl(b, joint, lbl, 96), what, want, type, count);
}

/* MBS_ERR_ARG unless q holds finite bounded values whose quaternions (if any) have unit
   norm within QUAT_TOL: the joint's normalize must leave them (nearly) as they are. */
static int check_q(mbs_builder *b, int joint, const mbs_joint_ops *ops, const double *q)
{
    char lbl[96];
    if (!mbs_all_bounded(q, ops->nq))
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: start q is not finite or beyond "
                          "1e100 in magnitude", joint_lbl(b, joint, lbl, 96));
    double n[7];
    mbs_joint_model jm;
    memset(&jm, 0, sizeof jm);
    jm.ops = ops;
    memcpy(n, q, (size_t)ops->nq * sizeof *q);
    ops->normalize(&jm, n);
    for (int i = 0; i < ops->nq; ++i)
        if (!(fabs(n[i] - q[i]) <= QUAT_TOL))
            return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: start q[%d] = %g: its "
                              "quaternion is not of unit norm", joint_lbl(b, joint, lbl, 96),
                              i, q[i]);
    return MBS_OK;
}

/* Room for one more entry, zeroed and tagged with the joint; NULL when out of memory. */
static mbs_start_entry *new_entry(mbs_builder *b, int joint)
{
    if (mbs_builder_grow((void **)&b->starts, &b->start_cap, b->nstart + 1, sizeof *b->starts))
        return NULL;
    mbs_start_entry *e = &b->starts[b->nstart];
    memset(e, 0, sizeof *e);
    e->joint = joint;
    return e;
}

/* Start values q (nq) and v (nv) of a tree joint; either may be NULL (not given). */
static int set_joint_start_impl(mbs_builder *b, int joint, const double *q, int nq, const double *v,
                                int nv)
{
    if (!b) return MBS_ERR_ARG;
    const mbs_joint_ops *ops;
    int st = start_ops(b, joint, "mbs_set_joint_start", &ops);
    if (st != MBS_OK) return st;
    char lbl[96];
    if (!q && !v)
        return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_set_joint_start: joint %s: q and v are "
                          "both NULL", joint_lbl(b, joint, lbl, 96));
    if (q && (st = check_count(b, joint, "q", nq, ops->nq, ops->name)) != MBS_OK) return st;
    if (v && (st = check_count(b, joint, "v", nv, ops->nv, ops->name)) != MBS_OK) return st;
    if (q && (st = check_q(b, joint, ops, q)) != MBS_OK) return st;
    if (v && !mbs_all_bounded(v, ops->nv))
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: start v is not finite or beyond "
                          "1e100 in magnitude", joint_lbl(b, joint, lbl, 96));
    mbs_start_entry *e = new_entry(b, joint);
    if (!e) return mbs_errorf(b->error, MBS_ERR_NOMEM, "mbs_set_joint_start: out of memory");
    if (q) e->has_q = 1, memcpy(e->q, q, (size_t)ops->nq * sizeof *q);
    if (v) e->has_v = 1, memcpy(e->v, v, (size_t)ops->nv * sizeof *v);
    b->nstart++;
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_set_joint_start(mbs_builder *b, int joint, const double *q, int nq, const double *v,
                        int nv)
{
    return mbs_builder_note(b, "mbs_set_joint_start", set_joint_start_impl(b, joint, q, nq, v, nv));
}

/* Which coordinates of a tree joint mbs_assemble holds at their values: hold (nv). */
static int set_joint_hold_impl(mbs_builder *b, int joint, const unsigned char *hold, int nv)
{
    if (!b) return MBS_ERR_ARG;
    const mbs_joint_ops *ops;
    int st = start_ops(b, joint, "mbs_set_joint_hold", &ops);
    if (st != MBS_OK) return st;
    if (!hold) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_set_joint_hold: hold is NULL");
    if ((st = check_count(b, joint, "hold", nv, ops->nv, ops->name)) != MBS_OK) return st;
    mbs_start_entry *e = new_entry(b, joint);
    if (!e) return mbs_errorf(b->error, MBS_ERR_NOMEM, "mbs_set_joint_hold: out of memory");
    e->has_hold = 1;
    for (int i = 0; i < ops->nv; ++i) e->hold[i] = hold[i] != 0;
    b->nstart++;
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_set_joint_hold(mbs_builder *b, int joint, const unsigned char *hold, int nv)
{
    return mbs_builder_note(b, "mbs_set_joint_hold", set_joint_hold_impl(b, joint, hold, nv));
}

/* See builder.h. */
int mbs_start_compile(const mbs_builder *b, mbs_model *m, char *err)
{
    m->q_start = calloc((size_t)m->nq + 1, sizeof *m->q_start);
    m->v_start = calloc((size_t)m->nv + 1, sizeof *m->v_start);
    m->hold = calloc((size_t)m->nv + 1, 1);
    if (!m->q_start || !m->v_start || !m->hold)
        return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    mbs_neutral_q(m, m->q_start);
    for (int k = 0; k < b->nstart; ++k) {
        const mbs_start_entry *e = &b->starts[k];
        const mbs_joint_model *j = &m->joints[e->joint];
        if (j->cut) {
            char lbl[96];
            return mbs_errorf(err, MBS_ERR_ARG, "compile: joint %s has start values or held "
                              "coordinates but closes a loop (a cut joint has no coordinates): "
                              "mark another joint of the loop cut", mbs_joint_label(m, e->joint,
                              lbl, 96));
        }
        if (e->has_q) memcpy(m->q_start + j->qadr, e->q, (size_t)j->nq * sizeof *e->q);
        if (e->has_v) memcpy(m->v_start + j->vadr, e->v, (size_t)j->nv * sizeof *e->v);
        if (e->has_hold) memcpy(m->hold + j->vadr, e->hold, (size_t)j->nv);
    }
    m->nhold = 0;
    for (int i = 0; i < m->nv; ++i) m->nhold += m->hold[i];
    return MBS_OK;
}

/* The model's start values: q (nq x 1) and v (nv x 1), either may be NULL. */
int mbs_model_start(const mbs_model *m, double *q, double *v)
{
    if (!m) return MBS_ERR_ARG;
    if (q) memcpy(q, m->q_start, (size_t)m->nq * sizeof *q);
    if (v) memcpy(v, m->v_start, (size_t)m->nv * sizeof *v);
    return MBS_OK;
}

/* hold (nv x 1, nullable): 1 for a held coordinate; returns their number. */
int mbs_model_hold(const mbs_model *m, unsigned char *hold)
{
    if (!m) return MBS_ERR_ARG;
    if (hold) memcpy(hold, m->hold, (size_t)m->nv);
    return m->nhold;
}
