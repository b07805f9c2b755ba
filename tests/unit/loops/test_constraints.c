/* Cut-joint constraint rows (src/loops/constraints.c) against independent references:
 *  - Jacobian columns and J̇q̇ against 4th-order central differences of h along the flow
 *    q(t) = integrate(q, v t) of random trees with cut joints of every type;
 *  - every type's rows vanish on the joint's own manifold (the child placed by the joint's
 *    transform), annihilate the joint's motion subspace and are independent (rank = rows);
 *  - the multipliers of every type against a hand-computed static equilibrium of a body
 *    hanging from the world by that cut joint (the documented lambda convention);
 *  - repartitioning: a triple-rocker four-bar whose prioritised input link reaches its limit
 *    positions (J_v singular for that choice) keeps moving closed with energy conserved;
 *  - failed steps: the loop solver's state is restored with the data's, so a run whose
 *    every step first fails stays bitwise on one that never failed, and the local-error
 *    estimate leaves the run as without it;
 *  - inverse dynamics with loops: minimum-norm tau that forward dynamics maps back;
 *  - a spatial RSSR loop through a quaternion spherical joint (closed, energy, RK4 vs CVODE)
 *    and bitwise repeatable loop stepping. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/linalg.h"
#include "core/rotation.h"
#include "loops/constraints.h"
#include "loops/loops.h"

#define NTYPES 9
static const mbs_joint_type cut_types[NTYPES] = {
    MBS_JOINT_REVOLUTE, MBS_JOINT_PRISMATIC, MBS_JOINT_CYLINDRICAL, MBS_JOINT_UNIVERSAL,
    MBS_JOINT_SPHERICAL, MBS_JOINT_PLANAR,   MBS_JOINT_FIXED,       MBS_JOINT_DISTANCE,
    MBS_JOINT_FREE};
static const int cut_nrows[NTYPES] = {5, 5, 4, 4, 3, 3, 6, 1, 0};

/* Random unit vector. */
static void rand_unit(test_rng *r, double u[3])
{
    double n = 0.0;
    while (n < 0.1) {
        for (int k = 0; k < 3; ++k) u[k] = test_rng_uniform(r, -1.0, 1.0);
        n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    }
    for (int k = 0; k < 3; ++k) u[k] /= n;
}

/* Random frame: rotation and position within [-s, s]. */
static void rand_frame(test_rng *r, mbs_frame *f, double s)
{
    test_random_rotation(r, f->rot);
    for (int k = 0; k < 3; ++k) f->pos[k] = test_rng_uniform(r, -s, s);
}

/* Random joint definition of a type between parent and child (random frames and axes). */
static mbs_joint_def rand_joint(test_rng *r, mbs_joint_type type, int parent, int child)
{
    mbs_joint_def d = mbs_default_joint_def(type);
    d.parent = parent;
    d.child = child;
    rand_frame(r, &d.frame_parent, 0.5);
    rand_frame(r, &d.frame_child, 0.5);
    rand_unit(r, d.axis);
    rand_unit(r, d.axis2);
    d.rotation = test_rng_int(r, 0, 1) ? MBS_ROT_CARDAN : MBS_ROT_QUATERNION;
    d.length = test_rng_uniform(r, 0.3, 1.5);
    return d;
}

/* Random body with a random com and inertia. */
static void add_rand_body(test_rng *r, mbs_builder *b)
{
    mbs_body_def d = mbs_default_body_def();
    d.mass = test_rng_uniform(r, 0.5, 2.0);
    for (int k = 0; k < 3; ++k) d.com[k] = test_rng_uniform(r, -0.3, 0.3);
    test_random_inertia(r, 0.05, 0.2, d.inertia);
    assert_true(mbs_add_body(b, &d) >= 1);
}

/* Random tree of n bodies (every tree type) plus one cut joint of every type between random
   bodies (the world included). */
