/* Two coupled kinematic loops with one degree of freedom (the TwoLoop example of the
 * ModelicaAdditions.MultiBody library: "a mechanism with two coupled loops and one degree of
 * freedom"). Coordinates are those of the example's base frame, in which gravity (9.81 m/s^2
 * along world -y) reads (9.81/sqrt 3, -2 * 9.81/sqrt 6, 0).
 *
 *   loop 1  crank b1 (revolute j1 about z at (-0.8, 0, 0), pin at (0.1, 0.5, -0.5) on it)
 *           - rod b2 (1.1 m; universal joint at the crank pin, first axis the crank's x)
 *           - slider (spherical joint 0.2 m behind its origin; prismatic j3 along x at
 *           (1, 0, 0))
 *   loop 2  from (1, 0, 0.5): revolute j7 (y), revolute j6 (-x), a link 0.3 m down,
 *           prismatic j5 (z), body b6 (0.3 m along -y) whose end is on the slider's origin
 *           (spherical joint j4)
 *
 * The slider is shared by both loops. Steel cylinders: b1 radius 0.02 (6.91 kg), b2 radius
 * 0.02 (10.64 kg), b6 radius 0.03 (6.53 kg); slider and link massless. The example's drive:
 * 10 N m through a gear of 10, i.e. 100 N m on j1, whose shaft adds 0.5 kg m^2.
 *
 * Cut joints: the universal joint (4 rows) and j4 (3 rows); tree coordinates: j1, j3, the
 * rod's spherical joint (3), j7, j6, j5: nv 8, rank 7, one degree of freedom. mbs_assemble
 * closes both loops from a rough guess. RK4 at 1 ms for 1.6 s; the printout checks the
 * energy balance E(t) - E(0) = 100 N m * j1(t).
 *
 * Build: cc two_loops.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

#define PI 3.14159265358979323846

/* Steel cylinder of radius rad from point a to point b of the body. */
static int add_cylinder(mbs_builder *b, const double a[3], const double c[3], double rad,
                        double shaft_inertia)
{
    const double e[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    const double m = 7700.0 * PI * rad * rad * len;
    const double across = m * (len * len + 3 * rad * rad) / 12, along = 0.5 * m * rad * rad;
    mbs_body_def def = mbs_default_body_def();
    def.mass = m;
    for (int i = 0; i < 3; ++i) {
        def.com[i] = 0.5 * (a[i] + c[i]);
        for (int j = 0; j < 3; ++j)
            def.inertia[3 * i + j] =
                (i == j ? across : 0.0) + (along - across) * e[i] * e[j] / (len * len);
    }
    /* a disc on the body's z axis through its origin (the drive shaft of j1) */
    def.inertia[0] += 0.5 * shaft_inertia, def.inertia[4] += 0.5 * shaft_inertia;
    def.inertia[8] += shaft_inertia;
    return mbs_add_body(b, &def);
}

/* Massless link between two joints. */
static int add_link(mbs_builder *b)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = 0.0;
    memset(def.inertia, 0, sizeof def.inertia);
    return mbs_add_body(b, &def);
}

/* Joint of a type from parent (frame at p) to child (frame at c), axis (ax, ay, az). */
static int add_joint(mbs_builder *b, mbs_joint_type type, int parent, int child, const double p[3],
                     const double c[3], double ax, double ay, double az, int cut)
{
    mbs_joint_def j = mbs_default_joint_def(type);
    j.parent = parent, j.child = child, j.cut = cut;
    memcpy(j.frame_parent.pos, p, sizeof j.frame_parent.pos);
    memcpy(j.frame_child.pos, c, sizeof j.frame_child.pos);
    j.axis[0] = ax, j.axis[1] = ay, j.axis[2] = az;
    j.axis2[0] = 0, j.axis2[1] = 1; /* universal: the rod's y stays normal to the crank's x */
    j.state_priority = parent == MBS_WORLD && child == 1;
    return mbs_add_joint(b, &j);
}

/* The drive: 100 N m on j1 (the first velocity coordinate). */
static int drive(mbs_data *d, void *user)
{
    (void)user;
    return mbs_apply_generalized_force(d, 0, 100.0);
}

/* Bodies b1 1, slider 2, b2 3, link 4, b7 5, b6 6; joints j1 0, j3 1, rod end 2, j7 3,
   j6 4, j5 5, then the cuts (universal 6, j4 7). */
