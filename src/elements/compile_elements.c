/* Compile-time part of the Modelica modelling elements: which bodies are nodes (Otter,
 * Elmqvist, Mattsson 2003, "The New Modelica MultiBody Library", §8.2; docs/api.md, nodes and
 * automatic roots), the rotors' checks and their native terms, and
 * the layout of the inertial-coupling rows (couplings.h). */
#include "core/builder.h"
#include "elements/couplings.h"
#include "elements/compile_elements.h"

#include <stdlib.h>
#include <string.h>

/* 1 when body def bd has no mass and no inertia. */
static int massless(const mbs_body_def *bd)
{
    if (bd->mass != 0.0) return 0;
    for (int i = 0; i < 9; ++i)
        if (bd->inertia[i] != 0.0) return 0;
    return 1;
}

/* A line element through node n may carry neither damping nor point masses. */
static int check_node_element(const mbs_builder *b, const mbs_force_model *f, int fi,
                              int body, char *err)
{
    char fl[96], bl[96];
    mbs_name_label(f->name, fi, fl, (int)sizeof fl);
    mbs_name_label(b->bodies[body - 1].name, body, bl, (int)sizeof bl);
    if (f->damping != 0.0)
        return mbs_errorf(err, MBS_ERR_TOPOLOGY, "line force %s: it has damping and touches "
                          "node %s; a damper through a massless node makes the node's position "
                          "a first-order state, which mbs does not integrate (give the node a "
                          "mass or remove the damping)", fl, bl);
    if (f->mass != 0.0 || f->mass_b != 0.0)
        return mbs_errorf(err, MBS_ERR_TOPOLOGY, "line force %s: it has a point mass and "
                          "touches node %s, whose acceleration is not defined", fl, bl);
    if (f->body_a == f->body_b)
        return mbs_errorf(err, MBS_ERR_TOPOLOGY, "line force %s: both ends on node %s", fl, bl);
    return MBS_OK;
}

/* 1 for a line element whose bodies exist (check_forces in compile.c reports the others). */
static int valid_line(const mbs_builder *b, const mbs_force_model *f)
{
    return mbs_force_is_line(f) && f->body_a >= 0 && f->body_a <= b->nbody && f->body_b >= 0 &&
           f->body_b <= b->nbody;
}

/* See compile_elements.h. */
int mbs_compile_find_nodes(const mbs_builder *b, int *is_node, char *err)
{
    const int nb = b->nbody + 1;
    int *joints = calloc((size_t)nb, sizeof(int)), *lines = calloc((size_t)nb, sizeof(int));
    if (!joints || !lines) {
        free(joints), free(lines);
        return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    }
    for (int j = 0; j < b->njoint; ++j) joints[b->joints[j].parent]++, joints[b->joints[j].child]++;
    for (int i = 0; i < b->nforce; ++i)
        if (valid_line(b, &b->forces[i])) lines[b->forces[i].body_a]++, lines[b->forces[i].body_b]++;
    int st = MBS_OK;
    is_node[0] = 0;
    for (int i = 1; i < nb && st == MBS_OK; ++i) {
        char bl[96];
        is_node[i] = massless(&b->bodies[i - 1]) && joints[i] == 0 && lines[i] > 0;
        mbs_name_label(b->bodies[i - 1].name, i, bl, (int)sizeof bl);
        if (massless(&b->bodies[i - 1]) && joints[i] == 0 && lines[i] == 0)
            st = mbs_errorf(err, MBS_ERR_TOPOLOGY, "body %s: massless and touched by no joint "
                            "and no line force element (it has no inertia to move)", bl);
        else if (is_node[i] && lines[i] < 2)
            st = mbs_errorf(err, MBS_ERR_TOPOLOGY, "node %s: touched by a single line force "
                            "element, so no force balance fixes its position (a dangling node)",
                            bl);
    }
    for (int i = 0; i < b->nforce && st == MBS_OK; ++i) {
        const mbs_force_model *f = &b->forces[i];
        if (!valid_line(b, f)) continue;
        if (is_node[f->body_a]) st = check_node_element(b, f, i, f->body_a, err);
        if (st == MBS_OK && is_node[f->body_b]) st = check_node_element(b, f, i, f->body_b, err);
    }
    free(joints), free(lines);
    return st;
}

/* Node tables of the model from is_node (nbody). */
static int fill_nodes(mbs_model *m, const int *is_node)
{
    m->body_node = malloc((size_t)m->nbody * sizeof(int));
    if (!m->body_node) return MBS_ERR_NOMEM;
    m->nnode = 0;
    for (int i = 0; i < m->nbody; ++i) m->body_node[i] = is_node[i] ? m->nnode++ : -1;
    m->node_body = malloc((size_t)(m->nnode + 1) * sizeof(int));
    m->node_elem = malloc((size_t)(m->nforce + 1) * sizeof(int));
    if (!m->node_body || !m->node_elem) return MBS_ERR_NOMEM;
    for (int i = 0; i < m->nbody; ++i)
        if (is_node[i]) m->node_body[m->body_node[i]] = i;
    m->nnode_elem = 0;
    for (int i = 0; i < m->nforce; ++i) {
        const mbs_force_model *f = &m->forces[i];
        if (mbs_force_is_line(f) && (is_node[f->body_a] || is_node[f->body_b]))
            m->node_elem[m->nnode_elem++] = i;
    }
    return MBS_OK;
}

