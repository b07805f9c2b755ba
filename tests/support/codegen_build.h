/* Build generated code for the codegen tests and bench_codegen: write the C of a model with
 * mbs-codegen's generator (tools/codegen/), compile it with cc into a shared object, check
 * that the object needs nothing but libm, and load it. No cmocka here (the bench uses it). */
#ifndef MBS_TESTS_CODEGEN_BUILD_H
#define MBS_TESTS_CODEGEN_BUILD_H

#include "cg.h"

/* Generate m (prefix "gen"; loops frozen at q_start, NULL: the model's start values) into
   dir/gen.c, compile it with `cc <cflags>` (strict C99, warnings as errors when strict),
   check its undefined symbols (libm only: sin, cos, sincos, sqrt, fmax, fabs; the GOT of
   position-independent code; and memcpy, memmove, memset, memcmp, which GCC may make of a
   copy loop and requires of every environment, freestanding ones too) and dlopen it
   into *so. Lines of arithmetic, or -1 with the reason in msg. */
int cgb_build(const mbs_model *m, const double *q_start, const char *dir, const char *cflags,
              int strict, void **so, char *msg, int len);
/* The address of the generated function gen_NAME (NULL when absent). */
void *cgb_fn(void *so, const char *name);
/* A fresh temporary directory in dir (>= 32 bytes); 0 or -1. Remove it with cgb_rmdir. */
int cgb_mkdir(char *dir);
void cgb_rmdir(const char *dir);

#endif
