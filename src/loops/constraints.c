/* Cut-joint constraint rows: residuals, Jacobian rows and J̇q̇ (see constraints.h). */
#include "loops/constraints.h"

#include <stdio.h>
#include <stdlib.h>

#include "events/events.h"
#include "contact/contact.h"
#include "loops/user_rows.h"

/* World geometry of one cut joint: parent/child poses, frame origins and d = x_c - x_p. */
typedef struct cut_geom {
    const mbs_data *data;
    const mbs_joint_model *j;
    const mbs_pose *Xp, *Xc; /* world poses of the parent and child bodies */
    double xp[3], xc[3], d[3];
} cut_geom;

/* Number of rows a cut joint's path touches: its dofs below the common ancestor. */
static int path_count(const mbs_model *m, int b, int anc)
{
    int n = 0;
    for (; b != anc && b > 0; b = m->bodies[b].parent) n += m->joints[m->bodies[b].joint].nv;
    return n;
}

/* Nearest common ancestor of bodies a and b (the world at worst). */
static int ancestor(const mbs_model *m, int a, int b)
{
    for (int x = a; x >= 0; x = m->bodies[x].parent)
        for (int y = b; y >= 0; y = m->bodies[y].parent)
            if (x == y) return x;
    return MBS_WORLD;
}

/* Append the dofs from body b up to anc with the given sign at t->path_*[*k]. */
static void path_fill(const mbs_model *m, int b, int anc, double sign, mbs_con_topo *t, int *k)
{
    for (; b != anc && b > 0; b = m->bodies[b].parent) {
        const mbs_joint_model *jm = &m->joints[m->bodies[b].joint];
        for (int i = 0; i < jm->nv; ++i) {
            t->path_dof[*k] = jm->vadr + i;
            t->path_sign[*k] = sign;
            ++*k;
        }
    }
}

/* Closure of cut c (its path dofs and their ancestors, descending) at t->clo_dof[*k]; mark
   is nv scratch bytes, left zero. */
static void closure_fill(const mbs_model *m, mbs_con_topo *t, int c, unsigned char *mark, int *k)
{
    for (int p = t->path_adr[c]; p < t->path_adr[c + 1]; ++p)
        for (int j = t->path_dof[p]; j >= 0 && !mark[j]; j = m->dof_parent[j]) mark[j] = 1;
    t->clo_adr[c] = *k;
    for (int j = m->nv - 1; j >= 0; --j)
        if (mark[j]) t->clo_dof[(*k)++] = j, mark[j] = 0;
    if (*k - t->clo_adr[c] > t->maxclo) t->maxclo = *k - t->clo_adr[c];
}

/* Closures of every cut joint (and coordinate row) and which pairs of them share a dof. */
static int closures_init(const mbs_model *m, mbs_con_topo *t)
{
    const size_t nc = (size_t)t->nent;
    unsigned char *mark = calloc((size_t)m->nv + 1, 1);
    t->clo_adr = calloc(nc + 1, sizeof(int));
    t->clo_dof = calloc(nc * (size_t)m->nv + 1, sizeof(int));
    t->overlap = calloc(nc * nc + 1, 1);
    int ok = mark && t->clo_adr && t->clo_dof && t->overlap, k = 0;
    for (int c = 0; ok && c < t->nent; ++c) closure_fill(m, t, c, mark, &k);
    if (ok) t->clo_adr[t->nent] = k;
    for (int a = 0; ok && a < t->nent; ++a) {
        for (int p = t->clo_adr[a]; p < t->clo_adr[a + 1]; ++p) mark[t->clo_dof[p]] = 1;
        for (int b = 0; b < t->nent; ++b)
            for (int p = t->clo_adr[b]; p < t->clo_adr[b + 1]; ++p)
                if (mark[t->clo_dof[p]]) t->overlap[(size_t)a * nc + (size_t)b] = 1;
        for (int p = t->clo_adr[a]; p < t->clo_adr[a + 1]; ++p) mark[t->clo_dof[p]] = 0;
    }
    free(mark);
    return ok ? MBS_OK : MBS_ERR_NOMEM;
}

