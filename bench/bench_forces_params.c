/* Point masses, two-frame forces and user line laws: what a force between two frames, a user line law and a point mass
 * cost in forward dynamics, what a parameter change costs, and what a CVODES sensitivity
 * run costs against the plain CVODE run of the same motion.
 *
 *   ./build/bench/bench_forces_params [--quick] [--cpu-time]
 *
 * Table 1: the 30-link chain of bench_dynamics with 30 elements of one kind, each between
 * link i and link i+1 (the last to the world): ns per forward-dynamics call and the extra ns
 * per element against the chain alone. Table 2: 30 point masses hanging 0.2 m below
 * spherical joints at the link ends (swing joints, 2 dofs each) against the same bobs with a
 * small inertia (full spherical joints, 3 dofs). Table 3: one mbs_model_set_param call.
 * Table 4: 1 s of the 7-link chain by CVODES with np sensitivities against a CVODE stepper
 * (Adams, rtol 1e-8): ms per run. */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLINK 30

enum { EL_NONE, EL_SPRING, EL_LAW, EL_FRAME, EL_FRAME_FN, EL_COUNT };
static const char *const EL_NAMES[EL_COUNT] = {"chain alone", "spring-damper", "user line law",
                                               "frame force (input)", "frame force (callback)"};

/* k (L - L0) + d dL/dt, the spring-damper's law. */
static int linear_law(double L, double rate, double t, double *tension, void *user)
{
    (void)t, (void)user;
    *tension = 50.0 * (L - 0.3) + 0.5 * rate;
    return 0;
}

/* A constant value from a callback. */
static int frame_value(mbs_data *d, double t, double force[3], double torque[3], void *user)
{
    (void)d, (void)t, (void)user;
    force[0] = 1.0, force[1] = 0.5, force[2] = -0.2;
    torque[0] = 0.1, torque[1] = torque[2] = 0.0;
    return 0;
}

/* One element of kind k between link i and the next link (the world after the last). */
static int add_element(mbs_builder *b, int kind, int i, int n, const bench_link *links)
{
    const int a = i + 1, c = i + 1 < n ? i + 2 : MBS_WORLD;
    const double pa[3] = {links[i].length, 0.0, 0.0}, pc[3] = {0.05, 0.02, 0.0};
    if (kind == EL_SPRING || kind == EL_LAW) {
        if (kind == EL_SPRING) {
            mbs_spring_damper_def sd = mbs_default_spring_damper_def();
            sd.body_a = a, sd.body_b = c, sd.stiffness = 50.0, sd.damping = 0.5, sd.rest_length = 0.3;
            memcpy(sd.point_a, pa, sizeof pa), memcpy(sd.point_b, pc, sizeof pc);
            return mbs_add_spring_damper(b, &sd);
        }
        mbs_line_force_def ld = mbs_default_line_force_def();
        ld.body_a = a, ld.body_b = c, ld.law = linear_law;
        memcpy(ld.point_a, pa, sizeof pa), memcpy(ld.point_b, pc, sizeof pc);
        return mbs_add_line_force(b, &ld);
    }
    mbs_frame_force_def fd = mbs_default_frame_force_def();
    fd.body_a = c, fd.body_b = a, fd.force[1] = 1.0, fd.torque[2] = 0.1;
    memcpy(fd.frame_b.pos, pa, sizeof pa);
    if (kind == EL_FRAME_FN) fd.fn = frame_value;
    return mbs_add_frame_force(b, &fd);
}

/* The chain of n links with bodies in order; point masses below each link end when bobs
   (inertia diag(bob_inertia) each: 0 makes them point masses), elements of one kind. */
