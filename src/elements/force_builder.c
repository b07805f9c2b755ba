/* Builder calls that add force elements: validate on entry, then append an mbs_force_model
 * with the element kind's ops table. A rejected call leaves the builder unchanged. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>

#include "elements/force_builder.h"
#include "core/internal.h"

/* "\"name\"" of the element about to be added, or "#id" (its future id) when unnamed. */
const char *mbs_force_label(const mbs_builder *b, const char *name, char *buf, int len)
{
    if (name && name[0]) snprintf(buf, (size_t)len, "\"%s\"", name);
    else snprintf(buf, (size_t)len, "#%d", b->nforce);
    return buf;
}

/* See force_builder.h. */
mbs_force_model mbs_force_unattached(const mbs_force_ops *ops)
{
    mbs_force_model f = {0};
    f.ops = ops;
    f.body_a = f.body_b = -1;
    f.joint = f.dof = f.vindex = f.qindex = -1;
    return f;
}

/* Append f (its name still to be copied from name); returns the element id or a status. */
int mbs_force_push(mbs_builder *b, mbs_force_model *f, const char *name, const char *kind,
                   const char *label)
{
    f->name = mbs_strdup_name(name);
    if (!f->name)
        return mbs_errorf(b->error, MBS_ERR_NOMEM, "%s %s: out of memory", kind, label);
    const int id = mbs_builder_push_force(b, f);
    if (id < 0) {
        free(f->name);
        f->name = NULL;
        return mbs_errorf(b->error, id, "%s %s: out of memory", kind, label);
    }
    return id;
}

/* No name, both ends at the world origin, all coefficients 0. */
mbs_spring_damper_def mbs_default_spring_damper_def(void)
{
    mbs_spring_damper_def def = {0};
    def.name = NULL;
    def.body_a = MBS_WORLD;
    def.body_b = MBS_WORLD;
    def.mass = 0.0;
    def.mass_fraction = 0.5;
    return def;
}

/* Validate the bodies and points of a line element of the given kind. */
int mbs_line_points_check(mbs_builder *b, const char *kind, const char *label, int body_a,
                          int body_b, const double point_a[3], const double point_b[3])
{
    if (body_a < 0 || body_a > b->nbody)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s %s: unknown body_a %d", kind, label, body_a);
    if (body_b < 0 || body_b > b->nbody)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s %s: unknown body_b %d", kind, label, body_b);
    if (!mbs_all_bounded(point_a, 3) || !mbs_all_bounded(point_b, 3))
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s %s: non-finite attachment point", kind,
                          label);
    if (body_a == body_b && point_a[0] == point_b[0] && point_a[1] == point_b[1] &&
        point_a[2] == point_b[2])
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s %s: both ends at the same point of body %d",
                          kind, label, body_a);
    return MBS_OK;
}

/* See force_builder.h: finite, bounded and >= 0, else the message in err. */
int mbs_coefficient_check(char *err, const char *kind, const char *label, const char *what,
                          double value)
{
    if (!(fabs(value) <= MBS_MAX_VALUE))
        return mbs_errorf(err, MBS_ERR_ARG, "%s %s: %s is not finite or beyond 1e100 in magnitude", kind, label, what);
    if (value < 0.0)
        return mbs_errorf(err, MBS_ERR_ARG, "%s %s: %s must be >= 0 (got %g)", kind, label,
                          what, value);
    return MBS_OK;
}

/* Validate a coefficient that must be finite and >= 0. */
static int check_coefficient(mbs_builder *b, const char *kind, const char *label,
                             const char *what, double value)
{
    return mbs_coefficient_check(b->error, kind, label, what, value);
}

