/* mbs_compile: validate what needs the whole graph, pick the spanning tree breadth-first from
 * the world (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §5 and appendix: a connection graph reduced to spanning
 * trees, breakable branches left out become cut joints), add free root joints for bodies not
 * connected to the world, lay out q and v in topological order and fill the immutable model.
 *
 * Tree choice: breadth-first search from the world, following joints from their parent to
 * their child in joint-id order. A joint marked cut (distance joints always are) is never a
 * tree edge; a joint that reaches a body already in the tree closes a kinematic loop. Bodies
 * left unreached get an automatic free joint from the world -- first those that no tree-eligible
 * joint enters (in id order), then the rest -- and the search continues from them. The
 * coordinates are laid out depth-first over that tree (siblings in search order), so each
 * subtree's dofs are contiguous (column ranges for the branch-induced sparsity of M and of
 * the derivatives, src/derivatives/minv.c).
 *
 * Cut joints: every joint that is not a tree edge (cut-marked, distance, loop-closing, into
 * the world) becomes a cut joint with no coordinates; its type's cut_rows op gives its
 * constraint rows (joint.h), stored in body coordinates, numbered in joint-id order
 * (conadr, ncon), with the loop's length scale for the solver (src/loops/loops_select.c). Only a
 * cycle of fixed joints (a body fixed to itself) is rejected. */
#include "core/builder.h"
#include "core/internal.h"
#include "events/events.h"
#include "core/params.h"
#include "model/point_mass.h"
#include "loops/analytic/closure.h"
#include "loops/user_rows.h"
#include "contact/contact.h"
#include "contact/shapes.h"
#include "core/kernels.h"
#include "planar/planar.h"
#include "elements/compile_elements.h"
#include "ustates/ustates.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct topo {
    int nb;        /* bodies, world included */
    int nuj;       /* user joints */
    int *in_joint; /* [nb] tree joint into each body (nuj + r: automatic root r); -1 if none */
    int *queue;    /* [nb] bodies in breadth-first order, world first */
    int nqueue, head;
    int *start;    /* [nb + 1] offsets of each body's outgoing tree-eligible joints in adj */
    int *adj;      /* [nuj] joint ids, grouped by parent body, ascending */
    int *indeg;    /* [nb] tree-eligible joints entering each body */
    int *roots;    /* [nb] bodies given automatic free joints, in order */
    int nroots;
    int *block;    /* the single allocation behind the arrays */
    int *node;     /* [nb] 1 for nodes (no tree joint, no coordinates; src/elements/) */
    int nnode;
} topo;

static const char *const type_names[] = {"revolute", "prismatic", "cylindrical", "universal",
                                         "spherical", "planar",    "free",        "fixed",
                                         "distance", "translational", "curve"};

/* The builder's error buffer: compile reports into it although the builder is const
   (the message is the only thing a compile changes in the builder). */
static char *builder_err(const mbs_builder *b) { return ((mbs_builder *)(uintptr_t)b)->error; }

/* "name" (id N) when named, else #N. */
static const char *label(const char *name, int id, char *buf, size_t len)
{
    if (name && name[0])
        snprintf(buf, len, "\"%s\" (id %d)", name, id);
    else
        snprintf(buf, len, "#%d", id);
    return buf;
}

/* Malloc of n ints (at least one), NULL when out of memory or n overflows. */
static int *alloc_ints(size_t n)
{
    if (n == 0) n = 1;
    if (n > SIZE_MAX / sizeof(int)) return NULL;
    return malloc(n * sizeof(int));
}

/* Union-find root with path halving. */
static int uf_find(int *par, int x)
{
    while (par[x] != x) {
        par[x] = par[par[x]];
        x = par[x];
    }
    return x;
}

/* int comparison for qsort. */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Name the joints of the cycle closed by fixed joint jc: the path of forest fixed joints
   between its bodies (breadth-first over forest edges), plus jc. w holds 4 nb + 2 nuj + 1
   ints. */
