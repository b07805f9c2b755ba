/* The CVODE kinds in a build configured with -Dcvode=disabled (an embedded target that links
 * the fixed-step core with libm alone): creating such a stepper fails with MBS_ERR_STATE and
 * a message that says why, so a program written for the full library still builds. */
#include "steppers/stepper.h"

#include "core/internal.h"

/* Refuse: this library was built without SUNDIALS. */
static int no_cvode_init(mbs_stepper *s)
{
    return MBS_DATA_FAIL(s->d, MBS_ERR_STATE, "stepper %s: this build of mbs has no SUNDIALS "
                         "CVODE (configured with -Dcvode=disabled); use MBS_STEP_RK4 or "
                         "MBS_STEP_EULER", s->kind->name);
}

static void no_cvode_fini(mbs_stepper *s) { (void)s; }
static void no_cvode_sync(mbs_stepper *s, int event) { (void)s, (void)event; }

/* Never reached: init fails. */
static int no_cvode_step(mbs_stepper *s, double dt)
{
    (void)dt;
    return no_cvode_init(s);
}

const mbs_stepper_vtable mbs_stepper_vt_cvode_adams = {
    .name = "CVODE Adams", .init = no_cvode_init, .fini = no_cvode_fini, .step = no_cvode_step,
    .sync = no_cvode_sync,
};

const mbs_stepper_vtable mbs_stepper_vt_cvode_bdf = {
    .name = "CVODE BDF", .init = no_cvode_init, .fini = no_cvode_fini, .step = no_cvode_step,
    .sync = no_cvode_sync,
};
