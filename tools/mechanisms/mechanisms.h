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
    const char *source; /* where it comes from (paper: authors, year, title, section; MSL) */
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
    const char *path;         /* model file (built by mbs_builder_load, started at its
                                 start values; closure from sim_model_closure); NULL: C */
    const char *dir;          /* the model file's folder (mesh visuals) */
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

/* ---- helpers for the loop mechanisms */
/* Mass properties of one rigid part in body coordinates: mass, centre of mass, inertia about
   the centre of mass (row-major). */
typedef struct mech_part {
    double mass, com[3], inertia[9];
} mech_part;
#define MECH_DENSITY 7700.0 /* steel, the MSL BodyBox/BodyCylinder default [kg/m^3] */
#define MECH_PI 3.14159265358979323846
/* Solid steel cylinder of the given diameter from point a to point b (MSL BodyCylinder). */
mech_part mech_cylinder(const double a[3], const double b[3], double diameter);
/* Solid steel box from a to b, width along width_dir (made orthogonal to b - a), height
   along the third direction (MSL BodyBox). */
mech_part mech_box(const double a[3], const double b[3], double width, double height,
                   const double width_dir[3]);
/* Body definition of n parts joined rigidly: total mass, common centre of mass, inertia about
   it (parallel-axis theorem). */
mbs_body_def mech_parts_body(const char *name, const mech_part *parts, int n);
/* Joint of any type from parent (frame at ppos, identity rotation) to child (frame at cpos,
   NULL: the child's origin) with the given axis (NULL: the type's default). */
mbs_joint_def mech_joint(mbs_joint_type type, const char *name, int parent, int child,
                         const double ppos[3], const double cpos[3], const double axis[3]);
/* Id of the named body of the data's model (closure functions find their bodies this way);
   negative if there is none. */
int mech_body_id(mbs_data *d, const char *name);
/* |R_a a x R_b b|: sine of the angle between the unit axis a of body_a and the unit axis b of
   body_b (body coordinates); NaN if a pose query fails. */
double mech_axis_gap(mbs_data *d, int body_a, const double a[3], int body_b, const double b[3]);
/* (R_a a) . (R_b b): cosine of the angle between the unit axes a of body_a and b of body_b
   (body coordinates); NaN if a pose query fails. */
double mech_axis_dot(mbs_data *d, int body_a, const double a[3], int body_b, const double b[3]);
/* Distance of point pb of body_b from the line through point pa of body_a along its unit
   axis (body coordinates); NaN if a pose query fails. */
double mech_line_gap(mbs_data *d, int body_a, const double pa[3], const double axis[3], int body_b,
                     const double pb[3]);

#endif
