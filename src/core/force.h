/* Force elements behind a const ops table, one file per element kind in src/elements/.
 * Every element adds its spatial forces to data->f_ext (body coordinates, about the body
 * origin) and its generalized forces to data->gen_force. */
#ifndef MBS_FORCES_FORCE_H
#define MBS_FORCES_FORCE_H

#include "mbs/mbs.h"
#include "core/spatial.h"

typedef struct mbs_force_ops mbs_force_ops;
struct mbs_crow;

typedef struct mbs_force_model {
    const mbs_force_ops *ops;
    char *name;                    /* never NULL ("" if unnamed) */
    int body_a, body_b;            /* line forces */
    double point_a[3], point_b[3]; /* body coordinates */
    double stiffness, damping, rest;
    int joint, dof, vindex;        /* joint spring-damper: joint, dof, index in v and q */
    int qindex;
    mbs_force_callback fn;         /* callback element */
    void *user;
    /* point masses on the line (src/elements/): one at fraction `fraction` (mass), or two
       at distances dist_a from point a and dist_b from point b (mass, mass_b; two = 1) */
    double mass, fraction, mass_b, dist_a, dist_b;
    int two;
    int crow, ncrow;               /* first inertial-coupling row and their number */
    double force;                  /* joint force: the constant generalized force */
    /* joint friction, brake and stop (src/events/): friction coulomb, stiction, viscous
       (brake: coulomb = initial limit, stiction = peak); stop limits, law (mbs_stop_law),
       restitution, rest_velocity (elastic: stiffness, damping above); slot = index among
       the model's frictions+brakes or stops */
    double coulomb, stiction, viscous;
    double lower, upper, restitution, rest_velocity;
    int law, slot;
    /* a brake whose limit is the reaction of its joint (reaction = 1; analysis/
       reaction_friction.c): limit = mu radius (|F across the axis| + axial |F along it|),
       stiction = mu_stick / mu its peak; prismatic radius 1, axial 0 */
    int reaction;
    double mu, radius, axial;
    /* two-frame force (frame_force.c) and user line law (line_law.c) */
    mbs_pose frame_a, frame_b;     /* two-frame force: frames on body_a, body_b */
    int resolve;                   /* mbs_resolve of the two-frame force */
    double value[6];               /* two-frame force: constant force, torque (initial input) */
    mbs_frame_force_fn frame_fn;   /* two-frame force callback, NULL: host input */
    mbs_line_law line_law;         /* user line law */
    mbs_line_potential line_potential; /* its potential, NULL if none */
    /* user state equations (src/ustates/): nux states from index uxadr of data->ux */
    mbs_user_states_fn ux_fn;
    int uxadr, nux;
} mbs_force_model;

struct mbs_force_ops {
    const char *name;
    /* Add this element's forces at the data's current kinematics (mbs_kinematics done).
       Returns MBS_OK or a negative status with the data's error message set. */
    int (*apply)(const mbs_force_model *f, mbs_data *d);
    /* Potential energy stored in the element; NULL if it has none. */
    double (*potential)(const mbs_force_model *f, const mbs_data *d);
    /* Inertial-coupling rows of its point masses (f->ncrow of them, src/elements/) at the
       current kinematics; NULL when the kind has none. Returns MBS_OK or a status. */
    int (*rows)(const mbs_force_model *f, mbs_data *d, int with_vel, struct mbs_crow *rows);
};

/* Friction modes, decided by the events (src/events/) and read by the friction and brake
   elements (mbs_data's fric_mode). UNDECIDED: before the first step (the force follows
   sign(v), 0 at rest); SUSPENDED: a restitution stop on the same dof holds it (no force). */
enum { MBS_FRIC_UNDECIDED, MBS_FRIC_SLIDE_POS, MBS_FRIC_SLIDE_NEG, MBS_FRIC_LOCKED,
       MBS_FRIC_SUSPENDED };

/* Zero f_ext and gen_force, then add gravity, host wrenches and every element. Needs
   the kinematics of the current q, v (mbs_kinematics). */
int mbs_forces_accumulate(mbs_data *d);
/* Potential energy of gravity plus every element that has one. */
double mbs_forces_potential(const mbs_data *d);

/* Add a world-frame force/torque acting at a point (body coordinates) of a body to f_ext. */
void mbs_forces_add_world_wrench(mbs_data *d, int body, const double force[3],
                                 const double torque[3], const double point[3]);

/* Ops tables of the element kinds (spring_damper.c, joint_spring_damper.c, callback.c,
   joint_force.c). */
extern const mbs_force_ops mbs_force_spring_damper_ops;
extern const mbs_force_ops mbs_force_joint_spring_damper_ops;
extern const mbs_force_ops mbs_force_callback_ops;
extern const mbs_force_ops mbs_force_two_masses_ops;

/* 1 for the line elements (spring-damper with or without point masses). */
int mbs_force_is_line(const mbs_force_model *f);
extern const mbs_force_ops mbs_force_joint_force_ops; /* joint_force.c */
/* Joint friction, brake and stop (src/elements/joint_friction.c, joint_stop.c). */
extern const mbs_force_ops mbs_force_joint_friction_ops;
extern const mbs_force_ops mbs_force_joint_brake_ops;
extern const mbs_force_ops mbs_force_joint_stop_ops;
extern const mbs_force_ops mbs_force_frame_force_ops; /* frame_force.c */
extern const mbs_force_ops mbs_force_line_law_ops;    /* line_law.c */

/* Line elements (line.c): world position and velocity of a body point (body coordinates),
   and the line between an element's two points: its length L, rate dL/dt and unit direction
   e = (p_b - p_a) / max(L, 1e-10) (fading to 0 when the points meet). */
#define MBS_LINE_L_SMALL 1e-10 /* below this length a line has no direction */
void mbs_point_state(const mbs_data *d, int body, const double point[3], double pos[3],
                     double vel[3]);
void mbs_point_position(const mbs_data *d, int body, const double point[3], double pos[3]);
double mbs_line_state(const mbs_force_model *f, const mbs_data *d, double *rate, double e[3]);
/* Length only (no velocities needed). */
double mbs_line_length(const mbs_force_model *f, const mbs_data *d);
/* Tension T pulling the element's two points together along e: +T e on body_a at point_a,
   -T e on body_b at point_b. */
void mbs_line_apply(const mbs_force_model *f, mbs_data *d, const double e[3], double tension);

#endif
