/* The planar path's forward dynamics (planar.h): kinematics, forces and the articulated-body
 * algorithm (Featherstone, "Rigid Body Dynamics Algorithms" 2008, table 7.1) with planar
 * motion vectors m = (w, vx, vy), force vectors f = (n, fx, fy) and 3 x 3 inertias
 * [I, -hy, hx; -hy, m, 0; hx, 0, m] about the planar frame's origin. */
#include "planar/planar.h"

#include <math.h>
#include <stdlib.h>
/* GCC: -O3 unrolls and inlines the 3-vector loops of the passes (as for src/core/aba.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#define SPRING_L_SMALL 1e-10 /* as the 3-D line spring-damper */


/* A child's pose in its parent is stored as (cos phi, sin phi, px, py). */



/* Inertia of body b as a 3 x 3 (row-major). */
static void body_inertia(const mbs_planar_body *pb, double I[9])
{
    I[0] = pb->I, I[1] = -pb->h[1], I[2] = pb->h[0];
    I[3] = -pb->h[1], I[4] = pb->m, I[5] = 0.0;
    I[6] = pb->h[0], I[7] = 0.0, I[8] = pb->m;
}

static void m3v(double o[3], const double M[9], const double x[3])
{
    for (int i = 0; i < 3; ++i) o[i] = M[3 * i] * x[0] + M[3 * i + 1] * x[1] + M[3 * i + 2] * x[2];
}


/* The child's pose in its parent (cos phi, sin phi, px, py) of one joint. */
static void joint_pose(const mbs_planar_joint *pj, const double *q, double pose[4])
{
    double rr[2], c = 1.0, s = 0.0;
    if (pj->kind == MBS_PL_REVOLUTE || pj->kind == MBS_PL_PLANAR) {
        const double phi = pj->s * q[pj->kind == MBS_PL_PLANAR ? pj->qadr + 2 : pj->qadr];
        c = cos(phi), s = sin(phi);
    }
    mbs_planar_rot(rr, c, s, pj->r);
    pose[0] = c, pose[1] = s, pose[2] = pj->a[0] + rr[0], pose[3] = pj->a[1] + rr[1];
    if (pj->kind == MBS_PL_PRISMATIC)
        pose[2] += q[pj->qadr] * pj->u[0], pose[3] += q[pj->qadr] * pj->u[1];
    if (pj->kind == MBS_PL_PLANAR) {
        const double x = q[pj->qadr], y = q[pj->qadr + 1];
        pose[2] += x * pj->u[0] + y * pj->w[0], pose[3] += x * pj->u[1] + y * pj->w[1];
    }
}

/* S (child planar frame) and c_J of one joint at its pose. */
static void joint_motion_pl(const mbs_planar_joint *pj, const double pose[4], const double *v,
                            double *S, double cJ[3])
{
    const double c = pose[0], s = pose[1];
    cJ[0] = cJ[1] = cJ[2] = 0.0;
    double *Sr = S; /* the rotation column */
    if (pj->kind == MBS_PL_PRISMATIC) {
        S[0] = 0.0, S[1] = pj->u[0], S[2] = pj->u[1];
        return;
    }
    if (pj->kind == MBS_PL_PLANAR) {
        S[0] = 0.0, mbs_planar_rot_t(S + 1, c, s, pj->u);
        S[3] = 0.0, mbs_planar_rot_t(S + 4, c, s, pj->w);
        const double wz = pj->s * v[pj->vadr + 2];
        const double lx = v[pj->vadr] * S[1] + v[pj->vadr + 1] * S[4];
        const double ly = v[pj->vadr] * S[2] + v[pj->vadr + 1] * S[5];
        cJ[1] = wz * ly, cJ[2] = -wz * lx; /* -w J (R^T lin) */
        Sr = S + 6;
    }
    if (pj->kind == MBS_PL_FIXED) return;
    Sr[0] = pj->s, Sr[1] = -pj->s * pj->r[1], Sr[2] = pj->s * pj->r[0];
}

