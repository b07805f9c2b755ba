/* The generated file: forward dynamics, inverse dynamics, the q-manifold step and the RK4
 * step of the library (the commutator-free scheme of src/steppers/stepper_fixed.c), all
 * straight-line C99 with libm only. */
#include "cg_aba.h"
#include "cg_loops.h"
#include "elements/couplings.h"
#include "core/uconstr.h"
#include "events/events.h"

#include <stdlib.h>
#include <string.h>

/* 0, or -1 with the reason: cut joints the generator cannot write (curve contacts), and
   prescribed motions and events, which need the library's event machinery (user states,
   frictions and stops are force elements the force check refuses). */
static int check_loops_and_events(const mbs_model *m, char *why, int len)
{
    char buf[96];
    for (int j = 0; j < m->njoint; ++j) {
        const mbs_joint_model *jm = &m->joints[j];
        for (int r = 0; jm->cut && r < jm->ncon; ++r)
            if (jm->rows[r].kind == MBS_CUT_CURVE)
                return snprintf(why, (size_t)len, "joint %s: a curve-curve contact joint is not "
                                "generated (its contact points are solved by the library)",
                                mbs_joint_label(m, j, buf, (int)sizeof buf)), -1;
    }
    if (m->ev && m->ev->nmotion > 0)
        return snprintf(why, (size_t)len, "the prescribed motion of joint %s is not generated",
                        mbs_joint_label(m, m->ev->motions[0].joint, buf, (int)sizeof buf)), -1;
    if (m->ev && m->ev->nevent > 0)
        return snprintf(why, (size_t)len, "event %s is not generated (the library's steppers "
                        "locate events)", mbs_name_label(m->ev->events[0].name, 0, buf, (int)sizeof buf)), -1;
    return 0;
}

int cg_check_model(const mbs_model *m, char *why, int len)
{
    char buf[96];
    if (check_loops_and_events(m, why, len) != 0) return -1;
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        if (!cg_joint_emitter_for(jm) && jm->ops->rebase)
            return snprintf(why, (size_t)len, "joint %s: %s with Cardan angles is not generated "
                            "(its reference frame is re-based at run time); use quaternions",
                            mbs_joint_label(m, m->tree[t], buf, (int)sizeof buf), jm->ops->name), -1;
        if (!cg_joint_emitter_for(jm))
            return snprintf(why, (size_t)len, "joint %s: its coordinates (%s) are not generated",
                            mbs_joint_label(m, m->tree[t], buf, (int)sizeof buf), jm->ops->name), -1;
    }
    if (m->nuc > 0) /* their rows are the library's (a user function, a coupling) */
        return snprintf(why, (size_t)len, "user constraint or joint coupling \"%s\" is not "
                        "generated (they run in the library only)", m->uc[0].name), -1;
    if (m->nrotor > 0)
        return snprintf(why, (size_t)len, "rotor %s is not generated (rotors, point masses on "
                        "line forces and nodes run in the library only)",
                        mbs_name_label(m->rotors[0].name, 0, buf, (int)sizeof buf)), -1;
    if (m->nnode > 0)
        return snprintf(why, (size_t)len, "node %s (a massless body between line forces) is not "
                        "generated: its balance is solved by Newton in the library only",
                        mbs_body_label(m, m->node_body[0], buf, (int)sizeof buf)), -1;
    for (int i = 0; i < m->nforce; ++i)
        if (m->forces[i].ncrow > 0)
            return snprintf(why, (size_t)len, "force element %s has point masses on its line, "
                            "which the generator does not write (the library runs them)",
                            mbs_name_label(m->forces[i].name, i, buf, (int)sizeof buf)), -1;
    for (int i = 0; i < m->nforce; ++i)
        if (!cg_force_supported(&m->forces[i]))
            return snprintf(why, (size_t)len, "force element \"%s\" (%s) is not generated: only "
                            "gravity, line and joint spring-dampers are", m->forces[i].name,
                            m->forces[i].ops->name), -1;
    return 0;
}

/* qacc by the ABA (ctx unused): stores qacc[i]. */
static int emit_aba(cg_out *o, const cg_kin *k, const cg_val *tau, void *ctx)
{
    (void)ctx;
    cg_val *qdd = calloc((size_t)k->m->nv + 1, sizeof(cg_val));
    int st = qdd ? cg_emit_aba(o, k, tau, qdd) : -1;
    for (int i = 0; st == 0 && i < k->m->nv; ++i) cg_store(o, "qacc[%d]", i, qdd[i]);
    free(qdd);
    return st;
}

/* tau by the RNEA (ctx unused): stores tau[i]. */
static int emit_rnea(cg_out *o, const cg_kin *k, const cg_val *qdd, void *ctx)
{
    (void)ctx;
    cg_val *tau = calloc((size_t)k->m->nv + 1, sizeof(cg_val));
    int st = tau ? cg_emit_rnea(o, k, qdd, tau) : -1;
    for (int i = 0; st == 0 && i < k->m->nv; ++i) cg_store(o, "tau[%d]", i, tau[i]);
    free(tau);
    return st;
}

