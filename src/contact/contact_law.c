/* The contact element (shapes.h, mbs.h "shapes and unilateral contact"): broad and narrow
 * phase at the data's kinematics, then per touching slot the normal force of Hunt and
 * Crossley ("Coefficient of restitution interpreted as damping in vibroimpact", 1975)
 * F = k x^n (1 + c xd / v0), never pulling (c for the restitution e: contact_damping.c),
 * and the friction of a tangential spring-damper on the slip z since the anchor, limited to
 * the Coulomb cone. The slip z and the approach speed v0 are states of the element:
 * z' = vs while it sticks, z' = vs less its part leaving the cone while it slides (the
 * anchor follows), z relaxing to 0 with time constant TAU_FREE while the slot does not
 * touch; v0 is set where the contact starts (its event, below; until then the approach rate
 * of the moment). The last state integrates the dissipated power, so that kinetic plus
 * potential (gravity, k x^(n+1) / (n+1), kt |z|^2 / 2) plus dissipated energy stays. */
#include "contact/shapes.h"

#include <math.h>

#define V0_MIN 0.1    /* m/s: slower impacts and resting contact are damped as at this speed
                         (a bounded damping rate: about g c / V0_MIN when resting) */
#define TAU_FREE 1e-2 /* s: relaxation of the slip of a slot out of contact */

/* World velocity of the material point at world p of body. */
static void point_vel(const mbs_data *d, int body, const double p[3], double v[3])
{
    double bp[3], r[3], pos[3];
    if (body == MBS_WORLD) {
        v3_set(v, 0.0, 0.0, 0.0);
        return;
    }
    v3_sub(r, p, d->x_world[body].p);
    m3_tmulv(bp, d->x_world[body].R, r);
    mbs_point_state(d, body, bp, pos, v);
}

/* Apply a world force at world point p of body. */
static void push(mbs_data *d, int body, const double F[3], const double p[3])
{
    double bp[3], r[3];
    if (body == MBS_WORLD) return;
    v3_sub(r, p, d->x_world[body].p);
    m3_tmulv(bp, d->x_world[body].R, r);
    mbs_forces_add_world_wrench(d, body, F, NULL, bp);
}

/* One touching slot: force F on b, slip rate zd, dissipated power; x = states (z, v0). */
static double law(const mbs_contact_pair *q, const mbs_contact_pt *c, const double vr[3],
                  const double *x, double F[3], double zd[3])
{
    const mbs_contact_params *P = &q->par;
    const double pen = -c->gap, xd = -v3_dot(vr, c->n);
    const double v0 = fmax(x[3] > 0.0 ? x[3] : xd, V0_MIN); /* before its event: the rate now */
    const double el = P->stiffness * pow(pen, P->exponent);
    const double Fn = fmax(0.0, el * (1.0 + q->c * xd / v0));
    double zt[3], vs[3], Ft[3];
    v3_copy(zt, x), v3_axpy(zt, -v3_dot(x, c->n), c->n);
    v3_copy(vs, vr), v3_axpy(vs, -v3_dot(vr, c->n), c->n);
    v3_scale(Ft, zt, -P->tangent_stiffness), v3_axpy(Ft, -P->tangent_damping, vs);
    const double lim = P->friction * Fn, ft = v3_norm(Ft);
    v3_copy(zd, vs);
    if (ft > lim) { /* sliding: on the cone, the anchor follows the outward slip */
        v3_scale(Ft, Ft, ft > 0.0 ? lim / ft : 0.0);
        const double zn = v3_norm(zt), out = zn > 0.0 ? v3_dot(vs, zt) / zn : 0.0;
        if (out > 0.0) v3_axpy(zd, -out / zn, zt);
    }
    v3_scale(F, c->n, Fn), v3_add(F, F, Ft);
    return Fn * xd - v3_dot(Ft, vs) - el * xd - P->tangent_stiffness * v3_dot(x, zd);
}

/* Pair p of set s: its slots, forces, slip rates; returns its dissipated power. */
static double pair_apply(const mbs_force_model *f, mbs_data *d, int s, int p)
{
    const mbs_contact_model *cm = d->model->contact;
    const mbs_contact_pair *q = &cm->sets[s].pairs[p];
    mbs_contact_data *cd = d->contact;
    mbs_contact_pt *pt = cd->pt[s] + MBS_CONTACT_MAX_POINTS * p;
    double *force = cd->force[s] + 3 * MBS_CONTACT_MAX_POINTS * p, P = 0.0;
    const double *x = d->ux + f->uxadr + q->xadr;
    double *xd = d->uxdot + f->uxadr + q->xadr;
    const int touch = q->on && cd->hit[s][p];
    if (touch) mbs_collide(&cm->shapes[q->a], &cd->X[q->a], &cm->shapes[q->b], &cd->X[q->b], pt);
    for (int k = 0; k < q->npt; ++k, x += MBS_CONTACT_NX, xd += MBS_CONTACT_NX) {
        double *F = force + 3 * k, va[3], vb[3], vr[3];
        xd[3] = 0.0;
        v3_set(F, 0.0, 0.0, 0.0);
        if (!touch) pt[k].gap = INFINITY;
        if (!(pt[k].gap < 0.0)) { /* free: the slip relaxes */
            v3_scale(xd, x, -1.0 / TAU_FREE);
            P += q->par.tangent_stiffness * v3_dot(x, x) / TAU_FREE;
            continue;
        }
        point_vel(d, cm->shapes[q->a].body, pt[k].p, va);
        point_vel(d, cm->shapes[q->b].body, pt[k].p, vb);
        v3_sub(vr, vb, va);
        P += law(q, &pt[k], vr, x, F, xd);
        double Fa[3];
        v3_scale(Fa, F, -1.0);
        push(d, cm->shapes[q->b].body, F, pt[k].p);
        push(d, cm->shapes[q->a].body, Fa, pt[k].p);
    }
    return P;
}