/* World angle and origin of body b from its pose in its parent. */
static void world_frame(mbs_planar_data *w, int b, int par)
{
    double Pp[2];
    const double *pose = w->pose + 4 * b, cp = w->th[2 * par], sp = w->th[2 * par + 1];
    mbs_planar_rot(Pp, cp, sp, pose + 2);
    w->th[2 * b] = cp * pose[0] - sp * pose[1], w->th[2 * b + 1] = sp * pose[0] + cp * pose[1];
    w->P[2 * b] = w->P[2 * par] + Pp[0], w->P[2 * b + 1] = w->P[2 * par + 1] + Pp[1];
}

/* Velocity and c of body b from its parent's (pose and S of its joint current). */
static void body_motion(mbs_data *d, const mbs_planar_joint *pj, int nv, mbs_planar_data *w)
{
    const int b = pj->child, par = pj->parent;
    double *S = w->S + 3 * (nv ? pj->vadr : 0), cJ[3], vJ[3] = {0, 0, 0}, vp[3], Sfixed[9];
    joint_motion_pl(pj, w->pose + 4 * b, d->v, nv ? S : Sfixed, cJ);
    for (int k = 0; k < nv; ++k)
        for (int i = 0; i < 3; ++i) vJ[i] += S[3 * k + i] * d->v[pj->vadr + k];
    mbs_planar_xm(vp, w->pose + 4 * b, w->vel + 3 * par);
    double *vb = w->vel + 3 * b, *cb = w->c + 3 * b;
    for (int i = 0; i < 3; ++i) vb[i] = vp[i] + vJ[i];
    cb[0] = cJ[0]; /* c = v x vJ + cJ: (0, w J vJ_lin - wJ J v_lin) */
    cb[1] = cJ[1] - vb[0] * vJ[2] + vJ[0] * vb[2];
    cb[2] = cJ[2] + vb[0] * vJ[1] - vJ[0] * vb[1];
}

/* See planar.h. */
void mbs_planar_poses(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_planar_data *w = d->planar;
    w->th[0] = 1.0, w->th[1] = 0.0, w->P[0] = w->P[1] = 0.0;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &m->planar->joints[t];
        joint_pose(pj, d->q, w->pose + 4 * pj->child);
        world_frame(w, pj->child, pj->parent);
    }
    w->gen++;
}

/* See planar.h. */
void mbs_planar_poses_some(mbs_data *d, const int *t, int n)
{
    mbs_planar_data *w = d->planar;
    for (int i = 0; i < n; ++i) {
        const mbs_planar_joint *pj = &d->model->planar->joints[t[i]];
        joint_pose(pj, d->q, w->pose + 4 * pj->child);
        world_frame(w, pj->child, pj->parent);
    }
    w->gen++;
}

/* See planar.h. */
void mbs_planar_motion(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_planar_data *w = d->planar;
    w->vel[0] = w->vel[1] = w->vel[2] = 0.0;
    for (int t = 0; t < m->ntree; ++t)
        body_motion(d, &m->planar->joints[t], m->joints[m->tree[t]].nv, w);
}

/* See planar.h. */
void mbs_planar_subspace(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_planar_data *w = d->planar;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &m->planar->joints[t];
        const int nv = m->joints[m->tree[t]].nv;
        double cJ[3], Sfixed[9];
        joint_motion_pl(pj, w->pose + 4 * pj->child, d->v, nv ? w->S + 3 * pj->vadr : Sfixed, cJ);
    }
}

/* Poses, world angles and origins, velocities and c of every body (tree order). */
static void planar_kinematics(mbs_data *d, const mbs_planar *p, mbs_planar_data *w)
{
    const mbs_model *m = d->model;
    w->th[0] = 1.0, w->th[1] = 0.0, w->P[0] = w->P[1] = 0.0;
    w->vel[0] = w->vel[1] = w->vel[2] = 0.0;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_planar_joint *pj = &p->joints[t];
        joint_pose(pj, d->q, w->pose + 4 * pj->child);
        world_frame(w, pj->child, pj->parent);
        body_motion(d, pj, m->joints[m->tree[t]].nv, w);
    }
    w->gen++;
}

