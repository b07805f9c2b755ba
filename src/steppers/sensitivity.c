/* Parameter sensitivities by SUNDIALS CVODES' forward sensitivity analysis (ROBOTRAN §3.5.2,
 * the direct method: the sensitivity equations integrated with the motion). The ODE is the
 * CVODE steppers' one, y = [q; v; x], ydot = [G(q) v; qacc(t, q, v, x; p); xdot] (x the
 * user states, xdot their derivatives evaluated with the forces), its right-hand side
 * reading the parameters p from the array CVODES perturbs for its centred difference
 * quotients of the sensitivity right-hand side (CVodeSetSensParams, no hand-written
 * derivative): a changed entry is written into the model (mbs_param_apply, swing axes kept)
 * before the dynamics runs. The nominal values are put back before a run returns. The
 * sensitivities s_k = dy/dp_k start at zero; CVODES' staggered corrector includes them in
 * the error test (tolerances estimated from the state's, CVodeSensEEtolerances). Adams
 * iterates the state and the sensitivities by fixed point (as the Adams stepper), BDF by
 * Newton with CVODES' dense linear solver and difference-quotient Jacobian.
 * Closed loops: y holds every coordinate, and each evaluation first closes the loops holding
 * the independent coordinates and rates of the current partition (Newton, no new partition;
 * a failure asks for a smaller step), so the right-hand side depends on p and the independent
 * part of y only; the dependent entries of y and of the sensitivities integrate the closed
 * rates. The start state must be closed; its closure depends on no parameter kind (no
 * geometry among them), so the sensitivities start at zero. The end state is closed again. */
#include "steppers/sensitivity.h"
#include "core/params.h"
#include "loops/loops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

struct mbs_sens {
    mbs_model *m;
    mbs_data *d;
    mbs_sens_def def;
    int np, nq, nv, nux;
    mbs_param *params;      /* [np] */
    double *p, *pbar;       /* [np] values CVODES perturbs, their scales */
    double *applied;        /* [np] values the model holds now */
    double *nominal;        /* [np] values of the run */
    double last_t;          /* the data's state as the last run (or restart) left it */
    double *last_q, *last_v, *last_x; /* [nq], [nv], [nux] */
    double *last_y, *last_S;   /* [n], [np n]: state and sensitivities there, n = nq + nv + nux */
    SUNContext ctx;
    void *mem;
    N_Vector y;
    N_Vector *yS;           /* [np] */
    SUNMatrix A;            /* BDF: Newton with a dense linear solver */
    SUNLinearSolver LS;
    SUNNonlinearSolver NLS, NLSS; /* Adams: fixed point for the state and the sensitivities */
    int rhs_status, rhs_fatal; /* the right-hand side's last failure in this run */
    char msg[MBS_ERROR_LEN];   /* CVODES' last error message */
};

/* Length of y: q, v and the user states. */
static int ylen(const mbs_sens *s) { return s->nq + s->nv + s->nux; }

/* CVODES error handler: keep the message, never print. */
static void sens_errh(int code, const char *module, const char *function, char *msg, void *user)
{
    mbs_sens *s = user;
    (void)module;
    if (code >= 0) return;
    snprintf(s->msg, sizeof s->msg, "%s: %s", function ? function : "CVODES", msg ? msg : "");
}

/* Write the entries of p that differ from what the model holds into the model. */
static void apply_params(mbs_sens *s, const double *p)
{
    for (int k = 0; k < s->np; ++k)
        if (memcmp(&p[k], &s->applied[k], sizeof(double)) != 0) {
            mbs_param_apply(s->m, &s->params[k], p[k], 1);
            s->applied[k] = p[k];
        }
}

