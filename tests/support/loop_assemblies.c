/* Mechanisms with the structure of each analytic assembly (see loop_assemblies.h). */
#include "loop_assemblies.h"

#include <math.h>
#include <string.h>

#define LA_PI 3.14159265358979323846
#define CRANK 0.3 /* crank length */

/* A body of mass m with its centre of mass at com and inertia m diag(0.01, 0.01, 0.01). */
static int add_body(mbs_builder *b, double x, double y, double z, double m)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = m;
    def.com[0] = x, def.com[1] = y, def.com[2] = z;
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = def.inertia[4] = def.inertia[8] = 0.01 * m;
    return mbs_add_body(b, &def);
}

/* A joint def with the parent frame at (x, y, z) and the given axis. */
static mbs_joint_def joint(mbs_joint_type type, int parent, int child, double x, double y,
                           double z, double ax, double ay, double az)
{
    const double p[3] = {x, y, z};
    mbs_joint_def j = lm_joint_at(type, parent, child, p, NULL, NULL);
    j.axis[0] = ax, j.axis[1] = ay, j.axis[2] = az;
    return j;
}

/* The crank (body[0], joint[0]). */
static int add_crank(mbs_builder *b, lm_mech *mech)
{
    const double g[3] = {0.0, -9.81, 0.0};
    int st = mbs_builder_set_gravity(b, g);
    st = lm_keep(st, mech->body[0] = lm_add_bar(b, CRANK, 1.0));
    mbs_joint_def j = joint(MBS_JOINT_REVOLUTE, MBS_WORLD, mech->body[0], 0, 0, 0, 0, 0, 1);
    j.state_priority = 1;
    return lm_keep(st, mech->joint[0] = lm_add_joint(b, mech, &j));
}

/* The rocker (body about world x at (0.6, -0.5, 0.3), tip 0.5 along its y) or the slider
   (block on a prismatic joint along x at (0.6, 0, 0.3)): body[1], joint[1]. */
static int add_follower(mbs_builder *b, lm_mech *mech, int slider)
{
    int st = mech->body[1] = slider ? lm_add_block(b, 0.8) : add_body(b, 0, 0.25, 0, 1.2);
    mbs_joint_def j = slider ? joint(MBS_JOINT_PRISMATIC, MBS_WORLD, st, 0.6, 0, 0.3, 1, 0, 0)
                             : joint(MBS_JOINT_REVOLUTE, MBS_WORLD, st, 0.6, -0.5, 0.3, 1, 0, 0);
    return lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &j));
}

/* The follower's end the loop closes at (its frame origin on the follower body). */
static void follower_tip(int slider, double p[3])
{
    p[0] = 0.0, p[1] = slider ? 0.0 : 0.5, p[2] = 0.0;
}

/* SSR/SSP: a distance joint from the crank tip to the follower's end. */
static int build_distance(mbs_builder *b, lm_mech *mech, int slider)
{
    int st = add_crank(b, mech);
    if (st >= 0) st = add_follower(b, mech, slider);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    j.parent = mech->body[0], j.child = mech->body[1], j.length = sqrt(0.18);
    j.frame_parent.pos[0] = CRANK;
    follower_tip(slider, j.frame_child.pos);
    return st < 0 ? st : lm_add_joint(b, mech, &j);
}

/* USR/USP/SSR with a rod body: the rod (body[2], joint[2] universal about z then y, or
   spherical) at the crank tip, sqrt(0.18) long along its x, closed by a spherical cut joint
   at its end. */
static int build_rod(mbs_builder *b, lm_mech *mech, int slider, mbs_joint_type pivot)
{
    int st = add_crank(b, mech);
    if (st >= 0) st = add_follower(b, mech, slider);
    st = lm_keep(st, mech->body[2] = lm_add_bar(b, sqrt(0.18), 0.5));
    mbs_joint_def j = joint(pivot, mech->body[0], mech->body[2], CRANK, 0, 0, 0, 0, 1);
    j.axis2[0] = 0.0, j.axis2[1] = 1.0;
    st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &j));
    mbs_joint_def c = joint(MBS_JOINT_SPHERICAL, mech->body[2], mech->body[1], sqrt(0.18), 0, 0,
                            0, 0, 1);
    c.cut = 1;
    follower_tip(slider, c.frame_child.pos);
    return st < 0 ? st : lm_add_joint(b, mech, &c);
}

/* UPS: universal (x then y) at (0.3, 0, 0.6), prismatic down (-z) to the lower body, whose
   origin meets the crank tip in a spherical cut joint (joint[1] universal, joint[2] slide). */
