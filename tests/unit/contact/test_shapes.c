/* Collision shapes: mass properties against closed forms and independent integrations (a
 * box, a mesh cube, a polygonal cylinder, a capsule by slices, a tetrahedron), the refusal of
 * bad shapes, and the narrow phase's contact points against closed-form geometry, libccd's
 * pairs included, through the public query. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static mbs_shape_def shape(mbs_collision_kind k, double s0, double s1, double s2)
{
    mbs_shape_def d = mbs_default_shape_def();
    d.kind = k, d.size[0] = s0, d.size[1] = s1, d.size[2] = s2;
    return d;
}

/* Box of half extents a, b, c: m = 8 abc rho, I = m (b^2 + c^2) / 3 ... */
static void test_box_mass(void **state)
{
    (void)state;
    const mbs_shape_def d = shape(MBS_COLLISION_BOX, 0.1, 0.2, 0.3);
    mbs_body_def b;
    assert_int_equal(mbs_body_def_from_shape(&d, 1000.0, &b), MBS_OK);
    const double m = 1000.0 * 0.2 * 0.4 * 0.6;
    assert_true(fabs(b.mass - m) < 1e-12 * m);
    assert_true(fabs(b.inertia[0] - m * (0.16 + 0.36) / 12.0) < 1e-12);
    assert_true(fabs(b.inertia[4] - m * (0.04 + 0.36) / 12.0) < 1e-12);
    assert_true(fabs(b.inertia[8] - m * (0.04 + 0.16) / 12.0) < 1e-12);
}

/* The 8 corners and 12 outward triangles of the box of half extents h. */
static void cube_mesh(const double h[3], double v[24], int t[36])
{
    for (int k = 0; k < 8; ++k)
        for (int i = 0; i < 3; ++i) v[3 * k + i] = (k >> i & 1 ? 1 : -1) * h[i];
    static const int tri[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    memcpy(t, tri, sizeof tri);
}

/* A mesh cube (divergence theorem), posed and turned, equals the box turned by hand. */
static void test_mesh_cube_vs_box(void **state)
{
    (void)state;
    const double h[3] = {0.1, 0.2, 0.3};
    double v[24];
    int t[36];
    cube_mesh(h, v, t);
    mbs_shape_def d = shape(MBS_COLLISION_MESH, 0, 0, 0);
    d.vertices = v, d.nvertex = 8, d.triangles = t, d.ntriangle = 12;
    const double c = cos(0.7), s = sin(0.7);
    const double R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(d.pose.rot, R, sizeof R);
    d.pose.pos[0] = 1.0, d.pose.pos[1] = -2.0, d.pose.pos[2] = 0.5;
    mbs_body_def b;
    assert_int_equal(mbs_body_def_from_shape(&d, 500.0, &b), MBS_OK);
    const double m = 500.0 * 0.2 * 0.4 * 0.6;
    const double J[3] = {m * (0.16 + 0.36) / 12.0, m * (0.04 + 0.36) / 12.0,
                         m * (0.04 + 0.16) / 12.0};
    double I[9] = {0}; /* R diag(J) R^T */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) I[3 * i + j] += R[3 * i + k] * J[k] * R[3 * j + k];
    assert_true(fabs(b.mass - m) < 1e-12 * m);
    test_assert_close(b.com, d.pose.pos, 3, 1e-13, "mesh cube com");
    test_assert_close(b.inertia, I, 9, 1e-13, "mesh cube inertia");
}

