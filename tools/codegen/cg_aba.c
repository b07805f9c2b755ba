/* The articulated-body algorithm and the recursive Newton-Euler algorithm over symbolic
 * scalars (Featherstone, "Rigid Body Dynamics Algorithms" 2008, tables 7.1 and 5.1), the
 * passes of src/core/aba.c and rnea.c written once for the generator. */
#include "cg_aba.h"

#include <stdlib.h>

/* L D L^T of a symmetric n x n D (n <= 6): L unit lower (below the diagonal), d diagonal. */
typedef struct cg_ldl { int n; cg_val L[36], d[6]; } cg_ldl;

static void ldl_factor(cg_out *o, cg_ldl *f, const cg_val *D, int n)
{
    f->n = n;
    for (int j = 0; j < n; ++j) {
        cg_val s = D[n * j + j];
        for (int k = 0; k < j; ++k)
            s = cg_sub(o, s, cg_mul(o, cg_mul(o, f->L[n * j + k], f->L[n * j + k]), f->d[k]));
        f->d[j] = s;
        for (int i = j + 1; i < n; ++i) {
            cg_val t = D[n * i + j];
            for (int k = 0; k < j; ++k)
                t = cg_sub(o, t, cg_mul(o, cg_mul(o, f->L[n * i + k], f->L[n * j + k]), f->d[k]));
            f->L[n * i + j] = cg_div(o, t, f->d[j]);
        }
    }
}

/* x = D^-1 b in place. */
static void ldl_solve(cg_out *o, const cg_ldl *f, cg_val *x)
{
    const int n = f->n;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < i; ++k) x[i] = cg_sub(o, x[i], cg_mul(o, f->L[n * i + k], x[k]));
    for (int i = 0; i < n; ++i) x[i] = cg_div(o, x[i], f->d[i]);
    for (int i = n - 1; i >= 0; --i)
        for (int k = i + 1; k < n; ++k) x[i] = cg_sub(o, x[i], cg_mul(o, f->L[n * k + i], x[k]));
}

/* Per tree joint of the backward pass: U = IA S, D's factor, u. */
typedef struct cg_abaj { cg_val U[36], u[6]; cg_ldl D; } cg_abaj;

/* pA = v x* (I v) - f_ext for body b, I its rigid-body inertia. */
static void bias_force(cg_out *o, const cg_kin *k, int b, const cg_val I[36], cg_val pA[6])
{
    cg_val Iv[6], t[6];
    cg_m6_mulv(o, Iv, I, k->vel + 6 * b);
    cg_mv_cross_f(o, t, k->vel + 6 * b, Iv);
    for (int r = 0; r < 6; ++r) pA[r] = cg_sub(o, t[r], k->f_ext[6 * b + r]);
}

/* U, D, u of one joint and the articulated inertia and bias it hands to its parent. */
static void aba_back(cg_out *o, const cg_kin *k, const mbs_joint_model *jm, cg_abaj *J,
                     cg_val *IA, cg_val *pA, const cg_val *tau)
{
    const int b = jm->child, p = k->m->bodies[b].parent, n = jm->nv;
    const cg_val *S = k->S + 6 * (n > 0 ? jm->vadr : 0);
    cg_val D[36], Ia[36], pa[6], t[6];
    for (int i = 0; i < n; ++i) {
        cg_m6_mulv(o, J->U + 6 * i, IA + 36 * b, S + 6 * i);
        J->u[i] = cg_sub(o, cg_add(o, tau[jm->vadr + i], k->gen[jm->vadr + i]),
                         cg_dot(o, S + 6 * i, pA + 6 * b, 6));
        for (int l = 0; l < n; ++l) D[n * i + l] = cg_dot(o, S + 6 * l, J->U + 6 * i, 6);
    }
    ldl_factor(o, &J->D, D, n);
    if (p == 0) return;
    cg_val W[36], w[6]; /* W = D^-1 U^T (n x 6), w = D^-1 u */
    for (int r = 0; r < 6; ++r) {
        cg_val col[6];
        for (int i = 0; i < n; ++i) col[i] = J->U[6 * i + r];
        ldl_solve(o, &J->D, col);
        for (int i = 0; i < n; ++i) W[6 * i + r] = col[i];
    }
    for (int i = 0; i < n; ++i) w[i] = J->u[i];
    ldl_solve(o, &J->D, w);
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c) {
            cg_val s = IA[36 * b + 6 * r + c];
            for (int i = 0; i < n; ++i) s = cg_sub(o, s, cg_mul(o, J->U[6 * i + r], W[6 * i + c]));
            Ia[6 * r + c] = s;
        }
    cg_m6_mulv(o, pa, Ia, k->c + 6 * b);
    for (int r = 0; r < 6; ++r) {
        pa[r] = cg_add(o, pA[6 * b + r], pa[r]);
        for (int i = 0; i < n; ++i) pa[r] = cg_add(o, pa[r], cg_mul(o, J->U[6 * i + r], w[i]));
    }
    cg_val IAp[36];
    cg_m6_transform_to_parent(o, IAp, &k->x_up[b], Ia);
    for (int e = 0; e < 36; ++e) IA[36 * p + e] = cg_add(o, IA[36 * p + e], IAp[e]);
    cg_xf_apply_transpose(o, t, &k->x_up[b], pa);
    for (int r = 0; r < 6; ++r) pA[6 * p + r] = cg_add(o, pA[6 * p + r], t[r]);
}

