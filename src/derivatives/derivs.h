/* Derivatives of the dynamics of trees, with linearisation and modes (src/analysis/) on top: the
 * workspace, sized at mbs_data_create, and the passes shared by their files.
 *
 * Every quantity of the derivative passes is expressed in world axes about the origin of the
 * root body of its subtree at the current configuration (a fixed frame, as the CRBA's), so
 * a system far from the world origin loses no digits. q-derivatives are in tangent
 * coordinates: a perturbation dq moves q as mbs_integrate_q(q, dq, 1) does, so the child of
 * dof l moves by the world twist S_l (the motion-subspace column). Every joint is a chain of
 * elementary motions (joint.h, level), which gives the rule the passes rest on (Carpentier
 * and Mansard 2018, "Analytical Derivatives of Rigid Body Dynamics Algorithms", §III):
 *     dS_k/dq_l = S_l x S_k   when l precedes k (an ancestor joint's dof, or a dof of the
 *                             same joint with level[l] <= level[k]), else 0.
 * Per dof the forward pass keeps (world) S, dV = u x S, dA = alpha x S + u x dV and
 * E = dV + Sdot, u and alpha the velocity and acceleration of the frame just before the
 * dof's level (the parent body's for the first level), Sdot = w x S with w the velocity after
 * it. Then dv_i/dq_l = S_l x v_i + dV_l, da_i/dq_l = S_l x a_i + dV_l x v_i + dA_l and
 * da_i/dv_l = S_l x v_i + E_l for every body i moved by dof l. */
#ifndef MBS_ANALYSIS_DERIVS_H
#define MBS_ANALYSIS_DERIVS_H

#include "core/internal.h"
#include "derivatives/derivs_simd.h"

/* Per dof: [S | dV | dA | E], 24 doubles, world axes about the subtree's root origin. */
#define MBS_DV_S 0
#define MBS_DV_DV 6
#define MBS_DV_DA 12
#define MBS_DV_E 18
#define MBS_DV_STRIDE 24

/* Eight doubles of contiguous columns (M^-1 and its products, the lanes, the pairs): the SIMD
   layer's mbs_d8, as wide as the variant these files are compiled for (derivs_simd.h). */
#define D8_ZERO MBS_D8_ZERO
#define D8_AXPY(acc, s, x) mbs_d8_axpy(&(acc), (s), &(x)) /* acc += s x */
#define D8_AXMY(acc, s, x) mbs_d8_axmy(&(acc), (s), &(x)) /* acc -= s x */
#define D8_SCALE(o, s, x) mbs_d8_scale(&(o), (s), &(x))   /* o = s x */
#define D8_SUB(acc, x) mbs_d8_sub(&(acc), &(x))
#define D8_LANE(v, e) mbs_d8_lane(&(v), (e))
#define D8_LOAD(v, p) mbs_d8_load(&(v), (p))
#define D8_STORE(p, v) mbs_d8_store((p), &(v))

/* Central-difference step of the force elements without an analytic derivative (force
   callbacks), in each tangent coordinate and, times max(1, |v_l|), each rate. */
#define MBS_DERIV_FD_STEP 6e-6

/* The arrays of struct mbs_derivs whose sizes the model gives directly, allocated first by
   mbs_derivs_create (derivs_data.c): type, field, number of elements. One list, so that
   allocation, its check and free cannot drift. The sizes name the creator's locals: nv, nq,
   nb = nbody, nux, nx = 2 nv + nux, nvx = nv + nux, nrow = cut-joint and coordinate rows,
   lwork = the eigenvalue solver's workspace, lnv, lmn = nv and min(cut-joint rows, nv) with
   cut joints, else 0. The arrays laid out by the column plan (slots,
   steps, lanes, the world-frame pass) are allocated after it, by their own functions. */
