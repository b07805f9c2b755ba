/* Force accumulation: gravity, host input wrenches and every force element, into
 * data->f_ext (body coordinates, about the body origin) and data->gen_force. */
#include "core/internal.h"
#include "elements/gravity.h"
#include "elements/couplings.h"

/* f_ext_b += world force/torque at a body point (body coordinates); NULL = zero / origin.
   The world body (0) absorbs any wrench. */
void mbs_forces_add_world_wrench(mbs_data *d, int body, const double force[3],
                                 const double torque[3], const double point[3])
{
    if (body <= 0) return;
    const double *R = d->x_world[body].R;
    double F[3] = {0, 0, 0}, n[3] = {0, 0, 0}, t[3];
    double *f = d->f_ext + 6 * body;
    if (force) m3_tmulv(F, R, force);
    if (torque) m3_tmulv(n, R, torque);
    if (point && force) {
        v3_cross(t, point, F);
        v3_add(n, n, t);
    }
    v3_add(f, f, n);
    v3_add(f + 3, f + 3, F);
}

/* f_ext = gravity, gen_force = 0; add host wrenches, then every element (RBDA §5.3
   external forces). Returns the first non-OK status of an element. */
int mbs_forces_accumulate(mbs_data *d)
{
    const mbs_model *m = d->model;
    if (m->nnode > 0) { /* nodes first: the elements through them need their positions */
        const int st = mbs_nodes_solve(d);
        if (st != MBS_OK) return st;
    }
    mbs_gravity_set(d);
    for (int i = 0; i < m->nv; ++i) d->gen_force[i] = 0.0;
    for (int b = 1; b < m->nbody; ++b) {
        const mbs_wrench_input *w = &d->wrench_in[b];
        if (w->set) mbs_forces_add_world_wrench(d, b, w->force, w->torque, w->point);
    }
    for (int i = 0; i < m->nforce; ++i) {
        const int st = m->forces[i].ops->apply(&m->forces[i], d);
        if (st != MBS_OK) return st;
    }
    if (m->nrotor > 0) mbs_rotors_gyroscopic(d);
    return m->ncrow > 0 ? mbs_couplings_eval(d, 1) : MBS_OK; /* inertial couplings' rows */
}

/* Potential energy of gravity plus the elements that store one (needs x_world). */
double mbs_forces_potential(const mbs_data *d)
{
    const mbs_model *m = d->model;
    double V = mbs_gravity_potential(d);
    for (int i = 0; i < m->nforce; ++i)
        if (m->forces[i].ops->potential) V += m->forces[i].ops->potential(&m->forces[i], d);
    return V;
}

/* 1 if the optional 3-vector x is NULL or finite. */
static int finite3_or_null(const double *x) { return !x || mbs_all_finite(x, 3); }

/* Host input: world force/torque at a body point, held until changed; NULL force or torque
   is zero, NULL point is the body origin; an all-zero wrench clears the input. */
int mbs_set_body_wrench(mbs_data *d, int body, const double force[3], const double torque[3],
                        const double point[3])
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_set_body_wrench");
    if (nested != MBS_OK) return nested;
    const mbs_model *m = d->model;
    char buf[96];
    if (body == MBS_WORLD)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "set_body_wrench: body 0 is the world (fixed)");
    if (body < 0 || body >= m->nbody)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "set_body_wrench: body id %d out of range 1..%d",
                             body, m->nbody - 1);
    if (m->body_node[body] >= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "body %s: a node (massless, no joint) takes only "
                             "line forces", mbs_body_label(m, body, buf, (int)sizeof buf));
    if (!finite3_or_null(force) || !finite3_or_null(torque) || !finite3_or_null(point))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "body %s: input wrench not finite",
                             mbs_body_label(m, body, buf, (int)sizeof buf));
    mbs_wrench_input *w = &d->wrench_in[body];
    for (int i = 0; i < 3; ++i) {
        w->force[i] = force ? force[i] : 0.0;
        w->torque[i] = torque ? torque[i] : 0.0;
        w->point[i] = point ? point[i] : 0.0;
    }
    w->set = 0;
    for (int i = 0; i < 3; ++i) w->set |= (w->force[i] != 0.0) || (w->torque[i] != 0.0);
    if (w->set) d->wrenched = 1;
    return MBS_OK;
}