/* f_b += world in-plane force F (plane basis) at body point r (planar frame of b), plus a
   moment tn about n. */
static void add_force(mbs_planar_data *w, int b, const double F[2], const double r[2], double tn)
{
    double fb[2];
    mbs_planar_rot_t(fb, w->th[2 * b], w->th[2 * b + 1], F);
    double *f = w->f + 3 * b;
    f[0] += tn + r[0] * fb[1] - r[1] * fb[0];
    f[1] += fb[0], f[2] += fb[1];
}

/* A body point (body coordinates) in the planar frame of b, and its out-of-plane coordinate. */
static void body_point(const mbs_planar *p, int b, const double x[3], double r[2], double *n)
{
    double xw[3];
    if (b == MBS_WORLD) {
        v3_copy(xw, x);
        *n = v3_dot(p->n, xw);
    } else {
        m3_mulv(xw, p->bodies[b].R0, x);
        *n = p->bodies[b].n0 + v3_dot(p->n, xw);
    }
    r[0] = v3_dot(xw, p->e1), r[1] = v3_dot(xw, p->e2);
}

/* World position and velocity (plane basis) of a point r of body b's planar frame. */
static void point_state(const mbs_planar_data *w, int b, const double r[2], double x[2], double v[2])
{
    const double c = w->th[2 * b], s = w->th[2 * b + 1], *vb = w->vel + 3 * b;
    double rw[2], vl[2] = {vb[1] - vb[0] * r[1], vb[2] + vb[0] * r[0]};
    mbs_planar_rot(rw, c, s, r);
    x[0] = w->P[2 * b] + rw[0], x[1] = w->P[2 * b + 1] + rw[1];
    mbs_planar_rot(v, c, s, vl);
}

/* The line spring-damper of src/forces/spring_damper.c in the plane; the constant
   out-of-plane distance of its points enters its length. */
static void spring(const mbs_planar *p, mbs_planar_data *w, const mbs_force_model *f)
{
    double ra[2], rb[2], na, nb, xa[2], xb[2], va[2], vb[2];
    body_point(p, f->body_a, f->point_a, ra, &na);
    body_point(p, f->body_b, f->point_b, rb, &nb);
    point_state(w, f->body_a, ra, xa, va);
    point_state(w, f->body_b, rb, xb, vb);
    const double r[3] = {xb[0] - xa[0], xb[1] - xa[1], nb - na};
    const double L = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), inv = 1.0 / fmax(L, SPRING_L_SMALL);
    const double e[2] = {r[0] * inv, r[1] * inv};
    const double T = f->stiffness * (L - f->rest) + f->damping * (e[0] * (vb[0] - va[0]) + e[1] * (vb[1] - va[1]));
    const double Fa[2] = {T * e[0], T * e[1]}, Fb[2] = {-T * e[0], -T * e[1]};
    if (f->body_a != MBS_WORLD) add_force(w, f->body_a, Fa, ra, 0.0);
    if (f->body_b != MBS_WORLD) add_force(w, f->body_b, Fb, rb, 0.0);
}

/* Gravity (uniform or point, in-plane part), host wrenches and elements into f (body planar
   frames) and d->gen_force. */
