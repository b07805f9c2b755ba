/* Finding the assemblies of a model's loops at compile (closure.h): the candidates of every
 * loop (assembly_spatial.c, assembly_planar.c), one per loop with dependent coordinates no
 * two loops share, and a solve order. */
#include "loops/analytic/closure.h"

#include <stdlib.h>

#include "loops/constraints.h"

/* The candidates of one loop. */
typedef struct cand_list {
    mbs_assembly *a;
    int n, cap;
} cand_list;

/* mbs_asm_offer: append a copy of a. */
static int offer_push(void *ctx, const mbs_assembly *a)
{
    cand_list *l = ctx;
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 8;
        mbs_assembly *p = realloc(l->a, (size_t)cap * sizeof *p);
        if (!p) return MBS_ERR_NOMEM;
        l->a = p, l->cap = cap;
    }
    l->a[l->n++] = *a;
    return MBS_OK;
}

/* See closure.h. */
int mbs_asm_is_rp(const mbs_joint_model *j)
{
    return j->ops == &mbs_joint_revolute_ops || j->ops == &mbs_joint_prismatic_ops;
}

/* See closure.h. */
void mbs_asm_add_dofs(const mbs_model *m, mbs_assembly *a, int j, int skip, double sign)
{
    const mbs_joint_model *jm = &m->joints[j];
    for (int i = 0; i < jm->nv; ++i) {
        if (i == skip) continue;
        a->dep_sign[a->ndep] = sign;
        a->dep[a->ndep++] = jm->vadr + i;
    }
}

/* Nearest common ancestor of bodies a and b. */
static int ancestor(const mbs_model *m, int a, int b)
{
    for (int x = a; x >= 0; x = m->bodies[x].parent)
        for (int y = b; y >= 0; y = m->bodies[y].parent)
            if (x == y) return x;
    return MBS_WORLD;
}

/* The loop of cut icut: its bodies and the tree joints of its path (C side from C up, then
   P side from P up); allocates l->joint and l->side. */
static int loop_init(const mbs_model *m, const mbs_con_topo *t, const mbs_pose *xw0, int icut,
                     mbs_asm_loop *l)
{
    const mbs_joint_model *c = &m->joints[t->cut[icut]];
    l->m = m, l->xw0 = xw0, l->cut = t->cut[icut], l->icut = icut;
    l->P = c->parent, l->C = c->child, l->A = ancestor(m, c->parent, c->child);
    int n = 0;
    for (int s = 0; s < 2; ++s)
        for (int b = s ? l->P : l->C; b != l->A; b = m->bodies[b].parent) ++n;
    l->joint = malloc((size_t)(n + 1) * sizeof(int));
    l->side = malloc((size_t)(n + 1) * sizeof(int));
    if (!l->joint || !l->side) return MBS_ERR_NOMEM;
    l->njoint = 0;
    for (int s = 0; s < 2; ++s) {
        for (int b = s ? l->P : l->C; b != l->A; b = m->bodies[b].parent) {
            l->joint[l->njoint] = m->bodies[b].joint;
            l->side[l->njoint++] = s ? -1 : 1;
        }
        if (s == 0) l->nc = l->njoint;
    }
    return MBS_OK;
}

/* Lexicographic score of a candidate: the state priorities of its joints (independent
   coordinates are those the user prefers), then how many other loops' paths its dependent
   dofs lie on (a loop should take the dofs nobody else can). Lower is better. */
static void score(const mbs_model *m, const mbs_assembly *a, const int *count, long s[2])
{
    int last = -1;
    s[0] = s[1] = 0;
    for (int i = 0; i < a->ndep; ++i) {
        const int j = m->dof_joint[a->dep[i]];
        if (j != last) s[0] += m->joints[j].state_priority, last = j;
        s[1] += count[a->dep[i]] - 1;
    }
}

/* 1 when the candidate's dependent dofs (and a spherical rod's spin) are all free. */
static int fits(const mbs_model *m, const mbs_assembly *a, const int *claimed)
{
    for (int i = 0; i < a->ndep; ++i)
        if (claimed[a->dep[i]] >= 0) return 0;
    if (a->spin >= 0 && claimed[m->joints[a->k].vadr + a->spin] >= 0) return 0;
    return 1;
}

/* Choose one candidate per loop, loops with the fewest candidates first; chosen[i] = index
   into cl[i]. 0 when some loop finds none free. claimed (nv) gets the owning loop. */
