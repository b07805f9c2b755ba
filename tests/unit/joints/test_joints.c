/* Joint ops and rotation utilities: q-manifold operations, motion subspaces and bias terms
 * against finite differences of the joint transform, Cardan vs quaternion coordinates,
 * Cardan re-base, and the rotation helpers against independent formulas.
 *
 * Finite-difference tolerance: a central difference with step h has truncation error
 * h^2/6 |f'''| and rounding error ~ eps |f| / h. With h = 1e-5, |v| <= 1, |q| <= 2 the
 * paths are trigonometric with |f'''| <= O(1), so the error is ~1e-11 (rounding-dominated);
 * the tests assert 1e-9 relative (S v, c_J, qdot). Measured maxima (test_report prints
 * them): 4e-11 (S v), 5e-11 (c_J), 1e-11 (qdot). */
#include "common.h"

#include <math.h>
#include <string.h>

#include "core/rotation.h"
#include "core/joint.h"

#define NJOINT 4    /* random joint models (axes) per ops table */
#define NSAMPLE 25  /* random states per joint model */
#define FD_H 1e-5
#define PI 3.14159265358979323846

typedef struct joint_case {
    const mbs_joint_ops *ops;
    mbs_joint_type type;
    mbs_rotation rotation;
    int quat;   /* offset of the quaternion in q, -1 if none */
    int cardan; /* offset of the Cardan angles in q, -1 if none */
    int swing;  /* 1: the point-mass swing joint, whose difference only matches the direction
                   axis3 of the mass (its spin about axis3 is a gauge) */
} joint_case;

static joint_case cases[] = {
    {&mbs_joint_revolute_ops, MBS_JOINT_REVOLUTE, MBS_ROT_QUATERNION, -1, -1, 0},
    {&mbs_joint_prismatic_ops, MBS_JOINT_PRISMATIC, MBS_ROT_QUATERNION, -1, -1, 0},
    {&mbs_joint_cylindrical_ops, MBS_JOINT_CYLINDRICAL, MBS_ROT_QUATERNION, -1, -1, 0},
    {&mbs_joint_universal_ops, MBS_JOINT_UNIVERSAL, MBS_ROT_QUATERNION, -1, -1, 0},
    {&mbs_joint_spherical_quat_ops, MBS_JOINT_SPHERICAL, MBS_ROT_QUATERNION, 0, -1, 0},
    {&mbs_joint_spherical_cardan_ops, MBS_JOINT_SPHERICAL, MBS_ROT_CARDAN, -1, 0, 0},
    {&mbs_joint_planar_ops, MBS_JOINT_PLANAR, MBS_ROT_QUATERNION, -1, -1, 0},
    {&mbs_joint_free_quat_ops, MBS_JOINT_FREE, MBS_ROT_QUATERNION, 3, -1, 0},
    {&mbs_joint_free_cardan_ops, MBS_JOINT_FREE, MBS_ROT_CARDAN, -1, 3, 0},
    {&mbs_joint_fixed_ops, MBS_JOINT_FIXED, MBS_ROT_QUATERNION, -1, -1, 0},
    {&mbs_joint_translational_ops, MBS_JOINT_TRANSLATIONAL, MBS_ROT_QUATERNION, -1, -1, 0},
    {&mbs_joint_swing_ops, MBS_JOINT_SPHERICAL, MBS_ROT_QUATERNION, 0, -1, 1},
};
#define NCASE ((int)(sizeof cases / sizeof cases[0]))

/* ------------------------------------------------------------------ helpers */

/* Uniformly random unit vector (rejection from the cube). */
static void random_unit(test_rng *r, double u[3])
{
    double n;
    do {
        for (int k = 0; k < 3; ++k) u[k] = test_rng_uniform(r, -1.0, 1.0);
        n = v3_norm(u);
    } while (n < 0.1 || n > 1.0);
    v3_scale(u, u, 1.0 / n);
}

/* Random rotation matrix through a random unit quaternion. */
static void random_rotation(test_rng *r, double R[9])
{
    double q[4];
    for (int k = 0; k < 4; ++k) q[k] = test_rng_uniform(r, -1.0, 1.0);
    mbs_quat_normalize(q);
    mbs_quat_to_mat(R, q);
}

/* Joint model with random unit axes: axis2 orthogonal to axis (universal: any direction at
   least ~25 degrees from axis, as the universal joint allows), axis3 = axis x axis2. */
static void make_joint(test_rng *r, const joint_case *c, mbs_joint_model *j)
{
    memset(j, 0, sizeof *j);
    j->ops = c->ops;
    j->type = c->type;
    j->rotation = c->rotation;
    j->nq = c->ops->nq;
    j->nv = c->ops->nv;
    random_unit(r, j->axis);
    do {
        random_unit(r, j->axis2);
    } while (fabs(v3_dot(j->axis, j->axis2)) > 0.9);
    if (c->type != MBS_JOINT_UNIVERSAL) {
        v3_axpy(j->axis2, -v3_dot(j->axis, j->axis2), j->axis);
        v3_scale(j->axis2, j->axis2, 1.0 / v3_norm(j->axis2));
    }
    v3_cross(j->axis3, j->axis, j->axis2);
}

/* Random state: aux (a random Fix rotation for Cardan joints), q = neutral (+) v0 with v0
   in [-2, 2] (rotations up to ~3.5 rad), v in [-1, 1]. */
static void random_state(test_rng *r, const mbs_joint_model *j, double *aux, double *q,
                         double *v)
{
    double q0[8], v0[6];
    if (j->ops->naux) random_rotation(r, aux);
    j->ops->neutral(j, q0);
    for (int k = 0; k < j->ops->nv; ++k) v0[k] = test_rng_uniform(r, -2.0, 2.0);
    j->ops->integrate(j, q0, v0, 1.0, q);
    for (int k = 0; k < j->ops->nv; ++k) v[k] = test_rng_uniform(r, -1.0, 1.0);
}

