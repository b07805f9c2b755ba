/* Closed kinematic loops: selection, partition, closure, projection and the dynamics with
 * multipliers (see loops.h). Matrices handed to LAPACK are column-major; the Jacobian rows
 * of constraints.c are row-major (n x nv), which is J^T in column-major with lda = nv. */
#include "solvers/loops.h"

#include <math.h>
#include <stdlib.h>

#include "closure/closure.h"
#include "contact/contact.h"
#include "core/linalg.h"
#include "events/events.h"
#include "solvers/constraints.h"
#include "solvers/dense.h"
#include "couplings/couplings.h"

#define RANK_FLOOR 1e-3        /* |R_11| below this counts as this for the rank test */
#define PRIORITY_WEIGHT 0.25   /* column weight per state_priority level */
#define RETRY_GROWTH 2.0       /* after a repartition that found nothing better, the next try
                                  waits for a J_v this much worse */
#define MIN_STEP 0x1p-10       /* shortest fraction of a Newton step (10 halvings) */
#define COND_REFIT 1e8         /* J_v this ill-conditioned after assembly: select again */
#define CHORD_RES 1e-8         /* Newton reuses the last LU of J_v below this residual... */
#define CHORD_COND 1e3         /* ... and condition estimate (tolerance and tangent need it) */
#define PROJECT_MAXIT 6        /* velocity projection corrections at most */
#define HOLD_TOL 1e-9          /* a held coordinate that assembly moved further (tangent
                                  units: rad, m) could not keep its value */

struct mbs_loops {
    mbs_con_topo t;
    int m, nv, nq, nb, mn;   /* rows, velocities, positions, bodies, min(m, nv) */
    /* Coordinate rows (events.h) are rows mcut .. m - 1; only the enabled ones take part in
       a selection (cand); without cut-joint rows the selection, partition and closure are
       direct (no QR, no Newton: the rows are distinct unit rows). */
    int mcut;                /* cut-joint rows (the model's ncon) */
    int *cand, ncand;        /* [m] rows of the selection: cut rows, then enabled coordinate rows */
    int rank_cut;            /* kept cut-joint rows: arow[0 .. rank_cut - 1] */
    int timed;               /* 1: prescribed motions, the closure depends on t too */
    double tcl;              /* time of the last successful closure */
    double *vt;              /* [m] velocity targets of the active rows (J_a v = vt) */
    int selected;            /* 1: rank, rows and partition below are valid */
    long nevents;            /* selections and repartitions made */
    long newton_iters;       /* Newton steps taken (mbs_loops_newton_iterations) */
    int rank;
    unsigned char *active;   /* [m] */
    int *arow, *drow;        /* [m] active (rank) and dropped (m - rank) rows, ascending */
    int *dep, *ind;          /* [nv] dependent (rank) and independent dofs, ascending */
    int *dep_bak, *ind_bak;  /* [nv] partition before a repartition attempt */
    double *weight;          /* [nv] partition column weights (state_priority) */
    double cond;             /* condition estimate of the last J_v factorisation */
    double cond_retry;       /* a repartition is tried when cond exceeds this (0: not set
                                yet, the first closure of a partition sets it) */
    double cond_smooth;      /* smoothing is tried when cond exceeds this (raised after a
                                smoothing that could not leave the near-singular region) */
    double *Sw;              /* [6 nv] world motion subspace */
    double *a0, *Vw, *Aw;    /* [6 nb] */
    double *h, *gam;         /* [m] */
    double *J;               /* [m nv] row-major Jacobian rows (all rows, or active rows) */
    double *qr, *qtau, *qwork; /* [m nv], [max(m, nv)], [lqwork] */
    int *jpvt;               /* [max(m, nv)] */
    int lqwork;
    double *LU;              /* [mn mn] LU of J_v, column-major */
    int *ipiv;               /* [mn] */
    double *K;               /* [mn mn] J_a M^-1 J_a^T or J_a J_a^T (Cholesky) */
    double *Y;               /* [nv mn] J_a^T, column-major (inverse dynamics) */
    double *Z;               /* [mn maxclo] L^-T J_a^T on each row's closure (constraints.h) */
    const double *M;         /* the factor of M in d->M while gram_mass runs */
    double *x, *y, *dv;      /* [max(m, nv)] scratch, [nv] Newton step */
    double *qbak, *vbak, *qprev; /* [nq], [nv], [nq] */
    double *qacc_bak, *lam_bak;  /* [nv], [m] */
    double *qcl, *vcl;       /* [nq], [nv] state of the last successful closure */
    double *qsm, *vsm;       /* [nq], [nv] state whose accelerations are being smoothed */
    double *acc_sm, *lam_sm; /* [nv], [m] smoothed accelerations and multipliers */
    int closed_valid;
    int lu_ok;               /* 1: LU holds a factorisation of J_v for the current partition */
    int lu_here;             /* 1: ... made at the data's current q */
    int jac_closed;          /* 1: J holds J_a of the closed state (qcl) */
    /* coordinates held at assembly (mbs_set_joint_hold): the model's mask, NULL if none */
    const unsigned char *hold;
    int hold_pass;           /* 1 while mbs_loops_assemble runs: partitions prefer them */
};

/* ------------------------------------------------------------------ workspace */

/* Largest of two ints. */
static int imax(int a, int b) { return a > b ? a : b; }

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
    if (mbs_con_topo_init(m, &L->t) != MBS_OK) return MBS_ERR_NOMEM;
    L->Z = calloc(mn1 * (size_t)(L->t.maxclo + 1), sizeof(double));
    return L->Z ? MBS_OK : MBS_ERR_NOMEM;
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
static const char *row_label(const mbs_data *d, const mbs_loops *L, int r, char *buf, int len)
{
    return mbs_joint_label(d->model, L->t.cut[L->t.row_cut[r]], buf, len);
}

/* Index i of the largest |x[i]| (0 when n == 0). */
static int argmax_abs(const double *x, int n)
{
    int k = 0;
    for (int i = 1; i < n; ++i)
        if (fabs(x[i]) > fabs(x[k]) || (isnan(x[i]) && !isnan(x[k]))) k = i;
    return k;
}

/* ------------------------------------------------------------------ selection */

