/* Kernels of the hot passes (kinematics, ABA, RNEA): one step of one tree joint. Every tree
 * joint carries a table of them (jm->kern), picked once at compile: its type's
 * ops->kernels may return kernels specialised to the joint's geometry (src/core/axis.h: a
 * revolute or prismatic joint about a coordinate axis of a parent frame that is a pure
 * translation), otherwise the generic ones of its number of dofs serve. The passes call the
 * kernels and never look at the type. A specialised kernel computes the same
 * numbers as the generic one bit for bit: it only leaves out the products with the exact
 * zeros and ones of its rotation and motion subspace, keeping every other sum in the
 * generic order.
 * Arguments: b = jm->child, p = its tree parent body, t = the joint's index in m->tree. */
#ifndef MBS_CORE_KERNELS_H
#define MBS_CORE_KERNELS_H

#include "core/internal.h"

struct mbs_joint_kernels {
    const char *name; /* "generic 1-dof", "revolute z", ... (messages, tests) */
    /* x_up[b], x_world[b] from q */
    void (*pose)(mbs_data *d, const mbs_joint_model *jm, int b, int p);
    /* pose, then S (unless const_subspace), vel[b] and cvel[b] */
    void (*pose_motion)(mbs_data *d, const mbs_joint_model *jm, int b, int p);
    /* S (body coordinates) at q; nothing when const_subspace */
    void (*subspace)(mbs_data *d, const mbs_joint_model *jm);
    /* ABA backward step: U, D^-1, u; IA_p, pA_p updated; MBS_OK or MBS_ERR_SINGULAR */
    int (*aba_backward)(mbs_data *d, int t, const mbs_joint_model *jm, int p);
    /* ABA forward step: qacc of the joint's dofs and acc[b] */
    void (*aba_forward)(mbs_data *d, int t, const mbs_joint_model *jm, int p);
    /* RNEA forward step: acc[b] (qacc NULL: zero) and f[b] */
    void (*rnea_forward)(mbs_data *d, const mbs_joint_model *jm, int b, int p,
                         const double *qacc);
    /* RNEA backward step: tau of the joint's dofs, f_p += X^T f_b */
    void (*rnea_backward)(mbs_data *d, const mbs_joint_model *jm, int b, int p, double *tau);
    /* CRBA frame step (crba.c): from the poses, p_root[b] and Sw of the joint's dofs in the
       root frame (world axes, origin of b's root body); Ic[b] = the body's own inertia */
    void (*crba_frame)(mbs_data *d, const mbs_joint_model *jm, int b, int p);
    /* CRBA backward step (crba.c), Ic[b] complete (the subtree's composite inertia, body
       coordinates): Fw = Ic[b] S of the joint's dofs in the root frame; Ic[p] += X^T Ic[b] X */
    void (*crba_backward)(mbs_data *d, const mbs_joint_model *jm, int b, int p);
    /* pose, S (unless const_subspace) and the CRBA frame step in one (mass matrix) */
    void (*pose_crba)(mbs_data *d, const mbs_joint_model *jm, int b, int p);
    /* 1: S in body coordinates does not depend on q or v; it is written once at data
       creation (mbs_kernels_init_data) and the kernels never write it */
    int const_subspace;
};

/* The kernels of tree joint jm: its type's specialisation when there is one, else the
   generic kernels of its number of dofs. */
const mbs_joint_kernels *mbs_kernels_pick(const mbs_joint_model *jm);
/* The generic kernels of jm's number of dofs (what every specialisation must equal). */
const mbs_joint_kernels *mbs_kernels_generic(const mbs_joint_model *jm);
/* Write S of every joint whose kernels have a constant subspace (at data creation, and again
   when a geometry parameter changed the kernels: mbs_check_state), noting the model's
   geom_rev in the data. */
void mbs_kernels_init_data(mbs_data *d);

/* Specialisations for one-dof joints about / along the coordinate axis k (0, 1, 2) of a
   joint frame Fp that is a translation of the parent body frame, Fc the child body frame
   (src/core/axis_revolute.c, axis_prismatic.c); NULL when jm does not have that geometry. */
const mbs_joint_kernels *mbs_kernels_revolute_axis(const mbs_joint_model *jm);
const mbs_joint_kernels *mbs_kernels_prismatic_axis(const mbs_joint_model *jm);

/* ---- the generic steps (kinematics.c, aba.c, rnea.c) */
void mbs_kin_pose_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p);
void mbs_kin_pose_motion_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p);
void mbs_kin_subspace_generic(mbs_data *d, const mbs_joint_model *jm);
int mbs_aba_backward_1(mbs_data *d, int t, const mbs_joint_model *jm, int p);
int mbs_aba_backward_n(mbs_data *d, int t, const mbs_joint_model *jm, int p);
void mbs_aba_forward_1(mbs_data *d, int t, const mbs_joint_model *jm, int p);
void mbs_aba_forward_n(mbs_data *d, int t, const mbs_joint_model *jm, int p);
void mbs_rnea_forward_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p,
                              const double *qacc);
void mbs_rnea_backward_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p,
                               double *tau);
