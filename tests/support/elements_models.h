/* Mechanisms with line masses, rotors and nodes shared by test_elements, test_noalloc and
 * bench_elements (elements_models.c). */
#ifndef MBS_TESTS_ELEMENTS_MODELS_H
#define MBS_TESTS_ELEMENTS_MODELS_H

#include "mbs/mbs.h"

#define EM_NV 48
extern const double EM_GRAVITY[3];
extern const double EM_POINT_A[3], EM_POINT_B[3];

static inline void v3set(double v[3], double x, double y, double z) { v[0] = x, v[1] = y, v[2] = z; }

/* Revolute A then spherical B; a line from B's pivot on A to a point of B with (variant 0)
   one mass at a fraction, (1) two masses at distances, (2) a line from the world pivot to a
   point of A with one mass. explicit = 1: the same chain with those masses added to the body
   they ride on instead (parallel axes). */
mbs_model *em_chain_line_mass(int variant, int explicit_body);
/* Start state of em_chain_line_mass. */
void em_chain_start(mbs_data *d);
/* Two spherical pendulums (bodies 1, 2) on different branches joined by a spring from
   EM_POINT_A (body 1) to EM_POINT_B (body 2): two_d == 0: one mass `mass` at fraction h;
   two_d > 0: masses `mass` at distance two_d from A and mass / 2 at 0.2 from B. */
mbs_model *em_branches(double mass, double h, double two_d);
/* Random normalised q, random v and tau of d. */
struct test_rng;
void em_random_state(struct test_rng *r, mbs_data *d);
/* Chain of n revolute links (axes alternating z, y) with a rotor on every joint; housing
   (0) parent, (1) world, (2) the joint's child, (3) mixed; rotors 0: none. */
mbs_model *em_rotor_chain(int n, int housing, int rotors);
/* A four-bar closed by a revolute cut joint with (elements) rotors on its three tree joints
   (native and general) and a spring with a point mass to the coupler. */
mbs_model *em_fourbar(int elements);
/* MSL ThreeSprings: body1 (m 0.8, r_CM (0, -0.2, 0), I 0.1) free, hanging by spring2
   (c 40) from a node that spring1 (c 20, to the world point (0.3, 0, 0)) and spring3 (c 20,
   to (0, 0, 0.3)) hold; unstretched lengths 0.1; body 1, node body 2; start the body at
   (0.5, -0.3, 0) by q[0..2]. */
mbs_model *em_three_springs(void);
/* Three springs in series: world -k1- node1 -k2- node2 -k3- body on a prismatic x; or
   (equivalent = 1) one spring of the series stiffness from the world to the body. */
mbs_model *em_series_springs(int equivalent);

#endif
