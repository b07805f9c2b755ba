"""Builder, Model, Data and Stepper: the C lifecycle with the C names, numpy views of the
state arrays (q, v, tau writable; qacc, lam read-only), and exceptions for statuses."""
import ctypes
import threading

import numpy as np

from . import _lib
from ._lib import lib, c_double_p
from .errors import raise_status

WORLD = 0
JOINT_TYPES = {"revolute": 0, "prismatic": 1, "cylindrical": 2, "universal": 3,
               "spherical": 4, "planar": 5, "free": 6, "fixed": 7, "distance": 8,
               "translational": 9}
ROTATIONS = {"quaternion": 0, "cardan": 1}
CLOSURES = {"newton": 0, "analytic": 1}
# mbs-sim's names (--stepper adams, bdf) and the C ones (MBS_STEP_CVODE_ADAMS, ...)
STEPPERS = {"euler": 0, "rk4": 1, "adams": 2, "bdf": 3, "cvode_adams": 2, "cvode_bdf": 3}


def choice(table, name, what):
    """The C value of a name of table; ArgError naming the valid choices for any other."""
    try:
        return table[name]
    except (KeyError, TypeError):
        from .errors import ArgError
        raise ArgError(-1, "MBS_ERR_ARG",
                       f"unknown {what} {name!r} (one of {', '.join(table)})") from None


def status_name(status):
    return lib.mbs_status_name(int(status)).decode()


_local = threading.local()  # per thread: exceptions raised inside force callbacks


def _pending():
    if not hasattr(_local, "pending"):
        _local.pending = []
    return _local.pending


def _check(status, error_text):
    """Return a non-negative status; raise the exception of a negative one (chained to the
    Python exception of a force callback that caused it)."""
    pending = _pending()
    cause = pending.pop() if pending else None
    pending.clear()
    if status < 0:
        try:
            raise_status(status, status_name(status), error_text())
        except Exception as e:
            raise e.with_traceback(None) from cause
    return status


def _vec(x, n, what):
    """A C double array of n values from a sequence (or None for None)."""
    if x is None:
        return None
    a = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    if a.size != n:
        from .errors import ArgError
        raise ArgError(-1, "MBS_ERR_ARG", f"{what}: expected {n} values, got {a.size}")
    return a


def _ptr(a):
    return None if a is None else a.ctypes.data_as(c_double_p)


def _set_array(dst, value, n, what):
    src = _vec(value, n, what)
    for i in range(n):
        dst[i] = float(src[i])


def _set_frame(frame, f):
    """frame from None, a dict {pos, rot} or a (pos, rot) pair; rot 3x3 or 9 values."""
    if f is None:
        return
    pos, rot = (f.get("pos"), f.get("rot")) if isinstance(f, dict) else f
    if pos is not None:
        _set_array(frame.pos, pos, 3, "frame pos")
    if rot is not None:
        _set_array(frame.rot, rot, 9, "frame rot")


