/* Planar models whose loops are closed in closed form run the planar path (src/planar/;
 * Höbinger, Otter, "PlanarMultiBody - a Modelica library for planar multi-body systems"):
 * planar poses for the closures, the reduced dynamics with planar motion and force vectors
 * and 3 x 3 inertias. The loops' rates (rates.c) run on planar world vectors: motion
 * (w, v1, v2: the rate about n and the velocity of the point at the world origin in the
 * plane basis e1, e2) and wrenches (moment about n at the origin, force in the plane), the
 * rows of the cut joints reduced to their planar parts (exact for planar motion: a row's
 * out-of-plane parts meet no planar motion). The row selection is the assemblies' own rows,
 * two per loop in the plane: nothing to select, no redundant out-of-plane row to drop. */
#include "loops/analytic/closure.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-tree-slp-vectorize") /* as src/planar/: its inner loops */
#endif

#include <math.h>

#include "planar/planar.h"
#include "loops/loops.h"

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

/* See closure.h: the link frames, and the cut's rows. */
void mbs_closure_planar_links(mbs_model *m)
{
    static const double zero[3] = {0.0, 0.0, 0.0};
    for (int i = 0; m->closure && m->planar && i < m->closure->nasm; ++i) {
        mbs_assembly *a = &m->closure->asm_[i];
        for (int k = 0; k < 3; ++k) {
            mbs_planar_link *L = &a->link[k];
            planar_frame(m->planar, L->body_in, L->p_in, L->g_in, L->pr_in, L->pu_in);
            planar_frame(m->planar, L->body_out, L->p_out, L->g_out, L->pr_out, L->pu_out);
            for (int t = 0; L->tree && t < m->ntree; ++t)
                if (m->tree[t] == L->joint) L->pl_s = m->planar->joints[t].s;
        }
        const mbs_joint_model *j = &m->joints[a->cut];
        double u[2];
        planar_frame(m->planar, j->child, j->frame_child.p, zero, a->pl_xc, u);
        for (int r = 0; r < a->ndep; ++r) {
            const mbs_cut_row *row = &j->rows[a->row[r]];
            double o[2];
            a->pl_angle[r] = row->kind == MBS_CUT_ANGLE;
            a->pl_scale[r] = a->pl_angle[r] ? row->scale : 1.0;
            planar_frame(m->planar, j->parent, zero, row->e, o, a->pl_e[r]);
            planar_frame(m->planar, j->child, zero, row->f, o, a->pl_f[r]);
        }
    }
}

/* ---------------------------------------------------------------- 3-D views of planar frames */

/* Planar world motion (w, velocity of the point at the world origin) of the planar motion m
   given at body b's origin (world axes). */
static void world_motion3(const mbs_planar_data *w, int b, const double m[3], double o[3])
{
    const double *P = w->P + 2 * b;
    o[0] = m[0], o[1] = m[1] + m[0] * P[1], o[2] = m[2] - m[0] * P[0];
}

/* Sw of every dof (planar world motion, stride 6) from the planar S. */
static void synth_world(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_planar_data *w = d->planar;
    mbs_closure_data *C = d->closure;
    for (int k = 0; k < m->nv; ++k)
        world_motion3(w, m->joints[m->dof_joint[k]].child, w->S + 3 * k, C->Sw + 6 * k);
}

/* x0 y1 - x1 y0 (the n component of x cross y) */
static inline double cross2(const double x[2], const double y[2]) { return x[0] * y[1] - x[1] * y[0]; }

/* See closure.h. A point row (force along a = R_p e at the child's frame origin x_c):
   W = (x_c x a, a), Wd = (x_c' x a + x_c x a', a') with a' = w_p n x a; an angle row
   (s (b x a) . n, no force), Wd = s (b' x a + b x a'). */
