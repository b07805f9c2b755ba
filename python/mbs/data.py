"""Data (state, dynamics, queries) and Stepper."""
import ctypes

import numpy as np

from ._lib import lib, PositionTarget, StepperDef, Work
from .core import STEPPERS, Model, _check, _ptr, _vec, choice, status_name


def _view(ptr, n, writable):
    """A numpy array that is the C array itself (no copy)."""
    if n == 0:
        return np.zeros(0)
    a = np.ctypeslib.as_array(ptr, shape=(n,))
    a.flags.writeable = writable
    return a


class StateArray:
    """A state array of Data: reading gives the numpy view of the C array; assigning writes
    the values into it (as many as it holds), so `data.q = x` never detaches the name from
    the simulation. Read-only arrays refuse assignment."""

    def __init__(self, writable):
        self.writable = writable

    def __set_name__(self, owner, name):
        self.name, self.slot = name, "_" + name

    def __get__(self, obj, objtype=None):
        return self if obj is None else obj.__dict__[self.slot]

    def __set__(self, obj, value):
        if not self.writable:
            raise AttributeError(f"Data.{self.name} is read-only (written by the dynamics)")
        view = self.__get__(obj)
        view[:] = _vec(value, view.size, f"Data.{self.name}")


class Data:
    """mbs_data: the state and every scratch array of one simulation (one per thread).
    q, v, tau are writable numpy views of the C arrays; qacc and lam are read-only views."""
    q, v, tau = StateArray(True), StateArray(True), StateArray(True)
    qacc, lam = StateArray(False), StateArray(False)

    def __init__(self, model):
        if not isinstance(model, Model):
            raise TypeError("Data(model) needs an mbs.Model")
        self._d = lib.mbs_data_create(model._m)
        if not self._d:
            raise MemoryError("mbs_data_create")
        self.model = model
        self._owned = True
        self._bind(model.nq, model.nv, model.ncon)

    @classmethod
    def _borrowed(cls, ptr):
        """A view of a data object owned by C (inside a force callback)."""
        d = cls.__new__(cls)
        d._d, d.model, d._owned = ptr, None, False
        return d

    def _bind(self, nq, nv, ncon):
        self._q = _view(lib.mbs_data_q(self._d), nq, True)
        self._v = _view(lib.mbs_data_v(self._d), nv, True)
        self._tau = _view(lib.mbs_data_tau(self._d), nv, True)
        self._qacc = _view(lib.mbs_data_qacc(self._d), nv, False)
        self._lam = _view(lib.mbs_data_lambda(self._d), ncon, False)
        self.nq, self.nv, self.ncon = nq, nv, ncon

    def __del__(self):
        if getattr(self, "_owned", False) and self._d:
            lib.mbs_data_destroy(self._d)
            self._d = None

    def _err(self):
        return lib.mbs_data_error(self._d).decode()

    def _call(self, status):
        return _check(status, self._err)

    @property
    def error(self):
        return self._err()

    def work(self):
        """mbs_data_work: the work counters since the data was created (dict of evals,
        newton, factor, select, event_iter) and 'units' (mbs_work_units)."""
        w = Work()
        self._call(lib.mbs_data_work(self._d, ctypes.byref(w)))
        return _work_dict(w)

    @property
    def time(self):
        return lib.mbs_data_time(self._d)

    @time.setter
    def time(self, t):
        self._call(lib.mbs_data_set_time(self._d, float(t)))

    def forward_dynamics(self):
        """qacc (and lam) from t, q, v, tau and the forces; returns a copy of qacc."""
        self._call(lib.mbs_forward_dynamics(self._d))
        return self.qacc.copy()

    def inverse_dynamics(self, qacc):
        tau = np.zeros(self.nv)
        self._call(lib.mbs_inverse_dynamics(self._d, _ptr(_vec(qacc, self.nv, "qacc")),
                                            _ptr(tau)))
        return tau

    def mass_matrix(self):
        M = np.zeros((self.nv, self.nv))
        self._call(lib.mbs_mass_matrix(self._d, _ptr(M)))
        return M

    def mass_matrix_factor(self):
        """The tree-sparse L^T D L factor (lower triangle; upper triangle zero)."""
        LDL = np.zeros((self.nv, self.nv))
        self._call(lib.mbs_mass_matrix_factor(self._d, _ptr(LDL)))
        return LDL

    def mass_matrix_solve(self, LDL, b):
        LDL = np.ascontiguousarray(LDL, dtype=np.float64)
        if LDL.shape != (self.nv, self.nv):
            raise ValueError(f"LDL must be {self.nv} x {self.nv}")
        x = _vec(b, self.nv, "b").copy()
        self._call(lib.mbs_mass_matrix_solve(self._d, _ptr(LDL), _ptr(x)))
        return x

    def bias_forces(self):
        c = np.zeros(self.nv)
        self._call(lib.mbs_bias_forces(self._d, _ptr(c)))
        return c

    def assemble(self):
        return self._call(lib.mbs_assemble(self._d))

    def cut_joint_closure(self, joint):
        """"analytic" or "newton": how the loop of a cut joint is closed now."""
        st = lib.mbs_cut_joint_closure(self._d, int(joint))
        if st < 0:
            from .errors import ArgError
            raise ArgError(st, status_name(st), f"joint {joint} is not a cut joint")
        return "analytic" if st == 1 else "newton"

    @property
    def newton_iterations(self):
        """Newton iterations of the loop closures since the data was created."""
        return lib.mbs_loop_newton_iterations(self._d)

    def constraint_info(self):
        """(rank, active) with active a bool array of the ncon rows."""
        rank = ctypes.c_int()
        active = (ctypes.c_ubyte * max(self.ncon, 1))()
        self._call(lib.mbs_constraint_info(self._d, ctypes.byref(rank), active))
        return rank.value, np.array(active[:self.ncon], dtype=bool)

    def body_pose(self, body):
        """(pos (3,), rot (3, 3)) in the world: x_world = rot x_body + pos."""
        p, R = np.zeros(3), np.zeros((3, 3))
        self._call(lib.mbs_body_pose(self._d, int(body), _ptr(p), _ptr(R)))
        return p, R

    def body_velocity(self, body):
        lin, ang = np.zeros(3), np.zeros(3)
        self._call(lib.mbs_body_velocity(self._d, int(body), _ptr(lin), _ptr(ang)))
        return lin, ang

    def energy(self):
        """(kinetic, potential)."""
        T, V = ctypes.c_double(), ctypes.c_double()
        self._call(lib.mbs_energy(self._d, ctypes.byref(T), ctypes.byref(V)))
        return T.value, V.value

    def point_jacobian(self, body, point=(0, 0, 0)):
        """(6, nv): [w_body; v_point] = J v, world frame."""
        J = np.zeros((6, self.nv))
        self._call(lib.mbs_point_jacobian(self._d, int(body), _ptr(_vec(point, 3, "point")), _ptr(J)))
        return J

    def point_bias_acceleration(self, body, point=(0, 0, 0)):
        """(6,): Jdot v, the point's acceleration when qacc = 0 (no gravity)."""
        a = np.zeros(6)
        self._call(lib.mbs_point_bias_acceleration(self._d, int(body), _ptr(_vec(point, 3, "point")), _ptr(a)))
        return a

    def com(self):
        c = np.zeros(3)
        self._call(lib.mbs_com(self._d, _ptr(c)))
        return c

    def momentum(self):
        """(linear, angular about the world origin)."""
        lin, ang = np.zeros(3), np.zeros(3)
        self._call(lib.mbs_momentum(self._d, _ptr(lin), _ptr(ang)))
        return lin, ang

    def joint_reaction(self, joint):
        """(force, torque) the parent exerts on the child at the child joint frame, world."""
        F, T = np.zeros(3), np.zeros(3)
        self._call(lib.mbs_joint_reaction(self._d, int(joint), _ptr(F), _ptr(T)))
        return F, T

    def inverse_dynamics_actuated(self, qacc, actuated):
        """(nv,) generalized forces on the velocity indices in `actuated` only (zero
        elsewhere) for which forward dynamics returns qacc; minimum Euclidean norm when
        over-actuated; InconsistentError (naming the loop) when qacc is not reachable."""
        act = np.ascontiguousarray(actuated, dtype=np.intc).reshape(-1)
        tau = np.zeros(self.nv)
        self._call(lib.mbs_inverse_dynamics_actuated(
            self._d, _ptr(_vec(qacc, self.nv, "qacc")),
            act.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), int(act.size), _ptr(tau)))
        return tau

    def _mask(self, fixed):
        """A C byte mask of nv entries (None: NULL); entries are passed through as given."""
        if fixed is None:
            return None
        m = np.ascontiguousarray(fixed, dtype=np.int64).reshape(-1)
        if m.size != self.nv:
            from .errors import ArgError
            raise ArgError(-1, "MBS_ERR_ARG", f"fixed: expected {self.nv} values, got {m.size}")
        if (m < 0).any() or (m > 255).any():
            from .errors import ArgError
            raise ArgError(-1, "MBS_ERR_ARG", "fixed: entries are 0 (free) or 1 (held)")
        return (ctypes.c_ubyte * max(self.nv, 1))(*[int(x) for x in m])

    def equilibrium(self, fixed=None):
        """Static equilibrium from the current q (v set to 0); `fixed`: nv flags (1: held).
        Returns a copy of q."""
        self._call(lib.mbs_equilibrium(self._d, self._mask(fixed)))
        return self.q.copy()

    def solve_positions(self, targets, fixed=None):
        """Move q (not the coordinates flagged in `fixed`) so that each target
        (body, point, pos) -- the body point (body coordinates) at the world position pos --
        holds, loops closed. Returns a copy of q."""
        targets = list(targets)
        arr = (PositionTarget * max(len(targets), 1))()
        for i, t in enumerate(targets):
            body, point, pos = (t["body"], t["point"], t["pos"]) if isinstance(t, dict) else t
            arr[i].body = int(body)
            for k, (p, x) in enumerate(zip(_vec(point, 3, "point"), _vec(pos, 3, "pos"))):
                arr[i].point[k], arr[i].pos[k] = float(p), float(x)
        self._call(lib.mbs_solve_positions(self._d, arr, len(targets), self._mask(fixed)))
        return self.q.copy()
    def inverse_dynamics_derivatives(self, qacc):
        """(dtau_dq, dtau_dv, M), each (nv, nv), of a tree's inverse dynamics at qacc;
        q-derivatives in tangent coordinates (a step dq moves q as integrate_q does)."""
        n = self.nv
        dq, dv, M = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
        self._call(lib.mbs_inverse_dynamics_derivatives(
            self._d, _ptr(_vec(qacc, n, "qacc")), _ptr(dq), _ptr(dv), _ptr(M)))
        return dq, dv, M

    def forward_dynamics_derivatives(self):
        """(dqacc_dq, dqacc_dv, Minv), each (nv, nv), of a tree's forward dynamics at the
        current state (qacc is updated as forward_dynamics does)."""
        n = self.nv
        dq, dv, Minv = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
        self._call(lib.mbs_forward_dynamics_derivatives(self._d, _ptr(dq), _ptr(dv), _ptr(Minv)))
        return dq, dv, Minv

    def _nx_max(self):
        """2 nv + the user states: the most state coordinates linearize() gives."""
        nux = self.model.nuser_states if self.model is not None else 0
        return max(2 * self.nv + nux, 1)

    def linearize(self):
        """(A (nx, nx), B (nx, nv)) of dx/dt = A x + B dtau about the current state: x =
        (dq, dv) in tangent coordinates for a tree, (du, du') of the independent coordinates
        with closed loops (linearize_coordinates() tells which), then the user states."""
        n, nx_max = self.nv, self._nx_max()
        A, B = np.zeros(nx_max * nx_max), np.zeros(nx_max * n)
        nx = ctypes.c_int()
        self._call(lib.mbs_linearize(self._d, _ptr(A), _ptr(B), ctypes.byref(nx)))
        k = nx.value
        return A[:k * k].reshape(k, k).copy(), B[:k * n].reshape(k, n).copy()

    def linearize_coordinates(self):
        """The v indices (ascending) that make up x of linearize()."""
        flags = (ctypes.c_ubyte * max(self.nv, 1))()
        count = ctypes.c_int()
        self._call(lib.mbs_linearize_coordinates(self._d, flags, ctypes.byref(count)))
        return np.flatnonzero(np.array(flags[:self.nv], dtype=bool))

    def modes(self):
        """The eigenvalues of linearize()'s A as a complex array, sorted by magnitude (a
        pair adjacent, positive imaginary part first)."""
        nx_max = self._nx_max()
        re, im = np.zeros(nx_max), np.zeros(nx_max)
        n = ctypes.c_int(nx_max)
        self._call(lib.mbs_modes(self._d, _ptr(re), _ptr(im), ctypes.byref(n)))
        return re[:n.value] + 1j * im[:n.value]

    def _wrench(self, fn, body, force, torque, point):
        return self._call(fn(self._d, int(body), _ptr(_vec(force, 3, "force")),
                             _ptr(_vec(torque, 3, "torque")),
                             _ptr(_vec(point, 3, "point"))))

    def set_body_wrench(self, body, force, torque=(0, 0, 0), point=(0, 0, 0)):
        """Host input: world force/torque at a body point, held until changed."""
        return self._wrench(lib.mbs_set_body_wrench, body, force, torque, point)

    def apply_body_wrench(self, body, force, torque=(0, 0, 0), point=(0, 0, 0)):
        """Inside a force callback only."""
        return self._wrench(lib.mbs_apply_body_wrench, body, force, torque, point)

    def apply_generalized_force(self, index, f):
        """Inside a force callback only."""
        return self._call(lib.mbs_apply_generalized_force(self._d, int(index), float(f)))


    # ---- friction, brakes, prescribed motion
    def joint_is_locked(self, joint, dof=0):
        """True when the friction (or brake) on the coordinate holds it."""
        return bool(self._call(lib.mbs_joint_is_locked(self._d, int(joint), int(dof))))

    def friction_force(self, joint, dof=0):
        """Friction force on the coordinate at the last dynamics evaluation (sign of tau):
        the holding force when locked; NaN without friction."""
        return lib.mbs_data_friction_force(self._d, int(joint), int(dof))

    def driving_force(self, joint, dof=0):
        """Force the prescribed motion applied at the last dynamics evaluation (the tau the
        free coordinate would need); NaN without a motion."""
        return lib.mbs_data_driving_force(self._d, int(joint), int(dof))

    def set_brake_limit(self, brake, limit):
        return self._call(lib.mbs_set_brake_limit(self._d, int(brake), float(limit)))


