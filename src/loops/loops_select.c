/* Closed kinematic loops: workspace, row selection, coordinate partition, state queries and
 * the strategy entry points (see loops.h). Matrices handed to LAPACK are column-major; the
 * Jacobian rows of constraints.c are row-major (n x nv), which is J^T in column-major with
 * lda = nv. Closure: loops_closure.c; dynamics: loops_dynamics.c; snapshot: loops_snap.c. */
#include "loops/loops_internal.h"

/* ------------------------------------------------------------------ workspace */

/* Column weight of dof k from its joint's state_priority (loops.h). */
static double priority_weight(const mbs_model *m, int k)
{
    int p = m->joints[m->dof_joint[k]].state_priority;
    if (p > 4) p = 4;
    if (p < -4) p = -4;
    return pow(PRIORITY_WEIGHT, (double)p);
}

/* Allocate every array of L (sizes in the struct comment); MBS_OK or MBS_ERR_NOMEM. */
static int ws_alloc(mbs_loops *L, const mbs_model *m)
{
    const size_t m1 = (size_t)L->m + 1, nv1 = (size_t)L->nv + 1, nq1 = (size_t)L->nq + 1;
    const size_t mx = (size_t)imax(L->m, L->nv) + 1, mn1 = (size_t)L->mn + 1;
    L->lqwork = imax(mbs_linalg_qrp_lwork(L->nv, L->m), mbs_linalg_qrp_lwork(L->mn, L->nv));
    L->active = calloc(m1, 1);
    double **dp[] = {&L->Sw, &L->a0, &L->Vw, &L->Aw, &L->h, &L->gam, &L->J, &L->qr, &L->qtau,
                     &L->qwork, &L->LU, &L->K, &L->Y, &L->x, &L->y, &L->dv, &L->qbak, &L->vbak,
                     &L->qprev, &L->qacc_bak, &L->lam_bak, &L->qcl, &L->vcl, &L->weight,
                     &L->qsm, &L->vsm, &L->acc_sm, &L->lam_sm, &L->vt};
    const size_t dn[] = {6 * nv1, 6 * (size_t)L->nb, 6 * (size_t)L->nb, 6 * (size_t)L->nb, m1,
                         m1, m1 * nv1, m1 * nv1, mx, (size_t)L->lqwork + 1, mn1 * mn1,
                         mn1 * mn1, nv1 * mn1, mx, mx, nv1, nq1, nv1, nq1, nv1, m1, nq1, nv1,
                         nv1, nq1, nv1, nv1, m1, m1};
    int **ip[] = {&L->arow, &L->drow, &L->dep, &L->ind, &L->dep_bak, &L->ind_bak, &L->jpvt,
                  &L->ipiv, &L->cand};
    const size_t in[] = {m1, m1, nv1, nv1, nv1, nv1, mx, mn1, m1};
    int ok = L->active != NULL;
    for (size_t i = 0; i < sizeof dp / sizeof dp[0]; ++i)
        ok &= (*dp[i] = calloc(dn[i], sizeof(double))) != NULL;
    for (size_t i = 0; i < sizeof ip / sizeof ip[0]; ++i)
        ok &= (*ip[i] = calloc(in[i], sizeof(int))) != NULL;
    if (!ok) return MBS_ERR_NOMEM;
    for (int k = 0; k < L->nv; ++k) L->weight[k] = priority_weight(m, k);
    for (int k = 0; k < L->nv; ++k) L->prefer |= L->weight[k] != 1.0;
    if (mbs_con_topo_init(m, &L->t) != MBS_OK) return MBS_ERR_NOMEM;
    L->Z = calloc(mn1 * (size_t)(L->t.maxclo + 1), sizeof(double));
    return L->Z ? MBS_OK : MBS_ERR_NOMEM;
}

/* d->rows_changed: a coordinate row enabled or disabled needs a new selection; a moved
   target, closing again. */
static void rows_changed(mbs_data *d, int selection)
{
    if (selection) d->loops->selected = 0;
    d->loops->closed_valid = 0;
}

/* d->geom_changed: the rows' scales follow the new loop lengths; nothing selected, closed or
   factorised before holds. */
