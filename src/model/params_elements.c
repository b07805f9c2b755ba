/* Parameters of the later modelling elements on a compiled model (mbs.h, mbs_param_kind from
 * MBS_PARAM_ROTOR_INERTIA on): a rotor's inertia and gear ratio, the point masses of line
 * forces and their places, the values of a joint friction and of a joint stop's law (its
 * limits are not parameters: a data object in contact holds its limit). Each value is
 * checked as the builder checks it; what compile derives from it is derived again the same
 * way: the native rotors' terms of their joint (mbs_rotor_native_terms). A point mass keeps
 * the inertial rows compile laid out for it, so a mass compiled > 0 stays > 0 and one
 * compiled 0 stays 0. */
#include "core/params.h"
#include "core/internal.h"
#include "elements/couplings.h"
#include "core/force.h"
#include "elements/force_builder.h"

#include <stdint.h>

/* 1 for the kinds of this file. */
int mbs_param_is_element(const mbs_param *p)
{
    return p->kind >= MBS_PARAM_ROTOR_INERTIA && p->kind <= MBS_PARAM_STOP;
}

/* Rotor p->id's inertia or ratio, NULL (message in err) for a bad id. */
static double *rotor_slot(mbs_model *m, const mbs_param *p, char *err)
{
    if (p->id < 0 || p->id >= m->nrotor) {
        mbs_errorf(err, MBS_ERR_ARG, "parameter: rotor %d out of range (the model has %d "
                   "rotors)", p->id, m->nrotor);
        return NULL;
    }
    mbs_rotor_model *r = &m->rotors[p->id];
    return p->kind == MBS_PARAM_ROTOR_INERTIA ? &r->inertia : &r->ratio;
}

/* Force element p->id, NULL (message in err) for a bad id. */
static mbs_force_model *force_of(mbs_model *m, const mbs_param *p, char *err)
{
    if (p->id >= 0 && p->id < m->nforce) return &m->forces[p->id];
    mbs_errorf(err, MBS_ERR_ARG, "parameter: force element %d out of range 0..%d", p->id,
               m->nforce - 1);
    return NULL;
}

/* Line element f's mass or place number p->index, NULL (message in err) when it has none. */
static double *line_mass_slot(mbs_force_model *f, const mbs_param *p, char *err)
{
    char lbl[96];
    mbs_name_label(f->name, p->id, lbl, (int)sizeof lbl);
    const int one = f->ops == &mbs_force_spring_damper_ops;
    if (!one && f->ops != &mbs_force_two_masses_ops) {
        mbs_errorf(err, MBS_ERR_ARG, "parameter: force element %s is a %s, which has no point "
                   "mass on its line", lbl, f->ops->name);
        return NULL;
    }
    if (one && p->index != 0) {
        mbs_errorf(err, MBS_ERR_ARG, "parameter: spring-damper %s has one point mass (index 0, "
                   "got %d)", lbl, p->index);
        return NULL;
    }
    if (p->kind == MBS_PARAM_LINE_MASS) return p->index == 0 ? &f->mass : &f->mass_b;
    return one ? &f->fraction : p->index == 0 ? &f->dist_a : &f->dist_b;
}

/* Joint friction f's coulomb, stiction or viscous value, NULL (message in err) otherwise. */
static double *friction_slot(mbs_force_model *f, const mbs_param *p, char *err)
{
    if (f->ops != &mbs_force_joint_friction_ops) {
        char lbl[96];
        mbs_errorf(err, MBS_ERR_ARG, "parameter: force element %s is a %s, which has no "
                   "friction values%s", mbs_name_label(f->name, p->id, lbl, (int)sizeof lbl),
                   f->ops->name, f->ops == &mbs_force_joint_brake_ops
                   ? " (a brake's limit is a host input of the data)" : "");
        return NULL;
    }
    return p->index == 0 ? &f->coulomb : p->index == 1 ? &f->stiction : &f->viscous;
}

/* Joint stop f's value p->index of its law, NULL (message in err) for another element or a
   value its law does not use. */
static double *stop_slot(mbs_force_model *f, const mbs_param *p, char *err)
{
    static const char *const what[] = {"stiffness", "damping", "restitution", "rest_velocity"};
    char lbl[96];
    mbs_name_label(f->name, p->id, lbl, (int)sizeof lbl);
    if (f->ops != &mbs_force_joint_stop_ops) {
        mbs_errorf(err, MBS_ERR_ARG, "parameter: force element %s is a %s, not a joint stop",
                   lbl, f->ops->name);
        return NULL;
    }
    const int elastic = f->law == MBS_STOP_ELASTIC;
    if (elastic != (p->index < 2)) {
        mbs_errorf(err, MBS_ERR_ARG, "parameter: joint stop %s has the %s law, which has no %s",
                   lbl, elastic ? "elastic" : "restitution", what[p->index]);
        return NULL;
    }
    double *const slot[] = {&f->stiffness, &f->damping, &f->restitution, &f->rest_velocity};
    return slot[p->index];
}

/* The address of parameter p (an element kind, index in range), NULL with the message. */
static double *element_slot(mbs_model *m, const mbs_param *p, char *err)
{
    if (p->kind == MBS_PARAM_ROTOR_INERTIA || p->kind == MBS_PARAM_ROTOR_RATIO)
        return rotor_slot(m, p, err);
    mbs_force_model *f = force_of(m, p, err);
    if (!f) return NULL;
    if (p->kind == MBS_PARAM_STOP) return stop_slot(f, p, err);
    return p->kind == MBS_PARAM_FRICTION ? friction_slot(f, p, err) : line_mass_slot(f, p, err);
}

