/* Closed-loop mechanisms for the loop tests and bench_loops (see loop_mechanisms.h). The
 * closed-form kinematics are derived in the comments of each function. */
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LM_PI 3.14159265358979323846
#define A02_MAX 64 /* largest N of lm_build_a02 */

/* ---------------------------------------------------------------- small vector algebra */

static void m3_mul(const double A[9], const double B[9], double C[9])
{
    double T[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            T[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    memcpy(C, T, sizeof T);
}

static void m3_vec(const double A[9], const double x[3], double y[3])
{
    double t[3];
    for (int i = 0; i < 3; ++i) t[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
    memcpy(y, t, sizeof t);
}

/* y = A^T x */
static void m3_tvec(const double A[9], const double x[3], double y[3])
{
    double t[3];
    for (int i = 0; i < 3; ++i) t[i] = A[i] * x[0] + A[3 + i] * x[1] + A[6 + i] * x[2];
    memcpy(y, t, sizeof t);
}

static void m3_identity(double R[9])
{
    memset(R, 0, 9 * sizeof(double));
    R[0] = R[4] = R[8] = 1.0;
}

static double v3_norm(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }
static double v3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void v3_cross(const double a[3], const double b[3], double c[3])
{
    double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(c, t, sizeof t);
}
static void v3_set(double v[3], double x, double y, double z) { v[0] = x, v[1] = y, v[2] = z; }

void lm_rot_z(double angle, double R[9])
{
    double c = cos(angle), s = sin(angle);
    m3_identity(R);
    R[0] = c, R[1] = -s, R[3] = s, R[4] = c;
}

void lm_rot_x(double angle, double R[9])
{
    double c = cos(angle), s = sin(angle);
    m3_identity(R);
    R[4] = c, R[5] = -s, R[7] = s, R[8] = c;
}

/* ---------------------------------------------------------------- mechanism bookkeeping */

void lm_mech_free(lm_mech *mech)
{
    mbs_model_destroy(mech->model);
    mech->model = NULL;
}

/* Reset mech before a build. */
void lm_mech_init(lm_mech *mech)
{
    memset(mech, 0, sizeof *mech);
    for (int i = 0; i < 8; ++i) mech->joint[i] = mech->body[i] = -1;
}

/* Add a joint, recording cut and distance joints for the residual; the id or a status. */
int lm_add_joint(mbs_builder *b, lm_mech *mech, const mbs_joint_def *def)
{
    int id = mbs_add_joint(b, def);
    if (id >= 0 && (def->cut || def->type == MBS_JOINT_DISTANCE)) {
        if (mech->ncut == LM_MAX_CUT) return MBS_ERR_ARG;
        mech->cut[mech->ncut] = *def;
        mech->cut[mech->ncut].name = NULL;
        mech->cut_id[mech->ncut++] = id;
    }
    return id;
}

static mbs_closure lm_closure_mode = MBS_CLOSURE_ANALYTIC;

void lm_set_closure(mbs_closure closure) { lm_closure_mode = closure; }

static mbs_planar_mode lm_planar_mode = MBS_PLANAR_AUTO;

void lm_set_planar(mbs_planar_mode mode) { lm_planar_mode = mode; }

/* Compile b into mech->model (keeping the builder's message on failure), destroy b. */
int lm_finish(mbs_builder *b, lm_mech *mech, int status)
{
    if (status >= 0) status = mbs_builder_set_closure(b, lm_closure_mode);
    if (status >= 0) status = mbs_builder_set_planar(b, lm_planar_mode);
    if (status >= 0) status = mbs_compile(b, &mech->model);
    if (status < 0) snprintf(mech->error, sizeof mech->error, "%s: %s", mbs_status_name(status),
                             mbs_builder_error(b));
    mbs_builder_destroy(b);
    return status < 0 ? status : MBS_OK;
}

/* Fold a creation result into a running status. */
int lm_keep(int status, int id) { return status < 0 ? status : (id < 0 ? id : status); }

/* A uniform bar of length L along body x from the origin: com (L/2, 0, 0), I_yy = I_zz =
   m L^2 / 12 and a thin-rod I_xx. */
int lm_add_bar(mbs_builder *b, double length, double mass)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = mass;
    v3_set(def.com, 0.5 * length, 0.0, 0.0);
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = mass * 1e-4;
    def.inertia[4] = def.inertia[8] = mass * length * length / 12.0;
    return mbs_add_body(b, &def);
}

/* A compact block: mass m at the origin, inertia m diag(1e-3). */
int lm_add_block(mbs_builder *b, double mass)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = mass;
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = def.inertia[4] = def.inertia[8] = mass * 1e-3;
    return mbs_add_body(b, &def);
}

/* Joint def: parent frame at ppos with rotation prot (NULL: identity), child frame at cpos. */
mbs_joint_def lm_joint_at(mbs_joint_type type, int parent, int child, const double ppos[3],
                              const double prot[9], const double cpos[3])
{
    mbs_joint_def j = mbs_default_joint_def(type);
    j.parent = parent;
    j.child = child;
    if (ppos) memcpy(j.frame_parent.pos, ppos, sizeof j.frame_parent.pos);
    if (prot) memcpy(j.frame_parent.rot, prot, sizeof j.frame_parent.rot);
    if (cpos) memcpy(j.frame_child.pos, cpos, sizeof j.frame_child.pos);
    return j;
}

/* ---------------------------------------------------------------- state access */

double lm_q(mbs_data *d, const lm_mech *mech, int j)
{
    return mbs_data_q(d)[mbs_model_joint_qadr(mech->model, j)];
}
double lm_v(mbs_data *d, const lm_mech *mech, int j)
{
    return mbs_data_v(d)[mbs_model_joint_vadr(mech->model, j)];
}
double lm_qacc(mbs_data *d, const lm_mech *mech, int j)
{
    return mbs_data_qacc(d)[mbs_model_joint_vadr(mech->model, j)];
}

/* ---------------------------------------------------------------- residual from body poses */

/* World pose of a frame fixed on body (the world included). */
static int frame_world(mbs_data *d, int body, const mbs_frame *f, double p[3], double R[9])
{
    double pb[3] = {0.0, 0.0, 0.0}, Rb[9];
    m3_identity(Rb);
    if (body != MBS_WORLD) {
        int rc = mbs_body_pose(d, body, pb, Rb);
        if (rc != MBS_OK) return rc;
    }
    m3_vec(Rb, f->pos, p);
    for (int i = 0; i < 3; ++i) p[i] += pb[i];
    m3_mul(Rb, f->rot, R);
    return MBS_OK;
}

/* Component of x across the unit axis a: |x - (a.x) a|. */
static double across(const double a[3], const double x[3])
{
    double t = v3_dot(a, x), r[3] = {x[0] - t * a[0], x[1] - t * a[1], x[2] - t * a[2]};
    return v3_norm(r);
}

/* |a x (R a)|: misalignment of the axis a after the rotation R. */
static double misalign(const double a[3], const double R[9])
{
    double ra[3], c[3];
    m3_vec(R, a, ra);
    v3_cross(a, ra, c);
    return v3_norm(c);
}

static double rot_dev(const double R[9])
{
    double e = 0.0;
    for (int i = 0; i < 9; ++i) e = fmax(e, fabs(R[i] - ((i % 4 == 0) ? 1.0 : 0.0)));
    return e;
}

/* Violation of one cut joint given its frames' relative position dp (parent frame coords)
   and rotation Rr (child frame in parent frame). */
static double cut_violation(const mbs_joint_def *c, const double dp[3], const double Rr[9])
{
    double a[3], a2[3], n = v3_norm(c->axis), n2 = v3_norm(c->axis2);
    for (int i = 0; i < 3; ++i) a[i] = c->axis[i] / n, a2[i] = c->axis2[i] / n2;
    switch (c->type) {
    case MBS_JOINT_REVOLUTE: return fmax(v3_norm(dp), misalign(a, Rr));
    case MBS_JOINT_SPHERICAL: return v3_norm(dp);
    case MBS_JOINT_FIXED: return fmax(v3_norm(dp), rot_dev(Rr));
    case MBS_JOINT_PRISMATIC: return fmax(across(a, dp), rot_dev(Rr));
    case MBS_JOINT_CYLINDRICAL: return fmax(across(a, dp), misalign(a, Rr));
    case MBS_JOINT_PLANAR: return fmax(fabs(v3_dot(a, dp)), misalign(a, Rr));
    case MBS_JOINT_DISTANCE: return fabs(v3_norm(dp) - c->length);
    case MBS_JOINT_UNIVERSAL: {
        double ra2[3];
        m3_vec(Rr, a2, ra2);
        return fmax(v3_norm(dp), fabs(v3_dot(a, ra2) - v3_dot(a, a2)));
    }
    default: return INFINITY;
    }
}

double lm_residual(const lm_mech *mech, mbs_data *d)
{
    double worst = 0.0;
    for (int k = 0; k < mech->ncut; ++k) {
        const mbs_joint_def *c = &mech->cut[k];
        double pp[3], Rp[9], pc[3], Rc[9], dw[3], dp[3], Rr[9], RpT[9];
        int rc = frame_world(d, c->parent, &c->frame_parent, pp, Rp);
        if (rc == MBS_OK) rc = frame_world(d, c->child, &c->frame_child, pc, Rc);
        if (rc != MBS_OK) return rc;
        for (int i = 0; i < 3; ++i) dw[i] = pc[i] - pp[i];
        m3_tvec(Rp, dw, dp);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) RpT[3 * i + j] = Rp[3 * j + i];
        m3_mul(RpT, Rc, Rr);
        worst = fmax(worst, cut_violation(c, dp, Rr));
    }
    return worst;
}

