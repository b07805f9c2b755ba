/* Joint types behind a const ops table: one file per type in src/joints/, no algorithm
 * switches on the type. Conventions of q and v per type: include/mbs/mbs.h. */
#ifndef MBS_JOINTS_JOINT_H
#define MBS_JOINTS_JOINT_H

#include "mbs/mbs.h"
#include "core/spatial.h"

typedef struct mbs_joint_ops mbs_joint_ops;
typedef struct mbs_joint_kernels mbs_joint_kernels;

/* ---- cut joints (loop closure): every cut-joint type is a short list of
 * scalar constraint rows built from three geometric primitives. With x_p, x_c the origins
 * of Fp (on the parent) and Fc (on the child) and d = x_c - x_p (world):
 *   POINT     h = e . d                         e fixed in Fp (unit)
 *   ANGLE     h = scale (d_p . d_c - target)    d_p fixed in Fp, d_c fixed in Fc (unit)
 *   DISTANCE  h = |d| - target                  (target = length > 0)
 * Each row is the power pairing of a world wrench W acting on the child (and -W on the
 * parent) with the relative motion: POINT W = force e at x_c, ANGLE W = torque
 * scale (d_c x d_p), DISTANCE W = force d/|d| at x_c; its multiplier is the magnitude of
 * that wrench (the cut force along e, the cut torque about scale (d_c x d_p), the push of a
 * rod along d). */
#define MBS_CUT_MAX_ROWS 6
typedef enum mbs_cut_kind {
    MBS_CUT_POINT, MBS_CUT_ANGLE, MBS_CUT_DISTANCE,
    MBS_CUT_CURVE /* a curve joint's contact row (src/contact/: target 0 gap, 1 slip) */
} mbs_cut_kind;
typedef struct mbs_cut_row {
    mbs_cut_kind kind;
    double e[3];    /* POINT: e; ANGLE: d_p (joint rows: Fp coordinates; model: parent body) */
    double f[3];    /* ANGLE: d_c (joint rows: Fc coordinates; model: child body) */
    double target;  /* ANGLE: d_p . d_c when the joint is closed; DISTANCE: the length */
    double scale;   /* ANGLE: sign and scale of the row; POINT, DISTANCE: 1 */
} mbs_cut_row;

/* One joint of a compiled model (immutable). */
typedef struct mbs_joint_model {
    const mbs_joint_ops *ops;
    char *name;              /* never NULL ("" if unnamed) */
    mbs_joint_type type;
    mbs_rotation rotation;
    int parent, child;       /* body ids as the user gave them */
    mbs_pose frame_parent;   /* joint frame Fp in parent body coordinates */
    mbs_pose frame_child;    /* joint frame Fc in child body coordinates */
    int frame_child_identity;/* 1 when frame_child is the identity (skip a transform) */
    double axis[3];          /* unit */
    double axis2[3];         /* unit; universal: orthogonal to axis not required */
    double axis3[3];         /* planar: unit axis x axis2 (in-plane y direction) */
    double length;           /* distance joint */
    int cut;                 /* 1: cut joint (constraint), 0: tree edge */
    int automatic;           /* 1: free root joint added by compile */
    int state_priority;
    int nq, nv;              /* 0, 0 for a cut joint */
    int qadr, vadr;          /* first index in q / v; -1 for a cut joint */
    int auxadr;              /* first index in data aux (ops->naux values); -1 if none */
    /* cut joints only (compile fills them from ops->cut_rows): */
    int conadr;              /* first constraint row in the model's rows; -1 for a tree joint */
    int ncon;                /* number of constraint rows (0 for a tree joint) */
    mbs_cut_row rows[MBS_CUT_MAX_ROWS]; /* e in parent body, f in child body coordinates */
    double con_length;       /* characteristic length of the loop (scales POINT/DISTANCE rows) */
    /* native rotors on this 1-dof tree joint (src/elements/): sums over the rotors housed
       by the joint's parent body of J n n^T (parent coordinates) and J ratio n, and over
       those housed by the parent or the world of J ratio^2; all 0 without rotors */
    double rotor_I[9], rotor_U[3], rotor_D;
    int rotor_parent;        /* 1 when rotor_I / rotor_U are nonzero (parent not the world) */
    int point_mass;          /* 1: reduced at compile for its point-mass child (src/core/
                                point_mass.c): translational, swing or fixed ops */
    /* curve joints (src/contact/): their two curves, owned by the model; NULL otherwise */
    struct mbs_curve_pair *curve;
    /* tree joints: the kernels of the hot passes (src/core/kernels.h), picked at compile;
       NULL for a cut joint */
    const mbs_joint_kernels *kern;
} mbs_joint_model;