static int assign(const mbs_model *m, int nl, const cand_list *cl, const int *count,
                  int *claimed, int *chosen)
{
    for (int k = 0; k < m->nv; ++k) claimed[k] = -1;
    for (int i = 0; i < nl; ++i) chosen[i] = -1;
    for (int done = 0; done < nl; ++done) {
        int li = -1;
        for (int i = 0; i < nl; ++i)
            if (chosen[i] < 0 && (li < 0 || cl[i].n < cl[li].n)) li = i;
        long best[2] = {0, 0};
        for (int c = 0; c < cl[li].n; ++c) {
            long s[2];
            if (!fits(m, &cl[li].a[c], claimed)) continue;
            score(m, &cl[li].a[c], count, s);
            if (chosen[li] < 0 || s[0] < best[0] || (s[0] == best[0] && s[1] < best[1]))
                chosen[li] = c, best[0] = s[0], best[1] = s[1];
        }
        if (chosen[li] < 0) return 0;
        const mbs_assembly *a = &cl[li].a[chosen[li]];
        for (int i = 0; i < a->ndep; ++i) claimed[a->dep[i]] = li;
        if (a->spin >= 0) claimed[m->joints[a->k].vadr + a->spin] = nl + li; /* reserved */
    }
    return 1;
}

/* Solve order (Kahn): loop i after every loop owning a dependent dof on its path; 0 on a
   cycle. order[k] = loop index. */
static int solve_order(const mbs_con_topo *t, int nl, const int *claimed, int *order)
{
    unsigned char *done = calloc((size_t)nl + 1, 1);
    if (!done) return -1;
    int k = 0, progress = 1;
    while (k < nl && progress) {
        progress = 0;
        for (int i = 0; i < nl; ++i) {
            if (done[i]) continue;
            int ready = 1;
            for (int p = t->path_adr[i]; p < t->path_adr[i + 1] && ready; ++p) {
                const int o = claimed[t->path_dof[p]];
                ready = o < 0 || o >= nl || o == i || done[o];
            }
            if (ready) done[i] = 1, order[k++] = i, progress = 1;
        }
    }
    free(done);
    return k == nl;
}

/* Tree positions whose bodies lie below one of a's dependent joints (ascending). */
static int fill_updates(const mbs_model *m, mbs_assembly *a, unsigned char *mark)
{
    memset(mark, 0, (size_t)m->nbody);
    for (int i = 0; i < a->ndep; ++i) mark[m->joints[m->dof_joint[a->dep[i]]].child] = 1;
    int n = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int t = 0; t < m->ntree; ++t) {
            const int b = m->joints[m->tree[t]].child;
            if (pass == 0 && mark[m->bodies[b].parent]) mark[b] = 1;
            if (mark[b]) {
                if (pass == 1) a->update[n] = t;
                ++n;
            }
        }
        if (pass == 0) {
            a->nupdate = n, n = 0;
            a->update = malloc((size_t)(a->nupdate + 1) * sizeof(int));
            if (!a->update) return MBS_ERR_NOMEM;
        }
    }
    return MBS_OK;
}

/* The dependent dofs of earlier loops (claimed by another loop) on a's path. */
static int fill_cross(const mbs_con_topo *t, mbs_assembly *a, const int *claimed, int me)
{
    const int p0 = t->path_adr[a->icut], p1 = t->path_adr[a->icut + 1];
    a->cross = malloc((size_t)(p1 - p0 + 1) * sizeof(int));
    a->cross_sign = malloc((size_t)(p1 - p0 + 1) * sizeof(double));
    if (!a->cross || !a->cross_sign) return MBS_ERR_NOMEM;
    a->ncross = 0;
    for (int p = p0; p < p1; ++p) {
        const int o = claimed[t->path_dof[p]];
        if (o < 0 || o == me || o >= t->ncut) continue;
        a->cross[a->ncross] = t->path_dof[p];
        a->cross_sign[a->ncross++] = t->path_sign[p];
    }
    return MBS_OK;
}