/* Sw and the scaled Jacobian rows `rows` (NULL: all) into L->J at the current kinematics. */
static void eval_jacobian(mbs_data *d, mbs_loops *L, const int *rows, int n)
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
static void candidates(const mbs_data *d, mbs_loops *L)
{
    int n = 0;
    for (int i = 0; i < L->mcut; ++i) L->cand[n++] = i;
    for (int i = L->mcut; i < L->m; ++i)
        if (d->ev->st.row_on[i - L->mcut]) L->cand[n++] = i;
    L->ncand = n;
}

/* Rank-revealing QR of the scaled J^T (nv x ncand, dgeqp3): rank and active/dropped rows
   among the candidates (seed 004 §6); without cut-joint rows every candidate is kept.
   Needs L->J of the candidate rows. */
static int select_rows(mbs_data *d, mbs_loops *L)
{
    const int m = L->ncand, nv = L->nv;
    int rank = L->mcut == 0 ? m : 0;
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
        const double w = skip && skip[j] ? 0.0 : L->weight[j];
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

/* Pivoted QR of the weighted active rows J_a (rank x nv): the first rank pivots are the
   dependent coordinates (seed 001 eq. 10); during assembly held coordinates are taken only
   when the others do not suffice (take_held). Needs L->J of the active rows. */
static int partition(mbs_data *d, mbs_loops *L)
{
    const int r = L->rank, nv = L->nv;
    const unsigned char *held = L->hold_pass ? L->hold : NULL;
    L->lu_ok = 0;
    if (L->mcut == 0) {
        partition_coordinates(d, L);
        return MBS_OK;
    }
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
                                 "cut joint %s are dependent at this configuration",
                                 row_label(d, L, L->arow[r - 1], buf, (int)sizeof buf));
        }
    }
    for (int k = 0; k < nv; ++k) L->dep[k] = r > 0 ? L->jpvt[k] - 1 : k; /* rank 0: all free */
    sort_ints(L->dep, r);
    sort_ints(L->dep + r, nv - r);
    for (int k = 0; k < nv - r; ++k) L->ind[k] = L->dep[r + k];
    return MBS_OK;
}

/* A fresh selection at the data's q: kinematics, all rows, RRQR, partition (an event). */
static int select_all(mbs_data *d, mbs_loops *L)
{
    mbs_kinematics(d);
    candidates(d, L);
    eval_jacobian(d, L, L->cand, L->ncand);
    L->selected = 0;
    int st = select_rows(d, L);
    if (st != MBS_OK) return st;
    eval_jacobian(d, L, L->arow, L->rank);
    st = partition(d, L);
    if (st != MBS_OK) return st;
    L->selected = 1;
    L->cond_retry = 0.0;
    L->cond_smooth = MBS_LOOP_SMOOTH_COND;
    L->nevents++;
    return MBS_OK;
}

/* ------------------------------------------------------------------ closure */

/* LU of J_v (active rows x dependent columns of L->J) and its condition estimate
   max |U_ii| / min |U_ii|; MBS_ERR_SINGULAR on a zero pivot. */
static int factor_jv(mbs_data *d, mbs_loops *L)
{
    const int r = L->rank, nv = L->nv;
    L->cond = 1.0;
    L->lu_ok = L->lu_here = 1;
    if (r == 0) return MBS_OK;
    for (int k = 0; k < r; ++k)
        for (int i = 0; i < r; ++i)
            L->LU[i + (size_t)k * (size_t)r] = L->J[(size_t)i * (size_t)nv + (size_t)L->dep[k]];
    const int info = mbs_dense_lu(r, L->LU, L->ipiv);
    L->lu_ok = L->lu_here = info == 0;
    double umax = 0.0, umin = INFINITY;
    for (int i = 0; i < r; ++i) {
        const double u = fabs(L->LU[i + (size_t)i * (size_t)r]);
        umax = u > umax ? u : umax;
        umin = u < umin ? u : umin;
    }
    if (info != 0 || !(umin > 0.0) || !isfinite(umax)) {
        char buf[96];
        L->cond = INFINITY;
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "loops: singular configuration: J_v of the "
                             "partition is singular (cut joint %s)",
                             row_label(d, L, L->arow[info > 0 ? info - 1 : 0], buf, (int)sizeof buf));
    }
    L->cond = umax / umin;
    return MBS_OK;
}

/* Active Jacobian rows and the LU of J_v at the current kinematics. */
static int jac_factor(mbs_data *d, mbs_loops *L)
{
    eval_jacobian(d, L, L->arow, L->rank);
    return factor_jv(d, L);
}

/* x = J_v^-1 b in place (r values). */
static void jv_solve(mbs_loops *L, int trans, double *x)
{
    if (L->rank > 0) mbs_dense_lu_solve(trans, L->rank, L->LU, L->ipiv, x);
}

/* q = integrate(q_from, alpha dv) with quaternions normalised. */
static void newton_move(mbs_data *d, mbs_loops *L, double alpha)
{
    L->lu_here = 0;
    L->newton_iters++;
    mbs_integrate_q(d->model, L->qprev, L->dv, alpha, d->q);
    mbs_normalize_q(d->model, d->q);
}

/* Newton step direction dv (nv): -J_v^-1 h_a on the dependent dofs, 0 on the others. */
static void newton_direction(mbs_loops *L)
{
    for (int i = 0; i < L->rank; ++i) L->x[i] = -L->h[i];
    jv_solve(L, 0, L->x);
    for (int k = 0; k < L->nv; ++k) L->dv[k] = 0.0;
    for (int i = 0; i < L->rank; ++i) L->dv[L->dep[i]] = L->x[i];
}

/* MBS_ERR_CONVERGENCE naming the cut joint of the largest residual. */
static int newton_fail(mbs_data *d, mbs_loops *L, int it, double res)
{
    char buf[96];
    const int k = argmax_abs(L->h, L->rank);
    return MBS_DATA_FAIL(d, MBS_ERR_CONVERGENCE, "loops: closure of cut joint %s did not "
                         "converge in %d Newton iterations (scaled residual %.3g%s)",
                         row_label(d, L, L->arow[k], buf, (int)sizeof buf), it, res,
                         isfinite(res) ? "" : ": a curve joint without a contact point there?");
}

/* Kinematics and the residual of the active rows at the data's q; its max norm. */
static double active_residual(mbs_data *d, mbs_loops *L)
{
    mbs_kinematics(d);
    mbs_con_residual(d, &L->t, L->arow, L->rank, L->h);
    return L->rank > 0 ? fabs(L->h[argmax_abs(L->h, L->rank)]) : 0.0;
}

