/* Forward kinematics pass over the tree (RBDA §4.4, table 5.1 first loop), body coordinates. */
#include "core/internal.h"

/* Joint auxiliary values of jm, or NULL when it has none. */
static const double *joint_aux(const mbs_data *d, const mbs_joint_model *jm)
{
    return jm->auxadr >= 0 ? d->aux + jm->auxadr : NULL;
}

/* Pose of the child body in its parent body: frame_parent * X_J(q) * frame_child^-1. */
static void joint_pose_up(const mbs_data *d, const mbs_joint_model *jm, mbs_pose *up)
{
    mbs_pose XJ, t;
    jm->ops->transform(jm, joint_aux(d, jm), jm->nq > 0 ? d->q + jm->qadr : d->q, &XJ);
    if (jm->frame_child_identity) {
        pose_mul(up, &jm->frame_parent, &XJ);
        return;
    }
    mbs_pose inv;
    pose_inverse(&inv, &jm->frame_child);
    pose_mul(&t, &jm->frame_parent, &XJ);
    pose_mul(up, &t, &inv);
}

/* Poses x_up and x_world of every body from q. */
void mbs_kinematics_pos(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        joint_pose_up(d, jm, &d->x_up[b]);
        pose_mul(&d->x_world[b], &d->x_world[p], &d->x_up[b]);
    }
}

/* S (in child-body coordinates) and the joint velocity vJ = S v and bias cJ (body coords). */
static void joint_motion(mbs_data *d, const mbs_joint_model *jm, double vJ[6], double cJ[6])
{
    const int nv = jm->nv;
    if (nv == 0) { /* no dof: vJ = cJ = 0 */
        for (int i = 0; i < 6; ++i) vJ[i] = cJ[i] = 0.0;
        return;
    }
    double *S = d->S + 6 * jm->vadr;
    const double *v = d->v + jm->vadr;
    double c[6] = {0, 0, 0, 0, 0, 0};
    mbs_joint_motion(jm, joint_aux(d, jm), d->q + jm->qadr, v, S, c);
    if (!jm->frame_child_identity) { /* Fc -> body coordinates: pose of Fc in the body */
        for (int k = 0; k < nv; ++k) {
            double s[6];
            xm_apply_inv(s, &jm->frame_child, S + 6 * k);
            for (int i = 0; i < 6; ++i) S[6 * k + i] = s[i];
        }
        xm_apply_inv(cJ, &jm->frame_child, c);
    } else {
        for (int i = 0; i < 6; ++i) cJ[i] = c[i];
    }
    for (int i = 0; i < 6; ++i) vJ[i] = 0.0;
    for (int k = 0; k < nv; ++k)
        for (int i = 0; i < 6; ++i) vJ[i] += S[6 * k + i] * v[k];
}

/* Full pass: poses, S, body velocities v_i = X v_p + S qd and c_i = c_J + v_i x v_J. */
void mbs_kinematics(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        double vJ[6], cJ[6], vp[6];
        double *vel = d->vel + 6 * b, *cvel = d->cvel + 6 * b;
        joint_pose_up(d, jm, &d->x_up[b]);
        pose_mul(&d->x_world[b], &d->x_world[p], &d->x_up[b]);
        joint_motion(d, jm, vJ, cJ);
        xm_apply(vp, &d->x_up[b], d->vel + 6 * p);
        for (int i = 0; i < 6; ++i) vel[i] = vp[i] + vJ[i];
        mv_cross_m(cvel, vel, vJ);
        for (int i = 0; i < 6; ++i) cvel[i] += cJ[i];
    }
}
