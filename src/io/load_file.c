/* The model file checked before libxml2 reads it, so that a missing or unreadable file is
 * reported with the system's reason ("No such file or directory"), not as a parse failure. */
#define _POSIX_C_SOURCE 200809L
#include "io/io.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int io_check_file(mbs_builder *b, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: is a folder, not a model file", path);
    return MBS_OK;
}
