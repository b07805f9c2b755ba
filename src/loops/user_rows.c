/* User-constraint and joint-coupling rows as a row source of the loop machinery
 * (constraints.h): each constraint's function runs once per row evaluation (residuals,
 * Jacobian rows or quadratic terms of a list of rows) and its rows are read from there;
 * what the function does not give is differentiated here (central differences of h, second
 * differences along v), with q and the kinematics restored afterwards. The functions read
 * the data (and may recompute its kinematics at the same q, which leaves it as it was), so
 * the row evaluations' const data is the data the caller owns. */
#include "loops/user_rows.h"

#include <math.h>
#include <stdlib.h>

#include "core/internal.h"

struct mbs_uc_cache {
    const mbs_model *m;
    unsigned long stamp;      /* row evaluations so far (mbs_uc_begin) */
    unsigned long *seen;      /* [3 nuc] stamp of the last h, J and jdotv of each constraint */
    double *h, *J, *b;        /* [nrow], [nrow nv], [nrow]: unscaled, by row - ncon_cut */
    double *q0, *dq;          /* [nq], [nv] */
    double *hp, *hm, *Jp;     /* [maxrow], [maxrow], [2 maxrow nv] */
    int checked;              /* 1: mbs_uc_check passed for this data */
};

/* See user_rows.h. */
int mbs_uc_cache_create(const mbs_model *m, mbs_uc_cache **out)
{
    *out = NULL;
    if (m->nuc == 0) return MBS_OK;
    mbs_uc_cache *c = calloc(1, sizeof *c);
    if (!c) return MBS_ERR_NOMEM;
    int maxrow = 1;
    for (int u = 0; u < m->nuc; ++u) maxrow = m->uc[u].nrow > maxrow ? m->uc[u].nrow : maxrow;
    const size_t nr = (size_t)(m->ncon - m->ncon_cut) + 1, nv = (size_t)m->nv + 1;
    c->m = m;
    c->stamp = 1;
    c->seen = calloc(3 * (size_t)m->nuc, sizeof *c->seen);
    c->h = calloc(nr, sizeof(double));
    c->J = calloc(nr * nv, sizeof(double));
    c->b = calloc(nr, sizeof(double));
    c->q0 = calloc((size_t)m->nq + 1, sizeof(double));
    c->dq = calloc(nv, sizeof(double));
    c->hp = calloc((size_t)maxrow, sizeof(double));
    c->hm = calloc((size_t)maxrow, sizeof(double));
    c->Jp = calloc(2 * (size_t)maxrow * nv, sizeof(double));
    *out = c;
    if (c->seen && c->h && c->J && c->b && c->q0 && c->dq && c->hp && c->hm && c->Jp)
        return MBS_OK;
    return MBS_ERR_NOMEM;
}

/* See user_rows.h. */
void mbs_uc_cache_free(mbs_uc_cache *c)
{
    if (!c) return;
    free(c->seen);
    free(c->h);
    free(c->J);
    free(c->b);
    free(c->q0);
    free(c->dq);
    free(c->hp);
    free(c->hm);
    free(c->Jp);
    free(c);
}

/* See user_rows.h. */
void mbs_uc_begin(mbs_uc_cache *c)
{
    if (c) c->stamp++;
}

/* q = q0 (+) dq and the function's h (and J) there; q stays moved (restore puts it back). */
static int at_shift(mbs_data *d, mbs_uc_cache *c, const mbs_uc_model *u, double *h, double *J)
{
    mbs_integrate_q(c->m, c->q0, c->dq, 1.0, d->q);
    return u->ops->eval(u, d, h, J, NULL);
}

/* q back to q0 and the kinematics the function may have moved with it. */
static void restore(mbs_data *d, mbs_uc_cache *c)
{
    memcpy(d->q, c->q0, (size_t)c->m->nq * sizeof(double));
    mbs_kinematics(d);
}

/* J (nrow x nv) by central differences of h, column k from q (+) +-STEP e_k. */
static int fd_jacobian(mbs_data *d, mbs_uc_cache *c, const mbs_uc_model *u, double *J)
{
    const int nv = c->m->nv, n = u->nrow;
    memcpy(c->q0, d->q, (size_t)c->m->nq * sizeof(double));
    int st = MBS_OK;
    for (int k = 0; st == MBS_OK && k < nv; ++k) {
        for (int i = 0; i < nv; ++i) c->dq[i] = 0.0;
        c->dq[k] = MBS_UC_FD_STEP;
        st = at_shift(d, c, u, c->hp, NULL);
        c->dq[k] = -MBS_UC_FD_STEP;
        if (st == MBS_OK) st = at_shift(d, c, u, c->hm, NULL);
        for (int i = 0; i < n; ++i)
            J[(size_t)i * (size_t)nv + (size_t)k] = (c->hp[i] - c->hm[i]) / (2.0 * MBS_UC_FD_STEP);
    }
    restore(d, c);
    return st;
}

