/* Modelica modelling elements: line forces with point masses, rotors on joints,
 * nodes between line forces. Every result is checked against something independent: the
 * same mechanism built with explicit bodies, a Lagrangian assembled from the public point
 * Jacobians, closed forms, conservation of energy, and the consistency of ABA, CRBA and
 * RNEA. */
#include "common.h"
#include "elements_models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* Step d n times with RK4 of step dt. */
static void run_rk4(mbs_data *d, double dt, int n)
{
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    for (int i = 0; i < n; ++i) {
        const int st = mbs_stepper_step(s, dt);
        if (st != MBS_OK) print_error("step %d: %s\n", i, mbs_data_error(d));
        assert_int_equal(st, MBS_OK);
    }
    mbs_stepper_destroy(s);
}

/* Total energy. */
static double total_energy(mbs_data *d)
{
    double T, V;
    assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
    return T + V;
}

/* x = A^-1 b by Gaussian elimination with partial pivoting (n x n row-major, destroyed). */
static void dense_solve(int n, double *A, double *x)
{
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(A[n * r + c]) > fabs(A[n * p + c])) p = r;
        for (int k = 0; k < n; ++k) {
            double t = A[n * c + k];
            A[n * c + k] = A[n * p + k], A[n * p + k] = t;
        }
        double t = x[c];
        x[c] = x[p], x[p] = t;
        for (int r = c + 1; r < n; ++r) {
            const double l = A[n * r + c] / A[n * c + c];
            for (int k = c; k < n; ++k) A[n * r + k] -= l * A[n * c + k];
            x[r] -= l * x[c];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        for (int k = r + 1; k < n; ++k) x[r] -= A[n * r + k] * x[k];
        x[r] /= A[n * r + r];
    }
}

/* Forward dynamics, inverse dynamics, mass matrix and bias forces agree at d's state:
   qacc = M^-1 (tau - c) and RNEA(qacc) = tau (relative tol). */
static void check_consistency(mbs_data *d, double tol)
{
    const int nv = mbs_model_nv(mbs_data_model(d));
    double M[EM_NV * EM_NV], c[EM_NV], x[EM_NV], tau[EM_NV];
    assert_true(nv <= EM_NV);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
    assert_int_equal(mbs_bias_forces(d, c), MBS_OK);
    for (int i = 0; i < nv; ++i) x[i] = mbs_data_tau(d)[i] - c[i];
    dense_solve(nv, M, x);
    test_assert_close(mbs_data_qacc(d), x, nv, tol, "ABA vs CRBA + solve");
    assert_int_equal(mbs_inverse_dynamics(d, mbs_data_qacc(d), tau), MBS_OK);
    test_assert_close(tau, mbs_data_tau(d), nv, tol, "RNEA(ABA) vs tau");
}

/* ---------------------------------------------------------------- line forces with mass */

/* A point mass on a line whose ends are both points of body B (its pivot on A and a point of
   B) is a point of B: the same chain with that mass added to B's body (parallel axes) must
   move the same (1e-9 over 2 s), for one mass at a fraction and for two at distances, and
   its joints must carry the same reactions (1e-9). */
static void test_line_mass_vs_explicit_body(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; ++variant) {
        mbs_model *with = em_chain_line_mass(variant, 0), *explicit = em_chain_line_mass(variant, 1);
        mbs_data *a = mbs_data_create(with), *b = mbs_data_create(explicit);
        em_chain_start(a), em_chain_start(b);
        const double e0 = total_energy(a);
        run_rk4(a, 1e-3, 2000);
        run_rk4(b, 1e-3, 2000);
        const int nq = mbs_model_nq(with), nv = mbs_model_nv(with);
        test_assert_close(mbs_data_q(a), mbs_data_q(b), nq, 1e-9, "q: line mass vs explicit body");
        test_assert_close(mbs_data_v(a), mbs_data_v(b), nv, 1e-9, "v: line mass vs explicit body");
        assert_int_equal(mbs_forward_dynamics(a), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(b), MBS_OK);
        /* reactions: the joint whose subtree holds both ends of the line carries the whole
           point mass, as the explicit body's does; the joint the line spans (variant 0:
           the spherical one between its ends) passes only the share h of the mass's
           inertial force m (a_m - g) that acts at the child's end (the explicit body's
           carries it all), the other share acting on the parent at the joint point */
        const int whole = variant == 2 ? 1 : 0;
        double Fa[3], Ta[3], Fb[3], Tb[3];
        assert_int_equal(mbs_joint_reaction(a, whole, Fa, Ta), MBS_OK);
        assert_int_equal(mbs_joint_reaction(b, whole, Fb, Tb), MBS_OK);
        test_assert_close(Fa, Fb, 3, 1e-9, "reaction force: line mass vs explicit body");
        test_assert_close(Ta, Tb, 3, 1e-9, "reaction torque: line mass vs explicit body");
        if (variant == 0) {
            const double h = 0.35, pm = 0.4, p[3] = {0.35 * 0.8, 0.35 * 0.2, 0.35 * 0.1};
            double J[6 * 4], ab[6], am[3];
            assert_int_equal(mbs_joint_reaction(a, 1, Fa, Ta), MBS_OK);
            assert_int_equal(mbs_joint_reaction(b, 1, Fb, Tb), MBS_OK);
            assert_int_equal(mbs_point_jacobian(b, 2, p, J), MBS_OK);
            assert_int_equal(mbs_point_bias_acceleration(b, 2, p, ab), MBS_OK);
            for (int r = 0; r < 3; ++r) {
                am[r] = ab[3 + r];
                for (int k = 0; k < nv; ++k) am[r] += J[nv * (3 + r) + k] * mbs_data_qacc(b)[k];
                Fa[r] += (1.0 - h) * pm * (am[r] - EM_GRAVITY[r]);
            }
            test_assert_close(Fa, Fb, 3, 1e-9, "spanned joint: reaction + (1 - h) m (a - g)");
        }
        print_message("line mass variant %d: energy drift %.2e over 2 s\n", variant,
                      total_energy(a) - e0);
        mbs_data_destroy(a), mbs_data_destroy(b);
        mbs_model_destroy(with), mbs_model_destroy(explicit);
    }
}

