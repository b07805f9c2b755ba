/* Asking the model (docs/tutorial.md, "Ask the model"), on the 6-axis arm of robot_arm_pd.c:
 *
 *   1. initialisation: mbs_solve_positions puts the flange point on the start of a circle;
 *   2. Jacobian-based control at 1 kHz: the flange point tracks the circle under
 *        tau = Jv^T (Kp (x_des - x) + Kd (xdot_des - Jv v)) + c(q, v) + Kn (q_rest - q) - Dn v
 *      with Jv the linear rows of mbs_point_jacobian and c from mbs_bias_forces (the last
 *      two terms hold the arm's three redundant directions near the start pose);
 *   3. static equilibrium with the shoulder and elbow brakes released (the other joints held):
 *      mbs_equilibrium with a fixed mask. A Newton iteration finds the equilibrium it reaches
 *      from the start: from the raised arm the balanced upright one (unstable), from a pose
 *      below the horizontal the hanging one.
 *
 * Build: cc robot_arm_task.c $(pkg-config --cflags --libs mbs) -lm */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mbs/mbs.h>

#include "robot_arm.h"

#define PI 3.14159265358979323846
#define FLANGE 6 /* body id of the last link */

static const double TIP[3] = {0.05, 0.0, 0.0}; /* the tracked point, flange coordinates */

