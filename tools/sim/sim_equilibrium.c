/* `mbs-sim equilibrium NAME|FILE`: the static equilibrium of a mechanism from its initial
 * state (mbs_equilibrium: damped Newton on the generalized forces with the loops closed), as
 * a table of coordinates before and after, with the accelerations left at rest as the
 * residual. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Load, compile, create data (at the file's start values) and close its loops; the model
   and data are the caller's to destroy (also on failure). */
static int eq_setup(const mech *m, mbs_model **model, mbs_data **d, char *err, size_t n)
{
    mbs_builder *b = mbs_builder_create();
    char msg[2048] = "";
    int st = b ? sim_load(b, m->path, NULL, msg, sizeof msg) : MBS_ERR_NOMEM;
    if (st >= 0) st = mbs_compile(b, model);
    if (st < 0)
        snprintf(err, n, "build: %s: %s", mbs_status_name(st), !b ? "out of memory" : msg[0] ? msg : mbs_builder_error(b));
    mbs_builder_destroy(b);
    if (st < 0) return st;
    *d = mbs_data_create(*model);
    if (!*d) {
        snprintf(err, n, "data: out of memory");
        return MBS_ERR_NOMEM;
    }
    st = mbs_model_ncon(*model) > 0 ? mbs_assemble(*d) : MBS_OK;
    if (st < 0) snprintf(err, n, "initial state: %s: %s", mbs_status_name(st), mbs_data_error(*d));
    return st < 0 ? st : MBS_OK;
}

/* "<joint>" or "<joint>.<k>" (joint named "j<id>" when unnamed). */
static void coord_label(const mbs_model *m, int j, int k, int nq, char *buf, size_t n)
{
    const char *name = mbs_model_joint_name(m, j);
    char jn[80];
    if (name && name[0])
        snprintf(jn, sizeof jn, "%s", name);
    else
        snprintf(jn, sizeof jn, "j%d", j);
    if (nq == 1)
        snprintf(buf, n, "%s", jn);
    else
        snprintf(buf, n, "%s.%d", jn, k);
}

/* The table: one row per coordinate of every tree joint, start and equilibrium values. */
static void print_table(FILE *f, const mbs_model *m, const double *q0, const double *q)
{
    fprintf(f, "  %-24s %16s %18s\n", "coordinate", "start", "equilibrium");
    for (int j = 0; j < mbs_model_njoint(m); ++j) {
        const int nq = mbs_model_joint_nq(m, j), adr = mbs_model_joint_qadr(m, j);
        for (int k = 0; k < nq; ++k) {
            char lbl[112];
            coord_label(m, j, k, nq, lbl, sizeof lbl);
            fprintf(f, "  q.%-22s %16.10g %18.12g\n", lbl, q0[adr + k], q[adr + k]);
        }
    }
}

/* Largest |qacc| of forward dynamics at the data's state (v = 0): the residual. */
static int rest_acceleration(mbs_data *d, double *amax)
{
    const int st = mbs_forward_dynamics(d);
    if (st != MBS_OK) return st;
    const double *a = mbs_data_qacc(d);
    *amax = 0.0;
    for (int i = 0; i < mbs_model_nv(mbs_data_model(d)); ++i) *amax = fmax(*amax, fabs(a[i]));
    return MBS_OK;
}

/* See sim.h. */
int sim_equilibrium(const mech *m, FILE *f, char *err, size_t n)
{
    mbs_model *model = NULL;
    mbs_data *d = NULL;
    int st = eq_setup(m, &model, &d, err, n);
    const int nq = model ? mbs_model_nq(model) : 0;
    double *q0 = st == MBS_OK ? malloc(sizeof(double) * (size_t)(nq + 1)) : NULL;
    if (st == MBS_OK && !q0) st = MBS_ERR_NOMEM, snprintf(err, n, "out of memory");
    if (st == MBS_OK) {
        memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
        st = mbs_equilibrium(d, NULL);
        if (st != MBS_OK)
            snprintf(err, n, "no equilibrium found: %s: %s", mbs_status_name(st), mbs_data_error(d));
    }
    double amax = 0.0;
    if (st == MBS_OK && (st = rest_acceleration(d, &amax)) != MBS_OK)
        snprintf(err, n, "forward dynamics: %s: %s", mbs_status_name(st), mbs_data_error(d));
    if (st == MBS_OK) {
        fprintf(f, "%s: static equilibrium from the initial state (v = 0)\n  %s\n", m->name, m->title);
        print_table(f, model, q0, mbs_data_q(d));
        fprintf(f, "residual: largest |qacc| at rest %.3g (rad/s^2 or m/s^2)\n", amax);
        fprintf(f, "method: damped Newton on the generalized forces with the loops closed, Jacobian\n"
                   "by central differences (Docquier, Poncelet, Fisette 2013, \"ROBOTRAN: a powerful\n"
                   "symbolic generator of multibody models\", §4.3.1)\n");
    }
    free(q0);
    mbs_data_destroy(d);
    mbs_model_destroy(model);
    return st;
}