static void geom_changed(mbs_data *d)
{
    mbs_con_topo_rescale(d->model, &d->loops->t);
    rows_changed(d, 1);
    d->loops->lu_ok = d->loops->lu_here = d->loops->jac_closed = 0;
}

/* See loops.h. */
int mbs_loops_create(mbs_data *d)
{
    const mbs_model *m = d->model;
    d->loops = NULL;
    if (m->ncon + mbs_nqrow(m) == 0) return MBS_OK;
    mbs_loops *L = calloc(1, sizeof *L);
    if (!L) return MBS_ERR_NOMEM;
    d->loops = L;
    d->rows_changed = rows_changed;
    d->geom_changed = geom_changed;
    L->m = m->ncon + mbs_nqrow(m);
    L->mcut = m->ncon;
    L->timed = m->ev && m->ev->nmotion > 0;
    L->nv = m->nv;
    L->nq = m->nq;
    L->nb = m->nbody;
    L->mn = L->m < L->nv ? L->m : L->nv;
    L->hold = m->nhold > 0 ? m->hold : NULL;
    return ws_alloc(L, m);
}

/* See loops.h. */
void mbs_loops_destroy(mbs_data *d)
{
    mbs_loops *L = d ? d->loops : NULL;
    if (!L) return;
    void *p[] = {L->active, L->Sw, L->a0, L->Vw, L->Aw, L->h, L->gam, L->J, L->qr, L->qtau,
                 L->qwork, L->LU, L->K, L->Y, L->x, L->y, L->dv, L->qbak, L->vbak, L->qprev,
                 L->qacc_bak, L->lam_bak, L->qcl, L->vcl, L->weight, L->qsm, L->vsm,
                 L->acc_sm, L->lam_sm, L->arow, L->drow,
                 L->dep, L->ind, L->dep_bak, L->ind_bak, L->jpvt, L->ipiv, L->Z, L->vt,
                 L->cand};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    mbs_con_topo_free(&L->t);
    free(L);
    d->loops = NULL;
}

/* ------------------------------------------------------------------ messages */

/* Label of the cut joint that owns row r. */
const char *loops_row_label(const mbs_data *d, const mbs_loops *L, int r, char *buf, int len)
{
    return mbs_con_label(d, &L->t, r, buf, len, NULL);
}

/* Index i of the largest |x[i]| (0 when n == 0). */
int loops_argmax_abs(const double *x, int n)
{
    int k = 0;
    for (int i = 1; i < n; ++i)
        if (fabs(x[i]) > fabs(x[k]) || (isnan(x[i]) && !isnan(x[k]))) k = i;
    return k;
}

/* ------------------------------------------------------------------ selection */

/* Sw and the scaled Jacobian rows `rows` (NULL: all) into L->J at the current kinematics. */
void loops_eval_jacobian(mbs_data *d, mbs_loops *L, const int *rows, int n)
{
    L->jac_closed = 0;
    L->lu_here = 0;
    if (L->mcut > 0) mbs_con_world_motion(d, L->Sw); /* coordinate rows need no geometry */
    mbs_con_jacobian(d, &L->t, L->Sw, rows, n, L->J);
}

/* Sort n ints ascending (insertion sort: n is small and the order must be deterministic). */
static void sort_ints(int *a, int n)
{
    for (int i = 1; i < n; ++i) {
        int v = a[i], k = i - 1;
        for (; k >= 0 && a[k] > v; --k) a[k + 1] = a[k];
        a[k + 1] = v;
    }
}

/* The rows of a selection into L->cand: every cut-joint row, then the enabled coordinate
   rows, ascending. */
void loops_candidates(const mbs_data *d, mbs_loops *L)
{
    int n = 0;
    for (int i = 0; i < L->mcut; ++i) L->cand[n++] = i;
    for (int i = L->mcut; i < L->m; ++i)
        if (d->ev->st.row_on[i - L->mcut]) L->cand[n++] = i;
    L->ncand = n;
}

/* Rank-revealing QR of the scaled J^T (nv x ncand, dgeqp3): rank and active/dropped rows
   among the loops_candidates (Elmqvist, Mattsson, Chapuis 2009, "Redundancies in Multibody Systems and Automatic Coupling of CATIA and Modelica" §6); without cut-joint rows every candidate is kept.
   Needs L->J of the candidate rows. */