static void planar_forces(mbs_data *d, const mbs_planar *p, mbs_planar_data *w)
{
    const mbs_model *m = d->model;
    for (int i = 0; i < 3 * m->nbody; ++i) w->f[i] = 0.0;
    for (int i = 0; i < m->nv; ++i) d->gen_force[i] = 0.0;
    for (int b = 1; b < m->nbody; ++b) {
        const mbs_planar_body *pb = &p->bodies[b];
        if (pb->m != 0.0 && m->gravity_kind != MBS_GRAVITY_NONE) {
            const double c[2] = {pb->h[0] / pb->m, pb->h[1] / pb->m};
            double F[2];
            if (m->gravity_kind == MBS_GRAVITY_UNIFORM) {
                F[0] = pb->m * v3_dot(m->gravity, p->e1), F[1] = pb->m * v3_dot(m->gravity, p->e2);
            } else { /* at the world com: -mu r / |r|^3, its in-plane part */
                double x[2], v[2], rb[2], cn;
                body_point(p, b, m->bodies[b].com, rb, &cn);
                point_state(w, b, rb, x, v);
                const double r[3] = {x[0] - v3_dot(m->gravity_center, p->e1),
                                     x[1] - v3_dot(m->gravity_center, p->e2),
                                     cn - v3_dot(m->gravity_center, p->n)};
                const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                const double k = r2 > 0.0 ? -m->gravity_mu / (r2 * sqrt(r2)) : 0.0;
                F[0] = pb->m * (r[0] * k), F[1] = pb->m * (r[1] * k);
            }
            add_force(w, b, F, c, 0.0);
        }
        const mbs_wrench_input *in = &d->wrench_in[b];
        if (in->set) {
            double r[2], n;
            const double F[2] = {v3_dot(in->force, p->e1), v3_dot(in->force, p->e2)};
            body_point(p, b, in->point, r, &n);
            add_force(w, b, F, r, v3_dot(in->torque, p->n));
        }
    }
    for (int i = 0; i < m->nforce; ++i) {
        const mbs_force_model *f = &m->forces[i];
        if (f->ops == &mbs_force_spring_damper_ops)
            spring(p, w, f);
        else /* joint spring-damper */
            d->gen_force[f->vindex] += -f->stiffness * (d->q[f->qindex] - f->rest) - f->damping * d->v[f->vindex];
    }
}

/* Inverse of the SPD n x n D (n <= 3) into Di; 0 when a pivot is not above tol. */
static int small_inverse(const double *D, int n, double tol, double *Di)
{
    if (n == 1) {
        if (!(D[0] > tol)) return 0;
        Di[0] = 1.0 / D[0];
        return 1;
    }
    double a[9], inv[9];
    for (int i = 0; i < n * n; ++i) a[i] = D[i];
    for (int i = 0; i < n; ++i) /* Gauss-Jordan without pivoting (SPD) */
        for (int j = 0; j < n; ++j) inv[n * i + j] = i == j;
    for (int k = 0; k < n; ++k) {
        const double piv = a[n * k + k];
        if (!(piv > tol)) return 0;
        for (int j = 0; j < n; ++j) a[n * k + j] /= piv, inv[n * k + j] /= piv;
        for (int i = 0; i < n; ++i) {
            if (i == k) continue;
            const double f = a[n * i + k];
            for (int j = 0; j < n; ++j) a[n * i + j] -= f * a[n * k + j], inv[n * i + j] -= f * inv[n * k + j];
        }
    }
    for (int i = 0; i < n * n; ++i) Di[i] = inv[i];
    return 1;
}

/* IA_p += X^T Ia X for the symmetric Ia = [a b^T; b C] and the motion transform parent ->
   child X = [1 0; t Q] (Q = R^T, t = R^T J p) of the pose: with y = b + C t,
   X^T Ia X = [a + b.t + t.y, (Q^T y)^T; Q^T y, Q^T C Q] (about 30 products, not 54). */
static void transform_add(double *restrict IAp, const double *restrict pose,
                          const double *restrict Ia)
{
    const double c = pose[0], s = pose[1];
    const double t0 = -c * pose[3] + s * pose[2], t1 = s * pose[3] + c * pose[2];
    const double b0 = Ia[1], b1 = Ia[2], C00 = Ia[4], C01 = Ia[5], C11 = Ia[8];
    const double y0 = b0 + C00 * t0 + C01 * t1, y1 = b1 + C01 * t0 + C11 * t1;
    const double top = Ia[0] + b0 * t0 + b1 * t1 + t0 * y0 + t1 * y1;
    const double o0 = c * y0 - s * y1, o1 = s * y0 + c * y1; /* Q^T y, Q^T = R */
    /* Q^T C Q = R C R^T */
    const double k00 = c * C00 - s * C01, k01 = c * C01 - s * C11; /* row 0 of R C */
    const double k10 = s * C00 + c * C01, k11 = s * C01 + c * C11; /* row 1 */
    const double r00 = k00 * c - k01 * s, r01 = k00 * s + k01 * c, r11 = k10 * s + k11 * c;
    IAp[0] += top;
    IAp[1] += o0, IAp[3] += o0;
    IAp[2] += o1, IAp[6] += o1;
    IAp[4] += r00, IAp[8] += r11;
    IAp[5] += r01, IAp[7] += r01;
}

