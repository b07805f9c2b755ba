/* Linearisation dx/dt = A x + B dtau about the current state (docs/conventions.md, "State
 * space"). A tree uses the analytic derivatives of the forward dynamics:
 *     A = [T I; dqacc/dq dqacc/dv],  B = [0; M^-1],
 * T the chart rates of the quaternion joints (joint.h). With closed loops (or coordinate rows:
 * prescribed motions, friction locks, stop contacts) the reduced ODE in the independent
 * coordinates u of the current partition (Docquier, Poncelet, Fisette 2013, §2.2.1, eq. 16)
 * is differentiated by central differences of the loops' forward dynamics, closing the loops
 * holding u at every evaluation (Newton, bounded), about the state closed as mbs_assemble
 * would; q, v and tau are restored afterwards, qacc and lambda are those of the forward
 * dynamics at them. A tree with elements the analytic derivatives do not cover (inertial
 * couplings: rotors, point masses on lines; nodes) takes the same central differences with
 * every coordinate independent. */
#include "analysis/derivs.h"
#include "closure/closure.h"
#include "events/events.h"
#include "solvers/loops.h"

#define LIN_STEP 1e-5 /* tangent step in u; times max(1, |u'|) in u' */

/* Top block of a tree: T (chart rates at v) and the identity. */
static void tree_top(const mbs_data *d, double *A, int n)
{
    const mbs_model *m = d->model;
    const int nv = m->nv;
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < n; ++j) A[(size_t)i * (size_t)n + (size_t)j] = j == nv + i;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        if (!jm->ops->chart_rate) continue;
        double *T = d->derivs->T;
        jm->ops->chart_rate(jm, d->v + jm->vadr, T);
        for (int i = 0; i < jm->nv; ++i)
            for (int j = 0; j < jm->nv; ++j)
                A[(size_t)(jm->vadr + i) * (size_t)n + (size_t)(jm->vadr + j)] = T[jm->nv * i + j];
    }
}

/* A tree: the analytic derivatives straight into the bottom rows of A and B. */
static int tree_linearize(mbs_data *d, double *A, double *B, int *nx)
{
    const int nv = d->model->nv, n = 2 * nv;
    double *bottom = A + (size_t)nv * (size_t)n;
    const int st = mbs_derivs_forward(d, bottom, bottom + nv, n, B ? B + (size_t)nv * (size_t)nv : NULL,
                                      nv, "linearize");
    if (st != MBS_OK) return st;
    tree_top(d, A, n);
    if (B)
        for (int i = 0; i < nv * nv; ++i) B[i] = 0.0;
    *nx = n;
    return MBS_OK;
}

/* ------------------------------------------------------------------ closed loops */

/* The state of the loops' linearisation: the closed reference state in w->q0, w->v0. */
typedef struct loop_lin {
    const int *ind; /* independent dofs */
    int nd;         /* their number */
    int n;          /* 2 nd */
} loop_lin;

/* Independent accelerations at q = q0 (+) dq, v = v0 + dv closed (Newton holding u, v
   projected) into acc (nd); the closed tangent offset into off (nullable). */
static int reduced_accel(mbs_data *d, const loop_lin *L, const double *dq, const double *dv,
                         double *acc, double *off)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    int st = mbs_integrate_q(m, w->q0, dq, 1.0, d->q);
    for (int i = 0; i < m->nv; ++i) d->v[i] = w->v0[i] + dv[i];
    if (st == MBS_OK && d->loops) st = mbs_loops_close(d, 0);
    if (st == MBS_OK) st = mbs_forward_dynamics(d);
    if (st != MBS_OK) return st;
    for (int r = 0; r < L->nd; ++r) acc[r] = d->qacc[L->ind[r]];
    return off ? mbs_difference_q(m, w->q0, d->q, off) : MBS_OK;
}

/* Column c of A from central differences along u_c (the closure's tangent offsets give the
   chart rate term T dq of the top rows) or along u'_c. */
static int loop_column(mbs_data *d, const loop_lin *L, double *A, int c, int rate)
{
    const int nv = d->model->nv, nd = L->nd, n = L->n;
    mbs_derivs *w = d->derivs;
    double *zero = w->tp, *e = w->dqt;
    const double h = rate ? LIN_STEP * fmax(1.0, fabs(w->v0[L->ind[c]])) : LIN_STEP;
    for (int i = 0; i < nv; ++i) zero[i] = 0.0, e[i] = 0.0;
    e[L->ind[c]] = h;
    int st = reduced_accel(d, L, rate ? zero : e, rate ? e : zero, w->up, rate ? NULL : w->offp);
    for (int i = 0; i < nv; ++i) e[i] = -e[i];
    if (st == MBS_OK)
        st = reduced_accel(d, L, rate ? zero : e, rate ? e : zero, w->um, rate ? NULL : w->offm);
    if (st != MBS_OK) return st;
    const int col = rate ? nd + c : c;
    for (int r = 0; r < nd; ++r)
        A[(size_t)(nd + r) * (size_t)n + (size_t)col] = (w->up[r] - w->um[r]) / (2.0 * h);
    for (int r = 0; r < nd; ++r) A[(size_t)r * (size_t)n + (size_t)col] = rate ? r == c : 0.0;
    if (rate) return MBS_OK;
    for (int i = 0; i < nv; ++i) e[i] = (w->offp[i] - w->offm[i]) / (2.0 * h); /* dq/du_c */
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) { /* the top rows: (T dq/du_c) at u */
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        if (!jm->ops->chart_rate) continue;
        jm->ops->chart_rate(jm, w->v0 + jm->vadr, w->T);
        for (int r = 0; r < nd; ++r) {
            const int i = L->ind[r] - jm->vadr;
            if (i < 0 || i >= jm->nv) continue;
            double x = 0.0;
            for (int k = 0; k < jm->nv; ++k) x += w->T[jm->nv * i + k] * e[jm->vadr + k];
            A[(size_t)r * (size_t)n + (size_t)c] = x;
        }
    }
    return MBS_OK;
}

