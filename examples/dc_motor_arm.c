/* The 6-axis arm of robot_arm.h driven by six DC motors whose currents are user states,
 * integrated with the arm in one state vector (the coupling of ROBOTRAN's user equations:
 * Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody
 * models", §4.2.2 and §5.1). Each joint j has a motor behind a gear of ratio N:
 *
 *     L di_j/dt = u_j - R i_j - k_e N w_j,    joint torque N k_t i_j,
 *
 * its rotor (inertia J_R, turning N times faster) an mbs rotor element, and a voltage servo
 * u_j = clamp(K_P (q_target - q_j) - K_D w_j, +-24 V) inside the same function. The arm moves
 * to a new pose with RK4 at 1 kHz; the printout shows the error, the shoulder and elbow
 * currents and the electrical power as the move settles. The servo is proportional, so at
 * rest an error remains that holds the arm against gravity (the shoulder's 5.7 A), and all
 * the power then goes into the windings' resistance (sum of R i^2).
 *
 * Build: cc dc_motor_arm.c $(pkg-config --cflags --libs mbs) -lm */
#include <math.h>
#include <stdio.h>

#include <mbs/mbs.h>

#include "robot_arm.h"

#define R_OHM 1.0     /* winding resistance */
#define L_H 2e-3      /* inductance */
#define K_T 0.05      /* torque constant N m/A = back-emf constant V s/rad */
#define GEAR 100.0
#define J_ROTOR 2e-5  /* kg m^2 */
#define K_P 200.0     /* V/rad */
#define K_D 5.0       /* V s/rad */
#define U_MAX 24.0

static const double TARGET[NJ] = {0.8, -0.3, 0.8, 0.5, 0.2, 1.0};

/* The servo voltage of joint j at the data's state. */
static double voltage(mbs_data *d, int j)
{
    const double u = K_P * (TARGET[j] - mbs_data_q(d)[j]) - K_D * mbs_data_v(d)[j];
    return fmax(-U_MAX, fmin(U_MAX, u));
}

/* The six currents' derivatives and the motor torques on the joints. */
static int motors(mbs_data *d, const double *i, double *di, void *user)
{
    (void)user;
    for (int j = 0; j < NJ; ++j) {
        di[j] = (voltage(d, j) - R_OHM * i[j] - K_T * GEAR * mbs_data_v(d)[j]) / L_H;
        const int st = mbs_apply_generalized_force(d, j, GEAR * K_T * i[j]);
        if (st != MBS_OK) return st;
    }
    return 0;
}

/* The arm with rotors and motors; NULL with a message on stderr. */
static mbs_model *build(void)
{
    mbs_builder *b = mbs_builder_create();
    int st = b ? add_arm(b) : MBS_ERR_NOMEM;
    for (int j = 0; j < NJ && st >= 0; ++j) {
        mbs_rotor_def r = mbs_default_rotor_def();
        r.joint = j, r.inertia = J_ROTOR, r.ratio = GEAR, r.housing = j; /* on the parent link */
        for (int k = 0; k < 3; ++k) r.axis[k] = LINKS[j].axis[k];
        st = mbs_add_rotor(b, &r);
    }
    if (st >= 0) st = mbs_add_user_states(b, "motors", NJ, motors, NULL);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

int main(void)
{
    static const double q0[NJ] = {0.0, -0.6, 1.2, 0.0, 0.5, 0.0};
    mbs_model *m = build();
    mbs_data *d = m ? mbs_data_create(m) : NULL;
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = d ? mbs_stepper_create(d, &def) : NULL;
    int st = s ? MBS_OK : MBS_ERR_NOMEM;
    if (d) for (int j = 0; j < NJ; ++j) mbs_data_q(d)[j] = q0[j];
    printf("6-axis arm, six DC motors (currents: user states), RK4 at 1 kHz\n");
    printf("%6s %14s %12s %12s %12s\n", "t [s]", "max|e| [rad]", "i2 [A]", "i3 [A]", "P_el [W]");
    for (int k = 0; k <= 1500 && st == MBS_OK; ++k) {
        const double *i = mbs_data_user_states(d);
        double emax = 0.0, power = 0.0;
        for (int j = 0; j < NJ; ++j) {
            emax = fmax(emax, fabs(TARGET[j] - mbs_data_q(d)[j]));
            power += voltage(d, j) * i[j];
        }
        if (k % 250 == 0)
            printf("%6.2f %14.3e %12.4f %12.4f %12.3f\n", mbs_data_time(d), emax, i[1], i[2],
                   power);
        if (k < 1500) st = mbs_stepper_step(s, 1e-3);
    }
    if (st != MBS_OK) fprintf(stderr, "failed: %s\n", d ? mbs_data_error(d) : "out of memory");
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return st == MBS_OK ? 0 : 1;
}
