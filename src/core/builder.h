/* The mutable builder: growing arrays of definitions, validated on entry. */
#ifndef MBS_CORE_BUILDER_H
#define MBS_CORE_BUILDER_H

#include <stddef.h>

#include "core/model.h"

struct mbs_builder {
    char error[MBS_ERROR_LEN];
    /* the first failed call since creation or mbs_builder_clear_error: its status (0: none)
       and its message prefixed with the call's name; mbs_compile refuses while it is set */
    int first_status;
    char first_error[MBS_ERROR_LEN];
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
    mbs_visual_def *visuals;   /* [nvisual], name and mesh owned (src/api/visual.c) */
    /* start values and held coordinates (src/api/start.c): one entry per call, applied in
       order at compile (a later call for the same joint replaces what it gives) */
    int nstart, start_cap;
    struct mbs_start_entry *starts; /* [nstart] */
    int nrotor, rotor_cap;
    struct mbs_rotor_model *rotors; /* [nrotor], names owned (src/elements/) */
    int nnode_start, node_start_cap;
    struct mbs_node_start *node_starts; /* [nnode_start] (src/elements/node_start.c) */
    /* user events and prescribed motions (src/events/event_builder.c) */
    int nevent, event_cap;
    struct mbs_event_model *events;   /* [nevent], names owned */
    int nmotion, motion_cap;
    struct mbs_motion_model *motions; /* [nmotion] */
    /* curve joints (src/contact/): their curves with their joint ids */
    int ncurve, curve_cap;
    struct mbs_curve_pair *curves; /* [ncurve] */
    /* user state equations (src/ustates/): the start values of every element's states, in
       element order (an element's uxadr indexes them) */
    int nux, ux_cap;
    double *ux_start;          /* [nux] */
    /* user constraints and joint couplings (src/loops/user_rows.c) */
    int nuc, uc_cap;
    struct mbs_uc_model *ucs;  /* [nuc] */
    /* collision shapes and contact elements (src/contact/shapes.h) */
    int nshape, shape_cap;
    struct mbs_shape_model *shapes; /* [nshape] */
    int nset, set_cap;
    struct mbs_contact_set *sets;   /* [nset], pairs owned */
};

/* The builder's sizes and settings at one moment, to undo what was added after it (a model
   file that fails half-way leaves the builder as it was). */
typedef struct mbs_builder_mark {
    int nbody, njoint, nforce, nvisual, nstart, nrotor, nnode_start;
    int nevent, nmotion;
    int nux;
    int nuc;
    int nshape;
    int first_status;
    mbs_gravity_kind gravity_kind;
    double gravity[3], gravity_center[3], gravity_mu;
    mbs_rotation root_rotation;
} mbs_builder_mark;
mbs_builder_mark mbs_builder_get_mark(const mbs_builder *b);
/* Remove every element added after the mark (freeing their names) and restore its settings
   (a first failure recorded after the mark is forgotten too: the caller notes its own). */
void mbs_builder_rollback(mbs_builder *b, const mbs_builder_mark *mark);
/* st unchanged; when st is a failure and the builder has no first failure yet, records it
   with b->error prefixed by fn (the public call's name). Every public builder call returns
   through it, so a host that ignores a status still gets a refusal from mbs_compile. */
int mbs_builder_note(mbs_builder *b, const char *fn, int st);

/* One mbs_set_joint_start or mbs_set_joint_hold call (src/api/start.c). */
typedef struct mbs_start_entry {
    int joint;
    int has_q, has_v, has_hold;
    double q[7], v[6];
    unsigned char hold[6];
} mbs_start_entry;
/* Start values of the compiled model from the builder's entries: m->q_start, v_start, hold
   (neutral, zero and none where no entry gives them); MBS_ERR_ARG naming a joint that
   compile made a cut joint, MBS_ERR_NOMEM. */
int mbs_start_compile(const mbs_builder *b, mbs_model *m, char *err);
/* Free the events from index nevent and the motions from nmotion on (event_builder.c). */
void mbs_events_builder_truncate(mbs_builder *b, int nevent, int nmotion);

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
/* The checks of mbs_add_body on mass, com and inertia (finite, bounded, mass >= 0, inertia
   symmetric, positive semi-definite, triangle inequality, zero when the mass is); MBS_OK and
   the symmetrised inertia in sym, or MBS_ERR_ARG with the message (naming body lbl) in err. */
int mbs_body_def_check(char *err, const mbs_body_def *def, const char *lbl, double sym[9]);
/* The checks of mbs_builder_set_point_gravity (fn names the call in the NULL message). */
int mbs_point_gravity_check(char *err, const char *fn, const double center[3], double mu);
/* 0 if R (row-major 3x3) is orthonormal with det +1, 1 if not orthonormal, 2 if a reflection. */
int mbs_rot_check(const double R[9]);

#endif
