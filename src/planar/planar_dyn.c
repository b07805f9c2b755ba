/* The planar path's forward dynamics (planar.h): three passes over the tree (Featherstone,
 * "Rigid Body Dynamics Algorithms" 2008, table 7.1) with planar motion vectors m = (w, vx,
 * vy), force vectors f = (n, fx, fy) and 3 x 3 inertias [I, -hy, hx; -hy, m, 0; hx, 0, m]
 * in world axes at the body's origin, each joint's step done by its kernels
 * (planar_kernels.c):
 *   1. poses, frames, velocities, c, and each body's IA = I, pA = v x* I v (one pass);
 * each pass goes over the serial runs of joints (planar.h), whose kernels carry the
 * recursion from a joint to the next in registers;
 *   2. the forces that act on bodies (point gravity, host wrenches, line springs) into pA,
 *      generalized forces; uniform gravity enters as the base acceleration -g (RBDA §5.3);
 *   3. the backward pass, then the forward pass from a_0 = -g. */
#include "planar/planar.h"

#include <math.h>
#include <stdlib.h>
/* GCC: -O3 unrolls and inlines the 3-vector loops of the passes (as for src/core/aba.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#define SPRING_L_SMALL 1e-10 /* as the 3-D line spring-damper */

/* The world's frame and velocity. */
static void world_start(mbs_planar_data *w)
{
    w->th[0] = 1.0, w->th[1] = 0.0, w->P[0] = w->P[1] = 0.0;
    w->vel[0] = w->vel[1] = w->vel[2] = 0.0;
}

/* See planar.h. */
void mbs_planar_poses(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_planar_data *w = d->planar;
    world_start(w);
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &m->planar->joints[t];
        pj->kern->pose(pj, d->q, w);
    }
    w->gen++;
}

/* See planar.h. */
void mbs_planar_poses_some(mbs_data *d, const int *t, int n)
{
    mbs_planar_data *w = d->planar;
    for (int i = 0; i < n; ++i) {
        const mbs_planar_joint *pj = &d->model->planar->joints[t[i]];
        pj->kern->pose(pj, d->q, w);
    }
    w->gen++;
}

/* See planar.h. */
void mbs_planar_motion(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_planar_data *w = d->planar;
    w->vel[0] = w->vel[1] = w->vel[2] = 0.0;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &m->planar->joints[t];
        pj->kern->motion(pj, d->v, w);
    }
}

/* See planar.h. */
void mbs_planar_subspace(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_planar_data *w = d->planar;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &m->planar->joints[t];
        if (!pj->kern->const_subspace) pj->kern->subspace(pj, w);
    }
}

/* f_b += sign (the in-plane force F at the arm r from b's origin, world axes, plus a moment
   tn about n); sign = 1: f holds the external forces, -1: the bias forces. */
static void add_force(mbs_planar_data *w, int b, const double F[2], const double r[2], double tn,
                      double sign)
{
    double *f = w->f + 3 * b;
    f[0] += sign * (tn + r[0] * F[1] - r[1] * F[0]);
    f[1] += sign * F[0], f[2] += sign * F[1];
}

/* A body point (body coordinates) as its arm from b's origin in world axes, and its
   out-of-plane coordinate. */
static void body_point(const mbs_planar *p, const mbs_planar_data *w, int b, const double x[3],
                       double r[2], double *n)
{
    double xw[3];
    if (b == MBS_WORLD) {
        v3_copy(xw, x);
        *n = v3_dot(p->n, xw);
    } else {
        m3_mulv(xw, p->bodies[b].R0, x);
        *n = p->bodies[b].n0 + v3_dot(p->n, xw);
    }
    const double rb[2] = {v3_dot(xw, p->e1), v3_dot(xw, p->e2)};
    mbs_planar_rot(r, w->th[2 * b], w->th[2 * b + 1], rb);
}

/* World position and velocity (plane basis) of the point at the arm r from b's origin. */
static void point_state(const mbs_planar_data *w, int b, const double r[2], double x[2], double v[2])
{
    const double *vb = w->vel + 3 * b;
    x[0] = w->P[2 * b] + r[0], x[1] = w->P[2 * b + 1] + r[1];
    v[0] = vb[1] - vb[0] * r[1], v[1] = vb[2] + vb[0] * r[0];
}

