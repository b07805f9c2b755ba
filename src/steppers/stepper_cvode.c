/* CVODE kinds (SUNDIALS 6): Adams-Moulton with the fixed-point nonlinear solver (non-stiff)
 * and BDF with Newton, a dense linear solver and a difference-quotient Jacobian (ours,
 * allocation-free; stiff). The ODE state is y = [q (nq); v (nv); x (nux)] with
 *   qdot = G(q) v     (each joint's qdot op, e.g. 1/2 q (x) (0, w) for a quaternion)
 *   vdot = qacc(t, q, v, x)   (mbs_forward_dynamics)
 *   xdot = f(t, q, v, x)      (the user states' functions, src/ustates/, in the same
 *                              evaluation; rtol and atol apply to x as to q and v)
 * evaluated at q with its quaternions normalised. Every SUNDIALS object is created in
 * mbs_stepper_create. A step integrates to t + dt with the stop time set there, so CVODE
 * never steps past it. CVODE keeps its history between calls; it is reinitialised (CVodeReInit)
 * after an event (Cardan re-base, failed step), when the host changed t, q, v, the user
 * states, tau or a body wrench input since the last step, or when normalising the returned
 * quaternions moved q.
 * State events (src/events/events.h): the event functions are CVODE's root functions
 * (CVodeRootInit at create, the directions that count set after every restart); at a root
 * the handlers run (mbs_stepper_events_fire) and CVODE restarts from the state they leave. */
#include "steppers/stepper.h"
#include "events/events.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvodes/cvodes.h> /* CVODES: the CVODE API, linked once with the sensitivities */
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

/* Largest change of q by the post-step normalisation that CVODE may carry on from
   without a restart (its own y then differs from the data's q by at most this). */
#define CV_DRIFT_RESTART 1e-6

typedef struct cv_state {
    SUNContext ctx;
    void *mem;
    N_Vector y;               /* [nq + nv + nux] */
    SUNMatrix A;              /* BDF: dense Jacobian */
    SUNLinearSolver LS;       /* BDF: dense LU */
    SUNNonlinearSolver NLS;   /* Adams: fixed point */
    int need_init;            /* 1: CVodeReInit from the data before the next step */
    int priming;              /* 1 while create runs CVODE once on ydot = 0 (see cv_prime) */
    int rhs_status;           /* status of the last failed right-hand side in this step */
    int rhs_fatal;            /* 1 when that failure was fatal */
    int nroot;                /* event functions (0: no root finding) */
    int *roots, *rootdir;     /* [nroot] CVodeGetRootInfo's flags; directions that count */
    int root_status;          /* status of the last failed root function in this step */
    double last_t;            /* the data's state and inputs after the last step */
    double *last_q, *last_v, *last_tau;   /* [nq], [nv], [nv] */
    double *last_x;                       /* [nux] */
    mbs_wrench_input *last_wrench;        /* [nbody] */
    char msg[MBS_ERROR_LEN];  /* last error message CVODE reported */
} cv_state;

/* Static name of a CVODE return flag. */
static const char *cv_flag_name(int flag)
{
    switch (flag) {
    case CV_SUCCESS: return "CV_SUCCESS";
    case CV_TSTOP_RETURN: return "CV_TSTOP_RETURN";
    case CV_TOO_MUCH_WORK: return "CV_TOO_MUCH_WORK";
    case CV_TOO_MUCH_ACC: return "CV_TOO_MUCH_ACC";
    case CV_ERR_FAILURE: return "CV_ERR_FAILURE";
    case CV_CONV_FAILURE: return "CV_CONV_FAILURE";
    case CV_LINIT_FAIL: return "CV_LINIT_FAIL";
    case CV_LSETUP_FAIL: return "CV_LSETUP_FAIL";
    case CV_LSOLVE_FAIL: return "CV_LSOLVE_FAIL";
    case CV_RHSFUNC_FAIL: return "CV_RHSFUNC_FAIL";
    case CV_FIRST_RHSFUNC_ERR: return "CV_FIRST_RHSFUNC_ERR";
    case CV_REPTD_RHSFUNC_ERR: return "CV_REPTD_RHSFUNC_ERR";
    case CV_UNREC_RHSFUNC_ERR: return "CV_UNREC_RHSFUNC_ERR";
    case CV_NLS_INIT_FAIL: return "CV_NLS_INIT_FAIL";
    case CV_NLS_SETUP_FAIL: return "CV_NLS_SETUP_FAIL";
    case CV_NLS_FAIL: return "CV_NLS_FAIL";
    case CV_MEM_FAIL: return "CV_MEM_FAIL";
    case CV_MEM_NULL: return "CV_MEM_NULL";
    case CV_ILL_INPUT: return "CV_ILL_INPUT";
    case CV_NO_MALLOC: return "CV_NO_MALLOC";
    case CV_BAD_T: return "CV_BAD_T";
    case CV_TOO_CLOSE: return "CV_TOO_CLOSE";
    case CV_RTFUNC_FAIL: return "CV_RTFUNC_FAIL";
    case CV_VECTOROP_ERR: return "CV_VECTOROP_ERR";
    case CV_CONTEXT_ERR: return "CV_CONTEXT_ERR";
    default: return "CV_UNRECOGNIZED_ERR";
    }
}

