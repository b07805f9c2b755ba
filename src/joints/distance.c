/* Distance joint: a rod with ball ends, |x_c - x_p| = length (> 0). It is always a cut
 * joint (constraint only, no tree coordinates), so its ops table has only the cut rows; the
 * tree operations are never called for it (compile never makes it a tree edge). */
#include "core/joint.h"

/* One DISTANCE row h = |d| - length; its multiplier is the push of the rod on the child
   along d / |d| (positive: compression). */
static int distance_cut_rows(const mbs_joint_model *j, mbs_cut_row *rows)
{
    memset(rows, 0, sizeof *rows);
    rows->kind = MBS_CUT_DISTANCE;
    rows->target = j->length;
    rows->scale = 1.0;
    return 1;
}

const mbs_joint_ops mbs_joint_distance_ops = {
    .name = "distance",
    .nq = 0,
    .nv = 0,
    .naux = 0,
    .cut_rows = distance_cut_rows,
};
