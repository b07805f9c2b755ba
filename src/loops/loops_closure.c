/* Closing the loops by Newton's method on the dependent coordinates, velocity projection,
 * the dropped-row check and assembly (see loops.h). */
#include "loops/loops_internal.h"

/* ------------------------------------------------------------------ closure */

/* See loops_internal.h: max(max |U_ii|, largest entry of J_a) / min |U_ii|, relative to the
   rows, so that a J_v of one row (a distance joint's loop), whose own ratio is always 1,
   still tells when its dependent coordinate reaches a dead point (an independent crank at its
   limit position) and a better partition exists. */
double loops_jv_cond(mbs_loops *L, double *piv)
{
    const int r = L->rank, nv = L->nv;
    *piv = 1.0;
    if (r == 0) return 1.0;
    for (int k = 0; k < r; ++k)
        for (int i = 0; i < r; ++i)
            L->LU[i + (size_t)k * (size_t)r] = L->J[(size_t)i * (size_t)nv + (size_t)L->dep[k]];
    const int info = mbs_dense_lu(r, L->LU, L->ipiv);
    double umax = 0.0, umin = INFINITY, jmax = 0.0;
    for (size_t i = 0; i < (size_t)r * (size_t)nv; ++i) jmax = fmax(jmax, fabs(L->J[i]));
    for (int i = 0; i < r; ++i) {
        const double u = fabs(L->LU[i + (size_t)i * (size_t)r]);
        umax = u > umax ? u : umax;
        umin = u < umin ? u : umin;
    }
    if (info != 0 || !(umin > 0.0) || !isfinite(umax) || !isfinite(jmax)) return *piv = INFINITY;
    *piv = umax / umin;
    return fmax(umax, jmax) / umin;
}

/* LU of J_v (active rows x dependent columns of L->J) and its condition estimate
   (loops_jv_cond); MBS_ERR_SINGULAR on a zero pivot. */
int loops_factor_jv(mbs_data *d, mbs_loops *L)
{
    d->work_count.factor++;
    L->cond_sel = loops_jv_cond(L, &L->cond);
    L->lu_ok = L->lu_here = isfinite(L->cond_sel);
    if (L->lu_ok) return MBS_OK;
    char buf[96];
    int info = 0;
    while (info < L->rank && fabs(L->LU[info + (size_t)info * (size_t)L->rank]) > 0.0) ++info;
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "loops: singular configuration: J_v of the "
                         "partition is singular (%s)",
                         loops_row_label(d, L, L->arow[info < L->rank ? info : 0], buf, (int)sizeof buf));
}

/* Active Jacobian rows and the LU of J_v at the current kinematics. */
int loops_jac_factor(mbs_data *d, mbs_loops *L)
{
    loops_eval_jacobian(d, L, L->arow, L->rank);
    return loops_factor_jv(d, L);
}

/* x = J_v^-1 b in place (r values). */
void loops_jv_solve(mbs_loops *L, int trans, double *x)
{
    if (L->rank > 0) mbs_dense_lu_solve(trans, L->rank, L->LU, L->ipiv, x);
}

/* q = integrate(q_from, alpha dv) with quaternions normalised. */
static void newton_move(mbs_data *d, mbs_loops *L, double alpha)
{
    L->lu_here = 0;
    L->newton_iters++;
    d->work_count.newton++;
    mbs_integrate_q(d->model, L->qprev, L->dv, alpha, d->q);
    mbs_normalize_q(d->model, d->q);
}

/* Newton step direction dv (nv): -J_v^-1 h_a on the dependent dofs, 0 on the others. */
static void newton_direction(mbs_loops *L)
{
    for (int i = 0; i < L->rank; ++i) L->x[i] = -L->h[i];
    loops_jv_solve(L, 0, L->x);
    for (int k = 0; k < L->nv; ++k) L->dv[k] = 0.0;
    for (int i = 0; i < L->rank; ++i) L->dv[L->dep[i]] = L->x[i];
}

