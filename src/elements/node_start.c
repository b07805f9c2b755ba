/* Start positions of nodes (forces in series, nodes.c): where Newton starts the node's force
 * balance the first time, as Modelica gives the node's position a start value. A line spring
 * can pass through zero length into a mirrored equilibrium, so several balances may exist;
 * the start picks the branch the user means. Without one Newton starts from the balance of
 * zero-rest-length springs (a linear system). */
#include <math.h>

#include "core/builder.h"
#include "elements/couplings.h"

#include <stdlib.h>

typedef struct mbs_node_start {
    int body;
    double x[3];
} mbs_node_start;

/* Record a start position for body (a node once compiled). */
static int set_node_start_impl(mbs_builder *b, int body, const double x[3])
{
    if (!b) return MBS_ERR_ARG;
    if (!x) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_set_node_start: x is NULL");
    if (body < 1 || body > b->nbody)
        return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_set_node_start: body %d does not exist",
                          body);
    char lbl[96];
    mbs_name_label(b->bodies[body - 1].name, body, lbl, (int)sizeof lbl);
    if (!mbs_all_bounded(x, 3))
        return mbs_errorf(b->error, MBS_ERR_ARG, "node %s: start position is not finite or "
                          "beyond 1e100 in magnitude", lbl);
    if (mbs_builder_grow((void **)&b->node_starts, &b->node_start_cap, b->nnode_start + 1,
                         sizeof *b->node_starts) != 0)
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "node %s: out of memory", lbl);
    mbs_node_start *e = &b->node_starts[b->nnode_start++];
    e->body = body;
    for (int i = 0; i < 3; ++i) e->x[i] = x[i];
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_set_node_start(mbs_builder *b, int body, const double x[3])
{
    return mbs_builder_note(b, "mbs_set_node_start", set_node_start_impl(b, body, x));
}

/* See couplings.h: a later call for the same body replaces an earlier one. */
int mbs_node_start_compile(const mbs_builder *b, mbs_model *m, char *err)
{
    m->node_start = malloc((size_t)(3 * m->nnode + 1) * sizeof(double));
    if (!m->node_start) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    for (int i = 0; i < 3 * m->nnode; ++i) m->node_start[i] = NAN;
    for (int k = 0; k < b->nnode_start; ++k) {
        const mbs_node_start *e = &b->node_starts[k];
        const int n = m->body_node[e->body];
        char lbl[96];
        if (n < 0)
            return mbs_errorf(err, MBS_ERR_ARG, "body %s has a node start position but is not "
                              "a node (a massless body without joints between line force "
                              "elements)", mbs_body_label(m, e->body, lbl, (int)sizeof lbl));
        for (int i = 0; i < 3; ++i) m->node_start[3 * n + i] = e->x[i];
    }
    return MBS_OK;
}

/* 1 when node n has a start position. */
int mbs_node_has_start(const mbs_model *m, int n) { return !isnan(m->node_start[3 * n]); }
