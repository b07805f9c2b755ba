/* Loops closed in closed form (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §7.2-7.3, the "characteristic pair
 * of joints" behind MSL's Joints.Assemblies). Compile looks at every loop (a cut joint and
 * the tree path between its two bodies) for the structure of an assembly whose dependent
 * coordinates follow from the others in closed form:
 *   JointSSR / JointSSP  a distance joint (a rod with ball ends) and one revolute or
 *                        prismatic joint of the loop: the rod-length equation
 *                        A cos(phi) + B sin(phi) = C (Otter, Elmqvist, Mattsson 2003 §7.3), or a quadratic;
 *   JointUSR / JointUSP  a rod body hanging from a universal joint (or a spherical one: its
 *     (and SSR, SSP)     spin about the rod stays free) and closed by a spherical cut joint
 *                        at its other end, with one revolute or prismatic joint: the
 *                        rod-length equation, then the two angles that point the rod;
 *   JointUPS             a universal (or spherical) joint, a prismatic joint below it and a
 *                        spherical cut joint: the slide from the length, then the angles;
 *   JointRRR / RRP / RPP a planar loop (revolute axes parallel to a normal n, prismatic
 *                        axes perpendicular to it) closed by a revolute or prismatic cut
 *                        joint, with two more revolute or prismatic joints: a triangle, a
 *                        circle cut by a line, or a linear 2 x 2 system in the plane.
 * Every loop of the model must have one, with dependent coordinates no two loops share and a
 * solve order in which each loop reads only independent coordinates and those of loops
 * before it (coupled loops, e.g. six slider-cranks on one crankshaft); otherwise every loop
 * keeps the Newton strategy of src/loops/loops_select.c. Elements acting on the tree (motions,
 * friction, rotors, nodes) leave the closed forms in place: tree_elements.c.
 *
 * At run time (strategy.c) a closure writes the dependent coordinates loop after loop, the
 * root nearest to the current values (the previous state; at assembly the user's guess), then
 * their rates by differentiating each assembly's characteristic equations (a 1 x 1, 2 x 2 or
 * 3 x 3 system per loop), and the dynamics reduce to the independent coordinates with the
 * accelerations from the second derivatives (reduced.c). Near a singular position (the rod
 * stretched straight, a loop folding flat), where the closed form loses accuracy like
 * 1 / kappa^3, kappa < MBS_CLOSURE_KAPPA hands the loops to Newton (an event), which
 * repartitions and smooths there; they come back when every kappa exceeds twice that.
 * kappa (the sine of the assembly's critical angle, or the like) also measures how badly
 * the independent coordinates parametrise the loop: near a dead point of an independent
 * coordinate (a crank at its limit position) holding it amplifies every integration error
 * like 1 / kappa (energy drift of RK4 growing ~10x per halving of kappa below 0.15 on a
 * spatial four-bar), while Newton repartitions to a better coordinate; hence the hand-over
 * at kappa 0.2 (the energy drift of the repartition tests then stays at Newton's), far
 * above the 1e-5 or so where the closed forms themselves would lose accuracy (eps / kappa^3
 * in the accelerations). Regular mechanisms stay far above it (the
 * engines' slider-cranks 0.87, the four-bars of the tests 0.3 and more). The strategy
 * changes only where the steppers allow a new partition (the closures at the ends of a step,
 * MBS_CLOSE_REPARTITION, and mbs_assemble), so every stage of a step projects the same way;
 * within a step only a loop below MBS_CLOSURE_KAPPA_MIN (or without a real position) is
 * handed over at once. */
#ifndef MBS_CLOSURE_CLOSURE_H
#define MBS_CLOSURE_CLOSURE_H

#include "core/internal.h"
#include "loops/constraints.h"

#define MBS_CLOSURE_DEFER 1      /* a strategy call answered: Newton serves this one */
#define MBS_CLOSURE_KAPPA 0.2    /* conditioning below which a loop is handed to Newton
                                    at the next step boundary (see above) */
