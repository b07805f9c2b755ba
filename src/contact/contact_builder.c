/* Builder calls of the contact element (shapes.h): its pairs, chosen when it is added from
 * the shapes added so far, their parameters, and the states of their contact slots (laid out
 * with the user states: slip and approach speed per slot, then the dissipated energy). */
#include "contact/shapes.h"
#include "elements/force_builder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STATES 1000000 /* of all user states of a model (ustates.h) */

/* See mbs.h. */
mbs_contact_params mbs_default_contact_params(void)
{
    mbs_contact_params p;
    p.stiffness = 1e6, p.exponent = 1.5, p.restitution = 0.5, p.friction = 0.5;
    p.tangent_stiffness = 1e5, p.tangent_damping = 0.0;
    return p;
}

/* Every value in its range; MBS_ERR_ARG naming what. */
static int check_params(char *err, const mbs_contact_params *p, const char *what)
{
    const char *bad = !(p->stiffness > 0.0 && p->stiffness <= MBS_MAX_VALUE) ? "stiffness"
                      : !(p->exponent >= 1.0 && p->exponent <= 3.0)           ? "exponent"
                      : !(p->restitution > 0.0 && p->restitution <= 1.0)      ? "restitution"
                      : !(p->friction >= 0.0 && p->friction <= MBS_MAX_VALUE) ? "friction"
                      : !(p->tangent_stiffness > 0.0 && p->tangent_stiffness <= MBS_MAX_VALUE)
                          ? "tangent_stiffness"
                      : !(p->tangent_damping >= 0.0 && p->tangent_damping <= MBS_MAX_VALUE)
                          ? "tangent_damping"
                          : NULL;
    if (!bad) return MBS_OK;
    return mbs_errorf(err, MBS_ERR_ARG, "%s: %s out of range (stiffness > 0, exponent in [1, "
                      "3], restitution in (0, 1], friction >= 0, tangent_stiffness > 0, "
                      "tangent_damping >= 0, all finite)", what, bad);
}

/* Narrow-phase order of kinds: planes last. */
static int rank(mbs_collision_kind k) { return k == MBS_COLLISION_PLANE ? 99 : (int)k; }

/* 1 when shapes i < j may touch: not on one body, filters passing. */
static int may_touch(const mbs_shape_model *s, int i, int j)
{
    const mbs_shape_model *a = &s[i], *b = &s[j];
    return a->body != b->body && (a->group & b->mask) && (b->group & a->mask);
}

/* The pairs of the shapes so far into set (pairs allocated); the number of states. */
static long make_pairs(const mbs_builder *b, mbs_contact_set *set, const mbs_contact_params *p)
{
    long n = 0, nx = 0;
    const double c = mbs_contact_damping(p->restitution, p->exponent);
    for (int i = 0; i < b->nshape; ++i)
        for (int j = i + 1; j < b->nshape; ++j) n += may_touch(b->shapes, i, j);
    set->pairs = calloc((size_t)n + 1, sizeof *set->pairs);
    if (!set->pairs) return -1;
    set->npair = 0;
    for (int i = 0; i < b->nshape; ++i)
        for (int j = i + 1; j < b->nshape; ++j) {
            if (!may_touch(b->shapes, i, j)) continue;
            mbs_contact_pair *q = &set->pairs[set->npair++];
            const int swap = rank(b->shapes[i].kind) > rank(b->shapes[j].kind);
            q->a = swap ? j : i, q->b = swap ? i : j;
            q->npt = mbs_collide_npt(b->shapes[q->a].kind, b->shapes[q->b].kind);
            q->xadr = (int)nx, q->on = 1, q->set = b->nset, q->par = *p, q->c = c;
            nx += MBS_CONTACT_NX * q->npt;
        }
    return nx + 1; /* and the dissipated energy */
}

