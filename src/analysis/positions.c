/* Position solving / inverse kinematics (MSL's initial equations on a frame, e.g. its
 * DoublePendulumInitTip): move the free coordinates so that body points reach world
 * positions and the loops close. The residual F stacks the loops' scaled rows h(q) (all of
 * them: redundant ones are consistent and cost nothing) and the target offsets p(q) - pos;
 * Levenberg-Marquardt in tangent coordinates (the damping mu max(diag J^T J) adapted by the
 * gain ratio, Nielsen's rule) with minimum-norm steps (dgelsy with a rank test on the normal
 * matrix), so rows that hold whatever q is and directions that no row sees are left alone
 * and each step is the smallest tangent displacement (rad and m) that the model allows: the
 * solution reached is near the start. The normal matrix
 * J^T J is accumulated row by row: the workspace does not depend on the number of targets.
 * A stationary point with F != 0 (the nearest the targets can get) is MBS_ERR_INCONSISTENT
 * naming the worst target or cut joint. Finally the loops are closed by Newton holding the
 * fixed coordinates, and v projected. */
#include "ustates/ustates.h"
#include "analysis/analysis.h"
#include "loops/analytic/closure.h"

#include <math.h>
#include <stdio.h>

#include "core/linalg.h"
#include "loops/user_rows.h"
#include "loops/loops.h"

#define POS_MAXIT 100     /* iterations */
#define POS_TOL 1e-12     /* target offsets below POS_TOL (1 + |pos|) m and scaled loop
                             residuals below POS_TOL: solved */
#define POS_RCOND 1e-12   /* rank tolerance of the normal matrix */
#define POS_MU0 1e-6      /* first damping, relative to the largest diagonal of J^T J */
#define POS_MU_MAX 1e12   /* damping at which no step reduces |F| any more: stationary */
#define POS_STATIONARY 1e-11 /* |J^T F| below this times |J| |F|: a stationary point */

/* The problem: targets, the free coordinates and the iteration's merit. */
typedef struct pos_state {
    const mbs_position_target *t;
    int n;          /* targets */
    int nf;         /* free coordinates (not held) */
    const int *f;   /* their v indices */
    double phi;     /* |F|^2 / 2 at the data's q */
    double worst;   /* largest offset relative to its tolerance (> 1: not solved) */
    int worst_row;  /* where: target 3 i + axis, or -(loop row + 1) */
    double worst_t; /* the same over the target rows only */
    int worst_trow; /* where: target 3 i + axis */
    double jnorm;   /* Frobenius norm of J (free columns) */
} pos_state;

/* One residual row F_r = res with its Jacobian row j (nv): into phi, H = J^T J and
   g = J^T F (free columns); tracks the worst row relative to tol. */
static void add_row(mbs_analysis *a, pos_state *p, double res, const double *j, double tol,
                    int row, int want_jac)
{
    p->phi += 0.5 * res * res;
    if (fabs(res) / tol > p->worst || isnan(res)) p->worst = fabs(res) / tol, p->worst_row = row;
    if (row >= 0 && (fabs(res) / tol > p->worst_t || isnan(res)))
        p->worst_t = fabs(res) / tol, p->worst_trow = row;
    if (!want_jac) return;
    const int nf = p->nf;
    for (int b = 0; b < nf; ++b) {
        const double jb = j[p->f[b]];
        if (jb == 0.0) continue;
        a->g[b] += jb * res;
        p->jnorm += jb * jb;
        for (int c = 0; c <= b; ++c) a->A[(size_t)nf * c + b] += jb * j[p->f[c]];
    }
}

/* F, and with want_jac H (lower triangle, a->A) and g (a->g), at the data's q. */
static void evaluate(mbs_data *d, pos_state *p, int want_jac)
{
    mbs_analysis *a = d->analysis;
    const int nv = a->nv, nf = p->nf;
    mbs_kinematics_subspace(d);
    p->phi = 0.0, p->worst = 0.0, p->worst_row = 0, p->jnorm = 0.0;
    p->worst_t = 0.0, p->worst_trow = 0;
    if (want_jac) {
        memset(a->A, 0, (size_t)nf * (size_t)nf * sizeof(double));
        memset(a->g, 0, (size_t)nf * sizeof(double));
    }
    if (a->m > 0) {
        mbs_loops_rows(d, a->h, a->QJ);
        for (int r = 0; r < a->m; ++r)
            add_row(a, p, a->h[r], a->QJ + (size_t)nv * (size_t)r, POS_TOL, -(r + 1), want_jac);
    }
    for (int i = 0; i < p->n; ++i) {
        const mbs_position_target *t = &p->t[i];
        double x[3];
        pose_apply(x, &d->x_world[t->body], t->point);
        if (want_jac) mbs_point_jacobian_world(d, t->body, x, a->J6);
        const double tol = POS_TOL * (1.0 + mbs_analysis_maxabs(t->pos, 3, NULL));
        for (int e = 0; e < 3; ++e)
            add_row(a, p, x[e] - t->pos[e], a->J6 + (size_t)nv * (size_t)(3 + e), tol, 3 * i + e,
                    want_jac);
    }
    p->jnorm = sqrt(p->jnorm);
}

