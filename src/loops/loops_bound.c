/* The most work the loop solver can take in one closure and one dynamics call (loops.h,
 * mbs_loops_worst_work), counted as mbs_data_work counts it and derived from the caps of
 * loops_closure.c, loops_select.c, loops_dynamics.c and the analytic strategy: each bound
 * below names the function it covers, so a change of one of them changes its line here. */
#include "loops/loops_internal.h"

/* A counter triple (evaluations are added by the callers). */
static mbs_work w3(unsigned long newton, unsigned long factor, unsigned long select)
{
    return (mbs_work){.newton = newton, .factor = factor, .select = select};
}

/* newton(): MAXIT + 1 passes, each at most one move and one LU, and the LU of newton_done. */
static mbs_work newton_cap(void)
{
    return w3(MBS_LOOP_NEWTON_MAXIT + 1, MBS_LOOP_NEWTON_MAXIT + 2, 0);
}

/* loops_partition(): two pivoted QRs and two LUs (preferred coordinates); loops_select_all():
   one QR of the rows more. */
static mbs_work partition_cap(void) { return w3(0, 2, 2); }
static mbs_work select_all_cap(void) { return w3(0, 2, 3); }

/* loops_close_once() with every flag: Newton, a recovery (partition and Newton again),
   try_repartition (a partition and two LUs; loops_prefer_back takes less) and project()
   (an LU and one per correction); flags 0 (a neighbour of the smoothing): Newton and
   project() only. */
static mbs_work close_once_cap(int all)
{
    mbs_work w = newton_cap();
    w.factor += 1 + PROJECT_MAXIT;
    if (!all) return w;
    const mbs_work p = partition_cap();
    const mbs_work n = newton_cap();
    mbs_work_add(&w, &p, 2);
    mbs_work_add(&w, &n, 1);
    w.factor += 2;
    return w;
}

/* See loops.h. loops_newton_close(): a selection and a closure, then once more; the analytic
   strategy around it (strategy.c: its rows taken with a selection and a partition, a
   hand-over to Newton repartitioning, the take-over after it selecting again) at most three
   selections (each rows and a partition) and three LUs more. loops_newton_forward(): forward_direct() selects at most
   twice; the smoothing closes, evaluates and solves four neighbours per doubling, then may
   fall back to forward_direct(). */
void mbs_loops_worst_work(const mbs_data *d, mbs_work *close, mbs_work *forward)
{
    *close = (mbs_work){0}, *forward = (mbs_work){0};
    if (!d->loops) return;
    const mbs_work sel = select_all_cap(), once = close_once_cap(1), node = close_once_cap(0);
    mbs_work_add(close, &sel, 2 + 3);
    mbs_work_add(close, &once, 2);
    close->factor += 3;
    mbs_work direct = {0}, neighbour = node;
    mbs_work_add(&direct, &sel, 2);
    mbs_work_add(&neighbour, &direct, 1);
    neighbour.evals += 1;
    mbs_work_add(forward, &neighbour, 4 * MBS_LOOP_SMOOTH_DOUBLINGS);
    mbs_work_add(forward, &direct, 1);
    mbs_work_add(forward, &sel, 1); /* the analytic strategy taking its rows */
    forward->factor += 1;
}