/* o = S v (6 x 1). */
static void s_times_v(const double *S, int nv, const double *v, double o[6])
{
    memset(o, 0, 6 * sizeof(double));
    for (int k = 0; k < nv; ++k)
        for (int i = 0; i < 6; ++i) o[i] += S[6 * k + i] * v[k];
}

/* Pose of Fc in Fp at t along t -> integrate(q, v, t). */
static void pose_along(const mbs_joint_model *j, const double *aux, const double *q,
                       const double *v, double t, mbs_pose *X)
{
    double qt[8];
    j->ops->integrate(j, q, v, t, qt);
    j->ops->transform(j, aux, qt, X);
}

/* Relative spatial velocity in Fc by central differences of the pose: w = vee(R^T Rdot),
   linear = R^T pdot. */
static void fd_velocity(const mbs_joint_model *j, const double *aux, const double *q,
                        const double *v, double h, double o[6])
{
    mbs_pose Xp, Xm, X0;
    double Rd[9], A[9], pd[3];
    pose_along(j, aux, q, v, h, &Xp);
    pose_along(j, aux, q, v, -h, &Xm);
    j->ops->transform(j, aux, q, &X0);
    for (int k = 0; k < 9; ++k) Rd[k] = (Xp.R[k] - Xm.R[k]) / (2.0 * h);
    for (int k = 0; k < 3; ++k) pd[k] = (Xp.p[k] - Xm.p[k]) / (2.0 * h);
    m3_tmul(A, X0.R, Rd);
    o[0] = 0.5 * (A[7] - A[5]);
    o[1] = 0.5 * (A[2] - A[6]);
    o[2] = 0.5 * (A[3] - A[1]);
    m3_tmulv(o + 3, X0.R, pd);
}

/* S(q(t)) v at t along t -> integrate(q, v, t). */
static void sv_along(const mbs_joint_model *j, const double *aux, const double *q,
                     const double *v, double t, double o[6])
{
    double qt[8], S[36];
    j->ops->integrate(j, q, v, t, qt);
    mbs_joint_motion(j, aux, qt, v, S, NULL);
    s_times_v(S, j->ops->nv, v, o);
}

/* Assert two poses equal to tol (rotation and position). */
static void assert_pose_close(const mbs_pose *a, const mbs_pose *b, double tol, const char *w)
{
    test_assert_close(a->R, b->R, 9, tol, w);
    test_assert_close(a->p, b->p, 3, tol, w);
}

/* Largest relative errors seen per table: manifold round trip, S v, c_J, qdot. */
enum { W_MANIFOLD, W_MOTION, W_BIAS, W_QDOT, W_COUNT };
static double worst[sizeof cases / sizeof cases[0]][W_COUNT];

/* Record test_rel_diff(a, b) for table c and property w. */
static void worst_update(const joint_case *c, int w, const double *a, const double *b, int n)
{
    double e = test_rel_diff(a, b, n);
    double *slot = &worst[c - cases][w];
    if (e > *slot) *slot = e;
}

/* ------------------------------------------------------------------ ops lookup */

/* Every (type, rotation) gives its table; distance and out-of-range values give NULL. */
static void test_ops_for(void **state)
{
    (void)state;
    for (int c = 0; c < NCASE; ++c)
        if (!cases[c].swing) /* the swing joint only comes from compile (point masses) */
            assert_ptr_equal(mbs_joint_ops_for(cases[c].type, cases[c].rotation), cases[c].ops);
    const mbs_joint_type plain[] = {MBS_JOINT_REVOLUTE, MBS_JOINT_PRISMATIC,
                                    MBS_JOINT_CYLINDRICAL, MBS_JOINT_UNIVERSAL,
                                    MBS_JOINT_PLANAR, MBS_JOINT_FIXED, MBS_JOINT_TRANSLATIONAL};
    for (int k = 0; k < 7; ++k)
        assert_ptr_equal(mbs_joint_ops_for(plain[k], MBS_ROT_CARDAN),
                         mbs_joint_ops_for(plain[k], MBS_ROT_QUATERNION));
    assert_null(mbs_joint_ops_for(MBS_JOINT_DISTANCE, MBS_ROT_QUATERNION));
    assert_null(mbs_joint_ops_for(MBS_JOINT_DISTANCE, MBS_ROT_CARDAN));
    assert_null(mbs_joint_ops_for((mbs_joint_type)(MBS_JOINT_TRANSLATIONAL + 1), MBS_ROT_QUATERNION));
    assert_null(mbs_joint_ops_for((mbs_joint_type)-1, MBS_ROT_QUATERNION));
    assert_null(mbs_joint_ops_for(MBS_JOINT_REVOLUTE, (mbs_rotation)2));
}

/* Table sizes per the conventions of mbs.h; mandatory entries present, aux entries iff
   naux > 0, motion_aux only where S depends on aux (free Cardan). */
static void test_ops_tables(void **state)
{
    static const int nq[] = {1, 1, 2, 2, 4, 3, 3, 7, 6, 0, 3, 4};
    static const int nv[] = {1, 1, 2, 2, 3, 3, 3, 6, 6, 0, 3, 2};
    (void)state;
    for (int c = 0; c < NCASE; ++c) {
        const mbs_joint_ops *o = cases[c].ops;
        assert_int_equal(o->nq, nq[c]);
        assert_int_equal(o->nv, nv[c]);
        assert_int_equal(o->naux, cases[c].cardan >= 0 ? 9 : 0);
        assert_non_null(o->name);
        assert_true(o->transform && o->motion && o->integrate && o->difference && o->qdot &&
                    o->neutral && o->normalize);
        assert_int_equal(o->aux_init != NULL, o->naux > 0);
        assert_int_equal(o->rebase != NULL, o->naux > 0);
        assert_int_equal(o->motion_aux != NULL, o == &mbs_joint_free_cardan_ops);
    }
}

/* ------------------------------------------------------------------ per-table properties */

