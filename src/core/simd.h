/* The SIMD layer: a vector of doubles whose width follows the instruction set the file is
 * compiled for (8 with AVX-512, 4 with AVX/AVX2, 2 with SSE2 or NEON, 1 for the scalar
 * variant or a compiler without GCC's vector extension), the operations the kernels use, and
 * mbs_d8, eight contiguous columns as 8 / MBS_SIMD_W native vectors. Kernels written against
 * it are compiled once per variant (meson.build: one static library each, the variant's -m
 * flags and MBS_SIMD_VARIANT) and picked once at start-up (simd.c). Every operation is the
 * IEEE operation of scalar code lane by lane, never contracted (-std=c11), so every variant
 * gives the scalar variant's bits. */
#ifndef MBS_CORE_SIMD_H
#define MBS_CORE_SIMD_H

#include <string.h>

/* The variants, in the order of preference on their architecture. */
typedef enum mbs_simd_kind {
    MBS_SIMD_SCALAR = 0,
    MBS_SIMD_SSE2,
    MBS_SIMD_AVX2,
    MBS_SIMD_AVX512,
    MBS_SIMD_NEON,
    MBS_SIMD_NKIND
} mbs_simd_kind;

/* The variant in use (chosen at start-up: the widest the processor runs among those built,
   or the environment's MBS_SIMD when the processor runs it). */
mbs_simd_kind mbs_simd_current(void);
/* 1 when variant k was built and the processor runs it. */
int mbs_simd_available(mbs_simd_kind k);
/* Use variant k from now on (tests and benchmarks; not while another thread computes):
   0, or -1 (nothing changed) when it is not available. */
int mbs_simd_use(mbs_simd_kind k);
/* Its name: "scalar", "sse2", "avx2", "avx512", "neon". */
const char *mbs_simd_kind_name(mbs_simd_kind k);

#if defined(__GNUC__)
#define MBS_SIMD_INLINE static inline __attribute__((always_inline))
#else
#define MBS_SIMD_INLINE static inline
#endif

#if defined(MBS_SIMD_SCALAR_ONLY) || !defined(__GNUC__)
#define MBS_SIMD_W 1
#elif defined(__AVX512F__)
#define MBS_SIMD_W 8
#elif defined(__AVX__)
#define MBS_SIMD_W 4
#elif defined(__SSE2__) || defined(__ARM_NEON)
#define MBS_SIMD_W 2
#else
#define MBS_SIMD_W 1
#endif

/* A native vector of MBS_SIMD_W doubles (unaligned loads and stores through memcpy). */
#if MBS_SIMD_W > 1
typedef double mbs_vec __attribute__((vector_size(8 * MBS_SIMD_W), aligned(8)));
#else
typedef double mbs_vec;
#endif

/* Eight doubles of contiguous columns: MBS_D8_N native vectors (one: the vector itself, which
   GCC keeps in registers more readily than a struct); never passed by value. MBS_D8_V(x, p):
   its native vector p. */
#define MBS_D8_N (8 / MBS_SIMD_W)
#if MBS_D8_N == 1
typedef mbs_vec mbs_d8;
#define MBS_D8_V(x, p) (x)
#else
typedef struct mbs_d8 {
    mbs_vec v[MBS_D8_N];
} mbs_d8;
#define MBS_D8_V(x, p) ((x).v[p])
#endif

/* The name of a symbol of the variant a file is compiled for (MBS_SIMD_VARIANT, given by
   meson.build: scalar, sse2, avx2, avx512 or neon): name_variant. */
#define MBS_SIMD_CAT2(a, b) a##_##b
#define MBS_SIMD_CAT(a, b) MBS_SIMD_CAT2(a, b)
#define MBS_SIMD_NAME(name) MBS_SIMD_CAT(name, MBS_SIMD_VARIANT)

#if defined(__GNUC__) && !defined(__clang__)
#define MBS_D8_EACH _Pragma("GCC unroll 8") for (int p_ = 0; p_ < MBS_D8_N; ++p_)
#elif defined(__clang__)
#define MBS_D8_EACH _Pragma("unroll") for (int p_ = 0; p_ < MBS_D8_N; ++p_)
#else
#define MBS_D8_EACH for (int p_ = 0; p_ < MBS_D8_N; ++p_)
#endif

#if MBS_D8_N == 1
#define MBS_D8_ZERO ((mbs_d8){0})
#elif MBS_SIMD_W > 1
#define MBS_D8_ZERO ((mbs_d8){{{0}}})
#else
#define MBS_D8_ZERO ((mbs_d8){{0}})
#endif
/* Loads and stores a native vector at a time, through a type that may alias doubles (a copy
   of the whole struct, or memcpy, goes through the stack in 16-byte pieces with generic
   tuning: the next vector load waits on them). */
#if MBS_SIMD_W > 1
typedef double mbs_vec_mem __attribute__((vector_size(8 * MBS_SIMD_W), aligned(8), may_alias));
#else
typedef double mbs_vec_mem;
#endif
MBS_SIMD_INLINE void mbs_d8_load(mbs_d8 *o, const double *p)
{
    MBS_D8_EACH MBS_D8_V(*o, p_) = *(const mbs_vec_mem *)(p + MBS_SIMD_W * p_);
}
MBS_SIMD_INLINE void mbs_d8_store(double *p, const mbs_d8 *v)
{
    MBS_D8_EACH *(mbs_vec_mem *)(p + MBS_SIMD_W * p_) = MBS_D8_V(*v, p_);
}
/* acc += s x */
MBS_SIMD_INLINE void mbs_d8_axpy(mbs_d8 *acc, double s, const mbs_d8 *x)
{
    MBS_D8_EACH MBS_D8_V(*acc, p_) += s * MBS_D8_V(*x, p_);
}
/* acc -= s x */
MBS_SIMD_INLINE void mbs_d8_axmy(mbs_d8 *acc, double s, const mbs_d8 *x)
{
    MBS_D8_EACH MBS_D8_V(*acc, p_) -= s * MBS_D8_V(*x, p_);
}
/* o = s x */
MBS_SIMD_INLINE void mbs_d8_scale(mbs_d8 *o, double s, const mbs_d8 *x)
{
    MBS_D8_EACH MBS_D8_V(*o, p_) = s * MBS_D8_V(*x, p_);
}
/* acc += x */
MBS_SIMD_INLINE void mbs_d8_add(mbs_d8 *acc, const mbs_d8 *x) { MBS_D8_EACH MBS_D8_V(*acc, p_) += MBS_D8_V(*x, p_); }
/* acc -= x */
MBS_SIMD_INLINE void mbs_d8_sub(mbs_d8 *acc, const mbs_d8 *x) { MBS_D8_EACH MBS_D8_V(*acc, p_) -= MBS_D8_V(*x, p_); }
/* Lane e (0..7). */
MBS_SIMD_INLINE double mbs_d8_lane(const mbs_d8 *v, int e)
{
    double x;
    memcpy(&x, (const char *)v + sizeof(double) * (size_t)e, sizeof x);
    return x;
}

#endif
