/* M^-1 and M^-1 B of a tree by the articulated-body recursion (Carpentier 2018, "Analytical
 * Inverse of the Joint Space Inertia Matrix", Alg. 1, and ABA itself on many right-hand
 * sides) on the U = IA S and D^-1 of the forward dynamics that just ran (the world-frame
 * pass of world_aba.c, or mbs_aba with its U moved to world axes), in the world axes about
 * each subtree's root origin of the derivative passes (derivs.h). Column j
 * of M^-1 B is the qacc of tau = B[:, j] at rest without gravity; in world axes a force or
 * an acceleration passes between bodies unchanged, so with W_k = sum_l Dinv[k][l] U_l:
 *   backward (children first), for the joint's dofs i:
 *       X[i][j] = D^-1 (B[i][j] - S^T F_b[:, j]),   F_p[:, j] += F_b[:, j] + U X[i][j],
 *   forward (parents first):
 *       X[i][j] -= W^T P_p[:, j],   P_b[:, j] = P_p[:, j] + S X[i][j],
 * F the articulated bias forces and P the accelerations of the columns (zero at the world
 * and at the leaves), in slots that live as long as a body's children need them (a chain
 * works in one slot, in place). Eight contiguous columns at a time.
 * The passes go by steps (derivs_data.c): a joint alone, or a run of one-dof joints each the
 * only child joint of the previous one's child body, RUN_GROUPS groups of 8 at a time in
 * registers. A run's backward step comes at its deepest joint's place (its descendants all
 * lie after it in tree order, so they are done), its forward step at its top joint's place;
 * which step assigns a parent's forces (the first in backward order) and the slots follow
 * that order.
 * The backward pass skips the columns a step cannot reach (the layout is depth-first, so a
 * joint's subtree holds the contiguous dofs [vadr, sub_end)): column j of M^-1 only at the
 * ancestors of j, so from the group of 8 of the joint's first dof to its subtree's end;
 * column j of dtau/dq or dtau/dv (rows nonzero at the ancestors and descendants of j alone,
 * as M's, unless a force element couples branches) only in the step's intervals (derivs.h).
 * M^-1 keeps to the upper triangle: the forward pass too starts at the group of the joint's
 * first dof (columns left of it are not wanted); the caller mirrors it.
 * Work O(nv) per column of B. */
#include "derivatives/derivs.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* world_u of the dof i of a one-dof joint into body b: X^T U with the pose's parts in
   place, W = D^-1 U. */
static void one_dof_world_u(const mbs_data *d, mbs_derivs *w, int i, int b)
{
    const double *R = d->x_world[b].R, *o = w->o + 3 * b, *U = d->U + 6 * i;
    const double dinv = d->Dinv[6 * i];
    double *Uw = w->Uw + 6 * i;
    xf_apply_transpose_rp(Uw, R, o, U);
    for (int e = 0; e < 6; ++e) w->Ww[6 * i + e] = dinv * Uw[e];
}

/* U of every dof in world axes about the subtree's root origin (a force: X^T U) and
   W_k = sum_l Dinv[k][l] U_l over the dofs of its joint. */
static void world_u(const mbs_data *d, mbs_derivs *w)
{
    const mbs_model *m = d->model;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const int n = jm->nv, i0 = jm->vadr;
        if (n == 0) continue;
        if (n == 1) {
            one_dof_world_u(d, w, i0, jm->child);
            continue;
        }
        mbs_pose X;
        for (int e = 0; e < 9; ++e) X.R[e] = d->x_world[jm->child].R[e];
        v3_copy(X.p, w->o + 3 * jm->child);
        for (int k = 0; k < n; ++k)
            xf_apply_transpose(w->Uw + 6 * (i0 + k), &X, d->U + 6 * (i0 + k));
        const double *Dinv = d->Dinv + 6 * i0;
        for (int k = 0; k < n; ++k)
            for (int e = 0; e < 6; ++e) {
                double x = 0.0;
                for (int l = 0; l < n; ++l) x += Dinv[n * k + l] * w->Uw[6 * (i0 + l) + e];
                w->Ww[6 * (i0 + k) + e] = x;
            }
    }
}