/* s with |s v|_inf = step, or 0 when v = 0 (then the quadratic term is 0). */
static double along_v(const mbs_data *d, double step)
{
    double vmax = 0.0;
    for (int i = 0; i < d->model->nv; ++i) vmax = fmax(vmax, fabs(d->v[i]));
    return vmax > 0.0 ? step / vmax : 0.0;
}

/* jdotv of a holonomic constraint: (h(q (+) s v) - 2 h(q) + h(q (+) -s v)) / s^2 (q (+) s v
   is the motion at qacc = 0, whose second derivative of h is jdotv). */
static int fd_bias(mbs_data *d, mbs_uc_cache *c, const mbs_uc_model *u, const double *h,
                   double *b)
{
    const double s = along_v(d, MBS_UC_BIAS_STEP);
    for (int i = 0; i < u->nrow; ++i) b[i] = 0.0;
    if (s == 0.0) return MBS_OK;
    memcpy(c->q0, d->q, (size_t)c->m->nq * sizeof(double));
    for (int i = 0; i < c->m->nv; ++i) c->dq[i] = s * d->v[i];
    int st = at_shift(d, c, u, c->hp, NULL);
    for (int i = 0; i < c->m->nv; ++i) c->dq[i] = -s * d->v[i];
    if (st == MBS_OK) st = at_shift(d, c, u, c->hm, NULL);
    restore(d, c);
    for (int i = 0; i < u->nrow; ++i) b[i] = (c->hp[i] - 2.0 * h[i] + c->hm[i]) / (s * s);
    return st;
}

/* jdotv of a velocity-level constraint: (J(q (+) s v) - J(q (+) -s v)) v / 2s. */
static int fd_vbias(mbs_data *d, mbs_uc_cache *c, const mbs_uc_model *u, double *b)
{
    const int nv = c->m->nv;
    const size_t half = (size_t)u->nrow * (size_t)nv;
    const double s = along_v(d, MBS_UC_VBIAS_STEP);
    for (int i = 0; i < u->nrow; ++i) b[i] = 0.0;
    if (s == 0.0) return MBS_OK;
    memcpy(c->q0, d->q, (size_t)c->m->nq * sizeof(double));
    for (int i = 0; i < nv; ++i) c->dq[i] = s * d->v[i];
    int st = at_shift(d, c, u, c->hp, c->Jp);
    for (int i = 0; i < nv; ++i) c->dq[i] = -s * d->v[i];
    if (st == MBS_OK) st = at_shift(d, c, u, c->hm, c->Jp + half);
    restore(d, c);
    for (int i = 0; i < u->nrow; ++i)
        for (int k = 0; k < nv; ++k)
            b[i] += (c->Jp[(size_t)i * nv + k] - c->Jp[half + (size_t)i * nv + k]) * d->v[k] /
                    (2.0 * s);
    return st;
}

/* h, J (nullable) and jdotv (nullable) of constraint u at the data's state: what its kind
   gives, the rest by differences; h = 0 for velocity-level rows. */
static int eval_rows(mbs_data *d, mbs_uc_cache *c, const mbs_uc_model *u, double *h, double *J,
                     double *b)
{
    int st = u->ops->eval(u, d, h, u->jacobian ? J : NULL, u->bias ? b : NULL);
    if (st == MBS_OK && J && !u->jacobian) st = fd_jacobian(d, c, u, J);
    if (st == MBS_OK && b && !u->bias)
        st = u->velocity ? fd_vbias(d, c, u, b) : fd_bias(d, c, u, h, b);
    if (u->velocity)
        for (int i = 0; i < u->nrow; ++i) h[i] = 0.0;
    return st;
}

/* Constraint u's h and, by level, J (1) or jdotv (2) for this row evaluation (h comes with
   either; jdotv needs no J); a failed function leaves NaN rows (the closure or the dynamics
   then fail naming it). */
