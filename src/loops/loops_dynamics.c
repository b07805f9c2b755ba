/* Forward and inverse dynamics with multipliers of the selected rows, impulses, and the
 * smoothed dynamics near singular positions (see loops.h). */
#include "loops/loops_internal.h"

/* ------------------------------------------------------------------ dynamics */

/* Active rows J_a (kept from the closure when the state is the closed one) and
   gam_a = (J̇q̇)_a at the prepared kinematics. */
void loops_eval_rows_bias(mbs_data *d, mbs_loops *L)
{
    if (!(L->jac_closed && mbs_loops_is_closed(d))) loops_eval_jacobian(d, L, L->arow, L->rank);
    if (L->mcut > 0) mbs_con_world_accel(d, L->a0, L->Vw, L->Aw); /* as in eval_jacobian */
    mbs_con_bias(d, &L->t, L->Vw, L->Aw, L->arow, L->rank, L->gam);
}

/* y += alpha B x for B (n x r, column-major). */
static void add_columns(int n, int r, const double *B, const double *x, double alpha, double *y)
{
    for (int k = 0; k < r; ++k) {
        const double a = alpha * x[k];
        const double *b = B + (size_t)n * (size_t)k;
        for (int i = 0; i < n; ++i) y[i] += a * b[i];
    }
}

/* MBS_ERR_SINGULAR naming a cut joint when the Cholesky of K failed (info > 0). */
static int chol_check(mbs_data *d, const mbs_loops *L, int info)
{
    if (info == 0) return MBS_OK;
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "loops: singular configuration: the active "
                         "constraint rows are dependent (%s)",
                         loops_row_label(d, L, L->arow[info > 0 ? info - 1 : 0], buf, (int)sizeof buf));
}

/* z = L^-T J_i^T for active row i, with M = L^T D L the tree-sparse factor in d->M: the
   first sweep of mbs_mass_solve restricted to the closure of the row's cut (ancestors have
   lower indices), kept compactly in Z row i. x is nv scratch, zero on entry and exit. */
static void closure_solve(const mbs_model *m, mbs_loops *L, int i, double *x)
{
    const int n = m->nv, c = L->t.row_cut[L->arow[i]];
    const int *S = L->t.clo_dof + L->t.clo_adr[c], ns = L->t.clo_adr[c + 1] - L->t.clo_adr[c];
    const double *Ji = L->J + (size_t)n * (size_t)i, *LDL = L->M;
    double *z = L->Z + (size_t)L->t.maxclo * (size_t)i;
    for (int p = 0; p < ns; ++p) x[S[p]] = Ji[S[p]];
    for (int p = 0; p < ns; ++p) {
        const int k = S[p];
        const double xk = x[k];
        if (xk == 0.0) continue;
        for (int j = m->dof_parent[k]; j >= 0; j = m->dof_parent[j]) x[j] -= LDL[n * k + j] * xk;
    }
    for (int p = 0; p < ns; ++p) z[p] = x[S[p]], x[S[p]] = 0.0;
}

/* K_ik = J_i M^-1 J_k^T = sum over shared closure dofs l of z_i[l] z_k[l] / D_l. */
static double closure_dot(const mbs_model *m, const mbs_loops *L, int i, int k)
{
    const int n = m->nv, ci = L->t.row_cut[L->arow[i]], ck = L->t.row_cut[L->arow[k]];
    const int *Si = L->t.clo_dof + L->t.clo_adr[ci], ni = L->t.clo_adr[ci + 1] - L->t.clo_adr[ci];
    const int *Sk = L->t.clo_dof + L->t.clo_adr[ck], nk = L->t.clo_adr[ck + 1] - L->t.clo_adr[ck];
    const double *zi = L->Z + (size_t)L->t.maxclo * (size_t)i;
    const double *zk = L->Z + (size_t)L->t.maxclo * (size_t)k;
    double s = 0.0;
    for (int a = 0, b = 0; a < ni && b < nk;) { /* both lists descending */
        if (Si[a] == Sk[b])
            s += zi[a] * zk[b] / L->M[n * Si[a] + Si[a]], ++a, ++b;
        else if (Si[a] > Sk[b])
            ++a;
        else
            ++b;
    }
    return s;
}

/* K = J_a M^-1 J_a^T (lower triangle) from the tree-sparse factor of M (RBDA §6.5): rows of
   cut joints whose closures share no dof do not couple; then its Cholesky factor. */
