/* Derivatives of the closed-loop forward dynamics in the independent coordinates
 * (mbs_forward_dynamics_derivatives with cut joints) against central differences of the
 * closed-loop forward dynamics itself: each independent coordinate u_j (or rate u'_j) moved
 * by +-h, the loops closed again by mbs_assemble holding u (and v_u), qacc from
 * mbs_forward_dynamics. Four-bars (planar path and closed forms, Newton in 3-D, a spherical
 * cut), slider-crank, the inline-six engine, an engine on a cylindrical joint, IFToMM A02 and
 * a door on two coaxial hinges (every row redundant); the redundant rows of revolute cuts in
 * planar loops are dropped in all of them. Then what is refused: a state off the constraint
 * manifold, a near-singular position, coordinate rows. */
#include "common.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FD_H 1e-4   /* central-difference step of the reference (tangent units, rad/s) */
#define TOL 1e-6    /* max |analytic - differences| / max |differences|, per matrix */

/* Closed-loop qacc at q0 (+) dq, v0 + dv (dq, dv nullable) closed holding u, v_u. */
static void closed_qacc(mbs_data *d, const double *q0, const double *v0, const double *dq,
                        const double *dv, double *qacc)
{
    const mbs_model *m = mbs_data_model(d);
    const int nv = mbs_model_nv(m), nq = mbs_model_nq(m);
    if (dq) assert_int_equal(mbs_integrate_q(m, q0, dq, 1.0, mbs_data_q(d)), MBS_OK);
    else memcpy(mbs_data_q(d), q0, (size_t)nq * sizeof(double));
    for (int i = 0; i < nv; ++i) mbs_data_v(d)[i] = v0[i] + (dv ? dv[i] : 0.0);
    int st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_forward_dynamics(d);
    if (st != MBS_OK) fail_msg("closed qacc: %s", mbs_data_error(d));
    memcpy(qacc, mbs_data_qacc(d), (size_t)nv * sizeof(double));
}

/* Largest |A - F| over the columns flagged in cols (NULL: all) relative to max(1, max |F|)
   (a matrix that is zero, A02's dqacc/du' on its parallelogram branch, is compared to the
   differences' rounding); the columns not flagged must be zero in A. */
static double matrix_error(const double *A, const double *F, const unsigned char *cols, int nv)
{
    double e = 0.0, s = 0.0;
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) {
            const double a = A[i * nv + j], f = F[i * nv + j];
            if (cols && !cols[j]) assert_true(a == 0.0);
            e = fmax(e, fabs(a - f)), s = fmax(s, fabs(f));
        }
    return e / fmax(s, 1.0);
}

/* Central differences of the closed-loop qacc: F_q, F_v (independent columns), F_tau. */
static void reference(mbs_data *d, const unsigned char *ind, double *Fq, double *Fv,
                      double *Ftau)
{
    const mbs_model *m = mbs_data_model(d);
    const int nv = mbs_model_nv(m), nq = mbs_model_nq(m);
    double *q0 = malloc(sizeof(double) * (size_t)nq), *v0 = malloc(sizeof(double) * (size_t)nv);
    double *e = calloc((size_t)nv, sizeof(double)), *ap = malloc(sizeof(double) * (size_t)nv);
    double *am = malloc(sizeof(double) * (size_t)nv), *t0 = malloc(sizeof(double) * (size_t)nv);
    memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(v0, mbs_data_v(d), sizeof(double) * (size_t)nv);
    memcpy(t0, mbs_data_tau(d), sizeof(double) * (size_t)nv);
    memset(Fq, 0, sizeof(double) * (size_t)(nv * nv));
    memset(Fv, 0, sizeof(double) * (size_t)(nv * nv));
    for (int j = 0; j < nv; ++j) {
        if (!ind[j]) continue;
        for (int pass = 0; pass < 2; ++pass) {
            double *F = pass ? Fv : Fq;
            e[j] = FD_H;
            closed_qacc(d, q0, v0, pass ? NULL : e, pass ? e : NULL, ap);
            e[j] = -FD_H;
            closed_qacc(d, q0, v0, pass ? NULL : e, pass ? e : NULL, am);
            e[j] = 0.0;
            for (int i = 0; i < nv; ++i) F[i * nv + j] = (ap[i] - am[i]) / (2.0 * FD_H);
        }
    }
    for (int j = 0; j < nv; ++j) { /* qacc is affine in tau */
        for (int s = 0; s < 2; ++s) {
            mbs_data_tau(d)[j] = t0[j] + (s ? -1.0 : 1.0);
            closed_qacc(d, q0, v0, NULL, NULL, s ? am : ap);
        }
        mbs_data_tau(d)[j] = t0[j];
        for (int i = 0; i < nv; ++i) Ftau[i * nv + j] = 0.5 * (ap[i] - am[i]);
    }
    memcpy(mbs_data_q(d), q0, sizeof(double) * (size_t)nq);
    memcpy(mbs_data_v(d), v0, sizeof(double) * (size_t)nv);
    free(q0), free(v0), free(e), free(ap), free(am), free(t0);
}

