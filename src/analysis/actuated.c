/* Inverse dynamics with actuated coordinates (Docquier, Poncelet, Fisette 2013, §2.2.2,
 * eqs. 18-25). With psi = RNEA(qacc) (the tree's inverse dynamics: M qacc + c minus the
 * forces of elements, inputs and callbacks), the generalized forces must satisfy
 *     psi = E tau_a + J_a^T lambda                                              (18)
 * with E (nv x nact) the selection of the actuated coordinates and J_a the kept loop rows.
 * Projecting onto the null space of J_a removes lambda: with J_a^T = Q R (pivoted QR) and Q2
 * the last nv - r columns of Q, A' tau_a = b' where A' = Q2^T E, b' = Q2^T psi. The solution
 * of minimum Euclidean norm ||tau_a||_2 (eq. 25; LAPACK dgelsy, the same for any basis of the
 * null space) covers the three cases: fully actuated (A' square and regular: exact),
 * over-actuated (the minimum-norm one among infinitely many), under-actuated (least squares,
 * accepted when the residual vanishes). A residual left over is the generalized force that
 * unactuated coordinates would need (it is zero on the actuated ones): MBS_ERR_INCONSISTENT
 * naming the coordinate and its loop. On a tree r = 0 and Q = I: tau_a = psi_a, residual psi
 * on the other coordinates (no LAPACK). Allocation-free: workspace of mbs_data_create. */
#include "ustates/ustates.h"
#include "analysis/analysis.h"

#include <math.h>

#include "core/linalg.h"
#include "loops/loops.h"

#define ACT_RCOND 1e-10 /* relative rank tolerance of A' (its rows are orthonormal columns of Q) */
#define ACT_TOL 1e-9    /* residual relative to max |psi| that counts as unreachable */

/* NULL arguments, counts, indices in range and distinct (marked in the workspace's hold). */
static int check_args(mbs_data *d, const double *qacc, const int *act, int nact,
                      const double *tau_out)
{
    const int nv = d->model->nv;
    if (!qacc || !tau_out || (nact > 0 && !act))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "inverse_dynamics_actuated: NULL qacc, actuated "
                             "or tau_out");
    if (nact < 0 || nact > nv)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "inverse_dynamics_actuated: nact = %d is not in "
                             "0..nv = %d", nact, nv);
    unsigned char *mark = d->analysis->hold;
    memset(mark, 0, (size_t)nv);
    for (int i = 0; i < nact; ++i) {
        if (act[i] < 0 || act[i] >= nv)
            return MBS_DATA_FAIL(d, MBS_ERR_ARG, "inverse_dynamics_actuated: actuated[%d] = %d "
                                 "is not a velocity index (0..%d)", i, act[i], nv - 1);
        if (mark[act[i]])
            return MBS_DATA_FAIL(d, MBS_ERR_ARG, "inverse_dynamics_actuated: actuated[%d] = %d "
                                 "is listed twice", i, act[i]);
        mark[act[i]] = 1;
    }
    for (int k = 0; k < nv; ++k)
        if (!isfinite(qacc[k])) {
            char buf[96];
            return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "inverse_dynamics_actuated: qacc[%d] "
                                 "(joint %s) is not finite", k,
                                 mbs_joint_label(d->model, d->model->dof_joint[k], buf, (int)sizeof buf));
        }
    return MBS_OK;
}

/* MBS_ERR_INCONSISTENT: unactuated coordinate k would need generalized force f. */
static int unreachable(mbs_data *d, int nact, int k, double f)
{
    const mbs_model *m = d->model;
    char jb[96], cb[96];
    const int cut = mbs_analysis_loop_of_dof(m, k);
    const char *joint = mbs_joint_label(m, m->dof_joint[k], jb, (int)sizeof jb);
    if (cut < 0)
        return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "inverse_dynamics_actuated: qacc is not "
                             "reachable with the %d actuated coordinates: v[%d] (joint %s, in no "
                             "loop) is not actuated and would need a generalized force of %.6g",
                             nact, k, joint, f);
    return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "inverse_dynamics_actuated: qacc is not "
                         "reachable with the %d actuated coordinates: the loop closed by cut "
                         "joint %s would need a generalized force of %.6g on v[%d] (joint %s), "
                         "which is not actuated", nact,
                         mbs_joint_label(m, cut, cb, (int)sizeof cb), f, k, joint);
}

/* Tree (or no kept loop row): tau_a = psi_a; the others must need no force. */
static int solve_tree(mbs_data *d, const double *psi, const int *act, int nact, double *tau_a)
{
    const int nv = d->model->nv;
    const unsigned char *is_act = d->analysis->hold;
    const double tol = ACT_TOL * mbs_analysis_maxabs(psi, nv, NULL);
    for (int k = 0; k < nv; ++k)
        if (!is_act[k] && !(fabs(psi[k]) <= tol)) {
            int worst = k;
            for (int i = k; i < nv; ++i)
                if (!is_act[i] && fabs(psi[i]) > fabs(psi[worst])) worst = i;
            return unreachable(d, nact, worst, psi[worst]);
        }
    for (int i = 0; i < nact; ++i) tau_a[i] = psi[act[i]];
    return MBS_OK;
}

/* B (nv x (nact + 1), column-major) = Q^T [E psi] with Q from the pivoted QR of J_a^T (in
   QJ, tau). */
