/* bench_codegen: forward dynamics of code written by mbs-codegen for one model (compiled
   here with cc -O2, loaded with dlopen) against the library's mbs_forward_dynamics on the
   same states, chains of 7 and 30 links and the humanoid; ns per call, the ratio, and the
   size of the generated function. Usage: bench_codegen [--quick] [--cpu-time] */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "codegen_build.h"
#include "loops/loops.h"
#include "loop_mechanisms.h"

typedef int (*fd_fn)(const double *, const double *, const double *, double *);

typedef struct gen_case {
    mbs_data *d;
    bench_states s;
    fd_fn fd;
    double qacc[64];
} gen_case;

static int call_lib(void *ctx, int k)
{
    gen_case *c = ctx;
    int i = k % c->s.nstate;
    memcpy(mbs_data_q(c->d), c->s.q + (size_t)i * (size_t)c->s.nq, sizeof(double) * (size_t)c->s.nq);
    memcpy(mbs_data_v(c->d), c->s.v + (size_t)i * (size_t)c->s.nv, sizeof(double) * (size_t)c->s.nv);
    memcpy(mbs_data_tau(c->d), c->s.a + (size_t)i * (size_t)c->s.nv, sizeof(double) * (size_t)c->s.nv);
    return mbs_forward_dynamics(c->d);
}

static int call_gen(void *ctx, int k)
{
    gen_case *c = ctx;
    int i = k % c->s.nstate;
    return c->fd(c->s.q + (size_t)i * (size_t)c->s.nq, c->s.v + (size_t)i * (size_t)c->s.nv,
                 c->s.a + (size_t)i * (size_t)c->s.nv, c->qacc);
}

/* Generate, compile (cc -O2) and load the forward dynamics of m; lines written, or -1. */
static int load_generated(const mbs_model *m, const char *dir, void **so, fd_fn *fd)
{
    char msg[2200];
    const int nline = cgb_build(m, NULL, dir, "-O2", 0, so, msg, (int)sizeof msg);
    if (nline < 0) return fprintf(stderr, "%s\n", msg), -1;
    *(void **)fd = cgb_fn(*so, "forward_dynamics");
    return *fd ? nline : -1;
}

/* One row of the table: model m named label. */
static int bench_row(const char *label, mbs_model *m, const bench_opts *opts, const char *dir)
{
    gen_case c;
    void *so = NULL;
    memset(&c, 0, sizeof c);
    c.d = mbs_data_create(m);
    if (!c.d || bench_states_make(m, 64, 7, &c.s) != 0) return 1;
    const int nline = load_generated(m, dir, &so, &c.fd);
    if (nline < 0) return 1;
    call_lib(&c, 3), call_gen(&c, 3); /* the same state: the results must agree */
    const double diff = bench_rel_diff(c.qacc, mbs_data_qacc(c.d), mbs_model_nv(m));
    const double lib = bench_time(call_lib, &c, opts), gen = bench_time(call_gen, &c, opts);
    printf("%-10s %4d | %10.0f %10.0f %7.2fx | %8d %10.1e\n", label, mbs_model_nv(m), lib, gen,
           lib / gen, nline, diff);
    dlclose(so);
    bench_states_free(&c.s);
    mbs_data_destroy(c.d);
    return diff < 1e-12 ? 0 : 1;
}

/* ---------------------------------------------------------------- closed loops */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_DUMP_STATS_AT
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) (void)(s)
#endif
#define CG_CALLS 1000
static int callgrind; /* --callgrind: count instructions instead of timing */

/* CG_CALLS calls of fn between a zeroing and a dump of callgrind's counters labelled cell
   (under valgrind --tool=callgrind; elsewhere the calls only). */
static void count_calls(bench_call fn, void *ctx, const char *cell)
{
    char label[128];
    snprintf(label, sizeof label, "%s / %d calls", cell, CG_CALLS);
    CALLGRIND_ZERO_STATS;
    for (int k = 0; k < CG_CALLS; ++k) fn(ctx, k);
    CALLGRIND_DUMP_STATS_AT(label);
}
typedef int (*close_fn)(double *, double *);
typedef int (*rk4_fn)(double *, double *, double *, const double *, double);

#define NS 64   /* closed states per model */
#define NMAX 64

/* One loop model: the library's data (and stepper) and the generated functions; NS closed
   states along a library run and their RK4 stage states (q moved by v h / 2, not closed). */
typedef struct loop_case {
    mbs_data *d;
    mbs_stepper *s;
    int nq, nv;
    double q[NS][NMAX], v[NS][NMAX], qs[NS][NMAX];
    double wq[NMAX], wv[NMAX], tau[NMAX], qacc[NMAX], t;
    fd_fn fd;
    close_fn close;
    rk4_fn rk4;
} loop_case;

