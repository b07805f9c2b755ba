/* mbs-fmu MODEL_FILE -o MODEL.fmu [--name IDENTIFIER] [--runtime LIBRARY] [--fmi 2|3]
 * Packs a model file (URDF or mbs's superset) into an FMI 2.0 (default) or FMI 3.0
 * co-simulation FMU for x86_64 Linux. Exit status 0 (also --help), 1 (the model or the archive failed), 2 (usage). */
#define _DEFAULT_SOURCE /* readlink */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmu_pack.h"

#ifndef MBS_FMU_RUNTIME
#define MBS_FMU_RUNTIME "libmbs_fmi2.so"
#endif
#ifndef MBS_FMU_REL_RUNTIME
#define MBS_FMU_REL_RUNTIME ""
#endif

static const char usage_text[] = "usage: mbs-fmu MODEL_FILE -o MODEL.fmu [--name IDENTIFIER] "
                                 "[--runtime LIBRARY] [--fmi 2|3]\n";

static int usage(const char *msg)
{
    fprintf(stderr, "mbs-fmu: %s\n%s", msg, usage_text);
    return 2;
}

/* The runtime library packed into the FMU: the one given (--runtime, $MBS_FMU_RUNTIME), else
   the first found of libmbs_fmi2.so beside this program (a build tree), where an installation
   keeps it relative to bin/ (also when moved), and the configured install path. 0, or -1
   with what is missing in why. */
static int find_runtime(const char *given, char *out, size_t len, char *why, size_t wl)
{
    if (given) {
        if (access(given, R_OK) == 0) return snprintf(out, len, "%s", given), 0;
        return snprintf(why, wl, "runtime %s: %s", given, strerror(errno)), -1;
    }
    char exe[1024], tried[3][2100];
    const ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = k > 0 ? (exe[k] = '\0', strrchr(exe, '/')) : NULL;
    if (slash) *slash = '\0';
    snprintf(tried[0], sizeof tried[0], "%s/libmbs_fmi2.so", slash ? exe : ".");
    snprintf(tried[1], sizeof tried[1], "%s/%s", slash ? exe : ".", MBS_FMU_REL_RUNTIME);
    snprintf(tried[2], sizeof tried[2], "%s", MBS_FMU_RUNTIME);
    for (int i = 0; i < 3; ++i)
        if ((i != 1 || MBS_FMU_REL_RUNTIME[0]) && access(tried[i], R_OK) == 0)
            return snprintf(out, len, "%.2000s", tried[i]), 0;
    return snprintf(why, wl, "the FMU runtime libmbs_fmi2.so is not in %s, %s or %s: give it with "
                    "--runtime or MBS_FMU_RUNTIME", tried[0], tried[1], tried[2]), -1;
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
    p.fmi_version = 2;
    const char *name = NULL, *runtime = getenv("MBS_FMU_RUNTIME");
    for (int i = 1; i < argc; ++i) {
        const int has_value = i + 1 < argc;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(usage_text, stdout), 0;
        if (!strcmp(argv[i], "-o") && has_value) p.out = argv[++i];
        else if (!strcmp(argv[i], "--name") && has_value) name = argv[++i];
        else if (!strcmp(argv[i], "--runtime") && has_value) runtime = argv[++i];
        else if (!strcmp(argv[i], "--fmi") && has_value) {
            ++i;
            if (strcmp(argv[i], "2") && strcmp(argv[i], "3")) return usage("--fmi takes 2 or 3");
            p.fmi_version = argv[i][0] - '0';
        }
        else if (argv[i][0] == '-') return usage("unknown option or missing value");
        else if (p.model_path) return usage("one model file only");
        else p.model_path = argv[i];
    }
    if (!p.model_path || !p.out) return usage("a model file and -o MODEL.fmu are required");
    identifier_of(name ? name : p.model_path, p.identifier, sizeof p.identifier);
    snprintf(p.model_name, sizeof p.model_name, "%s", p.identifier);
    const char *base = strrchr(p.model_path, '/');
    snprintf(p.source_name, sizeof p.source_name, "%s", base ? base + 1 : p.model_path);
    char why[8192], runtime_path[2100];
    if (find_runtime(runtime, runtime_path, sizeof runtime_path, why, sizeof why) != 0) {
        fprintf(stderr, "mbs-fmu: %s\n", why);
        return 1;
    }
    p.runtime = runtime_path;
    if (fmu_pack_write(&p, why, sizeof why) != 0) {
        fprintf(stderr, "mbs-fmu: %s\n", why);
        return 1;
    }
    printf("%s: FMI %d.0 co-simulation FMU %s (%s %s)\n", p.out, p.fmi_version, p.identifier,
           p.fmi_version == 3 ? "instantiation token" : "GUID", p.guid);
    return 0;
}
