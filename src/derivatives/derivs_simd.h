/* The derivative engine per SIMD variant: rnea_derivatives.c, rnea_lanes.c, rnea_pairs.c,
 * minv.c, world_aba.c and aba_derivatives.c are compiled once per variant of the SIMD layer
 * (core/simd.h; meson.build, mbs_simd_sources). Compiled so (MBS_SIMD_VARIANT defined),
 * every function they define outside their file takes the variant's name, so that the calls
 * between them stay in one variant; the callers outside these files go through one table of
 * the entry points per variant (derivs_table.c), chosen at start-up (derivs_dispatch.c). */
#ifndef MBS_ANALYSIS_DERIVS_SIMD_H
#define MBS_ANALYSIS_DERIVS_SIMD_H

#include "core/simd.h"

struct mbs_data;
struct mbs_model;

/* The entry points of one variant: what the rest of the library calls (derivs.h and
   mbs.h declare them under their own names). */
typedef struct mbs_derivs_simd {
    int (*forward)(struct mbs_data *d, double *dq, double *dv, int ld, double *Minv, int ldm,
                   const char *call);
    int (*world_aba_model)(const struct mbs_model *m);
    int (*world_aba_applies)(const struct mbs_data *d);
    int (*inverse_dynamics_derivatives)(struct mbs_data *d, const double *qacc,
                                        double *dtau_dq, double *dtau_dv, double *dtau_dqacc);
    int (*forward_dynamics_derivatives)(struct mbs_data *d, double *dqacc_dq,
                                        double *dqacc_dv, double *dqacc_dtau);
} mbs_derivs_simd;

/* The table of each variant (NULL where not built), indexed by mbs_simd_kind. */
extern const mbs_derivs_simd *const mbs_derivs_simd_tables[MBS_SIMD_NKIND];

#ifdef MBS_SIMD_VARIANT
/* minv.c */
#define mbs_derivs_solve MBS_SIMD_NAME(mbs_derivs_solve)
#define mbs_derivs_minv MBS_SIMD_NAME(mbs_derivs_minv)
#define mbs_derivs_aba_world MBS_SIMD_NAME(mbs_derivs_aba_world)
/* rnea_lanes.c */
#define mbs_derivs_body_inputs MBS_SIMD_NAME(mbs_derivs_body_inputs)
#define mbs_derivs_bodies MBS_SIMD_NAME(mbs_derivs_bodies)
#define mbs_derivs_lane_inputs MBS_SIMD_NAME(mbs_derivs_lane_inputs)
#define mbs_derivs_one_dof MBS_SIMD_NAME(mbs_derivs_one_dof)
/* rnea_pairs.c */
#define mbs_derivs_pairs MBS_SIMD_NAME(mbs_derivs_pairs)
/* world_aba.c */
#define mbs_derivs_world_aba_model MBS_SIMD_NAME(mbs_derivs_world_aba_model)
#define mbs_derivs_world_aba_applies MBS_SIMD_NAME(mbs_derivs_world_aba_applies)
#define mbs_derivs_world_aba MBS_SIMD_NAME(mbs_derivs_world_aba)
/* aba_derivatives.c */
#define mbs_derivs_forward MBS_SIMD_NAME(mbs_derivs_forward)
#define mbs_forward_dynamics_derivatives MBS_SIMD_NAME(mbs_forward_dynamics_derivatives)
/* rnea_derivatives.c */
#define mbs_derivs_world_acceleration MBS_SIMD_NAME(mbs_derivs_world_acceleration)
#define mbs_derivs_subtree_pose MBS_SIMD_NAME(mbs_derivs_subtree_pose)
#define mbs_derivs_joint_velocity MBS_SIMD_NAME(mbs_derivs_joint_velocity)
#define mbs_derivs_joint_acceleration MBS_SIMD_NAME(mbs_derivs_joint_acceleration)
#define mbs_derivs_world_fixed MBS_SIMD_NAME(mbs_derivs_world_fixed)
#define mbs_derivs_rnea MBS_SIMD_NAME(mbs_derivs_rnea)
#define mbs_derivs_block_finite MBS_SIMD_NAME(mbs_derivs_block_finite)
#define mbs_derivs_trees_only MBS_SIMD_NAME(mbs_derivs_trees_only)
#define mbs_derivs_eval MBS_SIMD_NAME(mbs_derivs_eval)
#define mbs_derivs_tree MBS_SIMD_NAME(mbs_derivs_tree)
#define mbs_inverse_dynamics_derivatives MBS_SIMD_NAME(mbs_inverse_dynamics_derivatives)
#define mbs_derivs_loops_only MBS_SIMD_NAME(mbs_derivs_loops_only)
/* loop_derivatives.c */
#define mbs_derivs_loops MBS_SIMD_NAME(mbs_derivs_loops)

/* The public entry points under the variant's names (mbs.h declares the dispatching ones). */
int mbs_inverse_dynamics_derivatives(struct mbs_data *d, const double *qacc, double *dtau_dq,
                                     double *dtau_dv, double *dtau_dqacc);
int mbs_forward_dynamics_derivatives(struct mbs_data *d, double *dqacc_dq, double *dqacc_dv,
                                     double *dqacc_dtau);
#endif

#endif
