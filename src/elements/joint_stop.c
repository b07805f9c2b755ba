/* Joint stop on one scalar dof of a tree joint (position limits lower < upper). Elastic
 * law: beyond a limit by p >= 0 the penalty force F = stiffness p + damping dp/dt, never
 * pulling (F >= 0), pushes the dof back (a penalty spring-damper clamped at zero); its
 * switching points are located as events so that no step integrates across them.
 * Restitution law: no force here; the impact and the resting contact are events and a
 * coordinate row (src/events/). */
#include <math.h>

#include "core/internal.h"

/* Penalty force of an elastic stop beyond its limits (sign convention of tau). */
static int joint_stop_apply(const mbs_force_model *f, mbs_data *d)
{
    if (f->law != MBS_STOP_ELASTIC) return MBS_OK;
    const double q = d->q[f->qindex], v = d->v[f->vindex];
    double Q = 0.0;
    if (q < f->lower) Q = fmax(0.0, f->stiffness * (f->lower - q) - f->damping * v);
    else if (q > f->upper) Q = -fmax(0.0, f->stiffness * (q - f->upper) + f->damping * v);
    d->gen_force[f->vindex] += Q;
    return MBS_OK;
}

/* 1/2 stiffness p^2 beyond a limit (elastic law). */
static double joint_stop_potential(const mbs_force_model *f, const mbs_data *d)
{
    if (f->law != MBS_STOP_ELASTIC) return 0.0;
    const double q = d->q[f->qindex];
    const double p = q < f->lower ? f->lower - q : q > f->upper ? q - f->upper : 0.0;
    return 0.5 * f->stiffness * p * p;
}

const mbs_force_ops mbs_force_joint_stop_ops = {
    .name = "joint stop",
    .apply = joint_stop_apply,
    .potential = joint_stop_potential,
};