/* A tetrahedron away from the origin: volume |det| / 6, centre the mean of its corners. */
static void test_mesh_tetrahedron(void **state)
{
    (void)state;
    const double v[12] = {1, 1, 1, 2, 1, 1, 1, 3, 1, 1, 1, 5};
    const int t[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    mbs_shape_def d = shape(MBS_COLLISION_MESH, 0, 0, 0);
    d.vertices = v, d.nvertex = 4, d.triangles = t, d.ntriangle = 4;
    mbs_body_def b;
    assert_int_equal(mbs_body_def_from_shape(&d, 1.0, &b), MBS_OK);
    assert_true(fabs(b.mass - 1.0 * 2.0 * 4.0 / 6.0) < 1e-13);
    const double c[3] = {1.25, 1.5, 2.0};
    test_assert_close(b.com, c, 3, 1e-13, "tetrahedron com");
}

/* A cylinder against a 512-sided prism (mesh) of the same radius: the prism's area is
   (n/2) sin(2 pi/n) r^2, within 3e-5 of the disc's. */
static void test_cylinder_vs_prism(void **state)
{
    (void)state;
    enum { N = 512 };
    static double v[3 * 2 * N];
    static int t[3 * (4 * N - 4)];
    const double r = 0.2, hl = 0.3;
    for (int k = 0; k < N; ++k)
        for (int z = 0; z < 2; ++z) {
            double *p = v + 3 * (2 * k + z);
            p[0] = r * cos(2 * PI * k / N), p[1] = r * sin(2 * PI * k / N), p[2] = z ? hl : -hl;
        }
    int nt = 0;
    for (int k = 0; k < N; ++k) { /* sides */
        const int a = 2 * k, b = 2 * ((k + 1) % N);
        const int q[6] = {a, b, a + 1, b, b + 1, a + 1};
        memcpy(t + 3 * nt, q, sizeof q), nt += 2;
    }
    for (int k = 1; k + 1 < N; ++k) { /* caps as fans */
        const int bot[3] = {0, 2 * (k + 1), 2 * k}, top[3] = {1, 2 * k + 1, 2 * (k + 1) + 1};
        memcpy(t + 3 * nt, bot, sizeof bot), ++nt;
        memcpy(t + 3 * nt, top, sizeof top), ++nt;
    }
    mbs_shape_def dm = shape(MBS_COLLISION_MESH, 0, 0, 0);
    dm.vertices = v, dm.nvertex = 2 * N, dm.triangles = t, dm.ntriangle = nt;
    const mbs_shape_def dc = shape(MBS_COLLISION_CYLINDER, r, hl, 0);
    mbs_body_def bm, bc;
    assert_int_equal(mbs_body_def_from_shape(&dm, 1000.0, &bm), MBS_OK);
    assert_int_equal(mbs_body_def_from_shape(&dc, 1000.0, &bc), MBS_OK);
    const double m = 1000.0 * PI * r * r * 2 * hl;
    assert_true(fabs(bc.mass - m) < 1e-12 * m);
    assert_true(fabs(bc.inertia[8] - 0.5 * m * r * r) < 1e-12);
    assert_true(fabs(bc.inertia[0] - m * (3 * r * r + 4 * hl * hl) / 12.0) < 1e-12);
    assert_true(fabs(bm.mass - bc.mass) < 1e-4 * bc.mass);
    for (int i = 0; i < 9; i += 4) assert_true(fabs(bm.inertia[i] - bc.inertia[i]) < 2e-4 * bc.inertia[i]);
}

/* A capsule against slices of discs along its axis (midpoint rule, 200000 slices). */
static void test_capsule_by_slices(void **state)
{
    (void)state;
    const double r = 0.1, hl = 0.25, rho = 800.0;
    const mbs_shape_def d = shape(MBS_COLLISION_CAPSULE, r, hl, 0);
    mbs_body_def b;
    assert_int_equal(mbs_body_def_from_shape(&d, rho, &b), MBS_OK);
    const int n = 200000;
    const double L = 2 * (r + hl), dz = L / n;
    double m = 0, Ix = 0, Iz = 0;
    for (int i = 0; i < n; ++i) {
        const double z = -L / 2 + (i + 0.5) * dz, e = fmax(0.0, fabs(z) - hl);
        const double a2 = r * r - e * e, dm = rho * PI * a2 * dz; /* disc of radius^2 a2 */
        m += dm, Iz += 0.5 * dm * a2, Ix += dm * (a2 / 4 + z * z);
    }
    assert_true(fabs(b.mass - m) < 1e-8 * m);
    assert_true(fabs(b.inertia[8] - Iz) < 1e-8 * Iz);
    assert_true(fabs(b.inertia[0] - Ix) < 1e-8 * Ix);
    assert_true(fabs(b.inertia[4] - Ix) < 1e-8 * Ix);
}

/* Adding d to a builder with one body is refused with MBS_ERR_ARG naming it. */
static void refused(mbs_shape_def d, const char *what)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_add_body(b, &(mbs_body_def){.name = "b", .mass = 1,
                                                      .inertia = {1, 0, 0, 0, 1, 0, 0, 0, 1}}), 1);
    d.name = "bad";
    if (d.kind != MBS_COLLISION_PLANE && d.body == MBS_WORLD) d.body = 1;
    const int st = mbs_add_shape(b, &d);
    if (st != MBS_ERR_ARG || !strstr(mbs_builder_error(b), "shape \"bad\"") ||
        !strstr(mbs_builder_error(b), what))
        fail_msg("expected a refusal naming the shape and \"%s\", got %d: %s", what, st,
                 mbs_builder_error(b));
    mbs_builder_destroy(b);
}