/* ---------------------------------------------------------------- planar four-bar */

lm_fourbar lm_default_fourbar(void)
{
    lm_fourbar p;
    memset(&p, 0, sizeof p);
    p.a = 0.2, p.b = 0.7, p.c = 0.5, p.d = 0.6, p.ground_angle = 0.3;
    p.mass[0] = 1.0, p.mass[1] = 1.5, p.mass[2] = 1.2;
    p.g = 9.81;
    p.cut = LM_CUT_B;
    p.cut_type = MBS_JOINT_REVOLUTE;
    return p;
}

/* Tree joints of the four-bar per cut choice (see lm_fourbar.cut); returns a status. */
static int fourbar_joints(const lm_fourbar *p, mbs_builder *b, lm_mech *mech, const double R[9])
{
    const int cr = mech->body[0], co = mech->body[1], ro = mech->body[2];
    double o4p[3] = {p->d * cos(p->ground_angle), p->d * sin(p->ground_angle), 0.0}, o4[3];
    double pa[3] = {p->a, 0, 0}, pb[3] = {p->b, 0, 0}, pc[3] = {p->c, 0, 0};
    m3_vec(R, o4p, o4);
    mbs_joint_def jc = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, cr, NULL, R, NULL);
    jc.state_priority = 1;
    mbs_joint_def j1, j2, cut;
    if (p->cut == LM_CUT_B) {
        j1 = lm_joint_at(MBS_JOINT_REVOLUTE, cr, co, pa, NULL, NULL);
        j2 = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, ro, o4, R, NULL);
        cut = lm_joint_at(p->cut_type, co, ro, pb, NULL, pc);
    } else if (p->cut == LM_CUT_A) {
        j2 = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, ro, o4, R, NULL);
        j1 = lm_joint_at(MBS_JOINT_REVOLUTE, ro, co, pc, NULL, pb);
        cut = lm_joint_at(p->cut_type, cr, co, pa, NULL, NULL);
    } else {
        j1 = lm_joint_at(MBS_JOINT_REVOLUTE, cr, co, pa, NULL, NULL);
        j2 = lm_joint_at(MBS_JOINT_REVOLUTE, co, ro, pb, NULL, pc);
        cut = lm_joint_at(p->cut_type, MBS_WORLD, ro, o4, R, NULL);
    }
    cut.cut = 1;
    int st = MBS_OK;
    st = lm_keep(st, mech->joint[0] = lm_add_joint(b, mech, &jc));
    if (p->cut == LM_CUT_A) {
        st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &j2));
        st = lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &j1));
    } else {
        st = lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &j1));
        st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &j2));
    }
    st = lm_keep(st, mech->joint[3] = lm_add_joint(b, mech, &cut));
    if (st >= 0 && p->damping > 0.0)
        st = lm_keep(st, mbs_add_joint_spring_damper(b, mech->joint[0], 0, 0.0, p->damping, 0.0));
    return st;
}