static int build_ups(mbs_builder *b, lm_mech *mech)
{
    int st = add_crank(b, mech);
    st = lm_keep(st, mech->body[1] = lm_add_block(b, 0.7));
    st = lm_keep(st, mech->body[2] = lm_add_block(b, 0.9));
    mbs_joint_def u = joint(MBS_JOINT_UNIVERSAL, MBS_WORLD, mech->body[1], CRANK, 0, 0.6, 1, 0, 0);
    u.axis2[0] = 0.0, u.axis2[1] = 1.0;
    st = lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &u));
    mbs_joint_def p = joint(MBS_JOINT_PRISMATIC, mech->body[1], mech->body[2], 0, 0, 0, 0, 0, -1);
    st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &p));
    mbs_joint_def c = joint(MBS_JOINT_SPHERICAL, mech->body[2], mech->body[0], 0, 0, 0, 0, 0, 1);
    c.cut = 1, c.frame_child.pos[0] = CRANK;
    return st < 0 ? st : lm_add_joint(b, mech, &c);
}

/* RPP (Scotch yoke): block (body[1]) on a revolute at the crank pin, yoke (body[2]) on a
   prismatic joint along world x, the block in the yoke's slot: a prismatic cut along y. */
static int build_yoke(mbs_builder *b, lm_mech *mech)
{
    int st = add_crank(b, mech);
    st = lm_keep(st, mech->body[1] = lm_add_block(b, 0.3));
    st = lm_keep(st, mech->body[2] = add_body(b, 0, 0.1, 0, 1.5));
    mbs_joint_def r = joint(MBS_JOINT_REVOLUTE, mech->body[0], mech->body[1], CRANK, 0, 0, 0, 0, 1);
    st = lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &r));
    mbs_joint_def p = joint(MBS_JOINT_PRISMATIC, MBS_WORLD, mech->body[2], 0, 0, 0, 1, 0, 0);
    st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &p));
    mbs_joint_def c = joint(MBS_JOINT_PRISMATIC, mech->body[2], mech->body[1], 0, 0, 0, 0, 1, 0);
    c.cut = 1;
    return st < 0 ? st : lm_add_joint(b, mech, &c);
}

int lm_build_assembly(lm_asm_kind kind, lm_mech *mech)
{
    lm_mech_init(mech);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    int st;
    switch (kind) {
    case LM_ASM_SSR: st = build_distance(b, mech, 0); break;
    case LM_ASM_SSP: st = build_distance(b, mech, 1); break;
    case LM_ASM_USR: st = build_rod(b, mech, 0, MBS_JOINT_UNIVERSAL); break;
    case LM_ASM_USP: st = build_rod(b, mech, 1, MBS_JOINT_UNIVERSAL); break;
    case LM_ASM_SSROD: st = build_rod(b, mech, 0, MBS_JOINT_SPHERICAL); break;
    case LM_ASM_UPS: st = build_ups(b, mech); break;
    default: st = build_yoke(b, mech); break;
    }
    return lm_finish(b, mech, st);
}

const char *lm_assembly_name(lm_asm_kind kind)
{
    static const char *const names[LM_ASM_COUNT] = {"JointSSR", "JointSSP", "JointUSR", "JointUSP",
                                                    "JointSSR", "JointUPS", "JointRPP"};
    return names[kind];
}

void lm_assembly_guess(lm_asm_kind kind, const lm_mech *mech, double th, double w, double dep,
                       mbs_data *d)
{
    const mbs_model *m = mech->model;
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    memset(v, 0, (size_t)mbs_model_nv(m) * sizeof(double));
    q[mbs_model_joint_qadr(m, mech->joint[0])] = th;
    v[mbs_model_joint_vadr(m, mech->joint[0])] = w;
    double *q1 = q + mbs_model_joint_qadr(m, mech->joint[1]);
    if (kind == LM_ASM_UPS) {
        q1[0] = q1[1] = dep;
        q[mbs_model_joint_qadr(m, mech->joint[2])] = 0.6 + dep;
        return;
    }
    if (kind == LM_ASM_RPP) {
        q1[0] = dep;
        q[mbs_model_joint_qadr(m, mech->joint[2])] = CRANK + dep;
        return;
    }
    q1[0] = dep; /* rocker angle or slide */
    if (kind == LM_ASM_SSR || kind == LM_ASM_SSP) return;
    double *q2 = q + mbs_model_joint_qadr(m, mech->joint[2]);
    if (kind == LM_ASM_SSROD) { /* -45 deg about y, plus dep about z */
        const double a = -0.125 * LA_PI, c = cos(0.5 * dep), s = sin(0.5 * dep);
        q2[0] = cos(a) * c, q2[1] = -sin(a) * s, q2[2] = sin(a) * c, q2[3] = cos(a) * s;
        v[mbs_model_joint_vadr(m, mech->joint[2])] = 0.7; /* spin about the rod */
    } else {
        q2[0] = dep, q2[1] = -0.25 * LA_PI + dep;
    }
}

