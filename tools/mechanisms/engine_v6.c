/* V6 engine: a crankshaft with six slider-cranks, 6 planar loops and one degree of freedom
 * (seed 000 §7 Fig. 10; MSL Examples.Loops.EngineV6 and its Utilities.Cylinder). Cylinder k
 * (k = 0..5) sits at x0 = 0.2 k along the crankshaft (world x): its crank throw points at
 * the crank angle plus the offset -30, 90, 210, 210, 90, -30 degrees, its cylinder axis is
 * inclined by -30, +30, -30, +30, -30, +30 degrees about x (the two banks of the V). Parts
 * are those of MSL's Cylinder, steel: per throw crank1 (cylinder 0.05 x 0.12), crank2 and
 * crank4 (boxes 0.1 x 0.02 x 0.05), the crank pin crank3 (cylinder 0.03 x 0.12) at radius
 * 0.1 and x0 + 0.15; the connecting rod (box 0.22 x 0.02 x 0.06, pins 0.2 apart); the
 * piston (cylinder 0.1 x 0.1) on a prismatic joint along the cylinder axis whose top is 0.42
 * from the crankshaft. The crankshaft carries the load inertia J = 1 kg m^2 of MSL (a thin
 * disc on the axis). The combustion (MSL's gas force) and the speed-dependent load are left
 * out: the engine coasts from 10 rad/s (MSL's start value) under gravity 9.80665 m/s^2 along
 * -y, so its energy is conserved.
 *
 * The loops are cut at the crank pins (revolute B1 of each cylinder, as MSL's planar cut
 * joint): 6 x 5 = 30 rows, of which 2 per cylinder are independent (the loops are planar),
 * rank 12, 18 rows dropped, nv 13 - 12 = 1 degree of freedom. */
#include <math.h>

#include "mechanisms.h"

#define NCYL 6
#define CRANK_R 0.1 /* crank pin offset */
#define ROD_L 0.2   /* rod length between the pins */
#define TOP 0.42    /* cylinder top from the crankshaft axis */
#define DEG (MECH_PI / 180.0)

static const double OFFSET[NCYL] = {-30.0, 90.0, 210.0, 210.0, 90.0, -30.0};
static const double INCLINE[NCYL] = {-30.0, 30.0, -30.0, 30.0, -30.0, 30.0};
static const char *const PISTON[NCYL] = {"piston1", "piston2", "piston3",
                                         "piston4", "piston5", "piston6"};
static const char *const ROD[NCYL] = {"rod1", "rod2", "rod3", "rod4", "rod5", "rod6"};
static const char *const CYL[NCYL] = {"cylinder1", "cylinder2", "cylinder3",
                                      "cylinder4", "cylinder5", "cylinder6"};
static const char *const B1[NCYL] = {"B1_1", "B1_2", "B1_3", "B1_4", "B1_5", "B1_6"};
static const char *const B2[NCYL] = {"B2_1", "B2_2", "B2_3", "B2_4", "B2_5", "B2_6"};

/* Unit vector (0, cos a, sin a) of an angle about x in degrees, scaled by s. */
static void about_x(double deg, double s, double v[3])
{
    v[0] = 0.0;
    v[1] = s * cos(deg * DEG);
    v[2] = s * sin(deg * DEG);
}

/* The crank pin of cylinder k on the crankshaft (at crank angle 0). */
static void pin_point(int k, double p[3])
{
    about_x(OFFSET[k], CRANK_R, p);
    p[0] = 0.2 * k + 0.15;
}

/* The four crank parts of throw k (MSL Cylinder crank1..crank4). */
static void throw_parts(int k, mech_part part[4])
{
    static const double wx[3] = {1, 0, 0};
    const double x0 = 0.2 * k;
    double u[3];
    about_x(OFFSET[k], CRANK_R, u);
    const double a1[3] = {x0 - 0.01, 0, 0}, b1[3] = {x0 + 0.11, 0, 0};
    const double a2[3] = {x0 + 0.1, 0, 0}, b2[3] = {x0 + 0.1, u[1], u[2]};
    const double a3[3] = {x0 + 0.09, u[1], u[2]}, b3[3] = {x0 + 0.21, u[1], u[2]};
    const double a4[3] = {x0 + 0.2, u[1], u[2]}, b4[3] = {x0 + 0.2, 0, 0};
    part[0] = mech_cylinder(a1, b1, 0.05);
    part[1] = mech_box(a2, b2, 0.02, 0.05, wx);
    part[2] = mech_cylinder(a3, b3, 0.03);
    part[3] = mech_box(a4, b4, 0.02, 0.05, wx);
}

/* The crankshaft: six throws and the load disc; bearing about world x (state priority). */
static int add_crankshaft(mbs_builder *b)
{
    static const double o[3] = {0, 0, 0}, x[3] = {1, 0, 0};
    mech_part parts[4 * NCYL + 1];
    for (int k = 0; k < NCYL; ++k) throw_parts(k, parts + 4 * k);
    const mech_part disc = {0.0, {0, 0, 0}, {1.0, 0, 0, 0, 0.5, 0, 0, 0, 0.5}};
    parts[4 * NCYL] = disc;
    const mbs_body_def def = mech_parts_body("crankshaft", parts, 4 * NCYL + 1);
    const int id = mbs_add_body(b, &def);
    mbs_joint_def bearing = mech_joint(MBS_JOINT_REVOLUTE, "bearing", MBS_WORLD, id, o, NULL, x);
    bearing.state_priority = 1;
    const int j = id < 0 ? id : mbs_add_joint(b, &bearing);
    return j < 0 ? j : id;
}

