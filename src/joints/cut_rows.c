/* Row builders for the cut_rows ops of the joint types: every cut joint is a short list of
 * POINT, ANGLE and DISTANCE rows (joint.h). Joint-frame coordinates: e and d_p in Fp, d_c in
 * Fc; at the neutral configuration the frames coincide, so an ANGLE row's target is the
 * neutral value d_p . d_c. */
#include "core/joint.h"

/* See joint.h: u1 from the coordinate axis least aligned with a (lowest index on ties). */
void mbs_cut_perp(const double a[3], double u1[3], double u2[3])
{
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (fabs(a[i]) < fabs(a[k])) k = i;
    double e[3] = {0.0, 0.0, 0.0};
    e[k] = 1.0;
    v3_copy(u1, e);
    v3_axpy(u1, -a[k], a);
    v3_scale(u1, u1, 1.0 / v3_norm(u1));
    v3_cross(u2, a, u1);
}

/* One POINT row along the unit direction e (Fp). */
int mbs_cut_point(mbs_cut_row *row, const double e[3])
{
    memset(row, 0, sizeof *row);
    row->kind = MBS_CUT_POINT;
    v3_copy(row->e, e);
    row->scale = 1.0;
    return 1;
}

/* POINT rows along e_x, e_y, e_z of Fp. */
int mbs_cut_points3(mbs_cut_row *rows)
{
    static const double E[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int k = 0; k < 3; ++k) mbs_cut_point(&rows[k], E[k]);
    return 3;
}

/* POINT rows along u1, u2 perpendicular to a. */
int mbs_cut_points_perp(mbs_cut_row *rows, const double a[3])
{
    double u1[3], u2[3];
    mbs_cut_perp(a, u1, u2);
    mbs_cut_point(&rows[0], u1);
    mbs_cut_point(&rows[1], u2);
    return 2;
}

/* ANGLE row h = scale (d_p . d_c - d_p . d_c|neutral). */
int mbs_cut_angle(mbs_cut_row *row, const double dp[3], const double dc[3], double scale)
{
    memset(row, 0, sizeof *row);
    row->kind = MBS_CUT_ANGLE;
    v3_copy(row->e, dp);
    v3_copy(row->f, dc);
    row->target = v3_dot(dp, dc);
    row->scale = scale;
    return 1;
}

/* Torque about b1: d_c = a, d_p = -b2 (a x -b2 = b1); about b2: d_p = b1 (a x b1 = b2). */
int mbs_cut_keep_axis(mbs_cut_row *rows, const double a[3], const double *b1,
                      const double *b2)
{
    double u1[3], u2[3], m2[3];
    if (b1 && b2) {
        v3_copy(u1, b1);
        v3_copy(u2, b2);
    } else {
        mbs_cut_perp(a, u1, u2);
    }
    v3_scale(m2, u2, -1.0);
    mbs_cut_angle(&rows[0], m2, a, 1.0);
    mbs_cut_angle(&rows[1], u1, a, 1.0);
    return 2;
}

/* Torque about e_k: d_c = e_{k+1}, d_p = e_{k+2} (e_{k+1} x e_{k+2} = e_k). */
int mbs_cut_lock_rotation(mbs_cut_row *rows)
{
    static const double E[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int k = 0; k < 3; ++k) mbs_cut_angle(&rows[k], E[(k + 2) % 3], E[(k + 1) % 3], 1.0);
    return 3;
}
