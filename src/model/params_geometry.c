/* Geometry parameters of a compiled model (mbs.h, mbs_param_kind from
 * MBS_PARAM_FRAME_PARENT_POS on): the position and Cardan angles of a joint's two frames, a
 * distance joint's length, the radius or semi-axes of a curve joint's curves. Each value is
 * checked as the builder checks it; what compile derives from the geometry is derived again
 * by the same functions: whether the child frame is the identity and the joint's kernels, the
 * cut joints' rows in body coordinates with their loops' length scales (a tree joint's
 * offsets are part of them), the coordinate rows' scales, a curve's period and size. Data
 * objects see the new geom_rev at their next state check and derive their part again
 * (the constant subspaces, the loops' row scales and selection). The planar path and the
 * closed-form loop closures derive geometry of their own at compile; their models are
 * refused. */
#include "core/params.h"
#include "core/internal.h"
#include "core/kernels.h"
#include "core/rotation.h"
#include "contact/contact.h"
#include "events/events.h"

#include <stdint.h>

/* See params.h. */
int mbs_param_is_geometry(const mbs_param *p)
{
    return p->kind >= MBS_PARAM_FRAME_PARENT_POS && p->kind <= MBS_PARAM_CURVE_SIZE;
}

/* 1 for the kinds of a joint frame's rotation, of its parent frame. */
static int is_rot(const mbs_param *p)
{
    return p->kind == MBS_PARAM_FRAME_PARENT_ROT || p->kind == MBS_PARAM_FRAME_CHILD_ROT;
}
static int is_parent_frame(const mbs_param *p)
{
    return p->kind == MBS_PARAM_FRAME_PARENT_POS || p->kind == MBS_PARAM_FRAME_PARENT_ROT;
}

/* The frame a frame kind names. */
static mbs_pose *frame_of(mbs_joint_model *jm, const mbs_param *p)
{
    return is_parent_frame(p) ? &jm->frame_parent : &jm->frame_child;
}

/* The curve a MBS_PARAM_CURVE_SIZE names: index 0, 1 the parent's, 2, 3 the child's. */
static mbs_curve_model *curve_of(const mbs_joint_model *jm, const mbs_param *p)
{
    return &jm->curve->c[p->index / 2];
}

/* A curve's value p->index exists: a circle's radius, an ellipse's semi-axes. */
static int check_curve(const mbs_joint_model *jm, const mbs_param *p, const char *lbl, char *err)
{
    static const char *const kinds[] = {"line", "circle", "ellipse", "user curve"};
    if (!jm->curve)
        return mbs_errorf(err, MBS_ERR_ARG, "parameter: joint %s is a %s, not a curve joint", lbl,
                          jm->ops ? jm->ops->name : "joint");
    const mbs_curve_model *c = curve_of(jm, p);
    if (c->kind == MBS_CURVE_ELLIPSE || (c->kind == MBS_CURVE_CIRCLE && p->index % 2 == 0))
        return MBS_OK;
    return mbs_errorf(err, MBS_ERR_ARG, "parameter: curve joint %s: its %s curve is a %s, "
                      "which has no %s", lbl, p->index < 2 ? "parent" : "child", kinds[c->kind],
                      p->index % 2 ? "semi-axis b" : "radius or semi-axis a");
}

/* See params.h: the joint exists, is the user's, and has that geometry. */
int mbs_param_geometry_check(const mbs_model *m, const mbs_param *p, char *err)
{
    if (m->planar || m->closure)
        return mbs_errorf(err, MBS_ERR_ARG, "parameter: compile put this model on the planar "
                          "path or closes its loops in closed form, which derive geometry of "
                          "their own; build it with MBS_PLANAR_OFF and MBS_CLOSURE_NEWTON to "
                          "vary its geometry");
    if (p->id < 0 || p->id >= m->njoint)
        return mbs_errorf(err, MBS_ERR_ARG, "parameter: joint %d out of range 0..%d", p->id,
                          m->njoint - 1);
    const mbs_joint_model *jm = &m->joints[p->id];
    char lbl[96];
    mbs_name_label(jm->name, p->id, lbl, (int)sizeof lbl);
    if (jm->automatic)
        return mbs_errorf(err, MBS_ERR_ARG, "parameter: joint %s is an automatic root joint, "
                          "whose frames are the identity", lbl);
    if (jm->point_mass)
        return mbs_errorf(err, MBS_ERR_ARG, "parameter: joint %s was reduced at compile for "
                          "its point-mass child; move the mass with MBS_PARAM_COM", lbl);
    if (p->kind == MBS_PARAM_ROD_LENGTH && jm->type != MBS_JOINT_DISTANCE)
        return mbs_errorf(err, MBS_ERR_ARG, "parameter: joint %s is not a distance joint", lbl);
    if (p->kind == MBS_PARAM_CURVE_SIZE) return check_curve(jm, p, lbl, err);
    return MBS_OK;
}

