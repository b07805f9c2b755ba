/* Double pendulum (MSL Elementary.DoublePendulum): two steel boxes 0.5 x 0.06 x 0.06 m
 * (13.86 kg each) on revolute joints about z, the first with a damper d = 0.1 N m s/rad;
 * gravity 9.80665 m/s^2 along -y; both start horizontal along +x and at rest. */
#include "mechanisms.h"

#define LENGTH 0.5
#define MASS 13.86 /* 7700 kg/m^3 x 0.5 x 0.06 x 0.06 m */

/* Two links in series. */
static int build(mbs_builder *b)
{
    const double g[3] = {0.0, -9.80665, 0.0}, z[3] = {0, 0, 1};
    const double origin[3] = {0, 0, 0}, tip[3] = {LENGTH, 0, 0};
    int st = mbs_builder_set_gravity(b, g);
    const mbs_body_def l1 = mech_box_body("link1", MASS, LENGTH, 0.06, 0.06);
    const mbs_body_def l2 = mech_box_body("link2", MASS, LENGTH, 0.06, 0.06);
    const int b1 = st < 0 ? st : mbs_add_body(b, &l1);
    const int b2 = b1 < 0 ? b1 : mbs_add_body(b, &l2);
    const mbs_joint_def r1 = mech_revolute("revolute1", MBS_WORLD, b1, origin, z);
    const mbs_joint_def r2 = mech_revolute("revolute2", b1, b2, tip, z);
    const int j1 = b2 < 0 ? b2 : mbs_add_joint(b, &r1);
    const int j2 = j1 < 0 ? j1 : mbs_add_joint(b, &r2);
    st = j2 < 0 ? j2 : mbs_add_joint_spring_damper(b, j1, 0, 0.0, 0.1, 0.0);
    return st < 0 ? st : MBS_OK;
}

static const mech_point TRACK[] = {
    {"elbow", "link1", {LENGTH, 0, 0}}, {"tip", "link2", {LENGTH, 0, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.revolute1", "q.revolute2", NULL};

const mech mech_double_pendulum = {
    .name = "double_pendulum",
    .title = "double pendulum of two steel boxes, damper in the first joint",
    .source = "MSL Elementary.DoublePendulum",
    .build = build,
    .t_end = 3.0,
    .stepper = MBS_STEP_RK4,
    .dt = 1e-3,
    .rtol = 1e-8,
    .atol = 1e-10,
    .energy = MECH_DISSIPATIVE,
    .energy_tol = 1e-7,
    .track = TRACK,
    .plot = PLOT,
};
