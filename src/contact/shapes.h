/* Collision shapes on bodies and the compliant contact element between them (mbs.h "shapes
 * and unilateral contact"): the shapes' compiled form, their mass properties, the narrow
 * phase (closed forms for the primitive pairs, libccd's MPR for the other convex pairs), the
 * broad phase (sweep and prune on world bounding boxes) and the contact law, a force element
 * whose friction slips and approach speeds are states of the element.
 *
 * A pair's contact points are numbered slots (a box corner, a capsule end): slot k of a pair
 * is the same feature at every evaluation, so its friction state follows it. */
#ifndef MBS_CONTACT_SHAPES_H
#define MBS_CONTACT_SHAPES_H

#include "core/builder.h"
#include "core/internal.h"

#define MBS_CONTACT_NX 4 /* states per contact slot: slip z (3, world), approach speed v0 */

/* One shape (builder and model alike). */
typedef struct mbs_shape_model {
    char *name;              /* never NULL ("" if unnamed) */
    int body;
    mbs_collision_kind kind;
    double size[3];
    mbs_pose pose;           /* shape frame in body coordinates */
    unsigned group, mask;
    int nvert;
    double *vert;            /* mesh: [3 nvert] shape coordinates, owned */
    double lo[3], hi[3];     /* bounding box in shape coordinates (not for a plane) */
} mbs_shape_model;

/* One pair of a contact element. */
typedef struct mbs_contact_pair {
    int a, b;                /* shape ids, ordered for the narrow phase (a plane is b) */
    int npt;                 /* contact slots */
    int xadr;                /* first state of its slots, relative to the element's */
    int on;                  /* 0: bodies joined by a joint (no contact) */
    int set;                 /* its contact element (index among the model's sets) */
    mbs_contact_params par;
    double c;                /* damping of the law: F = k x^n (1 + c xd / v0) */
} mbs_contact_pair;

/* One contact element: its pairs, sorted by (a, b). */
typedef struct mbs_contact_set {
    int force;               /* force element id */
    int joined;              /* 1: pairs on joined bodies collide too */
    int npair;
    mbs_contact_pair *pairs; /* [npair] */
} mbs_contact_set;

/* The model's shapes and contact elements. */
typedef struct mbs_contact_model {
    int nshape;
    mbs_shape_model *shapes; /* [nshape] */
    int nset;
    mbs_contact_set *sets;   /* [nset] */
} mbs_contact_model;

/* One contact point of the narrow phase: signed distance (< 0 penetrating), world point on
   shape a's surface (b's is p + gap n), unit normal from shape a to shape b. */
typedef struct mbs_contact_pt {
    double gap, p[3], n[3];
} mbs_contact_pt;

/* Per data: world poses and boxes of the shapes, the sweep order, the last results. */
typedef struct mbs_contact_data {
    mbs_pose *X;             /* [nshape] world pose of each shape frame */
    double *box;             /* [6 nshape] world bounding box lo, hi (planes: unused) */
    int *order;              /* [nshape] non-plane shapes sorted by box lo x (kept between
                                evaluations: nearly sorted, insertion sort) */
    int norder;
    unsigned char **hit;     /* [nset][npair] 1: the broad phase kept the pair */
    mbs_contact_pt **pt;     /* [nset][MBS_CONTACT_MAX_POINTS npair] last points */
    double **force;          /* [nset][3 MBS_CONTACT_MAX_POINTS npair] force on shape b */
} mbs_contact_data;

/* ---- shapes (shape.c, shape_mass.c) */
/* Validate def (MBS_ERR_ARG naming shape lbl in err) and fill *s (mesh copied: MBS_ERR_NOMEM). */
int mbs_shape_make(char *err, const mbs_shape_def *def, const char *lbl, int nbody,
                   mbs_shape_model *s);
void mbs_shape_free(mbs_shape_model *s);
/* Volume, centre (shape coordinates) and inertia about it per unit density of a checked
   def; MBS_ERR_ARG for a plane or a mesh without triangles. */
int mbs_shape_mass(char *err, const mbs_shape_def *def, const char *lbl, double *vol,
                   double c[3], double J[9]);
/* Forget the shapes from nshape on and the contact elements from force element nforce on. */
void mbs_shapes_rollback(mbs_builder *b, int nshape, int nforce);
void mbs_shapes_builder_free(mbs_builder *b);

/* ---- narrow phase (narrow.c, narrow_ccd.c) */
/* Slots of a pair of kinds (a ordered first). */
int mbs_collide_npt(mbs_collision_kind a, mbs_collision_kind b);
/* The pair's slots at world poses XA, XB; every slot gets a gap (a positive one when it
   does not touch). */
void mbs_collide(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                 const mbs_pose *XB, mbs_contact_pt *out);
/* 1 when the build has libccd (narrow_ccd.c), 0 without it (narrow_ccd_none.c). */
int mbs_collide_has_ccd(void);
/* 1 when the pair of kinds (a first) has a closed form (narrow.c), 0: libccd. */
int mbs_collide_closed(mbs_collision_kind a, mbs_collision_kind b);
/* libccd's MPR on two convex shapes: one slot. */
void mbs_collide_ccd(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                     const mbs_pose *XB, mbs_contact_pt *out);
/* Support point of a shape in world direction dir (not a plane). */
void mbs_shape_support(const mbs_shape_model *s, const mbs_pose *X, const double dir[3],
                       double out[3]);

/* ---- broad phase (broad.c) */
/* World poses and boxes of every shape at the data's kinematics, then the pairs whose boxes
   overlap flagged in cd->hit (pairs with a plane: always). */
void mbs_broad_phase(mbs_data *d);

/* The damping c of the law for restitution e and exponent n (contact_damping.c). */
double mbs_contact_damping(double e, double n);

/* ---- the contact element (contact_law.c, contact_compile.c) */
extern const mbs_force_ops mbs_force_contact_ops;
/* m->contact from the builder (NULL without shapes); joint filter applied. */
int mbs_contact_compile(const mbs_builder *b, mbs_model *m, char *err);
void mbs_contact_model_free(mbs_model *m);
int mbs_contact_data_create(mbs_data *d);
void mbs_contact_data_destroy(mbs_data *d);
/* The pair of set s holding shapes a, b (either order), or NULL. */
const mbs_contact_pair *mbs_contact_find(const mbs_contact_set *s, int a, int b);
/* Contact events: number of pairs of all sets, and for event k its g and handler (user: the
   pair). */
int mbs_contact_nevent(const mbs_model *m);
const mbs_contact_pair *mbs_contact_event_pair(const mbs_model *m, int k);
double mbs_contact_event_g(mbs_data *d, void *user);
int mbs_contact_event_h(mbs_data *d, void *user);

#endif
