/* Spatial assemblies (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §7.2-7.3, closure.h): JointSSR/SSP (a distance joint and one
 * revolute or prismatic joint), JointUSR/USP (a rod on a universal or spherical joint closed
 * by a spherical cut joint, and one revolute or prismatic joint) and JointUPS (a universal or
 * spherical joint, a prismatic joint below it, a spherical cut joint). */
#include "loops/analytic/closure.h"

#include <math.h>

/* x in the coordinates of pose X: R^T (x - p). */
static void pose_local(double o[3], const mbs_pose *X, const double x[3])
{
    double t[3];
    v3_sub(t, x, X->p);
    m3_tmulv(o, X->R, t);
}

/* World position of the origin of the cut joint's frame on side s (+1 child, -1 parent). */
static void cut_point(const mbs_data *d, const mbs_joint_model *c, int s, double x[3])
{
    if (s > 0) pose_apply(x, &d->x_world[c->child], c->frame_child.p);
    else pose_apply(x, &d->x_world[c->parent], c->frame_parent.p);
}

/* Roots q of |x_e(q) - x_o| = L for the revolute or prismatic joint j whose subtree carries
   x_e (world points at the current q). Revolute (Otter, Elmqvist, Mattsson 2003 §7.3): with r1 = x_o in Fp and r2
   = x_e in Fc coordinates, x_e = R(n, q) r2 in Fp, and |R r2 - r1|^2 = L^2 is
   A cos q + B sin q = C with A = r1.r2 - (n.r1)(n.r2), B = r1.(n x r2),
   C = (|r1|^2 + |r2|^2 - L^2) / 2 - (n.r1)(n.r2): q = atan2(B, A) +- acos(C / rho),
   rho = |(A, B)|; kappa = sqrt(1 - (C / rho)^2), the sine of the angle at the joint (0 with
   the rod stretched straight or folded). Prismatic: x_e = r2 + q n in Fp, a quadratic whose
   two roots differ by 2 sqrt(disc); kappa = sqrt(disc) / L = |cos| of the rod against n.
   Returns the number of roots (0: none real, kappa 0). */
static int length_roots(const mbs_data *d, const mbs_joint_model *j, const double xe[3],
                        const double xo[3], double L, double sol[2], double *kappa)
{
    mbs_pose Fp, Fc;
    double r1[3], r2[3], t[3];
    mbs_asm_frame(d, j->parent, &j->frame_parent, &Fp);
    mbs_asm_frame(d, j->child, &j->frame_child, &Fc);
    pose_local(r1, &Fp, xo);
    pose_local(r2, &Fc, xe);
    const double *n = j->axis;
    *kappa = 0.0;
    if (j->ops == &mbs_joint_prismatic_ops) {
        v3_sub(t, r2, r1);
        const double beta = v3_dot(n, t), disc = beta * beta - (v3_dot(t, t) - L * L);
        if (!(disc >= 0.0)) return 0;
        const double sq = sqrt(disc);
        sol[0] = -beta + sq, sol[1] = -beta - sq;
        *kappa = sq / L;
        return 2;
    }
    const double na = v3_dot(n, r1), nb = v3_dot(n, r2);
    v3_cross(t, n, r2);
    const double A = v3_dot(r1, r2) - na * nb, B = v3_dot(r1, t);
    const double C = 0.5 * (v3_dot(r1, r1) + v3_dot(r2, r2) - L * L) - na * nb;
    const double rho = hypot(A, B), scale = v3_norm(r1) * v3_norm(r2);
    if (!(rho > 1e-12 * scale) || !(fabs(C) <= rho)) return 0;
    const double c = C / rho, phi0 = atan2(B, A), psi = acos(c);
    sol[0] = phi0 + psi, sol[1] = phi0 - psi;
    *kappa = fmin(sqrt(1.0 - c * c), rho / scale);
    return 2;
}

/* The world motion D of joint j's subtree when its coordinate goes from q0 to q1. */
static void joint_delta(const mbs_data *d, const mbs_joint_model *j, double q0, double q1,
                        mbs_pose *D)
{
    mbs_pose Fp;
    double a[3], t[3];
    mbs_asm_frame(d, j->parent, &j->frame_parent, &Fp);
    m3_mulv(a, Fp.R, j->axis);
    if (j->ops == &mbs_joint_prismatic_ops) {
        m3_identity(D->R);
        v3_scale(D->p, a, q1 - q0);
        return;
    }
    m3_axis_angle(D->R, a, q1 - q0);
    m3_mulv(t, D->R, Fp.p);
    v3_sub(D->p, Fp.p, t);
}

