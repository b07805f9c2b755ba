/* Static equilibrium (ROBOTRAN's equilibrium module, Docquier, Poncelet, Fisette 2013,
 * §4.3.1): v = 0 and q such that the generalized forces g = tau - RNEA(q, v = 0, qacc = 0)
 * (gravity, force elements, host inputs, callbacks) do no work on any motion the loops and
 * the held coordinates allow. With loops the unknowns are the free independent coordinates u
 * of a partition that keeps the held ones independent (loops_select.c), q(u) by closure, and the
 * reduced forces are R = B^T g (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models" eq. 12, B = dq/du); the partition is made again at
 * every iterate (best conditioned there). A damped Newton iteration on
 * R(u) = 0: its Jacobian by central differences in tangent coordinates (reduced_jacobian, the
 * one place to swap in analytic derivatives), symmetrically equilibrated so that coordinates
 * of different units (m, rad) weigh alike, solved in the minimum-norm least-squares sense
 * with a rank test (dgelsy), the step at most 0.5 (rad or m) and halved until |R| decreases;
 * where that fails (a singular Jacobian, a local minimum of |R|) a step along the forces
 * themselves, accepted while they still do positive work at its end (downhill). Every iterate keeps the
 * loops closed; q and v are restored on failure. */
#include "ustates/ustates.h"
#include "loops/user_rows.h"
#include "analysis/analysis.h"
#include "loops/analytic/closure.h"

#include <math.h>

#include "core/linalg.h"
#include "loops/loops.h"

#define EQ_MAXIT 50      /* Newton iterations */
#define EQ_FD_STEP 1e-5  /* central-difference step in tangent coordinates (rad or m) */
#define EQ_STEP_TOL 1e-10 /* a full Newton step this small (max norm, rad or m): converged */
#define EQ_RCOND 1e-8    /* rank tolerance of the equilibrated Jacobian (above the noise of
                            its differences: closure 1e-12 over a step 1e-5) */
#define EQ_SMALL 1e-9    /* |R| below this times the force scale counts as zero */
#define EQ_HALVINGS 16   /* step halvings per iteration */
#define EQ_MAX_STEP 0.5  /* longest step (max norm, rad or m): the iteration stays local */

/* The free coordinates of the iteration: list (into idx) and count. */
typedef struct eq_state {
    int nu;        /* free independent dofs */
    const int *u;  /* their v indices */
    double fscale; /* largest |R| or |dR/du| entry seen: the scale of "zero" */
    int downhill;  /* 1 once Newton failed: only steps along which the forces work */
} eq_state;

/* R (nu) at the data's q with v = 0: g = tau - RNEA, reduced by the partition. */
static int reduced_forces(mbs_data *d, const eq_state *e, double *R)
{
    mbs_analysis *a = d->analysis;
    mbs_kinematics(d);
    int st = mbs_forces_accumulate(d);
    if (st != MBS_OK) return st;
    mbs_rnea(d, NULL, a->g);
    for (int k = 0; k < a->nv; ++k) a->g[k] = d->tau[k] - a->g[k];
    const double *g = a->g;
    if (a->m > 0) {
        st = mbs_loops_reduce(d, a->g, a->rt);
        if (st != MBS_OK) return st;
        g = a->rt;
    }
    for (int i = 0; i < e->nu; ++i) R[i] = g[e->u[i]];
    return mbs_all_finite(R, e->nu) ? MBS_OK
                                    : MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "equilibrium: the "
                                                    "generalized forces are not finite");
}

/* q = base (+) alpha step (step on the free dofs), loops closed holding the independent
   coordinates; a closure failure leaves q at the unclosed point. */
static int move_to(mbs_data *d, const eq_state *e, const double *base, const double *step,
                   double alpha)
{
    mbs_analysis *a = d->analysis;
    memset(a->dv, 0, (size_t)a->nv * sizeof(double));
    for (int i = 0; i < e->nu; ++i) a->dv[e->u[i]] = step[i];
    mbs_analysis_move(d->model, base, a->dv, alpha, d->q);
    return a->m > 0 ? mbs_loops_close(d, 0) : MBS_OK;
}

