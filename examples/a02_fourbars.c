/* IFToMM multibody benchmark A02, the N-four-bar mechanism with N = 40 (González et al.
 * 2006): 41 vertical cranks of 1 m pinned to the ground at x = 0, 1, ..., 40, their tops
 * joined by 40 horizontal couplers of 1 m: 81 uniform slender links (1 kg, I_cm = 1/12
 * kg m^2), 40 loops, one degree of freedom. Gravity 9.81 m/s^2 along -y. At the start the
 * cranks are upright and B0 (the top of the first crank) moves at +1 m/s along x.
 *
 * Every loop is a parallelogram that goes flat twice per turn, where its mobility jumps from
 * 1 to 41; a simulator must stay on the parallelogram branch. The benchmark's solution (ADAMS)
 * is the path of B0 over 20 s, to be matched within 1e-3 m.
 *
 * In mbs the cranks and couplers form the tree (crank k about z at (k, 0), coupler k about z
 * at the top of crank k) and 40 revolute cut joints join coupler k's far end to the top of
 * crank k + 1. Each cut joint has 5 rows; a planar loop needs 2, so the rank is 80 of 200 and
 * nv 81 - 80 = 1. RK4 at 1 ms for 20 s; prints B0 and the energy every 2.5 s.
 *
 * Build: cc a02_fourbars.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

#define N 40

/* Revolute joint about z: frame at p on the parent and at c on the child. */
static int hinge(mbs_builder *b, int parent, int child, double px, double cx, int cut)
{
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE); /* axis z */
    j.parent = parent, j.child = child, j.cut = cut;
    j.frame_parent.pos[0] = px;
    j.frame_child.pos[0] = cx;
    j.state_priority = parent == MBS_WORLD && child == 1; /* crank 0: the independent angle */
    return mbs_add_joint(b, &j);
}

/* Bodies: cranks 0..N (ids 1..N+1), couplers 0..N-1 (ids N+2..2N+1). Joints: crank hinges
   0..N, coupler hinges N+1..2N, cut joints 2N+1..3N. */
static mbs_model *build_a02(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0, -9.81, 0};
    int st = mbs_builder_set_gravity(b, g);
    mbs_body_def link = mbs_default_body_def(); /* slender link along its x axis */
    link.mass = 1.0;
    link.com[0] = 0.5;
    memset(link.inertia, 0, sizeof link.inertia);
    link.inertia[4] = link.inertia[8] = 1.0 / 12.0;
    for (int k = 0; k < 2 * N + 1 && st >= 0; ++k) st = mbs_add_body(b, &link);
    for (int k = 0; k <= N && st >= 0; ++k) st = hinge(b, MBS_WORLD, 1 + k, k, 0.0, 0);
    for (int k = 0; k < N && st >= 0; ++k) st = hinge(b, 1 + k, N + 2 + k, 1.0, 0.0, 0);
    for (int k = 0; k < N && st >= 0; ++k) st = hinge(b, N + 2 + k, 2 + k, 1.0, 1.0, 1);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Cranks at 90 degrees turning at -1 rad/s, couplers at -90 degrees relative (+1 rad/s). */
static void initial_state(const mbs_model *m, mbs_data *d)
{
    const double half_pi = 2.0 * atan(1.0);
    for (int j = 0; j < 2 * N + 1; ++j) {
        mbs_data_q(d)[mbs_model_joint_qadr(m, j)] = j <= N ? half_pi : -half_pi;
        mbs_data_v(d)[mbs_model_joint_vadr(m, j)] = j <= N ? -1.0 : 1.0;
    }
}

/* Assemble, then the benchmark: RK4 at 1 ms for 20 s. */
int main(void)
{
    mbs_model *m = build_a02();
    mbs_data *d = m ? mbs_data_create(m) : NULL;
    if (!d) return 1;
    initial_state(m, d);
    int rank = 0, st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, NULL);
    printf("%d links, %d cut joints, %d rows, rank %d, %d degree(s) of freedom\n", 2 * N + 1, N,
           mbs_model_ncon(m), rank, mbs_model_nv(m) - rank);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = st == MBS_OK ? mbs_stepper_create(d, &def) : NULL;
    if (!s) st = st == MBS_OK ? MBS_ERR_NOMEM : st;
    printf("%6s %10s %10s %14s\n", "t [s]", "x_B0 [m]", "y_B0 [m]", "energy [J]");
    for (int k = 0; k <= 20000 && st == MBS_OK; ++k) {
        if (k % 2500 == 0) {
            double p[3], R[9], ke, pe;
            mbs_body_pose(d, 1, p, R); /* crank 0: B0 = p + R (1, 0, 0) */
            mbs_energy(d, &ke, &pe);
            printf("%6.1f %10.6f %10.6f %14.8f\n", mbs_data_time(d), p[0] + R[0], p[1] + R[3],
                   ke + pe);
        }
        if (k < 20000) st = mbs_stepper_step(s, 1e-3);
    }
    if (st != MBS_OK) fprintf(stderr, "failed: %s: %s\n", mbs_status_name(st), mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return st == MBS_OK ? 0 : 1;
}
