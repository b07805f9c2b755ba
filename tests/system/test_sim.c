/* mbs-sim: the shipped models (each runs and passes its own sanity check, the pendulum
 * matches the MSL reference, an orbit closes after one Kepler period), the option parser,
 * and the installed program itself (run from $MBS_SIM): exit statuses and one-line messages
 * of bad command lines, a failed simulation, and CSV and SVG files parsed back. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim.h"
#include "sim_anim.h"

extern char **environ;

#define PI 3.14159265358979323846

static char g_dir[64]; /* scratch folder of the CLI tests */

/* ---------------------------------------------------------------- helpers */

/* Path of a file in the scratch folder (static buffer per slot). */
static const char *scratch(int slot, const char *name)
{
    static char buf[4][128];
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", g_dir, name);
    return buf[slot];
}

/* Whole file as a NUL-terminated string (fails the test when missing). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Run $MBS_SIM with args (NULL-terminated) and one more environment entry (NULL: none);
   stdout and stderr go to files that are read back into *out and *err (caller frees).
   Returns the exit status. */
static int run_cli_env(const char *const *args, const char *env, char **out, char **err)
{
    const char *exe = getenv("MBS_SIM");
    assert_non_null(exe);
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)exe;
    while (args[n - 1] && n < 31) {
        argv[n] = (char *)args[n - 1];
        ++n;
    }
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, scratch(0, "stdout.txt"), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&fa, 2, scratch(1, "stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    char *envp[256];
    int ne = 0;
    if (env) envp[ne++] = (char *)env;
    for (char **e = environ; *e && ne < 255; ++e) envp[ne++] = *e;
    envp[ne] = NULL;
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, exe, &fa, NULL, argv, envp), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    *out = slurp(scratch(0, "stdout.txt"));
    *err = slurp(scratch(1, "stderr.txt"));
    return WEXITSTATUS(status);
}

/* run_cli_env without an extra environment entry. */
static int run_cli(const char *const *args, char **out, char **err)
{
    return run_cli_env(args, NULL, out, err);
}

/* Skip the CLI tests when the program's path was not given. */
static void need_cli(void)
{
    if (!getenv("MBS_SIM")) {
        print_message("MBS_SIM not set: skipping the mbs-sim program tests\n");
        skip();
    }
}

/* Count of lines (newline-terminated) in s. */
static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; ++s) n += *s == '\n';
    return n;
}

/* A run of m in-process with its defaults, t_end replaced when t_end > 0. */
static int run_mech(const mech *m, double t_end, sim_io *io, sim_result *r, sim_settings *s)
{
    sim_options o;
    memset(&o, 0, sizeof o);
    o.stepper = -1;
    o.t_end = t_end;
    char err[SIM_MSG];
    assert_int_equal(sim_resolve(m, &o, s, err, sizeof err), 0);
    const int st = sim_run(m, s, io, r, err, sizeof err);
    if (st != MBS_OK) print_error("%s: %s\n", m->name, err);
    return st;
}

/* The last kept row's value of column name. */
static double last_value(const sim_result *r, const char *name)
{
    const int col = sim_table_find(&r->table, name);
    assert_true(col >= 0);
    return r->table.rows[(r->table.nrow - 1) * r->table.ncol + col];
}

/* ---------------------------------------------------------------- registry, runs */

/* The shipped model called name (fails the test when it cannot be opened). */
static mech *model(const char *name)
{
    char err[SIM_MSG];
    mech *m = sim_model_find(name, err, sizeof err);
    if (!m) fail_msg("%s: %s", name, err);
    return m;
}

/* run_mech on the shipped model called name. */
static int run_named(const char *name, double t_end, sim_io *io, sim_result *r, sim_settings *s)
{
    mech *m = model(name);
    const int st = run_mech(m, t_end, io, r, s);
    sim_model_free(m);
    return st;
}

/* Every shipped model (13 or more) opens with well-formed, unique names, a title, a source
   that names a paper or says there is none, and sane settings; names are found. */
static void test_models(void **state)
{
    (void)state;
    char err[SIM_MSG], dir[1024];
    int count = 0;
    assert_int_equal(sim_models_dir(dir, sizeof dir, err, sizeof err), 0);
    assert_non_null(strstr(dir, "models"));
    mech **all = sim_models_all(&count, err, sizeof err);
    if (!all) fail_msg("%s", err);
    assert_true(count >= 13);
    for (int i = 0; i < count; ++i) {
        const mech *m = all[i];
        for (const char *c = m->name; *c; ++c)
            assert_true(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_');
        for (int j = 0; j < i; ++j) assert_true(strcmp(all[j]->name, m->name) < 0);
        mech *f = model(m->name);
        assert_string_equal(f->path, m->path);
        sim_model_free(f);
        assert_true(m->title[0] && strncmp(m->title, "model file", 10) != 0);
        assert_true(m->source[0] && strncmp(m->source, "model file", 10) != 0);
        assert_null(strstr(m->source, "seed"));
        assert_true(m->t_end > 0.0 && m->dt > 0.0 && m->dt <= m->t_end);
        assert_true(m->rtol > 0.0 && m->atol > 0.0);
        assert_true(m->energy == MECH_DRIVEN || m->energy_tol > 0.0);
        assert_true(m->plot && m->plot[0] && m->track && m->track[0].label);
    }
    sim_models_free(all, count);
    assert_null(sim_model_find("no_such_model", err, sizeof err));
    assert_non_null(strstr(err, "unknown model 'no_such_model' (in "));
    assert_non_null(strstr(err, " pendulum,"));
    assert_null(sim_model_find("../models/pendulum", err, sizeof err));
    assert_non_null(strstr(err, "unknown model"));
}

/* Each shipped model runs for (at most) a second and passes its own sanity check. */
static void test_each_mechanism_sanity(void **state)
{
    (void)state;
    char err[SIM_MSG];
    int count = 0;
    mech **all = sim_models_all(&count, err, sizeof err);
    if (!all) fail_msg("%s", err);
    for (int i = 0; i < count; ++i) {
        const mech *m = all[i];
        sim_io io = {.plot = 1, .progress = 0};
        sim_result r;
        sim_settings s;
        assert_int_equal(run_mech(m, fmin(m->t_end, 1.0), &io, &r, &s), MBS_OK);
        if (!r.check_ok) print_error("%s: %s\n", m->name, r.check_msg);
        assert_true(r.check_ok);
        assert_true(fabs(r.t_reached - s.t_end) <= 1e-12 * s.t_end);
        assert_int_equal(r.steps, (long)ceil(s.t_end / s.dt - 1e-9));
        assert_true(r.dof > 0 && r.dof <= r.nv && r.nv <= r.nq);
        assert_int_equal(r.dof, r.nv - r.rank);
        assert_int_equal(r.dropped, r.ncon - r.rank);
        if (r.ncon == 0) {
            assert_int_equal(r.nloops, 0);
            assert_true(r.residual == 0.0);
        } else {
            assert_true(r.nloops > 0 && r.residual <= m->closure_tol);
        }
        assert_true(isfinite(r.e0) && isfinite(r.e_end) && r.e_scale > 0.0);
        assert_string_equal(r.table.names[0], "t");
        assert_int_equal(r.table.seen, r.steps + 1);
        assert_true(io.ncols >= 1 && r.table.nrow >= 2 && r.table.nrow <= SIM_PLOT_ROWS + 2);
        assert_true(last_value(&r, "t") == r.t_reached);
        sim_result_free(&r);
    }
    sim_models_free(all, count);
}

/* The pendulum of Otter, Elmqvist, Mattsson 2003 §2 ends where the MSL reference does (phi, w at 5 s). */
static void test_pendulum_matches_msl(void **state)
{
    (void)state;
    sim_io io = {.progress = 0};
    sim_result r;
    sim_settings s;
    assert_int_equal(run_named("pendulum", 0.0, &io, &r, &s), MBS_OK);
    assert_true(s.t_end == 5.0);
    assert_true(fabs(last_value(&r, "q.rev") - (-1.6796346)) < 1e-4);
    assert_true(fabs(last_value(&r, "v.rev") - (-2.3181470)) < 1e-4);
    /* the bob is 0.5 m from the pivot */
    const double x = last_value(&r, "x.bob"), y = last_value(&r, "y.bob");
    assert_true(fabs(hypot(x, y) - 0.5) < 1e-12);
    assert_true(r.e_end < r.e0); /* the damper took energy out */
    sim_result_free(&r);
}

/* body1 of point_gravity is back at its start after one Kepler period. */
static void test_point_gravity_orbit_closes(void **state)
{
    (void)state;
    const double a = 1.0 / (2.0 / 0.6 - 1.0 * 1.0); /* vis-viva, mu = 1, v = 1, r = 0.6 */
    const double period = 2.0 * PI * sqrt(a * a * a);
    sim_io io = {.progress = 0};
    sim_result r;
    sim_settings s;
    assert_int_equal(run_named("point_gravity", period, &io, &r, &s), MBS_OK);
    assert_true(fabs(last_value(&r, "x.body1")) < 1e-6);
    assert_true(fabs(last_value(&r, "y.body1") - 0.6) < 1e-6);
    assert_true(fabs(last_value(&r, "v.orbit1.0") - 1.0) < 1e-6);
    assert_true(r.check_ok);
    sim_result_free(&r);
}

/* ---------------------------------------------------------------- loop mechanisms */

/* The value of column name in kept row i. */
static double value_at(const sim_result *r, long i, const char *name)
{
    const int col = sim_table_find(&r->table, name);
    assert_true(col >= 0);
    return r->table.rows[i * r->table.ncol + col];
}

/* The summary's loop counts of each closed-loop mechanism (a 10 ms run): cut joints, rows,
   rank, velocity coordinates; every one keeps a single degree of freedom. */
static void test_loop_counts(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int nloops, ncon, rank, nv;
    } cases[] = {
        {"spatial_fourbar", 1, 5, 5, 6},    /* prismatic cut, spatial loop: all rows */
        {"engine_cylindrical", 1, 5, 3, 4}, /* revolute cut, planar loop + piston spin */
        {"door_hinges", 1, 5, 0, 1},        /* coaxial hinges: every row redundant */
        {"planar_loop_tilted", 1, 6, 3, 4}, /* fixed cut in a planar loop */
        {"engine_v6", 6, 30, 12, 13},       /* 6 planar loops, 2 rows each */
        {"two_loops", 2, 7, 7, 8},          /* universal + spherical cuts */
        {"a02_fourbars", 40, 200, 80, 81},  /* 40 planar loops */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        mech *m = model(cases[i].name);
        sim_io io = {.progress = 0};
        sim_result r;
        sim_settings s;
        assert_int_equal(run_mech(m, 0.01, &io, &r, &s), MBS_OK);
        if (r.nloops != cases[i].nloops || r.ncon != cases[i].ncon || r.rank != cases[i].rank ||
            r.nv != cases[i].nv)
            fail_msg("%s: loops %d rows %d rank %d nv %d", m->name, r.nloops, r.ncon, r.rank, r.nv);
        assert_int_equal(r.dropped, cases[i].ncon - cases[i].rank);
        assert_int_equal(r.dof, 1);
        assert_true(r.check_ok && r.residual <= 1e-9);
        sim_result_free(&r);
        sim_model_free(m);
    }
}

