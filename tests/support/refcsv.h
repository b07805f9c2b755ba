/* Reference trajectories (CSV with a quoted header, time first) read for the refdata tests:
 * event rows dropped, columns by name, linear interpolation in time. */
#ifndef MBS_TESTS_REFCSV_H
#define MBS_TESTS_REFCSV_H

#define MAX_COLS 8
#define NAME_LEN 64

typedef struct ref_table {
    int ncol, nrow;
    char names[MAX_COLS][NAME_LEN];
    double *rows; /* [nrow][ncol], event rows removed; free() when done */
} ref_table;

/* Load dir/rel into t; fails the test if the file is missing or malformed. */
void load_table(const char *dir, const char *rel, ref_table *t);
/* Index of the column called name; fails the test if there is none. */
int column(const ref_table *t, const char *name);
/* Reference column c linearly interpolated at time tq (clamped to the table's span). */
double ref_interp(const ref_table *t, int c, double tq);

#endif
