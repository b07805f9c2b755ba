/* The BLAS/LAPACK seam: thin wrappers over LAPACKE *_work (column-major) and CBLAS. */
#include "core/linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(lapack_int) == sizeof(int), "mbs expects LP64 LAPACK (32-bit lapack_int)");

static int imax1(int a) { return a > 1 ? a : 1; }

/* Round a LAPACK workspace query result up to an int of at least 1. */
static int lwork_from_query(double q) { return q >= 1.0 ? (int)(q + 0.5) : 1; }

/* Single-threaded OpenBLAS: same inputs, bitwise same outputs. Done once per
   process (the first mbs_data_create), documented in docs/realtime.md; a host that manages
   OpenBLAS's threads itself sets MBS_KEEP_BLAS_THREADS=1 in the environment and mbs leaves
   them alone (its loop results are then repeatable only if the host keeps one thread). */
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

static void blas_single_thread(void)
{
    const char *keep = getenv("MBS_KEEP_BLAS_THREADS");
    if (!keep || !*keep || !strcmp(keep, "0")) openblas_set_num_threads(1);
}

void mbs_linalg_init(void) { pthread_once(&blas_once, blas_single_thread); }

int mbs_linalg_available(void) { return 1; }

/* dpotrf, lower triangle. */
int mbs_linalg_cholesky(int n, double *A, int lda)
{
    return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, lda);
}

/* dpotrs with the lower factor. */
int mbs_linalg_cholesky_solve(int n, int nrhs, const double *L, int lda, double *B, int ldb)
{
    return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, L, lda, B, ldb);
}

/* dgetrf. */
int mbs_linalg_lu(int m, int n, double *A, int lda, int *ipiv)
{
    return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv);
}

/* dgetrs. */
int mbs_linalg_lu_solve(int trans, int n, int nrhs, const double *LU, int lda, const int *ipiv,
                        double *B, int ldb)
{
    return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, nrhs, LU, lda, ipiv, B,
                               ldb);
}

/* dgeqp3 workspace query (no matrix is read). */
int mbs_linalg_qrp_lwork(int m, int n)
{
    double a = 0.0, tau = 0.0, q = 0.0;
    int jpvt = 0;
    if (LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, m, n, &a, imax1(m), &jpvt, &tau, &q, -1) != 0)
        return 3 * n + 1;
    return lwork_from_query(q) > 3 * n + 1 ? lwork_from_query(q) : 3 * n + 1;
}

/* dgeqp3. */
int mbs_linalg_qrp(int m, int n, double *A, int lda, int *jpvt, double *tau, double *work,
                   int lwork)
{
    return LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, m, n, A, lda, jpvt, tau, work, lwork);
}

/* dormqr workspace query, side L (k reflectors at most m: a model without coordinates asks
   with m = 0, which LAPACK would report on stderr). */
int mbs_linalg_apply_qt_lwork(int m, int n, int k)
{
    double a = 0.0, tau = 0.0, c = 0.0, q = 0.0;
    if (k > m) k = m;
    if (LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', 'T', m, n, k, &a, imax1(m), &tau, &c,
                            imax1(m), &q, -1) != 0)
        return imax1(n);
    return lwork_from_query(q) > n ? lwork_from_query(q) : imax1(n);
}

/* dormqr, side L. */
int mbs_linalg_apply_qt(int trans, int m, int n, int k, const double *QR, int lda,
                        const double *tau, double *C, int ldc, double *work, int lwork)
{
    return LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', trans ? 'T' : 'N', m, n, k, QR, lda, tau,
                               C, ldc, work, lwork);
}

/* dtrtrs, upper, non-unit diagonal. */
int mbs_linalg_tri_solve(int trans, int n, int nrhs, const double *R, int lda, double *B,
                         int ldb)
{
    return LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'U', trans ? 'T' : 'N', 'N', n, nrhs, R, lda,
                               B, ldb);
}

/* dgeev workspace query. */
int mbs_linalg_eig_lwork(int n, int want_vectors)
{
    double a = 0.0, w = 0.0, vr = 0.0, q = 0.0;
    const int minw = want_vectors ? 4 * imax1(n) : 3 * imax1(n);
    if (LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', want_vectors ? 'V' : 'N', n, &a, imax1(n), &w,
                           &w, &vr, 1, &vr, imax1(n), &q, -1) != 0)
        return minw;
    return lwork_from_query(q) > minw ? lwork_from_query(q) : minw;
}

/* dgeev, right eigenvectors only. */
int mbs_linalg_eig(int n, double *A, int lda, double *wr, double *wi, double *VR, int ldvr,
                   double *work, int lwork)
{
    double dummy = 0.0;
    return LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', VR ? 'V' : 'N', n, A, lda, wr, wi, &dummy,
                              1, VR ? VR : &dummy, VR ? ldvr : 1, work, lwork);
}

/* dsyev workspace query. */
int mbs_linalg_sym_eig_lwork(int n)
{
    double a = 0.0, w = 0.0, q = 0.0;
    const int minw = imax1(3 * n - 1);
    if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', n, &a, imax1(n), &w, &q, -1) != 0)
        return minw;
    return lwork_from_query(q) > minw ? lwork_from_query(q) : minw;
}

/* dsyev with eigenvectors, lower triangle. */
int mbs_linalg_sym_eig(int n, double *A, int lda, double *w, double *work, int lwork)
{
    return LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', n, A, lda, w, work, lwork);
}

/* cblas_dgemm, column-major. */
void mbs_linalg_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *A,
                     int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    cblas_dgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* cblas_dgemv, column-major. */
void mbs_linalg_gemv(int trans, int m, int n, double alpha, const double *A, int lda,
                     const double *x, double beta, double *y)
{
    cblas_dgemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n, alpha, A, lda, x, 1, beta,
                y, 1);
}

/* dgelsy workspace query. */
int mbs_linalg_lstsq_lwork(int m, int n, int nrhs)
{
    double a = 0.0, b = 0.0, q = 0.0;
    int jpvt = 0, rank = 0;
    const int mn = m < n ? m : n, ldb = imax1(m > n ? m : n);
    const int minw = imax1(mn + 3 * n + 1 > 2 * mn + nrhs ? mn + 3 * n + 1 : 2 * mn + nrhs);
    if (LAPACKE_dgelsy_work(LAPACK_COL_MAJOR, m, n, nrhs, &a, imax1(m), &b, ldb, &jpvt, 1e-10,
                            &rank, &q, -1) != 0)
        return minw;
    return lwork_from_query(q) > minw ? lwork_from_query(q) : minw;
}

/* dgelsy. */
int mbs_linalg_lstsq(int m, int n, int nrhs, double *A, int lda, double *B, int ldb, int *jpvt,
                     double rcond, int *rank, double *work, int lwork)
{
    return LAPACKE_dgelsy_work(LAPACK_COL_MAJOR, m, n, nrhs, A, lda, B, ldb, jpvt, rcond, rank,
                               work, lwork);
}