/* The angles (t1, t2) of universal joint k with R(a, t1) R(b, t2) p = t (Paden-Kahan
   subproblem 2): z = R(b, t2) p must have b.z = b.p, a.z = a.t and |z| = |p|, so
   z = alpha a + beta b + gamma a x b with alpha, beta from the two linear conditions and
   gamma = +-sqrt(...) (two branches; the nearer one to q is taken); t2 turns p into z about
   b, t1 turns z into t about a. kappa: the branches' separation and how far p is from b and
   t from a (0: a direction along an axis, the other angle undetermined). */
static int universal_point(const mbs_joint_model *k, const double p[3], const double t[3],
                           double *q, double *kappa)
{
    const double *a = k->axis, *b = k->axis2;
    double axb[3], z[3], c[3];
    v3_cross(axb, a, b);
    const double c0 = v3_dot(a, b), s2 = v3_dot(axb, axb), at = v3_dot(a, t), bp = v3_dot(b, p);
    const double alpha = (at - c0 * bp) / s2, beta = (bp - c0 * at) / s2;
    double g2 = (v3_dot(p, p) - alpha * alpha - beta * beta - 2.0 * alpha * beta * c0) / s2;
    const double pn = v3_norm(p);
    if (g2 < 0.0 && g2 > -1e-14 * pn * pn / s2) g2 = 0.0;
    *kappa = 0.0;
    if (!(g2 >= 0.0)) return MBS_CLOSURE_DEFER;
    const double g = sqrt(g2);
    double best = INFINITY, sol[2] = {q[0], q[1]};
    for (int s = -1; s <= 1; s += 2) {
        for (int i = 0; i < 3; ++i) z[i] = alpha * a[i] + beta * b[i] + s * g * axb[i];
        v3_cross(c, p, z);
        const double t2 = atan2(v3_dot(b, c), v3_dot(p, z) - bp * v3_dot(b, z));
        v3_cross(c, z, t);
        const double t1 = atan2(v3_dot(a, c), v3_dot(z, t) - v3_dot(a, z) * at);
        const double d1 = mbs_asm_wrap(t1 - q[0]), d2 = mbs_asm_wrap(t2 - q[1]);
        if (d1 * d1 + d2 * d2 < best) best = d1 * d1 + d2 * d2, sol[0] = q[0] + d1, sol[1] = q[1] + d2;
    }
    q[0] = sol[0], q[1] = sol[1];
    v3_cross(c, p, b);
    const double kp = v3_norm(c) / pn;
    v3_cross(c, t, a);
    *kappa = fmin(fmin(g * sqrt(s2) / pn, kp), v3_norm(c) / v3_norm(t));
    return MBS_OK;
}

/* Turn spherical joint k so that its child frame carries p (child coordinates) along t (Fp
   coordinates), by exp(delta) on the right with delta perpendicular to the free spin axis
   e_spin (what holding the spin coordinate means on the quaternion chart): with p', t' the
   unit directions (t' in child coordinates), the axis w is perpendicular to e_spin and to
   p' - t' (a rotation keeps the component along its axis), the angle turns p' into t'
   about w. kappa: |e_spin x (p' - t')| / |p' - t'| (0: the needed turn is about e_spin). */
static int spherical_point(const mbs_joint_model *k, int spin, double *q, const double p[3],
                           const double t[3], double *kappa)
{
    mbs_pose X;
    double tc[3], pu[3], tu[3], dv[3], w[3], delta[3], e[3] = {0, 0, 0};
    k->ops->transform(k, NULL, q, &X);
    m3_tmulv(tc, X.R, t);
    v3_scale(pu, p, 1.0 / v3_norm(p));
    v3_scale(tu, tc, 1.0 / v3_norm(tc));
    v3_sub(dv, pu, tu);
    e[spin] = 1.0;
    v3_cross(w, e, dv);
    const double nd = v3_norm(dv), nw = v3_norm(w);
    *kappa = 1.0;
    if (nd <= 1e-15) return MBS_OK; /* aligned already */
    *kappa = nw / nd;
    if (!(*kappa > 1e-12)) return MBS_CLOSURE_DEFER;
    v3_scale(w, w, 1.0 / nw);
    double pp[3], tp[3], c[3];
    v3_copy(pp, pu), v3_axpy(pp, -v3_dot(w, pu), w);
    v3_copy(tp, tu), v3_axpy(tp, -v3_dot(w, tu), w);
    v3_cross(c, pp, tp);
    v3_scale(delta, w, atan2(v3_dot(w, c), v3_dot(pp, tp)));
    k->ops->integrate(k, q, delta, 1.0, q);
    k->ops->normalize(k, q);
    return MBS_OK;
}

