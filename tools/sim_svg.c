/* SVG line plot of chosen signals against time, written directly (no plotting library):
 * title, framed plot area with grid, "nice" ticks (1, 2, 5 x 10^k) and their labels, axis
 * labels, one polyline per signal (clipped to the plot area) and a legend on the right. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "sim.h"

#define W 880.0
#define H 500.0
#define LEFT 84.0
#define RIGHT (W - 210.0)
#define TOP 52.0
#define BOTTOM (H - 62.0)
#define FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

static const char *const PALETTE[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
#define NPALETTE ((int)(sizeof PALETTE / sizeof PALETTE[0]))

typedef struct axis {
    double lo, hi, step; /* range shown and tick spacing */
} axis;

/* Text with &, <, >, " escaped. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Tick spacing 1, 2 or 5 x 10^k giving about target intervals over range. */
static double nice_step(double range, int target)
{
    const double raw = range / target, mag = pow(10.0, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1.0 : f < 3.0 ? 2.0 : f < 7.0 ? 5.0 : 10.0) * mag;
}

/* Axis over [lo, hi]; widened to tick multiples when round is set; a flat range opens up. */
static axis make_axis(double lo, double hi, int round_out)
{
    if (!(hi > lo)) {
        const double pad = fabs(lo) > 0.0 ? 0.1 * fabs(lo) : 1.0;
        lo -= pad;
        hi += pad;
    }
    axis a = {lo, hi, nice_step(hi - lo, round_out ? 6 : 8)};
    if (round_out) {
        a.lo = floor(lo / a.step + 1e-9) * a.step;
        a.hi = ceil(hi / a.step - 1e-9) * a.step;
    }
    return a;
}

/* Tick label with as many decimals as the spacing needs. */
static void tick_label(char *buf, size_t n, double v, double step)
{
    if (fabs(v) < 1e-9 * step) v = 0.0;
    const double big = fmax(fabs(v), step);
    if (big >= 1e5 || step < 1e-4) {
        snprintf(buf, n, "%.3g", v);
        return;
    }
    const int dec = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
    snprintf(buf, n, "%.*f", dec, v);
}

/* Pixel x of time t. */
static double px(const axis *a, double t)
{
    return LEFT + (RIGHT - LEFT) * (t - a->lo) / (a->hi - a->lo);
}
/* Pixel y of value y. */
static double py(const axis *a, double y)
{
    return BOTTOM - (BOTTOM - TOP) * (y - a->lo) / (a->hi - a->lo);
}

/* Tick values of an axis: multiples of step inside [lo, hi]; returns their count. */
static int ticks(const axis *a, double *v, int max)
{
    const long first = (long)ceil(a->lo / a->step - 1e-9),
               last = (long)floor(a->hi / a->step + 1e-9);
    int n = 0;
    for (long i = first; i <= last && n < max; ++i) v[n++] = (double)i * a->step;
    return n;
}

/* Grid lines, tick marks and labels of both axes. */
static void draw_ticks(FILE *f, const axis *ax, const axis *ay)
{
    double xs[32], ys[32];
    const int nx = ticks(ax, xs, 32), ny = ticks(ay, ys, 32);
    char lbl[32];
    fprintf(f, "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n");
    for (int i = 0; i < nx; ++i)
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", px(ax, xs[i]), TOP,
                px(ax, xs[i]), BOTTOM);
    for (int i = 0; i < ny; ++i)
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", LEFT, py(ay, ys[i]),
                RIGHT, py(ay, ys[i]));
    fprintf(f, "</g>\n<g %s font-size=\"12\" fill=\"#333\" stroke=\"none\">\n", FONT);
    for (int i = 0; i < nx; ++i) {
        tick_label(lbl, sizeof lbl, xs[i], ax->step);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444\"/>\n",
                px(ax, xs[i]), BOTTOM, px(ax, xs[i]), BOTTOM + 5);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n", px(ax, xs[i]),
                BOTTOM + 19, lbl);
    }
    for (int i = 0; i < ny; ++i) {
        tick_label(lbl, sizeof lbl, ys[i], ay->step);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444\"/>\n",
                LEFT - 5, py(ay, ys[i]), LEFT, py(ay, ys[i]));
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n", LEFT - 8,
                py(ay, ys[i]) + 4, lbl);
    }
    fprintf(f, "</g>\n");
}

