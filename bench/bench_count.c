/* bench_count: a fixed number of calls of one dynamics function on one benchmark model, for
   instruction counts under callgrind (load-independent, unlike the timings of
   bench_dynamics), and a dump of the results for comparing two builds.
   Usage: bench_count MODEL FUNC [N]      MODEL: chain7 chain30 chain100 chain1000 humanoid,
                                          or the planar chains of bench_planar: planar7
                                          planar30 planar100 planar1000 (planar path) and
                                          planar7-3d ... planar1000-3d (the 3-D path)
                                          FUNC: aba rnea crba, dfd (derivatives of the
                                          forward dynamics: dqacc/dq, dqacc/dv, M^-1), did
                                          (of the inverse dynamics: dtau/dq, dtau/dv, M),
                                          step (one RK4 step of 1 ms from the state: 4
                                          forward dynamics and the stepper's own work);
                                          N calls (default 1000)
          bench_count --dump MODEL        the results of the 64 states, %a, one per line
          bench_count --dump-derivs MODEL the derivatives of the 64 states (8 above 200
                                          dofs), %a, one per line
   bench/callgrind.sh runs it under callgrind for every model and function and prints
   instructions per call and per body. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

#define NSTATE 64

/* The model under test, its data, states and outputs. */
typedef struct count_case {
    mbs_model *m;
    mbs_data *d;
    mbs_stepper *st; /* RK4, for FUNC step */
    bench_states s;
    double *M, *tau, *X, *Y; /* M also the third derivative output */
} count_case;

/* Build the named model (as bench_dynamics and bench_planar do, same seeds); 0 or -1. */
static int case_create(const char *name, count_case *c)
{
    static const char *names[5] = {"chain7", "chain30", "chain100", "chain1000", "humanoid"};
    static const int sizes[4] = {7, 30, 100, 1000};
    int i = 0;
    while (i < 5 && strcmp(name, names[i]) != 0) ++i;
    memset(c, 0, sizeof *c);
    int status;
    if (i == 5) { /* a planar chain: planarN or planarN-3d */
        char *end = (char *)name;
        const long n = strncmp(name, "planar", 6) == 0 ? strtol(name + 6, &end, 10) : 0;
        if (n < 1 || n > 1000 || (*end && strcmp(end, "-3d") != 0)) return -1;
        status = bench_planar_chain_mbs((int)n, *end ? MBS_PLANAR_OFF : MBS_PLANAR_AUTO, &c->m);
        i = 5 + (int)n; /* the states' seed */
    } else if (i < 4) {
        bench_link *links = malloc(sizeof(bench_link) * (size_t)sizes[i]);
        if (!links) return -1;
        bench_chain_links(sizes[i], BENCH_CHAIN_SEED, links);
        status = bench_chain_mbs(sizes[i], links, NULL, NULL, &c->m);
        free(links);
    } else {
        status = bench_humanoid_mbs(&c->m);
    }
    if (status != MBS_OK) return -1;
    if (bench_states_make(c->m, NSTATE, 1000u + (uint64_t)i, &c->s) != MBS_OK) return -1;
    const size_t nv = (size_t)c->s.nv;
    c->d = mbs_data_create(c->m);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    c->st = c->d ? mbs_stepper_create(c->d, &sd) : NULL;
    c->M = malloc(sizeof(double) * nv * nv);
    c->tau = malloc(sizeof(double) * nv);
    c->X = malloc(sizeof(double) * nv * nv);
    c->Y = malloc(sizeof(double) * nv * nv);
    return (c->d && c->st && c->M && c->tau && c->X && c->Y) ? 0 : -1;
}

/* Copy state k (q, v, a as tau) into the data. */
static void load_state(count_case *c, int k)
{
    const bench_states *s = &c->s;
    memcpy(mbs_data_q(c->d), s->q + (size_t)k * (size_t)s->nq, sizeof(double) * (size_t)s->nq);
    memcpy(mbs_data_v(c->d), s->v + (size_t)k * (size_t)s->nv, sizeof(double) * (size_t)s->nv);
    memcpy(mbs_data_tau(c->d), s->a + (size_t)k * (size_t)s->nv, sizeof(double) * (size_t)s->nv);
}

/* One call of func ('a' ABA, 'r' RNEA, 'c' CRBA, 'd' forward-dynamics derivatives into X,
   Y, M, 'i' inverse-dynamics derivatives at the state's acceleration, 's' RK4 step) on
   state k. */
