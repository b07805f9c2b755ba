/* The generated functions of a model with cut joints: the kept rows and their Jacobian, the
 * closure (Newton on the dependent coordinates with a fixed iteration count, a small LU with
 * partial pivoting per block of J_v, then the velocity projection), the constrained forward
 * and inverse dynamics, and the library's RK4 that closes the loops at every stage. The
 * symbolic parts are straight-line; the closure and the step are short fixed-size loops. */
#include "cg_loops.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cg_mass.h"

/* Print n ints as a C initializer, ended by the sentinel -1. */
static void print_ints(FILE *f, const int *a, int n)
{
    for (int i = 0; i < n; ++i) fprintf(f, "%d, ", a[i]);
    fputs("-1}", f);
}

/* The macros, error codes, tables and prototypes of the loop functions. */
static void write_header(FILE *f, const mbs_model *m, const cg_loops *L, const char *P)
{
    int jv = 0;
    for (int b = 0; b < L->nblock; ++b) jv += L->blk_n[b] * L->blk_n[b];
    fprintf(f, "\n#define %s_NCON %d  /* rows of the cut joints (lambda) */\n"
               "#define %s_NROW %d  /* rows kept (independent at the start configuration) */\n"
               "#define %s_NDOF %d  /* independent coordinates */\n"
               "#define %s_NDROP %d\n#define %s_NBLK %d\n#define %s_JV_SIZE %d\n\n",
            P, m->ncon, P, L->rank, P, L->ndof, P, L->ndrop, P, L->nblock, P, jv);
    fprintf(f, "/* Status of the functions: 0, or one of these. */\n"
               "#define %s_ERR_NONFINITE (-1)    /* a result is not finite */\n"
               "#define %s_ERR_SINGULAR (-2)     /* J_v of the frozen partition, M or\n"
               "                                    J M^-1 J^T is singular here */\n"
               "#define %s_ERR_CLOSURE (-3)      /* Newton left a residual above the tolerance */\n"
               "#define %s_ERR_INCONSISTENT (-4) /* a dropped (redundant) row is violated */\n\n",
            P, P, P, P);
    fprintf(f, "#ifndef %s_NEWTON_ITERS\n#define %s_NEWTON_ITERS 3    /* Newton steps per closure */\n#endif\n"
               "#ifndef %s_CLOSE_TOL\n#define %s_CLOSE_TOL 1e-10    /* scaled residual of a closed loop */\n#endif\n"
               "#ifndef %s_COND_MAX\n#define %s_COND_MAX 1e10     /* largest pivot ratio of J_v's LU */\n#endif\n"
               "#ifndef %s_PIVOT_TOL\n#define %s_PIVOT_TOL 1e-12    /* smallest relative pivot of K */\n#endif\n"
               "#define %s_DROP_TOL 1e-8      /* scaled residual of a dropped row */\n\n",
            P, P, P, P, P, P, P, P, P);
    fprintf(f, "/* Coordinates (v indices, ascending, ended by -1) the closure holds (independent)\n"
               "   and those it solves for (dependent), and the kept rows (lambda indices). */\n"
               "const int %s_independent[] = {", P);
    print_ints(f, L->ind, L->ndof);
    fprintf(f, ";\nconst int %s_dependent[] = {", P);
    print_ints(f, L->dep, L->rank);
    fprintf(f, ";\nstatic const int %s_row[] = {", P);
    print_ints(f, L->row, L->rank);
    fprintf(f, ";\n/* J_v's blocks: sizes, kept-row positions and dependent dofs, block after block */\n"
               "static const int %s_blk_n[] = {", P);
    print_ints(f, L->blk_n, L->nblock);
    fprintf(f, ";\nstatic const int %s_blk_row[] = {", P);
    print_ints(f, L->blk_row, L->rank);
    fprintf(f, ";\nstatic const int %s_blk_dof[] = {", P);
    print_ints(f, L->blk_dof, L->rank);
    fputs(";\n\n", f);
}

/* static void P_rows(q, h, J) or P_dropped(q, h): scaled residuals (and Jacobian rows) of
   the given rows from q alone; 0 or -1. */
