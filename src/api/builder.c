/* The mutable builder: bodies, joints, force elements and gravity, validated on entry.
 * Every adder validates its whole input before it changes anything, so a failed call leaves
 * the builder exactly as it was (only its error message changes). */
#include "core/builder.h"
#include "contact/contact.h"
#include "contact/shapes.h"
#include "core/internal.h"
#include "elements/couplings.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYM_TOL 1e-9    /* relative asymmetry allowed in an inertia tensor */
#define EIG_TOL 1e-9    /* relative tolerance of the eigenvalue tests */
/* A moment about a body axis (a diagonal entry: a Rayleigh quotient, >= the smallest
   principal moment) below -DIAG_ROUND times its row's largest entry is negative beyond the
   rounding of the entries that make it: diag(-0.5, 1e20, 1e20) is refused, which the
   eigenvalue test, relative to the largest moment, cannot see. */
#define DIAG_ROUND (16.0 * DBL_EPSILON)
#define ROT_TOL 1e-9    /* orthonormality of frame rotations */
#define AXIS_MIN 1e-12  /* shorter axes count as zero */
#define PARALLEL_TOL 1e-9 /* |sin| of the angle between axes below which they are parallel */
#define JACOBI_SWEEPS 50

/* Free a name the builder owns (stored behind a const pointer of a def). */
static void free_name(const char *name) { free((void *)(uintptr_t)name); }

/* "name" (id N) when named, else #N: the element label of builder messages. */
static const char *elem_label(const char *name, int id, char *buf, size_t len)
{
    if (name && name[0])
        snprintf(buf, len, "\"%s\" (id %d)", name, id);
    else
        snprintf(buf, len, "#%d", id);
    return buf;
}

/* Copy of a name (NULL -> ""), or NULL when out of memory. */
char *mbs_strdup_name(const char *name)
{
    if (!name) name = "";
    size_t n = strlen(name) + 1;
    char *s = malloc(n);
    if (s) memcpy(s, name, n);
    return s;
}

/* Make room for need elements of size elem in *arr (capacity *cap); 0 or -1 if out of memory. */
int mbs_builder_grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) return 0;
    if (*cap > INT_MAX / 2) return -1;
    int ncap = *cap ? 2 * *cap : 8;
    if (ncap < need) ncap = need;
    if ((size_t)ncap > SIZE_MAX / elem) return -1;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* New empty builder with uniform gravity (0, 0, -9.81); NULL if out of memory. */
mbs_builder *mbs_builder_create(void)
{
    mbs_builder *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->gravity_kind = MBS_GRAVITY_UNIFORM;
    v3_set(b->gravity, 0.0, 0.0, -9.81);
    b->root_rotation = MBS_ROT_QUATERNION;
    b->closure = MBS_CLOSURE_ANALYTIC;
    return b;
}

mbs_builder_mark mbs_builder_get_mark(const mbs_builder *b)
{
    mbs_builder_mark k;
    k.nbody = b->nbody, k.njoint = b->njoint, k.nforce = b->nforce, k.nvisual = b->nvisual;
    k.nstart = b->nstart;
    k.nrotor = b->nrotor;
    k.nnode_start = b->nnode_start;
    k.nevent = b->nevent, k.nmotion = b->nmotion;
    k.nux = b->nux;
    k.nuc = b->nuc;
    k.nshape = b->nshape;
    k.first_status = b->first_status;
    k.gravity_kind = b->gravity_kind, k.gravity_mu = b->gravity_mu;
    v3_copy(k.gravity, b->gravity);
    v3_copy(k.gravity_center, b->gravity_center);
    k.root_rotation = b->root_rotation;
    return k;
}

void mbs_builder_rollback(mbs_builder *b, const mbs_builder_mark *k)
{
    for (int i = k->nbody; i < b->nbody; ++i) free_name(b->bodies[i].name);
    for (int i = k->njoint; i < b->njoint; ++i) free_name(b->joints[i].name);
    for (int i = k->nforce; i < b->nforce; ++i) free(b->forces[i].name);
    for (int i = k->nvisual; i < b->nvisual; ++i) {
        free_name(b->visuals[i].name);
        free_name(b->visuals[i].mesh);
    }
    for (int i = k->nrotor; i < b->nrotor; ++i) free(b->rotors[i].name);
    b->nrotor = k->nrotor;
    b->nnode_start = k->nnode_start;
    mbs_events_builder_truncate(b, k->nevent, k->nmotion);
    mbs_curve_rollback(b, k->njoint); /* curve joints added after the mark go too */
    mbs_shapes_rollback(b, k->nshape, k->nforce); /* shapes and contact elements too */
    b->nbody = k->nbody, b->njoint = k->njoint, b->nforce = k->nforce, b->nvisual = k->nvisual;
    b->nstart = k->nstart;
    b->nux = k->nux;
    b->nuc = k->nuc;
    if (!k->first_status) b->first_status = 0;
    b->gravity_kind = k->gravity_kind, b->gravity_mu = k->gravity_mu;
    v3_copy(b->gravity, k->gravity);
    v3_copy(b->gravity_center, k->gravity_center);
    b->root_rotation = k->root_rotation;
}

