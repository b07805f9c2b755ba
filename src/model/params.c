/* Parameters of a compiled model changed without compiling again (mbs.h, "Parameters of a
 * compiled model"). A change is validated with the builder's checks on the whole resulting
 * body or element, then applied with every quantity compile derives from it: the spatial
 * inertia about the body origin (RBDA eq. 2.63), the planar path's body inertia, the swing
 * axes of a point mass. The model's param_rev counts the changes (a stepper restarts CVODE
 * when it moved). */
#include "core/params.h"
#include "core/builder.h"
#include "core/internal.h"
#include "model/point_mass.h"
#include "elements/force_builder.h"
#include "planar/planar.h"

#include <stdint.h>
#include <string.h>

/* The reading calls write no part of the shared model: a failed read keeps its message in
   this thread's buffer, which mbs_model_error returns for that model until this thread's next
   parameter call on it. */
static _Thread_local char read_error[MBS_ERROR_LEN];
static _Thread_local const mbs_model *read_error_model;

/* See params.h: RBDA eq. 2.63, h = m c, Ibar = Ic + m (|c|^2 1 - c c^T). */
void mbs_body_set_inertia(mbs_body_model *bm, double mass, const double com[3],
                          const double inertia[9])
{
    bm->mass = mass;
    v3_copy(bm->com, com);
    memcpy(bm->inertia, inertia, sizeof bm->inertia);
    bm->rbi.m = mass;
    v3_scale(bm->rbi.h, com, mass);
    double cc = v3_dot(com, com);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            bm->rbi.I[3 * r + c] = inertia[3 * r + c] +
                                   mass * ((r == c ? cc : 0.0) - com[r] * com[c]);
}

/* Body b's mass, com and inertia and everything derived from them; the swing axes of a
   point-mass joint are recomputed unless keep_axes (a sensitivity run keeps the meaning of
   v: any two axes across the offset describe the same motion of the mass). */
static void body_apply(mbs_model *m, int b, const mbs_body_def *def, int keep_axes)
{
    mbs_body_model *bm = &m->bodies[b];
    mbs_body_set_inertia(bm, def->mass, def->com, def->inertia);
    mbs_joint_model *jm = &m->joints[bm->joint];
    if (jm->ops == &mbs_joint_swing_ops && !keep_axes) mbs_point_mass_ops(jm, bm);
    if (m->planar) mbs_planar_body_inertia(m, m->planar, b, &m->planar->bodies[b]);
}

/* Number of joints of the model (tree, cut, automatic) that touch body b. */
static int joints_touching(const mbs_model *m, int b)
{
    int n = 0;
    for (int j = 0; j < m->njoint; ++j) n += (m->joints[j].parent == b) + (m->joints[j].child == b);
    return n;
}

/* The point-mass rules (point_mass.c) still give the joint of body b the ops it has with the
   new values: a reduced joint keeps its reduction, an unreduced one would not be reduced. */
static int check_point_mass_rules(mbs_model *m, int b, const mbs_body_def *def, const char *lbl)
{
    const mbs_joint_model *jm = &m->joints[m->bodies[b].joint];
    const int pm = mbs_body_is_point_mass(def->mass, def->inertia);
    mbs_joint_model tmp = *jm;
    mbs_body_model bm = m->bodies[b];
    v3_copy(bm.com, def->com);
    const mbs_joint_ops *ops = jm->ops;
    if (jm->point_mass && pm && jm->ops != &mbs_joint_translational_ops)
        ops = mbs_point_mass_ops(&tmp, &bm); /* swing or fixed, by the new offset */
    else if (!jm->point_mass && pm && joints_touching(m, b) == 1 && !jm->cut)
        ops = mbs_point_mass_ops(&tmp, &bm);
    if (jm->point_mass && !pm)
        return mbs_errorf(m->error, MBS_ERR_ARG, "body %s: compile made it a point mass (its "
                          "joint has no rotational coordinates): it must keep mass > 0 and zero "
                          "inertia; compile the model again", lbl);
    if (ops && ops != jm->ops)
        return mbs_errorf(m->error, MBS_ERR_ARG, "body %s: with these values compile would give "
                          "its joint other coordinates (%s instead of %s); compile the model "
                          "again", lbl, ops->name, jm->ops->name);
    return MBS_OK;
}