struct mbs_joint_ops {
    const char *name;  /* "revolute", ... */
    int nq, nv;
    int naux;          /* per-data auxiliary doubles (Cardan reference frame: 9), else 0 */
    /* Pose of the child joint frame Fc in the parent joint frame Fp. aux may be NULL if
       naux == 0. */
    void (*transform)(const mbs_joint_model *j, const double *aux, const double *q, mbs_pose *X);
    /* Motion subspace S (6 x nv) stored as nv motion vectors S[6k .. 6k+5] in Fc coordinates
       (angular first; linear = velocity of the Fc origin), and the bias c_J = (dS/dt) v,
       the apparent derivative of S's Fc coordinates (RBDA §4.4). cJ may be NULL. */
    void (*motion)(const mbs_joint_model *j, const double *q, const double *v, double *S,
                   double cJ[6]);
    /* q-manifold: q_out = q (+) dt v; q_out may alias q. */
    void (*integrate)(const mbs_joint_model *j, const double *q, const double *v, double dt,
                      double *q_out);
    /* v_out with integrate(q0, v_out, 1) == q1. */
    void (*difference)(const mbs_joint_model *j, const double *q0, const double *q1,
                       double *v_out);
    /* Time derivative of q for velocity v: qdot (nq) = G(q) v, e.g. ½ q ⊗ (0, w). */
    void (*qdot)(const mbs_joint_model *j, const double *q, const double *v, double *qdot);
    void (*neutral)(const mbs_joint_model *j, double *q);
    void (*normalize)(const mbs_joint_model *j, double *q);
    /* Set aux to its initial value (identity reference frame); NULL if naux == 0. */
    void (*aux_init)(const mbs_joint_model *j, double *aux);
    /* Cardan: when the middle angle nears its singularity, change the reference frame in
       aux and rewrite q, v so the motion is unchanged; returns 1 if it did. NULL if never. */
    int (*rebase)(const mbs_joint_model *j, double *aux, double *q, double *v);
    /* Like motion, for a joint whose S depends on aux: the free Cardan joint, whose linear
       columns are (Fix R(a))^T e_k (linear velocity given in Fp). NULL when motion() is
       exact for every aux. Call mbs_joint_motion() below, which picks the right one. */
    void (*motion_aux)(const mbs_joint_model *j, const double *aux, const double *q,
                       const double *v, double *S, double cJ[6]);
    /* The constraint rows of this type used as a cut joint, in joint-frame coordinates
       (e, d_p in Fp; d_c in Fc; see mbs_cut_row); returns their number (<=
       MBS_CUT_MAX_ROWS). Called once per cut joint at compile. */
    int (*cut_rows)(const mbs_joint_model *j, mbs_cut_row *rows);
    /* ---- derivatives and linearisation (src/analysis/)
       The joint as a chain of elementary motions: dof l moves the world motion-subspace
       column S_k of dof k of the same joint as dS_k/dq_l = S_l x S_k (q_l a tangent
       coordinate) when level[l] <= level[k], and not at all when level[l] > level[k]; dofs
       of one level form one rigid motion (the three of a quaternion ball). Nondecreasing
       along the dofs; all 0 (the default) for a joint whose S is constant in Fc. */
    unsigned char level[6];
    /* d/dt of the tangent offset dq = difference(q*(t), q(t)) of a motion near the reference
       motion q*(t) with velocity v: d(dq)/dt = dv + T dq to first order; writes T (nv x nv,
       row-major). NULL when T = 0 (every chart whose integrate is q + dt v). */
    void (*chart_rate)(const mbs_joint_model *j, const double *v, double *T);
    /* Kernels of the hot passes specialised to this tree joint's geometry (src/core/
       kernels.h), or NULL when the generic ones serve it. Called once per tree joint at
       compile; NULL when the type has no specialisation. */
    const mbs_joint_kernels *(*kernels)(const mbs_joint_model *j);
};

