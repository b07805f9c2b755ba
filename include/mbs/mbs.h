/*
 * mbs — embeddable numerical multibody runtime library.
 *
 * Lifecycle: builder (mutable) --mbs_compile--> model (immutable, shareable)
 *            --mbs_data_create--> data (state and all scratch; one per thread)
 *            --mbs_stepper_create--> stepper (advances the data in time).
 *
 * Conventions (see docs/conventions.md):
 *  - SI units; all reals are double; matrices are row-major; arrays are documented with
 *    their size, e.g. (nv x 1).
 *  - Body 0 (MBS_WORLD) is the world. Body frames are right-handed. A body's com and
 *    inertia are given in body coordinates, inertia about the centre of mass.
 *  - A frame fixed on a body is (pos, rot): x_body = rot * x_frame + pos.
 *  - A joint connects frame_parent (on the parent) and frame_child (on the child); at the
 *    neutral q the two frames coincide.
 *  - Quaternions are stored scalar first: (w, x, y, z).
 *  - Coordinates per joint type, q / v:
 *      revolute, prismatic     1 / 1     angle or displacement about/along axis
 *      cylindrical             2 / 2     [s, phi] along and about axis
 *      universal               2 / 2     [a1, a2]: axis, then axis2 of the rotated frame
 *      planar                  3 / 3     [x, y, phi]: x along axis2, y along axis x axis2,
 *                                        phi about the plane normal axis
 *      spherical, quaternion   4 / 3     unit quaternion / angular velocity of the child in
 *                                        the child joint frame
 *      spherical, Cardan       3 / 3     angles a1,a2,a3: R = Rx(a1) Ry(a2) Rz(a3) / rates
 *      free, quaternion        7 / 6     [position of child frame in parent joint frame,
 *                                        quaternion] / [linear velocity in parent joint
 *                                        frame, angular velocity in child joint frame]
 *      free, Cardan            6 / 6     [position, Cardan angles] / [linear velocity, rates]
 *      fixed                   0 / 0
 *      translational           3 / 3     position of the child frame in the parent joint
 *                                        frame / its velocity there (no rotation)
 *      spherical into a        4 / 2     unit quaternion / the two swing rates (see "point
 *        point mass                      masses" below)
 *  - Names: mbs_<object>_<verb>, the object being what the first argument is (builder,
 *    model, data, stepper, sens, batch; body and joint for their parts of the data) or the
 *    definition a default is made for (mbs_body_def_default). Calls named before this rule
 *    keep their names and symbols (mbs_add_body, mbs_forward_dynamics, ...); the rule's
 *    names for them are macros at the end of this header (docs/api.md, "Names").
 *  - Status: every call that can fail returns MBS_OK (0) or a negative MBS_ERR_* value;
 *    calls that create an element return its id (>= 0) or a negative status. The message of
 *    the last failure is in mbs_builder_error / mbs_data_error. No call prints, exits or
 *    aborts. A failed call leaves its object as it was.
 */
#ifndef MBS_MBS_H
#define MBS_MBS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden symbols; what this header declares is its exported API. */
#if defined(__GNUC__) && !defined(MBS_NO_VISIBILITY)
#pragma GCC visibility push(default)
#endif

/* ---------------------------------------------------------------- status codes */
#define MBS_OK 0
#define MBS_ERR_ARG (-1)          /* bad argument: NULL, out of range, non-finite, non-physical */
#define MBS_ERR_NOMEM (-2)        /* out of memory */
#define MBS_ERR_STATE (-3)        /* call not valid now */
#define MBS_ERR_TOPOLOGY (-4)     /* graph error */
#define MBS_ERR_SINGULAR (-5)     /* singular mass or constraint matrix */
#define MBS_ERR_CONVERGENCE (-6)  /* iteration cap hit */
#define MBS_ERR_INCONSISTENT (-7) /* constraints that cannot all hold */
#define MBS_ERR_NONFINITE (-8)    /* NaN/Inf appeared */
#define MBS_ERR_SOLVER (-9)       /* integrator failure */
#define MBS_ERR_CALLBACK (-10)    /* a user callback failed */
#define MBS_ERR_DEADLINE (-11)    /* a step would exceed its work bound (max_work) */

#define MBS_WORLD 0

/* Static name of a status, e.g. "MBS_ERR_ARG"; "MBS_UNKNOWN_STATUS" for other values. */
const char *mbs_status_name(int status);
/* Static version string of the library, e.g. "0.1.0". */
const char *mbs_version(void);

typedef struct mbs_builder mbs_builder;
typedef struct mbs_model mbs_model;
typedef struct mbs_data mbs_data;
typedef struct mbs_stepper mbs_stepper;


/* ======== BUILDER (mbs_builder): bodies, joints, elements, model files */

/* ---------------------------------------------------------------- builder */
mbs_builder *mbs_builder_create(void); /* NULL if out of memory */
void mbs_builder_destroy(mbs_builder *b); /* NULL allowed */
/* Message of the last failure on b, naming the element; "" when there was none. */
const char *mbs_builder_error(const mbs_builder *b);
/* The first failed builder call is sticky: mbs_compile refuses with its status and a message
   quoting it ("an earlier call failed: mbs_add_body: body ..."), whatever failed after it.
   mbs_builder_first_error gives its status (MBS_OK when none) and its message in *msg (when
   msg is non-NULL; "" when none); mbs_builder_clear_error forgets it (and the last message)
   for a host that handled the failure. */
int mbs_builder_first_error(const mbs_builder *b, const char **msg);
void mbs_builder_clear_error(mbs_builder *b);
/* Uniform gravity acceleration g (world frame); default (0, 0, -9.81). */
int mbs_builder_set_gravity(mbs_builder *b, const double g[3]);
/* Point gravity: a = -mu r / |r|^3 with r = x - center; mu > 0. */
int mbs_builder_set_point_gravity(mbs_builder *b, const double center[3], double mu);
/* No gravity at all. */
int mbs_builder_set_no_gravity(mbs_builder *b);

typedef struct mbs_body_def {
    const char *name;    /* copied; may be NULL */
    double mass;         /* >= 0; 0 with zero inertia = a massless link between joints */
    double com[3];       /* centre of mass in body coordinates */
    double inertia[9];   /* about the centre of mass, body axes, symmetric, positive
                            semi-definite, principal moments obeying the triangle inequality */
} mbs_body_def;
mbs_body_def mbs_default_body_def(void); /* mass 1, com 0, inertia diag(1e-3) */
int mbs_add_body(mbs_builder *b, const mbs_body_def *def); /* body id >= 1 */

typedef struct mbs_frame {
    double pos[3];
    double rot[9];
} mbs_frame;
/* A frame fixed on a body: x_body = rot * x_frame + pos (rot row-major, orthonormal). */

typedef enum mbs_joint_type {
    MBS_JOINT_REVOLUTE,
    MBS_JOINT_PRISMATIC,
    MBS_JOINT_CYLINDRICAL,
    MBS_JOINT_UNIVERSAL,
    MBS_JOINT_SPHERICAL,
    MBS_JOINT_PLANAR,
    MBS_JOINT_FREE,
    MBS_JOINT_FIXED,
    MBS_JOINT_DISTANCE, /* rod with ball ends: constraint only, |p_child - p_parent| = length */
    MBS_JOINT_TRANSLATIONAL, /* three translations, no rotation (the joint of a point mass) */
    MBS_JOINT_CURVE     /* curve-curve contact: added by mbs_add_curve_joint only (see below) */
} mbs_joint_type;
typedef enum mbs_rotation { MBS_ROT_QUATERNION, MBS_ROT_CARDAN } mbs_rotation;
/* Rotation coordinates of the free joints that compile adds for bodies not connected to the
   world; default MBS_ROT_QUATERNION. */
int mbs_builder_set_root_rotation(mbs_builder *b, mbs_rotation rotation);

typedef struct mbs_joint_def {
    const char *name;                     /* copied; may be NULL */
    mbs_joint_type type;
    int parent, child;                    /* body ids; MBS_WORLD allowed */
    mbs_frame frame_parent, frame_child;  /* joint frame on each body; coincide at neutral q */
    double axis[3];  /* revolute/prismatic/cylindrical axis; universal first axis; planar normal */
    double axis2[3]; /* universal second axis; planar in-plane x direction */
    mbs_rotation rotation; /* spherical and free joints */
    double length;         /* distance joint */
    int cut;               /* nonzero: always a cut joint, never a tree edge */
    int state_priority;    /* > 0: prefer as independent coordinates when closing loops */
} mbs_joint_def;
/* identity frames, axis (0,0,1), axis2 (1,0,0), quaternion, length 0, cut 0, priority 0 */
mbs_joint_def mbs_default_joint_def(mbs_joint_type type);
/* Axes are stored normalised; a planar axis2 is made orthogonal to axis (Gram-Schmidt) and
   normalised; universal axes must not be parallel; a distance joint is always a cut joint. */
int mbs_add_joint(mbs_builder *b, const mbs_joint_def *def); /* joint id >= 0 */

/* ---------------------------------------------------------------- force elements */
typedef struct mbs_spring_damper_def {
    const char *name;              /* copied; may be NULL */
    int body_a, body_b;            /* MBS_WORLD allowed */
    double point_a[3], point_b[3]; /* attachment points in body coordinates */
    double stiffness, damping, rest_length; /* tension f = k (L - L0) + d dL/dt pulls the
                                               points together; all >= 0 */
    double mass;          /* point mass on the line between the two points, >= 0 (Otter,
                             Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library",
                             §8.1; MSL LineForceWithMass); its inertia enters the dynamics of
                             both ends exactly */
    double mass_fraction; /* its place, as a fraction of the way from point_a to point_b, in
                             [0, 1] */
} mbs_spring_damper_def;
/* no name, bodies 0, points 0, stiffness 0, damping 0, rest length 0, mass 0, fraction 0.5 */
mbs_spring_damper_def mbs_default_spring_damper_def(void);
int mbs_add_spring_damper(mbs_builder *b, const mbs_spring_damper_def *def); /* element id */
/* Generalized force -k (q_dof - rest) - d v_dof on one scalar dof of a tree joint whose dof
   has q and v of the same meaning (revolute, prismatic, cylindrical, universal, planar). */
int mbs_add_joint_spring_damper(mbs_builder *b, int joint, int dof, double stiffness,
                                double damping, double rest_position);
/* Called during dynamics; may call mbs_apply_body_wrench and mbs_apply_generalized_force;
   returns 0 ok, > 0 recoverable, < 0 fatal. */
typedef int (*mbs_force_callback)(mbs_data *d, void *user);
int mbs_add_force_callback(mbs_builder *b, const char *name, mbs_force_callback fn, void *user);

/* ---------------------------------------------------------------- Modelica modelling elements:
   line forces with mass, nodes, rotors (Otter, Elmqvist, Mattsson 2003, "The New Modelica
   MultiBody Library", §8.1, §8.2, §10). See docs/api.md "Line forces with mass, nodes and
   rotors". */
/* A line spring-damper with two point masses on its line (MSL LineForceWithTwoMasses, e.g.
   a hydraulic cylinder): mass_a sits distance_a from point_a towards point_b, mass_b sits
   distance_b from point_b towards point_a. Their inertia and weight enter the dynamics of
   both ends exactly; the line must not shrink to zero length while a mass sits off its end
   points (its direction is then undefined: MBS_ERR_SINGULAR). */
typedef struct mbs_line_force_two_masses_def {
    const char *name;              /* copied; may be NULL */
    int body_a, body_b;            /* MBS_WORLD allowed */
    double point_a[3], point_b[3]; /* attachment points in body coordinates */
    double stiffness, damping, rest_length; /* as mbs_spring_damper_def; all >= 0 */
    double mass_a, distance_a;     /* >= 0: point mass and its distance from point_a */
    double mass_b, distance_b;     /* >= 0: point mass and its distance from point_b */
} mbs_line_force_two_masses_def;
/* no name, bodies 0, points 0, all coefficients, masses and distances 0 */
mbs_line_force_two_masses_def mbs_default_line_force_two_masses_def(void);
int mbs_add_line_force_two_masses(mbs_builder *b, const mbs_line_force_two_masses_def *def);
                                   /* force element id */

/* Rotor: a 1-D inertia (moment of inertia `inertia` about `axis`, fixed in the housing body)
   that spins with ratio x the rate of one joint coordinate plus the housing's angular
   velocity about the axis (MSL Rotor1D + Mounting1D + IdealGear, exact = true); its
   gyroscopic torque and the gear's reaction act on the housing. The rotor's own axial
   inertia is not part of the housing body (do not count it twice); its mass and transverse
   inertia are (put them into the housing's body def). */
typedef struct mbs_rotor_def {
    const char *name;       /* copied; may be NULL */
    int joint, dof;         /* the rotor turns with ratio * (this joint coordinate's rate) */
    double inertia;         /* about its axis, kg m^2, > 0 */
    double ratio;           /* gear ratio, nonzero; 1 = a flywheel on the joint */
    int housing;            /* body carrying the bearing (MBS_WORLD allowed) */
    double axis[3];         /* rotor axis in housing coordinates (normalised when stored) */
} mbs_rotor_def;
/* name NULL, joint -1, dof 0, inertia 0 (must be set), ratio 1, housing MBS_WORLD,
   axis (0, 0, 1) */
