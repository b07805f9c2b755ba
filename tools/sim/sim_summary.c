/* The sanity check of a run and the summary mbs-sim prints after it. */
#include <math.h>
#include <stdio.h>

#include "sim.h"

/* Closure part of the check: residual within the mechanism's tolerance. */
static int check_closure(const mech *m, sim_result *r, char *msg, size_t n)
{
    if (r->ncon == 0) return 1;
    if (!r->measured) {
        snprintf(msg, n, "closure residual not measured (the mechanism has no closure check)");
        return 0;
    }
    if (r->residual <= m->closure_tol) return 1;
    snprintf(msg, n, "closure residual %.3g above %.3g", r->residual, m->closure_tol);
    return 0;
}

/* A restitution stop's coordinate beyond its limit by more than this [m or rad] fails the
   check: located impacts keep it within the speed times the event tolerance (1e-9 s). */
#define STOP_BEYOND_TOL 1e-6

/* 1 when every restitution stop's coordinate stayed within its limits, else 0 and why. */
static int check_stops(const sim_result *r, char *msg, size_t n)
{
    if (r->stop_beyond <= STOP_BEYOND_TOL) return 1;
    snprintf(msg, n, "the coordinate of joint stop #%d is %.3g beyond its limit at t = %.6g s "
             "(limit %.2g): it went through the stop", r->stop_element, r->stop_beyond,
             r->stop_t, STOP_BEYOND_TOL);
    return 0;
}

/* Fill check_ok and check_msg: closure residual, stops, then energy as the mechanism
   expects. */
void sim_check(const mech *m, sim_result *r)
{
    char *msg = r->check_msg;
    const size_t n = sizeof r->check_msg;
    const double scale = r->e_scale > 0.0 ? r->e_scale : 1.0;
    r->check_ok = check_closure(m, r, msg, n) && check_stops(r, msg, n);
    if (!r->check_ok) return;
    const char *loops = r->ncon > 0 ? "closure ok, " : "";
    char part[160];
    if (m->energy == MECH_CONSERVATIVE) {
        const double rel = r->e_dev / scale;
        r->check_ok = rel <= m->energy_tol;
        snprintf(part, sizeof part, "%s: max |E - E(0)| is %.2g of %.3g J (limit %.2g)",
                 r->check_ok ? "conservative" : "energy not conserved", rel, scale, m->energy_tol);
    } else if (m->energy == MECH_DISSIPATIVE) {
        const double rel = r->e_rise / scale;
        r->check_ok = rel <= m->energy_tol;
        snprintf(part, sizeof part, "%s: max (E - E(0)) is %.2g of %.3g J (limit %.2g)",
                 r->check_ok ? "dissipative" : "energy rose in a dissipative system",
                 rel > 0.0 ? rel : 0.0, scale, m->energy_tol);
    } else {
        r->check_ok = 1;
        snprintf(part, sizeof part, "driven: no energy check");
    }
    if (r->check_ok) /* "ok: closure ok, conservative: ..."; "FAILED: energy ... (closure ok)" */
        snprintf(msg, n, "%s%s", loops, part);
    else
        snprintf(msg, n, "%s%s", part, r->ncon > 0 ? " (loop closure ok)" : "");
}

/* A duration with a readable unit. */
static void format_duration(char *buf, size_t n, double s)
{
    if (s >= 1.0)
        snprintf(buf, n, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3g ms", 1e3 * s);
    else
        snprintf(buf, n, "%.3g us", 1e6 * s);
}

/* Singular or plural noun. */
static const char *plural(long k, const char *one, const char *many)
{
    return k == 1 ? one : many;
}

/* Stepper and step lines. */
static void print_stepping(FILE *f, const sim_settings *s, const sim_result *r)
{
    const int cvode = s->stepper == MBS_STEP_CVODE_ADAMS || s->stepper == MBS_STEP_CVODE_BDF;
    if (cvode) {
        fprintf(f, "  stepper         %s (CVODE), rtol %g, atol %g\n", sim_stepper_name(s->stepper),
                s->rtol, s->atol);
        fprintf(f, "  steps           %ld output %s of %g s, to t = %g s\n", r->steps,
                plural(r->steps, "interval", "intervals"), s->dt, r->t_reached);
    } else {
        fprintf(f, "  stepper         %s, fixed step %g s\n", sim_stepper_name(s->stepper), s->dt);
        fprintf(f, "  steps           %ld, to t = %g s\n", r->steps, r->t_reached);
    }
    char wall[32];
    format_duration(wall, sizeof wall, r->wall);
    if (r->wall > 0.0)
        fprintf(f, "  wall time       %s in the stepper, real-time factor %.4g\n", wall,
                r->t_reached / r->wall);
    else
        fprintf(f, "  wall time       %s in the stepper\n", wall);
}

/* The summary of a finished run. */
void sim_print_summary(FILE *f, const mech *m, const sim_settings *s, const sim_result *r)
{
    const int nbody = r->nbody - 1;
    fprintf(f, "%s: %s\n", m->name, m->title);
    fprintf(f, "  source          %s\n", m->source);
    fprintf(f,
            "  model           %d %s (nq %d, nv %d), %d %s, %d %s, %d force "
            "%s\n",
            r->dof, plural(r->dof, "degree of freedom", "degrees of freedom"), r->nq, r->nv, nbody,
            plural(nbody, "body", "bodies"), r->njoint, plural(r->njoint, "joint", "joints"),
            r->nforce, plural(r->nforce, "element", "elements"));
    fprintf(f, "  loops           %d (%d constraint rows, rank %d, %d redundant %s dropped)\n",
            r->nloops, r->ncon, r->rank, r->dropped, plural(r->dropped, "row", "rows"));
    if (r->nloops > 0)
        fprintf(f, "  closure         %d of %d loops in closed form at the end, %ld Newton "
                "iterations over the run\n", r->nanalytic, r->nloops, r->newton_iters);
    print_stepping(f, s, r);
    const double scale = r->e_scale > 0.0 ? r->e_scale : 1.0;
    fprintf(f, "  energy drift    E(end) - E(0) = %.4g J (%.3g of %.3g J); max |E - E(0)| %.3g J\n",
            r->e_end - r->e0, (r->e_end - r->e0) / scale, scale, r->e_dev);
    if (r->ncon > 0 && r->measured)
        fprintf(f, "  max residual    %.3g (loop closure, over all samples)\n", r->residual);
    else if (r->ncon > 0)
        fprintf(f, "  max residual    not measured\n");
    else
        fprintf(f, "  max residual    0 (a tree: no loop constraints)\n");
    fprintf(f, "  check           %s: %s\n", r->check_ok ? "ok" : "FAILED", r->check_msg);
}
