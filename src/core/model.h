/* The compiled model (immutable after mbs_compile) and the per-thread data.
 * Array sizes are given in brackets, MuJoCo style. */
#ifndef MBS_CORE_MODEL_H
#define MBS_CORE_MODEL_H

#include "mbs/mbs.h"
#include "core/spatial.h"
#include "core/joint.h"
#include "core/force.h"

#define MBS_ERROR_LEN 1024

/* The inertial couplings' part of the tree passes (src/elements/couplings.h), installed by
   compile when the model has coupling rows: ABA and RNEA reach it through this table, so the
   core passes do not depend on the elements above them. */
typedef struct mbs_coupling_hooks {
    /* After ABA: solve the non-native rows' forces, correct qacc and acc. */
    int (*aba_after)(mbs_data *d);
    /* Between RNEA's passes: subtract the rows' forces from d->f; returns their dof parts
       (nv, owned by the data), which the caller adds to tau. */
    const double *(*rnea_between)(mbs_data *d, const double *qacc);
} mbs_coupling_hooks;

typedef enum mbs_gravity_kind { MBS_GRAVITY_NONE, MBS_GRAVITY_UNIFORM, MBS_GRAVITY_POINT } mbs_gravity_kind;

/* One body of a compiled model. Body 0 is the world (mass 0, no joint). */
typedef struct mbs_body_model {
    int parent;          /* tree parent body; -1 for the world (first: the hot passes read it) */
    int joint;           /* tree joint from the parent into this body; -1 for the world */
    char *name;          /* never NULL ("" if unnamed) */
    double mass;
    double com[3];       /* body coordinates */
    double inertia[9];   /* about the com, body axes */
    mbs_rbi rbi;         /* spatial inertia about the body origin (RBDA eq. 2.63) */
} mbs_body_model;

struct mbs_model {
    int nbody;                /* bodies, world included */
    int njoint;               /* joints, automatic free joints and cut joints included */
    int nq, nv;               /* tree coordinates and velocities */
    int ncon;                 /* scalar constraint rows of all cut joints, then of the user
                                 constraints and couplings */
    int naux;                 /* per-data auxiliary values of joints (Cardan frames) */
    int nforce;               /* force elements */
    mbs_body_model *bodies;   /* [nbody] */
    mbs_joint_model *joints;  /* [njoint] */
    int ntree;                /* tree joints = nbody - 1 */
    int *tree;                /* [ntree] tree joint ids in topological order (parents first) */
    int *dof_parent;          /* [nv] nearest ancestor dof of each dof (-1 if none): the
                                 sparsity pattern of M (RBDA §6.5, lambda(i) < i) */
    int *dof_joint;           /* [nv] tree joint that owns each dof */
    mbs_force_model *forces;  /* [nforce] */
    struct mbs_planar *planar; /* planar description (src/planar/), NULL: the 3-D path */
    mbs_gravity_kind gravity_kind;
    double gravity[3];        /* uniform */
    double gravity_center[3]; /* point */
    double gravity_mu;        /* point */
    int nvisual;              /* visual shapes (drawing only) */
    mbs_visual_def *visuals;  /* [nvisual], name ("" if unnamed) and mesh owned */
    /* start values (src/api/start.c): where mbs_data_create puts the state */
    double *q_start;          /* [nq] neutral where no start value was given */
    double *v_start;          /* [nv] zero where none was given */
    unsigned char *hold;      /* [nv] 1: held at its value by mbs_assemble */
    int nhold;                /* number of held coordinates */

