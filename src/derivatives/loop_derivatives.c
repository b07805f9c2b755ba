/* Derivatives of the forward dynamics of a model with cut joints, in the independent
 * coordinates u of the current partition (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a
 * powerful symbolic generator of multibody models", §2.2.1: q(u) by closure, v = B v_u with
 * B = dq/du = [I; -J_v^-1 J_u]). The forward dynamics solves the KKT system
 *     M qacc - J^T lam = tau - c + f,    J qacc + gam(q, v) = 0
 * (J the active rows, gam = J̇q̇). Along a direction of the closed states (dq, dv) its
 * derivative solves the same system with the differentiated right-hand sides (the tree
 * terms are those of Carpentier and Mansard 2018, "Analytical Derivatives of Rigid Body
 * Dynamics Algorithms"; Sathya and Carpentier 2024, "Constrained Articulated Body Dynamics
 * Algorithms", treat the constrained forward dynamics itself):
 *     M dqacc - J^T dlam = (dJ^T dq) lam - dtau_ID/dq dq - dtau_ID/dv dv
 *     J dqacc            = -(dJ dq) qacc - dgam/dq dq - dgam/dv dv
 * with dtau_ID/dq, dtau_ID/dv the tree's analytic inverse-dynamics derivatives at that qacc
 * (rnea_derivatives.c, force elements included). Column u_j: dq = B_j, dv = dB/du_j v_u, whose
 * dependent part follows from J dv = -(dJ B_j) v; column u'_j: dq = 0, dv = B_j; dqacc/dtau:
 * the right-hand side e_k. The slopes of the constraint rows (dJ dq, dgam/dq dq) are central
 * differences of the rows alone along dq (step 1e-5 / max(1, |dq|_inf)); dgam/dv dv is exact
 * (gam is quadratic in v); loops/loops_derivs.c computes them.
 * Each system M x - J^T y = f, J x = g is solved in the null space of J (the reduced
 * dynamics of Docquier, Poncelet, Fisette 2013 eq. 16): x = x_p + B z with x_p = J_v^-1 g
 * on the dependent dofs (0 on the others) and (B^T M B) z = B^T (f - M x_p); the multipliers
 * of the dynamics itself from J_v^T y = (M qacc - M qacc0) on the dependent rows. One LU of
 * J_v and one Cholesky factor of B^T M B serve every column. */
#include "ustates/ustates.h"
#include "core/dense.h"
#include "loops/loops.h"
#include "derivatives/derivs.h"

#include <math.h>
#include <string.h>

#define ROW_STEP 1e-5

/* LU of J_v (active rows, dependent columns) into w->lLU; MBS_ERR_SINGULAR naming a joint
   when its condition estimate max |U_ii| / min |U_ii| exceeds the smoothing threshold of the
   forward dynamics (loops.h): the dynamics computed there is an interpolation. */
static int jv_factor(mbs_data *d, const mbs_loops_kkt *k, const char *call)
{
    mbs_derivs *w = d->derivs;
    const int r = k->rank, nv = d->model->nv;
    for (int c = 0; c < r; ++c)
        for (int i = 0; i < r; ++i)
            w->lLU[i + (size_t)r * (size_t)c] = w->lJ[(size_t)nv * (size_t)i + (size_t)k->dep[c]];
    const int info = mbs_dense_lu(r, w->lLU, w->lpiv);
    double umax = 0.0, umin = INFINITY;
    int worst = 0;
    for (int i = 0; i < r; ++i) {
        const double u = fabs(w->lLU[i + (size_t)r * (size_t)i]);
        umax = fmax(umax, u);
        if (u < umin) umin = u, worst = i;
    }
    const double cond = umax / umin;
    if (r == 0 || (info == 0 && cond <= MBS_LOOP_SMOOTH_COND)) return MBS_OK;
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "%s: the loops are near a singular position at "
                         "joint %s (J_v condition %.3g > %g): their dynamics is smoothed "
                         "there, not differentiated", call,
                         mbs_joint_label(d->model, d->model->dof_joint[k->dep[worst]], buf,
                                         (int)sizeof buf), cond, MBS_LOOP_SMOOTH_COND);
}

/* x (nv) = the vector with independent part e (nd, NULL: zero) and the dependent part
   -J_v^-1 (J_u e + b) (b: rank, NULL: zero): J x = -b. t: rank of scratch. */
