/* Closed loops for the generator: the library's row selection and partition frozen at the
 * start configuration, the blocks of J_v, and the constrained forward and inverse dynamics
 * over symbolic scalars (the equations of src/loops/loops_dynamics.c: Docquier, Poncelet, Fisette
 * 2013, "ROBOTRAN: a powerful symbolic generator of multibody models", eq. 6). */
#include "cg_loops.h"

#include <stdlib.h>
#include <string.h>

#include "cg_aba.h"
#include "cg_mass.h"

/* See cg_loops.h. */
void cg_loops_free(cg_loops *L)
{
    mbs_con_topo_free(&L->t);
    free(L->row), free(L->drop), free(L->dep), free(L->ind);
    free(L->blk_n), free(L->blk_row), free(L->blk_dof);
    memset(L, 0, sizeof *L);
}

/* Root of x in the union-find forest up (path halving). */
static int uf_root(int *up, int x)
{
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
}

/* The blocks of J_v: kept rows (0 .. rank-1) and dependent positions (rank .. 2 rank-1)
   joined when the row's loop path holds the dof; 0, or -1 when a block is not square. */
static int make_blocks(const mbs_model *m, cg_loops *L)
{
    const int r = L->rank;
    int *up = malloc(sizeof(int) * (size_t)(2 * r + 1)), *pos = malloc(sizeof(int) * (size_t)(m->nv + 1));
    int st = up && pos ? 0 : -1;
    for (int i = 0; st == 0 && i < 2 * r; ++i) up[i] = i;
    for (int i = 0; st == 0 && i < m->nv; ++i) pos[i] = -1;
    for (int i = 0; st == 0 && i < r; ++i) pos[L->dep[i]] = i;
    for (int i = 0; st == 0 && i < r; ++i) {
        const int c = L->t.row_cut[L->row[i]];
        for (int p = L->t.path_adr[c]; p < L->t.path_adr[c + 1]; ++p)
            if (pos[L->t.path_dof[p]] >= 0) up[uf_root(up, i)] = uf_root(up, r + pos[L->t.path_dof[p]]);
    }
    int nr = 0, nc = 0; /* blocks in the order of their first row */
    for (int i = 0; st == 0 && i < r; ++i) {
        const int root = uf_root(up, i);
        int first = 1;
        for (int k = 0; k < i && first; ++k) first = uf_root(up, k) != root;
        if (!first) continue;
        const int r0 = nr, c0 = nc;
        for (int k = i; k < r; ++k)
            if (uf_root(up, k) == root) L->blk_row[nr++] = k;
        for (int k = 0; k < r; ++k)
            if (uf_root(up, r + k) == root) L->blk_dof[nc++] = L->dep[k];
        if (nr - r0 != nc - c0) st = -1;
        L->blk_n[L->nblock++] = nr - r0;
    }
    if (nr != r || nc != r) st = -1;
    free(up), free(pos);
    return st;
}

/* Copy the library's selection (active, ncon) and partition (independent, nv) into L. */
static int take_partition(const mbs_model *m, const unsigned char *active,
                          const unsigned char *independent, cg_loops *L)
{
    const size_t n1 = (size_t)m->nv + 1, c1 = (size_t)m->ncon + 1;
    L->row = calloc(c1, sizeof(int)), L->drop = calloc(c1, sizeof(int));
    L->dep = calloc(n1, sizeof(int)), L->ind = calloc(n1, sizeof(int));
    L->blk_n = calloc(n1, sizeof(int)), L->blk_row = calloc(n1, sizeof(int));
    L->blk_dof = calloc(n1, sizeof(int));
    if (!L->row || !L->drop || !L->dep || !L->ind || !L->blk_n || !L->blk_row || !L->blk_dof)
        return -1;
    L->ncon = m->ncon;
    for (int i = 0; i < m->ncon; ++i) {
        if (active[i]) L->row[L->rank++] = i;
        else L->drop[L->ndrop++] = i;
    }
    int nd = 0;
    for (int i = 0; i < m->nv; ++i) {
        if (independent[i]) L->ind[L->ndof++] = i;
        else L->dep[nd++] = i;
    }
    return nd == L->rank ? 0 : -1;
}