static int report_fixed_cycle(const mbs_builder *b, const int *forest, int jc, int *w,
                              char *err)
{
    int nb = b->nbody + 1, nuj = b->njoint;
    int *start = w, *adj = start + nb + 1, *prevj = adj + 2 * nuj, *queue = prevj + nb;
    int *path = queue + nb;
    memset(start, 0, (size_t)(nb + 1) * sizeof(int));
    for (int j = 0; j < nuj; ++j)
        if (forest[j]) start[b->joints[j].parent + 1]++, start[b->joints[j].child + 1]++;
    for (int i = 0; i < nb; ++i) start[i + 1] += start[i];
    for (int i = 0; i < nb; ++i) prevj[i] = start[i]; /* fill cursor, reset below */
    for (int j = 0; j < nuj; ++j)
        if (forest[j]) adj[prevj[b->joints[j].parent]++] = j, adj[prevj[b->joints[j].child]++] = j;
    for (int i = 0; i < nb; ++i) prevj[i] = -2;
    int src = b->joints[jc].parent, dst = b->joints[jc].child, nq = 0, head = 0;
    queue[nq++] = src;
    prevj[src] = -1;
    while (head < nq && prevj[dst] == -2) {
        int u = queue[head++];
        for (int k = start[u]; k < start[u + 1]; ++k) {
            const mbs_joint_def *d = &b->joints[adj[k]];
            int o = d->parent == u ? d->child : d->parent;
            if (prevj[o] == -2) prevj[o] = adj[k], queue[nq++] = o;
        }
    }
    int np = 0;
    path[np++] = jc;
    for (int v = dst; v != src && prevj[v] >= 0; np++) {
        path[np] = prevj[v];
        v = b->joints[prevj[v]].parent == v ? b->joints[prevj[v]].child : b->joints[prevj[v]].parent;
    }
    qsort(path, (size_t)np, sizeof(int), cmp_int);
    char msg[MBS_ERROR_LEN], lbl[96];
    size_t len = (size_t)snprintf(msg, sizeof msg, "fixed joints");
    for (int i = 0; i < np && len < sizeof msg; ++i)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %s", i ? "," : "",
                                label(b->joints[path[i]].name, path[i], lbl, sizeof lbl));
    return mbs_errorf(err, MBS_ERR_TOPOLOGY, "%s form a closed loop (a body fixed to itself)",
                      msg);
}

/* A cycle made only of fixed joints (cut-marked ones included) is a topology error. */
static int check_fixed_cycles(const mbs_builder *b, char *err)
{
    int nb = b->nbody + 1, nuj = b->njoint;
    int *w = alloc_ints((size_t)5 * (size_t)nb + 3 * (size_t)nuj + 1);
    if (!w) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    int *par = w, *forest = par + nb, *rest = forest + nuj;
    for (int i = 0; i < nb; ++i) par[i] = i;
    int st = MBS_OK;
    for (int j = 0; j < nuj && st == MBS_OK; ++j) {
        forest[j] = 0;
        if (b->joints[j].type != MBS_JOINT_FIXED) continue;
        int ru = uf_find(par, b->joints[j].parent), rv = uf_find(par, b->joints[j].child);
        if (ru == rv)
            st = report_fixed_cycle(b, forest, j, rest, err);
        else
            par[ru] = rv, forest[j] = 1;
    }
    free(w);
    return st;
}

/* Allocate the topology arrays and the adjacency of tree-eligible (non-cut) joints. */
static int topo_init(const mbs_builder *b, topo *t, char *err)
{
    memset(t, 0, sizeof *t);
    t->nb = b->nbody + 1;
    t->nuj = b->njoint;
    int nb = t->nb;
    t->block = alloc_ints((size_t)6 * (size_t)nb + 1 + (size_t)t->nuj);
    if (!t->block) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    t->node = t->block + 5 * (size_t)nb + 1 + (size_t)t->nuj;
    const int st = mbs_compile_find_nodes(b, t->node, err);
    if (st != MBS_OK) {
        free(t->block);
        t->block = NULL;
        return st;
    }
    for (int i = 0; i < nb; ++i) t->nnode += t->node[i];
    t->in_joint = t->block;
    t->queue = t->in_joint + nb;
    t->start = t->queue + nb;
    t->indeg = t->start + nb + 1;
    t->roots = t->indeg + nb;
    t->adj = t->roots + nb;
    for (int i = 0; i < nb; ++i) t->in_joint[i] = -1, t->indeg[i] = 0;
    memset(t->start, 0, (size_t)(nb + 1) * sizeof(int));
    for (int j = 0; j < t->nuj; ++j)
        if (!b->joints[j].cut) t->start[b->joints[j].parent + 1]++, t->indeg[b->joints[j].child]++;
    for (int i = 0; i < nb; ++i) t->start[i + 1] += t->start[i];
    for (int i = 0; i < nb; ++i) t->queue[i] = t->start[i]; /* fill cursor */
    for (int j = 0; j < t->nuj; ++j)
        if (!b->joints[j].cut) t->adj[t->queue[b->joints[j].parent]++] = j;
    return MBS_OK;
}

