/* bench_derivatives: the analytical derivatives of the dynamics next to one forward-dynamics
   call (chains of 7 and 30 links, the humanoid, a chain of 100 links: the products with M^-1
   are O(nv^2), the forward dynamics O(nv)), and the linearisation of the humanoid and
   of the six-cylinder engine (closed loops: central differences of the reduced dynamics).
   Usage: bench_derivatives [--quick] [--cpu-time] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "loop_mechanisms.h"

#define NSTATE 32
#define NTREE 4

/* One tree under test: data, random states and output matrices. */
typedef struct deriv_case {
    char label[32];
    mbs_model *m;
    mbs_data *d;
    bench_states s;
    double *X, *Y, *Z, *A, *B; /* nv x nv (three), 2nv x 2nv, 2nv x nv */
} deriv_case;

/* Copy state k (q, v, and a as tau) into the data; returns the state index. */
static int load_state(deriv_case *c, int k)
{
    return bench_states_load(&c->s, k, c->d);
}

/* One forward-dynamics call (the reference). */
static int call_fd(void *ctx, int k)
{
    deriv_case *c = ctx;
    load_state(c, k);
    return mbs_forward_dynamics(c->d);
}

/* dtau/dq, dtau/dv, M of the inverse dynamics at the state's random acceleration. */
static int call_rnea_derivs(void *ctx, int k)
{
    deriv_case *c = ctx;
    const int i = load_state(c, k);
    return mbs_inverse_dynamics_derivatives(c->d, c->s.a + (size_t)i * (size_t)c->s.nv, c->X,
                                            c->Y, c->Z);
}

/* dqacc/dq, dqacc/dv, M^-1 of the forward dynamics. */
static int call_aba_derivs(void *ctx, int k)
{
    deriv_case *c = ctx;
    load_state(c, k);
    return mbs_forward_dynamics_derivatives(c->d, c->X, c->Y, c->Z);
}

/* dqacc/dq and dqacc/dv only (no M^-1). */
static int call_aba_derivs_qv(void *ctx, int k)
{
    deriv_case *c = ctx;
    load_state(c, k);
    return mbs_forward_dynamics_derivatives(c->d, c->X, c->Y, NULL);
}

/* A and B of the state-space model. */
static int call_linearize(void *ctx, int k)
{
    deriv_case *c = ctx;
    int nx;
    load_state(c, k);
    return mbs_linearize(c->d, c->A, c->B, &nx);
}

/* Build tree case i: chains of 7 and 30 links, the humanoid, a chain of 100 links. */
static int case_create(int i, deriv_case *c)
{
    memset(c, 0, sizeof *c);
    int st;
    if (i != 2) {
        const int n = i == 0 ? 7 : i == 1 ? 30 : 100;
        bench_link links[100];
        bench_chain_links(n, BENCH_CHAIN_SEED, links);
        st = bench_chain_mbs(n, links, NULL, NULL, &c->m);
        snprintf(c->label, sizeof c->label, "chain %d", n);
    } else {
        st = bench_humanoid_mbs(&c->m);
        snprintf(c->label, sizeof c->label, "humanoid");
    }
    if (st == MBS_OK) st = bench_states_make(c->m, NSTATE, 2000u + (uint64_t)i, &c->s);
    if (st != MBS_OK) return st;
    const size_t nv = (size_t)c->s.nv;
    c->d = mbs_data_create(c->m);
    c->X = malloc(sizeof(double) * nv * nv);
    c->Y = malloc(sizeof(double) * nv * nv);
    c->Z = malloc(sizeof(double) * nv * nv);
    c->A = malloc(sizeof(double) * 4 * nv * nv);
    c->B = malloc(sizeof(double) * 2 * nv * nv);
    return c->d && c->X && c->Y && c->Z && c->A && c->B ? MBS_OK : MBS_ERR_NOMEM;
}

static void case_destroy(deriv_case *c)
{
    bench_states_free(&c->s);
    free(c->X), free(c->Y), free(c->Z), free(c->A), free(c->B);
    mbs_data_destroy(c->d);
    mbs_model_destroy(c->m);
}

/* Median ns of fn on c, or -1 with the library's message. */
static double timed(deriv_case *c, bench_call fn, const char *what, const bench_opts *o)
{
    const double ns = bench_time(fn, c, o);
    if (ns < 0) fprintf(stderr, "%s on %s failed: %s\n", what, c->label, mbs_data_error(c->d));
    return ns;
}

