/* The default options of mbs_builder_load_with (also in a build without the loader). */
#include <string.h>

#include "mbs/mbs.h"

mbs_load_options mbs_default_load_options(void)
{
    mbs_load_options o;
    memset(&o, 0, sizeof o);
    return o;
}