/* int P_forward_dynamics(const double *q, const double *v, const double *tau, double *qacc) */
static int write_forward(FILE *f, const mbs_model *m, const char *P, int *nline)
{
    fprintf(f, "/* qacc (nv) from q (nq), v (nv) and the joint forces tau (nv): the articulated-body\n"
               "   algorithm unrolled for this model; 0, or -1 when qacc is not finite. */\n"
               "int %s_forward_dynamics(const double *q, const double *v, const double *tau,"
               " double *qacc)\n{\n    (void)q, (void)v, (void)tau; /* a model may not read them all */\n", P);
    const int st = cg_write_body(f, m, "tau[%d]", emit_aba, NULL, nline);
    fprintf(f, "    for (int i = 0; i < %s_NV; ++i)\n        if (!isfinite(qacc[i])) return -1;\n"
               "    return 0;\n}\n\n", P);
    return st;
}

/* int P_inverse_dynamics(const double *q, const double *v, const double *qacc, double *tau) */
static int write_inverse(FILE *f, const mbs_model *m, const char *P, int *nline)
{
    fprintf(f, "/* tau (nv) for which forward dynamics returns qacc (nv): the recursive Newton-Euler\n"
               "   algorithm unrolled for this model; 0, or -1 when tau is not finite. */\n"
               "int %s_inverse_dynamics(const double *q, const double *v, const double *qacc,"
               " double *tau)\n{\n    (void)q, (void)v, (void)qacc; /* a model may not read them all */\n", P);
    const int st = cg_write_body(f, m, "qacc[%d]", emit_rnea, NULL, nline);
    fprintf(f, "    for (int i = 0; i < %s_NV; ++i)\n        if (!isfinite(tau[i])) return -1;\n"
               "    return 0;\n}\n\n", P);
    return st;
}

/* P_integrate: q (+) dt v joint by joint (Euclidean or unit quaternion). */
void cg_write_integrate(FILE *f, const mbs_model *m, const char *P)
{
    fprintf(f, "/* q_out = q (+) dt v on the configuration manifold (mbs_integrate_q). */\n"
               "void %s_integrate(const double *q, const double *v, double dt, double *q_out)\n{\n", P);
    for (int t = 0; t < m->ntree; ++t) {
        const mbs_joint_model *jm = &m->joints[m->tree[t]];
        const cg_joint_emitter *e = cg_joint_emitter_for(jm);
        if (jm->nq == 0) continue;
        const int nlin = e->quaternion ? e->quat_at : jm->nq;
        for (int i = 0; i < nlin; ++i)
            fprintf(f, "    q_out[%d] = q[%d] + dt * v[%d];\n", jm->qadr + i, jm->qadr + i, jm->vadr + i);
        if (e->quaternion)
            fprintf(f, "    quat_integrate(q_out + %d, q + %d, v + %d, dt);\n", jm->qadr + nlin,
                    jm->qadr + nlin, jm->vadr + nlin);
    }
    fputs("}\n\n", f);
}

static const char *const helpers =
    "\n/* o = q (x) exp(w dt), normalised (mbs_quat_integrate; exp by its series below 1e-3). */\n"
    "static void quat_integrate(double *o, const double *q, const double *w, double dt)\n{\n"
    "    const double r[3] = {w[0] * dt, w[1] * dt, w[2] * dt};\n"
    "    const double th2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], th = sqrt(th2);\n"
    "    const double k = th < 1e-3 ? 0.5 - th2 / 48.0 + th2 * th2 / 3840.0 : sin(0.5 * th) / th;\n"
    "    const double e[4] = {cos(0.5 * th), k * r[0], k * r[1], k * r[2]};\n"
    "    const double a[4] = {q[0], q[1], q[2], q[3]};\n"
    "    o[0] = a[0] * e[0] - a[1] * e[1] - a[2] * e[2] - a[3] * e[3];\n"
    "    o[1] = a[0] * e[1] + a[1] * e[0] + a[2] * e[3] - a[3] * e[2];\n"
    "    o[2] = a[0] * e[2] - a[1] * e[3] + a[2] * e[0] + a[3] * e[1];\n"
    "    o[3] = a[0] * e[3] + a[1] * e[2] - a[2] * e[1] + a[3] * e[0];\n"
    "    const double s = 1.0 / sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);\n"
    "    for (int i = 0; i < 4; ++i) o[i] *= s;\n}\n\n";

