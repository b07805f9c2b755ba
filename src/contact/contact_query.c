/* The controller's queries of the contact elements (mbs.h): the points, normals,
 * penetrations and forces of a pair at the last dynamics evaluation, and the dissipated
 * energy. Allocation-free. */
#include "contact/shapes.h"

#include <math.h>

/* The contact set of force element `element`, or NULL. */
static const mbs_contact_set *set_of(const mbs_data *d, int element)
{
    const mbs_model *m = d ? d->model : NULL;
    if (!m || !m->contact || element < 0 || element >= m->nforce ||
        m->forces[element].ops != &mbs_force_contact_ops)
        return NULL;
    return &m->contact->sets[m->forces[element].slot];
}

/* See mbs.h. */
int mbs_contact_query(const mbs_data *d, int element, int shape_a, int shape_b, int max,
                      double *point, double *normal, double *penetration, double *force)
{
    const mbs_contact_set *set = set_of(d, element);
    const mbs_contact_pair *q = set ? mbs_contact_find(set, shape_a, shape_b) : NULL;
    if (!q || max < 0) return MBS_ERR_ARG;
    const int s = (int)(set - d->model->contact->sets), p = (int)(q - set->pairs);
    const mbs_contact_pt *pt = d->contact->pt[s] + MBS_CONTACT_MAX_POINTS * p;
    const double *F = d->contact->force[s] + 3 * MBS_CONTACT_MAX_POINTS * p;
    const double sg = q->a == shape_a ? 1.0 : -1.0; /* b's side as the caller names it */
    int n = 0;
    for (int k = 0; k < q->npt && n < max; ++k) {
        if (!(pt[k].gap < 0.0)) continue;
        for (int i = 0; i < 3; ++i) {
            if (point) point[3 * n + i] = pt[k].p[i];
            if (normal) normal[3 * n + i] = sg * pt[k].n[i];
            if (force) force[3 * n + i] = sg * F[3 * k + i];
        }
        if (penetration) penetration[n] = -pt[k].gap;
        ++n;
    }
    return n;
}

/* See mbs.h. */
int mbs_contact_states_adr(const mbs_model *m, int element)
{
    if (!m || element < 0 || element >= m->nforce ||
        m->forces[element].ops != &mbs_force_contact_ops)
        return MBS_ERR_ARG;
    return m->forces[element].uxadr;
}

/* See mbs.h. */
double mbs_contact_dissipated(const mbs_data *d, int element)
{
    const mbs_contact_set *set = set_of(d, element);
    if (!set) return NAN;
    const mbs_force_model *f = &d->model->forces[element];
    return d->ux[f->uxadr + f->nux - 1];
}
