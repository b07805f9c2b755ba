/* Composite-rigid-body mass matrix (RBDA table 6.2) and its tree-sparse L^T D L
 * factorisation and solve (RBDA §6.5, tables 6.3 and 6.4). */
#include "core/kernels.h"
/* GCC: no automatic vectorization here (the rows are vectorized by hand): its vector sums of
   the composite inertias read back what the previous body's step stored one double at a
   time (measured with bench/ab.sh: mass matrix 4-12 % faster without it). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

/* Generic kernel: motion subspaces in the root frame of each subtree, Sw (6 nv). With S and
   the forces F = Ic S in one frame, M_ij = Sw_j . F_i needs no transform per ancestor
   (Featherstone RBDA §6.2, the "world coordinates" variant that Pinocchio also uses). */
void mbs_crba_frame_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p)
{
    mbs_pose X;
    const double *pr = mbs_crba_root_origin(d, b, p);
    d->Ic[b] = d->model->bodies[b].rbi;
    for (int i = 0; i < 9; ++i) X.R[i] = d->x_world[b].R[i];
    v3_copy(X.p, pr);
    for (int k = 0; k < jm->nv; ++k)
        xm_apply_inv(d->Sw + 6 * (jm->vadr + k), &X, d->S + 6 * (jm->vadr + k));
}

/* Generic kernel: Fw = Ic S in the root frame, then the composite inertia into the parent's
   (RBDA table 6.2, Ic_p += X^T Ic_b X in body coordinates: a rotation about a joint axis is
   cheaper there than the body inertia's rotation into the root frame). */
void mbs_crba_backward_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p)
{
    const mbs_rbi *Ic = &d->Ic[b];
    for (int k = 0; k < jm->nv; ++k) {
        double f[6];
        rbi_mulv(f, Ic, d->S + 6 * (jm->vadr + k));
        mbs_crba_force_to_root(d, b, d->Fw + 6 * (jm->vadr + k), f);
    }
    if (p > 0) rbi_transform_add(&d->Ic[p], d->x_up[b].R, d->x_up[b].p, Ic);
}

/* Generic kernel: pose, S and frame step in one (mbs_kinematics_crba). */
void mbs_crba_pose_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p)
{
    mbs_kin_pose_generic(d, jm, b, p);
    mbs_kin_subspace_generic(d, jm);
    mbs_crba_frame_generic(d, jm, b, p);
}

/* The frame step of every joint (parents first: p_root is summed down the tree, and Ic[b]
   starts at the body's own inertia before any child adds to it). */
static void crba_root_frame(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        jm->kern->crba_frame(d, jm, jm->child, jm->parent);
    }
}

/* Composite inertias from the leaves up and, as each one completes, the force
   F_i = Ic S_i of every dof of the joint (RBDA table 6.2, first half). */
static void crba_forces(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        jm->kern->crba_backward(d, jm, jm->child, jm->parent);
    }
}

/* Rows g[0..n-1] (n <= 4, g[r+1] = lambda(g[r])) of M at once, each entry written to the
   lower and the upper triangle: the entries among them one by one, then for every ancestor
   j of g[n-1] the n dot products Sw_j . F_g[r] with Sw_j loaded once (two lane pairs).
   Every dot is summed in the order of s6_dot. Returns the sum of 0 * entry over the entries
   written: 0, or NaN when one of them is not finite. */
