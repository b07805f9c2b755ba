/* Point masses (Otter, Elmqvist, Mattsson 2003, Fig. 7; MSL Parts.PointMass) and the
 * translational joint. A body with mass and zero inertia gets no rotational coordinates:
 * on an automatic root a translational joint, at the end of a chain through a spherical
 * joint the two swing rates. Checked against closed forms: Kepler orbits (positions from
 * Kepler's equation, energy, angular momentum), the conical pendulum's rate, the turning
 * points of the general spherical pendulum (from its energy and angular-momentum
 * integrals), and the dynamics algorithms against each other. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include "run_helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265358979323846

/* ---------------------------------------------------------------- helpers */

/* A point mass: mass m, com c, zero inertia. */
static int add_point_mass(mbs_builder *b, const char *name, double mass, double cx, double cy,
                          double cz)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.name = name;
    bd.mass = mass;
    bd.com[0] = cx, bd.com[1] = cy, bd.com[2] = cz;
    memset(bd.inertia, 0, sizeof bd.inertia);
    int id = mbs_add_body(b, &bd);
    assert_true(id > 0);
    return id;
}

static double norm3(const double x[3]) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

static double total_energy(mbs_data *d)
{
    double T, V;
    assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
    return T + V;
}

/* ---------------------------------------------------------------- Fig. 7: Kepler orbits */

/* Position at time t on the Kepler ellipse with semi-major axis a, eccentricity e, period T,
   starting at the periapsis (a (1 - e), 0) at t = 0 and moving towards +y: Kepler's
   equation E - e sin E = 2 pi t / T by Newton, x = a (cos E - e), y = a sqrt(1 - e^2) sin E. */
static void kepler_position(double a, double e, double T, double t, double xy[2])
{
    const double M = 2.0 * PI * t / T;
    double E = M;
    for (int k = 0; k < 50; ++k) E -= (E - e * sin(E) - M) / (1.0 - e * cos(E));
    xy[0] = a * (cos(E) - e);
    xy[1] = a * sqrt(1.0 - e * e) * sin(E);
}

/* Two point masses in the point gravity field mu / r^2 of the world origin (Fig. 7): each
   gets a translational root (3 / 3 coordinates, no rotation, no MBS_ERR_SINGULAR); orbit 1 in
   the xy-plane with e = 0.5, orbit 2 with e = 0.2 in a plane tilted by 0.4 rad about x.
   Over one period of the first orbit the positions follow Kepler's equation to 1e-8 of the
   semi-major axis (CVODE Adams, rtol 1e-12), the energy of the system stays within 1e-10
   relative, the angular momentum about the centre within 1e-10. */
