/* Joint reactions (the reaction dynamics of Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a
 * powerful symbolic generator of multibody models", §2.1.3): the total wrench the parent
 * exerts on the child through a joint at the last dynamics evaluation. A tree joint carries
 * everything its child's subtree needs beyond what acts on it directly: the sum over the
 * subtree of I a + v x* I v - f_ext - (cut-joint wrenches) — the recursive Newton-Euler
 * backward pass with the accelerations of the last forward dynamics. A cut joint's is the
 * wrench of its multipliers lambda. Both reported at the child joint frame origin, world.
 * The backward pass gives every tree joint's force at once: it is kept (with the poses) and
 * reused by the next queries while q, v, qacc, tau, lambda, the time, the host wrenches and
 * the revisions of the model's parameters and the data's inputs (frame forces) are bitwise
 * unchanged, so the reactions of all N joints cost one pass, not N. */
#include "ustates/ustates.h"
#include "analysis/analysis.h"
#include "loops/constraints.h"

/* Add a wrench given about the world origin (W = [n; f], world) to f_ext of body b. */
static void add_world_origin_wrench(mbs_data *d, int b, const double W[6], double sign)
{
    if (b == MBS_WORLD) return;
    const mbs_pose *X = &d->x_world[b];
    double o[3], mp[3], F[3], T[3]; /* the world origin in body coordinates: R^T (0 - p) */
    v3_scale(mp, X->p, -1.0);
    m3_tmulv(o, X->R, mp);
    v3_scale(T, W, sign), v3_scale(F, W + 3, sign);
    mbs_forces_add_world_wrench(d, b, F, T, o);
}

/* The cut joints' wrenches (from lambda) into f_ext: +W on the child, -W on the parent. */
static void add_cut_wrenches(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int j = 0; j < m->njoint; ++j) {
        const mbs_joint_model *jm = &m->joints[j];
        if (!jm->cut || jm->ncon == 0) continue;
        double W[6];
        mbs_con_cut_wrench(d, j, d->lambda, W);
        add_world_origin_wrench(d, jm->child, W, 1.0);
        add_world_origin_wrench(d, jm->parent, W, -1.0);
    }
}

/* The spatial forces (child body coordinates) every tree joint transmits, into the cache:
   RNEA's forward pass with qacc, then the sums over the subtrees (d->f), with the poses. */
static int tree_forces(mbs_data *d)
{
    if (mbs_analysis_reaction_hit(d)) return MBS_OK;
    mbs_kinematics(d);
    const int st = mbs_forces_accumulate(d);
    if (st != MBS_OK) return st;
    add_cut_wrenches(d);
    mbs_rnea(d, d->qacc, d->work); /* leaves d->f: per body I a + v x* I v - f_ext, summed up */
    mbs_analysis_reaction_store(d);
    return MBS_OK;
}

/* World force and torque about the child joint frame's origin from a body-coordinate
   spatial force f (about the body origin) of the child, whose world pose is X. */
static void at_child_frame(const mbs_pose *X, const mbs_joint_model *jm, const double f[6],
                           double force[3], double torque[3])
{
    double n[3], F[3], xc[3], r[3], t[3];
    m3_mulv(n, X->R, f);
    m3_mulv(F, X->R, f + 3);
    pose_apply(xc, X, jm->frame_child.p);
    v3_sub(r, xc, X->p);              /* moment of F moved from the body origin to x_c */
    v3_cross(t, r, F);
    v3_sub(torque, n, t);
    v3_copy(force, F);
}

int mbs_joint_reaction(mbs_data *d, int joint, double force[3], double torque[3])
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_joint_reaction");
    if (nested != MBS_OK) return nested;
    const mbs_model *m = d->model;
    if (!force || !torque) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "joint_reaction: NULL output");
    if (joint < 0 || joint >= m->njoint)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "joint_reaction: joint %d is not a joint of the model "
                             "(0..%d)", joint, m->njoint - 1);
    const mbs_joint_model *jm = &m->joints[joint];
    int st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK) return st;
    if (jm->child == MBS_WORLD)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "joint_reaction: joint %d has the world as child", joint);
    if (jm->cut) {
        double W[6], w[6], xc[3], t[3];
        mbs_kinematics_pos(d);
        mbs_con_cut_wrench(d, joint, d->lambda, W); /* [n about the origin; f] on the child */
        pose_apply(xc, &d->x_world[jm->child], jm->frame_child.p);
        v3_cross(t, xc, W + 3);
        v3_sub(w, W, t); /* torque about x_c */
        v3_copy(w + 3, W + 3);
        if (!mbs_all_finite(w, 6)) return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "joint_reaction: not finite");
        v3_copy(torque, w), v3_copy(force, w + 3);
        return MBS_OK;
    }
    return mbs_reaction_tree(d, joint, force, torque);
}

/* See analysis.h: the tree joint's part of mbs_joint_reaction, its checks done. */
int mbs_reaction_tree(mbs_data *d, int joint, double force[3], double torque[3])
{
    const mbs_joint_model *jm = &d->model->joints[joint];
    const int st = tree_forces(d);
    if (st != MBS_OK) return st;
    const mbs_analysis *a = d->analysis;
    double F[3], T[3];
    at_child_frame(&a->react_x[jm->child], jm, a->react_f + 6 * jm->child, F, T);
    if (!mbs_all_finite(F, 3) || !mbs_all_finite(T, 3))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "joint_reaction: not finite");
    v3_copy(force, F), v3_copy(torque, T);
    return MBS_OK;
}
