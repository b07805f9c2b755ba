/* SDFormat files through libsdformat (tools/sdf/mbs_sdf.h): a four-bar linkage read from
 * tests/data/four_bar.sdf (a closed loop: its last joint becomes a cut joint) runs bit for
 * bit like the same mechanism built through the C API; files libsdformat or mbs cannot take
 * (an unknown element, a joint type mbs lacks, a nested or static model, a missing file,
 * several models) are refused with a status and a message naming the element. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbs_sdf.h"

static const char *data_path(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", getenv("MBS_TEST_DATA"), name);
    return path;
}

static const char *scratch(const char *text);

static void test_close3(const double *a, const double *b, const char *what)
{
    for (int i = 0; i < 3; ++i)
        if (fabs(a[i] - b[i]) > 1e-12) fail_msg("%s[%d]: %.17g, expected %.17g", what, i, a[i], b[i]);
}

static mbs_model *compile_or_fail(mbs_builder *b)
{
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fail_msg("compile: %s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

static void body(mbs_builder *b, const char *name, double mass, const double com[3], const double diag[3])
{
    mbs_body_def d = mbs_default_body_def();
    d.name = name, d.mass = mass;
    memset(d.inertia, 0, sizeof d.inertia);
    for (int i = 0; i < 3; ++i) d.com[i] = com[i], d.inertia[4 * i] = diag[i];
    assert_true(mbs_add_body(b, &d) > 0);
}

static void pivot(mbs_builder *b, const char *name, int parent, int child, const double pp[3],
                  const double pc[3], int cut)
{
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = name, j.parent = parent, j.child = child, j.cut = cut;
    memcpy(j.frame_parent.pos, pp, sizeof j.frame_parent.pos);
    memcpy(j.frame_child.pos, pc, sizeof j.frame_child.pos);
    j.axis[0] = 0.0, j.axis[1] = 1.0, j.axis[2] = 0.0;
    assert_true(mbs_add_joint(b, &j) >= 0);
}

/* The four-bar of four_bar.sdf by hand: link frames at the poses the file gives, joint frames
   where the file's joint poses (in the child's frame) put them. */
static mbs_model *four_bar_api(void)
{
    mbs_builder *b = mbs_builder_create();
    const double o[3] = {0, 0, 0}, rocker_com[3] = {0, 0, 0.125};
    body(b, "crank", 1.0, o, (const double[3]){0.1, 0.1, 0.01});
    body(b, "coupler", 2.0, o, (const double[3]){0.01, 0.4, 0.4});
    body(b, "rocker", 1.5, rocker_com, (const double[3]){0.2, 0.2, 0.02});
    pivot(b, "crank_pivot", MBS_WORLD, 1, o, (const double[3]){0, 0, -0.5}, 0);
    pivot(b, "crank_coupler", 1, 2, (const double[3]){0, 0, 0.5}, (const double[3]){-0.625, 0, 0}, 0);
    pivot(b, "coupler_rocker", 2, 3, (const double[3]){0.625, 0, 0}, (const double[3]){-0.25, 0, 0.5}, 0);
    pivot(b, "rocker_pivot", MBS_WORLD, 3, (const double[3]){1.5, 0, 0}, (const double[3]){0, 0, -0.5}, 1);
    return compile_or_fail(b);
}

