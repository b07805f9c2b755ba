/* Planar models whose loops are closed in closed form run the planar path (src/planar/;
 * Höbinger, Otter, "PlanarMultiBody - a Modelica library for planar multi-body systems"):
 * planar poses for the closures, the reduced dynamics with planar motion and force vectors
 * and 3 x 3 inertias. The loops' rates keep their 6-vector algebra (rates.c) on motion
 * subspaces and wrenches built from the planar frames: world spatial vectors (w n, v1 e1 + v2
 * e2) of the planar ones, and the 3-D poses of the cut joints' bodies only. The row
 * selection is the assemblies' own rows, two per loop in the plane: nothing to select, no
 * redundant out-of-plane row to drop. */
#include "closure/closure.h"

#include <math.h>

#include "planar/planar.h"
#include "solvers/loops.h"

/* ---------------------------------------------------------------- compile */

/* See closure.h: every assembly planar, its normal along n. */
int mbs_closure_planar_ok(const mbs_model *m, const double n[3])
{
    const mbs_closure_model *cm = m->closure;
    if (!cm) return 0;
    for (int i = 0; i < cm->nasm; ++i) {
        double c[3];
        v3_cross(c, cm->asm_[i].n0, n);
        if (!cm->asm_[i].planar || v3_norm(c) > 1e-12) return 0;
    }
    return 1;
}

/* A frame (origin p, direction g, body coordinates) of body b in its planar frame. */
static void planar_frame(const mbs_planar *p, int b, const double pt[3], const double g[3],
                         double r[2], double u[2])
{
    double x[3], y[3];
    if (b == MBS_WORLD) v3_copy(x, pt), v3_copy(y, g);
    else m3_mulv(x, p->bodies[b].R0, pt), m3_mulv(y, p->bodies[b].R0, g);
    r[0] = v3_dot(x, p->e1), r[1] = v3_dot(x, p->e2);
    u[0] = v3_dot(y, p->e1), u[1] = v3_dot(y, p->e2);
}

/* See closure.h. */
void mbs_closure_planar_links(mbs_model *m)
{
    for (int i = 0; m->closure && m->planar && i < m->closure->nasm; ++i)
        for (int k = 0; k < 3; ++k) {
            mbs_planar_link *L = &m->closure->asm_[i].link[k];
            planar_frame(m->planar, L->body_in, L->p_in, L->g_in, L->pr_in, L->pu_in);
            planar_frame(m->planar, L->body_out, L->p_out, L->g_out, L->pr_out, L->pu_out);
        }
}

/* ---------------------------------------------------------------- 3-D views of planar frames */

/* World spatial vector (w n, v at the world origin) of the planar motion m given in body b's
   planar frame. */
static void world_motion3(const mbs_planar *p, const mbs_planar_data *w, int b, const double m[3],
                          double o[6])
{
    const double c = w->th[2 * b], s = w->th[2 * b + 1], *P = w->P + 2 * b;
    const double vx = c * m[1] - s * m[2] - m[0] * -P[1], vy = s * m[1] + c * m[2] - m[0] * P[0];
    for (int i = 0; i < 3; ++i) o[i] = m[0] * p->n[i], o[3 + i] = vx * p->e1[i] + vy * p->e2[i];
}

/* Sw of every dof from the planar S, and the 3-D poses of the cut joints' bodies (the rest of
   x_world is not touched and not current: the pose generation moves on). */
