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
 * their cut joint, ANGLE rows by 1, so that all rows are dimensionless and comparable.
 * User constraints and couplings give their rows through their own source (user_rows.c),
 * coordinate rows through theirs (con_topo.h): the functions below serve every row. */
#ifndef MBS_SOLVERS_CONSTRAINTS_H
#define MBS_SOLVERS_CONSTRAINTS_H

#include "core/internal.h"
#include "loops/con_topo.h"


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

/* "cut joint NAME" or "user constraint NAME" (the owner of row r) into buf, and into *local
   (nullable) the row's index within its owner. */
const char *mbs_con_label(const mbs_data *d, const mbs_con_topo *t, int r, char *buf, int len,
                          int *local);

/* y = J x for scaled rows J (n x nv) built by mbs_con_jacobian, using the path sparsity. */
void mbs_con_jmul(const mbs_con_topo *t, const int *rows, int n, const double *J,
                  const double *x, double *y);

#endif
