/* Analytic derivatives of the force elements that have them, kept in the derivative engine
 * (the elements' files hold their forces only): each adds its part of dtau/dq (tangent q) and
 * dtau/dv, tau = M qacc + c - J^T f_ext - gen_force, into nv x nv row-major matrices of row
 * stride ld (either NULL), after the forward pass of the derivatives. An element kind not in
 * the table is differentiated by central differences of its own forces (force_derivatives.c). */
#include <math.h>

#include "derivatives/derivs.h"

/* ---- joint spring-damper: tau gets +k (q - rest) + d v at the dof: dtau/dq += k, dtau/dv += d on the diagonal (q
   and v of the dof have one meaning, so the tangent coordinate is q itself). */
static void joint_spring_damper_derivatives(const mbs_force_model *f, mbs_data *d,
                                            double *dtau_dq, double *dtau_dv, int ld)
{
    (void)d;
    const size_t at = (size_t)f->vindex * (size_t)ld + (size_t)f->vindex;
    if (dtau_dq) dtau_dq[at] += f->stiffness;
    if (dtau_dv) dtau_dv[at] += f->damping;
}

/* ---- line spring-damper: tau gets G^T F with F = T e (the force on a) and G = J_b - J_a the
   Jacobian of r = p_b - p_a (J_x: the points' linear Jacobians, columns S_l at p). */

/* The line at the current state, linearised: points relative to their subtree origins
   (for the Jacobian columns), their world velocities, F and its derivatives in r and rdot. */
typedef struct line_lin {
    double pa[3], pb[3], va[3], vb[3];
    double F[3];
    double Fr[9];   /* dF/dr */
    double de[3];   /* Fv = dF/d(rdot) = damping e e^T */
} line_lin;

/* Fr = e dT/dr^T + T de/dr with de/dr = (I - e e^T) / L (I / MBS_LINE_L_SMALL below MBS_LINE_L_SMALL, where
   e = r / MBS_LINE_L_SMALL) and dT/dr = k dL/dr + d de/dr rdot. */
static void line_linearize(const mbs_force_model *f, const mbs_data *d, line_lin *o)
{
    double Pa[3], Pb[3], r[3], vr[3], e[3], De[9], dT[3];
    mbs_point_state(d, f->body_a, f->point_a, Pa, o->va);
    mbs_point_state(d, f->body_b, f->point_b, Pb, o->vb);
    mbs_derivs_point(d, f->body_a, f->point_a, o->pa);
    mbs_derivs_point(d, f->body_b, f->point_b, o->pb);
    v3_sub(r, Pb, Pa);
    v3_sub(vr, o->vb, o->va);
    const double L = v3_norm(r);
    const int big = L >= MBS_LINE_L_SMALL;
    v3_scale(e, r, 1.0 / fmax(L, MBS_LINE_L_SMALL));
    const double T = f->stiffness * (L - f->rest) + f->damping * v3_dot(e, vr);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            De[3 * i + j] = big ? ((i == j) - e[i] * e[j]) / L : (i == j) / MBS_LINE_L_SMALL;
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

/* The element kinds with an analytic derivative, by their ops table. */
static const struct {
    const mbs_force_ops *ops;
    mbs_force_derivative_fn fn;
} derivative_table[] = {
    {&mbs_force_joint_spring_damper_ops, joint_spring_damper_derivatives},
    {&mbs_force_spring_damper_ops, spring_damper_derivatives},
};

/* See derivs.h. */
mbs_force_derivative_fn mbs_derivs_element_fn(const mbs_force_model *f)
{
    for (size_t i = 0; i < sizeof derivative_table / sizeof derivative_table[0]; ++i)
        if (derivative_table[i].ops == f->ops) return derivative_table[i].fn;
    return NULL;
}
