/* Model files (src/io/): robot descriptions written the way ROS packages write them load,
 * with their mass matrices checked by hand where they are small; mbs's superset closes a
 * loop and adds force elements; every malformed file gives one clear error naming the file,
 * the line and the element, and leaves the builder as it was. Env: MBS_TEST_DATA. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mbs/mbs.h"

static char path_buf[512];

static const char *data(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s", getenv("MBS_TEST_DATA"), name);
    return path_buf;
}

static mbs_model *load(const char *path)
{
    mbs_builder *b = mbs_builder_create();
    const int st = mbs_builder_load(b, path);
    if (st != MBS_OK) fail_msg("%s: %s", path, mbs_builder_error(b));
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Two links, the second with a turned inertia: M at q = 0 by hand (parallel axes). */
static void test_mesh_arm_mass_matrix(void **state)
{
    (void)state;
    mbs_model *m = load(data("robots/mesh_arm.urdf"));
    assert_int_equal(mbs_model_nv(m), 2);
    assert_int_equal(mbs_model_nvisual(m), 3);
    mbs_visual_def v;
    assert_int_equal(mbs_model_visual(m, 1, &v), MBS_OK);
    assert_int_equal(v.shape, MBS_SHAPE_MESH);
    assert_string_equal(v.mesh, "meshes/link1.stl");
    assert_true(v.scale[0] == 0.001 && v.color[2] == 0.8);
    mbs_data *d = mbs_data_create(m);
    double M[4];
    assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
    const double s = sin(0.3), c = cos(0.3);
    const double M11 = 0.012 + 1.5 * 0.15 * 0.15 + 0.8 * 0.4 * 0.4 + 0.0005 * s * s + 0.004 * c * c;
    const double M22 = 0.004 + 0.8 * 0.1 * 0.1, M12 = -0.0001 * s;
    const int a = mbs_model_joint_vadr(m, mbs_model_find_joint(m, "j1"));
    const int b = mbs_model_joint_vadr(m, mbs_model_find_joint(m, "j2"));
    assert_true(fabs(M[3 * a] - M11) < 1e-14 && fabs(M[3 * b] - M22) < 1e-14);
    assert_true(fabs(M[2 * a + b] - M12) < 1e-15);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* A quadruped on a floating base: 12 joints + 6; the linear block of M is the total mass. */
static void test_quadruped_floating(void **state)
{
    (void)state;
    mbs_model *m = load(data("robots/quadruped.urdf"));
    assert_int_equal(mbs_model_nv(m), 18);
    assert_int_equal(mbs_model_nq(m), 19);
    const int base = mbs_model_find_joint(m, "floating_base");
    assert_true(base >= 0 && mbs_model_joint_nv(m, base) == 6);
    mbs_data *d = mbs_data_create(m);
    static double M[18 * 18];
    assert_int_equal(mbs_mass_matrix(d, M), MBS_OK);
    const int va = mbs_model_joint_vadr(m, base);
    for (int i = 0; i < 3; ++i)
        assert_true(fabs(M[18 * (va + i) + va + i] - 13.2) < 1e-12); /* 6 + 4 (0.6 + 1 + 0.2) */
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_true(fabs(mbs_data_qacc(d)[va + 2] + 9.81) < 1e-9); /* free fall, legs held */
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* The 6- and 7-axis arms: names kept, the mimic a joint coupling, transmission ignored,
   damping read. */
static void test_arms(void **state)
{
    (void)state;
    mbs_model *m6 = load(data("robots/arm6.urdf")), *m7 = load(data("robots/arm7.urdf"));
    assert_int_equal(mbs_model_nv(m6), 6);
    assert_int_equal(mbs_model_nv(m7), 9); /* 7 + two fingers, coupled by the mimic */
    assert_int_equal(mbs_model_nuser_constraints(m7), 1);
    assert_true(mbs_model_find_body(m6, "wrist_3_link") > 0 && mbs_model_find_joint(m6, "elbow_joint") >= 0);
    assert_int_equal(mbs_model_nforce(m6), 6); /* dynamics damping on six revolute joints */
    mbs_data *d = mbs_data_create(m7);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    mbs_data_destroy(d);
    mbs_model_destroy(m6);
    mbs_model_destroy(m7);
}

/* mbs's superset: a planar four-bar closed by a cut revolute joint, a spring and gravity. */
static void test_superset_loop(void **state)
{
    (void)state;
    mbs_model *m = load(data("fourbar_superset.xml"));
    assert_int_equal(mbs_model_ncon(m), 5);
    assert_int_equal(mbs_model_joint_is_cut(m, mbs_model_find_joint(m, "B")), 1);
    assert_int_equal(mbs_model_nforce(m), 2);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_assemble(d), MBS_OK); /* all joint angles 0 is closed */
    for (int i = 0; i < mbs_model_nq(m); ++i) assert_true(fabs(mbs_data_q(d)[i]) < 1e-12);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Write text to path. */
static void write_file(const char *path, const char *text)
{
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
}

/* rot="..." gives a frame rotation exactly (the same joint frame as rpy to rounding, and
   exactly the matrix written); no rpy and no rot is exactly the identity; <joint_force>
   adds a constant generalized force (qacc = F / I about the axis). */
static void test_rot_and_joint_force(void **state)
{
    (void)state;
    char dir[] = "/tmp/mbs_load_XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    const double c = cos(0.5), s = sin(0.5);
    char text[2048];
    snprintf(text, sizeof text,
             "<robot><link name=\"world\"/><link name=\"a\"><inertial><origin xyz=\"0 0 0\"/>"
             "<mass value=\"2\"/><inertia ixx=\"0.3\" ixy=\"0\" ixz=\"0\" iyy=\"0.2\" iyz=\"0\" "
             "izz=\"0.4\"/></inertial></link><link name=\"b\"><inertial><mass value=\"1\"/>"
             "<inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial>"
             "</link><joint name=\"r\" type=\"revolute\"><parent link=\"world\"/><child link=\"a\"/>"
             "<origin xyz=\"1 2 3\" rot=\"%.17g %.17g 0 %.17g %.17g 0 0 0 1\"/><axis xyz=\"0 0 1\"/>"
             "</joint><joint name=\"p\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
             "<origin xyz=\"0 0 1\" rpy=\"0 0 0.5\"/><child_origin xyz=\"0 0 0\"/><axis xyz=\"0 0 1\"/>"
             "</joint><gravity none=\"true\"/><joint_force joint=\"r\" dof=\"0\" force=\"1.5\"/></robot>",
             c, -s, s, c);
    snprintf(path, sizeof path, "%s/rot.xml", dir);
    write_file(path, text);
    mbs_model *m = load(path);
    mbs_joint_def r, p;
    assert_int_equal(mbs_model_joint_def(m, mbs_model_find_joint(m, "r"), &r), MBS_OK);
    assert_int_equal(mbs_model_joint_def(m, mbs_model_find_joint(m, "p"), &p), MBS_OK);
    const double want[9] = {c, -s, 0, s, c, 0, 0, 0, 1}, eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_memory_equal(r.frame_parent.rot, want, sizeof want);    /* exactly as written */
    for (int i = 0; i < 9; ++i) assert_true(fabs(p.frame_parent.rot[i] - want[i]) < 1e-16);
    assert_memory_equal(p.frame_child.rot, eye, sizeof eye);       /* exactly the identity */
    assert_memory_equal(r.frame_child.rot, eye, sizeof eye);
    assert_int_equal(mbs_model_nforce(m), 1);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    /* at rest, no gravity, M = [[0.5, 0.1], [0.1, 0.1]] (b sits on r's axis): M qacc =
       (1.5, 0) gives qacc_r = 1.5 / 0.4 and qacc_p = -qacc_r (b keeps its orientation) */
    const double *qa = mbs_data_qacc(d);
    const int vr = mbs_model_joint_vadr(m, 0), vp = mbs_model_joint_vadr(m, 1);
    assert_true(fabs(qa[vr] - 1.5 / 0.4) < 1e-12 && fabs(qa[vp] + 1.5 / 0.4) < 1e-12);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    remove(path);
    rmdir(dir);
}

/* A malformed file: its text, the line the error must name, a fragment of the message. */
typedef struct bad_file {
    const char *what, *text;
    int line;
    const char *fragment;
} bad_file;

#define L1 "<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
#define J(n, t, p, c) "<joint name=\"" n "\" type=\"" t "\"><parent link=\"" p "\"/><child link=\"" c "\"/></joint>\n"

static const bad_file bad_files[] = {
    {"missing inertial", "<robot>\n<link name=\"base\"/>\n<link name=\"b\"/>\n" J("j", "revolute", "base", "b") "</robot>", 4, "carries no mass"},
    {"bad number", "<robot>\n" L1 "<link name=\"b\"><inertial><mass value=\"1x\"/></inertial></link>\n</robot>", 3, "expected 1 finite numbers"},
    {"unknown joint type", "<robot>\n" L1 "<link name=\"b\"/>\n" J("j", "hinge", "a", "b") "</robot>", 4, "unknown joint type \"hinge\""},
    {"loop in plain URDF", "<robot>\n<link name=\"w\"/>\n" L1 "<link name=\"b\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
        J("j1", "revolute", "w", "a") J("j2", "revolute", "a", "b") J("j3", "revolute", "w", "b") "</robot>", 7, "second parent joint"},
    {"dangling parent", "<robot>\n" L1 J("j", "revolute", "ghost", "a") "</robot>", 3, "parent link \"ghost\" is not defined"},
    {"duplicate link", "<robot>\n" L1 L1 "</robot>", 3, "a second link named \"a\""},
    {"duplicate joint", "<robot>\n<link name=\"w\"/>\n" L1 "<link name=\"b\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
        J("j", "revolute", "w", "a") J("j", "revolute", "a", "b") "</robot>", 6, "a second joint named \"j\""},
    {"inertia not positive definite", "<robot>\n<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"-3\"/></inertial></link>\n"
        "<link name=\"world\"/>\n" J("j", "revolute", "world", "a") "</robot>", 2, "inertia"}, /* moving: a welded link's inertia is ignored */
    {"empty file", "", 1, "Document is empty"},
    {"not XML", "this is not a model\n", 1, "not a model file"},
    {"not a robot", "<mujoco/>\n", 1, "root element must be <robot>"},
    {"unknown element", "<robot>\n" L1 "<sprin_damper/>\n</robot>", 3, "unknown element"},
    {"rpy and rot", "<robot>\n<link name=\"world\"/>\n" L1 "<joint name=\"j\" type=\"revolute\"><parent link=\"world\"/><child link=\"a\"/>\n"
        "<origin rpy=\"0 0 1\" rot=\"1 0 0 0 1 0 0 0 1\"/></joint>\n</robot>", 5, "give rpy or rot, not both"},
    {"rot not a rotation", "<robot>\n<link name=\"world\"/>\n" L1 "<joint name=\"j\" type=\"revolute\"><parent link=\"world\"/><child link=\"a\"/>\n"
        "<origin rot=\"1 0 0 0 1 0 0 0 -1\"/></joint>\n</robot>", 5, "rot is not a rotation matrix"},
    {"joint force dof", "<robot>\n<link name=\"world\"/>\n" L1 J("j", "revolute", "world", "a") "<joint_force joint=\"j\" dof=\"-1\" force=\"2\"/>\n</robot>", 5, "joint force #0 on joint \"j\": dof -1 is negative"},
    {"joint force dof huge", "<robot>\n<link name=\"world\"/>\n" L1 J("j", "revolute", "world", "a") "<joint_force joint=\"j\" dof=\"1e52\" force=\"2\"/>\n</robot>", 5, "dof=\"1e+52\": expected an integer"},
    {"state priority not an integer", "<robot>\n<link name=\"world\"/>\n" L1 "<joint name=\"j\" type=\"revolute\" state_priority=\"2.5\"><parent link=\"world\"/><child link=\"a\"/></joint>\n</robot>", 4, "state_priority=\"2.5\": expected an integer"},
    {"joint force value", "<robot>\n<link name=\"world\"/>\n" L1 J("j", "revolute", "world", "a") "<joint_force joint=\"j\"/>\n</robot>", 5, "<joint_force>: attribute force is missing"},
    {"joint force joint", "<robot>\n<link name=\"world\"/>\n" L1 J("j", "revolute", "world", "a") "<joint_force joint=\"k\" force=\"1\"/>\n</robot>", 5, "joint \"k\" is not a joint of the file"},
};

/* A file that is not there, or a folder: the system's reason, before libxml2 reads anything. */
static void test_missing_file(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_load(b, "/nonexistent/robot.urdf"), MBS_ERR_ARG);
    assert_string_equal(mbs_builder_error(b), "/nonexistent/robot.urdf: No such file or directory");
    assert_int_equal(mbs_builder_load(b, "/tmp"), MBS_ERR_ARG);
    assert_string_equal(mbs_builder_error(b), "/tmp: not a regular file (a directory)");
    mbs_builder_destroy(b);
}

/* Every bad file: its status, a message naming file, line and element; builder unchanged. */
static void test_malformed(void **state)
{
    (void)state;
    char dir[] = "/tmp/mbs_load_XXXXXX", path[128], cmd[160];
    assert_non_null(mkdtemp(dir));
    for (size_t k = 0; k < sizeof bad_files / sizeof bad_files[0]; ++k) {
        const bad_file *f = &bad_files[k];
        snprintf(path, sizeof path, "%s/bad%zu.urdf", dir, k);
        FILE *out = fopen(path, "w");
        fputs(f->text, out);
        fclose(out);
        mbs_builder *b = mbs_builder_create();
        mbs_body_def bd = mbs_default_body_def();
        assert_int_equal(mbs_add_body(b, &bd), 1); /* the builder's own content before the file */
        const int st = mbs_builder_load(b, path);
        const char *msg = mbs_builder_error(b);
        char place[160];
        snprintf(place, sizeof place, "%s:%d:", path, f->line);
        if (st >= 0 || !strstr(msg, place) || !strstr(msg, f->fragment))
            fail_msg("%s: status %d, message '%s' (want '%s' and '%s')", f->what, st, msg, place, f->fragment);
        mbs_model *m = NULL; /* the builder holds what it held: one free body */
        assert_int_equal(mbs_compile(b, &m), st); /* once the file's failure is handled */
        assert_non_null(strstr(mbs_builder_error(b), f->fragment));
        mbs_builder_clear_error(b); /* the failures above were handled */
        assert_int_equal(mbs_compile(b, &m), MBS_OK);
        assert_int_equal(mbs_model_nbody(m), 2);
        assert_int_equal(mbs_model_nv(m), 6);
        mbs_model_destroy(m);
        mbs_builder_destroy(b);
    }
    /* 1 MB of nested tags: refused by the parser's depth limit, no crash */
    snprintf(path, sizeof path, "%s/deep.urdf", dir);
    FILE *out = fopen(path, "w");
    for (int i = 0; i < 100000; ++i) fputs("<robot>", out);
    fclose(out);
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_load(b, path), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "deep.urdf:1:"));
    assert_int_equal(mbs_builder_load(b, "/nonexistent/x.urdf"), MBS_ERR_ARG);
    assert_int_equal(mbs_builder_load(b, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_builder_load(NULL, path), MBS_ERR_ARG);
    mbs_builder_destroy(b);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    if (!getenv("MBS_TEST_DATA")) {
        printf("test_load: MBS_TEST_DATA must be set (meson does)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_arm_mass_matrix),
        cmocka_unit_test(test_quadruped_floating),
        cmocka_unit_test(test_arms),
        cmocka_unit_test(test_superset_loop),
        cmocka_unit_test(test_rot_and_joint_force),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