mbs_rotor_def mbs_default_rotor_def(void);
/* Rotor id >= 0 (rotors are numbered 0, 1, ... apart from force elements). The joint must
   be a tree joint (a rotor on a cut joint is refused at compile). */
int mbs_add_rotor(mbs_builder *b, const mbs_rotor_def *def);
int mbs_model_nrotor(const mbs_model *m);
/* Number of nodes: massless bodies without joints that only line force elements touch
   (force elements in series); they have no coordinates, their position follows from the
   balance of the forces on them. */
int mbs_model_nnode(const mbs_model *m);
/* 1 when body is a node, 0 when not, MBS_ERR_ARG for a bad id. */
int mbs_model_body_is_node(const mbs_model *m, int body);
/* Start position (world) of a node's force balance: Newton starts there the first time
   instead of the balance of zero-rest-length springs, picking the equilibrium the user
   means where springs through zero length allow several. compile refuses a start on a body
   it does not make a node. A later call for the same body replaces an earlier one. */
int mbs_set_node_start(mbs_builder *b, int body, const double x[3]);
/* A constant generalized force `force` on dof `dof` of a tree joint (a drive: MSL
   Rotational.Sources.ConstantTorque / Translational.Sources.ConstantForce): N m or N along
   that coordinate of v. It does work and stores none, so mbs_energy leaves it out (as it
   leaves out tau). Compile checks that the joint is a tree joint and dof < its nv.
   Returns the element id or MBS_ERR_ARG (bad joint id, negative dof, non-finite force). */
int mbs_add_joint_force(mbs_builder *b, int joint, int dof, double force);
/* ---------------------------------------------------------------- events, prescribed motion,
   joint friction, brakes and stops (docs/api.md "Events") */
/* State events. g is a zero-crossing function of the state: every stepper finds the sign
   changes of g along the motion (both directions), stops there (fixed-step kinds: within
   mbs_stepper_def.event_tol, default 1e-9 s, on the far side of the crossing; CVODE: its
   root finding), calls h once and restarts the integration from the state h leaves; the
   step still ends at t + dt. g is called with the data's t, q, v (loops closed); it may
   read them, call the kinematic queries and mbs_forward_dynamics, and must not change the
   state or inputs; a NaN or infinite g fails the step (MBS_ERR_NONFINITE naming the event).
   h may change q, v, tau, user states, host wrenches and brake limits (quaternions are
   normalised, loops closed and v projected after it); it must not change the time or step;
   it returns 0 ok, < 0 fatal (the step fails with MBS_ERR_CALLBACK and t, q, v are as before
   the step). h may be NULL: the integration only restarts at the crossing. Returns the event id (>= 0). */
typedef double (*mbs_event_fn)(mbs_data *d, void *user);
typedef int (*mbs_event_handler)(mbs_data *d, void *user);
int mbs_add_event(mbs_builder *b, const char *name, mbs_event_fn g, mbs_event_handler h,
                  void *user);
int mbs_model_nevent(const mbs_model *m);
/* Inside a handler: +1 when g rose through zero, -1 when it fell; 0 outside a handler. */
int mbs_data_event_direction(const mbs_data *d);
/* Times event id has fired on this data (its handler ran); negative status for a bad id. */
long mbs_data_event_count(const mbs_data *d, int event);

/* Prescribed motion of one scalar coordinate of a tree joint (a revolute, prismatic,
   cylindrical, universal or planar dof): fn(t) gives its position, velocity and
   acceleration (returns 0 ok, > 0 recoverable, < 0 fatal). The coordinate becomes a
   rheonomic constraint row q_dof = pos(t): dependent, closed by every evaluation, its
   multiplier the driving force. Returns the motion id (>= 0). */
typedef int (*mbs_motion_fn)(double t, double pos[1], double vel[1], double acc[1], void *user);
int mbs_add_joint_motion(mbs_builder *b, int joint, int dof, mbs_motion_fn fn, void *user);
/* The generalized force the drive applies along the coordinate at the last dynamics
   evaluation (after a step: its last evaluation), sign convention of tau: the tau the free
   coordinate would need to follow the motion. NaN for a bad id or a dof without motion. */
double mbs_data_driving_force(const mbs_data *d, int joint, int dof);

/* Coulomb + viscous friction with stiction on one scalar dof of a tree joint, as a variable
   structure (not a smoothed law). Sliding: force -(coulomb sign(v) + viscous v). When the
   rate crosses zero and the force needed to hold the coordinate is at most stiction, the
   coordinate locks (a constraint row; its multiplier is the friction force); it unlocks when
   that force exceeds stiction, sliding in the direction of the net force. A coordinate at
   rest whose holding force is inside the band when stepping starts is locked. Values are
   forces (N, or N m for rotational dofs), not coefficients. Returns a force element id. */
typedef struct mbs_joint_friction_def {
    const char *name;   /* copied; may be NULL */
    int joint, dof;
    double coulomb;     /* sliding friction force/torque, >= 0 */
    double stiction;    /* break-away limit while stuck, >= coulomb */
    double viscous;     /* >= 0, force per unit rate */
} mbs_joint_friction_def;
/* no name, joint -1 (must be set), dof 0, all values 0 */
mbs_joint_friction_def mbs_default_joint_friction_def(void);
int mbs_add_joint_friction(mbs_builder *b, const mbs_joint_friction_def *def);
/* 1 stuck, 0 sliding, for a dof with friction or a brake (a dof resting on a restitution
   stop counts as stuck); negative status for a bad id or a dof without friction. */
int mbs_joint_is_locked(const mbs_data *d, int joint, int dof);
/* The friction (or brake) force on the dof at the last dynamics evaluation, sign
   convention of tau: the holding force when locked, -(coulomb sign(v) + viscous v) when
   sliding. NaN for a bad id or a dof without friction. */
double mbs_data_friction_force(const mbs_data *d, int joint, int dof);

/* A brake: friction whose limit is a host input (MSL Brake): sliding force `limit`,
   break-away limit peak * limit. Returns a force element id. */
typedef struct mbs_joint_brake_def {
    const char *name;   /* copied; may be NULL */
    int joint, dof;
    double limit;       /* initial limit, >= 0 (N or N m); the data starts with it */
    double peak;        /* >= 1: break-away limit / sliding limit */
} mbs_joint_brake_def;
/* no name, joint -1 (must be set), dof 0, limit 0, peak 1 */
mbs_joint_brake_def mbs_default_joint_brake_def(void);
int mbs_add_joint_brake(mbs_builder *b, const mbs_joint_brake_def *def);
/* Host input, held until changed, no allocation: the brake's limit (>= 0, finite); takes
   effect at the next step (a locked coordinate whose holding force now exceeds the new
   break-away limit starts sliding there). */
int mbs_set_brake_limit(mbs_data *d, int brake, double limit);
/* Joint friction whose normal force is the joint's own reaction (Otter, Elmqvist, Mattsson
   2003, "The New Modelica MultiBody Library", §8: a Coulomb force from the normal force of a
   joint; a bearing's friction from its load). On the one dof of a revolute or prismatic tree
   joint, a friction (locking, unlocking and sliding as mbs_add_joint_friction's) whose
   sliding limit is mu N and break-away limit mu_stick N, with N from the force F the joint
   transmits (mbs_joint_reaction, axis a): prismatic N = |F - (F.a) a| (the force across the
   slide, N; the moment across it is not counted); revolute N = radius (|F - (F.a) a| +
   axial |F.a|) (N m: the radial load, plus the axial load times `axial`, on a journal of that
   radius). As N depends on the accelerations, which depend on the friction, every forward
   dynamics solves them together by a fixed-point iteration on the limits: dynamics with
   the current limits, the reactions, new limits, until every limit changes by at most 1e-12
   of itself (at most 50 rounds; usually 2, the limits kept from the last evaluation as the
   start); MBS_ERR_CONVERGENCE naming the element when they do not settle (mu so large that
   the friction feeds its own normal force faster than it grows: the joint jams), qacc and
   lambda as they were. Returns a force element id; mbs_set_brake_limit refuses it. */
typedef struct mbs_reaction_friction_def {
    const char *name;   /* copied; may be NULL */
    int joint;          /* a revolute or prismatic joint (tree) */
    double mu;          /* sliding coefficient, > 0 */
    double mu_stick;    /* break-away coefficient, >= mu */
    double radius;      /* revolute: journal radius > 0 (m); prismatic: unused */
    double axial;       /* revolute: weight of the axial load, >= 0; prismatic: unused */
} mbs_reaction_friction_def;
/* no name, joint -1 (must be set), mu 0 (must be set), mu_stick 0 (= mu), radius 0, axial 0 */
mbs_reaction_friction_def mbs_default_reaction_friction_def(void);
int mbs_add_reaction_friction(mbs_builder *b, const mbs_reaction_friction_def *def);

/* Joint stops: position limits lower < upper on one scalar dof of a tree joint (either may
   be -INFINITY / INFINITY for none). Elastic law: beyond a limit by p the penalty force
   stiffness p + damping dp/dt (never pulling) pushes back. Restitution law: reaching a
   limit the dof's rate is reversed and scaled by restitution (Newton's law, an impulse that
   respects every other constraint); an impact slower than rest_velocity ends in resting
   contact (a constraint row, released when it would have to pull). Returns a force
   element id. */
typedef enum mbs_stop_law { MBS_STOP_ELASTIC, MBS_STOP_RESTITUTION } mbs_stop_law;
typedef struct mbs_joint_stop_def {
    const char *name;     /* copied; may be NULL */
    int joint, dof;
    double lower, upper;  /* limits, lower < upper */
    mbs_stop_law law;
    double stiffness, damping; /* elastic: >= 0, stiffness > 0 */
    double restitution;   /* restitution: coefficient in [0, 1] */
    double rest_velocity; /* restitution: > 0 */
} mbs_joint_stop_def;
/* no name, joint -1 (must be set), dof 0, lower -INFINITY, upper INFINITY, restitution
   law with coefficient 0.5, rest_velocity 1e-3, stiffness 0, damping 0 */
mbs_joint_stop_def mbs_default_joint_stop_def(void);
int mbs_add_joint_stop(mbs_builder *b, const mbs_joint_stop_def *def);
/* 1 at the lower limit, 2 at the upper, 0 between them (restitution: in resting contact;
   elastic: beyond the limit); negative status (MBS_ERR_ARG) for a bad id or a dof without
   a stop. */
int mbs_joint_stop_state(const mbs_data *d, int joint, int dof);
/* How far the worst restitution stop's coordinate is beyond its limit (0 when all are within
   them; an elastic stop's penetration is its law and does not count); its force element id
   in *element when non-NULL (-1 when none). NaN for a NULL d. A run should keep it within
   the event location's error (speed times event_tol); mbs-sim --check fails a run that
   does not. */
double mbs_joint_stop_beyond(const mbs_data *d, int *element);
/* ---------------------------------------------------------------- point masses, forces between frames, user line laws */
/* Point masses (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library", Fig. 7;
   MSL Parts.PointMass): a body with mass > 0 and zero inertia that no joint but its own tree
   joint touches gets no rotational coordinates, since its rotation moves nothing. Compile
   makes its free joint (the automatic root included, still named "free_<body>") a
   translational joint (3 / 3), and its spherical joint (either rotation option) a swing joint:
   q the unit quaternion (4), v the two rates w1, w2 of the angular velocity w = w1 axis +
   w2 axis2 (child joint frame) perpendicular to the line from the joint centre to the mass;
   mbs_model_joint_def reports those two axes as axis and axis2. The spin about that line is
   dropped (the quaternion's spin about it is a gauge that moves no point of the mass;
   mbs_difference_q gives the shortest swing between two mass positions). A point mass at the
   joint centre is not moved by the joint, which then has no coordinates (0 / 0). A torque on
   a point mass about a dropped direction is carried by its joint. */

/* Force and torque between two frames (Otter, Elmqvist, Mattsson 2003, §8; MSL
   Forces.ForceAndTorque, WorldForce, FrameForce): force f and torque t, resolved in the
   chosen frame, act on body_b at the origin of frame_b; the opposite wrench (-f at the same
   point, -t) acts on body_a. body_a = MBS_WORLD gives a force from the environment. */
typedef enum mbs_resolve {
    MBS_RESOLVE_WORLD,   /* world axes */
    MBS_RESOLVE_FRAME_A, /* axes of frame_a (on body_a), moving with it */
    MBS_RESOLVE_FRAME_B  /* axes of frame_b (on body_b), moving with it */
} mbs_resolve;
/* The value of a two-frame force at the current state and time t, resolved in the element's
   frame: write force[3] and torque[3]. Runs during dynamics like a force callback (kinematic
   queries allowed, nested evaluation refused); returns 0 ok, > 0 recoverable, < 0 fatal. */
typedef int (*mbs_frame_force_fn)(mbs_data *d, double t, double force[3], double torque[3],
                                  void *user);
