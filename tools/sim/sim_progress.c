/* Progress line for long runs: on stderr, only when it is a terminal (or forced), redrawn
 * at most five times a second and only after the first half second. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

/* Monotonic wall clock in seconds. */
double sim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Start timing; enabled -1 means "if stderr is a terminal". */
void sim_progress_begin(sim_progress *p, int enabled, const char *label)
{
    p->enabled = enabled < 0 ? isatty(STDERR_FILENO) : enabled;
    p->start = sim_now();
    p->last = p->start;
    p->label = label;
}

/* Redraw "label  t = ... / ... s  [#####.....]  NN%" when due. */
void sim_progress_update(sim_progress *p, double t, double t_end)
{
    if (!p->enabled) return;
    const double now = sim_now();
    if (now - p->start < 0.5 || now - p->last < 0.2) return;
    p->last = now;
    const double frac = t_end > 0.0 ? t / t_end : 1.0;
    char bar[21];
    const int full = (int)(20.0 * frac);
    for (int i = 0; i < 20; ++i) bar[i] = i < full ? '#' : '.';
    bar[20] = '\0';
    fprintf(stderr, "\r%s  t = %.4g / %.4g s  [%s] %3d%%  ", p->label, t, t_end, bar,
            (int)(100.0 * frac));
    fflush(stderr);
}

/* Erase the progress line if one was drawn. */
void sim_progress_end(sim_progress *p)
{
    if (p->enabled && p->last > p->start) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->enabled = 0;
}
