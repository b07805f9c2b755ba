/* Prescribed motion (mbs_add_joint_motion, mbs_data_driving_force): a rheonomic coordinate
 * row. Closed forms: a pendulum whose pivot angle follows theta(t) = A sin(w t) needs the
 * torque J theta'' + m g l sin theta (1e-10 relative); a crank-driven slider-crank's crank
 * torque by virtual work, sum over the bodies of m a . dp/dtheta + I alpha dphi/dtheta +
 * m g dy/dtheta, with the closed-form kinematics of tests/support/loop_mechanisms.c (1e-9); a driven
 * joint in a tree against RNEA (mbs_inverse_dynamics); the joint reaction carries the drive.
 * Every stepper kind; the driven dof
 * follows theta(t) exactly at every step end. Bad input. */
#include "common.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double G = 9.81;

/* theta(t) = A sin(w t) + c (user = double[3] {A, w, c}). */
static int sine_motion(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    const double *p = user;
    pos[0] = p[0] * sin(p[1] * t) + p[2];
    vel[0] = p[0] * p[1] * cos(p[1] * t);
    acc[0] = -p[0] * p[1] * p[1] * sin(p[1] * t);
    return 0;
}

/* theta(t) = w t + c (user = double[2] {w, c}). */
static int ramp_motion(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    const double *p = user;
    pos[0] = p[0] * t + p[1];
    vel[0] = p[0];
    acc[0] = 0.0;
    return 0;
}

/* ------------------------------------------------------------ pendulum */
#define PM 1.3   /* mass */
#define PL 0.7   /* pivot to centre of mass */
#define PIYY 0.05 /* inertia about the centre of mass, about the axis */

/* Pendulum about the world y axis, centre of mass at (0, 0, -PL) in the body. */
static mbs_builder *pendulum_builder(int nlink)
{
    mbs_builder *b = mbs_builder_create();
    for (int i = 0; i < nlink; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = PM;
        bd.com[2] = -PL;
        memset(bd.inertia, 0, sizeof bd.inertia);
        bd.inertia[0] = bd.inertia[8] = 0.03;
        bd.inertia[4] = PIYY;
        mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i;
        jd.child = i + 1;
        jd.frame_parent.pos[2] = i > 0 ? -2.0 * PL : 0.0;
        jd.axis[0] = 0.0, jd.axis[1] = 1.0, jd.axis[2] = 0.0;
        mbs_add_joint(b, &jd);
    }
    return b;
}

/* Driving torque of the pendulum on theta(t): J theta'' + m g l sin theta. */
static double pendulum_torque(const double *p, double t)
{
    double th, thd, thdd;
    sine_motion(t, &th, &thd, &thdd, (void *)(uintptr_t)p);
    return (PIYY + PM * PL * PL) * thdd + PM * G * PL * sin(th);
}

/* Every kind: the pivot follows theta(t) at each step end and the driving force after a
   forward dynamics there is the closed form (1e-10 relative); after an RK4 step (its last
   stage is at the step's end) without recomputing. */
