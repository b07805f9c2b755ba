#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void test_rng_seed(test_rng *r, uint64_t seed) { r->s = seed * 2654435761u + 88172645463325252ull; }

static uint64_t rng_next(test_rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

double test_rng_uniform(test_rng *r, double lo, double hi)
{
    double u = (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return lo + (hi - lo) * u;
}

int test_rng_int(test_rng *r, int lo, int hi_inclusive)
{
    return lo + (int)(rng_next(r) % (uint64_t)(hi_inclusive - lo + 1));
}

double test_rel_diff(const double *a, const double *b, int n)
{
    double scale = 0.0, worst = 0.0;
    for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(b[i]));
    for (int i = 0; i < n; ++i) worst = fmax(worst, fabs(a[i] - b[i]));
    return worst / (1.0 + scale);
}

void test_assert_close(const double *a, const double *b, int n, double tol, const char *what)
{
    double scale = 0.0;
    for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(b[i]));
    for (int i = 0; i < n; ++i) {
        double err = fabs(a[i] - b[i]);
        if (!(err <= tol * (1.0 + scale))) {
            print_error("%s: index %d: %.17g vs %.17g (err %.3g, tol %.3g)\n", what, i, a[i],
                        b[i], err, tol * (1.0 + scale));
            fail();
        }
    }
}

const char *test_refdata_dir(void)
{
    const char *dir = getenv("MBS_REFDATA");
    struct stat st;
    if (dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return dir;
    return NULL;
}

/* ------------------------------------------------------------ random models */
static void rng_unit(test_rng *r, double u[3])
{
    double n;
    do {
        for (int i = 0; i < 3; ++i) u[i] = test_rng_uniform(r, -1.0, 1.0);
        n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    } while (n < 0.1 || n > 1.0);
    for (int i = 0; i < 3; ++i) u[i] /= n;
}

void test_random_rotation(test_rng *r, double R[9])
{
    double u[3];
    rng_unit(r, u);
    const double a = test_rng_uniform(r, -3.0, 3.0);
    const double c = cos(a), s = sin(a), t = 1.0 - c;
    R[0] = t * u[0] * u[0] + c;        R[1] = t * u[0] * u[1] - s * u[2]; R[2] = t * u[0] * u[2] + s * u[1];
    R[3] = t * u[0] * u[1] + s * u[2]; R[4] = t * u[1] * u[1] + c;        R[5] = t * u[1] * u[2] - s * u[0];
    R[6] = t * u[0] * u[2] - s * u[1]; R[7] = t * u[1] * u[2] + s * u[0]; R[8] = t * u[2] * u[2] + c;
}

void test_random_inertia(test_rng *r, double lo, double hi, double I[9])
{
    /* second moments a, b, c > 0 give principal moments b+c, a+c, a+b (triangle holds) */
    double mom[3], R[9];
    const double a = test_rng_uniform(r, lo, hi), b = test_rng_uniform(r, lo, hi),
                 c = test_rng_uniform(r, lo, hi);
    mom[0] = b + c;
    mom[1] = a + c;
    mom[2] = a + b;
    test_random_rotation(r, R);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k) s += R[3 * i + k] * mom[k] * R[3 * j + k];
            I[3 * i + j] = s;
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < i; ++j) I[3 * i + j] = I[3 * j + i]; /* exactly symmetric */
}

test_tree_opts test_default_tree_opts(int nbody)
{
    test_tree_opts o;
    o.nbody = nbody;
    o.gravity = 1;
    o.fixed_joints = 1;
    o.roots = 1;
    o.springs = 0;
    o.quaternions_only = 0;
    return o;
}

static void random_frame(test_rng *r, mbs_frame *f)
{
    for (int i = 0; i < 3; ++i) f->pos[i] = test_rng_uniform(r, -0.5, 0.5);
    test_random_rotation(r, f->rot);
}

/* The k-th joint kind in turn: type and rotation option. */
static void joint_kind(int k, mbs_joint_type *type, mbs_rotation *rot)
{
    static const mbs_joint_type types[] = {
        MBS_JOINT_REVOLUTE, MBS_JOINT_PRISMATIC, MBS_JOINT_SPHERICAL, MBS_JOINT_CYLINDRICAL,
        MBS_JOINT_UNIVERSAL, MBS_JOINT_FREE, MBS_JOINT_PLANAR, MBS_JOINT_SPHERICAL,
        MBS_JOINT_FREE, MBS_JOINT_FIXED, MBS_JOINT_REVOLUTE};
    static const mbs_rotation rots[] = {
        MBS_ROT_QUATERNION, MBS_ROT_QUATERNION, MBS_ROT_QUATERNION, MBS_ROT_QUATERNION,
        MBS_ROT_QUATERNION, MBS_ROT_QUATERNION, MBS_ROT_QUATERNION, MBS_ROT_CARDAN,
        MBS_ROT_CARDAN, MBS_ROT_QUATERNION, MBS_ROT_QUATERNION};
    const int n = (int)(sizeof types / sizeof types[0]);
    *type = types[k % n];
    *rot = rots[k % n];
}