/* CVODE error handler: keep the message (warnings ignored), never print. */
static void cv_errh(int code, const char *module, const char *function, char *msg, void *user)
{
    cv_state *cv = user;
    (void)module;
    if (code >= 0) return;
    snprintf(cv->msg, sizeof cv->msg, "%s: %s", function ? function : "CVODE",
             msg ? msg : "");
}

/* Length of y: coordinates, rates and user states. */
static int cv_len(const mbs_stepper *s) { return s->nq + s->nv + s->nux; }

/* The data's q, v, user states = those in y, and its time t. */
static void cv_y_to_data(mbs_stepper *s, const double *yy, double t)
{
    mbs_data *d = s->d;
    memcpy(d->q, yy, (size_t)s->nq * sizeof(double));
    memcpy(d->v, yy + s->nq, (size_t)s->nv * sizeof(double));
    memcpy(d->ux, yy + s->nq + s->nv, (size_t)s->nux * sizeof(double));
    d->time = t;
}

/* Right-hand side: y = [q; v; x] -> [G(q) v; qacc; xdot]; > 0 asks CVODE to retry. */
static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    mbs_stepper *s = user;
    cv_state *cv = s->impl;
    mbs_data *d = s->d;
    const mbs_model *m = d->model;
    const double *yy = N_VGetArrayPointer(y);
    double *yd = N_VGetArrayPointer(ydot);
    int recoverable = 1, st = MBS_ERR_NONFINITE;
    if (cv->priming) {
        N_VConst(0.0, ydot);
        return 0;
    }
    /* A fatal failure stays fatal for the rest of this CVode call: SUNDIALS 6's fixed-point
       solver turns any failed evaluation into a recoverable convergence failure and retries. */
    if (cv->rhs_fatal) return -1;
    cv_y_to_data(s, yy, t);
    if (!mbs_all_finite(yy, cv_len(s))) { /* a diverging trial step: retry smaller */
        MBS_DATA_FAIL(d, st, "right-hand side at t = %.17g: non-finite trial state", t);
    } else if ((st = mbs_normalize_q(m, d->q)) != MBS_OK) {
        recoverable = 0;
        MBS_DATA_FAIL(d, st, "right-hand side at t = %.17g: normalising q failed", t);
    } else {
        st = mbs_stepper_eval(s, "right-hand side", &recoverable);
    }
    if (st != MBS_OK) {
        cv->rhs_status = st;
        cv->rhs_fatal = !recoverable;
        return recoverable ? 1 : -1;
    }
    for (int i = 0; i < m->ntree; ++i) {
        const mbs_joint_model *j = &m->joints[m->tree[i]];
        if (j->nq > 0) j->ops->qdot(j, d->q + j->qadr, d->v + j->vadr, yd + j->qadr);
    }
    memcpy(yd + s->nq, d->qacc, (size_t)s->nv * sizeof(double));
    memcpy(yd + s->nq + s->nv, d->uxdot, (size_t)s->nux * sizeof(double));
    return 0;
}

/* Root functions: the event functions at y (loops closed, dynamics when they need them). */
static int cv_root(sunrealtype t, N_Vector y, sunrealtype *gout, void *user)
{
    mbs_stepper *s = user;
    cv_state *cv = s->impl;
    mbs_data *d = s->d;
    const double *yy = N_VGetArrayPointer(y);
    if (cv->priming) {
        for (int i = 0; i < cv->nroot; ++i) gout[i] = 1.0;
        return 0;
    }
    cv_y_to_data(s, yy, t);
    int st = mbs_all_finite(yy, cv_len(s)) ? mbs_normalize_q(d->model, d->q) : MBS_ERR_NONFINITE;
    if (st == MBS_OK) st = mbs_stepper_events_g(s, gout, "event functions");
    else MBS_DATA_FAIL(d, st, "event functions at t = %.17g: non-finite state", t);
    cv->root_status = st;
    return st == MBS_OK ? 0 : -1;
}

