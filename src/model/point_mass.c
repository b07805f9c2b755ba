/* Point masses at compile (Otter, Elmqvist, Mattsson 2003, Fig. 7; MSL Parts.PointMass):
 * a body with mass > 0 and zero inertia that only its own tree joint touches (the end of a
 * chain, or a body alone with its automatic root). Its rotation is undefined, so it is not
 * given rotational coordinates:
 *  - a free joint (the automatic root, or one the user made) becomes a translational joint:
 *    the rotational coordinates are dropped, the body keeps the orientation of the joint's
 *    parent frame;
 *  - a spherical joint (quaternion or Cardan) is reduced to the two swing rates
 *    perpendicular to the line from the joint centre to the mass (src/joints/swing.c), the
 *    spin about that line, which moves nothing, is dropped; a mass exactly at the centre is
 *    not moved by the joint at all, which then becomes a fixed joint.
 * Either way the articulated inertia the joint sees is m times a positive definite matrix,
 * not the singular one of a point on a free or ball joint. Other joint types are kept. */
#include "model/point_mass.h"
#include "core/internal.h"

/* 1 when a body definition is a point mass: mass > 0 and every inertia entry 0. */
int mbs_body_is_point_mass(double mass, const double inertia[9])
{
    if (!(mass > 0.0)) return 0;
    for (int k = 0; k < 9; ++k)
        if (inertia[k] != 0.0) return 0;
    return 1;
}

/* Number of user joints (tree or cut) that touch body b. */
static int joints_touching(const mbs_builder *b, int body)
{
    int n = 0;
    for (int j = 0; j < b->njoint; ++j)
        n += (b->joints[j].parent == body) + (b->joints[j].child == body);
    return n;
}

/* Offset of the mass from the joint centre in Fc coordinates: R_c^T (com - pos_c). */
static void mass_offset(const mbs_joint_model *jm, const mbs_body_model *bm, double c[3])
{
    double d[3];
    v3_sub(d, bm->com, jm->frame_child.p);
    m3_tmulv(c, jm->frame_child.R, d);
}

/* The joint's ops for a point mass child: translational, swing or fixed; NULL to keep. The
   swing's axes are written into jm (axis3 along the offset, axis and axis2 across it). */
const mbs_joint_ops *mbs_point_mass_ops(mbs_joint_model *jm, const mbs_body_model *bm)
{
    if (jm->type == MBS_JOINT_FREE) return &mbs_joint_translational_ops;
    if (jm->type != MBS_JOINT_SPHERICAL) return NULL;
    double c[3];
    mass_offset(jm, bm, c);
    const double n = v3_norm(c), scale = v3_norm(bm->com) + v3_norm(jm->frame_child.p);
    if (!(n > 1e-12 * scale) || n < 1e-150) return &mbs_joint_fixed_ops;
    v3_scale(jm->axis3, c, 1.0 / n);
    mbs_cut_perp(jm->axis3, jm->axis, jm->axis2);
    return &mbs_joint_swing_ops;
}

/* Give every point-mass tree joint its reduced ops (before the layout of q and v). */
void mbs_reduce_point_masses(const mbs_builder *b, mbs_model *m)
{
    for (int j = 0; j < m->njoint; ++j) {
        mbs_joint_model *jm = &m->joints[j];
        const mbs_body_model *bm = &m->bodies[jm->child];
        if (jm->cut || jm->child == MBS_WORLD || !mbs_body_is_point_mass(bm->mass, bm->inertia))
            continue;
        if (joints_touching(b, jm->child) != (jm->automatic ? 0 : 1)) continue;
        const mbs_joint_ops *ops = mbs_point_mass_ops(jm, bm);
        if (!ops) continue;
        if (ops == &mbs_joint_translational_ops) jm->type = MBS_JOINT_TRANSLATIONAL;
        jm->ops = ops;
        jm->point_mass = 1;
        jm->nq = ops->nq;
        jm->nv = ops->nv;
    }
}
