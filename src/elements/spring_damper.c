/* Line spring-damper between two body points (massless line force, Modelica's
 * MultiBody.Forces.SpringDamperParallel without a point mass).
 *
 * With p_a, p_b the world positions of the attachment points, r = p_b - p_a, L = |r|:
 *   tension        T = k (L - L0) + d dL/dt,   dL/dt = e . (v_b - v_a)
 *   forces         F_a = +T e on body a at p_a,  F_b = -T e on body b at p_b
 *   potential      V = 1/2 k (L - L0)^2,  so that F_b = -dV/dp_b for d = 0.
 * The line's geometry (and its direction when the points meet) is line.c's. The spring
 * therefore cannot push coincident points apart. */
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

/* ---- point masses on the line (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §8.1): each sits at p_m = p_a + s (p_b - p_a) (a
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

const mbs_force_ops mbs_force_spring_damper_ops = {
    .name = "spring-damper",
    .apply = spring_damper_apply,
    .potential = spring_damper_potential,
    .rows = spring_damper_rows,
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
