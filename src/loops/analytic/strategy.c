/* The analytic closure strategy at run time (closure.h): src/loops/loops_select.c offers it every
 * closure, assembly and dynamics call; it answers MBS_CLOSURE_DEFER to leave the call to
 * Newton (no analytic closure, or near a singular position). */
#include "loops/analytic/closure.h"

#include <math.h>
#include <stdlib.h>

#include "planar/planar.h"
#include "loops/loops.h"

#define ROWS_COND 1e-6 /* a kept row set whose rate matrix has a Hadamard ratio below this is
                          selected again at assembly */

/* ---------------------------------------------------------------- data */

/* See closure.h. */
int mbs_closure_data_create(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_closure_model *cm = m->closure;
    d->closure = NULL;
    if (!cm) return MBS_OK;
    mbs_closure_data *C = calloc(1, sizeof *C);
    if (!C) return MBS_ERR_NOMEM;
    d->closure = C;
    C->analytic = 1;
    C->planar = m->planar != NULL;
    const size_t na = (size_t)cm->nasm, nv1 = (size_t)m->nv + 1, nb = (size_t)m->nbody;
    const size_t nd1 = (size_t)cm->ndof + 1;
    C->rows = calloc(3 * na, sizeof(int));
    C->dep = calloc(nv1, 1);
    double **dp[] = {&C->W, &C->Mi, &C->hada, &C->kappa, &C->Sw, &C->a0, &C->Vw, &C->Aw, &C->B, &C->VB,
                     &C->IVB, &C->b, &C->r, &C->x, &C->Mr, &C->qbak, &C->vbak, &C->h};
    const size_t dn[] = {18 * na, 9 * na, na, na, 6 * nv1, 6 * nb, 6 * nb, 6 * nb, nv1 * nd1,
                         6 * nb * nd1, 6 * nb * nd1, nv1, nv1, nv1 + nd1, nd1 * nd1,
                         (size_t)m->nq + 1, nv1, (size_t)m->ncon + 1};
    int ok = C->rows != NULL && C->dep != NULL;
    for (size_t i = 0; i < sizeof dp / sizeof dp[0]; ++i)
        ok &= (*dp[i] = calloc(dn[i], sizeof(double))) != NULL;
    for (int i = 0; ok && i < cm->nasm; ++i)
        for (int r = 0; r < 3; ++r) C->rows[3 * i + r] = cm->asm_[i].row[r];
    return ok ? MBS_OK : MBS_ERR_NOMEM;
}

/* See closure.h. */
void mbs_closure_data_destroy(mbs_data *d)
{
    mbs_closure_data *C = d ? d->closure : NULL;
    if (!C) return;
    void *p[] = {C->rows, C->dep, C->W, C->Mi, C->hada, C->kappa, C->Sw, C->a0, C->Vw, C->Aw, C->B,
                 C->VB, C->IVB, C->b, C->r, C->x, C->Mr, C->qbak, C->vbak, C->h};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    free(C);
    d->closure = NULL;
}

/* ---------------------------------------------------------------- closure */

/* The held coordinates at their targets, then every assembly's positions in solve order
   (poses updated after each); *kmin the smallest kappa. MBS_OK or MBS_CLOSURE_DEFER; q is
   changed either way. */
static int positions(mbs_data *d, double *kmin)
{
    const mbs_closure_model *cm = d->model->closure;
    mbs_closure_data *C = d->closure;
    *kmin = 0.0;
    const int sh = mbs_closure_hold(d);
    if (sh != MBS_OK) return sh;
    if (C->planar) mbs_planar_poses(d);
    else mbs_kinematics_pos(d);
    *kmin = 1.0;
    for (int i = 0; i < cm->nasm; ++i) {
        const mbs_assembly *a = &cm->asm_[i];
        C->kappa[i] = 0.0;
        const int st = a->ops->position(d, a, &C->kappa[i]);
        if (st != MBS_OK) return st;
        *kmin = fmin(*kmin, C->kappa[i]);
        if (C->planar) mbs_planar_poses_some(d, a->update, a->nupdate);
        else mbs_kinematics_pos_some(d, a->update, a->nupdate);
    }
    return MBS_OK;
}