static void complete(const mbs_data *d, const mbs_loops_kkt *k, const double *e,
                     const double *b, double *t, double *x)
{
    const mbs_derivs *w = d->derivs;
    const int r = k->rank, nv = d->model->nv, nd = nv - r;
    for (int i = 0; i < nv; ++i) x[i] = 0.0;
    for (int j = 0; e && j < nd; ++j) x[k->ind[j]] = e[j];
    for (int i = 0; i < r; ++i) {
        double s = b ? b[i] : 0.0;
        const double *Ji = w->lJ + (size_t)nv * (size_t)i;
        for (int j = 0; e && j < nd; ++j) s += Ji[k->ind[j]] * e[j];
        t[i] = -s;
    }
    mbs_dense_lu_solve(0, r, w->lLU, w->lpiv, t);
    for (int i = 0; i < r; ++i) x[k->dep[i]] = t[i];
}

/* o (nv) = s A x for A nv x nv row-major, added (add) or assigned. */
static void gemv(int nv, const double *A, const double *x, double s, int add, double *o)
{
    for (int i = 0; i < nv; ++i) {
        double t = 0.0;
        for (int k = 0; k < nv; ++k) t += A[(size_t)nv * (size_t)i + (size_t)k] * x[k];
        o[i] = (add ? o[i] : 0.0) + s * t;
    }
}

/* The reduced mass B^T M B (Cholesky factor in w->lm) and M B (w->lMB), after B and M. */
static int reduced_mass(mbs_data *d, int nd, const char *call)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv;
    for (int j = 0; j < nd; ++j)
        gemv(nv, w->lM, w->lB + (size_t)nv * (size_t)j, 1.0, 0, w->lMB + (size_t)nv * (size_t)j);
    for (int j = 0; j < nd; ++j)
        for (int i = 0; i < nd; ++i) {
            const double *Bi = w->lB + (size_t)nv * (size_t)i, *MBj = w->lMB + (size_t)nv * (size_t)j;
            double s = 0.0;
            for (int k = 0; k < nv; ++k) s += Bi[k] * MBj[k];
            w->lm[(size_t)nd * (size_t)j + (size_t)i] = s;
        }
    if (mbs_dense_cholesky(nd, w->lm) == 0) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "%s: the reduced mass matrix of the loops is "
                         "singular (massless bodies moved by the independent coordinates?)", call);
}

/* x (nv, f on entry) <- the solution of M x - J^T y = f, J x = g (g: rank, NULL: zero) in
   the null space of J (file comment). */
static void null_space_solve(mbs_data *d, const mbs_loops_kkt *k, double *x, const double *g)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv, nd = nv - k->rank;
    double *xp = w->ltmp, *z = w->ltmp + nv;
    if (g) complete(d, k, NULL, g, w->lav + 2 * k->rank, xp); /* J xp = -g */
    for (int i = 0; i < nv; ++i) xp[i] = g ? -xp[i] : 0.0;
    for (int j = 0; j < nd; ++j) {
        const double *B = w->lB + (size_t)nv * (size_t)j, *MB = w->lMB + (size_t)nv * (size_t)j;
        double s = 0.0;
        for (int i = 0; i < nv; ++i) s += B[i] * x[i] - MB[i] * xp[i];
        z[j] = s;
    }
    mbs_dense_cholesky_solve(nd, w->lm, z);
    for (int i = 0; i < nv; ++i) x[i] = xp[i];
    for (int j = 0; j < nd; ++j)
        for (int i = 0; i < nv; ++i) x[i] += z[j] * w->lB[(size_t)nv * (size_t)j + (size_t)i];
}

/* The dynamics by the null-space solve: qacc (into d->qacc and w->lqdd) from qacc0 = ABA's
   (d->qacc on entry), the multipliers from the dependent rows of J^T lam = M (qacc - qacc0)
   into w->llam and d->lambda. */
