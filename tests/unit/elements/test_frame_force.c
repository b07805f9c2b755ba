/* Force and torque between two frames (Otter, Elmqvist, Mattsson 2003, §8; MSL
 * ForceAndTorque, WorldForce, FrameForce) and the line force with a user law (§8.1). Checked
 * against: the same force rotated by hand in a force callback, conservation of the momentum
 * of the whole system under an internal force (action = reaction), closed-form motions under
 * world forces, the built-in spring-damper (bitwise), energy with a conservative law, and
 * every bad input. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include "run_helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

/* A rigid body with a full inertia tensor (principal moments 0.2, 0.3, 0.4 about tilted axes). */
static int add_rigid_body(mbs_builder *b, double mass, double cx)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = mass;
    bd.com[0] = cx, bd.com[1] = 0.05, bd.com[2] = -0.02;
    const double I[9] = {0.3, 0.02, -0.01, 0.02, 0.25, 0.03, -0.01, 0.03, 0.35};
    memcpy(bd.inertia, I, sizeof I);
    int id = mbs_add_body(b, &bd);
    assert_true(id > 0);
    return id;
}

/* A rotation about a unit axis (x, y, z) by angle a, row-major. */
static void axis_rotation(double x, double y, double z, double a, double R[9])
{
    const double c = cos(a), s = sin(a), t = 1.0 - c;
    const double M[9] = {t * x * x + c, t * x * y - s * z, t * x * z + s * y,
                         t * x * y + s * z, t * y * y + c, t * y * z - s * x,
                         t * x * z - s * y, t * y * z + s * x, t * z * z + c};
    memcpy(R, M, sizeof M);
}

