/* Spatial four-bar with 6 revolute joints and 1 prismatic joint in one loop, one degree of
 * freedom (seed 000 §7 Fig. 9; MSL Examples.Loops.Fourbar1). Geometry and masses of MSL: the
 * crank b1 turns about world x at the origin (j1) and reaches (0, 0.5, 0.1); at its tip the
 * joints j3 (x), j4 (y), j5 (z) form a spherical-like group ending at b3.frame_b; b3 runs
 * from there by -(-1, 0.3, 0.1) to rev1 (z) and rev (y), which connect it to the rocker b2
 * (0, 0.2, 0), whose foot slides along world x on the prismatic j2 mounted at (1.2, 0, 0).
 * Bodies are steel cylinders of 0.05 m diameter (MSL BodyCylinder: b1 7.71 kg, b2 3.02 kg,
 * b3 15.86 kg); the joint groups carry massless links. Gravity 9.80665 m/s^2 along -y.
 * At the start all joint angles are 0 and j2.s = -0.2 (closed), j1 turns at 300 deg/s.
 *
 * mbs cuts the loop at j2 (a prismatic cut joint: 5 rows, all independent), so the tree runs
 * world - j1 - b1 - j3 - j4 - j5 - b3 - rev1 - rev - b2 and keeps the massless links inside
 * it. rev1 and rev are traversed from b3 towards b2, so their angles are the negatives of
 * MSL's rev1.phi and rev.phi. */
#include <math.h>

#include "mechanisms.h"

#define PRISMATIC_POS 1.2 /* world x of the prismatic joint's mount */

/* b1, the two massless links of j3-j4-j5, b3, the massless link of rev1-rev, b2. */
static int add_bodies(mbs_builder *b)
{
    static const double o[3] = {0, 0, 0}, r1[3] = {0, 0.5, 0.1}, r2[3] = {0, 0.2, 0},
                        r3[3] = {-1, 0.3, 0.1};
    const mech_part p1 = mech_cylinder(o, r1, 0.05), p2 = mech_cylinder(o, r2, 0.05),
                    p3 = mech_cylinder(o, r3, 0.05);
    const mbs_body_def defs[6] = {
        mech_parts_body("b1", &p1, 1),          mech_body("link_j3", 0.0, o, 0, 0, 0),
        mech_body("link_j4", 0.0, o, 0, 0, 0),  mech_parts_body("b3", &p3, 1),
        mech_body("link_rev", 0.0, o, 0, 0, 0), mech_parts_body("b2", &p2, 1),
    };
    int id = MBS_OK;
    for (int i = 0; i < 6 && id >= 0; ++i) id = mbs_add_body(b, &defs[i]);
    return id < 0 ? id : MBS_OK;
}

/* The tree (j1 first, with state priority) and the prismatic cut joint j2. */
static int build(mbs_builder *b)
{
    static const double g[3] = {0.0, -9.80665, 0.0}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0},
                        z[3] = {0, 0, 1}, o[3] = {0, 0, 0}, tip1[3] = {0, 0.5, 0.1},
                        tip3[3] = {-1, 0.3, 0.1}, top2[3] = {0, 0.2, 0},
                        mount[3] = {PRISMATIC_POS, 0, 0};
    int st = mbs_builder_set_gravity(b, g);
    if (st >= 0) st = add_bodies(b); /* ids: b1 1, link_j3 2, link_j4 3, b3 4, link_rev 5, b2 6 */
    mbs_joint_def j[7] = {
        mech_joint(MBS_JOINT_REVOLUTE, "j1", MBS_WORLD, 1, o, NULL, x),
        mech_joint(MBS_JOINT_REVOLUTE, "j3", 1, 2, tip1, NULL, x),
        mech_joint(MBS_JOINT_REVOLUTE, "j4", 2, 3, o, NULL, y),
        mech_joint(MBS_JOINT_REVOLUTE, "j5", 3, 4, o, tip3, z),
        mech_joint(MBS_JOINT_REVOLUTE, "rev1", 4, 5, o, NULL, z),
        mech_joint(MBS_JOINT_REVOLUTE, "rev", 5, 6, o, top2, y),
        mech_joint(MBS_JOINT_PRISMATIC, "j2", MBS_WORLD, 6, mount, NULL, x),
    };
    j[0].state_priority = 1;
    j[6].cut = 1;
    for (int i = 0; i < 7 && st >= 0; ++i) st = mbs_add_joint(b, &j[i]);
    return st < 0 ? st : MBS_OK;
}

/* j1 at 300 deg/s; every angle 0 and j2.s = -0.2 already close the loop. */
static int init(mbs_data *d)
{
    mbs_data_v(d)[0] = 5.235987755982989;
    return MBS_OK;
}

/* The prismatic cut j2: b2's foot on the world x line through the mount, b2 not rotated. */
static double closure(mbs_data *d)
{
    static const double o[3] = {0, 0, 0}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0},
                        mount[3] = {PRISMATIC_POS, 0, 0};
    const int b2 = mech_body_id(d, "b2");
    const double line = mech_line_gap(d, MBS_WORLD, mount, x, b2, o);
    const double ax = mech_axis_gap(d, MBS_WORLD, x, b2, x),
                 ay = mech_axis_gap(d, MBS_WORLD, y, b2, y);
    return fmax(line, fmax(ax, ay));
}

static const mech_point TRACK[] = {
    {"slider", "b2", {0, 0, 0}}, {"crank_tip", "b1", {0, 0.5, 0.1}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.j1", "v.j1", "x.slider", NULL};

const mech mech_spatial_fourbar = {
    .name = "spatial_fourbar",
    .title = "spatial four-bar, 6 revolute + 1 prismatic joint in one loop, crank at 300 deg/s",
    .source = "Otter, Elmqvist, Mattsson 2003, \"The New Modelica MultiBody Library\","
              " §7 Fig. 9; MSL Loops.Fourbar1",
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