/* Point the rod of joint k (universal or spherical): p in its child frame onto t in its
   parent frame. */
static int point_rod(mbs_data *d, const mbs_assembly *a, const double p[3], const double t[3],
                     double *kappa)
{
    const mbs_joint_model *k = &d->model->joints[a->k];
    double *q = d->q + k->qadr;
    return a->spin < 0 ? universal_point(k, p, t, q, kappa)
                       : spherical_point(k, a->spin, q, p, t, kappa);
}

/* ---------------------------------------------------------------- JointSSR / JointSSP */

/* The moving joint's coordinate from the rod length, nearest root. */
static int dist_position(mbs_data *d, const mbs_assembly *a, double *kappa)
{
    const mbs_joint_model *c = &d->model->joints[a->cut], *j = &d->model->joints[a->j];
    double xe[3], xo[3], sol[2];
    cut_point(d, c, a->side, xe);
    cut_point(d, c, -a->side, xo);
    const int n = length_roots(d, j, xe, xo, a->length, sol, kappa);
    if (n == 0) return MBS_CLOSURE_DEFER;
    double *q = d->q + j->qadr;
    mbs_asm_nearest(*q, sol, n, j->ops == &mbs_joint_revolute_ops, q);
    return MBS_OK;
}

static const mbs_assembly_ops dist_ops = {dist_position};

/* ---------------------------------------------------------------- JointUSR / JointUSP */

/* j from the rod length |pivot - target| = |rod|, then the rod's joint k points the rod. */
static int rod_position(mbs_data *d, const mbs_assembly *a, double *kappa)
{
    const mbs_model *m = d->model;
    const mbs_joint_model *c = &m->joints[a->cut], *j = &m->joints[a->j], *k = &m->joints[a->k];
    mbs_pose Fk, D, T;
    double y[3], sol[2], t[3], k1, k2;
    mbs_asm_frame(d, k->parent, &k->frame_parent, &Fk);
    cut_point(d, c, -a->side, y);
    const int n = a->j_moves_k ? length_roots(d, j, Fk.p, y, a->length, sol, &k1)
                               : length_roots(d, j, y, Fk.p, a->length, sol, &k1);
    *kappa = 0.0;
    if (n == 0) return MBS_CLOSURE_DEFER;
    double *q = d->q + j->qadr, q0 = *q;
    mbs_asm_nearest(q0, sol, n, j->ops == &mbs_joint_revolute_ops, q);
    joint_delta(d, j, q0, *q, &D);
    if (a->j_moves_k) {
        pose_mul(&T, &D, &Fk);
        Fk = T;
    } else {
        pose_apply(t, &D, y);
        v3_copy(y, t);
    }
    pose_local(t, &Fk, y);
    const int st = point_rod(d, a, a->rod, t, &k2);
    *kappa = fmin(k1, k2);
    return st;
}

static const mbs_assembly_ops rod_ops = {rod_position};

/* ---------------------------------------------------------------- JointUPS */

/* The slide s from |p0 + s u| = |t| (p0, u: the rod point at s = 0 and the slide axis in
   k's child frame, t the target in k's parent frame; nearest root, kappa = sqrt(disc) /
   |t|), then k points p0 + s u onto t. */