#define MBS_CLOSURE_KAPPA_MIN 1e-3 /* ... and below which at once, within a step */

typedef struct mbs_assembly mbs_assembly;

/* One kind of assembly (a const table per file, the algorithms never switch on the kind). */
typedef struct mbs_assembly_ops {
    /* Write the dependent coordinates of a into d->q from the data's poses (current for
       every body of the loop); *kappa in [0, 1] measures how far it is from a singular
       position. MBS_OK, or MBS_CLOSURE_DEFER when the loop has no real closed position
       here (kappa 0). */
    int (*position)(mbs_data *d, const mbs_assembly *a, double *kappa);
} mbs_assembly_ops;

/* A planar joint of a JointRRR/RRP/RPP chain: its entry and exit frame (body, origin and
   in-plane direction f1 in body coordinates; f2 = n x f1), revolute or prismatic, and how its
   planar variable x (angle of the exit frame's f1 from the entry's, or slide) maps to the
   joint's coordinate. */
typedef struct mbs_planar_link {
    int joint, tree;           /* joint id; 1 for a tree joint (its q is written), 0 the cut */
    int prismatic;
    int body_in, body_out;
    double p_in[3], p_out[3];  /* frame origins, body coordinates */
    double g_in[3], g_out[3];  /* their f1, body coordinates */
    double qsign;              /* revolute: q = qsign x */
    double u[2];               /* prismatic: slide direction in the entry basis, q = x */
    double pr_in[2], pu_in[2], pr_out[2], pu_out[2]; /* planar models: origins and f1 in
                                  their bodies' planar frames (planar_loops.c) */
    double pl_s;               /* planar models, a tree revolute: its planar joint's sign
                                  (the child's pose turns by pl_s q) */
} mbs_planar_link;

struct mbs_assembly {
    const mbs_assembly_ops *ops;
    const char *name;          /* "JointRRR", ... */
    int cut, icut, anc;        /* cut joint id, its index in topo.cut, common ancestor body */
    int ndep, dep[3];          /* dependent dofs (v indices) */
    double dep_sign[3];        /* their path signs (+1 child side of the cut, -1 parent) */
    int row[3];                /* rows of the cut (0-based in the joint) its rates zero */
    int j, k;                  /* DIST: the moving joint j; ROD: j and the rod's joint k;
                                  UPS: k (universal/spherical) and the slide j */
    int side;                  /* DIST: +1 when j moves the cut's child point, -1 its
                                  parent's; ROD/UPS: +1 when the rod is the cut's child */
    int j_moves_k;             /* ROD: j is above k (moves the rod's pivot) */
    int spin;                  /* spherical k: its free component (0..2); -1 universal */
    double rod[3];             /* ROD: the rod point in k's child frame; UPS: on the slider
                                  body (body coordinates) */
    double length;             /* ROD: |rod|; DIST: the distance joint's length */
    mbs_planar_link link[3];   /* PLANAR: J1, J2, J3 from the segment holding the ancestor */
    int canon;                 /* PLANAR: cyclic shift to the solved form (RRR, RRP, RPP) */
    double e_anc[6];           /* PLANAR: in-plane basis e1, e2 in the ancestor's coordinates */
    int planar;                /* 1 for JointRRR/RRP/RPP */
    double n0[3];              /* PLANAR: the plane normal, world, at the neutral q */
    double offset_n;           /* PLANAR: the cut frames' offset along n (constant; != 0:
                                  the loop can never close) */
    double scale;              /* a length of the loop (branch distances, tolerances) */
    /* PLANAR in a planar model (planar_loops.c): its rows in the cut bodies' planar frames:
       the child frame's origin, each row's direction e (parent) and f (child, angle rows)
       projected on the plane, its kind (1 angle, 0 point) and scale */
    double pl_xc[2], pl_e[3][2], pl_f[3][2], pl_scale[3];
    int pl_angle[3];
    int nupdate, *update;      /* tree positions whose poses its coordinates change */
    int ncross, *cross;        /* dependent dofs of earlier loops on its path... */
    double *cross_sign;        /* ... and their path signs (the multipliers' back-substitution) */
};

