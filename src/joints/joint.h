/* Joint types behind a const ops table: one file per type in src/joints/, no algorithm
 * switches on the type. Conventions of q and v per type: include/mbs/mbs.h. */
#ifndef MBS_JOINTS_JOINT_H
#define MBS_JOINTS_JOINT_H

#include "mbs/mbs.h"
#include "core/spatial.h"

typedef struct mbs_joint_ops mbs_joint_ops;

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

#endif