typedef struct mbs_frame_force_def {
    const char *name;           /* copied; may be NULL */
    int body_a, body_b;         /* distinct; body_a may be MBS_WORLD, body_b may not */
    mbs_frame frame_a, frame_b; /* frames fixed on the bodies (body coordinates) */
    mbs_resolve resolve;        /* frame of force and torque */
    double force[3], torque[3]; /* constant value; the initial host input of every data */
    mbs_frame_force_fn fn;      /* NULL: the host input (mbs_set_frame_force) is the value;
                                   else the callback gives it */
    void *user;
} mbs_frame_force_def;
/* no name, body_a MBS_WORLD, body_b -1 (must be set), identity frames, resolved in frame_b,
   zero force and torque, no callback */
mbs_frame_force_def mbs_default_frame_force_def(void);
int mbs_add_frame_force(mbs_builder *b, const mbs_frame_force_def *def); /* element id */
/* Host input of a two-frame force element without callback: its force and torque (resolved
   as the element says; NULL = zero), held until changed, no allocation. MBS_ERR_ARG for
   another kind of element, a bad id or non-finite values (the value is then unchanged). */
int mbs_set_frame_force(mbs_data *d, int force, const double f[3], const double t[3]);

/* Line force with a user law (Otter, Elmqvist, Mattsson 2003, §8.1; Docquier, Poncelet,
   Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody models", §4.2.1): the
   library computes the distance L between the two points and its rate dL/dt and applies the
   tension the law returns along the line, pulling the points together (as the spring-damper:
   a law k (L - L0) + d dL/dt is that spring-damper). Below L = 1e-10 the direction fades to
   zero as for the spring-damper. The law returns 0 ok, > 0 recoverable, < 0 fatal. */
typedef int (*mbs_line_law)(double length, double rate, double t, double *tension, void *user);
/* Optional potential V(L) of a conservative law (tension = dV/dL), counted by mbs_energy. */
typedef double (*mbs_line_potential)(double length, void *user);
typedef struct mbs_line_force_def {
    const char *name;              /* copied; may be NULL */
    int body_a, body_b;            /* MBS_WORLD allowed */
    double point_a[3], point_b[3]; /* attachment points in body coordinates */
    mbs_line_law law;              /* required */
    mbs_line_potential potential;  /* NULL: not counted in the potential energy */
    void *user;                    /* passed to law and potential */
} mbs_line_force_def;
/* no name, both bodies the world, points 0, no law (must be set), no potential */
mbs_line_force_def mbs_default_line_force_def(void);
int mbs_add_line_force(mbs_builder *b, const mbs_line_force_def *def); /* element id */

/* ---------------------------------------------------------------- curve-curve contact */
/* A cut joint keeping a planar curve fixed on its parent (in the x-y plane of frame_parent)
   in contact with one on its child (x-y plane of frame_child): cam and follower, a wheel on a
   track, gear flanks (Höbinger, Otter, "PlanarMultiBody - a Modelica library for planar
   multi-body systems", §7, CurveCurveJoint). Bilateral: the curves slide (frictionless) or
   roll without slipping along each other, they never separate. The contact parameters s
   (one per curve) are part of the state, solved at every closure (Newton's method on the
   paper's conditions: the points on a common normal, and atan2(n1 . t2, -n1 . n2) = 0,
   whose Jacobian is regular and which only holds with the normals opposite).
   A curve is p(s) in its frame's x-y plane; its contact normal n is its unit tangent turned
   by -90 degrees about the frame's z axis (to the right of increasing s; outward for the
   counterclockwise circle and ellipse), the other way with flip:
     MBS_CURVE_LINE     p(s) = (s, 0), normal +y (flip: -y)
     MBS_CURVE_CIRCLE   p(s) = a (cos(s / a), sin(s / a)) (s: arc length), radius a > 0
     MBS_CURVE_ELLIPSE  p(s) = (a cos s, b sin s), semi-axes a, b > 0 along x and y
     MBS_CURVE_USER     fn gives p(s), dp/ds (the tangent, nonzero) and d^2p/ds^2
   Rows (mbs_constraint_info, lambda): the normal contact force on the child along the
   parent curve's normal (positive when the curves press on each other), for rolling the
   tangential (friction) force along the parent curve's tangent, then the three rows of a
   planar joint keeping the two planes one (dropped as redundant in a planar model). */
typedef enum mbs_curve_kind {
    MBS_CURVE_LINE, MBS_CURVE_CIRCLE, MBS_CURVE_ELLIPSE, MBS_CURVE_USER
} mbs_curve_kind;
/* A user curve: p, dp/ds and d^2p/ds^2 at s (2 each, frame coordinates); 0 ok, nonzero to
   fail (MBS_ERR_CALLBACK). Called during closure and dynamics: no mbs calls inside. */
typedef int (*mbs_curve_fn)(double s, double p[2], double dp[2], double ddp[2], void *user);
typedef struct mbs_curve {
    mbs_curve_kind kind;
    double a, b;            /* ellipse semi-axes; circle radius a; unused for a line */
    int flip;               /* nonzero: contact on the other side (normal reversed) */
    mbs_curve_fn fn;        /* MBS_CURVE_USER */
    void *user;
    double period;          /* MBS_CURVE_USER: > 0 for a closed curve, p(s + period) = p(s)
                               (a cam, a closed spline); 0 open. Circles and ellipses are
                               periodic by themselves. */
} mbs_curve;
typedef struct mbs_curve_joint_def {
    const char *name;
    int parent, child;                     /* body ids; MBS_WORLD allowed */
    mbs_frame frame_parent, frame_child;   /* each curve lies in the x-y plane of its frame */
    mbs_curve curve_parent, curve_child;
    double s_parent, s_child;              /* guesses of the contact parameters at the start */
    int rolling;                           /* nonzero: rolling without slipping */
} mbs_curve_joint_def;
/* name NULL, bodies 0 and 0 (set them), identity frames, two lines, s 0, sliding. */
mbs_curve_joint_def mbs_default_curve_joint_def(void);
/* Joint id (>= 0, type MBS_JOINT_CURVE, always a cut joint) or a negative status:
   MBS_ERR_ARG for a bad body, frame, curve kind, a radius or semi-axis <= 0 or beyond 1e100,
   a user curve without fn or with a negative or non-finite period, two lines (which cannot
   touch at one point) or non-finite s. */
int mbs_add_curve_joint(mbs_builder *b, const mbs_curve_joint_def *def);
/* The contact of a curve joint at the data's state: parameters s (2: parent, child curve),
   the contact point on the parent curve and its contact normal (world, 3 each; any output
   may be NULL). The parameter of a periodic curve (circle, ellipse, user curve with a
   period) is kept within one period, [-period/2, period/2), so it never grows with the turns.
   MBS_ERR_ARG for a bad id; MBS_ERR_CONVERGENCE when no contact point is found near the last
   one (the message says where). */
int mbs_curve_joint_contact(mbs_data *d, int joint, double s[2], double point[3],
                            double normal[3]);

/* ---------------------------------------------------------------- user state equations */
/* Extra first-order states x integrated with the mechanism in one state vector by every
   stepper: a motor's current, a hydraulic pressure, a filter or controller state
   (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator of multibody
   models", §4.2.2 "user equations" and §5.1: the 22 hydraulic state equations of a Kinetic
   H2 suspension integrated together with the car in one monolithic system).
   A user-state element owns n consecutive entries of the data's user-state vector (its
   address: mbs_model_user_states_adr). Its function computes xdot = f(t, q, v, x) and may
   apply forces that depend on x:
     - it runs in every dynamics evaluation (forward and inverse dynamics, each stage of a
       step, CVODE's right-hand side), after the kinematics, in force-element order, under
       the rule of force callbacks (docs/realtime.md): it may read mbs_data_time, _q, _v and
       the whole mbs_data_user_states vector (other elements' states too), call the
       kinematic queries, and add forces with mbs_apply_body_wrench and
       mbs_apply_generalized_force; it must not write the states;
     - x is this element's n states (at the stage being evaluated), xdot its n derivatives,
       zeroed on entry; it must not depend on qacc (no algebraic loop);
     - returns 0 ok, > 0 recoverable (CVODE retries a shorter step), < 0 fatal: then
       MBS_ERR_CALLBACK; a non-finite xdot is MBS_ERR_NONFINITE naming the element.
   Steppers: RK4 and Euler stages include x (explicit Euler for x in the semi-implicit
   Euler step), CVODE integrates y = [q; v; x] (rtol and atol apply to x too), the
   local-error estimate compares x, event functions may read x and handlers may change it,
   a failed step restores it bit for bit. mbs_linearize and mbs_modes include x in the state
   (x = (dq, dv, x_user), nx = 2 nv + nux for a tree); parameter sensitivity runs integrate
   y = [q; v; x] (mbs_sens_get_user_states); the dynamics derivatives, mbs_equilibrium and
   the other analyses hold x at its value. Callbacks are C functions: model files have no element
   for them. */
typedef int (*mbs_user_states_fn)(mbs_data *d, const double *x, double *xdot, void *user);
/* n (1 .. 1000000) states with derivative function fn; name copied, may be NULL. Their start
   values are 0 unless set. Returns the force element id. */
int mbs_add_user_states(mbs_builder *b, const char *name, int n, mbs_user_states_fn fn,
                        void *user);
/* Start values x0 (n values, n the element's count, finite) of a user-state element. */
int mbs_set_user_states_start(mbs_builder *b, int element, const double *x0, int n);
/* Total number of user states of the model (0 without user-state elements). */
int mbs_model_nuser_states(const mbs_model *m);
/* First index of a user-state element's states in the user-state vector; MBS_ERR_ARG for
   a NULL model, a bad id or an element of another kind. */
int mbs_model_user_states_adr(const mbs_model *m, int element);
/* The model's start values of all user states: x (nuser_states x 1). */
int mbs_model_user_states_start(const mbs_model *m, double *x);
/* The data's user-state vector (nuser_states x 1), writable like q and v, starting at the
   model's start values; checked to be finite when a step starts. NULL for a NULL data. */
double *mbs_data_user_states(mbs_data *d);
/* Set the n states of one element (x finite; refused inside a force callback). */
int mbs_data_set_user_states(mbs_data *d, int element, const double *x);
/* xdot (nuser_states x 1): the derivatives at the data's current t, q, v, tau and user
   states as they are (loops not closed): the kinematics and the force elements are
   evaluated, no accelerations; q, v and the states stay as they were. */
int mbs_user_states_derivative(mbs_data *d, double *xdot);

/* ---------------------------------------------------------------- visual shapes */
/* Shapes drawn for a body by viewers (mbs-sim --animate / --gltf, model files' <visual>);
   they have no effect on the dynamics. */
typedef enum mbs_shape_type {
    MBS_SHAPE_BOX,
    MBS_SHAPE_CYLINDER,
    MBS_SHAPE_SPHERE,
    MBS_SHAPE_MESH
} mbs_shape_type;
typedef struct mbs_visual_def {
    const char *name;     /* copied; may be NULL */
    int body;             /* body id; MBS_WORLD allowed */
    mbs_shape_type shape;
    mbs_frame frame;      /* shape frame in body coordinates; cylinder axis = frame z, as URDF */
    double size[3];       /* box: full extents x, y, z; cylinder: radius, length; sphere:
                             radius; entries a shape does not use are ignored (finite) */
    double scale[3];      /* mesh: scale factors per axis, nonzero (negative mirrors) */
    double color[4];      /* rgba in [0, 1] */
    const char *mesh;     /* mesh: file name (as written in the model file), copied */
} mbs_visual_def;
/* no name, body -1 (must be set), sphere of radius 0.05, identity frame, scale 1,
   colour (0.7, 0.7, 0.7, 1), no mesh */
mbs_visual_def mbs_default_visual_def(void);
int mbs_add_visual(mbs_builder *b, const mbs_visual_def *def); /* visual id >= 0 */
int mbs_model_nvisual(const mbs_model *m);
/* Copy of visual id's definition into out; its strings (name never NULL: "" if unnamed;
   mesh NULL unless a mesh) point into the model and live as long as it. */
int mbs_model_visual(const mbs_model *m, int id, mbs_visual_def *out);
/* The definitions a compiled model was built from, for viewers and exporters (names point
   into the model). Body 0 is the world (mass 0); automatic free root joints are included;
   axes are the normalised ones. mbs_model_spring_damper_def: MBS_ERR_ARG when force element
   id is not a line spring-damper. */
int mbs_model_body_def(const mbs_model *m, int body, mbs_body_def *out);
int mbs_model_joint_def(const mbs_model *m, int joint, mbs_joint_def *out);
int mbs_model_spring_damper_def(const mbs_model *m, int force, mbs_spring_damper_def *out);
/* The uniform gravity vector g (world frame); zero when the model has no gravity or point
   gravity. Viewers draw "up" against it. */
int mbs_model_gravity(const mbs_model *m, double g[3]);

/* ---------------------------------------------------------------- start values, joint drives */
/* Start values of a tree joint, kept in the compiled model: mbs_data_create starts there
   (neutral q and zero v where none were given) and mbs_model_start returns them. q holds the
   joint's nq coordinates (quaternions scalar first, of unit norm within 1e-6; stored as
   given), v its nv rates; either may be NULL (not given), not both. A later call for the
   same joint replaces what it gives. MBS_ERR_ARG for a bad id, a joint marked cut (or a
   distance joint), counts other than the joint type's, non-finite values; a joint that
   mbs_compile makes a cut joint (it closes a loop) fails the compile, naming it. Bodies that
   no joint connects get their free joint at compile: give such a body an explicit
   MBS_JOINT_FREE from MBS_WORLD (the same joint) to give it start values. */
