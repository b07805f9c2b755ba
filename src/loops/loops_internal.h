/* What the parts of the loop solver share (loops_select.c: workspace, selection, partition, queries;
 * loops_closure.c: Newton closure, projection, assembly; loops_dynamics.c: dynamics with
 * multipliers; loops_snap.c: what a failed step puts back). Not installed. */
#ifndef MBS_LOOPS_INTERNAL_H
#define MBS_LOOPS_INTERNAL_H

#include "loops/loops.h"

#include <math.h>
#include <stdlib.h>

#include "loops/analytic/closure.h"
#include "contact/contact.h"
#include "core/linalg.h"
#include "events/events.h"
#include "loops/constraints.h"
#include "loops/user_rows.h"
#include "core/dense.h"
#include "elements/couplings.h"

#define RANK_FLOOR 1e-3        /* |R_11| below this counts as this for the rank test */
#define PRIORITY_WEIGHT 0.25   /* column weight per state_priority level */
#define RETRY_GROWTH 2.0       /* after a repartition that found nothing better, the next try
                                  waits for a J_v this much worse */
#define MIN_STEP 0x1p-10       /* shortest fraction of a Newton step (10 halvings) */
#define COND_REFIT 1e8         /* J_v this ill-conditioned after assembly: select again */
#define NEWTON_FLOOR 0x1p-48   /* scaled residual at the rounding of its own evaluation
                                  (16 eps): where the smoothing's neighbours stop */
#define CHORD_RES 1e-8         /* Newton reuses the last LU of J_v below this residual... */
#define CHORD_COND 1e3         /* ... and condition estimate (tolerance and tangent need it) */
#define PROJECT_MAXIT 6        /* velocity projection corrections at most */
#define HOLD_TOL 1e-9          /* a held coordinate that assembly moved further (tangent
                                  units: rad, m) could not keep its value */
#define PREFER_COND 1.5        /* a partition of preferred coordinates (state_priority) this
                                  much worse conditioned than the best is singular there ... */
#define PREFER_BACK 1.2        /* ... and regular again below this (hysteresis) */
#define PREFER_RETRY 1.25      /* no better partition: look again at a J_v this much worse */

struct mbs_loops {
    mbs_con_topo t;
    int m, nv, nq, nb, mn;   /* rows, velocities, positions, bodies, min(m, nv) */
    /* Coordinate rows (events.h) are rows mcut .. m - 1; only the enabled ones take part in
       a selection (cand); without cut-joint rows the selection, partition and closure are
       direct (no QR, no Newton: the rows are distinct unit rows). */
    int mcut;                /* cut-joint rows (the model's ncon) */
    int *cand, ncand;        /* [m] rows of the selection: cut rows, then enabled coordinate rows */
    int rank_cut;            /* kept cut-joint rows: arow[0 .. rank_cut - 1] */
    int timed;               /* 1: prescribed motions, the closure depends on t too */
    double tcl;              /* time of the last successful closure */
    double *vt;              /* [m] velocity targets of the active rows (J_a v = vt) */
    int selected;            /* 1: rank, rows and partition below are valid */
    long nevents;            /* selections and repartitions made */
    long newton_iters;       /* Newton steps taken (mbs_loops_newton_iterations) */
    int rank;
    unsigned char *active;   /* [m] */
    int *arow, *drow;        /* [m] active (rank) and dropped (m - rank) rows, ascending */
    int *dep, *ind;          /* [nv] dependent (rank) and independent dofs, ascending */
    int *dep_bak, *ind_bak;  /* [nv] partition before a repartition attempt */
    double *weight;          /* [nv] partition column weights (state_priority) */
    double cond;             /* condition estimate of the last J_v factorisation */
    double cond_retry;       /* a repartition is tried when cond exceeds this (0: not set
                                yet, the first closure of a partition sets it) */
    double cond_smooth;      /* smoothing is tried when cond exceeds this (raised after a
                                smoothing that could not leave the near-singular region) */
    int node_floor;          /* 1 while a neighbour of the smoothed dynamics is closed */
    double shift_sm;         /* |tau v|_inf of the last smoothing, where the next one starts
                                (0: the last dynamics were not smoothed) */
    double *Sw;              /* [6 nv] world motion subspace */
    double *a0, *Vw, *Aw;    /* [6 nb] */
    double *h, *gam;         /* [m] */
    double *J;               /* [m nv] row-major Jacobian rows (all rows, or active rows) */
    double *qr, *qtau, *qwork; /* [m nv], [max(m, nv)], [lqwork] */
    int *jpvt;               /* [max(m, nv)] */
    int lqwork;
    double *LU;              /* [mn mn] LU of J_v, column-major */
    int *ipiv;               /* [mn] */
    double *K;               /* [mn mn] J_a M^-1 J_a^T or J_a J_a^T (Cholesky) */
    double *Y;               /* [nv mn] J_a^T, column-major (inverse dynamics) */
    double *Z;               /* [mn maxclo] L^-T J_a^T on each row's closure (constraints.h) */
    const double *M;         /* the factor of M in d->M while gram_mass runs */
    double *x, *y, *dv;      /* [max(m, nv)] scratch, [nv] Newton step */
    double *qbak, *vbak, *qprev; /* [nq], [nv], [nq] */
    double *qacc_bak, *lam_bak;  /* [nv], [m] */
    double *qcl, *vcl;       /* [nq], [nv] state of the last successful closure */
    double *qsm, *vsm;       /* [nq], [nv] state whose accelerations are being smoothed */
    double *acc_sm, *lam_sm; /* [nv], [m] smoothed accelerations and multipliers */
    int closed_valid;
    int lu_ok;               /* 1: LU holds a factorisation of J_v for the current partition */
    int lu_here;             /* 1: ... made at the data's current q */
    int jac_closed;          /* 1: J holds J_a of the closed state (qcl) */
    /* coordinates held at assembly (mbs_set_joint_hold): the model's mask, NULL if none */
    const unsigned char *hold;
    int hold_pass;           /* 1 while mbs_loops_assemble runs: partitions prefer them */
    int prefer;              /* some joint has a state_priority (weights not all 1) */
    int keep_pref;           /* 1 while an assembly or analysis makes the partition: its
                                weights as they are (the preferred coordinates keep their
                                values), no switch to the best partition */
    int pref_off;            /* the partition is the best one, not the preferred (singular
                                at the partition's q) */
    double pref_retry;       /* the preferred J_v's condition at the last failed attempt */
    double cond_sel;         /* J_v's condition relative to the rows (loops_jv_cond): what
                                the repartitions compare (cond: its own, the tolerances') */
};


