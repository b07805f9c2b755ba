/* The data's load-independent work counters (mbs_work) and their units: the figures a
 * real-time host plans a step with, and the bound mbs_stepper_def.max_work is checked
 * against. The counters are bumped where the work happens (steppers, loops, events). */
#include "core/internal.h"

/* One unit per evaluation, Newton iteration and factorisation: the operations whose count
   sets a step's time; selections and event trials are already paid in these. */
unsigned long mbs_work_units(const mbs_work *w)
{
    return w ? w->evals + w->newton + w->factor : 0;
}

/* See core/internal.h. */
void mbs_work_add(mbs_work *acc, const mbs_work *w, unsigned long k)
{
    acc->evals += k * w->evals, acc->newton += k * w->newton, acc->factor += k * w->factor;
    acc->select += k * w->select, acc->event_iter += k * w->event_iter;
}

/* See mbs.h. */
int mbs_data_work(const mbs_data *d, mbs_work *out)
{
    if (!d || !out) return MBS_ERR_ARG;
    *out = d->work_count;
    return MBS_OK;
}