/* Slot s of the force / acceleration columns, NULL for s < 0: the 6 components of the
   columns j .. j + 7 (j a multiple of 8) at 6 j, 8 apart. */
static double *slot_columns(const mbs_derivs *w, int s)
{
    return s >= 0 ? w->Pm + (size_t)s * 12 * (size_t)w->ldp : NULL;
}

/* ------------------------------------------------------------------ shared forward step */

/* x . v over the 6 components, summed pairwise (three levels of adds, not six: the runs'
   chains wait on it). */
MBS_ALWAYS_INLINE void dot6_d8(mbs_d8 *o, const double *x, const mbs_d8 v[6])
{
    mbs_d8 a, b, c;
    D8_SCALE(a, x[0], v[0]), D8_AXPY(a, x[1], v[1]);
    D8_SCALE(b, x[2], v[2]), D8_AXPY(b, x[3], v[3]);
    D8_SCALE(c, x[4], v[4]), D8_AXPY(c, x[5], v[5]);
    D8_AXPY(a, 1.0, b);
    D8_AXPY(a, 1.0, c);
    *o = a;
}

/* Forward step of a joint (n dofs from i0) over the columns [j0, j1) of the rows X (stride
   ldx): X[i] -= W^T P_p, P_b = P_p + S X[i], the accelerations Pp (NULL at the world) and
   Pb (NULL when no child reads them). In place when Pb == Pp. */
MBS_ALWAYS_INLINE void forward_kernel(const mbs_derivs *w, int i0, int n, double *X,
                                      size_t ldx, const double *Pp, double *Pb,
                                      size_t j0, size_t j1)
{
    n = n < 6 ? n : 6; /* a joint has at most 6 dofs (says so to the compiler) */
    for (size_t j = j0; j < j1; j += 8) {
        mbs_d8 a[6], r[6];
        for (int c = 0; c < 6; ++c) {
            if (Pp) D8_LOAD(a[c], Pp + 6 * j + 8 * (size_t)c);
            else a[c] = D8_ZERO;
        }
        for (int k = 0; k < n; ++k) {
            double *row = X + ldx * (size_t)(i0 + k) + j;
            D8_LOAD(r[k], row);
            if (!Pp) continue;
            mbs_d8 t;
            dot6_d8(&t, w->Ww + 6 * (i0 + k), a);
            D8_SUB(r[k], t);
            D8_STORE(row, r[k]);
        }
        if (!Pb) continue;
        for (int k = 0; k < n; ++k) {
            const double *S = w->dof + MBS_DV_STRIDE * (i0 + k);
            for (int c = 0; c < 6; ++c) /* a free root's S is half zeros in world axes */
                if (n == 1 || S[c] != 0.0) D8_AXPY(a[c], S[c], r[k]);
        }
        for (int c = 0; c < 6; ++c) D8_STORE(Pb + 6 * j + 8 * (size_t)c, a[c]);
    }
}

/* forward_kernel, one-dof joints compiled apart (their vectors stay in registers). */
MBS_WIDE_LOOPS static void forward_joint(const mbs_derivs *w, int i0, int n, double *X,
                                         size_t ldx, const double *Pp, double *Pb,
                                         size_t j0, size_t j1)
{
    if (n == 1) forward_kernel(w, i0, 1, X, ldx, Pp, Pb, j0, j1);
    else forward_kernel(w, i0, n, X, ldx, Pp, Pb, j0, j1);
}

/* The first column of a pass over a joint whose first dof is i: j0, or (upper triangle) the
   group of 8 of i, where the columns of its subtree begin (the tree order puts descendants
   after, and gives them the larger dof indices). */
static size_t first_column(int i, int upper, size_t j0)
{
    return upper ? (size_t)i & ~(size_t)7 : j0;
}

/* Tree joint t's record in the compact table w->wtree (the model's joint records are
   large: loading them stalled the passes). */
typedef struct tree_rec {
    int child, parent, nv, vadr;
} tree_rec;
static inline tree_rec tree_at(const mbs_derivs *w, int t)
{
    const int *e = w->wtree + 4 * t;
    return (tree_rec){e[0], e[1], e[2], e[3]};
}

