/* The FMI 3.0 functions the mbs FMU exports but does not offer (its modelDescription.xml
 * says so: co-simulation without event mode, clocks, FMU state or derivatives; Float64,
 * Int32 and Boolean variables only): each answers fmi3Error with a message through the
 * importer's logger, and the two other instantiation kinds answer NULL. */
#include <stdio.h>

#include "fmu3_instance.h"

fmi3Status fmu3_refuse(fmi3Instance inst, const char *call)
{
    const fmu3 *w = inst;
    if (w && w->log) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s is not offered by this FMU (docs/fmu.md)", call);
        w->log(w->env, fmi3Error, "logStatusError", msg);
    }
    return fmi3Error;
}

MBS_FMI3_EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token, fmi3String path,
    fmi3Boolean visible, fmi3Boolean logging, fmi3InstanceEnvironment env, fmi3LogMessageCallback log)
{
    if (log) log(env, fmi3Error, "logStatusError", "model exchange is not offered by this FMU");
    return NULL;
}

MBS_FMI3_EXPORT fmi3Instance fmi3InstantiateScheduledExecution(fmi3String name, fmi3String token,
    fmi3String path, fmi3Boolean visible, fmi3Boolean logging, fmi3InstanceEnvironment env,
    fmi3LogMessageCallback log, fmi3ClockUpdateCallback clock, fmi3LockPreemptionCallback lock,
    fmi3UnlockPreemptionCallback unlock)
{
    if (log) log(env, fmi3Error, "logStatusError", "scheduled execution is not offered by this FMU");
    return NULL;
}