int lm_build_fourbar(const lm_fourbar *p, lm_mech *mech)
{
    return lm_build_fourbar_ex(p, NULL, NULL, mech);
}

int lm_build_fourbar_ex(const lm_fourbar *p, lm_extra_fn extra, void *user, lm_mech *mech)
{
    lm_mech_init(mech);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    double R[9], gp[3] = {0.0, -p->g, 0.0}, g[3];
    lm_rot_x(p->tilt, R);
    m3_vec(R, gp, g);
    int st = p->g > 0.0 ? mbs_builder_set_gravity(b, g) : mbs_builder_set_no_gravity(b);
    const double len[3] = {p->a, p->b, p->c};
    for (int i = 0; i < 3; ++i) st = lm_keep(st, mech->body[i] = lm_add_bar(b, len[i], p->mass[i]));
    if (st >= 0) st = fourbar_joints(p, b, mech, R);
    if (st >= 0 && extra) st = extra(b, mech, user);
    return lm_finish(b, mech, st);
}

/* Loop closure a e^{i th2} + b e^{i th3} - c e^{i th4} - d e^{i g} = 0 (complex plane of the
   mechanism). With A = a e^{i th2} and O4 = d e^{i g}, e = O4 - A, s = |e|, beta = arg e:
   the triangle A, B, O4 has sides b, c, s, so the angle at A between AO4 and AB is
   psi = acos((b^2 + s^2 - c^2) / (2 b s)) (law of cosines) and th3 = beta + sigma psi;
   th4 = arg(B - O4). */
int lm_fourbar_position(const lm_fourbar *p, double th2, int sigma, double *th3, double *th4)
{
    double ax = p->a * cos(th2), ay = p->a * sin(th2);
    double ox = p->d * cos(p->ground_angle), oy = p->d * sin(p->ground_angle);
    double ex = ox - ax, ey = oy - ay, s = hypot(ex, ey);
    double cpsi = (p->b * p->b + s * s - p->c * p->c) / (2.0 * p->b * s);
    if (!(fabs(cpsi) <= 1.0)) return -1;
    *th3 = atan2(ey, ex) + (double)sigma * acos(cpsi);
    double bx = ax + p->b * cos(*th3), by = ay + p->b * sin(*th3);
    *th4 = atan2(by - oy, bx - ox);
    return 0;
}

/* Solve i b x3 e^{i th3} - i c x4 e^{i th4} = K for real x3, x4: multiplying by e^{-i th4}
   and taking the real part gives -b x3 sin(th3 - th4) = Re(K e^{-i th4}); by e^{-i th3},
   c x4 sin(th4 - th3) = Re(K e^{-i th3}). */
static void fourbar_solve(const lm_fourbar *p, const double th[3], double kr, double ki,
                          double *x3, double *x4)
{
    double re4 = kr * cos(th[2]) + ki * sin(th[2]), re3 = kr * cos(th[1]) + ki * sin(th[1]);
    *x3 = -re4 / (p->b * sin(th[1] - th[2]));
    *x4 = re3 / (p->c * sin(th[2] - th[1]));
}

