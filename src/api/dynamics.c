/* Public dynamics entry points: validation, kinematics, forces, then one recursive pass.
 * A failed call leaves q, v, time and the previous outputs (qacc) as they were. */
#include "loops/analytic/closure.h"
#include "core/internal.h"
#include "events/events.h"
#include "planar/planar.h"
#include "loops/loops.h"
#include "loops/user_rows.h"
#include "elements/couplings.h"
#include "elements/workspace.h"
#include "ustates/ustates.h"
#include "analysis/analysis.h"

/* 1 if the lower triangle (diagonal included) of the n x n row-major A is finite: 0 * x
   is 0 for every finite x and NaN otherwise, summed in four independent lanes. */
static int lower_all_finite(const double *A, int n)
{
    double z[4] = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < n; ++i) {
        const double *row = A + (size_t)n * (size_t)i;
        int j = 0;
        for (; j + 3 <= i; j += 4)
            for (int l = 0; l < 4; ++l) z[l] += 0.0 * row[j + l];
        for (; j <= i; ++j) z[0] += 0.0 * row[j];
    }
    return (z[0] + z[1] + z[2] + z[3]) == 0.0;
}

/* Strict upper triangle of the n x n row-major A from its lower triangle. */
static void mirror_lower(double *A, int n)
{
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) A[(size_t)n * i + j] = A[(size_t)n * j + i];
}

/* out = the symmetric matrix whose lower triangle is that of L (both n x n row-major). */
static void copy_symmetric(double *restrict out, const double *restrict L, int n)
{
    for (int i = 0; i < n; ++i) {
        const double *row = L + (size_t)n * (size_t)i;
        double *o = out + (size_t)n * (size_t)i;
        for (int j = 0; j <= i; ++j) o[j] = row[j];
        for (int j = i + 1; j < n; ++j) o[j] = L[(size_t)n * j + i];
    }
}

static int forward_once(mbs_data *d);

/* Kinematics and forces at the current state; the element's status on failure. */
static int prepare(mbs_data *d)
{
    if (mbs_closure_poses_current(d)) /* just closed: the poses are those of q */
        mbs_kinematics_vel(d);
    else
        mbs_kinematics(d);
    return mbs_forces_accumulate(d);
}

/* The planar path (src/planar/): qacc kept as it was unless the result is finite. */
static int planar_forward(mbs_data *d)
{
    const int nv = d->model->nv;
    double *saved = d->work;
    for (int i = 0; i < nv; ++i) saved[i] = d->qacc[i];
    const int st = d->model->ncon > 0 ? mbs_closure_planar_forward(d) : mbs_planar_forward(d);
    const int bad = st == MBS_OK ? mbs_first_nonfinite(d->qacc, nv) : -1;
    if (st == MBS_OK && bad < 0) return MBS_OK;
    for (int i = 0; i < nv; ++i) d->qacc[i] = saved[i];
    return st != MBS_OK ? st : mbs_fail_nonfinite(d, "qacc", bad, d->model->dof_joint[bad]);
}

/* Message for a non-finite multiplier of row r: a cut joint's or a coordinate row's. */
static int fail_lambda(mbs_data *d, int r)
{
    const mbs_model *m = d->model;
    char buf[96];
    if (r >= m->ncon)
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "the force holding dof %d of joint %s (motion, "
                             "lock or stop) is not finite", m->ev->qrows[r - m->ncon].dof,
                             mbs_joint_label(m, m->ev->qrows[r - m->ncon].joint, buf, (int)sizeof buf));
    return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "lambda[%d] (%s) is not finite", r,
                         mbs_con_row_owner(m, r, buf, (int)sizeof buf));
}

/* qacc = ABA(q, v, tau + forces), with cut joints or enabled coordinate rows (motions,
   locks, contacts) the multipliers too (loops_select.c); qacc and lambda are kept as they were on
   any failure. Reaction frictions iterate it with their limits (analysis/reaction_friction.c). */
int mbs_forward_dynamics(mbs_data *d)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_forward_dynamics");
    if (nested != MBS_OK) return nested;
    return mbs_reaction_friction_forward(d, forward_once);
}

