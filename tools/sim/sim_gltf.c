/* The recorded motion as an animated glTF 2.0 binary (.glb; Khronos glTF 2.0 specification,
 * §4.4 GLB file format): one node per body with translation and rotation channels sampled at
 * the frame times, a child node per shape with a unit box / cylinder / sphere mesh scaled to
 * its size, lines to the joint points, springs and rods as thin cylinders whose translation,
 * rotation and scale follow their end points, and the world frame's axes. The world sits
 * under a root node that turns "up" (against gravity, z without it) into glTF's y axis. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_anim.h"

#define PI 3.14159265358979323846
#define SEG 24                /* cylinder and sphere segments around */
#define RINGS 12              /* sphere rings */
#define GL_FLOAT 5126
#define GL_USHORT 5123
#define GL_ARRAY 34962
#define GL_ELEMENTS 34963

/* A JSON array built item by item. */
typedef struct jarr {
    char *text;
    size_t len;
    FILE *f;
    int n;
} jarr;

typedef struct gltf {
    unsigned char *bin;
    size_t len, cap;
    int bad;                       /* out of memory somewhere */
    jarr views, accessors, meshes, materials, nodes, samplers, channels;
    int geo[3][3];                 /* per shape kind: position, normal, index accessors */
    int geo_count[3];              /* index counts */
} gltf;

/* Append one item (formatted) to a JSON array; returns its index. */
#if defined(__GNUC__)
static int jitem(jarr *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static int jitem(jarr *a, const char *fmt, ...)
{
    if (!a->f) return a->n++;
    if (a->n) fputc(',', a->f);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(a->f, fmt, ap);
    va_end(ap);
    return a->n++;
}

/* Bytes appended to the binary chunk at a 4-byte aligned offset; returns the offset. */
static size_t put_bin(gltf *g, const void *data, size_t n)
{
    size_t off = (g->len + 3) & ~(size_t)3, need = off + n;
    if (need > g->cap) {
        size_t cap = g->cap ? g->cap : 1 << 16;
        while (cap < need) cap *= 2;
        unsigned char *p = realloc(g->bin, cap);
        if (!p) {
            g->bad = 1;
            return 0;
        }
        g->bin = p, g->cap = cap;
    }
    memset(g->bin + g->len, 0, off - g->len);
    memcpy(g->bin + off, data, n);
    g->len = need;
    return off;
}

/* A buffer view and an accessor over count elements of ncomp floats (or ushort indices);
   min/max of float data are written when want_minmax. Returns the accessor index. */
static int accessor(gltf *g, const void *data, int count, int ncomp, int ushort, int target,
                    int want_minmax)
{
    static const char *const types[] = {"", "SCALAR", "", "VEC3", "VEC4"};
    const size_t bytes = (size_t)count * (size_t)ncomp * (ushort ? 2 : 4);
    const size_t off = put_bin(g, data, bytes);
    int view = target ? jitem(&g->views, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,"
                                         "\"target\":%d}", off, bytes, target)
                      : jitem(&g->views, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}",
                              off, bytes);
    char mm[256] = "";
    if (want_minmax && !ushort) {
        const float *x = data;
        double lo[4], hi[4];
        for (int c = 0; c < ncomp; ++c) lo[c] = INFINITY, hi[c] = -INFINITY;
        for (int i = 0; i < count; ++i)
            for (int c = 0; c < ncomp; ++c)
                lo[c] = fmin(lo[c], x[i * ncomp + c]), hi[c] = fmax(hi[c], x[i * ncomp + c]);
        size_t k = (size_t)snprintf(mm, sizeof mm, ",\"min\":[");
        for (int c = 0; c < ncomp; ++c)
            k += (size_t)snprintf(mm + k, sizeof mm - k, "%s%.9g", c ? "," : "", (double)(float)lo[c]);
        k += (size_t)snprintf(mm + k, sizeof mm - k, "],\"max\":[");
        for (int c = 0; c < ncomp; ++c)
            k += (size_t)snprintf(mm + k, sizeof mm - k, "%s%.9g", c ? "," : "", (double)(float)hi[c]);
        snprintf(mm + k, sizeof mm - k, "]");
    }
    return jitem(&g->accessors, "{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,"
                                "\"type\":\"%s\"%s}",
                 view, ushort ? GL_USHORT : GL_FLOAT, count, types[ncomp], mm);
}

