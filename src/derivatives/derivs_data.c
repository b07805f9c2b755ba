/* The workspace of the derivatives, linearisation and modes (derivs.h), taken once at
 * mbs_data_create: nothing in src/derivatives/ or src/analysis/ allocates after it. */
#include <stdlib.h>

#include "derivatives/derivs.h"
#include "events/events.h"
#include "core/linalg.h"

/* calloc of at least one element. */
static void *alloc0(size_t n, size_t sz) { return calloc(n > 0 ? n : 1, sz); }

/* The first free slot (marked used), counting the slots ever used in w->nslot. */
static int take_slot(mbs_derivs *w, unsigned char *used)
{
    int s = 0;
    while (used[s]) ++s;
    used[s] = 1;
    if (s + 1 > w->nslot) w->nslot = s + 1;
    return s;
}

/* The joint of tree index t. */
static const mbs_joint_model *tree_joint(const mbs_model *m, int t)
{
    return &m->joints[m->tree[t]];
}

/* 1 when tree joint t continues the run of its parent body's joint: both have one dof and t
   is the only child joint of that body (nchild: child joints per body). */
static int run_link(const mbs_model *m, const int *nchild, int t)
{
    const mbs_joint_model *jm = tree_joint(m, t);
    const int p = jm->parent;
    return jm->nv == 1 && p > 0 && nchild[p] == 1 && m->joints[m->bodies[p].joint].nv == 1;
}

/* The steps of the column passes (derivs.h): every joint that does not continue a run
   starts one and follows its run down the links; then the backward order, by deepest joint
   (a run's descendants all lie after its deepest joint in tree order). next, owner: ntree
   ints; nchild, tb: nbody ints of scratch. */
static void column_steps(const mbs_model *m, mbs_derivs *w, int *next, int *owner,
                         int *nchild, int *tb)
{
    for (int b = 0; b < m->nbody; ++b) nchild[b] = 0;
    for (int t = 0; t < m->ntree; ++t) {
        ++nchild[tree_joint(m, t)->parent];
        tb[tree_joint(m, t)->child] = t, next[t] = owner[t] = -1;
    }
    for (int t = 0; t < m->ntree; ++t)
        if (run_link(m, nchild, t)) next[tb[tree_joint(m, t)->parent]] = t;
    int k = 0;
    w->nstep = 0;
    for (int t = 0; t < m->ntree; ++t) {
        if (run_link(m, nchild, t)) continue;
        w->step_at[w->nstep++] = k;
        for (int u = t; u >= 0; u = next[u])
            w->step_tree[k] = u, w->step_dof[k++] = tree_joint(m, u)->vadr;
        owner[w->step_tree[k - 1]] = w->nstep - 1;
    }
    w->step_at[w->nstep] = k;
    k = 0;
    for (int t = m->ntree - 1; t >= 0; --t)
        if (owner[t] >= 0) w->bstep[k++] = owner[t];
}

/* The body a step's forces come from (its deepest joint's child) and the one they go to
   (its top joint's parent). */
static void step_bodies(const mbs_model *m, const mbs_derivs *w, int s, int *b, int *p)
{
    *b = tree_joint(m, w->step_tree[w->step_at[s + 1] - 1])->child;
    *p = tree_joint(m, w->step_tree[w->step_at[s]])->parent;
}

/* Slots of the acceleration columns of the forward pass (minv.c, steps in order): a body
   with children keeps one until its last child has read it; the last child's step takes over
   its parent's slot (in place), the others a free one. Forces of the backward pass likewise,
   steps in backward order: the first to reach a parent hands its slot over, or a new one. */
static void column_slots(const mbs_model *m, mbs_derivs *w, int *last, unsigned char *used)
{
    const int nb = m->nbody;
    for (int b = 0; b < nb; ++b) w->pslot[b] = w->fslot[b] = -1, last[b] = -1, used[b] = 0;
    for (int t = 0; t < m->ntree; ++t) last[tree_joint(m, t)->parent] = t;
    for (int s = 0; s < w->nstep; ++s) {
        int b, p;
        step_bodies(m, w, s, &b, &p);
        const int keep = last[b] >= 0, t0 = w->step_tree[w->step_at[s]];
        const int inherit = p > 0 && last[p] == t0 ? w->pslot[p] : -1;
        if (inherit >= 0 && !keep) used[inherit] = 0;
        if (keep) w->pslot[b] = inherit >= 0 ? inherit : take_slot(w, used);
    }
    for (int b = 0; b < nb; ++b) used[b] = 0;
    for (int k = 0; k < w->nstep; ++k) {
        const int s = w->bstep[k];
        int b, p;
        step_bodies(m, w, s, &b, &p);
        w->fassign[s] = p > 0 && w->fslot[p] < 0;
        if (w->fassign[s]) w->fslot[p] = w->fslot[b] >= 0 ? w->fslot[b] : take_slot(w, used);
        else if (w->fslot[b] >= 0) used[w->fslot[b]] = 0;
    }
}