static int select_rows(mbs_data *d, mbs_loops *L)
{
    const int m = L->ncand, nv = L->nv;
    int rank = L->mcut == 0 ? m : 0;
    d->work_count.select++;
    if (nv > 0 && L->mcut > 0) {
        memcpy(L->qr, L->J, (size_t)m * (size_t)nv * sizeof(double));
        for (int i = 0; i < m; ++i) L->jpvt[i] = 0;
        if (mbs_linalg_qrp(nv, m, L->qr, nv, L->jpvt, L->qtau, L->qwork, L->lqwork) != 0)
            return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "loops: QR of the constraint rows failed");
        const double r11 = fabs(L->qr[0]);
        const double thr = MBS_LOOP_RANK_TOL * (r11 > RANK_FLOOR ? r11 : RANK_FLOOR);
        while (rank < L->mn && rank < m && fabs(L->qr[rank + (size_t)rank * (size_t)nv]) > thr)
            ++rank;
    }
    memset(L->active, 0, (size_t)L->m);
    for (int k = 0; k < rank; ++k) L->active[L->cand[L->mcut > 0 ? L->jpvt[k] - 1 : k]] = 1;
    int na = 0, nd = 0;
    for (int c = 0; c < m; ++c) {
        const int i = L->cand[c];
        if (L->active[i])
            L->arow[na++] = i;
        else
            L->drow[nd++] = i;
    }
    L->rank = rank;
    L->rank_cut = 0;
    while (L->rank_cut < rank && L->arow[L->rank_cut] < L->mcut) ++L->rank_cut;
    return MBS_OK;
}

/* Pivoted QR (dgeqp3, pivots in L->jpvt as given on entry) of the active rows J_a (rank x
   nv) with the columns weighted by state_priority; columns flagged in skip (nullable) are
   left out (weight 0, so they come last). Needs L->J of the active rows. */
static int weighted_qrp(mbs_loops *L, const unsigned char *skip)
{
    const int r = L->rank, nv = L->nv;
    for (int j = 0; j < nv; ++j) {
        const double w = skip && skip[j] ? 0.0 : L->pref_off ? 1.0 : L->weight[j];
        for (int i = 0; i < r; ++i)
            L->qr[i + (size_t)j * (size_t)r] = L->J[(size_t)i * (size_t)nv + (size_t)j] * w;
    }
    return mbs_linalg_qrp(r, nv, L->qr, r, L->jpvt, L->qtau, L->qwork, L->lqwork);
}

/* Held coordinates (assembly): the QR without their columns gave k pivots above the rank
   tolerance; when k < rank, a second QR with those k columns leading (dgeqp3 keeps them
   first) takes the missing dependent coordinates from the held columns. */
static int take_held(mbs_loops *L)
{
    const int r = L->rank, nv = L->nv;
    const double thr = MBS_LOOP_RANK_TOL * fabs(L->qr[0]);
    int k = 0;
    while (k < r && fabs(L->qr[k + (size_t)k * (size_t)r]) > thr) ++k;
    if (k == r) return 0;
    for (int i = 0; i < k; ++i) L->dep[i] = L->jpvt[i];
    for (int j = 0; j < nv; ++j) L->jpvt[j] = 0;
    for (int i = 0; i < k; ++i) L->jpvt[L->dep[i] - 1] = 1;
    return weighted_qrp(L, NULL);
}

/* Without cut-joint rows the dependent coordinates are the dofs the coordinate rows hold. */
static void partition_coordinates(const mbs_data *d, mbs_loops *L)
{
    const int r = L->rank;
    for (int i = 0; i < r; ++i) L->dep[i] = d->model->ev->qrows[L->arow[i] - L->mcut].vindex;
    sort_ints(L->dep, r);
    int n = 0;
    for (int k = 0, i = 0; k < L->nv; ++k) {
        if (i < r && L->dep[i] == k) ++i;
        else L->ind[n++] = k;
    }
    for (int k = 0; k < n; ++k) L->dep[r + k] = L->ind[k];
}

