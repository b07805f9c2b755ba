/* Derivatives of the closed-loop forward dynamics (mbs_forward_dynamics_derivatives with cut
 * joints: dqacc/du, dqacc/du', dqacc/dtau) against one closed-loop forward dynamics
 * (mbs_forward_dynamics) at the same closed state: the four-bar (planar path, and the 3-D
 * path with Newton's partition), the V6 engine of models/engine_v6.xml (closed forms and
 * Newton) and the inline six. Prints ns per call and the ratio; the target is at most 10. */
#include "bench_common.h"
#include "loop_mechanisms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ctx {
    mbs_data *d;
    double *A, *B, *C; /* nv x nv each */
} ctx;

static int call_fd(void *p, int k)
{
    (void)k;
    return mbs_forward_dynamics(((ctx *)p)->d);
}

static int call_derivs(void *p, int k)
{
    (void)k;
    ctx *c = p;
    return mbs_forward_dynamics_derivatives(c->d, c->A, c->B, c->C);
}

/* Time both calls at the data's state (closed first) and print one line. */
static int run(const char *name, mbs_model *m, mbs_data *d, const bench_opts *o)
{
    const size_t n2 = (size_t)mbs_model_nv(m) * (size_t)mbs_model_nv(m);
    ctx c = {d, malloc(3 * n2 * sizeof(double)), NULL, NULL};
    if (!c.A) return 1;
    c.B = c.A + n2, c.C = c.A + 2 * n2;
    int rc = mbs_assemble(d);
    if (rc == MBS_OK) rc = call_derivs(&c, 0);
    if (rc != MBS_OK) {
        fprintf(stderr, "%s: %s\n", name, mbs_data_error(d));
        free(c.A);
        return 1;
    }
    const double tf = bench_time(call_fd, &c, o), td = bench_time(call_derivs, &c, o);
    printf("%-30s nv %2d ncon %2d  forward dynamics %8.0f ns  derivatives %8.0f ns  "
           "ratio %5.2f\n", name, mbs_model_nv(m), mbs_model_ncon(m), tf, td, td / tf);
    free(c.A);
    return tf < 0 || td < 0;
}

/* The default four-bar at crank angle 0.7 rad, rate 1.3 rad/s. */
static int fourbar(const char *name, const bench_opts *o)
{
    lm_fourbar p = lm_default_fourbar();
    lm_mech mech;
    if (lm_build_fourbar(&p, &mech) != MBS_OK) return fprintf(stderr, "%s\n", mech.error), 1;
    mbs_data *d = mbs_data_create(mech.model);
    double th[3] = {0.7, 0, 0}, w[3] = {1.3, 0, 0}, al[3];
    lm_fourbar_position(&p, th[0], 1, &th[1], &th[2]);
    lm_fourbar_rates(&p, th, w[0], 0.0, w, al);
    lm_fourbar_set(&p, &mech, d, th, w);
    const int rc = run(name, mech.model, d, o);
    mbs_data_destroy(d);
    lm_mech_free(&mech);
    return rc;
}

/* models/engine_v6.xml at its start values, closed as the builder says. */
static int engine_v6(const char *name, mbs_closure closure, const bench_opts *o)
{
    mbs_builder *b = mbs_builder_create();
    mbs_model *m = NULL;
    int rc = mbs_builder_set_closure(b, closure);
    if (rc == MBS_OK) rc = lm_load_model(b, "engine_v6");
    if (rc == MBS_OK) rc = mbs_compile(b, &m);
    if (rc != MBS_OK) fprintf(stderr, "engine_v6: %s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    if (rc != MBS_OK) return 1;
    mbs_data *d = mbs_data_create(m);
    rc = run(name, m, d, o);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return rc;
}

int main(int argc, char **argv)
{
    bench_opts o;
    if (bench_parse_args(argc, argv, &o) != 0) return 2;
    bench_print_machine();
    int rc = fourbar("four-bar (planar path)", &o);
    lm_set_planar(MBS_PLANAR_OFF);
    lm_set_closure(MBS_CLOSURE_NEWTON);
    rc |= fourbar("four-bar (3-D, Newton)", &o);
    lm_set_planar(MBS_PLANAR_AUTO);
    lm_set_closure(MBS_CLOSURE_ANALYTIC);
    rc |= engine_v6("V6 engine (closed forms)", MBS_CLOSURE_ANALYTIC, &o);
    rc |= engine_v6("V6 engine (Newton)", MBS_CLOSURE_NEWTON, &o);
    lm_mech mech;
    if (lm_build_engine6(&mech) == MBS_OK) {
        mbs_data *d = mbs_data_create(mech.model);
        lm_engine_set(&mech, 6, 0.4, 25.0, d);
        rc |= run("inline six (closed forms)", mech.model, d, &o);
        mbs_data_destroy(d);
        lm_mech_free(&mech);
    }
    return rc;
}