/* Two pendulums on different branches joined by a spring with a point mass at h: M, c and
   qacc equal the Lagrangian built from the public point Jacobians, M' = M + m J^T J,
   c' = c + m J^T (Jdot v - g) with J = (1 - h) J_a + h J_b (1e-10). */
static void test_line_mass_lagrangian_branches(void **state)
{
    (void)state;
    const double h = 0.3, mass = 0.8;
    mbs_model *with = em_branches(mass, h, 0.0), *without = em_branches(0.0, h, 0.0);
    mbs_data *d = mbs_data_create(with), *d0 = mbs_data_create(without);
    test_rng rng;
    test_rng_seed(&rng, 7);
    for (int trial = 0; trial < 5; ++trial) {
        em_random_state(&rng, d);
        memcpy(mbs_data_q(d0), mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(with));
        memcpy(mbs_data_v(d0), mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(with));
        memcpy(mbs_data_tau(d0), mbs_data_tau(d), sizeof(double) * (size_t)mbs_model_nv(with));
        const int nv = mbs_model_nv(with);
        double M[EM_NV * EM_NV], M0[EM_NV * EM_NV], c[EM_NV], c0[EM_NV], J[3 * EM_NV] = {0};
        double Ja[6 * EM_NV], Jb[6 * EM_NV], aa[6], ab[6], jd[3], x[EM_NV];
        assert_int_equal(mbs_mass_matrix(d0, M0), MBS_OK);
        assert_int_equal(mbs_bias_forces(d0, c0), MBS_OK);
        assert_int_equal(mbs_point_jacobian(d0, 1, EM_POINT_A, Ja), MBS_OK);
        assert_int_equal(mbs_point_jacobian(d0, 2, EM_POINT_B, Jb), MBS_OK);
        assert_int_equal(mbs_point_bias_acceleration(d0, 1, EM_POINT_A, aa), MBS_OK);
        assert_int_equal(mbs_point_bias_acceleration(d0, 2, EM_POINT_B, ab), MBS_OK);
        for (int r = 0; r < 3; ++r) {
            for (int k = 0; k < nv; ++k) J[nv * r + k] = (1 - h) * Ja[nv * (3 + r) + k] + h * Jb[nv * (3 + r) + k];
            jd[r] = (1 - h) * aa[3 + r] + h * ab[3 + r] - EM_GRAVITY[r];
        }
        for (int i = 0; i < nv; ++i) {
            for (int k = 0; k < nv; ++k)
                for (int r = 0; r < 3; ++r) M0[nv * i + k] += mass * J[nv * r + i] * J[nv * r + k];
            for (int r = 0; r < 3; ++r) c0[i] += mass * J[nv * r + i] * jd[r];
        }
        assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
        assert_int_equal(mbs_bias_forces(d, c), MBS_OK);
        test_assert_close(M, M0, nv * nv, 1e-12, "M with a line mass vs Lagrangian");
        test_assert_close(c, c0, nv, 1e-12, "c with a line mass vs Lagrangian");
        for (int i = 0; i < nv; ++i) x[i] = mbs_data_tau(d)[i] - c0[i];
        dense_solve(nv, M0, x);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        test_assert_close(mbs_data_qacc(d), x, nv, 1e-10, "qacc with a line mass vs Lagrangian");
        check_consistency(d, 1e-10);
    }
    mbs_data_destroy(d), mbs_data_destroy(d0);
    mbs_model_destroy(with), mbs_model_destroy(without);
}

/* Without damping the energy of the branches with a one-mass and a two-mass line is
   conserved by RK4 (drift below 1e-8 relative over 3 s at 1 ms). */
