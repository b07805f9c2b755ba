/* A planar four-bar in a tilted plane (seed 004 §6.3, PlanarLoop2): the mechanism lies in
 * the plane -sin(a) y + cos(a) z = 0 with a = 30 degrees, all revolute axes along its
 * normal n = (0, -sin a, cos a). In the plane (basis ex = (1, 0, 0), ey = (0, cos a, sin a)):
 * rod1 (0.5 m, nr1 = 0.5 ey as in the seed) turns about the origin, rod3 (0.7 m) about
 * ex - 0.2 ey, and the coupler rod2 (1 m) joins their tips. rod2 is made of two halves held
 * together by a fixed cut joint in its middle, the seed's general cut joint with 6
 * conditions. Bars are steel cylinders of 0.05 m diameter; gravity 9.81 m/s^2 along world -y
 * (its in-plane part drives the motion, the rest loads the joints). rod1 starts 30 degrees
 * from ey, at rest; the other angles follow from the assembly.
 *
 * Of the cut joint's 6 rows only 3 are independent (positions along two in-plane directions
 * and the rotation about n): the out-of-plane position and the two tilts hold through the
 * parallel revolute axes. mbs finds this from the constraint Jacobian whatever the plane's
 * tilt; with a = 30 degrees it keeps the position rows along world x and y and the rotation
 * about world z, the coordinate plane of least tilt, as Dymola does (seed 004 §6.3). */
#include <math.h>

#include "mechanisms.h"

#define TILT (30.0 * MECH_PI / 180.0)

/* In-plane point u ex + v ey in world coordinates. */
static void plane_point(double u, double v, double p[3])
{
    p[0] = u;
    p[1] = v * cos(TILT);
    p[2] = v * sin(TILT);
}

/* rod1, rod2a (first half of the coupler), rod3, rod2b (second half). */
static int add_bodies(mbs_builder *b)
{
    static const double o[3] = {0, 0, 0};
    double up05[3], up07[3], half[3], back[3];
    plane_point(0.0, 0.5, up05);
    plane_point(0.0, 0.7, up07);
    plane_point(0.5, 0.0, half);
    plane_point(-0.5, 0.0, back);
    const mech_part p[4] = {mech_cylinder(o, up05, 0.05), mech_cylinder(o, half, 0.05),
                            mech_cylinder(o, up07, 0.05), mech_cylinder(o, back, 0.05)};
    static const char *const names[4] = {"rod1", "rod2a", "rod3", "rod2b"};
    int id = MBS_OK;
    for (int i = 0; i < 4 && id >= 0; ++i) {
        const mbs_body_def def = mech_parts_body(names[i], &p[i], 1);
        id = mbs_add_body(b, &def);
    }
    return id < 0 ? id : MBS_OK;
}

/* Revolutes rev1..rev4 about n in the tree, the fixed cut in the coupler's middle. */
static int build(mbs_builder *b)
{
    static const double g[3] = {0.0, -9.81, 0.0}, o[3] = {0, 0, 0};
    const double n[3] = {0.0, -sin(TILT), cos(TILT)};
    double o3[3], up05[3], up07[3], half[3], back[3];
    plane_point(1.0, -0.2, o3);
    plane_point(0.0, 0.5, up05);
    plane_point(0.0, 0.7, up07);
    plane_point(0.5, 0.0, half);
    plane_point(-0.5, 0.0, back);
    int st = mbs_builder_set_gravity(b, g);
    if (st >= 0) st = add_bodies(b); /* ids: rod1 1, rod2a 2, rod3 3, rod2b 4 */
    mbs_joint_def j[5] = {
        mech_joint(MBS_JOINT_REVOLUTE, "rev1", MBS_WORLD, 1, o, NULL, n),
        mech_joint(MBS_JOINT_REVOLUTE, "rev2", 1, 2, up05, NULL, n),
        mech_joint(MBS_JOINT_REVOLUTE, "rev3", MBS_WORLD, 3, o3, NULL, n),
        mech_joint(MBS_JOINT_REVOLUTE, "rev4", 3, 4, up07, NULL, n),
        mech_joint(MBS_JOINT_FIXED, "cut", 2, 4, half, back, NULL),
    };
    j[0].state_priority = 1;
    j[4].cut = 1;
    for (int i = 0; i < 5 && st >= 0; ++i) st = mbs_add_joint(b, &j[i]);
    return st < 0 ? st : MBS_OK;
}

/* rod1 at 30 degrees, the rest a guess (all 0) that mbs_assemble closes. */
static int init(mbs_data *d)
{
    mbs_data_q(d)[0] = 30.0 * MECH_PI / 180.0;
    return MBS_OK;
}

/* The cut: the halves' ends together, their x and y axes parallel. */
static double closure(mbs_data *d)
{
    static const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    double half[3], back[3];
    plane_point(0.5, 0.0, half);
    plane_point(-0.5, 0.0, back);
    const int a = mech_body_id(d, "rod2a"), c = mech_body_id(d, "rod2b");
    const double tilt = fmax(mech_axis_gap(d, a, x, c, x), mech_axis_gap(d, a, y, c, y));
    return fmax(mech_point_gap(d, a, half, c, back), tilt);
}

static const mech_point TRACK[] = {{"coupler_mid", "rod2a", {0.5, 0, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.rev1", "q.rev3", NULL};

const mech mech_planar_loop_tilted = {
    .name = "planar_loop_tilted",
    .title = "planar four-bar in a plane tilted by 30 deg, fixed cut joint: 3 of 6 rows kept",
    .source = "Elmqvist, Mattsson, Chapuis 2009, \"Redundancies in Multibody Systems and "
              "Automatic Coupling of CATIA and Modelica\", §6.3 (PlanarLoop2)",
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