static int add_random_body(test_rng *r, mbs_builder *b, int i)
{
    char name[16];
    snprintf(name, sizeof name, "b%d", i);
    mbs_body_def bd = mbs_default_body_def();
    bd.name = name;
    bd.mass = test_rng_uniform(r, 0.5, 2.0);
    for (int k = 0; k < 3; ++k) bd.com[k] = test_rng_uniform(r, -0.3, 0.3);
    test_random_inertia(r, 0.01, 0.1, bd.inertia);
    return mbs_add_body(b, &bd);
}

static int add_random_joint(test_rng *r, mbs_builder *b, int parent, int child, int k,
                            const test_tree_opts *o)
{
    const int allow_fixed = o->fixed_joints;
    mbs_joint_def jd;
    mbs_joint_type type;
    mbs_rotation rot;
    joint_kind(k, &type, &rot);
    if (type == MBS_JOINT_FIXED && !allow_fixed) type = MBS_JOINT_REVOLUTE;
    jd = mbs_default_joint_def(type);
    jd.rotation = o->quaternions_only ? MBS_ROT_QUATERNION : rot;
    jd.parent = parent;
    jd.child = child;
    random_frame(r, &jd.frame_parent);
    random_frame(r, &jd.frame_child);
    rng_unit(r, jd.axis);
    rng_unit(r, jd.axis2);
    return mbs_add_joint(b, &jd);
}

/* A joint spring(-damper) on a random dof of joint j (the k-th kind) when its q and v
   have the same meaning (revolute, prismatic, cylindrical, universal, planar). */
static void add_joint_spring(test_rng *r, mbs_builder *b, int j, int k, int damped)
{
    mbs_joint_type type;
    mbs_rotation rot;
    joint_kind(k, &type, &rot);
    int nv = 0;
    if (type == MBS_JOINT_REVOLUTE || type == MBS_JOINT_PRISMATIC) nv = 1;
    if (type == MBS_JOINT_CYLINDRICAL || type == MBS_JOINT_UNIVERSAL) nv = 2;
    if (type == MBS_JOINT_PLANAR) nv = 3;
    if (nv == 0) return;
    const double stiff = test_rng_uniform(r, 1.0, 20.0), rest = test_rng_uniform(r, -0.5, 0.5);
    const double damp = damped ? test_rng_uniform(r, 0.1, 2.0) : 0.0;
    assert_true(mbs_add_joint_spring_damper(b, j, test_rng_int(r, 0, nv - 1), stiff, damp, rest) >= 0);
}

/* A line spring(-damper) between random points of two random different bodies. */
static void add_line_spring(test_rng *r, mbs_builder *b, int n, int damped)
{
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = test_rng_int(r, 0, n);
    sd.body_b = (sd.body_a + test_rng_int(r, 1, n)) % (n + 1);
    for (int k = 0; k < 3; ++k)
        sd.point_a[k] = test_rng_uniform(r, -0.3, 0.3), sd.point_b[k] = test_rng_uniform(r, -0.3, 0.3);
    sd.stiffness = test_rng_uniform(r, 1.0, 30.0);
    sd.damping = damped ? test_rng_uniform(r, 0.1, 2.0) : 0.0;
    sd.rest_length = test_rng_uniform(r, 0.0, 0.5);
    assert_true(mbs_add_spring_damper(b, &sd) >= 0);
}

