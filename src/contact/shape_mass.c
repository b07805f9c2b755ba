/* Volume, centre and inertia per unit density of a shape (shapes.h): the primitives in
 * closed form, a triangle mesh by the divergence theorem over the tetrahedra its triangles
 * span with the origin (Mirtich, "Fast and accurate computation of polyhedral mass
 * properties", 1996; the covariance of a tetrahedron as in Blow and Binstock, "How to find
 * the inertia tensor (or other mass properties) of a 3D solid body represented by a triangle
 * mesh", 2004). */
#include "contact/shapes.h"

#include <math.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* Diagonal inertia per unit density. */
static void diag(double J[9], double x, double y, double z)
{
    memset(J, 0, 9 * sizeof(double));
    J[0] = x, J[4] = y, J[8] = z;
}

/* A sphere, box, cylinder or capsule about its centre (the shape origin). */
static double primitive(const mbs_shape_def *d, double J[9])
{
    const double r = d->size[0], h = d->size[1], r2 = r * r;
    if (d->kind == MBS_COLLISION_SPHERE) {
        const double V = 4.0 / 3.0 * PI * r2 * r;
        diag(J, 0.4 * V * r2, 0.4 * V * r2, 0.4 * V * r2);
        return V;
    }
    if (d->kind == MBS_COLLISION_BOX) {
        const double a2 = r2, b2 = h * h, c2 = d->size[2] * d->size[2];
        const double V = 8.0 * r * h * d->size[2];
        diag(J, V * (b2 + c2) / 3.0, V * (a2 + c2) / 3.0, V * (a2 + b2) / 3.0);
        return V;
    }
    const double Vc = 2.0 * PI * r2 * h, tc = Vc * (r2 / 4.0 + h * h / 3.0);
    if (d->kind == MBS_COLLISION_CYLINDER) {
        diag(J, tc, tc, 0.5 * Vc * r2);
        return Vc;
    }
    /* capsule: two hemispheres, each 2/5 m r^2 about its flat face's centre, centroid 3r/8
       from it, moved to the capsule's centre by the parallel-axis theorem */
    const double Vs = 4.0 / 3.0 * PI * r2 * r, ts = Vs * (0.4 * r2 + h * h + 0.75 * h * r);
    diag(J, tc + ts, tc + ts, 0.5 * Vc * r2 + 0.4 * Vs * r2);
    return Vc + Vs;
}

/* Volume, first and second moments of the tetrahedra (origin, triangle). */
static double mesh_moments(const mbs_shape_def *d, double s[3], double C[9])
{
    double V = 0.0;
    memset(s, 0, 3 * sizeof(double));
    memset(C, 0, 9 * sizeof(double));
    for (int t = 0; t < d->ntriangle; ++t) {
        const double *p[3], *v = d->vertices;
        for (int k = 0; k < 3; ++k) p[k] = v + 3 * d->triangles[3 * t + k];
        double w[3], sum[3];
        v3_cross(w, p[1], p[2]);
        const double det = v3_dot(p[0], w);
        V += det / 6.0;
        for (int i = 0; i < 3; ++i) sum[i] = p[0][i] + p[1][i] + p[2][i];
        v3_axpy(s, det / 24.0, sum);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double a = sum[i] * sum[j];
                for (int k = 0; k < 3; ++k) a += p[k][i] * p[k][j];
                C[3 * i + j] += det / 120.0 * a;
            }
    }
    return V;
}

/* See shapes.h. */
int mbs_shape_mass(char *err, const mbs_shape_def *d, const char *lbl, double *vol,
                   double c[3], double J[9])
{
    if (d->kind == MBS_COLLISION_PLANE)
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: a plane has no volume", lbl);
    if (d->kind != MBS_COLLISION_MESH) {
        v3_set(c, 0.0, 0.0, 0.0);
        *vol = primitive(d, J);
        return MBS_OK;
    }
    if (d->ntriangle < 4)
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: a mesh needs at least 4 triangles for "
                          "its mass properties (%d given)", lbl, d->ntriangle);
    double s[3], C[9];
    const double V = mesh_moments(d, s, C);
    double lo[3], hi[3], ext = 0.0;
    v3_copy(lo, d->vertices), v3_copy(hi, d->vertices);
    for (int k = 1; k < d->nvertex; ++k)
        for (int i = 0; i < 3; ++i)
            lo[i] = fmin(lo[i], d->vertices[3 * k + i]), hi[i] = fmax(hi[i], d->vertices[3 * k + i]);
    for (int i = 0; i < 3; ++i) ext = fmax(ext, hi[i] - lo[i]);
    if (!(V > 1e-12 * ext * ext * ext))
        return mbs_errorf(err, MBS_ERR_ARG, "shape %s: its triangles enclose the volume %g: "
                          "not closed, or not counterclockwise seen from outside", lbl, V);
    v3_scale(c, s, 1.0 / V);
    const double tr = C[0] + C[4] + C[8], cc = v3_dot(c, c);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) /* about the origin, then moved to the centre */
            J[3 * i + j] = (i == j ? tr - V * cc : 0.0) - C[3 * i + j] + V * c[i] * c[j];
    *vol = V;
    return MBS_OK;
}
