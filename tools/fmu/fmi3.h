/* The FMI 3.0 C interface as the standard specifies it (Modelica Association, "Functional
 * Mock-up Interface Specification", version 3.0, 2022, §2.2), written here for mbs's
 * co-simulation FMUs: the platform types, the callback types, and every function an FMU
 * exports under its plain name (an FMU exports them all, also those it refuses). */
#ifndef MBS_FMU_FMI3_H
#define MBS_FMU_FMI3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void *fmi3Instance;
typedef void *fmi3InstanceEnvironment;
typedef void *fmi3FMUState;
typedef uint32_t fmi3ValueReference;
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char *fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;

typedef enum { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal } fmi3Status;
typedef enum { fmi3Independent, fmi3Constant, fmi3Fixed, fmi3Tunable, fmi3Discrete,
               fmi3Dependent } fmi3DependencyKind;
typedef enum { fmi3IntervalNotYetKnown, fmi3IntervalUnchanged, fmi3IntervalChanged } fmi3IntervalQualifier;

typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment env, fmi3Status status,
                                       fmi3String category, fmi3String message);
typedef void (*fmi3IntermediateUpdateCallback)(fmi3InstanceEnvironment env, fmi3Float64 time,
    fmi3Boolean setRequested, fmi3Boolean getAllowed, fmi3Boolean stepFinished,
    fmi3Boolean canReturnEarly, fmi3Boolean *earlyReturnRequested, fmi3Float64 *earlyReturnTime);
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment env);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

#define MBS_FMI3_EXPORT __attribute__((visibility("default")))
#define MBS_FMI3_VR const fmi3ValueReference vr[], size_t nvr

/* common functions (§2.2.3 - §2.2.10) */
MBS_FMI3_EXPORT const char *fmi3GetVersion(void);
MBS_FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance, fmi3Boolean, size_t, const fmi3String[]);
MBS_FMI3_EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String, fmi3String, fmi3String, fmi3Boolean,
    fmi3Boolean, fmi3InstanceEnvironment, fmi3LogMessageCallback);
MBS_FMI3_EXPORT fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token,
    fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
    fmi3IntermediateUpdateCallback intermediateUpdate);
MBS_FMI3_EXPORT fmi3Instance fmi3InstantiateScheduledExecution(fmi3String, fmi3String, fmi3String,
    fmi3Boolean, fmi3Boolean, fmi3InstanceEnvironment, fmi3LogMessageCallback, fmi3ClockUpdateCallback,
    fmi3LockPreemptionCallback, fmi3UnlockPreemptionCallback);
MBS_FMI3_EXPORT void fmi3FreeInstance(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance, fmi3Boolean toleranceDefined,
    fmi3Float64 tolerance, fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime);
MBS_FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance);
#define MBS_FMI3_GETSET(T)                                                                        \
    MBS_FMI3_EXPORT fmi3Status fmi3Get##T(fmi3Instance, MBS_FMI3_VR, fmi3##T[], size_t);          \
    MBS_FMI3_EXPORT fmi3Status fmi3Set##T(fmi3Instance, MBS_FMI3_VR, const fmi3##T[], size_t);
