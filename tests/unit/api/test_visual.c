/* Visual shapes (mbs_add_visual, mbs_model_visual): every shape stored and compiled with
 * its fields bit for bit, strings copied, every bad input refused with its own message and
 * the builder left as it was, and out-of-memory at each allocation reported without leaks.
 * The definitions back from a model (mbs_model_body_def / _joint_def / _spring_damper_def)
 * equal what was added, axes normalised, automatic roots included. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ allocation hook */
/* Counts live blocks and fails one chosen allocation (glibc lets a program replace malloc). */
#if defined(__GLIBC__)
#define HAVE_ALLOC_HOOK 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
static long g_live, g_calls, g_fail_at = -1;
static int g_failed;

/* 1 if this allocation must fail. */
static int inject(void)
{
    if (g_fail_at < 0 || g_calls++ != g_fail_at) return 0;
    g_failed = 1;
    return 1;
}
void *malloc(size_t n)
{
    void *p = inject() ? NULL : __libc_malloc(n);
    if (p) g_live++;
    return p;
}
void *calloc(size_t n, size_t size)
{
    void *p = inject() ? NULL : __libc_calloc(n, size);
    if (p) g_live++;
    return p;
}
void *realloc(void *p, size_t n)
{
    if (inject()) return NULL;
    void *r = __libc_realloc(p, n);
    if (r && !p) g_live++;
    return r;
}
void free(void *p)
{
    if (p) g_live--;
    __libc_free(p);
}
#else
#define HAVE_ALLOC_HOOK 0
#endif

/* Builder with two bodies, "base" (1) and "arm" (2), on revolute joints. */
static mbs_builder *two_bodies(void)
{
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    const char *names[2] = {"base", "arm"};
    for (int i = 0; i < 2; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.name = names[i];
        assert_int_equal(mbs_add_body(b, &bd), i + 1);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i;
        jd.child = i + 1;
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    return b;
}

/* Rotation by angle a about z (row-major). */
static void rot_z(double R[9], double a)
{
    double c = cos(a), s = sin(a);
    double r[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, r, sizeof r);
}

/* Defaults are as documented. */
static void test_defaults(void **state)
{
    (void)state;
    mbs_visual_def d = mbs_default_visual_def();
    assert_null(d.name);
    assert_null(d.mesh);
    assert_int_equal(d.body, -1);
    assert_int_equal(d.shape, MBS_SHAPE_SPHERE);
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_memory_equal(d.frame.rot, I3, sizeof I3);
    for (int i = 0; i < 3; ++i) {
        assert_true(d.frame.pos[i] == 0.0);
        assert_true(d.size[i] == 0.05);
        assert_true(d.scale[i] == 1.0);
        assert_true(d.color[i] == 0.7);
    }
    assert_true(d.color[3] == 1.0);
}

/* One visual of each shape: ids in order, fields kept bit for bit through compile, strings
   copied (the caller's buffers may change), names "" when NULL, mesh NULL for primitives. */
static void test_store_and_compile(void **state)
{
    (void)state;
    mbs_builder *b = two_bodies();
    char name[16] = "link", mesh[32] = "meshes/arm.stl";
    mbs_visual_def v[4];
    for (int k = 0; k < 4; ++k) {
        v[k] = mbs_default_visual_def();
        v[k].body = k % 3;
        v[k].shape = (mbs_shape_type)k;
        rot_z(v[k].frame.rot, 0.3 * k + 0.1);
        for (int i = 0; i < 3; ++i) {
            v[k].frame.pos[i] = 0.1 * k - 0.05 * i;
            v[k].size[i] = 0.2 + 0.01 * (k + i);
            v[k].scale[i] = i == 1 ? -0.5 : 0.001;
        }
        v[k].color[0] = 0.25 * k;
    }
    v[1].size[2] = 0.0; /* a cylinder does not use size[2] */
    v[0].name = name;
    v[3].name = NULL;
    v[3].mesh = mesh;
    for (int k = 0; k < 4; ++k) assert_int_equal(mbs_add_visual(b, &v[k]), k);
    strcpy(name, "changed");
    strcpy(mesh, "changed");
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b); /* the model owns copies */
    assert_int_equal(mbs_model_nvisual(m), 4);
    for (int k = 0; k < 4; ++k) {
        mbs_visual_def o;
        assert_int_equal(mbs_model_visual(m, k, &o), MBS_OK);
        assert_int_equal(o.body, v[k].body);
        assert_int_equal(o.shape, v[k].shape);
        assert_memory_equal(&o.frame, &v[k].frame, sizeof o.frame);
        assert_memory_equal(o.size, v[k].size, sizeof o.size);
        assert_memory_equal(o.scale, v[k].scale, sizeof o.scale);
        assert_memory_equal(o.color, v[k].color, sizeof o.color);
        assert_string_equal(o.name, k == 0 ? "link" : "");
        if (k == 3)
            assert_string_equal(o.mesh, "meshes/arm.stl");
        else
            assert_null(o.mesh);
    }
    mbs_model_destroy(m);
}