static void test_line_mass_energy(void **state)
{
    (void)state;
    for (int two = 0; two < 2; ++two) {
        mbs_model *m = em_branches(0.8, 0.3, two ? 0.25 : 0.0);
        mbs_data *d = mbs_data_create(m);
        test_rng rng;
        test_rng_seed(&rng, 11);
        em_random_state(&rng, d);
        memset(mbs_data_tau(d), 0, sizeof(double) * (size_t)mbs_model_nv(m));
        const double e0 = total_energy(d);
        run_rk4(d, 1e-3, 3000);
        const double drift = fabs(total_energy(d) - e0) / fabs(e0);
        print_message("branches with %s: relative energy drift %.2e over 3 s\n",
                      two ? "two masses" : "one mass", drift);
        assert_true(drift < 1e-8);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* MSL SpringWithMass reference trajectory (refdata), when present. */
static void test_msl_spring_with_mass(void **state)
{
    (void)state;
    const char *dir = test_refdata_dir();
    char path[1024];
    snprintf(path, sizeof path, "%s/msl/Elementary_SpringWithMass/SpringWithMass.csv",
             dir ? dir : "");
    FILE *f = dir ? fopen(path, "r") : NULL;
    if (!f) {
        print_message("SKIP: MSL SpringWithMass reference data not found (%s)\n", path);
        skip();
        return;
    }
    fclose(f);
    print_message("SKIP: MSL SpringWithMass reference found at %s, but this version of the "
                  "test has no model of it (its parameters were not available when written)\n",
                  path);
    skip();
}

/* Bad inputs: negative mass, fraction outside [0, 1], negative distances; each its message. */
static void test_line_mass_bad_input(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    const int body = mbs_add_body(b, &(mbs_body_def){.name = "B", .mass = 1, .inertia = {1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3}});
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    assert_true(s.mass == 0.0 && s.mass_fraction == 0.5);
    s.name = "sp", s.body_b = body, s.point_a[0] = 1.0;
    s.mass = -1.0;
    assert_int_equal(mbs_add_spring_damper(b, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "mass must be >= 0"));
    s.mass = 1.0, s.mass_fraction = 1.5;
    assert_int_equal(mbs_add_spring_damper(b, &s), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "mass_fraction must be in [0, 1]"));
    s.mass_fraction = NAN;
    assert_int_equal(mbs_add_spring_damper(b, &s), MBS_ERR_ARG);
    mbs_line_force_two_masses_def t = mbs_default_line_force_two_masses_def();
    t.name = "cyl", t.body_b = body, t.point_a[0] = 1.0, t.mass_a = 1.0, t.distance_a = -0.1;
    assert_int_equal(mbs_add_line_force_two_masses(b, &t), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "\"cyl\": distance_a must be >= 0"));
    t.distance_a = 0.1, t.mass_b = -2;
    assert_int_equal(mbs_add_line_force_two_masses(b, &t), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "mass_b"));
    assert_int_equal(mbs_add_line_force_two_masses(b, NULL), MBS_ERR_ARG);
    mbs_builder_destroy(b);
}

