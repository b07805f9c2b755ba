/* The mass matrix and its tree-sparse L^T D L factor over symbolic scalars (cg_mass.c). */
#ifndef MBS_CODEGEN_CG_MASS_H
#define MBS_CODEGEN_CG_MASS_H

#include "cg_kin.h"

/* M (nv x nv, row-major, both triangles) by the composite-rigid-body algorithm from the
   poses and S of k; 0 or -1 (memory). */
int cg_emit_crba(cg_out *o, const cg_kin *k, cg_val *M);
/* In place M = L^T D L over the branch sparsity (as mbs_mass_factor): the strictly lower
   part becomes L (unit diagonal implied), the diagonal D. */
void cg_ltdl(cg_out *o, const mbs_model *m, cg_val *H);
/* x = L^-T x and x = L^-1 x with that factor (the first and last sweeps of mbs_mass_solve). */
void cg_ltdl_solve_lt(cg_out *o, const mbs_model *m, const cg_val *H, cg_val *x);
void cg_ltdl_solve_l(cg_out *o, const mbs_model *m, const cg_val *H, cg_val *x);

#endif