/* Store one unit mesh (positions, normals, indices) for a shape kind. */
static void store_geo(gltf *g, int kind, const float *pos, const float *nrm, int nv,
                      const uint16_t *idx, int ni)
{
    g->geo[kind][0] = accessor(g, pos, nv, 3, 0, GL_ARRAY, 1);
    g->geo[kind][1] = accessor(g, nrm, nv, 3, 0, GL_ARRAY, 0);
    g->geo[kind][2] = accessor(g, idx, ni, 1, 1, GL_ELEMENTS, 0);
    g->geo_count[kind] = ni;
}

/* Unit cube [-0.5, 0.5]^3: four vertices per face with the face normal. */
static void make_box(gltf *g)
{
    float pos[72], nrm[72];
    uint16_t idx[36];
    for (int f = 0; f < 6; ++f) {
        int ax = f / 2, u = (ax + 1) % 3, v = (ax + 2) % 3;
        float s = f % 2 ? -1.0f : 1.0f;
        for (int k = 0; k < 4; ++k) {
            float *p = pos + 3 * (4 * f + k), *n = nrm + 3 * (4 * f + k);
            p[ax] = 0.5f * s;
            p[u] = (k == 1 || k == 2) ? 0.5f : -0.5f;
            p[v] = (k >= 2) ? 0.5f : -0.5f;
            n[0] = n[1] = n[2] = 0.0f;
            n[ax] = s;
        }
        static const int tri[2][6] = {{0, 1, 2, 0, 2, 3}, {0, 2, 1, 0, 3, 2}};
        for (int k = 0; k < 6; ++k) idx[6 * f + k] = (uint16_t)(4 * f + tri[f % 2][k]);
    }
    store_geo(g, MBS_SHAPE_BOX, pos, nrm, 24, idx, 36);
}

/* Unit cylinder: radius 1, length 1 along z, centred; side and two caps. */
static void make_cylinder(gltf *g)
{
    enum { NV = 2 * (SEG + 1) + 2 * (SEG + 2), NI = 6 * SEG + 6 * SEG };
    float pos[3 * NV], nrm[3 * NV];
    uint16_t idx[NI];
    int nv = 0, ni = 0;
    for (int i = 0; i <= SEG; ++i)
        for (int e = 0; e < 2; ++e, ++nv) {
            double a = 2.0 * PI * i / SEG;
            pos[3 * nv] = (float)cos(a), pos[3 * nv + 1] = (float)sin(a), pos[3 * nv + 2] = e ? 0.5f : -0.5f;
            nrm[3 * nv] = (float)cos(a), nrm[3 * nv + 1] = (float)sin(a), nrm[3 * nv + 2] = 0.0f;
        }
    for (int i = 0; i < SEG; ++i) {
        uint16_t a = (uint16_t)(2 * i), b = (uint16_t)(2 * i + 1), c = (uint16_t)(2 * i + 2), d = (uint16_t)(2 * i + 3);
        idx[ni++] = a, idx[ni++] = c, idx[ni++] = b, idx[ni++] = b, idx[ni++] = c, idx[ni++] = d;
    }
    for (int e = 0; e < 2; ++e) {
        const int c0 = nv;
        const float z = e ? 0.5f : -0.5f, nz = e ? 1.0f : -1.0f;
        for (int i = -1; i <= SEG; ++i, ++nv) {
            double a = 2.0 * PI * i / SEG;
            pos[3 * nv] = i < 0 ? 0.0f : (float)cos(a), pos[3 * nv + 1] = i < 0 ? 0.0f : (float)sin(a);
            pos[3 * nv + 2] = z;
            nrm[3 * nv] = nrm[3 * nv + 1] = 0.0f, nrm[3 * nv + 2] = nz;
        }
        for (int i = 0; i < SEG; ++i) {
            idx[ni++] = (uint16_t)c0;
            idx[ni++] = (uint16_t)(c0 + 1 + (e ? i : i + 1));
            idx[ni++] = (uint16_t)(c0 + 1 + (e ? i + 1 : i));
        }
    }
    store_geo(g, MBS_SHAPE_CYLINDER, pos, nrm, nv, idx, ni);
}

