/* Collision shapes on bodies (shapes.h): the definition's checks, the compiled form and the
 * builder calls mbs_add_shape and mbs_body_def_from_shape. A refused call leaves the builder
 * as it was. */
#include "contact/shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LBL 96

/* See mbs.h. */
mbs_shape_def mbs_default_shape_def(void)
{
    mbs_shape_def d;
    memset(&d, 0, sizeof d);
    d.kind = MBS_COLLISION_SPHERE;
    m3_identity(d.pose.rot);
    d.group = 1u, d.mask = ~0u;
    return d;
}

/* Number of sizes each kind uses (a plane none). */
static int nsize(mbs_collision_kind k)
{
    static const int n[] = {1, 2, 3, 2, 0, 0};
    return n[k];
}

/* Mesh vertices: finite, at least 4, spanning a volume (largest tetrahedron against the
   cube of the extent); triangles within range. */
static int check_mesh(char *err, const mbs_shape_def *d, const char *lbl)
{
    if (!d->vertices || d->nvertex < 4)
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: a mesh needs at least 4 vertices (%d "
                          "given%s)", lbl, d->nvertex, d->vertices ? "" : ", vertices NULL");
    if (!mbs_all_bounded(d->vertices, 3 * d->nvertex))
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: a vertex is not finite", lbl);
    const double *v = d->vertices;
    int far = 0, wide = 0;
    double best = 0.0, ext = 0.0, e[3], u[3], w[3];
    for (int i = 1; i < d->nvertex; ++i) {
        v3_sub(e, v + 3 * i, v);
        if (v3_norm(e) > ext) ext = v3_norm(e), far = i;
    }
    v3_sub(e, v + 3 * far, v);
    for (int i = 1; i < d->nvertex; ++i) { /* farthest from the line v0-vfar */
        v3_sub(u, v + 3 * i, v);
        v3_cross(w, e, u);
        if (v3_norm(w) > best) best = v3_norm(w), wide = i;
    }
    v3_sub(u, v + 3 * wide, v);
    v3_cross(w, e, u);
    double vol = 0.0;
    for (int i = 1; i < d->nvertex; ++i) {
        v3_sub(u, v + 3 * i, v);
        vol = fmax(vol, fabs(v3_dot(w, u)));
    }
    if (!(ext > 0.0) || vol <= 1e-12 * ext * ext * ext)
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: degenerate mesh: its %d vertices lie "
                          "in one plane (or line)", lbl, d->nvertex);
    if (d->ntriangle < 0 || (d->ntriangle > 0 && !d->triangles))
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: %d triangles without indices", lbl,
                          d->ntriangle);
    for (int i = 0; i < 3 * d->ntriangle; ++i)
        if (d->triangles[i] < 0 || d->triangles[i] >= d->nvertex)
            return mbs_errorf(err, MBS_ERR_ARG, "shape %s: triangle %d: vertex index %d out of "
                              "0..%d", lbl, i / 3, d->triangles[i], d->nvertex - 1);
    return MBS_OK;
}

/* Kind, body, sizes, pose, mesh. */
static int check_def(char *err, const mbs_shape_def *d, const char *lbl, int nbody)
{
    const int k = (int)d->kind;
    if (k < (int)MBS_COLLISION_SPHERE || k > (int)MBS_COLLISION_MESH)
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: unknown kind %d", lbl, k);
    if (d->body < 0 || d->body > nbody)
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: body %d does not exist", lbl, d->body);
    if (d->kind == MBS_COLLISION_PLANE && d->body != MBS_WORLD)
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: a plane is fixed on the world (body 0), "
                          "not on body %d", lbl, d->body);
    for (int i = 0; i < nsize(d->kind); ++i)
        if (!(d->size[i] > 0.0 && d->size[i] <= MBS_MAX_VALUE))
            return mbs_errorf(err, MBS_ERR_ARG, "shape %s: size[%d] = %g must be > 0 and "
                              "finite", lbl, i, d->size[i]);
    if (!mbs_all_bounded(d->pose.pos, 3) || !mbs_all_bounded(d->pose.rot, 9))
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: its pose is not finite", lbl);
    if (mbs_rot_check(d->pose.rot) != 0)
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: its pose's rot is not a rotation", lbl);
    return d->kind == MBS_COLLISION_MESH ? check_mesh(err, d, lbl) : MBS_OK;
}

