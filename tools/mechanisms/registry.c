/* The list of built-in mechanisms and small helpers shared by the mechanism files.
 * To add a mechanism: write NAME.c defining `const mech mech_NAME`, declare it below, add
 * it to ALL and to tools/meson.build (see README.md in this folder). */
#include <math.h>
#include <string.h>

#include "mechanisms.h"

extern const mech mech_pendulum;
extern const mech mech_double_pendulum;
extern const mech mech_triple_pendulum;
extern const mech mech_free_body_springs;
extern const mech mech_point_gravity;
extern const mech mech_robot_r3;
extern const mech mech_spatial_fourbar;
extern const mech mech_engine_cylindrical;
extern const mech mech_door_hinges;
extern const mech mech_planar_loop_tilted;
extern const mech mech_engine_v6;
extern const mech mech_two_loops;
extern const mech mech_a02_fourbars;

static const mech *const ALL[] = {
    &mech_pendulum,      &mech_double_pendulum,    &mech_triple_pendulum, &mech_free_body_springs,
    &mech_point_gravity, &mech_robot_r3,           &mech_spatial_fourbar, &mech_engine_cylindrical,
    &mech_door_hinges,   &mech_planar_loop_tilted, &mech_engine_v6,       &mech_two_loops,
    &mech_a02_fourbars,
};

/* Every built-in mechanism, in listing order. */
const mech *const *mech_all(size_t *count)
{
    *count = sizeof ALL / sizeof ALL[0];
    return ALL;
}

/* Lookup by command-line name. */
const mech *mech_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof ALL / sizeof ALL[0]; ++i)
        if (strcmp(ALL[i]->name, name) == 0) return ALL[i];
    return NULL;
}

/* Homogeneous box along x from the body origin. */
mbs_body_def mech_box_body(const char *name, double mass, double lx, double ly, double lz)
{
    const double com[3] = {0.5 * lx, 0.0, 0.0};
    return mech_body(name, mass, com, mass * (ly * ly + lz * lz) / 12.0,
                     mass * (lx * lx + lz * lz) / 12.0, mass * (lx * lx + ly * ly) / 12.0);
}

/* Body with principal inertia about the com along the body axes. */
mbs_body_def mech_body(const char *name, double mass, const double com[3], double ixx, double iyy,
                       double izz)
{
    mbs_body_def def = mbs_default_body_def();
    def.name = name;
    def.mass = mass;
    memcpy(def.com, com, sizeof def.com);
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = ixx;
    def.inertia[4] = iyy;
    def.inertia[8] = izz;
    return def;
}

/* Revolute joint at pos on the parent, child frame at the child's origin. */
mbs_joint_def mech_revolute(const char *name, int parent, int child, const double pos[3],
                            const double axis[3])
{
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.name = name;
    j.parent = parent;
    j.child = child;
    memcpy(j.frame_parent.pos, pos, sizeof j.frame_parent.pos);
    memcpy(j.axis, axis, sizeof j.axis);
    return j;
}

/* World position of a body point. */
static int world_point(mbs_data *d, int body, const double p[3], double out[3])
{
    double pos[3], R[9];
    const int st = mbs_body_pose(d, body, pos, R);
    if (st != MBS_OK) return st;
    for (int i = 0; i < 3; ++i)
        out[i] = pos[i] + R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2];
    return MBS_OK;
}

/* |x_a - x_b| of two body points in world coordinates. */
double mech_point_gap(mbs_data *d, int body_a, const double pa[3], int body_b, const double pb[3])
{
    double xa[3], xb[3];
    if (world_point(d, body_a, pa, xa) != MBS_OK || world_point(d, body_b, pb, xb) != MBS_OK)
        return NAN;
    return sqrt((xa[0] - xb[0]) * (xa[0] - xb[0]) + (xa[1] - xb[1]) * (xa[1] - xb[1]) +
                (xa[2] - xb[2]) * (xa[2] - xb[2]));
}

