/* The loop solver's state a failed step puts back (loops.h, mbs_loops_snap_*). */
#include "loops/loops_internal.h"

/* ------------------------------------------------------------------ snapshot */

/* What a failed step puts back (loops.h, mbs_loops_snap_*): the part of mbs_loops that
   carries over from one call to the next and so decides the arithmetic of the next step.
   Everything else in mbs_loops is scratch that each call writes before it reads it, or a
   cache of a function of the closed q (J_a at qcl, jac_closed) that restore marks stale, so
   that it is computed again, to the same bits, from the same q. */
struct mbs_loops_snap {
    /* the row selection: which rows are kept (multipliers, closure, dropped-row check) */
    int selected, rank, rank_cut, ncand;
    unsigned char *active;   /* [m] */
    int *arow, *drow;        /* [m] */
    /* the partition: which coordinates Newton moves and the projection solves for */
    int *dep, *ind;          /* [nv] */
    /* the conditioning history: Newton's tolerance (newton_tol), the next repartition
       (cond_retry), smoothing (cond_smooth), chord steps and the exact projection (cond) */
    double cond, cond_retry, cond_smooth, shift_sm;
    /* whether the best partition serves instead of the preferred one (dynamic state
       selection) and when to look again */
    int pref_off;
    double pref_retry, cond_sel;
    /* the LU of J_v that Newton's first (chord) steps reuse from the last closure */
    int lu_ok;
    double *LU;              /* [rank rank], saved only when lu_ok */
    int *ipiv;               /* [rank] */
    /* the last closed state: whether the next call closes again (mbs_loops_is_closed) */
    int closed_valid;
    double tcl, *qcl, *vcl;  /* [nq], [nv] */
    /* selections and partitions made: the steppers restart CVODE when it moves */
    long nevents;
    mbs_closure_snap *closure; /* the analytic strategy's own (closure.h) */
};

/* See loops.h. */
void mbs_loops_snap_free(mbs_loops_snap *s)
{
    if (!s) return;
    void *p[] = {s->active, s->arow, s->drow, s->dep, s->ind, s->LU, s->ipiv, s->qcl, s->vcl};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
    mbs_closure_snap_free(s->closure);
    free(s);
}

/* See loops.h. */
int mbs_loops_snap_create(const mbs_data *d, mbs_loops_snap **out)
{
    const mbs_loops *L = d->loops;
    *out = NULL;
    if (!L) return MBS_OK;
    mbs_loops_snap *s = calloc(1, sizeof *s);
    if (!s) return MBS_ERR_NOMEM;
    const size_t m1 = (size_t)L->m + 1, nv1 = (size_t)L->nv + 1, mn1 = (size_t)L->mn + 1;
    s->active = calloc(m1, 1);
    s->arow = calloc(m1, sizeof(int));
    s->drow = calloc(m1, sizeof(int));
    s->dep = calloc(nv1, sizeof(int));
    s->ind = calloc(nv1, sizeof(int));
    s->LU = calloc(mn1 * mn1, sizeof(double));
    s->ipiv = calloc(mn1, sizeof(int));
    s->qcl = calloc((size_t)L->nq + 1, sizeof(double));
    s->vcl = calloc(nv1, sizeof(double));
    int ok = s->active && s->arow && s->drow && s->dep && s->ind && s->LU && s->ipiv && s->qcl &&
             s->vcl && mbs_closure_snap_create(d, &s->closure) == MBS_OK;
    if (!ok) {
        mbs_loops_snap_free(s);
        return MBS_ERR_NOMEM;
    }
    *out = s;
    return MBS_OK;
}

/* Copy the selection and partition of src into dst (either a mbs_loops or a snapshot:
   same field names); a macro so that both directions are one piece of code. */
#define SNAP_COPY(dst, src, L)                                                                  \
    do {                                                                                       \
        (dst)->selected = (src)->selected, (dst)->rank = (src)->rank;                          \
        (dst)->rank_cut = (src)->rank_cut, (dst)->ncand = (src)->ncand;                        \
        memcpy((dst)->active, (src)->active, (size_t)(L)->m);                                  \
        memcpy((dst)->arow, (src)->arow, (size_t)(L)->m * sizeof(int));                        \
        memcpy((dst)->drow, (src)->drow, (size_t)(L)->m * sizeof(int));                        \
        memcpy((dst)->dep, (src)->dep, (size_t)(L)->nv * sizeof(int));                         \
        memcpy((dst)->ind, (src)->ind, (size_t)(L)->nv * sizeof(int));                         \
        (dst)->cond = (src)->cond, (dst)->cond_retry = (src)->cond_retry;                      \
        (dst)->cond_smooth = (src)->cond_smooth, (dst)->lu_ok = (src)->lu_ok;                  \
        (dst)->shift_sm = (src)->shift_sm;                                                     \
        (dst)->pref_off = (src)->pref_off, (dst)->pref_retry = (src)->pref_retry;              \
        (dst)->cond_sel = (src)->cond_sel;                                                     \
        if ((src)->lu_ok) {                                                                    \
            memcpy((dst)->LU, (src)->LU, (size_t)(src)->rank * (size_t)(src)->rank *           \
                                             sizeof(double));                                  \
            memcpy((dst)->ipiv, (src)->ipiv, (size_t)(src)->rank * sizeof(int));               \
        }                                                                                      \
        (dst)->closed_valid = (src)->closed_valid, (dst)->tcl = (src)->tcl;                    \
        memcpy((dst)->qcl, (src)->qcl, (size_t)(L)->nq * sizeof(double));                      \
        memcpy((dst)->vcl, (src)->vcl, (size_t)(L)->nv * sizeof(double));                      \
        (dst)->nevents = (src)->nevents;                                                       \
    } while (0)

/* See loops.h. */
void mbs_loops_snap_save(const mbs_data *d, mbs_loops_snap *s)
{
    const mbs_loops *L = d->loops;
    if (!L || !s) return;
    SNAP_COPY(s, L, L);
    mbs_closure_snap_save(d, s->closure);
}

/* See loops.h: the caches of the closed state (J_a, the LU made at q) are stale now. */
void mbs_loops_snap_restore(mbs_data *d, const mbs_loops_snap *s)
{
    mbs_loops *L = d->loops;
    if (!L || !s) return;
    SNAP_COPY(L, s, L);
    L->jac_closed = 0;
    L->lu_here = 0;
    mbs_closure_snap_restore(d, s->closure);
}
