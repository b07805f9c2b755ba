// SDFormat files into an mbs builder (mbs_sdf.h): libsdformat parses and checks the file and
// resolves every pose in the model frame; this shim turns links into bodies and joints into
// joints through the public C API, a joint closing a loop into a cut joint.
#include "mbs_sdf.h"

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include <sdf/Console.hh>
#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Link.hh>
#include <sdf/Model.hh>
#include <sdf/ParserConfig.hh>
#include <sdf/Root.hh>
#include <sdf/World.hh>

namespace {

using ignition::math::Matrix3d;
using ignition::math::Pose3d;
using ignition::math::Vector3d;

// A rigid transform x_A = R x_B + p (composed by hand: ignition-math 6's Pose3d product
// applies its right operand first, a trap this file keeps away from).
struct Tf {
    Matrix3d R = Matrix3d::Identity;
    Vector3d p = Vector3d::Zero;
    Tf() = default;
    explicit Tf(const Pose3d &X) : R(X.Rot()), p(X.Pos()) {}
    Tf operator*(const Tf &B) const { Tf t; t.R = R * B.R; t.p = R * B.p + p; return t; }
};

struct Ctx {
    mbs_builder *b;
    const char *path;
    const mbs_load_options *opt;
    char *err;
    size_t len;
    Tf X_WM;                          // the model in the world (identity for a <model> file)
    std::vector<std::string> names;   // link names; body id = index + 1
    std::vector<Tf> X_WL;             // link frames in the world
    std::vector<int> up;              // union-find over bodies, index 0 the world
};

int fail(Ctx &c, int status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    std::snprintf(c.err, c.len, "%s: %s", c.path, msg);
    return status;
}

void warn(Ctx &c, const std::string &what)
{
    if (c.opt && c.opt->warning) c.opt->warning(c.opt->user, (std::string(c.path) + ": " + what).c_str());
}

// libsdformat's errors, all of them, as the message.
int fail_errors(Ctx &c, const sdf::Errors &errs, const std::string &where)
{
    std::string all;
    for (const auto &e : errs) {
        std::string m = e.Message();
        while (!m.empty() && std::isspace((unsigned char)m.back())) m.pop_back();
        all += (all.empty() ? "" : "; ") + m;
    }
    return fail(c, MBS_ERR_ARG, "%s: %s", where.c_str(), all.c_str());
}

// B in the coordinates of A (A^-1 B) as an mbs_frame.
mbs_frame relative(const Tf &A, const Tf &B)
{
    mbs_frame f;
    const Matrix3d At = A.R.Transposed();
    const Matrix3d R = At * B.R;
    const Vector3d p = At * (B.p - A.p);
    for (int i = 0; i < 3; ++i) {
        f.pos[i] = p[i];
        for (int j = 0; j < 3; ++j) f.rot[3 * i + j] = R(i, j);
    }
    return f;
}

// A pose resolved in the model frame, placed in the world.
int resolve(Ctx &c, const sdf::SemanticPose &sp, const std::string &what, Tf &X_W)
{
    Pose3d X_M;
    const sdf::Errors errs = sp.Resolve(X_M, "__model__");
    if (!errs.empty()) return fail_errors(c, errs, what);
    X_W = c.X_WM * Tf(X_M);
    return MBS_OK;
}

// The body of a link (its <inertial>: mass, centre of mass and inertia about it in link axes).
int add_link(Ctx &c, const sdf::Link &l)
{
    Tf X_WL;
    int st = resolve(c, l.SemanticPose(), "<link name=\"" + l.Name() + "\">", X_WL);
    if (st != MBS_OK) return st;
    const ignition::math::Inertiald &in = l.Inertial();
    const Tf X_LC(in.Pose());
    const Matrix3d I = X_LC.R * in.MassMatrix().Moi() * X_LC.R.Transposed();
    const std::string name = l.Name(); // a copy: sdf::Link::Name returns by value
    mbs_body_def d = mbs_default_body_def();
    d.name = name.c_str();
    d.mass = in.MassMatrix().Mass();
    for (int i = 0; i < 3; ++i) {
        d.com[i] = X_LC.p[i];
        for (int j = 0; j < 3; ++j) d.inertia[3 * i + j] = I(i, j);
    }
    const int id = mbs_add_body(c.b, &d);
    if (id < 0) return fail(c, id, "<link name=\"%s\">: %s", d.name, mbs_builder_error(c.b));
    c.names.push_back(name);
    c.X_WL.push_back(X_WL);
    c.up.push_back((int)c.up.size());
    return MBS_OK;
}

int find_set(Ctx &c, int k)
{
    while (c.up[(size_t)k] != k) k = c.up[(size_t)k] = c.up[(size_t)c.up[(size_t)k]];
    return k;
}

// The body id of a link name ("world": MBS_WORLD), or -1.
int body_of(const Ctx &c, const std::string &name)
{
    if (name == "world") return MBS_WORLD;
    for (size_t k = 0; k < c.names.size(); ++k)
        if (c.names[k] == name) return (int)k + 1;
    return -1;
}

// The mbs type of an SDFormat joint type; 0 when mbs has none.
int joint_type(sdf::JointType t, mbs_joint_type *out)
{
    switch (t) {
    case sdf::JointType::REVOLUTE: case sdf::JointType::CONTINUOUS: *out = MBS_JOINT_REVOLUTE; return 1;
    case sdf::JointType::PRISMATIC: *out = MBS_JOINT_PRISMATIC; return 1;
    case sdf::JointType::FIXED: *out = MBS_JOINT_FIXED; return 1;
    case sdf::JointType::BALL: *out = MBS_JOINT_SPHERICAL; return 1;
    case sdf::JointType::UNIVERSAL: *out = MBS_JOINT_UNIVERSAL; return 1;
    default: return 0;
    }
}

// Axis k of a joint in the joint frame's coordinates; a warning for what is not read.
int joint_axis(Ctx &c, const sdf::Joint &j, unsigned k, const Tf &X_WJ, double out[3])
{
    const sdf::JointAxis *a = j.Axis(k);
    if (!a) return MBS_OK; // ball and fixed joints have none
    Vector3d xyz;
    const sdf::Errors errs = a->ResolveXyz(xyz, "__model__");
    if (!errs.empty()) return fail_errors(c, errs, "<joint name=\"" + j.Name() + "\"> <axis>");
    const Vector3d v = X_WJ.R.Transposed() * (c.X_WM.R * xyz);
    for (int i = 0; i < 3; ++i) out[i] = v[i];
    if (a->Damping() != 0.0 || a->Friction() != 0.0 || a->SpringStiffness() != 0.0)
        warn(c, "<joint name=\"" + j.Name() + "\">: <dynamics> not read (no joint damping, friction or spring)");
    return MBS_OK;
}

// A joint with its frame on both bodies; a cut joint when its bodies are already connected.
int add_joint(Ctx &c, const sdf::Joint &j)
{
    const std::string where = "<joint name=\"" + j.Name() + "\">";
    mbs_joint_type type;
    if (!joint_type(j.Type(), &type))
        return fail(c, MBS_ERR_ARG, "%s: a joint type mbs does not have (revolute, continuous, "
                    "prismatic, fixed, ball, universal)", where.c_str());
    std::string parent, child;
    sdf::Errors errs = j.ResolveParentLink(parent);
    if (errs.empty()) errs = j.ResolveChildLink(child);
    if (!errs.empty()) return fail_errors(c, errs, where);
    mbs_joint_def d = mbs_default_joint_def(type);
    d.name = j.Name().c_str();
    d.parent = body_of(c, parent), d.child = body_of(c, child);
    if (d.parent < 0 || d.child < 0)
        return fail(c, MBS_ERR_ARG, "%s: link \"%s\" is not in the model", where.c_str(),
                    (d.parent < 0 ? parent : child).c_str());
    Tf X_WJ;
    int st = resolve(c, j.SemanticPose(), where, X_WJ);
    if (st == MBS_OK) st = joint_axis(c, j, 0, X_WJ, d.axis);
    if (st == MBS_OK && type == MBS_JOINT_UNIVERSAL) st = joint_axis(c, j, 1, X_WJ, d.axis2);
    if (st != MBS_OK) return st;
    const Tf world;
    d.frame_parent = relative(d.parent == MBS_WORLD ? world : c.X_WL[(size_t)d.parent - 1], X_WJ);
    d.frame_child = relative(d.child == MBS_WORLD ? world : c.X_WL[(size_t)d.child - 1], X_WJ);
    const int a = find_set(c, d.parent), b = find_set(c, d.child);
    d.cut = a == b; // the joints before it connect the two: this one closes a loop
    c.up[(size_t)a] = b;
    const int id = mbs_add_joint(c.b, &d);
    return id < 0 ? fail(c, id, "%s: %s", where.c_str(), mbs_builder_error(c.b)) : MBS_OK;
}

int add_model(Ctx &c, const sdf::Model &m)
{
    if (m.Static())
        return fail(c, MBS_ERR_ARG, "<model name=\"%s\">: a static model (nothing moves)", m.Name().c_str());
    if (m.ModelCount() > 0)
        return fail(c, MBS_ERR_ARG, "<model name=\"%s\">: nested models are not read", m.Name().c_str());
    c.up.assign(1, 0);
    int st = MBS_OK;
    for (uint64_t k = 0; st == MBS_OK && k < m.LinkCount(); ++k) st = add_link(c, *m.LinkByIndex(k));
    for (uint64_t k = 0; st == MBS_OK && k < m.JointCount(); ++k) st = add_joint(c, *m.JointByIndex(k));
    return st;
}

// The one model of a <world>, placed by its pose; the world's gravity.
int add_world(Ctx &c, const sdf::World &w)
{
    if (w.ModelCount() != 1)
        return fail(c, MBS_ERR_ARG, "<world name=\"%s\">: %llu models (one is read)", w.Name().c_str(),
                    (unsigned long long)w.ModelCount());
    const sdf::Model &m = *w.ModelByIndex(0);
    Pose3d X_WM;
    const sdf::Errors errs = m.SemanticPose().Resolve(X_WM, "world");
    if (!errs.empty()) return fail_errors(c, errs, "<model name=\"" + m.Name() + "\">");
    c.X_WM = Tf(X_WM);
    const Vector3d g = w.Gravity();
    const double gv[3] = {g[0], g[1], g[2]};
    const int st = mbs_builder_set_gravity(c.b, gv);
    return st != MBS_OK ? fail(c, st, "<world>: %s", mbs_builder_error(c.b)) : add_model(c, m);
}

}  // namespace

