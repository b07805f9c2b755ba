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
 * every coordinate independent, and so does a model with user states (mbs.h "user state
 * equations"): x = (du, du', x_user), the user states perturbed like the rates and their
 * derivatives (which the forward dynamics evaluates with the forces) giving the last rows. */
#include "ustates/ustates.h"
#include "derivatives/derivs.h"
#include "loops/analytic/closure.h"
#include "events/events.h"
#include "loops/user_rows.h"
#include "loops/loops.h"

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
    int n;          /* 2 nd + nux */
} loop_lin;

/* The kinds of columns of A: a tangent coordinate, a rate, a user state. */
enum { COL_Q, COL_RATE, COL_USER };

/* The forward dynamics at the data's state: the independent accelerations then the user
   states' derivatives (evaluated with the forces) into acc (nd + nux). */
static int dynamics_rows(mbs_data *d, const loop_lin *L, double *acc)
{
    const int st = mbs_forward_dynamics(d);
    if (st != MBS_OK) return st;
    for (int r = 0; r < L->nd; ++r) acc[r] = d->qacc[L->ind[r]];
    for (int k = 0; k < d->model->nux; ++k) acc[L->nd + k] = d->uxdot[k];
    return MBS_OK;
}

/* Independent accelerations then the user states' derivatives at q = q0 (+) dq,
   v = v0 + dv closed (Newton holding u, v projected) into acc (nd + nux); the closed tangent
   offset into off (nullable). */
static int reduced_accel(mbs_data *d, const loop_lin *L, const double *dq, const double *dv,
                         double *acc, double *off)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    int st = mbs_integrate_q(m, w->q0, dq, 1.0, d->q);
    for (int i = 0; i < m->nv; ++i) d->v[i] = w->v0[i] + dv[i];
    if (st == MBS_OK && d->loops) st = mbs_loops_close(d, MBS_CLOSE_CHECK);
    if (st == MBS_OK) st = dynamics_rows(d, L, acc);
    if (st != MBS_OK) return st;
    return off ? mbs_difference_q(m, w->q0, d->q, off) : MBS_OK;
}

/* The step of column c of the given kind: 1e-5 in u, 1e-5 max(1, |.|) in u' and x_user. */
static double column_step(const mbs_data *d, const loop_lin *L, int c, int kind)
{
    if (kind == COL_Q) return LIN_STEP;
    const double x = kind == COL_RATE ? d->derivs->v0[L->ind[c]] : d->derivs->uxs[c];
    return LIN_STEP * fmax(1.0, fabs(x));
}

/* reduced_accel with column c of the given kind moved by s (a user state is put back bit
   for bit from the caller's copy afterwards). */
static int column_accel(mbs_data *d, const loop_lin *L, int c, int kind, double s, double *acc,
                        double *off)
{
    const int nv = d->model->nv;
    mbs_derivs *w = d->derivs;
    double *zero = w->tp, *e = w->dqt;
    for (int i = 0; i < nv; ++i) zero[i] = 0.0, e[i] = 0.0;
    if (kind == COL_USER) d->ux[c] = w->uxs[c] + s;
    else e[L->ind[c]] = s;
    const int st = reduced_accel(d, L, kind == COL_Q ? e : zero, kind == COL_RATE ? e : zero,
                                 acc, kind == COL_Q ? off : NULL);
    if (kind == COL_USER) d->ux[c] = w->uxs[c];
    return st;
}

/* The top rows of a u column: (T dq/du_c) at u, the closure's tangent offsets giving
   dq/du_c (into e). */
static void chart_rows(mbs_data *d, const loop_lin *L, double *A, int c, double h)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    double *e = w->dqt;
    for (int i = 0; i < m->nv; ++i) e[i] = (w->offp[i] - w->offm[i]) / (2.0 * h); /* dq/du_c */
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        if (!jm->ops->chart_rate) continue;
        jm->ops->chart_rate(jm, w->v0 + jm->vadr, w->T);
        for (int r = 0; r < L->nd; ++r) {
            const int i = L->ind[r] - jm->vadr;
            if (i < 0 || i >= jm->nv) continue;
            double x = 0.0;
            for (int k = 0; k < jm->nv; ++k) x += w->T[jm->nv * i + k] * e[jm->vadr + k];
            A[(size_t)r * (size_t)L->n + (size_t)c] = x;
        }
    }
}

