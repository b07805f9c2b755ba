/* State events, prescribed motion, joint friction with locking, brakes and stops
 * (Otter, Elmqvist, Mattsson 1999, "Hybrid modeling in Modelica based on the
 * synchronous data flow principle" for the variable-structure friction).
 *
 * One mechanism serves them all:
 *  - Coordinate rows. A prescribed motion, a locked friction (or brake) and a restitution
 *    stop in resting contact each hold one scalar coordinate q_k of a tree joint with a
 *    constraint row h = q_k - target (rheonomic for a motion: target p(t)). The rows are
 *    numbered after the cut-joint rows (row ncon + k); the loop machinery (src/loops/
 *    loops_select.c, constraints.c) selects, closes and solves them like cut-joint rows, and their
 *    multipliers are kept in data->lambda[ncon + k] (the public lambda shows the first
 *    ncon). A row is enabled or disabled by the element's mode; a change renews the
 *    selection (an integrator event).
 *  - Event functions. Every user event, friction element and stop contributes scalar
 *    zero-crossing functions (mbs_events_eval): user g, the sliding rate, the margin of the
 *    holding force to the break-away limit, the distance to a limit or the contact force.
 *    The steppers locate their sign changes (stepper_events.c, stepper_cvode.c) and call
 *    mbs_events_fire there; the mode changes and user handlers run in it.
 * Everything is sized at compile / data / stepper creation; nothing here allocates after
 * that. */
#ifndef MBS_EVENTS_EVENTS_H
#define MBS_EVENTS_EVENTS_H

#include "core/internal.h"

/* ---------------------------------------------------------------- model */

typedef struct mbs_event_model {
    char *name;              /* never NULL ("" if unnamed) */
    mbs_event_fn g;
    mbs_event_handler h;     /* NULL: restart only */
    void *user;
} mbs_event_model;

typedef struct mbs_motion_model {
    int joint, dof;
    int qindex, vindex;
    int row;                 /* its coordinate row */
    mbs_motion_fn fn;
    void *user;
} mbs_motion_model;

/* What holds a coordinate row. */
typedef enum mbs_qrow_kind { MBS_QROW_MOTION, MBS_QROW_FRICTION, MBS_QROW_STOP } mbs_qrow_kind;

/* One coordinate row: h = scale (q[qindex] - target), J = scale e_vindex. */
typedef struct mbs_qrow {
    mbs_qrow_kind kind;
    int owner;               /* motion index, or force element id (friction, brake, stop) */
    int joint, dof, qindex, vindex;
    double scale;            /* 1 for angles, 1 / (loop length scale) for displacements */
} mbs_qrow;

typedef struct mbs_events_model {
    int nevent;
    mbs_event_model *events;  /* [nevent] */
    int nmotion;
    mbs_motion_model *motions; /* [nmotion] */
    int nqrow;
    mbs_qrow *qrows;          /* [nqrow]: motions, then frictions/brakes, then restitution
                                 stops, each in element order */
    int nfric;
    int *fric;                /* [nfric] force element ids of frictions and brakes */
    int nstop;
    int *stop;                /* [nstop] force element ids of stops */
    int *fric_stop;           /* [nfric] slot of the restitution stop on the same dof, or -1 */
    int *stop_fric;           /* [nstop] slot of the friction on the same dof, or -1 */
    int *stop_row;            /* [nstop] coordinate row of a restitution stop, or -1 */
    int nfn;                  /* event functions: nevent user, then one per friction, then
                                 two per stop (lower, upper) */
    int need_events;          /* 1: the steppers locate event functions (nfn > 0) */
} mbs_events_model;

/* Coordinate rows of a model (0 without events). */
static inline int mbs_nqrow(const mbs_model *m) { return m->ev ? m->ev->nqrow : 0; }

/* Compile: validate the elements against the tree and build m->ev (NULL when there is
   nothing). The force elements (friction, brake, stop) are already in m->forces with their
   q and v indices. MBS_OK or a status with the message in err. */
int mbs_events_compile(const struct mbs_builder *b, mbs_model *m, char *err);
void mbs_events_model_free(mbs_events_model *ev);
/* The coordinate rows' scales again after the loops' length scale changed (a geometry
   parameter, src/model/params_geometry.c). */
void mbs_events_rescale(mbs_model *m);

/* ---------------------------------------------------------------- data */

/* Restitution stop modes. */
enum { MBS_STOP_FREE, MBS_STOP_AT_LOWER, MBS_STOP_AT_UPPER };

