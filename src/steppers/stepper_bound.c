/* The most work one mbs_stepper_step call can take (mbs.h, mbs_stepper_worst_work): the
 * stages and substeps of the fixed-step kinds, the closure and dynamics caps of the loop
 * solver (mbs_loops_worst_work) at every evaluation and step end, the local-error estimate's
 * two half steps, and event location at its caps (stepper_events.c); with the counters of
 * the costliest call the stepper has taken so far. */
#include <math.h>

#include "loops/loops.h"
#include "steppers/stepper.h"

/* One evaluation (mbs_stepper_eval: the stage's closure and its dynamics) and one closure. */
static void eval_cap(const mbs_stepper *s, mbs_work *eval, mbs_work *close)
{
    mbs_work forward;
    mbs_loops_worst_work(s->d, close, &forward);
    *eval = *close;
    mbs_work_add(eval, &forward, 1);
    eval->evals += 1;
}

/* See mbs.h. */
int mbs_stepper_worst_work(const mbs_stepper *s, double dt, mbs_work *cap, mbs_work *seen)
{
    if (!s || !cap) return MBS_ERR_ARG;
    if (s->kind->order == 0)
        return MBS_DATA_FAIL(s->d, MBS_ERR_STATE, "mbs_stepper_worst_work: a %s call is "
                             "bounded by max_internal_steps only (the fixed-step kinds have a "
                             "bound)", s->kind->name);
    const long n = dt > 0.0 && isfinite(dt) ? mbs_stepper_substeps(s, dt) : -1;
    if (n < 0)
        return MBS_DATA_FAIL(s->d, MBS_ERR_ARG, "mbs_stepper_worst_work: dt = %g must be "
                             "positive, finite and within max_internal_steps substeps", dt);
    mbs_work eval, close, sub = {0}, step = {0};
    eval_cap(s, &eval, &close);
    mbs_work_add(&sub, &eval, (unsigned long)s->kind->stages); /* the stages ... */
    mbs_work_add(&sub, &close, 1);                              /* ... and the end's closure */
    mbs_work_add(&step, &sub, s->errw ? 3 : 1); /* the estimate: two half steps more */
    *cap = close;                               /* the start state's closure */
    if (s->ev && !s->kind->roots) mbs_stepper_events_worst(s, n, &eval, &close, &sub, cap);
    else mbs_work_add(cap, &step, (unsigned long)n);
    if (seen) *seen = s->seen;
    return MBS_OK;
}