/* The analytic derivatives at the data's (closed) state against the references: each matrix
   within TOL; q, v restored and qacc that of the forward dynamics. */
static void check_state(mbs_data *d, const char *what)
{
    const mbs_model *m = mbs_data_model(d);
    const int nv = mbs_model_nv(m), nq = mbs_model_nq(m);
    const size_t n2 = (size_t)nv * (size_t)nv;
    double *A = malloc(3 * n2 * sizeof(double)), *F = malloc(3 * n2 * sizeof(double));
    double *q0 = malloc((size_t)nq * sizeof(double)), *v0 = malloc((size_t)nv * sizeof(double));
    unsigned char *ind = malloc((size_t)nv);
    int nd = 0, st = mbs_assemble(d);
    if (st != MBS_OK) fail_msg("%s: assemble: %s", what, mbs_data_error(d));
    assert_int_equal(mbs_linearize_coordinates(d, ind, &nd), MBS_OK);
    memcpy(q0, mbs_data_q(d), (size_t)nq * sizeof(double));
    memcpy(v0, mbs_data_v(d), (size_t)nv * sizeof(double));
    st = mbs_forward_dynamics_derivatives(d, A, A + n2, A + 2 * n2);
    if (st != MBS_OK) fail_msg("%s: %s", what, mbs_data_error(d));
    assert_memory_equal(q0, mbs_data_q(d), (size_t)nq * sizeof(double));
    assert_memory_equal(v0, mbs_data_v(d), (size_t)nv * sizeof(double));
    double qacc[64];
    assert_true(nv <= 64);
    memcpy(qacc, mbs_data_qacc(d), (size_t)nv * sizeof(double));
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    for (int i = 0; i < nv; ++i)
        assert_true(fabs(qacc[i] - mbs_data_qacc(d)[i]) <= 1e-9 * (1.0 + fabs(qacc[i])));
    reference(d, ind, F, F + n2, F + 2 * n2);
    const double eq = matrix_error(A, F, ind, nv), ev = matrix_error(A + n2, F + n2, ind, nv);
    const double et = matrix_error(A + 2 * n2, F + 2 * n2, NULL, nv);
    print_message("%-34s nv %2d, independent %d: dqacc/du %.1e, dqacc/du' %.1e, "
                  "dqacc/dtau %.1e\n", what, nv, nd, eq, ev, et);
    assert_true(eq < TOL);
    assert_true(ev < TOL);
    assert_true(et < TOL);
    free(A), free(F), free(q0), free(v0), free(ind);
}

