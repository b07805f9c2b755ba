/* URDF joints (revolute, continuous, prismatic, fixed, floating, planar) and mbs's superset
 * (spherical, universal, cylindrical, free, distance, translational; cut="true" closes a loop,
 * state_priority, rotation="cardan", <axis2>, <length>, <child_origin>); <dynamics damping>
 * becomes a joint damper; <mimic> a joint coupling; the root link is welded to the world. */
#include "io/io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    mbs_joint_type type;
} joint_types[] = {
    {"revolute", MBS_JOINT_REVOLUTE}, {"continuous", MBS_JOINT_REVOLUTE},
    {"prismatic", MBS_JOINT_PRISMATIC}, {"fixed", MBS_JOINT_FIXED},
    {"floating", MBS_JOINT_FREE}, {"planar", MBS_JOINT_PLANAR},
    {"spherical", MBS_JOINT_SPHERICAL}, {"universal", MBS_JOINT_UNIVERSAL},
    {"cylindrical", MBS_JOINT_CYLINDRICAL}, {"free", MBS_JOINT_FREE},
    {"distance", MBS_JOINT_DISTANCE}, {"translational", MBS_JOINT_TRANSLATIONAL},
};

/* The joint type named by the type attribute; 0 or -1 (unknown, reported). */
static int joint_type(io_ctx *c, const xmlNode *n, mbs_joint_type *type)
{
    const char *t = io_attr(n, "type");
    if (!t) t = "";
    for (size_t k = 0; k < sizeof joint_types / sizeof joint_types[0]; ++k)
        if (!strcmp(t, joint_types[k].name)) {
            *type = joint_types[k].type;
            return 0;
        }
    io_fail(c, n, MBS_ERR_ARG, "unknown joint type \"%s\" (URDF: revolute, continuous, prismatic, "
            "fixed, floating, planar; mbs: spherical, universal, cylindrical, free, distance, "
            "translational)", t);
    return -1;
}

/* The link named by <tag link="..."/>; NULL (reported) when missing or unknown. */
static io_link *link_of(io_ctx *c, const xmlNode *n, const char *tag)
{
    const xmlNode *k;
    if (io_one(c, n, tag, &k) != MBS_OK) return NULL;
    const char *name = k ? io_attr(k, "link") : NULL;
    if (!name) {
        io_fail(c, n, MBS_ERR_ARG, "<%s link=\"...\"/> is missing", tag);
        return NULL;
    }
    io_link *l = io_find_link(c, name);
    if (!l) io_fail(c, k, MBS_ERR_TOPOLOGY, "%s link \"%s\" is not defined", tag, name);
    return l;
}

/* In-plane x axis for a planar joint without <axis2>: the coordinate axis least along a. */
static void default_axis2(const double a[3], double out[3])
{
    const int k = fabs(a[0]) <= fabs(a[1]) && fabs(a[0]) <= fabs(a[2]) ? 0 : (fabs(a[1]) <= fabs(a[2]) ? 1 : 2);
    out[0] = out[1] = out[2] = 0.0;
    out[k] = 1.0;
}

/* The axes, frames and superset attributes of a joint definition. */
static int read_joint_def(io_ctx *c, const xmlNode *n, mbs_joint_def *jd)
{
    int st = io_origin(c, n, "origin", &jd->frame_parent);
    if (st == MBS_OK) st = io_origin(c, n, "child_origin", &jd->frame_child);
    const xmlNode *ax = NULL, *ax2 = NULL, *len = NULL;
    if (st == MBS_OK) st = io_one(c, n, "axis", &ax);
    if (st == MBS_OK) st = io_one(c, n, "axis2", &ax2);
    if (st == MBS_OK) st = io_one(c, n, "length", &len);
    jd->axis[0] = 1.0, jd->axis[1] = jd->axis[2] = 0.0; /* URDF's default axis */
    if (st == MBS_OK && ax && io_numbers(c, ax, "xyz", jd->axis, 3) < 0) st = MBS_ERR_ARG;
    default_axis2(jd->axis, jd->axis2);
    static const char *const xyz[] = {"xyz", NULL}, *const value[] = {"value", NULL};
    if (st == MBS_OK && ax2) st = io_check_attrs(c, ax2, xyz);
    if (st == MBS_OK && ax2 && io_numbers(c, ax2, "xyz", jd->axis2, 3) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK && len) st = io_check_attrs(c, len, value);
    if (st == MBS_OK && len && io_numbers(c, len, "value", &jd->length, 1) < 0) st = MBS_ERR_ARG;
    if (st == MBS_OK) st = io_flag(c, n, "cut", &jd->cut);
    const char *rot = io_attr(n, "rotation");
    if (st == MBS_OK && rot && strcmp(rot, "cardan") && strcmp(rot, "quaternion"))
        st = io_fail(c, n, MBS_ERR_ARG, "rotation=\"%.64s\": give quaternion or cardan", rot);
    if (rot && !strcmp(rot, "cardan")) jd->rotation = MBS_ROT_CARDAN;
    if (st == MBS_OK && io_integer(c, n, "state_priority", -1000000, 1000000, &jd->state_priority) < 0) st = MBS_ERR_ARG;
    return st;
}

