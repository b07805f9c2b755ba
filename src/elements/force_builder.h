/* Helpers of the builder calls that add force elements (force_builder.c), shared by the
 * files that add further kinds. */
#ifndef MBS_FORCES_FORCE_BUILDER_H
#define MBS_FORCES_FORCE_BUILDER_H

#include "core/builder.h"

#define LABEL_LEN 96

/* "\"name\"" of the element about to be added, or "#id" (its future id) when unnamed. */
const char *mbs_force_label(const mbs_builder *b, const char *name, char *buf, int len);
/* An element of kind ops attached to no body and no joint (bodies and joint ids -1, the
   rest zero): a callback's or a user-state element's start. */
mbs_force_model mbs_force_unattached(const mbs_force_ops *ops);
/* An element of kind ops on one dof of a joint (bodies -1; compile sets its q and v indices
   and its slot among the frictions or stops). */
mbs_force_model mbs_force_joint_element(const mbs_force_ops *ops, int joint, int dof);
/* Append f, copying its name from name; the element id or a status with the message. */
int mbs_force_push(mbs_builder *b, mbs_force_model *f, const char *name, const char *kind,
                   const char *label);
/* A coefficient of a force element: finite, at most 1e100 in magnitude, >= 0; MBS_OK or
   MBS_ERR_ARG with the message "<kind> <label>: <what> ..." in err. */
int mbs_coefficient_check(char *err, const char *kind, const char *label, const char *what,
                          double value);
/* Bodies exist, points finite and bounded, not both ends at one point of one body. */
int mbs_line_points_check(mbs_builder *b, const char *kind, const char *label, int body_a,
                          int body_b, const double point_a[3], const double point_b[3]);

#endif