/* Set mass, com and inertia of a body: the builder's checks, the point-mass rules. */
int mbs_model_set_body(mbs_model *m, int body, const mbs_body_def *def)
{
    read_error_model = NULL;
    if (!m) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested_model(m, m->error, "mbs_model_set_body");
    if (nested != MBS_OK) return nested;
    if (!def) return mbs_errorf(m->error, MBS_ERR_ARG, "mbs_model_set_body: def is NULL");
    if (body < 1 || body >= m->nbody)
        return mbs_errorf(m->error, MBS_ERR_ARG, "mbs_model_set_body: body %d out of range "
                          "1..%d", body, m->nbody - 1);
    char lbl[96];
    mbs_body_label(m, body, lbl, (int)sizeof lbl);
    mbs_body_def sym = *def;
    int st = mbs_body_def_check(m->error, def, lbl, sym.inertia);
    if (st == MBS_OK) st = check_point_mass_rules(m, body, &sym, lbl);
    if (st != MBS_OK) return st;
    body_apply(m, body, &sym, 0);
    m->param_rev++;
    return MBS_OK;
}

/* The current definition of body b (mass, com, inertia). */
static void body_def_of(const mbs_model *m, int b, mbs_body_def *def)
{
    *def = mbs_default_body_def();
    def->mass = m->bodies[b].mass;
    v3_copy(def->com, m->bodies[b].com);
    memcpy(def->inertia, m->bodies[b].inertia, sizeof def->inertia);
}

/* Write value into the body parameter p of def (inertia: both symmetric entries). */
static void body_param_put(mbs_body_def *def, const mbs_param *p, double value)
{
    if (p->kind == MBS_PARAM_MASS) {
        def->mass = value;
    } else if (p->kind == MBS_PARAM_COM) {
        def->com[p->index] = value;
    } else {
        const int r = p->index / 3, c = p->index % 3;
        def->inertia[3 * r + c] = def->inertia[3 * c + r] = value;
    }
}

/* The address of a force-element coefficient, or NULL when the element has none of that
   kind (message written). */
static double *force_param_slot(const mbs_model *m, const mbs_param *p, char *err)
{
    if (p->id < 0 || p->id >= m->nforce) {
        mbs_errorf(err, MBS_ERR_ARG, "parameter: force element %d out of range 0..%d", p->id,
                   m->nforce - 1);
        return NULL;
    }
    mbs_force_model *f = &m->forces[p->id];
    if (!mbs_force_is_line(f) && f->ops != &mbs_force_joint_spring_damper_ops) {
        char lbl[96];
        mbs_errorf(err, MBS_ERR_ARG, "parameter: force element %s is a %s, which has no "
                   "stiffness, damping or rest value", mbs_name_label(f->name, p->id, lbl,
                   (int)sizeof lbl), f->ops->name);
        return NULL;
    }
    return p->kind == MBS_PARAM_STIFFNESS ? &f->stiffness
           : p->kind == MBS_PARAM_DAMPING ? &f->damping : &f->rest;
}

/* The address of a gravity parameter, or NULL when the model has no such field. */
static const double *gravity_param_slot(const mbs_model *m, const mbs_param *p, char *err)
{
    if (p->kind == MBS_PARAM_GRAVITY && m->gravity_kind == MBS_GRAVITY_UNIFORM)
        return &m->gravity[p->index];
    if (p->kind == MBS_PARAM_GRAVITY_MU && m->gravity_kind == MBS_GRAVITY_POINT)
        return &m->gravity_mu;
    mbs_errorf(err, MBS_ERR_ARG, "parameter: the model has no %s gravity",
               p->kind == MBS_PARAM_GRAVITY ? "uniform" : "point");
    return NULL;
}

/* 1 for the gravity kinds. */
static int is_gravity(const mbs_param *p)
{
    return p->kind == MBS_PARAM_GRAVITY || p->kind == MBS_PARAM_GRAVITY_MU;
}