mbs_model *test_random_tree(uint64_t seed, const test_tree_opts *o)
{
    test_rng r;
    test_rng_seed(&r, seed);
    mbs_builder *b = mbs_builder_create();
    assert_non_null(b);
    const int n = o->nbody;
    int parent[256];
    assert_true(n >= 1 && n < 256);
    for (int i = 1; i <= n; ++i) {
        assert_int_equal(add_random_body(&r, b, i), i);
        parent[i] = test_rng_int(&r, 0, i - 1);
    }
    const int rootless = (o->roots && n >= 3) ? test_rng_int(&r, 2, n) : -1;
    const int k0 = test_rng_int(&r, 0, 10);
    for (int i = 1; i <= n; ++i) {
        if (i == rootless) continue;
        const int j = add_random_joint(&r, b, parent[i], i, k0 + i, o);
        assert_true(j >= 0);
        if (o->springs) add_joint_spring(&r, b, j, k0 + i, o->springs == 2);
    }
    for (int k = 0; o->springs && k < 2; ++k) add_line_spring(&r, b, n, o->springs == 2);
    if (o->gravity == 1) {
        double g[3];
        rng_unit(&r, g);
        for (int k = 0; k < 3; ++k) g[k] *= 9.81;
        assert_int_equal(mbs_builder_set_gravity(b, g), MBS_OK);
    } else if (o->gravity == 2) {
        double c[3];
        for (int k = 0; k < 3; ++k) c[k] = test_rng_uniform(&r, 3.0, 5.0);
        assert_int_equal(mbs_builder_set_point_gravity(b, c, 20.0), MBS_OK);
    } else {
        assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    }
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    if (st != MBS_OK) print_error("compile: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    assert_int_equal(st, MBS_OK);
    return m;
}

void test_random_state(test_rng *r, mbs_data *d, double qs, double vs, double ts)
{
    const mbs_model *m = mbs_data_model(d);
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    double *q0 = malloc(sizeof(double) * (size_t)(nq + 1));
    double *w = malloc(sizeof(double) * (size_t)(nv + 1));
    assert_non_null(q0);
    assert_non_null(w);
    assert_int_equal(mbs_neutral_q(m, q0), MBS_OK);
    for (int i = 0; i < nv; ++i) w[i] = test_rng_uniform(r, -qs, qs);
    assert_int_equal(mbs_integrate_q(m, q0, w, 1.0, mbs_data_q(d)), MBS_OK);
    for (int i = 0; i < nv; ++i) mbs_data_v(d)[i] = test_rng_uniform(r, -vs, vs);
    for (int i = 0; i < nv; ++i) mbs_data_tau(d)[i] = test_rng_uniform(r, -ts, ts);
    free(q0);
    free(w);
}

/* See common.h. */
mbs_model *test_compile_ok(mbs_builder *b)
{
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fail_msg("compile: %s", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* See common.h. */
mbs_stepper *test_stepper_tight(mbs_data *d, mbs_stepper_kind kind)
{
    mbs_stepper_def def = mbs_default_stepper_def(kind);
    def.rtol = 1e-11;
    def.atol = 1e-12;
    def.event_tol = 1e-12;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    if (!s) fail_msg("stepper: %s", mbs_data_error(d));
    return s;
}

/* See common.h. */
mbs_builder *test_shaft(double l, double J, double b)
{
    mbs_builder *bl = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 1.0;
    bd.com[2] = -l;
    memset(bd.inertia, 0, sizeof bd.inertia);
    bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = J;
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.name = "shaft";
    jd.child = mbs_add_body(bl, &bd);
    jd.axis[0] = 0.0, jd.axis[1] = 1.0, jd.axis[2] = 0.0;
    assert_int_equal(mbs_add_joint(bl, &jd), 0);
    if (b > 0.0) assert_int_equal(mbs_add_joint_spring_damper(bl, 0, 0, 0.0, b, 0.0), 0);
    return bl;
}

/* See common.h: a chain of n bodies under a free root joint (quaternion or Cardan) with revolute,
   spherical (same rotation option) and universal joints, uniform gravity, a line spring
   from the root to the world and a joint spring. */
mbs_model *test_floating_chain(int n, mbs_rotation rot)
{
    mbs_builder *b = mbs_builder_create();
    test_rng r;
    test_rng_seed(&r, 99 + (uint64_t)rot);
    for (int i = 1; i <= n; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 1.0 + 0.3 * i;
        bd.com[0] = 0.2, bd.com[1] = 0.05 * i;
        test_random_inertia(&r, 0.01, 0.1, bd.inertia);
        assert_int_equal(mbs_add_body(b, &bd), i);
    }
    static const mbs_joint_type kinds[] = {MBS_JOINT_FREE, MBS_JOINT_REVOLUTE, MBS_JOINT_SPHERICAL,
                                           MBS_JOINT_UNIVERSAL};
    for (int i = 1; i <= n; ++i) {
        mbs_joint_def jd = mbs_default_joint_def(kinds[i == 1 ? 0 : 1 + (i % 3)]);
        jd.parent = i - 1, jd.child = i, jd.rotation = rot;
        if (i > 1) jd.frame_parent.pos[0] = 0.4;
        jd.axis[0] = 0.3, jd.axis[1] = 1.0, jd.axis[2] = 0.2;
        assert_true(mbs_add_joint(b, &jd) >= 0);
    }
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.body_a = MBS_WORLD, sd.body_b = 1, sd.point_a[2] = 1.0, sd.point_b[0] = 0.1;
    sd.stiffness = 50.0, sd.damping = 2.0, sd.rest_length = 0.5;
    assert_true(mbs_add_spring_damper(b, &sd) >= 0);
    assert_true(mbs_add_joint_spring_damper(b, 1, 0, 5.0, 0.5, 0.1) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* See common.h. */
mbs_model *test_massless_tip(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def arm = mbs_default_body_def(), tip = mbs_default_body_def();
    arm.name = "arm", tip.name = "tip", tip.mass = 0.0;
    memset(tip.inertia, 0, sizeof tip.inertia);
    assert_int_equal(mbs_add_body(b, &arm), 1);
    assert_int_equal(mbs_add_body(b, &tip), 2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = 0, j.child = 1;
    assert_true(mbs_add_joint(b, &j) >= 0);
    j.parent = 1, j.child = 2, j.frame_parent.pos[0] = 1.0;
    assert_true(mbs_add_joint(b, &j) >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    return m;
}

/* See common.h. */
void test_prismatic_body(mbs_builder *b, const char *body, const char *joint)
{
    mbs_body_def bd = mbs_default_body_def();
    bd.name = body;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.name = joint;
    jd.child = 1;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
}