#define MBS_DERIVS_ARRAYS(X) \
    X(double, dof, MBS_DV_STRIDE * nv) \
    X(double, o, 3 * nb)               \
    X(double, vel, 6 * nb)             \
    X(double, acc, 6 * nb)             \
    X(double, B11, 9 * nb)             \
    X(double, P, 3 * nb)               \
    X(double, F, 6 * nb)               \
    X(double, K, 36 * nb)              \
    X(double, ja, 3 * nv)              \
    X(double, jb, 3 * nv)              \
    X(double, rr, 3 * nv)              \
    X(double, cc, 3 * nv)              \
    X(double, q0, nq)                  \
    X(double, v0, nv)                  \
    X(double, tp, nv)                  \
    X(double, tm, nv)                  \
    X(double, fb, 6 * nb)              \
    X(double, A, nx * nx)              \
    X(double, wr, nx)                  \
    X(double, wi, nx)                  \
    X(double, eig_work, lwork)         \
    X(double, qs, nq)                  \
    X(double, vs, nv)                  \
    X(double, qacc_s, nv)              \
    X(double, lam_s, nrow)             \
    X(double, up, nvx)                 \
    X(double, um, nvx)                 \
    X(double, dqt, nv)                 \
    X(double, T, 36)                   \
    X(double, taus, nv)                \
    X(double, offp, nv)                \
    X(double, offm, nv)                \
    X(double, uxs, nux)                \
    X(double, lTq, lnv * lnv)          \
    X(double, lTv, lnv * lnv)          \
    X(double, lLU, lmn * lmn)          \
    X(double, lJ, lmn * lnv)           \
    X(double, lM, lnv * lnv)           \
    X(double, lMB, lnv * lnv)          \
    X(double, lm, lnv * lnv)           \
    X(double, ltmp, 2 * lnv)           \
    X(double, lB, lnv * lnv)           \
    X(double, lDv, lnv * lnv)          \
    X(double, lX, 3 * lnv * lnv)       \
    X(double, lR2, 3 * lnv * lmn)      \
    X(double, llam, lmn)               \
    X(double, lqdd, lnv)               \
    X(double, lav, 3 * lmn)            \
    X(double, lc, lnv)                 \
    X(int, lpiv, lmn)                  \
    X(mbs_rbi, Ic, nb)                 \
    X(int, list, nv)                   \
    X(int, ident, nv)                  \
    X(unsigned char, mark, nv)

