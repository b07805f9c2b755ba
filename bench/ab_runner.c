/* ab_runner: one side of bench/ab.sh. Built as a shared object around the static libmbs of
   one build (its symbols kept inside), so that ab_compare can load two builds into one
   process and time them alternately: on a loaded machine both see the same load, and their
   ratio stays meaningful where absolute figures drift. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

/* One benchmark model (bench_dynamics' chains and humanoid, same seeds) and its data. */
typedef struct ab_case {
    mbs_model *m;
    mbs_data *d;
    bench_states s;
    double *M, *tau;
    int k, nbody;
} ab_case;

static ab_case cases[9];
static int built[9];

/* Thread CPU time in seconds. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Model i (0..3: chains of 7, 30, 100, 1000 links, 4: the humanoid, 5..8: the planar chains
   of bench_planar with 7, 30, 100, 1000 links on the planar path), built on first use. */
static ab_case *get_case(int i)
{
    static const int sizes[4] = {7, 30, 100, 1000};
    ab_case *c = &cases[i];
    if (built[i]) return c;
    int st;
    if (i >= 5) {
        st = bench_planar_chain_mbs(sizes[i - 5], MBS_PLANAR_AUTO, &c->m);
    } else if (i < 4) {
        bench_link *l = malloc(sizeof(bench_link) * (size_t)sizes[i]);
        if (!l) return NULL;
        bench_chain_links(sizes[i], BENCH_CHAIN_SEED, l);
        st = bench_chain_mbs(sizes[i], l, NULL, NULL, &c->m);
        free(l);
    } else {
        st = bench_humanoid_mbs(&c->m);
    }
    if (st != MBS_OK || bench_states_make(c->m, 64, 1000u + (uint64_t)i, &c->s) != MBS_OK)
        return NULL;
    const size_t nv = (size_t)c->s.nv;
    c->d = mbs_data_create(c->m);
    c->M = malloc(sizeof(double) * nv * nv);
    c->tau = malloc(sizeof(double) * nv);
    c->nbody = mbs_model_nbody(c->m) - 1;
    if (!c->d || !c->M || !c->tau) return NULL;
    built[i] = 1;
    return c;
}

/* CPU ns per call and per moving body of n calls of func ('a' ABA, 'r' RNEA, 'c' mass
   matrix; 'p' ABA on the planar chain i + 5) on model i, each loading the next of the 64 states; negative on failure. */
__attribute__((visibility("default"))) double ab_run(char func, int i, long n)
{
    if (func == 'p') func = 'a', i += 5;
    ab_case *c = get_case(i);
    if (!c) return -1.0;
    const size_t nq = (size_t)c->s.nq, nv = (size_t)c->s.nv;
    const double t0 = cpu_now();
    for (long j = 0; j < n; ++j, c->k = (c->k + 1) % 64) {
        const size_t k = (size_t)c->k;
        memcpy(mbs_data_q(c->d), c->s.q + k * nq, sizeof(double) * nq);
        memcpy(mbs_data_v(c->d), c->s.v + k * nv, sizeof(double) * nv);
        memcpy(mbs_data_tau(c->d), c->s.a + k * nv, sizeof(double) * nv);
        int st;
        if (func == 'a')
            st = mbs_forward_dynamics(c->d);
        else if (func == 'r')
            st = mbs_inverse_dynamics(c->d, c->s.a + k * nv, c->tau);
        else
            st = mbs_mass_matrix(c->d, c->M);
        if (st != MBS_OK) return -1.0;
    }
    return (cpu_now() - t0) / (double)n * 1e9 / (double)c->nbody;
}
