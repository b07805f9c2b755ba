/* Linearisation and modes (src/analysis/linearize.c, modes.c): A of trees against central
 * differences of the state-space map built from forward dynamics and the q-manifold (1e-6);
 * the pendulum's frequency sqrt(m g l / J), the double pendulum's two normal modes and a
 * mass-spring chain's modes in closed form; a floating body on springs with quaternion and
 * Cardan roots (the same modes); the four-bar's small-oscillation frequency against the
 * period of a simulated motion; the loops' B against finite differences in tau; bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "loop_mechanisms.h"

#define NMAX 64
#define PI 3.14159265358979323846

static double A[4 * NMAX * NMAX], B[2 * NMAX * NMAX], F[4 * NMAX * NMAX];

/* ------------------------------------------------------------------ A of trees vs FD */

/* The state-space rate at x = (dq, dv) about the reference (q0, v0): q = q0 (+) dq,
   v = v0 + dv; d(dq)/dt from the motions of both states over +-eps (the reference moving
   with v0, the perturbed one with v), d(dv)/dt = qacc(q, v) - qacc(q0, v0). */
static void xdot(mbs_data *d, const double *q0, const double *v0, const double *acc0,
                 const double *x, double *out)
{
    const mbs_model *m = mbs_data_model(d);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double q[NMAX], qa[NMAX], qb[NMAX], ra[NMAX], rb[NMAX], da[NMAX], db[NMAX], v[NMAX];
    const double eps = 1e-4;
    assert_int_equal(mbs_integrate_q(m, q0, x, 1.0, q), MBS_OK);
    for (int i = 0; i < nv; ++i) v[i] = v0[i] + x[nv + i];
    mbs_integrate_q(m, q, v, eps, qa);
    mbs_integrate_q(m, q, v, -eps, qb);
    mbs_integrate_q(m, q0, v0, eps, ra);
    mbs_integrate_q(m, q0, v0, -eps, rb);
    mbs_difference_q(m, ra, qa, da);
    mbs_difference_q(m, rb, qb, db);
    for (int i = 0; i < nv; ++i) out[i] = (da[i] - db[i]) / (2.0 * eps);
    memcpy(mbs_data_q(d), q, sizeof(double) * (size_t)nq);
    memcpy(mbs_data_v(d), v, sizeof(double) * (size_t)nv);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    for (int i = 0; i < nv; ++i) out[nv + i] = mbs_data_qacc(d)[i] - acc0[i];
}

/* A by central differences of xdot (step h) at the data's state; state restored. */
static void fd_state_matrix(mbs_data *d, double *Afd)
{
    const mbs_model *m = mbs_data_model(d);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m), n = 2 * nv;
    double q0[NMAX], v0[NMAX], acc0[NMAX], x[2 * NMAX] = {0}, p[2 * NMAX], mm[2 * NMAX];
    memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(v0, mbs_data_v(d), sizeof(double) * (size_t)nv);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    memcpy(acc0, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    const double h = 1e-5;
    for (int j = 0; j < n; ++j) {
        x[j] = h;
        xdot(d, q0, v0, acc0, x, p);
        x[j] = -h;
        xdot(d, q0, v0, acc0, x, mm);
        x[j] = 0.0;
        for (int i = 0; i < n; ++i) Afd[n * i + j] = (p[i] - mm[i]) / (2.0 * h);
    }
    memcpy(mbs_data_q(d), q0, sizeof(double) * (size_t)nq);
    memcpy(mbs_data_v(d), v0, sizeof(double) * (size_t)nv);
}

/* A and B of random moving trees (every joint type, damped springs, gravity) against
   central differences: A of the state-space map (1e-6 relative), B = [0; M^-1] against
   finite differences in tau. */
