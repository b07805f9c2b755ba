/* Line spring-damper between two body points (massless line force, Modelica's
 * MultiBody.Forces.SpringDamperParallel without a point mass).
 *
 * With p_a, p_b the world positions of the attachment points, r = p_b - p_a, L = |r|:
 *   tension        T = k (L - L0) + d dL/dt,   dL/dt = e . (v_b - v_a)
 *   forces         F_a = +T e on body a at p_a,  F_b = -T e on body b at p_b
 *   potential      V = 1/2 k (L - L0)^2,  so that F_b = -dV/dp_b for d = 0.
 * The line's geometry (and its direction when the points meet) is line.c's. The spring
 * therefore cannot push coincident points apart. */
#include "derivatives/derivs.h"
#include "core/internal.h"
#include "elements/couplings.h"

/* Add the tension of the element to f_ext of both bodies. */
static int spring_damper_apply(const mbs_force_model *f, mbs_data *d)
{
    double e[3], rate;
    const double L = mbs_line_state(f, d, &rate, e);
    mbs_line_apply(f, d, e, f->stiffness * (L - f->rest) + f->damping * rate);
    return MBS_OK;
}

/* ---- point masses on the line (seed 000 §8.1): each sits at p_m = p_a + s (p_b - p_a) (a
   fraction s = h) or p_m = p_a + dist e (a distance, e = (p_b - p_a) / L). Its velocity is
   v_m = G_a v_a + G_b v_b: G_a = (1 - h) I, G_b = h I for a fraction; G_b = (dist / L) P,
   G_a = I - G_b with P = I - e e^T for a distance. Its acceleration adds to G_a a_a + G_b a_b
   the term Gdot_b (v_b - v_a) = -dist (2 (Ldot / L) edot + |edot|^2 e), edot = P (v_b - v_a)
   / L. Its three rows are v_m along the world axes (src/elements/couplings.h). */

/* World state of an attachment point: position, velocity and the velocity-product part of
   its acceleration R (w x v_p) (zero on the world). */
typedef struct line_point {
    double p[3], v[3], c[3];
} line_point;

/* State of point (body coordinates) of body. */
static void line_point_state(const mbs_data *d, int body, const double point[3], line_point *s)
{
    mbs_point_state(d, body, point, s->p, s->v);
    v3_set(s->c, 0.0, 0.0, 0.0);
    if (body == MBS_WORLD) return;
    const double *vb = d->vel + 6 * body;
    double wxp[3], vp[3], c[3];
    v3_cross(wxp, vb, point);
    v3_add(vp, vb + 3, wxp);
    v3_cross(c, vb, vp);
    m3_mulv(s->c, d->x_world[body].R, c);
}

/* The map of one point mass: G_a, G_b (row-major 3x3), its position and acc_vel (3). mode 0:
   fraction h = x of the way from A to B; mode 1: distance x from A. MBS_ERR_SINGULAR when a
   distance mass has no line direction (A and B coincide). */
static int mass_map(const line_point *A, const line_point *B, int mode, double x, double Ga[9],
                    double Gb[9], double pm[3], double accv[3])
{
    double r[3], u[3];
    v3_sub(r, B->p, A->p);
    v3_sub(u, B->v, A->v);
    for (int i = 0; i < 9; ++i) Ga[i] = Gb[i] = 0.0;
    if (mode == 0 || x == 0.0) {
        const double h = mode == 0 ? x : 0.0;
        for (int i = 0; i < 3; ++i) Ga[4 * i] = 1.0 - h, Gb[4 * i] = h;
        for (int i = 0; i < 3; ++i) {
            pm[i] = A->p[i] + h * r[i];
            accv[i] = (1.0 - h) * A->c[i] + h * B->c[i];
        }
        return MBS_OK;
    }
    const double L = v3_norm(r);
    if (!(L > MBS_LINE_L_SMALL)) return MBS_ERR_SINGULAR;
    double e[3], ed[3];
    v3_scale(e, r, 1.0 / L);
    const double Ld = v3_dot(e, u), s = x / L;
    for (int i = 0; i < 3; ++i) ed[i] = (u[i] - e[i] * Ld) / L;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            Gb[3 * i + j] = s * ((i == j ? 1.0 : 0.0) - e[i] * e[j]);
            Ga[3 * i + j] = (i == j ? 1.0 : 0.0) - Gb[3 * i + j];
        }
    const double ed2 = v3_dot(ed, ed);
    for (int i = 0; i < 3; ++i) {
        pm[i] = A->p[i] + x * e[i];
        accv[i] = -x * (2.0 * (Ld / L) * ed[i] + ed2 * e[i]);
        for (int j = 0; j < 3; ++j) accv[i] += Ga[3 * i + j] * A->c[j] + Gb[3 * i + j] * B->c[j];
    }
    return MBS_OK;
}

/* Gravity acceleration at world point x (uniform, point or none). */
static void gravity_at_point(const mbs_model *m, const double x[3], double g[3])
{
    v3_set(g, 0.0, 0.0, 0.0);
    if (m->gravity_kind == MBS_GRAVITY_UNIFORM) {
        v3_copy(g, m->gravity);
    } else if (m->gravity_kind == MBS_GRAVITY_POINT) {
        double r[3];
        v3_sub(r, x, m->gravity_center);
        const double r2 = v3_dot(r, r);
        if (r2 > 0.0) v3_scale(g, r, -m->gravity_mu / (r2 * sqrt(r2)));
    }
}

/* Body term of a row: the world force F at point (body coordinates) of body, as a wrench
   about the body origin in body coordinates; the world gets none. */