    /* Modelica modelling elements (src/elements/): inertial-coupling rows of point masses
       and rotors, rotors, nodes */
    int ncrow;                /* coupling rows (native ones included) */
    int ncrow_solve;          /* rows that are not native (solved after ABA) */
    const mbs_coupling_hooks *coupling_hooks; /* NULL when ncrow is 0 */
    int *crow_owner;          /* [ncrow] force element id, or -(rotor id + 1) */
    unsigned char *crow_native; /* [ncrow] 1: the row is taken inside ABA */
    int nrotor;
    struct mbs_rotor_model *rotors; /* [nrotor], names owned */
    int nnode;
    int *node_body;           /* [nnode] body id of each node */
    double *node_start;       /* [3 nnode] where Newton starts (mbs_set_node_start), NaN: none */
    int *body_node;           /* [nbody] node index of each body, -1 if not a node */
    int nnode_elem;
    int *node_elem;           /* [nnode_elem] line elements that touch a node */
    /* events, prescribed motions, friction, brakes and stops (src/events/events.h): their
       coordinate rows (numbered after the ncon cut-joint rows) and event functions; NULL
       when the model has none */
    struct mbs_events_model *ev;

    /* parameters changed after compile (src/model/params.c) */
    char error[MBS_ERROR_LEN];  /* message of the last failed parameter call */
    unsigned long param_rev;    /* counts successful parameter changes: a stepper restarts
                                   CVODE when it changed since its last step */
    unsigned long geom_rev;     /* counts changes of the geometry (src/model/params_geometry.c,
                                   sensitivity perturbations included): a data object that saw
                                   another value refreshes what it derived from it */

    /* loops closed in closed form (src/loops/analytic/): the assemblies compile found for every
       loop, NULL when the Newton strategy closes them */
    struct mbs_closure_model *closure;
    /* user state equations (src/ustates/): the states of every user-state element, laid
       out in element order */
    int nux;                    /* user states of all elements */
    double *ux_start;           /* [nux] start values (0 where none was given) */
    /* q-manifold (src/core/qmanifold.c): 1 when every coordinate is Euclidean with its q
       index equal to its v index, so q (+) dt v is q + dt v element by element */
    int q_flat;
    /* user constraints and joint couplings (src/loops/user_rows.c): their rows are the last
       ncon - ncon_cut of the ncon rows */
    int ncon_cut;               /* rows of the cut joints */
    int nuc;
    struct mbs_uc_model *uc;    /* [nuc] */
    int ncon_vel;               /* velocity-level rows among them */
    /* collision shapes and contact elements (src/contact/shapes.h); NULL without shapes */
    struct mbs_contact_model *contact;
    unsigned char *ux_quad;   /* [nux] 1: a user state no equation reads (a quadrature: a
                                 contact's dissipated energy), left out of RK4's stiffness
                                 estimate; NULL when there is none */
};

/* Host input wrench on one body, held until changed. */
typedef struct mbs_wrench_input {
    int set;
    double force[3], torque[3], point[3]; /* world force/torque at a body point (body coords) */
} mbs_wrench_input;

struct mbs_data {
    const mbs_model *model;
    char error[MBS_ERROR_LEN];
    double time;
    double *q;            /* [nq] */
    double *v;            /* [nv] */
    double *tau;          /* [nv] applied generalized forces (host input) */
    double *qacc;         /* [nv] from the last forward dynamics */
    double *lambda;       /* [ncon] cut-joint multipliers */
    double *aux;          /* [naux] joint auxiliary state (Cardan reference frames) */

    /* kinematics, filled by mbs_kinematics (src/core/kinematics.c) */
    mbs_pose *x_up;       /* [nbody] pose of body in its tree parent body (Plücker parent->body) */
    mbs_pose *x_world;    /* [nbody] pose of body in the world */
    double *S;            /* [6 nv] motion subspace columns in the owning body's coordinates */
    double *vel;          /* [6 nbody] spatial velocity of each body in body coordinates */
    double *cvel;         /* [6 nbody] velocity-product acceleration c_i = c_J + v_i x v_J */

