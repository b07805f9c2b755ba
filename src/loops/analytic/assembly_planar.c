/* Planar assemblies JointRRR / JointRRP / JointRPP (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §7.2, Table 2; closure.h): a
 * loop whose joints all move in one plane (revolute axes along a normal n, prismatic axes
 * perpendicular to it), closed by a revolute or prismatic cut joint, with two more revolute or
 * prismatic joints as dependent coordinates.
 *
 * The three dependent joints cut the loop into three rigid segments. Starting from the one
 * holding the common ancestor (G), the loop reads J1 X1 J2 X2 J3 = T in planar transforms
 * (angle about n, in-plane offset): J the joints (a rotation x about the joint origin, or a
 * slide x along u), X1, X2 the segments between them, T the pose of J3's exit frame in J1's
 * entry frame (both on G). Shifted cyclically so that the prismatic joints come last (RRP) or
 * first after the revolute (RPP), it is solved in closed form:
 *   RRR  |d1 + R(psi) d2| = |pT| (the triangle of the three joint centres, law of cosines):
 *        psi = atan2(B, A) +- acos(K / rho), x2 = psi - phi1, x1 from the direction of pT;
 *   RRP  the slide direction e is known from the angles' sum, |c0 - x3 e| = |d1|: a circle
 *        cut by a line, x3 = c0.e +- sqrt(disc);
 *   RPP  x1 from the angles' sum, then a 2 x 2 linear system for the two slides.
 * Of the (up to) two roots the one nearest to the current coordinates is taken. */
#include "loops/analytic/closure.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-tree-slp-vectorize") /* as src/planar/: its inner loops */
#endif

#include <math.h>

#include "planar/planar.h"

#define PARALLEL_TOL 1e-12 /* |a x n| or |a . n| of unit axes taken as 0 (as src/planar/) */