/* The analytic closure of a model (immutable, built by compile). */
typedef struct mbs_closure_model {
    int nasm;                  /* assemblies = cut joints, in solve order */
    mbs_assembly *asm_;        /* [nasm] */
    int *asm_of_cut;           /* [njoint] assembly index of each cut joint, -1 otherwise */
    mbs_con_topo topo;         /* the loops' paths (constraints.h) */
    int ndep, ndof;            /* dependent and independent dofs */
    int ncutbody, *cutbody;    /* the bodies the cut joints join (the world left out) */
    unsigned char *is_dep;     /* [nv] */
    int *ind;                  /* [ndof] independent dofs, ascending */
} mbs_closure_model;

/* ---- compile (detect.c) */
/* *out = the analytic closure of m, or NULL when some loop has no assembly (the Newton
   strategy serves then); MBS_OK or MBS_ERR_NOMEM. */
int mbs_closure_detect(const mbs_model *m, mbs_closure_model **out);
void mbs_closure_model_free(mbs_closure_model *cm);

/* ---- detection helpers shared by the assembly files (detect.c) */
typedef struct mbs_asm_loop {
    const mbs_model *m;
    const mbs_pose *xw0;       /* [nbody] world poses at the neutral q */
    int cut, icut, P, C, A;    /* cut joint, its topo index, parent, child, ancestor bodies */
    int njoint;                /* tree joints of the path: C side from C up, then P side */
    int *joint, *side;         /* [njoint] joint ids and sides (+1 C, -1 P) */
    int nc;                    /* joints on the C side (the first nc) */
} mbs_asm_loop;
/* Offer candidate a (filled by an assembly file) for the loop; copies it. */
typedef int (*mbs_asm_offer)(void *ctx, const mbs_assembly *a);
/* Candidates of each kind (assembly_spatial.c, assembly_planar.c); status. */
int mbs_asm_spatial_candidates(const mbs_asm_loop *l, mbs_asm_offer offer, void *ctx);
int mbs_asm_planar_candidates(const mbs_asm_loop *l, mbs_asm_offer offer, void *ctx);
/* Append the nv dofs of tree joint j (only those not excluded by skip >= 0: a spherical
   joint's free spin) to a->dep with the given path sign. */
void mbs_asm_add_dofs(const mbs_model *m, mbs_assembly *a, int j, int skip, double sign);
/* 1 when joint j is revolute or prismatic (one scalar coordinate). */
int mbs_asm_is_rp(const mbs_joint_model *j);

/* ---- run time, shared by the assembly files */
/* World pose of frame f fixed on body. */
void mbs_asm_frame(const mbs_data *d, int body, const mbs_pose *f, mbs_pose *out);
/* The value of a scalar coordinate nearest to the current one among n candidates
   (revolute: angles compared modulo 2 pi and the result kept continuous); its index. */
int mbs_asm_nearest(double cur, const double *cand, int n, int angle, double *out);
/* Angle difference wrapped into (-pi, pi]. */
double mbs_asm_wrap(double a);

/* ---- the strategy (strategy.c), called by src/loops/loops_select.c: MBS_CLOSURE_DEFER when
 * Newton serves the call (no analytic closure, or near a singular position), else the
 * status. */
int mbs_closure_close(mbs_data *d, int flags);
int mbs_closure_assemble(mbs_data *d);
int mbs_closure_forward(mbs_data *d);
/* After a successful Newton closure with these flags: take over again when every loop is
   regular and the flags allow a new partition. */
void mbs_closure_newton_closed(mbs_data *d, int flags);
/* 1 when the analytic strategy closed the data's q, v and the poses it left are still
   those (no pose computation since): forward dynamics may skip recomputing them. */
