/* URDF links: <inertial> (mass, centre of mass, inertia turned by the origin's rpy),
 * <visual> (box, cylinder, sphere, mesh; inline or named material colour) and robot-level
 * <material> colours. A link named "world" is the world itself (ROS's convention). */
#include "io/io.h"

#include <stdlib.h>
#include <string.h>

/* Append a link record; MBS_ERR_NOMEM or MBS_OK. */
static int push_link(io_ctx *c, const io_link *l)
{
    if (mbs_builder_grow((void **)&c->links, &c->link_cap, c->nlink + 1, sizeof *c->links) != 0)
        return MBS_ERR_NOMEM;
    c->links[c->nlink++] = *l;
    return MBS_OK;
}

int io_read_materials(io_ctx *c, const xmlNode *robot)
{
    for (xmlNode *n = robot->children; n; n = n->next) {
        if (!io_is(n, "material")) continue;
        io_material m = {io_attr(n, "name"), {0.7, 0.7, 0.7, 1.0}};
        if (!m.name)
            return io_fail(c, n, MBS_ERR_ARG, "a robot-level material needs a name");
        const xmlNode *col;
        if (io_one(c, n, "color", &col) != MBS_OK) return MBS_ERR_ARG;
        if (col && io_numbers(c, col, "rgba", m.rgba, 4) < 0) return MBS_ERR_ARG;
        if (mbs_builder_grow((void **)&c->mats, &c->mat_cap, c->nmat + 1, sizeof *c->mats) != 0)
            return io_fail(c, n, MBS_ERR_NOMEM, "out of memory");
        c->mats[c->nmat++] = m;
    }
    return MBS_OK;
}

/* mass, com and inertia (about the com, link axes: R I R^T) of an <inertial> block. */
static int read_inertial(io_ctx *c, const xmlNode *in, mbs_body_def *bd)
{
    mbs_frame o;
    int st = io_origin(c, in, "origin", &o);
    if (st != MBS_OK) return st;
    const xmlNode *mass, *inertia;
    if (io_one(c, in, "mass", &mass) != MBS_OK || io_one(c, in, "inertia", &inertia) != MBS_OK)
        return MBS_ERR_ARG;
    const int got = mass ? io_numbers(c, mass, "value", &bd->mass, 1) : 0;
    if (got < 0) return got; /* reported */
    if (got == 0) return io_fail(c, mass ? mass : in, MBS_ERR_ARG, "<inertial> needs <mass value=...>");
    static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    double v[6];
    if (!inertia) return io_fail(c, in, MBS_ERR_ARG, "<inertial> needs <inertia ixx=... izz=...>");
    for (int k = 0; k < 6; ++k)
        if (io_numbers(c, inertia, names[k], &v[k], 1) != 1)
            return io_fail(c, inertia, MBS_ERR_ARG, "attribute %s missing or not a number", names[k]);
    const double I[9] = {v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5]};
    double T[9];
    for (int i = 0; i < 3; ++i) /* T = R I, inertia = T R^T */
        for (int j = 0; j < 3; ++j)
            T[3 * i + j] = o.rot[3 * i] * I[j] + o.rot[3 * i + 1] * I[3 + j] + o.rot[3 * i + 2] * I[6 + j];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            bd->inertia[3 * i + j] = T[3 * i] * o.rot[3 * j] + T[3 * i + 1] * o.rot[3 * j + 1] +
                                     T[3 * i + 2] * o.rot[3 * j + 2];
    for (int i = 0; i < 3; ++i) /* exactly symmetric */
        for (int j = 0; j < i; ++j) bd->inertia[3 * i + j] = bd->inertia[3 * j + i];
    memcpy(bd->com, o.pos, sizeof bd->com);
    return MBS_OK;
}