/* See params.h. */
int mbs_param_element_check(const mbs_model *m, const mbs_param *p, char *err)
{
    return element_slot((mbs_model *)(uintptr_t)m, p, err) ? MBS_OK : MBS_ERR_ARG;
}

/* See params.h. */
double mbs_param_element_get(const mbs_model *m, const mbs_param *p, char *err)
{
    return *element_slot((mbs_model *)(uintptr_t)m, p, err);
}

/* A line mass stays on the side of 0 compile saw (its inertial rows exist or not). */
static int check_line_mass(mbs_model *m, const mbs_force_model *f, const mbs_param *p,
                           double value, const char *lbl)
{
    const char *what = f->two ? (p->index == 0 ? "mass_a" : "mass_b") : "mass";
    int st = mbs_coefficient_check(m->error, f->ops->name, lbl, what, value);
    if (st != MBS_OK) return st;
    const double now = p->index == 0 ? f->mass : f->mass_b;
    if ((now > 0.0) != (value > 0.0))
        return mbs_errorf(m->error, MBS_ERR_ARG, "%s %s: %s was compiled %s 0 and must stay %s "
                          "0 (its point mass %s inertial rows); compile the model again",
                          f->ops->name, lbl, what, now > 0.0 ? ">" : "=",
                          now > 0.0 ? ">" : "=", now > 0.0 ? "has" : "has no");
    return MBS_OK;
}

/* A mass_fraction in [0, 1] or a distance >= 0, as the builder checks them. */
static int check_line_place(mbs_model *m, const mbs_force_model *f, const mbs_param *p,
                            double value, const char *lbl)
{
    if (f->two)
        return mbs_coefficient_check(m->error, f->ops->name, lbl,
                                     p->index == 0 ? "distance_a" : "distance_b", value);
    if (!(value >= 0.0 && value <= 1.0))
        return mbs_errorf(m->error, MBS_ERR_ARG, "spring-damper %s: mass_fraction must be in "
                          "[0, 1] (got %g)", lbl, value);
    return MBS_OK;
}

/* Friction values >= 0 and finite, stiction >= coulomb with the other value as it is. */
static int check_friction(mbs_model *m, const mbs_force_model *f, const mbs_param *p,
                          double value, const char *lbl)
{
    static const char *const what[] = {"coulomb", "stiction", "viscous"};
    const int st = mbs_coefficient_check(m->error, "joint friction", lbl, what[p->index], value);
    if (st != MBS_OK || p->index == 2) return st;
    const double coulomb = p->index == 0 ? value : f->coulomb;
    const double stiction = p->index == 1 ? value : f->stiction;
    if (stiction < coulomb)
        return mbs_errorf(m->error, MBS_ERR_ARG, "joint friction %s: stiction = %g is below "
                          "coulomb = %g (the break-away limit must be at least the sliding "
                          "friction)", lbl, stiction, coulomb);
    return MBS_OK;
}

/* A stop's value: stiffness > 0, damping >= 0, restitution in [0, 1], rest_velocity > 0. */
static int check_stop(mbs_model *m, const mbs_param *p, double value, const char *lbl)
{
    static const char *const what[] = {"stiffness", "damping", "restitution", "rest_velocity"};
    const int st = mbs_coefficient_check(m->error, "joint stop", lbl, what[p->index], value);
    if (st != MBS_OK) return st;
    if (p->index == 2 && value > 1.0)
        return mbs_errorf(m->error, MBS_ERR_ARG, "joint stop %s: restitution = %g must be in "
                          "[0, 1]", lbl, value);
    if ((p->index == 0 || p->index == 3) && !(value > 0.0))
        return mbs_errorf(m->error, MBS_ERR_ARG, "joint stop %s: %s must be > 0 (got %g)", lbl,
                          what[p->index], value);
    return MBS_OK;
}

/* See params.h. */
int mbs_param_element_value_check(mbs_model *m, const mbs_param *p, double value)
{
    char lbl[96];
    if (p->kind == MBS_PARAM_ROTOR_INERTIA || p->kind == MBS_PARAM_ROTOR_RATIO) {
        mbs_name_label(m->rotors[p->id].name, p->id, lbl, (int)sizeof lbl);
        return p->kind == MBS_PARAM_ROTOR_INERTIA ? mbs_rotor_inertia_check(m->error, lbl, value)
                                                  : mbs_rotor_ratio_check(m->error, lbl, value);
    }
    const mbs_force_model *f = &m->forces[p->id];
    mbs_name_label(f->name, p->id, lbl, (int)sizeof lbl);
    if (p->kind == MBS_PARAM_LINE_MASS) return check_line_mass(m, f, p, value, lbl);
    if (p->kind == MBS_PARAM_LINE_MASS_PLACE) return check_line_place(m, f, p, value, lbl);
    if (p->kind == MBS_PARAM_STOP) return check_stop(m, p, value, lbl);
    return check_friction(m, f, p, value, lbl);
}

/* See params.h: a rotor's native terms follow its inertia and ratio. */
void mbs_param_element_apply(mbs_model *m, const mbs_param *p, double value)
{
    *element_slot(m, p, m->error) = value;
    if (p->kind != MBS_PARAM_ROTOR_INERTIA && p->kind != MBS_PARAM_ROTOR_RATIO) return;
    const mbs_rotor_model *r = &m->rotors[p->id];
    if (r->native) mbs_rotor_native_terms(m, r->joint);
}
