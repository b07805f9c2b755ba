/* A planar four-bar in a tilted plane (Elmqvist, Mattsson, Chapuis 2009, §6.3, PlanarLoop2):
 * the mechanism lies in the plane -sin(a) y + cos(a) z = 0, all revolute axes along its
 * normal n = (0, -sin a, cos a). In-plane directions ex = (1, 0, 0), ey = (0, cos a, sin a):
 * rod1 (0.5 m) turns about the origin, rod3 (0.7 m) about ex - 0.2 ey, the coupler rod2
 * (1 m) joins their tips. rod2 is two halves held by a fixed cut joint in its middle: the
 * general cut joint with 6 conditions of the paper. Steel bars of 0.05 m diameter
 * (7.56 kg per 0.5 m); gravity 9.81 m/s^2 along world -y.
 *
 * A planar loop needs only 3 of the cut joint's 6 rows; which 3 mbs keeps (pivoted QR of the
 * constraint Jacobian) depends on the tilt: the program builds the loop at a = 30 and 60
 * degrees and prints the kept rows: positions along world x, y, z, rotations about x, y, z.
 * As in the paper, the least tilted coordinate plane wins: x, y and rz at 30 degrees;
 * x, z and ry at 60. Then it runs the 30 degree loop with RK4 at 1 ms for 5 s from rod1 at
 * 30 degrees, at rest, printing the angles, the energy and the loop closure from the poses.
 *
 * Build: cc planar_loop_tilted.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

#define PI 3.14159265358979323846

/* Bar of length len from the body origin along the unit u: steel, 0.05 m diameter. */
static int add_bar(mbs_builder *b, const double u[3], double len)
{
    const double r = 0.025, m = 7700.0 * PI * r * r * len;
    const double across = m * (len * len + 3 * r * r) / 12, along = 0.5 * m * r * r;
    mbs_body_def def = mbs_default_body_def();
    def.mass = m;
    for (int i = 0; i < 3; ++i) {
        def.com[i] = 0.5 * len * u[i];
        for (int j = 0; j < 3; ++j)
            def.inertia[3 * i + j] = (i == j ? across : 0.0) + (along - across) * u[i] * u[j];
    }
    return mbs_add_body(b, &def);
}

/* Joint from parent (frame at ppos) to child (frame at cpos, NULL: origin). */
static int add_joint(mbs_builder *b, mbs_joint_type type, int parent, int child,
                     const double ppos[3], const double *cpos, const double n[3])
{
    mbs_joint_def j = mbs_default_joint_def(type);
    j.parent = parent, j.child = child;
    memcpy(j.frame_parent.pos, ppos, sizeof j.frame_parent.pos);
    if (cpos) memcpy(j.frame_child.pos, cpos, sizeof j.frame_child.pos);
    memcpy(j.axis, n, sizeof j.axis);
    j.cut = type == MBS_JOINT_FIXED; /* the cut in the coupler's middle */
    j.state_priority = parent == MBS_WORLD && child == 1;
    return mbs_add_joint(b, &j);
}

/* The loop in the plane tilted by a (radians). Bodies rod1, rod2a, rod3, rod2b (ids 1..4). */
static mbs_model *build_loop(double a)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0}, ex[3] = {1, 0, 0}, mex[3] = {-1, 0, 0},
                 ey[3] = {0, cos(a), sin(a)}, n[3] = {0, -sin(a), cos(a)};
    const double tip1[3] = {0, 0.5 * ey[1], 0.5 * ey[2]}, tip3[3] = {0, 0.7 * ey[1], 0.7 * ey[2]};
    const double o3[3] = {1.0, -0.2 * ey[1], -0.2 * ey[2]}, half[3] = {0.5, 0, 0},
                 back[3] = {-0.5, 0, 0};
    int st = mbs_builder_set_gravity(b, g);
    if (st >= 0) st = add_bar(b, ey, 0.5);  /* rod1 */
    if (st >= 0) st = add_bar(b, ex, 0.5);  /* rod2a */
    if (st >= 0) st = add_bar(b, ey, 0.7);  /* rod3 */
    if (st >= 0) st = add_bar(b, mex, 0.5); /* rod2b */
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, 1, o, NULL, n);
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, 1, 2, tip1, NULL, n);
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, 3, o3, NULL, n);
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, 3, 4, tip3, NULL, n);
    if (st >= 0) st = add_joint(b, MBS_JOINT_FIXED, 2, 4, half, back, n);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Close the loop with rod1 at 30 degrees and print the kept rows. */
static int assemble(mbs_data *d, double tilt_deg)
{
    static const char *const rows[6] = {"x", "y", "z", "rx", "ry", "rz"};
    unsigned char active[6];
    int rank = 0;
    mbs_data_q(d)[0] = 30.0 * PI / 180.0; /* rod1; the rest is a guess (0) */
    int st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, active);
    printf("tilt %2.0f deg: rank %d of 6, kept rows:", tilt_deg, rank);
    for (int i = 0; i < 6 && st == MBS_OK; ++i)
        if (active[i]) printf(" %s", rows[i]);
    printf("\n");
    return st;
}

/* Closure from the poses: the two halves' ends apart, or their frames turned. */
static double closure(mbs_data *d)
{
    double pa[3], Ra[9], pb[3], Rb[9], gap = 0.0;
    mbs_body_pose(d, 2, pa, Ra);
    mbs_body_pose(d, 4, pb, Rb);
    for (int i = 0; i < 3; ++i)
        gap = fmax(gap, fabs(pa[i] + 0.5 * Ra[3 * i] - pb[i] + 0.5 * Rb[3 * i]));
    for (int i = 0; i < 9; ++i) gap = fmax(gap, fabs(Ra[i] - Rb[i]));
    return gap;
}

/* The kept rows at 60 and 30 degrees, then the 30 degree loop for 5 s. */
int main(void)
{
    mbs_model *m60 = build_loop(60.0 * PI / 180.0), *m = build_loop(30.0 * PI / 180.0);
    mbs_data *d60 = m60 ? mbs_data_create(m60) : NULL, *d = m ? mbs_data_create(m) : NULL;
    int st = d && d60 ? MBS_OK : MBS_ERR_NOMEM;
    if (st == MBS_OK) st = assemble(d60, 60.0);
    if (st == MBS_OK) st = assemble(d, 30.0);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = st == MBS_OK ? mbs_stepper_create(d, &def) : NULL;
    if (!s) st = st == MBS_OK ? MBS_ERR_NOMEM : st;
    printf("%5s %11s %11s %12s %9s\n", "t [s]", "rod1 [deg]", "rod3 [deg]", "energy [J]",
           "closure");
    for (int k = 0; k <= 5000 && st == MBS_OK; ++k) {
        if (k % 500 == 0) {
            double ke, pe;
            mbs_energy(d, &ke, &pe);
            const double *q = mbs_data_q(d);
            printf("%5.2f %11.4f %11.4f %12.7f %9.1e\n", mbs_data_time(d), q[0] * 180 / PI,
                   q[mbs_model_joint_qadr(m, 2)] * 180 / PI, ke + pe, closure(d));
        }
        if (k < 5000) st = mbs_stepper_step(s, 1e-3);
    }
    if (st != MBS_OK) fprintf(stderr, "failed: %s\n", mbs_status_name(st));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_data_destroy(d60);
    mbs_model_destroy(m);
    mbs_model_destroy(m60);
    return st == MBS_OK ? 0 : 1;
}