/* Column j of dR/du by central differences at base (EQ_FD_STEP); q ends at base. */
static int fd_column(mbs_data *d, eq_state *e, const double *base, int j, double *col)
{
    mbs_analysis *a = d->analysis;
    double *unit = a->s; /* nu, zero but entry j */
    memset(unit, 0, (size_t)e->nu * sizeof(double));
    unit[j] = 1.0;
    int st = move_to(d, e, base, unit, EQ_FD_STEP);
    if (st == MBS_OK) st = reduced_forces(d, e, col);
    if (st == MBS_OK) st = move_to(d, e, base, unit, -EQ_FD_STEP);
    if (st == MBS_OK) st = reduced_forces(d, e, a->r);
    for (int i = 0; i < e->nu && st == MBS_OK; ++i) col[i] = (col[i] - a->r[i]) / (2.0 * EQ_FD_STEP);
    memcpy(d->q, base, (size_t)a->nq * sizeof(double));
    return st;
}

/* A (nu x nu, column-major) = dR/du at base: the one place a later analytic derivative of
   RNEA replaces the differences. */
static int reduced_jacobian(mbs_data *d, eq_state *e, const double *base)
{
    mbs_analysis *a = d->analysis;
    for (int j = 0; j < e->nu; ++j) {
        const int st = fd_column(d, e, base, j, a->A + (size_t)e->nu * (size_t)j);
        if (st != MBS_OK) return st;
    }
    const double jmax = mbs_analysis_maxabs(a->A, e->nu * e->nu, NULL);
    e->fscale = fmax(e->fscale, jmax);
    return MBS_OK;
}

/* Symmetric equilibration s_i = 1 / sqrt(max(|row i|, |column i|)) of A into a->s; a row
   and column below EQ_RCOND of the largest entry (zero up to the differences' noise) is
   scaled like the largest, so that noise is never blown up into a direction. */
static void equilibrate(mbs_analysis *a, int n)
{
    const double amax = mbs_analysis_maxabs(a->A, n * n, NULL);
    for (int i = 0; i < n; ++i) {
        double big = 0.0;
        for (int k = 0; k < n; ++k)
            big = fmax(big, fmax(fabs(a->A[(size_t)n * k + i]), fabs(a->A[(size_t)n * i + k])));
        if (big < EQ_RCOND * amax) big = amax;
        a->s[i] = big > 0.0 ? 1.0 / sqrt(big) : 1.0;
    }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) a->A[(size_t)n * j + i] *= a->s[i] * a->s[j];
}

/* Newton step (nu, into a->step) = -A^+ R on the equilibrated system; its rank into *rank
   and the first dropped coordinate (position in u) into *dropped. */
static int newton_step(mbs_data *d, const eq_state *e, const double *R, int *rank, int *dropped)
{
    mbs_analysis *a = d->analysis;
    const int n = e->nu;
    equilibrate(a, n);
    for (int i = 0; i < n; ++i) a->step[i] = -a->s[i] * R[i];
    memset(a->jpvt, 0, (size_t)n * sizeof(int));
    const int info = mbs_linalg_lstsq(n, n, 1, a->A, n, a->step, n, a->jpvt, EQ_RCOND, rank,
                                      a->work, a->lwork);
    if (info != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "equilibrium: least squares failed (LAPACK "
                             "info %d)", info);
    for (int i = 0; i < n; ++i) a->step[i] *= a->s[i];
    const double big = mbs_analysis_maxabs(a->step, n, NULL); /* a local step: at most */
    for (int i = 0; big > EQ_MAX_STEP && i < n; ++i) a->step[i] *= EQ_MAX_STEP / big;
    /* dgelsy leaves jpvt as it was for a zero matrix: then the first coordinate */
    *dropped = *rank < n ? (a->jpvt[*rank] >= 1 ? a->jpvt[*rank] - 1 : 0) : -1;
    return MBS_OK;
}

/* Largest |x_i| over the free coordinates and the dof it sits on. */
static double worst(const eq_state *e, const double *x, int *dof)
{
    int i = 0;
    const double v = mbs_analysis_maxabs(x, e->nu, &i);
    *dof = e->nu > 0 ? e->u[i] : 0;
    return v;
}

/* Euclidean norm of n values. */
static double norm2(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    return sqrt(s);
}