static void test_four_bar_equals_api(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    char err[2048] = "";
    assert_int_equal(mbs_sdf_load(b, data_path("four_bar.sdf"), NULL, err, sizeof err), MBS_OK);
    mbs_model *ms = compile_or_fail(b), *ma = four_bar_api();
    assert_int_equal(mbs_model_joint_is_cut(ms, 3), 1); /* rocker_pivot closes the loop */
    assert_int_equal(mbs_model_joint_is_cut(ms, 2), 0);
    assert_int_equal(mbs_model_nq(ms), mbs_model_nq(ma));
    assert_int_equal(mbs_model_ncon(ms), mbs_model_ncon(ma));
    mbs_data *ds = mbs_data_create(ms), *da = mbs_data_create(ma);
    const mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *ss = mbs_stepper_create(ds, &def), *sa = mbs_stepper_create(da, &def);
    const int nq = mbs_model_nq(ms);
    double moved = 0.0, drift = 0.0, T0, V0, T, V;
    assert_int_equal(mbs_energy(ds, &T0, &V0), MBS_OK);
    for (int k = 0; k < 2000; ++k) { /* 2 s at 1 ms */
        assert_int_equal(mbs_stepper_step(ss, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(sa, 1e-3), MBS_OK);
        if (memcmp(mbs_data_q(ds), mbs_data_q(da), (size_t)nq * sizeof(double)) != 0
            || memcmp(mbs_data_v(ds), mbs_data_v(da), (size_t)mbs_model_nv(ms) * sizeof(double)) != 0)
            fail_msg("step %d: the .sdf model and the API's differ", k + 1);
        moved = fmax(moved, fabs(mbs_data_q(ds)[0]));
        assert_int_equal(mbs_energy(ds, &T, &V), MBS_OK);
        drift = fmax(drift, fabs(T + V - T0 - V0));
    }
    /* independent of the API's model: a conservative loop keeps its energy (RK4, 1 ms) */
    print_message("four-bar: 2000 RK4 steps bit for bit equal to the API's, crank swings %.3f rad, "
                  "energy drift %.2e J of %.2f J potential\n", moved, drift, fabs(V0));
    assert_true(moved > 0.1); /* it did move */
    assert_true(drift < 1e-6 * fabs(V0));
    mbs_stepper_destroy(ss), mbs_stepper_destroy(sa);
    mbs_data_destroy(ds), mbs_data_destroy(da);
    mbs_model_destroy(ms), mbs_model_destroy(ma);
}

/* four_bar.sdf's model inside a <world> that places it turned by 1 rad about z and moved:
   gravity along -z makes that a symmetry, so the joint coordinates follow the same path
   (to rounding: the world pose is composed into every frame). Checks the world's model pose
   and the turned axes and frames. */
static void test_world_turned(void **state)
{
    (void)state;
    FILE *f = fopen(data_path("four_bar.sdf"), "rb");
    assert_non_null(f);
    static char text[16384], world[17000];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    char *model = strstr(text, "<model name=\"four_bar\">"), *end = strstr(text, "</sdf>");
    assert_non_null(model), assert_non_null(end);
    *end = '\0';
    snprintf(world, sizeof world, "<sdf version=\"1.9\"><world name=\"w\"><gravity>0 0 -9.81</gravity>"
             "<model name=\"four_bar\"><pose>1 2 0.5 0 0 1</pose>%s</world></sdf>",
             model + strlen("<model name=\"four_bar\">"));
    const char *path = scratch(world);
    char err[2048] = "";
    mbs_builder *b = mbs_builder_create();
    const int st = mbs_sdf_load(b, path, NULL, err, sizeof err);
    remove(path);
    if (st != MBS_OK) fail_msg("%s", err);
    mbs_model *mw = compile_or_fail(b), *ma = four_bar_api();
    mbs_data *dw = mbs_data_create(mw), *da = mbs_data_create(ma);
    const mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    /* the model is placed: the rocker's frame (model (1.5, 0, 0.5)) at (1, 2, 0.5) + Rz(1) x */
    double pos[3], rot[9];
    assert_int_equal(mbs_body_pose(dw, 3, pos, rot), MBS_OK);
    const double want[3] = {1.0 + 1.5 * cos(1.0), 2.0 + 1.5 * sin(1.0), 1.0};
    test_close3(pos, want, "rocker origin");
    assert_true(fabs(rot[0] - cos(1.0)) < 1e-12 && fabs(rot[3] - sin(1.0)) < 1e-12);
    mbs_stepper *sw = mbs_stepper_create(dw, &def), *sa = mbs_stepper_create(da, &def);
    double worst = 0.0;
    for (int k = 0; k < 1000; ++k) {
        assert_int_equal(mbs_stepper_step(sw, 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(sa, 1e-3), MBS_OK);
        for (int i = 0; i < mbs_model_nq(ma); ++i)
            worst = fmax(worst, fabs(mbs_data_q(dw)[i] - mbs_data_q(da)[i]));
    }
    print_message("four-bar turned and moved in a world: joint paths within %.1e rad over 1 s\n", worst);
    assert_true(worst < 1e-9);
    mbs_stepper_destroy(sw), mbs_stepper_destroy(sa);
    mbs_data_destroy(dw), mbs_data_destroy(da);
    mbs_model_destroy(mw), mbs_model_destroy(ma);
}

/* A file written to a scratch path (one at a time). */
static const char *scratch(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/mbs_sdf_XXXXXX");
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

#define LINK(n) "<link name=\"" n "\"><inertial><mass>1</mass></inertial></link>"

static void test_refused(void **state)
{
    (void)state;
    static const struct { const char *text, *why; } bad[] = {
        {"<sdf version=\"1.9\"><model name=\"m\"><link name=\"a\"><wobble>1</wobble></link></model></sdf>",
         "wobble"},
        {"<sdf version=\"1.9\"><model name=\"m\">" LINK("a") LINK("b")
         "<joint name=\"s\" type=\"screw\"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis>"
         "</joint></model></sdf>", "<joint name=\"s\">: a joint type mbs does not have"},
        {"<sdf version=\"1.9\"><model name=\"m\">" LINK("a") "<model name=\"inner\">" LINK("b")
         "</model></model></sdf>", "nested models are not read"},
        {"<sdf version=\"1.9\"><model name=\"m\"><static>true</static>" LINK("a") "</model></sdf>",
         "a static model"},
        {"<sdf version=\"1.9\"><world name=\"w\"><model name=\"m1\">" LINK("a") "</model>"
         "<model name=\"m2\">" LINK("b") "</model></world></sdf>", "2 models (one is read)"},
        {"<sdf version=\"1.9\"><model name=\"m\">" LINK("a")
         "<joint name=\"j\" type=\"revolute\"><parent>a</parent><child>nowhere</child><axis><xyz>0 0 1</xyz>"
         "</axis></joint></model></sdf>", "nowhere"},
        {"this is not XML", "libsdformat"},
        {"<sdf version=\"1.9\"><model name=\"m\">" LINK("a")
         "<include><uri>https://example.invalid/models/arm</uri></include></model></sdf>", "libsdformat"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        const char *path = scratch(bad[k].text);
        char err[4096] = "";
        mbs_builder *b = mbs_builder_create();
        const int st = mbs_sdf_load(b, path, NULL, err, sizeof err);
        remove(path);
        mbs_builder_destroy(b);
        if (st != MBS_ERR_ARG || !strstr(err, bad[k].why) || !strstr(err, path))
            fail_msg("file %zu: status %d, '%s' (expected '%s')", k, st, err, bad[k].why);
    }
    char err[1024] = "";
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_sdf_load(b, "/nonexistent/arm.sdf", NULL, err, sizeof err), MBS_ERR_ARG);
    assert_non_null(strstr(err, "/nonexistent/arm.sdf"));
    mbs_builder_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_bar_equals_api),
        cmocka_unit_test(test_world_turned),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
