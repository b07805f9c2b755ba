/* The analyses' workspace (analysis.h) and the small pieces they share: saving the state,
 * checking a `fixed` mask, naming the loop of a coordinate. */
#include "analysis/analysis.h"

#include <math.h>
#include <stdlib.h>

#include "core/linalg.h"
#include "events/events.h"
#include "loops/loops.h"

/* Largest of two ints. */
static int imax(int a, int b) { return a > b ? a : b; }

/* LAPACK workspace for every factorisation of the analyses (doubles). */
static int analysis_lwork(int nv, int m)
{
    const int mn = m < nv ? m : nv;
    int lw = mbs_linalg_lstsq_lwork(nv, nv, 1);
    lw = imax(lw, mbs_linalg_qrp_lwork(nv, imax(mn, 1)));
    lw = imax(lw, mbs_linalg_apply_qt_lwork(nv, nv + 1, imax(mn, 1)));
    return imax(lw, 1);
}

/* Doubles in the reaction cache's key: q, v, qacc, tau, lambda, aux, user states, time. */
static size_t reaction_key_len(const mbs_model *m)
{
    return (size_t)m->nq + 3 * (size_t)m->nv + (size_t)(m->ncon + mbs_nqrow(m)) +
           (size_t)m->naux + (size_t)m->nux + 1;
}

#define KEY_PARTS 7
/* The arrays of the key (time apart) and their lengths. */
static void key_parts(const mbs_data *d, const double *part[KEY_PARTS], int len[KEY_PARTS])
{
    const mbs_model *m = d->model;
    const double *p[KEY_PARTS] = {d->q, d->v, d->qacc, d->tau, d->lambda, d->aux, d->ux};
    const int n[KEY_PARTS] = {m->nq, m->nv, m->nv, m->nv, m->ncon + mbs_nqrow(m), m->naux,
                              m->nux};
    for (int i = 0; i < KEY_PARTS; ++i) part[i] = p[i], len[i] = n[i];
}

/* The key of the data's state into key (reaction_key_len doubles). */
static void reaction_key(const mbs_data *d, double *key)
{
    const double *part[KEY_PARTS];
    int len[KEY_PARTS];
    key_parts(d, part, len);
    for (int i = 0; i < KEY_PARTS; ++i) {
        if (len[i] > 0) memcpy(key, part[i], (size_t)len[i] * sizeof(double));
        key += len[i];
    }
    *key = d->time;
}

/* See analysis.h: bitwise the same key and host wrenches. */
int mbs_analysis_reaction_hit(const mbs_data *d)
{
    const mbs_analysis *a = d->analysis;
    if (!a->react_valid) return 0;
    const mbs_model *m = d->model;
    const double *key = a->react_key;
    const double *part[KEY_PARTS];
    int len[KEY_PARTS];
    key_parts(d, part, len);
    for (int i = 0; i < KEY_PARTS; ++i) {
        if (len[i] > 0 && memcmp(key, part[i], (size_t)len[i] * sizeof(double)) != 0) return 0;
        key += len[i];
    }
    return memcmp(key, &d->time, sizeof(double)) == 0 && a->react_param_rev == m->param_rev &&
           a->react_input_rev == d->input_rev &&
           memcmp(a->react_w, d->wrench_in, (size_t)m->nbody * sizeof(mbs_wrench_input)) == 0;
}

/* See analysis.h. */
void mbs_analysis_reaction_store(mbs_data *d)
{
    mbs_analysis *a = d->analysis;
    const mbs_model *m = d->model;
    reaction_key(d, a->react_key);
    memcpy(a->react_w, d->wrench_in, (size_t)m->nbody * sizeof(mbs_wrench_input));
    a->react_param_rev = m->param_rev, a->react_input_rev = d->input_rev;
    memcpy(a->react_x, d->x_world, (size_t)m->nbody * sizeof(mbs_pose));
    memcpy(a->react_f, d->f, 6 * (size_t)m->nbody * sizeof(double));
    a->react_valid = 1;
}

