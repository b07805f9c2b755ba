/* Rotors on joints (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §10; MSL Rotor1D + Mounting1D + IdealGear, exact = true): a
 * 1-D inertia J about the unit axis n fixed in the housing H that turns, relative to H, with
 * ratio x the rate of one joint coordinate. Its absolute rate about n is
 *     w = n . omega_H + ratio qdot_j,          kinetic energy 1/2 J w^2,
 * its angular momentum J w n. Euler's equation for it gives (couplings.h) one inertial row
 * r = n . omega_H + ratio v_j of inertia J -- its acceleration is n . alpha_H + ratio qacc_j
 * exactly, since n turns with H and n . (omega_H x n) = 0 -- plus the gyroscopic torque
 * -J w (omega_H x n) on H, a force that depends on velocities only. The row's force F acts on
 * H as the torque F n (the bearing and the gear's support, Mounting1D) and on the joint
 * coordinate as ratio F (the gear). */
#include "core/builder.h"
#include "elements/couplings.h"

#include <stdio.h>

/* name NULL, joint -1, dof 0, inertia 0 (must be set), ratio 1, housing the world, axis z. */
mbs_rotor_def mbs_default_rotor_def(void)
{
    mbs_rotor_def def = {0};
    def.joint = -1;
    def.ratio = 1.0;
    def.housing = MBS_WORLD;
    v3_set(def.axis, 0.0, 0.0, 1.0);
    return def;
}

/* See couplings.h: inertia > 0 and finite. */
int mbs_rotor_inertia_check(char *err, const char *label, double inertia)
{
    if (!(fabs(inertia) <= MBS_MAX_VALUE) || !(inertia > 0.0))
        return mbs_errorf(err, MBS_ERR_ARG, "rotor %s: inertia must be > 0 and finite (got %g)",
                          label, inertia);
    return MBS_OK;
}

/* See couplings.h: ratio nonzero and finite. */
int mbs_rotor_ratio_check(char *err, const char *label, double ratio)
{
    if (!(fabs(ratio) <= MBS_MAX_VALUE) || ratio == 0.0)
        return mbs_errorf(err, MBS_ERR_ARG, "rotor %s: ratio must be nonzero and finite (got "
                          "%g)", label, ratio);
    return MBS_OK;
}

/* Validate a rotor def against the builder; MBS_OK or MBS_ERR_ARG with the message. */
static int check_rotor(mbs_builder *b, const mbs_rotor_def *def, const char *l)
{
    if (def->joint < 0 || def->joint >= b->njoint)
        return mbs_errorf(b->error, MBS_ERR_ARG, "rotor %s: unknown joint %d (0..%d)", l,
                          def->joint, b->njoint - 1);
    if (def->dof < 0)
        return mbs_errorf(b->error, MBS_ERR_ARG, "rotor %s: dof %d is negative", l, def->dof);
    int st = mbs_rotor_inertia_check(b->error, l, def->inertia);
    if (st == MBS_OK) st = mbs_rotor_ratio_check(b->error, l, def->ratio);
    if (st != MBS_OK) return st;
    if (def->housing < 0 || def->housing > b->nbody)
        return mbs_errorf(b->error, MBS_ERR_ARG, "rotor %s: unknown housing body %d", l,
                          def->housing);
    if (!mbs_all_bounded(def->axis, 3) || !(v3_norm(def->axis) > 1e-12))
        return mbs_errorf(b->error, MBS_ERR_ARG, "rotor %s: axis must be finite and nonzero", l);
    return MBS_OK;
}

/* See mbs.h: validated, stored with a unit axis; compile checks the joint kind and dof. */
static int add_rotor_impl(mbs_builder *b, const mbs_rotor_def *def)
{
    char l[96];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_rotor: def is NULL");
    if (def->name && def->name[0]) snprintf(l, sizeof l, "\"%s\"", def->name);
    else snprintf(l, sizeof l, "#%d", b->nrotor);
    const int st = check_rotor(b, def, l);
    if (st != MBS_OK) return st;
    if (mbs_builder_grow((void **)&b->rotors, &b->rotor_cap, b->nrotor + 1, sizeof *b->rotors))
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "rotor %s: out of memory", l);
    mbs_rotor_model r = {0};
    r.name = mbs_strdup_name(def->name);
    if (!r.name) return mbs_errorf(b->error, MBS_ERR_NOMEM, "rotor %s: out of memory", l);
    r.joint = def->joint, r.dof = def->dof, r.vindex = -1;
    r.inertia = def->inertia, r.ratio = def->ratio, r.housing = def->housing;
    v3_scale(r.axis, def->axis, 1.0 / v3_norm(def->axis));
    r.crow = -1;
    b->rotors[b->nrotor] = r;
    return b->nrotor++;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_rotor(mbs_builder *b, const mbs_rotor_def *def)
{
    return mbs_builder_note(b, "mbs_add_rotor", add_rotor_impl(b, def));
}

/* See couplings.h: row r = n . omega_H + ratio v_j, inertia J. */
void mbs_rotors_rows(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int i = 0; i < m->nrotor; ++i) {
        const mbs_rotor_model *R = &m->rotors[i];
        mbs_crow *r = &d->crow[R->crow];
        r->body[0] = R->housing == MBS_WORLD ? -1 : R->housing;
        r->body[1] = -1;
        for (int e = 0; e < 6; ++e) r->w[0][e] = r->w[1][e] = 0.0;
        v3_copy(r->w[0], R->axis);
        r->dof = R->vindex, r->coef = R->ratio;
        r->acc_vel = 0.0, r->target = 0.0, r->mass = R->inertia;
        r->native = R->native;
    }
}

/* See couplings.h: f_ext of H += -J w (omega_H x n), body coordinates. */
void mbs_rotors_gyroscopic(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int i = 0; i < m->nrotor; ++i) {
        const mbs_rotor_model *R = &m->rotors[i];
        if (R->housing == MBS_WORLD) continue;
        const double *om = d->vel + 6 * R->housing;
        const double w = v3_dot(R->axis, om) + R->ratio * d->v[R->vindex];
        double t[3];
        v3_cross(t, om, R->axis);
        double *f = d->f_ext + 6 * R->housing;
        for (int e = 0; e < 3; ++e) f[e] -= R->inertia * w * t[e];
    }
}

/* Number of rotors (MBS_ERR_ARG for NULL). */
int mbs_model_nrotor(const mbs_model *m) { return m ? m->nrotor : MBS_ERR_ARG; }
/* Number of nodes (MBS_ERR_ARG for NULL). */
int mbs_model_nnode(const mbs_model *m) { return m ? m->nnode : MBS_ERR_ARG; }
/* 1 when body is a node. */
int mbs_model_body_is_node(const mbs_model *m, int body)
{
    if (!m || body < 0 || body >= m->nbody) return MBS_ERR_ARG;
    return m->body_node[body] >= 0;
}
