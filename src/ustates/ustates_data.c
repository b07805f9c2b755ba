/* The data's user states (ustates.h): their arrays, the model and data queries, and the
 * derivative query, which evaluates the force elements at the data's state. */
#include "ustates/ustates.h"
#include "events/events.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* See ustates.h. */
int mbs_ustates_data_create(mbs_data *d)
{
    const int n = d->model->nux;
    d->ux = calloc((size_t)n + 1, sizeof(double));
    d->uxdot = calloc((size_t)n + 1, sizeof(double));
    if (!d->ux || !d->uxdot) return MBS_ERR_NOMEM;
    if (n > 0) memcpy(d->ux, d->model->ux_start, (size_t)n * sizeof(double));
    return MBS_OK;
}

/* See ustates.h. */
void mbs_ustates_data_destroy(mbs_data *d)
{
    free(d->ux);
    free(d->uxdot);
}

/* See ustates.h. */
int mbs_ustates_first_nonfinite(const mbs_data *d)
{
    return mbs_first_nonfinite(d->ux, d->model->nux);
}

/* The user-state element that owns user-state index i (-1 if none). */
static int owner(const mbs_model *m, int i)
{
    for (int e = 0; e < m->nforce; ++e) {
        const mbs_force_model *f = &m->forces[e];
        if (f->ops == &mbs_force_user_states_ops && i >= f->uxadr && i < f->uxadr + f->nux)
            return e;
    }
    return -1;
}

/* See ustates.h. */
const char *mbs_ustates_label(const mbs_model *m, int i, char *buf, int len)
{
    char name[80];
    const int e = owner(m, i);
    if (e < 0) {
        snprintf(buf, (size_t)len, "user state %d", i);
        return buf;
    }
    mbs_name_label(m->forces[e].name, e, name, (int)sizeof name);
    snprintf(buf, (size_t)len, "x[%d] of user states %s", i - m->forces[e].uxadr, name);
    return buf;
}

/* The user-state element `element` of m, or NULL. */
static const mbs_force_model *element_at(const mbs_model *m, int element)
{
    if (!m || element < 0 || element >= m->nforce) return NULL;
    const mbs_force_model *f = &m->forces[element];
    return f->ops == &mbs_force_user_states_ops ? f : NULL;
}

/* Total number of user states. */
int mbs_model_nuser_states(const mbs_model *m) { return m ? m->nux : MBS_ERR_ARG; }

/* First index of the element's states in the user-state vector. */
int mbs_model_user_states_adr(const mbs_model *m, int element)
{
    const mbs_force_model *f = element_at(m, element);
    return f ? f->uxadr : MBS_ERR_ARG;
}

/* The start values of all user states. */
int mbs_model_user_states_start(const mbs_model *m, double *x)
{
    if (!m || !x) return MBS_ERR_ARG;
    if (m->nux > 0) memcpy(x, m->ux_start, (size_t)m->nux * sizeof(double));
    return MBS_OK;
}

/* The data's user-state vector. */
double *mbs_data_user_states(mbs_data *d) { return d ? d->ux : NULL; }

/* The n states of one element, all finite, or nothing changes. */
int mbs_data_set_user_states(mbs_data *d, int element, const double *x)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_data_set_user_states");
    if (nested != MBS_OK) return nested;
    const mbs_force_model *f = element_at(d->model, element);
    char label[96];
    if (!f)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_data_set_user_states: element %d is not a "
                             "user-state element", element);
    mbs_name_label(f->name, element, label, (int)sizeof label);
    if (!x) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "user states %s: x is NULL", label);
    for (int i = 0; i < f->nux; ++i)
        if (!isfinite(x[i]))
            return MBS_DATA_FAIL(d, MBS_ERR_ARG, "user states %s: x[%d] = %g is not finite",
                                 label, i, x[i]);
    memcpy(d->ux + f->uxadr, x, (size_t)f->nux * sizeof(double));
    return MBS_OK;
}

/* xdot at the data's state: kinematics and force elements, nothing else. */
int mbs_user_states_derivative(mbs_data *d, double *xdot)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_user_states_derivative");
    if (nested != MBS_OK) return nested;
    if (!xdot) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_user_states_derivative: xdot is NULL");
    int st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK || d->model->nux == 0) return st;
    st = mbs_events_update_targets(d); /* prescribed motions at t, as the dynamics sees them */
    if (st != MBS_OK) return st;
    mbs_kinematics(d);
    st = mbs_forces_accumulate(d);
    if (st == MBS_OK) memcpy(xdot, d->uxdot, (size_t)d->model->nux * sizeof(double));
    return st;
}