/* One forward dynamics at the limits the frictions have. */
static int forward_once(mbs_data *d)
{
    const mbs_model *m = d->model;
    const int nv = m->nv, nrow = m->ncon + mbs_nqrow(m);
    int st = mbs_check_state(d, 1, 1);
    if (st == MBS_OK && m->planar && (m->ncon == 0 || mbs_closure_planar_now(d)))
        return planar_forward(d);
    if (st == MBS_OK) st = mbs_events_update_targets(d); /* prescribed motions at t */
    if (st == MBS_OK) st = prepare(d);
    if (st != MBS_OK) return st;
    double *saved = d->work, *saved_l = d->work + nv;
    for (int i = 0; i < nv; ++i) saved[i] = d->qacc[i];
    for (int i = 0; i < nrow; ++i) saved_l[i] = d->lambda[i];
    if (mbs_loops_active(d)) {
        st = mbs_loops_forward(d);
    } else {
        st = mbs_aba(d);
        for (int i = m->ncon; st == MBS_OK && i < nrow; ++i) d->lambda[i] = 0.0; /* no row holds */
    }
    if (st != MBS_OK) { /* singular: qacc as it was (a coupling solve after ABA may fail) */
        for (int i = 0; i < nv; ++i) d->qacc[i] = saved[i];
        return st;
    }
    int bad = mbs_first_nonfinite(d->qacc, nv);
    const int badl = mbs_first_nonfinite(d->lambda, nrow);
    if (bad < 0 && badl < 0) return MBS_OK;
    for (int i = 0; i < nv; ++i) d->qacc[i] = saved[i];
    for (int i = 0; i < nrow; ++i) d->lambda[i] = saved_l[i];
    if (bad >= 0) return mbs_fail_nonfinite(d, "qacc", bad, m->dof_joint[bad]);
    return fail_lambda(d, badl);
}

/* tau_out = M qacc + c - gen_force - J^T f_ext (RNEA), so forward dynamics of tau_out
   returns qacc; with cut joints the minimum-norm such tau (loops.h). */
int mbs_inverse_dynamics(mbs_data *d, const double *qacc, double *tau_out)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_inverse_dynamics");
    if (nested != MBS_OK) return nested;
    if (!qacc || !tau_out)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "inverse_dynamics: NULL qacc or tau_out");
    const int nv = d->model->nv;
    int st = mbs_check_state(d, 1, 0);
    const int bad = mbs_first_nonfinite(qacc, nv);
    if (st == MBS_OK && bad >= 0) st = mbs_fail_nonfinite(d, "qacc", bad, d->model->dof_joint[bad]);
    if (st == MBS_OK) st = prepare(d);
    if (st != MBS_OK) return st;
    double *tau = d->work;
    if (d->model->ncon > 0)
        st = mbs_loops_inverse(d, qacc, tau);
    else
        mbs_rnea(d, qacc, tau);
    if (st != MBS_OK) return st;
    const int badt = mbs_first_nonfinite(tau, nv);
    if (badt >= 0) return mbs_fail_nonfinite(d, "tau_out", badt, d->model->dof_joint[badt]);
    for (int i = 0; i < nv; ++i) tau_out[i] = tau[i];
    return MBS_OK;
}

/* M at the current q by CRBA into A (nv x nv), checked finite: A whole without coupling
   rows, else only its lower triangle sure (the rows add to that one). */
static int mass_lower(mbs_data *d, const char *call, double *A)
{
    const int nv = d->model->nv;
    int st = mbs_check_state(d, 0, 0);
    if (st != MBS_OK) return st;
    mbs_kinematics_crba(d);
    if (d->model->nnode > 0 && (st = mbs_nodes_solve(d)) != MBS_OK) return st;
    if (d->model->ncrow > 0 && (st = mbs_couplings_eval(d, 0)) != MBS_OK) return st;
    int finite = mbs_crba_framed(d, A);
    if (d->model->ncrow > 0) { /* + m G^T G of every row */
        mbs_couplings_mass(d, A, 0);
        finite = lower_all_finite(A, nv);
    }
    if (finite) return MBS_OK;
    mirror_lower(A, nv);
    const int bad = mbs_first_nonfinite(A, nv * nv);
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s: M[%d] (joint %s) is not finite", call, bad,
                         mbs_joint_label(d->model, d->model->dof_joint[bad / nv], buf,
                                         (int)sizeof buf));
}

/* Without coupling rows the CRBA writes M whole straight into the caller's array (on
   MBS_ERR_NONFINITE it then holds the matrix with its non-finite entries); with them through
   d->M, mirrored. */
