/* Lanes: n instances of one tree model whose forward dynamics run W at a time, one instance
 * per lane of the SIMD variant in use (core/aba_lanes.h). Each instance is an ordinary data
 * object; its kinematics and forces are its own, the articulated-body passes shared. */
#include "core/aba_lanes.h"
#include "core/internal.h"
#include "events/events.h"
#include "ustates/ustates.h"

#include <stdlib.h>

struct mbs_lanes {
    const mbs_model *model;
    int n, w;
    mbs_data **data;  /* [n] */
    mbs_lanes_ws ws;
    double *block;    /* the workspace's arrays */
    int failed;       /* first instance the last call failed on, -1 */
    int kin;          /* 1: the lanes compute kinematics and gravity (aba_lanes.h) */
    char error[MBS_ERROR_LEN];
};

/* One block for every lane array, sized for the widest variant. */
static int lanes_alloc_ws(mbs_lanes *l)
{
    const size_t nb = (size_t)l->model->nbody, nv = (size_t)l->model->nv;
    const size_t len[12] = {12 * nb, 6 * nb, 6 * nb, 6 * nb, 6 * nv, nv,
                            36 * nb, 6 * nb, 6 * nv, 6 * nv, nv, 6 * nb};
    double **dst[12] = {&l->ws.X, &l->ws.vel, &l->ws.c, &l->ws.fe, &l->ws.S, &l->ws.tau,
                        &l->ws.IA, &l->ws.pA, &l->ws.U, &l->ws.Dinv, &l->ws.u, &l->ws.a};
    size_t total = 0;
    for (int i = 0; i < 12; ++i) total += len[i] * MBS_LANES_MAX;
    l->block = calloc(total, sizeof(double));
    l->ws.axis = calloc((size_t)l->model->njoint, sizeof(int));
    if (!l->block || !l->ws.axis) return MBS_ERR_NOMEM;
    mbs_lanes_axes(l->model, l->ws.axis);
    double *p = l->block;
    for (int i = 0; i < 12; ++i) *dst[i] = p, p += len[i] * MBS_LANES_MAX;
    return MBS_OK;
}

mbs_lanes *mbs_lanes_create(const mbs_model *m, int n)
{
    if (!m || n < 1 || n > (1 << 24)) return NULL;
    mbs_lanes *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->model = m;
    l->n = n;
    l->failed = -1;
    l->kin = mbs_lanes_kinematics_applies(m);
    l->data = calloc((size_t)n, sizeof *l->data);
    int ok = l->data && lanes_alloc_ws(l) == MBS_OK;
    for (int k = 0; ok && k < n; ++k) ok = (l->data[k] = mbs_data_create(m)) != NULL;
    if (!ok) {
        mbs_lanes_destroy(l);
        return NULL;
    }
    return l;
}

void mbs_lanes_destroy(mbs_lanes *l)
{
    if (!l) return;
    for (int k = 0; l->data && k < l->n; ++k) mbs_data_destroy(l->data[k]);
    free(l->data);
    free(l->block);
    free(l->ws.axis);
    free(l);
}

int mbs_lanes_count(const mbs_lanes *l) { return l ? l->n : MBS_ERR_ARG; }

int mbs_lanes_width(void) { return mbs_lanes_variant_width(); }

mbs_data *mbs_lanes_data(mbs_lanes *l, int k) { return l && k >= 0 && k < l->n ? l->data[k] : NULL; }

const char *mbs_lanes_error(const mbs_lanes *l) { return l ? l->error : ""; }

int mbs_lanes_failed(const mbs_lanes *l) { return l ? l->failed : MBS_ERR_ARG; }

/* What the shared passes leave out: loops, coupling rows after ABA, coordinate rows. */
static int lanes_supported(mbs_lanes *l)
{
    const mbs_model *m = l->model;
    const char *why = m->ncon > 0         ? "cut joints (closed loops)"
                      : m->ncrow > 0      ? "line masses, rotors or nodes (coupling rows)"
                      : mbs_nqrow(m) > 0  ? "prescribed motions, friction locks or stops"
                                          : NULL;
    if (!why) return MBS_OK;
    return mbs_errorf(l->error, MBS_ERR_STATE, "mbs_lanes_forward_dynamics: the model has %s, "
                      "which the shared articulated-body passes do not take; use "
                      "mbs_forward_dynamics on each data", why);
}

/* Instance k's state checked, its kinematics and forces computed (unless the lanes do). */
static int lanes_prepare(mbs_lanes *l, int k, int kin)
{
    mbs_data *d = l->data[k];
    int st = mbs_refuse_nested(d, "mbs_lanes_forward_dynamics");
    if (st == MBS_OK) st = mbs_check_state(d, 1, 1);
    if (st != MBS_OK || kin) return st;
    mbs_kinematics(d);
    return mbs_forces_accumulate(d);
}

/* Fail the call on instance k with its status (its data holds the message). */
static int lanes_fail(mbs_lanes *l, int k, int st)
{
    l->failed = k;
    return mbs_errorf(l->error, st, "instance %d: %s", k, mbs_data_error(l->data[k]));
}

/* One group of up to W instances from first: the shared passes on those whose kinematics and
   forces were computed; a singular lane sends the group through the one-instance call,
   which names the body. The first failing status (OK when none failed). */
static int lanes_group(mbs_lanes *l, int first, int w, mbs_lanes_aba_fn aba)
{
    mbs_data *g[MBS_LANES_MAX];
    int idx[MBS_LANES_MAX], n = 0, st = MBS_OK, kin = l->kin;
    for (int k = first; kin && k < first + w && k < l->n; ++k) kin = !l->data[k]->wrenched;
    for (int k = first; k < first + w && k < l->n; ++k) {
        const int s = lanes_prepare(l, k, kin);
        if (s == MBS_OK) g[n] = l->data[k], idx[n++] = k;
        else if (st == MBS_OK) st = lanes_fail(l, k, s);
    }
    if (n == 0) return st;
    const int nv = l->model->nv;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < nv; ++i) g[j]->work[i] = g[j]->qacc[i];
    int lane = 0;
    if (aba(l->model, g, n, &l->ws, &lane, kin) != 0) {
        for (int j = 0; j < n; ++j) {
            const int s = mbs_forward_dynamics(g[j]);
            if (s != MBS_OK && st == MBS_OK) st = lanes_fail(l, idx[j], s);
        }
        return st;
    }
    for (int j = 0; j < n; ++j) {
        const int bad = mbs_first_nonfinite(g[j]->qacc, nv);
        if (bad < 0) continue;
        for (int i = 0; i < nv; ++i) g[j]->qacc[i] = g[j]->work[i];
        const int s = mbs_fail_nonfinite(g[j], "qacc", bad, l->model->dof_joint[bad]);
        if (st == MBS_OK) st = lanes_fail(l, idx[j], s);
    }
    return st;
}

int mbs_lanes_forward_dynamics(mbs_lanes *l)
{
    if (!l) return MBS_ERR_ARG;
    l->failed = -1;
    l->error[0] = '\0';
    int st = lanes_supported(l);
    if (st != MBS_OK) return st;
    const int w = mbs_lanes_variant_width();
    const mbs_lanes_aba_fn aba = mbs_lanes_variant_aba();
    for (int first = 0; first < l->n; first += w) {
        const int s = lanes_group(l, first, w, aba);
        if (st == MBS_OK) st = s;
    }
    return st;
}