/* One row of the derivatives table. */
static int derivs_row(deriv_case *c, const bench_opts *o)
{
    const double fd = timed(c, call_fd, "forward dynamics", o);
    const double rd = timed(c, call_rnea_derivs, "RNEA derivatives", o);
    const double ad = timed(c, call_aba_derivs, "ABA derivatives", o);
    const double aq = timed(c, call_aba_derivs_qv, "ABA derivatives (q, v)", o);
    const double li = timed(c, call_linearize, "linearize", o);
    if (fd < 0 || rd < 0 || ad < 0 || aq < 0 || li < 0) return -1;
    printf("%-9s %4d | %8.0f | %9.0f %5.1f | %9.0f %5.1f | %9.0f %5.1f | %9.0f %5.1f\n",
           c->label, c->s.nv, fd, rd, rd / fd, ad, ad / fd, aq, aq / fd, li, li / fd);
    fflush(stdout);
    return 0;
}

/* Linearisation of the six-cylinder engine at a running state (crank 0.2 rad, 20 rad/s),
   with forward dynamics for scale. */
static int engine_row(const bench_opts *o)
{
    lm_mech mech;
    if (lm_build_engine6(&mech) != MBS_OK) {
        fprintf(stderr, "engine: %s\n", mech.error);
        return -1;
    }
    deriv_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.label, sizeof c.label, "engine");
    c.m = mech.model;
    c.d = mbs_data_create(c.m);
    const int nv = mbs_model_nv(c.m);
    c.A = malloc(sizeof(double) * 4 * (size_t)nv * (size_t)nv);
    c.B = malloc(sizeof(double) * 2 * (size_t)nv * (size_t)nv);
    int st = c.d && c.A && c.B ? MBS_OK : MBS_ERR_NOMEM;
    if (st == MBS_OK) {
        lm_engine_set(&mech, 6, 0.2, 20.0, c.d);
        st = mbs_assemble(c.d);
    }
    /* states: the assembled one, copied in each call */
    if (st == MBS_OK) st = bench_states_make(c.m, 1, 1u, &c.s);
    if (st == MBS_OK) {
        memcpy(c.s.q, mbs_data_q(c.d), sizeof(double) * (size_t)c.s.nq);
        memcpy(c.s.v, mbs_data_v(c.d), sizeof(double) * (size_t)c.s.nv);
        memset(c.s.a, 0, sizeof(double) * (size_t)c.s.nv);
    }
    double fd = -1, li = -1;
    if (st == MBS_OK) fd = timed(&c, call_fd, "forward dynamics", o);
    if (st == MBS_OK) li = timed(&c, call_linearize, "linearize", o);
    if (fd > 0 && li > 0)
        printf("%-9s %4d | %8.0f | %9s %5s | %9s %5s | %9s %5s | %9.0f %5.1f\n", "engine 6", nv,
               fd, "-", "", "-", "", "-", "", li, li / fd);
    if (st == MBS_OK) bench_states_free(&c.s);
    free(c.A), free(c.B);
    mbs_data_destroy(c.d);
    lm_mech_free(&mech);
    return fd > 0 && li > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    bench_opts o;
    if (bench_parse_args(argc, argv, &o) != 0) return 2;
    printf("mbs bench_derivatives: %d batches of ~%.0f ms per figure (median), %d seeded states "
           "per model\n", o.reps, 1e3 * o.batch_s, NSTATE);
    bench_print_machine();
    printf("\nns per call (x: ratio to one forward-dynamics call of the same model)\n"
           "FD: mbs_forward_dynamics; RNEA d: mbs_inverse_dynamics_derivatives (dtau/dq, "
           "dtau/dv, M);\nABA d: mbs_forward_dynamics_derivatives (dqacc/dq, dqacc/dv, M^-1); "
           "ABA d (q,v): without M^-1;\nlinearize: mbs_linearize (A and B; the engine's by "
           "central differences with closure)\n\n");
    printf("%-9s %4s | %8s | %9s %5s | %9s %5s | %9s %5s | %9s %5s\n", "model", "nv", "FD ns",
           "RNEA d", "x", "ABA d", "x", "ABA d(q,v)", "x", "linearize", "x");
    deriv_case cases[NTREE];
    int fail = 0, built = 0;
    for (; built < NTREE && !fail; ++built) fail = case_create(built, &cases[built]) != MBS_OK;
    for (int i = 0; i < built && !fail; ++i) fail |= derivs_row(&cases[i], &o);
    if (!fail) fail |= engine_row(&o);
    for (int i = 0; i < built; ++i) case_destroy(&cases[i]);
    return fail ? 1 : 0;
}
