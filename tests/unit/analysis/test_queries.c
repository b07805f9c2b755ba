/* Controller queries (src/analysis/): the point Jacobian against mbs_body_velocity and finite
 * differences of mbs_body_pose, its bias acceleration against finite differences of the
 * point's velocity along a motion, the centre of mass and the momentum against sums by hand,
 * momentum conserved by a free-floating chain, joint reactions (a hanging pendulum carries
 * m g; a tree joint's reaction equals the same joint's cut multipliers), no allocation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "loop_mechanisms.h"

#define NMAX 64

/* World velocity of a body point from mbs_body_velocity: v_o + w x (p - x_o). */
static void point_velocity(mbs_data *d, int body, const double pt[3], double w[3], double vp[3])
{
    double pos[3], R[9], v[3], r[3];
    assert_int_equal(mbs_body_pose(d, body, pos, R), MBS_OK);
    assert_int_equal(mbs_body_velocity(d, body, v, w), MBS_OK);
    for (int i = 0; i < 3; ++i) r[i] = R[3 * i] * pt[0] + R[3 * i + 1] * pt[1] + R[3 * i + 2] * pt[2];
    vp[0] = v[0] + w[1] * r[2] - w[2] * r[1];
    vp[1] = v[1] + w[2] * r[0] - w[0] * r[2];
    vp[2] = v[2] + w[0] * r[1] - w[1] * r[0];
}

static void point_position(mbs_data *d, int body, const double pt[3], double p[3])
{
    double pos[3], R[9];
    assert_int_equal(mbs_body_pose(d, body, pos, R), MBS_OK);
    for (int i = 0; i < 3; ++i) p[i] = pos[i] + R[3 * i] * pt[0] + R[3 * i + 1] * pt[1] + R[3 * i + 2] * pt[2];
}

/* J v equals the velocity (1e-12), and each column the finite difference of the point's
   position along that tangent direction (1e-7), on random trees of every joint type. */