/* The RK4 step: the library's commutator-free scheme on the q-manifold. */
static void write_rk4(FILE *f, const char *P)
{
    fprintf(f,
        "/* One RK4 step of h from (t, q, v) with tau held (the commutator-free Lie-group RK4 of\n"
        "   the library's MBS_STEP_RK4); q, v, t updated in place only on success; 0 or -1. */\n"
        "int %s_rk4_step(double *t, double *q, double *v, const double *tau, double h)\n{\n"
        "    double A[4][%s_NV + 1], V2[%s_NV + 1], V3[%s_NV + 1], V4[%s_NV + 1], W[%s_NV + 1];\n"
        "    double Q2[%s_NQ + 1], Qs[%s_NQ + 1];\n"
        "    int i, st = %s_forward_dynamics(q, v, tau, A[0]);\n"
        "    %s_integrate(q, v, 0.5 * h, Q2);\n"
        "    for (i = 0; i < %s_NV; ++i) V2[i] = v[i] + 0.5 * h * A[0][i];\n"
        "    st |= %s_forward_dynamics(Q2, V2, tau, A[1]);\n"
        "    %s_integrate(q, V2, 0.5 * h, Qs);\n"
        "    for (i = 0; i < %s_NV; ++i) V3[i] = v[i] + 0.5 * h * A[1][i];\n"
        "    st |= %s_forward_dynamics(Qs, V3, tau, A[2]);\n"
        "    for (i = 0; i < %s_NV; ++i) W[i] = V3[i] - 0.5 * v[i];\n"
        "    %s_integrate(Q2, W, h, Qs);\n"
        "    for (i = 0; i < %s_NV; ++i) V4[i] = v[i] + h * A[2][i];\n"
        "    st |= %s_forward_dynamics(Qs, V4, tau, A[3]);\n"
        "    if (st != 0) return -1;\n"
        "    for (i = 0; i < %s_NV; ++i) W[i] = (3.0 * v[i] + 2.0 * V2[i] + 2.0 * V3[i] - V4[i]) / 12.0;\n"
        "    %s_integrate(q, W, h, Q2);\n"
        "    for (i = 0; i < %s_NV; ++i) W[i] = (-v[i] + 2.0 * V2[i] + 2.0 * V3[i] + 3.0 * V4[i]) / 12.0;\n"
        "    %s_integrate(Q2, W, h, q);\n"
        "    for (i = 0; i < %s_NV; ++i)\n"
        "        v[i] = v[i] + h / 6.0 * (A[0][i] + 2.0 * A[1][i] + 2.0 * A[2][i] + A[3][i]);\n"
        "    *t += h;\n    return 0;\n}\n",
        P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P);
}

/* 1 when a joint of m integrates a unit quaternion. */
static int has_quaternion(const mbs_model *m)
{
    for (int t = 0; t < m->ntree; ++t)
        if (cg_joint_emitter_for(&m->joints[m->tree[t]])->quaternion) return 1;
    return 0;
}

/* The tree functions: ABA, RNEA, integrate, RK4; lines of arithmetic or -1. */
static int write_tree(FILE *f, const mbs_model *m, const char *P)
{
    int nline = 0;
    if (write_forward(f, m, P, &nline) != 0 || write_inverse(f, m, P, &nline) != 0) return -1;
    cg_write_integrate(f, m, P);
    write_rk4(f, P);
    return nline;
}

/* s inside a block comment as text that cannot end or open one: "*" + "/" and "/" + "*"
   written with a backslash between, other bytes than printable ASCII as \ooo (a model path
   is anything a file system allows). */
static void write_comment_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p < 0x20 || *p > 0x7e) fprintf(f, "\\%03o", *p);
        else fputc(*p, f);
        if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*')) fputc('\\', f);
    }
}

int cg_write(FILE *f, const mbs_model *m, const cg_options *opt, char *why, int len)
{
    if (cg_check_model(m, why, len) != 0) return -1;
    const char *P = opt->prefix;
    cg_loops L;
    if (m->ncon > 0 && cg_loops_freeze(m, opt->q_start, &L, why, len) != 0) return -1;
    fputs("/* Generated by mbs-codegen from ", f);
    write_comment_text(f, opt->source ? opt->source : "a model");
    fprintf(f, ": do not edit.\n"
               " * Straight-line C99 for one model (constants folded, products with 0 and 1\n"
               " * removed), with libm only: no malloc, no LAPACK, no SUNDIALS. */\n"
               "#include <math.h>\n\n#define %s_NQ %d\n#define %s_NV %d\n",
            P, m->nq, P, m->nv);
    fprintf(f, "\nint %s_forward_dynamics(const double *q, const double *v, const double *tau, double *qacc);\n"
               "int %s_inverse_dynamics(const double *q, const double *v, const double *qacc, double *tau);\n"
               "void %s_integrate(const double *q, const double *v, double dt, double *q_out);\n"
               "int %s_rk4_step(double *t, double *q, double *v, const double *tau, double h);\n",
            P, P, P, P);
    if (has_quaternion(m)) fputs(helpers, f);
    const int nline = m->ncon > 0 ? cg_write_loops(f, m, &L, P) : write_tree(f, m, P);
    if (m->ncon > 0) cg_loops_free(&L);
    if (nline < 0) snprintf(why, (size_t)len, "out of memory");
    return nline;
}
