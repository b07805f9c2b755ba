/* The evaluation of a user-state element inside the force accumulation: its derivatives
 * zeroed, the user's function run with the apply_* calls enabled (the rule of force
 * callbacks, docs/realtime.md), then its return value and the finiteness of the derivatives
 * checked. A nonzero return is MBS_ERR_CALLBACK with the value in data->callback_status (> 0:
 * recoverable, a CVODE step is retried shorter); a non-finite derivative is
 * MBS_ERR_NONFINITE (fatal). */
#include "ustates/ustates.h"

#include <math.h>
#include <string.h>

/* xdot of the element at the data's state; forces added by the function. */
static int ustates_apply(const mbs_force_model *f, mbs_data *d)
{
    const int id = (int)(f - d->model->forces);
    double *xdot = d->uxdot + f->uxadr;
    char label[96];
    memset(xdot, 0, (size_t)f->nux * sizeof(double));
    d->in_callback = id + 1;
    const int rc = f->ux_fn(d, d->ux + f->uxadr, xdot, f->user);
    d->in_callback = 0;
    d->callback_status = rc;
    if (rc != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "user states %s: the derivative function "
                             "returned %d at t = %.17g (%s)",
                             mbs_name_label(f->name, id, label, (int)sizeof label), rc, d->time,
                             rc > 0 ? "recoverable" : "fatal");
    for (int i = 0; i < f->nux; ++i)
        if (!isfinite(xdot[i]))
            return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "user states %s: the derivative "
                                 "xdot[%d] = %g is not finite at t = %.17g",
                                 mbs_name_label(f->name, id, label, (int)sizeof label), i,
                                 xdot[i], d->time);
    return MBS_OK;
}

const mbs_force_ops mbs_force_user_states_ops = {
    .name = "user states",
    .apply = ustates_apply,
    .potential = NULL,
};
