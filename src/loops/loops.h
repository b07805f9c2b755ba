/* Closed kinematic loops (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models" §2.2.1; Elmqvist, Mattsson, Chapuis 2009, "Redundancies in Multibody Systems and Automatic Coupling of CATIA and Modelica" §6): redundancy selection,
 * coordinate partitioning, Newton-Raphson closure, velocity projection and the dynamics with
 * multipliers. The workspace and the current selection live in the data (d->loops), sized
 * at mbs_data_create; nothing here allocates after that.
 *
 * Selection (Elmqvist, Mattsson, Chapuis 2009 §6): a QR with column pivoting (dgeqp3) of the scaled J^T picks the
 *   independent rows; rank = number of |R_kk| > MBS_LOOP_RANK_TOL max(|R_11|, 1e-3). The
 *   other rows are dropped: multiplier 0, reported by mbs_constraint_info. A dropped row whose
 *   residual exceeds MBS_LOOP_INCONSISTENT_TOL once the kept rows hold makes the constraints
 *   inconsistent (MBS_ERR_INCONSISTENT naming the cut joint).
 * Partition (Docquier, Poncelet, Fisette 2013 eq. 10): a second pivoted QR of the kept rows J_a picks rank dependent
 *   coordinates v with a well-conditioned J_v; the columns of joints with state_priority p > 0
 *   are weighted by 0.25^min(p, 4) so they are taken as dependent only when the other
 *   columns would leave J_v worse conditioned by about that factor (p < 0: 4^min(-p, 4),
 *   preferred as dependent). When the condition
 *   estimate of J_v grows MBS_LOOP_REPARTITION_RATIO times beyond its value at the partition
 *   (a coordinate approaching a limit position), the partition is made again (an event).
 *   The estimate is relative to the rows (loops_jv_cond), and preferred coordinates yield to
 *   the best partition where they turn singular (dynamic state selection, loops_partition).
 * Closure (Docquier, Poncelet, Fisette 2013 eqs. 13-14): Newton-Raphson v <- v - J_v^-1 h_a with u fixed (with step
 *   halving when the residual grows), then v_v = -J_v^-1 J_u v_u.
 * Dynamics (Docquier, Poncelet, Fisette 2013 eq. 6): qacc0 by ABA, Y = M^-1 J_a^T by the tree-sparse L^T D L of M,
 *   K = J_a Y (Cholesky), lambda = -K^-1 (J_a qacc0 + J̇q̇_a), qacc = qacc0 + Y lambda.
 * Near-singular states (a bifurcation such as the flat N-four-bar of IFToMM A02, where the
 *   rank of J drops): the multipliers grow like 1 / distance and the computed accelerations
 *   lose accuracy like cond(J_v)^3 eps, although the motion on its branch is smooth. At a
 *   closed state with v != 0 whose J_v condition estimate exceeds MBS_LOOP_SMOOTH_COND,
 *   qacc and lambda are interpolated (4th order) from the closed states at q (+) s tau v,
 *   s = -2, -1, 1, 2, with |tau v|_inf = MBS_LOOP_SMOOTH_SHIFT doubled until the states at
 *   s = +-1 are below that condition (closed first, and to the rounding of their residual
 *   only; the next smoothing of the same passage starts from the shift that sufficed, so
 *   the doublings are paid once per passage, not at every evaluation). When no shift gets there (a mechanism ill-conditioned
 *   all around) the direct value is used and smoothing waits for a 10x worse J_v or a new
 *   partition.
 *   Velocities there: Newton cannot place the dependent coordinates better than the rounding
 *   of the residual over the distance to the singularity (its residual does not see more),
 *   and the exact projection takes the tangent at that rounded position, off by cond(J_v)
 *   times that error: A02 stepped by RK4 at 1 ms to 1e-7 rad from its flat position had
 *   cond 5.4e8 there, crank 1 closed 7.4e-10 rad off crank 0, and the projection turned a
 *   raw velocity that met the rows to 8.9e-10 into crank rates 0.74 % off (+9 J of 621 J;
 *   1e-5 rad: 3e-3 J; 3e-9 rad: the next steps ran away to 1e11 J). So above
 *   MBS_LOOP_PROJECT_COND a velocity that already meets the active rows to
 *   MBS_LOOP_PROJECT_NOISE max |v| (a step's end or stage state: measured at most 1.1e-10
 *   max |v| on A02 landing 1e-12 .. 1e-5 rad from flat) gets the least change of its
 *   dependent rates (v_u held) that meets the rows a pivoted Cholesky of J_v J_v^T keeps
 *   above MBS_LOOP_PROJECT_DROP of its largest pivot (A02 near flat: 40 of 80, the rank the
 *   flat position has); the rows left out keep what they miss (at most that 1.1e-10 max |v|
 *   too; above NOISE the projection is the exact one). The integrated velocity thus keeps
 *   its components along the near-singular directions instead of taking the rounded
 *   tangent: the energy error of such a step is at most 1e-7 J of 621 J, plus a transient
 *   of up to 3e-6 J from the rounded position itself, gone the next step. A host's
 *   velocity at assembly violates the rows and is projected exactly, as before. */
