/* Constant generalized force on one dof of a tree joint: a drive (MSL
 * Mechanics.Rotational.Sources.ConstantTorque, Translational.Sources.ConstantForce between
 * the joint's support and its flange):
 *   generalized force   Q = F                 (added to gen_force at the dof)
 * It does work on the mechanism and stores none: no potential energy (mbs_energy leaves it
 * out, as it leaves out tau). Compile checks the joint and dof and sets vindex. */
#include "core/internal.h"

/* Add F to the dof's generalized force. */
static int joint_force_apply(const mbs_force_model *f, mbs_data *d)
{
    d->gen_force[f->vindex] += f->force;
    return MBS_OK;
}

const mbs_force_ops mbs_force_joint_force_ops = {
    .name = "joint force",
    .apply = joint_force_apply,
    .potential = NULL,
};
