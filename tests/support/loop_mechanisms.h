/* Closed-loop mechanisms shared by the loop tests and bench_loops: builders through the public
 * API only, their closed-form kinematics, and a residual measured from body poses (the cut
 * joint's two frames, not the library's own constraint function). No cmocka here: every
 * builder returns a status (MBS_OK or the failing call's), so the bench can use them too. */
#ifndef MBS_TESTS_LOOP_MECHANISMS_H
#define MBS_TESTS_LOOP_MECHANISMS_H

#include "mbs/mbs.h"

#define LM_MAX_CUT 64

/* A compiled mechanism: the model, the cut joints as they were defined (for the residual),
   and the ids of the joints the tests read. */
typedef struct lm_mech {
    mbs_model *model;
    int ncut;
    mbs_joint_def cut[LM_MAX_CUT]; /* names not kept */
    int cut_id[LM_MAX_CUT];        /* joint ids of the cut joints */
    int joint[8];                  /* mechanism-specific joint ids, see each builder */
    int body[8];                   /* mechanism-specific body ids */
    int unit[LM_MAX_CUT][3];       /* joint ids of repeated units (engine cylinders: rod,
                                      slider, cut) */
    char error[256];               /* builder/compile message when a builder failed */
} lm_mech;

void lm_mech_free(lm_mech *mech); /* destroys the model; the struct stays */

/* How the builders below (and lm_finish) compile loops: MBS_CLOSURE_ANALYTIC (default, closed
   forms where compile finds them) or MBS_CLOSURE_NEWTON, for comparisons. */
void lm_set_closure(mbs_closure closure);
/* Whether they may run the planar path: MBS_PLANAR_AUTO (default) or MBS_PLANAR_OFF. */
void lm_set_planar(mbs_planar_mode mode);

/* Builder kit for mechanisms elsewhere (tests/support/loop_assemblies.c). */
void lm_mech_init(lm_mech *mech);  /* reset before a build */
/* Add a joint, recording cut and distance joints for lm_residual; its id or a status. */
int lm_add_joint(mbs_builder *b, lm_mech *mech, const mbs_joint_def *def);
/* Compile b into mech->model (the message kept in mech->error on failure), destroy b. */
/* Load models/NAME.xml into b: the folder is $MBS_MODELS, else LM_MODELS_DIR (the source
   tree's models/, given by meson); its start values live in the compiled model. */
int lm_load_model(mbs_builder *b, const char *name);
int lm_finish(mbs_builder *b, lm_mech *mech, int status);
int lm_keep(int status, int id); /* fold a creation result into a running status */
/* A uniform bar of length L along body x (com at L / 2), mass m; a compact block. */
int lm_add_bar(mbs_builder *b, double length, double mass);
int lm_add_block(mbs_builder *b, double mass);
/* Joint def: parent frame at ppos with rotation prot (NULL: identity), child frame at cpos. */
mbs_joint_def lm_joint_at(mbs_joint_type type, int parent, int child, const double ppos[3],
                          const double prot[9], const double cpos[3]);

/* Largest cut-joint violation from the body poses, per joint type: frame origins apart
   (revolute, spherical, universal, fixed), offset across the axis (prismatic, cylindrical),
   offset along the normal (planar), | |p_c - p_p| - length | (distance), and misalignment:
   |a_p x a_c| of the axes (revolute, cylindrical, planar normal), ||R_rel - I|| (fixed,
   prismatic), |a1 . a2| - neutral value (universal). Negative status on failure. */
double lm_residual(const lm_mech *mech, mbs_data *d);

/* Value of q / v / qacc at the first coordinate of joint j. */
double lm_q(mbs_data *d, const lm_mech *mech, int j);
double lm_v(mbs_data *d, const lm_mech *mech, int j);
double lm_qacc(mbs_data *d, const lm_mech *mech, int j);

/* Rz / Rx rotation matrices, row-major. */
void lm_rot_z(double angle, double R[9]);
void lm_rot_x(double angle, double R[9]);

/* ---------------------------------------------------------------- planar four-bar
   Ground pivots O2 (origin) and O4 = d (cos g, sin g) in the mechanism plane; crank a from
   O2 to A at angle th2, coupler b from A to B at th3, rocker c from O4 to B at th4 (angles
   from the plane's x axis). The plane is the world x-y plane turned about world x by tilt
   (normal (0, -sin tilt, cos tilt)); gravity is g along the plane's -y (turned with it). */
