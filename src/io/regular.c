/* Input files opened only when regular (regular.h). */
#define _POSIX_C_SOURCE 200809L
#include "io/regular.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What kind of file mode is, for the message. */
static const char *kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

int mbs_open_regular(const char *path, char *why, size_t len)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int e = errno;
        snprintf(why, len, "%s", strerror(e)); /* the system's reason: "No such file or directory" */
        return -1;
    }
    struct stat st = {0};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, len, "not a regular file (%s)", kind(st.st_mode));
        close(fd);
        return -1;
    }
    return fd;
}

FILE *mbs_fopen_regular(const char *path, char *why, size_t len)
{
    const int fd = mbs_open_regular(path, why, len);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(why, len, "cannot be opened");
        close(fd);
    }
    return f;
}
