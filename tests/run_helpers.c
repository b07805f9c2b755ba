/* See run_helpers.h. */
#include "run_helpers.h"

mbs_model *run_compile_ok(mbs_builder *b)
{
    mbs_model *m = NULL;
    int rc = mbs_compile(b, &m);
    if (rc != MBS_OK) print_error("compile: %s: %s\n", mbs_status_name(rc), mbs_builder_error(b));
    assert_int_equal(rc, MBS_OK);
    return m;
}

mbs_stepper *run_stepper_ok(mbs_data *d, mbs_stepper_kind kind, double rtol, double atol)
{
    mbs_stepper_def sd = mbs_default_stepper_def(kind);
    sd.rtol = rtol;
    sd.atol = atol;
    sd.max_internal_steps = 1000000;
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    if (!s) print_error("stepper: %s\n", mbs_data_error(d));
    assert_non_null(s);
    return s;
}

void run_step_ok(mbs_stepper *s, mbs_data *d, double dt)
{
    int rc = mbs_stepper_step(s, dt);
    if (rc != MBS_OK) print_error("step: %s: %s\n", mbs_status_name(rc), mbs_data_error(d));
    assert_int_equal(rc, MBS_OK);
}
