/* Triple pendulum (as examples/triple_pendulum.c): three slender 0.5 m, 1 kg links on
 * revolute joints about y, gravity 9.81 m/s^2 along -z, released horizontally; no damping,
 * so the energy is conserved up to the integration error. */
#include "mechanisms.h"

#define NLINK 3
#define LENGTH 0.5
#define MASS 1.0

/* Three links in series. */
static int build(mbs_builder *b)
{
    static const char *const names[NLINK] = {"link1", "link2", "link3"};
    static const char *const joints[NLINK] = {"hinge1", "hinge2", "hinge3"};
    const double y[3] = {0, 1, 0}, com[3] = {0.5 * LENGTH, 0, 0};
    int parent = MBS_WORLD, st = MBS_OK;
    for (int i = 0; i < NLINK && st >= 0; ++i) {
        const double i_rod = MASS * LENGTH * LENGTH / 12.0;
        const mbs_body_def link = mech_body(names[i], MASS, com, 1e-4, i_rod, i_rod);
        const int body = mbs_add_body(b, &link);
        const double pos[3] = {parent == MBS_WORLD ? 0.0 : LENGTH, 0, 0};
        const mbs_joint_def hinge = mech_revolute(joints[i], parent, body, pos, y);
        st = body < 0 ? body : mbs_add_joint(b, &hinge);
        parent = body;
    }
    return st < 0 ? st : MBS_OK;
}

static const mech_point TRACK[] = {{"tip", "link3", {LENGTH, 0, 0}}, {NULL, NULL, {0}}};
static const char *const PLOT[] = {"q.hinge1", "q.hinge2", "q.hinge3", NULL};

const mech mech_triple_pendulum = {
    .name = "triple_pendulum",
    .title = "triple pendulum of slender rods, released horizontally, no damping",
    .source = "examples/triple_pendulum.c",
    .build = build,
    .t_end = 5.0,
    .stepper = MBS_STEP_RK4,
    .dt = 1e-3,
    .rtol = 1e-8,
    .atol = 1e-10,
    .energy = MECH_CONSERVATIVE,
    .energy_tol = 1e-6,
    .track = TRACK,
    .plot = PLOT,
};
