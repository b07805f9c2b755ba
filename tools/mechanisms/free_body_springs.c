/* Free body hung on two springs (seed 000 Fig. 8; MSL Elementary.FreeBody): a 1 kg bar
 * (centre of mass 0.2 m along x, I = diag(1, 1, 1)) that no joint connects to the world, so
 * mbs_compile gives it a free joint (position + quaternion). Spring 1 joins the world origin
 * to the bar's origin, spring 2 the world point (0.8, 0, 0) to the bar point (0.4, 0, 0);
 * both c = 20 N/m with zero unstretched length. Gravity 9.80665 m/s^2 along -y. The bar
 * starts at rest at (0.2, -0.5, 0.1), turned by Cardan angles of 10 degrees about x, y, z. */
#include "mechanisms.h"

#define PI 3.14159265358979323846

/* One body and two line springs to the world. */
static int build(mbs_builder *b)
{
    const double g[3] = {0.0, -9.80665, 0.0}, com[3] = {0.2, 0.0, 0.0};
    int st = mbs_builder_set_gravity(b, g);
    const mbs_body_def bar = mech_body("bar", 1.0, com, 1.0, 1.0, 1.0);
    const int id = st < 0 ? st : mbs_add_body(b, &bar);
    mbs_spring_damper_def s1 = mbs_default_spring_damper_def();
    s1.name = "spring1";
    s1.body_a = MBS_WORLD;
    s1.body_b = id;
    s1.stiffness = 20.0;
    mbs_spring_damper_def s2 = s1;
    s2.name = "spring2";
    s2.point_a[0] = 0.8;
    s2.point_b[0] = 0.4;
    st = id < 0 ? id : mbs_add_spring_damper(b, &s1);
    st = st < 0 ? st : mbs_add_spring_damper(b, &s2);
    return st < 0 ? st : MBS_OK;
}

/* Position and orientation of the free joint; velocities stay zero. */
static int init(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    const int j = mbs_model_find_joint(m, "free_bar");
    if (j < 0) return j;
    double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, j);
    q[0] = 0.2;
    q[1] = -0.5;
    q[2] = 0.1;
    const double a = 10.0 * PI / 180.0;
    mech_cardan_quat(a, a, a, q + 3);
    return MBS_OK;
}

static const mech_point TRACK[] = {{"com", "bar", {0.2, 0, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"x.com", "y.com", "z.com", NULL};

const mech mech_free_body_springs = {
    .name = "free_body_springs",
    .title = "free body (automatic free joint) hung on two springs",
    .source = "Otter, Elmqvist, Mattsson 2003, \"The New Modelica MultiBody Library\","
              " §6.5 Fig. 8; MSL Elementary.FreeBody",
    .build = build,
    .init = init,
    .t_end = 10.0,
    .stepper = MBS_STEP_RK4,
    .dt = 1e-3,
    .rtol = 1e-8,
    .atol = 1e-10,
    .energy = MECH_CONSERVATIVE,
    .energy_tol = 1e-6,
    .track = TRACK,
    .plot = PLOT,
};