static void mat3_vec(const double R[9], const double x[3], double y[3])
{
    for (int i = 0; i < 3; ++i) y[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

static void mat3_mul(const double A[9], const double B[9], double C[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* ---------------------------------------------------------------- resolved in frame_b */

static const double FB_POS[3] = {0.3, -0.2, 0.1};
static const double FB_F[3] = {1.5, -0.5, 2.0}, FB_T[3] = {0.2, 0.4, -0.3};

/* Callback applying the frame_b force rotated by hand: F = R_body R_frame f at the frame's
   origin, T = R_body R_frame t. user: the frame rotation. */
static int by_hand(mbs_data *d, void *user)
{
    const double *Rf = user;
    double p[3], Rb[9], R[9], F[3], T[3];
    assert_int_equal(mbs_body_pose(d, 1, p, Rb), MBS_OK);
    mat3_mul(Rb, Rf, R);
    mat3_vec(R, FB_F, F);
    mat3_vec(R, FB_T, T);
    return mbs_apply_body_wrench(d, 1, F, T, FB_POS);
}

/* A spinning body (automatic free root, no gravity) with a force and torque fixed in a frame
   on it (resolved in frame_b, world as frame_a), against the same force rotated by hand in a
   force callback: equal accelerations at the start (1e-14) and trajectories within 1e-12
   after 1 s of RK4 at 1 ms while the body turns about 2 rad. */
static void test_resolved_in_frame_b(void **state)
{
    (void)state;
    double Rf[9];
    axis_rotation(0.6, 0.0, 0.8, 0.7, Rf);
    mbs_data *d[2];
    mbs_model *m[2];
    for (int k = 0; k < 2; ++k) {
        mbs_builder *b = mbs_builder_create();
        assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
        add_rigid_body(b, 2.0, 0.1);
        if (k == 0) {
            mbs_frame_force_def fd = mbs_default_frame_force_def();
            fd.name = "thruster";
            fd.body_b = 1;
            memcpy(fd.frame_b.pos, FB_POS, sizeof FB_POS);
            memcpy(fd.frame_b.rot, Rf, sizeof Rf);
            memcpy(fd.force, FB_F, sizeof FB_F);
            memcpy(fd.torque, FB_T, sizeof FB_T);
            assert_int_equal(mbs_add_frame_force(b, &fd), 0);
        } else {
            assert_int_equal(mbs_add_force_callback(b, "by hand", by_hand, Rf), 0);
        }
        m[k] = run_compile_ok(b);
        mbs_builder_destroy(b);
        d[k] = mbs_data_create(m[k]);
        double *v = mbs_data_v(d[k]);
        v[3] = 1.0, v[4] = -2.0, v[5] = 1.5; /* spin */
        v[0] = 0.3;
        assert_int_equal(mbs_forward_dynamics(d[k]), MBS_OK);
    }
    test_assert_close(mbs_data_qacc(d[0]), mbs_data_qacc(d[1]), 6, 1e-14, "frame_b force vs by hand");
    mbs_stepper *s0 = run_stepper_ok(d[0], MBS_STEP_RK4, 1e-6, 1e-8);
    mbs_stepper *s1 = run_stepper_ok(d[1], MBS_STEP_RK4, 1e-6, 1e-8);
    for (int i = 0; i < 1000; ++i) {
        run_step_ok(s0, d[0], 1e-3);
        run_step_ok(s1, d[1], 1e-3);
    }
    test_assert_close(mbs_data_q(d[0]), mbs_data_q(d[1]), 7, 1e-12, "q: frame_b force vs by hand");
    test_assert_close(mbs_data_v(d[0]), mbs_data_v(d[1]), 6, 1e-12, "v: frame_b force vs by hand");
    for (int k = 0; k < 2; ++k) mbs_data_destroy(d[k]), mbs_model_destroy(m[k]);
    mbs_stepper_destroy(s0);
    mbs_stepper_destroy(s1);
}

/* ---------------------------------------------------------------- action = reaction */

/* A time-varying value for the callback mode: f = (sin 3t, cos 2t, 0.5), t = (0.2, -0.1 t, 0.3). */
static int varying(mbs_data *d, double t, double force[3], double torque[3], void *user)
{
    (void)d;
    (void)user;
    force[0] = sin(3.0 * t), force[1] = cos(2.0 * t), force[2] = 0.5;
    torque[0] = 0.2, torque[1] = -0.1 * t, torque[2] = 0.3;
    return 0;
}

/* |sum_i m_i a_com_i| over the bodies at the data's state after forward dynamics: the rate of
   the linear momentum, a_com = J qacc + Jdot v at each centre of mass. */
static double momentum_rate(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    const int nv = mbs_model_nv(m);
    double J[6 * 12], a[6], rate[3] = {0, 0, 0};
    assert_true(nv <= 12);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    for (int body = 1; body < mbs_model_nbody(m); ++body) {
        mbs_body_def bd;
        assert_int_equal(mbs_model_body_def(m, body, &bd), MBS_OK);
        assert_int_equal(mbs_point_jacobian(d, body, bd.com, J), MBS_OK);
        assert_int_equal(mbs_point_bias_acceleration(d, body, bd.com, a), MBS_OK);
        for (int r = 3; r < 6; ++r) {
            double x = a[r];
            for (int k = 0; k < nv; ++k) x += J[nv * r + k] * mbs_data_qacc(d)[k];
            rate[r - 3] += bd.mass * x;
        }
    }
    return fmax(fabs(rate[0]), fmax(fabs(rate[1]), fabs(rate[2])));
}

/* Two free bodies joined only by a two-frame force (no gravity), for each resolve option and
   with a constant value or a callback: the force is internal, so the rate of the linear
   momentum sum m a_com vanishes at the start (1e-13), and the linear momentum and the angular
   momentum about the world origin of the whole system stay at their start values (1e-10)
   over 2 s of CVODE Adams (rtol 1e-13) while the bodies are pushed around. */
static void test_action_reaction(void **state)
{
    (void)state;
    for (int resolve = 0; resolve < 3; ++resolve)
        for (int cb = 0; cb < 2; ++cb) {
            mbs_builder *b = mbs_builder_create();
            assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
            int a = add_rigid_body(b, 1.5, 0.1), c = add_rigid_body(b, 0.8, -0.2);
            mbs_frame_force_def fd = mbs_default_frame_force_def();
            fd.body_a = a;
            fd.body_b = c;
            fd.frame_a.pos[0] = 0.4;
            axis_rotation(0.0, 1.0, 0.0, 0.5, fd.frame_a.rot);
            fd.frame_b.pos[1] = -0.3;
            axis_rotation(1.0, 0.0, 0.0, -0.4, fd.frame_b.rot);
            fd.resolve = (mbs_resolve)resolve;
            fd.force[0] = 1.0, fd.force[1] = 2.0, fd.force[2] = -0.5;
            fd.torque[0] = 0.3, fd.torque[2] = -0.2;
            if (cb) fd.fn = varying;
            assert_int_equal(mbs_add_frame_force(b, &fd), 0);
            mbs_model *m = run_compile_ok(b);
            mbs_builder_destroy(b);
            mbs_data *d = mbs_data_create(m);
            double *q = mbs_data_q(d), *v = mbs_data_v(d);
            q[7] = 1.0; /* the second body starts 1 m away */
            v[0] = 0.2, v[4] = 0.5, v[9] = -0.4, v[11] = 0.7;
            double P0[3], L0[3], P[3], L[3];
            assert_int_equal(mbs_momentum(d, P0, L0), MBS_OK);
            assert_true(momentum_rate(d) < 1e-13);
            mbs_stepper *s = run_stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-13, 1e-14);
            double worst = 0.0, moved = 0.0;
            for (int k = 0; k < 20; ++k) {
                run_step_ok(s, d, 0.1);
                assert_int_equal(mbs_momentum(d, P, L), MBS_OK);
                for (int i = 0; i < 3; ++i)
                    worst = fmax(worst, fmax(fabs(P[i] - P0[i]), fabs(L[i] - L0[i])));
            }
            for (int i = 0; i < 6; ++i) moved = fmax(moved, fabs(v[i]));
            print_message("internal frame force (resolve %d, %s): momentum change %.2e, body "
                          "speed up to %.2f\n", resolve, cb ? "callback" : "constant", worst, moved);
            assert_true(worst < 1e-10);
            assert_true(moved > 1.0); /* the force did act */
            mbs_stepper_destroy(s);
            mbs_data_destroy(d);
            mbs_model_destroy(m);
        }
}

/* ---------------------------------------------------------------- world forces, inputs */

/* A body on a prismatic joint along x pushed by a world force (body_a = world, resolved in
   world): x(t) in closed form. Callback f = sin 3t: m x'' = sin 3t, x = (t/3 - sin(3t)/9) / m.
   Host input: F1 = 2 until t = 0.5, then F2 = -1 set between steps (the CVODE kinds restart
   there): x = F1 t^2 / 2m, then x(0.5) + v(0.5) (t - 0.5) + F2 (t - 0.5)^2 / 2m. Both to 1e-9
   with CVODE BDF and Adams; a set value is kept bitwise (RK4 x'' = F / m). */
static void test_world_force_closed_form(void **state)
{
    (void)state;
    const double mass = 1.7;
    for (int mode = 0; mode < 2; ++mode)
        for (int kind = MBS_STEP_CVODE_ADAMS; kind <= MBS_STEP_CVODE_BDF; ++kind) {
            mbs_builder *b = mbs_builder_create();
            mbs_body_def bd = mbs_default_body_def();
            bd.mass = mass;
            int id = mbs_add_body(b, &bd);
            mbs_joint_def pj = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
            pj.child = id;
            pj.axis[0] = 1, pj.axis[1] = 0, pj.axis[2] = 0;
            assert_int_equal(mbs_add_joint(b, &pj), 0);
            mbs_frame_force_def fd = mbs_default_frame_force_def();
            fd.body_b = id;
            fd.resolve = MBS_RESOLVE_WORLD;
            if (mode == 0) fd.fn = varying; /* f_x = sin 3t */
            else fd.force[0] = 2.0;
            assert_int_equal(mbs_add_frame_force(b, &fd), 0);
            mbs_model *m = run_compile_ok(b);
            mbs_builder_destroy(b);
            mbs_data *d = mbs_data_create(m);
            mbs_stepper *s = run_stepper_ok(d, (mbs_stepper_kind)kind, 1e-11, 1e-13);
            double worst = 0.0;
            for (int k = 1; k <= 20; ++k) {
                if (mode == 1 && k == 11) {
                    const double f2[3] = {-1.0, 0.0, 0.0};
                    assert_int_equal(mbs_set_frame_force(d, 0, f2, NULL), MBS_OK);
                }
                run_step_ok(s, d, 0.05);
                const double t = mbs_data_time(d);
                double x;
                if (mode == 0) {
                    x = (t / 3.0 - sin(3.0 * t) / 9.0) / mass;
                } else if (t <= 0.5 + 1e-12) {
                    x = 2.0 * t * t / (2.0 * mass);
                } else {
                    const double x5 = 0.25 / mass, v5 = 1.0 / mass, u = t - 0.5;
                    x = x5 + v5 * u - u * u / (2.0 * mass);
                }
                worst = fmax(worst, fabs(mbs_data_q(d)[0] - x));
            }
            print_message("world force (%s), %s: x vs closed form %.2e\n",
                          mode ? "host input" : "callback",
                          kind == MBS_STEP_CVODE_BDF ? "BDF" : "Adams", worst);
            assert_true(worst < 1e-9);
            mbs_stepper_destroy(s);
            mbs_data_destroy(d);
            mbs_model_destroy(m);
        }
}

/* ---------------------------------------------------------------- user line law */

typedef struct sd_params { double k, d, L0, k3; } sd_params;

/* k (L - L0) + d dL/dt: the built-in spring-damper's law. */
static int linear_law(double L, double rate, double t, double *tension, void *user)
{
    const sd_params *p = user;
    (void)t;
    *tension = p->k * (L - p->L0) + p->d * rate;
    return 0;
}

/* A hardening spring k s + k3 s^3, s = L - L0, and its potential k s^2 / 2 + k3 s^4 / 4. */
static int cubic_law(double L, double rate, double t, double *tension, void *user)
{
    const sd_params *p = user;
    const double s = L - p->L0;
    (void)rate;
    (void)t;
    *tension = p->k * s + p->k3 * s * s * s;
    return 0;
}
static double cubic_potential(double L, void *user)
{
    const sd_params *p = user;
    const double s = L - p->L0;
    return 0.5 * p->k * s * s + 0.25 * p->k3 * s * s * s * s;
}

/* A rigid body on its free root hanging from two world points: one line element is either the
   built-in spring-damper or a user law; the other always a spring-damper (gravity on). */
static mbs_model *hanging_body(int user_law, mbs_line_law law, mbs_line_potential pot,
                               sd_params *p)
{
    mbs_builder *b = mbs_builder_create();
    int id = add_rigid_body(b, 1.2, 0.1);
    const double pa[3] = {0.0, 0.0, 1.0}, pb[3] = {0.2, 0.1, 0.0};
    if (user_law) {
        mbs_line_force_def ld = mbs_default_line_force_def();
        ld.name = "user";
        ld.body_b = id;
        memcpy(ld.point_a, pa, sizeof pa);
        memcpy(ld.point_b, pb, sizeof pb);
        ld.law = law;
        ld.potential = pot;
        ld.user = p;
        assert_int_equal(mbs_add_line_force(b, &ld), 0);
    } else {
        mbs_spring_damper_def sd = mbs_default_spring_damper_def();
        sd.body_b = id;
        memcpy(sd.point_a, pa, sizeof pa);
        memcpy(sd.point_b, pb, sizeof pb);
        sd.stiffness = p->k, sd.damping = p->d, sd.rest_length = p->L0;
        assert_int_equal(mbs_add_spring_damper(b, &sd), 0);
    }
    mbs_spring_damper_def s2 = mbs_default_spring_damper_def();
    s2.body_b = id;
    s2.point_a[0] = 0.5, s2.point_a[2] = 1.0;
    s2.point_b[0] = -0.1;
    s2.stiffness = 80.0, s2.rest_length = 0.8;
    assert_int_equal(mbs_add_spring_damper(b, &s2), 1);
    mbs_model *m = run_compile_ok(b);
    mbs_builder_destroy(b);
    return m;
}

/* Start state of the hanging body: displaced and turning. */
static void hanging_start(mbs_data *d)
{
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    q[0] = 0.1, q[1] = -0.2, q[2] = 0.3;
    v[0] = 0.5, v[3] = 1.0, v[4] = -0.5, v[5] = 0.8;
}

/* The user law k (L - L0) + d dL/dt gives bitwise the trajectory of the built-in
   spring-damper with k, d, L0 (RK4, 1000 steps of 1 ms). */
static void test_line_law_equals_spring_damper(void **state)
{
    (void)state;
    sd_params p = {150.0, 3.0, 0.7, 0.0};
    mbs_model *m[2];
    mbs_data *d[2];
    mbs_stepper *s[2];
    for (int k = 0; k < 2; ++k) {
        m[k] = hanging_body(k, linear_law, NULL, &p);
        d[k] = mbs_data_create(m[k]);
        hanging_start(d[k]);
        s[k] = run_stepper_ok(d[k], MBS_STEP_RK4, 1e-6, 1e-8);
    }
    for (int i = 0; i < 1000; ++i)
        for (int k = 0; k < 2; ++k) run_step_ok(s[k], d[k], 1e-3);
    assert_memory_equal(mbs_data_q(d[0]), mbs_data_q(d[1]), 7 * sizeof(double));
    assert_memory_equal(mbs_data_v(d[0]), mbs_data_v(d[1]), 6 * sizeof(double));
    for (int k = 0; k < 2; ++k) {
        mbs_stepper_destroy(s[k]);
        mbs_data_destroy(d[k]);
        mbs_model_destroy(m[k]);
    }
}

/* A conservative user law (hardening spring with its potential): mbs_energy counts the
   potential (equal to the hand-computed one at the start, 1e-15) and the total energy stays
   within 1e-9 relative over 3 s of CVODE Adams (rtol 1e-11); without the potential callback
   the reported potential is smaller by exactly V(L). */
static void test_line_law_energy(void **state)
{
    (void)state;
    sd_params p = {60.0, 0.0, 0.7, 400.0};
    mbs_model *m = hanging_body(1, cubic_law, cubic_potential, &p);
    mbs_model *m0 = hanging_body(1, cubic_law, NULL, &p);
    mbs_data *d = mbs_data_create(m), *d0 = mbs_data_create(m0);
    hanging_start(d);
    hanging_start(d0);
    double T, V, T0, V0, pos[3], R[9], pb[3];
    assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
    assert_int_equal(mbs_energy(d0, &T0, &V0), MBS_OK);
    assert_int_equal(mbs_body_pose(d, 1, pos, R), MBS_OK);
    const double lb[3] = {0.2, 0.1, 0.0};
    mat3_vec(R, lb, pb);
    const double dx = pos[0] + pb[0], dy = pos[1] + pb[1], dz = pos[2] + pb[2] - 1.0;
    const double Vlaw = cubic_potential(sqrt(dx * dx + dy * dy + dz * dz), &p);
    assert_true(fabs((V - V0) - Vlaw) <= 1e-15 * (1.0 + fabs(V)));
    assert_true(T == T0);
    const double E0 = T + V;
    mbs_stepper *s = run_stepper_ok(d, MBS_STEP_CVODE_ADAMS, 1e-11, 1e-13);
    double worst = 0.0;
    for (int k = 0; k < 30; ++k) {
        run_step_ok(s, d, 0.1);
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        worst = fmax(worst, fabs(T + V - E0) / fabs(E0));
    }
    print_message("conservative user line law: energy drift %.2e\n", worst);
    assert_true(worst < 1e-9);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_data_destroy(d0);
    mbs_model_destroy(m);
    mbs_model_destroy(m0);
}

/* ---------------------------------------------------------------- failures */

static int failing_law(double L, double rate, double t, double *tension, void *user)
{
    (void)L, (void)rate, (void)t;
    const int mode = *(const int *)user;
    *tension = mode == 0 ? NAN : 1.0;
    return mode == 0 ? 0 : mode;
}

/* Inside its callback a frame force may query poses but not run dynamics. */
static int nesting(mbs_data *d, double t, double force[3], double torque[3], void *user)
{
    double p[3], R[9];
    (void)t;
    int *seen = user;
    memset(force, 0, 3 * sizeof(double));
    memset(torque, 0, 3 * sizeof(double));
    seen[0] = mbs_body_pose(d, 1, p, R);
    seen[1] = mbs_forward_dynamics(d);
    return 0;
}

/* Bad definitions are refused with MBS_ERR_ARG and a message naming the element, the builder
   unchanged; bad inputs leave the value as it was; failing laws and callbacks give
   MBS_ERR_CALLBACK / MBS_ERR_NONFINITE naming the element; nested dynamics inside a frame
   force callback is refused (MBS_ERR_STATE) while kinematic queries work. */
static void test_bad_input(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    int id = add_rigid_body(b, 1.0, 0.0);
    mbs_frame_force_def fd = mbs_default_frame_force_def();
    fd.name = "ff";
    assert_int_equal(mbs_add_frame_force(b, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_add_frame_force(NULL, &fd), MBS_ERR_ARG);
    assert_int_equal(mbs_add_frame_force(b, &fd), MBS_ERR_ARG); /* body_b -1 */
    assert_non_null(strstr(mbs_builder_error(b), "frame force \"ff\": body_b -1"));
    fd.body_b = MBS_WORLD;
    assert_int_equal(mbs_add_frame_force(b, &fd), MBS_ERR_ARG);
    fd.body_b = id;
    fd.body_a = id;
    assert_int_equal(mbs_add_frame_force(b, &fd), MBS_ERR_ARG);
    fd.body_a = 7;
    assert_int_equal(mbs_add_frame_force(b, &fd), MBS_ERR_ARG);
    fd.body_a = MBS_WORLD;
    fd.frame_b.rot[0] = -1.0; /* a reflection */
    assert_int_equal(mbs_add_frame_force(b, &fd), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "frame_b rotation"));
    fd.frame_b.rot[0] = 1.0;
    fd.frame_a.pos[1] = NAN;
    assert_int_equal(mbs_add_frame_force(b, &fd), MBS_ERR_ARG);
    fd.frame_a.pos[1] = 0.0;
    fd.resolve = (mbs_resolve)3;
    assert_int_equal(mbs_add_frame_force(b, &fd), MBS_ERR_ARG);
    fd.resolve = MBS_RESOLVE_WORLD;
    fd.torque[2] = INFINITY;
    assert_int_equal(mbs_add_frame_force(b, &fd), MBS_ERR_ARG);
    fd.torque[2] = 0.0;
    fd.force[2] = 3.0;
    assert_int_equal(mbs_add_frame_force(b, &fd), 0);
    mbs_line_force_def ld = mbs_default_line_force_def();
    ld.body_b = id;
    assert_int_equal(mbs_add_line_force(b, &ld), MBS_ERR_ARG); /* no law */
    assert_non_null(strstr(mbs_builder_error(b), "law is NULL"));
    ld.law = failing_law;
    ld.body_a = 9;
    assert_int_equal(mbs_add_line_force(b, &ld), MBS_ERR_ARG);
    ld.body_a = id;
    assert_int_equal(mbs_add_line_force(b, &ld), MBS_ERR_ARG); /* same point */
    ld.body_a = MBS_WORLD;
    ld.point_a[0] = NAN;
    assert_int_equal(mbs_add_line_force(b, &ld), MBS_ERR_ARG);
    ld.point_a[0] = 0.0, ld.point_a[2] = 1.0;
    int mode = 0, seen[2] = {-1, -1};
    ld.user = &mode;
    assert_int_equal(mbs_add_line_force(b, &ld), 1);
    mbs_frame_force_def nd = mbs_default_frame_force_def();
    nd.body_b = id;
    nd.fn = nesting;
    nd.user = seen;
    assert_int_equal(mbs_add_frame_force(b, &nd), 2);
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = run_compile_ok(b);
    assert_int_equal(mbs_model_nforce(m), 3);
    mbs_data *d = mbs_data_create(m);
    /* the law's failures */
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "line force #1"));
    mode = 1;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_CALLBACK);
    assert_non_null(strstr(mbs_data_error(d), "recoverable"));
    mode = -2;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_CALLBACK);
    assert_non_null(strstr(mbs_data_error(d), "fatal"));
    /* host inputs */
    const double f[3] = {1.0, 2.0, 3.0}, bad[3] = {0.0, NAN, 0.0};
    assert_int_equal(mbs_set_frame_force(NULL, 0, f, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_set_frame_force(d, 3, f, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_set_frame_force(d, -1, f, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_set_frame_force(d, 1, f, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "not a frame force"));
    assert_int_equal(mbs_set_frame_force(d, 2, f, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "callback"));
    assert_int_equal(mbs_set_frame_force(d, 0, bad, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_set_frame_force(d, 0, NULL, bad), MBS_ERR_ARG);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);

    /* the value stays after a refused input; nesting refused inside a frame-force callback */
    b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0;
    id = mbs_add_body(b, &bd);
    fd = mbs_default_frame_force_def();
    fd.body_b = id;
    fd.resolve = MBS_RESOLVE_WORLD;
    fd.force[0] = 4.0;
    assert_int_equal(mbs_add_frame_force(b, &fd), 0);
    assert_int_equal(mbs_add_frame_force(b, &nd), 1);
    m = run_compile_ok(b);
    d = mbs_data_create(m);
    assert_int_equal(mbs_set_frame_force(d, 0, bad, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_true(fabs(mbs_data_qacc(d)[0] - 2.0) < 1e-15);
    assert_int_equal(seen[0], MBS_OK);
    assert_int_equal(seen[1], MBS_ERR_STATE);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- model files */

/* Load the superset text into a new builder (through a temporary file); the status. */
static int load_text(mbs_builder *b, const char *text)
{
    char tmp[] = "/tmp/mbs_frame_force_XXXXXX";
    const int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fputs(text, f);
    fclose(f);
    const int st = mbs_builder_load(b, tmp);
    remove(tmp);
    return st;
}

static const char FILE_HEAD[] =
    "<robot name=\"r\">\n"
    "  <gravity none=\"true\"/>\n"
    "  <link name=\"world\"/>\n"
    "  <link name=\"a\"><inertial><mass value=\"1.5\"/>"
    "<inertia ixx=\"0.3\" ixy=\"0\" ixz=\"0\" iyy=\"0.25\" iyz=\"0\" izz=\"0.35\"/></inertial></link>\n"
    "  <link name=\"b\"><inertial><mass value=\"0.8\"/>"
    "<inertia ixx=\"0.3\" ixy=\"0\" ixz=\"0\" iyy=\"0.25\" iyz=\"0\" izz=\"0.35\"/></inertial></link>\n"
    "  <joint name=\"fa\" type=\"free\"><parent link=\"world\"/><child link=\"a\"/></joint>\n"
    "  <joint name=\"fb\" type=\"free\"><parent link=\"world\"/><child link=\"b\"/>"
    "<origin xyz=\"1 0 0\"/></joint>\n";

/* <frame_force> in a model file builds the element the C API builds (forward dynamics
   bitwise equal at a moving state; the host input then changes both alike); a bad resolve
   value or a missing link_b is refused naming the line. */
static void test_model_file(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof text, "%s"
             "  <frame_force name=\"push\" link_a=\"a\" link_b=\"b\" resolve=\"frame_a\" "
             "force=\"1 2 -0.5\" torque=\"0.3 0 -0.2\">\n"
             "    <origin_a xyz=\"0.4 0 0\" rpy=\"0 0.5 0\"/>\n"
             "    <origin_b xyz=\"0 -0.3 0\" rpy=\"-0.4 0 0\"/>\n"
             "  </frame_force>\n</robot>\n", FILE_HEAD);
    mbs_builder *bf = mbs_builder_create();
    int st = load_text(bf, text);
    if (st != MBS_OK) print_error("load: %s\n", mbs_builder_error(bf));
    assert_int_equal(st, MBS_OK);
    mbs_model *mf = run_compile_ok(bf);
    mbs_builder *bc = mbs_builder_create();
    assert_int_equal(mbs_builder_set_no_gravity(bc), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.inertia[0] = 0.3, bd.inertia[4] = 0.25, bd.inertia[8] = 0.35;
    bd.mass = 1.5;
    assert_int_equal(mbs_add_body(bc, &bd), 1);
    bd.mass = 0.8;
    assert_int_equal(mbs_add_body(bc, &bd), 2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_FREE);
    j.child = 1;
    assert_int_equal(mbs_add_joint(bc, &j), 0);
    j.child = 2, j.frame_parent.pos[0] = 1.0;
    assert_int_equal(mbs_add_joint(bc, &j), 1);
    mbs_frame_force_def fd = mbs_default_frame_force_def();
    fd.body_a = 1, fd.body_b = 2, fd.resolve = MBS_RESOLVE_FRAME_A;
    fd.frame_a.pos[0] = 0.4;
    axis_rotation(0.0, 1.0, 0.0, 0.5, fd.frame_a.rot);
    fd.frame_b.pos[1] = -0.3;
    axis_rotation(1.0, 0.0, 0.0, -0.4, fd.frame_b.rot);
    fd.force[0] = 1.0, fd.force[1] = 2.0, fd.force[2] = -0.5;
    fd.torque[0] = 0.3, fd.torque[2] = -0.2;
    assert_int_equal(mbs_add_frame_force(bc, &fd), 0);
    mbs_model *mc = run_compile_ok(bc);
    mbs_data *d[2] = {mbs_data_create(mf), mbs_data_create(mc)};
    const double f2[3] = {0.0, -1.0, 3.0};
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 0; k < 2; ++k) {
            test_rng r;
            test_rng_seed(&r, 4);
            test_random_state(&r, d[k], 1.0, 1.0, 0.0);
            if (pass) assert_int_equal(mbs_set_frame_force(d[k], 0, f2, NULL), MBS_OK);
            assert_int_equal(mbs_forward_dynamics(d[k]), MBS_OK);
        }
        test_assert_close(mbs_data_qacc(d[0]), mbs_data_qacc(d[1]), 12, 1e-14,
                          "<frame_force> vs mbs_add_frame_force");
    }
    assert_string_equal(mbs_model_joint_name(mf, 0), "fa");
    for (int k = 0; k < 2; ++k) mbs_data_destroy(d[k]);
    mbs_model_destroy(mf);
    mbs_model_destroy(mc);
    mbs_builder_destroy(bc);
    mbs_builder_destroy(bf);

    mbs_builder *b = mbs_builder_create();
    snprintf(text, sizeof text, "%s  <frame_force link_b=\"b\" resolve=\"body\"/>\n</robot>\n",
             FILE_HEAD);
    assert_int_equal(load_text(b, text), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "resolve=\"body\""));
    snprintf(text, sizeof text, "%s  <frame_force link_a=\"a\"/>\n</robot>\n", FILE_HEAD);
    assert_int_equal(load_text(b, text), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "link_b is missing"));
    snprintf(text, sizeof text, "%s  <frame_force link_b=\"b\" force=\"1 2\"/>\n</robot>\n",
             FILE_HEAD);
    assert_int_equal(load_text(b, text), MBS_ERR_ARG);
    assert_int_equal(mbs_compile(b, NULL), MBS_ERR_ARG); /* the builder stayed empty */
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_nbody(m), 1);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolved_in_frame_b),
        cmocka_unit_test(test_action_reaction),
        cmocka_unit_test(test_world_force_closed_form),
        cmocka_unit_test(test_line_law_equals_spring_damper),
        cmocka_unit_test(test_line_law_energy),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_model_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
