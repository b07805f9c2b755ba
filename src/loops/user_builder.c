/* The builder calls of user constraints and joint couplings, their compile into the model
 * (rows after the cut joints' rows) and the model's queries about them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/linalg.h"
#include "events/events.h"
#include "loops/user_rows.h"

/* The user's function: rows as it gives them; a nonzero return fails. */
static int user_fn_eval(const mbs_uc_model *u, mbs_data *d, double *h, double *J, double *b)
{
    return u->fn(d, h, J, b, u->user) == 0 ? MBS_OK : MBS_ERR_CALLBACK;
}

/* q_a - ratio q_b - offset, its Jacobian e_a - ratio e_b and a zero quadratic term. */
static int coupling_eval(const mbs_uc_model *u, mbs_data *d, double *h, double *J, double *b)
{
    h[0] = d->q[u->qadr[0]] - u->ratio * d->q[u->qadr[1]] - u->offset;
    if (J) {
        for (int k = 0; k < d->model->nv; ++k) J[k] = 0.0;
        J[u->vadr[0]] = 1.0;
        J[u->vadr[1]] -= u->ratio;
    }
    if (b) b[0] = 0.0;
    return MBS_OK;
}

const mbs_uc_ops mbs_uc_user_ops = {"user constraint", user_fn_eval};
const mbs_uc_ops mbs_uc_coupling_ops = {"joint coupling", coupling_eval};

/* See user_rows.h. */
const char *mbs_uc_label(const mbs_model *m, int u, char *buf, int len)
{
    const mbs_uc_model *c = &m->uc[u];
    char name[80];
    snprintf(buf, (size_t)len, "%s %s", c->ops->kind,
             mbs_name_label(c->name, u, name, (int)sizeof name));
    return buf;
}

/* See user_rows.h. */
const char *mbs_con_row_owner(const mbs_model *m, int r, char *buf, int len)
{
    for (int u = 0; u < m->nuc; ++u)
        if (r >= m->uc[u].rowadr && r < m->uc[u].rowadr + m->uc[u].nrow)
            return mbs_uc_label(m, u, buf, len);
    int joint = -1;
    for (int j = 0; j < m->njoint; ++j)
        if (m->joints[j].cut && r >= m->joints[j].conadr &&
            r < m->joints[j].conadr + m->joints[j].ncon)
            joint = j;
    char name[80];
    snprintf(buf, (size_t)len, "cut joint %s", mbs_joint_label(m, joint, name, (int)sizeof name));
    return buf;
}

/* Append u (its name from name, cut to fit) to the builder; the id or a status. */
static int push(mbs_builder *b, mbs_uc_model *u, const char *name, const char *lbl)
{
    snprintf(u->name, sizeof u->name, "%s", name ? name : "");
    if (mbs_builder_grow((void **)&b->ucs, &b->uc_cap, b->nuc + 1, sizeof *b->ucs))
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "%s: out of memory", lbl);
    b->ucs[b->nuc] = *u;
    return b->nuc++;
}

/* Label "kind "name"" or "kind #id" of the constraint the builder is about to add. */
static const char *new_label(const mbs_builder *b, const char *kind, const char *name,
                             char *buf, int len)
{
    char n[80];
    snprintf(buf, (size_t)len, "%s %s", kind, mbs_name_label(name, b->nuc, n, (int)sizeof n));
    return buf;
}

/* See mbs.h: everything checked before anything is stored. */
static int add_user_impl(mbs_builder *b, const mbs_user_constraint_def *def)
{
    char l[128];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "def is NULL");
    new_label(b, "user constraint", def->name, l, (int)sizeof l);
    if (def->nrow < 1 || def->nrow > MBS_USER_CONSTRAINT_MAX_ROWS)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: nrow %d is not in 1 .. %d", l, def->nrow,
                          MBS_USER_CONSTRAINT_MAX_ROWS);
    if (!def->fn) return mbs_errorf(b->error, MBS_ERR_ARG, "%s: fn is NULL", l);
    if (!(isfinite(def->scale) && def->scale > 0.0))
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: scale must be finite and > 0", l);
    if (def->velocity_level && !def->jacobian)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: a velocity-level constraint has no h to "
                          "differentiate: its function must give J (jacobian 1)", l);
    mbs_uc_model u = {0};
    u.ops = &mbs_uc_user_ops;
    u.nrow = def->nrow, u.velocity = def->velocity_level != 0;
    u.jacobian = def->jacobian != 0, u.bias = def->bias != 0, u.scale = def->scale;
    u.fn = def->fn, u.user = def->user;
    return push(b, &u, def->name, l);
}

int mbs_add_user_constraint(mbs_builder *b, const mbs_user_constraint_def *def)
{
    return mbs_builder_note(b, "mbs_add_user_constraint", add_user_impl(b, def));
}

