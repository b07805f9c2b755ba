/* The reference-table reader shared by the refdata tests (refcsv.h). */
#include "refcsv.h"
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Split the header into column names (quotes stripped). */
static int parse_header(char *line, ref_table *t)
{
    t->ncol = 0;
    for (char *tok = strtok(line, ",\r\n"); tok; tok = strtok(NULL, ",\r\n")) {
        if (t->ncol == MAX_COLS) return -1;
        while (*tok == ' ' || *tok == '"') ++tok;
        size_t n = strlen(tok);
        while (n > 0 && (tok[n - 1] == '"' || tok[n - 1] == ' ')) --n;
        if (n >= NAME_LEN) return -1;
        memcpy(t->names[t->ncol], tok, n);
        t->names[t->ncol][n] = '\0';
        t->ncol++;
    }
    return t->ncol >= 2 ? 0 : -1;
}

/* Parse one data row of ncol numbers; -1 if malformed. */
static int parse_row(const char *line, int ncol, double *out)
{
    const char *s = line;
    for (int c = 0; c < ncol; ++c) {
        char *end;
        out[c] = strtod(s, &end);
        if (end == s) return -1;
        s = end;
        while (*s == ' ' || *s == ',') ++s;
    }
    return 0;
}

/* Drop event rows: a group of rows with the same time stamp is skipped unless all its rows
   are identical (the repeated final row), which is kept once. */
static void drop_events(ref_table *t)
{
    int n = 0, nc = t->ncol;
    for (int i = 0; i < t->nrow;) {
        int j = i + 1;
        while (j < t->nrow && t->rows[j * nc] == t->rows[i * nc]) ++j;
        int same = 1;
        for (int k = i + 1; k < j; ++k)
            if (memcmp(t->rows + k * nc, t->rows + i * nc, sizeof(double) * (size_t)nc) != 0) same = 0;
        if (same) memmove(t->rows + n++ * nc, t->rows + i * nc, sizeof(double) * (size_t)nc);
        i = j;
    }
    t->nrow = n;
}

/* Load dir/rel into t; fails the test if the file is missing or malformed. */
void load_table(const char *dir, const char *rel, ref_table *t)
{
    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        print_error("cannot open %s\n", path);
        fail();
    }
    assert_non_null(fgets(line, sizeof line, fp));
    assert_int_equal(parse_header(line, t), 0);
    int cap = 1024;
    t->nrow = 0;
    t->rows = malloc(sizeof(double) * (size_t)(cap * t->ncol));
    assert_non_null(t->rows);
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '\0') continue;
        if (t->nrow == cap) {
            cap *= 2;
            t->rows = realloc(t->rows, sizeof(double) * (size_t)(cap * t->ncol));
            assert_non_null(t->rows);
        }
        assert_int_equal(parse_row(line, t->ncol, t->rows + t->nrow * t->ncol), 0);
        t->nrow++;
    }
    fclose(fp);
    assert_true(t->nrow > 10);
    drop_events(t);
}

int column(const ref_table *t, const char *name)
{
    for (int c = 0; c < t->ncol; ++c)
        if (strcmp(t->names[c], name) == 0) return c;
    print_error("column \"%s\" not in the reference file\n", name);
    fail();
    return -1;
}

/* Reference column c linearly interpolated at time tq (clamped to the table's span). */
double ref_interp(const ref_table *t, int c, double tq)
{
    int nc = t->ncol, lo = 0, hi = t->nrow - 1;
    if (tq <= t->rows[0]) return t->rows[c];
    if (tq >= t->rows[hi * nc]) return t->rows[hi * nc + c];
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (t->rows[mid * nc] <= tq) lo = mid;
        else hi = mid;
    }
    double t0 = t->rows[lo * nc], t1 = t->rows[hi * nc];
    double y0 = t->rows[lo * nc + c], y1 = t->rows[hi * nc + c];
    return y0 + (y1 - y0) * (tq - t0) / (t1 - t0);
}