int mbs_set_joint_start(mbs_builder *b, int joint, const double *q, int nq, const double *v,
                        int nv);
/* Coordinates of a tree joint held at their values by mbs_assemble (Modelica's start values
   with fixed = true): hold (nv x 1), nonzero = held; nv must be the joint's. mbs_assemble
   keeps held coordinates at their values in q (the start values unless the host changed
   them): its loop partition takes them as independent coordinates where the loops allow it,
   and when the loops need a held coordinate as a dependent one and the held values cannot
   all hold, it fails with MBS_ERR_INCONSISTENT naming the joint (q and v unchanged). */
int mbs_set_joint_hold(mbs_builder *b, int joint, const unsigned char *hold, int nv);
/* The model's start values: q (nq x 1) and v (nv x 1), either may be NULL. */
int mbs_model_start(const mbs_model *m, double *q, double *v);
/* hold (nv x 1, nullable): 1 for a coordinate held at assembly, 0 otherwise; returns the
   number of held coordinates (negative status for a NULL model). */
int mbs_model_hold(const mbs_model *m, unsigned char *hold);
/* ---------------------------------------------------------------- model files */
/* Add the elements of a model file: URDF as ROS writes it (links with inertial and visual
   blocks, joints revolute, continuous, prismatic, fixed, floating, planar; the root link
   welded to the world unless it is the link "world"), or mbs's superset of URDF (joints of
   every mbs type, cut="true" closing loops, state_priority, gravity, spring-dampers, joint
   spring-dampers). Names are kept (mbs_model_find_body / _joint find them). A failure names
   the file, the line and the element, and leaves the builder as it was. See
   docs/model-files.md. */
int mbs_builder_load(mbs_builder *b, const char *path);

/* Robot files as they ship. Both loaders skip what lies outside URDF's links and joints and
   outside mbs's superset (<sensor>, <mujoco>, Drake's <frame>, elements of any XML namespace
   such as <drake:joint>); an inertia that fails the checks of mbs_add_body is read with its
   entries below 1e-12 of the file's largest as zero (rounding junk), and ignored on a link
   that cannot move (welded to the world through fixed joints); each such case is a warning. An
   unknown element without a namespace is still refused (a typo of the superset). */
typedef void (*mbs_load_warning_fn)(void *user, const char *message);
typedef struct mbs_load_options {
    int floating_base;    /* 1: the root link gets a free joint (named "floating_base") instead
                             of a weld to the world; files with a "world" link are unchanged */
    int balance_inertia;  /* 1: principal moments of a moving link that violate the triangle
                             inequality are replaced by their mean (MuJoCo's balanceinertia),
                             a warning each; 0 (default): such a link is refused */
    mbs_load_warning_fn warning; /* called with each warning ("file:line: <element>: ..."),
                                    during the call only; NULL: warnings are dropped */
    void *user;           /* handed to warning */
} mbs_load_options;
mbs_load_options mbs_default_load_options(void); /* all 0: what mbs_builder_load does */
/* mbs_builder_load with options (NULL: the defaults). */
int mbs_builder_load_with(mbs_builder *b, const char *path, const mbs_load_options *opt);


/* ---------------------------------------------------------------- user constraints and joint couplings */
/* User constraints (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic
 * generator of multibody models", §2.2.1: h_user(q) = 0) and joint couplings are closed
 * exactly like cut joints: their rows follow the cut joints' rows (lambda, mbs_constraint_info
 * and the row numbering of mbs_model_ncon include them), join the same row selection
 * (redundant rows dropped by the rank-revealing QR), coordinate partitioning and Newton
 * closure, so every stepper, mbs_assemble, mbs_inverse_dynamics, equilibrium, positions,
 * linearisation and modes handle them. lambda of a row is the multiplier of the unscaled
 * row: M qacc + c = tau + J^T lambda.
 * The function is called with the data's q and v (t too) as they are: it may read them
 * (mbs_data_q, mbs_data_v, mbs_data_time) and call the kinematic queries (mbs_body_pose,
 * mbs_body_velocity), nothing else. It writes h (nrow; a velocity-level constraint writes
 * nothing there), J (nrow x nv, row-major, dh/dq per velocity coordinate: hdot = J v) when J
 * is not NULL, and jdotv (nrow, the quadratic term: hddot = J qacc + jdotv) when jdotv is
 * not NULL. It returns 0, or nonzero on failure: its rows then turn NaN and the closure or
 * the dynamics fail naming the constraint.
 * Without a Jacobian (jacobian 0) the library differentiates h by central differences,
 * column k from h(q (+) 1e-6 e_k) and h(q (+) -1e-6 e_k) (the steps of the force callbacks'
 * derivatives), and jdotv (bias 0) by the second difference of h along v: (h(q (+) s v) -
 * 2 h(q) + h(q (+) -s v)) / s^2 with |s v|_inf = 1e-4 (velocity level: (J(q (+) s v) -
 * J(q (+) -s v)) v / 2s, |s v|_inf = 1e-6); each difference sets q and recomputes the
 * kinematics, then restores both. A given Jacobian is compared with those differences at the
 * data's first row selection: a column off by more than 1e-4 (1 + max |J|) is refused there
 * with MBS_ERR_CALLBACK naming the constraint, its row and column.
 * Velocity-level (nonholonomic) rows J(q) v = 0 take part in the velocity projection and the
 * dynamics only (no position residual: Newton's steps keep them at zero). Equilibrium,
 * solve_positions, linearisation, modes, the derivatives and the sensitivities refuse a model
 * with such rows (MBS_ERR_STATE naming the constraint). */
typedef int (*mbs_user_constraint_fn)(mbs_data *d, double *h, double *J, double *jdotv,
                                      void *user);
#define MBS_USER_CONSTRAINT_MAX_ROWS 32
typedef struct mbs_user_constraint_def {
    const char *name;            /* copied (up to 63 characters); may be NULL */
    int nrow;                    /* rows, 1 .. MBS_USER_CONSTRAINT_MAX_ROWS */
    int velocity_level;          /* 0: h(q) = 0; 1: J(q) v = 0 (nonholonomic) */
    int jacobian;                /* 1: fn writes J when asked; 0: differences of h (a
                                    velocity-level constraint must give J) */
    int bias;                    /* 1: fn writes jdotv when asked; 0: differences */
    double scale;                /* length of the rows (m; 1 for angles): the solver compares
                                    h / scale with the cut joints' rows; > 0 */
    mbs_user_constraint_fn fn;   /* required */
    void *user;
} mbs_user_constraint_def;
/* name NULL, nrow 0 (must be set), holonomic, no Jacobian, no bias, scale 1, fn NULL */
mbs_user_constraint_def mbs_default_user_constraint_def(void);
/* Constraint id >= 0 (user constraints and joint couplings share one numbering). */
int mbs_add_user_constraint(mbs_builder *b, const mbs_user_constraint_def *def);
/* Joint coupling q_a = ratio q_b + offset between scalar dofs of two tree joints (dofs whose
   q and v have the same meaning: revolute, prismatic, cylindrical, universal, planar): a
   gear pair, URDF's <mimic>. One row h = q_a - ratio q_b - offset; its lambda is the
   generalized force the coupling exerts on dof a (-ratio lambda on dof b). A joint made a
   cut joint by compile is refused there (MBS_ERR_ARG naming the coupling). */
typedef struct mbs_joint_coupling_def {
    const char *name;            /* copied (up to 63 characters); may be NULL */
    int joint_a, dof_a;          /* the driven coordinate */
    int joint_b, dof_b;          /* the driving coordinate */
    double ratio, offset;        /* finite; ratio nonzero */
} mbs_joint_coupling_def;
/* name NULL, joints -1, dofs 0, ratio 1, offset 0 */
mbs_joint_coupling_def mbs_default_joint_coupling_def(void);
int mbs_add_joint_coupling(mbs_builder *b, const mbs_joint_coupling_def *def); /* id */
int mbs_model_nuser_constraints(const mbs_model *m);
/* Index of the first row of user constraint (or coupling) id in lambda and in the active
   mask of mbs_constraint_info; MBS_ERR_ARG for a bad id. */
int mbs_model_user_constraint_row(const mbs_model *m, int id);
/* Id of the user constraint (or coupling) named name, or a negative status. */
int mbs_model_find_user_constraint(const mbs_model *m, const char *name);

/* ---------------------------------------------------------------- shapes and unilateral contact */
/* Collision shapes fixed on bodies (body coordinates; a shape's own axes are those of its
   pose frame: x_body = rot x_shape + pos), and the compliant contact element between them
   (docs/api.md "Shapes and contact").
     MBS_COLLISION_SPHERE    radius size[0]
     MBS_COLLISION_CAPSULE   radius size[0], half length size[1] of its axis (shape z)
     MBS_COLLISION_BOX       half extents size[0..2] along shape x, y, z
     MBS_COLLISION_CYLINDER  radius size[0], half length size[1] along shape z
     MBS_COLLISION_PLANE     the half-space z <= 0 of its frame (normal +z), on MBS_WORLD only
     MBS_COLLISION_MESH      the convex hull of nvertex vertices (3 each, shape coordinates);
                             with triangles (3 vertex indices each, counterclockwise seen
                             from outside) its volume, centre and inertia for
                             mbs_body_def_from_shape */
typedef enum mbs_collision_kind {
    MBS_COLLISION_SPHERE, MBS_COLLISION_CAPSULE, MBS_COLLISION_BOX, MBS_COLLISION_CYLINDER,
    MBS_COLLISION_PLANE, MBS_COLLISION_MESH
} mbs_collision_kind;
typedef struct mbs_shape_def {
    const char *name;          /* copied; may be NULL */
    int body;                  /* body id; MBS_WORLD allowed (a plane: MBS_WORLD only) */
    mbs_collision_kind kind;
    double size[3];            /* see the kinds above; > 0 where used */
    mbs_frame pose;            /* the shape frame on the body */
    const double *vertices;    /* mesh: [3 nvertex], copied */
    int nvertex;               /* mesh: >= 4, not all in one plane */
    const int *triangles;      /* mesh: [3 ntriangle] (may be NULL: no mass properties) */
    int ntriangle;
    unsigned group, mask;      /* shapes a, b may touch when (a.group & b.mask) and
                                  (b.group & a.mask) are both nonzero */
} mbs_shape_def;
/* no name, body MBS_WORLD, sphere of radius 0 (set it), identity pose, no mesh, group 1,
   mask all bits */
mbs_shape_def mbs_default_shape_def(void);
/* Shape id (>= 0) or MBS_ERR_ARG naming the shape: a bad body or kind, a size <= 0,
   non-finite or beyond 1e100 where the kind uses it, a non-finite or non-orthonormal pose, a
   plane on a body, a mesh with fewer than 4 vertices, non-finite vertices, all vertices in one
   plane, a triangle index out of range, or triangles enclosing no positive volume. */
int mbs_add_shape(mbs_builder *b, const mbs_shape_def *def);
/* A body with the mass, centre of mass and inertia of a shape of uniform density (> 0):
   primitives in closed form, a mesh (with triangles) by the divergence theorem (Mirtich,
   "Fast and accurate computation of polyhedral mass properties", 1996), in the body
   coordinates of the shape's pose. MBS_ERR_ARG for a plane, a mesh without triangles or the
   errors of mbs_add_shape; *out untouched then. The name of out is def->name. */
int mbs_body_def_from_shape(const mbs_shape_def *def, double density, mbs_body_def *out);

/* Contact law of a pair of shapes (Hunt, Crossley, "Coefficient of restitution interpreted
   as damping in vibroimpact", 1975): with penetration x >= 0 and its rate xd, the normal
   force F = k x^n (1 + c xd / v0), never pulling, v0 the approach speed when the contact
   started (located as an event; at least 0.1 m/s), c solved at build time so that a normal
   impact rebounds with restitution e at any speed (Hunt and Crossley's c = 3 (1 - e) / 2 is
   its first order near e = 1). The
   friction is a tangential spring-damper from an anchor where the contact sticks
   (Ft = -kt z - ct vs, z the slip since the anchor, vs the slip velocity), limited to the
   Coulomb cone mu F: beyond it the contact slides with |Ft| = mu F and the anchor follows. */
typedef struct mbs_contact_params {
    double stiffness;          /* k > 0, N / m^n */
    double exponent;           /* n in [1, 3] (1.5: Hertz) */
    double restitution;        /* e in (0, 1] */
    double friction;           /* mu >= 0 */
    double tangent_stiffness;  /* kt > 0, N / m */
    double tangent_damping;    /* ct >= 0, N s / m */
} mbs_contact_params;
/* k 1e6, n 1.5, e 0.5, mu 0.5, kt 1e5, ct 0 */
mbs_contact_params mbs_default_contact_params(void);
/* The contact element between the shapes added so far: every pair passing the group/mask
   filter, not on one body and not both on the world, touches with the parameters params
   (NULL: the defaults); pairs whose bodies a joint connects do not (unless joined is
   nonzero). Force element id, or MBS_ERR_ARG / MBS_ERR_NOMEM. It owns user states (from
   mbs_contact_states_adr): for each pair, in the order of (lower shape id, higher shape id),
   for each of its contact slots the slip z (3, world) and the approach speed v0 of its last
   start, and last the energy the element has dissipated. */