static int write_rows(FILE *f, const mbs_model *m, const cg_loops *L, const char *P, int dropped,
                      int *nline)
{
    cg_out o;
    cg_kin k;
    cg_begin(&o, f);
    const int n = dropped ? L->ndrop : L->rank;
    if (dropped)
        fprintf(f, "/* Scaled residuals h (%s_NDROP) of the dropped rows at q. */\n"
                   "static void %s_dropped(const double *q, double *h)\n{\n    (void)q, (void)h;\n", P, P);
    else
        fprintf(f, "/* Scaled residuals h (%s_NROW) and Jacobian rows J (%s_NROW x %s_NV, row-major)\n"
                   "   of the kept rows at q. */\nstatic void %s_rows(const double *q, double *h, double *J)\n{\n    (void)q, (void)h, (void)J;\n",
                P, P, P, P);
    int st = cg_kin_init(&o, &k, m);
    cg_val *Sw = calloc(6 * (size_t)m->nv + 1, sizeof(cg_val));
    cg_val *h = calloc((size_t)n + 1, sizeof(cg_val));
    cg_val *J = calloc((size_t)n * (size_t)m->nv + 1, sizeof(cg_val));
    if (st == 0 && Sw && h && J) {
        cg_kinematics(&o, &k);
        if (!dropped) cg_world_motion(&o, &k, Sw);
        const cg_rows_in in = {&k, Sw, NULL, NULL};
        cg_rows(&o, L, dropped ? L->drop : L->row, n, &in, h, dropped ? NULL : J, NULL);
        for (int i = 0; i < n; ++i) cg_store(&o, "h[%d]", i, h[i]);
        for (int i = 0; !dropped && i < n * m->nv; ++i) cg_store(&o, "J[%d]", i, J[i]);
    } else {
        st = -1;
    }
    if (cg_flush(&o) != 0) st = -1;
    fputs("}\n\n", f);
    *nline += o.nline;
    free(Sw), free(h), free(J);
    cg_kin_free(&k);
    return st;
}

/* static void P_move(q, dx): q (+) dx on the joints that hold dependent coordinates. */
static void write_move(FILE *f, const mbs_model *m, const cg_loops *L, const char *P)
{
    unsigned char *dep = calloc((size_t)m->nv + 1, 1);
    fprintf(f, "/* A Newton step: q (+) dx with dx (%s_NV) read on the dependent coordinates. */\n"
               "static void %s_move(double *q, const double *dx)\n{\n    (void)q, (void)dx;\n", P, P);
    for (int i = 0; dep && i < L->rank; ++i) dep[L->dep[i]] = 1;
    for (int t = 0; dep && t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const cg_joint_emitter *e = cg_joint_emitter_for(jm);
        const int nlin = e->quaternion ? e->quat_at : jm->nq;
        for (int i = 0; i < nlin; ++i)
            if (dep[jm->vadr + i]) fprintf(f, "    q[%d] += dx[%d];\n", jm->qadr + i, jm->vadr + i);
        if (!e->quaternion) continue;
        const int w = jm->vadr + nlin;
        if (!dep[w] && !dep[w + 1] && !dep[w + 2]) continue;
        fputs("    {\n        const double w[3] = {", f);
        for (int i = 0; i < 3; ++i) {
            if (dep[w + i]) fprintf(f, "dx[%d]", w + i);
            else fputs("0.0", f);
            fputs(i < 2 ? ", " : "", f);
        }
        fprintf(f, "};\n        quat_integrate(q + %d, q + %d, w, 1.0);\n    }\n",
                jm->qadr + nlin, jm->qadr + nlin);
    }
    fputs("}\n\n", f);
    free(dep);
}

