/* Builder calls of events, prescribed motions, joint friction, brakes and stops: validated on
 * entry (a rejected call leaves the builder unchanged); what needs the whole graph (a tree
 * joint, a scalar dof, one holding element per dof) is checked by mbs_events_compile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/builder.h"
#include "events/events.h"
#include "elements/force_builder.h"

#define EV_LABEL_LEN 128

/* "kind #id on joint "name"" of an element about to be added (id = its future id). */
static const char *joint_element_label(const mbs_builder *b, const char *kind, const char *name,
                                       int id, int joint, char *buf)
{
    const char *jn = joint >= 0 && joint < b->njoint ? b->joints[joint].name : NULL;
    int n = name && name[0] ? snprintf(buf, EV_LABEL_LEN, "%s \"%s\"", kind, name)
                            : snprintf(buf, EV_LABEL_LEN, "%s #%d", kind, id);
    if (n > 0 && n < EV_LABEL_LEN && jn && jn[0])
        snprintf(buf + n, (size_t)(EV_LABEL_LEN - n), " on joint \"%s\"", jn);
    else if (n > 0 && n < EV_LABEL_LEN)
        snprintf(buf + n, (size_t)(EV_LABEL_LEN - n), " on joint %d", joint);
    return buf;
}

/* The joint id and dof of an element must name a joint of the builder and a dof >= 0. */
static int check_joint_dof(mbs_builder *b, const char *label, int joint, int dof)
{
    if (joint < 0 || joint >= b->njoint)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: unknown joint %d (the builder has %d)",
                          label, joint, b->njoint);
    if (dof < 0)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: dof %d is negative", label, dof);
    return MBS_OK;
}

/* A value that must be finite, within MBS_MAX_VALUE and >= lo. */
static int check_value(mbs_builder *b, const char *label, const char *what, double x, double lo)
{
    if (!(fabs(x) <= MBS_MAX_VALUE))
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: %s = %g is not finite or beyond 1e100 in "
                          "magnitude", label, what, x);
    if (x < lo)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: %s = %g must be >= %g", label, what, x, lo);
    return MBS_OK;
}

/* Append f with a copy of name; its id, or a status (the name freed) with the message. */
static int push(mbs_builder *b, mbs_force_model *f, const char *name, const char *label)
{
    f->name = mbs_strdup_name(name);
    if (!f->name) return mbs_errorf(b->error, MBS_ERR_NOMEM, "%s: out of memory", label);
    const int id = mbs_builder_push_force(b, f);
    if (id < 0) free(f->name);
    return id;
}

mbs_joint_friction_def mbs_default_joint_friction_def(void)
{
    mbs_joint_friction_def def = {0};
    def.joint = -1;
    return def;
}