/* The check of a loop column against the same differences at half the step. Near a singular
   position of the loops (A02 1e-3 rad from flat: J_v condition 1e3) the closed accelerations
   carry a rounding error of about cond(J_v)^3 eps, which the difference divides by the step:
   the eigenvalues were 4 % off there and meaningless closer. A smooth column changes by
   O(h^2) between h and h/2, rounding by its own size; more than LIN_AGREE of the column's
   size (plus LIN_FLOOR of the accelerations') is refused: MBS_ERR_SINGULAR. */
#define LIN_AGREE 1e-3
#define LIN_FLOOR 1e-6
static int column_agrees(mbs_data *d, const loop_lin *L, const double *A, int c, int kind,
                         int col, double h)
{
    const int nd = L->nd, n = L->n, na = n - nd;
    mbs_derivs *w = d->derivs;
    int st = column_accel(d, L, c, kind, 0.5 * h, w->up, w->offp);
    if (st == MBS_OK) st = column_accel(d, L, c, kind, -0.5 * h, w->um, w->offm);
    if (st != MBS_OK) return st;
    double dmax = 0.0, big = 0.0, amax = 0.0;
    for (int r = 0; r < na; ++r) {
        const double a = A[(size_t)(nd + r) * (size_t)n + (size_t)col], b = (w->up[r] - w->um[r]) / h;
        dmax = fmax(dmax, fabs(a - b));
        big = fmax(big, fmax(fabs(a), fabs(b)));
        amax = fmax(amax, fmax(fabs(w->up[r]), fabs(w->um[r])));
    }
    if (dmax <= LIN_AGREE * big + LIN_FLOOR * (1.0 + amax)) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "linearize: the loops are near a singular "
                         "position: the central differences of column %d disagree by %.3g "
                         "(of %.3g) between steps %g and %g, the closed accelerations there "
                         "being known only to the rounding over the distance to it; "
                         "linearise farther from it", col, dmax, big, h, 0.5 * h);
}

/* Column c (of the given kind) of A from central differences along u_c, u'_c or x_user_c:
   the bottom rows (accelerations, then user derivatives) and the top rows (the chart rates
   along u, the identity along u', zero along x_user); checked at half the step. */
static int loop_column(mbs_data *d, const loop_lin *L, double *A, int c, int kind)
{
    const int nd = L->nd, n = L->n, na = n - nd;
    mbs_derivs *w = d->derivs;
    const double h = column_step(d, L, c, kind);
    int st = column_accel(d, L, c, kind, h, w->up, w->offp);
    if (st == MBS_OK) st = column_accel(d, L, c, kind, -h, w->um, w->offm);
    if (st != MBS_OK) return st;
    const int col = kind == COL_Q ? c : kind == COL_RATE ? nd + c : 2 * nd + c;
    for (int r = 0; r < na; ++r)
        A[(size_t)(nd + r) * (size_t)n + (size_t)col] = (w->up[r] - w->um[r]) / (2.0 * h);
    for (int r = 0; r < nd; ++r) A[(size_t)r * (size_t)n + (size_t)col] = kind == COL_RATE && r == c;
    if (kind == COL_Q) chart_rows(d, L, A, c, h);
    return d->model->ncon > 0 ? column_agrees(d, L, A, c, kind, col, h) : MBS_OK;
}

/* B from differences in each tau_j of the accelerations (and user derivatives). Without
   user states qacc is linear in tau: a one-sided difference against the state's own
   accelerations is exact to rounding. A user function may read tau (and apply forces from
   it), so with user states central differences (step 1e-5 max(1, |tau_j|)). */
