#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

void test_rng_seed(test_rng *r, uint64_t seed) { r->s = seed * 2654435761u + 88172645463325252ull; }

static uint64_t rng_next(test_rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

double test_rng_uniform(test_rng *r, double lo, double hi)
{
    double u = (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return lo + (hi - lo) * u;
}

int test_rng_int(test_rng *r, int lo, int hi_inclusive)
{
    return lo + (int)(rng_next(r) % (uint64_t)(hi_inclusive - lo + 1));
}

double test_rel_diff(const double *a, const double *b, int n)
{
    double scale = 0.0, worst = 0.0;
    for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(b[i]));
    for (int i = 0; i < n; ++i) worst = fmax(worst, fabs(a[i] - b[i]));
    return worst / (1.0 + scale);
}

void test_assert_close(const double *a, const double *b, int n, double tol, const char *what)
{
    double scale = 0.0;
    for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(b[i]));
    for (int i = 0; i < n; ++i) {
        double err = fabs(a[i] - b[i]);
        if (!(err <= tol * (1.0 + scale))) {
            print_error("%s: index %d: %.17g vs %.17g (err %.3g, tol %.3g)\n", what, i, a[i],
                        b[i], err, tol * (1.0 + scale));
            fail();
        }
    }
}

const char *test_refdata_dir(void)
{
    const char *dir = getenv("MBS_REFDATA");
    struct stat st;
    if (dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return dir;
    return NULL;
}