/* See analysis.h. */
int mbs_analysis_create(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_analysis *a = calloc(1, sizeof *a);
    d->analysis = a;
    if (!a) return MBS_ERR_NOMEM;
    a->nq = m->nq, a->nv = m->nv, a->m = m->ncon;
    const size_t nq1 = (size_t)m->nq + 1, nv1 = (size_t)m->nv + 1, m1 = (size_t)m->ncon + 1;
    a->lwork = analysis_lwork(m->nv, m->ncon);
    double **dp[] = {&a->q0, &a->v0, &a->qb, &a->qt, &a->dv, &a->step, &a->g, &a->r,
                     &a->rt, &a->s, &a->A, &a->B, &a->QJ, &a->h, &a->J6, &a->tau, &a->work};
    const size_t dn[] = {nq1, nv1, nq1, nq1, nv1, nv1, nv1, nv1, nv1, nv1, nv1 * nv1,
                         nv1 * (nv1 + 1), m1 * nv1, m1 + 6, 6 * nv1, nv1, (size_t)a->lwork};
    int ok = 1;
    for (size_t i = 0; i < sizeof dp / sizeof dp[0]; ++i)
        ok &= (*dp[i] = calloc(dn[i], sizeof(double))) != NULL;
    ok &= (a->jpvt = calloc(nv1, sizeof(int))) != NULL;
    ok &= (a->idx = calloc(nv1, sizeof(int))) != NULL;
    ok &= (a->hold = calloc(nv1, 1)) != NULL;
    ok &= (a->react_f = calloc(6 * (size_t)m->nbody, sizeof(double))) != NULL;
    ok &= (a->react_x = calloc((size_t)m->nbody, sizeof(mbs_pose))) != NULL;
    ok &= (a->react_key = calloc(reaction_key_len(m), sizeof(double))) != NULL;
    ok &= (a->react_w = calloc((size_t)m->nbody, sizeof(mbs_wrench_input))) != NULL;
    ok &= (a->rf_qacc = calloc(nv1, sizeof(double))) != NULL;
    ok &= (a->rf_lambda = calloc(m1 + (size_t)mbs_nqrow(m), sizeof(double))) != NULL;
    return ok ? MBS_OK : MBS_ERR_NOMEM;
}

/* See analysis.h. */
void mbs_analysis_destroy(mbs_data *d)
{
    mbs_analysis *a = d ? d->analysis : NULL;
    if (!a) return;
    void *p[] = {a->q0, a->v0, a->qb, a->qt, a->dv, a->step, a->g, a->r, a->rt, a->s, a->A,
                 a->B, a->QJ, a->h, a->J6, a->tau, a->work, a->jpvt, a->idx, a->hold,
                 a->react_f, a->react_x, a->react_key, a->react_w, a->rf_qacc, a->rf_lambda};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    mbs_loops_snap_free(a->loops_bak);
    free(a);
    d->analysis = NULL;
}

/* See analysis.h. */
void mbs_analysis_save(mbs_data *d)
{
    mbs_analysis *a = d->analysis;
    memcpy(a->q0, d->q, (size_t)a->nq * sizeof(double));
    memcpy(a->v0, d->v, (size_t)a->nv * sizeof(double));
    mbs_loops_snap_save(d, a->loops_bak);
}

/* See analysis.h. */
void mbs_analysis_restore(mbs_data *d)
{
    const mbs_analysis *a = d->analysis;
    memcpy(d->q, a->q0, (size_t)a->nq * sizeof(double));
    memcpy(d->v, a->v0, (size_t)a->nv * sizeof(double));
    mbs_loops_snap_restore(d, a->loops_bak);
}

/* MBS_ERR_ARG when the rotation dofs (the last three of v) of a quaternion joint are held in
   part: a quaternion has no coordinate that could keep its value alone. */
