/* Modes: the eigenvalues of mbs_linearize's A by LAPACK dgeev through the linalg seam, with
 * A and the workspace taken at mbs_data_create (derivs.h), sorted for reading. */
#include "ustates/ustates.h"
#include "derivatives/derivs.h"
#include "core/linalg.h"
#include "loops/user_rows.h"
#include "loops/loops.h"

/* 1 when eigenvalue a sorts before b: smaller |lambda|, then smaller real part, then
   smaller imaginary part. */
static int eig_before(double ar, double ai, double br, double bi)
{
    const double ma = hypot(ar, ai), mb = hypot(br, bi);
    if (ma != mb) return ma < mb;
    if (ar != br) return ar < br;
    return ai < bi;
}

/* Sort the n eigenvalues (wr, wi) in LAPACK's order (a complex pair adjacent, the positive
   imaginary part first) by eig_before of its members with wi >= 0, keeping each pair
   together: the units (a real root, or a pair as its upper member) into ur, ui, an insertion
   sort of them (stable, deterministic), then written back. */
static void eig_sort(double *wr, double *wi, int n, double *ur, double *ui)
{
    int nu = 0;
    for (int i = 0; i < n; i += wi[i] > 0.0 ? 2 : 1) ur[nu] = wr[i], ui[nu++] = wi[i];
    for (int i = 1; i < nu; ++i) {
        const double r = ur[i], im = ui[i];
        int j = i - 1;
        for (; j >= 0 && eig_before(r, im, ur[j], ui[j]); --j) ur[j + 1] = ur[j], ui[j + 1] = ui[j];
        ur[j + 1] = r, ui[j + 1] = im;
    }
    for (int u = 0, i = 0; u < nu; ++u) {
        wr[i] = ur[u], wi[i++] = ui[u];
        if (ui[u] > 0.0) wr[i] = ur[u], wi[i++] = -ui[u];
    }
}

/* The number of eigenvalues mbs_linearize gives with the current selection (and the user
   states). */
static int modes_count(mbs_data *d)
{
    const int nux = d->model->nux;
    if (d->model->ncon == 0) return 2 * d->model->nv + nux;
    const int *ind = NULL;
    const int nd = mbs_loops_independent(d, &ind);
    return nd < 0 ? nd : 2 * nd + nux;
}

/* MBS_ERR_ARG when the caller's capacity cap is below the count n. */
static int check_capacity(mbs_data *d, int cap, int n)
{
    if (cap >= n) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_ARG, "modes: *n = %d is less than the %d eigenvalues (size "
                         "eig_re and eig_im for 2 nv + nux = %d)", cap, n,
                         2 * d->model->nv + d->model->nux);
}

int mbs_modes(mbs_data *d, double *eig_re, double *eig_im, int *n)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_modes");
    if (nested != MBS_OK) return nested;
    if (!eig_re || !eig_im || !n)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "modes: NULL eig_re, eig_im or n");
    if (mbs_uc_refuse_velocity(d, "modes") != MBS_OK) return MBS_ERR_STATE;
    if (!mbs_linalg_available())
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "modes: this build has no LAPACK "
                             "(-Dlapack=disabled); mbs_linearize gives A");
    int st = mbs_check_state(d, 1, 1);
    const int count = st == MBS_OK ? modes_count(d) : st;
    if (count < 0) return count;
    if ((st = check_capacity(d, *n, count)) != MBS_OK) return st;
    mbs_derivs *w = d->derivs;
    int nx = 0;
    st = mbs_linearize(d, w->A, NULL, &nx);
    if (st == MBS_OK) st = check_capacity(d, *n, nx); /* a new partition */
    if (st != MBS_OK) return st;
    /* row-major A read as column-major is A^T: the same eigenvalues */
    const int info = mbs_linalg_eig(nx, w->A, nx > 0 ? nx : 1, w->wr, w->wi, NULL, 1,
                                    w->eig_work, w->lwork);
    if (info != 0)
        return MBS_DATA_FAIL(d, info > 0 ? MBS_ERR_CONVERGENCE : MBS_ERR_ARG, "modes: dgeev "
                             "returned %d (the QR iteration did not converge)", info);
    /* A is free scratch now: nx^2 >= 2 nx doubles for the sort once nx >= 2; a single
       eigenvalue is sorted already (A's one entry could not hold two) */
    if (nx >= 2) eig_sort(w->wr, w->wi, nx, w->A, w->A + nx);
    for (int i = 0; i < nx; ++i) eig_re[i] = w->wr[i], eig_im[i] = w->wi[i];
    *n = nx;
    return MBS_OK;
}