/* Breadth-first search from the queued bodies: each unreached child becomes a tree body. */
static void bfs_run(const mbs_builder *b, topo *t)
{
    while (t->head < t->nqueue) {
        int u = t->queue[t->head++];
        for (int k = t->start[u]; k < t->start[u + 1]; ++k) {
            int j = t->adj[k], c = b->joints[j].child;
            if (c == MBS_WORLD || t->in_joint[c] != -1) continue;
            t->in_joint[c] = j;
            t->queue[t->nqueue++] = c;
        }
    }
}

/* Give body an automatic free joint from the world and search on from it. */
static void add_root(const mbs_builder *b, topo *t, int body)
{
    t->in_joint[body] = t->nuj + t->nroots;
    t->roots[t->nroots++] = body;
    t->queue[t->nqueue++] = body;
    bfs_run(b, t);
}

/* The spanning tree: from the world, then from automatic roots. */
static void span(const mbs_builder *b, topo *t)
{
    t->queue[0] = MBS_WORLD;
    t->nqueue = 1;
    t->head = 0;
    bfs_run(b, t);
    for (int i = 1; i < t->nb; ++i)
        if (t->in_joint[i] == -1 && t->indeg[i] == 0 && !t->node[i]) add_root(b, t, i);
    for (int i = 1; i < t->nb; ++i)
        if (t->in_joint[i] == -1 && !t->node[i]) add_root(b, t, i);
}

/* Tree parent of queued body c: its joint's parent body, the world for an automatic root. */
static int tree_parent(const mbs_builder *b, const topo *t, int c)
{
    const int j = t->in_joint[c];
    return j < t->nuj ? b->joints[j].parent : MBS_WORLD;
}

/* Reorder the queue depth-first (parents first, siblings in breadth-first order), so each
   subtree's coordinates are contiguous: the tree stays the breadth-first one. */
static int depth_first_queue(const mbs_builder *b, topo *t)
{
    const size_t nb = (size_t)t->nb;
    int *head = alloc_ints(3 * nb), *next = head + nb, *stack = next + nb, top = 0, n = 0;
    if (!head) return MBS_ERR_NOMEM;
    for (int i = 0; i < t->nb; ++i) head[i] = -1;
    for (int k = 1; k < t->nqueue; ++k) { /* each body's children, last queued first */
        const int c = t->queue[k], p = tree_parent(b, t, c);
        next[c] = head[p], head[p] = c;
    }
    stack[top++] = MBS_WORLD;
    while (top > 0) {
        const int u = stack[--top];
        t->queue[n++] = u;
        for (int c = head[u]; c >= 0; c = next[c]) stack[top++] = c;
    }
    free(head);
    return MBS_OK;
}

/* 1 if user joint j is a tree edge. */
static int is_tree(const mbs_builder *b, const topo *t, int j)
{
    return !b->joints[j].cut && t->in_joint[b->joints[j].child] == j;
}

/* Whether q and v of every dof of a joint type mean the same thing. */
static int scalar_dofs(mbs_joint_type type)
{
    return type == MBS_JOINT_REVOLUTE || type == MBS_JOINT_PRISMATIC ||
           type == MBS_JOINT_CYLINDRICAL || type == MBS_JOINT_UNIVERSAL ||
           type == MBS_JOINT_PLANAR || type == MBS_JOINT_TRANSLATIONAL;
}

/* A joint element needs a tree joint and dof < nv; a joint spring-damper also scalar dofs
   (a joint force acts along any dof of v). */
