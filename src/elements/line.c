/* Geometry of line elements (Otter, Elmqvist, Mattsson 2003, §8.1: forces along the line
 * between two points): the points' world positions and velocities, the line's length L,
 * its rate dL/dt and direction, and the tension applied at both ends. Shared by the
 * spring-damper and the user line law. The unit direction is e = r / max(L, MBS_LINE_L_SMALL): when
 * the points (nearly) coincide there is no direction, and below MBS_LINE_L_SMALL e shrinks linearly to
 * 0 so the force goes continuously to zero instead of becoming NaN (Modelica LineForceBase
 * uses s_small = 1e-10 the same way). */
#include "core/internal.h"

/* World position and velocity of a point fixed on a body (body coordinates). */
void mbs_point_state(const mbs_data *d, int body, const double point[3], double pos[3],
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
void mbs_point_position(const mbs_data *d, int body, const double point[3], double pos[3])
{
    if (body == MBS_WORLD) v3_copy(pos, point);
    else pose_apply(pos, &d->x_world[body], point);
}

/* L = |p_b - p_a|, dL/dt = e . (v_b - v_a), e as in the file comment. */
double mbs_line_state(const mbs_force_model *f, const mbs_data *d, double *rate, double e[3])
{
    double pa[3], pb[3], va[3], vb[3], r[3], vr[3];
    mbs_point_state(d, f->body_a, f->point_a, pa, va);
    mbs_point_state(d, f->body_b, f->point_b, pb, vb);
    v3_sub(r, pb, pa);
    v3_sub(vr, vb, va);
    const double L = v3_norm(r);
    v3_scale(e, r, 1.0 / fmax(L, MBS_LINE_L_SMALL));
    *rate = v3_dot(e, vr);
    return L;
}

/* |p_b - p_a| at the current poses. */
double mbs_line_length(const mbs_force_model *f, const mbs_data *d)
{
    double pa[3], pb[3], r[3];
    mbs_point_position(d, f->body_a, f->point_a, pa);
    mbs_point_position(d, f->body_b, f->point_b, pb);
    v3_sub(r, pb, pa);
    return v3_norm(r);
}

/* F_a = +T e on body a at p_a, F_b = -T e on body b at p_b (the world takes nothing). */
void mbs_line_apply(const mbs_force_model *f, mbs_data *d, const double e[3], double tension)
{
    static const double zero[3] = {0.0, 0.0, 0.0};
    double fa[3], fb[3];
    v3_scale(fa, e, tension);
    v3_scale(fb, e, -tension);
    if (f->body_a != MBS_WORLD) mbs_forces_add_world_wrench(d, f->body_a, fa, zero, f->point_a);
    if (f->body_b != MBS_WORLD) mbs_forces_add_world_wrench(d, f->body_b, fb, zero, f->point_b);
}
