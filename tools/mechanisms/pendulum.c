/* Pendulum with a damped revolute joint (seed 000 §2; MSL Elementary.Pendulum): the y axis
 * points up (gravity 9.80665 m/s^2 along -y), the joint axis is z at the world origin, the
 * body (1 kg, centre of mass 0.5 m along x, I = diag(0.001)) starts horizontal and at rest,
 * and a rotational damper d = 0.1 N m s/rad acts in the joint. */
#include "mechanisms.h"

/* World, one body, one damped revolute joint. */
static int build(mbs_builder *b)
{
    const double g[3] = {0.0, -9.80665, 0.0}, origin[3] = {0, 0, 0}, z[3] = {0, 0, 1};
    const double com[3] = {0.5, 0.0, 0.0};
    int st = mbs_builder_set_gravity(b, g);
    const mbs_body_def body = mech_body("body", 1.0, com, 0.001, 0.001, 0.001);
    const int id = st < 0 ? st : mbs_add_body(b, &body);
    const mbs_joint_def rev = mech_revolute("rev", MBS_WORLD, id, origin, z);
    const int j = id < 0 ? id : mbs_add_joint(b, &rev);
    st = j < 0 ? j : mbs_add_joint_spring_damper(b, j, 0, 0.0, 0.1, 0.0);
    return st < 0 ? st : MBS_OK;
}

static const mech_point TRACK[] = {{"bob", "body", {0.5, 0, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.rev", "v.rev", NULL};

const mech mech_pendulum = {
    .name = "pendulum",
    .title = "pendulum with a damped revolute joint, released horizontally",
    .source = "Otter, Elmqvist, Mattsson 2003, \"The New Modelica MultiBody Library\","
              " §2 (first example); MSL Elementary.Pendulum",
    .build = build,
    .t_end = 5.0,
    .stepper = MBS_STEP_RK4,
    .dt = 1e-3,
    .rtol = 1e-8,
    .atol = 1e-10,
    .energy = MECH_DISSIPATIVE,
    .energy_tol = 1e-9,
    .track = TRACK,
    .plot = PLOT,
};
