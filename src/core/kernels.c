/* The generic kernel tables and the choice of every tree joint's kernels (kernels.h). */
#include "core/kernels.h"

/* Joints of one dof whose type has no specialisation for their geometry. */
static const mbs_joint_kernels generic_1 = {
    .name = "generic 1-dof",
    .pose = mbs_kin_pose_generic,
    .pose_motion = mbs_kin_pose_motion_generic,
    .subspace = mbs_kin_subspace_generic,
    .aba_backward = mbs_aba_backward_1,
    .aba_forward = mbs_aba_forward_1,
    .rnea_forward = mbs_rnea_forward_generic,
    .rnea_backward = mbs_rnea_backward_generic,
    .crba_frame = mbs_crba_frame_generic,
    .crba_backward = mbs_crba_backward_generic,
    .pose_crba = mbs_crba_pose_generic,
    .const_subspace = 0,
};

/* Joints of 0 or 2..6 dofs. */
static const mbs_joint_kernels generic_n = {
    .name = "generic n-dof",
    .pose = mbs_kin_pose_generic,
    .pose_motion = mbs_kin_pose_motion_generic,
    .subspace = mbs_kin_subspace_generic,
    .aba_backward = mbs_aba_backward_n,
    .aba_forward = mbs_aba_forward_n,
    .rnea_forward = mbs_rnea_forward_generic,
    .rnea_backward = mbs_rnea_backward_generic,
    .crba_frame = mbs_crba_frame_generic,
    .crba_backward = mbs_crba_backward_generic,
    .pose_crba = mbs_crba_pose_generic,
    .const_subspace = 0,
};

/* See kernels.h. */
const mbs_joint_kernels *mbs_kernels_generic(const mbs_joint_model *jm)
{
    return jm->nv == 1 ? &generic_1 : &generic_n;
}

/* See kernels.h. */
const mbs_joint_kernels *mbs_kernels_pick(const mbs_joint_model *jm)
{
    const mbs_joint_kernels *k = jm->ops->kernels ? jm->ops->kernels(jm) : NULL;
    return k ? k : mbs_kernels_generic(jm);
}

/* See kernels.h: S of the joints with a constant subspace, written by the generic step. */
void mbs_kernels_init_data(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        if (jm->kern->const_subspace) mbs_kin_subspace_generic(d, jm);
    }
    d->geom_rev = m->geom_rev;
}
