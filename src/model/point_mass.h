/* Point masses at compile (point_mass.c): the joints of bodies with mass and no inertia
 * lose the rotational coordinates that would move nothing. */
#ifndef MBS_CORE_POINT_MASS_H
#define MBS_CORE_POINT_MASS_H

#include "core/builder.h"

/* 1 when mass > 0 and every inertia entry is 0. */
int mbs_body_is_point_mass(double mass, const double inertia[9]);
/* The reduced ops of tree joint jm into the point mass bm (translational for a free joint,
   swing or fixed for a spherical one, writing the swing axes into jm), NULL to keep it. */
const mbs_joint_ops *mbs_point_mass_ops(mbs_joint_model *jm, const mbs_body_model *bm);
/* At compile, after the joints are filled and before q and v are laid out: reduce the tree
   joint of every point mass whose other joints (spherical or distance only) hold it at points
   the dropped rotation does not move (b is not read). */
void mbs_reduce_point_masses(const mbs_builder *b, mbs_model *m);
/* At compile, after the elements: MBS_ERR_SINGULAR naming the joint and body when a revolute
   or cylindrical tree joint turns a body without inertia about its axis, the axis through
   its centre of mass (a point mass on the axis) and nothing else moved by it. */
int mbs_check_point_mass_axes(const mbs_model *m, char *err);

#endif