#ifndef MBS_SOLVERS_LOOPS_H
#define MBS_SOLVERS_LOOPS_H

#include "core/internal.h"

#define MBS_LOOP_RANK_TOL 1e-9          /* relative rank tolerance of the row selection */
#define MBS_LOOP_NEWTON_TOL 1e-12       /* scaled residual at which the closure stops */
#define MBS_LOOP_NEWTON_MAXIT 50        /* Newton iterations per closure */
#define MBS_LOOP_INCONSISTENT_TOL 1e-8  /* scaled residual of a dropped row */
#define MBS_LOOP_REPARTITION_RATIO 2.0  /* J_v condition growth since its partition was made
                                           that asks for a new partition */
#define MBS_LOOP_SMOOTH_COND 1e4        /* J_v condition estimate of a near-singular state */
#define MBS_LOOP_SMOOTH_SHIFT 1e-3      /* first shift of the smoothing: |tau v|_inf */
#define MBS_LOOP_SMOOTH_DOUBLINGS 8     /* shifts tried: SHIFT, 2 SHIFT, ..., 128 SHIFT */
#define MBS_LOOP_PROJECT_COND 1e4       /* J_v condition estimate above which a consistent v
                                           is projected with truncation (file comment) */
#define MBS_LOOP_PROJECT_DROP 1e-8      /* pivot of J_v J_v^T, relative to its largest, below
                                           which that projection leaves a row out */
#define MBS_LOOP_PROJECT_NOISE 1e-6     /* violation of the rows, relative to max |v|, up to
                                           which v counts as consistent (and the rows left
                                           out may keep); above it v is projected exactly */

typedef struct mbs_loops mbs_loops;

/* Allocate d->loops for a model with cut joints (nothing when ncon == 0). */
int mbs_loops_create(mbs_data *d);
void mbs_loops_destroy(mbs_data *d);

/* Flags of mbs_loops_close. */
#define MBS_CLOSE_REPARTITION 1 /* may pick a new partition when J_v got ill-conditioned */
#define MBS_CLOSE_CHECK 2       /* check the dropped rows (MBS_ERR_INCONSISTENT) */
#define MBS_CLOSE_RECOVER 4     /* on a singular J_v or no convergence: a new partition, then
                                   a fresh selection, before failing */

/* Close the loops at the data's q holding the independent coordinates (Newton), then project
   v; the current selection is made first if there is none. On failure q and v are as they
   were and the message names the cut joint. */
int mbs_loops_close(mbs_data *d, int flags);
/* mbs_assemble with cut joints: closure with the current selection when there is one and it
   fits; else a fresh selection at q, closure, a new selection at the closed q when the first
   one does not fit it (restoring the caller's independent coordinates), projection,
   dropped-row check. Held coordinates (mbs_set_joint_hold): always a fresh selection whose
   partition takes them as independent where the others suffice, and MBS_ERR_INCONSISTENT
   when one of them moved (HOLD_TOL). */
int mbs_loops_assemble(mbs_data *d);
/* Forward dynamics with multipliers at the prepared kinematics and forces (see the file
   comment); qacc and lambda are kept as they were on failure. */
int mbs_loops_forward(mbs_data *d);
/* tau (nv) for a qacc that satisfies the constraints: the minimum-norm tau among those for
   which forward dynamics returns qacc, tau = P (RNEA(qacc)) with P the projection onto the
   null space of J_a; kinematics and forces prepared. */
