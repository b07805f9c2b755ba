/* Finding a planar model at compile and describing it in planar frames (planar.h). */
#include "planar/planar.h"

#include <math.h>
#include <stdlib.h>

#define PLANAR_TOL 1e-12 /* |a x n| or |a . n| of unit axes taken as exactly 0 */

/* The element kinds the planar path computes itself. */
static int force_supported(const mbs_force_model *f)
{
    return f->ops == &mbs_force_spring_damper_ops || f->ops == &mbs_force_joint_spring_damper_ops;
}

static void project(const mbs_planar *p, const double x[3], double out[2])
{
    out[0] = v3_dot(x, p->e1);
    out[1] = v3_dot(x, p->e2);
}

/* The plane normal from the first revolute or planar joint (world, neutral q); 0 if none. */
static int find_normal(const mbs_model *m, const mbs_pose *xw, mbs_planar *p)
{
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        if (jm->ops != &mbs_joint_revolute_ops && jm->ops != &mbs_joint_planar_ops) continue;
        double R[9];
        m3_mul(R, xw[m->bodies[jm->child].parent].R, jm->frame_parent.R);
        m3_mulv(p->n, R, jm->axis);
        const double l = v3_norm(p->n);
        v3_scale(p->n, p->n, 1.0 / l);
        const int k = fabs(p->n[0]) < fabs(p->n[1]) ? (fabs(p->n[0]) < fabs(p->n[2]) ? 0 : 2)
                                                    : (fabs(p->n[1]) < fabs(p->n[2]) ? 1 : 2);
        double ek[3] = {0, 0, 0}, t1[3];
        ek[k] = 1.0;
        v3_cross(t1, p->n, ek);
        v3_scale(p->e1, t1, 1.0 / v3_norm(t1));
        v3_cross(p->e2, p->n, p->e1);
        return 1;
    }
    return 0;
}

/* A unit vector parallel (sign s) or perpendicular to n, within PLANAR_TOL. */
static int parallel(const double a[3], const double n[3], double *s)
{
    double c[3];
    v3_cross(c, a, n);
    *s = v3_dot(a, n) > 0.0 ? 1.0 : -1.0;
    return v3_norm(c) <= PLANAR_TOL;
}
static int perpendicular(const double a[3], const double n[3]) { return fabs(v3_dot(a, n)) <= PLANAR_TOL; }

/* The planar description of one tree joint; 0 when it leaves the plane. */
static int describe_joint(const mbs_model *m, const mbs_pose *xw, const mbs_planar *p,
                          const mbs_joint_model *jm, mbs_planar_joint *pj)
{
    const int par = m->bodies[jm->child].parent;
    double Rp[9], aw[3], x[3];
    m3_mul(Rp, xw[par].R, jm->frame_parent.R);
    m3_mulv(aw, Rp, jm->axis);
    pj->parent = par, pj->child = jm->child, pj->vadr = jm->vadr, pj->qadr = jm->qadr, pj->s = 1.0;
    pj->nv = jm->nv;
    m3_mulv(x, xw[par].R, jm->frame_parent.p);
    project(p, x, pj->a);
    v3_scale(x, jm->frame_child.p, -1.0);
    double xc[3];
    m3_mulv(xc, xw[jm->child].R, x);
    project(p, xc, pj->r);
    pj->u[0] = pj->u[1] = pj->w[0] = pj->w[1] = 0.0;
    if (jm->ops == &mbs_joint_revolute_ops) {
        pj->kind = MBS_PL_REVOLUTE;
        return parallel(aw, p->n, &pj->s);
    }
    if (jm->ops == &mbs_joint_prismatic_ops) {
        pj->kind = MBS_PL_PRISMATIC;
        project(p, aw, pj->u);
        return perpendicular(aw, p->n);
    }
    if (jm->ops == &mbs_joint_planar_ops) {
        double a2[3], a3[3];
        pj->kind = MBS_PL_PLANAR;
        m3_mulv(a2, Rp, jm->axis2), m3_mulv(a3, Rp, jm->axis3);
        project(p, a2, pj->u), project(p, a3, pj->w);
        return parallel(aw, p->n, &pj->s);
    }
    pj->kind = MBS_PL_FIXED;
    return jm->ops == &mbs_joint_fixed_ops;
}

/* A body's planar inertia about its origin (m, h, I_n) from its inertia and R0. */
void mbs_planar_body_inertia(const mbs_model *m, const mbs_planar *p, int b,
                             mbs_planar_body *pb)
{
    const mbs_body_model *body = &m->bodies[b];
    double cw[3], Iw[9], T[9], Rt[9], In[3];
    m3_mulv(cw, pb->R0, body->com);
    double c2[2];
    project(p, cw, c2);
    m3_mul(T, pb->R0, body->inertia); /* R I_c R^T */
    m3_transpose(Rt, pb->R0);
    m3_mul(Iw, T, Rt);
    m3_mulv(In, Iw, p->n);
    pb->m = body->mass;
    pb->h[0] = body->mass * c2[0], pb->h[1] = body->mass * c2[1];
    pb->I = v3_dot(p->n, In) + body->mass * (c2[0] * c2[0] + c2[1] * c2[1]);
}

/* A body's constant out-of-plane coordinate, its rotation at the neutral q and its planar
   inertia. */
static void describe_body(const mbs_model *m, const mbs_pose *xw, const mbs_planar *p, int b,
                          mbs_planar_body *pb)
{
    pb->n0 = v3_dot(p->n, xw[b].p);
    for (int i = 0; i < 9; ++i) pb->R0[i] = xw[b].R[i];
    mbs_planar_body_inertia(m, p, b, pb);
}

int mbs_planar_detect(const mbs_model *m, mbs_planar **out)
{
    *out = NULL;
    if (m->ntree == 0 || (m->ncon > 0 && !m->closure)) return MBS_OK;
    for (int i = 0; i < m->nforce; ++i)
        if (!force_supported(&m->forces[i])) return MBS_OK;
    mbs_pose *xw = calloc((size_t)m->nbody, sizeof *xw);
    mbs_planar *p = calloc(1, sizeof *p);
    if (p) {
        p->joints = calloc((size_t)m->ntree, sizeof *p->joints);
        p->bodies = calloc((size_t)m->nbody, sizeof *p->bodies);
    }
    if (!xw || !p || !p->joints || !p->bodies) {
        free(xw);
        mbs_planar_free(p);
        return MBS_ERR_NOMEM;
    }
    mbs_neutral_poses(m, xw);
    int ok = find_normal(m, xw, p);
    for (int t = 0; ok && t < m->ntree; ++t) {
        ok = describe_joint(m, xw, p, &m->joints[m->tree[t]], &p->joints[t]);
        p->joints[t].kern = mbs_planar_kernels_pick(&p->joints[t]);
        p->joints[t].body = &p->bodies[p->joints[t].child];
    }
    if (ok) mbs_planar_runs(p, m->ntree);
    for (int b = 1; ok && b < m->nbody; ++b) describe_body(m, xw, p, b, &p->bodies[b]);
    free(xw);
    if (ok)
        *out = p;
    else
        mbs_planar_free(p);
    return MBS_OK;
}

void mbs_planar_free(mbs_planar *p)
{
    if (!p) return;
    free(p->joints);
    free(p->bodies);
    free(p);
}
