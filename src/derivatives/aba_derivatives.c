/* Derivatives of the forward dynamics of a tree (Carpentier and Mansard 2018, "Analytical
 * Derivatives of Rigid Body Dynamics Algorithms", §IV): at qacc = ABA(q, v, tau),
 *     dqacc/dq = -M^-1 dtau/dq,   dqacc/dv = -M^-1 dtau/dv,   dqacc/dtau = M^-1,
 * with dtau/dq, dtau/dv from the recursive passes of rnea_derivatives.c at that qacc and
 * M^-1 applied to them, and M^-1 itself, by the articulated-body recursion on the same ABA
 * (minv.c): O(nv) per column, a solve (no explicit inverse in the products). */
#include "ustates/ustates.h"
#include "derivatives/derivs.h"
#if defined(__GNUC__) && !defined(__clang__)
/* no memset call for a row's few leading zeros in copy_out: the call spilled the witnesses
   and cost 1-2 % of the humanoid's derivatives */
#pragma GCC optimize("O3", "no-tree-loop-distribute-patterns")
#endif

/* out[j .. j + 7] = sign x[j .. j + 7], adding 0 out to the witness z (0 x is 0 for a
   finite x and NaN otherwise). */
MBS_ALWAYS_INLINE void group_out(double *restrict out, const double *restrict x, int j,
                                 double sign, mbs_d8 *z)
{
    mbs_d8 v;
    D8_LOAD(v, x + j);
    D8_SCALE(v, sign, v);
    D8_STORE(out + j, v);
    D8_AXPY(*z, 0.0, v);
}

/* out (n doubles) = sign x (n doubles) with the witnesses z[0 .. 3] (eight at a time, a
   row's groups spread over the four so that no chain of additions waits on the one before;
   a last partial group overlaps the one before it and stores its values again) or, for a row
   shorter than 8, the scalar witness *zs. */
MBS_ALWAYS_INLINE void row_out(double *restrict out, const double *restrict x, int n,
                               double sign, mbs_d8 z[4], double *zs)
{
    if (n < 8) {
        for (int j = 0; j < n; ++j) out[j] = sign * x[j], *zs += 0.0 * out[j];
        return;
    }
    int j = 0;
    for (; j + 32 <= n; j += 32) {
        group_out(out, x, j, sign, &z[0]);
        group_out(out, x, j + 8, sign, &z[1]);
        group_out(out, x, j + 16, sign, &z[2]);
        group_out(out, x, j + 24, sign, &z[3]);
    }
    if (j + 8 <= n) group_out(out, x, j, sign, &z[0]), j += 8;
    if (j + 8 <= n) group_out(out, x, j, sign, &z[1]), j += 8;
    if (j + 8 <= n) group_out(out, x, j, sign, &z[2]), j += 8;
    if (j < n) group_out(out, x, n - 8, sign, &z[3]);
}

/* out (n x n, stride ld) = -X with X (stride ldx) the n - lead columns right of lead zero
   ones, or (sym) M^-1 from the upper triangle at X (the rows from the diagonal, the rest
   from the rows above); returns the first row that is not finite, or -1. One check of the
   whole matrix: the search for the row only when it fails. */
static int copy_out(double *restrict out, int ld, const double *restrict X,
                    size_t ldx, int n, int lead, int sym)
{
    mbs_d8 z[4] = {D8_ZERO, D8_ZERO, D8_ZERO, D8_ZERO};
    double t = 0.0;
    for (int i = 0; i < n; ++i) {
        const size_t o = (size_t)ld * (size_t)i, j = sym ? (size_t)i : 0;
        for (int k = 0; k < lead; ++k) out[o + (size_t)k] = 0.0;
        row_out(out + o + j + (size_t)lead, X + ldx * (size_t)i + j, n - lead - (int)j,
                sym ? 1.0 : -1.0, z, &t);
        for (size_t k = 0; k < j; ++k) out[o + k] = X[ldx * k + (size_t)i];
    }
    for (int g = 0; g < 4; ++g)
        for (int e = 0; e < 8; ++e) t += D8_LANE(z[g], e);
    if (t == 0.0) return -1;
    for (int i = 0; i < n; ++i)
        if (!mbs_all_finite(out + (size_t)ld * (size_t)i, n)) return i;
    return n - 1; /* not reached: some entry was not finite */
}

/* copy_out, MBS_ERR_NONFINITE naming call and what when some row is not finite (the upper
   triangle of a symmetric result holds every entry). */
static int copy_checked(mbs_data *d, double *out, int ld, const double *X, size_t ldx,
                        int lead, int sym, const char *call, const char *what)
{
    const int row = copy_out(out, ld, X, ldx, d->model->nv, lead, sym);
    if (row < 0) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s: %s is not finite (row %d)", call, what, row);
}

/* qacc = ABA at the prepared kinematics and forces, checked finite: in world axes with the
   derivative passes' forward quantities (world), else in body coordinates. */
