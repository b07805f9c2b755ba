/* mbs-sim animation: the scene drawn for a model (visual shapes, or defaults: a sphere at
 * each body's centre of mass sized by its mass, a cylinder along each joint axis, lines to
 * the joint points, a line per spring) and the recorded motion at a frame rate, written as a
 * self-contained three.js HTML page (sim_anim_html.c) or an animated glTF 2.0 binary
 * (sim_gltf.c). */
#ifndef MBS_SIM_ANIM_H
#define MBS_SIM_ANIM_H

#include <stddef.h>

#include <mbs/mbs.h>

#define SIM_ANIM_FPS 60.0

/* A primitive shape fixed on a body (body coordinates). */
typedef struct sim_shape {
    int body;
    mbs_shape_type kind; /* box, cylinder (along its z) or sphere */
    double pos[3];
    double quat[4];      /* x, y, z, w (three.js and glTF order) */
    double size[3];      /* as mbs_visual_def */
    double color[4];
} sim_shape;

/* A triangle mesh (from an STL file) fixed on a body: vertices in the shape frame, scaled. */
typedef struct sim_mesh_shape {
    int body;
    double pos[3], quat[4]; /* the shape frame in body coordinates (quat x, y, z, w) */
    double color[4];
    float *tri;             /* [9 ntri] three vertices per triangle */
    long ntri;
} sim_mesh_shape;

/* A line segment: fixed on one body (segments) or between two bodies (springs, rods). */
typedef struct sim_line {
    int body_a, body_b;
    double pa[3], pb[3]; /* body coordinates of each end */
} sim_line;

typedef struct sim_anim {
    int nbody;           /* world included */
    char **names;        /* [nbody] body names (owned) */
    double scale;        /* length scale of the model [m] */
    double up[3];        /* unit vector against uniform gravity; z without it */
    sim_shape *shapes;
    int nshape, shape_cap;
    sim_line *segments;  /* static, on body_a */
    int nseg, seg_cap;
    sim_line *lines;     /* springs and distance rods, moving */
    int nline, line_cap;
    sim_mesh_shape *meshes; /* mesh visuals whose STL file was read */
    int nmesh, mesh_cap;
    int nmesh_skipped;   /* mesh visuals not drawn (file not found or not STL) */
    char mesh_note[256]; /* why the first one was skipped */
    int has_residual;
    double fps, next_t;
    long nframe, frame_cap;
    int stride;          /* floats per frame: t, energy, residual, nbody-1 x (pos, quat xyzw) */
    float *frames;       /* [nframe x stride] */
} sim_anim;

/* Scene of a compiled model at its first state; mesh files are looked up relative to
   mesh_dir (the model file's folder; NULL: the current directory only). Returns 0 or -1
   with a message. */
int sim_anim_begin(sim_anim *a, const mbs_model *m, mbs_data *d, int has_residual,
                   const char *mesh_dir, char *err, size_t n);
/* Triangles of a mesh file (STL, binary or ASCII) scaled per axis (sim_mesh.c): 0, or -1
   with a message when it is not found or not readable. */
int sim_mesh_load(const char *dir, const char *name, const double scale[3], float **tri,
                  long *ntri, char *err, size_t n);
/* Record the current state when a frame is due (at 1/fps intervals, always the last). */
int sim_anim_sample(sim_anim *a, mbs_data *d, double energy, double residual, int last,
                    char *err, size_t n);
void sim_anim_free(sim_anim *a);
/* Total motion time covered by the frames [s]. */
double sim_anim_duration(const sim_anim *a);

/* Whether mbs-sim was built with three.js (Debian libjs-three) for --animate. */
int sim_anim_html_available(void);
/* The HTML page; returns 0 or -1 with a message naming the path. */
int sim_anim_write_html(const sim_anim *a, const char *path, const char *title, char *err,
                        size_t n);
/* The animated glTF 2.0 binary (.glb); returns 0 or -1 with a message naming the path. */
int sim_gltf_write(const sim_anim *a, const char *path, const char *title, char *err, size_t n);

#endif
