/* The per-thread data: every array the runtime needs is allocated here, once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "derivatives/derivs.h"
#include "core/internal.h"
#include "core/kernels.h"
#include "core/linalg.h"
#include "analysis/analysis.h"
#include "events/events.h"
#include "loops/analytic/closure.h"
#include "planar/planar.h"
#include "loops/loops.h"
#include "elements/couplings.h"
#include "ustates/ustates.h"
#include "contact/shapes.h"

/* calloc of n elements of size sz, at least one element so that 0 is not mistaken for
   failure. */
static void *alloc0(size_t n, size_t sz) { return calloc(n > 0 ? n : 1, sz); }

/* Allocate every array of d for model m; 0 or MBS_ERR_NOMEM. */
static int data_alloc(mbs_data *d, const mbs_model *m)
{
    const size_t nb = (size_t)m->nbody, nv = (size_t)m->nv, nq = (size_t)m->nq;
    const size_t naux = (size_t)m->naux, nforce = (size_t)m->nforce;
    const size_t nrow = (size_t)m->ncon + (size_t)mbs_nqrow(m); /* cut and coordinate rows */
    const size_t nwork = (nv * 6 > 36 ? nv * 6 : 36) + nv + nrow + nq;
    int ok = 1;
#define X(type, name, n) ok &= (d->name = alloc0((n), sizeof(type))) != NULL;
    MBS_DATA_ARRAYS(X)
#undef X
    if (!ok) return MBS_ERR_NOMEM;
    if (mbs_planar_data_alloc(m, &d->planar) != MBS_OK) return MBS_ERR_NOMEM;
    if (mbs_couplings_create(d, d->model->ncon + mbs_nqrow(d->model)) != MBS_OK) return MBS_ERR_NOMEM;
    if (mbs_analysis_create(d) != MBS_OK) return MBS_ERR_NOMEM;
    if (mbs_events_data_create(d) != MBS_OK) return MBS_ERR_NOMEM; /* modes, row targets */
    if (mbs_derivs_create(d) != MBS_OK) return MBS_ERR_NOMEM;
    if (mbs_ustates_data_create(d) != MBS_OK) return MBS_ERR_NOMEM; /* at their start values */
    if (mbs_loops_create(d) != MBS_OK) return MBS_ERR_NOMEM; /* nothing for a tree */
    if (mbs_closure_data_create(d) != MBS_OK) return MBS_ERR_NOMEM;
    if (mbs_contact_data_create(d) != MBS_OK) return MBS_ERR_NOMEM; /* shapes' workspace */
    /* what a failed analysis puts back of the loop solver (analysis.h) */
    return mbs_loops_snap_create(d, &d->analysis->loops_bak);
}

/* q, v = the model's start values (neutral and rest unless given), aux = initial reference
   frames, identity poses. */
static void data_init_state(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int j = 0; j < m->njoint; ++j) {
        const mbs_joint_model *jm = &m->joints[j];
        if (!jm->ops) continue;
        if (jm->auxadr >= 0 && jm->ops->aux_init) jm->ops->aux_init(jm, d->aux + jm->auxadr);
    }
    mbs_model_start(m, d->q, d->v);
    for (int b = 0; b < m->nbody; ++b) {
        pose_identity(&d->x_up[b]);
        pose_identity(&d->x_world[b]);
    }
    for (int t = 0; t < m->ntree; ++t) { /* parents first: a body inherits its parent's root */
        const int b = m->joints[m->tree[t]].child, p = m->bodies[b].parent;
        d->root_body[b] = p > 0 ? d->root_body[p] : b;
    }
    for (int i = 0; i < m->nv; ++i) /* dof_parent[i] < i */
        d->dof_depth[i] = m->dof_parent[i] >= 0 ? d->dof_depth[m->dof_parent[i]] + 1 : 0;
    mbs_crba_groups_init(d);
    for (int i = 0; i < m->nforce; ++i) /* two-frame forces start at their constant value */
        memcpy(d->force_in + 6 * i, m->forces[i].value, sizeof m->forces[i].value);
    mbs_kernels_init_data(d);
}

/* Create the data of a compiled model (NULL for a NULL model or out of memory). */
mbs_data *mbs_data_create(const mbs_model *m)
{
    if (!m) return NULL;
    mbs_data *d = calloc(1, sizeof(*d));
    if (!d) return NULL;
    d->model = m;
    if (data_alloc(d, m) != MBS_OK) {
        mbs_data_destroy(d);
        return NULL;
    }
    mbs_linalg_init();
    data_init_state(d);
    return d;
}

/* Free the data and every array (NULL allowed). */
void mbs_data_destroy(mbs_data *d)
{
    if (!d) return;
#define X(type, name, n) free(d->name);
    MBS_DATA_ARRAYS(X)
#undef X
    mbs_planar_data_free(d->planar);
    mbs_closure_data_destroy(d);
    mbs_loops_destroy(d);
    mbs_couplings_destroy(d);
    mbs_analysis_destroy(d);
    mbs_events_data_destroy(d);
    mbs_derivs_destroy(d);
    mbs_ustates_data_destroy(d);
    mbs_contact_data_destroy(d);
    free(d);
}

/* The model the data was created for. */
const mbs_model *mbs_data_model(const mbs_data *d) { return d ? d->model : NULL; }

/* Message of the last failure ("" if none or d is NULL). */
const char *mbs_data_error(const mbs_data *d) { return d ? d->error : ""; }

/* State and input arrays (NULL for a NULL data). */
double *mbs_data_q(mbs_data *d) { return d ? d->q : NULL; }
double *mbs_data_v(mbs_data *d) { return d ? d->v : NULL; }
double *mbs_data_tau(mbs_data *d) { return d ? d->tau : NULL; }
const double *mbs_data_qacc(const mbs_data *d) { return d ? d->qacc : NULL; }
const double *mbs_data_lambda(const mbs_data *d) { return d ? d->lambda : NULL; }

/* Current time (NaN for a NULL data). */
double mbs_data_time(const mbs_data *d) { return d ? d->time : NAN; }

/* Set the time; a non-finite t is MBS_ERR_ARG and leaves the time as it was. */
int mbs_data_set_time(mbs_data *d, double t)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_data_set_time");
    if (nested != MBS_OK) return nested;
    if (!isfinite(t)) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "time: not finite (%g)", t);
    d->time = t;
    return MBS_OK;
}
