/* q-manifold operations over all tree joints of a model, through each joint's ops:
 * integrate (q (+) dt v), difference, neutral and normalize. Quaternion joints keep unit
 * quaternions; nobody needs to handle them by hand. */
#include "core/internal.h"

#include <math.h>

/* The joint's ops when it owns coordinates (tree joint with nq or nv > 0), else NULL. */
static const mbs_joint_ops *coord_ops(const mbs_joint_model *j)
{
    if (j->cut || !j->ops || (j->nq == 0 && j->nv == 0)) return NULL;
    return j->ops;
}

/* See internal.h: every tree joint's coordinates Euclidean (the ops' integrate is
   mbs_joint_euclid_integrate) at qadr == vadr, and nq == nv. */
int mbs_q_is_flat(const mbs_model *m)
{
    if (m->nq != m->nv) return 0;
    for (int k = 0; k < m->ntree; ++k) {
        const mbs_joint_model *j = &m->joints[m->tree[k]];
        const mbs_joint_ops *ops = coord_ops(j);
        if (ops && (ops->integrate != mbs_joint_euclid_integrate || j->qadr != j->vadr ||
                    j->nq != j->nv))
            return 0;
    }
    return 1;
}

/* mbs_integrate_q of a model whose q is flat (m->q_flat): the same sums in one loop, the
   same checks (inputs finite: else MBS_ERR_ARG; sums finite: else MBS_ERR_NONFINITE, with
   nothing written). */
static int integrate_flat(int n, const double *q, const double *v, double dt, double *q_out)
{
    double in = 0.0, out = 0.0; /* 0 x is 0 for finite x, NaN otherwise: no branches */
    for (int i = 0; i < n; ++i) {
        in += 0.0 * q[i] + 0.0 * v[i];
        out += 0.0 * (q[i] + dt * v[i]);
    }
    if (in != 0.0) return MBS_ERR_ARG;
    if (out != 0.0) return MBS_ERR_NONFINITE; /* q + dt v overflowed */
    for (int i = 0; i < n; ++i) q_out[i] = q[i] + dt * v[i];
    return MBS_OK;
}

/* q_out = q (+) dt v over every tree joint; q_out may alias q. */
int mbs_integrate_q(const mbs_model *m, const double *q, const double *v, double dt,
                    double *q_out)
{
    if (!m || !q || !v || !q_out || !isfinite(dt)) return MBS_ERR_ARG;
    if (m->q_flat) return integrate_flat(m->nq, q, v, dt, q_out);
    if (!mbs_all_finite(q, m->nq) || !mbs_all_finite(v, m->nv)) return MBS_ERR_ARG;
    for (int k = 0; k < m->ntree; ++k) { /* every joint checked before anything is written */
        const mbs_joint_model *j = &m->joints[m->tree[k]];
        const mbs_joint_ops *ops = coord_ops(j);
        double t[8];
        if (!ops) continue;
        ops->integrate(j, q + j->qadr, v + j->vadr, dt, t);
        if (!mbs_all_finite(t, j->nq)) return MBS_ERR_NONFINITE; /* q + dt v overflowed */
    }
    for (int k = 0; k < m->ntree; ++k) {
        const mbs_joint_model *j = &m->joints[m->tree[k]];
        const mbs_joint_ops *ops = coord_ops(j);
        if (ops) ops->integrate(j, q + j->qadr, v + j->vadr, dt, q_out + j->qadr);
    }
    return MBS_OK;
}

/* v_out (nv) with integrate_q(q0, v_out, 1) == q1. */
int mbs_difference_q(const mbs_model *m, const double *q0, const double *q1, double *v_out)
{
    if (!m || !q0 || !q1 || !v_out) return MBS_ERR_ARG;
    if (!mbs_all_finite(q0, m->nq) || !mbs_all_finite(q1, m->nq)) return MBS_ERR_ARG;
    for (int k = 0; k < m->ntree; ++k) {
        const mbs_joint_model *j = &m->joints[m->tree[k]];
        const mbs_joint_ops *ops = coord_ops(j);
        if (ops) ops->difference(j, q0 + j->qadr, q1 + j->qadr, v_out + j->vadr);
    }
    /* finite coordinates far apart (-DBL_MAX and DBL_MAX) differ by more than a double */
    return mbs_all_finite(v_out, m->nv) ? MBS_OK : MBS_ERR_NONFINITE;
}

/* Project q back onto the manifold (unit quaternions) in place. */
int mbs_normalize_q(const mbs_model *m, double *q)
{
    if (!m || !q) return MBS_ERR_ARG;
    if (!mbs_all_finite(q, m->nq)) return MBS_ERR_ARG;
    for (int k = 0; k < m->ntree; ++k) {
        const mbs_joint_model *j = &m->joints[m->tree[k]];
        const mbs_joint_ops *ops = coord_ops(j);
        if (ops) ops->normalize(j, q + j->qadr);
    }
    return MBS_OK;
}

/* The neutral configuration: every joint frame pair coincides. */
int mbs_neutral_q(const mbs_model *m, double *q)
{
    if (!m || !q) return MBS_ERR_ARG;
    for (int k = 0; k < m->ntree; ++k) {
        const mbs_joint_model *j = &m->joints[m->tree[k]];
        const mbs_joint_ops *ops = coord_ops(j);
        if (ops) ops->neutral(j, q + j->qadr);
    }
    return MBS_OK;
}

/* See internal.h: each tree joint's qdot op (e.g. 1/2 q (x) (0, w) for a quaternion). */
void mbs_qdot(const mbs_model *m, const double *q, const double *v, double *qdot)
{
    for (int k = 0; k < m->ntree; ++k) {
        const mbs_joint_model *j = &m->joints[m->tree[k]];
        if (j->nq > 0) j->ops->qdot(j, q + j->qadr, v + j->vadr, qdot + j->qadr);
    }
}