/* ---------------------------------------------------------------- MSL Fourbar_analytic */

/* Frames.from_nxy(n_x, (0, 1, 0)) rows e_x, e_y, e_z (MSL), as in tools/msl_body_properties.py. */
static void from_nxy(const double nx[3], double T[9])
{
    double ny[3] = {0.0, 1.0, 0.0}, n = sqrt(nx[0] * nx[0] + nx[1] * nx[1] + nx[2] * nx[2]);
    double ex[3] = {nx[0] / n, nx[1] / n, nx[2] / n};
    double ez[3] = {ex[1] * ny[2] - ex[2] * ny[1], ex[2] * ny[0] - ex[0] * ny[2], ex[0] * ny[1] - ex[1] * ny[0]};
    if (ez[0] * ez[0] + ez[1] * ez[1] + ez[2] * ez[2] <= 1e-6) { /* n_x along y */
        ny[0] = fabs(ex[0]) > 1e-6 ? 0.0 : 1.0, ny[1] = fabs(ex[0]) > 1e-6 ? 1.0 : 0.0;
        ez[0] = ex[1] * ny[2] - ex[2] * ny[1], ez[1] = ex[2] * ny[0] - ex[0] * ny[2], ez[2] = ex[0] * ny[1] - ex[1] * ny[0];
    }
    n = sqrt(ez[0] * ez[0] + ez[1] * ez[1] + ez[2] * ez[2]);
    for (int i = 0; i < 3; ++i) T[i] = ex[i], T[6 + i] = ez[i] / n;
    T[3] = T[7] * T[2] - T[8] * T[1], T[4] = T[8] * T[0] - T[6] * T[2], T[5] = T[6] * T[1] - T[7] * T[0];
}

int lm_msl_part(mbs_builder *b, const double r[3], double w, int cylinder)
{
    double L = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), D[3], T[9];
    mbs_body_def def = mbs_default_body_def();
    if (cylinder) {
        double rad = 0.5 * w;
        def.mass = 7700.0 * LA_PI * L * rad * rad;
        D[0] = def.mass * rad * rad / 2.0;
        D[1] = D[2] = def.mass * (L * L + 3.0 * rad * rad) / 12.0;
    } else {
        def.mass = 7700.0 * L * w * w;
        D[0] = def.mass * (w * w + w * w) / 12.0;
        D[1] = D[2] = def.mass * (L * L + w * w) / 12.0;
    }
    for (int i = 0; i < 3; ++i) def.com[i] = 0.5 * r[i];
    from_nxy(r, T);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            def.inertia[3 * i + j] = T[i] * D[0] * T[j] + T[3 + i] * D[1] * T[3 + j] + T[6 + i] * D[2] * T[6 + j];
    return mbs_add_body(b, &def);
}

int lm_build_fourbar_analytic(lm_mech *mech)
{
    lm_mech_init(mech);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    const double g[3] = {0.0, -9.80665, 0.0}, r1[3] = {0.0, 0.5, 0.1}, r2[3] = {0.0, 0.2, 0.0};
    int st = mbs_builder_set_gravity(b, g);
    st = lm_keep(st, mech->body[0] = lm_msl_part(b, r1, 0.05, 1));
    st = lm_keep(st, mech->body[1] = lm_msl_part(b, r2, 0.05, 1));
    mbs_joint_def j = joint(MBS_JOINT_REVOLUTE, MBS_WORLD, mech->body[0], 0, 0, 0, 1, 0, 0);
    j.name = "j1", j.state_priority = 1;
    st = lm_keep(st, mech->joint[0] = lm_add_joint(b, mech, &j));
    j = joint(MBS_JOINT_PRISMATIC, MBS_WORLD, mech->body[1], 1.2, 0, 0, 1, 0, 0);
    j.name = "j2";
    st = lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &j));
    j = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    j.name = "rod", j.parent = mech->body[1], j.child = mech->body[0], j.length = sqrt(1.1);
    memcpy(j.frame_parent.pos, r2, sizeof r2);
    memcpy(j.frame_child.pos, r1, sizeof r1);
    st = lm_keep(st, lm_add_joint(b, mech, &j));
    return lm_finish(b, mech, st);
}

void lm_fourbar_analytic_start(const lm_mech *mech, mbs_data *d)
{
    mbs_data_q(d)[mbs_model_joint_qadr(mech->model, mech->joint[1])] = -0.2;
    mbs_data_v(d)[mbs_model_joint_vadr(mech->model, mech->joint[0])] = 5.235987755982989;
}
