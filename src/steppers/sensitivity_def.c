/* The definition of a sensitivity run and the checks of mbs_sens_create, shared by the
 * CVODES build and the build without SUNDIALS. */
#include "steppers/sensitivity.h"
#include "loops/loops.h"
#include "core/params.h"

#include <math.h>
#include <string.h>

#define SENS_MAX_PARAMS 1000

/* Adams, rtol 1e-8, atol 1e-10, no step limit, 100000 internal steps per run. */
mbs_sens_def mbs_default_sens_def(void)
{
    mbs_sens_def def;
    memset(&def, 0, sizeof def);
    def.kind = MBS_STEP_CVODE_ADAMS;
    def.rtol = 1e-8;
    def.atol = 1e-10;
    def.max_step = 0.0;
    def.max_internal_steps = 100000;
    return def;
}

/* The same parameter: kind, id and index (inertia: (i, j) and (j, i) alike). */
static int same_param(const mbs_param *a, const mbs_param *b)
{
    if (a->kind != b->kind || a->id != b->id) return 0;
    if (a->kind != MBS_PARAM_INERTIA) return a->index == b->index;
    return a->index == b->index || a->index == 3 * (b->index % 3) + b->index / 3;
}

/* A parameter that the model must keep at its value (its perturbation would be refused by
   mbs_model_set_param): the inertia of a point mass, a line's point mass compiled 0 (it has
   no inertial rows), the damping of a line through a node; and a restitution stop's values,
   which act at impacts, which a run does not locate. */
static int check_fixed_value(const mbs_model *m, mbs_data *d, const mbs_param *p, int k)
{
    if (p->kind == MBS_PARAM_INERTIA && m->joints[m->bodies[p->id].joint].point_mass)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: parameter %d: body %d is a "
                             "point mass, its inertia stays 0", k, p->id);
    const mbs_force_model *f = p->kind == MBS_PARAM_LINE_MASS || p->kind == MBS_PARAM_DAMPING
                               ? &m->forces[p->id] : NULL;
    if (f && p->kind == MBS_PARAM_LINE_MASS && (p->index == 0 ? f->mass : f->mass_b) == 0.0)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: parameter %d: the point mass of "
                             "force element %d was compiled 0 and stays 0 (compile it with a "
                             "mass > 0)", k, p->id);
    if (p->kind == MBS_PARAM_STOP && p->index >= 2)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: parameter %d: a restitution "
                             "stop's values act at impacts, which a sensitivity run does not "
                             "locate", k);
    if (f && p->kind == MBS_PARAM_DAMPING && mbs_force_is_line(f) &&
        (m->body_node[f->body_a] >= 0 || m->body_node[f->body_b] >= 0))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: parameter %d: force element %d "
                             "touches a node, its damping stays 0", k, p->id);
    return MBS_OK;
}

/* Parameters valid, distinct, none that must keep its value. */
static int check_params(const mbs_model *m, mbs_data *d, const mbs_param *params, int np)
{
    if (!params) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: params is NULL");
    if (np < 1 || np > SENS_MAX_PARAMS)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: np = %d must be in 1..%d", np,
                             SENS_MAX_PARAMS);
    for (int k = 0; k < np; ++k) {
        const mbs_param *p = &params[k];
        int st = mbs_param_check(m, p, d->error);
        if (st != MBS_OK) return st;
        for (int l = 0; l < k; ++l)
            if (same_param(p, &params[l]))
                return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: parameters %d and %d "
                                     "are the same", l, k);
        st = check_fixed_value(m, d, p, k);
        if (st != MBS_OK) return st;
    }
    return MBS_OK;
}

/* Kind, tolerances and limits of a run definition. */
static int check_def(mbs_data *d, const mbs_sens_def *def)
{
    if (!def) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: def is NULL");
    if (def->kind != MBS_STEP_CVODE_ADAMS && def->kind != MBS_STEP_CVODE_BDF)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: kind %d is not a CVODE kind",
                             (int)def->kind);
    if (!(def->rtol > 0.0) || !isfinite(def->rtol) || !(def->atol > 0.0) || !isfinite(def->atol))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: rtol = %g and atol = %g must be "
                             "positive and finite", def->rtol, def->atol);
    if (!(def->max_step >= 0.0) || !isfinite(def->max_step))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: max_step = %g must be >= 0 and "
                             "finite (0: no limit)", def->max_step);
    if (def->max_internal_steps <= 0)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: max_internal_steps = %ld must be "
                             "positive", def->max_internal_steps);
    return MBS_OK;
}

int mbs_sens_check(const mbs_model *m, mbs_data *d, const mbs_param *params, int np,
                   const mbs_sens_def *def, mbs_sens **out)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_sens_create");
    if (nested != MBS_OK) return nested;
    if (!m || d->model != m)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: the model is %s",
                             m ? "not the data's model" : "NULL");
    if (!out) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: out is NULL");
    int st = check_params(m, d, params, np);
    if (st == MBS_OK) st = check_def(d, def);
    if (st != MBS_OK) return st;
    if (m->nuc > 0)
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "mbs_sens_create: the model has user constraints "
                             "or joint couplings, whose sensitivities are not taken");
    for (int k = 0; m->ncon > 0 && k < np; ++k)
        if (mbs_param_is_geometry(&params[k]))
            return MBS_DATA_FAIL(d, MBS_ERR_STATE, "mbs_sens_create: parameter %d is a geometry "
                                 "parameter of a model with closed loops: it moves the closure, "
                                 "whose sensitivity at the start is not taken", k);
    if (m->ncon > 0 && !mbs_loops_is_closed(d))
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "mbs_sens_create: the loops of the data's state "
                             "are not closed (mbs_assemble first)");
    if (m->nq + m->nv == 0)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_create: the model has no coordinates");
    return MBS_OK;
}