/* sub_end of every body: one past the last dof of its joint's subtree (its joint's vadr when
   that holds none), children first. */
static void subtree_ends(const mbs_model *m, mbs_derivs *w)
{
    for (int b = 0; b < m->nbody; ++b) w->sub_end[b] = 0;
    for (int t = m->ntree - 1; t >= 0; --t) {
        const mbs_joint_model *jm = tree_joint(m, t);
        int *e = &w->sub_end[jm->child];
        if (*e < jm->vadr + jm->nv) *e = jm->vadr + jm->nv;
        if (*e > w->sub_end[jm->parent]) w->sub_end[jm->parent] = *e;
    }
}

/* derivs.h's joint_elements: no force element but those acting on one joint's dofs (the
   others may couple any two branches, read body velocities and write f_ext). */
static int joint_elements_only(const mbs_model *m)
{
    for (int e = 0; e < m->nforce; ++e)
        if (m->forces[e].ops != &mbs_force_joint_spring_damper_ops &&
            m->forces[e].ops != &mbs_force_joint_force_ops)
            return 0;
    return 1;
}

/* Append the group interval [g0, g1) to o (n of them), merged with the last one when they
   touch; returns the new count. Intervals arrive sorted by g0. */
static int add_groups(int *o, int n, int g0, int g1)
{
    if (n > 0 && g0 <= o[2 * n - 1]) {
        if (g1 > o[2 * n - 1]) o[2 * n - 1] = g1;
        return n;
    }
    o[2 * n] = g0, o[2 * n + 1] = g1;
    return n + 1;
}

/* Append the groups of the dofs [a, b) of one half of X (its column of dof j at off + j -
   nd, the first nd dofs left out) to o (n of them; NULL: count only); returns the count. */
static int add_dofs(int *o, int n, int off, int nd, int a, int b)
{
    a = a > nd ? a : nd;
    if (b <= a) return n;
    return o ? add_groups(o, n, (off + a - nd) / 8, (off + b - nd + 7) / 8) : n + 1;
}

/* The column groups of X (dtau/dq | dtau/dv side by side, each half without its first nd
   columns) where the rows of step s can be nonzero, as sorted intervals into o (NULL: count
   only): the dofs of the top joint's ancestors and of its subtree, in both halves; every
   group unless the sparsity holds. dofs: 2 ntree + 2 ints of scratch. Returns the count. */
static int step_groups(const mbs_model *m, const mbs_derivs *w, int s, int nd, int *dofs,
                       int *o)
{
    const int nl = m->nv - nd, ngx = (2 * nl + 7) / 8;
    int n = 0, na = 0;
    if (!w->joint_elements) return o ? add_groups(o, 0, 0, ngx) : 1;
    const mbs_joint_model *top = tree_joint(m, w->step_tree[w->step_at[s]]);
    for (int b = top->parent; b > 0; b = m->bodies[b].parent) { /* ancestors, deepest first */
        const mbs_joint_model *jm = &m->joints[m->bodies[b].joint];
        if (jm->nv > 0) dofs[2 * na] = jm->vadr, dofs[2 * na + 1] = jm->vadr + jm->nv, ++na;
    }
    for (int half = 0; half < 2; ++half) {
        const int off = half * nl;
        for (int k = na - 1; k >= 0; --k) /* root first: increasing dofs */
            n = add_dofs(o, n, off, nd, dofs[2 * k], dofs[2 * k + 1]);
        n = add_dofs(o, n, off, nd, top->vadr, w->sub_end[top->child]);
    }
    return n;
}

/* The column-group intervals of every step for X without the first nd columns of each half,
   into tau_at[layout], tau_ivl[layout] (derivs.h; MBS_OK or MBS_ERR_NOMEM). */