/* The kept rows of the row selection, one set per loop; 0 when they do not fit (a cut with
   more or fewer kept rows than dependent dofs, or a coordinate row dropped). */
static int take_rows(mbs_data *d)
{
    const mbs_closure_model *cm = d->model->closure;
    int rank = 0;
    const unsigned char *active = mbs_loops_selection(d, &rank);
    if (!active || rank != cm->ndep + mbs_closure_held_rows(d, NULL)) return 0;
    for (int i = 0; i < cm->nasm; ++i) {
        const mbs_assembly *a = &cm->asm_[i];
        const mbs_joint_model *c = &d->model->joints[a->cut];
        int n = 0;
        for (int k = 0; k < c->ncon; ++k) {
            if (!active[c->conadr + k]) continue;
            if (n == a->ndep) return 0;
            d->closure->rows[3 * i + n++] = k;
        }
        if (n != a->ndep) return 0;
    }
    return 1;
}

/* Adopt the row selection (made at the data's closed q when there is none) and make the
   analytic dependent dofs and the held coordinates the partition; MBS_CLOSURE_DEFER when it
   does not fit, which for the first selection without coordinate rows leaves the model to
   Newton for good (an overconstrained loop). */
static int set_rows(mbs_data *d)
{
    mbs_closure_data *C = d->closure;
    if (C->planar) { /* the assemblies' own rows: nothing to select */
        const int st = mbs_closure_planar_rows(d);
        if (st == MBS_OK) C->rows_set = C->ever_set = 1, C->B_valid = 0;
        return st == MBS_OK ? mbs_closure_jacobians(d) : st;
    }
    int st = mbs_loops_select(d);
    if (st != MBS_OK) return st;
    int fit = take_rows(d);
    if (fit) fit = mbs_closure_jacobians(d) == MBS_OK;
    const int held = mbs_closure_held_rows(d, C->dep);
    if (fit) fit = mbs_loops_set_partition(d, C->dep) == MBS_OK;
    if (!fit) {
        for (int i = 0; i < d->model->closure->nasm; ++i)
            for (int r = 0; r < 3; ++r) C->rows[3 * i + r] = d->model->closure->asm_[i].row[r];
        C->unusable = !C->ever_set && held == 0;
        return MBS_CLOSURE_DEFER;
    }
    C->rows_serial = mbs_closure_rows_serial(d);
    C->rows_set = C->ever_set = 1;
    C->B_valid = 0;
    return MBS_OK;
}

/* Every row of every cut joint holds at the closed q (the redundant ones of planar loops
   included); a planar loop whose frames sit apart along its normal can never close. */
static int check_rows(mbs_data *d)
{
    const mbs_model *m = d->model;
    const mbs_closure_model *cm = m->closure;
    mbs_closure_data *C = d->closure;
    char buf[96];
    if (C->planar) mbs_kinematics_pos(d); /* the 3-D poses every row reads */
    for (int i = 0; i < cm->nasm; ++i) {
        const mbs_assembly *a = &cm->asm_[i];
        if (fabs(a->offset_n) <= 1e-9 * a->scale) continue;
        return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "closure: the joint axes of the loop of "
                             "cut joint %s are parallel (a planar loop), but its frames are "
                             "%.3g m apart along them, which no joint of the loop can change",
                             mbs_joint_label(m, a->cut, buf, (int)sizeof buf), a->offset_n);
    }
    mbs_con_residual(d, &cm->topo, NULL, m->ncon, C->h);
    for (int r = 0; r < m->ncon; ++r) {
        if (fabs(C->h[r]) <= MBS_LOOP_INCONSISTENT_TOL) continue;
        const int cut = cm->topo.cut[cm->topo.row_cut[r]];
        return MBS_DATA_FAIL(d, MBS_ERR_INCONSISTENT, "closure: the constraints of cut joint "
                             "%s are inconsistent: its row %d is violated by %.3g (scaled) "
                             "once its loop is closed", mbs_joint_label(m, cut, buf,
                             (int)sizeof buf), r - m->joints[cut].conadr, C->h[r]);
    }
    return MBS_OK;
}