/* A two-mass line whose ends meet: MBS_ERR_SINGULAR naming it, qacc unchanged. */
static void test_two_masses_degenerate(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "slider";
    const int body = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.child = body, v3set(j.axis, 1, 0, 0);
    assert_true(mbs_add_joint(b, &j) >= 0);
    mbs_line_force_two_masses_def t = mbs_default_line_force_two_masses_def();
    t.name = "cyl", t.body_b = body, t.mass_a = 1.0, t.distance_a = 0.1, t.stiffness = 10;
    t.point_a[0] = 1.0; /* the slider's origin reaches point_a at q = 1 */
    assert_true(mbs_add_line_force_two_masses(b, &t) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.5;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double before = mbs_data_qacc(d)[0];
    mbs_data_q(d)[0] = 1.0;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_SINGULAR);
    assert_non_null(strstr(mbs_data_error(d), "\"cyl\""));
    assert_true(mbs_data_qacc(d)[0] == before);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- rotors */

/* A revolute joint about z through the com of a body with I_zz = I0: with a rotor of inertia
   J and ratio n on the world (housing the world, or the joint's parent = the world) the
   joint's inertia is I0 + n^2 J, and qacc = tau / (I0 + n^2 J). A world-housed rotor on the
   second joint of a chain adds n^2 J to that diagonal entry only. */
static void test_rotor_fixed_housing(void **state)
{
    (void)state;
    const double I0 = 0.02, J = 3e-4, n = -40.0;
    for (int second = 0; second < 2; ++second) {
        mbs_model *m0 = em_rotor_chain(2, 1, 0);
        mbs_builder *b = mbs_builder_create();
        mbs_builder_set_no_gravity(b);
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0;
        memset(bd.inertia, 0, sizeof bd.inertia);
        bd.inertia[0] = 0.01, bd.inertia[4] = 0.015, bd.inertia[8] = I0;
        const int body = mbs_add_body(b, &bd), body2 = mbs_add_body(b, &bd);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.child = body;
        const int j0 = mbs_add_joint(b, &j);
        j.parent = body, j.child = body2, v3set(j.frame_parent.pos, 0.5, 0, 0);
        const int j1 = mbs_add_joint(b, &j);
        mbs_rotor_def r = mbs_default_rotor_def();
        r.joint = second ? j1 : j0, r.inertia = J, r.ratio = n;
        assert_int_equal(mbs_add_rotor(b, &r), 0);
        mbs_model *m = NULL;
        assert_int_equal(mbs_compile(b, &m), MBS_OK);
        mbs_data *d = mbs_data_create(m);
        double M[4];
        mbs_data_q(d)[0] = 0.4, mbs_data_q(d)[1] = -0.3;
        assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
        mbs_builder *b0 = mbs_builder_create();
        mbs_builder_set_no_gravity(b0);
        mbs_add_body(b0, &bd), mbs_add_body(b0, &bd);
        j.parent = MBS_WORLD, j.child = 1, v3set(j.frame_parent.pos, 0, 0, 0);
        mbs_add_joint(b0, &j);
        j.parent = 1, j.child = 2, v3set(j.frame_parent.pos, 0.5, 0, 0);
        mbs_add_joint(b0, &j);
        mbs_model *mb = NULL;
        assert_int_equal(mbs_compile(b0, &mb), MBS_OK);
        mbs_data *d0 = mbs_data_create(mb);
        double M0[4];
        mbs_data_q(d0)[0] = 0.4, mbs_data_q(d0)[1] = -0.3;
        assert_int_equal(mbs_mass_matrix(d0, M0), MBS_OK);
        M0[second ? 3 : 0] += n * n * J;
        test_assert_close(M, M0, 4, 1e-14, "rotor adds n^2 J");
        if (!second) {
            const double mm = 1.0 * 0.25, expect = M0[0];
            assert_true(fabs(M[0] - (I0 + I0 + mm + n * n * J)) <= 1e-13 * expect);
        }
        check_consistency(d, 1e-12);
        mbs_data_destroy(d), mbs_data_destroy(d0);
        mbs_model_destroy(m), mbs_model_destroy(mb), mbs_model_destroy(m0);
        mbs_builder_destroy(b), mbs_builder_destroy(b0);
    }
}

/* Gimbal G turning about the world z at Omega carries a rotor spinning at w about G's x axis
   (driven by a revolute, then by a cylindrical joint's angle: the native ABA path and the
   general coupling): nothing accelerates, and the world must hold the gyroscopic torque
   J w Omega y_G on G (closed form: dH/dt = J w Omega (z x x_G); plus the spindle's own
   Ix w Omega when it has inertia), 1e-12. */
static void test_rotor_gimbal_precession(void **state)
{
    (void)state;
    const double J = 0.02, Om = 2.0, w = 50.0, q1 = 0.3;
    for (int cyl = 0; cyl < 2; ++cyl) {
        mbs_builder *b = mbs_builder_create();
        mbs_builder_set_no_gravity(b);
        mbs_body_def G = mbs_default_body_def(), S = mbs_default_body_def();
        G.name = "gimbal";
        memset(G.inertia, 0, sizeof G.inertia), G.inertia[0] = G.inertia[4] = G.inertia[8] = 1.0;
        S.name = "spindle", S.mass = cyl ? 1.0 : 0.0;
        memset(S.inertia, 0, sizeof S.inertia);
        /* massless on the native path; with the cylindrical joint the rotor is a general
           coupling, which ABA does not see, so the spindle needs inertia of its own
           (symmetric about x: it adds Ix w Omega to the torque) */
        const double Ix = cyl ? 1e-3 : 0.0;
        S.inertia[0] = Ix, S.inertia[4] = S.inertia[8] = cyl ? 2e-3 : 0.0;
        const int g = mbs_add_body(b, &G), s = mbs_add_body(b, &S);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.name = "yaw", j.child = g;
        const int jy = mbs_add_joint(b, &j);
        j = mbs_default_joint_def(cyl ? MBS_JOINT_CYLINDRICAL : MBS_JOINT_REVOLUTE);
        j.name = "spin", j.parent = g, j.child = s, v3set(j.axis, 1, 0, 0);
        const int js = mbs_add_joint(b, &j);
        mbs_rotor_def r = mbs_default_rotor_def();
        r.name = "wheel", r.joint = js, r.dof = cyl ? 1 : 0, r.inertia = J, r.housing = g;
        v3set(r.axis, 1, 0, 0);
        assert_int_equal(mbs_add_rotor(b, &r), 0);
        mbs_model *m = NULL;
        assert_int_equal(mbs_compile(b, &m), MBS_OK);
        mbs_data *d = mbs_data_create(m);
        const int vs = mbs_model_joint_vadr(m, js);
        mbs_data_q(d)[0] = q1, mbs_data_v(d)[0] = Om, mbs_data_v(d)[vs + (cyl ? 1 : 0)] = w;
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        const double zero[3] = {0, 0, 0};
        test_assert_close(mbs_data_qacc(d), zero, mbs_model_nv(m), 1e-12, "gimbal qacc");
        const double H = (J + Ix) * w * Om;
        double F[3], T[3], expect[3] = {-H * sin(q1), H * cos(q1), 0.0};
        assert_int_equal(mbs_joint_reaction(d, jy, F, T), MBS_OK);
        test_assert_close(T, expect, 3, 1e-12, "gyroscopic torque J w Omega y_G");
        test_assert_close(F, zero, 3, 1e-12, "gimbal force");
        check_consistency(d, 1e-12);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
        mbs_builder_destroy(b);
    }
}

/* ABA = CRBA + solve = inverse of RNEA on chains whose rotors sit on the parent, the world,
   the child and mixed housings, with gravity and random states (1e-10). */
static void test_rotor_consistency(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 3);
    for (int housing = 0; housing < 4; ++housing) {
        mbs_model *m = em_rotor_chain(7, housing, 1);
        mbs_data *d = mbs_data_create(m);
        for (int trial = 0; trial < 4; ++trial) {
            em_random_state(&rng, d);
            check_consistency(d, 1e-10);
        }
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Energy is conserved with rotors on moving housings (mixed housings, gravity, RK4 0.5 ms,
   1 s): relative drift below 1e-7. */
static void test_rotor_energy(void **state)
{
    (void)state;
    for (int housing = 0; housing < 4; ++housing) {
        mbs_model *m = em_rotor_chain(5, housing, 1);
        mbs_data *d = mbs_data_create(m);
        test_rng rng;
        test_rng_seed(&rng, 5 + housing);
        em_random_state(&rng, d);
        memset(mbs_data_tau(d), 0, sizeof(double) * (size_t)mbs_model_nv(m));
        const double e0 = total_energy(d);
        run_rk4(d, 5e-4, 2000);
        const double drift = fabs(total_energy(d) - e0) / fabs(e0);
        print_message("rotor chain, housing kind %d: relative energy drift %.2e over 1 s\n",
                      housing, drift);
        assert_true(drift < 1e-7);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Bad rotors: each its status and message. */
static void test_rotor_bad_input(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    const int b1 = mbs_add_body(b, &bd), b2 = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = b1;
    const int j0 = mbs_add_joint(b, &j);
    j.parent = b1, j.child = b2;
    mbs_add_joint(b, &j);
    j.name = "closing", j.parent = MBS_WORLD, j.child = b2, j.cut = 1;
    const int jc = mbs_add_joint(b, &j);
    mbs_rotor_def r = mbs_default_rotor_def();
    r.name = "m1";
    assert_int_equal(mbs_add_rotor(b, &r), MBS_ERR_ARG); /* joint -1 */
    assert_non_null(strstr(mbs_builder_error(b), "rotor \"m1\": unknown joint -1"));
    r.joint = j0;
    assert_int_equal(mbs_add_rotor(b, &r), MBS_ERR_ARG); /* inertia 0 */
    assert_non_null(strstr(mbs_builder_error(b), "inertia must be > 0"));
    r.inertia = -1.0;
    assert_int_equal(mbs_add_rotor(b, &r), MBS_ERR_ARG);
    r.inertia = 1e-3, r.ratio = 0.0;
    assert_int_equal(mbs_add_rotor(b, &r), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "ratio must be nonzero"));
    r.ratio = NAN;
    assert_int_equal(mbs_add_rotor(b, &r), MBS_ERR_ARG);
    r.ratio = 2.0, v3set(r.axis, 0, 0, 0);
    assert_int_equal(mbs_add_rotor(b, &r), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "axis"));
    v3set(r.axis, 0, 0, 1), r.housing = 9;
    assert_int_equal(mbs_add_rotor(b, &r), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "housing"));
    assert_int_equal(mbs_add_rotor(b, NULL), MBS_ERR_ARG);
    r.housing = MBS_WORLD, r.dof = 1; /* out of range: found by compile */
    assert_int_equal(mbs_add_rotor(b, &r), 0);
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "rotor \"m1\": dof 1 out of range"));
    mbs_builder_destroy(b);
    b = mbs_builder_create();
    mbs_add_body(b, &bd), mbs_add_body(b, &bd);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1, mbs_add_joint(b, &j);
    j.parent = 1, j.child = 2, mbs_add_joint(b, &j);
    j.name = "closing", j.parent = MBS_WORLD, j.child = 2, j.cut = 1;
    mbs_add_joint(b, &j);
    r = mbs_default_rotor_def();
    r.name = "m2", r.joint = jc, r.inertia = 1e-3;
    assert_int_equal(mbs_add_rotor(b, &r), 0);
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "rotor \"m2\": joint \"closing\""));
    assert_non_null(strstr(mbs_builder_error(b), "cut joint"));
    mbs_builder_destroy(b);
}