static int ups_position(mbs_data *d, const mbs_assembly *a, double *kappa)
{
    const mbs_model *m = d->model;
    const mbs_joint_model *c = &m->joints[a->cut], *j = &m->joints[a->j], *k = &m->joints[a->k];
    mbs_pose Fk, Fc, Fs;
    double x[3], y[3], p[3], u[3], au[3], t[3], sol[2], k2;
    mbs_asm_frame(d, k->parent, &k->frame_parent, &Fk);
    mbs_asm_frame(d, k->child, &k->frame_child, &Fc);
    mbs_asm_frame(d, j->parent, &j->frame_parent, &Fs);
    pose_apply(x, &d->x_world[j->child], a->rod);
    cut_point(d, c, -a->side, y);
    pose_local(p, &Fc, x);
    m3_mulv(au, Fs.R, j->axis);
    m3_tmulv(u, Fc.R, au);
    double *s = d->q + j->qadr;
    v3_axpy(p, -*s, u); /* p0 */
    pose_local(t, &Fk, y);
    const double beta = v3_dot(p, u), tt = v3_dot(t, t);
    const double disc = beta * beta - (v3_dot(p, p) - tt);
    *kappa = 0.0;
    if (!(disc >= 0.0)) return MBS_CLOSURE_DEFER;
    sol[0] = -beta + sqrt(disc), sol[1] = -beta - sqrt(disc);
    mbs_asm_nearest(*s, sol, 2, 0, s);
    v3_axpy(p, *s, u);
    const int st = point_rod(d, a, p, t, &k2);
    *kappa = fmin(sqrt(disc / tt), k2);
    return st;
}

static const mbs_assembly_ops ups_ops = {ups_position};

/* ---------------------------------------------------------------- candidates */

/* A blank candidate of the loop. */
static mbs_assembly blank(const mbs_asm_loop *l, const mbs_assembly_ops *ops, const char *name)
{
    mbs_assembly a;
    memset(&a, 0, sizeof a);
    a.ops = ops, a.name = name;
    a.cut = l->cut, a.icut = l->icut, a.anc = l->A;
    a.j = a.k = -1;
    a.spin = -1;
    a.scale = l->m->joints[l->cut].con_length;
    return a;
}

/* 1 for a universal or quaternion spherical joint (what can point a rod). */
static int pointing(const mbs_joint_model *k)
{
    return k->ops == &mbs_joint_universal_ops || k->ops == &mbs_joint_spherical_quat_ops;
}

/* Index of the largest |x_i|. */
static int argmax3(const double x[3])
{
    int i = fabs(x[1]) > fabs(x[0]);
    return fabs(x[2]) > fabs(x[i]) ? 2 : i;
}

/* JointSSR/SSP: every revolute or prismatic joint of the path. */
static int dist_candidates(const mbs_asm_loop *l, mbs_asm_offer offer, void *ctx)
{
    const mbs_model *m = l->m;
    for (int i = 0; i < l->njoint; ++i) {
        const mbs_joint_model *j = &m->joints[l->joint[i]];
        if (!mbs_asm_is_rp(j)) continue;
        const int prism = j->ops == &mbs_joint_prismatic_ops;
        mbs_assembly a = blank(l, &dist_ops, prism ? "JointSSP" : "JointSSR");
        a.j = l->joint[i], a.side = l->side[i], a.length = m->joints[l->cut].length;
        mbs_asm_add_dofs(m, &a, a.j, -1, l->side[i]);
        const int st = offer(ctx, &a);
        if (st != MBS_OK) return st;
    }
    return MBS_OK;
}

/* The rod on side s (its body's joint k points it, the cut's frame on it is the rod end):
   with every other revolute or prismatic joint of the path. */
static int rod_candidates(const mbs_asm_loop *l, int s, mbs_asm_offer offer, void *ctx)
{
    const mbs_model *m = l->m;
    const mbs_joint_model *c = &m->joints[l->cut];
    const int rho = s > 0 ? l->C : l->P;
    if (rho == l->A || !pointing(&m->joints[m->bodies[rho].joint])) return MBS_OK;
    const int kid = m->bodies[rho].joint;
    const mbs_joint_model *k = &m->joints[kid];
    double rod[3];
    pose_local(rod, &k->frame_child, s > 0 ? c->frame_child.p : c->frame_parent.p);
    const double len = v3_norm(rod);
    if (!(len > 1e-9 * c->con_length)) return MBS_OK;
    const int spin = k->ops == &mbs_joint_universal_ops ? -1 : argmax3(rod);
    for (int i = 0; i < l->njoint; ++i) {
        const mbs_joint_model *j = &m->joints[l->joint[i]];
        if (l->joint[i] == kid || !mbs_asm_is_rp(j)) continue;
        const int prism = j->ops == &mbs_joint_prismatic_ops;
        static const char *const names[4] = {"JointUSR", "JointUSP", "JointSSR", "JointSSP"};
        mbs_assembly a = blank(l, &rod_ops, names[2 * (spin >= 0) + prism]);
        a.j = l->joint[i], a.k = kid, a.side = s, a.spin = spin, a.length = len;
        a.j_moves_k = l->side[i] == s;
        v3_copy(a.rod, rod);
        mbs_asm_add_dofs(m, &a, kid, spin, s);
        mbs_asm_add_dofs(m, &a, a.j, -1, l->side[i]);
        a.row[0] = 0, a.row[1] = 1, a.row[2] = 2;
        const int st = offer(ctx, &a);
        if (st != MBS_OK) return st;
    }
    return MBS_OK;
}

