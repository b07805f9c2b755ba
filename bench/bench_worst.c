/* Worst-case step benchmark: every shipped model (the .xml files of models/, mbs_builder_load) stepped by
 * Euler and RK4 at 1 kHz for N steps, with the CPU time of each step (this thread's,
 * CLOCK_THREAD_CPUTIME_ID: median, p99, p99.9, max) and its load-independent work
 * (mbs_data_work: evaluations, Newton iterations, factorisations, row selections, event
 * trial steps). A real-time target plans for the worst step, not the mean.
 *   bench_worst [--steps N] [--quick] [--models DIR]
 * --quick: 200 steps of each model (a smoke run). The first step of a run, which closes the
 * start state, is taken before the measured ones. Exit status 1 when a model failed. */
#define _POSIX_C_SOURCE 200809L /* strdup, clock_gettime */
#include "mbs/mbs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BW_MODELS_DIR
#define BW_MODELS_DIR "models"
#endif
#define BW_MAX_MODELS 64
#define BW_DT 1e-3

/* Per-step samples of one run and the largest per-step counts seen. */
typedef struct bw_run {
    double *ns;            /* [n] CPU ns of each step */
    double *units;         /* [n] work units of each step */
    mbs_work max;          /* largest per-step value of each counter */
    long done;             /* steps taken (< n when a step failed) */
    int status;            /* MBS_OK or the failed step's status */
    char error[160];
} bw_run;

/* CPU time of this thread in ns. */
static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p-quantile (0..1) of n sorted values (nearest rank). */
static double quantile(const double *x, long n, double p)
{
    long k = (long)(p * (double)n + 0.5);
    if (k >= n) k = n - 1;
    return n > 0 ? x[k < 0 ? 0 : k] : 0.0;
}

/* Keep the larger of each counter of step into max. */
static void work_max(mbs_work *max, const mbs_work *a, const mbs_work *b)
{
#define BW_MAX(f) if (b->f - a->f > max->f) max->f = b->f - a->f;
    BW_MAX(evals) BW_MAX(newton) BW_MAX(factor) BW_MAX(select) BW_MAX(event_iter)
#undef BW_MAX
}

/* Step the model of path n times with kind into r; 0, or -1 when it could not be loaded. */
static int run_model(const char *path, mbs_stepper_kind kind, long n, bw_run *r)
{
    mbs_builder *b = mbs_builder_create();
    mbs_model *m = NULL;
    int st = b ? mbs_builder_load(b, path) : MBS_ERR_NOMEM;
    if (st == MBS_OK) st = mbs_compile(b, &m);
    mbs_builder_destroy(b);
    mbs_data *d = st == MBS_OK ? mbs_data_create(m) : NULL;
    mbs_stepper_def def = mbs_default_stepper_def(kind);
    mbs_stepper *s = d ? mbs_stepper_create(d, &def) : NULL;
    memset(&r->max, 0, sizeof r->max);
    r->done = 0, r->status = MBS_OK, r->error[0] = '\0';
    if (!s) {
        snprintf(r->error, sizeof r->error, "%s", d ? mbs_data_error(d) : "load/compile failed");
        mbs_data_destroy(d), mbs_model_destroy(m);
        return -1;
    }
    /* the first step closes and settles the start state (a host does it before its
       real-time loop): taken, not counted */
    st = mbs_stepper_step(s, BW_DT);
    for (long i = 0; i < n && st == MBS_OK; ++i) {
        mbs_work w0, w1;
        mbs_data_work(d, &w0);
        const double t0 = cpu_ns();
        st = mbs_stepper_step(s, BW_DT);
        const double t1 = cpu_ns();
        mbs_data_work(d, &w1);
        if (st != MBS_OK) break;
        r->ns[i] = t1 - t0;
        r->units[i] = (double)(mbs_work_units(&w1) - mbs_work_units(&w0));
        work_max(&r->max, &w0, &w1);
        r->done = i + 1;
    }
    if (st != MBS_OK) {
        r->status = st;
        snprintf(r->error, sizeof r->error, "%s", mbs_data_error(d));
    }
    mbs_stepper_destroy(s), mbs_data_destroy(d), mbs_model_destroy(m);
    return 0;
}

