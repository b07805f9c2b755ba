/* V6 engine: one crankshaft, six slider-cranks, 6 planar loops and 1 degree of freedom (the
 * Modelica MultiBody paper, Fig. 10; MSL Examples.Loops.EngineV6 and its Cylinder model).
 *
 * The crankshaft is six throws (bodies on fixed joints, like MSL's crank parts): throw k
 * starts at x = 0.2 k on the world x axis, turned about x by its crank offset -30, 90, 210,
 * 210, 90, -30 degrees; its pin is at (0.15, 0.1, 0) in its own frame. Cylinder k is turned
 * about x by -30, +30, -30, ... degrees (the two banks of the V): its top is 0.42 m up its
 * axis, the piston slides down from there (prismatic joint), the rod hangs from the piston
 * pin (revolute B2) and a revolute cut joint B1 puts its lower end on the crank pin. Masses
 * are MSL's steel parts: a throw (crank1..crank4) 4.007 kg, piston 6.048 kg, rod 2.033 kg;
 * throw 0 also carries the load inertia of 1 kg m^2. No combustion: the engine coasts from
 * 10 rad/s under gravity (9.80665 m/s^2 along -y), so its energy stays constant.
 *
 * Each B1 has 5 rows (3 positions, 2 axis directions); a planar loop needs 2 of them, so mbs
 * keeps 12 of the 30 rows and the engine keeps 13 - 12 = 1 degree of freedom. The program
 * prints which rows of B1 of cylinder 1 were kept, then RK4 at 1 ms for 2 s: engine speed,
 * piston 1, the rod force of cylinder 1 and the energy.
 *
 * Build: cc engine_v6.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

#define PI 3.14159265358979323846
#define R_CRANK 0.1
#define L_ROD 0.2

static const double OFFSET[6] = {-30, 90, 210, 210, 90, -30}; /* crank throws [deg] */
static const double INCLINE[6] = {-30, 30, -30, 30, -30, 30}; /* cylinder axes [deg] */

/* Rotation about x by deg degrees, row-major. */
static void rot_x(double deg, double R[9])
{
    const double c = cos(deg * PI / 180.0), s = sin(deg * PI / 180.0);
    const double M[9] = {1, 0, 0, 0, c, -s, 0, s, c};
    memcpy(R, M, sizeof M);
}

/* Body with mass, com and inertia (about the com, body axes, row-major). */
static int add_body(mbs_builder *b, double m, double cx, double cy, const double I[9])
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = m;
    def.com[0] = cx, def.com[1] = cy;
    memcpy(def.inertia, I, sizeof def.inertia);
    return mbs_add_body(b, &def);
}

/* Joint whose parent frame is at (px, py, pz) turned about x by deg, child frame at the
   child's point c (NULL: origin), axis x or -y. */
static int add_joint(mbs_builder *b, mbs_joint_type type, int parent, int child, double px,
                     double py, double pz, double deg, const double *c, int cut)
{
    mbs_joint_def j = mbs_default_joint_def(type);
    j.parent = parent, j.child = child, j.cut = cut;
    j.frame_parent.pos[0] = px, j.frame_parent.pos[1] = py, j.frame_parent.pos[2] = pz;
    rot_x(deg, j.frame_parent.rot);
    if (c) memcpy(j.frame_child.pos, c, sizeof j.frame_child.pos);
    if (type == MBS_JOINT_PRISMATIC)
        j.axis[1] = -1.0, j.axis[2] = 0.0;
    else
        j.axis[0] = 1.0, j.axis[2] = 0.0;
    j.state_priority = parent == MBS_WORLD && type == MBS_JOINT_REVOLUTE;
    return mbs_add_joint(b, &j);
}

/* The crankshaft: six throws (the first with the load disc), bearing about world x. */
static int add_crankshaft(mbs_builder *b, int throw_id[6])
{
    /* one throw in its own frame: the four MSL crank parts summed (parallel axes) */
    double I[9] = {0.0075720, -0.0064430, 0, -0.0064430, 0.0174322, 0, 0, 0, 0.0237222};
    int st = MBS_OK;
    for (int k = 0; k < 6 && st >= 0; ++k) {
        double Ik[9];
        memcpy(Ik, I, sizeof I);
        if (k == 0) Ik[0] += 1.0, Ik[4] += 0.5, Ik[8] += 0.5; /* load: disc of 1 kg m^2 */
        st = throw_id[k] = add_body(b, 4.0074069, 0.1047271, 0.0355127, Ik);
        if (st >= 0 && k == 0)
            st = add_joint(b, MBS_JOINT_REVOLUTE, MBS_WORLD, throw_id[0], 0, 0, 0, OFFSET[0], NULL,
                           0);
        else if (st >= 0)
            st = add_joint(b, MBS_JOINT_FIXED, throw_id[k - 1], throw_id[k], 0.2, 0, 0,
                           OFFSET[k] - OFFSET[k - 1], NULL, 0);
    }
    return st;
}

/* Cylinder k in its own frame (y up the cylinder): piston (steel cylinder 0.1 x 0.1), rod
   (steel box 0.22 x 0.02 x 0.06, pins 0.2 apart), prismatic, B2 and the cut B1. */
