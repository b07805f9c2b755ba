/* Dense kernels of the loop solver for the small square systems typical loops produce
 * (J_v, K): below MBS_DENSE_SMALL rows our own column-major loops (LAPACK's call overhead
 * dominates there), above it LAPACK through the linalg seam. Same conventions as LAPACK:
 * column-major with leading dimension n, 1-based pivots, info > 0 = first zero pivot or
 * failing minor. Nothing here allocates; results are deterministic. */
#ifndef MBS_SOLVERS_DENSE_H
#define MBS_SOLVERS_DENSE_H

#define MBS_DENSE_SMALL 16

/* LU with partial pivoting A = P L U of an n x n matrix (dgetrf); 0 or the first zero pivot. */
int mbs_dense_lu(int n, double *A, int *ipiv);
/* x = A^-1 b (trans 0) or A^-T b (trans 1) in place with the factors of mbs_dense_lu. */
void mbs_dense_lu_solve(int trans, int n, const double *LU, const int *ipiv, double *x);
/* Cholesky A = L L^T (lower triangle, dpotrf); 0 or the order of the failing minor. */
int mbs_dense_cholesky(int n, double *A);
/* x = A^-1 b in place with the factor of mbs_dense_cholesky. */
void mbs_dense_cholesky_solve(int n, const double *L, double *x);
/* Pivoted Cholesky P^T A P = L L^T of a symmetric positive semidefinite n x n matrix
   (lower triangle used and overwritten) that stops when no remaining diagonal of the Schur
   complement exceeds tol times the largest diagonal of A: returns that rank k (the first k
   columns of L are valid); perm[j] (0-based) is the row of A in position j. Always our own
   loops (a rank-revealing factor of a near-singular K; deterministic tie-breaks: the first
   largest diagonal). */
int mbs_dense_cholesky_pivoted(int n, double *A, int *perm, double tol);
/* Least-change solve with the first k pivots of mbs_dense_cholesky_pivoted: x holds b on
   entry and on return x_1 = A_11^-1 b_1 on the k kept rows, 0 on the others; w is n doubles
   of scratch. Returns max |b_2 - A_21 x_1| over the rows left out (what they keep unmet). */
double mbs_dense_cholesky_pivoted_solve(int n, int k, const double *L, const int *perm,
                                        double *w, double *x);

#endif
