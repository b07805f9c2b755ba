/* Symbolic scalars: constants fold, 0 and 1 simplify, the rest becomes one line of C. */
#define _POSIX_C_SOURCE 200809L
#include "cg.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One emitted operation: op and its operands (a variable or a constant each). */
typedef struct cg_expr {
    char op;
    cg_val a, b;
    int var;
} cg_expr;

void cg_begin(cg_out *o, FILE *f)
{
    memset(o, 0, sizeof *o);
    o->f = f;
}

/* Hash of an operation (FNV-1a over its fields). */
static unsigned hash_expr(char op, cg_val a, cg_val b)
{
    unsigned char buf[1 + 2 * (sizeof(int) + sizeof(double))];
    size_t n = 0;
    buf[n++] = (unsigned char)op;
    memcpy(buf + n, &a.var, sizeof(int)), n += sizeof(int);
    memcpy(buf + n, &a.c, sizeof(double)), n += sizeof(double);
    memcpy(buf + n, &b.var, sizeof(int)), n += sizeof(int);
    memcpy(buf + n, &b.c, sizeof(double)), n += sizeof(double);
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; ++i) h = (h ^ buf[i]) * 16777619u;
    return h;
}

/* 1 when two operands are the same variable or bitwise the same constant. */
static int same(cg_val x, cg_val y)
{
    return x.var == y.var && (x.var >= 0 || memcmp(&x.c, &y.c, sizeof(double)) == 0);
}

/* The slot of (op, a, b) in the table: the one holding it, or the empty one it would take. */
static int find_slot(const cg_out *o, char op, cg_val a, cg_val b)
{
    int i = (int)(hash_expr(op, a, b) & (unsigned)(o->nslot - 1));
    while (o->slot[i] >= 0) {
        const cg_expr *e = &o->expr[o->slot[i]];
        if (e->op == op && same(e->a, a) && same(e->b, b)) return i;
        i = (i + 1) & (o->nslot - 1);
    }
    return i;
}

/* Grow the table to twice its size (rehashing every operation); 0 or -1. */
static int grow_table(cg_out *o)
{
    const int n = o->nslot ? 2 * o->nslot : 4096;
    int *slot = malloc(sizeof(int) * (size_t)n);
    if (!slot) return -1;
    for (int i = 0; i < n; ++i) slot[i] = -1;
    free(o->slot);
    o->slot = slot, o->nslot = n;
    for (int k = 0; k < o->nexpr; ++k)
        o->slot[find_slot(o, o->expr[k].op, o->expr[k].a, o->expr[k].b)] = k;
    return 0;
}

/* The variable already holding (op, a, b), or -1. */
static int lookup(const cg_out *o, char op, cg_val a, cg_val b)
{
    if (o->nslot == 0) return -1;
    const int i = find_slot(o, op, a, b);
    return o->slot[i] >= 0 ? o->expr[o->slot[i]].var : -1;
}

/* Remember that var holds (op, a, b) (nothing on failure: the next emit simply repeats). */
static void remember(cg_out *o, char op, cg_val a, cg_val b, int var)
{
    if (2 * (o->nexpr + 1) > o->nslot && grow_table(o) != 0) return;
    if (o->nexpr == o->expr_cap) {
        const int cap = o->expr_cap ? 2 * o->expr_cap : 4096;
        cg_expr *e = realloc(o->expr, sizeof(cg_expr) * (size_t)cap);
        if (!e) return;
        o->expr = e, o->expr_cap = cap;
    }
    const cg_expr e = {op, a, b, var};
    o->expr[o->nexpr] = e;
    o->slot[find_slot(o, op, a, b)] = o->nexpr++;
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
    free(o->lines), free(o->dst), free(live), free(keep), free(o->expr), free(o->slot);
    o->lines = NULL, o->dst = NULL, o->nlines = o->cap = 0;
    o->expr = NULL, o->slot = NULL, o->nexpr = o->expr_cap = o->nslot = 0;
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

/* const double xN = a OP b; (the variable of an earlier equal operation if there is one;
   + and * with their operands in a fixed order, so that b + a finds a + b) */
static cg_val emit2(cg_out *o, cg_val a, const char *op, cg_val b)
{
    char ta[40], tb[40];
    if ((op[0] == '+' || op[0] == '*') && (a.var < b.var || (a.var == b.var && a.c < b.c))) {
        const cg_val t = a;
        a = b, b = t;
    }
    const int old = lookup(o, op[0], a, b);
    if (old >= 0) return (cg_val){old, 0.0};
    cg_val r = {o->nvar++, 0.0};
    record(o, r.var, "    const double x%d = %s %s %s;\n", r.var, text(a, ta), op, text(b, tb));
    remember(o, op[0], a, b, r.var);
    return r;
}

/* const double xN = FN(a); for the one-operand operations, coded op (value-numbered). */
static cg_val emit1(cg_out *o, char op, const char *fmt, cg_val a, double c)
{
    char ta[40];
    const int old = lookup(o, op, a, cg_const(c));
    if (old >= 0) return (cg_val){old, 0.0};
    cg_val r = {o->nvar++, 0.0};
    if (op == 'm')
        record(o, r.var, fmt, r.var, text(a, ta), c);
    else
        record(o, r.var, fmt, r.var, text(a, ta));
    remember(o, op, a, cg_const(c), r.var);
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
    return emit1(o, 'n', "    const double x%d = -%s;\n", a, 0.0);
}

cg_val cg_call(cg_out *o, const char *fn, cg_val a)
{
    if (a.var == -1) {
        if (fn[0] == 's' && fn[1] == 'i') return cg_const(sin(a.c));
        if (fn[0] == 'c') return cg_const(cos(a.c));
        return cg_const(sqrt(a.c));
    }
    if (fn[0] == 's' && fn[1] == 'i') return emit1(o, 's', "    const double x%d = sin(%s);\n", a, 0.0);
    if (fn[0] == 'c') return emit1(o, 'c', "    const double x%d = cos(%s);\n", a, 0.0);
    return emit1(o, 'q', "    const double x%d = sqrt(%s);\n", a, 0.0);
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
    return emit1(o, 'm', "    const double x%d = fmax(%s, %.17g);\n", a, c);
}