/* Record a tree joint for the mass check. */
static int record_tree_joint(io_ctx *c, const xmlNode *n, const io_link *p, const io_link *ch, int moving)
{
    if (mbs_builder_grow((void **)&c->tj, &c->tj_cap, c->ntj + 1, sizeof *c->tj) != 0)
        return io_fail(c, n, MBS_ERR_NOMEM, "out of memory");
    c->tj[c->ntj++] = (io_tree_joint){(int)(p - c->links), (int)(ch - c->links), moving, n};
    return MBS_OK;
}

/* <dynamics damping="d"/>: a joint damper on the joint's first coordinate. */
static int read_dynamics(io_ctx *c, const xmlNode *n, int joint, mbs_joint_type type)
{
    const xmlNode *dyn;
    double damping = 0.0;
    if (io_one(c, n, "dynamics", &dyn) != MBS_OK) return MBS_ERR_ARG;
    if (!dyn || io_numbers(c, dyn, "damping", &damping, 1) != 1 || damping == 0.0) return MBS_OK;
    if (type != MBS_JOINT_REVOLUTE && type != MBS_JOINT_PRISMATIC) return MBS_OK;
    const int st = mbs_add_joint_spring_damper(c->b, joint, 0, 0.0, damping, 0.0);
    return st < 0 ? io_fail_builder(c, dyn, st) : MBS_OK;
}

int io_read_joint(io_ctx *c, const xmlNode *n)
{
    const char *name = io_attr(n, "name");
    mbs_joint_type type;
    if (!name || !*name) return io_fail(c, n, MBS_ERR_ARG, "a joint needs a name");
    const int added = io_names_add(&c->joint_names, name, c->b->njoint);
    if (added < 0) return io_fail(c, n, MBS_ERR_NOMEM, "out of memory");
    if (!added) return io_fail(c, n, MBS_ERR_ARG, "a second joint named \"%s\"", name);
    if (joint_type(c, n, &type) != 0) return MBS_ERR_ARG;
    io_link *p = link_of(c, n, "parent"), *ch = p ? link_of(c, n, "child") : NULL;
    if (!p || !ch) return MBS_ERR_ARG;
    mbs_joint_def jd = mbs_default_joint_def(type);
    jd.name = name, jd.parent = p->body, jd.child = ch->body;
    if (read_joint_def(c, n, &jd) != MBS_OK) return MBS_ERR_ARG;
    if (!jd.cut && type != MBS_JOINT_DISTANCE) {
        if (ch->body == MBS_WORLD) return io_fail(c, n, MBS_ERR_TOPOLOGY, "the world cannot be a child link");
        if (ch->parent < 0) ch->parent = (int)(p - c->links);
        if (++ch->parents > 1)
            return io_fail(c, n, MBS_ERR_TOPOLOGY, "link \"%s\" has a second parent joint: a closed "
                           "loop (in mbs's superset, mark the loop-closing joint cut=\"true\")", ch->name);
        if (record_tree_joint(c, n, p, ch, type != MBS_JOINT_FIXED) != MBS_OK) return MBS_ERR_NOMEM;
    }
    const int j = mbs_add_joint(c->b, &jd);
    if (j < 0) return io_fail_builder(c, n, j);
    return read_dynamics(c, n, j, type);
}

/* A cycle of tree joints (each link has at most one tree parent, so following parents from
   every link finds any cycle): reported naming its links; MBS_OK when there is none. Linear:
   mark[i] 0 unseen, 1 on the current walk, 2 done. */
static int refuse_cycle(io_ctx *c, const xmlNode *robot, unsigned char *mark)
{
    for (int s = 0; s < c->nlink; ++s) {
        int i = s;
        for (; i >= 0 && mark[i] == 0; i = c->links[i].parent) mark[i] = 1;
        if (i >= 0 && mark[i] == 1) {
            char names[400] = "";
            size_t len = 0;
            int k = i;
            do {
                len += (size_t)snprintf(names + len, len < sizeof names ? sizeof names - len : 0,
                                        "\"%.64s\" <- ", c->links[k].name);
                k = c->links[k].parent;
            } while (k != i && len < sizeof names);
            return io_fail(c, robot, MBS_ERR_TOPOLOGY, "the tree joints form a cycle: %s\"%.64s\" "
                           "(in mbs's superset, mark the loop-closing joint cut=\"true\")", names,
                           c->links[i].name);
        }
        for (i = s; i >= 0 && mark[i] == 1; i = c->links[i].parent) mark[i] = 2;
    }
    return MBS_OK;
}