static int check_joint_force(const mbs_builder *b, const topo *t, const mbs_force_model *f,
                             const char *fl, char *err)
{
    char jl[96];
    const char *kind = f->ops->name;
    if (f->joint < 0 || f->joint >= t->nuj)
        return mbs_errorf(err, MBS_ERR_ARG, "%s %s: unknown joint %d", kind, fl, f->joint);
    const mbs_joint_def *d = &b->joints[f->joint];
    label(d->name, f->joint, jl, sizeof jl);
    if (!is_tree(b, t, f->joint))
        return mbs_errorf(err, MBS_ERR_ARG, "%s %s: joint %s is a cut joint, not a tree joint",
                          kind, fl, jl);
    if (f->ops == &mbs_force_joint_spring_damper_ops && !scalar_dofs(d->type))
        return mbs_errorf(err, MBS_ERR_ARG,
                          "%s %s: joint %s is %s (its q and v differ in meaning)", kind, fl, jl,
                          type_names[d->type]);
    const mbs_joint_ops *ops = mbs_joint_ops_for(d->type, d->rotation);
    int nv = ops ? ops->nv : 0;
    if (f->dof < 0 || f->dof >= nv)
        return mbs_errorf(err, MBS_ERR_ARG, "%s %s: dof %d out of range (joint %s has %d)",
                          kind, fl, f->dof, jl, nv);
    return MBS_OK;
}

/* 1 for the elements acting on one dof of a joint. */
static int is_joint_element(const mbs_force_model *f)
{
    return f->ops == &mbs_force_joint_spring_damper_ops || f->ops == &mbs_force_joint_force_ops;
}

/* Validate the force elements against the whole graph. */
static int check_forces(const mbs_builder *b, const topo *t, char *err)
{
    char fl[96];
    for (int i = 0; i < b->nforce; ++i) {
        const mbs_force_model *f = &b->forces[i];
        label(f->name, i, fl, sizeof fl);
        if (is_joint_element(f)) {
            int st = check_joint_force(b, t, f, fl, err);
            if (st != MBS_OK) return st;
        } else if (f->ops == &mbs_force_spring_damper_ops) {
            if (f->body_a < 0 || f->body_a >= t->nb || f->body_b < 0 || f->body_b >= t->nb)
                return mbs_errorf(err, MBS_ERR_ARG,
                                  "spring-damper %s: body %d or %d does not exist", fl, f->body_a,
                                  f->body_b);
        }
    }
    return MBS_OK;
}

/* Pose (R, p) of a frame: x_body = rot x_frame + pos. */
static void frame_pose(mbs_pose *X, const mbs_frame *f)
{
    memcpy(X->R, f->rot, sizeof X->R);
    v3_copy(X->p, f->pos);
}

/* See params.h: rotation bitwise the identity, position zero. */
int mbs_frame_is_identity(const mbs_pose *X)
{
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    return memcmp(X->R, I3, sizeof I3) == 0 && X->p[0] == 0.0 && X->p[1] == 0.0 &&
           X->p[2] == 0.0;
}

/* Model joint from a validated definition; takes ownership of name. */
static void fill_joint(mbs_joint_model *jm, const mbs_joint_def *d, char *name, int tree)
{
    jm->name = name;
    jm->type = d->type;
    jm->rotation = d->rotation;
    jm->parent = d->parent;
    jm->child = d->child;
    frame_pose(&jm->frame_parent, &d->frame_parent);
    frame_pose(&jm->frame_child, &d->frame_child);
    jm->frame_child_identity = mbs_frame_is_identity(&jm->frame_child);
    v3_copy(jm->axis, d->axis);
    v3_copy(jm->axis2, d->axis2);
    v3_cross(jm->axis3, d->axis, d->axis2);
    double n = v3_norm(jm->axis3);
    if (n > 0.0) v3_scale(jm->axis3, jm->axis3, 1.0 / n);
    jm->length = d->length;
    jm->cut = tree ? 0 : 1;
    jm->automatic = 0;
    jm->state_priority = d->state_priority;
    jm->ops = mbs_joint_ops_any(d->type, d->rotation);
    jm->nq = tree && jm->ops ? jm->ops->nq : 0;
    jm->nv = tree && jm->ops ? jm->ops->nv : 0;
    jm->qadr = jm->vadr = jm->auxadr = -1;
    jm->conadr = -1;
    jm->ncon = 0;
    jm->con_length = 0.0;
}

/* "free_<body name or id>" for the automatic root joint of a body; NULL if out of memory. */
static char *root_name(const char *body_name, int body)
{
    size_t n = strlen(body_name) + 24;
    char *s = malloc(n);
    if (!s) return NULL;
    if (body_name[0])
        snprintf(s, n, "free_%s", body_name);
    else
        snprintf(s, n, "free_%d", body);
    return s;
}

