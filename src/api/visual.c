/* Visual shapes: boxes, cylinders, spheres and meshes fixed on bodies, kept by the builder
 * and the compiled model for viewers (mbs-sim --animate / --gltf). They never enter the
 * dynamics. Validated on entry like every other builder element. Also the definitions back
 * from a compiled model (bodies, joints, line spring-dampers) that viewers draw. */
#include "core/builder.h"
#include "core/internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const shape_names[] = {"box", "cylinder", "sphere", "mesh"};

/* Free a string stored behind a const pointer of a def. */
static void free_str(const char *s) { free((void *)(uintptr_t)s); }

/* No name, body -1 (must be set), sphere of radius 0.05, identity frame, scale 1, grey. */
mbs_visual_def mbs_default_visual_def(void)
{
    mbs_visual_def d;
    memset(&d, 0, sizeof d);
    d.name = NULL;
    d.body = -1;
    d.shape = MBS_SHAPE_SPHERE;
    m3_identity(d.frame.rot);
    d.size[0] = d.size[1] = d.size[2] = 0.05;
    d.scale[0] = d.scale[1] = d.scale[2] = 1.0;
    d.color[0] = d.color[1] = d.color[2] = 0.7;
    d.color[3] = 1.0;
    d.mesh = NULL;
    return d;
}

/* Number of leading size entries a shape uses. */
static int shape_nsize(mbs_shape_type s)
{
    return s == MBS_SHAPE_BOX ? 3 : s == MBS_SHAPE_CYLINDER ? 2 : s == MBS_SHAPE_SPHERE ? 1 : 0;
}

/* Validate the shape-specific fields: sizes, mesh scale and file name. */
static int check_shape(mbs_builder *b, const mbs_visual_def *d, const char *lbl)
{
    static const char *const what[3][3] = {{"x extent", "y extent", "z extent"},
                                           {"radius", "length", ""},
                                           {"radius", "", ""}};
    if (!mbs_all_finite(d->size, 3))
        return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: size is not finite", lbl);
    for (int i = 0; i < shape_nsize(d->shape); ++i)
        if (!(d->size[i] > 0.0))
            return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: %s %s must be > 0 (got %g)", lbl,
                              shape_names[d->shape], what[d->shape][i], d->size[i]);
    if (!mbs_all_finite(d->scale, 3))
        return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: scale is not finite", lbl);
    if (d->shape != MBS_SHAPE_MESH) return MBS_OK;
    for (int i = 0; i < 3; ++i)
        if (d->scale[i] == 0.0)
            return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: mesh scale %d is zero", lbl, i);
    if (!d->mesh || !d->mesh[0])
        return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: mesh file name is missing", lbl);
    return MBS_OK;
}

/* Validate body, shape type, frame and colour of a visual definition. */
static int check_visual(mbs_builder *b, const mbs_visual_def *d, const char *lbl)
{
    if (d->body < 0 || d->body > b->nbody)
        return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: body %d does not exist", lbl,
                          d->body);
    if ((int)d->shape < (int)MBS_SHAPE_BOX || (int)d->shape > (int)MBS_SHAPE_MESH)
        return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: unknown shape type %d", lbl,
                          (int)d->shape);
    if (!mbs_all_finite(d->frame.pos, 3) || !mbs_all_finite(d->frame.rot, 9))
        return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: frame is not finite", lbl);
    int r = mbs_rot_check(d->frame.rot);
    if (r != 0)
        return mbs_errorf(b->error, MBS_ERR_ARG, "visual %s: frame rotation %s", lbl,
                          r == 1 ? "is not orthonormal" : "has determinant -1 (a reflection)");
    for (int i = 0; i < 4; ++i)
        if (!(d->color[i] >= 0.0 && d->color[i] <= 1.0))
            return mbs_errorf(b->error, MBS_ERR_ARG,
                              "visual %s: color component %d must be in [0, 1] (got %g)", lbl, i,
                              d->color[i]);
    return check_shape(b, d, lbl);
}

/* Deep copy of one definition's strings into dst (name "" if NULL, mesh only for meshes). */
static int copy_strings(mbs_visual_def *dst, const mbs_visual_def *src)
{
    char *name = mbs_strdup_name(src->name);
    char *mesh = NULL;
    if (src->shape == MBS_SHAPE_MESH) mesh = mbs_strdup_name(src->mesh);
    if (!name || (src->shape == MBS_SHAPE_MESH && !mesh)) {
        free(name);
        free(mesh);
        return MBS_ERR_NOMEM;
    }
    *dst = *src;
    dst->name = name;
    dst->mesh = mesh;
    return MBS_OK;
}

