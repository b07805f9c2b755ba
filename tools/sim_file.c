/* mbs-sim run FILE.urdf | FILE.xml: a model file run like a built-in mechanism. The file is
 * read by mbs_builder_load; the run defaults are those of a robot description (5 s, RK4 at
 * 1 ms, no energy check: a file may hold drives and dampers), and loops report the largest
 * gap between the frame origins of their cut joints (revolute, spherical, universal, fixed
 * and distance-free joints keep those origins together). */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static char file_path[1024], file_name[128], file_title[1200];

/* The file's elements into the builder. */
static int file_build(mbs_builder *b) { return mbs_builder_load(b, file_path); }

/* 1 for the joint types whose two frame origins coincide when the joint is closed. */
static int origins_coincide(mbs_joint_type t)
{
    return t == MBS_JOINT_REVOLUTE || t == MBS_JOINT_SPHERICAL || t == MBS_JOINT_UNIVERSAL ||
           t == MBS_JOINT_FIXED;
}

/* Largest gap between the frame origins of the cut joints, from the body poses. */
static double file_closure(mbs_data *d)
{
    const mbs_model *m = mbs_data_model(d);
    double worst = 0.0;
    for (int j = 0; j < mbs_model_njoint(m); ++j) {
        mbs_joint_def jd;
        if (mbs_model_joint_is_cut(m, j) != 1 || mbs_model_joint_def(m, j, &jd) != MBS_OK ||
            !origins_coincide(jd.type))
            continue;
        const double gap = mech_point_gap(d, jd.parent, jd.frame_parent.pos, jd.child, jd.frame_child.pos);
        worst = isfinite(gap) ? fmax(worst, gap) : INFINITY;
    }
    return worst;
}

/* 1 if name ends with .urdf or .xml (a file rather than a built-in mechanism's name). */
int sim_is_model_file(const char *name)
{
    const size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".urdf")) || (n > 4 && !strcmp(name + n - 4, ".xml"));
}

/* The mechanism of a model file (valid until the next call), or NULL when the file does not
   load or compile (message in err). dir receives the file's folder (mesh visuals). */
const mech *sim_file_mech(const char *path, char *dir, size_t dirlen, char *err, size_t n)
{
    static mech m;
    snprintf(file_path, sizeof file_path, "%s", path);
    const char *base = strrchr(path, '/');
    snprintf(file_name, sizeof file_name, "%s", base ? base + 1 : path);
    snprintf(dir, dirlen, "%.*s", base ? (int)(base - path) : 1, base ? path : ".");
    snprintf(file_title, sizeof file_title, "model file %s", path);
    mbs_builder *b = mbs_builder_create();
    mbs_model *model = NULL;
    int st = b ? mbs_builder_load(b, path) : MBS_ERR_NOMEM;
    if (st == MBS_OK) st = mbs_compile(b, &model);
    if (st != MBS_OK) snprintf(err, n, "%s", b ? mbs_builder_error(b) : "out of memory");
    const int loops = st == MBS_OK && mbs_model_ncon(model) > 0;
    mbs_model_destroy(model);
    mbs_builder_destroy(b);
    if (st != MBS_OK) return NULL;
    memset(&m, 0, sizeof m);
    m.name = file_name;
    m.title = file_title;
    m.source = "model file (URDF or mbs's superset)";
    m.build = file_build;
    m.closure = loops ? file_closure : NULL;
    m.t_end = 5.0, m.stepper = MBS_STEP_RK4, m.dt = 1e-3, m.rtol = 1e-8, m.atol = 1e-10;
    m.energy = MECH_DRIVEN, m.energy_tol = 0.0, m.closure_tol = 1e-8;
    return &m;
}