int mbs_loops_inverse(mbs_data *d, const double *qacc, double *tau);
/* Rank and active mask (ncon) of the current selection (made at q if there is none). */
int mbs_loops_info(mbs_data *d, int *rank, unsigned char *active);
/* Coordinate rows (src/events/events.h: prescribed motions, locked friction, stops in
   contact) are rows ncon .. ncon + nqrow - 1 of the same machinery: the enabled ones join the
   selection (a redundant one is dropped and checked like a cut-joint row), are closed with
   the cut-joint rows (a motion's row at the data's time, its velocity target in the
   projection) and their multipliers follow the cut-joint ones in d->lambda. With no
   cut-joint rows the closure is direct (q_k, v_k = their targets; no QR, no Newton). */
/* 1 when there is something to close: cut-joint rows or an enabled coordinate row. */
int mbs_loops_active(const mbs_data *d);
/* Impulse: v += M^-1 J_a^T x so that the active rows hold J_a v = their velocity targets
   (an M-weighted projection: a restitution stop's rebound respecting the other rows). */
int mbs_loops_impulse(mbs_data *d);
/* Rank of the cut-joint rows in the current selection, -1 when none is made (no selection
   is made here); label (len bytes) gets the cut joint of the first row it dropped, "" when
   it dropped none. */
int mbs_loops_cut_rank(const mbs_data *d, char *label, int len);
/* Number of selections and partitions made so far (a change is an integrator event). */
long mbs_loops_events(const mbs_data *d);
/* 1 when q and v are exactly those the last successful closure produced. */
int mbs_loops_is_closed(const mbs_data *d);
/* The independent dofs of the current partition (ascending; a selection is made at q when
   there is none): *ind points into the workspace; returns their number or a status. */
int mbs_loops_independent(mbs_data *d, const int **ind);


/* ---- for the analyses (src/analysis/): equilibrium, position solving, actuated inverse
   dynamics */
/* A fresh partition of the current selection (made at q if there is none) at the data's q in
   which the dofs flagged in hold (nv) stay independent: their columns get weight 0 in the
   pivoted QR (an event). MBS_ERR_SINGULAR naming the cut joint when the other columns cannot
   make J_v regular (the held coordinates leave that loop no freedom to close). */
int mbs_loops_partition_holding(mbs_data *d, const unsigned char *hold);
/* r (nv) = B^T g, B = dq/du of the current partition (Docquier, Poncelet, Fisette 2013 eq. 12: r_u = g_u + B_vu^T g_v),
   on the independent dofs; 0 on the dependent ones. Kinematics at the data's q. */
int mbs_loops_reduce(mbs_data *d, const double *g, double *r);
/* All ncon rows at the data's q (kinematics done): scaled residuals h (ncon) and Jacobian
   rows J (ncon x nv, row-major). */
void mbs_loops_rows(mbs_data *d, double *h, double *J);
/* The active rows J_a (*rank x nv, row-major, scaled) at the prepared kinematics, after
   checking that qacc satisfies them at acceleration level (MBS_ERR_INCONSISTENT naming the
   cut joint); the selection is made at q if there is none. */
int mbs_loops_active_rows(mbs_data *d, const double *qacc, const double **J, int *rank);
/* Newton iterations made by the closures of d since its creation. */
long mbs_loops_newton_iterations(const mbs_data *d);
/* The most work (mbs_work counters) one mbs_loops_close of any flags (*close) and one
   mbs_loops_forward (*forward) of d can take, from the caps of the code below (Newton
   iterations, projection corrections, smoothing doublings, the recoveries and the analytic
   strategy's hand-overs); zero without loops (loops_bound.c). */
void mbs_loops_worst_work(const mbs_data *d, mbs_work *close, mbs_work *forward);

/* ---- for the other closure strategy (src/loops/analytic/, analytic assemblies): mbs_loops_close,
 * mbs_loops_assemble and mbs_loops_forward first offer the call to it (closure.h); the
 * Newton machinery above serves what it defers. These let it share the row selection, the
 * partition and the closed-state bookkeeping. */
/* Make the row selection (and a partition) at q when there is none (an event). */
int mbs_loops_select(mbs_data *d);
/* Make the rows flagged in active (ncon) the selection, with no QR (planar models whose
   assemblies name their rows; an event). */
