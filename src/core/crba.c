/* Composite-rigid-body mass matrix (RBDA table 6.2) and its tree-sparse L^T D L
 * factorisation and solve (RBDA §6.5, tables 6.3 and 6.4). */
#include "core/internal.h"

/* Rows i.. of M for the dofs of body b's joint: M_ij = S_j^T X^T ... Ic_b S_i up the
   ancestors (RBDA table 6.2 inner loop); Ic_b must be complete. */
static void crba_rows(mbs_data *d, const mbs_joint_model *jm, double *M)
{
    const mbs_model *m = d->model;
    const int nv = m->nv;
    for (int k = 0; k < jm->nv; ++k) {
        const int i = jm->vadr + k;
        double F[6], G[6];
        rbi_mulv(F, &d->Ic[jm->child], d->S + 6 * i);
        for (int l = 0; l <= k; ++l) { /* diagonal block */
            const int r = jm->vadr + l;
            M[nv * i + r] = M[nv * r + i] = s6_dot(d->S + 6 * r, F);
        }
        for (int b = jm->child; m->bodies[b].parent > 0; b = m->bodies[b].parent) {
            const mbs_joint_model *pj = &m->joints[m->bodies[m->bodies[b].parent].joint];
            xf_apply_transpose(G, &d->x_up[b], F);
            for (int e = 0; e < 6; ++e) F[e] = G[e];
            for (int l = 0; l < pj->nv; ++l) {
                const int r = pj->vadr + l;
                M[nv * i + r] = M[nv * r + i] = s6_dot(d->S + 6 * r, F);
            }
        }
    }
}

/* M (nv x nv row-major, full) at the current kinematics. */
void mbs_crba(mbs_data *d, double *M)
{
    const mbs_model *m = d->model;
    const int nv = m->nv;
    for (int i = 0; i < nv * nv; ++i) M[i] = 0.0;
    for (int t = 0; t < m->ntree; ++t) {
        const int b = m->joints[m->tree[t]].child;
        d->Ic[b] = m->bodies[b].rbi;
    }
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        crba_rows(d, jm, M);
        if (p > 0) { /* Ic_p += X^T Ic_b X */
            mbs_rbi x;
            rbi_transform_to_parent(&x, &d->x_up[b], &d->Ic[b]);
            d->Ic[p].m += x.m;
            for (int e = 0; e < 3; ++e) d->Ic[p].h[e] += x.h[e];
            for (int e = 0; e < 9; ++e) d->Ic[p].I[e] += x.I[e];
        }
    }
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