int mbs_add_contact(mbs_builder *b, const mbs_contact_params *params, int joined);
/* Other parameters for one pair of shapes of a contact element. */
int mbs_set_contact_pair(mbs_builder *b, int element, int shape_a, int shape_b,
                         const mbs_contact_params *params);
/* The contact points of a pair at the data's last dynamics evaluation (allocation-free):
   up to max of them, each with its world point (3, where the forces act: on the surface of
   one of the two shapes, the one first in the kind order sphere, capsule, box, cylinder,
   mesh, plane, so that a ball or wheel rolls on its own radius), its normal
   (3, from shape_a towards shape_b), its penetration (> 0 in contact) and the force on
   shape_b (3, world; shape_a gets the opposite). Returns the number written (0 when they do
   not touch) or MBS_ERR_ARG for a bad element or a pair the element does not hold. Any
   output array may be NULL. */
int mbs_contact_query(const mbs_data *d, int element, int shape_a, int shape_b, int max,
                      double *point, double *normal, double *penetration, double *force);
/* Energy the contact element has dissipated since the start (its last state). */
double mbs_contact_dissipated(const mbs_data *d, int element);
/* Index of the contact element's first state in the user-state vector; MBS_ERR_ARG. */
int mbs_contact_states_adr(const mbs_model *m, int element);
#define MBS_CONTACT_MAX_POINTS 8 /* contact points of one pair at most */

/* ======== MODEL (mbs_model): compile, queries, parameters */

/* ---------------------------------------------------------------- compile, model */
/* Validate, pick the spanning tree, add free root joints; the builder stays usable. */
int mbs_compile(const mbs_builder *b, mbs_model **out);
void mbs_model_destroy(mbs_model *m); /* NULL allowed */

int mbs_model_nq(const mbs_model *m);
int mbs_model_nv(const mbs_model *m);
int mbs_model_nbody(const mbs_model *m);  /* world included */
int mbs_model_njoint(const mbs_model *m); /* automatic free joints included */
int mbs_model_ncon(const mbs_model *m);   /* scalar constraint equations of all cut joints,
                                            then of the user constraints and couplings */
int mbs_model_nforce(const mbs_model *m); /* force elements (all kinds) */
int mbs_model_joint_qadr(const mbs_model *m, int joint); /* first index in q; -1 for a cut */
int mbs_model_joint_vadr(const mbs_model *m, int joint); /* first index in v; -1 for a cut */
int mbs_model_joint_nq(const mbs_model *m, int joint);   /* 0 for a cut joint */
int mbs_model_joint_nv(const mbs_model *m, int joint);   /* 0 for a cut joint */
int mbs_model_joint_is_cut(const mbs_model *m, int joint); /* 1, 0, or negative status */
int mbs_model_find_body(const mbs_model *m, const char *name);  /* id or negative */
int mbs_model_find_joint(const mbs_model *m, const char *name); /* id or negative */
const char *mbs_model_body_name(const mbs_model *m, int body);   /* "" if unnamed, NULL if bad */
const char *mbs_model_joint_name(const mbs_model *m, int joint); /* "" if unnamed, NULL if bad */

/* ---------------------------------------------------------------- planar models */
/* A model whose tree joints all move in one plane (revolute axes parallel, prismatic axes
   perpendicular to them, planar joints with that normal, fixed joints), no force callback,
   and no closed loop or only loops closed in closed form by planar assemblies (JointRRR,
   JointRRP, JointRPP below, whose normal is the model's), runs its forward dynamics in planar
   algebra (3-vectors instead of spatial 6-vectors; Höbinger and Otter, "PlanarMultiBody - a
   Modelica library for planar multi-body systems"): same API, same results to rounding. A
   planar loop keeps the two rows its assembly closes (no rank decision); while Newton serves
   its loops (near a singular position) the model runs the 3-D path. */
typedef enum mbs_planar_mode {
    MBS_PLANAR_AUTO, /* default: compile finds a planar model and uses the planar path */
    MBS_PLANAR_OFF   /* always the 3-D path */
} mbs_planar_mode;
int mbs_builder_set_planar(mbs_builder *b, mbs_planar_mode mode);
/* 1 when the compiled model runs the planar path, 0 when not, negative for NULL. */
int mbs_model_is_planar(const mbs_model *m);

/* ---------------------------------------------------------------- loops closed in closed form */
/* Compile recognises loops with the structure of the assemblies of the Modelica MultiBody
   library (Otter, Elmqvist, Mattsson 2003, §7.2-7.3;
   MSL Joints.Assemblies) and closes them in closed form instead of by Newton's method:
     JointSSR, JointSSP   a distance joint (rod with ball ends) and a revolute or prismatic
                          joint of its loop;
     JointUSR, JointUSP   a rod body on a universal joint (or a spherical one, whose spin
     (SSR, SSP)           about the rod stays free), closed by a spherical cut joint at its
                          other end, and a revolute or prismatic joint of the loop;
     JointUPS (SPS)       a universal (or spherical) joint, a prismatic joint below it and a
                          spherical cut joint;
     JointRRR, RRP, RPP   a planar loop (revolute axes parallel, prismatic axes perpendicular
                          to them) closed by a revolute or prismatic cut joint, with two more
                          revolute or prismatic joints.
   Every loop of the model must have one, no two loops may share a dependent coordinate, and
   the loops must admit an order in which each reads only independent coordinates and those
   of the loops before it (coupled loops such as the slider-cranks of an engine on one
   crankshaft); otherwise every loop keeps Newton. The dependent coordinates are the ones with
   the lowest state_priority. A closure takes the root nearest to the current coordinates
   (at mbs_assemble: the user's guess), so the motion stays on its branch; rates and
   accelerations come from the derivatives of each assembly's equations, and the dynamics
   are reduced to the independent coordinates (lambda as before). Near a singular position
   (a rod stretched straight or folded, a planar loop flat), where the closed forms lose
   accuracy, Newton closes the loops instead (an event for the steppers) until they are well
   away from it again; mbs_cut_joint_closure tells which one runs. */
typedef enum mbs_closure { MBS_CLOSURE_NEWTON, MBS_CLOSURE_ANALYTIC } mbs_closure;
/* MBS_CLOSURE_ANALYTIC (default): closed forms where compile finds them; MBS_CLOSURE_NEWTON:
   Newton for every loop. */
int mbs_builder_set_closure(mbs_builder *b, mbs_closure closure);
/* How the loop of a cut joint (or distance joint) is closed now: MBS_CLOSURE_ANALYTIC or
   MBS_CLOSURE_NEWTON; MBS_ERR_ARG for NULL or a joint that is not a cut joint. */
int mbs_cut_joint_closure(const mbs_data *d, int cut_joint);
/* Why: the reason the loop is closed that way now and which forward dynamics serve ("closed
   form, reduced dynamics"; "closed form with the general dynamics: ... rotors ..."; "Newton:
   ..."), a static string; NULL for NULL or a joint that is not a cut joint. */
const char *mbs_cut_joint_closure_reason(const mbs_data *d, int cut_joint);
/* The assembly compile found for a cut joint's loop ("JointRRR", "JointSSP", ...; static
   string), NULL when the model's loops keep Newton or for a bad argument. */
const char *mbs_model_cut_assembly(const mbs_model *m, int cut_joint);
/* Newton iterations the loop closures of d have made since its creation (0 while every loop
   is closed analytically). */
long mbs_loop_newton_iterations(const mbs_data *d);

/* ---------------------------------------------------------------- parameters of a compiled model */
/* Parameters of a compiled model, changed for a new run without compiling again (a sweep).
   Each change is validated as the builder validates the same value (a body's mass, com and
   inertia together; coefficients >= 0; ...) and a refused one leaves the model as it was,
   with the message in mbs_model_error. Every derived quantity is updated (spatial inertias,
   the planar path's inertias, the swing axes of a point mass, the terms of the rotors native
   to a joint's ABA step), so the model is the one that
   mbs_compile would have built with the new value, bit for bit. A body compile turned into
   a point mass (no rotational coordinates) must stay a point mass, with its mass off the
   centre of a spherical joint when it was; a body that compile would now turn into one is
   refused too (MBS_ERR_ARG, "compile the model again").
   Data objects read the model at every call, so data made from the model see the change at
   their next call; a stepper restarts its integrator (CVODE's history) at its next step.
   The model is shared, not locked: do not change a parameter while another thread runs a
   call on a data object of the same model (between runs it is safe). Reading parameters
   (mbs_model_get_param) writes nothing into the model: any number of threads may read a
   shared model at once. */
typedef enum mbs_param_kind {
    MBS_PARAM_MASS,       /* body id: mass */
    MBS_PARAM_COM,        /* body id: com[index], index 0..2 */
    MBS_PARAM_INERTIA,    /* body id: inertia[index], index 0..8 row-major (about the com);
                             the symmetric entry changes with it */
    MBS_PARAM_STIFFNESS,  /* force element id: line (with or without masses) or joint
                             spring-damper stiffness */
    MBS_PARAM_DAMPING,    /* force element id: line or joint spring-damper damping (not on a
                             line element through a node: compile refuses it there) */
    MBS_PARAM_REST,       /* force element id: rest length (line, >= 0) or rest position
                             (joint spring-damper) */
    MBS_PARAM_GRAVITY,    /* uniform gravity g[index], index 0..2 (a model with uniform
                             gravity; id unused) */
    MBS_PARAM_GRAVITY_MU, /* point gravity mu > 0 (a model with point gravity; id unused) */
    /* the kinds below were appended later (the values above keep their numbers) */
    MBS_PARAM_ROTOR_INERTIA, /* rotor id (mbs_add_rotor's, 0..nrotor-1): inertia > 0 */
    MBS_PARAM_ROTOR_RATIO,   /* rotor id: gear ratio, nonzero */
    MBS_PARAM_LINE_MASS,     /* force element id of a line force with mass: index 0 the
                                spring-damper's mass or the two-mass element's mass_a, index 1
                                its mass_b; a mass compiled > 0 stays > 0, a mass compiled 0
                                stays 0 (it has no inertial rows: compile the model again) */
    MBS_PARAM_LINE_MASS_PLACE, /* force element id: index 0 the spring-damper's mass_fraction
                                  (in [0, 1]) or the two-mass element's distance_a (>= 0),
                                  index 1 its distance_b (>= 0) */
    MBS_PARAM_FRICTION,      /* force element id of a joint friction (not a brake, whose limit
                                is a host input): index 0 coulomb, 1 stiction, 2 viscous, all
                                >= 0 with stiction >= coulomb */
    MBS_PARAM_STOP,          /* force element id of a joint stop, a value of its law: index 0
                                stiffness (> 0) and 1 damping (>= 0) of an elastic stop, 2
                                restitution (in [0, 1]) and 3 rest_velocity (> 0) of a
                                restitution stop; the limits are not parameters (a data
                                object in contact holds its limit) */
    /* geometry (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic generator
       of multibody models", §1.1: joint locations among the parameters); joint id: a joint
       the user added (not an automatic root, not a joint compile reduced for a point mass,
       whose mass's position is its MBS_PARAM_COM); refused on a model compile put on the
       planar path or gave a closed-form loop closure (build it with MBS_PLANAR_OFF and
       MBS_CLOSURE_NEWTON to vary its geometry) */
    MBS_PARAM_FRAME_PARENT_POS, /* joint id: frame_parent.pos[index], index 0..2 */
    MBS_PARAM_FRAME_CHILD_POS,  /* joint id: frame_child.pos[index], index 0..2 */
    MBS_PARAM_FRAME_PARENT_ROT, /* joint id: Cardan angle index (0..2) of frame_parent.rot =
                                   mbs_cardan_rot(a), see below */
    MBS_PARAM_FRAME_CHILD_ROT,  /* joint id: the same for frame_child.rot */
    MBS_PARAM_ROD_LENGTH,       /* joint id of a distance joint: its length > 0 */
    MBS_PARAM_CURVE_SIZE        /* joint id of a curve joint: index 0 the parent curve's
                                   radius or semi-axis a, 1 its semi-axis b, 2 and 3 the same
                                   for the child curve (> 0; circles have no b) */
} mbs_param_kind;
typedef struct mbs_param {
    mbs_param_kind kind;
    int id;    /* body or force element id */
    int index; /* component, where the kind has several */
} mbs_param;
/* Message of the last failed parameter call on m: the calling thread's last failed
   mbs_model_get_param on m when that was its last parameter call on m, else the last failed
   change of m; "" when there was none. */
const char *mbs_model_error(const mbs_model *m);
/* Current value of a parameter (MBS_ERR_ARG for a bad parameter; the message is kept per
   thread, not in the model). */
int mbs_model_get_param(const mbs_model *m, const mbs_param *p, double *value);
/* Set one parameter. */
int mbs_model_set_param(mbs_model *m, const mbs_param *p, double value);
/* Set mass, com and inertia of a body at once (def's name is ignored); the world (0) is
   refused. */
