/* Queries a controller calls every tick (allocation-free, O(N) or O(depth)): the Jacobian
 * of a body point, its bias acceleration J̇v, the centre of mass and the momentum of the
 * whole system. Every output is world-frame; a failed query leaves its outputs unwritten. */
#include "ustates/ustates.h"
#include "analysis/analysis.h"

/* The common checks of a query on body (world excluded), with a point (nullable). */
static int check_query(mbs_data *d, const char *call, int body, const double *point, int check_v)
{
    const mbs_model *m = d->model;
    if (body < 1 || body >= m->nbody)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "%s: body %d is not a body of the model (1..%d)",
                             call, body, m->nbody - 1);
    if (point && !mbs_all_finite(point, 3))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "%s: point is not finite", call);
    if (m->body_node[body] >= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "%s: body %d is a node (massless, between line "
                             "forces, no coordinates of its own)", call, body);
    return mbs_check_state(d, check_v, 0);
}

/* World position of a body point. */
static void point_world(const mbs_data *d, int body, const double point[3], double p[3])
{
    pose_apply(p, &d->x_world[body], point);
}

/* See analysis.h: the dofs on the path from the body to the root. */
void mbs_point_jacobian_world(const mbs_data *d, int body, const double p[3], double *J)
{
    const mbs_model *m = d->model;
    const int nv = m->nv;
    for (int i = 0; i < 6 * nv; ++i) J[i] = 0.0;
    for (int b = body; b > 0; b = m->bodies[b].parent) {
        const mbs_joint_model *jm = &m->joints[m->bodies[b].joint];
        const mbs_pose *X = &d->x_world[b];
        for (int k = 0; k < jm->nv; ++k) {
            const int i = jm->vadr + k;
            const double *s = d->S + 6 * i;
            double w[3], v[3], r[3], wr[3];
            m3_mulv(w, X->R, s);
            m3_mulv(v, X->R, s + 3);
            v3_sub(r, p, X->p);
            v3_cross(wr, w, r); /* the point moves with the body's origin plus w x r */
            for (int e = 0; e < 3; ++e) J[nv * e + i] = w[e], J[nv * (3 + e) + i] = v[e] + wr[e];
        }
    }
}

int mbs_point_jacobian(mbs_data *d, int body, const double point[3], double *J)
{
    if (!d) return MBS_ERR_ARG;
    if (!point || !J) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "point_jacobian: NULL point or J");
    const int st = check_query(d, "point_jacobian", body, point, 0);
    if (st != MBS_OK) return st;
    mbs_kinematics_subspace(d);
    double p[3];
    point_world(d, body, point, p);
    mbs_point_jacobian_world(d, body, p, J);
    return mbs_all_finite(J, 6 * d->model->nv)
               ? MBS_OK
               : MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "point_jacobian: J is not finite");
}

int mbs_point_bias_acceleration(mbs_data *d, int body, const double point[3], double a[6])
{
    if (!d) return MBS_ERR_ARG;
    if (!point || !a) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "point_bias_acceleration: NULL point or a");
    const int st = check_query(d, "point_bias_acceleration", body, point, 1);
    if (st != MBS_OK) return st;
    const mbs_model *m = d->model;
    mbs_kinematics(d);
    double *acc = d->acc; /* spatial accelerations at qacc = 0, no gravity: a = X a_p + c */
    for (int e = 0; e < 6; ++e) acc[e] = 0.0;
    for (int t = 0; t < m->ntree; ++t) { /* parents first */
        const int b = m->joints[m->tree[t]].child, p = m->bodies[b].parent;
        xm_apply(acc + 6 * b, &d->x_up[b], acc + 6 * p);
        for (int e = 0; e < 6; ++e) acc[6 * b + e] += d->cvel[6 * b + e];
    }
    /* classical acceleration of the point: a_lin + alpha x r + w x (v_o + w x r) */
    const double *ab = acc + 6 * body, *v = d->vel + 6 * body;
    double t[3], wr[3], vp[3], lin[3];
    v3_cross(t, ab, point);
    v3_cross(wr, v, point);
    v3_add(vp, v + 3, wr);
    v3_cross(wr, v, vp);
    for (int e = 0; e < 3; ++e) lin[e] = ab[3 + e] + t[e] + wr[e];
    double out[6];
    m3_mulv(out, d->x_world[body].R, ab);
    m3_mulv(out + 3, d->x_world[body].R, lin);
    if (!mbs_all_finite(out, 6))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "point_bias_acceleration: result is not finite");
    for (int e = 0; e < 6; ++e) a[e] = out[e];
    return MBS_OK;
}

/* Total mass and mass-weighted sums over the bodies: sum m c (world) into mc. */
static double mass_moment(const mbs_data *d, double mc[3])
{
    const mbs_model *m = d->model;
    double M = 0.0;
    mc[0] = mc[1] = mc[2] = 0.0;
    for (int b = 1; b < m->nbody; ++b) {
        double c[3];
        point_world(d, b, m->bodies[b].com, c);
        v3_axpy(mc, m->bodies[b].mass, c);
        M += m->bodies[b].mass;
    }
    return M;
}

int mbs_com(mbs_data *d, double com[3])
{
    if (!d) return MBS_ERR_ARG;
    if (!com) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "com: NULL output");
    const int st = mbs_check_state(d, 0, 0);
    if (st != MBS_OK) return st;
    mbs_kinematics_pos(d);
    double mc[3];
    const double M = mass_moment(d, mc);
    if (!(M > 0.0)) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "com: the model has no mass");
    double c[3];
    v3_scale(c, mc, 1.0 / M);
    if (!mbs_all_finite(c, 3)) return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "com: not finite");
    v3_copy(com, c);
    return MBS_OK;
}

int mbs_momentum(mbs_data *d, double lin[3], double ang[3])
{
    if (!d) return MBS_ERR_ARG;
    if (!lin || !ang) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "momentum: NULL output");
    const int st = mbs_check_state(d, 1, 0);
    if (st != MBS_OK) return st;
    const mbs_model *m = d->model;
    mbs_kinematics(d);
    double L[3] = {0, 0, 0}, H[3] = {0, 0, 0};
    for (int b = 1; b < m->nbody; ++b) {
        const mbs_body_model *body = &m->bodies[b];
        if (body->mass == 0.0) continue;
        const mbs_pose *X = &d->x_world[b];
        const double *v = d->vel + 6 * b; /* body coordinates: [w; v_origin] */
        double wc[3], vc[3], vw[3], c[3], Iw[3], h[3], mv[3];
        v3_cross(wc, v, body->com);
        v3_add(vc, v + 3, wc);
        m3_mulv(vw, X->R, vc);       /* velocity of the com, world */
        m3_mulv(Iw, body->inertia, v);
        m3_mulv(h, X->R, Iw);        /* spin momentum I_c w, world */
        point_world(d, b, body->com, c);
        v3_scale(mv, vw, body->mass);
        v3_add(L, L, mv);
        double cxmv[3];
        v3_cross(cxmv, c, mv);
        v3_add(H, H, h);
        v3_add(H, H, cxmv);
    }
    if (!mbs_all_finite(L, 3) || !mbs_all_finite(H, 3))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "momentum: not finite");
    v3_copy(lin, L);
    v3_copy(ang, H);
    return MBS_OK;
}