/* See params.h: kind, id and index of p valid for m; MBS_OK or MBS_ERR_ARG (err). */
int mbs_param_check(const mbs_model *m, const mbs_param *p, char *err)
{
    static const int ncomp[] = {1, 3, 9, 1, 1, 1, 3, 1, 1, 1, 2, 2, 3, 4, /* by kind */
                                3, 3, 3, 3, 1, 4};
    if (!p) return mbs_errorf(err, MBS_ERR_ARG, "parameter: NULL");
    if ((int)p->kind < 0 || (int)p->kind > (int)MBS_PARAM_CURVE_SIZE)
        return mbs_errorf(err, MBS_ERR_ARG, "parameter: unknown kind %d", (int)p->kind);
    const int n = ncomp[p->kind];
    if (p->index < 0 || p->index >= n || (n == 1 && p->index != 0))
        return mbs_errorf(err, MBS_ERR_ARG, "parameter of kind %d: index %d out of range 0..%d",
                          (int)p->kind, p->index, n - 1);
    if (p->kind <= MBS_PARAM_INERTIA && (p->id < 1 || p->id >= m->nbody))
        return mbs_errorf(err, MBS_ERR_ARG, "parameter: body %d out of range 1..%d", p->id,
                          m->nbody - 1);
    if (p->kind >= MBS_PARAM_STIFFNESS && p->kind <= MBS_PARAM_REST && !force_param_slot(m, p, err))
        return MBS_ERR_ARG;
    if (is_gravity(p) && !gravity_param_slot(m, p, err)) return MBS_ERR_ARG;
    if (mbs_param_is_element(p)) return mbs_param_element_check(m, p, err);
    if (mbs_param_is_geometry(p)) return mbs_param_geometry_check(m, p, err);
    return MBS_OK;
}

/* Current value of a parameter. */
int mbs_model_get_param(const mbs_model *m, const mbs_param *p, double *value)
{
    if (!m) return MBS_ERR_ARG;
    char *err = read_error;
    read_error_model = NULL;
    int st = value ? mbs_param_check(m, p, err)
                   : mbs_errorf(err, MBS_ERR_ARG, "mbs_model_get_param: value is NULL");
    if (st != MBS_OK) {
        read_error_model = m;
        return st;
    }
    if (p->kind <= MBS_PARAM_INERTIA) {
        const mbs_body_model *bm = &m->bodies[p->id];
        *value = p->kind == MBS_PARAM_MASS ? bm->mass
                 : p->kind == MBS_PARAM_COM ? bm->com[p->index] : bm->inertia[p->index];
    } else if (p->kind <= MBS_PARAM_REST) {
        *value = *force_param_slot(m, p, err);
    } else if (is_gravity(p)) {
        *value = *gravity_param_slot(m, p, err);
    } else if (mbs_param_is_geometry(p)) {
        *value = mbs_param_geometry_get(m, p);
    } else {
        *value = mbs_param_element_get(m, p, err);
    }
    return MBS_OK;
}

/* Validate a new coefficient or gravity value as the builder does. */
static int check_scalar(mbs_model *m, const mbs_param *p, double value)
{
    char lbl[96];
    if (mbs_param_is_element(p)) return mbs_param_element_value_check(m, p, value);
    if (mbs_param_is_geometry(p)) return mbs_param_geometry_value_check(m, p, value);
    if (is_gravity(p)) {
        if (!(fabs(value) <= MBS_MAX_VALUE) || (p->kind == MBS_PARAM_GRAVITY_MU && !(value > 0.0)))
            return mbs_errorf(m->error, MBS_ERR_ARG, "gravity: %s must be finite%s (got %g)",
                              p->kind == MBS_PARAM_GRAVITY ? "g" : "mu",
                              p->kind == MBS_PARAM_GRAVITY ? "" : " and > 0", value);
        return MBS_OK;
    }
    const mbs_force_model *f = &m->forces[p->id];
    const char *kind = f->ops->name;
    mbs_name_label(f->name, p->id, lbl, (int)sizeof lbl);
    if (p->kind == MBS_PARAM_DAMPING && value != 0.0 && mbs_force_is_line(f) &&
        (m->body_node[f->body_a] >= 0 || m->body_node[f->body_b] >= 0))
        return mbs_errorf(m->error, MBS_ERR_ARG, "%s %s: it touches a node, so it may carry no "
                          "damping (compile refuses it: the node's position would become a "
                          "first-order state)", kind, lbl);
    if (p->kind == MBS_PARAM_REST && f->ops == &mbs_force_joint_spring_damper_ops) {
        if (!(fabs(value) <= MBS_MAX_VALUE))
            return mbs_errorf(m->error, MBS_ERR_ARG, "%s %s: rest position is not finite or "
                              "beyond 1e100 in magnitude", kind, lbl);
        return MBS_OK;
    }
    static const char *const what[] = {"stiffness", "damping", "rest_length"};
    return mbs_coefficient_check(m->error, kind, lbl, what[p->kind - MBS_PARAM_STIFFNESS], value);
}