/* Row tables: owning cut and scale of every row (coordinate rows: their own scale). */
static void rows_fill(const mbs_model *m, mbs_con_topo *t)
{
    for (int c = 0; c < t->ncut; ++c) {
        const mbs_joint_model *jm = &m->joints[t->cut[c]];
        for (int k = 0; k < jm->ncon; ++k) {
            t->row_cut[jm->conadr + k] = c;
            t->row_scale[jm->conadr + k] =
                jm->rows[k].kind == MBS_CUT_ANGLE ? 1.0 : 1.0 / jm->con_length;
        }
    }
    for (int u = 0; u < t->nuc; ++u)
        for (int k = 0; k < m->uc[u].nrow; ++k) {
            t->row_cut[m->uc[u].rowadr + k] = t->ncut + u;
            t->row_scale[m->uc[u].rowadr + k] = 1.0 / m->uc[u].scale;
        }
    for (int k = 0; k < t->ncoord; ++k) {
        t->row_cut[t->ncon + k] = t->ncut + t->nuc + k;
        t->row_scale[t->ncon + k] = m->ev->qrows[k].scale;
    }
    for (int r = t->ncon + t->ncoord - 1; r >= 0; --r) t->ent_row[t->row_cut[r]] = r;
}

/* See constraints.h. */
void mbs_con_topo_rescale(const mbs_model *m, mbs_con_topo *t)
{
    rows_fill(m, t);
}

/* Coordinate row k as entry ncut + k: its joint and a path of its one dof. */
static void coord_fill(const mbs_model *m, mbs_con_topo *t, int *c, int *k)
{
    for (int i = 0; i < t->ncoord; ++i, ++*c) {
        const mbs_qrow *r = &m->ev->qrows[i];
        t->cut[*c] = r->joint;
        t->path_adr[*c] = *k;
        t->path_dof[*k] = r->vindex;
        t->path_sign[*k] = 1.0;
        ++*k;
    }
}

/* Coordinate row of row r (a row of a coordinate-row entry). */
static int coord_of(const mbs_con_topo *t, int r) { return r - t->ncon; }

static const mbs_con_source cut_source, coord_source;

/* Every entry's source: cut joints, user constraints, coordinate rows. */
static void sources_fill(mbs_con_topo *t)
{
    for (int c = 0; c < t->nent; ++c)
        t->src[c] = c < t->ncut ? &cut_source : c < t->ncut + t->nuc ? &mbs_con_user_source
                                                                     : &coord_source;
}