/* Residual at which the closure stops: MBS_LOOP_NEWTON_TOL divided by the condition
   estimate of J_v. Near a singular configuration (a bifurcation of the loops'
   manifold) a residual r leaves the coordinates off the manifold by about cond r, which
   must stay small against the distance to the singularity, or the tangent used to project
   v (and the branch Newton follows next) is wrong; below the roundoff floor the iteration
   stops when the residual no longer halves. */
static double newton_tol(const mbs_loops *L)
{
    return L->cond > 1.0 ? MBS_LOOP_NEWTON_TOL / L->cond : MBS_LOOP_NEWTON_TOL;
}

/* The closure converged at the data's q: J_a and the LU of J_v made there. */
static int newton_done(mbs_data *d, mbs_loops *L)
{
    return L->lu_here ? MBS_OK : jac_factor(d, L);
}

/* Newton-Raphson on the dependent coordinates with u fixed (seed 001 eq. 13). Below
   CHORD_RES, while it contracts 4x per step and J_v is well conditioned (CHORD_COND), the LU
   of J_v of an earlier iterate is reused (chord steps); a chord step that makes the residual
   grow is redone as a full step, a full step that does is halved. Convergence is confirmed
   with an LU made at the final q (its condition sets newton_tol), so on success the
   kinematics, J_a and the LU of J_v are those of the closed q. */
static int newton(mbs_data *d, mbs_loops *L)
{
    double prev = INFINITY, alpha = 1.0;
    int chord = 0; /* the last step used the LU of an earlier iterate */
    L->lu_here = 0; /* q is new: the LU (if any) is that of another state */
    for (int it = 0; it <= MBS_LOOP_NEWTON_MAXIT; ++it) {
        double res = active_residual(d, L);
        if (!chord && res <= 100.0 * MBS_LOOP_NEWTON_TOL && !(res < 0.5 * prev)) {
            /* a full Newton step that no longer halves the residual: its roundoff floor */
            if (res > prev) { /* the last step only added noise: take the iterate before it */
                memcpy(d->q, L->qprev, (size_t)L->nq * sizeof(double));
                res = active_residual(d, L);
            }
            return newton_done(d, L);
        }
        if (!(res <= prev) && isfinite(prev) && (chord || alpha > MIN_STEP)) {
            if (chord) { /* back to the last iterate for a full Newton step from there */
                memcpy(d->q, L->qprev, (size_t)L->nq * sizeof(double));
                active_residual(d, L);
                const int st = jac_factor(d, L);
                if (st != MBS_OK) return st;
                newton_direction(L);
                chord = 0;
                newton_move(d, L, 1.0);
                continue;
            }
            alpha *= 0.5; /* the residual grew (or is not finite): shorter step */
            newton_move(d, L, alpha);
            continue;
        }
        if (res <= newton_tol(L)) { /* confirm with an LU (and condition) of this q */
            if (L->lu_here) return newton_done(d, L);
            const int st = jac_factor(d, L);
            if (st != MBS_OK) return st;
            if (res <= newton_tol(L)) return MBS_OK;
            chord = 0; /* a full step with it below */
        }
        if (it == MBS_LOOP_NEWTON_MAXIT || !isfinite(res)) return newton_fail(d, L, it, res);
        const int fresh = !L->lu_here && (!L->lu_ok || res > CHORD_RES || res > 0.25 * prev ||
                                          L->cond > CHORD_COND);
        if (fresh) {
            const int st = jac_factor(d, L);
            if (st != MBS_OK) return st;
            if (res <= newton_tol(L)) return MBS_OK; /* converged by the fresh estimate */
        }
        newton_direction(L);
        chord = !L->lu_here;
        memcpy(L->qprev, d->q, (size_t)L->nq * sizeof(double));
        prev = res;
        alpha = 1.0;
        newton_move(d, L, 1.0);
    }
    return newton_fail(d, L, MBS_LOOP_NEWTON_MAXIT, prev);
}

/* K = J_v J_v^T (lower triangle, rank x rank) of the active rows over the dependent
   columns, from the rows' paths (a row is zero elsewhere; rows of cut joints whose closures
   share no dof do not couple). Leaves L->dv = 1 on the dependent dofs, 0 on the others. */
static void gram_dependent(mbs_loops *L)
{
    const int r = L->rank, nv = L->nv;
    for (int k = 0; k < nv; ++k) L->dv[k] = 0.0;
    for (int i = 0; i < r; ++i) L->dv[L->dep[i]] = 1.0;
    for (int j = 0; j < r; ++j) {
        const double *Jj = L->J + (size_t)nv * (size_t)j;
        const int cj = L->t.row_cut[L->arow[j]];
        for (int i = j; i < r; ++i) {
            const double *Ji = L->J + (size_t)nv * (size_t)i;
            double s = 0.0;
            if (L->t.overlap[(size_t)cj * (size_t)L->t.nent + (size_t)L->t.row_cut[L->arow[i]]])
                for (int p = L->t.path_adr[cj]; p < L->t.path_adr[cj + 1]; ++p) {
                    const int k = L->t.path_dof[p];
                    s += L->dv[k] * Ji[k] * Jj[k];
                }
            L->K[i + (size_t)j * (size_t)r] = s;
        }
    }
}

/* Velocity projection at a near-singular closed state (J_v condition estimate above
   MBS_LOOP_PROJECT_COND; loops.h "Near-singular states"): v_v += J_1v^T x with
   (J_1v J_1v^T) x = (vt - J_a v)_1 over the rows J_1 that a pivoted Cholesky of
   K = J_v J_v^T keeps (pivots above MBS_LOOP_PROJECT_DROP times its largest): the least
   change of the dependent rates that meets the kept rows. The near-dependent rows keep what
   they miss, where the exact projection would correct it by J_v^-1 and turn the rounding of
   the closed position into a velocity error of cond(J_v) times it. v_u is held, so the
   steppers still integrate (u, u') exactly as elsewhere: an M-weighted correction of all
   rates (which cannot raise the kinetic energy) moved crank 0 of A02 by up to 1.4e-8 rad/s
   per stage; the per-step jumps of crank 0's closed-form energy over 100 s had rms 2.6e-7 J
   with it, 1.9e-7 J with v_u held, 1.5e-7 J with the exact projection (the accelerations'
   rounding near the singularity, not the projection, dominates them). Only for a
   velocity that meets the rows to MBS_LOOP_PROJECT_NOISE max |v| already (an integrator's
   state) and leaves the rows out no more than that; otherwise (a host's velocity at
   assembly) 1: the caller projects exactly. */