/* MBS_ERR_CONVERGENCE naming the cut joint of the largest residual. */
static int newton_fail(mbs_data *d, mbs_loops *L, int it, double res)
{
    char buf[96];
    const int k = loops_argmax_abs(L->h, L->rank);
    return MBS_DATA_FAIL(d, MBS_ERR_CONVERGENCE, "loops: closure of %s did not "
                         "converge in %d Newton iterations (scaled residual %.3g%s)",
                         loops_row_label(d, L, L->arow[k], buf, (int)sizeof buf), it, res,
                         isfinite(res) ? "" : ": a curve joint without a contact point there?");
}

/* Kinematics and the residual of the active rows at the data's q; its max norm. */
static double active_residual(mbs_data *d, mbs_loops *L)
{
    mbs_kinematics(d);
    mbs_con_residual(d, &L->t, L->arow, L->rank, L->h);
    return L->rank > 0 ? fabs(L->h[loops_argmax_abs(L->h, L->rank)]) : 0.0;
}

/* Residual at which the closure stops: MBS_LOOP_NEWTON_TOL divided by the condition
   estimate of J_v. Near a singular configuration (a bifurcation of the loops'
   manifold) a residual r leaves the coordinates off the manifold by about cond r, which
   must stay small against the distance to the singularity, or the tangent used to project
   v (and the branch Newton follows next) is wrong; below the roundoff floor the iteration
   stops when the residual no longer halves. A neighbour of the smoothed dynamics stops at
   the residual's own rounding (NEWTON_FLOOR): it only feeds an interpolation, and near the
   singular position each step below that rounding took a fresh factorisation. */
static double newton_tol(const mbs_loops *L)
{
    const double tol = L->cond > 1.0 ? MBS_LOOP_NEWTON_TOL / L->cond : MBS_LOOP_NEWTON_TOL;
    return L->node_floor ? fmax(tol, NEWTON_FLOOR) : tol;
}

/* The closure converged at the data's q: J_a and the LU of J_v made there. */
static int newton_done(mbs_data *d, mbs_loops *L)
{
    return L->lu_here ? MBS_OK : loops_jac_factor(d, L);
}

/* Newton-Raphson on the dependent coordinates with u fixed (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models" eq. 13). Below
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
                const int st = loops_jac_factor(d, L);
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
            const int st = loops_jac_factor(d, L);
            if (st != MBS_OK) return st;
            if (res <= newton_tol(L)) return MBS_OK;
            chord = 0; /* a full step with it below */
        }
        if (it == MBS_LOOP_NEWTON_MAXIT || !isfinite(res)) return newton_fail(d, L, it, res);
        const int fresh = !L->lu_here && (!L->lu_ok || res > CHORD_RES || res > 0.25 * prev ||
                                          L->cond > CHORD_COND);
        if (fresh) {
            const int st = loops_jac_factor(d, L);
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

/* Velocity projection v_v = -J_v^-1 J_u v_u (Docquier, Poncelet, Fisette 2013 eq. 14) with J_a at q: corrections
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
        const int st = loops_factor_jv(d, L);
        if (st != MBS_OK) return st;
    }
    if (L->cond > MBS_LOOP_PROJECT_COND) {
        const int st = project_near_singular(d, L, vmax);
        if (st != 1) return st; /* 1: a real violation, the exact projection below */
    }
    for (int k = 0; k < PROJECT_MAXIT; ++k) {
        mbs_con_jmul(&L->t, L->arow, L->rank, L->J, d->v, L->x);
        for (int i = 0; i < L->rank; ++i) L->x[i] -= L->vt[i];
        const double res = fabs(L->x[loops_argmax_abs(L->x, L->rank)]);
        if (res <= 1e-15 * vmax) return MBS_OK;
        if (res > 0.1 * prev) {
            if (L->lu_here) return MBS_OK; /* roundoff of an exact factorisation */
            const int st = loops_factor_jv(d, L);
            if (st != MBS_OK) return st;
            mbs_con_jmul(&L->t, L->arow, L->rank, L->J, d->v, L->x);
            for (int i = 0; i < L->rank; ++i) L->x[i] -= L->vt[i];
        }
        prev = res;
        for (int i = 0; i < L->rank; ++i) L->x[i] = -L->x[i];
        loops_jv_solve(L, 0, L->x);
        for (int i = 0; i < L->rank; ++i) d->v[L->dep[i]] += L->x[i];
    }
    return MBS_OK;
}