/* Neutral q with the initial aux gives exactly the identity transform. */
static void test_neutral(void **state)
{
    const joint_case *c = *state;
    test_rng r;
    test_rng_seed(&r, 11);
    for (int n = 0; n < NJOINT; ++n) {
        mbs_joint_model j;
        double q[8], aux[9];
        mbs_pose X, I;
        make_joint(&r, c, &j);
        if (c->ops->naux) c->ops->aux_init(&j, aux);
        c->ops->neutral(&j, q);
        c->ops->transform(&j, c->ops->naux ? aux : NULL, q, &X);
        pose_identity(&I);
        assert_pose_close(&X, &I, 0.0, "neutral transform");
    }
}

/* integrate(q, difference(q, q1), 1) == q1 (as poses, and as q up to the quaternion sign);
   difference(q, integrate(q, v, dt)) == dt v; integrate may run in place. */
static void test_manifold(void **state)
{
    const joint_case *c = *state;
    const mbs_joint_ops *o = c->ops;
    test_rng r;
    test_rng_seed(&r, 23);
    for (int n = 0; n < NJOINT * NSAMPLE; ++n) {
        mbs_joint_model j;
        double aux[9], q0[8], q1[8], qr[8], v[6], d[6], dtv[6], qa[8], qb[8];
        mbs_pose X1, Xr;
        if (n % NSAMPLE == 0) make_joint(&r, c, &j);
        random_state(&r, &j, aux, q0, v);
        random_state(&r, &j, aux, q1, d); /* redraws aux; both poses below use it */
        o->difference(&j, q0, q1, d);
        o->integrate(&j, q0, d, 1.0, qr);
        o->transform(&j, aux, q1, &X1);
        o->transform(&j, aux, qr, &Xr);
        if (c->swing) { /* the mass direction R axis3 is reached; the spin is a gauge */
            double u1[3], ur[3];
            m3_mulv(u1, X1.R, j.axis3);
            m3_mulv(ur, Xr.R, j.axis3);
            test_assert_close(ur, u1, 3, 1e-10, "swing: integrate(q0, difference(q0, q1), 1)");
            worst_update(c, W_MANIFOLD, ur, u1, 3);
        } else {
            assert_pose_close(&Xr, &X1, 1e-10, "integrate(q0, difference(q0, q1), 1) pose");
            worst_update(c, W_MANIFOLD, Xr.R, X1.R, 9);
            if (c->quat >= 0 && v3_dot(qr + c->quat + 1, q1 + c->quat + 1) + qr[c->quat] * q1[c->quat] < 0)
                for (int k = 0; k < 4; ++k) qr[c->quat + k] = -qr[c->quat + k];
            test_assert_close(qr, q1, o->nq, 1e-10, "integrate(q0, difference(q0, q1), 1) q");
        }
        o->integrate(&j, q0, v, 0.1, qa);
        o->difference(&j, q0, qa, d);
        for (int k = 0; k < o->nv; ++k) dtv[k] = 0.1 * v[k];
        test_assert_close(d, dtv, o->nv, 1e-10, "difference(q, integrate(q, v, dt))");
        memcpy(qb, q0, sizeof qb);
        o->integrate(&j, qb, v, 0.1, qb);
        assert_memory_equal(qa, qb, (size_t)o->nq * sizeof(double));
    }
}

/* Quaternion parts: normalize makes them unit (any scale, keeping the rotation), zero and
   non-finite become the identity, integrate keeps them unit; other q are left bitwise. */
static void test_normalize(void **state)
{
    const joint_case *c = *state;
    const mbs_joint_ops *o = c->ops;
    test_rng r;
    test_rng_seed(&r, 37);
    for (int n = 0; n < NSAMPLE; ++n) {
        mbs_joint_model j;
        double aux[9], q[8], v[6], qs[8], qi[8];
        make_joint(&r, c, &j);
        random_state(&r, &j, aux, q, v);
        memcpy(qs, q, sizeof qs);
        if (c->quat < 0) {
            o->normalize(&j, qs);
            assert_memory_equal(qs, q, (size_t)o->nq * sizeof(double));
            continue;
        }
        const double scales[] = {2.5, 1e-3, 1e250, 1e-250};
        for (int s = 0; s < 4; ++s) {
            for (int k = 0; k < 4; ++k) qs[c->quat + k] = scales[s] * q[c->quat + k];
            o->normalize(&j, qs);
            test_assert_close(qs, q, o->nq, 1e-15, "normalize(scaled q)");
        }
        const double bad[] = {0.0, NAN, INFINITY};
        for (int s = 0; s < 3; ++s) {
            for (int k = 0; k < 4; ++k) qs[c->quat + k] = (k == 2) ? bad[s] : 0.0;
            o->normalize(&j, qs);
            const double id[4] = {1, 0, 0, 0};
            assert_memory_equal(qs + c->quat, id, sizeof id);
            test_assert_close(qs, q, c->quat, 0.0, "normalize keeps the position");
        }
        o->integrate(&j, q, v, 0.7, qi);
        double nrm = sqrt(qi[c->quat] * qi[c->quat] + v3_dot(qi + c->quat + 1, qi + c->quat + 1));
        assert_true(fabs(nrm - 1.0) < 4e-16);
    }
}

/* S v equals the relative velocity from central differences of transform() (Fc coords). */
static void test_motion_fd(void **state)
{
    const joint_case *c = *state;
    test_rng r;
    test_rng_seed(&r, 41);
    for (int n = 0; n < NJOINT * NSAMPLE; ++n) {
        mbs_joint_model j;
        double aux[9], q[8], v[6], S[36], cJ[6], S2[36], sv[6], fd[6];
        if (n % NSAMPLE == 0) make_joint(&r, c, &j);
        random_state(&r, &j, aux, q, v);
        mbs_joint_motion(&j, aux, q, v, S, cJ);
        mbs_joint_motion(&j, aux, q, v, S2, NULL);
        assert_memory_equal(S, S2, (size_t)(6 * c->ops->nv) * sizeof(double));
        s_times_v(S, c->ops->nv, v, sv);
        fd_velocity(&j, aux, q, v, FD_H, fd);
        worst_update(c, W_MOTION, sv, fd, 6);
        test_assert_close(sv, fd, 6, 1e-9, "S v vs finite differences of transform");
    }
}