static int project_near_singular(mbs_data *d, mbs_loops *L, double vmax)
{
    const int r = L->rank, nv = L->nv;
    const double noise = MBS_LOOP_PROJECT_NOISE * vmax;
    mbs_con_jmul(&L->t, L->arow, r, L->J, d->v, L->x);
    double miss = 0.0;
    for (int i = 0; i < r; ++i) {
        L->x[i] = L->vt[i] - L->x[i];
        miss = fmax(miss, fabs(L->x[i]));
    }
    if (!(miss <= noise)) return 1;
    gram_dependent(L);
    const int k = mbs_dense_cholesky_pivoted(r, L->K, L->jpvt, MBS_LOOP_PROJECT_DROP);
    if (mbs_dense_cholesky_pivoted_solve(r, k, L->K, L->jpvt, L->y, L->x) > noise) return 1;
    for (int i = 0; i < r; ++i) { /* v_v += J_1v^T x on the paths (L->dv: dependent) */
        const double *Ji = L->J + (size_t)nv * (size_t)i;
        const int c = L->t.row_cut[L->arow[i]];
        for (int p = L->t.path_adr[c]; p < L->t.path_adr[c + 1]; ++p) {
            const int k = L->t.path_dof[p];
            d->v[k] += L->dv[k] * Ji[k] * L->x[i];
        }
    }
    return MBS_OK;
}

/* Velocity projection v_v = -J_v^-1 J_u v_u (seed 001 eq. 14) with J_a at q: corrections
   v_v -= J_v^-1 (J_a v) until J_a v is at roundoff (one with the LU of q, which newton and
   try_repartition leave; an LU of another state is remade when it contracts less than 10x,
   or at once when J_v is ill-conditioned). Near a singular configuration (J_v condition
   estimate above MBS_LOOP_PROJECT_COND) project_near_singular instead, unless the velocity
   really violates the constraints. */
static int project(mbs_data *d, mbs_loops *L)
{
    if (L->rank == 0) return MBS_OK;
    double vmax = 0.0, prev = INFINITY;
    for (int i = 0; i < L->nv; ++i) vmax = fmax(vmax, fabs(d->v[i]));
    /* J_a v = vt: nonzero only for prescribed motions (their rates) */
    mbs_con_velocity_target(d, &L->t, L->arow, L->rank, L->vt);
    if (!L->lu_here && L->cond > CHORD_COND) { /* near-singular: the tangent of this q */
        const int st = factor_jv(d, L);
        if (st != MBS_OK) return st;
    }
    if (L->cond > MBS_LOOP_PROJECT_COND) {
        const int st = project_near_singular(d, L, vmax);
        if (st != 1) return st; /* 1: a real violation, the exact projection below */
    }
    for (int k = 0; k < PROJECT_MAXIT; ++k) {
        mbs_con_jmul(&L->t, L->arow, L->rank, L->J, d->v, L->x);
        for (int i = 0; i < L->rank; ++i) L->x[i] -= L->vt[i];
        const double res = fabs(L->x[argmax_abs(L->x, L->rank)]);
        if (res <= 1e-15 * vmax) return MBS_OK;
        if (res > 0.1 * prev) {
            if (L->lu_here) return MBS_OK; /* roundoff of an exact factorisation */
            const int st = factor_jv(d, L);
            if (st != MBS_OK) return st;
            mbs_con_jmul(&L->t, L->arow, L->rank, L->J, d->v, L->x);
            for (int i = 0; i < L->rank; ++i) L->x[i] -= L->vt[i];
        }
        prev = res;
        for (int i = 0; i < L->rank; ++i) L->x[i] = -L->x[i];
        jv_solve(L, 0, L->x);
        for (int i = 0; i < L->rank; ++i) d->v[L->dep[i]] += L->x[i];
    }
    return MBS_OK;
}

/* MBS_ERR_INCONSISTENT when a dropped row is violated at the (closed) q; needs the poses of
   the current kinematics. */
static int check_dropped(mbs_data *d, mbs_loops *L)
{
    const int nd = L->ncand - L->rank; /* the dropped candidates (disabled rows are none) */
    if (nd == 0) return MBS_OK;
    mbs_con_residual(d, &L->t, L->drow, nd, L->h);
    const int k = argmax_abs(L->h, nd);
    if (fabs(L->h[k]) <= MBS_LOOP_INCONSISTENT_TOL) return MBS_OK;
    char buf[96];
    const int r = L->drow[k];
    const mbs_joint_model *j = &d->model->joints[L->t.cut[L->t.row_cut[r]]];
    if (!isfinite(L->h[k]))
        return MBS_DATA_FAIL(d, MBS_ERR_CONVERGENCE, "loops: row %d of cut joint %s is not "
                             "finite here (a curve joint without a contact point?)",
                             r - j->conadr, row_label(d, L, r, buf, (int)sizeof buf));
    return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "loops: the constraints of cut joint %s are "
                         "inconsistent: its row %d is redundant but violated by %.3g (scaled) "
                         "once the independent rows hold",
                         row_label(d, L, r, buf, (int)sizeof buf), r - j->conadr, L->h[k]);
}

/* A new partition at q when J_v got ill-conditioned (MBS_LOOP_REPARTITION_RATIO times worse
   than when its partition was made): kept if it is at least twice better (an event); else
   the old one stays and the next try waits for a RETRY_GROWTH times worse J_v. */
static int try_repartition(mbs_data *d, mbs_loops *L)
{
    const double old = L->cond;
    memcpy(L->dep_bak, L->dep, (size_t)L->nv * sizeof(int));
    memcpy(L->ind_bak, L->ind, (size_t)L->nv * sizeof(int));
    int st = partition(d, L);
    if (st == MBS_OK) st = factor_jv(d, L);
    if (st == MBS_OK && L->cond < 0.5 * old) {
        L->nevents++;
        L->cond_retry = MBS_LOOP_REPARTITION_RATIO * fmax(L->cond, 1.0);
        L->cond_smooth = MBS_LOOP_SMOOTH_COND;
        return MBS_OK;
    }
    memcpy(L->dep, L->dep_bak, (size_t)L->nv * sizeof(int));
    memcpy(L->ind, L->ind_bak, (size_t)L->nv * sizeof(int));
    L->cond_retry = RETRY_GROWTH * old;
    return factor_jv(d, L);
}

