/* The BLAS/LAPACK seam of a build configured with -Dlapack=disabled (an embedded target that
 * links the tree dynamics and the fixed-step steppers with libm alone). Compile refuses
 * closed loops in such a build (they need the pivoted QR), so the factorisations below are
 * unreachable from the library's own calls; each reports MBS_LINALG_UNAVAILABLE. The two
 * BLAS products are written out (column-major, as the BLAS computes them). */
#include "core/linalg.h"

void mbs_linalg_init(void) {}

int mbs_linalg_available(void) { return 0; }

int mbs_linalg_cholesky(int n, double *A, int lda)
{
    (void)n, (void)A, (void)lda;
    return MBS_LINALG_UNAVAILABLE;
}

int mbs_linalg_cholesky_solve(int n, int nrhs, const double *L, int lda, double *B, int ldb)
{
    (void)n, (void)nrhs, (void)L, (void)lda, (void)B, (void)ldb;
    return MBS_LINALG_UNAVAILABLE;
}

int mbs_linalg_lu(int m, int n, double *A, int lda, int *ipiv)
{
    (void)m, (void)n, (void)A, (void)lda, (void)ipiv;
    return MBS_LINALG_UNAVAILABLE;
}

int mbs_linalg_lu_solve(int trans, int n, int nrhs, const double *LU, int lda, const int *ipiv,
                        double *B, int ldb)
{
    (void)trans, (void)n, (void)nrhs, (void)LU, (void)lda, (void)ipiv, (void)B, (void)ldb;
    return MBS_LINALG_UNAVAILABLE;
}

int mbs_linalg_qrp_lwork(int m, int n)
{
    (void)m, (void)n;
    return 1;
}

int mbs_linalg_qrp(int m, int n, double *A, int lda, int *jpvt, double *tau, double *work,
                   int lwork)
{
    (void)m, (void)n, (void)A, (void)lda, (void)jpvt, (void)tau, (void)work, (void)lwork;
    return MBS_LINALG_UNAVAILABLE;
}

int mbs_linalg_apply_qt_lwork(int m, int n, int k)
{
    (void)m, (void)n, (void)k;
    return 1;
}

int mbs_linalg_apply_qt(int trans, int m, int n, int k, const double *QR, int lda,
                        const double *tau, double *C, int ldc, double *work, int lwork)
{
    (void)trans, (void)m, (void)n, (void)k, (void)QR, (void)lda, (void)tau, (void)C, (void)ldc;
    (void)work, (void)lwork;
    return MBS_LINALG_UNAVAILABLE;
}

int mbs_linalg_tri_solve(int trans, int n, int nrhs, const double *R, int lda, double *B,
                         int ldb)
{
    (void)trans, (void)n, (void)nrhs, (void)R, (void)lda, (void)B, (void)ldb;
    return MBS_LINALG_UNAVAILABLE;
}

int mbs_linalg_eig_lwork(int n, int want_vectors)
{
    (void)n, (void)want_vectors;
    return 1;
}

int mbs_linalg_eig(int n, double *A, int lda, double *wr, double *wi, double *VR, int ldvr,
                   double *work, int lwork)
{
    (void)n, (void)A, (void)lda, (void)wr, (void)wi, (void)VR, (void)ldvr, (void)work;
    (void)lwork;
    return MBS_LINALG_UNAVAILABLE;
}

int mbs_linalg_sym_eig_lwork(int n)
{
    (void)n;
    return 1;
}

int mbs_linalg_sym_eig(int n, double *A, int lda, double *w, double *work, int lwork)
{
    (void)n, (void)A, (void)lda, (void)w, (void)work, (void)lwork;
    return MBS_LINALG_UNAVAILABLE;
}

/* Element (i, j) of op(A), column-major with leading dimension lda. */
static double op_at(const double *A, int lda, int trans, int i, int j)
{
    return trans ? A[j + (long)i * lda] : A[i + (long)j * lda];
}

void mbs_linalg_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *A,
                     int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double s = 0.0;
            for (int l = 0; l < k; ++l) s += op_at(A, lda, transa, i, l) * op_at(B, ldb, transb, l, j);
            double *c = &C[i + (long)j * ldc];
            *c = (beta == 0.0 ? 0.0 : beta * *c) + alpha * s;
        }
}

void mbs_linalg_gemv(int trans, int m, int n, double alpha, const double *A, int lda,
                     const double *x, double beta, double *y)
{
    const int rows = trans ? n : m, cols = trans ? m : n;
    for (int i = 0; i < rows; ++i) {
        double s = 0.0;
        for (int j = 0; j < cols; ++j) s += op_at(A, lda, trans, i, j) * x[j];
        y[i] = (beta == 0.0 ? 0.0 : beta * y[i]) + alpha * s;
    }
}

int mbs_linalg_lstsq_lwork(int m, int n, int nrhs)
{
    (void)m, (void)n, (void)nrhs;
    return 1;
}

int mbs_linalg_lstsq(int m, int n, int nrhs, double *A, int lda, double *B, int ldb, int *jpvt,
                     double rcond, int *rank, double *work, int lwork)
{
    (void)m, (void)n, (void)nrhs, (void)A, (void)lda, (void)B, (void)ldb, (void)jpvt;
    (void)rcond, (void)work, (void)lwork;
    *rank = 0;
    return MBS_LINALG_UNAVAILABLE;
}
