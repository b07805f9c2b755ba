/* The ancestor pairs of the inverse-dynamics derivatives (rnea_derivatives.c), eight
 * ancestors at a time. For a dof k and an ancestor dof l of another joint (b the body of k,
 * composites of b), with the vectors of k stored by the backward pass (Y = Ic S_k, Z the
 * angular part of Bc^T S_k, PF = Ic dA_k + Bc dV_k + S_k x* F, Q = Bc S_k + Ic E_k):
 *     dtau_k/dq_l = dA_l . Y + dV_l . Z,   dtau_l/dq_k = S_l . PF,
 *     dtau_k/dv_l = S_l . Z + E_l . Y,     dtau_l/dv_k = S_l . Q,     M_kl = M_lk = S_l . Y
 * (Carpentier and Mansard 2018, "Analytical Derivatives of Rigid Body Dynamics Algorithms",
 * §III; derivs.h for the dot products with 3-vectors: their angular parts). A walk in tree
 * order, which mbs_compile makes depth-first, keeps the ancestors of the joint it visits in
 * a path, component by component (a joint's ancestors take the first depth positions), so
 * eight ancestors' entries are eight lanes of the same multiplies and adds. Forces fixed in
 * the world (host wrenches, point gravity) add a term and take the pair-by-pair loop of
 * rnea_derivatives.c. */
#include "derivatives/derivs.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* The components of an ancestor in the path. The path is stored in blocks of 8 positions,
   each block PATH_N rows of 8 (component c of position at: block at / 8, row c, lane at % 8),
   so a group of 8 ancestors reads rows at fixed offsets from one base. */
enum { PATH_S = 0, PATH_DV = 6, PATH_DA = 9, PATH_E = 15, PATH_N = 21 };

/* Ancestor dof i of the walk at position at: S, the angular part of dV, dA and E. */
static void path_push(mbs_derivs *w, int at, int i)
{
    const double *D = w->dof + MBS_DV_STRIDE * i;
    double *p = w->path + (size_t)PATH_N * (size_t)(at & ~7) + (size_t)(at & 7);
    for (int c = 0; c < 6; ++c) p[8 * (PATH_S + c)] = D[c];
    for (int c = 0; c < 3; ++c) p[8 * (PATH_DV + c)] = D[MBS_DV_DV + c];
    for (int c = 0; c < 6; ++c) p[8 * (PATH_DA + c)] = D[MBS_DV_DA + c];
    for (int c = 0; c < 6; ++c) p[8 * (PATH_E + c)] = D[MBS_DV_E + c];
    w->pidx[at] = i;
}

/* The five entries of dof k with the path's positions [p, p + 8) (n of them valid). */
typedef struct pair_lanes {
    mbs_d8 dq_kl, dq_lk, dv_kl, dv_lk, m;
} pair_lanes;

/* The entries of dof k (component c of its vectors at kv[ldk c], kvec's column: read in
   place, each a broadcast operand) with eight path positions from p; M's when with_m (a
   constant where inlined). */
MBS_ALWAYS_INLINE void pair_entries(const double *path, const double *kv, size_t ldk, int p,
                                    int with_m, pair_lanes *o)
{
#define KV(c) kv[ldk * (size_t)(c)]
#define Y(r) KV(r)
#define Z(r) KV(6 + (r))
#define PF(r) KV(9 + (r))
#define Q(r) KV(15 + (r))
    mbs_d8 a = D8_ZERO, b = D8_ZERO, c = D8_ZERO, e = D8_ZERO, m = D8_ZERO, x;
    const double *block = path + (size_t)PATH_N * (size_t)p; /* p a multiple of 8 */
#define PATH_AT(comp) block + 8 * (comp)
    for (int r = 0; r < 6; ++r) {
        D8_LOAD(x, PATH_AT(PATH_DA + r));
        D8_AXPY(a, Y(r), x);
        D8_LOAD(x, PATH_AT(PATH_E + r));
        D8_AXPY(c, Y(r), x);
        D8_LOAD(x, PATH_AT(PATH_S + r));
        D8_AXPY(b, PF(r), x);
        D8_AXPY(e, Q(r), x);
        if (with_m) D8_AXPY(m, Y(r), x);
    }
    for (int r = 0; r < 3; ++r) {
        D8_LOAD(x, PATH_AT(PATH_DV + r));
        D8_AXPY(a, Z(r), x);
        D8_LOAD(x, PATH_AT(PATH_S + r));
        D8_AXPY(c, Z(r), x);
    }
#undef PATH_AT
#undef KV
#undef Y
#undef Z
#undef PF
#undef Q
    o->dq_kl = a, o->dq_lk = b, o->dv_kl = c, o->dv_lk = e, o->m = m;
}

