/* Inertial couplings: evaluation of the rows, their solve after ABA, and their share of the
 * mass matrix, of RNEA and of the kinetic energy (see couplings.h for the mechanism). */
#include "elements/couplings.h"
#include "elements/workspace.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ workspace */

/* Allocate n doubles (at least one), zeroed; tracks failure in *ok. */
static double *dalloc(size_t n, int *ok)
{
    double *p = calloc(n > 0 ? n : 1, sizeof(double));
    *ok &= p != NULL;
    return p;
}

/* See couplings.h. */
int mbs_couplings_create(mbs_data *d, int nloop_rows)
{
    const mbs_model *m = d->model;
    if (m->ncrow == 0 && m->nnode == 0) return MBS_OK;
    mbs_coupling_ws *w = calloc(1, sizeof *w);
    if (!w) return MBS_ERR_NOMEM;
    d->cws = w;
    int ok = 1;
    const size_t nr = (size_t)m->ncrow, ns = (size_t)m->ncrow_solve, nv = (size_t)m->nv;
    const size_t nb = (size_t)m->nbody, n3 = 3 * (size_t)m->nnode;
    d->crow = calloc(nr > 0 ? nr : 1, sizeof(mbs_crow));
    ok &= d->crow != NULL;
    d->cforce = dalloc(nr, &ok);
    w->solve = calloc(ns > 0 ? ns : 1, sizeof(int));
    w->gidx = calloc(nv > 0 ? nv : 1, sizeof(int));
    w->npiv = calloc(n3 > 0 ? n3 : 1, sizeof(int));
    ok &= w->solve && w->gidx && w->npiv;
    w->K = dalloc(ns * ns, &ok), w->rhs = dalloc(ns, &ok);
    w->rf = dalloc(6 * nb, &ok), w->racc = dalloc(6 * nb, &ok);
    w->rgen = dalloc(nv, &ok), w->rqdd = dalloc(nv, &ok), w->g = dalloc(nv, &ok);
    w->Y = dalloc(nv * ns, &ok), w->G = dalloc(ns * nv, &ok);
    const size_t nrow = (size_t)nloop_rows;
    w->Kcm = dalloc(nrow * ns, &ok), w->W = dalloc(ns * ns, &ok);
    w->nx = dalloc(n3, &ok), w->nJ = dalloc(n3 * n3, &ok), w->nR = dalloc(n3, &ok);
    w->ndx = dalloc(n3, &ok), w->nx0 = dalloc(n3, &ok);
    if (!ok) return MBS_ERR_NOMEM;
    int k = 0;
    for (int r = 0; r < m->ncrow; ++r)
        if (!m->crow_native[r]) w->solve[k++] = r;
    return MBS_OK;
}

/* See couplings.h. */
void mbs_couplings_destroy(mbs_data *d)
{
    mbs_coupling_ws *w = d ? d->cws : NULL;
    if (d) free(d->crow), free(d->cforce);
    if (!w) return;
    void *p[] = {w->solve, w->gidx, w->npiv, w->K, w->rhs, w->rf, w->racc, w->rgen, w->rqdd,
                 w->g, w->Y, w->G, w->Kcm, w->W, w->nx, w->nJ, w->nR, w->ndx, w->nx0};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    free(w);
    d->cws = NULL;
}

/* ------------------------------------------------------------------ rows */

/* Label of the element that owns row r: force element or rotor. */
const char *mbs_crow_label(const mbs_model *m, int r, char *buf, int len)
{
    const int o = m->crow_owner[r];
    if (o >= 0) return mbs_name_label(m->forces[o].name, o, buf, len);
    return mbs_name_label(m->rotors[-o - 1].name, -o - 1, buf, len);
}

/* See couplings.h: every element's rows, then every rotor's. */
int mbs_couplings_eval(mbs_data *d, int with_vel)
{
    const mbs_model *m = d->model;
    for (int i = 0; i < m->nforce; ++i) {
        const mbs_force_model *f = &m->forces[i];
        if (f->ncrow == 0) continue;
        const int st = f->ops->rows(f, d, with_vel, d->crow + f->crow);
        if (st != MBS_OK) return st;
    }
    mbs_rotors_rows(d);
    return MBS_OK;
}

