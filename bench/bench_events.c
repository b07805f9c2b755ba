/* bench_events: the cost of state events, friction and prescribed motion in RK4 steps of 1 ms
   (ns per step, and the ratio to the same model without them):
     pendulum                      baseline (1 dof, swinging)
       + an event function          evaluated at the end of every step, no crossing
       + an event crossing per step located to 1e-9 s (regula falsi trial steps)
       + a prescribed motion        its coordinate a rheonomic row (1 dof driven)
     wheel spinning                 baseline (no gravity)
       + Coulomb friction, sliding  the sliding force (tau balances it: steady)
     pendulum at rest               baseline (held at 0.3 rad by tau)
       + friction locked            a coordinate row: direct closure, constrained dynamics,
                                    the holding force's event function (one more dynamics)
     chain of 7 revolute links      baseline (swinging under gravity)
       + friction on every joint, all locked (7 rows)
   States that would leave their regime are reset every 1000 steps (the reset's restart is
   part of the figure). Usage: bench_events [--quick] [--cpu-time] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

typedef struct ev_case {
    const char *label;
    mbs_model *m;
    mbs_data *d;
    mbs_stepper *s;
    int nq, nv;
    double *q0, *v0; /* the reset state */
    int reset;       /* steps between resets (0: never) */
} ev_case;

/* ---------------------------------------------------------------- models */

static double g_far(mbs_data *d, void *user)
{
    (void)user;
    return mbs_data_q(d)[0] + 10.0;
}
static double g_every_step(mbs_data *d, void *user)
{
    (void)user;
    return sin(1000.0 * 3.14159265358979323846 * mbs_data_time(d) + 1.0);
}
static int drive(double t, double pos[1], double vel[1], double acc[1], void *user)
{
    (void)user;
    pos[0] = 0.5 * sin(2.0 * t), vel[0] = cos(2.0 * t), acc[0] = -2.0 * sin(2.0 * t);
    return 0;
}

/* A pendulum (1 kg at 0.4 m, axis y) with gravity or not, plus what `extra` asks:
   0 nothing, 1 an event far from zero, 2 an event crossing every step, 3 a drive,
   4 friction (coulomb 0.5, stiction 5). */