typedef struct mbs_derivs {
    int nv, nq, nbody;
    double *dof;     /* [24 nv] S, dV, dA, E of each dof */
    double *o;       /* [3 nbody] body origin relative to its root body's origin, world axes */
    double *vel;     /* [6 nbody] body velocity (world axes, root origin) */
    double *acc;     /* [6 nbody] body acceleration, gravity as a = -g at the world */
    mbs_rbi *Ic;     /* [nbody] composite inertia (the body's alone after the forward pass) */
    double *B11;     /* [9 nbody] composite of the upper-left block of B(v) (see the .c) */
    double *P;       /* [3 nbody] composite linear momentum */
    double *F;       /* [6 nbody] composite force I a + v x* I v - f_ext */
    double *K;       /* [36 nbody] composite stiffness of forces fixed in the world */
    int has_K;       /* 1 when some body has a host wrench or point gravity */
    /* force elements (analytic): gathered dofs of the two bodies' paths */
    int *list;            /* [nv] */
    int *ident;           /* [nv] 0, 1, ..., nv - 1: every dof independent (numerical
                             linearisation of a tree, linearize.c) */
    unsigned char *mark;  /* [nv] 1: on a's path, 2: on b's path, 3: both */
    double *ja, *jb, *rr, *cc; /* [3 nv] point Jacobian columns, dr_dot/dq, dF/dq */
    /* force elements by central differences */
    double *q0, *v0;      /* [nq], [nv] the state being differentiated */
    double *tp, *tm;      /* [nv] the elements' generalized forces at +h and -h */
    double *fb;           /* [6 nbody] backward-pass scratch */
    /* linearisation and modes */
    int nx_max;           /* 2 nv + nux */
    double *A;            /* [nx_max^2] */
    double *wr, *wi;      /* [nx_max] */
    double *eig_work;     /* [lwork] dgeev workspace */
    int lwork;
    double *qs, *vs, *taus, *qacc_s, *lam_s; /* [nq], [nv], [nv], [nv], [ncon] the caller's
                                                state (loops) */
    double *up, *um;      /* [nv + nux] perturbed accelerations and user derivatives */
    double *dqt;          /* [nv] a tangent step (loops) */
    double *offp, *offm;  /* [nv] closed tangent offsets at +h and -h (loops) */
    double *uxs;          /* [nux] the caller's user states (numerical linearisation) */
    double *T;            /* [36] a joint's chart rate */
    /* derivatives of closed loops (loop_derivatives.c), r <= lmn active rows, nd = nv - r */
    double *lTq, *lTv;    /* [nv nv] dtau_ID/dq, dtau_ID/dv at the constrained qacc */
    double *lLU;          /* [r r] LU of J_v, column-major */
    double *lJ;           /* [r nv] the active rows at q (scaled, row-major) */
    double *lM, *lMB;     /* [nv nv] M, and M B (nv x nd, column-major) */
    double *lm;           /* [nd nd] Cholesky factor of the reduced mass B^T M B */
    double *ltmp;         /* [2 nv] a column's scratch */
    int *lpiv;            /* [r] its pivots */
    double *lB, *lDv;     /* [nv nd] columns B_j = dq/du_j, dv/du_j (v_u held) */
    double *lX, *lR2;     /* [nv 3nv], [r 3nv] right-hand sides of the KKT system by column
                             (the solutions replace lX's) */
    double *llam;         /* [r] scaled multipliers of the active rows */
    double *lqdd, *lc;    /* [nv] constrained qacc, a column's (dJ^T B_j) lam */
    double *lav;          /* [3 r] row slopes and a solve's scratch */
    /* M^-1 and M^-1 B by the articulated-body recursion (minv.c) */
    int ldp;              /* nv rounded up to a multiple of 8: row stride of Minv */
    double *Minv;         /* [nv ldp] */
    double *X;            /* [nv 2 ldp] dtau/dq | dtau/dv side by side (row stride 2 nv
                             rounded up to 8, or 2 (nv - ndead): aba_derivatives.c), then
                             M^-1 of them */
    double *Xmem;         /* X's allocation: 8 doubles before it, so that the pointer of a
                             half whose first ndead columns are left out stays inside */
    double *Uw, *Ww;      /* [6 nv] U = IA S of each dof, world axes (subtree root origin),
                             and W_k = sum_l Dinv[k][l] U_l over its joint */
    double *Pm;           /* [nslot 12 ldp] force / acceleration columns, one slot per live
                             body */
    int *pslot, *fslot;   /* [nbody] slot of a body's accelerations / forces, -1 if none */
    int nslot;
    /* steps of the column passes: a joint alone, or a run of one-dof joints each the only
       child joint of the previous one's child body (in any tree order), parent to child */
    int nstep;
    int *step_at;         /* [ntree + 1] start of step s in step_tree / step_dof (steps in
                             the tree order of their top joints) */
    int *step_tree;       /* [ntree] tree index of each step's joints, parent to child */
    int *step_dof;        /* [ntree] their first dof (vadr) */
    int *bstep;           /* [ntree] the steps in backward order: deepest joint last first */
    unsigned char *fassign; /* [ntree] per step: 1 when it is the first to pass forces to its
                               top's parent in backward order (assigned), else added */
    /* what the backward passes may skip (branch-induced sparsity; the layout is depth-first,
       so the subtree of a joint into body b holds the dofs [vadr, sub_end[b])) */
    int *sub_end;         /* [nbody] one past the last dof of the body's joint's subtree */
    int *body_vadr;       /* [nbody] first dof of the joint into each body */
    int *dof_body;        /* [nv] the body each dof moves (its joint's child) */
    int joint_elements;   /* 1 when every force element acts on one joint's coordinates
                             (joint springs, joint forces): they read q and v alone and add
                             to gen_force alone (f_ext then holds gravity and host wrenches
                             only), and dtau/dq, dtau/dv keep M's branch-induced sparsity */
    int *tau_at[2];       /* [nstep + 1] start of step s's intervals in tau_ivl, per layout
                             of X: [0] every column, [1] without the first lin_root columns
                             of each half (NULL when lin_root is 0) */
    int *tau_ivl[2];      /* intervals [g0, g1) of column groups of X (dtau/dq | dtau/dv)
                             where a step's rows can be nonzero: its top joint's ancestors
                             and subtree (every group when joint_elements is 0) */
    /* A floating base's translations (Galilean invariance): when the first tree joint is a
       free joint on the world (dofs 0..2 its translations, linear velocity in world axes)
       and nothing in the model depends on where the system is or how fast it translates
       (joint_elements, none on those dofs; the world-frame pass then also means
       uniform gravity and no forces fixed in the world), dtau/dq and dtau/dv have zero
       columns 0..2, and so have dqacc/dq and dqacc/dv. */
    int lin_root;         /* 3 then, else 0 */
    int ndead;            /* columns left out of X in the current call (0, or lin_root in
                             the world-frame path with both dq and dv, so the lanes' walks):
                             the passes write no entry of them (rnea_pairs.c root_pairs,
                             rnea_derivatives.c same_joint_entries) */
    /* ancestor pairs eight at a time (rnea_pairs.c) */
    int cap;              /* ldp: row length of the path */
    double *path;         /* [21 cap] the ancestors of the joint visited, blocks of 8
                             positions by 21 component rows (rnea_pairs.c) */
    int *pidx;            /* [cap] their dofs */
    double *kvec;         /* [MBS_KVEC ldkv] the vectors of each dof its pairs read, in
                             component rows (component c of dof i at ldkv c + i) */
    int ldkv;             /* nv + 8 */
    double *lane;         /* [MBS_LANE_N lds] the inputs of the one-dof joints' terms
                             (rnea_lanes.c), in rows by their place in `one` */
    int lds;              /* none rounded up to 8 */
    double *brow;         /* [MBS_BODY_N ldb] the inputs of each body's terms (rnea_lanes.c), in rows
                             by tree position */
    int ldb;              /* ntree rounded up to 8 */
    int *dslot;           /* [nv] place of each dof in `one`, -1 for other joints' */
    int *one, none;       /* [nv] the dofs of one-dof joints, their count */
    /* world-frame articulated-body pass (world_aba.c) */
    double *cb;           /* [6 nbody] the joint's velocity-product acceleration of each body
                             (world axes, subtree root origin) */
    double *kq;           /* [nv] a one-dof joint's qdd at a_p = 0 (D^-1 (u - U^T (c - a0))) */
    double *IAw;          /* [48 nbody] articulated inertias, rows of 8 (the last two zero) */
    double *sd;           /* [6 nv] Sdot of each dof of a multi-dof joint (its levels) */
    int *wtree;           /* [4 ntree] each tree joint's child, parent, nv, vadr (tree order) */
    int world_model;      /* mbs_derivs_world_aba_model */
} mbs_derivs;