/* See params.h: the value written with its derived quantities, no validation. */
void mbs_param_apply(mbs_model *m, const mbs_param *p, double value, int keep_axes)
{
    if (p->kind <= MBS_PARAM_INERTIA) {
        mbs_body_def def;
        body_def_of(m, p->id, &def);
        body_param_put(&def, p, value);
        body_apply(m, p->id, &def, keep_axes);
    } else if (p->kind <= MBS_PARAM_REST) {
        *force_param_slot(m, p, m->error) = value;
    } else if (is_gravity(p)) {
        if (p->kind == MBS_PARAM_GRAVITY) m->gravity[p->index] = value;
        else m->gravity_mu = value;
    } else if (mbs_param_is_geometry(p)) {
        mbs_param_geometry_apply(m, p, value);
    } else {
        mbs_param_element_apply(m, p, value);
    }
}

/* Set one parameter after the builder's checks of its body, element or field. */
int mbs_model_set_param(mbs_model *m, const mbs_param *p, double value)
{
    read_error_model = NULL;
    if (!m) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested_model(m, m->error, "mbs_model_set_param");
    if (nested != MBS_OK) return nested;
    int st = mbs_param_check(m, p, m->error);
    if (st != MBS_OK) return st;
    if (p->kind <= MBS_PARAM_INERTIA) {
        mbs_body_def def;
        body_def_of(m, p->id, &def);
        body_param_put(&def, p, value);
        return mbs_model_set_body(m, p->id, &def);
    }
    st = check_scalar(m, p, value);
    if (st != MBS_OK) return st;
    mbs_param_apply(m, p, value, 0);
    m->param_rev++;
    return MBS_OK;
}

/* Uniform gravity g on a compiled model. */
int mbs_model_set_gravity(mbs_model *m, const double g[3])
{
    read_error_model = NULL;
    if (!m) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested_model(m, m->error, "mbs_model_set_gravity");
    if (nested != MBS_OK) return nested;
    if (!g) return mbs_errorf(m->error, MBS_ERR_ARG, "mbs_model_set_gravity: g is NULL");
    if (!mbs_all_bounded(g, 3))
        return mbs_errorf(m->error, MBS_ERR_ARG, "gravity: g is not finite or beyond 1e100 in "
                          "magnitude");
    m->gravity_kind = MBS_GRAVITY_UNIFORM;
    v3_copy(m->gravity, g);
    m->param_rev++;
    return MBS_OK;
}

/* Point gravity on a compiled model. */
int mbs_model_set_point_gravity(mbs_model *m, const double center[3], double mu)
{
    read_error_model = NULL;
    if (!m) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested_model(m, m->error, "mbs_model_set_point_gravity");
    if (nested != MBS_OK) return nested;
    const int st = mbs_point_gravity_check(m->error, "mbs_model_set_point_gravity", center, mu);
    if (st != MBS_OK) return st;
    m->gravity_kind = MBS_GRAVITY_POINT;
    v3_copy(m->gravity_center, center);
    m->gravity_mu = mu;
    m->param_rev++;
    return MBS_OK;
}

/* Message of the last failed parameter call: this thread's failed read of m, else the last
   failed change of m. */
const char *mbs_model_error(const mbs_model *m)
{
    if (!m) return "";
    return read_error_model == m ? read_error : m->error;
}
