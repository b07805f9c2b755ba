/* A tumbling rigid satellite (500 kg) in point gravity mu = 3.986004418e14 m^3/s^2 on a
 * circular low Earth orbit (400 km altitude, 51.6 deg inclination), integrated over one
 * orbital period T = 2 pi sqrt(r^3 / mu) with CVODE Adams. The body is not connected to the
 * world, so mbs_compile gives it a free joint (quaternion). Checks printed at the end:
 *   period:            |r(T) - r(0)|, the satellite is back where it started
 *   circular orbit:    max | |r| - r0 | over the samples
 *   energy:            relative drift of kinetic + potential (-mu m / |r|)
 *   angular momentum:  relative drift of m r x v + R I R^T w about the Earth's centre
 *
 * Build: cc satellite.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

#define PI 3.14159265358979323846
#define MU 3.986004418e14
#define R_EARTH 6378137.0
#define MASS 500.0

static const double INERTIA[3] = {120.0, 100.0, 80.0}; /* principal, body axes */

static mbs_model *build_satellite(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    const double center[3] = {0.0, 0.0, 0.0};
    int status = mbs_builder_set_point_gravity(b, center, MU);
    mbs_body_def sat = mbs_default_body_def();
    sat.name = "satellite";
    sat.mass = MASS;
    memset(sat.inertia, 0, sizeof sat.inertia);
    for (int k = 0; k < 3; ++k) sat.inertia[4 * k] = INERTIA[k];
    if (status >= 0) status = mbs_add_body(b, &sat);
    mbs_model *m = NULL;
    if (status >= 0) status = mbs_compile(b, &m);
    if (status < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

static void cross(double o[3], const double a[3], const double b[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* Total angular momentum about the Earth's centre (world frame). */
static void angular_momentum(mbs_data *d, double L[3])
{
    double pos[3], R[9], lin[3], w[3], wb[3], hb[3];
    mbs_body_pose(d, 1, pos, R);
    mbs_body_velocity(d, 1, lin, w);
    cross(L, pos, lin);
    for (int i = 0; i < 3; ++i) L[i] *= MASS;
    for (int i = 0; i < 3; ++i) wb[i] = R[i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2];
    for (int i = 0; i < 3; ++i) hb[i] = INERTIA[i] * wb[i];
    for (int i = 0; i < 3; ++i) L[i] += R[3 * i] * hb[0] + R[3 * i + 1] * hb[1] + R[3 * i + 2] * hb[2];
}

int main(void)
{
    mbs_model *m = build_satellite();
    if (!m) return 1;
    mbs_data *d = mbs_data_create(m);
    if (!d) { mbs_model_destroy(m); return 1; }

    /* free joint: q = [position, quaternion], v = [world velocity, body angular velocity] */
    const double r0 = R_EARTH + 400e3, vc = sqrt(MU / r0), incl = 51.6 * PI / 180.0;
    const double period = 2.0 * PI * sqrt(r0 * r0 * r0 / MU);
    double *q = mbs_data_q(d), *v = mbs_data_v(d), start[3] = {r0, 0.0, 0.0};
    memcpy(q, start, sizeof start);
    v[0] = 0.0; v[1] = vc * cos(incl); v[2] = vc * sin(incl);
    v[3] = 0.01; v[4] = 0.02; v[5] = 0.05; /* tumbling, rad/s */

    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    def.rtol = 1e-11;
    def.atol = 1e-9;
    def.max_internal_steps = 200000;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    if (!s) {
        fprintf(stderr, "stepper: %s\n", mbs_data_error(d));
        mbs_data_destroy(d);
        mbs_model_destroy(m);
        return 1;
    }
    double ke, pe, e0, L0[3], L[3], dL[3], pos[3], R[9], rdev = 0.0;
    mbs_energy(d, &ke, &pe);
    e0 = ke + pe;
    angular_momentum(d, L0);

    printf("satellite: circular orbit r0 = %.0f m, v = %.3f m/s, period T = %.3f s\n", r0, vc, period);
    printf("%10s %14s %14s %12s\n", "t [s]", "|r| - r0 [m]", "E rel. drift", "spin [rad/s]");
    int status = MBS_OK;
    const int nout = 16;
    for (int k = 0; k <= nout && status == MBS_OK; ++k) {
        if (k > 0) status = mbs_stepper_step(s, period * k / nout - mbs_data_time(d));
        double lin[3], w[3];
        mbs_body_pose(d, 1, pos, R);
        mbs_body_velocity(d, 1, lin, w);
        mbs_energy(d, &ke, &pe);
        rdev = fmax(rdev, fabs(norm(pos) - r0));
        printf("%10.2f %14.6f %14.3e %12.6f\n", mbs_data_time(d), norm(pos) - r0,
               (ke + pe - e0) / fabs(e0), norm(w));
    }
    if (status != MBS_OK) {
        fprintf(stderr, "step failed: %s\n", mbs_data_error(d));
    } else {
        double back[3] = {pos[0] - start[0], pos[1] - start[1], pos[2] - start[2]};
        angular_momentum(d, L);
        for (int i = 0; i < 3; ++i) dL[i] = L[i] - L0[i];
        printf("period check:      |r(T) - r(0)| = %.3e m (orbit length %.0f m)\n", norm(back),
               2.0 * PI * r0);
        printf("circular orbit:    max | |r| - r0 | = %.3e m\n", rdev);
        printf("energy:            relative drift %.3e\n", (ke + pe - e0) / fabs(e0));
        printf("angular momentum:  relative drift %.3e\n", norm(dL) / norm(L0));
    }
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return status == MBS_OK ? 0 : 1;
}
