/* Inertial couplings: inertia that moves with a linear function of the tree's velocities
 * without being a body of the tree -- point masses on line force elements (Otter, Elmqvist,
 * Mattsson 2003, "The New Modelica MultiBody Library", §8.1) and rotors driven by a joint coordinate (Otter, Elmqvist, Mattsson 2003 §10; MSL
 * Rotor1D + Mounting1D + IdealGear with exact = true).
 *
 * Why one mechanism, and this one. Every such inertia is a set of scalar "rows": a row's rate
 * is r = G v, with G a generalized-force pattern (a wrench on up to two bodies plus a
 * coefficient on one dof), and its kinetic energy is 1/2 m r^2. A point mass is three rows
 * (its velocity along the world axes, m its mass); a rotor is one row (its absolute rate
 * about its axis, m its inertia) plus a gyroscopic torque on its housing that depends only on
 * velocities (a force). Exactly, the mass matrix becomes M' = M + sum m G^T G, which is not
 * tree-sparse when a row touches two branches (a spring between two arms), so ABA cannot take
 * it as a body. Instead each row's force F (what the inertia exerts on the tree) is an
 * unknown like a loop multiplier: with qacc0 the tree's accelerations without it,
 *     (diag(1/m) + G M^-1 G^T) F = target - G qacc0 - (velocity terms),
 *     qacc = qacc0 + M^-1 G^T F,
 * the structure of the loop solver's K = J M^-1 J^T with a compliance 1/m on the diagonal.
 * M^-1 G^T is applied through the tree by ABA's own factors (one O(N) response pass per row,
 * response.c), so forward dynamics stays O(N) per row; in loops the couplings are eliminated
 * from the loop system by their Schur complement on the tree-sparse factor of M (loops_select.c).
 * The alternatives were worse: lumping the mass onto the end bodies is not exact, and an
 * extra body with constraints (prismatic-spherical chain) adds coordinates and stiff loops.
 *
 * The common rotor (on a 1-dof joint, housed by that joint's parent body or the world) is a
 * second child of the joint moved by the same coordinate: its rows are tree-sparse and ABA
 * takes it inside the joint's backward and forward steps at O(1) (aba.c, "native" rows);
 * every other row goes through the solve above. CRBA, RNEA and the energy add every row. */
#ifndef MBS_COUPLINGS_COUPLINGS_H
#define MBS_COUPLINGS_COUPLINGS_H

#include "core/internal.h"

/* One scalar row (see the file comment). Its rate is r = sum_k w_k . vel[body_k] + coef
   v[dof]; its acceleration sum_k w_k . acc[body_k] + coef qacc[dof] + acc_vel. */
typedef struct mbs_crow {
    int body[2];     /* bodies with a wrench term (-1: none; the world is dropped) */
    double w[2][6];  /* their wrenches [torque; force] about the body origin, body coords */
    int dof;         /* v index with a coefficient, -1 if none */
    double coef;
    double acc_vel;  /* velocity-product part of the row's acceleration */
    double target;   /* the row's acceleration when its force is zero (gravity) */
    double mass;     /* its inertia m > 0 */
    int native;      /* 1: taken inside ABA (rotor on its joint's parent or the world) */
} mbs_crow;

/* One rotor of a compiled model (builder and model). */
typedef struct mbs_rotor_model {
    char *name;      /* never NULL in a model ("" if unnamed) */
    int joint, dof, vindex;
    double inertia, ratio;
    int housing;
    double axis[3];  /* unit, housing coordinates */
    int native;      /* 1: inside ABA (see the file comment) */
    int crow;        /* its row */
} mbs_rotor_model;

/* Fill d->crow for every row at the current kinematics (poses; with_vel: velocities too,
   else acc_vel and targets are left 0). MBS_OK or a status naming the element. */
int mbs_couplings_eval(mbs_data *d, int with_vel);
/* After ABA (qacc, acc from the tree without the non-native rows): solve for their forces
   and correct qacc and acc. MBS_ERR_SINGULAR naming an element if the system is singular. */
