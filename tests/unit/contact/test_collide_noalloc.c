/* Real-time guarantee of the contact element: after mbs_data_create and mbs_stepper_create,
 * stepping through contact starts and ends (events located, friction sticking and sliding)
 * and the contact queries allocate nothing (the counting allocator of count_alloc.h). */
#include "common.h"

#include <string.h>

#include "count_alloc.h"

/* A wheel (cylinder, axis along y) and a ball from shapes on a world plane under tilted
   gravity; the ball on the wheel is a pair for libccd. */
static mbs_model *scene(int *element)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_gravity(b, (double[3]){1.0, 0, -9.81}), MBS_OK);
    mbs_shape_def s = mbs_default_shape_def();
    s.kind = MBS_COLLISION_PLANE;
    assert_int_equal(mbs_add_shape(b, &s), 0);
    const char *names[2] = {"wheel", "ball"};
    for (int k = 0; k < 2; ++k) {
        s = mbs_default_shape_def();
        s.kind = k ? MBS_COLLISION_SPHERE : MBS_COLLISION_CYLINDER;
        s.size[0] = s.size[1] = 0.1;
        const double Rx[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0}; /* shape z along body y */
        if (!k) memcpy(s.pose.rot, Rx, sizeof Rx);
        mbs_body_def bd;
        assert_int_equal(mbs_body_def_from_shape(&s, 1000.0, &bd), MBS_OK);
        bd.name = names[k];
        s.body = mbs_add_body(b, &bd);
        assert_int_equal(mbs_add_shape(b, &s), k + 1);
    }
    *element = mbs_add_contact(b, NULL, 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

static void test_no_alloc(void **state)
{
    (void)state;
    int el;
    mbs_model *m = scene(&el);
    mbs_data *d = mbs_data_create(m);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    double *q = mbs_data_q(d);
    q[2] = 0.1, q[7 + 0] = 0.05, q[7 + 2] = 0.5; /* the wheel on the plane, the ball above */
    double pt[24], n[24], pen[8], f[24];
    count_begin();
    for (int k = 0; k < 1000; ++k) {
        if (mbs_stepper_step(st, 1e-3) != MBS_OK) fail_msg("%s", mbs_data_error(d));
        mbs_contact_query(d, el, 1, 2, 8, pt, n, pen, f);
        mbs_contact_query(d, el, 0, 2, 8, pt, n, pen, f);
    }
    const long nalloc = count_end();
    long starts = 0;
    for (int i = 0; i < mbs_model_nevent(m); ++i) starts += mbs_data_event_count(d, i);
    print_message("  %ld contact starts and ends, %ld allocations\n", starts, nalloc);
    assert_int_equal(nalloc, 0);
    assert_true(starts >= 3);
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_alloc)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