/* The first rank pivots of the QR as the dependent dofs, both lists ascending. */
static void take_pivots(mbs_loops *L)
{
    const int r = L->rank, nv = L->nv;
    for (int k = 0; k < nv; ++k) L->dep[k] = r > 0 ? L->jpvt[k] - 1 : k; /* rank 0: all free */
    sort_ints(L->dep, r);
    sort_ints(L->dep + r, nv - r);
    for (int k = 0; k < nv - r; ++k) L->ind[k] = L->dep[r + k];
}

/* The partition of the QR (weighted unless L->pref_off) into L->dep; MBS_ERR_SINGULAR when
   J_a has no valid one. */
static int qr_partition(mbs_data *d, mbs_loops *L, const unsigned char *held)
{
    const int r = L->rank, nv = L->nv;
    d->work_count.select++;
    for (int j = 0; j < nv; ++j) L->jpvt[j] = 0;
    if (r > 0) {
        int info = weighted_qrp(L, held);
        if (info == 0 && held) info = take_held(L);
        if (info != 0)
            return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "loops: QR of the active rows failed");
        const double rrr = fabs(L->qr[(r - 1) + (size_t)(r - 1) * (size_t)r]);
        if (!(rrr > MBS_LOOP_RANK_TOL * fabs(L->qr[0]))) {
            char buf[96];
            return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "loops: no valid partition: the rows of "
                                 "%s are dependent at this configuration",
                                 loops_row_label(d, L, L->arow[r - 1], buf, (int)sizeof buf));
        }
    }
    take_pivots(L);
    return MBS_OK;
}

/* Pivoted QR of the weighted active rows J_a (rank x nv): the first rank pivots are the
   dependent coordinates (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models" eq. 10); during assembly held coordinates are taken only
   when the others do not suffice (take_held). Dynamic state selection (Otter, Elmqvist,
   Mattsson 2003, "The New Modelica MultiBody Library", §7): the
   preferred coordinates (state_priority) stay independent only while they are regular: where
   their J_v is PREFER_COND times worse conditioned than the best partition's (a preferred
   crank at its limit position, where it turns back), the best one serves (L->pref_off) until
   loops_prefer_back finds them regular again. Needs L->J of the active rows. */
int loops_partition(mbs_data *d, mbs_loops *L)
{
    const unsigned char *held = L->hold_pass ? L->hold : NULL;
    L->lu_ok = 0;
    L->pref_off = 0;
    L->pref_retry = 0.0;
    if (L->mcut == 0) {
        partition_coordinates(d, L);
        return MBS_OK;
    }
    int st = qr_partition(d, L, held);
    if (st != MBS_OK || held || L->keep_pref || !L->prefer || L->rank == 0) return st;
    double piv;
    d->work_count.factor++; /* each loops_jv_cond is an LU of J_v */
    const double c_pref = loops_jv_cond(L, &piv);
    if (!(c_pref > PREFER_COND)) return MBS_OK;
    memcpy(L->dep_bak, L->dep, (size_t)L->nv * sizeof(int));
    memcpy(L->ind_bak, L->ind, (size_t)L->nv * sizeof(int));
    L->pref_off = 1;
    st = qr_partition(d, L, NULL);
    if (st == MBS_OK) d->work_count.factor++;
    if (st == MBS_OK && PREFER_COND * loops_jv_cond(L, &piv) < c_pref) return MBS_OK;
    memcpy(L->dep, L->dep_bak, (size_t)L->nv * sizeof(int)); /* no better one: keep them */
    memcpy(L->ind, L->ind_bak, (size_t)L->nv * sizeof(int));
    L->pref_off = 0;
    return MBS_OK;
}

/* See loops_internal.h. */
int loops_prefer_back(mbs_data *d, mbs_loops *L)
{
    const double old = L->cond_sel;
    double piv;
    memcpy(L->dep_bak, L->dep, (size_t)L->nv * sizeof(int));
    memcpy(L->ind_bak, L->ind, (size_t)L->nv * sizeof(int));
    L->pref_off = 0;
    int st = qr_partition(d, L, NULL);
    if (st == MBS_OK) d->work_count.factor++;
    if (st == MBS_OK && loops_jv_cond(L, &piv) <= PREFER_BACK * old) {
        L->nevents++;
        L->cond_retry = 0.0;
        L->cond_smooth = MBS_LOOP_SMOOTH_COND;
        return loops_factor_jv(d, L);
    }
    memcpy(L->dep, L->dep_bak, (size_t)L->nv * sizeof(int));
    memcpy(L->ind, L->ind_bak, (size_t)L->nv * sizeof(int));
    L->pref_off = 1;
    return loops_factor_jv(d, L);
}

