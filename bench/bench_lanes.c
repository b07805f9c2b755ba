/* Instances in the SIMD lanes: forward dynamics of 64 instances of the 30-link chain and of
 * the humanoid, as 64 one-instance calls and as one mbs_lanes_forward_dynamics, on every SIMD
 * variant the build holds and the processor runs. Prints ns per instance and the ratio (the
 * throughput gain of the lanes). Usage: bench_lanes [--quick] [--cpu-time]. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"
#include "core/simd.h"

#define NINST 64

typedef struct lanes_ctx {
    mbs_lanes *l;
} lanes_ctx;

static int call_single(void *ctx, int k)
{
    (void)k;
    lanes_ctx *c = ctx;
    for (int i = 0; i < NINST; ++i) {
        const int st = mbs_forward_dynamics(mbs_lanes_data(c->l, i));
        if (st != MBS_OK) return st;
    }
    return 0;
}

static int call_lanes(void *ctx, int k)
{
    (void)k;
    return mbs_lanes_forward_dynamics(((lanes_ctx *)ctx)->l);
}

/* The benchmarks' seeded states (tau = the state's a) into every instance. */
static int fill(mbs_lanes *l, const mbs_model *m)
{
    bench_states s;
    if (bench_states_make(m, NINST, 4242u, &s) != MBS_OK) return -1;
    for (int k = 0; k < NINST; ++k) bench_states_load(&s, k, mbs_lanes_data(l, k));
    bench_states_free(&s);
    return 0;
}

static void run_model(const char *name, mbs_model *m, const bench_opts *opts)
{
    mbs_lanes *l = mbs_lanes_create(m, NINST);
    if (!l || fill(l, m) != 0) {
        fprintf(stderr, "bench_lanes: %s: cannot create the instances\n", name);
        exit(1);
    }
    lanes_ctx c = {l};
    const mbs_simd_kind start = mbs_simd_current();
    for (int v = 0; v < MBS_SIMD_NKIND; ++v) {
        if (mbs_simd_use((mbs_simd_kind)v) != 0) continue;
        const double one = bench_time(call_single, &c, opts) / NINST;
        const double lanes = bench_time(call_lanes, &c, opts) / NINST;
        printf("%-9s | %-7s | %2d | %9.0f | %9.0f | %5.2fx\n", name, mbs_simd_variant(),
               mbs_lanes_width(), one, lanes, one / lanes);
    }
    mbs_simd_use(start);
    mbs_lanes_destroy(l);
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) return 2;
    bench_print_machine();
    printf("model     | variant |  W | single ns | lanes ns  | gain (ns per instance, %d instances)\n",
           NINST);
    bench_link links[30];
    bench_chain_links(30, BENCH_CHAIN_SEED, links);
    mbs_model *m = NULL;
    if (bench_chain_mbs(30, links, NULL, NULL, &m) != MBS_OK) return 1;
    run_model("chain 30", m, &opts);
    mbs_model_destroy(m);
    if (bench_humanoid_mbs(&m) != MBS_OK) return 1;
    run_model("humanoid", m, &opts);
    mbs_model_destroy(m);
    return 0;
}
