/* The analyses a designer or a controller asks the model (Docquier, Poncelet, Fisette 2013,
 * "ROBOTRAN: a powerful symbolic generator of multibody models", §2.2.2 and §4.3.1):
 * inverse dynamics with actuated coordinates (actuated.c), static equilibrium
 * (equilibrium.c), position solving / inverse kinematics (positions.c). Their workspace lives
 * in the data (d->analysis), sized at mbs_data_create: nothing here allocates after that. */
#ifndef MBS_ANALYSIS_ANALYSIS_H
#define MBS_ANALYSIS_ANALYSIS_H

#include "core/internal.h"

typedef struct mbs_analysis {
    int nq, nv, m;          /* coordinates, velocities, constraint rows */
    double *q0, *v0;        /* [nq], [nv] the caller's state (restored on failure) */
    double *qb, *qt;        /* [nq] base of an iteration, trial configuration */
    double *dv, *step;      /* [nv] tangent displacement, iteration step */
    double *g, *r, *rt;     /* [nv] generalized forces, reduced forces, trial residual */
    double *s;              /* [nv] scales (equilibrium: symmetric equilibration) */
    double *A;              /* [nv nv] Jacobian of the reduced forces / normal matrix */
    double *B;              /* [nv (nv + 1)] right-hand sides, Q^T [E psi] (actuated) */
    double *QJ;             /* [nv mn] J_a^T and its QR (actuated), loop rows (positions) */
    double *h;              /* [max(m, 6)] loop residuals */
    double *J6;             /* [6 nv] a point Jacobian */
    double *tau;            /* [nv + 1] Householder scalars */
    double *work;           /* [lwork] LAPACK workspace */
    int lwork;
    int *jpvt;              /* [nv + 1] pivots */
    int *idx;               /* [nv] coordinate lists (free independent dofs, ...) */
    unsigned char *hold;    /* [nv] dofs held (fixed mask) */
    struct mbs_loops_snap *loops_bak; /* the loop solver's state before (NULL: no loops;
                                         made by mbs_data_create once the loops exist) */

    /* joint reactions (reaction.c): the subtree forces of one state, reused by every
       joint's query while the state they were computed from is unchanged */
    int react_valid;
    double *react_f;        /* [6 nbody] RNEA backward-pass forces, body coordinates */
    mbs_pose *react_x;      /* [nbody] world poses of that state */
    double *react_key;      /* [nq + 3 nv + ncon + nqrow + naux + 1] q, v, qacc, tau,
                               lambda (cut and coordinate rows), aux, t */
    unsigned long react_param_rev, react_input_rev; /* the model's parameter and the data's
                               input revisions of that state (params.c, frame forces) */
    mbs_wrench_input *react_w; /* [nbody] host wrenches of that state */
    /* reaction frictions (reaction_friction.c): qacc and lambda before the iteration */
    double *rf_qacc, *rf_lambda; /* [nv + 1], [ncon + nqrow + 1] */
} mbs_analysis;

/* Force and torque (world, at the child frame's origin) that tree joint `joint` transmits at
   the last dynamics evaluation (reaction.c): mbs_joint_reaction without its checks. */
int mbs_reaction_tree(mbs_data *d, int joint, double force[3], double torque[3]);
/* Forward dynamics with the limits of the reaction frictions solved with it (reaction_
   friction.c): `once` evaluated until the limits settle; its status, or MBS_ERR_CONVERGENCE
   with qacc and lambda as they were. */
int mbs_reaction_friction_forward(mbs_data *d, int (*once)(mbs_data *d));

/* 1 when the reaction cache holds the forces of the data's current state. */
int mbs_analysis_reaction_hit(const mbs_data *d);
/* Store the current state's key, poses and RNEA forces (d->f) in the reaction cache. */
void mbs_analysis_reaction_store(mbs_data *d);

/* Allocate d->analysis (MBS_OK or MBS_ERR_NOMEM) / free it. */
int mbs_analysis_create(mbs_data *d);
void mbs_analysis_destroy(mbs_data *d);

/* Save q, v of the caller (into q0, v0) and the loop solver's state (loops_bak) / put them
   back (a failed analysis leaves the data as it was). */
void mbs_analysis_save(mbs_data *d);
void mbs_analysis_restore(mbs_data *d);

/* Validate a `fixed` mask (nv, nullable) for call: entries 0 or 1, and a quaternion joint's
   three rotation dofs all held or all free; copies it into the workspace's hold (all 0 for
   NULL). MBS_ERR_ARG naming the index and joint. */
int mbs_analysis_check_mask(mbs_data *d, const char *call, const unsigned char *fixed);

/* With loops: a partition that keeps the held coordinates (hold) independent; MBS_ERR_ARG
   with the loops' message when they leave a loop unable to close. */
int mbs_analysis_hold_partition(mbs_data *d, const char *call);
/* With loops: the usual partition (state_priority, nothing held) at the data's q, so that the
   analyses leave no held coordinates behind for mbs_assemble and the steppers. When there is
   none (the rows are dependent there), q, v and the loop solver's state are put back as
   mbs_analysis_save left them, and the status is returned. */
int mbs_analysis_usual_partition(mbs_data *d);

/* The cut joint whose loop contains dof k (its tree paths from the cut joint's two bodies to
   their common ancestor), or -1. */
int mbs_analysis_loop_of_dof(const mbs_model *m, int k);

/* x = q (+) alpha dv with quaternions normalised. */
void mbs_analysis_move(const mbs_model *m, const double *q, const double *dv, double alpha,
                       double *x);

/* J (6 x nv) of the world point p moving with body, at the poses and S of
   mbs_kinematics_subspace (queries.c). */
void mbs_point_jacobian_world(const mbs_data *d, int body, const double p[3], double *J);

/* Largest |x_i|, and its index into *at (nullable). */
double mbs_analysis_maxabs(const double *x, int n, int *at);

#endif
