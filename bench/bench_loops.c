/* bench_loops: closed-loop mechanisms -- constrained forward dynamics at a closed state, an
   evaluation including the closure (the state moved 0.5 ms off the loops' manifold, closed
   again by mbs_assemble, then forward dynamics), and RK4 steps (ns per RK4 stage = a quarter
   of a step: closure of the stage state and forward dynamics) -- for the planar four-bar, an
   inline six-cylinder engine and mbs-sim's V6 engine (six coupled loops on one crankshaft,
   one degree of freedom) and the IFToMM A02 N-four-bar (81 bodies, 40 loops), each with its
   loops closed by Newton's method and in closed form (analytic assemblies, Otter, Elmqvist,
   Mattsson 2003, "The New Modelica MultiBody Library", §7.2-7.3). All of them are planar:
   with closed forms they run the planar path by default (3-vectors, Höbinger, Otter,
   "PlanarMultiBody"), and again with MBS_PLANAR_OFF (the 3-D path with the same closed
   forms); a 30-link planar chain (a tree) compares the two paths without loops. Prints ns per
   call, steps per second and the real-time factor of RK4 at 1 kHz. Targets: four-bar
   evaluation under 2 us (Newton) and 1 us per stage (closed form), A02 faster than real time
   at 1 kHz, the V6 engine in closed form at least 3x cheaper per stage than Newton's 8.8 us.
   Usage: bench_loops [--quick] [--cpu-time] */
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

#define NMECH 5 /* four-bar, inline six, V6 engine, A02, 30-link planar chain */
#define CHAIN 4
static const char *const LABEL[NMECH] = {"four-bar", "inline six", "V6 engine (mbs-sim)",
                                         "IFToMM A02 (N = 40)", "planar chain (30)"};

/* The ways a case runs: loops by Newton (3-D path), closed forms on the 3-D path, closed
   forms on the planar path (the default). */
enum { NEWTON, CLOSED_3D, CLOSED_PLANAR, NWAY };
static const char *const WAY[NWAY] = {"Newton", "cf 3-D", "cf plan"};

/* mbs-sim's V6 engine (models/engine_v6.xml) compiled into mech (no cut list: the bench
   needs none); data start at its start values. */
static int build_v6(lm_mech *out)
{
    memset(out, 0, sizeof *out);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    int rc = lm_load_model(b, "engine_v6");
    if (rc == MBS_OK) rc = lm_finish(b, out, rc);
    else mbs_builder_destroy(b);
    return rc;
}

/* 30 uniform bars of 0.1 m and 0.5 kg pinned end to end about z, the first to the world;
   gravity along -y. */
static int build_chain(lm_mech *out)
{
    memset(out, 0, sizeof *out);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    const double g[3] = {0.0, -9.81, 0.0};
    int rc = mbs_builder_set_gravity(b, g);
    for (int i = 0; i < 30 && rc == MBS_OK; ++i) {
        const int body = lm_add_bar(b, 0.1, 0.5);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i == 0 ? MBS_WORLD : body - 1, jd.child = body;
        jd.frame_parent.pos[0] = i == 0 ? 0.0 : 0.1;
        rc = lm_keep(lm_keep(rc, body), mbs_add_joint(b, &jd));
    }
    return lm_finish(b, out, rc);
}

/* The mechanism i compiled into c->mech and its consistent start state in c->d. */
static int build_case(loop_case *c, int i, lm_fourbar *fb)
{
    int rc = i == 0 ? lm_build_fourbar(fb, &c->mech) : i == 1 ? lm_build_engine6(&c->mech)
           : i == 2 ? build_v6(&c->mech) : i == 3 ? lm_build_a02(40, &c->mech)
           : build_chain(&c->mech);
    if (rc == MBS_OK && !(c->d = mbs_data_create(c->mech.model))) rc = MBS_ERR_NOMEM;
    if (rc != MBS_OK) return rc;
    if (i == 0) {
        double th[3] = {0.3, 0, 0}, w[3], al[3];
        lm_fourbar_position(fb, th[0], 1, &th[1], &th[2]);
        lm_fourbar_rates(fb, th, 6.0, 0.0, w, al);
        lm_fourbar_set(fb, &c->mech, c->d, th, w);
    } else if (i == 1) {
        lm_engine_set(&c->mech, 6, 0.2, 20.0, c->d);
    } else if (i == 2) {
        /* the V6 file's start values: data start there */
    } else if (i == 3) {
        lm_a02_initial(40, &c->mech, c->d);
    } else {
        for (int k = 0; k < 30; ++k) mbs_data_q(c->d)[k] = k == 0 ? -0.5 : 0.05;
    }
    return rc;
}