static int gram_mass(mbs_data *d, mbs_loops *L)
{
    const mbs_model *m = d->model;
    const int r = L->rank;
    mbs_crba(d, d->M);
    if (m->ncrow > 0) mbs_couplings_mass(d, d->M, 1); /* native rotors, as ABA has them */
    if (mbs_mass_factor(m, d->M) != MBS_OK)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "loops: the tree mass matrix is singular "
                             "(a massless body at the end of a chain?)");
    L->M = d->M;
    memset(L->y, 0, (size_t)L->nv * sizeof(double));
    for (int i = 0; i < r; ++i) closure_solve(m, L, i, L->y);
    for (int k = 0; k < r; ++k) {
        const size_t ck = (size_t)L->t.row_cut[L->arow[k]] * (size_t)L->t.nent;
        for (int i = k; i < r; ++i)
            L->K[i + (size_t)k * (size_t)r] =
                L->t.overlap[ck + (size_t)L->t.row_cut[L->arow[i]]] ? closure_dot(m, L, i, k) : 0.0;
    }
    if (m->ncrow_solve > 0) { /* the other inertial couplings: K' = J M'^-1 J^T (schur.c) */
        const int st = mbs_couplings_schur_prepare(d, d->M);
        if (st != MBS_OK) return st;
        mbs_couplings_schur_K(d, r, L->J, L->K);
    }
    return chol_check(d, L, mbs_dense_cholesky(r, L->K));
}

/* K = J_a B for the first r active rows and B (nv x r, column-major), with the path
   sparsity of J_a; then its Cholesky factor. */
static int gram_factor(mbs_data *d, mbs_loops *L, const double *B, int r)
{
    for (int k = 0; k < r; ++k)
        mbs_con_jmul(&L->t, L->arow, r, L->J, B + (size_t)L->nv * (size_t)k,
                     L->K + (size_t)r * (size_t)k);
    return chol_check(d, L, mbs_dense_cholesky(r, L->K));
}

/* z += M^-1 J_a^T x with K x = c - J_a z, K = J_a M^-1 J_a^T from the tree-sparse factor of
   M: the M-weighted correction after which J_a z = c. For accelerations (z = qacc0,
   c = -gam_a) it is Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models" eq. 6 and x the multipliers; for velocities (c = the velocity
   targets) an impulse. L->x holds c on entry and x on return; needs L->J of the active rows
   at the current kinematics. */
static int weighted_correction(mbs_data *d, mbs_loops *L, double *z)
{
    const int r = L->rank;
    const int st = gram_mass(d, L);
    if (st != MBS_OK) return st;
    mbs_con_jmul(&L->t, L->arow, r, L->J, z, L->y);
    for (int i = 0; i < r; ++i) L->x[i] -= L->y[i];
    mbs_dense_cholesky_solve(r, L->K, L->x);
    memset(L->y, 0, (size_t)L->nv * sizeof(double));
    for (int i = 0; i < r; ++i) { /* y = J_a^T x on the paths */
        const int c = L->t.row_cut[L->arow[i]];
        const double *Ji = L->J + (size_t)L->nv * (size_t)i;
        for (int p = L->t.path_adr[c]; p < L->t.path_adr[c + 1]; ++p)
            L->y[L->t.path_dof[p]] += L->x[i] * Ji[L->t.path_dof[p]];
    }
    mbs_mass_solve(d->model, d->M, L->y);
    if (d->model->ncrow_solve > 0) mbs_couplings_schur_correct(d, L->y);
    for (int k = 0; k < L->nv; ++k) z[k] += L->y[k];
    return MBS_OK;
}

/* qacc = qacc0 + M^-1 J_a^T lambda with lambda = -K^-1 (J_a qacc0 + gam_a) (Docquier, Poncelet, Fisette 2013
   eq. 6); physical multipliers into d->lambda (cut-joint rows, then coordinate rows), 0 for
   dropped and disabled rows. */
static int constrained_accel(mbs_data *d, mbs_loops *L)
{
    const int r = L->rank;
    for (int i = 0; i < L->m; ++i) d->lambda[i] = 0.0;
    if (r == 0) return MBS_OK;
    loops_eval_rows_bias(d, L);
    for (int i = 0; i < r; ++i) L->x[i] = -L->gam[i];
    const int st = weighted_correction(d, L, d->qacc);
    if (st != MBS_OK) return st;
    for (int i = 0; i < r; ++i) d->lambda[L->arow[i]] = L->x[i] * L->t.row_scale[L->arow[i]];
    return MBS_OK;
}