/* What a signal measures, for the y-axis label. */
static const char *signal_kind(const char *name)
{
    if (name[0] == 'q' && name[1] == '.') return "joint position q [rad or m]";
    if (name[0] == 'v' && name[1] == '.') return "joint velocity v [rad/s or m/s]";
    if (strchr("xyz", name[0]) && name[1] == '.') return "body position [m]";
    if (!strcmp(name, "kinetic") || !strcmp(name, "potential") || !strcmp(name, "energy"))
        return "energy [J]";
    return "closure residual";
}

/* Y-axis label: the common kind of the signals, or a generic one. */
static const char *y_label(const sim_table *t, const int *cols, int ncols)
{
    const char *kind = signal_kind(t->names[cols[0]]);
    for (int i = 1; i < ncols; ++i)
        if (strcmp(kind, signal_kind(t->names[cols[i]])) != 0) return "value [SI units]";
    return kind;
}

/* Title, frame and axis labels. */
static void draw_frame(FILE *f, const char *title, const char *ylabel)
{
    fprintf(f,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
            "stroke=\"#444\" stroke-width=\"1.2\"/>\n",
            LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP);
    fprintf(f,
            "<text x=\"%.2f\" y=\"30\" text-anchor=\"middle\" %s font-size=\"16\" "
            "font-weight=\"bold\" fill=\"#222\">",
            0.5 * (LEFT + RIGHT), FONT);
    put_escaped(f, title);
    fprintf(f,
            "</text>\n<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" %s font-size=\"13\" "
            "fill=\"#222\">time t [s]</text>\n",
            0.5 * (LEFT + RIGHT), H - 20, FONT);
    fprintf(f,
            "<text transform=\"translate(22 %.2f) rotate(-90)\" text-anchor=\"middle\" %s "
            "font-size=\"13\" fill=\"#222\">",
            0.5 * (TOP + BOTTOM), FONT);
    put_escaped(f, ylabel);
    fprintf(f, "</text>\n");
}

/* One polyline per signal (a new one after a non-finite value) and its legend entry. */
static void draw_series(FILE *f, const sim_table *t, int col, int k, const axis *ax, const axis *ay)
{
    const char *color = PALETTE[k % NPALETTE];
    int open = 0;
    for (long i = 0; i < t->nrow; ++i) {
        const double tv = t->rows[i * t->ncol], y = t->rows[i * t->ncol + col];
        if (!isfinite(y) || !isfinite(tv)) {
            if (open) fputs("\"/>\n", f);
            open = 0;
            continue;
        }
        if (!open)
            fprintf(f,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
                    "stroke-linejoin=\"round\" clip-path=\"url(#plot)\" points=\"",
                    color);
        fprintf(f, "%s%.2f,%.2f", open ? " " : "", px(ax, tv), py(ay, y));
        open = 1;
    }
    if (open) fputs("\"/>\n", f);
    const double ly = TOP + 14.0 + 22.0 * k;
    fprintf(f,
            "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
            "stroke-width=\"2.5\"/>\n",
            RIGHT + 18, ly, RIGHT + 44, ly, color);
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" %s font-size=\"12\" fill=\"#222\">", RIGHT + 52, ly + 4,
            FONT);
    put_escaped(f, t->names[col]);
    fputs("</text>\n", f);
}

/* Range of the selected columns over the kept rows (finite values only). */
static void data_range(const sim_table *t, const int *cols, int ncols, int col0, double *lo,
                       double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (long i = 0; i < t->nrow; ++i)
        for (int k = 0; k < ncols; ++k) {
            const double y = t->rows[i * t->ncol + (col0 >= 0 ? col0 : cols[k])];
            if (isfinite(y)) {
                *lo = fmin(*lo, y);
                *hi = fmax(*hi, y);
            }
        }
    if (!(*lo <= *hi)) *lo = *hi = 0.0;
}

/* Write the plot; -1 with "cannot write 'path': reason". */
int sim_svg_write(const char *path, const char *title, const sim_table *t, const int *cols,
                  int ncols, char *err, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, n, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    double tlo, thi, ylo, yhi;
    data_range(t, cols, 1, 0, &tlo, &thi);
    data_range(t, cols, ncols, -1, &ylo, &yhi);
    const axis ax = make_axis(tlo, thi, 0), ay = make_axis(ylo, yhi, 1);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 "
            "0 %.0f %.0f\">\n",
            W, H, W, H);
    fprintf(f,
            "<defs><clipPath id=\"plot\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
            "height=\"%.2f\"/></clipPath></defs>\n",
            LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    draw_ticks(f, &ax, &ay);
    for (int k = 0; k < ncols; ++k) draw_series(f, t, cols[k], k, &ax, &ay);
    draw_frame(f, title, y_label(t, cols, ncols));
    fprintf(f, "</svg>\n");
    const int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, n, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}
