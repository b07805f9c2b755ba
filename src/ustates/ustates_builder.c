/* Builder calls of user state equations (ustates.h): an element is a force element that
 * owns n states; their start values live in the builder (b->ux_start, in element order)
 * and compile copies them into the model. A rejected call leaves the builder unchanged. */
#include "ustates/ustates.h"
#include "elements/force_builder.h"

#include <stdlib.h>
#include <string.h>

/* n states with derivative function fn; the force element id or a status. */
static int add_user_states_impl(mbs_builder *b, const char *name, int n, mbs_user_states_fn fn,
                                void *user)
{
    char label[LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    mbs_force_label(b, name, label, LABEL_LEN);
    if (!fn)
        return mbs_errorf(b->error, MBS_ERR_ARG, "user states %s: derivative function is NULL",
                          label);
    if (n < 1 || n > MBS_MAX_USER_STATES - b->nux)
        return mbs_errorf(b->error, MBS_ERR_ARG, "user states %s: n = %d must be in 1..%d (at "
                          "most %d user states in a model, %d taken)", label, n,
                          MBS_MAX_USER_STATES, MBS_MAX_USER_STATES, b->nux);
    if (mbs_builder_grow((void **)&b->ux_start, &b->ux_cap, b->nux + n, sizeof(double)) != 0)
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "user states %s: out of memory", label);
    mbs_force_model f = mbs_force_unattached(&mbs_force_user_states_ops);
    f.ux_fn = fn;
    f.user = user;
    f.uxadr = b->nux;
    f.nux = n;
    const int id = mbs_force_push(b, &f, name, "user states", label);
    if (id < 0) return id;
    memset(b->ux_start + b->nux, 0, (size_t)n * sizeof(double));
    b->nux += n;
    return id;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_user_states(mbs_builder *b, const char *name, int n, mbs_user_states_fn fn,
                        void *user)
{
    return mbs_builder_note(b, "mbs_add_user_states", add_user_states_impl(b, name, n, fn, user));
}

/* Start values x0 (n of them) of user-state element `element`. */
static int set_user_states_start_impl(mbs_builder *b, int element, const double *x0, int n)
{
    char label[LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    if (element < 0 || element >= b->nforce || b->forces[element].ops != &mbs_force_user_states_ops)
        return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_set_user_states_start: element %d is not "
                          "a user-state element", element);
    const mbs_force_model *f = &b->forces[element];
    mbs_name_label(f->name, element, label, LABEL_LEN);
    if (!x0)
        return mbs_errorf(b->error, MBS_ERR_ARG, "user states %s: x0 is NULL", label);
    if (n != f->nux)
        return mbs_errorf(b->error, MBS_ERR_ARG, "user states %s: %d start values given, the "
                          "element has %d states", label, n, f->nux);
    for (int i = 0; i < n; ++i)
        if (!mbs_all_bounded(x0 + i, 1))
            return mbs_errorf(b->error, MBS_ERR_ARG, "user states %s: start value x0[%d] = %g "
                              "is not finite or beyond 1e100 in magnitude", label, i, x0[i]);
    memcpy(b->ux_start + f->uxadr, x0, (size_t)n * sizeof(double));
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_set_user_states_start(mbs_builder *b, int element, const double *x0, int n)
{
    return mbs_builder_note(b, "mbs_set_user_states_start", set_user_states_start_impl(b, element, x0, n));
}

/* See ustates.h. */
int mbs_ustates_compile(const mbs_builder *b, mbs_model *m, char *err)
{
    m->nux = b->nux;
    m->ux_start = calloc((size_t)b->nux + 1, sizeof(double));
    if (!m->ux_start) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    if (b->nux > 0) memcpy(m->ux_start, b->ux_start, (size_t)b->nux * sizeof(double));
    return MBS_OK;
}