/* The element's forces and state rates (the broad phase once, by the first element). */
static int contact_apply(const mbs_force_model *f, mbs_data *d)
{
    if (f->slot == 0) mbs_broad_phase(d);
    double P = 0.0;
    for (int p = 0; p < d->model->contact->sets[f->slot].npair; ++p) P += pair_apply(f, d, f->slot, p);
    d->uxdot[f->uxadr + f->nux - 1] = P;
    return MBS_OK;
}

/* World pose of shape i (the data's body poses). */
static void shape_pose(const mbs_data *d, int i, mbs_pose *X)
{
    const mbs_shape_model *s = &d->model->contact->shapes[i];
    if (s->body == MBS_WORLD) *X = s->pose;
    else pose_mul(X, &d->x_world[s->body], &s->pose);
}

/* The slots of pair q at the data's poses (the potential and the events). */
static void pair_points(const mbs_data *d, const mbs_contact_pair *q, mbs_contact_pt *pt)
{
    mbs_pose XA, XB;
    shape_pose(d, q->a, &XA), shape_pose(d, q->b, &XB);
    const mbs_contact_model *cm = d->model->contact;
    mbs_collide(&cm->shapes[q->a], &XA, &cm->shapes[q->b], &XB, pt);
}

/* k x^(n+1) / (n+1) of every touching slot and kt |z|^2 / 2 of every slip. */
static double contact_potential(const mbs_force_model *f, const mbs_data *d)
{
    const mbs_contact_set *set = &d->model->contact->sets[f->slot];
    double V = 0.0;
    for (int p = 0; p < set->npair; ++p) {
        const mbs_contact_pair *q = &set->pairs[p];
        const double *x = d->ux + f->uxadr + q->xadr;
        mbs_contact_pt pt[MBS_CONTACT_MAX_POINTS];
        if (q->on) pair_points(d, q, pt);
        for (int k = 0; k < q->npt; ++k, x += MBS_CONTACT_NX) {
            const double n1 = q->par.exponent + 1.0;
            if (q->on && pt[k].gap < 0.0) V += q->par.stiffness * pow(-pt[k].gap, n1) / n1;
            V += 0.5 * q->par.tangent_stiffness * v3_dot(x, x);
        }
    }
    return V;
}

const mbs_force_ops mbs_force_contact_ops = {
    .name = "contact",
    .apply = contact_apply,
    .potential = contact_potential,
};

/* See shapes.h: the smallest gap of the pair (1 when it is off). */
double mbs_contact_event_g(mbs_data *d, void *user)
{
    const mbs_contact_pair *q = user;
    if (!q->on) return 1.0;
    mbs_kinematics_pos(d);
    mbs_contact_pt pt[MBS_CONTACT_MAX_POINTS];
    pair_points(d, q, pt);
    double g = pt[0].gap;
    for (int k = 1; k < q->npt; ++k) g = fmin(g, pt[k].gap);
    return g;
}

/* See shapes.h: where the pair starts touching, every slot's approach speed becomes v0 and
   its slip 0 (its spring energy counted as dissipated). */
int mbs_contact_event_h(mbs_data *d, void *user)
{
    const mbs_contact_pair *q = user;
    const mbs_force_model *f = &d->model->forces[d->model->contact->sets[q->set].force];
    if (!q->on) return 0;
    const int start = mbs_contact_event_g(d, user) <= 0.0;
    mbs_kinematics(d);
    mbs_contact_pt pt[MBS_CONTACT_MAX_POINTS];
    pair_points(d, q, pt);
    double *x = d->ux + f->uxadr + q->xadr, *E = d->ux + f->uxadr + f->nux - 1;
    const mbs_contact_model *cm = d->model->contact;
    for (int k = 0; k < q->npt; ++k, x += MBS_CONTACT_NX) {
        double va[3], vb[3], vr[3];
        point_vel(d, cm->shapes[q->a].body, pt[k].p, va);
        point_vel(d, cm->shapes[q->b].body, pt[k].p, vb);
        v3_sub(vr, vb, va);
        x[3] = start ? fmax(0.0, -v3_dot(vr, pt[k].n)) : 0.0; /* 0 at its end */
        if (!start) continue;
        *E += 0.5 * q->par.tangent_stiffness * v3_dot(x, x);
        v3_set(x, 0.0, 0.0, 0.0);
    }
    return 0;
}
