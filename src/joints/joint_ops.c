/* Lookup of a joint type's const ops table (no algorithm switches on the type). */
#include "core/joint.h"

/* [type][rotation]; distance has no tree coordinates (constraint only): NULL. */
static const mbs_joint_ops *const joint_ops_table[][2] = {
    [MBS_JOINT_REVOLUTE] = {&mbs_joint_revolute_ops, &mbs_joint_revolute_ops},
    [MBS_JOINT_PRISMATIC] = {&mbs_joint_prismatic_ops, &mbs_joint_prismatic_ops},
    [MBS_JOINT_CYLINDRICAL] = {&mbs_joint_cylindrical_ops, &mbs_joint_cylindrical_ops},
    [MBS_JOINT_UNIVERSAL] = {&mbs_joint_universal_ops, &mbs_joint_universal_ops},
    [MBS_JOINT_SPHERICAL] = {&mbs_joint_spherical_quat_ops, &mbs_joint_spherical_cardan_ops},
    [MBS_JOINT_PLANAR] = {&mbs_joint_planar_ops, &mbs_joint_planar_ops},
    [MBS_JOINT_FREE] = {&mbs_joint_free_quat_ops, &mbs_joint_free_cardan_ops},
    [MBS_JOINT_FIXED] = {&mbs_joint_fixed_ops, &mbs_joint_fixed_ops},
    [MBS_JOINT_DISTANCE] = {NULL, NULL},
    [MBS_JOINT_TRANSLATIONAL] = {&mbs_joint_translational_ops, &mbs_joint_translational_ops},
    [MBS_JOINT_CURVE] = {NULL, NULL},
};

/* Table entry, NULL for distance and for out-of-range type or rotation values. */
const mbs_joint_ops *mbs_joint_ops_for(mbs_joint_type type, mbs_rotation rotation)
{
    int t = (int)type, r = (int)rotation;
    int ntype = (int)(sizeof joint_ops_table / sizeof joint_ops_table[0]);
    if (t < 0 || t >= ntype || r < 0 || r > 1) return NULL;
    return joint_ops_table[t][r];
}

/* Every type, constraint-only ones included (distance: cut rows only). */
const mbs_joint_ops *mbs_joint_ops_any(mbs_joint_type type, mbs_rotation rotation)
{
    const int rot_ok = rotation == MBS_ROT_QUATERNION || rotation == MBS_ROT_CARDAN;
    if (type == MBS_JOINT_DISTANCE && rot_ok) return &mbs_joint_distance_ops;
    if (type == MBS_JOINT_CURVE && rot_ok) return &mbs_joint_curve_ops;
    return mbs_joint_ops_for(type, rotation);
}