/* One table row: model, kind, CPU us quantiles, work units median/max, worst counters. */
static void print_row(const char *name, const char *kind, bw_run *r)
{
    const long n = r->done;
    qsort(r->ns, (size_t)n, sizeof(double), cmp_double);
    qsort(r->units, (size_t)n, sizeof(double), cmp_double);
    const double med = quantile(r->ns, n, 0.5), umed = quantile(r->units, n, 0.5);
    const double umax = n > 0 ? r->units[n - 1] : 0.0;
    printf("| %-18s | %-5s | %7.1f | %7.1f | %7.1f | %8.1f | %5.1f | %4.0f | %5.0f | %5.1f | "
           "%3lu | %3lu | %3lu | %3lu |%s%s\n",
           name, kind, 1e-3 * med, 1e-3 * quantile(r->ns, n, 0.99),
           1e-3 * quantile(r->ns, n, 0.999), n > 0 ? 1e-3 * r->ns[n - 1] : 0.0,
           med > 0.0 && n > 0 ? r->ns[n - 1] / med : 0.0, umed, umax,
           umed > 0.0 ? umax / umed : 0.0, r->max.newton, r->max.factor, r->max.select,
           r->max.event_iter, r->status != MBS_OK ? " stopped: " : "",
           r->status != MBS_OK ? mbs_status_name(r->status) : "");
    if (r->status != MBS_OK) printf("    after %ld steps: %s\n", n, r->error);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .xml files of dir, sorted; their count (at most BW_MAX_MODELS). */
static int list_models(const char *dir, char **names)
{
    DIR *dp = opendir(dir);
    int n = 0;
    if (!dp) return 0;
    for (struct dirent *e; (e = readdir(dp)) && n < BW_MAX_MODELS;) {
        const size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".xml") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    qsort(names, (size_t)n, sizeof(char *), cmp_str);
    return n;
}

/* CPU model name and load average, so that the table says where it was measured. */
static void print_machine(void)
{
    char line[256], cpu[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            snprintf(cpu, sizeof cpu, "%s", c ? c + 2 : line);
            cpu[strcspn(cpu, "\n")] = '\0';
            break;
        }
    if (f) fclose(f);
    double l1 = -1, l5 = -1;
    f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf %lf", &l1, &l5) != 2) l1 = l5 = -1;
    if (f) fclose(f);
    printf("cpu: %s; load average %.2f (1 min), %.2f (5 min) at start\n", cpu, l1, l5);
}

static int parse(int argc, char **argv, long *steps, const char **dir)
{
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) *steps = 200;
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) *steps = atol(argv[++i]);
        else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) *dir = argv[++i];
        else return -1;
    }
    return *steps > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    long steps = 100000;
    const char *dir = BW_MODELS_DIR;
    if (parse(argc, argv, &steps, &dir) != 0) {
        fprintf(stderr, "usage: bench_worst [--steps N] [--quick] [--models DIR]\n");
        return 2;
    }
    char *names[BW_MAX_MODELS];
    const int nm = list_models(dir, names);
    bw_run r = {.ns = malloc((size_t)steps * sizeof(double)),
                .units = malloc((size_t)steps * sizeof(double))};
    if (nm == 0 || !r.ns || !r.units) {
        fprintf(stderr, "bench_worst: no models in %s (or out of memory)\n", dir);
        return 1;
    }
    print_machine();
    printf("%ld steps of 1 ms per model and kind; CPU us per step (this thread); work units "
           "per step = evaluations + Newton iterations + factorisations\n\n", steps);
    printf("| model | kind | med us | p99 us | p99.9 us | max us | max/med | units med | "
           "units max | max/med | newton | factor | select | event it |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    static const mbs_stepper_kind kinds[2] = {MBS_STEP_EULER, MBS_STEP_RK4};
    static const char *const kname[2] = {"Euler", "RK4"};
    int fails = 0;
    for (int i = 0; i < nm; ++i) {
        char path[1024], name[128];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]) - 4), names[i]);
        for (int k = 0; k < 2; ++k) {
            if (run_model(path, kinds[k], steps, &r) != 0) {
                printf("| %-18s | %-5s | not run: %s |\n", name, kname[k], r.error);
                ++fails;
                continue;
            }
            print_row(name, kname[k], &r);
            fails += r.status != MBS_OK;
        }
        free(names[i]);
    }
    free(r.ns), free(r.units);
    return fails ? 1 : 0;
}
