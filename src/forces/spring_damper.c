/* Line spring-damper between two body points (massless line force, Modelica's
 * MultiBody.Forces.SpringDamperParallel without a point mass).
 *
 * With p_a, p_b the world positions of the attachment points, r = p_b - p_a, L = |r|:
 *   tension        T = k (L - L0) + d dL/dt,   dL/dt = e . (v_b - v_a)
 *   forces         F_a = +T e on body a at p_a,  F_b = -T e on body b at p_b
 *   potential      V = 1/2 k (L - L0)^2,  so that F_b = -dV/dp_b for d = 0.
 * The unit direction is e = r / max(L, L_SMALL): when the points (nearly) coincide there
 * is no direction, and below L_SMALL the vector e shrinks linearly to 0 so the force goes
 * continuously to zero instead of becoming NaN (Modelica LineForceBase uses s_small = 1e-10
 * the same way). The spring therefore cannot push coincident points apart. */
#include "analysis/derivs.h"
#include "core/internal.h"

#define L_SMALL 1e-10

/* World position and velocity of a point fixed on a body (body coordinates). */
static void point_state(const mbs_data *d, int body, const double point[3], double pos[3],
                        double vel[3])
{
    if (body == MBS_WORLD) {
        v3_copy(pos, point);
        v3_set(vel, 0.0, 0.0, 0.0);
        return;
    }
    const mbs_pose *X = &d->x_world[body];
    const double *vb = d->vel + 6 * body; /* [w; v_origin], body coordinates */
    double wxp[3], vp[3];
    pose_apply(pos, X, point);
    v3_cross(wxp, vb, point);
    v3_add(vp, vb + 3, wxp);
    m3_mulv(vel, X->R, vp);
}

/* World position of a point fixed on a body (body coordinates). */
static void point_position(const mbs_data *d, int body, const double point[3], double pos[3])
{
    if (body == MBS_WORLD) v3_copy(pos, point);
    else pose_apply(pos, &d->x_world[body], point);
}

/* Add the tension of the element to f_ext of both bodies. */
static int spring_damper_apply(const mbs_force_model *f, mbs_data *d)
{
    double pa[3], pb[3], va[3], vb[3], r[3], vr[3], e[3], fa[3], fb[3];
    static const double zero[3] = {0.0, 0.0, 0.0};
    point_state(d, f->body_a, f->point_a, pa, va);
    point_state(d, f->body_b, f->point_b, pb, vb);
    v3_sub(r, pb, pa);
    v3_sub(vr, vb, va);
    double L = v3_norm(r);
    v3_scale(e, r, 1.0 / fmax(L, L_SMALL));
    double tension = f->stiffness * (L - f->rest) + f->damping * v3_dot(e, vr);
    v3_scale(fa, e, tension);
    v3_scale(fb, e, -tension);
    if (f->body_a != MBS_WORLD) mbs_forces_add_world_wrench(d, f->body_a, fa, zero, f->point_a);
    if (f->body_b != MBS_WORLD) mbs_forces_add_world_wrench(d, f->body_b, fb, zero, f->point_b);
    return MBS_OK;
}

/* V = 1/2 k (L - L0)^2 at the current poses. */
static double spring_damper_potential(const mbs_force_model *f, const mbs_data *d)
{
    double pa[3], pb[3], r[3];
    point_position(d, f->body_a, f->point_a, pa);
    point_position(d, f->body_b, f->point_b, pb);
    v3_sub(r, pb, pa);
    double stretch = v3_norm(r) - f->rest;
    return 0.5 * f->stiffness * stretch * stretch;
}

/* ---- derivatives: tau gets G^T F with F = T e (the force on a) and G = J_b - J_a the
   Jacobian of r = p_b - p_a (J_x: the points' linear Jacobians, columns S_l at p). */

/* The line at the current state, linearised: points relative to their subtree origins
   (for the Jacobian columns), their world velocities, F and its derivatives in r and rdot. */
typedef struct line_lin {
    double pa[3], pb[3], va[3], vb[3];
    double F[3];
    double Fr[9];   /* dF/dr */
    double de[3];   /* Fv = dF/d(rdot) = damping e e^T */
} line_lin;

/* Fr = e dT/dr^T + T de/dr with de/dr = (I - e e^T) / L (I / L_SMALL below L_SMALL, where
   e = r / L_SMALL) and dT/dr = k dL/dr + d de/dr rdot. */
