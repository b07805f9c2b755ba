/* Two coupled loops with one degree of freedom (seed 003: "a mechanism with two coupled loops
 * and one degree of freedom", the TwoLoop example of ModelicaAdditions.MultiBody). All
 * coordinates are those of the example's base frame (x = (1, -1, 1)/sqrt 3, y = (1, 2, 1)/
 * sqrt 6 in the world), in which gravity 9.81 m/s^2 along world -y reads
 * (9.81/sqrt 3, -2 * 9.81/sqrt 6, 0).
 *   Loop 1, a spatial slider-crank: the crank b1 turns about z at (-0.8, 0, 0) (revolute j1)
 *   and reaches (0.1, 0.5, -0.5); the rod b2, 1.1 m, joins the crank pin (a universal joint
 *   whose first axis is the crank's x: ConnectingRod2 with na = x) to the slider (a
 *   spherical joint 0.2 m behind the slider's origin); the slider moves along x on the
 *   prismatic j3 at (1, 0, 0).
 *   Loop 2, sharing the slider: from (1, 0, 0.5) the revolutes j7 (axis y) and j6 (axis
 *   -x), a link 0.3 m down, the prismatic j5 (axis z) and the body b6 (0.3 m along -y),
 *   whose end is held on the slider's origin by the spherical joint j4.
 * Bodies are steel cylinders (ModelicaAdditions CylinderBody: b1 radius 0.02, 6.91 kg; b2
 * radius 0.02, 10.64 kg; b6 radius 0.03, 6.53 kg); the slider and the link of j6-j5 are
 * massless (ShapeBody m = 0). The drive of the example: 10 N m through a gear of ratio 10,
 * i.e. 100 N m on j1, whose shaft adds 0.5 kg m^2. Everything starts at rest with j1 = 0.
 *
 * mbs cuts loop 1 at the universal joint (4 rows) and loop 2 at j4 (3 rows), so that the
 * massless slider carries the rod in the tree; 7 independent rows, nv 8, one degree of
 * freedom. The constant torque does work, so the energy is not checked here (test_sim
 * checks E(t) - E(0) = 100 N m x the angle of j1). */
#include <math.h>

#include "mechanisms.h"

#define ROD 1.1
#define DRIVE 100.0 /* N m on j1 */
#define SQ3 1.7320508075688772
#define SQ6 2.4494897427831781

/* The drive torque on j1. */
static int drive(mbs_data *d, void *user)
{
    (void)user;
    const mbs_model *m = mbs_data_model(d);
    return mbs_apply_generalized_force(d, mbs_model_joint_vadr(m, mbs_model_find_joint(m, "j1")),
                                       DRIVE);
}

/* b1 (with the shaft disc), slider, rod b2, the links of j7-j6 and j6-j5, b6. */
static int add_bodies(mbs_builder *b)
{
    static const double o[3] = {0, 0, 0}, pin[3] = {0.1, 0.5, -0.5}, a[3] = {-ROD, 0, 0},
                        b6end[3] = {0, -0.3, 0};
    const mech_part crank[2] = {mech_cylinder(o, pin, 0.04),
                                {0.0, {0, 0, 0}, {0.25, 0, 0, 0, 0.25, 0, 0, 0, 0.5}}};
    const mech_part rod = mech_cylinder(a, o, 0.04), b6 = mech_cylinder(o, b6end, 0.06);
    const mbs_body_def defs[6] = {
        mech_parts_body("b1", crank, 2),  mech_body("slider", 0.0, o, 0, 0, 0),
        mech_parts_body("b2", &rod, 1),   mech_body("link7", 0.0, o, 0, 0, 0),
        mech_body("b7", 0.0, o, 0, 0, 0), mech_parts_body("b6", &b6, 1),
    };
    int id = MBS_OK;
    for (int i = 0; i < 6 && id >= 0; ++i) id = mbs_add_body(b, &defs[i]);
    return id < 0 ? id : MBS_OK;
}

/* Tree: j1; j3 - slider - rod_end (spherical) - b2; j7 - j6 - j5 - b6. Cuts: the universal
   rod_pin (b1 to b2) and the spherical j4 (slider to b6). */
static int build(mbs_builder *b)
{
    static const double g[3] = {9.81 / SQ3, -2.0 * 9.81 / SQ6, 0.0}, o[3] = {0, 0, 0},
                        x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1}, mx[3] = {-1, 0, 0},
                        p0[3] = {-0.8, 0, 0}, hinge[3] = {1, 0, 0.5}, pin[3] = {0.1, 0.5, -0.5},
                        rod_a[3] = {-ROD, 0, 0}, behind[3] = {-0.2, 0, 0}, down[3] = {0, 0, -0.3},
                        b6end[3] = {0, -0.3, 0};
    int st = mbs_builder_set_gravity(b, g);
    if (st >= 0) st = add_bodies(b); /* ids: b1 1, slider 2, b2 3, link7 4, b7 5, b6 6 */
    mbs_joint_def j[8] = {
        mech_joint(MBS_JOINT_REVOLUTE, "j1", MBS_WORLD, 1, p0, NULL, z),
        mech_joint(MBS_JOINT_PRISMATIC, "j3", MBS_WORLD, 2, x, NULL, x),
        mech_joint(MBS_JOINT_SPHERICAL, "rod_end", 2, 3, behind, NULL, NULL),
        mech_joint(MBS_JOINT_REVOLUTE, "j7", MBS_WORLD, 4, hinge, NULL, y),
        mech_joint(MBS_JOINT_REVOLUTE, "j6", 4, 5, o, NULL, mx),
        mech_joint(MBS_JOINT_PRISMATIC, "j5", 5, 6, down, NULL, z),
        mech_joint(MBS_JOINT_UNIVERSAL, "rod_pin", 1, 3, pin, rod_a, x),
        mech_joint(MBS_JOINT_SPHERICAL, "j4", 2, 6, o, b6end, NULL),
    };
    j[0].state_priority = 1;
    j[6].axis2[0] = 0.0, j[6].axis2[1] = 1.0; /* the rod's y stays normal to the crank's x */
    j[6].cut = j[7].cut = 1;
    for (int i = 0; i < 8 && st >= 0; ++i) st = mbs_add_joint(b, &j[i]);
    return st < 0 ? st : mbs_add_force_callback(b, "drive", drive, NULL) < 0 ? MBS_ERR_ARG : MBS_OK;
}

