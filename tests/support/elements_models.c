/* Mechanisms with line masses, rotors and nodes (see elements_models.h). */
#include "elements_models.h"
#include "common.h"

#include <math.h>
#include <string.h>

const double EM_GRAVITY[3] = {0.0, -9.81, 0.0};
const double EM_POINT_A[3] = {0.05, -0.8, 0.1};
const double EM_POINT_B[3] = {0.0, -0.7, 0.05};

/* Body def with diagonal inertia. */
static mbs_body_def em_body(const char *name, double m, double cx, double cy, double cz,
                            double ixx, double iyy, double izz)
{
    mbs_body_def b = mbs_default_body_def();
    b.name = name, b.mass = m;
    v3set(b.com, cx, cy, cz);
    memset(b.inertia, 0, sizeof b.inertia);
    b.inertia[0] = ixx, b.inertia[4] = iyy, b.inertia[8] = izz;
    return b;
}

/* Add point mass pm at point p (body coordinates) to body def b (parallel axes). */
static void add_point_mass(mbs_body_def *b, double pm, const double p[3])
{
    const double M = b->mass + pm;
    double c[3], dc[3], dp[3];
    for (int i = 0; i < 3; ++i) c[i] = (b->mass * b->com[i] + pm * p[i]) / M;
    for (int i = 0; i < 3; ++i) dc[i] = b->com[i] - c[i], dp[i] = p[i] - c[i];
    const double nc = dc[0] * dc[0] + dc[1] * dc[1] + dc[2] * dc[2];
    const double np = dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            b->inertia[3 * i + j] += b->mass * ((i == j) * nc - dc[i] * dc[j]) +
                                     pm * ((i == j) * np - dp[i] * dp[j]);
    b->mass = M;
    memcpy(b->com, c, sizeof c);
}

