/* Model files written to hurt (src/io/): a DTD or entity declarations refused at once; values
 * and names of any length read whole, never cut; a cycle of joints named; paths that are no
 * regular file (a directory, a FIFO, a device) refused without blocking and without a word on
 * stderr; load time linear in links and joints (10^5 links under 2 s of CPU). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mbs/mbs.h"

static char dir[] = "/tmp/mbs_hostile_XXXXXX";

/* dir/name holding text; the path in a static buffer. */
static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
    return path;
}

/* Load path into a fresh builder: its status, the message into msg (len bytes). */
static int try_load(const char *path, char *msg, size_t len)
{
    mbs_builder *b = mbs_builder_create();
    const int st = mbs_builder_load(b, path);
    snprintf(msg, len, "%s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return st;
}

/* Refused with a message holding path:line: and fragment. */
static void refused(const char *what, const char *path, int line, const char *fragment)
{
    char msg[1024], place[300];
    const int st = try_load(path, msg, sizeof msg);
    snprintf(place, sizeof place, "%s:%d:", path, line);
    if (st >= 0 || !strstr(msg, place) || !strstr(msg, fragment))
        fail_msg("%s: status %d, message '%s' (want '%s' and '%s')", what, st, msg, place, fragment);
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define LINK(n, m) "<link name=\"" n "\"><inertial><mass value=\"" m "\"/><inertia ixx=\"1\" ixy=\"0\" " \
    "ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
#define JOINT(n, p, c) "<joint name=\"" n "\" type=\"revolute\"><parent link=\"" p "\"/><child link=\"" \
    c "\"/><axis xyz=\"0 0 1\"/></joint>\n"

/* A <!DOCTYPE> is refused at its line, whatever it declares; the entity-expansion file that
   took 44 s (one entity referenced 4000 times in an attribute) is refused in well under a
   second. */
static void test_doctype(void **state)
{
    (void)state;
    refused("internal subset", write_file("dtd.urdf", "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n"
            "<!ELEMENT robot ANY>]>\n<robot>\n" LINK("a", "1") "</robot>\n"), 2, "<!DOCTYPE>");
    refused("external DTD", write_file("ext.urdf", "<!DOCTYPE robot SYSTEM \"robot.dtd\">\n<robot>\n"
            LINK("a", "1") "</robot>\n"), 1, "<!DOCTYPE>");
    char *text = malloc(64 * 1024);
    assert_non_null(text);
    int len = sprintf(text, "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [<!ENTITY e \"%0200d\">]>\n"
                      "<robot>\n<link name=\"", 0);
    for (int i = 0; i < 4000; ++i) len += sprintf(text + len, "&e;");
    sprintf(text + len, "\"/>\n</robot>\n");
    const char *path = write_file("entity.urdf", text);
    free(text);
    const double t0 = cpu_now();
    refused("entity", path, 2, "<!DOCTYPE>");
    const double s = cpu_now() - t0;
    print_message("entity file refused in %.3f ms of CPU\n", 1e3 * s);
    assert_true(s < 0.5);
}

/* The mass of body named name of the model loaded from path. */
static double loaded_mass(const char *path, const char *name)
{
    mbs_builder *b = mbs_builder_create();
    if (mbs_builder_load(b, path) != MBS_OK) fail_msg("%s", mbs_builder_error(b));
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_body_def bd;
    assert_int_equal(mbs_model_body_def(m, mbs_model_find_body(m, name), &bd), MBS_OK);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    return bd.mass;
}

/* A value of 511 characters and more is read whole (it loaded 2.5, cut after 511); a name of
   200 characters is itself, not its first 127 (a child "L..UNDEFINED" attached to "L..X"). */
static void test_long_values_and_names(void **state)
{
    (void)state;
    char text[4096], value[1100], lname[201], bad[300];
    memset(value, ' ', 1000);
    strcpy(value + 1000, "2.5e3");
    memset(lname, 'L', 200), lname[200] = '\0';
    snprintf(text, sizeof text, "<robot>\n<link name=\"%s\"><inertial><mass value=\"%s\"/><inertia "
             "ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>\n",
             lname, value);
    assert_true(loaded_mass(write_file("long.urdf", text), lname) == 2500.0);
    memset(bad, 'L', 127), strcpy(bad + 127, "UNDEFINED");
    lname[127] = 'X', lname[128] = '\0';
    snprintf(text, sizeof text, "<robot>\n<link name=\"%s\"><inertial><mass value=\"1\"/><inertia "
             "ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
             LINK("b", "1") "<joint name=\"j\" type=\"fixed\"><parent link=\"%s\"/>\n<child link=\"b\"/>"
             "</joint>\n</robot>\n", lname, bad);
    refused("long unknown parent", write_file("longname.urdf", text), 4, "is not defined");
}

/* Two links each the other's parent: a cycle naming both (it said "no links"); an unknown
   rotation or cut value is refused (they fell back to quaternion and not cut). */
static void test_cycle_and_values(void **state)
{
    (void)state;
    refused("cycle", write_file("cycle.urdf", "<robot>\n" LINK("a", "1") LINK("b", "1")
            JOINT("j1", "a", "b") JOINT("j2", "b", "a") "</robot>\n"), 1,
            "cycle: \"a\" <- \"b\" <- \"a\"");
    refused("rotation", write_file("rot.urdf", "<robot>\n<link name=\"world\"/>\n" LINK("a", "1")
            "<joint name=\"j\" type=\"spherical\" rotation=\"cardanXYZ\"><parent link=\"world\"/>"
            "<child link=\"a\"/></joint>\n</robot>\n"), 4, "give quaternion or cardan");
    refused("cut", write_file("cut.urdf", "<robot>\n<link name=\"world\"/>\n" LINK("a", "1")
            "<joint name=\"j\" type=\"revolute\" cut=\"yes\"><parent link=\"world\"/>"
            "<child link=\"a\"/></joint>\n</robot>\n"), 4, "cut must be true or false");
}

/* An unknown attribute of the superset's elements is refused naming it (<joint_spring_damper
   dampng="0.1"/> loaded a damper of 0 and ran); a second <mass> or <axis> is refused naming
   its line (the first was used, the second ignored); a namespace's attribute is another
   tool's and passes. A negative moment of inertia far below the rounding of the largest is
   refused by the builder for files too. */
static void test_unknown_and_duplicates(void **state)
{
    (void)state;
    refused("misspelt attribute", write_file("attr.urdf", "<robot>\n<link name=\"world\"/>\n"
            LINK("a", "1") JOINT("j", "world", "a") "<joint_spring_damper joint=\"j\" dampng=\"0.1\"/>\n"
            "</robot>\n"), 5, "unknown attribute dampng (known: joint, dof, stiffness, damping, rest)");
    refused("frame attribute", write_file("frame.urdf", "<robot>\n<link name=\"world\"/>\n"
            LINK("a", "1") "<joint name=\"j\" type=\"revolute\"><parent link=\"world\"/><child "
            "link=\"a\"/>\n<child_origin xyz=\"0 0 1\" ryp=\"0 0 1\"/></joint>\n</robot>\n"), 5,
            "unknown attribute ryp");
    refused("second mass", write_file("mass.urdf", "<robot>\n<link name=\"a\"><inertial><mass "
            "value=\"1\"/>\n<mass value=\"5\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" "
            "iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>\n"), 3, "a second <mass> in <inertial>");
    refused("second axis", write_file("axis.urdf", "<robot>\n<link name=\"world\"/>\n" LINK("a", "1")
            "<joint name=\"j\" type=\"revolute\"><parent link=\"world\"/><child link=\"a\"/>\n"
            "<axis xyz=\"0 0 1\"/>\n<axis xyz=\"1 0 0\"/></joint>\n</robot>\n"), 6,
            "a second <axis> in <joint>");
    /* on a link that moves: a welded one's inertia never acts and is accepted with a warning */
    refused("negative moment", write_file("neg.urdf", "<robot>\n<link name=\"world\"/>\n<link "
            "name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"-0.5\" ixy=\"0\" ixz=\"0\" "
            "iyy=\"1e20\" iyz=\"0\" izz=\"1e20\"/></inertial></link>\n" JOINT("j", "world", "a")
            "</robot>\n"), 3, "moment -0.5 about the body's x axis");
    char msg[512];
    assert_int_equal(try_load(write_file("ns.urdf", "<robot xmlns:x=\"urn:x\">\n<link name=\"world\"/>\n"
            LINK("a", "1") JOINT("j", "world", "a") "<joint_spring_damper joint=\"j\" damping=\"0.1\" "
            "x:note=\"kept\"/>\n</robot>\n"), msg, sizeof msg), MBS_OK);
}

/* A directory, a FIFO and a device are refused as "not a regular file" at once (a FIFO
   blocked for ever), and nothing reaches stderr (libxml2 printed "I/O error"). */
static void test_not_regular(void **state)
{
    (void)state;
    char fifo[300], msg[1024], err[300];
    snprintf(fifo, sizeof fifo, "%s/fifo.urdf", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    fflush(stderr);
    const int saved = dup(2), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    const char *paths[3] = {dir, fifo, "/dev/zero"};
    int st[3];
    for (int k = 0; k < 3; ++k) {
        st[k] = try_load(paths[k], msg, sizeof msg);
        if (!strstr(msg, "not a regular file")) st[k] = 0;
    }
    const int bad = try_load(write_file("bad.urdf", "<robot><link></robot>"), msg, sizeof msg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved), close(fd);
    for (int k = 0; k < 3; ++k)
        if (st[k] != MBS_ERR_ARG) fail_msg("%s: status %d", paths[k], st[k]);
    assert_int_equal(bad, MBS_ERR_ARG);
    struct stat sb;
    assert_int_equal(stat(err, &sb), 0);
    assert_int_equal((int)sb.st_size, 0);
}

/* A chain of n links (inertial, revolute joint, joint damper) into path. */
static void write_chain(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("<robot>\n<link name=\"world\"/>\n", f);
    for (int i = 0; i < n; ++i) {
        fprintf(f, "<link name=\"link%d\"><inertial><origin xyz=\"0.15 0 0\"/><mass value=\"1\"/>"
                "<inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/>"
                "</inertial></link>\n", i);
        char parent[32] = "world";
        if (i) snprintf(parent, sizeof parent, "link%d", i - 1);
        fprintf(f, "<joint name=\"joint%d\" type=\"revolute\"><parent link=\"%s\"/><child "
                "link=\"link%d\"/><origin xyz=\"0.3 0 0\"/><axis xyz=\"0 1 0\"/><dynamics "
                "damping=\"0.05\"/></joint>\n", i, parent, i);
    }
    fputs("</robot>\n", f);
    fclose(f);
}

#if defined(__SANITIZE_ADDRESS__)
#define SLOWDOWN 10.0 /* instrumented builds */
#else
#define SLOWDOWN 1.0
#endif

/* 10^5 links and joints load in under 2 s of CPU (the quadratic look-ups took 26 s for
   10^4), every body and joint there. */
static void test_large(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/large.urdf", dir);
    const int n = 100000;
    write_chain(path, n);
    mbs_builder *b = mbs_builder_create();
    const double t0 = cpu_now();
    const int st = mbs_builder_load(b, path);
    const double s = cpu_now() - t0;
    if (st != MBS_OK) fail_msg("%s", mbs_builder_error(b));
    print_message("%d links loaded in %.3f s of CPU\n", n, s);
    assert_true(s < 2.0 * SLOWDOWN);
    mbs_builder_destroy(b);
    remove(path);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doctype),
        cmocka_unit_test(test_long_values_and_names),
        cmocka_unit_test(test_cycle_and_values),
        cmocka_unit_test(test_unknown_and_duplicates),
        cmocka_unit_test(test_not_regular),
        cmocka_unit_test(test_large),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