int mbs_mass_matrix(mbs_data *d, double *M)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_mass_matrix");
    if (nested != MBS_OK) return nested;
    if (!M) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mass_matrix: NULL output");
    if (d->model->ncrow == 0) return mass_lower(d, "mass_matrix", M);
    const int st = mass_lower(d, "mass_matrix", d->M);
    if (st != MBS_OK) return st;
    copy_symmetric(M, d->M, d->model->nv);
    return MBS_OK;
}

/* MBS_ERR_STATE naming the element when an inertial-coupling row spans two branches of the
   tree (a point mass on a line between two arms): M is then not tree-sparse. */
static int check_tree_sparse(mbs_data *d)
{
    const mbs_model *m = d->model;
    mbs_coupling_ws *w = d->cws;
    for (int k = 0; k < m->ncrow; ++k) {
        const int n = mbs_crow_dense(d, &d->crow[k], w->g, w->gidx);
        int on = n - 1; /* walk the root path of the deepest dof; every column must be on it */
        for (int j = n > 0 ? w->gidx[n - 1] : -1; j >= 0 && on >= 0; j = m->dof_parent[j])
            if (w->gidx[on] == j) --on;
        if (on < 0) continue;
        char buf[96];
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "mass_matrix_factor: the inertia of %s couples "
                             "two branches of the tree, so M is not tree-sparse (use "
                             "mbs_mass_matrix)", mbs_crow_label(m, k, buf, (int)sizeof buf));
    }
    return MBS_OK;
}

/* M = L^T D L into the caller's LDL (lower triangle), tree-sparse (crba.c). */
int mbs_mass_matrix_factor(mbs_data *d, double *LDL)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_mass_matrix_factor");
    if (nested != MBS_OK) return nested;
    if (!LDL) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mass_matrix_factor: NULL output");
    const int nv = d->model->nv;
    int st = mass_lower(d, "mass_matrix_factor", d->M);
    if (st == MBS_OK) st = check_tree_sparse(d);
    if (st != MBS_OK) return st;
    if (mbs_mass_factor(d->model, d->M) != MBS_OK)
        return MBS_DATA_FAIL(d, MBS_ERR_SINGULAR, "mass_matrix_factor: the mass matrix is "
                             "singular (a massless body at the end of a chain?)");
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j <= i; ++j) LDL[(size_t)nv * i + j] = d->M[(size_t)nv * i + j];
    return MBS_OK;
}

/* x = M^-1 b in place with the factor of mbs_mass_matrix_factor (RBDA table 6.4). */
int mbs_mass_matrix_solve(mbs_data *d, const double *LDL, double *x)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_mass_matrix_solve");
    if (nested != MBS_OK) return nested;
    if (!LDL || !x) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mass_matrix_solve: NULL LDL or x");
    const int nv = d->model->nv;
    const int bad = mbs_first_nonfinite(x, nv);
    if (bad >= 0) return mbs_fail_nonfinite(d, "b", bad, d->model->dof_joint[bad]);
    for (int i = 0; i < nv; ++i)
        if (!(LDL[(size_t)nv * i + i] > 0.0) || !isfinite(LDL[(size_t)nv * i + i]))
            return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mass_matrix_solve: LDL[%d][%d] = %g is not "
                                 "a factor of mbs_mass_matrix_factor", i, i,
                                 LDL[(size_t)nv * i + i]);
    mbs_mass_solve(d->model, LDL, x);
    const int badx = mbs_first_nonfinite(x, nv);
    if (badx >= 0) return mbs_fail_nonfinite(d, "x", badx, d->model->dof_joint[badx]);
    return MBS_OK;
}

/* c = RNEA(qacc = 0): Coriolis, centrifugal, gravity and element forces, M qacc + c = tau. */
int mbs_bias_forces(mbs_data *d, double *c)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_bias_forces");
    if (nested != MBS_OK) return nested;
    if (!c) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "bias_forces: NULL output");
    const int nv = d->model->nv;
    int st = mbs_check_state(d, 1, 0);
    if (st == MBS_OK) st = prepare(d);
    if (st != MBS_OK) return st;
    double *cw = d->work;
    mbs_rnea(d, NULL, cw);
    const int bad = mbs_first_nonfinite(cw, nv);
    if (bad >= 0) return mbs_fail_nonfinite(d, "c", bad, d->model->dof_joint[bad]);
    for (int i = 0; i < nv; ++i) c[i] = cw[i];
    return MBS_OK;
}