/* Per dof, the vectors its pairs with ancestors read: Y, Z, P + SF, Q (rnea_pairs.c). */
#define MBS_KVEC 21
/* Per one-dof joint and per body, the inputs of their terms (rnea_lanes.c). */
#define MBS_LANE_N 52
#define MBS_BODY_N 37

/* B11 = [w]x J - J [w]x - (h u^T + u h^T) + 2 (u . h) I - [n]x of an inertia (J about the
   origin, first moment h) moving with v = [w; u], momentum [n; P]. */
static inline void mbs_inertia_b11(const mbs_rbi *I, const double v[6], const double n[3], double B[9])
{
    const double *J = I->I, *h = I->h, *w = v, *u = v + 3;
    double A[9]; /* [w]x J; the commutator [w]x J - J [w]x = A + A^T (J symmetric) */
    for (int j = 0; j < 3; ++j) {
        A[j] = -w[2] * J[3 + j] + w[1] * J[6 + j];
        A[3 + j] = w[2] * J[j] - w[0] * J[6 + j];
        A[6 + j] = -w[1] * J[j] + w[0] * J[3 + j];
    }
    const double uh = 2.0 * v3_dot(u, h);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            B[3 * i + j] = A[3 * i + j] + A[3 * j + i] - (h[i] * u[j] + u[i] * h[j]) +
                           (i == j ? uh : 0.0);
    B[1] += n[2], B[2] -= n[1], B[3] -= n[2], B[5] += n[0], B[6] += n[1], B[7] -= n[0];
}