/* LM step (a->step, nf) = -(H + mu max(diag H) I)^+ g (minimum-norm with a rank test): the
   smallest tangent displacement (Euclidean, rad and m) that the linear model allows. */
static int lm_step(mbs_data *d, const pos_state *p, double mu)
{
    mbs_analysis *a = d->analysis;
    const int nf = p->nf;
    double hmax = 0.0;
    for (int b = 0; b < nf; ++b) hmax = fmax(hmax, a->A[(size_t)nf * b + b]);
    for (int c = 0; c < nf; ++c) /* B = H + mu hmax I, full (from the lower triangle) */
        for (int b = 0; b < nf; ++b) {
            const double h = b >= c ? a->A[(size_t)nf * c + b] : a->A[(size_t)nf * b + c];
            a->B[(size_t)nf * c + b] = h + (b == c ? mu * hmax : 0.0);
        }
    for (int b = 0; b < nf; ++b) a->step[b] = -a->g[b];
    memset(a->jpvt, 0, (size_t)nf * sizeof(int));
    int rank = 0;
    const int info = mbs_linalg_lstsq(nf, nf, 1, a->B, nf, a->step, nf, a->jpvt, POS_RCOND,
                                      &rank, a->work, a->lwork);
    if (info != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "solve_positions: least squares failed "
                             "(LAPACK info %d)", info);
    return MBS_OK;
}

/* Decrease of |F|^2 / 2 that the linear model predicts for the step: -s.g - s.H s / 2. */
static double predicted(const mbs_analysis *a, const pos_state *p)
{
    const int nf = p->nf;
    double sg = 0.0, sHs = 0.0;
    for (int b = 0; b < nf; ++b) {
        sg += a->step[b] * a->g[b];
        for (int c = 0; c < nf; ++c) {
            const double h = b >= c ? a->A[(size_t)nf * c + b] : a->A[(size_t)nf * b + c];
            sHs += a->step[b] * h * a->step[c];
        }
    }
    return -sg - 0.5 * sHs;
}

/* MBS_ERR_INCONSISTENT at the stationary point: the worst target that stays off (and the
   loop, when one stays open too), or the loop alone. */
static int unreachable(mbs_data *d, const pos_state *p)
{
    const mbs_model *m = d->model;
    char buf[96], loop[192] = "";
    if (p->worst_row < 0)
        snprintf(loop, sizeof loop, "the loop of %s stays open",
                 mbs_con_row_owner(m, -p->worst_row - 1, buf, (int)sizeof buf));
    if (p->worst_t <= 1.0)
        return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "solve_positions: %s: it cannot close "
                             "with the targets and the held coordinates", loop);
    const mbs_position_target *t = &p->t[p->worst_trow / 3];
    double x[3], off = 0.0;
    pose_apply(x, &d->x_world[t->body], t->point);
    for (int e = 0; e < 3; ++e) off += (x[e] - t->pos[e]) * (x[e] - t->pos[e]);
    return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "solve_positions: target %d (body %s) cannot "
                         "be reached: the nearest configuration the iteration finds leaves its "
                         "point %.6g m away%s%s (out of reach, or held coordinates, loops or "
                         "other targets in the way)", p->worst_trow / 3,
                         mbs_body_label(m, t->body, buf, (int)sizeof buf), sqrt(off),
                         loop[0] ? " and " : "", loop);
}

/* Try the step: q_t = q (+) step; accepted (1) when |F| decreases, then mu shrinks
   (Nielsen); rejected (0) restores q and grows mu. */
static int try_step(mbs_data *d, pos_state *p, double *mu, double *nu)
{
    mbs_analysis *a = d->analysis;
    const double phi0 = p->phi, pred = predicted(a, p);
    memcpy(a->qb, d->q, (size_t)a->nq * sizeof(double));
    memset(a->dv, 0, (size_t)a->nv * sizeof(double));
    for (int b = 0; b < p->nf; ++b) a->dv[p->f[b]] = a->step[b];
    mbs_analysis_move(d->model, a->qb, a->dv, 1.0, d->q);
    pos_state trial = *p;
    evaluate(d, &trial, 0);
    const double rho = pred > 0.0 ? (phi0 - trial.phi) / pred : -1.0;
    if (rho > 0.0 && isfinite(trial.phi)) {
        const double c = 2.0 * rho - 1.0;
        *mu *= fmax(1.0 / 3.0, 1.0 - c * c * c);
        *nu = 2.0;
        return 1;
    }
    memcpy(d->q, a->qb, (size_t)a->nq * sizeof(double));
    *mu *= *nu;
    *nu *= 2.0;
    return 0;
}

