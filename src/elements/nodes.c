/* Nodes: force elements in series (Otter, Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library" §8.2; MSL ThreeSprings). A node is a massless
 * body without joints that only line force elements touch; it has no coordinates, and since
 * it has no inertia the forces on it balance at every instant:
 *     R(x) = sum over its elements of T_e e_e = 0,   T_e = k (L - L0),
 * e_e the unit vector from the node to the element's other end. All nodes are solved
 * together (a chain of nodes couples them) by Newton's method on the tangent stiffness
 *     dF_a/dp_b = k e e^T + (T / L) (I - e e^T)
 * of each element, warm-started from the last solution (first start: the node's start
 * position where mbs_set_node_start gives one, else the same balance with zero rest lengths,
 * a linear system), with step halving when |R| grows and at most NODE_MAXIT iterations.
 * Converged means the residual is below the tolerance, never a step that stalls. When
 * Newton fails the message says what the last iterate shows: an element at zero length, a
 * compressed element (no equilibrium on the branch Newton started on), or a singular balance.
 * Elements through a node carry no damping and no mass: compile refuses them (a damper would
 * make the node's position a first-order state). */
#include "elements/couplings.h"
#include "elements/workspace.h"

#define NODE_MAXIT 60
#define NODE_HALVINGS 30
#define NODE_TOL 1e-14 /* residual relative to the element force scale k max(L, L0) */

/* World position of end k (0: a, 1: b) of element f: its node's x or its body point. */
static void end_pos(const mbs_data *d, const mbs_force_model *f, int k, double p[3])
{
    const int body = k ? f->body_b : f->body_a, n = d->model->body_node[body];
    const double *pt = k ? f->point_b : f->point_a;
    if (n >= 0) v3_copy(p, d->cws->nx + 3 * n);
    else if (body == MBS_WORLD) v3_copy(p, pt);
    else pose_apply(p, &d->x_world[body], pt);
}

/* Add to block (r, c) of the 3n x 3n row-major J the 3x3 matrix s K. */
static void add_block(double *J, int n3, int r, int c, double s, const double K[9])
{
    if (r < 0 || c < 0) return;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) J[(size_t)n3 * (3 * r + i) + 3 * c + j] += s * K[3 * i + j];
}

/* Residual R (forces on the nodes) and, when J, its Jacobian dR/dx at nx; lin: every element
   a zero-rest-length spring (the cold start); returns the force scale. */
static double node_system(mbs_data *d, double *R, double *J, int lin)
{
    const mbs_model *m = d->model;
    const int n3 = 3 * m->nnode;
    double scale = 0.0;
    for (int i = 0; i < n3; ++i) R[i] = 0.0;
    if (J)
        for (int i = 0; i < n3 * n3; ++i) J[i] = 0.0;
    for (int q = 0; q < m->nnode_elem; ++q) {
        const mbs_force_model *f = &m->forces[m->node_elem[q]];
        double pa[3], pb[3], r[3], K[9];
        end_pos(d, f, 0, pa), end_pos(d, f, 1, pb);
        v3_sub(r, pb, pa);
        const double L = v3_norm(r), L0 = lin ? 0.0 : f->rest, k = f->stiffness;
        scale = fmax(scale, k * fmax(L, L0));
        double e[3] = {0, 0, 0}, T = k * (L - L0);
        if (L > 0.0) v3_scale(e, r, 1.0 / L);
        const double t = lin ? k : (L > 0.0 ? T / L : 0.0);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                K[3 * i + j] = k * e[i] * e[j] + t * ((i == j) - e[i] * e[j]);
        const int na = m->body_node[f->body_a], nb = m->body_node[f->body_b];
        for (int i = 0; i < 3; ++i) {
            if (na >= 0) R[3 * na + i] += T * e[i];
            if (nb >= 0) R[3 * nb + i] -= T * e[i];
        }
        if (!J) continue;
        add_block(J, n3, na, na, -1.0, K), add_block(J, n3, na, nb, 1.0, K);
        add_block(J, n3, nb, na, 1.0, K), add_block(J, n3, nb, nb, -1.0, K);
    }
    return scale;
}

/* Solve J dx = b (n x n row-major, destroyed) by Gaussian elimination with partial pivoting;
   0 or the failing column + 1 (a pivot below 1e-13 of the largest entry). */