void mbs_closure_planar_rows_w(const mbs_data *d, const mbs_assembly *a, const double *Vw,
                               double *W, double *Wd)
{
    const mbs_planar_data *w = d->planar;
    const mbs_joint_model *j = &d->model->joints[a->cut];
    const int bp = j->parent, bc = j->child;
    const double cp = w->th[2 * bp], sp = w->th[2 * bp + 1];
    const double cc = w->th[2 * bc], sc = w->th[2 * bc + 1];
    const double xc[2] = {w->P[2 * bc] + cc * a->pl_xc[0] - sc * a->pl_xc[1],
                          w->P[2 * bc + 1] + sc * a->pl_xc[0] + cc * a->pl_xc[1]};
    for (int r = 0; r < a->ndep; ++r) {
        const double *e = a->pl_e[r];
        const double u[2] = {cp * e[0] - sp * e[1], sp * e[0] + cp * e[1]};
        double *Wr = W + 6 * r, *Wdr = Wd ? Wd + 6 * r : NULL;
        const double wp = Vw ? Vw[6 * bp] : 0.0, ud[2] = {-wp * u[1], wp * u[0]};
        if (a->pl_angle[r]) {
            const double *f = a->pl_f[r], s = a->pl_scale[r];
            const double b[2] = {cc * f[0] - sc * f[1], sc * f[0] + cc * f[1]};
            Wr[0] = s * cross2(b, u), Wr[1] = Wr[2] = 0.0;
            if (Wdr) {
                const double wc = Vw[6 * bc], bd[2] = {-wc * b[1], wc * b[0]};
                Wdr[0] = s * (cross2(bd, u) + cross2(b, ud)), Wdr[1] = Wdr[2] = 0.0;
            }
        } else {
            Wr[0] = cross2(xc, u), Wr[1] = u[0], Wr[2] = u[1];
            if (Wdr) {
                const double *Vc = Vw + 6 * bc;
                const double xcd[2] = {Vc[1] - Vc[0] * xc[1], Vc[2] + Vc[0] * xc[0]};
                Wdr[0] = cross2(xcd, u) + cross2(xc, ud), Wdr[1] = ud[0], Wdr[2] = ud[1];
            }
        }
    }
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

/* Velocity-product accelerations a0 (planar, at the body origins) and, for the cut bodies, the
   planar world velocity and a0 into Vw, Aw. */
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
        mbs_planar_shift_m(a, w->dp + 2 * pj->child, a0 + 3 * pj->parent);
        for (int e = 0; e < 3; ++e) a0[3 * pj->child + e] = a[e] + w->c[3 * pj->child + e];
    }
    for (int i = 0; i < m->closure->ncutbody; ++i) {
        const int b = m->closure->cutbody[i];
        world_motion3(w, b, w->vel + 3 * b, C->Vw + 6 * b);
        world_motion3(w, b, a0 + 3 * b, C->Aw + 6 * b);
    }
    for (int e = 0; e < 3; ++e) C->Vw[e] = C->Aw[e] = 0.0; /* the world */
}

/* x (planar motion) = X a_p + sum_k S_k y_k for body b. */
static void planar_propagate(const mbs_data *d, const mbs_planar_joint *pj, int nv, const double *ap,
                             const double *y, double a[3])
{
    const mbs_planar_data *w = d->planar;
    if (ap) mbs_planar_shift_m(a, w->dp + 2 * pj->child, ap);
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
        mbs_planar_inertia_mulv(p, w, b, A, IA);
        mbs_planar_inertia_mulv(p, w, b, w->vel + 3 * b, Iv);
        mbs_planar_cross_f(h, w->vel + 3 * b, Iv);
        for (int e = 0; e < 3; ++e) F[e] = IA[e] + h[e] - F[e];
        for (int j = 0; j < nd; ++j) {
            double *V = C->VB + 3 * ((size_t)nb * j + b), *IV = C->IVB + 3 * ((size_t)nb * j + b);
            planar_propagate(d, pj, jnv, par > 0 ? C->VB + 3 * ((size_t)nb * j + par) : NULL,
                             C->B + (size_t)nv * j, V);
            mbs_planar_inertia_mulv(p, w, b, V, IV);
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
        if (par > 0) mbs_planar_shift_f_add(w->f + 3 * par, w->dp + 2 * b, f);
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
    if (!(C->jac_valid && mbs_loops_is_closed(d) && d->planar->gen == C->ppose_gen))
        mbs_planar_poses(d); /* else those of the closure of this state */
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