/* The iteration: MBS_OK when every row is within its tolerance. */
static int iterate(mbs_data *d, pos_state *p)
{
    mbs_analysis *a = d->analysis;
    double mu = POS_MU0, nu = 2.0;
    for (int it = 0; it < POS_MAXIT; ++it) {
        evaluate(d, p, 1);
        if (!isfinite(p->phi))
            return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "solve_positions: the residual is not "
                                 "finite");
        if (p->worst <= 1.0) return MBS_OK;
        const double gnorm = sqrt(2.0 * p->phi) * p->jnorm;
        double gn = 0.0;
        for (int b = 0; b < p->nf; ++b) gn = fmax(gn, fabs(a->g[b]));
        if (gn <= POS_STATIONARY * gnorm) return unreachable(d, p);
        int accepted = 0;
        while (!accepted && mu <= POS_MU_MAX) {
            const int st = lm_step(d, p, mu);
            if (st != MBS_OK) return st;
            accepted = try_step(d, p, &mu, &nu);
        }
        if (!accepted) {
            evaluate(d, p, 0);
            return unreachable(d, p);
        }
    }
    evaluate(d, p, 0);
    if (p->worst <= 1.0) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_CONVERGENCE, "solve_positions: not solved in %d iterations "
                         "(largest offset %.3g times its tolerance)", POS_MAXIT, p->worst);
}

/* Targets: bodies that move, finite points and positions. */
static int check_targets(mbs_data *d, const mbs_position_target *t, int n)
{
    if (n < 0 || (n > 0 && !t))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "solve_positions: %s", n < 0 ? "n < 0" : "NULL targets");
    for (int i = 0; i < n; ++i) {
        if (t[i].body < 1 || t[i].body >= d->model->nbody)
            return MBS_DATA_FAIL(d, MBS_ERR_ARG, "solve_positions: targets[%d].body = %d is not "
                                 "a moving body (1..%d)", i, t[i].body, d->model->nbody - 1);
        if (!mbs_all_bounded(t[i].point, 3) || !mbs_all_bounded(t[i].pos, 3))
            return MBS_DATA_FAIL(d, MBS_ERR_ARG, "solve_positions: targets[%d]: point or pos "
                                 "is not finite", i);
    }
    return MBS_OK;
}

/* The iteration, then (loops) Newton holding the fixed coordinates and v projected. */
static int solve(mbs_data *d, const mbs_position_target *t, int n)
{
    mbs_analysis *a = d->analysis;
    pos_state p = {.t = t, .n = n, .f = a->idx};
    p.nf = 0;
    for (int k = 0; k < a->nv; ++k)
        if (!a->hold[k]) a->idx[p.nf++] = k;
    int st = p.nf > 0 ? iterate(d, &p) : MBS_OK;
    if (st == MBS_OK && p.nf == 0) {
        evaluate(d, &p, 0);
        if (p.worst > 1.0) st = unreachable(d, &p);
    }
    if (st == MBS_OK && a->m > 0) st = mbs_analysis_hold_partition(d, "solve_positions");
    if (st == MBS_OK && a->m > 0) st = mbs_loops_close(d, 0);
    return st;
}

int mbs_solve_positions(mbs_data *d, const mbs_position_target *targets, int n,
                        const unsigned char *fixed)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_solve_positions");
    if (nested != MBS_OK) return nested;
    int st = mbs_uc_refuse_velocity(d, "solve_positions");
    if (st == MBS_OK) st = check_targets(d, targets, n);
    if (st == MBS_OK) st = mbs_check_state(d, 1, 0);
    if (st == MBS_OK) st = mbs_analysis_check_mask(d, "solve_positions", fixed);
    if (st != MBS_OK) return st;
#if !MBS_HAVE_LAPACK
    return MBS_DATA_FAIL(d, MBS_ERR_STATE, "solve_positions: needs LAPACK (this build was "
                         "configured with -Dlapack=disabled)");
#endif
    mbs_analysis_save(d);
    mbs_closure_suspend(d, 1); /* Newton's partition serves the held coordinates */
    st = solve(d, targets, n);
    if (st == MBS_OK && !mbs_all_finite(d->q, d->model->nq))
        st = MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "solve_positions: q is not finite");
    mbs_closure_suspend(d, 0);
    if (st != MBS_OK) {
        mbs_analysis_restore(d); /* q, v and the loop solver's state as they were */
        return st;
    }
    return mbs_analysis_usual_partition(d);
}