/* Plane vectors and rotations as complex numbers: a rotation by angle t is e^{i t}. */
typedef struct cx {
    double re, im;
} cx;
static cx cx_of(double re, double im) { cx z = {re, im}; return z; }
static cx cx_mul(cx a, cx b) { return cx_of(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
/* a conj(b) */
static cx cx_mulc(cx a, cx b) { return cx_of(a.re * b.re + a.im * b.im, a.im * b.re - a.re * b.im); }
static cx cx_add(cx a, cx b) { return cx_of(a.re + b.re, a.im + b.im); }
static cx cx_sub(cx a, cx b) { return cx_of(a.re - b.re, a.im - b.im); }
static cx cx_scale(cx a, double s) { return cx_of(s * a.re, s * a.im); }
static double cx_dot(cx a, cx b) { return a.re * b.re + a.im * b.im; }
static double cx_cross(cx a, cx b) { return a.re * b.im - a.im * b.re; }
static double cx_abs2(cx a) { return cx_dot(a, a); }

/* A planar transform: the rotation a (unit), then the offset d. */
typedef struct pl2 {
    cx a, d;
} pl2;

/* A frame in the plane: origin and the direction of its f1 (unit), world plane basis. */
typedef struct fr2 {
    cx P, u;
} fr2;

/* Frame (origin p, direction g in body coordinates) of body b in the plane basis e. */
static fr2 frame2(const mbs_data *d, int b, const double p[3], const double g[3],
                  const double e[6])
{
    const mbs_pose *X = &d->x_world[b];
    double w[3], r[3];
    pose_apply(w, X, p);
    m3_mulv(r, X->R, g);
    fr2 f = {cx_of(v3_dot(w, e), v3_dot(w, e + 3)), cx_of(v3_dot(r, e), v3_dot(r, e + 3))};
    return f;
}

/* Frame H in frame F's basis. */
static pl2 rel2(fr2 F, fr2 H)
{
    pl2 o = {cx_mulc(H.u, F.u), cx_mulc(cx_sub(H.P, F.P), F.u)};
    return o;
}

/* a^-1. */
static pl2 inv2(pl2 a)
{
    pl2 o = {cx_of(a.a.re, -a.a.im), cx_scale(cx_mulc(a.d, a.a), -1.0)};
    return o;
}

/* Canonical RRR: up to 2 solutions; x[s][k] the joint rotations e^{i x}. The triangle of the
   three centres has sides |d1|, |d2|, |pT|: with psi the turn of d2 against d1,
   Re(conj(d1) e^{i psi} d2) = K = (|pT|^2 - |d1|^2 - |d2|^2) / 2, so
   e^{i psi} = d1 conj(d2) / rho (c +- i s), c = K / rho; then e^{i x1} turns w = d1 + e^{i psi}
   d2 onto pT, x2 = psi - phi1, x3 closes the angles. kappa = s (0: the triangle flat). */
static int solve_rrr(pl2 X1, pl2 X2, pl2 T, cx x[2][3], double *kappa)
{
    const double l1 = cx_abs2(X1.d), l2 = cx_abs2(X2.d), lt = cx_abs2(T.d), rho = sqrt(l1 * l2);
    const double K = 0.5 * (lt - l1 - l2);
    *kappa = 0.0;
    if (!(rho > 0.0) || !(fabs(K) <= rho) || !(lt > 0.0)) return 0;
    const double c = K / rho, sn = sqrt(1.0 - c * c);
    const cx base = cx_scale(cx_mulc(X1.d, X2.d), 1.0 / rho);
    for (int s = 0; s < 2; ++s) {
        const cx ep = cx_mul(base, cx_of(c, s ? -sn : sn));
        const cx w = cx_add(X1.d, cx_mul(ep, X2.d));
        x[s][0] = cx_scale(cx_mulc(T.d, w), 1.0 / lt);
        x[s][1] = cx_mulc(ep, X1.a);
        x[s][2] = cx_mulc(T.a, cx_mul(cx_mul(x[s][0], X1.a), cx_mul(x[s][1], X2.a)));
    }
    *kappa = sn;
    return 2;
}

/* Canonical RRP (slide u3 last): the slide direction e = aT u3 is known from the angles'
   sum, and |c0 - x3 e| = |d1| with c0 = pT - aT conj(a2) d2 (a circle cut by a line):
   x3 = c0.e +- sqrt(disc); kappa = sqrt(disc) / |d1| (0: the slide tangent to the circle). */
static int solve_rrp(pl2 X1, pl2 X2, pl2 T, cx u3, cx x[2][3], double xs[2], double *kappa)
{
    const double l1 = cx_abs2(X1.d);
    const cx a12 = cx_mulc(T.a, X2.a), e = cx_mul(T.a, u3);
    const cx c0 = cx_sub(T.d, cx_mul(a12, X2.d));
    const double ce = cx_dot(c0, e), disc = ce * ce - cx_abs2(c0) + l1;
    *kappa = 0.0;
    if (!(l1 > 0.0) || !(disc >= 0.0)) return 0;
    for (int s = 0; s < 2; ++s) {
        xs[s] = ce + (s ? -sqrt(disc) : sqrt(disc));
        x[s][0] = cx_scale(cx_mulc(cx_sub(c0, cx_scale(e, xs[s])), X1.d), 1.0 / l1);
        x[s][1] = cx_mulc(a12, cx_mul(x[s][0], X1.a));
        x[s][2] = cx_of(1.0, 0.0);
    }
    *kappa = sqrt(disc / l1);
    return 2;
}

/* Canonical RPP (revolute first): x1 from the angles' sum, then the two slides from
   x2 e2 + x3 e3 = g (Cramer); kappa = |e2 x e3| (0: the slides parallel). */
static int solve_rpp(pl2 X1, pl2 X2, pl2 T, cx u2, cx u3, cx x[2][3], double xs[2][2],
                     double *kappa)
{
    const cx r1 = cx_mulc(T.a, cx_mul(X1.a, X2.a)), r2 = cx_mul(r1, X1.a);
    const cx g = cx_sub(cx_sub(T.d, cx_mul(r1, X1.d)), cx_mul(r2, X2.d));
    const cx e2 = cx_mul(r2, u2), e3 = cx_mul(T.a, u3);
    const double det = cx_cross(e2, e3);
    *kappa = fabs(det);
    if (!(fabs(det) > 0.0)) return 0;
    x[0][0] = r1, x[0][1] = x[0][2] = cx_of(1.0, 0.0);
    xs[0][0] = cx_cross(g, e3) / det, xs[0][1] = cx_cross(e2, g) / det;
    return 1;
}

/* Roots of the chain via the canonical shift: for each root and chain joint, a rotation
   rot[s][i] (revolute) or a slide sl[s][i] (prismatic). */
static int chain_roots(const mbs_data *d, const mbs_assembly *a, cx rot[2][3], double sl[2][3],
                       double *kappa)
{
    double e[6];
    if (!d->closure->planar) { /* the plane basis in the world (3-D poses) */
        const mbs_pose *XA = &d->x_world[a->anc];
        m3_mulv(e, XA->R, a->e_anc);
        m3_mulv(e + 3, XA->R, a->e_anc + 3);
    }
    fr2 in[3], out[3];
    for (int i = 0; i < 3; ++i) {
        const mbs_planar_link *L = &a->link[i];
        if (d->closure->planar) { /* the planar path's frames */
            double P[2], u[2];
            mbs_closure_planar_frame(d, L, 0, P, u);
            in[i].P = cx_of(P[0], P[1]), in[i].u = cx_of(u[0], u[1]);
            mbs_closure_planar_frame(d, L, 1, P, u);
            out[i].P = cx_of(P[0], P[1]), out[i].u = cx_of(u[0], u[1]);
            continue;
        }
        in[i] = frame2(d, L->body_in, L->p_in, L->g_in, e);
        out[i] = frame2(d, L->body_out, L->p_out, L->g_out, e);
    }
    pl2 R[3];
    R[0] = rel2(out[0], in[1]);
    R[1] = rel2(out[1], in[2]);
    R[2] = inv2(rel2(in[0], out[2]));
    const int c = a->canon, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    const mbs_planar_link *L = a->link;
    const int np = L[0].prismatic + L[1].prismatic + L[2].prismatic;
    const pl2 T = inv2(R[c2]);
    cx y[2][3];
    double ys[2][2] = {{0, 0}, {0, 0}};
    int n;
    if (np == 0) n = solve_rrr(R[c], R[c1], T, y, kappa);
    else if (np == 1) {
        double x3[2];
        n = solve_rrp(R[c], R[c1], T, cx_of(L[c2].u[0], L[c2].u[1]), y, x3, kappa);
        for (int s = 0; s < n; ++s) ys[s][1] = x3[s];
    } else {
        n = solve_rpp(R[c], R[c1], T, cx_of(L[c1].u[0], L[c1].u[1]), cx_of(L[c2].u[0], L[c2].u[1]),
                      y, ys, kappa);
    }
    for (int s = 0; s < n; ++s)
        for (int k = 0; k < 3; ++k) {
            rot[s][(c + k) % 3] = y[s][k];
            sl[s][(c + k) % 3] = k == 0 ? 0.0 : ys[s][k - 1];
        }
    return n;
}

/* d - 2 pi round(d / 2 pi): the angle difference wrapped near (-pi, pi]. */
/* e^{i q} of the current coordinate q of revolute tree link L: on the planar path the
   rotation of its child's pose (computed at the current q: only this loop writes its
   coordinates), else by cos, sin. */
static cx current_turn(const mbs_data *d, const mbs_planar_link *L, double q)
{
    if (d->closure->planar) {
        const double *pose = d->planar->pose + 4 * d->model->joints[L->joint].child;
        return cx_of(pose[0], L->pl_s * pose[1]);
    }
    return cx_of(cos(q), sin(q));
}

/* The two tree joints' coordinates from the root nearest to the current ones: distances
   (q - q_cur) / scale for slides and the chord |e^{i q} - e^{i q_cur}| for angles (their
   difference, to third order); the angle then continued from the current one by the
   relative turn of the root taken. */
static int planar_position(mbs_data *d, const mbs_assembly *a, double *kappa)
{
    cx rot[2][3], rel[2][3];
    double sl[2][3];
    const int n = chain_roots(d, a, rot, sl, kappa);
    if (n == 0) return MBS_CLOSURE_DEFER;
    double best = INFINITY, cur[3] = {0, 0, 0};
    int sb = 0;
    for (int i = 0; i < 3; ++i) {
        const mbs_planar_link *L = &a->link[i];
        if (!L->tree) continue;
        cur[i] = d->q[d->model->joints[L->joint].qadr];
        if (L->prismatic) continue;
        const cx zc = current_turn(d, L, cur[i]);
        for (int s = 0; s < n; ++s) /* e^{i (q_s - q_cur)}, q_s = qsign x_s */
            rel[s][i] = cx_mulc(L->qsign > 0.0 ? rot[s][i] : cx_of(rot[s][i].re, -rot[s][i].im), zc);
    }
    for (int s = 0; s < n; ++s) {
        double dist = 0.0;
        for (int i = 0; i < 3; ++i) {
            const mbs_planar_link *L = &a->link[i];
            if (!L->tree) continue;
            if (L->prismatic) {
                const double e = (sl[s][i] - cur[i]) / a->scale;
                dist += e * e;
            } else {
                dist += 2.0 * (1.0 - rel[s][i].re); /* the chord squared */
            }
        }
        if (dist < best) best = dist, sb = s;
    }
    for (int i = 0; i < 3; ++i) {
        const mbs_planar_link *L = &a->link[i];
        if (!L->tree) continue;
        d->q[d->model->joints[L->joint].qadr] =
            L->prismatic ? sl[sb][i] : cur[i] + atan2(rel[sb][i].im, rel[sb][i].re);
    }
    return MBS_OK;
}

static const mbs_assembly_ops planar_ops = {planar_position};

/* ---------------------------------------------------------------- candidates */

/* World direction of axis a of frame f on body b at the neutral q. */
static void neutral_axis(const mbs_asm_loop *l, int b, const mbs_pose *f, const double a[3],
                         double out[3])
{
    double t[3];
    m3_mulv(t, f->R, a);
    m3_mulv(out, l->xw0[b].R, t);
}

/* 1 when joint j (its parent frame on body b) keeps the loop in the plane normal to n. */
static int in_plane(const mbs_asm_loop *l, const mbs_joint_model *j, int b, const double n[3])
{
    double aw[3], c[3];
    if (j->ops == &mbs_joint_fixed_ops) return 1;
    neutral_axis(l, b, &j->frame_parent, j->axis, aw);
    v3_cross(c, aw, n);
    if (j->ops == &mbs_joint_prismatic_ops) return fabs(v3_dot(aw, n)) <= PARALLEL_TOL;
    return (j->ops == &mbs_joint_revolute_ops || j->ops == &mbs_joint_planar_ops) &&
           v3_norm(c) <= PARALLEL_TOL;
}

/* The plane normal (world, neutral q): the cut's axis, or the first revolute's; 0 if none,
   or if some joint of the loop leaves that plane. */
static int loop_normal(const mbs_asm_loop *l, double n[3])
{
    const mbs_model *m = l->m;
    const mbs_joint_model *c = &m->joints[l->cut];
    int found = 0;
    if (c->ops == &mbs_joint_revolute_ops) neutral_axis(l, c->parent, &c->frame_parent, c->axis, n), found = 1;
    for (int i = 0; i < l->njoint && !found; ++i) {
        const mbs_joint_model *j = &m->joints[l->joint[i]];
        if (j->ops == &mbs_joint_revolute_ops)
            neutral_axis(l, m->bodies[j->child].parent, &j->frame_parent, j->axis, n), found = 1;
    }
    if (!found) return 0;
    v3_scale(n, n, 1.0 / v3_norm(n));
    if (!in_plane(l, c, c->parent, n)) return 0;
    for (int i = 0; i < l->njoint; ++i) {
        const mbs_joint_model *j = &m->joints[l->joint[i]];
        if (!in_plane(l, j, m->bodies[j->child].parent, n)) return 0;
    }
    return 1;
}

/* Frame f on body b: its normal (frame coordinates) and in-plane basis f1, f2 (frame
   coordinates; f2 = n x f1). */
static void frame_basis(const mbs_asm_loop *l, int b, const mbs_pose *f, const double n[3],
                        double nl[3], double basis[6])
{
    double t[3];
    m3_tmulv(t, l->xw0[b].R, n);
    m3_tmulv(nl, f->R, t);
    mbs_cut_perp(nl, basis, basis + 3);
}

/* Origin and f1 of frame f on body b in body coordinates. */
static void frame_point_dir(const mbs_asm_loop *l, int b, const mbs_pose *f, const double n[3],
                            double p[3], double g[3])
{
    double nl[3], basis[6];
    frame_basis(l, b, f, n, nl, basis);
    v3_copy(p, f->p);
    m3_mulv(g, f->R, basis);
}

/* Link of joint jid traversed forward (entry = its parent frame) or backward (entry = its
   child frame); tree 0 for the cut. */
static void make_link(const mbs_asm_loop *l, int jid, int forward, int tree, const double n[3],
                      mbs_planar_link *L)
{
    const mbs_joint_model *j = &l->m->joints[jid];
    const mbs_pose *fi = forward ? &j->frame_parent : &j->frame_child;
    const mbs_pose *fo = forward ? &j->frame_child : &j->frame_parent;
    double nl[3], b[6];
    memset(L, 0, sizeof *L);
    L->joint = jid, L->tree = tree;
    L->prismatic = j->ops == &mbs_joint_prismatic_ops;
    L->body_in = forward ? j->parent : j->child, L->body_out = forward ? j->child : j->parent;
    frame_point_dir(l, L->body_in, fi, n, L->p_in, L->g_in);
    frame_point_dir(l, L->body_out, fo, n, L->p_out, L->g_out);
    frame_basis(l, L->body_in, fi, n, nl, b);
    const double s = forward ? 1.0 : -1.0;
    L->qsign = s * (v3_dot(j->axis, nl) > 0.0 ? 1.0 : -1.0);
    L->u[0] = s * v3_dot(j->axis, b), L->u[1] = s * v3_dot(j->axis, b + 3);
}

/* The cut rows whose rates close the loop in the plane: a revolute cut's two force rows
   whose directions lie most in the plane (the third Fp axis most along n); a prismatic cut's
   force row across the slide most in the plane and its torque row most along n. */
static void plane_rows(const mbs_joint_model *c, const double nl[3], int row[3])
{
    int t = fabs(nl[1]) > fabs(nl[0]);
    t = fabs(nl[2]) > fabs(nl[t]) ? 2 : t;
    if (c->ops == &mbs_joint_revolute_ops) {
        row[0] = (t + 1) % 3, row[1] = (t + 2) % 3;
        if (row[0] > row[1]) row[0] = row[1], row[1] = (t + 1) % 3;
        return;
    }
    double u1[3], u2[3];
    mbs_cut_perp(c->axis, u1, u2);
    row[0] = fabs(v3_dot(u1, nl)) <= fabs(v3_dot(u2, nl)) ? 0 : 1;
    row[1] = 2 + t;
}

/* The chain from the segment holding the ancestor, for dependent path joints i0 < i1 (cycle
   positions: the cut 0, C side 1.., then the P side top-down; the ancestor between). */
static void make_chain(const mbs_asm_loop *l, int i0, int i1, const double n[3],
                       mbs_assembly *a)
{
    const int np = l->njoint - l->nc;
    int pos[2], idx[2] = {i0, i1};
    for (int k = 0; k < 2; ++k)
        pos[k] = idx[k] < l->nc ? 1 + idx[k] : 1 + l->nc + (np - 1 - (idx[k] - l->nc));
    if (pos[0] > pos[1]) {
        int t = idx[0];
        idx[0] = idx[1], idx[1] = t;
        t = pos[0], pos[0] = pos[1], pos[1] = t;
    }
    const double pa = l->nc + 0.5;
    int order[3]; /* -1: the cut, else a path index */
    if (pa < pos[0]) order[0] = idx[0], order[1] = idx[1], order[2] = -1;
    else if (pa < pos[1]) order[0] = idx[1], order[1] = -1, order[2] = idx[0];
    else order[0] = -1, order[1] = idx[0], order[2] = idx[1];
    for (int k = 0; k < 3; ++k) {
        if (order[k] < 0) make_link(l, l->cut, 1, 0, n, &a->link[k]);
        else make_link(l, l->joint[order[k]], l->side[order[k]] < 0, 1, n, &a->link[k]);
    }
}

/* The candidate for the dependent path joints i0, i1; 0 when it cannot work (no revolute,
   or two slides that stay parallel). */
static int planar_candidate(const mbs_asm_loop *l, int i0, int i1, const double n[3],
                            mbs_assembly *a)
{
    const mbs_model *m = l->m;
    const mbs_joint_model *c = &m->joints[l->cut];
    make_chain(l, i0, i1, n, a);
    int np = 0, first_p = -1, r = -1;
    for (int k = 0; k < 3; ++k) {
        if (a->link[k].prismatic) np++, first_p = first_p < 0 ? k : first_p;
        else r = k;
    }
    if (np == 3) return 0;
    if (np == 2) {
        const mbs_planar_link *p1 = &a->link[(r + 1) % 3], *p2 = &a->link[(r + 2) % 3];
        double w1[3], w2[3], t[3];
        const mbs_joint_model *j1 = &m->joints[p1->joint], *j2 = &m->joints[p2->joint];
        neutral_axis(l, j1->parent, &j1->frame_parent, j1->axis, w1);
        neutral_axis(l, j2->parent, &j2->frame_parent, j2->axis, w2);
        v3_cross(t, w1, w2);
        if (!(v3_norm(t) > 1e-9)) return 0;
        a->canon = r;
    } else {
        a->canon = np == 1 ? (first_p + 1) % 3 : 0;
    }
    static const char *const names[3] = {"JointRRR", "JointRRP", "JointRPP"};
    a->name = names[np];
    double nl[3], b[6], xp[3], xc[3], dx[3];
    frame_basis(l, c->parent, &c->frame_parent, n, nl, b);
    plane_rows(c, nl, a->row);
    pose_apply(xp, &l->xw0[c->parent], c->frame_parent.p);
    pose_apply(xc, &l->xw0[c->child], c->frame_child.p);
    v3_sub(dx, xc, xp);
    a->offset_n = v3_dot(dx, n);
    double na[3];
    m3_tmulv(na, l->xw0[l->A].R, n);
    mbs_cut_perp(na, a->e_anc, a->e_anc + 3);
    a->planar = 1;
    v3_copy(a->n0, n);
    for (int k = 0; k < 2; ++k) {
        const int i = k ? i1 : i0;
        mbs_asm_add_dofs(m, a, l->joint[i], -1, l->side[i]);
    }
    return 1;
}

/* See closure.h: pairs of revolute or prismatic path joints of a planar loop. */
int mbs_asm_planar_candidates(const mbs_asm_loop *l, mbs_asm_offer offer, void *ctx)
{
    const mbs_model *m = l->m;
    const mbs_joint_model *c = &m->joints[l->cut];
    double n[3];
    if (!mbs_asm_is_rp(c) || !loop_normal(l, n)) return MBS_OK;
    for (int i0 = 0; i0 < l->njoint; ++i0) {
        if (!mbs_asm_is_rp(&m->joints[l->joint[i0]])) continue;
        for (int i1 = i0 + 1; i1 < l->njoint; ++i1) {
            if (!mbs_asm_is_rp(&m->joints[l->joint[i1]])) continue;
            mbs_assembly a;
            memset(&a, 0, sizeof a);
            a.ops = &planar_ops, a.cut = l->cut, a.icut = l->icut, a.anc = l->A;
            a.j = a.k = a.spin = -1;
            a.scale = c->con_length;
            if (!planar_candidate(l, i0, i1, n, &a)) continue;
            const int st = offer(ctx, &a);
            if (st != MBS_OK) return st;
        }
    }
    return MBS_OK;
}
