/* Compile of events, motions, friction, brakes and stops: each holding element must sit on
 * a scalar dof (q and v of the same meaning) of a tree joint, one motion or one friction and
 * one stop per dof; then the coordinate rows, the event function count and the copies of the
 * user events and motions into m->ev (events.h). */
#include <stdio.h>
#include <stdlib.h>

#include "core/builder.h"
#include "events/events.h"
#include "contact/shapes.h"
#include "planar/planar.h"
#include "core/dense.h"

/* Joint types whose every dof has q and v of the same meaning (and no re-base). */
static int holdable_type(mbs_joint_type type)
{
    return type == MBS_JOINT_REVOLUTE || type == MBS_JOINT_PRISMATIC ||
           type == MBS_JOINT_CYLINDRICAL || type == MBS_JOINT_UNIVERSAL ||
           type == MBS_JOINT_PLANAR;
}

/* 1 when dof of a joint of this type is a displacement (m), 0 for an angle. */
static int linear_dof(mbs_joint_type type, int dof)
{
    return type == MBS_JOINT_PRISMATIC || (type == MBS_JOINT_CYLINDRICAL && dof == 0) ||
           (type == MBS_JOINT_PLANAR && dof < 2);
}

/* 1 for the force elements that hold or limit a dof. */
static int is_fric(const mbs_force_model *f)
{
    return f->ops == &mbs_force_joint_friction_ops || f->ops == &mbs_force_joint_brake_ops;
}
static int is_stop(const mbs_force_model *f) { return f->ops == &mbs_force_joint_stop_ops; }

/* See events.h. */
int mbs_resolve_scalar_dof(const mbs_model *m, const char *label, int joint, int dof, int *qi,
                           int *vi, char *err)
{
    char jl[96];
    const mbs_joint_model *jm = &m->joints[joint];
    mbs_joint_label(m, joint, jl, (int)sizeof jl);
    if (jm->cut)
        return mbs_errorf(err, MBS_ERR_ARG, "%s: joint %s is a cut joint (no coordinates); mark "
                          "another joint of its loop cut", label, jl);
    if (!holdable_type(jm->type))
        return mbs_errorf(err, MBS_ERR_ARG, "%s: joint %s is a %s joint (its q and v differ in "
                          "meaning); use a revolute, prismatic, cylindrical, universal or planar "
                          "joint", label, jl, jm->ops ? jm->ops->name : "?");
    if (dof >= jm->nv)
        return mbs_errorf(err, MBS_ERR_ARG, "%s: dof %d out of range (joint %s has %d)", label,
                          dof, jl, jm->nv);
    *qi = jm->qadr + dof;
    *vi = jm->vadr + dof;
    return MBS_OK;
}

/* "joint friction "name" (id N)" / "joint stop #N" of force element i. */
static const char *force_label(const mbs_model *m, int i, char *buf, int len)
{
    const mbs_force_model *f = &m->forces[i];
    char id[64];
    snprintf(id, sizeof id, "%s", f->name);
    if (f->name[0]) snprintf(buf, (size_t)len, "%s \"%s\" (id %d)", f->ops->name, id, i);
    else snprintf(buf, (size_t)len, "%s #%d", f->ops->name, i);
    return buf;
}

/* Which element holds each dof: owner_motion, owner_fric, owner_stop ([nv], -1 none). One
   motion per dof and nothing else on it; one friction or brake; one stop. */
static int check_conflicts(const mbs_model *m, const mbs_events_model *ev, int *own, char *err)
{
    const int nv = m->nv;
    int *mot = own, *fr = own + nv, *sp = own + 2 * nv;
    char a[160], b[160];
    for (int k = 0; k < 3 * nv; ++k) own[k] = -1;
    for (int i = 0; i < ev->nmotion; ++i) {
        const int v = ev->motions[i].vindex;
        if (mot[v] >= 0)
            return mbs_errorf(err, MBS_ERR_ARG, "joint motions #%d and #%d drive the same dof "
                              "(%d of joint %d)", mot[v], i, ev->motions[i].dof, ev->motions[i].joint);
        mot[v] = i;
    }
    for (int i = 0; i < m->nforce; ++i) {
        const mbs_force_model *f = &m->forces[i];
        if (!is_fric(f) && !is_stop(f)) continue;
        int *slot = is_fric(f) ? &fr[f->vindex] : &sp[f->vindex];
        force_label(m, i, a, (int)sizeof a);
        if (mot[f->vindex] >= 0)
            return mbs_errorf(err, MBS_ERR_ARG, "%s: its dof has a prescribed motion (joint "
                              "motion #%d)", a, mot[f->vindex]);
        if (*slot >= 0)
            return mbs_errorf(err, MBS_ERR_ARG, "%s: its dof already has %s (one friction or "
                              "brake and one stop per dof)", a, force_label(m, *slot, b, (int)sizeof b));
        *slot = i;
    }
    return MBS_OK;
}

