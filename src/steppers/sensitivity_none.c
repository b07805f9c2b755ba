/* Sensitivity runs in a build configured with -Dcvode=disabled: mbs_sens_create checks its
 * arguments, then refuses with MBS_ERR_STATE and a message that says why; the other calls
 * only ever see a NULL run object. */
#include "steppers/sensitivity.h"

int mbs_sens_create(mbs_model *m, mbs_data *d, const mbs_param *params, int np,
                    const mbs_sens_def *def, mbs_sens **out)
{
    const int st = mbs_sens_check(m, d, params, np, def, out);
    if (st != MBS_OK) return st;
    return MBS_DATA_FAIL(d, MBS_ERR_STATE, "mbs_sens_create: this build of mbs has no SUNDIALS "
                         "CVODES (configured with -Dcvode=disabled)");
}

void mbs_sens_destroy(mbs_sens *s) { (void)s; }
int mbs_sens_run(mbs_sens *s, double t_end) { (void)s, (void)t_end; return MBS_ERR_ARG; }
int mbs_sens_get(const mbs_sens *s, int k, double *dq, double *dv)
{
    (void)s, (void)k, (void)dq, (void)dv;
    return MBS_ERR_ARG;
}
int mbs_sens_restart(mbs_sens *s) { (void)s; return MBS_ERR_ARG; }
int mbs_sens_get_user_states(const mbs_sens *s, int k, double *dx)
{
    (void)s, (void)k, (void)dx;
    return MBS_ERR_ARG;
}