static void synth_world(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_planar *p = m->planar;
    const mbs_planar_data *w = d->planar;
    mbs_closure_data *C = d->closure;
    for (int k = 0; k < m->nv; ++k) world_motion3(p, w, m->joints[m->dof_joint[k]].child, w->S + 3 * k, C->Sw + 6 * k);
    const mbs_closure_model *cm = m->closure;
    for (int i = 0; i < cm->ncutbody; ++i) {
        const int b = cm->cutbody[i];
        double R[9];
        const double cs = w->th[2 * b], sn = w->th[2 * b + 1], *n = p->n, t = 1.0 - cs;
        R[0] = cs + t * n[0] * n[0], R[1] = -sn * n[2] + t * n[0] * n[1], R[2] = sn * n[1] + t * n[0] * n[2];
        R[3] = sn * n[2] + t * n[1] * n[0], R[4] = cs + t * n[1] * n[1], R[5] = -sn * n[0] + t * n[1] * n[2];
        R[6] = -sn * n[1] + t * n[2] * n[0], R[7] = sn * n[0] + t * n[2] * n[1], R[8] = cs + t * n[2] * n[2];
        mbs_pose *X = &d->x_world[b]; /* R(n, theta) R0 */
        m3_mul(X->R, R, p->bodies[b].R0);
        for (int r = 0; r < 3; ++r)
            X->p[r] = w->P[2 * b] * p->e1[r] + w->P[2 * b + 1] * p->e2[r] + p->bodies[b].n0 * n[r];
    }
    d->kin_gen++;
}

/* ---------------------------------------------------------------- closure */

/* See closure.h. */
void mbs_closure_planar_frame(const mbs_data *d, const mbs_planar_link *L, int out, double P[2],
                              double u[2])
{
    const mbs_planar_data *w = d->planar;
    const int b = out ? L->body_out : L->body_in;
    const double *r = out ? L->pr_out : L->pr_in, *g = out ? L->pu_out : L->pu_in;
    const double c = w->th[2 * b], s = w->th[2 * b + 1];
    P[0] = w->P[2 * b] + c * r[0] - s * r[1], P[1] = w->P[2 * b + 1] + s * r[0] + c * r[1];
    u[0] = c * g[0] - s * g[1], u[1] = s * g[0] + c * g[1];
}

/* See closure.h: S of the planar joints, then Sw and the cut bodies' poses. */
void mbs_closure_planar_subspace(mbs_data *d)
{
    mbs_planar_subspace(d);
    synth_world(d);
}

/* See closure.h: the assemblies' own rows, no QR. */
int mbs_closure_planar_rows(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_closure_data *C = d->closure;
    unsigned char *active = (unsigned char *)C->h; /* ncon bytes of scratch */
    memset(active, 0, (size_t)m->ncon);
    for (int i = 0; i < m->closure->nasm; ++i) {
        const mbs_assembly *a = &m->closure->asm_[i];
        for (int r = 0; r < a->ndep; ++r) active[m->joints[a->cut].conadr + a->row[r]] = 1;
    }
    return mbs_loops_set_selection(d, active);
}

/* ---------------------------------------------------------------- dynamics */

/* Velocity-product accelerations a0 (planar, body frames) and, for the cut bodies, the world
   spatial velocity and a0 (3-D) into Vw, Aw. */
static void planar_accel0(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_planar *p = m->planar;
    const mbs_planar_data *w = d->planar;
    mbs_closure_data *C = d->closure;
    double *a0 = C->a0; /* 3 per body here */
    a0[0] = a0[1] = a0[2] = 0.0;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &p->joints[t];
        double a[3];
        mbs_planar_xm(a, w->pose + 4 * pj->child, a0 + 3 * pj->parent);
        for (int e = 0; e < 3; ++e) a0[3 * pj->child + e] = a[e] + w->c[3 * pj->child + e];
    }
    for (int i = 0; i < m->closure->ncutbody; ++i) {
        const int b = m->closure->cutbody[i];
        world_motion3(p, w, b, w->vel + 3 * b, C->Vw + 6 * b);
        world_motion3(p, w, b, a0 + 3 * b, C->Aw + 6 * b);
    }
    for (int e = 0; e < 6; ++e) C->Vw[e] = C->Aw[e] = 0.0; /* the world */
}

/* x (planar motion) = X a_p + sum_k S_k y_k for body b. */
static void planar_propagate(const mbs_data *d, const mbs_planar_joint *pj, int nv, const double *ap,
                             const double *y, double a[3])
{
    const mbs_planar_data *w = d->planar;
    if (ap) mbs_planar_xm(a, w->pose + 4 * pj->child, ap);
    else a[0] = a[1] = a[2] = 0.0;
    for (int k = 0; k < nv; ++k)
        for (int e = 0; e < 3; ++e) a[e] += w->S[3 * (pj->vadr + k) + e] * y[pj->vadr + k];
}