class Builder:
    """mbs_builder: add bodies, joints and force elements, then compile()."""

    def __init__(self):
        self._b = lib.mbs_builder_create()
        if not self._b:
            raise MemoryError("mbs_builder_create")
        self._keep = []  # callbacks and their user data must outlive the model

    def __del__(self):
        if getattr(self, "_b", None):
            lib.mbs_builder_destroy(self._b)
            self._b = None

    def _err(self):
        return lib.mbs_builder_error(self._b).decode()

    def clear_error(self):
        """Forget a failed call whose exception was handled: until then compile() raises the
        first failure again ("an earlier call failed: ...")."""
        lib.mbs_builder_clear_error(self._b)

    def _call(self, status):
        return _check(status, self._err)

    def set_gravity(self, g):
        return self._call(lib.mbs_builder_set_gravity(self._b, _ptr(_vec(g, 3, "gravity"))))

    def set_point_gravity(self, center, mu):
        return self._call(lib.mbs_builder_set_point_gravity(
            self._b, _ptr(_vec(center, 3, "center")), float(mu)))

    def set_no_gravity(self):
        return self._call(lib.mbs_builder_set_no_gravity(self._b))

    def set_root_rotation(self, rotation):
        return self._call(lib.mbs_builder_set_root_rotation(self._b, choice(ROTATIONS, rotation, 'rotation')))

    def set_planar(self, on):
        """False keeps a planar model on the 3-D path (MBS_PLANAR_OFF); True: found at compile."""
        return self._call(lib.mbs_builder_set_planar(self._b, 0 if on else 1))

    def set_closure(self, closure):
        """"analytic" (default: loops with an assembly's structure closed in closed form) or
        "newton" (Newton's method for every loop)."""
        return self._call(lib.mbs_builder_set_closure(self._b, choice(CLOSURES, closure, 'closure')))

    def add_body(self, name=None, mass=1.0, com=(0, 0, 0), inertia=None):
        """Body id >= 1; inertia about the COM (3x3 or 9 values, default diag(1e-3))."""
        d = lib.mbs_default_body_def()
        d.name = name.encode() if name else None
        d.mass = float(mass)
        _set_array(d.com, com, 3, "com")
        if inertia is not None:
            _set_array(d.inertia, inertia, 9, "inertia")
        return self._call(lib.mbs_add_body(self._b, ctypes.byref(d)))

    def add_joint(self, type, parent, child, name=None, frame_parent=None, frame_child=None,
                  axis=None, axis2=None, rotation="quaternion", length=0.0, cut=False,
                  state_priority=0):
        """Joint id >= 0. type: 'revolute', 'prismatic', ... (JOINT_TYPES); frames as
        (pos, rot) pairs or dicts."""
        d = lib.mbs_default_joint_def(choice(JOINT_TYPES, type, 'joint type'))
        d.name = name.encode() if name else None
        d.parent, d.child = int(parent), int(child)
        _set_frame(d.frame_parent, frame_parent)
        _set_frame(d.frame_child, frame_child)
        if axis is not None:
            _set_array(d.axis, axis, 3, "axis")
        if axis2 is not None:
            _set_array(d.axis2, axis2, 3, "axis2")
        d.rotation = choice(ROTATIONS, rotation, 'rotation')
        d.length = float(length)
        d.cut = 1 if cut else 0
        d.state_priority = int(state_priority)
        return self._call(lib.mbs_add_joint(self._b, ctypes.byref(d)))

    def add_spring_damper(self, body_a, body_b, point_a=(0, 0, 0), point_b=(0, 0, 0),
                          stiffness=0.0, damping=0.0, rest_length=0.0, name=None, mass=0.0,
                          mass_fraction=0.5):
        """Line spring-damper; mass > 0 puts a point mass on its line at mass_fraction
        of the way from point_a (MSL LineForceWithMass)."""
        d = lib.mbs_default_spring_damper_def()
        d.name = name.encode() if name else None
        d.body_a, d.body_b = int(body_a), int(body_b)
        _set_array(d.point_a, point_a, 3, "point_a")
        _set_array(d.point_b, point_b, 3, "point_b")
        d.stiffness, d.damping, d.rest_length = float(stiffness), float(damping), float(rest_length)
        d.mass, d.mass_fraction = float(mass), float(mass_fraction)
        return self._call(lib.mbs_add_spring_damper(self._b, ctypes.byref(d)))

    def add_line_force_two_masses(self, body_a, body_b, point_a=(0, 0, 0), point_b=(0, 0, 0),
                                  stiffness=0.0, damping=0.0, rest_length=0.0, mass_a=0.0,
                                  distance_a=0.0, mass_b=0.0, distance_b=0.0, name=None):
        """Line spring-damper with point masses at distances from its ends (MSL
        LineForceWithTwoMasses)."""
        d = lib.mbs_default_line_force_two_masses_def()
        d.name = name.encode() if name else None
        d.body_a, d.body_b = int(body_a), int(body_b)
        _set_array(d.point_a, point_a, 3, "point_a")
        _set_array(d.point_b, point_b, 3, "point_b")
        d.stiffness, d.damping, d.rest_length = float(stiffness), float(damping), float(rest_length)
        d.mass_a, d.distance_a = float(mass_a), float(distance_a)
        d.mass_b, d.distance_b = float(mass_b), float(distance_b)
        return self._call(lib.mbs_add_line_force_two_masses(self._b, ctypes.byref(d)))

    def add_rotor(self, joint, inertia, ratio=1.0, housing=0, axis=(0, 0, 1), dof=0, name=None):
        """Rotor of `inertia` about `axis` (housing coordinates) spinning with ratio x the
        rate of joint coordinate `dof` plus the housing's rate about the axis (MSL Rotor1D +
        IdealGear); returns the rotor id."""
        d = lib.mbs_default_rotor_def()
        d.name = name.encode() if name else None
        d.joint, d.dof, d.housing = int(joint), int(dof), int(housing)
        d.inertia, d.ratio = float(inertia), float(ratio)
        _set_array(d.axis, axis, 3, "axis")
        return self._call(lib.mbs_add_rotor(self._b, ctypes.byref(d)))

    def add_joint_spring_damper(self, joint, dof, stiffness, damping=0.0, rest_position=0.0):
        return self._call(lib.mbs_add_joint_spring_damper(
            self._b, int(joint), int(dof), float(stiffness), float(damping), float(rest_position)))

    def add_joint_force(self, joint, dof, force):
        """A constant generalized force on one dof of a joint (a drive); its element id."""
        return self._call(lib.mbs_add_joint_force(self._b, int(joint), int(dof), float(force)))

    def set_joint_start(self, joint, q=None, v=None):
        """Start values of a tree joint (q: its nq coordinates, v: its nv rates; either None)."""
        qa = None if q is None else np.ascontiguousarray(q, dtype=float).ravel()
        va = None if v is None else np.ascontiguousarray(v, dtype=float).ravel()
        return self._call(lib.mbs_set_joint_start(
            self._b, int(joint), None if qa is None else _ptr(qa), 0 if qa is None else qa.size,
            None if va is None else _ptr(va), 0 if va is None else va.size))

    def set_joint_hold(self, joint, hold):
        """Coordinates of a tree joint held at their values by assembly: one flag per rate of
        the joint (e.g. [True] for a revolute joint)."""
        flags = np.ascontiguousarray(hold, dtype=np.uint8).ravel()
        return self._call(lib.mbs_set_joint_hold(
            self._b, int(joint), flags.ctypes.data_as(ctypes.POINTER(ctypes.c_ubyte)), flags.size))

    def add_force_callback(self, fn, name=None):
        """fn(data) is called during dynamics (Data.apply_body_wrench and
        apply_generalized_force work there); it returns 0 ok, > 0 recoverable, < 0 fatal
        (None counts as 0; an exception as fatal)."""
        from .data import Data  # data.py imports this module

        def trampoline(dptr, user):
            try:
                r = fn(Data._borrowed(dptr))
                return 0 if r is None else int(r)
            except Exception as e:  # must not cross the C stack: kept, raised after the call
                _pending().append(e)
                return -1
        cb = _lib.FORCE_CALLBACK(trampoline)
        self._keep.append(cb)
        return self._call(lib.mbs_add_force_callback(
            self._b, name.encode() if name else None, cb, None))

    # ---- friction, brakes, prescribed motion
    def add_joint_friction(self, joint, coulomb, stiction=None, viscous=0.0, dof=0, name=None):
        """Coulomb + viscous friction with stiction (forces, N or N m) that locks and unlocks
        one coordinate; stiction defaults to coulomb. Returns the force element id."""
        d = lib.mbs_default_joint_friction_def()
        d.name = name.encode() if name else None
        d.joint, d.dof = int(joint), int(dof)
        d.coulomb = float(coulomb)
        d.stiction = float(coulomb if stiction is None else stiction)
        d.viscous = float(viscous)
        return self._call(lib.mbs_add_joint_friction(self._b, ctypes.byref(d)))

    def add_joint_brake(self, joint, limit=0.0, peak=1.0, dof=0, name=None):
        """Friction whose limit is a host input (Data.set_brake_limit). Force element id."""
        d = lib.mbs_default_joint_brake_def()
        d.name = name.encode() if name else None
        d.joint, d.dof, d.limit, d.peak = int(joint), int(dof), float(limit), float(peak)
        return self._call(lib.mbs_add_joint_brake(self._b, ctypes.byref(d)))

    def add_reaction_friction(self, joint, mu, mu_stick=None, radius=0.0, axial=0.0, name=None):
        """Friction on a revolute or prismatic joint whose normal force is the joint's own
        reaction (limits mu N, mu_stick N; revolute: N = radius (radial + axial * axial
        load)), solved with the accelerations. Returns the force element id."""
        d = lib.mbs_default_reaction_friction_def()
        d.name = name.encode() if name else None
        d.joint, d.mu, d.radius, d.axial = int(joint), float(mu), float(radius), float(axial)
        d.mu_stick = float(mu if mu_stick is None else mu_stick)
        return self._call(lib.mbs_add_reaction_friction(self._b, ctypes.byref(d)))

    def add_joint_motion(self, joint, fn, dof=0):
        """Prescribed motion of one coordinate: fn(t) returns (position, velocity,
        acceleration); an exception fails the step that called it. Returns the motion id."""
        def trampoline(t, pos, vel, acc, user):
            try:
                pos[0], vel[0], acc[0] = (float(x) for x in fn(t))
                return 0
            except Exception as e:  # kept, raised after the C call that evaluated it
                _pending().append(e)
                return -1
        cb = _lib.MOTION_FN(trampoline)
        self._keep.append(cb)
        return self._call(lib.mbs_add_joint_motion(self._b, int(joint), int(dof), cb, None))

    def load(self, path, floating_base=False, balance_inertia=False):
        """Add the elements of a model file (URDF or mbs's superset); returns the list of
        warnings (elements of other tools skipped, inertias read as zero, ignored or balanced).
        floating_base: the root link gets a free joint; balance_inertia: moving links' principal
        moments that violate the triangle inequality are replaced by their mean."""
        if not _lib.has("mbs_builder_load_with"):
            raise NotImplementedError("this libmbs has no model-file loader")
        warnings = []
        cb = _lib.LOAD_WARNING_FN(lambda user, msg: warnings.append(msg.decode()))
        opt = lib.mbs_default_load_options()
        opt.floating_base, opt.balance_inertia = int(bool(floating_base)), int(bool(balance_inertia))
        opt.warning = cb
        self._call(lib.mbs_builder_load_with(self._b, str(path).encode(), ctypes.byref(opt)))
        return warnings

    def compile(self):
        out = ctypes.c_void_p()
        self._call(lib.mbs_compile(self._b, ctypes.byref(out)))
        return Model(out.value, keep=list(self._keep))


