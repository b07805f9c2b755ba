/* The animation scene of a model and its recorded motion (see sim_anim.h). Shapes come from
 * the model's visuals; a body without drawable visuals gets the defaults: a sphere at its
 * centre of mass (radius growing with the cube root of its mass), lines from there to its
 * joint points, and a cylinder along the axis of each joint into it. Mesh visuals are drawn
 * when their file is an STL that sim_mesh.c finds. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_anim.h"

#define PALETTE_N 6
static const double PALETTE[PALETTE_N][3] = {{0.27, 0.51, 0.71}, {0.84, 0.37, 0.30},
                                             {0.40, 0.65, 0.35}, {0.58, 0.40, 0.74},
                                             {0.85, 0.65, 0.13}, {0.30, 0.62, 0.68}};
static const double JOINT_COLOR[4] = {0.93, 0.55, 0.15, 1.0};

/* Grow *arr (capacity *cap, elements of size elem) to hold need; -1 if out of memory. */
static int grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) return 0;
    int ncap = *cap ? 2 * *cap : 16;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Unit quaternion (x, y, z, w) of a rotation matrix (row-major), Shepperd's method. */
static void mat_to_quat(const double R[9], double q[4])
{
    const double tr = R[0] + R[4] + R[8];
    if (tr > 0.0) {
        double s = 2.0 * sqrt(tr + 1.0);
        q[3] = 0.25 * s, q[0] = (R[7] - R[5]) / s, q[1] = (R[2] - R[6]) / s, q[2] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        q[3] = (R[7] - R[5]) / s, q[0] = 0.25 * s, q[1] = (R[1] + R[3]) / s, q[2] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        q[3] = (R[2] - R[6]) / s, q[0] = (R[1] + R[3]) / s, q[1] = 0.25 * s, q[2] = (R[5] + R[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        q[3] = (R[3] - R[1]) / s, q[0] = (R[2] + R[6]) / s, q[1] = (R[5] + R[7]) / s, q[2] = 0.25 * s;
    }
}

/* Quaternion (x, y, z, w) turning the z axis onto unit vector u. */
static void quat_z_to(const double u[3], double q[4])
{
    /* half-way quaternion: (z x u, 1 + z.u) normalised; u = -z needs any perpendicular axis */
    double w = 1.0 + u[2];
    if (w < 1e-12) {
        q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
        return;
    }
    double x = -u[1], y = u[0], nrm = sqrt(x * x + y * y + w * w);
    q[0] = x / nrm, q[1] = y / nrm, q[2] = 0.0, q[3] = w / nrm;
}

/* Append a shape; -1 if out of memory. */
static int add_shape(sim_anim *a, const sim_shape *s)
{
    if (grow((void **)&a->shapes, &a->shape_cap, a->nshape + 1, sizeof *a->shapes) < 0) return -1;
    a->shapes[a->nshape++] = *s;
    return 0;
}

/* Append a line to a list; -1 if out of memory. */
static int add_line(sim_line **arr, int *cnt, int *cap, int ba, const double pa[3], int bb,
                    const double pb[3])
{
    if (grow((void **)arr, cap, *cnt + 1, sizeof **arr) < 0) return -1;
    sim_line *l = &(*arr)[(*cnt)++];
    l->body_a = ba, l->body_b = bb;
    memcpy(l->pa, pa, sizeof l->pa);
    memcpy(l->pb, pb, sizeof l->pb);
    return 0;
}

/* World point of a body point. */
static void world_point(mbs_data *d, int body, const double p[3], double out[3])
{
    double pos[3], R[9];
    mbs_body_pose(d, body, pos, R);
    for (int i = 0; i < 3; ++i) out[i] = pos[i] + R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2];
}

/* Length scale: diagonal of the box around body origins, centres of mass and joint points
   at the first state (at least 0.1 m so a lone body still gets a visible size). */
static double length_scale(const mbs_model *m, mbs_data *d)
{
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, w[3];
    const double zero[3] = {0, 0, 0};
    for (int b = 0; b < mbs_model_nbody(m); ++b) {
        mbs_body_def bd;
        mbs_model_body_def(m, b, &bd);
        for (int k = 0; k < 2; ++k) {
            world_point(d, b, k ? bd.com : zero, w);
            for (int i = 0; i < 3; ++i) lo[i] = fmin(lo[i], w[i]), hi[i] = fmax(hi[i], w[i]);
        }
    }
    for (int j = 0; j < mbs_model_njoint(m); ++j) {
        mbs_joint_def jd;
        mbs_model_joint_def(m, j, &jd);
        world_point(d, jd.child, jd.frame_child.pos, w);
        for (int i = 0; i < 3; ++i) lo[i] = fmin(lo[i], w[i]), hi[i] = fmax(hi[i], w[i]);
    }
    double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return fmax(sqrt(dx * dx + dy * dy + dz * dz), 0.1);
}

/* A mesh visual from its STL file; skipped (counted, first reason kept) when unreadable. */
static int add_mesh(sim_anim *a, const mbs_visual_def *v, const char *dir, unsigned char *drawable)
{
    sim_mesh_shape s = {.body = v->body};
    char why[256];
    if (sim_mesh_load(dir, v->mesh, v->scale, &s.tri, &s.ntri, why, sizeof why) < 0) {
        if (a->nmesh_skipped++ == 0) snprintf(a->mesh_note, sizeof a->mesh_note, "%s", why);
        return 0;
    }
    if (grow((void **)&a->meshes, &a->mesh_cap, a->nmesh + 1, sizeof *a->meshes) < 0) {
        free(s.tri);
        return -1;
    }
    memcpy(s.pos, v->frame.pos, sizeof s.pos);
    mat_to_quat(v->frame.rot, s.quat);
    memcpy(s.color, v->color, sizeof s.color);
    a->meshes[a->nmesh++] = s;
    drawable[v->body] = 1;
    return 0;
}

/* The model's own visual shapes; drawable[b] = 1 for bodies that got one. */
static int add_visuals(sim_anim *a, const mbs_model *m, const char *dir, unsigned char *drawable)
{
    for (int i = 0; i < mbs_model_nvisual(m); ++i) {
        mbs_visual_def v;
        mbs_model_visual(m, i, &v);
        if (v.shape == MBS_SHAPE_MESH) {
            if (add_mesh(a, &v, dir, drawable) < 0) return -1;
            continue;
        }
        sim_shape s = {.body = v.body, .kind = v.shape};
        memcpy(s.pos, v.frame.pos, sizeof s.pos);
        mat_to_quat(v.frame.rot, s.quat);
        memcpy(s.size, v.size, sizeof s.size);
        memcpy(s.color, v.color, sizeof s.color);
        if (add_shape(a, &s) < 0) return -1;
        drawable[v.body] = 1;
    }
    return 0;
}

/* Default of a body without visuals: a sphere at the com sized by mass. */
static int add_body_default(sim_anim *a, const mbs_body_def *bd, int b, double mmax)
{
    if (!(bd->mass > 0.0)) return 0;
    const double L = a->scale;
    sim_shape s = {.body = b, .kind = MBS_SHAPE_SPHERE, .quat = {0, 0, 0, 1}};
    memcpy(s.pos, bd->com, sizeof s.pos);
    s.size[0] = s.size[1] = s.size[2] = fmax(0.06 * L * cbrt(bd->mass / mmax), 0.015 * L);
    memcpy(s.color, PALETTE[(b - 1) % PALETTE_N], 3 * sizeof(double));
    s.color[3] = 1.0;
    return add_shape(a, &s);
}

/* Defaults of one joint whose child body has no visuals: a cylinder along each axis (a
   sphere for a spherical joint) at the child joint frame, a line from the com to the joint
   points on both bodies; a distance rod as a moving line. */
static int add_joint_default(sim_anim *a, const mbs_joint_def *jd, const mbs_body_def *com_p,
                             const mbs_body_def *com_c, const unsigned char *drawable)
{
    const double L = a->scale;
    if (jd->type == MBS_JOINT_DISTANCE)
        return add_line(&a->lines, &a->nline, &a->line_cap, jd->parent, jd->frame_parent.pos,
                        jd->child, jd->frame_child.pos);
    if (jd->parent != MBS_WORLD && !drawable[jd->parent] &&
        add_line(&a->segments, &a->nseg, &a->seg_cap, jd->parent, com_p->com, jd->parent,
                 jd->frame_parent.pos) < 0)
        return -1;
    if (drawable[jd->child]) return 0;
    if (add_line(&a->segments, &a->nseg, &a->seg_cap, jd->child, com_c->com, jd->child,
                 jd->frame_child.pos) < 0)
        return -1;
    const double *R = jd->frame_child.rot;
    const double *axes[2] = {jd->axis, jd->axis2};
    int naxis = jd->type == MBS_JOINT_UNIVERSAL ? 2 : jd->type == MBS_JOINT_FREE ? 0 : 1;
    for (int k = 0; k < naxis; ++k) {
        sim_shape s = {.body = jd->child, .kind = MBS_SHAPE_CYLINDER};
        memcpy(s.pos, jd->frame_child.pos, sizeof s.pos);
        memcpy(s.color, JOINT_COLOR, sizeof s.color);
        if (jd->type == MBS_JOINT_SPHERICAL || jd->type == MBS_JOINT_FIXED) {
            s.kind = MBS_SHAPE_SPHERE;
            s.quat[3] = 1.0;
            s.size[0] = s.size[1] = s.size[2] = 0.02 * L;
        } else {
            double u[3]; /* the axis in child body coordinates */
            for (int i = 0; i < 3; ++i)
                u[i] = R[3 * i] * axes[k][0] + R[3 * i + 1] * axes[k][1] + R[3 * i + 2] * axes[k][2];
            quat_z_to(u, s.quat);
            s.size[0] = (jd->type == MBS_JOINT_PRISMATIC ? 0.006 : 0.012) * L;
            s.size[1] = (jd->type == MBS_JOINT_PRISMATIC ? 0.2 : 0.07) * L;
        }
        if (add_shape(a, &s) < 0) return -1;
    }
    return 0;
}

/* Defaults for bodies without visuals, and the spring lines. */
static int add_defaults(sim_anim *a, const mbs_model *m, const unsigned char *drawable)
{
    double mmax = 0.0;
    mbs_body_def bd, bp;
    for (int b = 1; b < a->nbody; ++b) {
        mbs_model_body_def(m, b, &bd);
        mmax = fmax(mmax, bd.mass);
    }
    for (int b = 1; b < a->nbody; ++b) {
        mbs_model_body_def(m, b, &bd);
        if (!drawable[b] && add_body_default(a, &bd, b, mmax) < 0) return -1;
    }
    for (int j = 0; j < mbs_model_njoint(m); ++j) {
        mbs_joint_def jd;
        mbs_model_joint_def(m, j, &jd);
        mbs_model_body_def(m, jd.parent, &bp);
        mbs_model_body_def(m, jd.child, &bd);
        if (add_joint_default(a, &jd, &bp, &bd, drawable) < 0) return -1;
    }
    for (int f = 0; f < mbs_model_nforce(m); ++f) {
        mbs_spring_damper_def sd;
        if (mbs_model_spring_damper_def(m, f, &sd) != MBS_OK) continue;
        if (add_line(&a->lines, &a->nline, &a->line_cap, sd.body_a, sd.point_a, sd.body_b,
                     sd.point_b) < 0)
            return -1;
    }
    return 0;
}

/* Body names (owned copies). */
static int copy_names(sim_anim *a, const mbs_model *m)
{
    a->names = calloc((size_t)a->nbody, sizeof *a->names);
    if (!a->names) return -1;
    for (int b = 0; b < a->nbody; ++b) {
        const char *nm = mbs_model_body_name(m, b);
        char buf[32];
        if (!nm || !nm[0]) snprintf(buf, sizeof buf, "body%d", b), nm = buf;
        a->names[b] = malloc(strlen(nm) + 1);
        if (!a->names[b]) return -1;
        strcpy(a->names[b], nm);
    }
    return 0;
}

/* Scene of the model at the data's current (first) state. */
int sim_anim_begin(sim_anim *a, const mbs_model *m, mbs_data *d, int has_residual,
                   const char *mesh_dir, char *err, size_t n)
{
    memset(a, 0, sizeof *a);
    a->nbody = mbs_model_nbody(m);
    a->has_residual = has_residual;
    a->fps = SIM_ANIM_FPS;
    a->next_t = -INFINITY;
    a->stride = 3 + 7 * (a->nbody - 1);
    a->scale = length_scale(m, d);
    double g[3] = {0, 0, 0};
    mbs_model_gravity(m, g);
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    for (int i = 0; i < 3; ++i) a->up[i] = gn > 0.0 ? -g[i] / gn : (i == 2);
    unsigned char *drawable = calloc((size_t)a->nbody, 1);
    int st = drawable && copy_names(a, m) == 0 ? 0 : -1;
    if (st == 0) st = add_visuals(a, m, mesh_dir, drawable);
    if (st == 0) st = add_defaults(a, m, drawable);
    free(drawable);
    if (st < 0) snprintf(err, n, "animation: out of memory");
    return st;
}

/* Record the current state if a frame is due (and always the last one). */
int sim_anim_sample(sim_anim *a, mbs_data *d, double energy, double residual, int last,
                    char *err, size_t n)
{
    const double t = mbs_data_time(d);
    if (t < a->next_t - 1e-9 / a->fps && !last) return 0;
    a->next_t = (floor(t * a->fps + 1e-6) + 1.0) / a->fps;
    if (a->nframe == a->frame_cap) {
        long cap = a->frame_cap ? 2 * a->frame_cap : 256;
        float *p = realloc(a->frames, (size_t)cap * (size_t)a->stride * sizeof *p);
        if (!p) {
            snprintf(err, n, "animation: out of memory");
            return -1;
        }
        a->frames = p;
        a->frame_cap = cap;
    }
    float *f = a->frames + a->nframe * a->stride;
    f[0] = (float)t, f[1] = (float)energy, f[2] = (float)residual;
    for (int b = 1; b < a->nbody; ++b) {
        double pos[3], R[9], q[4];
        mbs_body_pose(d, b, pos, R);
        mat_to_quat(R, q);
        float *o = f + 3 + 7 * (b - 1);
        for (int i = 0; i < 3; ++i) o[i] = (float)pos[i];
        for (int i = 0; i < 4; ++i) o[3 + i] = (float)q[i];
    }
    a->nframe++;
    return 0;
}

/* Time covered by the frames. */
double sim_anim_duration(const sim_anim *a)
{
    return a->nframe > 0 ? (double)a->frames[(a->nframe - 1) * a->stride] - a->frames[0] : 0.0;
}

/* Release everything the recording owns. */
void sim_anim_free(sim_anim *a)
{
    if (a->names)
        for (int b = 0; b < a->nbody; ++b) free(a->names[b]);
    free(a->names);
    for (int i = 0; i < a->nmesh; ++i) free(a->meshes[i].tri);
    free(a->meshes);
    free(a->shapes);
    free(a->segments);
    free(a->lines);
    free(a->frames);
    memset(a, 0, sizeof *a);
}