/* Quaternion (w, x, y, z) of a rotation matrix with columns ex, ey, ez (Shepperd). */
static void frame_quat(const double ex[3], const double ey[3], const double ez[3], double q[4])
{
    const double R[3][3] = {{ex[0], ey[0], ez[0]}, {ex[1], ey[1], ez[1]}, {ex[2], ey[2], ez[2]}};
    const double tr = R[0][0] + R[1][1] + R[2][2];
    if (tr > 0.0) {
        const double s = 2.0 * sqrt(1.0 + tr);
        q[0] = 0.25 * s, q[1] = (R[2][1] - R[1][2]) / s, q[2] = (R[0][2] - R[2][0]) / s,
        q[3] = (R[1][0] - R[0][1]) / s;
        return;
    }
    int i = R[1][1] > R[0][0] ? 1 : 0;
    i = R[2][2] > R[i][i] ? 2 : i;
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const double s = 2.0 * sqrt(1.0 + R[i][i] - R[j][j] - R[k][k]);
    q[0] = (R[k][j] - R[j][k]) / s;
    q[1 + i] = 0.25 * s;
    q[1 + j] = (R[j][i] + R[i][j]) / s;
    q[1 + k] = (R[k][i] + R[i][k]) / s;
}

/* At rest with j1 = 0, in closed form. Loop 1: pin A = (-0.7, 0.5, -0.5), rod end
   B = (0.8 + s3, 0, 0) with |B - A| = 1.1, the rod's x along A -> B, its y along x_crank x
   (B - A). Loop 2: with w = s5 - 0.3 = -sqrt(s3^2 + 0.16), j6 turns (0, -0.3, w) about x by
   -q6 = atan(-0.3 / w) into (0, 0, Z) and j7 turns that about y onto (s3, 0, -0.5). */
static int init(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    double *q = mbs_data_q(d);
    const double s3 = -1.5 + sqrt(ROD * ROD - 0.5);
    const double ex[3] = {(0.8 + s3 + 0.7) / ROD, -0.5 / ROD, 0.5 / ROD};
    const double ny = sqrt(ex[1] * ex[1] + ex[2] * ex[2]);
    const double ey[3] = {0.0, -ex[2] / ny, ex[1] / ny};
    const double ez[3] = {ex[1] * ey[2] - ex[2] * ey[1], ex[2] * ey[0] - ex[0] * ey[2],
                          ex[0] * ey[1] - ex[1] * ey[0]};
    const double w = -sqrt(s3 * s3 + 0.16), alpha = atan(-0.3 / w);
    const double Z = -0.3 * sin(alpha) + w * cos(alpha);
    q[mbs_model_joint_qadr(m, mbs_model_find_joint(m, "j3"))] = s3;
    frame_quat(ex, ey, ez, q + mbs_model_joint_qadr(m, mbs_model_find_joint(m, "rod_end")));
    q[mbs_model_joint_qadr(m, mbs_model_find_joint(m, "j5"))] = w + 0.3;
    q[mbs_model_joint_qadr(m, mbs_model_find_joint(m, "j6"))] = -alpha;
    q[mbs_model_joint_qadr(m, mbs_model_find_joint(m, "j7"))] = atan2(s3 / Z, -0.5 / Z);
    return MBS_OK;
}

/* rod_pin: pin points together, the rod's y normal to the crank's x; j4: points together. */
static double closure(mbs_data *d)
{
    static const double o[3] = {0, 0, 0}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0},
                        pin[3] = {0.1, 0.5, -0.5}, rod_a[3] = {-ROD, 0, 0}, b6end[3] = {0, -0.3, 0};
    const int b1 = mech_body_id(d, "b1"), b2 = mech_body_id(d, "b2");
    const int slider = mech_body_id(d, "slider"), b6 = mech_body_id(d, "b6");
    const double loop1 =
        fmax(mech_point_gap(d, b1, pin, b2, rod_a), fabs(mech_axis_dot(d, b1, x, b2, y)));
    return fmax(loop1, mech_point_gap(d, slider, o, b6, b6end));
}

static const mech_point TRACK[] = {
    {"slider", "slider", {0, 0, 0}}, {"crank_pin", "b1", {0.1, 0.5, -0.5}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.j1", "v.j1", "q.j3", "q.j5", NULL};

const mech mech_two_loops = {
    .name = "two_loops",
    .title = "two coupled loops sharing a slider, 1 dof, driven by 100 N m",
    .source = "Otter 2000-2002, \"ModelicaAdditions.MultiBody\" library documentation (two coupled loops); ModelicaAdditions.MultiBody TwoLoop",
    .build = build,
    .init = init,
    .closure = closure,
    .t_end = 1.6,
    .stepper = MBS_STEP_RK4,
    .dt = 1e-3,
    .rtol = 1e-8,
    .atol = 1e-10,
    .energy = MECH_DRIVEN,
    .closure_tol = 1e-9,
    .track = TRACK,
    .plot = PLOT,
};
