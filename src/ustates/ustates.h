/* User state equations (mbs.h "user state equations"; ROBOTRAN's user equations, Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models"
 * §4.2.2 and §5.1): extra first-order states x of the data, integrated with q and v by every
 * stepper. Each user-state element is a force element (ops below) that owns nux states from
 * index uxadr of data->ux; its apply runs the user's function, which writes the derivatives
 * into data->uxdot and may add forces like a force callback. The steppers read data->uxdot
 * after each dynamics evaluation (mbs_stepper_eval) as the stage derivative of x. */
#ifndef MBS_USTATES_USTATES_H
#define MBS_USTATES_USTATES_H

#include "core/builder.h"
#include "core/internal.h"

/* Largest number of states of one element and of a whole model. */
#define MBS_MAX_USER_STATES 1000000

extern const mbs_force_ops mbs_force_user_states_ops;

/* m->nux and m->ux_start from the builder's elements; MBS_ERR_NOMEM with the message. */
int mbs_ustates_compile(const mbs_builder *b, mbs_model *m, char *err);
/* data->ux (at the model's start values) and data->uxdot; MBS_OK or MBS_ERR_NOMEM. */
int mbs_ustates_data_create(mbs_data *d);
void mbs_ustates_data_destroy(mbs_data *d);
/* Index of the first non-finite user state of the data, or -1. */
int mbs_ustates_first_nonfinite(const mbs_data *d);
/* "x[i] of user states \"name\"" (or #id when unnamed) for user-state index i, into buf. */
const char *mbs_ustates_label(const mbs_model *m, int i, char *buf, int len);

/* MBS_OK, or MBS_ERR_NONFINITE naming the index and joint of the first non-finite value of
   q (always), v and the user states (check_v) and tau (check_tau) (state_check.c: here, as
   the highest part of the state it checks). */
int mbs_check_state(mbs_data *d, int check_v, int check_tau);

#endif