/* Builder with one good visual; the bad definition d must fail with status st and a message
   containing frag, and the builder must still compile to one visual. */
static void expect_bad(const mbs_visual_def *d, int st, const char *frag)
{
    mbs_builder *b = two_bodies();
    mbs_visual_def ok = mbs_default_visual_def();
    ok.body = 1;
    assert_int_equal(mbs_add_visual(b, &ok), 0);
    int r = mbs_add_visual(b, d);
    if (r != st || !strstr(mbs_builder_error(b), frag)) {
        print_error("got %d \"%s\", expected %d with \"%s\"\n", r, mbs_builder_error(b), st,
                    frag);
        fail();
    }
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_nvisual(m), 1);
    assert_int_equal(mbs_add_visual(b, &ok), 1); /* the next id is still free */
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* A good definition on body 2 with a name, to be spoiled by each case. */
static mbs_visual_def good(mbs_shape_type shape)
{
    mbs_visual_def d = mbs_default_visual_def();
    d.name = "v";
    d.body = 2;
    d.shape = shape;
    d.mesh = "a.dae";
    return d;
}

/* Every bad input gets MBS_ERR_ARG and a message naming the visual and the field. */
static void test_bad_input(void **state)
{
    (void)state;
    mbs_visual_def d = good(MBS_SHAPE_SPHERE);
    d.body = 3;
    expect_bad(&d, MBS_ERR_ARG, "\"v\": body 3 does not exist");
    d.body = -1;
    expect_bad(&d, MBS_ERR_ARG, "body -1 does not exist");
    d = good((mbs_shape_type)7);
    expect_bad(&d, MBS_ERR_ARG, "unknown shape type 7");
    d = good(MBS_SHAPE_BOX);
    d.frame.pos[1] = NAN;
    expect_bad(&d, MBS_ERR_ARG, "frame is not finite");
    d = good(MBS_SHAPE_BOX);
    d.frame.rot[0] = 2.0;
    expect_bad(&d, MBS_ERR_ARG, "not orthonormal");
    d = good(MBS_SHAPE_BOX);
    d.frame.rot[8] = -1.0;
    expect_bad(&d, MBS_ERR_ARG, "reflection");
    d = good(MBS_SHAPE_BOX);
    d.color[3] = 1.5;
    expect_bad(&d, MBS_ERR_ARG, "color component 3 must be in [0, 1]");
    d.color[3] = -0.1;
    expect_bad(&d, MBS_ERR_ARG, "color component 3");
    d.color[3] = NAN;
    expect_bad(&d, MBS_ERR_ARG, "color component 3");
    d = good(MBS_SHAPE_BOX);
    d.size[2] = 0.0;
    expect_bad(&d, MBS_ERR_ARG, "box z extent must be > 0");
    d = good(MBS_SHAPE_CYLINDER);
    d.size[1] = -1.0;
    expect_bad(&d, MBS_ERR_ARG, "cylinder length must be > 0");
    d = good(MBS_SHAPE_SPHERE);
    d.size[0] = 0.0;
    expect_bad(&d, MBS_ERR_ARG, "sphere radius must be > 0");
    d = good(MBS_SHAPE_SPHERE);
    d.size[2] = INFINITY;
    expect_bad(&d, MBS_ERR_ARG, "size is not finite");
    d = good(MBS_SHAPE_MESH);
    d.scale[1] = 0.0;
    expect_bad(&d, MBS_ERR_ARG, "mesh scale 1 is zero");
    d.scale[1] = NAN;
    expect_bad(&d, MBS_ERR_ARG, "scale is not finite");
    d = good(MBS_SHAPE_MESH);
    d.mesh = NULL;
    expect_bad(&d, MBS_ERR_ARG, "mesh file name is missing");
    d.mesh = "";
    expect_bad(&d, MBS_ERR_ARG, "mesh file name is missing");
    d = good(MBS_SHAPE_SPHERE);
    d.name = NULL;
    d.body = 9;
    expect_bad(&d, MBS_ERR_ARG, "visual #1: body 9");
    mbs_builder *b = two_bodies();
    assert_int_equal(mbs_add_visual(NULL, &d), MBS_ERR_ARG);
    assert_int_equal(mbs_add_visual(b, NULL), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "def is NULL"));
    mbs_builder_clear_error(b); /* the failures above were handled */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_visual_def o;
    assert_int_equal(mbs_model_nvisual(m), 0);
    assert_int_equal(mbs_model_nvisual(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_visual(m, 0, &o), MBS_ERR_ARG);
    assert_int_equal(mbs_model_visual(m, -1, &o), MBS_ERR_ARG);
    assert_int_equal(mbs_model_visual(NULL, 0, &o), MBS_ERR_ARG);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* A model compiled before more visuals are added keeps its own list. */
static void test_builder_reuse(void **state)
{
    (void)state;
    mbs_builder *b = two_bodies();
    mbs_visual_def d = good(MBS_SHAPE_BOX);
    assert_int_equal(mbs_add_visual(b, &d), 0);
    mbs_model *m1 = NULL, *m2 = NULL;
    assert_int_equal(mbs_compile(b, &m1), MBS_OK);
    for (int k = 1; k < 40; ++k) assert_int_equal(mbs_add_visual(b, &d), k); /* grows */
    assert_int_equal(mbs_compile(b, &m2), MBS_OK);
    assert_int_equal(mbs_model_nvisual(m1), 1);
    assert_int_equal(mbs_model_nvisual(m2), 40);
    mbs_visual_def o;
    assert_int_equal(mbs_model_visual(m2, 39, &o), MBS_OK);
    assert_string_equal(o.name, "v");
    mbs_model_destroy(m1);
    mbs_model_destroy(m2);
    mbs_builder_destroy(b);
}

/* Failing each allocation of mbs_add_visual (mesh with a name) and of mbs_compile in turn
   gives MBS_ERR_NOMEM, leaves the builder usable and leaks nothing. */
static void test_nomem(void **state)
{
    (void)state;
#if HAVE_ALLOC_HOOK
    for (int phase = 0; phase < 2; ++phase) {
        int done = 0;
        for (long k = 0; !done && k < 200; ++k) {
            long live0 = g_live;
            mbs_builder *b = two_bodies();
            mbs_visual_def d = good(MBS_SHAPE_MESH);
            if (phase == 1) assert_int_equal(mbs_add_visual(b, &d), 0);
            mbs_model *m = NULL;
            g_calls = 0, g_failed = 0, g_fail_at = k;
            int st = phase == 0 ? mbs_add_visual(b, &d) : mbs_compile(b, &m);
            g_fail_at = -1;
            if (!g_failed) {
                assert_true(st >= 0);
                done = 1;
            } else {
                assert_int_equal(st, MBS_ERR_NOMEM);
                assert_null(m);
                assert_int_equal(mbs_add_visual(b, &d), phase); /* usable, id unchanged */
            }
            mbs_model_destroy(m);
            mbs_builder_destroy(b);
            assert_int_equal(g_live, live0);
        }
        assert_true(done);
    }
#else
    skip();
#endif
}

/* Body, joint and spring-damper definitions read back from a compiled model. */
static void test_model_defs(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "arm";
    bd.mass = 2.5;
    bd.com[0] = 0.3;
    bd.inertia[0] = 0.02, bd.inertia[4] = 0.03, bd.inertia[8] = 0.04;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd.name = "loose";
    assert_int_equal(mbs_add_body(b, &bd), 2);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.name = "hinge";
    jd.child = 1;
    jd.axis[0] = 0.0, jd.axis[1] = 3.0, jd.axis[2] = 4.0;
    jd.frame_parent.pos[2] = 1.5;
    rot_z(jd.frame_child.rot, 0.7);
    jd.state_priority = 2;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.name = "spring";
    sd.body_a = 1, sd.body_b = 2;
    sd.point_a[1] = 0.25;
    sd.stiffness = 10.0, sd.damping = 0.5, sd.rest_length = 0.2;
    assert_int_equal(mbs_add_spring_damper(b, &sd), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 1.0, 0.0, 0.0), 1);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_body_def ob;
    assert_int_equal(mbs_model_body_def(m, 0, &ob), MBS_OK);
    assert_string_equal(ob.name, "world");
    assert_true(ob.mass == 0.0);
    assert_int_equal(mbs_model_body_def(m, 1, &ob), MBS_OK);
    assert_string_equal(ob.name, "arm");
    assert_true(ob.mass == 2.5 && ob.com[0] == 0.3 && ob.inertia[8] == 0.04);
    mbs_joint_def oj;
    assert_int_equal(mbs_model_joint_def(m, 0, &oj), MBS_OK);
    assert_string_equal(oj.name, "hinge");
    assert_int_equal(oj.type, MBS_JOINT_REVOLUTE);
    assert_int_equal(oj.parent, 0);
    assert_int_equal(oj.child, 1);
    assert_true(fabs(oj.axis[1] - 0.6) < 1e-15 && fabs(oj.axis[2] - 0.8) < 1e-15);
    assert_true(oj.frame_parent.pos[2] == 1.5);
    assert_memory_equal(oj.frame_child.rot, jd.frame_child.rot, sizeof oj.frame_child.rot);
    assert_int_equal(oj.state_priority, 2);
    assert_int_equal(oj.cut, 0);
    assert_int_equal(mbs_model_joint_def(m, 1, &oj), MBS_OK); /* automatic root of "loose" */
    assert_string_equal(oj.name, "free_loose");
    assert_int_equal(oj.type, MBS_JOINT_FREE);
    assert_int_equal(oj.child, 2);
    mbs_spring_damper_def os;
    assert_int_equal(mbs_model_spring_damper_def(m, 0, &os), MBS_OK);
    assert_string_equal(os.name, "spring");
    assert_true(os.body_a == 1 && os.body_b == 2 && os.point_a[1] == 0.25);
    assert_true(os.stiffness == 10.0 && os.damping == 0.5 && os.rest_length == 0.2);
    assert_int_equal(mbs_model_spring_damper_def(m, 1, &os), MBS_ERR_ARG); /* joint spring */
    assert_int_equal(mbs_model_spring_damper_def(m, 2, &os), MBS_ERR_ARG);
    assert_int_equal(mbs_model_body_def(m, 3, &ob), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_def(m, 2, &oj), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_def(m, -1, &oj), MBS_ERR_ARG);
    assert_int_equal(mbs_model_body_def(NULL, 0, &ob), MBS_ERR_ARG);
    assert_int_equal(mbs_model_body_def(m, 0, NULL), MBS_ERR_ARG);
    double g[3];
    assert_int_equal(mbs_model_gravity(m, g), MBS_OK);
    assert_true(g[0] == 0.0 && g[1] == 0.0 && g[2] == -9.81);
    mbs_model_destroy(m);
    const double gy[3] = {0.0, -9.80665, 0.0}, c[3] = {0, 0, 0};
    assert_int_equal(mbs_builder_set_gravity(b, gy), MBS_OK);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_gravity(m, g), MBS_OK);
    assert_memory_equal(g, gy, sizeof g);
    mbs_model_destroy(m);
    assert_int_equal(mbs_builder_set_point_gravity(b, c, 1.0), MBS_OK);
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    assert_int_equal(mbs_model_gravity(m, g), MBS_OK);
    assert_true(g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0);
    assert_int_equal(mbs_model_gravity(NULL, g), MBS_ERR_ARG);
    assert_int_equal(mbs_model_gravity(m, NULL), MBS_ERR_ARG);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_store_and_compile),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_builder_reuse),
        cmocka_unit_test(test_nomem),
        cmocka_unit_test(test_model_defs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