int mbs_model_set_body(mbs_model *m, int body, const mbs_body_def *def);
/* Gravity of a compiled model: uniform g, or point gravity (center, mu > 0); either kind may
   replace the other. */
int mbs_model_set_gravity(mbs_model *m, const double g[3]);
int mbs_model_set_point_gravity(mbs_model *m, const double center[3], double mu);
/* Geometry parameters: a frame's rotation from its Cardan angles, rot = Rx(a0) Ry(a1) Rz(a2)
   (row-major), the function through which MBS_PARAM_FRAME_*_ROT write it. Reading an angle
   gives the angles of the current rot (a1 in [-pi/2, pi/2]); setting angle k keeps the other
   two as read, so the model equals the one compiled with rot = mbs_cardan_rot(a) for the
   angles a that mbs_model_get_param then reads. */
void mbs_cardan_rot(double rot[9], const double a[3]);


/* ======== DATA (mbs_data): state, dynamics, controller queries */

/* ---------------------------------------------------------------- data and dynamics */
mbs_data *mbs_data_create(const mbs_model *m); /* takes every allocation the runtime needs */
void mbs_data_destroy(mbs_data *d);            /* NULL allowed */
const mbs_model *mbs_data_model(const mbs_data *d);
const char *mbs_data_error(const mbs_data *d); /* "" when there was no failure */
double *mbs_data_q(mbs_data *d);   /* (nq x 1), starts at neutral */
double *mbs_data_v(mbs_data *d);   /* (nv x 1), starts at 0 */
double *mbs_data_tau(mbs_data *d); /* (nv x 1) applied generalized forces (inputs), starts 0 */
const double *mbs_data_qacc(const mbs_data *d);   /* (nv x 1) from the last forward dynamics */
const double *mbs_data_lambda(const mbs_data *d); /* (ncon x 1) cut-joint (then user
                                                      constraint) multipliers */
double mbs_data_time(const mbs_data *d);
int mbs_data_set_time(mbs_data *d, double t);
/* Load-independent work done with d since its creation (counters only grow; take the
   difference over a step): forward-dynamics evaluations of the steppers, Newton iterations
   and LU factorisations of J_v of the loop closure, rank-revealing QR (re-)selections of the
   loops' rows or partition, and event-location trial steps. A work unit is one evaluation,
   one Newton iteration or one factorisation (mbs_work_units); mbs_stepper_def.max_work
   bounds the units of one step. Allocation-free; MBS_ERR_ARG for NULL. */
typedef struct mbs_work {
    unsigned long evals;       /* forward-dynamics evaluations of the steppers (and of the
                                  smoothed loop dynamics' neighbours) */
    unsigned long newton;      /* Newton iterations of the loop closure */
    unsigned long factor;      /* LU factorisations of the closure's J_v */
    unsigned long select;      /* rank-revealing QR selections of rows or partition */
    unsigned long event_iter;  /* event-location trial steps */
} mbs_work;
int mbs_data_work(const mbs_data *d, mbs_work *out);
unsigned long mbs_work_units(const mbs_work *w); /* evals + newton + factor (0 for NULL) */

/* Closed loops (cut joints). Every cut joint contributes scalar constraint rows, numbered
 * in joint-id order and, within a joint, in this order (Fp, Fc = the joint frames on parent
 * and child; u1, u2 = unit vectors perpendicular to axis with (u1, u2, axis) right-handed,
 * u1 built from the Fp coordinate axis least aligned with axis: e_x, e_y for axis e_z):
 *      revolute     5   force along e_x, e_y, e_z of Fp; torque about u1, u2
 *      prismatic    5   force along u1, u2; torque about e_x, e_y, e_z of Fp
 *      cylindrical  4   force along u1, u2; torque about u1, u2
 *      universal    4   force along e_x, e_y, e_z of Fp; torque about the unit normal
 *                       axis x axis2 / |axis x axis2| of the cross (axis on the parent,
 *                       axis2 on the child)
 *      spherical    3   force along e_x, e_y, e_z of Fp
 *      planar       3   force along the normal axis; torque about axis2, axis x axis2
 *      fixed        6   force along e_x, e_y, e_z of Fp; torque about e_x, e_y, e_z of Fp
 *      distance     1   push of the rod along (p_child - p_parent) / |p_child - p_parent|
 *                       (positive: compression, negative: tension)
 *      free         0
 * lambda (ncon x 1) are the multipliers of M qacc + c = tau + J^T lambda: the cut force and
 * torque that the parent exerts on the child at the origin of Fc (the child exerts the
 * opposite on the parent), in the components above. Rows that mbs_constraint_info reports as
 * dropped (redundant: a door on two coaxial hinges, a planar loop closed by a revolute) have
 * lambda 0; the kept rows then carry the whole load, so lambda is one of the statically
 * possible distributions.
 * Redundancy: a QR with column pivoting of J^T keeps the rows with |R_kk| > 1e-9 max(|R_11|,
 * 1e-3) (rows of forces scaled by the loop's length); a dropped row that is violated once the
 * kept rows hold is MBS_ERR_INCONSISTENT naming the cut joint. Coordinate partitioning picks
 * dependent coordinates with a well-conditioned J_v, keeping joints with a higher
 * state_priority independent when that costs J_v less than a factor 4 per level, and is
 * made again when J_v gets ill-conditioned along the motion (a coordinate reaching a limit
 * position); Newton
 * closes the loops holding the independent coordinates. The selection is made by the first
 * call that needs it (dynamics, mbs_assemble, mbs_constraint_info) and renewed when it no
 * longer fits (singular, ill-conditioned or violated rows); the steppers treat a renewal as
 * an event. */

/* qacc (and lambda) from t, q, v, tau, inputs, forces, gravity. With cut joints: the
   accelerations and multipliers of the kept rows at the given q and v (which need not be
   closed); at a closed state near a singular configuration of the loops, where they are
   ill-conditioned, a 4th-order interpolation along v of those of neighbouring closed
   states. */
int mbs_forward_dynamics(mbs_data *d);
/* tau_out (nv x 1): the tau for which forward dynamics returns qacc (nv x 1). */
/* With cut joints qacc must satisfy the constraints at acceleration level (else
   MBS_ERR_INCONSISTENT); tau_out is then the minimum-norm tau for which forward dynamics
   returns qacc (the tree's inverse dynamics with its component along the kept rows J^T
   removed). */
int mbs_inverse_dynamics(mbs_data *d, const double *qacc, double *tau_out);
/* M (nv x nv), row-major. */
int mbs_mass_matrix(mbs_data *d, double *M);
/* c (nv x 1): M qacc + c = tau on a tree (Coriolis, centrifugal, gravity, force elements). */
int mbs_bias_forces(mbs_data *d, double *c);
/* The tree-sparse factorisation M = L^T D L of the mass matrix at the current q
   (Featherstone, "Rigid Body Dynamics Algorithms" 2008, §6.5), written into LDL (nv x nv,
   row-major): its lower triangle holds L (unit diagonal implied) and D on the diagonal, the
   strict upper triangle is not written. Branch sparsity is kept: the cost is O(nv depth), no
   LAPACK. MBS_ERR_SINGULAR for a singular M (a massless end of a chain). */
int mbs_mass_matrix_factor(mbs_data *d, double *LDL);
/* Solve M x = b in place (x (nv x 1) holds b on entry) with a factor of
   mbs_mass_matrix_factor of the same data's model: O(nv depth). */
int mbs_mass_matrix_solve(mbs_data *d, const double *LDL, double *x);
/* Normalise the quaternions of q; with cut joints close the loops (Newton-Raphson on the
   dependent coordinates, residual below 1e-12 of the loop's size, at most 50 iterations)
   keeping the independent coordinates, then project v onto the velocity constraints. q and v
   are left as they were on failure: MBS_ERR_CONVERGENCE (cannot close), MBS_ERR_SINGULAR (no
   valid partition), MBS_ERR_INCONSISTENT (violated redundant rows), naming the cut joint. */
int mbs_assemble(mbs_data *d);
/* rank = number of kept constraint rows; active (ncon x 1, nullable) = 1 for a kept row,
   0 for a dropped (redundant) one. The selection is made at the current q if there is none
   yet. A tree has rank 0. */
int mbs_constraint_info(mbs_data *d, int *rank, unsigned char *active); /* active (ncon x 1) */
/* Pose in world: x_world = rot x_body + pos. */
int mbs_body_pose(mbs_data *d, int body, double pos[3], double rot[9]);
/* World-frame velocity of the body origin and angular velocity. */
int mbs_body_velocity(mbs_data *d, int body, double lin[3], double ang[3]);
/* Kinetic energy and potential energy of gravity and springs. */
int mbs_energy(mbs_data *d, double *kinetic, double *potential);

/* World-frame force/torque at a body point (body coords); only inside a force callback. */
int mbs_apply_body_wrench(mbs_data *d, int body, const double force[3], const double torque[3],
                          const double point[3]);
/* Generalized force f added to dof `index` of v; only inside a force callback. */
int mbs_apply_generalized_force(mbs_data *d, int index, double f);
/* Host input: world-frame force/torque at a body point (body coords), held until changed. */
int mbs_set_body_wrench(mbs_data *d, int body, const double force[3], const double torque[3],
                        const double point[3]);

/* q-manifold operations over all tree joints; q, q_out (nq x 1), v (nv x 1). */
int mbs_integrate_q(const mbs_model *m, const double *q, const double *v, double dt,
                    double *q_out);
/* v_out (nv x 1) with integrate_q(q0, v_out, 1) == q1; MBS_ERR_NONFINITE when a difference
   overflows (v_out then holds it). */
int mbs_difference_q(const mbs_model *m, const double *q0, const double *q1, double *v_out);
int mbs_normalize_q(const mbs_model *m, double *q);
int mbs_neutral_q(const mbs_model *m, double *q);

/* ---------------------------------------------------------------- controller queries */
/* Allocation-free, O(N) at most, callable from a control loop at every tick. World frame;
   a failed query leaves its outputs unwritten. With closed loops the Jacobian is the one of
   the tree coordinates: J v gives the point's velocity for any v that satisfies the loops;
   for the independent coordinates u, multiply by dv/du (docs/api.md says how). */
/* J (6 x nv, row-major): [w_body; v_point] = J v, point in body coordinates. */
int mbs_point_jacobian(mbs_data *d, int body, const double point[3], double *J);
/* a[6] = Jdot v: the point's (angular; linear) acceleration when qacc = 0 (no gravity). */
int mbs_point_bias_acceleration(mbs_data *d, int body, const double point[3], double a[6]);
/* Centre of mass of the whole system (MBS_ERR_ARG for a model without mass). */
int mbs_com(mbs_data *d, double com[3]);
/* Linear momentum and angular momentum about the world origin of the whole system. */
int mbs_momentum(mbs_data *d, double lin[3], double ang[3]);
/* After mbs_forward_dynamics (or a step): the wrench the parent exerts on the child through
   this joint (tree or cut) at the child joint frame origin, world coordinates: the
   constraint part plus what acts along the joint's coordinates (tau, springs, friction,
   prescribed-motion drives). */
int mbs_joint_reaction(mbs_data *d, int joint, double force[3], double torque[3]);


/* ======== STEPPER (mbs_stepper, mbs_sens, mbs_batch): time integration */

/* ---------------------------------------------------------------- stepper */
typedef enum mbs_stepper_kind {
    MBS_STEP_EULER,       /* semi-implicit (symplectic) Euler, fixed step */
    MBS_STEP_RK4,         /* classic Runge-Kutta 4, fixed step */
    MBS_STEP_CVODE_ADAMS, /* SUNDIALS CVODE, Adams-Moulton, variable step */
    MBS_STEP_CVODE_BDF    /* SUNDIALS CVODE, BDF + dense linear solver, variable step */
} mbs_stepper_kind;
typedef struct mbs_stepper_def {
    mbs_stepper_kind kind;
    double rtol, atol;       /* CVODE kinds */
    double max_step;         /* 0: no limit */
    long max_internal_steps; /* CVODE kinds, per mbs_stepper_step call */
    /* Fixed-step kinds: an optional local-error estimate (0 and 0: off, the default). When
       either is positive every step is also taken as two half steps, and a step whose
       difference |x_full - x_half| exceeds err_atol + err_rtol |x| in some coordinate
       (q in tangent coordinates, and v) fails with MBS_ERR_SOLVER, state restored, the
       message suggesting a step size. It costs two more steps per step; the accepted
       state is the full step's, bit for bit the same as with the estimate off. */
    double err_rtol, err_atol;
    /* Fixed-step kinds: state events (mbs_add_event, friction, stops) are located to within
       event_tol seconds (> 0; 0 means the default 1e-9). CVODE's root finding is tighter
       than any useful value (about 100 machine epsilons of t) and ignores it. */
    double event_tol;
    /* RK4 and Euler: a divergence guard, on by default (0). A step beyond the method's
       stability (RK4: h times the fastest rate of the linearised motion above 2.78,
       estimated from the step's own stages; Euler: a motion reversing and growing every
       step, from its last steps; O(nv) either way: a stiff spring or contact at too large
       a step) fails with MBS_ERR_SOLVER, state restored, the message suggesting a step,
       instead of returning MBS_OK while the energy grows without bound. Nonzero turns it off (a hard
       real-time loop that must always advance). */
    int no_divergence_guard;
    /* Fixed-step kinds: the most work units (mbs_work_units: evaluations, Newton iterations,
       factorisations) one mbs_stepper_step call may take, its loop closure and event
       location included; 0 (the default): unbounded. A step that would exceed it fails
       with MBS_ERR_DEADLINE, time and state restored bit for bit, so a real-time host can
       fall back. Checked before each evaluation and at the end of the step (a closure in
       progress finishes its Newton iterations first). CVODE kinds: must be 0. */
    unsigned long max_work;
} mbs_stepper_def;
mbs_stepper_def mbs_default_stepper_def(mbs_stepper_kind kind);
mbs_stepper *mbs_stepper_create(mbs_data *d, const mbs_stepper_def *def);
void mbs_stepper_destroy(mbs_stepper *s);
/* Advance the data's time by dt (one step for fixed-step kinds, integrate to t+dt for
   CVODE); errors are reported through mbs_data_error of the data. With cut joints the loops
   of the start state are closed first (as mbs_assemble, keeping the selection), every
   evaluation closes the loops of its stage state holding the independent coordinates, and
   the end state is closed and v projected: the kinds integrate the independent coordinates
   and their rates; a new loop selection or partition restarts CVODE. */
