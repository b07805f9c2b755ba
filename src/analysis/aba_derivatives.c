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

/* X <- scale M^-1 X for the nv rows of n values at X (row stride ld): L^T Z = X,
   Y = scale D^-1 Z, L X = Y, each step a row operation over lambda = dof_parent. */
static void mass_solve_rows(const mbs_model *m, const double *LDL, double *X, int n, int ld,
                            double scale)
{
    const int nv = m->nv;
    const int *lam = m->dof_parent;
    const size_t s = (size_t)ld;
    for (int i = nv - 1; i >= 0; --i) {
        const double *restrict xi = X + s * (size_t)i;
        for (int j = lam[i]; j >= 0; j = lam[j]) {
            const double a = LDL[(size_t)nv * (size_t)i + (size_t)j];
            double *restrict xj = X + s * (size_t)j;
            for (int c = 0; c < n; ++c) xj[c] -= a * xi[c];
        }
    }
    for (int i = 0; i < nv; ++i) {
        const double f = scale / LDL[(size_t)nv * (size_t)i + (size_t)i];
        double *restrict xi = X + s * (size_t)i;
        for (int c = 0; c < n; ++c) xi[c] *= f;
    }
    for (int i = 0; i < nv; ++i) {
        double *restrict xi = X + s * (size_t)i;
        for (int j = lam[i]; j >= 0; j = lam[j]) {
            const double a = LDL[(size_t)nv * (size_t)i + (size_t)j];
            const double *restrict xj = X + s * (size_t)j;
            for (int c = 0; c < n; ++c) xi[c] -= a * xj[c];
        }
    }
}

/* qacc = ABA at the prepared kinematics and forces, kept as it was on failure. */
static int forward_qacc(mbs_data *d, const char *call)
{
    const int nv = d->model->nv;
    double *saved = d->derivs->up;
    for (int i = 0; i < nv; ++i) saved[i] = d->qacc[i];
    int st = mbs_aba(d);
    if (st == MBS_OK && !mbs_all_finite(d->qacc, nv))
        st = MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s: qacc is not finite", call);
    if (st != MBS_OK)
        for (int i = 0; i < nv; ++i) d->qacc[i] = saved[i];
    return st;
}

/* See derivs.h. */
int mbs_derivs_forward(mbs_data *d, double *dq, double *dv, int ld, double *Minv, int ldm,
                       const char *call)
{
    const mbs_model *m = d->model;
    const int nv = m->nv;
    int st = mbs_derivs_trees_only(d, call);
    if (st == MBS_OK) st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK) return st;
    mbs_kinematics(d);
    st = mbs_forces_accumulate(d);
    if (st == MBS_OK) st = forward_qacc(d, call);
    if (st == MBS_OK) st = mbs_derivs_eval(d, d->qacc, dq, dv, ld, d->M, nv, call);
    if (st != MBS_OK) return st;
    if (mbs_mass_factor(m, d->M) != MBS_OK)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "%s: the mass matrix is singular", call);
    if (dq && dv == dq + nv) { /* side by side (linearisation): one solve for both */
        mass_solve_rows(m, d->M, dq, 2 * nv, ld, -1.0);
    } else {
        if (dq) mass_solve_rows(m, d->M, dq, nv, ld, -1.0);
        if (dv) mass_solve_rows(m, d->M, dv, nv, ld, -1.0);
    }
    if (Minv) {
        for (int i = 0; i < nv; ++i)
            for (int j = 0; j < nv; ++j) Minv[(size_t)i * (size_t)ldm + (size_t)j] = i == j;
        mass_solve_rows(m, d->M, Minv, nv, ldm, 1.0);
    }
    return MBS_OK;
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
    return mbs_derivs_forward(d, dqacc_dq, dqacc_dv, nv, dqacc_dtau, nv,
                              "forward_dynamics_derivatives");
}
