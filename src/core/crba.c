/* Composite-rigid-body mass matrix (RBDA table 6.2) and its tree-sparse L^T D L
 * factorisation and solve (RBDA §6.5, tables 6.3 and 6.4). */
#include "core/internal.h"

/* Pose of body b about the origin of its root body (the first body of its subtree below
   the world): world rotation, position p_root[b] = R_parent p_up + p_root[parent] summed from
   the root down (parents first), never through the world position, so a system far from
   the origin loses no digits. */
static void pose_about_root(mbs_data *d, int b, mbs_pose *X)
{
    const mbs_pose *xw = &d->x_world[b], *up = &d->x_up[b];
    const int p = d->model->bodies[b].parent;
    double *pr = d->p_root + 3 * b;
    if (d->root_body[b] == b) {
        pr[0] = pr[1] = pr[2] = 0.0;
    } else {
        m3_mulv(pr, d->x_world[p].R, up->p);
        v3_add(pr, pr, d->p_root + 3 * p);
    }
    for (int i = 0; i < 9; ++i) X->R[i] = xw->R[i];
    v3_copy(X->p, pr);
}

/* Body inertias and motion subspaces in the root frame of each subtree: Ic (nbody) and
   Sw (6 nv). With both in one frame, the composite inertia of a subtree is a plain sum
   and M_ij = Sw_j . (Ic_i Sw_i) needs no transform per ancestor (Featherstone RBDA §6.2,
   the "world coordinates" variant that Pinocchio also uses). */
static void crba_root_frame(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child;
        mbs_pose X;
        pose_about_root(d, b, &X);
        rbi_transform_to_parent(&d->Ic[b], &X, &m->bodies[b].rbi);
        for (int k = 0; k < jm->nv; ++k)
            xm_apply_inv(d->Sw + 6 * (jm->vadr + k), &X, d->S + 6 * (jm->vadr + k));
    }
}

/* Ic_p += Ic_b: 13 contiguous doubles (m, h, I) added in place. */
static inline void rbi_add(mbs_rbi *restrict o, const mbs_rbi *restrict a)
{
    o->m += a->m;
    for (int e = 0; e < 3; ++e) o->h[e] += a->h[e];
    for (int e = 0; e < 9; ++e) o->I[e] += a->I[e];
}

/* Composite inertias from the leaves up and, as each one completes, the force
   F_i = Ic S_i of every dof of the joint into its body (RBDA table 6.2, first half). */
static void crba_forces(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        for (int k = 0; k < jm->nv; ++k)
            rbi_mulv(d->Fw + 6 * (jm->vadr + k), &d->Ic[b], d->Sw + 6 * (jm->vadr + k));
        if (p > 0) rbi_add(&d->Ic[p], &d->Ic[b]); /* same frame: a plain sum */
    }
}

/* Rows i and p = lambda(i) of the lower triangle at once: both need Sw_j . F for every
   ancestor j of p, so each Sw_j is loaded once for two dot products (two lanes, each
   summed in the order of s6_dot, so the result is the same bit for bit). */
static void crba_row_pair(const mbs_data *d, int i, int p, double *restrict M)
{
    const int nv = d->model->nv;
    const int *lam = d->model->dof_parent;
    const double *restrict Sw = d->Sw, *restrict Fi = d->Fw + 6 * i, *restrict Fp = d->Fw + 6 * p;
    double *restrict ri = M + (size_t)nv * (size_t)i, *restrict rp = M + (size_t)nv * (size_t)p;
    mbs_d2 f[6];
    for (int k = 0; k < 6; ++k) f[k] = d2_set(Fi[k], Fp[k]);
    ri[i] = s6_dot(Sw + 6 * i, Fi);
    ri[p] = s6_dot(Sw + 6 * p, Fi);
    rp[p] = s6_dot(Sw + 6 * p, Fp);
    for (int j = lam[p]; j >= 0; j = lam[j]) {
        const double *restrict s = Sw + 6 * j;
        mbs_d2 a = d2_mul(f[0], d2_splat(s[0]));
        for (int k = 1; k < 6; ++k) a = d2_add(a, d2_mul(f[k], d2_splat(s[k])));
        ri[j] = d2_lo(a);
        rp[j] = d2_hi(a);
    }
}