/* Unit sphere: radius 1, RINGS x SEG quads. */
static void make_sphere(gltf *g)
{
    enum { NV = (RINGS + 1) * (SEG + 1), NI = 6 * RINGS * SEG };
    float pos[3 * NV];
    uint16_t idx[NI];
    int nv = 0, ni = 0;
    for (int r = 0; r <= RINGS; ++r)
        for (int i = 0; i <= SEG; ++i, ++nv) {
            double th = PI * r / RINGS, ph = 2.0 * PI * i / SEG;
            pos[3 * nv] = (float)(sin(th) * cos(ph));
            pos[3 * nv + 1] = (float)(sin(th) * sin(ph));
            pos[3 * nv + 2] = (float)cos(th);
        }
    for (int r = 0; r < RINGS; ++r)
        for (int i = 0; i < SEG; ++i) {
            uint16_t a = (uint16_t)(r * (SEG + 1) + i), b = (uint16_t)(a + SEG + 1);
            idx[ni++] = a, idx[ni++] = b, idx[ni++] = (uint16_t)(a + 1);
            idx[ni++] = (uint16_t)(a + 1), idx[ni++] = b, idx[ni++] = (uint16_t)(b + 1);
        }
    store_geo(g, MBS_SHAPE_SPHERE, pos, pos, nv, idx, ni); /* unit sphere: normal = position */
}

/* A material of one colour; returns its index. */
static int material(gltf *g, const double c[4])
{
    return jitem(&g->materials, "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[%.4g,%.4g,%.4g,"
                                "%.4g],\"metallicFactor\":0.1,\"roughnessFactor\":0.6}%s}",
                 c[0], c[1], c[2], c[3], c[3] < 1.0 ? ",\"alphaMode\":\"BLEND\"" : "");
}

/* A mesh of a unit shape in a colour; returns its index. */
static int shape_mesh(gltf *g, int kind, const double color[4])
{
    const int mat = material(g, color);
    return jitem(&g->meshes, "{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d},"
                             "\"indices\":%d,\"material\":%d}]}",
                 g->geo[kind][0], g->geo[kind][1], g->geo[kind][2], mat);
}

/* Node scale of a unit shape for a size. */
static void unit_scale(int kind, const double size[3], double s[3])
{
    if (kind == MBS_SHAPE_BOX)
        s[0] = size[0], s[1] = size[1], s[2] = size[2];
    else if (kind == MBS_SHAPE_CYLINDER)
        s[0] = s[1] = size[0], s[2] = size[1];
    else
        s[0] = s[1] = s[2] = size[0];
}

/* A static node carrying one shape; returns its index. */
static int shape_node(gltf *g, const sim_shape *s)
{
    double sc[3];
    unit_scale(s->kind, s->size, sc);
    const int mesh = shape_mesh(g, s->kind, s->color);
    return jitem(&g->nodes, "{\"mesh\":%d,\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,"
                            "%.9g,%.9g,%.9g],\"scale\":[%.9g,%.9g,%.9g]}",
                 mesh, s->pos[0], s->pos[1], s->pos[2], s->quat[0], s->quat[1], s->quat[2],
                 s->quat[3], sc[0], sc[1], sc[2]);
}

/* A node with an STL mesh visual: positions, flat normals, its colour; -1 when out of
   memory. */