/* Bodies: the world, then the user's, with spatial inertia about the body origin. */
static int fill_bodies(const mbs_builder *b, mbs_model *m)
{
    mbs_body_model *w = &m->bodies[0];
    w->name = mbs_strdup_name("world");
    if (!w->name) return MBS_ERR_NOMEM;
    w->parent = w->joint = -1;
    for (int i = 1; i < m->nbody; ++i) {
        const mbs_body_def *d = &b->bodies[i - 1];
        mbs_body_model *bm = &m->bodies[i];
        bm->name = mbs_strdup_name(d->name);
        if (!bm->name) return MBS_ERR_NOMEM;
        mbs_body_set_inertia(bm, d->mass, d->com, d->inertia);
        bm->parent = bm->joint = -1;
    }
    return MBS_OK;
}

/* Joints: the user's, then one automatic free joint per root body. */
static int fill_joints(const mbs_builder *b, const topo *t, mbs_model *m)
{
    for (int j = 0; j < t->nuj; ++j) {
        char *name = mbs_strdup_name(b->joints[j].name);
        if (!name) return MBS_ERR_NOMEM;
        fill_joint(&m->joints[j], &b->joints[j], name, is_tree(b, t, j));
        if (b->joints[j].type == MBS_JOINT_CURVE && mbs_curve_compile(b, j, &m->joints[j]) != MBS_OK)
            return MBS_ERR_NOMEM;
    }
    for (int r = 0; r < t->nroots; ++r) {
        int body = t->roots[r];
        char *name = root_name(m->bodies[body].name, body);
        if (!name) return MBS_ERR_NOMEM;
        mbs_joint_def d = mbs_default_joint_def(MBS_JOINT_FREE);
        d.rotation = b->root_rotation;
        d.child = body;
        fill_joint(&m->joints[t->nuj + r], &d, name, 1);
        m->joints[t->nuj + r].automatic = 1;
    }
    return MBS_OK;
}

/* Tree order, q/v/aux addresses (parents first) and the dof sparsity pattern. */
static int layout(const topo *t, mbs_model *m)
{
    for (int k = 0; k < m->ntree; ++k) {
        int body = t->queue[k + 1], j = t->in_joint[body];
        mbs_joint_model *jm = &m->joints[j];
        m->tree[k] = j;
        m->bodies[body].parent = jm->parent;
        m->bodies[body].joint = j;
        jm->qadr = m->nq;
        jm->vadr = m->nv;
        m->nq += jm->nq;
        m->nv += jm->nv;
        if (jm->ops && jm->ops->naux > 0) jm->auxadr = m->naux, m->naux += jm->ops->naux;
    }
    for (int j = 0; j < m->njoint; ++j) { /* cut joints with state (curve contacts) */
        mbs_joint_model *jm = &m->joints[j];
        if (jm->cut && jm->ops && jm->ops->naux > 0) jm->auxadr = m->naux, m->naux += jm->ops->naux;
    }
    m->dof_parent = alloc_ints((size_t)m->nv);
    m->dof_joint = alloc_ints((size_t)m->nv);
    int *last = alloc_ints((size_t)m->nbody); /* last dof at or above each body */
    if (!m->dof_parent || !m->dof_joint || !last) {
        free(last);
        return MBS_ERR_NOMEM;
    }
    last[MBS_WORLD] = -1;
    for (int k = 0; k < m->ntree; ++k) {
        int body = t->queue[k + 1], j = t->in_joint[body];
        const mbs_joint_model *jm = &m->joints[j];
        int prev = last[jm->parent];
        for (int i = 0; i < jm->nv; ++i) {
            m->dof_parent[jm->vadr + i] = i == 0 ? prev : jm->vadr + i - 1;
            m->dof_joint[jm->vadr + i] = j;
        }
        last[body] = jm->nv > 0 ? jm->vadr + jm->nv - 1 : prev;
    }
    free(last);
    return MBS_OK;
}

/* Force elements copied with their names; joint spring-dampers get their q and v index. */
static int fill_forces(const mbs_builder *b, mbs_model *m)
{
    for (int i = 0; i < m->nforce; ++i) {
        mbs_force_model *f = &m->forces[i];
        *f = b->forces[i];
        f->name = mbs_strdup_name(b->forces[i].name);
        if (!f->name) return MBS_ERR_NOMEM;
        if (is_joint_element(f)) {
            f->qindex = m->joints[f->joint].qadr + f->dof;
            f->vindex = m->joints[f->joint].vadr + f->dof;
        }
    }
    return MBS_OK;
}

