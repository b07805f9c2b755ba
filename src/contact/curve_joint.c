/* The curve-curve contact joint (contact.h): its rows, the contact solve and its rate. */
#include "contact/contact.h"

#include <float.h>
#include <math.h>

#define SOLVE_MAXIT 40   /* Newton iterations of one contact solve */
#define SOLVE_TOL 1e-14  /* |g1| / length and |g2| at which it stops... */
#define SOLVE_ROUND 16.0 /* ... or at this many roundings of the points' coordinates */
#define SOLVE_LOOSE 1e-9 /* a Newton step at rounding level ends it with |g| below this */

/* aux layout: committed s1, s2; solved s1, s2; the pose generation they were solved at. */
enum { AUX_S = 0, AUX_SOLVED = 2, AUX_KEY = 4 };

/* A contact point in the world: position, unit tangent and normal, their derivatives along
   s, and |dp/ds|. */
typedef struct wpt {
    double P[3], T[3], N[3], dT[3], dN[3], speed;
} wpt;

/* The world frame F of curve i (0: on the parent) of joint j. */
static void curve_frame(const mbs_data *d, const mbs_joint_model *j, int i, mbs_pose *F)
{
    pose_mul(F, &d->x_world[i ? j->child : j->parent], i ? &j->frame_child : &j->frame_parent);
}

/* In-plane vector (x, y) of frame F in the world. */
static void plane_vec(const mbs_pose *F, const double v[2], double o[3])
{
    const double t[3] = {v[0], v[1], 0.0};
    m3_mulv(o, F->R, t);
}

/* Curve i of joint j at s in world frame F. */
static int world_pt(const mbs_joint_model *j, int i, const mbs_pose *F, double s, wpt *w)
{
    mbs_curve_pt c;
    const int st = mbs_curve_eval(&j->curve->c[i], s, &c);
    if (st != MBS_OK) return st;
    double p[3];
    plane_vec(F, c.p, p);
    v3_add(w->P, p, F->p);
    plane_vec(F, c.t, w->T), plane_vec(F, c.n, w->N);
    plane_vec(F, c.dt, w->dT), plane_vec(F, c.dn, w->dN);
    w->speed = c.speed;
    return MBS_OK;
}

/* The conditions g (points on the common normal of curve 1; atan2(N1 . T2, -N1 . N2)) and
   their Jacobian J (row-major 2 x 2) in (s1, s2). */
static void conditions(const wpt *a, const wpt *b, double g[2], double J[4])
{
    double D[3];
    v3_sub(D, b->P, a->P);
    const double y = v3_dot(a->N, b->T), x = -v3_dot(a->N, b->N), r2 = x * x + y * y;
    g[0] = v3_dot(D, a->T);
    g[1] = atan2(y, x);
    J[0] = -a->speed + v3_dot(D, a->dT);
    J[1] = b->speed * v3_dot(b->T, a->T);
    const double dy1 = v3_dot(a->dN, b->T), dy2 = v3_dot(a->N, b->dT);
    const double dx1 = -v3_dot(a->dN, b->N), dx2 = -v3_dot(a->N, b->dN);
    J[2] = (x * dy1 - y * dx1) / r2;
    J[3] = (x * dy2 - y * dx2) / r2;
}

/* 1 when g is zero to the rounding of the points (tolerances relative to the loop's length
   and the curves' sizes and positions: far from the origin rounding alone exceeds an absolute
   one); loose: to SOLVE_LOOSE, once Newton's steps are rounding themselves. */
static int converged(const mbs_joint_model *j, const wpt *a, const wpt *b, const double g[2],
                     int loose)
{
    const double len = j->con_length + j->curve->c[0].size + j->curve->c[1].size;
    const double rnd = SOLVE_ROUND * DBL_EPSILON;
    const double t1 = SOLVE_TOL * len + rnd * (v3_norm(a->P) + v3_norm(b->P));
    const double f = loose ? SOLVE_LOOSE / SOLVE_TOL : 1.0;
    return fabs(g[0]) <= f * t1 && fabs(g[1]) <= f * (SOLVE_TOL + rnd);
}

/* 1 when the step ds moves both parameters by no more than their rounding. */
static int step_rounds(const mbs_joint_model *j, const double s[2], const double ds[2])
{
    for (int i = 0; i < 2; ++i) {
        const double ref = fabs(s[i]) + j->curve->c[i].size + j->con_length;
        if (!(fabs(ds[i]) <= SOLVE_ROUND * DBL_EPSILON * ref)) return 0;
    }
    return 1;
}

