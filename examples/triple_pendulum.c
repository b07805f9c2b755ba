/* Triple pendulum: three 0.5 m links on revolute joints about y, released horizontally in
 * gravity (0, 0, -9.81), stepped with fixed-step RK4 at 1 ms for 5 s. Prints every 0.25 s
 * the time, the three joint angles, the kinetic and potential energy and the drift of their
 * sum from the start (no damping: it should stay constant up to the integration error).
 *
 * Build: cc triple_pendulum.c $(pkg-config --cflags --libs mbs) */
#include <stdio.h>

#include <mbs/mbs.h>

#define NLINK 3
#define LINK_LENGTH 0.5
#define LINK_MASS 1.0

/* Build the model; returns NULL and prints the builder's message on failure. */
static mbs_model *build_triple_pendulum(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    /* a slender rod along x: com at its middle, I = m L^2 / 12 about y and z */
    mbs_body_def link = mbs_default_body_def();
    link.mass = LINK_MASS;
    link.com[0] = LINK_LENGTH / 2.0;
    link.inertia[0] = 1e-4;
    link.inertia[4] = link.inertia[8] = LINK_MASS * LINK_LENGTH * LINK_LENGTH / 12.0;

    int parent = MBS_WORLD, status = MBS_OK;
    for (int i = 0; i < NLINK && status >= 0; ++i) {
        int body = mbs_add_body(b, &link);
        mbs_joint_def hinge = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        hinge.parent = parent;
        hinge.child = body;
        hinge.axis[0] = 0.0; hinge.axis[1] = 1.0; hinge.axis[2] = 0.0; /* swing in x-z */
        if (parent != MBS_WORLD) hinge.frame_parent.pos[0] = LINK_LENGTH; /* tip of parent */
        status = body < 0 ? body : mbs_add_joint(b, &hinge);
        parent = body;
    }
    mbs_model *m = NULL;
    if (status >= 0) status = mbs_compile(b, &m);
    if (status < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

int main(void)
{
    mbs_model *m = build_triple_pendulum();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = d ? mbs_stepper_create(d, &def) : NULL;
    if (!s) {
        fprintf(stderr, "setup failed: %s\n", d ? mbs_data_error(d) : "out of memory");
        mbs_data_destroy(d);
        mbs_model_destroy(m);
        return 1;
    }
    const double dt = 1e-3, t_end = 5.0;
    const int steps = (int)(t_end / dt + 0.5), print_every = 250;
    double ke, pe, e0;
    mbs_energy(d, &ke, &pe);
    e0 = ke + pe;

    printf("triple pendulum: %d links of %.2f m, %.1f kg; RK4, dt = %g s\n", NLINK,
           LINK_LENGTH, LINK_MASS, dt);
    printf("%6s %10s %10s %10s %12s %14s %12s\n", "t [s]", "q1 [rad]", "q2 [rad]", "q3 [rad]",
           "kinetic [J]", "potential [J]", "E - E0 [J]");
    int status = MBS_OK;
    for (int k = 0; k <= steps && status == MBS_OK; ++k) {
        if (k % print_every == 0) {
            const double *q = mbs_data_q(d);
            mbs_energy(d, &ke, &pe);
            printf("%6.2f %10.5f %10.5f %10.5f %12.6f %14.6f %12.3e\n", mbs_data_time(d), q[0],
                   q[1], q[2], ke, pe, ke + pe - e0);
        }
        if (k < steps) status = mbs_stepper_step(s, dt);
    }
    if (status != MBS_OK) fprintf(stderr, "step failed: %s\n", mbs_data_error(d));

    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return status == MBS_OK ? 0 : 1;
}
