/* Inertial couplings inside closed loops: the loop solver (src/loops/loops_select.c) factors the
 * tree's M (with the native rotor rows, as ABA has them) tree-sparsely; the other rows make
 * M' = M + G^T diag(m) G, whose inverse it gets by Woodbury's identity
 *     M'^-1 = M^-1 - Y W^-1 Y^T,   Y = M^-1 G^T,   W = diag(1/m) + G Y,
 * so the loop system K' = J M'^-1 J^T = K - (J Y) W^-1 (J Y)^T is the Schur complement of
 * the couplings in the joint system of cut rows and coupling rows (couplings.h). */
#include "elements/couplings.h"
#include "elements/workspace.h"

/* See couplings.h. */
int mbs_couplings_schur_prepare(mbs_data *d, const double *LDL)
{
    const mbs_model *m = d->model;
    mbs_coupling_ws *w = d->cws;
    const int ns = m->ncrow_solve, nv = m->nv;
    for (int l = 0; l < ns; ++l) {
        double *y = w->Y + (size_t)nv * l, *g = w->G + (size_t)nv * l;
        mbs_crow_dense(d, &d->crow[w->solve[l]], g, w->gidx);
        for (int i = 0; i < nv; ++i) y[i] = g[i];
        mbs_mass_solve(m, LDL, y);
    }
    for (int k = 0; k < ns; ++k)
        for (int l = 0; l <= k; ++l) {
            double s = 0.0;
            for (int i = 0; i < nv; ++i) s += w->G[(size_t)nv * k + i] * w->Y[(size_t)nv * l + i];
            w->W[ns * k + l] = s + (k == l ? 1.0 / d->crow[w->solve[k]].mass : 0.0);
        }
    const int info = mbs_small_cholesky(ns, w->W);
    if (info == 0) return MBS_OK;
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "inertial coupling of %s: singular system",
                         mbs_crow_label(m, w->solve[info - 1], buf, (int)sizeof buf));
}

/* See couplings.h: Kcm = J Y (r x ns), K -= Kcm W^-1 Kcm^T (lower, column-major, ld r). */
void mbs_couplings_schur_K(mbs_data *d, int r, const double *J, double *K)
{
    const int ns = d->model->ncrow_solve, nv = d->model->nv;
    mbs_coupling_ws *w = d->cws;
    for (int i = 0; i < r; ++i) /* row i of Kcm, then L^-1 of it (W = L L^T) in place */
        for (int l = 0; l < ns; ++l) {
            double s = 0.0;
            for (int k = 0; k < nv; ++k) s += J[(size_t)nv * i + k] * w->Y[(size_t)nv * l + k];
            w->Kcm[(size_t)ns * i + l] = s;
        }
    for (int i = 0; i < r; ++i) { /* z_i = L^-1 Kcm_i: K_ik -= z_i . z_k */
        double *z = w->Kcm + (size_t)ns * i;
        for (int a = 0; a < ns; ++a) {
            for (int b = 0; b < a; ++b) z[a] -= w->W[ns * a + b] * z[b];
            z[a] /= w->W[ns * a + a];
        }
    }
    for (int k = 0; k < r; ++k)
        for (int i = k; i < r; ++i) {
            double s = 0.0;
            for (int a = 0; a < ns; ++a) s += w->Kcm[(size_t)ns * i + a] * w->Kcm[(size_t)ns * k + a];
            K[i + (size_t)k * (size_t)r] -= s;
        }
}

/* See couplings.h: y -= Y W^-1 (G y). */
void mbs_couplings_schur_correct(mbs_data *d, double *y)
{
    const int ns = d->model->ncrow_solve, nv = d->model->nv;
    mbs_coupling_ws *w = d->cws;
    for (int l = 0; l < ns; ++l) {
        double s = 0.0;
        for (int i = 0; i < nv; ++i) s += w->G[(size_t)nv * l + i] * y[i];
        w->rhs[l] = s;
    }
    mbs_small_cholesky_solve(ns, w->W, w->rhs);
    for (int l = 0; l < ns; ++l)
        for (int i = 0; i < nv; ++i) y[i] -= w->Y[(size_t)nv * l + i] * w->rhs[l];
}