/* First derivative of the closure: i a w2 e^{i th2} + i b w3 e^{i th3} - i c w4 e^{i th4} = 0,
   so K = -i a w2 e^{i th2}. Second: i b al3 e^{i th3} - i c al4 e^{i th4} = K with
   K = -i a al2 e^{i th2} + a w2^2 e^{i th2} + b w3^2 e^{i th3} - c w4^2 e^{i th4}. */
void lm_fourbar_rates(const lm_fourbar *p, const double th[3], double w2, double al2,
                      double w[3], double al[3])
{
    double c2 = cos(th[0]), s2 = sin(th[0]);
    w[0] = w2, al[0] = al2;
    fourbar_solve(p, th, p->a * w2 * s2, -p->a * w2 * c2, &w[1], &w[2]);
    double kr = p->a * al2 * s2 + p->a * w2 * w2 * c2 + p->b * w[1] * w[1] * cos(th[1]) -
                p->c * w[2] * w[2] * cos(th[2]);
    double ki = -p->a * al2 * c2 + p->a * w2 * w2 * s2 + p->b * w[1] * w[1] * sin(th[1]) -
                p->c * w[2] * w[2] * sin(th[2]);
    fourbar_solve(p, th, kr, ki, &al[1], &al[2]);
}

/* Tree coordinates per cut choice: B: (th2, th3 - th2, th4); A: (th2, th3 - th4, th4);
   O4: (th2, th3 - th2, th4 - th3), for joints (crank, coupler joint, rocker joint). */
static void fourbar_rel(int cut, const double abs_[3], double rel[3])
{
    rel[0] = abs_[0];
    rel[1] = cut == LM_CUT_A ? abs_[1] - abs_[2] : abs_[1] - abs_[0];
    rel[2] = cut == LM_CUT_O4 ? abs_[2] - abs_[1] : abs_[2];
}

void lm_fourbar_abs(int cut, const double rel[3], double abs_[3])
{
    abs_[0] = rel[0];
    if (cut == LM_CUT_A) abs_[2] = rel[2], abs_[1] = rel[1] + rel[2];
    else if (cut == LM_CUT_O4) abs_[1] = rel[1] + rel[0], abs_[2] = rel[2] + abs_[1];
    else abs_[1] = rel[1] + rel[0], abs_[2] = rel[2];
}

void lm_fourbar_state(const lm_fourbar *p, const lm_mech *mech, mbs_data *d, double th[3],
                      double w[3])
{
    double q[3], v[3];
    for (int i = 0; i < 3; ++i) q[i] = lm_q(d, mech, mech->joint[i]), v[i] = lm_v(d, mech, mech->joint[i]);
    lm_fourbar_abs(p->cut, q, th);
    lm_fourbar_abs(p->cut, v, w);
}

void lm_fourbar_set(const lm_fourbar *p, const lm_mech *mech, mbs_data *d, const double th[3],
                    const double w[3])
{
    double q[3], v[3];
    fourbar_rel(p->cut, th, q);
    fourbar_rel(p->cut, w, v);
    for (int i = 0; i < 3; ++i) {
        mbs_data_q(d)[mbs_model_joint_qadr(mech->model, mech->joint[i])] = q[i];
        mbs_data_v(d)[mbs_model_joint_vadr(mech->model, mech->joint[i])] = v[i];
    }
}

/* ---------------------------------------------------------------- slider-crank */

lm_slider_crank lm_default_slider_crank(void)
{
    lm_slider_crank p;
    memset(&p, 0, sizeof p);
    p.r = 0.1, p.l = 0.35, p.e = 0.02;
    p.mass[0] = 1.0, p.mass[1] = 0.8, p.mass[2] = 0.5;
    p.g = 9.81;
    return p;
}

/* Tree and cut joints of the slider-crank per cut choice; returns a status. */
static int slider_crank_joints(const lm_slider_crank *p, mbs_builder *b, lm_mech *mech)
{
    const int cr = mech->body[0], rod = mech->body[1], sl = mech->body[2];
    const double pr[3] = {p->r, 0, 0}, pl[3] = {p->l, 0, 0}, pe[3] = {0, p->e, 0};
    mbs_joint_def jc = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, cr, NULL, NULL, NULL);
    jc.state_priority = 1;
    mbs_joint_def jr, js, cut;
    if (p->cut == LM_SC_CUT_B) {
        jr = lm_joint_at(MBS_JOINT_REVOLUTE, cr, rod, pr, NULL, NULL);
        js = lm_joint_at(MBS_JOINT_PRISMATIC, MBS_WORLD, sl, pe, NULL, NULL);
        cut = lm_joint_at(MBS_JOINT_REVOLUTE, rod, sl, pl, NULL, NULL);
    } else if (p->cut == LM_SC_CUT_SLIDER) {
        jr = lm_joint_at(MBS_JOINT_REVOLUTE, cr, rod, pr, NULL, NULL);
        js = lm_joint_at(MBS_JOINT_REVOLUTE, rod, sl, pl, NULL, NULL);
        cut = lm_joint_at(MBS_JOINT_PRISMATIC, MBS_WORLD, sl, pe, NULL, NULL);
    } else {
        js = lm_joint_at(MBS_JOINT_PRISMATIC, MBS_WORLD, sl, pe, NULL, NULL);
        jr = lm_joint_at(MBS_JOINT_REVOLUTE, sl, rod, NULL, NULL, pl);
        cut = lm_joint_at(MBS_JOINT_REVOLUTE, cr, rod, pr, NULL, NULL);
    }
    v3_set(js.axis, 1.0, 0.0, 0.0);
    if (p->cut == LM_SC_CUT_SLIDER) {
        v3_set(js.axis, 0.0, 0.0, 1.0);
        v3_set(cut.axis, 1.0, 0.0, 0.0);
    }
    cut.cut = 1;
    int st = MBS_OK;
    st = lm_keep(st, mech->joint[0] = lm_add_joint(b, mech, &jc));
    if (p->cut == LM_SC_CUT_A) st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &js));
    st = lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &jr));
    if (p->cut != LM_SC_CUT_A) st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &js));
    st = lm_keep(st, mech->joint[3] = lm_add_joint(b, mech, &cut));
    return st;
}