static int add_cylinder(mbs_builder *b, int k, int throw_id)
{
    const double Ip[9] = {0.0088194, 0, 0, 0, 0.0075595, 0, 0, 0, 0.0088194};
    const double Ir[9] = {0.0088088, 0, 0, 0, 0.0006776, 0, 0, 0, 0.0082667};
    const double pin[3] = {0.15, R_CRANK, 0}, rod_end[3] = {0, -L_ROD, 0};
    const double c = cos(INCLINE[k] * PI / 180.0), s = sin(INCLINE[k] * PI / 180.0);
    const int piston = add_body(b, 6.0475659, 0, -0.05, Ip);
    const int rod = piston < 0 ? piston : add_body(b, 2.0328, 0, -0.11, Ir);
    int st = rod < 0 ? rod
                     : add_joint(b, MBS_JOINT_PRISMATIC, MBS_WORLD, piston, 0.2 * k + 0.15,
                                 0.42 * c, 0.42 * s, INCLINE[k], NULL, 0);
    if (st >= 0) st = add_joint(b, MBS_JOINT_REVOLUTE, piston, rod, 0, -0.1, 0, 0, NULL, 0);
    if (st >= 0) { /* B1, the cut joint: rod end on the crank pin */
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = rod, j.child = throw_id, j.cut = 1;
        memcpy(j.frame_parent.pos, rod_end, sizeof rod_end);
        memcpy(j.frame_child.pos, pin, sizeof pin);
        j.axis[0] = 1.0, j.axis[2] = 0.0;
        st = mbs_add_joint(b, &j);
    }
    return st;
}

/* The crankshaft and the six cylinders. */
static mbs_model *build_engine(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0, -9.80665, 0};
    int throw_id[6], st = mbs_builder_set_gravity(b, g);
    if (st >= 0) st = add_crankshaft(b, throw_id);
    for (int k = 0; k < 6 && st >= 0; ++k) st = add_cylinder(b, k, throw_id[k]);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Crank angle 0 at 10 rad/s, each piston and rod where the closed-form slider-crank puts
   them (crank angle psi from the cylinder axis): the piston pin is d = r cos psi +
   sqrt(l^2 - r^2 sin^2 psi) up the axis, the rod turned by asin(-r sin psi / l). */
static void initial_state(const mbs_model *m, mbs_data *d)
{
    double *q = mbs_data_q(d);
    mbs_data_v(d)[0] = 10.0; /* the bearing */
    for (int k = 0; k < 6; ++k) {
        const double psi = (OFFSET[k] - INCLINE[k]) * PI / 180.0, rs = R_CRANK * sin(psi);
        const double dist = R_CRANK * cos(psi) + sqrt(L_ROD * L_ROD - rs * rs);
        const int prismatic = 6 + 3 * k; /* joints: bearing, 5 fixed, then 3 per cylinder */
        q[mbs_model_joint_qadr(m, prismatic)] = 0.42 - 0.1 - dist;
        q[mbs_model_joint_qadr(m, prismatic + 1)] = asin(-rs / L_ROD);
    }
}

/* Assemble, report the kept rows, then RK4 at 1 ms for 2 s. */
int main(void)
{
    mbs_model *m = build_engine();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    if (!d) return 1;
    initial_state(m, d);
    unsigned char active[30];
    int rank = 0, st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, active);
    printf("6 cut joints, %d rows, rank %d, %d dropped, %d degree(s) of freedom\n",
           mbs_model_ncon(m), rank, mbs_model_ncon(m) - rank, mbs_model_nv(m) - rank);
    printf("B1 of cylinder 1 keeps rows:");
    for (int i = 0; i < 5; ++i) printf(" %s", active[i] ? "yes" : "no");
    printf("  (positions x, y, z of its frame, then the two axis rows)\n");
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = st == MBS_OK ? mbs_stepper_create(d, &def) : NULL;
    if (!s) st = st == MBS_OK ? MBS_ERR_NOMEM : st;
    printf("%5s %10s %11s %14s %12s\n", "t [s]", "speed", "piston 1", "B1 force [N]", "energy [J]");
    for (int k = 0; k <= 2000 && st == MBS_OK; ++k) {
        if (k % 200 == 0) {
            double ke, pe;
            st = mbs_forward_dynamics(d); /* lambda of this state */
            const double *lam = mbs_data_lambda(d);
            mbs_energy(d, &ke, &pe);
            printf("%5.2f %6.1f rpm %9.4f m %14.2f %12.6f\n", mbs_data_time(d),
                   mbs_data_v(d)[0] * 30.0 / PI, mbs_data_q(d)[mbs_model_joint_qadr(m, 6)],
                   sqrt(lam[0] * lam[0] + lam[1] * lam[1] + lam[2] * lam[2]), ke + pe);
        }
        if (k < 2000 && st == MBS_OK) st = mbs_stepper_step(s, 1e-3);
    }
    if (st != MBS_OK) fprintf(stderr, "failed: %s: %s\n", mbs_status_name(st), mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return st == MBS_OK ? 0 : 1;
}