class Model:
    """mbs_model: immutable after compile; shared by any number of Data objects."""

    def __init__(self, ptr, keep=()):
        self._m = ptr
        self._keep = keep

    def __del__(self):
        if getattr(self, "_m", None):
            lib.mbs_model_destroy(self._m)
            self._m = None

    nq = property(lambda self: lib.mbs_model_nq(self._m))
    nv = property(lambda self: lib.mbs_model_nv(self._m))
    nbody = property(lambda self: lib.mbs_model_nbody(self._m))
    njoint = property(lambda self: lib.mbs_model_njoint(self._m))
    ncon = property(lambda self: lib.mbs_model_ncon(self._m))
    nforce = property(lambda self: lib.mbs_model_nforce(self._m))
    nrotor = property(lambda self: lib.mbs_model_nrotor(self._m))
    nnode = property(lambda self: lib.mbs_model_nnode(self._m))

    def body_is_node(self, body):
        """True for a node (massless, jointless body between line forces)."""
        return bool(self._id(lib.mbs_model_body_is_node(self._m, int(body)), f"body {body}"))

    @property
    def is_planar(self):
        """True when forward dynamics runs the planar path."""
        return lib.mbs_model_is_planar(self._m) == 1

    def cut_assembly(self, joint):
        """The assembly compile found for a cut joint's loop ("JointRRR", ...) or None."""
        s = lib.mbs_model_cut_assembly(self._m, int(joint))
        return s.decode() if s else None

    def _id(self, status, what):
        if status < 0:
            from .errors import ArgError
            raise ArgError(status, status_name(status), what)
        return status

    def joint_qadr(self, j): return lib.mbs_model_joint_qadr(self._m, int(j))
    def joint_vadr(self, j): return lib.mbs_model_joint_vadr(self._m, int(j))
    def joint_nq(self, j): return lib.mbs_model_joint_nq(self._m, int(j))
    def joint_nv(self, j): return lib.mbs_model_joint_nv(self._m, int(j))

    def joint_is_cut(self, j):
        return bool(self._id(lib.mbs_model_joint_is_cut(self._m, int(j)), f"joint {j}"))

    def find_body(self, name):
        return self._id(lib.mbs_model_find_body(self._m, name.encode()), f"no body {name!r}")

    def find_joint(self, name):
        return self._id(lib.mbs_model_find_joint(self._m, name.encode()), f"no joint {name!r}")

    def neutral_q(self):
        q = np.zeros(self.nq)
        _check(lib.mbs_neutral_q(self._m, _ptr(q)), lambda: "neutral_q")
        return q

    def start(self):
        """(q, v): the start values every Data of this model begins with."""
        q, v = np.zeros(self.nq), np.zeros(self.nv)
        _check(lib.mbs_model_start(self._m, _ptr(q), _ptr(v)), lambda: "model_start")
        return q, v

    def hold(self):
        """Boolean array (nv): the coordinates held at assembly."""
        h = np.zeros(self.nv, dtype=np.uint8)
        _check(lib.mbs_model_hold(self._m, h.ctypes.data_as(ctypes.POINTER(ctypes.c_ubyte))),
               lambda: "model_hold")
        return h.astype(bool)

    def integrate_q(self, q, v, dt):
        """q (+) dt v on the configuration manifold (quaternions stay unit)."""
        qa, va, out = _vec(q, self.nq, "q"), _vec(v, self.nv, "v"), np.zeros(self.nq)
        _check(lib.mbs_integrate_q(self._m, _ptr(qa), _ptr(va), float(dt), _ptr(out)),
               lambda: "integrate_q: non-finite input or result")
        return out

    def difference_q(self, q0, q1):
        out = np.zeros(self.nv)
        _check(lib.mbs_difference_q(self._m, _ptr(_vec(q0, self.nq, "q0")),
                                    _ptr(_vec(q1, self.nq, "q1")), _ptr(out)),
               lambda: "difference_q")
        return out