/* See mbs.h. */
static int add_contact_impl(mbs_builder *b, const mbs_contact_params *params, int joined)
{
    char lbl[LABEL_LEN], what[LABEL_LEN + 16];
    if (!b) return MBS_ERR_ARG;
    mbs_force_label(b, NULL, lbl, LABEL_LEN);
    snprintf(what, sizeof what, "contact %s", lbl);
    const mbs_contact_params p = params ? *params : mbs_default_contact_params();
    int st = check_params(b->error, &p, what);
    if (st != MBS_OK) return st;
    if (mbs_builder_grow((void **)&b->sets, &b->set_cap, b->nset + 1, sizeof *b->sets))
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "%s: out of memory", what);
    mbs_contact_set *set = &b->sets[b->nset];
    const long nx = make_pairs(b, set, &p);
    if (nx < 0) return mbs_errorf(b->error, MBS_ERR_NOMEM, "%s: out of memory", what);
    if (nx > MAX_STATES - b->nux ||
        mbs_builder_grow((void **)&b->ux_start, &b->ux_cap, b->nux + (int)nx, sizeof(double))) {
        free(set->pairs);
        return mbs_errorf(b->error, nx > MAX_STATES - b->nux ? MBS_ERR_ARG : MBS_ERR_NOMEM,
                          "%s: %ld states for %d pairs (at most %d user states in a model)",
                          what, nx, set->npair, MAX_STATES);
    }
    mbs_force_model f = mbs_force_unattached(&mbs_force_contact_ops);
    f.uxadr = b->nux, f.nux = (int)nx, f.slot = b->nset;
    const int id = mbs_force_push(b, &f, NULL, "contact", lbl);
    if (id < 0) {
        free(set->pairs);
        return id;
    }
    set->force = id, set->joined = joined != 0;
    memset(b->ux_start + b->nux, 0, (size_t)nx * sizeof(double));
    b->nux += (int)nx;
    b->nset++;
    return id;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_contact(mbs_builder *b, const mbs_contact_params *params, int joined)
{
    return mbs_builder_note(b, "mbs_add_contact", add_contact_impl(b, params, joined));
}

/* See shapes.h: binary search over the pairs, sorted by (min, max) shape id. */
const mbs_contact_pair *mbs_contact_find(const mbs_contact_set *s, int a, int b)
{
    const int lo_id = a < b ? a : b, hi_id = a < b ? b : a;
    int lo = 0, hi = s->npair - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        const mbs_contact_pair *q = &s->pairs[mid];
        const int qa = q->a < q->b ? q->a : q->b, qb = q->a < q->b ? q->b : q->a;
        if (qa == lo_id && qb == hi_id) return q;
        if (qa < lo_id || (qa == lo_id && qb < hi_id)) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

/* See mbs.h. */
static int set_pair_impl(mbs_builder *b, int element, int sa, int sb, const mbs_contact_params *p)
{
    if (!b) return MBS_ERR_ARG;
    if (element < 0 || element >= b->nforce || b->forces[element].ops != &mbs_force_contact_ops)
        return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_set_contact_pair: element %d is not a "
                          "contact element", element);
    char what[64];
    snprintf(what, sizeof what, "contact #%d: pair (%d, %d)", element, sa, sb);
    const mbs_contact_set *set = &b->sets[b->forces[element].slot];
    const mbs_contact_pair *q = mbs_contact_find(set, sa, sb);
    if (!q)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: the element holds no such pair (shapes "
                          "on one body, filtered out, or added after it)", what);
    if (!p) return mbs_errorf(b->error, MBS_ERR_ARG, "%s: params is NULL", what);
    const int st = check_params(b->error, p, what);
    if (st != MBS_OK) return st;
    set->pairs[q - set->pairs].par = *p;
    set->pairs[q - set->pairs].c = mbs_contact_damping(p->restitution, p->exponent);
    return st;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_set_contact_pair(mbs_builder *b, int element, int shape_a, int shape_b,
                         const mbs_contact_params *params)
{
    return mbs_builder_note(b, "mbs_set_contact_pair",
                            set_pair_impl(b, element, shape_a, shape_b, params));
}

/* See shapes.h. */
void mbs_shapes_rollback(mbs_builder *b, int nshape, int nforce)
{
    for (int i = nshape; i < b->nshape; ++i) mbs_shape_free(&b->shapes[i]);
    if (b->nshape > nshape) b->nshape = nshape;
    while (b->nset > 0 && b->sets[b->nset - 1].force >= nforce) free(b->sets[--b->nset].pairs);
}

/* See shapes.h. */
void mbs_shapes_builder_free(mbs_builder *b)
{
    mbs_shapes_rollback(b, 0, 0);
    free(b->shapes);
    free(b->sets);
}