/* Backward pass of one joint: U, D^-1, u; hand Ia, pa to the parent (RBDA table 7.1). */
static int aba_back(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int t, int nv)
{
    const int b = pj->child, par = pj->parent;
    double *IA = w->IA + 9 * b, *pA = w->f + 3 * b, *U = w->U + 3 * (nv ? pj->vadr : 0);
    double D[9], Ia[9], pa[3], Dinv_u[3] = {0, 0, 0};
    double *Di = w->Dinv + 9 * t;
    for (int k = 0; k < nv; ++k) {
        const double *S = w->S + 3 * (pj->vadr + k);
        m3v(U + 3 * k, IA, S);
        w->u[pj->vadr + k] = d->tau[pj->vadr + k] + d->gen_force[pj->vadr + k] -
                             (S[0] * pA[0] + S[1] * pA[1] + S[2] * pA[2]);
        for (int l = 0; l < nv; ++l) {
            const double *Sl = w->S + 3 * (pj->vadr + l);
            D[nv * k + l] = Sl[0] * U[3 * k] + Sl[1] * U[3 * k + 1] + Sl[2] * U[3 * k + 2];
        }
    }
    const double scale = IA[0] + IA[4] + IA[8];
    if (nv > 0 && !small_inverse(D, nv, 1e-12 * fmax(scale, 1e-300), Di)) {
        char buf[96];
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "body %s: articulated inertia singular "
                             "(massless end of a chain?)", mbs_body_label(d->model, b, buf, (int)sizeof buf));
    }
    if (par == 0) return MBS_OK;
    for (int k = 0; k < nv; ++k)
        for (int l = 0; l < nv; ++l) Dinv_u[k] += Di[nv * k + l] * w->u[pj->vadr + l];
    for (int i = 0; i < 9; ++i) Ia[i] = IA[i];
    if (nv == 1) { /* rank one: Ia = IA - U U^T / D */
        const double k0 = U[0] * Di[0], k1 = U[1] * Di[0], k2 = U[2] * Di[0];
        Ia[0] -= k0 * U[0], Ia[4] -= k1 * U[1], Ia[8] -= k2 * U[2];
        Ia[1] -= k0 * U[1], Ia[2] -= k0 * U[2], Ia[5] -= k1 * U[2];
        Ia[3] = Ia[1], Ia[6] = Ia[2], Ia[7] = Ia[5];
    } else {
        for (int k = 0; k < nv; ++k)
            for (int l = 0; l < nv; ++l)
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) Ia[3 * i + j] -= U[3 * k + i] * Di[nv * k + l] * U[3 * l + j];
    }
    m3v(pa, Ia, w->c + 3 * b);
    for (int i = 0; i < 3; ++i) {
        pa[i] += pA[i];
        for (int k = 0; k < nv; ++k) pa[i] += U[3 * k + i] * Dinv_u[k];
    }
    transform_add(w->IA + 9 * par, w->pose + 4 * b, Ia);
    double fp[3];
    mbs_planar_xf_t(fp, w->pose + 4 * b, pa);
    for (int i = 0; i < 3; ++i) w->f[3 * par + i] += fp[i];
    return MBS_OK;
}

/* aba_back for a one-dof joint (revolute, prismatic), written out: U = IA S, D = S.U,
   Ia = IA - U U^T / D with its six distinct entries. */
