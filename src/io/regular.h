/* Opening input files only when they are regular files: a FIFO would block for ever, a
 * device (/dev/zero) never ends, a directory is no model; shared by the loader and the tools
 * (mbs-sim's model and mesh files, the FMU's resources). */
#ifndef MBS_IO_REGULAR_H
#define MBS_IO_REGULAR_H

#include <stddef.h>
#include <stdio.h>

/* A read-only descriptor of path when it is a regular file (opened non-blocking, then
   checked with fstat, so no race between the check and the open); -1 with the reason in why
   (len bytes), e.g. "not a regular file (a directory)". */
int mbs_open_regular(const char *path, char *why, size_t len);
/* The same as a stream ("rb"); NULL with the reason in why. */
FILE *mbs_fopen_regular(const char *path, char *why, size_t len);

#endif
