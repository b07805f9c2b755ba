/* Forward dynamics of a model whose loops are closed analytically, reduced to the
 * independent coordinates u (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models" §2.2.1 eq. 16; closure.h).
 *
 * The closed forms give qacc = B u'' + b: B (nv x ndof) the rates of the dependent
 * coordinates for unit independent rates, b their accelerations for u'' = 0 (rates.c). The
 * equations of motion M qacc + c = Q + tau + J^T lambda projected on B (B^T J^T = 0) read
 * (B^T M B) u'' = B^T (tau - RNEA(b)). Both sides are sums over the bodies of the power of
 * their forces in the body velocities V_j that the columns of B make: one forward pass gives
 * A_i (the body accelerations for qacc = b), V_i^j, F_i = I_i A_i + v_i x* I_i v_i - fext_i,
 * B^T RNEA(b) = sum_i V_i^j . F_i - B^T Q_gen and B^T M B = sum_i V_i^j . I_i V_i^k: a dense
 * ndof x ndof Cholesky. One backward pass with f_i = F_i + sum_j u''_j I_i V_i^j then gives
 * r = RNEA(qacc) - tau = J_a^T lambda, and the multipliers solve it on the dependent dofs:
 * J_v (the kept rows on the dependent columns) is block triangular in solve order (a loop's
 * rows touch no later loop's dependent dofs), so each loop's block is solved with the inverse
 * its rates use, last loop first, each subtracting its rows' share from the earlier loops' dofs
 * on its path. */
#include "loops/analytic/closure.h"

#include "core/dense.h"
#include "loops/loops.h"

/* Velocity-product accelerations a0 (qacc = 0, no gravity) of every body, body coordinates. */
static void accel0(mbs_data *d, double *a0)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const int b = m->joints[m->tree[t]].child, p = m->bodies[b].parent;
        double *a = a0 + 6 * b;
        if (p > 0) xm_apply(a, &d->x_up[b], a0 + 6 * p);
        else for (int e = 0; e < 6; ++e) a[e] = 0.0;
        for (int e = 0; e < 6; ++e) a[e] += d->cvel[6 * b + e];
    }
}

/* a = X a_p + sum_k S_k x_k for body b of tree joint jm (a_p NULL: the world, at rest). */
static void propagate(const mbs_data *d, const mbs_joint_model *jm, const double *ap,
                      const double *x, double a[6])
{
    const int b = jm->child;
    if (ap) xm_apply(a, &d->x_up[b], ap);
    else for (int e = 0; e < 6; ++e) a[e] = 0.0;
    for (int k = 0; k < jm->nv; ++k) {
        const double xk = x[jm->vadr + k];
        const double *S = d->S + 6 * (jm->vadr + k);
        for (int e = 0; e < 6; ++e) a[e] += S[e] * xk;
    }
}

/* The forward pass: d->acc = A_i, d->f = F_i, C->VB, C->IVB; C->Mr (lower triangle, from
   zero) += sum V_i . I_i V_j and C->x (from B^T (tau + Q_gen)) -= sum V_i . F_i. */
static void forward_pass(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_closure_model *cm = m->closure;
    mbs_closure_data *C = d->closure;
    const int nv = m->nv, nd = cm->ndof, nb = m->nbody;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        const mbs_rbi *I = &m->bodies[b].rbi;
        double *A = d->acc + 6 * b, *F = d->f + 6 * b, Iv[6], h[6];
        propagate(d, jm, p > 0 ? d->acc + 6 * p : NULL, C->b, A);
        for (int e = 0; e < 6; ++e) A[e] += d->cvel[6 * b + e];
        rbi_mulv(F, I, A);
        rbi_mulv(Iv, I, d->vel + 6 * b);
        mv_cross_f(h, d->vel + 6 * b, Iv);
        for (int e = 0; e < 6; ++e) F[e] += h[e] - d->f_ext[6 * b + e];
        for (int j = 0; j < nd; ++j) {
            double *V = C->VB + 6 * ((size_t)nb * j + b), *IV = C->IVB + 6 * ((size_t)nb * j + b);
            propagate(d, jm, p > 0 ? C->VB + 6 * ((size_t)nb * j + p) : NULL, C->B + (size_t)nv * j, V);
            rbi_mulv(IV, I, V);
            C->x[j] -= s6_dot(V, F);
            for (int i = 0; i <= j; ++i) C->Mr[j + (size_t)nd * i] += s6_dot(C->VB + 6 * ((size_t)nb * i + b), IV);
        }
    }
}

