/* Forward dynamics of a model whose loops are closed analytically, reduced to the
 * independent coordinates u (seed 001 §2.2.1 eq. 16; closure.h).
 *
 * The closed forms give qacc = B u'' + b: B (nv x ndof) the rates of the dependent
 * coordinates for unit independent rates, b their accelerations for u'' = 0 (rates.c). With
 * tau_b = RNEA(b) = M b + c - Q, the equations of motion M qacc + c = Q + tau + J^T lambda
 * projected on B (B^T J^T = 0) are (B^T M B) u'' = B^T (tau - tau_b): a dense ndof x ndof
 * Cholesky, M B by one inertia pass per independent coordinate. The multipliers then solve
 * J_a^T lambda = r with r = RNEA(qacc) - tau = tau_b + M B u'' - tau on the dependent dofs:
 * J_v (the kept rows on the dependent columns) is block triangular in solve order (a loop's
 * rows touch no later loop's dependent dofs), so each loop's block is solved with the LU its
 * rates already use, last loop first, each subtracting its rows' share from the earlier
 * loops' dofs on its path. */
#include "closure/closure.h"

#include "solvers/dense.h"
#include "solvers/loops.h"

/* y = M x by one inertia pass (a_i = X_i a_p + S_i x_i, f_i = I_i a_i, f_p += X_i^T f_i,
   y_i = S_i^T f_i): RNEA without velocities, gravity or external forces. */
static void mass_times(mbs_data *d, const double *x, double *y)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        double a[6];
        if (p > 0) xm_apply(a, &d->x_up[b], d->acc + 6 * p);
        else for (int e = 0; e < 6; ++e) a[e] = 0.0;
        for (int k = 0; k < jm->nv; ++k)
            for (int e = 0; e < 6; ++e) a[e] += d->S[6 * (jm->vadr + k) + e] * x[jm->vadr + k];
        for (int e = 0; e < 6; ++e) d->acc[6 * b + e] = a[e];
        rbi_mulv(d->f + 6 * b, &m->bodies[b].rbi, a);
    }
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        for (int k = 0; k < jm->nv; ++k) y[jm->vadr + k] = s6_dot(d->S + 6 * (jm->vadr + k), d->f + 6 * b);
        if (p > 0) {
            double fp[6];
            xf_apply_transpose(fp, &d->x_up[b], d->f + 6 * b);
            for (int e = 0; e < 6; ++e) d->f[6 * p + e] += fp[e];
        }
    }
}

/* u'' (ndof, into C->x) from (B^T M B) u'' = B^T (tau - tau_b). */
static int reduced_solve(mbs_data *d)
{
    const mbs_closure_model *cm = d->model->closure;
    mbs_closure_data *C = d->closure;
    const int nv = d->model->nv, nd = cm->ndof;
    for (int j = 0; j < nd; ++j) {
        const double *Bj = C->B + (size_t)nv * (size_t)j;
        double *MBj = C->MB + (size_t)nv * (size_t)j, s = 0.0;
        mass_times(d, Bj, MBj);
        for (int k = 0; k < nv; ++k) s += Bj[k] * (d->tau[k] - C->taub[k]);
        C->x[j] = s;
        for (int i = 0; i <= j; ++i) {
            const double *Bi = C->B + (size_t)nv * (size_t)i;
            double g = 0.0;
            for (int k = 0; k < nv; ++k) g += Bi[k] * MBj[k];
            C->Mr[j + (size_t)nd * (size_t)i] = g; /* lower triangle, column-major */
        }
    }
    if (nd > 0 && mbs_dense_cholesky(nd, C->Mr) != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "closure: the mass matrix reduced to the "
                             "independent coordinates is singular (massless links?)");
    if (nd > 0) mbs_dense_cholesky_solve(nd, C->Mr, C->x);
    return MBS_OK;
}

/* lambda from J_a^T lambda = r on the dependent dofs, last loop first (r overwritten). */
static void multipliers(mbs_data *d, double *r)
{
    const mbs_model *m = d->model;
    const mbs_closure_model *cm = m->closure;
    const mbs_closure_data *C = d->closure;
    memset(d->lambda, 0, (size_t)m->ncon * sizeof(double));
    for (int i = cm->nasm - 1; i >= 0; --i) {
        const mbs_assembly *a = &cm->asm_[i];
        const int n = a->ndep, adr = m->joints[a->cut].conadr;
        double x[3];
        for (int k = 0; k < n; ++k) x[k] = r[a->dep[k]];
        mbs_dense_lu_solve(1, n, C->LU + 9 * i, C->piv + 3 * i, x);
        for (int k = 0; k < n; ++k) d->lambda[adr + C->rows[3 * i + k]] = x[k];
        for (int c = 0; c < a->ncross; ++c) {
            const int k = a->cross[c];
            double s = 0.0;
            for (int row = 0; row < n; ++row) s += x[row] * s6_dot(C->W + 18 * i + 6 * row, C->Sw + 6 * k);
            r[k] -= a->cross_sign[c] * s;
        }
    }
}

/* See closure.h: at the prepared kinematics and forces; qacc and lambda written only on
   success. */
int mbs_closure_reduced_forward(mbs_data *d)
{
    const mbs_closure_model *cm = d->model->closure;
    mbs_closure_data *C = d->closure;
    const int nv = d->model->nv, nd = cm->ndof;
    if (!(C->jac_valid && mbs_loops_is_closed(d))) {
        C->B_valid = 0;
        const int st = mbs_closure_jacobians(d);
        if (st != MBS_OK) return st;
    }
    if (!C->B_valid) mbs_closure_basis(d);
    mbs_con_world_accel(d, C->a0, C->Vw, C->Aw);
    mbs_closure_bias(d, C->b);
    mbs_rnea(d, C->b, C->taub);
    const int st = reduced_solve(d);
    if (st != MBS_OK) return st;
    for (int k = 0; k < nv; ++k) {
        double acc = C->b[k], f = C->taub[k] - d->tau[k];
        for (int j = 0; j < nd; ++j) {
            acc += C->B[(size_t)nv * (size_t)j + (size_t)k] * C->x[j];
            f += C->MB[(size_t)nv * (size_t)j + (size_t)k] * C->x[j];
        }
        d->qacc[k] = acc, C->r[k] = f;
    }
    multipliers(d, C->r);
    return MBS_OK;
}