/* door_hinges: hinge2 takes nothing, so the door is a torsion pendulum about hinge1:
   q = (pi/2) cos(w t), w = sqrt(k / I), I = m (w^2 + t^2) / 12 + m (w/2)^2. */
static void test_door_swings_like_one_hinge(void **state)
{
    (void)state;
    const double inertia = 20.0 / 12.0 * (0.64 + 0.0016) + 20.0 * 0.16;
    const double w = sqrt(20.0 / inertia);
    sim_io io = {.progress = 0};
    sim_result r;
    sim_settings s;
    assert_int_equal(run_named("door_hinges", 1.0, &io, &r, &s), MBS_OK);
    for (long i = 0; i < r.table.nrow; ++i) {
        const double t = value_at(&r, i, "t");
        assert_true(fabs(value_at(&r, i, "q.hinge1") - 0.5 * PI * cos(w * t)) < 1e-8);
    }
    sim_result_free(&r);
}

/* engine_cylindrical: the loop stops the piston's spin, and the piston follows the
   slider-crank: s = 0.35 - (r cos th + sqrt(l^2 - r^2 sin^2 th)), r 0.1, l 0.2. */
static void test_engine_piston(void **state)
{
    (void)state;
    sim_io io = {.progress = 0};
    sim_result r;
    sim_settings s;
    assert_int_equal(run_named("engine_cylindrical", 1.0, &io, &r, &s), MBS_OK);
    double lo = 1.0, hi = 0.0;
    for (long i = 0; i < r.table.nrow; ++i) {
        const double th = value_at(&r, i, "q.bearing"), sp = 0.1 * sin(th);
        const double stroke = value_at(&r, i, "q.cylinder.0");
        assert_true(fabs(stroke - (0.35 - 0.1 * cos(th) - sqrt(0.04 - sp * sp))) < 1e-9);
        assert_true(fabs(value_at(&r, i, "q.cylinder.1")) < 1e-12);
        lo = fmin(lo, stroke), hi = fmax(hi, stroke);
    }
    assert_true(fabs(lo - 0.05) < 1e-3 && fabs(hi - 0.25) < 1e-3); /* stroke = 2 r */
    sim_result_free(&r);
}

/* engine_v6: each of the six pistons where the closed-form slider-crank of its cylinder puts
   it, psi = crank angle + throw offset - cylinder inclination. */
static void test_engine_v6_pistons(void **state)
{
    (void)state;
    static const double offset[6] = {-30, 90, 210, 210, 90, -30},
                        incline[6] = {-30, 30, -30, 30, -30, 30};
    sim_io io = {.progress = 0};
    sim_result r;
    sim_settings s;
    assert_int_equal(run_named("engine_v6", 0.5, &io, &r, &s), MBS_OK);
    for (long i = 0; i < r.table.nrow; ++i)
        for (int k = 0; k < 6; ++k) {
            char name[32];
            snprintf(name, sizeof name, "q.cylinder%d", k + 1);
            const double psi = value_at(&r, i, "q.bearing") + (offset[k] - incline[k]) * PI / 180;
            const double sp = 0.1 * sin(psi);
            const double want = 0.32 - 0.1 * cos(psi) - sqrt(0.04 - sp * sp);
            assert_true(fabs(value_at(&r, i, name) - want) < 1e-9);
        }
    sim_result_free(&r);
}

/* two_loops: the constant 100 N m on j1 is the only work: E(t) - E(0) = 100 q.j1(t). */
static void test_two_loops_work(void **state)
{
    (void)state;
    sim_io io = {.progress = 0};
    sim_result r;
    sim_settings s;
    assert_int_equal(run_named("two_loops", 1.0, &io, &r, &s), MBS_OK);
    const double e0 = value_at(&r, 0, "energy");
    for (long i = 0; i < r.table.nrow; ++i)
        assert_true(fabs(value_at(&r, i, "energy") - e0 - 100.0 * value_at(&r, i, "q.j1")) < 1e-4);
    assert_true(value_at(&r, r.table.nrow - 1, "q.j1") > 6.0); /* more than a turn */
    sim_result_free(&r);
}

/* planar_loop_tilted: of the fixed cut joint's rows (x, y, z, rx, ry, rz) the selection keeps
   those of the least tilted coordinate plane at 30 degrees: x, y, rz (Elmqvist, Mattsson, Chapuis 2009 §6.3). */
static void test_tilted_loop_rows(void **state)
{
    (void)state;
    mech *pl = model("planar_loop_tilted");
    mbs_builder *b = mbs_builder_create();
    mbs_model *mo = NULL;
    assert_int_equal(mbs_builder_load(b, pl->path), MBS_OK);
    assert_int_equal(mbs_compile(b, &mo), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(mo); /* rod1 at its start value, 30 degrees */
    assert_non_null(d);
    assert_true(fabs(mbs_data_q(d)[mbs_model_joint_qadr(mo, mbs_model_find_joint(mo, "rev1"))] -
                     PI / 6) < 1e-15);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    unsigned char active[6];
    int rank = -1;
    assert_int_equal(mbs_constraint_info(d, &rank, active), MBS_OK);
    assert_int_equal(rank, 3);
    static const unsigned char want[6] = {1, 1, 0, 0, 0, 1};
    for (int i = 0; i < 6; ++i) assert_int_equal(active[i] != 0, want[i]);
    assert_true(sim_model_closure(d) <= pl->closure_tol);
    mbs_data_destroy(d);
    mbs_model_destroy(mo);
    sim_model_free(pl);
}

/* ---------------------------------------------------------------- options */

/* Parse a space-separated command line (after `run`); returns the parser's result. */
static int parse(const char *line, sim_options *o, char *err)
{
    static char buf[256];
    char *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        assert_true(argc < 32);
        argv[argc++] = tok;
    }
    return sim_parse_run(argc, argv, o, err, SIM_MSG);
}

