/* The mass matrix over symbolic scalars and its tree-sparse factorisation (Featherstone,
 * "Rigid Body Dynamics Algorithms" 2008, tables 6.2 to 6.4): the passes of src/core/crba.c
 * for the generator. Loops run over the branch sparsity lambda = dof_parent only, so the
 * generated code holds no product with an entry that is zero by the tree's structure. */
#include "cg_mass.h"

#include <stdlib.h>

/* M[i][j] = M[j][i] = S_j . F for every dof j of the joint into body bb. */
static void crba_column(cg_out *o, const cg_kin *k, int bb, int i, const cg_val F[6], cg_val *M)
{
    const mbs_model *m = k->m;
    const mbs_joint_model *jm = &m->joints[m->bodies[bb].joint];
    for (int a = 0; a < jm->nv; ++a) {
        const int j = jm->vadr + a;
        M[m->nv * i + j] = M[m->nv * j + i] = cg_dot(o, k->S + 6 * j, F, 6);
    }
}

int cg_emit_crba(cg_out *o, const cg_kin *k, cg_val *M)
{
    const mbs_model *m = k->m;
    cg_val *Ic = calloc(36 * (size_t)m->nbody, sizeof(cg_val));
    if (!Ic) return -1;
    for (int i = 0; i < m->nv * m->nv; ++i) M[i] = cg_const(0.0);
    for (int b = 1; b < m->nbody; ++b) cg_rbi_m6(Ic + 36 * b, &m->bodies[b].rbi);
    for (int t = m->ntree - 1; t >= 0; --t) { /* composite inertias, leaves first */
        const int b = m->joints[m->tree[t]].child, p = m->bodies[b].parent;
        if (p == 0) continue;
        cg_val Ip[36];
        cg_m6_transform_to_parent(o, Ip, &k->x_up[b], Ic + 36 * b);
        for (int e = 0; e < 36; ++e) Ic[36 * p + e] = cg_add(o, Ic[36 * p + e], Ip[e]);
    }
    for (int t = 0; t < m->ntree; ++t) { /* F = Ic S_i carried to the root, one row per dof */
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        for (int a = 0; a < jm->nv; ++a) {
            const int i = jm->vadr + a;
            cg_val F[6];
            int bb = jm->child;
            cg_m6_mulv(o, F, Ic + 36 * bb, k->S + 6 * i);
            crba_column(o, k, bb, i, F, M);
            for (; m->bodies[bb].parent > 0; bb = m->bodies[bb].parent) {
                cg_val Fp[6];
                cg_xf_apply_transpose(o, Fp, &k->x_up[bb], F);
                for (int e = 0; e < 6; ++e) F[e] = Fp[e];
                crba_column(o, k, m->bodies[bb].parent, i, F, M);
            }
        }
    }
    free(Ic);
    return 0;
}

void cg_ltdl(cg_out *o, const mbs_model *m, cg_val *H)
{
    const int n = m->nv;
    const int *lam = m->dof_parent;
    for (int k = n - 1; k >= 0; --k)
        for (int i = lam[k]; i >= 0; i = lam[i]) {
            const cg_val a = cg_div(o, H[n * k + i], H[n * k + k]);
            for (int j = i; j >= 0; j = lam[j])
                H[n * i + j] = cg_sub(o, H[n * i + j], cg_mul(o, a, H[n * k + j]));
            H[n * k + i] = a;
        }
}

void cg_ltdl_solve_lt(cg_out *o, const mbs_model *m, const cg_val *H, cg_val *x)
{
    const int n = m->nv;
    for (int i = n - 1; i >= 0; --i)
        for (int j = m->dof_parent[i]; j >= 0; j = m->dof_parent[j])
            x[j] = cg_sub(o, x[j], cg_mul(o, H[n * i + j], x[i]));
}

void cg_ltdl_solve_l(cg_out *o, const mbs_model *m, const cg_val *H, cg_val *x)
{
    const int n = m->nv;
    for (int i = 0; i < n; ++i)
        for (int j = m->dof_parent[i]; j >= 0; j = m->dof_parent[j])
            x[i] = cg_sub(o, x[i], cg_mul(o, H[n * i + j], x[j]));
}
