/* Spatial four-bar with 6 revolute joints and 1 prismatic joint in one kinematic loop, one
 * degree of freedom (the Modelica MultiBody paper, Fig. 9; MSL Examples.Loops.Fourbar1).
 *
 *   world -j1(x)- b1 -j3(x)- . -j4(y)- . -j5(z)- b3 -rev1(z)- . -rev(y)- b2 -j2(prismatic x)- world
 *
 * b1 runs from j1 at the origin to (0, 0.5, 0.1), b3 from rev1 to j5 by (-1, 0.3, 0.1), b2
 * from the slider to rev by (0, 0.2, 0); the prismatic j2 is mounted at (1.2, 0, 0). The
 * bodies are steel cylinders of 0.05 m diameter, the dots massless links between joints.
 * Gravity 9.80665 m/s^2 along -y. At the start every angle is 0 and the slider is at
 * x = 1.0 (j2.s = -0.2), which closes the loop; j1 turns at 300 deg/s.
 *
 * j2 is marked as the cut joint: the tree goes around the loop the other way, so that the
 * massless links are between bodies. mbs_assemble makes the start velocities consistent
 * (j1 has state priority, so its 300 deg/s is kept). RK4 at 1 ms for 5 s; prints the crank
 * angle, the slider position, the cut force of j2 across its rail (lambda) and the loop
 * closure measured from the body poses. (MSL documents j1 ending 0.087 rad from its massless
 * rod variant Fourbar2, whose reference reads 40.2413 rad at 5 s.)
 *
 * Build: cc spatial_fourbar.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

/* A steel (7700 kg/m^3) cylinder of diameter dia from the body origin to r: mass, com at r/2,
   inertia m (L^2 + 3 R^2)/12 across the axis e and m R^2/2 along it. */
static mbs_body_def steel_cylinder(const char *name, const double r[3], double dia)
{
    const double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), rad = 0.5 * dia;
    const double m = 7700.0 * 3.14159265358979323846 * rad * rad * len;
    const double across = m * (len * len + 3.0 * rad * rad) / 12.0, along = 0.5 * m * rad * rad;
    mbs_body_def def = mbs_default_body_def();
    def.name = name;
    def.mass = m;
    for (int i = 0; i < 3; ++i) {
        def.com[i] = 0.5 * r[i];
        for (int j = 0; j < 3; ++j) /* across (I - e e^T) + along e e^T */
            def.inertia[3 * i + j] =
                (i == j ? across : 0.0) + (along - across) * r[i] * r[j] / (len * len);
    }
    return def;
}

/* Revolute or prismatic joint: frame at ppos on the parent, at cpos on the child. */
static mbs_joint_def joint(mbs_joint_type type, int parent, int child, const double ppos[3],
                           const double cpos[3], double ax, double ay, double az)
{
    mbs_joint_def j = mbs_default_joint_def(type);
    j.parent = parent;
    j.child = child;
    memcpy(j.frame_parent.pos, ppos, sizeof j.frame_parent.pos);
    memcpy(j.frame_child.pos, cpos, sizeof j.frame_child.pos);
    j.axis[0] = ax, j.axis[1] = ay, j.axis[2] = az;
    return j;
}

/* The four-bar: bodies b1, two links, b3, a link, b2 (ids 1..6); j2 is the cut joint. */
static mbs_model *build_fourbar(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0, -9.80665, 0}, o[3] = {0, 0, 0}, r1[3] = {0, 0.5, 0.1},
                 r2[3] = {0, 0.2, 0}, r3[3] = {-1, 0.3, 0.1}, mount[3] = {1.2, 0, 0};
    int st = mbs_builder_set_gravity(b, g);
    mbs_body_def link = mbs_default_body_def(); /* massless link between two joints */
    link.mass = 0.0;
    memset(link.inertia, 0, sizeof link.inertia);
    const mbs_body_def bodies[6] = {
        steel_cylinder("b1", r1, 0.05), link, link,
        steel_cylinder("b3", r3, 0.05), link, steel_cylinder("b2", r2, 0.05)};
    for (int i = 0; i < 6 && st >= 0; ++i) st = mbs_add_body(b, &bodies[i]); /* ids 1..6 */
    mbs_joint_def j[7] = {
        joint(MBS_JOINT_REVOLUTE, MBS_WORLD, 1, o, o, 1, 0, 0),      /* j1 */
        joint(MBS_JOINT_REVOLUTE, 1, 2, r1, o, 1, 0, 0),             /* j3 */
        joint(MBS_JOINT_REVOLUTE, 2, 3, o, o, 0, 1, 0),              /* j4 */
        joint(MBS_JOINT_REVOLUTE, 3, 4, o, r3, 0, 0, 1),             /* j5: b3's far end */
        joint(MBS_JOINT_REVOLUTE, 4, 5, o, o, 0, 0, 1),              /* rev1 */
        joint(MBS_JOINT_REVOLUTE, 5, 6, o, r2, 0, 1, 0),             /* rev: b2's top */
        joint(MBS_JOINT_PRISMATIC, MBS_WORLD, 6, mount, o, 1, 0, 0), /* j2 */
    };
    j[0].name = "j1";
    j[0].state_priority = 1; /* keep j1 as the independent coordinate */
    j[6].name = "j2";
    j[6].cut = 1; /* close the loop here */
    for (int i = 0; i < 7 && st >= 0; ++i) st = mbs_add_joint(b, &j[i]);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Loop closure from the poses: b2's foot off the rail y = z = 0, or b2 rotated. */
static double closure(mbs_data *d)
{
    double p[3], R[9];
    mbs_body_pose(d, 6, p, R);
    const double tilt = fmax(fabs(R[1]), fmax(fabs(R[2]), fabs(R[5])));
    return fmax(hypot(p[1], p[2]), tilt);
}

/* Assemble, then RK4 at 1 ms for 5 s with a line every 0.5 s. */
int main(void)
{
    mbs_model *m = build_fourbar();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    if (!d) return 1;
    mbs_data_v(d)[0] = 300.0 * 3.14159265358979323846 / 180.0; /* j1 (first in v) */
    int rank = 0, st = mbs_assemble(d);                        /* closes the loop and projects v */
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, NULL);
    printf("cut joint j2: %d rows, rank %d; %d degree(s) of freedom\n", mbs_model_ncon(m), rank,
           mbs_model_nv(m) - rank);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = st == MBS_OK ? mbs_stepper_create(d, &def) : NULL;
    if (!s) st = st == MBS_OK ? MBS_ERR_NOMEM : st;
    printf("%5s %11s %9s %13s %10s\n", "t [s]", "j1 [rad]", "x_slider", "cut force [N]", "closure");
    for (int k = 0; k <= 5000 && st == MBS_OK; ++k) {
        if (k % 500 == 0) {
            double p[3], R[9];
            mbs_body_pose(d, 6, p, R);
            st = mbs_forward_dynamics(d);           /* the multipliers of this state */
            const double *lam = mbs_data_lambda(d); /* rows 0, 1: force across the rail */
            printf("%5.2f %11.6f %9.5f %13.3f %10.1e\n", mbs_data_time(d), mbs_data_q(d)[0], p[0],
                   hypot(lam[0], lam[1]), closure(d));
        }
        if (k < 5000 && st == MBS_OK) st = mbs_stepper_step(s, 1e-3);
    }
    if (st != MBS_OK) fprintf(stderr, "failed: %s: %s\n", mbs_status_name(st), mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return st == MBS_OK ? 0 : 1;
}