static void test_bad_shapes(void **state)
{
    (void)state;
    refused(shape(MBS_COLLISION_SPHERE, 0.0, 0, 0), "size[0]");
    refused(shape(MBS_COLLISION_BOX, 1, 1, -1), "size[2]");
    refused(shape(MBS_COLLISION_CAPSULE, 1, NAN, 0), "size[1]");
    mbs_shape_def d = shape(MBS_COLLISION_SPHERE, 1, 0, 0);
    d.pose.pos[1] = NAN;
    refused(d, "pose");
    d = shape(MBS_COLLISION_SPHERE, 1, 0, 0);
    d.pose.rot[0] = 2.0;
    refused(d, "rotation");
    d = shape(MBS_COLLISION_PLANE, 0, 0, 0);
    d.body = 1;
    refused(d, "plane");
    const double flat[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0};
    d = shape(MBS_COLLISION_MESH, 0, 0, 0);
    d.vertices = flat, d.nvertex = 5;
    refused(d, "degenerate");
    d.nvertex = 3;
    refused(d, "at least 4");
    double v[24];
    int t[36];
    const double h[3] = {1, 1, 1};
    cube_mesh(h, v, t);
    d.vertices = v, d.nvertex = 8, d.triangles = t, d.ntriangle = 12;
    t[5] = 8;
    refused(d, "out of");
    cube_mesh(h, v, t);
    for (int k = 0; k < 12; ++k) { const int s = t[3 * k]; t[3 * k] = t[3 * k + 1], t[3 * k + 1] = s; }
    refused(d, "counterclockwise");
}

/* ---------------------------------------------------------------- the narrow phase */

/* A model of shapes a (on body "a") and b (on body "b", or a world shape when b_world), the
   bodies placed at pa, pb (rotations ra, rb: row-major, NULL identity), one forward dynamics,
   then the query of the pair (a, b): returns the number of points. */
typedef struct pair_out {
    int n;
    double p[3 * MBS_CONTACT_MAX_POINTS], nrm[3 * MBS_CONTACT_MAX_POINTS];
    double pen[MBS_CONTACT_MAX_POINTS], f[3 * MBS_CONTACT_MAX_POINTS];
} pair_out;

static void put_q(mbs_data *d, const char *joint, const double p[3], const double *R)
{
    const mbs_model *m = mbs_data_model(d);
    double *q = mbs_data_q(d) + mbs_model_joint_qadr(m, mbs_model_find_joint(m, joint));
    memcpy(q, p, 3 * sizeof(double));
    if (!R) return;
    const double w = 0.5 * sqrt(fmax(0.0, 1 + R[0] + R[4] + R[8])); /* R not a half turn */
    q[3] = w, q[4] = (R[7] - R[5]) / (4 * w), q[5] = (R[2] - R[6]) / (4 * w),
    q[6] = (R[3] - R[1]) / (4 * w);
}

