/* bench_analysis: what a controller and a designer ask the model -- ns per call of
   mbs_point_jacobian of the end point (chains of 7 and 30 links, the humanoid: a hand),
   mbs_joint_reaction of every joint after one forward dynamics (the figure is for all
   joints together), mbs_inverse_dynamics_actuated (four-bar and six-cylinder engine driven
   at the crank, at moving closed states) and mbs_equilibrium from a fixed start (spring
   pendulum, four-bar under gravity, the engine, the 7-link chain with its z joints held).
   Target: the Jacobian under 1 us for the 7-link chain. Usage: bench_analysis [--quick]
   [--cpu-time] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "loop_mechanisms.h"

#define NSTATE 64

/* A tree model with random states and an end body. */
typedef struct tree_case {
    char label[32];
    mbs_model *m;
    mbs_data *d;
    bench_states s;
    int body;    /* the end body of the Jacobian */
    double *J;   /* 6 x nv */
} tree_case;

/* Load state k (q, v, tau = a) into the data. */
static void load_tree(tree_case *c, int k)
{
    bench_states_load(&c->s, k, c->d);
}

/* The Jacobian of a point of the end body. */
static int call_jacobian(void *ctx, int k)
{
    tree_case *c = ctx;
    load_tree(c, k);
    static const double pt[3] = {0.1, 0.0, 0.0};
    return mbs_point_jacobian(c->d, c->body, pt, c->J);
}

/* Forward dynamics, then the reaction of every joint. */
static int call_reactions(void *ctx, int k)
{
    tree_case *c = ctx;
    load_tree(c, k);
    int st = mbs_forward_dynamics(c->d);
    double F[3], T[3];
    for (int j = 0; st == MBS_OK && j < mbs_model_njoint(c->m); ++j)
        st = mbs_joint_reaction(c->d, j, F, T);
    return st;
}

/* Forward dynamics alone (the reference of the reactions' figure). */
static int call_forward(void *ctx, int k)
{
    tree_case *c = ctx;
    load_tree(c, k);
    return mbs_forward_dynamics(c->d);
}

/* Chain of 7 or 30 links (i = 0, 1) or the humanoid (i = 2); 0 or error. */
static int tree_setup(tree_case *c, int i)
{
    memset(c, 0, sizeof *c);
    int st;
    if (i < 2) {
        const int n = i == 0 ? 7 : 30;
        bench_link links[30];
        bench_chain_links(n, BENCH_CHAIN_SEED, links);
        st = bench_chain_mbs(n, links, NULL, NULL, &c->m);
        snprintf(c->label, sizeof c->label, "chain %d", n);
    } else {
        st = bench_humanoid_mbs(&c->m);
        snprintf(c->label, sizeof c->label, "humanoid");
    }
    if (st != MBS_OK || !(c->d = mbs_data_create(c->m))) return 1;
    c->body = mbs_model_nbody(c->m) - 1;
    c->J = malloc(sizeof(double) * 6 * (size_t)mbs_model_nv(c->m));
    return !c->J || bench_states_make(c->m, NSTATE, 7, &c->s) != 0;
}

static void tree_teardown(tree_case *c)
{
    bench_states_free(&c->s);
    free(c->J);
    mbs_data_destroy(c->d);
    mbs_model_destroy(c->m);
}

/* Rows of the Jacobian and reaction table; 0 or error. */
static int run_trees(const bench_opts *opts)
{
    printf("%-10s %4s %5s %14s %14s %16s %16s\n", "model", "nv", "joint", "jacobian ns",
           "fwd dyn ns", "fd+reactions ns", "per reaction ns");
    int bad = 0;
    double chain7 = -1.0;
    for (int i = 0; i < 3; ++i) {
        tree_case c;
        if (tree_setup(&c, i) != 0) {
            fprintf(stderr, "%s: setup failed\n", c.label);
            return 1;
        }
        const int nj = mbs_model_njoint(c.m);
        const double jac = bench_time(call_jacobian, &c, opts), fd = bench_time(call_forward, &c, opts);
        const double re = bench_time(call_reactions, &c, opts);
        printf("%-10s %4d %5d %14.0f %14.0f %16.0f %16.0f\n", c.label, mbs_model_nv(c.m), nj, jac,
               fd, re, (re - fd) / nj);
        if (i == 0) chain7 = jac;
        bad |= jac < 0 || fd < 0 || re < 0;
        tree_teardown(&c);
    }
    printf("  point Jacobian of the 7-link chain: %.0f ns (target < 1000 ns): %s\n", chain7,
           chain7 >= 0 && chain7 < 1000.0 ? "met" : "NOT met");
    return bad;
}

/* ---------------------------------------------------------------- closed loops */

