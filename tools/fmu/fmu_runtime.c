/* The shared library inside every mbs co-simulation FMU (binaries/linux64/<id>.so): the
 * FMI 2.0 co-simulation functions over one mbs model read from the FMU's resources folder
 * (resources/model.urdf or resources/model.xml). Inputs are joint forces and the file's
 * body wrenches (<input>), outputs joint coordinates, rates and the file's tracked points
 * (<track>) (fmu_vars.h); inside, RK4 at the step_size parameter (the
 * communication step is split into equal steps no longer than it) or CVODE Adams. A DoStep
 * that fails leaves time and state as they were and answers fmi2Discard. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "loops/loops.h"
#include "fmu_guid.h"
#include "io/regular.h"
#include "fmu_instance.h"
#include "fmu_uri.h"

fmi2Status fmu_say(fmu *c, fmi2Status status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c && c->logger && (c->logging || status >= fmi2Warning))
        c->logger(c->env, c->name, status, status >= fmi2Error ? "logStatusError" : "logAll",
                  "%s", msg);
    return status;
}

/* The model file in the resources folder (model.urdf or model.xml, a regular file: a FIFO
   there would block fmi2Instantiate for ever) into path; 0 or -1. */
static int model_path(const char *dir, char *path, size_t len)
{
    static const char *const names[] = {"model.urdf", "model.xml"};
    char why[160];
    for (int k = 0; k < 2; ++k) {
        snprintf(path, len, "%.3900s/%s", dir, names[k]);
        FILE *f = mbs_fopen_regular(path, why, sizeof why);
        if (f) return fclose(f), 0;
    }
    return -1;
}

/* Load the model of the resources folder (its GUID checked), compile, create the data; 0, or
   -1 with a message in why. */
static int load_model(fmu *c, const char *resources, const char *guid, char *why, size_t len)
{
    char dir[4000], path[4096], expect[64];
    if (fmu_uri_path(resources, dir, sizeof dir, why, len) != 0) return -1;
    if (model_path(dir, path, sizeof path) != 0)
        return snprintf(why, len, "no model.urdf or model.xml in %.300s", dir), -1;
    if (fmu_guid_of_file(path, expect, sizeof expect) != 0 || strcmp(expect, guid) != 0)
        return snprintf(why, len, "GUID %.60s does not match the model %.300s (%s)", guid, path, expect), -1;
    if (fmu_model_load(path, &c->m, &c->vars, why, len) != 0) return -1;
    c->d = mbs_data_create(c->m);
    c->nq = mbs_model_nq(c->m), c->nv = mbs_model_nv(c->m);
    c->bak = calloc((size_t)(c->nq + c->nv + c->m->naux + 1), sizeof(double));
    c->wrench = calloc(6 * (size_t)c->vars.ninput + 1, sizeof(double));
    if (!c->d || !c->bak || !c->wrench || mbs_loops_snap_create(c->d, &c->loops_bak) != MBS_OK)
        return snprintf(why, len, "out of memory"), -1;
    return 0;
}

static void fmu_free(fmu *c)
{
    if (!c) return;
    mbs_stepper_destroy(c->st);
    mbs_data_destroy(c->d);
    mbs_model_destroy(c->m);
    fmu_vars_free(&c->vars);
    free(c->bak);
    mbs_loops_snap_free(c->loops_bak);
    free(c->wrench);
    free(c);
}

MBS_FMI2_EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }
MBS_FMI2_EXPORT const char *fmi2GetVersion(void) { return "2.0"; }

MBS_FMI2_EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                                              fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                              const fmi2CallbackFunctions *functions,
                                              fmi2Boolean visible, fmi2Boolean loggingOn)
{
    (void)visible;
    fmu *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->logger = functions ? functions->logger : NULL;
    c->env = functions ? functions->componentEnvironment : NULL;
    snprintf(c->name, sizeof c->name, "%s", instanceName ? instanceName : "");
    c->logging = loggingOn;
    c->step_size = 1e-3;
    char why[512] = "";
    if (!instanceName || !*instanceName || !fmuGUID || !fmuResourceLocation)
        snprintf(why, sizeof why, "fmi2Instantiate: instance name, GUID and resource location "
                 "are required");
    else if (fmuType != fmi2CoSimulation)
        snprintf(why, sizeof why, "fmi2Instantiate: this FMU supports co-simulation only");
    else
        load_model(c, fmuResourceLocation, fmuGUID, why, sizeof why);
    if (*why) {
        fmu_say(c, fmi2Error, "%s", why);
        fmu_free(c);
        return NULL;
    }
    return c;
}