static mbs_model *build_two_loops(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {9.81 / sqrt(3.0), -2.0 * 9.81 / sqrt(6.0), 0}, o[3] = {0, 0, 0},
                 p0[3] = {-0.8, 0, 0}, rail[3] = {1, 0, 0}, hinge[3] = {1, 0, 0.5},
                 pin[3] = {0.1, 0.5, -0.5}, rod_a[3] = {-1.1, 0, 0}, behind[3] = {-0.2, 0, 0},
                 down[3] = {0, 0, -0.3}, b6end[3] = {0, -0.3, 0};
    int st = mbs_builder_set_gravity(b, g);
    if (st >= 0) st = add_cylinder(b, o, pin, 0.02, 0.5);
    if (st >= 0) st = add_link(b);
    if (st >= 0) st = add_cylinder(b, rod_a, o, 0.02, 0.0);
    if (st >= 0) st = add_link(b);
    if (st >= 0) st = add_link(b);
    if (st >= 0) st = add_cylinder(b, o, b6end, 0.03, 0.0);
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, 1, p0, o, 0, 0, 1, 0);
    if (st >= 0) st = add_joint(b, MBS_JOINT_PRISMATIC, MBS_WORLD, 2, rail, o, 1, 0, 0, 0);
    if (st >= 0) st = add_joint(b, MBS_JOINT_SPHERICAL, 2, 3, behind, o, 0, 0, 1, 0);
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, 4, hinge, o, 0, 1, 0, 0);
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, 4, 5, o, o, -1, 0, 0, 0);
    if (st >= 0) st = add_joint(b, MBS_JOINT_PRISMATIC, 5, 6, down, o, 0, 0, 1, 0);
    if (st >= 0) st = add_joint(b, MBS_JOINT_UNIVERSAL, 1, 3, pin, rod_a, 1, 0, 0, 1);
    if (st >= 0) st = add_joint(b, MBS_JOINT_SPHERICAL, 2, 6, o, b6end, 0, 0, 1, 1);
    if (st >= 0) st = mbs_add_force_callback(b, "drive", drive, NULL);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* A rough guess of the closed pose with j1 = 0 (mbs_assemble does the rest): the slider
   where the rod reaches it, the rod turned from x towards the crank pin, loop 2's joints
   near their values. */
static void guess(const mbs_model *m, mbs_data *d)
{
    double *q = mbs_data_q(d);
    const double s3 = -0.66, dx = (1.5 + s3) / 1.1, half = 0.5 * acos(dx);
    q[mbs_model_joint_qadr(m, 1)] = s3;
    double *quat = q + mbs_model_joint_qadr(m, 2); /* turn by acos(dx) about (0, -1, -1) */
    quat[0] = cos(half), quat[1] = 0.0, quat[2] = quat[3] = -sin(half) / sqrt(2.0);
    q[mbs_model_joint_qadr(m, 3)] = 0.9;
    q[mbs_model_joint_qadr(m, 4)] = -0.4;
    q[mbs_model_joint_qadr(m, 5)] = -0.5;
}

/* Assemble from the guess, then RK4 at 1 ms for 1.6 s with the work balance. */
int main(void)
{
    mbs_model *m = build_two_loops();
    mbs_data *d = m ? mbs_data_create(m) : NULL;
    if (!d) return 1;
    guess(m, d);
    int rank = 0, st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, NULL);
    printf("2 cut joints, %d rows, rank %d, %d degree(s) of freedom; slider at %.6f\n",
           mbs_model_ncon(m), rank, mbs_model_nv(m) - rank,
           mbs_data_q(d)[mbs_model_joint_qadr(m, 1)]);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = st == MBS_OK ? mbs_stepper_create(d, &def) : NULL;
    if (!s) st = st == MBS_OK ? MBS_ERR_NOMEM : st;
    double e0 = 0.0;
    printf("%5s %10s %12s %10s %10s %18s\n", "t [s]", "j1 [rad]", "w1 [rad/s]", "slider", "j5",
           "E - E0 - 100 j1");
    for (int k = 0; k <= 1600 && st == MBS_OK; ++k) {
        double ke, pe;
        mbs_energy(d, &ke, &pe);
        if (k == 0) e0 = ke + pe;
        if (k % 200 == 0) {
            const double *q = mbs_data_q(d);
            printf("%5.2f %10.5f %12.5f %10.5f %10.5f %15.2e J\n", mbs_data_time(d), q[0],
                   mbs_data_v(d)[0], q[mbs_model_joint_qadr(m, 1)], q[mbs_model_joint_qadr(m, 5)],
                   ke + pe - e0 - 100.0 * q[0]);
        }
        if (k < 1600) st = mbs_stepper_step(s, 1e-3);
    }
    if (st != MBS_OK) fprintf(stderr, "failed: %s: %s\n", mbs_status_name(st), mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return st == MBS_OK ? 0 : 1;
}