/* After the positions: S, the rate matrices, the rates of v; the selection's rows when there
   are none yet; the consistency check once per analytic period when flags ask. */
static int finish(mbs_data *d, int flags)
{
    mbs_closure_data *C = d->closure;
    if (C->planar) mbs_closure_planar_subspace(d);
    else mbs_kinematics_S(d);
    if (C->rows_serial != mbs_closure_rows_serial(d)) C->rows_set = 0; /* a row on or off */
    int st = mbs_closure_jacobians(d);
    if (st == MBS_OK && !C->rows_set) st = set_rows(d);
    if (st != MBS_OK) return st;
    mbs_closure_basis(d);
    mbs_closure_apply_basis(d, d->v);
    if (!C->checked && (flags & MBS_CLOSE_CHECK)) {
        st = check_rows(d);
        if (st != MBS_OK) return st;
        C->checked = 1;
    }
    return MBS_OK;
}

/* Newton takes over (an event): from a fresh partition of the current selection, which it
   may renew (the rows are taken again when the closed forms come back). */
static void hand_to_newton(mbs_data *d)
{
    d->closure->analytic = 0;
    mbs_loops_note_event(d);
    if (d->closure->rows_set) mbs_loops_repartition(d);
    d->closure->rows_set = 0;
}

/* See closure.h. */
void mbs_closure_suspend(mbs_data *d, int on)
{
    mbs_closure_data *C = d->closure;
    if (!C) return;
    if (on && C->analytic && !C->unusable) hand_to_newton(d);
    C->suspended = on != 0;
}

/* Save and restore q, v. */
static void save(mbs_data *d)
{
    memcpy(d->closure->qbak, d->q, (size_t)d->model->nq * sizeof(double));
    memcpy(d->closure->vbak, d->v, (size_t)d->model->nv * sizeof(double));
}
static void restore(mbs_data *d)
{
    memcpy(d->q, d->closure->qbak, (size_t)d->model->nq * sizeof(double));
    memcpy(d->v, d->closure->vbak, (size_t)d->model->nv * sizeof(double));
}

/* The closed forms closed the data's state: the loops' closed state, and which poses are
   those of this state (the 3-D ones, or on the planar path the planar ones). */
static void mark_closed(mbs_data *d)
{
    mbs_closure_data *C = d->closure;
    mbs_loops_mark_closed(d);
    if (C->planar) C->ppose_gen = d->planar->gen;
    else C->pose_gen = d->kin_gen;
}

/* Positions and rates holding the independent coordinates; on failure q, v as they were. */
static int close_analytic(mbs_data *d, int flags)
{
    double kmin = 0.0;
    save(d);
    int st = positions(d, &kmin);
    const double kl = (flags & MBS_CLOSE_REPARTITION) ? MBS_CLOSURE_KAPPA : MBS_CLOSURE_KAPPA_MIN;
    if (st == MBS_OK && kmin < kl) st = MBS_CLOSURE_DEFER;
    if (st == MBS_OK) st = finish(d, flags);
    if (st == MBS_OK) {
        mark_closed(d);
        return MBS_OK;
    }
    restore(d);
    d->closure->jac_valid = d->closure->B_valid = 0;
    return st;
}

/* See closure.h. */
int mbs_closure_close(mbs_data *d, int flags)
{
    mbs_closure_data *C = d->closure;
    if (!C || !C->analytic || C->unusable || C->suspended) return MBS_CLOSURE_DEFER;
    const int st = close_analytic(d, flags);
    if (st == MBS_CLOSURE_DEFER || st == MBS_ERR_SINGULAR) {
        if (!C->unusable) hand_to_newton(d);
        return MBS_CLOSURE_DEFER;
    }
    return st;
}

/* 1 when every rate matrix is well conditioned with the current rows. */
static int rows_fit_here(const mbs_data *d)
{
    for (int i = 0; i < d->model->closure->nasm; ++i)
        if (!(d->closure->hada[i] > ROWS_COND)) return 0;
    return 1;
}