/* Coulomb + viscous friction with stiction on one dof (joint_friction.c, src/events/). */
static int add_joint_friction_impl(mbs_builder *b, const mbs_joint_friction_def *def)
{
    char label[EV_LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_joint_friction: def is NULL");
    joint_element_label(b, "joint friction", def->name, b->nforce, def->joint, label);
    int st = check_joint_dof(b, label, def->joint, def->dof);
    if (st == MBS_OK) st = check_value(b, label, "coulomb", def->coulomb, 0.0);
    if (st == MBS_OK) st = check_value(b, label, "stiction", def->stiction, 0.0);
    if (st == MBS_OK) st = check_value(b, label, "viscous", def->viscous, 0.0);
    if (st == MBS_OK && def->stiction < def->coulomb)
        st = mbs_errorf(b->error, MBS_ERR_ARG, "%s: stiction = %g is below coulomb = %g (the "
                        "break-away limit must be at least the sliding friction)", label,
                        def->stiction, def->coulomb);
    if (st != MBS_OK) return st;
    mbs_force_model f = mbs_force_joint_element(&mbs_force_joint_friction_ops, def->joint, def->dof);
    f.coulomb = def->coulomb;
    f.stiction = def->stiction;
    f.viscous = def->viscous;
    return push(b, &f, def->name, label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_joint_friction(mbs_builder *b, const mbs_joint_friction_def *def)
{
    return mbs_builder_note(b, "mbs_add_joint_friction", add_joint_friction_impl(b, def));
}

mbs_joint_brake_def mbs_default_joint_brake_def(void)
{
    mbs_joint_brake_def def = {0};
    def.joint = -1;
    def.peak = 1.0;
    return def;
}

/* Friction whose limit is a host input (joint_friction.c): coulomb holds the initial limit,
   stiction the peak factor. */
static int add_joint_brake_impl(mbs_builder *b, const mbs_joint_brake_def *def)
{
    char label[EV_LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_joint_brake: def is NULL");
    joint_element_label(b, "joint brake", def->name, b->nforce, def->joint, label);
    int st = check_joint_dof(b, label, def->joint, def->dof);
    if (st == MBS_OK) st = check_value(b, label, "limit", def->limit, 0.0);
    if (st == MBS_OK) st = check_value(b, label, "peak", def->peak, 1.0);
    if (st != MBS_OK) return st;
    mbs_force_model f = mbs_force_joint_element(&mbs_force_joint_brake_ops, def->joint, def->dof);
    f.coulomb = def->limit;
    f.stiction = def->peak;
    return push(b, &f, def->name, label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_joint_brake(mbs_builder *b, const mbs_joint_brake_def *def)
{
    return mbs_builder_note(b, "mbs_add_joint_brake", add_joint_brake_impl(b, def));
}

mbs_reaction_friction_def mbs_default_reaction_friction_def(void)
{
    mbs_reaction_friction_def def = {0};
    def.joint = -1;
    return def;
}

/* The coefficients: mu > 0, mu_stick >= mu (0: mu), a revolute's radius > 0, axial >= 0. */
static int check_reaction_values(mbs_builder *b, const char *label,
                                 const mbs_reaction_friction_def *def, int revolute)
{
    int st = check_value(b, label, "mu", def->mu, 0.0);
    if (st == MBS_OK && !(def->mu > 0.0))
        st = mbs_errorf(b->error, MBS_ERR_ARG, "%s: mu must be > 0", label);
    if (st == MBS_OK && def->mu_stick != 0.0) st = check_value(b, label, "mu_stick", def->mu_stick, def->mu);
    if (st == MBS_OK && revolute) st = check_value(b, label, "axial", def->axial, 0.0);
    if (st == MBS_OK && revolute) st = check_value(b, label, "radius", def->radius, 0.0);
    if (st == MBS_OK && revolute && !(def->radius > 0.0))
        st = mbs_errorf(b->error, MBS_ERR_ARG, "%s: a revolute joint's radius must be > 0", label);
    return st;
}

/* A brake (joint_friction.c) whose limit analysis/reaction_friction.c takes from the joint's
   reaction: coulomb 0 (the first limit), stiction the peak mu_stick / mu. */
static int add_reaction_friction_impl(mbs_builder *b, const mbs_reaction_friction_def *def)
{
    char label[EV_LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_reaction_friction: def is NULL");
    joint_element_label(b, "reaction friction", def->name, b->nforce, def->joint, label);
    int st = check_joint_dof(b, label, def->joint, 0);
    const mbs_joint_type type = st == MBS_OK ? b->joints[def->joint].type : MBS_JOINT_FIXED;
    if (st == MBS_OK && type != MBS_JOINT_REVOLUTE && type != MBS_JOINT_PRISMATIC)
        st = mbs_errorf(b->error, MBS_ERR_ARG, "%s: the joint must be revolute or prismatic",
                        label);
    if (st == MBS_OK) st = check_reaction_values(b, label, def, type == MBS_JOINT_REVOLUTE);
    if (st != MBS_OK) return st;
    mbs_force_model f = mbs_force_joint_element(&mbs_force_joint_brake_ops, def->joint, 0);
    f.reaction = 1;
    f.mu = def->mu;
    f.stiction = def->mu_stick != 0.0 ? def->mu_stick / def->mu : 1.0;
    f.radius = type == MBS_JOINT_REVOLUTE ? def->radius : 1.0;
    f.axial = type == MBS_JOINT_REVOLUTE ? def->axial : 0.0;
    return push(b, &f, def->name, label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_reaction_friction(mbs_builder *b, const mbs_reaction_friction_def *def)
{
    return mbs_builder_note(b, "mbs_add_reaction_friction", add_reaction_friction_impl(b, def));
}

mbs_joint_stop_def mbs_default_joint_stop_def(void)
{
    mbs_joint_stop_def def = {0};
    def.joint = -1;
    def.lower = -INFINITY;
    def.upper = INFINITY;
    def.law = MBS_STOP_RESTITUTION;
    def.restitution = 0.5;
    def.rest_velocity = 1e-3;
    return def;
}

/* Limits: not NaN, finite ones within MBS_MAX_VALUE, lower < upper, at least one finite. */
static int check_limits(mbs_builder *b, const char *label, double lo, double up)
{
    if (isnan(lo) || isnan(up) || (isfinite(lo) && !(fabs(lo) <= MBS_MAX_VALUE)) ||
        (isfinite(up) && !(fabs(up) <= MBS_MAX_VALUE)) || lo == INFINITY || up == -INFINITY)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: limits lower = %g, upper = %g must be "
                          "numbers (lower may be -INFINITY, upper INFINITY)", label, lo, up);
    if (!(lo < up))
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: lower = %g must be below upper = %g",
                          label, lo, up);
    if (!isfinite(lo) && !isfinite(up))
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: no limit (lower and upper both infinite)",
                          label);
    return MBS_OK;
}

/* The law's own parameters. */
static int check_stop_law(mbs_builder *b, const char *label, const mbs_joint_stop_def *def)
{
    if (def->law == MBS_STOP_ELASTIC) {
        int st = check_value(b, label, "damping", def->damping, 0.0);
        if (st == MBS_OK) st = check_value(b, label, "stiffness", def->stiffness, 0.0);
        if (st == MBS_OK && !(def->stiffness > 0.0))
            st = mbs_errorf(b->error, MBS_ERR_ARG, "%s: an elastic stop needs stiffness > 0",
                            label);
        return st;
    }
    if (def->law != MBS_STOP_RESTITUTION)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: unknown law %d (MBS_STOP_ELASTIC or "
                          "MBS_STOP_RESTITUTION)", label, (int)def->law);
    int st = check_value(b, label, "restitution", def->restitution, 0.0);
    if (st == MBS_OK && def->restitution > 1.0)
        st = mbs_errorf(b->error, MBS_ERR_ARG, "%s: restitution = %g must be in [0, 1]", label,
                        def->restitution);
    if (st == MBS_OK) st = check_value(b, label, "rest_velocity", def->rest_velocity, 0.0);
    if (st == MBS_OK && !(def->rest_velocity > 0.0))
        st = mbs_errorf(b->error, MBS_ERR_ARG, "%s: rest_velocity must be > 0", label);
    return st;
}

/* Position limits with an elastic or a restitution law (joint_stop.c, src/events/). */
static int add_joint_stop_impl(mbs_builder *b, const mbs_joint_stop_def *def)
{
    char label[EV_LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_joint_stop: def is NULL");
    joint_element_label(b, "joint stop", def->name, b->nforce, def->joint, label);
    int st = check_joint_dof(b, label, def->joint, def->dof);
    if (st == MBS_OK) st = check_limits(b, label, def->lower, def->upper);
    if (st == MBS_OK) st = check_stop_law(b, label, def);
    if (st != MBS_OK) return st;
    mbs_force_model f = mbs_force_joint_element(&mbs_force_joint_stop_ops, def->joint, def->dof);
    f.lower = def->lower;
    f.upper = def->upper;
    f.law = (int)def->law;
    f.stiffness = def->law == MBS_STOP_ELASTIC ? def->stiffness : 0.0;
    f.damping = def->law == MBS_STOP_ELASTIC ? def->damping : 0.0;
    f.restitution = def->restitution;
    f.rest_velocity = def->rest_velocity;
    return push(b, &f, def->name, label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_joint_stop(mbs_builder *b, const mbs_joint_stop_def *def)
{
    return mbs_builder_note(b, "mbs_add_joint_stop", add_joint_stop_impl(b, def));
}

/* A user zero-crossing function and its handler; the event id. */
static int add_event_impl(mbs_builder *b, const char *name, mbs_event_fn g, mbs_event_handler h,
                          void *user)
{
    char label[EV_LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    mbs_name_label(name, b->nevent, label, EV_LABEL_LEN);
    if (!g) return mbs_errorf(b->error, MBS_ERR_ARG, "event %s: function g is NULL", label);
    if (mbs_builder_grow((void **)&b->events, &b->event_cap, b->nevent + 1, sizeof *b->events))
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "event %s: out of memory", label);
    char *copy = mbs_strdup_name(name);
    if (!copy) return mbs_errorf(b->error, MBS_ERR_NOMEM, "event %s: out of memory", label);
    mbs_event_model *e = &b->events[b->nevent];
    e->name = copy;
    e->g = g;
    e->h = h;
    e->user = user;
    return b->nevent++;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_event(mbs_builder *b, const char *name, mbs_event_fn g, mbs_event_handler h,
                  void *user)
{
    return mbs_builder_note(b, "mbs_add_event", add_event_impl(b, name, g, h, user));
}

/* Prescribed motion of one dof; the motion id. */
static int add_joint_motion_impl(mbs_builder *b, int joint, int dof, mbs_motion_fn fn, void *user)
{
    char label[EV_LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    joint_element_label(b, "joint motion", NULL, b->nmotion, joint, label);
    int st = check_joint_dof(b, label, joint, dof);
    if (st == MBS_OK && !fn)
        st = mbs_errorf(b->error, MBS_ERR_ARG, "%s: function is NULL", label);
    if (st != MBS_OK) return st;
    if (mbs_builder_grow((void **)&b->motions, &b->motion_cap, b->nmotion + 1, sizeof *b->motions))
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "%s: out of memory", label);
    mbs_motion_model *mo = &b->motions[b->nmotion];
    mo->joint = joint;
    mo->dof = dof;
    mo->qindex = mo->vindex = mo->row = -1;
    mo->fn = fn;
    mo->user = user;
    return b->nmotion++;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_joint_motion(mbs_builder *b, int joint, int dof, mbs_motion_fn fn, void *user)
{
    return mbs_builder_note(b, "mbs_add_joint_motion", add_joint_motion_impl(b, joint, dof, fn, user));
}

/* See builder.h. */
void mbs_events_builder_truncate(mbs_builder *b, int nevent, int nmotion)
{
    for (int i = nevent; i < b->nevent; ++i) free(b->events[i].name);
    if (nevent < b->nevent) b->nevent = nevent;
    if (nmotion < b->nmotion) b->nmotion = nmotion;
}
