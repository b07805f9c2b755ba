/* GUID of a model file (fmu_guid.h): 64-bit FNV-1a of the bytes, twice with different
   offsets, printed in the 8-4-4-4-12 layout. */
#include "fmu_guid.h"
#include "io/regular.h"

#include <stdint.h>
#include <stdio.h>

int fmu_guid_of_file(const char *path, char *out, size_t len)
{
    char why[160];
    FILE *f = mbs_fopen_regular(path, why, sizeof why); /* a FIFO would block for ever */
    if (!f) return -1;
    uint64_t h1 = 14695981039346656037ull, h2 = 0x9e3779b97f4a7c15ull;
    int ch;
    while ((ch = fgetc(f)) != EOF) {
        h1 = (h1 ^ (uint64_t)(unsigned char)ch) * 1099511628211ull;
        h2 = (h2 ^ (uint64_t)(unsigned char)ch) * 1099511628211ull;
    }
    fclose(f);
    snprintf(out, len, "{%08x-%04x-%04x-%04x-%012llx}", (unsigned)(h1 >> 32),
             (unsigned)(h1 >> 16) & 0xffffu, (unsigned)h1 & 0xffffu, (unsigned)(h2 >> 48),
             (unsigned long long)(h2 & 0xffffffffffffull));
    return 0;
}