static void test_fig7_kepler(void **state)
{
    (void)state;
    const double mu = 1.0, a[2] = {1.0, 1.6}, e[2] = {0.5, 0.2}, tilt[2] = {0.0, 0.4};
    const double mass[2] = {1.0, 0.3};
    mbs_builder *b = mbs_builder_create();
    const double c[3] = {0, 0, 0};
    assert_int_equal(mbs_builder_set_point_gravity(b, c, mu), MBS_OK);
    add_point_mass(b, "planet1", mass[0], 0, 0, 0);
    add_point_mass(b, "planet2", mass[1], 0, 0, 0);
    mbs_model *m = run_compile_ok(b);
    assert_int_equal(mbs_model_nq(m), 6);
    assert_int_equal(mbs_model_nv(m), 6);
    mbs_joint_def jd;
    for (int j = 0; j < 2; ++j) {
        assert_int_equal(mbs_model_joint_def(m, j, &jd), MBS_OK);
        assert_int_equal(jd.type, MBS_JOINT_TRANSLATIONAL);
        assert_int_equal(jd.child, j + 1);
    }
    assert_string_equal(mbs_model_joint_name(m, 0), "free_planet1");
    mbs_data *d = mbs_data_create(m);
    double *q = mbs_data_q(d), *v = mbs_data_v(d), T[2];
    for (int i = 0; i < 2; ++i) {
        const double rp = a[i] * (1.0 - e[i]), vp = sqrt(mu * (1.0 + e[i]) / rp);
        T[i] = 2.0 * PI * sqrt(a[i] * a[i] * a[i] / mu);
        q[3 * i] = rp, q[3 * i + 1] = 0.0, q[3 * i + 2] = 0.0;
        v[3 * i] = 0.0, v[3 * i + 1] = vp * cos(tilt[i]), v[3 * i + 2] = vp * sin(tilt[i]);
    }
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double *qacc = mbs_data_qacc(d);
    assert_true(fabs(qacc[0] + mu / (q[0] * q[0])) < 1e-14 && fabs(qacc[1]) < 1e-14);
    const double E0 = total_energy(d);
    double L0[3], P[3], L[3];
    assert_int_equal(mbs_momentum(d, P, L0), MBS_OK);
    mbs_stepper *s = run_stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-12, 1e-14);
    double worst_pos = 0.0, worst_E = 0.0, worst_L = 0.0;
    const int n = 40;
    for (int k = 1; k <= n; ++k) {
        run_step_ok(s, d, T[0] / n);
        const double t = mbs_data_time(d);
        for (int i = 0; i < 2; ++i) {
            double xy[2];
            kepler_position(a[i], e[i], T[i], t, xy);
            const double ref[3] = {xy[0], xy[1] * cos(tilt[i]), xy[1] * sin(tilt[i])};
            for (int k2 = 0; k2 < 3; ++k2)
                worst_pos = fmax(worst_pos, fabs(q[3 * i + k2] - ref[k2]) / a[i]);
        }
        worst_E = fmax(worst_E, fabs(total_energy(d) - E0) / fabs(E0));
        assert_int_equal(mbs_momentum(d, P, L), MBS_OK);
        for (int k2 = 0; k2 < 3; ++k2) worst_L = fmax(worst_L, fabs(L[k2] - L0[k2]) / norm3(L0));
    }
    print_message("Fig. 7 Kepler: position vs Kepler's equation %.2e, energy %.2e, angular "
                  "momentum %.2e\n", worst_pos, worst_E, worst_L);
    assert_true(worst_pos < 1e-8);
    assert_true(worst_E < 1e-10);
    assert_true(worst_L < 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- spherical pendulum */

#define PEND_L 1.5
#define PEND_M 2.0
#define PEND_G 9.81

/* A point mass PEND_M hanging PEND_L below a spherical joint at the world origin (the joint
   frame sits PEND_L above the body origin, where the mass is); uniform gravity -z. */
static mbs_model *spherical_pendulum(mbs_rotation rotation)
{
    mbs_builder *b = mbs_builder_create();
    int bob = add_point_mass(b, "bob", PEND_M, 0, 0, 0);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    jd.name = "ball";
    jd.parent = MBS_WORLD;
    jd.child = bob;
    jd.rotation = rotation;
    jd.frame_child.pos[2] = PEND_L;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

/* Start the pendulum tilted by theta0 about x (mass at (0, L sin, -L cos)) turning about the
   vertical at the rate phidot: the world angular velocity phidot z, with its component along
   the rod (which moves nothing) dropped, as the two swing rates about the joint's axes. */
static void pendulum_start(const mbs_model *m, mbs_data *d, double theta0, double phidot)
{
    mbs_joint_def jd;
    assert_int_equal(mbs_model_joint_def(m, 0, &jd), MBS_OK);
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    q[0] = cos(0.5 * theta0), q[1] = sin(0.5 * theta0), q[2] = q[3] = 0.0;
    /* w = R^T (0, 0, phidot) with R = Rx(theta0) */
    const double w[3] = {0.0, sin(theta0) * phidot, cos(theta0) * phidot};
    v[0] = w[0] * jd.axis[0] + w[1] * jd.axis[1] + w[2] * jd.axis[2];
    v[1] = w[0] * jd.axis2[0] + w[1] * jd.axis2[1] + w[2] * jd.axis2[2];
}

/* World position of the bob. */
static void bob_position(mbs_data *d, double p[3])
{
    double R[9];
    assert_int_equal(mbs_body_pose(d, 1, p, R), MBS_OK);
}

/* The spherical joint into a point mass is reduced to its two swing rates (4 / 2
   coordinates, quaternion or Cardan option alike); conical pendulum started at theta0 = 0.6
   with the closed-form rate Omega = sqrt(g / (L cos theta0)): over 3 s (CVODE Adams, rtol
   1e-12) the mass stays on its circle and turns at Omega, p(t) = Rz(Omega t) p(0) to 1e-8 L;
   energy and the angular momentum about the vertical within 1e-10 relative. */
static void test_conical_pendulum(void **state)
{
    (void)state;
    const mbs_rotation rots[2] = {MBS_ROT_QUATERNION, MBS_ROT_CARDAN};
    for (int r = 0; r < 2; ++r) {
        mbs_model *m = spherical_pendulum(rots[r]);
        assert_int_equal(mbs_model_nq(m), 4);
        assert_int_equal(mbs_model_nv(m), 2);
        mbs_data *d = mbs_data_create(m);
        const double th = 0.6, Om = sqrt(PEND_G / (PEND_L * cos(th)));
        pendulum_start(m, d, th, Om);
        double p0[3], p[3], P[3], L[3];
        bob_position(d, p0);
        assert_true(fabs(p0[1] - PEND_L * sin(th)) < 1e-15 && fabs(p0[2] + PEND_L * cos(th)) < 1e-15);
        const double E0 = total_energy(d);
        assert_int_equal(mbs_momentum(d, P, L), MBS_OK);
        const double Lz0 = L[2];
        assert_true(fabs(Lz0 - PEND_M * Om * pow(PEND_L * sin(th), 2)) < 1e-12);
        mbs_stepper *s = run_stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-12, 1e-14);
        double worst_p = 0.0, worst_E = 0.0, worst_Lz = 0.0;
        for (int k = 1; k <= 60; ++k) {
            run_step_ok(s, d, 0.05);
            const double t = mbs_data_time(d), c = cos(Om * t), sn = sin(Om * t);
            const double ref[3] = {c * p0[0] - sn * p0[1], sn * p0[0] + c * p0[1], p0[2]};
            bob_position(d, p);
            for (int i = 0; i < 3; ++i) worst_p = fmax(worst_p, fabs(p[i] - ref[i]) / PEND_L);
            worst_E = fmax(worst_E, fabs(total_energy(d) - E0) / fabs(E0));
            assert_int_equal(mbs_momentum(d, P, L), MBS_OK);
            worst_Lz = fmax(worst_Lz, fabs(L[2] - Lz0) / fabs(Lz0));
        }
        print_message("conical pendulum (%s option): position vs Rz(Omega t) %.2e, energy %.2e, "
                      "Lz %.2e\n", r ? "Cardan" : "quaternion", worst_p, worst_E, worst_Lz);
        assert_true(worst_p < 1e-8 && worst_E < 1e-10 && worst_Lz < 1e-10);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Effective potential per unit mass of the spherical pendulum with specific angular
   momentum h about the vertical: h^2 / (2 L^2 sin^2) - g L cos. */
static double u_eff(double theta, double h)
{
    const double s = sin(theta);
    return h * h / (2.0 * PEND_L * PEND_L * s * s) - PEND_G * PEND_L * cos(theta);
}

/* The other turning angle of a pendulum released at theta0 with rate phidot below the
   conical one: the root of u_eff(theta) = u_eff(theta0) in (0, theta0), by bisection. */
static double turning_angle(double theta0, double h)
{
    const double e = u_eff(theta0, h);
    double lo = 1e-6, hi = theta0 * (1.0 - 1e-7);
    assert_true(u_eff(lo, h) > e && u_eff(hi, h) < e);
    for (int k = 0; k < 200; ++k) {
        const double mid = 0.5 * (lo + hi);
        if (u_eff(mid, h) > e) lo = mid; else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Extremum of the parabola through (-1, a), (0, b), (1, c): b - (c - a)^2 / (8 (a - 2b + c)). */
static double parabola_extremum(double a, double b, double c)
{
    return b - (c - a) * (c - a) / (8.0 * (a - 2.0 * b + c));
}

/* General spherical pendulum released at theta0 = 1.0 with half the conical rate: the polar
   angle swings between theta0 and the closed-form turning angle theta1 (energy and
   angular-momentum integrals, bisection); the extrema of theta(t) sampled every 1 ms over
   4 s (parabola through the three samples around each) match them to 1e-7 rad; energy and
   Lz within 1e-10 relative. */
static void test_spherical_pendulum_turning(void **state)
{
    (void)state;
    mbs_model *m = spherical_pendulum(MBS_ROT_QUATERNION);
    mbs_data *d = mbs_data_create(m);
    const double th0 = 1.0, rate = 0.5 * sqrt(PEND_G / (PEND_L * cos(th0)));
    const double h = PEND_L * PEND_L * sin(th0) * sin(th0) * rate, th1 = turning_angle(th0, h);
    pendulum_start(m, d, th0, rate);
    const double E0 = total_energy(d);
    double P[3], L[3], p[3];
    assert_int_equal(mbs_momentum(d, P, L), MBS_OK);
    const double Lz0 = L[2];
    mbs_stepper *s = run_stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-12, 1e-14);
    double th[3] = {th0, th0, th0}, worst_min = 0.0, worst_max = 0.0, worst_E = 0.0, worst_Lz = 0.0;
    int nmin = 0, nmax = 0;
    for (int k = 1; k <= 4000; ++k) {
        run_step_ok(s, d, 1e-3);
        bob_position(d, p);
        th[0] = th[1], th[1] = th[2], th[2] = acos(-p[2] / PEND_L);
        if (k >= 2 && th[1] < th[0] && th[1] <= th[2]) {
            worst_min = fmax(worst_min, fabs(parabola_extremum(th[0], th[1], th[2]) - th1));
            nmin++;
        }
        if (k >= 2 && th[1] > th[0] && th[1] >= th[2]) {
            worst_max = fmax(worst_max, fabs(parabola_extremum(th[0], th[1], th[2]) - th0));
            nmax++;
        }
        if (k % 100 == 0) {
            worst_E = fmax(worst_E, fabs(total_energy(d) - E0) / fabs(E0));
            assert_int_equal(mbs_momentum(d, P, L), MBS_OK);
            worst_Lz = fmax(worst_Lz, fabs(L[2] - Lz0) / fabs(Lz0));
        }
    }
    print_message("spherical pendulum: theta1 = %.9f; %d minima off by %.2e, %d maxima off by "
                  "%.2e rad; energy %.2e, Lz %.2e\n", th1, nmin, worst_min, nmax, worst_max,
                  worst_E, worst_Lz);
    assert_true(nmin >= 2 && nmax >= 2);
    assert_true(worst_min < 1e-7 && worst_max < 1e-7);
    assert_true(worst_E < 1e-10 && worst_Lz < 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- chains and trees */

/* A rigid arm on a revolute joint (axis y) with a point mass hanging 0.3 below a spherical
   joint at its tip, a second point mass on its own automatic root, uniform gravity: nv =
   1 + 2 + 3; at random states ABA equals M^-1 (tau - c) from CRBA (1e-10), the mass matrix
   factorises (no MBS_ERR_SINGULAR), inverse dynamics returns tau (1e-10); RK4 at 1 ms keeps
   the energy within 1e-8 over 2 s. */
static void test_chain_dynamics(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def arm = mbs_default_body_def();
    arm.mass = 1.0;
    arm.com[0] = 0.5;
    arm.inertia[0] = 0.01, arm.inertia[4] = 0.09, arm.inertia[8] = 0.09;
    int a = mbs_add_body(b, &arm);
    int pm = add_point_mass(b, "tip", 0.7, 0, 0, 0);
    add_point_mass(b, "loose", 0.2, 0.1, 0, 0);
    mbs_joint_def rj = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    rj.child = a;
    rj.axis[0] = 0, rj.axis[1] = 1, rj.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &rj), 0);
    mbs_joint_def sj = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    sj.parent = a;
    sj.child = pm;
    sj.frame_parent.pos[0] = 1.0;
    sj.frame_child.pos[2] = 0.3;
    assert_int_equal(mbs_add_joint(b, &sj), 1);
    mbs_model *m = run_compile_ok(b);
    const int nv = mbs_model_nv(m);
    assert_int_equal(nv, 6);
    assert_int_equal(mbs_model_joint_nv(m, 1), 2);
    assert_int_equal(mbs_model_joint_nv(m, 2), 3);
    mbs_data *d = mbs_data_create(m);
    test_rng r;
    test_rng_seed(&r, 5);
    double M[36], LDL[36], c[6], x[6], tau[6];
    for (int n = 0; n < 20; ++n) {
        test_random_state(&r, d, 1.0, 1.0, 1.0);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
        assert_int_equal(mbs_mass_matrix_factor(d, LDL), MBS_OK);
        assert_int_equal(mbs_bias_forces(d, c), MBS_OK);
        for (int i = 0; i < nv; ++i) x[i] = mbs_data_tau(d)[i] - c[i];
        assert_int_equal(mbs_mass_matrix_solve(d, LDL, x), MBS_OK);
        test_assert_close(mbs_data_qacc(d), x, nv, 1e-10, "ABA vs CRBA with point masses");
        assert_int_equal(mbs_inverse_dynamics(d, mbs_data_qacc(d), tau), MBS_OK);
        test_assert_close(tau, mbs_data_tau(d), nv, 1e-10, "RNEA(ABA) = tau");
    }
    memset(mbs_data_tau(d), 0, (size_t)nv * sizeof(double));
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    const double qs[8] = {0.3, 0.9553364891, 0.1773123093, 0.2364164124, 0.0, 0.2, 0.0, -0.4};
    const double vs[6] = {0.5, 1.0, -0.7, 0.0, 0.3, 0.0};
    memcpy(q, qs, sizeof qs);
    memcpy(v, vs, sizeof vs);
    assert_int_equal(mbs_normalize_q(m, q), MBS_OK);
    mbs_stepper *s = run_stepper_ok(d, MBS_STEP_RK4, 1e-6, 1e-8);
    const double E0 = total_energy(d);
    double worst = 0.0;
    for (int k = 0; k < 2000; ++k) {
        run_step_ok(s, d, 1e-3);
        if (k % 50 == 0) worst = fmax(worst, fabs(total_energy(d) - E0) / fabs(E0));
    }
    print_message("arm + point masses, RK4 1 ms: energy drift %.2e over 2 s\n", worst);
    assert_true(worst < 1e-8);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* A tumbling rigid body (automatic free root) carrying a point mass on a spherical joint,
   no gravity: linear and angular momentum stay constant (1e-10 relative, CVODE Adams rtol
   1e-11) over 3 s while the swing moves the mass around. */
static void test_free_body_momentum(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def hub = mbs_default_body_def();
    hub.mass = 3.0;
    hub.inertia[0] = 0.2, hub.inertia[4] = 0.3, hub.inertia[8] = 0.4;
    int h = mbs_add_body(b, &hub);
    int pm = add_point_mass(b, "ball", 0.5, 0.0, 0.4, 0.0);
    mbs_joint_def sj = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    sj.parent = h;
    sj.child = pm;
    sj.frame_parent.pos[0] = 0.5;
    assert_int_equal(mbs_add_joint(b, &sj), 0);
    mbs_model *m = run_compile_ok(b);
    assert_int_equal(mbs_model_nv(m), 8);
    mbs_data *d = mbs_data_create(m);
    test_rng r;
    test_rng_seed(&r, 9);
    test_random_state(&r, d, 1.0, 2.0, 0.0);
    double P0[3], L0[3], P[3], L[3];
    assert_int_equal(mbs_momentum(d, P0, L0), MBS_OK);
    mbs_stepper *s = run_stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-11, 1e-13);
    double worst = 0.0;
    for (int k = 0; k < 30; ++k) {
        run_step_ok(s, d, 0.1);
        assert_int_equal(mbs_momentum(d, P, L), MBS_OK);
        for (int i = 0; i < 3; ++i)
            worst = fmax(worst, fmax(fabs(P[i] - P0[i]) / norm3(P0), fabs(L[i] - L0[i]) / norm3(L0)));
    }
    print_message("free body with a point mass: momentum drift %.2e\n", worst);
    assert_true(worst < 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Which joints are reduced: a user free joint into a point mass becomes translational; a
   point mass exactly at the spherical joint's centre is not moved by it (fixed, 0 dofs); a
   point mass whose child hangs on a spherical joint on its spin line (here at the joint
   centre) is reduced too (2 dofs: the spin moves neither); a body with inertia keeps its
   spherical joint (3 dofs). */
static void test_reduction_rules(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    int p1 = add_point_mass(b, "on_free", 1.0, 0.2, 0, 0);
    int p2 = add_point_mass(b, "at_centre", 1.0, 0.1, 0.2, 0.3);
    int p3 = add_point_mass(b, "link", 1.0, 0, 0, -1);
    mbs_body_def bd = mbs_default_body_def();
    int p4 = mbs_add_body(b, &bd);
    mbs_joint_def fj = mbs_default_joint_def(MBS_JOINT_FREE);
    fj.child = p1;
    fj.rotation = MBS_ROT_CARDAN;
    assert_int_equal(mbs_add_joint(b, &fj), 0);
    mbs_joint_def sj = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    sj.child = p2;
    sj.frame_child.pos[0] = 0.1, sj.frame_child.pos[1] = 0.2, sj.frame_child.pos[2] = 0.3;
    assert_int_equal(mbs_add_joint(b, &sj), 1);
    sj = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    sj.child = p3;
    assert_int_equal(mbs_add_joint(b, &sj), 2);
    sj.parent = p3;
    sj.child = p4;
    assert_int_equal(mbs_add_joint(b, &sj), 3);
    mbs_model *m = run_compile_ok(b);
    mbs_joint_def jd;
    assert_int_equal(mbs_model_joint_def(m, 0, &jd), MBS_OK);
    assert_int_equal(jd.type, MBS_JOINT_TRANSLATIONAL);
    assert_int_equal(mbs_model_joint_nq(m, 0), 3);
    assert_int_equal(mbs_model_joint_nv(m, 1), 0);
    assert_int_equal(mbs_model_joint_nq(m, 1), 0);
    assert_int_equal(mbs_model_joint_nv(m, 2), 2);
    assert_int_equal(mbs_model_joint_nv(m, 3), 3);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- chains of point masses */

/* Three point masses (1, 1.5, 2 kg) bent in space: on spherical joints, each mass 1 m along
   its body x from its joint centre, the next joint at the mass (rods = 0); or the same masses
   on their automatic roots (translational) joined by distance rods of 1 m (rods = 1). */
static mbs_model *point_chain(int rods)
{
    mbs_builder *b = mbs_builder_create();
    const char *names[3] = {"pm0", "pm1", "pm2"};
    for (int i = 0; i < 3; ++i) add_point_mass(b, names[i], 1.0 + 0.5 * i, rods ? 0.0 : 1.0, 0, 0);
    const double turn[2][3] = {{0, 0, 1}, {0, 1, 0}}, angle[2] = {0.5 * PI, -PI / 3.0};
    for (int i = 0; i < 3; ++i) {
        mbs_joint_def j = mbs_default_joint_def(rods ? MBS_JOINT_DISTANCE : MBS_JOINT_SPHERICAL);
        j.parent = i, j.child = i + 1, j.length = 1.0;
        if (rods && i == 0) j.frame_parent.pos[0] = 0.0;
        if (!rods && i > 0) {
            j.frame_parent.pos[0] = 1.0;
            const double *u = turn[i - 1], c = cos(angle[i - 1]), s = sin(angle[i - 1]);
            for (int r = 0; r < 3; ++r) /* Rodrigues: R = c I + s [u]x + (1 - c) u u^T */
                for (int k = 0; k < 3; ++k)
                    j.frame_parent.rot[3 * r + k] = c * (r == k) + (1 - c) * u[r] * u[k] +
                        s * (r == k ? 0.0 : ((k == (r + 1) % 3) ? -u[3 - r - k] : u[3 - r - k]));
        }
        assert_true(mbs_add_joint(b, &j) >= 0);
    }
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

/* World positions of the three masses, each at comx along its body x. */
static void chain_masses(mbs_data *d, double comx, double pos[9])
{
    for (int i = 0; i < 3; ++i) {
        double p[3], R[9];
        assert_int_equal(mbs_body_pose(d, i + 1, p, R), MBS_OK);
        for (int r = 0; r < 3; ++r) pos[3 * i + r] = p[r] + R[3 * r] * comx;
    }
}

/* The rod chain's masses put at pos (their translational roots' q). */
static void chain_place(mbs_data *d, const double pos[9])
{
    const mbs_model *m = mbs_data_model(d);
    for (int j = 0; j < mbs_model_njoint(m); ++j) {
        mbs_joint_def jd;
        assert_int_equal(mbs_model_joint_def(m, j, &jd), MBS_OK);
        if (jd.type != MBS_JOINT_TRANSLATIONAL) continue;
        memcpy(mbs_data_q(d) + mbs_model_joint_qadr(m, j), pos + 3 * (jd.child - 1),
               3 * sizeof(double));
    }
}

/* A chain of point masses on spherical joints and a point mass on a distance rod (they gave
   MBS_ERR_SINGULAR at the first forward dynamics: the spin of each mass about its own rod
   was a coordinate that moves nothing). The spherical chain gets two swing rates per mass
   (6 dofs), the rod chain translations with three distance rows; both fall from the same
   bent position under gravity and the masses agree to 2e-7 m after 1 s of RK4 at 0.125 ms, and
   the spherical chain keeps its energy to 1e-6 over 10^5 steps. */
static void test_point_mass_chains(void **state)
{
    (void)state;
    double pos[9], pos2[9];
    mbs_model *ms = point_chain(0);
    assert_int_equal(mbs_model_nv(ms), 6);
    mbs_data *ds = mbs_data_create(ms);
    chain_masses(ds, 1.0, pos);
    mbs_model *mr = point_chain(1);
    assert_int_equal(mbs_model_nv(mr), 9);
    assert_int_equal(mbs_model_ncon(mr), 3);
    mbs_data *dr = mbs_data_create(mr);
    chain_place(dr, pos);
    assert_int_equal(mbs_assemble(dr), MBS_OK);
    chain_masses(dr, 0.0, pos2);
    for (int k = 0; k < 9; ++k) assert_true(fabs(pos[k] - pos2[k]) < 1e-12);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *ss = mbs_stepper_create(ds, &def), *sr = mbs_stepper_create(dr, &def);
    const double e0 = total_energy(ds);
    for (int i = 0; i < 8000; ++i) { /* the difference: 6.0e-7, 4.3e-8 m at h = 2.5e-4,
                                        1.25e-4 (4th order: the models agree) */
        if (mbs_stepper_step(ss, 1.25e-4) != MBS_OK) fail_msg("%s", mbs_data_error(ds));
        if (mbs_stepper_step(sr, 1.25e-4) != MBS_OK) fail_msg("%s", mbs_data_error(dr));
    }
    chain_masses(ds, 1.0, pos), chain_masses(dr, 0.0, pos2);
    double worst = 0.0;
    for (int k = 0; k < 9; ++k) worst = fmax(worst, fabs(pos[k] - pos2[k]));
    print_message("point-mass chain: spherical vs distance rods after 1 s: %.2e m\n", worst);
    assert_true(worst < 2e-7);
    for (long i = 0; i < 99000; ++i)
        if (mbs_stepper_step(ss, 1e-3) != MBS_OK) fail_msg("%s", mbs_data_error(ds));
    assert_true(fabs(total_energy(ds) - e0) < 1e-6 * fabs(e0));
    mbs_stepper_destroy(ss), mbs_stepper_destroy(sr);
    mbs_data_destroy(ds), mbs_data_destroy(dr);
    mbs_model_destroy(ms), mbs_model_destroy(mr);
}

/* ---------------------------------------------------------------- translational joint */

/* A body with inertia on a user translational joint under gravity with a host force and
   torque: qacc = g + F / m exactly (the torque is carried by the joint). The same body on
   its automatic free root with a translational cut joint to the world: the rotation is
   locked (angular acceleration 0), the linear acceleration is g + F / m (1e-12), the
   reaction torque of the cut joint is -torque (1e-12). A joint spring on a translational
   dof acts along that axis. */
static void test_translational_joint(void **state)
{
    (void)state;
    const double F[3] = {1.0, -2.0, 0.5}, Tq[3] = {0.3, 0.2, -0.1}, mass = 2.0;
    for (int cut = 0; cut < 2; ++cut) {
        mbs_builder *b = mbs_builder_create();
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = mass;
        bd.inertia[0] = 0.1, bd.inertia[4] = 0.2, bd.inertia[8] = 0.25;
        int id = mbs_add_body(b, &bd);
        mbs_joint_def tj = mbs_default_joint_def(MBS_JOINT_TRANSLATIONAL);
        tj.child = id;
        tj.cut = cut;
        tj.frame_parent.pos[2] = 1.0;
        assert_int_equal(mbs_add_joint(b, &tj), 0);
        if (!cut) assert_int_equal(mbs_add_joint_spring_damper(b, 0, 2, 50.0, 0.0, 0.1), 0);
        mbs_model *m = run_compile_ok(b);
        mbs_data *d = mbs_data_create(m);
        assert_int_equal(mbs_set_body_wrench(d, id, F, Tq, NULL), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        const double *a = mbs_data_qacc(d);
        if (!cut) {
            assert_int_equal(mbs_model_nv(m), 3);
            const double ref[3] = {F[0] / mass, F[1] / mass, F[2] / mass - 9.81 + 50.0 * 0.1 / mass};
            test_assert_close(a, ref, 3, 1e-14, "translational joint: g + F / m + spring");
        } else {
            assert_int_equal(mbs_model_ncon(m), 3);
            const int v0 = mbs_model_joint_vadr(m, 1);
            const double ref[6] = {F[0] / mass, F[1] / mass, F[2] / mass - 9.81, 0, 0, 0};
            test_assert_close(a + v0, ref, 6, 1e-12, "translational cut joint: rotation locked");
            double f[3], t[3], mt[3] = {-Tq[0], -Tq[1], -Tq[2]};
            assert_int_equal(mbs_joint_reaction(d, 0, f, t), MBS_OK);
            test_assert_close(t, mt, 3, 1e-12, "translational cut joint: reaction torque");
        }
        mbs_data_destroy(d);
        mbs_model_destroy(m);
        mbs_builder_destroy(b);
    }
}

/* Bad input: an unknown joint type after the last one; a joint spring-damper on dof 3 of a
   translational joint (it has 0..2) is refused at compile, naming the element. */
static void test_bad_input(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    int id = mbs_add_body(b, &bd);
    mbs_joint_def tj = mbs_default_joint_def((mbs_joint_type)(MBS_JOINT_CURVE + 1));
    tj.child = id;
    assert_int_equal(mbs_add_joint(b, &tj), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "unknown joint type"));
    tj.type = MBS_JOINT_TRANSLATIONAL;
    assert_int_equal(mbs_add_joint(b, &tj), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 3, 1.0, 0.0, 0.0), 0);
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    assert_null(m);
    assert_non_null(strstr(mbs_builder_error(b), "dof 3 out of range"));
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- model file */

/* The text of a file (NULL if it cannot be read); the caller frees it. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Remove every element <tag .../> from text (in place): the mbs-sim elements, which a
   loader without them (before the model-file runner) would refuse. */
static void strip_element(char *text, const char *tag)
{
    char open[32];
    snprintf(open, sizeof open, "<%s ", tag);
    for (char *p = strstr(text, open); p; p = strstr(p, open)) {
        char *end = strstr(p, "/>");
        assert_non_null(end);
        memmove(p, end + 2, strlen(end + 2) + 1);
    }
}

/* models/point_gravity.xml (Fig. 7 as an mbs-sim model file; its mbs-sim elements stripped):
   two point masses on translational joints (3 / 3 each), started as its <initial> elements
   say; after one period of each orbit (2 pi sqrt(a^3 / mu), a from the vis-viva energy) the
   mass is back at its start to 1e-8, the energy kept to 1e-9. */
static void test_model_file(void **state)
{
    (void)state;
    const char *dir = getenv("MBS_MODELS");
    if (!dir) {
        print_message("MBS_MODELS not set: skipping the model-file check\n");
        skip();
    }
    char path[1024], tmp[] = "/tmp/mbs_point_gravity_XXXXXX";
    snprintf(path, sizeof path, "%s/point_gravity.xml", dir);
    char *text = read_text(path);
    assert_non_null(text);
    const char *const sim[] = {"simulation", "initial", "track", "plot"};
    for (int k = 0; k < 4; ++k) strip_element(text, sim[k]);
    const int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fputs(text, f);
    fclose(f);
    free(text);
    mbs_builder *b = mbs_builder_create();
    int st = mbs_builder_load(b, tmp);
    remove(tmp);
    if (st != MBS_OK) print_error("load: %s\n", mbs_builder_error(b));
    assert_int_equal(st, MBS_OK);
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    assert_int_equal(mbs_model_nq(m), 6);
    const double p0[2][3] = {{0, 0.6, 0}, {0.6, 0.6, 0}}, v0[2][3] = {{1, 0, 0}, {0.6, 0, 0}};
    for (int i = 0; i < 2; ++i) {
        char name[16];
        snprintf(name, sizeof name, "orbit%d", i + 1);
        const int j = mbs_model_find_joint(m, name);
        mbs_joint_def jd;
        assert_int_equal(mbs_model_joint_def(m, j, &jd), MBS_OK);
        assert_int_equal(jd.type, MBS_JOINT_TRANSLATIONAL);
        mbs_data *d = mbs_data_create(m);
        memcpy(mbs_data_q(d) + mbs_model_joint_qadr(m, j), p0[i], sizeof p0[i]);
        memcpy(mbs_data_v(d) + mbs_model_joint_vadr(m, j), v0[i], sizeof v0[i]);
        const double r = norm3(p0[i]), v = norm3(v0[i]), eps = 0.5 * v * v - 1.0 / r;
        const double a = -1.0 / (2.0 * eps), T = 2.0 * PI * sqrt(a * a * a);
        const double E0 = total_energy(d);
        mbs_stepper *s = run_stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-12, 1e-14);
        run_step_ok(s, d, T);
        const double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, j);
        double err = 0.0;
        for (int k = 0; k < 3; ++k) err = fmax(err, fabs(q[k] - p0[i][k]));
        const double dE = fabs(total_energy(d) - E0) / fabs(E0);
        print_message("models/point_gravity.xml: %s period %.4f s, back at the start to %.2e, "
                      "energy %.2e\n", name, T, err, dE);
        assert_true(err < 1e-8 && dE < 1e-9);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_file),
        cmocka_unit_test(test_fig7_kepler),
        cmocka_unit_test(test_conical_pendulum),
        cmocka_unit_test(test_spherical_pendulum_turning),
        cmocka_unit_test(test_chain_dynamics),
        cmocka_unit_test(test_free_body_momentum),
        cmocka_unit_test(test_reduction_rules),
        cmocka_unit_test(test_point_mass_chains),
        cmocka_unit_test(test_translational_joint),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