/* Difference-quotient Jacobian J = df/dy column by column, with CVODE's increments
   (srur |y_j| or the min increment over the error weight); written here because CVODE's own
   dense DQ Jacobian allocates a vector on every evaluation. */
static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user,
                  N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
    mbs_stepper *s = user;
    cv_state *cv = s->impl;
    const sunindextype n = (sunindextype)cv_len(s);
    const double uround = DBL_EPSILON, srur = sqrt(DBL_EPSILON);
    double h = 0.0, *yy = N_VGetArrayPointer(y), *ft = N_VGetArrayPointer(tmp1);
    const double *ewt = N_VGetArrayPointer(tmp2), *f0 = N_VGetArrayPointer(fy);
    (void)tmp3;
    if (CVodeGetErrWeights(cv->mem, tmp2) != CV_SUCCESS ||
        CVodeGetCurrentStep(cv->mem, &h) != CV_SUCCESS)
        return -1;
    double fnorm = N_VWrmsNorm(fy, tmp2);
    double min_inc = fnorm != 0.0 ? 1000.0 * fabs(h) * uround * (double)n * fnorm : 1.0;
    for (sunindextype j = 0; j < n; ++j) {
        double saved = yy[j], inc = fmax(srur * fabs(saved), min_inc / ewt[j]);
        yy[j] = saved + inc;
        int ret = cv_rhs(t, y, tmp1, user);
        yy[j] = saved;
        if (ret != 0) return ret;
        double *col = SUNDenseMatrix_Column(J, j);
        for (sunindextype i = 0; i < n; ++i) col[i] = (ft[i] - f0[i]) / inc;
    }
    return 0;
}

/* y = [q; v; x] of the data. */
static void cv_load_y(const mbs_stepper *s, N_Vector y)
{
    double *yy = N_VGetArrayPointer(y);
    memcpy(yy, s->d->q, (size_t)s->nq * sizeof(double));
    memcpy(yy + s->nq, s->d->v, (size_t)s->nv * sizeof(double));
    memcpy(yy + s->nq + s->nv, s->d->ux, (size_t)s->nux * sizeof(double));
}

/* Allocate the snapshot arrays of the state CVODE last returned (and the root arrays). */
static int cv_alloc_snapshot(mbs_stepper *s, cv_state *cv)
{
    int nb = s->d->model->nbody;
    cv->nroot = s->ev ? s->d->model->ev->nfn : 0;
    cv->roots = calloc((size_t)(cv->nroot + 1), sizeof(int));
    cv->rootdir = calloc((size_t)(cv->nroot + 1), sizeof(int));
    if (!cv->roots || !cv->rootdir) return MBS_ERR_NOMEM;
    cv->last_q = calloc((size_t)(s->nq > 0 ? s->nq : 1), sizeof(double));
    cv->last_v = calloc((size_t)(s->nv > 0 ? s->nv : 1), sizeof(double));
    cv->last_tau = calloc((size_t)(s->nv > 0 ? s->nv : 1), sizeof(double));
    cv->last_x = calloc((size_t)s->nux + 1, sizeof(double));
    cv->last_wrench = calloc((size_t)(nb > 0 ? nb : 1), sizeof(mbs_wrench_input));
    return cv->last_q && cv->last_v && cv->last_tau && cv->last_x && cv->last_wrench
               ? MBS_OK : MBS_ERR_NOMEM;
}

/* Options shared by both kinds; returns the first failing CVODE flag or CV_SUCCESS. */
static int cv_options(mbs_stepper *s, cv_state *cv)
{
    int flag = CVodeSetUserData(cv->mem, s);
    if (flag == CV_SUCCESS) flag = CVodeSStolerances(cv->mem, s->def.rtol, s->def.atol);
    if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(cv->mem, s->def.max_internal_steps);
    if (flag == CV_SUCCESS) flag = CVodeSetMaxStep(cv->mem, s->def.max_step);
    return flag;
}