int lm_build_slider_crank(const lm_slider_crank *p, lm_mech *mech)
{
    return lm_build_slider_crank_ex(p, NULL, NULL, mech);
}

int lm_build_slider_crank_ex(const lm_slider_crank *p, lm_extra_fn extra, void *user,
                             lm_mech *mech)
{
    lm_mech_init(mech);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    const double g[3] = {0.0, -p->g, 0.0};
    int st = p->g > 0.0 ? mbs_builder_set_gravity(b, g) : mbs_builder_set_no_gravity(b);
    st = lm_keep(st, mech->body[0] = lm_add_bar(b, p->r, p->mass[0]));
    st = lm_keep(st, mech->body[1] = lm_add_bar(b, p->l, p->mass[1]));
    st = lm_keep(st, mech->body[2] = lm_add_block(b, p->mass[2]));
    if (st >= 0) st = slider_crank_joints(p, b, mech);
    if (st >= 0 && extra) st = extra(b, mech, user);
    return lm_finish(b, mech, st);
}

/* Pin A = r (cos th, sin th), slider pin B = (x, e), |B - A| = l. With u = r sin th - e and
   S = sqrt(l^2 - u^2): x = r cos th + S, and the rod direction (S, -u) / l gives
   phi = atan2(-u, S). Derivatives: u' = r cos th w, u'' = r cos th al - r sin th w^2;
   S' = -u u' / S, S'' = -(u'^2 + u u'') / S - (u u')^2 / S^3; x' = -r sin th w + S',
   x'' = -r cos th w^2 - r sin th al + S''; phi = -asin(u / l): phi' = -u' / S,
   phi'' = -(u'' S - u' S') / S^2. */
void lm_slider_crank_kin(const lm_slider_crank *p, double th, double w, double al,
                         double x[3], double phi[3])
{
    double c = cos(th), s = sin(th);
    double u = p->r * s - p->e, ud = p->r * c * w, udd = p->r * c * al - p->r * s * w * w;
    double S = sqrt(p->l * p->l - u * u), Sd = -u * ud / S;
    double Sdd = -(ud * ud + u * udd) / S - (u * ud) * (u * ud) / (S * S * S);
    x[0] = p->r * c + S;
    x[1] = -p->r * s * w + Sd;
    x[2] = -p->r * c * w * w - p->r * s * al + Sdd;
    phi[0] = atan2(-u, S);
    phi[1] = -ud / S;
    phi[2] = -(udd * S - ud * Sd) / (S * S);
}

/* Tree coordinates (crank, rod joint, slider joint) per cut: B: (th, phi - th, x);
   SLIDER: (th, phi - th, -phi); A: (th, phi, x). */
static void slider_rel(int cut, const double s[3], double q[3])
{
    q[0] = s[0];
    q[1] = cut == LM_SC_CUT_A ? s[1] : s[1] - s[0];
    q[2] = cut == LM_SC_CUT_SLIDER ? -s[1] : s[2];
}

void lm_slider_crank_state(const lm_slider_crank *p, const lm_mech *mech, mbs_data *d,
                           double s[3], double sd[3])
{
    double q[3], v[3];
    for (int i = 0; i < 3; ++i) q[i] = lm_q(d, mech, mech->joint[i]), v[i] = lm_v(d, mech, mech->joint[i]);
    s[0] = q[0], sd[0] = v[0];
    s[1] = p->cut == LM_SC_CUT_A ? q[1] : q[1] + q[0];
    sd[1] = p->cut == LM_SC_CUT_A ? v[1] : v[1] + v[0];
    if (p->cut == LM_SC_CUT_SLIDER) {
        double pos[3], R[9];
        mbs_body_pose(d, mech->body[2], pos, R);
        double lin[3], ang[3];
        mbs_body_velocity(d, mech->body[2], lin, ang);
        s[2] = pos[0], sd[2] = lin[0];
    } else {
        s[2] = q[2], sd[2] = v[2];
    }
}