static int forward_qacc(mbs_data *d, int world, const char *call)
{
    const int st = world ? mbs_derivs_world_aba(d) : mbs_aba(d);
    if (st == MBS_OK && !mbs_all_finite(d->qacc, d->model->nv))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s: qacc is not finite", call);
    return st;
}

/* The passes at d->qacc into dtau/dq | dtau/dv side by side in w->X, without the first nd
   columns of each half (column j of a half at j - nd, rows 2 (nv - nd) rounded up to 8
   long: no group of 8 between the halves is padding), then M^-1 of them by the
   articulated-body recursion on the ABA that gave qacc (minv.c); *ldx the row length. */
static int solved_columns(mbs_data *d, int world, int nd, int with_q, int with_v, int *ldx)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv, nl = nv - nd;
    *ldx = (2 * nl + 7) / 8 * 8;
    double *Xq = with_q ? w->X - nd : NULL, *Xv = with_v ? w->X + nl - nd : NULL;
    memset(w->X, 0, sizeof(double) * (size_t)nv * (size_t)*ldx); /* the padding too */
    w->ndead = nd;
    mbs_derivs_rnea(d, world ? NULL : d->qacc, Xq, Xv, *ldx, NULL, nv);
    const int st = mbs_derivs_elements(d, Xq, Xv, *ldx);
    if (st == MBS_OK && !world) mbs_derivs_aba_world(d);
    if (st == MBS_OK) /* the groups of 8 holding the wanted columns */
        mbs_derivs_solve(d, w->X, *ldx, with_q ? 0 : nl / 8 * 8, with_v ? *ldx : w->ldp);
    w->ndead = 0;
    return st;
}

/* The derivatives after forward_qacc (solved_columns), copied out, and M^-1 itself. world:
   that ABA ran in world axes (mbs_derivs_world_aba) and left the forward quantities, U and
   D^-1 U; then a floating base's translation columns are zero (derivs.h lin_root) and left
   out when both dq and dv are wanted. */
static int derivs_at_qacc(mbs_data *d, int world, double *dq, double *dv, int ld,
                          double *Minv, int ldm, const char *call)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv, nd = world && dq && dv ? w->lin_root : 0;
    int ldx = 0, st = MBS_OK;
    if (dq || dv) st = solved_columns(d, world, nd, dq != NULL, dv != NULL, &ldx);
    const double *Xq = w->X, *Xv = w->X + (nv - nd);
    if (dq && st == MBS_OK)
        st = copy_checked(d, dq, ld, Xq, (size_t)ldx, nd, 0, call, "dqacc/dq");
    if (dv && st == MBS_OK)
        st = copy_checked(d, dv, ld, Xv, (size_t)ldx, nd, 0, call, "dqacc/dv");
    if (Minv && st == MBS_OK) {
        mbs_derivs_minv(d);
        st = copy_checked(d, Minv, ldm, w->Minv, (size_t)w->ldp, 0, 1, call, "dqacc/dtau");
    }
    return st;
}

/* See derivs.h: qacc is as it was when the call fails. */
int mbs_derivs_forward(mbs_data *d, double *dq, double *dv, int ld, double *Minv, int ldm,
                       const char *call)
{
    const int nv = d->model->nv;
    int st = mbs_derivs_trees_only(d, call);
    if (st == MBS_OK) st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK) return st;
    double *saved = d->derivs->up;
    for (int i = 0; i < nv; ++i) saved[i] = d->qacc[i];
    const int world = mbs_derivs_world_aba_applies(d);
    if (world && d->derivs->joint_elements) /* nothing reads the body-frame velocities: */
        mbs_kinematics_subspace(d);         /* the elements act on joints' q and v alone */
    else
        mbs_kinematics(d);
    st = mbs_forces_accumulate(d);
    if (st == MBS_OK) st = forward_qacc(d, world, call);
    if (st == MBS_OK) st = derivs_at_qacc(d, world, dq, dv, ld, Minv, ldm, call);
    if (st != MBS_OK)
        for (int i = 0; i < nv; ++i) d->qacc[i] = saved[i];
    return st;
}

int mbs_forward_dynamics_derivatives(mbs_data *d, double *dqacc_dq, double *dqacc_dv,
                                     double *dqacc_dtau)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_forward_dynamics_derivatives");
    if (nested != MBS_OK) return nested;
    if (!dqacc_dq && !dqacc_dv && !dqacc_dtau)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "forward_dynamics_derivatives: every output is "
                             "NULL (nothing to compute)");
    const int nv = d->model->nv;
    if (d->model->ncon > 0)
        return mbs_derivs_loops(d, dqacc_dq, dqacc_dv, nv, dqacc_dtau, nv,
                                "forward_dynamics_derivatives");
    return mbs_derivs_forward(d, dqacc_dq, dqacc_dv, nv, dqacc_dtau, nv,
                              "forward_dynamics_derivatives");
}