static int aba_back_1(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int t)
{
    const int b = pj->child, par = pj->parent, i = pj->vadr;
    const double *restrict IA = w->IA + 9 * b, *restrict pA = w->f + 3 * b, *restrict S = w->S + 3 * i;
    double *restrict U = w->U + 3 * i;
    U[0] = IA[0] * S[0] + IA[1] * S[1] + IA[2] * S[2];
    U[1] = IA[3] * S[0] + IA[4] * S[1] + IA[5] * S[2];
    U[2] = IA[6] * S[0] + IA[7] * S[1] + IA[8] * S[2];
    const double D = S[0] * U[0] + S[1] * U[1] + S[2] * U[2];
    const double u = d->tau[i] + d->gen_force[i] - (S[0] * pA[0] + S[1] * pA[1] + S[2] * pA[2]);
    w->u[i] = u;
    if (!(D > 1e-12 * fmax(IA[0] + IA[4] + IA[8], 1e-300))) {
        char buf[96];
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "body %s: articulated inertia singular "
                             "(massless end of a chain?)", mbs_body_label(d->model, b, buf, (int)sizeof buf));
    }
    const double Di = 1.0 / D;
    w->Dinv[9 * t] = Di;
    if (par == 0) return MBS_OK;
    const double k0 = U[0] * Di, k1 = U[1] * Di, k2 = U[2] * Di;
    const double a01 = IA[1] - k0 * U[1], a02 = IA[2] - k0 * U[2], a12 = IA[5] - k1 * U[2];
    const double Ia[9] = {IA[0] - k0 * U[0], a01, a02, a01, IA[4] - k1 * U[1], a12, a02, a12,
                          IA[8] - k2 * U[2]};
    const double *c = w->c + 3 * b, du = Di * u;
    const double pa[3] = {pA[0] + Ia[0] * c[0] + Ia[1] * c[1] + Ia[2] * c[2] + U[0] * du,
                          pA[1] + Ia[3] * c[0] + Ia[4] * c[1] + Ia[5] * c[2] + U[1] * du,
                          pA[2] + Ia[6] * c[0] + Ia[7] * c[1] + Ia[8] * c[2] + U[2] * du};
    transform_add(w->IA + 9 * par, w->pose + 4 * b, Ia);
    double fp[3];
    mbs_planar_xf_t(fp, w->pose + 4 * b, pa);
    for (int k = 0; k < 3; ++k) w->f[3 * par + k] += fp[k];
    return MBS_OK;
}

/* Forward pass of one joint: a = X a_p + c, qdd = D^-1 (u - U^T a), a += S qdd. */
static void aba_fwd(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int t, int nv)
{
    const int b = pj->child;
    double a[3], x[3];
    mbs_planar_xm(a, w->pose + 4 * b, w->acc + 3 * pj->parent);
    for (int i = 0; i < 3; ++i) a[i] += w->c[3 * b + i];
    const double *U = w->U + 3 * (nv ? pj->vadr : 0), *Di = w->Dinv + 9 * t;
    for (int k = 0; k < nv; ++k)
        x[k] = w->u[pj->vadr + k] - (U[3 * k] * a[0] + U[3 * k + 1] * a[1] + U[3 * k + 2] * a[2]);
    for (int k = 0; k < nv; ++k) {
        double qdd = 0.0;
        for (int l = 0; l < nv; ++l) qdd += Di[nv * k + l] * x[l];
        d->qacc[pj->vadr + k] = qdd;
        for (int i = 0; i < 3; ++i) a[i] += w->S[3 * (pj->vadr + k) + i] * qdd;
    }
    for (int i = 0; i < 3; ++i) w->acc[3 * b + i] = a[i];
}

