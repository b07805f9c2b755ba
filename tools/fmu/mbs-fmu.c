/* mbs-fmu MODEL_FILE -o MODEL.fmu [--name IDENTIFIER] [--runtime LIBRARY]
 * Packs a model file (URDF or mbs's superset) into an FMI 2.0 co-simulation FMU for
 * x86_64 Linux. Exit status 0, 1 (the model or the archive failed), 2 (usage). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu_pack.h"

#ifndef MBS_FMU_RUNTIME
#define MBS_FMU_RUNTIME "libmbs_fmi2.so"
#endif

static int usage(const char *msg)
{
    fprintf(stderr, "mbs-fmu: %s\nusage: mbs-fmu MODEL_FILE -o MODEL.fmu [--name IDENTIFIER] "
                    "[--runtime LIBRARY]\n", msg);
    return 2;
}

/* identifier from the file's stem: letters, digits and '_', not starting with a digit. */
static void identifier_of(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t k = 0;
    if (isdigit((unsigned char)*base) && k + 1 < len) out[k++] = '_';
    for (const char *s = base; *s && *s != '.' && k + 1 < len; ++s)
        out[k++] = (isalnum((unsigned char)*s) || *s == '_') ? *s : '_';
    out[k] = '\0';
    if (k == 0) snprintf(out, len, "model");
}

int main(int argc, char **argv)
{
    fmu_pack p;
    memset(&p, 0, sizeof p);
    p.runtime = getenv("MBS_FMU_RUNTIME") ? getenv("MBS_FMU_RUNTIME") : MBS_FMU_RUNTIME;
    const char *name = NULL;
    for (int i = 1; i < argc; ++i) {
        const int has_value = i + 1 < argc;
        if (!strcmp(argv[i], "-o") && has_value) p.out = argv[++i];
        else if (!strcmp(argv[i], "--name") && has_value) name = argv[++i];
        else if (!strcmp(argv[i], "--runtime") && has_value) p.runtime = argv[++i];
        else if (argv[i][0] == '-') return usage("unknown option or missing value");
        else if (p.model_path) return usage("one model file only");
        else p.model_path = argv[i];
    }
    if (!p.model_path || !p.out) return usage("a model file and -o MODEL.fmu are required");
    identifier_of(name ? name : p.model_path, p.identifier, sizeof p.identifier);
    snprintf(p.model_name, sizeof p.model_name, "%s", p.identifier);
    const char *base = strrchr(p.model_path, '/');
    snprintf(p.source_name, sizeof p.source_name, "%s", base ? base + 1 : p.model_path);
    char why[512];
    if (fmu_pack_write(&p, why, sizeof why) != 0) {
        fprintf(stderr, "mbs-fmu: %s\n", why);
        return 1;
    }
    printf("%s: FMI 2.0 co-simulation FMU %s (GUID %s)\n", p.out, p.identifier, p.guid);
    return 0;
}
