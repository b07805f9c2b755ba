/* The compiled shapes and contact elements (shapes.h): a copy of the builder's, the pairs
 * on bodies a joint connects switched off (unless the element keeps them), and the data's
 * workspace, sized once at creation. */
#include "contact/shapes.h"

#include <stdlib.h>
#include <string.h>

/* 1 when a user joint connects bodies i and j. */
static int joined(const mbs_builder *b, int i, int j)
{
    for (int k = 0; k < b->njoint; ++k) {
        const mbs_joint_def *J = &b->joints[k];
        if ((J->parent == i && J->child == j) || (J->parent == j && J->child == i)) return 1;
    }
    return 0;
}

/* Copies of the shapes (meshes too) and of the sets with their pairs. */
static int copy_all(const mbs_builder *b, mbs_contact_model *c)
{
    c->shapes = calloc((size_t)b->nshape + 1, sizeof *c->shapes);
    c->sets = calloc((size_t)b->nset + 1, sizeof *c->sets);
    if (!c->shapes || !c->sets) return MBS_ERR_NOMEM;
    for (int i = 0; i < b->nshape; ++i, ++c->nshape) {
        const mbs_shape_model *s = &b->shapes[i];
        c->shapes[i] = *s;
        c->shapes[i].vert = NULL;
        c->shapes[i].name = mbs_strdup_name(s->name);
        if (s->nvert > 0 && (c->shapes[i].vert = malloc((size_t)(3 * s->nvert) * sizeof(double))))
            memcpy(c->shapes[i].vert, s->vert, (size_t)(3 * s->nvert) * sizeof(double));
        if (!c->shapes[i].name || (s->nvert > 0 && !c->shapes[i].vert)) return MBS_ERR_NOMEM;
    }
    for (int k = 0; k < b->nset; ++k, ++c->nset) {
        const mbs_contact_set *s = &b->sets[k];
        c->sets[k] = *s;
        c->sets[k].pairs = malloc(((size_t)s->npair + 1) * sizeof *s->pairs);
        if (!c->sets[k].pairs) return MBS_ERR_NOMEM;
        memcpy(c->sets[k].pairs, s->pairs, (size_t)s->npair * sizeof *s->pairs);
        for (int p = 0; p < s->npair && !s->joined; ++p) {
            mbs_contact_pair *q = &c->sets[k].pairs[p];
            q->on = !joined(b, b->shapes[q->a].body, b->shapes[q->b].body);
        }
    }
    return MBS_OK;
}

/* A pair without a closed form in a build without libccd: MBS_ERR_STATE naming the shapes. */
static int pairs_supported(const mbs_builder *b, char *err)
{
    for (int k = 0; !mbs_collide_has_ccd() && k < b->nset; ++k)
        for (int p = 0; p < b->sets[k].npair; ++p) {
            const mbs_contact_pair *q = &b->sets[k].pairs[p];
            const mbs_shape_model *A = &b->shapes[q->a], *B = &b->shapes[q->b];
            if (!mbs_collide_closed(A->kind, B->kind))
                return mbs_errorf(err, MBS_ERR_STATE, "compile: contact between shapes %d and "
                                  "%d needs libccd (no closed form for the pair), which this "
                                  "build lacks (-Dccd=disabled)", q->a, q->b);
        }
    return MBS_OK;
}

/* See shapes.h. */
int mbs_contact_compile(const mbs_builder *b, mbs_model *m, char *err)
{
    m->contact = NULL;
    if (b->nshape == 0) return MBS_OK;
    const int st = pairs_supported(b, err);
    if (st != MBS_OK) return st;
    m->contact = calloc(1, sizeof *m->contact);
    if (!m->contact || copy_all(b, m->contact) != MBS_OK ||
        !(m->ux_quad = calloc((size_t)m->nux + 1, 1)))
        return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    for (int k = 0; k < b->nset; ++k) { /* each element's dissipated energy */
        const mbs_force_model *f = &m->forces[b->sets[k].force];
        m->ux_quad[f->uxadr + f->nux - 1] = 1;
    }
    return MBS_OK;
}

/* See shapes.h. */
void mbs_contact_model_free(mbs_model *m)
{
    mbs_contact_model *c = m->contact;
    free(m->ux_quad);
    m->ux_quad = NULL;
    if (!c) return;
    for (int i = 0; i < c->nshape; ++i) mbs_shape_free(&c->shapes[i]);
    for (int k = 0; k < c->nset; ++k) free(c->sets[k].pairs);
    free(c->shapes);
    free(c->sets);
    free(c);
    m->contact = NULL;
}

/* See shapes.h. */
int mbs_contact_data_create(mbs_data *d)
{
    const mbs_contact_model *c = d->model->contact;
    d->contact = NULL;
    if (!c) return MBS_OK;
    mbs_contact_data *cd = calloc(1, sizeof *cd);
    if (!cd) return MBS_ERR_NOMEM;
    d->contact = cd;
    const size_t ns = (size_t)c->nshape + 1, nk = (size_t)c->nset + 1;
    cd->X = calloc(ns, sizeof *cd->X);
    cd->box = calloc(6 * ns, sizeof(double));
    cd->order = calloc(ns, sizeof(int));
    cd->hit = calloc(nk, sizeof *cd->hit);
    cd->pt = calloc(nk, sizeof *cd->pt);
    cd->force = calloc(nk, sizeof *cd->force);
    if (!cd->X || !cd->box || !cd->order || !cd->hit || !cd->pt || !cd->force) return MBS_ERR_NOMEM;
    for (int i = 0; i < c->nshape; ++i)
        if (c->shapes[i].kind != MBS_COLLISION_PLANE) cd->order[cd->norder++] = i;
    for (int k = 0; k < c->nset; ++k) {
        const size_t np = (size_t)c->sets[k].npair + 1, npt = np * MBS_CONTACT_MAX_POINTS;
        cd->hit[k] = calloc(np, 1);
        cd->pt[k] = calloc(npt, sizeof **cd->pt);
        cd->force[k] = calloc(3 * npt, sizeof(double));
        if (!cd->hit[k] || !cd->pt[k] || !cd->force[k]) return MBS_ERR_NOMEM;
    }
    return MBS_OK;
}

/* See shapes.h. */
void mbs_contact_data_destroy(mbs_data *d)
{
    mbs_contact_data *cd = d->contact;
    if (!cd) return;
    const int nk = d->model->contact->nset;
    for (int k = 0; k < nk; ++k) {
        if (cd->hit) free(cd->hit[k]);
        if (cd->pt) free(cd->pt[k]);
        if (cd->force) free(cd->force[k]);
    }
    free(cd->X), free(cd->box), free(cd->order);
    free(cd->hit), free(cd->pt), free(cd->force);
    free(cd);
    d->contact = NULL;
}

/* See shapes.h. */
int mbs_contact_nevent(const mbs_model *m)
{
    int n = 0;
    for (int k = 0; m->contact && k < m->contact->nset; ++k) n += m->contact->sets[k].npair;
    return n;
}

/* See shapes.h. */
const mbs_contact_pair *mbs_contact_event_pair(const mbs_model *m, int k)
{
    for (int s = 0; s < m->contact->nset; k -= m->contact->sets[s++].npair)
        if (k < m->contact->sets[s].npair) return &m->contact->sets[s].pairs[k];
    return NULL;
}