/* A mechanism driven at its crank: consistent states and their accelerations. */
typedef struct loop_case {
    const char *label;
    lm_mech mech;
    mbs_data *d;
    int nq, nv, crank;
    double *q, *v, *a, *tau; /* NSTATE states, their qacc under a crank torque; tau_out */
} loop_case;

/* Record NSTATE moving states 10 ms apart (RK4) and their qacc with a crank torque. */
static int record(loop_case *c)
{
    c->nq = mbs_model_nq(c->mech.model), c->nv = mbs_model_nv(c->mech.model);
    c->q = malloc(sizeof(double) * (size_t)(NSTATE * c->nq));
    c->v = malloc(sizeof(double) * (size_t)(NSTATE * c->nv));
    c->a = malloc(sizeof(double) * (size_t)(NSTATE * c->nv));
    c->tau = malloc(sizeof(double) * (size_t)c->nv);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(c->d, &sd);
    int bad = !c->q || !c->v || !c->a || !c->tau || !s;
    mbs_data_tau(c->d)[c->crank] = 5.0;
    for (int k = 0; k < NSTATE && !bad; ++k) {
        bad |= mbs_forward_dynamics(c->d) != MBS_OK;
        memcpy(c->q + (size_t)k * (size_t)c->nq, mbs_data_q(c->d), sizeof(double) * (size_t)c->nq);
        memcpy(c->v + (size_t)k * (size_t)c->nv, mbs_data_v(c->d), sizeof(double) * (size_t)c->nv);
        memcpy(c->a + (size_t)k * (size_t)c->nv, mbs_data_qacc(c->d), sizeof(double) * (size_t)c->nv);
        for (int n = 0; n < 10 && !bad; ++n) bad |= mbs_stepper_step(s, 1e-3) != MBS_OK;
    }
    mbs_stepper_destroy(s);
    return bad;
}

/* The crank torque for state k's accelerations. */
static int call_actuated(void *ctx, int k)
{
    loop_case *c = ctx;
    const int i = k % NSTATE;
    memcpy(mbs_data_q(c->d), c->q + (size_t)i * (size_t)c->nq, sizeof(double) * (size_t)c->nq);
    memcpy(mbs_data_v(c->d), c->v + (size_t)i * (size_t)c->nv, sizeof(double) * (size_t)c->nv);
    return mbs_inverse_dynamics_actuated(c->d, c->a + (size_t)i * (size_t)c->nv, &c->crank, 1, c->tau);
}

/* Four-bar (0) or six-cylinder engine (1) at a moving closed state; 0 or error. */
static int loop_setup(loop_case *c, int i)
{
    memset(c, 0, sizeof *c);
    lm_fourbar fb = lm_default_fourbar();
    int rc = i == 0 ? lm_build_fourbar(&fb, &c->mech) : lm_build_engine6(&c->mech);
    c->label = i == 0 ? "four-bar" : "engine, 6 cylinders";
    if (rc == MBS_OK && !(c->d = mbs_data_create(c->mech.model))) rc = MBS_ERR_NOMEM;
    if (rc != MBS_OK) return 1;
    if (i == 0) {
        double th[3] = {0.3, 0, 0}, w[3], al[3];
        lm_fourbar_position(&fb, th[0], 1, &th[1], &th[2]);
        lm_fourbar_rates(&fb, th, 6.0, 0.0, w, al);
        lm_fourbar_set(&fb, &c->mech, c->d, th, w);
    } else {
        lm_engine_set(&c->mech, 6, 0.2, 20.0, c->d);
    }
    c->crank = mbs_model_joint_vadr(c->mech.model, c->mech.joint[0]);
    return mbs_assemble(c->d) != MBS_OK || record(c);
}

static void loop_teardown(loop_case *c)
{
    mbs_data_destroy(c->d);
    lm_mech_free(&c->mech);
    free(c->q), free(c->v), free(c->a), free(c->tau);
}

/* Rows of the actuated inverse dynamics table; 0 or error. */
static int run_actuated(const bench_opts *opts)
{
    printf("\n%-22s %4s %5s %22s\n", "mechanism", "nv", "rank", "ID actuated (crank) ns");
    int bad = 0;
    for (int i = 0; i < 2; ++i) {
        loop_case c;
        if (loop_setup(&c, i) != 0) {
            fprintf(stderr, "%s: setup failed: %s\n", c.label, c.d ? mbs_data_error(c.d) : "");
            return 1;
        }
        int rank = 0;
        mbs_constraint_info(c.d, &rank, NULL);
        const double t = bench_time(call_actuated, &c, opts);
        printf("%-22s %4d %5d %22.0f\n", c.label, c.nv, rank, t);
        bad |= t < 0;
        loop_teardown(&c);
    }
    return bad;
}

/* ---------------------------------------------------------------- equilibrium */