static mbs_model *chain(int n, const bench_link *links, int kind, int bobs, double bob_inertia)
{
    mbs_builder *b = mbs_builder_create();
    int st = MBS_OK;
    for (int i = 0; i < n && st >= 0; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = links[i].mass;
        memcpy(bd.com, links[i].com, sizeof bd.com);
        memset(bd.inertia, 0, sizeof bd.inertia);
        for (int k = 0; k < 3; ++k) bd.inertia[4 * k] = links[i].inertia[k];
        st = mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i == 0 ? MBS_WORLD : i, jd.child = i + 1;
        jd.frame_parent.pos[0] = i == 0 ? 0.0 : links[i - 1].length;
        jd.axis[2] = 0.0, jd.axis[links[i].axis] = 1.0;
        if (st >= 0) st = mbs_add_joint(b, &jd);
    }
    for (int i = 0; i < n && bobs && st >= 0; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = 0.3;
        for (int k = 0; k < 9; ++k) bd.inertia[k] = k % 4 == 0 ? bob_inertia : 0.0;
        const int bob = mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_SPHERICAL);
        jd.parent = i + 1, jd.child = bob;
        jd.frame_parent.pos[0] = links[i].length;
        jd.frame_child.pos[2] = 0.2;
        st = bob < 0 ? bob : mbs_add_joint(b, &jd);
    }
    for (int i = 0; i < n && kind != EL_NONE && st >= 0; ++i) st = add_element(b, kind, i, n, links);
    mbs_model *m = NULL;
    if (st >= 0) st = mbs_compile(b, &m);
    if (st < 0) fprintf(stderr, "bench_forces_params: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

typedef struct ctx {
    mbs_data *d;
    mbs_model *m;
    bench_states s;
    mbs_param p;
} ctx;

/* Forward dynamics of state k. */
static int call_forward(void *user, int k)
{
    ctx *c = user;
    const int i = k % c->s.nstate;
    memcpy(mbs_data_q(c->d), c->s.q + (size_t)i * (size_t)c->s.nq, (size_t)c->s.nq * sizeof(double));
    memcpy(mbs_data_v(c->d), c->s.v + (size_t)i * (size_t)c->s.nv, (size_t)c->s.nv * sizeof(double));
    return mbs_forward_dynamics(c->d);
}

/* One parameter change (alternating values). */
static int call_set_param(void *user, int k)
{
    ctx *c = user;
    return mbs_model_set_param(c->m, &c->p, (k & 1) ? 1.5 : 1.25);
}

/* Median ns per forward-dynamics call of model m. */
static double time_forward(mbs_model *m, const bench_opts *opts)
{
    ctx c = {.m = m};
    c.d = mbs_data_create(m);
    if (!c.d || bench_states_make(m, 64, 7, &c.s) != MBS_OK) return -1.0;
    const double t = bench_time(call_forward, &c, opts);
    bench_states_free(&c.s);
    mbs_data_destroy(c.d);
    return t;
}

/* Table 1. */
static int table_elements(const bench_link *links, const bench_opts *opts)
{
    printf("\nchain %d with %d force elements of one kind, forward dynamics\n", NLINK, NLINK);
    printf("%-24s | %10s | %14s\n", "element", "ns / call", "ns / element");
    double base = 0.0;
    for (int kind = 0; kind < EL_COUNT; ++kind) {
        mbs_model *m = chain(NLINK, links, kind, 0, 0.0);
        if (!m) return 1;
        const double t = time_forward(m, opts);
        if (t < 0) return 1;
        if (kind == EL_NONE) base = t;
        printf("%-24s | %10.0f | %14.1f\n", EL_NAMES[kind], t, (t - base) / NLINK);
        mbs_model_destroy(m);
    }
    return 0;
}

/* Table 2. */
static int table_point_masses(const bench_link *links, const bench_opts *opts)
{
    printf("\nchain %d with a bob on a spherical joint at every link end, forward dynamics\n", NLINK);
    printf("%-34s | %5s | %10s\n", "bobs", "nv", "ns / call");
    const double inertia[2] = {0.0, 1e-4};
    const char *const names[2] = {"point masses (swing joints, 2 dof)", "rigid, I = 1e-4 (spherical, 3 dof)"};
    for (int k = 0; k < 2; ++k) {
        mbs_model *m = chain(NLINK, links, EL_NONE, 1, inertia[k]);
        if (!m) return 1;
        const double t = time_forward(m, opts);
        if (t < 0) return 1;
        printf("%-34s | %5d | %10.0f\n", names[k], mbs_model_nv(m), t);
        mbs_model_destroy(m);
    }
    return 0;
}

/* Table 3. */
static int table_set_param(const bench_link *links, const bench_opts *opts)
{
    printf("\nparameter change on the compiled chain %d\n", NLINK);
    printf("%-34s | %10s\n", "call", "ns / call");
    mbs_model *m = chain(NLINK, links, EL_SPRING, 0, 0.0);
    if (!m) return 1;
    const mbs_param ps[2] = {{MBS_PARAM_MASS, 15, 0}, {MBS_PARAM_STIFFNESS, 15, 0}};
    const char *const names[2] = {"set_param mass (body 15)", "set_param stiffness (element 15)"};
    for (int k = 0; k < 2; ++k) {
        ctx c = {.m = m, .p = ps[k]};
        const double t = bench_time(call_set_param, &c, opts);
        if (t < 0) return 1;
        printf("%-34s | %10.0f\n", names[k], t);
    }
    mbs_model_destroy(m);
    return 0;
}

/* Seconds of one 1 s run of m from a fixed state: np sensitivities, or a stepper (np 0). */
static double time_run(mbs_model *m, int np, const mbs_param *params)
{
    mbs_data *d = mbs_data_create(m);
    for (int i = 0; i < mbs_model_nq(m); ++i) mbs_data_q(d)[i] = 0.2 * (i % 3) - 0.1;
    const double t0 = bench_now();
    int st;
    if (np > 0) {
        mbs_sens_def sd = mbs_default_sens_def();
        mbs_sens *s = NULL;
        st = mbs_sens_create(m, d, params, np, &sd, &s);
        if (st == MBS_OK) st = mbs_sens_run(s, 1.0);
        mbs_sens_destroy(s);
    } else {
        mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_CVODE_ADAMS);
        sd.rtol = 1e-8, sd.atol = 1e-10;
        mbs_stepper *s = mbs_stepper_create(d, &sd);
        st = s ? mbs_stepper_step(s, 1.0) : MBS_ERR_SOLVER;
        mbs_stepper_destroy(s);
    }
    const double t = bench_now() - t0;
    if (st != MBS_OK) fprintf(stderr, "bench_forces_params: %s\n", mbs_data_error(d));
    mbs_data_destroy(d);
    return st == MBS_OK ? t : -1.0;
}

