/* Rates and accelerations of the dependent coordinates, loop after loop (closure.h).
 *
 * Each assembly's characteristic equations (the rod length of JointSSR/SSP, the rod end of
 * the U/S rods, the two in-plane conditions of a planar loop) are the rows row[] of its cut
 * joint: h_r = 0 with the rate h_r' = W_r . (V_c - V_p), W_r the row's world wrench and
 * V_c - V_p = sum over the loop's path of sign_k Sw_k v_k (constraints.h). Differentiating
 * them once gives M v_dep = -W . (sum over the other path dofs), M_ri = sign_i W_r . Sw_i
 * (1 x 1, 2 x 2 or 3 x 3, inverted once per closed state by its adjugate); twice, the same M with
 * -(Wdot . (V_c - V_p) + W . (A_c - A_p)) on the right, A the spatial accelerations at the
 * loop's known accelerations (and the velocity-product terms). Loops come in solve order, so
 * every dof a loop reads is independent or already written by an earlier one. A planar
 * model's vectors are planar (closure.h): the first 3 entries of each 6, dim 3. */
#include "loops/analytic/closure.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-tree-slp-vectorize") /* as src/planar/: its inner loops */
#endif

#include <math.h>

/* 1 when dof k is one of a's dependent dofs. */
static int is_own(const mbs_assembly *a, int k)
{
    for (int i = 0; i < a->ndep; ++i)
        if (a->dep[i] == k) return 1;
    return 0;
}

/* The length of the data's motion and force vectors: 3 planar, 6 spatial. The loops below
   take it as an argument, each entry point calling them with a constant (inlined). */
static inline int vdim(const mbs_closure_data *C) { return C->planar ? 3 : 6; }

/* a . b over the first n (3 or 6) entries */
static inline double dotn(const double *a, const double *b, int n)
{
    return n == 3 ? a[0] * b[0] + a[1] * b[1] + a[2] * b[2] : s6_dot(a, b);
}

/* sum of sign_k Sw_k x_k over a's path without its own dependent dofs: the relative
   twist (or acceleration) of the cut's child to its parent the known coordinates give. */
static inline MBS_INLINE void known_twist(const mbs_closure_model *cm, const mbs_assembly *a, const double *Sw,
                        const double *x, int dim, double tw[6])
{
    const mbs_con_topo *t = &cm->topo;
    for (int e = 0; e < dim; ++e) tw[e] = 0.0;
    for (int p = t->path_adr[a->icut]; p < t->path_adr[a->icut + 1]; ++p) {
        const int k = t->path_dof[p];
        if (x[k] == 0.0 || is_own(a, k)) continue;
        const double s = t->path_sign[p] * x[k];
        if (dim == 3) tw[0] += s * Sw[6 * k], tw[1] += s * Sw[6 * k + 1], tw[2] += s * Sw[6 * k + 2];
        else for (int e = 0; e < 6; ++e) tw[e] += s * Sw[6 * k + e];
    }
}

/* The world wrenches W (and Wd when Vw is given) of assembly i's rows. */
static void rows_of(const mbs_data *d, int i, const double *Vw, double *W, double *Wd)
{
    const mbs_closure_data *C = d->closure;
    const mbs_assembly *a = &d->model->closure->asm_[i];
    if (C->planar) mbs_closure_planar_rows_w(d, a, Vw, W, Wd);
    else mbs_con_rows(d, a->cut, C->rows + 3 * i, a->ndep, Vw, W, Wd);
}

/* Mi = M^-1 for n <= 3 (row-major) by the adjugate; returns the Hadamard ratio
   |det M| / prod of the row norms (0: singular, 1: orthogonal rows). */
static double small_inverse(int n, const double *M, double *Mi)
{
    double det, h = 1.0;
    if (n == 1) {
        det = M[0];
        Mi[0] = 1.0 / det;
    } else if (n == 2) {
        det = M[0] * M[3] - M[1] * M[2];
        Mi[0] = M[3] / det, Mi[1] = -M[1] / det, Mi[2] = -M[2] / det, Mi[3] = M[0] / det;
    } else {
        double c[9];
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) {
                const int r1 = (r + 1) % 3, r2 = (r + 2) % 3, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
                c[3 * k + r] = M[3 * r1 + k1] * M[3 * r2 + k2] - M[3 * r1 + k2] * M[3 * r2 + k1];
            }
        det = M[0] * c[0] + M[1] * c[3] + M[2] * c[6];
        for (int e = 0; e < 9; ++e) Mi[e] = c[e] / det;
    }
    for (int r = 0; r < n; ++r) {
        double s = 0.0;
        for (int k = 0; k < n; ++k) s += M[n * r + k] * M[n * r + k];
        h *= sqrt(s);
    }
    return h > 0.0 ? fabs(det) / h : 0.0;
}