/* c_J equals the central difference of S(q(t)) v along t -> integrate(q, v, t). */
static void test_bias_fd(void **state)
{
    const joint_case *c = *state;
    test_rng r;
    test_rng_seed(&r, 43);
    for (int n = 0; n < NJOINT * NSAMPLE; ++n) {
        mbs_joint_model j;
        double aux[9], q[8], v[6], S[36], cJ[6], svp[6], svm[6], fd[6];
        if (n % NSAMPLE == 0) make_joint(&r, c, &j);
        random_state(&r, &j, aux, q, v);
        mbs_joint_motion(&j, aux, q, v, S, cJ);
        sv_along(&j, aux, q, v, FD_H, svp);
        sv_along(&j, aux, q, v, -FD_H, svm);
        for (int k = 0; k < 6; ++k) fd[k] = (svp[k] - svm[k]) / (2.0 * FD_H);
        worst_update(c, W_BIAS, cJ, fd, 6);
        test_assert_close(cJ, fd, 6, 1e-9, "c_J vs finite differences of S v");
    }
}

/* qdot(q, v) equals the central difference of integrate(q, v, t) at t = 0. */
static void test_qdot_fd(void **state)
{
    const joint_case *c = *state;
    const mbs_joint_ops *o = c->ops;
    test_rng r;
    test_rng_seed(&r, 47);
    for (int n = 0; n < NJOINT * NSAMPLE; ++n) {
        mbs_joint_model j;
        double aux[9], q[8], v[6], qd[8], qp[8], qm[8], fd[8];
        if (n % NSAMPLE == 0) make_joint(&r, c, &j);
        random_state(&r, &j, aux, q, v);
        o->qdot(&j, q, v, qd);
        o->integrate(&j, q, v, FD_H, qp);
        o->integrate(&j, q, v, -FD_H, qm);
        for (int k = 0; k < o->nq; ++k) fd[k] = (qp[k] - qm[k]) / (2.0 * FD_H);
        worst_update(c, W_QDOT, qd, fd, o->nq);
        test_assert_close(qd, fd, o->nq, 1e-9, "qdot vs finite differences of integrate");
    }
}

#define JOINT_TESTS(i)                                                 \
    cmocka_unit_test_prestate(test_neutral, &cases[i]),                \
        cmocka_unit_test_prestate(test_manifold, &cases[i]),           \
        cmocka_unit_test_prestate(test_normalize, &cases[i]),          \
        cmocka_unit_test_prestate(test_motion_fd, &cases[i]),          \
        cmocka_unit_test_prestate(test_bias_fd, &cases[i]),            \
        cmocka_unit_test_prestate(test_qdot_fd, &cases[i])

/* ------------------------------------------------------------------ Cardan joints */

/* Cardan and quaternion coordinates of the same rotation and the same angular velocity
   give the same transform, the same S v and the same linear part of c_J. */
static void test_cardan_vs_quat(void **state)
{
    const mbs_joint_ops *pairs[2][2] = {
        {&mbs_joint_spherical_cardan_ops, &mbs_joint_spherical_quat_ops},
        {&mbs_joint_free_cardan_ops, &mbs_joint_free_quat_ops}};
    test_rng r;
    (void)state;
    test_rng_seed(&r, 53);
    for (int n = 0; n < 2 * NSAMPLE; ++n) {
        const mbs_joint_ops *oc = pairs[n & 1][0], *oq = pairs[n & 1][1];
        int off = (n & 1) ? 3 : 0; /* rotation offset in q and v */
        mbs_joint_model jc = {.ops = oc}, jq = {.ops = oq};
        double fix[9], Ra[9], R[9], qc[6], qq[7], vc[6], vq[6], J[9];
        double Sc[36], Sq[36], cc[6], cq[6], svc[6], svq[6];
        mbs_pose Xc, Xq;
        random_rotation(&r, fix);
        for (int k = 0; k < 6; ++k) qc[k] = test_rng_uniform(&r, -1.5, 1.5);
        for (int k = 0; k < 6; ++k) vc[k] = test_rng_uniform(&r, -1.0, 1.0);
        mbs_cardan_to_mat(Ra, qc + off);
        m3_mul(R, fix, Ra);
        memcpy(qq, qc, 3 * sizeof(double));
        mbs_mat_to_quat(qq + off, R);
        mbs_cardan_rate_matrix(J, qc + off);
        memcpy(vq, vc, sizeof vq);
        m3_mulv(vq + off, J, vc + off);
        oc->transform(&jc, fix, qc, &Xc);
        oq->transform(&jq, NULL, qq, &Xq);
        assert_pose_close(&Xc, &Xq, 1e-12, "Cardan vs quaternion transform");
        mbs_joint_motion(&jc, fix, qc, vc, Sc, cc);
        mbs_joint_motion(&jq, NULL, qq, vq, Sq, cq);
        s_times_v(Sc, oc->nv, vc, svc);
        s_times_v(Sq, oq->nv, vq, svq);
        test_assert_close(svc, svq, 6, 1e-12, "Cardan vs quaternion S v");
        test_assert_close(cc + 3, cq + 3, 3, 1e-12, "Cardan vs quaternion linear c_J");
    }
}

/* Pose and spatial velocity S v of a Cardan joint with aux. */
static void cardan_kinematics(const mbs_joint_model *j, const double *aux, const double *q,
                              const double *v, mbs_pose *X, double sv[6])
{
    double S[36];
    j->ops->transform(j, aux, q, X);
    mbs_joint_motion(j, aux, q, v, S, NULL);
    s_times_v(S, j->ops->nv, v, sv);
}