void lm_slider_crank_set(const lm_slider_crank *p, const lm_mech *mech, mbs_data *d,
                         const double s[3], const double sd[3])
{
    double q[3], v[3];
    slider_rel(p->cut, s, q);
    slider_rel(p->cut, sd, v);
    for (int i = 0; i < 3; ++i) {
        mbs_data_q(d)[mbs_model_joint_qadr(mech->model, mech->joint[i])] = q[i];
        mbs_data_v(d)[mbs_model_joint_vadr(mech->model, mech->joint[i])] = v[i];
    }
}

/* ---------------------------------------------------------------- door */

#define DOOR_W 0.8
#define DOOR_H 2.0
#define DOOR_T 0.04
#define DOOR_M 20.0

/* The door slab: frame on the hinge axis at the floor, com (w/2, h/2, 0), box inertia. */
static int add_door(mbs_builder *b)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = DOOR_M;
    v3_set(def.com, 0.5 * DOOR_W, 0.5 * DOOR_H, 0.0);
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = DOOR_M / 12.0 * (DOOR_H * DOOR_H + DOOR_T * DOOR_T);
    def.inertia[4] = DOOR_M / 12.0 * (DOOR_W * DOOR_W + DOOR_T * DOOR_T);
    def.inertia[8] = DOOR_M / 12.0 * (DOOR_W * DOOR_W + DOOR_H * DOOR_H);
    return mbs_add_body(b, &def);
}

/* rod2 of Door3: 0.5 kg at (0.05, 1.8, 0) in a frame that coincides with the door's. */
static int add_rod2(mbs_builder *b)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = 0.5;
    v3_set(def.com, 0.05, 1.8, 0.0);
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = def.inertia[4] = def.inertia[8] = 2e-4;
    return mbs_add_body(b, &def);
}

/* Hinge2 and rod2 per variant (see lm_build_door); returns a status. */
static int door_hinge2(mbs_builder *b, lm_mech *mech, int nhinge, int rod, const double off[3])
{
    const double h2[3] = {0.0, 1.8, 0.0}, lug[3] = {0.1, 1.8, 0.0};
    double w2[3] = {h2[0] + off[0], h2[1] + off[1], h2[2] + off[2]};
    int st = MBS_OK;
    if (rod == 0 && nhinge == 2) {
        mbs_joint_def j = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, mech->body[0], w2, NULL, h2);
        v3_set(j.axis, 0.0, 1.0, 0.0);
        j.cut = 1;
        st = lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &j));
    } else if (rod == 1) {
        st = lm_keep(st, mech->body[1] = add_rod2(b));
        mbs_joint_def j = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, mech->body[1], w2, NULL, h2);
        v3_set(j.axis, 0.0, 1.0, 0.0);
        st = lm_keep(st, mech->joint[1] = lm_add_joint(b, mech, &j));
        mbs_joint_def f = lm_joint_at(MBS_JOINT_FIXED, mech->body[1], mech->body[0], lug, NULL, lug);
        f.cut = 1;
        st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &f));
    } else if (rod == 2) {
        st = lm_keep(st, mech->body[1] = add_rod2(b));
        mbs_joint_def f = lm_joint_at(MBS_JOINT_FIXED, mech->body[0], mech->body[1], NULL, NULL, NULL);
        st = lm_keep(st, mech->joint[2] = lm_add_joint(b, mech, &f));
    }
    return st;
}

int lm_build_door(int nhinge, int rod, const double offset[3], lm_mech *mech)
{
    lm_mech_init(mech);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    const double g[3] = {0.0, -9.81, -1.5}, h1[3] = {0.0, 0.2, 0.0}, zero[3] = {0, 0, 0};
    int st = mbs_builder_set_gravity(b, g);
    st = lm_keep(st, mech->body[0] = add_door(b));
    mbs_joint_def j = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, mech->body[0], h1, NULL, h1);
    v3_set(j.axis, 0.0, 1.0, 0.0);
    j.state_priority = 1;
    st = lm_keep(st, mech->joint[0] = lm_add_joint(b, mech, &j));
    if (st >= 0) st = door_hinge2(b, mech, nhinge, rod, offset ? offset : zero);
    return lm_finish(b, mech, st);
}

/* ---------------------------------------------------------------- engines */

#define ENG_R 0.1
#define ENG_L 0.3

/* A connecting rod along body y: frame at the crank pin, piston pin at (0, l, 0). */
static int add_rod_y(mbs_builder *b, double length, double mass)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = mass;
    v3_set(def.com, 0.0, 0.5 * length, 0.0);
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = def.inertia[8] = mass * length * length / 12.0;
    def.inertia[4] = mass * 1e-4;
    return mbs_add_body(b, &def);
}

/* Crankshaft about world x: mass m, com on the axis at x = xc. */
static int add_crankshaft(mbs_builder *b, double mass, double xc)
{
    mbs_body_def def = mbs_default_body_def();
    def.mass = mass;
    v3_set(def.com, xc, 0.0, 0.0);
    memset(def.inertia, 0, sizeof def.inertia);
    def.inertia[0] = 0.002 * mass;
    def.inertia[4] = def.inertia[8] = 0.01 * mass;
    return mbs_add_body(b, &def);
}

