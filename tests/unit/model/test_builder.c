/* Builder, compile, model queries and the q-manifold over a model: every bad input returns
 * its own status and a message naming the element, a failed call leaves the builder as it
 * was, valid graphs compile to the expected layout (spanning tree breadth-first from the
 * world, automatic free roots, topological q/v order), loop-closing and cut-marked joints
 * become cut joints with constraint rows, fixed-joint cycles are rejected naming the
 * joints, out-of-memory at every allocation is MBS_ERR_NOMEM without
 * leaks, and integrate/difference/neutral/normalize agree on a mixed model. */
#include "common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/builder.h"
#include "core/internal.h"

/* ------------------------------------------------------------------ allocation hook */
/* glibc lets a program replace malloc; these wrappers count live blocks and can make one
   chosen allocation fail, to test every out-of-memory path and that failures do not leak. */
#if defined(__GLIBC__)
#define HAVE_ALLOC_HOOK 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static long g_live;          /* live blocks */
static long g_calls;         /* allocations since arming */
static long g_fail_at = -1;  /* index of the allocation to fail; -1: none */
static int g_failed;         /* 1 once the armed failure happened */

/* 1 if this allocation must fail. */
static int inject(void)
{
    if (g_fail_at < 0) return 0;
    if (g_calls++ == g_fail_at) {
        g_failed = 1;
        return 1;
    }
    return 0;
}
void *malloc(size_t n)
{
    if (inject()) return NULL;
    void *p = __libc_malloc(n);
    if (p) g_live++;
    return p;
}
void *calloc(size_t n, size_t size)
{
    if (inject()) return NULL;
    void *p = __libc_calloc(n, size);
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
/* Make allocation number k (0-based) from now on fail. */
static void arm(long k)
{
    g_calls = 0;
    g_failed = 0;
    g_fail_at = k;
}
static void disarm(void) { g_fail_at = -1; }
/* 1 if the replacement malloc is in use (a tool such as valgrind may intercept malloc
   before it: then allocation failures cannot be injected). */
static int hook_active(void)
{
    arm(0);
    mbs_builder *b = mbs_builder_create();
    disarm();
    mbs_builder_destroy(b);
    return b == NULL;
}
#else
#define HAVE_ALLOC_HOOK 0
#endif

/* ------------------------------------------------------------------ helpers */

/* Assert that the builder's message contains both fragments. */
static void assert_msg(const mbs_builder *b, const char *frag1, const char *frag2)
{
    const char *msg = mbs_builder_error(b);
    if (!strstr(msg, frag1) || (frag2 && !strstr(msg, frag2))) {
        print_error("message \"%s\" lacks \"%s\" / \"%s\"\n", msg, frag1, frag2 ? frag2 : "");
        fail();
    }
}

/* mbs_compile refuses while an earlier call's failure is kept, quoting frag; then the host
   clears it. */
static void expect_earlier_failure(mbs_builder *b, const char *frag)
{
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    assert_null(m);
    assert_msg(b, "an earlier call failed: ", frag);
    mbs_builder_clear_error(b);
}

/* Body definition with a name. */
static mbs_body_def body_def(const char *name)
{
    mbs_body_def d = mbs_default_body_def();
    d.name = name;
    return d;
}

/* Add a default body with that name; asserts success. */
static int add_body(mbs_builder *b, const char *name)
{
    mbs_body_def d = body_def(name);
    int id = mbs_add_body(b, &d);
    assert_true(id >= 1);
    return id;
}

/* Joint definition of a type between parent and child. */
static mbs_joint_def joint_def(const char *name, mbs_joint_type type, int parent, int child)
{
    mbs_joint_def d = mbs_default_joint_def(type);
    d.name = name;
    d.parent = parent;
    d.child = child;
    return d;
}

/* Add a joint; asserts success. */
static int add_joint(mbs_builder *b, const char *name, mbs_joint_type type, int parent,
                     int child)
{
    mbs_joint_def d = joint_def(name, type, parent, child);
    int id = mbs_add_joint(b, &d);
    if (id < 0) print_error("add_joint %s: %s\n", name, mbs_builder_error(b));
    assert_true(id >= 0);
    return id;
}

/* Compile, asserting success. */
static mbs_model *compile_ok(const mbs_builder *b)
{
    mbs_model *m = NULL;
    int st = mbs_compile(b, &m);
    if (st != MBS_OK) print_error("compile: %s: %s\n", mbs_status_name(st), mbs_builder_error(b));
    assert_int_equal(st, MBS_OK);
    assert_non_null(m);
    return m;
}

/* Compile expecting failure status st; *out must stay untouched; counts unchanged. */
static void compile_fails(const mbs_builder *b, int st, const char *frag1, const char *frag2)
{
    mbs_model *sentinel = (mbs_model *)(void *)&sentinel, *m = sentinel;
    int nbody = b->nbody, njoint = b->njoint, nforce = b->nforce;
    assert_int_equal(mbs_compile(b, &m), st);
    assert_ptr_equal(m, sentinel);
    assert_msg(b, frag1, frag2);
    assert_int_equal(b->nbody, nbody);
    assert_int_equal(b->njoint, njoint);
    assert_int_equal(b->nforce, nforce);
}

/* Rotation R = Rz(a) Ry(b) Rx(c) (row-major). */
static void rot_zyx(double R[9], double a, double b, double c)
{
    double Rz[9], Ry[9], Rx[9], T[9];
    double ez[3] = {0, 0, 1}, ey[3] = {0, 1, 0}, ex[3] = {1, 0, 0};
    m3_axis_angle(Rz, ez, a);
    m3_axis_angle(Ry, ey, b);
    m3_axis_angle(Rx, ex, c);
    m3_mul(T, Rz, Ry);
    m3_mul(R, T, Rx);
}

/* Inertia R diag(d) R^T. */
static void rotated_inertia(double I[9], const double R[9], double d0, double d1, double d2)
{
    double D[9] = {d0, 0, 0, 0, d1, 0, 0, 0, d2}, T[9];
    m3_mul(T, R, D);
    m3_mult(I, T, R);
}

/* ------------------------------------------------------------------ status */

static void test_status_names(void **state)
{
    (void)state;
    static const struct { int st; const char *name; } t[] = {
        {MBS_OK, "MBS_OK"}, {MBS_ERR_ARG, "MBS_ERR_ARG"}, {MBS_ERR_NOMEM, "MBS_ERR_NOMEM"},
        {MBS_ERR_STATE, "MBS_ERR_STATE"}, {MBS_ERR_TOPOLOGY, "MBS_ERR_TOPOLOGY"},
        {MBS_ERR_SINGULAR, "MBS_ERR_SINGULAR"}, {MBS_ERR_CONVERGENCE, "MBS_ERR_CONVERGENCE"},
        {MBS_ERR_INCONSISTENT, "MBS_ERR_INCONSISTENT"}, {MBS_ERR_NONFINITE, "MBS_ERR_NONFINITE"},
        {MBS_ERR_SOLVER, "MBS_ERR_SOLVER"}, {MBS_ERR_CALLBACK, "MBS_ERR_CALLBACK"},
        {MBS_ERR_DEADLINE, "MBS_ERR_DEADLINE"}, {1, "MBS_UNKNOWN_STATUS"},
        {-12, "MBS_UNKNOWN_STATUS"}, {-1000, "MBS_UNKNOWN_STATUS"}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
        assert_string_equal(mbs_status_name(t[i].st), t[i].name);
}

static void test_errorf_finite_labels(void **state)
{
    (void)state;
    char buf[MBS_ERROR_LEN];
    assert_int_equal(mbs_errorf(buf, MBS_ERR_ARG, "body %s: %d", "\"a\"", 7), MBS_ERR_ARG);
    assert_string_equal(buf, "body \"a\": 7");
    assert_int_equal(mbs_errorf(NULL, MBS_ERR_STATE, "x"), MBS_ERR_STATE);
    char longname[2 * MBS_ERROR_LEN];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(mbs_errorf(buf, MBS_ERR_NOMEM, "%s", longname), MBS_ERR_NOMEM);
    assert_int_equal((int)strlen(buf), MBS_ERROR_LEN - 1);
    assert_string_equal(buf + MBS_ERROR_LEN - 4, "..."); /* a cut message says so */
    assert_true(MBS_ERROR_LEN >= 1024);                 /* room for a long path and element */

    double x[4] = {1.0, -2.0, 0.0, 1e300};
    assert_int_equal(mbs_all_finite(x, 4), 1);
    assert_int_equal(mbs_all_finite(NULL, 0), 1);
    assert_int_equal(mbs_all_finite(NULL, 2), 0);
    x[2] = NAN;
    assert_int_equal(mbs_all_finite(x, 4), 0);
    assert_int_equal(mbs_all_finite(x, 2), 1);
    x[2] = -INFINITY;
    assert_int_equal(mbs_all_finite(x, 3), 0);

    char lb[64];
    assert_string_equal(mbs_name_label("arm", 3, lb, sizeof lb), "\"arm\"");
    assert_string_equal(mbs_name_label("", 3, lb, sizeof lb), "#3");
    assert_string_equal(mbs_name_label(NULL, 4, lb, sizeof lb), "#4");

    mbs_builder *b = mbs_builder_create();
    int a = add_body(b, "arm");
    add_body(b, NULL);
    add_joint(b, "hinge", MBS_JOINT_REVOLUTE, 0, a);
    mbs_model *m = compile_ok(b);
    assert_string_equal(mbs_body_label(m, 1, lb, sizeof lb), "\"arm\"");
    assert_string_equal(mbs_body_label(m, 2, lb, sizeof lb), "#2");
    assert_string_equal(mbs_body_label(m, 0, lb, sizeof lb), "\"world\"");
    assert_string_equal(mbs_body_label(m, 9, lb, sizeof lb), "#9");
    assert_string_equal(mbs_joint_label(m, 0, lb, sizeof lb), "\"hinge\"");
    assert_string_equal(mbs_joint_label(m, 1, lb, sizeof lb), "\"free_2\"");
    assert_string_equal(mbs_joint_label(NULL, 5, lb, sizeof lb), "#5");
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ builder basics */

static void test_defaults(void **state)
{
    (void)state;
    mbs_body_def bd = mbs_default_body_def();
    assert_null(bd.name);
    assert_true(bd.mass == 1.0);
    double I[9] = {1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3}, z[3] = {0, 0, 0};
    assert_memory_equal(bd.inertia, I, sizeof I);
    assert_memory_equal(bd.com, z, sizeof z);

    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_UNIVERSAL);
    double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, ax[3] = {0, 0, 1}, ax2[3] = {1, 0, 0};
    assert_int_equal(jd.type, MBS_JOINT_UNIVERSAL);
    assert_null(jd.name);
    assert_memory_equal(jd.frame_parent.rot, R, sizeof R);
    assert_memory_equal(jd.frame_child.rot, R, sizeof R);
    assert_memory_equal(jd.frame_parent.pos, z, sizeof z);
    assert_memory_equal(jd.frame_child.pos, z, sizeof z);
    assert_memory_equal(jd.axis, ax, sizeof ax);
    assert_memory_equal(jd.axis2, ax2, sizeof ax2);
    assert_int_equal(jd.rotation, MBS_ROT_QUATERNION);
    assert_true(jd.length == 0.0);
    assert_int_equal(jd.cut, 0);
    assert_int_equal(jd.state_priority, 0);

    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    assert_string_equal(mbs_builder_error(b), "");
    assert_int_equal(b->gravity_kind, MBS_GRAVITY_UNIFORM);
    double g[3] = {0, 0, -9.81};
    assert_memory_equal(b->gravity, g, sizeof g);
    assert_int_equal(b->root_rotation, MBS_ROT_QUATERNION);
    assert_int_equal(mbs_add_body(b, &bd), 1);
    assert_int_equal(mbs_add_body(b, &bd), 2);
    assert_string_equal(b->bodies[0].name, "");
    mbs_builder_destroy(b);
}

static void test_null_builder_args(void **state)
{
    (void)state;
    mbs_body_def bd = mbs_default_body_def();
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    double g[3] = {0, 0, -1};
    mbs_model *m = NULL;
    mbs_force_model f;
    memset(&f, 0, sizeof f);
    assert_string_equal(mbs_builder_error(NULL), "");
    mbs_builder_destroy(NULL);
    mbs_model_destroy(NULL);
    assert_int_equal(mbs_builder_set_gravity(NULL, g), MBS_ERR_ARG);
    assert_int_equal(mbs_builder_set_point_gravity(NULL, g, 1.0), MBS_ERR_ARG);
    assert_int_equal(mbs_builder_set_no_gravity(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_builder_set_root_rotation(NULL, MBS_ROT_CARDAN), MBS_ERR_ARG);
    assert_int_equal(mbs_add_body(NULL, &bd), MBS_ERR_ARG);
    assert_int_equal(mbs_add_joint(NULL, &jd), MBS_ERR_ARG);
    assert_int_equal(mbs_builder_push_force(NULL, &f), MBS_ERR_ARG);
    assert_int_equal(mbs_compile(NULL, &m), MBS_ERR_ARG);
    assert_null(m);

    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_gravity(b, NULL), MBS_ERR_ARG);
    assert_msg(b, "g is NULL", NULL);
    assert_int_equal(mbs_builder_set_point_gravity(b, NULL, 1.0), MBS_ERR_ARG);
    assert_msg(b, "center is NULL", NULL);
    assert_int_equal(mbs_add_body(b, NULL), MBS_ERR_ARG);
    assert_msg(b, "mbs_add_body: def is NULL", NULL);
    assert_int_equal(mbs_add_joint(b, NULL), MBS_ERR_ARG);
    assert_msg(b, "mbs_add_joint: def is NULL", NULL);
    assert_int_equal(mbs_builder_push_force(b, NULL), MBS_ERR_ARG);
    assert_msg(b, "push_force: element is NULL", NULL);
    assert_int_equal(mbs_compile(b, NULL), MBS_ERR_ARG);
    assert_msg(b, "mbs_compile: out is NULL", NULL);
    assert_int_equal(b->nbody, 0);
    assert_int_equal(b->njoint, 0);
    assert_int_equal(b->nforce, 0);
    assert_int_equal(b->gravity_kind, MBS_GRAVITY_UNIFORM);
    mbs_builder_destroy(b);
}

static void test_null_model_args(void **state)
{
    (void)state;
    /* model queries */
    assert_int_equal(mbs_model_nq(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_nv(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_nbody(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_njoint(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_ncon(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_nforce(NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_qadr(NULL, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_vadr(NULL, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_nq(NULL, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_nv(NULL, 0), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_is_cut(NULL, 0), MBS_ERR_ARG);
    assert_true(mbs_model_find_body(NULL, "world") < 0);
    assert_true(mbs_model_find_joint(NULL, "j") < 0);
    assert_null(mbs_model_body_name(NULL, 0));
    assert_null(mbs_model_joint_name(NULL, 0));

    /* q-manifold */
    mbs_builder *b = mbs_builder_create();
    add_body(b, "a");
    mbs_model *m = compile_ok(b);
    double q[7], v[6], qo[7];
    assert_int_equal(mbs_neutral_q(m, q), MBS_OK);
    memset(v, 0, sizeof v);
    assert_int_equal(mbs_integrate_q(NULL, q, v, 0.1, qo), MBS_ERR_ARG);
    assert_int_equal(mbs_integrate_q(m, NULL, v, 0.1, qo), MBS_ERR_ARG);
    assert_int_equal(mbs_integrate_q(m, q, NULL, 0.1, qo), MBS_ERR_ARG);
    assert_int_equal(mbs_integrate_q(m, q, v, 0.1, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_difference_q(NULL, q, q, v), MBS_ERR_ARG);
    assert_int_equal(mbs_difference_q(m, NULL, q, v), MBS_ERR_ARG);
    assert_int_equal(mbs_difference_q(m, q, NULL, v), MBS_ERR_ARG);
    assert_int_equal(mbs_difference_q(m, q, q, NULL), MBS_ERR_ARG);
    /* finite coordinates whose difference overflows (it returned MBS_OK with inf) */
    double q1[7];
    memcpy(q1, q, sizeof q1);
    q[0] = -DBL_MAX, q1[0] = DBL_MAX;
    assert_int_equal(mbs_difference_q(m, q, q1, v), MBS_ERR_NONFINITE);
    assert_int_equal(mbs_neutral_q(m, q), MBS_OK);
    assert_int_equal(mbs_normalize_q(NULL, q), MBS_ERR_ARG);
    assert_int_equal(mbs_normalize_q(m, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_neutral_q(NULL, q), MBS_ERR_ARG);
    assert_int_equal(mbs_neutral_q(m, NULL), MBS_ERR_ARG);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* A failed call is sticky: the body it would have added is missing, so compile refuses with
   the first failure's status and message, whatever failed after it, until the host clears it. */
static void test_first_failure_sticky(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def good = body_def("good");
    assert_int_equal(mbs_add_body(b, &good), 1);
    mbs_body_def neg = body_def("neg");
    neg.mass = -1.0;
    assert_int_equal(mbs_add_body(b, &neg), MBS_ERR_ARG);
    const char *first = NULL;
    assert_int_equal(mbs_builder_first_error(b, &first), MBS_ERR_ARG);
    assert_string_equal(first, "mbs_add_body: body \"neg\" (id 2): mass is negative (-1)");
    mbs_joint_def zero = joint_def("zero", MBS_JOINT_REVOLUTE, MBS_WORLD, 1);
    zero.axis[2] = 0.0; /* a later failure of another kind */
    assert_int_equal(mbs_add_joint(b, &zero), MBS_ERR_ARG);
    assert_msg(b, "joint \"zero\" (id 0): axis is zero", NULL); /* the last call's message */
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    assert_null(m);
    assert_string_equal(mbs_builder_error(b), "an earlier call failed: mbs_add_body: body "
                                              "\"neg\" (id 2): mass is negative (-1)");
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG); /* still, until cleared */
    mbs_builder_clear_error(b);
    assert_int_equal(mbs_builder_first_error(b, &first), MBS_OK);
    assert_string_equal(first, "");
    assert_string_equal(mbs_builder_error(b), "");
    /* a failure of another status keeps its status; a NULL def names the call once */
    assert_int_equal(mbs_add_joint(b, NULL), MBS_ERR_ARG);
    assert_int_equal(mbs_builder_first_error(b, &first), MBS_ERR_ARG);
    assert_string_equal(first, "mbs_add_joint: def is NULL");
    mbs_builder_clear_error(b);
    m = compile_ok(b); /* the host handled it: the model of the calls that succeeded */
    assert_int_equal(mbs_model_nbody(m), 2);
    mbs_model_destroy(m);
    assert_int_equal(mbs_builder_first_error(NULL, NULL), MBS_ERR_ARG);
    mbs_builder_clear_error(NULL);
    mbs_builder_destroy(b);
}

static void test_gravity_setters(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    double g[3] = {0, -9.80665, 0}, bad[3] = {0, NAN, 0}, inf[3] = {INFINITY, 0, 0};
    double c[3] = {1, 2, 3};
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    assert_int_equal(b->gravity_kind, MBS_GRAVITY_UNIFORM);
    assert_memory_equal(b->gravity, g, sizeof g);
    assert_int_equal(mbs_builder_set_gravity(b, bad), MBS_ERR_ARG);
    assert_msg(b, "gravity: g is not finite", NULL);
    assert_memory_equal(b->gravity, g, sizeof g);

    assert_int_equal(mbs_builder_set_point_gravity(b, c, 0.0), MBS_ERR_ARG);
    assert_msg(b, "point gravity: mu must be finite and > 0", "got 0");
    assert_int_equal(mbs_builder_set_point_gravity(b, c, -3.0), MBS_ERR_ARG);
    assert_msg(b, "point gravity: mu", "got -3");
    assert_int_equal(mbs_builder_set_point_gravity(b, c, NAN), MBS_ERR_ARG);
    assert_msg(b, "point gravity: mu", NULL);
    assert_int_equal(mbs_builder_set_point_gravity(b, inf, 1.0), MBS_ERR_ARG);
    assert_msg(b, "point gravity: center is not finite", NULL);
    assert_int_equal(b->gravity_kind, MBS_GRAVITY_UNIFORM);

    assert_int_equal(mbs_builder_set_point_gravity(b, c, 3.986004418e14), MBS_OK);
    assert_int_equal(b->gravity_kind, MBS_GRAVITY_POINT);
    assert_memory_equal(b->gravity_center, c, sizeof c);
    assert_true(b->gravity_mu == 3.986004418e14);
    expect_earlier_failure(b, "mbs_builder_set_gravity: gravity: g is not finite");
    mbs_model *m = compile_ok(b);
    assert_int_equal(m->gravity_kind, MBS_GRAVITY_POINT);
    assert_memory_equal(m->gravity_center, c, sizeof c);
    assert_true(m->gravity_mu == 3.986004418e14);
    mbs_model_destroy(m);

    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    assert_int_equal(b->gravity_kind, MBS_GRAVITY_NONE);
    m = compile_ok(b);
    assert_int_equal(m->gravity_kind, MBS_GRAVITY_NONE);
    mbs_model_destroy(m);
    assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    m = compile_ok(b);
    assert_int_equal(m->gravity_kind, MBS_GRAVITY_UNIFORM);
    assert_memory_equal(m->gravity, g, sizeof g);
    mbs_model_destroy(m);

    assert_int_equal(mbs_builder_set_root_rotation(b, (mbs_rotation)2), MBS_ERR_ARG);
    assert_msg(b, "root rotation: unknown rotation option 2", NULL);
    assert_int_equal(mbs_builder_set_root_rotation(b, (mbs_rotation)-1), MBS_ERR_ARG);
    assert_int_equal(b->root_rotation, MBS_ROT_QUATERNION);
    assert_int_equal(mbs_builder_set_root_rotation(b, MBS_ROT_CARDAN), MBS_OK);
    assert_int_equal(b->root_rotation, MBS_ROT_CARDAN);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ body validation */

typedef struct bad_body {
    const char *frag;
    int field; /* 0 mass, 1 com[k], 2 inertia[k] */
    int k;
    double value;
} bad_body;

static void test_bad_bodies(void **state)
{
    (void)state;
    static const bad_body t[] = {
        {"mass is not finite", 0, 0, NAN},
        {"mass is not finite", 0, 0, INFINITY},
        {"com is not finite", 1, 2, NAN},
        {"inertia is not finite", 2, 4, -INFINITY},
        {"mass is negative (-1)", 0, 0, -1.0},
        {"inertia is not symmetric", 2, 1, 1e-4},
        {"inertia not positive semi-definite", 2, 8, -1e-3},
        {"violate the triangle inequality", 2, 0, 3e-3},
    };
    mbs_builder *b = mbs_builder_create();
    add_body(b, "good");
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
        mbs_body_def d = body_def("bad");
        double *p = t[i].field == 0 ? &d.mass : t[i].field == 1 ? d.com : d.inertia;
        p[t[i].k] = t[i].value;
        assert_int_equal(mbs_add_body(b, &d), MBS_ERR_ARG);
        assert_msg(b, "body \"bad\" (id 2): ", t[i].frag);
        assert_int_equal(b->nbody, 1);
    }
    /* massless with inertia */
    mbs_body_def d = body_def(NULL);
    d.mass = 0.0;
    assert_int_equal(mbs_add_body(b, &d), MBS_ERR_ARG);
    assert_msg(b, "body #2: mass is 0 but inertia is not zero", NULL);
    /* rotated tensors: the eigenvalue tests see through off-diagonal terms */
    double R[9];
    rot_zyx(R, 0.3, -0.7, 1.1);
    d = body_def("rot");
    rotated_inertia(d.inertia, R, 1.0, 2.0, -0.01);
    assert_int_equal(mbs_add_body(b, &d), MBS_ERR_ARG);
    assert_msg(b, "body \"rot\" (id 2): inertia not positive semi-definite", NULL);
    rotated_inertia(d.inertia, R, 1.0, 1.0, 2.1);
    assert_int_equal(mbs_add_body(b, &d), MBS_ERR_ARG);
    assert_msg(b, "body \"rot\" (id 2): principal moments", "triangle inequality");
    assert_int_equal(b->nbody, 1);
    /* valid edge cases: a rod (triangle equality), a point mass, a massless link */
    rotated_inertia(d.inertia, R, 0.0, 1.0, 1.0);
    assert_int_equal(mbs_add_body(b, &d), 2);
    rotated_inertia(d.inertia, R, 1.0, 1.0, 2.0);
    assert_int_equal(mbs_add_body(b, &d), 3);
    d = body_def("point");
    memset(d.inertia, 0, sizeof d.inertia);
    assert_int_equal(mbs_add_body(b, &d), 4);
    d.mass = 0.0;
    assert_int_equal(mbs_add_body(b, &d), 5);
    /* asymmetry within tolerance is accepted and symmetrised */
    d = body_def("nearsym");
    d.inertia[1] = 1e-4;
    d.inertia[3] = 1e-4 * (1.0 + 1e-12);
    assert_int_equal(mbs_add_body(b, &d), 6);
    assert_true(b->bodies[5].inertia[1] == b->bodies[5].inertia[3]);
    assert_string_equal(b->bodies[0].name, "good");
    assert_string_equal(b->bodies[5].name, "nearsym");
    mbs_builder_destroy(b);
}

/* A negative moment far below the rounding of the largest one: the eigenvalue test
   (relative to the largest) passed diag(-0.5, 1e20, 1e20), and the kinetic energy came out
   negative; refused naming the axis, with off-diagonal terms too. */
static void test_negative_moment(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    add_body(b, "good");
    mbs_body_def d = body_def("neg");
    memset(d.inertia, 0, sizeof d.inertia);
    d.inertia[0] = -0.5, d.inertia[4] = d.inertia[8] = 1e20;
    assert_int_equal(mbs_add_body(b, &d), MBS_ERR_ARG);
    assert_msg(b, "body \"neg\" (id 2): inertia not positive semi-definite", "moment -0.5 about "
               "the body's x axis");
    d.inertia[0] = 0.0, d.inertia[8] = -0.5, d.inertia[4] = 1e20, d.inertia[2] = d.inertia[6] = 0.1;
    assert_int_equal(mbs_add_body(b, &d), MBS_ERR_ARG);
    assert_msg(b, "body \"neg\" (id 2): inertia not positive semi-definite", "z axis");
    assert_int_equal(b->nbody, 1);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ joint validation */

typedef struct bad_joint {
    const char *frag;
    void (*mutate)(mbs_joint_def *d);
} bad_joint;

static void j_type_big(mbs_joint_def *d) { d->type = (mbs_joint_type)99; }
static void j_type_neg(mbs_joint_def *d) { d->type = (mbs_joint_type)-1; }
static void j_rot(mbs_joint_def *d) { d->rotation = (mbs_rotation)5; }
static void j_parent(mbs_joint_def *d) { d->parent = 3; }
static void j_parent_neg(mbs_joint_def *d) { d->parent = -1; }
static void j_child(mbs_joint_def *d) { d->child = 7; }
static void j_self(mbs_joint_def *d) { d->parent = d->child = 1; }
static void j_world_world(mbs_joint_def *d) { d->parent = d->child = 0; }
static void j_pos_nan(mbs_joint_def *d) { d->frame_parent.pos[1] = NAN; }
static void j_rot_inf(mbs_joint_def *d) { d->frame_child.rot[5] = INFINITY; }
static void j_rot_scaled(mbs_joint_def *d) { d->frame_parent.rot[0] = 1.0 + 1e-6; }
static void j_rot_skew(mbs_joint_def *d) { d->frame_child.rot[1] = 0.1; }
static void j_reflect(mbs_joint_def *d) { d->frame_child.rot[8] = -1.0; }
static void j_axis_zero(mbs_joint_def *d) { v3_set(d->axis, 0, 0, 0); }
static void j_axis_nan(mbs_joint_def *d) { d->axis[0] = NAN; }
static void j_axis2_inf(mbs_joint_def *d) { d->axis2[2] = INFINITY; }
static void j_len_nan(mbs_joint_def *d) { d->length = NAN; }
static void j_univ_parallel(mbs_joint_def *d)
{
    d->type = MBS_JOINT_UNIVERSAL;
    v3_set(d->axis, 0, 2, 0);
    v3_set(d->axis2, 0, -0.5, 0);
}
static void j_univ_axis2_zero(mbs_joint_def *d)
{
    d->type = MBS_JOINT_UNIVERSAL;
    v3_set(d->axis2, 0, 0, 0);
}
static void j_planar_parallel(mbs_joint_def *d)
{
    d->type = MBS_JOINT_PLANAR;
    v3_set(d->axis2, 0, 0, 3);
}
static void j_prism_zero(mbs_joint_def *d)
{
    d->type = MBS_JOINT_PRISMATIC;
    v3_set(d->axis, 0, 1e-13, 0);
}
static void j_dist_zero(mbs_joint_def *d) { d->type = MBS_JOINT_DISTANCE; }
static void j_dist_neg(mbs_joint_def *d)
{
    d->type = MBS_JOINT_DISTANCE;
    d->length = -1.0;
}

static void test_bad_joints(void **state)
{
    (void)state;
    static const bad_joint t[] = {
        {"unknown joint type 99", j_type_big},
        {"unknown joint type -1", j_type_neg},
        {"unknown rotation option 5", j_rot},
        {"parent body 3 does not exist", j_parent},
        {"parent body -1 does not exist", j_parent_neg},
        {"child body 7 does not exist", j_child},
        {"connects body 1 to itself", j_self},
        {"connects body 0 to itself", j_world_world},
        {"frame_parent is not finite", j_pos_nan},
        {"frame_child is not finite", j_rot_inf},
        {"frame_parent rotation is not orthonormal", j_rot_scaled},
        {"frame_child rotation is not orthonormal", j_rot_skew},
        {"frame_child rotation has determinant -1", j_reflect},
        {"axis is zero", j_axis_zero},
        {"axis is not finite", j_axis_nan},
        {"axis2 is not finite", j_axis2_inf},
        {"length is not finite", j_len_nan},
        {"universal axes are parallel", j_univ_parallel},
        {"axis2 is zero", j_univ_axis2_zero},
        {"planar axis2 is parallel to the plane normal", j_planar_parallel},
        {"axis is zero", j_prism_zero},
        {"distance length must be > 0 (got 0)", j_dist_zero},
        {"distance length must be > 0 (got -1)", j_dist_neg},
    };
    mbs_builder *b = mbs_builder_create();
    int a = add_body(b, "a"), c = add_body(b, "c");
    add_joint(b, "j0", MBS_JOINT_REVOLUTE, 0, a);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
        mbs_joint_def d = joint_def("bad", MBS_JOINT_REVOLUTE, a, c);
        t[i].mutate(&d);
        assert_int_equal(mbs_add_joint(b, &d), MBS_ERR_ARG);
        assert_msg(b, "joint \"bad\" (id 1): ", t[i].frag);
        assert_int_equal(b->njoint, 1);
    }
    mbs_joint_def d = joint_def(NULL, MBS_JOINT_REVOLUTE, a, c);
    j_axis_zero(&d);
    assert_int_equal(mbs_add_joint(b, &d), MBS_ERR_ARG);
    assert_msg(b, "joint #1: axis is zero", NULL);
    /* unused axes may be zero: a spherical joint ignores them */
    d = joint_def("sph", MBS_JOINT_SPHERICAL, a, c);
    v3_set(d.axis, 0, 0, 0);
    v3_set(d.axis2, 0, 0, 0);
    assert_int_equal(mbs_add_joint(b, &d), 1);
    assert_int_equal(b->njoint, 2);
    assert_string_equal(b->joints[1].name, "sph");
    mbs_builder_destroy(b);
}

/* Axes are normalised; a planar axis2 is made orthogonal to the normal; distance joints
   are cut joints. */
static void test_joint_normalisation(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    int a = add_body(b, "a"), c = add_body(b, "c");
    mbs_joint_def d = joint_def("pl", MBS_JOINT_PLANAR, 0, a);
    v3_set(d.axis, 0, 0, 2);
    v3_set(d.axis2, 3, 0, 4);
    assert_int_equal(mbs_add_joint(b, &d), 0);
    double ez[3] = {0, 0, 1}, ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
    test_assert_close(b->joints[0].axis, ez, 3, 1e-15, "planar axis");
    test_assert_close(b->joints[0].axis2, ex, 3, 1e-15, "planar axis2");
    d = joint_def("u", MBS_JOINT_UNIVERSAL, a, c);
    v3_set(d.axis, 3, 4, 0);
    v3_set(d.axis2, 0, 1, 1);
    assert_int_equal(mbs_add_joint(b, &d), 1);
    double u1[3] = {0.6, 0.8, 0}, u2[3] = {0, sqrt(0.5), sqrt(0.5)};
    test_assert_close(b->joints[1].axis, u1, 3, 1e-15, "universal axis");
    test_assert_close(b->joints[1].axis2, u2, 3, 1e-15, "universal axis2 (not orthogonalised)");
    d = joint_def("rod", MBS_JOINT_DISTANCE, 0, c);
    d.length = 0.5;
    assert_int_equal(mbs_add_joint(b, &d), 2);
    assert_int_equal(b->joints[2].cut, 1);
    d = joint_def("cut7", MBS_JOINT_REVOLUTE, 0, c);
    d.cut = 7;
    assert_int_equal(mbs_add_joint(b, &d), 3);
    assert_int_equal(b->joints[3].cut, 1);

    /* the compiled model keeps unit axes and axis3 = axis x axis2 */
    mbs_builder *b2 = mbs_builder_create();
    a = add_body(b2, "a");
    d = joint_def("pl", MBS_JOINT_PLANAR, 0, a);
    v3_set(d.axis, 0, 0, 2);
    v3_set(d.axis2, 3, 0, 4);
    assert_int_equal(mbs_add_joint(b2, &d), 0);
    mbs_model *m = compile_ok(b2);
    test_assert_close(m->joints[0].axis, ez, 3, 1e-15, "model axis");
    test_assert_close(m->joints[0].axis2, ex, 3, 1e-15, "model axis2");
    test_assert_close(m->joints[0].axis3, ey, 3, 1e-15, "model axis3");
    mbs_model_destroy(m);
    mbs_builder_destroy(b2);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ compile: layout */

/* Every tree joint's parent body comes earlier in the tree; addresses are increasing in
   tree order; dof_parent/dof_joint follow the tree. */
static void check_tree_invariants(const mbs_model *m)
{
    assert_int_equal(m->ntree, m->nbody - 1);
    int nq = 0, nv = 0;
    for (int k = 0; k < m->ntree; ++k) {
        int j = m->tree[k];
        const mbs_joint_model *jm = &m->joints[j];
        assert_int_equal(jm->cut, 0);
        assert_int_equal(m->bodies[jm->child].joint, j);
        assert_int_equal(m->bodies[jm->child].parent, jm->parent);
        if (jm->parent != MBS_WORLD) {
            int pk = -1;
            for (int i = 0; i < k; ++i)
                if (m->tree[i] == m->bodies[jm->parent].joint) pk = i;
            assert_true(pk >= 0);
        }
        assert_int_equal(jm->qadr, nq);
        assert_int_equal(jm->vadr, nv);
        nq += jm->nq;
        nv += jm->nv;
        for (int i = 0; i < jm->nv; ++i) {
            assert_int_equal(m->dof_joint[jm->vadr + i], j);
            int expect = i > 0 ? jm->vadr + i - 1 : -1;
            if (i == 0) /* last dof of the nearest ancestor joint with dofs */
                for (int body = jm->parent; body != MBS_WORLD && expect < 0;
                     body = m->bodies[body].parent) {
                    const mbs_joint_model *pj = &m->joints[m->bodies[body].joint];
                    if (pj->nv > 0) expect = pj->vadr + pj->nv - 1;
                }
            assert_int_equal(m->dof_parent[jm->vadr + i], expect);
            assert_true(m->dof_parent[jm->vadr + i] < jm->vadr + i);
        }
    }
    assert_int_equal(m->nq, nq);
    assert_int_equal(m->nv, nv);
    assert_int_equal(mbs_model_nq(m), nq);
    assert_int_equal(mbs_model_nv(m), nv);
}

/* Chain rev-pri-sph-fix from the world (bodies 1, 2, 3, 6) and a floater (4) carrying body
   5 on a universal joint. */
static mbs_builder *floater_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    int b1 = add_body(b, "b1"), b2 = add_body(b, "b2"), b3 = add_body(b, "b3");
    int fl = add_body(b, "floater"), b5 = add_body(b, NULL), b6 = add_body(b, "b6");
    assert_int_equal(add_joint(b, "rev", MBS_JOINT_REVOLUTE, 0, b1), 0);
    assert_int_equal(add_joint(b, "pri", MBS_JOINT_PRISMATIC, b1, b2), 1);
    assert_int_equal(add_joint(b, "sph", MBS_JOINT_SPHERICAL, b2, b3), 2);
    assert_int_equal(add_joint(b, "uni", MBS_JOINT_UNIVERSAL, fl, b5), 3);
    assert_int_equal(add_joint(b, "fix", MBS_JOINT_FIXED, b3, b6), 4);
    return b;
}

static void test_compile_mixed(void **state)
{
    (void)state;
    mbs_builder *b = floater_builder();
    mbs_model *m = compile_ok(b);
    assert_int_equal(mbs_model_nbody(m), 7);
    assert_int_equal(mbs_model_njoint(m), 6);
    assert_int_equal(mbs_model_ncon(m), 0);
    assert_int_equal(mbs_model_nforce(m), 0);
    assert_int_equal(mbs_model_nq(m), 1 + 1 + 4 + 7 + 2);
    assert_int_equal(mbs_model_nv(m), 1 + 1 + 3 + 6 + 2);
    /* the floater got free joint 5 (after the user's joints), named after it */
    assert_int_equal(mbs_model_find_joint(m, "free_floater"), 5);
    assert_int_equal(m->joints[5].automatic, 1);
    assert_int_equal(m->joints[5].type, MBS_JOINT_FREE);
    assert_int_equal(m->joints[5].parent, MBS_WORLD);
    assert_int_equal(m->joints[5].child, 4);
    assert_ptr_equal(m->joints[5].ops, &mbs_joint_free_quat_ops);
    assert_int_equal(m->joints[0].automatic, 0);
    assert_int_equal(mbs_model_joint_nq(m, 5), 7);
    assert_int_equal(mbs_model_joint_nv(m, 5), 6);
    assert_int_equal(mbs_model_joint_nq(m, 4), 0);
    /* breadth-first from the world (rev, pri, sph, fix), then from the floater's root */
    int order[6] = {0, 1, 2, 4, 5, 3};
    assert_memory_equal(m->tree, order, sizeof order);
    int qadr[6] = {0, 1, 2, 13, 6, 6}, vadr[6] = {0, 1, 2, 11, 5, 5};
    for (int j = 0; j < 6; ++j) {
        assert_int_equal(mbs_model_joint_qadr(m, j), qadr[j]);
        assert_int_equal(mbs_model_joint_vadr(m, j), vadr[j]);
        assert_int_equal(mbs_model_joint_is_cut(m, j), 0);
    }
    check_tree_invariants(m);
    /* bodies: world and tree links */
    assert_int_equal(m->bodies[0].parent, -1);
    assert_int_equal(m->bodies[0].joint, -1);
    assert_true(m->bodies[0].mass == 0.0);
    assert_int_equal(m->bodies[5].parent, 4);
    assert_int_equal(m->bodies[5].joint, 3);
    /* dof sparsity: pri's dof follows rev's; uni's follows the floater's last dof */
    assert_int_equal(m->dof_parent[1], 0);
    assert_int_equal(m->dof_parent[11], 10);
    assert_int_equal(m->dof_parent[5], -1);
    assert_int_equal(m->dof_joint[11], 3);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

static void test_model_queries(void **state)
{
    (void)state;
    mbs_builder *b = floater_builder();
    mbs_model *m = compile_ok(b);
    assert_int_equal(mbs_model_find_body(m, "world"), 0);
    assert_int_equal(mbs_model_find_body(m, "b3"), 3);
    assert_int_equal(mbs_model_find_body(m, "floater"), 4);
    assert_true(mbs_model_find_body(m, "nobody") < 0);
    assert_true(mbs_model_find_body(m, "") < 0);
    assert_true(mbs_model_find_body(m, NULL) < 0);
    assert_int_equal(mbs_model_find_joint(m, "sph"), 2);
    assert_true(mbs_model_find_joint(m, "free_5") < 0);
    assert_true(mbs_model_find_joint(m, NULL) < 0);
    assert_string_equal(mbs_model_body_name(m, 0), "world");
    assert_string_equal(mbs_model_body_name(m, 5), "");
    assert_string_equal(mbs_model_body_name(m, 6), "b6");
    assert_null(mbs_model_body_name(m, 7));
    assert_null(mbs_model_body_name(m, -1));
    assert_string_equal(mbs_model_joint_name(m, 3), "uni");
    assert_string_equal(mbs_model_joint_name(m, 5), "free_floater");
    assert_null(mbs_model_joint_name(m, 6));
    assert_null(mbs_model_joint_name(m, -1));
    /* bad ids */
    assert_int_equal(mbs_model_joint_qadr(m, 6), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_vadr(m, -1), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_nq(m, 6), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_nv(m, 99), MBS_ERR_ARG);
    assert_int_equal(mbs_model_joint_is_cut(m, 6), MBS_ERR_ARG);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Joint ids and breadth-first order differ: addresses follow the tree, not the ids. */
static void test_bfs_order(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    int A = add_body(b, "A"), B = add_body(b, "B"), C = add_body(b, "C");
    add_joint(b, "AC", MBS_JOINT_REVOLUTE, A, C);
    add_joint(b, "wB", MBS_JOINT_CYLINDRICAL, 0, B);
    add_joint(b, "wA", MBS_JOINT_PLANAR, 0, A);
    mbs_model *m = compile_ok(b);
    int order[3] = {1, 2, 0};
    assert_memory_equal(m->tree, order, sizeof order);
    assert_int_equal(mbs_model_joint_qadr(m, 1), 0);
    assert_int_equal(mbs_model_joint_qadr(m, 2), 2);
    assert_int_equal(mbs_model_joint_qadr(m, 0), 5);
    assert_int_equal(mbs_model_nq(m), 6);
    assert_int_equal(m->dof_parent[5], 4);
    assert_int_equal(m->dof_parent[2], -1);
    check_tree_invariants(m);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Bodies not connected to the world: roots are the bodies no joint enters; Cardan roots. */
static void test_roots(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    int b1 = add_body(b, "b1"), b2 = add_body(b, "b2");
    add_joint(b, "j", MBS_JOINT_REVOLUTE, b2, b1); /* b1 hangs below b2 */
    mbs_model *m = compile_ok(b);
    assert_int_equal(mbs_model_njoint(m), 2);
    assert_string_equal(mbs_model_joint_name(m, 1), "free_b2");
    assert_int_equal(m->joints[1].child, b2);
    assert_int_equal(mbs_model_nq(m), 8);
    assert_int_equal(mbs_model_nv(m), 7);
    assert_int_equal(mbs_model_joint_qadr(m, 0), 7);
    assert_int_equal(m->joints[1].auxadr, -1);
    assert_int_equal(m->naux, 0);
    check_tree_invariants(m);
    mbs_model_destroy(m);

    assert_int_equal(mbs_builder_set_root_rotation(b, MBS_ROT_CARDAN), MBS_OK);
    m = compile_ok(b);
    assert_int_equal(mbs_model_nq(m), 7);
    assert_int_equal(mbs_model_nv(m), 7);
    assert_ptr_equal(m->joints[1].ops, &mbs_joint_free_cardan_ops);
    assert_int_equal(m->joints[1].rotation, MBS_ROT_CARDAN);
    assert_int_equal(m->joints[1].auxadr, 0);
    assert_int_equal(m->naux, mbs_joint_free_cardan_ops.naux);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);

    /* a lone free body: quaternion 7/6, Cardan 6/6 */
    b = mbs_builder_create();
    add_body(b, NULL);
    m = compile_ok(b);
    assert_int_equal(mbs_model_nq(m), 7);
    assert_int_equal(mbs_model_nv(m), 6);
    assert_string_equal(mbs_model_joint_name(m, 0), "free_1");
    mbs_model_destroy(m);
    mbs_builder_set_root_rotation(b, MBS_ROT_CARDAN);
    m = compile_ok(b);
    assert_int_equal(mbs_model_nq(m), 6);
    assert_int_equal(mbs_model_nv(m), 6);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);

    /* an empty builder compiles to the world alone */
    b = mbs_builder_create();
    m = compile_ok(b);
    assert_int_equal(mbs_model_nbody(m), 1);
    assert_int_equal(mbs_model_njoint(m), 0);
    assert_int_equal(mbs_model_nq(m), 0);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Auxiliary slots (Cardan reference frames) and the joint model fields copied from defs. */
static void test_joint_model_fields(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    int a = add_body(b, "a"), c = add_body(b, "c"), e = add_body(b, "e");
    mbs_joint_def d = joint_def("s1", MBS_JOINT_SPHERICAL, 0, a);
    d.rotation = MBS_ROT_CARDAN;
    d.frame_parent.pos[0] = 0.5;
    d.state_priority = 3;
    assert_int_equal(mbs_add_joint(b, &d), 0);
    d = joint_def("s2", MBS_JOINT_SPHERICAL, a, c);
    d.rotation = MBS_ROT_CARDAN;
    rot_zyx(d.frame_child.rot, 0.1, 0.2, 0.3);
    assert_int_equal(mbs_add_joint(b, &d), 1);
    d = joint_def("p", MBS_JOINT_PRISMATIC, c, e);
    d.frame_child.pos[2] = -0.25;
    assert_int_equal(mbs_add_joint(b, &d), 2);
    mbs_model *m = compile_ok(b);
    int n9 = mbs_joint_spherical_cardan_ops.naux;
    assert_int_equal(m->joints[0].auxadr, 0);
    assert_int_equal(m->joints[1].auxadr, n9);
    assert_int_equal(m->joints[2].auxadr, -1);
    assert_int_equal(m->naux, 2 * n9);
    assert_int_equal(m->joints[0].frame_child_identity, 1);
    assert_int_equal(m->joints[1].frame_child_identity, 0);
    assert_int_equal(m->joints[2].frame_child_identity, 0);
    assert_true(m->joints[0].frame_parent.p[0] == 0.5);
    assert_memory_equal(m->joints[1].frame_child.R, b->joints[1].frame_child.rot, 9 * sizeof(double));
    assert_true(m->joints[2].frame_child.p[2] == -0.25);
    assert_int_equal(m->joints[0].state_priority, 3);
    assert_int_equal(m->joints[0].nq, 3);
    assert_ptr_equal(m->joints[0].ops, &mbs_joint_spherical_cardan_ops);
    assert_ptr_equal(m->joints[2].ops, &mbs_joint_prismatic_ops);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* Spatial inertia about the body origin (RBDA eq. 2.63). */
static void test_body_inertia(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_body_def d = body_def("arm");
    d.mass = 2.0;
    v3_set(d.com, 0.1, -0.2, 0.3);
    double Ic[9] = {0.02, 0.001, 0, 0.001, 0.03, -0.002, 0, -0.002, 0.04};
    memcpy(d.inertia, Ic, sizeof Ic);
    add_body(b, NULL);
    assert_int_equal(mbs_add_body(b, &d), 2);
    mbs_model *m = compile_ok(b);
    const mbs_body_model *bm = &m->bodies[2];
    assert_true(bm->mass == 2.0);
    assert_true(bm->rbi.m == 2.0);
    double h[3] = {0.2, -0.4, 0.6};
    test_assert_close(bm->rbi.h, h, 3, 1e-15, "h = m c");
    /* Ibar = Ic + m (|c|^2 1 - c c^T), |c|^2 = 0.14 */
    double Ib[9] = {0.02 + 2 * (0.14 - 0.01), 0.001 + 2 * 0.02,  0 - 2 * 0.03,
                    0.001 + 2 * 0.02,         0.03 + 2 * (0.14 - 0.04), -0.002 + 2 * 0.06,
                    0 - 2 * 0.03,             -0.002 + 2 * 0.06, 0.04 + 2 * (0.14 - 0.09)};
    test_assert_close(bm->rbi.I, Ib, 9, 1e-14, "Ibar");
    assert_memory_equal(bm->inertia, Ic, sizeof Ic);
    assert_memory_equal(bm->com, d.com, sizeof d.com);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ compile: topology */

/* Cut joint j: no coordinates, the given number of constraint rows. */
static void assert_cut(const mbs_model *m, int j, int rows)
{
    assert_int_equal(mbs_model_joint_is_cut(m, j), 1);
    assert_int_equal(mbs_model_joint_qadr(m, j), -1);
    assert_int_equal(mbs_model_joint_vadr(m, j), -1);
    assert_int_equal(mbs_model_joint_nq(m, j), 0);
    assert_int_equal(mbs_model_joint_nv(m, j), 0);
    assert_int_equal(m->joints[j].ncon, rows);
}

static void test_loops_accepted(void **state)
{
    (void)state;
    /* BFS reaches A and B from the world first; A->B closes the loop and becomes a cut */
    mbs_builder *b = mbs_builder_create();
    int A = add_body(b, "A"), B = add_body(b, "B");
    add_joint(b, "wA", MBS_JOINT_REVOLUTE, 0, A);
    add_joint(b, "AB", MBS_JOINT_REVOLUTE, A, B);
    add_joint(b, "wB", MBS_JOINT_SPHERICAL, 0, B);
    mbs_model *m = compile_ok(b);
    assert_cut(m, 1, 5);
    assert_int_equal(mbs_model_joint_is_cut(m, 0), 0);
    assert_int_equal(mbs_model_joint_is_cut(m, 2), 0);
    assert_int_equal(mbs_model_ncon(m), 5);
    assert_int_equal(mbs_model_nv(m), 4);
    assert_int_equal(mbs_model_njoint(m), 3);
    mbs_model_destroy(m);
    /* builder usable afterwards */
    assert_int_equal(add_body(b, "C"), 3);
    mbs_builder_destroy(b);

    /* a closed loop among bodies the world does not reach: A gets a free root, the joint
       back into A is the cut */
    b = mbs_builder_create();
    A = add_body(b, "A");
    B = add_body(b, "B");
    add_joint(b, NULL, MBS_JOINT_REVOLUTE, A, B);
    add_joint(b, NULL, MBS_JOINT_PRISMATIC, B, A);
    m = compile_ok(b);
    assert_cut(m, 1, 5);
    assert_int_equal(mbs_model_njoint(m), 3);
    assert_true(m->joints[2].automatic);
    assert_int_equal(m->joints[2].child, A);
    assert_int_equal(mbs_model_ncon(m), 5);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);

    /* the world as child: A gets a free root, the joint into the world is a cut */
    b = mbs_builder_create();
    A = add_body(b, "A");
    add_joint(b, "up", MBS_JOINT_REVOLUTE, A, 0);
    m = compile_ok(b);
    assert_cut(m, 0, 5);
    assert_int_equal(m->joints[0].child, MBS_WORLD);
    assert_true(m->joints[1].automatic);
    assert_int_equal(mbs_model_nv(m), 6);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

static void test_cuts_accepted(void **state)
{
    (void)state;
    /* cut-marked and distance joints: constraint rows, no coordinates */
    mbs_builder *b = mbs_builder_create();
    int A = add_body(b, "A"), B = add_body(b, "B");
    add_joint(b, "wA", MBS_JOINT_REVOLUTE, 0, A);
    add_joint(b, "wB", MBS_JOINT_REVOLUTE, 0, B);
    mbs_joint_def d = joint_def("c", MBS_JOINT_SPHERICAL, A, B);
    d.cut = 1;
    assert_int_equal(mbs_add_joint(b, &d), 2);
    mbs_model *m = compile_ok(b);
    assert_cut(m, 2, 3);
    assert_int_equal(mbs_model_ncon(m), 3);
    assert_int_equal(mbs_model_nv(m), 2);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    b = mbs_builder_create();
    A = add_body(b, "A");
    add_joint(b, "wA", MBS_JOINT_REVOLUTE, 0, A);
    d = joint_def("rod", MBS_JOINT_DISTANCE, 0, A);
    d.length = 1.0;
    assert_int_equal(mbs_add_joint(b, &d), 1);
    m = compile_ok(b);
    assert_cut(m, 1, 1);
    assert_true(m->joints[1].length == 1.0);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    /* a joint marked cut never becomes a tree edge: A then gets a free root, the cut stays */
    b = mbs_builder_create();
    A = add_body(b, "A");
    d = joint_def("onlycut", MBS_JOINT_REVOLUTE, 0, A);
    d.cut = 1;
    mbs_add_joint(b, &d);
    m = compile_ok(b);
    assert_cut(m, 0, 5);
    assert_true(m->joints[1].automatic);
    assert_int_equal(mbs_model_ncon(m), 5);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

static void test_fixed_cycles(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    int A = add_body(b, "A"), B = add_body(b, "B");
    add_joint(b, "f0", MBS_JOINT_FIXED, 0, A);
    add_joint(b, "f1", MBS_JOINT_FIXED, A, B);
    add_joint(b, "f2", MBS_JOINT_FIXED, 0, B);
    compile_fails(b, MBS_ERR_TOPOLOGY,
                  "fixed joints \"f0\" (id 0), \"f1\" (id 1), \"f2\" (id 2) form a closed loop",
                  NULL);
    mbs_builder_destroy(b);

    /* a rigid triangle hanging from a revolute: only the cycle's joints are named; two
       parallel fixed joints are a cycle too */
    b = mbs_builder_create();
    A = add_body(b, "A");
    B = add_body(b, "B");
    int C = add_body(b, "C"), D = add_body(b, "D");
    add_joint(b, "r", MBS_JOINT_REVOLUTE, 0, A);
    add_joint(b, NULL, MBS_JOINT_FIXED, A, B);
    add_joint(b, "bc", MBS_JOINT_FIXED, B, C);
    add_joint(b, "dc", MBS_JOINT_FIXED, D, C);
    add_joint(b, "ad", MBS_JOINT_FIXED, A, D);
    compile_fails(b, MBS_ERR_TOPOLOGY, "fixed joints #1, \"bc\" (id 2), \"dc\" (id 3), \"ad\" (id 4) "
                  "form a closed loop", NULL);
    assert_null(strstr(mbs_builder_error(b), "\"r\""));
    mbs_builder_destroy(b);
    b = mbs_builder_create();
    A = add_body(b, "A");
    B = add_body(b, "B");
    add_joint(b, "x", MBS_JOINT_FIXED, A, B);
    mbs_joint_def d = joint_def("y", MBS_JOINT_FIXED, B, A);
    d.cut = 1;
    mbs_add_joint(b, &d);
    compile_fails(b, MBS_ERR_TOPOLOGY, "fixed joints \"x\" (id 0), \"y\" (id 1) form a closed loop",
                  NULL);
    mbs_builder_destroy(b);

    /* a cycle with one revolute is an ordinary loop, not a rigid one: f1 becomes a cut */
    b = mbs_builder_create();
    A = add_body(b, "A");
    B = add_body(b, "B");
    add_joint(b, "f0", MBS_JOINT_FIXED, 0, A);
    add_joint(b, "f1", MBS_JOINT_FIXED, A, B);
    add_joint(b, "r2", MBS_JOINT_REVOLUTE, 0, B);
    mbs_model *m = compile_ok(b);
    assert_cut(m, 1, 6);
    assert_int_equal(mbs_model_ncon(m), 6);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ compile: forces */

/* Planar (world-A), spherical (A-B) and revolute (B-C) joints. */
static mbs_builder *force_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    int A = add_body(b, "A"), B = add_body(b, "B"), C = add_body(b, "C");
    add_joint(b, "pl", MBS_JOINT_PLANAR, 0, A);
    add_joint(b, "sp", MBS_JOINT_SPHERICAL, A, B);
    add_joint(b, "rv", MBS_JOINT_REVOLUTE, B, C);
    return b;
}

/* Drop the last force element again (the test owns the builder internals). */
static void pop_force(mbs_builder *b)
{
    b->nforce--;
    free(b->forces[b->nforce].name);
}

static void test_forces_compile(void **state)
{
    (void)state;
    mbs_builder *b = force_builder();
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.name = "spring";
    sd.body_a = 1;
    sd.body_b = 3;
    sd.stiffness = 10.0;
    assert_int_equal(mbs_add_spring_damper(b, &sd), 0);
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 2, 1.0, 0.1, 0.0), 1);
    assert_int_equal(mbs_add_joint_spring_damper(b, 2, 0, 1.0, 0.1, 0.5), 2);
    mbs_model *m = compile_ok(b);
    assert_int_equal(mbs_model_nforce(m), 3);
    assert_string_equal(m->forces[0].name, "spring");
    assert_true(m->forces[0].name != b->forces[0].name);
    assert_ptr_equal(m->forces[0].ops, &mbs_force_spring_damper_ops);
    assert_true(m->forces[0].stiffness == 10.0);
    assert_int_equal(m->forces[1].qindex, 2);
    assert_int_equal(m->forces[1].vindex, 2);
    assert_int_equal(m->forces[2].qindex, 3 + 4);
    assert_int_equal(m->forces[2].vindex, 3 + 3);
    assert_true(m->forces[2].rest == 0.5);
    assert_int_equal(b->forces[1].qindex, -1); /* the builder is unchanged */
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

static void test_forces_bad(void **state)
{
    (void)state;
    mbs_builder *b = force_builder();
    /* dof out of range, spherical joint: named errors at compile */
    assert_int_equal(mbs_add_joint_spring_damper(b, 2, 1, 1.0, 0.0, 0.0), 0);
    compile_fails(b, MBS_ERR_ARG, "joint spring-damper #0: dof 1 out of range",
                  "joint \"rv\" (id 2) has 1");
    pop_force(b);
    assert_int_equal(mbs_add_joint_spring_damper(b, 1, 0, 1.0, 0.0, 0.0), 0);
    compile_fails(b, MBS_ERR_ARG, "joint spring-damper #0: joint \"sp\" (id 1) is spherical",
                  NULL);
    pop_force(b);
    /* elements pushed directly with bad references are caught at compile */
    mbs_force_model f;
    memset(&f, 0, sizeof f);
    f.ops = &mbs_force_spring_damper_ops;
    f.name = mbs_strdup_name("wild");
    f.body_b = 9;
    assert_int_equal(mbs_builder_push_force(b, &f), 0);
    compile_fails(b, MBS_ERR_ARG, "spring-damper \"wild\" (id 0): body 0 or 9 does not exist",
                  NULL);
    pop_force(b);
    f.ops = &mbs_force_joint_spring_damper_ops;
    f.name = mbs_strdup_name(NULL);
    f.joint = 17;
    assert_int_equal(mbs_builder_push_force(b, &f), 0);
    compile_fails(b, MBS_ERR_ARG, "joint spring-damper #0: unknown joint 17", NULL);
    pop_force(b);
    mbs_model_destroy(compile_ok(b));
    mbs_builder_destroy(b);

    /* on a loop-closing joint: reported as a cut joint */
    b = mbs_builder_create();
    int A = add_body(b, "A"), B = add_body(b, "B");
    add_joint(b, "wA", MBS_JOINT_REVOLUTE, 0, A);
    add_joint(b, "wB", MBS_JOINT_REVOLUTE, 0, B);
    add_joint(b, "AB", MBS_JOINT_REVOLUTE, A, B);
    assert_int_equal(mbs_add_joint_spring_damper(b, 2, 0, 1.0, 0.0, 0.0), 0);
    compile_fails(b, MBS_ERR_ARG, "joint spring-damper #0: joint \"AB\" (id 2) is a cut joint",
                  NULL);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ sharing and reuse */

/* Field-by-field equality of two models. */
static void assert_models_equal(const mbs_model *a, const mbs_model *b)
{
    assert_int_equal(a->nbody, b->nbody);
    assert_int_equal(a->njoint, b->njoint);
    assert_int_equal(a->nq, b->nq);
    assert_int_equal(a->nv, b->nv);
    assert_int_equal(a->ncon, b->ncon);
    assert_int_equal(a->naux, b->naux);
    assert_int_equal(a->nforce, b->nforce);
    assert_int_equal(a->ntree, b->ntree);
    for (int i = 0; i < a->nbody; ++i) {
        const mbs_body_model *x = &a->bodies[i], *y = &b->bodies[i];
        assert_string_equal(x->name, y->name);
        assert_true(x->mass == y->mass);
        assert_memory_equal(x->com, y->com, sizeof x->com);
        assert_memory_equal(x->inertia, y->inertia, sizeof x->inertia);
        assert_true(x->rbi.m == y->rbi.m);
        assert_memory_equal(x->rbi.h, y->rbi.h, sizeof x->rbi.h);
        assert_memory_equal(x->rbi.I, y->rbi.I, sizeof x->rbi.I);
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->joint, y->joint);
    }
    for (int i = 0; i < a->njoint; ++i) {
        mbs_joint_model x = a->joints[i], y = b->joints[i];
        assert_string_equal(x.name, y.name);
        assert_ptr_equal(x.ops, y.ops);
        assert_memory_equal(x.frame_parent.R, y.frame_parent.R, sizeof x.frame_parent.R);
        assert_memory_equal(x.frame_child.p, y.frame_child.p, sizeof x.frame_child.p);
        assert_memory_equal(x.axis3, y.axis3, sizeof x.axis3);
        int xi[] = {x.type, x.rotation, x.parent, x.child, x.cut, x.automatic, x.nq, x.nv,
                    x.qadr, x.vadr, x.auxadr, x.frame_child_identity};
        int yi[] = {y.type, y.rotation, y.parent, y.child, y.cut, y.automatic, y.nq, y.nv,
                    y.qadr, y.vadr, y.auxadr, y.frame_child_identity};
        assert_memory_equal(xi, yi, sizeof xi);
    }
    assert_memory_equal(a->tree, b->tree, (size_t)a->ntree * sizeof(int));
    assert_memory_equal(a->dof_parent, b->dof_parent, (size_t)a->nv * sizeof(int));
    assert_memory_equal(a->dof_joint, b->dof_joint, (size_t)a->nv * sizeof(int));
    for (int i = 0; i < a->nforce; ++i) {
        assert_string_equal(a->forces[i].name, b->forces[i].name);
        assert_int_equal(a->forces[i].vindex, b->forces[i].vindex);
    }
}

/* A builder with a bit of everything (no loops). */
static mbs_builder *mixed_builder(void)
{
    mbs_builder *b = mbs_builder_create();
    int ids[9];
    for (int i = 0; i < 9; ++i) {
        char name[8];
        snprintf(name, sizeof name, "b%d", i + 1);
        ids[i] = add_body(b, name);
    }
    add_joint(b, "rev", MBS_JOINT_REVOLUTE, 0, ids[0]);
    add_joint(b, "pri", MBS_JOINT_PRISMATIC, ids[0], ids[1]);
    add_joint(b, "cyl", MBS_JOINT_CYLINDRICAL, ids[1], ids[2]);
    mbs_joint_def d = joint_def("uni", MBS_JOINT_UNIVERSAL, ids[2], ids[3]);
    v3_set(d.axis, 1, 0, 0);
    v3_set(d.axis2, 0, 1, 0);
    mbs_add_joint(b, &d);
    add_joint(b, "sph", MBS_JOINT_SPHERICAL, ids[0], ids[4]);
    add_joint(b, "pla", MBS_JOINT_PLANAR, ids[4], ids[5]);
    add_joint(b, "fix", MBS_JOINT_FIXED, ids[5], ids[6]);
    d = joint_def("car", MBS_JOINT_SPHERICAL, ids[6], ids[7]);
    d.rotation = MBS_ROT_CARDAN;
    mbs_add_joint(b, &d);
    /* ids[8] floats: automatic quaternion free joint */
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, 2.0, 0.1, 0.0), 0);
    return b;
}

static void test_shared_and_reuse(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    mbs_builder_destroy(b);
    b = mixed_builder();
    mbs_model *m1 = compile_ok(b), *m2 = compile_ok(b);
    assert_true(m1 != m2);
    assert_models_equal(m1, m2);
    assert_int_equal(mbs_model_nq(m1), 1 + 1 + 2 + 2 + 4 + 3 + 0 + 3 + 7);
    assert_int_equal(mbs_model_nv(m1), 1 + 1 + 2 + 2 + 3 + 3 + 0 + 3 + 6);
    check_tree_invariants(m1);
    assert_string_equal(mbs_builder_error(b), "");
    mbs_model_destroy(m2);
    /* add more and compile again: the first model is unaffected */
    int nb = add_body(b, "late");
    add_joint(b, "late_j", MBS_JOINT_PRISMATIC, 9, nb);
    m2 = compile_ok(b);
    assert_int_equal(mbs_model_nbody(m2), mbs_model_nbody(m1) + 1);
    assert_int_equal(mbs_model_njoint(m2), mbs_model_njoint(m1) + 1);
    assert_int_equal(mbs_model_nq(m2), mbs_model_nq(m1) + 1);
    /* the late joint (id 8) comes before the automatic one (id 9) */
    assert_int_equal(mbs_model_find_joint(m2, "late_j"), 8);
    assert_int_equal(mbs_model_find_joint(m2, "free_b9"), 9);
    assert_int_equal(mbs_model_find_joint(m1, "free_b9"), 8);
    check_tree_invariants(m2);
    mbs_model_destroy(m2);
    check_tree_invariants(m1);
    mbs_model_destroy(m1);
    mbs_builder_destroy(b);
}

/* A long chain: breadth-first depth and the dof pattern stay linear. */
static void test_long_chain(void **state)
{
    (void)state;
    enum { N = 2000 };
    mbs_builder *b = mbs_builder_create();
    int prev = 0;
    for (int i = 0; i < N; ++i) {
        int id = add_body(b, NULL);
        assert_int_equal(id, i + 1);
        add_joint(b, NULL, i % 3 == 2 ? MBS_JOINT_FIXED : MBS_JOINT_REVOLUTE, prev, id);
        prev = id;
    }
    mbs_model *m = compile_ok(b);
    int nv = N - N / 3;
    assert_int_equal(mbs_model_nv(m), nv);
    for (int k = 0; k < nv; ++k) assert_int_equal(m->dof_parent[k], k - 1);
    check_tree_invariants(m);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ q-manifold */

static void test_qmanifold_roundtrip(void **state)
{
    (void)state;
    mbs_builder *b = mixed_builder();
    mbs_model *m = compile_ok(b);
    int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double q0[32], q1[32], q2[32], v[32], v2[32];
    assert_true(nq <= 32 && nv <= 32);
    /* neutral: zero except the unit quaternions (scalar first) */
    for (int i = 0; i < nq; ++i) q0[i] = 7.0;
    assert_int_equal(mbs_neutral_q(m, q0), MBS_OK);
    int sph = mbs_model_find_joint(m, "sph"), fr = mbs_model_find_joint(m, "free_b9");
    int qs = mbs_model_joint_qadr(m, sph), qf = mbs_model_joint_qadr(m, fr) + 3;
    for (int i = 0; i < nq; ++i) {
        double expect = (i == qs || i == qf) ? 1.0 : 0.0;
        assert_true(q0[i] == expect);
    }
    /* integrate then difference recovers v; integrate(q0, difference(q0, q1), 1) == q1 */
    test_rng r;
    test_rng_seed(&r, 42);
    for (int trial = 0; trial < 20; ++trial) {
        for (int i = 0; i < nv; ++i) v[i] = test_rng_uniform(&r, -0.5, 0.5);
        assert_int_equal(mbs_integrate_q(m, q0, v, 0.3, q1), MBS_OK);
        for (int i = 0; i < nv; ++i) v[i] = test_rng_uniform(&r, -0.5, 0.5);
        assert_int_equal(mbs_integrate_q(m, q1, v, 1.0, q2), MBS_OK);
        assert_int_equal(mbs_difference_q(m, q1, q2, v2), MBS_OK);
        test_assert_close(v2, v, nv, 1e-12, "difference(q1, q1 + v) == v");
        assert_int_equal(mbs_integrate_q(m, q1, v2, 1.0, q0), MBS_OK);
        test_assert_close(q0, q2, nq, 1e-12, "integrate(q1, difference(q1, q2), 1) == q2");
        memcpy(q0, q1, sizeof q0);
    }
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* A model whose coordinates are all Euclidean takes mbs_integrate_q's one loop (m->q_flat):
   bitwise the per-joint ops' result, the same statuses for non-finite inputs and overflow,
   q_out untouched then; a model with quaternions does not take it. */
static void test_qmanifold_flat(void **state)
{
    (void)state;
    mbs_builder *b = mbs_builder_create();
    const mbs_joint_type types[4] = {MBS_JOINT_REVOLUTE, MBS_JOINT_PRISMATIC, MBS_JOINT_PLANAR,
                                     MBS_JOINT_REVOLUTE};
    for (int i = 0; i < 4; ++i) {
        char name[8];
        snprintf(name, sizeof name, "b%d", i);
        const int body = add_body(b, name);
        snprintf(name, sizeof name, "j%d", i);
        add_joint(b, name, types[i], i == 0 ? MBS_WORLD : body - 1, body);
    }
    mbs_model *m = compile_ok(b);
    assert_int_equal(m->q_flat, 1);
    const int nq = mbs_model_nq(m);
    double q[6], v[6], qo[6], qj[6];
    assert_int_equal(nq, 6);
    test_rng r;
    test_rng_seed(&r, 3);
    for (int i = 0; i < nq; ++i) q[i] = test_rng_uniform(&r, -2, 2), v[i] = test_rng_uniform(&r, -2, 2);
    assert_int_equal(mbs_integrate_q(m, q, v, 0.37, qo), MBS_OK);
    for (int t = 0; t < m->ntree; ++t) { /* each joint's own integrate */
        const mbs_joint_model *j = &m->joints[m->tree[t]];
        j->ops->integrate(j, q + j->qadr, v + j->vadr, 0.37, qj + j->qadr);
    }
    assert_memory_equal(qo, qj, sizeof qo);
    memcpy(qj, q, sizeof q); /* in place */
    assert_int_equal(mbs_integrate_q(m, qj, v, 0.37, qj), MBS_OK);
    assert_memory_equal(qo, qj, sizeof qo);
    v[3] = NAN;
    assert_int_equal(mbs_integrate_q(m, q, v, 0.37, qo), MBS_ERR_ARG);
    assert_memory_equal(qo, qj, sizeof qo);
    v[3] = 1e308, q[3] = 1e308;
    assert_int_equal(mbs_integrate_q(m, q, v, 10.0, qo), MBS_ERR_NONFINITE);
    assert_memory_equal(qo, qj, sizeof qo);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    mbs_model *mixed = compile_ok(b = mixed_builder()); /* quaternions: per joint */
    assert_int_equal(mixed->q_flat, 0);
    mbs_model_destroy(mixed);
    mbs_builder_destroy(b);
}

static void test_qmanifold_normalize(void **state)
{
    (void)state;
    mbs_builder *b = mixed_builder();
    mbs_model *m = compile_ok(b);
    int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double q0[32], q1[32], q2[32], v[32], v2[32];
    int qs = mbs_model_joint_qadr(m, mbs_model_find_joint(m, "sph"));
    int qf = mbs_model_joint_qadr(m, mbs_model_find_joint(m, "free_b9")) + 3;
    test_rng r;
    test_rng_seed(&r, 7);
    for (int i = 0; i < nv; ++i) v[i] = test_rng_uniform(&r, -1.0, 1.0);
    assert_int_equal(mbs_neutral_q(m, q0), MBS_OK);
    assert_int_equal(mbs_integrate_q(m, q0, v, 0.5, q1), MBS_OK);
    /* scalar joints integrate linearly at their address; aliasing q_out == q works */
    int rev = mbs_model_find_joint(m, "rev"), pla = mbs_model_find_joint(m, "pla");
    memcpy(q2, q1, sizeof q2);
    assert_int_equal(mbs_integrate_q(m, q2, v, 0.25, q2), MBS_OK);
    assert_true(fabs(q2[mbs_model_joint_qadr(m, rev)] -
                     (q1[mbs_model_joint_qadr(m, rev)] + 0.25 * v[mbs_model_joint_vadr(m, rev)])) < 1e-15);
    assert_true(fabs(q2[mbs_model_joint_qadr(m, pla) + 2] -
                     (q1[mbs_model_joint_qadr(m, pla) + 2] +
                      0.25 * v[mbs_model_joint_vadr(m, pla) + 2])) < 1e-15);
    /* quaternions stay unit; normalize restores a scaled one */
    double nrm = 0.0;
    for (int k = 0; k < 4; ++k) nrm += q2[qf + k] * q2[qf + k];
    assert_true(fabs(nrm - 1.0) < 1e-12);
    for (int k = 0; k < 4; ++k) q2[qs + k] *= 3.0;
    memcpy(q1, q2, sizeof q1);
    assert_int_equal(mbs_normalize_q(m, q2), MBS_OK);
    for (int k = 0; k < 4; ++k) assert_true(fabs(q2[qs + k] - q1[qs + k] / 3.0) < 1e-14);
    for (int i = 0; i < nq; ++i)
        if (i < qs || i >= qs + 4) assert_true(fabs(q2[i] - q1[i]) <= 1e-15);
    /* non-finite inputs */
    memcpy(q1, q2, sizeof q1);
    q1[1] = NAN;
    assert_int_equal(mbs_integrate_q(m, q1, v, 0.1, q0), MBS_ERR_ARG);
    assert_int_equal(mbs_difference_q(m, q2, q1, v2), MBS_ERR_ARG);
    assert_int_equal(mbs_difference_q(m, q1, q2, v2), MBS_ERR_ARG);
    assert_int_equal(mbs_normalize_q(m, q1), MBS_ERR_ARG);
    assert_true(isnan(q1[1])); /* left as it was */
    v[nv - 1] = INFINITY;
    assert_int_equal(mbs_integrate_q(m, q2, v, 0.1, q0), MBS_ERR_ARG);
    v[nv - 1] = 0.0;
    assert_int_equal(mbs_integrate_q(m, q2, v, NAN, q0), MBS_ERR_ARG);
    assert_int_equal(mbs_integrate_q(m, q2, v, INFINITY, q0), MBS_ERR_ARG);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
}

/* ------------------------------------------------------------------ out of memory */

#if HAVE_ALLOC_HOOK
/* Each allocation of mbs_add_body / mbs_add_joint / push_force failing is MBS_ERR_NOMEM
   with the builder unchanged; builder creation failing returns NULL. */
static void test_nomem_builder(void **state)
{
    (void)state;
    if (!hook_active()) skip();
    long live0 = g_live;
    arm(0);
    mbs_builder *b = mbs_builder_create();
    disarm();
    assert_null(b);
    assert_int_equal(g_live, live0);
    b = mbs_builder_create();
    mbs_body_def bd = body_def("arm");
    for (long k = 0;; ++k) {
        long live = g_live;
        arm(k);
        int id = mbs_add_body(b, &bd);
        disarm();
        if (!g_failed) {
            assert_int_equal(id, 1);
            break;
        }
        assert_int_equal(id, MBS_ERR_NOMEM);
        assert_msg(b, "body \"arm\" (id 1): out of memory", NULL);
        assert_int_equal(b->nbody, 0);
        assert_true(g_live - live <= 1); /* at most the grown (owned) array */
    }
    mbs_joint_def jd = joint_def("j", MBS_JOINT_REVOLUTE, 0, 1);
    for (long k = 0;; ++k) {
        long live = g_live;
        arm(k);
        int id = mbs_add_joint(b, &jd);
        disarm();
        if (!g_failed) {
            assert_int_equal(id, 0);
            break;
        }
        assert_int_equal(id, MBS_ERR_NOMEM);
        assert_msg(b, "joint \"j\" (id 0): out of memory", NULL);
        assert_int_equal(b->njoint, 0);
        assert_true(g_live - live <= 1);
    }
    mbs_force_model f;
    memset(&f, 0, sizeof f);
    f.name = mbs_strdup_name("el");
    arm(0);
    assert_int_equal(mbs_builder_push_force(b, &f), MBS_ERR_NOMEM);
    disarm();
    assert_msg(b, "force element \"el\" (id 0): out of memory", NULL);
    assert_int_equal(b->nforce, 0);
    assert_int_equal(mbs_builder_push_force(b, &f), 0); /* now owned by the builder */
    mbs_builder_destroy(b);
    assert_int_equal(g_live, live0); /* every failure path freed what it took */
}

/* Compile with each of its allocations failing in turn: MBS_ERR_NOMEM, *out untouched,
   no leak; the compile that finally succeeds equals a normal one. */
static void test_nomem_compile(void **state)
{
    (void)state;
    if (!hook_active()) skip();
    mbs_builder *b = mixed_builder();
    mbs_model *ref = compile_ok(b);
    long k = 0;
    for (;; ++k) {
        mbs_model *sentinel = (mbs_model *)(void *)&sentinel, *m = sentinel;
        long live = g_live;
        arm(k);
        int st = mbs_compile(b, &m);
        disarm();
        if (!g_failed) {
            assert_int_equal(st, MBS_OK);
            assert_models_equal(m, ref);
            mbs_model_destroy(m);
            assert_int_equal(g_live, live);
            break;
        }
        assert_int_equal(st, MBS_ERR_NOMEM);
        assert_ptr_equal(m, sentinel);
        assert_msg(b, "compile: out of memory", NULL);
        assert_int_equal(g_live, live);
    }
    assert_true(k >= 10); /* the sweep went through the model's many allocations */
    /* a loop error path with its allocations failing still reports NOMEM or TOPOLOGY */
    mbs_builder *c = mbs_builder_create();
    int A = add_body(c, "A"), B = add_body(c, "B");
    add_joint(c, "f0", MBS_JOINT_FIXED, 0, A);
    add_joint(c, "f1", MBS_JOINT_FIXED, A, B);
    add_joint(c, "f2", MBS_JOINT_FIXED, B, 0);
    for (k = 0;; ++k) {
        mbs_model *m = NULL;
        long live = g_live;
        arm(k);
        int st = mbs_compile(c, &m);
        disarm();
        assert_int_equal(g_live, live);
        assert_null(m);
        if (!g_failed) {
            assert_int_equal(st, MBS_ERR_TOPOLOGY);
            break;
        }
        assert_int_equal(st, MBS_ERR_NOMEM);
    }
    mbs_builder_destroy(c);
    mbs_model_destroy(ref);
    mbs_builder_destroy(b);
}
#else
static void test_nomem_builder(void **state)
{
    (void)state;
    skip(); /* needs glibc's replaceable malloc */
}
static void test_nomem_compile(void **state)
{
    (void)state;
    skip();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_errorf_finite_labels),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_null_builder_args),
        cmocka_unit_test(test_null_model_args),
        cmocka_unit_test(test_first_failure_sticky),
        cmocka_unit_test(test_gravity_setters),
        cmocka_unit_test(test_bad_bodies),
        cmocka_unit_test(test_negative_moment),
        cmocka_unit_test(test_bad_joints),
        cmocka_unit_test(test_joint_normalisation),
        cmocka_unit_test(test_compile_mixed),
        cmocka_unit_test(test_model_queries),
        cmocka_unit_test(test_bfs_order),
        cmocka_unit_test(test_roots),
        cmocka_unit_test(test_joint_model_fields),
        cmocka_unit_test(test_body_inertia),
        cmocka_unit_test(test_loops_accepted),
        cmocka_unit_test(test_cuts_accepted),
        cmocka_unit_test(test_fixed_cycles),
        cmocka_unit_test(test_forces_compile),
        cmocka_unit_test(test_forces_bad),
        cmocka_unit_test(test_shared_and_reuse),
        cmocka_unit_test(test_long_chain),
        cmocka_unit_test(test_qmanifold_roundtrip),
        cmocka_unit_test(test_qmanifold_normalize),
        cmocka_unit_test(test_qmanifold_flat),
        cmocka_unit_test(test_nomem_builder),
        cmocka_unit_test(test_nomem_compile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