/* See constraints.h. */
int mbs_con_topo_init(const mbs_model *m, mbs_con_topo *t)
{
    memset(t, 0, sizeof *t);
    t->ncon = m->ncon;
    t->ncon_cut = m->ncon_cut;
    t->nuc = m->nuc;
    t->ncoord = mbs_nqrow(m);
    t->nv = m->nv;
    for (int j = 0; j < m->njoint; ++j) t->ncut += m->joints[j].cut;
    t->nent = t->ncut + t->nuc + t->ncoord;
    int npath = t->ncoord + mbs_uc_path_count(m);
    for (int j = 0; j < m->njoint; ++j) {
        const mbs_joint_model *jm = &m->joints[j];
        if (!jm->cut) continue;
        const int anc = ancestor(m, jm->parent, jm->child);
        npath += path_count(m, jm->parent, anc) + path_count(m, jm->child, anc);
    }
    const size_t nc = (size_t)t->nent + 1, nr = (size_t)(m->ncon + t->ncoord) + 1;
    const size_t np = (size_t)npath + 1;
    t->cut = calloc(nc, sizeof(int));
    t->row_cut = calloc(nr, sizeof(int));
    t->row_scale = calloc(nr, sizeof(double));
    t->path_adr = calloc(nc, sizeof(int));
    t->path_dof = calloc(np, sizeof(int));
    t->path_sign = calloc(np, sizeof(double));
    t->src = calloc(nc, sizeof *t->src);
    t->ent_row = calloc(nc, sizeof(int));
    if (!t->cut || !t->row_cut || !t->row_scale || !t->path_adr || !t->path_dof ||
        !t->path_sign || !t->src || !t->ent_row || mbs_uc_cache_create(m, &t->uc) != MBS_OK)
        return MBS_ERR_NOMEM;
    int c = 0, k = 0;
    for (int j = 0; j < m->njoint; ++j) {
        const mbs_joint_model *jm = &m->joints[j];
        if (!jm->cut) continue;
        const int anc = ancestor(m, jm->parent, jm->child);
        t->cut[c] = j;
        t->path_adr[c] = k;
        path_fill(m, jm->child, anc, 1.0, t, &k);
        path_fill(m, jm->parent, anc, -1.0, t, &k);
        ++c;
    }
    mbs_uc_path_fill(m, t, &c, &k);
    coord_fill(m, t, &c, &k);
    t->path_adr[c] = k;
    rows_fill(m, t);
    sources_fill(t);
    return closures_init(m, t);
}

/* Free the arrays of t (t itself is the caller's). */
void mbs_con_topo_free(mbs_con_topo *t)
{
    if (!t) return;
    free(t->cut);
    free(t->row_cut);
    free(t->row_scale);
    free(t->path_adr);
    free(t->path_dof);
    free(t->path_sign);
    free(t->clo_adr);
    free(t->clo_dof);
    free(t->overlap);
    free(t->src);
    free(t->ent_row);
    mbs_uc_cache_free(t->uc);
    memset(t, 0, sizeof *t);
}

/* Sw_k = X_world(b)^-1 S_k for the body b that owns dof k. */
void mbs_con_world_motion(const mbs_data *d, double *Sw)
{
    const mbs_model *m = d->model;
    for (int k = 0; k < m->nv; ++k) {
        const int b = m->joints[m->dof_joint[k]].child;
        xm_apply_inv(Sw + 6 * k, &d->x_world[b], d->S + 6 * k);
    }
}

/* a_b = X_up a_p + c_b (qacc = 0, no gravity), then both to world coordinates. */
void mbs_con_world_accel(const mbs_data *d, double *a, double *Vw, double *Aw)
{
    const mbs_model *m = d->model;
    for (int e = 0; e < 6; ++e) a[e] = Vw[e] = Aw[e] = 0.0;
    for (int t = 0; t < m->ntree; ++t) {
        const int b = m->joints[m->tree[t]].child, p = m->bodies[b].parent;
        xm_apply(a + 6 * b, &d->x_up[b], a + 6 * p);
        for (int e = 0; e < 6; ++e) a[6 * b + e] += d->cvel[6 * b + e];
        xm_apply_inv(Vw + 6 * b, &d->x_world[b], d->vel + 6 * b);
        xm_apply_inv(Aw + 6 * b, &d->x_world[b], a + 6 * b);
    }
}

/* Geometry of cut joint j from the data's world poses. */
static void geom(const mbs_data *d, const mbs_joint_model *j, cut_geom *g)
{
    g->data = d;
    g->j = j;
    g->Xp = &d->x_world[j->parent];
    g->Xc = &d->x_world[j->child];
    pose_apply(g->xp, g->Xp, j->frame_parent.p);
    pose_apply(g->xc, g->Xc, j->frame_child.p);
    v3_sub(g->d, g->xc, g->xp);
}

