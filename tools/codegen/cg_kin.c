/* Kinematics and forces of the generated functions (the passes of src/core/kinematics.c and
 * src/elements/ over symbolic scalars). */
#include "cg_kin.h"

#include <stdlib.h>

int cg_kin_init(cg_out *o, cg_kin *k, const mbs_model *m)
{
    const size_t nb = (size_t)m->nbody, nv = (size_t)m->nv;
    k->m = m;
    k->q = calloc((size_t)m->nq + 1, sizeof(cg_val));
    k->v = calloc(nv + 1, sizeof(cg_val));
    k->x_up = calloc(nb, sizeof(cg_pose));
    k->x_world = calloc(nb, sizeof(cg_pose));
    k->S = calloc(6 * nv + 1, sizeof(cg_val));
    k->vel = calloc(6 * nb, sizeof(cg_val));
    k->c = calloc(6 * nb, sizeof(cg_val));
    k->f_ext = calloc(6 * nb, sizeof(cg_val));
    k->gen = calloc(nv + 1, sizeof(cg_val));
    if (!k->q || !k->v || !k->x_up || !k->x_world || !k->S || !k->vel || !k->c || !k->f_ext ||
        !k->gen)
        return -1;
    for (int i = 0; i < m->nq; ++i) k->q[i] = cg_input(o, "q[%d]", i);
    for (int i = 0; i < m->nv; ++i) k->v[i] = cg_input(o, "v[%d]", i), k->gen[i] = cg_const(0.0);
    for (int i = 0; i < 6 * m->nbody; ++i) k->vel[i] = k->c[i] = k->f_ext[i] = cg_const(0.0);
    cg_pose_identity(&k->x_world[0]);
    return 0;
}

void cg_kin_free(cg_kin *k)
{
    free(k->q), free(k->v), free(k->x_up), free(k->x_world), free(k->S);
    free(k->vel), free(k->c), free(k->f_ext), free(k->gen);
}

/* x_up = frame_parent X_J frame_child^-1; S and c_J moved from Fc to body coordinates. */
static void joint_kinematics(cg_out *o, cg_kin *k, const mbs_joint_model *jm, cg_val cJ[6])
{
    const cg_joint_emitter *e = cg_joint_emitter_for(jm);
    const int b = jm->child;
    cg_pose XJ, Fp, Fc, t;
    e->transform(o, jm, k->q + (jm->nq > 0 ? jm->qadr : 0), &XJ);
    cg_pose_const(&Fp, &jm->frame_parent);
    cg_pose_const(&Fc, &jm->frame_child);
    cg_pose_mul(o, &t, &Fp, &XJ);
    cg_pose_mul_inv(o, &k->x_up[b], &t, &Fc);
    cg_val *S = k->S + 6 * (jm->nv > 0 ? jm->vadr : 0), c[6];
    e->motion(o, jm, k->q + (jm->nq > 0 ? jm->qadr : 0), k->v + (jm->nv > 0 ? jm->vadr : 0), S, c);
    for (int i = 0; i < jm->nv; ++i) {
        cg_val s[6];
        cg_xm_apply_inv(o, s, &Fc, S + 6 * i);
        for (int r = 0; r < 6; ++r) S[6 * i + r] = s[r];
    }
    cg_xm_apply_inv(o, cJ, &Fc, c);
}

void cg_kinematics(cg_out *o, cg_kin *k)
{
    const mbs_model *m = k->m;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        cg_val cJ[6], vJ[6], vp[6];
        joint_kinematics(o, k, jm, cJ);
        for (int r = 0; r < 6; ++r) {
            vJ[r] = cg_const(0.0);
            for (int i = 0; i < jm->nv; ++i)
                vJ[r] = cg_add(o, vJ[r], cg_mul(o, k->S[6 * (jm->vadr + i) + r], k->v[jm->vadr + i]));
        }
        cg_xm_apply(o, vp, &k->x_up[b], k->vel + 6 * p);
        for (int r = 0; r < 6; ++r) k->vel[6 * b + r] = cg_add(o, vp[r], vJ[r]);
        cg_mv_cross_m(o, k->c + 6 * b, k->vel + 6 * b, vJ);
        for (int r = 0; r < 6; ++r) k->c[6 * b + r] = cg_add(o, k->c[6 * b + r], cJ[r]);
        cg_pose_mul(o, &k->x_world[b], &k->x_world[p], &k->x_up[b]);
    }
}