static void test_tree_state_matrix(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 16; ++seed) {
        test_tree_opts o = test_default_tree_opts(2 + seed % 6);
        o.springs = 2;
        o.gravity = seed % 3;
        mbs_model *m = test_random_tree((uint64_t)seed + 500, &o);
        mbs_data *d = mbs_data_create(m);
        const int nv = mbs_model_nv(m), n = 2 * nv;
        test_rng r;
        test_rng_seed(&r, (uint64_t)seed);
        test_random_state(&r, d, 1.0, 1.0, 1.0);
        int nx = 0;
        assert_int_equal(mbs_linearize(d, A, B, &nx), MBS_OK);
        assert_int_equal(nx, n);
        fd_state_matrix(d, F);
        double emax = 0.0, fmax_ = 0.0;
        for (int i = 0; i < n * n; ++i) emax = fmax(emax, fabs(A[i] - F[i])), fmax_ = fmax(fmax_, fabs(F[i]));
        if (emax > 1e-6 * (1.0 + fmax_)) fail_msg("seed %d: A vs FD %.3g (scale %.3g)", seed, emax, fmax_);
        /* B: the top rows zero, the bottom M^-1 (M^-1 M = I) */
        static double M[NMAX * NMAX];
        assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
        for (int i = 0; i < nv * nv; ++i) assert_true(B[i] == 0.0);
        for (int i = 0; i < nv; ++i)
            for (int j = 0; j < nv; ++j) {
                double x = 0.0;
                for (int k = 0; k < nv; ++k) x += B[nv * (nv + i) + k] * M[nv * k + j];
                assert_true(fabs(x - (i == j)) < 1e-10);
            }
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* ------------------------------------------------------------------ closed forms */

/* Bodies hanging from revolute joints about y: body i has mass m[i], com at (0, 0, -lc[i]),
   inertia Iyy (diag(I, I, I)), and carries the next joint at (0, 0, -L[i]); gravity -z. */
static mbs_model *hanging_chain(int n, const double *mass, const double *lc, const double *L,
                                const double *I)
{
    mbs_builder *b = mbs_builder_create();
    for (int i = 0; i < n; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = mass[i];
        bd.com[2] = -lc[i];
        for (int k = 0; k < 9; ++k) bd.inertia[k] = k % 4 == 0 ? I[i] : 0.0;
        assert_int_equal(mbs_add_body(b, &bd), i + 1);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i, jd.child = i + 1;
        jd.axis[0] = 0.0, jd.axis[1] = 1.0, jd.axis[2] = 0.0;
        if (i > 0) jd.frame_parent.pos[2] = -L[i - 1];
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Eigenvalues of the data's state by mbs_modes; returns their number. */
static int modes(mbs_data *d, double *re, double *im)
{
    int n = 2 * NMAX;
    const int st = mbs_modes(d, re, im, &n);
    if (st != MBS_OK) fail_msg("mbs_modes: %s: %s", mbs_status_name(st), mbs_data_error(d));
    return n;
}

/* A pendulum: lambda = +-i sqrt(m g l / J), J = I + m l^2 about the pivot. */
static void test_pendulum(void **state)
{
    (void)state;
    const double m = 2.0, l = 0.7, I = 0.05, g = 9.81;
    mbs_model *model = hanging_chain(1, &m, &l, &l, &I);
    mbs_data *d = mbs_data_create(model);
    double re[4], im[4];
    assert_int_equal(modes(d, re, im), 2);
    const double w = sqrt(m * g * l / (I + m * l * l));
    print_message("pendulum: lambda = %.3g +- %.15g i, sqrt(m g l / J) = %.15g\n", re[0], im[0], w);
    assert_true(fabs(re[0]) < 1e-12 && fabs(re[1]) < 1e-12);
    assert_true(fabs(im[0] - w) < 1e-12 * w && fabs(im[1] + w) < 1e-12 * w);
    mbs_data_destroy(d);
    mbs_model_destroy(model);
}

/* Trees with elements outside the analytic derivatives: the analytic calls refuse them with
   MBS_ERR_STATE, mbs_linearize differentiates them numerically. A pendulum with a geared
   rotor on the world (ratio n, inertia Jr): lambda = +-i sqrt(m g l / (J + n^2 Jr)); the
   same pendulum hung on a vertical spring (stiffness k) from the world whose own point mass
   ms sits at fraction h: its bob at x = l, small motion about the hanging pose adds
   k l^2 to the stiffness and h^2 ms l^2 to the inertia (the mass moves with h times the
   attachment point, 1e-6 for the numerical differences). */
static void test_numerical_tree(void **state)
{
    (void)state;
    const double m = 2.0, l = 0.7, I = 0.05, g = 9.81, n = 12.0, Jr = 1e-4;
    for (int variant = 0; variant < 2; ++variant) {
        mbs_builder *b = mbs_builder_create();
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = m, bd.com[2] = -l;
        for (int k = 0; k < 9; ++k) bd.inertia[k] = k % 4 == 0 ? I : 0.0;
        assert_int_equal(mbs_add_body(b, &bd), 1);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = 0, jd.child = 1, jd.axis[0] = 0.0, jd.axis[1] = 1.0, jd.axis[2] = 0.0;
        assert_int_equal(mbs_add_joint(b, &jd), 0);
        const double k = 40.0, ms = 0.6, h = 0.3;
        if (variant == 0) {
            mbs_rotor_def r = mbs_default_rotor_def();
            r.joint = 0, r.inertia = Jr, r.ratio = n, r.axis[0] = 0, r.axis[1] = 1, r.axis[2] = 0;
            assert_true(mbs_add_rotor(b, &r) >= 0);
        } else { /* a horizontal spring at the bob, so it acts across the swing */
            mbs_spring_damper_def sd = mbs_default_spring_damper_def();
            sd.body_a = 0, sd.body_b = 1, sd.point_a[0] = -1.0, sd.point_a[2] = -l;
            sd.point_b[2] = -l, sd.stiffness = k, sd.rest_length = 1.0;
            sd.mass = ms, sd.mass_fraction = h;
            assert_true(mbs_add_spring_damper(b, &sd) >= 0);
        }
        mbs_model *model = NULL;
        assert_int_equal(mbs_compile(b, &model), MBS_OK);
        mbs_builder_destroy(b);
        mbs_data *d = mbs_data_create(model);
        double a[1], c[1], e[1];
        assert_int_equal(mbs_forward_dynamics_derivatives(d, a, c, e), MBS_ERR_STATE);
        assert_non_null(strstr(mbs_data_error(d), "numerically"));
        double re[4], im[4];
        assert_int_equal(modes(d, re, im), 2);
        /* variant 1: the spring's point mass moves with h x (the bob's x = l theta), its
           gravity acts on it at height -l (fraction of the two ends' heights) */
        const double Jp = variant == 0 ? I + m * l * l + n * n * Jr
                                       : I + m * l * l + h * h * ms * l * l;
        const double Kp = variant == 0 ? m * g * l : m * g * l + k * l * l + h * ms * g * l;
        const double w = sqrt(Kp / Jp);
        print_message("numerical linearisation, %s: %.12g rad/s, closed form %.12g\n",
                      variant == 0 ? "geared rotor" : "spring with mass", im[0], w);
        assert_true(fabs(im[0] - w) < 1e-6 * w && fabs(re[0]) < 1e-6 * w);
        mbs_data_destroy(d);
        mbs_model_destroy(model);
    }
}

/* A double pendulum: w^2 are the roots of det(K - w^2 M0) = 0 with, in absolute angles,
   M0 = [I1 + m1 c1^2 + m2 L1^2, m2 L1 c2; m2 L1 c2, I2 + m2 c2^2], K = g diag(m1 c1 + m2 L1,
   m2 c2). */
static void test_double_pendulum(void **state)
{
    (void)state;
    const double m[2] = {1.5, 0.8}, c[2] = {0.3, 0.25}, L[2] = {0.5, 0.5}, I[2] = {0.02, 0.01};
    const double g = 9.81;
    mbs_model *model = hanging_chain(2, m, c, L, I);
    mbs_data *d = mbs_data_create(model);
    double re[4], im[4];
    assert_int_equal(modes(d, re, im), 4);
    const double M11 = I[0] + m[0] * c[0] * c[0] + m[1] * L[0] * L[0], M12 = m[1] * L[0] * c[1];
    const double M22 = I[1] + m[1] * c[1] * c[1];
    const double K1 = g * (m[0] * c[0] + m[1] * L[0]), K2 = g * m[1] * c[1];
    const double a = M11 * M22 - M12 * M12, bb = M11 * K2 + M22 * K1, cc = K1 * K2;
    const double disc = sqrt(bb * bb - 4.0 * a * cc);
    const double w1 = sqrt((bb - disc) / (2.0 * a)), w2 = sqrt((bb + disc) / (2.0 * a));
    print_message("double pendulum: %.15g, %.15g rad/s; closed form %.15g, %.15g\n", im[0], im[2],
                  w1, w2);
    assert_true(fabs(im[0] - w1) < 1e-11 * w1 && fabs(im[1] + w1) < 1e-11 * w1);
    assert_true(fabs(im[2] - w2) < 1e-11 * w2 && fabs(im[3] + w2) < 1e-11 * w2);
    for (int i = 0; i < 4; ++i) assert_true(fabs(re[i]) < 1e-11 * w2);
    mbs_data_destroy(d);
    mbs_model_destroy(model);
}

/* n masses m in a line between two walls, springs k between neighbours and the walls:
   w_j = 2 sqrt(k/m) sin(j pi / (2 (n + 1))). Mass i rides on mass i - 1 (prismatic x), the
   springs between neighbours are joint springs, the last to the wall a line spring. */
static void test_mass_spring_chain(void **state)
{
    (void)state;
    enum { N = 6 };
    const double mass = 1.5, k = 40.0, a = 0.3;
    mbs_builder *b = mbs_builder_create();
    for (int i = 1; i <= N; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = mass;
        assert_int_equal(mbs_add_body(b, &bd), i);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
        jd.parent = i - 1, jd.child = i;
        jd.axis[0] = 1.0, jd.axis[2] = 0.0;
        jd.frame_parent.pos[0] = a;
        const int j = mbs_add_joint(b, &jd);
        assert_true(mbs_add_joint_spring_damper(b, j, 0, k, 0.0, 0.0) >= 0);
    }
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = N, sd.body_b = MBS_WORLD, sd.point_b[0] = (N + 1) * a;
    sd.stiffness = k, sd.rest_length = a;
    assert_true(mbs_add_spring_damper(b, &sd) >= 0);
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    double re[2 * N], im[2 * N];
    assert_int_equal(modes(d, re, im), 2 * N);
    for (int j = 1; j <= N; ++j) {
        const double w = 2.0 * sqrt(k / mass) * sin(j * PI / (2.0 * (N + 1)));
        print_message("chain mode %d: %.15g rad/s, analytic %.15g\n", j, im[2 * (j - 1)], w);
        assert_true(fabs(im[2 * (j - 1)] - w) < 1e-11 * w);
        assert_true(fabs(im[2 * j - 1] + w) < 1e-11 * w);
        assert_true(fabs(re[2 * (j - 1)]) < 1e-11 * w);
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A free body held by six pre-tensioned springs (symmetric pairs, so it rests at the origin),
   with a root of the given rotation option. */
static mbs_model *sprung_body(mbs_rotation rot)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 3.0;
    bd.inertia[0] = 0.05, bd.inertia[4] = 0.08, bd.inertia[8] = 0.11;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_FREE);
    jd.parent = MBS_WORLD, jd.child = 1, jd.rotation = rot;
    assert_true(mbs_add_joint(b, &jd) >= 0);
    for (int axis = 0; axis < 3; ++axis)
        for (int s = -1; s <= 1; s += 2) {
            mbs_spring_damper_def sd = mbs_default_spring_damper_def();
            sd.body_a = MBS_WORLD, sd.body_b = 1;
            sd.point_a[axis] = s * 1.0;
            sd.point_b[axis] = s * 0.2, sd.point_b[(axis + 1) % 3] = 0.1;
            sd.point_a[(axis + 1) % 3] = 0.1; /* torques of a pair cancel */
            sd.stiffness = 100.0 + 20.0 * axis, sd.damping = 0.5, sd.rest_length = 0.5;
            assert_true(mbs_add_spring_damper(b, &sd) >= 0);
        }
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Quaternion and Cardan floating bases: the same 12 eigenvalues at rest (the modes do not
   depend on the chart), a zero qacc there, and A of the moving quaternion base (its tangent
   frame turning) against central differences. */
static void test_floating_base(void **state)
{
    (void)state;
    double re[2][12], im[2][12];
    for (int rot = 0; rot < 2; ++rot) {
        mbs_model *m = sprung_body(rot ? MBS_ROT_CARDAN : MBS_ROT_QUATERNION);
        mbs_data *d = mbs_data_create(m);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        for (int i = 0; i < 6; ++i) assert_true(fabs(mbs_data_qacc(d)[i]) < 1e-12);
        assert_int_equal(modes(d, re[rot], im[rot]), 12);
        if (rot == 0) { /* moving: A against the state-space map */
            const double v[6] = {0.3, -0.2, 0.1, 1.5, -0.7, 2.0};
            memcpy(mbs_data_v(d), v, sizeof v);
            int nx = 0;
            assert_int_equal(mbs_linearize(d, A, NULL, &nx), MBS_OK);
            fd_state_matrix(d, F);
            for (int i = 0; i < 144; ++i)
                if (fabs(A[i] - F[i]) > 1e-6 * (1.0 + fabs(F[i])))
                    fail_msg("moving quaternion base: A[%d][%d] %.12g vs FD %.12g", i / 12, i % 12, A[i], F[i]);
            assert_true(fabs(A[12 * 3 + 4] - v[5]) < 1e-15); /* T = -[w]x: row wx, column wy */
        }
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
    for (int i = 0; i < 12; ++i) {
        print_message("floating body mode %d: %.12g %+.12g i (Cardan %.12g %+.12g i)\n", i,
                      re[0][i], im[0][i], re[1][i], im[1][i]);
        assert_true(fabs(re[0][i] - re[1][i]) < 1e-10 && fabs(im[0][i] - im[1][i]) < 1e-10);
        assert_true(re[0][i] < 0.0); /* damped */
    }
}

/* ------------------------------------------------------------------ closed loops */

/* Move the independent coordinate ind by du (tangent) and close the loops. */
static void move_independent(mbs_data *d, int ind, double du)
{
    const mbs_model *m = mbs_data_model(d);
    double dq[NMAX] = {0};
    dq[ind] = du;
    assert_int_equal(mbs_integrate_q(m, mbs_data_q(d), dq, 1.0, mbs_data_q(d)), MBS_OK);
    assert_int_equal(mbs_assemble(d), MBS_OK);
}

/* The four-bar hanging under gravity: Newton on the independent acceleration with A's
   stiffness finds the equilibrium; the eigenvalues +-i w of the linearisation there give the
   period 2 pi / w, against the period of a simulated oscillation of 1e-3 rad (RK4, 1 ms,
   upward zero crossings interpolated). B against finite differences in tau. */
static void test_fourbar_frequency(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    double th[3] = {0, 0, 0}, w[3] = {0, 0, 0}, best = INFINITY, th_best = 0.0;
    for (int k = 0; k < 72; ++k) { /* the crank angle of least potential energy: the start */
        double T, V;
        th[0] = -PI + 2.0 * PI * k / 72.0;
        assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
        lm_fourbar_set(&p, &mech, d, th, w);
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        if (V < best) best = V, th_best = th[0];
    }
    th[0] = th_best;
    assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_set(&p, &mech, d, th, w);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    unsigned char indep[NMAX];
    int nd = 0, nx = 0;
    assert_int_equal(mbs_linearize_coordinates(d, indep, &nd), MBS_OK);
    assert_int_equal(nd, 1);
    int u = 0;
    while (!indep[u]) ++u;
    for (int it = 0; it < 20; ++it) { /* Newton: u -= qacc_u / (d qacc_u / du) */
        assert_int_equal(mbs_linearize(d, A, NULL, &nx), MBS_OK);
        assert_int_equal(nx, 2);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        const double acc = mbs_data_qacc(d)[u];
        if (fabs(acc) < 1e-12) break;
        move_independent(d, u, -acc / A[2]);
    }
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_true(fabs(mbs_data_qacc(d)[u]) < 1e-11);
    double re[2], im[2];
    assert_int_equal(modes(d, re, im), 2);
    const double wl = im[0];
    print_message("four-bar modes: %.9g %+.9g i, %.9g %+.9g i\n", re[0], im[0], re[1], im[1]);
    assert_true(fabs(re[0]) < 1e-6 * wl && wl > 1.0);
    /* B: M^-1 reduced, against finite differences in tau (linear: any step) */
    static double Bm[2 * NMAX];
    const int nv = mbs_model_nv(mech.model);
    assert_int_equal(mbs_linearize(d, A, Bm, &nx), MBS_OK);
    double ue = mbs_data_q(d)[u];
    for (int j = 0; j < nv; ++j) {
        double acc[2];
        for (int s = 0; s < 2; ++s) {
            mbs_data_tau(d)[j] = s ? -0.5 : 0.5;
            assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
            acc[s] = mbs_data_qacc(d)[u];
        }
        mbs_data_tau(d)[j] = 0.0;
        assert_true(Bm[j] == 0.0);
        assert_true(fabs(Bm[nv + j] - (acc[0] - acc[1])) < 1e-9 * (1.0 + fabs(Bm[nv + j])));
    }
    /* the simulated period of a small oscillation about the equilibrium */
    const double amp = 1e-3, dt = 1e-3;
    move_independent(d, u, amp);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    double prev = mbs_data_q(d)[u] - ue, t_first = -1.0, t_last = -1.0;
    int crossings = 0;
    const double t_end = 4.0 * 2.0 * PI / wl;
    for (int k = 0; k * dt < t_end; ++k) {
        assert_int_equal(mbs_stepper_step(s, dt), MBS_OK);
        const double x = mbs_data_q(d)[u] - ue;
        if (prev < 0.0 && x >= 0.0) { /* upward zero crossing, linear interpolation */
            const double tc = mbs_data_time(d) - dt * x / (x - prev);
            if (t_first < 0.0) t_first = tc;
            else t_last = tc, crossings++;
        }
        prev = x;
    }
    assert_true(crossings >= 2);
    const double ws = 2.0 * PI * crossings / (t_last - t_first);
    print_message("four-bar: linearised %.9f rad/s, simulated %.9f rad/s (%d periods), rel %.2e\n",
                  wl, ws, crossings, fabs(ws - wl) / wl);
    assert_true(fabs(ws - wl) < 1e-5 * wl);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* The four-bar in motion, its loop cut at B, at A or at the rocker's ground pivot O4 (three
   trees, three partitions, the crank angle independent in each): the same A (2 x 2, in the
   crank angle and rate) to 1e-8 and the same column of B for the crank torque; qacc left
   as forward dynamics leaves it. */
static void test_fourbar_cuts_agree(void **state)
{
    (void)state;
    static const int cuts[3] = {LM_CUT_B, LM_CUT_A, LM_CUT_O4};
    double Ac[3][4], Bc[3];
    for (int c = 0; c < 3; ++c) {
        lm_fourbar p = lm_default_fourbar();
        p.cut = cuts[c];
        p.damping = 0.3;
        lm_mech mech;
        assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
        mbs_data *d = mbs_data_create(mech.model);
        double th[3] = {0.7, 0, 0}, w[3] = {2.5, 0, 0}, al[3];
        assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
        lm_fourbar_rates(&p, th, w[0], 0.0, w, al);
        lm_fourbar_set(&p, &mech, d, th, w);
        assert_int_equal(mbs_assemble(d), MBS_OK);
        unsigned char indep[NMAX];
        int nd = 0, nx = 0, u = 0;
        const int nv = mbs_model_nv(mech.model);
        static double Bm[2 * NMAX];
        assert_int_equal(mbs_linearize(d, A, Bm, &nx), MBS_OK);
        assert_int_equal(mbs_linearize_coordinates(d, indep, &nd), MBS_OK);
        while (!indep[u]) ++u;
        assert_int_equal(u, mbs_model_joint_vadr(mech.model, mech.joint[0])); /* the crank */
        double qacc[NMAX];
        memcpy(qacc, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        assert_memory_equal(qacc, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
        memcpy(Ac[c], A, sizeof Ac[c]);
        Bc[c] = Bm[nv + u];
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
    for (int c = 1; c < 3; ++c) {
        for (int i = 0; i < 4; ++i)
            if (fabs(Ac[c][i] - Ac[0][i]) > 1e-8 * (1.0 + fabs(Ac[0][i])))
                fail_msg("cut %d: A[%d] %.12g vs %.12g", c, i, Ac[c][i], Ac[0][i]);
        assert_true(fabs(Bc[c] - Bc[0]) < 1e-9 * fabs(Bc[0]));
        print_message("four-bar cut %d vs cut B: A rel diff %.2e %.2e, B %.2e\n", c,
                      fabs(Ac[c][2] - Ac[0][2]) / fabs(Ac[0][2]),
                      fabs(Ac[c][3] - Ac[0][3]) / fabs(Ac[0][3]), fabs(Bc[c] - Bc[0]) / fabs(Bc[0]));
    }
}

/* Bad input: NULL data and arguments, a capacity below the number of eigenvalues, a
   non-finite state; the data's state unchanged. */
static void test_bad_input(void **state)
{
    (void)state;
    const double m = 1.0, l = 0.5, I = 0.01;
    mbs_model *model = hanging_chain(1, &m, &l, &l, &I);
    mbs_data *d = mbs_data_create(model);
    double re[2], im[2];
    int n = 2, nx = 0;
    unsigned char ind[1];
    assert_int_equal(mbs_linearize(NULL, A, B, &nx), MBS_ERR_ARG);
    assert_int_equal(mbs_linearize(d, NULL, B, &nx), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "NULL A"));
    assert_int_equal(mbs_linearize(d, A, B, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_modes(NULL, re, im, &n), MBS_ERR_ARG);
    assert_int_equal(mbs_modes(d, NULL, im, &n), MBS_ERR_ARG);
    assert_int_equal(mbs_modes(d, re, NULL, &n), MBS_ERR_ARG);
    assert_int_equal(mbs_modes(d, re, im, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "NULL"));
    n = 1;
    assert_int_equal(mbs_modes(d, re, im, &n), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "less than the 2 eigenvalues"));
    assert_int_equal(n, 1);
    assert_int_equal(mbs_linearize_coordinates(d, NULL, &n), MBS_ERR_ARG);
    assert_int_equal(mbs_linearize_coordinates(d, ind, &n), MBS_OK);
    assert_true(n == 1 && ind[0] == 1);
    mbs_data_q(d)[0] = NAN;
    n = 2;
    assert_int_equal(mbs_modes(d, re, im, &n), MBS_ERR_NONFINITE);
    assert_int_equal(mbs_linearize(d, A, B, &nx), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "q[0]"));
    mbs_data_destroy(d);
    mbs_model_destroy(model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_state_matrix),
        cmocka_unit_test(test_pendulum),
        cmocka_unit_test(test_double_pendulum),
        cmocka_unit_test(test_mass_spring_chain),
        cmocka_unit_test(test_floating_base),
        cmocka_unit_test(test_fourbar_frequency),
        cmocka_unit_test(test_fourbar_cuts_agree),
        cmocka_unit_test(test_numerical_tree),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