def stepper_def(kind, options):
    """The mbs_stepper_def of a kind name and options (rtol, atol, max_step,
    max_internal_steps)."""
    d = lib.mbs_default_stepper_def(choice(STEPPERS, kind, 'stepper'))
    for key, value in options.items():
        if key not in ("rtol", "atol", "max_step", "max_internal_steps", "max_work"):
            raise TypeError(f"unknown stepper option {key!r}")
        setattr(d, key, value)
    return d


def _work_dict(w):
    """An mbs_work as a dict, with its work units."""
    out = {name: getattr(w, name) for name, _ in Work._fields_}
    out["units"] = lib.mbs_work_units(ctypes.byref(w))
    return out


class Stepper:
    """mbs_stepper: kind 'euler', 'rk4', 'adams' or 'bdf' (mbs-sim's names; also
    'cvode_adams', 'cvode_bdf'); options as in mbs_stepper_def (rtol, atol, max_step,
    max_internal_steps, max_work: the most work units one step may take, else the step
    raises DeadlineError with time and state as before it)."""

    def __init__(self, data, kind="rk4", **options):
        d = stepper_def(kind, options)
        self.data = data
        self._s = lib.mbs_stepper_create(data._d, ctypes.byref(d))
        if not self._s:
            _check(-3 if data._err() else -2, data._err)

    def __del__(self):
        if getattr(self, "_s", None):
            lib.mbs_stepper_destroy(self._s)
            self._s = None

    def step(self, dt):
        """Advance the data's time by dt (one step for fixed-step kinds)."""
        return self.data._call(lib.mbs_stepper_step(self._s, float(dt)))

    def worst_work(self, dt):
        """mbs_stepper_worst_work: (bound, seen), two dicts of the work counters as
        Data.work() gives them: the most one step of dt can take, and the costliest step
        taken so far."""
        cap, seen = Work(), Work()
        self.data._call(lib.mbs_stepper_worst_work(self._s, float(dt), ctypes.byref(cap),
                                                   ctypes.byref(seen)))
        return _work_dict(cap), _work_dict(seen)