/* y = [q; v; x] -> [G(q) v; qacc; xdot] at the parameters CVODES holds in s->p; > 0 asks for a retry. */
static int sens_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    mbs_sens *s = user;
    mbs_data *d = s->d;
    const mbs_model *m = s->m;
    const double *yy = N_VGetArrayPointer(y);
    double *yd = N_VGetArrayPointer(ydot);
    if (s->rhs_fatal) return -1;
    apply_params(s, s->p);
    memcpy(d->q, yy, (size_t)s->nq * sizeof(double));
    memcpy(d->v, yy + s->nq, (size_t)s->nv * sizeof(double));
    if (s->nux > 0) memcpy(d->ux, yy + s->nq + s->nv, (size_t)s->nux * sizeof(double));
    d->time = t;
    int st = MBS_ERR_NONFINITE, recoverable = 1;
    if (!mbs_all_finite(yy, ylen(s))) {
        MBS_DATA_FAIL(d, st, "sensitivity run at t = %.17g: non-finite trial state", t);
    } else {
        mbs_normalize_q(m, d->q);
        const int closure =
            m->ncon > 0 && !mbs_loops_is_closed(d) ? mbs_loops_close(d, 0) : MBS_OK;
        st = closure == MBS_OK ? mbs_forward_dynamics(d) : closure;
        recoverable = closure != MBS_OK || (st == MBS_ERR_CALLBACK && d->callback_status > 0);
        if (st == MBS_OK && !mbs_all_finite(d->qacc, s->nv)) {
            st = MBS_ERR_NONFINITE;
            MBS_DATA_FAIL(d, st, "sensitivity run at t = %.17g: qacc not finite", t);
        }
    }
    if (st != MBS_OK) {
        s->rhs_status = st;
        s->rhs_fatal = !recoverable;
        return recoverable ? 1 : -1;
    }
    mbs_qdot(m, d->q, d->v, yd);
    memcpy(yd + s->nq, d->qacc, (size_t)s->nv * sizeof(double));
    if (s->nux > 0) memcpy(yd + s->nq + s->nv, d->uxdot, (size_t)s->nux * sizeof(double));
    return 0;
}

/* Take the data's state and the model's parameter values as the start: y from the data,
   sensitivities 0, the nominal values and their scales (|p|, or 1 for 0). */
static void take_start(mbs_sens *s)
{
    const int n = ylen(s);
    for (int k = 0; k < s->np; ++k) {
        mbs_model_get_param(s->m, &s->params[k], &s->nominal[k]);
        s->p[k] = s->applied[k] = s->nominal[k];
        s->pbar[k] = s->nominal[k] != 0.0 ? fabs(s->nominal[k]) : 1.0;
    }
    s->last_t = s->d->time;
    memcpy(s->last_q, s->d->q, (size_t)s->nq * sizeof(double));
    memcpy(s->last_v, s->d->v, (size_t)s->nv * sizeof(double));
    memcpy(s->last_y, s->d->q, (size_t)s->nq * sizeof(double));
    memcpy(s->last_y + s->nq, s->d->v, (size_t)s->nv * sizeof(double));
    if (s->nux > 0) {
        memcpy(s->last_x, s->d->ux, (size_t)s->nux * sizeof(double));
        memcpy(s->last_y + s->nq + s->nv, s->d->ux, (size_t)s->nux * sizeof(double));
    }
    memset(s->last_S, 0, (size_t)s->np * (size_t)n * sizeof(double));
}

/* CVODES from the saved start (last_t, last_y, last_S); the first failing flag or CV_SUCCESS. */
static int reinit_from_last(mbs_sens *s)
{
    const int n = ylen(s);
    memcpy(N_VGetArrayPointer(s->y), s->last_y, (size_t)n * sizeof(double));
    for (int k = 0; k < s->np; ++k)
        memcpy(N_VGetArrayPointer(s->yS[k]), s->last_S + (size_t)k * (size_t)n,
               (size_t)n * sizeof(double));
    int flag = CVodeReInit(s->mem, s->last_t, s->y);
    if (flag == CV_SUCCESS) flag = CVodeSensReInit(s->mem, CV_STAGGERED, s->yS);
    return flag;
}

/* Options of the run (tolerances, limits, the nonlinear solvers of the kind, the
   sensitivity method). */
static int sens_options(mbs_sens *s)
{
    int flag = CVodeSetUserData(s->mem, s);
    if (flag == CV_SUCCESS) flag = CVodeSStolerances(s->mem, s->def.rtol, s->def.atol);
    if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(s->mem, s->def.max_internal_steps);
    if (flag == CV_SUCCESS) flag = CVodeSetMaxStep(s->mem, s->def.max_step);
    if (flag == CV_SUCCESS)
        flag = s->NLS ? CVodeSetNonlinearSolver(s->mem, s->NLS)
                      : CVodeSetLinearSolver(s->mem, s->LS, s->A);
    if (flag == CV_SUCCESS) flag = CVodeSensInit1(s->mem, s->np, CV_STAGGERED, NULL, s->yS);
    if (flag == CV_SUCCESS && s->NLSS) flag = CVodeSetNonlinearSolverSensStg(s->mem, s->NLSS);
    if (flag == CV_SUCCESS) flag = CVodeSetSensParams(s->mem, s->p, s->pbar, NULL);
    if (flag == CV_SUCCESS) flag = CVodeSensEEtolerances(s->mem);
    if (flag == CV_SUCCESS) flag = CVodeSetSensErrCon(s->mem, SUNTRUE);
    if (flag == CV_SUCCESS) flag = CVodeSetSensDQMethod(s->mem, CV_CENTERED, 0.0);
    return flag;
}

