/* mbs-sim internals: command-line options, one simulation run with its summary, the CSV
 * and SVG writers and the progress line. Used by mbs-sim.c and tests/system/test_sim.c. */
#ifndef MBS_SIM_H
#define MBS_SIM_H

#include <stddef.h>
#include <stdio.h>

#include <mbs/mbs.h>

/* What the energy of a run should do at the model's default settings (<simulation energy>). */
typedef enum mech_energy {
    MECH_CONSERVATIVE, /* no dissipation, no drive: |E(t) - E(0)| stays within energy_tol */
    MECH_DISSIPATIVE,  /* dampers only: E(t) never rises above E(0) by more than energy_tol */
    MECH_DRIVEN        /* external work (drives, actuators): no energy check */
} mech_energy;

/* A point of a body whose world position is recorded (CSV columns x.label, y.label, z.label). */
typedef struct mech_point {
    const char *label; /* column suffix; NULL ends a list */
    const char *body;  /* body (link) name */
    double point[3];   /* body coordinates */
} mech_point;

/* A model file run by mbs-sim: the file and what its mbs-sim elements say (sim_model.c). */
typedef struct mech {
    const char *name;         /* the file name without .xml / .urdf */
    const char *title;        /* one line: what it is */
    const char *source;       /* where it comes from (paper: authors, year, title, section) */
    const char *path;         /* the model file (built by mbs_builder_load, started at its
                                 start values) */
    const char *dir;          /* its folder (mesh visuals) */
    double t_end;             /* default simulated time [s] */
    mbs_stepper_kind stepper; /* default stepper */
    double dt;                /* default step (Euler, RK4) or output interval (CVODE) [s] */
    double rtol, atol;        /* default CVODE tolerances */
    mech_energy energy;       /* energy behaviour for the sanity check */
    double energy_tol;        /* relative to the energy scale of the run */
    double closure_tol;       /* largest closure residual allowed (loops only) */
    const mech_point *track;  /* recorded points, ended by a NULL label; NULL: none */
    const char *const *plot;  /* default plot signals (CSV column names); NULL end */
} mech;

#define SIM_MSG 512 /* size of every message buffer */
#define SIM_MAX_STEPS 100000000L
#define SIM_PLOT_ROWS 4000 /* at most this many rows are kept for the plot */

#define SIM_MAX_SIGNALS 10   /* signals in one plot */
#define SIM_ERR_IO (-100)    /* sim_run: a file could not be written */
#define SIM_ERR_USAGE (-101) /* sim_run: a bad --signals list */

/* Exit statuses of mbs-sim. */
enum { SIM_EXIT_OK = 0, SIM_EXIT_FAIL = 1, SIM_EXIT_USAGE = 2, SIM_EXIT_CHECK = 3 };

/* `mbs-sim run` options; a zero field means "the mechanism's default". */
typedef struct sim_options {
    const char *mechanism;
    double t_end, dt, rtol, atol;
    int stepper; /* mbs_stepper_kind, or -1 for the mechanism's default */
    const char *csv_path, *svg_path;
    const char *signals; /* comma-separated CSV column names for the plot; NULL: default */
    int check;           /* nonzero: a failed sanity check is exit status 3 */
    int progress;        /* -1 auto (stderr is a terminal), 0 never, 1 always */
    const char *anim_path, *gltf_path; /* --animate page.html, --gltf motion.glb */
    int error_estimate;  /* fixed-step kinds: the local-error estimate (default on) */
    int floating_base, balance_inertia; /* mbs_load_options of the model file */
    long every;          /* CSV: every k-th sample (default 1) */
} sim_options;

/* ---- output paths (sim_paths.c) */
/* 1 when a and b name one file: the same device and inode when both exist, else the same
   folder (realpath) and file name. */
int sim_same_file(const char *a, const char *b);
/* --out, --plot, --animate, --gltf pairwise different files, and none the model file (model,
   NULL for a built-in one): 0, or -1 naming the two in err. */
int sim_check_outputs(const sim_options *o, const char *model, char *err, size_t n);

/* ---- model files (sim_model.c) */
/* 1 if name ends with .urdf or .xml. */
int sim_is_model_file(const char *name);
/* ---- loading (sim_load.c) */
/* 1 if path ends with .sdf (an SDFormat file). */
int sim_is_sdf(const char *path);
/* The model file at path into b (options lo, NULL: the defaults): the library's loader, or
   for an .sdf file the SDFormat reader (tools/sdf); the status, with the message in err. */
