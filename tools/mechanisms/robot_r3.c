/* Six-axis robot like the r3 (seed 003; masses, inertias and geometry of MSL
 * Systems.RobotR3 MechanicalStructure): six revolute joints (axes y, x, x, y, x, y), links
 * b1..b6 and a 15 kg load fixed to the flange; gravity 9.81 m/s^2 along -y. Each joint has
 * a servo modelled as a joint spring-damper towards a working pose; the arm starts upright
 * (all joint angles 0, the MSL reference configuration) and at rest, swings towards the
 * working pose and settles, sagging a little under gravity.
 * b1's inertia about its joint axis is 1.16 kg m^2 as in MSL; its other two moments (1e-3 in
 * MSL, which break the triangle inequality mbs checks) are set to 0.58, which changes
 * nothing: b1 only ever turns about that axis. */
#include <string.h>

#include "mechanisms.h"

#define NAXIS 6

typedef struct link_data {
    const char *body, *joint;
    double mass, com[3], inertia[9]; /* inertia about the com, body axes */
    double axis[3], joint_pos[3];    /* joint axis; joint position on the parent */
    double k, d, q_ref;              /* servo stiffness, damping, target angle */
} link_data;

static const link_data LINKS[NAXIS] = {
    {"b1", "r1", 1.0, {0, 0, 0}, {0.58, 0, 0, 0, 1.16, 0, 0, 0, 0.58},
     {0, 1, 0}, {0, 0.351, 0}, 3000.0, 500.0, 0.6},
    {"b2", "r2", 56.5, {0.172, 0.205, 0}, {2.58, -0.46, 0, -0.46, 0.64, 0, 0, 0, 2.73},
     {1, 0, 0}, {0, 0.324, 0.3}, 8000.0, 1200.0, 0.5},
    {"b3", "r3", 26.4, {0.064, -0.034, 0}, {0.279, -0.070, 0, -0.070, 0.245, 0, 0, 0, 0.413},
     {1, 0, 0}, {0, 0.65, 0}, 3000.0, 300.0, -1.0},
    {"b4", "r4", 28.7, {0, 0, 0}, {1.67, 0, 0, 0, 0.081, 0, 0, 0, 1.67},
     {0, 1, 0}, {0, 0.414, -0.155}, 200.0, 20.0, 0.4},
    {"b5", "r5", 5.2, {0, 0, 0}, {1.25, 0, 0, 0, 0.81, 0, 0, 0, 1.53},
     {1, 0, 0}, {0, 0.186, 0}, 400.0, 30.0, 0.8},
    {"b6", "r6", 0.5, {0.05, 0.05, 0.05}, {1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3},
     {0, 1, 0}, {0, 0.125, 0}, 5.0, 0.3, 0.5},
};

/* One link: body, revolute joint to the parent, servo. Returns the body id or a status. */
static int add_link(mbs_builder *b, int parent, const link_data *l)
{
    mbs_body_def body = mbs_default_body_def();
    body.name = l->body;
    body.mass = l->mass;
    memcpy(body.com, l->com, sizeof body.com);
    memcpy(body.inertia, l->inertia, sizeof body.inertia);
    const int id = mbs_add_body(b, &body);
    if (id < 0) return id;
    const mbs_joint_def j = mech_revolute(l->joint, parent, id, l->joint_pos, l->axis);
    const int jid = mbs_add_joint(b, &j);
    if (jid < 0) return jid;
    const int st = mbs_add_joint_spring_damper(b, jid, 0, l->k, l->d, l->q_ref);
    return st < 0 ? st : id;
}

/* The arm and the load on a fixed joint at the flange. */
static int build(mbs_builder *b)
{
    const double g[3] = {0.0, -9.81, 0.0}, load_com[3] = {0, 0.25, 0};
    int st = mbs_builder_set_gravity(b, g), parent = MBS_WORLD;
    for (int i = 0; i < NAXIS && st >= 0; ++i) st = parent = add_link(b, parent, &LINKS[i]);
    const mbs_body_def load = mech_body("load", 15.0, load_com, 1e-3, 1e-3, 1e-3);
    const int id = st < 0 ? st : mbs_add_body(b, &load);
    mbs_joint_def fix = mbs_default_joint_def(MBS_JOINT_FIXED);
    fix.name = "flange";
    fix.parent = parent;
    fix.child = id;
    st = id < 0 ? id : mbs_add_joint(b, &fix);
    return st < 0 ? st : MBS_OK;
}

static const mech_point TRACK[] = {{"load", "load", {0, 0.25, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.r1", "q.r2", "q.r3", "q.r4", "q.r5", "q.r6", NULL};

const mech mech_robot_r3 = {
    .name = "robot_r3",
    .title = "six-axis robot r3 with a 15 kg load, joint servos stepping to a working pose",
    .source = "Otter 2000-2002, \"ModelicaAdditions.MultiBody\" library documentation (robot r3); MSL Systems.RobotR3 MechanicalStructure",
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
