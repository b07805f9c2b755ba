/* One mbs-sim run: load and compile the model file, assemble it, step it to t_end, and
 * sample every step (CSV row, kept plot row, energy, closure residual). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_anim.h"
#include "tool_elements.h"

typedef struct run_ctx {
    const mech *m;
    const sim_settings *s;
    sim_result *r;
    mbs_model *model;
    mbs_data *d;
    mbs_stepper *stepper;
    int nqc, nvc, nb;      /* q, v and tracked-point columns */
    int *qi, *vi, *bodies; /* source index in q, v; body id of each tracked point */
    double *row;           /* (ncol) the current sample */
    sim_csv csv;
    sim_anim *anim; /* NULL: no animation recorded */
    char *err;
    size_t n;
    long every;        /* CSV: every k-th sample */
    double (*closure)(mbs_data *d); /* loop-closure residual, NULL for a tree */
} run_ctx;

/* Record a failed library call: "<what>: <STATUS>: <message>". */
static int lib_fail(run_ctx *c, int st, const char *what, const char *msg)
{
    snprintf(c->err, c->n, "%s: %s: %s", what, mbs_status_name(st), msg && msg[0] ? msg : "-");
    return st;
}

/* The loader's warnings (foreign elements skipped, inertias settled): on stderr. */
static void load_warning(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "mbs-sim: warning: %s\n", msg);
}

/* Load the model file and compile it; model counts go to the result. */
static int setup_model(run_ctx *c)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return lib_fail(c, MBS_ERR_NOMEM, "build", "out of memory");
    mbs_load_options lo = mbs_default_load_options();
    lo.floating_base = c->s->floating_base, lo.balance_inertia = c->s->balance_inertia;
    lo.warning = load_warning;
    char msg[2048] = "";
    int st = sim_load(b, c->m->path, &lo, msg, sizeof msg);
    if (st >= 0) st = mbs_compile(b, &c->model);
    if (st < 0) lib_fail(c, st, "build", msg[0] ? msg : mbs_builder_error(b));
    mbs_builder_destroy(b);
    if (st < 0) return st;
    sim_result *r = c->r;
    r->nq = mbs_model_nq(c->model);
    r->nv = mbs_model_nv(c->model);
    r->nbody = mbs_model_nbody(c->model);
    r->njoint = mbs_model_njoint(c->model);
    r->nforce = mbs_model_nforce(c->model);
    r->ncon = mbs_model_ncon(c->model);
    for (int j = 0; j < r->njoint; ++j) r->nloops += mbs_model_joint_is_cut(c->model, j) == 1;
    c->closure = r->ncon > 0 ? sim_model_closure : NULL;
    r->measured = c->closure != NULL;
    return MBS_OK;
}

/* Data (at the model's start values), loop assembly and the constraint rank. */
static int setup_state(run_ctx *c)
{
    c->d = mbs_data_create(c->model);
    if (!c->d) return lib_fail(c, MBS_ERR_NOMEM, "data", "out of memory");
    int st = MBS_OK;
    if (c->r->ncon > 0) {
        st = mbs_assemble(c->d);
        if (st < 0) return lib_fail(c, st, "assembly", mbs_data_error(c->d));
    }
    st = mbs_constraint_info(c->d, &c->r->rank, NULL);
    if (st < 0) return lib_fail(c, st, "constraint info", mbs_data_error(c->d));
    c->r->dropped = c->r->ncon - c->r->rank;
    c->r->dof = c->r->nv - c->r->rank;
    return MBS_OK;
}

