/* Cut-joint constraint rows over symbolic scalars: the residuals h(q), Jacobian rows and
 * J̇v of src/loops/constraints.c (POINT, ANGLE and DISTANCE rows), each row the power
 * pairing of a world wrench W with the relative motion of the cut joint's two bodies
 * (hdot = W . (V_c - V_p)); rows scaled as the library scales them (mbs_con_topo). */
#include "cg_loops.h"

/* World geometry of one cut joint: its bodies' world poses, frame origins, d = x_c - x_p. */
typedef struct cg_geom {
    const cg_pose *Xp, *Xc;
    cg_val xp[3], xc[3], d[3];
} cg_geom;

/* The geometry of cut joint j from the poses of k. */
static void geom(cg_out *o, const cg_kin *k, const mbs_joint_model *j, cg_geom *g)
{
    cg_val fp[3], fc[3];
    g->Xp = &k->x_world[j->parent];
    g->Xc = &k->x_world[j->child];
    for (int i = 0; i < 3; ++i) fp[i] = cg_const(j->frame_parent.p[i]), fc[i] = cg_const(j->frame_child.p[i]);
    cg_m3_mulv(o, g->xp, g->Xp->R, fp);
    cg_m3_mulv(o, g->xc, g->Xc->R, fc);
    for (int i = 0; i < 3; ++i) {
        g->xp[i] = cg_add(o, g->xp[i], g->Xp->p[i]);
        g->xc[i] = cg_add(o, g->xc[i], g->Xc->p[i]);
        g->d[i] = cg_sub(o, g->xc[i], g->xp[i]);
    }
}

/* R c for a constant body vector c. */
static void rotate_const(cg_out *o, cg_val r[3], const cg_val R[9], const double c[3])
{
    const cg_val x[3] = {cg_const(c[0]), cg_const(c[1]), cg_const(c[2])};
    cg_m3_mulv(o, r, R, x);
}

/* Unscaled residual and world wrench W = [n; f] (about the world origin) of one row; a is
   the row's direction (POINT: R_p e, DISTANCE: d / |d|), kept for its rate. */
static cg_val row_wrench(cg_out *o, const cg_geom *g, const mbs_cut_row *r, cg_val W[6],
                         cg_val a[3])
{
    cg_val b[3];
    if (r->kind == MBS_CUT_ANGLE) {
        rotate_const(o, a, g->Xp->R, r->e);
        rotate_const(o, b, g->Xc->R, r->f);
        cg_cross(o, W, b, a);
        for (int i = 0; i < 3; ++i) W[i] = cg_mul(o, W[i], cg_const(r->scale)), W[3 + i] = cg_const(0.0);
        return cg_mul(o, cg_const(r->scale), cg_sub(o, cg_dot(o, a, b, 3), cg_const(r->target)));
    }
    cg_val h;
    if (r->kind == MBS_CUT_POINT) {
        rotate_const(o, a, g->Xp->R, r->e);
        h = cg_dot(o, a, g->d, 3);
    } else { /* DISTANCE (a zero length gives a non-finite row, which the callers report) */
        const cg_val L = cg_call(o, "sqrt", cg_dot(o, g->d, g->d, 3));
        for (int i = 0; i < 3; ++i) a[i] = cg_div(o, g->d[i], L);
        h = cg_sub(o, L, cg_const(r->target));
    }
    cg_cross(o, W, g->xc, a);
    for (int i = 0; i < 3; ++i) W[3 + i] = a[i];
    return h;
}

/* Velocity of the body-fixed point x of a body with world spatial velocity V. */
static void point_vel(cg_out *o, cg_val r[3], const cg_val V[6], const cg_val x[3])
{
    cg_cross(o, r, V, x);
    for (int i = 0; i < 3; ++i) r[i] = cg_add(o, r[i], V[3 + i]);
}

/* Wdot of one row from the world velocities of parent and child (row_wrench_dot of
   constraints.c); a as row_wrench left it. */
static void row_wrench_dot(cg_out *o, const cg_geom *g, const mbs_cut_row *r, const cg_val a[3],
                           const cg_val Vp[6], const cg_val Vc[6], cg_val Wd[6])
{
    cg_val ad[3], b[3], bd[3], xcd[3], t[3];
    point_vel(o, xcd, Vc, g->xc);
    if (r->kind == MBS_CUT_ANGLE) {
        rotate_const(o, b, g->Xc->R, r->f);
        cg_cross(o, ad, Vp, a);
        cg_cross(o, bd, Vc, b);
        cg_cross(o, Wd, bd, a);
        cg_cross(o, t, b, ad);
        for (int i = 0; i < 3; ++i)
            Wd[i] = cg_mul(o, cg_add(o, Wd[i], t[i]), cg_const(r->scale)), Wd[3 + i] = cg_const(0.0);
        return;
    }
    if (r->kind == MBS_CUT_DISTANCE) { /* ndot = (ddot - n (n . ddot)) / |d| */
        cg_val xpd[3];
        point_vel(o, xpd, Vp, g->xp);
        for (int i = 0; i < 3; ++i) t[i] = cg_sub(o, xcd[i], xpd[i]);
        const cg_val an = cg_dot(o, a, t, 3), L = cg_call(o, "sqrt", cg_dot(o, g->d, g->d, 3));
        for (int i = 0; i < 3; ++i) ad[i] = cg_div(o, cg_sub(o, t[i], cg_mul(o, an, a[i])), L);
    } else { /* POINT: e turns with the parent */
        cg_cross(o, ad, Vp, a);
    }
    cg_cross(o, Wd, xcd, a);
    cg_cross(o, t, g->xc, ad);
    for (int i = 0; i < 3; ++i) Wd[i] = cg_add(o, Wd[i], t[i]), Wd[3 + i] = ad[i];
}

