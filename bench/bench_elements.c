/* bench_elements: the cost of the Modelica modelling elements in forward dynamics:
   the revolute chain of bench_common (30 links) with a rotor on every joint -- housed by the
   joint's parent (inside ABA), by the world, by the joint's child (the general inertial
   coupling) -- and with a line spring from the world to the tip and between two links, with
   and without its point mass; springs in series through nodes against one spring. ns per
   mbs_forward_dynamics call (median of batches) and the ratio to the same model without the
   element. Usage: bench_elements [--quick] [--cpu-time] */
#include <stdio.h>
#include <string.h>

#include "bench_common.h"

#define N 30

typedef struct el_case {
    mbs_data *d;
    bench_states s;
} el_case;

/* Forward dynamics at state k of the case. */
static int call_fd(void *ctx, int k)
{
    el_case *c = ctx;
    const int i = k % c->s.nstate;
    memcpy(mbs_data_q(c->d), c->s.q + (size_t)i * (size_t)c->s.nq, sizeof(double) * (size_t)c->s.nq);
    memcpy(mbs_data_v(c->d), c->s.v + (size_t)i * (size_t)c->s.nv, sizeof(double) * (size_t)c->s.nv);
    memcpy(mbs_data_tau(c->d), c->s.a + (size_t)i * (size_t)c->s.nv, sizeof(double) * (size_t)c->s.nv);
    return mbs_forward_dynamics(c->d);
}

/* The chain; rotors: 0 none, 1 parent, 2 world, 3 child housing; line: 0 none, 1 world to
   the tip, 2 link 10 to link 25; mass: the line's point mass. */