/* Resolve the dofs of the motions (copied from the builder) and of the force elements. */
static int resolve_all(const mbs_builder *b, mbs_model *m, mbs_events_model *ev, char *err)
{
    char label[160];
    for (int i = 0; i < ev->nmotion; ++i) {
        mbs_motion_model *mo = &ev->motions[i];
        *mo = b->motions[i];
        snprintf(label, sizeof label, "joint motion #%d", i);
        const int st =
            mbs_resolve_scalar_dof(m, label, mo->joint, mo->dof, &mo->qindex, &mo->vindex, err);
        if (st != MBS_OK) return st;
    }
    for (int i = 0; i < m->nforce; ++i) {
        mbs_force_model *f = &m->forces[i];
        if (!is_fric(f) && !is_stop(f)) continue;
        force_label(m, i, label, (int)sizeof label);
        const int st =
            mbs_resolve_scalar_dof(m, label, f->joint, f->dof, &f->qindex, &f->vindex, err);
        if (st != MBS_OK) return st;
        f->slot = is_fric(f) ? ev->nfric++ : ev->nstop++;
    }
    return MBS_OK;
}

/* Largest loop length scale (1 without cut joints): the unit of displacement rows. */
static double length_scale(const mbs_model *m)
{
    double L = 0.0;
    for (int j = 0; j < m->njoint; ++j)
        if (m->joints[j].cut && m->joints[j].con_length > L) L = m->joints[j].con_length;
    return L > 0.0 ? L : 1.0;
}

/* Scale of a row on (joint, dof): a displacement in units of the loops' length. */
static double row_scale(const mbs_model *m, int joint, int dof)
{
    return linear_dof(m->joints[joint].type, dof) ? 1.0 / length_scale(m) : 1.0;
}

/* Append coordinate row k for an element on (joint, dof) with q/v index. */
static void add_row(const mbs_model *m, mbs_events_model *ev, mbs_qrow_kind kind, int owner,
                    int joint, int dof, int qi, int vi)
{
    mbs_qrow *r = &ev->qrows[ev->nqrow++];
    r->kind = kind;
    r->owner = owner;
    r->joint = joint;
    r->dof = dof;
    r->qindex = qi;
    r->vindex = vi;
    r->scale = row_scale(m, joint, dof);
}

/* See events.h: the scales follow the loops' length scale. */
void mbs_events_rescale(mbs_model *m)
{
    for (int k = 0; m->ev && k < m->ev->nqrow; ++k)
        m->ev->qrows[k].scale = row_scale(m, m->ev->qrows[k].joint, m->ev->qrows[k].dof);
}

/* Rows (motions, frictions, restitution stops), the element lists and the pairing of a
   friction with a restitution stop on the same dof. own: the owners of check_conflicts. */
static void build_rows(mbs_model *m, mbs_events_model *ev, const int *own)
{
    const int nv = m->nv;
    ev->nfric = ev->nstop = 0;
    for (int i = 0; i < ev->nmotion; ++i) {
        mbs_motion_model *mo = &ev->motions[i];
        mo->row = ev->nqrow;
        add_row(m, ev, MBS_QROW_MOTION, i, mo->joint, mo->dof, mo->qindex, mo->vindex);
    }
    for (int i = 0; i < m->nforce; ++i)
        if (is_fric(&m->forces[i])) ev->fric[ev->nfric++] = i;
    for (int i = 0; i < m->nforce; ++i)
        if (is_stop(&m->forces[i])) ev->stop[ev->nstop++] = i;
    for (int k = 0; k < ev->nfric; ++k) {
        const mbs_force_model *f = &m->forces[ev->fric[k]];
        add_row(m, ev, MBS_QROW_FRICTION, ev->fric[k], f->joint, f->dof, f->qindex, f->vindex);
    }
    for (int k = 0; k < ev->nstop; ++k) {
        mbs_force_model *f = &m->forces[ev->stop[k]];
        ev->stop_fric[k] = ev->stop_row[k] = -1;
        if (f->law != MBS_STOP_RESTITUTION) continue;
        ev->stop_row[k] = ev->nqrow;
        add_row(m, ev, MBS_QROW_STOP, ev->stop[k], f->joint, f->dof, f->qindex, f->vindex);
        const int fo = own[nv + f->vindex];
        if (fo >= 0) {
            ev->stop_fric[k] = m->forces[fo].slot;
            ev->fric_stop[m->forces[fo].slot] = k;
        }
    }
}