/* Every SUNDIALS object of the run, started from the data. */
static int sens_build(mbs_sens *s)
{
    const sunindextype n = (sunindextype)ylen(s);
    if (SUNContext_Create(NULL, &s->ctx) != 0) return CV_MEM_FAIL;
    s->y = N_VNew_Serial(n, s->ctx);
    if (!s->y) return CV_MEM_FAIL;
    s->yS = N_VCloneVectorArray(s->np, s->y);
    if (!s->yS) return CV_MEM_FAIL;
    if (s->def.kind == MBS_STEP_CVODE_BDF) {
        s->A = SUNDenseMatrix(n, n, s->ctx);
        if (!s->A || !(s->LS = SUNLinSol_Dense(s->y, s->A, s->ctx))) return CV_MEM_FAIL;
    } else {
        s->NLS = SUNNonlinSol_FixedPoint(s->y, 0, s->ctx);
        s->NLSS = SUNNonlinSol_FixedPointSens(s->np, s->y, 0, s->ctx);
        if (!s->NLS || !s->NLSS) return CV_MEM_FAIL;
    }
    s->mem = CVodeCreate(s->def.kind == MBS_STEP_CVODE_BDF ? CV_BDF : CV_ADAMS, s->ctx);
    if (!s->mem) return CV_MEM_FAIL;
    take_start(s);
    memcpy(N_VGetArrayPointer(s->y), s->last_y, (size_t)n * sizeof(double));
    for (int k = 0; k < s->np; ++k) N_VConst(0.0, s->yS[k]);
    int flag = CVodeSetErrHandlerFn(s->mem, sens_errh, s);
    if (flag == CV_SUCCESS) flag = CVodeInit(s->mem, sens_rhs, s->last_t, s->y);
    if (flag == CV_SUCCESS) flag = sens_options(s);
    return flag;
}

/* The arrays of the run object; MBS_OK or MBS_ERR_NOMEM. */
static int sens_alloc(mbs_sens *s, const mbs_param *params)
{
    const size_t np = (size_t)s->np, n = (size_t)ylen(s);
    s->params = malloc(np * sizeof *s->params);
    s->p = calloc(4 * np, sizeof(double));
    s->last_q = calloc((size_t)(s->nq > 0 ? s->nq : 1), sizeof(double));
    s->last_v = calloc((size_t)(s->nv > 0 ? s->nv : 1), sizeof(double));
    s->last_x = calloc((size_t)(s->nux > 0 ? s->nux : 1), sizeof(double));
    s->last_y = calloc(n, sizeof(double));
    s->last_S = calloc(np * n, sizeof(double));
    if (!s->params || !s->p || !s->last_q || !s->last_v || !s->last_x || !s->last_y ||
        !s->last_S)
        return MBS_ERR_NOMEM;
    memcpy(s->params, params, np * sizeof *s->params);
    s->pbar = s->p + np;
    s->applied = s->p + 2 * np;
    s->nominal = s->p + 3 * np;
    return MBS_OK;
}

void mbs_sens_destroy(mbs_sens *s)
{
    if (!s) return;
    if (s->mem) CVodeFree(&s->mem);
    if (s->NLS) SUNNonlinSolFree(s->NLS);
    if (s->NLSS) SUNNonlinSolFree(s->NLSS);
    if (s->LS) SUNLinSolFree(s->LS);
    if (s->A) SUNMatDestroy(s->A);
    if (s->yS) N_VDestroyVectorArray(s->yS, s->np);
    if (s->y) N_VDestroy(s->y);
    if (s->ctx) SUNContext_Free(&s->ctx);
    free(s->params);
    free(s->p);
    free(s->last_q);
    free(s->last_v);
    free(s->last_x);
    free(s->last_y);
    free(s->last_S);
    free(s);
}

