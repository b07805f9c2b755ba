/* The derivative engine's entry points as the rest of the library and the API call them:
 * each goes to the table of the SIMD variant chosen at start-up (derivs_simd.h, core/simd.c). */
#include "derivatives/derivs.h"

#define VARIANT_TABLE(v) extern const mbs_derivs_simd mbs_derivs_simd_table_##v;
VARIANT_TABLE(scalar)
#if MBS_SIMD_HAVE_SSE2
VARIANT_TABLE(sse2)
#endif
#if MBS_SIMD_HAVE_AVX2
VARIANT_TABLE(avx2)
#endif
#if MBS_SIMD_HAVE_AVX512
VARIANT_TABLE(avx512)
#endif
#if MBS_SIMD_HAVE_NEON
VARIANT_TABLE(neon)
#endif

const mbs_derivs_simd *const mbs_derivs_simd_tables[MBS_SIMD_NKIND] = {
    [MBS_SIMD_SCALAR] = &mbs_derivs_simd_table_scalar,
#if MBS_SIMD_HAVE_SSE2
    [MBS_SIMD_SSE2] = &mbs_derivs_simd_table_sse2,
#endif
#if MBS_SIMD_HAVE_AVX2
    [MBS_SIMD_AVX2] = &mbs_derivs_simd_table_avx2,
#endif
#if MBS_SIMD_HAVE_AVX512
    [MBS_SIMD_AVX512] = &mbs_derivs_simd_table_avx512,
#endif
#if MBS_SIMD_HAVE_NEON
    [MBS_SIMD_NEON] = &mbs_derivs_simd_table_neon,
#endif
};

/* The table of the variant in use (mbs_simd_current: only a built one). */
static const mbs_derivs_simd *table(void) { return mbs_derivs_simd_tables[mbs_simd_current()]; }

int mbs_derivs_forward(mbs_data *d, double *dq, double *dv, int ld, double *Minv, int ldm,
                       const char *call)
{
    return table()->forward(d, dq, dv, ld, Minv, ldm, call);
}

int mbs_derivs_world_aba_model(const mbs_model *m) { return table()->world_aba_model(m); }

int mbs_derivs_world_aba_applies(const mbs_data *d) { return table()->world_aba_applies(d); }

int mbs_inverse_dynamics_derivatives(mbs_data *d, const double *qacc, double *dtau_dq,
                                     double *dtau_dv, double *dtau_dqacc)
{
    return table()->inverse_dynamics_derivatives(d, qacc, dtau_dq, dtau_dv, dtau_dqacc);
}

int mbs_forward_dynamics_derivatives(mbs_data *d, double *dqacc_dq, double *dqacc_dv,
                                     double *dqacc_dtau)
{
    return table()->forward_dynamics_derivatives(d, dqacc_dq, dqacc_dv, dqacc_dtau);
}