/* a = X a_p + c; qdd = D^-1 (u - U^T a); a += S qdd. */
static void aba_forward(cg_out *o, const cg_kin *k, const mbs_joint_model *jm, const cg_abaj *J,
                        cg_val *acc, cg_val *qdd)
{
    const int b = jm->child, p = k->m->bodies[b].parent, n = jm->nv;
    cg_val a[6];
    cg_xm_apply(o, a, &k->x_up[b], acc + 6 * p);
    for (int r = 0; r < 6; ++r) a[r] = cg_add(o, a[r], k->c[6 * b + r]);
    cg_val x[6];
    for (int i = 0; i < n; ++i) x[i] = cg_sub(o, J->u[i], cg_dot(o, J->U + 6 * i, a, 6));
    ldl_solve(o, &J->D, x);
    for (int i = 0; i < n; ++i) {
        qdd[jm->vadr + i] = x[i];
        for (int r = 0; r < 6; ++r)
            a[r] = cg_add(o, a[r], cg_mul(o, k->S[6 * (jm->vadr + i) + r], x[i]));
    }
    for (int r = 0; r < 6; ++r) acc[6 * b + r] = a[r];
}

int cg_emit_aba(cg_out *o, const cg_kin *k, const cg_val *tau, cg_val *qdd)
{
    const mbs_model *m = k->m;
    cg_val *IA = calloc(36 * (size_t)m->nbody, sizeof(cg_val));
    cg_val *pA = calloc(6 * (size_t)m->nbody, sizeof(cg_val));
    cg_val *acc = calloc(6 * (size_t)m->nbody, sizeof(cg_val));
    cg_abaj *J = calloc((size_t)m->ntree + 1, sizeof(cg_abaj));
    if (!IA || !pA || !acc || !J) {
        free(IA), free(pA), free(acc), free(J);
        return -1;
    }
    for (int e = 0; e < 6; ++e) acc[e] = cg_const(0.0);
    for (int b = 1; b < m->nbody; ++b) {
        cg_rbi_m6(IA + 36 * b, &m->bodies[b].rbi);
        bias_force(o, k, b, IA + 36 * b, pA + 6 * b);
    }
    for (int t = m->ntree - 1; t >= 0; --t)
        aba_back(o, k, &m->joints[m->tree[t]], &J[t], IA, pA, tau);
    for (int t = 0; t < m->ntree; ++t) aba_forward(o, k, &m->joints[m->tree[t]], &J[t], acc, qdd);
    free(IA), free(pA), free(acc), free(J);
    return 0;
}

int cg_emit_rnea(cg_out *o, const cg_kin *k, const cg_val *qdd, cg_val *tau)
{
    const mbs_model *m = k->m;
    cg_val *acc = calloc(6 * (size_t)m->nbody, sizeof(cg_val));
    cg_val *f = calloc(6 * (size_t)m->nbody, sizeof(cg_val));
    if (!acc || !f) {
        free(acc), free(f);
        return -1;
    }
    for (int e = 0; e < 6; ++e) acc[e] = f[e] = cg_const(0.0);
    for (int t = 0; t < m->ntree; ++t) { /* a = X a_p + S qdd + c; f = I a + v x* I v - f_ext */
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        cg_val a[6], I[36], Ia[6], pA[6];
        cg_xm_apply(o, a, &k->x_up[b], acc + 6 * p);
        for (int r = 0; r < 6; ++r) {
            a[r] = cg_add(o, a[r], k->c[6 * b + r]);
            for (int i = 0; i < jm->nv; ++i)
                a[r] = cg_add(o, a[r], cg_mul(o, k->S[6 * (jm->vadr + i) + r], qdd[jm->vadr + i]));
            acc[6 * b + r] = a[r];
        }
        cg_rbi_m6(I, &m->bodies[b].rbi);
        cg_m6_mulv(o, Ia, I, a);
        bias_force(o, k, b, I, pA);
        for (int r = 0; r < 6; ++r) f[6 * b + r] = cg_add(o, Ia[r], pA[r]);
    }
    for (int t = m->ntree - 1; t >= 0; --t) { /* tau = S^T f - gen; f_p += X^T f */
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        for (int i = 0; i < jm->nv; ++i)
            tau[jm->vadr + i] = cg_sub(o, cg_dot(o, k->S + 6 * (jm->vadr + i), f + 6 * b, 6),
                                       k->gen[jm->vadr + i]);
        cg_val fp[6];
        cg_xf_apply_transpose(o, fp, &k->x_up[b], f + 6 * b);
        for (int r = 0; r < 6; ++r) f[6 * p + r] = cg_add(o, f[6 * p + r], fp[r]);
    }
    free(acc), free(f);
    return 0;
}