/* The backward pass with f_i = F_i + sum_j u''_j I_i V_i^j: r = RNEA(qacc) - tau. */
static void backward_pass(mbs_data *d, double *r)
{
    const mbs_model *m = d->model;
    const mbs_closure_data *C = d->closure;
    const int nd = m->closure->ndof, nb = m->nbody;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        double *f = d->f + 6 * b;
        for (int j = 0; j < nd; ++j)
            for (int e = 0; e < 6; ++e) f[e] += C->x[j] * C->IVB[6 * ((size_t)nb * j + b) + e];
        for (int k = 0; k < jm->nv; ++k) {
            const int i = jm->vadr + k;
            r[i] = s6_dot(d->S + 6 * i, f) - d->gen_force[i] - d->tau[i];
        }
        if (p > 0) {
            double fp[6];
            xf_apply_transpose(fp, &d->x_up[b], f);
            for (int e = 0; e < 6; ++e) d->f[6 * p + e] += fp[e];
        }
    }
}

/* a . b over the first n (3 or 6) entries */
static inline double dotw(const double *a, const double *b, int n)
{
    return n == 3 ? a[0] * b[0] + a[1] * b[1] + a[2] * b[2] : s6_dot(a, b);
}

/* See closure.h: last loop first. */
void mbs_closure_multipliers(mbs_data *d, double *r)
{
    const mbs_model *m = d->model;
    const mbs_closure_model *cm = m->closure;
    const mbs_closure_data *C = d->closure;
    memset(d->lambda, 0, (size_t)m->ncon * sizeof(double));
    for (int i = cm->nasm - 1; i >= 0; --i) {
        const mbs_assembly *a = &cm->asm_[i];
        const int n = a->ndep, adr = m->joints[a->cut].conadr;
        const double *Mi = C->Mi + 9 * i;
        const int dim = C->planar ? 3 : 6; /* planar vectors: closure.h */
        double x[3];
        for (int k = 0; k < n; ++k) {
            x[k] = 0.0;
            for (int c = 0; c < n; ++c) x[k] += Mi[n * c + k] * r[a->dep[c]]; /* M^-T r */
        }
        for (int k = 0; k < n; ++k) d->lambda[adr + C->rows[3 * i + k]] = x[k];
        for (int c = 0; c < a->ncross; ++c) {
            const int k = a->cross[c];
            double s = 0.0;
            for (int row = 0; row < n; ++row) s += x[row] * dotw(C->W + 18 * i + 6 * row, C->Sw + 6 * k, dim);
            r[k] -= a->cross_sign[c] * s;
        }
    }
}

/* See closure.h. */
int mbs_closure_reduced_run(mbs_data *d, const mbs_closure_passes *ps)
{
    const mbs_closure_model *cm = d->model->closure;
    mbs_closure_data *C = d->closure;
    const int nv = d->model->nv, nd = cm->ndof;
    if (!(C->jac_valid && mbs_loops_is_closed(d))) {
        C->B_valid = 0;
        if (ps->unclosed) ps->unclosed(d);
        const int st = mbs_closure_jacobians(d);
        if (st != MBS_OK) return st;
    }
    if (!C->B_valid) mbs_closure_basis(d);
    ps->accel0(d);
    mbs_closure_bias(d, C->b);
    for (int j = 0; j < nd; ++j) {
        double s = 0.0;
        for (int k = 0; k < nv; ++k) s += C->B[(size_t)nv * j + k] * (d->tau[k] + d->gen_force[k]);
        C->x[j] = s;
        for (int i = 0; i <= j; ++i) C->Mr[j + (size_t)nd * i] = 0.0;
    }
    ps->forward(d);
    if (nd > 0 && mbs_closure_solve_reduced(d) != MBS_OK)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "closure: the mass matrix reduced to the "
                             "independent coordinates is singular (massless links?)");
    ps->backward(d, C->r);
    for (int k = 0; k < nv; ++k) {
        double acc = C->b[k];
        for (int j = 0; j < nd; ++j) acc += C->B[(size_t)nv * j + k] * C->x[j];
        d->qacc[k] = acc;
    }
    mbs_closure_multipliers(d, C->r);
    return MBS_OK;
}

static void spatial_accel0(mbs_data *d) { accel0(d, d->closure->a0); }

/* See closure.h: at the prepared kinematics and forces; qacc and lambda written only on
   success. */
int mbs_closure_reduced_forward(mbs_data *d)
{
    static const mbs_closure_passes spatial = {NULL, spatial_accel0, forward_pass, backward_pass};
    return mbs_closure_reduced_run(d, &spatial);
}

/* See closure.h. */
int mbs_closure_solve_reduced(mbs_data *d)
{
    mbs_closure_data *C = d->closure;
    const int nd = d->model->closure->ndof;
    if (mbs_dense_cholesky(nd, C->Mr) != 0) return MBS_ERR_SINGULAR;
    mbs_dense_cholesky_solve(nd, C->Mr, C->x);
    return MBS_OK;
}
