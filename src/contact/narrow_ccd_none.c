/* The build without libccd (-Dccd=disabled): compile refuses a contact element holding a
 * pair without a closed form (mbs_collide_has_ccd), so the narrow phase never asks for one. */
#include "contact/shapes.h"

/* See shapes.h. */
int mbs_collide_has_ccd(void) { return 0; }

/* See shapes.h: unreachable (refused at compile); the pair reads as apart. */
void mbs_collide_ccd(const mbs_shape_model *A, const mbs_pose *XA, const mbs_shape_model *B,
                     const mbs_pose *XB, mbs_contact_pt *out)
{
    (void)A, (void)XA, (void)B, (void)XB;
    out->gap = 1.0;
}
