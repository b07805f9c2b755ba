/* The Euclidean chart of the joints whose q and v are the same numbers (revolute, prismatic,
 * cylindrical, universal, planar, fixed, and the Cardan-angle spherical and free joints):
 * q integrates linearly, every real q is valid, and the neutral q is 0. */
#include "core/joint.h"

/* q_out = q + dt v. */
void mbs_joint_euclid_integrate(const mbs_joint_model *j, const double *q, const double *v,
                                double dt, double *q_out)
{
    for (int k = 0; k < j->ops->nq; ++k) q_out[k] = q[k] + dt * v[k];
}

/* v_out = q1 - q0 (no wrapping: angles are continuous coordinates; Cardan angles are both
   relative to the same reference frame). */
void mbs_joint_euclid_difference(const mbs_joint_model *j, const double *q0, const double *q1,
                                 double *v_out)
{
    for (int k = 0; k < j->ops->nq; ++k) v_out[k] = q1[k] - q0[k];
}

/* qdot = v. */
void mbs_joint_euclid_qdot(const mbs_joint_model *j, const double *q, const double *v,
                           double *qdot)
{
    (void)q;
    for (int k = 0; k < j->ops->nq; ++k) qdot[k] = v[k];
}

/* Neutral q = 0: the joint frames coincide (Cardan: with the reference frame Fix). */
void mbs_joint_euclid_neutral(const mbs_joint_model *j, double *q)
{
    for (int k = 0; k < j->ops->nq; ++k) q[k] = 0.0;
}

/* Every real q is valid: nothing to project. */
void mbs_joint_euclid_normalize(const mbs_joint_model *j, double *q)
{
    (void)j;
    (void)q;
}