/* The circle: centre (0.45, 0, 0.35), radius 0.1, horizontal, one turn in 2 s. */
static void circle(double t, double x[3], double xd[3])
{
    const double w = PI, r = 0.1;
    x[0] = 0.45 + r * cos(w * t), x[1] = r * sin(w * t), x[2] = 0.35;
    xd[0] = -r * w * sin(w * t), xd[1] = r * w * cos(w * t), xd[2] = 0.0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* World position of the tracked point. */
static int tip_position(mbs_data *d, double x[3])
{
    double p[3], R[9];
    const int st = mbs_body_pose(d, FLANGE, p, R);
    for (int i = 0; i < 3; ++i) x[i] = p[i] + R[3 * i] * TIP[0] + R[3 * i + 1] * TIP[1] + R[3 * i + 2] * TIP[2];
    return st;
}

/* One control period: tau from the task-space error at time t; |x_des - x| into *err. */
static int control(mbs_data *d, const double q_rest[NJ], double t, double *err)
{
    static const double kp = 2000.0, kd = 120.0, kn = 2.0, dn = 0.5;
    double J[6 * NJ], c[NJ], x[3], xs[3], xsd[3], F[3];
    const double *q = mbs_data_q(d), *v = mbs_data_v(d);
    double *tau = mbs_data_tau(d);
    int st = mbs_point_jacobian(d, FLANGE, TIP, J);
    if (st == MBS_OK) st = tip_position(d, x);
    if (st == MBS_OK) st = mbs_bias_forces(d, c);
    if (st != MBS_OK) return st;
    circle(t, xs, xsd);
    *err = 0.0;
    for (int e = 0; e < 3; ++e) {
        double xdot = 0.0; /* row 3 + e of J: the point's velocity */
        for (int k = 0; k < NJ; ++k) xdot += J[NJ * (3 + e) + k] * v[k];
        F[e] = kp * (xs[e] - x[e]) + kd * (xsd[e] - xdot);
        *err += (xs[e] - x[e]) * (xs[e] - x[e]);
    }
    *err = sqrt(*err);
    for (int k = 0; k < NJ; ++k) {
        tau[k] = c[k] + kn * (q_rest[k] - q[k]) - dn * v[k];
        for (int e = 0; e < 3; ++e) tau[k] += J[NJ * (3 + e) + k] * F[e];
    }
    return MBS_OK;
}

/* 1. The flange point on the circle's start, from a bent pose (inverse kinematics). */
static int place_on_circle(mbs_data *d)
{
    static const double bent[NJ] = {0.0, -0.6, 1.2, 0.0, 0.5, 0.0};
    double x0[3], xd0[3], x[3];
    memcpy(mbs_data_q(d), bent, sizeof bent);
    circle(0.0, x0, xd0);
    mbs_position_target target = {FLANGE, {TIP[0], TIP[1], TIP[2]}, {x0[0], x0[1], x0[2]}};
    const int st = mbs_solve_positions(d, &target, 1, NULL);
    if (st != MBS_OK) return st;
    tip_position(d, x);
    printf("1. initial pose by mbs_solve_positions: q =");
    for (int k = 0; k < NJ; ++k) printf(" %.4f", mbs_data_q(d)[k]);
    printf("\n   flange point at (%.6f, %.6f, %.6f), target (%.2f, %.2f, %.2f)\n", x[0], x[1],
           x[2], x0[0], x0[1], x0[2]);
    return MBS_OK;
}

/* 2. Track the circle for 4 s at 1 kHz (RK4). */
static int track(mbs_data *d)
{
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    if (!s) return MBS_ERR_NOMEM;
    double q_rest[NJ], wall = 0.0, err = 0.0, emax = 0.0;
    memcpy(q_rest, mbs_data_q(d), sizeof q_rest);
    int st = MBS_OK;
    printf("2. Jacobian-transpose control of the flange point, RK4 at 1 kHz\n");
    printf("%9s %16s\n", "t [s]", "|x_des - x| [m]");
    for (int k = 0; k < 4000 && st == MBS_OK; ++k) {
        const double t0 = now_seconds(), t = mbs_data_time(d);
        st = control(d, q_rest, t, &err);
        if (st == MBS_OK) st = mbs_stepper_step(s, 1e-3);
        wall += now_seconds() - t0;
        if (t >= 2.0) emax = fmax(emax, err);
        if (k % 500 == 0) printf("%9.2f %16.3e\n", t, err);
    }
    if (st == MBS_OK)
        printf("   largest error over the second turn %.3e m; %.2f us per control period\n",
               emax, 1e6 * wall / 4000);
    mbs_stepper_destroy(s);
    return st;
}

/* 3. Shoulder and elbow released, the other joints held, from the data's pose: the
   equilibrium, and the gravity torque left at the two free joints (mbs_bias_forces). */
static int release_brakes(mbs_data *d, const char *from)
{
    static const unsigned char held[NJ] = {1, 0, 0, 1, 1, 1};
    memset(mbs_data_tau(d), 0, sizeof(double) * NJ);
    const double q1 = mbs_data_q(d)[1], q2 = mbs_data_q(d)[2];
    int st = mbs_equilibrium(d, held);
    double c[NJ];
    if (st == MBS_OK) st = mbs_bias_forces(d, c);
    if (st != MBS_OK) return st;
    printf("   from %s (%.4f, %.4f): (%.6f, %.6f) rad, torque left (%.1e, %.1e) N m\n", from,
           q1, q2, mbs_data_q(d)[1], mbs_data_q(d)[2], c[1], c[2]);
    return MBS_OK;
}

int main(void)
{
    mbs_model *m = build_arm();
    mbs_data *d = m ? mbs_data_create(m) : NULL;
    int st = d ? MBS_OK : MBS_ERR_NOMEM;
    if (st == MBS_OK) st = place_on_circle(d);
    if (st == MBS_OK) st = track(d);
    if (st == MBS_OK) {
        printf("3. brakes of shoulder and elbow released, mbs_equilibrium (shoulder, elbow):\n");
        st = release_brakes(d, "the raised arm");
    }
    if (st == MBS_OK) {
        mbs_data_q(d)[1] = 0.3, mbs_data_q(d)[2] = 0.5;
        st = release_brakes(d, "below the horizontal");
    }
    if (st != MBS_OK) fprintf(stderr, "failed: %s: %s\n", mbs_status_name(st), d ? mbs_data_error(d) : "");
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return st == MBS_OK ? 0 : 1;
}
