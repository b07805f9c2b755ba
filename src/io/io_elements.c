/* mbs's superset of URDF, top-level elements besides links and joints: <gravity>,
 * <spring_damper>, <joint_spring_damper>. ROS's own extensions (<material>, <transmission>,
 * <gazebo>, <ros2_control>) are skipped; anything else is an error (a typo in a model
 * should not vanish). One handler per element, looked up in a table. */
#include "io/io.h"

#include <string.h>

/* A number attribute that must be there. */
static int need(io_ctx *c, const xmlNode *n, const char *name, double *x)
{
    const int st = io_numbers(c, n, name, x, 1);
    return st == 1 ? MBS_OK : st < 0 ? st : io_fail(c, n, MBS_ERR_ARG, "attribute %s is missing", name);
}

/* <gravity xyz="gx gy gz"/>, <gravity center="x y z" mu="..."/> or <gravity none="true"/>. */
static int read_gravity(io_ctx *c, const xmlNode *n)
{
    double g[3], center[3], mu;
    char buf[16];
    int st;
    if (io_attr(n, "none", buf, (int)sizeof buf) && !strcmp(buf, "true"))
        st = mbs_builder_set_no_gravity(c->b);
    else if (io_numbers(c, n, "xyz", g, 3) == 1)
        st = mbs_builder_set_gravity(c->b, g);
    else if (io_numbers(c, n, "center", center, 3) == 1 && need(c, n, "mu", &mu) == MBS_OK)
        st = mbs_builder_set_point_gravity(c->b, center, mu);
    else
        return io_fail(c, n, MBS_ERR_ARG, "give xyz=\"gx gy gz\", center=\"x y z\" with mu, or none=\"true\"");
    return st < 0 ? io_fail_builder(c, n, st) : MBS_OK;
}

/* See io.h. */
int io_link_body(io_ctx *c, const xmlNode *n, const char *attr, int *body)
{
    char name[128];
    if (!io_attr(n, attr, name, (int)sizeof name)) return io_fail(c, n, MBS_ERR_ARG, "attribute %s is missing", attr);
    const io_link *l = io_find_link(c, name);
    if (!l) return io_fail(c, n, MBS_ERR_TOPOLOGY, "%s \"%s\" is not a link of the file", attr, name);
    *body = l->body;
    return MBS_OK;
}

/* <spring_damper name link_a link_b point_a point_b stiffness damping rest_length/> */
static int read_spring_damper(io_ctx *c, const xmlNode *n)
{
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    char name[128];
    if (io_attr(n, "name", name, (int)sizeof name)) sd.name = name;
    int st = io_link_body(c, n, "link_a", &sd.body_a);
    if (st == MBS_OK) st = io_link_body(c, n, "link_b", &sd.body_b);
    if (st == MBS_OK && io_numbers(c, n, "point_a", sd.point_a, 3) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "point_b", sd.point_b, 3) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "stiffness", &sd.stiffness, 1) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "damping", &sd.damping, 1) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "rest_length", &sd.rest_length, 1) < 0) st = MBS_ERR_ARG;
    if (st != MBS_OK) return st;
    const int id = mbs_add_spring_damper(c->b, &sd);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* The id of the joint named name in the builder, or -1. */
static int joint_id(const mbs_builder *b, const char *name)
{
    for (int j = 0; j < b->njoint; ++j)
        if (b->joints[j].name && !strcmp(b->joints[j].name, name)) return j;
    return -1;
}

/* <joint_spring_damper joint="name" dof="0" stiffness="k" damping="d" rest="q0"/> */
static int read_joint_spring_damper(io_ctx *c, const xmlNode *n)
{
    char name[128];
    double dof = 0.0, k = 0.0, d = 0.0, rest = 0.0;
    if (!io_attr(n, "joint", name, (int)sizeof name)) return io_fail(c, n, MBS_ERR_ARG, "attribute joint is missing");
    const int j = joint_id(c->b, name);
    if (j < 0) return io_fail(c, n, MBS_ERR_TOPOLOGY, "joint \"%s\" is not a joint of the file", name);
    if (io_numbers(c, n, "dof", &dof, 1) < 0 || io_numbers(c, n, "stiffness", &k, 1) < 0 ||
        io_numbers(c, n, "damping", &d, 1) < 0 || io_numbers(c, n, "rest", &rest, 1) < 0)
        return MBS_ERR_ARG;
    const int id = mbs_add_joint_spring_damper(c->b, j, (int)dof, k, d, rest);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

static int skip(io_ctx *c, const xmlNode *n)
{
    (void)c, (void)n;
    return MBS_OK;
}

static const struct {
    const char *tag;
    int (*read)(io_ctx *c, const xmlNode *n);
} handlers[] = {
    {"gravity", read_gravity},           {"spring_damper", read_spring_damper},
    {"joint_spring_damper", read_joint_spring_damper},
    {"closure", io_read_closure},        {"curve_joint", io_read_curve_joint},
    {"material", skip}, {"transmission", skip}, {"gazebo", skip}, {"ros2_control", skip},
};

int io_read_element(io_ctx *c, const xmlNode *n)
{
    for (size_t k = 0; k < sizeof handlers / sizeof handlers[0]; ++k)
        if (io_is(n, handlers[k].tag)) return handlers[k].read(c, n);
    return io_fail(c, n, MBS_ERR_ARG, "unknown element (URDF: link, joint, material; mbs: gravity, "
                   "spring_damper, joint_spring_damper, closure, curve_joint)");
}
