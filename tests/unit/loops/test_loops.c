/* Closed kinematic loops through the public API: cut joints, redundant rows, coordinate
 * partitioning with Newton closure, constrained dynamics and the steppers. Mechanisms and
 * their closed-form kinematics are in loop_mechanisms.c; the loop residual is measured from
 * body poses (cut-joint frames), not taken from the library. */
#include "common.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* ---------------------------------------------------------------- helpers */

static void build_ok(int rc, const lm_mech *mech)
{
    if (rc != MBS_OK) print_error("build: %s\n", mech->error);
    assert_int_equal(rc, MBS_OK);
}

static mbs_data *new_data(const lm_mech *mech)
{
    mbs_data *d = mbs_data_create(mech->model);
    assert_non_null(d);
    return d;
}

static void call_ok(mbs_data *d, int rc, const char *what)
{
    if (rc != MBS_OK) print_error("%s: %s: %s\n", what, mbs_status_name(rc), mbs_data_error(d));
    assert_int_equal(rc, MBS_OK);
}

/* Angle difference wrapped to (-pi, pi]. */
static double wrap(double a) { return remainder(a, 2.0 * PI); }

/* Scalar rows of a cut joint type. */
static int rows_of(mbs_joint_type t)
{
    switch (t) {
    case MBS_JOINT_REVOLUTE: case MBS_JOINT_PRISMATIC: return 5;
    case MBS_JOINT_CYLINDRICAL: case MBS_JOINT_UNIVERSAL: return 4;
    case MBS_JOINT_SPHERICAL: case MBS_JOINT_PLANAR: return 3;
    case MBS_JOINT_FIXED: return 6;
    default: return 1;
    }
}

/* First row of cut k in lambda (cuts are numbered in joint-id order). */
static int cut_row0(const lm_mech *mech, int k)
{
    int r = 0;
    for (int i = 0; i < k; ++i) r += rows_of(mech->cut[i].type);
    return r;
}