/* Re-base near the singularity: pose and velocity (w in Fc, origin velocity) unchanged to
   1e-12, angles 0, Fix orthonormal, position and linear velocity untouched; a second
   re-base and states inside the threshold leave everything bitwise as it was. */
static void test_rebase(void **state)
{
    const joint_case *c = *state;
    const mbs_joint_ops *o = c->ops;
    const int a2 = c->cardan + 1;
    test_rng r;
    test_rng_seed(&r, 59);
    for (int n = 0; n < 2 * NSAMPLE; ++n) {
        mbs_joint_model j;
        double aux[9], q[6], v[6], aux0[9], q0[6], v0[6], sv0[6], sv1[6], FtF[9], I[9];
        mbs_pose X0, X1;
        make_joint(&r, c, &j);
        random_state(&r, &j, aux, q, v);
        q[a2] = ((n & 1) ? -1.0 : 1.0) * test_rng_uniform(&r, 1.28, 1.8621);
        memcpy(aux0, aux, sizeof aux0);
        memcpy(q0, q, sizeof q0);
        memcpy(v0, v, sizeof v0);
        cardan_kinematics(&j, aux, q, v, &X0, sv0);
        assert_int_equal(o->rebase(&j, aux, q, v), 1);
        cardan_kinematics(&j, aux, q, v, &X1, sv1);
        assert_pose_close(&X1, &X0, 1e-12, "rebase keeps the pose");
        test_assert_close(sv1, sv0, 6, 1e-12, "rebase keeps the velocity");
        for (int k = 0; k < 3; ++k) assert_true(q[c->cardan + k] == 0.0);
        assert_memory_equal(q, q0, (size_t)c->cardan * sizeof(double));
        assert_memory_equal(v, v0, (size_t)c->cardan * sizeof(double));
        m3_tmul(FtF, aux, aux);
        m3_identity(I);
        test_assert_close(FtF, I, 9, 1e-15, "rebased Fix orthonormal");
        memcpy(aux0, aux, sizeof aux0);
        memcpy(q0, q, sizeof q0);
        memcpy(v0, v, sizeof v0);
        assert_int_equal(o->rebase(&j, aux, q, v), 0);
        assert_memory_equal(aux, aux0, sizeof aux0);
        assert_memory_equal(q, q0, sizeof q0);
        assert_memory_equal(v, v0, sizeof v0);
    }
}

/* The threshold: |cos a2| = 0.31 stays, 0.29 re-bases (MBS_CARDAN_REBASE_COS = 0.3). */
static void test_rebase_threshold(void **state)
{
    mbs_joint_model j = {.ops = &mbs_joint_spherical_cardan_ops};
    double aux[9], q[3] = {0.2, acos(0.31), -0.4}, v[3] = {0.3, -0.2, 0.5};
    double q0[3], v0[3];
    (void)state;
    j.ops->aux_init(&j, aux);
    memcpy(q0, q, sizeof q0);
    memcpy(v0, v, sizeof v0);
    assert_int_equal(j.ops->rebase(&j, aux, q, v), 0);
    assert_memory_equal(q, q0, sizeof q0);
    assert_memory_equal(v, v0, sizeof v0);
    q[1] = -acos(0.31);
    assert_int_equal(j.ops->rebase(&j, aux, q, v), 0);
    q[1] = acos(0.29);
    assert_int_equal(j.ops->rebase(&j, aux, q, v), 1);
    q[1] = -acos(-0.29); /* a2 = -1.865 rad, beyond -90 degrees */
    q[0] = 0.1;
    for (int k = 0; k < 9; ++k) aux[k] += 1e-9 * (double)((k * 7) % 5 - 2); /* drifted Fix */
    assert_int_equal(j.ops->rebase(&j, aux, q, v), 1);
    double FtF[9], I[9];
    m3_tmul(FtF, aux, aux);
    m3_identity(I);
    test_assert_close(FtF, I, 9, 1e-15, "re-base orthonormalizes a drifted Fix");
}

/* ------------------------------------------------------------------ analytic transforms */

/* Rotate x by angle about unit axis through the quaternion path (independent of the
   Rodrigues matrices the joints use). */
static void rotate_q(double o[3], const double axis[3], double angle, const double x[3])
{
    double rv[3], q[4];
    v3_scale(rv, axis, angle);
    mbs_quat_exp(q, rv);
    mbs_quat_rotate(o, q, x);
}

/* Revolute, prismatic, cylindrical, planar and universal transforms against their
   definitions (mbs.h), with rotations applied by quaternions. */
static void test_transform_analytic(void **state)
{
    test_rng r;
    (void)state;
    test_rng_seed(&r, 61);
    for (int n = 0; n < NSAMPLE; ++n) {
        mbs_joint_model j;
        double q[3], e[3], Re[3], p[3];
        mbs_pose X;
        for (int k = 0; k < 3; ++k) q[k] = test_rng_uniform(&r, -3.0, 3.0);
        make_joint(&r, &cases[0], &j); /* revolute: R axis2 = rotate(axis2), p = 0 */
        j.ops->transform(&j, NULL, q, &X);
        m3_mulv(Re, X.R, j.axis2);
        rotate_q(e, j.axis, q[0], j.axis2);
        test_assert_close(Re, e, 3, 1e-14, "revolute R axis2");
        make_joint(&r, &cases[1], &j); /* prismatic: R = I, p = q axis */
        j.ops->transform(&j, NULL, q, &X);
        v3_scale(p, j.axis, q[0]);
        test_assert_close(X.p, p, 3, 0.0, "prismatic p");
        make_joint(&r, &cases[2], &j); /* cylindrical: p = s axis, R axis2 = rotate(axis2) */
        j.ops->transform(&j, NULL, q, &X);
        v3_scale(p, j.axis, q[0]);
        m3_mulv(Re, X.R, j.axis2);
        rotate_q(e, j.axis, q[1], j.axis2);
        test_assert_close(X.p, p, 3, 0.0, "cylindrical p");
        test_assert_close(Re, e, 3, 1e-14, "cylindrical R axis2");
        make_joint(&r, &cases[6], &j); /* planar: p = x axis2 + y axis3, R axis2 */
        j.ops->transform(&j, NULL, q, &X);
        for (int k = 0; k < 3; ++k) p[k] = q[0] * j.axis2[k] + q[1] * j.axis3[k];
        for (int k = 0; k < 3; ++k) e[k] = cos(q[2]) * j.axis2[k] + sin(q[2]) * j.axis3[k];
        m3_mulv(Re, X.R, j.axis2);
        test_assert_close(X.p, p, 3, 1e-15, "planar p");
        test_assert_close(Re, e, 3, 1e-14, "planar R axis2");
        make_joint(&r, &cases[3], &j); /* universal: R x = rotate(axis, a1, rotate(axis2, a2, x)) */
        j.ops->transform(&j, NULL, q, &X);
        double t[3];
        rotate_q(t, j.axis2, q[1], j.axis3);
        rotate_q(e, j.axis, q[0], t);
        m3_mulv(Re, X.R, j.axis3);
        test_assert_close(Re, e, 3, 1e-14, "universal R x");
    }
}