/* The model part: assemblies in solve order with their update and cross lists. */
static int build(const mbs_model *m, mbs_closure_model *cm, const cand_list *cl,
                 const int *chosen, const int *order, const int *claimed)
{
    const int nl = cm->topo.ncut;
    unsigned char *mark = malloc((size_t)m->nbody + 1);
    cm->asm_ = calloc((size_t)nl, sizeof *cm->asm_);
    cm->asm_of_cut = malloc((size_t)m->njoint * sizeof(int));
    cm->is_dep = calloc((size_t)m->nv + 1, 1);
    cm->ind = malloc((size_t)(m->nv + 1) * sizeof(int));
    int st = mark && cm->asm_ && cm->asm_of_cut && cm->is_dep && cm->ind ? MBS_OK : MBS_ERR_NOMEM;
    for (int j = 0; st == MBS_OK && j < m->njoint; ++j) cm->asm_of_cut[j] = -1;
    for (int k = 0; st == MBS_OK && k < nl; ++k) {
        const int i = order[k];
        mbs_assembly *a = &cm->asm_[k];
        *a = cl[i].a[chosen[i]];
        a->update = NULL, a->cross = NULL, a->cross_sign = NULL;
        cm->nasm = k + 1;
        cm->asm_of_cut[a->cut] = k;
        st = fill_updates(m, a, mark);
        if (st == MBS_OK) st = fill_cross(&cm->topo, a, claimed, i);
        for (int d = 0; d < a->ndep; ++d) cm->is_dep[a->dep[d]] = 1;
        cm->ndep += a->ndep;
    }
    for (int k = 0; st == MBS_OK && k < m->nv; ++k)
        if (!cm->is_dep[k]) cm->ind[cm->ndof++] = k;
    cm->cutbody = malloc((size_t)(2 * nl + 1) * sizeof(int));
    if (st == MBS_OK && !cm->cutbody) st = MBS_ERR_NOMEM;
    if (st == MBS_OK) memset(mark, 0, (size_t)m->nbody);
    for (int k = 0; st == MBS_OK && k < nl; ++k)
        for (int e = 0; e < 2; ++e) {
            const mbs_joint_model *c = &m->joints[cm->asm_[k].cut];
            const int b = e ? c->child : c->parent;
            if (b != MBS_WORLD && !mark[b]) mark[b] = 1, cm->cutbody[cm->ncutbody++] = b;
        }
    free(mark);
    return st;
}

/* Candidates of every loop; 0 when a loop has none. */
static int gather(const mbs_model *m, const mbs_con_topo *t, const mbs_pose *xw0, cand_list *cl,
                  int *count, int *st)
{
    for (int k = 0; k < m->nv; ++k) count[k] = 0;
    for (int p = 0; p < t->path_adr[t->ncut]; ++p) count[t->path_dof[p]]++;
    int all = 1;
    for (int i = 0; i < t->ncut && *st == MBS_OK; ++i) {
        mbs_asm_loop l = {0};
        *st = loop_init(m, t, xw0, i, &l);
        if (*st == MBS_OK) *st = mbs_asm_spatial_candidates(&l, offer_push, &cl[i]);
        if (*st == MBS_OK) *st = mbs_asm_planar_candidates(&l, offer_push, &cl[i]);
        free(l.joint);
        free(l.side);
        all &= cl[i].n > 0;
    }
    return all;
}

/* See closure.h. */
int mbs_closure_detect(const mbs_model *m, mbs_closure_model **out)
{
    *out = NULL;
    if (m->ncon == 0 || m->nuc > 0) return MBS_OK; /* user rows: the Newton strategy */
    mbs_closure_model *cm = calloc(1, sizeof *cm);
    if (!cm || mbs_con_topo_init(m, &cm->topo) != MBS_OK) {
        mbs_closure_model_free(cm);
        return MBS_ERR_NOMEM;
    }
    const int nl = cm->topo.ncut, nv = m->nv;
    mbs_pose *xw0 = malloc((size_t)m->nbody * sizeof *xw0);
    cand_list *cl = calloc((size_t)nl, sizeof *cl);
    int *ints = malloc((size_t)(3 * nv + 2 * nl + 1) * sizeof(int));
    int st = xw0 && cl && ints ? MBS_OK : MBS_ERR_NOMEM, ok = 0;
    int *count = ints, *claimed = ints + nv, *chosen = ints + 2 * nv, *order = chosen + nl;
    if (st == MBS_OK) {
        mbs_neutral_poses(m, xw0);
        ok = gather(m, &cm->topo, xw0, cl, count, &st) && st == MBS_OK &&
             assign(m, nl, cl, count, claimed, chosen);
    }
    if (ok) ok = solve_order(&cm->topo, nl, claimed, order);
    if (ok < 0) st = MBS_ERR_NOMEM;
    if (ok > 0 && st == MBS_OK) st = build(m, cm, cl, chosen, order, claimed);
    for (int i = 0; cl && i < nl; ++i) free(cl[i].a);
    free(cl);
    free(ints);
    free(xw0);
    if (st == MBS_OK && ok > 0) *out = cm;
    else mbs_closure_model_free(cm);
    return st;
}

/* See closure.h. */
void mbs_closure_model_free(mbs_closure_model *cm)
{
    if (!cm) return;
    for (int i = 0; cm->asm_ && i < cm->nasm; ++i) {
        free(cm->asm_[i].update);
        free(cm->asm_[i].cross);
        free(cm->asm_[i].cross_sign);
    }
    free(cm->asm_);
    free(cm->asm_of_cut);
    free(cm->is_dep);
    free(cm->ind);
    free(cm->cutbody);
    mbs_con_topo_free(&cm->topo);
    free(cm);
}
