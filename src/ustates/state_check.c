/* The check of the data's state before an evaluation: q, v, tau and the user states finite,
 * a message naming the joint or the user-state element of the first that is not. */
#include "ustates/ustates.h"
#include "core/kernels.h"

/* Tree joint that owns q index i (-1 if none). */
static int q_joint(const mbs_model *m, int i)
{
    for (int j = 0; j < m->njoint; ++j) {
        const mbs_joint_model *jm = &m->joints[j];
        if (!jm->cut && i >= jm->qadr && i < jm->qadr + jm->nq) return j;
    }
    return -1;
}

/* See ustates.h: q always, v and tau on request. */
int mbs_check_state(mbs_data *d, int check_v, int check_tau)
{
    const mbs_model *m = d->model;
    if (d->geom_rev != m->geom_rev) { /* a geometry parameter changed (params_geometry.c) */
        mbs_kernels_init_data(d);
        if (d->geom_changed) d->geom_changed(d);
    }
    int i = mbs_first_nonfinite(d->q, m->nq);
    if (i >= 0) return mbs_fail_nonfinite(d, "q", i, q_joint(m, i));
    if (check_v && (i = mbs_first_nonfinite(d->v, m->nv)) >= 0)
        return mbs_fail_nonfinite(d, "v", i, m->dof_joint[i]);
    if (check_tau && (i = mbs_first_nonfinite(d->tau, m->nv)) >= 0)
        return mbs_fail_nonfinite(d, "tau", i, m->dof_joint[i]);
    if (check_v && (i = mbs_ustates_first_nonfinite(d)) >= 0) {
        char buf[160];
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s is not finite",
                             mbs_ustates_label(m, i, buf, (int)sizeof buf));
    }
    return MBS_OK;
}