/* sum_k w_k . x[body_k] + coef y[dof] (y NULL: 0) for body 6-vectors x and dof values y. */
static double row_dot(const mbs_crow *r, const double *x, const double *y)
{
    double s = 0.0;
    for (int k = 0; k < 2; ++k)
        if (r->body[k] > 0) s += s6_dot(r->w[k], x + 6 * r->body[k]);
    if (r->dof >= 0 && y) s += r->coef * y[r->dof];
    return s;
}

/* Add F times the row's pattern to body forces f (6 nbody) and generalized forces gen. */
static void row_apply(const mbs_crow *r, double F, double *f, double *gen)
{
    for (int k = 0; k < 2; ++k)
        if (r->body[k] > 0)
            for (int e = 0; e < 6; ++e) f[6 * r->body[k] + e] += F * r->w[k][e];
    if (r->dof >= 0) gen[r->dof] += F * r->coef;
}

/* Response of the tree to the row forces F (one per solve row, NULL: only row `single` with
   a unit force) into racc, rqdd. */
static void solve_response(mbs_data *d, const double *F, int single)
{
    const mbs_model *m = d->model;
    mbs_coupling_ws *w = d->cws;
    for (int e = 0; e < 6 * m->nbody; ++e) w->rf[e] = 0.0;
    for (int i = 0; i < m->nv; ++i) w->rgen[i] = 0.0;
    for (int k = 0; k < m->ncrow_solve; ++k)
        if (F || k == single) row_apply(&d->crow[w->solve[k]], F ? F[k] : 1.0, w->rf, w->rgen);
    mbs_aba_response(d, w->rf, w->rgen, w->racc, w->rqdd);
}

/* Cholesky A = L L^T of the n x n row-major SPD A in place (lower); 0 or the failing row + 1.
   Pivots below 1e-13 of the largest diagonal count as singular. */
int mbs_small_cholesky(int n, double *A)
{
    double scale = 0.0;
    for (int i = 0; i < n; ++i) scale = fmax(scale, A[n * i + i]);
    for (int j = 0; j < n; ++j) {
        double s = A[n * j + j];
        for (int k = 0; k < j; ++k) s -= A[n * j + k] * A[n * j + k];
        if (!(s > 1e-13 * scale) || !isfinite(s)) return j + 1;
        const double l = sqrt(s);
        A[n * j + j] = l;
        for (int i = j + 1; i < n; ++i) {
            double x = A[n * i + j];
            for (int k = 0; k < j; ++k) x -= A[n * i + k] * A[n * j + k];
            A[n * i + j] = x / l;
        }
    }
    return 0;
}

/* x = A^-1 x with the factor of mbs_small_cholesky. */
void mbs_small_cholesky_solve(int n, const double *L, double *x)
{
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < i; ++k) x[i] -= L[n * i + k] * x[k];
        x[i] /= L[n * i + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) x[i] -= L[n * k + i] * x[k];
        x[i] /= L[n * i + i];
    }
}

/* K = diag(1/m) + G M^-1 G^T of the solve rows, one response pass per column. */
static void solve_matrix(mbs_data *d)
{
    const int n = d->model->ncrow_solve;
    mbs_coupling_ws *w = d->cws;
    for (int l = 0; l < n; ++l) {
        solve_response(d, NULL, l);
        for (int k = l; k < n; ++k) w->K[n * k + l] = row_dot(&d->crow[w->solve[k]], w->racc, w->rqdd);
        w->K[n * l + l] += 1.0 / d->crow[w->solve[l]].mass;
    }
}

/* See couplings.h: (diag(1/m) + G M^-1 G^T) F = target - a0, qacc += M^-1 G^T F. */
int mbs_couplings_forward(mbs_data *d)
{
    const mbs_model *m = d->model;
    const int n = m->ncrow_solve;
    mbs_coupling_ws *w = d->cws;
    for (int k = 0; k < n; ++k) {
        const mbs_crow *r = &d->crow[w->solve[k]];
        w->rhs[k] = r->target - (row_dot(r, d->acc, d->qacc) + r->acc_vel);
    }
    solve_matrix(d);
    const int info = mbs_small_cholesky(n, w->K);
    if (info != 0) {
        char buf[96];
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "inertial coupling of %s: singular system "
                             "(its point mass or rotor has no inertia the tree can move)",
                             mbs_crow_label(m, w->solve[info - 1], buf, (int)sizeof buf));
    }
    mbs_small_cholesky_solve(n, w->K, w->rhs);
    solve_response(d, w->rhs, -1);
    for (int i = 0; i < m->nv; ++i) d->qacc[i] += w->rqdd[i];
    for (int e = 6; e < 6 * m->nbody; ++e) d->acc[e] += w->racc[e];
    for (int k = 0; k < n; ++k) d->cforce[w->solve[k]] = w->rhs[k];
    return MBS_OK;
}