int mbs_loops_set_selection(mbs_data *d, const unsigned char *active);
/* Forget the selection: the next call that needs one makes it afresh. */
void mbs_loops_deselect(mbs_data *d);
/* The active-row mask (ncon) of the current selection and its rank; NULL when none. */
const unsigned char *mbs_loops_selection(const mbs_data *d, int *rank);
/* Use the given dependent dofs (mask, nv) as the partition from now on (their count must be
   the rank); J_v is factored at the data's kinematics: MBS_ERR_SINGULAR when it is singular
   there (the partition is then kept as it was). */
int mbs_loops_set_partition(mbs_data *d, const unsigned char *dep);
/* A fresh partition at the data's q for the current selection (an event); a selection first
   when there is none. */
int mbs_loops_repartition(mbs_data *d);
/* The data's q and v are closed (mbs_loops_is_closed holds until they change). */
void mbs_loops_mark_closed(mbs_data *d);
/* Count a strategy change as an integrator event (mbs_loops_events). */
void mbs_loops_note_event(mbs_data *d);

/* ---- for the derivatives of the closed-loop dynamics (src/derivatives/loop_derivatives.c,
 * loops_derivs.c). Between begin and end the rows are evaluated at other states; end puts
 * the solver's cached rows back as they were. */
typedef struct mbs_loops_kkt {
    int rank;           /* active rows */
    const double *J;    /* [rank nv] their scaled Jacobian rows at q, and ... */
    const double *gam;  /* [rank] their quadratic terms J̇q̇ (both valid until the next call
                           below) */
    const int *dep, *ind; /* the partition: rank dependent dofs, nv - rank independent ones */
    int jac_closed, lu_here; /* the solver's cache flags, for end */
} mbs_loops_kkt;
/* At the data's state (kinematics prepared): the selection (made if there is none; with the
   planar path's closed forms their partition), the active rows and their quadratic terms
   into k. MBS_ERR_STATE naming the cut joint when q or v does not meet the active rows
   (scaled residual 1e-8; velocity 1e-8 max(1, |v|)). */
int mbs_loops_kkt_begin(mbs_data *d, const char *call, mbs_loops_kkt *k);
/* The multipliers lam (rank, of the scaled active rows) into d->lambda (physical; 0 for the
   other rows). */
void mbs_loops_kkt_lambda(mbs_data *d, const double *lam);
/* Slopes of the active rows along the tangent direction w of q at v held, by central
   differences at q0 (+) +-h w: da_v = (dJ w) v, da = (dJ w) qacc + (dgam/dq) w (rank each),
   djl = (dJ^T w) lam (nv). d->q and the poses are q0's again afterwards, the velocities of
   the kinematics are not. */
void mbs_loops_row_slopes_q(mbs_data *d, const double *q0, const double *w, double h,
                            const double *qacc, const double *lam, double *da_v, double *da,
                            double *djl);
/* dg = (dgam/dv) z (rank) at the data's q (poses current), exact (gam is quadratic in v).
   d->v is v0 again afterwards, the velocities of the kinematics are not. */
void mbs_loops_row_slopes_v(mbs_data *d, const double *v0, const double *z, double *dg);
/* The active rows J (rank x nv, a copy of begin's k->J) back in the solver, its cache flags
   as begin found them (the data's q being begin's again). */
void mbs_loops_kkt_end(mbs_data *d, const mbs_loops_kkt *k, const double *J);

/* ---- for the steppers: what a failed step puts back (stepper.c backup/restore). A
 * snapshot holds the state of d->loops (and of the analytic strategy, closure.h) that one
 * call leaves for the next: row selection, partition, conditioning history, the LU of J_v
 * that Newton's chord steps reuse, the last closed state and the event count. Saving it
 * before a step and restoring it after a failure makes the steps that follow bitwise those
 * of a run that never tried the failed one. Allocated at create (*out NULL without loops);
 * save and restore allocate nothing and accept a NULL snapshot (nothing to do). */
typedef struct mbs_loops_snap mbs_loops_snap;
int mbs_loops_snap_create(const mbs_data *d, mbs_loops_snap **out);
void mbs_loops_snap_free(mbs_loops_snap *s);
void mbs_loops_snap_save(const mbs_data *d, mbs_loops_snap *s);
void mbs_loops_snap_restore(mbs_data *d, const mbs_loops_snap *s);

#endif
