/* Builder calls of the two-frame force (frame_force.c) and the user line law (line_law.c):
 * validate the whole definition, then append the element; a rejected call leaves the
 * builder unchanged. */
#include "elements/force_builder.h"
#include "core/internal.h"

/* No name, body_a the world, body_b -1 (must be set), identity frames, resolved in frame_b,
   zero value, no callback. */
mbs_frame_force_def mbs_default_frame_force_def(void)
{
    mbs_frame_force_def def;
    memset(&def, 0, sizeof def);
    def.body_a = MBS_WORLD;
    def.body_b = -1;
    m3_identity(def.frame_a.rot);
    m3_identity(def.frame_b.rot);
    def.resolve = MBS_RESOLVE_FRAME_B;
    return def;
}

/* A frame of the element: finite, bounded, rotation orthonormal with det +1. */
static int check_element_frame(mbs_builder *b, const mbs_frame *f, const char *which,
                               const char *label)
{
    if (!mbs_all_bounded(f->pos, 3) || !mbs_all_bounded(f->rot, 9))
        return mbs_errorf(b->error, MBS_ERR_ARG, "frame force %s: %s is not finite or beyond "
                          "1e100 in magnitude", label, which);
    if (mbs_rot_check(f->rot) != 0)
        return mbs_errorf(b->error, MBS_ERR_ARG, "frame force %s: %s rotation is not a rotation "
                          "(orthonormal, determinant +1)", label, which);
    return MBS_OK;
}

/* Bodies, frames, resolve option and constant value of a two-frame force definition. */
static int check_frame_force(mbs_builder *b, const mbs_frame_force_def *def, const char *label)
{
    if (def->body_b < 1 || def->body_b > b->nbody)
        return mbs_errorf(b->error, MBS_ERR_ARG, "frame force %s: body_b %d must be a body "
                          "1..%d (not the world)", label, def->body_b, b->nbody);
    if (def->body_a < 0 || def->body_a > b->nbody || def->body_a == def->body_b)
        return mbs_errorf(b->error, MBS_ERR_ARG, "frame force %s: body_a %d must be the world or "
                          "a body other than body_b", label, def->body_a);
    int st = check_element_frame(b, &def->frame_a, "frame_a", label);
    if (st == MBS_OK) st = check_element_frame(b, &def->frame_b, "frame_b", label);
    if (st != MBS_OK) return st;
    if (def->resolve != MBS_RESOLVE_WORLD && def->resolve != MBS_RESOLVE_FRAME_A &&
        def->resolve != MBS_RESOLVE_FRAME_B)
        return mbs_errorf(b->error, MBS_ERR_ARG, "frame force %s: unknown resolve option %d",
                          label, (int)def->resolve);
    if (!mbs_all_bounded(def->force, 3) || !mbs_all_bounded(def->torque, 3))
        return mbs_errorf(b->error, MBS_ERR_ARG, "frame force %s: force or torque is not finite "
                          "or beyond 1e100 in magnitude", label);
    return MBS_OK;
}

/* Force and torque between two frames; returns the element id. */
static int add_frame_force_impl(mbs_builder *b, const mbs_frame_force_def *def)
{
    char label[LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_frame_force: def is NULL");
    mbs_force_label(b, def->name, label, LABEL_LEN);
    const int st = check_frame_force(b, def, label);
    if (st != MBS_OK) return st;
    mbs_force_model f = {0};
    f.ops = &mbs_force_frame_force_ops;
    f.body_a = def->body_a;
    f.body_b = def->body_b;
    f.joint = f.dof = f.vindex = f.qindex = -1;
    memcpy(f.frame_a.R, def->frame_a.rot, sizeof f.frame_a.R);
    v3_copy(f.frame_a.p, def->frame_a.pos);
    memcpy(f.frame_b.R, def->frame_b.rot, sizeof f.frame_b.R);
    v3_copy(f.frame_b.p, def->frame_b.pos);
    f.resolve = (int)def->resolve;
    v3_copy(f.value, def->force);
    v3_copy(f.value + 3, def->torque);
    f.frame_fn = def->fn;
    f.user = def->user;
    return mbs_force_push(b, &f, def->name, "frame force", label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_frame_force(mbs_builder *b, const mbs_frame_force_def *def)
{
    return mbs_builder_note(b, "mbs_add_frame_force", add_frame_force_impl(b, def));
}

/* No name, both bodies the world, points 0, no law, no potential. */
mbs_line_force_def mbs_default_line_force_def(void)
{
    mbs_line_force_def def;
    memset(&def, 0, sizeof def);
    def.body_a = def.body_b = MBS_WORLD;
    return def;
}

/* Line force with a user law between two body points; returns the element id. */
static int add_line_force_impl(mbs_builder *b, const mbs_line_force_def *def)
{
    char label[LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_line_force: def is NULL");
    mbs_force_label(b, def->name, label, LABEL_LEN);
    const int st = mbs_line_points_check(b, "line force", label, def->body_a, def->body_b,
                                         def->point_a, def->point_b);
    if (st != MBS_OK) return st;
    if (!def->law)
        return mbs_errorf(b->error, MBS_ERR_ARG, "line force %s: law is NULL", label);
    mbs_force_model f = {0};
    f.ops = &mbs_force_line_law_ops;
    f.body_a = def->body_a;
    f.body_b = def->body_b;
    v3_copy(f.point_a, def->point_a);
    v3_copy(f.point_b, def->point_b);
    f.joint = f.dof = f.vindex = f.qindex = -1;
    f.line_law = def->law;
    f.line_potential = def->potential;
    f.user = def->user;
    return mbs_force_push(b, &f, def->name, "line force", label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_line_force(mbs_builder *b, const mbs_line_force_def *def)
{
    return mbs_builder_note(b, "mbs_add_line_force", add_line_force_impl(b, def));
}
