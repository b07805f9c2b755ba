/* bench_soak: long runs (a benchmark, not a test): the V6 engine (six slider-cranks on one
   crankshaft) and the IFToMM A02 mechanism (40 coupled four-bars through singular
   positions) stepped with RK4 at 1 kHz for N steps each, printing every REPORT steps the
   energy drift relative to the initial energy and the largest loop-closure residual measured
   from the body poses since the last report, and at the end the largest |dE / E| sampled
   every 100 steps over the whole run (the figure the README quotes). Run it in the background for 1e8 steps:
       ./build/bench/bench_soak 100000000 1000000 > soak.txt &
   Usage: bench_soak [N [REPORT]]   (default 100000 steps, a report every 10000) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"
#include "loop_mechanisms.h"

static int soak(const char *label, lm_mech *mech, long n, long report)
{
    mbs_data *d = mbs_data_create(mech->model);
    if (!d) return 1;
    if (label[0] == 'V')
        lm_engine_set(mech, 6, 0.2, 20.0, d);
    else
        lm_a02_initial(40, mech, d);
    if (mbs_assemble(d) != MBS_OK) return fprintf(stderr, "%s: %s\n", label, mbs_data_error(d)), 1;
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    double T, V;
    mbs_energy(d, &T, &V);
    const double e0 = T + V, scale = fabs(T) + fabs(V) > 0.0 ? fabs(T) + fabs(V) : 1.0;
    double worst = 0.0, drift = 0.0;
    const double w0 = bench_now();
    printf("%s: %ld RK4 steps at 1 kHz, energy %.6g J\n%12s %14s %14s %10s\n", label, n, e0,
           "step", "t [s]", "dE / E", "residual");
    for (long k = 1; k <= n; ++k) {
        const int st = mbs_stepper_step(s, 1e-3);
        if (st != MBS_OK) return fprintf(stderr, "%s: step %ld: %s\n", label, k, mbs_data_error(d)), 1;
        if (k % 100 == 0) {
            worst = fmax(worst, lm_residual(mech, d));
            mbs_energy(d, &T, &V);
            drift = fmax(drift, fabs(T + V - e0) / scale);
        }
        if (k % report == 0 || k == n) {
            mbs_energy(d, &T, &V);
            printf("%12ld %14.3f %14.3e %10.2e\n", k, mbs_data_time(d), (T + V - e0) / scale, worst);
            fflush(stdout);
            worst = 0.0;
        }
    }
    const double wall = bench_now() - w0;
    printf("%s: max |dE / E| %.2e over the run (sampled every 100 steps)\n", label, drift);
    printf("%s: %.1f s of wall time, %.1fx real time\n\n", label, wall, 1e-3 * (double)n / wall);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    return 0;
}

int main(int argc, char **argv)
{
    const long n = argc > 1 ? atol(argv[1]) : 100000, report = argc > 2 ? atol(argv[2]) : n / 10;
    if (n < 1 || report < 1) return fprintf(stderr, "usage: bench_soak [N [REPORT]]\n"), 2;
    lm_mech engine, a02;
    if (lm_build_engine6(&engine) != MBS_OK || lm_build_a02(40, &a02) != MBS_OK) return 1;
    int st = soak("V6 engine", &engine, n, report);
    st |= soak("IFToMM A02", &a02, n, report);
    lm_mech_free(&engine);
    lm_mech_free(&a02);
    return st;
}