static mbs_model *random_loop_model(uint64_t seed, int n)
{
    static const mbs_joint_type tree_types[] = {
        MBS_JOINT_REVOLUTE,  MBS_JOINT_PRISMATIC, MBS_JOINT_CYLINDRICAL, MBS_JOINT_UNIVERSAL,
        MBS_JOINT_SPHERICAL, MBS_JOINT_PLANAR,    MBS_JOINT_FREE,        MBS_JOINT_FIXED};
    test_rng r;
    test_rng_seed(&r, seed);
    mbs_builder *b = mbs_builder_create();
    for (int i = 1; i <= n; ++i) add_rand_body(&r, b);
    for (int i = 1; i <= n; ++i) {
        mbs_joint_def d = rand_joint(&r, tree_types[(i + (int)seed) % 8], test_rng_int(&r, 0, i - 1), i);
        assert_true(mbs_add_joint(b, &d) >= 0);
    }
    for (int t = 0; t < NTYPES; ++t) {
        int p = test_rng_int(&r, 0, n), c = test_rng_int(&r, 0, n - 1);
        if (c >= p) ++c;
        mbs_joint_def d = rand_joint(&r, cut_types[t], p, c);
        d.cut = 1;
        assert_true(mbs_add_joint(b, &d) >= 0);
    }
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    if (st != MBS_OK) print_error("compile: %s\n", mbs_builder_error(b));
    assert_int_equal(st, MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Scaled residuals of all rows at configuration q. */
static void residual_at(mbs_data *d, const mbs_con_topo *t, const double *q, double *h)
{
    memcpy(d->q, q, (size_t)d->model->nq * sizeof(double));
    mbs_kinematics_pos(d);
    mbs_con_residual(d, t, NULL, t->ncon, h);
}

/* h(k) = h(integrate(q0, w, k eps)) for k = -2..2 (index k + 2). */
static void residual_line(mbs_data *d, const mbs_con_topo *t, const double *q0,
                          const double *w, double eps, double *qt, double *h5)
{
    const int m = t->ncon;
    for (int k = -2; k <= 2; ++k) {
        assert_int_equal(mbs_integrate_q(d->model, q0, w, k * eps, qt), MBS_OK);
        residual_at(d, t, qt, h5 + (size_t)m * (size_t)(k + 2));
    }
}

/* Analytic J, J̇q̇ at (q0, v) against differences of h along the flow of v and of every
   unit velocity: J e_k = h'(0) (4th-order first difference), J̇q̇ = h''(0). */
static void check_fd(mbs_data *d, const mbs_con_topo *t, const double *q0)
{
    const mbs_model *m = d->model;
    const int nv = m->nv, nc = t->ncon;
    double *J = calloc((size_t)nc * (size_t)nv, sizeof(double)), *gam = calloc((size_t)nc, sizeof(double));
    double *Sw = calloc(6 * (size_t)nv, sizeof(double)), *a = calloc(18 * (size_t)m->nbody, sizeof(double));
    double *h5 = calloc(5 * (size_t)nc, sizeof(double)), *qt = calloc((size_t)m->nq, sizeof(double));
    double *w = calloc((size_t)nv, sizeof(double)), *fd = calloc((size_t)nc, sizeof(double));
    memcpy(d->q, q0, (size_t)m->nq * sizeof(double));
    mbs_kinematics(d);
    mbs_con_world_motion(d, Sw);
    mbs_con_jacobian(d, t, Sw, NULL, nc, J);
    mbs_con_world_accel(d, a, a + 6 * m->nbody, a + 12 * m->nbody);
    mbs_con_bias(d, t, a + 6 * m->nbody, a + 12 * m->nbody, NULL, nc, gam);
    const double eps = 1e-3;
    for (int k = 0; k < nv; ++k) { /* columns */
        for (int i = 0; i < nv; ++i) w[i] = i == k ? 1.0 : 0.0;
        residual_line(d, t, q0, w, eps, qt, h5);
        for (int i = 0; i < nc; ++i) {
            fd[i] = (h5[i] - 8.0 * h5[nc + i] + 8.0 * h5[3 * nc + i] - h5[4 * nc + i]) / (12.0 * eps);
            if (fabs(fd[i] - J[(size_t)i * (size_t)nv + (size_t)k]) > 1e-8 * (1.0 + fabs(fd[i])))
                print_error("row %d col %d: J %.12g fd %.12g\n", i, k, J[(size_t)i * (size_t)nv + (size_t)k], fd[i]);
            assert_true(fabs(fd[i] - J[(size_t)i * (size_t)nv + (size_t)k]) <= 1e-8 * (1.0 + fabs(fd[i])));
        }
    }
    residual_line(d, t, q0, d->v, eps, qt, h5); /* J̇q̇ = d²h/dt² along the flow of v */
    for (int i = 0; i < nc; ++i) {
        fd[i] = (-h5[i] + 16.0 * h5[nc + i] - 30.0 * h5[2 * nc + i] + 16.0 * h5[3 * nc + i] -
                 h5[4 * nc + i]) / (12.0 * eps * eps);
        if (fabs(fd[i] - gam[i]) > 1e-6 * (1.0 + fabs(fd[i])))
            print_error("row %d: Jdot v %.12g fd %.12g\n", i, gam[i], fd[i]);
        assert_true(fabs(fd[i] - gam[i]) <= 1e-6 * (1.0 + fabs(fd[i])));
    }
    free(J), free(gam), free(Sw), free(a), free(h5), free(qt), free(w), free(fd);
}

/* Random trees with every cut type: J and J̇q̇ against finite differences. */
static void test_rows_finite_differences(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        mbs_model *m = random_loop_model(seed, 3 + (int)(seed % 5));
        assert_int_equal(mbs_model_ncon(m), 31);
        mbs_data *d = mbs_data_create(m);
        mbs_con_topo t;
        assert_int_equal(mbs_con_topo_init(m, &t), MBS_OK);
        test_rng r;
        test_rng_seed(&r, 100 + seed);
        test_random_state(&r, d, 1.0, 1.5, 0.0);
        double *q0 = malloc(sizeof(double) * (size_t)m->nq);
        memcpy(q0, d->q, sizeof(double) * (size_t)m->nq);
        check_fd(d, &t, q0);
        free(q0);
        mbs_con_topo_free(&t);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* world -(revolute)- A; B free (automatic root); cut of type T from A to B. */
static mbs_model *one_cut_model(test_rng *r, mbs_joint_type type, mbs_joint_def *cut)
{
    mbs_builder *b = mbs_builder_create();
    add_rand_body(r, b);
    add_rand_body(r, b);
    mbs_joint_def d = rand_joint(r, MBS_JOINT_REVOLUTE, 0, 1);
    assert_int_equal(mbs_add_joint(b, &d), 0);
    *cut = rand_joint(r, type, 1, 2);
    cut->rotation = MBS_ROT_QUATERNION; /* transform() below runs without aux */
    cut->cut = 1;
    assert_int_equal(mbs_add_joint(b, cut), 1);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Place B (free root, joint 2) so that the cut's Fc sits at X_T(qT) in Fp. */
static void place_child(mbs_data *d, const mbs_joint_model *cj, const double *qT)
{
    const mbs_model *m = d->model;
    const mbs_joint_model *fj = &m->joints[2];
    mbs_pose XT, t1, t2, inv, XB;
    mbs_kinematics_pos(d);
    cj->ops->transform(cj, NULL, qT, &XT);
    pose_mul(&t1, &d->x_world[1], &cj->frame_parent);
    pose_mul(&t2, &t1, &XT);
    pose_inverse(&inv, &cj->frame_child);
    pose_mul(&XB, &t2, &inv);
    double *q = d->q + fj->qadr;
    v3_copy(q, XB.p);
    mbs_mat_to_quat(q + 3, XB.R);
}

/* Smallest over largest eigenvalue of J_B J_B^T (n x n) for the free joint's 6 columns. */
static double gram_ratio(const double *J, int n, int nv, int c0)
{
    double G[36], w[6], work[512];
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
            double s = 0.0;
            for (int c = 0; c < 6; ++c) s += J[i * nv + c0 + c] * J[k * nv + c0 + c];
            G[i + n * k] = s;
        }
    assert_true(mbs_linalg_sym_eig_lwork(n) <= 512);
    assert_int_equal(mbs_linalg_sym_eig(n, G, n, w, work, 512), 0);
    return w[0] / w[n - 1];
}

/* Every cut type: h = 0 on the joint's manifold, J annihilates the joint's motion subspace
   mapped to B's free velocity, and the rows are independent. */
static void test_rows_match_joint(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 77);
    for (int t = 0; t < NTYPES; ++t) {
        mbs_joint_def def;
        mbs_model *m = one_cut_model(&r, cut_types[t], &def);
        const mbs_joint_model *cj = &m->joints[1];
        const int nc = cut_nrows[t], nv = m->nv, fv = m->joints[2].vadr;
        assert_int_equal(mbs_model_ncon(m), nc);
        mbs_data *d = mbs_data_create(m);
        mbs_con_topo tp;
        assert_int_equal(mbs_con_topo_init(m, &tp), MBS_OK);
        double J[6 * 7], h[6], Sw[6 * 7], qT[7] = {0}, wT[6], S[36];
        for (int trial = 0; trial < 5; ++trial) {
            d->q[0] = test_rng_uniform(&r, -2.0, 2.0);
            if (cut_types[t] == MBS_JOINT_DISTANCE) { /* child point on the sphere |d| = L */
                double u[3];
                rand_unit(&r, u);
                mbs_pose X = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
                v3_scale(X.p, u, def.length);
                mbs_kinematics_pos(d);
                mbs_pose t1, t2, inv;
                pose_mul(&t1, &d->x_world[1], &cj->frame_parent);
                pose_mul(&t2, &t1, &X);
                pose_inverse(&inv, &cj->frame_child);
                pose_mul(&X, &t2, &inv);
                v3_copy(d->q + m->joints[2].qadr, X.p);
                mbs_mat_to_quat(d->q + m->joints[2].qadr + 3, X.R);
            } else {
                cj->ops->neutral(cj, qT);
                for (int k = 0; k < cj->ops->nv; ++k) wT[k] = test_rng_uniform(&r, -1.5, 1.5);
                cj->ops->integrate(cj, qT, wT, 1.0, qT);
                place_child(d, cj, qT);
            }
            memset(d->v, 0, sizeof(double) * (size_t)nv);
            mbs_kinematics(d);
            mbs_con_residual(d, &tp, NULL, nc, h);
            for (int i = 0; i < nc; ++i) assert_true(fabs(h[i]) < 1e-13);
            mbs_con_world_motion(d, Sw);
            mbs_con_jacobian(d, &tp, Sw, NULL, nc, J);
            if (nc > 0) assert_true(gram_ratio(J, nc, nv, fv) > 1e-4);
            if (cut_types[t] == MBS_JOINT_DISTANCE) continue;
            cj->ops->motion(cj, qT, wT, S, NULL); /* allowed motions: J x = 0 */
            for (int k = 0; k < cj->ops->nv; ++k) { /* B's twist in B, then free velocity */
                double tw[6], v6[7] = {0};
                xm_apply_inv(tw, &cj->frame_child, S + 6 * k);
                m3_mulv(v6 + fv, d->x_world[2].R, tw + 3); /* B's origin, world frame */
                v3_copy(v6 + fv + 3, tw);                  /* angular, B frame */
                for (int i = 0; i < nc; ++i) {
                    double s = 0.0;
                    for (int c = 0; c < nv; ++c) s += J[i * nv + c] * v6[c];
                    assert_true(fabs(s) < 1e-12);
                }
            }
        }
        mbs_con_topo_free(&tp);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Body (mass 2, com c) on a free root, hanging from the world at its origin by one cut joint
   (Fp = world axes at the origin, Fc = body axes; distance: rod of length 0.7 from (0,0,0.7)). */
static mbs_data *hanging(mbs_joint_type type, const double c[3], const double axis[3],
                         const double axis2[3])
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0;
    v3_copy(bd.com, c);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def d = mbs_default_joint_def(type);
    d.parent = 0;
    d.child = 1;
    d.cut = 1;
    v3_copy(d.axis, axis);
    v3_copy(d.axis2, axis2);
    d.length = 0.7;
    if (type == MBS_JOINT_DISTANCE) d.frame_parent.pos[2] = 0.7;
    assert_int_equal(mbs_add_joint(b, &d), 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return mbs_data_create(m);
}

/* Static equilibrium: qacc = 0 and lambda as computed by hand (mbs.h convention: cut force
   on the child in Fp components, then torques; distance: push along d, negative = pull). */
static void check_static(mbs_joint_type type, const double c[3], const double axis[3],
                         const double axis2[3], const double *lam, int n)
{
    mbs_data *d = hanging(type, c, axis, axis2);
    const mbs_model *m = mbs_data_model(d);
    assert_int_equal(mbs_model_ncon(m), n);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    for (int i = 0; i < mbs_model_nv(m); ++i) {
        if (fabs(mbs_data_qacc(d)[i]) >= 1e-10)
            print_error("type %d: qacc[%d] = %g, lambda[0] %g\n", (int)type, i, mbs_data_qacc(d)[i], mbs_data_lambda(d)[0]);
        assert_true(fabs(mbs_data_qacc(d)[i]) < 1e-10); /* I = 1e-3: roundoff / I */
    }
    test_assert_close(mbs_data_lambda(d), lam, n, 1e-12, "static lambda");
    mbs_data_destroy(d);
    mbs_model_destroy((mbs_model *)m);
}

/* Hand-computed reactions: weight W = m g = 2 * 9.81 upward on the child, gravity torque
   about the joint point balanced by c x (0, 0, W). */
static void test_lambda_static(void **state)
{
    (void)state;
    const double W = 2.0 * 9.81, X[3] = {1, 0, 0}, Y[3] = {0, 1, 0}, Z[3] = {0, 0, 1};
    const double c[3] = {0.3, -0.2, -0.5}, cx0[3] = {0.3, 0.0, -0.5}, cz[3] = {0, 0, -0.5};
    const double rev[5] = {0, 0, W, c[1] * W, -c[0] * W};
    check_static(MBS_JOINT_REVOLUTE, c, Z, X, rev, 5);
    const double pri[5] = {0, W, c[1] * W, -c[0] * W, 0}; /* u1 = e_y, u2 = e_z for axis x */
    check_static(MBS_JOINT_PRISMATIC, c, X, Y, pri, 5);
    const double cyl[4] = {0, W, -cx0[0] * W, 0}; /* torques about u1 = e_y, u2 = e_z */
    check_static(MBS_JOINT_CYLINDRICAL, cx0, X, Y, cyl, 4);
    const double uni[4] = {0, 0, W, 0};
    check_static(MBS_JOINT_UNIVERSAL, cz, X, Y, uni, 4);
    const double sph[3] = {0, 0, W};
    check_static(MBS_JOINT_SPHERICAL, cz, Z, X, sph, 3);
    const double pla[3] = {W, c[1] * W, -c[0] * W}; /* normal z; torques about x, y */
    check_static(MBS_JOINT_PLANAR, c, Z, X, pla, 3);
    const double fix[6] = {0, 0, W, c[1] * W, -c[0] * W, 0};
    check_static(MBS_JOINT_FIXED, c, Z, X, fix, 6);
    const double dis[1] = {-W}; /* the rod pulls the child up: tension */
    check_static(MBS_JOINT_DISTANCE, (const double[3]){0, 0, 0}, Z, X, dis, 1);
}

/* ---------------------------------------------------------------- repartitioning */

#define TR_A 0.5 /* crank */
#define TR_B 0.4 /* coupler */
#define TR_C 0.6 /* rocker */
#define TR_D 0.8 /* ground O2 -> O4 along x */

/* Uniform bar of mass 1 and length L along the body x axis. */
static int add_bar(mbs_builder *b, double L)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.com[0] = 0.5 * L;
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = 1e-4;
    bd.inertia[4] = bd.inertia[8] = L * L / 12.0;
    return mbs_add_body(b, &bd);
}

/* Revolute z joint from parent (frame at x = xp) to child (frame at x = xc). */
static void add_rev_z(mbs_builder *b, int parent, int child, double xp, double xc, int cut,
                      int priority)
{
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = parent, j.child = child, j.cut = cut, j.state_priority = priority;
    j.frame_parent.pos[0] = xp;
    j.frame_child.pos[0] = xc;
    assert_true(mbs_add_joint(b, &j) >= 0);
}

/* Triple-rocker four-bar without gravity (s + l = 1.2 > p + q = 1.1): crank (joint 0,
   state_priority 1) about the origin, coupler (joint 1), rocker (joint 2) about (TR_D, 0);
   revolute cut coupler -> rocker. The crank swings within +-acos((a^2 + d^2 - (b + c)^2) /
   (2 a d)) = +-97.9 deg, where J_v of the partition u = crank is singular. */
static mbs_model *triple_rocker_ex(mbs_closure closure, mbs_force_callback fn, void *user)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    assert_int_equal(mbs_builder_set_closure(b, closure), MBS_OK);
    if (fn) assert_true(mbs_add_force_callback(b, "probe", fn, user) >= 0);
    assert_int_equal(add_bar(b, TR_A), 1);
    assert_int_equal(add_bar(b, TR_B), 2);
    assert_int_equal(add_bar(b, TR_C), 3);
    add_rev_z(b, 0, 1, 0.0, 0.0, 0, 1);
    add_rev_z(b, 1, 2, TR_A, 0.0, 0, 0);
    add_rev_z(b, 0, 3, TR_D, 0.0, 0, 0);
    add_rev_z(b, 2, 3, TR_B, TR_C, 1, 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}
static mbs_model *triple_rocker(void) { return triple_rocker_ex(MBS_CLOSURE_ANALYTIC, NULL, NULL); }

/* The closed state at crank angle th (elbow up) moving with crank rate w (assembled). */
static void triple_rocker_state(mbs_data *d, double th, double w)
{
    const double A[2] = {TR_A * cos(th), TR_A * sin(th)}, e[2] = {TR_D - A[0], -A[1]};
    const double L = sqrt(e[0] * e[0] + e[1] * e[1]);
    const double x = (TR_B * TR_B - TR_C * TR_C + L * L) / (2.0 * L), y = sqrt(TR_B * TR_B - x * x);
    const double B[2] = {A[0] + (x * e[0] - y * e[1]) / L, A[1] + (x * e[1] + y * e[0]) / L};
    const double th3 = atan2(B[1] - A[1], B[0] - A[0]), th4 = atan2(B[1], B[0] - TR_D);
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    const mbs_model *m = mbs_data_model(d);
    q[mbs_model_joint_qadr(m, 0)] = th;
    q[mbs_model_joint_qadr(m, 1)] = th3 - th;
    q[mbs_model_joint_qadr(m, 2)] = th4;
    memset(v, 0, 3 * sizeof(double));
    v[mbs_model_joint_vadr(m, 0)] = w;
    assert_int_equal(mbs_assemble(d), MBS_OK);
}

/* Largest scaled residual of all rows at the data's q. */
static double max_residual(mbs_data *d)
{
    mbs_con_topo t;
    double h[8];
    assert_int_equal(mbs_con_topo_init(d->model, &t), MBS_OK);
    mbs_kinematics_pos(d);
    mbs_con_residual(d, &t, NULL, t.ncon, h);
    double r = 0.0;
    for (int i = 0; i < t.ncon; ++i) r = fmax(r, fabs(h[i]));
    mbs_con_topo_free(&t);
    return r;
}

/* Run 3 s with a stepper kind; the crank's range, largest residual and energy drift. */
static void run_rocker(mbs_stepper_kind kind, double *lo, double *hi, double *res,
                       double *drift, long *events, double *th_end)
{
    mbs_model *m = triple_rocker();
    mbs_data *d = mbs_data_create(m);
    triple_rocker_state(d, 0.5, 3.0);
    double T0, V0, T, V;
    assert_int_equal(mbs_energy(d, &T0, &V0), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(kind);
    sd.rtol = sd.atol = 1e-11;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_non_null(s);
    const long ev0 = mbs_loops_events(d);
    const int qc = mbs_model_joint_qadr(m, 0);
    *lo = *hi = mbs_data_q(d)[qc], *res = *drift = 0.0;
    for (int k = 0; k < 3000; ++k) {
        const int st = mbs_stepper_step(s, 1e-3);
        if (st != MBS_OK) print_error("step %d: %s\n", k, mbs_data_error(d));
        assert_int_equal(st, MBS_OK);
        *lo = fmin(*lo, mbs_data_q(d)[qc]), *hi = fmax(*hi, mbs_data_q(d)[qc]);
        *res = fmax(*res, max_residual(d));
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        *drift = fmax(*drift, fabs(T + V - T0 - V0) / T0);
    }
    *events = mbs_loops_events(d) - ev0;
    *th_end = mbs_data_q(d)[qc];
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The prioritised crank reaches its limit positions again and again: the partition must
   change there (events), the loops stay closed, energy is conserved, RK4 and CVODE agree. */
static void test_repartition_triple_rocker(void **state)
{
    (void)state;
    const double lim = acos((TR_A * TR_A + TR_D * TR_D - (TR_B + TR_C) * (TR_B + TR_C)) /
                            (2.0 * TR_A * TR_D));
    double lo, hi, res, drift, th_rk4, th_cv;
    long ev;
    run_rocker(MBS_STEP_RK4, &lo, &hi, &res, &drift, &ev, &th_rk4);
    print_message("triple rocker RK4 3 s: crank in [%.6f, %.6f] (limits +-%.6f), %ld "
                  "selections/partitions, residual %.2e, energy drift %.2e\n",
                  lo, hi, lim, ev, res, drift);
    assert_true(hi > lim - 2e-3 && lo < -lim + 2e-3 && hi <= lim + 1e-9 && lo >= -lim - 1e-9);
    assert_true(ev >= 2);
    assert_true(res <= 1e-12 && drift <= 1e-6); /* RK4 at 1 ms through the turning points */
    run_rocker(MBS_STEP_CVODE_ADAMS, &lo, &hi, &res, &drift, &ev, &th_cv);
    print_message("triple rocker CVODE: %ld events, residual %.2e, energy drift %.2e, "
                  "|crank RK4 - CVODE| at 3 s %.2e\n", ev, res, drift, fabs(th_rk4 - th_cv));
    assert_true(ev >= 2 && res <= 1e-12 && drift <= 1e-8);
    assert_true(fabs(th_rk4 - th_cv) <= 1e-5);
}

/* ---------------------------------------------------------------- failed steps */

/* The probe force of a triple rocker: none; fatal (-1) on call number fail_at, where it
   notes the loop solver's event count. */
typedef struct fail_ctl {
    long calls, fail_at, ev_at_fail;
} fail_ctl;

static int fail_probe(mbs_data *d, void *user)
{
    fail_ctl *c = user;
    if (++c->calls != c->fail_at) return 0;
    c->ev_at_fail = mbs_loops_events(d);
    return -1;
}

/* 1 when time, q, v, qacc, lambda and the loop event count of a and b are bitwise equal. */
static int same_state(mbs_data *a, mbs_data *b)
{
    const mbs_model *m = mbs_data_model(a);
    const size_t nq = (size_t)mbs_model_nq(m), nv = (size_t)mbs_model_nv(m), nc = 5;
    const double ta = mbs_data_time(a), tb = mbs_data_time(b);
    return !memcmp(&ta, &tb, sizeof ta) &&
           !memcmp(mbs_data_q(a), mbs_data_q(b), nq * sizeof(double)) &&
           !memcmp(mbs_data_v(a), mbs_data_v(b), nv * sizeof(double)) &&
           !memcmp(mbs_data_qacc(a), mbs_data_qacc(b), nv * sizeof(double)) &&
           !memcmp(mbs_data_lambda(a), mbs_data_lambda(b), nc * sizeof(double)) &&
           mbs_loops_events(a) == mbs_loops_events(b);
}

/* One run of the failed-step test: every call is first tried with the probe failing at the
   call's last evaluation (so after what the call's earlier closures changed: with RK4 two
   substeps, the failure in the second, after the first one's end closure), then taken; the
   tried data must stay bitwise on the untried one. tau[0] changes before every call in both
   runs (a host input, which restarts CVODE as the failure does). Returns the tries in
   which the loop solver had made a new selection, partition or strategy change before the
   failure. h: RK4's substep, calls of 2 h (CVODE: calls of 2 ms). */
static long failed_steps_run(mbs_closure closure, mbs_stepper_kind kind, double h, long *events)
{
    static fail_ctl ctl[2];
    memset(ctl, 0, sizeof ctl);
    mbs_model *m[2] = {triple_rocker_ex(closure, fail_probe, &ctl[0]),
                       triple_rocker_ex(closure, fail_probe, &ctl[1])};
    mbs_data *d[2];
    mbs_stepper *s[2];
    mbs_stepper_def sd = mbs_default_stepper_def(kind);
    sd.rtol = sd.atol = 1e-10;
    sd.max_step = kind == MBS_STEP_RK4 ? h : 0.0;
    const double dt = kind == MBS_STEP_RK4 ? 2.0 * h : 2e-3;
    for (int r = 0; r < 2; ++r) {
        d[r] = mbs_data_create(m[r]);
        triple_rocker_state(d[r], 0.5, 3.0);
        s[r] = mbs_stepper_create(d[r], &sd);
        assert_non_null(s[r]);
    }
    const long ev0 = mbs_loops_events(d[0]);
    long changed = 0;
    for (int k = 0; k < 1500; ++k) {
        mbs_data_tau(d[0])[0] = mbs_data_tau(d[1])[0] = 0.01 * sin(0.1 * k);
        const long c1 = ctl[1].calls, ev_start = mbs_loops_events(d[0]);
        assert_int_equal(mbs_stepper_step(s[1], dt), MBS_OK); /* the untried run */
        ctl[0].fail_at = ctl[0].calls + (ctl[1].calls - c1);
        assert_int_equal(mbs_stepper_step(s[0], dt), MBS_ERR_CALLBACK);
        changed += ctl[0].ev_at_fail != ev_start;
        ctl[0].fail_at = 0;
        assert_int_equal(mbs_stepper_step(s[0], dt), MBS_OK);
        if (!same_state(d[0], d[1]))
            fail_msg("closure %d kind %d h %g: call %d (t = %.4f) differs from the untried run",
                     (int)closure, (int)kind, h, k, mbs_data_time(d[1]));
    }
    *events = mbs_loops_events(d[0]) - ev0;
    for (int r = 0; r < 2; ++r) {
        mbs_stepper_destroy(s[r]);
        mbs_data_destroy(d[r]);
        mbs_model_destroy(m[r]);
    }
    return changed;
}

/* A failed step puts the loop solver's state (selection, partition, conditioning, the LU
   its chord steps reuse, the last closed state; the analytic strategy's) back with time and
   state: a run whose every call first fails stays bitwise on a run that never failed, for
   3 s through the partition changes at the triple rocker's limit positions, with Newton and
   with closed forms (handed to Newton there), for RK4 and CVODE BDF; and for 0.3 s of RK4 at
   0.1 ms, where Newton's first steps at each stage reuse the LU of the last closure (chord
   steps; without that LU put back the run differs at the 4th call). */
static void test_failed_step_loops(void **state)
{
    (void)state;
    static const struct {
        mbs_closure closure;
        mbs_stepper_kind kind;
        double h;
    } cases[5] = {{MBS_CLOSURE_NEWTON, MBS_STEP_RK4, 1e-3},
                  {MBS_CLOSURE_NEWTON, MBS_STEP_CVODE_BDF, 1e-3},
                  {MBS_CLOSURE_ANALYTIC, MBS_STEP_RK4, 1e-3},
                  {MBS_CLOSURE_ANALYTIC, MBS_STEP_CVODE_BDF, 1e-3},
                  {MBS_CLOSURE_NEWTON, MBS_STEP_RK4, 1e-4}};
    for (int c = 0; c < 5; ++c) {
        long events = 0;
        const long changed = failed_steps_run(cases[c].closure, cases[c].kind, cases[c].h, &events);
        print_message("closure %d kind %d h %g: 1500 failed and retried calls bitwise on the "
                      "untried run; %ld loop events, %ld of them before a failure in the "
                      "failing call\n", (int)cases[c].closure, (int)cases[c].kind, cases[c].h,
                      events, changed);
        if (cases[c].h < 1e-3) continue; /* 0.3 s: no limit position reached */
        assert_true(events >= 2);
        if (cases[c].kind == MBS_STEP_RK4) assert_true(changed >= 1);
    }
}

/* The local-error estimate's half steps start from the loop solver's state at the step's
   start and leave the full step's (with its qacc and lambda): RK4 with an estimate that
   never fails gives bitwise the run without it (1 s of the triple rocker, Newton and closed
   forms, through its limit positions). */
static void test_error_estimate_loops(void **state)
{
    (void)state;
    for (int c = 0; c < 2; ++c) {
        mbs_model *m = triple_rocker_ex(c ? MBS_CLOSURE_ANALYTIC : MBS_CLOSURE_NEWTON, NULL, NULL);
        mbs_data *d[2];
        mbs_stepper *s[2];
        for (int r = 0; r < 2; ++r) {
            d[r] = mbs_data_create(m);
            triple_rocker_state(d[r], 0.5, 3.0);
            mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
            sd.err_rtol = sd.err_atol = r ? 1.0 : 0.0;
            s[r] = mbs_stepper_create(d[r], &sd);
            assert_non_null(s[r]);
        }
        for (int k = 0; k < 1000; ++k) {
            for (int r = 0; r < 2; ++r) assert_int_equal(mbs_stepper_step(s[r], 1e-3), MBS_OK);
            if (!same_state(d[0], d[1]))
                fail_msg("closure %d: step %d with the estimate differs from without", c, k);
        }
        for (int r = 0; r < 2; ++r) {
            mbs_stepper_destroy(s[r]);
            mbs_data_destroy(d[r]);
        }
        mbs_model_destroy(m);
    }
}

/* ---------------------------------------------------------------- inverse dynamics */

/* Forward dynamics at a moving closed state with random tau, then inverse dynamics of its
   qacc: forward dynamics of that tau gives qacc again, the tau is orthogonal to the kept
   rows (J_a tau = 0: the minimum-norm one) and a qacc violating the constraints is
   MBS_ERR_INCONSISTENT. */
static void test_inverse_with_loops(void **state)
{
    (void)state;
    mbs_model *m = triple_rocker();
    mbs_data *d = mbs_data_create(m);
    triple_rocker_state(d, 0.3, 2.0);
    double *tau = mbs_data_tau(d), qacc[3], t2[3], J[3 * 5], Sw[18];
    tau[0] = 0.7, tau[1] = -0.4, tau[2] = 0.25;
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    memcpy(qacc, mbs_data_qacc(d), sizeof qacc);
    assert_int_equal(mbs_inverse_dynamics(d, qacc, t2), MBS_OK);
    memcpy(tau, t2, sizeof t2);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    test_assert_close(mbs_data_qacc(d), qacc, 3, 1e-12, "FD(ID(qacc))");
    mbs_con_topo t;
    unsigned char act[5];
    int rank;
    assert_int_equal(mbs_constraint_info(d, &rank, act), MBS_OK);
    assert_int_equal(rank, 2);
    assert_int_equal(mbs_con_topo_init(m, &t), MBS_OK);
    mbs_kinematics(d);
    mbs_con_world_motion(d, Sw);
    mbs_con_jacobian(d, &t, Sw, NULL, 5, J);
    for (int i = 0; i < 5; ++i) {
        if (!act[i]) continue;
        const double s = J[3 * i] * t2[0] + J[3 * i + 1] * t2[1] + J[3 * i + 2] * t2[2];
        assert_true(fabs(s) <= 1e-12 * (1.0 + fabs(t2[0]) + fabs(t2[1]) + fabs(t2[2])));
    }
    qacc[0] += 0.1;
    assert_int_equal(mbs_inverse_dynamics(d, qacc, t2), MBS_ERR_INCONSISTENT);
    assert_non_null(strstr(mbs_data_error(d), "cut joint"));
    mbs_con_topo_free(&t);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- spatial loop, quaternions */

/* RSSR spatial four-bar under gravity: crank (revolute z at the origin, priority) -> coupler
   on a quaternion spherical joint at the crank tip -> spherical cut to the rocker's tip; the
   rocker turns about x at (0.6, -0.5, 0.3). Two dofs (the crank, the coupler's spin), the
   dependent coordinates include the quaternion's. */
static mbs_model *rssr(void)
{
    mbs_builder *b = mbs_builder_create();
    const double L[3] = {0.3, sqrt(0.18), 0.5};
    for (int i = 0; i < 3; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0 + 0.2 * i;
        bd.com[i == 2 ? 1 : 0] = 0.5 * L[i];
        bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = bd.mass * L[i] * L[i] / 12.0;
        bd.inertia[i == 2 ? 4 : 0] = 1e-3;
        assert_int_equal(mbs_add_body(b, &bd), i + 1);
    }
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1, j.state_priority = 1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = L[0];
    assert_int_equal(mbs_add_joint(b, &j), 1);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 3, j.axis[0] = 1.0, j.axis[2] = 0.0;
    v3_set(j.frame_parent.pos, 0.6, -0.5, 0.3);
    assert_int_equal(mbs_add_joint(b, &j), 2);
    j = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    j.parent = 2, j.child = 3, j.cut = 1, j.frame_parent.pos[0] = L[1];
    j.frame_child.pos[1] = L[2];
    assert_int_equal(mbs_add_joint(b, &j), 3);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Closed start: crank 0, rocker 0, coupler along (1, 0, 1) / sqrt 2 (-45 deg about y);
   crank rate 2, coupler spin 1, assembled. */
static mbs_data *rssr_start(const mbs_model *m)
{
    mbs_data *d = mbs_data_create(m);
    double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, 1);
    const double half = -0.125 * 3.14159265358979323846; /* half of -45 deg */
    q[0] = cos(half);
    q[1] = q[3] = 0.0;
    q[2] = sin(half);
    mbs_data_v(d)[mbs_model_joint_vadr(m, 0)] = 2.0;
    mbs_data_v(d)[mbs_model_joint_vadr(m, 1)] = 1.0 / sqrt(2.0); /* spin about the coupler */
    mbs_data_v(d)[mbs_model_joint_vadr(m, 1) + 2] = -1.0 / sqrt(2.0);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    return d;
}

/* 2 s of motion: residual and energy drift (relative to the kinetic energy at the start). */
static void rssr_run(mbs_stepper_kind kind, double h, double *res, double *drift, double q_end[4])
{
    mbs_model *m = rssr();
    mbs_data *d = rssr_start(m);
    double T0, V0, T, V;
    assert_int_equal(mbs_energy(d, &T0, &V0), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(kind);
    sd.rtol = sd.atol = 1e-11;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    *res = *drift = 0.0;
    for (int k = 0; k < (int)(2.0 / h + 0.5); ++k) {
        const int st = mbs_stepper_step(s, h);
        if (st != MBS_OK) print_error("step %d: %s\n", k, mbs_data_error(d));
        assert_int_equal(st, MBS_OK);
        *res = fmax(*res, max_residual(d));
        assert_int_equal(mbs_energy(d, &T, &V), MBS_OK);
        *drift = fmax(*drift, fabs(T + V - T0 - V0) / T0);
    }
    memcpy(q_end, mbs_data_q(d) + mbs_model_joint_qadr(m, 1), 4 * sizeof(double));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Closure through quaternion coordinates: the loop stays closed, energy is conserved (RK4 at
   0.25 ms: the crank turns back sharply at up to 11 rad/s, at 1 ms the drift is 3e-4, 4th
   order in h) and the coupler's orientation agrees between RK4 and CVODE. */
static void test_spatial_loop_quaternion(void **state)
{
    (void)state;
    double res, drift, q4[4], qc[4];
    rssr_run(MBS_STEP_RK4, 2.5e-4, &res, &drift, q4);
    print_message("RSSR RK4 2 s: residual %.2e, energy drift %.2e\n", res, drift);
    assert_true(res <= 1e-12 && drift <= 5e-6);
    rssr_run(MBS_STEP_CVODE_ADAMS, 1e-3, &res, &drift, qc);
    print_message("RSSR CVODE Adams: residual %.2e, energy drift %.2e, |q RK4 - CVODE| %.2e\n",
                  res, drift, test_rel_diff(q4, qc, 4));
    assert_true(res <= 1e-12 && drift <= 1e-7);
    assert_true(test_rel_diff(q4, qc, 4) <= 1e-6);
}

/* Same model, same start, same calls: bitwise the same trajectory (selection, partition,
   closure and smoothing are deterministic), for RK4 and CVODE. */
static void test_loops_deterministic(void **state)
{
    (void)state;
    mbs_model *m = rssr();
    for (int kind = MBS_STEP_RK4; kind <= MBS_STEP_CVODE_ADAMS; ++kind) {
        double out[2][16] = {{0}};
        for (int run = 0; run < 2; ++run) {
            mbs_data *d = rssr_start(m);
            mbs_stepper_def sd = mbs_default_stepper_def((mbs_stepper_kind)kind);
            mbs_stepper *s = mbs_stepper_create(d, &sd);
            for (int k = 0; k < 300; ++k) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
            memcpy(out[run], mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
            memcpy(out[run] + 8, mbs_data_lambda(d), sizeof(double) * 3);
            mbs_stepper_destroy(s);
            mbs_data_destroy(d);
        }
        assert_memory_equal(out[0], out[1], sizeof(double) * (size_t)(8 + 3));
    }
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_finite_differences),
        cmocka_unit_test(test_rows_match_joint),
        cmocka_unit_test(test_lambda_static),
        cmocka_unit_test(test_repartition_triple_rocker),
        cmocka_unit_test(test_failed_step_loops),
        cmocka_unit_test(test_error_estimate_loops),
        cmocka_unit_test(test_inverse_with_loops),
        cmocka_unit_test(test_spatial_loop_quaternion),
        cmocka_unit_test(test_loops_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
