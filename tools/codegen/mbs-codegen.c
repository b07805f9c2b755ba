/* mbs-codegen MODEL_FILE -o MODEL.c [--prefix NAME]
 * Writes straight-line C99 for one model (forward and inverse dynamics, integrate, RK4 step;
 * with cut joints also the closure of its loops; libm only) from a model file (URDF or mbs's
 * superset), loops frozen at the file's start values; see docs/codegen.md. Exit status 0
 * (also --help), 1 (the model cannot be loaded or generated: the reason on stderr), 2 (usage). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"

static const char usage_text[] = "usage: mbs-codegen MODEL_FILE -o MODEL.c [--prefix NAME]\n";

static int usage(const char *msg)
{
    fprintf(stderr, "mbs-codegen: %s\n%s", msg, usage_text);
    return 2;
}

/* 1 if s is a C identifier. */
static int identifier(const char *s)
{
    if (!*s || isdigit((unsigned char)*s)) return 0;
    for (; *s; ++s)
        if (!isalnum((unsigned char)*s) && *s != '_') return 0;
    return 1;
}

int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *prefix = "model";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(usage_text, stdout), 0;
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--prefix") && i + 1 < argc) prefix = argv[++i];
        else if (argv[i][0] == '-') return usage("unknown option or missing value");
        else if (in) return usage("one model file only");
        else in = argv[i];
    }
    if (!in || !out) return usage("a model file and -o MODEL.c are required");
    if (!identifier(prefix)) return usage("--prefix must be a C identifier");
    mbs_builder *b = mbs_builder_create();
    mbs_model *m = NULL;
    int st = b ? mbs_builder_load(b, in) : MBS_ERR_NOMEM;
    if (st == MBS_OK) st = mbs_compile(b, &m);
    if (st != MBS_OK) {
        fprintf(stderr, "mbs-codegen: %s\n", b ? mbs_builder_error(b) : "out of memory");
        mbs_builder_destroy(b);
        return 1;
    }
    mbs_builder_destroy(b);
    char why[256];
    if (cg_check_model(m, why, (int)sizeof why) != 0) {
        fprintf(stderr, "mbs-codegen: %s: %s\n", in, why);
        mbs_model_destroy(m);
        return 1;
    }
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "mbs-codegen: %s: cannot write\n", out);
        mbs_model_destroy(m);
        return 1;
    }
    cg_options opt = {.prefix = prefix, .source = in};
    const int ncon = mbs_model_ncon(m);
    const int lines = cg_write(f, m, &opt, why, (int)sizeof why);
    const int werr = fclose(f) != 0;
    mbs_model_destroy(m);
    if (lines < 0 || werr) {
        fprintf(stderr, "mbs-codegen: %s: %s\n", out, lines < 0 ? why : "write error");
        return 1;
    }
    printf("%s: %s_forward_dynamics, %s_inverse_dynamics, %s_integrate, %s_rk4_step%s%s%s "
           "(%d lines of arithmetic)\n", out, prefix, prefix, prefix, prefix,
           ncon > 0 ? ", " : "", ncon > 0 ? prefix : "", ncon > 0 ? "_close" : "", lines);
    return 0;
}