/* The solver objects of one method: dense Newton for BDF, fixed point for Adams. */
static int cv_solvers(cv_state *cv, int lmm, sunindextype n)
{
    if (lmm == CV_BDF) {
        cv->A = SUNDenseMatrix(n, n, cv->ctx);
        if (!cv->A) return CV_MEM_FAIL;
        cv->LS = SUNLinSol_Dense(cv->y, cv->A, cv->ctx);
        if (!cv->LS) return CV_MEM_FAIL;
        int flag = CVodeSetLinearSolver(cv->mem, cv->LS, cv->A);
        return flag == CV_SUCCESS ? CVodeSetJacFn(cv->mem, cv_jac) : flag;
    }
    cv->NLS = SUNNonlinSol_FixedPoint(cv->y, 0, cv->ctx);
    if (!cv->NLS) return CV_MEM_FAIL;
    return CVodeSetNonlinearSolver(cv->mem, cv->NLS);
}

/* CVODE allocates some memory (the linear solver's saved Jacobian) lazily in its first
   CVode call. Take it now: one internal step on ydot = 0 (no dynamics, no user callback),
   after which the first real step reinitialises from the data. */
static int cv_prime(cv_state *cv)
{
    double tret = 0.0;
    cv->priming = 1;
    int flag = CVodeSetStopTime(cv->mem, 1.0);
    if (flag == CV_SUCCESS) flag = CVode(cv->mem, 1.0, cv->y, &tret, CV_ONE_STEP);
    cv->priming = 0;
    cv->need_init = 1;
    return flag < 0 ? flag : CV_SUCCESS;
}

/* Build every SUNDIALS object for method lmm (CVODE starts from the data at the first
   step). */
static int cv_build(mbs_stepper *s, cv_state *cv, int lmm)
{
    sunindextype n = (sunindextype)cv_len(s);
    if (SUNContext_Create(NULL, &cv->ctx) != 0) return CV_MEM_FAIL;
    cv->y = N_VNew_Serial(n, cv->ctx);
    if (!cv->y) return CV_MEM_FAIL;
    N_VConst(0.0, cv->y); /* placeholder: the first step reinitialises from the data */
    cv->mem = CVodeCreate(lmm, cv->ctx);
    if (!cv->mem) return CV_MEM_FAIL;
    int flag = CVodeSetErrHandlerFn(cv->mem, cv_errh, cv);
    if (flag == CV_SUCCESS) flag = CVodeInit(cv->mem, cv_rhs, 0.0, cv->y);
    if (flag == CV_SUCCESS && cv->nroot > 0) flag = CVodeRootInit(cv->mem, cv->nroot, cv_root);
    if (flag == CV_SUCCESS) flag = cv_options(s, cv);
    if (flag == CV_SUCCESS) flag = cv_solvers(cv, lmm, n);
    if (flag == CV_SUCCESS) flag = cv_prime(cv);
    return flag;
}

/* Create the CVODE state of s for method lmm (CV_ADAMS or CV_BDF). */
static int cv_init(mbs_stepper *s, int lmm)
{
    mbs_data *d = s->d;
    if (cv_len(s) == 0)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_stepper_create: CVODE: the model has no "
                             "coordinates or user states to integrate");
    cv_state *cv = calloc(1, sizeof *cv);
    if (!cv) return MBS_DATA_FAIL(d, MBS_ERR_NOMEM, "mbs_stepper_create: out of memory");
    s->impl = cv;
    cv->need_init = 1;
    if (cv_alloc_snapshot(s, cv) != MBS_OK)
        return MBS_DATA_FAIL(d, MBS_ERR_NOMEM, "mbs_stepper_create: out of memory");
    int flag = cv_build(s, cv, lmm);
    if (flag == CV_MEM_FAIL)
        return MBS_DATA_FAIL(d, MBS_ERR_NOMEM, "mbs_stepper_create: CVODE: out of memory %s",
                             cv->msg);
    if (flag != CV_SUCCESS)
        return MBS_DATA_FAIL(d, MBS_ERR_SOLVER, "mbs_stepper_create: CVODE setup failed "
                             "(%s) %s", cv_flag_name(flag), cv->msg);
    return MBS_OK;
}

/* Adams-Moulton kind. */
static int cv_init_adams(mbs_stepper *s) { return cv_init(s, CV_ADAMS); }
/* BDF kind. */
static int cv_init_bdf(mbs_stepper *s) { return cv_init(s, CV_BDF); }

