/* Dynamics: ABA vs CRBA + solve vs RNEA on random trees, analytic cases, energy, errors. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/linalg.h"

#define TOL 1e-10

/* ---------------------------------------------------------------- helpers */
static mbs_data *make_data(const mbs_model *m)
{
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    return d;
}

static void *xmalloc(size_t n)
{
    void *p = calloc(n > 0 ? n : 1, 1);
    assert_non_null(p);
    return p;
}

/* x = M^-1 b with LAPACK's dense Cholesky (independent of the tree-sparse factorisation);
   returns LAPACK's info (0 when M is positive definite). */
static int dense_spd_solve(int n, const double *M, const double *b, double *x)
{
    if (n == 0) return 0;
    double *A = xmalloc(sizeof(double) * (size_t)(n * n));
    memcpy(A, M, sizeof(double) * (size_t)(n * n));
    memcpy(x, b, sizeof(double) * (size_t)n);
    /* M is symmetric: its row-major array is also its column-major array */
    int info = mbs_linalg_cholesky(n, A, n);
    if (info == 0) info = mbs_linalg_cholesky_solve(n, 1, A, n, x, n);
    free(A);
    return info;
}

static double quat_norm4(const double q[4])
{
    return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}

/* Hamilton product o = a (x) b, scalar first. */
static void quat_mul(double o[4], const double a[4], const double b[4])
{
    o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    o[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    o[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static void quat_axis_angle(double q[4], int axis, double a)
{
    q[0] = cos(0.5 * a);
    q[1] = q[2] = q[3] = 0.0;
    q[1 + axis] = sin(0.5 * a);
}

/* Quaternion of R = Rx(a1) Ry(a2) Rz(a3). */
static void quat_from_cardan(double q[4], const double a[3])
{
    double qx[4], qy[4], qz[4], t[4];
    quat_axis_angle(qx, 0, a[0]);
    quat_axis_angle(qy, 1, a[1]);
    quat_axis_angle(qz, 2, a[2]);
    quat_mul(t, qx, qy);
    quat_mul(q, t, qz);
}

/* Row-major rotation matrix of a unit quaternion (scalar first). */
static void quat_to_mat(const double q[4], double R[9])
{
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* Angular velocity in the child frame of R = Rx(a1) Ry(a2) Rz(a3) for rates ad:
   w = ad1 Rz^T Ry^T e1 + ad2 Rz^T e2 + ad3 e3. */
static void cardan_omega(double w[3], const double a[3], const double ad[3])
{
    const double c2 = cos(a[1]), s2 = sin(a[1]), c3 = cos(a[2]), s3 = sin(a[2]);
    /* Ry^T e1 = (c2, 0, s2); Rz^T (x, y, z) = (c3 x + s3 y, -s3 x + c3 y, z) */
    w[0] = ad[0] * c3 * c2 + ad[1] * s3;
    w[1] = -ad[0] * s3 * c2 + ad[1] * c3;
    w[2] = ad[0] * s2 + ad[2];
}

/* x = A^-1 b for a 3x3 matrix (Cramer). */
static void solve3(const double A[9], const double b[3], double x[3])
{
    const double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                       A[2] * (A[3] * A[7] - A[4] * A[6]);
    for (int k = 0; k < 3; ++k) {
        double B[9];
        memcpy(B, A, sizeof B);
        for (int i = 0; i < 3; ++i) B[3 * i + k] = b[i];
        x[k] = (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                B[2] * (B[3] * B[7] - B[4] * B[6])) / det;
    }
}

/* ---------------------------------------------------------------- spatial algebra */
/* Dense 6x6 of the Plücker motion transform X_BA (pose of B in A): [E 0; -E[p] E]. */
static void dense_X(double X[36], const mbs_pose *P)
{
    double E[9], px[9] = {0, -P->p[2], P->p[1], P->p[2], 0, -P->p[0], -P->p[1], P->p[0], 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) E[3 * i + j] = P->R[3 * j + i];
    memset(X, 0, 36 * sizeof(double));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k) s += E[3 * i + k] * px[3 * k + j];
            X[6 * i + j] = E[3 * i + j];
            X[6 * (i + 3) + j + 3] = E[3 * i + j];
            X[6 * (i + 3) + j] = -s;
        }
}

/* O = X^T I X densely. */
static void dense_congruence(double O[36], const double X[36], const double I[36])
{
    double T[36];
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double s = 0.0;
            for (int k = 0; k < 6; ++k) s += I[6 * i + k] * X[6 * k + j];
            T[6 * i + j] = s;
        }
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double s = 0.0;
            for (int k = 0; k < 6; ++k) s += X[6 * k + i] * T[6 * k + j];
            O[6 * i + j] = s;
        }
}

static void random_pose(test_rng *r, mbs_pose *P)
{
    test_random_rotation(r, P->R);
    for (int i = 0; i < 3; ++i) P->p[i] = test_rng_uniform(r, -2.0, 2.0);
}

/* rbi_transform_to_parent and m6_transform_to_parent vs dense X^T I X; the motion and force
   transforms of spatial.h vs the dense X. */
static void test_spatial_transforms(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 11);
    for (int it = 0; it < 50; ++it) {
        mbs_pose P;
        mbs_rbi I, J;
        double X[36], I6[36], ref[36], got[36], A[36];
        random_pose(&r, &P);
        dense_X(X, &P);
        I.m = test_rng_uniform(&r, 0.0, 3.0);
        double c[3], Ic[9];
        for (int k = 0; k < 3; ++k) c[k] = test_rng_uniform(&r, -1, 1);
        test_random_inertia(&r, 0.1, 1.0, Ic);
        for (int k = 0; k < 3; ++k) I.h[k] = I.m * c[k];
        double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) I.I[3 * i + j] = Ic[3 * i + j] + I.m * ((i == j) * cc - c[i] * c[j]);
        rbi_to_m6(I6, &I);
        dense_congruence(ref, X, I6);
        rbi_transform_to_parent(&J, &P, &I);
        rbi_to_m6(got, &J);
        test_assert_close(got, ref, 36, 1e-13, "rbi_transform_to_parent");
        /* a general symmetric 6x6 (articulated inertia) */
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j <= i; ++j) A[6 * i + j] = A[6 * j + i] = test_rng_uniform(&r, -1, 1);
        dense_congruence(ref, X, A);
        m6_transform_to_parent(got, &P, A);
        test_assert_close(got, ref, 36, 1e-13, "m6_transform_to_parent");
        /* motion and force transforms */
        double mv[6], o[6], o2[6];
        for (int k = 0; k < 6; ++k) mv[k] = test_rng_uniform(&r, -1, 1);
        xm_apply(o, &P, mv);
        m6_mulv(o2, X, mv);
        test_assert_close(o, o2, 6, 1e-14, "xm_apply");
        xm_apply_inv(o2, &P, o);
        test_assert_close(o2, mv, 6, 1e-14, "xm_apply_inv");
        xf_apply_transpose(o, &P, mv);
        for (int i = 0; i < 6; ++i) {
            o2[i] = 0.0;
            for (int k = 0; k < 6; ++k) o2[i] += X[6 * k + i] * mv[k];
        }
        test_assert_close(o, o2, 6, 1e-14, "xf_apply_transpose");
    }
}

