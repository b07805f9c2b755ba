/* The per-data workspace of the inertial couplings and the nodes (src/elements/), sized at
 * mbs_data_create. */
#ifndef MBS_COUPLINGS_WORKSPACE_H
#define MBS_COUPLINGS_WORKSPACE_H

typedef struct mbs_coupling_ws {
    int *solve;          /* [ncrow_solve] rows that are not native */
    double *K, *rhs;     /* [ns ns], [ns] the rows' system and its right side / solution */
    double *rf, *racc;   /* [6 nbody] response forces (consumed) and accelerations */
    double *rgen, *rqdd; /* [nv] response generalized forces and accelerations */
    double *g;           /* [nv] one dense row of G */
    int *gidx;           /* [nv] its nonzero columns */
    double *Y, *G;       /* [nv ns] M^-1 G^T (column-major), [ns nv] G (loops, Schur) */
    double *Kcm, *W;     /* [(ncon + nqrow) ns] J_c M^-1 G^T for the cut rows and the
                            coordinate rows of locked friction, stops and motions (src/events/),
                            [ns ns] W's Cholesky */
    /* nodes (nodes.c) */
    int node_ready;      /* 1: nx holds a solution to start Newton from */
    double *nx;          /* [3 nnode] node positions (warm start) */
    double *nJ, *nR;     /* [3n 3n], [3n] Newton matrix and residual */
    double *ndx, *nx0;   /* [3n] step, [3n] iterate before the step */
    int *npiv;           /* [3n] pivots */
} mbs_coupling_ws;

#endif
