"""User state equations integrated with the mechanism (the C calls mbs_add_user_states,
mbs_set_user_states_start, mbs_data_user_states, ...): methods added to Builder, Model and
Data by this module, which mbs/__init__.py imports.

    def motor(data, x, xdot):             # x, xdot: numpy views of this element's states
        w = data.v[0]
        xdot[0] = (12.0 - 2.0 * x[0] - 0.5 * w) / 0.01
        data.apply_generalized_force(0, 0.5 * x[0])
    e = b.add_user_states(1, motor, name="motor")
    ...
    data.user_states[model.user_states_adr(e)]    # the current, a writable view

Inside the function `data` is a view of the C data with q, v, tau, qacc, user_states bound
(valid during the call only, like x and xdot: do not keep them); an exception is kept, the
function counts as failed (fatal) and the call that ran it raises CallbackError chained to
it. The function runs in every dynamics evaluation (four times per RK4 step, many times per
CVODE step), so a Python function costs a ctypes crossing each time.
"""
import ctypes

import numpy as np

from ._lib import lib, c_double_p
from .core import Builder, Model, _pending, _ptr, _vec
from .data import Data, _view
from .params import Sensitivity

USER_STATES_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, c_double_p, c_double_p,
                                  ctypes.c_void_p)

_P, _I = ctypes.c_void_p, ctypes.c_int
for _name, _res, _args in (
        ("mbs_add_user_states", _I, [_P, ctypes.c_char_p, _I, USER_STATES_FN, _P]),
        ("mbs_set_user_states_start", _I, [_P, _I, c_double_p, _I]),
        ("mbs_model_nuser_states", _I, [_P]),
        ("mbs_model_user_states_adr", _I, [_P, _I]),
        ("mbs_model_user_states_start", _I, [_P, c_double_p]),
        ("mbs_data_user_states", c_double_p, [_P]),
        ("mbs_data_set_user_states", _I, [_P, _I, c_double_p]),
        ("mbs_user_states_derivative", _I, [_P, c_double_p]),
        ("mbs_sens_get_user_states", _I, [_P, _I, c_double_p]),
        ("mbs_data_model", _P, [_P])):
    getattr(lib, _name).restype = _res
    getattr(lib, _name).argtypes = _args


def _sizes(dptr):
    """nq, nv, ncon, nuser_states of the data's model."""
    m = lib.mbs_data_model(dptr)
    return (lib.mbs_model_nq(m), lib.mbs_model_nv(m), lib.mbs_model_ncon(m),
            lib.mbs_model_nuser_states(m))


def _trampoline(fn, n):
    """A C function for fn(data, x, xdot) (None or 0: ok, > 0 recoverable, < 0 fatal)."""
    sizes = []

    def call(dptr, x, xdot, user):
        try:
            if not sizes:
                sizes.extend(_sizes(dptr))
            data = Data._borrowed(dptr)
            data._bind(*sizes[:3])
            data.__dict__["_user_states"] = _view(lib.mbs_data_user_states(dptr), sizes[3], False)
            r = fn(data, _view(x, n, False), _view(xdot, n, True))
            return 0 if r is None else int(r)
        except Exception as e:  # must not cross the C stack: kept, raised after the call
            _pending().append(e)
            return -1
    return USER_STATES_FN(call)


def add_user_states(self, n, fn, name=None, start=None):
    """n user states with fn(data, x, xdot) writing their derivatives (xdot arrives zeroed)
    and applying forces through data.apply_*; start: their start values. Returns the force
    element id."""
    cb = _trampoline(fn, int(n))
    self._keep.append(cb)
    e = self._call(lib.mbs_add_user_states(self._b, name.encode() if name else None, int(n),
                                           cb, None))
    if start is not None:
        self.set_user_states_start(e, start)
    return e


def set_user_states_start(self, element, x0):
    """Start values of a user-state element (as many as its states)."""
    a = np.ascontiguousarray(x0, dtype=np.float64).ravel()
    return self._call(lib.mbs_set_user_states_start(self._b, int(element), _ptr(a), a.size))


def _model_user_states_adr(self, element):
    return self._id(lib.mbs_model_user_states_adr(self._m, int(element)),
                    f"element {element} is not a user-state element")


def _model_user_states_start(self):
    x = np.zeros(self.nuser_states)
    lib.mbs_model_user_states_start(self._m, _ptr(x))
    return x


def _data_user_states(self):
    """The data's user states: a writable view of the C array."""
    v = self.__dict__.get("_user_states")
    if v is None:
        n = lib.mbs_model_nuser_states(lib.mbs_data_model(self._d))
        v = self.__dict__["_user_states"] = _view(lib.mbs_data_user_states(self._d), n, True)
    return v


def _data_assign_user_states(self, value):
    """data.user_states = x writes x into the C array (never detaches the name from it)."""
    view = _data_user_states(self)
    view[:] = _vec(value, view.size, "Data.user_states")


def _data_set_user_states(self, element, x):
    """Set the states of one element (as many as it has; all finite)."""
    n = self._n_of(element)
    return self._call(lib.mbs_data_set_user_states(self._d, int(element),
                                                   _ptr(_vec(x, n, "user states"))))


def _data_n_of(self, element):
    """Number of states of a user-state element of the data's model."""
    m = lib.mbs_data_model(self._d)
    adr = lib.mbs_model_user_states_adr(m, int(element))
    if adr < 0:  # not a user-state element: the C call refuses it with its message
        return self._call(lib.mbs_data_set_user_states(self._d, int(element), None))
    nxt = [lib.mbs_model_user_states_adr(m, e) for e in range(lib.mbs_model_nforce(m))]
    later = [a for a in nxt if a > adr]
    return (min(later) if later else lib.mbs_model_nuser_states(m)) - adr


def _data_user_states_derivative(self):
    """The derivatives of all user states at the current state (a new array)."""
    xdot = np.zeros(lib.mbs_model_nuser_states(lib.mbs_data_model(self._d)))
    self._call(lib.mbs_user_states_derivative(self._d, _ptr(xdot) if xdot.size else
                                              _ptr(np.zeros(1))))
    return xdot


def _sens_get_user_states(self, k):
    """dx/dp_k (nuser_states,): the user states' sensitivities at the data's time."""
    dx = np.zeros(max(self.model.nuser_states, 1))
    self.data._call(lib.mbs_sens_get_user_states(self._s, int(k), _ptr(dx)))
    return dx[:self.model.nuser_states]


Builder.add_user_states = add_user_states
Sensitivity.get_user_states = _sens_get_user_states
Builder.set_user_states_start = set_user_states_start
Model.nuser_states = property(lambda self: lib.mbs_model_nuser_states(self._m))
Model.user_states_adr = _model_user_states_adr
Model.user_states_start = _model_user_states_start
Data.user_states = property(_data_user_states, _data_assign_user_states)
Data.set_user_states = _data_set_user_states
Data._n_of = _data_n_of
Data.user_states_derivative = _data_user_states_derivative