static double crba_rows(const mbs_data *d, const int *g, int n, double *restrict M)
{
    const size_t nv = (size_t)d->model->nv;
    const int *lam = d->model->dof_parent;
    const double *restrict Sw = d->Sw, *restrict F = d->Fw;
    double z = 0.0;
    for (int r = 0; r < n; ++r)
        for (int c = r; c < n; ++c) {
            const double x = s6_dot(Sw + 6 * g[c], F + 6 * g[r]);
            M[nv * (size_t)g[r] + (size_t)g[c]] = M[nv * (size_t)g[c] + (size_t)g[r]] = x;
            z += 0.0 * x;
        }
    const int g1 = g[n > 1 ? 1 : 0], g2 = g[n > 2 ? 2 : 0], g3 = g[n > 3 ? 3 : n - 1];
    const double *F0 = F + 6 * g[0], *F1 = F + 6 * g1, *F2 = F + 6 * g2, *F3 = F + 6 * g3;
    double *restrict r0 = M + nv * (size_t)g[0], *restrict r1 = M + nv * (size_t)g1;
    double *restrict r2 = M + nv * (size_t)g2, *restrict r3 = M + nv * (size_t)g3;
    mbs_d2 f01[6], f23[6], zz = d2_splat(0.0);
    for (int k = 0; k < 6; ++k) f01[k] = d2_set(F0[k], F1[k]), f23[k] = d2_set(F2[k], F3[k]);
    const mbs_d2 zero = d2_splat(0.0);
    for (int j = lam[g[n - 1]]; j >= 0; j = lam[j]) {
        const double *restrict s = Sw + 6 * j;
        double *restrict cj = M + nv * (size_t)j; /* row j: the upper-triangle copies */
        mbs_d2 a = d2_mul(f01[0], d2_splat(s[0])), c = d2_mul(f23[0], d2_splat(s[0]));
        MBS_UNROLL(5)
        for (int k = 1; k < 6; ++k) {
            const mbs_d2 sk = d2_splat(s[k]);
            a = d2_add(a, d2_mul(f01[k], sk));
            if (n > 2) c = d2_add(c, d2_mul(f23[k], sk));
        }
        r0[j] = cj[g[0]] = d2_lo(a), r1[j] = cj[g1] = d2_hi(a);
        zz = d2_add(zz, d2_mul(zero, a));
        if (n > 2) {
            r2[j] = cj[g2] = d2_lo(c), r3[j] = cj[g3] = d2_hi(c);
            zz = d2_add(zz, d2_mul(zero, c));
        }
    }
    return z + (d2_lo(zz) + d2_hi(zz));
}

/* Zero M when the tree is branched (rows with non-ancestor dofs before them: their entries
   are the zero blocks the rows leave unwritten), in one call (measured faster than
   row by row; callgrind counts its rep stosb per byte); a chain has none. */
static void crba_zero_branches(const mbs_data *d, double *M)
{
    const int nv = d->model->nv;
    for (int i = 0; i < nv; ++i)
        if (d->dof_depth[i] < i) {
            memset(M, 0, (size_t)nv * (size_t)nv * sizeof *M);
            return;
        }
}

/* See internal.h: rows are taken from the deepest dof up, in groups of up to four along the
   path to the root (the row and its nearest ancestor dofs whose rows are still to do). */
void mbs_crba_groups_init(mbs_data *d)
{
    const int nv = d->model->nv;
    const int *lam = d->model->dof_parent;
    unsigned char *done = d->crba_done;
    for (int i = 0; i < nv; ++i) done[i] = 0;
    d->crba_ngroup = 0;
    for (int i = nv - 1; i >= 0; --i) {
        if (done[i]) continue;
        int *g = d->crba_group + 5 * d->crba_ngroup++, n = 0;
        for (int j = i; j >= 0 && !done[j] && n < 4; j = lam[j]) g[1 + n++] = j, done[j] = 1;
        g[0] = n;
    }
}

/* See internal.h. */
int mbs_crba(mbs_data *d, double *M)
{
    crba_root_frame(d);
    return mbs_crba_framed(d, M);
}

/* See internal.h: M, both triangles, the rows by the groups of mbs_crba_groups_init. */
int mbs_crba_framed(mbs_data *d, double *M)
{
    crba_forces(d);
    crba_zero_branches(d, M);
    double z = 0.0;
    for (int k = 0; k < d->crba_ngroup; ++k) {
        const int *g = d->crba_group + 5 * k;
        z += crba_rows(d, g + 1, g[0], M);
    }
    return z == 0.0;
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
