/* Kinetic and potential energy. */
#include "ustates/ustates.h"
#include "core/internal.h"
#include "elements/couplings.h"

/* 1/2 sum_i v_i^T I_i v_i over the bodies at the current kinematics (RBDA eq. 2.72). */
double mbs_kinetic_energy(const mbs_data *d)
{
    const mbs_model *m = d->model;
    double T = 0.0;
    for (int b = 1; b < m->nbody; ++b) {
        double Iv[6];
        rbi_mulv(Iv, &m->bodies[b].rbi, d->vel + 6 * b);
        T += s6_dot(d->vel + 6 * b, Iv);
    }
    return 0.5 * T + (m->ncrow > 0 ? mbs_couplings_kinetic(d) : 0.0);
}

/* Public: kinetic energy and potential energy of gravity and force elements. */
int mbs_energy(mbs_data *d, double *kinetic, double *potential)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_energy");
    if (nested != MBS_OK) return nested;
    if (!kinetic || !potential)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "energy: NULL output (kinetic, potential)");
    int st = mbs_check_state(d, 1, 0);
    if (st != MBS_OK) return st;
    mbs_kinematics(d);
    if (d->model->nnode > 0 && (st = mbs_nodes_solve(d)) != MBS_OK) return st;
    if (d->model->ncrow > 0 && (st = mbs_couplings_eval(d, 0)) != MBS_OK) return st;
    const double T = mbs_kinetic_energy(d), V = mbs_forces_potential(d);
    if (!isfinite(T) || !isfinite(V))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "energy: not finite (kinetic %g, potential %g)",
                             T, V);
    *kinetic = T;
    *potential = V;
    return MBS_OK;
}
