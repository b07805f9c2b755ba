/* Broad phase (shapes.h): world bounding boxes of the shapes and sweep and prune along x
 * (Baraff, "Dynamic simulation of non-penetrating rigid bodies", 1992, §6.2): the shapes kept
 * in the order of their boxes' lower x ends, re-sorted by insertion (nearly sorted between
 * evaluations, so about linear), then each box compared with those starting before it ends.
 * Pairs with a plane skip it (its box is unbounded). */
#include "contact/shapes.h"

#include <math.h>
#include <string.h>

/* World pose and box of shape i. */
static void place(mbs_data *d, int i)
{
    const mbs_contact_model *cm = d->model->contact;
    const mbs_shape_model *s = &cm->shapes[i];
    mbs_contact_data *cd = d->contact;
    mbs_pose *X = &cd->X[i];
    if (s->body == MBS_WORLD) *X = s->pose;
    else pose_mul(X, &d->x_world[s->body], &s->pose);
    if (s->kind == MBS_COLLISION_PLANE) return;
    double c[3], e[3], w[3];
    for (int k = 0; k < 3; ++k) c[k] = 0.5 * (s->lo[k] + s->hi[k]), e[k] = 0.5 * (s->hi[k] - s->lo[k]);
    pose_apply(w, X, c);
    for (int r = 0; r < 3; ++r) {
        const double h = fabs(X->R[3 * r]) * e[0] + fabs(X->R[3 * r + 1]) * e[1] +
                         fabs(X->R[3 * r + 2]) * e[2];
        cd->box[6 * i + r] = w[r] - h, cd->box[6 * i + 3 + r] = w[r] + h;
    }
}

/* Insertion sort of the order by lower x. */
static void sort_order(mbs_contact_data *cd)
{
    for (int i = 1; i < cd->norder; ++i) {
        const int k = cd->order[i];
        const double x = cd->box[6 * k];
        int j = i - 1;
        while (j >= 0 && cd->box[6 * cd->order[j]] > x) cd->order[j + 1] = cd->order[j], --j;
        cd->order[j + 1] = k;
    }
}

/* Flag pair (i, j) in every set holding it. */
static void flag(mbs_data *d, int i, int j)
{
    const mbs_contact_model *cm = d->model->contact;
    for (int s = 0; s < cm->nset; ++s) {
        const mbs_contact_pair *q = mbs_contact_find(&cm->sets[s], i, j);
        if (q) d->contact->hit[s][q - cm->sets[s].pairs] = 1;
    }
}

/* See shapes.h. */
void mbs_broad_phase(mbs_data *d)
{
    const mbs_contact_model *cm = d->model->contact;
    mbs_contact_data *cd = d->contact;
    for (int i = 0; i < cm->nshape; ++i) place(d, i);
    for (int s = 0; s < cm->nset; ++s) {
        const mbs_contact_set *set = &cm->sets[s];
        for (int p = 0; p < set->npair; ++p)
            cd->hit[s][p] = cm->shapes[set->pairs[p].b].kind == MBS_COLLISION_PLANE;
    }
    sort_order(cd);
    for (int i = 0; i < cd->norder; ++i) {
        const double *bi = cd->box + 6 * cd->order[i];
        for (int j = i + 1; j < cd->norder; ++j) {
            const double *bj = cd->box + 6 * cd->order[j];
            if (bj[0] > bi[3]) break;
            if (bj[1] <= bi[4] && bi[1] <= bj[4] && bj[2] <= bi[5] && bi[2] <= bj[5])
                flag(d, cd->order[i], cd->order[j]);
        }
    }
}
