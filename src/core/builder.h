/* The mutable builder: growing arrays of definitions, validated on entry. */
#ifndef MBS_CORE_BUILDER_H
#define MBS_CORE_BUILDER_H

#include <stddef.h>

#include "core/model.h"

struct mbs_builder {
    char error[MBS_ERROR_LEN];
    int nbody;                 /* user bodies (world excluded) */
    int body_cap;
    mbs_body_def *bodies;      /* [nbody], names owned (strdup) */
    int njoint, joint_cap;
    mbs_joint_def *joints;     /* [njoint], names owned */
    int nforce, force_cap;
    mbs_force_model *forces;   /* [nforce], names owned; ops set by the adder */
    mbs_gravity_kind gravity_kind;
    double gravity[3];
    double gravity_center[3];
    double gravity_mu;
    mbs_rotation root_rotation; /* of automatic free joints */
    mbs_planar_mode planar;     /* MBS_PLANAR_AUTO: planar algebra when compile finds it */
    mbs_closure closure;        /* MBS_CLOSURE_ANALYTIC: closed forms where compile finds them */
    int nvisual, visual_cap;
    mbs_visual_def *visuals;   /* [nvisual], name and mesh owned (src/core/visual.c) */
    /* curve joints (src/contact/): their curves with their joint ids */
    int ncurve, curve_cap;
    struct mbs_curve_pair *curves; /* [ncurve] */
};

/* The builder's sizes and settings at one moment, to undo what was added after it (a model
   file that fails half-way leaves the builder as it was). */
typedef struct mbs_builder_mark {
    int nbody, njoint, nforce, nvisual;
    mbs_gravity_kind gravity_kind;
    double gravity[3], gravity_center[3], gravity_mu;
    mbs_rotation root_rotation;
} mbs_builder_mark;
mbs_builder_mark mbs_builder_get_mark(const mbs_builder *b);
/* Remove every element added after the mark (freeing their names) and restore its settings. */
void mbs_builder_rollback(mbs_builder *b, const mbs_builder_mark *mark);

/* mbs_add_joint after its NULL checks; curve 1 allows MBS_JOINT_CURVE (always a cut joint,
   from mbs_add_curve_joint). The id or a status. */
int mbs_builder_push_joint(mbs_builder *b, const mbs_joint_def *def, int curve);
/* Copy of a name (NULL -> ""), or NULL when out of memory. */
char *mbs_strdup_name(const char *name);
/* Append one force element (copied; takes ownership of its name); returns its id or
   MBS_ERR_NOMEM. */
int mbs_builder_push_force(mbs_builder *b, const mbs_force_model *f);
/* Make room for need elements of size elem in *arr (capacity *cap); 0 or -1 if out of memory. */
int mbs_builder_grow(void **arr, int *cap, int need, size_t elem);
/* 0 if R (row-major 3x3) is orthonormal with det +1, 1 if not orthonormal, 2 if a reflection. */
int mbs_rot_check(const double R[9]);

#endif