/* Output pointers with their row stride (M nullable) and the first column of dq and dv
   they hold (derivs.h ndead: the columns before are left out). */
typedef struct pair_out {
    double *dq, *dv, *M;
    size_t ld, ldm;
    int c0;
} pair_out;

/* v added to the 8 doubles at row (contiguous ancestors: one vector add). */
static inline void row_add(double *row, const mbs_d8 *v)
{
    mbs_d8 g;
    D8_LOAD(g, row);
    D8_AXPY(g, 1.0, *v);
    D8_STORE(row, g);
}

/* The entries of n path positions (dofs pidx) with dof k: rows (k, l) lane by lane unless
   contiguous, columns (l, k) lane by lane; M's assigned. */
static inline void write_entries(const pair_out *o, size_t k, const int *pidx, int n,
                                 const pair_lanes *v)
{
    double *rq = o->dq + k * o->ld, *rv = o->dv + k * o->ld;
    double t[5][8];
    D8_STORE(t[0], v->dq_kl), D8_STORE(t[1], v->dv_kl), D8_STORE(t[2], v->dq_lk);
    D8_STORE(t[3], v->dv_lk), D8_STORE(t[4], v->m);
    const int contiguous = n == 8 && pidx[7] - pidx[0] == 7; /* the path's dofs increase */
    if (contiguous) row_add(rq + pidx[0], &v->dq_kl), row_add(rv + pidx[0], &v->dv_kl);
    for (int e = 0; e < n; ++e) {
        const size_t l = (size_t)pidx[e], c = l * o->ld + k;
        if (!contiguous) rq[l] += t[0][e], rv[l] += t[1][e];
        o->dq[c] += t[2][e];
        o->dv[c] += t[3][e];
        if (o->M) o->M[k * o->ldm + l] = o->M[l * o->ldm + k] = t[4][e];
    }
}

/* The pairs of dof k with the depth ancestors on the path (with_m: M's too). */
MBS_ALWAYS_INLINE void pairs_of(const mbs_derivs *w, int k, int depth, const pair_out *o,
                                int with_m)
{
    const double *kv = w->kvec + k;
    const size_t ldk = (size_t)w->ldkv;
    int p = 0;
    for (; p + 8 <= depth; p += 8) {
        pair_lanes v;
        pair_entries(w->path, kv, ldk, p, with_m, &v);
        write_entries(o, (size_t)k, w->pidx + p, 8, &v);
    }
    if (p < depth) {
        pair_lanes v;
        pair_entries(w->path, kv, ldk, p, with_m, &v);
        write_entries(o, (size_t)k, w->pidx + p, depth - p, &v);
    }
}

/* Every pair of dof k with the depth ancestors on the path. */
MBS_WIDE_LOOPS static void dof_pairs(const mbs_derivs *w, int k, int depth, const pair_out *o)
{
    if (o->M) pairs_of(w, k, depth, o, 1);
    else pairs_of(w, k, depth, o, 0);
}

/* Row k's entries with a root dof l into lanes: the same sums as pair_entries, with k's
   vectors from the rows of kvec (eight dofs from k) and l's components scalars. */
typedef struct root_lanes {
    mbs_d8 dq_kl, dv_kl, dq_lk, dv_lk, m;
} root_lanes;