/* Column groups of 8 a run (below) carries at once: independent chains of operations for
   the processor to overlap, their vectors in registers (4 x 6 of the 32 AVX-512 registers;
   bench_count on a Zen 4: chain 30's derivatives 5 % faster than with 3, slower with 5). */
#define RUN_GROUPS 4
#if defined(__GNUC__) && !defined(__clang__)
#define MBS_UNROLL_GROUPS _Pragma("GCC unroll 4")
#else
#define MBS_UNROLL_GROUPS
#endif

/* The groups of 8 columns from j (before j1) a run carries at once: the fewest passes of
   at most RUN_GROUPS, as even as they go (nine groups as 3 + 3 + 3, not 4 + 4 + 1: a pass
   of one group waits on its chains). */
static int run_groups(size_t j, size_t j1)
{
    const size_t n = (j1 - j) / 8, passes = (n + RUN_GROUPS - 1) / RUN_GROUPS;
    return passes ? (int)((n + passes - 1) / passes) : 0;
}

/* forward_kernel over a run of n one-dof joints (their dofs dof[0 .. n - 1], parent to
   child), RUN_GROUPS column groups at a time with their accelerations in registers: the same
   operations in the same order per column (a joint past its first_column's group skips it,
   and so do those below). */
MBS_WIDE_LOOPS static void forward_run(const mbs_derivs *w, const int *dof, int n, double *X,
                                       size_t ldx, const double *Pp, double *Pb, int upper,
                                       size_t j0, size_t j1)
{
    int ng = 0;
    for (size_t j = first_column(dof[0], upper, j0); j < j1; j += 8 * (size_t)ng) {
        ng = run_groups(j, j1);
        mbs_d8 a[RUN_GROUPS][6], r;
        for (int g = 0; g < ng; ++g)
            for (int c = 0; c < 6; ++c) {
                if (Pp) D8_LOAD(a[g][c], Pp + 6 * (j + 8 * (size_t)g) + 8 * (size_t)c);
                else a[g][c] = D8_ZERO;
            }
        for (int k = 0; k < n; ++k) {
            const int i = dof[k];
            const size_t s0 = first_column(i, upper, j0);
            const double *W = w->Ww + 6 * i, *S = w->dof + MBS_DV_STRIDE * i;
            MBS_UNROLL_GROUPS
            for (int g = 0; g < RUN_GROUPS; ++g) {
                if (g >= ng || j + 8 * (size_t)g < s0) continue;
                double *row = X + ldx * (size_t)i + j + 8 * (size_t)g;
                D8_LOAD(r, row);
                if (Pp || k > 0) {
                    mbs_d8 t;
                    dot6_d8(&t, W, a[g]);
                    D8_SUB(r, t);
                    D8_STORE(row, r);
                }
                if (k == n - 1 && !Pb) continue;
                for (int c = 0; c < 6; ++c) D8_AXPY(a[g][c], S[c], r);
            }
        }
        const size_t s1 = first_column(dof[n - 1], upper, j0);
        for (int g = 0; Pb && g < ng; ++g)
            if (j + 8 * (size_t)g >= s1)
                for (int c = 0; c < 6; ++c)
                    D8_STORE(Pb + 6 * (j + 8 * (size_t)g) + 8 * (size_t)c, a[g][c]);
    }
}

/* The joints of step s (derivs.h): their count, tree indices at *tree and dofs at *dof. */
static int step_joints(const mbs_derivs *w, int s, const int **tree, const int **dof)
{
    *tree = w->step_tree + w->step_at[s], *dof = w->step_dof + w->step_at[s];
    return w->step_at[s + 1] - w->step_at[s];
}

/* Forward pass over the columns [j0, j1) (upper: from each joint's first_column), a run at
   its top joint's place. */