MBS_FMI2_EXPORT void fmi2FreeInstance(fmi2Component c) { fmu_free(c); }

MBS_FMI2_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n,
                                               const fmi2String categories[])
{
    (void)n, (void)categories;
    if (!c) return fmi2Error;
    ((fmu *)c)->logging = on;
    return fmi2OK;
}

/* The instance's state check: MBS answers fmi2Error naming the call when not allowed. */
static fmi2Status need(fmu *c, const char *call, int allowed)
{
    return allowed ? fmi2OK : fmu_say(c, fmi2Error, "%s: not allowed in this state", call);
}

MBS_FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component cc, fmi2Boolean toleranceDefined,
                                               fmi2Real tolerance, fmi2Real startTime,
                                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    fmu *c = cc;
    (void)stopTimeDefined, (void)stopTime;
    if (!c) return fmi2Error;
    if (need(c, "fmi2SetupExperiment", c->state == ST_INSTANTIATED) != fmi2OK) return fmi2Error;
    if (!isfinite(startTime) || (toleranceDefined && !(tolerance > 0.0)))
        return fmu_say(c, fmi2Error, "fmi2SetupExperiment: start time %g or tolerance %g not valid",
                       startTime, tolerance);
    c->t_start = startTime;
    c->tol_defined = toleranceDefined;
    c->tol = tolerance;
    return fmi2OK;
}

MBS_FMI2_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component cc)
{
    fmu *c = cc;
    if (!c) return fmi2Error;
    if (need(c, "fmi2EnterInitializationMode", c->state == ST_INSTANTIATED) != fmi2OK)
        return fmi2Error;
    c->state = ST_INIT;
    return fmi2OK;
}

/* The stepper of the chosen kind at the start time; loops closed first. */
MBS_FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component cc)
{
    fmu *c = cc;
    if (!c) return fmi2Error;
    if (need(c, "fmi2ExitInitializationMode", c->state == ST_INIT) != fmi2OK) return fmi2Error;
    mbs_stepper_def def = mbs_default_stepper_def(c->use_cvode ? MBS_STEP_CVODE_ADAMS : MBS_STEP_RK4);
    if (c->use_cvode && c->tol_defined) def.rtol = c->tol, def.atol = 1e-3 * c->tol;
    def.max_work = (unsigned long)c->max_work;
    mbs_data_set_time(c->d, c->t_start);
    if (mbs_model_ncon(c->m) > 0 && mbs_assemble(c->d) != MBS_OK)
        return fmu_say(c, fmi2Error, "fmi2ExitInitializationMode: %s", mbs_data_error(c->d));
    c->st = mbs_stepper_create(c->d, &def);
    if (!c->st) return fmu_say(c, fmi2Error, "fmi2ExitInitializationMode: %s", mbs_data_error(c->d));
    c->state = ST_STEP;
    return fmi2OK;
}

MBS_FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component cc)
{
    fmu *c = cc;
    if (!c) return fmi2Error;
    if (need(c, "fmi2Terminate", c->state == ST_STEP || c->state == ST_INIT) != fmi2OK)
        return fmi2Error;
    c->state = ST_TERMINATED;
    return fmi2OK;
}

/* Back to the state after fmi2Instantiate: the model's start q and v (neutral and rest
   unless the model file gives start values), zero inputs (joint forces and wrenches),
   default parameters. */
MBS_FMI2_EXPORT fmi2Status fmi2Reset(fmi2Component cc)
{
    fmu *c = cc;
    if (!c) return fmi2Error;
    mbs_stepper_destroy(c->st);
    c->st = NULL;
    mbs_model_start(c->m, mbs_data_q(c->d), mbs_data_v(c->d));
    memset(mbs_data_tau(c->d), 0, sizeof(double) * (size_t)c->nv);
    memset(c->wrench, 0, sizeof(double) * 6 * (size_t)c->vars.ninput);
    for (int i = 0; i < c->vars.ninput; ++i) /* a zero wrench removes the input */
        mbs_set_body_wrench(c->d, c->vars.input[i].body, NULL, NULL, NULL);
    mbs_data_set_time(c->d, 0.0);
    c->step_size = 1e-3, c->use_cvode = 0, c->t_start = 0.0, c->tol_defined = 0, c->max_work = 0;
    c->state = ST_INSTANTIATED;
    return fmi2OK;
}