/* Make the state consistent: normalise the quaternions of q, then with cut joints close the
   loops and project v (loops.h); q and v are as they were on failure. */
int mbs_assemble(mbs_data *d)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_assemble");
    if (nested != MBS_OK) return nested;
    int st = mbs_check_state(d, 1, 0);
    if (st != MBS_OK) return st;
    const int nq = d->model->nq, nv = d->model->nv;
    double *q0 = d->work, *v0 = d->work + nq; /* restored unless everything written is finite */
    for (int i = 0; i < nq; ++i) q0[i] = d->q[i];
    for (int i = 0; i < nv; ++i) v0[i] = d->v[i];
    mbs_normalize_q(d->model, d->q);
    st = mbs_events_update_targets(d); /* prescribed motions hold their dofs at t */
    if (st == MBS_OK && mbs_loops_active(d)) st = mbs_loops_assemble(d);
    if (st == MBS_OK && (!mbs_all_finite(d->q, nq) || !mbs_all_finite(d->v, nv)))
        st = MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "assemble: the assembled state is not finite "
                           "(a singular or overflowing configuration)");
    if (st != MBS_OK) {
        for (int i = 0; i < nq; ++i) d->q[i] = q0[i];
        for (int i = 0; i < nv; ++i) d->v[i] = v0[i];
    } else {
        d->error[0] = '\0'; /* a retry's message (or an older one) does not describe this */
    }
    return st;
}

/* Rank of the kept constraint rows and which rows are active (ncon x 1, nullable); the
   selection is made at the current q when there is none yet. A tree has rank 0. */
int mbs_constraint_info(mbs_data *d, int *rank, unsigned char *active)
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_constraint_info");
    if (nested != MBS_OK) return nested;
    if (!rank) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "constraint_info: NULL rank");
    *rank = 0;
    if (d->model->ncon == 0) return MBS_OK;
    const int st = mbs_check_state(d, 1, 0);
    return st != MBS_OK ? st : mbs_loops_info(d, rank, active);
}

/* MBS_OK if body is a valid id (world allowed), else MBS_ERR_ARG with a message. */
static int check_body(mbs_data *d, const char *call, int body)
{
    if (body >= 0 && body < d->model->nbody) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_ARG, "%s: body id %d out of range 0..%d", call, body,
                         d->model->nbody - 1);
}

/* World pose of a body: x_world = rot x_body + pos. */
int mbs_body_pose(mbs_data *d, int body, double pos[3], double rot[9])
{
    if (!d) return MBS_ERR_ARG;
    if (!pos || !rot) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "body_pose: NULL output");
    int st = check_body(d, "body_pose", body);
    if (st == MBS_OK) st = mbs_check_state(d, 0, 0);
    if (st != MBS_OK) return st;
    mbs_kinematics_pos(d);
    if (d->model->body_node[body] >= 0 && (st = mbs_nodes_solve(d)) != MBS_OK) return st;
    const mbs_pose *X = &d->x_world[body];
    for (int i = 0; i < 9; ++i) rot[i] = X->R[i];
    v3_copy(pos, X->p);
    return MBS_OK;
}

/* World-frame velocity of the body origin (lin) and angular velocity (ang). */
int mbs_body_velocity(mbs_data *d, int body, double lin[3], double ang[3])
{
    if (!d) return MBS_ERR_ARG;
    if (!lin || !ang) return MBS_DATA_FAIL(d, MBS_ERR_ARG, "body_velocity: NULL output");
    int st = check_body(d, "body_velocity", body);
    if (st == MBS_OK && d->model->body_node[body] >= 0)
        st = MBS_DATA_FAIL(d, MBS_ERR_ARG, "body_velocity: body %d is a node (massless, between "
                           "line forces): its velocity is not computed", body);
    if (st == MBS_OK) st = mbs_check_state(d, 1, 0);
    if (st != MBS_OK) return st;
    mbs_kinematics(d);
    const double *R = d->x_world[body].R, *v = d->vel + 6 * body;
    double w[3], l[3];
    m3_mulv(w, R, v);
    m3_mulv(l, R, v + 3);
    if (!mbs_all_finite(w, 3) || !mbs_all_finite(l, 3))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "body_velocity: the velocity of body %d "
                             "overflows", body);
    v3_copy(ang, w), v3_copy(lin, l);
    return MBS_OK;
}