/* Cylinder k: piston on its prismatic joint, rod on B2 at the piston pin, cut B1 at the
   crank pin of body crank. */
static int add_cylinder(mbs_builder *b, int k, int crank)
{
    static const double x[3] = {1, 0, 0}, o[3] = {0, 0, 0};
    double c[3], top[3], down[3], pin_on_piston[3], rod_end[3], rod_shape[3], pin[3];
    about_x(INCLINE[k], 1.0, c);
    for (int i = 0; i < 3; ++i) {
        top[i] = TOP * c[i] + (i == 0 ? 0.2 * k + 0.15 : 0.0);
        down[i] = -c[i];
        pin_on_piston[i] = -0.1 * c[i];
        rod_end[i] = -ROD_L * c[i];
        rod_shape[i] = -(ROD_L + 0.02) * c[i];
    }
    pin_point(k, pin);
    const mech_part piston = mech_cylinder(o, pin_on_piston, 0.1);
    const mech_part rod = mech_box(o, rod_shape, 0.02, 0.06, x);
    const mbs_body_def pdef = mech_parts_body(PISTON[k], &piston, 1);
    const mbs_body_def rdef = mech_parts_body(ROD[k], &rod, 1);
    const int pid = mbs_add_body(b, &pdef), rid = pid < 0 ? pid : mbs_add_body(b, &rdef);
    if (rid < 0) return rid;
    mbs_joint_def j[3] = {
        mech_joint(MBS_JOINT_PRISMATIC, CYL[k], MBS_WORLD, pid, top, NULL, down),
        mech_joint(MBS_JOINT_REVOLUTE, B2[k], pid, rid, pin_on_piston, NULL, x),
        mech_joint(MBS_JOINT_REVOLUTE, B1[k], rid, crank, rod_end, pin, x),
    };
    j[2].cut = 1;
    int st = MBS_OK;
    for (int i = 0; i < 3 && st >= 0; ++i) st = mbs_add_joint(b, &j[i]);
    return st < 0 ? st : MBS_OK;
}

/* The engine. */
static int build(mbs_builder *b)
{
    static const double g[3] = {0.0, -9.80665, 0.0};
    int st = mbs_builder_set_gravity(b, g);
    const int crank = st < 0 ? st : add_crankshaft(b);
    st = crank;
    for (int k = 0; k < NCYL && st >= 0; ++k) st = add_cylinder(b, k, crank);
    return st < 0 ? st : MBS_OK;
}

/* Crank angle 0 at 10 rad/s; each cylinder at its closed-form position: with psi the crank
   angle from the cylinder axis, the piston pin is d = r cos psi + sqrt(l^2 - r^2 sin^2 psi)
   from the axis and the rod is turned by asin(-r sin psi / l). */
static int init(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    double *q = mbs_data_q(d);
    mbs_data_v(d)[mbs_model_joint_vadr(m, mbs_model_find_joint(m, "bearing"))] = 10.0;
    for (int k = 0; k < NCYL; ++k) {
        const double psi = (OFFSET[k] - INCLINE[k]) * DEG, sp = CRANK_R * sin(psi);
        const double dist = CRANK_R * cos(psi) + sqrt(ROD_L * ROD_L - sp * sp);
        q[mbs_model_joint_qadr(m, mbs_model_find_joint(m, CYL[k]))] = TOP - 0.1 - dist;
        q[mbs_model_joint_qadr(m, mbs_model_find_joint(m, B2[k]))] = asin(-sp / ROD_L);
    }
    return MBS_OK;
}

/* Every B1: the rod's end on its crank pin, the rod's x axis along the crankshaft's. */
static double closure(mbs_data *d)
{
    static const double x[3] = {1, 0, 0};
    const int crank = mech_body_id(d, "crankshaft");
    double worst = 0.0;
    for (int k = 0; k < NCYL; ++k) {
        double c[3], rod_end[3], pin[3];
        about_x(INCLINE[k], -ROD_L, c);
        for (int i = 0; i < 3; ++i) rod_end[i] = c[i];
        pin_point(k, pin);
        const int rod = mech_body_id(d, ROD[k]);
        worst = fmax(worst, fmax(mech_point_gap(d, rod, rod_end, crank, pin),
                                 mech_axis_gap(d, rod, x, crank, x)));
    }
    return worst;
}

static const mech_point TRACK[] = {{"pin1", "crankshaft", {0.15, 0.0866025403784, -0.05}},
                                   {NULL, NULL, {0}}};
static const char *const PLOT[] = {"v.bearing", "q.cylinder1", "q.cylinder2", NULL};

const mech mech_engine_v6 = {
    .name = "engine_v6",
    .title = "V6 engine coasting from 10 rad/s: six slider-cranks on one crankshaft, 1 dof",
    .source = "Otter, Elmqvist, Mattsson 2003, \"The New Modelica MultiBody Library\","
              " §7 Fig. 10; MSL Loops.EngineV6 (no gas force)",
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
