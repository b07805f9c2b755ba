/* User constraints and joint couplings as the builder keeps them and the model holds them
 * (src/loops/user_rows.c evaluates them; their rows follow the cut joints' rows). */
#ifndef MBS_CORE_UCONSTR_H
#define MBS_CORE_UCONSTR_H

#include "mbs/mbs.h"

typedef struct mbs_uc_model mbs_uc_model;

/* How one kind of constraint gives its rows at the data's state: h (nrow), J (nrow x nv,
   row-major, unscaled; NULL: not wanted) and jdotv (nrow; NULL: not wanted); a status. */
typedef struct mbs_uc_ops {
    const char *kind; /* "user constraint", "joint coupling": for messages */
    int (*eval)(const mbs_uc_model *u, mbs_data *d, double *h, double *J, double *jdotv);
} mbs_uc_ops;

struct mbs_uc_model {
    char name[64];
    const mbs_uc_ops *ops;
    int nrow;
    int rowadr;          /* first row in the model's ncon rows (set at compile) */
    int velocity;        /* 1: J(q) v = 0 rows, no position residual */
    int jacobian, bias;  /* 1: fn gives J, jdotv; 0: differences */
    double scale;        /* rows are divided by it for the solver */
    mbs_user_constraint_fn fn;
    void *user;
    /* joint coupling q_a = ratio q_b + offset */
    int joint[2], dof[2];
    int qadr[2], vadr[2]; /* set at compile */
    double ratio, offset;
};

extern const mbs_uc_ops mbs_uc_user_ops, mbs_uc_coupling_ops;

#endif