static int mesh_node(gltf *g, const sim_mesh_shape *s)
{
    const size_t nv = 3 * (size_t)s->ntri;
    float *nrm = malloc(nv * 3 * sizeof *nrm);
    if (!nrm) {
        g->bad = 1;
        return -1;
    }
    for (long t = 0; t < s->ntri; ++t) {
        const float *v = s->tri + 9 * t;
        const double e1[3] = {v[3] - v[0], v[4] - v[1], v[5] - v[2]};
        const double e2[3] = {v[6] - v[0], v[7] - v[1], v[8] - v[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int c = 0; c < 3; ++c) n[c] = len > 0.0 ? n[c] / len : (c == 2);
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c) nrm[9 * t + 3 * k + c] = (float)n[c];
    }
    const int pos = accessor(g, s->tri, (int)nv, 3, 0, GL_ARRAY, 1);
    const int nor = accessor(g, nrm, (int)nv, 3, 0, GL_ARRAY, 0);
    free(nrm);
    const int mat = material(g, s->color);
    const int mesh = jitem(&g->meshes, "{\"primitives\":[{\"attributes\":{\"POSITION\":%d,"
                                       "\"NORMAL\":%d},\"material\":%d}]}", pos, nor, mat);
    return jitem(&g->nodes, "{\"mesh\":%d,\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,"
                            "%.9g,%.9g,%.9g]}",
                 mesh, s->pos[0], s->pos[1], s->pos[2], s->quat[0], s->quat[1], s->quat[2],
                 s->quat[3]);
}

/* A LINES mesh of the segments fixed on body b (-1 if it has none). */
static int segment_mesh(gltf *g, const sim_anim *a, int b, int mat)
{
    int cnt = 0, k = 0;
    for (int i = 0; i < a->nseg; ++i) cnt += a->segments[i].body_a == b;
    float *p = cnt ? malloc((size_t)cnt * 6 * sizeof *p) : NULL;
    if (!p) {
        g->bad |= cnt > 0;
        return -1;
    }
    for (int i = 0; i < a->nseg; ++i) {
        if (a->segments[i].body_a != b) continue;
        for (int c = 0; c < 3; ++c) {
            p[6 * k + c] = (float)a->segments[i].pa[c];
            p[6 * k + 3 + c] = (float)a->segments[i].pb[c];
        }
        ++k;
    }
    const int acc = accessor(g, p, 2 * cnt, 3, 0, GL_ARRAY, 1);
    free(p);
    return jitem(&g->meshes, "{\"primitives\":[{\"attributes\":{\"POSITION\":%d},\"mode\":1,"
                             "\"material\":%d}]}", acc, mat);
}

/* Copy of a name safe inside a JSON string (quotes, backslashes, controls -> '_'). */
static const char *json_safe(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; *s && k + 1 < n; ++s)
        buf[k++] = (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) ? '_' : *s;
    buf[k] = '\0';
    return buf;
}

/* JSON list "a,b,c" of child indices into buf. */
static void child_list(char *buf, size_t n, const int *ids, int cnt)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < cnt && k < n; ++i)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", ids[i]);
}

/* Body nodes with their shape and segment children; node index of each body in ids. */
static void body_nodes(gltf *g, const sim_anim *a, int *ids)
{
    static const double grey[4] = {0.35, 0.35, 0.35, 1.0};
    const int line_mat = material(g, grey);
    int *kids = malloc(((size_t)a->nshape + (size_t)a->nmesh + 1) * sizeof *kids);
    size_t cap = 12 * ((size_t)a->nshape + (size_t)a->nmesh + 1) + 16;
    char *list = malloc(cap);
    if (!kids || !list) {
        g->bad = 1;
        free(kids);
        free(list);
        return;
    }
    for (int b = 0; b < a->nbody; ++b) {
        int nk = 0;
        for (int i = 0; i < a->nshape; ++i)
            if (a->shapes[i].body == b) kids[nk++] = shape_node(g, &a->shapes[i]);
        for (int i = 0; i < a->nmesh; ++i)
            if (a->meshes[i].body == b) {
                const int node = mesh_node(g, &a->meshes[i]);
                if (node >= 0) kids[nk++] = node;
            }
        const int seg = segment_mesh(g, a, b, line_mat);
        if (seg >= 0) kids[nk++] = jitem(&g->nodes, "{\"mesh\":%d}", seg);
        child_list(list, cap, kids, nk);
        char nm[128];
        ids[b] = jitem(&g->nodes, "{\"name\":\"%s\"%s%s%s}", json_safe(a->names[b], nm, sizeof nm),
                       nk ? ",\"children\":[" : "", list, nk ? "]" : "");
    }
    free(kids);
    free(list);
}

