/* Built-in mechanisms of mbs-sim: one file per mechanism in this folder, listed in
 * registry.c. Each mechanism is a constant table entry: how to build it with the public mbs
 * API, how to start it, and what a sane run looks like (see README.md here). */
#ifndef MBS_SIM_MECHANISMS_H
#define MBS_SIM_MECHANISMS_H

#include <stddef.h>

#include <mbs/mbs.h>

/* What the energy of a run should do at the mechanism's default settings. */
typedef enum mech_energy {
    MECH_CONSERVATIVE, /* no dissipation, no drive: |E(t) - E(0)| stays within energy_tol */
    MECH_DISSIPATIVE,  /* dampers only: E(t) never rises above E(0) by more than energy_tol */
    MECH_DRIVEN        /* external work (actuators, callbacks): no energy check */
} mech_energy;

/* A point of a body whose world position is recorded (CSV columns x.label, y.label, z.label). */
typedef struct mech_point {
    const char *label; /* column suffix; NULL ends a list */
    const char *body;  /* body name */
    double point[3];   /* body coordinates */
} mech_point;

typedef struct mech {
    const char *name;   /* command-line name: lower case, digits and '_' */
    const char *title;  /* one line: what it is */
    const char *source; /* where it comes from, e.g. "seed 000 §2; MSL Elementary.Pendulum" */
    /* Add bodies, joints and force elements to an empty builder (gravity included);
       returns MBS_OK or the first failing status (the builder holds the message). */
    int (*build)(mbs_builder *b);
    /* Set the initial state on data created from the compiled model (q starts neutral, v
       zero); NULL: start at neutral and rest. Returns MBS_OK or a status. */
    int (*init)(mbs_data *d);
    /* Loop-closure residual of the current state (e.g. the largest gap between the two
       frames of a cut joint, from mbs_body_pose); NULL for a tree. */
    double (*closure)(mbs_data *d);
    double t_end;             /* default simulated time [s] */
    mbs_stepper_kind stepper; /* default stepper */
    double dt;                /* default step (Euler, RK4) or output interval (CVODE) [s] */
    double rtol, atol;        /* default CVODE tolerances */
    mech_energy energy;       /* energy behaviour for the sanity check */
    double energy_tol;        /* relative to the energy scale of the run */
    double closure_tol;       /* largest closure residual allowed (loops only) */
    const mech_point *track;  /* recorded points, ended by a NULL label; NULL: none */
    const char *const *plot;  /* default plot signals (CSV column names); NULL end */
} mech;

/* All built-in mechanisms, in listing order; *count receives their number. */
const mech *const *mech_all(size_t *count);
/* The mechanism called name, or NULL. */
const mech *mech_find(const char *name);

/* ---- helpers for mechanism files (registry.c) */
/* Body definition of a homogeneous box: length lx along x from the body origin (com at
   lx/2 on x), cross-section ly x lz, given mass. */
mbs_body_def mech_box_body(const char *name, double mass, double lx, double ly, double lz);
/* Body definition with mass, com and principal moments (inertia diag(ixx, iyy, izz)). */
mbs_body_def mech_body(const char *name, double mass, const double com[3], double ixx, double iyy,
                       double izz);
/* Revolute joint from parent (at pos on the parent) to child (at the child's origin). */
mbs_joint_def mech_revolute(const char *name, int parent, int child, const double pos[3],
                            const double axis[3]);
/* Distance between point pa on body a and point pb on body b, in world coordinates (a
   closure residual for loop mechanisms); NaN if a pose query fails. */
double mech_point_gap(mbs_data *d, int body_a, const double pa[3], int body_b, const double pb[3]);
/* Quaternion (w, x, y, z) of the rotation Rx(a1) Ry(a2) Rz(a3). */
void mech_cardan_quat(double a1, double a2, double a3, double quat[4]);

#endif