/* Newton's method for s (2, from the committed values, each periodic curve's in its one
   period) at the data's poses; both contact points into a, b. MBS_OK or MBS_ERR_CONVERGENCE
   (MBS_ERR_CALLBACK, MBS_ERR_SINGULAR from a curve). */
static int solve(const mbs_data *d, const mbs_joint_model *j, double s[2], wpt *a, wpt *b)
{
    mbs_pose F[2];
    curve_frame(d, j, 0, &F[0]);
    curve_frame(d, j, 1, &F[1]);
    const double *aux = d->aux + j->auxadr;
    const mbs_curve_model *c = j->curve->c;
    s[0] = aux[AUX_S], s[1] = aux[AUX_S + 1];
    double ds[2] = {INFINITY, INFINITY};
    for (int it = 0; it <= SOLVE_MAXIT; ++it) {
        s[0] = mbs_curve_wrap(&c[0], s[0]), s[1] = mbs_curve_wrap(&c[1], s[1]);
        int st = world_pt(j, 0, &F[0], s[0], a);
        if (st == MBS_OK) st = world_pt(j, 1, &F[1], s[1], b);
        if (st != MBS_OK) return st;
        double g[2], J[4];
        conditions(a, b, g, J);
        if (converged(j, a, b, g, step_rounds(j, s, ds))) return MBS_OK;
        const double det = J[0] * J[3] - J[1] * J[2];
        if (it == SOLVE_MAXIT || !(fabs(det) > 0.0) || !isfinite(det)) break;
        ds[0] = -(J[3] * g[0] - J[1] * g[1]) / det;
        ds[1] = -(J[0] * g[1] - J[2] * g[0]) / det;
        s[0] += ds[0], s[1] += ds[1];
    }
    return MBS_ERR_CONVERGENCE;
}

/* The contact of joint j at the data's poses, solved once per pose computation (the last
   solution is kept in the joint's aux values with the pose generation: a cache of a function
   of the poses, so the const data is written there and only there). */
static int contact(const mbs_data *d, const mbs_joint_model *j, wpt *a, wpt *b)
{
    double *aux = (double *)(d->aux + j->auxadr), s[2];
    const double key = (double)d->kin_gen;
    const int st = aux[AUX_KEY] == key ? MBS_OK : solve(d, j, s, a, b);
    if (aux[AUX_KEY] == key) {
        mbs_pose F[2];
        curve_frame(d, j, 0, &F[0]);
        curve_frame(d, j, 1, &F[1]);
        int e = world_pt(j, 0, &F[0], aux[AUX_SOLVED], a);
        return e == MBS_OK ? world_pt(j, 1, &F[1], aux[AUX_SOLVED + 1], b) : e;
    }
    if (st == MBS_OK) aux[AUX_SOLVED] = s[0], aux[AUX_SOLVED + 1] = s[1], aux[AUX_KEY] = key;
    return st;
}

/* ds/dt from dg/dt = 0: J ds = -(the conditions' rates at fixed s), with the world
   velocities Va, Vb of the two bodies. */
static void contact_rate(const wpt *a, const wpt *b, const double Va[6], const double Vb[6],
                         double sd[2])
{
    double g[2], J[4], D[3], va[3], vb[3], c[3], wN[3], wT[3];
    conditions(a, b, g, J);
    v3_sub(D, b->P, a->P);
    v3_cross(va, Va, a->P), v3_add(va, va, Va + 3);
    v3_cross(vb, Vb, b->P), v3_add(vb, vb, Vb + 3);
    v3_sub(c, vb, va);
    v3_cross(wT, Va, a->T);
    const double g1 = v3_dot(c, a->T) + v3_dot(D, wT);
    v3_cross(wN, Va, a->N);
    double bT[3], bN[3];
    v3_cross(bT, Vb, b->T), v3_cross(bN, Vb, b->N);
    const double yt = v3_dot(wN, b->T) + v3_dot(a->N, bT), xt = -(v3_dot(wN, b->N) + v3_dot(a->N, bN));
    const double y = v3_dot(a->N, b->T), x = -v3_dot(a->N, b->N);
    const double g2 = (x * yt - y * xt) / (x * x + y * y), det = J[0] * J[3] - J[1] * J[2];
    sd[0] = -(J[3] * g1 - J[1] * g2) / det;
    sd[1] = -(J[0] * g2 - J[2] * g1) / det;
}

/* See contact.h: gap (k 0), W = force N1 at P1, or slip (k 1), W = force T1 at P2: the slip
   is that of the child's contact point itself, so a gap left by the position closure (its
   tolerance) does not turn into a slip of gap x rate of turn, which over thousands of turns
   would add up. */
