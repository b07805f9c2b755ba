/* Symbolic scalars: constants fold, 0 and 1 simplify, the rest becomes one line of C. */
#define _POSIX_C_SOURCE 200809L
#include "cg.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cg_begin(cg_out *o, FILE *f)
{
    memset(o, 0, sizeof *o);
    o->f = f;
}

/* Record one line assigning variable dst (-1: a store to an output). */
static void record(cg_out *o, int dst, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (o->nlines == o->cap) {
        int cap = o->cap ? 2 * o->cap : 1024;
        char **l = realloc(o->lines, (size_t)cap * sizeof *l);
        if (l) o->lines = l;
        int *d = realloc(o->dst, (size_t)cap * sizeof *d);
        if (d) o->dst = d;
        if (!l || !d) {
            o->failed = 1;
            return;
        }
        o->cap = cap;
    }
    o->lines[o->nlines] = strdup(buf);
    if (!o->lines[o->nlines]) o->failed = 1;
    o->dst[o->nlines++] = dst;
}

/* Mark every variable xN read by line text as live. */
static void mark_operands(const char *text, unsigned char *live)
{
    const char *eq = strchr(text, '=');
    for (const char *s = eq ? eq + 1 : text; *s; ++s)
        if (*s == 'x' && isdigit((unsigned char)s[1]) && !isalnum((unsigned char)s[-1]) && s[-1] != '_')
            live[strtol(s + 1, NULL, 10)] = 1;
}

int cg_flush(cg_out *o)
{
    unsigned char *live = calloc((size_t)o->nvar + 1, 1), *keep = calloc((size_t)o->nlines + 1, 1);
    int st = (live && keep && !o->failed) ? 0 : -1;
    for (int i = o->nlines - 1; st == 0 && i >= 0; --i)
        if (o->dst[i] < 0 || live[o->dst[i]]) {
            keep[i] = 1;
            mark_operands(o->lines[i], live);
        }
    for (int i = 0; i < o->nlines; ++i) {
        if (st == 0 && keep[i]) fputs(o->lines[i], o->f), o->nline++;
        free(o->lines[i]);
    }
    free(o->lines), free(o->dst), free(live), free(keep);
    o->lines = NULL, o->dst = NULL, o->nlines = o->cap = 0;
    return st;
}

cg_val cg_const(double c)
{
    cg_val v = {-1, c};
    return v;
}

cg_val cg_input(cg_out *o, const char *fmt, int index)
{
    char name[64];
    snprintf(name, sizeof name, fmt, index);
    cg_val r = {o->nvar++, 0.0};
    record(o, r.var, "    const double x%d = %s;\n", r.var, name);
    return r;
}

int cg_is(cg_val a, double c) { return a.var == -1 && a.c == c; }

/* The C text of a value into buf (a constant with 17 digits, or its variable). */
static const char *text(cg_val a, char *buf)
{
    if (a.var == -1)
        snprintf(buf, 40, a.c < 0 ? "(%.17g)" : "%.17g", a.c);
    else
        snprintf(buf, 40, "x%d", a.var);
    return buf;
}

void cg_print(cg_out *o, cg_val a)
{
    char buf[40];
    fputs(text(a, buf), o->f);
}

/* const double xN = a OP b; */
static cg_val emit2(cg_out *o, cg_val a, const char *op, cg_val b)
{
    char ta[40], tb[40];
    cg_val r = {o->nvar++, 0.0};
    record(o, r.var, "    const double x%d = %s %s %s;\n", r.var, text(a, ta), op, text(b, tb));
    return r;
}

cg_val cg_add(cg_out *o, cg_val a, cg_val b)
{
    if (a.var == -1 && b.var == -1) return cg_const(a.c + b.c);
    if (cg_is(a, 0.0)) return b;
    if (cg_is(b, 0.0)) return a;
    return emit2(o, a, "+", b);
}

cg_val cg_sub(cg_out *o, cg_val a, cg_val b)
{
    if (a.var == -1 && b.var == -1) return cg_const(a.c - b.c);
    if (cg_is(b, 0.0)) return a;
    if (cg_is(a, 0.0)) return cg_neg(o, b);
    return emit2(o, a, "-", b);
}

cg_val cg_mul(cg_out *o, cg_val a, cg_val b)
{
    if (a.var == -1 && b.var == -1) return cg_const(a.c * b.c);
    if (cg_is(a, 0.0) || cg_is(b, 0.0)) return cg_const(0.0); /* inputs are finite */
    if (cg_is(a, 1.0)) return b;
    if (cg_is(b, 1.0)) return a;
    if (cg_is(a, -1.0)) return cg_neg(o, b);
    if (cg_is(b, -1.0)) return cg_neg(o, a);
    return emit2(o, a, "*", b);
}

cg_val cg_div(cg_out *o, cg_val a, cg_val b)
{
    if (a.var == -1 && b.var == -1) return cg_const(a.c / b.c);
    if (cg_is(a, 0.0)) return cg_const(0.0);
    if (cg_is(b, 1.0)) return a;
    return emit2(o, a, "/", b);
}

cg_val cg_neg(cg_out *o, cg_val a)
{
    if (a.var == -1) return cg_const(-a.c);
    char ta[40];
    cg_val r = {o->nvar++, 0.0};
    record(o, r.var, "    const double x%d = -%s;\n", r.var, text(a, ta));
    return r;
}

cg_val cg_call(cg_out *o, const char *fn, cg_val a)
{
    if (a.var == -1) {
        if (fn[0] == 's' && fn[1] == 'i') return cg_const(sin(a.c));
        if (fn[0] == 'c') return cg_const(cos(a.c));
        return cg_const(sqrt(a.c));
    }
    char ta[40];
    cg_val r = {o->nvar++, 0.0};
    record(o, r.var, "    const double x%d = %s(%s);\n", r.var, fn, text(a, ta));
    return r;
}

void cg_store(cg_out *o, const char *fmt, int index, cg_val a)
{
    char name[64], ta[40];
    snprintf(name, sizeof name, fmt, index);
    record(o, -1, "    %s = %s;\n", name, text(a, ta));
}

cg_val cg_fmax_const(cg_out *o, cg_val a, double c)
{
    if (a.var == -1) return cg_const(fmax(a.c, c));
    char ta[40];
    cg_val r = {o->nvar++, 0.0};
    record(o, r.var, "    const double x%d = fmax(%s, %.17g);\n", r.var, text(a, ta), c);
    return r;
}
