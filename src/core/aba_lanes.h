/* Articulated-body forward dynamics of W instances of one tree model at once, one instance
 * per lane of the SIMD variant in use (core/simd.h: W = 8, 4, 2 or 1). Each instance's
 * kinematics and forces are computed by its own data as for one call; the three ABA passes
 * run on the W instances together (aba_lanes.c, compiled once per variant). */
#ifndef MBS_CORE_ABA_LANES_H
#define MBS_CORE_ABA_LANES_H

#include "core/model.h"

/* The widest lane count of any variant: workspaces are sized for it. */
#define MBS_LANES_MAX 8

/* Lane workspace of one model: every array holds W doubles per entry, lane-contiguous. */
typedef struct mbs_lanes_ws {
    double *X;    /* [12 nbody W] pose of each body in its parent: R (9), p (3) */
    double *vel;  /* [6 nbody W] body velocities */
    double *c;    /* [6 nbody W] velocity-product accelerations */
    double *fe;   /* [6 nbody W] external forces */
    double *S;    /* [6 nv W] motion subspace columns */
    double *tau;  /* [nv W] tau + force elements' generalized forces */
    double *IA;   /* [36 nbody W] articulated inertias */
    double *pA;   /* [6 nbody W] articulated bias forces */
    double *U;    /* [6 nv W] IA S */
    double *Dinv; /* [6 nv W] (S^T U)^-1 per joint, n x n at 6 vadr */
    double *u;    /* [nv W] tau - S^T pA */
    double *a;    /* [6 nbody W] body accelerations */
    int *axis;    /* [njoint] e when the joint's S is the unit vector e_e in every lane, -1 */
} mbs_lanes_ws;

/* The passes of one variant: qacc of the first n <= W data objects (all of model m) written
   into each data's qacc; their kinematics and forces current, or with kin (a model
   mbs_lanes_kinematics_applies to) computed in the lanes from q, v and tau. Returns 0, or the
   body + 1 of a singular articulated inertia with *lane its instance. */
typedef int (*mbs_lanes_aba_fn)(const mbs_model *m, mbs_data *const *d, int n,
                                mbs_lanes_ws *ws, int *lane, int kin);

/* 1 when the lanes may compute m's kinematics and forces themselves: every tree joint a
   revolute or prismatic joint about a fixed axis (parent joint frame a translation, child
   joint frame the body frame), no force elements, couplings or user states, uniform gravity
   or none (aba_lanes_dispatch.c). The instances' host wrenches are checked per call. */
int mbs_lanes_kinematics_applies(const mbs_model *m);
/* ws->axis of m's joints, once at creation (aba_lanes_dispatch.c). */
void mbs_lanes_axes(const mbs_model *m, int *axis);

/* The lane count and the passes of the variant in use (aba_lanes_dispatch.c). */
int mbs_lanes_variant_width(void);
mbs_lanes_aba_fn mbs_lanes_variant_aba(void);

#endif
