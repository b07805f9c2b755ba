/* The six-axis robot r3 (Otter 2000-2002, "ModelicaAdditions.MultiBody" library documentation;
 * masses, inertias and geometry of the Modelica Standard Library's Systems.RobotR3 mechanical
 * structure) with a 15 kg load on a fixed joint at the flange. Joint axes y, x, x, y, x, y;
 * gravity 9.81 m/s^2 along -y. Each axis has a servo modelled as a joint spring-damper pulling
 * towards a working pose. The arm starts upright (all angles 0, the MSL reference
 * configuration) and at rest; RK4 at 1 ms for 3 s. Prints the joint angles and the position of
 * the load every 0.25 s. (b1's inertia: 1.16 kg m^2 about its joint axis as in MSL; its other
 * moments are 0.58 so that the tensor obeys the triangle inequality, which changes nothing: b1
 * only turns about that axis.)
 *
 * Build: cc robot_r3.c $(pkg-config --cflags --libs mbs) */
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

#define NAXIS 6

static const struct {
    const char *name;
    double mass, com[3], inertia[9]; /* inertia about the com, body axes */
    double axis[3], joint_pos[3];    /* joint axis; joint position on the previous link */
    double k, d, q_ref;              /* servo: stiffness, damping, target angle */
} LINKS[NAXIS] = {
    {"b1", 1.0, {0, 0, 0}, {0.58, 0, 0, 0, 1.16, 0, 0, 0, 0.58},
     {0, 1, 0}, {0, 0.351, 0}, 3000, 500, 0.6},
    {"b2", 56.5, {0.172, 0.205, 0}, {2.58, -0.46, 0, -0.46, 0.64, 0, 0, 0, 2.73},
     {1, 0, 0}, {0, 0.324, 0.3}, 8000, 1200, 0.5},
    {"b3", 26.4, {0.064, -0.034, 0}, {0.279, -0.07, 0, -0.07, 0.245, 0, 0, 0, 0.413},
     {1, 0, 0}, {0, 0.65, 0}, 3000, 300, -1.0},
    {"b4", 28.7, {0, 0, 0}, {1.67, 0, 0, 0, 0.081, 0, 0, 0, 1.67},
     {0, 1, 0}, {0, 0.414, -0.155}, 200, 20, 0.4},
    {"b5", 5.2, {0, 0, 0}, {1.25, 0, 0, 0, 0.81, 0, 0, 0, 1.53},
     {1, 0, 0}, {0, 0.186, 0}, 400, 30, 0.8},
    {"b6", 0.5, {0.05, 0.05, 0.05}, {1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3},
     {0, 1, 0}, {0, 0.125, 0}, 5, 0.3, 0.5},
};

/* The chain of links with their servos, then the load. */
static mbs_model *build_r3(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0.0, -9.81, 0.0};
    int status = mbs_builder_set_gravity(b, g), parent = MBS_WORLD;
    for (int i = 0; i < NAXIS && status >= 0; ++i) {
        mbs_body_def link = mbs_default_body_def();
        link.name = LINKS[i].name;
        link.mass = LINKS[i].mass;
        memcpy(link.com, LINKS[i].com, sizeof link.com);
        memcpy(link.inertia, LINKS[i].inertia, sizeof link.inertia);
        const int body = mbs_add_body(b, &link);
        mbs_joint_def rev = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        rev.parent = parent;
        rev.child = body;
        memcpy(rev.axis, LINKS[i].axis, sizeof rev.axis);
        memcpy(rev.frame_parent.pos, LINKS[i].joint_pos, sizeof rev.frame_parent.pos);
        const int joint = body < 0 ? body : mbs_add_joint(b, &rev);
        status = joint < 0 ? joint
                           : mbs_add_joint_spring_damper(b, joint, 0, LINKS[i].k, LINKS[i].d,
                                                         LINKS[i].q_ref);
        parent = body;
    }
    mbs_body_def load = mbs_default_body_def();
    load.name = "load";
    load.mass = 15.0;
    load.com[1] = 0.25;
    const int id = status < 0 ? status : mbs_add_body(b, &load);
    mbs_joint_def flange = mbs_default_joint_def(MBS_JOINT_FIXED);
    flange.parent = parent;
    flange.child = id;
    status = id < 0 ? id : mbs_add_joint(b, &flange);
    mbs_model *m = NULL;
    if (status >= 0) status = mbs_compile(b, &m);
    if (status < 0)
        fprintf(stderr, "build: %s: %s\n", mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

int main(void)
{
    mbs_model *m = build_r3();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = d ? mbs_stepper_create(d, &def) : NULL;
    int status = s ? MBS_OK : MBS_ERR_NOMEM;
    const int load = mbs_model_find_body(m, "load");

    printf("%5s %7s %7s %7s %7s %7s %7s   %s\n", "t [s]", "q1", "q2", "q3", "q4", "q5", "q6",
           "load centre [m]");
    for (int k = 0; k <= 3000 && status == MBS_OK; ++k) {
        if (k % 250 == 0) {
            const double *q = mbs_data_q(d);
            double pos[3], R[9];
            mbs_body_pose(d, load, pos, R); /* load centre = pos + R (0, 0.25, 0) */
            printf("%5.2f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f   (%.3f, %.3f, %.3f)\n",
                   mbs_data_time(d), q[0], q[1], q[2], q[3], q[4], q[5], pos[0] + 0.25 * R[1],
                   pos[1] + 0.25 * R[4], pos[2] + 0.25 * R[7]);
        }
        if (k < 3000) status = mbs_stepper_step(s, 1e-3);
    }
    if (status != MBS_OK) fprintf(stderr, "failed: %s\n", d ? mbs_data_error(d) : "out of memory");
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return status == MBS_OK ? 0 : 1;
}