/* f_ext[b] += [point x R^T F; R^T F] for a world force F at a body point. */
static void add_world_force(cg_out *o, cg_kin *k, int b, const cg_val F[3], const double point[3])
{
    if (b == MBS_WORLD) return;
    cg_val fb[3], n[3], pt[3] = {cg_const(point[0]), cg_const(point[1]), cg_const(point[2])};
    cg_m3_tmulv(o, fb, k->x_world[b].R, F);
    cg_cross(o, n, pt, fb);
    for (int i = 0; i < 3; ++i) {
        k->f_ext[6 * b + i] = cg_add(o, k->f_ext[6 * b + i], n[i]);
        k->f_ext[6 * b + 3 + i] = cg_add(o, k->f_ext[6 * b + 3 + i], fb[i]);
    }
}

/* World position and velocity of a body point (src/elements/spring_damper.c point_state). */
static void point_state(cg_out *o, const cg_kin *k, int b, const double point[3], cg_val pos[3],
                        cg_val vel[3])
{
    cg_val pt[3] = {cg_const(point[0]), cg_const(point[1]), cg_const(point[2])}, w[3], vp[3];
    cg_m3_mulv(o, pos, k->x_world[b].R, pt);
    for (int i = 0; i < 3; ++i) pos[i] = cg_add(o, pos[i], k->x_world[b].p[i]);
    cg_cross(o, w, k->vel + 6 * b, pt);
    for (int i = 0; i < 3; ++i) vp[i] = cg_add(o, k->vel[6 * b + 3 + i], w[i]);
    cg_m3_mulv(o, vel, k->x_world[b].R, vp);
}

/* Line spring-damper: tension k (L - L0) + d dL/dt along e = r / max(L, 1e-10). */
static void spring_damper(cg_out *o, cg_kin *k, const mbs_force_model *f)
{
    cg_val pa[3], pb[3], va[3], vb[3], r[3], vr[3], e[3], Fa[3], Fb[3];
    point_state(o, k, f->body_a, f->point_a, pa, va);
    point_state(o, k, f->body_b, f->point_b, pb, vb);
    for (int i = 0; i < 3; ++i) r[i] = cg_sub(o, pb[i], pa[i]), vr[i] = cg_sub(o, vb[i], va[i]);
    const cg_val L = cg_call(o, "sqrt", cg_dot(o, r, r, 3));
    const cg_val Lm = cg_fmax_const(o, L, 1e-10);
    for (int i = 0; i < 3; ++i) e[i] = cg_div(o, r[i], Lm);
    cg_val T = cg_mul(o, cg_const(f->stiffness), cg_sub(o, L, cg_const(f->rest)));
    T = cg_add(o, T, cg_mul(o, cg_const(f->damping), cg_dot(o, e, vr, 3)));
    for (int i = 0; i < 3; ++i) Fa[i] = cg_mul(o, e[i], T), Fb[i] = cg_neg(o, Fa[i]);
    add_world_force(o, k, f->body_a, Fa, f->point_a);
    add_world_force(o, k, f->body_b, Fb, f->point_b);
}

/* Joint spring-damper: -k (q - rest) - d v on one dof. */
static void joint_spring(cg_out *o, cg_kin *k, const mbs_force_model *f)
{
    cg_val g = cg_mul(o, cg_const(-f->stiffness), cg_sub(o, k->q[f->qindex], cg_const(f->rest)));
    g = cg_sub(o, g, cg_mul(o, cg_const(f->damping), k->v[f->vindex]));
    k->gen[f->vindex] = cg_add(o, k->gen[f->vindex], g);
}

