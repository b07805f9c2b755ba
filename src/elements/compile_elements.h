/* Compile-time part of the Modelica modelling elements (compile_elements.c). */
#ifndef MBS_COUPLINGS_COMPILE_ELEMENTS_H
#define MBS_COUPLINGS_COMPILE_ELEMENTS_H

#include "core/builder.h"

/* is_node (nbody = builder bodies + 1) = 1 for nodes: massless bodies that no joint touches
   and at least one line element does. Errors (MBS_ERR_TOPOLOGY, message in err): a massless
   body touched by nothing, a node with one element, damping or a point mass on an element
   through a node. */
int mbs_compile_find_nodes(const mbs_builder *b, int *is_node, char *err);
/* Nodes, rotors and the coupling rows of the model (after its joints, layout and forces). */
int mbs_compile_elements(const mbs_builder *b, mbs_model *m, const int *is_node, char *err);
/* Free what mbs_compile_elements allocated (NULL members allowed). */
void mbs_model_elements_free(mbs_model *m);

#endif