/* MBS_ERR_INCONSISTENT when a dropped row is violated at the (closed) q; needs the poses of
   the current kinematics. */
static int check_dropped(mbs_data *d, mbs_loops *L)
{
    const int nd = L->ncand - L->rank; /* the dropped loops_candidates (disabled rows are none) */
    if (nd == 0) return MBS_OK;
    mbs_con_residual(d, &L->t, L->drow, nd, L->h);
    const int k = loops_argmax_abs(L->h, nd);
    if (fabs(L->h[k]) <= MBS_LOOP_INCONSISTENT_TOL) return MBS_OK;
    char buf[128];
    int local;
    mbs_con_label(d, &L->t, L->drow[k], buf, (int)sizeof buf, &local);
    if (!isfinite(L->h[k]))
        return MBS_DATA_FAIL(d, MBS_ERR_CONVERGENCE, "loops: row %d of %s is not finite here (a "
                             "curve joint without a contact point, a failed user function?)",
                             local, buf);
    return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "loops: the constraints of %s are "
                         "inconsistent: its row %d is redundant but violated by %.3g (scaled) "
                         "once the independent rows hold", buf, local, L->h[k]);
}

/* A new partition at q when J_v got ill-conditioned (MBS_LOOP_REPARTITION_RATIO times worse
   than when its partition was made, or beyond PREFER_COND with preferred coordinates): kept
   if it is at least twice better (PREFER_COND times with preferred coordinates, or the best
   one replacing singular preferred ones: an event); else the old one stays and the next try
   waits for a RETRY_GROWTH times worse J_v. */
static int try_repartition(mbs_data *d, mbs_loops *L)
{
    const double old = L->cond_sel;
    const int pref_off = L->pref_off;
    memcpy(L->dep_bak, L->dep, (size_t)L->nv * sizeof(int));
    memcpy(L->ind_bak, L->ind, (size_t)L->nv * sizeof(int));
    int st = loops_partition(d, L);
    if (st == MBS_OK) st = loops_factor_jv(d, L);
    const double gain = L->prefer ? PREFER_COND : 2.0; /* with preferences: as eager */
    if (st == MBS_OK && (gain * L->cond_sel < old || L->pref_off > pref_off)) {
        L->nevents++;
        L->cond_retry = MBS_LOOP_REPARTITION_RATIO * fmax(L->cond_sel, 1.0);
        L->cond_smooth = MBS_LOOP_SMOOTH_COND;
        return MBS_OK;
    }
    memcpy(L->dep, L->dep_bak, (size_t)L->nv * sizeof(int));
    memcpy(L->ind, L->ind_bak, (size_t)L->nv * sizeof(int));
    L->pref_off = pref_off;
    L->cond_retry = RETRY_GROWTH * old;
    L->pref_retry = PREFER_RETRY * old;
    return loops_factor_jv(d, L);
}

/* 1 when the preferred partition serves, conditioned beyond PREFER_COND and worse than at
   the last attempt to leave it: time to see whether a better one exists. */
static int prefer_due(const mbs_loops *L)
{
    return L->prefer && !L->pref_off && L->cond_sel > PREFER_COND && L->cond_sel > L->pref_retry;
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
    L->cond = L->cond_sel = 1.0;
    L->lu_here = 0;
    return MBS_OK;
}

/* Newton (a new partition first when J_v is singular at q and flags allow), dropped-row
   check, repartition when ill-conditioned, velocity projection. */
