/* Mechanisms with the structure of each analytic assembly (Otter, Elmqvist, Mattsson 2003,
 * "The New Modelica MultiBody Library", §7.2-7.3), for the closure tests and bench_loops:
 * through the public API only, like loop_mechanisms.h. Every one is a loop with one degree of
 * freedom driven by a crank (revolute about world z at the origin, 0.3 m along its x, state
 * priority 1): joint[0] is the crank, cut_id[0] the cut (or distance) joint. At crank angle 0
 * a closed configuration is the one of lm_assembly_guess(kind, mech, 0.0, d). */
#ifndef MBS_TESTS_LOOP_ASSEMBLIES_H
#define MBS_TESTS_LOOP_ASSEMBLIES_H

#include "loop_mechanisms.h"

typedef enum lm_asm_kind {
    LM_ASM_SSR,   /* distance joint crank tip - rocker tip; rocker about x at (0.6, -0.5, 0.3) */
    LM_ASM_SSP,   /* distance joint crank tip - slider along x at (0.6, 0, 0.3) */
    LM_ASM_USR,   /* rod on a universal joint at the crank tip, spherical cut to the rocker */
    LM_ASM_USP,   /* the same rod, spherical cut to the slider */
    LM_ASM_SSROD, /* the rod on a spherical joint (its spin free), spherical cut to the rocker */
    LM_ASM_UPS,   /* universal at (0.3, 0, 0.6), prismatic down, spherical cut to the crank tip */
    LM_ASM_RPP,   /* Scotch yoke: block on the crank pin in a slot (prismatic cut along y) of a
                     yoke sliding along x */
    LM_ASM_COUNT
} lm_asm_kind;

/* Build kind into mech (compiled with the mode of lm_set_closure); a status. */
int lm_build_assembly(lm_asm_kind kind, lm_mech *mech);
/* The assembly compile finds for it ("JointSSR", ...). */
const char *lm_assembly_name(lm_asm_kind kind);
/* q of the closed configuration at crank 0 (rocker, slider, rod angles), crank at th and the
   dependent coordinates moved by dep (added to each of them; 0: closed when th = 0), v = 0
   but the crank's rate w (and the spherical rod's spin rate 0.7). */
void lm_assembly_guess(lm_asm_kind kind, const lm_mech *mech, double th, double w, double dep,
                       mbs_data *d);

/* An MSL BodyBox (width = height = w) or BodyCylinder (diameter w) from frame_a along r,
   density 7700: com r / 2, inertia about the com in frame_a axes; the body id or a status. */
int lm_msl_part(mbs_builder *b, const double r[3], double w, int cylinder);

/* MSL Loops.Fourbar_analytic (Fourbar1's geometry with its third link a massless rod,
   JointSSP): j1 revolute x (state priority, w0 = 300 deg/s), b1 BodyCylinder r = (0, 0.5,
   0.1); j2 prismatic x at (1.2, 0, 0) (s0 = -0.2), b2 BodyCylinder r = (0, 0.2, 0); a distance
   joint of length sqrt(1.1) from b2's tip to b1's; MSL parts (density 7700, diameter 0.05),
   gravity 9.80665 along -y. joint[0] = j1, joint[1] = j2. */
int lm_build_fourbar_analytic(lm_mech *mech);
/* Its start: j2 at -0.2, j1 at 0 turning at 300 deg/s. */
void lm_fourbar_analytic_start(const lm_mech *mech, mbs_data *d);

#endif
