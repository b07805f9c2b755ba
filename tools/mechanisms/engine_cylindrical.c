/* One-cylinder engine whose piston runs in a cylindrical joint (seed 004 §6.4, the model
 * "Engine": MSL Examples.Loops.Engine1a with the piston's prismatic joint replaced by a
 * cylindrical one and an ordinary revolute joint closing the loop). Geometry and parts of
 * Engine1a, steel (MSL BodyBox/BodyCylinder): the crankshaft turns about world x in the
 * bearing at the origin (crank1 cylinder to (0.1, 0, 0), crank2 box to (0.1, 0.1, 0), crank
 * pin crank3 to (0.2, 0.1, 0), crank4 box back to (0.2, 0, 0)) and carries the engine's
 * output inertia J = 1 kg m^2 (a thin disc on the axis); the connecting rod (box 0.2 long,
 * 0.02 x 0.06) joins the crank pin at (0.15, 0.1, 0) (revolute B1, axis x) to the piston pin
 * (revolute B2, axis x); the piston (cylinder, 0.1 diameter and length) slides and may spin
 * in the cylindrical joint "cylinder" along -y from (0.15, 0.45, 0). Gravity 9.80665 m/s^2
 * along -y; the crankshaft starts at angle 0 with 10 rad/s, as in MSL.
 *
 * B2 is the cut joint: 5 rows, of which 3 are independent (the loop is planar, and the
 * cylindrical joint leaves the piston's spin to the cut joint). Seed 004 reports the same
 * selection from Dymola: 3 of the cut joint's conditions kept. */
#include <math.h>

#include "mechanisms.h"

/* Crankshaft with the flywheel disc, rod, piston. */
static int add_bodies(mbs_builder *b)
{
    static const double o[3] = {0, 0, 0}, c1[3] = {0.1, 0, 0}, c2[3] = {0.1, 0.1, 0},
                        c3[3] = {0.2, 0.1, 0}, c4[3] = {0.2, 0, 0}, wx[3] = {1, 0, 0},
                        rod_end[3] = {0, 0.2, 0}, piston_end[3] = {0, -0.1, 0};
    mech_part crank[5] = {mech_cylinder(o, c1, 0.05),
                          mech_box(c1, c2, 0.02, 0.05, wx),
                          mech_cylinder(c2, c3, 0.03),
                          mech_box(c3, c4, 0.02, 0.05, wx),
                          {0.0, {0, 0, 0}, {1.0, 0, 0, 0, 0.5, 0, 0, 0, 0.5}}};
    const mech_part rod = mech_box(o, rod_end, 0.02, 0.06, wx);
    const mech_part piston = mech_cylinder(o, piston_end, 0.1);
    const mbs_body_def defs[3] = {mech_parts_body("crankshaft", crank, 5),
                                  mech_parts_body("rod", &rod, 1),
                                  mech_parts_body("piston", &piston, 1)};
    int id = MBS_OK;
    for (int i = 0; i < 3 && id >= 0; ++i) id = mbs_add_body(b, &defs[i]);
    return id < 0 ? id : MBS_OK;
}

/* bearing, B1, cylinder in the tree; B2 the cut. */
static int build(mbs_builder *b)
{
    static const double g[3] = {0.0, -9.80665, 0.0}, x[3] = {1, 0, 0}, down[3] = {0, -1, 0},
                        o[3] = {0, 0, 0}, pin[3] = {0.15, 0.1, 0}, top[3] = {0.15, 0.45, 0},
                        rod_end[3] = {0, 0.2, 0}, piston_pin[3] = {0, -0.1, 0};
    int st = mbs_builder_set_gravity(b, g);
    if (st >= 0) st = add_bodies(b); /* ids: crankshaft 1, rod 2, piston 3 */
    mbs_joint_def j[4] = {
        mech_joint(MBS_JOINT_REVOLUTE, "bearing", MBS_WORLD, 1, o, NULL, x),
        mech_joint(MBS_JOINT_REVOLUTE, "B1", 1, 2, pin, NULL, x),
        mech_joint(MBS_JOINT_CYLINDRICAL, "cylinder", MBS_WORLD, 3, top, NULL, down),
        mech_joint(MBS_JOINT_REVOLUTE, "B2", 2, 3, rod_end, piston_pin, x),
    };
    j[0].state_priority = 1;
    j[3].cut = 1;
    for (int i = 0; i < 4 && st >= 0; ++i) st = mbs_add_joint(b, &j[i]);
    return st < 0 ? st : MBS_OK;
}

/* Crank angle 0 at 10 rad/s: rod upright, piston 0.05 down the cylinder (closed). */
static int init(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    mbs_data_q(d)[mbs_model_joint_qadr(m, mbs_model_find_joint(m, "cylinder"))] = 0.05;
    mbs_data_v(d)[mbs_model_joint_vadr(m, mbs_model_find_joint(m, "bearing"))] = 10.0;
    return MBS_OK;
}

/* B2: the rod's and the piston's pin points together, their x axes parallel. */
static double closure(mbs_data *d)
{
    static const double x[3] = {1, 0, 0}, rod_end[3] = {0, 0.2, 0}, piston_pin[3] = {0, -0.1, 0};
    const int rod = mech_body_id(d, "rod"), piston = mech_body_id(d, "piston");
    return fmax(mech_point_gap(d, rod, rod_end, piston, piston_pin),
                mech_axis_gap(d, rod, x, piston, x));
}

static const mech_point TRACK[] = {{"piston_pin", "piston", {0, -0.1, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.bearing", "q.cylinder.0", "q.cylinder.1", NULL};

const mech mech_engine_cylindrical = {
    .name = "engine_cylindrical",
    .title = "one-cylinder engine, piston in a cylindrical joint, revolute cut at the piston pin",
    .source = "Elmqvist, Mattsson, Chapuis 2009, \"Redundancies in Multibody Systems and "
              "Automatic Coupling of CATIA and Modelica\", §6.4 (Engine); MSL Loops.Engine1a geometry",
    .build = build,
    .init = init,
    .closure = closure,
    .t_end = 5.0,
    .stepper = MBS_STEP_RK4,
    .dt = 1e-3,
    .rtol = 1e-8,
    .atol = 1e-10,
    .energy = MECH_CONSERVATIVE,
    .energy_tol = 1e-6,
    .closure_tol = 1e-9,
    .track = TRACK,
    .plot = PLOT,
};
