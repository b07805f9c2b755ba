/* The stepper object and the small internal vtable of its kinds (Euler, RK4, CVODE Adams,
 * CVODE BDF). stepper.c owns the lifecycle, the validation, the backup/restore that makes a
 * failed step leave the data untouched, and the post-step work (quaternion normalisation,
 * Cardan re-base events), and the split of a call into substeps of at most max_step for
 * fixed-step kinds. A kind only advances the data from the start state (t0, q0, v0).
 *
 * Closed loops: the start state of a step is closed first (loops.h); every
 * evaluation (mbs_stepper_eval) closes the loops of the stage state holding the independent
 * coordinates u and projects v before the dynamics, so the kinds integrate (u, u') (the
 * dependent coordinates they carry along are only the Newton predictor); after every step
 * the state is closed and projected again. A new selection or partition is an event.
 *
 * User states (src/ustates/): the nux states x of the data are integrated with q and v in
 * one state vector by every kind; each evaluation leaves their derivatives in d->uxdot. A
 * kind starts them from x0 and writes the end values into d->ux; backup and restore
 * include them. */
#ifndef MBS_SOLVERS_STEPPER_H
#define MBS_SOLVERS_STEPPER_H

#include "core/internal.h"

typedef struct mbs_stepper_vtable mbs_stepper_vtable;

#define MBS_EULER_NRUN 5 /* thresholds of Euler's divergence guard (stepper_guard.c) */

struct mbs_stepper {
    mbs_data *d;
    mbs_stepper_def def;
    const mbs_stepper_vtable *kind;
    int nq, nv, naux;
    int nux;        /* user states */
    /* state at the start of the current (sub)step, where a kind's step starts from */
    double t0;
    double *q0;     /* [nq] */
    double *v0;     /* [nv] */
    double *x0;     /* [nux] user states */
    /* the data before the mbs_stepper_step call: restored bit for bit on failure */
    double bak_t;
    double *bak_q;    /* [nq] */
    double *bak_v;    /* [nv] */
    double *bak_aux;  /* [naux] (NULL if naux == 0) */
    double *bak_qacc; /* [nv] */
    double *bak_lambda; /* [ncon] */
    double *bak_x;    /* [nux] user states */
    struct mbs_loops_snap *bak_loops; /* the loop solver's carried-over state (loops.h;
                                         NULL without loops) */
    int nrebase;
    int *rebase;    /* [nrebase] tree joints that have a rebase op (Cardan) */
    double *work;   /* kind scratch (fixed-step stages), sized by the kind at create */
    double *errw;   /* local-error estimate scratch (stepper_error.c), NULL when off */
    void *impl;     /* kind state (CVODE memory) */
    /* local-error estimate: time and loop-event count at the start of the checked step */
    double err_t0;
    long err_loops;
    /* ... and the loop solver's state at that start and after the full step, so that the
       half steps start as the full one did and the data keeps the full step's (NULL
       without loops or without the estimate) */
    struct mbs_loops_snap *err_loops0, *err_loops1;
    /* state events (stepper_events.c; src/events/events.h): NULL when the model has no
       event functions */
    struct mbs_stepper_events *ev;
    /* the data's input_rev and the model's param_rev at the last step: a change (a
       two-frame force input, a parameter) restarts a multistep kind */
    unsigned long input_rev, param_rev;
    int motions_checked; /* 1 once the motions' derivatives passed their check */
    /* the cut-joint rank of the loops' selection at time loop_rank_t (the end of the last
       step or the start of this one; -1: none) and the cut joint of a row it dropped */
    int loop_rank;
    double loop_rank_t;
    char loop_dropped[96];
    /* Euler's divergence guard (stepper_guard.c): the last step's h and end time (eg_valid:
       they and the acceleration in s->work describe the step just taken), and the lengths
       of the runs of reversing growth per threshold */
    int eg_valid;
    double eg_h, eg_t;
    int eg_run[MBS_EULER_NRUN];
    mbs_work seen;  /* the counters of the call with the most work units so far */
};

struct mbs_stepper_vtable {
    const char *name;
    int order;    /* order of the method (the local error's exponent is order + 1); 0: CVODE */
    int stages;   /* evaluations per step (fixed-step kinds; 0: CVODE, variable) */
    /* 1: a call with dt > max_step > 0 takes ceil(dt / max_step) equal steps (fixed-step
       kinds); 0: the kind honours max_step itself (CVODE) */
    int substeps;
    /* 1: a stage evaluation whose loop closure fails (singular J_v, no convergence) may pick
       a new partition or selection (fixed-step kinds, which cannot retry); 0: it reports a
       recoverable failure and CVODE retries with a shorter step. Partitions that only got
       ill-conditioned are renewed between steps. */
    int stage_recover;
    /* 1: the kind finds the crossings of event functions itself (CVODE's root finding) and
       calls mbs_stepper_events_fire there; 0: stepper_events.c locates them in each step */
    int roots;
    /* Take every allocation the kind needs (s->work, s->impl); status + message in s->d. */
    int (*init)(mbs_stepper *s);
    /* Free what init took; s->impl may be partly built. */
    void (*fini)(mbs_stepper *s);
    /* Advance the data from (t0, q0, v0, x0) by dt: d->time, d->q, d->v, d->ux at t0 + dt. May leave
       the data dirty on failure (stepper.c restores the backup). Status + message. */
    int (*step)(mbs_stepper *s, double dt);
    /* The data's state is now where the integrator continues from; event != 0: it jumped
       (re-base, failed step restored), so a multistep method must restart. */
    void (*sync)(mbs_stepper *s, int event);
};

