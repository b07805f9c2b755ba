/* Getting and setting the FMU's variables, and the parts of FMI 2.0 an mbs FMU does not
 * offer (its modelDescription.xml says so: no FMU state, no directional derivatives, no
 * input derivatives), each answering fmi2Error with a message. */
#include <math.h>
#include <string.h>

#include "fmu_instance.h"

/* The variable of value reference vr, or NULL (message logged). */
static const fmu_var *lookup(fmu *c, fmi2ValueReference vr, const char *call)
{
    if (vr < (unsigned)c->vars.n) return &c->vars.v[vr];
    fmu_say(c, fmi2Error, "%s: no variable with value reference %u", call, vr);
    return NULL;
}

/* The current value of a Real variable into *out; fmi2Error when a tracked point cannot be
   computed (a state the library refuses). */
static fmi2Status real_value(fmu *c, const fmu_var *v, double *out)
{
    double world[3];
    switch (v->kind) {
    case FMU_TAU: *out = mbs_data_tau(c->d)[v->index]; break;
    case FMU_Q: *out = mbs_data_q(c->d)[v->index]; break;
    case FMU_V: *out = mbs_data_v(c->d)[v->index]; break;
    case FMU_WRENCH: *out = c->wrench[6 * v->index + v->comp]; break;
    case FMU_TRACK: {
        const fmu_link_point *p = &c->vars.track[v->index];
        if (tool_point_world(c->d, p->body, p->point, world) != MBS_OK)
            return fmu_say(c, fmi2Error, "fmi2GetReal: %s: %s", v->name, mbs_data_error(c->d));
        *out = world[v->comp];
        break;
    }
    default: *out = c->step_size; break;
    }
    return fmi2OK;
}

/* Store a checked value of an input or Real parameter; a wrench component is handed to the
   library at once (mbs_set_body_wrench holds it until changed). */
static void set_real_value(fmu *c, const fmu_var *v, double value)
{
    if (v->kind == FMU_TAU) {
        mbs_data_tau(c->d)[v->index] = value;
    } else if (v->kind == FMU_WRENCH) {
        double *w = &c->wrench[6 * v->index];
        const fmu_link_point *p = &c->vars.input[v->index];
        w[v->comp] = value;
        mbs_set_body_wrench(c->d, p->body, w, w + 3, p->point); /* checked: finite, body valid */
    } else {
        c->step_size = value;
    }
}

/* Values are read from initialization mode on (FMI 2.0 §4.2.4: not in the instantiated
   state, where nothing is computed yet); fmi2Error naming the call before. */
static fmi2Status readable(fmu *c, const char *call)
{
    return c->state == ST_INSTANTIATED
               ? fmu_say(c, fmi2Error, "%s: not allowed before fmi2EnterInitializationMode", call)
               : fmi2OK;
}

MBS_FMI2_EXPORT fmi2Status fmi2GetReal(fmi2Component cc, const fmi2ValueReference vr[], size_t n,
                                       fmi2Real value[])
{
    fmu *c = cc;
    if (!c || (n > 0 && (!vr || !value))) return fmi2Error;
    if (readable(c, "fmi2GetReal") != fmi2OK) return fmi2Error;
    for (size_t i = 0; i < n; ++i) {
        const fmu_var *v = lookup(c, vr[i], "fmi2GetReal");
        if (!v || v->kind == FMU_USE_CVODE || v->kind == FMU_MAX_WORK)
            return v ? fmu_say(c, fmi2Error, "fmi2GetReal: %s is %s", v->name,
                               v->kind == FMU_MAX_WORK ? "an Integer" : "a Boolean") : fmi2Error;
        if (real_value(c, v, &value[i]) != fmi2OK) return fmi2Error;
    }
    return fmi2OK;
}

/* Inputs in initialization and step mode, parameters before the end of initialization;
   every value checked before any is written. */
