/* Uniform and point gravity (DESIGN.md §7): force m g(c) at each body's centre of mass. */
#include "forces/gravity.h"

/* Centre of mass of body b in world coordinates. */
static void com_world(const mbs_data *d, int b, double c[3])
{
    pose_apply(c, &d->x_world[b], d->model->bodies[b].com);
}

/* Gravity acceleration at world point x; 0 when the field is none or x is the centre. */
static void gravity_at(const mbs_model *m, const double x[3], double g[3])
{
    v3_set(g, 0.0, 0.0, 0.0);
    if (m->gravity_kind == MBS_GRAVITY_UNIFORM) {
        v3_copy(g, m->gravity);
    } else if (m->gravity_kind == MBS_GRAVITY_POINT) { /* g = -mu r / |r|^3 */
        double r[3];
        v3_sub(r, x, m->gravity_center);
        const double r2 = v3_dot(r, r);
        if (r2 > 0.0) v3_scale(g, r, -m->gravity_mu / (r2 * sqrt(r2)));
    }
}

/* f_ext_b += [c x F; F] with F = R^T m g(c_world), c the com in body coordinates. */
void mbs_gravity_apply(mbs_data *d)
{
    const mbs_model *m = d->model;
    if (m->gravity_kind == MBS_GRAVITY_NONE) return;
    for (int b = 1; b < m->nbody; ++b) {
        const mbs_body_model *body = &m->bodies[b];
        if (body->mass == 0.0) continue;
        double c[3], g[3], F[3], n[3];
        com_world(d, b, c);
        gravity_at(m, c, g);
        v3_scale(g, g, body->mass);
        m3_tmulv(F, d->x_world[b].R, g);
        v3_cross(n, body->com, F);
        double *f = d->f_ext + 6 * b;
        v3_add(f, f, n);
        v3_add(f + 3, f + 3, F);
    }
}

/* Sum over bodies of -m g.c (uniform) or -mu m / |r| (point; a body at the centre adds 0). */
double mbs_gravity_potential(const mbs_data *d)
{
    const mbs_model *m = d->model;
    double V = 0.0;
    if (m->gravity_kind == MBS_GRAVITY_NONE) return 0.0;
    for (int b = 1; b < m->nbody; ++b) {
        const double mass = m->bodies[b].mass;
        double c[3], r[3];
        if (mass == 0.0) continue;
        com_world(d, b, c);
        if (m->gravity_kind == MBS_GRAVITY_UNIFORM) {
            V -= mass * v3_dot(m->gravity, c);
        } else {
            v3_sub(r, c, m->gravity_center);
            const double rn = v3_norm(r);
            if (rn > 0.0) V -= m->gravity_mu * mass / rn;
        }
    }
    return V;
}
