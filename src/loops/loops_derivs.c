/* What the derivatives of the closed-loop dynamics (src/derivatives/loop_derivatives.c) need
 * from the loop solver: the active rows and their quadratic term at a closed state, the
 * slopes of the rows along a direction (central differences of the rows alone in q; exact in
 * v, the quadratic term being quadratic in v) and the multipliers written back. The rows'
 * own analytic second derivatives are not formed. */
#include "loops/loops_internal.h"

/* Tolerances of a closed state: scaled position residual of the active rows, and their
   velocity residual relative to max(1, |v|_inf). */
#define KKT_CLOSED_TOL 1e-8

/* MBS_ERR_STATE naming the cut joint when the active rows are not met by q or by v. */
static int check_closed(mbs_data *d, mbs_loops *L, const char *call)
{
    const int r = L->rank;
    double vmax = 1.0;
    for (int i = 0; i < L->nv; ++i) vmax = fmax(vmax, fabs(d->v[i]));
    mbs_con_residual(d, &L->t, L->arow, r, L->h);
    mbs_con_jmul(&L->t, L->arow, r, L->J, d->v, L->x);
    for (int i = 0; i < r; ++i) {
        const int pos = !(fabs(L->h[i]) <= KKT_CLOSED_TOL);
        if (!pos && fabs(L->x[i]) <= KKT_CLOSED_TOL * vmax) continue;
        char buf[96];
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "%s: the state does not meet the %s constraint "
                             "of cut joint %s (scaled residual %.3g); close it first "
                             "(mbs_assemble)", call, pos ? "position" : "velocity",
                             loops_row_label(d, L, L->arow[i], buf, (int)sizeof buf),
                             pos ? L->h[i] : L->x[i]);
    }
    return MBS_OK;
}

/* See loops.h. */
int mbs_loops_kkt_begin(mbs_data *d, const char *call, mbs_loops_kkt *k)
{
    mbs_loops *L = d->loops;
    int st = L->selected ? MBS_OK : loops_select_all(d, L);
    if (st == MBS_OK) st = loops_sync_partition(d, L);
    if (st != MBS_OK) return st;
    k->jac_closed = L->jac_closed, k->lu_here = L->lu_here;
    loops_eval_rows_bias(d, L);
    st = check_closed(d, L, call);
    k->rank = L->rank, k->J = L->J, k->gam = L->gam, k->dep = L->dep, k->ind = L->ind;
    return st;
}

/* See loops.h. */
void mbs_loops_kkt_lambda(mbs_data *d, const double *lam)
{
    mbs_loops *L = d->loops;
    for (int i = 0; i < L->m; ++i) d->lambda[i] = 0.0;
    for (int i = 0; i < L->rank; ++i)
        d->lambda[L->arow[i]] = lam[i] * L->t.row_scale[L->arow[i]];
}

/* Add s times the active rows' values at the data's kinematics: J v, J qacc + gam, J^T lam. */
static void add_rows(mbs_data *d, mbs_loops *L, double s, const double *qacc,
                     const double *lam, double *da_v, double *da, double *djl)
{
    const int r = L->rank, nv = L->nv;
    L->jac_closed = 0;
    loops_eval_rows_bias(d, L);
    mbs_con_jmul(&L->t, L->arow, r, L->J, d->v, L->x);
    mbs_con_jmul(&L->t, L->arow, r, L->J, qacc, L->y);
    for (int i = 0; i < r; ++i) {
        da_v[i] += s * L->x[i];
        da[i] += s * (L->y[i] + L->gam[i]);
        const double *Ji = L->J + (size_t)nv * (size_t)i;
        for (int k = 0; k < nv; ++k) djl[k] += s * lam[i] * Ji[k];
    }
}

/* See loops.h. */
void mbs_loops_row_slopes_q(mbs_data *d, const double *q0, const double *w, double h,
                            const double *qacc, const double *lam, double *da_v, double *da,
                            double *djl)
{
    mbs_loops *L = d->loops;
    for (int i = 0; i < L->rank; ++i) da_v[i] = da[i] = 0.0;
    for (int k = 0; k < L->nv; ++k) djl[k] = 0.0;
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        mbs_integrate_q(d->model, q0, w, sgn * h, d->q);
        mbs_kinematics(d);
        add_rows(d, L, sgn / (2.0 * h), qacc, lam, da_v, da, djl);
    }
    memcpy(d->q, q0, (size_t)L->nq * sizeof(double));
    mbs_kinematics_pos(d); /* the poses of q0 again (mbs_loops_row_slopes_v reads them) */
}

/* See loops.h: gam(v) = G(v, v) bilinear, so (gam(v + s z) - gam(v - s z)) / (2 s) is its
   derivative along z exactly (s scales s z to |v| against cancellation). */
void mbs_loops_row_slopes_v(mbs_data *d, const double *v0, const double *z, double *dg)
{
    mbs_loops *L = d->loops;
    double vmax = 0.0, zmax = 0.0;
    for (int i = 0; i < L->nv; ++i) vmax = fmax(vmax, fabs(v0[i])), zmax = fmax(zmax, fabs(z[i]));
    for (int i = 0; i < L->rank; ++i) dg[i] = 0.0;
    if (zmax == 0.0 || L->rank == 0) return;
    const double s = vmax > 0.0 ? vmax / zmax : 1.0;
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        for (int i = 0; i < L->nv; ++i) d->v[i] = v0[i] + sgn * s * z[i];
        mbs_kinematics_vel(d); /* the poses are those of q */
        if (L->mcut > 0) mbs_con_world_accel(d, L->a0, L->Vw, L->Aw);
        mbs_con_bias(d, &L->t, L->Vw, L->Aw, L->arow, L->rank, L->gam);
        for (int i = 0; i < L->rank; ++i) dg[i] += sgn * L->gam[i] / (2.0 * s);
    }
    memcpy(d->v, v0, (size_t)L->nv * sizeof(double));
}

/* See loops.h. */
void mbs_loops_kkt_end(mbs_data *d, const mbs_loops_kkt *k, const double *J)
{
    mbs_loops *L = d->loops;
    memcpy(L->J, J, (size_t)L->rank * (size_t)L->nv * sizeof(double));
    L->jac_closed = k->jac_closed && mbs_loops_is_closed(d); /* J is that of q again */
    L->lu_here = k->lu_here;
}