/* Validate, allocate and build; *out only on success. */
int mbs_sens_create(mbs_model *m, mbs_data *d, const mbs_param *params, int np,
                    const mbs_sens_def *def, mbs_sens **out)
{
    int st = mbs_sens_check(m, d, params, np, def, out);
    if (st != MBS_OK) return st;
    mbs_sens *s = calloc(1, sizeof *s);
    if (!s) return MBS_DATA_FAIL(d, MBS_ERR_NOMEM, "mbs_sens_create: out of memory");
    s->m = m, s->d = d, s->def = *def, s->np = np, s->nq = m->nq, s->nv = m->nv;
    s->nux = m->nux;
    st = sens_alloc(s, params);
    const int flag = st == MBS_OK ? sens_build(s) : CV_MEM_FAIL;
    if (flag != CV_SUCCESS) {
        st = flag == CV_MEM_FAIL ? MBS_ERR_NOMEM : MBS_ERR_SOLVER;
        MBS_DATA_FAIL(d, st, "mbs_sens_create: CVODES setup failed (flag %d) %s", flag, s->msg);
        mbs_sens_destroy(s);
        return st;
    }
    *out = s;
    return MBS_OK;
}

/* MBS_OK when the data and the parameters are as the last run or restart left them. */
static int check_unchanged(mbs_sens *s)
{
    mbs_data *d = s->d;
    int same = memcmp(&d->time, &s->last_t, sizeof(double)) == 0 &&
               memcmp(d->q, s->last_q, (size_t)s->nq * sizeof(double)) == 0 &&
               memcmp(d->v, s->last_v, (size_t)s->nv * sizeof(double)) == 0 &&
               (s->nux == 0 || memcmp(d->ux, s->last_x, (size_t)s->nux * sizeof(double)) == 0);
    for (int k = 0; k < s->np && same; ++k) {
        double x;
        mbs_model_get_param(s->m, &s->params[k], &x);
        same = memcmp(&x, &s->nominal[k], sizeof(double)) == 0;
    }
    if (same) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_STATE, "mbs_sens_run: the data's state or a parameter "
                         "changed since the last run; mbs_sens_restart starts from there");
}

/* After a run (either way): nominal parameters in the model, the data at the run's end
   (t_end, q normalised, v, user states, its dynamics) or back at the last state. */
static void finish_run(mbs_sens *s, int ok, double t_end)
{
    mbs_data *d = s->d;
    apply_params(s, s->nominal);
    if (ok) {
        const double *yy = N_VGetArrayPointer(s->y);
        const int n = ylen(s);
        memcpy(s->last_y, yy, (size_t)n * sizeof(double));
        for (int k = 0; k < s->np; ++k)
            memcpy(s->last_S + (size_t)k * (size_t)n, N_VGetArrayPointer(s->yS[k]),
                   (size_t)n * sizeof(double));
        memcpy(d->q, yy, (size_t)s->nq * sizeof(double));
        memcpy(d->v, yy + s->nq, (size_t)s->nv * sizeof(double));
        mbs_normalize_q(s->m, d->q);
        s->last_t = t_end;
        memcpy(s->last_q, d->q, (size_t)s->nq * sizeof(double));
        memcpy(s->last_v, d->v, (size_t)s->nv * sizeof(double));
        if (s->nux > 0) memcpy(s->last_x, yy + s->nq + s->nv, (size_t)s->nux * sizeof(double));
    }
    d->time = s->last_t;
    memcpy(d->q, s->last_q, (size_t)s->nq * sizeof(double));
    memcpy(d->v, s->last_v, (size_t)s->nv * sizeof(double));
    if (s->nux > 0) memcpy(d->ux, s->last_x, (size_t)s->nux * sizeof(double));
}

/* The status of a failed CVode call: the right-hand side's own, or MBS_ERR_SOLVER. */
static int run_failure(mbs_sens *s, int flag, double tret)
{
    mbs_data *d = s->d;
    char inner[MBS_ERROR_LEN];
    if (s->rhs_status != MBS_OK) {
        memcpy(inner, d->error, sizeof inner);
        inner[sizeof inner - 1] = '\0';
        return MBS_DATA_FAIL(d, s->rhs_status, "mbs_sens_run: CVODES flag %d: %s", flag, inner);
    }
    return MBS_DATA_FAIL(d, MBS_ERR_SOLVER, "mbs_sens_run: CVODES flag %d from t = %.17g "
                         "(reached t = %.17g): %s", flag, s->last_t, tret,
                         s->msg[0] ? s->msg : "no message");
}

