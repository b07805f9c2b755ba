/* Helpers of the test suites of point masses, two-frame forces, parameters and
 * sensitivities: compile, create a stepper and step, failing the test with the library's
 * message. */
#ifndef MBS_TESTS_RUN_HELPERS_H
#define MBS_TESTS_RUN_HELPERS_H

#include "common.h"

/* The compiled model of b (the test fails with the builder's message otherwise). */
mbs_model *run_compile_ok(mbs_builder *b);
/* A stepper of kind with rtol, atol and 1e6 internal steps per call. */
mbs_stepper *run_stepper_ok(mbs_data *d, mbs_stepper_kind kind, double rtol, double atol);
/* One mbs_stepper_step of dt that must succeed. */
void run_step_ok(mbs_stepper *s, mbs_data *d, double dt);
/* Two models that must be the same (a parameter changed on one, the other compiled with it):
   on nstates random states (seeds seed, seed + 1000, ...; a model with loops assembled)
   forward dynamics and energy bitwise equal, then nsteps RK4 steps of 1 ms and q, v bitwise
   equal. */
void run_assert_same(const mbs_model *ma, const mbs_model *mb, uint64_t seed, int nstates,
                     int nsteps);
/* qacc (nv) of a fixed random state: a fingerprint of the model's parameters. */
void run_fingerprint(const mbs_model *m, double *qacc);

#endif
