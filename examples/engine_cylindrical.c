/* One-cylinder engine with the piston in a cylindrical joint (Elmqvist, Mattsson, Chapuis
 * 2009, §6.4, model "Engine"; geometry and parts of MSL Examples.Loops.Engine1a).
 *
 * The crankshaft turns about world x in its bearing (3.60 kg of steel crank parts plus the
 * engine's output inertia, 1 kg m^2); the rod (a 0.2 x 0.02 x 0.06 steel box, 1.85 kg)
 * joins the crank pin at (0.15, 0.1, 0) (revolute B1) to the piston pin (revolute B2); the
 * piston (steel cylinder 0.1 x 0.1, 6.05 kg) runs down the line x = 0.15, z = 0 from
 * y = 0.45. Gravity 9.80665 m/s^2 along -y; the crankshaft starts at
 * angle 0 with 10 rad/s, as in MSL.
 *
 * The paper's point: MSL's Engine1a needs a prismatic joint for the piston and a special
 * "planar" cut joint; with automatic selection the natural model works: an ordinary
 * revolute cut joint (B2) and a cylindrical joint, which lets the piston turn about its
 * axis, a rotation the loop then stops. The program builds both variants and prints how
 * many of B2's 5 rows are independent (3 with the cylindrical joint, 2 with a prismatic
 * one, as the paper reports), then runs the cylindrical one with RK4 at 1 ms for 5 s.
 *
 * Build: cc engine_cylindrical.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

/* Joint with frames at ppos (parent) and cpos (child), axis a. */
static int add_joint(mbs_builder *b, mbs_joint_type type, int parent, int child,
                     const double ppos[3], const double cpos[3], const double a[3], int cut)
{
    mbs_joint_def j = mbs_default_joint_def(type);
    j.parent = parent, j.child = child, j.cut = cut;
    memcpy(j.frame_parent.pos, ppos, sizeof j.frame_parent.pos);
    memcpy(j.frame_child.pos, cpos, sizeof j.frame_child.pos);
    memcpy(j.axis, a, sizeof j.axis);
    j.state_priority = parent == MBS_WORLD && type == MBS_JOINT_REVOLUTE;
    return mbs_add_joint(b, &j);
}

/* Body with mass, com and a diagonal inertia about it. */
static int add_body(mbs_builder *b, double m, const double com[3], double ixx, double iyy,
                    double izz)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = m;
    memcpy(def.com, com, sizeof def.com);
    def.inertia[0] = ixx, def.inertia[4] = iyy, def.inertia[8] = izz;
    return mbs_add_body(b, &def);
}

/* The engine with the piston on a `slide` joint (cylindrical or prismatic). Joints: bearing
   0, B1 1, slide 2, B2 3 (the cut). */
static mbs_model *build_engine(mbs_joint_type slide)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0, -9.80665, 0}, o[3] = {0, 0, 0}, x[3] = {1, 0, 0}, down[3] = {0, -1, 0},
                 pin[3] = {0.15, 0.1, 0}, top[3] = {0.15, 0.45, 0}, rod_end[3] = {0, 0.2, 0},
                 piston_pin[3] = {0, -0.1, 0};
    /* crank parts crank1..crank4 of Engine1a summed (mass, com, inertia about the com) plus
       the output inertia, a disc of 1 kg m^2 about x (0.5 about y and z) */
    const double crank_com[3] = {0.1079583, 0.0365467, 0.0};
    mbs_body_def crank = mbs_default_body_def();
    crank.mass = 3.5961724;
    memcpy(crank.com, crank_com, sizeof crank_com);
    const double Ic[9] = {1.0066274, -0.0055255, 0, -0.0055255, 0.5149652, 0, 0, 0, 0.5204172};
    memcpy(crank.inertia, Ic, sizeof Ic);
    const double rod_com[3] = {0, 0.1, 0}, piston_com[3] = {0, -0.05, 0};
    int st = mbs_builder_set_gravity(b, g);
    if (st >= 0) st = mbs_add_body(b, &crank);                                     /* 1 */
    if (st >= 0) st = add_body(b, 1.848, rod_com, 0.0067144, 0.000616, 0.0062216); /* 2: rod */
    if (st >= 0) st = add_body(b, 6.0475659, piston_com, 0.0088194, 0.0075595, 0.0088194);
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, 1, o, o, x, 0); /* bearing */
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, 1, 2, pin, o, x, 0);       /* B1 */
    if (st >= 0) st = add_joint(b, slide, MBS_WORLD, 3, top, o, down, 0);         /* slide */
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, 2, 3, rod_end, piston_pin, x, 1); /* B2 */
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Crank at 0 with 10 rad/s, piston 0.05 down (closed), assembled; prints B2's rows. */
static int start(const char *what, mbs_model *m, mbs_data *d)
{
    static const char *const rows[5] = {"x", "y", "z", "tilt 1", "tilt 2"};
    unsigned char active[5];
    int rank = 0;
    mbs_data_q(d)[mbs_model_joint_qadr(m, 2)] = 0.05;
    mbs_data_v(d)[mbs_model_joint_vadr(m, 0)] = 10.0;
    int st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, active);
    printf("%-11s piston: B2 rank %d of 5, kept:", what, rank);
    for (int i = 0; i < 5 && st == MBS_OK; ++i)
        if (active[i]) printf(" %s", rows[i]);
    printf("; %d degree(s) of freedom\n", mbs_model_nv(m) - rank);
    return st;
}

/* Both variants assembled, then the cylindrical one for 5 s. */
int main(void)
{
    mbs_model *mp = build_engine(MBS_JOINT_PRISMATIC), *m = build_engine(MBS_JOINT_CYLINDRICAL);
    mbs_data *dp = mp ? mbs_data_create(mp) : NULL, *d = m ? mbs_data_create(m) : NULL;
    int st = d && dp ? MBS_OK : MBS_ERR_NOMEM;
    if (st == MBS_OK) st = start("prismatic", mp, dp);
    if (st == MBS_OK) st = start("cylindrical", m, d);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = st == MBS_OK ? mbs_stepper_create(d, &def) : NULL;
    if (!s) st = st == MBS_OK ? MBS_ERR_NOMEM : st;
    const int slide = mbs_model_joint_qadr(m, 2); /* [s, phi] of the cylindrical joint */
    printf("%5s %11s %12s %11s %14s %12s\n", "t [s]", "crank [rad]", "speed", "piston s",
           "piston spin", "energy [J]");
    for (int k = 0; k <= 5000 && st == MBS_OK; ++k) {
        if (k % 500 == 0) {
            double ke, pe;
            mbs_energy(d, &ke, &pe);
            const double *q = mbs_data_q(d);
            printf("%5.2f %11.5f %6.3f rad/s %9.5f m %10.1e rad %12.7f\n", mbs_data_time(d), q[0],
                   mbs_data_v(d)[0], q[slide], q[slide + 1], ke + pe);
        }
        if (k < 5000) st = mbs_stepper_step(s, 1e-3);
    }
    if (st != MBS_OK) fprintf(stderr, "failed: %s\n", mbs_status_name(st));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_data_destroy(dp);
    mbs_model_destroy(m);
    mbs_model_destroy(mp);
    return st == MBS_OK ? 0 : 1;
}
