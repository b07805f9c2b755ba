/* Packing an FMU (fmu_pack.h): the model is loaded and compiled first, so a file the FMU
 * could not run is refused here with the loader's message, not later inside a tool. */
#define _POSIX_C_SOURCE 200809L
#include "fmu_pack.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "fmu_guid.h"

/* The model's variable table (the runtime builds the same one from the same file). */
static int model_vars(const fmu_pack *p, fmu_vars *vars, char *why, size_t len)
{
    mbs_model *m = NULL;
    const int st = fmu_model_load(p->model_path, &m, vars, why, len);
    mbs_model_destroy(m);
    return st;
}

/* modelDescription.xml into a malloc'd buffer (*size bytes). */
static char *description(const fmu_pack *p, const fmu_vars *vars, size_t *size)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, size);
    if (!f) return NULL;
    const int st = p->fmi_version == 3 ? fmu_write_description3(f, p, vars) : fmu_write_description(f, p, vars);
    fclose(f);
    if (st != 0) free(buf), buf = NULL;
    return buf;
}

/* Add a file of the disk, or a buffer (taken over by libzip), at name in the archive. The
   binaries (tens of MB with OpenBLAS and ICU's data) are deflated at the fastest level: 9 times
   less CPU than the default level for an 11 % larger FMU (28 MB instead of 25). */
static int add_file(zip_t *z, const char *name, const char *path)
{
    zip_source_t *s = zip_source_file(z, path, 0, -1);
    if (!s) return -1;
    const zip_int64_t k = zip_file_add(z, name, s, ZIP_FL_OVERWRITE);
    if (k < 0) return zip_source_free(s), -1;
    return zip_set_file_compression(z, (zip_uint64_t)k, ZIP_CM_DEFLATE, 1) == 0 ? 0 : -1;
}

static int add_buffer(zip_t *z, const char *name, char *buf, size_t size)
{
    zip_source_t *s = zip_source_buffer(z, buf, size, 1);
    if (!s) return free(buf), -1;
    if (zip_file_add(z, name, s, ZIP_FL_OVERWRITE) < 0) return zip_source_free(s), -1;
    return 0;
}

/* The shared libraries of the folder bundle/ beside the runtime, if there is one (a portable
   build, tools/fmu/meson.build), in the platform folder beside it: the runtime finds them by its
   run path $ORIGIN. */
static int add_bundle(zip_t *z, const char *runtime, const char *platform)
{
    char dir[2200], path[2600], name[512];
    const char *slash = strrchr(runtime, '/');
    snprintf(dir, sizeof dir, "%.*s/bundle", slash ? (int)(slash - runtime) : 1, slash ? runtime : ".");
    DIR *d = opendir(dir);
    if (!d) return 0;
    int st = 0;
    for (struct dirent *e; st == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(name, sizeof name, "binaries/%s/%.400s", platform, e->d_name);
        st = add_file(z, name, path);
    }
    closedir(d);
    return st;
}

int fmu_pack_write(fmu_pack *p, char *why, size_t len)
{
    fmu_vars vars;
    if (fmu_guid_of_file(p->model_path, p->guid, sizeof p->guid) != 0)
        return snprintf(why, len, "%s: %s", p->model_path, strerror(errno)), -1;
    if (model_vars(p, &vars, why, len) != 0) return -1;
    size_t size = 0;
    char *desc = description(p, &vars, &size);
    fmu_vars_free(&vars);
    if (!desc) return snprintf(why, len, "out of memory"), -1;
    const size_t n = strlen(p->model_path);
    const char *res = (n > 5 && !strcmp(p->model_path + n - 5, ".urdf")) ? "resources/model.urdf"
                                                                        : "resources/model.xml";
    char bin[128];
    /* the platform folder: FMI 2.0's name, or FMI 3.0's platform tuple (§2.5.1.1) */
    const char *platform = p->fmi_version == 3 ? "x86_64-linux" : "linux64";
    snprintf(bin, sizeof bin, "binaries/%s/%s.so", platform, p->identifier);
    int err = 0;
    zip_t *z = zip_open(p->out, ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) return free(desc), snprintf(why, len, "%s: cannot create the archive (libzip error %d)", p->out, err), -1;
    int st = add_buffer(z, "modelDescription.xml", desc, size);
    if (st == 0) st = add_file(z, bin, p->runtime);
    if (st == 0) st = add_bundle(z, p->runtime, platform);
    if (st == 0) st = add_file(z, res, p->model_path);
    if (st != 0) {
        snprintf(why, len, "%s: %s", p->out, zip_strerror(z));
        zip_discard(z);
        return -1;
    }
    if (zip_close(z) != 0) {
        snprintf(why, len, "%s: %s (runtime %s)", p->out, zip_strerror(z), p->runtime);
        zip_discard(z);
        return -1;
    }
    return 0;
}