/* B from differences in each tau_j against the state's own accelerations: qacc is linear
   in tau, so a one-sided difference is exact to rounding. */
static int loop_input_columns(mbs_data *d, const loop_lin *L, double *B)
{
    const int nv = d->model->nv, nd = L->nd;
    mbs_derivs *w = d->derivs;
    for (int i = 0; i < nd * nv; ++i) B[i] = 0.0;
    int st = mbs_forward_dynamics(d);
    for (int r = 0; st == MBS_OK && r < nd; ++r) w->um[r] = d->qacc[L->ind[r]];
    for (int j = 0; j < nv && st == MBS_OK; ++j) {
        const double t0 = w->taus[j], h = 1.0 + fabs(t0);
        d->tau[j] = t0 + h;
        st = mbs_forward_dynamics(d);
        d->tau[j] = t0;
        for (int r = 0; st == MBS_OK && r < nd; ++r)
            B[(size_t)(nd + r) * (size_t)nv + (size_t)j] = (d->qacc[L->ind[r]] - w->um[r]) / h;
    }
    return st;
}

/* Save (restore = 0) or restore the caller's q, v, tau, qacc and lambda. */
static void loop_state(mbs_data *d, int restore)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    double *src[] = {d->q, d->v, d->tau, d->qacc, d->lambda};
    double *dst[] = {w->qs, w->vs, w->taus, w->qacc_s, w->lam_s};
    const int len[] = {m->nq, m->nv, m->nv, m->nv, m->ncon + mbs_nqrow(m)};
    for (int k = 0; k < 5; ++k)
        for (int i = 0; i < len[k]; ++i) {
            if (restore) src[k][i] = dst[k][i];
            else dst[k][i] = src[k][i];
        }
}

/* The loops (or, without them, a tree whose elements the analytic derivatives do not cover):
   close the state, then A column by column and B, all about the closed state. */
static int loops_linearize(mbs_data *d, double *A, double *B, int *nx)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    loop_state(d, 0);
    mbs_normalize_q(m, d->q);
    int st = d->loops ? mbs_loops_assemble(d) : MBS_OK;
    loop_lin L = {d->derivs->ident, m->nv, 0};
    if (st == MBS_OK && d->loops) st = L.nd = mbs_loops_independent(d, &L.ind);
    if (st >= 0) {
        L.n = 2 * L.nd;
        for (int i = 0; i < m->nq; ++i) w->q0[i] = d->q[i];
        for (int i = 0; i < m->nv; ++i) w->v0[i] = d->v[i];
        st = MBS_OK;
        for (int c = 0; c < L.nd && st == MBS_OK; ++c) st = loop_column(d, &L, A, c, 0);
        for (int c = 0; c < L.nd && st == MBS_OK; ++c) st = loop_column(d, &L, A, c, 1);
        if (st == MBS_OK && B) { /* tau perturbed about the closed state */
            for (int i = 0; i < m->nq; ++i) d->q[i] = w->q0[i];
            for (int i = 0; i < m->nv; ++i) d->v[i] = w->v0[i];
            st = loop_input_columns(d, &L, B);
        }
    }
    loop_state(d, 1);
    if (st == MBS_OK && !mbs_all_finite(A, L.n * L.n))
        st = MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "linearize: A is not finite");
    if (st == MBS_OK) st = mbs_forward_dynamics(d); /* qacc, lambda of the caller's state */
    if (st != MBS_OK) loop_state(d, 1);
    if (st == MBS_OK) *nx = L.n;
    return st;
}

int mbs_linearize(mbs_data *d, double *A, double *B, int *nx)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_linearize");
    if (nested != MBS_OK) return nested;
    if (!A || !nx) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "linearize: NULL A or nx");
    const int st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK) return st;
    const mbs_model *m = d->model;
    if (m->nux > 0) /* x = (dq, dv) would leave out the user states' own dynamics */
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "linearize: the model has %d user states, which "
                             "the state-space model (dq, dv) does not include", m->nux);
    const int analytic = m->ncon == 0 && mbs_nqrow(m) == 0 && m->ncrow == 0 && m->nnode == 0;
    if (analytic) return tree_linearize(d, A, B, nx);
    mbs_closure_suspend(d, 1); /* the independent coordinates of Newton's partition */
    const int sl = loops_linearize(d, A, B, nx);
    mbs_closure_suspend(d, 0);
    return sl;
}

int mbs_linearize_coordinates(mbs_data *d, unsigned char *independent, int *n)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_linearize_coordinates");
    if (nested != MBS_OK) return nested;
    if (!independent || !n)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "linearize_coordinates: NULL independent or n");
    const int nv = d->model->nv;
    if (!d->loops) {
        for (int i = 0; i < nv; ++i) independent[i] = 1;
        *n = nv;
        return MBS_OK;
    }
    int st = mbs_check_state(d, 0, 0);
    const int *ind = NULL;
    if (st == MBS_OK) st = mbs_loops_independent(d, &ind);
    if (st < 0) return st;
    for (int i = 0; i < nv; ++i) independent[i] = 0;
    for (int r = 0; r < st; ++r) independent[ind[r]] = 1;
    *n = st;
    return MBS_OK;
}