/* Bc x = [B11 x_ang; -2 P x x_ang] of a composite (B11, P), see rnea_derivatives.c. */
static inline void mbs_bc_mulv(const double B11[9], const double P[3], const double x[6],
                               double o[6])
{
    m3_mulv(o, B11, x);
    v3_cross(o + 3, x, P);
    v3_scale(o + 3, o + 3, 2.0);
}

/* Allocate / free d->derivs (MBS_OK or MBS_ERR_NOMEM). */
int mbs_derivs_create(mbs_data *d);
void mbs_derivs_destroy(mbs_data *d);

/* 1 when dof l precedes dof k on one path (l's joint an ancestor of k's, or the same joint
   with level[l] <= level[k]); both must lie on one root-to-body path. */
static inline int mbs_dof_precedes(const mbs_model *m, int l, int k)
{
    const int jl = m->dof_joint[l], jk = m->dof_joint[k];
    if (jl != jk) return l < k;
    const mbs_joint_model *jm = &m->joints[jl];
    return jm->ops->level[l - jm->vadr] <= jm->ops->level[k - jm->vadr];
}

/* The recursive passes at the current kinematics (mbs_kinematics done) and acceleration
   qacc (NULL: the forward quantities are those mbs_derivs_world_aba left): add dtau/dq, dtau/dv of the inertial forces, gravity and host wrenches, and write
   M = dtau/dqacc, into nv x nv row-major matrices of row stride ld (M: ldm) (each
   nullable; the caller zeroes them first). Force elements are left to mbs_derivs_elements. */
void mbs_derivs_rnea(mbs_data *d, const double *qacc, double *dq, double *dv, int ld,
                     double *M, int ldm);
/* The entries of every dof with its ancestor dofs of other joints (after the backward pass
   kept their vectors, no forces fixed in the world) into dq, dv (row stride ld) and M
   (nullable, ldm): dq, dv added to, M assigned. */
void mbs_derivs_pairs(const mbs_data *d, double *dq, double *dv, int ld, double *M, int ldm);
/* During a forward pass, at tree joint t into body b once its origin and velocity (with_acc:
   and acceleration) are known: its inputs into w->brow, for mbs_derivs_bodies. */
void mbs_derivs_body_inputs(const mbs_data *d, mbs_derivs *w, int t, int b, int with_acc);
/* Each body's Ic (world axes, subtree root origin), F, P and B11, eight at a time, after a
   forward pass that left their inputs (mbs_derivs_body_inputs; without the acceleration,
   F = v x* Ic v) and skipped them (no forces fixed in the world). */
void mbs_derivs_bodies(const mbs_data *d);
/* During the backward pass, at a one-dof joint (dof i into body b) whose composites are
   complete: its inputs into w->lane, for mbs_derivs_one_dof. */
