/* Many runs of one model at once: K data objects, each with its own stepper, stepped on T
   threads of a pool made at creation. A run is always stepped by the same thread, with the
   same calls as when stepped alone, so the results are bitwise those of a serial loop; a run
   that fails keeps its status and stops, the others go on. Nothing allocates after create. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mbs/mbs.h"

struct mbs_batch;

/* One pool thread: its index and the batch it works for. */
typedef struct batch_worker {
    struct mbs_batch *b;
    int index;
} batch_worker;

struct mbs_batch {
    int nrun, nthread;
    mbs_model **models;   /* [nthread] the model of each thread (may repeat without params) */
    mbs_data **data;      /* [nrun] */
    mbs_stepper **st;     /* [nrun] */
    int *status;          /* [nrun] MBS_OK or the status that stopped the run */
    const mbs_param *params; /* [np] per-run parameters (caller's array), or NULL */
    const double *values;    /* [nrun x np] their values (caller's array) */
    int np;
    double dt;            /* the job of the current mbs_batch_run */
    long nstep;
    pthread_t *threads;   /* [nthread - 1]: thread 0 is the caller */
    batch_worker *workers;
    int nstarted;         /* pool threads running */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    long generation;      /* incremented by each run; a worker waits for a new one */
    int pending;          /* pool threads still on the current job */
    int quit;
};

/* Set run k's parameters on the model of its thread t; MBS_OK or the refusal's status. */
static int batch_set_params(mbs_batch *b, int t, int k)
{
    int st = MBS_OK;
    for (int i = 0; i < b->np && st == MBS_OK; i++)
        st = mbs_model_set_param(b->models[t], &b->params[i],
                                 b->values[(size_t)k * (size_t)b->np + (size_t)i]);
    return st;
}

/* The share of thread t: runs t, t + T, t + 2T, ..., each stepped nstep times unless it
   failed before. */
static void batch_slice(mbs_batch *b, int t)
{
    for (int k = t; k < b->nrun; k += b->nthread) {
        int st = b->status[k];
        if (st == MBS_OK && b->np > 0) st = batch_set_params(b, t, k);
        for (long n = 0; n < b->nstep && st == MBS_OK; n++)
            st = mbs_stepper_step(b->st[k], b->dt);
        b->status[k] = st;
    }
}

/* A pool thread: wait for a job (a new generation), do its slice, report, until quit. */
static void *batch_worker_main(void *arg)
{
    batch_worker *w = arg;
    mbs_batch *b = w->b;
    long seen = 0;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (!b->quit && b->generation == seen) pthread_cond_wait(&b->go, &b->mu);
        if (b->quit) break;
        seen = b->generation;
        pthread_mutex_unlock(&b->mu);
        batch_slice(b, w->index);
        pthread_mutex_lock(&b->mu);
        if (--b->pending == 0) pthread_cond_signal(&b->done);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* Allocate the arrays and create the data objects and steppers; 0 or MBS_ERR_NOMEM. */
static int batch_alloc(mbs_batch *b, mbs_model *const *models, const mbs_stepper_def *def)
{
    const size_t K = (size_t)b->nrun, T = (size_t)b->nthread;
    b->models = calloc(T, sizeof *b->models);
    b->data = calloc(K, sizeof *b->data);
    b->st = calloc(K, sizeof *b->st);
    b->status = calloc(K, sizeof *b->status);
    b->threads = calloc(T, sizeof *b->threads);
    b->workers = calloc(T, sizeof *b->workers);
    if (!b->models || !b->data || !b->st || !b->status || !b->threads || !b->workers)
        return MBS_ERR_NOMEM;
    memcpy(b->models, models, T * sizeof *b->models);
    for (size_t k = 0; k < K; k++) {
        b->data[k] = mbs_data_create(models[k % T]);
        b->st[k] = b->data[k] ? mbs_stepper_create(b->data[k], def) : NULL;
        if (!b->st[k]) return MBS_ERR_NOMEM;
    }
    return MBS_OK;
}

/* Start the pool threads 1..T-1; 0 or MBS_ERR_NOMEM. */
static int batch_start_pool(mbs_batch *b)
{
    for (int t = 1; t < b->nthread; t++) {
        b->workers[t] = (batch_worker){b, t};
        if (pthread_create(&b->threads[t], NULL, batch_worker_main, &b->workers[t]) != 0)
            return MBS_ERR_NOMEM;
        b->nstarted = t;
    }
    return MBS_OK;
}

/* Every model must be non-NULL with the same coordinates as the first. */
static int batch_models_ok(mbs_model *const *models, int nthread)
{
    if (!models || !models[0]) return 0;
    for (int t = 1; t < nthread; t++)
        if (!models[t] || mbs_model_nq(models[t]) != mbs_model_nq(models[0]) ||
            mbs_model_nv(models[t]) != mbs_model_nv(models[0]))
            return 0;
    return 1;
}

mbs_batch *mbs_batch_create(mbs_model *const *models, int nthread, int nrun,
                            const mbs_stepper_def *def)
{
    if (nthread < 1 || nrun < 1 || !def || !batch_models_ok(models, nthread)) return NULL;
    mbs_batch *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->nrun = nrun;
    b->nthread = nthread;
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->go, NULL);
    pthread_cond_init(&b->done, NULL);
    if (batch_alloc(b, models, def) != MBS_OK || batch_start_pool(b) != MBS_OK) {
        mbs_batch_destroy(b);
        return NULL;
    }
    return b;
}

