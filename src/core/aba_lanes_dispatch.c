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

/* The joint whose kinematics the lanes compute (aba_lanes.h). */
static int axis_joint(const mbs_joint_model *jm)
{
    static const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (jm->nv != 1 || jm->auxadr >= 0 || jm->point_mass || jm->rotor_parent || jm->rotor_D != 0.0)
        return 0;
    if (jm->type != MBS_JOINT_REVOLUTE && jm->type != MBS_JOINT_PRISMATIC) return 0;
    if (!jm->frame_child_identity) return 0;
    for (int e = 0; e < 9; ++e)
        if (jm->frame_parent.R[e] != id[e]) return 0;
    return 1;
}

int mbs_lanes_kinematics_applies(const mbs_model *m)
{
    if (m->nforce > 0 || m->ncrow > 0 || m->ncon > 0 || m->nux > 0 || m->nnode > 0 ||
        m->gravity_kind == MBS_GRAVITY_POINT)
        return 0;
    for (int t = 0; t < m->ntree; ++t)
        if (!axis_joint(&m->joints[m->tree[t]])) return 0;
    return 1;
}

/* See aba_lanes.h: revolute and prismatic joints whose child joint frame is the body frame
   have S = [a; 0] or [0; a] in body coordinates, the same in every lane and at every q. */
void mbs_lanes_axes(const mbs_model *m, int *axis)
{
    for (int j = 0; j < m->njoint; ++j) axis[j] = -1;
    for (int t = 0; t < m->ntree; ++t) {
        const int j = m->tree[t];
        const mbs_joint_model *jm = &m->joints[j];
        const int rev = jm->type == MBS_JOINT_REVOLUTE;
        if (jm->nv != 1 || !jm->frame_child_identity || (!rev && jm->type != MBS_JOINT_PRISMATIC))
            continue;
        int e = -1, nz = 0;
        for (int k = 0; k < 3; ++k)
            if (jm->axis[k] != 0.0) ++nz, e = k;
        if (nz == 1 && jm->axis[e] == 1.0) axis[j] = rev ? e : 3 + e;
    }
}