/* The LU of J_v's blocks and its solve (fixed sizes, partial pivoting). */
static const char *const lu_text =
    "/* In place LU with partial pivoting of the n x n row-major A (row swaps in p); 0, or -1\n"
    "   when a pivot is zero or the ratio of the largest to the smallest exceeds COND_MAX. */\n"
    "static int P_lu(int n, double *A, int *p)\n{\n"
    "    double umax = 0.0, umin = HUGE_VAL;\n    int i, j, k;\n"
    "    for (k = 0; k < n; ++k) {\n        int r = k;\n"
    "        for (i = k + 1; i < n; ++i)\n            if (fabs(A[i * n + k]) > fabs(A[r * n + k])) r = i;\n"
    "        p[k] = r;\n"
    "        for (j = 0; r != k && j < n; ++j) {\n"
    "            const double s = A[k * n + j];\n            A[k * n + j] = A[r * n + j];\n            A[r * n + j] = s;\n        }\n"
    "        const double u = fabs(A[k * n + k]);\n"
    "        if (!(u > 0.0) || !(u < HUGE_VAL)) return -1;\n"
    "        umax = u > umax ? u : umax;\n        umin = u < umin ? u : umin;\n"
    "        for (i = k + 1; i < n; ++i) {\n            const double l = A[i * n + k] /= A[k * n + k];\n"
    "            for (j = k + 1; j < n; ++j) A[i * n + j] -= l * A[k * n + j];\n        }\n    }\n"
    "    return umax <= P_COND_MAX * umin ? 0 : -1;\n}\n\n"
    "/* b = A^-1 b in place with the factors of P_lu. */\n"
    "static void P_lu_solve(int n, const double *A, const int *p, double *b)\n{\n    int i, j;\n"
    "    for (i = 0; i < n; ++i)\n        if (p[i] != i) {\n"
    "            const double s = b[i];\n            b[i] = b[p[i]];\n            b[p[i]] = s;\n        }\n"
    "    for (i = 0; i < n; ++i)\n        for (j = 0; j < i; ++j) b[i] -= A[i * n + j] * b[j];\n"
    "    for (i = n - 1; i >= 0; --i) {\n        for (j = i + 1; j < n; ++j) b[i] -= A[i * n + j] * b[j];\n"
    "        b[i] /= A[i * n + i];\n    }\n}\n\n"
    "/* The LU factors F of J_v (kept rows x dependent dofs of J) block by block; 0 or -1. */\n"
    "static int P_jv_factor(const double *J, double *F, int *piv)\n{\n    int b, i, j, o = 0, s = 0;\n"
    "    for (b = 0; b < P_NBLK; ++b) {\n        const int n = P_blk_n[b];\n"
    "        for (i = 0; i < n; ++i)\n            for (j = 0; j < n; ++j)\n"
    "                F[s + i * n + j] = J[P_blk_row[o + i] * P_NV + P_blk_dof[o + j]];\n"
    "        if (P_lu(n, F + s, piv + o) != 0) return -1;\n        o += n;\n        s += n * n;\n    }\n"
    "    return 0;\n}\n\n"
    "/* dx (on the dependent dofs) = J_v^-1 r, r by kept row. */\n"
    "static void P_jv_solve(const double *F, const int *piv, const double *r, double *dx)\n{\n"
    "    double y[P_NROW + 1];\n    int b, i, o = 0, s = 0;\n"
    "    for (b = 0; b < P_NBLK; ++b) {\n        const int n = P_blk_n[b];\n"
    "        for (i = 0; i < n; ++i) y[i] = r[P_blk_row[o + i]];\n"
    "        P_lu_solve(n, F + s, piv + o, y);\n"
    "        for (i = 0; i < n; ++i) dx[P_blk_dof[o + i]] = y[i];\n        o += n;\n        s += n * n;\n    }\n}\n\n";