static void line_linearize(const mbs_force_model *f, const mbs_data *d, line_lin *o)
{
    double Pa[3], Pb[3], r[3], vr[3], e[3], De[9], dT[3];
    point_state(d, f->body_a, f->point_a, Pa, o->va);
    point_state(d, f->body_b, f->point_b, Pb, o->vb);
    mbs_derivs_point(d, f->body_a, f->point_a, o->pa);
    mbs_derivs_point(d, f->body_b, f->point_b, o->pb);
    v3_sub(r, Pb, Pa);
    v3_sub(vr, o->vb, o->va);
    const double L = v3_norm(r);
    const int big = L >= L_SMALL;
    v3_scale(e, r, 1.0 / fmax(L, L_SMALL));
    const double T = f->stiffness * (L - f->rest) + f->damping * v3_dot(e, vr);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            De[3 * i + j] = big ? ((i == j) - e[i] * e[j]) / L : (i == j) / L_SMALL;
    m3_mulv(dT, De, vr);
    for (int i = 0; i < 3; ++i)
        dT[i] = f->stiffness * (big ? e[i] : (L > 0.0 ? r[i] / L : 0.0)) + f->damping * dT[i];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) o->Fr[3 * i + j] = e[i] * dT[j] + T * De[3 * i + j];
    v3_scale(o->F, e, T);
    v3_scale(o->de, e, sqrt(f->damping));
}

/* Columns of dof l: J_a, J_b (zero off the point's path), d(rdot)/dq_l = [b](w_l x v_b +
   dV_l at p_b) - [a](...), and c_l = Fr G_l + Fv d(rdot)/dq_l. */
static void line_columns(const mbs_data *d, const line_lin *s, int l)
{
    mbs_derivs *w = d->derivs;
    const double *D = w->dof + MBS_DV_STRIDE * l;
    double *ja = w->ja + 3 * l, *jb = w->jb + 3 * l, *rr = w->rr + 3 * l, *cc = w->cc + 3 * l;
    double ra[3] = {0, 0, 0}, rb[3] = {0, 0, 0}, t[3], G[3];
    v3_set(ja, 0.0, 0.0, 0.0), v3_set(jb, 0.0, 0.0, 0.0);
    if (w->mark[l] & 1) {
        mbs_twist_at(ja, D, s->pa);
        mbs_twist_at(ra, D + MBS_DV_DV, s->pa);
        v3_cross(t, D, s->va);
        v3_add(ra, ra, t);
    }
    if (w->mark[l] & 2) {
        mbs_twist_at(jb, D, s->pb);
        mbs_twist_at(rb, D + MBS_DV_DV, s->pb);
        v3_cross(t, D, s->vb);
        v3_add(rb, rb, t);
    }
    v3_sub(G, jb, ja);
    v3_sub(rr, rb, ra);
    m3_mulv(cc, s->Fr, G);
    v3_axpy(cc, v3_dot(s->de, rr), s->de);
}

/* dJ_x,k/dq_l . F for a point x with both dofs on its path: (w_l x J_x,k) . F when l
   precedes k, else (w_k x J_x,l) . F. */
static double jacobian_turn(const mbs_model *m, const double *dof, const double *J, int k,
                            int l, const double F[3])
{
    double t[3];
    if (mbs_dof_precedes(m, l, k)) v3_cross(t, dof + MBS_DV_STRIDE * l, J + 3 * k);
    else v3_cross(t, dof + MBS_DV_STRIDE * k, J + 3 * l);
    return v3_dot(t, F);
}

/* Add dtau_k/dq_l = dG_k/dq_l . F + G_k . c_l and dtau_k/dv_l = G_k . Fv G_l over the dofs
   of both points' paths. */
static void spring_damper_derivatives(const mbs_force_model *f, mbs_data *d, double *dtau_dq,
                                      double *dtau_dv, int ld)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    line_lin s;
    line_linearize(f, d, &s);
    int n = mbs_derivs_gather(d, f->body_a, 1, 0);
    n = mbs_derivs_gather(d, f->body_b, 2, n);
    for (int i = 0; i < n; ++i) line_columns(d, &s, w->list[i]);
    for (int a = 0; a < n; ++a) {
        const int k = w->list[a];
        double Gk[3];
        v3_sub(Gk, w->jb + 3 * k, w->ja + 3 * k);
        const double eGk = v3_dot(s.de, Gk);
        for (int b = 0; b < n; ++b) {
            const int l = w->list[b];
            const size_t at = (size_t)k * (size_t)ld + (size_t)l;
            const int both = w->mark[k] & w->mark[l];
            if (dtau_dq) {
                double x = v3_dot(Gk, w->cc + 3 * l);
                if (both & 2) x += jacobian_turn(m, w->dof, w->jb, k, l, s.F);
                if (both & 1) x -= jacobian_turn(m, w->dof, w->ja, k, l, s.F);
                dtau_dq[at] += x;
            }
            if (dtau_dv) {
                double Gl[3];
                v3_sub(Gl, w->jb + 3 * l, w->ja + 3 * l);
                dtau_dv[at] += eGk * v3_dot(s.de, Gl);
            }
        }
    }
    for (int i = 0; i < n; ++i) w->mark[w->list[i]] = 0;
}

const mbs_force_ops mbs_force_spring_damper_ops = {
    .name = "spring-damper",
    .apply = spring_damper_apply,
    .potential = spring_damper_potential,
    .derivatives = spring_damper_derivatives,
};