/* ------------------------------------------------------------------ M, RNEA, energy */

/* See couplings.h: the generalized force of a unit row force, walking each wrench up the
   tree (moved into every parent's coordinates) and pairing it with the joints' S. */
int mbs_crow_dense(const mbs_data *d, const mbs_crow *r, double *g, int *idx)
{
    const mbs_model *m = d->model;
    for (int i = 0; i < m->nv; ++i) g[i] = 0.0;
    for (int k = 0; k < 2; ++k) {
        double wb[6], wp[6];
        for (int e = 0; e < 6; ++e) wb[e] = r->w[k][e];
        for (int b = r->body[k]; b > 0; b = m->bodies[b].parent) {
            const mbs_joint_model *jm = &m->joints[m->bodies[b].joint];
            for (int i = 0; i < jm->nv; ++i) g[jm->vadr + i] += s6_dot(wb, d->S + 6 * (jm->vadr + i));
            xf_apply_transpose(wp, &d->x_up[b], wb);
            for (int e = 0; e < 6; ++e) wb[e] = wp[e];
        }
    }
    if (r->dof >= 0) g[r->dof] += r->coef;
    int n = 0;
    for (int i = 0; i < m->nv; ++i)
        if (g[i] != 0.0) idx[n++] = i;
    return n;
}

/* See couplings.h. */
void mbs_couplings_mass(mbs_data *d, double *M, int native_only)
{
    const mbs_model *m = d->model;
    mbs_coupling_ws *w = d->cws;
    const int nv = m->nv;
    for (int k = 0; k < m->ncrow; ++k) {
        const mbs_crow *r = &d->crow[k];
        if (native_only && !r->native) continue;
        const int n = mbs_crow_dense(d, r, w->g, w->gidx);
        for (int a = 0; a < n; ++a) { /* idx ascending: row i = idx[a] >= column j */
            const int i = w->gidx[a];
            const double gi = r->mass * w->g[i];
            for (int b = 0; b <= a; ++b) M[(size_t)nv * i + w->gidx[b]] += gi * w->g[w->gidx[b]];
        }
    }
}

/* See couplings.h: F = m (target - a) with a the row's acceleration at the RNEA forward
   pass's accelerations; f -= F w on the bodies, tau_dof -= F coef. */
void mbs_couplings_rnea(mbs_data *d, const double *qacc, double *tau_dof)
{
    const mbs_model *m = d->model;
    for (int i = 0; i < m->nv; ++i) tau_dof[i] = 0.0;
    for (int k = 0; k < m->ncrow; ++k) {
        const mbs_crow *r = &d->crow[k];
        const double F = r->mass * (r->target - (row_dot(r, d->acc, qacc) + r->acc_vel));
        d->cforce[k] = F;
        row_apply(r, -F, d->f, tau_dof);
    }
}

/* The RNEA hook: the rows' forces with their dof parts in the workspace's rgen. */
static const double *rnea_between(mbs_data *d, const double *qacc)
{
    mbs_couplings_rnea(d, qacc, d->cws->rgen);
    return d->cws->rgen;
}

const mbs_coupling_hooks mbs_couplings_hooks = {mbs_couplings_forward, rnea_between};

/* See couplings.h. */
double mbs_couplings_kinetic(const mbs_data *d)
{
    const mbs_model *m = d->model;
    double T = 0.0;
    for (int k = 0; k < m->ncrow; ++k) {
        const double v = row_dot(&d->crow[k], d->vel, d->v);
        T += d->crow[k].mass * v * v;
    }
    return 0.5 * T;
}
