/* Planar assemblies JointRRR / JointRRP / JointRPP (seed 000 §7.2, Table 2; closure.h): a
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
#include "closure/closure.h"

#include <math.h>

#define PARALLEL_TOL 1e-12 /* |a x n| or |a . n| of unit axes taken as 0 (as src/planar/) */

/* A planar transform: rotation th about n, then the offset (x, y). */
typedef struct pl2 {
    double th, x, y;
} pl2;

/* a^-1. */
static pl2 pl_inv(pl2 a)
{
    const double c = cos(a.th), s = sin(a.th);
    pl2 o = {-a.th, -(c * a.x + s * a.y), -(-s * a.x + c * a.y)};
    return o;
}

/* Frame H relative to frame F in F's planar basis (bF, bH: each frame's f1, f2). */
static pl2 pl_rel(const mbs_pose *F, const double bF[6], const mbs_pose *H, const double bH[6])
{
    double d[3], p[3], h[3], hw[3];
    v3_sub(d, H->p, F->p);
    m3_tmulv(p, F->R, d);
    m3_mulv(hw, H->R, bH);
    m3_tmulv(h, F->R, hw);
    pl2 o = {atan2(v3_dot(h, bF + 3), v3_dot(h, bF)), v3_dot(p, bF), v3_dot(p, bF + 3)};
    return o;
}

static double ang2(double x, double y) { return atan2(y, x); }
static double cross2(double ax, double ay, double bx, double by) { return ax * by - ay * bx; }

/* Canonical RRR: up to 2 solutions x[s][3]; kappa. */
static int solve_rrr(pl2 X1, pl2 X2, pl2 T, double x[2][3], double *kappa)
{
    const double A = X1.x * X2.x + X1.y * X2.y, B = -cross2(X1.x, X1.y, X2.x, X2.y);
    const double l1 = hypot(X1.x, X1.y), l2 = hypot(X2.x, X2.y), lt = hypot(T.x, T.y);
    const double K = 0.5 * (lt * lt - l1 * l1 - l2 * l2), rho = l1 * l2;
    *kappa = 0.0;
    if (!(rho > 0.0) || !(fabs(K) <= rho)) return 0;
    const double c = K / rho, psi0 = ang2(A, B), ac = acos(c);
    for (int s = 0; s < 2; ++s) {
        const double psi = psi0 + (s ? -ac : ac), cp = cos(psi), sp = sin(psi);
        const double wx = X1.x + cp * X2.x - sp * X2.y, wy = X1.y + sp * X2.x + cp * X2.y;
        x[s][1] = psi - X1.th;
        x[s][0] = ang2(T.x, T.y) - ang2(wx, wy);
        x[s][2] = T.th - x[s][0] - X1.th - x[s][1] - X2.th;
    }
    *kappa = sqrt(1.0 - c * c); /* 0 when the triangle is flat: stretched or folded */
    return 2;
}

/* Canonical RRP (slide u3 last). */
static int solve_rrp(pl2 X1, pl2 X2, pl2 T, const double u3[2], double x[2][3], double *kappa)
{
    const double l1 = hypot(X1.x, X1.y);
    const double ca = cos(T.th - X2.th), sa = sin(T.th - X2.th), ct = cos(T.th), st = sin(T.th);
    const double c0x = T.x - (ca * X2.x - sa * X2.y), c0y = T.y - (sa * X2.x + ca * X2.y);
    const double ex = ct * u3[0] - st * u3[1], ey = st * u3[0] + ct * u3[1];
    const double ce = c0x * ex + c0y * ey, disc = ce * ce - (c0x * c0x + c0y * c0y) + l1 * l1;
    *kappa = 0.0;
    if (!(l1 > 0.0) || !(disc >= 0.0)) return 0;
    for (int s = 0; s < 2; ++s) {
        const double x3 = ce + (s ? -sqrt(disc) : sqrt(disc));
        x[s][2] = x3;
        x[s][0] = ang2(c0x - x3 * ex, c0y - x3 * ey) - ang2(X1.x, X1.y);
        x[s][1] = T.th - X2.th - X1.th - x[s][0];
    }
    *kappa = sqrt(disc) / l1;
    return 2;
}

/* Canonical RPP (revolute first). */
static int solve_rpp(pl2 X1, pl2 X2, pl2 T, const double u2[2], const double u3[2],
                     double x[2][3], double *kappa)
{
    const double x1 = T.th - X1.th - X2.th;
    const double c1 = cos(x1), s1 = sin(x1), c2 = cos(x1 + X1.th), s2 = sin(x1 + X1.th);
    const double ct = cos(T.th), st = sin(T.th);
    const double gx = T.x - (c1 * X1.x - s1 * X1.y) - (c2 * X2.x - s2 * X2.y);
    const double gy = T.y - (s1 * X1.x + c1 * X1.y) - (s2 * X2.x + c2 * X2.y);
    const double e2x = c2 * u2[0] - s2 * u2[1], e2y = s2 * u2[0] + c2 * u2[1];
    const double e3x = ct * u3[0] - st * u3[1], e3y = st * u3[0] + ct * u3[1];
    const double det = cross2(e2x, e2y, e3x, e3y);
    *kappa = fabs(det);
    if (!(fabs(det) > 0.0)) return 0;
    x[0][0] = x1;
    x[0][1] = cross2(gx, gy, e3x, e3y) / det;
    x[0][2] = cross2(e2x, e2y, gx, gy) / det;
    return 1;
}

