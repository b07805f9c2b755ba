/* mbs's superset of URDF, top-level elements besides links and joints: <gravity>,
 * <spring_damper>, <joint_spring_damper>, <joint_force>, <joint_friction>, <joint_brake>,
 * <joint_stop>, <frame_force>, <initial>; mbs-sim's <simulation>, <track> and
 * <plot> and mbs-fmu's <input> are skipped (the tools read them). ROS's own extensions (<material>, <transmission>,
 * <gazebo>, <ros2_control>) are skipped; anything else is an error (a typo in a model
 * should not vanish). One handler per element, looked up in a table. */
#include "io/io.h"

#include <math.h>
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
    const char *none = io_attr(n, "none");
    int st;
    if (none && !strcmp(none, "true"))
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
    const char *name = io_attr(n, attr);
    if (!name) return io_fail(c, n, MBS_ERR_ARG, "attribute %s is missing", attr);
    const io_link *l = io_find_link(c, name);
    if (!l) return io_fail(c, n, MBS_ERR_TOPOLOGY, "%s \"%s\" is not a link of the file", attr, name);
    *body = l->body;
    return MBS_OK;
}

/* <spring_damper name link_a link_b point_a point_b stiffness damping rest_length/> */
static int read_spring_damper(io_ctx *c, const xmlNode *n)
{
    mbs_spring_damper_def sd = mbs_default_spring_damper_def();
    sd.name = io_attr(n, "name");
    int st = io_link_body(c, n, "link_a", &sd.body_a);
    if (st == MBS_OK) st = io_link_body(c, n, "link_b", &sd.body_b);
    if (st == MBS_OK && io_numbers(c, n, "point_a", sd.point_a, 3) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "point_b", sd.point_b, 3) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "stiffness", &sd.stiffness, 1) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "damping", &sd.damping, 1) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "rest_length", &sd.rest_length, 1) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "mass", &sd.mass, 1) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "mass_fraction", &sd.mass_fraction, 1) < 0) st = MBS_ERR_ARG;
    if (st != MBS_OK) return st;
    const int id = mbs_add_spring_damper(c->b, &sd);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* <line_force_two_masses name link_a link_b point_a point_b stiffness damping rest_length
   mass_a distance_a mass_b distance_b/> */
static int read_two_masses(io_ctx *c, const xmlNode *n)
{
    mbs_line_force_two_masses_def t = mbs_default_line_force_two_masses_def();
    t.name = io_attr(n, "name");
    int st = io_link_body(c, n, "link_a", &t.body_a);
    if (st == MBS_OK) st = io_link_body(c, n, "link_b", &t.body_b);
    const char *attr[] = {"stiffness", "damping", "rest_length", "mass_a", "distance_a",
                          "mass_b", "distance_b"};
    double *val[] = {&t.stiffness, &t.damping, &t.rest_length, &t.mass_a, &t.distance_a,
                     &t.mass_b, &t.distance_b};
    if (st == MBS_OK && io_numbers(c, n, "point_a", t.point_a, 3) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "point_b", t.point_b, 3) < 0) st = MBS_ERR_ARG;
    for (int i = 0; i < 7 && st == MBS_OK; ++i)
        if (io_numbers(c, n, attr[i], val[i], 1) < 0) st = MBS_ERR_ARG;
    if (st != MBS_OK) return st;
    const int id = mbs_add_line_force_two_masses(c->b, &t);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* <joint_spring_damper joint="name" dof="0" stiffness="k" damping="d" rest="q0"/> */
