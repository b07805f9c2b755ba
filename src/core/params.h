/* Parameters of a compiled model (params.c): shared with compile (the spatial inertia of a
 * body) and with the sensitivity runs (src/steppers/sensitivity.c). */
#ifndef MBS_CORE_PARAMS_H
#define MBS_CORE_PARAMS_H

#include "core/model.h"

/* A body's mass, com and inertia and its spatial inertia about the body origin
   (RBDA eq. 2.63): the one computation compile and the parameter calls share. */
void mbs_body_set_inertia(mbs_body_model *bm, double mass, const double com[3],
                          const double inertia[9]);
/* Kind, id and index of p valid for m (the element has that parameter, the model that
   gravity field); MBS_OK or MBS_ERR_ARG with the message in err. */
int mbs_param_check(const mbs_model *m, const mbs_param *p, char *err);
/* Write value into parameter p (checked by mbs_param_check) with everything derived from
   it, without validating the value and without counting a revision; keep_axes: leave the
   swing axes of a point mass as they are (its v keeps its meaning). */
void mbs_param_apply(mbs_model *m, const mbs_param *p, double value, int keep_axes);

/* Parameters of rotors, line masses and joint friction (params_elements.c), the kinds for
   which mbs_param_is_element is 1: check the id names an element with that parameter (index
   already in range), read it, validate a new value as the builder does (message in
   m->error), and write it with what compile derives from it. */
int mbs_param_is_element(const mbs_param *p);
int mbs_param_element_check(const mbs_model *m, const mbs_param *p, char *err);
double mbs_param_element_get(const mbs_model *m, const mbs_param *p, char *err);
int mbs_param_element_value_check(mbs_model *m, const mbs_param *p, double value);
void mbs_param_element_apply(mbs_model *m, const mbs_param *p, double value);

/* Geometry parameters (params_geometry.c), the kinds for which mbs_param_is_geometry is 1:
   as the element calls above; apply writes the value, derives again what compile derives
   from it and counts a geometry revision (m->geom_rev). */
int mbs_param_is_geometry(const mbs_param *p);
int mbs_param_geometry_check(const mbs_model *m, const mbs_param *p, char *err);
double mbs_param_geometry_get(const mbs_model *m, const mbs_param *p);
int mbs_param_geometry_value_check(mbs_model *m, const mbs_param *p, double value);
void mbs_param_geometry_apply(mbs_model *m, const mbs_param *p, double value);
/* The steps of compile (compile.c) a geometry change runs again: the rows of every cut joint
   in body coordinates with their loops' length scales, and whether a frame is the identity
   (rotation bitwise I, position 0). */
void mbs_compile_cuts(mbs_model *m);
int mbs_frame_is_identity(const mbs_pose *X);

#endif