/* Good command lines fill the options; bad ones give the right message. */
static void test_options(void **state)
{
    (void)state;
    sim_options o;
    char err[SIM_MSG];
    assert_int_equal(parse("pendulum --t-end 2 --stepper=bdf --dt 0.01 --rtol 1e-9 --atol=1e-11 "
                           "--out a.csv --plot b.svg --signals q.rev --check --no-progress",
                           &o, err),
                     0);
    assert_string_equal(o.mechanism, "pendulum");
    assert_true(o.t_end == 2.0 && o.dt == 0.01 && o.rtol == 1e-9 && o.atol == 1e-11);
    assert_int_equal(o.stepper, MBS_STEP_CVODE_BDF);
    assert_string_equal(o.csv_path, "a.csv");
    assert_string_equal(o.svg_path, "b.svg");
    assert_string_equal(o.signals, "q.rev");
    assert_true(o.check == 1 && o.progress == 0);
    assert_int_equal(parse("pendulum --help", &o, err), 1);
    static const char *const bad[][2] = {
        {"pendulum --dt 0", "--dt: expected a positive number, got '0'"},
        {"pendulum --t-end nan", "--t-end: expected a positive number, got 'nan'"},
        {"pendulum --rtol 1e-3x", "--rtol: expected a positive number, got '1e-3x'"},
        {"pendulum --stepper rk5", "--stepper: unknown stepper 'rk5' (euler, rk4, adams or bdf)"},
        {"pendulum --frob", "unknown option '--frob' (try 'mbs-sim --help')"},
        {"pendulum --out", "--out: missing value"},
        {"pendulum --plot=", "--plot: empty file name"},
        {"pendulum robot_r3", "unexpected argument 'robot_r3' (one mechanism per run)"},
        {"--check", "run: missing mechanism name (see 'mbs-sim list')"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(parse(bad[i][0], &o, err), -1);
        assert_string_equal(err, bad[i][1]);
    }
}

/* Defaults come from the model file; inconsistent settings are refused. */
static void test_resolve(void **state)
{
    (void)state;
    mech *pg = model("point_gravity"), *p = model("pendulum");
    sim_options o;
    sim_settings s;
    char err[SIM_MSG];
    memset(&o, 0, sizeof o);
    o.stepper = -1;
    assert_int_equal(sim_resolve(pg, &o, &s, err, sizeof err), 0);
    assert_true(s.stepper == MBS_STEP_CVODE_ADAMS && s.dt == pg->dt && s.rtol == pg->rtol);
    o.stepper = MBS_STEP_RK4; /* a CVODE output interval is not an RK4 step */
    assert_int_equal(sim_resolve(pg, &o, &s, err, sizeof err), 0);
    assert_true(s.dt == 1e-3);
    o.rtol = 1e-6;
    assert_int_equal(sim_resolve(p, &o, &s, err, sizeof err), -1);
    assert_string_equal(err, "--rtol/--atol apply to the adams and bdf steppers only, not rk4");
    o.stepper = MBS_STEP_CVODE_BDF;
    o.rtol = 2.0;
    assert_int_equal(sim_resolve(p, &o, &s, err, sizeof err), -1);
    o.rtol = 0.0;
    o.t_end = 1e6;
    o.dt = 1e-6;
    assert_int_equal(sim_resolve(p, &o, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "steps (at most 100000000)"));
    sim_model_free(pg);
    sim_model_free(p);
}

/* ---------------------------------------------------------------- CSV and SVG checkers */

typedef struct csv_data {
    int ncol, nrow;
    char names[64][48];
    double *v; /* (nrow x ncol) */
} csv_data;

/* The next comma-separated field of *p (NULL at the end); cuts the string in place. */
static char *next_field(char **p)
{
    char *field = *p;
    if (!field) return NULL;
    char *comma = strchr(field, ',');
    if (comma) *comma = '\0';
    *p = comma ? comma + 1 : NULL;
    return field;
}

/* Parse a CSV file: a header of names, then rows of finite numbers, all of one width. */
static void parse_csv(const char *path, csv_data *c)
{
    char *text = slurp(path), *save = NULL;
    memset(c, 0, sizeof *c);
    const int lines = count_lines(text);
    char *line = strtok_r(text, "\n", &save);
    assert_non_null(line);
    for (char *p = line, *tok; (tok = next_field(&p)) != NULL;) {
        assert_true(c->ncol < 64 && tok[0] != '\0');
        snprintf(c->names[c->ncol++], sizeof c->names[0], "%s", tok);
    }
    c->v = malloc(sizeof(double) * (size_t)c->ncol * (size_t)lines);
    assert_non_null(c->v);
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        int k = 0;
        for (char *p = line, *tok; (tok = next_field(&p)) != NULL; ++k) {
            char *end;
            assert_true(k < c->ncol);
            c->v[c->nrow * c->ncol + k] = strtod(tok, &end);
            assert_true(end != tok && *end == '\0' && isfinite(c->v[c->nrow * c->ncol + k]));
        }
        assert_int_equal(k, c->ncol);
        ++c->nrow;
    }
    free(text);
}

typedef struct svg_info {
    int elements, polylines, points[16], texts;
    char root[32];
    char text[4096]; /* all text content, '|' separated */
} svg_info;

/* Attributes of a start tag up to '>' or '/>': name="value" pairs; points of a polyline are
   counted (pairs "x,y" inside the view box). Returns the position after the tag. */
static const char *svg_attrs(const char *p, const char *tag, svg_info *info, int *empty)
{
    for (;;) {
        while (isspace((unsigned char)*p)) ++p;
        if (p[0] == '/' && p[1] == '>') {
            *empty = 1;
            return p + 2;
        }
        if (*p == '>') {
            *empty = 0;
            return p + 1;
        }
        const char *name = p;
        while (isalnum((unsigned char)*p) || *p == '-' || *p == ':' || *p == '_') ++p;
        assert_true(p > name && *p == '=' && (p[1] == '"' || p[1] == '\''));
        const char quote = p[1], *val = p + 2, *end = strchr(val, quote);
        assert_non_null(end);
        for (const char *c = val; c < end; ++c) assert_true(*c != '<');
        if (!strcmp(tag, "polyline") && !strncmp(name, "points=", 7)) {
            int npts = 0;
            for (const char *c = val; c < end;) {
                char *e1, *e2;
                const double x = strtod(c, &e1);
                assert_true(e1 > c && *e1 == ',');
                const double y = strtod(e1 + 1, &e2);
                assert_true(e2 > e1 + 1 && x >= 0 && x <= 880 && y >= 0 && y <= 1600); /* 5 panels at most */
                ++npts;
                c = e2;
                while (c < end && *c == ' ') ++c;
            }
            assert_true(info->polylines < 16);
            info->points[info->polylines] = npts;
        }
        p = end + 1;
    }
}

/* Well-formedness of the SVG: one <svg> root, every tag closed in order, quoted attributes,
   no stray '<' or '&' in text; counts elements, polylines and their points, texts. */
