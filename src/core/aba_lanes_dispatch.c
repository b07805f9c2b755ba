/* The lane passes of the SIMD variant in use (aba_lanes.c is compiled once per variant). */
#include "core/aba_lanes.h"
#include "core/simd.h"

#define VARIANT(v)                                                   \
    extern const mbs_lanes_aba_fn mbs_lanes_aba_table_##v;           \
    extern const int mbs_lanes_width_table_##v;
VARIANT(scalar)
#if MBS_SIMD_HAVE_SSE2
VARIANT(sse2)
#endif
#if MBS_SIMD_HAVE_AVX2
VARIANT(avx2)
#endif
#if MBS_SIMD_HAVE_AVX512
VARIANT(avx512)
#endif
#if MBS_SIMD_HAVE_NEON
VARIANT(neon)
#endif

#define ENTRY(K, v) [K] = {&mbs_lanes_aba_table_##v, &mbs_lanes_width_table_##v},
static const struct {
    const mbs_lanes_aba_fn *aba;
    const int *width;
} variants[MBS_SIMD_NKIND] = {
    ENTRY(MBS_SIMD_SCALAR, scalar)
#if MBS_SIMD_HAVE_SSE2
    ENTRY(MBS_SIMD_SSE2, sse2)
#endif
#if MBS_SIMD_HAVE_AVX2
    ENTRY(MBS_SIMD_AVX2, avx2)
#endif
#if MBS_SIMD_HAVE_AVX512
    ENTRY(MBS_SIMD_AVX512, avx512)
#endif
#if MBS_SIMD_HAVE_NEON
    ENTRY(MBS_SIMD_NEON, neon)
#endif
};

int mbs_lanes_variant_width(void) { return *variants[mbs_simd_current()].width; }

mbs_lanes_aba_fn mbs_lanes_variant_aba(void) { return *variants[mbs_simd_current()].aba; }
