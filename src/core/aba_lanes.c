/* The three ABA passes (RBDA table 7.1, body coordinates, a_0 = 0, gravity in f_ext) on W
 * instances of one model at once, one per lane of mbs_vec (core/simd.h); compiled once per
 * SIMD variant. Every lane does the arithmetic of the one-instance passes (aba.c) in the same
 * formulas, so the lanes agree with single calls to rounding (tests/unit/api/test_lanes.c). */
#include "core/aba_lanes.h"
#include "core/kernels.h"
#include "core/simd.h"

#include <math.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

typedef mbs_vec V;
#define W MBS_SIMD_W

static inline V splat(double x) { return (V){0} + x; }
static inline void lane_put(V *v, int k, double x) { memcpy((double *)v + k, &x, sizeof x); }
static inline double lane_get(const V *v, int k)
{
    double x;
    memcpy(&x, (const double *)v + k, sizeof x);
    return x;
}

/* ws arrays as lane vectors. */
#define LV(arr) ((V *)(arr))

/* Gather: lane k of dst[e] = src_k[e] for e < len, instance k < n (lanes past n repeat the
   last instance, computed but never stored). */
static void gather(V *dst, mbs_data *const *d, int n, size_t off, int len,
                   const double *(*field)(const mbs_data *))
{
    for (int k = 0; k < W; ++k) {
        const double *s = field(d[k < n ? k : n - 1]) + off;
        for (int e = 0; e < len; ++e) lane_put(&dst[e], k, s[e]);
    }
}
static const double *f_vel(const mbs_data *d) { return d->vel; }
static const double *f_cvel(const mbs_data *d) { return d->cvel; }
static const double *f_fext(const mbs_data *d) { return d->f_ext; }
static const double *f_S(const mbs_data *d) { return d->S; }

/* Per-instance inputs into the lane workspace. */
static void gather_inputs(const mbs_model *m, mbs_data *const *d, int n, mbs_lanes_ws *ws)
{
    gather(LV(ws->vel), d, n, 0, 6 * m->nbody, f_vel);
    gather(LV(ws->c), d, n, 0, 6 * m->nbody, f_cvel);
    gather(LV(ws->fe), d, n, 0, 6 * m->nbody, f_fext);
    gather(LV(ws->S), d, n, 0, 6 * m->nv, f_S);
    for (int k = 0; k < W; ++k) {
        const mbs_data *dk = d[k < n ? k : n - 1];
        for (int b = 1; b < m->nbody; ++b) {
            const mbs_pose *X = &dk->x_up[b];
            for (int e = 0; e < 9; ++e) lane_put(&LV(ws->X)[12 * b + e], k, X->R[e]);
            for (int e = 0; e < 3; ++e) lane_put(&LV(ws->X)[12 * b + 9 + e], k, X->p[e]);
        }
        for (int i = 0; i < m->nv; ++i) lane_put(&LV(ws->tau)[i], k, dk->tau[i] + dk->gen_force[i]);
    }
}