/* q = qx(a1) * qy(a2) * qz(a3), scalar first. */
void mech_cardan_quat(double a1, double a2, double a3, double quat[4])
{
    const double c1 = cos(0.5 * a1), s1 = sin(0.5 * a1), c2 = cos(0.5 * a2), s2 = sin(0.5 * a2),
                 c3 = cos(0.5 * a3), s3 = sin(0.5 * a3);
    /* qx qy = (c1 c2, s1 c2, c1 s2, s1 s2) */
    const double w = c1 * c2, x = s1 * c2, y = c1 * s2, z = s1 * s2;
    quat[0] = w * c3 - z * s3;
    quat[1] = x * c3 + y * s3;
    quat[2] = y * c3 - x * s3;
    quat[3] = z * c3 + w * s3;
}

/* ---------------------------------------------------------------- loop mechanism helpers */

/* Unit vector of b - a and its length. */
static double direction(const double a[3], const double b[3], double e[3])
{
    const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int i = 0; i < 3; ++i) e[i] = d[i] / len;
    return len;
}

/* Inertia sum_k I_k u_k u_k^T of principal moments I_k about the unit axes u_k. */
static void principal_inertia(const double u[3][3], const double I[3], double out[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out[3 * i + j] =
                I[0] * u[0][i] * u[0][j] + I[1] * u[1][i] * u[1][j] + I[2] * u[2][i] * u[2][j];
}

/* Two unit vectors completing e to a right-handed frame (e, u1, u2), u1 from hint. */
static void complete_frame(const double e[3], const double hint[3], double u1[3], double u2[3])
{
    const double h = hint[0] * e[0] + hint[1] * e[1] + hint[2] * e[2];
    double w[3] = {hint[0] - h * e[0], hint[1] - h * e[1], hint[2] - h * e[2]};
    double n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    if (n < 1e-9) { /* hint along e: any perpendicular */
        const double alt[3] = {fabs(e[0]) < 0.9 ? 1.0 : 0.0, fabs(e[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        complete_frame(e, alt, u1, u2);
        return;
    }
    for (int i = 0; i < 3; ++i) u1[i] = w[i] / n;
    u2[0] = e[1] * u1[2] - e[2] * u1[1];
    u2[1] = e[2] * u1[0] - e[0] * u1[2];
    u2[2] = e[0] * u1[1] - e[1] * u1[0];
}

/* MSL BodyCylinder: m = rho pi r^2 L, I = diag(m r^2 / 2, m (L^2 + 3 r^2) / 12, same). */
mech_part mech_cylinder(const double a[3], const double b[3], double diameter)
{
    mech_part p;
    double u[3][3];
    const double len = direction(a, b, u[0]), r = 0.5 * diameter, y[3] = {0, 1, 0};
    complete_frame(u[0], y, u[1], u[2]);
    p.mass = MECH_DENSITY * MECH_PI * r * r * len;
    const double I[3] = {0.5 * p.mass * r * r, p.mass * (len * len + 3.0 * r * r) / 12.0,
                         p.mass * (len * len + 3.0 * r * r) / 12.0};
    for (int i = 0; i < 3; ++i) p.com[i] = 0.5 * (a[i] + b[i]);
    principal_inertia(u, I, p.inertia);
    return p;
}

/* MSL BodyBox: m = rho L w h, I = m / 12 diag(w^2 + h^2, L^2 + h^2, L^2 + w^2) in the box
   axes (length, width, height). */
mech_part mech_box(const double a[3], const double b[3], double width, double height,
                   const double width_dir[3])
{
    mech_part p;
    double u[3][3];
    const double len = direction(a, b, u[0]);
    complete_frame(u[0], width_dir, u[1], u[2]);
    p.mass = MECH_DENSITY * len * width * height;
    const double I[3] = {p.mass * (width * width + height * height) / 12.0,
                         p.mass * (len * len + height * height) / 12.0,
                         p.mass * (len * len + width * width) / 12.0};
    for (int i = 0; i < 3; ++i) p.com[i] = 0.5 * (a[i] + b[i]);
    principal_inertia(u, I, p.inertia);
    return p;
}

/* Sum of parts: I = sum_k I_k + m_k (|r_k|^2 E - r_k r_k^T), r_k = com_k - com. */
mbs_body_def mech_parts_body(const char *name, const mech_part *parts, int n)
{
    mbs_body_def def = mbs_default_body_def();
    def.name = name;
    def.mass = 0.0;
    memset(def.com, 0, sizeof def.com);
    memset(def.inertia, 0, sizeof def.inertia);
    for (int k = 0; k < n; ++k) {
        def.mass += parts[k].mass;
        for (int i = 0; i < 3; ++i) def.com[i] += parts[k].mass * parts[k].com[i];
    }
    for (int i = 0; i < 3 && def.mass > 0.0; ++i) def.com[i] /= def.mass;
    for (int k = 0; k < n; ++k) {
        const double *c = parts[k].com, m = parts[k].mass;
        const double r[3] = {c[0] - def.com[0], c[1] - def.com[1], c[2] - def.com[2]};
        const double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                def.inertia[3 * i + j] +=
                    parts[k].inertia[3 * i + j] + m * ((i == j ? rr : 0.0) - r[i] * r[j]);
    }
    return def;
}

/* Joint at ppos on the parent and cpos on the child, identity frame rotations. */
mbs_joint_def mech_joint(mbs_joint_type type, const char *name, int parent, int child,
                         const double ppos[3], const double cpos[3], const double axis[3])
{
    mbs_joint_def j = mbs_default_joint_def(type);
    j.name = name;
    j.parent = parent;
    j.child = child;
    if (ppos) memcpy(j.frame_parent.pos, ppos, sizeof j.frame_parent.pos);
    if (cpos) memcpy(j.frame_child.pos, cpos, sizeof j.frame_child.pos);
    if (axis) memcpy(j.axis, axis, sizeof j.axis);
    return j;
}

/* Body id by name in the data's model. */
int mech_body_id(mbs_data *d, const char *name)
{
    return mbs_model_find_body(mbs_data_model(d), name);
}

/* World direction R v of a body vector. */
static int world_vector(mbs_data *d, int body, const double v[3], double out[3])
{
    double pos[3], R[9];
    const int st = mbs_body_pose(d, body, pos, R);
    if (st != MBS_OK) return st;
    for (int i = 0; i < 3; ++i)
        out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
    return MBS_OK;
}

/* |a_w x b_w| of two body axes in world coordinates. */
double mech_axis_gap(mbs_data *d, int body_a, const double a[3], int body_b, const double b[3])
{
    double x[3], y[3];
    if (world_vector(d, body_a, a, x) != MBS_OK || world_vector(d, body_b, b, y) != MBS_OK)
        return NAN;
    const double c[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                         x[0] * y[1] - x[1] * y[0]};
    return sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

/* a_w . b_w of two body axes in world coordinates. */
double mech_axis_dot(mbs_data *d, int body_a, const double a[3], int body_b, const double b[3])
{
    double x[3], y[3];
    if (world_vector(d, body_a, a, x) != MBS_OK || world_vector(d, body_b, b, y) != MBS_OK)
        return NAN;
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

/* |w - (w . e) e| with w = x_b - x_a and e the world direction of the axis. */
double mech_line_gap(mbs_data *d, int body_a, const double pa[3], const double axis[3], int body_b,
                     const double pb[3])
{
    double xa[3], xb[3], e[3];
    if (world_point(d, body_a, pa, xa) != MBS_OK || world_point(d, body_b, pb, xb) != MBS_OK ||
        world_vector(d, body_a, axis, e) != MBS_OK)
        return NAN;
    const double w[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
    const double t = w[0] * e[0] + w[1] * e[1] + w[2] * e[2];
    return sqrt((w[0] - t * e[0]) * (w[0] - t * e[0]) + (w[1] - t * e[1]) * (w[1] - t * e[1]) +
                (w[2] - t * e[2]) * (w[2] - t * e[2]));
}