/* MBS_ERR_CONVERGENCE: no equilibrium near the start; R where the iteration stopped. */
static int no_equilibrium(mbs_data *d, const eq_state *e, const double *R, int it, const char *why)
{
    char buf[96];
    int k = 0;
    const double r = worst(e, R, &k);
    mbs_analysis *a = d->analysis;
    mbs_difference_q(d->model, a->q0, d->q, a->dv);
    const double moved = mbs_analysis_maxabs(a->dv, a->nv, NULL);
    return MBS_DATA_FAIL(d, MBS_ERR_CONVERGENCE, "equilibrium: none found near the starting q "
                         "(%s after %d iterations, %.3g rad or m from the start): the "
                         "generalized force on v[%d] (joint %s) stays %.4g", why, it, moved, k,
                         mbs_joint_label(d->model, d->model->dof_joint[k], buf, (int)sizeof buf), r);
}

/* Dot product of n values. */
static double dot(const double *x, const double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * y[i];
    return s;
}

/* Halve the step until |R| decreases or (downhill: along the forces) the forces at the end of
   the step still point along it, so that they did positive work all the way; the accepted q
   is the data's, R updated. */
static int line_search(mbs_data *d, const eq_state *e, double *R, int downhill)
{
    mbs_analysis *a = d->analysis;
    const double r0 = norm2(R, e->nu);
    double alpha = 1.0;
    for (int k = 0; k < EQ_HALVINGS; ++k, alpha *= 0.5) {
        int st = move_to(d, e, a->qb, a->step, alpha);
        if (st == MBS_OK) st = reduced_forces(d, e, a->r);
        if (st == MBS_ERR_CALLBACK) return st;
        if (st != MBS_OK) continue;
        if (norm2(a->r, e->nu) < (1.0 - 1e-4 * alpha) * r0 ||
            (downhill && dot(a->r, a->step, e->nu) > 0.0)) {
            memcpy(R, a->r, (size_t)e->nu * sizeof(double));
            return MBS_OK;
        }
    }
    return MBS_ERR_CONVERGENCE;
}

/* a->step = the forces scaled by the equilibration (s_i^2 R_i: smaller steps on stiffer
   coordinates), at most EQ_MAX_STEP: where Newton cannot reduce |R| (a singular Jacobian
   away from equilibrium, as a pendulum released horizontally; a local minimum of |R| along
   the motion, as a four-bar whose force keeps its sign until past a turning point) the way
   the system itself would move, downhill in its potential. */
static void force_direction(mbs_analysis *a, const eq_state *e, const double *R)
{
    for (int i = 0; i < e->nu; ++i) a->step[i] = a->s[i] * a->s[i] * R[i];
    const double big = mbs_analysis_maxabs(a->step, e->nu, NULL);
    for (int i = 0; i < e->nu; ++i) a->step[i] = big > 0.0 ? EQ_MAX_STEP * a->step[i] / big : 0.0;
}

/* One Newton iteration from the data's q (closed, R known); 1 when converged. */
static int iterate(mbs_data *d, eq_state *e, double *R, int it)
{
    mbs_analysis *a = d->analysis;
    memcpy(a->qb, d->q, (size_t)a->nq * sizeof(double));
    e->fscale = fmax(e->fscale, mbs_analysis_maxabs(R, e->nu, NULL));
    int st = reduced_jacobian(d, e, a->qb);
    int rank = 0, dropped = -1;
    if (st == MBS_OK) st = newton_step(d, e, R, &rank, &dropped);
    if (st != MBS_OK) return st;
    const int small = mbs_analysis_maxabs(R, e->nu, NULL) <= EQ_SMALL * e->fscale;
    const int tiny = mbs_analysis_maxabs(a->step, e->nu, NULL) <= EQ_STEP_TOL;
    if (rank < e->nu && small && tiny) { /* converged where the Jacobian has full rank */
        char buf[96];
        const int k = e->u[dropped];
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "equilibrium: the equilibrium reached is not "
                             "isolated: the generalized forces do not change along v[%d] (joint "
                             "%s) and its neighbours (a singular Jacobian of the reduced forces); "
                             "hold such coordinates with fixed", k,
                             mbs_joint_label(d->model, d->model->dof_joint[k], buf, (int)sizeof buf));
    }
    if (rank == e->nu && tiny) {
        st = move_to(d, e, a->qb, a->step, 1.0);
        return st == MBS_OK ? 1 : st;
    }
    /* once Newton has failed, a Newton step against the forces would climb back to where it
       failed: from then on only steps downhill in the potential */
    st = e->downhill && dot(R, a->step, e->nu) < 0.0 ? MBS_ERR_CONVERGENCE
                                                     : line_search(d, e, R, 0);
    if (st == MBS_ERR_CONVERGENCE) { /* Newton cannot: a step along the forces themselves */
        e->downhill = 1;
        force_direction(d->analysis, e, R);
        st = line_search(d, e, R, 1);
    }
    if (st == MBS_ERR_CONVERGENCE)
        return no_equilibrium(d, e, R, it, rank < e->nu ? "the forces do not change along "
                              "some coordinates" : "no step reduces the forces");
    return st;
}