enum { LM_CUT_B = 0, LM_CUT_A = 1, LM_CUT_O4 = 2 };
typedef struct lm_fourbar {
    double a, b, c, d, ground_angle, tilt;
    double mass[3];      /* crank, coupler, rocker: uniform bars along their x axis */
    double g;            /* gravity magnitude (0: none) */
    int cut;             /* LM_CUT_B: revolute coupler-rocker at B (tree: world-crank-coupler,
                            world-rocker); LM_CUT_A: revolute crank-coupler at A (tree:
                            world-crank, world-rocker-coupler); LM_CUT_O4: revolute world-rocker
                            at O4 (tree: world-crank-coupler-rocker) */
    mbs_joint_type cut_type; /* MBS_JOINT_REVOLUTE or MBS_JOINT_SPHERICAL */
    double damping;      /* joint damper on the crank */
} lm_fourbar;
/* crank-rocker a 0.2, b 0.7, c 0.5, d 0.6, ground angle 0.3, masses 1, 1.5, 1.2, g 9.81,
   cut B revolute, no tilt, no damping */
lm_fourbar lm_default_fourbar(void);
/* joint[0..2] = crank, coupler, rocker tree joints, joint[3] = cut; body[0..2] = crank,
   coupler, rocker. */
int lm_build_fourbar(const lm_fourbar *p, lm_mech *mech);
/* The same with extra(b, mech, user) called before compile (lm_extra_fn, below). */
typedef int (*lm_extra_fn)(mbs_builder *b, const lm_mech *mech, void *user);
int lm_build_fourbar_ex(const lm_fourbar *p, lm_extra_fn extra, void *user, lm_mech *mech);
/* Closed-form position: th3, th4 for crank angle th2 on branch sigma (+1: B to the left of
   A->O4); -1 when the loop cannot close. */
int lm_fourbar_position(const lm_fourbar *p, double th2, int sigma, double *th3, double *th4);
/* Closed-form rates and accelerations of coupler and rocker from th2, w2, al2 (and th3, th4). */
void lm_fourbar_rates(const lm_fourbar *p, const double th[3], double w2, double al2,
                      double w[3], double al[3]);
/* Absolute plane angles th[3] and rates w[3] of crank, coupler, rocker from the state. */
void lm_fourbar_state(const lm_fourbar *p, const lm_mech *mech, mbs_data *d, double th[3],
                      double w[3]);
/* Absolute angles (or rates, accelerations) from the tree values of (crank, coupler joint,
   rocker joint) for a cut choice. */
void lm_fourbar_abs(int cut, const double rel[3], double abs_[3]);
/* The tree q, v of a given absolute state (th, w): inverse of lm_fourbar_state. */
void lm_fourbar_set(const lm_fourbar *p, const lm_mech *mech, mbs_data *d, const double th[3],
                    const double w[3]);

/* ---------------------------------------------------------------- slider-crank
   Crank r about the origin (angle th), rod l from the crank pin A to the slider pin B, slider
   on the line y = e along x at x_B = r cos th + sqrt(l^2 - (r sin th - e)^2). In the x-y
   plane, gravity g along -y. */
enum { LM_SC_CUT_B = 0, LM_SC_CUT_SLIDER = 1, LM_SC_CUT_A = 2 };
typedef struct lm_slider_crank {
    double r, l, e;
    double mass[3]; /* crank, rod (uniform bars), slider (point-like block) */
    double g;
    int cut;        /* LM_SC_CUT_B: revolute rod-slider (tree world-crank-rod, world-slider
                       prismatic); LM_SC_CUT_SLIDER: prismatic world-slider (tree
                       world-crank-rod-slider); LM_SC_CUT_A: revolute crank-rod (tree
                       world-crank, world-slider-rod) */
} lm_slider_crank;
lm_slider_crank lm_default_slider_crank(void); /* r 0.1, l 0.35, e 0.02, masses 1, 0.8, 0.5 */
/* joint[0..2] = crank, rod, slider tree joints, joint[3] = cut; body[0..2] likewise. */
int lm_build_slider_crank(const lm_slider_crank *p, lm_mech *mech);
/* The same with extra(b, mech, user) called before compile (a drive, friction, ...). */
int lm_build_slider_crank_ex(const lm_slider_crank *p, lm_extra_fn extra, void *user,
                             lm_mech *mech);
