/* A counting allocator for the real-time tests (suite 'alloc'): linking count_alloc.c
 * interposes malloc, calloc, realloc, free and the aligned variants of the executable (and of
 * every library it loads, dlopen'ed FMUs included); they forward to glibc's __libc_* and
 * count while counting is on. */
#ifndef MBS_TESTS_COUNT_ALLOC_H
#define MBS_TESTS_COUNT_ALLOC_H

/* Start counting from zero. */
void count_begin(void);
/* Stop counting; the number of allocations and frees since count_begin. */
long count_end(void);

#endif