/* One cylinder on crank body cr at pin (x, r cos ph, r sin ph): rod (revolute x), piston on
   the world line (x, y, 0) by a prismatic or cylindrical joint along y, revolute cut
   rod-piston about x. ids[0..2] = rod, cylinder, cut joints. */
static int add_cylinder(mbs_builder *b, lm_mech *mech, int cr, double x, double ph,
                        mbs_joint_type slide, int ids[3])
{
    const double pin[3] = {x, ENG_R * cos(ph), ENG_R * sin(ph)}, wp[3] = {x, 0.0, 0.0};
    const double top[3] = {0.0, ENG_L, 0.0};
    int st = MBS_OK, rod = add_rod_y(b, ENG_L, 0.6), pis = lm_add_block(b, 0.5);
    st = lm_keep(lm_keep(st, rod), pis);
    if (st < 0) return st;
    mbs_joint_def jr = lm_joint_at(MBS_JOINT_REVOLUTE, cr, rod, pin, NULL, NULL);
    v3_set(jr.axis, 1.0, 0.0, 0.0);
    mbs_joint_def js = lm_joint_at(slide, MBS_WORLD, pis, wp, NULL, NULL);
    v3_set(js.axis, 0.0, 1.0, 0.0);
    mbs_joint_def cut = lm_joint_at(MBS_JOINT_REVOLUTE, rod, pis, top, NULL, NULL);
    v3_set(cut.axis, 1.0, 0.0, 0.0);
    cut.cut = 1;
    st = lm_keep(st, ids[0] = lm_add_joint(b, mech, &jr));
    st = lm_keep(st, ids[1] = lm_add_joint(b, mech, &js));
    st = lm_keep(st, ids[2] = lm_add_joint(b, mech, &cut));
    return st;
}

/* The crankshaft and its revolute about world x (state priority 1); returns the status. */
static int add_crank_x(mbs_builder *b, lm_mech *mech, double mass, double xc)
{
    const double g[3] = {0.0, -9.81, 0.0};
    int st = mbs_builder_set_gravity(b, g);
    st = lm_keep(st, mech->body[0] = add_crankshaft(b, mass, xc));
    mbs_joint_def jc = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, mech->body[0], NULL, NULL, NULL);
    v3_set(jc.axis, 1.0, 0.0, 0.0);
    jc.state_priority = 1;
    return lm_keep(st, mech->joint[0] = lm_add_joint(b, mech, &jc));
}

int lm_build_engine1(mbs_joint_type slide, lm_mech *mech)
{
    lm_mech_init(mech);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    int st = add_crank_x(b, mech, 2.0, 0.0);
    if (st >= 0) st = add_cylinder(b, mech, mech->body[0], 0.05, 0.0, slide, mech->unit[0]);
    for (int i = 0; i < 3; ++i) mech->joint[1 + i] = mech->unit[0][i];
    return lm_finish(b, mech, st);
}

static const double phase_deg[6] = {0.0, 240.0, 120.0, 120.0, 240.0, 0.0};

int lm_build_engine6(lm_mech *mech)
{
    lm_mech_init(mech);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    int st = add_crank_x(b, mech, 12.0, 0.3);
    for (int k = 0; k < 6 && st >= 0; ++k)
        st = add_cylinder(b, mech, mech->body[0], 0.12 * k, phase_deg[k] * LM_PI / 180.0,
                          MBS_JOINT_PRISMATIC, mech->unit[k]);
    return lm_finish(b, mech, st);
}

/* Cylinder k at crank angle al = th + phase_k is a centred slider-crank in the world (y, z)
   plane (lm_slider_crank_kin with e = 0): piston at y = x, rod turned by phi about x. */
void lm_engine_set(const lm_mech *mech, int ncyl, double th, double w, mbs_data *d)
{
    const lm_slider_crank sc = {ENG_R, ENG_L, 0.0, {0, 0, 0}, 0.0, 0};
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    q[mbs_model_joint_qadr(mech->model, mech->joint[0])] = th;
    v[mbs_model_joint_vadr(mech->model, mech->joint[0])] = w;
    for (int k = 0; k < ncyl; ++k) {
        double x[3], phi[3];
        lm_slider_crank_kin(&sc, th + phase_deg[k] * LM_PI / 180.0, w, 0.0, x, phi);
        int jr = mech->unit[k][0], js = mech->unit[k][1];
        q[mbs_model_joint_qadr(mech->model, jr)] = phi[0] - th;
        v[mbs_model_joint_vadr(mech->model, jr)] = phi[1] - w;
        q[mbs_model_joint_qadr(mech->model, js)] = x[0];
        v[mbs_model_joint_vadr(mech->model, js)] = x[1];
    }
}

/* ---------------------------------------------------------------- IFToMM A02 */