/* JointUPS on side s: the slider body's joint is prismatic, its parent's points it. */
static int ups_candidate(const mbs_asm_loop *l, int s, mbs_asm_offer offer, void *ctx)
{
    const mbs_model *m = l->m;
    const mbs_joint_model *c = &m->joints[l->cut];
    const int rho2 = s > 0 ? l->C : l->P;
    if (rho2 == l->A) return MBS_OK;
    const int jid = m->bodies[rho2].joint, rho1 = m->bodies[rho2].parent;
    if (m->joints[jid].ops != &mbs_joint_prismatic_ops || rho1 == l->A || rho1 <= 0) return MBS_OK;
    const int kid = m->bodies[rho1].joint;
    const mbs_joint_model *k = &m->joints[kid], *j = &m->joints[jid];
    if (!pointing(k)) return MBS_OK;
    double u[3], a1[3];
    m3_mulv(a1, j->frame_parent.R, j->axis); /* slide axis in rho1, then in k's child frame */
    m3_tmulv(u, k->frame_child.R, a1);
    mbs_assembly a = blank(l, &ups_ops, k->ops == &mbs_joint_universal_ops ? "JointUPS" : "JointSPS");
    a.j = jid, a.k = kid, a.side = s;
    a.spin = k->ops == &mbs_joint_universal_ops ? -1 : argmax3(u);
    v3_copy(a.rod, s > 0 ? c->frame_child.p : c->frame_parent.p);
    mbs_asm_add_dofs(m, &a, kid, a.spin, s);
    mbs_asm_add_dofs(m, &a, jid, -1, s);
    a.row[0] = 0, a.row[1] = 1, a.row[2] = 2;
    return offer(ctx, &a);
}

/* See closure.h: a distance cut joint, or a spherical one. */
int mbs_asm_spatial_candidates(const mbs_asm_loop *l, mbs_asm_offer offer, void *ctx)
{
    const mbs_joint_model *c = &l->m->joints[l->cut];
    if (c->type == MBS_JOINT_DISTANCE) return dist_candidates(l, offer, ctx);
    if (c->type != MBS_JOINT_SPHERICAL) return MBS_OK;
    int st = MBS_OK;
    for (int s = -1; s <= 1 && st == MBS_OK; s += 2) {
        st = rod_candidates(l, s, offer, ctx);
        if (st == MBS_OK) st = ups_candidate(l, s, offer, ctx);
    }
    return st;
}

/* ---------------------------------------------------------------- shared helpers */

/* See closure.h. */
void mbs_asm_frame(const mbs_data *d, int body, const mbs_pose *f, mbs_pose *out)
{
    pose_mul(out, &d->x_world[body], f);
}

/* See closure.h. */
double mbs_asm_wrap(double a)
{
    const double tp = 6.283185307179586476925286766559;
    a = fmod(a, tp);
    if (a > 0.5 * tp) a -= tp;
    else if (a <= -0.5 * tp) a += tp;
    return a;
}

/* See closure.h. */
int mbs_asm_nearest(double cur, const double *cand, int n, int angle, double *out)
{
    int best = 0;
    double bd = INFINITY;
    for (int i = 0; i < n; ++i) {
        const double dd = angle ? fabs(mbs_asm_wrap(cand[i] - cur)) : fabs(cand[i] - cur);
        if (dd < bd) bd = dd, best = i;
    }
    *out = angle ? cur + mbs_asm_wrap(cand[best] - cur) : cand[best];
    return best;
}
