/* Force elements behind a const ops table, one file per element kind in src/forces/.
 * Every element adds its spatial forces to data->f_ext (body coordinates, about the body
 * origin) and its generalized forces to data->gen_force. */
#ifndef MBS_FORCES_FORCE_H
#define MBS_FORCES_FORCE_H

#include "mbs/mbs.h"

typedef struct mbs_force_ops mbs_force_ops;

typedef struct mbs_force_model {
    const mbs_force_ops *ops;
    char *name;                    /* never NULL ("" if unnamed) */
    int body_a, body_b;            /* line forces */
    double point_a[3], point_b[3]; /* body coordinates */
    double stiffness, damping, rest;
    int joint, dof, vindex;        /* joint spring-damper: joint, dof, index in v and q */
    int qindex;
    mbs_force_callback fn;         /* callback element */
    void *user;
} mbs_force_model;

struct mbs_force_ops {
    const char *name;
    /* Add this element's forces at the data's current kinematics (mbs_kinematics done).
       Returns MBS_OK or a negative status with the data's error message set. */
    int (*apply)(const mbs_force_model *f, mbs_data *d);
    /* Potential energy stored in the element; NULL if it has none. */
    double (*potential)(const mbs_force_model *f, const mbs_data *d);
    /* Add the element's part of dtau/dq (tangent q) and dtau/dv, tau = M qacc + c - J^T f_ext
       - gen_force, into nv x nv row-major matrices of row stride ld (either NULL), after the
       forward pass of the derivatives (src/analysis/derivs.h has the world-frame columns).
       NULL: the element is differentiated by central differences of its own forces. */
    void (*derivatives)(const mbs_force_model *f, mbs_data *d, double *dtau_dq,
                        double *dtau_dv, int ld);
};

/* Zero f_ext and gen_force, then add gravity, host wrenches and every element. Needs
   the kinematics of the current q, v (mbs_kinematics). */
int mbs_forces_accumulate(mbs_data *d);
/* Potential energy of gravity plus every element that has one. */
double mbs_forces_potential(const mbs_data *d);

/* Add a world-frame force/torque acting at a point (body coordinates) of a body to f_ext. */
void mbs_forces_add_world_wrench(mbs_data *d, int body, const double force[3],
                                 const double torque[3], const double point[3]);

/* Ops tables of the element kinds (spring_damper.c, joint_spring_damper.c, callback.c). */
extern const mbs_force_ops mbs_force_spring_damper_ops;
extern const mbs_force_ops mbs_force_joint_spring_damper_ops;
extern const mbs_force_ops mbs_force_callback_ops;

#endif
