/* Elements acting on the tree of a model whose loops close in closed form (closure.h):
 * prescribed motions, joint friction, brakes and stops (coordinate rows), rotors and line
 * forces with mass (inertial couplings) and nodes. None of them changes how a loop closes:
 * the assemblies still give the dependent coordinates from the others. A coordinate row
 * holds one coordinate; while it holds an independent one the closure sets it to its target
 * first (what Newton would reach) and the row joins the partition as a dependent dof; while
 * it holds a dependent coordinate of an assembly the closed form cannot keep both, and Newton
 * serves until the row is released. The reduced dynamics (reduced.c) see the cut rows and
 * the bodies alone, so with a coordinate row on, inertial couplings or nodes the forward
 * dynamics are the general ones of src/loops/ (the full mass matrix and every active row)
 * at the state the closed forms closed. */
#include "loops/analytic/closure.h"

#include "events/events.h"

/* See closure.h. */
int mbs_closure_hold(mbs_data *d)
{
    const mbs_model *m = d->model;
    if (!m->ev || !d->ev) return MBS_OK;
    const mbs_events_model *ev = m->ev;
    const unsigned char *on = d->ev->st.row_on;
    for (int k = 0; k < ev->nqrow; ++k)
        if (on[k] && m->closure->is_dep[ev->qrows[k].vindex]) return MBS_CLOSURE_DEFER;
    for (int k = 0; k < ev->nqrow; ++k) {
        if (!on[k]) continue;
        d->q[ev->qrows[k].qindex] = d->ev->st.row_pos[k];
        d->v[ev->qrows[k].vindex] = d->ev->row_vel[k];
    }
    return MBS_OK;
}

/* See closure.h. */
int mbs_closure_held_rows(const mbs_data *d, unsigned char *dep)
{
    const mbs_model *m = d->model;
    int n = 0;
    if (dep) memcpy(dep, m->closure->is_dep, (size_t)m->nv);
    for (int k = 0; m->ev && d->ev && k < m->ev->nqrow; ++k) {
        if (!d->ev->st.row_on[k]) continue;
        if (dep) dep[m->ev->qrows[k].vindex] = 1;
        ++n;
    }
    return n;
}

/* See closure.h. */
long mbs_closure_rows_serial(const mbs_data *d) { return d->ev ? d->ev->rows_serial : 0; }

/* See closure.h. */
int mbs_closure_reduced_serves(const mbs_data *d)
{
    const mbs_model *m = d->model;
    return m->ncrow == 0 && m->nnode == 0 && !mbs_events_rows_on(d);
}
