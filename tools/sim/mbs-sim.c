/* mbs-sim: simulate model files from the command line, among them the models shipped with
 * mbs (models/, installed to share/mbs/models; found as sim_models_dir says).
 *
 *   mbs-sim                 demo: every shipped model at its defaults, one line each
 *   mbs-sim list            the shipped models
 *   mbs-sim run NAME [...]  simulate one (NAME, or FILE.urdf / FILE.xml / FILE.sdf) and print a summary
 *   mbs-sim equilibrium NAME  its static equilibrium from the initial state
 *
 * Errors are one line on stderr, "mbs-sim: ...", with exit status 1 (a failed simulation
 * or file), 2 (a bad command line) or 3 (--check and the sanity check failed). */
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "sim_anim.h"

#ifndef MBS_SIM_VERSION
#define MBS_SIM_VERSION "unknown"
#endif

/* The help text. */
static void usage(FILE *f)
{
    fputs("usage: mbs-sim                  run every model shipped with mbs (demo)\n"
          "       mbs-sim list             list the shipped models (folder: $MBS_MODELS, or\n"
          "                                share/mbs/models of the installation)\n"
          "       mbs-sim run NAME [options]                 a shipped model\n"
          "       mbs-sim run FILE.urdf|FILE.xml|FILE.sdf [options]   any model file (docs/model-files.md)\n"
          "       mbs-sim equilibrium NAME|FILE   static equilibrium from the initial state: the\n"
          "                                coordinates before and after, the residual\n"
          "       mbs-sim modes NAME|FILE [--rest]\n"
          "                                the modes about the initial state (--rest: with\n"
          "                                v = 0): frequencies [Hz], damping ratios\n"
          "       mbs-sim linearize NAME|FILE --out A.csv [--out-b B.csv] [--rest]\n"
          "                                the state-space A (and B) about the initial state:\n"
          "                                a header of state names, then the rows\n"
          "options of run (defaults: the file's <simulation> element):\n"
          "  --t-end T          simulated time [s]\n"
          "  --stepper S        euler | rk4 | adams | bdf\n"
          "  --dt H             step of euler and rk4, output interval of adams and bdf [s]\n"
          "  --rtol R, --atol A tolerances of adams and bdf\n"
          "  --out FILE.csv     write t, q, v, tracked body positions and energies\n"
          "  --every K          write every K-th sample to the CSV (and the last)\n"
          "  --plot FILE.svg    plot signals against time\n"
          "  --signals A,B,...  the plotted signals: CSV column names (default: the\n"
          "                     file's <plot>; at most 10)\n"
          "  --animate FILE.html  a 3-D animation of the motion (one self-contained page,\n"
          "                     three.js, 60 frames per second)\n"
          "  --gltf FILE.glb    the same motion as an animated glTF 2.0 binary (Blender, ...)\n"
          "  --check            exit with status 3 when the sanity check fails\n"
          "  --floating-base    the model file's root link gets a free joint (not welded)\n"
          "  --balance-inertia  moving links' inertias against the triangle inequality are\n"
          "                     replaced by their mean principal moment (warned)\n"
          "  --no-error-estimate  euler and rk4 run without the local-error estimate that\n"
          "                     stops a step far beyond stability and suggests a step size\n"
          "                     (it costs two extra steps per step)\n"
          "  --progress, --no-progress\n"
          "                     progress line on stderr (default: when it is a terminal)\n"
          "an option given twice is an error.\n"
          "exit status: 0 ok, 1 simulation or file failure, 2 bad command line,\n"
          "             3 sanity check failed (with --check)\n",
          f);
}

/* One-line error on stderr; returns the exit status. */
static int fail(int status, const char *msg)
{
    fprintf(stderr, "mbs-sim: %s\n", msg);
    return status;
}

/* `mbs-sim list`: name, title and source of every shipped model. */
static int cmd_list(void)
{
    char err[SIM_MSG];
    int count = 0;
    mech **all = sim_models_all(&count, err, sizeof err);
    if (!all) return fail(SIM_EXIT_FAIL, err);
    for (int i = 0; i < count; ++i)
        printf("%-20s %s\n%-20s   [%s]\n", all[i]->name, all[i]->title, "", all[i]->source);
    sim_models_free(all, count);
    return SIM_EXIT_OK;
}

/* Write the plot of a finished run. */
static int write_plot(const char *path, const mech *m, const sim_settings *s, const sim_result *r,
                      const sim_io *io, char *err, size_t n)
{
    char title[160];
    snprintf(title, sizeof title, "%s: %s, %s %g s", m->name, sim_stepper_name(s->stepper),
             s->stepper == MBS_STEP_EULER || s->stepper == MBS_STEP_RK4 ? "step" : "output", s->dt);
    return sim_svg_write(path, title, &r->table, io->cols, io->ncols, err, n);
}