/* Free every SUNDIALS object and the snapshot (parts may be missing). */
static void cv_fini(mbs_stepper *s)
{
    cv_state *cv = s->impl;
    if (!cv) return;
    if (cv->mem) CVodeFree(&cv->mem);
    if (cv->NLS) SUNNonlinSolFree(cv->NLS);
    if (cv->LS) SUNLinSolFree(cv->LS);
    if (cv->A) SUNMatDestroy(cv->A);
    if (cv->y) N_VDestroy(cv->y);
    if (cv->ctx) SUNContext_Free(&cv->ctx);
    free(cv->last_q);
    free(cv->last_v);
    free(cv->last_tau);
    free(cv->last_x);
    free(cv->last_wrench);
    free(cv->roots);
    free(cv->rootdir);
    free(cv);
    s->impl = NULL;
}

/* 1 when two host wrench inputs differ. */
static int wrench_differs(const mbs_wrench_input *a, const mbs_wrench_input *b)
{
    return a->set != b->set || memcmp(a->force, b->force, sizeof a->force) != 0 ||
           memcmp(a->torque, b->torque, sizeof a->torque) != 0 ||
           memcmp(a->point, b->point, sizeof a->point) != 0;
}

/* 1 when the host changed t, q, v, the user states, tau or a wrench input since the last
   step. */
static int cv_host_changed(const mbs_stepper *s, const cv_state *cv)
{
    const mbs_data *d = s->d;
    if (memcmp(&d->time, &cv->last_t, sizeof(double)) != 0) return 1;
    if (memcmp(d->q, cv->last_q, (size_t)s->nq * sizeof(double)) != 0) return 1;
    if (memcmp(d->v, cv->last_v, (size_t)s->nv * sizeof(double)) != 0) return 1;
    if (memcmp(d->ux, cv->last_x, (size_t)s->nux * sizeof(double)) != 0) return 1;
    if (memcmp(d->tau, cv->last_tau, (size_t)s->nv * sizeof(double)) != 0) return 1;
    for (int b = 0; b < d->model->nbody; ++b)
        if (wrench_differs(&d->wrench_in[b], &cv->last_wrench[b])) return 1;
    return 0;
}

/* Map a failed CVode call to a status: the right-hand side's own status (callback,
   non-finite, singular) when it caused the failure, else MBS_ERR_SOLVER (with the message of
   the right-hand side's last recoverable failure in the call, if any: Adams turns those into
   convergence failures). */
static int cv_fail(mbs_stepper *s, int flag, double tret)
{
    cv_state *cv = s->impl;
    mbs_data *d = s->d;
    char inner[MBS_ERROR_LEN];
    int rhs_flag = flag == CV_RHSFUNC_FAIL || flag == CV_FIRST_RHSFUNC_ERR ||
                   flag == CV_REPTD_RHSFUNC_ERR || flag == CV_UNREC_RHSFUNC_ERR;
    if (flag == CV_RTFUNC_FAIL && cv->root_status != MBS_OK) {
        memcpy(inner, d->error, sizeof inner);
        inner[sizeof inner - 1] = '\0';
        return MBS_DATA_FAIL(d, cv->root_status, "CVODE %s: %s", cv_flag_name(flag), inner);
    }
    if (cv->rhs_status != MBS_OK && (cv->rhs_fatal || rhs_flag)) {
        memcpy(inner, d->error, sizeof inner);
        inner[sizeof inner - 1] = '\0';
        return MBS_DATA_FAIL(d, cv->rhs_status, "CVODE %s: %s", cv_flag_name(flag), inner);
    }
    if (cv->rhs_status != MBS_OK) { /* recoverable failures, retried until CVODE gave up */
        memcpy(inner, d->error, sizeof inner);
        inner[sizeof inner - 1] = '\0';
        return MBS_DATA_FAIL(d, MBS_ERR_SOLVER, "CVODE %s in the step from t = %.17g (reached "
                             "t = %.17g) after recoverable failures; the last: %s",
                             cv_flag_name(flag), s->t0, tret, inner);
    }
    return MBS_DATA_FAIL(d, MBS_ERR_SOLVER, "CVODE %s in the step from t = %.17g (reached "
                         "t = %.17g): %s", cv_flag_name(flag), s->t0, tret,
                         cv->msg[0] ? cv->msg : "no message");
}

/* CVodeReInit at t from the data's state, with the directions of the event functions that
   count in the current modes. */
