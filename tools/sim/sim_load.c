/* The model file into a builder for mbs-sim: URDF and the superset through the library's
 * loader, an .sdf file through the SDFormat reader of tools/sdf when mbs-sim was built with
 * it (libsdformat found). */
#include <stdio.h>
#include <string.h>

#include "sim.h"
#ifdef MBS_SIM_HAVE_SDF
#include "mbs_sdf.h"
#endif

int sim_is_sdf(const char *path)
{
    const size_t n = strlen(path);
    return n > 4 && !strcmp(path + n - 4, ".sdf");
}

int sim_load(mbs_builder *b, const char *path, const mbs_load_options *lo, char *err, size_t n)
{
    if (sim_is_sdf(path)) {
#ifdef MBS_SIM_HAVE_SDF
        return mbs_sdf_load(b, path, lo, err, n);
#else
        snprintf(err, n, "%s: SDFormat files need mbs-sim built with libsdformat (Debian "
                 "libsdformat-dev; meson option sdformat)", path);
        return MBS_ERR_STATE;
#endif
    }
    const int st = mbs_builder_load_with(b, path, lo);
    if (st < 0) snprintf(err, n, "%s", mbs_builder_error(b));
    return st;
}