static int read_joint_spring_damper(io_ctx *c, const xmlNode *n)
{
    const char *name;
    int dof = 0;
    double k = 0.0, d = 0.0, rest = 0.0;
    if (!(name = io_attr(n, "joint"))) return io_fail(c, n, MBS_ERR_ARG, "attribute joint is missing");
    const int j = io_joint_id(c, name);
    if (j < 0) return io_fail(c, n, MBS_ERR_TOPOLOGY, "joint \"%s\" is not a joint of the file", name);
    if (io_integer(c, n, "dof", -1000000, 1000000, &dof) < 0 || io_numbers(c, n, "stiffness", &k, 1) < 0 ||
        io_numbers(c, n, "damping", &d, 1) < 0 || io_numbers(c, n, "rest", &rest, 1) < 0)
        return MBS_ERR_ARG;
    const int id = mbs_add_joint_spring_damper(c->b, j, dof, k, d, rest);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* <joint_force joint="name" dof="0" force="F"/> */
static int read_joint_force(io_ctx *c, const xmlNode *n)
{
    const char *name;
    int dof = 0;
    double force = 0.0;
    if (!(name = io_attr(n, "joint"))) return io_fail(c, n, MBS_ERR_ARG, "attribute joint is missing");
    const int j = io_joint_id(c, name);
    if (j < 0) return io_fail(c, n, MBS_ERR_TOPOLOGY, "joint \"%s\" is not a joint of the file", name);
    if (io_integer(c, n, "dof", -1000000, 1000000, &dof) < 0 || need(c, n, "force", &force) != MBS_OK) return MBS_ERR_ARG;
    const int id = mbs_add_joint_force(c->b, j, dof, force);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* hold="true" | "false" | a list of 0/1 per coordinate (nv of them) into hold; its count. */
static int read_hold(io_ctx *c, const xmlNode *n, int joint, unsigned char hold[6], int *nv)
{
    const char *buf = io_attr(n, "hold");
    const mbs_joint_def *jd = &c->b->joints[joint];
    const mbs_joint_ops *ops = jd->cut ? NULL : mbs_joint_ops_for(jd->type, jd->rotation);
    if (!strcmp(buf, "true") || !strcmp(buf, "false")) {
        *nv = ops ? ops->nv : 0;
        memset(hold, !strcmp(buf, "true"), 6);
        return MBS_OK;
    }
    double h[6];
    if (io_number_list(c, n, "hold", h, 6, nv) < 0) return MBS_ERR_ARG;
    for (int i = 0; i < *nv; ++i) {
        if (h[i] != 0.0 && h[i] != 1.0)
            return io_fail(c, n, MBS_ERR_ARG, "attribute hold=\"%.64s\": give true, false or "
                           "one 0 or 1 per coordinate", buf);
        hold[i] = h[i] != 0.0;
    }
    return MBS_OK;
}

/* <initial joint="name" q="..." v="..." hold="true"/>: start values of a joint (nq and nv
   numbers) and the coordinates held at their values by assembly. */
static int read_initial(io_ctx *c, const xmlNode *n)
{
    const char *name;
    double q[8], v[8];
    int nq = 0, nv = 0, st = MBS_OK;
    if (!(name = io_attr(n, "joint"))) return io_fail(c, n, MBS_ERR_ARG, "attribute joint is missing");
    const int j = io_joint_id(c, name);
    if (j < 0) return io_fail(c, n, MBS_ERR_TOPOLOGY, "joint \"%s\" is not a joint of the file", name);
    const int has_q = io_number_list(c, n, "q", q, 8, &nq), has_v = io_number_list(c, n, "v", v, 8, &nv);
    if (has_q < 0 || has_v < 0) return MBS_ERR_ARG;
    const int has_hold = io_attr(n, "hold") != NULL;
    if (!has_q && !has_v && !has_hold) return io_fail(c, n, MBS_ERR_ARG, "give q, v or hold");
    if (has_q || has_v) st = mbs_set_joint_start(c->b, j, has_q ? q : NULL, nq, has_v ? v : NULL, nv);
    if (st == MBS_OK && has_hold) {
        unsigned char hold[6];
        int nh = 0;
        if (read_hold(c, n, j, hold, &nh) != MBS_OK) return MBS_ERR_ARG;
        st = mbs_set_joint_hold(c->b, j, hold, nh);
    }
    return st < 0 ? io_fail_builder(c, n, st) : MBS_OK;
}

/* <rotor name joint="j" dof="0" inertia="J" ratio="n" housing="link" axis="x y z"/>
   (housing absent: the world) */
static int read_rotor(io_ctx *c, const xmlNode *n)
{
    mbs_rotor_def r = mbs_default_rotor_def();
    const char *joint;
    r.name = io_attr(n, "name");
    if (!(joint = io_attr(n, "joint"))) return io_fail(c, n, MBS_ERR_ARG, "attribute joint is missing");
    r.joint = io_joint_id(c, joint);
    if (r.joint < 0) return io_fail(c, n, MBS_ERR_TOPOLOGY, "joint \"%s\" is not a joint of the file", joint);
    if (io_integer(c, n, "dof", -1000000, 1000000, &r.dof) < 0 || need(c, n, "inertia", &r.inertia) != MBS_OK ||
        io_numbers(c, n, "ratio", &r.ratio, 1) < 0 || io_numbers(c, n, "axis", r.axis, 3) < 0)
        return MBS_ERR_ARG;
    if (io_attr(n, "housing") && io_link_body(c, n, "housing", &r.housing) != MBS_OK)
        return MBS_ERR_ARG;
    const int id = mbs_add_rotor(c->b, &r);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* The joint named by attribute "joint" and the "dof" attribute (default 0). */
static int joint_dof(io_ctx *c, const xmlNode *n, int *joint, int *dof)
{
    const char *name;
    if (!(name = io_attr(n, "joint"))) return io_fail(c, n, MBS_ERR_ARG, "attribute joint is missing");
    *joint = io_joint_id(c, name);
    if (*joint < 0) return io_fail(c, n, MBS_ERR_TOPOLOGY, "joint \"%s\" is not a joint of the file", name);
    *dof = 0;
    return io_integer(c, n, "dof", -1000000, 1000000, dof) < 0 ? MBS_ERR_ARG : MBS_OK;
}

/* Optional number attributes into out[i] (left as they are when absent); a status. */
static int numbers(io_ctx *c, const xmlNode *n, const char *const *names, double *const *out)
{
    for (int i = 0; names[i]; ++i)
        if (io_numbers(c, n, names[i], out[i], 1) < 0) return MBS_ERR_ARG;
    return MBS_OK;
}

/* <joint_friction name joint dof coulomb stiction viscous/>; stiction defaults to coulomb. */
static int read_joint_friction(io_ctx *c, const xmlNode *n)
{
    mbs_joint_friction_def f = mbs_default_joint_friction_def();
    f.name = io_attr(n, "name");
    f.stiction = NAN;
    static const char *const names[] = {"coulomb", "stiction", "viscous", NULL};
    double *const out[] = {&f.coulomb, &f.stiction, &f.viscous};
    int st = joint_dof(c, n, &f.joint, &f.dof);
    if (st == MBS_OK) st = numbers(c, n, names, out);
    if (st != MBS_OK) return st;
    if (isnan(f.stiction)) f.stiction = f.coulomb;
    const int id = mbs_add_joint_friction(c->b, &f);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* <joint_brake name joint dof limit peak/>. */
static int read_joint_brake(io_ctx *c, const xmlNode *n)
{
    mbs_joint_brake_def f = mbs_default_joint_brake_def();
    f.name = io_attr(n, "name");
    static const char *const names[] = {"limit", "peak", NULL};
    double *const out[] = {&f.limit, &f.peak};
    int st = joint_dof(c, n, &f.joint, &f.dof);
    if (st == MBS_OK) st = numbers(c, n, names, out);
    if (st != MBS_OK) return st;
    const int id = mbs_add_joint_brake(c->b, &f);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* <joint_stop name joint dof lower upper law="elastic|restitution" stiffness damping
   restitution rest_velocity/>; a missing limit is none. */
static int read_joint_stop(io_ctx *c, const xmlNode *n)
{
    mbs_joint_stop_def f = mbs_default_joint_stop_def();
    const char *law = io_attr(n, "law");
    f.name = io_attr(n, "name");
    if (law) {
        if (!strcmp(law, "elastic")) f.law = MBS_STOP_ELASTIC;
        else if (strcmp(law, "restitution")) return io_fail(c, n, MBS_ERR_ARG, "law \"%.64s\": give elastic or restitution", law);
    }
    static const char *const names[] = {"lower", "upper", "stiffness", "damping", "restitution",
                                        "rest_velocity", NULL};
    double *const out[] = {&f.lower, &f.upper, &f.stiffness, &f.damping, &f.restitution,
                           &f.rest_velocity};
    int st = joint_dof(c, n, &f.joint, &f.dof);
    if (st == MBS_OK) st = numbers(c, n, names, out);
    if (st != MBS_OK) return st;
    const int id = mbs_add_joint_stop(c->b, &f);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* resolve="world" | "frame_a" | "frame_b" (default frame_b) of a frame force. */
static int read_resolve(io_ctx *c, const xmlNode *n, mbs_resolve *r)
{
    static const char *const names[] = {"world", "frame_a", "frame_b"};
    const char *buf = io_attr(n, "resolve");
    if (!buf) return MBS_OK;
    for (int k = 0; k < 3; ++k)
        if (!strcmp(buf, names[k])) {
            *r = (mbs_resolve)k;
            return MBS_OK;
        }
    return io_fail(c, n, MBS_ERR_ARG, "resolve=\"%.64s\": expected world, frame_a or frame_b", buf);
}

/* <frame_force name link_a link_b resolve force torque> with <origin_a xyz rpy/> and
   <origin_b xyz rpy/>: a constant force and torque between two frames (link_a absent: the
   world); the host may change the value later (mbs_set_frame_force). */
static int read_frame_force(io_ctx *c, const xmlNode *n)
{
    mbs_frame_force_def fd = mbs_default_frame_force_def();
    fd.name = io_attr(n, "name");
    int st = io_attr(n, "link_a") ? io_link_body(c, n, "link_a", &fd.body_a) : MBS_OK;
    if (st == MBS_OK) st = io_link_body(c, n, "link_b", &fd.body_b);
    if (st == MBS_OK) st = read_resolve(c, n, &fd.resolve);
    if (st == MBS_OK) st = io_origin(c, n, "origin_a", &fd.frame_a);
    if (st == MBS_OK) st = io_origin(c, n, "origin_b", &fd.frame_b);
    if (st == MBS_OK && io_numbers(c, n, "force", fd.force, 3) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && io_numbers(c, n, "torque", fd.torque, 3) < 0) st = MBS_ERR_ARG;
    if (st != MBS_OK) return st;
    const int id = mbs_add_frame_force(c->b, &fd);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}

/* Elements of the tools (docs/model-files.md): <simulation>, <track>, <plot> are read by
   mbs-sim, <track> and <input> by mbs-fmu, not by the library. */
static int skip(io_ctx *c, const xmlNode *n)
{
    (void)c, (void)n;
    return MBS_OK;
}

#define ATTRS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define DOF_ATTRS "name", "joint", "dof"

/* Each element's reader and its attributes (NULL: not the library's to check); any other
   attribute is refused, as a misspelt one would change the model without a word. */
static const struct {
    const char *tag;
    int (*read)(io_ctx *c, const xmlNode *n);
    const char *const *attrs;
} handlers[] = {
    {"gravity", read_gravity, ATTRS("xyz", "center", "mu", "none")},
    {"spring_damper", read_spring_damper, ATTRS("name", "link_a", "link_b", "point_a", "point_b",
        "stiffness", "damping", "rest_length", "mass", "mass_fraction")},
    {"joint_spring_damper", read_joint_spring_damper, ATTRS("joint", "dof", "stiffness",
        "damping", "rest")},
    {"initial", read_initial, ATTRS("joint", "q", "v", "hold")},
    {"line_force_two_masses", read_two_masses, ATTRS("name", "link_a", "link_b", "point_a",
        "point_b", "stiffness", "damping", "rest_length", "mass_a", "distance_a", "mass_b",
        "distance_b")},
    {"rotor", read_rotor, ATTRS(DOF_ATTRS, "inertia", "ratio", "housing", "axis")},
    {"joint_force", read_joint_force, ATTRS("joint", "dof", "force")},
    {"joint_friction", read_joint_friction, ATTRS(DOF_ATTRS, "coulomb", "stiction", "viscous")},
    {"joint_brake", read_joint_brake, ATTRS(DOF_ATTRS, "limit", "peak")},
    {"joint_stop", read_joint_stop, ATTRS(DOF_ATTRS, "lower", "upper", "law", "stiffness",
        "damping", "restitution", "rest_velocity")},
    {"frame_force", read_frame_force, ATTRS("name", "link_a", "link_b", "resolve", "force",
        "torque")},
    {"closure", io_read_closure, ATTRS("strategy")},
    {"curve_joint", io_read_curve_joint, ATTRS("name", "parent", "child", "rolling")},
    {"material", skip, NULL}, {"transmission", skip, NULL}, {"gazebo", skip, NULL},
    {"ros2_control", skip, NULL}, {"simulation", skip, NULL}, {"track", skip, NULL},
    {"plot", skip, NULL}, {"input", skip, NULL},
};

int io_read_element(io_ctx *c, const xmlNode *n)
{
    for (size_t k = 0; k < sizeof handlers / sizeof handlers[0]; ++k) {
        if (!io_is(n, handlers[k].tag)) continue;
        const int st = handlers[k].attrs ? io_check_attrs(c, n, handlers[k].attrs) : MBS_OK;
        return st != MBS_OK ? st : handlers[k].read(c, n);
    }
    if (io_skip_foreign(c, n) == MBS_OK) return MBS_OK;
    return io_fail(c, n, MBS_ERR_ARG, "unknown element (URDF: link, joint, material; mbs: gravity, "
                   "spring_damper, joint_spring_damper, line_force_two_masses, rotor, joint_force, "
                   "joint_friction, joint_brake, joint_stop, frame_force, closure, curve_joint, "
                   "initial; mbs-sim: simulation, track, plot; mbs-fmu: input)");
}