/* Line spring-damper between two body points (spring_damper.c); returns its id. */
static int add_spring_damper_impl(mbs_builder *b, const mbs_spring_damper_def *def)
{
    char label[LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    if (!def)
        return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_spring_damper: def is NULL");
    mbs_force_label(b, def->name, label, LABEL_LEN);
    int rc = mbs_line_points_check(b, "spring-damper", label, def->body_a, def->body_b,
                                   def->point_a, def->point_b);
    if (rc == MBS_OK) rc = check_coefficient(b, "spring-damper", label, "stiffness", def->stiffness);
    if (rc == MBS_OK) rc = check_coefficient(b, "spring-damper", label, "damping", def->damping);
    if (rc == MBS_OK)
        rc = check_coefficient(b, "spring-damper", label, "rest_length", def->rest_length);
    if (rc == MBS_OK) rc = check_coefficient(b, "spring-damper", label, "mass", def->mass);
    if (rc == MBS_OK && !(def->mass_fraction >= 0.0 && def->mass_fraction <= 1.0))
        rc = mbs_errorf(b->error, MBS_ERR_ARG, "spring-damper %s: mass_fraction must be in "
                        "[0, 1] (got %g)", label, def->mass_fraction);
    if (rc != MBS_OK) return rc;

    mbs_force_model f = {0};
    f.ops = &mbs_force_spring_damper_ops;
    f.body_a = def->body_a;
    f.body_b = def->body_b;
    v3_copy(f.point_a, def->point_a);
    v3_copy(f.point_b, def->point_b);
    f.stiffness = def->stiffness;
    f.damping = def->damping;
    f.rest = def->rest_length;
    f.mass = def->mass;
    f.fraction = def->mass_fraction;
    f.joint = f.dof = f.vindex = f.qindex = -1;
    return mbs_force_push(b, &f, def->name, "spring-damper", label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_spring_damper(mbs_builder *b, const mbs_spring_damper_def *def)
{
    return mbs_builder_note(b, "mbs_add_spring_damper", add_spring_damper_impl(b, def));
}

/* No name, both ends at the world origin, all coefficients, masses and distances 0. */
mbs_line_force_two_masses_def mbs_default_line_force_two_masses_def(void)
{
    mbs_line_force_two_masses_def def = {0};
    def.body_a = def.body_b = MBS_WORLD;
    return def;
}

/* Line spring-damper with two point masses (spring_damper.c, couplings); returns its id. */
static int add_line_force_two_masses_impl(mbs_builder *b, const mbs_line_force_two_masses_def *def)
{
    char label[LABEL_LEN];
    static const char *kind = "line force with two masses";
    if (!b) return MBS_ERR_ARG;
    if (!def)
        return mbs_errorf(b->error, MBS_ERR_ARG, "mbs_add_line_force_two_masses: def is NULL");
    mbs_force_label(b, def->name, label, LABEL_LEN);
    int rc = mbs_line_points_check(b, kind, label, def->body_a, def->body_b, def->point_a,
                                   def->point_b);
    const char *what[] = {"stiffness", "damping", "rest_length", "mass_a", "distance_a",
                          "mass_b", "distance_b"};
    const double val[] = {def->stiffness, def->damping, def->rest_length, def->mass_a,
                          def->distance_a, def->mass_b, def->distance_b};
    for (int i = 0; i < 7 && rc == MBS_OK; ++i)
        rc = check_coefficient(b, kind, label, what[i], val[i]);
    if (rc != MBS_OK) return rc;
    mbs_force_model f = {0};
    f.ops = &mbs_force_two_masses_ops;
    f.body_a = def->body_a;
    f.body_b = def->body_b;
    v3_copy(f.point_a, def->point_a);
    v3_copy(f.point_b, def->point_b);
    f.stiffness = def->stiffness;
    f.damping = def->damping;
    f.rest = def->rest_length;
    f.mass = def->mass_a, f.dist_a = def->distance_a;
    f.mass_b = def->mass_b, f.dist_b = def->distance_b;
    f.two = 1;
    f.joint = f.dof = f.vindex = f.qindex = -1;
    return mbs_force_push(b, &f, def->name, kind, label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_line_force_two_masses(mbs_builder *b, const mbs_line_force_two_masses_def *def)
{
    return mbs_builder_note(b, "mbs_add_line_force_two_masses", add_line_force_two_masses_impl(b, def));
}

/* Label "#id on joint \"name\"" of a joint element about to be added, after checking the
   joint id and that dof is not negative (compile checks its range). */
static int check_joint_dof(mbs_builder *b, const char *kind, int joint, int dof, char *label)
{
    snprintf(label, LABEL_LEN, "#%d", b->nforce);
    if (joint < 0 || joint >= b->njoint)
        return mbs_errorf(b->error, MBS_ERR_ARG, "%s %s: unknown joint %d", kind, label, joint);
    const char *jname = b->joints[joint].name;
    if (jname && jname[0]) snprintf(label, LABEL_LEN, "#%d on joint \"%s\"", b->nforce, jname);
    else snprintf(label, LABEL_LEN, "#%d on joint %d", b->nforce, joint);
    if (dof < 0) return mbs_errorf(b->error, MBS_ERR_ARG, "%s %s: dof %d is negative", kind, label, dof);
    return MBS_OK;
}

/* See force_builder.h. */
mbs_force_model mbs_force_joint_element(const mbs_force_ops *ops, int joint, int dof)
{
    mbs_force_model f = {0};
    f.ops = ops;
    f.body_a = f.body_b = -1;
    f.joint = joint;
    f.dof = dof;
    f.vindex = f.qindex = f.slot = -1; /* compile sets them from the joint's qadr/vadr */
    return f;
}

/* Spring-damper on one dof of a joint (joint_spring_damper.c); compile checks the joint
   type and the dof range and sets the q and v indices. Returns its id. */
static int add_joint_spring_damper_impl(mbs_builder *b, int joint, int dof, double stiffness,
                                        double damping, double rest_position)
{
    char label[LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    int rc = check_joint_dof(b, "joint spring-damper", joint, dof, label);
    if (rc == MBS_OK) rc = check_coefficient(b, "joint spring-damper", label, "stiffness", stiffness);
    if (rc == MBS_OK) rc = check_coefficient(b, "joint spring-damper", label, "damping", damping);
    if (rc == MBS_OK && !(fabs(rest_position) <= MBS_MAX_VALUE))
        rc = mbs_errorf(b->error, MBS_ERR_ARG, "joint spring-damper %s: rest position is not finite or beyond 1e100 in magnitude",
                        label);
    if (rc != MBS_OK) return rc;
    mbs_force_model f = mbs_force_joint_element(&mbs_force_joint_spring_damper_ops, joint, dof);
    f.stiffness = stiffness;
    f.damping = damping;
    f.rest = rest_position;
    f.joint = joint;
    f.dof = dof;
    f.vindex = f.qindex = -1; /* set by compile from the joint's qadr/vadr */
    return mbs_force_push(b, &f, NULL, "joint spring-damper", label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_joint_spring_damper(mbs_builder *b, int joint, int dof, double stiffness,
                                double damping, double rest_position)
{
    return mbs_builder_note(b, "mbs_add_joint_spring_damper", add_joint_spring_damper_impl(b, joint, dof, stiffness, damping, rest_position));
}

/* Constant generalized force on one dof of a joint (joint_force.c); compile checks that the
   joint is a tree joint and the dof range. Returns its id. */
static int add_joint_force_impl(mbs_builder *b, int joint, int dof, double force)
{
    char label[LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    int rc = check_joint_dof(b, "joint force", joint, dof, label);
    if (rc == MBS_OK && !(fabs(force) <= MBS_MAX_VALUE))
        rc = mbs_errorf(b->error, MBS_ERR_ARG, "joint force %s: force is not finite or beyond "
                        "1e100 in magnitude", label);
    if (rc != MBS_OK) return rc;
    mbs_force_model f = mbs_force_joint_element(&mbs_force_joint_force_ops, joint, dof);
    f.force = force;
    return mbs_force_push(b, &f, NULL, "joint force", label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_joint_force(mbs_builder *b, int joint, int dof, double force)
{
    return mbs_builder_note(b, "mbs_add_joint_force", add_joint_force_impl(b, joint, dof, force));
}

/* User force law (callback.c); name is copied and may be NULL. Returns its id. */
static int add_force_callback_impl(mbs_builder *b, const char *name, mbs_force_callback fn, void *user)
{
    char label[LABEL_LEN];
    if (!b) return MBS_ERR_ARG;
    mbs_force_label(b, name, label, LABEL_LEN);
    if (!fn)
        return mbs_errorf(b->error, MBS_ERR_ARG, "force callback %s: function is NULL", label);
    mbs_force_model f = mbs_force_unattached(&mbs_force_callback_ops);
    f.fn = fn;
    f.user = user;
    return mbs_force_push(b, &f, name, "force callback", label);
}

/* The call above; a failure becomes the builder's first failure if it has none. */
int mbs_add_force_callback(mbs_builder *b, const char *name, mbs_force_callback fn, void *user)
{
    return mbs_builder_note(b, "mbs_add_force_callback", add_force_callback_impl(b, name, fn, user));
}