int mbs_sdf_load(mbs_builder *b, const char *path, const mbs_load_options *opt, char *err, size_t len)
{
    if (!b || !path || !err || len == 0) return MBS_ERR_ARG;
    Ctx c{b, path, opt, err, len, Tf(), {}, {}, {}};
    // libsdformat's own console lines go nowhere: its errors come back in err (this silences
    // its console for the whole process)
    sdf::Console::Instance()->SetQuiet(true);
    sdf::ParserConfig config;
    // anything libsdformat does not know is refused, not skipped: a typo would change the model
    config.SetUnrecognizedElementsPolicy(sdf::EnforcementPolicy::ERR);
    config.SetWarningsPolicy(sdf::EnforcementPolicy::ERR);
    sdf::Root root;
    try {
        const sdf::Errors errs = root.Load(path, config);
        if (!errs.empty()) return fail_errors(c, errs, "libsdformat");
        if (root.Model()) return add_model(c, *root.Model());
        if (root.WorldCount() == 1) return add_world(c, *root.WorldByIndex(0));
        return fail(c, MBS_ERR_ARG, "no <model> and not one <world> (%llu)",
                    (unsigned long long)root.WorldCount());
    } catch (const std::exception &e) {
        return fail(c, MBS_ERR_ARG, "libsdformat: %s", e.what());
    }
}