/* A planar chain is planar; with a rotor it takes the 3-D path (the planar one has no
   rotors) and still gets n^2 J. */
static void test_rotor_planar_fallback(void **state)
{
    (void)state;
    mbs_model *plain = em_rotor_chain(3, 1, 0);
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    const int b1 = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = b1;
    const int j0 = mbs_add_joint(b, &j);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_is_planar(m), 1);
    mbs_model_destroy(m);
    mbs_rotor_def r = mbs_default_rotor_def();
    r.joint = j0, r.inertia = 2e-4, r.ratio = 30;
    mbs_add_rotor(b, &r);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_is_planar(m), 0);
    mbs_data *d = mbs_data_create(m);
    mbs_data_tau(d)[0] = 1.0;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double expect = 1.0 / (1e-3 + 900 * 2e-4);
    assert_true(fabs(mbs_data_qacc(d)[0] - expect) <= 1e-13 * expect);
    mbs_data_destroy(d);
    mbs_model_destroy(m), mbs_model_destroy(plain);
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- loops */

/* A four-bar with rotors (native and general) and a line mass across: the loop solver takes
   the couplings with the cut rows (Schur complement). The forward dynamics at a closed
   state satisfy the inverse dynamics (the minimum-norm tau of qacc is the projection of the
   applied tau, here 0, 1e-9), and RK4 conserves the energy (1e-7 over 1 s). */
