/* The counting allocator of the real-time tests (count_alloc.h). */
#include "count_alloc.h"

#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t s);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

static volatile int counting;
static volatile long nalloc, nfree;

void *malloc(size_t n)
{
    if (counting) nalloc++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t s)
{
    if (counting) nalloc++;
    return __libc_calloc(n, s);
}
void *realloc(void *p, size_t n)
{
    if (counting) nalloc++;
    return __libc_realloc(p, n);
}
void free(void *p)
{
    if (counting && p) nfree++;
    __libc_free(p);
}
void *aligned_alloc(size_t align, size_t n)
{
    if (counting) nalloc++;
    return __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n)
{
    if (counting) nalloc++;
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

void count_begin(void)
{
    nalloc = nfree = 0;
    counting = 1;
}
long count_end(void)
{
    counting = 0;
    return nalloc + nfree;
}