static int call_one(count_case *c, char func, int k)
{
    load_state(c, k);
    const double *a = c->s.a + (size_t)k * (size_t)c->s.nv;
    if (func == 'a') return mbs_forward_dynamics(c->d);
    if (func == 's') return mbs_stepper_step(c->st, 1e-3);
    if (func == 'r') return mbs_inverse_dynamics(c->d, a, c->tau);
    if (func == 'd') return mbs_forward_dynamics_derivatives(c->d, c->X, c->Y, c->M);
    if (func == 'i') return mbs_inverse_dynamics_derivatives(c->d, a, c->X, c->Y, c->M);
    return mbs_mass_matrix(c->d, c->M);
}

/* The letter of a FUNC name (see the top), 0 for an unknown one. */
static char func_letter(const char *name)
{
    static const char *const names[6] = {"aba", "rnea", "crba", "dfd", "did", "step"};
    for (int i = 0; i < 6; ++i)
        if (strcmp(name, names[i]) == 0) return "arcdis"[i];
    return 0;
}

#if defined(__GNUC__)
#define COUNT_NOINLINE __attribute__((noinline))
#else
#define COUNT_NOINLINE
#endif

/* The loop callgrind counts (--toggle-collect=count_loop): n calls over the states. */
COUNT_NOINLINE int count_loop(count_case *c, char func, long n)
{
    for (long i = 0; i < n; ++i)
        if (call_one(c, func, (int)(i % NSTATE)) != MBS_OK) return -1;
    return 0;
}

/* Print qacc, tau and M of every state in hexadecimal floating point (M of the first four
   states only above 200 dofs). */
static int dump(count_case *c)
{
    const int nv = c->s.nv;
    for (int k = 0; k < NSTATE; ++k) {
        if (call_one(c, 'a', k) != MBS_OK || call_one(c, 'r', k) != MBS_OK) return -1;
        const double *qacc = mbs_data_qacc(c->d);
        for (int i = 0; i < nv; ++i) printf("qacc %d %d %a\n", k, i, qacc[i]);
        for (int i = 0; i < nv; ++i) printf("tau %d %d %a\n", k, i, c->tau[i]);
        if (nv > 200 && k >= 4) continue;
        if (call_one(c, 'c', k) != MBS_OK) return -1;
        for (int i = 0; i < nv * nv; ++i) printf("M %d %d %a\n", k, i, c->M[i]);
    }
    return 0;
}

/* Print both derivative calls' outputs of every state (the first 8 above 200 dofs). */
static int dump_derivs(count_case *c)
{
    const int nv = c->s.nv;
    const char *names[2][3] = {{"dqacc_dq", "dqacc_dv", "Minv"}, {"dtau_dq", "dtau_dv", "M"}};
    for (int k = 0; k < (nv > 200 ? 8 : NSTATE); ++k)
        for (int f = 0; f < 2; ++f) {
            if (call_one(c, f == 0 ? 'd' : 'i', k) != MBS_OK) return -1;
            const double *out[3] = {c->X, c->Y, c->M};
            for (int o = 0; o < 3; ++o)
                for (int i = 0; i < nv * nv; ++i) printf("%s %d %d %a\n", names[f][o], k, i, out[o][i]);
        }
    return 0;
}

/* Entry point (see the top of the file). */
int main(int argc, char **argv)
{
    count_case c;
    const int dumping = argc == 3 && strcmp(argv[1], "--dump") == 0;
    const int dumping_derivs = argc == 3 && strcmp(argv[1], "--dump-derivs") == 0;
    const char func = argc >= 3 ? func_letter(argv[2]) : 0;
    if (!dumping && !dumping_derivs && (argc < 3 || argc > 4 || !func)) {
        fprintf(stderr, "usage: %s MODEL aba|rnea|crba|dfd|did|step [N] | --dump MODEL | "
                "--dump-derivs MODEL\n", argv[0]);
        return 2;
    }
    if (case_create(argv[dumping || dumping_derivs ? 2 : 1], &c) != 0) {
        fprintf(stderr, "bench_count: unknown model or build failure\n");
        return 2;
    }
    const long n = argc == 4 ? atol(argv[3]) : 1000;
    const int st = dumping ? dump(&c) : dumping_derivs ? dump_derivs(&c) : count_loop(&c, func, n);
    if (st != 0) fprintf(stderr, "bench_count: a call failed: %s\n", mbs_data_error(c.d));
    free(c.M), free(c.tau), free(c.X), free(c.Y);
    bench_states_free(&c.s);
    mbs_stepper_destroy(c.st);
    mbs_data_destroy(c.d);
    mbs_model_destroy(c.m);
    return st != 0;
}