/* Row i of the lower triangle alone: diagonal and one dot product per ancestor dof. */
static void crba_row(const mbs_data *d, int i, double *restrict M)
{
    const int nv = d->model->nv;
    const int *lam = d->model->dof_parent;
    const double *restrict Sw = d->Sw, *restrict F = d->Fw + 6 * i;
    double *restrict row = M + (size_t)nv * (size_t)i;
    row[i] = s6_dot(Sw + 6 * i, F);
    for (int j = lam[i]; j >= 0; j = lam[j]) row[j] = s6_dot(Sw + 6 * j, F);
}

/* Zero the lower-triangle entries of rows that have non-ancestor dofs before them (a
   branched tree); a chain has none. */
static void crba_zero_branches(const mbs_data *d, double *M)
{
    const int nv = d->model->nv;
    for (int i = 0; i < nv; ++i)
        if (d->dof_depth[i] < i)
            for (int j = 0; j < i; ++j) M[(size_t)nv * i + j] = 0.0;
}

/* See internal.h: the lower triangle of M, diagonal included. Rows are taken from the
   deepest dof up, each paired with its nearest ancestor dof when that row is still to do. */
void mbs_crba_lower(mbs_data *d, double *M)
{
    const int nv = d->model->nv;
    const int *lam = d->model->dof_parent;
    unsigned char *done = d->crba_done;
    crba_root_frame(d);
    crba_forces(d);
    crba_zero_branches(d, M);
    for (int i = 0; i < nv; ++i) done[i] = 0;
    for (int i = nv - 1; i >= 0; --i) {
        if (done[i]) continue;
        const int p = lam[i];
        if (p >= 0 && !done[p]) {
            crba_row_pair(d, i, p, M);
            done[p] = 1;
        } else {
            crba_row(d, i, M);
        }
    }
}

/* M (nv x nv row-major, full) from the current poses and S. */
void mbs_crba(mbs_data *d, double *M)
{
    const int nv = d->model->nv;
    mbs_crba_lower(d, M);
    for (int i = 0; i < nv; ++i)
        for (int j = i + 1; j < nv; ++j) M[nv * i + j] = M[nv * j + i];
}

/* In-place M = L^T D L over the branch sparsity lambda = dof_parent (RBDA table 6.3):
   strictly lower part of M becomes L (unit diagonal implied), the diagonal becomes D.
   MBS_ERR_SINGULAR when a pivot is not positive relative to the largest diagonal. */
int mbs_mass_factor(const mbs_model *m, double *M)
{
    const int n = m->nv;
    const int *lam = m->dof_parent;
    double scale = 0.0;
    for (int k = 0; k < n; ++k)
        if (M[n * k + k] > scale) scale = M[n * k + k];
    for (int k = n - 1; k >= 0; --k) {
        const double Hkk = M[n * k + k];
        if (!(Hkk > 1e-13 * scale) || !(Hkk < INFINITY)) return MBS_ERR_SINGULAR;
        for (int i = lam[k]; i >= 0; i = lam[i]) {
            const double a = M[n * k + i] / Hkk;
            for (int j = i; j >= 0; j = lam[j]) M[n * i + j] -= a * M[n * k + j];
            M[n * k + i] = a;
        }
    }
    return MBS_OK;
}

/* Solve M x = b in place (x holds b on entry) with the factor of mbs_mass_factor
   (RBDA table 6.4): L^T z = b, y = D^-1 z, L x = y. */
void mbs_mass_solve(const mbs_model *m, const double *LDL, double *x)
{
    const int n = m->nv;
    const int *lam = m->dof_parent;
    for (int i = n - 1; i >= 0; --i)
        for (int j = lam[i]; j >= 0; j = lam[j]) x[j] -= LDL[n * i + j] * x[i];
    for (int i = 0; i < n; ++i) x[i] /= LDL[n * i + i];
    for (int i = 0; i < n; ++i)
        for (int j = lam[i]; j >= 0; j = lam[j]) x[i] -= LDL[n * i + j] * x[j];
}