static mbs_model *pendulum(int gravity, int extra)
{
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_planar(b, MBS_PLANAR_OFF); /* the 3-D path for all: elements compared alone */
    if (!gravity) mbs_builder_set_no_gravity(b);
    mbs_body_def bd = mbs_default_body_def();
    bd.com[2] = -0.4;
    mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1, j.axis[1] = 1.0, j.axis[2] = 0.0;
    mbs_add_joint(b, &j);
    if (extra == 1) mbs_add_event(b, "far", g_far, NULL, NULL);
    if (extra == 2) mbs_add_event(b, "every step", g_every_step, NULL, NULL);
    if (extra == 3) mbs_add_joint_motion(b, 0, 0, drive, NULL);
    if (extra == 4) {
        mbs_joint_friction_def f = mbs_default_joint_friction_def();
        f.joint = 0, f.coulomb = 0.5, f.stiction = 5.0;
        mbs_add_joint_friction(b, &f);
    }
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fprintf(stderr, "pendulum: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* The benchmark chain of 7 links (bench_chain_links), with friction on every joint (locks
   under gravity) or not. */
static mbs_model *chain(int friction)
{
    bench_link links[7];
    bench_chain_links(7, BENCH_CHAIN_SEED, links);
    mbs_builder *b = mbs_builder_create();
    mbs_builder_set_planar(b, MBS_PLANAR_OFF);
    for (int i = 0; i < 7; ++i) {
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
        mbs_add_joint(b, &j);
        mbs_joint_friction_def f = mbs_default_joint_friction_def();
        f.joint = i, f.coulomb = 50.0, f.stiction = 100.0;
        if (friction) mbs_add_joint_friction(b, &f);
    }
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fprintf(stderr, "chain: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* ---------------------------------------------------------------- timing */

/* One RK4 step of 1 ms (the reset state loaded every c->reset steps). */
static int call_step(void *ctx, int k)
{
    ev_case *c = ctx;
    if (c->reset && k % c->reset == 0) {
        memcpy(mbs_data_q(c->d), c->q0, (size_t)c->nq * sizeof(double));
        memcpy(mbs_data_v(c->d), c->v0, (size_t)c->nv * sizeof(double));
    }
    return mbs_stepper_step(c->s, 1e-3);
}

/* Data, stepper and reset state of case c from q0[0], v0[0] (others 0), tau on dof 0. */
static int setup(ev_case *c, const char *label, mbs_model *m, double q, double v, double tau,
                 int reset)
{
    memset(c, 0, sizeof *c);
    c->label = label;
    c->m = m;
    if (!m || !(c->d = mbs_data_create(m))) return 1;
    c->nq = mbs_model_nq(m), c->nv = mbs_model_nv(m);
    c->q0 = calloc((size_t)c->nq, sizeof(double));
    c->v0 = calloc((size_t)c->nv, sizeof(double));
    c->q0[0] = q, c->v0[0] = v;
    memcpy(mbs_data_q(c->d), c->q0, (size_t)c->nq * sizeof(double));
    memcpy(mbs_data_v(c->d), c->v0, (size_t)c->nv * sizeof(double));
    mbs_data_tau(c->d)[0] = tau;
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    c->s = mbs_stepper_create(c->d, &sd);
    c->reset = reset;
    return c->s ? 0 : 1;
}

static void teardown(ev_case *c)
{
    mbs_stepper_destroy(c->s);
    mbs_data_destroy(c->d);
    mbs_model_destroy(c->m);
    free(c->q0);
    free(c->v0);
}

/* Time case c and print its row against the baseline (0: it is the baseline). */
static double row(ev_case *c, double base, const bench_opts *opts)
{
    const double ns = bench_time(call_step, c, opts);
    if (ns < 0) fprintf(stderr, "%s: %s\n", c->label, mbs_data_error(c->d));
    if (base > 0.0) printf("  %-46s %10.0f %8.2f\n", c->label, ns, ns / base);
    else printf("%-48s %10.0f %8s\n", c->label, ns, "1");
    return ns;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_events [--quick] [--cpu-time]\n");
        return 2;
    }
    bench_print_machine();
    printf("%-48s %10s %8s\n", "RK4 step of 1 ms", "ns/step", "ratio");
    struct { const char *label; int model, extra; double q, v, tau; int reset; } cases[] = {
        {"pendulum (1 dof), swinging", 0, 0, 0.5, 0.0, 0.0, 0},
        {"+ an event function, no crossing", 0, 1, 0.5, 0.0, 0.0, 0},
        {"+ an event crossing in every step", 0, 2, 0.5, 0.0, 0.0, 0},
        {"+ a prescribed motion (the dof driven)", 0, 3, 0.0, 1.0, 0.0, 0},
        {"wheel (1 dof, no gravity), spinning", 1, 0, 0.0, 10.0, 0.5, 0},
        {"+ Coulomb friction, sliding", 1, 4, 0.0, 10.0, 0.5, 0},
        {"pendulum held at rest by tau", 0, 0, 0.3, 0.0, 1.1596, 0},
        {"+ friction, locked (holds it without tau)", 0, 4, 0.3, 0.0, 0.0, 0},
        {"chain of 7 links, swinging", 2, 0, 0.3, 0.0, 0.0, 1000},
        {"+ friction on every joint, all locked", 2, 1, 0.3, 0.0, 0.0, 0},
    };
    double base = 0.0;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        mbs_model *m = cases[i].model == 2 ? chain(cases[i].extra)
                                           : pendulum(cases[i].model == 0, cases[i].extra);
        ev_case c;
        if (setup(&c, cases[i].label, m, cases[i].q, cases[i].v, cases[i].tau, cases[i].reset)) {
            fprintf(stderr, "%s: setup failed\n", cases[i].label);
            bad = 1;
            continue;
        }
        const double ns = row(&c, cases[i].label[0] == '+' ? base : 0.0, &opts);
        if (cases[i].label[0] != '+') base = ns;
        bad |= ns < 0;
        teardown(&c);
    }
    return bad;
}