void cg_world_motion(cg_out *o, const cg_kin *k, cg_val *Sw)
{
    const mbs_model *m = k->m;
    for (int i = 0; i < m->nv; ++i)
        cg_xm_apply_inv(o, Sw + 6 * i, &k->x_world[m->joints[m->dof_joint[i]].child], k->S + 6 * i);
}

void cg_world_accel(cg_out *o, const cg_kin *k, cg_val *a, cg_val *Vw, cg_val *Aw)
{
    const mbs_model *m = k->m;
    for (int e = 0; e < 6; ++e) a[e] = Vw[e] = Aw[e] = cg_const(0.0);
    for (int t = 0; t < m->ntree; ++t) {
        const int b = m->joints[m->tree[t]].child, p = m->bodies[b].parent;
        cg_xm_apply(o, a + 6 * b, &k->x_up[b], a + 6 * p);
        for (int e = 0; e < 6; ++e) a[6 * b + e] = cg_add(o, a[6 * b + e], k->c[6 * b + e]);
        cg_xm_apply_inv(o, Vw + 6 * b, &k->x_world[b], k->vel + 6 * b);
        cg_xm_apply_inv(o, Aw + 6 * b, &k->x_world[b], a + 6 * b);
    }
}

/* Residual, Jacobian row and bias of model row r (the geometry of its cut joint given). */
static void one_row(cg_out *o, const cg_loops *L, const cg_geom *g, int r, const cg_rows_in *in,
                    cg_val *h, cg_val *J, cg_val *gam)
{
    const mbs_model *m = in->k->m;
    const mbs_con_topo *t = &L->t;
    const int c = t->row_cut[r];
    const mbs_joint_model *j = &m->joints[t->cut[c]];
    const mbs_cut_row *row = &j->rows[r - j->conadr];
    const cg_val s = cg_const(t->row_scale[r]);
    cg_val W[6], a[3];
    const cg_val h0 = row_wrench(o, g, row, W, a);
    if (h) *h = cg_mul(o, h0, s);
    for (int e = 0; e < 6; ++e) W[e] = cg_mul(o, W[e], s);
    if (J) {
        for (int i = 0; i < m->nv; ++i) J[i] = cg_const(0.0);
        for (int p = t->path_adr[c]; p < t->path_adr[c + 1]; ++p) {
            const int i = t->path_dof[p];
            const cg_val x = cg_dot(o, W, in->Sw + 6 * i, 6);
            J[i] = t->path_sign[p] > 0.0 ? cg_add(o, J[i], x) : cg_sub(o, J[i], x);
        }
    }
    if (gam) { /* Wdot . (V_c - V_p) + W . (A_c - A_p), scaled */
        const cg_val *Vp = in->Vw + 6 * j->parent, *Vc = in->Vw + 6 * j->child;
        const cg_val *Ap = in->Aw + 6 * j->parent, *Ac = in->Aw + 6 * j->child;
        cg_val Wd[6], dV[6], dA[6];
        row_wrench_dot(o, g, row, a, Vp, Vc, Wd);
        for (int e = 0; e < 6; ++e) dV[e] = cg_sub(o, Vc[e], Vp[e]), dA[e] = cg_sub(o, Ac[e], Ap[e]);
        *gam = cg_add(o, cg_mul(o, cg_dot(o, Wd, dV, 6), s), cg_dot(o, W, dA, 6));
    }
}

void cg_rows(cg_out *o, const cg_loops *L, const int *rows, int n, const cg_rows_in *in,
             cg_val *h, cg_val *J, cg_val *gam)
{
    const mbs_model *m = in->k->m;
    int geom_cut = -1;
    cg_geom g;
    for (int i = 0; i < n; ++i) { /* rows of one cut joint are adjacent: one geometry each */
        const int c = L->t.row_cut[rows[i]];
        if (c != geom_cut) geom(o, in->k, &m->joints[L->t.cut[c]], &g), geom_cut = c;
        one_row(o, L, &g, rows[i], in, h ? h + i : NULL, J ? J + (size_t)m->nv * (size_t)i : NULL,
                gam ? gam + i : NULL);
    }
}