/* Residual and world wrench W = [n; f] (at the world origin) of one row. */
static double row_wrench(const cut_geom *g, const mbs_cut_row *r, double W[6])
{
    double a[3], b[3];
    switch (r->kind) {
    case MBS_CUT_CURVE: /* the contact of a curve joint (src/contact/) */
        return mbs_curve_row(g->data, g->j, (int)r->target, NULL, NULL, W, NULL);
    case MBS_CUT_POINT:
        m3_mulv(a, g->Xp->R, r->e);
        v3_cross(W, g->xc, a);
        v3_copy(W + 3, a);
        return v3_dot(a, g->d);
    case MBS_CUT_ANGLE:
        m3_mulv(a, g->Xp->R, r->e);
        m3_mulv(b, g->Xc->R, r->f);
        v3_cross(W, b, a);
        v3_scale(W, W, r->scale);
        W[3] = W[4] = W[5] = 0.0;
        return r->scale * (v3_dot(a, b) - r->target);
    default: { /* MBS_CUT_DISTANCE */
        const double L = v3_norm(g->d);
        v3_scale(a, g->d, L > 0.0 ? 1.0 / L : 0.0);
        v3_cross(W, g->xc, a);
        v3_copy(W + 3, a);
        return L - r->target;
    }
    }
}

/* Row index i of the list (rows NULL: the identity). */
static int row_at(const int *rows, int i) { return rows ? rows[i] : i; }

/* Cut-joint row r: scaled residual. */
static double cut_residual(const mbs_data *d, const mbs_con_topo *t, int r)
{
    const mbs_joint_model *j = &d->model->joints[t->cut[t->row_cut[r]]];
    cut_geom g;
    double W[6];
    geom(d, j, &g);
    return t->row_scale[r] * row_wrench(&g, &j->rows[r - j->conadr], W);
}

/* Coordinate row r: h = scale (q - target). */
static double coord_residual(const mbs_data *d, const mbs_con_topo *t, int r)
{
    const int k = coord_of(t, r);
    return t->row_scale[r] * (d->q[d->model->ev->qrows[k].qindex] - d->ev->st.row_pos[k]);
}

/* See constraints.h. */
void mbs_con_residual(const mbs_data *d, const mbs_con_topo *t, const int *rows, int n,
                      double *h)
{
    mbs_uc_begin(t->uc);
    for (int i = 0; i < n; ++i) {
        const int r = row_at(rows, i);
        h[i] = t->src[t->row_cut[r]]->residual(d, t, r);
    }
}

/* Cut-joint row r: J_k = sign_k s W . Sw_k on the loop path, 0 elsewhere. */
static void cut_jacobian(const mbs_data *d, const mbs_con_topo *t, const double *Sw, int r,
                         double *Ji)
{
    const int c = t->row_cut[r];
    const mbs_joint_model *j = &d->model->joints[t->cut[c]];
    cut_geom g;
    double W[6];
    geom(d, j, &g);
    row_wrench(&g, &j->rows[r - j->conadr], W);
    for (int e = 0; e < 6; ++e) W[e] *= t->row_scale[r];
    for (int k = 0; k < t->nv; ++k) Ji[k] = 0.0;
    for (int p = t->path_adr[c]; p < t->path_adr[c + 1]; ++p) {
        const int k = t->path_dof[p];
        Ji[k] += t->path_sign[p] * s6_dot(W, Sw + 6 * k);
    }
}

/* Coordinate row r: scale e_k. */
static void coord_jacobian(const mbs_data *d, const mbs_con_topo *t, const double *Sw, int r,
                           double *Ji)
{
    (void)d, (void)Sw;
    for (int k = 0; k < t->nv; ++k) Ji[k] = 0.0;
    Ji[t->path_dof[t->path_adr[t->row_cut[r]]]] = t->row_scale[r];
}

/* See constraints.h. */
void mbs_con_jacobian(const mbs_data *d, const mbs_con_topo *t, const double *Sw,
                      const int *rows, int n, double *J)
{
    mbs_uc_begin(t->uc);
    for (int i = 0; i < n; ++i) {
        const int r = row_at(rows, i);
        t->src[t->row_cut[r]]->jacobian(d, t, Sw, r, J + (size_t)t->nv * (size_t)i);
    }
}

