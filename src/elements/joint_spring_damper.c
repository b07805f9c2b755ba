/* Joint spring-damper on one scalar dof of a tree joint (Modelica: a Rotational or
 * Translational spring/damper between a joint's support and axis flanges):
 *   generalized force   Q = -k (q - q0) - d qdot     (added to gen_force at the dof)
 *   potential           V = 1/2 k (q - q0)^2,  Q = -dV/dq for d = 0.
 * Compile checks that the dof has q and v of the same meaning and sets qindex/vindex. */
#include "core/internal.h"

/* Add -k (q - rest) - d v to the dof's generalized force. */
static int joint_spring_damper_apply(const mbs_force_model *f, mbs_data *d)
{
    double q = d->q[f->qindex], v = d->v[f->vindex];
    d->gen_force[f->vindex] += -f->stiffness * (q - f->rest) - f->damping * v;
    return MBS_OK;
}

/* V = 1/2 k (q - rest)^2. */
static double joint_spring_damper_potential(const mbs_force_model *f, const mbs_data *d)
{
    double stretch = d->q[f->qindex] - f->rest;
    return 0.5 * f->stiffness * stretch * stretch;
}

const mbs_force_ops mbs_force_joint_spring_damper_ops = {
    .name = "joint spring-damper",
    .apply = joint_spring_damper_apply,
    .potential = joint_spring_damper_potential,
};
