/* mbs-sim modes NAME | mbs-sim linearize NAME --out A.csv: the state-space model of a
 * model (a shipped one or any model file) about its initial state (or at rest), by
 * mbs_linearize and mbs_modes, as a table of modes or a CSV of A (and B). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define SIM_PI 3.14159265358979323846

/* "<what>: <STATUS>: <message>" into err; returns st. */
static int lin_fail(int st, const char *what, const char *msg, char *err, size_t n)
{
    snprintf(err, n, "%s: %s: %s", what, mbs_status_name(st), msg && msg[0] ? msg : "-");
    return st;
}

/* Load, compile and create the data at the file's start values (loops assembled); at_rest:
   v = 0 first. */
static int setup(const mech *m, int at_rest, sim_linear *s, char *err, size_t n)
{
    memset(s, 0, sizeof *s);
    mbs_builder *b = mbs_builder_create();
    if (!b) return lin_fail(MBS_ERR_NOMEM, "build", "out of memory", err, n);
    char msg[2048] = "";
    int st = sim_load(b, m->path, NULL, msg, sizeof msg);
    if (st >= 0) st = mbs_compile(b, &s->model);
    if (st < 0) lin_fail(st, "build", msg[0] ? msg : mbs_builder_error(b), err, n);
    mbs_builder_destroy(b);
    if (st < 0) return st;
    s->d = mbs_data_create(s->model);
    if (!s->d) return lin_fail(MBS_ERR_NOMEM, "data", "out of memory", err, n);
    if (at_rest) memset(mbs_data_v(s->d), 0, sizeof(double) * (size_t)mbs_model_nv(s->model));
    if (mbs_model_ncon(s->model) > 0 && (st = mbs_assemble(s->d)) < 0)
        return lin_fail(st, "assembly", mbs_data_error(s->d), err, n);
    return MBS_OK;
}

void sim_linear_free(sim_linear *s)
{
    free(s->A);
    free(s->B);
    free(s->re);
    free(s->im);
    mbs_data_destroy(s->d);
    mbs_model_destroy(s->model);
    memset(s, 0, sizeof *s);
}

/* See sim.h. */
int sim_linear_run(const mech *m, int at_rest, int want_modes, sim_linear *s, char *err,
                   size_t n)
{
    int st = setup(m, at_rest, s, err, n);
    if (st < 0) return st;
    const size_t nv = (size_t)mbs_model_nv(s->model);
    const size_t nx = 2 * nv + (size_t)mbs_model_nuser_states(s->model); /* user states */
    s->A = calloc(nx * nx + 1, sizeof(double));
    s->B = calloc(nx * nv + 1, sizeof(double));
    s->re = calloc(nx + 1, sizeof(double));
    s->im = calloc(nx + 1, sizeof(double));
    if (!s->A || !s->B || !s->re || !s->im) return lin_fail(MBS_ERR_NOMEM, "linearize", "out of memory", err, n);
    st = mbs_linearize(s->d, s->A, s->B, &s->nx);
    if (st < 0) return lin_fail(st, "linearize", mbs_data_error(s->d), err, n);
    if (want_modes) {
        int count = (int)nx;
        st = mbs_modes(s->d, s->re, s->im, &count);
        if (st < 0) return lin_fail(st, "modes", mbs_data_error(s->d), err, n);
    }
    return MBS_OK;
}

/* Name of state coordinate k of the first half of x (joint name, ".k" for a multi-dof
   joint) into buf. */
static void coordinate_name(const sim_linear *s, int k, char *buf, size_t len)
{
    unsigned char *ind = calloc((size_t)mbs_model_nv(s->model) + 1, 1);
    int nd = 0, seen = -1;
    snprintf(buf, len, "x%d", k);
    if (!ind || mbs_linearize_coordinates(s->d, ind, &nd) != MBS_OK) {
        free(ind);
        return;
    }
    for (int i = 0; i < mbs_model_nv(s->model); ++i) {
        if (!ind[i] || ++seen != k) continue;
        for (int j = 0; j < mbs_model_njoint(s->model); ++j) {
            const int v0 = mbs_model_joint_vadr(s->model, j), nvj = mbs_model_joint_nv(s->model, j);
            if (v0 < 0 || i < v0 || i >= v0 + nvj) continue;
            const char *name = mbs_model_joint_name(s->model, j);
            char jn[64];
            snprintf(jn, sizeof jn, "%s", name && name[0] ? name : "joint");
            if (nvj > 1) snprintf(buf, len, "%s.%d", jn, i - v0);
            else snprintf(buf, len, "%s", jn);
        }
    }
    free(ind);
}

/* The modes table: one row per complex pair (the positive imaginary part) and per real
   eigenvalue, with the natural and damped frequencies in Hz and the damping ratio. */
