/* The tools' elements of a model file, read with libxml2 by mbs-sim and mbs-fmu alike (the
 * library's loader skips them; docs/model-files.md):
 *   <track label="tip" link="LINK" point="x y z"/>   a point of a link whose world position
 *                                                    is recorded (mbs-sim) or an output (FMU)
 *   <input name="push" link="LINK" point="x y z"/>   a world-frame force and torque on a link,
 *                                                    applied at the point: FMU inputs
 * One reader for both programs, so a file means the same thing to each. */
#ifndef MBS_TOOL_ELEMENTS_H
#define MBS_TOOL_ELEMENTS_H

#include <stddef.h>

#include <libxml/tree.h>

#include <mbs/mbs.h>

#define TOOL_LABEL_MAX 64
#define TOOL_LINK_MAX 128

/* A point of a link named in the file: <track> (name = label) or <input> (name). */
typedef struct tool_point {
    char name[TOOL_LABEL_MAX];
    char link[TOOL_LINK_MAX];
    double point[3]; /* link coordinates (0 0 0 when the attribute is left out) */
    long line;       /* line of the element in the file */
} tool_point;

/* Attribute value into buf (cut to len - 1 bytes); 1 if present, else 0. */
int tool_attr(const xmlNode *n, const char *name, char *buf, size_t len);
/* Exactly count finite numbers separated by white space; 0 or -1. */
int tool_numbers(const char *s, double *out, int count);

/* One <track> or <input> element (name attribute: "label" or "name") into out, checked
   against the ones before it (prev[0..nprev), a name given twice is an error); 0, or -1 with
   the reason (without the file's location) in msg. */
int tool_read_point(const xmlNode *n, const char *name_attr, const tool_point *prev, int nprev,
                    tool_point *out, char *msg, size_t len);

/* Every <track> and <input> at the top level of a model file; 0, or -1 with
   "path:line: <element>: reason" in err. Free with tool_elements_free. */
typedef struct tool_elements {
    int ntrack, ninput;
    tool_point *track, *input;
} tool_elements;
int tool_elements_read(const char *path, tool_elements *out, char *err, size_t len);
void tool_elements_free(tool_elements *e);

/* World position of a point of a body (body coordinates): pos + R p. */
int tool_point_world(mbs_data *d, int body, const double point[3], double out[3]);

#endif
