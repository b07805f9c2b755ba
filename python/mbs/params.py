"""Parameters of a compiled model (mbs_model_set_param and the like) and parameter
sensitivities by SUNDIALS CVODES (mbs_sens_*): Model methods added by this module, and the
Sensitivity class.

    model.set_param("mass", body, 2.5)              # a sweep without compiling again
    model.set_param("com", body, -0.8, index=2)
    s = mbs.Sensitivity(model, data, [("com", body, 2), ("stiffness", spring)], rtol=1e-8)
    s.run(1.0)
    dq, dv = s.get(0)                               # d q / d p_0, d v / d p_0 at t = 1
"""
import ctypes

import numpy as np

from . import _lib
from ._lib import lib, BodyDef, c_double_p
from .core import Model, STEPPERS, _check, _ptr, _set_array, _vec, choice

PARAMS = {"mass": 0, "com": 1, "inertia": 2, "stiffness": 3, "damping": 4, "rest": 5,
          "gravity": 6, "gravity_mu": 7, "rotor_inertia": 8, "rotor_ratio": 9, "line_mass": 10,
          "line_mass_place": 11, "friction": 12, "stop": 13, "frame_parent_pos": 14,
          "frame_child_pos": 15, "frame_parent_rot": 16, "frame_child_rot": 17,
          "rod_length": 18, "curve_size": 19}  # mbs_param_kind's values


class Param(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("id", ctypes.c_int), ("index", ctypes.c_int)]


class SensDef(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("rtol", ctypes.c_double), ("atol", ctypes.c_double),
                ("max_step", ctypes.c_double), ("max_internal_steps", ctypes.c_long),
                ("_tail", ctypes.c_char * _lib._TAIL)]


_P, _I, _D = ctypes.c_void_p, ctypes.c_int, ctypes.c_double
for _name, _res, _args in (
        ("mbs_model_error", ctypes.c_char_p, [_P]),
        ("mbs_model_get_param", _I, [_P, ctypes.POINTER(Param), c_double_p]),
        ("mbs_model_set_param", _I, [_P, ctypes.POINTER(Param), _D]),
        ("mbs_model_set_body", _I, [_P, _I, ctypes.POINTER(BodyDef)]),
        ("mbs_model_set_gravity", _I, [_P, c_double_p]),
        ("mbs_model_set_point_gravity", _I, [_P, c_double_p, _D]),
        ("mbs_default_sens_def", SensDef, []),
        ("mbs_sens_create", _I, [_P, _P, ctypes.POINTER(Param), _I, ctypes.POINTER(SensDef),
                                 ctypes.POINTER(_P)]),
        ("mbs_sens_destroy", None, [_P]),
        ("mbs_sens_run", _I, [_P, _D]),
        ("mbs_sens_get", _I, [_P, _I, c_double_p, c_double_p]),
        ("mbs_sens_restart", _I, [_P])):
    getattr(lib, _name).restype = _res
    getattr(lib, _name).argtypes = _args


def _param(kind, id, index=0):
    return Param(choice(PARAMS, kind, "parameter kind"), int(id), int(index))


def _model_call(self, status):
    return _check(status, lambda: lib.mbs_model_error(self._m).decode())


def get_param(self, kind, id=0, index=0):
    """The current value of parameter kind (a key of PARAMS: "mass", "com", "inertia" of a
    body; "stiffness", "damping", "rest", "line_mass", "line_mass_place", "friction", "stop"
    of a force element; "rotor_inertia", "rotor_ratio" of a rotor; "gravity", "gravity_mu";
    "frame_parent_pos", "frame_child_pos", "frame_parent_rot", "frame_child_rot",
    "rod_length", "curve_size" of a joint) of the body, force element, rotor or joint id;
    index as mbs_param_kind says."""
    x = ctypes.c_double()
    p = _param(kind, id, index)
    _model_call(self, lib.mbs_model_get_param(self._m, ctypes.byref(p), ctypes.byref(x)))
    return x.value


def set_param(self, kind, id, value, index=0):
    """Change a parameter of the compiled model (the builder's checks; refused: ArgError,
    the model unchanged). Data made from the model see it at their next call."""
    p = _param(kind, id, index)
    return _model_call(self, lib.mbs_model_set_param(self._m, ctypes.byref(p), float(value)))


def set_body(self, body, mass, com=(0, 0, 0), inertia=(0,) * 9):
    d = lib.mbs_default_body_def()
    d.mass = float(mass)
    _set_array(d.com, com, 3, "com")
    _set_array(d.inertia, inertia, 9, "inertia")
    return _model_call(self, lib.mbs_model_set_body(self._m, int(body), ctypes.byref(d)))


def set_gravity(self, g):
    return _model_call(self, lib.mbs_model_set_gravity(self._m, _ptr(_vec(g, 3, "gravity"))))


def set_point_gravity(self, center, mu):
    return _model_call(self, lib.mbs_model_set_point_gravity(
        self._m, _ptr(_vec(center, 3, "center")), float(mu)))


Model.get_param = get_param
Model.set_param = set_param
Model.set_body = set_body
Model.set_gravity = set_gravity
Model.set_point_gravity = set_point_gravity


class Sensitivity:
    """mbs_sens: d(q, v)/dp for the parameters [(kind, id[, index]), ...] of the data's model,
    integrated with the motion by SUNDIALS CVODES from the data's current state; kind
    "adams" or "bdf" (or "cvode_adams", "cvode_bdf"), options rtol, atol, max_step,
    max_internal_steps."""

    def __init__(self, model, data, params, kind="adams", **options):
        d = lib.mbs_default_sens_def()
        d.kind = choice(STEPPERS, kind, 'stepper')
        for key, value in options.items():
            if key not in ("rtol", "atol", "max_step", "max_internal_steps"):
                raise TypeError(f"unknown sensitivity option {key!r}")
            setattr(d, key, value)
        arr = (Param * max(len(params), 1))(*[_param(*p) for p in params])
        out = ctypes.c_void_p()
        self._s = None
        self.data, self.model, self.np = data, model, len(params)
        _check(lib.mbs_sens_create(model._m, data._d, arr, len(params), ctypes.byref(d),
                                   ctypes.byref(out)), data._err)
        self._s = out.value

    def __del__(self):
        if getattr(self, "_s", None):
            lib.mbs_sens_destroy(self._s)
            self._s = None

    def run(self, t_end):
        """Integrate the state and the sensitivities to t_end."""
        return self.data._call(lib.mbs_sens_run(self._s, float(t_end)))

    def get(self, k):
        """(dq/dp_k (nq,), dv/dp_k (nv,)) at the data's time."""
        dq, dv = np.zeros(self.model.nq), np.zeros(self.model.nv)
        self.data._call(lib.mbs_sens_get(self._s, int(k), _ptr(dq), _ptr(dv)))
        return dq, dv

    def restart(self):
        """Start again at the data's state and the model's parameter values, zero
        sensitivities."""
        return self.data._call(lib.mbs_sens_restart(self._s))
