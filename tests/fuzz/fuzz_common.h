/* Shared pieces of the libFuzzer harnesses: a byte reader and the contract checks. */
#ifndef MBS_FUZZ_COMMON_H
#define MBS_FUZZ_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs/mbs.h"

typedef struct fz {
    const uint8_t *p;
    size_t n;
} fz;

static inline unsigned fz_byte(fz *f)
{
    if (!f->n) return 0;
    f->n--;
    return *f->p++;
}

/* A double: usually a modest value, sometimes 0, a huge one, NaN or Inf. */
static inline double fz_real(fz *f, double scale)
{
    const unsigned k = fz_byte(f), x = fz_byte(f);
    if (k < 200) return scale * ((double)x - 128.0) / 64.0;
    if (k < 230) return 0.0;
    if (k < 245) return (x & 1 ? -1.0 : 1.0) * pow(10.0, (double)(x % 320));
    return k < 250 ? NAN : (x & 1 ? -INFINITY : INFINITY);
}

/* Abort (so libFuzzer reports the input) when the contract is broken. */
static inline void fz_require(int ok, const char *what, const char *msg)
{
    if (ok) return;
    fprintf(stderr, "contract broken: %s (%s)\n", what, msg ? msg : "");
    abort();
}

/* A status is MBS_OK or one of the documented MBS_ERR_* values. */
static inline int fz_documented(int st) { return st == MBS_OK || (st <= -1 && st >= -10); }

static inline int fz_finite(const double *x, int n)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* A failure carries a documented status and a non-empty message. */
static inline void fz_check_status(int st, const char *msg, const char *call)
{
    fz_require(fz_documented(st), call, "undocumented status");
    if (st != MBS_OK) fz_require(msg && *msg, call, "empty message");
}

#endif