static int loop_input_columns(mbs_data *d, const loop_lin *L, double *B)
{
    const int nv = d->model->nv, nd = L->nd, na = L->n - nd, central = d->model->nux > 0;
    mbs_derivs *w = d->derivs;
    for (int i = 0; i < nd * nv; ++i) B[i] = 0.0;
    int st = central ? MBS_OK : dynamics_rows(d, L, w->um);
    for (int j = 0; j < nv && st == MBS_OK; ++j) {
        const double t0 = w->taus[j];
        const double h = central ? LIN_STEP * fmax(1.0, fabs(t0)) : 1.0 + fabs(t0);
        d->tau[j] = t0 + h;
        st = dynamics_rows(d, L, w->up);
        d->tau[j] = t0 - h;
        if (st == MBS_OK && central) st = dynamics_rows(d, L, w->um);
        d->tau[j] = t0;
        const double span = central ? 2.0 * h : h;
        for (int r = 0; st == MBS_OK && r < na; ++r)
            B[(size_t)(nd + r) * (size_t)nv + (size_t)j] = (w->up[r] - w->um[r]) / span;
    }
    return st;
}

/* Save (restore = 0) or restore the caller's q, v, tau, qacc, lambda and user states. */
static void loop_state(mbs_data *d, int restore)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    double *src[] = {d->q, d->v, d->tau, d->qacc, d->lambda, d->ux};
    double *dst[] = {w->qs, w->vs, w->taus, w->qacc_s, w->lam_s, w->uxs};
    const int len[] = {m->nq, m->nv, m->nv, m->nv, m->ncon + mbs_nqrow(m), m->nux};
    for (int k = 0; k < 6; ++k)
        for (int i = 0; i < len[k]; ++i) {
            if (restore) src[k][i] = dst[k][i];
            else dst[k][i] = src[k][i];
        }
}

/* A selection that dropped cut-joint rows at a singular position (A02 exactly flat: 40 of
   80 kept) gives the mechanism degrees of freedom it has only there (82 eigenvalues for a
   one-dof mechanism). Rows that are redundant everywhere (two coaxial hinges) stay dependent
   a step away; these do not: a fresh selection at the state moved by 10 steps along the
   first independent coordinate keeps more rows, and the call is refused (MBS_ERR_SINGULAR).
   The selection is left to be made again at the caller's state. */
static int check_rank_nearby(mbs_data *d, const loop_lin *L)
{
    char lab[96];
    const int r0 = mbs_loops_cut_rank(d, lab, (int)sizeof lab);
    if (r0 < 0 || L->nd == 0 || lab[0] == '\0') return MBS_OK; /* no cut row dropped */
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    const double h = 10.0 * LIN_STEP;
    for (int i = 0; i < m->nv; ++i) w->dqt[i] = i == L->ind[0] ? h : 0.0;
    int st = mbs_integrate_q(m, w->q0, w->dqt, 1.0, d->q);
    mbs_loops_deselect(d);
    if (st == MBS_OK) st = mbs_loops_select(d);
    char lab1[96];
    const int r1 = st == MBS_OK ? mbs_loops_cut_rank(d, lab1, (int)sizeof lab1) : r0;
    mbs_loops_deselect(d);
    if (r1 <= r0) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "linearize: the loops are at a singular "
                         "position: the rows of cut joint %s are dependent here (rank %d) but "
                         "not %g away (rank %d), so the selection gives the mechanism degrees of "
                         "freedom it has only here; linearise off that position", lab, r0, h, r1);
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
        L.n = 2 * L.nd + m->nux;
        for (int i = 0; i < m->nq; ++i) w->q0[i] = d->q[i];
        for (int i = 0; i < m->nv; ++i) w->v0[i] = d->v[i];
        st = MBS_OK;
        for (int c = 0; c < L.nd && st == MBS_OK; ++c) st = loop_column(d, &L, A, c, COL_Q);
        for (int c = 0; c < L.nd && st == MBS_OK; ++c) st = loop_column(d, &L, A, c, COL_RATE);
        for (int c = 0; c < m->nux && st == MBS_OK; ++c) st = loop_column(d, &L, A, c, COL_USER);
        if (st == MBS_OK && d->loops) st = check_rank_nearby(d, &L);
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
    int st = mbs_uc_refuse_velocity(d, "linearize");
    if (st == MBS_OK) st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK) return st;
    const mbs_model *m = d->model;
    const int analytic = m->ncon == 0 && mbs_nqrow(m) == 0 && m->ncrow == 0 && m->nnode == 0 &&
                         m->nux == 0;
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
    if (mbs_uc_refuse_velocity(d, "linearize_coordinates") != MBS_OK) return MBS_ERR_STATE;
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
