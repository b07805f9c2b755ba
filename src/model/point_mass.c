/* Point masses at compile (Otter, Elmqvist, Mattsson 2003, Fig. 7; MSL Parts.PointMass):
 * a body with mass > 0 and zero inertia. Its rotation is undefined, so it is not given the
 * rotational coordinates that move nothing -- a rotation moves nothing when it moves neither
 * the mass nor a point where another joint holds the body. So the other joints touching the
 * body (children, cut joints) must be spherical or distance joints (they hold a point, not an
 * orientation) attached at points the dropped rotation does not move: at the mass for a free
 * joint (a point mass on a distance rod, JointRRWithMass), on the line from the joint centre
 * through the mass for a spherical one (a chain of point masses on spherical joints):
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

/* 1 when every joint other than tree joint j that touches its child (a point mass at com)
   is a spherical or distance joint attached where a rotation about the line through com
   along u (NULL: any rotation about com) moves nothing. */
static int others_allow(const mbs_model *m, int j, const double com[3], const double *u)
{
    const int body = m->joints[j].child;
    for (int k = 0; k < m->njoint; ++k) {
        const mbs_joint_model *o = &m->joints[k];
        if (k == j || (o->parent != body && o->child != body)) continue;
        if (o->type != MBS_JOINT_SPHERICAL && o->type != MBS_JOINT_DISTANCE) return 0;
        const double *p = o->parent == body ? o->frame_parent.p : o->frame_child.p;
        double d[3], x[3];
        v3_sub(d, p, com);
        const double scale = 1e-12 * (v3_norm(p) + v3_norm(com)) + 1e-300;
        if (u) v3_cross(x, d, u);
        if (v3_norm(u ? x : d) > scale) return 0;
    }
    return 1;
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
        mbs_joint_model red = *jm; /* the swing axes are written on success only */
        const mbs_joint_ops *ops = mbs_point_mass_ops(&red, bm);
        double u[3]; /* the swing's spin axis in body coordinates: R_c axis3 */
        if (ops == &mbs_joint_swing_ops) m3_mulv(u, red.frame_child.R, red.axis3);
        if (!ops || !others_allow(m, j, bm->com, ops == &mbs_joint_swing_ops ? u : NULL))
            continue;
        *jm = red;
        if (ops == &mbs_joint_translational_ops) jm->type = MBS_JOINT_TRANSLATIONAL;
        jm->ops = ops;
        jm->point_mass = 1;
        jm->nq = ops->nq;
        jm->nv = ops->nv;
    }
}

/* 1 when tree joint j turns its child about an axis that moves nothing: a revolute or
   cylindrical joint whose axis passes through the child's centre of mass, the child without
   inertia about that axis, every other joint on the child held at a point of the axis
   (others_allow) and no rotor on the joint. */
static int axis_moves_nothing(const mbs_model *m, int j)
{
    const mbs_joint_model *jm = &m->joints[j];
    if (jm->cut || (jm->type != MBS_JOINT_REVOLUTE && jm->type != MBS_JOINT_CYLINDRICAL) ||
        jm->rotor_D > 0.0 || jm->child == MBS_WORLD)
        return 0;
    const mbs_body_model *bm = &m->bodies[jm->child];
    double u[3], Iu[3], d[3], x[3];
    m3_mulv(u, jm->frame_child.R, jm->axis); /* the axis in body coordinates */
    m3_mulv(Iu, bm->inertia, u);
    const double tr = bm->inertia[0] + bm->inertia[4] + bm->inertia[8];
    if (!(bm->mass > 0.0) || v3_dot(u, Iu) > 1e-12 * tr) return 0;
    v3_sub(d, bm->com, jm->frame_child.p);
    v3_cross(x, d, u);
    const double scale = 1e-12 * (v3_norm(bm->com) + v3_norm(jm->frame_child.p)) + 1e-300;
    return v3_norm(x) <= scale && others_allow(m, j, bm->com, u);
}

/* See point_mass.h. */
int mbs_check_point_mass_axes(const mbs_model *m, char *err)
{
    for (int j = 0; j < m->njoint; ++j) {
        if (!axis_moves_nothing(m, j)) continue;
        char jb[96], bb[96];
        return mbs_errorf(err, MBS_ERR_SINGULAR, "compile: joint %s turns body %s about an "
                          "axis through its centre of mass, and the body has no inertia about "
                          "that axis (a point mass on the axis): the coordinate moves nothing "
                          "and has no inertia; give the body inertia about the axis, move the "
                          "mass off the axis, or use a spherical or fixed joint",
                          mbs_joint_label(m, j, jb, (int)sizeof jb),
                          mbs_body_label(m, m->joints[j].child, bb, (int)sizeof bb));
    }
    return MBS_OK;
}