static void test_pendulum_drive(void **state)
{
    (void)state;
    static const double p[3] = {0.8, 3.0, 0.2};
    const mbs_stepper_kind kinds[] = {MBS_STEP_EULER, MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS,
                                      MBS_STEP_CVODE_BDF};
    for (int k = 0; k < 4; ++k) {
        mbs_builder *b = pendulum_builder(1);
        assert_int_equal(mbs_add_joint_motion(b, 0, 0, sine_motion, (void *)p), 0);
        mbs_model *m = test_compile_ok(b);
        mbs_data *d = mbs_data_create(m);
        mbs_stepper *s = test_stepper_tight(d, kinds[k]);
        double worst = 0.0, worst_q = 0.0;
        for (int i = 1; i <= 300; ++i) {
            assert_int_equal(mbs_stepper_step(s, 2e-3), MBS_OK);
            const double t = mbs_data_time(d), tau = pendulum_torque(p, t);
            double th, thd, thdd;
            sine_motion(t, &th, &thd, &thdd, (void *)p);
            worst_q = fmax(worst_q, fmax(fabs(mbs_data_q(d)[0] - th), fabs(mbs_data_v(d)[0] - thd)));
            if (kinds[k] == MBS_STEP_RK4)
                worst = fmax(worst, fabs(mbs_data_driving_force(d, 0, 0) - tau) / (1.0 + fabs(tau)));
            assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
            worst = fmax(worst, fabs(mbs_data_driving_force(d, 0, 0) - tau) / (1.0 + fabs(tau)));
            worst = fmax(worst, fabs(mbs_data_qacc(d)[0] - thdd) / (1.0 + fabs(thdd)));
            double F[3], T[3]; /* the joint transmits the drive: its torque about the axis */
            assert_int_equal(mbs_joint_reaction(d, 0, F, T), MBS_OK);
            worst = fmax(worst, fabs(T[1] - tau) / (1.0 + fabs(tau)));
        }
        print_message("kind %d: driving torque error %.2e (relative), theta/rate error %.2e\n", k,
                      worst, worst_q);
        assert_true(worst <= 1e-10);
        assert_true(worst_q <= 1e-14);
        assert_true(isnan(mbs_data_driving_force(d, 0, 1)));
        assert_true(isnan(mbs_data_driving_force(d, 1, 0)));
        assert_true(isnan(mbs_data_driving_force(NULL, 0, 0)));
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* A driven first joint of a double pendulum: the driving force is the tau that RNEA needs
   at the resulting accelerations on that joint, and the free joint needs none. */
static void test_tree_vs_rnea(void **state)
{
    (void)state;
    static const double p[3] = {0.5, 2.0, -0.3};
    mbs_builder *b = pendulum_builder(2);
    mbs_add_joint_motion(b, 0, 0, sine_motion, (void *)p);
    mbs_model *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[1] = 1.5;
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    double worst = 0.0;
    for (int i = 0; i < 200; ++i) {
        assert_int_equal(mbs_stepper_step(s, 5e-3), MBS_OK);
        mbs_data_tau(d)[1] = 0.3 * sin((double)i); /* an input on the free joint */
        assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
        double tau[2];
        assert_int_equal(mbs_inverse_dynamics(d, mbs_data_qacc(d), tau), MBS_OK);
        const double f = mbs_data_driving_force(d, 0, 0);
        worst = fmax(worst, fabs(tau[0] - f) / (1.0 + fabs(f)));
        worst = fmax(worst, fabs(tau[1] - mbs_data_tau(d)[1]));
    }
    print_message("double pendulum: driving force vs RNEA %.2e\n", worst);
    assert_true(worst <= 1e-11);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ slider-crank */

/* Crank torque by virtual work for the crank angle th, rate w, acceleration al: bodies are
   uniform bars (crank r, rod l; I = m L^2 / 12 about the centre) and a point slider at
   B = (x, e); gravity g along -y. */
static double slider_crank_torque(const lm_slider_crank *p, double th, double w, double al)
{
    double x[3], phi[3], xv[3], phiv[3];
    lm_slider_crank_kin(p, th, w, al, x, phi);
    lm_slider_crank_kin(p, th, 1.0, 0.0, xv, phiv); /* d/dth */
    const double c = cos(th), s = sin(th), r = p->r, l = p->l;
    /* crank pin A = r (c, s): a, dA/dth */
    const double aA[2] = {-r * c * w * w - r * s * al, -r * s * w * w + r * c * al};
    const double dA[2] = {-r * s, r * c};
    const double aB[2] = {x[2], 0.0}, dB[2] = {xv[1], 0.0};
    double tau = 0.0;
    /* crank: centre A / 2 */
    tau += p->mass[0] * (0.5 * aA[0] * 0.5 * dA[0] + 0.5 * aA[1] * 0.5 * dA[1]);
    tau += p->mass[0] * r * r / 12.0 * al + p->mass[0] * p->g * 0.5 * dA[1];
    /* rod: centre (A + B) / 2, angle phi */
    const double ac[2] = {0.5 * (aA[0] + aB[0]), 0.5 * (aA[1] + aB[1])};
    const double dc[2] = {0.5 * (dA[0] + dB[0]), 0.5 * (dA[1] + dB[1])};
    tau += p->mass[1] * (ac[0] * dc[0] + ac[1] * dc[1]);
    tau += p->mass[1] * l * l / 12.0 * phi[2] * phiv[1] + p->mass[1] * p->g * dc[1];
    /* slider */
    tau += p->mass[2] * aB[0] * dB[0];
    return tau;
}

/* Add the ramp drive to the crank (joint[0]). */
static int add_crank_drive(mbs_builder *b, const lm_mech *mech, void *user)
{
    const int id = mbs_add_joint_motion(b, mech->joint[0], 0, ramp_motion, user);
    return id < 0 ? id : MBS_OK;
}

/* The crank of a slider-crank (cut at B, and cut at A: the crank then is a leaf joint)
   turned at a constant rate: the driving force against virtual work, with RK4 and CVODE
   BDF, and the loop closed with the crank exactly on its ramp. */
static void test_slider_crank_drive(void **state)
{
    (void)state;
    static const double ramp[2] = {6.0, 0.4};
    const int cuts[2] = {LM_SC_CUT_B, LM_SC_CUT_A};
    const mbs_stepper_kind kinds[2] = {MBS_STEP_RK4, MBS_STEP_CVODE_BDF};
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < 2; ++k) {
            lm_slider_crank p = lm_default_slider_crank();
            p.cut = cuts[c];
            lm_mech mech;
            if (lm_build_slider_crank_ex(&p, add_crank_drive, (void *)ramp, &mech) != MBS_OK)
                fail_msg("%s", mech.error);
            mbs_data *d = mbs_data_create(mech.model);
            double s0[3], sd0[3] = {ramp[0], 0.0, 0.0};
            double x[3], phi[3];
            lm_slider_crank_kin(&p, ramp[1], ramp[0], 0.0, x, phi);
            s0[0] = ramp[1], s0[1] = phi[0], s0[2] = x[0];
            sd0[1] = phi[1], sd0[2] = x[1];
            lm_slider_crank_set(&p, &mech, d, s0, sd0);
            mbs_stepper *s = test_stepper_tight(d, kinds[k]);
            double worst = 0.0, worst_th = 0.0, worst_res = 0.0, tmax = 0.0;
            for (int i = 1; i <= 400; ++i) {
                assert_int_equal(mbs_stepper_step(s, 2.5e-3), MBS_OK);
                const double t = mbs_data_time(d), th = ramp[0] * t + ramp[1];
                double st[3], sd[3];
                lm_slider_crank_state(&p, &mech, d, st, sd);
                worst_th = fmax(worst_th, fmax(fabs(st[0] - th), fabs(sd[0] - ramp[0])));
                assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
                const double tau = slider_crank_torque(&p, th, ramp[0], 0.0);
                const double f = mbs_model_joint_vadr(mech.model, mech.joint[0]) >= 0
                                     ? mbs_data_driving_force(d, mech.joint[0], 0) : NAN;
                worst = fmax(worst, fabs(f - tau));
                tmax = fmax(tmax, fabs(tau));
                worst_res = fmax(worst_res, lm_residual(&mech, d));
            }
            print_message("slider-crank cut %d, kind %d: crank torque error %.2e N m (largest "
                          "torque %.3f), crank angle/rate error %.2e, closure %.2e\n", cuts[c],
                          k, worst, tmax, worst_th, worst_res);
            assert_true(worst <= 1e-9 * (1.0 + tmax));
            assert_true(worst_th <= 1e-12);
            assert_true(worst_res <= 1e-10);
            mbs_stepper_destroy(s);
            mbs_data_destroy(d);
            lm_mech_free(&mech);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum_drive),
        cmocka_unit_test(test_tree_vs_rnea),
        cmocka_unit_test(test_slider_crank_drive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
