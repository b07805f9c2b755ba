/* See run_helpers.h. */
#include "run_helpers.h"

#include <string.h>

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

/* One random state (seed) on d: q within qs (0.1 with loops, then assembled), v within 1. */
static void same_state(mbs_data *d, uint64_t seed, int loops)
{
    test_rng r;
    test_rng_seed(&r, seed);
    test_random_state(&r, d, loops ? 0.1 : 0.8, 1.0, 0.5);
    if (loops) assert_int_equal(mbs_assemble(d), MBS_OK);
}

/* See run_helpers.h. */
void run_assert_same(const mbs_model *ma, const mbs_model *mb, uint64_t seed, int nstates,
                     int nsteps)
{
    mbs_data *da = mbs_data_create(ma), *db = mbs_data_create(mb);
    const int nq = mbs_model_nq(ma), nv = mbs_model_nv(ma), loops = mbs_model_ncon(ma) > 0;
    assert_int_equal(nq, mbs_model_nq(mb));
    for (int k = 0; k < nstates; ++k) {
        same_state(da, seed + 1000 * (uint64_t)k, loops);
        same_state(db, seed + 1000 * (uint64_t)k, loops);
        assert_int_equal(mbs_forward_dynamics(da), MBS_OK);
        assert_int_equal(mbs_forward_dynamics(db), MBS_OK);
        assert_memory_equal(mbs_data_qacc(da), mbs_data_qacc(db), (size_t)nv * sizeof(double));
        double Ta, Va, Tb, Vb;
        assert_int_equal(mbs_energy(da, &Ta, &Va), MBS_OK);
        assert_int_equal(mbs_energy(db, &Tb, &Vb), MBS_OK);
        assert_true(Ta == Tb && Va == Vb);
    }
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *sa = mbs_stepper_create(da, &sd), *sb = mbs_stepper_create(db, &sd);
    assert_non_null(sa);
    assert_non_null(sb);
    for (int k = 0; k < nsteps; ++k) {
        assert_int_equal(mbs_stepper_step(sa, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(sb, 1e-3), MBS_OK);
    }
    assert_memory_equal(mbs_data_q(da), mbs_data_q(db), (size_t)nq * sizeof(double));
    assert_memory_equal(mbs_data_v(da), mbs_data_v(db), (size_t)nv * sizeof(double));
    mbs_stepper_destroy(sa);
    mbs_stepper_destroy(sb);
    mbs_data_destroy(da);
    mbs_data_destroy(db);
}

/* See run_helpers.h. */
void run_fingerprint(const mbs_model *m, double *qacc)
{
    mbs_data *d = mbs_data_create(m);
    test_rng r;
    test_rng_seed(&r, 17);
    test_random_state(&r, d, 0.5, 0.5, 0.5);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    memcpy(qacc, mbs_data_qacc(d), (size_t)mbs_model_nv(m) * sizeof(double));
    mbs_data_destroy(d);
}