/* ---------------------------------------------------------------- random trees */
/* One random case: every consistency relation between ABA, CRBA, RNEA and energy. */
static void check_consistency(uint64_t seed, int nbody, int gravity)
{
    test_tree_opts o = test_default_tree_opts(nbody);
    o.gravity = gravity;
    o.springs = (int)(seed % 4 == 0 ? 0 : seed % 2 + 1);
    mbs_model *m = test_random_tree(seed, &o);
    mbs_data *d = make_data(m);
    test_rng r;
    test_rng_seed(&r, seed + 1000);
    test_random_state(&r, d, 1.0, 1.5, 2.0);
    const int nv = mbs_model_nv(m), nb = mbs_model_nbody(m);
    for (int k = 0; k < 2; ++k) { /* host wrenches on two random bodies */
        double F[3], T[3], P[3];
        for (int i = 0; i < 3; ++i)
            F[i] = test_rng_uniform(&r, -3, 3), T[i] = test_rng_uniform(&r, -1, 1),
            P[i] = test_rng_uniform(&r, -0.5, 0.5);
        assert_int_equal(mbs_set_body_wrench(d, test_rng_int(&r, 1, nb - 1), F, T, P), MBS_OK);
    }
    double *M = xmalloc(sizeof(double) * (size_t)(nv * nv + 1));
    double *c = xmalloc(sizeof(double) * (size_t)(nv + 1));
    double *rhs = xmalloc(sizeof(double) * (size_t)(nv + 1));
    double *x = xmalloc(sizeof(double) * (size_t)(nv + 1));
    double *tau = xmalloc(sizeof(double) * (size_t)(nv + 1));
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double *qacc = mbs_data_qacc(d);
    assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
    assert_int_equal(mbs_bias_forces(d, c), MBS_OK);
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) assert_true(M[nv * i + j] == M[nv * j + i]);
    /* ABA == solve(M, tau - c) by dense Cholesky (which must succeed: M is SPD) */
    for (int i = 0; i < nv; ++i) rhs[i] = mbs_data_tau(d)[i] - c[i];
    assert_int_equal(dense_spd_solve(nv, M, rhs, x), 0);
    test_assert_close(qacc, x, nv, TOL, "ABA vs CRBA solve");
    /* the library's tree-sparse L^T D L gives the same solution */
    memcpy(x, rhs, sizeof(double) * (size_t)nv);
    assert_int_equal(mbs_mass_factor(m, M), MBS_OK);
    mbs_mass_solve(m, M, x);
    test_assert_close(qacc, x, nv, TOL, "ABA vs LTDL solve");
    /* RNEA(qacc) == tau */
    assert_int_equal(mbs_inverse_dynamics(d, qacc, tau), MBS_OK);
    test_assert_close(tau, mbs_data_tau(d), nv, TOL, "RNEA(ABA(tau)) vs tau");
    /* kinetic energy == 1/2 v^T M v */
    double T, V, vMv = 0.0;
    assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) vMv += mbs_data_v(d)[i] * M[nv * i + j] * mbs_data_v(d)[j];
    assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
    assert_true(fabs(T - 0.5 * vMv) <= TOL * (1.0 + fabs(T)));
    free(M), free(c), free(rhs), free(x), free(tau);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

static void test_random_trees(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; ++seed)
        check_consistency(seed, 1 + (int)(seed * 7 % 14), (int)(seed % 3));
}

/* Power balance along the motion: d(T + V)/dt = tau . v (gravity and undamped springs
   are conservative, no input wrenches) by central differences along q(t) = q (+) t v,
   v(t) = v + t qacc. */