int cg_loops_freeze(const mbs_model *m, const double *q_start, cg_loops *L, char *why, int len)
{
    memset(L, 0, sizeof *L);
    mbs_data *d = mbs_data_create(m);
    unsigned char *active = calloc((size_t)m->ncon + 1, 1), *indep = calloc((size_t)m->nv + 1, 1);
    int st = d && active && indep ? MBS_OK : MBS_ERR_NOMEM, n = 0, rank = 0;
    if (st == MBS_OK && q_start) memcpy(mbs_data_q(d), q_start, sizeof(double) * (size_t)m->nq);
    if (st == MBS_OK) st = mbs_assemble(d);
    if (st == MBS_OK) st = mbs_constraint_info(d, &rank, active);
    if (st == MBS_OK) st = mbs_linearize_coordinates(d, indep, &n);
    if (st != MBS_OK) {
        snprintf(why, (size_t)len, "the loops cannot be closed at the start configuration: %s",
                 d ? mbs_data_error(d) : "out of memory");
    } else if (take_partition(m, active, indep, L) != 0 || mbs_con_topo_init(m, &L->t) != MBS_OK) {
        snprintf(why, (size_t)len, "out of memory, or a partition that does not match the rank");
        st = MBS_ERR_NOMEM;
    } else if (make_blocks(m, L) != 0) {
        snprintf(why, (size_t)len, "the dependent coordinates of the start partition do not "
                 "split into square blocks of the loops' rows");
        st = MBS_ERR_SINGULAR;
    }
    mbs_data_destroy(d);
    free(active), free(indep);
    if (st != MBS_OK) cg_loops_free(L);
    return st == MBS_OK ? 0 : -1;
}

/* In place A = L D L^T of a symmetric positive definite n x n A (row-major, lower triangle
   read): L unit lower below the diagonal, D on it; the pivots also into d. */
static void ldl_dense(cg_out *o, int n, cg_val *A, cg_val *d)
{
    for (int j = 0; j < n; ++j) {
        cg_val s = A[n * j + j];
        for (int k = 0; k < j; ++k)
            s = cg_sub(o, s, cg_mul(o, cg_mul(o, A[n * j + k], A[n * j + k]), A[n * k + k]));
        A[n * j + j] = d[j] = s;
        for (int i = j + 1; i < n; ++i) {
            cg_val t = A[n * i + j];
            for (int k = 0; k < j; ++k)
                t = cg_sub(o, t, cg_mul(o, cg_mul(o, A[n * i + k], A[n * j + k]), A[n * k + k]));
            A[n * i + j] = cg_div(o, t, s);
        }
    }
}

/* x = A^-1 x in place with the factor of ldl_dense. */
static void ldl_dense_solve(cg_out *o, int n, const cg_val *A, cg_val *x)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < i; ++k) x[i] = cg_sub(o, x[i], cg_mul(o, A[n * i + k], x[k]));
    for (int i = 0; i < n; ++i) x[i] = cg_div(o, x[i], A[n * i + i]);
    for (int i = n - 1; i >= 0; --i)
        for (int k = i + 1; k < n; ++k) x[i] = cg_sub(o, x[i], cg_mul(o, A[n * k + i], x[k]));
}

/* Scratch of the constrained dynamics: one block, freed at once. */
typedef struct loops_ws {
    cg_val *H, *Sw, *a, *Vw, *Aw, *J, *gam, *K, *w, *zero, *invD, *ZD;
} loops_ws;

/* Free the scratch (generator memory). */
static void ws_free(loops_ws *w)
{
    free(w->H), free(w->Sw), free(w->a), free(w->Vw), free(w->Aw), free(w->J), free(w->gam);
    free(w->K), free(w->w), free(w->zero), free(w->invD), free(w->ZD);
}

/* Allocate the scratch for m's loops, zero inputs set; 0 or -1. */
static int ws_alloc(const mbs_model *m, const cg_loops *L, loops_ws *w)
{
    const size_t nv = (size_t)m->nv + 1, nb = 6 * (size_t)m->nbody, r = (size_t)L->rank + 1;
    memset(w, 0, sizeof *w);
    w->H = calloc(nv * nv, sizeof(cg_val)), w->Sw = calloc(6 * nv, sizeof(cg_val));
    w->a = calloc(nb, sizeof(cg_val)), w->Vw = calloc(nb, sizeof(cg_val));
    w->Aw = calloc(nb, sizeof(cg_val)), w->J = calloc(r * nv, sizeof(cg_val));
    w->gam = calloc(r, sizeof(cg_val)), w->K = calloc(r * r, sizeof(cg_val));
    w->w = calloc(nv, sizeof(cg_val)), w->zero = calloc(nv, sizeof(cg_val));
    w->invD = calloc(nv, sizeof(cg_val)), w->ZD = calloc(r * nv, sizeof(cg_val));
    if (!w->H || !w->Sw || !w->a || !w->Vw || !w->Aw || !w->J || !w->gam || !w->K || !w->w ||
        !w->zero || !w->invD || !w->ZD)
        return -1;
    for (size_t i = 0; i < nv; ++i) w->zero[i] = cg_const(0.0);
    return 0;
}

