/* Shared pieces of the mbs benchmarks: timing, seeded models, random states. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- timing */

/* Clock of bench_now: wall time unless --cpu-time asked for this thread's CPU time. */
static clockid_t bench_clock = CLOCK_MONOTONIC;

/* Parse [--quick] [--cpu-time]; anything else is an error. */
int bench_parse_args(int argc, char **argv, bench_opts *out)
{
    out->reps = 15;
    out->batch_s = 20e-3;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            out->reps = 3;
            out->batch_s = 5e-3;
        } else if (strcmp(argv[i], "--cpu-time") == 0) {
            bench_clock = CLOCK_THREAD_CPUTIME_ID;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--cpu-time]\n", argv[0]);
            return -1;
        }
    }
    return 0;
}

/* The processor's model name and its vector extensions from /proc/cpuinfo (when there is
   one), and the SIMD variant the derivative passes run (MBS_SIMD selects it). */
static void print_cpu(void)
{
    static const char *const ext[] = {"sse2", "avx", "avx2", "fma", "avx512f", "asimd", "sve"};
    char line[4096], model[256] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    printf("cpu:");
    while (f && fgets(line, sizeof line, f)) {
        const int is_flags = strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0;
        if (!model[0] && strncmp(line, "model name", 10) == 0 && strchr(line, ':'))
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
        if (!is_flags) continue;
        model[strcspn(model, "\n")] = 0;
        printf(" %s; vector extensions:", model[0] ? model : "(no model name)");
        for (size_t i = 0; i < sizeof ext / sizeof ext[0]; ++i) {
            char pat[32];
            snprintf(pat, sizeof pat, " %s", ext[i]);
            const char *at = strstr(line, pat);
            const char end = at ? at[strlen(pat)] : 0;
            if (at && (end == ' ' || end == '\n')) printf(" %s", ext[i]);
        }
        break;
    }
    if (f) fclose(f);
    printf("; SIMD variant of the derivatives: %s\n", mbs_simd_variant());
}

/* Cores online and the 1-minute load average from /proc/loadavg (when there is one), the
   processor and the SIMD variant. */
void bench_print_machine(void)
{
    print_cpu();
    double load = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1.0;
        fclose(f);
    }
    printf("machine: %ld cores online", sysconf(_SC_NPROCESSORS_ONLN));
    if (load >= 0)
        printf(", load average %.2f at start", load);
    printf("; clock: %s\n", bench_clock == CLOCK_MONOTONIC
                                 ? "CLOCK_MONOTONIC (wall time)"
                                 : "CLOCK_THREAD_CPUTIME_ID (CPU time of this thread)");
}