/* Free the builder, its arrays and every name it owns. */
void mbs_builder_destroy(mbs_builder *b)
{
    if (!b) return;
    for (int i = 0; i < b->nbody; ++i) free_name(b->bodies[i].name);
    for (int i = 0; i < b->njoint; ++i) free_name(b->joints[i].name);
    for (int i = 0; i < b->nforce; ++i) free(b->forces[i].name);
    mbs_visuals_free(b->visuals, b->nvisual);
    for (int i = 0; i < b->nrotor; ++i) free(b->rotors[i].name);
    free(b->rotors);
    free(b->node_starts);
    mbs_events_builder_truncate(b, 0, 0);
    free(b->events);
    free(b->motions);
    free(b->bodies);
    free(b->joints);
    free(b->forces);
    free(b->starts);
    free(b->curves);
    free(b->ux_start);
    free(b->ucs);
    mbs_shapes_builder_free(b);
    free(b);
}

/* Message of the last failure; "" when there was none (or b is NULL). */
const char *mbs_builder_error(const mbs_builder *b) { return b ? b->error : ""; }

/* See builder.h. */
int mbs_builder_note(mbs_builder *b, const char *fn, int st)
{
    if (b && st < 0 && !b->first_status) {
        b->first_status = st;
        const int named = strncmp(b->error, fn, strlen(fn)) == 0; /* "fn: def is NULL" */
        mbs_errorf(b->first_error, st, "%s%s%s", named ? "" : fn, named ? "" : ": ", b->error);
    }
    return st;
}

/* Status of the first failed call kept for mbs_compile (MBS_OK when none); its message in
   msg when non-NULL. */
int mbs_builder_first_error(const mbs_builder *b, const char **msg)
{
    if (msg) *msg = (b && b->first_status) ? b->first_error : "";
    return b ? b->first_status : MBS_ERR_ARG;
}

/* Forget the first failure (a host that handled it); the last message is cleared too. */
void mbs_builder_clear_error(mbs_builder *b)
{
    if (!b) return;
    b->first_status = 0;
    b->first_error[0] = b->error[0] = '\0';
}

