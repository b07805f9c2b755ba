/* The variable table of an mbs FMU (see fmu_vars.h). */
#include "fmu_vars.h"

#include <stdio.h>
#include <stdlib.h>

const char *fmu_var_causality(fmu_var_kind kind)
{
    static const char *const names[] = {"input", "output", "output", "parameter", "parameter"};
    return names[kind];
}

/* Append variable (name.what[k], kind, index); k < 0: no subscript. */
static void add(fmu_vars *t, const char *name, const char *what, int k, fmu_var_kind kind, int index)
{
    fmu_var *v = &t->v[t->n++];
    if (k < 0)
        snprintf(v->name, sizeof v->name, "%s.%s", name, what);
    else
        snprintf(v->name, sizeof v->name, "%s.%s[%d]", name, what, k);
    v->kind = kind;
    v->index = index;
}

int fmu_vars_make(const mbs_model *m, fmu_vars *out)
{
    const int nj = mbs_model_njoint(m);
    out->n = 0;
    out->v = calloc((size_t)(2 + 2 * mbs_model_nv(m) + mbs_model_nq(m)), sizeof(fmu_var));
    if (!out->v) return -1;
    add(out, "mbs", "step_size", -1, FMU_STEP_SIZE, 0);
    add(out, "mbs", "use_cvode", -1, FMU_USE_CVODE, 0);
    for (int j = 0; j < nj; ++j) {
        const int nq = mbs_model_joint_nq(m, j), nv = mbs_model_joint_nv(m, j);
        char name[64];
        const char *jn = mbs_model_joint_name(m, j);
        if (nq <= 0) continue; /* cut and fixed joints have no coordinates */
        if (jn && *jn)
            snprintf(name, sizeof name, "%s", jn);
        else
            snprintf(name, sizeof name, "joint%d", j);
        const int qa = mbs_model_joint_qadr(m, j), va = mbs_model_joint_vadr(m, j);
        for (int k = 0; k < nv; ++k) add(out, name, "tau", nv > 1 ? k : -1, FMU_TAU, va + k);
        for (int k = 0; k < nq; ++k) add(out, name, "q", nq > 1 ? k : -1, FMU_Q, qa + k);
        for (int k = 0; k < nv; ++k) add(out, name, "v", nv > 1 ? k : -1, FMU_V, va + k);
    }
    return 0;
}

void fmu_vars_free(fmu_vars *vars)
{
    free(vars->v);
    vars->v = NULL;
    vars->n = 0;
}