int loops_close_once(mbs_data *d, mbs_loops *L, int flags)
{
    if (L->mcut == 0) return close_coordinates(d, L);
    int st = newton(d, L);
    if (st == MBS_OK && L->cond_retry == 0.0)
        L->cond_retry = MBS_LOOP_REPARTITION_RATIO * fmax(L->cond_sel, 1.0);
    if (st == MBS_ERR_SINGULAR && (flags & MBS_CLOSE_RECOVER)) {
        memcpy(d->q, L->qbak, (size_t)L->nq * sizeof(double));
        mbs_kinematics(d);
        loops_eval_jacobian(d, L, L->arow, L->rank);
        st = loops_partition(d, L);
        if (st == MBS_OK) {
            L->nevents++, L->cond_smooth = MBS_LOOP_SMOOTH_COND, L->cond_retry = 0.0;
            st = newton(d, L);
        }
    }
    if (st == MBS_OK && (flags & MBS_CLOSE_CHECK)) st = check_dropped(d, L);
    if (st == MBS_OK && (flags & MBS_CLOSE_REPARTITION) &&
        (L->cond_sel > L->cond_retry || prefer_due(L)))
        st = try_repartition(d, L);
    else if (st == MBS_OK && (flags & MBS_CLOSE_REPARTITION) && L->pref_off)
        st = loops_prefer_back(d, L);
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
void loops_mark_closed(mbs_data *d, mbs_loops *L, int jac)
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
int loops_newton_close(mbs_data *d, int flags)
{
    mbs_loops *L = d->loops;
    save_state(d, L);
    int st = L->selected ? MBS_OK : loops_select_all(d, L);
    if (st == MBS_OK) st = loops_close_once(d, L, flags);
    if (st == MBS_ERR_INCONSISTENT || (st != MBS_OK && (flags & MBS_CLOSE_RECOVER))) {
        if (st != MBS_ERR_INCONSISTENT) memcpy(d->q, L->qbak, (size_t)L->nq * sizeof(double));
        st = loops_select_all(d, L);
        if (st == MBS_OK) st = loops_close_once(d, L, flags);
    }
    if (st != MBS_OK) {
        restore_state(d, L);
        return st;
    }
    loops_mark_closed(d, L, 1);
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
    d->work_count.newton--;
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
        int st = loops_close_once(d, L, MBS_CLOSE_REPARTITION | MBS_CLOSE_RECOVER | MBS_CLOSE_CHECK);
        if (st == MBS_OK && L->cond <= COND_REFIT) {
            loops_mark_closed(d, L, 1);
            return MBS_OK;
        }
        restore_state(d, L);
    }
    int st = loops_select_all(d, L);
    if (st == MBS_OK) st = loops_close_once(d, L, MBS_CLOSE_REPARTITION | MBS_CLOSE_RECOVER);
    int refit = st == MBS_ERR_CONVERGENCE || st == MBS_ERR_SINGULAR;
    if (st == MBS_OK) refit = L->cond > COND_REFIT || check_dropped(d, L) != MBS_OK;
    if (refit) {
        st = loops_select_all(d, L);
        if (st == MBS_OK) {
            restore_independent(d, L);
            st = loops_close_once(d, L, MBS_CLOSE_REPARTITION | MBS_CLOSE_RECOVER);
        }
    }
    if (st == MBS_OK) st = check_dropped(d, L);
    if (st == MBS_OK && L->hold_pass) st = check_held(d, L);
    if (st != MBS_OK) {
        restore_state(d, L);
        return st;
    }
    loops_mark_closed(d, L, 1);
    return MBS_OK;
}

/* Newton assembly (mbs_loops_assemble when the analytic strategy defers). When the closure
   fails with the held coordinates independent, an assembly without the holds tells whether
   their values are the cause: if it closes, the held coordinate it moved is reported
   (MBS_ERR_INCONSISTENT) and q, v are restored; if it fails too, its status and message are
   returned. */
int loops_newton_assemble(mbs_data *d)
{
    mbs_loops *L = d->loops;
    save_state(d, L);
    L->hold_pass = L->hold != NULL;
    L->keep_pref = 1; /* the preferred coordinates keep the user's values */
    int st = assemble(d, L);
    L->hold_pass = 0;
    if (L->hold && (st == MBS_ERR_CONVERGENCE || st == MBS_ERR_SINGULAR)) {
        st = assemble(d, L);
        if (st == MBS_OK) st = check_held(d, L);
        if (st != MBS_OK) restore_state(d, L);
    }
    L->keep_pref = 0;
    return st;
}

/* See loops.h. */