double mbs_curve_row(const mbs_data *d, const mbs_joint_model *j, int k, const double *Vp,
                     const double *Vc, double W[6], double Wd[6])
{
    wpt a, b;
    for (int e = 0; e < 6; ++e) W[e] = 0.0;
    if (contact(d, j, &a, &b) != MBS_OK) return NAN;
    const double *e = k == 0 ? a.N : a.T, *de = k == 0 ? a.dN : a.dT;
    const wpt *at = k == 0 ? &a : &b;
    double D[3];
    v3_sub(D, b.P, a.P);
    v3_cross(W, at->P, e);
    v3_copy(W + 3, e);
    if (Vp && Vc) {
        double sd[2], Pd[3], ed[3], t[3];
        const double *V = k == 0 ? Vp : Vc;
        contact_rate(&a, &b, Vp, Vc, sd);
        v3_cross(Pd, V, at->P), v3_add(Pd, Pd, V + 3), v3_axpy(Pd, at->speed * sd[k], at->T);
        v3_cross(ed, Vp, e), v3_axpy(ed, sd[0], de);
        v3_cross(Wd, Pd, e), v3_cross(t, at->P, ed), v3_add(Wd, Wd, t);
        v3_copy(Wd + 3, ed);
    }
    return k == 0 ? v3_dot(D, a.N) : 0.0;
}

/* See contact.h. */
void mbs_curve_commit(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int i = 0; i < m->njoint; ++i) {
        const mbs_joint_model *j = &m->joints[i];
        if (j->ops != &mbs_joint_curve_ops) continue;
        wpt a, b;
        double *aux = d->aux + j->auxadr;
        if (contact(d, j, &a, &b) == MBS_OK) aux[AUX_S] = aux[AUX_SOLVED], aux[AUX_S + 1] = aux[AUX_SOLVED + 1];
    }
}

/* Rows: gap, slip when rolling, then a planar joint's (its normal z, in-plane x and y). */
static int curve_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    int n = 0;
    for (int k = 0; k < 1 + (j->curve->rolling != 0); ++k, ++n) {
        memset(&rows[n], 0, sizeof rows[n]);
        rows[n].kind = MBS_CUT_CURVE;
        rows[n].target = (double)k;
        rows[n].scale = 1.0;
    }
    return n + mbs_joint_planar_ops.cut_rows(j, rows + n);
}

/* The start guesses, no solution cached. */
static void curve_aux_init(const mbs_joint_model *j, double *aux)
{
    aux[AUX_S] = aux[AUX_SOLVED] = j->curve->s0[0];
    aux[AUX_S + 1] = aux[AUX_SOLVED + 1] = j->curve->s0[1];
    aux[AUX_KEY] = -1.0;
}

const mbs_joint_ops mbs_joint_curve_ops = {
    .name = "curve",
    .nq = 0,
    .nv = 0,
    .naux = 5,
    .aux_init = curve_aux_init,
    .cut_rows = curve_cut_rows,
};

/* See mbs.h: solved at the data's poses (kinematics computed here). */
int mbs_curve_joint_contact(mbs_data *d, int joint, double s[2], double point[3],
                            double normal[3])
{
    if (!d) return MBS_ERR_ARG;
    const mbs_model *m = d->model;
    char buf[96];
    if (joint < 0 || joint >= m->njoint || m->joints[joint].ops != &mbs_joint_curve_ops)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_curve_joint_contact: joint %d is not a curve "
                             "joint", joint);
    const mbs_joint_model *j = &m->joints[joint];
    mbs_kinematics_pos(d);
    wpt a, b;
    const int st = contact(d, j, &a, &b);
    if (st != MBS_OK) {
        const char *why = st == MBS_ERR_CALLBACK   ? "a user curve failed"
                          : st == MBS_ERR_SINGULAR ? "a curve's tangent is zero or not finite"
                                                   : "the curves have no common normal there";
        return MBS_DATA_FAIL(d, st, "curve joint %s: no contact point near s = (%g, %g): %s",
                             mbs_joint_label(m, joint, buf, (int)sizeof buf), d->aux[j->auxadr],
                             d->aux[j->auxadr + 1], why);
    }
    if (s) s[0] = d->aux[j->auxadr + AUX_SOLVED], s[1] = d->aux[j->auxadr + AUX_SOLVED + 1];
    if (point) v3_copy(point, a.P);
    if (normal) v3_copy(normal, a.N);
    return MBS_OK;
}
