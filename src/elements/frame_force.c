/* Force and torque between two frames (Otter, Elmqvist, Mattsson 2003, §8; MSL
 * Forces.ForceAndTorque, WorldForce, FrameForce). With R the world rotation of the resolve
 * frame (I, or the world rotation of frame_a or frame_b) and (f, t) the element's value:
 *   on body_b, at the origin p_b of frame_b:   F = R f,  T = R t
 *   on body_a:                                 -F at the same point p_b, -T
 * so the two wrenches cancel about any point (the force/torque balance of the massless
 * element between the frames). The value is the data's host input (mbs_set_frame_force,
 * initially the element's constant) or, when the element has one, its callback's. */
#include "core/internal.h"

/* World rotation of the frame the value is resolved in. */
static void resolve_rotation(const mbs_force_model *f, const mbs_data *d, double R[9])
{
    if (f->resolve == MBS_RESOLVE_WORLD) {
        m3_identity(R);
    } else if (f->resolve == MBS_RESOLVE_FRAME_A) {
        m3_mul(R, d->x_world[f->body_a].R, f->frame_a.R);
    } else {
        m3_mul(R, d->x_world[f->body_b].R, f->frame_b.R);
    }
}

/* The element's value w = (force, torque): its callback's, checked finite, or the input. */
static int frame_force_value(const mbs_force_model *f, mbs_data *d, double w[6])
{
    const int id = (int)(f - d->model->forces);
    if (!f->frame_fn) {
        memcpy(w, d->force_in + 6 * id, 6 * sizeof(double));
        return MBS_OK;
    }
    char label[96];
    d->in_callback = id + 1;
    const int rc = f->frame_fn(d, d->time, w, w + 3, f->user);
    d->in_callback = 0;
    d->callback_status = rc;
    mbs_name_label(f->name, id, label, (int)sizeof label);
    if (rc != 0)
        return MBS_DATA_FAIL(d, MBS_ERR_CALLBACK, "frame force %s: callback returned %d (%s)",
                             label, rc, rc > 0 ? "recoverable" : "fatal");
    if (!mbs_all_finite(w, 6))
        return MBS_DATA_FAIL(d, MBS_ERR_NONFINITE, "frame force %s: callback gave a non-finite "
                             "force or torque", label);
    return MBS_OK;
}

/* +F, +T on body_b at frame_b's origin; -F at the same world point, -T on body_a. */
static int frame_force_apply(const mbs_force_model *f, mbs_data *d)
{
    double w[6], R[9], F[3], T[3], pb[3], r[3], pa[3];
    const int st = frame_force_value(f, d, w);
    if (st != MBS_OK) return st;
    resolve_rotation(f, d, R);
    m3_mulv(F, R, w);
    m3_mulv(T, R, w + 3);
    mbs_forces_add_world_wrench(d, f->body_b, F, T, f->frame_b.p);
    if (f->body_a == MBS_WORLD) return MBS_OK;
    const mbs_pose *Xa = &d->x_world[f->body_a];
    pose_apply(pb, &d->x_world[f->body_b], f->frame_b.p);
    v3_sub(r, pb, Xa->p);
    m3_tmulv(pa, Xa->R, r); /* p_b in body_a coordinates */
    v3_scale(F, F, -1.0);
    v3_scale(T, T, -1.0);
    mbs_forces_add_world_wrench(d, f->body_a, F, T, pa);
    return MBS_OK;
}

const mbs_force_ops mbs_force_frame_force_ops = {
    .name = "frame force",
    .apply = frame_force_apply,
    .potential = NULL,
};

/* Host input of a two-frame force without callback; NULL vectors are zero. */
int mbs_set_frame_force(mbs_data *d, int force, const double f[3], const double t[3])
{
    if (!d) return MBS_ERR_ARG;
    const int nested = mbs_refuse_nested(d, "mbs_set_frame_force");
    if (nested != MBS_OK) return nested;
    const mbs_model *m = d->model;
    if (force < 0 || force >= m->nforce)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_set_frame_force: force element %d out of "
                             "range 0..%d", force, m->nforce - 1);
    const mbs_force_model *fm = &m->forces[force];
    char label[96];
    mbs_name_label(fm->name, force, label, (int)sizeof label);
    if (fm->ops != &mbs_force_frame_force_ops)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_set_frame_force: element %s is a %s, not a "
                             "frame force", label, fm->ops->name);
    if (fm->frame_fn)
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "mbs_set_frame_force: frame force %s takes its "
                             "value from its callback", label);
    if ((f && !mbs_all_bounded(f, 3)) || (t && !mbs_all_bounded(t, 3)))
        return MBS_DATA_FAIL(d, MBS_ERR_ARG, "frame force %s: input not finite or beyond 1e100 "
                             "in magnitude", label);
    double *w = d->force_in + 6 * force;
    for (int i = 0; i < 3; ++i) {
        w[i] = f ? f[i] : 0.0;
        w[3 + i] = t ? t[i] : 0.0;
    }
    d->input_rev++;
    return MBS_OK;
}
