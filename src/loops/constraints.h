/* Cut-joint constraint rows (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models" §2.2.1 eqs. 7-9): position residuals
 * h(q), Jacobian rows J = dh/dq (per velocity coordinate) and the quadratic term J̇q̇, for
 * the POINT, ANGLE and DISTANCE rows of joint.h.
 *
 * Every row is the power pairing of a world wrench W (at the world origin) on the child with
 * the relative spatial velocity of the child and the parent: hdot = W . (V_c - V_p). So
 *   J_k     = sign_k W . Sw_k   for the dofs k on the loop's tree paths (child side +1,
 *                               parent side -1; every other column is zero),
 *   J̇q̇     = Ẇ . (V_c - V_p) + W . (A_c - A_p),
 * with Sw_k the world-frame motion subspace of dof k, V the world spatial velocities and
 * A the spatial accelerations at qacc = 0 without gravity (the tree's velocity-product
 * terms). Rows are scaled for the solver: POINT and DISTANCE rows by 1 / con_length of
 * their cut joint, ANGLE rows by 1, so that all rows are dimensionless and comparable. */
#ifndef MBS_SOLVERS_CONSTRAINTS_H
#define MBS_SOLVERS_CONSTRAINTS_H

#include "core/internal.h"

/* The loop structure of a model, derived once at data creation.
 * Coordinate rows (src/events/events.h: a prescribed motion, a locked friction, a stop in
 * contact) follow the ncon cut-joint rows: row ncon + k is h = scale_k (q_i - target_k),
 * J = scale_k e_i for the dof i it holds; J̇q̇ = -scale_k acc_target_k. Each is listed here
 * as one more "cut" after the ncut cut joints (index ncut + k) whose path is its single dof,
 * so the row machinery (residuals, Jacobians, closures for the sparse solves) serves it
 * unchanged; cut[ncut + k] is the joint the dof belongs to (for messages). */
typedef struct mbs_con_topo {
    int ncon;          /* cut-joint rows; coordinate rows ncon .. ncon + ncoord - 1 follow */
    int ncoord;        /* coordinate rows */
    int nv;            /* velocity coordinates (columns) */
    int ncut;          /* cut joints */
    int nent;          /* ncut + ncoord: entries of cut, path_adr, clo_adr, overlap's side */
    int *cut;          /* [ncut + ncoord] cut joint ids, ascending; then coordinate rows' joints */
    int *row_cut;      /* [ncon + ncoord] index into cut of each row's joint */
    double *row_scale; /* [ncon + ncoord] scale of each row (see the file comment) */
    int *path_adr;     /* [ncut + ncoord + 1] first entry of each cut joint's path */
    int *path_dof;     /* [path_adr[ncut]] dofs whose columns its rows touch */
    double *path_sign; /* [path_adr[ncut]] +1 child side, -1 parent side */
    int *clo_adr;      /* [ncut + ncoord + 1] first entry of each cut joint's closure */
    int *clo_dof;      /* [clo_adr[ncut]] its path dofs and all their ancestor dofs, descending:
                          the support of L^-T J^T for the L^T D L factor of M (RBDA §6.5) */
    int maxclo;        /* largest closure */
    unsigned char *overlap; /* [(ncut + ncoord)^2] 1 when two closures share a dof */
} mbs_con_topo;

/* Build the loop structure of m into t (allocates); MBS_OK or MBS_ERR_NOMEM. */
int mbs_con_topo_init(const mbs_model *m, mbs_con_topo *t);
void mbs_con_topo_free(mbs_con_topo *t);
/* The rows' scales again from the model's loop lengths (after a geometry parameter). */
void mbs_con_topo_rescale(const mbs_model *m, mbs_con_topo *t);

/* World-frame motion subspace Sw (6 x nv) from the data's S (needs mbs_kinematics). */
void mbs_con_world_motion(const mbs_data *d, double *Sw);
/* World spatial velocity Vw and velocity-product acceleration Aw (6 x nbody each) of every
   body (needs mbs_kinematics). a (6 x nbody) is scratch for the body-coordinate pass. */
void mbs_con_world_accel(const mbs_data *d, double *a, double *Vw, double *Aw);

/* Scaled residuals h[i] of rows rows[i] (i < n; rows NULL: all rows, n = ncon); needs the
   poses of mbs_kinematics_pos. */
void mbs_con_residual(const mbs_data *d, const mbs_con_topo *t, const int *rows, int n,
                      double *h);
/* Scaled Jacobian rows J (n x nv, row-major) of rows (NULL: all); needs Sw. */
void mbs_con_jacobian(const mbs_data *d, const mbs_con_topo *t, const double *Sw,
                      const int *rows, int n, double *J);
/* Scaled quadratic terms gam[i] = (J̇q̇) of rows (NULL: all); needs Vw and Aw. */
void mbs_con_bias(const mbs_data *d, const mbs_con_topo *t, const double *Vw,
                  const double *Aw, const int *rows, int n, double *gam);

/* The world wrench W = [n; f] (about the world origin) that cut joint `joint` exerts on its
   child for the multipliers lambda (ncon, the data's layout); needs the poses. */
void mbs_con_cut_wrench(const mbs_data *d, int joint, const double *lambda, double W[6]);

/* Scaled velocity targets c[i] of rows (J_r v = c_r): a coordinate row's scale times its
   velocity target, 0 for a cut-joint row. */
void mbs_con_velocity_target(const mbs_data *d, const mbs_con_topo *t, const int *rows, int n,
                             double *c);
/* World wrenches W (6 n, unscaled, at the world origin) of the rows k[0..n) (0-based within
   the joint) of cut joint `joint` and, when Vw (6 x nbody world velocities; only the
   joint's parent and child are read) is given, their rates Wd (6 n); needs the poses. */
void mbs_con_rows(const mbs_data *d, int joint, const int *k, int n, const double *Vw,
                  double *W, double *Wd);

/* y = J x for scaled rows J (n x nv) built by mbs_con_jacobian, using the path sparsity. */
void mbs_con_jmul(const mbs_con_topo *t, const int *rows, int n, const double *J,
                  const double *x, double *y);

#endif