/* A four-bar at crank angle 0.7 rad, rate 1.3 rad/s, 0.4 N m on the crank. */
static void fourbar_case(lm_fourbar p, const char *what)
{
    lm_mech mech;
    int st = lm_build_fourbar(&p, &mech);
    if (st != MBS_OK) fail_msg("build: %s", mech.error);
    mbs_data *d = mbs_data_create(mech.model);
    double th[3] = {0.7, 0, 0}, w[3] = {1.3, 0, 0}, al[3];
    assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_rates(&p, th, w[0], 0.0, w, al);
    lm_fourbar_set(&p, &mech, d, th, w);
    mbs_data_tau(d)[mbs_model_joint_vadr(mech.model, mech.joint[0])] = 0.4;
    check_state(d, what);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

static void test_fourbar(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    fourbar_case(p, "four-bar (default path)");
    p.damping = 0.3, p.tilt = 0.4;
    fourbar_case(p, "four-bar tilted, crank damper");
    lm_set_planar(MBS_PLANAR_OFF);
    lm_set_closure(MBS_CLOSURE_NEWTON);
    p.cut = LM_CUT_A;
    fourbar_case(p, "four-bar 3-D, Newton, cut A");
    p.cut = LM_CUT_O4, p.cut_type = MBS_JOINT_SPHERICAL;
    fourbar_case(p, "four-bar 3-D, spherical cut O4");
    lm_set_planar(MBS_PLANAR_AUTO);
    lm_set_closure(MBS_CLOSURE_ANALYTIC);
}

static void test_slider_crank(void **state)
{
    (void)state;
    for (int cut = 0; cut < 3; ++cut) {
        lm_slider_crank p = lm_default_slider_crank();
        p.cut = cut;
        lm_mech mech;
        int st = lm_build_slider_crank(&p, &mech);
        if (st != MBS_OK) fail_msg("build: %s", mech.error);
        mbs_data *d = mbs_data_create(mech.model);
        const double s[3] = {0.9, 0, 0}, sd[3] = {-2.0, 0, 0};
        double x[3], phi[3], ss[3], ssd[3];
        lm_slider_crank_kin(&p, s[0], sd[0], 0.0, x, phi);
        ss[0] = s[0], ss[1] = phi[0], ss[2] = x[0];
        ssd[0] = sd[0], ssd[1] = phi[1], ssd[2] = x[1];
        lm_slider_crank_set(&p, &mech, d, ss, ssd);
        char what[64];
        snprintf(what, sizeof what, "slider-crank, cut %d", cut);
        check_state(d, what);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
}

static void test_engines(void **state)
{
    (void)state;
    lm_mech mech;
    assert_int_equal(lm_build_engine6(&mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    lm_engine_set(&mech, 6, 0.4, 25.0, d);
    mbs_data_tau(d)[0] = 3.0;
    check_state(d, "inline-six engine (6 loops)");
    mbs_data_destroy(d);
    lm_mech_free(&mech);
    assert_int_equal(lm_build_engine1(MBS_JOINT_CYLINDRICAL, &mech), MBS_OK);
    d = mbs_data_create(mech.model);
    lm_engine_set(&mech, 1, 1.1, -7.0, d);
    check_state(d, "engine, cylindrical (rank 3 of 5)");
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* mbs-sim's V6 engine (models/engine_v6.xml) at its start values, closed in closed form and
   by Newton (30 rows, rank 12), at 0.3 rad further on with 2 N m on the crankshaft. */
static void test_engine_v6(void **state)
{
    (void)state;
    for (int k = 0; k < 2; ++k) {
        mbs_builder *b = mbs_builder_create();
        assert_int_equal(mbs_builder_set_closure(b, k ? MBS_CLOSURE_NEWTON : MBS_CLOSURE_ANALYTIC),
                         MBS_OK);
        assert_int_equal(lm_load_model(b, "engine_v6"), MBS_OK);
        mbs_model *m = NULL;
        assert_int_equal(mbs_compile(b, &m), MBS_OK);
        mbs_builder_destroy(b);
        mbs_data *d = mbs_data_create(m);
        check_state(d, k ? "V6 engine, Newton" : "V6 engine, closed forms");
        mbs_data_q(d)[0] += 0.3;
        mbs_data_tau(d)[0] = 2.0;
        check_state(d, k ? "V6 engine, Newton, +0.3 rad" : "V6 engine, closed forms, +0.3 rad");
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* IFToMM A02 with 3 four-bars on the parallelogram branch at crank angle 1.1 rad. */
static void test_a02(void **state)
{
    (void)state;
    const int n = 3;
    lm_mech mech;
    assert_int_equal(lm_build_a02(n, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    for (int j = 0; j < 2 * n + 1; ++j) {
        mbs_data_q(d)[mbs_model_joint_qadr(mech.model, j)] = j <= n ? 1.1 : -1.1;
        mbs_data_v(d)[mbs_model_joint_vadr(mech.model, j)] = j <= n ? -1.0 : 1.0;
    }
    check_state(d, "IFToMM A02, 3 four-bars");
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* Two coaxial hinges: the cut's five rows all redundant (rank 0), every coordinate
   independent; the loop's derivatives are the tree's. */
static void test_door_rank0(void **state)
{
    (void)state;
    lm_mech mech;
    assert_int_equal(lm_build_door(2, 0, NULL, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    mbs_data_q(d)[0] = 0.3, mbs_data_v(d)[0] = 0.8;
    check_state(d, "door on two coaxial hinges");
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* ---------------------------------------------------------------- sensitivities */

/* q, v at t_end of a sensitivity run from the assembled start (th 0.7, w 1.3, tau 0.4) with
   parameter p at value x (nullable dq, dv: its sensitivities there); 0, or 1 when the
   build has no SUNDIALS. */
static int sens_run(const lm_mech *mech, const mbs_param *p, double x, double t_end,
                    double *q, double *v, double *dq, double *dv)
{
    mbs_model *m = mech->model;
    double x0;
    assert_int_equal(mbs_model_get_param(m, p, &x0), MBS_OK);
    assert_int_equal(mbs_model_set_param(m, p, x), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    lm_fourbar fb = lm_default_fourbar();
    double th[3] = {0.7, 0, 0}, w[3] = {1.3, 0, 0}, al[3];
    assert_int_equal(lm_fourbar_position(&fb, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_rates(&fb, th, w[0], 0.0, w, al);
    lm_fourbar_set(&fb, mech, d, th, w);
    mbs_data_tau(d)[0] = 0.4;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    mbs_sens_def sd = mbs_default_sens_def();
    sd.rtol = 1e-9, sd.atol = 1e-11;
    mbs_sens *s = NULL;
    int st = mbs_sens_create(m, d, p, 1, &sd, &s);
    if (st == MBS_ERR_STATE && strstr(mbs_data_error(d), "SUNDIALS")) {
        mbs_data_destroy(d);
        return 1;
    }
    if (st != MBS_OK) fail_msg("sens_create: %s", mbs_data_error(d));
    st = mbs_sens_run(s, t_end);
    if (st != MBS_OK) fail_msg("sens_run: %s", mbs_data_error(d));
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    memcpy(q, mbs_data_q(d), (size_t)nq * sizeof(double));
    memcpy(v, mbs_data_v(d), (size_t)nv * sizeof(double));
    if (dq) assert_int_equal(mbs_sens_get(s, 0, dq, dv), MBS_OK);
    mbs_sens_destroy(s);
    mbs_data_destroy(d);
    assert_int_equal(mbs_model_set_param(m, p, x0), MBS_OK);
    return 0;
}

/* CVODES sensitivities (Adams, rtol 1e-9) of a four-bar with a crank damper over 1 s to the
   coupler's mass, its com and the damping, against central differences of whole runs (step
   1e-3 relative): every coordinate and rate within 1e-4 of the largest (measured 1.4e-6,
   1.3e-5, 1.1e-6 on the planar path with closed forms; 4.6e-6, 3.5e-6, 2.7e-6 in 3-D with
   Newton). Tighter tolerances do not pay: CVODES' difference quotients of a
   right-hand side that closes the loops stall at rtol 1e-10 and below. */
static void sens_case(int newton_3d)
{
    lm_fourbar p = lm_default_fourbar();
    p.damping = 0.3;
    lm_mech mech;
    lm_set_planar(newton_3d ? MBS_PLANAR_OFF : MBS_PLANAR_AUTO);
    lm_set_closure(newton_3d ? MBS_CLOSURE_NEWTON : MBS_CLOSURE_ANALYTIC);
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    lm_set_planar(MBS_PLANAR_AUTO), lm_set_closure(MBS_CLOSURE_ANALYTIC);
    const mbs_param par[3] = {{MBS_PARAM_MASS, mech.body[1], 0}, {MBS_PARAM_COM, mech.body[1], 0},
                              {MBS_PARAM_DAMPING, 0, 0}};
    const char *name[3] = {"coupler mass", "coupler com x", "crank damping"};
    double q[8], v[8], dq[8], dv[8], qp[8], vp[8], qm[8], vm[8];
    const int nv = mbs_model_nv(mech.model);
    for (int k = 0; k < 3; ++k) {
        double x0;
        assert_int_equal(mbs_model_get_param(mech.model, &par[k], &x0), MBS_OK);
        if (sens_run(&mech, &par[k], x0, 1.0, q, v, dq, dv)) {
            print_message("no SUNDIALS in this build: sensitivities skipped\n");
            break;
        }
        const double h = 1e-3 * fmax(fabs(x0), 0.1);
        sens_run(&mech, &par[k], x0 + h, 1.0, qp, vp, NULL, NULL);
        sens_run(&mech, &par[k], x0 - h, 1.0, qm, vm, NULL, NULL);
        double e = 0.0, sc = 0.0;
        for (int i = 0; i < nv; ++i) { /* revolute joints: nq = nv */
            const double fq = (qp[i] - qm[i]) / (2.0 * h), fv = (vp[i] - vm[i]) / (2.0 * h);
            e = fmax(e, fmax(fabs(dq[i] - fq), fabs(dv[i] - fv)));
            sc = fmax(sc, fmax(fabs(fq), fabs(fv)));
        }
        print_message("four-bar (%s) sensitivity to %-14s max |ds| %.3g, vs differences "
                      "%.1e\n", newton_3d ? "3-D Newton" : "planar", name[k], sc, e / sc);
        assert_true(sc > 1e-3);
        assert_true(e <= 1e-4 * sc);
    }
    lm_mech_free(&mech);
}

static void test_sensitivities(void **state)
{
    (void)state;
    sens_case(0);
    sens_case(1);
}

/* What is refused, with the state as it was: off the constraint manifold (MBS_ERR_STATE), a
   near-singular position (MBS_ERR_SINGULAR), inverse-dynamics derivatives of loops. */
/* A geometry parameter moves the closure: its sensitivity at the start is not zero, so a
   run that starts from zero would be wrong; refused (a 3-D four-bar closed by Newton, whose
   geometry may change). */
static void test_geometry_sens_refused(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    lm_set_planar(MBS_PLANAR_OFF), lm_set_closure(MBS_CLOSURE_NEWTON);
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    lm_set_planar(MBS_PLANAR_AUTO), lm_set_closure(MBS_CLOSURE_ANALYTIC);
    mbs_data *d = mbs_data_create(mech.model);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const mbs_param geo = {MBS_PARAM_FRAME_PARENT_POS, 1, 0};
    double x = 0.0;
    assert_int_equal(mbs_model_get_param(mech.model, &geo, &x), MBS_OK);
    mbs_sens_def sd = mbs_default_sens_def();
    mbs_sens *s = NULL;
    assert_int_equal(mbs_sens_create(mech.model, d, &geo, 1, &sd, &s), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "geometry parameter"));
    assert_null(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

static void test_refused(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    assert_int_equal(lm_build_fourbar(&p, &mech), MBS_OK);
    mbs_data *d = mbs_data_create(mech.model);
    const int nv = mbs_model_nv(mech.model);
    double th[3] = {0.7, 0, 0}, w[3] = {1.3, 0, 0}, al[3], A[81], qacc[9];
    assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_rates(&p, th, w[0], 0.0, w, al);
    lm_fourbar_set(&p, &mech, d, th, w);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    memcpy(qacc, mbs_data_qacc(d), (size_t)nv * sizeof(double));
    mbs_data_q(d)[1] += 1e-3; /* off the loop */
    assert_int_equal(mbs_forward_dynamics_derivatives(d, A, NULL, NULL), MBS_ERR_STATE);
    print_message("off the loop: %s\n", mbs_data_error(d));
    assert_non_null(strstr(mbs_data_error(d), "position constraint"));
    assert_memory_equal(qacc, mbs_data_qacc(d), (size_t)nv * sizeof(double));
    mbs_data_q(d)[1] -= 1e-3;
    mbs_data_v(d)[1] += 1e-3;
    assert_int_equal(mbs_forward_dynamics_derivatives(d, NULL, A, NULL), MBS_ERR_STATE);
    assert_non_null(strstr(mbs_data_error(d), "velocity constraint"));
    assert_int_equal(mbs_inverse_dynamics_derivatives(d, qacc, A, NULL, NULL), MBS_ERR_STATE);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
    /* A02 1e-6 rad from its flat position: J_v nearly singular */
    assert_int_equal(lm_build_a02(2, &mech), MBS_OK);
    d = mbs_data_create(mech.model);
    for (int j = 0; j < 5; ++j) {
        mbs_data_q(d)[mbs_model_joint_qadr(mech.model, j)] = j <= 2 ? 1e-6 : -1e-6;
        mbs_data_v(d)[mbs_model_joint_vadr(mech.model, j)] = j <= 2 ? -1.0 : 1.0;
    }
    assert_int_equal(mbs_assemble(d), MBS_OK);
    const int st = mbs_forward_dynamics_derivatives(d, A, NULL, NULL);
    print_message("near flat: %s\n", mbs_data_error(d));
    assert_int_equal(st, MBS_ERR_SINGULAR);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fourbar),     cmocka_unit_test(test_slider_crank),
        cmocka_unit_test(test_engines),     cmocka_unit_test(test_engine_v6),
        cmocka_unit_test(test_a02),
        cmocka_unit_test(test_door_rank0),  cmocka_unit_test(test_sensitivities),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_geometry_sens_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