/* See params.h. */
double mbs_param_geometry_get(const mbs_model *m, const mbs_param *p)
{
    mbs_joint_model *jm = &((mbs_model *)(uintptr_t)m)->joints[p->id];
    if (p->kind == MBS_PARAM_ROD_LENGTH) return jm->length;
    if (p->kind == MBS_PARAM_CURVE_SIZE)
        return p->index % 2 ? curve_of(jm, p)->b : curve_of(jm, p)->a;
    const mbs_pose *X = frame_of(jm, p);
    if (!is_rot(p)) return X->p[p->index];
    double a[3];
    mbs_mat_to_cardan(a, X->R);
    return a[p->index];
}

/* See params.h: finite positions and angles, a length, radius or semi-axis > 0, with the
   builder's words. */
int mbs_param_geometry_value_check(mbs_model *m, const mbs_param *p, double value)
{
    char lbl[96];
    const mbs_joint_model *jm = &m->joints[p->id];
    mbs_name_label(jm->name, p->id, lbl, (int)sizeof lbl);
    if (!(fabs(value) <= MBS_MAX_VALUE))
        return mbs_errorf(m->error, MBS_ERR_ARG, "joint %s: %s is not finite or beyond 1e100 "
                          "in magnitude", lbl,
                          p->kind == MBS_PARAM_ROD_LENGTH   ? "length"
                          : p->kind == MBS_PARAM_CURVE_SIZE ? "a curve's radius or semi-axis"
                          : is_rot(p)                       ? "a frame angle"
                                                            : "a frame position");
    if (p->kind == MBS_PARAM_ROD_LENGTH && !(value > 0.0))
        return mbs_errorf(m->error, MBS_ERR_ARG, "joint %s: distance length must be > 0 (got "
                          "%g)", lbl, value);
    if (p->kind == MBS_PARAM_CURVE_SIZE && !(value > 0.0))
        return mbs_errorf(m->error, MBS_ERR_ARG, "curve joint %s: a radius or semi-axis must "
                          "be > 0 (got %g)", lbl, value);
    return MBS_OK;
}

/* Write value into the frame p names: a position, or angle p->index of the frame's Cardan
   angles as they read now (through mbs_cardan_rot, below). */
static void frame_put(mbs_joint_model *jm, const mbs_param *p, double value)
{
    mbs_pose *X = frame_of(jm, p);
    if (!is_rot(p)) {
        X->p[p->index] = value;
        return;
    }
    double a[3];
    mbs_mat_to_cardan(a, X->R);
    a[p->index] = value;
    mbs_cardan_rot(X->R, a);
}

/* See params.h: the value, then what compile derives from the geometry. */
void mbs_param_geometry_apply(mbs_model *m, const mbs_param *p, double value)
{
    mbs_joint_model *jm = &m->joints[p->id];
    if (p->kind == MBS_PARAM_ROD_LENGTH) {
        jm->length = value;
    } else if (p->kind == MBS_PARAM_CURVE_SIZE) {
        mbs_curve_model *c = curve_of(jm, p);
        if (p->index % 2) c->b = value;
        else c->a = value;
        mbs_curve_derive(c);
    } else {
        frame_put(jm, p, value);
        jm->frame_child_identity = mbs_frame_is_identity(&jm->frame_child);
        if (!jm->cut) jm->kern = mbs_kernels_pick(jm);
    }
    mbs_compile_cuts(m);
    mbs_events_rescale(m);
    m->geom_rev++;
}

/* See mbs.h: -0.0 entries written as 0.0, so that zero angles give bitwise the identity
   (which the axis kernels of core/axis.c look for). */
void mbs_cardan_rot(double rot[9], const double a[3])
{
    if (!rot || !a) return;
    mbs_cardan_to_mat(rot, a);
    for (int k = 0; k < 9; ++k) rot[k] += 0.0;
}