static int column_groups(const mbs_model *m, mbs_derivs *w, int layout, int nd)
{
    int *dofs = alloc0(2 * (size_t)m->ntree + 2, sizeof(int)), total = 0;
    int *at = w->tau_at[layout] = alloc0((size_t)w->nstep + 1, sizeof(int));
    if (!dofs || !at) {
        free(dofs);
        return MBS_ERR_NOMEM;
    }
    for (int s = 0; s < w->nstep; ++s) total += step_groups(m, w, s, nd, dofs, NULL);
    int *ivl = w->tau_ivl[layout] = alloc0(2 * (size_t)total, sizeof(int));
    if (ivl) {
        int k = 0;
        for (int s = 0; s < w->nstep; ++s) {
            at[s] = k;
            k += step_groups(m, w, s, nd, dofs, ivl + 2 * k);
        }
        at[w->nstep] = k;
    }
    free(dofs);
    return ivl ? MBS_OK : MBS_ERR_NOMEM;
}

/* derivs.h's lin_root: 3 when the first tree joint is a free joint on the world (its
   translations dofs 0..2, their velocity in world axes: free.c), tau keeps the tree's
   sparsity (force elements on single joints only) and no element acts on those dofs. */
static int floating_translations(const mbs_model *m, const mbs_derivs *w)
{
    if (m->ntree == 0 || !w->joint_elements) return 0;
    const mbs_joint_model *jm = tree_joint(m, 0);
    if (jm->parent != 0 || jm->vadr != 0 ||
        (jm->ops != &mbs_joint_free_quat_ops && jm->ops != &mbs_joint_free_cardan_ops))
        return 0;
    for (int e = 0; e < m->nforce; ++e) /* each on one joint's dof (joint_elements) */
        if (m->forces[e].vindex >= 0 && m->forces[e].vindex < 3) return 0;
    return 3;
}

/* The steps and slots of the column passes (MBS_OK or MBS_ERR_NOMEM). */
static int column_plan(const mbs_model *m, mbs_derivs *w)
{
    const size_t nt = (size_t)m->ntree, nb = (size_t)m->nbody;
    w->pslot = alloc0(nb, sizeof(int));
    w->fslot = alloc0(nb, sizeof(int));
    w->step_at = alloc0(nt + 1, sizeof(int));
    w->step_tree = alloc0(nt, sizeof(int));
    w->step_dof = alloc0(nt, sizeof(int));
    w->bstep = alloc0(nt, sizeof(int));
    w->fassign = alloc0(nt, 1);
    int *ti = alloc0(2 * nt, sizeof(int)), *bi = alloc0(2 * nb, sizeof(int));
    unsigned char *used = alloc0(nb, 1);
    w->sub_end = alloc0(nb, sizeof(int));
    w->body_vadr = alloc0(nb, sizeof(int));
    w->dof_body = alloc0((size_t)m->nv, sizeof(int));
    const int ok = w->pslot && w->fslot && w->step_at && w->step_tree && w->step_dof &&
                   w->bstep && w->fassign && w->sub_end && w->body_vadr && w->dof_body && ti &&
                   bi && used;
    if (ok) {
        column_steps(m, w, ti, ti + nt, bi, bi + nb);
        column_slots(m, w, bi, used);
        subtree_ends(m, w);
        for (int t = 0; t < m->ntree; ++t) {
            const mbs_joint_model *jm = tree_joint(m, t);
            w->body_vadr[jm->child] = jm->vadr;
            for (int k = 0; k < jm->nv; ++k) w->dof_body[jm->vadr + k] = jm->child;
        }
        w->joint_elements = joint_elements_only(m);
        w->lin_root = floating_translations(m, w);
    }
    free(ti), free(bi), free(used);
    if (!ok || column_groups(m, w, 0, 0) != MBS_OK) return MBS_ERR_NOMEM;
    return w->lin_root ? column_groups(m, w, 1, w->lin_root) : MBS_OK;
}

/* The world-frame articulated-body pass's arrays (world_aba.c): its per-body and per-dof
   scratch, each tree joint's child, parent, dofs and first dof in tree order, and whether
   it can serve the model. */
static int world_aba_create(const mbs_model *m, mbs_derivs *w)
{
    const size_t nv = (size_t)m->nv, nb = (size_t)m->nbody;
    w->cb = alloc0(6 * nb, sizeof(double));
    w->kq = alloc0(nv, sizeof(double));
    w->IAw = alloc0(48 * nb, sizeof(double));
    w->sd = alloc0(6 * nv, sizeof(double));
    w->wtree = alloc0(4 * (size_t)m->ntree, sizeof(int));
    if (!w->cb || !w->kq || !w->IAw || !w->sd || !w->wtree) return MBS_ERR_NOMEM;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        int *e = w->wtree + 4 * t;
        e[0] = jm->child, e[1] = m->bodies[jm->child].parent, e[2] = jm->nv, e[3] = jm->vadr;
    }
    w->world_model = mbs_derivs_world_aba_model(m);
    return MBS_OK;
}

