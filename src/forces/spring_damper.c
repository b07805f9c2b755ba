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

const mbs_force_ops mbs_force_spring_damper_ops = {
    .name = "spring-damper",
    .apply = spring_damper_apply,
    .potential = spring_damper_potential,
};