/* State k (stage: its stage state) into the data. */
static void lib_state(loop_case *c, int k, int stage)
{
    const int i = k % NS;
    memcpy(mbs_data_q(c->d), stage ? c->qs[i] : c->q[i], sizeof(double) * (size_t)c->nq);
    memcpy(mbs_data_v(c->d), c->v[i], sizeof(double) * (size_t)c->nv);
}
static void gen_state(loop_case *c, int k, int stage)
{
    const int i = k % NS;
    memcpy(c->wq, stage ? c->qs[i] : c->q[i], sizeof(double) * (size_t)c->nq);
    memcpy(c->wv, c->v[i], sizeof(double) * (size_t)c->nv);
}
static int lib_fd(void *ctx, int k)
{
    loop_case *c = ctx;
    lib_state(c, k, 0);
    return mbs_forward_dynamics(c->d);
}
static int gen_fd(void *ctx, int k)
{
    loop_case *c = ctx;
    gen_state(c, k, 0);
    return c->fd(c->wq, c->wv, c->tau, c->qacc);
}
/* A stage's evaluation: close the stage state holding u (as the steppers do), dynamics. */
static int lib_close_fd(void *ctx, int k)
{
    loop_case *c = ctx;
    lib_state(c, k, 1);
    const int st = mbs_loops_close(c->d, MBS_CLOSE_RECOVER);
    return st != MBS_OK ? st : mbs_forward_dynamics(c->d);
}
static int gen_close_fd(void *ctx, int k)
{
    loop_case *c = ctx;
    gen_state(c, k, 1);
    const int st = c->close(c->wq, c->wv);
    return st != 0 ? st : c->fd(c->wq, c->wv, c->tau, c->qacc);
}
/* One RK4 step of 1 ms along each one's own run. */
static int lib_step(void *ctx, int k)
{
    (void)k;
    return mbs_stepper_step(((loop_case *)ctx)->s, 1e-3);
}
static int gen_step(void *ctx, int k)
{
    loop_case *c = ctx;
    (void)k;
    return c->rk4(&c->t, c->wq, c->wv, c->tau, 1e-3);
}

/* The library's data of m at its closed start (set(d) first when given), with the NS
   states of a run of 640 steps; 0 or -1. */
static int loop_states(loop_case *c, const mbs_model *m, void (*set)(mbs_data *))
{
    memset(c, 0, sizeof *c);
    c->d = mbs_data_create(m);
    c->nq = mbs_model_nq(m), c->nv = mbs_model_nv(m);
    if (!c->d || c->nq > NMAX || c->nv > NMAX) return -1;
    if (set) set(c->d);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    if (mbs_assemble(c->d) != MBS_OK || !(c->s = mbs_stepper_create(c->d, &def))) return -1;
    for (int i = 0; i < NS; ++i) {
        memcpy(c->q[i], mbs_data_q(c->d), sizeof(double) * (size_t)c->nq);
        memcpy(c->v[i], mbs_data_v(c->d), sizeof(double) * (size_t)c->nv);
        mbs_integrate_q(m, c->q[i], c->v[i], 5e-4, c->qs[i]);
        for (int n = 0; n < 10; ++n)
            if (mbs_stepper_step(c->s, 1e-3) != MBS_OK) return -1;
    }
    return 0;
}

static void loop_case_free(loop_case *c)
{
    mbs_stepper_destroy(c->s);
    mbs_data_destroy(c->d);
}

/* Three rows (dynamics, closure and dynamics, RK4 step) for the model built by make with
   the library's closed forms and with Newton, and its generated code. */
static int bench_loop_model(const char *label, mbs_model *(*make)(mbs_closure), void (*set)(mbs_data *),
                            const bench_opts *opts, const char *dir)
{
    mbs_model *ma = make(MBS_CLOSURE_ANALYTIC), *mn = make(MBS_CLOSURE_NEWTON);
    static loop_case ca, cn; /* large: not on the stack */
    void *so = NULL;
    char msg[2200];
    if (!ma || !mn || loop_states(&ca, ma, set) != 0 || loop_states(&cn, mn, set) != 0) return 1;
    const int nline = cgb_build(ma, ca.q[0], dir, "-O2", 0, &so, msg, (int)sizeof msg);
    if (nline < 0) return fprintf(stderr, "%s\n", msg), 1;
    *(void **)&ca.fd = cgb_fn(so, "forward_dynamics");
    *(void **)&ca.close = cgb_fn(so, "close");
    *(void **)&ca.rk4 = cgb_fn(so, "rk4_step");
    lib_fd(&ca, 5), gen_fd(&ca, 5); /* the same state: the results must agree */
    const double diff = bench_rel_diff(ca.qacc, mbs_data_qacc(ca.d), ca.nv);
    const char *what[3] = {"forward dynamics", "closure + dynamics", "RK4 step"};
    bench_call lib[3] = {lib_fd, lib_close_fd, lib_step}, gen[3] = {gen_fd, gen_close_fd, gen_step};
    gen_state(&ca, 0, 0);
    for (int r = 0; r < 3; ++r) {
        if (callgrind) { /* instruction counts: one dump per cell (see count_calls) */
            char cell[96];
            snprintf(cell, sizeof cell, "%s / %s / closed form", label, what[r]);
            count_calls(lib[r], &ca, cell);
            snprintf(cell, sizeof cell, "%s / %s / Newton", label, what[r]);
            count_calls(lib[r], &cn, cell);
            snprintf(cell, sizeof cell, "%s / %s / generated", label, what[r]);
            count_calls(gen[r], &ca, cell);
            continue;
        }
        const double ta = bench_time(lib[r], &ca, opts), tn = bench_time(lib[r], &cn, opts);
        const double tg = bench_time(gen[r], &ca, opts);
        printf("%-10s %-19s | %10.0f %10.0f %10.0f | %6.2fx %6.2fx | %6d %8.1e\n", label, what[r],
               ta, tn, tg, ta / tg, tn / tg, nline, diff);
    }
    dlclose(so);
    loop_case_free(&ca), loop_case_free(&cn);
    mbs_model_destroy(ma), mbs_model_destroy(mn);
    return diff < 1e-12 ? 0 : 1;
}