/* Build case i one way at a consistent state; 0 or error. */
static int setup(loop_case *c, int i, int way)
{
    memset(c, 0, sizeof *c);
    lm_fourbar fb = lm_default_fourbar();
    lm_set_closure(way == NEWTON ? MBS_CLOSURE_NEWTON : MBS_CLOSURE_ANALYTIC);
    lm_set_planar(way == CLOSED_PLANAR ? MBS_PLANAR_AUTO : MBS_PLANAR_OFF);
    int rc = build_case(c, i, &fb);
    lm_set_closure(MBS_CLOSURE_ANALYTIC);
    lm_set_planar(MBS_PLANAR_AUTO);
    c->label = LABEL[i];
    if (rc != MBS_OK) {
        fprintf(stderr, "%s: %s %s\n", c->label, mbs_status_name(rc), c->mech.error);
        return 1;
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

/* How the model's loops are closed now, for the table. */
static const char *closure_note(loop_case *c, long it0)
{
    const mbs_model *m = c->mech.model;
    if (mbs_model_ncon(m) == 0) return mbs_model_is_planar(m) ? "tree, planar" : "tree, 3-D";
    const int last = mbs_model_njoint(m) - 1;
    const int cut = mbs_model_joint_is_cut(m, last) == 1 ? last : c->mech.cut_id[0];
    if (mbs_cut_joint_closure(c->d, cut) != MBS_CLOSURE_ANALYTIC) return "Newton";
    const int plan = mbs_model_is_planar(m) == 1;
    if (mbs_loop_newton_iterations(c->d) != it0)
        return plan ? "closed form, planar (Newton near singular)"
                    : "closed form, 3-D (Newton near singular)";
    return plan ? "closed form, planar, 0 Newton iterations"
                : "closed form, 3-D, 0 Newton iterations";
}

/* Time one case one way, print its row; the ns per RK4 stage into *stage (negative on
   error); 0 or error. */
static int run_case(int i, int way, const bench_opts *opts, double *stage)
{
    loop_case c;
    *stage = -1.0;
    if (setup(&c, i, way) != 0) return 1;
    int rank = -1;
    load(&c, 0);
    mbs_forward_dynamics(c.d);
    mbs_constraint_info(c.d, &rank, NULL);
    double fd = bench_time(call_fd, &c, opts), as = bench_time(call_closure_fd, &c, opts);
    load(&c, 0);
    const long it0 = mbs_loop_newton_iterations(c.d);
    double st = bench_time(call_step, &c, opts);
    printf("%-20s %-8s %4d %4d %4d %5d %11.0f %13.0f %11.0f %9.0f %9.0f %8.1f %s\n", c.label,
           i == CHAIN ? (way == CLOSED_PLANAR ? "planar" : "3-D") : WAY[way],
           mbs_model_nbody(c.mech.model) - 1, c.nv, mbs_model_ncon(c.mech.model), rank, fd, as,
           st, 0.25 * st, 1e9 / st, 1e-3 / (st * 1e-9), closure_note(&c, it0));
    *stage = fd < 0 || as < 0 || st < 0 ? -1.0 : 0.25 * st;
    teardown(&c);
    return *stage < 0;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_loops [--quick] [--cpu-time]\n");
        return 2;
    }
    bench_print_machine();
    printf("%-20s %-8s %4s %4s %4s %5s %11s %13s %11s %9s %9s %8s\n", "mechanism", "closure",
           "body", "nv", "ncon", "rank", "fwd dyn ns", "closure+fd ns", "RK4 step ns",
           "stage ns", "steps/s", "RT @1kHz");
    int bad = 0;
    double stage[NMECH][NWAY];
    for (int i = 0; i < NMECH; ++i)
        for (int w = 0; w < NWAY; ++w) {
            stage[i][w] = -1.0;
            if (i != CHAIN || w != NEWTON) bad |= run_case(i, w, &opts, &stage[i][w]);
        }
    if (bad) return 1;
    printf("per RK4 stage, Newton -> closed forms on the 3-D path -> on the planar path:\n");
    for (int i = 0; i < CHAIN; ++i)
        printf("  %-20s %8.2f us -> %6.2f us (%.1fx) -> %6.2f us (%.1fx)\n", LABEL[i],
               stage[i][NEWTON] * 1e-3, stage[i][CLOSED_3D] * 1e-3,
               stage[i][NEWTON] / stage[i][CLOSED_3D], stage[i][CLOSED_PLANAR] * 1e-3,
               stage[i][NEWTON] / stage[i][CLOSED_PLANAR]);
    printf("  %-20s 3-D %6.2f us -> planar %6.2f us (%.1fx)\n", LABEL[CHAIN],
           stage[CHAIN][CLOSED_3D] * 1e-3, stage[CHAIN][CLOSED_PLANAR] * 1e-3,
           stage[CHAIN][CLOSED_3D] / stage[CHAIN][CLOSED_PLANAR]);
    printf("  four-bar in closed form: %.2f us per stage (target < 1 us): %s\n",
           stage[0][CLOSED_PLANAR] * 1e-3, stage[0][CLOSED_PLANAR] < 1000.0 ? "met" : "NOT met");
    for (int i = 1; i <= 2; ++i)
        printf("  %s in closed form: %.2f us per stage, %.1fx below Newton's 8.8 us (target >= "
               "3x): %s\n", LABEL[i], stage[i][CLOSED_PLANAR] * 1e-3,
               8800.0 / stage[i][CLOSED_PLANAR],
               8800.0 / stage[i][CLOSED_PLANAR] >= 3.0 ? "met" : "NOT met");
    printf("  A02 RK4 at 1 kHz in closed form: %.2f x real time (target > 1): %s\n",
           1e6 / (4.0 * stage[3][CLOSED_PLANAR]),
           4.0 * stage[3][CLOSED_PLANAR] < 1e6 ? "met" : "NOT met");
    return 0;
}