/* See closure.h: from the user's guess (the roots nearest to it), every row checked; a row
   selection that does not suit the closed state is made again there. */
int mbs_closure_assemble(mbs_data *d)
{
    mbs_closure_data *C = d->closure;
    if (!C || C->unusable || C->suspended) return MBS_CLOSURE_DEFER;
    const int was = C->analytic;
    C->analytic = 1;
    C->checked = 0;
    const int flags = MBS_CLOSE_CHECK | MBS_CLOSE_REPARTITION;
    int st = close_analytic(d, flags);
    if (st == MBS_OK && !rows_fit_here(d)) {
        C->rows_set = 0;
        mbs_loops_deselect(d);
        st = close_analytic(d, flags);
    }
    if (st == MBS_CLOSURE_DEFER || st == MBS_ERR_SINGULAR) {
        C->analytic = 0;
        if (was) mbs_loops_note_event(d);
        return MBS_CLOSURE_DEFER;
    }
    if (st == MBS_OK && !was) mbs_loops_note_event(d);
    if (st != MBS_OK) C->analytic = was;
    return st;
}

/* See closure.h: back to the closed forms once every loop is well away from a singular
   position (kappa above twice the hand-over threshold) at Newton's closed state. */
void mbs_closure_newton_closed(mbs_data *d, int flags)
{
    mbs_closure_data *C = d->closure;
    if (!C || C->analytic || C->unusable || C->suspended || !(flags & MBS_CLOSE_REPARTITION))
        return;
    double kmin = 0.0;
    save(d);
    int st = positions(d, &kmin);
    if (st == MBS_OK && kmin >= 2.0 * MBS_CLOSURE_KAPPA) st = finish(d, 0);
    else if (st == MBS_OK) st = MBS_CLOSURE_DEFER;
    if (st == MBS_OK) {
        C->analytic = 1;
        mbs_loops_note_event(d);
        mark_closed(d);
        return;
    }
    restore(d);
    mbs_kinematics(d);
}

/* See closure.h. */
int mbs_closure_forward(mbs_data *d)
{
    mbs_closure_data *C = d->closure;
    if (!C || !C->analytic || C->unusable || C->suspended) return MBS_CLOSURE_DEFER;
    if (C->rows_serial != mbs_closure_rows_serial(d)) C->rows_set = 0;
    if (!C->rows_set) {
        const int st = set_rows(d);
        if (st != MBS_OK) return st;
    }
    return mbs_closure_reduced_serves(d) ? mbs_closure_reduced_forward(d) : MBS_CLOSURE_DEFER;
}

/* See closure.h. */
int mbs_closure_poses_current(const mbs_data *d)
{
    const mbs_closure_data *C = d->closure;
    return C && C->analytic && !C->unusable && !C->planar && C->pose_gen == d->kin_gen &&
           mbs_loops_is_closed(d);
}

/* ---------------------------------------------------------------- public */

/* How the loop of a cut joint is closed now: analytic while the model's loops all have
   assemblies, their rows fit them and no loop is near a singular position. */
int mbs_cut_joint_closure(const mbs_data *d, int cut_joint)
{
    if (!d) return MBS_ERR_ARG;
    const mbs_model *m = d->model;
    if (cut_joint < 0 || cut_joint >= m->njoint || !m->joints[cut_joint].cut) return MBS_ERR_ARG;
    const mbs_closure_data *C = d->closure;
    return C && C->analytic && !C->unusable ? MBS_CLOSURE_ANALYTIC : MBS_CLOSURE_NEWTON;
}

/* Why the loop of a cut joint is closed the way mbs_cut_joint_closure says, and which forward
   dynamics serve (static text; NULL for a bad argument). */