static int lu_solve(int n, double *J, double *b, int *piv)
{
    double big = 0.0;
    for (int i = 0; i < n * n; ++i) big = fmax(big, fabs(J[i]));
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(J[n * r + c]) > fabs(J[n * p + c])) p = r;
        piv[c] = p;
        if (!(fabs(J[n * p + c]) > 1e-13 * big)) return c + 1;
        for (int k = 0; k < n && p != c; ++k) {
            const double t = J[n * c + k];
            J[n * c + k] = J[n * p + k], J[n * p + k] = t;
        }
        const double t = b[c];
        b[c] = b[p], b[p] = t;
        for (int r = c + 1; r < n; ++r) {
            const double l = J[n * r + c] / J[n * c + c];
            for (int k = c; k < n; ++k) J[n * r + k] -= l * J[n * c + k];
            b[r] -= l * b[c];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        for (int k = r + 1; k < n; ++k) b[r] -= J[n * r + k] * b[k];
        b[r] /= J[n * r + r];
    }
    return 0;
}

/* Largest |x_i| of n values. */
static double maxabs(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) s = fmax(s, fabs(x[i]));
    return s;
}

/* Cold start: the balance with zero rest lengths, linear in x. 0 or failing column + 1. */
static int node_cold(mbs_data *d)
{
    mbs_coupling_ws *w = d->cws;
    const int n3 = 3 * d->model->nnode;
    for (int i = 0; i < n3; ++i) w->nx[i] = 0.0;
    node_system(d, w->nR, w->nJ, 1);
    for (int i = 0; i < n3; ++i) w->ndx[i] = -w->nR[i];
    const int info = lu_solve(n3, w->nJ, w->ndx, w->npiv);
    if (info == 0)
        for (int i = 0; i < n3; ++i) w->nx[i] = w->ndx[i];
    return info;
}

/* Longest fraction (<= 1) of the step ndx that shortens no element through a node by more
   than half its length: line springs can pass through zero length into a mirrored
   equilibrium, and Newton must stay on the branch it starts on. */
static double step_limit(const mbs_data *d)
{
    const mbs_model *m = d->model;
    const double *dx = d->cws->ndx;
    double alpha = 1.0;
    for (int q = 0; q < m->nnode_elem; ++q) {
        const mbs_force_model *f = &m->forces[m->node_elem[q]];
        const int na = m->body_node[f->body_a], nb = m->body_node[f->body_b];
        double pa[3], pb[3], r[3], dr[3];
        end_pos(d, f, 0, pa), end_pos(d, f, 1, pb);
        v3_sub(r, pb, pa);
        for (int i = 0; i < 3; ++i)
            dr[i] = (nb >= 0 ? dx[3 * nb + i] : 0.0) - (na >= 0 ? dx[3 * na + i] : 0.0);
        const double L = v3_norm(r), dl = v3_norm(dr);
        if (dl * alpha > 0.5 * L) alpha = 0.5 * L / dl;
    }
    return alpha;
}

/* At a solution: 0 when its tangent stiffness (nJ) is regular, i.e. the solution is
   isolated; else 2 + the failing column (springs at rest or slack leave a node free to move
   across them, its position undetermined). Destroys nJ. */
static int node_isolated(mbs_data *d)
{
    mbs_coupling_ws *w = d->cws;
    const int n3 = 3 * d->model->nnode;
    for (int i = 0; i < n3; ++i) w->ndx[i] = 0.0;
    const int info = lu_solve(n3, w->nJ, w->ndx, w->npiv);
    return info == 0 ? 0 : 2 + info - 1;
}

/* Newton on R(x) = 0 from nx: 0 converged, 1 no convergence, 2 + column: singular. */
static int node_newton(mbs_data *d)
{
    mbs_coupling_ws *w = d->cws;
    const int n3 = 3 * d->model->nnode;
    double res = INFINITY;
    for (int it = 0; it < NODE_MAXIT; ++it) {
        const double scale = node_system(d, w->nR, w->nJ, 0);
        res = maxabs(w->nR, n3);
        if (!(res > NODE_TOL * scale)) return isfinite(res) ? node_isolated(d) : 1;
        for (int i = 0; i < n3; ++i) w->ndx[i] = -w->nR[i];
        const int info = lu_solve(n3, w->nJ, w->ndx, w->npiv);
        if (info != 0) return 2 + info - 1;
        for (int i = 0; i < n3; ++i) w->nx0[i] = w->nx[i];
        double alpha = step_limit(d);
        for (int h = 0; h <= NODE_HALVINGS; ++h, alpha *= 0.5) {
            for (int i = 0; i < n3; ++i) w->nx[i] = w->nx0[i] + alpha * w->ndx[i];
            node_system(d, w->nR, NULL, 0);
            const double r2 = maxabs(w->nR, n3);
            if (r2 < res || (h == NODE_HALVINGS && isfinite(r2))) break;
        }
        if (maxabs(w->ndx, n3) * alpha <= 1e-15 * (1.0 + maxabs(w->nx, n3))) {
            const double sc = node_system(d, w->nR, w->nJ, 0);
            /* a stalled step (an element at zero length stops it) is no solution */
            return maxabs(w->nR, n3) <= NODE_TOL * sc ? node_isolated(d) : 1;
        }
    }
    return 1;
}

