/* Double pendulum (MSL Elementary.DoublePendulum): two steel boxes 0.5 x 0.06 x 0.06 m
 * (density 7700 kg/m^3: 13.86 kg each) on revolute joints about z, the first with a
 * rotational damper d = 0.1 N m s/rad; gravity 9.80665 m/s^2 along -y; both links start
 * horizontal along +x and at rest. RK4 at 1 ms for 3 s; prints the angles, the tip of the
 * second link and the energy, which the damper can only lower.
 *
 * Build: cc double_pendulum.c $(pkg-config --cflags --libs mbs) */
#include <stdio.h>

#include <mbs/mbs.h>

#define LENGTH 0.5
#define WIDTH 0.06
#define MASS (7700.0 * LENGTH * WIDTH * WIDTH)

/* A box link along x from its origin: com in the middle, box inertia about the com. */
static mbs_body_def box_link(const char *name)
{
    mbs_body_def link = mbs_default_body_def();
    link.name = name;
    link.mass = MASS;
    link.com[0] = 0.5 * LENGTH;
    link.inertia[0] = MASS * (WIDTH * WIDTH + WIDTH * WIDTH) / 12.0;
    link.inertia[4] = link.inertia[8] = MASS * (LENGTH * LENGTH + WIDTH * WIDTH) / 12.0;
    return link;
}

/* world -> revolute1 -> link1 -> revolute2 (at the tip of link1) -> link2. */
static mbs_model *build_double_pendulum(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double g[3] = {0.0, -9.80665, 0.0};
    int status = mbs_builder_set_gravity(b, g);
    const mbs_body_def l1 = box_link("link1"), l2 = box_link("link2");
    const int b1 = mbs_add_body(b, &l1), b2 = mbs_add_body(b, &l2);

    mbs_joint_def rev = mbs_default_joint_def(MBS_JOINT_REVOLUTE); /* axis z */
    rev.name = "revolute1";
    rev.parent = MBS_WORLD;
    rev.child = b1;
    const int j1 = mbs_add_joint(b, &rev);
    rev.name = "revolute2";
    rev.parent = b1;
    rev.child = b2;
    rev.frame_parent.pos[0] = LENGTH;
    const int j2 = mbs_add_joint(b, &rev);
    if (status >= 0 && (b1 < 0 || b2 < 0 || j1 < 0 || j2 < 0)) status = MBS_ERR_ARG;
    if (status >= 0) status = mbs_add_joint_spring_damper(b, j1, 0, 0.0, 0.1, 0.0);

    mbs_model *m = NULL;
    if (status >= 0) status = mbs_compile(b, &m);
    if (status < 0)
        fprintf(stderr, "build: %s: %s\n", mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

int main(void)
{
    mbs_model *m = build_double_pendulum();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = d ? mbs_stepper_create(d, &def) : NULL;
    int status = s ? MBS_OK : MBS_ERR_NOMEM;
    double ke = 0.0, pe = 0.0, e0;
    if (status == MBS_OK) status = mbs_energy(d, &ke, &pe);
    e0 = ke + pe;

    printf("%6s %10s %10s %10s %10s %12s\n", "t [s]", "phi1", "phi2", "tip x", "tip y",
           "E - E0 [J]");
    for (int k = 0; k <= 3000 && status == MBS_OK; ++k) {
        if (k % 250 == 0) {
            double pos[3], R[9];
            mbs_body_pose(d, 2, pos, R); /* tip = pos + R (LENGTH, 0, 0) */
            mbs_energy(d, &ke, &pe);
            printf("%6.2f %10.5f %10.5f %10.5f %10.5f %12.5f\n", mbs_data_time(d), mbs_data_q(d)[0],
                   mbs_data_q(d)[1], pos[0] + R[0] * LENGTH, pos[1] + R[3] * LENGTH, ke + pe - e0);
        }
        if (k < 3000) status = mbs_stepper_step(s, 1e-3);
    }
    if (status != MBS_OK) fprintf(stderr, "failed: %s\n", d ? mbs_data_error(d) : "out of memory");
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return status == MBS_OK ? 0 : 1;
}
