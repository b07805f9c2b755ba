/* Two bodies in a point gravity field (Otter, Elmqvist, Mattsson 2003, "The New Modelica
 * MultiBody Library", Fig. 7; MSL Elementary.PointGravity): mu = 1 m^3/s^2 at the origin, two
 * 1 kg bodies (I = diag(0.1)) without joints, so each gets a free joint from mbs_compile
 * ("free_body1", "free_body2"). body1 starts at (0, 0.6, 0) with velocity (1, 0, 0), body2 at
 * (0.6, 0.6, 0) with (0.6, 0, 0). CVODE Adams for 5 s; prints both positions and checks the
 * two Kepler invariants of each orbit: energy and angular momentum about the centre.
 *
 * Build: cc point_gravity.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

/* Point gravity and two unjointed bodies. */
static mbs_model *build_two_bodies(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double center[3] = {0.0, 0.0, 0.0};
    int status = mbs_builder_set_point_gravity(b, center, 1.0);
    mbs_body_def body = mbs_default_body_def();
    body.inertia[0] = body.inertia[4] = body.inertia[8] = 0.1;
    body.name = "body1";
    if (status >= 0) status = mbs_add_body(b, &body);
    body.name = "body2";
    if (status >= 0) status = mbs_add_body(b, &body);
    mbs_model *m = NULL;
    if (status >= 0) status = mbs_compile(b, &m);
    if (status < 0)
        fprintf(stderr, "build: %s: %s\n", mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Position and velocity of a free joint: q[0..2] and v[0..2], both in the world frame. */
static void place(mbs_data *d, const char *joint, const double pos[3], const double vel[3])
{
    const mbs_model *m = mbs_data_model(d);
    const int j = mbs_model_find_joint(m, joint);
    memcpy(mbs_data_q(d) + mbs_model_joint_qadr(m, j), pos, 3 * sizeof(double));
    memcpy(mbs_data_v(d) + mbs_model_joint_vadr(m, j), vel, 3 * sizeof(double));
}

/* Specific orbital energy v^2/2 - mu/r and angular momentum r x v (z part: the orbits are in
   the x-y plane) of body `body`. */
static void invariants(mbs_data *d, int body, double *energy, double *h)
{
    double pos[3], R[9], lin[3], ang[3];
    mbs_body_pose(d, body, pos, R);
    mbs_body_velocity(d, body, lin, ang);
    *energy = 0.5 * (lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]) -
              1.0 / sqrt(pos[0] * pos[0] + pos[1] * pos[1] + pos[2] * pos[2]);
    *h = pos[0] * lin[1] - pos[1] * lin[0];
}

int main(void)
{
    mbs_model *m = build_two_bodies();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    if (!d) return 1;
    const double p1[3] = {0, 0.6, 0}, v1[3] = {1, 0, 0}, p2[3] = {0.6, 0.6, 0}, v2[3] = {0.6, 0, 0};
    place(d, "free_body1", p1, v1);
    place(d, "free_body2", p2, v2);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    def.rtol = 1e-10;
    def.atol = 1e-12;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    int status = s ? MBS_OK : MBS_ERR_SOLVER;
    double e0[2], h0[2];
    for (int i = 0; i < 2; ++i) invariants(d, i + 1, &e0[i], &h0[i]);

    printf("%6s %10s %10s %10s %10s\n", "t [s]", "x1 [m]", "y1 [m]", "x2 [m]", "y2 [m]");
    for (int k = 0; k <= 20 && status == MBS_OK; ++k) {
        double a[3], b[3], R[9];
        mbs_body_pose(d, 1, a, R);
        mbs_body_pose(d, 2, b, R);
        printf("%6.2f %10.5f %10.5f %10.5f %10.5f\n", mbs_data_time(d), a[0], a[1], b[0], b[1]);
        if (k < 20) status = mbs_stepper_step(s, 0.25);
    }
    for (int i = 0; i < 2 && status == MBS_OK; ++i) {
        double e, h;
        invariants(d, i + 1, &e, &h);
        printf("body%d: orbital energy drift %.2e, angular momentum drift %.2e\n", i + 1,
               fabs(e - e0[i]) / fabs(e0[i]), fabs(h - h0[i]) / fabs(h0[i]));
    }
    if (status != MBS_OK) fprintf(stderr, "failed: %s\n", mbs_data_error(d));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return status == MBS_OK ? 0 : 1;
}