/* A model, its start and the fixed mask of an equilibrium call. */
typedef struct eq_case {
    const char *label;
    mbs_model *m;
    mbs_data *d;
    double *q0;
    unsigned char *fixed; /* NULL: none */
} eq_case;

/* The equilibrium from the same start every call. */
static int call_equilibrium(void *ctx, int k)
{
    (void)k;
    eq_case *c = ctx;
    memcpy(mbs_data_q(c->d), c->q0, sizeof(double) * (size_t)mbs_model_nq(c->m));
    return mbs_equilibrium(c->d, c->fixed);
}

/* A revolute pendulum standing up with a torsion spring (k = 0.6 m g l), from q = 1. */
static int spring_pendulum(eq_case *c)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.mass = 2.0, bd.com[2] = 0.5;
    int st = mbs_add_body(b, &bd);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1, j.axis[0] = 1.0, j.axis[2] = 0.0;
    if (st > 0) st = mbs_add_joint(b, &j);
    if (st >= 0) st = mbs_add_joint_spring_damper(b, 0, 0, 0.6 * 2.0 * 9.81 * 0.5, 0.0, 0.0);
    if (st >= 0) st = mbs_compile(b, &c->m);
    mbs_builder_destroy(b);
    return st < 0;
}

/* Equilibrium case i: spring pendulum, four-bar, engine, chain 7 (z joints held). */
static int eq_setup(eq_case *c, int i, lm_mech *mech)
{
    memset(c, 0, sizeof *c);
    memset(mech, 0, sizeof *mech);
    static const char *labels[4] = {"spring pendulum", "four-bar (gravity)", "engine, 6 cylinders",
                                    "chain 7, z joints held"};
    c->label = labels[i];
    lm_fourbar fb = lm_default_fourbar();
    int bad = 0;
    if (i == 0) bad = spring_pendulum(c);
    if (i == 1) bad = lm_build_fourbar(&fb, mech) != MBS_OK, c->m = mech->model;
    if (i == 2) bad = lm_build_engine6(mech) != MBS_OK, c->m = mech->model;
    if (i == 3) {
        bench_link links[7];
        bench_chain_links(7, BENCH_CHAIN_SEED, links);
        bad = bench_chain_mbs(7, links, NULL, NULL, &c->m) != MBS_OK;
    }
    if (bad || !(c->d = mbs_data_create(c->m))) return 1;
    const int nq = mbs_model_nq(c->m), nv = mbs_model_nv(c->m);
    c->q0 = calloc((size_t)nq, sizeof(double));
    c->fixed = i == 3 ? calloc((size_t)nv, 1) : NULL;
    if (!c->q0 || (i == 3 && !c->fixed)) return 1;
    double *q = mbs_data_q(c->d);
    if (i == 0) q[0] = 1.0;
    if (i == 1) {
        double th[3] = {0.3, 0, 0}, w[3] = {0, 0, 0};
        lm_fourbar_position(&fb, th[0], 1, &th[1], &th[2]);
        lm_fourbar_set(&fb, mech, c->d, th, w);
    }
    if (i == 2) lm_engine_set(mech, 6, 0.4, 0.0, c->d);
    for (int k = 0; i == 3 && k < nv; ++k) c->fixed[k] = k % 2 == 0, q[k] = 0.3;
    if (mbs_model_ncon(c->m) > 0 && mbs_assemble(c->d) != MBS_OK) return 1;
    memcpy(c->q0, q, sizeof(double) * (size_t)nq);
    return 0;
}

/* Rows of the equilibrium table; 0 or error. */
static int run_equilibrium(const bench_opts *opts)
{
    printf("\n%-24s %4s %18s\n", "equilibrium from", "nv", "ns per call");
    int bad = 0;
    for (int i = 0; i < 4; ++i) {
        eq_case c;
        lm_mech mech;
        int st = eq_setup(&c, i, &mech);
        if (st == 0 && call_equilibrium(&c, 0) != MBS_OK) {
            fprintf(stderr, "%s: %s\n", c.label, mbs_data_error(c.d));
            st = 1;
        }
        const double t = st == 0 ? bench_time(call_equilibrium, &c, opts) : -1.0;
        printf("%-24s %4d %18.0f\n", c.label, c.m ? mbs_model_nv(c.m) : 0, t);
        bad |= t < 0;
        mbs_data_destroy(c.d);
        if (mech.model) lm_mech_free(&mech);
        else mbs_model_destroy(c.m);
        free(c.q0), free(c.fixed);
    }
    return bad;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_analysis [--quick] [--cpu-time]\n");
        return 2;
    }
    bench_print_machine();
    int bad = run_trees(&opts);
    bad |= run_actuated(&opts);
    bad |= run_equilibrium(&opts);
    return bad ? 1 : 0;
}