/* Pose (position, quaternion x y z w) of body b in frame f; the world is the identity. */
static void frame_pose(const sim_anim *a, long f, int b, double p[3], double q[4])
{
    if (b == 0) {
        p[0] = p[1] = p[2] = 0.0, q[0] = q[1] = q[2] = 0.0, q[3] = 1.0;
        return;
    }
    const float *o = a->frames + f * a->stride + 3 + 7 * (b - 1);
    for (int i = 0; i < 3; ++i) p[i] = o[i];
    for (int i = 0; i < 4; ++i) q[i] = o[3 + i];
}

/* v rotated by unit quaternion q (x, y, z, w). */
static void quat_rotate(const double q[4], const double v[3], double out[3])
{
    const double t[3] = {2.0 * (q[1] * v[2] - q[2] * v[1]), 2.0 * (q[2] * v[0] - q[0] * v[2]),
                         2.0 * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + q[1] * t[2] - q[2] * t[1];
    out[1] = v[1] + q[3] * t[1] + q[2] * t[0] - q[0] * t[2];
    out[2] = v[2] + q[3] * t[2] + q[0] * t[1] - q[1] * t[0];
}

/* TRS of a thin unit cylinder between the end points of line l in frame f. */
static void line_trs(const sim_anim *a, const sim_line *l, long f, float *T, float *R, float *S)
{
    double p[3], q[4], wa[3], wb[3], d[3];
    frame_pose(a, f, l->body_a, p, q);
    quat_rotate(q, l->pa, wa);
    for (int i = 0; i < 3; ++i) wa[i] += p[i];
    frame_pose(a, f, l->body_b, p, q);
    quat_rotate(q, l->pb, wb);
    for (int i = 0; i < 3; ++i) wb[i] += p[i], d[i] = wb[i] - wa[i];
    const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double r[4] = {0.0, 0.0, 0.0, 1.0};
    if (len > 0.0) { /* half-way quaternion from z to d */
        double u[3] = {d[0] / len, d[1] / len, d[2] / len}, w = 1.0 + u[2];
        if (w < 1e-12)
            r[0] = 1.0, r[3] = 0.0;
        else {
            double nrm = sqrt(u[1] * u[1] + u[0] * u[0] + w * w);
            r[0] = -u[1] / nrm, r[1] = u[0] / nrm, r[3] = w / nrm;
        }
    }
    for (int i = 0; i < 3; ++i) T[i] = (float)(0.5 * (wa[i] + wb[i]));
    for (int i = 0; i < 4; ++i) R[i] = (float)r[i];
    S[0] = S[1] = (float)(0.006 * a->scale), S[2] = (float)len;
}

/* One sampler + channel of the animation. */
static void channel(gltf *g, int input, int node, const char *path, const float *data, long n,
                    int ncomp)
{
    const int out = accessor(g, data, (int)n, ncomp, 0, 0, 0);
    const int smp = jitem(&g->samplers, "{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}",
                          input, out);
    jitem(&g->channels, "{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}", smp, node, path);
}

/* Translation and rotation channels of every moving body; quaternions kept on one
   hemisphere from frame to frame so that interpolation takes the short way. */
static void body_channels(gltf *g, const sim_anim *a, int input, const int *ids, float *T, float *R)
{
    for (int b = 1; b < a->nbody; ++b) {
        double p[3], q[4], prev[4] = {0, 0, 0, 1};
        for (long f = 0; f < a->nframe; ++f) {
            frame_pose(a, f, b, p, q);
            const double dot = q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3];
            for (int i = 0; i < 4; ++i) q[i] = dot < 0.0 ? -q[i] : q[i], prev[i] = q[i];
            for (int i = 0; i < 3; ++i) T[3 * f + i] = (float)p[i];
            for (int i = 0; i < 4; ++i) R[4 * f + i] = (float)q[i];
        }
        channel(g, input, ids[b], "translation", T, a->nframe, 3);
        channel(g, input, ids[b], "rotation", R, a->nframe, 4);
    }
}

