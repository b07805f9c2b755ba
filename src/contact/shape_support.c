/* Support points of the convex collision shapes (shapes.h): the point of a shape farthest
 * along a direction, for libccd's MPR and the closed forms that need one. */
#include "contact/shapes.h"

#include <math.h>

/* Support point in shape coordinates along d (shape coordinates). */
static void local_support(const mbs_shape_model *s, const double d[3], double o[3])
{
    const double r = s->size[0], h = s->size[1], n = v3_norm(d), rr = hypot(d[0], d[1]);
    const double sz = d[2] >= 0.0 ? 1.0 : -1.0;
    switch (s->kind) {
    case MBS_COLLISION_SPHERE:
        if (n > 0.0) v3_scale(o, d, r / n);
        else v3_set(o, r, 0.0, 0.0);
        return;
    case MBS_COLLISION_CAPSULE:
        if (n > 0.0) v3_scale(o, d, r / n);
        else v3_set(o, r, 0.0, 0.0);
        o[2] += sz * h;
        return;
    case MBS_COLLISION_BOX:
        for (int i = 0; i < 3; ++i) o[i] = (d[i] >= 0.0 ? 1.0 : -1.0) * s->size[i];
        return;
    case MBS_COLLISION_CYLINDER:
        v3_set(o, rr > 0.0 ? r * d[0] / rr : r, rr > 0.0 ? r * d[1] / rr : 0.0, sz * h);
        return;
    default: { /* mesh */
        int best = 0;
        for (int k = 1; k < s->nvert; ++k)
            if (v3_dot(s->vert + 3 * k, d) > v3_dot(s->vert + 3 * best, d)) best = k;
        v3_copy(o, s->vert + 3 * best);
    }
    }
}

/* See shapes.h. */
void mbs_shape_support(const mbs_shape_model *s, const mbs_pose *X, const double dir[3],
                       double out[3])
{
    double dl[3], p[3];
    m3_tmulv(dl, X->R, dir);
    local_support(s, dl, p);
    pose_apply(out, X, p);
}
