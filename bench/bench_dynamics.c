/* bench_dynamics: time ABA, RNEA, CRBA (+ Cholesky) and the steppers of mbs on revolute
   chains and a humanoid tree. Usage: bench_dynamics [--quick] [--cpu-time] */
#define _POSIX_C_SOURCE 200809L
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

#define NSTATE 64
#define NMODEL 5
static const int chain_sizes[4] = {7, 30, 100, 1000};

/* One model under test with its data, random states and scratch. */
typedef struct model_case {
    char label[32];
    mbs_model *m;
    mbs_data *d;
    bench_states s;
    int nbody; /* moving bodies */
    double *M, *tau;
} model_case;

/* Copy state k (q, v, and a as tau) into the data; returns the state index. */
static int load_state(model_case *c, int k)
{
    return bench_states_load(&c->s, k, c->d);
}

/* ABA: forward dynamics. */
static int call_aba(void *ctx, int k)
{
    model_case *c = ctx;
    load_state(c, k);
    return mbs_forward_dynamics(c->d);
}

/* RNEA: inverse dynamics for the state's random acceleration. */
static int call_rnea(void *ctx, int k)
{
    model_case *c = ctx;
    int i = load_state(c, k);
    return mbs_inverse_dynamics(c->d, c->s.a + (size_t)i * (size_t)c->s.nv, c->tau);
}

/* CRBA: mass matrix. */
static int call_crba(void *ctx, int k)
{
    model_case *c = ctx;
    load_state(c, k);
    return mbs_mass_matrix(c->d, c->M);
}

/* CRBA then a dense Cholesky factorisation of M (LAPACK dpotrf). */
static int call_crba_chol(void *ctx, int k)
{
    model_case *c = ctx;
    load_state(c, k);
    int status = mbs_mass_matrix(c->d, c->M);
    if (status != MBS_OK)
        return status;
    int nv = c->s.nv; /* M is symmetric: row-major = column-major */
    return (int)LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nv, c->M, nv);
}

/* Build model case i: chains of chain_sizes[i], then the humanoid (i == 4). */
static int case_create(int i, model_case *c)
{
    memset(c, 0, sizeof *c);
    int status;
    if (i < 4) {
        int n = chain_sizes[i];
        bench_link *links = malloc(sizeof(bench_link) * (size_t)n);
        if (!links)
            return MBS_ERR_NOMEM;
        bench_chain_links(n, BENCH_CHAIN_SEED, links);
        status = bench_chain_mbs(n, links, NULL, NULL, &c->m);
        free(links);
        snprintf(c->label, sizeof c->label, "chain %d", n);
    } else {
        status = bench_humanoid_mbs(&c->m);
        snprintf(c->label, sizeof c->label, "humanoid");
    }
    if (status != MBS_OK)
        return status;
    c->nbody = mbs_model_nbody(c->m) - 1;
    status = bench_states_make(c->m, NSTATE, 1000u + (uint64_t)i, &c->s);
    if (status != MBS_OK)
        return status;
    int nv = c->s.nv;
    c->d = mbs_data_create(c->m);
    c->M = malloc(sizeof(double) * (size_t)nv * (size_t)nv);
    c->tau = malloc(sizeof(double) * (size_t)nv);
    return (c->d && c->M && c->tau) ? MBS_OK : MBS_ERR_NOMEM;
}

/* Free everything of a model case. */
static void case_destroy(model_case *c)
{
    bench_states_free(&c->s);
    free(c->M);
    free(c->tau);
    mbs_data_destroy(c->d);
    mbs_model_destroy(c->m);
}

/* Time fn on ctx (which works on c); prints the error and returns -1 when a call failed. */
static double time_pass(void *ctx, model_case *c, bench_call fn, const char *what,
                        const bench_opts *o)
{
    double ns = bench_time(fn, ctx, o);
    if (ns < 0)
        fprintf(stderr, "%s on %s failed: %s\n", what, c->label, mbs_data_error(c->d));
    return ns;
}