int mbs_stepper_step(mbs_stepper *s, double dt);

/* ---- worst-case work of a step (real time) */
/* The most work one mbs_stepper_step(s, dt) call of a fixed-step kind can take, counter by
   counter (mbs_work_units(cap) in work units), from the library's caps: the stages and
   substeps, at every evaluation and step end the loop closure's caps (Newton iterations,
   projection corrections, recoveries, the smoothing's doublings) and event location's (trial
   steps per crossing, crossings per call). A guarantee, exact for a tree without events
   (evaluations only), far above the measured worst with loops or events. seen (may be
   NULL): the counters of the call with the most work units this stepper has taken so far
   (failed calls included), what a host measures its deadline against. MBS_ERR_STATE for the
   CVODE kinds (their calls are bounded by max_internal_steps only), MBS_ERR_ARG for a dt
   that mbs_stepper_step would refuse. */
int mbs_stepper_worst_work(const mbs_stepper *s, double dt, mbs_work *cap, mbs_work *seen);

/* ---------------------------------------------------------------- parameter sensitivities */
/* Parameter sensitivities (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful
   symbolic generator of multibody models", §3.5.2, the direct method): d(trajectory)/d(p)
   for chosen parameters, integrated with the motion by SUNDIALS CVODES' forward sensitivity
   analysis (staggered corrector, sensitivities in the error test, CVODES' centred
   difference quotients for the sensitivity right-hand side). A run integrates the data's
   state like a CVODE stepper and the sensitivities dq/dp (nq, raw derivatives of q's
   numbers, quaternion components included) and dv/dp (nv) alongside, starting from zero
   at the state the run object was created (or restarted) at.
   Tolerances: CVODES' difference quotients perturb the state by about the error tolerance,
   so below rtol ~1e-8 the rounding of the dynamics (~1e-15) dominates them and the
   sensitivities' error test fails (MBS_ERR_SOLVER, too many steps). At rtol 1e-8 (the
   default) the sensitivities agree with central differences of two tight runs to ~3e-7 of
   their size.
   Cut joints: the data's state must be closed (MBS_ERR_STATE otherwise), every evaluation
   closes the loops holding the independent coordinates (docs/api.md, "Derivatives and
   sensitivities of closed loops"); user states are integrated
   with the motion, y = [q; v; x] (mbs_sens_get_user_states); Cardan joints are not
   re-based during a run. While a run evaluates, the model's parameters take the perturbed
   values CVODES asks for; the run puts the nominal values back before it returns, so do not
   share the model with another thread during a run. A run may allocate (it is an offline
   analysis, not a control-loop call). A build without SUNDIALS (-Dcvode=disabled) refuses
   mbs_sens_create with MBS_ERR_STATE. */
typedef struct mbs_sens mbs_sens;
typedef struct mbs_sens_def {
    mbs_stepper_kind kind;   /* MBS_STEP_CVODE_ADAMS (fixed-point iteration, as the
                                stepper) or MBS_STEP_CVODE_BDF (Newton, dense linear solver) */
    double rtol, atol;       /* of the state; the sensitivities' follow from them (CVODES) */
    double max_step;         /* 0: no limit */
    long max_internal_steps; /* per mbs_sens_run call */
} mbs_sens_def;
/* Adams, rtol 1e-8, atol 1e-10, no step limit, 100000 internal steps */
mbs_sens_def mbs_default_sens_def(void);
/* A sensitivity run of data d (of model m, which the run may perturb) for np >= 1 distinct
   parameters (mbs_model_set_param's kinds); *out is written on success only, the message of
   a failure is in mbs_data_error(d). The inertia of a point mass, a line's point mass
   compiled 0 and the damping of a line through a node are not parameters here (they keep
   their values), nor a restitution stop's values (they act at impacts). A run locates no
   events: friction values are differentiated through the sliding law and an elastic stop's
   through its contact force, so keep the coordinate sliding (the stop in or out of contact)
   through the run. */
int mbs_sens_create(mbs_model *m, mbs_data *d, const mbs_param *params, int np,
                    const mbs_sens_def *def, mbs_sens **out);
void mbs_sens_destroy(mbs_sens *s); /* NULL allowed */
/* Integrate from the data's time to t_end > time: the data's t, q (normalised), v at t_end.
   MBS_ERR_STATE when the data's state or a parameter was changed since the run object last
   left it (mbs_sens_restart starts again from there); on failure the data's state is as it
   was before the call. */
int mbs_sens_run(mbs_sens *s, double t_end);
/* dq (nq x 1) and dv (nv x 1), each nullable: the sensitivities to parameter k (0..np-1) at
   the data's time. */
int mbs_sens_get(const mbs_sens *s, int k, double *dq, double *dv);
/* Start again at the data's current state and parameter values, sensitivities zero. */
int mbs_sens_restart(mbs_sens *s);
/* ---------------------------------------------------------------- batch runs */
/* Batch runs: many independent runs of one model stepped at once on a pool of threads (a
   sweep, a Monte Carlo study). A batch holds nrun data objects, each with its own stepper
   made from def, and nthread - 1 threads started at creation (the caller is thread 0); run k
   is always stepped by thread k % nthread, on a data object of models[k % nthread]. Give the
   same compiled model nthread times to share it (read-only), or nthread models compiled from
   the same description to vary parameters per run (mbs_batch_set_params). After create,
   nothing allocates: mbs_batch_run only steps. Results are bitwise those of stepping each
   run alone with the same calls. Set each run's start state and inputs through
   mbs_batch_data (q, v, tau, time; mbs_assemble for loops) before running. */
typedef struct mbs_batch mbs_batch;
/* NULL on a bad argument (nthread or nrun < 1, a NULL model, models of different sizes) or
   out of memory. The models must outlive the batch. */
mbs_batch *mbs_batch_create(mbs_model *const *models, int nthread, int nrun,
                            const mbs_stepper_def *def);
void mbs_batch_destroy(mbs_batch *b); /* joins the threads; NULL allowed */
int mbs_batch_nrun(const mbs_batch *b);
mbs_data *mbs_batch_data(mbs_batch *b, int run); /* NULL when run is out of range */
/* Per-run parameters: before stepping run k, each mbs_batch_run sets params[i] to
   values[k np + i] (values is nrun x np, row-major) on the model of its thread. The arrays
   are the caller's and are read at every run; np = 0 turns it off. MBS_ERR_ARG when np > 0
   and two threads share a model. A CVODE stepper restarts its integrator when a run's
   parameters are set, i.e. at each mbs_batch_run call. */
int mbs_batch_set_params(mbs_batch *b, const mbs_param *params, int np, const double *values);
/* Step every run that has not failed nstep times by mbs_stepper_step(dt). A run whose step
   (or parameter change) fails keeps that status and is not stepped again, its data left as
   the failing call left it (message in mbs_data_error of its data, or mbs_model_error of its
   thread's model for a refused parameter); the other runs go on. Returns MBS_OK when every
   run is MBS_OK, else the status of the first failed run (MBS_ERR_ARG for a bad dt or
   nstep). Not reentrant on one batch. */
int mbs_batch_run(mbs_batch *b, double dt, long nstep);
int mbs_batch_status(const mbs_batch *b, int run); /* MBS_OK, the failed status, or ARG */
int mbs_batch_clear_status(mbs_batch *b);          /* every run MBS_OK again (after a fix) */


/* ---------------------------------------------------------------- lanes */
/* n instances of one tree model whose forward dynamics run W at a time, one instance per
   lane of the SIMD variant in use (W = mbs_lanes_width(): 8 with AVX-512, 4 with AVX2, 2
   with SSE2 or NEON, 1 for the scalar variant). Each instance is an ordinary data object
   (mbs_lanes_data): set its q, v, tau, inputs and time as for any data, read its qacc. Its
   kinematics and forces are its own; the articulated-body passes are shared, so qacc equals
   mbs_forward_dynamics' to rounding (not bit for bit: the one-instance call uses specialised
   kernels). Allocates at creation only. */
typedef struct mbs_lanes mbs_lanes;
mbs_lanes *mbs_lanes_create(const mbs_model *m, int n); /* NULL: bad argument, no memory */
void mbs_lanes_destroy(mbs_lanes *l);
int mbs_lanes_count(const mbs_lanes *l);
int mbs_lanes_width(void);
mbs_data *mbs_lanes_data(mbs_lanes *l, int k); /* NULL when k is out of range */
/* Forward dynamics of every instance. Returns MBS_OK or the status of the first instance
   that failed (mbs_lanes_failed; its data's message, prefixed, in mbs_lanes_error); that
   instance's qacc is as it was, the others are computed. A model with cut joints, coupling
   rows (line masses, rotors, nodes) or coordinate rows (motions, friction locks, stops) is
   MBS_ERR_STATE: use mbs_forward_dynamics on each data. */
int mbs_lanes_forward_dynamics(mbs_lanes *l);
int mbs_lanes_failed(const mbs_lanes *l); /* -1 when the last call succeeded */
const char *mbs_lanes_error(const mbs_lanes *l);

/* ======== ANALYSES (on mbs_data): equilibrium, positions, derivatives, linearisation, modes */

/* ---------------------------------------------------------------- analyses */
/* ROBOTRAN's analysis modules (Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful
   symbolic generator of multibody models", §2.2.2 and §4.3.1). A failed call leaves q, v
   and its outputs as they were. See docs/api.md, "Analyses". */

/* tau_out (nv x 1): generalized forces only on the nact distinct velocity indices of
   actuated, zero elsewhere, for which forward dynamics returns qacc (nv x 1; with loops it
   must satisfy them at acceleration level, else MBS_ERR_INCONSISTENT naming the cut joint).
   Like mbs_inverse_dynamics it ignores the data's tau; gravity, force elements, host wrenches
   and callbacks are included. Fully actuated: exact. Over-actuated: the tau_out of minimum
   Euclidean norm sqrt(sum tau_out_i^2) over the actuated entries, in SI units as they are
   (N and N m mixed, unweighted; the Moore-Penrose solution). Under-actuated: exact when qacc
   is reachable; when the unactuated coordinates would need a generalized force beyond 1e-9
   of max |RNEA(qacc)|, MBS_ERR_INCONSISTENT naming that coordinate and the cut joint of its
   loop. On a tree: the inverse dynamics restricted to the actuated set (consistent only if
   the others need no force). Allocation-free. */
int mbs_inverse_dynamics_actuated(mbs_data *d, const double *qacc, const int *actuated,
                                  int nact, double *tau_out);
/* Static equilibrium: v = 0 and q moved, from the current q, until the generalized forces
   (tau, gravity, force elements, host wrenches, callbacks at the data's time) vanish along
   every motion the loops allow; coordinates flagged 1 in fixed (nv x 1, 0 or 1, nullable)
   keep their values (a quaternion joint's three rotation dofs all or none), loops stay
   closed. A damped Newton iteration (at most 50, steps of at most 0.5 rad or m) on the
   reduced forces in the independent coordinates of a loop partition that keeps the fixed
   ones independent; its Jacobian by central differences (step 1e-5 in tangent
   coordinates). MBS_ERR_CONVERGENCE when it finds no equilibrium nearby,
   MBS_ERR_SINGULAR when the equilibrium reached is not isolated (a direction along which
   the forces do not change: hold it with fixed), MBS_ERR_ARG for a bad mask or one that
   leaves a loop unable to close. Needs LAPACK (MBS_ERR_STATE without). */
int mbs_equilibrium(mbs_data *d, const unsigned char *fixed);

typedef struct mbs_position_target {
    int body;         /* body id >= 1 */
    double point[3];  /* body point, body coordinates */
    double pos[3];    /* where it must be, world */
} mbs_position_target;
/* Initialisation / inverse kinematics: move q (coordinates not flagged in fixed, nv x 1,
   nullable, as for mbs_equilibrium) so that the n body points reach their world positions,
   loops closed; v is then projected onto the loops. Damped least squares (Levenberg-
   Marquardt, minimum-norm steps in tangent coordinates: the solution reached is near the
   starting q), at most 100 iterations. Targets that hold whatever q is (the out-of-plane row of a planar arm) are
   allowed. MBS_ERR_INCONSISTENT naming the target (or cut joint) when they cannot all hold
   (out of reach), MBS_ERR_CONVERGENCE when the iteration cap is hit. Needs LAPACK. */