/* carry[i] = 1 when link i or a link below it (through tree joints) has mass: up from every
   massive link until a link already marked (linear; the tree has no cycle by now). */
static void mark_mass(const io_ctx *c, unsigned char *carry)
{
    for (int i = 0; i < c->nlink; ++i)
        for (int k = i; k >= 0 && c->links[i].massive && !carry[k]; k = c->links[k].parent)
            carry[k] = 1;
}

/* The root link (no parent, and massive or jointed) into *root, MBS_OK; or a second root,
   reported. joined[i] is 1 for a link that is a tree joint's parent or child. */
static int find_root(io_ctx *c, const xmlNode *robot, const unsigned char *joined,
                     const io_link *world, const io_link **root)
{
    for (int i = 0; i < c->nlink; ++i) {
        const io_link *l = &c->links[i];
        if (l->body == MBS_WORLD || l->parents > 0) continue;
        if (!l->massive && !joined[i]) continue; /* a node between line forces (or an error
                                                    compile names) */
        if (world || *root)
            return io_fail(c, robot, MBS_ERR_TOPOLOGY, "links \"%s\" and \"%s\" both have no parent "
                           "joint: a URDF has one root", *root ? (*root)->name : "world", l->name);
        *root = l;
    }
    return MBS_OK;
}

/* The checks of io_weld_root with its work array (mark, carry, joined: nlink bytes each). */
static int check_tree(io_ctx *c, const xmlNode *robot, unsigned char *work, const io_link **root)
{
    unsigned char *mark = work, *carry = work + c->nlink, *joined = work + 2 * c->nlink;
    int st = refuse_cycle(c, robot, mark);
    for (int k = 0; k < c->ntj; ++k) joined[c->tj[k].parent] = joined[c->tj[k].child] = 1;
    if (st == MBS_OK) st = find_root(c, robot, joined, io_find_link(c, "world"), root);
    if (st != MBS_OK) return st;
    mark_mass(c, carry);
    for (int k = 0; k < c->ntj; ++k)
        if (c->tj[k].moving && !carry[c->tj[k].child])
            return io_fail(c, c->tj[k].node, MBS_ERR_ARG, "it moves link \"%s\", which carries no mass "
                           "(no <inertial> there or below it)", c->links[c->tj[k].child].name);
    return MBS_OK;
}

int io_weld_root(io_ctx *c, const xmlNode *robot)
{
    const io_link *world = io_find_link(c, "world"), *root = NULL;
    unsigned char *work = calloc((size_t)c->nlink + 1, 3);
    const int st = work ? check_tree(c, robot, work, &root)
                        : io_fail(c, robot, MBS_ERR_NOMEM, "out of memory");
    free(work);
    if (st != MBS_OK) return st;
    if (!root) return world ? MBS_OK : io_fail(c, robot, MBS_ERR_TOPOLOGY, "no links");
    const char *name; /* welded, as ROS tools read it, or free with floating_base */
    mbs_joint_def jd = mbs_default_joint_def(io_root_joint(c, &name));
    jd.name = name, jd.parent = MBS_WORLD, jd.child = root->body;
    const int j = mbs_add_joint(c->b, &jd);
    return j < 0 ? io_fail_builder(c, robot, j) : MBS_OK;
}

/* See io.h: multiplier 1 and offset 0 when absent, as URDF says. */
int io_read_mimic(io_ctx *c, const xmlNode *n)
{
    static const char *const known[] = {"joint", "multiplier", "offset", NULL};
    const xmlNode *mm = NULL;
    if (io_one(c, n, "mimic", &mm) != MBS_OK) return MBS_ERR_ARG;
    if (!mm) return MBS_OK;
    if (io_check_attrs(c, mm, known) != MBS_OK) return MBS_ERR_ARG;
    const char *name = io_attr(n, "name"), *other = io_attr(mm, "joint");
    if (!other || !*other) return io_fail(c, mm, MBS_ERR_ARG, "a mimic needs a joint");
    mbs_joint_coupling_def cd = mbs_default_joint_coupling_def();
    cd.name = name;
    cd.joint_a = io_joint_id(c, name), cd.joint_b = io_joint_id(c, other);
    if (cd.joint_b < 0) return io_fail(c, mm, MBS_ERR_ARG, "unknown joint \"%s\"", other);
    if (io_numbers(c, mm, "multiplier", &cd.ratio, 1) < 0 ||
        io_numbers(c, mm, "offset", &cd.offset, 1) < 0)
        return MBS_ERR_ARG;
    const int st = mbs_add_joint_coupling(c->b, &cd);
    return st < 0 ? io_fail_builder(c, mm, st) : MBS_OK;
}