/* Sum of the joint-frame offsets on the tree path from body b up to (not including) the
   ancestor anc: a length scale of that side of a loop. */
static double path_length(const mbs_model *m, int b, int anc)
{
    double L = 0.0;
    for (; b != anc && b > 0; b = m->bodies[b].parent) {
        const mbs_joint_model *t = &m->joints[m->bodies[b].joint];
        L += v3_norm(t->frame_parent.p) + v3_norm(t->frame_child.p);
    }
    return L;
}

/* Nearest common ancestor of bodies a and b in the tree (the world at worst). */
static int common_ancestor(const mbs_model *m, int a, int b)
{
    for (int x = a; x >= 0; x = m->bodies[x].parent)
        for (int y = b; y >= 0; y = m->bodies[y].parent)
            if (x == y) return x;
    return MBS_WORLD;
}

/* The rows of cut joint jm in body coordinates (e, d_p on the parent, d_c on the child),
   its first row and the loop's length scale (POINT and DISTANCE rows are divided by it
   when the solver compares residuals and conditions). */
static void fill_cut(mbs_model *m, mbs_joint_model *jm)
{
    mbs_cut_row rows[MBS_CUT_MAX_ROWS];
    const int n = jm->ops->cut_rows(jm, rows);
    for (int k = 0; k < n; ++k) {
        mbs_cut_row *r = &jm->rows[k];
        *r = rows[k];
        m3_mulv(r->e, jm->frame_parent.R, rows[k].e);
        m3_mulv(r->f, jm->frame_child.R, rows[k].f);
    }
    jm->conadr = m->ncon;
    jm->ncon = n;
    m->ncon += n;
    const int anc = common_ancestor(m, jm->parent, jm->child);
    double L = v3_norm(jm->frame_parent.p) + v3_norm(jm->frame_child.p) + jm->length +
               path_length(m, jm->parent, anc) + path_length(m, jm->child, anc);
    jm->con_length = L > 1e-9 ? L : 1.0;
}

/* See params.h: constraint rows of every cut joint, in joint-id order. */
void mbs_compile_cuts(mbs_model *m)
{
    m->ncon = 0;
    for (int j = 0; j < m->njoint; ++j)
        if (m->joints[j].cut) fill_cut(m, &m->joints[j]);
}

/* Allocate and fill the model from the validated builder and its spanning tree. */
static int build_model(const mbs_builder *b, const topo *t, mbs_model **out)
{
    mbs_model *m = calloc(1, sizeof *m);
    if (!m) return MBS_ERR_NOMEM;
    m->nbody = t->nb;
    m->njoint = t->nuj + t->nroots;
    m->ntree = t->nb - 1 - t->nnode;
    m->nforce = b->nforce;
    m->bodies = calloc((size_t)m->nbody, sizeof *m->bodies);
    m->joints = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof *m->joints);
    m->forces = calloc((size_t)(m->nforce ? m->nforce : 1), sizeof *m->forces);
    m->tree = alloc_ints((size_t)m->ntree);
    int st = (m->bodies && m->joints && m->forces && m->tree) ? MBS_OK : MBS_ERR_NOMEM;
    if (st == MBS_OK) st = fill_bodies(b, m);
    if (st == MBS_OK) st = fill_joints(b, t, m);
    if (st == MBS_OK) mbs_reduce_point_masses(b, m); /* point masses lose their rotation */
    if (st == MBS_OK) st = layout(t, m);
    if (st == MBS_OK) st = fill_forces(b, m);
    if (st == MBS_OK) st = mbs_visuals_copy(b->visuals, b->nvisual, &m->visuals);
    if (st == MBS_OK) m->nvisual = b->nvisual;
    if (st != MBS_OK) {
        mbs_model_destroy(m);
        return st;
    }
    mbs_compile_cuts(m);
    st = mbs_uc_compile(b, m, builder_err(b)); /* their rows follow the cut joints' */
    if (st != MBS_OK) {
        mbs_model_destroy(m);
        return st;
    }
    for (int t = 0; t < m->ntree; ++t) /* every tree joint's kernels, once */
        m->joints[m->tree[t]].kern = mbs_kernels_pick(&m->joints[m->tree[t]]);
    m->q_flat = mbs_q_is_flat(m);
    st = mbs_compile_elements(b, m, t->node, builder_err(b));
    if (st != MBS_OK) {
        mbs_model_destroy(m);
        return st;
    }
    m->gravity_kind = b->gravity_kind;
    v3_copy(m->gravity, b->gravity);
    v3_copy(m->gravity_center, b->gravity_center);
    m->gravity_mu = b->gravity_mu;
    *out = m;
    return MBS_OK;
}