/* K = Z^T D^-1 Z (rank x rank) with Z = L^-T J_a^T in w->J (rows), ZD = Z^T D^-1. */
static void gram(cg_out *o, const mbs_model *m, const cg_loops *L, loops_ws *w)
{
    const int nv = m->nv, r = L->rank;
    for (int i = 0; i < r; ++i) {
        cg_ltdl_solve_lt(o, m, w->H, w->J + (size_t)nv * (size_t)i);
        for (int k = 0; k < nv; ++k)
            w->ZD[(size_t)nv * (size_t)i + (size_t)k] = cg_mul(o, w->J[(size_t)nv * (size_t)i + (size_t)k], w->invD[k]);
    }
    for (int i = 0; i < r; ++i)
        for (int j = 0; j <= i; ++j)
            w->K[r * i + j] = w->K[r * j + i] =
                cg_dot(o, w->ZD + (size_t)nv * (size_t)i, w->J + (size_t)nv * (size_t)j, nv);
}

int cg_emit_loops_forward(cg_out *o, const cg_kin *k, const cg_loops *L, const cg_val *tau,
                          cg_val *qacc, cg_val *lam, cg_val *piv, cg_val *kdiag)
{
    const mbs_model *m = k->m;
    const int nv = m->nv, r = L->rank;
    loops_ws w;
    int st = ws_alloc(m, L, &w);
    if (st == 0) st = cg_emit_rnea(o, k, w.zero, w.w); /* c - gen - J^T f_ext */
    if (st == 0) st = cg_emit_crba(o, k, w.H);
    if (st != 0) return ws_free(&w), -1;
    for (int i = 0; i < nv; ++i) w.w[i] = cg_sub(o, tau[i], w.w[i]);
    cg_ltdl(o, m, w.H);
    for (int i = 0; i < nv; ++i) piv[i] = w.H[nv * i + i], w.invD[i] = cg_div(o, cg_const(1.0), piv[i]);
    cg_world_motion(o, k, w.Sw);
    cg_world_accel(o, k, w.a, w.Vw, w.Aw);
    const cg_rows_in in = {k, w.Sw, w.Vw, w.Aw};
    cg_rows(o, L, L->row, r, &in, NULL, w.J, w.gam);
    gram(o, m, L, &w);
    cg_ltdl_solve_lt(o, m, w.H, w.w); /* w = D^-1 L^-T f: M^-1 f = L^-1 w */
    for (int i = 0; i < nv; ++i) w.w[i] = cg_mul(o, w.w[i], w.invD[i]);
    for (int i = 0; i < r; ++i) { /* K lam = -(J_a M^-1 f + gam) */
        kdiag[i] = w.K[r * i + i];
        lam[i] = cg_neg(o, cg_add(o, cg_dot(o, w.J + (size_t)nv * (size_t)i, w.w, nv), w.gam[i]));
    }
    ldl_dense(o, r, w.K, piv + nv);
    ldl_dense_solve(o, r, w.K, lam);
    for (int i = 0; i < nv; ++i) { /* qacc = L^-1 (w + D^-1 Z lam) */
        qacc[i] = w.w[i];
        for (int j = 0; j < r; ++j)
            qacc[i] = cg_add(o, qacc[i], cg_mul(o, w.ZD[(size_t)nv * (size_t)j + (size_t)i], lam[j]));
    }
    cg_ltdl_solve_l(o, m, w.H, qacc);
    ws_free(&w);
    return 0;
}

int cg_emit_loops_inverse(cg_out *o, const cg_kin *k, const cg_loops *L, const cg_val *qacc,
                          cg_val *tau, cg_val *piv)
{
    const mbs_model *m = k->m;
    const int nv = m->nv, r = L->rank;
    loops_ws w;
    int st = ws_alloc(m, L, &w);
    if (st == 0) st = cg_emit_rnea(o, k, qacc, tau);
    if (st != 0) return ws_free(&w), -1;
    cg_world_motion(o, k, w.Sw);
    const cg_rows_in in = {k, w.Sw, NULL, NULL};
    cg_rows(o, L, L->row, r, &in, NULL, w.J, NULL);
    for (int i = 0; i < r; ++i) { /* K = J J^T, x = J tau */
        for (int j = 0; j <= i; ++j)
            w.K[r * i + j] = w.K[r * j + i] =
                cg_dot(o, w.J + (size_t)nv * (size_t)i, w.J + (size_t)nv * (size_t)j, nv);
        w.gam[i] = cg_dot(o, w.J + (size_t)nv * (size_t)i, tau, nv);
    }
    ldl_dense(o, r, w.K, piv);
    ldl_dense_solve(o, r, w.K, w.gam);
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < r; ++j)
            tau[i] = cg_sub(o, tau[i], cg_mul(o, w.J[(size_t)nv * (size_t)j + (size_t)i], w.gam[j]));
    ws_free(&w);
    return 0;
}
