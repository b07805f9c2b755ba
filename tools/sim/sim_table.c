/* The recorded signals of a run: column names (the CSV header) and the rows kept for the
 * plot (every stride-th sample and the last one, at most about SIM_PLOT_ROWS). */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Free names and rows; the table becomes empty. */
void sim_table_free(sim_table *t)
{
    if (t->names)
        for (int i = 0; i < t->ncol; ++i) free(t->names[i]);
    free(t->names);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* Index of the column called name, or -1. */
int sim_table_find(const sim_table *t, const char *name)
{
    for (int i = 0; i < t->ncol; ++i)
        if (strcmp(t->names[i], name) == 0) return i;
    return -1;
}

/* "--signals: no signal 'x' (signals: a, b, ...)", cut with "..." when too long. */
static void signal_error(const sim_table *t, const char *name, char *err, size_t n)
{
    size_t len = (size_t)snprintf(err, n, "--signals: no signal '%s' (signals:", name);
    for (int i = 1; i < t->ncol && len < n; ++i) {
        const size_t need = strlen(t->names[i]) + 2;
        if (len + need + 6 >= n) {
            snprintf(err + len, n - len, " ...)");
            return;
        }
        len +=
            (size_t)snprintf(err + len, n - len, " %s%s", t->names[i], i + 1 < t->ncol ? "," : ")");
    }
}

/* Column indices of a comma-separated list of names. */
int sim_table_select(const sim_table *t, const char *list, int *idx, int max, char *err, size_t n)
{
    int count = 0;
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        const int col = len > 0 && len < sizeof name ? sim_table_find(t, name) : -1;
        if (col < 1) {
            signal_error(t, name, err, n);
            return -1;
        }
        if (count == max) {
            snprintf(err, n, "--signals: at most %d signals in one plot", max);
            return -1;
        }
        idx[count++] = col;
        p = end ? end + 1 : p + len;
    }
    if (count == 0) snprintf(err, n, "--signals: empty list");
    return count > 0 ? count : -1;
}
