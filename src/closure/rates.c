/* Rates and accelerations of the dependent coordinates, loop after loop (closure.h).
 *
 * Each assembly's characteristic equations (the rod length of JointSSR/SSP, the rod end of
 * the U/S rods, the two in-plane conditions of a planar loop) are the rows row[] of its cut
 * joint: h_r = 0 with the rate h_r' = W_r . (V_c - V_p), W_r the row's world wrench and
 * V_c - V_p = sum over the loop's path of sign_k Sw_k v_k (constraints.h). Differentiating
 * them once gives M v_dep = -W . (sum over the other path dofs), M_ri = sign_i W_r . Sw_i
 * (1 x 1, 2 x 2 or 3 x 3, factored once per closed state); twice, the same M with
 * -(Wdot . (V_c - V_p) + W . (A_c - A_p)) on the right, A the spatial accelerations at the
 * loop's known accelerations (and the velocity-product terms). Loops come in solve order, so
 * every dof a loop reads is independent or already written by an earlier one. */
#include "closure/closure.h"

#include "solvers/dense.h"

/* 1 when dof k is one of a's dependent dofs. */
static int is_own(const mbs_assembly *a, int k)
{
    for (int i = 0; i < a->ndep; ++i)
        if (a->dep[i] == k) return 1;
    return 0;
}

/* sum of sign_k Sw_k x_k over a's path without its own dependent dofs: the relative
   twist (or acceleration) of the cut's child to its parent the known coordinates give. */
static void known_twist(const mbs_closure_model *cm, const mbs_assembly *a, const double *Sw,
                        const double *x, double tw[6])
{
    const mbs_con_topo *t = &cm->topo;
    for (int e = 0; e < 6; ++e) tw[e] = 0.0;
    for (int p = t->path_adr[a->icut]; p < t->path_adr[a->icut + 1]; ++p) {
        const int k = t->path_dof[p];
        if (x[k] == 0.0 || is_own(a, k)) continue;
        const double s = t->path_sign[p] * x[k];
        for (int e = 0; e < 6; ++e) tw[e] += s * Sw[6 * k + e];
    }
}

/* See closure.h. */
int mbs_closure_jacobians(mbs_data *d)
{
    const mbs_closure_model *cm = d->model->closure;
    mbs_closure_data *C = d->closure;
    mbs_con_world_motion(d, C->Sw);
    for (int i = 0; i < cm->nasm; ++i) {
        const mbs_assembly *a = &cm->asm_[i];
        const int n = a->ndep;
        double *W = C->W + 18 * i, *M = C->LU + 9 * i;
        for (int r = 0; r < n; ++r) {
            mbs_con_row(d, a->cut, C->rows[3 * i + r], NULL, W + 6 * r, NULL);
            for (int c = 0; c < n; ++c)
                M[r + n * c] = a->dep_sign[c] * s6_dot(W + 6 * r, C->Sw + 6 * a->dep[c]);
        }
        if (mbs_dense_lu(n, M, C->piv + 3 * i) != 0) {
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
static void solve_own(const mbs_closure_data *C, const mbs_assembly *a, int i,
                      const double tw[6], const double *extra, double *y)
{
    double x[3];
    for (int r = 0; r < a->ndep; ++r)
        x[r] = -s6_dot(C->W + 18 * i + 6 * r, tw) - (extra ? extra[r] : 0.0);
    mbs_dense_lu_solve(0, a->ndep, C->LU + 9 * i, C->piv + 3 * i, x);
    for (int r = 0; r < a->ndep; ++r) y[a->dep[r]] = x[r];
}

/* See closure.h. */
void mbs_closure_rates(const mbs_data *d, double *v)
{
    const mbs_closure_model *cm = d->model->closure;
    const mbs_closure_data *C = d->closure;
    for (int i = 0; i < cm->nasm; ++i) {
        double tw[6];
        known_twist(cm, &cm->asm_[i], C->Sw, v, tw);
        solve_own(C, &cm->asm_[i], i, tw, NULL, v);
    }
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

/* See closure.h: the rows' second derivatives with the known accelerations b. */
void mbs_closure_bias(mbs_data *d, double *b)
{
    const mbs_closure_model *cm = d->model->closure;
    const mbs_closure_data *C = d->closure;
    memset(b, 0, (size_t)d->model->nv * sizeof(double));
    for (int i = 0; i < cm->nasm; ++i) {
        const mbs_assembly *a = &cm->asm_[i];
        const mbs_joint_model *c = &d->model->joints[a->cut];
        const double *Vp = C->Vw + 6 * c->parent, *Vc = C->Vw + 6 * c->child;
        double tw[6], dV[6], extra[3], W[6], Wd[6];
        known_twist(cm, a, C->Sw, b, tw);
        for (int e = 0; e < 6; ++e) {
            tw[e] += C->Aw[6 * c->child + e] - C->Aw[6 * c->parent + e];
            dV[e] = Vc[e] - Vp[e];
        }
        for (int r = 0; r < a->ndep; ++r) {
            mbs_con_row(d, a->cut, C->rows[3 * i + r], C->Vw, W, Wd);
            extra[r] = s6_dot(Wd, dV);
        }
        solve_own(C, a, i, tw, extra, b);
    }
}