static mbs_model *chain(int rotors, int line, double mass)
{
    bench_link links[N];
    bench_chain_links(N, BENCH_CHAIN_SEED, links);
    mbs_builder *b = mbs_builder_create();
    const double g[3] = {0.0, 0.0, -9.81};
    mbs_builder_set_gravity(b, g);
    for (int i = 0; i < N; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = links[i].mass;
        memcpy(bd.com, links[i].com, sizeof bd.com);
        for (int k = 0; k < 9; ++k) bd.inertia[k] = 0.0;
        for (int k = 0; k < 3; ++k) bd.inertia[4 * k] = links[i].inertia[k];
        const int body = mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i == 0 ? MBS_WORLD : body - 1, jd.child = body;
        jd.frame_parent.pos[0] = i == 0 ? 0.0 : links[i - 1].length;
        jd.axis[0] = 0.0, jd.axis[1] = links[i].axis == 1, jd.axis[2] = links[i].axis == 2;
        const int j = mbs_add_joint(b, &jd);
        if (rotors) {
            mbs_rotor_def r = mbs_default_rotor_def();
            r.joint = j, r.inertia = 1e-4, r.ratio = 50.0;
            r.housing = rotors == 1 ? jd.parent : rotors == 2 ? MBS_WORLD : body;
            memcpy(r.axis, jd.axis, sizeof r.axis);
            mbs_add_rotor(b, &r);
        }
    }
    if (line) {
        mbs_spring_damper_def s = mbs_default_spring_damper_def();
        s.body_a = line == 1 ? MBS_WORLD : 10, s.body_b = line == 1 ? N : 25;
        s.point_a[1] = 0.3, s.point_b[0] = 0.1, s.stiffness = 50, s.damping = 1, s.rest_length = 0.2;
        s.mass = mass, s.mass_fraction = 0.4;
        mbs_add_spring_damper(b, &s);
    }
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) fprintf(stderr, "compile: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* Three springs in series through two nodes pulling the chain's tip (nodes = 1), or one
   spring of the series stiffness (nodes = 0). */
static mbs_model *series(int nodes)
{
    mbs_model *m = NULL;
    mbs_builder *b = mbs_builder_create();
    bench_link links[N];
    bench_chain_links(N, BENCH_CHAIN_SEED, links);
    for (int i = 0; i < N; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = links[i].mass;
        memcpy(bd.com, links[i].com, sizeof bd.com);
        const int body = mbs_add_body(b, &bd);
        mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        jd.parent = i == 0 ? MBS_WORLD : body - 1, jd.child = body;
        jd.frame_parent.pos[0] = i == 0 ? 0.0 : links[i - 1].length;
        jd.axis[0] = 0.0, jd.axis[1] = links[i].axis == 1, jd.axis[2] = links[i].axis == 2;
        mbs_add_joint(b, &jd);
    }
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    s.point_a[1] = 3.0;
    if (!nodes) {
        s.body_b = N, s.stiffness = 1.0 / (1 / 100.0 + 1 / 200.0 + 1 / 300.0), s.rest_length = 0.6;
        mbs_add_spring_damper(b, &s);
    } else {
        mbs_body_def nd = mbs_default_body_def();
        nd.mass = 0.0;
        memset(nd.inertia, 0, sizeof nd.inertia);
        const int n1 = mbs_add_body(b, &nd), n2 = mbs_add_body(b, &nd);
        const int ends[4] = {MBS_WORLD, n1, n2, N};
        const double k[3] = {100, 200, 300};
        for (int i = 0; i < 3; ++i) {
            s.body_a = ends[i], s.body_b = ends[i + 1], s.stiffness = k[i], s.rest_length = 0.2;
            if (i > 0) s.point_a[1] = 0.0;
            mbs_add_spring_damper(b, &s);
        }
    }
    if (mbs_compile(b, &m) != MBS_OK) fprintf(stderr, "compile: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

/* ns per forward-dynamics call of m on 64 seeded states (negative on failure). */
static double time_model(mbs_model *m, const bench_opts *opts)
{
    el_case c;
    if (!m) return -1.0;
    c.d = mbs_data_create(m);
    if (!c.d || bench_states_make(m, 64, 11, &c.s) != 0) return -1.0;
    for (int i = 0; i < c.s.nstate * c.s.nv; ++i) c.s.v[i] *= 0.2; /* keep springs sane */
    const double ns = bench_time(call_fd, &c, opts);
    bench_states_free(&c.s);
    mbs_data_destroy(c.d);
    mbs_model_destroy(m);
    return ns;
}

/* One table row: the element's model against the base one. */
static int row(const char *label, double base, double with)
{
    printf("%-44s | %9.0f %9.0f | %6.2fx %+8.0f\n", label, base, with, with / base, with - base);
    return base < 0.0 || with < 0.0;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_elements [--quick] [--cpu-time]\n");
        return 2;
    }
    bench_print_machine();
    printf("forward dynamics, revolute chain of %d links: ns per call\n", N);
    printf("%-44s | %9s %9s | %7s %8s\n", "element", "without", "with", "ratio", "extra");
    const double base = time_model(chain(0, 0, 0.0), &opts);
    int bad = 0;
    bad |= row("rotor per joint, housed by the parent (ABA)", base, time_model(chain(1, 0, 0.0), &opts));
    bad |= row("rotor per joint, housed by the world (ABA)", base, time_model(chain(2, 0, 0.0), &opts));
    bad |= row("rotor per joint, housed by the child (30 rows)", base, time_model(chain(3, 0, 0.0), &opts));
    const double line1 = time_model(chain(0, 1, 0.0), &opts);
    bad |= row("line world-tip: point mass 0.5 kg vs none", line1, time_model(chain(0, 1, 0.5), &opts));
    const double line2 = time_model(chain(0, 2, 0.0), &opts);
    bad |= row("line link 10-link 25: point mass vs none", line2, time_model(chain(0, 2, 0.5), &opts));
    bad |= row("3 springs in series (2 nodes) vs 1 spring", time_model(series(0), &opts),
               time_model(series(1), &opts));
    return bad;
}
