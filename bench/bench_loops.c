/* bench_loops: closed-loop mechanisms -- constrained forward dynamics at a closed state, an
   evaluation including the closure (Newton on the dependent coordinates after a 0.5 ms move
   of the state, then forward dynamics), and RK4 steps -- for the planar four-bar, an inline
   six-cylinder engine (six coupled loops, one degree of freedom) and the IFToMM A02
   N-four-bar (81 bodies, 40 loops). Prints ns per call, steps per second and the real-time
   factor of RK4 at 1 kHz. Targets: four-bar evaluation under 2 us, A02 faster than real
   time at 1 kHz. Usage: bench_loops [--quick] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "loop_mechanisms.h"

#define NSTATE 64

/* One mechanism under test: model, data, consistent states along a trajectory, stepper. */
typedef struct loop_case {
    const char *label;
    lm_mech mech;
    mbs_data *d;
    mbs_stepper *s;
    int nq, nv;
    double *q, *v; /* NSTATE consistent states */
} loop_case;

/* Load consistent state k into the data. */
static void load(loop_case *c, int k)
{
    int i = k % NSTATE;
    memcpy(mbs_data_q(c->d), c->q + (size_t)i * (size_t)c->nq, sizeof(double) * (size_t)c->nq);
    memcpy(mbs_data_v(c->d), c->v + (size_t)i * (size_t)c->nv, sizeof(double) * (size_t)c->nv);
}

/* Forward dynamics at a consistent state: closure check, partition, constrained solve. */
static int call_fd(void *ctx, int k)
{
    loop_case *c = ctx;
    load(c, k);
    return mbs_forward_dynamics(c->d);
}

/* An evaluation with closure as in a Runge-Kutta stage: the consistent state k moved 0.5 ms
   along v (off the constraint manifold), closed again by mbs_assemble (Newton on the
   dependent coordinates, velocity projection), then the constrained forward dynamics. */
static int call_closure_fd(void *ctx, int k)
{
    loop_case *c = ctx;
    int i = k % NSTATE;
    memcpy(mbs_data_v(c->d), c->v + (size_t)i * (size_t)c->nv, sizeof(double) * (size_t)c->nv);
    int rc = mbs_integrate_q(c->mech.model, c->q + (size_t)i * (size_t)c->nq, mbs_data_v(c->d),
                             5e-4, mbs_data_q(c->d));
    if (rc == MBS_OK) rc = mbs_assemble(c->d);
    return rc == MBS_OK ? mbs_forward_dynamics(c->d) : rc;
}

/* One RK4 step of 1 ms. */
static int call_step(void *ctx, int k)
{
    (void)k;
    loop_case *c = ctx;
    return mbs_stepper_step(c->s, 1e-3);
}

/* Record NSTATE states 10 ms apart from the data's (assembled) state with RK4; 0 or error. */
static int record_states(loop_case *c)
{
    c->nq = mbs_model_nq(c->mech.model);
    c->nv = mbs_model_nv(c->mech.model);
    c->q = malloc(sizeof(double) * (size_t)(NSTATE * c->nq));
    c->v = malloc(sizeof(double) * (size_t)(NSTATE * c->nv));
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    c->s = mbs_stepper_create(c->d, &sd);
    if (!c->q || !c->v || !c->s) return 1;
    for (int k = 0; k < NSTATE; ++k) {
        memcpy(c->q + (size_t)k * (size_t)c->nq, mbs_data_q(c->d), sizeof(double) * (size_t)c->nq);
        memcpy(c->v + (size_t)k * (size_t)c->nv, mbs_data_v(c->d), sizeof(double) * (size_t)c->nv);
        for (int n = 0; n < 10; ++n)
            if (mbs_stepper_step(c->s, 1e-3) != MBS_OK) return 1;
    }
    return 0;
}

/* Build case i (0 four-bar, 1 six-cylinder engine, 2 A02) at a consistent state; 0 or error. */
static int setup(loop_case *c, int i)
{
    memset(c, 0, sizeof *c);
    lm_fourbar fb = lm_default_fourbar();
    int rc = i == 0 ? lm_build_fourbar(&fb, &c->mech) : i == 1 ? lm_build_engine6(&c->mech)
                                                               : lm_build_a02(40, &c->mech);
    c->label = i == 0 ? "four-bar" : i == 1 ? "engine, 6 cylinders" : "IFToMM A02 (N = 40)";
    if (rc == MBS_OK && !(c->d = mbs_data_create(c->mech.model))) rc = MBS_ERR_NOMEM;
    if (rc != MBS_OK) {
        fprintf(stderr, "%s: %s %s\n", c->label, mbs_status_name(rc), c->mech.error);
        return 1;
    }
    if (i == 0) {
        double th[3] = {0.3, 0, 0}, w[3], al[3];
        lm_fourbar_position(&fb, th[0], 1, &th[1], &th[2]);
        lm_fourbar_rates(&fb, th, 6.0, 0.0, w, al);
        lm_fourbar_set(&fb, &c->mech, c->d, th, w);
    } else if (i == 1) {
        lm_engine_set(&c->mech, 6, 0.2, 20.0, c->d);
    } else {
        lm_a02_initial(40, &c->mech, c->d);
    }
    rc = mbs_assemble(c->d);
    if (rc != MBS_OK || record_states(c) != 0) {
        fprintf(stderr, "%s: %s\n", c->label, mbs_data_error(c->d));
        return 1;
    }
    return 0;
}

static void teardown(loop_case *c)
{
    mbs_stepper_destroy(c->s);
    mbs_data_destroy(c->d);
    lm_mech_free(&c->mech);
    free(c->q);
    free(c->v);
}

/* Time one case and print its row; 0 or error. */
static int run_case(int i, const bench_opts *opts)
{
    loop_case c;
    if (setup(&c, i) != 0) return 1;
    int rank = -1;
    load(&c, 0);
    mbs_forward_dynamics(c.d);
    mbs_constraint_info(c.d, &rank, NULL);
    double fd = bench_time(call_fd, &c, opts), as = bench_time(call_closure_fd, &c, opts);
    load(&c, 0);
    double st = bench_time(call_step, &c, opts);
    printf("%-22s %4d %4d %4d %5d %12.0f %13.0f %12.0f %12.0f %10.1f\n", c.label,
           mbs_model_nbody(c.mech.model) - 1, c.nv, mbs_model_ncon(c.mech.model), rank, fd, as,
           st, 1e9 / st, 1e-3 / (st * 1e-9));
    int bad = fd < 0 || as < 0 || st < 0;
    if (i == 0 && st >= 0) /* one RK4 stage = closure of the stage state + forward dynamics */
        printf("  four-bar evaluation incl. closure: %.2f us per RK4 stage, %.2f us through "
               "mbs_assemble (target < 2 us): %s\n", 0.25 * st * 1e-3, as * 1e-3,
               0.25 * st < 2000.0 ? "met" : "NOT met");
    if (i == 2 && st >= 0) printf("  A02 RK4 at 1 kHz: %.2f x real time (target > 1): %s\n",
                                 1e6 / st, st < 1e6 ? "met" : "NOT met");
    teardown(&c);
    return bad;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_loops [--quick]\n");
        return 2;
    }
    bench_print_machine();
    printf("%-22s %4s %4s %4s %5s %12s %13s %12s %12s %10s\n", "mechanism", "body", "nv",
           "ncon", "rank", "fwd dyn ns", "closure+fd ns", "RK4 step ns", "steps/s", "RT @1kHz");
    int bad = 0;
    for (int i = 0; i < 3; ++i) bad |= run_case(i, &opts);
    return bad ? 1 : 0;
}