/* See closure.h. */
int mbs_closure_jacobians(mbs_data *d)
{
    const mbs_closure_model *cm = d->model->closure;
    mbs_closure_data *C = d->closure;
    const int dim = vdim(C);
    if (!C->planar) mbs_con_world_motion(d, C->Sw); /* planar: made from the planar frames */
    for (int i = 0; i < cm->nasm; ++i) {
        const mbs_assembly *a = &cm->asm_[i];
        const int n = a->ndep;
        double *W = C->W + 18 * i, M[9];
        rows_of(d, i, NULL, W, NULL);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c)
                M[n * r + c] = a->dep_sign[c] * dotn(W + 6 * r, C->Sw + 6 * a->dep[c], dim);
        C->hada[i] = small_inverse(n, M, C->Mi + 9 * i);
        if (!(C->hada[i] > 1e-14)) {
            char buf[96];
            C->jac_valid = 0;
            return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "closure: the %s loop of cut joint %s is "
                                 "at a singular position", a->name,
                                 mbs_joint_label(d->model, a->cut, buf, (int)sizeof buf));
        }
    }
    C->jac_valid = 1;
    return MBS_OK;
}

/* x_dep = M^-1 (-W . tw - extra) for assembly i (extra NULL: none), written into y. */
static inline MBS_INLINE void solve_own(const mbs_closure_data *C, const mbs_assembly *a, int i,
                                        const double tw[6], const double *extra, int dim,
                                        double *y)
{
    const int n = a->ndep;
    const double *Mi = C->Mi + 9 * i;
    double x[3];
    for (int r = 0; r < n; ++r)
        x[r] = -dotn(C->W + 18 * i + 6 * r, tw, dim) - (extra ? extra[r] : 0.0);
    for (int r = 0; r < n; ++r) {
        double s = 0.0;
        for (int k = 0; k < n; ++k) s += Mi[n * r + k] * x[k];
        y[a->dep[r]] = s;
    }
}

/* See closure.h. */
static inline MBS_INLINE void rates_dim(const mbs_data *d, double *v, int dim)
{
    const mbs_closure_model *cm = d->model->closure;
    const mbs_closure_data *C = d->closure;
    for (int i = 0; i < cm->nasm; ++i) {
        double tw[6];
        known_twist(cm, &cm->asm_[i], C->Sw, v, dim, tw);
        solve_own(C, &cm->asm_[i], i, tw, NULL, dim, v);
    }
}
void mbs_closure_rates(const mbs_data *d, double *v)
{
    if (d->closure->planar) rates_dim(d, v, 3); /* each with its vector length built in */
    else rates_dim(d, v, 6);
}

/* See closure.h: column j is the closure of the unit rate of independent dof ind[j]. */
void mbs_closure_basis(mbs_data *d)
{
    const mbs_closure_model *cm = d->model->closure;
    mbs_closure_data *C = d->closure;
    const int nv = d->model->nv;
    for (int j = 0; j < cm->ndof; ++j) {
        double *col = C->B + (size_t)nv * (size_t)j;
        memset(col, 0, (size_t)nv * sizeof(double));
        col[cm->ind[j]] = 1.0;
        mbs_closure_rates(d, col);
    }
    C->B_valid = 1;
}

/* World velocity and velocity-product acceleration of body b into Vw, Aw (from the body
   coordinates of d->vel and a0). */
static void world_motion(const mbs_data *d, const mbs_closure_data *C, int b)
{
    xm_apply_inv(C->Vw + 6 * b, &d->x_world[b], d->vel + 6 * b);
    xm_apply_inv(C->Aw + 6 * b, &d->x_world[b], C->a0 + 6 * b);
}

/* See closure.h: v_dep = B u with B of the closed state (its columns are the rates of unit
   independent rates; rates are linear), so the closure's rates cost ndof products. */
void mbs_closure_apply_basis(const mbs_data *d, double *v)
{
    const mbs_closure_model *cm = d->model->closure;
    const double *B = d->closure->B;
    const int nv = d->model->nv;
    for (int k = 0; k < nv; ++k) {
        if (!cm->is_dep[k]) continue;
        double s = 0.0;
        for (int j = 0; j < cm->ndof; ++j) s += B[(size_t)nv * j + k] * v[cm->ind[j]];
        v[k] = s;
    }
}

/* See closure.h: the rows' second derivatives with the known accelerations b. */
static inline MBS_INLINE void bias_dim(mbs_data *d, double *b, int dim)
{
    const mbs_closure_model *cm = d->model->closure;
    const mbs_closure_data *C = d->closure;
    memset(b, 0, (size_t)d->model->nv * sizeof(double));
    for (int i = 0; i < cm->nasm; ++i) {
        const mbs_assembly *a = &cm->asm_[i];
        const mbs_joint_model *c = &d->model->joints[a->cut];
        if (!C->planar) world_motion(d, C, c->parent), world_motion(d, C, c->child);
        const double *Vp = C->Vw + 6 * c->parent, *Vc = C->Vw + 6 * c->child;
        double tw[6], dV[6], extra[3], W[18], Wd[18];
        known_twist(cm, a, C->Sw, b, dim, tw);
        for (int e = 0; e < dim; ++e) {
            tw[e] += C->Aw[6 * c->child + e] - C->Aw[6 * c->parent + e];
            dV[e] = Vc[e] - Vp[e];
        }
        rows_of(d, i, C->Vw, W, Wd);
        for (int r = 0; r < a->ndep; ++r) extra[r] = dotn(Wd + 6 * r, dV, dim);
        solve_own(C, a, i, tw, extra, dim, b);
    }
}
void mbs_closure_bias(mbs_data *d, double *b)
{
    if (d->closure->planar) bias_dim(d, b, 3);
    else bias_dim(d, b, 6);
}
