/* Start values of joints and coordinates held at assembly (mbs_set_joint_start,
 * mbs_set_joint_hold, mbs_model_start, mbs_model_hold): the data starts at them bit for bit;
 * a four-bar with its rocker held at 1.5 rad assembles with the rocker there (1e-12) and the
 * crank moved, checked against the closed-form position; contradictory held values give
 * MBS_ERR_INCONSISTENT with the state unchanged; every bad input gives a status and a
 * message with the builder unchanged; model files give the same through <initial>. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* ---------------------------------------------------------------- a tree */

/* Bodies 1..3; joints: revolute (id 0), free quaternion (1), spherical Cardan (2). */
static mbs_builder *tree_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    for (int i = 0; i < 3; ++i) assert_true(mbs_add_body(b, &bd) == i + 1);
    mbs_joint_def rev = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    rev.child = 1, rev.name = "rev";
    mbs_joint_def fr = mbs_default_joint_def(MBS_JOINT_FREE);
    fr.child = 2, fr.name = "free";
    mbs_joint_def sph = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
    sph.parent = 1, sph.child = 3, sph.rotation = MBS_ROT_CARDAN, sph.name = "ball";
    assert_int_equal(mbs_add_joint(b, &rev), 0);
    assert_int_equal(mbs_add_joint(b, &fr), 1);
    assert_int_equal(mbs_add_joint(b, &sph), 2);
    return b;
}

/* The data starts at the start values bit for bit, neutral and rest where none were given;
   a later call replaces what it gives; mbs_model_start returns the same. */