MBS_FMI2_EXPORT fmi2Status fmi2SetReal(fmi2Component cc, const fmi2ValueReference vr[], size_t n,
                                       const fmi2Real value[])
{
    fmu *c = cc;
    if (!c || (n > 0 && (!vr || !value))) return fmi2Error;
    for (size_t i = 0; i < n; ++i) {
        const fmu_var *v = lookup(c, vr[i], "fmi2SetReal");
        if (!v) return fmi2Error;
        if (v->kind != FMU_TAU && v->kind != FMU_WRENCH && v->kind != FMU_STEP_SIZE)
            return fmu_say(c, fmi2Error, "fmi2SetReal: %s is not an input or a Real parameter", v->name);
        if (v->kind == FMU_STEP_SIZE && c->state != ST_INSTANTIATED && c->state != ST_INIT)
            return fmu_say(c, fmi2Error, "fmi2SetReal: %s is fixed after initialization", v->name);
        if (c->state == ST_TERMINATED)
            return fmu_say(c, fmi2Error, "fmi2SetReal: the FMU is terminated");
        if (!isfinite(value[i]) || (v->kind == FMU_STEP_SIZE && !(value[i] > 0.0)))
            return fmu_say(c, fmi2Error, "fmi2SetReal: %s = %g is not valid", v->name, value[i]);
    }
    for (size_t i = 0; i < n; ++i) set_real_value(c, &c->vars.v[vr[i]], value[i]);
    return fmi2OK;
}

MBS_FMI2_EXPORT fmi2Status fmi2GetBoolean(fmi2Component cc, const fmi2ValueReference vr[],
                                          size_t n, fmi2Boolean value[])
{
    fmu *c = cc;
    if (!c || (n > 0 && (!vr || !value))) return fmi2Error;
    if (readable(c, "fmi2GetBoolean") != fmi2OK) return fmi2Error;
    for (size_t i = 0; i < n; ++i) {
        const fmu_var *v = lookup(c, vr[i], "fmi2GetBoolean");
        if (!v || v->kind != FMU_USE_CVODE) return v ? fmu_say(c, fmi2Error, "fmi2GetBoolean: %s is a Real", v->name) : fmi2Error;
        value[i] = c->use_cvode;
    }
    return fmi2OK;
}

MBS_FMI2_EXPORT fmi2Status fmi2SetBoolean(fmi2Component cc, const fmi2ValueReference vr[],
                                          size_t n, const fmi2Boolean value[])
{
    fmu *c = cc;
    if (!c || (n > 0 && (!vr || !value))) return fmi2Error;
    for (size_t i = 0; i < n; ++i) {
        const fmu_var *v = lookup(c, vr[i], "fmi2SetBoolean");
        if (!v || v->kind != FMU_USE_CVODE) return v ? fmu_say(c, fmi2Error, "fmi2SetBoolean: %s is a Real", v->name) : fmi2Error;
        if (c->state != ST_INSTANTIATED && c->state != ST_INIT)
            return fmu_say(c, fmi2Error, "fmi2SetBoolean: %s is fixed after initialization", v->name);
    }
    for (size_t i = 0; i < n; ++i) c->use_cvode = value[i] != fmi2False;
    return fmi2OK;
}

/* The one Integer variable, mbs.max_work. */
MBS_FMI2_EXPORT fmi2Status fmi2GetInteger(fmi2Component cc, const fmi2ValueReference vr[],
                                          size_t n, fmi2Integer value[])
{
    fmu *c = cc;
    if (!c || (n > 0 && (!vr || !value))) return fmi2Error;
    if (readable(c, "fmi2GetInteger") != fmi2OK) return fmi2Error;
    for (size_t i = 0; i < n; ++i) {
        const fmu_var *v = lookup(c, vr[i], "fmi2GetInteger");
        if (!v || v->kind != FMU_MAX_WORK) return v ? fmu_say(c, fmi2Error, "fmi2GetInteger: %s is not an Integer", v->name) : fmi2Error;
        value[i] = c->max_work;
    }
    return fmi2OK;
}

