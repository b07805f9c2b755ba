/* Joint friction and brake on one scalar dof of a tree joint: the sliding part of the
 * variable-structure friction (Modelica's BearingFriction / Brake; the locked part is a
 * coordinate row, src/events/). While sliding in direction s = +-1 the generalized force is
 *   Q = -(coulomb s + viscous v)
 * with s fixed by the mode between events, not by the sign of v: the force has no jump
 * inside a step. Before the first step (mode undecided) s = sign(v), 0 at rest. Locked or
 * held by a stop: no force here. A brake is the same with coulomb = its host limit and no
 * viscous part. */
#include "core/internal.h"

/* Add the sliding force of limit coulomb to the dof and remember it for
   mbs_data_friction_force. */
static void sliding_force(const mbs_force_model *f, mbs_data *d, double coulomb)
{
    const int k = f->slot, mode = d->fric_mode[k];
    const double v = d->v[f->vindex];
    double s = 0.0;
    if (mode == MBS_FRIC_SLIDE_POS) s = 1.0;
    else if (mode == MBS_FRIC_SLIDE_NEG) s = -1.0;
    else if (mode == MBS_FRIC_UNDECIDED) s = v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : 0.0;
    double Q = 0.0;
    if (mode != MBS_FRIC_LOCKED && mode != MBS_FRIC_SUSPENDED) Q = -(coulomb * s + f->viscous * v);
    d->gen_force[f->vindex] += Q;
    d->fric_force[k] = Q;
}

static int joint_friction_apply(const mbs_force_model *f, mbs_data *d)
{
    sliding_force(f, d, f->coulomb);
    return MBS_OK;
}

/* A brake slides at the limit the host set (mbs_set_brake). */
static int joint_brake_apply(const mbs_force_model *f, mbs_data *d)
{
    sliding_force(f, d, d->fric_limit[f->slot]);
    return MBS_OK;
}

const mbs_force_ops mbs_force_joint_friction_ops = {
    .name = "joint friction",
    .apply = joint_friction_apply,
    .potential = NULL,
};

const mbs_force_ops mbs_force_joint_brake_ops = {
    .name = "joint brake",
    .apply = joint_brake_apply,
    .potential = NULL,
};