/* Without cut-joint rows the active rows are distinct coordinates: q_k and v_k take their
   targets directly (what Newton and the projection would reach in one step). */
static int close_coordinates(mbs_data *d, mbs_loops *L)
{
    const mbs_events_model *ev = d->model->ev;
    for (int i = 0; i < L->rank; ++i) {
        const int k = L->arow[i] - L->mcut;
        d->q[ev->qrows[k].qindex] = d->ev->st.row_pos[k];
        d->v[ev->qrows[k].vindex] = d->ev->row_vel[k];
    }
    L->cond = 1.0;
    L->lu_here = 0;
    return MBS_OK;
}

/* Newton (a new partition first when J_v is singular at q and flags allow), dropped-row
   check, repartition when ill-conditioned, velocity projection. */
static int close_once(mbs_data *d, mbs_loops *L, int flags)
{
    if (L->mcut == 0) return close_coordinates(d, L);
    int st = newton(d, L);
    if (st == MBS_OK && L->cond_retry == 0.0)
        L->cond_retry = MBS_LOOP_REPARTITION_RATIO * fmax(L->cond, 1.0);
    if (st == MBS_ERR_SINGULAR && (flags & MBS_CLOSE_RECOVER)) {
        memcpy(d->q, L->qbak, (size_t)L->nq * sizeof(double));
        mbs_kinematics(d);
        eval_jacobian(d, L, L->arow, L->rank);
        st = partition(d, L);
        if (st == MBS_OK) {
            L->nevents++, L->cond_smooth = MBS_LOOP_SMOOTH_COND, L->cond_retry = 0.0;
            st = newton(d, L);
        }
    }
    if (st == MBS_OK && (flags & MBS_CLOSE_CHECK)) st = check_dropped(d, L);
    if (st == MBS_OK && (flags & MBS_CLOSE_REPARTITION) && L->cond > L->cond_retry)
        st = try_repartition(d, L);
    if (st == MBS_OK) st = project(d, L);
    return st;
}

/* Back up q and v; restore them. */
static void save_state(const mbs_data *d, mbs_loops *L)
{
    memcpy(L->qbak, d->q, (size_t)L->nq * sizeof(double));
    memcpy(L->vbak, d->v, (size_t)L->nv * sizeof(double));
}
static void restore_state(mbs_data *d, const mbs_loops *L)
{
    memcpy(d->q, L->qbak, (size_t)L->nq * sizeof(double));
    memcpy(d->v, L->vbak, (size_t)L->nv * sizeof(double));
}

/* Remember the closed state (mbs_loops_is_closed); jac: L->J holds J_a at it. Curve joints
   keep their contact parameters as the next start (src/contact/). */
static void mark_closed(mbs_data *d, mbs_loops *L, int jac)
{
    mbs_curve_commit(d);
    memcpy(L->qcl, d->q, (size_t)L->nq * sizeof(double));
    memcpy(L->vcl, d->v, (size_t)L->nv * sizeof(double));
    L->tcl = d->time;
    L->closed_valid = 1;
    L->jac_closed = jac && L->mcut > 0;
}

/* Newton closure: an inconsistency found with the current selection gets one fresh
   selection at the closed q before it is reported; with MBS_CLOSE_RECOVER so does any other
   failure (from the given q). */
static int newton_close(mbs_data *d, int flags)
{
    mbs_loops *L = d->loops;
    save_state(d, L);
    int st = L->selected ? MBS_OK : select_all(d, L);
    if (st == MBS_OK) st = close_once(d, L, flags);
    if (st == MBS_ERR_INCONSISTENT || (st != MBS_OK && (flags & MBS_CLOSE_RECOVER))) {
        if (st != MBS_ERR_INCONSISTENT) memcpy(d->q, L->qbak, (size_t)L->nq * sizeof(double));
        st = select_all(d, L);
        if (st == MBS_OK) st = close_once(d, L, flags);
    }
    if (st != MBS_OK) {
        restore_state(d, L);
        return st;
    }
    mark_closed(d, L, 1);
    return MBS_OK;
}

/* Put the caller's values of the independent coordinates back (from qbak) into the data's
   q, keeping its dependent coordinates as the next Newton guess: q = q (+) dv with dv =
   difference(q, qbak) on the independent dofs only. */
static void restore_independent(mbs_data *d, mbs_loops *L)
{
    mbs_difference_q(d->model, d->q, L->qbak, L->dv);
    for (int i = 0; i < L->rank; ++i) L->dv[L->dep[i]] = 0.0;
    memcpy(L->qprev, d->q, (size_t)L->nq * sizeof(double));
    newton_move(d, L, 1.0);
    L->newton_iters--; /* a move, not a Newton step */
}

/* MBS_ERR_INCONSISTENT naming the joint of a held coordinate that the closure moved from the
   caller's value (qbak): the loops needed it as a dependent coordinate, and the held values
   do not close them. */
static int check_held(mbs_data *d, mbs_loops *L)
{
    if (!L->hold) return MBS_OK;
    const mbs_model *m = d->model;
    mbs_difference_q(m, L->qbak, d->q, L->dv);
    for (int k = 0; k < L->nv; ++k) {
        if (!L->hold[k] || fabs(L->dv[k]) <= HOLD_TOL) continue;
        char buf[96];
        const int j = m->dof_joint[k];
        return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "assemble: the held coordinates cannot "
                             "all keep their values: closing the loops moves coordinate %d of "
                             "held joint %s by %.3g", k - m->joints[j].vadr,
                             mbs_joint_label(m, j, buf, (int)sizeof buf), L->dv[k]);
    }
    return MBS_OK;
}

/* The assembly of mbs_loops_assemble (save_state done). The current selection is kept when
   it closes the state (a new partition if J_v got ill-conditioned); otherwise a fresh one. A
   selection made away from the loops' manifold may count rows that are dependent on it (an
   overconstrained loop such as Bricard's) or miss rows: when the closed J_v is nearly
   singular, a dropped row is violated or the closure failed, the selection is made again at
   the closed (or last) q and the caller's independent coordinates restored. With held
   coordinates every assembly makes a fresh selection whose partitions prefer them. */
