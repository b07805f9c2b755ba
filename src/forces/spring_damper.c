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

/* Add the tension of the element to f_ext of both bodies. */
static int spring_damper_apply(const mbs_force_model *f, mbs_data *d)
{
    double e[3], rate;
    const double L = mbs_line_state(f, d, &rate, e);
    mbs_line_apply(f, d, e, f->stiffness * (L - f->rest) + f->damping * rate);
    return MBS_OK;
}

/* V = 1/2 k (L - L0)^2 at the current poses. */
static double spring_damper_potential(const mbs_force_model *f, const mbs_data *d)
{
    const double stretch = mbs_line_length(f, d) - f->rest;
    return 0.5 * f->stiffness * stretch * stretch;
}

const mbs_force_ops mbs_force_spring_damper_ops = {
    .name = "spring-damper",
    .apply = spring_damper_apply,
    .potential = spring_damper_potential,
};