/* aba_fwd for a one-dof joint. */
static void aba_fwd_1(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int t)
{
    const int b = pj->child, i = pj->vadr;
    const double *restrict U = w->U + 3 * i, *restrict S = w->S + 3 * i, *restrict c = w->c + 3 * b;
    double a[3];
    mbs_planar_xm(a, w->pose + 4 * b, w->acc + 3 * pj->parent);
    a[0] += c[0], a[1] += c[1], a[2] += c[2];
    const double qdd = w->Dinv[9 * t] * (w->u[i] - (U[0] * a[0] + U[1] * a[1] + U[2] * a[2]));
    d->qacc[i] = qdd;
    double *restrict ab = w->acc + 3 * b;
    ab[0] = a[0] + S[0] * qdd, ab[1] = a[1] + S[1] * qdd, ab[2] = a[2] + S[2] * qdd;
}

int mbs_planar_forward(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_planar *p = m->planar;
    mbs_planar_data *w = d->planar;
    planar_kinematics(d, p, w);
    planar_forces(d, p, w);
    for (int b = 1; b < m->nbody; ++b) { /* IA = I, pA = v x* I v - f_ext */
        const mbs_planar_body *pb = &p->bodies[b];
        const double *v = w->vel + 3 * b;
        double *IA = w->IA + 9 * b, *f = w->f + 3 * b;
        body_inertia(pb, IA);
        const double Iv[3] = {pb->I * v[0] - pb->h[1] * v[1] + pb->h[0] * v[2],
                              pb->m * v[1] - pb->h[1] * v[0], pb->m * v[2] + pb->h[0] * v[0]};
        double vIv[3];
        mbs_planar_cross_f(vIv, v, Iv);
        for (int i = 0; i < 3; ++i) f[i] = vIv[i] - f[i];
    }
    for (int t = m->ntree - 1; t >= 0; --t) {
        const int nv = m->joints[m->tree[t]].nv;
        const int st = nv == 1 ? aba_back_1(d, w, &p->joints[t], t) : aba_back(d, w, &p->joints[t], t, nv);
        if (st != MBS_OK) return st;
    }
    w->acc[0] = w->acc[1] = w->acc[2] = 0.0;
    for (int t = 0; t < m->ntree; ++t) {
        const int nv = m->joints[m->tree[t]].nv;
        if (nv == 1)
            aba_fwd_1(d, w, &p->joints[t], t);
        else
            aba_fwd(d, w, &p->joints[t], t, nv);
    }
    return MBS_OK;
}

/* See planar.h. */
void mbs_planar_forces(mbs_data *d) { planar_forces(d, d->model->planar, d->planar); }


/* See planar.h. */

int mbs_planar_usable(const mbs_data *d) { return d->model->planar != NULL; }

int mbs_planar_data_alloc(const mbs_model *m, mbs_planar_data **out)
{
    *out = NULL;
    if (!m->planar) return MBS_OK;
    mbs_planar_data *w = calloc(1, sizeof *w);
    if (!w) return MBS_ERR_NOMEM;
    const size_t nb = (size_t)m->nbody, nv = (size_t)m->nv + 1;
    w->th = calloc(2 * nb, sizeof(double)), w->P = calloc(2 * nb, sizeof(double));
    w->pose = calloc(4 * nb, sizeof(double)), w->vel = calloc(3 * nb, sizeof(double));
    w->c = calloc(3 * nb, sizeof(double)), w->f = calloc(3 * nb, sizeof(double));
    w->IA = calloc(9 * nb, sizeof(double)), w->U = calloc(3 * nv, sizeof(double));
    w->Dinv = calloc(9 * ((size_t)m->ntree + 1), sizeof(double)), w->u = calloc(nv, sizeof(double));
    w->acc = calloc(3 * nb, sizeof(double)), w->S = calloc(3 * nv, sizeof(double));
    *out = w;
    if (!w->th || !w->P || !w->pose || !w->vel || !w->c || !w->f || !w->IA || !w->U || !w->Dinv ||
        !w->u || !w->acc || !w->S)
        return MBS_ERR_NOMEM;
    return MBS_OK;
}

void mbs_planar_data_free(mbs_planar_data *w)
{
    if (!w) return;
    free(w->th), free(w->P), free(w->pose), free(w->vel), free(w->c), free(w->f);
    free(w->IA), free(w->U), free(w->Dinv), free(w->u), free(w->acc), free(w->S);
    free(w);
}
