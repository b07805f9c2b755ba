/* The 6-axis arm of robot_arm_pd.c and robot_arm_task.c: base yaw about z, shoulder and
 * elbow about y, wrist roll about x, wrist pitch about y, flange roll about x; at q = 0 the
 * arm is stretched along +x from a 0.2 m column, gravity along -z (the default). */
#ifndef MBS_EXAMPLES_ROBOT_ARM_H
#define MBS_EXAMPLES_ROBOT_ARM_H

#include <stdio.h>
#include <string.h>

#include <mbs/mbs.h>

#define NJ 6

/* Link data: mass, com, principal inertia, joint axis and joint position on the parent. */
static const struct {
    double mass, com[3], inertia[3], axis[3], joint_pos[3];
} LINKS[NJ] = {
    {4.0, {0.0, 0.0, 0.10}, {0.020, 0.020, 0.010}, {0, 0, 1}, {0.0, 0.0, 0.0}},   /* base yaw */
    {3.0, {0.20, 0.0, 0.0}, {0.004, 0.045, 0.045}, {0, 1, 0}, {0.0, 0.0, 0.20}},  /* shoulder */
    {2.0, {0.175, 0.0, 0.0}, {0.002, 0.022, 0.022}, {0, 1, 0}, {0.40, 0.0, 0.0}}, /* elbow */
    {0.8, {0.05, 0.0, 0.0}, {0.002, 0.002, 0.002}, {1, 0, 0}, {0.35, 0.0, 0.0}},  /* wrist roll */
    {0.5, {0.04, 0.0, 0.0}, {0.002, 0.002, 0.002}, {0, 1, 0}, {0.10, 0.0, 0.0}},  /* wrist pitch */
    {0.3, {0.03, 0.0, 0.0}, {0.002, 0.002, 0.002}, {1, 0, 0}, {0.08, 0.0, 0.0}},  /* flange */
};

/* Add the arm's links and joints to b (bodies 1..6, joints 0..5); MBS_OK or a status. */
static inline int add_arm(mbs_builder *b)
{
    int parent = MBS_WORLD, status = MBS_OK;
    for (int i = 0; i < NJ && status >= 0; ++i) {
        mbs_body_def link = mbs_default_body_def();
        link.mass = LINKS[i].mass;
        memcpy(link.com, LINKS[i].com, sizeof link.com);
        memset(link.inertia, 0, sizeof link.inertia);
        for (int k = 0; k < 3; ++k) link.inertia[4 * k] = LINKS[i].inertia[k];
        int body = mbs_add_body(b, &link);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = parent;
        j.child = body;
        memcpy(j.axis, LINKS[i].axis, sizeof j.axis);
        memcpy(j.frame_parent.pos, LINKS[i].joint_pos, sizeof j.frame_parent.pos);
        status = body < 0 ? body : mbs_add_joint(b, &j);
        parent = body;
    }
    return status < 0 ? status : MBS_OK;
}

/* The arm's model, or NULL with a message on stderr. */
static inline mbs_model *build_arm(void)
{
    mbs_builder *b = mbs_builder_create();
    if (!b) return NULL;
    int status = add_arm(b);
    mbs_model *m = NULL;
    if (status >= 0) status = mbs_compile(b, &m);
    if (status < 0) fprintf(stderr, "build: %s: %s\n", mbs_status_name(status), mbs_builder_error(b));
    mbs_builder_destroy(b);
    return m;
}

#endif
