/* mbs-sim's output paths: none may be the model file, and no two the same file (a run would
 * overwrite its own input, or one output the other). */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim.h"

/* path's canonical name into out: its folder's realpath and its file name (the file itself
   need not exist yet); the path as given when the folder cannot be resolved. */
static void canonical(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    char folder[PATH_MAX], real[PATH_MAX];
    snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(folder, sizeof folder, "/");
    if (!realpath(folder, real)) {
        snprintf(out, len, "%s", path);
        return;
    }
    snprintf(out, len, "%s/%s", real, slash ? slash + 1 : path);
}

int sim_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[2 * PATH_MAX], cb[2 * PATH_MAX];
    canonical(a, ca, sizeof ca);
    canonical(b, cb, sizeof cb);
    return strcmp(ca, cb) == 0;
}

int sim_check_outputs(const sim_options *o, const char *model, char *err, size_t n)
{
    const char *path[5] = {o->csv_path, o->svg_path, o->anim_path, o->gltf_path, model};
    static const char *const what[5] = {"--out", "--plot", "--animate", "--gltf", "the model file"};
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 5; ++j)
            if (path[i] && path[j] && sim_same_file(path[i], path[j])) {
                snprintf(err, n, "%s and %s name the same file '%s'", what[i], what[j], path[i]);
                return -1;
            }
    return 0;
}