static void constrained_dynamics(mbs_data *d, const mbs_loops_kkt *k)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv, r = k->rank;
    double *f = w->lc, *lam = w->llam;
    gemv(nv, w->lM, d->qacc, 1.0, 0, f); /* M qacc0 = tau - c + forces */
    memcpy(w->lqdd, f, (size_t)nv * sizeof(double));
    for (int i = 0; i < r; ++i) lam[i] = -k->gam[i];
    null_space_solve(d, k, w->lqdd, lam);
    for (int i = 0; i < nv; ++i) w->ltmp[i] = w->lqdd[i] - d->qacc[i];
    gemv(nv, w->lM, w->ltmp, 1.0, 0, f);
    for (int i = 0; i < r; ++i) lam[i] = f[k->dep[i]];
    mbs_dense_lu_solve(1, r, w->lLU, w->lpiv, lam);
    memcpy(d->qacc, w->lqdd, (size_t)nv * sizeof(double));
    mbs_loops_kkt_lambda(d, lam);
}

/* The right-hand sides of the u columns (X from column 0, R2 likewise): the rows' slopes
   along B_j at v held, then dv along u_j and the v slopes along it. */
static void q_columns(mbs_data *d, const mbs_loops_kkt *k, int nd, double *X, double *R2)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv, r = k->rank;
    double *av = w->lav, *g = w->lav + r, *t = w->lav + 2 * r;
    for (int j = 0; j < nd; ++j) {
        const double *B = w->lB + (size_t)nv * (size_t)j;
        double *Dv = w->lDv + (size_t)nv * (size_t)j, *x = X + (size_t)nv * (size_t)j;
        double *r2 = R2 + (size_t)r * (size_t)j, bmax = 1.0;
        for (int i = 0; i < nv; ++i) bmax = fmax(bmax, fabs(B[i]));
        mbs_loops_row_slopes_q(d, w->qs, B, ROW_STEP / bmax, w->lqdd, w->llam, av, r2, w->lc);
        complete(d, k, NULL, av, t, Dv);
        mbs_loops_row_slopes_v(d, w->vs, Dv, g);
        for (int i = 0; i < r; ++i) r2[i] = -(r2[i] + g[i]);
        gemv(nv, w->lTq, B, -1.0, 0, x);
        gemv(nv, w->lTv, Dv, -1.0, 1, x);
        for (int i = 0; i < nv; ++i) x[i] += w->lc[i];
    }
}

/* The right-hand sides of the u' columns: dv = B_j. */
static void v_columns(mbs_data *d, const mbs_loops_kkt *k, int nd, double *X, double *R2)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv, r = k->rank;
    for (int j = 0; j < nd; ++j) {
        const double *B = w->lB + (size_t)nv * (size_t)j;
        double *r2 = R2 + (size_t)r * (size_t)j;
        mbs_loops_row_slopes_v(d, w->vs, B, r2);
        for (int i = 0; i < r; ++i) r2[i] = -r2[i];
        gemv(nv, w->lTv, B, -1.0, 0, X + (size_t)nv * (size_t)j);
    }
}

/* Solved columns j < n of X into out (nv x nv, stride ld): column map[j], the others zero
   (map NULL: column j, all n = nv of them). */
static void copy_columns(int nv, const double *X, const int *map, int n, double *out, int ld)
{
    for (int i = 0; map && i < nv; ++i)
        for (int c = 0; c < nv; ++c) out[(size_t)ld * (size_t)i + (size_t)c] = 0.0;
    for (int j = 0; j < n; ++j) {
        const int c = map ? map[j] : j;
        for (int i = 0; i < nv; ++i)
            out[(size_t)ld * (size_t)i + (size_t)c] = X[(size_t)nv * (size_t)j + (size_t)i];
    }
}

/* The tree's derivatives at qacc, the right-hand sides of every wanted column (u, u', tau)
   and their solves, into the outputs. After constrained_dynamics, kinematics at (q, v). */
