/* The force elements' part of dtau/dq and dtau/dv (tau = M qacc + c - J^T f_ext - gen_force):
 * an element with an analytic derivative adds it (element_derivatives.c); the others (force
 * callbacks, whose law mbs cannot see) are differentiated by central differences of their
 * own generalized force alone — kinematics at q (+) h e_l and v + h e_l, the elements' apply,
 * one backward pass — with q and v restored bitwise afterwards. */
#include "derivatives/derivs.h"

/* See derivs.h. */
void mbs_derivs_point(const mbs_data *d, int body, const double point[3], double p[3])
{
    if (body == MBS_WORLD) {
        v3_copy(p, point);
        return;
    }
    m3_mulv(p, d->x_world[body].R, point);
    v3_add(p, p, d->derivs->o + 3 * body);
}

/* Add the dofs on the path of body to the world to w->list (after the n already there,
   each once) and set bit in their mark; returns the new count. */
int mbs_derivs_gather(const mbs_data *d, int body, unsigned char bit, int n)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    for (int b = body; b > 0; b = m->bodies[b].parent) {
        const mbs_joint_model *jm = &m->joints[m->bodies[b].joint];
        for (int k = 0; k < jm->nv; ++k) {
            const int i = jm->vadr + k;
            if (!w->mark[i]) w->list[n++] = i;
            w->mark[i] |= bit;
        }
    }
    return n;
}

/* Generalized force of the elements without a derivative op as it enters tau
   (-J^T f_ext - gen_force) at the data's q and v, into tau (nv). */
static int fd_tau(mbs_data *d, double *tau)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    mbs_kinematics(d);
    for (int i = 0; i < 6 * m->nbody; ++i) d->f_ext[i] = 0.0;
    for (int i = 0; i < m->nv; ++i) d->gen_force[i] = 0.0;
    for (int e = 0; e < m->nforce; ++e) {
        const mbs_force_model *f = &m->forces[e];
        if (mbs_derivs_element_fn(f)) continue;
        const int st = f->ops->apply(f, d);
        if (st != MBS_OK) return st;
    }
    for (int i = 0; i < 6 * m->nbody; ++i) w->fb[i] = -d->f_ext[i];
    for (int t = m->ntree - 1; t >= 0; --t) { /* RNEA's backward pass with f = -f_ext */
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = m->bodies[b].parent;
        for (int k = jm->vadr; k < jm->vadr + jm->nv; ++k)
            tau[k] = s6_dot(d->S + 6 * k, w->fb + 6 * b) - d->gen_force[k];
        if (p > 0) {
            double fp[6];
            xf_apply_transpose(fp, &d->x_up[b], w->fb + 6 * b);
            for (int e = 0; e < 6; ++e) w->fb[6 * p + e] += fp[e];
        }
    }
    return MBS_OK;
}

/* Column l of D (stride ld) += (tau(+h) - tau(-h)) / 2h, the state set by set(d, +-h). */
static int fd_column(mbs_data *d, double *D, int ld, int l, double h,
                     void (*set)(mbs_data *, int, double))
{
    mbs_derivs *w = d->derivs;
    set(d, l, h);
    int st = fd_tau(d, w->tp);
    if (st == MBS_OK) {
        set(d, l, -h);
        st = fd_tau(d, w->tm);
    }
    if (st != MBS_OK) return st;
    for (int i = 0; i < d->model->nv; ++i)
        D[(size_t)i * (size_t)ld + (size_t)l] += (w->tp[i] - w->tm[i]) / (2.0 * h);
    return MBS_OK;
}

/* q = q0 (+) h e_l, v = v0. */
static void set_q(mbs_data *d, int l, double h)
{
    mbs_derivs *w = d->derivs;
    for (int i = 0; i < d->model->nv; ++i) w->dqt[i] = i == l ? h : 0.0;
    mbs_integrate_q(d->model, w->q0, w->dqt, 1.0, d->q);
    for (int i = 0; i < d->model->nv; ++i) d->v[i] = w->v0[i];
}

/* q = q0, v = v0 + h e_l. */
static void set_v(mbs_data *d, int l, double h)
{
    mbs_derivs *w = d->derivs;
    for (int i = 0; i < d->model->nq; ++i) d->q[i] = w->q0[i];
    for (int i = 0; i < d->model->nv; ++i) d->v[i] = w->v0[i] + (i == l ? h : 0.0);
}

/* Central differences of the elements without a derivative op; q, v and the kinematics
   restored afterwards (also on failure). */
static int fd_elements(mbs_data *d, double *dq, double *dv, int ld)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    for (int i = 0; i < m->nq; ++i) w->q0[i] = d->q[i];
    for (int i = 0; i < m->nv; ++i) w->v0[i] = d->v[i];
    int st = MBS_OK;
    for (int l = 0; st == MBS_OK && l < m->nv; ++l) {
        if (dq) st = fd_column(d, dq, ld, l, MBS_DERIV_FD_STEP, set_q);
        if (st == MBS_OK && dv)
            st = fd_column(d, dv, ld, l, MBS_DERIV_FD_STEP * fmax(1.0, fabs(w->v0[l])), set_v);
    }
    for (int i = 0; i < m->nq; ++i) d->q[i] = w->q0[i];
    for (int i = 0; i < m->nv; ++i) d->v[i] = w->v0[i];
    mbs_kinematics(d);
    return st;
}

/* See derivs.h. */
int mbs_derivs_elements(mbs_data *d, double *dq, double *dv, int ld)
{
    const mbs_model *m = d->model;
    int nfd = 0;
    for (int e = 0; e < m->nforce; ++e) {
        const mbs_force_model *f = &m->forces[e];
        const mbs_force_derivative_fn fn = mbs_derivs_element_fn(f);
        if (fn) fn(f, d, dq, dv, ld);
        else nfd++;
    }
    return nfd > 0 ? fd_elements(d, dq, dv, ld) : MBS_OK;
}
