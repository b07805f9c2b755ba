/* One FMI 3.0 instance of the mbs FMU runtime: the FMI 2.0 instance it wraps and the
 * importer's FMI 3 logger (fmu3_runtime.c, fmu3_access.c, fmu3_refused.c). */
#ifndef MBS_FMU3_INSTANCE_H
#define MBS_FMU3_INSTANCE_H

#include "fmi2.h"
#include "fmi3.h"

typedef struct fmu3 {
    fmi3LogMessageCallback log;
    fmi3InstanceEnvironment env;
    fmi2Component c;             /* the FMI 2.0 instance */
    fmi3ValueReference time_vr;  /* the independent variable `time`: after the FMI 2 ones */
} fmu3;

/* Log an error through the importer's logger and return fmi3Error. */
fmi3Status fmu3_refuse(fmi3Instance inst, const char *call);

#endif