/* Integrate the state and the sensitivities to t_end. */
int mbs_sens_run(mbs_sens *s, double t_end)
{
    if (!s) return MBS_ERR_ARG;
    mbs_data *d = s->d;
    const int nested = mbs_refuse_nested(d, "mbs_sens_run");
    if (nested != MBS_OK) return nested;
    if (!isfinite(t_end) || !(t_end > d->time))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_sens_run: t_end = %g must be finite and "
                             "after the data's time %.17g", t_end, d->time);
    int st = check_unchanged(s);
    if (st != MBS_OK) return st;
    double tret = s->last_t;
    s->rhs_status = MBS_OK;
    s->rhs_fatal = 0;
    s->msg[0] = '\0';
    int flag = CVodeSetStopTime(s->mem, t_end);
    if (flag == CV_SUCCESS) flag = CVode(s->mem, t_end, s->y, &tret, CV_NORMAL);
    if (flag >= 0) flag = CVodeGetSens(s->mem, &tret, s->yS);
    if (flag < 0) {
        st = run_failure(s, flag, tret);
        finish_run(s, 0, t_end);
        reinit_from_last(s);
        return st;
    }
    finish_run(s, 1, t_end);
    if (s->m->ncon > 0) { /* the end state closed as the steppers leave it */
        st = mbs_loops_close(d, 0);
        if (st != MBS_OK) return st;
        memcpy(s->last_q, d->q, (size_t)s->nq * sizeof(double));
        memcpy(s->last_v, d->v, (size_t)s->nv * sizeof(double));
    }
    mbs_forward_dynamics(d); /* qacc of the end state with the nominal parameters */
    return MBS_OK;
}

/* dq, dv of parameter k at the data's time (the last run's end). */
int mbs_sens_get(const mbs_sens *s, int k, double *dq, double *dv)
{
    if (!s) return MBS_ERR_ARG;
    if (k < 0 || k >= s->np)
        return MBS_DATA_FAIL(s->d, MBS_ERR_ARG, "mbs_sens_get: parameter %d out of range 0..%d",
                             k, s->np - 1);
    const double *S = s->last_S + (size_t)k * (size_t)ylen(s);
    if (dq) memcpy(dq, S, (size_t)s->nq * sizeof(double));
    if (dv) memcpy(dv, S + s->nq, (size_t)s->nv * sizeof(double));
    return MBS_OK;
}

/* See mbs.h: dx/dp_k, the entries of y after q and v. */
int mbs_sens_get_user_states(const mbs_sens *s, int k, double *dx)
{
    if (!s) return MBS_ERR_ARG;
    if (k < 0 || k >= s->np || !dx)
        return MBS_DATA_FAIL(s->d, MBS_ERR_ARG, "mbs_sens_get_user_states: %s",
                             dx ? "parameter out of range" : "dx is NULL");
    const double *S = s->last_S + (size_t)k * (size_t)ylen(s) + s->nq + s->nv;
    if (s->nux > 0) memcpy(dx, S, (size_t)s->nux * sizeof(double));
    return MBS_OK;
}

/* Start again at the data's state, sensitivities zero. */
int mbs_sens_restart(mbs_sens *s)
{
    if (!s) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(s->d, "mbs_sens_restart");
    if (nested != MBS_OK) return nested;
    if (!mbs_all_finite(s->d->q, s->nq) || !mbs_all_finite(s->d->v, s->nv) ||
        !mbs_all_finite(s->d->ux, s->nux) || !isfinite(s->d->time))
        return MBS_DATA_FAIL(s->d, MBS_ERR_NONFINITE, "mbs_sens_restart: the data's state is not "
                             "finite");
    if (s->m->ncon > 0 && !mbs_loops_is_closed(s->d))
        return MBS_DATA_FAIL(s->d, MBS_ERR_STATE, "mbs_sens_restart: the loops of the data's "
                             "state are not closed (mbs_assemble first)");
    take_start(s);
    const int flag = reinit_from_last(s);
    if (flag != CV_SUCCESS)
        return MBS_DATA_FAIL(s->d, MBS_ERR_SOLVER, "mbs_sens_restart: CVODES flag %d %s", flag,
                             s->msg);
    return MBS_OK;
}