static int project_rhs(mbs_data *d, const double *J, int r, const double *psi, const int *act,
                       int nact)
{
    mbs_analysis *a = d->analysis;
    const int nv = a->nv;
    memcpy(a->QJ, J, (size_t)r * (size_t)nv * sizeof(double)); /* row-major r x nv = J^T */
    memset(a->jpvt, 0, (size_t)r * sizeof(int));
    int info = mbs_linalg_qrp(nv, r, a->QJ, nv, a->jpvt, a->tau, a->work, a->lwork);
    memset(a->B, 0, (size_t)nv * (size_t)(nact + 1) * sizeof(double));
    for (int j = 0; j < nact; ++j) a->B[(size_t)nv * (size_t)j + (size_t)act[j]] = 1.0;
    memcpy(a->B + (size_t)nv * (size_t)nact, psi, (size_t)nv * sizeof(double));
    if (info == 0)
        info = mbs_linalg_apply_qt(1, nv, nact + 1, r, a->QJ, nv, a->tau, a->B, nv, a->work,
                                   a->lwork);
    return info == 0 ? MBS_OK
                     : MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "inverse_dynamics_actuated: QR of "
                                     "the loop rows failed (LAPACK info %d)", info);
}

/* Minimum-norm least squares of A' tau_a = b' (p = nv - r rows, the null space of J_a). */
static int solve_projected(mbs_data *d, int r, int nact, double *tau_a)
{
    mbs_analysis *a = d->analysis;
    const int nv = a->nv, p = nv - r, ld = p > 1 ? p : 1;
    double *x = a->rt; /* max(p, nact) <= nv */
    for (int i = 0; i < nv; ++i) x[i] = i < p ? a->B[(size_t)nv * (size_t)nact + (size_t)(r + i)] : 0.0;
    if (p == 0 || nact == 0) {
        for (int j = 0; j < nact; ++j) tau_a[j] = 0.0;
        return MBS_OK;
    }
    for (int j = 0; j < nact; ++j)
        for (int i = 0; i < p; ++i)
            a->A[(size_t)ld * (size_t)j + (size_t)i] = a->B[(size_t)nv * (size_t)j + (size_t)(r + i)];
    memset(a->jpvt, 0, (size_t)nact * sizeof(int));
    int rank = 0;
    const int info = mbs_linalg_lstsq(p, nact, 1, a->A, ld, x, nv, a->jpvt, ACT_RCOND, &rank,
                                      a->work, a->lwork);
    if (info != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "inverse_dynamics_actuated: least squares "
                             "failed (LAPACK info %d)", info);
    memcpy(tau_a, x, (size_t)nact * sizeof(double));
    return MBS_OK;
}

/* The residual b' - A' tau_a; when it is not zero, the force it asks of the unactuated
   coordinates, Q [0; res], names the worst one. */
static int check_residual(mbs_data *d, int r, const double *psi, int nact, const double *tau_a)
{
    mbs_analysis *a = d->analysis;
    const int nv = a->nv, p = nv - r;
    double *y = a->rt;
    for (int i = 0; i < nv; ++i) y[i] = 0.0;
    for (int i = 0; i < p; ++i) {
        double s = a->B[(size_t)nv * (size_t)nact + (size_t)(r + i)];
        for (int j = 0; j < nact; ++j) s -= a->B[(size_t)nv * (size_t)j + (size_t)(r + i)] * tau_a[j];
        y[r + i] = s;
    }
    if (mbs_analysis_maxabs(y, nv, NULL) <= ACT_TOL * mbs_analysis_maxabs(psi, nv, NULL))
        return MBS_OK;
    mbs_linalg_apply_qt(0, nv, 1, r, a->QJ, nv, a->tau, y, nv, a->work, a->lwork);
    int k = 0;
    mbs_analysis_maxabs(y, nv, &k);
    return unreachable(d, nact, k, y[k]);
}

/* With loop rows: the projection, the least squares and the residual check. */
static int solve_loops(mbs_data *d, const double *psi, const int *act, int nact, double *tau_a)
{
    const double *J = NULL;
    int r = 0;
    int st = mbs_loops_active_rows(d, d->analysis->dv, &J, &r); /* dv: qacc */
    if (st != MBS_OK) return st;
    if (r == 0) return solve_tree(d, psi, act, nact, tau_a);
    st = project_rhs(d, J, r, psi, act, nact);
    if (st == MBS_OK) st = solve_projected(d, r, nact, tau_a);
    if (st == MBS_OK) st = check_residual(d, r, psi, nact, tau_a);
    return st;
}

int mbs_inverse_dynamics_actuated(mbs_data *d, const double *qacc, const int *actuated, int nact,
                                  double *tau_out)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_inverse_dynamics_actuated");
    if (nested != MBS_OK) return nested;
    int st = check_args(d, qacc, actuated, nact, tau_out);
    if (st == MBS_OK) st = mbs_check_state(d, 1, 0);
    if (st == MBS_OK) {
        mbs_kinematics(d);
        st = mbs_forces_accumulate(d);
    }
    if (st != MBS_OK) return st;
    mbs_analysis *a = d->analysis;
    const int nv = d->model->nv;
    double *psi = a->g, *tau_a = a->r;
    memcpy(a->dv, qacc, (size_t)nv * sizeof(double)); /* qacc may alias tau_out */
    mbs_rnea(d, a->dv, psi);
    st = d->model->ncon > 0 ? solve_loops(d, psi, actuated, nact, tau_a)
                            : solve_tree(d, psi, actuated, nact, tau_a);
    if (st != MBS_OK) return st;
    for (int i = 0; i < nact; ++i)
        if (!isfinite(tau_a[i]))
            return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "inverse_dynamics_actuated: tau_out[%d] "
                                 "is not finite", actuated[i]);
    for (int k = 0; k < nv; ++k) tau_out[k] = 0.0;
    for (int i = 0; i < nact; ++i) tau_out[actuated[i]] = tau_a[i];
    return MBS_OK;
}