static void test_jacobian(void **state)
{
    (void)state;
    static double J[6 * NMAX];
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        test_tree_opts o = test_default_tree_opts(3 + (int)(seed % 7));
        mbs_model *m = test_random_tree(seed, &o);
        mbs_data *d = mbs_data_create(m);
        const int nq = mbs_model_nq(m), nv = mbs_model_nv(m), body = mbs_model_nbody(m) - 1;
        test_rng r;
        test_rng_seed(&r, seed);
        test_random_state(&r, d, 1.0, 1.0, 0.0);
        const double pt[3] = {0.1, -0.2, 0.3};
        assert_int_equal(mbs_point_jacobian(d, body, pt, J), MBS_OK);
        double w[3], vp[3], Jv[6] = {0};
        point_velocity(d, body, pt, w, vp);
        for (int e = 0; e < 6; ++e)
            for (int k = 0; k < nv; ++k) Jv[e] += J[nv * e + k] * mbs_data_v(d)[k];
        const double want[6] = {w[0], w[1], w[2], vp[0], vp[1], vp[2]};
        test_assert_close(Jv, want, 6, 1e-12, "J v vs body velocity");
        double q0[NMAX], dv[NMAX] = {0}, pp[3], pm[3];
        memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
        const double h = 1e-6;
        for (int k = 0; k < nv; ++k) {
            dv[k] = 1.0;
            mbs_integrate_q(m, q0, dv, h, mbs_data_q(d));
            point_position(d, body, pt, pp);
            mbs_integrate_q(m, q0, dv, -h, mbs_data_q(d));
            point_position(d, body, pt, pm);
            dv[k] = 0.0;
            for (int e = 0; e < 3; ++e)
                if (fabs((pp[e] - pm[e]) / (2 * h) - J[nv * (3 + e) + k]) > 1e-7)
                    fail_msg("seed %d column %d: FD %g, J %g", (int)seed, k, (pp[e] - pm[e]) / (2 * h), J[nv * (3 + e) + k]);
        }
        memcpy(mbs_data_q(d), q0, sizeof(double) * (size_t)nq);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* The point's acceleration for a random qacc, J qacc + Jdot v, against the central
   difference of its velocity along q(t) = q (+) (v t + qacc t^2 / 2), v(t) = v + qacc t. */
static void test_bias_acceleration(void **state)
{
    (void)state;
    static double J[6 * NMAX];
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        test_tree_opts o = test_default_tree_opts(3 + (int)(seed % 7));
        mbs_model *m = test_random_tree(seed + 50, &o);
        mbs_data *d = mbs_data_create(m);
        const int nq = mbs_model_nq(m), nv = mbs_model_nv(m), body = mbs_model_nbody(m) - 1;
        test_rng r;
        test_rng_seed(&r, seed);
        test_random_state(&r, d, 1.0, 1.0, 0.0);
        double qa[NMAX], q0[NMAX], v0[NMAX], a6[6], acc[6];
        for (int k = 0; k < nv; ++k) qa[k] = test_rng_uniform(&r, -1, 1);
        memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
        memcpy(v0, mbs_data_v(d), sizeof(double) * (size_t)nv);
        const double pt[3] = {0.2, 0.1, -0.1};
        assert_int_equal(mbs_point_jacobian(d, body, pt, J), MBS_OK);
        assert_int_equal(mbs_point_bias_acceleration(d, body, pt, a6), MBS_OK);
        for (int e = 0; e < 6; ++e) {
            acc[e] = a6[e];
            for (int k = 0; k < nv; ++k) acc[e] += J[nv * e + k] * qa[k];
        }
        const double h = 1e-5;
        double wv[2][6];
        for (int s = 0; s < 2; ++s) {
            const double t = s ? h : -h;
            double dq[NMAX];
            for (int k = 0; k < nv; ++k) dq[k] = v0[k] * t + 0.5 * qa[k] * t * t, mbs_data_v(d)[k] = v0[k] + qa[k] * t;
            mbs_integrate_q(m, q0, dq, 1.0, mbs_data_q(d));
            point_velocity(d, body, pt, wv[s], wv[s] + 3);
        }
        double fd[6];
        for (int e = 0; e < 6; ++e) fd[e] = (wv[1][e] - wv[0][e]) / (2 * h);
        test_assert_close(acc, fd, 6, 1e-6, "J qacc + Jdot v vs FD of the point velocity");
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* COM and momentum against sums over body poses and velocities; a free-floating chain in
   zero gravity keeps its momentum over 10 s of CVODE. */
static void test_com_momentum(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(6);
    o.gravity = 0;
    o.roots = 1;
    mbs_model *m = test_random_tree(11, &o);
    mbs_data *d = mbs_data_create(m);
    test_rng r;
    test_rng_seed(&r, 3);
    test_random_state(&r, d, 1.0, 1.0, 0.0);
    double com[3], lin[3], ang[3], mc[3] = {0, 0, 0}, L[3] = {0, 0, 0}, M = 0.0;
    assert_int_equal(mbs_com(d, com), MBS_OK);
    assert_int_equal(mbs_momentum(d, lin, ang), MBS_OK);
    /* by hand: com of each body from its pose, its velocity from body_velocity */
    for (int b = 1; b < mbs_model_nbody(m); ++b) {
        double pos[3], R[9], c[3], w[3], vc[3];
        /* body com and mass are those of test_random_tree: read them back through the
           model definition query */
        mbs_body_def bd;
        assert_int_equal(mbs_model_body_def(m, b, &bd), MBS_OK);
        assert_int_equal(mbs_body_pose(d, b, pos, R), MBS_OK);
        for (int i = 0; i < 3; ++i) c[i] = pos[i] + R[3 * i] * bd.com[0] + R[3 * i + 1] * bd.com[1] + R[3 * i + 2] * bd.com[2];
        point_velocity(d, b, bd.com, w, vc);
        for (int i = 0; i < 3; ++i) mc[i] += bd.mass * c[i], L[i] += bd.mass * vc[i];
        M += bd.mass;
    }
    for (int i = 0; i < 3; ++i) mc[i] /= M;
    test_assert_close(com, mc, 3, 1e-13, "com by hand");
    test_assert_close(lin, L, 3, 1e-13, "linear momentum by hand");
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A free-floating chain (the first body on its automatic free joint, the others on
   revolute, spherical, prismatic and universal joints), no gravity: its momentum stays
   constant over 10 s of RK4 at 0.1 ms (1e-10). */
static void test_momentum_conserved(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    test_rng r;
    test_rng_seed(&r, 9);
    static const mbs_joint_type types[4] = {MBS_JOINT_REVOLUTE, MBS_JOINT_SPHERICAL,
                                            MBS_JOINT_PRISMATIC, MBS_JOINT_UNIVERSAL};
    for (int i = 1; i <= 5; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = test_rng_uniform(&r, 0.5, 2.0);
        for (int k = 0; k < 3; ++k) bd.com[k] = test_rng_uniform(&r, -0.2, 0.2);
        test_random_inertia(&r, 0.01, 0.1, bd.inertia);
        assert_int_equal(mbs_add_body(b, &bd), i);
        if (i == 1) continue; /* the floating root */
        mbs_joint_def jd = mbs_default_joint_def(types[i - 2]);
        jd.parent = i - 1, jd.child = i, jd.frame_parent.pos[0] = 0.3;
        jd.axis[0] = 0.3, jd.axis[1] = 0.5, jd.axis[2] = 0.8;
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    test_random_state(&r, d, 1.0, 1.0, 0.0);
    double lin[3], ang[3], lin1[3], ang1[3];
    assert_int_equal(mbs_momentum(d, lin, ang), MBS_OK);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    for (int k = 0; k < 100000; ++k) assert_int_equal(mbs_stepper_step(s, 1e-4), MBS_OK);
    assert_int_equal(mbs_momentum(d, lin1, ang1), MBS_OK);
    test_assert_close(lin1, lin, 3, 1e-10, "linear momentum after 10 s");
    test_assert_close(ang1, ang, 3, 1e-10, "angular momentum after 10 s");
    assert_true(fabs(lin[0]) + fabs(ang[0]) > 0.1); /* it does move */
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* A pendulum hanging at rest carries its weight: force -m g, no moment about the pivot's
   axis... and, swinging, the reaction balances m a_com. */
static void test_pendulum_reaction(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0, bd.com[0] = 0.5;
    const int body = mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD, jd.child = body, jd.axis[0] = 0, jd.axis[1] = 1, jd.axis[2] = 0;
    const int j = mbs_add_joint(b, &jd);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = acos(-1.0) / 2; /* com straight below the pivot: x turned onto -z */
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double F[3], T[3];
    assert_int_equal(mbs_joint_reaction(d, j, F, T), MBS_OK);
    const double want[3] = {0.0, 0.0, 2.0 * 9.81};
    test_assert_close(F, want, 3, 1e-12, "hanging pendulum: reaction = weight");
    /* swinging: F + m g = m a_com (a_com from the point Jacobian and bias acceleration) */
    mbs_data_q(d)[0] = 0.4, mbs_data_v(d)[0] = 1.3;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_int_equal(mbs_joint_reaction(d, j, F, T), MBS_OK);
    double J[6], a6[6], ac[3];
    assert_int_equal(mbs_point_jacobian(d, body, bd.com, J), MBS_OK);
    assert_int_equal(mbs_point_bias_acceleration(d, body, bd.com, a6), MBS_OK);
    for (int e = 0; e < 3; ++e) ac[e] = 2.0 * (J[3 + e] * mbs_data_qacc(d)[0] + a6[3 + e]);
    const double got[3] = {F[0], F[1], F[2] - 2.0 * 9.81};
    test_assert_close(got, ac, 3, 1e-12, "swinging pendulum: F + m g = m a_com");
    assert_int_equal(mbs_joint_reaction(d, 5, F, T), MBS_ERR_ARG);
    assert_int_equal(mbs_joint_reaction(d, j, NULL, T), MBS_ERR_ARG);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Joint B of a four-bar as a cut joint (its multipliers) and as a tree joint (the cut at
   O4): the same reaction in the same state. */
static void test_tree_vs_cut_reaction(void **state)
{
    (void)state;
    double F[2][3], T[2][3];
    const int cuts[2] = {LM_CUT_B, LM_CUT_O4};
    for (int k = 0; k < 2; ++k) {
        lm_fourbar p = lm_default_fourbar();
        p.cut = cuts[k];
        lm_mech mech;
        assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
        mbs_data *d = mbs_data_create(mech.model);
        double th[3], w[3], al[3];
        th[0] = 0.9;
        assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
        lm_fourbar_rates(&p, th, 1.5, 0.0, w, al);
        lm_fourbar_set(&p, &mech, d, th, w);
        assert_int_equal(mbs_assemble(d), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        const int jb = k == 0 ? mech.joint[3] : mech.joint[2];
        assert_int_equal(mbs_model_joint_is_cut(mech.model, jb), k == 0);
        assert_int_equal(mbs_joint_reaction(d, jb, F[k], T[k]), MBS_OK);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
    test_assert_close(F[1], F[0], 3, 1e-9, "reaction force at B: tree joint vs cut joint");
    test_assert_close(T[1], T[0], 3, 1e-9, "reaction torque at B: tree joint vs cut joint");
    assert_true(fabs(F[0][0]) + fabs(F[0][1]) > 1.0); /* a real load, not zero */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobian),
        cmocka_unit_test(test_bias_acceleration),
        cmocka_unit_test(test_com_momentum),
        cmocka_unit_test(test_momentum_conserved),
        cmocka_unit_test(test_pendulum_reaction),
        cmocka_unit_test(test_tree_vs_cut_reaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
