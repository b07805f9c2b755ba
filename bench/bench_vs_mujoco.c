/* bench_vs_mujoco: MuJoCo's mj_forward against mbs ABA on the same revolute chain.
   Usage: bench_vs_mujoco [--quick] [--cpu-time] */
#define _POSIX_C_SOURCE 200809L
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

typedef struct mj_ctx {
    mjModel *m;
    mjData *d;
    const bench_states *s;
} mj_ctx;

/* Append one link's <body> opening (joint and inertial) to f. */
static void write_link(FILE *f, const bench_link *l, double offset)
{
    fprintf(f, "<body pos=\"%.17g 0 0\">\n", offset);
    fprintf(f, "<joint type=\"hinge\" axis=\"0 %d %d\"/>\n", l->axis == 1, l->axis == 2);
    fprintf(f, "<inertial pos=\"%.17g %.17g %.17g\" mass=\"%.17g\" "
               "diaginertia=\"%.17g %.17g %.17g\"/>\n",
            l->com[0], l->com[1], l->com[2], l->mass, l->inertia[0], l->inertia[1],
            l->inertia[2]);
}

/* MuJoCo's XML parser refuses nesting deeper than about 100 elements, so the chain is
   split into files of PART_LINKS nested bodies, each including the next in its deepest body. */
#define PART_LINKS 40

/* Path of part p (0: the main file) inside dir. */
static void part_path(const char *dir, int p, char *path, size_t len)
{
    if (p == 0)
        snprintf(path, len, "%s/chain.xml", dir);
    else
        snprintf(path, len, "%s/part%d.xml", dir, p);
}

/* Write part p of the chain (links [p * PART_LINKS, ...)); 0 or -1. */
static int write_part(const char *dir, int p, int n, const bench_link *links)
{
    char path[128];
    part_path(dir, p, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int first = p * PART_LINKS, last = first + PART_LINKS < n ? first + PART_LINKS : n;
    if (p == 0)
        fputs("<mujoco model=\"chain\">\n<option gravity=\"0 0 -9.81\" timestep=\"0.001\"/>\n"
              "<worldbody>\n", f);
    else
        fputs("<mujoco>\n", f);
    for (int i = first; i < last; ++i)
        write_link(f, &links[i], i == 0 ? 0.0 : links[i - 1].length);
    if (last < n)
        fprintf(f, "<include file=\"part%d.xml\"/>\n", p + 1);
    for (int i = first; i < last; ++i)
        fputs("</body>\n", f);
    fputs(p == 0 ? "</worldbody>\n</mujoco>\n" : "</mujoco>\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

/* Remove the nparts files and the folder. */
static void remove_parts(const char *dir, int nparts)
{
    char path[128];
    for (int p = 0; p < nparts; ++p) {
        part_path(dir, p, path, sizeof path);
        unlink(path);
    }
    rmdir(dir);
}

/* Write the chain as MJCF files in a new temporary folder dir and load it; NULL on failure. */
static mjModel *load_chain(int n, const bench_link *links, char *err, int errlen)
{
    char dir[] = "/tmp/mbs_bench_mjcfXXXXXX", path[128];
    if (!mkdtemp(dir)) {
        snprintf(err, (size_t)errlen, "cannot create a temporary folder");
        return NULL;
    }
    int nparts = (n + PART_LINKS - 1) / PART_LINKS, ok = 1;
    for (int p = 0; p < nparts && ok; ++p)
        ok = write_part(dir, p, n, links) == 0;
    part_path(dir, 0, path, sizeof path);
    mjModel *m = ok ? mj_loadXML(path, NULL, err, errlen) : NULL;
    if (!ok)
        snprintf(err, (size_t)errlen, "cannot write the MJCF files in %s", dir);
    remove_parts(dir, nparts);
    return m;
}

/* Load the chain into MuJoCo. */
static void *mj_create(int n, const bench_link *links, const bench_states *s)
{
    char err[1000] = "";
    mj_ctx *c = calloc(1, sizeof *c);
    if (c) {
        c->m = load_chain(n, links, err, (int)sizeof err);
        c->d = c->m ? mj_makeData(c->m) : NULL;
        c->s = s;
    }
    if (!c || !c->d || c->m->nv != n) {
        fprintf(stderr, "MuJoCo could not load the chain: %s\n", err);
        if (c && c->d)
            mj_deleteData(c->d);
        if (c && c->m)
            mj_deleteModel(c->m);
        free(c);
        return NULL;
    }
    return c;
}

/* Load state k and run mj_forward. */
static int mj_call(void *ctx, int k)
{
    mj_ctx *c = ctx;
    int i = k % c->s->nstate, n = c->s->nv;
    memcpy(c->d->qpos, c->s->q + (size_t)i * (size_t)n, sizeof(double) * (size_t)n);
    memcpy(c->d->qvel, c->s->v + (size_t)i * (size_t)n, sizeof(double) * (size_t)n);
    mj_forward(c->m, c->d);
    return 0;
}

/* Joint accelerations of state k. */
static int mj_qacc(void *ctx, int k, double *qacc)
{
    mj_ctx *c = ctx;
    mj_call(c, k);
    memcpy(qacc, c->d->qacc, sizeof(double) * (size_t)c->s->nv);
    return 0;
}

/* Free the MuJoCo model and data. */
static void mj_destroy(void *ctx)
{
    mj_ctx *c = ctx;
    mj_deleteData(c->d);
    mj_deleteModel(c->m);
    free(c);
}

/* Entry point. */
int main(int argc, char **argv)
{
    char name[64];
    snprintf(name, sizeof name, "MuJoCo %s mj_forward", mj_versionString());
    bench_other o = {name, mj_create, mj_call, mj_qacc, mj_destroy};
    return bench_compare(&o, argc, argv);
}
