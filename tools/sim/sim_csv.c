/* CSV output of a run: one header line of column names, then one row per sample. */
#include <errno.h>
#include <string.h>

#include "sim.h"

/* Open path and write the header; -1 with "cannot write 'path': reason". */
int sim_csv_open(sim_csv *c, const char *path, const sim_table *t, char *err, size_t n)
{
    c->path = path;
    c->f = fopen(path, "w");
    if (!c->f) {
        snprintf(err, n, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < t->ncol; ++i) fprintf(c->f, "%s%s", i ? "," : "", t->names[i]);
    fputc('\n', c->f);
    if (ferror(c->f)) {
        snprintf(err, n, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* One row of ncol values, 17 significant digits: each reads back as the same double, so
   runs can be compared bit for bit from their CSV files. */
int sim_csv_row(sim_csv *c, const double *row, int ncol, char *err, size_t n)
{
    for (int i = 0; i < ncol; ++i) fprintf(c->f, "%s%.17g", i ? "," : "", row[i]);
    if (fputc('\n', c->f) == EOF) {
        snprintf(err, n, "cannot write '%s': %s", c->path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Flush and close; reports a failed write (e.g. a full disk). */
int sim_csv_close(sim_csv *c, char *err, size_t n)
{
    if (!c->f) return 0;
    const int bad = ferror(c->f);
    const int closed = fclose(c->f);
    c->f = NULL;
    if (bad || closed != 0) {
        snprintf(err, n, "cannot write '%s': %s", c->path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}