int mbs_solve_positions(mbs_data *d, const mbs_position_target *targets, int n,
                        const unsigned char *fixed);
/* ---------------------------------------------------------------- derivatives, linearisation, modes */
/* Analytical derivatives of the dynamics of a tree (a model without cut joints), by
   recursive passes over the joints like the algorithms they differentiate (the recursive
   differentiation of Docquier, Poncelet, Fisette 2013, "ROBOTRAN: a powerful symbolic
   generator of multibody models", §3.5.2, in the spatial form of Carpentier and Mansard
   2018, "Analytical Derivatives of Rigid Body Dynamics Algorithms"), not by finite
   differences. Every output is an nv x nv row-major matrix, nullable (at least one given):
   row i, column j is the derivative of component i with respect to coordinate j.
   q-derivatives are in tangent coordinates: column j is the rate of change when q moves as
   mbs_integrate_q(q, dq, 1) moves it with dq = h e_j, so quaternion and Cardan joints have
   nv of them.
   Differentiated: inertial forces, uniform and point gravity, host wrenches
   (mbs_set_body_wrench: world force and torque at a body point), line spring-dampers and
   joint spring-dampers, analytically. Force callbacks are differentiated by central
   differences of the callback's own forces alone (step 6e-6 in each tangent coordinate and
   6e-6 max(1, |v_j|) in each rate: about 1e-9 relative for a smooth force law; 4 nv more
   kinematics and callback runs per call). Not differentiated: time (a callback's t).
   Cut joints: mbs_forward_dynamics_derivatives differentiates the closed-loop dynamics in
   the independent coordinates of the current partition (columns of the dependent dofs zero,
   dqacc/dtau full; the constraint rows' slopes by central differences of the rows alone; a
   closed state required, MBS_ERR_STATE otherwise, and MBS_ERR_SINGULAR near a singular
   position: docs/api.md, "Derivatives and sensitivities of closed loops");
   mbs_inverse_dynamics_derivatives refuses them (MBS_ERR_STATE). Allocation-free; a failing
   callback is its MBS_ERR_CALLBACK with q and v as they were. */
/* Inverse dynamics tau = M qacc + c - f at the current (t, q, v) and the given qacc (nv x 1):
   dtau/dq, dtau/dv and dtau/dqacc = M. */
int mbs_inverse_dynamics_derivatives(mbs_data *d, const double *qacc, double *dtau_dq,
                                     double *dtau_dv, double *dtau_dqacc);
/* Forward dynamics at the current (t, q, v, tau) (qacc left as mbs_forward_dynamics leaves
   it): dqacc/dq = -M^-1 dtau/dq, dqacc/dv = -M^-1 dtau/dv at that qacc, dqacc/dtau = M^-1. */
int mbs_forward_dynamics_derivatives(mbs_data *d, double *dqacc_dq, double *dqacc_dv,
                                     double *dqacc_dtau);
/* The SIMD variant the derivative passes run: "avx512", "avx2", "sse2", "neon" or "scalar".
   Chosen once at start-up: the widest the build holds and the processor runs, or the one
   the environment variable MBS_SIMD names when it is built and the processor runs it.
   Every variant gives the same results (the scalar one is their reference). */
const char *mbs_simd_variant(void);
/* State-space model about the current (t, q, v, tau): dx/dt = A x + B dtau. A is nx x nx
   (row stride nx), B nx x nv (row stride nv, nullable); *nx = 2 nv for a tree, 2 ndof with
   closed loops, plus nux (mbs_model_nuser_states) with user states; the caller sizes A for
   nx_max x nx_max and B for nx_max x nv, nx_max = 2 nv + nux.
   Tree: x = (dq, dv), dq the tangent offset from the reference motion q*(t) through the
   current state (q = mbs_integrate_q(q*, dq, 1)), dv = v - v*; A = [T I; dqacc/dq
   dqacc/dv] with the analytic derivatives above, B = [0; M^-1]. T is zero except for
   quaternion joints in motion (-[w]x, their tangent frame turns with them).
   Closed loops: x = (du, du') of the independent coordinates u of the current partition
   (v indices flagged 0 by mbs_linearize_coordinates), the dependent ones following by
   closure; A and B from central differences of the loops' forward dynamics with the loops
   closed at every evaluation (steps 1e-5 in u, 1e-5 max(1, |u'|) in u'; B exact to
   rounding, the dynamics being linear in tau); the state is first closed as mbs_assemble
   would (q and v are then restored). qacc is left as mbs_forward_dynamics leaves it.
   User states x_user (mbs_add_user_states): x = (dq or du, dv or du', x_user), A and B by
   the central differences above with every coordinate of a tree independent, each user
   state perturbed by 1e-5 max(1, |x_j|): A includes dxdot/d(q, v, x_user) and the forces the
   functions apply from x_user, B's last rows dxdot/dtau (zero unless a function reads tau;
   B by central differences, step 1e-5 max(1, |tau_j|)). q, v, tau and the user states are
   as they were afterwards, bit for bit. */
int mbs_linearize(mbs_data *d, double *A, double *B, int *nx);
/* independent (nv x 1): 1 for the coordinates of x of mbs_linearize (all for a tree; the
   independent coordinates of the current partition with loops), in ascending order; *n
   receives their number ((nx - nux) / 2; the user states follow them in x). */
int mbs_linearize_coordinates(mbs_data *d, unsigned char *independent, int *n);
/* Eigenvalues eig_re + i eig_im of mbs_linearize's A (LAPACK dgeev, workspace taken at
   mbs_data_create). On entry *n is the capacity of eig_re and eig_im (2 nv + nux always
   suffices, nux the user states), MBS_ERR_ARG when smaller than nx; on return the number nx of eigenvalues,
   sorted by magnitude |lambda| (then by real part), a complex pair adjacent with its
   positive imaginary part first.
   A mode lambda = -zeta w_n +- i w_n sqrt(1 - zeta^2) has the natural frequency w_n =
   |lambda| rad/s and the damping ratio zeta = -Re(lambda) / |lambda|. A build without
   LAPACK (-Dlapack=disabled) returns MBS_ERR_STATE. */
int mbs_modes(mbs_data *d, double *eig_re, double *eig_im, int *n);
/* ---------------------------------------------------------------- user states in linearisation and sensitivities */
/* dx (nuser_states x 1): the sensitivities of the user states to parameter k (0..np-1) of a
   sensitivity run at the data's time (the run integrates y = [q; v; x]); nothing written
   for a model without user states. MBS_ERR_ARG for a NULL run or dx, or a bad k. */
int mbs_sens_get_user_states(const mbs_sens *s, int k, double *dx);

/* ======== NAMES BY THE RULE: mbs_<object>_<verb> for the calls named before it */
/* Each macro is the rule's name of an exported call whose first-wave name stays valid and
   is the symbol in libmbs (bindings such as Python's ctypes use those). */
#define mbs_body_def_default                  mbs_default_body_def
#define mbs_builder_add_body                  mbs_add_body
#define mbs_builder_add_contact               mbs_add_contact
#define mbs_builder_add_curve_joint           mbs_add_curve_joint
#define mbs_builder_add_event                 mbs_add_event
#define mbs_builder_add_force_callback        mbs_add_force_callback
#define mbs_builder_add_frame_force           mbs_add_frame_force
#define mbs_builder_add_joint                 mbs_add_joint
#define mbs_builder_add_joint_brake           mbs_add_joint_brake
#define mbs_builder_add_joint_coupling        mbs_add_joint_coupling
#define mbs_builder_add_joint_force           mbs_add_joint_force
#define mbs_builder_add_joint_friction        mbs_add_joint_friction
#define mbs_builder_add_joint_motion          mbs_add_joint_motion
#define mbs_builder_add_joint_spring_damper   mbs_add_joint_spring_damper
#define mbs_builder_add_joint_stop            mbs_add_joint_stop
#define mbs_builder_add_line_force            mbs_add_line_force
#define mbs_builder_add_line_force_two_masses mbs_add_line_force_two_masses
#define mbs_builder_add_reaction_friction     mbs_add_reaction_friction
#define mbs_builder_add_rotor                 mbs_add_rotor
#define mbs_builder_add_shape                 mbs_add_shape
#define mbs_builder_add_spring_damper         mbs_add_spring_damper
#define mbs_builder_add_user_constraint       mbs_add_user_constraint
#define mbs_builder_add_user_states           mbs_add_user_states
#define mbs_builder_add_visual                mbs_add_visual
#define mbs_builder_compile                   mbs_compile
#define mbs_builder_set_contact_pair          mbs_set_contact_pair
#define mbs_builder_set_joint_hold            mbs_set_joint_hold
#define mbs_builder_set_joint_start           mbs_set_joint_start
#define mbs_builder_set_node_start            mbs_set_node_start
#define mbs_builder_set_user_states_start     mbs_set_user_states_start
#define mbs_contact_params_default            mbs_default_contact_params
#define mbs_curve_joint_def_default           mbs_default_curve_joint_def
#define mbs_data_apply_body_wrench            mbs_apply_body_wrench
#define mbs_data_apply_generalized_force      mbs_apply_generalized_force
#define mbs_data_assemble                     mbs_assemble
#define mbs_data_bias_forces                  mbs_bias_forces
#define mbs_data_com                          mbs_com
#define mbs_data_constraint_info              mbs_constraint_info
#define mbs_data_contact_dissipated           mbs_contact_dissipated
#define mbs_data_contact_query                mbs_contact_query
#define mbs_data_curve_joint_contact          mbs_curve_joint_contact
#define mbs_data_cut_joint_closure            mbs_cut_joint_closure
#define mbs_data_cut_joint_closure_reason     mbs_cut_joint_closure_reason
#define mbs_data_energy                       mbs_energy
#define mbs_data_equilibrium                  mbs_equilibrium
#define mbs_data_forward_dynamics             mbs_forward_dynamics
#define mbs_data_forward_dynamics_derivatives mbs_forward_dynamics_derivatives
#define mbs_data_inverse_dynamics             mbs_inverse_dynamics
#define mbs_data_inverse_dynamics_actuated    mbs_inverse_dynamics_actuated
#define mbs_data_inverse_dynamics_derivatives mbs_inverse_dynamics_derivatives
#define mbs_data_linearize                    mbs_linearize
#define mbs_data_linearize_coordinates        mbs_linearize_coordinates
#define mbs_data_loop_newton_iterations       mbs_loop_newton_iterations
#define mbs_data_mass_matrix                  mbs_mass_matrix
#define mbs_data_mass_matrix_factor           mbs_mass_matrix_factor
#define mbs_data_mass_matrix_solve            mbs_mass_matrix_solve
#define mbs_data_modes                        mbs_modes
#define mbs_data_momentum                     mbs_momentum
#define mbs_data_point_bias_acceleration      mbs_point_bias_acceleration
#define mbs_data_point_jacobian               mbs_point_jacobian
#define mbs_data_set_body_wrench              mbs_set_body_wrench
#define mbs_data_set_brake_limit              mbs_set_brake_limit
#define mbs_data_set_frame_force              mbs_set_frame_force
#define mbs_data_solve_positions              mbs_solve_positions
#define mbs_data_user_states_derivative       mbs_user_states_derivative
#define mbs_frame_force_def_default           mbs_default_frame_force_def
#define mbs_joint_brake_def_default           mbs_default_joint_brake_def
#define mbs_joint_coupling_def_default        mbs_default_joint_coupling_def
#define mbs_joint_def_default                 mbs_default_joint_def
#define mbs_joint_friction_def_default        mbs_default_joint_friction_def
#define mbs_joint_stop_def_default            mbs_default_joint_stop_def
#define mbs_line_force_def_default            mbs_default_line_force_def
#define mbs_line_force_two_masses_def_default mbs_default_line_force_two_masses_def
#define mbs_load_options_default              mbs_default_load_options
#define mbs_model_contact_states_adr          mbs_contact_states_adr
#define mbs_model_difference_q                mbs_difference_q
#define mbs_model_integrate_q                 mbs_integrate_q
#define mbs_model_neutral_q                   mbs_neutral_q
#define mbs_model_normalize_q                 mbs_normalize_q
#define mbs_reaction_friction_def_default     mbs_default_reaction_friction_def
#define mbs_rotation_from_cardan              mbs_cardan_rot
#define mbs_rotor_def_default                 mbs_default_rotor_def
#define mbs_sens_def_default                  mbs_default_sens_def
#define mbs_shape_def_default                 mbs_default_shape_def
#define mbs_spring_damper_def_default         mbs_default_spring_damper_def
#define mbs_stepper_def_default               mbs_default_stepper_def
#define mbs_user_constraint_def_default       mbs_default_user_constraint_def
#define mbs_visual_def_default                mbs_default_visual_def

#if defined(__GNUC__) && !defined(MBS_NO_VISIBILITY)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* MBS_MBS_H */