/* Compile b (asserting success) and destroy it. */
static mbs_model *em_compile(mbs_builder *b)
{
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    if (st != MBS_OK) print_error("compile: %s\n", mbs_builder_error(b));
    assert_int_equal(st, MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Point at distance x from p towards q. */
static void along(const double p[3], const double q[3], double x, double out[3])
{
    double r[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    const double L = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (int i = 0; i < 3; ++i) out[i] = p[i] + x * r[i] / L;
}

/* See elements_models.h. */
mbs_model *em_chain_line_mass(int variant, int explicit_body)
{
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_gravity(b, EM_GRAVITY);
    mbs_body_def A = em_body("A", 1.0, 0.5, 0.0, 0.0, 0.01, 0.02, 0.02);
    mbs_body_def B = em_body("B", 0.7, 0.4, 0.1, 0.0, 0.01, 0.03, 0.02);
    const double pivot[3] = {0, 0, 0}, bB[3] = {0.8, 0.2, 0.1}, aA[3] = {0.9, 0.1, 0.0};
    if (explicit_body) {
        double p[3];
        if (variant == 0) {
            for (int i = 0; i < 3; ++i) p[i] = 0.35 * bB[i];
            add_point_mass(&B, 0.4, p);
        } else if (variant == 1) {
            along(pivot, bB, 0.2, p), add_point_mass(&B, 0.3, p);
            along(bB, pivot, 0.15, p), add_point_mass(&B, 0.25, p);
        } else {
            for (int i = 0; i < 3; ++i) p[i] = 0.6 * aA[i];
            add_point_mass(&A, 0.5, p);
        }
    }
    const int a = mbs_add_body(b, &A), c = mbs_add_body(b, &B);
    mbs_joint_def j1 = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j1.name = "rev", j1.child = a;
    v3set(j1.axis, 0.0, 0.3, 1.0);
    assert_true(mbs_add_joint(b, &j1) >= 0);
    mbs_joint_def j2 = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j2.name = "sph", j2.parent = a, j2.child = c;
    v3set(j2.frame_parent.pos, 1.0, 0.0, 0.0);
    assert_true(mbs_add_joint(b, &j2) >= 0);
    if (!explicit_body && variant == 1) {
        mbs_line_force_two_masses_def t = mbs_default_line_force_two_masses_def();
        t.name = "cylinder", t.body_a = a, t.body_b = c;
        v3set(t.point_a, 1.0, 0.0, 0.0), memcpy(t.point_b, bB, sizeof bB);
        t.stiffness = 50, t.rest_length = sqrt(0.69);
        t.mass_a = 0.3, t.distance_a = 0.2, t.mass_b = 0.25, t.distance_b = 0.15;
        assert_true(mbs_add_line_force_two_masses(b, &t) >= 0);
    } else if (!explicit_body) {
        mbs_spring_damper_def s = mbs_default_spring_damper_def();
        /* both ends ride on one body: the length is constant; at its rest length the
           spring exerts nothing, so the joint reactions must match the explicit body's */
        s.name = "spring", s.stiffness = 50, s.damping = 0.2;
        s.rest_length = variant == 0 ? sqrt(0.69) : sqrt(0.82);
        if (variant == 0) {
            s.body_a = a, s.body_b = c, s.mass = 0.4, s.mass_fraction = 0.35;
            v3set(s.point_a, 1.0, 0.0, 0.0), memcpy(s.point_b, bB, sizeof bB);
        } else {
            s.body_a = MBS_WORLD, s.body_b = a, s.mass = 0.5, s.mass_fraction = 0.6;
            memcpy(s.point_b, aA, sizeof aA);
        }
        assert_true(mbs_add_spring_damper(b, &s) >= 0);
    }
    return em_compile(b);
}

/* See elements_models.h. */
void em_chain_start(mbs_data *d)
{
    const double q[5] = {0.3, cos(0.2), 0.1, 0.2, -0.15}, v[4] = {1.0, 0.5, -0.8, 0.3};
    memcpy(mbs_data_q(d), q, sizeof q);
    mbs_normalize_q(mbs_data_model(d), mbs_data_q(d));
    memcpy(mbs_data_v(d), v, sizeof v);
}

/* See elements_models.h. */
mbs_model *em_branches(double mass, double h, double two_d)
{
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_gravity(b, EM_GRAVITY);
    mbs_body_def p1 = em_body("p1", 1.2, 0.0, -0.5, 0.1, 0.03, 0.01, 0.02);
    mbs_body_def p2 = em_body("p2", 0.9, 0.1, -0.6, 0.0, 0.02, 0.01, 0.03);
    const int a = mbs_add_body(b, &p1), c = mbs_add_body(b, &p2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.name = "s1", j.child = a;
    assert_true(mbs_add_joint(b, &j) >= 0);
    j.name = "s2", j.child = c;
    v3set(j.frame_parent.pos, 1.0, 0.0, 0.0);
    assert_true(mbs_add_joint(b, &j) >= 0);
    if (two_d > 0.0) {
        mbs_line_force_two_masses_def t = mbs_default_line_force_two_masses_def();
        t.name = "cylinder", t.body_a = a, t.body_b = c, t.stiffness = 30, t.rest_length = 0.8;
        memcpy(t.point_a, EM_POINT_A, sizeof t.point_a), memcpy(t.point_b, EM_POINT_B, sizeof t.point_b);
        t.mass_a = mass, t.distance_a = two_d, t.mass_b = 0.5 * mass, t.distance_b = 0.2;
        assert_true(mbs_add_line_force_two_masses(b, &t) >= 0);
    } else {
        mbs_spring_damper_def s = mbs_default_spring_damper_def();
        s.name = "spring", s.body_a = a, s.body_b = c, s.stiffness = 30, s.rest_length = 0.8;
        memcpy(s.point_a, EM_POINT_A, sizeof s.point_a), memcpy(s.point_b, EM_POINT_B, sizeof s.point_b);
        s.mass = mass, s.mass_fraction = h;
        assert_true(mbs_add_spring_damper(b, &s) >= 0);
    }
    return em_compile(b);
}

/* See elements_models.h. */
void em_random_state(struct test_rng *r, mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    double v[EM_NV], q0[EM_NV + 16];
    const int nv = mbs_model_nv(m);
    mbs_neutral_q(m, q0);
    for (int i = 0; i < nv; ++i) v[i] = test_rng_uniform(r, -0.6, 0.6);
    mbs_integrate_q(m, q0, v, 1.0, mbs_data_q(d));
    for (int i = 0; i < nv; ++i) mbs_data_v(d)[i] = test_rng_uniform(r, -2.0, 2.0);
    for (int i = 0; i < nv; ++i) mbs_data_tau(d)[i] = test_rng_uniform(r, -1.0, 1.0);
}

/* See elements_models.h. */
mbs_model *em_rotor_chain(int n, int housing, int rotors)
{
    mbs_builder *b = mbs_builder_create();
    int prev = MBS_WORLD;
    for (int i = 0; i < n; ++i) {
        mbs_body_def bd = em_body(NULL, 1.0 + 0.1 * i, 0.3, 0.02 * i, 0.0, 0.01, 0.02, 0.015);
        const int body = mbs_add_body(b, &bd);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = prev, j.child = body;
        if (i > 0) v3set(j.frame_parent.pos, 0.6, 0.0, 0.0);
        if (i % 2) v3set(j.axis, 0.0, 1.0, 0.0);
        const int jid = mbs_add_joint(b, &j);
        assert_true(jid >= 0);
        if (rotors) {
            const int h = housing == 3 ? i % 3 : housing;
            mbs_rotor_def r = mbs_default_rotor_def();
            r.joint = jid, r.inertia = 1e-4 * (1 + i % 3), r.ratio = 50.0 + 10 * (i % 4);
            r.housing = h == 0 ? prev : h == 1 ? MBS_WORLD : body;
            v3set(r.axis, i % 2 ? 0.0 : 0.2, i % 2 ? 1.0 : 0.1, i % 2 ? 0.1 : 1.0);
            assert_true(mbs_add_rotor(b, &r) >= 0);
        }
        prev = body;
    }
    return em_compile(b);
}

/* See elements_models.h: k = 100, 200, 300, rest lengths 0.2, 0.3, 0.1; body mass 2. */
mbs_model *em_series_springs(int equivalent)
{
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_no_gravity(b);
    const double k[3] = {100, 200, 300}, l0[3] = {0.2, 0.3, 0.1};
    mbs_body_def bd = em_body("block", 2.0, 0, 0, 0, 0.01, 0.01, 0.01);
    const int body = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    j.name = "slide", j.child = body;
    v3set(j.axis, 1.0, 0.0, 0.0);
    assert_true(mbs_add_joint(b, &j) >= 0);
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    if (equivalent) {
        s.body_b = body, s.stiffness = 1.0 / (1 / k[0] + 1 / k[1] + 1 / k[2]);
        s.rest_length = l0[0] + l0[1] + l0[2];
        assert_true(mbs_add_spring_damper(b, &s) >= 0);
        return em_compile(b);
    }
    mbs_body_def nd = mbs_default_body_def();
    nd.mass = 0.0;
    memset(nd.inertia, 0, sizeof nd.inertia);
    nd.name = "n1";
    const int n1 = mbs_add_body(b, &nd);
    nd.name = "n2";
    const int n2 = mbs_add_body(b, &nd);
    const int ends[4] = {MBS_WORLD, n1, n2, body};
    for (int i = 0; i < 3; ++i) {
        s.body_a = ends[i], s.body_b = ends[i + 1], s.stiffness = k[i], s.rest_length = l0[i];
        assert_true(mbs_add_spring_damper(b, &s) >= 0);
    }
    return em_compile(b);
}

/* See elements_models.h: crank (0,0) length 1 along y, coupler length 2 along x, rocker at
   (2,-0.2) length 1.2 along y, closed at q = 0 by a revolute cut joint; rotors on the crank
   (world, ratio 10), the coupler joint (housed by the crank, tilted axis) and the rocker
   joint (housed by the coupler: a general coupling); a spring with a point mass from the
   world to the coupler's middle. */
mbs_model *em_fourbar(int elements)
{
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_gravity(b, EM_GRAVITY);
    mbs_body_def crank = em_body("crank", 1.0, 0.0, 0.5, 0.0, 0.09, 0.01, 0.09);
    mbs_body_def coupler = em_body("coupler", 2.0, 1.0, 0.0, 0.0, 0.01, 0.7, 0.7);
    mbs_body_def rocker = em_body("rocker", 1.2, 0.0, 0.6, 0.0, 0.15, 0.01, 0.15);
    const int c = mbs_add_body(b, &crank), u = mbs_add_body(b, &coupler), r = mbs_add_body(b, &rocker);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "crank", j.child = c, j.state_priority = 1;
    const int jc = mbs_add_joint(b, &j);
    j.state_priority = 0;
    j.name = "coupler", j.parent = c, j.child = u, v3set(j.frame_parent.pos, 0, 1, 0);
    const int ju = mbs_add_joint(b, &j);
    j.name = "rocker", j.parent = MBS_WORLD, j.child = r, v3set(j.frame_parent.pos, 2, -0.2, 0);
    const int jr = mbs_add_joint(b, &j);
    j.name = "close", j.parent = u, j.child = r, j.cut = 1;
    v3set(j.frame_parent.pos, 2, 0, 0), v3set(j.frame_child.pos, 0, 1.2, 0);
    assert_true(mbs_add_joint(b, &j) >= 0);
    if (elements) {
        mbs_rotor_def rd = mbs_default_rotor_def();
        rd.name = "motor", rd.joint = jc, rd.inertia = 1e-3, rd.ratio = 10;
        assert_true(mbs_add_rotor(b, &rd) >= 0);
        rd.name = "tilted", rd.joint = ju, rd.inertia = 2e-3, rd.ratio = 5, rd.housing = c;
        v3set(rd.axis, 0, 0.3, 1);
        assert_true(mbs_add_rotor(b, &rd) >= 0);
        rd.name = "remote", rd.joint = jr, rd.inertia = 1e-3, rd.ratio = 3, rd.housing = u;
        v3set(rd.axis, 0.2, 0, 1);
        assert_true(mbs_add_rotor(b, &rd) >= 0);
        mbs_spring_damper_def s = mbs_default_spring_damper_def();
        s.name = "hanging", s.body_b = u, s.stiffness = 20, s.rest_length = 1.0, s.mass = 0.5;
        v3set(s.point_a, 1, -1, 0), v3set(s.point_b, 1, 0, 0);
        assert_true(mbs_add_spring_damper(b, &s) >= 0);
    }
    return em_compile(b);
}

/* See elements_models.h: MSL Examples.Elementary.ThreeSprings (g_n along -y). */
mbs_model *em_three_springs(void)
{
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, -9.80665, 0.0};
    mbs_builder_set_gravity(b, g);
    mbs_body_def body = em_body("body1", 0.8, 0.0, -0.2, 0.0, 0.1, 0.1, 0.1);
    const int b1 = mbs_add_body(b, &body);
    mbs_body_def nd = mbs_default_body_def();
    nd.name = "joint", nd.mass = 0.0;
    memset(nd.inertia, 0, sizeof nd.inertia);
    const int n = mbs_add_body(b, &nd);
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    s.name = "spring1", s.body_b = n, s.stiffness = 20, s.rest_length = 0.1;
    v3set(s.point_a, 0.3, 0.0, 0.0);
    assert_true(mbs_add_spring_damper(b, &s) >= 0);
    s.name = "spring2", s.body_a = n, s.body_b = b1, s.stiffness = 40;
    v3set(s.point_a, 0, 0, 0);
    assert_true(mbs_add_spring_damper(b, &s) >= 0);
    s.name = "spring3", s.body_a = MBS_WORLD, s.body_b = n, s.stiffness = 20;
    v3set(s.point_a, 0.0, 0.0, 0.3);
    assert_true(mbs_add_spring_damper(b, &s) >= 0);
    return em_compile(b);
}