static void check_svg(const char *path, svg_info *info)
{
    char *text = slurp(path), stack[64][32];
    int depth = 0, roots = 0;
    memset(info, 0, sizeof *info);
    const char *p = text;
    if (!strncmp(p, "<?xml", 5)) p = strstr(p, "?>") + 2;
    while (*p) {
        if (*p != '<') {
            assert_true(depth > 0 || isspace((unsigned char)*p));
            if (*p == '&')
                assert_true(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) ||
                            !strncmp(p, "&gt;", 4) || !strncmp(p, "&quot;", 6));
            if (depth > 0 && !strcmp(stack[depth - 1], "text") &&
                strlen(info->text) + 2 < sizeof info->text)
                strncat(info->text, p, 1);
            ++p;
            continue;
        }
        if (p[1] == '/') {
            const size_t len = strcspn(p + 2, ">");
            assert_true(depth > 0 && strlen(stack[depth - 1]) == len &&
                        !strncmp(p + 2, stack[depth - 1], len));
            if (!strcmp(stack[--depth], "text")) strcat(info->text, "|");
            p += 3 + len;
            continue;
        }
        char tag[32];
        const size_t len = strcspn(p + 1, " \t\n/>");
        assert_true(len > 0 && len < sizeof tag);
        snprintf(tag, sizeof tag, "%.*s", (int)len, p + 1);
        if (depth == 0) {
            ++roots;
            snprintf(info->root, sizeof info->root, "%s", tag);
        }
        int empty;
        p = svg_attrs(p + 1 + len, tag, info, &empty);
        ++info->elements;
        info->polylines += !strcmp(tag, "polyline");
        info->texts += !strcmp(tag, "text");
        if (!empty) {
            assert_true(depth < 64);
            snprintf(stack[depth++], 32, "%s", tag);
        }
    }
    assert_int_equal(depth, 0);
    assert_int_equal(roots, 1);
    free(text);
}

/* The SVG writer on its own: a flat signal, a NaN gap, and escaped names. */
static void test_svg_writer(void **state)
{
    (void)state;
    char *names[3] = {"t", "flat & <odd>", "gap"};
    double rows[5 * 3];
    for (int i = 0; i < 5; ++i) {
        rows[3 * i] = 0.1 * i;
        rows[3 * i + 1] = 2.0;
        rows[3 * i + 2] = i == 2 ? NAN : (double)i;
    }
    sim_table t = {.ncol = 3, .names = names, .rows = rows, .nrow = 5, .cap = 5, .stride = 1};
    const int cols[2] = {1, 2};
    char err[SIM_MSG];
    assert_int_equal(
        sim_svg_write(scratch(2, "w.svg"), "a \"title\"", &t, cols, 2, err, sizeof err), 0);
    svg_info info;
    check_svg(scratch(2, "w.svg"), &info);
    assert_string_equal(info.root, "svg");
    assert_int_equal(info.polylines, 3); /* flat: 1, gap: 2 pieces */
    assert_int_equal(info.points[0], 5);
    assert_int_equal(info.points[1] + info.points[2], 4);
    assert_non_null(strstr(info.text, "flat &amp; &lt;odd&gt;"));
    assert_int_equal(sim_svg_write("/nonexistent/dir/w.svg", "x", &t, cols, 2, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "cannot write '/nonexistent/dir/w.svg'"));
}

/* ---------------------------------------------------------------- the program */

/* `list` names every shipped model; no arguments runs the demo table, all "ok". */
static void test_cli_list_and_demo(void **state)
{
    (void)state;
    need_cli();
    char *out, *err;
    const char *list[] = {"list", NULL}, *none[] = {NULL}, *version[] = {"--version", NULL};
    assert_int_equal(run_cli(list, &out, &err), 0);
    int count = 0;
    char msg[SIM_MSG];
    mech **all = sim_models_all(&count, msg, sizeof msg);
    assert_non_null(all);
    for (int i = 0; i < count; ++i) assert_non_null(strstr(out, all[i]->name));
    assert_string_equal(err, "");
    free(out);
    free(err);
    assert_int_equal(run_cli(none, &out, &err), 0);
    for (int i = 0; i < count; ++i) {
        const char *row = strstr(out, all[i]->name);
        assert_non_null(row);
        const char *eol = strchr(row, '\n');
        assert_true(eol && eol - row > 3 && !strncmp(eol - 2, "ok", 2));
    }
    assert_string_equal(err, "");
    free(out);
    free(err);
    assert_int_equal(run_cli(version, &out, &err), 0);
    assert_true(!strncmp(out, "mbs-sim ", 8));
    free(out);
    free(err);
    sim_models_free(all, count);
}

/* --help after any command prints the help on stdout with status 0; a model file that is
   not there is named with the system's reason, not as a parse failure. */
static void test_cli_help_and_missing_file(void **state)
{
    (void)state;
    need_cli();
    static const char *const helps[][4] = {{"--help", NULL}, {"run", "pendulum", "--help", NULL},
                                           {"equilibrium", "--help", NULL}, {"modes", "-h", NULL},
                                           {"linearize", "pendulum", "--help", NULL}, {"list", "--help", NULL}};
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; ++i) {
        char *out, *err;
        assert_int_equal(run_cli(helps[i], &out, &err), SIM_EXIT_OK);
        if (strncmp(out, "usage: mbs-sim", 14) != 0 || err[0]) fail_msg("%s: '%s' '%s'", helps[i][0], out, err);
        free(out);
        free(err);
    }
    const char *missing[] = {"run", scratch(2, "none.urdf"), NULL};
    char *out, *err;
    assert_int_equal(run_cli(missing, &out, &err), SIM_EXIT_FAIL);
    if (!strstr(err, "none.urdf: No such file or directory\n")) fail_msg("got: %s", err);
    free(out);
    free(err);
}

/* The CSV's numbers read back as the doubles that were written (17 significant digits). */
static void test_csv_round_trip(void **state)
{
    (void)state;
    const double row[6] = {0.1, 1.0 / 3.0, 3.141592653589793, -2.2250738585072014e-308, 1e300 / 7.0,
                           nextafter(1.0, 2.0)};
    char *names[6] = {"a", "b", "c", "d", "e", "f"}, err[SIM_MSG];
    sim_table t = {.ncol = 6, .names = names};
    sim_csv c;
    const char *path = scratch(2, "round.csv");
    assert_int_equal(sim_csv_open(&c, path, &t, err, sizeof err), 0);
    assert_int_equal(sim_csv_row(&c, row, 6, err, sizeof err), 0);
    assert_int_equal(sim_csv_close(&c, err, sizeof err), 0);
    char *text = slurp(path), *p = strchr(text, '\n') + 1;
    for (int i = 0; i < 6; ++i) {
        const double x = strtod(p, &p);
        if (memcmp(&x, &row[i], sizeof x) != 0) fail_msg("column %d: %.17g read back as %.17g", i, row[i], x);
        ++p;
    }
    free(text);
}