int sim_load(mbs_builder *b, const char *path, const mbs_load_options *lo, char *err, size_t n);
/* The mechanism of a model file: its mbs-sim elements (<simulation>, <track>, <plot>) read,
   defaults elsewhere; NULL with "path:line: <element>: message" in err. Free with
   sim_model_free. The model itself is loaded by sim_run. */
mech *sim_model_open(const char *path, char *err, size_t n);
void sim_model_free(mech *m);
/* The folder of the models shipped with mbs: $MBS_MODELS; the source tree's models/ for a
   program run from the build tree; <bindir>/../share/mbs/models of an installed program
   (relocatable); the configured prefix's share/mbs/models. 0, or -1 with a message. */
int sim_models_dir(char *dir, size_t len, char *err, size_t n);
/* A model by name (a file of the models folder, without .xml) or by path (ending .xml or
   .urdf); NULL with a message (an unknown name lists the known ones). Free with
   sim_model_free. */
mech *sim_model_find(const char *name, char *err, size_t n);
/* Every model of the models folder, sorted by name; *count receives their number. NULL with
   a message when the folder cannot be read or a file's mbs-sim elements are wrong. Free
   with sim_models_free. */
mech **sim_models_all(int *count, char *err, size_t n);
void sim_models_free(mech **all, int count);
/* The largest violation of the cut joints of d's model, from body poses (metres for
   positions, the sine of the angle for axes); 0 without cut joints. */
double sim_model_closure(mbs_data *d);

/* Parse the arguments after `run`; MBS_OK or -1 with a one-line message in err. */
int sim_parse_run(int argc, char **argv, sim_options *o, char *err, size_t n);
/* Settings after the mechanism defaults are applied (validated: finite, positive). */
typedef struct sim_settings {
    double t_end, dt, rtol, atol;
    mbs_stepper_kind stepper;
    int error_estimate;
    int floating_base, balance_inertia;
} sim_settings;
/* Mechanism defaults overridden by the options; -1 with a message if inconsistent. */
int sim_resolve(const mech *m, const sim_options *o, sim_settings *s, char *err, size_t n);
/* "euler", "rk4", "adams", "bdf" */
const char *sim_stepper_name(mbs_stepper_kind k);
/* Kind for a name, or -1. */
int sim_stepper_parse(const char *name);

/* ---- recorded signals: the CSV columns */
typedef struct sim_table {
    int ncol;
    char **names; /* (ncol) "t", "q.<joint>[.k]", "v.<joint>[.k]", "x|y|z.<body>", energies */
    double *rows; /* (cap x ncol) kept rows, every stride-th sample plus the last */
    long nrow, cap, stride, seen;
} sim_table;
void sim_table_free(sim_table *t);
/* Index of a column, or -1. */
int sim_table_find(const sim_table *t, const char *name);
/* Parse a comma-separated signal list into column indices (at most max); count or -1 with
   a message naming the unknown signal. */
int sim_table_select(const sim_table *t, const char *list, int *idx, int max, char *err, size_t n);

/* ---- one run */
/* Files and plot signals of a run. */
typedef struct sim_io {
    const char *csv_path; /* CSV written while running; NULL: none */
    int plot;             /* nonzero: resolve plot columns (before stepping) */
    const char *signals;  /* comma-separated plot signals; NULL: the mechanism's default */
    int progress;         /* -1 auto (stderr is a terminal), 0 never, 1 always */
    int cols[SIM_MAX_SIGNALS], ncols; /* out: the plot columns */
    struct sim_anim *anim; /* records the motion for --animate / --gltf; NULL: none */
    const char *mesh_dir;  /* folder of the model file (mesh visuals); NULL: none */
    long every;            /* CSV rows: every k-th sample and the last (0 or 1: all) */
} sim_io;

