/* Uniform and point gravity: force m g(c) at each body's centre of mass. */
#include "elements/gravity.h"

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

/* f = [c x F; F] with F = R^T m g: the gravity wrench about the body origin, body coordinates
   (R the body's world rotation, c its com in body coordinates, g the acceleration there). */
static inline void gravity_wrench(double f[6], const double R[9], const double c[3], double mass,
                                  const double g[3])
{
    double mg[3];
    v3_scale(mg, g, mass);
    m3_tmulv(f + 3, R, mg);
    v3_cross(f, c, f + 3);
}

/* f_ext_b = gravity wrench of every body (zero for the world, massless bodies or no field). */
void mbs_gravity_set(mbs_data *d)
{
    const mbs_model *m = d->model;
    double *restrict fext = d->f_ext;
    for (int i = 0; i < 6; ++i) fext[i] = 0.0;
    if (m->gravity_kind == MBS_GRAVITY_NONE) {
        for (int i = 6; i < 6 * m->nbody; ++i) fext[i] = 0.0;
        return;
    }
    for (int b = 1; b < m->nbody; ++b) {
        const mbs_body_model *body = &m->bodies[b];
        double g[3], c[3];
        if (m->gravity_kind == MBS_GRAVITY_UNIFORM) {
            v3_copy(g, m->gravity);
        } else {
            com_world(d, b, c);
            gravity_at(m, c, g);
        }
        gravity_wrench(fext + 6 * b, d->x_world[b].R, body->com, body->mass, g);
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