/* Table 4: the median of reps runs each. */
static int table_sensitivities(const bench_link *links, const bench_opts *opts)
{
    printf("\n1 s of chain 7 by CVODE Adams (rtol 1e-8): ms per run (median of %d)\n", opts->reps);
    printf("%-34s | %10s | %7s\n", "run", "ms", "ratio");
    mbs_model *m = chain(7, links, EL_NONE, 0, 0.0);
    if (!m) return 1;
    const mbs_param ps[4] = {{MBS_PARAM_MASS, 3, 0}, {MBS_PARAM_COM, 5, 0},
                             {MBS_PARAM_INERTIA, 2, 8}, {MBS_PARAM_GRAVITY, 0, 2}};
    const int nps[4] = {0, 1, 2, 4};
    double base = 0.0, t[64];
    for (int k = 0; k < 4; ++k) {
        const int reps = opts->reps < 64 ? opts->reps : 64;
        for (int r = 0; r < reps; ++r)
            if ((t[r] = time_run(m, nps[k], ps)) < 0) return 1;
        for (int a = 1; a < reps; ++a) /* insertion sort for the median */
            for (int b = a; b > 0 && t[b] < t[b - 1]; --b) {
                const double x = t[b];
                t[b] = t[b - 1], t[b - 1] = x;
            }
        const double med = t[reps / 2] * 1e3;
        if (k == 0) base = med;
        char name[48];
        if (k == 0) snprintf(name, sizeof name, "stepper, no sensitivities");
        else snprintf(name, sizeof name, "CVODES, %d sensitivit%s", nps[k], nps[k] > 1 ? "ies" : "y");
        printf("%-34s | %10.2f | %6.1fx\n", name, med, med / base);
    }
    mbs_model_destroy(m);
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_forces_params [--quick] [--cpu-time]\n");
        return 2;
    }
    bench_link links[NLINK];
    bench_chain_links(NLINK, BENCH_CHAIN_SEED, links);
    bench_print_machine();
    int st = table_elements(links, &opts);
    if (!st) st = table_point_masses(links, &opts);
    if (!st) st = table_set_param(links, &opts);
    if (!st) st = table_sensitivities(links, &opts);
    return st;
}