/* Largest of two ints. */
static inline int imax(int a, int b) { return a > b ? a : b; }

/* Label of the cut joint that owns row r. */
const char *loops_row_label(const mbs_data *d, const mbs_loops *L, int r, char *buf, int len);
/* Index i of the largest |x[i]| (0 when n == 0). */
int loops_argmax_abs(const double *x, int n);
/* Sw and the scaled Jacobian rows `rows` (NULL: all) into L->J at the current kinematics. */
void loops_eval_jacobian(mbs_data *d, mbs_loops *L, const int *rows, int n);
/* The rows of a selection into L->cand: every cut-joint row, then the enabled coordinate
   rows, ascending. */
void loops_candidates(const mbs_data *d, mbs_loops *L);
/* Pivoted QR of the weighted active rows J_a (rank x nv): the first rank pivots are the
   dependent coordinates (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models" eq. 10); during assembly held coordinates are taken only
   when the others do not suffice (take_held). Needs L->J of the active rows. */
int loops_partition(mbs_data *d, mbs_loops *L);
/* A fresh selection at the data's q: kinematics, all rows, RRQR, loops_partition (an event). */
int loops_select_all(mbs_data *d, mbs_loops *L);
/* LU of J_v (active rows x dependent columns of L->J) and its condition estimate
   max |U_ii| / min |U_ii|; MBS_ERR_SINGULAR on a zero pivot. */
int loops_factor_jv(mbs_data *d, mbs_loops *L);
/* LU of J_v into L->LU for the dependent dofs in L->dep: its condition relative to the rows
   (INFINITY when singular; no message) and into *piv max |U_ii| / min |U_ii|. */
double loops_jv_cond(mbs_loops *L, double *piv);
/* At a closed state while the partition is not the preferred one: back to the preferred one
   when it is regular here again (an event); a status. */
int loops_prefer_back(mbs_data *d, mbs_loops *L);
/* Active Jacobian rows and the LU of J_v at the current kinematics. */
int loops_jac_factor(mbs_data *d, mbs_loops *L);
/* x = J_v^-1 b in place (r values). */
void loops_jv_solve(mbs_loops *L, int trans, double *x);
/* Newton (a new partition first when J_v is singular at q and flags allow), dropped-row
   check, repartition when ill-conditioned, velocity projection. */
int loops_close_once(mbs_data *d, mbs_loops *L, int flags);
/* Remember the closed state (mbs_loops_is_closed); jac: L->J holds J_a at it. Curve joints
   keep their contact parameters as the next start (src/contact/). */
void loops_mark_closed(mbs_data *d, mbs_loops *L, int jac);
/* Newton closure: an inconsistency found with the current selection gets one fresh
   selection at the closed q before it is reported; with MBS_CLOSE_RECOVER so does any other
   failure (from the given q). */
int loops_newton_close(mbs_data *d, int flags);
/* Newton assembly (mbs_loops_assemble when the analytic strategy defers). When the closure
   fails with the held coordinates independent, an assembly without the holds tells whether
   their values are the cause: if it closes, the held coordinate it moved is reported
   (MBS_ERR_INCONSISTENT) and q, v are restored; if it fails too, its status and message are
   returned. */
int loops_newton_assemble(mbs_data *d);
/* Active rows J_a (kept from the closure when the state is the closed one) and
   gam_a = (J̇q̇)_a at the prepared kinematics. */
void loops_eval_rows_bias(mbs_data *d, mbs_loops *L);
/* The direct dynamics, or at a closed near-singular state with v != 0 the smoothed one;
   qacc and lambda are kept as they were on failure. */
int loops_newton_forward(mbs_data *d);
/* MBS_ERR_INCONSISTENT when qacc violates J_a qacc + gam_a = 0 (relative 1e-6) on the
   first r active rows. */
int loops_check_accel(mbs_data *d, mbs_loops *L, const double *qacc, int r);

/* When the planar path's closed forms serve, make their dependent dofs the partition (an
   event when it changes); a status. */
int loops_sync_partition(mbs_data *d, mbs_loops *L);

#endif
