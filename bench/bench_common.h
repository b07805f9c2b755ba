/* Shared pieces of the mbs benchmarks: timing, seeded models, random states.
   Usable from C and C++ (the comparison programs link it too). */
#ifndef MBS_BENCH_COMMON_H
#define MBS_BENCH_COMMON_H

#include <stdint.h>
#include "mbs/mbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- timing */
typedef struct bench_opts {
    int reps;        /* timed batches; the figure is their median */
    double batch_s;  /* wall time each batch is sized to */
} bench_opts;
/* Default (15 x 20 ms) or quick (3 x 5 ms) options from the command line; -1 on bad args.
   --cpu-time makes bench_now read this thread's CPU time instead of CLOCK_MONOTONIC. */
int bench_parse_args(int argc, char **argv, bench_opts *out);

/* One timed call with state index k; returns 0 or a nonzero error. */
typedef int (*bench_call)(void *ctx, int k);
/* Median ns per call of fn over opts->reps batches after a warm-up that sizes the batch;
   a negative value when a call failed. */
double bench_time(bench_call fn, void *ctx, const bench_opts *opts);
/* Print the cores online, the load average and the clock (wall-clock figures slow down on
   a loaded machine). */
void bench_print_machine(void);
/* Seconds since an arbitrary origin (CLOCK_MONOTONIC, or the thread's CPU time). */
double bench_now(void);

/* ---------------------------------------------------------------- random numbers */
typedef struct bench_rng { uint64_t s; } bench_rng;
void bench_rng_seed(bench_rng *r, uint64_t seed);
double bench_uniform(bench_rng *r, double lo, double hi);

/* ---------------------------------------------------------------- the revolute chain */
/* Link i of the chain: joint i sits at (length of link i-1, 0, 0) in the parent body frame
   (at the origin for i = 0); the axis is z for even i and y for odd i; the child's body
   frame is the joint frame at q = 0; com at (length/2, 0, 0); a solid rod of the radius. */
typedef struct bench_link {
    double length, radius, mass;
    double com[3];
    double inertia[3]; /* principal moments about the com along the body axes */
    int axis;          /* 2: z, 1: y */
} bench_link;
#define BENCH_CHAIN_SEED 20240601u
/* Seeded link geometry for an n-link chain (lengths 0.2..0.4 m, masses 0.5..3 kg). */
void bench_chain_links(int n, uint64_t seed, bench_link *links);
/* Compile the chain into an mbs model; callback (may be NULL) is added as a force
   callback with user. Returns MBS_OK or a status (message on stderr). */
int bench_chain_mbs(int n, const bench_link *links, mbs_force_callback callback, void *user,
                    mbs_model **out);
/* The planar chain of bench_planar (the chain's links, every axis along z, gravity -y):
   mode MBS_PLANAR_AUTO runs the planar path, MBS_PLANAR_OFF the 3-D path. */
int bench_planar_chain_mbs(int n, mbs_planar_mode mode, mbs_model **out);
/* A ~35 dof humanoid: free base (quaternion), waist, 2 arms of 7, 2 legs of 6, head 2. */
int bench_humanoid_mbs(mbs_model **out);

/* ---------------------------------------------------------------- states */
/* nstate random states: q (nq each, from neutral moved by a random v in [-1, 1]), v and
   a (nv each, uniform in [-1, 1]). */
typedef struct bench_states {
    int nstate, nq, nv;
    double *q, *v, *a;
} bench_states;
int bench_states_make(const mbs_model *m, int nstate, uint64_t seed, bench_states *out);
void bench_states_free(bench_states *s);
/* Copy state k mod nstate into d (q, v, and a as tau); returns that state's index. */
int bench_states_load(const bench_states *s, int k, mbs_data *d);

/* ---------------------------------------------------------------- mbs ABA reference */
/* Median ns per mbs_forward_dynamics call on states s (for the comparison programs). */
double bench_mbs_aba_ns(const mbs_model *m, const bench_states *s, const bench_opts *opts);
/* mbs qacc (nv x 1) of state k with tau = 0, for cross-checking another library. */
int bench_mbs_qacc(const mbs_model *m, const bench_states *s, int k, double *qacc);
/* max_i |a_i - b_i| / (1 + max_i |b_i|) */
double bench_rel_diff(const double *a, const double *b, int n);

/* ---------------------------------------------------------------- comparisons */
/* Another library's forward dynamics on the same chain, for bench_compare. */
typedef struct bench_other {
    const char *name;   /* e.g. "MuJoCo 2.2.2 mj_forward" */
    /* Build the chain and a context for states s; NULL on failure (message on stderr). */
    void *(*create)(int n, const bench_link *links, const bench_states *s);
    bench_call call;    /* one forward-dynamics call on state k, ctx from create */
    /* Joint accelerations (nv x 1) of state k with zero joint torques; 0 or an error. */
    int (*qacc)(void *ctx, int k, double *qacc);
    void (*destroy)(void *ctx);
} bench_other;
/* Time o and mbs ABA on chains of 7, 30, 100, 1000 links, cross-check the accelerations and
   print a table with the ratio; the exit status for main. */
int bench_compare(const bench_other *o, int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