/* The kind's start (t0, q0, v0, x0) = the data's time, q, v and user states. */
void mbs_stepper_set_start(mbs_stepper *s);
/* One (sub)step of h from the data's state (mbs_stepper_set_start done): the kind's step, then
   normalisation, finiteness, loop closure and Cardan re-base; *event set on a re-base. */
int mbs_stepper_substep(mbs_stepper *s, double h, int *event);
/* The local-error estimate (stepper_error.c): scratch at create when the def asks for it
   (s->errw, NULL otherwise; MBS_ERR_NOMEM), and a substep with its estimate. error_begin
   saves the data's state as the start of a step; error_check, with the data holding that
   step's result (of h, event: a re-base happened in it), takes the two half steps and
   compares, the data keeping the step's result. */
int mbs_stepper_error_init(mbs_stepper *s);
int mbs_stepper_error_step(mbs_stepper *s, double h, int *event);
void mbs_stepper_error_begin(mbs_stepper *s);
int mbs_stepper_error_check(mbs_stepper *s, double h, int event);

/* Close the loops and coordinate rows of the data's state (holding u, motions at the data's
   time) and project v, as at the start and end of a step; the message says where. */
int mbs_stepper_close(mbs_stepper *s, const char *where);

/* State events (stepper_events.c): init/fini at create/destroy (s->ev NULL without event
   functions); backup/restore of the modes and inputs with the step's backup; begin: at the
   start of a step, the modes made consistent with the state the host left (the loops closed
   there) and the event functions evaluated, *event set when a mode changed; end: after a
   successful step; substep: a fixed-step kind's substep of h with the crossings located,
   their handlers run and the integration restarted after each; fire: the handlers of the
   functions flagged in fired ([nfn]: +1 rose, -1 fell, 0 not) at the data's state, then
   the modes settled (CVODE calls it at its roots); g: the functions at the data's state;
   dirs: the directions that count ([nfn], for CVODE). */
int mbs_stepper_events_init(mbs_stepper *s);
void mbs_stepper_events_fini(mbs_stepper *s);
void mbs_stepper_events_backup(mbs_stepper *s);
void mbs_stepper_events_restore(mbs_stepper *s);
int mbs_stepper_events_begin(mbs_stepper *s, int *event);
void mbs_stepper_events_end(mbs_stepper *s);
int mbs_stepper_events_substep(mbs_stepper *s, double h, int *event);
/* The most work of a call of n substeps with event location (stepper_bound.c's terms: one
   evaluation, one closure, one plain substep, one substep with the error estimate) into
   *cap: every piece at its trial cap, the most crossings a call handles. */
void mbs_stepper_events_worst(const mbs_stepper *s, long n, const mbs_work *eval,
                              const mbs_work *close, const mbs_work *sub, mbs_work *cap);
/* Substeps of a call of dt (ceil(dt / max_step) for fixed-step kinds, else 1; < 0: over
   max_internal_steps). */
long mbs_stepper_substeps(const mbs_stepper *s, double dt);
int mbs_stepper_events_fire(mbs_stepper *s, const int *fired);
int mbs_stepper_events_g(mbs_stepper *s, double *g, const char *where);
void mbs_stepper_events_dirs(const mbs_stepper *s, int *dir);

extern const mbs_stepper_vtable mbs_stepper_vt_euler;
extern const mbs_stepper_vtable mbs_stepper_vt_rk4;
extern const mbs_stepper_vtable mbs_stepper_vt_cvode_adams;
extern const mbs_stepper_vtable mbs_stepper_vt_cvode_bdf;

/* Forward dynamics at the data's current t, q, v with a finite-qacc check; on failure the
   message is prefixed with `where`. With cut joints the loops of q are closed first (holding
   u) and v is projected, in place. *recoverable (nullable) is set to 1 when a force callback
   asked for a retry (returned > 0) or the closure failed (a shorter step may succeed). */
int mbs_stepper_eval(mbs_stepper *s, const char *where, int *recoverable);

/* q_out = integrate(q, v, h) over the model (mbs_integrate_q); a non-finite v is
   MBS_ERR_NONFINITE with a message. q_out must not alias q. */
int mbs_stepper_integrate(mbs_stepper *s, const double *q, const double *v, double h,
                          double *q_out);

/* RK4's divergence guard (stepper_guard.c): h |lambda| of the fastest mode estimated from
   the stage velocity V1, accelerations A[0..3] and user-state derivatives K[0..3] of a step
   of h (0 when the stages differ
   only by rounding), and the check that fails the step (MBS_ERR_SOLVER) above the method's
   stability bound unless def.no_divergence_guard. */
double mbs_rk4_stiffness(const mbs_stepper *s, double h, const double *V1,
                         const double *const A[4], const double *const K[4]);
int mbs_rk4_guard(mbs_stepper *s, double h, const double *V1, const double *const A[4],
                  const double *const K[4]);
/* Euler's divergence guard (stepper_guard.c): the end velocity v1 and acceleration a of a
   step of h from s->t0, s->v0 against the last step's; MBS_ERR_SOLVER when the motion
   reverses and grows every step beyond the method's stability (unless
   def.no_divergence_guard); reset forgets the last step (a jump, a restored failure). */
int mbs_euler_guard(mbs_stepper *s, double h, const double *v1, const double *a);
void mbs_euler_guard_reset(mbs_stepper *s);

#endif
