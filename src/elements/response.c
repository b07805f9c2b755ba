/* The tree's response to forces alone, qdd = M^-1 (gen + J^T f), with the articulated
 * inertias ABA has just factored (U, D^-1 of every joint, native rotors included): the
 * second half of ABA run again with no velocity terms (Featherstone, "Rigid Body Dynamics
 * Algorithms" 2008, §7.3: ABA applies M^-1 in O(N)). couplings.c uses it for the columns of
 * G M^-1 G^T and for the final correction of qacc. */
#include "elements/couplings.h"

/* Backward step of one joint: u = gen - S^T pA, g = D^-1 u into u, pA_p += X^T (pA + U g)
   (+ the native rotors' U_r g). */
static void response_back(mbs_data *d, int t, const mbs_joint_model *jm, double *pAall,
                          const double *gen, double *u)
{
    const int n = jm->nv, i0 = jm->vadr, b = jm->child, p = d->model->bodies[b].parent;
    const double *pA = pAall + 6 * b, *U = d->U + 6 * (n > 0 ? i0 : 0);
    const double *Dinv = d->Dinv + 6 * i0;
    double r[6], g[6] = {0}, pa[6], fX[6];
    for (int k = 0; k < n; ++k) r[k] = gen[i0 + k] - s6_dot(d->S + 6 * (i0 + k), pA);
    for (int k = 0; k < n; ++k)
        for (int l = 0; l < n; ++l) g[k] += Dinv[n * k + l] * r[l];
    for (int k = 0; k < n; ++k) u[i0 + k] = r[k];
    for (int e = 0; e < 6; ++e) {
        pa[e] = pA[e];
        for (int k = 0; k < n; ++k) pa[e] += U[6 * k + e] * g[k];
    }
    if (p <= 0) return;
    xf_apply_transpose(fX, &d->x_up[b], pa);
    for (int e = 0; e < 6; ++e) pAall[6 * p + e] += fX[e];
    if (jm->rotor_parent)
        for (int e = 0; e < 3; ++e) pAall[6 * p + e] += jm->rotor_U[e] * g[0];
}

/* Forward step of one joint: a = X a_p, qdd = D^-1 (u - U^T a - native rotors' U_r . a_p),
   a += S qdd. */
static void response_fwd(mbs_data *d, int t, const mbs_joint_model *jm, double *acc,
                         const double *u, double *qdd)
{
    const int n = jm->nv, i0 = jm->vadr, b = jm->child, p = d->model->bodies[b].parent;
    const double *ap = acc + 6 * p, *Dinv = d->Dinv + 6 * i0;
    double *a = acc + 6 * b, r[6];
    xm_apply(a, &d->x_up[b], ap);
    for (int k = 0; k < n; ++k) r[k] = u[i0 + k] - s6_dot(d->U + 6 * (i0 + k), a);
    if (jm->rotor_parent) r[0] -= v3_dot(jm->rotor_U, ap);
    for (int k = 0; k < n; ++k) {
        double x = 0.0;
        for (int l = 0; l < n; ++l) x += Dinv[n * k + l] * r[l];
        qdd[i0 + k] = x;
    }
    for (int k = 0; k < n; ++k)
        for (int e = 0; e < 6; ++e) a[e] += d->S[6 * (i0 + k) + e] * qdd[i0 + k];
}

/* See couplings.h: f holds the body forces on entry and is used as pA (so consumed); qdd
   doubles as the scratch of u. */
void mbs_aba_response(mbs_data *d, double *f, const double *gen, double *acc, double *qdd)
{
    const mbs_model *m = d->model;
    for (int e = 0; e < 6 * m->nbody; ++e) f[e] = -f[e]; /* pA = -f_ext */
    for (int t = m->ntree - 1; t >= 0; --t)
        response_back(d, t, &m->joints[m->tree[t]], f, gen, qdd);
    for (int e = 0; e < 6; ++e) acc[e] = 0.0;
    for (int t = 0; t < m->ntree; ++t)
        response_fwd(d, t, &m->joints[m->tree[t]], acc, qdd, qdd);
}