static void row_term(const mbs_data *d, mbs_crow *r, int k, int body, const double point[3],
                     const double F[3])
{
    r->body[k] = body == MBS_WORLD ? -1 : body;
    for (int e = 0; e < 6; ++e) r->w[k][e] = 0.0;
    if (body == MBS_WORLD) return;
    m3_tmulv(r->w[k] + 3, d->x_world[body].R, F);
    v3_cross(r->w[k], point, r->w[k] + 3);
}

/* The three rows (world x, y, z) of one point mass of element f. */
static int mass_rows(const mbs_force_model *f, mbs_data *d, int with_vel, int mode, int from_b,
                     double x, double mass, mbs_crow *rows)
{
    line_point A, B;
    double Ga[9], Gb[9], pm[3], accv[3], g[3];
    line_point_state(d, from_b ? f->body_b : f->body_a, from_b ? f->point_b : f->point_a, &A);
    line_point_state(d, from_b ? f->body_a : f->body_b, from_b ? f->point_a : f->point_b, &B);
    if (mass_map(&A, &B, mode, x, Ga, Gb, pm, accv) != MBS_OK) {
        char buf[96];
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "line force %s: its end points coincide, so "
                             "the line through its point mass has no direction",
                             mbs_name_label(f->name, (int)(f - d->model->forces), buf,
                                            (int)sizeof buf));
    }
    gravity_at_point(d->model, pm, g);
    const double *Gfirst = from_b ? Gb : Ga, *Gsecond = from_b ? Ga : Gb;
    for (int i = 0; i < 3; ++i) {
        mbs_crow *r = &rows[i];
        const double Fa[3] = {Gfirst[i], Gfirst[3 + i], Gfirst[6 + i]};
        const double Fb[3] = {Gsecond[i], Gsecond[3 + i], Gsecond[6 + i]};
        row_term(d, r, 0, f->body_a, f->point_a, Fa);
        row_term(d, r, 1, f->body_b, f->point_b, Fb);
        r->dof = -1, r->coef = 0.0, r->native = 0, r->mass = mass;
        r->acc_vel = with_vel ? accv[i] : 0.0;
        r->target = g[i];
    }
    return MBS_OK;
}

/* Rows of the single point mass of a spring-damper (fraction). */
static int spring_damper_rows(const mbs_force_model *f, mbs_data *d, int with_vel, mbs_crow *rows)
{
    return mass_rows(f, d, with_vel, 0, 0, f->fraction, f->mass, rows);
}

/* Rows of the two point masses (those with a positive mass, a first). */
static int two_masses_rows(const mbs_force_model *f, mbs_data *d, int with_vel, mbs_crow *rows)
{
    int k = 0, st = MBS_OK;
    if (f->mass > 0.0) st = mass_rows(f, d, with_vel, 1, 0, f->dist_a, f->mass, rows), k = 3;
    if (st == MBS_OK && f->mass_b > 0.0)
        st = mass_rows(f, d, with_vel, 1, 1, f->dist_b, f->mass_b, rows + k);
    return st;
}

/* Potential of gravity of a point mass (mode, distance or fraction x) of element f. */
static double mass_potential(const mbs_force_model *f, const mbs_data *d, int mode, int from_b,
                             double x, double mass)
{
    const mbs_model *m = d->model;
    if (mass == 0.0 || m->gravity_kind == MBS_GRAVITY_NONE) return 0.0;
    double pa[3], pb[3], r[3], pm[3];
    mbs_point_position(d, from_b ? f->body_b : f->body_a, from_b ? f->point_b : f->point_a, pa);
    mbs_point_position(d, from_b ? f->body_a : f->body_b, from_b ? f->point_a : f->point_b, pb);
    v3_sub(r, pb, pa);
    const double L = v3_norm(r), s = mode == 0 ? x : (L > 0.0 ? x / L : 0.0);
    for (int i = 0; i < 3; ++i) pm[i] = pa[i] + s * r[i];
    if (m->gravity_kind == MBS_GRAVITY_UNIFORM) return -mass * v3_dot(m->gravity, pm);
    v3_sub(r, pm, m->gravity_center);
    const double rn = v3_norm(r);
    return rn > 0.0 ? -m->gravity_mu * mass / rn : 0.0;
}

/* V = 1/2 k (L - L0)^2 at the current poses. */
static double spring_potential(const mbs_force_model *f, const mbs_data *d)
{
    const double stretch = mbs_line_length(f, d) - f->rest;
    return 0.5 * f->stiffness * stretch * stretch;
}

/* Spring energy plus the weight of its point mass. */
static double spring_damper_potential(const mbs_force_model *f, const mbs_data *d)
{
    return spring_potential(f, d) + mass_potential(f, d, 0, 0, f->fraction, f->mass);
}

/* Spring energy plus the weight of both point masses. */
static double two_masses_potential(const mbs_force_model *f, const mbs_data *d)
{
    return spring_potential(f, d) + mass_potential(f, d, 1, 0, f->dist_a, f->mass) +
           mass_potential(f, d, 1, 1, f->dist_b, f->mass_b);
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

const mbs_force_ops mbs_force_spring_damper_ops = {
    .name = "spring-damper",
    .apply = spring_damper_apply,
    .potential = spring_damper_potential,
    .rows = spring_damper_rows,
    .derivatives = spring_damper_derivatives,
};

const mbs_force_ops mbs_force_two_masses_ops = {
    .name = "line force with two masses",
    .apply = spring_damper_apply,
    .potential = two_masses_potential,
    .rows = two_masses_rows,
};

/* See force.h. */
int mbs_force_is_line(const mbs_force_model *f)
{
    return f->ops == &mbs_force_spring_damper_ops || f->ops == &mbs_force_two_masses_ops;
}