/* The line spring-damper of src/elements/spring_damper.c in the plane; the constant
   out-of-plane distance of its points enters its length. */
static void spring(const mbs_planar *p, mbs_planar_data *w, const mbs_force_model *f, double sign)
{
    double ra[2], rb[2], na, nb, xa[2], xb[2], va[2], vb[2];
    body_point(p, w, f->body_a, f->point_a, ra, &na);
    body_point(p, w, f->body_b, f->point_b, rb, &nb);
    point_state(w, f->body_a, ra, xa, va);
    point_state(w, f->body_b, rb, xb, vb);
    const double r[3] = {xb[0] - xa[0], xb[1] - xa[1], nb - na};
    const double L = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), inv = 1.0 / fmax(L, SPRING_L_SMALL);
    const double e[2] = {r[0] * inv, r[1] * inv};
    const double T = f->stiffness * (L - f->rest) + f->damping * (e[0] * (vb[0] - va[0]) + e[1] * (vb[1] - va[1]));
    const double Fa[2] = {T * e[0], T * e[1]}, Fb[2] = {-T * e[0], -T * e[1]};
    if (f->body_a != MBS_WORLD) add_force(w, f->body_a, Fa, ra, 0.0, sign);
    if (f->body_b != MBS_WORLD) add_force(w, f->body_b, Fb, rb, 0.0, sign);
}

/* The in-plane part of gravity on body b (uniform, or point at its world com) into f. */
static void body_gravity(const mbs_model *m, const mbs_planar *p, mbs_planar_data *w, int b,
                         double sign)
{
    const mbs_planar_body *pb = &p->bodies[b];
    if (pb->m == 0.0 || m->gravity_kind == MBS_GRAVITY_NONE) return;
    const double c[2] = {w->hw[2 * b] / pb->m, w->hw[2 * b + 1] / pb->m};
    double F[2];
    if (m->gravity_kind == MBS_GRAVITY_UNIFORM) {
        F[0] = pb->m * v3_dot(m->gravity, p->e1), F[1] = pb->m * v3_dot(m->gravity, p->e2);
    } else { /* at the world com: -mu r / |r|^3, its in-plane part */
        double x[2], v[2], rb[2], cn;
        body_point(p, w, b, m->bodies[b].com, rb, &cn);
        point_state(w, b, rb, x, v);
        const double r[3] = {x[0] - v3_dot(m->gravity_center, p->e1),
                             x[1] - v3_dot(m->gravity_center, p->e2),
                             cn - v3_dot(m->gravity_center, p->n)};
        const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        const double k = r2 > 0.0 ? -m->gravity_mu / (r2 * sqrt(r2)) : 0.0;
        F[0] = pb->m * (r[0] * k), F[1] = pb->m * (r[1] * k);
    }
    add_force(w, b, F, c, 0.0, sign);
}

/* Gravity (point gravity; uniform gravity too when uniform; in-plane parts), host wrenches and
   elements into f (body planar frames) with the sign, and d->gen_force. */
static void planar_forces(mbs_data *d, const mbs_planar *p, mbs_planar_data *w, int uniform,
                          double sign)
{
    const mbs_model *m = d->model;
    for (int i = 0; i < m->nv; ++i) d->gen_force[i] = 0.0;
    const int gravity = m->gravity_kind == MBS_GRAVITY_POINT ||
                        (uniform && m->gravity_kind == MBS_GRAVITY_UNIFORM);
    for (int b = 1; (gravity || d->wrenched) && b < m->nbody; ++b) {
        if (gravity) body_gravity(m, p, w, b, sign);
        const mbs_wrench_input *in = &d->wrench_in[b];
        if (in->set) {
            double r[2], n;
            const double F[2] = {v3_dot(in->force, p->e1), v3_dot(in->force, p->e2)};
            body_point(p, w, b, in->point, r, &n);
            add_force(w, b, F, r, v3_dot(in->torque, p->n), sign);
        }
    }
    for (int i = 0; i < m->nforce; ++i) {
        const mbs_force_model *f = &m->forces[i];
        if (f->ops == &mbs_force_spring_damper_ops)
            spring(p, w, f, sign);
        else /* joint spring-damper */
            d->gen_force[f->vindex] += -f->stiffness * (d->q[f->qindex] - f->rest) - f->damping * d->v[f->vindex];
    }
}