/* Spring and rod nodes (thin cylinders) with their TRS channels; their ids in ids. */
static void line_nodes(gltf *g, const sim_anim *a, int input, int *ids, float *T, float *R,
                       float *S)
{
    static const double green[4] = {0.10, 0.60, 0.31, 1.0};
    for (int i = 0; i < a->nline; ++i) {
        ids[i] = jitem(&g->nodes, "{\"name\":\"line%d\",\"mesh\":%d}", i,
                       shape_mesh(g, MBS_SHAPE_CYLINDER, green));
        for (long f = 0; f < a->nframe; ++f)
            line_trs(a, &a->lines[i], f, T + 3 * f, R + 4 * f, S + 3 * f);
        channel(g, input, ids[i], "translation", T, a->nframe, 3);
        channel(g, input, ids[i], "rotation", R, a->nframe, 4);
        channel(g, input, ids[i], "scale", S, a->nframe, 3);
    }
}

/* The world frame's axes: x red, y green, z blue cylinders of length 0.4 L from the origin. */
static int axes_node(gltf *g, const sim_anim *a)
{
    static const double rot[3][4] = {{0, 0.70710678, 0, 0.70710678}, {-0.70710678, 0, 0, 0.70710678},
                                     {0, 0, 0, 1}};
    int kids[3];
    for (int k = 0; k < 3; ++k) {
        sim_shape s = {.kind = MBS_SHAPE_CYLINDER, .size = {0.008 * a->scale, 0.4 * a->scale, 0}};
        memcpy(s.quat, rot[k], sizeof s.quat);
        s.pos[k] = 0.2 * a->scale;
        s.color[k] = 0.9, s.color[3] = 1.0;
        kids[k] = shape_node(g, &s);
    }
    return jitem(&g->nodes, "{\"name\":\"world axes\",\"children\":[%d,%d,%d]}", kids[0], kids[1],
                 kids[2]);
}

/* Open the JSON arrays (memory streams); -1 if out of memory. */
static int open_arrays(gltf *g, jarr **arrs, int n)
{
    for (int i = 0; i < n; ++i) {
        arrs[i]->f = open_memstream(&arrs[i]->text, &arrs[i]->len);
        if (!arrs[i]->f) return -1;
    }
    return 0;
}

/* Close the JSON arrays (text stays until free_arrays); -1 if a stream failed. */
static int close_arrays(jarr **arrs, int n)
{
    int bad = 0;
    for (int i = 0; i < n; ++i)
        if (arrs[i]->f) bad |= fclose(arrs[i]->f) != 0, arrs[i]->f = NULL;
    return bad ? -1 : 0;
}

/* The scene graph and animation into g: nodes, meshes, accessors, channels. */
static int build(gltf *g, const sim_anim *a)
{
    make_box(g);
    make_cylinder(g);
    make_sphere(g);
    const size_t nf = (size_t)a->nframe;
    int *ids = malloc(((size_t)a->nbody + (size_t)a->nline + 2) * sizeof *ids);
    float *T = malloc(nf * 10 * sizeof *T);
    if (!ids || !T) {
        free(ids), free(T);
        return -1;
    }
    float *R = T + 3 * nf, *S = T + 7 * nf;
    body_nodes(g, a, ids);
    for (size_t f = 0; f < nf; ++f) T[f] = a->frames[f * (size_t)a->stride];
    const int input = accessor(g, T, (int)nf, 1, 0, 0, 1);
    body_channels(g, a, input, ids, T, R);
    line_nodes(g, a, input, ids + a->nbody, T, R, S);
    ids[a->nbody + a->nline] = axes_node(g, a);
    const int nkids = a->nbody + a->nline + 1;
    size_t cap = 12 * (size_t)nkids + 16;
    char *list = malloc(cap);
    if (list) {
        child_list(list, cap, ids, nkids);
        /* up onto glTF's y: half-way quaternion (up x y, 1 + up.y), 180 deg about x if -y */
        const double *u = a->up, w = 1.0 + u[1];
        double q[4] = {1.0, 0.0, 0.0, 0.0};
        if (w > 1e-12) {
            const double n = sqrt(u[2] * u[2] + u[0] * u[0] + w * w);
            q[0] = -u[2] / n, q[1] = 0.0, q[2] = u[0] / n, q[3] = w / n;
        }
        jitem(&g->nodes, "{\"name\":\"mbs world\",\"rotation\":[%.9g,%.9g,%.9g,%.9g],"
                         "\"children\":[%s]}", q[0], q[1], q[2], q[3], list);
    }
    free(list);
    free(ids);
    free(T);
    return list && !g->bad ? 0 : -1;
}