static void forward_pass(mbs_derivs *w, double *X, size_t ldx, int upper, size_t j0,
                         size_t j1)
{
    for (int s = 0; s < w->nstep; ++s) {
        const int *tree, *dof;
        const int n = step_joints(w, s, &tree, &dof);
        const tree_rec top = tree_at(w, tree[0]);
        const double *Pp = top.parent > 0 ? slot_columns(w, w->pslot[top.parent]) : NULL;
        double *Pb = slot_columns(w, w->pslot[tree_at(w, tree[n - 1]).child]);
        if (n > 1)
            forward_run(w, dof, n, X, ldx, Pp, Pb, upper, j0, j1);
        else if (Pp || Pb)
            forward_joint(w, top.vadr, top.nv, X, ldx, Pp, Pb,
                          first_column(top.vadr, upper, j0), j1);
    }
}

/* ------------------------------------------------------------------ M^-1 B */

/* Backward step of a joint (n dofs from i0, D^-1 at Dinv) over the columns [j0, j1) of X
   (stride ldx): the child's forces Fb (NULL: none, a leaf), into the parent's Fp (NULL at
   the world), assigned (the parent's first contribution; in place when Fp == Fb) or added. */
MBS_ALWAYS_INLINE void backward_kernel(const mbs_derivs *w, int i0, int n, const double *Dinv,
                                       double *X, size_t ldx, const double *Fb, double *Fp,
                                       int assign, size_t j0, size_t j1)
{
    n = n < 6 ? n : 6;
    for (size_t j = j0; j < j1; j += 8) {
        mbs_d8 f[6], r[6], x[6];
        for (int c = 0; c < 6; ++c) {
            if (Fb) D8_LOAD(f[c], Fb + 6 * j + 8 * (size_t)c);
            else f[c] = D8_ZERO;
        }
        for (int k = 0; k < n; ++k) {
            const double *S = w->dof + MBS_DV_STRIDE * (i0 + k);
            mbs_d8 t = D8_ZERO;
            D8_LOAD(r[k], X + ldx * (size_t)(i0 + k) + j);
            if (Fb && n == 1) {
                dot6_d8(&t, S, f);
                D8_SUB(r[k], t);
            } else if (Fb) { /* a free root's S is half zeros in world axes */
                for (int c = 0; c < 6; ++c)
                    if (S[c] != 0.0) D8_AXPY(t, S[c], f[c]);
                D8_SUB(r[k], t);
            }
        }
        for (int k = 0; k < n; ++k) {
            x[k] = D8_ZERO;
            for (int l = 0; l < n; ++l) D8_AXPY(x[k], Dinv[n * k + l], r[l]);
            D8_STORE(X + ldx * (size_t)(i0 + k) + j, x[k]);
        }
        if (!Fp) continue;
        for (int k = 0; k < n; ++k)
            for (int c = 0; c < 6; ++c) D8_AXPY(f[c], w->Uw[6 * (i0 + k) + c], x[k]);
        for (int c = 0; c < 6; ++c) {
            double *o = Fp + 6 * j + 8 * (size_t)c;
            if (!assign) {
                mbs_d8 g;
                D8_LOAD(g, o);
                D8_AXPY(f[c], 1.0, g);
            }
            D8_STORE(o, f[c]);
        }
    }
}

/* backward_kernel, one-dof joints compiled apart. */
MBS_WIDE_LOOPS static void backward_joint(const mbs_derivs *w, int i0, int n,
                                          const double *Dinv, double *X, size_t ldx,
                                          const double *Fb, double *Fp, int assign,
                                          size_t j0, size_t j1)
{
    if (n == 1) backward_kernel(w, i0, 1, Dinv, X, ldx, Fb, Fp, assign, j0, j1);
    else backward_kernel(w, i0, n, Dinv, X, ldx, Fb, Fp, assign, j0, j1);
}

/* A joint without dofs passes its child's forces on: F_p (=, +=) F_b over [j0, j1). */
static void pass_forces(const double *Fb, double *Fp, int assign, size_t j0, size_t j1)
{
    for (int c = 0; c < 6; ++c)
        for (size_t j = j0; j < j1; ++j) {
            const size_t at = 6 * (j & ~(size_t)7) + 8 * (size_t)c + (j & 7);
            const double f = Fb ? Fb[at] : 0.0;
            double *o = Fp + at;
            *o = assign ? f : *o + f;
        }
}