/* The discrete state the steppers back up and restore with t, q, v. */
typedef struct mbs_ev_state {
    unsigned char *row_on;    /* [nqrow] */
    double *row_pos;          /* [nqrow] position target of a lock or contact row */
    int *fmode;               /* [nfric] */
    double *flimit;           /* [nfric] brake: host limit (sliding force); friction: unused */
    int *smode;               /* [nstop] */
    long *count;              /* [nevent] handler calls */
} mbs_ev_state;

typedef struct mbs_events_data {
    mbs_ev_state st;
    double *row_vel, *row_acc; /* [nqrow] velocity and acceleration targets */
    double *fforce;           /* [nfric] sliding force at the last force accumulation */
    double target_time;       /* motion targets are those of this time ... */
    int target_valid;         /* ... when set */
    long rows_serial;         /* changes whenever a row is enabled or disabled */
    int direction;            /* inside a user handler: +1 / -1; 0 otherwise */
    int in_handler;           /* 1 + event id while a user handler or g runs */
} mbs_events_data;

/* Allocate d->ev (nothing for a model without events); MBS_OK or MBS_ERR_NOMEM. */
int mbs_events_data_create(mbs_data *d);
void mbs_events_data_destroy(mbs_data *d);
int mbs_ev_state_alloc(const mbs_model *m, mbs_ev_state *s);
void mbs_ev_state_free(mbs_ev_state *s);
void mbs_ev_state_copy(const mbs_model *m, mbs_ev_state *dst, const mbs_ev_state *src);

/* Motion targets at the data's time (the user functions run once per distinct time);
   MBS_OK or MBS_ERR_CALLBACK / MBS_ERR_NONFINITE naming the motion. */
int mbs_events_update_targets(mbs_data *d);
/* The motions' velocities and accelerations against finite differences of their positions
   and velocities at the data's time and dt / 2 later, sampled within [t, t + dt]
   (motion_check.c): MBS_OK, or MBS_ERR_INCONSISTENT (MBS_ERR_CALLBACK, MBS_ERR_NONFINITE)
   naming the motion. */
int mbs_events_check_motions(mbs_data *d, double dt);
/* Enable (on = 1, with its position target) or disable a coordinate row. */
void mbs_events_set_row(mbs_data *d, int row, int on, double pos);
/* 1 when some coordinate row is enabled. */
int mbs_events_rows_on(const mbs_data *d);

/* Friction / brake break-away and sliding limits of friction slot i. */
double mbs_fric_stiction(const mbs_data *d, int i);
double mbs_fric_coulomb(const mbs_data *d, int i);

/* ---------------------------------------------------------------- the steppers' side */

/* Which crossings of function i count: -1 falling only, +1 rising only, 0 both. */
int mbs_events_direction(const mbs_data *d, int i);
/* 1 when some event function needs the dynamics (lambda) of the state it is evaluated at
   (a locked friction, a stop in contact). */
int mbs_events_need_dynamics(const mbs_data *d);
/* g (nfn) at the data's state; the caller has closed the loops and, when
   mbs_events_need_dynamics, evaluated the dynamics there. A non-finite user g is
   MBS_ERR_NONFINITE naming the event. */
int mbs_events_eval(mbs_data *d, double *g);
/* 1 when the change a -> b of function i is a crossing that counts (its direction): a sign
   change away from a nonzero value, or a falling-only function leaving 0 downwards. */
int mbs_events_crossed(const mbs_data *d, int i, double a, double b);

/* Mode changes (event_modes.c), run by the steppers with their evaluation:
   host rules: the modes made consistent with a state the host or a handler set (a friction
   at rest locks, one moving slides its way; a restitution stop reached moving outward is an
   impact, one left is released), for the dofs that differ from q_ref, v_ref (NULL: all);
   resolve: the locks and contacts kept are those whose holding forces stay within limits;
   internal: what a crossing of function i starts (a friction's rate reaching zero: a
   tentative lock; a restitution stop reached: the impact). *changed is set on a change. */
/* The joint and dof of an element (or a joint coupling) must be a scalar dof (q and v of
   the same meaning) of a tree joint; writes its q and v index. label names the element. */
int mbs_resolve_scalar_dof(const mbs_model *m, const char *label, int joint, int dof, int *qi,
                           int *vi, char *err);
int mbs_events_host_rules(mbs_stepper *s, const double *q_ref, const double *v_ref, int *changed);
int mbs_events_resolve(mbs_stepper *s, int *changed);
int mbs_events_internal(mbs_stepper *s, int i);

#endif