/* A fresh selection at the data's q: kinematics, all rows, RRQR, loops_partition (an event). */
int loops_select_all(mbs_data *d, mbs_loops *L)
{
    mbs_kinematics(d);
    int st = mbs_uc_check(d, &L->t); /* a user's Jacobian, once per data */
    if (st != MBS_OK) return st;
    loops_candidates(d, L);
    loops_eval_jacobian(d, L, L->cand, L->ncand);
    L->selected = 0;
    st = select_rows(d, L);
    if (st != MBS_OK) return st;
    loops_eval_jacobian(d, L, L->arow, L->rank);
    st = loops_partition(d, L);
    if (st != MBS_OK) return st;
    L->selected = 1;
    L->cond_retry = 0.0;
    L->cond_smooth = MBS_LOOP_SMOOTH_COND;
    L->nevents++;
    return MBS_OK;
}

int mbs_loops_is_closed(const mbs_data *d)
{
    const mbs_loops *L = d->loops;
    if (!L || !mbs_loops_active(d)) return 1;
    return L->closed_valid && memcmp(L->qcl, d->q, (size_t)L->nq * sizeof(double)) == 0 &&
           memcmp(L->vcl, d->v, (size_t)L->nv * sizeof(double)) == 0 &&
           (!L->timed || memcmp(&L->tcl, &d->time, sizeof(double)) == 0);
}

/* See loops.h. */
int mbs_loops_active(const mbs_data *d)
{
    return d->loops && (d->loops->mcut > 0 || mbs_events_rows_on(d));
}


/* See loops.h. */
long mbs_loops_events(const mbs_data *d) { return d->loops ? d->loops->nevents : 0; }

/* See loops.h. */
int mbs_loops_independent(mbs_data *d, const int **ind)
{
    mbs_loops *L = d->loops;
    int st = L->selected ? MBS_OK : loops_select_all(d, L);
    if (st == MBS_OK) st = loops_sync_partition(d, L);
    if (st != MBS_OK) return st;
    *ind = L->ind;
    return L->nv - L->rank;
}

/* See loops_internal.h: the planar path's closed forms set their rows with no partition
   (mbs_loops_set_selection); theirs is the dependent dofs of the assemblies. */
int loops_sync_partition(mbs_data *d, mbs_loops *L)
{
    const mbs_closure_data *C = d->closure;
    if (!C || !C->analytic || C->suspended || C->unusable || !C->planar || !C->rows_set)
        return MBS_OK;
    unsigned char *dep = (unsigned char *)L->dv; /* nv bytes of scratch */
    mbs_closure_held_rows(d, dep);
    int same = 1;
    for (int i = 0; i < L->rank; ++i) same &= dep[L->dep[i]] != 0;
    if (same) return MBS_OK;
    mbs_kinematics(d); /* the planar path leaves the spatial kinematics behind */
    return mbs_loops_set_partition(d, dep);
}

/* See loops.h. */
int mbs_loops_info(mbs_data *d, int *rank, unsigned char *active)
{
    mbs_loops *L = d->loops;
    if (!L->selected) {
        const int st = loops_select_all(d, L);
        if (st != MBS_OK) return st;
    }
    *rank = L->rank_cut;
    if (active) memcpy(active, L->active, (size_t)L->mcut);
    return MBS_OK;
}

/* See loops.h. */
int mbs_loops_cut_rank(const mbs_data *d, char *label, int len)
{
    const mbs_loops *L = d->loops;
    label[0] = '\0';
    if (!L || !L->selected) return -1;
    if (L->rank_cut < L->mcut && L->drow[0] < L->mcut) /* dropped cut rows come first */
        loops_row_label(d, L, L->drow[0], label, len);
    return L->rank_cut;
}

