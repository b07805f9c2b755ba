/* Narrow phase, closed forms (shapes.h): sphere with sphere, capsule, box and plane; capsule
 * with capsule and plane (one slot per end); box and cylinder with a plane (a slot per box
 * corner; per cylinder cap the deepest rim point and three more a quarter turn apart). The
 * other convex pairs go to libccd (narrow_ccd.c). Normals point from shape a to shape b. */
#include "contact/shapes.h"

#include <math.h>

typedef void (*collide_fn)(const mbs_shape_model *, const mbs_pose *, const mbs_shape_model *,
                           const mbs_pose *, mbs_contact_pt *);

/* Column k (an axis) of R. */
static void axis(double o[3], const double R[9], int k) { v3_set(o, R[k], R[3 + k], R[6 + k]); }

/* The point's fields from the surface points pa on a and pb on b, normal n, gap g: the
   point is a's (so a ball or wheel a rolls on its own radius). */
static void put(mbs_contact_pt *o, const double pa[3], const double pb[3], const double n[3],
                double g)
{
    (void)pb;
    v3_copy(o->p, pa);
    v3_copy(o->n, n);
    o->gap = g;
}

/* Two balls (centres, radii): a sphere, a capsule's nearest axis point. */
static void balls(const double ca[3], double ra, const double cb[3], double rb, mbs_contact_pt *o)
{
    double n[3], pa[3], pb[3];
    v3_sub(n, cb, ca);
    const double d = v3_norm(n);
    if (d > 1e-300) v3_scale(n, n, 1.0 / d);
    else v3_set(n, 0.0, 0.0, 1.0);
    v3_copy(pa, ca), v3_axpy(pa, ra, n);
    v3_copy(pb, cb), v3_axpy(pb, -rb, n);
    put(o, pa, pb, n, d - ra - rb);
}

/* Ends of a capsule's axis segment. */
static void segment(const mbs_shape_model *s, const mbs_pose *X, double p0[3], double p1[3])
{
    double z[3];
    axis(z, X->R, 2);
    v3_copy(p0, X->p), v3_axpy(p0, -s->size[1], z);
    v3_copy(p1, X->p), v3_axpy(p1, s->size[1], z);
}

/* Parameter in [0, 1] of the point of segment p0-p1 nearest to x. */
static double nearest_on(const double p0[3], const double p1[3], const double x[3])
{
    double e[3], r[3];
    v3_sub(e, p1, p0), v3_sub(r, x, p0);
    const double ee = v3_dot(e, e);
    return ee > 0.0 ? fmin(1.0, fmax(0.0, v3_dot(r, e) / ee)) : 0.0;
}

static void lerp(double o[3], const double p0[3], const double p1[3], double t)
{
    for (int i = 0; i < 3; ++i) o[i] = p0[i] + t * (p1[i] - p0[i]);
}

static void sphere_sphere(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                          const mbs_pose *XB, mbs_contact_pt *o)
{
    balls(XA->p, A->size[0], XB->p, B->size[0], o);
}

static void sphere_capsule(const mbs_shape_model *A, const mbs_pose *XA,
                           const mbs_shape_model *B, const mbs_pose *XB, mbs_contact_pt *o)
{
    double p0[3], p1[3], c[3];
    segment(B, XB, p0, p1);
    lerp(c, p0, p1, nearest_on(p0, p1, XA->p));
    balls(XA->p, A->size[0], c, B->size[0], o);
}

/* Nearest points of two segments (Ericson, "Real-Time Collision Detection", 2005, §5.1.9). */
static void capsule_capsule(const mbs_shape_model *A, const mbs_pose *XA,
                            const mbs_shape_model *B, const mbs_pose *XB, mbs_contact_pt *o)
{
    double a0[3], a1[3], b0[3], b1[3], d1[3], d2[3], r[3], ca[3], cb[3];
    segment(A, XA, a0, a1), segment(B, XB, b0, b1);
    v3_sub(d1, a1, a0), v3_sub(d2, b1, b0), v3_sub(r, a0, b0);
    const double a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
    const double c = v3_dot(d1, r), b = v3_dot(d1, d2), den = a * e - b * b;
    double s = den > 1e-12 * a * e ? fmin(1.0, fmax(0.0, (b * f - c * e) / den)) : 0.0;
    double t = (b * s + f) / e;
    if (t < 0.0) t = 0.0, s = fmin(1.0, fmax(0.0, -c / a));
    else if (t > 1.0) t = 1.0, s = fmin(1.0, fmax(0.0, (b - c) / a));
    lerp(ca, a0, a1, s), lerp(cb, b0, b1, t);
    balls(ca, A->size[0], cb, B->size[0], o);
}

/* Sphere a and box b: the box point nearest to the centre, or (centre inside) the face
   nearest to it. */
static void sphere_box(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                       const mbs_pose *XB, mbs_contact_pt *o)
{
    double c[3], d[3], q[3], nl[3], n[3], pa[3], pb[3];
    v3_sub(d, XA->p, XB->p), m3_tmulv(c, XB->R, d);
    int inside = 1, k = 0;
    for (int i = 0; i < 3; ++i) {
        q[i] = fmin(B->size[i], fmax(-B->size[i], c[i]));
        inside &= q[i] == c[i];
        if (B->size[i] - fabs(c[i]) < B->size[k] - fabs(c[k])) k = i;
    }
    double g;
    if (!inside) {
        v3_sub(nl, q, c);
        g = v3_norm(nl);
        v3_scale(nl, nl, 1.0 / g);
        g -= A->size[0];
    } else {
        v3_set(nl, 0.0, 0.0, 0.0);
        nl[k] = c[k] >= 0.0 ? -1.0 : 1.0;
        q[k] = -nl[k] * B->size[k];
        g = -(B->size[k] - fabs(c[k])) - A->size[0];
    }
    m3_mulv(n, XB->R, nl);
    pose_apply(pb, XB, q);
    v3_copy(pa, XA->p), v3_axpy(pa, A->size[0], n);
    put(o, pa, pb, n, g);
}

