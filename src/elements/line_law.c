/* Line force with a user law (Otter, Elmqvist, Mattsson 2003, §8.1: a 1-D force law on the
 * line between two points; ROBOTRAN §4.2.1: user-defined link forces): the library computes
 * the distance L between the points and its rate dL/dt (line.c), the user's law gives the
 * tension T(L, dL/dt, t) that pulls the points together, applied as F_a = +T e at p_a and
 * F_b = -T e at p_b. A conservative law may give its potential V(L), counted by mbs_energy. */
#include "core/internal.h"

/* The law's tension at the current state, applied along the line. */
static int line_law_apply(const mbs_force_model *f, mbs_data *d)
{
    double e[3], rate, tension = 0.0;
    const double L = mbs_line_state(f, d, &rate, e);
    const int id = (int)(f - d->model->forces);
    char label[96];
    d->in_callback = id + 1;
    const int rc = f->line_law(L, rate, d->time, &tension, f->user);
    d->in_callback = 0;
    d->callback_status = rc;
    if (rc != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "line force %s: law returned %d (%s)",
                             mbs_name_label(f->name, id, label, (int)sizeof label), rc,
                             rc > 0 ? "recoverable" : "fatal");
    if (!isfinite(tension))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "line force %s: law gave a non-finite "
                             "tension at L = %g, dL/dt = %g",
                             mbs_name_label(f->name, id, label, (int)sizeof label), L, rate);
    mbs_line_apply(f, d, e, tension);
    return MBS_OK;
}

/* V(L) of the user's potential, 0 without one. */
static double line_law_potential(const mbs_force_model *f, const mbs_data *d)
{
    return f->line_potential ? f->line_potential(mbs_line_length(f, d), f->user) : 0.0;
}

const mbs_force_ops mbs_force_line_law_ops = {
    .name = "line force",
    .apply = line_law_apply,
    .potential = line_law_potential,
};
