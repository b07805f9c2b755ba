/* The first example of the Modelica MultiBody paper (Otter, Elmqvist, Mattsson 2003, "The New
 * Modelica MultiBody Library", §2; MSL Elementary.Pendulum): a 1 kg body (centre of mass 0.5 m
 * along x, I = diag(0.001)) on a revolute joint about z at the world origin, with a rotational
 * damper d = 0.1 N m s/rad in the joint. The y axis points up (gravity 9.80665 m/s^2 along
 * -y); the pendulum starts horizontal and at rest. Stepped with RK4 at 1 ms for 5 s; the end
 * state is compared with the MSL reference phi(5) = -1.6796346 rad, w(5) = -2.3181470 rad/s
 * (Dymola, DASSL, tolerance 1e-6).
 *
 * Build: cc pendulum.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>

#include <mbs/mbs.h>

/* World -> revolute "rev" (axis z) -> body, plus the joint damper. */
static mbs_model *build_pendulum(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0.0, -9.80665, 0.0};
    int status = mbs_builder_set_gravity(b, g);

    mbs_body_def body = mbs_default_body_def(); /* mass 1, inertia diag(1e-3) */
    body.name = "body";
    body.com[0] = 0.5;
    const int id = status < 0 ? status : mbs_add_body(b, &body);

    mbs_joint_def rev = mbs_default_joint_def(MBS_JOINT_REVOLUTE); /* axis (0, 0, 1) */
    rev.name = "rev";
    rev.parent = MBS_WORLD;
    rev.child = id;
    const int joint = id < 0 ? id : mbs_add_joint(b, &rev);
    /* damper: generalized force -d * w on dof 0 of the joint (no spring: k = 0) */
    status = joint < 0 ? joint : mbs_add_joint_spring_damper(b, joint, 0, 0.0, 0.1, 0.0);

    mbs_model *m = NULL;
    if (status >= 0) status = mbs_compile(b, &m);
    if (status < 0)
        fprintf(stderr, "build: %s: %s\n", mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

int main(void)
{
    mbs_model *m = build_pendulum();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = d ? mbs_stepper_create(d, &def) : NULL;
    int status = s ? MBS_OK : MBS_ERR_NOMEM;

    const double dt = 1e-3;
    printf("%6s %12s %14s\n", "t [s]", "phi [rad]", "w [rad/s]");
    for (int k = 0; k <= 5000 && status == MBS_OK; ++k) {
        if (k % 500 == 0)
            printf("%6.2f %12.7f %14.7f\n", mbs_data_time(d), mbs_data_q(d)[0], mbs_data_v(d)[0]);
        if (k < 5000) status = mbs_stepper_step(s, dt);
    }
    if (status == MBS_OK) {
        const double phi = mbs_data_q(d)[0], w = mbs_data_v(d)[0];
        printf("MSL reference at 5 s: phi -1.6796346, w -2.3181470; difference %.1e, %.1e\n",
               phi + 1.6796346, w + 2.3181470);
    } else {
        fprintf(stderr, "failed: %s\n", d ? mbs_data_error(d) : "out of memory");
    }
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return status == MBS_OK ? 0 : 1;
}
