/* Helpers shared by the cmocka tests. */
#ifndef MBS_TESTS_COMMON_H
#define MBS_TESTS_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "mbs/mbs.h"

/* Deterministic xorshift generator. */
typedef struct test_rng { uint64_t s; } test_rng;
void test_rng_seed(test_rng *r, uint64_t seed);
double test_rng_uniform(test_rng *r, double lo, double hi);
int test_rng_int(test_rng *r, int lo, int hi_inclusive);

/* max_i |a_i - b_i| / (scale + max |b_i|) */
double test_rel_diff(const double *a, const double *b, int n);
/* Assert |a_i - b_i| <= tol * (1 + max|b|) for all i, printing the worst index. */
void test_assert_close(const double *a, const double *b, int n, double tol, const char *what);

/* Folder with the shared reference data, or NULL (tests must then skip, saying so). */
const char *test_refdata_dir(void);

#endif
