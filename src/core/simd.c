/* The choice of the SIMD variant (core/simd.h): the widest one built that the processor runs,
 * or the one the environment variable MBS_SIMD names (scalar, sse2, avx2, avx512, neon) when
 * it is built and the processor runs it; made once at start-up. */
#include <stdlib.h>
#include <string.h>
#include "core/simd.h"
#include "mbs/mbs.h"

#ifndef MBS_SIMD_HAVE_SSE2
#define MBS_SIMD_HAVE_SSE2 0
#endif
#ifndef MBS_SIMD_HAVE_AVX2
#define MBS_SIMD_HAVE_AVX2 0
#endif
#ifndef MBS_SIMD_HAVE_AVX512
#define MBS_SIMD_HAVE_AVX512 0
#endif
#ifndef MBS_SIMD_HAVE_NEON
#define MBS_SIMD_HAVE_NEON 0
#endif

static const char *const kind_names[MBS_SIMD_NKIND] = {"scalar", "sse2", "avx2", "avx512",
                                                       "neon"};

/* The variant in use; the scalar one until the choice at start-up. */
static mbs_simd_kind current = MBS_SIMD_SCALAR;

const char *mbs_simd_kind_name(mbs_simd_kind k)
{
    return k >= 0 && k < MBS_SIMD_NKIND ? kind_names[k] : "unknown";
}

/* 1 when variant k was built (meson.build passes MBS_SIMD_HAVE_*). */
static int built(mbs_simd_kind k)
{
    switch (k) {
    case MBS_SIMD_SCALAR: return 1;
    case MBS_SIMD_SSE2: return MBS_SIMD_HAVE_SSE2;
    case MBS_SIMD_AVX2: return MBS_SIMD_HAVE_AVX2;
    case MBS_SIMD_AVX512: return MBS_SIMD_HAVE_AVX512;
    case MBS_SIMD_NEON: return MBS_SIMD_HAVE_NEON;
    default: return 0;
    }
}

/* 1 when the processor (and the operating system's saved register state, which the
   compiler's cpuid check includes) runs variant k. SSE2 is part of x86-64, NEON of AArch64. */
static int runs(mbs_simd_kind k)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (k == MBS_SIMD_SSE2) return 1;
    if (k == MBS_SIMD_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (k == MBS_SIMD_AVX512) return __builtin_cpu_supports("avx512f");
#elif defined(__aarch64__)
    if (k == MBS_SIMD_NEON) return 1;
#endif
    return k == MBS_SIMD_SCALAR;
}

int mbs_simd_available(mbs_simd_kind k)
{
    return k >= 0 && k < MBS_SIMD_NKIND && built(k) && runs(k);
}

int mbs_simd_use(mbs_simd_kind k)
{
    if (!mbs_simd_available(k)) return -1;
    current = k;
    return 0;
}

mbs_simd_kind mbs_simd_current(void) { return current; }

/* The widest variant available. */
static mbs_simd_kind widest(void)
{
    static const mbs_simd_kind order[] = {MBS_SIMD_AVX512, MBS_SIMD_AVX2, MBS_SIMD_NEON,
                                          MBS_SIMD_SSE2};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; ++i)
        if (mbs_simd_available(order[i])) return order[i];
    return MBS_SIMD_SCALAR;
}

/* The choice, before main (and before any other thread can call the library). */
#if defined(__GNUC__)
__attribute__((constructor))
#endif
static void simd_choose(void)
{
    mbs_simd_kind k = widest();
    const char *env = getenv("MBS_SIMD");
    for (int i = 0; env && i < MBS_SIMD_NKIND; ++i)
        if (strcmp(env, kind_names[i]) == 0 && mbs_simd_available((mbs_simd_kind)i))
            k = (mbs_simd_kind)i;
    current = k;
}

const char *mbs_simd_variant(void) { return kind_names[current]; }
