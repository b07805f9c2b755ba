/* A free body hung on two springs (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody
 * Library", Fig. 8; MSL Elementary.FreeBody). The bar (1 kg, centre of mass 0.2 m along x, I =
 * diag(1, 1, 1)) has no joint: mbs_compile gives it a free joint "free_bar" with q = [position
 * (3), quaternion w x y z (4)] and v = [linear velocity (3), angular velocity in the body
 * (3)]. Spring 1 joins the world origin and the bar's origin, spring 2 the world point (0.8,
 * 0, 0) and the bar point (0.4, 0, 0); c = 20 N/m, unstretched length 0. The bar starts at
 * rest at (0.2, -0.5, 0.1), turned by Cardan angles of 10 degrees about x, y, z. RK4 at 1 ms
 * for 10 s; no damping, so the energy is conserved up to the integration error.
 *
 * Build: cc free_body_springs.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>

#include <mbs/mbs.h>

#define PI 3.14159265358979323846

/* The bar and the two springs; gravity along -y. */
static mbs_model *build_free_body(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0.0, -9.80665, 0.0};
    int status = mbs_builder_set_gravity(b, g);
    mbs_body_def bar = mbs_default_body_def();
    bar.name = "bar";
    bar.com[0] = 0.2;
    bar.inertia[0] = bar.inertia[4] = bar.inertia[8] = 1.0;
    const int id = mbs_add_body(b, &bar);

    mbs_spring_damper_def spring = mbs_default_spring_damper_def();
    spring.body_a = MBS_WORLD; /* point_a = world origin */
    spring.body_b = id;        /* point_b = bar origin */
    spring.stiffness = 20.0;
    if (status >= 0) status = mbs_add_spring_damper(b, &spring);
    spring.point_a[0] = 0.8;
    spring.point_b[0] = 0.4;
    if (status >= 0) status = mbs_add_spring_damper(b, &spring);

    mbs_model *m = NULL;
    if (status >= 0) status = mbs_compile(b, &m);
    if (status < 0)
        fprintf(stderr, "build: %s: %s\n", mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Start pose: position and the quaternion of Rx(a) Ry(a) Rz(a). */
static void set_start(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, mbs_model_find_joint(m, "free_bar"));
    const double h = 0.5 * 10.0 * PI / 180.0, c = cos(h), s = sin(h);
    q[0] = 0.2;
    q[1] = -0.5;
    q[2] = 0.1;
    /* (c + s i)(c + s j)(c + s k), scalar first */
    q[3] = c * c * c - s * s * s;
    q[4] = s * c * c + c * s * s;
    q[5] = c * s * c - s * c * s;
    q[6] = s * s * c + c * c * s;
}

int main(void)
{
    mbs_model *m = build_free_body();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    if (d) set_start(d);
    mbs_stepper *s = d ? mbs_stepper_create(d, &def) : NULL;
    int status = s ? MBS_OK : MBS_ERR_NOMEM;
    double ke = 0.0, pe = 0.0, e0, pos[3], R[9];
    if (status == MBS_OK) status = mbs_energy(d, &ke, &pe);
    e0 = ke + pe;

    printf("%6s %10s %10s %10s %14s\n", "t [s]", "x [m]", "y [m]", "z [m]", "E - E0 [J]");
    for (int k = 0; k <= 10000 && status == MBS_OK; ++k) {
        if (k % 1000 == 0) {
            mbs_body_pose(d, 1, pos, R);
            mbs_energy(d, &ke, &pe);
            printf("%6.2f %10.5f %10.5f %10.5f %14.3e\n", mbs_data_time(d), pos[0], pos[1], pos[2],
                   ke + pe - e0);
        }
        if (k < 10000) status = mbs_stepper_step(s, 1e-3);
    }
    if (status != MBS_OK) fprintf(stderr, "failed: %s\n", d ? mbs_data_error(d) : "out of memory");
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return status == MBS_OK ? 0 : 1;
}
