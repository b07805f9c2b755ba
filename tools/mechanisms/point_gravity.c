/* Two bodies in a point gravity field (seed 000 Fig. 7; MSL Elementary.PointGravity):
 * mu = 1 m^3/s^2 at the origin; two 1 kg bodies (I = diag(0.1)) with free joints added by
 * mbs_compile, body1 starting at (0, 0.6, 0) with velocity (1, 0, 0), body2 at (0.6, 0.6, 0)
 * with (0.6, 0, 0): both fly on ellipses around the centre (periods 1.76 s and 2.23 s). */
#include <string.h>

#include "mechanisms.h"

/* Point gravity and two unjointed bodies. */
static int build(mbs_builder *b)
{
    const double center[3] = {0, 0, 0}, com[3] = {0, 0, 0};
    int st = mbs_builder_set_point_gravity(b, center, 1.0);
    const mbs_body_def b1 = mech_body("body1", 1.0, com, 0.1, 0.1, 0.1);
    const mbs_body_def b2 = mech_body("body2", 1.0, com, 0.1, 0.1, 0.1);
    st = st < 0 ? st : mbs_add_body(b, &b1);
    st = st < 0 ? st : mbs_add_body(b, &b2);
    return st < 0 ? st : MBS_OK;
}

/* Position and world velocity of the free joint called name. */
static int place(mbs_data *d, const char *name, const double pos[3], const double vel[3])
{
    const mbs_model *m = mbs_data_model(d);
    const int j = mbs_model_find_joint(m, name);
    if (j < 0) return j;
    memcpy(mbs_data_q(d) + mbs_model_joint_qadr(m, j), pos, 3 * sizeof *pos);
    memcpy(mbs_data_v(d) + mbs_model_joint_vadr(m, j), vel, 3 * sizeof *vel);
    return MBS_OK;
}

/* The two initial orbits. */
static int init(mbs_data *d)
{
    const double p1[3] = {0, 0.6, 0}, v1[3] = {1, 0, 0};
    const double p2[3] = {0.6, 0.6, 0}, v2[3] = {0.6, 0, 0};
    const int st = place(d, "free_body1", p1, v1);
    return st < 0 ? st : place(d, "free_body2", p2, v2);
}

static const mech_point TRACK[] = {
    {"body1", "body1", {0, 0, 0}}, {"body2", "body2", {0, 0, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"x.body1", "y.body1", "x.body2", "y.body2", NULL};

const mech mech_point_gravity = {
    .name = "point_gravity",
    .title = "two bodies on elliptic orbits in a point gravity field",
    .source = "Otter, Elmqvist, Mattsson 2003, \"The New Modelica MultiBody Library\","
              " §6.1 Fig. 7; MSL Elementary.PointGravity",
    .build = build,
    .init = init,
    .t_end = 5.0,
    .stepper = MBS_STEP_CVODE_ADAMS,
    .dt = 0.01,
    .rtol = 1e-10,
    .atol = 1e-12,
    .energy = MECH_CONSERVATIVE,
    .energy_tol = 1e-7,
    .track = TRACK,
    .plot = PLOT,
};
