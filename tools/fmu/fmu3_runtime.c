/* FMI 3.0 co-simulation over the FMI 2.0 runtime (fmu_runtime.c, fmu_access.c): an FMI 3
 * instance wraps one FMI 2 instance of the same model, so both versions step, refuse and
 * log alike. The value references are the FMI 2 ones (unique across types there too), plus
 * the independent variable `time`, the last. Functions mbs does not offer: fmu3_refused.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2.h"
#include "fmi3.h"
#include "fmu3_instance.h"
#include "fmu_instance.h"

/* FMI 2's variadic logger onto FMI 3's callback (the message formatted here). */
static void log_adaptor(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st, fmi2String cat,
                        fmi2String fmt, ...)
{
    (void)name;
    const fmu3 *w = env;
    if (!w->log) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    w->log(w->env, st == fmi2Pending ? fmi3Error : (fmi3Status)st, cat, msg);
}

static void *alloc_adaptor(size_t n, size_t size)
{
    return calloc(n, size);
}

MBS_FMI3_EXPORT const char *fmi3GetVersion(void)
{
    return "3.0";
}

MBS_FMI3_EXPORT fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token,
    fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
    fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)earlyReturnAllowed, (void)requiredIntermediateVariables, (void)intermediateUpdate;
    if (eventModeUsed || nRequiredIntermediateVariables > 0) {
        /* the description says hasEventMode="false" and offers no intermediate variables */
        if (log) log(env, fmi3Error, "logStatusError", "event mode and intermediate variables are not offered");
        return NULL;
    }
    fmu3 *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->log = log, w->env = env;
    const fmi2CallbackFunctions cb = {log_adaptor, alloc_adaptor, free, NULL, w};
    w->c = fmi2Instantiate(name, fmi2CoSimulation, token, resourcePath, &cb, visible, loggingOn);
    if (!w->c) return free(w), NULL;
    w->time_vr = (fmi3ValueReference)((fmu *)w->c)->vars.n;
    return w;
}

MBS_FMI3_EXPORT void fmi3FreeInstance(fmi3Instance inst)
{
    fmu3 *w = inst;
    if (!w) return;
    fmi2FreeInstance(w->c);
    free(w);
}

MBS_FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance inst, fmi3Boolean on, size_t n, const fmi3String cats[])
{
    return inst ? (fmi3Status)fmi2SetDebugLogging(((fmu3 *)inst)->c, on, n, cats) : fmi3Error;
}

MBS_FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance inst, fmi3Boolean toleranceDefined,
    fmi3Float64 tolerance, fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    fmu3 *w = inst;
    if (!w) return fmi3Error;
    const fmi2Status st = fmi2SetupExperiment(w->c, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime);
    return st == fmi2OK ? (fmi3Status)fmi2EnterInitializationMode(w->c) : (fmi3Status)st;
}

MBS_FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance inst)
{
    return inst ? (fmi3Status)fmi2ExitInitializationMode(((fmu3 *)inst)->c) : fmi3Error;
}

MBS_FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance inst)
{
    return inst ? (fmi3Status)fmi2Terminate(((fmu3 *)inst)->c) : fmi3Error;
}

MBS_FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance inst)
{
    return inst ? (fmi3Status)fmi2Reset(((fmu3 *)inst)->c) : fmi3Error;
}

/* A step as fmi2DoStep takes it; the time reached is the instance's (t + h, or t when the
   step was refused or discarded: time and state are then as before). */
MBS_FMI3_EXPORT fmi3Status fmi3DoStep(fmi3Instance inst, fmi3Float64 t, fmi3Float64 h, fmi3Boolean noSetPrior,
    fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn,
    fmi3Float64 *lastSuccessfulTime)
{
    fmu3 *w = inst;
    if (!w) return fmi3Error;
    const fmi2Status st = fmi2DoStep(w->c, t, h, noSetPrior);
    if (eventHandlingNeeded) *eventHandlingNeeded = false;
    if (terminateSimulation) *terminateSimulation = false;
    if (earlyReturn) *earlyReturn = false;
    const fmu *c = w->c;
    if (lastSuccessfulTime) *lastSuccessfulTime = c->d ? mbs_data_time(c->d) : t;
    return (fmi3Status)st;
}