/* The forward pass (reduced.c's, planar): w->acc = A, w->f = F (replacing the external
   forces), C->VB, C->IVB (3 per body and column), C->Mr, C->x. */
static void planar_forward_pass(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_planar *p = m->planar;
    mbs_planar_data *w = d->planar;
    mbs_closure_data *C = d->closure;
    const int nv = m->nv, nd = m->closure->ndof, nb = m->nbody;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &p->joints[t];
        const int b = pj->child, par = pj->parent, jnv = m->joints[m->tree[t]].nv;
        double *A = w->acc + 3 * b, *F = w->f + 3 * b, IA[3], Iv[3], h[3];
        planar_propagate(d, pj, jnv, par > 0 ? w->acc + 3 * par : NULL, C->b, A);
        for (int e = 0; e < 3; ++e) A[e] += w->c[3 * b + e];
        mbs_planar_inertia_mulv(p, b, A, IA);
        mbs_planar_inertia_mulv(p, b, w->vel + 3 * b, Iv);
        mbs_planar_cross_f(h, w->vel + 3 * b, Iv);
        for (int e = 0; e < 3; ++e) F[e] = IA[e] + h[e] - F[e];
        for (int j = 0; j < nd; ++j) {
            double *V = C->VB + 3 * ((size_t)nb * j + b), *IV = C->IVB + 3 * ((size_t)nb * j + b);
            planar_propagate(d, pj, jnv, par > 0 ? C->VB + 3 * ((size_t)nb * j + par) : NULL,
                             C->B + (size_t)nv * j, V);
            mbs_planar_inertia_mulv(p, b, V, IV);
            C->x[j] -= V[0] * F[0] + V[1] * F[1] + V[2] * F[2];
            for (int i = 0; i <= j; ++i) {
                const double *Vi = C->VB + 3 * ((size_t)nb * i + b);
                C->Mr[j + (size_t)nd * i] += Vi[0] * IV[0] + Vi[1] * IV[1] + Vi[2] * IV[2];
            }
        }
    }
}

/* The backward pass: r = RNEA(qacc) - tau, planar. */
static void planar_backward_pass(mbs_data *d, double *r)
{
    const mbs_model *m = d->model;
    const mbs_planar *p = m->planar;
    mbs_planar_data *w = d->planar;
    const mbs_closure_data *C = d->closure;
    const int nd = m->closure->ndof, nb = m->nbody;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_planar_joint *pj = &p->joints[t];
        const int b = pj->child, par = pj->parent, jnv = m->joints[m->tree[t]].nv;
        double *f = w->f + 3 * b;
        for (int j = 0; j < nd; ++j)
            for (int e = 0; e < 3; ++e) f[e] += C->x[j] * C->IVB[3 * ((size_t)nb * j + b) + e];
        for (int k = 0; k < jnv; ++k) {
            const int i = pj->vadr + k;
            const double *S = w->S + 3 * i;
            r[i] = S[0] * f[0] + S[1] * f[1] + S[2] * f[2] - d->gen_force[i] - d->tau[i];
        }
        if (par > 0) {
            double fp[3];
            mbs_planar_xf_t(fp, w->pose + 4 * b, f);
            for (int e = 0; e < 3; ++e) w->f[3 * par + e] += fp[e];
        }
    }
}

/* See closure.h. */
int mbs_closure_planar_forward(mbs_data *d)
{
    mbs_closure_data *C = d->closure;
    if (!C->rows_set) {
        const int st = mbs_closure_planar_rows(d);
        if (st != MBS_OK) return st;
        C->rows_set = C->ever_set = 1, C->jac_valid = 0;
    }
    mbs_planar_poses(d);
    mbs_planar_motion(d);
    mbs_planar_forces(d);
    static const mbs_closure_passes planar = {synth_world, planar_accel0, planar_forward_pass,
                                              planar_backward_pass};
    return mbs_closure_reduced_run(d, &planar);
}

/* See closure.h. */
int mbs_closure_planar_now(const mbs_data *d)
{
    const mbs_closure_data *C = d->closure;
    return C && C->planar && C->analytic && !C->unusable;
}