/* The closure and P_close. */
static const char *const closure_text =
    "/* Close the loops of (q, v) in place holding the independent coordinates: P_NEWTON_ITERS\n"
    "   Newton steps on the dependent ones (q <- q (+) -J_v^-1 h), the residual checked at the\n"
    "   last iterate, then v_dep = -J_v^-1 J_u v_u there; check: also the dropped rows. */\n"
    "static int P_closure(double *q, double *v, int check)\n{\n"
    "    double h[P_NROW + 1], J[P_NROW * P_NV + 1], F[P_JV_SIZE + 1], dx[P_NV + 1], r[P_NROW + 1];\n"
    "    int piv[P_NROW + 1], i, k, it;\n"
    "    for (it = 0;; ++it) {\n        P_rows(q, h, J);\n"
    "        if (P_jv_factor(J, F, piv) != 0) {\n"
    "            for (i = 0; i < P_NROW; ++i)\n                if (!isfinite(h[i])) return P_ERR_NONFINITE;\n"
    "            return P_ERR_SINGULAR;\n        }\n"
    "        if (it == P_NEWTON_ITERS) break;\n"
    "        for (i = 0; i < P_NROW; ++i) r[i] = -h[i];\n"
    "        P_jv_solve(F, piv, r, dx);\n        P_move(q, dx);\n    }\n"
    "    for (i = 0; i < P_NROW; ++i)\n"
    "        if (!(fabs(h[i]) <= P_CLOSE_TOL)) return isfinite(h[i]) ? P_ERR_CLOSURE : P_ERR_NONFINITE;\n"
    "    for (i = 0; i < P_NROW; ++i)\n"
    "        for (r[i] = 0.0, k = 0; k < P_NDOF; ++k)\n"
    "            r[i] -= J[i * P_NV + P_independent[k]] * v[P_independent[k]];\n"
    "    P_jv_solve(F, piv, r, dx);\n"
    "    for (i = 0; i < P_NROW; ++i) v[P_dependent[i]] = dx[P_dependent[i]];\n"
    "    for (i = 0; i < P_NQ; ++i)\n        if (!isfinite(q[i])) return P_ERR_NONFINITE;\n"
    "    for (i = 0; i < P_NV; ++i)\n        if (!isfinite(v[i])) return P_ERR_NONFINITE;\n"
    "    if (check) DROPPED_CHECK\n"
    "    return 0;\n}\n\n"
    "/* Close the loops of (q, v) holding the independent coordinates (see P_closure) and check\n"
    "   the dropped rows; q and v are changed only on success. */\n"
    "int P_close(double *q, double *v)\n{\n    double Q[P_NQ], V[P_NV];\n    int i, st;\n"
    "    for (i = 0; i < P_NQ; ++i) Q[i] = q[i];\n    for (i = 0; i < P_NV; ++i) V[i] = v[i];\n"
    "    if ((st = P_closure(Q, V, 1)) != 0) return st;\n"
    "    for (i = 0; i < P_NQ; ++i) q[i] = Q[i];\n    for (i = 0; i < P_NV; ++i) v[i] = V[i];\n"
    "    return 0;\n}\n\n";

static const char *const dropped_text =
    "{\n        double hd[P_NDROP];\n        P_dropped(q, hd);\n"
    "        for (i = 0; i < P_NDROP; ++i)\n"
    "            if (!(fabs(hd[i]) <= P_DROP_TOL)) return isfinite(hd[i]) ? P_ERR_INCONSISTENT : P_ERR_NONFINITE;\n"
    "    }\n";

/* The RK4 step with closure at every stage (src/steppers/stepper_fixed.c). */
static const char *const rk4_text =
    "/* One RK4 step of h from the closed state (t, q, v) with tau held: the library's\n"
    "   MBS_STEP_RK4 (commutator-free Lie-group RK4) whose stages close their loops and project\n"
    "   their velocities, so that it integrates the independent coordinates and their rates;\n"
    "   the end state is closed. q, v, t updated only on success; 0 or a status. */\n"
    "int P_rk4_step(double *t, double *q, double *v, const double *tau, double h)\n{\n"
    "    double A[4][P_NV], V2[P_NV], V3[P_NV], V4[P_NV], W[P_NV], Q2[P_NQ], Qs[P_NQ];\n"
    "    int i, st = P_forward_dynamics(q, v, tau, A[0]);\n    if (st != 0) return st;\n"
    "    P_integrate(q, v, 0.5 * h, Q2);\n"
    "    for (i = 0; i < P_NV; ++i) V2[i] = v[i] + 0.5 * h * A[0][i];\n"
    "    if ((st = P_closure(Q2, V2, 0)) != 0 || (st = P_forward_dynamics(Q2, V2, tau, A[1])) != 0)\n"
    "        return st;\n"
    "    P_integrate(q, V2, 0.5 * h, Qs);\n"
    "    for (i = 0; i < P_NV; ++i) V3[i] = v[i] + 0.5 * h * A[1][i];\n"
    "    if ((st = P_closure(Qs, V3, 0)) != 0 || (st = P_forward_dynamics(Qs, V3, tau, A[2])) != 0)\n"
    "        return st;\n"
    "    for (i = 0; i < P_NV; ++i) W[i] = V3[i] - 0.5 * v[i];\n"
    "    P_integrate(Q2, W, h, Qs);\n"
    "    for (i = 0; i < P_NV; ++i) V4[i] = v[i] + h * A[2][i];\n"
    "    if ((st = P_closure(Qs, V4, 0)) != 0 || (st = P_forward_dynamics(Qs, V4, tau, A[3])) != 0)\n"
    "        return st;\n"
    "    for (i = 0; i < P_NV; ++i) W[i] = (3.0 * v[i] + 2.0 * V2[i] + 2.0 * V3[i] - V4[i]) / 12.0;\n"
    "    P_integrate(q, W, h, Q2);\n"
    "    for (i = 0; i < P_NV; ++i) W[i] = (-v[i] + 2.0 * V2[i] + 2.0 * V3[i] + 3.0 * V4[i]) / 12.0;\n"
    "    P_integrate(Q2, W, h, Qs);\n"
    "    for (i = 0; i < P_NV; ++i)\n"
    "        W[i] = v[i] + h / 6.0 * (A[0][i] + 2.0 * A[1][i] + 2.0 * A[2][i] + A[3][i]);\n"
    "    if ((st = P_closure(Qs, W, 1)) != 0) return st;\n"
    "    for (i = 0; i < P_NQ; ++i) q[i] = Qs[i];\n    for (i = 0; i < P_NV; ++i) v[i] = W[i];\n"
    "    *t += h;\n    return 0;\n}\n";

