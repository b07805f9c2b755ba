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
 * basis (e1, e2) of the world; joint geometry and body inertias are constant in it. The
 * passes express motion and force vectors, S and inertias in world axes at the body's origin
 * (world-aligned coordinates): the transform between a parent and a child is then the shift
 * by the child's origin from the parent's, d = R_p p, with no rotation on the passes'
 * recursions (the rotations move to each body's d and h, off those recursions). Force
 * callbacks and joints that leave the plane keep the 3-D path, and so do closed loops unless
 * every one is a planar assembly closed in closed form (src/loops/analytic/planar_loops.c runs those
 * on these poses and vectors). */
#ifndef MBS_PLANAR_PLANAR_H
#define MBS_PLANAR_PLANAR_H

#include "core/internal.h"

typedef enum mbs_planar_kind { MBS_PL_REVOLUTE, MBS_PL_PRISMATIC, MBS_PL_PLANAR, MBS_PL_FIXED } mbs_planar_kind;

typedef struct mbs_planar_kernels mbs_planar_kernels;
typedef struct mbs_planar_data mbs_planar_data;

/* One tree joint: the child's planar frame in the parent's is (phi, p) with
   revolute  phi = s q,   p = a + R(phi) r
   prismatic phi = 0,     p = a + q u + r
   planar    phi = s q2,  p = a + q0 u + q1 w + R(phi) r
   fixed     phi = 0,     p = a + r
   a: the joint point in the parent's planar frame, r: the child origin from the joint point
   in the child's planar frame, s = +-1 (axis along or against n), u, w: in-plane axes. */
typedef struct mbs_planar_joint {
    mbs_planar_kind kind;
    int parent, child, vadr, qadr, nv;
    double s, a[2], r[2], u[2], w[2];
    const mbs_planar_kernels *kern;     /* picked at compile (planar_kernels.c) */
    const struct mbs_planar_body *body; /* the child's planar inertia */
    /* the serial run this joint belongs to (mbs_planar_runs): tree positions run_first ..
       run_first + run_len - 1, each joint's parent the child of the one before, the passes
       carrying the recursion between them in registers */
    int run_first, run_len;
} mbs_planar_joint;

/* A body in its planar frame: mass, h = m c, I_n about the origin; plus the constant
   out-of-plane coordinate of its origin and the rotation of its body axes into the
   planar frame at theta = 0 (R0, world-aligned). */
typedef struct mbs_planar_body mbs_planar_body;
struct mbs_planar_body {
    double m, h[2], I;
    double n0;      /* n . (world origin at the neutral q) */
    double R0[9];   /* body axes -> world at the neutral q */
};

typedef struct mbs_planar {
    double n[3], e1[3], e2[3];  /* plane normal and in-plane basis, world */
    mbs_planar_joint *joints;   /* [ntree] in tree order */
    mbs_planar_body *bodies;    /* [nbody] */
} mbs_planar;

/* Scratch of one data object (allocated at mbs_data_create). Vectors per body are in world
   axes at the body's origin; articulated inertias are stored as their upper triangle (00,
   01, 02, 11, 12, 22). */
struct mbs_planar_data {
    double *th, *P;   /* [2 nbody], [2 nbody] world (cos, sin) of theta and origin in the plane */
    double *pose;     /* [4 nbody] (cos phi, sin phi, px, py) of each body in its parent */
    double *dp, *hw;  /* [2 nbody] each: origin from the parent's origin; h = m c (world axes) */
    double *vel, *c;  /* [3 nbody] planar velocity, velocity-product acceleration */
    double *f;        /* [3 nbody] external forces (loops), bias forces pA (forward dynamics) */
    double *IA;       /* [6 nbody] articulated inertias, upper triangle */
    double *U, *Dinv, *u; /* [3 nv] each; Dinv: row k of a joint's D^-1 at 3 (vadr + k) */
    double *acc;      /* [3 nbody] (forward dynamics: minus uniform gravity, the base's -g) */
    double *S;        /* [3 nv] motion subspace */
    unsigned long gen; /* counts the pose computations (pose, th, P, dp, hw written) */
};

/* Kernels of one tree joint for the planar passes, picked at compile by its kind and
   geometry (planar_kernels.c); the passes call them and never look at the kind. */
struct mbs_planar_kernels {
    const char *name; /* "planar revolute at the origin", ... (tests) */
    /* the child's pose in its parent (cos phi, sin phi, px, py) at q, then its frame
       (mbs_planar_frame) */
    void (*pose)(const mbs_planar_joint *pj, const double *q, mbs_planar_data *w);
    /* S of the joint's dofs at the child's current frame */
    void (*subspace)(const mbs_planar_joint *pj, mbs_planar_data *w);
    /* S unless constant, velocity and c of the child at its current frame */
    void (*motion)(const mbs_planar_joint *pj, const double *v, mbs_planar_data *w);
    /* pose, then motion */
    void (*pose_motion)(const mbs_planar_joint *pj, const double *q, const double *v,
                        mbs_planar_data *w);
    /* ABA backward step (RBDA table 7.1): U, D^-1, u; IA, pA of the parent updated;
       MBS_OK or MBS_ERR_SINGULAR naming the body */
    int (*aba_backward)(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj);
    /* ABA forward step: qacc of the joint's dofs and acc of the child */
    void (*aba_forward)(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj);
    /* 1: S does not depend on q; written once at data creation */
    int const_subspace;
    /* The passes over one serial run of n joints from pj (planar.h mbs_planar_joint):
       pose_motion and body start; the backward steps (last joint first); the forward steps */
    void (*down_run)(const mbs_planar_joint *pj, int n, const double *q, const double *v,
                     mbs_planar_data *w);
    int (*backward_run)(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int n);
    void (*forward_run)(mbs_data *d, mbs_planar_data *w, const mbs_planar_joint *pj, int n);
    /* 1: consecutive joints with these kernels form serial runs (mbs_planar_runs) */
    int chains;
};

/* The frame of body b from its parent's and its pose: th, P, dp = R_p p and hw = R_b h. */
static inline void mbs_planar_frame(mbs_planar_data *w, const mbs_planar_body *pb, int b, int par)
{
    const double *pose = w->pose + 4 * b, cp = w->th[2 * par], sp = w->th[2 * par + 1];
    const double c = cp * pose[0] - sp * pose[1], s = sp * pose[0] + cp * pose[1];
    const double d0 = cp * pose[2] - sp * pose[3], d1 = sp * pose[2] + cp * pose[3];
    w->th[2 * b] = c, w->th[2 * b + 1] = s;
    w->dp[2 * b] = d0, w->dp[2 * b + 1] = d1;
    w->P[2 * b] = w->P[2 * par] + d0, w->P[2 * b + 1] = w->P[2 * par + 1] + d1;
    w->hw[2 * b] = c * pb->h[0] - s * pb->h[1], w->hw[2 * b + 1] = s * pb->h[0] + c * pb->h[1];
}

/* The kernels of planar joint pj (its kind, nv, s and r set). */
const mbs_planar_kernels *mbs_planar_kernels_pick(const mbs_planar_joint *pj);
/* The kernels every joint of its number of dofs can take (what a specialisation must equal
   to rounding). */
const mbs_planar_kernels *mbs_planar_kernels_generic(const mbs_planar_joint *pj);
/* The serial runs of p's joints (run_first, run_len) from their kernels: a joint continues
   the run of the one before when both kernels chain and its parent is that one's child. */
void mbs_planar_runs(mbs_planar *p, int ntree);
/* Report a singular articulated inertia at body b (MBS_ERR_SINGULAR). */
int mbs_planar_singular(mbs_data *d, int b);

/* At compile: *out = the planar description of m, or NULL when it is not planar (the 3-D
   path serves); MBS_OK or MBS_ERR_NOMEM. */
int mbs_planar_detect(const mbs_model *m, mbs_planar **out);
void mbs_planar_free(mbs_planar *p);
/* Recompute the planar inertia (m, h, I) of body b from the model's body and pb->R0 (after a
   parameter change; the same arithmetic as at compile). */
void mbs_planar_body_inertia(const mbs_model *m, const mbs_planar *p, int b,
                             mbs_planar_body *pb);
int mbs_planar_data_alloc(const mbs_model *m, mbs_planar_data **out);
void mbs_planar_data_free(mbs_planar_data *pd);
/* 1 when this evaluation can take the planar path (a planar model, no host wrench with an
   out-of-plane moment... every host wrench is projected, so: a planar model). */
int mbs_planar_usable(const mbs_data *d);
/* qacc by the planar articulated-body algorithm at the data's q, v, tau; MBS_OK or
   MBS_ERR_SINGULAR naming the body. */
int mbs_planar_forward(mbs_data *d);

/* Parts of the planar path for the loops closed in closed form (src/loops/analytic/planar_loops.c). */
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

/* ---- planar vector algebra (inline: the inner loops of both planar paths) */
/* o = R(phi) x and R(phi)^T x for c = cos phi, s = sin phi. */
static inline void mbs_planar_rot(double o[2], double c, double s, const double x[2])
{
    const double x0 = x[0], x1 = x[1];
    o[0] = c * x0 - s * x1, o[1] = s * x0 + c * x1;
}
static inline void mbs_planar_rot_t(double o[2], double c, double s, const double x[2])
{
    const double x0 = x[0], x1 = x[1];
    o[0] = c * x0 + s * x1, o[1] = -s * x0 + c * x1;
}
/* Motion of the parent at the child's origin d (from the parent's): w' = w, v' = v + w J d,
   J d = (-d_y, d_x). */
static inline void mbs_planar_shift_m(double *restrict o, const double *restrict d,
                                      const double *restrict m)
{
    o[0] = m[0], o[1] = m[1] - m[0] * d[1], o[2] = m[2] + m[0] * d[0];
}
/* fp += the force f of the child at the parent's origin: n + d x f, f. */
static inline void mbs_planar_shift_f_add(double *restrict fp, const double *restrict d,
                                          const double *restrict f)
{
    fp[0] += f[0] + d[0] * f[2] - d[1] * f[1];
    fp[1] += f[1], fp[2] += f[2];
}
/* m x* f = (v x f, w J f) */
static inline void mbs_planar_cross_f(double o[3], const double m[3], const double f[3])
{
    o[0] = m[1] * f[2] - m[2] * f[1];
    o[1] = -m[0] * f[2], o[2] = m[0] * f[1];
}
/* o = I v for the planar inertia of body b (m, h, I_n about the origin), h in world axes. */
static inline void mbs_planar_inertia_mulv(const mbs_planar *p, const mbs_planar_data *w, int b,
                                           const double v[3], double o[3])
{
    const mbs_planar_body *pb = &p->bodies[b];
    const double h0 = w->hw[2 * b], h1 = w->hw[2 * b + 1];
    o[0] = pb->I * v[0] - h1 * v[1] + h0 * v[2];
    o[1] = -h1 * v[0] + pb->m * v[1];
    o[2] = h0 * v[0] + pb->m * v[2];
}

/* IA = I, pA = v x* I v of body b (the first pass; v and hw of b current). */
static inline void mbs_planar_body_start(const mbs_planar_body *pb, mbs_planar_data *w, int b)
{
    const double *v = w->vel + 3 * b, h0 = w->hw[2 * b], h1 = w->hw[2 * b + 1];
    double *restrict IA = w->IA + 6 * b, *restrict pA = w->f + 3 * b;
    IA[0] = pb->I, IA[1] = -h1, IA[2] = h0, IA[3] = pb->m, IA[4] = 0.0, IA[5] = pb->m;
    const double Iv[3] = {pb->I * v[0] - h1 * v[1] + h0 * v[2], pb->m * v[1] - h1 * v[0],
                          pb->m * v[2] + h0 * v[0]};
    mbs_planar_cross_f(pA, v, Iv);
}

#endif
