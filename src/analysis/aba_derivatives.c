/* Derivatives of the forward dynamics of a tree (Carpentier and Mansard 2018, "Analytical
 * Derivatives of Rigid Body Dynamics Algorithms", §IV): at qacc = ABA(q, v, tau),
 *     dqacc/dq = -M^-1 dtau/dq,   dqacc/dv = -M^-1 dtau/dv,   dqacc/dtau = M^-1,
 * with dtau/dq, dtau/dv and M from the recursive passes of rnea_derivatives.c at that qacc,
 * and M^-1 applied through its tree-sparse factor M = L^T D L (Featherstone 2008, "Rigid
 * Body Dynamics Algorithms", §6.5) by row operations on all right-hand sides at once. */
#include "analysis/derivs.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* The row operations of the factor and the solves are long independent loops: on x86-64
   with GCC they are also compiled for AVX2 and AVX-512 and the widest the processor runs
   is picked at load time (each element gets the same multiply and subtract, without
   contraction under -std=c11, so every variant gives the same bits). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define MBS_WIDE_LOOPS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MBS_WIDE_LOOPS
#endif

/* The ancestors of a dof walked as runs of consecutive dofs (derivs.h, run): for each run,
   body(top, bottom) with the ancestors top, top - 1, ..., bottom; one dependent load per run
   instead of one per ancestor. */
#define FOR_ANCESTOR_RUNS(lam, run, first, top, bot)                                        \
    for (int top = (first), bot = 0; top >= 0 && ((bot = (run)[top]), 1); top = (lam)[bot])

/* In-place M = L^T D L over the branch sparsity (RBDA table 6.3, the operations of
   mbs_mass_factor in the same order per entry, each run of ancestors as one contiguous
   loop); MBS_ERR_SINGULAR for a pivot that is not positive relative to the largest. */
MBS_WIDE_LOOPS static int factor_runs(const mbs_model *m, const int *run, double *M)
{
    const int n = m->nv;
    const int *lam = m->dof_parent;
    double scale = 0.0;
    for (int k = 0; k < n; ++k)
        if (M[(size_t)n * k + k] > scale) scale = M[(size_t)n * k + k];
    for (int k = n - 1; k >= 0; --k) {
        double *restrict Mk = M + (size_t)n * (size_t)k;
        const double Hkk = Mk[k];
        if (!(Hkk > 1e-13 * scale) || !(Hkk < INFINITY)) return MBS_ERR_SINGULAR;
        for (int i = lam[k]; i >= 0; i = lam[i]) {
            const double a = Mk[i] / Hkk;
            double *restrict Mi = M + (size_t)n * (size_t)i;
            Mi[i] -= a * Mk[i];
            FOR_ANCESTOR_RUNS(lam, run, lam[i], top, bot)
                for (int j = bot; j <= top; ++j) Mi[j] -= a * Mk[j];
            Mk[i] = a;
        }
    }
    return MBS_OK;
}

/* Row j -= a row i over columns [c0, c1) (row stride ld). */
static inline void row_axpy(double *X, size_t ld, int j, int i, double a, int c0, int c1)
{
    double *restrict xj = X + ld * (size_t)j;
    const double *restrict xi = X + ld * (size_t)i;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
    for (int c = c0; c < c1; ++c) xj[c] -= a * xi[c];
}

/* X <- scale M^-1 X for the nv rows of n values at X (row stride ld) with the factor:
   L^T Z = X, Y = scale D^-1 Z, L X = Y as row operations over the runs of ancestors (RBDA
   table 6.4 on all right-hand sides at once). */
MBS_WIDE_LOOPS static void solve_rows(const mbs_model *m, const int *run, const double *LDL,
                                      double *X, int n, int ld, double scale)
{
    const int nv = m->nv;
    const int *lam = m->dof_parent;
    const size_t s = (size_t)ld;
    for (int i = nv - 1; i >= 0; --i) {
        const double *Li = LDL + (size_t)nv * (size_t)i;
        FOR_ANCESTOR_RUNS(lam, run, lam[i], top, bot)
            for (int j = top; j >= bot; --j) row_axpy(X, s, j, i, Li[j], 0, n);
    }
    for (int i = 0; i < nv; ++i) {
        const double f = scale / LDL[(size_t)nv * (size_t)i + (size_t)i];
        double *restrict xi = X + s * (size_t)i;
        for (int c = 0; c < n; ++c) xi[c] *= f;
    }
    for (int i = 0; i < nv; ++i) {
        const double *Li = LDL + (size_t)nv * (size_t)i;
        FOR_ANCESTOR_RUNS(lam, run, lam[i], top, bot)
            for (int j = top; j >= bot; --j) row_axpy(X, s, i, j, Li[j], 0, n);
    }
}

/* Minv = M^-1 (stride ld) from the factor: the solve of M X = I on the upper triangle only
   (after L^T Z = I row i of Z is zero left of column i, and the symmetric result needs no
   more), then mirrored. */