/* A point x of shape a (at depth r below it along the plane's normal) against plane b. */
static void point_plane(const double x[3], double r, const mbs_pose *XB, mbs_contact_pt *o)
{
    double m[3], d[3], pa[3], pb[3], n[3];
    axis(m, XB->R, 2);
    v3_sub(d, x, XB->p);
    const double h = v3_dot(m, d);
    v3_copy(pa, x), v3_axpy(pa, -r, m);
    v3_copy(pb, x), v3_axpy(pb, -h, m);
    v3_scale(n, m, -1.0);
    put(o, pa, pb, n, h - r);
}

static void sphere_plane(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                         const mbs_pose *XB, mbs_contact_pt *o)
{
    point_plane(XA->p, A->size[0], XB, o);
}

static void capsule_plane(const mbs_shape_model *A, const mbs_pose *XA,
                          const mbs_shape_model *B, const mbs_pose *XB, mbs_contact_pt *o)
{
    double p0[3], p1[3];
    segment(A, XA, p0, p1);
    point_plane(p0, A->size[0], XB, &o[0]);
    point_plane(p1, A->size[0], XB, &o[1]);
}

static void box_plane(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                      const mbs_pose *XB, mbs_contact_pt *o)
{
    for (int k = 0; k < 8; ++k) {
        const double c[3] = {(k & 1 ? 1 : -1) * A->size[0], (k & 2 ? 1 : -1) * A->size[1],
                             (k & 4 ? 1 : -1) * A->size[2]};
        double x[3];
        pose_apply(x, XA, c);
        point_plane(x, 0.0, XB, &o[k]);
    }
}

/* Per cap: the rim point deepest below the plane, then three more a quarter turn apart. */
static void cylinder_plane(const mbs_shape_model *A, const mbs_pose *XA,
                           const mbs_shape_model *B, const mbs_pose *XB, mbs_contact_pt *o)
{
    double m[3], a[3], u[3], w[3];
    axis(m, XB->R, 2), axis(a, XA->R, 2);
    v3_scale(u, m, -1.0), v3_axpy(u, v3_dot(m, a), a);
    if (v3_norm(u) < 1e-9) axis(u, XA->R, 0); /* upright: any rim direction */
    v3_scale(u, u, 1.0 / v3_norm(u));
    v3_cross(w, a, u);
    static const double cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    for (int k = 0; k < 8; ++k) {
        double x[3];
        v3_copy(x, XA->p);
        v3_axpy(x, (k < 4 ? -1.0 : 1.0) * A->size[1], a);
        v3_axpy(x, A->size[0] * cs[k & 3][0], u);
        v3_axpy(x, A->size[0] * cs[k & 3][1], w);
        point_plane(x, 0.0, XB, &o[k]);
    }
}

/* A mesh's deepest vertex (its support point along the plane's inward normal). */
static void mesh_plane(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                       const mbs_pose *XB, mbs_contact_pt *o)
{
    double m[3], x[3];
    axis(m, XB->R, 2), v3_scale(m, m, -1.0);
    mbs_shape_support(A, XA, m, x);
    point_plane(x, 0.0, XB, o);
}

/* The closed forms by kind (a's kind first; planes last); NULL: libccd. */
static collide_fn closed_form(mbs_collision_kind a, mbs_collision_kind b)
{
    static const collide_fn table[6][6] = {
        [MBS_COLLISION_SPHERE] = {[MBS_COLLISION_SPHERE] = sphere_sphere,
                              [MBS_COLLISION_CAPSULE] = sphere_capsule,
                              [MBS_COLLISION_BOX] = sphere_box, [MBS_COLLISION_PLANE] = sphere_plane},
        [MBS_COLLISION_CAPSULE] = {[MBS_COLLISION_CAPSULE] = capsule_capsule,
                               [MBS_COLLISION_PLANE] = capsule_plane},
        [MBS_COLLISION_BOX] = {[MBS_COLLISION_PLANE] = box_plane},
        [MBS_COLLISION_CYLINDER] = {[MBS_COLLISION_PLANE] = cylinder_plane},
        [MBS_COLLISION_MESH] = {[MBS_COLLISION_PLANE] = mesh_plane},
    };
    return table[a][b];
}

/* See shapes.h. */
int mbs_collide_closed(mbs_collision_kind a, mbs_collision_kind b) { return closed_form(a, b) != NULL; }

/* See shapes.h. */
int mbs_collide_npt(mbs_collision_kind a, mbs_collision_kind b)
{
    if (b == MBS_COLLISION_PLANE && (a == MBS_COLLISION_BOX || a == MBS_COLLISION_CYLINDER)) return 8;
    return b == MBS_COLLISION_PLANE && a == MBS_COLLISION_CAPSULE ? 2 : 1;
}

/* See shapes.h. */
void mbs_collide(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                 const mbs_pose *XB, mbs_contact_pt *out)
{
    const collide_fn fn = closed_form(A->kind, B->kind);
    if (fn) fn(A, XA, B, XB, out);
    else mbs_collide_ccd(A, XA, B, XB, out);
}
