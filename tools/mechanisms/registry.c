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

static const mech *const ALL[] = {
    &mech_pendulum,          &mech_double_pendulum, &mech_triple_pendulum,
    &mech_free_body_springs, &mech_point_gravity,   &mech_robot_r3,
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