/* ------------------------------------------------------------------ rotation utilities */

/* Random unit quaternion. */
static void random_quat(test_rng *r, double q[4])
{
    for (int k = 0; k < 4; ++k) q[k] = test_rng_uniform(r, -1.0, 1.0);
    mbs_quat_normalize(q);
}

/* R(exp(th u)) equals Rodrigues' matrix; R(a (x) b) = R(a) R(b); R(conj a) = R(a)^T;
   quat_rotate = R x; quat_deriv matches the central difference of quat_integrate. */
static void test_quat_algebra(void **state)
{
    test_rng r;
    (void)state;
    test_rng_seed(&r, 67);
    for (int n = 0; n < 100; ++n) {
        double u[3], rv[3], a[4], b[4], ab[4], Ra[9], Rb[9], Rab[9], RaRb[9], Rt[9], Rc[9];
        double x[3], y[3], z[3], w[3], qd[4], qp[4], qm[4], fd[4];
        double th = test_rng_uniform(&r, -4.0, 4.0);
        random_unit(&r, u);
        v3_scale(rv, u, th);
        mbs_quat_exp(a, rv);
        mbs_quat_to_mat(Ra, a);
        m3_axis_angle(Rt, u, th);
        test_assert_close(Ra, Rt, 9, 1e-14, "R(exp(th u)) vs Rodrigues");
        random_quat(&r, b);
        mbs_quat_mul(ab, a, b);
        mbs_quat_to_mat(Rb, b);
        mbs_quat_to_mat(Rab, ab);
        m3_mul(RaRb, Ra, Rb);
        test_assert_close(Rab, RaRb, 9, 1e-14, "R(a b) vs R(a) R(b)");
        mbs_quat_conj(ab, a);
        mbs_quat_to_mat(Rc, ab);
        m3_transpose(Rt, Ra);
        test_assert_close(Rc, Rt, 9, 1e-15, "R(conj a) vs R(a)^T");
        random_unit(&r, x);
        mbs_quat_rotate(y, b, x);
        m3_mulv(z, Rb, x);
        test_assert_close(y, z, 3, 1e-15, "quat_rotate vs R x");
        for (int k = 0; k < 3; ++k) w[k] = test_rng_uniform(&r, -2.0, 2.0);
        mbs_quat_deriv(qd, b, w);
        mbs_quat_integrate(qp, b, w, FD_H);
        mbs_quat_integrate(qm, b, w, -FD_H);
        for (int k = 0; k < 4; ++k) fd[k] = (qp[k] - qm[k]) / (2.0 * FD_H);
        test_assert_close(qd, fd, 4, 1e-9, "quat_deriv vs finite differences");
    }
}

/* mat_to_quat inverts quat_to_mat (w >= 0) on random rotations and in each of Shepperd's
   four branches (near-identity; rotations by 3 rad about x, y, z; exact half turns). */
static void test_mat_to_quat(void **state)
{
    test_rng r;
    (void)state;
    test_rng_seed(&r, 71);
    for (int n = 0; n < 200; ++n) {
        double q[4], R[9], q2[4], u[3], rv[3];
        if (n < 100) {
            random_quat(&r, q);
        } else {
            const double e[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.3, -0.2, 0.1}};
            double th = (n % 4 == 3) ? 0.5 : ((n % 8 < 4) ? 3.0 : PI);
            for (int k = 0; k < 3; ++k) u[k] = e[n % 4][k] + test_rng_uniform(&r, -0.05, 0.05);
            v3_scale(u, u, 1.0 / v3_norm(u));
            v3_scale(rv, u, th);
            mbs_quat_exp(q, rv);
        }
        if (q[0] < 0)
            for (int k = 0; k < 4; ++k) q[k] = -q[k];
        mbs_quat_to_mat(R, q);
        mbs_mat_to_quat(q2, R);
        if (q[0] == 0.0 && q2[1] * q[1] + q2[2] * q[2] + q2[3] * q[3] < 0) /* half turn: +-q */
            for (int k = 0; k < 4; ++k) q2[k] = -q2[k];
        test_assert_close(q2, q, 4, 1e-14, "mat_to_quat(quat_to_mat(q))");
        assert_true(q2[0] >= 0.0);
    }
}

/* log(exp(r)) = r for |r| < pi, including the series range and 0; exp's series equals the
   direct formula; log takes the shortest path, ignores sign and scale of q. */