/* A rotor needs a tree joint with the dof, and a housing that is not a node. */
static int check_rotor(const mbs_model *m, const mbs_rotor_model *r, int id, char *err)
{
    char rl[96], jl[96];
    mbs_name_label(r->name, id, rl, (int)sizeof rl);
    mbs_joint_label(m, r->joint, jl, (int)sizeof jl);
    const mbs_joint_model *jm = &m->joints[r->joint];
    if (jm->cut)
        return mbs_errorf(err, MBS_ERR_ARG, "rotor %s: joint %s is a cut joint (it has no "
                          "coordinate to drive the rotor); make another joint of the loop cut",
                          rl, jl);
    if (r->dof >= jm->nv)
        return mbs_errorf(err, MBS_ERR_ARG, "rotor %s: dof %d out of range (joint %s has %d)",
                          rl, r->dof, jl, jm->nv);
    if (m->body_node[r->housing] >= 0)
        return mbs_errorf(err, MBS_ERR_ARG, "rotor %s: its housing is a node (massless, no "
                          "joint)", rl);
    return MBS_OK;
}

/* Rotors: copied, checked, classified native or not; native terms summed into joints. */
static int fill_rotors(const mbs_builder *b, mbs_model *m, char *err)
{
    m->nrotor = b->nrotor;
    m->rotors = calloc((size_t)(b->nrotor + 1), sizeof *m->rotors);
    if (!m->rotors) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    for (int i = 0; i < b->nrotor; ++i) {
        mbs_rotor_model *r = &m->rotors[i];
        *r = b->rotors[i];
        r->name = mbs_strdup_name(b->rotors[i].name);
        if (!r->name) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
        const int st = check_rotor(m, r, i, err);
        if (st != MBS_OK) return st;
        mbs_joint_model *jm = &m->joints[r->joint];
        r->vindex = jm->vadr + r->dof;
        r->native = jm->nv == 1 && (r->housing == MBS_WORLD || r->housing == jm->parent);
    }
    for (int j = 0; j < m->njoint && m->nrotor > 0; ++j) mbs_rotor_native_terms(m, j);
    return MBS_OK;
}

/* See couplings.h: D = sum J n^2, U = sum J n axis, I = sum J axis axis^T (aba.c). */
void mbs_rotor_native_terms(mbs_model *m, int j)
{
    mbs_joint_model *jm = &m->joints[j];
    jm->rotor_D = 0.0;
    memset(jm->rotor_U, 0, sizeof jm->rotor_U);
    memset(jm->rotor_I, 0, sizeof jm->rotor_I);
    jm->rotor_parent = 0;
    for (int i = 0; i < m->nrotor; ++i) {
        const mbs_rotor_model *r = &m->rotors[i];
        if (!r->native || r->joint != j) continue;
        const double J = r->inertia, n = r->ratio;
        jm->rotor_D += J * n * n;
        if (r->housing == MBS_WORLD) continue;
        jm->rotor_parent = 1;
        for (int a = 0; a < 3; ++a) {
            jm->rotor_U[a] += J * n * r->axis[a];
            for (int c = 0; c < 3; ++c) jm->rotor_I[3 * a + c] += J * r->axis[a] * r->axis[c];
        }
    }
}

/* Rows: 3 per point mass of the line elements, then one per rotor. */
static int layout_rows(mbs_model *m)
{
    int n = 0;
    for (int i = 0; i < m->nforce; ++i) {
        mbs_force_model *f = &m->forces[i];
        f->ncrow = 3 * ((f->mass > 0.0) + (f->two && f->mass_b > 0.0));
        f->crow = n;
        n += f->ncrow;
    }
    m->ncrow = n + m->nrotor;
    m->crow_owner = malloc((size_t)(m->ncrow + 1) * sizeof(int));
    m->crow_native = calloc((size_t)(m->ncrow + 1), 1);
    if (!m->crow_owner || !m->crow_native) return MBS_ERR_NOMEM;
    for (int i = 0; i < m->nforce; ++i)
        for (int k = 0; k < m->forces[i].ncrow; ++k) m->crow_owner[m->forces[i].crow + k] = i;
    for (int r = 0; r < m->nrotor; ++r) {
        m->rotors[r].crow = n + r;
        m->crow_owner[n + r] = -(r + 1);
        m->crow_native[n + r] = (unsigned char)m->rotors[r].native;
    }
    m->coupling_hooks = m->ncrow > 0 ? &mbs_couplings_hooks : NULL;
    m->ncrow_solve = 0;
    for (int k = 0; k < m->ncrow; ++k) m->ncrow_solve += !m->crow_native[k];
    return MBS_OK;
}

/* See compile_elements.h. */
int mbs_compile_elements(const mbs_builder *b, mbs_model *m, const int *is_node, char *err)
{
    if (fill_nodes(m, is_node) != MBS_OK) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    int st = mbs_node_start_compile(b, m, err);
    if (st == MBS_OK) st = fill_rotors(b, m, err);
    if (st != MBS_OK) return st;
    if (layout_rows(m) != MBS_OK) return mbs_errorf(err, MBS_ERR_NOMEM, "compile: out of memory");
    return MBS_OK;
}

/* See compile_elements.h. */
void mbs_model_elements_free(mbs_model *m)
{
    if (m->rotors)
        for (int i = 0; i < m->nrotor; ++i) free(m->rotors[i].name);
    free(m->rotors);
    free(m->body_node), free(m->node_body), free(m->node_elem), free(m->node_start);
    free(m->crow_owner), free(m->crow_native);
}