void mbs_batch_destroy(mbs_batch *b)
{
    if (!b) return;
    pthread_mutex_lock(&b->mu);
    b->quit = 1;
    pthread_cond_broadcast(&b->go);
    pthread_mutex_unlock(&b->mu);
    for (int t = 1; t <= b->nstarted; t++) pthread_join(b->threads[t], NULL);
    for (int k = 0; b->st && k < b->nrun; k++) mbs_stepper_destroy(b->st[k]);
    for (int k = 0; b->data && k < b->nrun; k++) mbs_data_destroy(b->data[k]);
    pthread_cond_destroy(&b->done);
    pthread_cond_destroy(&b->go);
    pthread_mutex_destroy(&b->mu);
    free(b->workers);
    free(b->threads);
    free(b->status);
    free(b->st);
    free(b->data);
    free(b->models);
    free(b);
}

int mbs_batch_nrun(const mbs_batch *b) { return b ? b->nrun : MBS_ERR_ARG; }

mbs_data *mbs_batch_data(mbs_batch *b, int run)
{
    return b && run >= 0 && run < b->nrun ? b->data[run] : NULL;
}

int mbs_batch_status(const mbs_batch *b, int run)
{
    return b && run >= 0 && run < b->nrun ? b->status[run] : MBS_ERR_ARG;
}

int mbs_batch_clear_status(mbs_batch *b)
{
    if (!b) return MBS_ERR_ARG;
    memset(b->status, 0, (size_t)b->nrun * sizeof *b->status);
    return MBS_OK;
}

int mbs_batch_set_params(mbs_batch *b, const mbs_param *params, int np, const double *values)
{
    if (!b || np < 0 || (np > 0 && (!params || !values))) return MBS_ERR_ARG;
    for (int t = 0; np > 0 && t < b->nthread; t++) /* each thread changes its own model */
        for (int u = 0; u < t; u++)
            if (b->models[t] == b->models[u]) return MBS_ERR_ARG;
    b->params = np > 0 ? params : NULL;
    b->values = np > 0 ? values : NULL;
    b->np = np;
    return MBS_OK;
}

int mbs_batch_run(mbs_batch *b, double dt, long nstep)
{
    if (!b || !(dt > 0.0) || !isfinite(dt) || nstep < 0) return MBS_ERR_ARG;
    pthread_mutex_lock(&b->mu);
    b->dt = dt;
    b->nstep = nstep;
    b->pending = b->nthread - 1;
    b->generation++;
    pthread_cond_broadcast(&b->go);
    pthread_mutex_unlock(&b->mu);
    batch_slice(b, 0);
    pthread_mutex_lock(&b->mu);
    while (b->pending > 0) pthread_cond_wait(&b->done, &b->mu);
    pthread_mutex_unlock(&b->mu);
    for (int k = 0; k < b->nrun; k++)
        if (b->status[k] != MBS_OK) return b->status[k];
    return MBS_OK;
}