/* Uniform gravity g (world frame). */
static int builder_set_gravity_impl(mbs_builder *b, const double g[3])
{
    if (!b) return MBS_ERR_ARG;
    if (!g) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_builder_set_gravity: g is NULL");
    if (!mbs_all_bounded(g, 3))
        return mbs_errorf(b->error, MBS_ERR_ARG, "gravity: g is not finite or beyond 1e100 in magnitude");
    b->gravity_kind = MBS_GRAVITY_UNIFORM;
    v3_copy(b->gravity, g);
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_builder_set_gravity(mbs_builder *b, const double g[3])
{
    return mbs_builder_note(b, "mbs_builder_set_gravity", builder_set_gravity_impl(b, g));
}

/* See builder.h: center present, finite and bounded, mu finite and > 0. */
int mbs_point_gravity_check(char *err, const char *fn, const double center[3], double mu)
{
    if (!center) return mbs_errorf(err, MBS_ERR_ARG, "%s: center is NULL", fn);
    if (!mbs_all_bounded(center, 3))
        return mbs_errorf(err, MBS_ERR_ARG, "point gravity: center is not finite or beyond 1e100 in magnitude");
    if (!(fabs(mu) <= MBS_MAX_VALUE) || !(mu > 0.0))
        return mbs_errorf(err, MBS_ERR_ARG, "point gravity: mu must be finite and > 0 (got %g)",
                          mu);
    return MBS_OK;
}

/* Point gravity a = -mu r / |r|^3, r = x - center, mu > 0. */
static int builder_set_point_gravity_impl(mbs_builder *b, const double center[3], double mu)
{
    if (!b) return MBS_ERR_ARG;
    const int st = mbs_point_gravity_check(b->error, "mbs_builder_set_point_gravity", center, mu);
    if (st != MBS_OK) return st;
    b->gravity_kind = MBS_GRAVITY_POINT;
    v3_copy(b->gravity_center, center);
    b->gravity_mu = mu;
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_builder_set_point_gravity(mbs_builder *b, const double center[3], double mu)
{
    return mbs_builder_note(b, "mbs_builder_set_point_gravity", builder_set_point_gravity_impl(b, center, mu));
}

/* No gravity field. */
static int builder_set_no_gravity_impl(mbs_builder *b)
{
    if (!b) return MBS_ERR_ARG;
    b->gravity_kind = MBS_GRAVITY_NONE;
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_builder_set_no_gravity(mbs_builder *b)
{
    return mbs_builder_note(b, "mbs_builder_set_no_gravity", builder_set_no_gravity_impl(b));
}

/* Rotation coordinates of the automatic free root joints. */
static int builder_set_root_rotation_impl(mbs_builder *b, mbs_rotation rotation)
{
    if (!b) return MBS_ERR_ARG;
    if (rotation != MBS_ROT_QUATERNION && rotation != MBS_ROT_CARDAN)
        return mbs_errorf(b->error, MBS_ERR_ARG, "root rotation: unknown rotation option %d",
                          (int)rotation);
    b->root_rotation = rotation;
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_builder_set_root_rotation(mbs_builder *b, mbs_rotation rotation)
{
    return mbs_builder_note(b, "mbs_builder_set_root_rotation", builder_set_root_rotation_impl(b, rotation));
}

/* Whether compile may choose the planar path (src/planar/) for a planar model. */
static int builder_set_planar_impl(mbs_builder *b, mbs_planar_mode mode)
{
    if (!b) return MBS_ERR_ARG;
    if (mode != MBS_PLANAR_AUTO && mode != MBS_PLANAR_OFF)
        return mbs_errorf(b->error, MBS_ERR_ARG, "planar: unknown mode %d", (int)mode);
    b->planar = mode;
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_builder_set_planar(mbs_builder *b, mbs_planar_mode mode)
{
    return mbs_builder_note(b, "mbs_builder_set_planar", builder_set_planar_impl(b, mode));
}

/* Whether compile may close loops in closed form (src/loops/analytic/) where it finds assemblies. */
static int builder_set_closure_impl(mbs_builder *b, mbs_closure closure)
{
    if (!b) return MBS_ERR_ARG;
    if (closure != MBS_CLOSURE_NEWTON && closure != MBS_CLOSURE_ANALYTIC)
        return mbs_errorf(b->error, MBS_ERR_ARG, "closure: unknown strategy %d", (int)closure);
    b->closure = closure;
    return MBS_OK;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_builder_set_closure(mbs_builder *b, mbs_closure closure)
{
    return mbs_builder_note(b, "mbs_builder_set_closure", builder_set_closure_impl(b, closure));
}

/* Body definition with mass 1, com 0, inertia diag(1e-3), no name. */
mbs_body_def mbs_default_body_def(void)
{
    mbs_body_def d;
    memset(&d, 0, sizeof d);
    d.name = NULL;
    d.mass = 1.0;
    d.inertia[0] = d.inertia[4] = d.inertia[8] = 1e-3;
    return d;
}

/* Eigenvalues of a symmetric 3x3 matrix by cyclic Jacobi rotations (bounded sweeps). */
static void sym3_eigenvalues(const double A[9], double lam[3])
{
    double a[9];
    memcpy(a, A, sizeof a);
    for (int sweep = 0; sweep < JACOBI_SWEEPS; ++sweep) {
        double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
        double dia = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
        if (off == 0.0 || off <= 1e-32 * dia) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                double apq = a[3 * p + q];
                if (apq == 0.0) continue;
                double th = (a[3 * q + q] - a[3 * p + p]) / (2.0 * apq);
                double t = fabs(th) > 1e150 ? 0.5 / th
                                            : (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) { /* columns p, q of A P */
                    double x = a[3 * k + p], y = a[3 * k + q];
                    a[3 * k + p] = c * x - s * y;
                    a[3 * k + q] = s * x + c * y;
                }
                for (int k = 0; k < 3; ++k) { /* rows p, q of P^T (A P) */
                    double x = a[3 * p + k], y = a[3 * q + k];
                    a[3 * p + k] = c * x - s * y;
                    a[3 * q + k] = s * x + c * y;
                }
            }
    }
    lam[0] = a[0];
    lam[1] = a[4];
    lam[2] = a[8];
}

/* The largest magnitude in row k of a 3x3 matrix. */
static double row_scale(const double A[9], int k)
{
    return fmax(fabs(A[3 * k]), fmax(fabs(A[3 * k + 1]), fabs(A[3 * k + 2])));
}

/* Validate mass and inertia of a body definition; sym receives the symmetrised inertia. */
static int check_mass_inertia(char *err, const mbs_body_def *d, const char *lbl, double sym[9])
{
    if (!(d->mass >= 0.0))
        return mbs_errorf(err, MBS_ERR_ARG, "body %s: mass is negative (%g)", lbl, d->mass);
    double scale = 0.0, asym = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            scale = fmax(scale, fabs(d->inertia[3 * i + j]));
            asym = fmax(asym, fabs(d->inertia[3 * i + j] - d->inertia[3 * j + i]));
            sym[3 * i + j] = 0.5 * (d->inertia[3 * i + j] + d->inertia[3 * j + i]);
        }
    if (asym > SYM_TOL * scale)
        return mbs_errorf(err, MBS_ERR_ARG, "body %s: inertia is not symmetric", lbl);
    if (d->mass == 0.0 && scale > 0.0)
        return mbs_errorf(err, MBS_ERR_ARG,
                          "body %s: mass is 0 but inertia is not zero (non-physical)", lbl);
    for (int k = 0; k < 3; ++k) /* before the eigenvalues, whose rounding is the largest's */
        if (sym[4 * k] < -DIAG_ROUND * row_scale(sym, k))
            return mbs_errorf(err, MBS_ERR_ARG, "body %s: inertia not positive semi-definite "
                              "(moment %g about the body's %c axis)", lbl, sym[4 * k], "xyz"[k]);
    double lam[3], scaled[9]; /* eigenvalues of sym / scale: no overflow whatever the units */
    for (int i = 0; i < 9; ++i) scaled[i] = scale > 0.0 ? sym[i] / scale : 0.0;
    sym3_eigenvalues(scaled, lam);
    if (!mbs_all_finite(lam, 3))
        return mbs_errorf(err, MBS_ERR_ARG, "body %s: inertia cannot be checked", lbl);
    for (int i = 0; i < 3; ++i) lam[i] *= scale;
    double tol = EIG_TOL * (fabs(lam[0]) + fabs(lam[1]) + fabs(lam[2]));
    for (int i = 0; i < 3; ++i)
        if (lam[i] < -tol)
            return mbs_errorf(err, MBS_ERR_ARG,
                              "body %s: inertia not positive semi-definite (principal moment %g)",
                              lbl, lam[i]);
    for (int i = 0; i < 3; ++i)
        if (lam[i] > lam[(i + 1) % 3] + lam[(i + 2) % 3] + tol)
            return mbs_errorf(err, MBS_ERR_ARG,
                              "body %s: principal moments (%g, %g, %g) violate the triangle "
                              "inequality", lbl, lam[0], lam[1], lam[2]);
    return MBS_OK;
}

/* See builder.h: the checks of mbs_add_body, messages into err (MBS_ERROR_LEN bytes). */
int mbs_body_def_check(char *err, const mbs_body_def *def, const char *lbl, double sym[9])
{
    if (!(fabs(def->mass) <= MBS_MAX_VALUE))
        return mbs_errorf(err, MBS_ERR_ARG, "body %s: mass is not finite or beyond 1e100 in magnitude", lbl);
    if (!mbs_all_bounded(def->com, 3))
        return mbs_errorf(err, MBS_ERR_ARG, "body %s: com is not finite or beyond 1e100 in magnitude", lbl);
    if (!mbs_all_bounded(def->inertia, 9))
        return mbs_errorf(err, MBS_ERR_ARG, "body %s: inertia is not finite or beyond 1e100 in magnitude", lbl);
    return check_mass_inertia(err, def, lbl, sym);
}

/* Add a body; returns its id (>= 1) or a negative status. */
static int add_body_impl(mbs_builder *b, const mbs_body_def *def)
{
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_body: def is NULL");
    int id = b->nbody + 1;
    char lbl[96];
    elem_label(def->name, id, lbl, sizeof lbl);
    double sym[9];
    int st = mbs_body_def_check(b->error, def, lbl, sym);
    if (st != MBS_OK) return st;
    if (mbs_builder_grow((void **)&b->bodies, &b->body_cap, b->nbody + 1, sizeof *b->bodies) != 0)
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "body %s: out of memory", lbl);
    char *name = mbs_strdup_name(def->name);
    if (!name) return mbs_errorf(b->error, MBS_ERR_NOMEM, "body %s: out of memory", lbl);
    mbs_body_def *slot = &b->bodies[b->nbody];
    *slot = *def;
    slot->name = name;
    memcpy(slot->inertia, sym, sizeof sym);
    b->nbody++;
    return id;
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_body(mbs_builder *b, const mbs_body_def *def)
{
    return mbs_builder_note(b, "mbs_add_body", add_body_impl(b, def));
}

/* Joint definition of a type: identity frames, axis (0,0,1), axis2 (1,0,0), quaternion,
   length 0, not cut, priority 0, no name, parent and child the world. */
mbs_joint_def mbs_default_joint_def(mbs_joint_type type)
{
    mbs_joint_def d;
    memset(&d, 0, sizeof d);
    d.name = NULL;
    d.type = type;
    d.parent = d.child = MBS_WORLD;
    m3_identity(d.frame_parent.rot);
    m3_identity(d.frame_child.rot);
    v3_set(d.axis, 0.0, 0.0, 1.0);
    v3_set(d.axis2, 1.0, 0.0, 0.0);
    d.rotation = MBS_ROT_QUATERNION;
    return d;
}

/* 0 if R is orthonormal with det +1, 1 if not orthonormal, 2 if a reflection. */
int mbs_rot_check(const double R[9])
{
    double RRt[9];
    m3_mult(RRt, R, R);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (fabs(RRt[3 * i + j] - (i == j ? 1.0 : 0.0)) > ROT_TOL) return 1;
    double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                 R[2] * (R[3] * R[7] - R[4] * R[6]);
    return det > 0.0 ? 0 : 2;
}

/* Validate a joint frame (finite, rotation orthonormal with det +1). */
static int check_frame(mbs_builder *b, const mbs_frame *f, const char *which, const char *lbl)
{
    if (!mbs_all_bounded(f->pos, 3) || !mbs_all_bounded(f->rot, 9))
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: %s is not finite or beyond 1e100 in magnitude", lbl, which);
    int r = mbs_rot_check(f->rot);
    if (r == 1)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: %s rotation is not orthonormal", lbl,
                          which);
    if (r == 2)
        return mbs_errorf(b->error, MBS_ERR_ARG,
                          "joint %s: %s rotation has determinant -1 (a reflection)", lbl, which);
    return MBS_OK;
}

/* Whether a joint type uses axis / axis2. */
static int uses_axis(mbs_joint_type t)
{
    return t == MBS_JOINT_REVOLUTE || t == MBS_JOINT_PRISMATIC || t == MBS_JOINT_CYLINDRICAL ||
           t == MBS_JOINT_UNIVERSAL || t == MBS_JOINT_PLANAR;
}
static int uses_axis2(mbs_joint_type t) { return t == MBS_JOINT_UNIVERSAL || t == MBS_JOINT_PLANAR; }

/* Unit copy of a (or the fallback when a is zero and unused). */
static void unit_or(double out[3], const double a[3], double fx, double fy, double fz)
{
    double n = v3_norm(a);
    if (n >= AXIS_MIN)
        v3_scale(out, a, 1.0 / n);
    else
        v3_set(out, fx, fy, fz);
}

/* Validate and normalise axis and axis2 of a joint into out (planar: axis2 made orthogonal to
   axis by Gram-Schmidt). */
static int check_axes(mbs_builder *b, const mbs_joint_def *d, const char *lbl, mbs_joint_def *out)
{
    if (!mbs_all_bounded(d->axis, 3))
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: axis is not finite or beyond 1e100 in magnitude", lbl);
    if (!mbs_all_bounded(d->axis2, 3))
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: axis2 is not finite or beyond 1e100 in magnitude", lbl);
    if (uses_axis(d->type) && v3_norm(d->axis) < AXIS_MIN)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: axis is zero", lbl);
    if (uses_axis2(d->type) && v3_norm(d->axis2) < AXIS_MIN)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: axis2 is zero", lbl);
    double a[3], a2[3], c[3];
    unit_or(a, d->axis, 0.0, 0.0, 1.0);
    unit_or(a2, d->axis2, 1.0, 0.0, 0.0);
    v3_cross(c, a, a2);
    if (uses_axis2(d->type) && v3_norm(c) < PARALLEL_TOL)
        return mbs_errorf(b->error, MBS_ERR_ARG,
                          d->type == MBS_JOINT_UNIVERSAL ? "joint %s: universal axes are parallel"
                                                         : "joint %s: planar axis2 is parallel to "
                                                           "the plane normal axis",
                          lbl);
    if (d->type == MBS_JOINT_PLANAR) {
        v3_axpy(a2, -v3_dot(a2, a), a);
        v3_scale(a2, a2, 1.0 / v3_norm(a2));
    }
    v3_copy(out->axis, a);
    v3_copy(out->axis2, a2);
    return MBS_OK;
}

/* Validate type, rotation, bodies and the distance length of a joint definition (a curve
   joint only through mbs_add_curve_joint, which passes curve 1). */
static int check_joint_kind(mbs_builder *b, const mbs_joint_def *d, const char *lbl, int curve)
{
    if (d->type == MBS_JOINT_CURVE && !curve)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: a curve joint is added by "
                          "mbs_add_curve_joint", lbl);
    if ((int)d->type < (int)MBS_JOINT_REVOLUTE || (int)d->type > (int)MBS_JOINT_CURVE)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: unknown joint type %d", lbl,
                          (int)d->type);
    if (d->rotation != MBS_ROT_QUATERNION && d->rotation != MBS_ROT_CARDAN)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: unknown rotation option %d", lbl,
                          (int)d->rotation);
    if (d->parent < 0 || d->parent > b->nbody)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: parent body %d does not exist", lbl,
                          d->parent);
    if (d->child < 0 || d->child > b->nbody)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: child body %d does not exist", lbl,
                          d->child);
    if (d->parent == d->child)
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: connects body %d to itself", lbl,
                          d->child);
    if (!(fabs(d->length) <= MBS_MAX_VALUE))
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: length is not finite or beyond 1e100 in magnitude", lbl);
    if (d->type == MBS_JOINT_DISTANCE && !(d->length > 0.0))
        return mbs_errorf(b->error, MBS_ERR_ARG, "joint %s: distance length must be > 0 (got %g)",
                          lbl, d->length);
    return MBS_OK;
}

