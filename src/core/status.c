/* Status names, error messages, the version string and element labels for messages. */
#include "core/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *mbs_version(void)
{
    return MBS_VERSION_STRING;
}

/* Static name of a status code. */
const char *mbs_status_name(int status)
{
    switch (status) {
    case MBS_OK: return "MBS_OK";
    case MBS_ERR_ARG: return "MBS_ERR_ARG";
    case MBS_ERR_NOMEM: return "MBS_ERR_NOMEM";
    case MBS_ERR_STATE: return "MBS_ERR_STATE";
    case MBS_ERR_TOPOLOGY: return "MBS_ERR_TOPOLOGY";
    case MBS_ERR_SINGULAR: return "MBS_ERR_SINGULAR";
    case MBS_ERR_CONVERGENCE: return "MBS_ERR_CONVERGENCE";
    case MBS_ERR_INCONSISTENT: return "MBS_ERR_INCONSISTENT";
    case MBS_ERR_NONFINITE: return "MBS_ERR_NONFINITE";
    case MBS_ERR_SOLVER: return "MBS_ERR_SOLVER";
    case MBS_ERR_CALLBACK: return "MBS_ERR_CALLBACK";
    case MBS_ERR_DEADLINE: return "MBS_ERR_DEADLINE";
    default: return "MBS_UNKNOWN_STATUS";
    }
}

/* Format a message into buf (MBS_ERROR_LEN bytes, truncated) and return status. */
int mbs_errorf(char *buf, int status, const char *fmt, ...)
{
    if (!buf) return status;
    if (!fmt) {
        buf[0] = '\0';
        return status;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, MBS_ERROR_LEN, fmt, ap);
    va_end(ap);
    if (n < 0) buf[0] = '\0';
    if (n >= MBS_ERROR_LEN) memcpy(buf + MBS_ERROR_LEN - 4, "...", 4); /* say it was cut */
    return status;
}

/* 1 if all n values are finite (and x is non-NULL or n <= 0). */
int mbs_first_nonfinite(const double *x, int n)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return i;
    return -1;
}

/* See internal.h. */
int mbs_fail_nonfinite(mbs_data *d, const char *what, int i, int joint)
{
    char buf[96];
    return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "%s[%d] (joint %s) is not finite", what, i,
                         mbs_joint_label(d->model, joint, buf, (int)sizeof buf));
}

/* See internal.h. */
int mbs_all_finite(const double *x, int n)
{
    if (n <= 0) return 1;
    if (!x) return 0;
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* "name" (quoted) when name is non-empty, else "#id"; written into buf. */
const char *mbs_name_label(const char *name, int id, char *buf, int len)
{
    if (!buf || len <= 0) return "";
    if (name && name[0])
        snprintf(buf, (size_t)len, "\"%s\"", name);
    else
        snprintf(buf, (size_t)len, "#%d", id);
    return buf;
}

/* Label of a model body for messages. */
const char *mbs_body_label(const mbs_model *m, int body, char *buf, int len)
{
    const char *name = NULL;
    if (m && body >= 0 && body < m->nbody) name = m->bodies[body].name;
    return mbs_name_label(name, body, buf, len);
}

/* Label of a model joint for messages. */
const char *mbs_joint_label(const mbs_model *m, int joint, char *buf, int len)
{
    const char *name = NULL;
    if (m && joint >= 0 && joint < m->njoint) name = m->joints[joint].name;
    return mbs_name_label(name, joint, buf, len);
}

int mbs_all_bounded(const double *x, int n)
{
    if (n <= 0) return 1;
    if (!x) return 0;
    for (int i = 0; i < n; ++i)
        if (!(fabs(x[i]) <= MBS_MAX_VALUE)) return 0; /* NaN fails too */
    return 1;
}