/* World rotation of the parent frame of cut k. */
static void cut_parent_rot(const lm_mech *mech, mbs_data *d, int k, double Rw[9])
{
    const mbs_joint_def *c = &mech->cut[k];
    double p[3], Rb[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (c->parent != MBS_WORLD) call_ok(d, mbs_body_pose(d, c->parent, p, Rb), "pose");
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            Rw[3 * i + j] = Rb[3 * i] * c->frame_parent.rot[j] +
                            Rb[3 * i + 1] * c->frame_parent.rot[3 + j] +
                            Rb[3 * i + 2] * c->frame_parent.rot[6 + j];
}

/* Cut force on the child of cut k (revolute, spherical or fixed: its first three rows are
   the force along the parent frame's axes), in world coordinates. */
static void cut_force_world(const lm_mech *mech, mbs_data *d, int k, double f[3])
{
    const double *lam = mbs_data_lambda(d) + cut_row0(mech, k);
    double R[9];
    cut_parent_rot(mech, d, k, R);
    for (int i = 0; i < 3; ++i) f[i] = R[3 * i] * lam[0] + R[3 * i + 1] * lam[1] + R[3 * i + 2] * lam[2];
}

/* Constraint rank and number of active rows after an evaluation. */
static void con_info(mbs_data *d, int *rank, int *nactive)
{
    unsigned char active[256];
    int ncon = mbs_model_ncon(mbs_data_model(d));
    assert_true(ncon <= 256);
    call_ok(d, mbs_constraint_info(d, rank, active), "constraint_info");
    *nactive = 0;
    for (int i = 0; i < ncon; ++i) {
        assert_true(active[i] == 0 || active[i] == 1);
        *nactive += active[i];
        if (!active[i]) assert_true(mbs_data_lambda(d)[i] == 0.0); /* dropped: zero force */
    }
}

static mbs_stepper *stepper(mbs_data *d, mbs_stepper_kind kind, double tol)
{
    mbs_stepper_def sd = mbs_default_stepper_def(kind);
    if (tol > 0.0) sd.rtol = sd.atol = tol;
    sd.max_internal_steps = 1000000;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    if (!s) print_error("stepper: %s\n", mbs_data_error(d));
    assert_non_null(s);
    return s;
}

/* ---------------------------------------------------------------- closed forms, self check */

/* The closed-form rates and accelerations against central differences of the closed-form
   positions (guards the derivations the library is checked against). */
static void test_closed_forms_self_check(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    const double h = 1e-5, w2 = 1.7, al2 = -0.9;
    for (double t = 0.1; t < 6.2; t += 0.7) {
        double th[3] = {t, 0, 0}, w[3], al[3], a3[3], a4[3];
        for (int k = -1; k <= 1; ++k) /* th2(s) = t + w2 s + al2 s^2 / 2 at s = k h */
            assert_int_equal(lm_fourbar_position(&p, t + w2 * k * h + 0.5 * al2 * h * h * k * k,
                                                 1, &a3[k + 1], &a4[k + 1]), 0);
        th[1] = a3[1], th[2] = a4[1];
        lm_fourbar_rates(&p, th, w2, al2, w, al);
        assert_float_equal(w[1], (a3[2] - a3[0]) / (2 * h), 1e-8);
        assert_float_equal(w[2], (a4[2] - a4[0]) / (2 * h), 1e-8);
        assert_float_equal(al[1], (a3[2] - 2 * a3[1] + a3[0]) / (h * h), 2e-4);
        assert_float_equal(al[2], (a4[2] - 2 * a4[1] + a4[0]) / (h * h), 2e-4);
    }
    lm_slider_crank sc = lm_default_slider_crank();
    for (double t = 0.1; t < 6.2; t += 0.7) {
        double x[3][3], ph[3][3];
        for (int k = -1; k <= 1; ++k)
            lm_slider_crank_kin(&sc, t + w2 * k * h + 0.5 * al2 * h * h * k * k, w2, al2,
                                x[k + 1], ph[k + 1]);
        assert_float_equal(x[1][1], (x[2][0] - x[0][0]) / (2 * h), 1e-8);
        assert_float_equal(ph[1][1], (ph[2][0] - ph[0][0]) / (2 * h), 1e-8);
        assert_float_equal(x[1][2], (x[2][0] - 2 * x[1][0] + x[0][0]) / (h * h), 2e-4);
        assert_float_equal(ph[1][2], (ph[2][0] - 2 * ph[1][0] + ph[0][0]) / (h * h), 2e-4);
    }
}

/* ---------------------------------------------------------------- four-bar kinematics */

/* Assemble the four-bar p at crank angle th2, rate w2 from a perturbed guess and compare
   positions, rates and accelerations with the closed form; worst[3] accumulates the errors. */
static void fourbar_kin_at(const lm_fourbar *p, const lm_mech *mech, mbs_data *d, double th2,
                           double w2, double worst[3])
{
    double th[3] = {th2, 0, 0}, w[3], al[3], guess[3], wg[3] = {w2, 0.4, -0.3};
    assert_int_equal(lm_fourbar_position(p, th2, 1, &th[1], &th[2]), 0);
    for (int i = 0; i < 3; ++i) guess[i] = th[i] + (i ? 0.04 * (i == 1 ? 1 : -1) : 0.0);
    lm_fourbar_set(p, mech, d, guess, wg);
    call_ok(d, mbs_assemble(d), "assemble");
    assert_true(lm_q(d, mech, mech->joint[0]) == th2); /* the independent coordinate kept */
    assert_true(lm_v(d, mech, mech->joint[0]) == w2);
    double ths[3], ws[3], rel[3], acc[3];
    lm_fourbar_state(p, mech, d, ths, ws);
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    for (int i = 0; i < 3; ++i) rel[i] = lm_qacc(d, mech, mech->joint[i]);
    lm_fourbar_abs(p->cut, rel, acc);
    lm_fourbar_rates(p, th, w2, acc[0], w, al);
    for (int i = 1; i < 3; ++i) {
        worst[0] = fmax(worst[0], fabs(wrap(ths[i] - th[i])));
        worst[1] = fmax(worst[1], fabs(ws[i] - w[i]) / (1.0 + fabs(w[i])));
        worst[2] = fmax(worst[2], fabs(acc[i] - al[i]) / (1.0 + fabs(al[i])));
    }
    double res = lm_residual(mech, d);
    assert_true(res >= 0.0 && res <= 1e-10);
}

/* Planar four-bar (crank-rocker) at 12 crank angles, cut at B, A or O4 (revolute) and at B
   with a spherical cut: positions, rates and accelerations to 1e-10 of the closed form. */
static void test_fourbar_kinematics(void **state)
{
    (void)state;
    const int cuts[4] = {LM_CUT_B, LM_CUT_A, LM_CUT_O4, LM_CUT_B};
    for (int c = 0; c < 4; ++c) {
        lm_fourbar p = lm_default_fourbar();
        p.cut = cuts[c];
        p.cut_type = c == 3 ? MBS_JOINT_SPHERICAL : MBS_JOINT_REVOLUTE;
        lm_mech mech;
        build_ok(lm_build_fourbar(&p, &mech), &mech);
        assert_int_equal(mbs_model_nv(mech.model), 3);
        assert_int_equal(mbs_model_ncon(mech.model), c == 3 ? 3 : 5);
        assert_int_equal(mbs_model_joint_is_cut(mech.model, mech.joint[3]), 1);
        mbs_data *d = new_data(&mech);
        double worst[3] = {0, 0, 0};
        for (int k = 0; k < 12; ++k) fourbar_kin_at(&p, &mech, d, k * PI / 6.0 + 0.1, 2.5 - 0.4 * k, worst);
        int rank, nact;
        con_info(d, &rank, &nact);
        print_message("four-bar cut %d (%s): max err position %.2e, rate %.2e, acceleration %.2e; "
                      "rank %d\n", cuts[c], c == 3 ? "spherical" : "revolute", worst[0], worst[1],
                      worst[2], rank);
        assert_int_equal(rank, 2);
        assert_int_equal(nact, 2);
        assert_true(worst[0] <= 1e-10 && worst[1] <= 1e-10 && worst[2] <= 1e-10);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
}

/* ---------------------------------------------------------------- slider-crank kinematics */

/* Assemble the slider-crank at crank angle th, rate w and compare with the closed form. */
static void slider_kin_at(const lm_slider_crank *p, const lm_mech *mech, mbs_data *d, double th,
                          double w, double worst[3])
{
    double x[3], ph[3];
    lm_slider_crank_kin(p, th, w, 0.0, x, ph);
    const double guess[3] = {th, ph[0] + 0.03, x[0] - 0.01}, wg[3] = {w, 0.2, 0.1};
    lm_slider_crank_set(p, mech, d, guess, wg);
    call_ok(d, mbs_assemble(d), "assemble");
    assert_true(lm_q(d, mech, mech->joint[0]) == th);
    assert_true(lm_v(d, mech, mech->joint[0]) == w);
    double s[3], sd[3];
    lm_slider_crank_state(p, mech, d, s, sd);
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    double al = lm_qacc(d, mech, mech->joint[0]), rod_acc = lm_qacc(d, mech, mech->joint[1]);
    if (p->cut != LM_SC_CUT_A) rod_acc += al;
    lm_slider_crank_kin(p, th, w, al, x, ph);
    worst[0] = fmax(worst[0], fmax(fabs(s[2] - x[0]), fabs(wrap(s[1] - ph[0]))));
    worst[1] = fmax(worst[1], fmax(fabs(sd[2] - x[1]), fabs(sd[1] - ph[1])) / (1 + fabs(w)));
    double e2 = fabs(rod_acc - ph[2]) / (1 + fabs(ph[2]));
    if (p->cut != LM_SC_CUT_SLIDER) /* the slider is a coordinate: its acceleration too */
        e2 = fmax(e2, fabs(lm_qacc(d, mech, mech->joint[2]) - x[2]) / (1 + fabs(x[2])));
    worst[2] = fmax(worst[2], e2);
    double res = lm_residual(mech, d);
    assert_true(res >= 0.0 && res <= 1e-10);
}

/* Offset slider-crank x = r cos th + sqrt(l^2 - (r sin th - e)^2) with the loop cut at the
   slider pin (revolute), at the slider (prismatic) or at the crank pin (revolute). */
static void test_slider_crank_kinematics(void **state)
{
    (void)state;
    for (int c = LM_SC_CUT_B; c <= LM_SC_CUT_A; ++c) {
        lm_slider_crank p = lm_default_slider_crank();
        p.cut = c;
        lm_mech mech;
        build_ok(lm_build_slider_crank(&p, &mech), &mech);
        assert_int_equal(mbs_model_nv(mech.model), 3);
        assert_int_equal(mbs_model_ncon(mech.model), 5);
        mbs_data *d = new_data(&mech);
        double worst[3] = {0, 0, 0};
        for (int k = 0; k < 12; ++k) slider_kin_at(&p, &mech, d, k * PI / 6.0 + 0.05, 3.0 - 0.5 * k, worst);
        int rank, nact;
        con_info(d, &rank, &nact);
        print_message("slider-crank cut %d: max err position %.2e, rate %.2e, acceleration "
                      "%.2e; rank %d\n", c, worst[0], worst[1], worst[2], rank);
        assert_int_equal(rank, 2);
        assert_int_equal(nact, 2);
        assert_true(worst[0] <= 1e-10 && worst[1] <= 1e-10 && worst[2] <= 1e-10);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
}

/* ---------------------------------------------------------------- trajectories */

/* A consistent four-bar state at th2, w2 (closed form, then assembled). */
static void fourbar_start(const lm_fourbar *p, const lm_mech *mech, mbs_data *d, double th2,
                          double w2)
{
    double th[3] = {th2, 0, 0}, w[3], al[3];
    assert_int_equal(lm_fourbar_position(p, th2, 1, &th[1], &th[2]), 0);
    lm_fourbar_rates(p, th, w2, 0.0, w, al);
    lm_fourbar_set(p, mech, d, th, w);
    call_ok(d, mbs_assemble(d), "assemble");
}

/* Worst closure error along a run: residual from poses, dependent angles and rates against
   the closed form of the current crank angle and rate. */
static void fourbar_track(const lm_fourbar *p, const lm_mech *mech, mbs_data *d, double worst[3])
{
    double ths[3], ws[3], th[3], w[3], al[3];
    lm_fourbar_state(p, mech, d, ths, ws);
    th[0] = ths[0];
    assert_int_equal(lm_fourbar_position(p, ths[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_rates(p, th, ws[0], 0.0, w, al);
    worst[0] = fmax(worst[0], lm_residual(mech, d));
    for (int i = 1; i < 3; ++i) {
        worst[1] = fmax(worst[1], fabs(wrap(ths[i] - th[i])));
        worst[2] = fmax(worst[2], fabs(ws[i] - w[i]) / (1.0 + fabs(w[i])));
    }
}

/* Four-bar under gravity, crank spinning (about four turns): RK4 at 1 kHz and CVODE (Adams, BDF) for 2 s; the
   residual from poses <= 1e-10 and the dependent angles on the closed form to 1e-10. */
static void test_fourbar_trajectory_closed(void **state)
{
    (void)state;
    const mbs_stepper_kind kinds[3] = {MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS, MBS_STEP_CVODE_BDF};
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    build_ok(lm_build_fourbar(&p, &mech), &mech);
    for (int k = 0; k < 3; ++k) {
        mbs_data *d = new_data(&mech);
        fourbar_start(&p, &mech, d, 0.3, 10.0); /* fast enough to go round (6 rad/s rocks) */
        mbs_stepper *s = stepper(d, kinds[k], 1e-9);
        double worst[3] = {0, 0, 0}, th0 = lm_q(d, &mech, mech.joint[0]);
        for (int n = 1; n <= 2000; ++n) {
            call_ok(d, mbs_stepper_step(s, 1e-3), "step");
            if (n % 10 == 0) fourbar_track(&p, &mech, d, worst);
        }
        double turned = lm_q(d, &mech, mech.joint[0]) - th0;
        print_message("four-bar %s 2 s: crank turned %.2f rad; residual %.2e, angle err %.2e, "
                      "rate err %.2e\n", k == 0 ? "RK4" : k == 1 ? "Adams" : "BDF", turned,
                      worst[0], worst[1], worst[2]);
        assert_true(fabs(turned) > 2.0 * PI);
        assert_true(worst[0] <= 1e-10 && worst[1] <= 1e-10 && worst[2] <= 1e-9);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    lm_mech_free(&mech);
}

/* Energy of a conservative loop over 10 s with CVODE at tight tolerance: four-bar and
   slider-crank under gravity, no damping; |E - E0| <= 1e-8 (|E0| + KE0). */
static double energy_drift(mbs_data *d, double t_end, double *scale)
{
    double ke, pe, e0, worst = 0.0;
    call_ok(d, mbs_energy(d, &ke, &pe), "energy");
    e0 = ke + pe;
    *scale = fmax(fabs(e0), ke);
    mbs_stepper *s = stepper(d, MBS_STEP_CVODE_ADAMS, 1e-12);
    for (int n = 1; n <= (int)lround(t_end / 0.01); ++n) {
        call_ok(d, mbs_stepper_step(s, 0.01), "step");
        call_ok(d, mbs_energy(d, &ke, &pe), "energy");
        worst = fmax(worst, fabs(ke + pe - e0));
    }
    mbs_stepper_destroy(s);
    return worst / *scale;
}

static void test_energy_conservative_loops(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    build_ok(lm_build_fourbar(&p, &mech), &mech);
    mbs_data *d = new_data(&mech);
    fourbar_start(&p, &mech, d, 0.3, 6.0);
    double scale, drift = energy_drift(d, 10.0, &scale);
    print_message("four-bar 10 s CVODE 1e-12: relative energy drift %.2e (scale %.3f J)\n", drift, scale);
    assert_true(drift <= 1e-8);
    mbs_data_destroy(d);
    lm_mech_free(&mech);

    lm_slider_crank sc = lm_default_slider_crank();
    build_ok(lm_build_slider_crank(&sc, &mech), &mech);
    d = new_data(&mech);
    double x[3], ph[3];
    lm_slider_crank_kin(&sc, 0.2, 8.0, 0.0, x, ph);
    const double s0[3] = {0.2, ph[0], x[0]}, sd0[3] = {8.0, ph[1], x[1]};
    lm_slider_crank_set(&sc, &mech, d, s0, sd0);
    call_ok(d, mbs_assemble(d), "assemble");
    drift = energy_drift(d, 10.0, &scale);
    print_message("slider-crank 10 s CVODE 1e-12: relative energy drift %.2e (scale %.3f J)\n", drift, scale);
    assert_true(drift <= 1e-8);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* ---------------------------------------------------------------- multipliers: statics */

/* Four-bar without gravity at rest, rocker loaded by a torque T4 (body wrench), crank held
   by T2. The coupler is then a two-force member: with f = s u3 the force of the coupler on
   the rocker at B (u3 = (cos th3, sin th3)), the rocker's moment balance about O4 gives
   c s sin(th3 - th4) + T4 = 0, and the crank's a s sin(th3 - th2) = T2 (same as virtual work
   T2 w2 + T4 w4 = 0). Expected multipliers, force on the child in the parent frame's axes:
   cut B (coupler -> rocker): (s, 0, 0); cut A (crank -> coupler): s (cos(th3 - th2),
   sin(th3 - th2), 0); cut O4 (world -> rocker): -s (cos th3, sin th3, 0); no torques. */
static void fourbar_statics(int cut)
{
    lm_fourbar p = lm_default_fourbar();
    p.g = 0.0;
    p.cut = cut;
    lm_mech mech;
    build_ok(lm_build_fourbar(&p, &mech), &mech);
    mbs_data *d = new_data(&mech);
    const double T4 = 2.0, zero[3] = {0, 0, 0};
    double th[3] = {1.0, 0, 0}, w[3] = {0, 0, 0};
    assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_set(&p, &mech, d, th, w);
    call_ok(d, mbs_assemble(d), "assemble");
    double s = -T4 / (p.c * sin(th[1] - th[2])), T2 = p.a * s * sin(th[1] - th[0]);
    const double torque[3] = {0.0, 0.0, T4};
    call_ok(d, mbs_set_body_wrench(d, mech.body[2], zero, torque, zero), "wrench");
    mbs_data_tau(d)[mbs_model_joint_vadr(mech.model, mech.joint[0])] = T2;
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    double lam_exp[5] = {s, 0, 0, 0, 0}, qacc_max = 0.0;
    if (cut == LM_CUT_A) lam_exp[0] = s * cos(th[1] - th[0]), lam_exp[1] = s * sin(th[1] - th[0]);
    if (cut == LM_CUT_O4) lam_exp[0] = -s * cos(th[1]), lam_exp[1] = -s * sin(th[1]);
    for (int i = 0; i < 3; ++i) qacc_max = fmax(qacc_max, fabs(mbs_data_qacc(d)[i]));
    const double *lam = mbs_data_lambda(d);
    print_message("four-bar statics cut %d: s = %.6f N, T2 = %.6f N m; |qacc| %.2e; lambda "
                  "%.9f %.9f %.3g %.3g %.3g\n", cut, s, T2, qacc_max, lam[0], lam[1], lam[2],
                  lam[3], lam[4]);
    assert_true(qacc_max <= 1e-9);
    test_assert_close(lam, lam_exp, 5, 1e-9, "four-bar statics lambda");
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

static void test_lambda_fourbar_statics(void **state)
{
    (void)state;
    fourbar_statics(LM_CUT_B);
    fourbar_statics(LM_CUT_A);
    fourbar_statics(LM_CUT_O4);
}

/* Slider-crank without gravity at rest, slider pushed by F along x, crank held by
   tau = -F dx/dth (virtual work). The rod is a two-force member: force on the slider
   t (cos phi, sin phi) with t cos phi = -F. Expected: cut B (rod -> slider) (t, 0, 0) in rod
   axes; cut A (crank -> rod) force on the rod t (cos(phi - th), sin(phi - th), 0) in crank
   axes; cut at the slider (prismatic world -> slider): the guide's force (0, -t sin phi) is
   all across the axis, so |lambda[0..1]| = |t sin phi| and no torque (every force on the
   slider acts at its origin). */
static void slider_statics(int cut)
{
    lm_slider_crank p = lm_default_slider_crank();
    p.g = 0.0;
    p.cut = cut;
    lm_mech mech;
    build_ok(lm_build_slider_crank(&p, &mech), &mech);
    mbs_data *d = new_data(&mech);
    const double th = 0.7, F = -5.0, zero[3] = {0, 0, 0}, force[3] = {F, 0, 0};
    double x[3], ph[3];
    lm_slider_crank_kin(&p, th, 1.0, 0.0, x, ph);
    const double s0[3] = {th, ph[0], x[0]}, sd0[3] = {0, 0, 0};
    lm_slider_crank_set(&p, &mech, d, s0, sd0);
    call_ok(d, mbs_assemble(d), "assemble");
    call_ok(d, mbs_set_body_wrench(d, mech.body[2], force, zero, zero), "wrench");
    mbs_data_tau(d)[mbs_model_joint_vadr(mech.model, mech.joint[0])] = -F * x[1];
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    double t = -F / cos(ph[0]), qacc_max = 0.0;
    for (int i = 0; i < 3; ++i) qacc_max = fmax(qacc_max, fabs(mbs_data_qacc(d)[i]));
    const double *lam = mbs_data_lambda(d);
    print_message("slider-crank statics cut %d: rod force %.6f N; |qacc| %.2e; lambda %.9f "
                  "%.9f %.3g %.3g %.3g\n", cut, t, qacc_max, lam[0], lam[1], lam[2], lam[3], lam[4]);
    assert_true(qacc_max <= 1e-9);
    if (cut == LM_SC_CUT_SLIDER) {
        assert_float_equal(hypot(lam[0], lam[1]), fabs(t * sin(ph[0])), 1e-9 * (1 + fabs(t)));
        for (int i = 2; i < 5; ++i) assert_float_equal(lam[i], 0.0, 1e-9 * (1 + fabs(t)));
    } else {
        double e[5] = {t, 0, 0, 0, 0};
        if (cut == LM_SC_CUT_A) e[0] = t * cos(ph[0] - th), e[1] = t * sin(ph[0] - th);
        test_assert_close(lam, e, 5, 1e-9, "slider-crank statics lambda");
    }
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

static void test_lambda_slider_crank_statics(void **state)
{
    (void)state;
    for (int c = LM_SC_CUT_B; c <= LM_SC_CUT_A; ++c) slider_statics(c);
}

/* Four-bar at rest under gravity g (-y), held by the crank torque alone (cut at B). Virtual
   work with the closed-form rates w for w2 = 1: T2 = g (m1 (a/2) cos th2 + m2 (a cos th2 +
   (b/2) cos th3 w3) + m3 (c/2) cos th4 w4). The force f of the coupler on the rocker follows
   from two moment balances: rocker about O4, u4 x f = (m3 g / 2) u4x, and coupler about A,
   u3 x f = -(m2 g / 2) u3x (u_i = (cos th_i, sin th_i), a x b = ax by - ay bx). Expected
   lambda: f in the coupler's axes, no torques. */
static void test_lambda_fourbar_held_by_weight(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    build_ok(lm_build_fourbar(&p, &mech), &mech);
    mbs_data *d = new_data(&mech);
    double th[3] = {2.2, 0, 0}, w[3], al[3], zero[3] = {0, 0, 0};
    assert_int_equal(lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]), 0);
    lm_fourbar_set(&p, &mech, d, th, zero);
    call_ok(d, mbs_assemble(d), "assemble");
    lm_fourbar_rates(&p, th, 1.0, 0.0, w, al);
    const double g = p.g, *m = p.mass;
    double T2 = g * (m[0] * 0.5 * p.a * cos(th[0]) + m[1] * (p.a * cos(th[0]) + 0.5 * p.b * cos(th[1]) * w[1]) +
                     m[2] * 0.5 * p.c * cos(th[2]) * w[2]);
    mbs_data_tau(d)[mbs_model_joint_vadr(mech.model, mech.joint[0])] = T2;
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    double u3x = cos(th[1]), u3y = sin(th[1]), u4x = cos(th[2]), u4y = sin(th[2]);
    double r4 = 0.5 * m[2] * g * u4x, r3 = -0.5 * m[1] * g * u3x; /* u x f = r: -uy fx + ux fy */
    double det = -u4y * u3x + u3y * u4x;
    double fx = (r4 * u3x - r3 * u4x) / det, fy = (-u4y * r3 + u3y * r4) / det;
    const double e[5] = {u3x * fx + u3y * fy, -u3y * fx + u3x * fy, 0, 0, 0};
    double qacc_max = 0.0;
    for (int i = 0; i < 3; ++i) qacc_max = fmax(qacc_max, fabs(mbs_data_qacc(d)[i]));
    const double *lam = mbs_data_lambda(d);
    print_message("four-bar held by weight: T2 = %.6f N m, |qacc| %.2e, lambda %.9f %.9f "
                  "(hand %.9f %.9f)\n", T2, qacc_max, lam[0], lam[1], e[0], e[1]);
    assert_true(qacc_max <= 1e-9);
    test_assert_close(lam, e, 5, 1e-9, "four-bar held by weight lambda");
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* Slider-crank whose rod is a massless distance joint (a rod with ball ends) from the crank
   pin to the slider: 2 coordinates, 1 row. Assembled at crank angles on the closed form of
   x; at rest without gravity, slider pushed by F along x and crank held by -F dx/dth, the
   multiplier is the rod's push on the slider, t = -F / cos phi (compression positive). */
static void test_distance_rod_slider_crank(void **state)
{
    (void)state;
    const lm_slider_crank p = lm_default_slider_crank();
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def bar = mbs_default_body_def(), blk = mbs_default_body_def();
    bar.com[0] = 0.5 * p.r;
    int cr = mbs_add_body(b, &bar), sl = mbs_add_body(b, &blk);
    mbs_joint_def jc = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jc.child = cr, jc.state_priority = 1;
    mbs_joint_def js = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    js.child = sl, js.frame_parent.pos[1] = p.e, js.axis[0] = 1.0, js.axis[2] = 0.0;
    mbs_joint_def rod = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    rod.parent = cr, rod.child = sl, rod.frame_parent.pos[0] = p.r, rod.length = p.l;
    int jcr = mbs_add_joint(b, &jc), jsl = mbs_add_joint(b, &js);
    assert_true(jcr >= 0 && jsl >= 0 && mbs_add_joint(b, &rod) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    assert_int_equal(mbs_model_nv(m), 2);
    assert_int_equal(mbs_model_ncon(m), 1);
    mbs_data *d = mbs_data_create(m);
    assert_non_null(d);
    int qc = mbs_model_joint_qadr(m, jcr), qs = mbs_model_joint_qadr(m, jsl);
    double worst = 0.0, x[3], ph[3];
    for (int k = 0; k < 12; ++k) {
        lm_slider_crank_kin(&p, 0.5 * k + 0.1, 1.0, 0.0, x, ph);
        mbs_data_q(d)[qc] = 0.5 * k + 0.1, mbs_data_q(d)[qs] = x[0] + 0.01;
        call_ok(d, mbs_assemble(d), "assemble");
        worst = fmax(worst, fabs(mbs_data_q(d)[qs] - x[0]));
    }
    const double F = -5.0, force[3] = {F, 0, 0}, zero[3] = {0, 0, 0};
    call_ok(d, mbs_set_body_wrench(d, sl, force, zero, zero), "wrench");
    mbs_data_tau(d)[mbs_model_joint_vadr(m, jcr)] = -F * x[1];
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    double t = -F / cos(ph[0]);
    print_message("distance-rod slider-crank: x err %.2e; rod push %.9f (hand %.9f), |qacc| "
                  "%.2e %.2e\n", worst, mbs_data_lambda(d)[0], t, mbs_data_qacc(d)[0], mbs_data_qacc(d)[1]);
    assert_true(worst <= 1e-10);
    assert_float_equal(mbs_data_lambda(d)[0], t, 1e-9 * (1 + fabs(t)));
    assert_true(fabs(mbs_data_qacc(d)[0]) <= 1e-9 && fabs(mbs_data_qacc(d)[1]) <= 1e-9);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- the loop cut elsewhere */

/* Four-bar under gravity with the cut at B, A and O4, RK4 1 kHz from one state: the same
   motion, and the cut forces of different models obey Newton-Euler for the coupler
   (F_A + F_B + m g = m a_c, (A - C) x F_A + (B - C) x F_B = I alpha3) and the rocker, with
   accelerations from the closed form. */
typedef struct fb_run { lm_fourbar p; lm_mech mech; mbs_data *d; mbs_stepper *s; } fb_run;

static void fb_open(fb_run *r, int cut)
{
    r->p = lm_default_fourbar();
    r->p.cut = cut;
    build_ok(lm_build_fourbar(&r->p, &r->mech), &r->mech);
    r->d = new_data(&r->mech);
    fourbar_start(&r->p, &r->mech, r->d, 0.3, 4.0);
    r->s = stepper(r->d, MBS_STEP_RK4, 0.0);
}

static void fb_close(fb_run *r)
{
    mbs_stepper_destroy(r->s);
    mbs_data_destroy(r->d);
    lm_mech_free(&r->mech);
}

/* Centre-of-mass acceleration of a bar from pivot P (acceleration aP) at angle th, rate w,
   acceleration al, com at distance h along the bar: aP + h (al e_perp - w^2 e). */
static void bar_acc(const double aP[2], double th, double w, double al, double h, double a[2])
{
    a[0] = aP[0] + h * (-al * sin(th) - w * w * cos(th));
    a[1] = aP[1] + h * (al * cos(th) - w * w * sin(th));
}

/* Newton-Euler residuals of coupler and rocker from the cut forces of runs B, A, O4. */
static double fb_newton_euler(fb_run r[3])
{
    const lm_fourbar *p = &r[0].p;
    double th[3], w[3], wr[3], al[3], rel[3], acc[3], fB[3], fA[3], fO[3];
    for (int k = 0; k < 3; ++k) call_ok(r[k].d, mbs_forward_dynamics(r[k].d), "forward dynamics");
    lm_fourbar_state(p, &r[0].mech, r[0].d, th, wr);
    for (int i = 0; i < 3; ++i) rel[i] = lm_qacc(r[0].d, &r[0].mech, r[0].mech.joint[i]);
    lm_fourbar_abs(LM_CUT_B, rel, acc);
    lm_fourbar_rates(p, th, wr[0], acc[0], w, al);
    cut_force_world(&r[0].mech, r[0].d, 0, fB); /* on the rocker from the coupler */
    cut_force_world(&r[1].mech, r[1].d, 0, fA); /* on the coupler from the crank */
    cut_force_world(&r[2].mech, r[2].d, 0, fO); /* on the rocker from the world */
    const double m1 = p->mass[1], m2 = p->mass[2], zero[2] = {0, 0};
    double aA[2], ac[2], ar[2];
    bar_acc(zero, th[0], w[0], al[0], p->a, aA);
    bar_acc(aA, th[1], w[1], al[1], 0.5 * p->b, ac);
    bar_acc(zero, th[2], w[2], al[2], 0.5 * p->c, ar);
    double e = 0.0, hb = 0.5 * p->b;
    e = fmax(e, fabs(fA[0] - fB[0] - m1 * ac[0]));
    e = fmax(e, fabs(fA[1] - fB[1] - m1 * p->g - m1 * ac[1]));
    double mom = -hb * (cos(th[1]) * fA[1] - sin(th[1]) * fA[0]) +
                 hb * (cos(th[1]) * (-fB[1]) - sin(th[1]) * (-fB[0]));
    e = fmax(e, fabs(mom - m1 * p->b * p->b / 12.0 * al[1]));
    e = fmax(e, fabs(fB[0] + fO[0] - m2 * ar[0]));
    e = fmax(e, fabs(fB[1] + fO[1] - m2 * p->g - m2 * ar[1]));
    return e;
}

static void test_fourbar_cut_elsewhere(void **state)
{
    (void)state;
    fb_run r[3];
    for (int k = 0; k < 3; ++k) fb_open(&r[k], k == 0 ? LM_CUT_B : k == 1 ? LM_CUT_A : LM_CUT_O4);
    double dmax = 0.0, fmax_ = 0.0;
    for (int n = 1; n <= 1500; ++n) {
        double th[3][3], w[3][3];
        for (int k = 0; k < 3; ++k) {
            call_ok(r[k].d, mbs_stepper_step(r[k].s, 1e-3), "step");
            lm_fourbar_state(&r[k].p, &r[k].mech, r[k].d, th[k], w[k]);
        }
        for (int k = 1; k < 3; ++k)
            for (int i = 0; i < 3; ++i)
                dmax = fmax(dmax, fmax(fabs(th[k][i] - th[0][i]), 1e-3 * fabs(w[k][i] - w[0][i])));
        if (n % 50 == 0) fmax_ = fmax(fmax_, fb_newton_euler(r));
    }
    print_message("four-bar cut at B / A / O4, 1.5 s RK4: max angle difference %.2e, "
                  "Newton-Euler residual of the cut forces %.2e N\n", dmax, fmax_);
    assert_true(dmax <= 1e-9);
    assert_true(fmax_ <= 1e-7);
    for (int k = 0; k < 3; ++k) fb_close(&r[k]);
}

/* ---------------------------------------------------------------- redundancy: doors */

/* Run a door model for 2 s RK4 at 1 kHz with 3 N m on hinge1 (plus gravity tilted off the
   hinge axis); angle[k] = hinge1 angle after step 10 k. */
static void door_run(const lm_mech *mech, double angle[201], int *rank, int *nact)
{
    mbs_data *d = new_data(mech);
    call_ok(d, mbs_assemble(d), "assemble");
    *rank = -1, *nact = -1;
    if (mbs_model_ncon(mech->model) > 0) {
        call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
        con_info(d, rank, nact);
    }
    mbs_data_tau(d)[mbs_model_joint_vadr(mech->model, mech->joint[0])] = 3.0;
    mbs_stepper *s = stepper(d, MBS_STEP_RK4, 0.0);
    angle[0] = lm_q(d, mech, mech->joint[0]);
    double res = 0.0;
    for (int n = 1; n <= 2000; ++n) {
        call_ok(d, mbs_stepper_step(s, 1e-3), "step");
        if (n % 10 == 0) angle[n / 10] = lm_q(d, mech, mech->joint[0]);
        if (n % 100 == 0 && mech->ncut) res = fmax(res, lm_residual(mech, d));
    }
    assert_true(res <= 1e-10);
    if (mech->joint[1] >= 0 && !mbs_model_joint_is_cut(mech->model, mech->joint[1])) /* Door3 */
        assert_float_equal(lm_q(d, mech, mech->joint[1]), angle[200], 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
}

/* Seed 004 §6: a door on two coaxial hinges (cut revolute hinge2: its 5 rows all implied by
   hinge1, rank 0) and Door3 (hinge2 a tree joint on rod2, fixed cut rod2-door: 6 rows, rank
   1) move exactly as one hinge (with rod2 welded on) to 1e-9. */
static void test_door_two_hinges(void **state)
{
    (void)state;
    lm_mech one, two, door3, welded;
    build_ok(lm_build_door(1, 0, NULL, &one), &one);
    build_ok(lm_build_door(2, 0, NULL, &two), &two);
    build_ok(lm_build_door(2, 1, NULL, &door3), &door3);
    build_ok(lm_build_door(1, 2, NULL, &welded), &welded);
    assert_int_equal(mbs_model_ncon(two.model), 5);
    assert_int_equal(mbs_model_ncon(door3.model), 6);
    assert_int_equal(mbs_model_nv(door3.model), 2);
    double a1[201], a2[201], a3[201], a4[201], e2 = 0.0, e3 = 0.0;
    int r, na;
    door_run(&one, a1, &r, &na);
    door_run(&two, a2, &r, &na);
    print_message("door, two coaxial hinges: rank %d, active %d of 5\n", r, na);
    assert_int_equal(r, 0);
    assert_int_equal(na, 0);
    door_run(&door3, a3, &r, &na);
    print_message("Door3 (fixed cut rod2-door): rank %d, active %d of 6\n", r, na);
    assert_int_equal(r, 1);
    assert_int_equal(na, 1);
    door_run(&welded, a4, &r, &na);
    for (int k = 0; k <= 200; ++k) e2 = fmax(e2, fabs(a2[k] - a1[k])), e3 = fmax(e3, fabs(a3[k] - a4[k]));
    print_message("door angle at 2 s %.6f rad; two hinges vs one %.2e, Door3 vs welded %.2e\n",
                  a1[200], e2, e3);
    assert_true(fabs(a1[200] - a1[0]) > 0.1); /* it moved */
    assert_true(e2 <= 1e-9 && e3 <= 1e-9);
    lm_mech_free(&one);
    lm_mech_free(&two);
    lm_mech_free(&door3);
    lm_mech_free(&welded);
}

/* ---------------------------------------------------------------- redundancy: tilted planes */

/* Seed 004 §6.3: the planar four-bar in a plane turned about x by a (gravity turned with it)
   with a revolute cut (5 rows, 3 redundant: rank 2) or a spherical cut (3 rows, rank 2): the
   same plane angles at every tilt to 1e-9 over 1 s (RK4 1 kHz, damped crank, torque). */
static void tilt_run(double tilt, mbs_joint_type cut_type, double th_out[3][101])
{
    lm_fourbar p = lm_default_fourbar();
    p.tilt = tilt;
    p.cut_type = cut_type;
    p.damping = 0.05;
    lm_mech mech;
    build_ok(lm_build_fourbar(&p, &mech), &mech);
    mbs_data *d = new_data(&mech);
    fourbar_start(&p, &mech, d, 0.3, 2.0);
    mbs_data_tau(d)[mbs_model_joint_vadr(mech.model, mech.joint[0])] = 0.5;
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    int rank, nact;
    con_info(d, &rank, &nact);
    assert_int_equal(rank, 2);
    assert_int_equal(nact, 2);
    mbs_stepper *s = stepper(d, MBS_STEP_RK4, 0.0);
    double res = 0.0;
    for (int n = 0; n <= 1000; ++n) {
        if (n) call_ok(d, mbs_stepper_step(s, 1e-3), "step");
        if (n % 10) continue;
        double th[3], w[3];
        lm_fourbar_state(&p, &mech, d, th, w);
        for (int i = 0; i < 3; ++i) th_out[i][n / 10] = th[i];
        res = fmax(res, lm_residual(&mech, d));
    }
    assert_true(res <= 1e-10);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

static void test_planar_loop_any_plane(void **state)
{
    (void)state;
    const double tilts[6] = {0.0, 30 * DEG, 45 * DEG, 60 * DEG, 89 * DEG, 137 * DEG};
    for (int c = 0; c < 2; ++c) {
        mbs_joint_type type = c ? MBS_JOINT_SPHERICAL : MBS_JOINT_REVOLUTE;
        double ref[3][101], th[3][101], worst = 0.0;
        tilt_run(0.0, type, ref);
        for (int t = 1; t < 6; ++t) {
            tilt_run(tilts[t], type, th);
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k <= 100; ++k) worst = fmax(worst, fabs(th[i][k] - ref[i][k]));
        }
        print_message("planar four-bar, %s cut, tilts 30..137 deg vs 0: max angle difference "
                      "%.2e (crank moved %.3f rad)\n", c ? "spherical" : "revolute", worst,
                      ref[0][100] - ref[0][0]);
        assert_true(fabs(ref[0][100] - ref[0][0]) > 0.1);
        assert_true(worst <= 1e-9);
    }
}

/* ---------------------------------------------------------------- engines */

/* Run d for nsteps of RK4 1 kHz checking the residual (returned) and the energy (largest
   |E - E0| / KE0 in *drift); crank[k] = joint[0] angle after step 10 k (may be NULL). */
static double run_checked(const lm_mech *mech, mbs_data *d, int nsteps, double *drift, double *crank)
{
    mbs_stepper *s = stepper(d, MBS_STEP_RK4, 0.0);
    double res = lm_residual(mech, d), ke0, pe, ke;
    call_ok(d, mbs_energy(d, &ke0, &pe), "energy");
    const double e0 = ke0 + pe;
    *drift = 0.0;
    for (int n = 1; n <= nsteps; ++n) {
        call_ok(d, mbs_stepper_step(s, 1e-3), "step");
        if (n % 10) continue;
        res = fmax(res, lm_residual(mech, d));
        call_ok(d, mbs_energy(d, &ke, &pe), "energy");
        *drift = fmax(*drift, fabs(ke + pe - e0) / ke0);
        if (crank) crank[n / 10] = lm_q(d, mech, mech->joint[0]);
    }
    mbs_stepper_destroy(s);
    return res;
}

/* The single-cylinder engine with the piston on a prismatic joint (rank 2 of 5), from the
   same state: the reference motion for the cylindrical one. */
static void engine_prismatic_run(double crank[101])
{
    lm_mech mech;
    build_ok(lm_build_engine1(MBS_JOINT_PRISMATIC, &mech), &mech);
    mbs_data *d = new_data(&mech);
    lm_engine_set(&mech, 1, 0.4, 10.0, d);
    call_ok(d, mbs_assemble(d), "assemble");
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    int rank, nact;
    con_info(d, &rank, &nact);
    assert_int_equal(rank, 2);
    double drift, res = run_checked(&mech, d, 1000, &drift, crank);
    assert_true(res <= 1e-10 && drift <= 2e-7);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* Seed 004 §6.4: crank, rod and a piston in a cylindrical joint closed by an ordinary
   revolute cut: 4 tree coordinates, 5 rows of rank 3, one degree of freedom; the piston
   follows the centred slider-crank closed form, never spins, conserves energy (RK4 1 kHz,
   1 s) and moves exactly as with a prismatic piston joint. */
static void test_engine_cylindrical(void **state)
{
    (void)state;
    lm_mech mech;
    build_ok(lm_build_engine1(MBS_JOINT_CYLINDRICAL, &mech), &mech);
    assert_int_equal(mbs_model_nv(mech.model), 4);
    assert_int_equal(mbs_model_ncon(mech.model), 5);
    mbs_data *d = new_data(&mech);
    lm_engine_set(&mech, 1, 0.4, 10.0, d);
    double *q = mbs_data_q(d), crank[101], ref[101], dmax = 0.0, drift;
    int qc = mbs_model_joint_qadr(mech.model, mech.joint[2]);
    q[qc] += 0.01, q[qc + 1] = 0.02; /* off the closed form: assembly must bring it back */
    call_ok(d, mbs_assemble(d), "assemble");
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    int rank, nact;
    con_info(d, &rank, &nact);
    assert_int_equal(rank, 3);
    assert_int_equal(nact, 3);
    double res = run_checked(&mech, d, 1000, &drift, crank);
    engine_prismatic_run(ref);
    for (int k = 1; k <= 100; ++k) dmax = fmax(dmax, fabs(crank[k] - ref[k]));
    const lm_slider_crank sc = {0.1, 0.3, 0.0, {0, 0, 0}, 0.0, 0};
    double x[3], ph[3], th = lm_q(d, &mech, mech.joint[0]);
    lm_slider_crank_kin(&sc, th, lm_v(d, &mech, mech.joint[0]), 0.0, x, ph);
    print_message("engine (cylindrical): rank %d of 5; after 1 s crank %.4f rad, piston %.3e "
                  "from closed form, spin %.2e rad, residual %.2e, energy drift %.2e, crank vs "
                  "prismatic piston %.2e\n", rank, th, q[qc] - x[0], q[qc + 1], res, drift, dmax);
    assert_true(res <= 1e-10 && drift <= 2e-7 && dmax <= 1e-9);
    assert_float_equal(q[qc], x[0], 1e-10);
    assert_float_equal(mbs_data_v(d)[mbs_model_joint_vadr(mech.model, mech.joint[2])], x[1], 1e-9);
    assert_float_equal(q[qc + 1], 0.0, 1e-10);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* Inline six: six coupled slider-crank loops on one crankshaft (13 coordinates, 30 rows of
   rank 12, dof 1); every piston on the closed form of the crankshaft angle; energy kept
   (RK4 1 kHz, 0.5 s). */
static void test_engine_six_cylinders(void **state)
{
    (void)state;
    lm_mech mech;
    build_ok(lm_build_engine6(&mech), &mech);
    assert_int_equal(mbs_model_nv(mech.model), 13);
    assert_int_equal(mbs_model_ncon(mech.model), 30);
    mbs_data *d = new_data(&mech);
    lm_engine_set(&mech, 6, 0.2, 20.0, d);
    for (int k = 0; k < 6; ++k) mbs_data_q(d)[mbs_model_joint_qadr(mech.model, mech.unit[k][0])] += 0.02;
    call_ok(d, mbs_assemble(d), "assemble");
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    int rank, nact;
    con_info(d, &rank, &nact);
    assert_int_equal(rank, 12);
    double drift, res = run_checked(&mech, d, 500, &drift, NULL), err = 0.0;
    double th = lm_q(d, &mech, mech.joint[0]);
    mbs_data *e = new_data(&mech);
    lm_engine_set(&mech, 6, th, lm_v(d, &mech, mech.joint[0]), e);
    for (int i = 0; i < mbs_model_nq(mech.model); ++i) err = fmax(err, fabs(wrap(mbs_data_q(d)[i] - mbs_data_q(e)[i])));
    print_message("six-cylinder engine: rank %d of 30; 0.5 s: crank %.3f rad, residual %.2e, "
                  "coordinates vs closed form %.2e, energy drift %.2e\n", rank, th, res, err, drift);
    assert_true(res <= 1e-10 && err <= 1e-10 && drift <= 2e-7);
    mbs_data_destroy(e);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* ---------------------------------------------------------------- Bricard 6R */

/* Line-symmetric Bricard linkage: a spatial 6R loop that Grubler counts as rigid (6 - 6 = 0)
   but that moves with one degree of freedom: 5 coordinates, 5 rows of rank 4. Assembled at
   th1 = 0.5 it matches an independent Gauss-Newton solution of the closure (residual
   4e-16) and the symmetry th4 = th1, th5 = th2; it then moves under gravity for 2 s staying
   closed and symmetric. */
static void test_bricard_6r(void **state)
{
    (void)state;
    lm_mech mech;
    build_ok(lm_build_bricard(&mech), &mech);
    assert_int_equal(mbs_model_nv(mech.model), 5);
    assert_int_equal(mbs_model_ncon(mech.model), 5);
    mbs_data *d = new_data(&mech);
    const double ref[5] = {0.5, 1.162441864247423, 0.620692237085441, 0.5, 1.162441864247423};
    const double guess[5] = {0.5, 1.1, 0.65, 0.45, 1.2};
    for (int i = 0; i < 5; ++i) mbs_data_q(d)[mbs_model_joint_qadr(mech.model, mech.joint[i])] = guess[i];
    call_ok(d, mbs_assemble(d), "assemble");
    double q[5], sym = 0.0;
    for (int i = 0; i < 5; ++i) q[i] = lm_q(d, &mech, mech.joint[i]);
    test_assert_close(q, ref, 5, 1e-10, "Bricard assembled");
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    int rank, nact;
    con_info(d, &rank, &nact);
    assert_int_equal(rank, 4);
    mbs_stepper *s = stepper(d, MBS_STEP_RK4, 0.0);
    double res = 0.0, lo = q[0], hi = q[0];
    for (int n = 1; n <= 2000; ++n) {
        call_ok(d, mbs_stepper_step(s, 1e-3), "step");
        if (n % 10) continue;
        for (int i = 0; i < 5; ++i) q[i] = lm_q(d, &mech, mech.joint[i]);
        sym = fmax(sym, fmax(fabs(q[3] - q[0]), fabs(q[4] - q[1])));
        lo = fmin(lo, q[0]), hi = fmax(hi, q[0]);
        res = fmax(res, lm_residual(&mech, d));
    }
    print_message("Bricard 6R: rank %d of 5; 2 s under gravity: th1 in [%.3f, %.3f], residual "
                  "%.2e, symmetry %.2e\n", rank, lo, hi, res, sym);
    assert_true(hi - lo > 0.1);
    assert_true(res <= 1e-10 && sym <= 1e-9);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* ---------------------------------------------------------------- failures */

/* State snapshot for "a failed call leaves the data as it was". */
typedef struct snap { double q[16], v[16], t; } snap;
static void snap_take(mbs_data *d, snap *s)
{
    const mbs_model *m = mbs_data_model(d);
    memcpy(s->q, mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
    memcpy(s->v, mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
    s->t = mbs_data_time(d);
}
static void snap_same(mbs_data *d, const snap *s)
{
    const mbs_model *m = mbs_data_model(d);
    assert_memory_equal(s->q, mbs_data_q(d), sizeof(double) * (size_t)mbs_model_nq(m));
    assert_memory_equal(s->v, mbs_data_v(d), sizeof(double) * (size_t)mbs_model_nv(m));
    assert_true(s->t == mbs_data_time(d));
}

/* A four-bar whose links cannot close (a + b + c < d): assembly hits its iteration cap;
   a door whose second hinge is parallel but 1 cm off the axis: every row is redundant by
   the Jacobian (rank 0) yet violated: inconsistent. Both leave q, v, t unchanged. */
static void test_assembly_failures(void **state)
{
    (void)state;
    lm_fourbar p = lm_default_fourbar();
    p.a = 0.1, p.b = 0.2, p.c = 0.2, p.d = 1.0;
    lm_mech mech;
    build_ok(lm_build_fourbar(&p, &mech), &mech);
    mbs_data *d = new_data(&mech);
    const double th[3] = {0.3, 0.2, 1.0}, w[3] = {1.0, 0.0, 0.0};
    lm_fourbar_set(&p, &mech, d, th, w);
    snap s;
    snap_take(d, &s);
    int rc = mbs_assemble(d);
    print_message("four-bar that cannot close: %s (%s)\n", mbs_status_name(rc), mbs_data_error(d));
    assert_int_equal(rc, MBS_ERR_CONVERGENCE);
    assert_true(strlen(mbs_data_error(d)) > 0);
    snap_same(d, &s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);

    const double off[3] = {0.01, 0.0, 0.0};
    build_ok(lm_build_door(2, 0, off, &mech), &mech);
    d = new_data(&mech);
    mbs_data_q(d)[0] = 0.3;
    snap_take(d, &s);
    rc = mbs_assemble(d);
    print_message("door with an offset second hinge: %s (%s)\n", mbs_status_name(rc), mbs_data_error(d));
    assert_int_equal(rc, MBS_ERR_INCONSISTENT);
    assert_true(strlen(mbs_data_error(d)) > 0);
    snap_same(d, &s);
    mbs_data_destroy(d);
    lm_mech_free(&mech);

    /* an assembly that succeeds clears the message of the failure before it (it stayed) */
    lm_fourbar ok = lm_default_fourbar();
    build_ok(lm_build_fourbar(&ok, &mech), &mech);
    d = new_data(&mech);
    lm_fourbar_set(&ok, &mech, d, th, w);
    mbs_data_q(d)[0] = NAN;
    assert_int_equal(mbs_forward_dynamics(d), MBS_ERR_NONFINITE);
    assert_true(strlen(mbs_data_error(d)) > 0);
    lm_fourbar_set(&ok, &mech, d, th, w);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_string_equal(mbs_data_error(d), "");
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

/* A cut joint (or distance joint) naming a body that does not exist: MBS_ERR_ARG at
   mbs_add_joint, with a message, and the builder unchanged (it still compiles). */
static void test_cut_joint_unknown_body(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    mbs_body_def body = mbs_default_body_def();
    int b1 = mbs_add_body(b, &body);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = b1;
    assert_true(mbs_add_joint(b, &j) >= 0);
    const mbs_joint_type types[2] = {MBS_JOINT_REVOLUTE, MBS_JOINT_DISTANCE};
    const int bad[3][2] = {{b1, 7}, {-1, b1}, {b1, 99}};
    for (int t = 0; t < 2; ++t)
        for (int k = 0; k < 3; ++k) {
            mbs_joint_def c = mbs_default_joint_def(types[t]);
            c.parent = bad[k][0], c.child = bad[k][1], c.cut = 1, c.length = 1.0;
            assert_int_equal(mbs_add_joint(b, &c), MBS_ERR_ARG);
            assert_true(strlen(mbs_builder_error(b)) > 0);
        }
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_njoint(m), 1);
    assert_int_equal(mbs_model_ncon(m), 0);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- IFToMM A02 structure */

/* A02 (N = 40): 81 tree coordinates, 40 revolute cuts = 200 rows of rank 80 (dof 1); the
   initial state is consistent (assembly keeps it) and crank i mirrors crank 0. */
static void test_a02_structure(void **state)
{
    (void)state;
    lm_mech mech;
    build_ok(lm_build_a02(40, &mech), &mech);
    assert_int_equal(mbs_model_nv(mech.model), 81);
    assert_int_equal(mbs_model_ncon(mech.model), 200);
    mbs_data *d = new_data(&mech);
    lm_a02_initial(40, &mech, d);
    call_ok(d, mbs_assemble(d), "assemble");
    call_ok(d, mbs_forward_dynamics(d), "forward dynamics");
    int rank, nact;
    con_info(d, &rank, &nact);
    assert_int_equal(rank, 80);
    assert_int_equal(nact, 80);
    assert_true(lm_residual(&mech, d) <= 1e-12);
    double spread = 0.0;
    for (int i = 1; i <= 40; ++i) /* joints 0..40 are the cranks */
        spread = fmax(spread, fabs(lm_qacc(d, &mech, i) - lm_qacc(d, &mech, 0)));
    print_message("A02: rank %d of 200; crank accelerations equal to %.2e\n", rank, spread);
    assert_true(spread <= 1e-10);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_forms_self_check),
        cmocka_unit_test(test_fourbar_kinematics),
        cmocka_unit_test(test_slider_crank_kinematics),
        cmocka_unit_test(test_fourbar_trajectory_closed),
        cmocka_unit_test(test_energy_conservative_loops),
        cmocka_unit_test(test_lambda_fourbar_statics),
        cmocka_unit_test(test_lambda_slider_crank_statics),
        cmocka_unit_test(test_lambda_fourbar_held_by_weight),
        cmocka_unit_test(test_distance_rod_slider_crank),
        cmocka_unit_test(test_fourbar_cut_elsewhere),
        cmocka_unit_test(test_door_two_hinges),
        cmocka_unit_test(test_planar_loop_any_plane),
        cmocka_unit_test(test_engine_cylindrical),
        cmocka_unit_test(test_engine_six_cylinders),
        cmocka_unit_test(test_bricard_6r),
        cmocka_unit_test(test_assembly_failures),
        cmocka_unit_test(test_cut_joint_unknown_body),
        cmocka_unit_test(test_a02_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
