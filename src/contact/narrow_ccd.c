/* Narrow phase of the convex pairs without a closed form (shapes.h): libccd's Minkowski
 * portal refinement (Snethen, "XenoCollide: complex collision made simple", Game
 * Programming Gems 7, 2008), which allocates nothing, on the shapes' support functions
 * (shape_support.c).
 * Apart, the gap is the separation of the two shapes' projections on the line between their
 * centres: positive, continuous, and at most their distance. */
#include "contact/shapes.h"

#include <ccd/ccd.h>
#include <math.h>

typedef struct ccd_obj {
    const mbs_shape_model *s;
    const mbs_pose *X;
} ccd_obj;

static void support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec)
{
    const ccd_obj *o = obj;
    const double d[3] = {dir->v[0], dir->v[1], dir->v[2]};
    double p[3];
    mbs_shape_support(o->s, o->X, d, p);
    ccdVec3Set(vec, p[0], p[1], p[2]);
}

/* The centre of the shape's bounding box, world. */
static void centre_of(const ccd_obj *o, double c[3])
{
    double l[3];
    for (int i = 0; i < 3; ++i) l[i] = 0.5 * (o->s->lo[i] + o->s->hi[i]);
    pose_apply(c, o->X, l);
}

static void center(const void *obj, ccd_vec3_t *c)
{
    double p[3];
    centre_of(obj, p);
    ccdVec3Set(c, p[0], p[1], p[2]);
}

/* Separation of the projections on the centre line (a positive lower bound of the gap). */
static void apart(const ccd_obj *a, const ccd_obj *b, mbs_contact_pt *out)
{
    double ca[3], cb[3], u[3], m[3], sa[3], sb[3];
    centre_of(a, ca), centre_of(b, cb);
    v3_sub(u, cb, ca);
    const double d = v3_norm(u);
    if (d > 0.0) v3_scale(u, u, 1.0 / d);
    else v3_set(u, 0.0, 0.0, 1.0);
    v3_scale(m, u, -1.0);
    mbs_shape_support(a->s, a->X, u, sa), mbs_shape_support(b->s, b->X, m, sb);
    out->gap = fmax(v3_dot(sb, u) - v3_dot(sa, u), 1e-12);
    v3_copy(out->p, sa);
    v3_copy(out->n, u);
}

/* See shapes.h. */
int mbs_collide_has_ccd(void) { return 1; }

/* See shapes.h. */
void mbs_collide_ccd(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                     const mbs_pose *XB, mbs_contact_pt *out)
{
    const ccd_obj a = {A, XA}, b = {B, XB};
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = support, ccd.support2 = support;
    ccd.center1 = center, ccd.center2 = center;
    ccd.max_iterations = 100;
    ccd.mpr_tolerance = 1e-9;
    ccd_real_t depth;
    ccd_vec3_t dir, pos;
    if (ccdMPRPenetration(&a, &b, &ccd, &depth, &dir, &pos) != 0) {
        apart(&a, &b, out);
        return;
    }
    out->gap = -depth;
    v3_set(out->n, dir.v[0], dir.v[1], dir.v[2]);
    v3_set(out->p, pos.v[0], pos.v[1], pos.v[2]); /* midway: moved to a's surface */
    v3_axpy(out->p, 0.5 * depth, out->n);
}