/* Bounding box of the shape in its own coordinates. */
static void local_box(mbs_shape_model *s)
{
    const double r = s->size[0], h = s->size[1];
    double e[3] = {r, r, r};
    if (s->kind == MBS_COLLISION_CAPSULE) e[2] = r + h;
    if (s->kind == MBS_COLLISION_CYLINDER) e[2] = h;
    if (s->kind == MBS_COLLISION_BOX) v3_copy(e, s->size);
    for (int i = 0; i < 3; ++i) s->lo[i] = -e[i], s->hi[i] = e[i];
    if (s->kind != MBS_COLLISION_MESH) return;
    v3_copy(s->lo, s->vert), v3_copy(s->hi, s->vert);
    for (int k = 1; k < s->nvert; ++k)
        for (int i = 0; i < 3; ++i)
            s->lo[i] = fmin(s->lo[i], s->vert[3 * k + i]), s->hi[i] = fmax(s->hi[i], s->vert[3 * k + i]);
}

/* See shapes.h. */
int mbs_shape_make(char *err, const mbs_shape_def *def, const char *lbl, int nbody,
                   mbs_shape_model *s)
{
    const int st = check_def(err, def, lbl, nbody);
    if (st != MBS_OK) return st;
    memset(s, 0, sizeof *s);
    s->body = def->body, s->kind = def->kind, s->group = def->group, s->mask = def->mask;
    v3_copy(s->size, def->size);
    memcpy(s->pose.R, def->pose.rot, sizeof s->pose.R);
    v3_copy(s->pose.p, def->pose.pos);
    s->name = mbs_strdup_name(def->name);
    if (def->kind == MBS_COLLISION_MESH) {
        s->nvert = def->nvertex;
        s->vert = malloc((size_t)(3 * def->nvertex) * sizeof(double));
        if (s->vert) memcpy(s->vert, def->vertices, (size_t)(3 * def->nvertex) * sizeof(double));
    }
    if (!s->name || (def->kind == MBS_COLLISION_MESH && !s->vert)) {
        mbs_shape_free(s);
        return mbs_errorf(err, MBS_ERR_NOMEM, "shape %s: out of memory", lbl);
    }
    local_box(s);
    return MBS_OK;
}

/* See shapes.h. */
void mbs_shape_free(mbs_shape_model *s)
{
    free(s->name);
    free(s->vert);
    s->name = NULL, s->vert = NULL;
}

/* "\"name\"" or "#id". */
static const char *label(const mbs_shape_def *def, int id, char *buf)
{
    return mbs_name_label(def ? def->name : NULL, id, buf, LBL);
}

/* See mbs.h. */
static int add_shape_impl(mbs_builder *b, const mbs_shape_def *def)
{
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_shape: def is NULL");
    char lbl[LBL];
    label(def, b->nshape, lbl);
    if (mbs_builder_grow((void **)&b->shapes, &b->shape_cap, b->nshape + 1, sizeof *b->shapes))
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "shape %s: out of memory", lbl);
    int st = mbs_shape_make(b->error, def, lbl, b->nbody, &b->shapes[b->nshape]);
    if (st == MBS_OK && def->kind == MBS_COLLISION_MESH && def->ntriangle > 0) {
        double vol, c[3], J[9]; /* triangles must enclose a volume */
        st = mbs_shape_mass(b->error, def, lbl, &vol, c, J);
        if (st != MBS_OK) mbs_shape_free(&b->shapes[b->nshape]);
    }
    return st == MBS_OK ? b->nshape++ : st;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_shape(mbs_builder *b, const mbs_shape_def *def)
{
    return mbs_builder_note(b, "mbs_add_shape", add_shape_impl(b, def));
}

/* See mbs.h: the shape's inertia turned into body axes and moved to its pose. */
int mbs_body_def_from_shape(const mbs_shape_def *def, double density, mbs_body_def *out)
{
    char err[MBS_ERROR_LEN], lbl[LBL];
    if (!def || !out || !(density > 0.0 && density <= MBS_MAX_VALUE)) return MBS_ERR_ARG;
    label(def, 0, lbl);
    mbs_shape_model s;
    int st = mbs_shape_make(err, def, lbl, def->body, &s);
    if (st != MBS_OK) return st;
    mbs_shape_free(&s);
    double vol, c[3], J[9], RJ[9];
    st = mbs_shape_mass(err, def, lbl, &vol, c, J);
    if (st != MBS_OK) return st;
    mbs_body_def bd = mbs_default_body_def();
    bd.name = def->name;
    bd.mass = density * vol;
    m3_mulv(bd.com, def->pose.rot, c);
    v3_add(bd.com, bd.com, def->pose.pos);
    m3_mul(RJ, def->pose.rot, J);
    m3_mult(bd.inertia, RJ, def->pose.rot);
    for (int i = 0; i < 9; ++i) bd.inertia[i] *= density;
    *out = bd;
    return MBS_OK;
}