static void ensure(const mbs_data *cd, const mbs_con_topo *t, int u, int level)
{
    mbs_uc_cache *c = t->uc;
    unsigned long *seen = c->seen + 3 * u;
    if (seen[level] == c->stamp) return;
    mbs_data *d = (mbs_data *)cd; /* see the file comment */
    const mbs_uc_model *uc = &c->m->uc[u];
    const int off = uc->rowadr - c->m->ncon_cut, nv = c->m->nv;
    double *h = c->h + off, *J = c->J + (size_t)off * (size_t)nv, *b = c->b + off;
    if (eval_rows(d, c, uc, h, level == 1 ? J : NULL, level == 2 ? b : NULL) != MBS_OK) {
        for (int i = 0; i < uc->nrow; ++i) h[i] = b[i] = NAN;
        for (size_t i = 0; i < (size_t)uc->nrow * (size_t)nv; ++i) J[i] = NAN;
    }
    seen[0] = seen[level] = c->stamp;
}

/* Index of the user constraint of row r. */
static int user_of(const mbs_con_topo *t, int r) { return t->row_cut[r] - t->ncut; }

/* Scaled residual of user row r. */
static double user_residual(const mbs_data *d, const mbs_con_topo *t, int r)
{
    ensure(d, t, user_of(t, r), 0);
    return t->row_scale[r] * t->uc->h[r - t->ncon_cut];
}

/* Scaled Jacobian row of user row r. */
static void user_jacobian(const mbs_data *d, const mbs_con_topo *t, const double *Sw, int r,
                          double *Ji)
{
    (void)Sw;
    ensure(d, t, user_of(t, r), 1);
    const double *J = t->uc->J + (size_t)(r - t->ncon_cut) * (size_t)t->nv;
    for (int k = 0; k < t->nv; ++k) Ji[k] = t->row_scale[r] * J[k];
}

/* Scaled quadratic term of user row r. */
static double user_bias(const mbs_data *d, const mbs_con_topo *t, const double *Vw,
                        const double *Aw, int r)
{
    (void)Vw, (void)Aw;
    ensure(d, t, user_of(t, r), 2);
    return t->row_scale[r] * t->uc->b[r - t->ncon_cut];
}

/* Label of entry c (a user constraint). */
static const char *user_label(const mbs_data *d, const mbs_con_topo *t, int c, char *buf,
                              int len)
{
    return mbs_uc_label(d->model, c - t->ncut, buf, len);
}

const mbs_con_source mbs_con_user_source = {user_residual, user_jacobian, user_bias,
                                            mbs_con_zero_target, user_label};

/* Compare the Jacobian u gives with its differences at the data's state. */
static int check_one(mbs_data *d, mbs_uc_cache *c, int iu)
{
    const mbs_uc_model *u = &c->m->uc[iu];
    const int nv = c->m->nv, off = u->rowadr - c->m->ncon_cut;
    double *Jg = c->Jp, *Jd = c->J + (size_t)off * (size_t)nv;
    char buf[128];
    int st = u->ops->eval(u, d, c->hp, u->jacobian ? Jg : NULL, NULL);
    if (st == MBS_OK && u->jacobian && !u->velocity) st = fd_jacobian(d, c, u, Jd);
    if (st != MBS_OK)
        return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "%s: its function failed",
                             mbs_uc_label(c->m, iu, buf, (int)sizeof buf));
    if (!u->jacobian || u->velocity) return MBS_OK;
    double big = 0.0;
    for (size_t i = 0; i < (size_t)u->nrow * (size_t)nv; ++i) big = fmax(big, fabs(Jg[i]));
    for (int i = 0; i < u->nrow; ++i)
        for (int k = 0; k < nv; ++k) {
            const double g = Jg[(size_t)i * nv + k], f = Jd[(size_t)i * nv + k];
            if (fabs(g - f) <= MBS_UC_CHECK_TOL * (1.0 + big)) continue;
            return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "%s: its Jacobian disagrees with central "
                                 "differences of h: row %d, column %d is %.6g, the differences "
                                 "give %.6g", mbs_uc_label(c->m, iu, buf, (int)sizeof buf), i,
                                 k, g, f);
        }
    return MBS_OK;
}

/* See user_rows.h. */
int mbs_uc_check(mbs_data *d, const mbs_con_topo *t)
{
    mbs_uc_cache *c = t->uc;
    if (!c || c->checked) return MBS_OK;
    int st = MBS_OK;
    for (int u = 0; st == MBS_OK && u < c->m->nuc; ++u)
        if (c->m->uc[u].ops == &mbs_uc_user_ops) st = check_one(d, c, u);
    mbs_uc_begin(c); /* what check_one wrote is no evaluation of the rows */
    c->checked = st == MBS_OK;
    return st;
}
