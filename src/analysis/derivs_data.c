/* The workspace of the derivatives, linearisation and modes (derivs.h), taken once at
 * mbs_data_create: nothing in src/analysis/ allocates after it. */
#include <stdlib.h>

#include "analysis/derivs.h"
#include "events/events.h"
#include "core/linalg.h"

/* calloc of at least one element. */
static void *alloc0(size_t n, size_t sz) { return calloc(n > 0 ? n : 1, sz); }

/* See derivs.h. */
int mbs_derivs_create(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = calloc(1, sizeof *w);
    d->derivs = w;
    if (!w) return MBS_ERR_NOMEM;
    const size_t nv = (size_t)m->nv, nq = (size_t)m->nq, nb = (size_t)m->nbody;
    w->nv = m->nv, w->nq = m->nq, w->nbody = m->nbody;
    w->nx_max = 2 * m->nv;
    const size_t nx = (size_t)w->nx_max;
    w->lwork = mbs_linalg_eig_lwork(w->nx_max, 0);
    double **dp[] = {&w->dof, &w->o, &w->vel, &w->acc, &w->B11, &w->P, &w->F, &w->K,
                     &w->ja, &w->jb, &w->rr, &w->cc, &w->q0, &w->v0, &w->tp, &w->tm,
                     &w->fb, &w->A, &w->wr, &w->wi, &w->eig_work, &w->qs, &w->vs,
                     &w->qacc_s, &w->lam_s, &w->up, &w->um, &w->dqt, &w->T, &w->taus,
                     &w->offp, &w->offm};
    const size_t dn[] = {MBS_DV_STRIDE * nv, 3 * nb, 6 * nb, 6 * nb, 9 * nb, 3 * nb, 6 * nb,
                         36 * nb, 3 * nv, 3 * nv, 3 * nv, 3 * nv, nq, nv, nv, nv, 6 * nb,
                         nx * nx, nx, nx, (size_t)w->lwork, nq, nv, nv, (size_t)(m->ncon + mbs_nqrow(m)), nv,
                         nv, nv, 36, nv, nv, nv};
    int ok = 1;
    for (size_t i = 0; i < sizeof dp / sizeof dp[0]; ++i)
        ok &= (*dp[i] = alloc0(dn[i], sizeof(double))) != NULL;
    w->Ic = alloc0(nb, sizeof(mbs_rbi));
    w->list = alloc0(nv, sizeof(int));
    w->ident = alloc0(nv, sizeof(int));
    w->mark = alloc0(nv, 1);
    w->run = alloc0(nv, sizeof(int));
    if (!ok || !w->Ic || !w->list || !w->ident || !w->mark || !w->run) return MBS_ERR_NOMEM;
    for (int i = 0; i < m->nv; ++i) w->ident[i] = i;
    for (int i = 0; i < m->nv; ++i)
        w->run[i] = i > 0 && m->dof_parent[i] == i - 1 ? w->run[i - 1] : i;
    return MBS_OK;
}

/* See derivs.h (NULL allowed). */
void mbs_derivs_destroy(mbs_data *d)
{
    mbs_derivs *w = d ? d->derivs : NULL;
    if (!w) return;
    void *p[] = {w->dof, w->o, w->vel, w->acc, w->B11, w->P, w->F, w->K, w->ja, w->jb,
                 w->rr, w->cc, w->q0, w->v0, w->tp, w->tm, w->fb, w->A, w->wr, w->wi,
                 w->eig_work, w->qs, w->vs, w->qacc_s, w->lam_s, w->up, w->um, w->dqt,
                 w->T, w->taus, w->offp, w->offm, w->Ic, w->list, w->ident, w->mark, w->run};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    free(w);
    d->derivs = NULL;
}
