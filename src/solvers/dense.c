/* Small dense kernels with a LAPACK fallback (see dense.h). */
#include "solvers/dense.h"

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
