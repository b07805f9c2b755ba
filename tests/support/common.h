/* Helpers shared by the cmocka tests. */
#ifndef MBS_TESTS_COMMON_H
#define MBS_TESTS_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "mbs/mbs.h"

/* Deterministic xorshift generator. */
typedef struct test_rng { uint64_t s; } test_rng;
void test_rng_seed(test_rng *r, uint64_t seed);
double test_rng_uniform(test_rng *r, double lo, double hi);
int test_rng_int(test_rng *r, int lo, int hi_inclusive);

/* max_i |a_i - b_i| / (scale + max |b_i|) */
double test_rel_diff(const double *a, const double *b, int n);
/* Assert |a_i - b_i| <= tol * (1 + max|b|) for all i, printing the worst index. */
void test_assert_close(const double *a, const double *b, int n, double tol, const char *what);

/* Folder with the shared reference data, or NULL (tests must then skip, saying so). */
const char *test_refdata_dir(void);


/* ---- random models (shared by the test files) */
/* Random rotation matrix (row-major) from a random unit axis and angle. */
void test_random_rotation(test_rng *r, double R[9]);
/* Random symmetric positive definite inertia about the com obeying the triangle
   inequality (principal second moments in [lo, hi], rotated randomly). */
void test_random_inertia(test_rng *r, double lo, double hi, double I[9]);

typedef struct test_tree_opts {
    int nbody;          /* user bodies (>= 1) */
    int gravity;        /* 0 none, 1 uniform (random direction), 2 point (random centre) */
    int fixed_joints;   /* 1: fixed joints may appear */
    int roots;          /* 1: one body may be left unjointed (compile adds a free root) */
    int springs;        /* 0: none; 1: a joint spring on a dof of every revolute, prismatic,
                           cylindrical, universal and planar joint and two line springs
                           between random bodies (conservative); 2: the same, damped */
    int quaternions_only; /* 1: spherical and free joints never use Cardan angles */
} test_tree_opts;
test_tree_opts test_default_tree_opts(int nbody);
/* A compiled random tree: random parent of every body among the earlier ones, every joint
   type (revolute, prismatic, cylindrical, universal, spherical and free with quaternion or
   Cardan, planar, fixed) drawn in turn, random frames, axes, masses and inertias; bodies
   are named "b1", "b2", ... Returns NULL (and fails the test) when compile fails. */
mbs_model *test_random_tree(uint64_t seed, const test_tree_opts *opts);
/* A chain of n bodies under a free root joint (quaternion or Cardan) with revolute,
   spherical (same rotation option) and universal joints, uniform gravity, a line spring
   from the root to the world and a joint spring. */
mbs_model *test_floating_chain(int n, mbs_rotation rot);
/* Two bodies on revolute joints, the end one ("tip", after "arm") massless: a singular
   articulated inertia. */
mbs_model *test_massless_tip(void);
/* A random state: q = integrate(neutral, w, 1) for random w in [-qs, qs], v in [-vs, vs],
   tau in [-ts, ts]. */
void test_random_state(test_rng *r, mbs_data *d, double qs, double vs, double ts);

/* ---- shared by the events, friction and motion tests */
/* Compile b and destroy it; fails the test with the builder's message. */
mbs_model *test_compile_ok(mbs_builder *b);
/* A stepper of kind with rtol 1e-11, atol 1e-12 (CVODE) and event_tol 1e-12; fails the test
   with the data's message when it cannot be created. */
mbs_stepper *test_stepper_tight(mbs_data *d, mbs_stepper_kind kind);

/* ---- shared by the user-state tests */
/* A builder with a body of mass 1 turning about the world y axis through the origin (joint 0,
   "shaft"), its centre of mass l below the axis (l = 0: a flywheel), inertia J about its
   centre of mass, damping b (> 0: a joint damper, element 0). Gravity -z. */
mbs_builder *test_shaft(double l, double J, double b);
/* A unit-mass body named body (id 1) on a prismatic joint named joint (id 0, along z) to the
   world, added to b, which holds nothing yet. */
void test_prismatic_body(mbs_builder *b, const char *body, const char *joint);

#endif
