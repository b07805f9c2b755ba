/* One instance of the mbs FMU runtime (shared by fmu_runtime.c and fmu_access.c). */
#ifndef MBS_FMU_INSTANCE_H
#define MBS_FMU_INSTANCE_H

#include "fmi2.h"
#include "fmu_vars.h"

typedef enum { ST_INSTANTIATED, ST_INIT, ST_STEP, ST_TERMINATED } fmu_state;

typedef struct fmu {
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    char name[128];
    int logging;
    mbs_model *m;
    mbs_data *d;
    mbs_stepper *st;
    fmu_vars vars;
    fmu_state state;
    double step_size, tol, t_start;
    int use_cvode, tol_defined;
    int max_work; /* mbs.max_work: the bound of each internal step (mbs_stepper_def) */
    int nq, nv;
    double *bak; /* [nq + nv + naux] q, v and the Cardan frames before a DoStep */
    struct mbs_loops_snap *loops_bak; /* ... and the loop solver's state (NULL: no loops) */
    double *wrench; /* [6 ninput] the wrench inputs (fx fy fz tx ty tz each), world frame */
} fmu;

/* Log through the importer's logger (errors always, the rest when logging is on) and
   return status. */
fmi2Status fmu_say(fmu *c, fmi2Status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
