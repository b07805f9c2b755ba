/* Forward kinematics pass over the tree (RBDA §4.4, table 5.1 first loop), body coordinates. */
#include "core/kernels.h"
/* GCC: -O3 (measured 48 -> 38.5 ns per body for this pass on the 100-link chain), but
   without the basic-block vectorizer, which pairs loads of poses and velocities that the
   previous iteration stored as scalars (a store-forwarding stall on the chain's critical
   path; 52 -> 57 ns at -O2 with it on). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-tree-slp-vectorize")
#endif

/* Joint auxiliary values of jm, or NULL when it has none. */
static const double *joint_aux(const mbs_data *d, const mbs_joint_model *jm)
{
    return jm->auxadr >= 0 ? d->aux + jm->auxadr : NULL;
}

/* C = A B for poses (R = Ra Rb, p = Ra pb + pa); C may alias neither A nor B. */
static inline void pose_compose(mbs_pose *restrict C, const mbs_pose *restrict A,
                                const mbs_pose *restrict B)
{
    const double *restrict b = B->R;
    MBS_UNROLL(3)
    for (int i = 0; i < 3; ++i) {
        const double a0 = A->R[3 * i], a1 = A->R[3 * i + 1], a2 = A->R[3 * i + 2];
        C->R[3 * i] = a0 * b[0] + a1 * b[3] + a2 * b[6];
        C->R[3 * i + 1] = a0 * b[1] + a1 * b[4] + a2 * b[7];
        C->R[3 * i + 2] = a0 * b[2] + a1 * b[5] + a2 * b[8];
        C->p[i] = a0 * B->p[0] + a1 * B->p[1] + a2 * B->p[2] + A->p[i];
    }
}

/* 1 if R is exactly the identity (joint frames given by a position only, the usual case). */
static inline int rot_is_identity(const double R[9])
{
    return R[0] == 1.0 && R[4] == 1.0 && R[8] == 1.0 && R[1] == 0.0 && R[2] == 0.0 &&
           R[3] == 0.0 && R[5] == 0.0 && R[6] == 0.0 && R[7] == 0.0;
}

/* Pose of the child body in its parent body: frame_parent * X_J(q) * frame_child^-1. */
static void joint_pose_up(const mbs_data *d, const mbs_joint_model *jm, mbs_pose *restrict up)
{
    const double *q = jm->nq > 0 ? d->q + jm->qadr : d->q;
    mbs_pose XJ, t;
    if (jm->frame_child_identity && rot_is_identity(jm->frame_parent.R)) {
        jm->ops->transform(jm, joint_aux(d, jm), q, up); /* frame_parent a translation */
        for (int i = 0; i < 3; ++i) up->p[i] += jm->frame_parent.p[i];
        return;
    }
    jm->ops->transform(jm, joint_aux(d, jm), q, &XJ);
    if (jm->frame_child_identity) {
        pose_compose(up, &jm->frame_parent, &XJ);
        return;
    }
    pose_compose(&t, &jm->frame_parent, &XJ);
    pose_mul_inv(up, &t, &jm->frame_child);
}

/* S of jm from Fc to child-body coordinates (frames given with a rotation or offset). */
static void subspace_to_body(const mbs_joint_model *jm, double *restrict S)
{
    for (int k = 0; k < jm->nv; ++k) {
        double s[6];
        xm_apply_inv(s, &jm->frame_child, S + 6 * k);
        for (int i = 0; i < 6; ++i) S[6 * k + i] = s[i];
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
    double *restrict S = d->S + 6 * jm->vadr;
    const double *restrict v = d->v + jm->vadr;
    if (jm->frame_child_identity) {
        mbs_joint_motion(jm, joint_aux(d, jm), d->q + jm->qadr, v, S, cJ);
    } else { /* Fc -> body coordinates: pose of Fc in the body */
        double c[6];
        mbs_joint_motion(jm, joint_aux(d, jm), d->q + jm->qadr, v, S, c);
        subspace_to_body(jm, S);
        xm_apply_inv(cJ, &jm->frame_child, c);
    }
    for (int i = 0; i < 6; ++i) vJ[i] = S[i] * v[0];
    for (int k = 1; k < nv; ++k)
        for (int i = 0; i < 6; ++i) vJ[i] += S[6 * k + i] * v[k];
}

/* vel = X vp + vJ and cvel = vel x vJ + cJ (X: pose of the body in its parent). */
static inline void body_velocity(double *restrict vel, double *restrict cvel,
                                 const mbs_pose *restrict X, const double *restrict vp,
                                 const double vJ[6], const double cJ[6])
{
    double v[6];
    xm_apply(v, X, vp);
    for (int i = 0; i < 6; ++i) v[i] += vJ[i];
    double c[6];
    mv_cross_m(c, v, vJ);
    for (int i = 0; i < 6; ++i) vel[i] = v[i], cvel[i] = c[i] + cJ[i];
}

/* Generic kernel: x_up[b] and x_world[b]. */
void mbs_kin_pose_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p)
{
    joint_pose_up(d, jm, &d->x_up[b]);
    pose_compose(&d->x_world[b], &d->x_world[p], &d->x_up[b]);
}