    /* forces, filled by mbs_forces_accumulate (src/elements/forces.c) */
    double *f_ext;        /* [6 nbody] external spatial force on each body, body coordinates */
    double *gen_force;    /* [nv] generalized forces of force elements (tau excluded) */
    mbs_wrench_input *wrench_in; /* [nbody] host input wrenches */
    int wrenched;         /* 1 once a host wrench was set on this data (the planar path
                             scans them only then) */
    int in_callback;      /* while a force callback runs: its element index + 1 (apply_*
                             allowed, nested evaluation refused); 0 otherwise */

    /* algorithm scratch (src/core/), sized at creation */
    double *acc;          /* [6 nbody] spatial accelerations */
    double *f;            /* [6 nbody] spatial forces (RNEA) / bias forces (ABA) */
    double *IA;           /* [36 nbody] articulated inertias (row-major 6x6) */
    double *U;            /* [6 nv] U = IA S */
    double *Dinv;         /* [6 nv] inverse of D = S^T U per joint (nv_j x nv_j at 6 vadr) */
    double *u;            /* [nv] u = tau - S^T pA */
    mbs_rbi *Ic;          /* [nbody] composite inertias (CRBA, body coordinates) */
    double *Sw;           /* [6 nv] motion subspace columns in the root frame (CRBA) */
    int *root_body;       /* [nbody] first body below the world on the path to each body
                             (itself for a root; 0 for the world): the CRBA frame origin */
    double *Fw;           /* [6 nv] CRBA forces Ic S of each dof, root frame */
    unsigned char *crba_done; /* [nv] scratch of the CRBA row grouping (at creation) */
    double *p_root;       /* [3 nbody] body origin relative to its root body's, world axes */
    int *dof_depth;       /* [nv] number of ancestor dofs of each dof (dof_parent chain) */
    double *M;            /* [nv nv] mass matrix scratch (row-major) */
    double *work;         /* [max(6 nv, 36) + nv] general scratch */
    int callback_status;  /* return value of the force callback that failed last (> 0
                             recoverable, < 0 fatal); 0 after a callback that succeeded */

    /* closed loops (src/loops/loops_select.c): selection, partition and their workspace; NULL
       when the model has no cut-joint rows */
    struct mbs_loops *loops;
    /* the loop solver's notice that a coordinate row changed (installed with d->loops, so
       that the events need not call up into it): selection 1 when a row was enabled or
       disabled (a new selection), 0 when only its target moved (close again); NULL: none */
    void (*rows_changed)(mbs_data *d, int selection);
    /* planar path scratch (src/planar/), NULL when the model is not planar */
    struct mbs_planar_data *planar;