int mbs_closure_poses_current(const mbs_data *d);
/* Suspend (on = 1) or resume (0) the analytic strategy of d (nothing without one): while
   suspended, Newton serves every closure and dynamics call, so that the analyses which pick
   their own partition (equilibrium and position solving with held coordinates, the
   numerical linearisation in the Newton partition's independent coordinates) are served by
   it; resumed, the loops come back at the next closure that may repartition. */
void mbs_closure_suspend(mbs_data *d, int on);
/* ---- elements acting on the tree (tree_elements.c) */
/* Every enabled coordinate row's coordinate and rate set to their targets; MBS_CLOSURE_DEFER
   (nothing changed) when one holds a dependent coordinate of an assembly. */
int mbs_closure_hold(mbs_data *d);
/* The enabled coordinate rows (their number); dep (nv, may be NULL): the assemblies'
   dependent dofs and the held coordinates, the partition of the analytic strategy. */
int mbs_closure_held_rows(const mbs_data *d, unsigned char *dep);
/* Changes whenever a coordinate row is enabled or disabled (0 without events). */
long mbs_closure_rows_serial(const mbs_data *d);
/* 1 when the reduced dynamics serve d now: no coordinate row enabled, no inertial couplings
   (rotors, line forces with mass) or nodes; otherwise the general ones do. */
int mbs_closure_reduced_serves(const mbs_data *d);
/* Runtime data of d (nothing for a model without analytic closure). */
int mbs_closure_data_create(mbs_data *d);
void mbs_closure_data_destroy(mbs_data *d);

/* ---- rates and dynamics (rates.c, reduced.c): the runtime state */
typedef struct mbs_closure_data {
    int analytic;              /* 1: the analytic strategy serves now; 0: Newton */
    int suspended;             /* 1: Newton serves every call (mbs_closure_suspend) */
    int unusable;              /* 1: the row selection does not fit the assemblies */
    int rows_set;              /* rows[] are the selection's, the partition the analytic one */
    int ever_set;              /* a selection has fitted once */
    int checked;               /* every row verified since the analytic strategy took over */
    long rows_serial;          /* the coordinate rows' serial when rows[] were taken */
    unsigned char *dep;        /* [nv] the partition: dependent dofs and held coordinates */
    int jac_valid;             /* W, Mi of every assembly are those of the closed q */
    int B_valid;               /* B too */
    unsigned long pose_gen;    /* d->kin_gen when the last closure finished */
    int planar;                /* the model runs the planar path (planar_loops.c): Sw, Vw,
                                  Aw and W hold planar 3-vectors (w, v1, v2 in the plane
                                  basis at the world origin) in their first 3 entries */
    unsigned long ppose_gen;   /* planar: d->planar->gen when the last closure finished */
    int *rows;                 /* [3 nasm] cut rows of each assembly */
    double *W;                 /* [18 nasm] their world wrenches */
    double *Mi;                /* [9 nasm] inverse of each assembly's rate matrix (row-major) */
    double *hada;              /* [nasm] its Hadamard ratio |det| / prod of row norms */
    double *kappa;             /* [nasm] conditioning at the last closure */
    double *Sw;                /* [6 nv] world motion subspace */
    double *a0, *Vw, *Aw;      /* [6 nbody] */
    double *B;                 /* [nv ndof] column-major: dv = B du */
    double *VB, *IVB;          /* [6 nbody ndof] body velocities of B's columns, I times them */
    double *b, *r, *x;         /* [nv]: b, RNEA(qacc) - tau, u'' (ndof) */
    double *Mr;                /* [ndof ndof] */
    double *qbak, *vbak;       /* [nq], [nv] */
    double *h;                 /* [ncon] residuals of the consistency check */
} mbs_closure_data;

/* W and the inverse of every assembly's rate matrix at the data's poses and S (Sw computed);
   MBS_ERR_SINGULAR naming the cut joint when one is singular. */
