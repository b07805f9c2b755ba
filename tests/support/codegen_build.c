/* Build generated code for the codegen tests and the benchmark (codegen_build.h). */
#define _POSIX_C_SOURCE 200809L
#include "codegen_build.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run a shell command; 0 or -1 with the command in msg. */
static int run(const char *cmd, char *msg, int len)
{
    if (system(cmd) == 0) return 0;
    snprintf(msg, (size_t)len, "command failed: %s", cmd);
    return -1;
}

int cgb_build(const mbs_model *m, const double *q_start, const char *dir, const char *cflags,
              int strict, void **so, char *msg, int len)
{
    char path[512], cmd[2048], why[256];
    *so = NULL;
    snprintf(path, sizeof path, "%s/gen.c", dir);
    FILE *f = fopen(path, "w");
    if (!f) return snprintf(msg, (size_t)len, "cannot write %s", path), -1;
    cg_options opt = {.prefix = "gen", .source = "a model of the codegen tests", .q_start = q_start};
    const int nline = cg_write(f, m, &opt, why, (int)sizeof why);
    fclose(f);
    if (nline < 0) return snprintf(msg, (size_t)len, "cg_write: %s", why), -1;
    static int count; /* each object its own file name (tools such as callgrind cache them) */
    ++count;
    snprintf(cmd, sizeof cmd, "cc -std=c99 %s %s -fPIC -c %s/gen.c -o %s/gen.o && "
             "cc -shared %s/gen.o -o %s/gen%d.so -lm", cflags,
             strict ? "-Wall -Wextra -Werror" : "", dir, dir, dir, dir, count);
    if (run(cmd, msg, len) != 0) return -1;
    /* only libm: every undefined symbol of the object is one of these */
    snprintf(cmd, sizeof cmd, "nm -u %s/gen.o | awk '{print $2}' | grep -vxE "
             "'sin|cos|sincos|sqrt|fmax|fabs|memcpy|memset|memmove|memcmp|_GLOBAL_OFFSET_TABLE_' | grep -q . && exit 1 || exit 0", dir);
    if (strict && run(cmd, msg, len) != 0) return -1;
    snprintf(path, sizeof path, "%s/gen%d.so", dir, count);
    *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*so) return snprintf(msg, (size_t)len, "dlopen: %s", dlerror()), -1;
    return nline;
}

void *cgb_fn(void *so, const char *name)
{
    char full[128];
    snprintf(full, sizeof full, "gen_%s", name);
    return dlsym(so, full);
}

int cgb_mkdir(char *dir)
{
    strcpy(dir, "/tmp/mbs_codegen_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

void cgb_rmdir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return;
}