static void test_exp_log(void **state)
{
    test_rng r;
    (void)state;
    test_rng_seed(&r, 73);
    const double mags[] = {0.0, 1e-12, 1e-6, 5e-4, 0.9e-3, 1.1e-3, 1.9e-3, 2.1e-3, 1.0, 3.14};
    for (int n = 0; n < 200; ++n) {
        double u[3], rv[3], q[4], back[3], qn[4], b2[3], e[3];
        double th = (n < 10) ? mags[n] : test_rng_uniform(&r, 0.0, 3.1);
        random_unit(&r, u);
        v3_scale(rv, u, th);
        mbs_quat_exp(q, rv);
        mbs_quat_log(back, q);
        test_assert_close(back, rv, 3, 2e-15, "log(exp(r))");
        v3_sub(e, back, rv); /* relative accuracy also for tiny angles (series range) */
        assert_true(v3_norm(e) <= 1e-15 * th);
        if (th > 0.0) { /* direct formula, accurate for th > 0 */
            double k = sin(0.5 * th) / th, qd[4] = {cos(0.5 * th), k * rv[0], k * rv[1], k * rv[2]};
            test_assert_close(q, qd, 4, 1e-15, "exp vs direct formula");
        }
        for (int k = 0; k < 4; ++k) qn[k] = -3.0 * q[k];
        mbs_quat_log(b2, qn);
        test_assert_close(b2, back, 3, 1e-15, "log(-3 q) = log(q)");
    }
    for (int n = 0; n < 50; ++n) { /* beyond pi: the shortest path r (1 - 2 pi/|r|) */
        double u[3], rv[3], q[4], back[3], expect[3];
        double th = test_rng_uniform(&r, 3.3, 6.0);
        random_unit(&r, u);
        v3_scale(rv, u, th);
        mbs_quat_exp(q, rv);
        mbs_quat_log(back, q);
        v3_scale(expect, u, th - 2.0 * PI);
        test_assert_close(back, expect, 3, 1e-14, "log takes the shortest path");
        assert_true(v3_norm(back) <= PI);
    }
}

/* normalize: zero, NaN, +-Inf become the identity; tiny and huge scales become unit. */
static void test_quat_normalize_robust(void **state)
{
    const double id[4] = {1, 0, 0, 0};
    const double bad[][4] = {{0, 0, 0, 0}, {NAN, 0, 0, 0}, {1, INFINITY, 0, 0},
                             {0, 0, -INFINITY, 1}, {1e300, 1e300, NAN, 0}};
    (void)state;
    for (int k = 0; k < 5; ++k) {
        double q[4];
        memcpy(q, bad[k], sizeof q);
        mbs_quat_normalize(q);
        assert_memory_equal(q, id, sizeof id);
    }
    const double base[4] = {0.5, -0.5, 0.5, 0.5}, scales[] = {1e-310, 1e-160, 1e160, 1e300};
    for (int s = 0; s < 4; ++s) {
        double q[4];
        for (int k = 0; k < 4; ++k) q[k] = scales[s] * base[k];
        mbs_quat_normalize(q);
        test_assert_close(q, base, 4, 1e-15, "normalize(scaled)");
    }
    double R[9], z[4] = {0, 0, 0, 0}, I[9];
    mbs_quat_to_mat(R, z);
    m3_identity(I);
    assert_memory_equal(R, I, sizeof I);
}

/* Cardan: matrix = Rx Ry Rz; angles round trip; at and near gimbal lock the angles
   reproduce the matrix; random rotations round trip through angles. */
static void test_cardan_angles(void **state)
{
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    test_rng r;
    (void)state;
    test_rng_seed(&r, 79);
    for (int n = 0; n < 200; ++n) {
        double a[3], R[9], Rx[9], Ry[9], Rz[9], T[9], P[9], b[3], R2[9];
        a[0] = test_rng_uniform(&r, -3.1, 3.1);
        a[1] = test_rng_uniform(&r, -1.55, 1.55);
        a[2] = test_rng_uniform(&r, -3.1, 3.1);
        mbs_cardan_to_mat(R, a);
        m3_axis_angle(Rx, ex, a[0]);
        m3_axis_angle(Ry, ey, a[1]);
        m3_axis_angle(Rz, ez, a[2]);
        m3_mul(T, Rx, Ry);
        m3_mul(P, T, Rz);
        test_assert_close(R, P, 9, 1e-15, "cardan_to_mat vs Rx Ry Rz");
        mbs_mat_to_cardan(b, R);
        test_assert_close(b, a, 3, 1e-12, "mat_to_cardan(cardan_to_mat(a))");
        random_rotation(&r, R);
        mbs_mat_to_cardan(b, R);
        mbs_cardan_to_mat(R2, b);
        test_assert_close(R2, R, 9, 1e-14, "cardan_to_mat(mat_to_cardan(R))");
    }
    const double off[] = {0.0, 1e-13, 1e-10, 1e-7}; /* at and near gimbal lock */
    for (int n = 0; n < 8; ++n) {
        double s = (n & 1) ? -1.0 : 1.0, a[3] = {0.4, s * (PI / 2 - off[n / 2]), 0.7};
        double R[9], b[3], R2[9];
        mbs_cardan_to_mat(R, a);
        mbs_mat_to_cardan(b, R);
        mbs_cardan_to_mat(R2, b);
        test_assert_close(R2, R, 9, 1e-15, "near gimbal lock: same matrix");
    }
    const double Ry90[9] = {0, 0, 1, 0, 1, 0, -1, 0, 0}; /* exactly singular: a1 = 0 */
    double b[3], R2[9];
    mbs_mat_to_cardan(b, Ry90);
    mbs_cardan_to_mat(R2, b);
    assert_true(b[0] == 0.0);
    test_assert_close(R2, Ry90, 9, 1e-15, "exact gimbal lock: same matrix");
}

/* mbs_forward_dynamics at a Cardan joint's singularity (middle angle +-90 degrees, exactly
   and within 1e-9) names the joint and the angle (it said "massless end of a chain?" of its
   body, which has mass); the free joint's Cardan angles too. */