/* The most internal fixed steps one fmi2DoStep takes (docs/fmu.md): h = 1e6 s at 1 ms would
   be 10^9 RK4 steps in one call, h / step_size beyond 2^63 no integer at all. */
#define FMU_MAX_STEPS 10000000.0

/* The number of internal steps of a DoStep of h into *n: fmi2OK, or fmi2Error (logged) when
   it is beyond FMU_MAX_STEPS, h is below the rounding of t (t + h == t would not move), or
   t + h is not after the FMU's time now (t within the tolerance before now and h shorter
   than the gap: time would go backwards). */
static fmi2Status step_count(fmu *c, double now, double t, double h, long *n)
{
    const double steps = c->use_cvode ? 1.0 : ceil(h / c->step_size - 1e-9);
    if (t + h == t)
        return fmu_say(c, fmi2Error, "fmi2DoStep: h = %g is below the rounding of t = %.17g "
                       "(the time would not move)", h, t);
    if (!(t + h > now))
        return fmu_say(c, fmi2Error, "fmi2DoStep: t + h = %.17g is not after the FMU's time "
                       "%.17g (the time would go backwards)", t + h, now);
    if (!(steps <= FMU_MAX_STEPS)) /* compared as a double: no out-of-range conversion */
        return fmu_say(c, fmi2Error, "fmi2DoStep: h = %g at mbs.step_size = %g is %.3g internal "
                       "steps, beyond the bound of %.0f per call (a smaller h, or a larger "
                       "mbs.step_size)", h, c->step_size, steps, FMU_MAX_STEPS);
    *n = (long)steps;
    return fmi2OK;
}

/* From t to t + h in equal fixed steps no longer than step_size (RK4), or one CVODE call;
   on failure q, v, time and the loop solver's state are put back as they were (the stepper
   restores only the failing internal step's start). */
MBS_FMI2_EXPORT fmi2Status fmi2DoStep(fmi2Component cc, fmi2Real t, fmi2Real h,
                                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    fmu *c = cc;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!c) return fmi2Error;
    if (need(c, "fmi2DoStep", c->state == ST_STEP) != fmi2OK) return fmi2Error;
    const double now = mbs_data_time(c->d);
    if (!(h > 0.0) || !isfinite(h) || !isfinite(t) || fabs(t - now) > 1e-9 * fmax(1.0, fabs(now)))
        return fmu_say(c, fmi2Error, "fmi2DoStep: step from %.17g by %g, but the FMU is at %.17g",
                       t, h, now);
    long n = 1;
    if (step_count(c, now, t, h, &n) != fmi2OK) return fmi2Error;
    memcpy(c->bak, mbs_data_q(c->d), sizeof(double) * (size_t)c->nq);
    memcpy(c->bak + c->nq, mbs_data_v(c->d), sizeof(double) * (size_t)c->nv);
    memcpy(c->bak + c->nq + c->nv, c->d->aux, sizeof(double) * (size_t)c->m->naux);
    mbs_loops_snap_save(c->d, c->loops_bak); /* a failure in a later internal step */
    int st = MBS_OK;
    for (long k = 0; k < n && st == MBS_OK; ++k) st = mbs_stepper_step(c->st, h / (double)n);
    if (st == MBS_OK) {
        mbs_data_set_time(c->d, t + h); /* land on the communication point exactly */
        return fmi2OK;
    }
    memcpy(mbs_data_q(c->d), c->bak, sizeof(double) * (size_t)c->nq);
    memcpy(mbs_data_v(c->d), c->bak + c->nq, sizeof(double) * (size_t)c->nv);
    memcpy(c->d->aux, c->bak + c->nq + c->nv, sizeof(double) * (size_t)c->m->naux); /* Cardan frames */
    mbs_loops_snap_restore(c->d, c->loops_bak);
    mbs_data_set_time(c->d, now);
    return fmu_say(c, fmi2Discard, "fmi2DoStep at t = %.17g: %s (state kept at t)", now,
                   mbs_data_error(c->d));
}

MBS_FMI2_EXPORT fmi2Status fmi2CancelStep(fmi2Component cc)
{
    return fmu_say(cc, fmi2Error, "fmi2CancelStep: steps are synchronous, nothing to cancel");
}