/* Time the four passes of one case and print its table row. */
static int dynamics_row(model_case *c, const bench_opts *o)
{
    double aba = time_pass(c, c, call_aba, "ABA", o);
    double rnea = time_pass(c, c, call_rnea, "RNEA", o);
    double crba = time_pass(c, c, call_crba, "CRBA", o);
    double chol = time_pass(c, c, call_crba_chol, "CRBA+Cholesky", o);
    if (aba < 0 || rnea < 0 || crba < 0 || chol < 0)
        return -1;
    double nb = (double)c->nbody;
    printf("%-10s %6d %5d | %11.0f %8.1f | %11.0f %8.1f | %11.0f %8.1f | %12.0f %8.1f\n",
           c->label, c->nbody, c->s.nv, aba, aba / nb, rnea, rnea / nb, crba, crba / nb,
           chol, chol / nb);
    fflush(stdout);
    return 0;
}

/* Simulated time after which a stepping run restarts from its initial state (a long chain
   started from a random pose whips up and would leave what RK4 at 1 ms can follow). */
#define STEP_RESTART 0.1

/* Stepping context: a stepper and the case whose state 0 (at rest) it restarts from. */
typedef struct step_ctx {
    model_case *c;
    mbs_stepper *st;
    double dt;
} step_ctx;

/* Initial state of a stepping run: q of state 0, v = 0, tau = 0, t = 0. */
static void step_restart(model_case *c)
{
    load_state(c, 0);
    memset(mbs_data_v(c->d), 0, sizeof(double) * (size_t)c->s.nv);
    memset(mbs_data_tau(c->d), 0, sizeof(double) * (size_t)c->s.nv);
    mbs_data_set_time(c->d, 0.0);
}

/* One fixed step; restart once STEP_RESTART of simulated time has passed. */
static int call_step(void *ctx, int k)
{
    step_ctx *s = ctx;
    (void)k;
    if (mbs_data_time(s->c->d) >= STEP_RESTART - 0.5 * s->dt)
        step_restart(s->c);
    return mbs_stepper_step(s->st, s->dt);
}

/* Time RK4 steps at dt = 1 ms for one case and print steps/s and the real-time factor. */
static int rk4_row(model_case *c, const bench_opts *o)
{
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    step_restart(c);
    step_ctx s = {c, mbs_stepper_create(c->d, &def), 1e-3};
    if (!s.st) {
        fprintf(stderr, "RK4 stepper on %s: %s\n", c->label, mbs_data_error(c->d));
        return -1;
    }
    double ns = time_pass(&s, c, call_step, "RK4 step", o);
    mbs_stepper_destroy(s.st);
    if (ns < 0)
        return -1;
    double sps = 1e9 / ns;
    printf("%-10s %6d %5d | %12.0f %12.0f %10.1f\n", c->label, c->nbody, c->s.nv, ns, sps,
           sps * 1e-3);
    fflush(stdout);
    return 0;
}

/* Force callback that only counts right-hand-side evaluations. */
static int count_eval(mbs_data *d, void *user)
{
    (void)d;
    ++*(long *)user;
    return 0;
}