typedef struct sim_result {
    int nq, nv, nbody, njoint, nforce, ncon, nloops, rank, dropped, dof;
    int nanalytic;        /* loops closed in closed form at the end of the run */
    long newton_iters;    /* Newton iterations of the loop closures over the run */
    long steps;           /* mbs_stepper_step calls */
    long csv_rows;        /* rows written to the CSV file */
    double t_reached;     /* simulated time at the end */
    double wall;          /* wall time inside mbs_stepper_step [s] */
    double e0, e_end;     /* total energy at the start and the end [J] */
    double e_dev, e_rise; /* max |E - E0| and max (E - E0) over the samples [J] */
    double e_scale;       /* max(|E0|, max kinetic energy) [J]: the scale of relative drift */
    double residual;      /* max closure residual over the samples (0 for a tree) */
    int measured;         /* the closure residual was measured (loops) */
    double stop_beyond;   /* max over the samples of mbs_joint_stop_beyond [m or rad] */
    int stop_element;     /* its stop's force element id (-1: none) */
    double stop_t;        /* and its time [s] */
    int check_ok;         /* the mechanism's sanity check passed */
    char check_msg[SIM_MSG];
    sim_table table; /* kept rows for the plot */
} sim_result;

/* Simulate mechanism m with settings s; writes the CSV while running, keeps rows for the
   plot, shows progress when asked. Returns MBS_OK, a negative mbs status (err holds
   "<what failed>: <STATUS>: <library message>"), SIM_ERR_IO or SIM_ERR_USAGE. */
int sim_run(const mech *m, const sim_settings *s, sim_io *io, sim_result *r, char *err, size_t n);
void sim_result_free(sim_result *r);
/* The multi-line summary of a finished run. */
void sim_print_summary(FILE *f, const mech *m, const sim_settings *s, const sim_result *r);
/* Evaluate the mechanism's sanity check on a finished run (fills check_ok, check_msg). */
void sim_check(const mech *m, sim_result *r);

/* ---- output files */
/* CSV writer: header line, then rows of %.12g; errors carry the path and strerror. */
typedef struct sim_csv {
    FILE *f;
    const char *path;
} sim_csv;
int sim_csv_open(sim_csv *c, const char *path, const sim_table *t, char *err, size_t n);
int sim_csv_row(sim_csv *c, const double *row, int ncol, char *err, size_t n);
int sim_csv_close(sim_csv *c, char *err, size_t n);
/* Write an SVG line plot of the selected columns of t against time (column 0). */
int sim_svg_write(const char *path, const char *title, const sim_table *t, const int *cols,
                  int ncols, char *err, size_t n);

/* ---- `mbs-sim equilibrium` (sim_equilibrium.c) */
/* The static equilibrium of mechanism m from its initial state: a table of the coordinates
   (start, equilibrium) and the residual on f. MBS_OK, or a negative status with
   "<what failed>: <STATUS>: <library message>" in err. */
int sim_equilibrium(const mech *m, FILE *f, char *err, size_t n);

/* ---- progress line on stderr */
typedef struct sim_progress {
    int enabled;
    double start, last; /* wall clock [s] */
    const char *label;
} sim_progress;
/* enabled: -1 auto (stderr is a terminal), 0, 1. */
void sim_progress_begin(sim_progress *p, int enabled, const char *label);
void sim_progress_update(sim_progress *p, double t, double t_end);
void sim_progress_end(sim_progress *p);
/* Monotonic wall clock [s]. */
double sim_now(void);

/* ---- mbs-sim modes / linearize (sim_linear.c) */
typedef struct sim_linear {
    mbs_model *model;
    mbs_data *d;
    int nx;               /* state size of A */
    double *A, *B;        /* (nx x nx), (nx x nv) */
    double *re, *im;      /* (nx) eigenvalues, sorted as mbs_modes sorts them */
} sim_linear;
/* Linearise mechanism m about its initial state (at_rest: with v = 0), and with want_modes
   its eigenvalues too; MBS_OK or a status with "<what failed>: <STATUS>: <message>" in err.
   Free s with sim_linear_free in every case. */
int sim_linear_run(const mech *m, int at_rest, int want_modes, sim_linear *s, char *err,
                   size_t n);
void sim_linear_free(sim_linear *s);
/* The modes table of a finished run. */
void sim_linear_print_modes(FILE *f, const mech *m, const sim_linear *s, int at_rest);
/* A (and B when b_path) as CSV files: a header of the state names, then the rows. */
int sim_linear_write(const sim_linear *s, const char *a_path, const char *b_path, char *err,
                     size_t n);
/* `mbs-sim modes ...` (linearize 0) or `mbs-sim linearize ...` (1) on the arguments after the
   command word: prints its output and returns the exit status (err: the message). */
int sim_linear_command(int linearize, int argc, char **argv, char *err, size_t n);

#endif