static int assemble(mbs_data *d, mbs_loops *L)
{
    if (L->selected && !L->hold_pass) { /* the current selection first: fine near the last */
        int st = close_once(d, L, MBS_CLOSE_REPARTITION | MBS_CLOSE_RECOVER | MBS_CLOSE_CHECK);
        if (st == MBS_OK && L->cond <= COND_REFIT) {
            mark_closed(d, L, 1);
            return MBS_OK;
        }
        restore_state(d, L);
    }
    int st = select_all(d, L);
    if (st == MBS_OK) st = close_once(d, L, MBS_CLOSE_REPARTITION | MBS_CLOSE_RECOVER);
    int refit = st == MBS_ERR_CONVERGENCE || st == MBS_ERR_SINGULAR;
    if (st == MBS_OK) refit = L->cond > COND_REFIT || check_dropped(d, L) != MBS_OK;
    if (refit) {
        st = select_all(d, L);
        if (st == MBS_OK) {
            restore_independent(d, L);
            st = close_once(d, L, MBS_CLOSE_REPARTITION | MBS_CLOSE_RECOVER);
        }
    }
    if (st == MBS_OK) st = check_dropped(d, L);
    if (st == MBS_OK && L->hold_pass) st = check_held(d, L);
    if (st != MBS_OK) {
        restore_state(d, L);
        return st;
    }
    mark_closed(d, L, 1);
    return MBS_OK;
}

/* Newton assembly (mbs_loops_assemble when the analytic strategy defers). When the closure
   fails with the held coordinates independent, an assembly without the holds tells whether
   their values are the cause: if it closes, the held coordinate it moved is reported
   (MBS_ERR_INCONSISTENT) and q, v are restored; if it fails too, its status and message are
   returned. */
static int newton_assemble(mbs_data *d)
{
    mbs_loops *L = d->loops;
    save_state(d, L);
    L->hold_pass = L->hold != NULL;
    int st = assemble(d, L);
    L->hold_pass = 0;
    if (L->hold && (st == MBS_ERR_CONVERGENCE || st == MBS_ERR_SINGULAR)) {
        st = assemble(d, L);
        if (st == MBS_OK) st = check_held(d, L);
        if (st != MBS_OK) restore_state(d, L);
    }
    return st;
}

/* See loops.h. */
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

/* See loops.h: a new selection (and closure) at the next use. */
void mbs_loops_rows_changed(mbs_data *d)
{
    if (!d->loops) return;
    d->loops->selected = 0;
    d->loops->closed_valid = 0;
}

/* See loops.h. */
void mbs_loops_targets_changed(mbs_data *d)
{
    if (d->loops) d->loops->closed_valid = 0;
}

/* See loops.h. */
long mbs_loops_events(const mbs_data *d) { return d->loops ? d->loops->nevents : 0; }

/* See loops.h. */
int mbs_loops_independent(mbs_data *d, const int **ind)
{
    mbs_loops *L = d->loops;
    if (!L->selected) {
        const int st = select_all(d, L);
        if (st != MBS_OK) return st;
    }
    *ind = L->ind;
    return L->nv - L->rank;
}

/* See loops.h. */
int mbs_loops_info(mbs_data *d, int *rank, unsigned char *active)
{
    mbs_loops *L = d->loops;
    if (!L->selected) {
        const int st = select_all(d, L);
        if (st != MBS_OK) return st;
    }
    *rank = L->rank_cut;
    if (active) memcpy(active, L->active, (size_t)L->mcut);
    return MBS_OK;
}

/* ------------------------------------------------------------------ dynamics */

/* Active rows J_a (kept from the closure when the state is the closed one) and
   gam_a = (J̇q̇)_a at the prepared kinematics. */
static void eval_rows_bias(mbs_data *d, mbs_loops *L)
{
    if (!(L->jac_closed && mbs_loops_is_closed(d))) eval_jacobian(d, L, L->arow, L->rank);
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
                         "constraint rows are dependent (cut joint %s)",
                         row_label(d, L, L->arow[info > 0 ? info - 1 : 0], buf, (int)sizeof buf));
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
   c = -gam_a) it is seed 001 eq. 6 and x the multipliers; for velocities (c = the velocity
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

/* qacc = qacc0 + M^-1 J_a^T lambda with lambda = -K^-1 (J_a qacc0 + gam_a) (seed 001
   eq. 6); physical multipliers into d->lambda (cut-joint rows, then coordinate rows), 0 for
   dropped and disabled rows. */
static int constrained_accel(mbs_data *d, mbs_loops *L)
{
    const int r = L->rank;
    for (int i = 0; i < L->m; ++i) d->lambda[i] = 0.0;
    if (r == 0) return MBS_OK;
    eval_rows_bias(d, L);
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
    int st = L->selected ? MBS_OK : select_all(d, L);
    if (st != MBS_OK || L->rank == 0) return st;
    mbs_kinematics(d);
    eval_jacobian(d, L, L->arow, L->rank);
    mbs_con_velocity_target(d, &L->t, L->arow, L->rank, L->x);
    L->closed_valid = 0;
    return weighted_correction(d, L, d->v);
}

/* ABA, then the multipliers at the prepared state; a singular K gets one fresh selection. */
static int forward_direct(mbs_data *d, mbs_loops *L)
{
    int st = L->selected ? MBS_OK : select_all(d, L);
    if (st == MBS_OK) st = mbs_aba(d);
    if (st != MBS_OK) return st;
    memcpy(L->dv, d->qacc, (size_t)L->nv * sizeof(double)); /* qacc0 */
    st = constrained_accel(d, L);
    if (st == MBS_ERR_SINGULAR && L->rank > 0) { /* rows dependent here: select again */
        st = select_all(d, L);
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
    int st = close_once(d, L, 0);
    if (st != MBS_OK) return st;
    if (fabs(s) == 1.0 && L->cond > MBS_LOOP_SMOOTH_COND) return 1;
    mbs_kinematics(d);
    return mbs_forces_accumulate(d);
}

/* acc_sm, lam_sm = the dynamics at the centre interpolated from the closed states at
   s = -2, -1, 1, 2 along c(s) = q (+) s tau v: weights (-1, 4, 4, -1) / 6 (4th order). */
static int smooth_sample(mbs_data *d, mbs_loops *L, double tau)
{
    static const double node[4] = {-2.0, -1.0, 1.0, 2.0};
    static const double w[4] = {-1.0 / 6.0, 4.0 / 6.0, 4.0 / 6.0, -1.0 / 6.0};
    memset(L->acc_sm, 0, (size_t)L->nv * sizeof(double));
    memset(L->lam_sm, 0, (size_t)L->m * sizeof(double));
    for (int k = 0; k < 4; ++k) {
        int st = smooth_node(d, L, node[k], tau);
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
    const double cond0 = L->cond;
    double vmax = 0.0;
    for (int i = 0; i < L->nv; ++i) vmax = fmax(vmax, fabs(d->v[i]));
    memcpy(L->qsm, d->q, (size_t)L->nq * sizeof(double));
    memcpy(L->vsm, d->v, (size_t)L->nv * sizeof(double));
    double tau = MBS_LOOP_SMOOTH_SHIFT / vmax;
    int st = 1;
    for (int k = 0; k < MBS_LOOP_SMOOTH_DOUBLINGS && st == 1; ++k, tau *= 2.0)
        st = smooth_sample(d, L, tau);
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
    L->cond = cond0;
    mark_closed(d, L, 0);
    return st2;
}

/* The direct dynamics, or at a closed near-singular state with v != 0 the smoothed one;
   qacc and lambda are kept as they were on failure. */
static int newton_forward(mbs_data *d)
{
    mbs_loops *L = d->loops;
    memcpy(L->qacc_bak, d->qacc, (size_t)L->nv * sizeof(double));
    memcpy(L->lam_bak, d->lambda, (size_t)L->m * sizeof(double));
    int moving = 0;
    for (int i = 0; i < L->nv; ++i) moving |= d->v[i] != 0.0;
    /* (not with prescribed motions: the shifted states would need shifted times) */
    const int smooth = L->selected && moving && !L->timed && mbs_loops_is_closed(d) &&
                       L->cond > L->cond_smooth;
    const int st = smooth ? forward_smoothed(d, L) : forward_direct(d, L);
    if (st != MBS_OK) {
        memcpy(d->qacc, L->qacc_bak, (size_t)L->nv * sizeof(double));
        memcpy(d->lambda, L->lam_bak, (size_t)L->m * sizeof(double));
    }
    return st;
}

/* MBS_ERR_INCONSISTENT when qacc violates J_a qacc + gam_a = 0 (relative 1e-6) on the
   first r active rows. */
static int check_accel(mbs_data *d, mbs_loops *L, const double *qacc, int r)
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
                             "acceleration constraint of cut joint %s (scaled residual %.3g)",
                             row_label(d, L, L->arow[i], buf, (int)sizeof buf), res);
    }
    return MBS_OK;
}

