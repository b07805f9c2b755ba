/* Curve-curve contact (Höbinger, Otter, "PlanarMultiBody - a Modelica library for planar
 * multi-body systems", §7, CurveCurveJoint): a cut joint keeping a planar curve on its parent
 * (in the x-y plane of frame Fp) in contact with one on its child (x-y plane of Fc).
 *
 * Contact parameters s1, s2 (one per curve) are part of the data's state (the joint's aux
 * values), solved at every evaluation from the two conditions of the paper:
 *   g1 = (P2 - P1) . T1 = 0                 the points lie on the common normal of curve 1,
 *   g2 = atan2(N1 . T2, -N1 . N2) = 0       tangents parallel with the normals opposite,
 * the second instead of N1 . N2 = 0 (whose Jacobian is singular at the solution) or N1 . T2 =
 * 0 alone (also met with the normals pointing the same way): atan2 is 0 only where -N1 . N2
 * > 0. Newton's method on (s1, s2), started from the parameters of the last closed state,
 * a periodic curve's kept within one period, tolerances relative to the curves' sizes and
 * positions (curve_joint.c).
 * The joint's constraint rows (joint.h, kind MBS_CUT_CURVE):
 *   gap       h = (P2 - P1) . N1, W = force N1 at P1: its multiplier is the normal contact
 *             force (positive pushing the curves apart);
 *   slip      (rolling only) the tangential relative velocity T1 . (v2 - v1) at the contact,
 *             a velocity constraint (h = 0), W = force T1 at P2: its multiplier is the
 *             friction force that keeps the curves rolling;
 * then the three rows of a planar joint keeping the two planes one (redundant in a planar
 * model, where they are dropped). Their rates use ds/dt from differentiating g1, g2. */
#ifndef MBS_CONTACT_CONTACT_H
#define MBS_CONTACT_CONTACT_H

#include "core/internal.h"

#define MBS_CURVE_NAUX 4 /* per joint: s1, s2 of the last closed state, then the solved ones */

/* One curve of a compiled joint. */
typedef struct mbs_curve_model {
    mbs_curve_kind kind;
    double a, b;        /* ellipse semi-axes, circle radius a */
    double side;        /* +1 / -1: which side the normal points to */
    double period;      /* of the parameter (circle 2 pi a, ellipse 2 pi, user's); 0 open */
    double size;        /* a length of the curve (radius, larger semi-axis; 0 unknown) */
    mbs_curve_fn fn;    /* user curve */
    void *user;
} mbs_curve_model;

/* The curves of a curve joint (owned by the model). */
typedef struct mbs_curve_pair {
    mbs_curve_model c[2];  /* on the parent (Fp), on the child (Fc) */
    double s0[2];          /* start guesses of the contact parameters */
    int rolling;
    int joint;             /* its joint id (in the builder) */
} mbs_curve_pair;

/* A point of a curve at parameter s in its frame's plane: position, unit tangent, unit
   normal, their derivatives d/ds, and |dp/ds|. MBS_OK, or MBS_ERR_CALLBACK (a user curve
   failed) / MBS_ERR_SINGULAR (zero tangent). */
typedef struct mbs_curve_pt {
    double p[2], t[2], n[2], dt[2], dn[2], speed;
} mbs_curve_pt;
int mbs_curve_eval(const mbs_curve_model *c, double s, mbs_curve_pt *out);
/* s taken into one period of a periodic curve, [-period/2, period/2); s for an open one. */
double mbs_curve_wrap(const mbs_curve_model *c, double s);

/* Residual of row k (0 gap, 1 slip) of curve joint j at the data's poses, its world wrench
   W and, with the world velocities Vp, Vc of parent and child given, its rate Wd. On a
   failed contact solve the residual is NaN. */
double mbs_curve_row(const mbs_data *d, const mbs_joint_model *j, int k, const double *Vp,
                     const double *Vc, double W[6], double Wd[6]);
/* At a closed state: keep the solved contact parameters as the next start (every curve
   joint). */
void mbs_curve_commit(mbs_data *d);

extern const mbs_joint_ops mbs_joint_curve_ops;

/* A curve's period (circle, ellipse) and size from its kind and semi-axes (at compile and
   when a geometry parameter changes them). */
void mbs_curve_derive(mbs_curve_model *m);
/* Forget the curves of builder joints njoint and above (mbs_builder_rollback). */
void mbs_curve_rollback(mbs_builder *b, int njoint);
/* At compile: a copy of the curves of builder joint `joint` into jm->curve (allocated, the
   model frees it); MBS_OK, MBS_ERR_NOMEM, or MBS_ERR_STATE when the builder has none. */
int mbs_curve_compile(const mbs_builder *b, int joint, mbs_joint_model *jm);

#endif