int mbs_couplings_forward(mbs_data *d);
/* M (lower triangle, nv x nv) += m G^T G of the rows (native only, or all). */
void mbs_couplings_mass(mbs_data *d, double *M, int native_only);
/* Inside RNEA between its passes: subtract the rows' forces from d->f and return their dof
   parts in tau_dof (nv, added to tau by the caller); qacc NULL = zero. */
void mbs_couplings_rnea(mbs_data *d, const double *qacc, double *tau_dof);
/* The tree passes' hooks (core/model.h), installed by compile when the model has rows. */
extern const mbs_coupling_hooks mbs_couplings_hooks;
/* Kinetic energy of the rows, 1/2 sum m r^2 (d->crow evaluated with velocities). */
double mbs_couplings_kinetic(const mbs_data *d);
/* Gyroscopic torques of the rotors on their housings into f_ext (forces pass). */
void mbs_rotors_gyroscopic(mbs_data *d);
/* Dense row k of G (nv) into g; returns the number of nonzero columns written to idx. */
int mbs_crow_dense(const mbs_data *d, const mbs_crow *r, double *g, int *idx);

/* Response pass with ABA's factors of the current state: acc (6 nbody) and qdd (nv) of
   M^-1 (gen + J^T f) for body forces f (6 nbody, body coordinates, consumed) and generalized
   forces gen (nv); no velocity terms. */
void mbs_aba_response(mbs_data *d, double *f, const double *gen, double *acc, double *qdd);

/* Checks of a rotor's values shared by mbs_add_rotor and the parameter calls (rotor.c):
   MBS_OK or MBS_ERR_ARG with "rotor <label>: ..." in err. */
int mbs_rotor_inertia_check(char *err, const char *label, double inertia);
int mbs_rotor_ratio_check(char *err, const char *label, double ratio);
/* The native rotors' terms of joint j (rotor_D, rotor_U, rotor_I, rotor_parent), summed from
   zero in rotor order: compile and a changed rotor parameter compute them alike
   (compile_elements.c). */
void mbs_rotor_native_terms(mbs_model *m, int j);

/* The rotors' rows into d->crow (rotor.c). */
void mbs_rotors_rows(mbs_data *d);
/* "name" or #id of the element (force element or rotor) that owns row r. */
const char *mbs_crow_label(const mbs_model *m, int r, char *buf, int len);
/* Small dense Cholesky (row-major n x n, lower) without LAPACK: 0 or failing row + 1. */
int mbs_small_cholesky(int n, double *A);
void mbs_small_cholesky_solve(int n, const double *L, double *x);

/* Loops (schur.c): with LDL the tree-sparse factor of M (tree + native rows), prepare
   Y = M^-1 G^T and the Cholesky of W = diag(1/m) + G Y of the solve rows; then the loop
   matrix K (r x r, lower, column-major, ld r) of the rows J (r x nv, row-major) becomes
   K - (J Y) W^-1 (J Y)^T, and y = M^-1 x becomes M'^-1 x by y -= Y W^-1 G y. */
int mbs_couplings_schur_prepare(mbs_data *d, const double *LDL);
void mbs_couplings_schur_K(mbs_data *d, int r, const double *J, double *K);
void mbs_couplings_schur_correct(mbs_data *d, double *y);

/* Allocate / free the coupling workspace of d (sizes from the model; nloop_rows: the rows of
   the loop system, cut-joint and coordinate rows, for the Schur complement's K). */
int mbs_couplings_create(mbs_data *d, int nloop_rows);
void mbs_couplings_destroy(mbs_data *d);

/* Nodes (nodes.c): solve the balance of every node at the current poses (x_world of the
   nodes set); MBS_OK or MBS_ERR_CONVERGENCE / MBS_ERR_SINGULAR naming the node. */
int mbs_nodes_solve(mbs_data *d);
/* m->node_start from the builder's mbs_set_node_start calls (node_start.c): NaN where none;
   MBS_ERR_ARG naming a body that compile did not make a node, MBS_ERR_NOMEM. */
int mbs_node_start_compile(const mbs_builder *b, mbs_model *m, char *err);
/* 1 when node n (node index) has a start position. */
int mbs_node_has_start(const mbs_model *m, int n);

#endif