static int loop_columns(mbs_data *d, const mbs_loops_kkt *k, double *dq, double *dv, int ld,
                        double *P, int ldm, const char *call)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv, r = k->rank, nd = nv - r;
    int st = dq || dv ? mbs_derivs_eval(d, w->lqdd, dq ? w->lTq : NULL, w->lTv, nv, NULL, 0,
                                        call) : MBS_OK;
    if (st != MBS_OK) return st;
    const int cq = 0, cv = dq ? nd : 0, ct = cv + (dv ? nd : 0), ncol = ct + (P ? nv : 0);
    double *X = w->lX, *R2 = w->lR2;
    if (dq) q_columns(d, k, nd, X, R2);
    if (dv) v_columns(d, k, nd, X + (size_t)nv * (size_t)cv, R2 + (size_t)r * (size_t)cv);
    for (int j = 0; P && j < nv; ++j) {
        double *x = X + (size_t)nv * (size_t)(ct + j);
        for (int i = 0; i < nv; ++i) x[i] = i == j;
    }
    for (int c = 0; c < ncol; ++c)
        null_space_solve(d, k, X + (size_t)nv * (size_t)c,
                         c < ct ? R2 + (size_t)r * (size_t)c : NULL);
    if (dq) copy_columns(nv, X + (size_t)nv * (size_t)cq, k->ind, nd, dq, ld);
    if (dv) copy_columns(nv, X + (size_t)nv * (size_t)cv, k->ind, nd, dv, ld);
    if (P) copy_columns(nv, X + (size_t)nv * (size_t)ct, NULL, nv, P, ldm);
    return MBS_OK;
}

/* Save (restore = 0) or restore q, v, qacc and lambda. */
static void loop_state(mbs_data *d, int restore)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    double *src[] = {d->q, d->v, d->qacc, d->lambda};
    double *dst[] = {w->qs, w->vs, w->qacc_s, w->lam_s};
    const int len[] = {m->nq, m->nv, m->nv, m->ncon};
    for (int k = 0; k < 4; ++k)
        memcpy(restore ? src[k] : dst[k], restore ? dst[k] : src[k],
               (size_t)len[k] * sizeof(double));
}

/* After begin (its rows copied to w->lJ): J_v's LU, ABA's qacc0, M, B and the reduced
   mass, then the dynamics and the columns. */
static int begun(mbs_data *d, const mbs_loops_kkt *k, double *dq, double *dv, int ld,
                 double *P, int ldm, const char *call)
{
    mbs_derivs *w = d->derivs;
    const int nv = d->model->nv, nd = nv - k->rank;
    int st = jv_factor(d, k, call);
    if (st == MBS_OK) st = mbs_aba(d);
    if (st != MBS_OK) return st;
    mbs_crba(d, w->lM);
    for (int j = 0; j < nd; ++j) { /* B_j = dq/du_j */
        for (int i = 0; i < nd; ++i) w->lc[i] = i == j;
        complete(d, k, w->lc, NULL, w->lav, w->lB + (size_t)nv * (size_t)j);
    }
    st = reduced_mass(d, nd, call);
    if (st != MBS_OK) return st;
    constrained_dynamics(d, k);
    return loop_columns(d, k, dq, dv, ld, P, ldm, call);
}

/* See derivs.h. */
int mbs_derivs_loops(mbs_data *d, double *dq, double *dv, int ld, double *P, int ldm,
                     const char *call)
{
    const int nv = d->model->nv;
    mbs_derivs *w = d->derivs;
    int st = mbs_derivs_loops_only(d, call);
    if (st == MBS_OK) st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK) return st;
    loop_state(d, 0);
    mbs_kinematics(d);
    st = mbs_forces_accumulate(d);
    mbs_loops_kkt k = {0, NULL, NULL, NULL, NULL, 0, 0};
    if (st == MBS_OK && (st = mbs_loops_kkt_begin(d, call, &k)) == MBS_OK) {
        memcpy(w->lJ, k.J, (size_t)k.rank * (size_t)nv * sizeof(double)); /* the rows at q */
        st = begun(d, &k, dq, dv, ld, P, ldm, call);
        memcpy(d->q, w->qs, (size_t)d->model->nq * sizeof(double)); /* the state and the */
        memcpy(d->v, w->vs, (size_t)nv * sizeof(double));           /* solver's rows as */
        mbs_kinematics(d);                                           /* they were */
        mbs_loops_kkt_end(d, &k, w->lJ);
    }
    if (st == MBS_OK) st = mbs_derivs_block_finite(d, dq, nv, ld, call, "dqacc/dq");
    if (st == MBS_OK) st = mbs_derivs_block_finite(d, dv, nv, ld, call, "dqacc/dv");
    if (st == MBS_OK) st = mbs_derivs_block_finite(d, P, nv, ldm, call, "dqacc/dtau");
    if (st != MBS_OK) loop_state(d, 1), mbs_kinematics(d);
    return st;
}