/* See loops.h: tau = tau_t - J_a^T (J_a J_a^T)^-1 J_a tau_t with tau_t = RNEA(qacc), over
   the kept cut-joint rows only (coordinate rows are not constraints of inverse dynamics: tau
   includes what a drive, a lock or a contact would supply). */
int mbs_loops_inverse(mbs_data *d, const double *qacc, double *tau)
{
    mbs_loops *L = d->loops;
    int st = L->selected ? MBS_OK : select_all(d, L);
    if (st != MBS_OK) return st;
    const int r = L->rank_cut;
    mbs_rnea(d, qacc, tau);
    if (r == 0) return MBS_OK;
    eval_rows_bias(d, L);
    st = check_accel(d, L, qacc, r);
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

/* ------------------------------------------------------------------ for the analyses */

/* See loops.h: the held columns get weight 0, so the pivoted QR takes them as dependent
   only when nothing else can close the loops (then R_rr = 0: MBS_ERR_SINGULAR). */
int mbs_loops_partition_holding(mbs_data *d, const unsigned char *hold)
{
    mbs_loops *L = d->loops;
    int st = L->selected ? MBS_OK : select_all(d, L);
    if (st != MBS_OK) return st;
    mbs_kinematics(d);
    eval_jacobian(d, L, L->arow, L->rank);
    for (int k = 0; k < L->nv; ++k) {
        L->y[k] = L->weight[k];
        if (hold && hold[k]) L->weight[k] = 0.0;
    }
    st = partition(d, L);
    for (int k = 0; k < L->nv; ++k) L->weight[k] = L->y[k];
    if (st == MBS_OK) st = factor_jv(d, L);
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
    const int st = jac_factor(d, L);
    if (st != MBS_OK) return st;
    for (int i = 0; i < L->rank; ++i) L->x[i] = g[L->dep[i]];
    jv_solve(L, 1, L->x);
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
    const int st = L->selected ? MBS_OK : select_all(d, L);
    if (st != MBS_OK) return st;
    *rank = L->rank_cut; /* cut-joint rows come first among the active rows */
    *J = L->J;
    if (L->rank_cut == 0) return MBS_OK;
    eval_rows_bias(d, L);
    return check_accel(d, L, qacc, L->rank_cut);
}

/* ------------------------------------------------------------------ strategies */

/* See loops.h: the analytic strategy (closure.h) first; Newton for what it defers, after
   which it may take over again at the closed state. */
int mbs_loops_close(mbs_data *d, int flags)
{
    const int st = mbs_closure_close(d, flags);
    if (st != MBS_CLOSURE_DEFER) return st;
    const int sn = newton_close(d, flags);
    if (sn == MBS_OK) mbs_closure_newton_closed(d, flags);
    return sn;
}

/* See loops.h. */
int mbs_loops_assemble(mbs_data *d)
{
    const int st = mbs_closure_assemble(d);
    if (st != MBS_CLOSURE_DEFER) return st;
    const int sn = newton_assemble(d);
    if (sn == MBS_OK) mbs_closure_newton_closed(d, MBS_CLOSE_REPARTITION);
    return sn;
}

/* See loops.h. */
int mbs_loops_forward(mbs_data *d)
{
    const int st = mbs_closure_forward(d);
    return st != MBS_CLOSURE_DEFER ? st : newton_forward(d);
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
    return L->selected ? MBS_OK : select_all(d, L);
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

/* See loops.h: dep and ind ascending, as partition() leaves them. */
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
    const int st = jac_factor(d, L);
    if (st != MBS_OK) {
        memcpy(L->dep, L->dep_bak, (size_t)L->nv * sizeof(int));
        memcpy(L->ind, L->ind_bak, (size_t)L->nv * sizeof(int));
        L->lu_ok = 0;
        return st;
    }
    L->cond_retry = MBS_LOOP_REPARTITION_RATIO * fmax(L->cond, 1.0);
    L->cond_smooth = MBS_LOOP_SMOOTH_COND;
    return MBS_OK;
}

/* See loops.h. */
int mbs_loops_repartition(mbs_data *d)
{
    mbs_loops *L = d->loops;
    if (!L->selected) return select_all(d, L);
    mbs_kinematics(d);
    eval_jacobian(d, L, L->arow, L->rank);
    const int st = partition(d, L);
    if (st != MBS_OK) return st;
    L->nevents++;
    L->cond_retry = 0.0;
    L->cond_smooth = MBS_LOOP_SMOOTH_COND;
    return MBS_OK;
}

/* See loops.h. */
void mbs_loops_mark_closed(mbs_data *d) { mark_closed(d, d->loops, 0); }

/* See loops.h. */
void mbs_loops_note_event(mbs_data *d) { d->loops->nevents++; }

/* ------------------------------------------------------------------ snapshot */

/* What a failed step puts back (loops.h, mbs_loops_snap_*): the part of mbs_loops that
   carries over from one call to the next and so decides the arithmetic of the next step.
   Everything else in mbs_loops is scratch that each call writes before it reads it, or a
   cache of a function of the closed q (J_a at qcl, jac_closed) that restore marks stale, so
   that it is computed again, to the same bits, from the same q. */
struct mbs_loops_snap {
    /* the row selection: which rows are kept (multipliers, closure, dropped-row check) */
    int selected, rank, rank_cut, ncand;
    unsigned char *active;   /* [m] */
    int *arow, *drow;        /* [m] */
    /* the partition: which coordinates Newton moves and the projection solves for */
    int *dep, *ind;          /* [nv] */
    /* the conditioning history: Newton's tolerance (newton_tol), the next repartition
       (cond_retry), smoothing (cond_smooth), chord steps and the exact projection (cond) */
    double cond, cond_retry, cond_smooth;
    /* the LU of J_v that Newton's first (chord) steps reuse from the last closure */
    int lu_ok;
    double *LU;              /* [rank rank], saved only when lu_ok */
    int *ipiv;               /* [rank] */
    /* the last closed state: whether the next call closes again (mbs_loops_is_closed) */
    int closed_valid;
    double tcl, *qcl, *vcl;  /* [nq], [nv] */
    /* selections and partitions made: the steppers restart CVODE when it moves */
    long nevents;
    mbs_closure_snap *closure; /* the analytic strategy's own (closure.h) */
};

/* See loops.h. */
void mbs_loops_snap_free(mbs_loops_snap *s)
{
    if (!s) return;
    void *p[] = {s->active, s->arow, s->drow, s->dep, s->ind, s->LU, s->ipiv, s->qcl, s->vcl};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    mbs_closure_snap_free(s->closure);
    free(s);
}

/* See loops.h. */
int mbs_loops_snap_create(const mbs_data *d, mbs_loops_snap **out)
{
    const mbs_loops *L = d->loops;
    *out = NULL;
    if (!L) return MBS_OK;
    mbs_loops_snap *s = calloc(1, sizeof *s);
    if (!s) return MBS_ERR_NOMEM;
    const size_t m1 = (size_t)L->m + 1, nv1 = (size_t)L->nv + 1, mn1 = (size_t)L->mn + 1;
    s->active = calloc(m1, 1);
    s->arow = calloc(m1, sizeof(int));
    s->drow = calloc(m1, sizeof(int));
    s->dep = calloc(nv1, sizeof(int));
    s->ind = calloc(nv1, sizeof(int));
    s->LU = calloc(mn1 * mn1, sizeof(double));
    s->ipiv = calloc(mn1, sizeof(int));
    s->qcl = calloc((size_t)L->nq + 1, sizeof(double));
    s->vcl = calloc(nv1, sizeof(double));
    int ok = s->active && s->arow && s->drow && s->dep && s->ind && s->LU && s->ipiv && s->qcl &&
             s->vcl && mbs_closure_snap_create(d, &s->closure) == MBS_OK;
    if (!ok) {
        mbs_loops_snap_free(s);
        return MBS_ERR_NOMEM;
    }
    *out = s;
    return MBS_OK;
}

/* Copy the selection and partition of src into dst (either a mbs_loops or a snapshot:
   same field names); a macro so that both directions are one piece of code. */
#define SNAP_COPY(dst, src, L)                                                                  \
    do {                                                                                       \
        (dst)->selected = (src)->selected, (dst)->rank = (src)->rank;                          \
        (dst)->rank_cut = (src)->rank_cut, (dst)->ncand = (src)->ncand;                        \
        memcpy((dst)->active, (src)->active, (size_t)(L)->m);                                  \
        memcpy((dst)->arow, (src)->arow, (size_t)(L)->m * sizeof(int));                        \
        memcpy((dst)->drow, (src)->drow, (size_t)(L)->m * sizeof(int));                        \
        memcpy((dst)->dep, (src)->dep, (size_t)(L)->nv * sizeof(int));                         \
        memcpy((dst)->ind, (src)->ind, (size_t)(L)->nv * sizeof(int));                         \
        (dst)->cond = (src)->cond, (dst)->cond_retry = (src)->cond_retry;                      \
        (dst)->cond_smooth = (src)->cond_smooth, (dst)->lu_ok = (src)->lu_ok;                  \
        if ((src)->lu_ok) {                                                                    \
            memcpy((dst)->LU, (src)->LU, (size_t)(src)->rank * (size_t)(src)->rank *           \
                                             sizeof(double));                                  \
            memcpy((dst)->ipiv, (src)->ipiv, (size_t)(src)->rank * sizeof(int));               \
        }                                                                                      \
        (dst)->closed_valid = (src)->closed_valid, (dst)->tcl = (src)->tcl;                    \
        memcpy((dst)->qcl, (src)->qcl, (size_t)(L)->nq * sizeof(double));                      \
        memcpy((dst)->vcl, (src)->vcl, (size_t)(L)->nv * sizeof(double));                      \
        (dst)->nevents = (src)->nevents;                                                       \
    } while (0)

/* See loops.h. */
void mbs_loops_snap_save(const mbs_data *d, mbs_loops_snap *s)
{
    const mbs_loops *L = d->loops;
    if (!L || !s) return;
    SNAP_COPY(s, L, L);
    mbs_closure_snap_save(d, s->closure);
}

/* See loops.h: the caches of the closed state (J_a, the LU made at q) are stale now. */
void mbs_loops_snap_restore(mbs_data *d, const mbs_loops_snap *s)
{
    mbs_loops *L = d->loops;
    if (!L || !s) return;
    SNAP_COPY(L, s, L);
    L->jac_closed = 0;
    L->lu_here = 0;
    mbs_closure_snap_restore(d, s->closure);
}