/* mbs.max_work (>= 0), before the end of initialization; every value checked first. */
MBS_FMI2_EXPORT fmi2Status fmi2SetInteger(fmi2Component cc, const fmi2ValueReference vr[],
                                          size_t n, const fmi2Integer value[])
{
    fmu *c = cc;
    if (!c || (n > 0 && (!vr || !value))) return fmi2Error;
    for (size_t i = 0; i < n; ++i) {
        const fmu_var *v = lookup(c, vr[i], "fmi2SetInteger");
        if (!v || v->kind != FMU_MAX_WORK) return v ? fmu_say(c, fmi2Error, "fmi2SetInteger: %s is not an Integer", v->name) : fmi2Error;
        if (c->state != ST_INSTANTIATED && c->state != ST_INIT)
            return fmu_say(c, fmi2Error, "fmi2SetInteger: %s is fixed after initialization", v->name);
        if (value[i] < 0)
            return fmu_say(c, fmi2Error, "fmi2SetInteger: %s = %d is not valid (>= 0; 0: no bound)", v->name, (int)value[i]);
    }
    for (size_t i = 0; i < n; ++i) c->max_work = value[i];
    return fmi2OK;
}
MBS_FMI2_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                         fmi2String value[])
{
    (void)vr, (void)value;
    return n == 0 ? fmi2OK : fmu_say(c, fmi2Error, "fmi2GetString: the FMU has no String variables");
}
MBS_FMI2_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                         const fmi2String value[])
{
    (void)vr, (void)value;
    return n == 0 ? fmi2OK : fmu_say(c, fmi2Error, "fmi2SetString: the FMU has no String variables");
}

/* ---- status of the last step (synchronous: never pending) */
MBS_FMI2_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    (void)s, (void)value;
    return fmu_say(c, fmi2Discard, "fmi2GetStatus: steps are synchronous");
}
MBS_FMI2_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component cc, const fmi2StatusKind s, fmi2Real *value)
{
    fmu *c = cc;
    if (!c || !value) return fmi2Error;
    if (s != fmi2LastSuccessfulTime) return fmu_say(c, fmi2Discard, "fmi2GetRealStatus: only fmi2LastSuccessfulTime");
    *value = mbs_data_time(c->d);
    return fmi2OK;
}
MBS_FMI2_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)s, (void)value;
    return fmu_say(c, fmi2Discard, "fmi2GetIntegerStatus: no integer status");
}
MBS_FMI2_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component cc, const fmi2StatusKind s, fmi2Boolean *value)
{
    fmu *c = cc;
    if (!c || !value) return fmi2Error;
    if (s != fmi2Terminated) return fmu_say(c, fmi2Discard, "fmi2GetBooleanStatus: only fmi2Terminated");
    *value = fmi2False; /* the FMU never asks to end the simulation */
    return fmi2OK;
}
MBS_FMI2_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    (void)s, (void)value;
    return fmu_say(c, fmi2Discard, "fmi2GetStringStatus: no string status");
}

/* ---- not offered (canGetAndSetFMUstate, canSerializeFMUstate, providesDirectionalDerivative
   and canInterpolateInputs are false in modelDescription.xml) */
#define NOT_OFFERED(call) return fmu_say(c, fmi2Error, call ": not offered by this FMU (see modelDescription.xml)")
MBS_FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *s) { (void)s; NOT_OFFERED("fmi2GetFMUstate"); }
MBS_FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate s) { (void)s; NOT_OFFERED("fmi2SetFMUstate"); }
MBS_FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *s) { (void)s; NOT_OFFERED("fmi2FreeFMUstate"); }
MBS_FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t *n)
{
    (void)s, (void)n;
    NOT_OFFERED("fmi2SerializedFMUstateSize");
}
MBS_FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte b[], size_t n)
{
    (void)s, (void)b, (void)n;
    NOT_OFFERED("fmi2SerializeFMUstate");
}
MBS_FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte b[], size_t n,
                                                   fmi2FMUstate *s)
{
    (void)s, (void)b, (void)n;
    NOT_OFFERED("fmi2DeSerializeFMUstate");
}
MBS_FMI2_EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference u[],
                                                        size_t nu, const fmi2ValueReference k[], size_t nk,
                                                        const fmi2Real dk[], fmi2Real du[])
{
    (void)u, (void)nu, (void)k, (void)nk, (void)dk, (void)du;
    NOT_OFFERED("fmi2GetDirectionalDerivative");
}
MBS_FMI2_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                                       size_t n, const fmi2Integer order[],
                                                       const fmi2Real value[])
{
    (void)vr, (void)n, (void)order, (void)value;
    NOT_OFFERED("fmi2SetRealInputDerivatives");
}
MBS_FMI2_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                                        size_t n, const fmi2Integer order[],
                                                        fmi2Real value[])
{
    (void)vr, (void)n, (void)order, (void)value;
    NOT_OFFERED("fmi2GetRealOutputDerivatives");
}
