/* User constraints and joint couplings as rows of the loop machinery (Docquier, Poncelet,
 * Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models", §2.2.1: the
 * user constraints h_user(q) = 0 closed with the loops): the user-row source of
 * constraints.h, the differences that serve a constraint without its Jacobian or quadratic
 * term, the check of a given Jacobian, and the builder calls and their compile. */
#ifndef MBS_LOOPS_USER_ROWS_H
#define MBS_LOOPS_USER_ROWS_H

#include "core/builder.h"
#include "core/uconstr.h"
#include "loops/con_topo.h"

#define MBS_UC_FD_STEP 1e-6      /* central differences of h: step per tangent coordinate */
#define MBS_UC_BIAS_STEP 1e-4    /* second difference of h along v: |s v|_inf */
#define MBS_UC_VBIAS_STEP 1e-6   /* difference of J along v (velocity level): |s v|_inf */
#define MBS_UC_CHECK_TOL 1e-4    /* a given Jacobian off its differences by more than this
                                    times 1 + max |J| is refused */

extern const mbs_con_source mbs_con_user_source;

/* The user rows' evaluations of one data (NULL *out when the model has none). */
int mbs_uc_cache_create(const mbs_model *m, mbs_uc_cache **out);
void mbs_uc_cache_free(mbs_uc_cache *c);
/* A new row evaluation starts (the state may have changed): evaluate again when asked. */
void mbs_uc_begin(mbs_uc_cache *c);
/* Path entries of all user constraints (their dofs) and their fill as topology entries
   *c, *k on (constraints.c's layout). */
int mbs_uc_path_count(const mbs_model *m);
void mbs_uc_path_fill(const mbs_model *m, mbs_con_topo *t, int *c, int *k);
/* Once per data, at its first row selection: every user function runs, and a given
   Jacobian is compared with central differences (MBS_ERR_CALLBACK naming the constraint). */
int mbs_uc_check(mbs_data *d, const mbs_con_topo *t);
/* MBS_ERR_STATE naming the first velocity-level constraint when the model has one (what
   cannot use them: fn names the call). */
int mbs_uc_refuse_velocity(mbs_data *d, const char *fn);
/* The builder's constraints into the model: rows after the cut joints' (m->ncon grows),
   couplings resolved to their dofs; MBS_ERR_ARG naming a coupling on a cut joint. */
int mbs_uc_compile(const mbs_builder *b, mbs_model *m, char *err);
/* "cut joint NAME" or "user constraint NAME" / "joint coupling NAME": the owner of row r
   (< ncon) of the model, for messages outside the loop solver. */
const char *mbs_con_row_owner(const mbs_model *m, int r, char *buf, int len);
/* "user constraint "name"" (or #id; "joint coupling ...") into buf. */
const char *mbs_uc_label(const mbs_model *m, int u, char *buf, int len);

#endif
