/* mbs-sim command-line options of `run` and the settings they resolve to. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static const char *const STEPPER_NAMES[] = {"euler", "rk4", "adams", "bdf"};
static const mbs_stepper_kind STEPPER_KINDS[] = {MBS_STEP_EULER, MBS_STEP_RK4, MBS_STEP_CVODE_ADAMS,
                                                 MBS_STEP_CVODE_BDF};

/* Command-line name of a stepper kind. */
const char *sim_stepper_name(mbs_stepper_kind k)
{
    for (int i = 0; i < 4; ++i)
        if (STEPPER_KINDS[i] == k) return STEPPER_NAMES[i];
    return "?";
}

/* Stepper kind for a command-line name, or -1. */
int sim_stepper_parse(const char *name)
{
    for (int i = 0; i < 4; ++i)
        if (strcmp(STEPPER_NAMES[i], name) == 0) return (int)STEPPER_KINDS[i];
    return -1;
}

/* A finite number > 0 from the whole of text; -1 with a message otherwise. */
static int parse_positive(const char *opt, const char *text, double *out, char *err, size_t n)
{
    char *end = NULL;
    const double x = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(x) || x <= 0.0) {
        snprintf(err, n, "%s: expected a positive number, got '%s'", opt, text);
        return -1;
    }
    *out = x;
    return 0;
}

/* Split "--opt=value" or "--opt value"; returns the value or NULL with a message. */
static const char *option_value(int argc, char **argv, int *i, const char *opt, char *err, size_t n)
{
    const char *eq = strchr(argv[*i], '=');
    if (eq) return eq + 1;
    if (*i + 1 >= argc) {
        snprintf(err, n, "%s: missing value", opt);
        return NULL;
    }
    return argv[++*i];
}

/* Store a file name option; it must not be empty. */
static int set_path(const char *opt, const char *val, const char **dst, char *err, size_t n)
{
    if (val[0] == '\0') {
        snprintf(err, n, "%s: empty file name", opt);
        return -1;
    }
    *dst = val;
    return 0;
}

/* --plot writes SVG only (no raster writer here): any other name is refused, not filled with
   SVG under a misleading extension. */
static int set_svg_path(const char *opt, const char *val, const char **dst, char *err, size_t n)
{
    const size_t len = strlen(val);
    const char *ext = len >= 4 ? val + len - 4 : "";
    if (len > 0 && !(ext[0] == '.' && tolower((unsigned char)ext[1]) == 's' &&
                     tolower((unsigned char)ext[2]) == 'v' && tolower((unsigned char)ext[3]) == 'g'))
        return snprintf(err, n, "%s %s: plots are written as SVG only; name the file .svg "
                        "(convert it with e.g. rsvg-convert for a PNG)", opt, val), -1;
    return set_path(opt, val, dst, err, n);
}

/* Apply one option that takes a value. */
static int apply_valued(const char *opt, const char *val, sim_options *o, char *err, size_t n)
{
    if (strcmp(opt, "--t-end") == 0) return parse_positive(opt, val, &o->t_end, err, n);
    if (strcmp(opt, "--dt") == 0) return parse_positive(opt, val, &o->dt, err, n);
    if (strcmp(opt, "--rtol") == 0) return parse_positive(opt, val, &o->rtol, err, n);
    if (strcmp(opt, "--atol") == 0) return parse_positive(opt, val, &o->atol, err, n);
    if (strcmp(opt, "--out") == 0) return set_path(opt, val, &o->csv_path, err, n);
    if (strcmp(opt, "--plot") == 0) return set_svg_path(opt, val, &o->svg_path, err, n);
    if (strcmp(opt, "--signals") == 0) {
        if (val[0] == '\0') return snprintf(err, n, "--signals: empty list of signals"), -1;
        o->signals = val;
        return 0;
    }
    if (strcmp(opt, "--every") == 0) {
        char *end;
        const long k = strtol(val, &end, 10);
        if (*end || k < 1) return snprintf(err, n, "--every: '%s' is not a positive integer", val), -1;
        o->every = k;
        return 0;
    }
    if (strcmp(opt, "--animate") == 0) return set_path(opt, val, &o->anim_path, err, n);
    if (strcmp(opt, "--gltf") == 0) return set_path(opt, val, &o->gltf_path, err, n);
    /* --stepper */
    o->stepper = sim_stepper_parse(val);
    if (o->stepper >= 0) return 0;
    snprintf(err, n, "--stepper: unknown stepper '%s' (euler, rk4, adams or bdf)", val);
    return -1;
}

/* Is opt (without any "=value") one of the options that take a value? */
static int takes_value(const char *opt, size_t len)
{
    static const char *const names[] = {"--t-end", "--dt",   "--rtol",    "--atol",
                                        "--out",   "--plot", "--signals", "--stepper",
                                        "--animate", "--gltf", "--every"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strlen(names[i]) == len && strncmp(opt, names[i], len) == 0) return 1;
    return 0;
}

