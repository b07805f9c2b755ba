/* A closed loop built in code: a planar crank-rocker four-bar (crank 0.1 m, coupler 0.4 m,
 * rocker 0.3 m, ground 0.35 m; uniform steel-like bars) in the x-y plane under gravity along
 * -y. The tree is world - crank - coupler and world - rocker; the revolute joint B between
 * coupler and rocker closes the loop as a cut joint (5 constraint rows, of which a planar
 * loop needs 2: mbs finds that from the constraint Jacobian and drops the other 3).
 *
 * The start is given as Modelica users write it (Otter, Elmqvist, Mattsson 2003, "The New
 * Modelica MultiBody Library", §2 Fig. 3: phi_start with fixed = true): the rocker starts at
 * 1.9 rad and is held there by the assembly (mbs_set_joint_hold), the crank and the coupler
 * get guesses, and mbs_assemble moves the crank and the coupler to close the loop. Then RK4
 * at 1 kHz for 3 s, printing the angles, the energy and the loop closure from the body poses.
 *
 * Build: cc fourbar_loop.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

#define CRANK 0.1
#define COUPLER 0.4
#define ROCKER 0.3
#define GROUND 0.35

/* A uniform bar of length len along body x, 2 kg per metre. */
static int add_bar(mbs_builder *b, const char *name, double len)
{
    mbs_body_def def = mbs_default_body_def();
    def.name = name;
    def.mass = 2.0 * len;
    def.com[0] = 0.5 * len;
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = 1e-6;
    def.inertia[4] = def.inertia[8] = def.mass * len * len / 12.0;
    return mbs_add_body(b, &def);
}

/* Revolute joint about z from parent (at x_parent along its x) to child (at x_child). */
static int add_hinge(mbs_builder *b, const char *name, int parent, int child, double x_parent,
                     double x_child, int cut)
{
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE); /* axis z */
    j.name = name;
    j.parent = parent, j.child = child, j.cut = cut;
    j.frame_parent.pos[0] = x_parent;
    j.frame_child.pos[0] = x_child;
    return mbs_add_joint(b, &j);
}

/* Bodies, joints, start values and the held rocker; the compiled model or NULL. */
static mbs_model *build_fourbar(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0.0, -9.81, 0.0};
    const double crank_q = 1.0, coupler_q = -0.8, rocker_q = 1.9; /* guesses and the held value */
    const unsigned char held = 1;
    int st = mbs_builder_set_gravity(b, g);
    const int crank = add_bar(b, "crank", CRANK), coupler = add_bar(b, "coupler", COUPLER);
    const int rocker = add_bar(b, "rocker", ROCKER);
    const int j_crank = add_hinge(b, "crank", MBS_WORLD, crank, 0.0, 0.0, 0);
    const int j_coupler = add_hinge(b, "coupler", crank, coupler, CRANK, 0.0, 0);
    const int j_rocker = add_hinge(b, "rocker", MBS_WORLD, rocker, GROUND, 0.0, 0);
    const int j_cut = add_hinge(b, "B", coupler, rocker, COUPLER, ROCKER, 1);
    if (st >= 0) st = crank < 0 ? crank : coupler < 0 ? coupler : rocker;
    if (st >= 0) st = j_crank < 0 ? j_crank : j_coupler < 0 ? j_coupler : j_rocker < 0 ? j_rocker : j_cut;
    if (st >= 0) st = mbs_set_joint_start(b, j_crank, &crank_q, 1, NULL, 0);
    if (st >= 0) st = mbs_set_joint_start(b, j_coupler, &coupler_q, 1, NULL, 0);
    if (st >= 0) st = mbs_set_joint_start(b, j_rocker, &rocker_q, 1, NULL, 0);
    if (st >= 0) st = mbs_set_joint_hold(b, j_rocker, &held, 1);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Closure from the poses: distance between the point B on the coupler and on the rocker. */
static double closure(mbs_data *d, const mbs_model *m)
{
    double pc[3], Rc[9], pr[3], Rr[9], gap = 0.0;
    mbs_body_pose(d, mbs_model_find_body(m, "coupler"), pc, Rc);
    mbs_body_pose(d, mbs_model_find_body(m, "rocker"), pr, Rr);
    for (int i = 0; i < 3; ++i) {
        const double e = pc[i] + COUPLER * Rc[3 * i] - (pr[i] + ROCKER * Rr[3 * i]);
        gap += e * e;
    }
    return sqrt(gap);
}

/* Angle of joint name. */
static double angle(mbs_data *d, const mbs_model *m, const char *name)
{
    return mbs_data_q(d)[mbs_model_joint_qadr(m, mbs_model_find_joint(m, name))];
}

/* Assemble at the start values (rocker held), print the selection, run 3 s. */
int main(void)
{
    mbs_model *m = build_fourbar();
    mbs_data *d = m ? mbs_data_create(m) : NULL;
    if (!d) return 1;
    printf("start:     crank %.4f  coupler %.4f  rocker %.4f rad, closure %.2e m\n",
           angle(d, m, "crank"), angle(d, m, "coupler"), angle(d, m, "rocker"), closure(d, m));
    int rank = 0, st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, NULL);
    if (st != MBS_OK) {
        fprintf(stderr, "assemble: %s: %s\n", mbs_status_name(st), mbs_data_error(d));
        return 1;
    }
    printf("assembled: crank %.4f  coupler %.4f  rocker %.4f rad, closure %.2e m\n",
           angle(d, m, "crank"), angle(d, m, "coupler"), angle(d, m, "rocker"), closure(d, m));
    printf("cut joint B: %d rows, %d kept, %d degree(s) of freedom\n", mbs_model_ncon(m), rank,
           mbs_model_nv(m) - rank);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    printf("%5s %10s %10s %12s %9s\n", "t [s]", "crank", "rocker", "energy [J]", "closure");
    for (int k = 0; k <= 3000 && s && st == MBS_OK; ++k) {
        if (k % 300 == 0) {
            double ke, pe;
            mbs_energy(d, &ke, &pe);
            printf("%5.2f %10.4f %10.4f %12.8f %9.1e\n", mbs_data_time(d), angle(d, m, "crank"),
                   angle(d, m, "rocker"), ke + pe, closure(d, m));
        }
        if (k < 3000) st = mbs_stepper_step(s, 1e-3);
    }
    if (st != MBS_OK) fprintf(stderr, "step: %s: %s\n", mbs_status_name(st), mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return st == MBS_OK ? 0 : 1;
}