MBS_FMI3_GETSET(Float32) MBS_FMI3_GETSET(Float64) MBS_FMI3_GETSET(Int8) MBS_FMI3_GETSET(UInt8)
MBS_FMI3_GETSET(Int16) MBS_FMI3_GETSET(UInt16) MBS_FMI3_GETSET(Int32) MBS_FMI3_GETSET(UInt32)
MBS_FMI3_GETSET(Int64) MBS_FMI3_GETSET(UInt64) MBS_FMI3_GETSET(Boolean) MBS_FMI3_GETSET(String)
MBS_FMI3_EXPORT fmi3Status fmi3GetBinary(fmi3Instance, MBS_FMI3_VR, size_t[], fmi3Binary[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3SetBinary(fmi3Instance, MBS_FMI3_VR, const size_t[], const fmi3Binary[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3GetClock(fmi3Instance, MBS_FMI3_VR, fmi3Clock[]);
MBS_FMI3_EXPORT fmi3Status fmi3SetClock(fmi3Instance, MBS_FMI3_VR, const fmi3Clock[]);
MBS_FMI3_EXPORT fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance, fmi3ValueReference, size_t *);
MBS_FMI3_EXPORT fmi3Status fmi3GetVariableDependencies(fmi3Instance, fmi3ValueReference, size_t[],
    fmi3ValueReference[], size_t[], fmi3DependencyKind[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance, fmi3FMUState *);
MBS_FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance, fmi3FMUState);
MBS_FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance, fmi3FMUState *);
MBS_FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance, fmi3FMUState, size_t *);
MBS_FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance, fmi3FMUState, fmi3Byte[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance, const fmi3Byte[], size_t, fmi3FMUState *);
MBS_FMI3_EXPORT fmi3Status fmi3GetDirectionalDerivative(fmi3Instance, const fmi3ValueReference[], size_t,
    const fmi3ValueReference[], size_t, const fmi3Float64[], size_t, fmi3Float64[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3GetAdjointDerivative(fmi3Instance, const fmi3ValueReference[], size_t,
    const fmi3ValueReference[], size_t, const fmi3Float64[], size_t, fmi3Float64[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3EnterConfigurationMode(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3ExitConfigurationMode(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance, MBS_FMI3_VR, fmi3Float64[], fmi3IntervalQualifier[]);
MBS_FMI3_EXPORT fmi3Status fmi3GetIntervalFraction(fmi3Instance, MBS_FMI3_VR, fmi3UInt64[], fmi3UInt64[],
    fmi3IntervalQualifier[]);
MBS_FMI3_EXPORT fmi3Status fmi3GetShiftDecimal(fmi3Instance, MBS_FMI3_VR, fmi3Float64[]);
MBS_FMI3_EXPORT fmi3Status fmi3GetShiftFraction(fmi3Instance, MBS_FMI3_VR, fmi3UInt64[], fmi3UInt64[]);
MBS_FMI3_EXPORT fmi3Status fmi3SetIntervalDecimal(fmi3Instance, MBS_FMI3_VR, const fmi3Float64[]);
MBS_FMI3_EXPORT fmi3Status fmi3SetIntervalFraction(fmi3Instance, MBS_FMI3_VR, const fmi3UInt64[], const fmi3UInt64[]);
MBS_FMI3_EXPORT fmi3Status fmi3SetShiftDecimal(fmi3Instance, MBS_FMI3_VR, const fmi3Float64[]);
MBS_FMI3_EXPORT fmi3Status fmi3SetShiftFraction(fmi3Instance, MBS_FMI3_VR, const fmi3UInt64[], const fmi3UInt64[]);
MBS_FMI3_EXPORT fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3UpdateDiscreteStates(fmi3Instance, fmi3Boolean *, fmi3Boolean *, fmi3Boolean *,
    fmi3Boolean *, fmi3Boolean *, fmi3Float64 *);
/* model exchange (§3.3) */
MBS_FMI3_EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3CompletedIntegratorStep(fmi3Instance, fmi3Boolean, fmi3Boolean *, fmi3Boolean *);
MBS_FMI3_EXPORT fmi3Status fmi3SetTime(fmi3Instance, fmi3Float64);
MBS_FMI3_EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance, const fmi3Float64[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance, fmi3Float64[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance, fmi3Float64[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance, fmi3Float64[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance, fmi3Float64[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance, size_t *);
MBS_FMI3_EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance, size_t *);
/* co-simulation (§4.2) and scheduled execution (§5.2) */
MBS_FMI3_EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance);
MBS_FMI3_EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance, MBS_FMI3_VR, const fmi3Int32[], fmi3Float64[], size_t);
MBS_FMI3_EXPORT fmi3Status fmi3DoStep(fmi3Instance, fmi3Float64 currentCommunicationPoint,
    fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
    fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn,
    fmi3Float64 *lastSuccessfulTime);
MBS_FMI3_EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance, fmi3ValueReference, fmi3Float64);

#endif