/* Closed form: slider x and rod angle phi with rates and accelerations from th, w, al. */
void lm_slider_crank_kin(const lm_slider_crank *p, double th, double w, double al,
                         double x[3], double phi[3]);
/* Absolute crank angle, rod angle, slider x and their rates from the state. */
void lm_slider_crank_state(const lm_slider_crank *p, const lm_mech *mech, mbs_data *d,
                           double s[3], double sd[3]);
void lm_slider_crank_set(const lm_slider_crank *p, const lm_mech *mech, mbs_data *d,
                         const double s[3], const double sd[3]);

/* ---------------------------------------------------------------- door on hinges (Elmqvist, Mattsson, Chapuis 2009, "Redundancies in Multibody Systems and Automatic Coupling of CATIA and Modelica" §6)
   Door 0.8 m wide (x), 2 m high (y), 0.04 thick, 20 kg, hinged on the world y axis.
   nhinge 1: world-hinge1-door only. nhinge 2: also a cut revolute hinge2 at y = 1.8
   (hinge1 at y = 0.2), with its world-side frame moved by offset (offset 0: coaxial).
   rod 1 (Door3): hinge2 is a tree revolute world-rod2 and a fixed cut joint rod2-door.
   Gravity (0, -9.81, -1.5) so the door swings. joint[0] = hinge1, joint[1] = hinge2 (tree or
   cut), joint[2] = the Door3 fixed cut; body[0] = door, body[1] = rod2. */
int lm_build_door(int nhinge, int rod, const double offset[3], lm_mech *mech);

/* ---------------------------------------------------------------- crank-piston engine
   Seed 004 §6.4: crank (revolute about world x) r = 0.1, rod 0.3 (revolute x at the crank
   pin), piston in a cylindrical joint along world y (slides and may spin; slide =
   MBS_JOINT_CYLINDRICAL) or a prismatic one (MBS_JOINT_PRISMATIC), a revolute cut joint
   rod-piston (axis x). dof 1; rank 3 of 5 (cylindrical) or 2 of 5 (prismatic).
   joint[0..3] = crank, rod, cylinder, cut. */
int lm_build_engine1(mbs_joint_type slide, lm_mech *mech);
/* Inline six: crankshaft about x with six pins at phases 0, 240, 120, 120, 240, 0 degrees,
   each with a rod (revolute x), a piston (prismatic along y) and a revolute cut rod-piston:
   six coupled loops, dof 1. joint[0] = crankshaft. */
int lm_build_engine6(lm_mech *mech);
/* The closed-form state of lm_build_engine1 (ncyl 1) or lm_build_engine6 (ncyl 6) at
   crankshaft angle th and rate w (a cylindrical joint's spin left as it is). */
void lm_engine_set(const lm_mech *mech, int ncyl, double th, double w, mbs_data *d);

/* ---------------------------------------------------------------- IFToMM A02 N-four-bar
   n + 1 vertical cranks (1 m, 1 kg, I_cm 1/12) pinned at (i, 0), n couplers along x from the
   top of crank i to the top of crank i + 1, g = 9.81 along -y. Crank i: revolute z, angle from
   +x; coupler i: revolute at the crank top, angle relative to the crank; revolute cut
   coupler i - crank i + 1. joint[0] = first crank. */
int lm_build_a02(int n, lm_mech *mech);
/* The initial state of the benchmark: cranks at pi/2 with rate -1, couplers at -pi/2 with
   relative rate +1 (B0 moves at +1 m/s). */
void lm_a02_initial(int n, const lm_mech *mech, mbs_data *d);
/* Top of the first crank (B0) in the world. */
int lm_a02_b0(mbs_data *d, double p[2]);

/* ---------------------------------------------------------------- line-symmetric Bricard 6R
   Axes l1..l3 through points P_i along U_i and their images under the half-turn about the
   world z axis: a 6R loop with mobility 1 (Bricard's line-symmetric linkage). Tree
   world-j1-...-j5-body5, revolute cut j6 from body5 to the world. joint[0..5] = j1..j6. */
int lm_build_bricard(lm_mech *mech);

#endif