void mbs_crba_frame_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p);
void mbs_crba_backward_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p);
void mbs_crba_pose_generic(mbs_data *d, const mbs_joint_model *jm, int b, int p);

/* Origin of body b relative to its root body's, world axes (crba.c): p_root[b] =
   R_parent p_up + p_root[parent] summed from the root down, never through the world
   position, so a system far from the origin loses no digits; returns it. */
static inline const double *mbs_crba_root_origin(mbs_data *d, int b, int p)
{
    double *pr = d->p_root + 3 * b;
    if (d->root_body[b] == b) {
        pr[0] = pr[1] = pr[2] = 0.0;
    } else {
        m3_mulv(pr, d->x_world[p].R, d->x_up[b].p);
        v3_add(pr, pr, d->p_root + 3 * p);
    }
    return pr;
}

/* o = the body-coordinate force f of body b in its root frame: [R n + p x (R f); R f] with
   R = x_world[b].R, p = p_root[b] (spatial.h xf_apply_transpose). */
static inline void mbs_crba_force_to_root(const mbs_data *d, int b, double *restrict o,
                                          const double *restrict f)
{
    const double *R = d->x_world[b].R, *pr = d->p_root + 3 * b;
    double n[3], t[3];
    m3_mulv(o + 3, R, f + 3);
    m3_mulv(n, R, f);
    v3_cross(t, pr, o + 3);
    v3_add(o, n, t);
}

/* ---- pieces of the ABA step shared by the generic and the specialised kernels (aba.c) */
/* Report a singular articulated inertia at body b (MBS_ERR_SINGULAR). */
int mbs_aba_singular(mbs_data *d, int b);
/* Native rotors of a one-dof joint housed by its parent p into IA_p, pA_p. */
void mbs_aba_rotor_propagate(mbs_data *d, const mbs_joint_model *jm, int b, int p,
                             const double U[6], double dinv, double g);
/* A pivot of D below this fraction of the inertia scale seen by the joint is singular. */
#define MBS_ABA_SINGULAR_EPS 1e-12

/* Inertia scale the motion s sees in the PSD 6x6 matrix IA: an upper bound (within 2) of
   s^T IA s for any direction of that size, |s_ang|^2 tr(A) + |s_lin|^2 tr(C). */
static inline double mbs_aba_joint_scale(const double s[6], const double IA[36])
{
    const double trA = IA[0] + IA[7] + IA[14], trC = IA[21] + IA[28] + IA[35];
    return v3_dot(s, s) * trA + v3_dot(s + 3, s + 3) * trC;
}

/* Complete the symmetric M from its upper triangle and return U = M s and W = M w, each
   entry of the upper triangle loaded once. */
static inline void mbs_sym6_complete_mulv2(double *restrict M, const double *restrict s,
                                           const double *restrict w, double *restrict U,
                                           double *restrict W)
{
    double u[6], x[6];
    MBS_UNROLL(6)
    for (int i = 0; i < 6; ++i) {
        u[i] = M[7 * i] * s[i];
        x[i] = M[7 * i] * w[i];
    }
    MBS_UNROLL(5)
    for (int i = 0; i < 5; ++i) {
        MBS_UNROLL(5)
        for (int j = i + 1; j < 6; ++j) {
            const double mij = M[6 * i + j];
            M[6 * j + i] = mij;
            u[i] += mij * s[j];
            u[j] += mij * s[i];
            x[i] += mij * w[j];
            x[j] += mij * w[i];
        }
    }
    for (int i = 0; i < 6; ++i) U[i] = u[i], W[i] = x[i];
}

/* Cholesky-invert the n x n SPD D (row-major, n <= 6) into Dinv (aba.c), pivots checked
   against scale[k]: 0, or 1 when singular; unrolled for the sizes of free and spherical joints. */
int mbs_small_spd_inverse(int n, const double *D, const double *scale, double *Dinv);

/* Ia = IA - (dinv U) U^T, upper triangle (row-major 6x6; the lower triangle is not written). */
static inline void mbs_aba_articulated_1(double *restrict Ia, const double *restrict IA,
                                         const double U[6], double dinv)
{
    MBS_UNROLL(6)
    for (int r = 0; r < 6; ++r) {
        const double w = dinv * U[r];
        MBS_UNROLL(6)
        for (int k = r; k < 6; ++k) Ia[6 * r + k] = IA[6 * r + k] - w * U[k];
    }
}

/* f = I a + (v x* I v - fext): the body's force in the RNEA forward pass. */
static inline void mbs_rnea_body_force(double *restrict f, const mbs_rbi *I,
                                       const double a[6], const double *restrict v,
                                       const double *restrict fe)
{
    double Ia[6], Iv[6], vxIv[6];
    mbs_d2 x[6], o[6];
    for (int e = 0; e < 6; ++e) x[e] = d2_set(a[e], v[e]);
    rbi_mulv2(o, I, x); /* I a and I v in the two lanes */
    for (int e = 0; e < 6; ++e) Ia[e] = d2_lo(o[e]), Iv[e] = d2_hi(o[e]);
    mv_cross_f(vxIv, v, Iv);
    for (int i = 0; i < 6; ++i) f[i] = Ia[i] + (vxIv[i] - fe[i]);
}

#endif