/* Zero forces over the column groups [j0, j1) (a parent's columns its first contributor
   does not reach). */
static void zero_forces(double *F, size_t j0, size_t j1)
{
    for (size_t j = j0; j < j1; j += 8)
        for (int c = 0; c < 6; ++c) D8_STORE(F + 6 * j + 8 * (size_t)c, D8_ZERO);
}

/* backward_kernel over a run of n one-dof joints (dofs dof[0 .. n - 1], parent to child; Fb
   the forces of the deepest one's child, Fp those of the top's parent), RUN_GROUPS column
   groups at a time with their forces in registers: the same operations in the same order per
   column (a group starts at the deepest joint whose first_column reaches it, from the zero
   forces of those below). */
MBS_WIDE_LOOPS static void backward_run(const mbs_data *d, const mbs_derivs *w, const int *dof,
                                        int n, double *X, size_t ldx, const double *Fb,
                                        double *Fp, int assign, int upper, size_t j0,
                                        size_t j1)
{
    int ng = 0;
    for (size_t j = first_column(dof[0], upper, j0); j < j1; j += 8 * (size_t)ng) {
        ng = run_groups(j, j1);
        const size_t s1 = first_column(dof[n - 1], upper, j0);
        mbs_d8 f[RUN_GROUPS][6], r, x;
        MBS_UNROLL_GROUPS
        for (int g = 0; g < RUN_GROUPS; ++g)
            for (int c = 0; c < 6; ++c) {
                const size_t jg = j + 8 * (size_t)g;
                if (g < ng && Fb && jg >= s1) D8_LOAD(f[g][c], Fb + 6 * jg + 8 * (size_t)c);
                else f[g][c] = D8_ZERO;
            }
        for (int k = n - 1; k >= 0; --k) {
            const int i = dof[k];
            const size_t s = first_column(i, upper, j0);
            const double *S = w->dof + MBS_DV_STRIDE * i, *U = w->Uw + 6 * i, dinv = d->Dinv[6 * i];
            MBS_UNROLL_GROUPS
            for (int g = 0; g < RUN_GROUPS; ++g) {
                const size_t jg = j + 8 * (size_t)g;
                if (g >= ng || jg < s) continue;
                double *row = X + ldx * (size_t)i + jg;
                D8_LOAD(r, row);
                if (k < n - 1 || Fb) {
                    mbs_d8 t;
                    dot6_d8(&t, S, f[g]);
                    D8_SUB(r, t);
                }
                D8_SCALE(x, dinv, r);
                D8_STORE(row, x);
                if (k == 0 && !Fp) continue;
                for (int c = 0; c < 6; ++c) D8_AXPY(f[g][c], U[c], x);
            }
        }
        for (int g = 0; Fp && g < ng; ++g)
            for (int c = 0; c < 6; ++c) {
                double *o = Fp + 6 * (j + 8 * (size_t)g) + 8 * (size_t)c;
                if (!assign) {
                    mbs_d8 h;
                    D8_LOAD(h, o);
                    D8_AXPY(f[g][c], 1.0, h);
                }
                D8_STORE(o, f[g][c]);
            }
    }
}

/* The columns [j0, j1) of step s (a joint alone or a run): backward_run, backward_joint or
   pass_forces, from the forces Fb into Fp. */
static void step_columns(const mbs_data *d, const mbs_derivs *w, int s, double *X,
                         size_t ldx, const double *Fb, double *Fp, int upper, size_t j0,
                         size_t j1)
{
    const int *tree, *dof;
    const int n = step_joints(w, s, &tree, &dof), assign = w->fassign[s];
    const tree_rec top = tree_at(w, tree[0]);
    if (n > 1)
        backward_run(d, w, dof, n, X, ldx, Fb, Fp, assign, upper, j0, j1);
    else if (top.nv > 0)
        backward_joint(w, top.vadr, top.nv, d->Dinv + 6 * top.vadr, X, ldx, Fb, Fp, assign,
                       j0, j1);
    else if (Fp)
        pass_forces(Fb, Fp, assign, j0, j1);
}