/* The analytic closure and the planar path, for the models they serve (after the events and
   start values are compiled): the closure without held coordinates (elements acting on the
   tree: src/loops/analytic/tree_elements.c); the planar path without couplings, nodes or coordinate
   rows (those need the 3-D path's loops). */
static int detect_paths(const mbs_builder *b, mbs_model *m, char *err)
{
    const int plain = m->ncrow == 0 && m->nnode == 0 && mbs_nqrow(m) == 0;
    if ((b->closure == MBS_CLOSURE_ANALYTIC && m->nhold == 0 &&
         mbs_closure_detect(m, &m->closure) != MBS_OK) ||
        (b->planar == MBS_PLANAR_AUTO && plain && mbs_planar_detect(m, &m->planar) != MBS_OK))
        return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    if (m->planar && m->ncon > 0 && !mbs_closure_planar_ok(m, m->planar->n)) {
        mbs_planar_free(m->planar); /* loops the planar path cannot close in closed form */
        m->planar = NULL;
    }
    mbs_closure_planar_links(m);
    return MBS_OK;
}

/* Validate the builder's graph and compile it into a new immutable model. The builder is
   left unchanged except for its error message; *out is only written on success. */
/* A build without LAPACK (-Dlapack=disabled) cannot close loops: refuse them here, naming
   the first cut joint, rather than fail at the first dynamics call. */
static int check_loops_supported(mbs_model *m, char *err)
{
    if (MBS_HAVE_LAPACK || m->ncon == 0) return MBS_OK;
    for (int j = 0; j < m->njoint; ++j)
        if (m->joints[j].cut) {
            char buf[96];
            return mbs_errorf(err, MBS_ERR_STATE, "compile: joint %s closes a loop, and this "
                              "build of mbs has no LAPACK (configured with -Dlapack=disabled)",
                              mbs_joint_label(m, j, buf, (int)sizeof buf));
        }
    return MBS_OK;
}

int mbs_compile(const mbs_builder *b, mbs_model **out)
{
    if (!b) return MBS_ERR_ARG;
    char *err = builder_err(b);
    if (!out) return mbs_errorf(err, MBS_ERR_ARG, "mbs_compile: out is NULL");
    if (b->first_status) /* a model without what that call added is not the host's model */
        return mbs_errorf(err, b->first_status, "an earlier call failed: %s", b->first_error);
    int st = check_fixed_cycles(b, err);
    if (st != MBS_OK) return st;
    topo t;
    st = topo_init(b, &t, err);
    if (st != MBS_OK) return st;
    span(b, &t);
    st = depth_first_queue(b, &t);
    if (st != MBS_OK) mbs_errorf(err, st, "compile: out of memory");
    if (st == MBS_OK) st = check_forces(b, &t, err);
    mbs_model *m = NULL;
    if (st == MBS_OK) {
        st = build_model(b, &t, &m);
        if (st == MBS_ERR_NOMEM) mbs_errorf(err, st, "compile: out of memory");
    }
    if (st == MBS_OK) st = mbs_start_compile(b, m, err);
    if (st == MBS_OK) st = mbs_ustates_compile(b, m, err); /* user states' start values */
    free(t.block);
    if (st == MBS_OK) st = mbs_contact_compile(b, m, err); /* shapes and contact elements */
    if (st == MBS_OK) st = mbs_events_compile(b, m, err); /* events, motions, friction, stops */
    if (st == MBS_OK) st = check_loops_supported(m, err);
    if (st == MBS_OK) st = mbs_check_point_mass_axes(m, err); /* a rotation of nothing */
    if (st == MBS_OK) st = detect_paths(b, m, err);
    if (st == MBS_OK)
        *out = m;
    else
        mbs_model_destroy(m);
    return st;
}