static pair_out run_pair(mbs_shape_def a, mbs_shape_def b, int b_world, const double pa[3],
                         const double *ra, const double pb[3], const double *rb)
{
    mbs_builder *bl = mbs_builder_create();
    const mbs_body_def bd = {.mass = 1, .inertia = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    mbs_body_def ba = bd, bb = bd;
    ba.name = "a", bb.name = "b";
    a.body = mbs_add_body(bl, &ba);
    b.body = b_world ? MBS_WORLD : mbs_add_body(bl, &bb);
    const int sa = mbs_add_shape(bl, &a), sb = mbs_add_shape(bl, &b);
    assert_true(sa >= 0 && sb >= 0);
    const int el = mbs_add_contact(bl, NULL, 0);
    assert_true(el >= 0);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(bl, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    put_q(d, "free_a", pa, ra);
    if (!b_world) put_q(d, "free_b", pb, rb);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    pair_out o;
    o.n = mbs_contact_query(d, el, sa, sb, MBS_CONTACT_MAX_POINTS, o.p, o.nrm, o.pen, o.f);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(bl);
    return o;
}

static const double O[3] = {0, 0, 0};

static void test_sphere_pairs(void **state)
{
    (void)state;
    const mbs_shape_def s = shape(MBS_COLLISION_SPHERE, 0.1, 0, 0);
    /* on a plane: penetration 0.01, normal from the sphere into the plane */
    pair_out o = run_pair(s, shape(MBS_COLLISION_PLANE, 0, 0, 0), 1, (double[3]){1, 2, 0.09},
                          NULL, O, NULL);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.01) < 1e-14);
    test_assert_close(o.nrm, (double[3]){0, 0, -1}, 3, 1e-15, "sphere-plane normal");
    test_assert_close(o.p, (double[3]){1, 2, -0.01}, 3, 1e-14, "sphere-plane point");
    assert_true(o.f[2] < 0.0); /* the plane is pushed down, the sphere up */
    /* two spheres 0.15 apart along (1, 2, 2) / 3 */
    const double u[3] = {1 / 3.0, 2 / 3.0, 2 / 3.0};
    o = run_pair(s, shape(MBS_COLLISION_SPHERE, 0.08, 0, 0), 0, O, NULL,
                 (double[3]){0.15 * u[0], 0.15 * u[1], 0.15 * u[2]}, NULL);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.03) < 1e-14);
    test_assert_close(o.nrm, u, 3, 1e-14, "sphere-sphere normal");
    /* a sphere and a box: near an edge (outside its faces) and inside a face */
    const mbs_shape_def box = shape(MBS_COLLISION_BOX, 0.2, 0.3, 0.4);
    o = run_pair(s, box, 0, (double[3]){0.2 + 0.06, 0.3 + 0.05, 0}, NULL, O, NULL);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - (0.1 - hypot(0.06, 0.05))) < 1e-14);
    o = run_pair(s, box, 0, (double[3]){0, 0, 0.4 - 0.02}, NULL, O, NULL);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.12) < 1e-14);
    test_assert_close(o.nrm, (double[3]){0, 0, -1}, 3, 1e-15, "sphere in box normal");
    /* a sphere and a capsule lying along y (turned about x): nearest axis point (0, 0.3, 0) */
    const double Rx[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0};
    o = run_pair(s, shape(MBS_COLLISION_CAPSULE, 0.05, 0.25, 0), 0, (double[3]){0.12, 0.2, 0},
                 NULL, O, Rx);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.03) < 1e-14);
    /* beyond the capsule's end: the nearest point is the end (0, 0.25, 0) */
    o = run_pair(s, shape(MBS_COLLISION_CAPSULE, 0.05, 0.25, 0), 0, (double[3]){0, 0.38, 0},
                 NULL, O, Rx);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.02) < 1e-14);
}

static void test_capsule_box_cylinder_pairs(void **state)
{
    (void)state;
    /* two crossed capsules (z and, turned, y), 0.18 apart along x: penetration 0.02 */
    const double Rx[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0};
    const mbs_shape_def c = shape(MBS_COLLISION_CAPSULE, 0.1, 0.5, 0);
    pair_out o = run_pair(c, c, 0, O, NULL, (double[3]){0.18, 0.1, 0.2}, Rx);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.02) < 1e-14);
    test_assert_close(o.nrm, (double[3]){1, 0, 0}, 3, 1e-14, "capsule-capsule normal");
    /* a capsule lying on a plane, its axis tilted by atan(0.02): end depths 0.02 -+ st / 2 */
    const double t = atan2(0.02, 1.0), ct = cos(t), st = sin(t);
    const double Ry[9] = {st, 0, ct, 0, 1, 0, -ct, 0, st}; /* shape z to (ct, 0, st) */
    o = run_pair(c, shape(MBS_COLLISION_PLANE, 0, 0, 0), 1, (double[3]){0, 0, 0.08}, Ry, O, NULL);
    assert_int_equal(o.n, 2);
    assert_true(fabs(o.pen[0] - (0.02 + 0.5 * st)) < 1e-14);
    assert_true(fabs(o.pen[1] - (0.02 - 0.5 * st)) < 1e-14);
    /* a box resting 0.005 into a plane: its four lower corners */
    o = run_pair(shape(MBS_COLLISION_BOX, 0.1, 0.2, 0.3), shape(MBS_COLLISION_PLANE, 0, 0, 0), 1,
                 (double[3]){0, 0, 0.295}, NULL, O, NULL);
    assert_int_equal(o.n, 4);
    for (int k = 0; k < 4; ++k) assert_true(fabs(o.pen[k] - 0.005) < 1e-14);
    /* a cylinder lying on a plane (axis along y): two rim points at depth 0.01 */
    o = run_pair(shape(MBS_COLLISION_CYLINDER, 0.2, 0.1, 0), shape(MBS_COLLISION_PLANE, 0, 0, 0),
                 1, (double[3]){0, 0, 0.19}, Rx, O, NULL);
    assert_int_equal(o.n, 2);
    assert_true(fabs(o.pen[0] - 0.01) < 1e-14 && fabs(o.pen[1] - 0.01) < 1e-14);
    /* standing upright: four rim points per lower cap */
    o = run_pair(shape(MBS_COLLISION_CYLINDER, 0.2, 0.1, 0), shape(MBS_COLLISION_PLANE, 0, 0, 0),
                 1, (double[3]){0, 0, 0.099}, NULL, O, NULL);
    assert_int_equal(o.n, 4);
}