/* S and c_J of joint j (see motion above); aux = the data's aux + j->auxadr, or NULL when
   the joint has no aux. Use this rather than ops->motion. */
static inline void mbs_joint_motion(const mbs_joint_model *j, const double *aux,
                                    const double *q, const double *v, double *S, double cJ[6])
{
    if (j->ops->motion_aux)
        j->ops->motion_aux(j, aux, q, v, S, cJ);
    else
        j->ops->motion(j, q, v, S, cJ);
}

/* The ops of a joint type with its rotation option; NULL for a type that has no tree
   coordinates (distance). */
const mbs_joint_ops *mbs_joint_ops_for(mbs_joint_type type, mbs_rotation rotation);
/* Like mbs_joint_ops_for, but also the constraint-only types (distance: cut_rows only). */
const mbs_joint_ops *mbs_joint_ops_any(mbs_joint_type type, mbs_rotation rotation);

/* Row builders for the cut_rows ops (src/joints/cut_rows.c); each returns rows written. */
/* Unit u1, u2 perpendicular to the unit axis a with (u1, u2, a) right-handed: u1 from the
   coordinate axis least aligned with a (e_x, e_y for a = e_z). */
void mbs_cut_perp(const double a[3], double u1[3], double u2[3]);
/* One POINT row along e. */
int mbs_cut_point(mbs_cut_row *row, const double e[3]);
/* Three POINT rows along the Fp axes e_x, e_y, e_z: the cut force in Fp. */
int mbs_cut_points3(mbs_cut_row *rows);
/* Two POINT rows along u1, u2 of mbs_cut_perp(a): the force perpendicular to a. */
int mbs_cut_points_perp(mbs_cut_row *rows, const double a[3]);
/* ANGLE row keeping the angle of d_p (Fp) and d_c (Fc) at its neutral value; the row's
   multiplier is the torque about scale (d_c x d_p). */
int mbs_cut_angle(mbs_cut_row *row, const double dp[3], const double dc[3], double scale);
/* Two ANGLE rows keeping axis a of Fc parallel to a of Fp; multipliers: torques about u1,
   u2 of mbs_cut_perp(a), or about b1, b2 when given (unit, a = b1 x b2). */
int mbs_cut_keep_axis(mbs_cut_row *rows, const double a[3], const double *b1,
                      const double *b2);
/* Three ANGLE rows locking the relative rotation; multipliers: torques about e_x, e_y, e_z
   of Fp. */
int mbs_cut_lock_rotation(mbs_cut_row *rows);

extern const mbs_joint_ops mbs_joint_revolute_ops;
extern const mbs_joint_ops mbs_joint_prismatic_ops;
extern const mbs_joint_ops mbs_joint_cylindrical_ops;
extern const mbs_joint_ops mbs_joint_universal_ops;
extern const mbs_joint_ops mbs_joint_spherical_quat_ops;
extern const mbs_joint_ops mbs_joint_spherical_cardan_ops;
extern const mbs_joint_ops mbs_joint_planar_ops;
extern const mbs_joint_ops mbs_joint_free_quat_ops;
extern const mbs_joint_ops mbs_joint_free_cardan_ops;
extern const mbs_joint_ops mbs_joint_fixed_ops;
extern const mbs_joint_ops mbs_joint_distance_ops;
extern const mbs_joint_ops mbs_joint_translational_ops;
/* The spherical joint into a point mass, reduced to its two swing rates (swing.c). */
extern const mbs_joint_ops mbs_joint_swing_ops;
extern const mbs_joint_ops mbs_joint_curve_ops; /* src/contact/curve_joint.c */


/* The Euclidean chart (src/joints/euclidean.c) of the joints whose q and v are the same
   numbers: integrate q + dt v, difference q1 - q0, qdot = v, neutral 0, normalize none. */
void mbs_joint_euclid_integrate(const mbs_joint_model *j, const double *q, const double *v,
                                double dt, double *q_out);
void mbs_joint_euclid_difference(const mbs_joint_model *j, const double *q0, const double *q1,
                                 double *v_out);
void mbs_joint_euclid_qdot(const mbs_joint_model *j, const double *q, const double *v,
                           double *qdot);
void mbs_joint_euclid_neutral(const mbs_joint_model *j, double *q);
void mbs_joint_euclid_normalize(const mbs_joint_model *j, double *q);

#endif