/* Velocity of the body-fixed point x of a body with world spatial velocity V. */
static void point_vel(double o[3], const double V[6], const double x[3])
{
    v3_cross(o, V, x);
    v3_add(o, o, V + 3);
}

/* Wdot of one row (see constraints.h) from the world velocities of parent and child. */
static void row_wrench_dot(const cut_geom *g, const mbs_cut_row *r, const double Vp[6],
                           const double Vc[6], double Wd[6])
{
    double a[3], b[3], ad[3], bd[3], xcd[3], t[3];
    if (r->kind == MBS_CUT_CURVE) { /* the contact's rate (src/contact/) */
        double W[6];
        mbs_curve_row(g->data, g->j, (int)r->target, Vp, Vc, W, Wd);
        return;
    }
    m3_mulv(a, g->Xp->R, r->e);
    point_vel(xcd, Vc, g->xc);
    if (r->kind == MBS_CUT_ANGLE) {
        m3_mulv(b, g->Xc->R, r->f);
        v3_cross(ad, Vp, a);
        v3_cross(bd, Vc, b);
        v3_cross(Wd, bd, a);
        v3_cross(t, b, ad);
        v3_add(Wd, Wd, t);
        v3_scale(Wd, Wd, r->scale);
        Wd[3] = Wd[4] = Wd[5] = 0.0;
        return;
    }
    if (r->kind == MBS_CUT_DISTANCE) { /* n = d / |d|, ndot = (ddot - n (n . ddot)) / |d| */
        const double L = v3_norm(g->d);
        double xpd[3];
        v3_scale(a, g->d, L > 0.0 ? 1.0 / L : 0.0);
        point_vel(xpd, Vp, g->xp);
        v3_sub(t, xcd, xpd);
        v3_copy(ad, t);
        v3_axpy(ad, -v3_dot(a, t), a);
        v3_scale(ad, ad, L > 0.0 ? 1.0 / L : 0.0);
    } else { /* POINT: e turns with the parent */
        v3_cross(ad, Vp, a);
    }
    v3_cross(Wd, xcd, a);
    v3_cross(t, g->xc, ad);
    v3_add(Wd, Wd, t);
    v3_copy(Wd + 3, ad);
}

/* Cut-joint row r: gam = Wdot . (V_c - V_p) + W . (A_c - A_p). */
static double cut_bias(const mbs_data *d, const mbs_con_topo *t, const double *Vw,
                       const double *Aw, int r)
{
    const mbs_joint_model *j = &d->model->joints[t->cut[t->row_cut[r]]];
    const mbs_cut_row *row = &j->rows[r - j->conadr];
    const double *Vp = Vw + 6 * j->parent, *Vc = Vw + 6 * j->child;
    const double *Ap = Aw + 6 * j->parent, *Ac = Aw + 6 * j->child;
    cut_geom g;
    double W[6], Wd[6], dV[6], dA[6];
    geom(d, j, &g);
    row_wrench(&g, row, W);
    row_wrench_dot(&g, row, Vp, Vc, Wd);
    for (int e = 0; e < 6; ++e) dV[e] = Vc[e] - Vp[e], dA[e] = Ac[e] - Ap[e];
    return t->row_scale[r] * (s6_dot(Wd, dV) + s6_dot(W, dA));
}

/* Coordinate row r: J qacc + gam = 0 with J qacc = scale qacc_k, so gam = -scale acc. */
static double coord_bias(const mbs_data *d, const mbs_con_topo *t, const double *Vw,
                         const double *Aw, int r)
{
    (void)Vw, (void)Aw;
    return -t->row_scale[r] * d->ev->row_acc[coord_of(t, r)];
}

