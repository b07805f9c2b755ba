/* The loop structure of a model's constraint rows (cut joints, user constraints, coordinate
 * rows) and the ops of a row source: what constraints.c (the rows) and user_rows.c (the user
 * constraints' source) share. */
#ifndef MBS_LOOPS_CON_TOPO_H
#define MBS_LOOPS_CON_TOPO_H

#include "core/internal.h"

/* The loop structure of a model, derived once at data creation.
 * Coordinate rows (src/events/events.h: a prescribed motion, a locked friction, a stop in
 * contact) follow the ncon cut-joint rows: row ncon + k is h = scale_k (q_i - target_k),
 * J = scale_k e_i for the dof i it holds; J̇q̇ = -scale_k acc_target_k. Each is listed here
 * as one more "cut" after the ncut cut joints (index ncut + k) whose path is its single dof,
 * so the row machinery (residuals, Jacobians, closures for the sparse solves) serves it
 * unchanged; cut[ncut + k] is the joint the dof belongs to (for messages). */
/* User constraints and joint couplings (src/loops/user_rows.c) are entries ncut .. ncut +
 * nuc - 1, their rows ncon_cut .. ncon - 1 (the model's ncon counts them); coordinate rows
 * are then entries ncut + nuc + k. Every entry's rows are evaluated through its source's
 * ops (cut joint, user constraint, coordinate row). */
typedef struct mbs_con_topo mbs_con_topo;
typedef struct mbs_uc_cache mbs_uc_cache;
typedef struct mbs_con_source {
    /* scaled residual, Jacobian row (nv, all written), quadratic term and velocity target
       of row r */
    double (*residual)(const mbs_data *d, const mbs_con_topo *t, int r);
    void (*jacobian)(const mbs_data *d, const mbs_con_topo *t, const double *Sw, int r,
                     double *Ji);
    double (*bias)(const mbs_data *d, const mbs_con_topo *t, const double *Vw,
                   const double *Aw, int r);
    double (*velocity_target)(const mbs_data *d, const mbs_con_topo *t, int r);
    /* "cut joint NAME", "user constraint NAME", ...: the owner of entry c, for messages */
    const char *(*label)(const mbs_data *d, const mbs_con_topo *t, int c, char *buf, int len);
} mbs_con_source;

struct mbs_con_topo {
    int ncon;          /* cut-joint and user rows; coordinate rows ncon .. ncon + ncoord - 1 */
    int ncon_cut;      /* cut-joint rows; user rows ncon_cut .. ncon - 1 follow */
    int nuc;           /* user constraints (entries ncut .. ncut + nuc - 1) */
    const mbs_con_source **src; /* [nent] the source of each entry's rows */
    int *ent_row;      /* [nent] first row of each entry */
    mbs_uc_cache *uc;  /* the user rows' evaluations (user_rows.c); NULL without */
    int ncoord;        /* coordinate rows */
    int nv;            /* velocity coordinates (columns) */
    int ncut;          /* cut joints */
    int nent;          /* ncut + nuc + ncoord: entries of cut, path_adr, clo_adr, overlap's side */
    int *cut;          /* [ncut + ncoord] cut joint ids, ascending; then coordinate rows' joints */
    int *row_cut;      /* [ncon + ncoord] index into cut of each row's joint */
    double *row_scale; /* [ncon + ncoord] scale of each row (see the file comment) */
    int *path_adr;     /* [ncut + ncoord + 1] first entry of each cut joint's path */
    int *path_dof;     /* [path_adr[ncut]] dofs whose columns its rows touch */
    double *path_sign; /* [path_adr[ncut]] +1 child side, -1 parent side */
    int *clo_adr;      /* [ncut + ncoord + 1] first entry of each cut joint's closure */
    int *clo_dof;      /* [clo_adr[ncut]] its path dofs and all their ancestor dofs, descending:
                          the support of L^-T J^T for the L^T D L factor of M (RBDA §6.5) */
    int maxclo;        /* largest closure */
    unsigned char *overlap; /* [(ncut + ncoord)^2] 1 when two closures share a dof */
};

/* Velocity target 0 (the rows of cut joints and user constraints hold still). */
double mbs_con_zero_target(const mbs_data *d, const mbs_con_topo *t, int r);

#endif