/* Integrate the counting 30-link chain over 1 s in 10 ms outputs with one stepper kind. */
static int ode_row(mbs_stepper_kind kind, const char *name)
{
    enum { N = 30 };
    bench_link links[N];
    long evals = 0;
    mbs_model *m = NULL;
    bench_chain_links(N, BENCH_CHAIN_SEED, links);
    if (bench_chain_mbs(N, links, count_eval, &evals, &m) != MBS_OK)
        return -1;
    bench_states s;
    mbs_data *d = mbs_data_create(m);
    int status = d ? bench_states_make(m, 1, 1001u, &s) : MBS_ERR_NOMEM;
    if (status != MBS_OK) {
        mbs_data_destroy(d);
        mbs_model_destroy(m);
        return -1;
    }
    memcpy(mbs_data_q(d), s.q, sizeof(double) * (size_t)s.nq);
    memcpy(mbs_data_v(d), s.v, sizeof(double) * (size_t)s.nv);
    mbs_stepper_def def = mbs_default_stepper_def(kind);
    mbs_stepper *st = mbs_stepper_create(d, &def);
    int nout = (kind == MBS_STEP_RK4) ? 1000 : 100;
    double t0 = bench_now();
    status = st ? MBS_OK : MBS_ERR_SOLVER;
    for (int i = 0; i < nout && status == MBS_OK; ++i)
        status = mbs_stepper_step(st, 1.0 / nout);
    double wall = bench_now() - t0;
    if (status != MBS_OK)
        fprintf(stderr, "%s on chain 30 failed: %s\n", name, mbs_data_error(d));
    else if (kind == MBS_STEP_RK4)
        printf("%-12s %8s %8s | %12ld %12.2f %10.1f\n", name, "-", "-", evals, 1e3 * wall,
               1.0 / wall);
    else
        printf("%-12s %8.0e %8.0e | %12ld %12.2f %10.1f\n", name, def.rtol, def.atol, evals,
               1e3 * wall, 1.0 / wall);
    mbs_stepper_destroy(st);
    bench_states_free(&s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return status == MBS_OK ? 0 : -1;
}

/* Print the three tables. */
static int run_all(model_case *cases, const bench_opts *o)
{
    int fail = 0;
    printf("Dynamics: median ns per call (state copied in each call), and per moving body\n");
    printf("%-10s %6s %5s | %11s %8s | %11s %8s | %11s %8s | %12s %8s\n", "model", "bodies",
           "nv", "ABA ns", "/body", "RNEA ns", "/body", "CRBA ns", "/body", "CRBA+chol ns",
           "/body");
    for (int i = 0; i < NMODEL; ++i)
        fail |= dynamics_row(&cases[i], o);
    printf("\nRK4, dt = 1 ms, from rest, restarted every %.1f s: ns per step, steps per second, "
           "real-time factor at 1 kHz\n", STEP_RESTART);
    printf("%-10s %6s %5s | %12s %12s %10s\n", "model", "bodies", "nv", "ns/step", "steps/s",
           "RTF@1kHz");
    for (int i = 0; i < NMODEL; ++i)
        fail |= rk4_row(&cases[i], o);
    printf("\nChain 30 over 1 s of simulated time (100 outputs of 10 ms; RK4: 1000 steps):\n");
    printf("%-12s %8s %8s | %12s %12s %10s\n", "stepper", "rtol", "atol", "RHS evals/s",
           "ms", "RTF");
    fail |= ode_row(MBS_STEP_RK4, "RK4 1 ms");
    fail |= ode_row(MBS_STEP_CVODE_ADAMS, "CVODE Adams");
    fail |= ode_row(MBS_STEP_CVODE_BDF, "CVODE BDF");
    return fail;
}

/* Entry point: build the five models, run the tables, report failures by exit status. */
int main(int argc, char **argv)
{
    bench_opts o;
    if (bench_parse_args(argc, argv, &o) != 0)
        return 2;
    printf("mbs bench_dynamics: %d batches of ~%.0f ms per figure (median), %d seeded "
           "states per model\n", o.reps, 1e3 * o.batch_s, NSTATE);
    bench_print_machine();
    printf("\n");
    model_case cases[NMODEL];
    int fail = 0, built = 0;
    for (; built < NMODEL && !fail; ++built)
        fail = case_create(built, &cases[built]) != MBS_OK;
    if (!fail)
        fail = run_all(cases, &o);
    for (int i = 0; i < built; ++i)
        case_destroy(&cases[i]);
    return fail ? 1 : 0;
}