    /* Modelica modelling elements (src/elements/): NULL without rows and nodes */
    struct mbs_crow *crow;          /* [ncrow] rows at the last evaluation */
    double *cforce;                 /* [ncrow] row forces of the last forward dynamics */
    struct mbs_coupling_ws *cws;    /* solve, response and node workspace */
    /* analyses (src/analysis/analysis.h): workspace of the actuated inverse dynamics,
       equilibrium and position solving, sized at creation */
    struct mbs_analysis *analysis;
    /* events, motions, friction, stops (src/events/events.h): modes, row targets, counts;
       NULL when the model has none. lambda above then holds ncon + nqrow multipliers: the
       cut-joint rows', then the coordinate rows' (driving, friction and contact forces). */
    struct mbs_events_data *ev;
    /* the friction and brake elements' inputs and output by slot: the events' arrays, which
       decide the modes (src/events/); NULL without friction */
    const int *fric_mode;      /* [nfric] MBS_FRIC_* (force.h) */
    const double *fric_limit;  /* [nfric] brake: the host's sliding limit */
    double *fric_force;        /* [nfric] sliding force at the last force accumulation */
    /* host inputs of the two-frame forces (src/elements/frame_force.c) */
    double *force_in;     /* [6 nforce] force, torque of each element (used by frame forces,
                             initially their constant value) */
    unsigned long input_rev; /* counts mbs_set_frame_force calls: the CVODE kinds restart
                                when it changed since their last step */
    /* derivatives of the dynamics, linearisation and modes (src/derivatives/derivs.h): their
       workspace, sized at creation */
    struct mbs_derivs *derivs;
    /* analytic loop closure (src/loops/analytic/): its state and workspace, NULL when the model
       has none; kin_gen counts the pose computations (kinematics.c), so the closure can tell
       forward dynamics that the poses it left are those of q */
    struct mbs_closure_data *closure;
    unsigned long kin_gen;
    /* load-independent work since creation (mbs_data_work), each counter bumped in the layer
       that does the work; work_stop: the units (mbs_work_units) at which the current step
       must stop (mbs_stepper_def.max_work; 0: none) */
    mbs_work work_count;
    unsigned long work_stop;
    /* user state equations (src/ustates/): integrated with q and v by every stepper */
    double *ux;           /* [nux] the states (start: the model's start values) */
    double *uxdot;        /* [nux] their derivatives at the last evaluation of the force
                             elements (written by the elements' functions) */
    /* CRBA row groups (crba.c), fixed at creation: group k is crba_group[5k] = n (1..4)
       dofs crba_group[5k+1 .. 5k+n], each the dof_parent of the one before */
    int *crba_group;      /* [5 nv] */
    int crba_ngroup;
    /* geometry parameters (src/model/params_geometry.c): the model's geom_rev this data last
       derived from (mbs_check_state refreshes the constant subspaces, then calls geom_changed,
       which loops/ installs to rescale and reselect its rows; NULL without loops) */
    unsigned long geom_rev;
    void (*geom_changed)(mbs_data *d);
    /* contact workspace (src/contact/shapes.h); NULL without shapes */
    struct mbs_contact_data *contact;
};

/* Every array of struct mbs_data that mbs_data_create allocates itself (api/data.c): type,
   field, number of elements. One list, so that allocation, its check and free cannot drift
   (MuJoCo's MJDATA_POINTERS). The sizes name the creator's locals: nb = nbody, nv, nq, naux,
   nforce, nrow = cut-joint and coordinate rows, nwork = max(6 nv, 36) + nv + nrow + nq. The
   parts of other layers (loops, planar, couplings, events, analyses, derivatives, user states,
   closure) allocate their own workspaces. */
#define MBS_DATA_ARRAYS(X) \
    X(double, q, nq)                   \
    X(double, v, nv)                   \
    X(double, tau, nv)                 \
    X(double, qacc, nv)                \
    X(double, lambda, nrow)            \
    X(double, aux, naux)               \
    X(mbs_pose, x_up, nb)              \
    X(mbs_pose, x_world, nb)           \
    X(double, S, 6 * nv)               \
    X(double, vel, 6 * nb)             \
    X(double, cvel, 6 * nb)            \
    X(double, f_ext, 6 * nb)           \
    X(double, gen_force, nv)           \
    X(mbs_wrench_input, wrench_in, nb) \
    X(double, acc, 6 * nb)             \
    X(double, f, 6 * nb)               \
    X(double, IA, 36 * nb)             \
    X(double, U, 6 * nv)               \
    X(double, Dinv, 6 * nv)            \
    X(double, u, nv)                   \
    X(mbs_rbi, Ic, nb)                 \
    X(double, Sw, 6 * nv)              \
    X(int, root_body, nb)              \
    X(int, dof_depth, nv)              \
    X(double, p_root, 3 * nb)          \
    X(double, Fw, 6 * nv)              \
    X(unsigned char, crba_done, nv)    \
    X(int, crba_group, 5 * nv)         \
    X(double, M, nv * nv)              \
    X(double, work, nwork)             \
    X(double, force_in, 6 * nforce)

/* Free the owned strings of n visual definitions and the array (src/api/visual.c). */
void mbs_visuals_free(mbs_visual_def *v, int n);
/* Deep copy of n visual definitions into *out (NULL when n is 0); MBS_OK or MBS_ERR_NOMEM. */
int mbs_visuals_copy(const mbs_visual_def *src, int n, mbs_visual_def **out);

#endif