static int check_quaternion_hold(mbs_data *d, const char *call, const mbs_joint_model *jm,
                                 int j)
{
    if (jm->cut || jm->nq == jm->nv) return MBS_OK;
    const unsigned char *h = d->analysis->hold + jm->vadr + jm->nv - 3;
    if (h[0] == h[1] && h[1] == h[2]) return MBS_OK;
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_ARG, "%s: fixed holds part of the rotation of joint %s "
                         "(v %d..%d, a quaternion): hold all three rotation dofs or none", call,
                         mbs_joint_label(d->model, j, buf, (int)sizeof buf),
                         jm->vadr + jm->nv - 3, jm->vadr + jm->nv - 1);
}

/* See analysis.h. */
int mbs_analysis_check_mask(mbs_data *d, const char *call, const unsigned char *fixed)
{
    const mbs_model *m = d->model;
    unsigned char *hold = d->analysis->hold;
    for (int k = 0; k < m->nv; ++k) {
        if (fixed && fixed[k] > 1) {
            char buf[96];
            return MBS_DATA_FAIL(d, MBS_ERR_ARG, "%s: fixed[%d] = %d (joint %s): the mask holds "
                                 "0 (free) or 1 (held) per velocity coordinate (nv = %d "
                                 "entries), not indices", call, k, fixed[k],
                                 mbs_joint_label(m, m->dof_joint[k], buf, (int)sizeof buf), m->nv);
        }
        hold[k] = fixed ? fixed[k] : 0;
    }
    for (int j = 0; j < m->njoint; ++j) {
        const int st = check_quaternion_hold(d, call, &m->joints[j], j);
        if (st != MBS_OK) return st;
    }
    return MBS_OK;
}

/* 1 when body a is b or one of b's ancestors. */
static int is_ancestor(const mbs_model *m, int a, int b)
{
    for (; b > 0; b = m->bodies[b].parent)
        if (b == a) return 1;
    return a == b;
}

/* See analysis.h: dof k moves child body c of its joint; it is on the loop of cut joint j
   when c is an ancestor (or itself) of exactly one of j's two bodies. */
int mbs_analysis_loop_of_dof(const mbs_model *m, int k)
{
    const int c = m->joints[m->dof_joint[k]].child;
    for (int j = 0; j < m->njoint; ++j) {
        const mbs_joint_model *jm = &m->joints[j];
        if (!jm->cut || jm->ncon == 0) continue;
        if (is_ancestor(m, c, jm->parent) != is_ancestor(m, c, jm->child)) return j;
    }
    return -1;
}

/* See analysis.h. */
void mbs_analysis_move(const mbs_model *m, const double *q, const double *dv, double alpha,
                       double *x)
{
    mbs_integrate_q(m, q, dv, alpha, x);
    mbs_normalize_q(m, x);
}

/* See analysis.h. */
double mbs_analysis_maxabs(const double *x, int n, int *at)
{
    double best = 0.0;
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (fabs(x[i]) > best || isnan(x[i])) best = fabs(x[i]), k = i;
    if (at) *at = k;
    return best;
}

/* See analysis.h. */
int mbs_analysis_usual_partition(mbs_data *d)
{
    const int st = d->model->ncon > 0 ? mbs_loops_partition_holding(d, NULL) : MBS_OK;
    if (st != MBS_OK) mbs_analysis_restore(d); /* a refused analysis leaves q and v as they were */
    return st;
}

/* See analysis.h. */
int mbs_analysis_hold_partition(mbs_data *d, const char *call)
{
    const int st = mbs_loops_partition_holding(d, d->analysis->hold);
    if (st != MBS_ERR_SINGULAR) return st;
    char why[MBS_ERROR_LEN];
    memcpy(why, d->error, sizeof why);
    return MBS_DATA_FAIL(d, MBS_ERR_ARG, "%s: fixed holds coordinates a loop needs to close "
                         "(%s)", call, why);
}