/* ------------------------------------------------------------------ for the analyses */

/* See loops.h: the held columns get weight 0, so the pivoted QR takes them as dependent
   only when nothing else can close the loops (then R_rr = 0: MBS_ERR_SINGULAR). */
int mbs_loops_partition_holding(mbs_data *d, const unsigned char *hold)
{
    mbs_loops *L = d->loops;
    int st = L->selected ? MBS_OK : loops_select_all(d, L);
    if (st != MBS_OK) return st;
    mbs_kinematics(d);
    loops_eval_jacobian(d, L, L->arow, L->rank);
    for (int k = 0; k < L->nv; ++k) {
        L->y[k] = L->weight[k];
        if (hold && hold[k]) L->weight[k] = 0.0;
    }
    L->keep_pref = 1;
    st = loops_partition(d, L);
    L->keep_pref = 0;
    for (int k = 0; k < L->nv; ++k) L->weight[k] = L->y[k];
    if (st == MBS_OK) st = loops_factor_jv(d, L);
    if (st != MBS_OK) {
        L->selected = 0; /* the next call that needs one makes a fresh selection */
        return st;
    }
    L->nevents++;
    L->cond_retry = 0.0;
    L->cond_smooth = MBS_LOOP_SMOOTH_COND;
    return MBS_OK;
}

/* See loops.h: J_v^T x = g_v, r = g - J_a^T x (zero on the dependent dofs). */
int mbs_loops_reduce(mbs_data *d, const double *g, double *r)
{
    mbs_loops *L = d->loops;
    const int st = loops_jac_factor(d, L);
    if (st != MBS_OK) return st;
    for (int i = 0; i < L->rank; ++i) L->x[i] = g[L->dep[i]];
    loops_jv_solve(L, 1, L->x);
    for (int k = 0; k < L->nv; ++k) r[k] = g[k];
    for (int i = 0; i < L->rank; ++i) {
        const double *Ji = L->J + (size_t)L->nv * (size_t)i;
        for (int k = 0; k < L->nv; ++k) r[k] -= Ji[k] * L->x[i];
    }
    for (int i = 0; i < L->rank; ++i) r[L->dep[i]] = 0.0;
    return MBS_OK;
}

/* See loops.h. */
void mbs_loops_rows(mbs_data *d, double *h, double *J)
{
    mbs_loops *L = d->loops;
    L->jac_closed = 0;
    L->lu_here = 0;
    mbs_con_world_motion(d, L->Sw);
    mbs_con_residual(d, &L->t, NULL, L->mcut, h);
    mbs_con_jacobian(d, &L->t, L->Sw, NULL, L->mcut, J);
}

/* See loops.h. */
int mbs_loops_active_rows(mbs_data *d, const double *qacc, const double **J, int *rank)
{
    mbs_loops *L = d->loops;
    const int st = L->selected ? MBS_OK : loops_select_all(d, L);
    if (st != MBS_OK) return st;
    *rank = L->rank_cut; /* cut-joint rows come first among the active rows */
    *J = L->J;
    if (L->rank_cut == 0) return MBS_OK;
    loops_eval_rows_bias(d, L);
    return loops_check_accel(d, L, qacc, L->rank_cut);
}

/* ------------------------------------------------------------------ strategies */

/* See loops.h: the analytic strategy (closure.h) first; Newton for what it defers, after
   which it may take over again at the closed state. */
int mbs_loops_close(mbs_data *d, int flags)
{
    const int st = mbs_closure_close(d, flags);
    if (st != MBS_CLOSURE_DEFER) return st;
    const int sn = loops_newton_close(d, flags);
    if (sn == MBS_OK) mbs_closure_newton_closed(d, flags);
    return sn;
}

/* See loops.h. */
int mbs_loops_assemble(mbs_data *d)
{
    const int st = mbs_closure_assemble(d);
    if (st != MBS_CLOSURE_DEFER) return st;
    const int sn = loops_newton_assemble(d);
    if (sn == MBS_OK) mbs_closure_newton_closed(d, MBS_CLOSE_REPARTITION);
    return sn;
}