static void test_loop_with_elements(void **state)
{
    (void)state;
    mbs_model *m = em_fourbar(1);
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[0] = 2.0;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double tau[EM_NV];
    const double zero[EM_NV] = {0};
    assert_int_equal(mbs_inverse_dynamics(d, mbs_data_qacc(d), tau), MBS_OK);
    test_assert_close(tau, zero, mbs_model_nv(m), 1e-9, "loop inverse of forward");
    const double e0 = total_energy(d);
    run_rk4(d, 1e-3, 1000);
    const double drift = fabs(total_energy(d) - e0) / fabs(e0);
    print_message("four-bar with rotors and a line mass: relative energy drift %.2e over 1 s\n",
                  drift);
    assert_true(drift < 1e-7);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- nodes */

/* Three springs in series through two nodes drive a block on a line exactly like one
   spring of the series stiffness 1 / (1/k1 + 1/k2 + 1/k3) and rest length L1 + L2 + L3
   (1e-9 over 2 s of RK4), with the same energy. */
static void test_nodes_series_springs(void **state)
{
    (void)state;
    mbs_model *ms = em_series_springs(0), *me = em_series_springs(1);
    assert_int_equal(mbs_model_nnode(ms), 2);
    assert_int_equal(mbs_model_nv(ms), 1);
    assert_int_equal(mbs_model_body_is_node(ms, 2), 1);
    assert_int_equal(mbs_model_body_is_node(ms, 1), 0);
    mbs_data *a = mbs_data_create(ms), *b = mbs_data_create(me);
    mbs_data_q(a)[0] = mbs_data_q(b)[0] = 0.9;
    mbs_data_v(a)[0] = mbs_data_v(b)[0] = 0.3;
    const double ea = total_energy(a), eb = total_energy(b);
    assert_true(fabs(ea - eb) <= 1e-12 * fabs(eb));
    run_rk4(a, 1e-3, 2000);
    run_rk4(b, 1e-3, 2000);
    test_assert_close(mbs_data_q(a), mbs_data_q(b), 1, 1e-9, "q: series vs equivalent");
    test_assert_close(mbs_data_v(a), mbs_data_v(b), 1, 1e-9, "v: series vs equivalent");
    double p[3], R[9];
    assert_int_equal(mbs_body_pose(a, 2, p, R), MBS_OK); /* node 1: k1 (x1 - 0.2) = F */
    const double F = (1.0 / (1 / 100.0 + 1 / 200.0 + 1 / 300.0)) * (mbs_data_q(a)[0] - 0.6);
    assert_true(fabs(100.0 * (p[0] - 0.2) - F) <= 1e-9 * (1.0 + fabs(F)));
    mbs_data_destroy(a), mbs_data_destroy(b);
    mbs_model_destroy(ms), mbs_model_destroy(me);
}

/* MSL ThreeSprings (Otter, Elmqvist, Mattsson 2003, §8.2): a body hung from the world by
   spring 2 from a node that springs 1 and 3 hold to two world points; without damping the
   energy is conserved (RK4 1 ms, 3 s: 1e-8 relative). */
static void test_nodes_three_springs_energy(void **state)
{
    (void)state;
    mbs_model *m = em_three_springs();
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_model_nnode(m), 1);
    assert_int_equal(mbs_model_nv(m), 6);
    mbs_data_q(d)[0] = 0.5, mbs_data_q(d)[1] = -0.3;
    const double e0 = total_energy(d);
    run_rk4(d, 1e-3, 3000);
    const double drift = fabs(total_energy(d) - e0) / fabs(e0);
    print_message("ThreeSprings: relative energy drift %.2e over 3 s\n", drift);
    assert_true(drift < 1e-8);
    double p[3], R[9];
    assert_int_equal(mbs_body_pose(d, 1, p, R), MBS_OK);
    assert_true(fabs(p[0] - 0.5) + fabs(p[1] + 0.3) + fabs(p[2]) > 0.05); /* it moved */
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Bad nodes: dangling (one element), a damper or a point mass through a node, a massless
   body touched by nothing, two aligned springs at rest (no perpendicular stiffness); a
   host wrench on a node. */
static void test_nodes_bad(void **state)
{
    (void)state;
    for (int c = 0; c < 4; ++c) {
        mbs_builder *b = mbs_builder_create();
        mbs_body_def nd = mbs_default_body_def();
        nd.name = "knot", nd.mass = 0.0;
        memset(nd.inertia, 0, sizeof nd.inertia);
        const int n = mbs_add_body(b, &nd);
        mbs_spring_damper_def s = mbs_default_spring_damper_def();
        s.body_b = n, s.stiffness = 10, s.rest_length = 0.5;
        if (c > 0) mbs_add_spring_damper(b, &s);
        if (c >= 2) {
            v3set(s.point_a, 1, 0, 0);
            s.damping = c == 2 ? 0.1 : 0.0, s.mass = c == 3 ? 0.2 : 0.0;
            mbs_add_spring_damper(b, &s);
        }
        mbs_model *m = NULL;
        assert_int_equal(mbs_compile(b, &m), MBS_ERR_TOPOLOGY);
        const char *e = mbs_builder_error(b);
        const char *want[] = {"body \"knot\": massless and touched by no joint",
                              "node \"knot\": touched by a single", "damping",
                              "point mass"};
        if (!strstr(e, want[c])) print_error("case %d: %s\n", c, e);
        assert_non_null(strstr(e, want[c]));
        mbs_builder_destroy(b);
    }
    mbs_builder *b = mbs_builder_create();
    mbs_body_def nd = mbs_default_body_def();
    nd.name = "knot", nd.mass = 0.0;
    memset(nd.inertia, 0, sizeof nd.inertia);
    const int n = mbs_add_body(b, &nd);
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    s.body_b = n, s.stiffness = 10, s.rest_length = 1.0;
    mbs_add_spring_damper(b, &s);
    v3set(s.point_a, 2, 0, 0);
    mbs_add_spring_damper(b, &s);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_SINGULAR);
    assert_non_null(strstr(mbs_data_error(d), "node \"knot\""));
    const double f[3] = {1, 0, 0};
    assert_int_equal(mbs_set_body_wrench(d, n, f, NULL, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "node"));
    double lin[3], ang[3], J[6];
    assert_int_equal(mbs_body_velocity(d, n, lin, ang), MBS_ERR_ARG);
    assert_int_equal(mbs_point_jacobian(d, n, f, J), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "node"));
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Same binary, same inputs: two data of one model stepped alike are bitwise equal (line
   masses on branches, a four-bar with rotors and a line mass, ThreeSprings' node). */
static void test_elements_deterministic(void **state)
{
    (void)state;
    mbs_model *models[3] = {em_branches(0.8, 0.3, 0.25), em_fourbar(1), em_three_springs()};
    for (int k = 0; k < 3; ++k) {
        mbs_data *d[2];
        for (int i = 0; i < 2; ++i) {
            d[i] = mbs_data_create(models[k]);
            test_rng rng;
            test_rng_seed(&rng, 21);
            if (k == 0) em_random_state(&rng, d[i]);
            if (k == 1) mbs_data_v(d[i])[0] = 2.0;
            if (k == 2) mbs_data_q(d[i])[0] = 0.5, mbs_data_q(d[i])[1] = -0.3;
            run_rk4(d[i], 1e-3, 300);
        }
        const mbs_model *m = models[k];
        assert_memory_equal(mbs_data_q(d[0]), mbs_data_q(d[1]), sizeof(double) * (size_t)mbs_model_nq(m));
        assert_memory_equal(mbs_data_v(d[0]), mbs_data_v(d[1]), sizeof(double) * (size_t)mbs_model_nv(m));
        mbs_data_destroy(d[0]), mbs_data_destroy(d[1]);
        mbs_model_destroy(models[k]);
    }
}

/* ---------------------------------------------------------------- model files */

/* Build a model from models/NAME.xml (strip_rotors: without its <rotor> elements); NULL
   (skip) when the build has no XML loader. */
static mbs_model *load_model_file(const char *name, int strip_rotors)
{
    const char *dir = getenv("MBS_MODELS");
    assert_non_null(dir);
    char path[1024], tmp[1100], line[1024];
    snprintf(path, sizeof path, "%s/%s.xml", dir, name);
    snprintf(tmp, sizeof tmp, "test_elements_%s.xml", name);
    FILE *in = fopen(path, "r"), *out = fopen(tmp, "w");
    assert_non_null(in);
    assert_non_null(out);
    int skipping = 0;
    while (fgets(line, sizeof line, in)) {
        const char *t = line + strspn(line, " ");
        if (strip_rotors && !strncmp(t, "<rotor", 6))
            skipping = 1;
        if (!skipping) fputs(line, out);
        if (skipping && strstr(line, "/>")) skipping = 0;
    }
    fclose(in), fclose(out);
    mbs_builder *b = mbs_builder_create();
    const int st = mbs_builder_load(b, tmp);
    remove(tmp);
    if (st == MBS_ERR_STATE) { /* -Dxml=disabled */
        mbs_builder_destroy(b);
        return NULL;
    }
    if (st != MBS_OK) print_error("%s: %s\n", path, mbs_builder_error(b));
    assert_int_equal(st, MBS_OK);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* models/three_springs.xml is em_three_springs (1e-9 over 1 s), with one node; the spring
   with mass conserves energy; the robot r3 with gears gets ratio^2 J on axis 1 (plus the
   axial inertia of the motors housed by links turning about the same axis at q = 0),
   stays consistent and loses energy to its servo dampers. */
static void test_model_files(void **state)
{
    (void)state;
    mbs_model *three = load_model_file("three_springs", 0);
    if (!three) {
        print_message("SKIP: this build has no model-file loader\n");
        skip();
        return;
    }
    mbs_model *ref = em_three_springs();
    assert_int_equal(mbs_model_nnode(three), 1);
    mbs_data *a = mbs_data_create(three), *b = mbs_data_create(ref);
    mbs_data_q(a)[0] = mbs_data_q(b)[0] = 0.5, mbs_data_q(a)[1] = mbs_data_q(b)[1] = -0.3;
    run_rk4(a, 1e-3, 1000), run_rk4(b, 1e-3, 1000);
    test_assert_close(mbs_data_q(a), mbs_data_q(b), 7, 1e-9, "three_springs.xml vs C");
    mbs_data_destroy(a), mbs_data_destroy(b), mbs_model_destroy(ref), mbs_model_destroy(three);

    mbs_model *sw = load_model_file("spring_with_mass", 0);
    mbs_data *d = mbs_data_create(sw);
    const double e0 = total_energy(d);
    run_rk4(d, 1e-3, 2000);
    assert_true(fabs(total_energy(d) - e0) <= 1e-8 * fabs(e0) + 1e-10);
    check_consistency(d, 1e-10);
    mbs_data_destroy(d), mbs_model_destroy(sw);

    mbs_model *r3 = load_model_file("robot_r3", 0);
    assert_int_equal(mbs_model_nrotor(r3), 6);
    d = mbs_data_create(r3);
    double M[EM_NV * EM_NV];
    assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
    const double M00 = M[0];
    mbs_model *plain = load_model_file("robot_r3", 1);
    mbs_data *d0 = mbs_data_create(plain);
    assert_int_equal(mbs_mass_matrix(d0, M), MBS_OK);
    const double add = 105.0 * 105.0 * 0.0013 + 1.6e-4 + 4.3e-5;
    assert_true(fabs(M00 - M[0] - add) <= 1e-12 * M00);
    const double er = total_energy(d);
    run_rk4(d, 1e-3, 500);
    assert_true(total_energy(d) < er);
    check_consistency(d, 1e-10);
    mbs_data_destroy(d), mbs_data_destroy(d0);
    mbs_model_destroy(r3), mbs_model_destroy(plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_mass_vs_explicit_body),
        cmocka_unit_test(test_line_mass_lagrangian_branches),
        cmocka_unit_test(test_line_mass_energy),
        cmocka_unit_test(test_msl_spring_with_mass),
        cmocka_unit_test(test_line_mass_bad_input),
        cmocka_unit_test(test_two_masses_degenerate),
        cmocka_unit_test(test_rotor_fixed_housing),
        cmocka_unit_test(test_rotor_gimbal_precession),
        cmocka_unit_test(test_rotor_consistency),
        cmocka_unit_test(test_rotor_energy),
        cmocka_unit_test(test_rotor_bad_input),
        cmocka_unit_test(test_rotor_planar_fallback),
        cmocka_unit_test(test_loop_with_elements),
        cmocka_unit_test(test_nodes_series_springs),
        cmocka_unit_test(test_nodes_three_springs_energy),
        cmocka_unit_test(test_nodes_bad),
        cmocka_unit_test(test_elements_deterministic),
        cmocka_unit_test(test_model_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