const char *mbs_cut_joint_closure_reason(const mbs_data *d, int cut_joint)
{
    if (!d || cut_joint < 0 || cut_joint >= d->model->njoint || !d->model->joints[cut_joint].cut)
        return NULL;
    const mbs_model *m = d->model;
    const mbs_closure_data *C = d->closure;
    if (!C)
        return "Newton: the model has no closed forms (the builder chose MBS_CLOSURE_NEWTON, a "
               "loop has no assembly, or coordinates are held at assembly)";
    if (C->unusable) return "Newton: the row selection does not fit the assemblies";
    if (C->suspended) return "Newton: an analysis runs on Newton's partition";
    if (!C->analytic)
        return "Newton: a loop is near a singular position, or a motion, lock or contact holds "
               "a dependent coordinate of an assembly";
    if (mbs_closure_reduced_serves(d)) return "closed form, reduced dynamics";
    if (m->ncrow > 0 || m->nnode > 0)
        return "closed form with the general dynamics: the reduced equations lack the inertia "
               "of rotors, line forces with mass and nodes, so the full mass matrix and every "
               "row serve (no Newton iteration, no speed-up of the dynamics)";
    return "closed form with the general dynamics while a motion, lock or contact row is on";
}

/* The assembly compile recognised for a cut joint's loop ("JointRRR", ...), NULL when its
   model keeps Newton or for a bad argument. */
const char *mbs_model_cut_assembly(const mbs_model *m, int cut_joint)
{
    if (!m || !m->closure || cut_joint < 0 || cut_joint >= m->njoint) return NULL;
    const int i = m->closure->asm_of_cut[cut_joint];
    return i >= 0 ? m->closure->asm_[i].name : NULL;
}

/* Newton iterations of the loop closure since the data was created. */
long mbs_loop_newton_iterations(const mbs_data *d)
{
    return d && d->loops ? mbs_loops_newton_iterations(d) : 0;
}

/* ---------------------------------------------------------------- snapshot */

/* The strategy's state that carries over between calls (closure.h): which strategy serves,
   whether the rows fit, and the rows each assembly takes. */
struct mbs_closure_snap {
    int analytic, suspended, unusable, rows_set, ever_set, checked;
    int *rows; /* [3 nasm] */
};

/* See closure.h. */
void mbs_closure_snap_free(mbs_closure_snap *s)
{
    if (!s) return;
    free(s->rows);
    free(s);
}

/* See closure.h. */
int mbs_closure_snap_create(const mbs_data *d, mbs_closure_snap **out)
{
    *out = NULL;
    if (!d->closure) return MBS_OK;
    mbs_closure_snap *s = calloc(1, sizeof *s);
    if (s) s->rows = calloc(3 * (size_t)d->model->closure->nasm + 1, sizeof(int));
    if (!s || !s->rows) {
        mbs_closure_snap_free(s);
        return MBS_ERR_NOMEM;
    }
    *out = s;
    return MBS_OK;
}

/* Copy the carried-over fields from src to dst (a mbs_closure_data or a snapshot). */
#define CLOSURE_SNAP_COPY(dst, src, nasm)                                                      \
    do {                                                                                       \
        (dst)->analytic = (src)->analytic, (dst)->suspended = (src)->suspended;                \
        (dst)->unusable = (src)->unusable, (dst)->rows_set = (src)->rows_set;                  \
        (dst)->ever_set = (src)->ever_set, (dst)->checked = (src)->checked;                    \
        memcpy((dst)->rows, (src)->rows, 3 * (size_t)(nasm) * sizeof(int));                    \
    } while (0)

/* See closure.h. */
void mbs_closure_snap_save(const mbs_data *d, mbs_closure_snap *s)
{
    if (d->closure && s) CLOSURE_SNAP_COPY(s, d->closure, d->model->closure->nasm);
}

/* See closure.h: the caches of the closed state are stale; a past generation never comes
   back, so the poses are computed again (to the same bits, from the same q). */
void mbs_closure_snap_restore(mbs_data *d, const mbs_closure_snap *s)
{
    mbs_closure_data *C = d->closure;
    if (!C || !s) return;
    CLOSURE_SNAP_COPY(C, s, d->model->closure->nasm);
    C->jac_valid = C->B_valid = 0;
    C->pose_gen = d->kin_gen - 1;
    if (d->planar) C->ppose_gen = d->planar->gen - 1;
}