/* Write the --animate page and the --gltf file of a finished run; -1 with a message. */
static int write_anim(const sim_options *o, const sim_anim *a, const mech *m,
                      const sim_settings *s, char *err, size_t n)
{
    char title[160];
    snprintf(title, sizeof title, "mbs-sim %s: %s, %s %g s, %g s", m->name, m->title,
             sim_stepper_name(s->stepper), s->dt, sim_anim_duration(a));
    if (o->anim_path && sim_anim_write_html(a, o->anim_path, title, err, n) < 0) return -1;
    if (o->gltf_path && sim_gltf_write(a, o->gltf_path, title, err, n) < 0) return -1;
    return 0;
}

/* Size of a file in MB (for the summary), or -1. */
static double file_mb(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1.0;
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fclose(f);
    return len < 0 ? -1.0 : (double)len / 1e6;
}

/* Files line(s) after the summary. */
static void print_files(const sim_options *o, const sim_result *r, const sim_io *io)
{
    for (int k = 0; k < 2 && io->anim; ++k) {
        const char *path = k ? o->gltf_path : o->anim_path;
        if (path)
            printf("  %-15s %s (%ld frames, %.3g s, %.2f MB)\n", k ? "gltf" : "animation", path,
                   io->anim->nframe, sim_anim_duration(io->anim), file_mb(path));
    }
    if (io->anim && io->anim->nmesh_skipped > 0)
        printf("  %-15s %d mesh visual%s not drawn (first: %s)\n", "", io->anim->nmesh_skipped,
               io->anim->nmesh_skipped == 1 ? "" : "s", io->anim->mesh_note);
    if (o->csv_path)
        printf("  csv             %s (%ld rows x %d columns)\n", o->csv_path, r->csv_rows,
               r->table.ncol);
    if (o->svg_path)
        printf("  plot            %s (%d %s)\n", o->svg_path, io->ncols,
               io->ncols == 1 ? "signal" : "signals");
}

static int run_mech(const sim_options *po, const mech *m);

/* `mbs-sim run NAME [options]`. */
static int cmd_run(int argc, char **argv)
{
    char err[SIM_MSG];
    sim_options o;
    const int parsed = sim_parse_run(argc, argv, &o, err, sizeof err);
    if (parsed == 1) {
        usage(stdout);
        return SIM_EXIT_OK;
    }
    if (parsed < 0) return fail(SIM_EXIT_USAGE, err);
    mech *m = sim_model_find(o.mechanism, err, sizeof err);
    if (!m) return fail(strncmp(err, "unknown model", 13) ? SIM_EXIT_FAIL : SIM_EXIT_USAGE, err);
    const int code = run_mech(&o, m);
    sim_model_free(m);
    return code;
}

/* Run model m with the options; writes the files and prints the summary. */
static int run_mech(const sim_options *po, const mech *m)
{
    char err[SIM_MSG];
    const sim_options o = *po;
    sim_settings s;
    if (sim_resolve(m, &o, &s, err, sizeof err) < 0) return fail(SIM_EXIT_USAGE, err);
    if (o.signals && !o.svg_path) return fail(SIM_EXIT_USAGE, "--signals needs --plot FILE.svg");
    if (o.anim_path && !sim_anim_html_available())
        return fail(SIM_EXIT_FAIL, "--animate: mbs-sim was built without three.js (Debian "
                                   "package libjs-three, installed by scripts/install-deps.sh)");
    sim_anim anim;
    memset(&anim, 0, sizeof anim);
    sim_io io = {.csv_path = o.csv_path,
                 .plot = o.svg_path != NULL,
                 .signals = o.signals,
                 .progress = o.progress,
                 .anim = o.anim_path || o.gltf_path ? &anim : NULL,
                 .every = o.every,
                 .mesh_dir = m->dir};
    sim_result r;
    const int st = sim_run(m, &s, &io, &r, err, sizeof err);
    int code = st == SIM_ERR_USAGE ? SIM_EXIT_USAGE : st != MBS_OK ? SIM_EXIT_FAIL : SIM_EXIT_OK;
    if (code == SIM_EXIT_OK && o.svg_path &&
        write_plot(o.svg_path, m, &s, &r, &io, err, sizeof err) < 0)
        code = SIM_EXIT_FAIL;
    if (code == SIM_EXIT_OK && io.anim && write_anim(&o, &anim, m, &s, err, sizeof err) < 0)
        code = SIM_EXIT_FAIL;
    if (code != SIM_EXIT_OK) {
        char line[SIM_MSG + 64];
        snprintf(line, sizeof line, "%s: %s", m->name, err);
        sim_result_free(&r);
        sim_anim_free(&anim);
        return fail(code, line);
    }
    sim_print_summary(stdout, m, &s, &r);
    print_files(&o, &r, &io);
    if (o.check && !r.check_ok) code = SIM_EXIT_CHECK;
    sim_result_free(&r);
    sim_anim_free(&anim);
    return code;
}

