/* Model queries and destroy. The model is immutable after mbs_compile. */
#include "core/internal.h"
#include "events/events.h"
#include "contact/shapes.h"
#include "loops/analytic/closure.h"
#include "planar/planar.h"
#include "elements/compile_elements.h"

#include <stdlib.h>
#include <string.h>

/* Free a model and everything it owns; NULL allowed. Tolerates a partly built model (arrays
   NULL, names NULL) so compile can use it to clean up after a failure. */
void mbs_model_destroy(mbs_model *m)
{
    if (!m) return;
    if (m->bodies)
        for (int i = 0; i < m->nbody; ++i) free(m->bodies[i].name);
    if (m->joints)
        for (int i = 0; i < m->njoint; ++i) free(m->joints[i].name), free(m->joints[i].curve);
    if (m->forces)
        for (int i = 0; i < m->nforce; ++i) free(m->forces[i].name);
    free(m->bodies);
    free(m->joints);
    free(m->tree);
    free(m->dof_parent);
    free(m->dof_joint);
    free(m->forces);
    mbs_visuals_free(m->visuals, m->nvisual);
    mbs_planar_free(m->planar);
    free(m->q_start);
    free(m->v_start);
    free(m->hold);
    free(m->ux_start);
    mbs_model_elements_free(m);
    mbs_events_model_free(m->ev);
    mbs_contact_model_free(m);
    mbs_closure_model_free(m->closure);
    free(m->uc);
    free(m);
}

/* Number of tree coordinates (MBS_ERR_ARG for NULL). */
int mbs_model_nq(const mbs_model *m) { return m ? m->nq : MBS_ERR_ARG; }
/* Number of tree velocities. */
int mbs_model_nv(const mbs_model *m) { return m ? m->nv : MBS_ERR_ARG; }
/* Number of bodies, world included. */
int mbs_model_nbody(const mbs_model *m) { return m ? m->nbody : MBS_ERR_ARG; }
/* Number of joints, automatic free joints and cut joints included. */
int mbs_model_njoint(const mbs_model *m) { return m ? m->njoint : MBS_ERR_ARG; }
/* Scalar constraint equations of all cut joints. */
int mbs_model_ncon(const mbs_model *m) { return m ? m->ncon : MBS_ERR_ARG; }
/* Number of force elements. */
int mbs_model_nforce(const mbs_model *m) { return m ? m->nforce : MBS_ERR_ARG; }

/* The joint with that id, or NULL for a NULL model or a bad id. */
static const mbs_joint_model *joint_at(const mbs_model *m, int joint)
{
    if (!m || joint < 0 || joint >= m->njoint) return NULL;
    return &m->joints[joint];
}

/* First index in q; -1 for a cut joint; MBS_ERR_ARG for a bad id. */
int mbs_model_joint_qadr(const mbs_model *m, int joint)
{
    const mbs_joint_model *j = joint_at(m, joint);
    return j ? (j->cut ? -1 : j->qadr) : MBS_ERR_ARG;
}

/* First index in v; -1 for a cut joint; MBS_ERR_ARG for a bad id. */
int mbs_model_joint_vadr(const mbs_model *m, int joint)
{
    const mbs_joint_model *j = joint_at(m, joint);
    return j ? (j->cut ? -1 : j->vadr) : MBS_ERR_ARG;
}

/* Number of coordinates of a joint (0 for a cut joint); MBS_ERR_ARG for a bad id. */
int mbs_model_joint_nq(const mbs_model *m, int joint)
{
    const mbs_joint_model *j = joint_at(m, joint);
    return j ? j->nq : MBS_ERR_ARG;
}

/* Number of velocities of a joint (0 for a cut joint); MBS_ERR_ARG for a bad id. */
int mbs_model_joint_nv(const mbs_model *m, int joint)
{
    const mbs_joint_model *j = joint_at(m, joint);
    return j ? j->nv : MBS_ERR_ARG;
}

/* 1 for a cut joint, 0 for a tree joint, MBS_ERR_ARG for a bad id. */
int mbs_model_joint_is_cut(const mbs_model *m, int joint)
{
    const mbs_joint_model *j = joint_at(m, joint);
    return j ? (j->cut ? 1 : 0) : MBS_ERR_ARG;
}

/* Id of the first body with that name; MBS_ERR_ARG for NULL, "" or no such body. */
int mbs_model_find_body(const mbs_model *m, const char *name)
{
    if (!m || !name || !name[0]) return MBS_ERR_ARG;
    for (int i = 0; i < m->nbody; ++i)
        if (strcmp(m->bodies[i].name, name) == 0) return i;
    return MBS_ERR_ARG;
}

/* Id of the first joint with that name; MBS_ERR_ARG for NULL, "" or no such joint. */
int mbs_model_find_joint(const mbs_model *m, const char *name)
{
    if (!m || !name || !name[0]) return MBS_ERR_ARG;
    for (int i = 0; i < m->njoint; ++i)
        if (strcmp(m->joints[i].name, name) == 0) return i;
    return MBS_ERR_ARG;
}

/* Name of a body ("" if unnamed, NULL for a bad id). */
const char *mbs_model_body_name(const mbs_model *m, int body)
{
    if (!m || body < 0 || body >= m->nbody) return NULL;
    return m->bodies[body].name;
}

/* Name of a joint ("" if unnamed, NULL for a bad id). */
const char *mbs_model_joint_name(const mbs_model *m, int joint)
{
    const mbs_joint_model *j = joint_at(m, joint);
    return j ? j->name : NULL;
}

/* 1 when forward dynamics takes the planar path (src/planar/). */
int mbs_model_is_planar(const mbs_model *m) { return m ? m->planar != NULL : MBS_ERR_ARG; }
