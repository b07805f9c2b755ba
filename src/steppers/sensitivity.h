/* Parameter sensitivity runs (sensitivity.c with SUNDIALS CVODES, sensitivity_none.c in a
 * build without it): the checks of mbs_sens_create both share (sensitivity_def.c). */
#ifndef MBS_SOLVERS_SENSITIVITY_H
#define MBS_SOLVERS_SENSITIVITY_H

#include "core/internal.h"

/* Every argument of mbs_sens_create: model and data that belong together, np >= 1 distinct
   valid parameters (not a point mass's inertia), a tree model with coordinates, a valid
   definition; MBS_OK or the status with the message in the data (MBS_ERR_ARG without one). */
int mbs_sens_check(const mbs_model *m, mbs_data *d, const mbs_param *params, int np,
                   const mbs_sens_def *def, mbs_sens **out);

#endif