/* Seconds from the chosen clock (CLOCK_MONOTONIC by default). */
double bench_now(void)
{
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort comparison of doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Run n calls starting at state counter *k; seconds taken, or -1 on a failed call. */
static double run_batch(bench_call fn, void *ctx, long n, int *k)
{
    double t0 = bench_now();
    for (long i = 0; i < n; ++i) {
        if (fn(ctx, *k) != 0)
            return -1.0;
        *k = (*k + 1) & 0xfffff;
    }
    return bench_now() - t0;
}

/* Median ns per call over opts->reps batches of ~opts->batch_s each, after a warm-up. */
double bench_time(bench_call fn, void *ctx, const bench_opts *opts)
{
    int k = 0;
    long n = 1;
    double t;
    for (;;) { /* warm-up that also sizes the batch */
        t = run_batch(fn, ctx, n, &k);
        if (t < 0)
            return -1.0;
        if (t >= 0.25 * opts->batch_s || n >= (1L << 30))
            break;
        n *= 2;
    }
    long batch = (long)(opts->batch_s / (t / (double)n));
    if (batch < 1)
        batch = 1;
    double per_call[64];
    int reps = opts->reps < 64 ? opts->reps : 64;
    for (int r = 0; r < reps; ++r) {
        t = run_batch(fn, ctx, batch, &k);
        if (t < 0)
            return -1.0;
        per_call[r] = 1e9 * t / (double)batch;
    }
    qsort(per_call, (size_t)reps, sizeof(double), cmp_double);
    return reps % 2 ? per_call[reps / 2]
                    : 0.5 * (per_call[reps / 2 - 1] + per_call[reps / 2]);
}

/* ---------------------------------------------------------------- random numbers */

/* Seed the xorshift64* generator (seed 0 is replaced by a fixed nonzero value). */
void bench_rng_seed(bench_rng *r, uint64_t seed)
{
    r->s = seed ? seed : 0x9e3779b97f4a7c15ull;
}

/* Uniform double in [lo, hi). */
double bench_uniform(bench_rng *r, double lo, double hi)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    uint64_t x = r->s * 0x2545f4914f6cdd1dull;
    return lo + (hi - lo) * (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

/* ---------------------------------------------------------------- models */

/* Principal moments of a solid rod of mass m, length l, radius r, along the given axis. */
static void rod_inertia(double m, double l, double r, int along, double I[3])
{
    double side = m * (3.0 * r * r + l * l) / 12.0;
    for (int i = 0; i < 3; ++i)
        I[i] = side;
    I[along] = 0.5 * m * r * r;
}

/* Seeded link geometry of an n-link chain. */
void bench_chain_links(int n, uint64_t seed, bench_link *links)
{
    bench_rng rng;
    bench_rng_seed(&rng, seed);
    for (int i = 0; i < n; ++i) {
        bench_link *l = &links[i];
        l->length = bench_uniform(&rng, 0.2, 0.4);
        l->radius = bench_uniform(&rng, 0.02, 0.05);
        l->mass = bench_uniform(&rng, 0.5, 3.0);
        l->com[0] = 0.5 * l->length;
        l->com[1] = l->com[2] = 0.0;
        rod_inertia(l->mass, l->length, l->radius, 0, l->inertia);
        l->axis = (i % 2 == 0) ? 2 : 1;
    }
}

/* Body definition from mass, com and principal moments. */
static mbs_body_def body_def(const char *name, double mass, const double com[3],
                             const double I[3])
{
    mbs_body_def b = mbs_default_body_def();
    b.name = name;
    b.mass = mass;
    memset(b.inertia, 0, sizeof b.inertia);
    for (int i = 0; i < 3; ++i) {
        b.com[i] = com[i];
        b.inertia[4 * i] = I[i];
    }
    return b;
}

/* Compile a builder into *out, reporting a failure on stderr. */
static int compile_or_report(mbs_builder *b, int status, mbs_model **out)
{
    if (status >= 0)
        status = mbs_compile(b, out);
    if (status < 0)
        fprintf(stderr, "building the benchmark model failed: %s: %s\n",
                mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return status < 0 ? status : MBS_OK;
}

/* Compile the chain of n links into an mbs model. */
int bench_chain_mbs(int n, const bench_link *links, mbs_force_callback callback, void *user,
                    mbs_model **out)
{
    mbs_builder *b = mbs_builder_create();
    if (!b)
        return MBS_ERR_NOMEM;
    int status = MBS_OK;
    for (int i = 0; i < n && status >= 0; ++i) {
        mbs_body_def bd = body_def(NULL, links[i].mass, links[i].com, links[i].inertia);
        int body = mbs_add_body(b, &bd);
        if (body < 0) {
            status = body;
            break;
        }
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = (i == 0) ? MBS_WORLD : body - 1;
        jd.child = body;
        jd.frame_parent.pos[0] = (i == 0) ? 0.0 : links[i - 1].length;
        jd.axis[0] = jd.axis[1] = jd.axis[2] = 0.0;
        jd.axis[links[i].axis] = 1.0;
        status = mbs_add_joint(b, &jd);
    }
    if (status >= 0 && callback)
        status = mbs_add_force_callback(b, "counter", callback, user);
    return compile_or_report(b, status, out);
}

/* The planar chain of bench_planar: the chain's links with every axis along z, gravity in
   the plane (-y), the planar path (MBS_PLANAR_AUTO) or the 3-D path (MBS_PLANAR_OFF). */
int bench_planar_chain_mbs(int n, mbs_planar_mode mode, mbs_model **out)
{
    bench_link *links = malloc(sizeof(bench_link) * (size_t)n);
    mbs_builder *b = links ? mbs_builder_create() : NULL;
    if (!b) {
        free(links);
        return MBS_ERR_NOMEM;
    }
    bench_chain_links(n, BENCH_CHAIN_SEED, links);
    const double g[3] = {0.0, -9.81, 0.0};
    int status = mbs_builder_set_gravity(b, g);
    if (status >= 0) status = mbs_builder_set_planar(b, mode);
    for (int i = 0; i < n && status >= 0; ++i) {
        mbs_body_def bd = body_def(NULL, links[i].mass, links[i].com, links[i].inertia);
        const int body = mbs_add_body(b, &bd);
        if (body < 0) {
            status = body;
            break;
        }
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i == 0 ? MBS_WORLD : body - 1, jd.child = body;
        jd.frame_parent.pos[0] = i == 0 ? 0.0 : links[i - 1].length;
        status = mbs_add_joint(b, &jd);
    }
    free(links);
    return compile_or_report(b, status, out);
}

/* One humanoid segment: a rod hanging along z from its joint. */
typedef struct segment {
    const char *name;
    int parent;      /* index in the table, -1: world through a free joint */
    double pos[3];   /* joint position in the parent body frame */
    int axis;        /* 0 x, 1 y, 2 z */
    double mass, len, radius; /* len signed along z: com at (0, 0, len / 2) */
} segment;

/* Add one segment as a body and its joint; returns the body id or a negative status. */
static int add_segment(mbs_builder *b, const segment *s, const int *ids)
{
    double com[3] = {0.0, 0.0, 0.5 * s->len}, I[3];
    rod_inertia(s->mass, fabs(s->len), s->radius, 2, I);
    mbs_body_def bd = body_def(s->name, s->mass, com, I);
    int body = mbs_add_body(b, &bd);
    if (body < 0)
        return body;
    mbs_joint_def jd = mbs_default_joint_def(s->parent < 0 ? MBS_JOINT_FREE
                                                           : MBS_JOINT_REVOLUTE);
    jd.name = s->name;
    jd.parent = s->parent < 0 ? MBS_WORLD : ids[s->parent];
    jd.child = body;
    memcpy(jd.frame_parent.pos, s->pos, sizeof s->pos);
    jd.axis[0] = jd.axis[1] = jd.axis[2] = 0.0;
    jd.axis[s->axis] = 1.0;
    int j = mbs_add_joint(b, &jd);
    return j < 0 ? j : body;
}

/* Segment table: pelvis (free), torso, neck, head, then two arms of 7 and two legs of 6. */
static int humanoid_segments(segment *t)
{
    static const segment trunk[4] = {
        {"pelvis", -1, {0, 0, 0}, 2, 10.0, 0.20, 0.12},
        {"torso", 0, {0, 0, 0.20}, 2, 20.0, 0.45, 0.15},
        {"neck", 1, {0, 0, 0.45}, 2, 0.5, 0.08, 0.04},
        {"head", 2, {0, 0, 0.08}, 1, 4.5, 0.22, 0.10},
    };
    static const segment arm[7] = { /* parent -2: previous segment; y sign from the side */
        {"shoulder_pitch", 1, {0, 0.20, 0.40}, 1, 0.5, -0.05, 0.04},
        {"shoulder_roll", -2, {0, 0, -0.05}, 0, 0.5, -0.05, 0.04},
        {"upper_arm", -2, {0, 0, -0.05}, 2, 2.0, -0.28, 0.045},
        {"forearm", -2, {0, 0, -0.28}, 1, 1.2, -0.25, 0.04},
        {"wrist_yaw", -2, {0, 0, -0.25}, 2, 0.3, -0.04, 0.03},
        {"wrist_pitch", -2, {0, 0, -0.04}, 1, 0.3, -0.04, 0.03},
        {"hand", -2, {0, 0, -0.04}, 0, 0.5, -0.12, 0.04},
    };
    static const segment leg[6] = {
        {"hip_yaw", 0, {0, 0.10, 0}, 2, 1.0, -0.06, 0.06},
        {"hip_roll", -2, {0, 0, -0.06}, 0, 1.0, -0.06, 0.06},
        {"thigh", -2, {0, 0, -0.06}, 1, 7.0, -0.42, 0.07},
        {"shank", -2, {0, 0, -0.42}, 1, 3.5, -0.40, 0.05},
        {"ankle", -2, {0, 0, -0.40}, 1, 0.5, -0.05, 0.04},
        {"foot", -2, {0, 0, -0.05}, 0, 1.0, -0.06, 0.05},
    };
    int n = 0;
    for (int i = 0; i < 4; ++i)
        t[n++] = trunk[i];
    for (int limb = 0; limb < 4; ++limb) {
        const segment *src = limb < 2 ? arm : leg;
        int len = limb < 2 ? 7 : 6;
        double side = (limb % 2 == 0) ? 1.0 : -1.0;
        for (int i = 0; i < len; ++i, ++n) {
            t[n] = src[i];
            t[n].pos[1] *= side;
            if (t[n].parent == -2)
                t[n].parent = n - 1;
        }
    }
    return n;
}

/* Compile the humanoid: 30 bodies, 6 + 1 + 2 + 2*7 + 2*6 = 35 dof. */
int bench_humanoid_mbs(mbs_model **out)
{
    segment t[32];
    int ids[32];
    int n = humanoid_segments(t);
    mbs_builder *b = mbs_builder_create();
    if (!b)
        return MBS_ERR_NOMEM;
    int status = MBS_OK;
    for (int i = 0; i < n && status >= 0; ++i) {
        ids[i] = add_segment(b, &t[i], ids);
        status = ids[i] < 0 ? ids[i] : MBS_OK;
    }
    return compile_or_report(b, status, out);
}

/* ---------------------------------------------------------------- states */

/* Seeded random states: q from neutral moved by a random v over 1 s, v and a uniform. */
int bench_states_make(const mbs_model *m, int nstate, uint64_t seed, bench_states *out)
{
    int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    memset(out, 0, sizeof *out);
    out->nstate = nstate;
    out->nq = nq;
    out->nv = nv;
    out->q = malloc(sizeof(double) * (size_t)(nstate * nq + 1));
    out->v = malloc(sizeof(double) * (size_t)(nstate * nv + 1));
    out->a = malloc(sizeof(double) * (size_t)(nstate * nv + 1));
    double *q0 = malloc(sizeof(double) * (size_t)(nq + 1));
    double *dq = malloc(sizeof(double) * (size_t)(nv + 1));
    int status = (out->q && out->v && out->a && q0 && dq) ? mbs_neutral_q(m, q0) : MBS_ERR_NOMEM;
    bench_rng rng;
    bench_rng_seed(&rng, seed);
    for (int s = 0; s < nstate && status == MBS_OK; ++s) {
        for (int i = 0; i < nv; ++i) {
            dq[i] = bench_uniform(&rng, -1.0, 1.0);
            out->v[s * nv + i] = bench_uniform(&rng, -1.0, 1.0);
            out->a[s * nv + i] = bench_uniform(&rng, -1.0, 1.0);
        }
        status = mbs_integrate_q(m, q0, dq, 1.0, out->q + (size_t)s * (size_t)nq);
    }
    free(q0);
    free(dq);
    if (status != MBS_OK)
        bench_states_free(out);
    return status;
}

/* Free the arrays of a state set. */
/* See bench_common.h. */
int bench_states_load(const bench_states *s, int k, mbs_data *d)
{
    const int i = k % s->nstate;
    memcpy(mbs_data_q(d), s->q + (size_t)i * (size_t)s->nq, sizeof(double) * (size_t)s->nq);
    memcpy(mbs_data_v(d), s->v + (size_t)i * (size_t)s->nv, sizeof(double) * (size_t)s->nv);
    memcpy(mbs_data_tau(d), s->a + (size_t)i * (size_t)s->nv, sizeof(double) * (size_t)s->nv);
    return i;
}

void bench_states_free(bench_states *s)
{
    free(s->q);
    free(s->v);
    free(s->a);
    s->q = s->v = s->a = NULL;
}

/* ---------------------------------------------------------------- mbs ABA reference */

typedef struct aba_ctx {
    mbs_data *d;
    const bench_states *s;
} aba_ctx;

/* Load state k and run mbs forward dynamics. */
static int aba_call(void *ctx, int k)
{
    aba_ctx *c = ctx;
    const bench_states *s = c->s;
    int i = k % s->nstate;
    memcpy(mbs_data_q(c->d), s->q + (size_t)i * (size_t)s->nq, sizeof(double) * (size_t)s->nq);
    memcpy(mbs_data_v(c->d), s->v + (size_t)i * (size_t)s->nv, sizeof(double) * (size_t)s->nv);
    return mbs_forward_dynamics(c->d);
}

/* Median ns per mbs_forward_dynamics call on the states s. */
double bench_mbs_aba_ns(const mbs_model *m, const bench_states *s, const bench_opts *opts)
{
    aba_ctx c = {mbs_data_create(m), s};
    if (!c.d)
        return -1.0;
    double ns = bench_time(aba_call, &c, opts);
    if (ns < 0)
        fprintf(stderr, "mbs_forward_dynamics failed: %s\n", mbs_data_error(c.d));
    mbs_data_destroy(c.d);
    return ns;
}

/* mbs qacc of state k with zero tau. */
int bench_mbs_qacc(const mbs_model *m, const bench_states *s, int k, double *qacc)
{
    mbs_data *d = mbs_data_create(m);
    if (!d)
        return MBS_ERR_NOMEM;
    aba_ctx c = {d, s};
    int status = aba_call(&c, k);
    if (status == MBS_OK)
        memcpy(qacc, mbs_data_qacc(d), sizeof(double) * (size_t)s->nv);
    else
        fprintf(stderr, "mbs_forward_dynamics failed: %s\n", mbs_data_error(d));
    mbs_data_destroy(d);
    return status;
}

/* Largest difference relative to the reference's scale. */
double bench_rel_diff(const double *a, const double *b, int n)
{
    double diff = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
        if (fabs(a[i] - b[i]) > diff)
            diff = fabs(a[i] - b[i]);
        if (fabs(b[i]) > scale)
            scale = fabs(b[i]);
    }
    return diff / (1.0 + scale);
}

/* ---------------------------------------------------------------- comparisons */

/* Time one chain size with o and with mbs and print the row; 0 or -1. */
static int compare_row(const bench_other *o, int n, const bench_opts *opts)
{
    bench_link *links = malloc(sizeof(bench_link) * (size_t)n);
    double *ref = malloc(sizeof(double) * (size_t)n), *acc = malloc(sizeof(double) * (size_t)n);
    mbs_model *m = NULL;
    bench_states s = {0, 0, 0, NULL, NULL, NULL};
    void *ctx = NULL;
    int ok = links && ref && acc;
    if (ok) {
        bench_chain_links(n, BENCH_CHAIN_SEED, links);
        ok = bench_chain_mbs(n, links, NULL, NULL, &m) == MBS_OK &&
             bench_states_make(m, 64, 2000u + (uint64_t)n, &s) == MBS_OK &&
             (ctx = o->create(n, links, &s)) != NULL;
    }
    ok = ok && bench_mbs_qacc(m, &s, 0, ref) == MBS_OK && o->qacc(ctx, 0, acc) == 0;
    if (ok) {
        double diff = bench_rel_diff(acc, ref, n);
        double other = bench_time(o->call, ctx, opts);
        double mine = other < 0 ? -1.0 : bench_mbs_aba_ns(m, &s, opts);
        ok = other >= 0 && mine >= 0;
        if (ok)
            printf("%6d | %11.0f %8.1f | %11.0f %8.1f | %7.2f | %9.1e\n", n, other,
                   other / n, mine, mine / n, other / mine, diff);
        fflush(stdout);
    }
    if (ctx)
        o->destroy(ctx);
    bench_states_free(&s);
    mbs_model_destroy(m);
    free(links);
    free(ref);
    free(acc);
    return ok ? 0 : -1;
}

/* Comparison table over the four chain sizes. */
int bench_compare(const bench_other *o, int argc, char **argv)
{
    static const int sizes[4] = {7, 30, 100, 1000};
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0)
        return 2;
    printf("%s vs mbs ABA (mbs_forward_dynamics) on the same revolute chain;\n"
           "median ns per call of %d batches of ~%.0f ms, state copied in each call;\n"
           "qacc diff = max |qacc_other - qacc_mbs| / (1 + max |qacc_mbs|) on one state\n",
           o->name, opts.reps, 1e3 * opts.batch_s);
    bench_print_machine();
    printf("\n");
    printf("%6s | %11s %8s | %11s %8s | %7s | %9s\n", "links", "other ns", "/body",
           "mbs ns", "/body", "ratio", "qacc diff");
    int fail = 0;
    for (int i = 0; i < 4; ++i)
        fail |= compare_row(o, sizes[i], &opts);
    return fail ? 1 : 0;
}
