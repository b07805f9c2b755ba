/* Closed loops in the generated code (cg_loops.c, cg_rows.c, cg_loops_write.c).
 *
 * The row selection and the coordinate partition are fixed at generation: they are the
 * library's own at the model's start configuration (mbs_assemble, then mbs_constraint_info
 * and mbs_linearize_coordinates), so the generated file integrates the same independent
 * coordinates as the library's steppers as long as the library keeps that partition. The
 * loops' paths are the library's (mbs_con_topo of src/loops/constraints.h). */
#ifndef MBS_CODEGEN_CG_LOOPS_H
#define MBS_CODEGEN_CG_LOOPS_H

#include "cg_kin.h"
#include "loops/constraints.h"

typedef struct cg_loops {
    mbs_con_topo t;     /* cut joints, their rows' scales and paths */
    int ncon;           /* rows of the model's cut joints */
    int rank, ndrop;    /* kept and dropped rows */
    int ndof;           /* independent coordinates: nv - rank */
    int *row, *drop;    /* [rank], [ndrop]: model rows, ascending */
    int *dep, *ind;     /* [rank], [ndof]: dependent and independent dofs, ascending */
    /* J_v (kept rows x dependent dofs) splits into blocks no row or dof of another block
       touches (loops that share no dependent coordinate); each is factored on its own */
    int nblock;
    int *blk_n;         /* [nblock] sizes */
    int *blk_row;       /* [rank] kept-row positions (0 .. rank-1), block after block */
    int *blk_dof;       /* [rank] dependent dofs (v indices), block after block */
} cg_loops;

/* Freeze the library's selection and partition of m at q_start (nq; NULL: the model's start
   values), assembled as mbs_assemble does; 0, or -1 with the reason in why. */
int cg_loops_freeze(const mbs_model *m, const double *q_start, cg_loops *L, char *why, int len);
void cg_loops_free(cg_loops *L);

/* ---- rows (cg_rows.c) */
/* What the rows read: the kinematics, and (for Jacobians) the world motion subspace Sw
   (6 nv) or (for J̇v) the world velocities Vw and accelerations at qacc = 0 Aw (6 nbody). */
typedef struct cg_rows_in {
    const cg_kin *k;
    const cg_val *Sw, *Vw, *Aw;
} cg_rows_in;
/* Sw_i = X_world(b)^-1 S_i for the body b of dof i. */
void cg_world_motion(cg_out *o, const cg_kin *k, cg_val *Sw);
/* World velocities and velocity-product accelerations of every body (a: 6 nbody scratch). */
void cg_world_accel(cg_out *o, const cg_kin *k, cg_val *a, cg_val *Vw, cg_val *Aw);
/* For the n model rows rows[] (a cut joint's rows adjacent): scaled residuals h (n), Jacobian
   rows J (n x nv, row-major) and J̇v gam (n); each output nullable. */
void cg_rows(cg_out *o, const cg_loops *L, const int *rows, int n, const cg_rows_in *in,
             cg_val *h, cg_val *J, cg_val *gam);

/* ---- constrained dynamics (cg_loops.c) */
/* qacc (nv) and the multipliers of the kept rows lam (rank, scaled rows) at (q, v, tau) of k
   (kinematics and forces emitted): M qacc = f + J_a^T lam, J_a qacc + gam = 0, through the
   tree-sparse L^T D L of M (Z = L^-T J_a^T, K = Z^T D^-1 Z). The pivots of D and of K's
   L D L^T go to piv (nv + rank) and the diagonal of K to kdiag (rank) for the singularity
   check. 0 or -1 (memory). */
int cg_emit_loops_forward(cg_out *o, const cg_kin *k, const cg_loops *L, const cg_val *tau,
                          cg_val *qacc, cg_val *lam, cg_val *piv, cg_val *kdiag);
/* tau (nv): the minimum-norm tau for which the constrained forward dynamics returns qacc,
   tau = t - J^T (J J^T)^-1 J t with t = RNEA(qacc) over the kept rows (mbs_loops_inverse);
   the pivots of J J^T's L D L^T into piv (rank). 0 or -1 (memory). */
int cg_emit_loops_inverse(cg_out *o, const cg_kin *k, const cg_loops *L, const cg_val *qacc,
                          cg_val *tau, cg_val *piv);

/* ---- the generated functions of a model with loops (cg_loops_write.c) */
/* Write the loop functions (rows, closure, constrained dynamics, RK4 with closure); the tree
   functions are not written. Lines of arithmetic, or -1 (memory). */
int cg_write_loops(FILE *f, const mbs_model *m, const cg_loops *L, const char *P);

#endif