/* Copy the user events (names too). */
static int copy_events(const mbs_builder *b, const mbs_model *m, mbs_events_model *ev)
{
    for (int i = 0; i < b->nevent; ++i) {
        ev->events[i] = b->events[i];
        ev->events[i].name = mbs_strdup_name(b->events[i].name);
        if (!ev->events[i].name) return MBS_ERR_NOMEM;
    }
    for (int i = b->nevent; i < ev->nevent; ++i) { /* then a contact start per shape pair */
        mbs_event_model *e = &ev->events[i];
        const mbs_contact_pair *q = mbs_contact_event_pair(m, i - b->nevent);
        char name[64];
        snprintf(name, sizeof name, "contact of shapes %d and %d", q->a, q->b);
        e->g = mbs_contact_event_g, e->h = mbs_contact_event_h, e->user = (void *)q;
        e->name = mbs_strdup_name(name);
        if (!e->name) return MBS_ERR_NOMEM;
    }
    return MBS_OK;
}

/* Allocate the arrays of ev for its counts (n of each array at least 1). */
static int ev_alloc(mbs_events_model *ev, int nforce)
{
    const size_t nf = (size_t)nforce + 1;
    ev->events = calloc((size_t)ev->nevent + 1, sizeof *ev->events);
    ev->motions = calloc((size_t)ev->nmotion + 1, sizeof *ev->motions);
    ev->qrows = calloc((size_t)ev->nmotion + nf, sizeof *ev->qrows);
    ev->fric = calloc(nf, sizeof(int));
    ev->stop = calloc(nf, sizeof(int));
    ev->fric_stop = calloc(nf, sizeof(int));
    ev->stop_fric = calloc(nf, sizeof(int));
    ev->stop_row = calloc(nf, sizeof(int));
    return ev->events && ev->motions && ev->qrows && ev->fric && ev->stop && ev->fric_stop &&
                   ev->stop_fric && ev->stop_row ? MBS_OK : MBS_ERR_NOMEM;
}

/* Number of friction, brake and stop elements of m. */
static int count_holders(const mbs_model *m)
{
    int n = 0;
    for (int i = 0; i < m->nforce; ++i) n += is_fric(&m->forces[i]) || is_stop(&m->forces[i]);
    return n;
}

/* Validate and build m->ev (events.h); resolves the force elements' q and v indices. */
static int compile_into(const mbs_builder *b, mbs_model *m, mbs_events_model *ev, char *err)
{
    int st = ev_alloc(ev, m->nforce);
    if (st == MBS_OK) st = copy_events(b, m, ev);
    if (st != MBS_OK) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    st = resolve_all(b, m, ev, err);
    if (st != MBS_OK) return st;
    int *own = malloc((size_t)(3 * m->nv + 1) * sizeof(int));
    if (!own) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    st = check_conflicts(m, ev, own, err);
    if (st == MBS_OK) {
        for (int k = 0; k < ev->nfric; ++k) ev->fric_stop[k] = -1;
        build_rows(m, ev, own);
    }
    free(own);
    ev->nfn = ev->nevent + ev->nfric + 2 * ev->nstop;
    ev->need_events = ev->nfn > 0;
    return st;
}

/* See events.h. */
int mbs_events_compile(const mbs_builder *b, mbs_model *m, char *err)
{
    m->ev = NULL;
    const int ncontact = mbs_contact_nevent(m);
    if (b->nevent == 0 && b->nmotion == 0 && count_holders(m) == 0 && ncontact == 0)
        return MBS_OK;
    mbs_events_model *ev = calloc(1, sizeof *ev);
    if (!ev) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    m->ev = ev;
    ev->nevent = b->nevent + ncontact;
    ev->nmotion = b->nmotion;
    int st = compile_into(b, m, ev, err);
    if (st == MBS_OK && !MBS_HAVE_LAPACK && m->ncon == 0 && ev->nqrow > MBS_DENSE_SMALL)
        st = mbs_errorf(err, MBS_ERR_STATE, "compile: %d joint coordinates may be held at once "
                        "(motions, friction, brakes, stops); this build of mbs has no LAPACK "
                        "(-Dlapack=disabled) and solves at most %d", ev->nqrow, MBS_DENSE_SMALL);
    if (st == MBS_OK && ev->nqrow > 0 && m->planar) { /* rows need the 3-D path's loops */
        mbs_planar_free(m->planar);
        m->planar = NULL;
    }
    return st;
}

/* See events.h. */
void mbs_events_model_free(mbs_events_model *ev)
{
    if (!ev) return;
    if (ev->events)
        for (int i = 0; i < ev->nevent; ++i) free(ev->events[i].name);
    free(ev->events);
    free(ev->motions);
    free(ev->qrows);
    free(ev->fric);
    free(ev->stop);
    free(ev->fric_stop);
    free(ev->stop_fric);
    free(ev->stop_row);
    free(ev);
}
