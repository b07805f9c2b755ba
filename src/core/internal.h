/* Internal entry points shared between the library's parts. */
#ifndef MBS_CORE_INTERNAL_H
#define MBS_CORE_INTERNAL_H

#include "core/model.h"

#if defined(__GNUC__)
#define MBS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define MBS_INLINE __attribute__((always_inline)) /* a hot helper inlined at every call */
#else
#define MBS_PRINTF(a, b)
#define MBS_INLINE
#endif

/* Write a message into buf (MBS_ERROR_LEN bytes) and return status. */
int mbs_errorf(char *buf, int status, const char *fmt, ...) MBS_PRINTF(3, 4);
#define MBS_DATA_FAIL(d, status, ...) mbs_errorf((d)->error, (status), __VA_ARGS__)

/* 1 if all n values are finite. */
int mbs_all_finite(const double *x, int n);
/* Index of the first non-finite of the n values, or -1. */
int mbs_first_nonfinite(const double *x, int n);
/* acc += k w, counter by counter (core/work.c): the worst-case work of a composite call. */
void mbs_work_add(mbs_work *acc, const mbs_work *w, unsigned long k);
/* MBS_ERR_NONFINITE with "<what>[i] (joint J) is not finite" in the data's message. */
int mbs_fail_nonfinite(mbs_data *d, const char *what, int i, int joint);
/* Largest magnitude of a model parameter (mass, inertia, lengths, positions, coefficients,
   gravity): beyond any physical value, and small enough that products of a few of them stay
   far from overflow, so a model that validates cannot overflow in its own arithmetic. */
#define MBS_MAX_VALUE 1e100
/* 1 if all n values are finite and at most MBS_MAX_VALUE in magnitude. */
int mbs_all_bounded(const double *x, int n);
/* Name for messages: "name" or "#id" when unnamed; returns a static/thread-unsafe buffer
   only via the caller's buf (at least 64 bytes). */
const char *mbs_body_label(const mbs_model *m, int body, char *buf, int len);
const char *mbs_joint_label(const mbs_model *m, int joint, char *buf, int len);
/* "name" (quoted) when name is non-empty, else "#id"; written into buf (len bytes). */
const char *mbs_name_label(const char *name, int id, char *buf, int len);

/* The one rule for calls made from inside a force callback (docs/realtime.md): calls that
   evaluate dynamics, change the state or the inputs are refused with MBS_ERR_STATE naming the
   running callback, before they touch anything; kinematic queries (poses, velocities,
   Jacobians, COM, momentum) are allowed. MBS_OK when no callback runs. */
int mbs_refuse_nested(mbs_data *d, const char *call);
/* The same rule for the model's setters (mbs_model_set_param and the like): MBS_ERR_STATE
   with the message in err when a force callback of a data of m runs on this thread. */
int mbs_refuse_nested_model(const mbs_model *m, char *err, const char *call);

/* Forward kinematics pass: x_up, x_world, S, vel, cvel from q, v (RBDA §4.4). */
void mbs_kinematics(mbs_data *d);
/* Forward kinematics of poses only (no velocities). */
void mbs_kinematics_pos(mbs_data *d);
/* World poses xw (nbody) of every body at the neutral q (compile-time geometry). */
void mbs_neutral_poses(const mbs_model *m, mbs_pose *xw);
/* Poses of the bodies at tree positions t[0..n) only (ascending; the parents' poses must be
   current): after some coordinates changed. */
void mbs_kinematics_pos_some(mbs_data *d, const int *t, int n);
/* mbs_kinematics without the poses: they must be those of the data's q. */
void mbs_kinematics_vel(mbs_data *d);
/* Motion subspaces S only (the poses are not touched). */
void mbs_kinematics_S(mbs_data *d);
/* Poses and motion subspaces S only (no velocities): enough for CRBA. */
void mbs_kinematics_subspace(mbs_data *d);
/* The same with the CRBA frame step of every joint in the same pass (mbs_crba_framed). */
void mbs_kinematics_crba(mbs_data *d);
/* RNEA with current kinematics and forces: tau = M qacc + c - (J^T f_ext + gen_force).
   (RBDA table 5.1) */
void mbs_rnea(mbs_data *d, const double *qacc, double *tau_out);
/* CRBA with current poses and S: M (nv x nv, symmetric: both triangles written) (RBDA
   table 6.2). Returns 1 when every entry is finite, else 0. */
int mbs_crba(mbs_data *d, double *M);
/* The same after mbs_kinematics_crba (the frame step already done). */
int mbs_crba_framed(mbs_data *d, double *M);
/* The CRBA row groups of d (crba_group, crba_ngroup) from the model's dof tree (creation). */
void mbs_crba_groups_init(mbs_data *d);
/* ABA with current kinematics and forces: qacc from tau + gen_force (RBDA table 7.1).
   Returns MBS_ERR_SINGULAR (message naming the body) if an articulated D is singular. */
int mbs_aba(mbs_data *d);

/* In-place tree-sparse factorisation M = L^T D L of a row-major nv x nv mass matrix over
   dof_parent (RBDA §6.5, table 6.3); MBS_OK or MBS_ERR_SINGULAR (non-positive pivot). */
int mbs_mass_factor(const mbs_model *m, double *M);
/* Solve M x = b in place (x holds b) with the factor of mbs_mass_factor (RBDA table 6.4). */
void mbs_mass_solve(const mbs_model *m, const double *LDL, double *x);
/* qdot (nq x 1) = G(q) v over the tree joints (src/core/qmanifold.c): the time derivative of
   q that the ODE integrators (CVODE, CVODES) need. */
void mbs_qdot(const mbs_model *m, const double *q, const double *v, double *qdot);
/* 1 when every coordinate of m is Euclidean with q index = v index (compile stores it in
   m->q_flat: mbs_integrate_q then takes one loop, src/core/qmanifold.c). */
int mbs_q_is_flat(const mbs_model *m);
/* Kinetic energy 1/2 sum v_i^T I_i v_i at the current kinematics. */
double mbs_kinetic_energy(const mbs_data *d);

#endif
