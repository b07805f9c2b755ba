/* Model files (mbs_builder_load): URDF as ROS writes it, and mbs's superset of it (joints
 * that close loops, every mbs joint type, force elements, gravity). libxml2 reads the XML;
 * the loader then only calls the builder API, so a file cannot build what C could not. A
 * failure names the file, the line and the element, and the builder is rolled back to what
 * it held before the call. docs/model-files.md is the reference of the format. */
#ifndef MBS_IO_IO_H
#define MBS_IO_IO_H

#include <libxml/tree.h>

#include "core/builder.h"
#include "core/internal.h"

/* A link of the file: its body id (MBS_WORLD for a link named "world"). */
typedef struct io_link {
    const char *name; /* into the document */
    int body;
    int line;
    int parents;   /* tree joints (not cut) whose child it is */
    int parent;    /* the link index of its first tree parent, -1 when none */
    int massive;   /* it has mass (an <inertial> block with mass > 0) */
    int moved;     /* a non-fixed tree joint moves it */
} io_link;

typedef struct io_material {
    const char *name; /* into the document */
    double rgba[4];
} io_material;

/* A tree joint of the file (cut joints are not kept): for the check that every moving
   link carries mass below it. */
typedef struct io_tree_joint {
    int parent, child;   /* link indices */
    int moving;          /* not fixed */
    const xmlNode *node;
} io_tree_joint;

/* A name table (names.c): name -> int, keys borrowed from the document. */
typedef struct io_name_slot {
    const char *key;
    int value;
} io_name_slot;
typedef struct io_names {
    io_name_slot *slots;
    int cap, n;
} io_names;
/* The value of key, or -1 when absent. */
int io_names_find(const io_names *t, const char *key);
/* Add key -> value: 1 added, 0 already there (left as it was), -1 out of memory. */
int io_names_add(io_names *t, const char *key, int value);
void io_names_free(io_names *t);

typedef struct io_ctx {
    mbs_builder *b;
    const char *path;
    io_link *links;
    int nlink, link_cap;
    io_tree_joint *tj;
    int ntj, tj_cap;
    io_material *mats;
    int nmat, mat_cap;
    io_names link_names;  /* link name -> index in links */
    io_names joint_names; /* the file's joint name -> builder joint id */
    int first_joint;      /* the builder's joints before the load */
    mbs_load_options opt;    /* the caller's options (load_options.c) */
    const xmlNode *robot;    /* the document's <robot> */
    double inertia_floor;    /* inertia entries below it are rounding junk, read as 0 */
} io_ctx;

/* The document of model file path as the loader reads it (doc.c): a regular file only, no
   network, a <!DOCTYPE> refused at its line, libxml2 printing nothing; NULL with
   "path[:line]: message" in err (len bytes) and the status in *status. Also for the tools,
   which read their own elements of the same files. */
xmlDoc *io_read_doc(const char *path, char *err, size_t len, int *status);

/* The builder's error "path:line: <element name="x">: message" and status (< 0). */
int io_fail(io_ctx *c, const xmlNode *n, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for a failed builder call: its message, prefixed with the place. */
int io_fail_builder(io_ctx *c, const xmlNode *n, int status);
/* 1 if element n is named tag. */
int io_is(const xmlNode *n, const char *tag);
/* First child element named tag, or NULL. */
xmlNode *io_child(const xmlNode *n, const char *tag);
/* The child element named tag of n where one is meant into *out (NULL when there is none):
   MBS_OK, or a second one refused naming its line. */
int io_one(io_ctx *c, const xmlNode *n, const char *tag, const xmlNode **out);
/* Every attribute of n (but a namespace's) is one of known (NULL-terminated): MBS_OK, or the
   first other one refused naming it. */
int io_check_attrs(io_ctx *c, const xmlNode *n, const char *const *known);
/* The value of attribute name of n, in the document (valid while it is loaded), whatever
   its length; NULL when absent. */
const char *io_attr(const xmlNode *n, const char *name);
/* A boolean attribute ("true"/"false", "1"/"0") into *out (untouched when absent); MBS_OK or
   a status (reported) for another value. */
int io_flag(io_ctx *c, const xmlNode *n, const char *name, int *out);
/* Numbers of an attribute: exactly count finite values; 1 read, 0 absent (out untouched),
   < 0 an error already reported. */
int io_numbers(io_ctx *c, const xmlNode *n, const char *name, double *out, int count);
/* Integer attribute name in [lo, hi] into *out (left as it is when absent): 1 read, 0 absent,
   a negative status (reported) when it is not such an integer. */
int io_integer(io_ctx *c, const xmlNode *n, const char *name, int lo, int hi, int *out);
/* A list of at most max numbers (finite, separated by white space) into out, their number
   into count; 1 read, 0 absent, < 0 an error already reported. */
int io_number_list(io_ctx *c, const xmlNode *n, const char *name, double *out, int max,
                   int *count);
/* <origin xyz rpy> of element n (identity when absent) as a frame. */
int io_origin(io_ctx *c, const xmlNode *n, const char *tag, mbs_frame *f);
/* The body of the link named by attribute attr of n (reported when missing or unknown). */
int io_link_body(io_ctx *c, const xmlNode *n, const char *attr, int *body);
/* The link named name, or NULL. */
io_link *io_find_link(io_ctx *c, const char *name);
/* The builder id of the joint named name (a joint the builder held before the load first,
   then the file's), or -1. */
int io_joint_id(const io_ctx *c, const char *name);

/* Element readers (urdf_links.c, urdf_joints.c, io_elements.c). */
int io_read_materials(io_ctx *c, const xmlNode *robot);
int io_read_link(io_ctx *c, const xmlNode *n);
int io_read_visuals(io_ctx *c, const xmlNode *n, const io_link *l);
int io_read_joint(io_ctx *c, const xmlNode *n);
int io_weld_root(io_ctx *c, const xmlNode *robot);
/* <mimic joint="j" multiplier="r" offset="c"/> of joint n (after every joint is read): a
   joint coupling q_n = r q_j + c (mbs_add_joint_coupling). */
int io_read_mimic(io_ctx *c, const xmlNode *n);
int io_read_element(io_ctx *c, const xmlNode *n); /* the superset's force elements, gravity */
/* io_closure.c: <closure strategy>, <curve_joint> */
int io_read_closure(io_ctx *c, const xmlNode *n);
/* load_options.c: robot files as they ship (mbs_load_options). */
/* Once per document: the inertia floor, 1e-12 of the largest inertia entry of the file. */
void io_options_begin(io_ctx *c, const xmlNode *robot, const mbs_load_options *opt);
/* A warning "file:line: <element>: message" to the caller's function. */
void io_warn(io_ctx *c, const xmlNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* MBS_OK with a warning when robot-level element n is foreign (a namespace, or an element of
   another tool: sensor, mujoco, frame) and is skipped; MBS_ERR_ARG (not reported) otherwise. */
int io_skip_foreign(io_ctx *c, const xmlNode *n);
/* The inertia of link element n (its body def bd) settled before mbs_add_body: junk entries
   zeroed; a failing inertia ignored on a link that cannot move, or balanced when asked. */
void io_settle_inertia(io_ctx *c, const xmlNode *n, mbs_body_def *bd);
/* The joint that holds the root link: fixed (welded), or free with floating_base. */
mbs_joint_type io_root_joint(const io_ctx *c, const char **name);
int io_read_curve_joint(io_ctx *c, const xmlNode *n);

#endif
