/* ABA and RNEA over symbolic scalars (cg_aba.c). */
#ifndef MBS_CODEGEN_CG_ABA_H
#define MBS_CODEGEN_CG_ABA_H

#include "cg_kin.h"

/* qdd (nv) from the kinematics and forces of k and the inputs tau (nv); 0 or -1 (memory). */
int cg_emit_aba(cg_out *o, const cg_kin *k, const cg_val *tau, cg_val *qdd);
/* tau (nv) = M qdd + c - gen - J^T f_ext; 0 or -1 (memory). */
int cg_emit_rnea(cg_out *o, const cg_kin *k, const cg_val *qdd, cg_val *tau);

#endif
