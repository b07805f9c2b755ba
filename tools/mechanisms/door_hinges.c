/* A door on two hinges (seed 004 §6, model Door1): a 20 kg slab 0.8 m wide (x), 2 m high
 * (y) and 0.04 m thick hangs on two revolute joints about the vertical world y axis, hinge1
 * at y = 0.2 and hinge2 at y = 1.8. A torsion spring in hinge1 (k = 20 N m/rad, rest at the
 * closed position) pulls the door shut; it starts open at 90 degrees and at rest, and swings
 * without damping. Gravity 9.81 m/s^2 along -y, along the hinge axis.
 *
 * hinge2 closes a loop and becomes a cut joint with 5 rows (3 for the position of its
 * point, 2 for the direction of its axis). With both hinges on one axis every row already
 * holds through hinge1 whatever the door's angle: the constraint Jacobian is zero, rank 0,
 * and all 5 rows are dropped as redundant (multipliers 0: hinge1 carries the whole load, as
 * in seed 004's Door1a). The door keeps its single degree of freedom. */
#include <math.h>

#include "mechanisms.h"

#define WIDTH 0.8
#define HEIGHT 2.0
#define THICK 0.04
#define MASS 20.0

/* Door slab, hinge1 with its spring, hinge2 as a cut joint. */
static int build(mbs_builder *b)
{
    static const double g[3] = {0.0, -9.81, 0.0}, y[3] = {0, 1, 0}, h1[3] = {0, 0.2, 0},
                        h2[3] = {0, 1.8, 0}, com[3] = {0.5 * WIDTH, 0.5 * HEIGHT, 0};
    const mbs_body_def door =
        mech_body("door", MASS, com, MASS / 12.0 * (HEIGHT * HEIGHT + THICK * THICK),
                  MASS / 12.0 * (WIDTH * WIDTH + THICK * THICK),
                  MASS / 12.0 * (WIDTH * WIDTH + HEIGHT * HEIGHT));
    int st = mbs_builder_set_gravity(b, g);
    const int id = st < 0 ? st : mbs_add_body(b, &door);
    mbs_joint_def hinge1 = mech_joint(MBS_JOINT_REVOLUTE, "hinge1", MBS_WORLD, id, h1, h1, y);
    mbs_joint_def hinge2 = mech_joint(MBS_JOINT_REVOLUTE, "hinge2", MBS_WORLD, id, h2, h2, y);
    hinge1.state_priority = 1;
    hinge2.cut = 1;
    const int j1 = id < 0 ? id : mbs_add_joint(b, &hinge1);
    st = j1 < 0 ? j1 : mbs_add_joint(b, &hinge2);
    st = st < 0 ? st : mbs_add_joint_spring_damper(b, j1, 0, 20.0, 0.0, 0.0);
    return st < 0 ? st : MBS_OK;
}

/* Open at 90 degrees, at rest. */
static int init(mbs_data *d)
{
    mbs_data_q(d)[0] = 0.5 * MECH_PI;
    return MBS_OK;
}

/* hinge2: its points on the world and on the door together, the door's y axis vertical. */
static double closure(mbs_data *d)
{
    static const double y[3] = {0, 1, 0}, h2[3] = {0, 1.8, 0};
    const int door = mech_body_id(d, "door");
    return fmax(mech_point_gap(d, MBS_WORLD, h2, door, h2),
                mech_axis_gap(d, MBS_WORLD, y, door, y));
}

static const mech_point TRACK[] = {{"edge", "door", {WIDTH, 1.0, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.hinge1", "v.hinge1", NULL};

const mech mech_door_hinges = {
    .name = "door_hinges",
    .title = "door on two coaxial hinges with a torsion spring: 5 cut rows, rank 0",
    .source = "Elmqvist, Mattsson, Chapuis 2009, \"Redundancies in Multibody Systems and "
              "Automatic Coupling of CATIA and Modelica\", §6 (Door1)",
    .build = build,
    .init = init,
    .closure = closure,
    .t_end = 5.0,
    .stepper = MBS_STEP_RK4,
    .dt = 1e-3,
    .rtol = 1e-8,
    .atol = 1e-10,
    .energy = MECH_CONSERVATIVE,
    .energy_tol = 1e-9,
    .closure_tol = 1e-9,
    .track = TRACK,
    .plot = PLOT,
};
