/* Robot files as they ship (mbs_load_options): elements of other tools and namespaces
 * skipped with a warning the caller reads; inertia entries of rounding junk read as zero; an
 * inertia that cannot act (a link welded to the world) ignored with a warning while the same
 * inertia on a moving link is refused, or balanced on request; the root's free joint; and the
 * public robot descriptions of ../shared/robots (Gepetto's example-robot-data), skipped when
 * that folder is absent. Env: MBS_ROBOTS. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mbs/mbs.h"

/* The warnings of one load. */
typedef struct warnings {
    int n;
    char text[32][512];
} warnings;

static void collect(void *user, const char *msg)
{
    warnings *w = user;
    if (w->n < 32) snprintf(w->text[w->n], sizeof w->text[0], "%s", msg);
    w->n++;
}

/* Index of the first warning holding all of a and b, or -1. */
static int find_warning(const warnings *w, const char *a, const char *b)
{
    for (int i = 0; i < w->n && i < 32; ++i)
        if (strstr(w->text[i], a) && (!b || strstr(w->text[i], b))) return i;
    return -1;
}

static char g_dir[64];

static const char *write_file(const char *name, const char *text)
{
    static char path[4][700];
    static int slot;
    char *p = path[slot++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* Load path with floating_base and balance, collecting warnings; the model or NULL (the
   message in err). */
static mbs_model *load(const char *path, int floating, int balance, warnings *w, char *err, size_t n)
{
    mbs_builder *b = mbs_builder_create();
    mbs_load_options o = mbs_default_load_options();
    o.floating_base = floating, o.balance_inertia = balance, o.warning = collect, o.user = w;
    memset(w, 0, sizeof *w);
    mbs_model *m = NULL;
    int st = mbs_builder_load_with(b, path, &o);
    if (st == MBS_OK) st = mbs_compile(b, &m);
    snprintf(err, n, "%s", st == MBS_OK ? "" : mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

#define BASE "<link name=\"base\"><inertial><mass value=\"2\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link>\n"
#define ARM(ixx, ixz, izz) "<link name=\"arm\"><inertial><origin xyz=\"0.5 0 0\"/><mass value=\"1\"/><inertia ixx=\"" ixx "\" ixy=\"0\" ixz=\"" ixz "\" iyy=\"" ixx "\" iyz=\"0\" izz=\"" izz "\"/></inertial></link>\n"
#define HINGE(type) "<joint name=\"hinge\" type=\"" type "\"><parent link=\"base\"/><child link=\"arm\"/><axis xyz=\"0 0 1\"/></joint>\n"

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/mbs_robots_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* <sensor>, <mujoco>, Drake's <frame>, elements of a declared or undeclared namespace: skipped,
   one warning each with line and element; an unknown element without a namespace is refused. */
static void test_foreign_elements(void **state)
{
    (void)state;
    const char *p = write_file("foreign.urdf",
        "<robot name=\"r\" xmlns:drake=\"http://drake.mit.edu\">\n" BASE ARM("0.01", "0", "0.01") HINGE("revolute")
        "<sensor name=\"imu\" update_rate=\"100\"><parent link=\"arm\"/></sensor>\n"
        "<mujoco><compiler meshdir=\"m\"/></mujoco>\n"
        "<frame name=\"tip\" link=\"arm\" xyz=\"1 0 0\"/>\n"
        "<drake:collision_filter_group name=\"g\"/>\n"
        "<other:thing xmlns:other=\"urn:x\"/>\n"
        "<ros:thing/>\n"
        "</robot>\n");
    warnings w;
    char err[1024];
    mbs_model *m = load(p, 0, 0, &w, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_int_equal(mbs_model_nv(m), 1);
    mbs_model_destroy(m);
    static const char *const want[][2] = {
        {":5: <sensor name=\"imu\">: skipped", NULL}, {":6: <mujoco>: skipped", NULL},
        {":7: <frame name=\"tip\">: skipped", NULL},
        {":8: <drake:collision_filter_group name=\"g\">: skipped", "namespace http://drake.mit.edu"},
        {":9: <other:thing>: skipped", "urn:x"}, {":10: <ros:thing>: skipped", NULL}};
    assert_int_equal(w.n, 6);
    for (int i = 0; i < 6; ++i)
        if (find_warning(&w, want[i][0], want[i][1]) != i) fail_msg("warning %d: '%s'", i, w.text[i]);
    assert_non_null(strstr(w.text[0], p)); /* the file's path starts each warning */
    /* refused, 300 characters deep in folders: the message keeps path and element */
    char dir[512], typo[600];
    snprintf(dir, sizeof dir, "%s/%0150d", g_dir, 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof dir, "%s/%0150d/%0150d", g_dir, 0, 1);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(typo, sizeof typo, "%0150d/%0150d/typo.urdf", 0, 1);
    p = write_file(typo, "<robot>\n" BASE ARM("0.01", "0", "0.01") HINGE("revolute") "<sprin_damper/>\n</robot>\n");
    assert_null(load(p, 0, 0, &w, err, sizeof err));
    assert_non_null(strstr(err, p));
    assert_non_null(strstr(err, ":5: <sprin_damper>: unknown element (URDF: link, joint, material; mbs: gravity,"));
}

/* A point mass written with junk inertia (1e-35 off the diagonal, -5e-20 on it) loads as a
   point mass: M = m r^2 = 0.25 exactly; a real inertia of 1e-9 next to 0.1 is kept. */
static void test_junk_inertia(void **state)
{
    (void)state;
    static const char *const arms[][3] = {{"0", "2.40741e-35", "0"}, {"-5.42101e-20", "0", "0"}};
    for (int k = 0; k < 2; ++k) {
        char text[2048];
        snprintf(text, sizeof text, "<robot>\n" BASE "<link name=\"arm\"><inertial><origin xyz=\"0.5 0 0\"/><mass value=\"1\"/>"
                 "<inertia ixx=\"%s\" ixy=\"0\" ixz=\"%s\" iyy=\"%s\" iyz=\"0\" izz=\"%s\"/></inertial></link>\n" HINGE("revolute") "</robot>\n",
                 arms[k][0], arms[k][1], arms[k][0], arms[k][2]);
        warnings w;
        char err[1024];
        mbs_model *m = load(write_file("junk.urdf", text), 0, 0, &w, err, sizeof err);
        if (!m) fail_msg("case %d: %s", k, err);
        mbs_data *d = mbs_data_create(m);
        double M = 0.0;
        assert_int_equal(mbs_mass_matrix(d, &M), MBS_OK);
        assert_true(M == 0.25);
        assert_int_equal(w.n, 1);
        assert_non_null(strstr(w.text[0], ":3: <link name=\"arm\">: 2 inertia entries below 1e-13"));
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
    warnings w;
    char err[1024];
    mbs_model *m = load(write_file("small.urdf", "<robot>\n" BASE ARM("1e-9", "0", "1e-9") HINGE("revolute") "</robot>\n"),
                        0, 0, &w, err, sizeof err);
    assert_non_null(m);
    assert_int_equal(w.n, 0);
    mbs_data *d = mbs_data_create(m);
    double M = 0.0;
    assert_int_equal(mbs_mass_matrix(d, &M), MBS_OK);
    assert_true(fabs(M - (0.25 + 1e-9)) < 1e-16);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

#define BAD_INERTIA "<inertia ixx=\"1e-6\" ixy=\"1e-6\" ixz=\"1e-6\" iyy=\"1e-6\" iyz=\"1e-6\" izz=\"1e-6\"/>"
#define DUMMY "<link name=\"dummy\"><inertial><mass value=\"1e-6\"/>" BAD_INERTIA "</inertial></link>\n" \
              "<joint name=\"weld\" type=\"fixed\"><parent link=\"dummy\"/><child link=\"base\"/></joint>\n"

/* The dummy root link of anymal, b1, hyq and icub (an inertia of rank one, against the
   triangle inequality) welded to the world, and a link fixed to it with the same inertia:
   ignored with a warning each. The same inertia on a moving link is refused by default, and
   balanced to its mean with balance_inertia; with a floating base the dummy moves and is
   refused (or balanced) too. */
static void test_inertia_that_cannot_act(void **state)
{
    (void)state;
    warnings w;
    char err[1024];
    const char *p = write_file("dummy.urdf", "<robot>\n" DUMMY BASE ARM("0.01", "0", "0.01") HINGE("revolute")
        "<link name=\"cover\"><inertial><mass value=\"1e-6\"/>" BAD_INERTIA "</inertial></link>\n"
        "<joint name=\"cover_weld\" type=\"fixed\"><parent link=\"base\"/><child link=\"cover\"/></joint>\n</robot>\n");
    mbs_model *m = load(p, 0, 0, &w, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_int_equal(w.n, 2);
    assert_int_equal(find_warning(&w, ":2: <link name=\"dummy\">: the link cannot move (welded to the world), its "
                                  "inertia is ignored: body \"dummy\": principal moments", "triangle inequality"), 0);
    assert_int_equal(find_warning(&w, ":7: <link name=\"cover\">: the link cannot move", NULL), 1);
    mbs_model_destroy(m);
    assert_null(load(p, 1, 0, &w, err, sizeof err)); /* floating: the dummy moves */
    assert_non_null(strstr(err, "<link name=\"dummy\">: body \"dummy\" (id 1): principal moments"));
    m = load(p, 1, 1, &w, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_int_equal(mbs_model_nv(m), 7);
    assert_int_equal(find_warning(&w, "<link name=\"dummy\">: principal moments violate the triangle inequality: "
                                  "balanced to 1e-06 each (balance_inertia)", NULL), 0);
    mbs_model_destroy(m);

    /* a moving arm with principal moments (1, 1, 3): refused; balanced, M = 5/3 + m r^2 */
    p = write_file("moving.urdf", "<robot>\n" BASE ARM("1", "0", "3") HINGE("revolute") "</robot>\n");
    assert_null(load(p, 0, 0, &w, err, sizeof err));
    assert_non_null(strstr(err, ":3: <link name=\"arm\">: body \"arm\" (id 2): principal moments (1, 1, 3) violate"));
    m = load(p, 0, 1, &w, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.text[0], ":3: <link name=\"arm\">: principal moments violate the triangle "
                                      "inequality: balanced to 1.66667 each (balance_inertia)"));
    mbs_data *d = mbs_data_create(m);
    double M = 0.0;
    assert_int_equal(mbs_mass_matrix(d, &M), MBS_OK);
    assert_true(fabs(M - (5.0 / 3.0 + 0.25)) < 1e-15);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    /* not positive semi-definite on a moving link: balance_inertia does not hide it */
    p = write_file("negative.urdf", "<robot>\n" BASE ARM("1", "0", "-1") HINGE("revolute") "</robot>\n");
    assert_null(load(p, 0, 1, &w, err, sizeof err));
    assert_non_null(strstr(err, "not positive semi-definite"));
}

/* floating_base: the root gets a free joint named "floating_base" (nv 6 + 1); at rest the
   rigid pair falls with gravity, the arm's hinge still turning freely. Default: welded. */
static void test_floating_base(void **state)
{
    (void)state;
    warnings w;
    char err[1024];
    const char *p = write_file("float.urdf", "<robot>\n" BASE ARM("0.01", "0", "0.01") HINGE("revolute") "</robot>\n");
    mbs_model *m = load(p, 0, 0, &w, err, sizeof err);
    assert_int_equal(mbs_model_nv(m), 1);
    assert_true(mbs_model_find_joint(m, "floating_base") < 0);
    mbs_model_destroy(m);
    m = load(p, 1, 0, &w, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_int_equal(mbs_model_nq(m), 8);
    assert_int_equal(mbs_model_nv(m), 7);
    const int j = mbs_model_find_joint(m, "floating_base");
    assert_true(j >= 0);
    assert_int_equal(mbs_model_joint_nv(m, j), 6);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    /* the whole system's centre of mass accelerates with gravity: dp/dt = (3 kg) g */
    double lin0[3], lin1[3], ang[3];
    assert_int_equal(mbs_momentum(d, lin0, ang), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    assert_int_equal(mbs_momentum(d, lin1, ang), MBS_OK);
    assert_true(fabs(lin1[2] - lin0[2] - 3.0 * -9.81 * 1e-3) < 1e-12);
    assert_true(fabs(lin1[0] - lin0[0]) < 1e-12 && fabs(lin1[1] - lin0[1]) < 1e-12);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The shipped robot descriptions: what loads with the default options, with balance_inertia,
   and what stays refused (with its reason); every loaded one runs its forward dynamics at
   the neutral pose to finite accelerations, with a floating base too (nv grows by 6 unless
   the file has a world link of its own). */
static void test_shipped_robots(void **state)
{
    (void)state;
    const char *dir = getenv("MBS_ROBOTS");
    struct stat st;
    if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        print_message("robot descriptions not found (%s): skipped\n", dir ? dir : "MBS_ROBOTS unset");
        skip();
    }
    static const struct { const char *file; const char *refused; int balance; } robots[] = {
        {"ur5_robot", NULL, 0}, {"panda", NULL, 0}, {"double_pendulum", NULL, 0},
        {"solo12", NULL, 0}, {"go2", NULL, 0}, {"a1", NULL, 0}, {"talos_full_v2", NULL, 0},
        {"anymal", NULL, 0}, {"b1", NULL, 0}, {"icub_reduced", NULL, 0},
        {"hyq_no_sensors", "<link name=\"lf_foot\">: body \"lf_foot\"", 1},
        {"tiago", "<link name=\"arm_1_link\">", 1},
        {"allegro_right_hand", "<link name=\"link_1.0\">", 1},
        {"pr2", "<link name=\"sensor_mount_link\">", 1},
        {"bravo7_gripper", "which carries no mass", 0},
        {"bolt", "mass is 0 but inertia is not zero", 0},
    };
    for (size_t k = 0; k < sizeof robots / sizeof robots[0]; ++k) {
        char path[600], err[1024];
        warnings w;
        snprintf(path, sizeof path, "%s/%s.urdf", dir, robots[k].file);
        mbs_model *m = load(path, 0, 0, &w, err, sizeof err);
        if (robots[k].refused) {
            if (m || !strstr(err, robots[k].refused)) fail_msg("%s: '%s'", robots[k].file, err);
            if (!robots[k].balance) continue;
            m = load(path, 0, 1, &w, err, sizeof err);
            if (!m || find_warning(&w, "balance_inertia", NULL) < 0) fail_msg("%s balanced: '%s'", robots[k].file, err);
        }
        if (!m) fail_msg("%s: %s", robots[k].file, err);
        const int nv = mbs_model_nv(m);
        for (int fl = 0; fl < 2; ++fl) {
            if (fl) {
                mbs_model_destroy(m);
                m = load(path, 1, 1, &w, err, sizeof err);
                if (!strcmp(robots[k].file, "tiago")) { /* its antenna then moves: refused */
                    if (m || !strstr(err, "<link name=\"base_antenna_left_link\">") ||
                        !strstr(err, "not positive semi-definite")) fail_msg("tiago floating: '%s'", err);
                    break;
                }
                if (!m) fail_msg("%s floating: %s", robots[k].file, err);
                /* ur5's file welds its base to a link named world itself: left as it is */
                assert_int_equal(mbs_model_nv(m), nv + (strcmp(robots[k].file, "ur5_robot") ? 6 : 0));
            }
            mbs_data *d = mbs_data_create(m);
            assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
            for (int i = 0; i < mbs_model_nv(m); ++i) assert_true(isfinite(mbs_data_qacc(d)[i]));
            mbs_data_destroy(d);
        }
        print_message("%-20s nv %2d, %d warnings%s\n", robots[k].file, nv, w.n, robots[k].balance ? " (balanced)" : "");
        mbs_model_destroy(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_foreign_elements),
        cmocka_unit_test(test_junk_inertia),
        cmocka_unit_test(test_inertia_that_cannot_act),
        cmocka_unit_test(test_floating_base),
        cmocka_unit_test(test_shipped_robots),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
