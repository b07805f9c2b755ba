/* The embedded build (-Dlapack=disabled -Dcvode=disabled) against the full one: this program
 * is linked with each libmbs.a by scripts/test-embedded.sh, which compares their outputs
 * (tree dynamics and RK4 must agree bit for bit: they use no LAPACK) and, with argument
 * "embedded", checks that what was left out (CVODE, loops, modes) reports MBS_ERR_STATE with a
 * message.
 * Prints hexadecimal floats, then "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbs/mbs.h"

static int npass, nfail;

static void check(int ok, const char *what)
{
    if (ok)
        npass++;
    else
        nfail++, printf("FAILED: %s\n", what);
}

/* Three links on revolute joints about alternating axes, a spherical joint at the end and
   a spring: enough joint types to exercise the tree passes. */
static mbs_model *chain(int with_loop)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    int prev = MBS_WORLD;
    for (int i = 0; i < 4; ++i) {
        bd.mass = 1.0 + 0.5 * i;
        bd.com[0] = 0.2;
        bd.inertia[0] = 0.01, bd.inertia[4] = 0.02 + 0.001 * i, bd.inertia[8] = 0.02;
        const int body = mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(i == 3 ? MBS_JOINT_SPHERICAL : MBS_JOINT_REVOLUTE);
        jd.parent = prev, jd.child = body;
        jd.frame_parent.pos[0] = prev == MBS_WORLD ? 0.0 : 0.4;
        jd.axis[0] = 0.0, jd.axis[1] = i % 2, jd.axis[2] = 1 - i % 2;
        mbs_add_joint(b, &jd);
        prev = body;
    }
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = MBS_WORLD, sd.body_b = prev, sd.stiffness = 50.0, sd.damping = 0.0;
    sd.rest_length = 0.5, sd.point_a[2] = 1.0;
    mbs_add_spring_damper(b, &sd);
    if (with_loop) { /* a distance joint: a closed loop */
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_DISTANCE);
        jd.parent = MBS_WORLD, jd.child = 2, jd.length = 0.3;
        mbs_add_joint(b, &jd);
    }
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    if (with_loop) {
        check(st == MBS_ERR_STATE && strstr(mbs_builder_error(b), "no LAPACK") != NULL,
              "a loop is refused at compile, naming LAPACK");
        printf("loop: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    }
    mbs_builder_destroy(b);
    return m;
}

/* Friction (locking), a restitution stop and a prescribed motion need no LAPACK on a tree
   (their rows close directly): 3000 RK4 steps, printed for the bitwise comparison. */
static int swing(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    (void)user;
    pos[0] = 0.3 * sin(2.0 * t), vel[0] = 0.6 * cos(2.0 * t), acc[0] = -1.2 * sin(2.0 * t);
    return 0;
}

static void friction_case(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.com[2] = -0.4;
    for (int i = 0; i < 3; ++i) {
        mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(i == 1 ? MBS_JOINT_PRISMATIC : MBS_JOINT_REVOLUTE);
        jd.parent = i == 2 ? 2 : MBS_WORLD, jd.child = i + 1;
        jd.axis[1] = i != 1, jd.axis[2] = i == 1;
        mbs_add_joint(b, &jd);
    }
    mbs_joint_friction_def f = mbs_default_joint_friction_def();
    f.joint = 0, f.coulomb = 0.4, f.stiction = 0.6;
    mbs_add_joint_friction(b, &f);
    mbs_joint_stop_def sp = mbs_default_joint_stop_def();
    sp.joint = 1, sp.lower = 0.0, sp.rest_velocity = 0.05;
    mbs_add_joint_stop(b, &sp);
    mbs_add_joint_motion(b, 2, 0, swing, NULL);
    mbs_model *m = NULL;
    check(mbs_compile(b, &m) == MBS_OK, "friction, stop and motion compile");
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.5, mbs_data_q(d)[1] = 0.3;
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    int st = MBS_OK;
    for (int n = 0; n < 3000 && st == MBS_OK; ++n) st = mbs_stepper_step(s, 1e-3);
    check(st == MBS_OK && mbs_joint_is_locked(d, 0, 0) == 1 && mbs_joint_stop_state(d, 1, 0) == 1,
          "3000 RK4 steps: the friction locks, the ball rests on its stop");
    for (int i = 0; i < 3; ++i) printf("q %a %a\n", mbs_data_q(d)[i], mbs_data_v(d)[i]);
    printf("q %a\n", mbs_data_driving_force(d, 2, 0));
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* User states need no LAPACK either: a DC motor's current (L di/dt = u - R i - k_e w,
   torque k_t i) swinging a pendulum, 2000 RK4 steps, printed for the bitwise comparison. */
static int dc_motor(mbs_data *d, const double *x, double *xdot, void *user)
{
    (void)user;
    const double u = 3.0 * sin(4.0 * mbs_data_time(d));
    xdot[0] = (u - 2.0 * x[0] - 0.5 * mbs_data_v(d)[0]) / 0.01;
    return mbs_apply_generalized_force(d, 0, 0.5 * x[0]);
}

static void motor_case(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.com[2] = -0.4;
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.child = 1, jd.axis[1] = 1.0, jd.axis[2] = 0.0;
    mbs_add_joint(b, &jd);
    mbs_add_user_states(b, "motor", 1, dc_motor, NULL);
    mbs_model *m = NULL;
    check(mbs_compile(b, &m) == MBS_OK, "a motor's current as a user state compiles");
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    int st = MBS_OK;
    for (int n = 0; n < 2000 && st == MBS_OK; ++n) st = mbs_stepper_step(s, 1e-3);
    check(st == MBS_OK && mbs_data_user_states(d)[0] != 0.0, "2000 RK4 steps with a user state");
    printf("q %a %a %a\n", mbs_data_q(d)[0], mbs_data_v(d)[0], mbs_data_user_states(d)[0]);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(int argc, char **argv)
{
    const int embedded = argc > 1 && !strcmp(argv[1], "embedded");
    mbs_model *m = chain(0);
    mbs_data *d = mbs_data_create(m);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    for (int i = 0; i < nv; ++i) mbs_data_v(d)[i] = 0.3 * (i + 1), mbs_data_tau(d)[i] = 0.1 * i;
    mbs_data_q(d)[0] = 0.4, mbs_data_q(d)[1] = -0.7;
    double T0, V0, T1, V1, M[64];
    check(mbs_forward_dynamics(d) == MBS_OK, "forward dynamics");
    for (int i = 0; i < nv; ++i) printf("qacc %a\n", mbs_data_qacc(d)[i]);
    check(mbs_mass_matrix(d, M) == MBS_OK, "mass matrix");
    for (int i = 0; i < nv * nv; ++i) printf("M %a\n", M[i]);
    double Dq[64], Dv[64], Mi[64], A[256], B[128], re[16], im[16];
    int nx = 0, ne = 16;
    check(mbs_forward_dynamics_derivatives(d, Dq, Dv, Mi) == MBS_OK, "derivatives");
    check(mbs_linearize(d, A, B, &nx) == MBS_OK && nx == 2 * nv, "linearize");
    for (int i = 0; i < nv * nv; ++i) printf("D %a %a %a\n", Dq[i], Dv[i], Mi[i]);
    for (int i = 0; i < nx * nx; ++i) printf("D %a\n", A[i]);
    const int sm = mbs_modes(d, re, im, &ne);
    if (embedded)
        check(sm == MBS_ERR_STATE && strstr(mbs_data_error(d), "no LAPACK") != NULL,
              "modes refused, naming LAPACK");
    else
        check(sm == MBS_OK && ne == 2 * nv, "modes in the full build");
    for (int i = 0; i < nv; ++i) mbs_data_tau(d)[i] = 0.0;
    mbs_energy(d, &T0, &V0);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    int st = MBS_OK;
    for (int n = 0; n < 1000 && st == MBS_OK; ++n) st = mbs_stepper_step(s, 1e-3);
    check(st == MBS_OK, "1000 RK4 steps");
    mbs_energy(d, &T1, &V1);
    check(fabs(T1 + V1 - T0 - V0) < 1e-6 * (1.0 + fabs(T0 + V0)), "RK4 conserves energy");
    for (int i = 0; i < nq; ++i) printf("q %a\n", mbs_data_q(d)[i]);
    mbs_stepper_destroy(s);
    def = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
    s = mbs_stepper_create(d, &def);
    if (embedded)
        check(!s && strstr(mbs_data_error(d), "no SUNDIALS") != NULL,
              "CVODE stepper refused, naming SUNDIALS");
    else
        check(s != NULL, "CVODE stepper in the full build");
    mbs_stepper_destroy(s);
    const mbs_param p = {MBS_PARAM_MASS, 1, 0};
    mbs_sens_def sdef = mbs_default_sens_def();
    mbs_sens *sens = NULL;
    st = mbs_sens_create(m, d, &p, 1, &sdef, &sens);
    if (embedded)
        check(st == MBS_ERR_STATE && !sens && strstr(mbs_data_error(d), "no SUNDIALS") != NULL,
              "sensitivity run refused, naming SUNDIALS");
    else
        check(st == MBS_OK && sens != NULL, "sensitivity run in the full build");
    mbs_sens_destroy(sens);
    if (embedded) chain(1);
    /* analyses: the actuated inverse dynamics of a tree needs no LAPACK (printed as "tau",
       compared with the full build); equilibrium and position solving do */
    double tau_out[8];
    int act[8];
    for (int i = 0; i < nv; ++i) act[i] = i;
    check(mbs_inverse_dynamics_actuated(d, mbs_data_qacc(d), act, nv, tau_out) == MBS_OK,
          "actuated inverse dynamics of a tree");
    for (int i = 0; i < nv; ++i) printf("tau %a\n", tau_out[i]);
    const mbs_position_target t = {1, {0.2, 0.0, 0.0}, {0.0, 0.2, 0.0}};
    const int eq = mbs_equilibrium(d, NULL), sp = mbs_solve_positions(d, &t, 1, NULL);
    if (embedded)
        check(eq == MBS_ERR_STATE && sp == MBS_ERR_STATE && strstr(mbs_data_error(d), "LAPACK"),
              "equilibrium and position solving refused, naming LAPACK");
    else
        check(sp == MBS_OK, "position solving in the full build");
    friction_case();
    motor_case();
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    printf("embedded check: %d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
