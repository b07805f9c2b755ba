/* Small dense kernels with a LAPACK fallback (see dense.h). */
#include "core/dense.h"

#include <math.h>

#include "core/linalg.h"

/* Swap rows a and b of the n x n column-major A. */
static void swap_rows(int n, double *A, int a, int b)
{
    for (int j = 0; j < n; ++j) {
        const double t = A[a + j * n];
        A[a + j * n] = A[b + j * n];
        A[b + j * n] = t;
    }
}

/* See dense.h: right-looking elimination, largest pivot of each column. */
int mbs_dense_lu(int n, double *A, int *ipiv)
{
    if (n > MBS_DENSE_SMALL) return mbs_linalg_lu(n, n, A, n, ipiv);
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(A[i + k * n]) > fabs(A[p + k * n])) p = i;
        ipiv[k] = p + 1;
        if (A[p + k * n] == 0.0) return k + 1;
        if (p != k) swap_rows(n, A, p, k);
        const double inv = 1.0 / A[k + k * n];
        for (int i = k + 1; i < n; ++i) A[i + k * n] *= inv;
        for (int j = k + 1; j < n; ++j) {
            const double a = A[k + j * n];
            if (a == 0.0) continue;
            for (int i = k + 1; i < n; ++i) A[i + j * n] -= A[i + k * n] * a;
        }
    }
    return 0;
}

/* P L U x = b: swaps, unit lower, upper; or U^T L^T P^T x = b in reverse. */
void mbs_dense_lu_solve(int trans, int n, const double *LU, const int *ipiv, double *x)
{
    if (n > MBS_DENSE_SMALL) {
        mbs_linalg_lu_solve(trans, n, 1, LU, n, ipiv, x, n);
        return;
    }
    if (!trans) {
        for (int k = 0; k < n; ++k) {
            const int p = ipiv[k] - 1;
            const double t = x[k];
            x[k] = x[p], x[p] = t;
        }
        for (int j = 0; j < n; ++j)
            for (int i = j + 1; i < n; ++i) x[i] -= LU[i + j * n] * x[j];
        for (int j = n - 1; j >= 0; --j) {
            x[j] /= LU[j + j * n];
            for (int i = 0; i < j; ++i) x[i] -= LU[i + j * n] * x[j];
        }
        return;
    }
    for (int j = 0; j < n; ++j) { /* U^T y = b */
        double s = x[j];
        for (int i = 0; i < j; ++i) s -= LU[i + j * n] * x[i];
        x[j] = s / LU[j + j * n];
    }
    for (int j = n - 1; j >= 0; --j) /* L^T z = y */
        for (int i = j + 1; i < n; ++i) x[j] -= LU[i + j * n] * x[i];
    for (int k = n - 1; k >= 0; --k) {
        const int p = ipiv[k] - 1;
        const double t = x[k];
        x[k] = x[p], x[p] = t;
    }
}

/* See dense.h: column by column, lower triangle. */
int mbs_dense_cholesky(int n, double *A)
{
    if (n > MBS_DENSE_SMALL) return mbs_linalg_cholesky(n, A, n);
    for (int j = 0; j < n; ++j) {
        double s = A[j + j * n];
        for (int k = 0; k < j; ++k) s -= A[j + k * n] * A[j + k * n];
        if (!(s > 0.0)) return j + 1;
        const double l = sqrt(s), inv = 1.0 / l;
        A[j + j * n] = l;
        for (int i = j + 1; i < n; ++i) {
            double t = A[i + j * n];
            for (int k = 0; k < j; ++k) t -= A[i + k * n] * A[j + k * n];
            A[i + j * n] = t * inv;
        }
    }
    return 0;
}

/* L y = b, L^T x = y. */
void mbs_dense_cholesky_solve(int n, const double *L, double *x)
{
    if (n > MBS_DENSE_SMALL) {
        mbs_linalg_cholesky_solve(n, 1, L, n, x, n);
        return;
    }
    for (int j = 0; j < n; ++j) {
        x[j] /= L[j + j * n];
        for (int i = j + 1; i < n; ++i) x[i] -= L[i + j * n] * x[j];
    }
    for (int j = n - 1; j >= 0; --j) {
        double s = x[j];
        for (int i = j + 1; i < n; ++i) s -= L[i + j * n] * x[i];
        x[j] = s / L[j + j * n];
    }
}

/* Symmetric interchange of rows and columns j < p of the lower triangle of A, whose columns
   before j hold computed factor columns (the swap of LAPACK's dpstrf). */
static void swap_pivot(int n, double *A, int j, int p)
{
    double t = A[j + j * n];
    A[j + j * n] = A[p + p * n], A[p + p * n] = t;
    for (int k = 0; k < j; ++k) t = A[j + k * n], A[j + k * n] = A[p + k * n], A[p + k * n] = t;
    for (int i = j + 1; i < p; ++i) t = A[i + j * n], A[i + j * n] = A[p + i * n], A[p + i * n] = t;
    for (int i = p + 1; i < n; ++i) t = A[i + j * n], A[i + j * n] = A[i + p * n], A[i + p * n] = t;
}

/* See dense.h: outer-product Cholesky, at each step the row with the largest remaining
   diagonal (the one farthest from the span of those taken). */
int mbs_dense_cholesky_pivoted(int n, double *A, int *perm, double tol)
{
    double dmax = 0.0;
    for (int i = 0; i < n; ++i) {
        perm[i] = i;
        dmax = fmax(dmax, A[i + i * n]);
    }
    for (int j = 0; j < n; ++j) {
        int p = j;
        for (int i = j + 1; i < n; ++i)
            if (A[i + i * n] > A[p + p * n]) p = i;
        if (!(A[p + p * n] > tol * dmax)) return j;
        if (p != j) {
            swap_pivot(n, A, j, p);
            const int t = perm[j];
            perm[j] = perm[p], perm[p] = t;
        }
        const double l = sqrt(A[j + j * n]), inv = 1.0 / l;
        A[j + j * n] = l;
        for (int i = j + 1; i < n; ++i) A[i + j * n] *= inv;
        for (int c = j + 1; c < n; ++c) {
            const double a = A[c + j * n];
            if (a == 0.0) continue;
            for (int i = c; i < n; ++i) A[i + c * n] -= A[i + j * n] * a;
        }
    }
    return n;
}

/* See dense.h: w = P^T b; L11 y = w_1; rho = w_2 - L21 y; L11^T x_1 = y. */
double mbs_dense_cholesky_pivoted_solve(int n, int k, const double *L, const int *perm,
                                        double *w, double *x)
{
    for (int j = 0; j < n; ++j) w[j] = x[perm[j]];
    for (int j = 0; j < k; ++j) {
        w[j] /= L[j + j * n];
        for (int i = j + 1; i < n; ++i) w[i] -= L[i + j * n] * w[j];
    }
    double rho = 0.0;
    for (int i = k; i < n; ++i) rho = fmax(rho, fabs(w[i]));
    for (int j = k - 1; j >= 0; --j) {
        double s = w[j];
        for (int i = j + 1; i < k; ++i) s -= L[i + j * n] * w[i];
        w[j] = s / L[j + j * n];
    }
    for (int j = 0; j < n; ++j) x[perm[j]] = j < k ? w[j] : 0.0;
    return rho;
}
