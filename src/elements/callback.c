/* User force law: a callback that runs during the force accumulation (after kinematics) and
 * adds forces through mbs_apply_body_wrench / mbs_apply_generalized_force. Its return value
 * is 0 (ok), > 0 (recoverable: a stepper may retry with a smaller step) or < 0 (fatal); a
 * nonzero value becomes MBS_ERR_CALLBACK with the value kept in data->callback_status. */
#include <stdio.h>

#include "core/internal.h"

/* "\"name\"" or "#id" of a callback element of the data's model. */
static const char *callback_label(const mbs_force_model *f, const mbs_data *d, char *buf,
                                  size_t len)
{
    if (f->name[0]) snprintf(buf, len, "\"%s\"", f->name);
    else snprintf(buf, len, "#%d", (int)(f - d->model->forces));
    return buf;
}

/* See internal.h: d->in_callback holds the running callback's element index + 1. */
int mbs_refuse_nested(mbs_data *d, const char *call)
{
    if (!d->in_callback) return MBS_OK;
    char label[96];
    const mbs_force_model *f = &d->model->forces[d->in_callback - 1];
    return MBS_DATA_FAIL(d, MBS_ERR_STATE, "%s: not allowed inside the callback of %s %s "
                         "(nested evaluation; only the apply_* calls and kinematic queries are)",
                         call, f->ops->name, callback_label(f, d, label, sizeof label));
}

/* Run the user's function with the apply_* calls enabled. */
static int callback_apply(const mbs_force_model *f, mbs_data *d)
{
    char label[96];
    d->in_callback = (int)(f - d->model->forces) + 1;
    int rc = f->fn(d, f->user);
    d->in_callback = 0;
    d->callback_status = rc;
    if (rc == 0) return MBS_OK;
    return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "force callback %s returned %d (%s)",
                         callback_label(f, d, label, sizeof label), rc,
                         rc > 0 ? "recoverable" : "fatal");
}

const mbs_force_ops mbs_force_callback_ops = {
    .name = "force callback",
    .apply = callback_apply,
    .potential = NULL,
};

/* Common checks of the apply_* calls: data present and inside a callback. */
static int check_in_callback(mbs_data *d, const char *fn)
{
    if (!d) return MBS_ERR_ARG;
    if (!d->in_callback)
        return MBS_DATA_FAIL(d, MBS_ERR_STATE, "%s: only valid inside a force callback", fn);
    return MBS_OK;
}

/* A NULL vector argument means zero; otherwise it must be finite. */
static int vec_ok(const double *x) { return x == NULL || mbs_all_finite(x, 3); }

/* World-frame force at a body point plus a torque, added to f_ext; NULL vectors are zero.
   The world (body 0) is accepted and takes nothing (a reaction on the ground). */
int mbs_apply_body_wrench(mbs_data *d, int body, const double force[3], const double torque[3],
                          const double point[3])
{
    static const double zero[3] = {0.0, 0.0, 0.0};
    int rc = check_in_callback(d, "mbs_apply_body_wrench");
    if (rc != MBS_OK) return rc;
    if (body < 0 || body >= d->model->nbody)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_apply_body_wrench: unknown body %d", body);
    if (!vec_ok(force) || !vec_ok(torque) || !vec_ok(point)) {
        char buf[64];
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_apply_body_wrench: body %s: non-finite value",
                             mbs_body_label(d->model, body, buf, (int)sizeof buf));
    }
    if (body == MBS_WORLD) return MBS_OK; /* the world does not move: nothing to add */
    mbs_forces_add_world_wrench(d, body, force ? force : zero, torque ? torque : zero,
                                point ? point : zero);
    return MBS_OK;
}

/* gen_force[index] += f. */
int mbs_apply_generalized_force(mbs_data *d, int index, double f)
{
    int rc = check_in_callback(d, "mbs_apply_generalized_force");
    if (rc != MBS_OK) return rc;
    if (index < 0 || index >= d->model->nv)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG,
                             "mbs_apply_generalized_force: index %d outside [0, %d)", index,
                             d->model->nv);
    if (!isfinite(f))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_apply_generalized_force: dof %d: non-finite "
                             "force", index);
    d->gen_force[index] += f;
    return MBS_OK;
}
