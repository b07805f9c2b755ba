/* The variables of an mbs co-simulation FMU, one table shared by the packer (which writes
 * them into modelDescription.xml) and the runtime (which maps value references to the data):
 * both build it from the same compiled model and the same file's <track> and <input>
 * elements (tools/elements), so they agree by construction. */
#ifndef MBS_FMU_VARS_H
#define MBS_FMU_VARS_H

#include "mbs/mbs.h"
#include "tool_elements.h"

typedef enum fmu_var_kind {
    FMU_TAU,        /* input: generalized force on v[index] */
    FMU_Q,          /* output: q[index] */
    FMU_V,          /* output: v[index] */
    FMU_STEP_SIZE,  /* parameter: the fixed step of the internal stepper */
    FMU_USE_CVODE,  /* parameter (Boolean): CVODE Adams instead of RK4 */
    FMU_WRENCH,     /* input: component comp (fx fy fz tx ty tz) of wrench input index */
    FMU_TRACK,      /* output: world coordinate comp (x y z) of tracked point index */
    FMU_MAX_WORK,   /* parameter (Integer): work units of one internal step at most, 0: none */
} fmu_var_kind;

typedef struct fmu_var {
    char name[160];
    fmu_var_kind kind;
    int index, comp;
} fmu_var;

/* A <track> or <input> of the file resolved in the model. */
typedef struct fmu_link_point {
    int body;
    double point[3]; /* body coordinates */
} fmu_link_point;

typedef struct fmu_vars {
    int n;
    fmu_var *v; /* [n]; value reference = position */
    int ntrack, ninput;
    fmu_link_point *track, *input; /* [ntrack], [ninput] */
} fmu_vars;

/* The table of model m with the file's elements e: parameters; per tree joint its inputs,
   coordinates and rates ("<joint>.tau", "<joint>.q", "<joint>.v", with "[k]" for multi-dof
   joints); per <input> "<name>.fx" .. "<name>.tz"; per <track> "<label>.x", .y, .z. Names
   follow FMI 2.0's structured naming convention (a part that is not a plain identifier is
   quoted). 0, or -1 with a message naming the element (a link the model lacks, the world, a
   node, two inputs on one link, two variables of one name, out of memory). */
int fmu_vars_make(const mbs_model *m, const tool_elements *e, fmu_vars *out, char *why,
                  size_t len);
void fmu_vars_free(fmu_vars *vars);
/* Load and compile the model file at path and make its table (the packer and the runtime
   both start here); 0, or -1 with the loader's or the table's message in why. */
int fmu_model_load(const char *path, mbs_model **m, fmu_vars *vars, char *why, size_t len);
/* Causality string of a kind ("input", "output", "parameter"). */
const char *fmu_var_causality(fmu_var_kind kind);
/* 1 for a plain identifier of the structured naming convention: a letter or '_', then
   letters, digits and '_'. */
int fmu_is_plain_name(const char *s);

#endif