/* The planar four-bar of the tests (crank 0.2, coupler 0.7, rocker 0.5, ground 0.6). */
static mbs_model *make_fourbar(mbs_closure closure)
{
    lm_mech mech;
    lm_fourbar p = lm_default_fourbar();
    lm_set_closure(closure);
    return lm_build_fourbar(&p, &mech) == MBS_OK ? mech.model : NULL;
}
static void set_fourbar(mbs_data *d)
{
    lm_mech mech; /* the joint ids of the same build */
    lm_fourbar p = lm_default_fourbar();
    double th[3] = {0.7, 0.0, 0.0}, w[3] = {3.0, 0.0, 0.0}, al[3];
    if (lm_build_fourbar(&p, &mech) != MBS_OK) return;
    lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]);
    lm_fourbar_rates(&p, th, w[0], 0.0, w, al);
    lm_fourbar_set(&p, &mech, d, th, w);
    lm_mech_free(&mech);
}
/* models/engine_v6.xml: six slider-cranks on one crankshaft, coasting from 10 rad/s. */
static mbs_model *make_engine(mbs_closure closure)
{
    mbs_builder *b = mbs_builder_create();
    mbs_model *m = NULL;
    if (lm_load_model(b, "engine_v6") != MBS_OK || mbs_builder_set_closure(b, closure) != MBS_OK ||
        mbs_compile(b, &m) != MBS_OK)
        fprintf(stderr, "engine_v6: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* The loop table: four-bar and V6 engine. */
static int bench_loops(const bench_opts *opts, const char *dir)
{
    printf("\nclosed loops, ns per call (median): the library with its closed forms (compile's "
           "default) and with Newton, the generated code (Newton, %s)\n", "3 iterations per closure");
    printf("%-10s %-19s | %10s %10s %10s | %7s %7s | %6s %8s\n", "model", "call", "closed form",
           "Newton", "generated", "vs cf", "vs N", "lines", "rel diff");
    int status = bench_loop_model("four-bar", make_fourbar, set_fourbar, opts, dir);
    return status | bench_loop_model("engine V6", make_engine, NULL, opts, dir);
}

int main(int argc, char **argv)
{
    bench_opts opts;
    /* --loops: the loop table alone; --callgrind: its instruction counts (see README) */
    int loops_only = 0, n = 0;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--loops")) loops_only = 1;
        else if (!strcmp(argv[i], "--callgrind")) loops_only = callgrind = 1;
        else argv[n++] = argv[i];
    }
    if (bench_parse_args(n, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_codegen [--quick] [--cpu-time] [--loops | --callgrind]\n");
        return 2;
    }
    char dir[] = "/tmp/mbs_bench_codegen_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    bench_print_machine();
    printf("forward dynamics, ns per call (median); generated code compiled with cc -O2\n");
    printf("%-10s %4s | %10s %10s %8s | %8s %10s\n", "model", "nv", "library", "generated",
           "speed-up", "lines", "rel diff");
    int status = 0;
    const int sizes[2] = {7, 30};
    for (int i = 0; i < 2 && !loops_only; ++i) {
        bench_link links[30];
        mbs_model *m = NULL;
        char label[16];
        bench_chain_links(sizes[i], BENCH_CHAIN_SEED, links);
        if (bench_chain_mbs(sizes[i], links, NULL, NULL, &m) != MBS_OK) return 1;
        snprintf(label, sizeof label, "chain %d", sizes[i]);
        status |= bench_row(label, m, &opts, dir);
        mbs_model_destroy(m);
    }
    mbs_model *h = NULL;
    if (!loops_only && bench_humanoid_mbs(&h) != MBS_OK) return 1;
    if (!loops_only) status |= bench_row("humanoid", h, &opts, dir);
    mbs_model_destroy(h);
    status |= bench_loops(&opts, dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) status = 1;
    return status;
}
