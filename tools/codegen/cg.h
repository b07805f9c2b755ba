/* mbs-codegen: C code generated for one model (the idea of ROBOTRAN's symbolic generator,
 * Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody
 * models", §3): the recursive algorithms are run once over symbolic scalars, so that every
 * model constant is folded into the code, every product with an exact zero or one
 * disappears, and what remains is straight-line C with no loops, no malloc and only libm.
 *
 * A scalar is either a constant or a named variable of the generated function; operations
 * on two constants fold, operations with 0 or 1 simplify, an operation already emitted on
 * the same operands returns its variable again, anything else emits one line
 * `const double xN = a op b;` and returns the new variable. */
#ifndef MBS_CODEGEN_CG_H
#define MBS_CODEGEN_CG_H

#include <stdio.h>

#include "core/internal.h"

typedef struct cg_val {
    int var;     /* -1: a constant; else the index of variable xN (or a named input) */
    double c;    /* the constant */
} cg_val;

/* The output of one generated function: its variables are numbered from 0. Lines are kept
   until cg_flush, which writes only those an output depends on (dead code removed). */
typedef struct cg_out {
    FILE *f;
    int nvar;          /* next variable number */
    int nline;         /* lines written by cg_flush (the code size figure) */
    char **lines;      /* [nlines] text of each line */
    int *dst;          /* [nlines] variable assigned, or -1 for a store to an output */
    int nlines, cap;
    int failed;        /* out of memory while recording */
    /* value numbering: every operation emitted so far, so that the same operation on the
       same operands returns the variable that already holds it (common subexpressions) */
    struct cg_expr *expr; /* [nexpr] */
    int nexpr, expr_cap;
    int *slot;         /* [nslot] open-addressing table of indices into expr, -1 empty */
    int nslot;
} cg_out;

void cg_begin(cg_out *o, FILE *f);
/* Write the live lines (backwards liveness from the stores) and free them; 0 or -1. */
int cg_flush(cg_out *o);
cg_val cg_const(double c);
/* An input such as q[3] or tau[0] (printf-style name), read once into a variable. */
cg_val cg_input(cg_out *o, const char *fmt, int index);
int cg_is(cg_val a, double c); /* a is the constant c */
cg_val cg_add(cg_out *o, cg_val a, cg_val b);
cg_val cg_sub(cg_out *o, cg_val a, cg_val b);
cg_val cg_mul(cg_out *o, cg_val a, cg_val b);
cg_val cg_div(cg_out *o, cg_val a, cg_val b);
cg_val cg_neg(cg_out *o, cg_val a);
cg_val cg_call(cg_out *o, const char *fn, cg_val a); /* sin, cos, sqrt of a */
cg_val cg_fmax_const(cg_out *o, cg_val a, double c); /* fmax(a, c) */
/* Write "name = value;" for an output. */
void cg_store(cg_out *o, const char *fmt, int index, cg_val a);
/* Print the C expression of a value (a constant with 17 digits, or its variable). */
void cg_print(cg_out *o, cg_val a);

/* ---- spatial algebra over cg_val (cg_algebra.c), layout as in src/core/spatial.h */
typedef struct cg_pose { cg_val R[9], p[3]; } cg_pose;
void cg_pose_const(cg_pose *X, const mbs_pose *P);
void cg_pose_identity(cg_pose *X);
void cg_pose_mul(cg_out *o, cg_pose *C, const cg_pose *A, const cg_pose *B);   /* A B */
void cg_pose_mul_inv(cg_out *o, cg_pose *C, const cg_pose *A, const cg_pose *B); /* A B^-1 */
void cg_m3_mulv(cg_out *o, cg_val r[3], const cg_val A[9], const cg_val x[3]);
void cg_m3_tmulv(cg_out *o, cg_val r[3], const cg_val A[9], const cg_val x[3]);
void cg_m3_mul(cg_out *o, cg_val C[9], const cg_val A[9], const cg_val B[9]);
void cg_cross(cg_out *o, cg_val r[3], const cg_val a[3], const cg_val b[3]);
cg_val cg_dot(cg_out *o, const cg_val *a, const cg_val *b, int n);
void cg_axis_angle(cg_out *o, cg_val R[9], const double axis[3], cg_val c, cg_val s);
void cg_quat_to_mat(cg_out *o, cg_val R[9], const cg_val q[4]);
void cg_xm_apply(cg_out *o, cg_val r[6], const cg_pose *X, const cg_val m[6]);
void cg_xm_apply_inv(cg_out *o, cg_val r[6], const cg_pose *X, const cg_val m[6]);
void cg_xf_apply_transpose(cg_out *o, cg_val r[6], const cg_pose *X, const cg_val f[6]);
void cg_mv_cross_m(cg_out *o, cg_val r[6], const cg_val a[6], const cg_val b[6]);
void cg_mv_cross_f(cg_out *o, cg_val r[6], const cg_val m[6], const cg_val f[6]);
/* 6 x 6 row-major: r = M v; X^T M X for X a pose (pose of B in A, M in B). */
void cg_m6_mulv(cg_out *o, cg_val r[6], const cg_val M[36], const cg_val v[6]);
void cg_m6_transform_to_parent(cg_out *o, cg_val out[36], const cg_pose *X, const cg_val M[36]);
void cg_rbi_m6(cg_val M[36], const mbs_rbi *I);

/* ---- joints (cg_joints.c): one emitter per joint type, looked up by the ops table */
typedef struct cg_joint_emitter {
    const mbs_joint_ops *ops;
    /* Fc in Fp from the joint's q (nq inputs) */
    void (*transform)(cg_out *o, const mbs_joint_model *j, const cg_val *q, cg_pose *X);
    /* S (6 x nv, in Fc) and c_J (may be NULL) from q and v */
    void (*motion)(cg_out *o, const mbs_joint_model *j, const cg_val *q, const cg_val *v,
                   cg_val *S, cg_val *cJ);
    int quaternion; /* q holds a unit quaternion at offset quat_at (integrated on S^3) */
    int quat_at;
} cg_joint_emitter;
const cg_joint_emitter *cg_joint_emitter_for(const mbs_joint_model *j);

/* ---- the generator (cg_write.c) */
typedef struct cg_options {
    const char *prefix; /* function and macro prefix, e.g. "model" */
    const char *source; /* what the model came from (a comment) */
    /* closed loops: the configuration (nq) at which the library's row selection and
       partition are taken and frozen; NULL: the model's start values */
    const double *q_start;
} cg_options;
/* 0, or -1 with a message naming what the generator cannot handle in why (len bytes). */
int cg_check_model(const mbs_model *m, char *why, int len);
/* P_integrate (cg_write.c). */
void cg_write_integrate(FILE *f, const mbs_model *m, const char *P);
/* Write the whole generated file: lines of arithmetic, or -1 (message in why). */
int cg_write(FILE *f, const mbs_model *m, const cg_options *opt, char *why, int len);

#endif
