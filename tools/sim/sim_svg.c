/* SVG line plot of chosen signals against time, written directly (no plotting library):
 * title, one framed panel per kind of quantity (joint positions, joint velocities, body
 * positions, energies, closure residual: one unit per axis) stacked over a common time axis,
 * each with its grid, "nice" ticks (1, 2, 5 x 10^k) and labels, one polyline per signal
 * (clipped to its panel) and a legend on the right. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "sim.h"

#define W 880.0
#define LEFT 84.0
#define RIGHT (W - 210.0)
#define TOP 52.0
#define PANEL_H 386.0   /* one panel; with more, each is PANEL_H2 high, GAP apart */
#define PANEL_H2 250.0
#define GAP 36.0
#define MAX_PANELS 5
#define FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

static const char *const PALETTE[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
#define NPALETTE ((int)(sizeof PALETTE / sizeof PALETTE[0]))

typedef struct axis {
    double lo, hi, step; /* range shown and tick spacing */
    double top, bottom;  /* y axes: the panel's pixel rows */
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
    axis a = {lo, hi, nice_step(hi - lo, round_out ? 6 : 8), TOP, TOP + PANEL_H};
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
    return a->bottom - (a->bottom - a->top) * (y - a->lo) / (a->hi - a->lo);
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
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", px(ax, xs[i]), ay->top,
                px(ax, xs[i]), ay->bottom);
    for (int i = 0; i < ny; ++i)
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", LEFT, py(ay, ys[i]),
                RIGHT, py(ay, ys[i]));
    fprintf(f, "</g>\n<g %s font-size=\"12\" fill=\"#333\" stroke=\"none\">\n", FONT);
    for (int i = 0; i < nx; ++i) {
        tick_label(lbl, sizeof lbl, xs[i], ax->step);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444\"/>\n",
                px(ax, xs[i]), ay->bottom, px(ax, xs[i]), ay->bottom + 5);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n", px(ax, xs[i]),
                ay->bottom + 19, lbl);
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

/* The frame and y label of one panel. */
static void draw_panel_frame(FILE *f, const axis *ay, const char *ylabel)
{
    fprintf(f,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
            "stroke=\"#444\" stroke-width=\"1.2\"/>\n",
            LEFT, ay->top, RIGHT - LEFT, ay->bottom - ay->top);
    fprintf(f,
            "<text transform=\"translate(22 %.2f) rotate(-90)\" text-anchor=\"middle\" %s "
            "font-size=\"13\" fill=\"#222\">",
            0.5 * (ay->top + ay->bottom), FONT);
    put_escaped(f, ylabel);
    fprintf(f, "</text>\n");
}

/* The title and the time label under the last panel. */
static void draw_title(FILE *f, const char *title, double bottom)
{
    fprintf(f,
            "<text x=\"%.2f\" y=\"30\" text-anchor=\"middle\" %s font-size=\"16\" "
            "font-weight=\"bold\" fill=\"#222\">",
            0.5 * (LEFT + RIGHT), FONT);
    put_escaped(f, title);
    fprintf(f,
            "</text>\n<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" %s font-size=\"13\" "
            "fill=\"#222\">time t [s]</text>\n",
            0.5 * (LEFT + RIGHT), bottom + 42, FONT);
}

/* One polyline per signal (a new one after a non-finite value), clipped to its panel p, and
   its legend entry (the k-th of the panel). */
static void draw_series(FILE *f, const sim_table *t, int col, int k, int color_k, int p,
                        const axis *ax, const axis *ay)
{
    const char *color = PALETTE[color_k % NPALETTE];
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
                    "stroke-linejoin=\"round\" clip-path=\"url(#panel%d)\" points=\"",
                    color, p);
        fprintf(f, "%s%.2f,%.2f", open ? " " : "", px(ax, tv), py(ay, y));
        open = 1;
    }
    if (open) fputs("\"/>\n", f);
    const double ly = ay->top + 14.0 + 22.0 * k;
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

/* Group the columns by kind (one unit per panel, in the order they first appear): kinds[p],
   and the panel of each column; returns the number of panels. */
static int group_panels(const sim_table *t, const int *cols, int ncols, const char **kinds,
                        int *panel)
{
    int np = 0;
    for (int k = 0; k < ncols; ++k) {
        const char *kind = signal_kind(t->names[cols[k]]);
        int p = 0;
        while (p < np && strcmp(kinds[p], kind) != 0) ++p;
        if (p == np && np < MAX_PANELS) kinds[np++] = kind;
        panel[k] = p < np ? p : np - 1;
    }
    return np;
}

/* The header and the clip rectangle of every panel. */
static void svg_begin(FILE *f, int np, double ph, double height)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\">\n<defs>", W, height, W, height);
    for (int p = 0; p < np; ++p)
        fprintf(f, "<clipPath id=\"panel%d\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                   "height=\"%.2f\"/></clipPath>", p, LEFT, TOP + p * (ph + GAP), RIGHT - LEFT, ph);
    fprintf(f, "</defs>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
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
    const char *kinds[MAX_PANELS];
    int panel[SIM_MAX_SIGNALS], pcols[SIM_MAX_SIGNALS];
    const int np = group_panels(t, cols, ncols, kinds, panel);
    const double ph = np == 1 ? PANEL_H : PANEL_H2, bottom = TOP + np * ph + (np - 1) * GAP;
    double tlo, thi;
    data_range(t, cols, 1, 0, &tlo, &thi);
    const axis ax = make_axis(tlo, thi, 0);
    svg_begin(f, np, ph, bottom + 62.0);
    for (int p = 0, color = 0; p < np; ++p) {
        int m = 0;
        for (int k = 0; k < ncols; ++k)
            if (panel[k] == p) pcols[m++] = cols[k];
        double ylo, yhi;
        data_range(t, pcols, m, -1, &ylo, &yhi);
        axis ay = make_axis(ylo, yhi, 1);
        ay.top = TOP + p * (ph + GAP), ay.bottom = ay.top + ph;
        draw_ticks(f, &ax, &ay);
        for (int k = 0; k < m; ++k) draw_series(f, t, pcols[k], k, color++, p, &ax, &ay);
        draw_panel_frame(f, &ay, kinds[p]);
    }
    draw_title(f, title, bottom);
    fprintf(f, "</svg>\n");
    const int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, n, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}