/* One GLB chunk: length, type, data padded to 4 bytes with pad. */
static void write_chunk(FILE *f, uint32_t type, const void *data, size_t len, char pad)
{
    const uint32_t padded = (uint32_t)((len + 3) & ~(size_t)3);
    const uint32_t head[2] = {padded, type};
    fwrite(head, 4, 2, f);
    fwrite(data, 1, len, f);
    for (size_t i = len; i < padded; ++i) fputc(pad, f);
}

/* The JSON document of g (malloc'ed, NUL-terminated), or NULL. */
static char *document(const gltf *g, const char *title, int root)
{
    char *doc = NULL, nm[160];
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    if (!f) return NULL;
    fprintf(f, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"mbs-sim\"},\"scene\":0,"
               "\"scenes\":[{\"name\":\"%s\",\"nodes\":[%d]}],", json_safe(title, nm, sizeof nm), root);
    fprintf(f, "\"nodes\":[%s],\"meshes\":[%s],\"materials\":[%s],\"accessors\":[%s],"
               "\"bufferViews\":[%s],\"buffers\":[{\"byteLength\":%zu}],",
            g->nodes.text, g->meshes.text, g->materials.text, g->accessors.text, g->views.text,
            (g->len + 3) & ~(size_t)3);
    fprintf(f, "\"animations\":[{\"name\":\"motion\",\"samplers\":[%s],\"channels\":[%s]}]}",
            g->samplers.text, g->channels.text);
    return fclose(f) == 0 ? doc : (free(doc), NULL);
}

/* Write the .glb; 0 or -1 with a message naming the path. */
int sim_gltf_write(const sim_anim *a, const char *path, const char *title, char *err, size_t n)
{
    if (a->nframe < 1) {
        snprintf(err, n, "%s: no frames recorded", path);
        return -1;
    }
    gltf g;
    memset(&g, 0, sizeof g);
    jarr *arrs[] = {&g.views, &g.accessors, &g.meshes, &g.materials, &g.nodes, &g.samplers,
                    &g.channels};
    const int na = (int)(sizeof arrs / sizeof arrs[0]);
    int st = open_arrays(&g, arrs, na);
    if (st == 0) st = build(&g, a);
    const int root = g.nodes.n - 1;
    if (close_arrays(arrs, na) < 0) st = -1;
    char *doc = st == 0 ? document(&g, title, root) : NULL;
    int io = -1;
    if (doc) {
        FILE *f = fopen(path, "wb");
        if (f) {
            const size_t jl = strlen(doc), jp = (jl + 3) & ~(size_t)3, bp = (g.len + 3) & ~(size_t)3;
            const uint32_t head[3] = {0x46546C67u, 2u, (uint32_t)(12 + 8 + jp + 8 + bp)};
            fwrite(head, 4, 3, f);
            write_chunk(f, 0x4E4F534Au, doc, jl, ' ');
            write_chunk(f, 0x004E4942u, g.bin, g.len, '\0');
            io = ferror(f) ? -1 : 0;
            if (fclose(f) != 0) io = -1;
        }
        if (io < 0) snprintf(err, n, "%s: %s", path, strerror(errno));
    } else
        snprintf(err, n, "%s: out of memory", path);
    for (int i = 0; i < na; ++i) free(arrs[i]->text);
    free(g.bin);
    free(doc);
    return io;
}