/* Add a visual shape to a body; returns its id (>= 0) or a negative status. */
static int add_visual_impl(mbs_builder *b, const mbs_visual_def *def)
{
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_visual: def is NULL");
    int id = b->nvisual;
    char lbl[96];
    mbs_name_label(def->name, id, lbl, sizeof lbl);
    int st = check_visual(b, def, lbl);
    if (st != MBS_OK) return st;
    if (mbs_builder_grow((void **)&b->visuals, &b->visual_cap, id + 1, sizeof *b->visuals) != 0 ||
        copy_strings(&b->visuals[id], def) != MBS_OK)
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "visual %s: out of memory", lbl);
    b->nvisual++;
    return id;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_visual(mbs_builder *b, const mbs_visual_def *def)
{
    return mbs_builder_note(b, "mbs_add_visual", add_visual_impl(b, def));
}

/* Free the owned strings of n visual definitions and the array. */
void mbs_visuals_free(mbs_visual_def *v, int n)
{
    if (!v) return;
    for (int i = 0; i < n; ++i) {
        free_str(v[i].name);
        free_str(v[i].mesh);
    }
    free(v);
}

/* Deep copy of n visual definitions into *out (NULL when n is 0). */
int mbs_visuals_copy(const mbs_visual_def *src, int n, mbs_visual_def **out)
{
    *out = NULL;
    if (n <= 0) return MBS_OK;
    mbs_visual_def *v = calloc((size_t)n, sizeof *v);
    if (!v) return MBS_ERR_NOMEM;
    for (int i = 0; i < n; ++i)
        if (copy_strings(&v[i], &src[i]) != MBS_OK) {
            mbs_visuals_free(v, i);
            return MBS_ERR_NOMEM;
        }
    *out = v;
    return MBS_OK;
}

/* Number of visual shapes of a compiled model (MBS_ERR_ARG for NULL). */
int mbs_model_nvisual(const mbs_model *m) { return m ? m->nvisual : MBS_ERR_ARG; }

/* Copy of visual id's definition; its strings point into the model. */
int mbs_model_visual(const mbs_model *m, int id, mbs_visual_def *out)
{
    if (!m || !out || id < 0 || id >= m->nvisual) return MBS_ERR_ARG;
    *out = m->visuals[id];
    return MBS_OK;
}

/* Definition of a body as compiled (the world: mass 0, name "world"). */
int mbs_model_body_def(const mbs_model *m, int body, mbs_body_def *out)
{
    if (!m || !out || body < 0 || body >= m->nbody) return MBS_ERR_ARG;
    const mbs_body_model *bm = &m->bodies[body];
    *out = mbs_default_body_def();
    out->name = bm->name;
    out->mass = bm->mass;
    v3_copy(out->com, bm->com);
    memcpy(out->inertia, bm->inertia, sizeof out->inertia);
    return MBS_OK;
}

/* A joint frame of the model as a public frame. */
static void pose_frame(mbs_frame *f, const mbs_pose *X)
{
    memcpy(f->rot, X->R, sizeof f->rot);
    v3_copy(f->pos, X->p);
}

/* Definition of a joint as compiled (cut flag: 1 for every cut joint). */
int mbs_model_joint_def(const mbs_model *m, int joint, mbs_joint_def *out)
{
    if (!m || !out || joint < 0 || joint >= m->njoint) return MBS_ERR_ARG;
    const mbs_joint_model *jm = &m->joints[joint];
    *out = mbs_default_joint_def(jm->type);
    out->name = jm->name;
    out->parent = jm->parent;
    out->child = jm->child;
    pose_frame(&out->frame_parent, &jm->frame_parent);
    pose_frame(&out->frame_child, &jm->frame_child);
    v3_copy(out->axis, jm->axis);
    v3_copy(out->axis2, jm->axis2);
    out->rotation = jm->rotation;
    out->length = jm->length;
    out->cut = jm->cut;
    out->state_priority = jm->state_priority;
    return MBS_OK;
}

/* Definition of a line spring-damper element. */
int mbs_model_spring_damper_def(const mbs_model *m, int force, mbs_spring_damper_def *out)
{
    if (!m || !out || force < 0 || force >= m->nforce) return MBS_ERR_ARG;
    const mbs_force_model *f = &m->forces[force];
    if (f->ops != &mbs_force_spring_damper_ops) return MBS_ERR_ARG;
    *out = mbs_default_spring_damper_def();
    out->name = f->name;
    out->body_a = f->body_a;
    out->body_b = f->body_b;
    v3_copy(out->point_a, f->point_a);
    v3_copy(out->point_b, f->point_b);
    out->stiffness = f->stiffness;
    out->damping = f->damping;
    out->rest_length = f->rest;
    return MBS_OK;
}

/* Uniform gravity vector; zero for no gravity and for point gravity. */
int mbs_model_gravity(const mbs_model *m, double g[3])
{
    if (!m || !g) return MBS_ERR_ARG;
    if (m->gravity_kind == MBS_GRAVITY_UNIFORM)
        v3_copy(g, m->gravity);
    else
        v3_set(g, 0.0, 0.0, 0.0);
    return MBS_OK;
}