void mbs_derivs_lane_inputs(mbs_derivs *w, int i, int b);
/* The vectors (kvec) and the diagonal entries of dq, dv, M (as mbs_derivs_pairs) of the
   dofs of one-dof joints, eight at a time, after the backward pass that skipped them. */
void mbs_derivs_one_dof(const mbs_data *d, double *dq, double *dv, int ld, double *M, int ldm);
/* Add the force elements' parts (after mbs_derivs_rnea): analytic ones through
   mbs_derivs_element_fn, the others (force callbacks) by central differences of their forces alone; q and v are
   restored bitwise. MBS_OK or the status of a failing element. */
int mbs_derivs_elements(mbs_data *d, double *dq, double *dv, int ld);
/* An element's analytic part of dtau/dq (tangent q) and dtau/dv added into nv x nv row-major
   matrices of row stride ld (either NULL), after the forward pass of the derivatives. */
typedef void (*mbs_force_derivative_fn)(const mbs_force_model *f, mbs_data *d, double *dtau_dq,
                                        double *dtau_dv, int ld);
/* The analytic derivative of f's kind (element_derivatives.c), NULL: central differences. */
mbs_force_derivative_fn mbs_derivs_element_fn(const mbs_force_model *f);

/* Add the dofs on the path of body to the world to d->derivs->list (after the n already
   there, each once), setting bit in their mark; returns the new count. */
int mbs_derivs_gather(const mbs_data *d, int body, unsigned char bit, int n);
/* World point p (relative to the root origin of body's subtree) of a body point given in
   body coordinates; the world gives the point itself. */
void mbs_derivs_point(const mbs_data *d, int body, const double point[3], double p[3]);
/* Velocity at p of the twist X: X_lin + X_ang x p. */
static inline void mbs_twist_at(double o[3], const double X[6], const double p[3])
{
    v3_cross(o, X, p);
    v3_add(o, o, X + 3);
}

/* Origin o_b of body b (parent p) relative to its subtree's root body origin, world axes,
   from the parent's (parents first); returns it. */
static inline const double *mbs_derivs_origin(const mbs_data *d, mbs_derivs *w, int b, int p)
{
    double *o = w->o + 3 * b;
    if (p == 0) {
        o[0] = o[1] = o[2] = 0.0;
    } else {
        m3_mulv(o, d->x_world[p].R, d->x_up[b].p);
        v3_add(o, o, w->o + 3 * p);
    }
    return o;
}
/* S of dof i (child body b, origin o_b known) in world axes about the subtree root origin:
   [R s_ang; o x R s_ang + R s_lin]. */
static inline void mbs_derivs_world_s(const mbs_data *d, const mbs_derivs *w, int i, int b,
                                      double S[6])
{
    xm_apply_inv_rp(S, d->x_world[b].R, w->o + 3 * b, d->S + 6 * i);
}
/* Pose of body b in its subtree's frame: world rotation, origin o_b (mbs_derivs_origin). */
void mbs_derivs_subtree_pose(const mbs_data *d, mbs_derivs *w, int b, int p, mbs_pose *X);
/* S of the joint's dofs in world axes (X its subtree pose), then level by level (joint.h)
   their dV, E, Sdot (w->sd), the second term u x dV of dA, and the child's velocity u (given
   the parent's). */
void mbs_derivs_joint_velocity(const mbs_data *d, mbs_derivs *w, const mbs_joint_model *jm,
                               const mbs_pose *X, double u[6]);
/* After mbs_derivs_joint_velocity, level by level: dA = al x S + u x dV (with_da) and the
   child's acceleration al (given the parent's) at qacc (NULL: zero). */
void mbs_derivs_joint_acceleration(const mbs_data *d, mbs_derivs *w,
                                   const mbs_joint_model *jm, const double *qacc, int with_da,
                                   double al[6]);
