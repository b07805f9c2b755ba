/* Gravity fields of a model (uniform or point), applied through data->f_ext. */
#ifndef MBS_FORCES_GRAVITY_H
#define MBS_FORCES_GRAVITY_H

#include "core/model.h"

/* Set f_ext of every body to its gravity force at its centre of mass (zero when there is no
   field or mass; the world's entry too), overwriting f_ext (needs x_world). */
void mbs_gravity_set(mbs_data *d);
/* Potential energy of gravity: uniform -m g.c_world, point -mu m / |c_world - center|. */
double mbs_gravity_potential(const mbs_data *d);

#endif