static void test_power_balance(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 112; ++seed) {
        test_tree_opts o = test_default_tree_opts(2 + (int)(seed % 7));
        o.gravity = 1 + (int)(seed % 2);
        o.springs = (int)(seed % 2);
        mbs_model *m = test_random_tree(seed, &o);
        mbs_data *d = make_data(m);
        test_rng r;
        test_rng_seed(&r, seed);
        test_random_state(&r, d, 1.0, 1.0, 1.0);
        const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
        double *q0 = xmalloc(sizeof(double) * (size_t)nq), *v0 = xmalloc(sizeof(double) * (size_t)nv);
        double *a = xmalloc(sizeof(double) * (size_t)nv);
        memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
        memcpy(v0, mbs_data_v(d), sizeof(double) * (size_t)nv);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        memcpy(a, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
        double power = 0.0, E[2];
        for (int i = 0; i < nv; ++i) power += mbs_data_tau(d)[i] * v0[i];
        const double h = 1e-5;
        for (int s = 0; s < 2; ++s) {
            const double t = s ? h : -h;
            double T, V;
            assert_int_equal(mbs_integrate_q(m, q0, v0, t, mbs_data_q(d)), MBS_OK);
            for (int i = 0; i < nv; ++i) mbs_data_v(d)[i] = v0[i] + t * a[i];
            assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
            E[s] = T + V;
        }
        const double dEdt = (E[1] - E[0]) / (2 * h);
        if (!(fabs(dEdt - power) <= 1e-6 * (1.0 + fabs(power))))
            fail_msg("seed %d: dE/dt %.12g vs power %.12g", (int)seed, dEdt, power);
        free(q0), free(v0), free(a);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* mbs_body_velocity vs central differences of mbs_body_pose. */
static void test_body_velocity_fd(void **state)
{
    (void)state;
    for (uint64_t seed = 200; seed < 206; ++seed) {
        test_tree_opts o = test_default_tree_opts(6);
        mbs_model *m = test_random_tree(seed, &o);
        mbs_data *d = make_data(m);
        test_rng r;
        test_rng_seed(&r, seed);
        test_random_state(&r, d, 1.0, 1.0, 0.0);
        const int nq = mbs_model_nq(m), nb = mbs_model_nbody(m);
        double *q0 = xmalloc(sizeof(double) * (size_t)nq);
        memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
        const double h = 1e-6;
        for (int b = 0; b < nb; ++b) {
            double lin[3], ang[3], p[2][3], R[2][9], fdl[3], fda[3], Rd[9], W[9];
            assert_int_equal(mbs_body_velocity(d, b, lin, ang), MBS_OK);
            for (int s = 0; s < 2; ++s) {
                assert_int_equal(mbs_integrate_q(m, q0, mbs_data_v(d), s ? h : -h, mbs_data_q(d)),
                                 MBS_OK);
                assert_int_equal(mbs_body_pose(d, b, p[s], R[s]), MBS_OK);
            }
            memcpy(mbs_data_q(d), q0, sizeof(double) * (size_t)nq);
            for (int i = 0; i < 3; ++i) fdl[i] = (p[1][i] - p[0][i]) / (2 * h);
            for (int i = 0; i < 9; ++i) Rd[i] = (R[1][i] - R[0][i]) / (2 * h);
            double Rm[9];
            assert_int_equal(mbs_body_pose(d, b, p[0], Rm), MBS_OK);
            for (int i = 0; i < 3; ++i) /* W = Rdot R^T = [w]x */
                for (int j = 0; j < 3; ++j)
                    W[3 * i + j] = Rd[3 * i] * Rm[3 * j] + Rd[3 * i + 1] * Rm[3 * j + 1] +
                                   Rd[3 * i + 2] * Rm[3 * j + 2];
            fda[0] = 0.5 * (W[7] - W[5]);
            fda[1] = 0.5 * (W[2] - W[6]);
            fda[2] = 0.5 * (W[3] - W[1]);
            test_assert_close(lin, fdl, 3, 1e-7, "body linear velocity vs FD");
            test_assert_close(ang, fda, 3, 1e-7, "body angular velocity vs FD");
        }
        free(q0);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Same inputs, bitwise same outputs (two data of one model). */
static void test_determinism(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(12);
    mbs_model *m = test_random_tree(77, &o);
    mbs_data *d1 = make_data(m), *d2 = make_data(m);
    test_rng r1, r2;
    test_rng_seed(&r1, 5);
    test_rng_seed(&r2, 5);
    test_random_state(&r1, d1, 1, 1, 1);
    test_random_state(&r2, d2, 1, 1, 1);
    assert_int_equal(mbs_forward_dynamics(d1), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d2), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d2), MBS_OK);
    assert_memory_equal(mbs_data_qacc(d1), mbs_data_qacc(d2),
                        sizeof(double) * (size_t)mbs_model_nv(m));
    mbs_data_destroy(d1);
    mbs_data_destroy(d2);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- analytic cases */
static mbs_builder *new_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    return b;
}

static mbs_model *compile_or_fail(mbs_builder *b)
{
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    if (st != MBS_OK) fail_msg("compile: %s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Simple pendulum with a joint spring-damper:
   thdd = (tau - m g l sin th - k (th - th0) - c thd) / (Izz + m l^2). */
static void test_pendulum(void **state)
{
    (void)state;
    const double m_ = 1.7, l = 0.8, Izz = 0.05, g = 9.81;
    mbs_builder *b = new_builder();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "bob";
    bd.mass = m_;
    v3_set(bd.com, 0.0, -l, 0.0);
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = 0.06, bd.inertia[4] = 0.03, bd.inertia[8] = Izz;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = MBS_WORLD;
    jd.child = 1;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    const double k = 3.0, c = 0.4, th0 = 0.2;
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, k, c, th0), 0);
    const double gv[3] = {0.0, -g, 0.0};
    assert_int_equal(mbs_builder_set_gravity(b, gv), MBS_OK);
    mbs_model *m = compile_or_fail(b);
    mbs_data *d = make_data(m);
    const double th[] = {0.3, -1.2, 2.5, 3.0};
    for (int i = 0; i < 4; ++i) {
        mbs_data_q(d)[0] = th[i];
        mbs_data_v(d)[0] = 0.7 * i;
        mbs_data_tau(d)[0] = 0.4 * i - 0.5;
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        const double ref = (mbs_data_tau(d)[0] - m_ * g * l * sin(th[i]) - k * (th[i] - th0) -
                            c * mbs_data_v(d)[0]) / (Izz + m_ * l * l);
        test_assert_close(mbs_data_qacc(d), &ref, 1, TOL, "pendulum");
        double T, V;
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        const double Tref = 0.5 * (Izz + m_ * l * l) * mbs_data_v(d)[0] * mbs_data_v(d)[0];
        const double Vref = -m_ * g * l * cos(th[i]) + 0.5 * k * (th[i] - th0) * (th[i] - th0);
        test_assert_close(&T, &Tref, 1, TOL, "pendulum kinetic energy");
        test_assert_close(&V, &Vref, 1, TOL, "pendulum potential energy");
    }
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A free body (com at its origin, quaternion root): in uniform gravity qacc_lin = g; the
   rotation obeys Euler's equations dw/dt = I^-1 (-w x I w) in the body frame; with point
   gravity qacc_lin = -mu r / |r|^3. */
static void test_free_body(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 3);
    for (int kind = 0; kind < 2; ++kind) {
        mbs_builder *b = new_builder();
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 2.5;
        test_random_inertia(&r, 0.05, 0.5, bd.inertia);
        assert_int_equal(mbs_add_body(b, &bd), 1);
        const double g[3] = {1.0, -2.0, -9.0}, center[3] = {0.5, -0.3, 0.2}, mu = 30.0;
        if (kind == 0)
            assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
        else
            assert_int_equal(mbs_builder_set_point_gravity(b, center, mu), MBS_OK);
        mbs_model *m = compile_or_fail(b); /* body 1 gets an automatic free joint */
        assert_int_equal(mbs_model_nq(m), 7);
        assert_int_equal(mbs_model_nv(m), 6);
        mbs_data *d = make_data(m);
        double *q = mbs_data_q(d), *v = mbs_data_v(d);
        for (int i = 0; i < 3; ++i) q[i] = test_rng_uniform(&r, -2, 2);
        for (int i = 3; i < 7; ++i) q[i] = test_rng_uniform(&r, -1, 1);
        const double n = quat_norm4(q + 3);
        for (int i = 3; i < 7; ++i) q[i] /= n;
        for (int i = 0; i < 6; ++i) v[i] = test_rng_uniform(&r, -3, 3);
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        const double *a = mbs_data_qacc(d);
        double lin[3], Iw[3], wxIw[3], ang[3];
        if (kind == 0) {
            memcpy(lin, g, sizeof lin);
        } else {
            double rr[3];
            v3_sub(rr, q, center);
            const double rn = v3_norm(rr);
            for (int i = 0; i < 3; ++i) lin[i] = -mu * rr[i] / (rn * rn * rn);
            double T, V;
            assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
            const double Vref = -mu * bd.mass / rn;
            test_assert_close(&V, &Vref, 1, TOL, "point gravity potential");
        }
        test_assert_close(a, lin, 3, TOL, "free body linear acceleration");
        m3_mulv(Iw, bd.inertia, v + 3);
        v3_cross(wxIw, v + 3, Iw);
        for (int i = 0; i < 3; ++i) wxIw[i] = -wxIw[i];
        solve3(bd.inertia, wxIw, ang);
        test_assert_close(a + 3, ang, 3, TOL, "Euler's equations");
        if (kind == 1) { /* at the centre of the field: no force, no NaN */
            double T, V;
            const double zero[3] = {0, 0, 0};
            memcpy(q, center, 3 * sizeof(double));
            assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
            test_assert_close(mbs_data_qacc(d), zero, 3, TOL, "point gravity at the centre");
            assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
            assert_true(V == 0.0);
        }
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Host wrench on a free body at rest without gravity: a = F/m, I dw/dt = R^T (T + (R r) x F). */
static void test_host_wrench(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 8);
    mbs_builder *b = new_builder();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "box";
    bd.mass = 3.0;
    test_random_inertia(&r, 0.05, 0.5, bd.inertia);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_model *m = compile_or_fail(b);
    mbs_data *d = make_data(m);
    double *q = mbs_data_q(d), R[9], pos[3];
    const double qa[4] = {0.8, 0.1, -0.4, 0.3};
    const double nq = quat_norm4(qa);
    for (int i = 0; i < 4; ++i) q[3 + i] = qa[i] / nq;
    const double F[3] = {1.0, 2.0, -3.0}, T[3] = {0.3, -0.2, 0.5}, P[3] = {0.2, -0.1, 0.4};
    assert_int_equal(mbs_set_body_wrench(d, 1, F, T, P), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_int_equal(mbs_body_pose(d, 1, pos, R), MBS_OK);
    double lin[3], rw[3], mom[3], momb[3], ang[3];
    for (int i = 0; i < 3; ++i) lin[i] = F[i] / bd.mass;
    m3_mulv(rw, R, P);
    v3_cross(mom, rw, F);
    v3_add(mom, mom, T);
    m3_tmulv(momb, R, mom);
    solve3(bd.inertia, momb, ang);
    test_assert_close(mbs_data_qacc(d), lin, 3, TOL, "wrench linear");
    test_assert_close(mbs_data_qacc(d) + 3, ang, 3, TOL, "wrench angular");
    /* NULL point = body origin; all-zero wrench clears the input */
    assert_int_equal(mbs_set_body_wrench(d, 1, F, NULL, NULL), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    test_assert_close(mbs_data_qacc(d), lin, 3, TOL, "wrench at origin");
    const double zero[3] = {0, 0, 0};
    test_assert_close(mbs_data_qacc(d) + 3, zero, 3, TOL, "wrench at origin: no rotation");
    assert_int_equal(mbs_set_body_wrench(d, 1, NULL, NULL, NULL), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    test_assert_close(mbs_data_qacc(d), zero, 3, TOL, "cleared wrench");
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Prismatic chain along one axis: under gravity the chain falls as one mass,
   qdd_0 = g.a, qdd_i = 0; a force tau_0 on the first slider moves only the first body
   (the others slide freely): qdd_0 += tau_0 / m_1, qdd_1 -= tau_0 / m_1. */
static void test_prismatic_chain(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 21);
    const int n = 5;
    const double axis[3] = {0.48, -0.6, 0.64}, g[3] = {0.5, 3.0, -9.0};
    mbs_builder *b = new_builder();
    double m1 = 0.0;
    for (int i = 1; i <= n; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = test_rng_uniform(&r, 0.5, 2.0);
        for (int k = 0; k < 3; ++k) bd.com[k] = test_rng_uniform(&r, -0.3, 0.3);
        test_random_inertia(&r, 0.01, 0.1, bd.inertia);
        if (i == 1) m1 = bd.mass;
        assert_int_equal(mbs_add_body(b, &bd), i);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
        jd.parent = i - 1;
        jd.child = i;
        memcpy(jd.axis, axis, sizeof axis);
        for (int k = 0; k < 3; ++k) jd.frame_parent.pos[k] = test_rng_uniform(&r, -1, 1);
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_model *m = compile_or_fail(b);
    mbs_data *d = make_data(m);
    for (int i = 0; i < n; ++i) mbs_data_q(d)[i] = test_rng_uniform(&r, -1, 1);
    mbs_data_tau(d)[0] = 4.0;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double ref[5] = {0};
    ref[0] = v3_dot(g, axis) + 4.0 / m1;
    ref[1] = -4.0 / m1;
    test_assert_close(mbs_data_qacc(d), ref, n, TOL, "prismatic chain");
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Two joints with a massless link between them vs the merged joint with the same
   coordinates: revolute + revolute = universal, prismatic + revolute (same axis) =
   cylindrical. Same qacc and mass matrix. */
static mbs_model *two_joint_model(int merged, int cyl, const mbs_frame *fp, const mbs_frame *fc,
                                  const double a1[3], const double a2[3], const mbs_body_def *tip)
{
    mbs_builder *b = new_builder();
    const double g[3] = {0.3, -1.0, -9.81};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_body_def link = mbs_default_body_def();
    link.name = "link";
    link.mass = 0.0;
    memset(link.inertia, 0, sizeof link.inertia);
    if (!merged) assert_int_equal(mbs_add_body(b, &link), 1);
    const int tipid = mbs_add_body(b, tip);
    mbs_joint_def j1 = mbs_default_joint_def(merged ? (cyl ? MBS_JOINT_CYLINDRICAL : MBS_JOINT_UNIVERSAL)
                                                    : (cyl ? MBS_JOINT_PRISMATIC : MBS_JOINT_REVOLUTE));
    j1.parent = MBS_WORLD;
    j1.child = merged ? tipid : 1;
    j1.frame_parent = *fp;
    memcpy(j1.axis, a1, 3 * sizeof(double));
    memcpy(j1.axis2, a2, 3 * sizeof(double));
    if (merged) j1.frame_child = *fc;
    assert_true(mbs_add_joint(b, &j1) >= 0);
    if (!merged) {
        mbs_joint_def j2 = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j2.parent = 1;
        j2.child = tipid;
        memcpy(j2.axis, cyl ? a1 : a2, 3 * sizeof(double));
        j2.frame_child = *fc;
        assert_true(mbs_add_joint(b, &j2) >= 0);
    }
    return compile_or_fail(b);
}

static void test_massless_link(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 31);
    for (int cyl = 0; cyl < 2; ++cyl) {
        mbs_frame fp, fc;
        double a1[3] = {0.0, 0.6, 0.8}, a2[3] = {1.0, 0.0, 0.0};
        test_random_rotation(&r, fp.rot);
        test_random_rotation(&r, fc.rot);
        for (int k = 0; k < 3; ++k)
            fp.pos[k] = test_rng_uniform(&r, -1, 1), fc.pos[k] = test_rng_uniform(&r, -1, 1);
        mbs_body_def tip = mbs_default_body_def();
        tip.name = "tip";
        tip.mass = 1.3;
        v3_set(tip.com, 0.2, -0.1, 0.3);
        test_random_inertia(&r, 0.02, 0.2, tip.inertia);
        mbs_model *ma = two_joint_model(0, cyl, &fp, &fc, a1, a2, &tip);
        mbs_model *mb = two_joint_model(1, cyl, &fp, &fc, a1, a2, &tip);
        assert_int_equal(mbs_model_nv(ma), 2);
        assert_int_equal(mbs_model_nv(mb), 2);
        mbs_data *da = make_data(ma), *db = make_data(mb);
        for (int k = 0; k < 2; ++k) {
            mbs_data_q(da)[k] = mbs_data_q(db)[k] = test_rng_uniform(&r, -2, 2);
            mbs_data_v(da)[k] = mbs_data_v(db)[k] = test_rng_uniform(&r, -2, 2);
            mbs_data_tau(da)[k] = mbs_data_tau(db)[k] = test_rng_uniform(&r, -2, 2);
        }
        assert_int_equal(mbs_forward_dynamics(da), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(db), MBS_OK);
        test_assert_close(mbs_data_qacc(da), mbs_data_qacc(db), 2, TOL, "massless link vs merged");
        double Ma[4], Mb[4];
        assert_int_equal(mbs_mass_matrix(da, Ma), MBS_OK);
        assert_int_equal(mbs_mass_matrix(db, Mb), MBS_OK);
        test_assert_close(Ma, Mb, 4, TOL, "massless link vs merged: M");
        mbs_data_destroy(da);
        mbs_data_destroy(db);
        mbs_model_destroy(ma);
        mbs_model_destroy(mb);
    }
}

/* Two bodies welded by a fixed joint == one body with the combined inertia. */
static void test_fixed_merge(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 41);
    mbs_body_def b1 = mbs_default_body_def(), b2 = mbs_default_body_def(), bm;
    b1.mass = 1.2, b2.mass = 0.7;
    v3_set(b1.com, 0.1, 0.2, -0.1);
    v3_set(b2.com, -0.2, 0.05, 0.3);
    test_random_inertia(&r, 0.02, 0.2, b1.inertia);
    test_random_inertia(&r, 0.02, 0.2, b2.inertia);
    mbs_frame weld; /* frame on body 1 = pose of body 2 in body 1 (frame_child identity) */
    test_random_rotation(&r, weld.rot);
    v3_set(weld.pos, 0.4, -0.3, 0.2);
    /* merged body: com and inertia of body 2 moved into body 1 coordinates */
    double c2[3], I2[9], T[9];
    m3_mulv(c2, weld.rot, b2.com);
    v3_add(c2, c2, weld.pos);
    m3_mul(T, weld.rot, b2.inertia);
    m3_mult(I2, T, weld.rot);
    bm = b1;
    bm.mass = b1.mass + b2.mass;
    double cm[3];
    for (int k = 0; k < 3; ++k) cm[k] = (b1.mass * b1.com[k] + b2.mass * c2[k]) / bm.mass;
    memcpy(bm.com, cm, sizeof cm);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) { /* parallel axis theorem about the new com */
            double d1[3], d2[3];
            v3_sub(d1, b1.com, cm);
            v3_sub(d2, c2, cm);
            const double s1 = (i == j) * v3_dot(d1, d1) - d1[i] * d1[j];
            const double s2 = (i == j) * v3_dot(d2, d2) - d2[i] * d2[j];
            bm.inertia[3 * i + j] = b1.inertia[3 * i + j] + I2[3 * i + j] + b1.mass * s1 + b2.mass * s2;
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < i; ++j) bm.inertia[3 * i + j] = bm.inertia[3 * j + i];
    double qacc[2][2];
    for (int merged = 0; merged < 2; ++merged) {
        mbs_builder *b = new_builder();
        assert_int_equal(mbs_add_body(b, merged ? &bm : &b1), 1);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_UNIVERSAL);
        j.parent = 0, j.child = 1;
        v3_set(j.axis, 0.0, 0.0, 1.0);
        v3_set(j.axis2, 0.0, 1.0, 0.0);
        v3_set(j.frame_parent.pos, 0.1, 0.2, 0.3);
        assert_true(mbs_add_joint(b, &j) >= 0);
        if (!merged) {
            assert_int_equal(mbs_add_body(b, &b2), 2);
            mbs_joint_def f = mbs_default_joint_def(MBS_JOINT_FIXED);
            f.parent = 1, f.child = 2, f.frame_parent = weld;
            assert_true(mbs_add_joint(b, &f) >= 0);
        }
        mbs_model *m = compile_or_fail(b);
        mbs_data *d = make_data(m);
        mbs_data_q(d)[0] = 0.7, mbs_data_q(d)[1] = -0.4;
        mbs_data_v(d)[0] = 1.1, mbs_data_v(d)[1] = 0.5;
        mbs_data_tau(d)[0] = 0.3;
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        memcpy(qacc[merged], mbs_data_qacc(d), sizeof qacc[0]);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
    test_assert_close(qacc[0], qacc[1], 2, TOL, "fixed joint vs merged body");
}

/* The same physical state in quaternion and Cardan coordinates (free root + spherical +
   revolute chain; Cardan angles relative to a random reference frame Fix in aux, R = Fix
   Rx Ry Rz): same poses, velocities and spatial body accelerations. */
static mbs_model *quat_cardan_model(mbs_rotation rot, test_rng *r)
{
    mbs_builder *b = new_builder();
    for (int i = 1; i <= 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 0.5 + 0.3 * i;
        v3_set(bd.com, 0.1 * i, -0.2, 0.05);
        test_random_inertia(r, 0.02, 0.2, bd.inertia);
        assert_int_equal(mbs_add_body(b, &bd), i);
    }
    const mbs_joint_type types[3] = {MBS_JOINT_FREE, MBS_JOINT_SPHERICAL, MBS_JOINT_REVOLUTE};
    for (int i = 1; i <= 3; ++i) {
        mbs_joint_def jd = mbs_default_joint_def(types[i - 1]);
        jd.parent = i - 1, jd.child = i, jd.rotation = rot;
        test_random_rotation(r, jd.frame_parent.rot);
        test_random_rotation(r, jd.frame_child.rot);
        v3_set(jd.frame_parent.pos, 0.3, 0.1 * i, -0.2);
        v3_set(jd.frame_child.pos, -0.1, 0.2, 0.1 * i);
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    const double g[3] = {0.0, 0.0, -9.81};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    return compile_or_fail(b);
}

static void test_quat_vs_cardan(void **state)
{
    (void)state;
    test_rng r1, r2, rs;
    test_rng_seed(&r1, 51);
    test_rng_seed(&r2, 51);
    test_rng_seed(&rs, 52);
    mbs_model *mq = quat_cardan_model(MBS_ROT_QUATERNION, &r1);
    mbs_model *mc = quat_cardan_model(MBS_ROT_CARDAN, &r2);
    assert_int_equal(mbs_model_nq(mq), 12);
    assert_int_equal(mbs_model_nq(mc), 10);
    assert_int_equal(mbs_model_nv(mq), 10);
    assert_int_equal(mbs_model_nv(mc), 10);
    mbs_data *dq = make_data(mq), *dc = make_data(mc);
    double *qq = mbs_data_q(dq), *qc = mbs_data_q(dc), *vq = mbs_data_v(dq), *vc = mbs_data_v(dc);
    double ang[2][3], rate[2][3];
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < 3; ++k)
            ang[s][k] = test_rng_uniform(&rs, -1.0, 1.0), rate[s][k] = test_rng_uniform(&rs, -2, 2);
    /* free: q [p, rot], v [lin, ang]; spherical: q rot, v ang; revolute: 1 */
    for (int k = 0; k < 3; ++k) qq[k] = qc[k] = test_rng_uniform(&rs, -1, 1);
    for (int k = 0; k < 3; ++k) vq[k] = vc[k] = test_rng_uniform(&rs, -1, 1);
    for (int s = 0; s < 2; ++s) { /* Fix_s in the Cardan joint's aux; q = fix (x) cardan */
        double qf[4], qa[4];
        for (int k = 0; k < 4; ++k) qf[k] = test_rng_uniform(&rs, -1, 1);
        const double nf = quat_norm4(qf);
        for (int k = 0; k < 4; ++k) qf[k] /= nf;
        quat_to_mat(qf, dc->aux + mc->joints[s].auxadr);
        quat_from_cardan(qa, ang[s]);
        quat_mul(qq + 3 + 4 * s, qf, qa);
    }
    memcpy(qc + 3, ang[0], sizeof ang[0]);
    memcpy(qc + 6, ang[1], sizeof ang[1]);
    qq[11] = qc[9] = 0.4;
    cardan_omega(vq + 3, ang[0], rate[0]);
    memcpy(vc + 3, rate[0], sizeof rate[0]);
    cardan_omega(vq + 6, ang[1], rate[1]);
    memcpy(vc + 6, rate[1], sizeof rate[1]);
    vq[9] = vc[9] = -0.8;
    for (int b = 1; b <= 3; ++b) {
        double p1[3], R1[9], p2[3], R2[9], l1[3], w1[3], l2[3], w2[3];
        assert_int_equal(mbs_body_pose(dq, b, p1, R1), MBS_OK);
        assert_int_equal(mbs_body_pose(dc, b, p2, R2), MBS_OK);
        test_assert_close(p1, p2, 3, TOL, "quat vs Cardan: position");
        test_assert_close(R1, R2, 9, TOL, "quat vs Cardan: rotation");
        assert_int_equal(mbs_body_velocity(dq, b, l1, w1), MBS_OK);
        assert_int_equal(mbs_body_velocity(dc, b, l2, w2), MBS_OK);
        test_assert_close(l1, l2, 3, TOL, "quat vs Cardan: linear velocity");
        test_assert_close(w1, w2, 3, TOL, "quat vs Cardan: angular velocity");
    }
    assert_int_equal(mbs_forward_dynamics(dq), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(dc), MBS_OK);
    /* spatial accelerations of the bodies in body coordinates (physical quantities) */
    test_assert_close(dq->acc + 6, dc->acc + 6, 18, TOL, "quat vs Cardan: body accelerations");
    test_assert_close(mbs_data_qacc(dq), mbs_data_qacc(dc), 3, TOL, "quat vs Cardan: free linear");
    test_assert_close(mbs_data_qacc(dq) + 9, mbs_data_qacc(dc) + 9, 1, TOL,
                      "quat vs Cardan: revolute");
    mbs_data_destroy(dq);
    mbs_data_destroy(dc);
    mbs_model_destroy(mq);
    mbs_model_destroy(mc);
}

/* ---------------------------------------------------------------- errors */
/* A massless end body: MBS_ERR_SINGULAR naming the body, qacc untouched. */
static void test_singular_end(void **state)
{
    (void)state;
    mbs_model *m = test_massless_tip();
    mbs_data *d = make_data(m);
    mbs_data_q(d)[0] = 0.3;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_SINGULAR);
    assert_non_null(strstr(mbs_data_error(d), "\"tip\""));
    assert_non_null(strstr(mbs_data_error(d), "singular"));
    assert_true(mbs_data_qacc(d)[0] == 0.0 && mbs_data_qacc(d)[1] == 0.0);
    assert_true(mbs_data_q(d)[0] == 0.3);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* NaN/Inf in q, v, tau: MBS_ERR_NONFINITE naming index and joint; qacc untouched. */
static void test_nonfinite(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(5);
    o.roots = 0;
    mbs_model *m = test_random_tree(9, &o);
    mbs_data *d = make_data(m);
    test_rng r;
    test_rng_seed(&r, 9);
    test_random_state(&r, d, 1, 1, 1);
    const int nv = mbs_model_nv(m), nq = mbs_model_nq(m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    double *saved = xmalloc(sizeof(double) * (size_t)nv), *tau = xmalloc(sizeof(double) * (size_t)nv);
    memcpy(saved, mbs_data_qacc(d), sizeof(double) * (size_t)nv);
    double *orig = xmalloc(sizeof(double) * (size_t)nv);
    memcpy(orig, saved, sizeof(double) * (size_t)nv);
    double *arrs[3] = {mbs_data_q(d), mbs_data_v(d), mbs_data_tau(d)};
    const int lens[3] = {nq, nv, nv};
    const char *names[3] = {"q[", "v[", "tau["};
    for (int k = 0; k < 3; ++k) {
        const int i = lens[k] - 1;
        const double keep = arrs[k][i];
        arrs[k][i] = k == 1 ? INFINITY : NAN;
        assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_NONFINITE);
        assert_non_null(strstr(mbs_data_error(d), names[k]));
        assert_non_null(strstr(mbs_data_error(d), "joint"));
        assert_memory_equal(mbs_data_qacc(d), saved, sizeof(double) * (size_t)nv);
        if (k < 2) {
            for (int e = 0; e < nv; ++e) tau[e] = 12345.0;
            assert_int_equal(mbs_inverse_dynamics(d, saved, tau), MBS_ERR_NONFINITE);
            assert_true(tau[0] == 12345.0);
            double T, V;
            assert_int_equal(mbs_energy(d, &T, &V), MBS_ERR_NONFINITE);
        }
        arrs[k][i] = keep;
    }
    saved[0] = NAN;
    assert_int_equal(mbs_inverse_dynamics(d, saved, tau), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "qacc[0]"));
    /* time */
    assert_int_equal(mbs_data_set_time(d, 2.5), MBS_OK);
    assert_int_equal(mbs_data_set_time(d, NAN), MBS_ERR_ARG);
    assert_int_equal(mbs_data_set_time(d, INFINITY), MBS_ERR_ARG);
    assert_true(mbs_data_time(d) == 2.5);
    /* wrenches */
    const double bad[3] = {0.0, NAN, 0.0}, ok[3] = {1, 2, 3};
    assert_int_equal(mbs_set_body_wrench(d, 1, bad, ok, ok), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "\"b1\""));
    assert_int_equal(mbs_set_body_wrench(d, 1, ok, bad, ok), MBS_ERR_ARG);
    assert_int_equal(mbs_set_body_wrench(d, 1, ok, ok, bad), MBS_ERR_ARG);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK); /* rejected inputs were not applied */
    assert_memory_equal(mbs_data_qacc(d), orig, sizeof(double) * (size_t)nv);
    free(orig);
    free(saved);
    free(tau);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Finite inputs whose accelerations overflow: MBS_ERR_NONFINITE, qacc kept as it was. */
static void test_nonfinite_result(void **state)
{
    (void)state;
    mbs_builder *b = new_builder();
    mbs_body_def bd = mbs_default_body_def(); /* inertia 1e-3 */
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 0, j.child = 1;
    assert_true(mbs_add_joint(b, &j) >= 0);
    mbs_model *m = compile_or_fail(b);
    mbs_data *d = make_data(m);
    mbs_data_tau(d)[0] = 1.0;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    const double ok = mbs_data_qacc(d)[0];
    assert_true(fabs(ok - 1000.0) < 1e-9);
    mbs_data_tau(d)[0] = 1e308;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_NONFINITE);
    assert_non_null(strstr(mbs_data_error(d), "qacc[0]"));
    assert_true(mbs_data_qacc(d)[0] == ok);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* NULL data, NULL outputs and bad body ids for every call. */
static void test_bad_args(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(3);
    mbs_model *m = test_random_tree(4, &o);
    mbs_data *d = make_data(m);
    const int nb = mbs_model_nbody(m);
    double buf[64], p[3], R[9], T, V;
    int rank = -1;
    assert_null(mbs_data_create(NULL));
    mbs_data_destroy(NULL);
    assert_null(mbs_data_model(NULL));
    assert_ptr_equal(mbs_data_model(d), m);
    assert_string_equal(mbs_data_error(NULL), "");
    assert_string_equal(mbs_data_error(d), "");
    assert_null(mbs_data_q(NULL));
    assert_null(mbs_data_v(NULL));
    assert_null(mbs_data_tau(NULL));
    assert_null(mbs_data_qacc(NULL));
    assert_null(mbs_data_lambda(NULL));
    assert_true(isnan(mbs_data_time(NULL)));
    assert_int_equal(mbs_data_set_time(NULL, 1.0), MBS_ERR_ARG);
    assert_int_equal(mbs_forward_dynamics(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_inverse_dynamics(NULL, buf, buf), MBS_ERR_ARG);
    assert_int_equal(mbs_inverse_dynamics(d, NULL, buf), MBS_ERR_ARG);
    assert_int_equal(mbs_inverse_dynamics(d, buf, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_mass_matrix(NULL, buf), MBS_ERR_ARG);
    assert_int_equal(mbs_mass_matrix(d, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_bias_forces(NULL, buf), MBS_ERR_ARG);
    assert_int_equal(mbs_bias_forces(d, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_energy(NULL, &T, &V), MBS_ERR_ARG);
    assert_int_equal(mbs_energy(d, NULL, &V), MBS_ERR_ARG);
    assert_int_equal(mbs_energy(d, &T, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_assemble(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_constraint_info(NULL, &rank, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_constraint_info(d, NULL, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_body_pose(NULL, 1, p, R), MBS_ERR_ARG);
    assert_int_equal(mbs_body_pose(d, 1, NULL, R), MBS_ERR_ARG);
    assert_int_equal(mbs_body_pose(d, 1, p, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_body_velocity(NULL, 1, p, p), MBS_ERR_ARG);
    assert_int_equal(mbs_body_velocity(d, 1, NULL, p), MBS_ERR_ARG);
    assert_int_equal(mbs_body_velocity(d, 1, p, NULL), MBS_ERR_ARG);
    const int bad_ids[2] = {-1, nb};
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(mbs_body_pose(d, bad_ids[k], p, R), MBS_ERR_ARG);
        assert_non_null(strstr(mbs_data_error(d), "out of range"));
        assert_int_equal(mbs_body_velocity(d, bad_ids[k], p, p), MBS_ERR_ARG);
        assert_int_equal(mbs_set_body_wrench(d, bad_ids[k], p, p, NULL), MBS_ERR_ARG);
    }
    assert_int_equal(mbs_set_body_wrench(NULL, 1, p, p, p), MBS_ERR_ARG);
    assert_int_equal(mbs_set_body_wrench(d, MBS_WORLD, p, p, p), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_data_error(d), "world"));
    /* the world body: identity pose, zero velocity */
    assert_int_equal(mbs_body_pose(d, MBS_WORLD, p, R), MBS_OK);
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, z3[3] = {0, 0, 0};
    assert_memory_equal(R, I3, sizeof I3);
    assert_memory_equal(p, z3, sizeof z3);
    /* a tree: assemble normalises quaternions, constraint rank 0 */
    assert_int_equal(mbs_model_ncon(m), 0);
    assert_int_equal(mbs_constraint_info(d, &rank, NULL), MBS_OK);
    assert_int_equal(rank, 0);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* mbs_assemble on a tree normalises quaternion coordinates and leaves the rest. */
static void test_assemble_tree(void **state)
{
    (void)state;
    mbs_builder *b = new_builder();
    mbs_body_def bd = mbs_default_body_def();
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_model *m = compile_or_fail(b); /* free root, quaternion */
    mbs_data *d = make_data(m);
    double *q = mbs_data_q(d);
    const double q0[7] = {1.0, 2.0, 3.0, 2.0, 0.0, 0.0, 0.0};
    memcpy(q, q0, sizeof q0);
    mbs_data_v(d)[0] = 0.5;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const double ref[7] = {1.0, 2.0, 3.0, 1.0, 0.0, 0.0, 0.0};
    test_assert_close(q, ref, 7, 1e-15, "assemble normalises");
    assert_true(mbs_data_v(d)[0] == 0.5);
    q[3] = NAN;
    assert_int_equal(mbs_assemble(d), MBS_ERR_NONFINITE);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Initial state: q neutral, v, tau, time zero; aux-free accessors sized by the model. */
static void test_data_initial_state(void **state)
{
    (void)state;
    test_tree_opts o = test_default_tree_opts(10);
    mbs_model *m = test_random_tree(12, &o);
    mbs_data *d = make_data(m);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double *qn = xmalloc(sizeof(double) * (size_t)nq);
    assert_int_equal(mbs_neutral_q(m, qn), MBS_OK);
    assert_memory_equal(mbs_data_q(d), qn, sizeof(double) * (size_t)nq);
    for (int i = 0; i < nv; ++i)
        assert_true(mbs_data_v(d)[i] == 0.0 && mbs_data_tau(d)[i] == 0.0 && mbs_data_qacc(d)[i] == 0.0);
    assert_true(mbs_data_time(d) == 0.0);
    free(qn);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- the linalg seam */
static void test_linalg(void **state)
{
    (void)state;
    /* column-major 3x3 */
    double A[9] = {4, 1, 2, 1, 5, 3, 2, 3, 6}, L[9], b[3] = {1, 2, 3}, x[3], Ax[3];
    memcpy(L, A, sizeof A);
    assert_int_equal(mbs_linalg_cholesky(3, L, 3), 0);
    memcpy(x, b, sizeof b);
    assert_int_equal(mbs_linalg_cholesky_solve(3, 1, L, 3, x, 3), 0);
    mbs_linalg_gemv(0, 3, 3, 1.0, A, 3, x, 0.0, Ax);
    test_assert_close(Ax, b, 3, 1e-14, "cholesky solve");
    double N[9] = {0, 1, 2, 1, 0, 1, 3, 1, 0}, LU[9];
    int ipiv[3];
    memcpy(LU, N, sizeof N);
    assert_int_equal(mbs_linalg_lu(3, 3, LU, 3, ipiv), 0);
    for (int tr = 0; tr < 2; ++tr) {
        memcpy(x, b, sizeof b);
        assert_int_equal(mbs_linalg_lu_solve(tr, 3, 1, LU, 3, ipiv, x, 3), 0);
        mbs_linalg_gemv(tr, 3, 3, 1.0, N, 3, x, 0.0, Ax);
        test_assert_close(Ax, b, 3, 1e-14, "lu solve");
    }
    /* rank 2: third column = first + second; pivoted QR shows a zero R(3,3) */
    double Q[12] = {1, 2, 0, 1, 0, 1, 1, 1, 1, 3, 1, 2}, tau[3];
    int jpvt[3] = {0, 0, 0};
    const int lw = mbs_linalg_qrp_lwork(4, 3);
    double *w = xmalloc(sizeof(double) * (size_t)lw);
    assert_int_equal(mbs_linalg_qrp(4, 3, Q, 4, jpvt, tau, w, lw), 0);
    assert_true(fabs(Q[0]) >= fabs(Q[5]) && fabs(Q[5]) > 1e-3 && fabs(Q[10]) < 1e-12 * fabs(Q[0]));
    assert_true(jpvt[0] == 3); /* largest column first */
    const int lq = mbs_linalg_apply_qt_lwork(4, 1, 3);
    double *wq = xmalloc(sizeof(double) * (size_t)lq);
    double c[4] = {1, 0, 0, 0}, c2[4];
    memcpy(c2, c, sizeof c);
    assert_int_equal(mbs_linalg_apply_qt(1, 4, 1, 3, Q, 4, tau, c2, 4, wq, lq), 0);
    assert_int_equal(mbs_linalg_apply_qt(0, 4, 1, 3, Q, 4, tau, c2, 4, wq, lq), 0);
    test_assert_close(c2, c, 4, 1e-14, "Q Q^T = 1");
    double R2[4] = {2, 0, 1, 4}, y[2] = {4, 8}; /* upper [2 1; 0 4] col-major */
    assert_int_equal(mbs_linalg_tri_solve(0, 2, 1, R2, 2, y, 2), 0);
    const double yr[2] = {1.0, 2.0};
    test_assert_close(y, yr, 2, 1e-15, "tri solve");
    /* eigenvalues: rotation generator [0 -1; 1 0] -> +-i; symmetric [2 1; 1 2] -> 1, 3 */
    double G[4] = {0, 1, -1, 0}, wr[2], wi[2], S[4] = {2, 1, 1, 2}, ws[2];
    const int le = mbs_linalg_eig_lwork(2, 0), ls = mbs_linalg_sym_eig_lwork(2);
    double *we = xmalloc(sizeof(double) * (size_t)le), *wsy = xmalloc(sizeof(double) * (size_t)ls);
    assert_int_equal(mbs_linalg_eig(2, G, 2, wr, wi, NULL, 2, we, le), 0);
    assert_true(fabs(wr[0]) < 1e-15 && fabs(fabs(wi[0]) - 1.0) < 1e-15);
    assert_int_equal(mbs_linalg_sym_eig(2, S, 2, ws, wsy, ls), 0);
    assert_true(fabs(ws[0] - 1.0) < 1e-14 && fabs(ws[1] - 3.0) < 1e-14);
    double C[4];
    const double P1[4] = {1, 3, 2, 4}, P2[4] = {5, 7, 6, 8}; /* [1 2;3 4] [5 6;7 8] */
    mbs_linalg_gemm(0, 0, 2, 2, 2, 1.0, P1, 2, P2, 2, 0.0, C, 2);
    const double Cr[4] = {19, 43, 22, 50};
    test_assert_close(C, Cr, 4, 1e-15, "gemm");
    free(w), free(wq), free(we), free(wsy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spatial_transforms),
        cmocka_unit_test(test_linalg),
        cmocka_unit_test(test_data_initial_state),
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_power_balance),
        cmocka_unit_test(test_body_velocity_fd),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_pendulum),
        cmocka_unit_test(test_free_body),
        cmocka_unit_test(test_host_wrench),
        cmocka_unit_test(test_prismatic_chain),
        cmocka_unit_test(test_massless_link),
        cmocka_unit_test(test_fixed_merge),
        cmocka_unit_test(test_quat_vs_cardan),
        cmocka_unit_test(test_singular_end),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_nonfinite_result),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_assemble_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