/* See loops.h: v += M^-1 J_a^T x with J_a v = vt afterwards (the rows at the current q). */
int mbs_loops_impulse(mbs_data *d)
{
    mbs_loops *L = d->loops;
    int st = L->selected ? MBS_OK : loops_select_all(d, L);
    if (st != MBS_OK || L->rank == 0) return st;
    mbs_kinematics(d);
    loops_eval_jacobian(d, L, L->arow, L->rank);
    mbs_con_velocity_target(d, &L->t, L->arow, L->rank, L->x);
    L->closed_valid = 0;
    return weighted_correction(d, L, d->v);
}

/* ABA, then the multipliers at the prepared state; a singular K gets one fresh selection. */
static int forward_direct(mbs_data *d, mbs_loops *L)
{
    int st = L->selected ? MBS_OK : loops_select_all(d, L);
    if (st == MBS_OK) st = mbs_aba(d);
    if (st != MBS_OK) return st;
    memcpy(L->dv, d->qacc, (size_t)L->nv * sizeof(double)); /* qacc0 */
    st = constrained_accel(d, L);
    if (st == MBS_ERR_SINGULAR && L->rank > 0) { /* rows dependent here: select again */
        st = loops_select_all(d, L);
        memcpy(d->qacc, L->dv, (size_t)L->nv * sizeof(double));
        if (st == MBS_OK) st = constrained_accel(d, L);
    }
    return st;
}

/* Closed state at q (+) s tau v of the state being smoothed, with its v projected and its
   kinematics and forces; 1 when it is still near-singular (|s| = 1 only). */
static int smooth_node(mbs_data *d, mbs_loops *L, double s, double tau)
{
    mbs_integrate_q(d->model, L->qsm, L->vsm, s * tau, d->q);
    mbs_normalize_q(d->model, d->q);
    memcpy(d->v, L->vsm, (size_t)L->nv * sizeof(double));
    memcpy(L->qbak, d->q, (size_t)L->nq * sizeof(double));
    L->node_floor = 1;
    int st = loops_close_once(d, L, 0);
    L->node_floor = 0;
    if (st != MBS_OK) return st;
    if (fabs(s) == 1.0 && L->cond > MBS_LOOP_SMOOTH_COND) return 1;
    mbs_kinematics(d);
    return mbs_forces_accumulate(d);
}

/* acc_sm, lam_sm = the dynamics at the centre interpolated from the closed states at
   s = -2, -1, 1, 2 along c(s) = q (+) s tau v: weights (-1, 4, 4, -1) / 6 (4th order). */
static int smooth_sample(mbs_data *d, mbs_loops *L, double tau)
{
    /* the nodes at +-1 first: they tell whether tau is large enough */
    static const double node[4] = {-1.0, 1.0, -2.0, 2.0};
    static const double w[4] = {4.0 / 6.0, 4.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0};
    memset(L->acc_sm, 0, (size_t)L->nv * sizeof(double));
    memset(L->lam_sm, 0, (size_t)L->m * sizeof(double));
    for (int k = 0; k < 4; ++k) {
        int st = smooth_node(d, L, node[k], tau);
        if (st == MBS_OK) d->work_count.evals++; /* a dynamics evaluation like a stage's */
        if (st == MBS_OK) st = forward_direct(d, L);
        if (st != MBS_OK) return st;
        for (int i = 0; i < L->nv; ++i) L->acc_sm[i] += w[k] * d->qacc[i];
        for (int i = 0; i < L->m; ++i) L->lam_sm[i] += w[k] * d->lambda[i];
    }
    return MBS_OK;
}

/* Near a singular configuration of the loops (a bifurcation, where the mobility jumps) the
   multipliers grow like 1 / distance and the accelerations computed at the closed state lose
   accuracy like cond(J_v)^3 eps, although they are smooth along the motion. Then they are
   interpolated from closed states shifted along v by +-tau, +-2 tau, tau doubled until the
   states at +-tau are no longer near-singular (loops.h). Falls back to the direct value. */