int lm_build_a02(int n, lm_mech *mech)
{
    lm_mech_init(mech);
    if (n < 1 || n > A02_MAX) return MBS_ERR_ARG;
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    const double g[3] = {0.0, -9.81, 0.0}, tip[3] = {1.0, 0.0, 0.0};
    int st = mbs_builder_set_gravity(b, g), crank[A02_MAX + 1], coupler[A02_MAX];
    for (int i = 0; i <= n; ++i) st = lm_keep(st, crank[i] = lm_add_bar(b, 1.0, 1.0));
    for (int i = 0; i < n; ++i) st = lm_keep(st, coupler[i] = lm_add_bar(b, 1.0, 1.0));
    for (int i = 0; i <= n && st >= 0; ++i) { /* joint ids 0..n */
        const double pivot[3] = {(double)i, 0.0, 0.0};
        mbs_joint_def j = lm_joint_at(MBS_JOINT_REVOLUTE, MBS_WORLD, crank[i], pivot, NULL, NULL);
        j.state_priority = i == 0;
        st = lm_keep(st, lm_add_joint(b, mech, &j));
    }
    for (int i = 0; i < n && st >= 0; ++i) { /* joint ids n+1..2n */
        mbs_joint_def j = lm_joint_at(MBS_JOINT_REVOLUTE, crank[i], coupler[i], tip, NULL, NULL);
        st = lm_keep(st, lm_add_joint(b, mech, &j));
    }
    for (int i = 0; i < n && st >= 0; ++i) { /* cuts 2n+1..3n */
        mbs_joint_def j = lm_joint_at(MBS_JOINT_REVOLUTE, coupler[i], crank[i + 1], tip, NULL, tip);
        j.cut = 1;
        st = lm_keep(st, lm_add_joint(b, mech, &j));
    }
    mech->joint[0] = 0;
    mech->body[0] = crank[0];
    return lm_finish(b, mech, st);
}

void lm_a02_initial(int n, const lm_mech *mech, mbs_data *d)
{
    double *q = mbs_data_q(d), *v = mbs_data_v(d);
    for (int j = 0; j < 2 * n + 1; ++j) {
        int qa = mbs_model_joint_qadr(mech->model, j), va = mbs_model_joint_vadr(mech->model, j);
        int is_crank = j <= n;
        q[qa] = is_crank ? 0.5 * LM_PI : -0.5 * LM_PI;
        v[va] = is_crank ? -1.0 : 1.0;
    }
}

int lm_a02_b0(mbs_data *d, double p[2])
{
    double pos[3], R[9];
    int rc = mbs_body_pose(d, 1, pos, R);
    p[0] = pos[0] + R[0];
    p[1] = pos[1] + R[3];
    return rc;
}

/* ---------------------------------------------------------------- line-symmetric Bricard */

/* Axis points and directions of j1..j3; j4..j6 are their images under the half-turn about
   the world z axis, (x, y, z) -> (-x, -y, z). */
static const double BR_P[3][3] = {{1.0, 0.0, 0.0}, {1.2, 0.8, 0.5}, {0.4, 1.1, 0.9}};
static const double BR_U[3][3] = {{0.3, 1.0, 0.2}, {1.0, 0.2, -0.5}, {-0.3, 0.4, 1.0}};

static void bricard_axis(int i, double p[3], double u[3])
{
    double s = i < 3 ? 1.0 : -1.0;
    const double *pp = BR_P[i % 3], *uu = BR_U[i % 3];
    v3_set(p, s * pp[0], s * pp[1], pp[2]);
    v3_set(u, s * uu[0], s * uu[1], uu[2]);
}

int lm_build_bricard(lm_mech *mech)
{
    lm_mech_init(mech);
    mbs_builder *b = mbs_builder_create();
    if (!b) return MBS_ERR_NOMEM;
    const double g[3] = {0.0, 0.0, -9.81};
    int st = mbs_builder_set_gravity(b, g), body[6] = {MBS_WORLD};
    for (int k = 1; k <= 5; ++k) { /* link k joins axes k and k + 1, com between them */
        double p0[3], p1[3], u[3];
        bricard_axis(k - 1, p0, u);
        bricard_axis(k, p1, u);
        mbs_body_def def = mbs_default_body_def();
        def.mass = 1.0 + 0.1 * k;
        for (int i = 0; i < 3; ++i) def.com[i] = 0.5 * (p0[i] + p1[i]);
        memset(def.inertia, 0, sizeof def.inertia);
        def.inertia[0] = 0.02, def.inertia[4] = 0.03, def.inertia[8] = 0.025;
        st = lm_keep(st, body[k] = mbs_add_body(b, &def));
    }
    for (int i = 0; i < 6 && st >= 0; ++i) {
        double p[3], u[3];
        bricard_axis(i, p, u);
        mbs_joint_def j = i < 5 ? lm_joint_at(MBS_JOINT_REVOLUTE, body[i], body[i + 1], p, NULL, p)
                                : lm_joint_at(MBS_JOINT_REVOLUTE, body[5], MBS_WORLD, p, NULL, p);
        memcpy(j.axis, u, sizeof u);
        j.state_priority = i == 0;
        j.cut = i == 5;
        st = lm_keep(st, mech->joint[i] = lm_add_joint(b, mech, &j));
    }
    return lm_finish(b, mech, st);
}

#ifndef LM_MODELS_DIR
#define LM_MODELS_DIR "models"
#endif

/* See loop_mechanisms.h. */
int lm_load_model(mbs_builder *b, const char *name)
{
    const char *dir = getenv("MBS_MODELS");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.xml", dir && dir[0] ? dir : LM_MODELS_DIR, name);
    return mbs_builder_load(b, path);
}