/* Joint force: a constant F on one dof. */
static void joint_force(cg_out *o, cg_kin *k, const mbs_force_model *f)
{
    k->gen[f->vindex] = cg_add(o, k->gen[f->vindex], cg_const(f->force));
}

/* The gravity wrench of body b: [c x F; F], F = R^T m g(c) (src/elements/gravity.c). */
static void gravity(cg_out *o, cg_kin *k, int b)
{
    const mbs_model *m = k->m;
    const mbs_body_model *body = &m->bodies[b];
    cg_val g[3], F[3], n[3], com[3] = {cg_const(body->com[0]), cg_const(body->com[1]), cg_const(body->com[2])};
    if (m->gravity_kind == MBS_GRAVITY_UNIFORM) {
        for (int i = 0; i < 3; ++i) g[i] = cg_const(body->mass * m->gravity[i]);
    } else { /* point: -mu m r / |r|^3 at the world com */
        cg_val c[3], r[3];
        cg_m3_mulv(o, c, k->x_world[b].R, com);
        for (int i = 0; i < 3; ++i)
            r[i] = cg_sub(o, cg_add(o, c[i], k->x_world[b].p[i]), cg_const(m->gravity_center[i]));
        const cg_val r2 = cg_dot(o, r, r, 3);
        const cg_val s = cg_div(o, cg_const(-m->gravity_mu), cg_mul(o, r2, cg_call(o, "sqrt", r2)));
        for (int i = 0; i < 3; ++i) g[i] = cg_mul(o, cg_mul(o, r[i], s), cg_const(body->mass));
    }
    cg_m3_tmulv(o, F, k->x_world[b].R, g);
    cg_cross(o, n, com, F);
    for (int i = 0; i < 3; ++i) {
        k->f_ext[6 * b + i] = cg_add(o, k->f_ext[6 * b + i], n[i]);
        k->f_ext[6 * b + 3 + i] = cg_add(o, k->f_ext[6 * b + 3 + i], F[i]);
    }
}

/* The force elements the generator knows, by their ops table. */
static const struct {
    const mbs_force_ops *ops;
    void (*emit)(cg_out *o, cg_kin *k, const mbs_force_model *f);
} force_emitters[] = {
    {&mbs_force_spring_damper_ops, spring_damper},
    {&mbs_force_joint_spring_damper_ops, joint_spring},
    {&mbs_force_joint_force_ops, joint_force},
};

int cg_force_supported(const mbs_force_model *f)
{
    for (size_t i = 0; i < sizeof force_emitters / sizeof force_emitters[0]; ++i)
        if (force_emitters[i].ops == f->ops) return 1;
    return 0;
}

void cg_forces(cg_out *o, cg_kin *k)
{
    const mbs_model *m = k->m;
    if (m->gravity_kind != MBS_GRAVITY_NONE)
        for (int b = 1; b < m->nbody; ++b)
            if (m->bodies[b].mass != 0.0) gravity(o, k, b);
    for (int i = 0; i < m->nforce; ++i)
        for (size_t e = 0; e < sizeof force_emitters / sizeof force_emitters[0]; ++e)
            if (force_emitters[e].ops == m->forces[i].ops) force_emitters[e].emit(o, k, &m->forces[i]);
}

int cg_write_body(FILE *f, const mbs_model *m, const char *input, cg_emit_fn emit, void *ctx,
                  int *nline)
{
    cg_out o;
    cg_kin k;
    cg_begin(&o, f);
    int st = cg_kin_init(&o, &k, m);
    cg_val *in = calloc((size_t)m->nv + 1, sizeof(cg_val));
    if (st == 0 && in) {
        for (int i = 0; i < m->nv; ++i) in[i] = cg_input(&o, input, i);
        cg_kinematics(&o, &k);
        cg_forces(&o, &k);
        st = emit(&o, &k, in, ctx);
    } else {
        st = -1;
    }
    if (cg_flush(&o) != 0) st = -1;
    *nline += o.nline;
    free(in);
    cg_kin_free(&k);
    return st;
}
