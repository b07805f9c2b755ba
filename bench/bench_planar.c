/* bench_planar: forward dynamics of planar chains (revolute joints about parallel axes, the
   chain of bench_common with every axis along z) through the planar path and through the 3-D
   path (MBS_PLANAR_OFF), same states; ns per call, per body, and the ratio.
   Usage: bench_planar [--quick] [--cpu-time] */
#include <stdio.h>
#include <string.h>

#include "bench_common.h"

typedef struct pl_case {
    mbs_data *d;
    bench_states s;
} pl_case;

static int call_fd(void *ctx, int k)
{
    pl_case *c = ctx;
    int i = k % c->s.nstate;
    memcpy(mbs_data_q(c->d), c->s.q + (size_t)i * (size_t)c->s.nq, sizeof(double) * (size_t)c->s.nq);
    memcpy(mbs_data_v(c->d), c->s.v + (size_t)i * (size_t)c->s.nv, sizeof(double) * (size_t)c->s.nv);
    memcpy(mbs_data_tau(c->d), c->s.a + (size_t)i * (size_t)c->s.nv, sizeof(double) * (size_t)c->s.nv);
    return mbs_forward_dynamics(c->d);
}

/* The planar chain of n links (bench_common), or NULL. */
static mbs_model *planar_chain(int n, mbs_planar_mode mode)
{
    mbs_model *m = NULL;
    return bench_planar_chain_mbs(n, mode, &m) == MBS_OK ? m : NULL;
}

static double time_model(mbs_model *m, const bench_opts *opts, double *qacc)
{
    pl_case c;
    c.d = mbs_data_create(m);
    if (!c.d || bench_states_make(m, 64, 11, &c.s) != 0) return -1.0;
    const double ns = bench_time(call_fd, &c, opts);
    call_fd(&c, 5);
    memcpy(qacc, mbs_data_qacc(c.d), sizeof(double) * (size_t)mbs_model_nv(m));
    bench_states_free(&c.s);
    mbs_data_destroy(c.d);
    return ns;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_planar [--quick] [--cpu-time]\n");
        return 2;
    }
    static double qp[1000], q3[1000];
    bench_print_machine();
    printf("planar chains, forward dynamics: ns per call (ns per body)\n");
    printf("%-10s | %16s %16s | %8s %10s\n", "model", "3-D path", "planar path", "speed-up", "rel diff");
    const int sizes[4] = {7, 30, 100, 1000};
    int status = 0;
    for (int i = 0; i < 4; ++i) {
        mbs_model *mp = planar_chain(sizes[i], MBS_PLANAR_AUTO), *m3 = planar_chain(sizes[i], MBS_PLANAR_OFF);
        if (!mp || !m3 || mbs_model_is_planar(mp) != 1) return 1;
        const double t3 = time_model(m3, &opts, q3), tp = time_model(mp, &opts, qp);
        const double diff = bench_rel_diff(qp, q3, sizes[i]);
        char label[16];
        snprintf(label, sizeof label, "chain %d", sizes[i]);
        printf("%-10s | %8.0f (%5.1f) %8.0f (%5.1f) | %7.2fx %10.1e\n", label, t3, t3 / sizes[i], tp,
               tp / sizes[i], t3 / tp, diff);
        status |= diff > 1e-12;
        mbs_model_destroy(mp), mbs_model_destroy(m3);
    }
    return status;
}