/* Roots of the chain in chain order (J1, J2, J3), via the canonical shift; their number. */
static int chain_roots(const mbs_data *d, const mbs_assembly *a, double x[2][3], double *kappa)
{
    mbs_pose in[3], out[3];
    for (int i = 0; i < 3; ++i) {
        const mbs_planar_link *L = &a->link[i];
        mbs_asm_frame(d, L->body_in, &L->f_in, &in[i]);
        mbs_asm_frame(d, L->body_out, &L->f_out, &out[i]);
    }
    const mbs_planar_link *L = a->link;
    pl2 R[3];
    R[0] = pl_rel(&out[0], L[0].b_out, &in[1], L[1].b_in);
    R[1] = pl_rel(&out[1], L[1].b_out, &in[2], L[2].b_in);
    R[2] = pl_inv(pl_rel(&in[0], L[0].b_in, &out[2], L[2].b_out));
    const int c = a->canon, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    double y[2][3];
    const pl2 T = pl_inv(R[c2]);
    const int np = L[0].prismatic + L[1].prismatic + L[2].prismatic;
    const int n = np == 0   ? solve_rrr(R[c], R[c1], T, y, kappa)
                  : np == 1 ? solve_rrp(R[c], R[c1], T, L[c2].u, y, kappa)
                            : solve_rpp(R[c], R[c1], T, L[c1].u, L[c2].u, y, kappa);
    for (int s = 0; s < n; ++s)
        for (int k = 0; k < 3; ++k) x[s][(c + k) % 3] = y[s][k];
    return n;
}

/* The two tree joints' coordinates from the root nearest to the current ones. */
static int planar_position(mbs_data *d, const mbs_assembly *a, double *kappa)
{
    double x[2][3];
    const int n = chain_roots(d, a, x, kappa);
    if (n == 0) return MBS_CLOSURE_DEFER;
    double best = INFINITY, qn[3] = {0, 0, 0};
    for (int s = 0; s < n; ++s) {
        double dist = 0.0, qs[3] = {0, 0, 0};
        for (int i = 0; i < 3; ++i) {
            const mbs_planar_link *L = &a->link[i];
            if (!L->tree) continue;
            const double cur = d->q[d->model->joints[L->joint].qadr];
            const double e = L->prismatic ? (x[s][i] - cur) / a->scale
                                          : mbs_asm_wrap(L->qsign * x[s][i] - cur);
            qs[i] = L->prismatic ? x[s][i] : cur + e;
            dist += e * e;
        }
        if (dist < best) best = dist, memcpy(qn, qs, sizeof qn);
    }
    for (int i = 0; i < 3; ++i)
        if (a->link[i].tree) d->q[d->model->joints[a->link[i].joint].qadr] = qn[i];
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

/* Frame f on body b: its normal (local) and in-plane basis f1, f2 (local). */
static void frame_basis(const mbs_asm_loop *l, int b, const mbs_pose *f, const double n[3],
                        double nl[3], double basis[6])
{
    double t[3];
    m3_tmulv(t, l->xw0[b].R, n);
    m3_tmulv(nl, f->R, t);
    mbs_cut_perp(nl, basis, basis + 3);
}

/* Link of joint jid traversed forward (entry = its parent frame) or backward (entry = its
   child frame); tree 0 for the cut. */
static void make_link(const mbs_asm_loop *l, int jid, int forward, int tree, const double n[3],
                      mbs_planar_link *L)
{
    const mbs_joint_model *j = &l->m->joints[jid];
    double nl[3], nout[3];
    memset(L, 0, sizeof *L);
    L->joint = jid, L->tree = tree;
    L->prismatic = j->ops == &mbs_joint_prismatic_ops;
    L->body_in = forward ? j->parent : j->child, L->body_out = forward ? j->child : j->parent;
    L->f_in = forward ? j->frame_parent : j->frame_child;
    L->f_out = forward ? j->frame_child : j->frame_parent;
    frame_basis(l, L->body_in, &L->f_in, n, nl, L->b_in);
    frame_basis(l, L->body_out, &L->f_out, n, nout, L->b_out);
    const double s = forward ? 1.0 : -1.0;
    L->qsign = s * (v3_dot(j->axis, nl) > 0.0 ? 1.0 : -1.0);
    L->u[0] = s * v3_dot(j->axis, L->b_in), L->u[1] = s * v3_dot(j->axis, L->b_in + 3);
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
        neutral_axis(l, p1->body_in, &p1->f_in, m->joints[p1->joint].axis, w1);
        neutral_axis(l, p2->body_in, &p2->f_in, m->joints[p2->joint].axis, w2);
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
    m3_tmulv(a->n_anc, l->xw0[l->A].R, n);
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