int io_read_link(io_ctx *c, const xmlNode *n)
{
    io_link l;
    memset(&l, 0, sizeof l);
    l.name = io_attr(n, "name"), l.parent = -1;
    if (!l.name || !*l.name) return io_fail(c, n, MBS_ERR_ARG, "a link needs a name");
    const int added = io_names_add(&c->link_names, l.name, c->nlink);
    if (added < 0) return io_fail(c, n, MBS_ERR_NOMEM, "out of memory");
    if (!added) return io_fail(c, n, MBS_ERR_ARG, "a second link named \"%s\"", l.name);
    l.line = (int)xmlGetLineNo(n);
    if (!strcmp(l.name, "world")) {
        l.body = MBS_WORLD;
    } else {
        mbs_body_def bd = mbs_default_body_def();
        bd.name = l.name;
        bd.mass = 0.0;
        memset(bd.inertia, 0, sizeof bd.inertia);
        const xmlNode *in;
        if (io_one(c, n, "inertial", &in) != MBS_OK) return MBS_ERR_ARG;
        if (in && read_inertial(c, in, &bd) != MBS_OK) return MBS_ERR_ARG;
        io_settle_inertia(c, n, &bd);
        l.massive = bd.mass > 0.0;
        l.body = mbs_add_body(c->b, &bd);
        if (l.body < 0) return io_fail_builder(c, n, l.body);
        double x0[3]; /* a node's start position (mbs_set_node_start) */
        const int ns = io_numbers(c, n, "node_start", x0, 3);
        if (ns < 0) return MBS_ERR_ARG;
        const int st = ns == 1 ? mbs_set_node_start(c->b, l.body, x0) : MBS_OK;
        if (st != MBS_OK) return io_fail_builder(c, n, st);
    }
    return push_link(c, &l) == MBS_OK ? MBS_OK : io_fail(c, n, MBS_ERR_NOMEM, "out of memory");
}

/* The geometry of a <visual> into def: box size, cylinder radius/length, sphere radius,
   mesh filename/scale. */
static int read_geometry(io_ctx *c, const xmlNode *vis, mbs_visual_def *def)
{
    const xmlNode *g;
    if (io_one(c, vis, "geometry", &g) != MBS_OK) return MBS_ERR_ARG;
    const xmlNode *k = g ? g->children : NULL;
    while (k && k->type != XML_ELEMENT_NODE) k = k->next;
    if (!k) return io_fail(c, vis, MBS_ERR_ARG, "<visual> needs <geometry> with a shape");
    if (io_is(k, "box")) {
        def->shape = MBS_SHAPE_BOX;
        return io_numbers(c, k, "size", def->size, 3) == 1 ? MBS_OK : io_fail(c, k, MBS_ERR_ARG, "size=\"x y z\" needed");
    }
    if (io_is(k, "cylinder")) {
        def->shape = MBS_SHAPE_CYLINDER;
        if (io_numbers(c, k, "radius", &def->size[0], 1) != 1 || io_numbers(c, k, "length", &def->size[1], 1) != 1)
            return io_fail(c, k, MBS_ERR_ARG, "radius and length needed");
        return MBS_OK;
    }
    if (io_is(k, "sphere")) {
        def->shape = MBS_SHAPE_SPHERE;
        return io_numbers(c, k, "radius", &def->size[0], 1) == 1 ? MBS_OK : io_fail(c, k, MBS_ERR_ARG, "radius needed");
    }
    if (io_is(k, "mesh")) {
        def->shape = MBS_SHAPE_MESH;
        def->mesh = io_attr(k, "filename");
        if (!def->mesh) return io_fail(c, k, MBS_ERR_ARG, "filename needed");
        return io_numbers(c, k, "scale", def->scale, 3) < 0 ? MBS_ERR_ARG : MBS_OK;
    }
    return io_fail(c, k, MBS_ERR_ARG, "unknown geometry (box, cylinder, sphere or mesh)");
}

/* The colour of a <visual>'s <material>: inline <color rgba>, or a robot-level one by name. */
static int read_color(io_ctx *c, const xmlNode *vis, double rgba[4])
{
    const xmlNode *m, *col = NULL;
    if (io_one(c, vis, "material", &m) != MBS_OK || (m && io_one(c, m, "color", &col) != MBS_OK))
        return MBS_ERR_ARG;
    if (!m) return MBS_OK;
    if (col) return io_numbers(c, col, "rgba", rgba, 4) < 0 ? MBS_ERR_ARG : MBS_OK;
    const char *name = io_attr(m, "name");
    if (!name) return MBS_OK;
    for (int i = 0; i < c->nmat; ++i)
        if (!strcmp(c->mats[i].name, name)) memcpy(rgba, c->mats[i].rgba, 4 * sizeof(double));
    return MBS_OK;
}

int io_read_visuals(io_ctx *c, const xmlNode *n, const io_link *l)
{
    for (xmlNode *v = n->children; v; v = v->next) {
        if (!io_is(v, "visual")) continue;
        if (l->body == MBS_WORLD) continue; /* the world is drawn by the viewer */
        mbs_visual_def def = mbs_default_visual_def();
        def.body = l->body;
        def.name = io_attr(v, "name");
        int st = io_origin(c, v, "origin", &def.frame);
        if (st == MBS_OK) st = read_geometry(c, v, &def);
        if (st == MBS_OK) st = read_color(c, v, def.color);
        if (st != MBS_OK) return st;
        const int id = mbs_add_visual(c->b, &def);
        if (id < 0) return io_fail_builder(c, v, id);
    }
    return MBS_OK;
}