/* Add a joint; returns its id (>= 0) or a negative status. Axes are stored normalised; a
   planar axis2 is made orthogonal to the normal (Gram-Schmidt); a distance joint is always a
   cut joint. */
static int add_joint_impl(mbs_builder *b, const mbs_joint_def *def)
{
    if (!b) return MBS_ERR_ARG;
    if (!def) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_joint: def is NULL");
    return mbs_builder_push_joint(b, def, 0);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_joint(mbs_builder *b, const mbs_joint_def *def)
{
    return mbs_builder_note(b, "mbs_add_joint", add_joint_impl(b, def));
}

/* See builder.h. */
int mbs_builder_push_joint(mbs_builder *b, const mbs_joint_def *def, int curve)
{
    int id = b->njoint;
    char lbl[96];
    elem_label(def->name, id, lbl, sizeof lbl);
    mbs_joint_def j = *def;
    int st = check_joint_kind(b, def, lbl, curve);
    if (st == MBS_OK) st = check_frame(b, &def->frame_parent, "frame_parent", lbl);
    if (st == MBS_OK) st = check_frame(b, &def->frame_child, "frame_child", lbl);
    if (st == MBS_OK) st = check_axes(b, def, lbl, &j);
    if (st != MBS_OK) return st;
    j.cut = (def->cut != 0 || def->type == MBS_JOINT_DISTANCE || curve) ? 1 : 0;
    if (mbs_builder_grow((void **)&b->joints, &b->joint_cap, b->njoint + 1, sizeof *b->joints) != 0)
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "joint %s: out of memory", lbl);
    char *name = mbs_strdup_name(def->name);
    if (!name) return mbs_errorf(b->error, MBS_ERR_NOMEM, "joint %s: out of memory", lbl);
    j.name = name;
    b->joints[b->njoint++] = j;
    return id;
}

/* Append a force element (copied; the builder owns f->name once this succeeds, the caller
   keeps it on failure). Returns the element id or a negative status. */
int mbs_builder_push_force(mbs_builder *b, const mbs_force_model *f)
{
    if (!b) return MBS_ERR_ARG;
    if (!f) return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_builder_push_force: element is NULL");
    if (mbs_builder_grow((void **)&b->forces, &b->force_cap, b->nforce + 1, sizeof *b->forces) != 0) {
        char lbl[96];
        elem_label(f->name, b->nforce, lbl, sizeof lbl);
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "force element %s: out of memory", lbl);
    }
    b->forces[b->nforce] = *f;
    return b->nforce++;
}
