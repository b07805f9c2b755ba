/* The BLAS/LAPACK seam: every dense factorisation of the library goes
 * through these wrappers. Matrices are column-major with an explicit leading dimension;
 * LAPACK is reached only through LAPACKE's *_work routines, so nothing here allocates:
 * callers size their workspace once (the *_lwork queries) when they create their object.
 * Return values: 0 on success, < 0 for a bad argument (LAPACK's -i), > 0 as LAPACK's info
 * (e.g. the order of a leading minor that is not positive definite). */
#ifndef MBS_CORE_LINALG_H
#define MBS_CORE_LINALG_H

/* What every factorisation returns in a build configured with -Dlapack=disabled
   (src/core/linalg_none.c); such a build refuses closed loops at compile. */
#define MBS_LINALG_UNAVAILABLE (-1000)

/* 1 when the build has LAPACK (src/core/linalg.c), 0 without (linalg_none.c). */
int mbs_linalg_available(void);

/* Make OpenBLAS single-threaded (bitwise repeatable results) once per process, unless the
   environment has MBS_KEEP_BLAS_THREADS=1; idempotent, cheap. */
void mbs_linalg_init(void);

/* Cholesky A = L L^T of a symmetric positive definite n x n matrix (lower triangle used and
   overwritten). */
int mbs_linalg_cholesky(int n, double *A, int lda);
/* Solve A X = B with the factor from mbs_linalg_cholesky; B (n x nrhs) overwritten. */
int mbs_linalg_cholesky_solve(int n, int nrhs, const double *L, int lda, double *B, int ldb);

/* LU with partial pivoting of an m x n matrix; ipiv (min(m,n)), 1-based as in LAPACK. */
int mbs_linalg_lu(int m, int n, double *A, int lda, int *ipiv);
/* Solve A X = B (trans = 0) or A^T X = B (trans = 1) with the LU factors. */
int mbs_linalg_lu_solve(int trans, int n, int nrhs, const double *LU, int lda, const int *ipiv,
                        double *B, int ldb);

/* Workspace (doubles) that mbs_linalg_qrp needs for an m x n matrix. */
int mbs_linalg_qrp_lwork(int m, int n);
/* QR with column pivoting A P = Q R (LAPACK dgeqp3). jpvt (n): on entry 0 = free column,
   on exit 1-based original column of each pivot; tau (min(m,n)). */
int mbs_linalg_qrp(int m, int n, double *A, int lda, int *jpvt, double *tau, double *work,
                   int lwork);
/* Workspace (doubles) for mbs_linalg_apply_qt with C of size m x n and k reflectors. */
int mbs_linalg_apply_qt_lwork(int m, int n, int k);
/* C = Q^T C (trans = 1) or Q C (trans = 0), Q from mbs_linalg_qrp's k reflectors. */
int mbs_linalg_apply_qt(int trans, int m, int n, int k, const double *QR, int lda,
                        const double *tau, double *C, int ldc, double *work, int lwork);
/* Solve the upper triangular system R X = B (trans = 0) or R^T X = B (trans = 1); a zero
   diagonal gives its 1-based index. */
int mbs_linalg_tri_solve(int trans, int n, int nrhs, const double *R, int lda, double *B,
                         int ldb);

/* Workspace (doubles) for mbs_linalg_eig of an n x n matrix (right vectors wanted or not). */
int mbs_linalg_eig_lwork(int n, int want_vectors);
/* Eigenvalues wr + i wi (n) of a general matrix A (overwritten); right eigenvectors in VR
   (n x n, LAPACK dgeev packing) when VR is not NULL. */
int mbs_linalg_eig(int n, double *A, int lda, double *wr, double *wi, double *VR, int ldvr,
                   double *work, int lwork);
/* Workspace (doubles) for mbs_linalg_sym_eig. */
int mbs_linalg_sym_eig_lwork(int n);
/* Eigenvalues w (n, ascending) and, in A, orthonormal eigenvectors of a symmetric matrix. */
int mbs_linalg_sym_eig(int n, double *A, int lda, double *w, double *work, int lwork);

/* C = alpha op(A) op(B) + beta C (BLAS dgemm; op = transpose when trans* is 1). */
void mbs_linalg_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *A,
                     int lda, const double *B, int ldb, double beta, double *C, int ldc);
/* y = alpha op(A) x + beta y for an m x n matrix A (BLAS dgemv). */
void mbs_linalg_gemv(int trans, int m, int n, double alpha, const double *A, int lda,
                     const double *x, double beta, double *y);

/* Workspace (doubles) for mbs_linalg_lstsq of an m x n matrix with nrhs right-hand sides. */
int mbs_linalg_lstsq_lwork(int m, int n, int nrhs);
/* Minimum-norm least-squares solution of A X = B (LAPACK dgelsy: QR with column pivoting and
   a complete orthogonal factorisation); the leading columns whose incremental condition
   estimate exceeds 1 / rcond set the effective rank *rank, the others are dropped. A (m x n)
   is overwritten; B (ldb >= max(m, n), nrhs columns) receives X in its first n rows; jpvt (n)
   zeros on entry. */
int mbs_linalg_lstsq(int m, int n, int nrhs, double *A, int lda, double *B, int ldb, int *jpvt,
                     double rcond, int *rank, double *work, int lwork);

#endif