/* See loops.h. */
int mbs_loops_forward(mbs_data *d)
{
    const int st = mbs_closure_forward(d);
    return st != MBS_CLOSURE_DEFER ? st : loops_newton_forward(d);
}

/* See loops.h. */
long mbs_loops_newton_iterations(const mbs_data *d)
{
    return d->loops ? d->loops->newton_iters : 0;
}

/* See loops.h. */
int mbs_loops_select(mbs_data *d)
{
    mbs_loops *L = d->loops;
    return L->selected ? MBS_OK : loops_select_all(d, L);
}

/* See loops.h. */
void mbs_loops_deselect(mbs_data *d) { d->loops->selected = 0; }

/* See loops.h: no QR; the partition is left to be made when Newton needs one. */
int mbs_loops_set_selection(mbs_data *d, const unsigned char *active)
{
    mbs_loops *L = d->loops;
    int na = 0, nd = 0;
    for (int i = 0; i < L->m; ++i) {
        L->active[i] = active[i] != 0;
        if (L->active[i]) L->arow[na++] = i;
        else L->drow[nd++] = i;
    }
    if (na > L->mn) return MBS_DATA_FAIL(d, MBS_ERR_STATE, "loops: %d rows for %d dofs", na, L->nv);
    L->rank = na;
    L->rank_cut = 0; /* cut-joint rows come first (the analytic strategy has no other) */
    while (L->rank_cut < na && L->arow[L->rank_cut] < L->mcut) ++L->rank_cut;
    L->selected = 1;
    L->lu_ok = L->lu_here = L->jac_closed = 0;
    L->cond_retry = 0.0;
    L->cond_smooth = MBS_LOOP_SMOOTH_COND;
    L->nevents++;
    return MBS_OK;
}

/* See loops.h. */
const unsigned char *mbs_loops_selection(const mbs_data *d, int *rank)
{
    const mbs_loops *L = d->loops;
    *rank = L && L->selected ? L->rank : 0;
    return L && L->selected ? L->active : NULL;
}

/* See loops.h: dep and ind ascending, as loops_partition() leaves them. */
int mbs_loops_set_partition(mbs_data *d, const unsigned char *dep)
{
    mbs_loops *L = d->loops;
    int nd = 0, ni = 0;
    for (int k = 0; k < L->nv; ++k) nd += dep[k] != 0;
    if (!L->selected || nd != L->rank)
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "loops: a partition of %d dofs for rank %d", nd,
                             L->rank);
    memcpy(L->dep_bak, L->dep, (size_t)L->nv * sizeof(int));
    memcpy(L->ind_bak, L->ind, (size_t)L->nv * sizeof(int));
    nd = 0;
    for (int k = 0; k < L->nv; ++k) {
        if (dep[k]) L->dep[nd++] = k;
        else L->ind[ni++] = k;
    }
    for (int k = 0; k < ni; ++k) L->dep[nd + k] = L->ind[k];
    const int st = loops_jac_factor(d, L);
    if (st != MBS_OK) {
        memcpy(L->dep, L->dep_bak, (size_t)L->nv * sizeof(int));
        memcpy(L->ind, L->ind_bak, (size_t)L->nv * sizeof(int));
        L->lu_ok = 0;
        return st;
    }
    L->cond_retry = MBS_LOOP_REPARTITION_RATIO * fmax(L->cond_sel, 1.0);
    L->cond_smooth = MBS_LOOP_SMOOTH_COND;
    return MBS_OK;
}

/* See loops.h. */
int mbs_loops_repartition(mbs_data *d)
{
    mbs_loops *L = d->loops;
    if (!L->selected) return loops_select_all(d, L);
    mbs_kinematics(d);
    loops_eval_jacobian(d, L, L->arow, L->rank);
    const int st = loops_partition(d, L);
    if (st != MBS_OK) return st;
    L->nevents++;
    L->cond_retry = 0.0;
    L->cond_smooth = MBS_LOOP_SMOOTH_COND;
    return MBS_OK;
}

/* See loops.h. */
void mbs_loops_mark_closed(mbs_data *d) { loops_mark_closed(d, d->loops, 0); }

/* See loops.h. */
void mbs_loops_note_event(mbs_data *d) { d->loops->nevents++; }
