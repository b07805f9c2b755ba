/* The variables of an mbs co-simulation FMU, one table shared by the packer (which writes
 * them into modelDescription.xml) and the runtime (which maps value references to the data):
 * both build it from the same compiled model, so they agree by construction. */
#ifndef MBS_FMU_VARS_H
#define MBS_FMU_VARS_H

#include "mbs/mbs.h"

typedef enum fmu_var_kind {
    FMU_TAU,        /* input: generalized force on v[index] */
    FMU_Q,          /* output: q[index] */
    FMU_V,          /* output: v[index] */
    FMU_STEP_SIZE,  /* parameter: the fixed step of the internal stepper */
    FMU_USE_CVODE,  /* parameter (Boolean): CVODE Adams instead of RK4 */
} fmu_var_kind;

typedef struct fmu_var {
    char name[96];
    fmu_var_kind kind;
    int index;
} fmu_var;

typedef struct fmu_vars {
    int n;
    fmu_var *v; /* [n]; value reference = position */
} fmu_vars;

/* The table of model m: parameters, then per tree joint its inputs, coordinates and rates
   (named "<joint>.tau", "<joint>.q", "<joint>.v", with "[k]" for multi-dof joints); 0 or -1
   (out of memory). */
int fmu_vars_make(const mbs_model *m, fmu_vars *out);
void fmu_vars_free(fmu_vars *vars);
/* Causality string of a kind ("input", "output", "parameter"). */
const char *fmu_var_causality(fmu_var_kind kind);

#endif