/* See mbs.h: compile resolves the dofs (mbs_uc_compile). */
static int add_coupling_impl(mbs_builder *b, const mbs_joint_coupling_def *def)
{
    char l[128];
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "def is NULL");
    new_label(b, "joint coupling", def->name, l, (int)sizeof l);
    const int ja = def->joint_a, jb = def->joint_b;
    if (ja < 0 || ja >= b->njoint || jb < 0 || jb >= b->njoint)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: unknown joint (%d, %d)", l, ja, jb);
    if (def->dof_a < 0 || def->dof_b < 0)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: negative dof", l);
    if (ja == jb && def->dof_a == def->dof_b)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: couples a dof with itself", l);
    if (!isfinite(def->ratio) || def->ratio == 0.0 || !isfinite(def->offset))
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s: ratio must be finite and nonzero, offset "
                          "finite", l);
    mbs_uc_model u = {0};
    u.ops = &mbs_uc_coupling_ops;
    u.nrow = 1, u.jacobian = 1, u.bias = 1, u.scale = 1.0;
    u.joint[0] = ja, u.joint[1] = jb, u.dof[0] = def->dof_a, u.dof[1] = def->dof_b;
    u.ratio = def->ratio, u.offset = def->offset;
    return push(b, &u, def->name, l);
}

int mbs_add_joint_coupling(mbs_builder *b, const mbs_joint_coupling_def *def)
{
    return mbs_builder_note(b, "mbs_add_joint_coupling", add_coupling_impl(b, def));
}

mbs_user_constraint_def mbs_default_user_constraint_def(void)
{
    mbs_user_constraint_def d = {0};
    d.scale = 1.0;
    return d;
}

mbs_joint_coupling_def mbs_default_joint_coupling_def(void)
{
    mbs_joint_coupling_def d = {0};
    d.joint_a = d.joint_b = -1;
    d.ratio = 1.0;
    return d;
}

/* See user_rows.h. */
int mbs_uc_compile(const mbs_builder *b, mbs_model *m, char *err)
{
    m->ncon_cut = m->ncon;
    if (b->nuc == 0) return MBS_OK;
    m->uc = calloc((size_t)b->nuc, sizeof *m->uc);
    if (!m->uc) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    m->nuc = b->nuc;
    char l[128];
    for (int i = 0; i < m->nuc; ++i) {
        mbs_uc_model *u = &m->uc[i];
        *u = b->ucs[i];
        u->rowadr = m->ncon;
        m->ncon += u->nrow;
        if (u->velocity) m->ncon_vel += u->nrow;
        mbs_uc_label(m, i, l, (int)sizeof l);
        if (!MBS_HAVE_LAPACK)
            return mbs_errorf(err, MBS_ERR_STATE, "compile: %s needs the loop solver, and this "
                              "build of mbs has no LAPACK", l);
        for (int e = 0; u->ops == &mbs_uc_coupling_ops && e < 2; ++e) {
            const int st = mbs_resolve_scalar_dof(m, l, u->joint[e], u->dof[e], &u->qadr[e],
                                                  &u->vadr[e], err);
            if (st != MBS_OK) return st;
        }
    }
    return MBS_OK;
}

/* See user_rows.h: a coupling touches its two dofs, a user function every dof. */
int mbs_uc_path_count(const mbs_model *m)
{
    int n = 0;
    for (int u = 0; u < m->nuc; ++u) n += m->uc[u].ops == &mbs_uc_coupling_ops ? 2 : m->nv;
    return n;
}

/* See user_rows.h. */
void mbs_uc_path_fill(const mbs_model *m, mbs_con_topo *t, int *c, int *k)
{
    for (int i = 0; i < m->nuc; ++i, ++*c) {
        const mbs_uc_model *u = &m->uc[i];
        t->cut[*c] = -1;
        t->path_adr[*c] = *k;
        const int coupling = u->ops == &mbs_uc_coupling_ops, n = coupling ? 2 : m->nv;
        for (int p = 0; p < n; ++p, ++*k) {
            t->path_dof[*k] = coupling ? u->vadr[p] : p;
            t->path_sign[*k] = 1.0;
        }
    }
}

/* See user_rows.h. */
int mbs_uc_refuse_velocity(mbs_data *d, const char *fn)
{
    const mbs_model *m = d->model;
    for (int u = 0; u < m->nuc; ++u) {
        if (!m->uc[u].velocity) continue;
        char l[128];
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "%s: %s is a velocity-level (nonholonomic) "
                             "constraint, which it cannot handle", fn,
                             mbs_uc_label(m, u, l, (int)sizeof l));
    }
    return MBS_OK;
}

int mbs_model_nuser_constraints(const mbs_model *m) { return m ? m->nuc : MBS_ERR_ARG; }

int mbs_model_user_constraint_row(const mbs_model *m, int id)
{
    return m && id >= 0 && id < m->nuc ? m->uc[id].rowadr : MBS_ERR_ARG;
}

int mbs_model_find_user_constraint(const mbs_model *m, const char *name)
{
    if (!m || !name) return MBS_ERR_ARG;
    for (int u = 0; u < m->nuc; ++u)
        if (strcmp(m->uc[u].name, name) == 0) return u;
    return MBS_ERR_ARG;
}