/* Bad command lines: exit status 2 and exactly one line "mbs-sim: <message>". */
static void test_cli_bad_command_lines(void **state)
{
    (void)state;
    need_cli();
    static const struct {
        const char *args[6];
        const char *msg;
    } cases[] = {
        {{"frob", NULL}, "mbs-sim: unknown command 'frob' (try 'mbs-sim --help')\n"},
        {{"run", "nope", NULL}, "mbs-sim: unknown model 'nope' (in "},
        {{"run", NULL}, "mbs-sim: run: missing mechanism name (see 'mbs-sim list')\n"},
        {{"run", "pendulum", "--dt", "-1", NULL},
         "mbs-sim: --dt: expected a positive number, got '-1'\n"},
        {{"run", "pendulum", "--bogus", NULL},
         "mbs-sim: unknown option '--bogus' (try 'mbs-sim --help')\n"},
        {{"run", "pendulum", "--stepper", NULL}, "mbs-sim: --stepper: missing value\n"},
        {{"run", "pendulum", "--rtol", "1e-6", NULL},
         "mbs-sim: --rtol/--atol apply to the adams and bdf steppers only, not rk4\n"},
        {{"run", "pendulum", "--signals", "q.rev", NULL},
         "mbs-sim: --signals needs --plot FILE.svg\n"},
        {{"run", "pendulum", "--plot", "x.svg", "--signals=q.rev,foo", NULL},
         "mbs-sim: pendulum: --signals: no signal 'foo' (signals: q.rev, v.rev,"},
        {{"list", "extra", NULL}, "mbs-sim: list: takes no arguments\n"},
        {{"run", "pendulum", "--plot", "x.png", NULL},
         "mbs-sim: --plot x.png: plots are written as SVG only; name the file .svg"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char *out, *err;
        assert_int_equal(run_cli(cases[i].args, &out, &err), SIM_EXIT_USAGE);
        if (strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0) fail_msg("got: %s", err);
        assert_int_equal(count_lines(err), 1);
        assert_string_equal(out, "");
        free(out);
        free(err);
    }
}

/* A simulation that blows up (explicit Euler, far too large a step): status 1 and the
   library's message — by default the local-error estimate stops it at once, suggesting a
   step; with --no-error-estimate it runs until the state overflows; a file that cannot be
   written: status 1; a failed check: status 3. */
/* A ball on a restitution stop with the default rest velocity, RK4 at 1 ms past the Zeno
   time: the check passes (it used to fall through the stop with the check "ok"); a result
   whose stop coordinate went beyond the limit fails the check, naming the stop. */
static void test_cli_stop_check(void **state)
{
    (void)state;
    need_cli();
    if (!getenv("MBS_TEST_DATA")) skip();
    char path[512], *out, *err;
    snprintf(path, sizeof path, "%s/bouncing_ball_default.xml", getenv("MBS_TEST_DATA"));
    const char *steppers[] = {"rk4", "euler"};
    for (int k = 0; k < 2; ++k) {
        const char *run[] = {"run", path, "--check", "--stepper", steppers[k], NULL};
        assert_int_equal(run_cli(run, &out, &err), SIM_EXIT_OK);
        assert_non_null(strstr(out, "check           ok"));
        free(out);
        free(err);
    }
    mech m = {.energy = MECH_DRIVEN};
    sim_result r = {.stop_beyond = 0.5, .stop_element = 3, .stop_t = 4.2};
    sim_check(&m, &r);
    assert_false(r.check_ok);
    assert_non_null(strstr(r.check_msg, "joint stop #3 is 0.5 beyond its limit at t = 4.2 s"));
    r.stop_beyond = 1e-9;
    sim_check(&m, &r);
    assert_true(r.check_ok);
}

/* A model file run like a mechanism: the superset four-bar closes to 1e-10 over 1 s and its
   summary names the file; a file that does not load is status 1 with the loader's message. */
static void test_cli_model_file(void **state)
{
    (void)state;
    need_cli();
    if (!getenv("MBS_TEST_DATA")) skip();
    char path[512], bad[] = "/nonexistent/model.urdf", *out, *err;
    snprintf(path, sizeof path, "%s/fourbar_superset.xml", getenv("MBS_TEST_DATA"));
    const char *run[] = {"run", path, "--t-end", "1", NULL};
    assert_int_equal(run_cli(run, &out, &err), SIM_EXIT_OK);
    assert_non_null(strstr(out, "fourbar_superset: model file"));
    assert_non_null(strstr(out, "loops           1 (5 constraint rows, rank 2"));
    const char *res = strstr(out, "max residual    ");
    assert_non_null(res);
    assert_true(strtod(res + 16, NULL) < 1e-10);
    free(out);
    free(err);
    const char *missing[] = {"run", bad, NULL};
    assert_int_equal(run_cli(missing, &out, &err), SIM_EXIT_FAIL);
    assert_non_null(strstr(err, "/nonexistent/model.urdf"));
    free(out);
    free(err);
}

/* Write text into a scratch file; its path. */
static const char *scratch_file(int slot, const char *name, const char *text)
{
    const char *path = scratch(slot, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* A robot file as shipped: its foreign elements are warnings on stderr, the run goes on;
   --floating-base frees the root (7 degrees of freedom instead of 1). */
static void test_cli_load_options(void **state)
{
    (void)state;
    need_cli();
    const char *path = scratch_file(2, "shipped.urdf",
        "<robot name=\"r\">\n<link name=\"base\"><inertial><mass value=\"2\"/><inertia ixx=\"0.1\" ixy=\"0\" "
        "ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link>\n<link name=\"arm\"><inertial>"
        "<origin xyz=\"0.5 0 0\"/><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" "
        "iyz=\"0\" izz=\"0.01\"/></inertial></link>\n<joint name=\"hinge\" type=\"revolute\"><parent "
        "link=\"base\"/><child link=\"arm\"/><axis xyz=\"0 1 0\"/></joint>\n<sensor name=\"imu\"/>\n</robot>\n");
    for (int fl = 0; fl < 2; ++fl) {
        const char *args[] = {"run", path, "--t-end", "0.05", fl ? "--floating-base" : "--check", NULL};
        char *out, *err;
        assert_int_equal(run_cli(args, &out, &err), SIM_EXIT_OK);
        if (!strstr(err, "mbs-sim: warning: ") || !strstr(err, ":5: <sensor name=\"imu\">: skipped")) fail_msg("%s", err);
        if (!strstr(out, fl ? "7 degrees of freedom" : "1 degree of freedom")) fail_msg("%s", out);
        free(out);
        free(err);
    }
}

#define PENDULUM_FILE(extra)                                                                 \
    "<robot name=\"p\"><link name=\"world\"/><link name=\"bob\"><inertial>"                    \
    "<origin xyz=\"0.5 0 0\"/><mass value=\"1\"/><inertia ixx=\"1e-3\" ixy=\"0\" ixz=\"0\" "  \
    "iyy=\"1e-3\" iyz=\"0\" izz=\"1e-3\"/></inertial></link><joint name=\"rev\" "              \
    "type=\"continuous\"><parent link=\"world\"/><child link=\"bob\"/><axis xyz=\"0 0 1\"/>"   \
    "</joint><gravity xyz=\"0 -9.81 0\"/>" extra "</robot>"

/* Names a CSV reader would split (a comma, a quote, a line break) are quoted as RFC 4180
   asks, a quote doubled; plain names stay bare. The header was one line per line break. */
static void test_csv_header_quoting(void **state)
{
    (void)state;
    char *names[4] = {"t", "q.a,b", "v.say \"hi\"", "x.two\nlines"};
    sim_table t = {.ncol = 4, .names = names};
    sim_csv c;
    char err[SIM_MSG];
    const char *path = scratch(2, "quoted.csv");
    assert_int_equal(sim_csv_open(&c, path, &t, err, sizeof err), 0);
    assert_int_equal(sim_csv_close(&c, err, sizeof err), 0);
    char *text = slurp(path);
    assert_string_equal(text, "t,\"q.a,b\",\"v.say \"\"hi\"\"\",\"x.two\nlines\"\n");
    free(text);
}

/* Inputs that are no regular file are refused at once (a FIFO as the model blocked mbs-sim
   for ever; a FIFO or /dev/zero as a mesh is not read); an output that is the model file, or
   two outputs that are one file, are refused before anything is written. */
static void test_cli_hostile_paths(void **state)
{
    (void)state;
    need_cli();
    char *out, *err;
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s", scratch(2, "fifo.xml"));
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *a1[] = {"run", fifo, "--t-end", "0.01", NULL};
    assert_int_equal(run_cli(a1, &out, &err), 1);
    if (!strstr(err, "not a regular file (a FIFO)")) fail_msg("stderr: %s", err);
    free(out), free(err);
    float *tri = NULL;
    long ntri = 0;
    char msg[SIM_MSG];
    const double one[3] = {1, 1, 1};
    assert_int_equal(sim_mesh_load(NULL, fifo, one, &tri, &ntri, msg, sizeof msg), -1);
    assert_int_equal(sim_mesh_load(NULL, "/dev/zero", one, &tri, &ntri, msg, sizeof msg), -1);
    assert_null(tri);
    const char *model = scratch_file(3, "self.xml", PENDULUM_FILE(""));
    const char *a2[] = {"run", model, "--t-end", "0.01", "--out", model, NULL};
    assert_int_equal(run_cli(a2, &out, &err), 2);
    if (!strstr(err, "--out and the model file name the same file")) fail_msg("stderr: %s", err);
    free(out), free(err);
    char twin[160], csv[160];
    snprintf(csv, sizeof csv, "%s", scratch(2, "twin.csv"));
    snprintf(twin, sizeof twin, "%s/./twin.csv", g_dir); /* another spelling of one file */
    const char *a3[] = {"run", model, "--t-end", "0.01", "--out", csv, "--gltf", twin, NULL};
    assert_int_equal(run_cli(a3, &out, &err), 2);
    if (!strstr(err, "--out and --gltf name the same file")) fail_msg("stderr: %s", err);
    free(out), free(err);
    const char *a4[] = {"run", model, "--t-end", "0.01", "--out", csv, "--animate", csv, NULL};
    assert_int_equal(run_cli(a4, &out, &err), 2);
    if (!strstr(err, "--out and --animate name the same file")) fail_msg("stderr: %s", err);
    free(out), free(err);
    struct stat sb;
    assert_true(stat(csv, &sb) != 0); /* nothing written */
    remove(fifo);
}

/* A model file's mbs-sim elements: run settings, energy check, tracked point, plot signals
   and start values come from the file; bad elements name the file, line and element. */
static void test_model_metadata(void **state)
{
    (void)state;
    const char *path = scratch_file(2, "pend.xml", PENDULUM_FILE(
        "<simulation title=\"a pendulum\" source=\"Otter 2003\" t_end=\"0.5\" stepper=\"euler\" "
        "dt=\"2e-3\" energy=\"conservative\" energy_tol=\"1e-2\" closure_tol=\"1e-9\"/>"
        "<initial joint=\"rev\" q=\"0.5\" v=\"-1\"/>"
        "<track label=\"tip\" link=\"bob\" point=\"1 0 0\"/><plot signals=\"q.rev, x.tip\"/>"));
    char err[SIM_MSG];
    mech *m = sim_model_open(path, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_string_equal(m->name, "pend");
    assert_string_equal(m->title, "a pendulum");
    assert_string_equal(m->source, "Otter 2003");
    assert_true(m->t_end == 0.5 && m->dt == 2e-3 && m->stepper == MBS_STEP_EULER);
    assert_true(m->energy == MECH_CONSERVATIVE && m->energy_tol == 1e-2 && m->closure_tol == 1e-9);
    assert_string_equal(m->plot[1], "x.tip");
    assert_null(m->plot[2]);
    sim_io io = {.plot = 1};
    sim_result r;
    sim_settings s;
    assert_int_equal(run_mech(m, 0.0, &io, &r, &s), MBS_OK);
    assert_int_equal(r.steps, 250);
    if (!r.check_ok) fail_msg("%s", r.check_msg);
    assert_int_equal(io.ncols, 2);
    assert_int_equal(io.cols[1], sim_table_find(&r.table, "x.tip"));
    assert_true(r.table.rows[sim_table_find(&r.table, "q.rev")] == 0.5); /* start value */
    assert_true(r.table.rows[sim_table_find(&r.table, "v.rev")] == -1.0);
    assert_true(fabs(r.table.rows[sim_table_find(&r.table, "x.tip")] - cos(0.5)) < 1e-15);
    sim_result_free(&r);
    sim_model_free(m);
    static const struct {
        const char *extra, *want;
    } bad[] = {
        {"<simulation stepper=\"rk5\"/>", "<simulation>: stepper=\"rk5\": expected rk4"},
        {"<simulation t_end=\"-1\"/>", "<simulation>: t_end=\"-1\": expected a positive number"},
        {"<simulation tend=\"1\"/>", "<simulation>: unknown attribute tend"},
        {"<simulation energy=\"lossy\"/>", "energy=\"lossy\": expected conservative"},
        {"<simulation/><simulation/>", "a second <simulation>"},
        {"<track link=\"bob\"/>", "<track>: attribute label is missing"},
        {"<track label=\"a b\" link=\"bob\"/>", "no commas, spaces or quotes"},
        {"<track label=\"t\" link=\"bob\" point=\"1 0\"/>", "point=\"1 0\": expected 3"},
        {"<plot signals=\"\"/>", "<plot>: attribute signals is missing"},
        {"<plot signals=\"q.rev\"/><plot signals=\"v.rev\"/>", "a second <plot>"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        char text[2048];
        snprintf(text, sizeof text, PENDULUM_FILE("%s"), bad[k].extra);
        path = scratch_file(2, "bad.xml", text);
        assert_null(sim_model_open(path, err, sizeof err));
        if (!strstr(err, bad[k].want) || !strstr(err, "bad.xml:1: <"))
            fail_msg("case %zu: '%s' lacks '%s'", k, err, bad[k].want);
    }
    /* a signal or link the model lacks: found when the run starts */
    path = scratch_file(2, "bad.xml", PENDULUM_FILE("<track label=\"t\" link=\"nope\"/>"));
    m = sim_model_open(path, err, sizeof err);
    assert_non_null(m);
    sim_io io2 = {.plot = 0};
    assert_true(sim_run(m, &s, &io2, &r, err, sizeof err) < 0);
    assert_non_null(strstr(err, "tracked body \"nope\" is not in the model"));
    sim_result_free(&r);
    sim_model_free(m);
    path = scratch_file(2, "bad.xml", "<robot");
    assert_null(sim_model_open(path, err, sizeof err));
    assert_non_null(strstr(err, "bad.xml:1: not a model file"));
}

/* MBS_MODELS names the models folder: list and run find a model there; a folder that is not
   there is one clear error. */
static void test_cli_models_env(void **state)
{
    (void)state;
    need_cli();
    char *out, *err, dir[160];
    snprintf(dir, sizeof dir, "%s/models", g_dir);
    mkdir(dir, 0755);
    char path[256];
    snprintf(path, sizeof path, "%s/models/mine.xml", g_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(PENDULUM_FILE("<simulation title=\"my pendulum\" source=\"none\" t_end=\"0.1\"/>"
                        "<track label=\"bob\" link=\"bob\" point=\"0.5 0 0\"/>"
                        "<plot signals=\"q.rev\"/>"), f);
    fclose(f);
    char env[200];
    snprintf(env, sizeof env, "MBS_MODELS=%s", dir);
    const char *list[] = {"list", NULL}, *run[] = {"run", "mine", NULL};
    assert_int_equal(run_cli_env(list, env, &out, &err), 0);
    if (strncmp(out, "mine                 my pendulum\n", 33)) fail_msg("list: %s", out);
    assert_int_equal(count_lines(out), 2);
    free(out);
    free(err);
    assert_int_equal(run_cli_env(run, env, &out, &err), 0);
    assert_non_null(strstr(out, "mine: my pendulum"));
    free(out);
    free(err);
    assert_int_equal(run_cli_env(list, "MBS_MODELS=/nonexistent/models", &out, &err), SIM_EXIT_FAIL);
    assert_string_equal(err, "mbs-sim: MBS_MODELS=/nonexistent/models is not a folder\n");
    free(out);
    free(err);
    remove(path);
    rmdir(dir);
}

static void test_cli_failures(void **state)
{
    (void)state;
    need_cli();
    char *out, *err;
    const char *estimate[] = {"run", "robot_r3", "--stepper", "euler", "--dt", "0.1",
                              "--t-end", "200", NULL};
    assert_int_equal(run_cli(estimate, &out, &err), SIM_EXIT_FAIL);
    assert_non_null(strstr(err, "MBS_ERR_SOLVER"));
    assert_non_null(strstr(err, "a step of about"));
    assert_int_equal(count_lines(err), 1);
    free(out);
    free(err);
    const char *diverge[] = {"run", "robot_r3", "--stepper", "euler", "--dt",
                             "0.1", "--t-end",  "200",       "--no-error-estimate", NULL};
    assert_int_equal(run_cli(diverge, &out, &err), SIM_EXIT_FAIL); /* Euler's guard */
    assert_true(!strncmp(err, "mbs-sim: robot_r3: simulation failed at t = ", 44));
    assert_non_null(strstr(err, "MBS_ERR_SOLVER"));
    assert_non_null(strstr(err, "beyond the method's stability"));
    assert_int_equal(count_lines(err), 1);
    free(out);
    free(err);
    const char *nofile[] = {"run", "pendulum", "--out", "/nonexistent/dir/x.csv", NULL};
    assert_int_equal(run_cli(nofile, &out, &err), SIM_EXIT_FAIL);
    assert_string_equal(
        err,
        "mbs-sim: pendulum: cannot write '/nonexistent/dir/x.csv': No such file or directory\n");
    free(out);
    free(err);
    /* symplectic Euler at 10 ms keeps the triple pendulum bounded but not its energy */
    const char *check[] = {"run",  "triple_pendulum", "--stepper", "euler", "--dt",
                           "0.01", "--check",         "--no-error-estimate", NULL};
    assert_int_equal(run_cli(check, &out, &err), SIM_EXIT_CHECK);
    assert_non_null(strstr(out, "check           FAILED: energy not conserved"));
    free(out);
    free(err);
}

/* A run writing CSV and SVG: the summary has every field, the CSV parses back with one row
   per step and consistent values, the SVG is well-formed with one polyline per signal. */
static void test_cli_csv_and_svg(void **state)
{
    (void)state;
    need_cli();
    char *out, *err;
    const char *csv = scratch(2, "p.csv"), *svg = scratch(3, "p.svg");
    const char *args[] = {"run",   "pendulum", "--t-end", "0.25", "--dt", "0.001",
                          "--out", csv,        "--plot",  svg,    NULL};
    assert_int_equal(run_cli(args, &out, &err), 0);
    assert_string_equal(err, ""); /* no progress line: stderr is not a terminal */
    static const char *const fields[] = {
        "1 degree of freedom", "loops",        "redundant rows dropped",
        "steps           250", "wall time",    "real-time factor",
        "energy drift",        "max residual", "check           ok"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
        if (!strstr(out, fields[i])) fail_msg("summary lacks '%s':\n%s", fields[i], out);
    free(out);
    free(err);
    csv_data c;
    parse_csv(csv, &c);
    static const char *const header[] = {"t",     "q.rev",   "v.rev",     "x.bob", "y.bob",
                                         "z.bob", "kinetic", "potential", "energy"};
    assert_int_equal(c.ncol, 9);
    for (int i = 0; i < 9; ++i) assert_string_equal(c.names[i], header[i]);
    assert_int_equal(c.nrow, 251);
    for (int i = 0; i < c.nrow; ++i) {
        const double *row = c.v + i * c.ncol;
        assert_true(fabs(row[0] - 0.001 * i) < 1e-9);
        assert_true(fabs(row[3] - 0.5 * cos(row[1])) < 1e-9 &&
                    fabs(row[4] - 0.5 * sin(row[1])) < 1e-9);
        assert_true(fabs(row[6] + row[7] - row[8]) < 1e-9);
    }
    free(c.v);
    svg_info info;
    check_svg(svg, &info);
    assert_string_equal(info.root, "svg");
    assert_int_equal(info.polylines, 2);
    assert_int_equal(info.points[0], 251);
    assert_int_equal(info.points[1], 251);
    assert_non_null(strstr(info.text, "|q.rev|"));
    assert_non_null(strstr(info.text, "|v.rev|"));
    assert_non_null(strstr(info.text, "time t [s]"));
}

/* A long run keeps at most SIM_PLOT_ROWS + 1 plot points; a partial last step ends at t_end;
   chosen signals of a free body. */
static void test_cli_plot_decimation(void **state)
{
    (void)state;
    need_cli();
    char *out, *err;
    const char *csv = scratch(2, "f.csv"), *svg = scratch(3, "f.svg");
    const char *args[] = {"run",       "free_body_springs",
                          "--t-end",   "10.0005",
                          "--out",     csv,
                          "--plot",    svg,
                          "--signals", "q.free_bar.qw,v.free_bar.wz,energy",
                          NULL};
    assert_int_equal(run_cli(args, &out, &err), 0);
    free(out);
    free(err);
    csv_data c;
    parse_csv(csv, &c);
    assert_int_equal(c.nrow, 10002);
    assert_true(c.v[(c.nrow - 1) * c.ncol] == 10.0005);
    assert_string_equal(c.names[4], "q.free_bar.qw");
    assert_string_equal(c.names[c.ncol - 1], "energy");
    free(c.v);
    svg_info info;
    check_svg(svg, &info);
    assert_int_equal(info.polylines, 3);
    for (int i = 0; i < 3; ++i)
        assert_true(info.points[i] >= 2000 && info.points[i] <= SIM_PLOT_ROWS + 1);
    assert_non_null(strstr(info.text, "|energy|"));
}

/* ---------------------------------------------------------------- modes, linearize */

/* Every mechanism linearises about its initial state (and at rest): nx = 2 dof, finite A
   with the identity in its top right block, finite eigenvalues in conjugate pairs; the door
   on two coaxial hinges has the one mode sqrt(k / J) of its torsion spring (gravity along
   the hinges), J = m (w^2 + t^2) / 12 + m (w / 2)^2 about the hinge axis. */
static void test_linear_every_mechanism(void **state)
{
    (void)state;
    int count = 0;
    char msg[SIM_MSG];
    mech **all = sim_models_all(&count, msg, sizeof msg);
    if (!all) fail_msg("%s", msg);
    for (int i = 0; i < count; ++i)
        for (int rest = 0; rest < 2; ++rest) {
            sim_linear s;
            char err[SIM_MSG];
            const int st = sim_linear_run(all[i], rest, 1, &s, err, sizeof err);
            if (st != MBS_OK) fail_msg("%s: %s", all[i]->name, err);
            int rank = 0;
            assert_int_equal(mbs_constraint_info(s.d, &rank, NULL), MBS_OK);
            const int nd = mbs_model_nv(s.model) - rank;
            assert_int_equal(s.nx, 2 * nd);
            for (int r = 0; r < s.nx; ++r)
                for (int c = 0; c < s.nx; ++c) {
                    const double a = s.A[r * s.nx + c];
                    assert_true(isfinite(a));
                    if (r < nd && c >= nd) assert_true(a == (c - nd == r ? 1.0 : 0.0));
                }
            for (int k = 0; k < s.nx; ++k) {
                assert_true(isfinite(s.re[k]) && isfinite(s.im[k]));
                if (s.im[k] > 0.0) assert_true(s.im[k + 1] == -s.im[k] && s.re[k + 1] == s.re[k]);
            }
            sim_linear_free(&s);
        }
    sim_models_free(all, count);
    sim_linear s;
    char err[SIM_MSG];
    mech *door = sim_model_find("door_hinges", err, sizeof err);
    assert_non_null(door);
    assert_int_equal(sim_linear_run(door, 0, 1, &s, err, sizeof err), MBS_OK);
    sim_model_free(door);
    const double m = 20.0, w = 0.8, t = 0.04, J = m * (w * w + t * t) / 12.0 + m * 0.25 * w * w;
    const double omega = sqrt(20.0 / J);
    print_message("door_hinges: %.12g rad/s, sqrt(k / J) = %.12g\n", s.im[0], omega);
    assert_int_equal(s.nx, 2);
    assert_true(fabs(s.im[0] - omega) < 1e-6 * omega && fabs(s.re[0]) < 1e-6 * omega);
    sim_linear_free(&s);
}

/* `mbs-sim modes door_hinges`: the table with the frequency in Hz; `mbs-sim linearize`: the
   CSV of A (a header of state names, the rows equal to the library's A to the last digit)
   and of B; a model file; bad command lines (status 2, one line) and an unwritable file
   (status 1). */
static void test_cli_modes_linearize(void **state)
{
    (void)state;
    need_cli();
    char *out, *err;
    const char *modes[] = {"modes", "door_hinges", NULL};
    assert_int_equal(run_cli(modes, &out, &err), SIM_EXIT_OK);
    assert_non_null(strstr(out, "f_n [Hz]"));
    assert_non_null(strstr(out, "0.344473")); /* sqrt(k / J) / 2 pi */
    assert_non_null(strstr(out, "1 degree of freedom: hinge1"));
    free(out), free(err);
    const char *lin[] = {"linearize", "double_pendulum", "--out", scratch(2, "A.csv"), "--out-b",
                         scratch(3, "B.csv"), NULL};
    assert_int_equal(run_cli(lin, &out, &err), SIM_EXIT_OK);
    assert_non_null(strstr(out, "A (4 x 4) and B written to"));
    free(out), free(err);
    char *csv = slurp(scratch(2, "A.csv"));
    assert_true(!strncmp(csv, "dq.revolute1,dq.revolute2,dv.revolute1,dv.revolute2\n", 52));
    assert_int_equal(count_lines(csv), 5);
    sim_linear s;
    char msg[SIM_MSG];
    mech *dp = sim_model_find("double_pendulum", msg, sizeof msg);
    assert_non_null(dp);
    assert_int_equal(sim_linear_run(dp, 0, 0, &s, msg, sizeof msg), MBS_OK);
    sim_model_free(dp);
    char *p = strchr(csv, '\n') + 1;
    for (int i = 0; i < 16; ++i) {
        char *end;
        const double x = strtod(p, &end);
        assert_true(end != p && x == s.A[i]);
        p = end + 1;
    }
    sim_linear_free(&s);
    free(csv);
    csv = slurp(scratch(3, "B.csv"));
    assert_true(!strncmp(csv, "tau0,tau1\n", 10));
    assert_int_equal(count_lines(csv), 5);
    free(csv);
    if (getenv("MBS_TEST_DATA")) {
        char path[512];
        snprintf(path, sizeof path, "%s/fourbar_superset.xml", getenv("MBS_TEST_DATA"));
        const char *file[] = {"modes", path, "--rest", NULL};
        assert_int_equal(run_cli(file, &out, &err), SIM_EXIT_OK);
        assert_non_null(strstr(out, "initial position at rest (1 degree of freedom"));
        free(out), free(err);
    }
    static const struct {
        const char *args[5];
        int status;
        const char *msg;
    } bad[] = {
        {{"modes", NULL}, 2, "mbs-sim: modes: missing model name (see 'mbs-sim list')\n"},
        {{"modes", "nope", NULL}, 2, "mbs-sim: unknown model 'nope' (in "},
        {{"modes", "pendulum", "--bogus", NULL}, 2, "mbs-sim: modes: unknown option '--bogus'"},
        {{"linearize", "pendulum", NULL}, 2, "mbs-sim: linearize: --out A.csv is required\n"},
        {{"linearize", "pendulum", "--out", NULL}, 2, "mbs-sim: linearize: --out: missing file name\n"},
        {{"linearize", "pendulum", "--out", "/nonexistent/A.csv"}, 1,
         "mbs-sim: pendulum: cannot write /nonexistent/A.csv\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(run_cli(bad[i].args, &out, &err), bad[i].status);
        if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0) fail_msg("got: %s", err);
        assert_int_equal(count_lines(err), 1);
        free(out), free(err);
    }
}

/* The scratch folder of the CLI tests. */
static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/mbs_test_sim_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

/* Remove the scratch files and folder. */
static int teardown(void **state)
{
    (void)state;
    static const char *const files[] = {"stdout.txt", "stderr.txt", "w.svg", "p.csv",
                                        "p.svg",      "f.csv",      "f.svg", "A.csv",
                                        "B.csv",      "bad.xml",    "pend.xml",
                                        "quoted.csv", "self.xml"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) remove(scratch(0, files[i]));
    return rmdir(g_dir);
}

/* ---------------------------------------------------------------- equilibrium */

/* The equilibrium value of row "q.<name>" in a printed table; NAN when absent. */
static double table_value(const char *text, const char *name)
{
    char key[96];
    snprintf(key, sizeof key, "  q.%s ", name);
    const char *row = strstr(text, key);
    if (!row) return NAN;
    char *end;
    strtod(row + strlen(key), &end); /* start */
    return strtod(end, NULL);
}

/* sim_equilibrium on every built-in mechanism: a table whose residual (largest |qacc| at
   rest) is below 1e-9, or a one-line reason naming the status; the pendulum hangs at
   q.rev = -pi/2 (closed form, 1e-10). */
static void test_equilibrium_every_mechanism(void **state)
{
    (void)state;
    int count = 0, found = 0;
    char msg[SIM_MSG];
    mech **all = sim_models_all(&count, msg, sizeof msg);
    if (!all) fail_msg("%s", msg);
    for (int i = 0; i < count; ++i) {
        char *text = NULL, err[SIM_MSG] = "";
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        const int st = sim_equilibrium(all[i], f, err, sizeof err);
        fclose(f);
        if (st == MBS_OK) {
            const char *res = strstr(text, "residual: largest |qacc| at rest ");
            assert_non_null(res);
            const double r = strtod(res + 33, NULL);
            if (!(r < 1e-9)) fail_msg("%s: residual %g", all[i]->name, r);
            ++found;
        } else {
            assert_non_null(strstr(err, "no equilibrium found: MBS_ERR_"));
            assert_null(strchr(err, '\n'));
        }
        if (!strcmp(all[i]->name, "pendulum")) {
            assert_int_equal(st, MBS_OK);
            assert_true(fabs(table_value(text, "rev") + PI / 2) < 1e-10);
        }
        free(text);
    }
    sim_models_free(all, count);
    assert_true(found >= count / 2);
}

/* `mbs-sim equilibrium`: a table on stdout (status 0), for a model file too; a mechanism
   without equilibrium
   (point masses in point gravity) is status 1 with one line naming it; usage errors 2. */
static void test_cli_equilibrium(void **state)
{
    (void)state;
    need_cli();
    char *out, *err;
    const char *ok[] = {"equilibrium", "double_pendulum", NULL};
    assert_int_equal(run_cli(ok, &out, &err), SIM_EXIT_OK);
    assert_non_null(strstr(out, "double_pendulum: static equilibrium"));
    assert_true(fabs(table_value(out, "revolute1") + PI / 2) < 1e-10);
    assert_string_equal(err, "");
    free(out);
    free(err);
    const char *none[] = {"equilibrium", "point_gravity", NULL};
    assert_int_equal(run_cli(none, &out, &err), SIM_EXIT_FAIL);
    assert_true(!strncmp(err, "mbs-sim: point_gravity: no equilibrium found: MBS_ERR_", 54));
    assert_int_equal(count_lines(err), 1);
    free(out);
    free(err);
    if (getenv("MBS_TEST_DATA")) { /* a model file: the superset four-bar, closed */
        char path[512];
        snprintf(path, sizeof path, "%s/fourbar_superset.xml", getenv("MBS_TEST_DATA"));
        const char *file[] = {"equilibrium", path, NULL};
        assert_int_equal(run_cli(file, &out, &err), SIM_EXIT_OK);
        const char *res = strstr(out, "residual: largest |qacc| at rest ");
        assert_non_null(res);
        assert_true(strtod(res + 33, NULL) < 1e-9);
        free(out);
        free(err);
    }
    const char *bad[] = {"equilibrium", "nope", NULL}, *missing[] = {"equilibrium", NULL};
    assert_int_equal(run_cli(bad, &out, &err), SIM_EXIT_USAGE);
    assert_true(!strncmp(err, "mbs-sim: unknown model 'nope'", 29));
    free(out);
    free(err);
    assert_int_equal(run_cli(missing, &out, &err), SIM_EXIT_USAGE);
    assert_string_equal(err, "mbs-sim: equilibrium: takes one mechanism name or model file\n");
    free(out);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_each_mechanism_sanity),
        cmocka_unit_test(test_pendulum_matches_msl),
        cmocka_unit_test(test_point_gravity_orbit_closes),
        cmocka_unit_test(test_loop_counts),
        cmocka_unit_test(test_door_swings_like_one_hinge),
        cmocka_unit_test(test_engine_piston),
        cmocka_unit_test(test_engine_v6_pistons),
        cmocka_unit_test(test_two_loops_work),
        cmocka_unit_test(test_tilted_loop_rows),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_svg_writer),
        cmocka_unit_test(test_cli_list_and_demo),
        cmocka_unit_test(test_cli_bad_command_lines),
        cmocka_unit_test(test_cli_failures),
        cmocka_unit_test(test_cli_model_file),
        cmocka_unit_test(test_cli_stop_check),
        cmocka_unit_test(test_cli_models_env),
        cmocka_unit_test(test_model_metadata),
        cmocka_unit_test(test_csv_header_quoting),
        cmocka_unit_test(test_cli_hostile_paths),
        cmocka_unit_test(test_cli_csv_and_svg),
        cmocka_unit_test(test_cli_plot_decimation),
        cmocka_unit_test(test_equilibrium_every_mechanism),
        cmocka_unit_test(test_cli_equilibrium),
        cmocka_unit_test(test_linear_every_mechanism),
        cmocka_unit_test(test_cli_modes_linearize),
        cmocka_unit_test(test_cli_help_and_missing_file),
        cmocka_unit_test(test_csv_round_trip),
        cmocka_unit_test(test_cli_load_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