/* Pass 1: poses, frames, velocities, c, IA and pA of every body. */
static void pass_down(mbs_data *d, const mbs_planar *p, mbs_planar_data *w, int ntree)
{
    world_start(w);
    for (int t = 0; t < ntree; t += p->joints[t].run_len) {
        const mbs_planar_joint *pj = &p->joints[t];
        pj->kern->down_run(pj, pj->run_len, d->q, d->v, w);
    }
    w->gen++;
}

/* The base acceleration: -g of uniform gravity in the plane (RBDA §5.3), else 0. */
static void base_acceleration(const mbs_model *m, const mbs_planar *p, double a0[3])
{
    const int uniform = m->gravity_kind == MBS_GRAVITY_UNIFORM;
    a0[0] = 0.0;
    a0[1] = uniform ? -v3_dot(m->gravity, p->e1) : 0.0;
    a0[2] = uniform ? -v3_dot(m->gravity, p->e2) : 0.0;
}

int mbs_planar_forward(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_planar *p = m->planar;
    mbs_planar_data *w = d->planar;
    const int ntree = m->ntree;
    pass_down(d, p, w, ntree);
    planar_forces(d, p, w, 0, -1.0); /* pA -= f_ext */
    for (int t = ntree - 1; t >= 0; t = p->joints[t].run_first - 1) { /* runs, last first */
        const mbs_planar_joint *pj = &p->joints[p->joints[t].run_first];
        const int st = pj->kern->backward_run(d, w, pj, pj->run_len);
        if (st != MBS_OK) return st;
    }
    base_acceleration(m, p, w->acc);
    for (int t = 0; t < ntree; t += p->joints[t].run_len) {
        const mbs_planar_joint *pj = &p->joints[t];
        pj->kern->forward_run(d, w, pj, pj->run_len);
    }
    return MBS_OK;
}

/* See planar.h: gravity included, f = the external forces. */
void mbs_planar_forces(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_planar_data *w = d->planar;
    for (int i = 0; i < 3 * m->nbody; ++i) w->f[i] = 0.0;
    planar_forces(d, m->planar, w, 1, 1.0);
}

/* See planar.h. */
int mbs_planar_usable(const mbs_data *d) { return d->model->planar != NULL; }

/* S of every joint whose kernels have a constant subspace. */
static void constant_subspaces(const mbs_model *m, mbs_planar_data *w)
{
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &m->planar->joints[t];
        if (pj->kern->const_subspace) pj->kern->subspace(pj, w);
    }
}

int mbs_planar_data_alloc(const mbs_model *m, mbs_planar_data **out)
{
    *out = NULL;
    if (!m->planar) return MBS_OK;
    mbs_planar_data *w = calloc(1, sizeof *w);
    if (!w) return MBS_ERR_NOMEM;
    const size_t nb = (size_t)m->nbody, nv = (size_t)m->nv + 1;
    w->th = calloc(2 * nb, sizeof(double)), w->P = calloc(2 * nb, sizeof(double));
    w->pose = calloc(4 * nb, sizeof(double)), w->vel = calloc(3 * nb, sizeof(double));
    w->dp = calloc(2 * nb, sizeof(double)), w->hw = calloc(2 * nb, sizeof(double));
    w->c = calloc(3 * nb, sizeof(double)), w->f = calloc(3 * nb, sizeof(double));
    w->IA = calloc(6 * nb, sizeof(double)), w->U = calloc(3 * nv, sizeof(double));
    w->Dinv = calloc(3 * nv, sizeof(double)), w->u = calloc(nv, sizeof(double));
    w->acc = calloc(3 * nb, sizeof(double)), w->S = calloc(3 * nv, sizeof(double));
    *out = w;
    if (!w->th || !w->P || !w->pose || !w->dp || !w->hw || !w->vel || !w->c || !w->f || !w->IA || !w->U || !w->Dinv ||
        !w->u || !w->acc || !w->S)
        return MBS_ERR_NOMEM;
    constant_subspaces(m, w);
    return MBS_OK;
}

void mbs_planar_data_free(mbs_planar_data *w)
{
    if (!w) return;
    free(w->th), free(w->P), free(w->pose), free(w->dp), free(w->hw), free(w->vel), free(w->c);
    free(w->f);
    free(w->IA), free(w->U), free(w->Dinv), free(w->u), free(w->acc), free(w->S);
    free(w);
}