/* x_world of every node from nx (a translation). */
static void node_poses(mbs_data *d)
{
    const mbs_model *m = d->model;
    for (int n = 0; n < m->nnode; ++n) {
        mbs_pose *X = &d->x_world[m->node_body[n]];
        pose_identity(X);
        v3_copy(X->p, d->cws->nx + 3 * n);
    }
}

/* The first start: the nodes' start positions where given, the cold start's elsewhere (0
   when that linear system is singular and every node has a start); 0 or column + 1. */
static int node_first(mbs_data *d, int *any)
{
    const mbs_model *m = d->model;
    int info = node_cold(d), all = 1;
    *any = 0;
    for (int n = 0; n < m->nnode; ++n) {
        if (!mbs_node_has_start(m, n)) {
            all = 0;
            continue;
        }
        *any = 1;
        v3_copy(d->cws->nx + 3 * n, m->node_start + 3 * n);
    }
    return all ? 0 : info;
}

/* The message of a failed balance (st: 1 no convergence, 2 + column singular) from the last
   iterate: an element through a node at zero length, else a compressed one, else st's. */
static int node_fail(mbs_data *d, int st, int from_start)
{
    const mbs_model *m = d->model;
    char nb[96], eb[96];
    int node = st >= 2 ? (st - 2) / 3 : 0, elem = -1, zero = 0;
    double L = 0.0, L0 = 0.0;
    for (int q = 0; q < m->nnode_elem && !zero; ++q) {
        const mbs_force_model *f = &m->forces[m->node_elem[q]];
        double pa[3], pb[3], r[3];
        end_pos(d, f, 0, pa), end_pos(d, f, 1, pb);
        v3_sub(r, pb, pa);
        const double l = v3_norm(r);
        zero = !(l > 1e-12 * fmax(f->rest, 1e-300));
        if (!zero && !(l < f->rest) ) continue;
        elem = m->node_elem[q], L = l, L0 = f->rest;
        const int na = m->body_node[f->body_a];
        node = na >= 0 ? na : m->body_node[f->body_b];
    }
    const char *nl = mbs_body_label(m, m->node_body[node], nb, (int)sizeof nb);
    const char *from = from_start ? "its start position" : "the balance of zero-rest-length "
                                                           "springs (give it a start position "
                                                           "near the equilibrium meant: "
                                                           "mbs_set_node_start)";
    if (elem >= 0 && zero)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "node %s: line element %s is at zero length "
                             "(its direction, and the balance, are undefined) starting from %s",
                             nl, mbs_name_label(m->forces[elem].name, elem, eb, (int)sizeof eb),
                             from);
    if (elem >= 0)
        return MBS_DATA_FAIL(d, st >= 2 ? MBS_ERR_SINGULAR : MBS_ERR_CONVERGENCE,
                             "node %s: no equilibrium on this branch starting from %s (line "
                             "element %s is compressed, length %.6g below its rest length "
                             "%.6g)", nl, from,
                             mbs_name_label(m->forces[elem].name, elem, eb, (int)sizeof eb), L, L0);
    return MBS_DATA_FAIL(d, st >= 2 ? MBS_ERR_SINGULAR : MBS_ERR_CONVERGENCE,
                         "node %s: the balance of the line forces on it %s (from %s)", nl,
                         st >= 2 ? "does not fix its position (slack or aligned springs)"
                                 : "has no solution Newton can reach", from);
}

/* See couplings.h: warm Newton, then from the first start when that fails. */
int mbs_nodes_solve(mbs_data *d)
{
    const mbs_model *m = d->model;
    if (m->nnode == 0) return MBS_OK;
    mbs_coupling_ws *w = d->cws;
    int st = w->node_ready ? node_newton(d) : 1, any = 0;
    if (st != 0) {
        const int first = node_first(d, &any);
        st = first == 0 ? node_newton(d) : 2 + first - 1;
    }
    if (st == 0) {
        w->node_ready = 1;
        node_poses(d);
        return MBS_OK;
    }
    w->node_ready = 0;
    return node_fail(d, st, any);
}
