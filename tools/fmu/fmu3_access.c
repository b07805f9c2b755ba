/* FMI 3.0 getters and setters of the mbs FMU (fmu3_instance.h): Float64, Int32 and Boolean
 * variables go to the FMI 2.0 Real, Integer and Boolean calls one value at a time (an
 * FMI 3 Boolean is a bool, an FMI 2 one an int); `time` is read from the instance. All
 * mbs variables are scalars, so nValues must equal nvr. */
#include <stdio.h>

#include "fmu3_instance.h"
#include "fmu_instance.h"

/* The instance, and nValues against nvr (scalars only); fmi3OK or an error logged. */
static fmi3Status scalars(fmu3 *w, const char *call, size_t nvr, size_t nValues)
{
    if (!w) return fmi3Error; /* no instance: no logger either */
    if (nvr == nValues) return fmi3OK;
    char msg[160];
    snprintf(msg, sizeof msg, "%s: nValues (%zu) must equal nvr (%zu): every variable is a scalar", call,
             nValues, nvr);
    return fmu3_refuse(w, msg);
}

MBS_FMI3_EXPORT fmi3Status fmi3GetFloat64(fmi3Instance inst, MBS_FMI3_VR, fmi3Float64 values[], size_t nValues)
{
    fmu3 *w = inst;
    fmi3Status st = scalars(w, "fmi3GetFloat64", nvr, nValues);
    for (size_t k = 0; k < nvr && st == fmi3OK; ++k) {
        const fmu *c = w->c;
        if (vr[k] == w->time_vr) values[k] = c->d ? mbs_data_time(c->d) : c->t_start;
        else st = (fmi3Status)fmi2GetReal(w->c, &vr[k], 1, &values[k]);
    }
    return st;
}

MBS_FMI3_EXPORT fmi3Status fmi3SetFloat64(fmi3Instance inst, MBS_FMI3_VR, const fmi3Float64 values[], size_t nValues)
{
    fmu3 *w = inst;
    fmi3Status st = scalars(w, "fmi3SetFloat64", nvr, nValues);
    for (size_t k = 0; k < nvr && st == fmi3OK; ++k)
        if (vr[k] == w->time_vr) return fmu3_refuse(w, "fmi3SetFloat64: time is the independent variable");
    return st == fmi3OK ? (fmi3Status)fmi2SetReal(w->c, vr, nvr, values) : st;
}

MBS_FMI3_EXPORT fmi3Status fmi3GetInt32(fmi3Instance inst, MBS_FMI3_VR, fmi3Int32 values[], size_t nValues)
{
    fmu3 *w = inst;
    const fmi3Status st = scalars(w, "fmi3GetInt32", nvr, nValues);
    return st == fmi3OK ? (fmi3Status)fmi2GetInteger(w->c, vr, nvr, values) : st;
}

MBS_FMI3_EXPORT fmi3Status fmi3SetInt32(fmi3Instance inst, MBS_FMI3_VR, const fmi3Int32 values[], size_t nValues)
{
    fmu3 *w = inst;
    const fmi3Status st = scalars(w, "fmi3SetInt32", nvr, nValues);
    return st == fmi3OK ? (fmi3Status)fmi2SetInteger(w->c, vr, nvr, values) : st;
}

MBS_FMI3_EXPORT fmi3Status fmi3GetBoolean(fmi3Instance inst, MBS_FMI3_VR, fmi3Boolean values[], size_t nValues)
{
    fmu3 *w = inst;
    fmi3Status st = scalars(w, "fmi3GetBoolean", nvr, nValues);
    for (size_t k = 0; k < nvr && st == fmi3OK; ++k) {
        fmi2Boolean b = fmi2False;
        st = (fmi3Status)fmi2GetBoolean(w->c, &vr[k], 1, &b);
        values[k] = b != fmi2False;
    }
    return st;
}

MBS_FMI3_EXPORT fmi3Status fmi3SetBoolean(fmi3Instance inst, MBS_FMI3_VR, const fmi3Boolean values[], size_t nValues)
{
    fmu3 *w = inst;
    fmi3Status st = scalars(w, "fmi3SetBoolean", nvr, nValues);
    for (size_t k = 0; k < nvr && st == fmi3OK; ++k) {
        const fmi2Boolean b = values[k] ? fmi2True : fmi2False;
        st = (fmi3Status)fmi2SetBoolean(w->c, &vr[k], 1, &b);
    }
    return st;
}