/* Append a formatted column name; -1 when out of memory. */
static int add_name(sim_table *t, const char *fmt, ...)
{
    char buf[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = malloc(strlen(buf) + 1);
    if (!s) return -1;
    strcpy(s, buf);
    t->names[t->ncol++] = s;
    return 0;
}

/* Component label k of a joint with (nq, nv): free and spherical quaternion joints get
   x/y/z/qw.., vx../wx..; others NULL (an index is used). */
static const char *component(int nq, int nv, int is_q, int k)
{
    static const char *const free_q[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    static const char *const free_v[] = {"vx", "vy", "vz", "wx", "wy", "wz"};
    if (nq == 7 && nv == 6) return is_q ? free_q[k] : free_v[k];
    if (nq == 4 && nv == 3) return is_q ? free_q[3 + k] : free_v[3 + k];
    return NULL;
}

/* Names "q.<joint>[.k]" (or v.) for one joint; fills the source indices. */
static int joint_columns(run_ctx *c, sim_table *t, int j, int is_q)
{
    const mbs_model *m = c->model;
    const int nq = mbs_model_joint_nq(m, j), nv = mbs_model_joint_nv(m, j);
    const int cnt = is_q ? nq : nv,
              adr = is_q ? mbs_model_joint_qadr(m, j) : mbs_model_joint_vadr(m, j);
    const char *jn = mbs_model_joint_name(m, j), *p = is_q ? "q" : "v";
    char name[96];
    if (jn && jn[0])
        snprintf(name, sizeof name, "%s", jn);
    else
        snprintf(name, sizeof name, "j%d", j);
    for (int k = 0; k < cnt; ++k) {
        const char *lbl = component(nq, nv, is_q, k);
        int st = cnt == 1 ? add_name(t, "%s.%s", p, name)
                 : lbl    ? add_name(t, "%s.%s.%s", p, name, lbl)
                          : add_name(t, "%s.%s.%d", p, name, k);
        if (st < 0) return -1;
        if (is_q)
            c->qi[c->nqc++] = adr + k;
        else
            c->vi[c->nvc++] = adr + k;
    }
    return 0;
}

/* Find the bodies of the tracked points; a name the model lacks is an error of the file. */
static int find_bodies(run_ctx *c)
{
    int nb = 0;
    while (c->m->track && c->m->track[nb].label) ++nb;
    c->bodies = calloc((size_t)nb + 1, sizeof *c->bodies);
    if (!c->bodies) return lib_fail(c, MBS_ERR_NOMEM, "columns", "out of memory");
    for (int i = 0; i < nb; ++i) {
        c->bodies[i] = mbs_model_find_body(c->model, c->m->track[i].body);
        if (c->bodies[i] < 0) {
            snprintf(c->err, c->n, "model %s: tracked body \"%s\" is not in the model",
                     c->m->name, c->m->track[i].body);
            return MBS_ERR_ARG;
        }
    }
    c->nb = nb;
    return MBS_OK;
}

/* Column names in CSV order: t, q, v, tracked points, energies, closure residual. */
static int setup_columns(run_ctx *c)
{
    sim_table *t = &c->r->table;
    int st = find_bodies(c);
    if (st < 0) return st;
    const int ncol = 1 + c->r->nq + c->r->nv + 3 * c->nb + 3 + (c->closure != NULL);
    t->names = calloc((size_t)ncol, sizeof *t->names);
    c->qi = calloc((size_t)c->r->nq + 1, sizeof *c->qi);
    c->vi = calloc((size_t)c->r->nv + 1, sizeof *c->vi);
    c->row = calloc((size_t)ncol, sizeof *c->row);
    int bad = !t->names || !c->qi || !c->vi || !c->row || add_name(t, "t") < 0;
    for (int pass = 0; pass < 2 && !bad; ++pass)
        for (int j = 0; j < c->r->njoint && !bad; ++j) bad = joint_columns(c, t, j, !pass) < 0;
    for (int i = 0; i < c->nb && !bad; ++i) {
        const char *bn = c->m->track[i].label;
        bad = add_name(t, "x.%s", bn) < 0 || add_name(t, "y.%s", bn) < 0 ||
              add_name(t, "z.%s", bn) < 0;
    }
    bad = bad || add_name(t, "kinetic") < 0 || add_name(t, "potential") < 0 ||
          add_name(t, "energy") < 0 || (c->closure && add_name(t, "residual") < 0);
    return bad ? lib_fail(c, MBS_ERR_NOMEM, "columns", "out of memory") : MBS_OK;
}

/* Room for the kept rows: every stride-th of nsamples plus the last. */
static int setup_rows(run_ctx *c, long nsamples)
{
    sim_table *t = &c->r->table;
    t->stride = (nsamples + SIM_PLOT_ROWS - 1) / SIM_PLOT_ROWS;
    if (t->stride < 1) t->stride = 1;
    t->cap = nsamples / t->stride + 2;
    t->rows = malloc((size_t)t->cap * (size_t)t->ncol * sizeof *t->rows);
    return t->rows ? MBS_OK : lib_fail(c, MBS_ERR_NOMEM, "columns", "out of memory");
}

/* Fill c->row from the data; updates the energy and residual statistics. */
static int fill_row(run_ctx *c)
{
    sim_result *r = c->r;
    const double *q = mbs_data_q(c->d), *v = mbs_data_v(c->d);
    double *row = c->row, ke, pe;
    int k = 0, st = mbs_energy(c->d, &ke, &pe);
    if (st < 0) {
        char what[64];
        snprintf(what, sizeof what, "diverged at t = %.6g s", mbs_data_time(c->d));
        return lib_fail(c, st, what, mbs_data_error(c->d));
    }
    row[k++] = mbs_data_time(c->d);
    for (int i = 0; i < c->nqc; ++i) row[k++] = q[c->qi[i]];
    for (int i = 0; i < c->nvc; ++i) row[k++] = v[c->vi[i]];
    for (int i = 0; i < c->nb; ++i, k += 3) {
        st = tool_point_world(c->d, c->bodies[i], c->m->track[i].point, row + k);
        if (st < 0) return lib_fail(c, st, "body pose", mbs_data_error(c->d));
    }
    const double e = ke + pe;
    row[k++] = ke;
    row[k++] = pe;
    row[k++] = e;
    if (r->table.seen == 0) r->e0 = e;
    r->e_end = e;
    r->e_dev = fmax(r->e_dev, fabs(e - r->e0));
    r->e_rise = fmax(r->e_rise, e - r->e0);
    r->e_scale = fmax(r->e_scale, fmax(fabs(r->e0), ke));
    int stop = -1;
    const double beyond = mbs_joint_stop_beyond(c->d, &stop);
    if (r->table.seen == 0) r->stop_element = -1;
    if (beyond > r->stop_beyond || isnan(beyond))
        r->stop_beyond = beyond, r->stop_element = stop, r->stop_t = mbs_data_time(c->d);
    if (c->closure) {
        const double res = c->closure(c->d);
        row[k++] = res;
        r->residual = isfinite(res) ? fmax(r->residual, res) : INFINITY;
    }
    return MBS_OK;
}

/* A CSV of more than 200 MB is announced on stderr before it is written. */
static void warn_csv_size(const char *path, long nsteps, long every, int ncol)
{
    const double mb = (double)(nsteps / (every > 1 ? every : 1) + 2) * ncol * 16.0 / 1e6;
    if (mb > 200.0)
        fprintf(stderr, "mbs-sim: %s will be about %.0f MB (%ld rows x %d columns); --every K "
                        "writes every K-th row\n", path, mb, nsteps / (every > 1 ? every : 1) + 1, ncol);
}

/* Sample the current state: CSV row and, every stride-th time or at the end, a kept row. */
static int sample(run_ctx *c, int last)
{
    int st = fill_row(c);
    if (st < 0) return st;
    sim_table *t = &c->r->table;
    if (c->csv.f && (c->every <= 1 || t->seen % c->every == 0 || last)) {
        if (sim_csv_row(&c->csv, c->row, t->ncol, c->err, c->n) < 0) return SIM_ERR_IO;
        ++c->r->csv_rows;
    }
    const int res = c->closure != NULL; /* energy and residual: the last columns */
    if (c->anim && sim_anim_sample(c->anim, c->d, c->row[t->ncol - 1 - res],
                                   res ? c->row[t->ncol - 1] : 0.0, last, c->err, c->n) < 0)
        return MBS_ERR_NOMEM;
    if ((t->seen % t->stride == 0 || last) && t->nrow < t->cap)
        memcpy(t->rows + t->nrow++ * t->ncol, c->row, (size_t)t->ncol * sizeof *c->row);
    ++t->seen;
    return MBS_OK;
}

/* The stepper from the settings. */
static int setup_stepper(run_ctx *c)
{
    mbs_stepper_def def = mbs_default_stepper_def(c->s->stepper);
    def.rtol = c->s->rtol;
    def.atol = c->s->atol;
    if (c->s->error_estimate) /* a fixed step far beyond stability fails, suggesting a step */
        def.err_rtol = 1e-2, def.err_atol = 1e-4;
    def.max_internal_steps = 1000000;
    c->stepper = mbs_stepper_create(c->d, &def);
    return c->stepper ? MBS_OK : lib_fail(c, MBS_ERR_SOLVER, "stepper", mbs_data_error(c->d));
}

/* Step to t_end: targets k dt (the last one t_end exactly), timing the stepper calls. */
static int step_loop(run_ctx *c, long nsteps, int progress)
{
    sim_progress p;
    sim_progress_begin(&p, progress, c->m->name);
    int st = sample(c, nsteps == 0);
    for (long k = 1; k <= nsteps && st == MBS_OK; ++k) {
        const double target = k == nsteps ? c->s->t_end : (double)k * c->s->dt;
        const double t = mbs_data_time(c->d), w0 = sim_now();
        st = mbs_stepper_step(c->stepper, target - t);
        c->r->wall += sim_now() - w0;
        if (st < 0) {
            char what[64];
            snprintf(what, sizeof what, "simulation failed at t = %.6g s", t);
            lib_fail(c, st, what, mbs_data_error(c->d));
            break;
        }
        ++c->r->steps;
        st = sample(c, k == nsteps);
        sim_progress_update(&p, target, c->s->t_end);
    }
    sim_progress_end(&p);
    c->r->t_reached = mbs_data_time(c->d);
    return st;
}

/* Plot columns from the signal list or the model file's <plot>. */
static int plot_columns(run_ctx *c, sim_io *io)
{
    const sim_table *t = &c->r->table;
    if (io->signals) {
        io->ncols = sim_table_select(t, io->signals, io->cols, SIM_MAX_SIGNALS, c->err, c->n);
        return io->ncols > 0 ? MBS_OK : SIM_ERR_USAGE;
    }
    io->ncols = 0;
    for (int i = 0; c->m->plot && c->m->plot[i] && io->ncols < SIM_MAX_SIGNALS; ++i) {
        const int col = sim_table_find(t, c->m->plot[i]);
        if (col < 1) {
            snprintf(c->err, c->n, "model %s: default plot signal '%s' is not a column",
                     c->m->name, c->m->plot[i]);
            return MBS_ERR_ARG;
        }
        io->cols[io->ncols++] = col;
    }
    if (io->ncols == 0) io->cols[io->ncols++] = sim_table_find(t, "energy");
    return MBS_OK;
}

/* Simulate one model file; see sim.h. */
int sim_run(const mech *m, const sim_settings *s, sim_io *io, sim_result *r, char *err, size_t n)
{
    memset(r, 0, sizeof *r);
    run_ctx c = {.m = m, .s = s, .r = r, .anim = io->anim, .err = err, .n = n, .every = io->every};
    const long nsteps = (long)ceil(s->t_end / s->dt - 1e-9);
    int st = setup_model(&c);
    if (st == MBS_OK) st = setup_state(&c);
    if (st == MBS_OK) st = setup_columns(&c);
    if (st == MBS_OK && c.anim &&
        sim_anim_begin(c.anim, c.model, c.d, c.closure != NULL, io->mesh_dir, err, n) < 0)
        st = MBS_ERR_NOMEM;
    if (st == MBS_OK && io->plot) st = plot_columns(&c, io);
    if (st == MBS_OK) st = setup_rows(&c, nsteps + 1);
    if (st == MBS_OK && io->csv_path)
        warn_csv_size(io->csv_path, nsteps, io->every, r->table.ncol);
    if (st == MBS_OK && io->csv_path && sim_csv_open(&c.csv, io->csv_path, &r->table, err, n) < 0)
        st = SIM_ERR_IO;
    if (st == MBS_OK) st = setup_stepper(&c);
    if (st == MBS_OK) st = step_loop(&c, nsteps, io->progress);
    if (c.csv.f) {
        char cerr[SIM_MSG];
        if (sim_csv_close(&c.csv, cerr, sizeof cerr) < 0 && st == MBS_OK) {
            snprintf(err, n, "%s", cerr);
            st = SIM_ERR_IO;
        }
    }
    if (st == MBS_OK) sim_check(m, r);
    for (int j = 0; c.d && j < r->njoint; ++j)
        r->nanalytic += mbs_cut_joint_closure(c.d, j) == MBS_CLOSURE_ANALYTIC;
    if (c.d) r->newton_iters = mbs_loop_newton_iterations(c.d);
    mbs_stepper_destroy(c.stepper);
    mbs_data_destroy(c.d);
    mbs_model_destroy(c.model);
    free(c.qi);
    free(c.vi);
    free(c.bodies);
    free(c.row);
    return st;
}

/* Release the kept rows and names. */
void sim_result_free(sim_result *r)
{
    sim_table_free(&r->table);
}
