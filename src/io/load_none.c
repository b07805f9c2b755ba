/* mbs_builder_load in a build configured with -Dxml=disabled (no libxml2): a clear refusal. */
#include "core/internal.h"

#include "core/builder.h"

static int builder_load_impl(mbs_builder *b, const char *path)
{
    return mbs_builder_load_with(b, path, NULL);
}

int mbs_builder_load_with(mbs_builder *b, const char *path, const mbs_load_options *opt)
{
    (void)opt;
    if (!b) return MBS_ERR_ARG;
    return mbs_errorf(b->error, MBS_ERR_STATE, "%s: this build of mbs has no model-file loader "
                      "(configured with -Dxml=disabled)", path ? path : "(NULL)");
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_builder_load(mbs_builder *b, const char *path)
{
    return mbs_builder_note(b, "mbs_builder_load", builder_load_impl(b, path));
}