/* Write text with every word starting "P_" given the prefix instead of P, and DROPPED_CHECK
   replaced by the dropped rows' check (or an empty block). */
static void write_text(FILE *f, const char *text, const char *P, int ndrop)
{
    for (const char *s = text; *s; ++s) {
        const int word = s == text || !(isalnum((unsigned char)s[-1]) || s[-1] == '_');
        if (word && s[0] == 'P' && s[1] == '_') {
            fprintf(f, "%s_", P);
            ++s;
        } else if (!strncmp(s, "DROPPED_CHECK", 13)) {
            write_text(f, ndrop > 0 ? dropped_text : "{\n    }\n", P, 0);
            s += 12;
        } else {
            fputc(*s, f);
        }
    }
}

/* Constrained forward dynamics (ctx: the loops): stores qacc, the pivots piv, K's diagonal
   kd and the physical multipliers lam of the kept rows. */
static int emit_forward(cg_out *o, const cg_kin *k, const cg_val *tau, void *ctx)
{
    const cg_loops *L = ctx;
    const int nv = k->m->nv, r = L->rank;
    cg_val *qacc = calloc((size_t)nv + 1, sizeof(cg_val)), *lam = calloc((size_t)r + 1, sizeof(cg_val));
    cg_val *kd = calloc((size_t)r + 1, sizeof(cg_val)), *piv = calloc((size_t)(nv + r) + 1, sizeof(cg_val));
    int st = qacc && lam && kd && piv ? cg_emit_loops_forward(o, k, L, tau, qacc, lam, piv, kd) : -1;
    for (int i = 0; st == 0 && i < nv; ++i) cg_store(o, "qacc[%d]", i, qacc[i]);
    for (int i = 0; st == 0 && i < nv + r; ++i) cg_store(o, "piv[%d]", i, piv[i]);
    for (int i = 0; st == 0 && i < r; ++i) {
        cg_store(o, "kd[%d]", i, kd[i]);
        cg_store(o, "lam[%d]", i, cg_mul(o, lam[i], cg_const(L->t.row_scale[L->row[i]])));
    }
    free(qacc), free(lam), free(kd), free(piv);
    return st;
}

