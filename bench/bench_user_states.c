/* bench_user_states: the cost of user state equations in RK4 steps of 1 ms on the 7-link
   benchmark chain (ns per step, and the ratio to the chain without them):
     chain of 7 revolute links        baseline (swinging under gravity)
       + 2 user states                 one element: two DC motor currents on joints 0, 1
                                       (L di/dt = u - R i - k_e w, torque k_t i)
       + 22 user states                one element: 22 motor currents, on joints k mod 7
       + 22 user states, 22 elements   the same currents, one element each
   The state is reset every 1000 steps (the reset is part of the figure).
   Usage: bench_user_states [--quick] [--cpu-time] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

#define NLINK 7

/* n motor currents x (user states) on joints k mod 7 (first index `first`: which motor). */
typedef struct motors {
    int first;
} motors;

/* L di/dt = u - R i - k_e w with u = 1 V, R = 1 ohm, L = 0.01 H, k = 0.05; torque k i. */
static int motor_fn(mbs_data *d, const double *x, double *xdot, void *user, int n)
{
    const motors *mo = user;
    const double *v = mbs_data_v(d);
    for (int k = 0; k < n; ++k) {
        const int j = (mo->first + k) % NLINK;
        xdot[k] = (1.0 - x[k] - 0.05 * v[j]) / 0.01;
        const int st = mbs_apply_generalized_force(d, j, 0.05 * x[k]);
        if (st != MBS_OK) return st;
    }
    return 0;
}
static int motors2(mbs_data *d, const double *x, double *xdot, void *user)
{
    return motor_fn(d, x, xdot, user, 2);
}
static int motors22(mbs_data *d, const double *x, double *xdot, void *user)
{
    return motor_fn(d, x, xdot, user, 22);
}
static int motor1(mbs_data *d, const double *x, double *xdot, void *user)
{
    return motor_fn(d, x, xdot, user, 1);
}

static motors one_each[22];

/* The benchmark chain of 7 links (bench_chain_links) with nstate user states in nelem
   elements (1, or one per state). */
static mbs_model *chain(int nstate, int nelem)
{
    static const motors from0 = {0};
    bench_link links[NLINK];
    bench_chain_links(NLINK, BENCH_CHAIN_SEED, links);
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_planar(b, MBS_PLANAR_OFF);
    int st = MBS_OK;
    for (int i = 0; i < NLINK && st >= 0; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = links[i].mass;
        memcpy(bd.com, links[i].com, sizeof bd.com);
        memset(bd.inertia, 0, sizeof bd.inertia);
        bd.inertia[0] = links[i].inertia[0], bd.inertia[4] = links[i].inertia[1];
        bd.inertia[8] = links[i].inertia[2];
        mbs_add_body(b, &bd);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = i, j.child = i + 1;
        j.frame_parent.pos[0] = i > 0 ? links[i - 1].length : 0.0;
        j.axis[1] = links[i].axis == 1, j.axis[2] = links[i].axis == 2;
        st = mbs_add_joint(b, &j);
    }
    if (st >= 0 && nstate > 0 && nelem == 1)
        st = mbs_add_user_states(b, "motors", nstate, nstate == 2 ? motors2 : motors22,
                                 (void *)&from0);
    for (int k = 0; st >= 0 && nelem > 1 && k < nstate; ++k) {
        one_each[k].first = k;
        st = mbs_add_user_states(b, NULL, 1, motor1, &one_each[k]);
    }
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "chain: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

typedef struct us_case {
    mbs_model *m;
    mbs_data *d;
    mbs_stepper *s;
    int nq, nv, nx;
} us_case;

/* One RK4 step of 1 ms; the start state (q 0.3, v 0, x 0) every 1000 steps. */
static int call_step(void *ctx, int k)
{
    us_case *c = ctx;
    if (k % 1000 == 0) {
        for (int i = 0; i < c->nq; ++i) mbs_data_q(c->d)[i] = 0.3;
        memset(mbs_data_v(c->d), 0, (size_t)c->nv * sizeof(double));
        memset(mbs_data_user_states(c->d), 0, (size_t)c->nx * sizeof(double));
    }
    return mbs_stepper_step(c->s, 1e-3);
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_user_states [--quick] [--cpu-time]\n");
        return 2;
    }
    bench_print_machine();
    printf("%-48s %10s %8s\n", "RK4 step of 1 ms, 7-link chain", "ns/step", "ratio");
    const struct { const char *label; int nstate, nelem; } cases[] = {
        {"chain of 7 links, swinging", 0, 0},
        {"+ 2 user states (one element)", 2, 1},
        {"+ 22 user states (one element)", 22, 1},
        {"+ 22 user states (22 elements of 1)", 22, 22},
    };
    double base = 0.0;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        us_case c = {0};
        c.m = chain(cases[i].nstate, cases[i].nelem);
        c.d = c.m ? mbs_data_create(c.m) : NULL;
        mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
        c.s = c.d ? mbs_stepper_create(c.d, &sd) : NULL;
        if (!c.s) {
            fprintf(stderr, "%s: setup failed\n", cases[i].label);
            bad = 1;
        } else {
            c.nq = mbs_model_nq(c.m), c.nv = mbs_model_nv(c.m);
            c.nx = mbs_model_nuser_states(c.m);
            const double ns = bench_time(call_step, &c, &opts);
            if (ns < 0) fprintf(stderr, "%s: %s\n", cases[i].label, mbs_data_error(c.d));
            if (i == 0) base = ns, printf("%-48s %10.0f %8s\n", cases[i].label, ns, "1");
            else printf("  %-46s %10.0f %8.2f\n", cases[i].label, ns, ns / base);
            bad |= ns < 0;
        }
        mbs_stepper_destroy(c.s);
        mbs_data_destroy(c.d);
        mbs_model_destroy(c.m);
    }
    return bad;
}