/* The world's acceleration a0 of the derivative passes: -g for uniform gravity, else 0. */
void mbs_derivs_world_acceleration(const mbs_model *m, double a0[6]);
/* 1 when some body has a force fixed in the world (a host wrench, point gravity). */
int mbs_derivs_world_fixed(const mbs_data *d);

/* MBS_OK for a tree, MBS_ERR_STATE naming call for a model with cut joints. */
int mbs_derivs_trees_only(mbs_data *d, const char *call);
/* The same accepting cut joints (still refusing couplings, nodes and coordinate rows). */
int mbs_derivs_loops_only(mbs_data *d, const char *call);
/* MBS_OK when the n x n block at A (row stride ld; NULL allowed) is finite, else
   MBS_ERR_NONFINITE naming call and what. */
int mbs_derivs_block_finite(mbs_data *d, const double *A, int n, int ld, const char *call,
                            const char *what);
/* At the current kinematics: zero dq, dv (nullable, stride ld) and M (ldm), the
   recursive passes (qacc NULL: as mbs_derivs_rnea) and the force elements (the caller
   checks the outputs). */
int mbs_derivs_eval(mbs_data *d, const double *qacc, double *dq, double *dv, int ld, double *M,
                    int ldm, const char *call);
/* Of a tree's inverse dynamics at qacc: dtau/dq, dtau/dv (nullable) into nv x nv
   row-major matrices of row stride ld, and M (nullable, stride ldm) at the current state;
   validated, kinematics prepared. */
int mbs_derivs_tree(mbs_data *d, const double *qacc, double *dq, double *dv, int ld,
                    double *M, int ldm, const char *call);
/* After mbs_aba and mbs_derivs_rnea at one state: ABA's U and D^-1 U in world axes (for the
   two below). */
void mbs_derivs_aba_world(mbs_data *d);
/* The upper triangle of M^-1 into d->derivs->Minv (row stride ldp; left of the group of 8
   of its joint's first dof unset), after mbs_derivs_aba_world. */
void mbs_derivs_minv(mbs_data *d);
/* X <- M^-1 X over the columns [j0, j1) (multiples of 8, j1 <= 2 ldp) of the nv rows of X
   (stride ldx >= j1), after mbs_derivs_aba_world. */
void mbs_derivs_solve(mbs_data *d, double *X, int ldx, int j0, int j1);

/* 1 when mbs_derivs_world_aba can serve the model: no native rotors, no cut-joint rows. */
int mbs_derivs_world_aba_model(const mbs_model *m);
/* 1 when mbs_derivs_world_aba serves the model at its current inputs: world_model and no
   forces fixed in the world (a tree is assumed). */
int mbs_derivs_world_aba_applies(const mbs_data *d);
/* The articulated-body algorithm in world axes (world_aba.c), after mbs_kinematics and
   mbs_forces_accumulate: d->qacc, d->Dinv, w->Uw, w->Ww and the forward quantities of the
   derivative passes (dof, o, vel, acc, Ic, F, P, B11) at that qacc. MBS_OK, or
   MBS_ERR_SINGULAR (as mbs_aba) with qacc untouched. */
int mbs_derivs_world_aba(mbs_data *d);

/* Forward dynamics and dqacc/dq, dqacc/dv (either nullable; stride ld) and M^-1 (nullable,
   stride ldm) of a tree at the current state; qacc left in d->qacc. */
int mbs_derivs_forward(mbs_data *d, double *dq, double *dv, int ld, double *Minv, int ldm,
                       const char *call);

/* Forward dynamics of a model with cut joints and its derivatives in the independent
   coordinates of the current partition (loop_derivatives.c): dqacc/du, dqacc/du' into the
   independent columns of dq, dv (stride ld; the dependent ones zero), dqacc/dtau into P
   (stride ldm); each nullable. The state must be closed; qacc and lambda are left as the
   multiplier solution gives them. */
int mbs_derivs_loops(mbs_data *d, double *dq, double *dv, int ld, double *P, int ldm,
                     const char *call);

#endif