/* One past the columns of the subtree of body b's joint (a multiple of 8, at most j1). */
static size_t subtree_column_end(const mbs_derivs *w, int b, size_t j1)
{
    const size_t e = ((size_t)w->sub_end[b] + 7) & ~(size_t)7;
    return e < j1 ? e : j1;
}

/* Backward step s at the place of its deepest joint over the columns [j0, j1), into its
   top's parent (assigned or added as fassign says), where its rows or forces can be nonzero
   (Carpentier 2018: M^-1's column j reaches the ancestors of j alone; dtau's rows keep M's
   branch-induced sparsity, derivs.h tau_ivl). The first contributor zeroes the rest of the
   parent's columns. */
static void backward_step(const mbs_data *d, const mbs_derivs *w, int s, double *X,
                          size_t ldx, int upper, size_t j0, size_t j1)
{
    const int *tree, *dof;
    const int n = step_joints(w, s, &tree, &dof);
    const tree_rec top = tree_at(w, tree[0]);
    const int p = top.parent, zero = p > 0 && w->fassign[s];
    const double *Fb = slot_columns(w, w->fslot[tree_at(w, tree[n - 1]).child]);
    double *Fp = p > 0 ? slot_columns(w, w->fslot[p]) : NULL;
    if (upper) { /* the top's subtree, from the group of its first dof */
        const size_t s0 = first_column(top.vadr, 1, j0), e = subtree_column_end(w, top.child, j1);
        if (zero) {
            zero_forces(Fp, first_column(w->body_vadr[p], 1, j0), s0);
            zero_forces(Fp, e, subtree_column_end(w, p, j1));
        }
        if (s0 < e) step_columns(d, w, s, X, ldx, Fb, Fp, 1, s0, e);
        return;
    }
    size_t done = j0;
    const int layout = w->ndead > 0, *at = w->tau_at[layout], *ivl = w->tau_ivl[layout];
    for (int k = at[s]; k < at[s + 1]; ++k) {
        const size_t c0 = 8 * (size_t)ivl[2 * k], c1 = 8 * (size_t)ivl[2 * k + 1];
        const size_t a = c0 > j0 ? c0 : j0, b = c1 < j1 ? c1 : j1;
        if (a >= b) continue;
        if (zero) zero_forces(Fp, done, a);
        step_columns(d, w, s, X, ldx, Fb, Fp, 0, a, b);
        done = b;
    }
    if (zero) zero_forces(Fp, done, j1);
}

/* X <- M^-1 X over the columns [j0, j1) (upper: each joint from its first_column, for the
   upper triangle of M^-1 B when B's rows of a joint are zero left of it). */
static void solve(const mbs_data *d, mbs_derivs *w, double *X, size_t ldx, int upper,
                  size_t j0, size_t j1)
{
    for (int k = 0; k < w->nstep; ++k) backward_step(d, w, w->bstep[k], X, ldx, upper, j0, j1);
    forward_pass(w, X, ldx, upper, j0, j1);
}

/* See derivs.h. */
void mbs_derivs_solve(mbs_data *d, double *X, int ldx, int j0, int j1)
{
    solve(d, d->derivs, X, (size_t)ldx, 0, (size_t)j0, (size_t)j1);
}

/* See derivs.h: the solve of M X = I on the upper triangle (column j of I is zero above its
   row), each row from its joint's first_column (a joint's passes read all its rows from
   there: a joint across a group boundary must not read what an earlier call left). */
void mbs_derivs_minv(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = d->derivs;
    const int nv = m->nv;
    const size_t ldp = (size_t)w->ldp;
    for (int i = 0; i < nv; ++i) {
        const size_t g = first_column(w->body_vadr[w->dof_body[i]], 1, 0);
        for (size_t j = g; j < ldp; j += 8) D8_STORE(w->Minv + ldp * (size_t)i + j, D8_ZERO);
        w->Minv[ldp * (size_t)i + (size_t)i] = 1.0;
    }
    solve(d, w, w->Minv, ldp, 1, 0, ldp);
}

/* See derivs.h. */
void mbs_derivs_aba_world(mbs_data *d) { world_u(d, d->derivs); }
