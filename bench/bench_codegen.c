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
#include "cg.h"

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

/* Generate, compile and load the forward dynamics of m; lines written, or -1. */
static int load_generated(const mbs_model *m, const char *dir, void **so, fd_fn *fd)
{
    char path[512], cmd[1400], why[256];
    snprintf(path, sizeof path, "%s/gen.c", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    cg_options opt = {.prefix = "gen", .source = "bench_codegen"};
    const int nline = cg_write(f, m, &opt, why, (int)sizeof why);
    fclose(f);
    if (nline < 0) return fprintf(stderr, "cg_write: %s\n", why), -1;
    snprintf(cmd, sizeof cmd, "cc -std=c99 -O2 -fPIC -shared %s/gen.c -o %s/gen.so -lm", dir, dir);
    if (system(cmd) != 0) return -1;
    snprintf(path, sizeof path, "%s/gen.so", dir);
    *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*so) return -1;
    *(void **)fd = dlsym(*so, "gen_forward_dynamics");
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

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_codegen [--quick] [--cpu-time]\n");
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
    for (int i = 0; i < 2; ++i) {
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
    if (bench_humanoid_mbs(&h) != MBS_OK) return 1;
    status |= bench_row("humanoid", h, &opts, dir);
    mbs_model_destroy(h);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) status = 1;
    return status;
}