/* Apply one option argument (argv[*i] starts with '-'); 1 for --help. */
static int apply_option(int argc, char **argv, int *i, sim_options *o, char *err, size_t n)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return 1;
    if (strcmp(arg, "--check") == 0) {
        o->check = 1;
        return 0;
    }
    if (strcmp(arg, "--progress") == 0 || strcmp(arg, "--no-progress") == 0) {
        o->progress = arg[2] == 'p';
        return 0;
    }
    if (strcmp(arg, "--no-error-estimate") == 0) {
        o->error_estimate = 0;
        return 0;
    }
    if (strcmp(arg, "--floating-base") == 0 || strcmp(arg, "--balance-inertia") == 0) {
        *(arg[2] == 'f' ? &o->floating_base : &o->balance_inertia) = 1;
        return 0;
    }
    const char *eq = strchr(arg, '=');
    const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (!takes_value(arg, len)) {
        snprintf(err, n, "unknown option '%.*s' (try 'mbs-sim --help')", (int)len, arg);
        return -1;
    }
    char opt[16];
    snprintf(opt, sizeof opt, "%.*s", (int)len, arg);
    const char *val = option_value(argc, argv, i, opt, err, n);
    return val ? apply_valued(opt, val, o, err, n) : -1;
}

/* 1 (with a message) when the option of argv[i] was already given: a repeated option is an
   error rather than silently winning. */
static int repeated(int argc, char **argv, int i, char *err, size_t n)
{
    const char *eq = strchr(argv[i], '=');
    const size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
    for (int k = 0; k < i && k < argc; ++k) {
        const char *e = strchr(argv[k], '=');
        const size_t l = e ? (size_t)(e - argv[k]) : strlen(argv[k]);
        const int after_valued = k > 0 && argv[k - 1][0] == '-' && !strchr(argv[k - 1], '=') &&
                                 takes_value(argv[k - 1], strlen(argv[k - 1]));
        if (!after_valued && l == len && strncmp(argv[k], argv[i], len) == 0 && argv[k][0] == '-') {
            snprintf(err, n, "%.*s is given twice", (int)len, argv[i]);
            return 1;
        }
    }
    return 0;
}

/* Parse `run NAME [options]` (argv without the program and command words). */
int sim_parse_run(int argc, char **argv, sim_options *o, char *err, size_t n)
{
    memset(o, 0, sizeof *o);
    o->stepper = -1;
    o->progress = -1;
    o->error_estimate = 1;
    o->every = 1;
    for (int i = 0; i < argc; ++i) {
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            if (repeated(argc, argv, i, err, n)) return -1;
            const int st = apply_option(argc, argv, &i, o, err, n);
            if (st != 0) return st;
        } else if (!o->mechanism) {
            o->mechanism = argv[i];
        } else {
            snprintf(err, n, "unexpected argument '%s' (one mechanism per run)", argv[i]);
            return -1;
        }
    }
    if (!o->mechanism) {
        snprintf(err, n, "run: missing mechanism name (see 'mbs-sim list')");
        return -1;
    }
    return 0;
}

/* Mechanism defaults, overridden by the options; checks the step count. */
int sim_resolve(const mech *m, const sim_options *o, sim_settings *s, char *err, size_t n)
{
    s->t_end = o->t_end > 0.0 ? o->t_end : m->t_end;
    s->stepper = o->stepper >= 0 ? (mbs_stepper_kind)o->stepper : m->stepper;
    s->error_estimate = o->error_estimate;
    s->floating_base = o->floating_base, s->balance_inertia = o->balance_inertia;
    const int cvode = s->stepper == MBS_STEP_CVODE_ADAMS || s->stepper == MBS_STEP_CVODE_BDF;
    if (!cvode && (o->rtol > 0.0 || o->atol > 0.0)) {
        snprintf(err, n, "--rtol/--atol apply to the adams and bdf steppers only, not %s",
                 sim_stepper_name(s->stepper));
        return -1;
    }
    const int default_cvode =
        m->stepper == MBS_STEP_CVODE_ADAMS || m->stepper == MBS_STEP_CVODE_BDF;
    /* a fixed-step default dt is a fine CVODE output interval; the reverse is not true */
    s->dt = o->dt > 0.0 ? o->dt : (cvode || !default_cvode ? m->dt : 1e-3);
    s->rtol = o->rtol > 0.0 ? o->rtol : m->rtol;
    s->atol = o->atol > 0.0 ? o->atol : m->atol;
    if (s->rtol >= 1.0) {
        snprintf(err, n, "--rtol: must be below 1, got %g", s->rtol);
        return -1;
    }
    if (s->dt > s->t_end) {
        snprintf(err, n, "--dt %g is longer than --t-end %g: no full step fits", s->dt, s->t_end);
        return -1;
    }
    if (o->csv_path && o->svg_path && strcmp(o->csv_path, o->svg_path) == 0) {
        snprintf(err, n, "--out and --plot name the same file '%s'", o->csv_path);
        return -1;
    }
    const double steps = ceil(s->t_end / s->dt - 1e-9);
    if (steps > (double)SIM_MAX_STEPS) {
        snprintf(err, n, "--t-end %g with --dt %g makes %.3g steps (at most %ld)", s->t_end, s->dt,
                 steps, SIM_MAX_STEPS);
        return -1;
    }
    return 0;
}