MBS_ALWAYS_INLINE void root_entries(const mbs_derivs *w, const double *L, int k, int with_m,
                                    root_lanes *o)
{
    const size_t ld = (size_t)w->ldkv;
    const double *kv = w->kvec + k, *S = L, *dV = L + MBS_DV_DV, *dA = L + MBS_DV_DA;
    const double *E = L + MBS_DV_E;
    mbs_d8 a = D8_ZERO, b = D8_ZERO, c = D8_ZERO, e = D8_ZERO, m = D8_ZERO, y, x;
    for (int r = 0; r < 6; ++r) {
        D8_LOAD(y, kv + ld * (size_t)r); /* Y */
        D8_AXPY(a, dA[r], y);
        D8_AXPY(c, E[r], y);
        if (with_m) D8_AXPY(m, S[r], y);
        D8_LOAD(x, kv + ld * (size_t)(9 + r)); /* P + SF */
        D8_AXPY(b, S[r], x);
        D8_LOAD(x, kv + ld * (size_t)(15 + r)); /* Q */
        D8_AXPY(e, S[r], x);
    }
    for (int r = 0; r < 3; ++r) {
        D8_LOAD(x, kv + ld * (size_t)(6 + r)); /* Z */
        D8_AXPY(a, dV[r], x);
        D8_AXPY(c, S[r], x);
    }
    o->dq_kl = a, o->dv_kl = c, o->dq_lk = b, o->dv_lk = e, o->m = m;
}

/* The pairs of a multi-dof root joint's dofs l (n from i0) with every dof k of its subtree
   [k0, k1), eight k at a time: the root's dofs would fill most lanes of every descendant's
   first block of ancestors; here row l's entries are rows of 8 (k's rows one lane each). */
MBS_ALWAYS_INLINE void root_pairs_m(const mbs_derivs *w, int i0, int n, int k0, int k1,
                                    const pair_out *o, int with_m)
{
    for (int l = i0; l < i0 + n; ++l) {
        const double *L = w->dof + MBS_DV_STRIDE * l;
        double *rq = o->dq + (size_t)l * o->ld, *rv = o->dv + (size_t)l * o->ld;
        double *rm = with_m ? o->M + (size_t)l * o->ldm : NULL;
        for (int k = k0; k < k1; k += 8) {
            root_lanes v;
            root_entries(w, L, k, with_m, &v);
            const int nk = k1 - k < 8 ? k1 - k : 8;
            if (nk == 8) {
                row_add(rq + k, &v.dq_lk), row_add(rv + k, &v.dv_lk);
                if (with_m) D8_STORE(rm + k, v.m);
            }
            for (int e = 0; e < nk; ++e) {
                const size_t at = (size_t)(k + e) * o->ld + (size_t)l;
                if (l >= o->c0) /* column l kept */
                    o->dq[at] += D8_LANE(v.dq_kl, e), o->dv[at] += D8_LANE(v.dv_kl, e);
                if (nk < 8) rq[k + e] += D8_LANE(v.dq_lk, e), rv[k + e] += D8_LANE(v.dv_lk, e);
                if (with_m) {
                    o->M[(size_t)(k + e) * o->ldm + (size_t)l] = D8_LANE(v.m, e);
                    if (nk < 8) rm[k + e] = D8_LANE(v.m, e);
                }
            }
        }
    }
}

/* root_pairs_m with M's entries or without. */
MBS_WIDE_LOOPS static void root_pairs(const mbs_derivs *w, int i0, int n, int k0, int k1,
                                      const pair_out *o)
{
    if (o->M) root_pairs_m(w, i0, n, k0, k1, o, 1);
    else root_pairs_m(w, i0, n, k0, k1, o, 0);
}

/* See derivs.h: a root joint of more than one dof (a floating base) by root_pairs, and off
   the path of its subtree (its dofs precede every dof there, the depth-first layout). */
void mbs_derivs_pairs(const mbs_data *d, double *dq, double *dv, int ld, double *M, int ldm)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    const pair_out o = {dq, dv, M, (size_t)ld, (size_t)ldm, w->ndead};
    int skip = 0; /* dofs of the current root left off the path */
    for (int s = 0; s < m->ntree; ++s) {
        const int *e = w->wtree + 4 * s; /* child, parent, nv, vadr */
        if (e[1] == 0) skip = 0;
        if (e[2] == 0) continue;
        if (e[1] == 0 && e[2] > 1) {
            root_pairs(w, e[3], e[2], e[3] + e[2], w->sub_end[e[0]], &o);
            skip = e[2];
            continue;
        }
        const int depth = d->dof_depth[e[3]] - skip;
        for (int k = 0; k < e[2]; ++k) dof_pairs(w, e[3] + k, depth, &o);
        for (int k = 0; k < e[2]; ++k) path_push(w, depth + k, e[3] + k);
    }
}