int mbs_closure_jacobians(mbs_data *d);
/* Dependent rates of v (nv) from its independent ones, loop after loop. */
void mbs_closure_rates(const mbs_data *d, double *v);
/* B (nv x ndof): the rates for each unit independent rate. */
void mbs_closure_basis(mbs_data *d);
/* The dependent rates of v from its independent ones by B (current). */
void mbs_closure_apply_basis(const mbs_data *d, double *v);
/* b (nv): the dependent accelerations for zero independent ones at the data's v (needs the
   velocity-product accelerations a0 of the bodies, body coordinates). */
void mbs_closure_bias(mbs_data *d, double *b);
/* Forward dynamics reduced to the independent coordinates, and the multipliers. */
int mbs_closure_reduced_forward(mbs_data *d);
/* The passes of a reduced forward dynamics: unclosed (may be NULL) before the Jacobians when
   the loops are not known closed; accel0 the velocity-product accelerations; forward the
   reduced mass Mr and right side x; backward the generalized residual r (nv). */
typedef struct {
    void (*unclosed)(mbs_data *d);
    void (*accel0)(mbs_data *d);
    void (*forward)(mbs_data *d);
    void (*backward)(mbs_data *d, double *r);
} mbs_closure_passes;
/* The reduced forward dynamics with those passes; qacc and lambda written only on success. */
int mbs_closure_reduced_run(mbs_data *d, const mbs_closure_passes *ps);
/* u'' (C->x, ndof) from the reduced mass C->Mr (lower triangle) and C->x; MBS_ERR_SINGULAR
   when the Cholesky factorisation fails. */
int mbs_closure_solve_reduced(mbs_data *d);
/* lambda from J_a^T lambda = r (nv, overwritten) on the dependent dofs. */
void mbs_closure_multipliers(mbs_data *d, double *r);

/* ---- planar models with loops in closed form (planar_loops.c) */
/* 1 when every loop of m is a planar assembly whose normal is n (world, neutral q). */
int mbs_closure_planar_ok(const mbs_model *m, const double n[3]);
/* At compile, once m->planar is made: the link frames in their bodies' planar frames. */
void mbs_closure_planar_links(mbs_model *m);
/* World origin P and direction u (plane basis) of a link's entry (out 0) or exit frame. */
void mbs_closure_planar_frame(const mbs_data *d, const mbs_planar_link *L, int out, double P[2],
                              double u[2]);
/* S by the planar motion pass and the motion subspaces Sw (planar, world origin). */
void mbs_closure_planar_subspace(mbs_data *d);
/* The world wrenches W (3 per row, stride 6) of assembly a's rows and, when Vw is given
   (planar world velocities, stride 6), their rates Wd: the planar parts of constraints.c's
   rows, exact for planar motion. */
void mbs_closure_planar_rows_w(const mbs_data *d, const mbs_assembly *a, const double *Vw,
                               double *W, double *Wd);
/* The assemblies' rows as the selection (no QR); a status. */
int mbs_closure_planar_rows(mbs_data *d);
/* Forward dynamics of a planar model with loops in closed form (planar kinematics, forces,
   reduced dynamics); qacc and lambda written only on success. */
int mbs_closure_planar_forward(mbs_data *d);
/* 1 when d's forward dynamics take that path now (planar model, closed forms serving). */
int mbs_closure_planar_now(const mbs_data *d);

/* ---- the strategy's part of a loops snapshot (loops.h mbs_loops_snap_*): which strategy
 * serves and the rows its assemblies use; on restore the closed-state caches (rate matrices,
 * basis, poses) are marked stale, to be computed again from the restored q. */
typedef struct mbs_closure_snap mbs_closure_snap;
int mbs_closure_snap_create(const mbs_data *d, mbs_closure_snap **out); /* NULL: no strategy */
void mbs_closure_snap_free(mbs_closure_snap *s);
void mbs_closure_snap_save(const mbs_data *d, mbs_closure_snap *s);
void mbs_closure_snap_restore(mbs_data *d, const mbs_closure_snap *s);

#endif
