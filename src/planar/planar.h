/* Planar models (Höbinger, Otter, "PlanarMultiBody — a Modelica library for planar multi-body
 * systems"): when every tree joint of a model moves its child in one plane — revolute axes
 * parallel to one normal n, prismatic axes perpendicular to it, planar joints with normal n,
 * fixed joints — compile finds it, and forward dynamics runs 3-vector algebra: a body's
 * motion is (w, vx, vy) about n, its inertia a 3 x 3 (m, h, I_n), the articulated inertias
 * 3 x 3. The public API and its results are those of the 3-D path (the out-of-plane parts of
 * gravity, springs and host wrenches only load the joints).
 *
 * Every body gets a planar frame: its origin, turned about n by the sum theta_b of the joint
 * angles above it, so that at the neutral q all planar frames are aligned with the plane
 * basis (e1, e2) of the world. Closed loops, force callbacks and joints that leave the plane
 * keep the 3-D path. */
#ifndef MBS_PLANAR_PLANAR_H
#define MBS_PLANAR_PLANAR_H

#include "core/internal.h"

typedef enum mbs_planar_kind { MBS_PL_REVOLUTE, MBS_PL_PRISMATIC, MBS_PL_PLANAR, MBS_PL_FIXED } mbs_planar_kind;

/* One tree joint: the child's planar frame in the parent's is (phi, p) with
   revolute  phi = s q,   p = a + R(phi) r
   prismatic phi = 0,     p = a + q u + r
   planar    phi = s q2,  p = a + q0 u + q1 w + R(phi) r
   fixed     phi = 0,     p = a + r
   a: the joint point in the parent's planar frame, r: the child origin from the joint point
   in the child's planar frame, s = +-1 (axis along or against n), u, w: in-plane axes. */
typedef struct mbs_planar_joint {
    mbs_planar_kind kind;
    int parent, child, vadr, qadr;
    double s, a[2], r[2], u[2], w[2];
} mbs_planar_joint;

/* A body in its planar frame: mass, h = m c, I_n about the origin; plus the constant
   out-of-plane coordinate of its origin and the rotation of its body axes into the
   planar frame at theta = 0 (R0, world-aligned). */
typedef struct mbs_planar_body {
    double m, h[2], I;
    double n0;      /* n . (world origin at the neutral q) */
    double R0[9];   /* body axes -> world at the neutral q */
} mbs_planar_body;

typedef struct mbs_planar {
    double n[3], e1[3], e2[3];  /* plane normal and in-plane basis, world */
    mbs_planar_joint *joints;   /* [ntree] in tree order */
    mbs_planar_body *bodies;    /* [nbody] */
} mbs_planar;

/* Scratch of one data object (allocated at mbs_data_create). */
typedef struct mbs_planar_data {
    double *th, *P;   /* [2 nbody], [2 nbody] world (cos, sin) of theta and origin in the plane */
    double *pose;     /* [4 nbody] (cos phi, sin phi, px, py) of each body in its parent */
    double *vel, *c;  /* [3 nbody] planar velocity, velocity-product acceleration */
    double *f;        /* [3 nbody] external forces, then bias forces pA */
    double *IA;       /* [9 nbody] articulated inertias */
    double *U, *Dinv, *u; /* [3 nv], [9 ntree], [nv] */
    double *acc;      /* [3 nbody] */
    double *S;        /* [3 nv] motion subspace, child planar frame */
} mbs_planar_data;

/* At compile: *out = the planar description of m, or NULL when it is not planar (the 3-D
   path serves); MBS_OK or MBS_ERR_NOMEM. */
int mbs_planar_detect(const mbs_model *m, mbs_planar **out);
void mbs_planar_free(mbs_planar *p);
int mbs_planar_data_alloc(const mbs_model *m, mbs_planar_data **out);
void mbs_planar_data_free(mbs_planar_data *pd);
/* 1 when this evaluation can take the planar path (a planar model, no host wrench with an
   out-of-plane moment... every host wrench is projected, so: a planar model). */
int mbs_planar_usable(const mbs_data *d);
/* qacc by the planar articulated-body algorithm at the data's q, v, tau; MBS_OK or
   MBS_ERR_SINGULAR naming the body. */
int mbs_planar_forward(mbs_data *d);

/* Parts of the planar path for the loops closed in closed form (src/closure/planar_loops.c). */
/* Poses, world angles and origins of every body (no velocities). */
void mbs_planar_poses(mbs_data *d);
/* The same for the bodies at tree positions t[0..n) (ascending; their parents current). */
void mbs_planar_poses_some(mbs_data *d, const int *t, int n);
/* S, velocities and c of every body at the poses computed. */
void mbs_planar_motion(mbs_data *d);
/* S only, at the poses computed. */
void mbs_planar_subspace(mbs_data *d);
/* Gravity, host wrenches and elements into the planar f and d->gen_force. */
void mbs_planar_forces(mbs_data *d);
/* o = I v for the planar inertia of body b. */
void mbs_planar_inertia_mulv(const mbs_planar *p, int b, const double v[3], double o[3]);
/* Motion vector from the parent's planar frame to the child's (pose: cos, sin, px, py), and
   force vector from the child's to the parent's; o = m x* f. */
void mbs_planar_xm(double o[3], const double pose[4], const double m[3]);
void mbs_planar_xf_t(double o[3], const double pose[4], const double f[3]);
void mbs_planar_cross_f(double o[3], const double m[3], const double f[3]);

#endif