static void test_cardan_singular_named(void **state)
{
    (void)state;
    const mbs_joint_type types[2] = {MBS_JOINT_SPHERICAL, MBS_JOINT_FREE};
    for (int k = 0; k < 2; ++k) {
        mbs_builder *b = mbs_builder_create();
        mbs_body_def bd = mbs_default_body_def();
        bd.com[2] = -0.5;
        const int body = mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(types[k]);
        jd.child = body, jd.rotation = MBS_ROT_CARDAN, jd.name = "ball";
        assert_true(mbs_add_joint(b, &jd) >= 0);
        mbs_model *m = test_compile_ok(b);
        mbs_data *d = mbs_data_create(m);
        const int a2 = mbs_model_joint_nq(m, 0) - 2;
        const double angles[2] = {PI / 2, -PI / 2 + 1e-9};
        for (int i = 0; i < 2; ++i) {
            mbs_data_q(d)[a2] = angles[i];
            assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_SINGULAR);
            if (!strstr(mbs_data_error(d), "joint \"ball\": Cardan angles at their singularity"))
                fail_msg("%s", mbs_data_error(d));
        }
        mbs_data_q(d)[a2] = 0.3; /* away from it: fine */
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* Rate matrix: inverse solve, derivative vs central differences, singular solve refused. */
static void test_cardan_rates(void **state)
{
    test_rng r;
    (void)state;
    test_rng_seed(&r, 83);
    for (int n = 0; n < 200; ++n) {
        double a[3], ad[3], w[3], J[9], Jd[9], Jp[9], Jm[9], ap[3], am[3], fd[9], back[3];
        for (int k = 0; k < 3; ++k) a[k] = test_rng_uniform(&r, -1.5, 1.5);
        for (int k = 0; k < 3; ++k) ad[k] = test_rng_uniform(&r, -1.0, 1.0);
        mbs_cardan_rate_matrix(J, a);
        m3_mulv(w, J, ad);
        assert_int_equal(mbs_cardan_rates(back, a, w), 0);
        test_assert_close(back, ad, 3, 1e-12, "cardan_rates(Jc adot)");
        mbs_cardan_rate_matrix_dot(Jd, a, ad);
        for (int k = 0; k < 3; ++k) {
            ap[k] = a[k] + FD_H * ad[k];
            am[k] = a[k] - FD_H * ad[k];
        }
        mbs_cardan_rate_matrix(Jp, ap);
        mbs_cardan_rate_matrix(Jm, am);
        for (int k = 0; k < 9; ++k) fd[k] = (Jp[k] - Jm[k]) / (2.0 * FD_H);
        test_assert_close(Jd, fd, 9, 1e-9, "dJc/dt vs finite differences");
    }
    double a[3] = {0.3, PI / 2, -0.2}, w[3] = {1, 2, 3}, ad[3] = {7, 7, 7};
    assert_int_equal(mbs_cardan_rates(ad, a, w), -1);
    assert_true(ad[0] == 7 && ad[1] == 7 && ad[2] == 7);
}

/* mat_orthonormalize and mat_log: a perturbed rotation becomes orthonormal and stays close;
   mat_log equals the rotation vector. */
static void test_mat_helpers(void **state)
{
    test_rng r;
    (void)state;
    test_rng_seed(&r, 89);
    for (int n = 0; n < 100; ++n) {
        double R[9], P[9], PtP[9], I[9], u[3], rv[3], back[3];
        double th = test_rng_uniform(&r, 0.0, 3.0);
        random_unit(&r, u);
        v3_scale(rv, u, th);
        m3_axis_angle(R, u, th);
        mbs_mat_log(back, R);
        test_assert_close(back, rv, 3, 1e-13, "mat_log(Rodrigues)");
        for (int k = 0; k < 9; ++k) P[k] = R[k] + test_rng_uniform(&r, -1e-9, 1e-9);
        mbs_mat_orthonormalize(P);
        m3_tmul(PtP, P, P);
        m3_identity(I);
        test_assert_close(PtP, I, 9, 1e-15, "orthonormalized");
        test_assert_close(P, R, 9, 1e-8, "orthonormalized stays close");
    }
}

/* Prints the largest relative errors measured per table (finite-difference tolerance 1e-9). */
static void test_report(void **state)
{
    (void)state;
    print_message("%-18s %12s %12s %12s %12s\n", "table", "manifold", "S v (fd)", "c_J (fd)",
                  "qdot (fd)");
    for (int c = 0; c < NCASE; ++c) {
        print_message("%-18s %12.2e %12.2e %12.2e %12.2e\n", cases[c].ops->name,
                      worst[c][W_MANIFOLD], worst[c][W_MOTION], worst[c][W_BIAS],
                      worst[c][W_QDOT]);
        assert_true(worst[c][W_MOTION] <= 1e-9 && worst[c][W_BIAS] <= 1e-9 &&
                    worst[c][W_QDOT] <= 1e-9 && worst[c][W_MANIFOLD] <= 1e-10);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_for),
        cmocka_unit_test(test_ops_tables),
        JOINT_TESTS(0), JOINT_TESTS(1), JOINT_TESTS(2), JOINT_TESTS(3), JOINT_TESTS(4),
        JOINT_TESTS(5), JOINT_TESTS(6), JOINT_TESTS(7), JOINT_TESTS(8), JOINT_TESTS(9),
        JOINT_TESTS(10), JOINT_TESTS(11),
        cmocka_unit_test(test_cardan_vs_quat),
        cmocka_unit_test_prestate(test_rebase, &cases[5]),
        cmocka_unit_test_prestate(test_rebase, &cases[8]),
        cmocka_unit_test(test_rebase_threshold),
        cmocka_unit_test(test_transform_analytic),
        cmocka_unit_test(test_quat_algebra),
        cmocka_unit_test(test_mat_to_quat),
        cmocka_unit_test(test_exp_log),
        cmocka_unit_test(test_quat_normalize_robust),
        cmocka_unit_test(test_cardan_angles),
        cmocka_unit_test(test_cardan_rates),
        cmocka_unit_test(test_cardan_singular_named),
        cmocka_unit_test(test_mat_helpers),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