MBS_FMI3_EXPORT fmi3Status fmi3GetFloat32(fmi3Instance inst, MBS_FMI3_VR, fmi3Float32 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetFloat32");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetFloat32(fmi3Instance inst, MBS_FMI3_VR, const fmi3Float32 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetFloat32");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetInt8(fmi3Instance inst, MBS_FMI3_VR, fmi3Int8 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetInt8");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetInt8(fmi3Instance inst, MBS_FMI3_VR, const fmi3Int8 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetInt8");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetUInt8(fmi3Instance inst, MBS_FMI3_VR, fmi3UInt8 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetUInt8");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetUInt8(fmi3Instance inst, MBS_FMI3_VR, const fmi3UInt8 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetUInt8");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetInt16(fmi3Instance inst, MBS_FMI3_VR, fmi3Int16 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetInt16");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetInt16(fmi3Instance inst, MBS_FMI3_VR, const fmi3Int16 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetInt16");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetUInt16(fmi3Instance inst, MBS_FMI3_VR, fmi3UInt16 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetUInt16");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetUInt16(fmi3Instance inst, MBS_FMI3_VR, const fmi3UInt16 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetUInt16");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetUInt32(fmi3Instance inst, MBS_FMI3_VR, fmi3UInt32 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetUInt32");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetUInt32(fmi3Instance inst, MBS_FMI3_VR, const fmi3UInt32 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetUInt32");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetInt64(fmi3Instance inst, MBS_FMI3_VR, fmi3Int64 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetInt64");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetInt64(fmi3Instance inst, MBS_FMI3_VR, const fmi3Int64 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetInt64");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetUInt64(fmi3Instance inst, MBS_FMI3_VR, fmi3UInt64 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetUInt64");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetUInt64(fmi3Instance inst, MBS_FMI3_VR, const fmi3UInt64 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetUInt64");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetString(fmi3Instance inst, MBS_FMI3_VR, fmi3String v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetString");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetString(fmi3Instance inst, MBS_FMI3_VR, const fmi3String v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetString");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetBinary(fmi3Instance inst, MBS_FMI3_VR, size_t s[], fmi3Binary v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetBinary");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetBinary(fmi3Instance inst, MBS_FMI3_VR, const size_t s[], const fmi3Binary v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetBinary");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetClock(fmi3Instance inst, MBS_FMI3_VR, fmi3Clock v[])
{
    return fmu3_refuse(inst, "fmi3GetClock");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetClock(fmi3Instance inst, MBS_FMI3_VR, const fmi3Clock v[])
{
    return fmu3_refuse(inst, "fmi3SetClock");
}

MBS_FMI3_EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance inst)
{
    return fmu3_refuse(inst, "fmi3EnterEventMode");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance inst, fmi3ValueReference vr, size_t *n)
{
    return fmu3_refuse(inst, "fmi3GetNumberOfVariableDependencies");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetVariableDependencies(fmi3Instance inst, fmi3ValueReference vr, size_t a[], fmi3ValueReference b[], size_t c[], fmi3DependencyKind d[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetVariableDependencies");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance inst, fmi3FMUState *s)
{
    return fmu3_refuse(inst, "fmi3GetFMUState");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance inst, fmi3FMUState s)
{
    return fmu3_refuse(inst, "fmi3SetFMUState");
}

MBS_FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance inst, fmi3FMUState *s)
{
    return fmu3_refuse(inst, "fmi3FreeFMUState");
}

MBS_FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance inst, fmi3FMUState s, size_t *n)
{
    return fmu3_refuse(inst, "fmi3SerializedFMUStateSize");
}

MBS_FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance inst, fmi3FMUState s, fmi3Byte b[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SerializeFMUState");
}

MBS_FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance inst, const fmi3Byte b[], size_t n, fmi3FMUState *s)
{
    return fmu3_refuse(inst, "fmi3DeserializeFMUState");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetDirectionalDerivative(fmi3Instance inst, const fmi3ValueReference u[], size_t nu, const fmi3ValueReference k[], size_t nk, const fmi3Float64 s[], size_t ns, fmi3Float64 r[], size_t nr)
{
    return fmu3_refuse(inst, "fmi3GetDirectionalDerivative");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetAdjointDerivative(fmi3Instance inst, const fmi3ValueReference u[], size_t nu, const fmi3ValueReference k[], size_t nk, const fmi3Float64 s[], size_t ns, fmi3Float64 r[], size_t nr)
{
    return fmu3_refuse(inst, "fmi3GetAdjointDerivative");
}

MBS_FMI3_EXPORT fmi3Status fmi3EnterConfigurationMode(fmi3Instance inst)
{
    return fmu3_refuse(inst, "fmi3EnterConfigurationMode");
}

MBS_FMI3_EXPORT fmi3Status fmi3ExitConfigurationMode(fmi3Instance inst)
{
    return fmu3_refuse(inst, "fmi3ExitConfigurationMode");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance inst, MBS_FMI3_VR, fmi3Float64 v[], fmi3IntervalQualifier q[])
{
    return fmu3_refuse(inst, "fmi3GetIntervalDecimal");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetIntervalFraction(fmi3Instance inst, MBS_FMI3_VR, fmi3UInt64 c[], fmi3UInt64 r[], fmi3IntervalQualifier q[])
{
    return fmu3_refuse(inst, "fmi3GetIntervalFraction");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetShiftDecimal(fmi3Instance inst, MBS_FMI3_VR, fmi3Float64 v[])
{
    return fmu3_refuse(inst, "fmi3GetShiftDecimal");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetShiftFraction(fmi3Instance inst, MBS_FMI3_VR, fmi3UInt64 c[], fmi3UInt64 r[])
{
    return fmu3_refuse(inst, "fmi3GetShiftFraction");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetIntervalDecimal(fmi3Instance inst, MBS_FMI3_VR, const fmi3Float64 v[])
{
    return fmu3_refuse(inst, "fmi3SetIntervalDecimal");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetIntervalFraction(fmi3Instance inst, MBS_FMI3_VR, const fmi3UInt64 c[], const fmi3UInt64 r[])
{
    return fmu3_refuse(inst, "fmi3SetIntervalFraction");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetShiftDecimal(fmi3Instance inst, MBS_FMI3_VR, const fmi3Float64 v[])
{
    return fmu3_refuse(inst, "fmi3SetShiftDecimal");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetShiftFraction(fmi3Instance inst, MBS_FMI3_VR, const fmi3UInt64 c[], const fmi3UInt64 r[])
{
    return fmu3_refuse(inst, "fmi3SetShiftFraction");
}

MBS_FMI3_EXPORT fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance inst)
{
    return fmu3_refuse(inst, "fmi3EvaluateDiscreteStates");
}

MBS_FMI3_EXPORT fmi3Status fmi3UpdateDiscreteStates(fmi3Instance inst, fmi3Boolean *a, fmi3Boolean *b, fmi3Boolean *c, fmi3Boolean *d, fmi3Boolean *e, fmi3Float64 *t)
{
    return fmu3_refuse(inst, "fmi3UpdateDiscreteStates");
}

MBS_FMI3_EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance inst)
{
    return fmu3_refuse(inst, "fmi3EnterContinuousTimeMode");
}

MBS_FMI3_EXPORT fmi3Status fmi3CompletedIntegratorStep(fmi3Instance inst, fmi3Boolean p, fmi3Boolean *a, fmi3Boolean *b)
{
    return fmu3_refuse(inst, "fmi3CompletedIntegratorStep");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetTime(fmi3Instance inst, fmi3Float64 t)
{
    return fmu3_refuse(inst, "fmi3SetTime");
}

MBS_FMI3_EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance inst, const fmi3Float64 x[], size_t n)
{
    return fmu3_refuse(inst, "fmi3SetContinuousStates");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance inst, fmi3Float64 x[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetContinuousStateDerivatives");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance inst, fmi3Float64 x[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetEventIndicators");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance inst, fmi3Float64 x[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetContinuousStates");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance inst, fmi3Float64 x[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetNominalsOfContinuousStates");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance inst, size_t *n)
{
    return fmu3_refuse(inst, "fmi3GetNumberOfEventIndicators");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance inst, size_t *n)
{
    return fmu3_refuse(inst, "fmi3GetNumberOfContinuousStates");
}

MBS_FMI3_EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance inst)
{
    return fmu3_refuse(inst, "fmi3EnterStepMode");
}

MBS_FMI3_EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance inst, MBS_FMI3_VR, const fmi3Int32 o[], fmi3Float64 v[], size_t n)
{
    return fmu3_refuse(inst, "fmi3GetOutputDerivatives");
}

MBS_FMI3_EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance inst, fmi3ValueReference c, fmi3Float64 t)
{
    return fmu3_refuse(inst, "fmi3ActivateModelPartition");
}
