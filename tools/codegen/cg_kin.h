/* The symbolic state of one generated function: kinematics and forces per body. */
#ifndef MBS_CODEGEN_CG_KIN_H
#define MBS_CODEGEN_CG_KIN_H

#include "cg.h"

typedef struct cg_kin {
    const mbs_model *m;
    cg_val *q, *v;      /* [nq], [nv] inputs */
    cg_pose *x_up;      /* [nbody] */
    cg_pose *x_world;   /* [nbody] */
    cg_val *S;          /* [6 nv] body coordinates */
    cg_val *vel, *c;    /* [6 nbody] velocity and velocity-product acceleration */
    cg_val *f_ext;      /* [6 nbody] external forces, body coordinates */
    cg_val *gen;        /* [nv] generalized forces of joint spring-dampers */
} cg_kin;

/* Allocate (generator memory, not the generated code's) and read q, v from the inputs. */
int cg_kin_init(cg_out *o, cg_kin *k, const mbs_model *m);
void cg_kin_free(cg_kin *k);
/* Poses, S, velocities and c_J terms of every tree joint (RBDA §4.4). */
void cg_kinematics(cg_out *o, cg_kin *k);
/* Gravity, line spring-dampers and joint spring-dampers into f_ext and gen. */
void cg_forces(cg_out *o, cg_kin *k);
/* 1 when the generator knows the force element's kind. */
int cg_force_supported(const mbs_force_model *f);

/* The outputs of a generated dynamics function from its kinematics, forces and nv inputs
   in; 0 or -1 (memory). */
typedef int (*cg_emit_fn)(cg_out *o, const cg_kin *k, const cg_val *in, void *ctx);
/* The body of a generated dynamics function (its signature already written): q and v read,
   nv inputs from input (e.g. "tau[%d]"), kinematics and forces, then emit; the lines the
   outputs need written to f and counted in *nline. 0 or -1 (memory). */
int cg_write_body(FILE *f, const mbs_model *m, const char *input, cg_emit_fn emit, void *ctx,
                  int *nline);

#endif
