/* The derivative engine's entry points in the SIMD variant this file is compiled for
 * (derivs_simd.h: compiled once per variant with the engine's files). */
#include "derivatives/derivs.h"

const mbs_derivs_simd MBS_SIMD_NAME(mbs_derivs_simd_table) = {
    mbs_derivs_forward,
    mbs_derivs_world_aba_model,
    mbs_derivs_world_aba_applies,
    mbs_inverse_dynamics_derivatives,
    mbs_forward_dynamics_derivatives,
};
