/* SDFormat model files (Open Robotics, "SDFormat specification", sdformat.org) read with
 * libsdformat into an mbs builder: a C interface over a C++ shim (mbs_sdf.cpp), built when
 * libsdformat is found (Debian libsdformat-dev; meson option -Dsdformat). The library itself
 * stays C: this is a tool-level reader that uses the public builder API only. */
#ifndef MBS_SDF_H
#define MBS_SDF_H

#include <stddef.h>

#include <mbs/mbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The model of an .sdf file (a <model>, or the one model of a <world>, whose gravity is
   then set) added to b: each link a body (its <inertial> about the centre of mass turned
   into link axes), each joint an mbs joint (revolute, continuous, prismatic, fixed, ball,
   universal) with its frame on both links, a joint whose child is already connected to its
   parent through the joints before it a cut joint (a closed loop). A link no joint attaches
   to the world floats (compile gives it a free joint). MBS_OK, or a status with a message in
   err (file and element named): what libsdformat reports (an unknown element, a broken
   frame graph, a missing file), a joint type mbs lacks, a static or nested model, several
   models, a builder refusal (a body or joint the builder checks). On failure the builder
   may hold part of the model: discard it. opt: floating_base and balance_inertia are not
   read; warnings (joint dynamics and limits, which are not read) go to opt->warning. */
int mbs_sdf_load(mbs_builder *b, const char *path, const mbs_load_options *opt, char *err,
                 size_t len);

#ifdef __cplusplus
}
#endif

#endif