static void test_tree_start(void **state)
{
    (void)state;
    mbs_builder *b = tree_builder();
    const double q_rev = 0.3, v_rev = -1.25, q_rev2 = 0.7;
    const double c = cos(0.2), s = sin(0.2);
    const double q_free[7] = {0.1, -0.2, 0.3, c, s, 0.0, 0.0};
    const double v_free[6] = {1, 2, 3, 4, 5, 6};
    assert_int_equal(mbs_set_joint_start(b, 0, &q_rev, 1, &v_rev, 1), MBS_OK);
    assert_int_equal(mbs_set_joint_start(b, 1, q_free, 7, v_free, 6), MBS_OK);
    assert_int_equal(mbs_set_joint_start(b, 0, &q_rev2, 1, NULL, 0), MBS_OK); /* replaces q */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    const double *q = mbs_data_q(d), *v = mbs_data_v(d);
    const int qr = mbs_model_joint_qadr(m, 0), qf = mbs_model_joint_qadr(m, 1);
    const int vr = mbs_model_joint_vadr(m, 0), vf = mbs_model_joint_vadr(m, 1);
    const int qb = mbs_model_joint_qadr(m, 2), vb = mbs_model_joint_vadr(m, 2);
    assert_true(q[qr] == q_rev2 && v[vr] == v_rev);
    assert_memory_equal(q + qf, q_free, sizeof q_free);
    assert_memory_equal(v + vf, v_free, sizeof v_free);
    for (int i = 0; i < 3; ++i) assert_true(q[qb + i] == 0.0 && v[vb + i] == 0.0);
    double qs[16], vs[16], qn[16];
    assert_int_equal(mbs_model_start(m, qs, vs), MBS_OK);
    assert_memory_equal(qs, q, (size_t)mbs_model_nq(m) * sizeof *q);
    assert_memory_equal(vs, v, (size_t)mbs_model_nv(m) * sizeof *v);
    assert_int_equal(mbs_model_start(m, NULL, NULL), MBS_OK);
    assert_int_equal(mbs_model_hold(m, NULL), 0);
    /* without start values: neutral and rest, as before */
    mbs_builder *b0 = tree_builder();
    mbs_model *m0 = NULL;
    assert_int_equal(mbs_compile(b0, &m0), MBS_OK);
    mbs_data *d0 = mbs_data_create(m0);
    assert_int_equal(mbs_neutral_q(m0, qn), MBS_OK);
    assert_memory_equal(mbs_data_q(d0), qn, (size_t)mbs_model_nq(m0) * sizeof *qn);
    for (int i = 0; i < mbs_model_nv(m0); ++i) assert_true(mbs_data_v(d0)[i] == 0.0);
    mbs_data_destroy(d0);
    mbs_model_destroy(m0);
    mbs_builder_destroy(b0);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Bad input: a status and a message naming the call or joint; the builder keeps what it had
   (the model compiled afterwards has the earlier start values only). */
static void test_bad_input(void **state)
{
    (void)state;
    mbs_builder *b = tree_builder();
    mbs_body_def bd = mbs_default_body_def();
    const int body = mbs_add_body(b, &bd);
    mbs_joint_def cut = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    cut.parent = 1, cut.child = body, cut.cut = 1, cut.name = "cutj";
    mbs_joint_def dist = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    dist.parent = 2, dist.child = 3, dist.length = 1.0, dist.name = "rod";
    mbs_joint_def fix = mbs_default_joint_def(MBS_JOINT_FREE);
    fix.child = body;
    assert_int_equal(mbs_add_joint(b, &cut), 3);
    assert_int_equal(mbs_add_joint(b, &dist), 4);
    assert_int_equal(mbs_add_joint(b, &fix), 5);
    const double one = 1.0, two[2] = {1, 2}, nan = NAN, inf = INFINITY;
    const double q_bad[7] = {0, 0, 0, 2.0, 0, 0, 0}, q_zero[7] = {0};
    const unsigned char h1[1] = {1}, h6[6] = {1, 0, 0, 0, 0, 0};
    assert_int_equal(mbs_set_joint_start(b, 0, &one, 1, NULL, 0), MBS_OK);
    assert_int_equal(mbs_set_joint_start(NULL, 0, &one, 1, NULL, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_set_joint_hold(NULL, 0, h1, 1), MBS_ERR_ARG);
#define BAD(call, want)                                                                      \
    do {                                                                                     \
        assert_int_equal(call, MBS_ERR_ARG);                                                 \
        if (!strstr(mbs_builder_error(b), want))                                             \
            fail_msg("'%s' lacks '%s'", mbs_builder_error(b), want);                         \
    } while (0)
    BAD(mbs_set_joint_start(b, -1, &one, 1, NULL, 0), "mbs_set_joint_start: joint -1 does not exist");
    BAD(mbs_set_joint_start(b, 6, &one, 1, NULL, 0), "joint 6 does not exist (the builder has 6");
    BAD(mbs_set_joint_start(b, 3, &one, 1, NULL, 0), "joint \"cutj\" (id 3) is a cut joint");
    BAD(mbs_set_joint_start(b, 4, &one, 1, NULL, 0), "joint \"rod\" (id 4) is a cut joint");
    BAD(mbs_set_joint_start(b, 0, two, 2, NULL, 0), "joint \"rev\" (id 0): start q needs 1 values for a revolute joint, got 2");
    BAD(mbs_set_joint_start(b, 1, NULL, 0, two, 2), "joint \"free\" (id 1): start v needs 6 values for a free joint, got 2");
    BAD(mbs_set_joint_start(b, 0, &nan, 1, NULL, 0), "start q is not finite");
    BAD(mbs_set_joint_start(b, 0, NULL, 0, &inf, 1), "start v is not finite");
    BAD(mbs_set_joint_start(b, 1, q_bad, 7, NULL, 0), "q[3] = 2: its quaternion is not of unit norm");
    BAD(mbs_set_joint_start(b, 1, q_zero, 7, NULL, 0), "quaternion is not of unit norm");
    BAD(mbs_set_joint_start(b, 0, NULL, 1, NULL, 1), "q and v are both NULL");
    BAD(mbs_set_joint_hold(b, 0, NULL, 1), "mbs_set_joint_hold: hold is NULL");
    BAD(mbs_set_joint_hold(b, 0, h6, 6), "start hold needs 1 values for a revolute joint, got 6");
    BAD(mbs_set_joint_hold(b, 9, h1, 1), "mbs_set_joint_hold: joint 9 does not exist");
    BAD(mbs_set_joint_hold(b, 3, h1, 1), "is a cut joint");
#undef BAD
    /* nothing of the failed calls stuck */
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    assert_true(mbs_data_q(d)[mbs_model_joint_qadr(m, 0)] == 1.0);
    assert_true(mbs_data_v(d)[mbs_model_joint_vadr(m, 1)] == 0.0);
    assert_true(mbs_data_q(d)[mbs_model_joint_qadr(m, 1) + 3] == 1.0);
    assert_int_equal(mbs_model_hold(m, NULL), 0);
    assert_int_equal(mbs_model_start(NULL, NULL, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_hold(NULL, NULL), MBS_ERR_ARG);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* A joint that compile makes a cut joint (it closes a loop nobody marked) with a start
   value: the compile fails naming it. */
static void test_becomes_cut(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    const int b1 = mbs_add_body(b, &bd), b2 = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = b1;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j.parent = b1, j.child = b2, j.frame_parent.pos[0] = 1.0;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    j.parent = b2, j.child = MBS_WORLD, j.name = "closing"; /* into the world: a cut */
    assert_int_equal(mbs_add_joint(b, &j), 2);
    const double q = 0.1;
    assert_int_equal(mbs_set_joint_start(b, 2, &q, 1, NULL, 0), MBS_OK);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    assert_null(m);
    assert_non_null(strstr(mbs_builder_error(b), "joint \"closing\" has start values or held "
                                                 "coordinates but closes a loop"));
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- four-bar */

#define FB_A 0.2
#define FB_B 0.7
#define FB_C 0.5
#define FB_D 0.6
#define FB_G 0.0 /* ground angle */

enum { CRANK, COUPLER, ROCKER, CUT };

/* Uniform bar of length len along body x. */
static int add_bar(mbs_builder *b, double len, double mass)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = mass;
    bd.com[0] = 0.5 * len;
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = 1e-4;
    bd.inertia[4] = bd.inertia[8] = mass * len * len / 12.0;
    return mbs_add_body(b, &bd);
}

/* Planar four-bar (crank a about the origin, coupler b, rocker c about O4 = d (cos g, sin g))
   cut at B; the crank has state_priority 1 as a driving joint would. Start values q[3] of
   crank, coupler, rocker (tree coordinates; the rocker's is its absolute angle); hold[3]. */
static mbs_model *fourbar(const double q[3], const unsigned char hold[3])
{
    mbs_builder *b = mbs_builder_create();
    const int cr = add_bar(b, FB_A, 1.0), co = add_bar(b, FB_B, 1.5), ro = add_bar(b, FB_C, 1.2);
    const double g[3] = {0, -9.81, 0};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "crank", j.child = cr, j.state_priority = 1;
    assert_int_equal(mbs_add_joint(b, &j), CRANK);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "coupler", j.parent = cr, j.child = co, j.frame_parent.pos[0] = FB_A;
    assert_int_equal(mbs_add_joint(b, &j), COUPLER);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "rocker", j.child = ro;
    j.frame_parent.pos[0] = FB_D * cos(FB_G), j.frame_parent.pos[1] = FB_D * sin(FB_G);
    assert_int_equal(mbs_add_joint(b, &j), ROCKER);
    j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = "B", j.parent = co, j.child = ro, j.cut = 1;
    j.frame_parent.pos[0] = FB_B, j.frame_child.pos[0] = FB_C;
    assert_int_equal(mbs_add_joint(b, &j), CUT);
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(mbs_set_joint_start(b, i, &q[i], 1, NULL, 0), MBS_OK);
        if (hold && hold[i]) assert_int_equal(mbs_set_joint_hold(b, i, &hold[i], 1), MBS_OK);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* Tree coordinate of joint j. */
static double qof(mbs_data *d, int j) { return mbs_data_q(d)[mbs_model_joint_qadr(mbs_data_model(d), j)]; }

/* Distance of the cut's two points B (on the coupler and on the rocker), from body poses. */
static double gap_b(mbs_data *d)
{
    double p1[3], R1[9], p2[3], R2[9], x1[3], x2[3];
    assert_int_equal(mbs_body_pose(d, 2, p1, R1), MBS_OK);
    assert_int_equal(mbs_body_pose(d, 3, p2, R2), MBS_OK);
    for (int i = 0; i < 3; ++i) x1[i] = p1[i] + R1[3 * i] * FB_B, x2[i] = p2[i] + R2[3 * i] * FB_C;
    return hypot(hypot(x1[0] - x2[0], x1[1] - x2[1]), x1[2] - x2[2]);
}

/* Crank angles that close the loop for rocker angle th4: A on the circle |A| = a and on
   |A - B| = b with B = O4 + c (cos th4, sin th4) (two circles' intersection). */
static void crank_for_rocker(double th4, double th2[2])
{
    const double bx = FB_D * cos(FB_G) + FB_C * cos(th4), by = FB_D * sin(FB_G) + FB_C * sin(th4);
    const double r = hypot(bx, by), beta = atan2(by, bx);
    const double ca = (FB_A * FB_A + r * r - FB_B * FB_B) / (2.0 * FB_A * r);
    th2[0] = beta + acos(ca);
    th2[1] = beta - acos(ca);
}

/* The rocker written 1.5 rad: without a hold the assembly keeps the crank (its priority) and
   moves the rocker; held, the rocker stays at 1.5 (1e-12) and the crank moves to the
   closed-form angle (1e-10), the loop closed (1e-12 m); a few steps follow. */
static void test_fourbar_hold_rocker(void **state)
{
    (void)state;
    const double q0[3] = {0.0, 0.0, 1.5};
    const unsigned char hold[3] = {0, 0, 1};
    mbs_model *free_m = fourbar(q0, NULL);
    mbs_data *d = mbs_data_create(free_m);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    printf("  without hold: crank %.6f, rocker %.6f\n", qof(d, CRANK), qof(d, ROCKER));
    assert_true(qof(d, CRANK) == 0.0 && fabs(qof(d, ROCKER) - 1.5) > 0.1);
    mbs_data_destroy(d);
    mbs_model_destroy(free_m);

    mbs_model *m = fourbar(q0, hold);
    unsigned char h[3];
    assert_int_equal(mbs_model_hold(m, h), 1);
    assert_true(h[mbs_model_joint_vadr(m, ROCKER)] == 1 && h[mbs_model_joint_vadr(m, CRANK)] == 0);
    d = mbs_data_create(m);
    assert_true(qof(d, ROCKER) == 1.5);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    double th2[2];
    crank_for_rocker(1.5, th2);
    const double crank = qof(d, CRANK);
    const double err = fmin(fabs(remainder(crank - th2[0], 2.0 * 3.14159265358979323846)),
                            fabs(remainder(crank - th2[1], 2.0 * 3.14159265358979323846)));
    printf("  held rocker: crank %.12f (closed form %.12f or %.12f), rocker %.15f, gap %.3g\n",
           crank, th2[0], th2[1], qof(d, ROCKER), gap_b(d));
    assert_true(fabs(qof(d, ROCKER) - 1.5) <= 1e-12);
    assert_true(err <= 1e-10 && fabs(crank) > 0.1);
    assert_true(gap_b(d) <= 1e-12);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    for (int k = 0; k < 100; ++k) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    assert_true(gap_b(d) <= 1e-10);
    mbs_stepper_destroy(s);
    /* a second assembly at the start state gives the same (fresh selection each time) */
    double qs[3];
    mbs_model_start(m, qs, NULL);
    memcpy(mbs_data_q(d), qs, sizeof qs);
    memset(mbs_data_v(d), 0, 3 * sizeof(double));
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_true(fabs(qof(d, ROCKER) - 1.5) <= 1e-12 && qof(d, CRANK) == crank);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Crank and rocker both held: values that close the loop assemble (both kept, the coupler
   moved); values that cannot give MBS_ERR_INCONSISTENT naming a held joint, q and v as they
   were bit for bit. */
static void test_fourbar_contradictory(void **state)
{
    (void)state;
    double th2[2];
    crank_for_rocker(1.5, th2);
    const double ok[3] = {th2[0], 0.0, 1.5}, bad[3] = {0.0, 0.0, 1.5};
    const unsigned char both[3] = {1, 0, 1};
    mbs_model *m = fourbar(ok, both);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_true(fabs(qof(d, CRANK) - th2[0]) <= 1e-12 && fabs(qof(d, ROCKER) - 1.5) <= 1e-12);
    assert_true(gap_b(d) <= 1e-12);
    mbs_data_destroy(d);
    mbs_model_destroy(m);

    m = fourbar(bad, both);
    d = mbs_data_create(m);
    mbs_data_v(d)[0] = 0.5;
    double q[3], v[3];
    memcpy(q, mbs_data_q(d), sizeof q);
    memcpy(v, mbs_data_v(d), sizeof v);
    assert_int_equal(mbs_assemble(d), MBS_ERR_INCONSISTENT);
    printf("  %s\n", mbs_data_error(d));
    assert_non_null(strstr(mbs_data_error(d), "held coordinates cannot all keep their values"));
    assert_true(strstr(mbs_data_error(d), "\"crank\"") || strstr(mbs_data_error(d), "\"rocker\""));
    assert_memory_equal(mbs_data_q(d), q, sizeof q);
    assert_memory_equal(mbs_data_v(d), v, sizeof v);
    mbs_data_destroy(d);
    mbs_model_destroy(m);

    /* the rocker alone held outside its range (1.231 to 2.214 rad): no crank angle closes */
    const double out[3] = {0.0, 0.0, 1.0};
    const unsigned char rocker[3] = {0, 0, 1};
    m = fourbar(out, rocker);
    d = mbs_data_create(m);
    memcpy(q, mbs_data_q(d), sizeof q);
    assert_int_equal(mbs_assemble(d), MBS_ERR_INCONSISTENT);
    printf("  %s\n", mbs_data_error(d));
    assert_non_null(strstr(mbs_data_error(d), "coordinate 0 of held joint \"rocker\""));
    assert_memory_equal(mbs_data_q(d), q, sizeof q);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ---------------------------------------------------------------- model files */

static char path_buf[512];

/* Write text to a temporary file; its path. */
static const char *temp_file(const char *name, const char *text)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path_buf, sizeof path_buf, "%s/mbs_test_start_%d_%s", dir, (int)getpid(), name);
    FILE *f = fopen(path_buf, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path_buf;
}

#define FB_FILE_HEAD                                                                         \
    "<robot name=\"fb\"><link name=\"world\"/>"                                              \
    "<link name=\"crank\"><inertial><origin xyz=\"0.1 0 0\"/><mass value=\"1\"/>"            \
    "<inertia ixx=\"1e-4\" ixy=\"0\" ixz=\"0\" iyy=\"0.0034\" iyz=\"0\" izz=\"0.0034\"/>"   \
    "</inertial></link>"                                                                     \
    "<link name=\"coupler\"><inertial><origin xyz=\"0.35 0 0\"/><mass value=\"1.5\"/>"       \
    "<inertia ixx=\"1e-4\" ixy=\"0\" ixz=\"0\" iyy=\"0.06\" iyz=\"0\" izz=\"0.06\"/>"       \
    "</inertial></link>"                                                                     \
    "<link name=\"rocker\"><inertial><origin xyz=\"0.25 0 0\"/><mass value=\"1.2\"/>"        \
    "<inertia ixx=\"1e-4\" ixy=\"0\" ixz=\"0\" iyy=\"0.025\" iyz=\"0\" izz=\"0.025\"/>"     \
    "</inertial></link>"                                                                     \
    "<joint name=\"crank\" type=\"revolute\" state_priority=\"1\"><parent link=\"world\"/>"  \
    "<child link=\"crank\"/><axis xyz=\"0 0 1\"/></joint>"                                   \
    "<joint name=\"coupler\" type=\"revolute\"><parent link=\"crank\"/>"                     \
    "<child link=\"coupler\"/><origin xyz=\"0.2 0 0\"/><axis xyz=\"0 0 1\"/></joint>"        \
    "<joint name=\"rocker\" type=\"revolute\"><parent link=\"world\"/>"                      \
    "<child link=\"rocker\"/><origin xyz=\"0.6 0 0\"/><axis xyz=\"0 0 1\"/>"     \
    "</joint>"                                                                               \
    "<joint name=\"B\" type=\"revolute\" cut=\"true\"><parent link=\"coupler\"/>"            \
    "<child link=\"rocker\"/><origin xyz=\"0.7 0 0\"/><child_origin xyz=\"0.5 0 0\"/>"       \
    "<axis xyz=\"0 0 1\"/></joint>"

/* Load a four-bar file with extra elements; the status, the builder's message in msg. */
static int load_fb(const char *extra, mbs_model **out, char *msg, size_t n)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s</robot>", FB_FILE_HEAD, extra);
    const char *path = temp_file("fb.xml", text);
    mbs_builder *b = mbs_builder_create();
    int st = mbs_builder_load(b, path);
    if (st == MBS_OK) st = mbs_compile(b, out);
    snprintf(msg, n, "%s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    remove(path);
    return st;
}

/* <initial joint q v hold>: the start values and holds reach the model; the mbs-sim
   elements are skipped by the library; bad <initial> elements name the line and element. */
static void test_file_initial(void **state)
{
    (void)state;
    char msg[512];
    mbs_model *m = NULL;
    assert_int_equal(load_fb("<simulation t_end=\"2\"/><track label=\"t\" link=\"crank\" "
                             "point=\"0.2 0 0\"/><plot signals=\"q.crank\"/>"
                             "<initial joint=\"rocker\" q=\"1.5\" v=\"0.25\" hold=\"true\"/>"
                             "<initial joint=\"crank\" v=\"-2\"/>",
                             &m, msg, sizeof msg),
                     MBS_OK);
    double q[3], v[3];
    unsigned char h[3];
    assert_int_equal(mbs_model_start(m, q, v), MBS_OK);
    const int r = mbs_model_find_joint(m, "rocker"), c = mbs_model_find_joint(m, "crank");
    assert_true(q[mbs_model_joint_qadr(m, r)] == 1.5 && v[mbs_model_joint_vadr(m, r)] == 0.25);
    assert_true(v[mbs_model_joint_vadr(m, c)] == -2.0 && q[mbs_model_joint_qadr(m, c)] == 0.0);
    assert_int_equal(mbs_model_hold(m, h), 1);
    assert_true(h[mbs_model_joint_vadr(m, r)] == 1);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    assert_true(fabs(mbs_data_q(d)[mbs_model_joint_qadr(m, r)] - 1.5) <= 1e-12);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    m = NULL;
    assert_int_equal(load_fb("<initial joint=\"rocker\" hold=\"1\"/>", &m, msg, sizeof msg), MBS_OK);
    assert_int_equal(mbs_model_hold(m, NULL), 1);
    mbs_model_destroy(m);
    static const struct {
        const char *xml, *want;
    } bad[] = {
        {"<initial joint=\"nope\" q=\"1\"/>", "<initial>: joint \"nope\" is not a joint of the file"},
        {"<initial q=\"1\"/>", "<initial>: attribute joint is missing"},
        {"<initial joint=\"rocker\"/>", "<initial>: give q, v or hold"},
        {"<initial joint=\"rocker\" q=\"1 2\"/>", "start q needs 1 values for a revolute joint, got 2"},
        {"<initial joint=\"rocker\" q=\"x\"/>", "attribute q=\"x\": expected at most 8 finite numbers"},
        {"<initial joint=\"rocker\" v=\"nan\"/>", "attribute v=\"nan\""},
        {"<initial joint=\"B\" q=\"1\"/>", "is a cut joint"},
        {"<initial joint=\"rocker\" hold=\"2\"/>", "give true, false or one 0 or 1 per coordinate"},
        {"<initial joint=\"rocker\" hold=\"1 1\"/>", "start hold needs 1 values"},
        {"<initial joint=\"crank\" q=\"0\" hold=\"true\"/><initial joint=\"rocker\" q=\"3\" "
         "hold=\"true\"/><bogus/>", "<bogus>: unknown element"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        m = NULL;
        assert_true(load_fb(bad[k].xml, &m, msg, sizeof msg) < 0);
        if (!strstr(msg, bad[k].want)) fail_msg("case %zu: '%s' lacks '%s'", k, msg, bad[k].want);
        assert_non_null(strstr(msg, "fb.xml:1:"));
        assert_null(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_start),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_becomes_cut),
        cmocka_unit_test(test_fourbar_hold_rocker),
        cmocka_unit_test(test_fourbar_contradictory),
        cmocka_unit_test(test_file_initial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