static int forward_smoothed(mbs_data *d, mbs_loops *L)
{
    const double cond0 = L->cond, sel0 = L->cond_sel;
    double vmax = 0.0;
    for (int i = 0; i < L->nv; ++i) vmax = fmax(vmax, fabs(d->v[i]));
    memcpy(L->qsm, d->q, (size_t)L->nq * sizeof(double));
    memcpy(L->vsm, d->v, (size_t)L->nv * sizeof(double));
    /* within one passage the shift that sufficed last is where the next one starts: the
       passage needs the largest near its singular position, and the doublings up to it
       would otherwise be paid again at every evaluation */
    const double shift = fmax(MBS_LOOP_SMOOTH_SHIFT, L->shift_sm);
    double tau = shift / vmax;
    int st = 1, k = 0;
    for (; k < MBS_LOOP_SMOOTH_DOUBLINGS && st == 1; ++k, tau *= 2.0)
        st = smooth_sample(d, L, tau);
    L->shift_sm = st == MBS_OK ? ldexp(shift, k - 1) : 0.0;
    if (st != MBS_OK) L->cond_smooth = 10.0 * cond0; /* ill-conditioned all around */
    memcpy(d->q, L->qsm, (size_t)L->nq * sizeof(double));
    memcpy(d->v, L->vsm, (size_t)L->nv * sizeof(double));
    mbs_kinematics(d);
    int st2 = mbs_forces_accumulate(d);
    if (st2 == MBS_OK && st == MBS_OK) {
        memcpy(d->qacc, L->acc_sm, (size_t)L->nv * sizeof(double));
        memcpy(d->lambda, L->lam_sm, (size_t)L->m * sizeof(double));
    } else if (st2 == MBS_OK) {
        st2 = forward_direct(d, L);
    }
    L->cond = cond0, L->cond_sel = sel0;
    loops_mark_closed(d, L, 0);
    return st2;
}

/* The direct dynamics, or at a closed near-singular state with v != 0 the smoothed one;
   qacc and lambda are kept as they were on failure. */
int loops_newton_forward(mbs_data *d)
{
    mbs_loops *L = d->loops;
    memcpy(L->qacc_bak, d->qacc, (size_t)L->nv * sizeof(double));
    memcpy(L->lam_bak, d->lambda, (size_t)L->m * sizeof(double));
    int moving = 0;
    for (int i = 0; i < L->nv; ++i) moving |= d->v[i] != 0.0;
    /* (not with prescribed motions: the shifted states would need shifted times) */
    const int smooth = L->selected && moving && !L->timed && mbs_loops_is_closed(d) &&
                       L->cond > L->cond_smooth;
    if (!smooth) L->shift_sm = 0.0; /* the passage is over */
    const int st = smooth ? forward_smoothed(d, L) : forward_direct(d, L);
    if (st != MBS_OK) {
        memcpy(d->qacc, L->qacc_bak, (size_t)L->nv * sizeof(double));
        memcpy(d->lambda, L->lam_bak, (size_t)L->m * sizeof(double));
    }
    return st;
}

/* MBS_ERR_INCONSISTENT when qacc violates J_a qacc + gam_a = 0 (relative 1e-6) on the
   first r active rows. */
int loops_check_accel(mbs_data *d, mbs_loops *L, const double *qacc, int r)
{
    const int nv = L->nv;
    mbs_con_jmul(&L->t, L->arow, r, L->J, qacc, L->x);
    for (int i = 0; i < r; ++i) {
        double s = fabs(L->gam[i]);
        for (int k = 0; k < nv; ++k) s += fabs(L->J[(size_t)i * (size_t)nv + (size_t)k] * qacc[k]);
        const double res = L->x[i] + L->gam[i];
        if (fabs(res) <= 1e-6 * s + 1e-12) continue;
        char buf[96];
        return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "inverse_dynamics: qacc violates the "
                             "acceleration constraint of %s (scaled residual %.3g)",
                             loops_row_label(d, L, L->arow[i], buf, (int)sizeof buf), res);
    }
    return MBS_OK;
}

/* See loops.h: tau = tau_t - J_a^T (J_a J_a^T)^-1 J_a tau_t with tau_t = RNEA(qacc), over
   the kept cut-joint rows only (coordinate rows are not constraints of inverse dynamics: tau
   includes what a drive, a lock or a contact would supply). */
int mbs_loops_inverse(mbs_data *d, const double *qacc, double *tau)
{
    mbs_loops *L = d->loops;
    int st = L->selected ? MBS_OK : loops_select_all(d, L);
    if (st != MBS_OK) return st;
    const int r = L->rank_cut;
    mbs_rnea(d, qacc, tau);
    if (r == 0) return MBS_OK;
    loops_eval_rows_bias(d, L);
    st = loops_check_accel(d, L, qacc, r);
    for (int k = 0; k < r && st == MBS_OK; ++k) /* B = J_a^T, column k = row k */
        memcpy(L->Y + (size_t)L->nv * (size_t)k, L->J + (size_t)L->nv * (size_t)k,
               (size_t)L->nv * sizeof(double));
    if (st == MBS_OK) st = gram_factor(d, L, L->Y, r);
    if (st != MBS_OK) return st;
    mbs_con_jmul(&L->t, L->arow, r, L->J, tau, L->x);
    mbs_dense_cholesky_solve(r, L->K, L->x);
    add_columns(L->nv, r, L->Y, L->x, -1.0, tau);
    return MBS_OK;
}