/* Generic kernel: the pose, then S, vel[b] = X v_p + S qd and cvel[b] = c_J + v_b x v_J. */
void mbs_kin_pose_motion_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p)
{
    double vJ[6], cJ[6];
    joint_pose_up(d, jm, &d->x_up[b]);
    pose_compose(&d->x_world[b], &d->x_world[p], &d->x_up[b]);
    joint_motion(d, jm, vJ, cJ);
    body_velocity(d->vel + 6 * b, d->cvel + 6 * b, &d->x_up[b], d->vel + 6 * p, vJ, cJ);
}

/* Generic kernel: S in child-body coordinates. */
void mbs_kin_subspace_generic(mbs_data *d, const mbs_joint_model *jm)
{
    if (jm->nv == 0) return;
    double *S = d->S + 6 * jm->vadr;
    mbs_joint_motion(jm, joint_aux(d, jm), d->q + jm->qadr, d->v + jm->vadr, S, NULL);
    if (!jm->frame_child_identity) subspace_to_body(jm, S);
}

/* Poses x_up and x_world of every body from q. */
void mbs_kinematics_pos(mbs_data *d)
{
    const mbs_model *m = d->model;
    d->kin_gen++;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child;
        jm->kern->pose(d, jm, b, jm->parent);
    }
}

/* Full pass: poses, S, body velocities v_i = X v_p + S qd and c_i = c_J + v_i x v_J. */
void mbs_kinematics(mbs_data *d)
{
    const mbs_model *m = d->model;
    d->kin_gen++;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child;
        jm->kern->pose_motion(d, jm, b, jm->parent);
    }
}

/* Poses and S only (what the mass matrix needs): no velocities, no bias terms. */
void mbs_kinematics_subspace(mbs_data *d)
{
    const mbs_model *m = d->model;
    d->kin_gen++;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child;
        jm->kern->pose(d, jm, b, jm->parent);
        jm->kern->subspace(d, jm);
    }
}

/* Poses, S and the CRBA frame step (mbs_crba_framed) in one pass: the mass matrix. */
void mbs_kinematics_crba(mbs_data *d)
{
    const mbs_model *m = d->model;
    d->kin_gen++;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        jm->kern->pose_crba(d, jm, jm->child, jm->parent);
    }
}

/* World poses of every body at the neutral q (all joint transforms the identity). */
void mbs_neutral_poses(const mbs_model *m, mbs_pose *xw)
{
    pose_identity(&xw[0]);
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        mbs_pose up;
        pose_mul_inv(&up, &jm->frame_parent, &jm->frame_child);
        pose_mul(&xw[jm->child], &xw[m->bodies[jm->child].parent], &up);
    }
}

/* Poses of the bodies at the tree positions t[0..n) (ascending), their parents' current. */
void mbs_kinematics_pos_some(mbs_data *d, const int *t, int n)
{
    const mbs_model *m = d->model;
    d->kin_gen++;
    for (int i = 0; i < n; ++i) {
        const mbs_joint_model *jm = &m->joints[m->tree[t[i]]];
        jm->kern->pose(d, jm, jm->child, jm->parent);
    }
}

/* S, body velocities and velocity-product terms at the poses already computed for the data's
   q (mbs_kinematics without its pose part). */
void mbs_kinematics_vel(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        double vJ[6], cJ[6];
        joint_motion(d, jm, vJ, cJ);
        body_velocity(d->vel + 6 * b, d->cvel + 6 * b, &d->x_up[b], d->vel + 6 * p, vJ, cJ);
    }
}

/* S only, the poses left as they are. */
void mbs_kinematics_S(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        jm->kern->subspace(d, jm);
    }
}