void sim_linear_print_modes(FILE *f, const mech *m, const sim_linear *s, int at_rest)
{
    const int nd = s->nx / 2;
    fprintf(f, "%s: %s\n", m->name, m->title);
    fprintf(f, "linearised about %s (%d degree%s of freedom:", at_rest ? "its initial position at rest"
            : "its initial state", nd, nd == 1 ? "" : "s");
    for (int k = 0; k < nd && k < 8; ++k) {
        char name[80];
        coordinate_name(s, k, name, sizeof name);
        fprintf(f, " %s", name);
    }
    fprintf(f, "%s)\n", nd > 8 ? " ..." : "");
    double amax = 0.0, vmax = 0.0;
    for (int i = 0; i < mbs_model_nv(s->model); ++i)
        amax = fmax(amax, fabs(mbs_data_qacc(s->d)[i])), vmax = fmax(vmax, fabs(mbs_data_v(s->d)[i]));
    if (amax <= 1e-9 && vmax == 0.0)
        fprintf(f, "the state is an equilibrium (max |qacc| %.2g)\n\n", amax);
    else
        fprintf(f, "the state is not an equilibrium (max |v| %.3g, max |qacc| %.3g): the modes are "
                   "those of deviations from the motion through it\n\n", vmax, amax);
    fprintf(f, "%5s %14s %14s %12s %12s %10s\n", "mode", "Re [1/s]", "Im [1/s]", "f_n [Hz]",
            "f_d [Hz]", "zeta");
    int row = 0;
    for (int i = 0; i < s->nx; ++i) {
        const double re = s->re[i], im = s->im[i], mag = hypot(re, im);
        if (im < 0.0) continue; /* the conjugate of the row before */
        char zeta[32] = "-";
        if (mag > 1e-9) snprintf(zeta, sizeof zeta, "%.4g", -re / mag + 0.0); /* no -0 */
        fprintf(f, "%5d %14.6g %14.6g %12.6g %12.6g %10s\n", ++row, re, im, mag / (2.0 * SIM_PI),
                im / (2.0 * SIM_PI), zeta);
    }
    fprintf(f, "\nlambda = -zeta w_n +- i w_d: f_n = |lambda| / 2 pi, f_d = Im / 2 pi; zeta -1: "
               "a real unstable root, '-': a zero root (neutral coordinate)\n");
}

/* Write an nr x nc row-major matrix as CSV: a header of column names, then the rows. */
static int write_matrix(const char *path, const sim_linear *s, const double *X, int nr, int nc,
                        int state_cols, char *err, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, n, "cannot write %s", path);
        return SIM_ERR_IO;
    }
    const int nd = s->nx / 2;
    for (int j = 0; j < nc; ++j) {
        char name[80];
        if (state_cols) coordinate_name(s, j % nd, name, sizeof name);
        else snprintf(name, sizeof name, "tau%d", j);
        fprintf(f, "%s%s%s", state_cols ? (j < nd ? "dq." : "dv.") : "", name, j + 1 < nc ? "," : "\n");
    }
    for (int i = 0; i < nr; ++i)
        for (int j = 0; j < nc; ++j) fprintf(f, "%.17g%s", X[(size_t)i * (size_t)nc + (size_t)j], j + 1 < nc ? "," : "\n");
    if (fclose(f) != 0) {
        snprintf(err, n, "cannot write %s", path);
        return SIM_ERR_IO;
    }
    return MBS_OK;
}

/* See sim.h. */
int sim_linear_write(const sim_linear *s, const char *a_path, const char *b_path, char *err,
                     size_t n)
{
    int st = write_matrix(a_path, s, s->A, s->nx, s->nx, 1, err, n);
    if (st == MBS_OK && b_path)
        st = write_matrix(b_path, s, s->B, s->nx, mbs_model_nv(s->model), 0, err, n);
    return st;
}

/* Options of the two commands: NAME, --out FILE, --out-b FILE, --rest. */
typedef struct lin_args {
    const char *name, *out, *out_b;
    int rest;
} lin_args;

/* Parse the arguments after the command word; 0 or -1 with a message. */
static int parse_args(int argc, char **argv, int linearize, lin_args *a, char *err, size_t n)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; ++i) {
        const char *s = argv[i];
        if (!strcmp(s, "--rest")) a->rest = 1;
        else if (linearize && (!strcmp(s, "--out") || !strcmp(s, "--out-b"))) {
            if (i + 1 >= argc) return snprintf(err, n, "%s: missing file name", s), -1;
            *(!strcmp(s, "--out") ? &a->out : &a->out_b) = argv[++i];
        } else if (s[0] == '-') {
            return snprintf(err, n, "unknown option '%s' (try 'mbs-sim --help')", s), -1;
        } else if (!a->name) {
            a->name = s;
        } else {
            return snprintf(err, n, "unexpected argument '%s'", s), -1;
        }
    }
    if (!a->name) return snprintf(err, n, "missing model name (see 'mbs-sim list')"), -1;
    if (linearize && !a->out) return snprintf(err, n, "--out A.csv is required"), -1;
    return 0;
}

/* See sim.h: mbs-sim modes / linearize. */
int sim_linear_command(int linearize, int argc, char **argv, char *err, size_t n)
{
    lin_args a;
    char msg[SIM_MSG];
    if (parse_args(argc, argv, linearize, &a, msg, sizeof msg) < 0) {
        snprintf(err, n, "%s: %s", linearize ? "linearize" : "modes", msg);
        return SIM_EXIT_USAGE;
    }
    mech *m = sim_model_find(a.name, err, n);
    if (!m) return strncmp(err, "unknown model", 13) ? SIM_EXIT_FAIL : SIM_EXIT_USAGE;
    sim_linear s;
    int st = sim_linear_run(m, a.rest, !linearize, &s, msg, sizeof msg);
    if (st == MBS_OK && linearize) st = sim_linear_write(&s, a.out, a.out_b, msg, sizeof msg);
    if (st != MBS_OK) {
        snprintf(err, n, "%s: %s", m->name, msg);
        sim_linear_free(&s);
        sim_model_free(m);
        return SIM_EXIT_FAIL;
    }
    if (linearize)
        printf("%s: A (%d x %d)%s%s written to %s%s%s\n", m->name, s.nx, s.nx,
               a.out_b ? " and B" : "", "", a.out, a.out_b ? ", " : "", a.out_b ? a.out_b : "");
    else
        sim_linear_print_modes(stdout, m, &s, a.rest);
    sim_linear_free(&s);
    sim_model_free(m);
    return SIM_EXIT_OK;
}