/* int P_forward_dynamics_lambda(q, v, tau, qacc, lambda) and P_forward_dynamics. */
static int write_forward(FILE *f, const mbs_model *m, const cg_loops *L, const char *P, int *nline)
{
    fprintf(f, "/* qacc (nv) and the cut-joint multipliers lambda (%s_NCON, nullable; 0 on the dropped\n"
               "   rows) at a closed state (q, v) with the joint forces tau: M qacc = tau - c + J^T lambda\n"
               "   with J qacc + J'v = 0 on the kept rows, through the tree-sparse factor of M\n"
               "   (mbs_forward_dynamics). 0 or a status. */\n"
               "int %s_forward_dynamics_lambda(const double *q, const double *v, const double *tau,\n"
               "                               double *qacc, double *lambda)\n{\n"
               "    (void)q, (void)v, (void)tau; /* a model may not read them all */\n"
               "    double piv[%s_NV + %s_NROW], kd[%s_NROW + 1], lam[%s_NROW + 1];\n    int i;\n",
            P, P, P, P, P, P);
    const int st = cg_write_body(f, m, "tau[%d]", emit_forward, (void *)L, nline);
    write_text(f, "    for (i = 0; i < P_NV; ++i)\n        if (!(piv[i] > 0.0)) return P_ERR_SINGULAR;\n"
                  "    for (i = 0; i < P_NROW; ++i)\n"
                  "        if (!(piv[P_NV + i] > P_PIVOT_TOL * kd[i])) return P_ERR_SINGULAR;\n"
                  "    for (i = 0; i < P_NV; ++i)\n        if (!isfinite(qacc[i])) return P_ERR_NONFINITE;\n"
                  "    if (lambda) {\n        for (i = 0; i < P_NCON; ++i) lambda[i] = 0.0;\n"
                  "        for (i = 0; i < P_NROW; ++i) lambda[P_row[i]] = lam[i];\n    }\n"
                  "    return 0;\n}\n\n"
                  "/* qacc (nv) at a closed state (q, v) with the joint forces tau; 0 or a status. */\n"
                  "int P_forward_dynamics(const double *q, const double *v, const double *tau, double *qacc)\n{\n"
                  "    return P_forward_dynamics_lambda(q, v, tau, qacc, 0);\n}\n\n", P, 0);
    return st;
}

/* The minimum-norm inverse dynamics (ctx: the loops): stores tau and the pivots piv. */
static int emit_inverse(cg_out *o, const cg_kin *k, const cg_val *qdd, void *ctx)
{
    const cg_loops *L = ctx;
    const int nv = k->m->nv, r = L->rank;
    cg_val *tau = calloc((size_t)nv + 1, sizeof(cg_val)), *piv = calloc((size_t)r + 1, sizeof(cg_val));
    int st = tau && piv ? cg_emit_loops_inverse(o, k, L, qdd, tau, piv) : -1;
    for (int i = 0; st == 0 && i < nv; ++i) cg_store(o, "tau[%d]", i, tau[i]);
    for (int i = 0; st == 0 && i < r; ++i) cg_store(o, "piv[%d]", i, piv[i]);
    free(tau), free(piv);
    return st;
}

/* int P_inverse_dynamics(q, v, qacc, tau): the minimum-norm tau (mbs_inverse_dynamics). */
static int write_inverse(FILE *f, const mbs_model *m, const cg_loops *L, const char *P, int *nline)
{
    fprintf(f, "/* tau (nv): the minimum-norm joint forces for which forward dynamics returns qacc at\n"
               "   the closed state (q, v), tau = t - J^T (J J^T)^-1 J t with t the tree's inverse\n"
               "   dynamics (mbs_inverse_dynamics; qacc is not checked against the constraints).\n"
               "   0 or a status. */\n"
               "int %s_inverse_dynamics(const double *q, const double *v, const double *qacc, double *tau)\n{\n"
               "    (void)q, (void)v, (void)qacc; /* a model may not read them all */\n"
               "    double piv[%s_NROW + 1];\n    int i;\n", P, P);
    const int st = cg_write_body(f, m, "qacc[%d]", emit_inverse, (void *)L, nline);
    write_text(f, "    for (i = 0; i < P_NROW; ++i)\n        if (!(piv[i] > 0.0)) return P_ERR_SINGULAR;\n"
                  "    for (i = 0; i < P_NV; ++i)\n        if (!isfinite(tau[i])) return P_ERR_NONFINITE;\n"
                  "    return 0;\n}\n\n", P, 0);
    return st;
}

int cg_write_loops(FILE *f, const mbs_model *m, const cg_loops *L, const char *P)
{
    int nline = 0;
    write_header(f, m, L, P);
    fprintf(f, "int %s_close(double *q, double *v);\n"
               "int %s_forward_dynamics_lambda(const double *q, const double *v, const double *tau,\n"
               "                               double *qacc, double *lambda);\n\n", P, P);
    if (write_rows(f, m, L, P, 0, &nline) != 0) return -1;
    if (L->ndrop > 0 && write_rows(f, m, L, P, 1, &nline) != 0) return -1;
    write_move(f, m, L, P);
    write_text(f, lu_text, P, 0);
    write_text(f, closure_text, P, L->ndrop);
    if (write_forward(f, m, L, P, &nline) != 0 || write_inverse(f, m, L, P, &nline) != 0) return -1;
    cg_write_integrate(f, m, P);
    write_text(f, rk4_text, P, 0);
    return nline;
}