/* See derivs.h. */
int mbs_derivs_create(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_derivs *w = calloc(1, sizeof *w);
    d->derivs = w;
    if (!w) return MBS_ERR_NOMEM;
    const size_t nv = (size_t)m->nv, nq = (size_t)m->nq, nb = (size_t)m->nbody;
    w->nv = m->nv, w->nq = m->nq, w->nbody = m->nbody;
    w->nx_max = 2 * m->nv + m->nux;
    const size_t nx = (size_t)w->nx_max, nvx = nv + (size_t)m->nux;
    w->lwork = mbs_linalg_eig_lwork(w->nx_max, 0);
    const size_t nux = (size_t)m->nux, lwork = (size_t)w->lwork;
    const size_t nrow = (size_t)m->ncon + (size_t)mbs_nqrow(m); /* cut and coordinate rows */
    const size_t lnv = m->ncon > 0 ? nv : 0, lmn = lnv < (size_t)m->ncon ? lnv : (size_t)m->ncon;
    int ok = 1;
#define X(type, name, n) ok &= (w->name = alloc0((n), sizeof(type))) != NULL;
    MBS_DERIVS_ARRAYS(X)
#undef X
    if (!ok) return MBS_ERR_NOMEM;
    for (int i = 0; i < m->nv; ++i) w->ident[i] = i;
    if (column_plan(m, w) != MBS_OK) return MBS_ERR_NOMEM;
    w->ldp = (m->nv + 7) / 8 * 8;
    const size_t ldp = (size_t)w->ldp;
    w->Minv = alloc0(nv * ldp, sizeof(double));
    w->Xmem = alloc0(2 * nv * ldp + 8, sizeof(double));
    w->X = w->Xmem ? w->Xmem + 8 : NULL;
    w->Uw = alloc0(6 * nv, sizeof(double));
    w->Ww = alloc0(6 * nv, sizeof(double));
    w->Pm = alloc0((size_t)w->nslot * 12 * ldp, sizeof(double));
    if (!w->Minv || !w->X || !w->Uw || !w->Ww || !w->Pm || world_aba_create(m, w) != MBS_OK)
        return MBS_ERR_NOMEM;
    w->cap = w->ldp;
    w->path = alloc0(21 * ldp, sizeof(double));
    w->pidx = alloc0(ldp, sizeof(int));
    w->ldkv = m->nv + 8;
    w->kvec = alloc0(MBS_KVEC * (size_t)w->ldkv, sizeof(double));
    w->lds = (m->nv + 7) / 8 * 8;
    w->lane = alloc0(MBS_LANE_N * (size_t)w->lds, sizeof(double));
    w->ldb = (m->ntree + 7) / 8 * 8;
    w->brow = alloc0(MBS_BODY_N * (size_t)w->ldb + 1, sizeof(double));
    w->dslot = alloc0(nv, sizeof(int));
    w->one = alloc0(nv, sizeof(int));
    if (!w->path || !w->pidx || !w->kvec || !w->lane || !w->dslot || !w->one || !w->brow)
        return MBS_ERR_NOMEM;
    for (int i = 0; i < m->nv; ++i) {
        w->dslot[i] = m->joints[m->dof_joint[i]].nv == 1 ? w->none : -1;
        if (w->dslot[i] >= 0) w->one[w->none++] = i;
    }
    return MBS_OK;
}

/* See derivs.h (NULL allowed). */
void mbs_derivs_destroy(mbs_data *d)
{
    mbs_derivs *w = d ? d->derivs : NULL;
    if (!w) return;
#define X(type, name, n) free(w->name);
    MBS_DERIVS_ARRAYS(X)
#undef X
    void *p[] = {w->Minv, w->Xmem, w->Uw, w->Ww, w->Pm, w->pslot, w->fslot, w->fassign,
                 w->step_at, w->step_tree, w->step_dof, w->bstep, w->sub_end, w->body_vadr,
                 w->dof_body, w->tau_at[0], w->tau_at[1], w->tau_ivl[0], w->tau_ivl[1],
                 w->path, w->pidx, w->kvec, w->lane, w->dslot, w->brow, w->one,
                 w->cb, w->kq, w->IAw, w->sd, w->wtree}; /* world_aba_create's */
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    free(w);
    d->derivs = NULL;
}
