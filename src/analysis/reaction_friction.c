/* Joint friction whose normal force is the joint's own reaction (Otter, Elmqvist, Mattsson
 * 2003, "The New Modelica MultiBody Library", §8; mbs_add_reaction_friction): a brake whose
 * limit is mu radius N, N from the force the joint transmits (mbs_reaction_tree). N depends
 * on the accelerations and they on the friction, so forward dynamics solves both by a
 * fixed-point iteration on the limits: evaluate with the current limits (kept from the last
 * evaluation), take the reactions, set the new limits, until none moves by more than
 * RF_TOL of itself. The map contracts while mu times the normal force's growth per unit of
 * friction stays below 1; beyond that (a self-locking, jammed joint) the limits grow without
 * bound and the iteration stops at RF_MAXIT with MBS_ERR_CONVERGENCE. */
#include "analysis/analysis.h"
#include "events/events.h"

#include <math.h>

#define RF_MAXIT 50
#define RF_TOL 1e-12

/* Limit of reaction friction f from its joint's reaction at the last evaluation. */
static int limit_of(mbs_data *d, const mbs_force_model *f, double *limit)
{
    const mbs_joint_model *jm = &d->model->joints[f->joint];
    double F[3], T[3], ac[3], a[3], Fp[3];
    const int st = mbs_reaction_tree(d, f->joint, F, T);
    if (st != MBS_OK) return st;
    m3_mulv(ac, jm->frame_child.R, jm->axis); /* the axis in the child body, then the world */
    m3_mulv(a, d->x_world[jm->child].R, ac);
    const double Fa = v3_dot(F, a);
    for (int i = 0; i < 3; ++i) Fp[i] = F[i] - Fa * a[i];
    *limit = f->mu * f->radius * (v3_norm(Fp) + f->axial * fabs(Fa));
    return MBS_OK;
}

/* The limits of every reaction friction from the reactions, stored into flimit when write;
   *settled: none differs from flimit by more than RF_TOL of itself. */
static int sweep_limits(mbs_data *d, int write, int *settled)
{
    const mbs_model *m = d->model;
    double *flimit = d->ev->st.flimit;
    *settled = 1;
    for (int k = 0; k < m->ev->nfric; ++k) {
        const mbs_force_model *f = &m->forces[m->ev->fric[k]];
        double L;
        if (!f->reaction) continue;
        const int st = limit_of(d, f, &L);
        if (st != MBS_OK) return st;
        if (!(fabs(L - flimit[k]) <= RF_TOL * fmax(L, flimit[k]))) *settled = 0;
        if (write) flimit[k] = L;
    }
    return MBS_OK;
}

/* The first reaction friction, for the message. */
static const char *first_name(const mbs_model *m, char *buf, int n)
{
    for (int k = 0; k < m->ev->nfric; ++k) {
        const mbs_force_model *f = &m->forces[m->ev->fric[k]];
        if (f->reaction) return mbs_name_label(f->name, m->ev->fric[k], buf, n);
    }
    return "";
}

/* 1 when the model has a reaction friction. */
static int has_reaction_friction(const mbs_model *m)
{
    for (int k = 0; m->ev && k < m->ev->nfric; ++k)
        if (m->forces[m->ev->fric[k]].reaction) return 1;
    return 0;
}

/* See analysis.h. */
int mbs_reaction_friction_forward(mbs_data *d, int (*once)(mbs_data *d))
{
    const mbs_model *m = d->model;
    if (!has_reaction_friction(m)) return once(d);
    mbs_analysis *a = d->analysis;
    const int nv = m->nv, nrow = m->ncon + mbs_nqrow(m);
    for (int i = 0; i < nv; ++i) a->rf_qacc[i] = d->qacc[i];
    for (int i = 0; i < nrow; ++i) a->rf_lambda[i] = d->lambda[i];
    for (int it = 0; it < RF_MAXIT; ++it) {
        int settled, st = once(d);
        if (st == MBS_OK) st = sweep_limits(d, 0, &settled);
        if (st != MBS_OK || settled) return st; /* evaluated with the limits it gives */
        sweep_limits(d, 1, &settled); /* the reactions are cached: no second pass */
    }
    for (int i = 0; i < nv; ++i) d->qacc[i] = a->rf_qacc[i];
    for (int i = 0; i < nrow; ++i) d->lambda[i] = a->rf_lambda[i];
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_CONVERGENCE, "reaction friction %s: the limits and the "
                         "reactions did not settle in %d rounds (mu too large: the friction "
                         "raises its own normal force, the joint jams)", first_name(m, buf,
                         (int)sizeof buf), RF_MAXIT);
}