/* o = a x b (3-vectors of lanes) */
static inline void cross(V o[3], const V a[3], const V b[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* o = R x and o = R^T x for R row-major (9 lanes each) */
static inline void mulv3(V o[3], const V R[9], const V x[3])
{
    for (int r = 0; r < 3; ++r) o[r] = R[3 * r] * x[0] + R[3 * r + 1] * x[1] + R[3 * r + 2] * x[2];
}
static inline void tmulv3(V o[3], const V R[9], const V x[3])
{
    for (int r = 0; r < 3; ++r) o[r] = R[r] * x[0] + R[3 + r] * x[1] + R[6 + r] * x[2];
}

/* pA = v x* (I v) - fe and IA = I (upper triangle) of every body. */
static void pass_init(const mbs_model *m, mbs_lanes_ws *ws)
{
    for (int b = 1; b < m->nbody; ++b) {
        const mbs_rbi *I = &m->bodies[b].rbi;
        double M[36];
        rbi_to_m6_upper(M, I);
        V *IA = LV(ws->IA) + 36 * b;
        for (int r = 0; r < 6; ++r)
            for (int k = r; k < 6; ++k) IA[6 * r + k] = splat(M[6 * r + k]);
        const V *v = LV(ws->vel) + 6 * b;
        V Iv[6], t[3], h[3] = {splat(I->h[0]), splat(I->h[1]), splat(I->h[2])};
        for (int r = 0; r < 3; ++r)
            Iv[r] = I->I[3 * r] * v[0] + I->I[3 * r + 1] * v[1] + I->I[3 * r + 2] * v[2];
        cross(t, h, v + 3);
        for (int r = 0; r < 3; ++r) Iv[r] += t[r];
        cross(t, h, v);
        for (int r = 0; r < 3; ++r) Iv[3 + r] = I->m * v[3 + r] - t[r];
        V o[6], u[3];
        cross(o, v, Iv); /* v x* f = [w x n + v x f; w x f] */
        cross(u, v + 3, Iv + 3);
        for (int r = 0; r < 3; ++r) o[r] += u[r];
        cross(o + 3, v, Iv + 3);
        V *pA = LV(ws->pA) + 6 * b;
        const V *fe = LV(ws->fe) + 6 * b;
        for (int e = 0; e < 6; ++e) pA[e] = o[e] - fe[e];
    }
}

/* Complete the symmetric 6x6 from its upper triangle. */
static inline void sym_complete(V *M)
{
    for (int i = 1; i < 6; ++i)
        for (int j = 0; j < i; ++j) M[6 * i + j] = M[6 * j + i];
}

/* o = M x (6x6 full) */
static inline void mulv6(V o[6], const V *M, const V *x)
{
    for (int i = 0; i < 6; ++i) {
        const V *r = M + 6 * i;
        o[i] = r[0] * x[0] + r[1] * x[1] + r[2] * x[2] + r[3] * x[3] + r[4] * x[4] + r[5] * x[5];
    }
}
static inline V dot6(const V *a, const V *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* U = M s (unless s is NULL) and W = M w for the symmetric M of which the upper triangle is
   read (the articulated inertias' lower triangles are not kept up to date here). */
static inline void sym_upper_mulv2(const V *M, const V *s, const V *w, V *U, V *Wo)
{
    for (int i = 0; i < 6; ++i) {
        if (s) U[i] = M[7 * i] * s[i];
        Wo[i] = M[7 * i] * w[i];
    }
    for (int i = 0; i < 5; ++i)
        for (int j = i + 1; j < 6; ++j) {
            const V mij = M[6 * i + j];
            if (s) U[i] += mij * s[j], U[j] += mij * s[i];
            Wo[i] += mij * w[j];
            Wo[j] += mij * w[i];
        }
}

/* o = X^T f (force from the body to its parent): [R n + p x (R f_lin); R f_lin]. */
static inline void xf_transpose(V o[6], const V *X, const V f[6])
{
    V n[3], t[3];
    mulv3(o + 3, X, f + 3);
    mulv3(n, X, f);
    cross(t, X + 9, o + 3);
    for (int r = 0; r < 3; ++r) o[r] = n[r] + t[r];
}

/* o = X m (motion from the parent to the body): [R^T w; R^T (v - p x w)]. */
static inline void xm(V o[6], const V *X, const V m[6])
{
    V t[3], u[3];
    tmulv3(o, X, m);
    cross(t, X + 9, m);
    for (int r = 0; r < 3; ++r) u[r] = m[3 + r] - t[r];
    tmulv3(o + 3, X, u);
}

/* The upper triangle (00, 01, 02, 11, 12, 22) of O = R S R^T for a symmetric S (full). */
static inline void rotate_sym(V O[6], const V R[9], const V S[9])
{
    static const int row[6] = {0, 0, 0, 1, 1, 2}, col[6] = {0, 1, 2, 1, 2, 2};
    V T[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            T[3 * i + j] = S[3 * i] * R[3 * j] + S[3 * i + 1] * R[3 * j + 1] + S[3 * i + 2] * R[3 * j + 2];
    for (int e = 0; e < 6; ++e) {
        const int i = row[e], j = col[e];
        O[e] = R[3 * i] * T[j] + R[3 * i + 1] * T[3 + j] + R[3 * i + 2] * T[6 + j];
    }
}

/* out (upper triangle) += X^T in X for the symmetric in = [A B; B^T C] (upper triangle
   read): the shift by
   r = R^T p in body coordinates, W = B + [r] C, A' = A - B [r] + [r] W^T, then every block
   rotated by R (the formulas of m6_sym_transform_add). */
static void sym_transform_add(V *out, const V *X, const V *in)
{
    V r[3], A[9], C[9], Wm[9], Ap[9], O[9];
    tmulv3(r, X, X + 9);
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) { /* the upper triangle of in is read */
            A[3 * i + j] = A[3 * j + i] = in[6 * i + j];
            C[3 * i + j] = C[3 * j + i] = in[6 * (i + 3) + j + 3];
        }
    for (int j = 0; j < 3; ++j) { /* column j of W: B e_j + r x (C e_j) */
        const V cj[3] = {C[j], C[3 + j], C[6 + j]};
        V t[3];
        cross(t, r, cj);
        for (int i = 0; i < 3; ++i) Wm[3 * i + j] = in[6 * i + 3 + j] + t[i];
    }
    for (int i = 0; i < 3; ++i) /* A' = A + (r x rows of B)^T ... as -B[r] + [r]W^T */
        for (int j = 0; j < 3; ++j) {
            const V bi[3] = {in[6 * i + 3], in[6 * i + 4], in[6 * i + 5]};
            const V wj[3] = {Wm[3 * j], Wm[3 * j + 1], Wm[3 * j + 2]};
            V t1[3], t2[3];
            cross(t1, r, bi); /* row i of -B[r] is r x (row i of B) */
            cross(t2, r, wj); /* column j of [r] W^T is r x (row j of W) */
            Ap[3 * i + j] = A[3 * i + j] + t1[j] + t2[i];
        }
    static const int up[6] = {0, 1, 2, 7, 8, 14}; /* upper triangle of a 3x3 block of a 6x6 */
    rotate_sym(O, X, Ap);
    for (int e = 0; e < 6; ++e) out[up[e]] += O[e];
    rotate_sym(O, X, C);
    for (int e = 0; e < 6; ++e) out[21 + up[e]] += O[e];
    V T[9]; /* B'' = R W R^T (full) */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            T[3 * i + j] = Wm[3 * i] * X[3 * j] + Wm[3 * i + 1] * X[3 * j + 1] + Wm[3 * i + 2] * X[3 * j + 2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out[6 * i + 3 + j] += X[3 * i] * T[j] + X[3 * i + 1] * T[3 + j] + X[3 * i + 2] * T[6 + j];
}

/* 1 when some lane k < n of x fails x > lim (singular pivot); its lane in *lane. */
static int lane_fails(V x, V lim, int n, int *lane)
{
    for (int k = 0; k < n; ++k)
        if (!(lane_get(&x, k) > lane_get(&lim, k))) return *lane = k, 1;
    return 0;
}

/* Inertia scale the motion s sees in IA (core/kernels.h mbs_aba_joint_scale). */
static inline V joint_scale(const V *s, const V *IA)
{
    return (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) * (IA[0] + IA[7] + IA[14]) +
           (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]) * (IA[21] + IA[28] + IA[35]);
}

/* Dinv = D^-1 for the n x n SPD D of lanes (Cholesky; pivots checked against scale):
   0, or 1 with the failing lane in *lane. */
static int spd_inverse(int n, const V *D, const V *scale, V *Dinv, int nl, int *lane)
{
    V L[36], Li[36], id[6];
    for (int j = 0; j < n; ++j) {
        V s = D[n * j + j];
        for (int k = 0; k < j; ++k) s -= L[6 * j + k] * L[6 * j + k];
        if (lane_fails(s, MBS_ABA_SINGULAR_EPS * scale[j], nl, lane)) return 1;
        for (int k = 0; k < W; ++k) lane_put(&L[6 * j + j], k, sqrt(fabs(lane_get(&s, k))));
        id[j] = 1.0 / L[6 * j + j];
        for (int r = j + 1; r < n; ++r) {
            V x = D[n * r + j];
            for (int k = 0; k < j; ++k) x -= L[6 * r + k] * L[6 * j + k];
            L[6 * r + j] = x * id[j];
        }
    }
    for (int j = 0; j < n; ++j) { /* column j of L^-1 */
        Li[6 * j + j] = id[j];
        for (int r = j + 1; r < n; ++r) {
            V x = splat(0.0);
            for (int k = j; k < r; ++k) x -= L[6 * r + k] * Li[6 * k + j];
            Li[6 * r + j] = x * id[r];
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = i; j < n; ++j) {
            V x = splat(0.0);
            for (int k = j; k < n; ++k) x += Li[6 * k + i] * Li[6 * k + j];
            Dinv[n * i + j] = Dinv[n * j + i] = x;
        }
    return 0;
}

/* Joint jm of n dofs: U = IA S, Dinv = (S^T U)^-1, u = tau - S^T pA; into the parent p
   (not the world) IA_p += X^T (IA - U Dinv U^T) X and pA_p += X^T (pA + IA c + U Dinv
   (u - U^T c)). 0, or 1 with the singular lane in *lane. */
static int backward_joint(const mbs_joint_model *jm, int p, mbs_lanes_ws *ws, int nl, int *lane)
{
    const int n = jm->nv, i0 = jm->vadr, b = jm->child;
    V *IA = LV(ws->IA) + 36 * b, *pA = LV(ws->pA) + 6 * b, *c = LV(ws->c) + 6 * b;
    V *U = LV(ws->U) + 6 * i0, *Dinv = LV(ws->Dinv) + 6 * i0, *u = LV(ws->u) + i0;
    const V *S = LV(ws->S) + 6 * i0;
    V D[36], scale[6], UD[36], r[6], pa[6], Ia[36], f[6];
    sym_complete(IA);
    for (int k = 0; k < n; ++k) {
        mulv6(U + 6 * k, IA, S + 6 * k);
        scale[k] = joint_scale(S + 6 * k, IA);
        u[k] = LV(ws->tau)[i0 + k] - dot6(S + 6 * k, pA);
    }
    for (int k = 0; k < n; ++k)
        for (int l = 0; l < n; ++l) D[n * k + l] = dot6(S + 6 * k, U + 6 * l);
    if (n == 1) {
        if (lane_fails(D[0], MBS_ABA_SINGULAR_EPS * scale[0], nl, lane)) return 1;
        Dinv[0] = 1.0 / D[0];
    } else if (spd_inverse(n, D, scale, Dinv, nl, lane)) {
        return 1;
    }
    if (p == 0) return 0;
    mulv6(pa, IA, c);
    for (int e = 0; e < 6; ++e) pa[e] += pA[e];
    for (int k = 0; k < n; ++k) r[k] = u[k] - dot6(U + 6 * k, c);
    for (int l = 0; l < n; ++l) /* UD = U Dinv (column l), pa += UD_l r_l */
        for (int e = 0; e < 6; ++e) {
            V x = splat(0.0);
            for (int k = 0; k < n; ++k) x += U[6 * k + e] * Dinv[n * k + l];
            UD[6 * l + e] = x;
            pa[e] += x * r[l];
        }
    for (int e = 0; e < 6; ++e)
        for (int g = e; g < 6; ++g) {
            V x = IA[6 * e + g];
            for (int l = 0; l < n; ++l) x -= UD[6 * l + e] * U[6 * l + g];
            Ia[6 * e + g] = Ia[6 * g + e] = x;
        }
    const V *X = LV(ws->X) + 12 * b;
    sym_transform_add(LV(ws->IA) + 36 * p, X, Ia);
    xf_transpose(f, X, pa);
    for (int e = 0; e < 6; ++e) LV(ws->pA)[6 * p + e] += f[e];
    return 0;
}

/* a_b = X a_p + c_b, qacc = Dinv (u - U^T a_b), a_b += S qacc; qacc scattered to the data. */
static void forward_joint(const mbs_joint_model *jm, int axis, mbs_lanes_ws *ws,
                          mbs_data *const *d, int nl)
{
    const int p = jm->parent;
    const int n = jm->nv, i0 = jm->vadr, b = jm->child;
    V *a = LV(ws->a) + 6 * b;
    const V *c = LV(ws->c) + 6 * b, *U = LV(ws->U) + 6 * i0, *Dinv = LV(ws->Dinv) + 6 * i0;
    const V *S = LV(ws->S) + 6 * i0, *u = LV(ws->u) + i0;
    if (p == 0) {
        for (int e = 0; e < 6; ++e) a[e] = c[e];
    } else {
        xm(a, LV(ws->X) + 12 * b, LV(ws->a) + 6 * p);
        for (int e = 0; e < 6; ++e) a[e] += c[e];
    }
    V r[6], qdd[6];
    for (int k = 0; k < n; ++k) r[k] = u[k] - dot6(U + 6 * k, a);
    for (int k = 0; k < n; ++k) {
        qdd[k] = splat(0.0);
        for (int l = 0; l < n; ++l) qdd[k] += Dinv[n * k + l] * r[l];
    }
    if (axis >= 0 && n == 1) a[axis] += qdd[0];
    for (int k = 0; k < n; ++k) {
        for (int e = 0; axis < 0 && e < 6; ++e) a[e] += S[6 * k + e] * qdd[k];
        for (int l = 0; l < nl; ++l) d[l]->qacc[i0 + k] = lane_get(&qdd[k], l);
    }
}

/* backward_joint for one dof (the common case), upper triangles only: U = IA S, D = S.U,
   u = tau - S.pA; Ia = IA - U U^T / D, pa = pA + IA c + U (u - U.c) / D. */
static int backward_1(const mbs_joint_model *jm, int e, mbs_lanes_ws *ws, int nl, int *lane)
{
    const int i = jm->vadr, b = jm->child, p = jm->parent;
    V *IA = LV(ws->IA) + 36 * b, *pA = LV(ws->pA) + 6 * b, *c = LV(ws->c) + 6 * b;
    V *U = LV(ws->U) + 6 * i;
    const V *S = LV(ws->S) + 6 * i;
    V Ic[6], Ia[36], pa[6], f[6];
    sym_upper_mulv2(IA, e >= 0 ? NULL : S, c, U, Ic);
    if (e >= 0)
        for (int r = 0; r < 6; ++r) U[r] = IA[r < e ? 6 * r + e : 6 * e + r];
    const V D = e >= 0 ? U[e] : dot6(S, U);
    if (lane_fails(D, MBS_ABA_SINGULAR_EPS * joint_scale(S, IA), nl, lane)) return 1;
    const V dinv = 1.0 / D, u = LV(ws->tau)[i] - (e >= 0 ? pA[e] : dot6(S, pA));
    LV(ws->Dinv)[6 * i] = dinv;
    LV(ws->u)[i] = u;
    if (p == 0) return 0;
    const V g = dinv * (u - dot6(U, c));
    for (int r = 0; r < 6; ++r) {
        const V w = dinv * U[r];
        for (int k = r; k < 6; ++k) Ia[6 * r + k] = IA[6 * r + k] - w * U[k];
        pa[r] = pA[r] + Ic[r] + U[r] * g;
    }
    const V *X = LV(ws->X) + 12 * b;
    sym_transform_add(LV(ws->IA) + 36 * p, X, Ia);
    xf_transpose(f, X, pa);
    for (int e = 0; e < 6; ++e) LV(ws->pA)[6 * p + e] += f[e];
    return 0;
}

/* The kinematics and gravity of models whose joints all turn about or slide along a fixed
   axis a (one dof, parent joint frame a translation pp, child joint frame the body frame) and
   whose only forces are uniform gravity and tau: X = (Rot(a, q), pp) or (1, pp + a q), S =
   [a; 0] or [0; a], vel = X vel_p + S qd, cvel = vel x (S qd), f_ext = [c x F; F] with
   F = m R_world^T g (the formulas of the one-instance kinematics and gravity). */
static void lanes_kinematics(const mbs_model *m, mbs_data *const *d, int n, mbs_lanes_ws *ws)
{
    V Rw[9];
    V *Rworld = LV(ws->IA); /* scratch: world rotations at 36 b (IA is set after) */
    const double *g = m->gravity_kind == MBS_GRAVITY_UNIFORM ? m->gravity : (const double[3]){0};
    for (int e = 0; e < 9; ++e) Rworld[e] = splat(e % 4 == 0 ? 1.0 : 0.0);
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int b = jm->child, p = jm->parent, i = jm->vadr, rev = jm->type == MBS_JOINT_REVOLUTE;
        V q, qd, tau, c, sn;
        for (int k = 0; k < W; ++k) {
            const mbs_data *dk = d[k < n ? k : n - 1];
            const double x = dk->q[jm->qadr];
            lane_put(&q, k, x), lane_put(&qd, k, dk->v[i]), lane_put(&tau, k, dk->tau[i]);
            lane_put(&c, k, rev ? cos(x) : 1.0), lane_put(&sn, k, rev ? sin(x) : 0.0);
        }
        V *X = LV(ws->X) + 12 * b, *S = LV(ws->S) + 6 * i, vJ[6];
        const double *ax = jm->axis;
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) { /* Rodrigues: c 1 + s [a]x + (1 - c) a a^T */
                const double cr = r == k ? 0.0 : ax[3 - r - k] * ((k - r + 3) % 3 == 1 ? -1.0 : 1.0);
                X[3 * r + k] = (r == k ? c : splat(0.0)) + sn * cr + (1.0 - c) * (ax[r] * ax[k]);
            }
        for (int r = 0; r < 3; ++r) {
            X[9 + r] = splat(jm->frame_parent.p[r]) + (rev ? splat(0.0) : q * ax[r]);
            S[r] = splat(rev ? ax[r] : 0.0), S[3 + r] = splat(rev ? 0.0 : ax[r]);
        }
        for (int e = 0; e < 6; ++e) vJ[e] = S[e] * qd;
        V *vel = LV(ws->vel) + 6 * b, *cv = LV(ws->c) + 6 * b, t3[3];
        if (p == 0) {
            for (int e = 0; e < 6; ++e) vel[e] = vJ[e];
        } else {
            xm(vel, X, LV(ws->vel) + 6 * p);
            for (int e = 0; e < 6; ++e) vel[e] += vJ[e];
        }
        cross(cv, vel, vJ); /* vel x vJ (motion): [w x wJ; w x vJ + v x wJ] */
        cross(cv + 3, vel, vJ + 3);
        cross(t3, vel + 3, vJ);
        for (int r = 0; r < 3; ++r) cv[3 + r] += t3[r];
        const V *Rp = Rworld + 36 * p;
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k)
                Rw[3 * r + k] = Rp[3 * r] * X[k] + Rp[3 * r + 1] * X[3 + k] + Rp[3 * r + 2] * X[6 + k];
        for (int e = 0; e < 9; ++e) Rworld[36 * b + e] = Rw[e];
        const mbs_body_model *body = &m->bodies[b];
        V mg[3], *fe = LV(ws->fe) + 6 * b, cc[3];
        for (int r = 0; r < 3; ++r) mg[r] = splat(g[r] * body->mass);
        tmulv3(fe + 3, Rw, mg);
        for (int r = 0; r < 3; ++r) cc[r] = splat(body->com[r]);
        cross(fe, cc, fe + 3);
        LV(ws->tau)[i] = tau;
    }
}

/* See aba_lanes.h. */
static int lanes_aba(const mbs_model *m, mbs_data *const *d, int n, mbs_lanes_ws *ws, int *lane,
                     int kin)
{
    if (kin)
        lanes_kinematics(m, d, n, ws);
    else
        gather_inputs(m, d, n, ws);
    pass_init(m, ws);
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int bad = jm->nv == 1 ? backward_1(jm, ws->axis[m->tree[t]], ws, n, lane)
                                    : backward_joint(jm, jm->parent, ws, n, lane);
        if (bad) return jm->child + 1;
    }
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        forward_joint(jm, ws->axis[m->tree[t]], ws, d, n);
    }
    return 0;
}

const mbs_lanes_aba_fn MBS_SIMD_NAME(mbs_lanes_aba_table) = lanes_aba;
const int MBS_SIMD_NAME(mbs_lanes_width_table) = W;