/* The free independent coordinates (not held) into idx; loops: a partition keeping the held
   ones independent and best conditioned at the data's q (loops_select.c), then the loops closed. */
static int free_coordinates(mbs_data *d, eq_state *e)
{
    mbs_analysis *a = d->analysis;
    const int *ind = NULL;
    int nind = a->nv, st = MBS_OK;
    if (a->m > 0) {
        st = mbs_analysis_hold_partition(d, "equilibrium");
        if (st == MBS_OK) st = mbs_loops_close(d, 0);
        if (st != MBS_OK) return st;
        nind = mbs_loops_independent(d, &ind);
    }
    e->nu = 0;
    for (int i = 0; i < nind; ++i) {
        const int k = ind ? ind[i] : i;
        if (!a->hold[k]) a->idx[e->nu++] = k;
    }
    e->u = a->idx;
    return MBS_OK;
}

/* The iteration from the data's q with v = 0. With loops every iteration starts from a new
   partition at its q, so that the independent coordinates never sit at a limit position of
   the loop (where q(u) cannot go on, as a four-bar driven by its rocker). */
static int solve(mbs_data *d)
{
    eq_state e = {.fscale = 0.0, .downhill = 0};
    int st = free_coordinates(d, &e);
    if (st != MBS_OK || e.nu == 0) return st;
    double *R = d->analysis->B; /* nu, kept across iterations */
    st = reduced_forces(d, &e, R);
    for (int it = 0; it < EQ_MAXIT && st == MBS_OK; ++it) {
        if (it > 0 && d->analysis->m > 0) {
            st = free_coordinates(d, &e);
            if (st == MBS_OK) st = reduced_forces(d, &e, R);
            if (st != MBS_OK) break;
        }
        st = iterate(d, &e, R, it);
    }
    if (st == MBS_OK) return no_equilibrium(d, &e, R, EQ_MAXIT, "iteration cap");
    return st == 1 ? MBS_OK : st;
}

int mbs_equilibrium(mbs_data *d, const unsigned char *fixed)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_equilibrium");
    if (nested != MBS_OK) return nested;
    int st = mbs_uc_refuse_velocity(d, "equilibrium");
    if (st == MBS_OK) st = mbs_check_state(d, 0, 1);
    if (st == MBS_OK) st = mbs_analysis_check_mask(d, "equilibrium", fixed);
    if (st != MBS_OK) return st;
#if !MBS_HAVE_LAPACK
    return MBS_DATA_FAIL(d, MBS_ERR_STATE, "equilibrium: needs LAPACK (this build was "
                         "configured with -Dlapack=disabled)");
#endif
    mbs_analysis_save(d);
    mbs_closure_suspend(d, 1); /* Newton's partition serves the held coordinates */
    memset(d->v, 0, (size_t)d->model->nv * sizeof(double));
    st = solve(d);
    if (st == MBS_OK && !mbs_all_finite(d->q, d->model->nq))
        st = MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "equilibrium: q is not finite");
    mbs_closure_suspend(d, 0);
    if (st != MBS_OK) {
        mbs_analysis_restore(d); /* q, v and the loop solver's state as they were */
        return st;
    }
    return mbs_analysis_usual_partition(d);
}
