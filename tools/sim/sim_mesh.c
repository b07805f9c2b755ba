/* Mesh files of visual shapes for the animation: STL (binary or ASCII) read into a list of
 * triangles, scaled by the visual's scale. A mesh name is looked up as written (absolute or
 * relative to the current directory), then relative to the model file's folder; for
 * "package://PKG/REST" (ROS) REST is tried in that folder and the two above it (a URDF in
 * PKG/urdf/ and its meshes in PKG/meshes/), "file://" is stripped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_anim.h"

#define MESH_MAX_TRIANGLES 2000000L

/* Open the first candidate path of a mesh name that exists (binary mode). */
static FILE *open_mesh(const char *dir, const char *name, char *path, size_t n)
{
    const char *rest = name;
    int package = 0;
    if (!strncmp(name, "file://", 7)) rest = name + 7;
    if (!strncmp(name, "package://", 10)) {
        const char *slash = strchr(name + 10, '/');
        rest = slash ? slash + 1 : name + 10;
        package = 1;
    }
    static const char *const ups[] = {"", "../", "../../"};
    if (!package) {
        snprintf(path, n, "%s", rest);
        FILE *f = fopen(path, "rb");
        if (f || rest[0] == '/') return f;
    }
    for (int k = 0; dir && dir[0] && k < (package ? 3 : 1); ++k) {
        snprintf(path, n, "%s/%s%s", dir, ups[k], rest);
        FILE *f = fopen(path, "rb");
        if (f) return f;
    }
    return NULL;
}

/* Little-endian float at p. */
static float le_float(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Binary STL body (after the 84-byte header) into tri (9 floats per triangle). */
static int read_binary(FILE *f, long ntri, float *tri)
{
    unsigned char rec[50];
    for (long t = 0; t < ntri; ++t) {
        if (fread(rec, 1, sizeof rec, f) != sizeof rec) return -1;
        for (int k = 0; k < 9; ++k) tri[9 * t + k] = le_float(rec + 12 + 4 * k);
    }
    return 0;
}

/* ASCII STL: every "vertex x y z" line, three per facet; -1 if malformed. */
static int read_ascii(FILE *f, float **tri, long *ntri)
{
    long cap = 0, nv = 0;
    float *v = NULL;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ' || *p == '\t') ++p;
        if (strncmp(p, "vertex", 6)) continue;
        float x, y, z;
        if (sscanf(p + 6, "%f %f %f", &x, &y, &z) != 3 || nv / 3 >= MESH_MAX_TRIANGLES) break;
        if (3 * (nv + 1) > cap) {
            cap = cap ? 2 * cap : 3 * 1024;
            float *q = realloc(v, (size_t)cap * sizeof *q);
            if (!q) break;
            v = q;
        }
        v[3 * nv] = x, v[3 * nv + 1] = y, v[3 * nv + 2] = z;
        ++nv;
    }
    if (nv == 0 || nv % 3 != 0 || !feof(f)) {
        free(v);
        return -1;
    }
    *tri = v;
    *ntri = nv / 3;
    return 0;
}

/* Triangles of the mesh file of a visual, scaled; 0, or -1 with a message (not found,
   not an STL, too large). */
int sim_mesh_load(const char *dir, const char *name, const double scale[3], float **tri,
                  long *ntri, char *err, size_t n)
{
    char path[1024];
    FILE *f = open_mesh(dir, name, path, sizeof path);
    if (!f) {
        snprintf(err, n, "mesh %s: not found", name);
        return -1;
    }
    unsigned char head[84];
    size_t got = fread(head, 1, sizeof head, f);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    long count = got == sizeof head ? (long)(head[80] | head[81] << 8 | head[82] << 16 |
                                             (long)head[83] << 24) : -1;
    int st = -1;
    *tri = NULL;
    if (count > 0 && count <= MESH_MAX_TRIANGLES && size == 84 + 50 * count) {
        *tri = malloc((size_t)count * 9 * sizeof **tri);
        fseek(f, 84, SEEK_SET);
        st = *tri ? read_binary(f, count, *tri) : -1;
        *ntri = count;
    } else if (got >= 5 && !strncmp((const char *)head, "solid", 5)) {
        fseek(f, 0, SEEK_SET);
        st = read_ascii(f, tri, ntri);
    }
    fclose(f);
    if (st < 0) {
        free(*tri);
        *tri = NULL;
        snprintf(err, n, "mesh %s (%s): not a readable STL file", name, path);
        return -1;
    }
    for (long k = 0; k < 3 * *ntri; ++k)
        for (int c = 0; c < 3; ++c) (*tri)[3 * k + c] = (float)((*tri)[3 * k + c] * scale[c]);
    return 0;
}