MBS_WIDE_LOOPS static void inverse_rows(const mbs_model *m, const int *run, const double *LDL,
                                        double *Minv, int ld)
{
    const int nv = m->nv;
    const int *lam = m->dof_parent;
    const size_t s = (size_t)ld;
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) Minv[s * (size_t)i + (size_t)j] = i == j;
    for (int i = nv - 1; i >= 0; --i) {
        const double *Li = LDL + (size_t)nv * (size_t)i;
        FOR_ANCESTOR_RUNS(lam, run, lam[i], top, bot)
            for (int j = top; j >= bot; --j) row_axpy(Minv, s, j, i, Li[j], i, nv);
    }
    for (int i = 0; i < nv; ++i) {
        const double f = 1.0 / LDL[(size_t)nv * (size_t)i + (size_t)i];
        double *restrict xi = Minv + s * (size_t)i;
        for (int c = i; c < nv; ++c) xi[c] *= f;
    }
    for (int i = 0; i < nv; ++i) {
        const double *Li = LDL + (size_t)nv * (size_t)i;
        FOR_ANCESTOR_RUNS(lam, run, lam[i], top, bot)
            for (int j = top; j >= bot; --j) row_axpy(Minv, s, i, j, Li[j], i, nv);
    }
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < i; ++j) Minv[s * (size_t)i + (size_t)j] = Minv[s * (size_t)j + (size_t)i];
}

/* qacc = ABA at the prepared kinematics and forces, checked finite. */
static int forward_qacc(mbs_data *d, const char *call)
{
    const int st = mbs_aba(d);
    if (st == MBS_OK && !mbs_all_finite(d->qacc, d->model->nv))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s: qacc is not finite", call);
    return st;
}

/* The derivatives after forward_qacc: the passes at d->qacc, the factor, the solves. */
static int derivs_at_qacc(mbs_data *d, double *dq, double *dv, int ld, double *Minv, int ldm,
                          const char *call)
{
    const mbs_model *m = d->model;
    const int nv = m->nv;
    int st = mbs_derivs_eval(d, d->qacc, dq, dv, ld, d->M, nv, call);
    if (st != MBS_OK) return st;
    const int *run = d->derivs->run;
    if (factor_runs(m, run, d->M) != MBS_OK)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "%s: the mass matrix is singular", call);
    if (dq && dv == dq + nv) { /* side by side: one block of 2 nv columns */
        solve_rows(m, run, d->M, dq, 2 * nv, ld, -1.0);
    } else {
        if (dq) solve_rows(m, run, d->M, dq, nv, ld, -1.0);
        if (dv) solve_rows(m, run, d->M, dv, nv, ld, -1.0);
    }
    if (Minv) inverse_rows(m, run, d->M, Minv, ldm);
    st = mbs_derivs_block_finite(d, dq, nv, ld, call, "dqacc/dq");
    if (st == MBS_OK) st = mbs_derivs_block_finite(d, dv, nv, ld, call, "dqacc/dv");
    if (st == MBS_OK) st = mbs_derivs_block_finite(d, Minv, nv, ldm, call, "dqacc/dtau");
    return st;
}

/* See derivs.h: qacc is as it was when the call fails. */
int mbs_derivs_forward(mbs_data *d, double *dq, double *dv, int ld, double *Minv, int ldm,
                       const char *call)
{
    const int nv = d->model->nv;
    int st = mbs_derivs_trees_only(d, call);
    if (st == MBS_OK) st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK) return st;
    double *saved = d->derivs->up;
    for (int i = 0; i < nv; ++i) saved[i] = d->qacc[i];
    mbs_kinematics(d);
    st = mbs_forces_accumulate(d);
    if (st == MBS_OK) st = forward_qacc(d, call);
    if (st == MBS_OK) st = derivs_at_qacc(d, dq, dv, ld, Minv, ldm, call);
    if (st != MBS_OK)
        for (int i = 0; i < nv; ++i) d->qacc[i] = saved[i];
    return st;
}

int mbs_forward_dynamics_derivatives(mbs_data *d, double *dqacc_dq, double *dqacc_dv,
                                     double *dqacc_dtau)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_forward_dynamics_derivatives");
    if (nested != MBS_OK) return nested;
    if (!dqacc_dq && !dqacc_dv && !dqacc_dtau)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "forward_dynamics_derivatives: every output is "
                             "NULL (nothing to compute)");
    const int nv = d->model->nv;
    const char *call = "forward_dynamics_derivatives";
    if (!dqacc_dq || !dqacc_dv)
        return mbs_derivs_forward(d, dqacc_dq, dqacc_dv, nv, dqacc_dtau, nv, call);
    /* both: side by side in the workspace, solved as one block of rows of 2 nv */
    double *X = d->derivs->A;
    const int st = mbs_derivs_forward(d, X, X + nv, 2 * nv, dqacc_dtau, nv, call);
    if (st != MBS_OK) return st;
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) {
            dqacc_dq[(size_t)nv * i + j] = X[(size_t)2 * nv * i + j];
            dqacc_dv[(size_t)nv * i + j] = X[(size_t)2 * nv * i + nv + j];
        }
    return MBS_OK;
}