static int cv_restart(mbs_stepper *s, double t)
{
    cv_state *cv = s->impl;
    cv_load_y(s, cv->y);
    int flag = CVodeReInit(cv->mem, t, cv->y);
    if (flag == CV_SUCCESS && cv->nroot > 0) {
        mbs_stepper_events_dirs(s, cv->rootdir);
        flag = CVodeSetRootDirection(cv->mem, cv->rootdir);
    }
    cv->need_init = flag != CV_SUCCESS;
    return flag;
}

/* The data at CVODE's state y and time t. */
static void cv_to_data(mbs_stepper *s, double t)
{
    cv_y_to_data(s, N_VGetArrayPointer(((cv_state *)s->impl)->y), t);
}

/* At a root: the handlers of the functions found there (CVodeGetRootInfo), then a restart
   from the state they leave. */
static int cv_at_root(mbs_stepper *s, double tret)
{
    cv_state *cv = s->impl;
    cv_to_data(s, tret);
    mbs_normalize_q(s->d->model, s->d->q);
    int st = CVodeGetRootInfo(cv->mem, cv->roots) == CV_SUCCESS ? MBS_OK : MBS_ERR_SOLVER;
    if (st == MBS_OK) st = mbs_stepper_events_fire(s, cv->roots);
    if (st != MBS_OK) return st;
    const int flag = cv_restart(s, tret);
    return flag == CV_SUCCESS ? MBS_OK : cv_fail(s, flag, tret);
}

/* Integrate from (t0, q0, v0) to t0 + dt (stop time: CVODE never passes it), stopping at the
   roots of the event functions. */
static int cv_step(mbs_stepper *s, double dt)
{
    cv_state *cv = s->impl;
    mbs_data *d = s->d;
    double tout = s->t0 + dt, tret = s->t0;
    cv->rhs_status = cv->root_status = MBS_OK;
    cv->rhs_fatal = 0;
    cv->msg[0] = '\0';
    int flag = CV_SUCCESS;
    if (cv->need_init || cv_host_changed(s, cv)) flag = cv_restart(s, s->t0);
    if (flag == CV_SUCCESS) flag = CVodeSetStopTime(cv->mem, tout);
    while (flag == CV_SUCCESS) {
        flag = CVode(cv->mem, tout, cv->y, &tret, CV_NORMAL);
        if (flag != CV_ROOT_RETURN) break;
        const int st = cv_at_root(s, tret);
        if (st != MBS_OK) return st;
        /* a root at the end (closer than CVODE can start from): the step is done */
        if (!(tout - tret > 4.0 * DBL_EPSILON * fmax(fabs(tout), 1.0))) break;
        flag = CVodeSetStopTime(cv->mem, tout);
    }
    if (flag < 0) return cv_fail(s, flag, tret);
    if (flag != CV_ROOT_RETURN) cv_to_data(s, tout);
    d->time = tout;
    return MBS_OK;
}

/* Remember the state CVODE continues from, or schedule a restart after an event. */
static void cv_sync(mbs_stepper *s, int event)
{
    cv_state *cv = s->impl;
    const mbs_data *d = s->d;
    const double *yy = N_VGetArrayPointer(cv->y);
    if (event) {
        cv->need_init = 1;
        return;
    }
    for (int i = 0; i < s->nq; ++i)
        if (fabs(yy[i] - d->q[i]) > CV_DRIFT_RESTART) cv->need_init = 1;
    cv->last_t = d->time;
    memcpy(cv->last_q, d->q, (size_t)s->nq * sizeof(double));
    memcpy(cv->last_v, d->v, (size_t)s->nv * sizeof(double));
    memcpy(cv->last_x, d->ux, (size_t)s->nux * sizeof(double));
    memcpy(cv->last_tau, d->tau, (size_t)s->nv * sizeof(double));
    memcpy(cv->last_wrench, d->wrench_in, (size_t)d->model->nbody * sizeof(mbs_wrench_input));
}

const mbs_stepper_vtable mbs_stepper_vt_cvode_adams = {
    .name = "CVODE Adams",
    .substeps = 0,
    .stage_recover = 0,
    .roots = 1,
    .init = cv_init_adams,
    .fini = cv_fini,
    .step = cv_step,
    .sync = cv_sync,
};

const mbs_stepper_vtable mbs_stepper_vt_cvode_bdf = {
    .name = "CVODE BDF",
    .substeps = 0,
    .stage_recover = 0,
    .roots = 1,
    .init = cv_init_bdf,
    .fini = cv_fini,
    .step = cv_step,
    .sync = cv_sync,
};
