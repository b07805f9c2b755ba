/* bench_batch: many simulations at once. K independent data objects of one shared humanoid
   model are stepped with RK4 at 1 kHz on T threads (each thread owns K/T of them); prints
   simulated seconds per wall second for T = 1 and T = 2 and the speed-up — the throughput a
   parameter sweep or a reinforcement-learning user sees. The model is the only shared
   object and it is read-only; every thread checks its trajectories against the
   single-thread run bit for bit.
   Usage: bench_batch [--quick] [--k K] [--seconds S] */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

#define MAX_THREADS 2

/* One simulation: its data, stepper and the state it starts from. */
typedef struct batch_sim {
    mbs_data *d;
    mbs_stepper *st;
} batch_sim;

/* The work of one thread: simulations [first, first + count), nsteps each. */
typedef struct batch_job {
    batch_sim *sims;
    int first, count;
    long nsteps;
    int status;
} batch_job;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Start simulation k from a seeded perturbation of the neutral pose, so the K runs differ. */
static void start_state(const mbs_model *m, batch_sim *s, int k)
{
    int nv = mbs_model_nv(m);
    double *v = mbs_data_v(s->d);
    bench_rng r;
    bench_rng_seed(&r, 1000u + (uint64_t)k);
    mbs_neutral_q(m, mbs_data_q(s->d));
    for (int i = 0; i < nv; i++)
        v[i] = bench_uniform(&r, -0.5, 0.5);
    mbs_data_set_time(s->d, 0.0);
}

static void *run_job(void *arg)
{
    batch_job *job = arg;
    for (long n = 0; n < job->nsteps && job->status == MBS_OK; n++)
        for (int k = job->first; k < job->first + job->count; k++) {
            int status = mbs_stepper_step(job->sims[k].st, 1e-3);
            if (status != MBS_OK) {
                job->status = status;
                break;
            }
        }
    return NULL;
}

/* Step all K simulations nsteps times on nthread threads; wall seconds, or -1 on failure. */
static double run_batch(const mbs_model *m, batch_sim *sims, int K, int nthread, long nsteps)
{
    pthread_t th[MAX_THREADS];
    batch_job jobs[MAX_THREADS];
    for (int k = 0; k < K; k++)
        start_state(m, &sims[k], k);
    double t0 = wall_now();
    for (int t = 0; t < nthread; t++) {
        int first = K * t / nthread, last = K * (t + 1) / nthread;
        jobs[t] = (batch_job){sims, first, last - first, nsteps, MBS_OK};
        if (pthread_create(&th[t], NULL, run_job, &jobs[t]) != 0)
            return -1.0;
    }
    int failed = 0;
    for (int t = 0; t < nthread; t++) {
        pthread_join(th[t], NULL);
        failed |= jobs[t].status != MBS_OK;
    }
    double wall = wall_now() - t0;
    return failed ? -1.0 : wall;
}

/* Copy every simulation's q and v after a run, to compare runs bit for bit. */
static void snapshot(const mbs_model *m, batch_sim *sims, int K, double *out)
{
    int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    for (int k = 0; k < K; k++) {
        memcpy(out + (size_t)k * (size_t)(nq + nv), mbs_data_q(sims[k].d), sizeof(double) * (size_t)nq);
        memcpy(out + (size_t)k * (size_t)(nq + nv) + nq, mbs_data_v(sims[k].d),
               sizeof(double) * (size_t)nv);
    }
}

static int parse(int argc, char **argv, int *K, double *seconds)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            *seconds = 0.05;
        else if (!strcmp(argv[i], "--k") && i + 1 < argc)
            *K = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            *seconds = atof(argv[++i]);
        else
            return -1;
    }
    return (*K >= MAX_THREADS && *K <= 4096 && *seconds > 0.0) ? 0 : -1;
}

static int create_sims(const mbs_model *m, batch_sim *sims, int K)
{
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    for (int k = 0; k < K; k++) {
        sims[k].d = mbs_data_create(m);
        sims[k].st = sims[k].d ? mbs_stepper_create(sims[k].d, &def) : NULL;
        if (!sims[k].st)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int K = 64;
    double seconds = 0.5;
    if (parse(argc, argv, &K, &seconds) != 0) {
        fprintf(stderr, "usage: bench_batch [--quick] [--k K>=2] [--seconds S>0]\n");
        return 2;
    }
    mbs_model *m = NULL;
    if (bench_humanoid_mbs(&m) != MBS_OK)
        return 1;
    batch_sim *sims = calloc((size_t)K, sizeof *sims);
    size_t nsnap = (size_t)K * (size_t)(mbs_model_nq(m) + mbs_model_nv(m));
    double *ref = malloc(sizeof(double) * nsnap), *got = malloc(sizeof(double) * nsnap);
    int status = (sims && ref && got && create_sims(m, sims, K) == 0) ? 0 : 1;
    long nsteps = (long)(seconds * 1000.0 + 0.5);
    bench_print_machine();
    printf("%d humanoids (%d dof each), RK4 at 1 kHz, %ld steps each\n", K, mbs_model_nv(m), nsteps);
    printf("%8s %12s %22s %9s %9s\n", "threads", "wall s", "sim s per wall s", "speed-up",
           "bitwise");
    double base = 0.0;
    for (int T = 1; T <= MAX_THREADS && status == 0; T++) {
        double wall = run_batch(m, sims, K, T, nsteps);
        if (wall < 0.0) {
            fprintf(stderr, "a step failed: %s\n", mbs_data_error(sims[0].d));
            status = 1;
            break;
        }
        snapshot(m, sims, K, T == 1 ? ref : got);
        int same = T == 1 || memcmp(ref, got, sizeof(double) * nsnap) == 0;
        double rate = (double)K * seconds / wall;
        if (T == 1)
            base = rate;
        printf("%8d %12.3f %22.1f %9.2f %9s\n", T, wall, rate, rate / base, same ? "yes" : "NO");
        status |= !same;
    }
    for (int k = 0; sims && k < K; k++) {
        mbs_stepper_destroy(sims[k].st);
        mbs_data_destroy(sims[k].d);
    }
    free(sims);
    free(ref);
    free(got);
    mbs_model_destroy(m);
    return status;
}