/* See constraints.h. */
void mbs_con_bias(const mbs_data *d, const mbs_con_topo *t, const double *Vw,
                  const double *Aw, const int *rows, int n, double *gam)
{
    mbs_uc_begin(t->uc);
    for (int i = 0; i < n; ++i) {
        const int r = row_at(rows, i);
        gam[i] = t->src[t->row_cut[r]]->bias(d, t, Vw, Aw, r);
    }
}

/* See constraints.h. */
double mbs_con_zero_target(const mbs_data *d, const mbs_con_topo *t, int r)
{
    (void)d, (void)t, (void)r;
    return 0.0;
}

/* A coordinate row's scale times its velocity target. */
static double coord_target(const mbs_data *d, const mbs_con_topo *t, int r)
{
    return t->row_scale[r] * d->ev->row_vel[coord_of(t, r)];
}

/* See constraints.h. */
void mbs_con_velocity_target(const mbs_data *d, const mbs_con_topo *t, const int *rows, int n,
                             double *c)
{
    for (int i = 0; i < n; ++i) {
        const int r = row_at(rows, i);
        c[i] = t->src[t->row_cut[r]]->velocity_target(d, t, r);
    }
}

/* "cut joint NAME" of entry c (a coordinate row: the joint of its dof, named as its
   messages named it before coordinate rows had a source of their own). */
static const char *cut_label(const mbs_data *d, const mbs_con_topo *t, int c, char *buf,
                             int len)
{
    char name[80];
    snprintf(buf, (size_t)len, "cut joint %s",
             mbs_joint_label(d->model, t->cut[c], name, (int)sizeof name));
    return buf;
}

/* See constraints.h. */
const char *mbs_con_label(const mbs_data *d, const mbs_con_topo *t, int r, char *buf, int len,
                          int *local)
{
    const int c = t->row_cut[r];
    if (local) *local = r - t->ent_row[c];
    return t->src[c]->label(d, t, c, buf, len);
}

static const mbs_con_source cut_source = {cut_residual, cut_jacobian, cut_bias,
                                          mbs_con_zero_target, cut_label};
static const mbs_con_source coord_source = {coord_residual, coord_jacobian, coord_bias,
                                            coord_target, cut_label};

/* See constraints.h. */
void mbs_con_rows(const mbs_data *d, int joint, const int *k, int n, const double *Vw,
                  double *W, double *Wd)
{
    const mbs_joint_model *j = &d->model->joints[joint];
    cut_geom g;
    geom(d, j, &g);
    for (int i = 0; i < n; ++i) {
        row_wrench(&g, &j->rows[k[i]], W + 6 * i);
        if (Vw) row_wrench_dot(&g, &j->rows[k[i]], Vw + 6 * j->parent, Vw + 6 * j->child, Wd + 6 * i);
    }
}

/* See constraints.h: only the path columns of each row are read. */
void mbs_con_jmul(const mbs_con_topo *t, const int *rows, int n, const double *J,
                  const double *x, double *y)
{
    for (int i = 0; i < n; ++i) {
        const int c = t->row_cut[row_at(rows, i)];
        const double *Ji = J + (size_t)t->nv * (size_t)i;
        double s = 0.0;
        for (int p = t->path_adr[c]; p < t->path_adr[c + 1]; ++p) {
            const int k = t->path_dof[p];
            s += Ji[k] * x[k];
        }
        y[i] = s;
    }
}

/* See constraints.h: sum of lambda_r W_r over the rows of cut joint j. */
void mbs_con_cut_wrench(const mbs_data *d, int joint, const double *lambda, double W[6])
{
    const mbs_joint_model *j = &d->model->joints[joint];
    cut_geom g;
    geom(d, j, &g);
    for (int e = 0; e < 6; ++e) W[e] = 0.0;
    for (int k = 0; k < j->ncon; ++k) {
        double w[6];
        row_wrench(&g, &j->rows[k], w);
        for (int e = 0; e < 6; ++e) W[e] += lambda[j->conadr + k] * w[e];
    }
}
