/* A door on two hinges (Elmqvist, Mattsson, Chapuis 2009, §6, model Door1): a 20 kg slab
 * 0.8 m wide (x), 2 m high (y), 0.04 m thick, on two revolute joints about the world y axis
 * at y = 0.2 (hinge1) and y = 1.8 (hinge2). A torsion spring in hinge1 (20 N m/rad) pulls it
 * shut; it starts open at 90 degrees, at rest. Gravity 9.81 m/s^2 along -y.
 *
 * The second hinge closes a kinematic loop: mbs makes it a cut joint with 5 constraint rows
 * (its point: 3, its axis direction: 2). On one common axis hinge1 already enforces all of
 * them, so the constraint Jacobian is zero: rank 0, all 5 rows are dropped as redundant,
 * their multipliers stay 0 and hinge1 carries the door (a rigid model cannot tell how two
 * coaxial hinges share the load). The door keeps its one degree of freedom and swings with
 * the period 2 pi sqrt(I / k), I = m (w^2 + t^2) / 12 + m (w / 2)^2.
 *
 * Build: cc door_hinges.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>

#include <mbs/mbs.h>

#define W 0.8
#define H 2.0
#define T 0.04
#define M 20.0
#define K 20.0

/* Revolute joint about y at height y on the world and on the door. */
static mbs_joint_def hinge(const char *name, int door, double y, int cut)
{
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = name;
    j.parent = MBS_WORLD;
    j.child = door;
    j.frame_parent.pos[1] = j.frame_child.pos[1] = y;
    j.axis[1] = 1.0, j.axis[2] = 0.0;
    j.cut = cut; /* optional: compile would make the second hinge the cut joint anyway */
    return j;
}

/* The door on hinge1 (with its spring) and hinge2 (the cut joint). */
static mbs_model *build_door(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0, -9.81, 0};
    int st = mbs_builder_set_gravity(b, g);
    mbs_body_def slab = mbs_default_body_def(); /* frame on the hinge axis at the floor */
    slab.name = "door";
    slab.mass = M;
    slab.com[0] = 0.5 * W, slab.com[1] = 0.5 * H;
    slab.inertia[0] = M / 12.0 * (H * H + T * T);
    slab.inertia[4] = M / 12.0 * (W * W + T * T);
    slab.inertia[8] = M / 12.0 * (W * W + H * H);
    const int door = st < 0 ? st : mbs_add_body(b, &slab);
    const mbs_joint_def h1 = hinge("hinge1", door, 0.2, 0), h2 = hinge("hinge2", door, 1.8, 1);
    const int j1 = door < 0 ? door : mbs_add_joint(b, &h1);
    st = j1 < 0 ? j1 : mbs_add_joint(b, &h2);
    if (st >= 0) st = mbs_add_joint_spring_damper(b, j1, 0, K, 0.0, 0.0);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Open the door, assemble, report the rows, swing for 3 s (RK4 at 1 ms). */
int main(void)
{
    mbs_model *m = build_door();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    if (!d) return 1;
    mbs_data_q(d)[0] = 0.5 * 3.14159265358979323846; /* open at 90 degrees */
    int rank = -1, st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, NULL);
    printf("hinge2 is a cut joint: %s; %d rows, rank %d, %d redundant, %d degree(s) of freedom\n",
           mbs_model_joint_is_cut(m, 1) == 1 ? "yes" : "no", mbs_model_ncon(m), rank,
           mbs_model_ncon(m) - rank, mbs_model_nv(m) - rank);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = st == MBS_OK ? mbs_stepper_create(d, &def) : NULL;
    if (!s) st = st == MBS_OK ? MBS_ERR_NOMEM : st;
    printf("%5s %12s %24s\n", "t [s]", "angle [deg]", "largest |lambda| hinge2");
    for (int k = 0; k <= 3000 && st == MBS_OK; ++k) {
        if (k % 250 == 0) {
            st = mbs_forward_dynamics(d);
            double lmax = 0.0;
            for (int i = 0; i < mbs_model_ncon(m); ++i)
                lmax = fmax(lmax, fabs(mbs_data_lambda(d)[i]));
            printf("%5.2f %12.3f %24g\n", mbs_data_time(d),
                   mbs_data_q(d)[0] * 180.0 / 3.14159265358979323846, lmax);
        }
        if (k < 3000 && st == MBS_OK) st = mbs_stepper_step(s, 1e-3);
    }
    const double inertia = M / 12.0 * (W * W + T * T) + M * 0.25 * W * W;
    printf("period 2 pi sqrt(I / k) = %.4f s: the door is closed again after a quarter of it "
           "(%.4f s)\n",
           2.0 * 3.14159265358979323846 * sqrt(inertia / K),
           0.5 * 3.14159265358979323846 * sqrt(inertia / K));
    if (st != MBS_OK) fprintf(stderr, "failed: %s: %s\n", mbs_status_name(st), mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return st == MBS_OK ? 0 : 1;
}