/* `mbs-sim equilibrium NAME|FILE`. */
static int cmd_equilibrium(int argc, char **argv)
{
    if (argc != 1) return fail(SIM_EXIT_USAGE, "equilibrium: takes one mechanism name or model file");
    char err[SIM_MSG];
    mech *m = sim_model_find(argv[0], err, sizeof err);
    if (!m) return fail(strncmp(err, "unknown model", 13) ? SIM_EXIT_FAIL : SIM_EXIT_USAGE, err);
    const int st = sim_equilibrium(m, stdout, err, sizeof err);
    char line[SIM_MSG + 64];
    snprintf(line, sizeof line, "%s: %s", m->name, err);
    sim_model_free(m);
    return st == MBS_OK ? SIM_EXIT_OK : fail(SIM_EXIT_FAIL, line);
}

/* One demo table row: run m at its defaults. */
static int demo_row(const mech *m)
{
    const sim_options o = {.stepper = -1};
    sim_settings s;
    sim_result r;
    memset(&r, 0, sizeof r);
    sim_io io = {.progress = 0};
    char err[SIM_MSG];
    int st = sim_resolve(m, &o, &s, err, sizeof err);
    if (st == 0) st = sim_run(m, &s, &io, &r, err, sizeof err);
    if (st != 0) {
        printf("%-18s failed: %s\n", m->name, err);
        sim_result_free(&r);
        return 0;
    }
    const double scale = r.e_scale > 0.0 ? r.e_scale : 1.0;
    printf("%-18s %3d %5d %3d  %-5s %5g %7ld %9.3f %9.0f %10.2e %9.1e  %s\n", m->name, r.dof,
           r.nloops, r.dropped, sim_stepper_name(s.stepper), s.t_end, r.steps, 1e3 * r.wall,
           r.wall > 0.0 ? r.t_reached / r.wall : 0.0, (r.e_end - r.e0) / scale, r.residual,
           r.check_ok ? "ok" : "FAILED");
    const int ok = r.check_ok;
    sim_result_free(&r);
    return ok;
}

/* `mbs-sim` alone: every shipped model at its defaults, one table row each. */
static int cmd_demo(void)
{
    char err[SIM_MSG];
    int count = 0, ok = 0;
    mech **all = sim_models_all(&count, err, sizeof err);
    if (!all) return fail(SIM_EXIT_FAIL, err);
    printf("mbs-sim %s: every model shipped with mbs at its default settings\n\n", MBS_SIM_VERSION);
    printf("%-18s %3s %5s %3s  %-5s %5s %7s %9s %9s %10s %9s  %s\n", "model", "dof", "loops",
           "red", "step", "t_end", "steps", "wall[ms]", "realtime", "dE/E", "residual", "check");
    for (int i = 0; i < count; ++i) ok += demo_row(all[i]);
    sim_models_free(all, count);
    printf("\ndof: degrees of freedom; red: redundant constraint rows dropped; realtime:\n"
           "simulated time / wall time in the stepper; dE/E: energy change over the run\n"
           "relative to its scale (negative: dampers at work).\n"
           "Next: 'mbs-sim list', 'mbs-sim run robot_r3 --plot r3.svg --out r3.csv', "
           "'mbs-sim --help'.\n");
    return ok == count ? SIM_EXIT_OK : SIM_EXIT_FAIL;
}

/* Dispatch on the command word. */
int main(int argc, char **argv)
{
    if (argc < 2) return cmd_demo();
    for (int i = 1; i < argc; ++i) /* --help anywhere, after any command: the help, status 0 */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout), SIM_EXIT_OK;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "equilibrium")) return cmd_equilibrium(argc - 2, argv + 2);
    if (!strcmp(cmd, "modes") || !strcmp(cmd, "linearize")) {
        char msg[SIM_MSG];
        const int code = sim_linear_command(cmd[0] == 'l', argc - 2, argv + 2, msg, sizeof msg);
        return code == SIM_EXIT_OK ? code : fail(code, msg);
    }
    if (!strcmp(cmd, "list")) {
        if (argc > 2) return fail(SIM_EXIT_USAGE, "list: takes no arguments");
        return cmd_list();
    }
    if (!strcmp(cmd, "help")) {
        usage(stdout);
        return SIM_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("mbs-sim %s\n", MBS_SIM_VERSION);
        return SIM_EXIT_OK;
    }
    char err[SIM_MSG];
    snprintf(err, sizeof err, "unknown command '%s' (try 'mbs-sim --help')", cmd);
    return fail(SIM_EXIT_USAGE, err);
}