/* libccd (MPR) against closed forms: two boxes overlapping by 0.01 along x, a sphere on a
   cylinder's side, a mesh cube against the box's closed form on a plane. */
static void test_ccd_pairs(void **state)
{
    (void)state;
    const mbs_shape_def b = shape(MBS_COLLISION_BOX, 0.1, 0.2, 0.3);
    pair_out o = run_pair(b, b, 0, O, NULL, (double[3]){0.19, 0.05, -0.02}, NULL);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.01) < 1e-6);
    test_assert_close(o.nrm, (double[3]){1, 0, 0}, 3, 1e-6, "box-box normal");
    o = run_pair(shape(MBS_COLLISION_SPHERE, 0.1, 0, 0), shape(MBS_COLLISION_CYLINDER, 0.2, 0.5, 0),
                 0, (double[3]){0.28, 0, 0.1}, NULL, O, NULL);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.02) < 1e-6);
    o = run_pair(b, shape(MBS_COLLISION_SPHERE, 0.1, 0, 0), 0, O, NULL, (double[3]){0.5, 0, 0}, NULL);
    assert_int_equal(o.n, 0); /* apart */
    double v[24];
    int t[36];
    const double h[3] = {0.1, 0.2, 0.3};
    cube_mesh(h, v, t);
    mbs_shape_def m = shape(MBS_COLLISION_MESH, 0, 0, 0);
    m.vertices = v, m.nvertex = 8;
    o = run_pair(m, shape(MBS_COLLISION_PLANE, 0, 0, 0), 1, (double[3]){0, 0, 0.29}, NULL, O, NULL);
    assert_int_equal(o.n, 1);
    assert_true(fabs(o.pen[0] - 0.01) < 1e-14);
}

/* Filtering: shapes of bodies joined by a joint, and groups/masks that exclude each other. */
static void test_filters(void **state)
{
    (void)state;
    mbs_builder *bl = mbs_builder_create();
    const mbs_body_def bd = {.mass = 1, .inertia = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    const int b1 = mbs_add_body(bl, &bd), b2 = mbs_add_body(bl, &bd), b3 = mbs_add_body(bl, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.parent = b1, j.child = b2;
    assert_true(mbs_add_joint(bl, &j) >= 0);
    mbs_shape_def s = shape(MBS_COLLISION_SPHERE, 1.0, 0, 0); /* all overlap at the origin */
    s.body = b1;
    const int s1 = mbs_add_shape(bl, &s);
    s.body = b2;
    const int s2 = mbs_add_shape(bl, &s);
    s.body = b3, s.group = 2, s.mask = 2;
    const int s3 = mbs_add_shape(bl, &s);
    const int el = mbs_add_contact(bl, NULL, 0), all = mbs_add_contact(bl, NULL, 1);
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(bl, &m), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_forward_dynamics(d), MBS_OK);
    assert_int_equal(mbs_contact_query(d, el, s1, s2, 8, NULL, NULL, NULL, NULL), 0); /* joined */
    assert_int_equal(mbs_contact_query(d, all, s2, s1, 8, NULL, NULL, NULL, NULL), 1);
    assert_int_equal(mbs_contact_query(d, el, s1, s3, 8, NULL, NULL, NULL, NULL), MBS_ERR_ARG);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder_destroy(bl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_mass),
        cmocka_unit_test(test_mesh_cube_vs_box),
        cmocka_unit_test(test_mesh_tetrahedron),
        cmocka_unit_test(test_cylinder_vs_prism),
        cmocka_unit_test(test_capsule_by_slices),
        cmocka_unit_test(test_bad_shapes),
        cmocka_unit_test(test_sphere_pairs),
        cmocka_unit_test(test_capsule_box_cylinder_pairs),
        cmocka_unit_test(test_ccd_pairs),
        cmocka_unit_test(test_filters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
