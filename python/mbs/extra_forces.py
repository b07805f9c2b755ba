"""Force and torque between two frames and line forces with a user law (the C calls
mbs_add_frame_force, mbs_set_frame_force, mbs_add_line_force): methods added to Builder and
Data by this module, which mbs/__init__.py imports.

    b.add_frame_force(body_b, body_a=mbs.WORLD, frame_b=((0.3, 0, 0), None),
                      resolve="frame_b", force=(1, 0, 0))
    b.add_frame_force(body_b, fn=lambda data, t: ((math.sin(t), 0, 0), (0, 0, 0)))
    b.add_line_force(a, b2, law=lambda L, rate, t: k * (L - L0) + d * rate,
                     potential=lambda L: 0.5 * k * (L - L0) ** 2)
    data.set_frame_force(element, force=(0, 2, 0))
"""
import ctypes

from . import _lib
from ._lib import lib, Frame, c_double_p
from .core import Builder, WORLD, _pending, _ptr, _set_array, _set_frame, _vec, choice
from .data import Data

RESOLVE = {"world": 0, "frame_a": 1, "frame_b": 2}

FRAME_FORCE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_double, c_double_p,
                                  c_double_p, ctypes.c_void_p)
LINE_LAW = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.c_double, ctypes.c_double,
                            c_double_p, ctypes.c_void_p)
LINE_POTENTIAL = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_void_p)


class FrameForceDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("body_a", ctypes.c_int), ("body_b", ctypes.c_int),
                ("frame_a", Frame), ("frame_b", Frame), ("resolve", ctypes.c_int),
                ("force", ctypes.c_double * 3), ("torque", ctypes.c_double * 3),
                ("fn", FRAME_FORCE_FN), ("user", ctypes.c_void_p),
                ("_tail", ctypes.c_char * _lib._TAIL)]


class LineForceDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("body_a", ctypes.c_int), ("body_b", ctypes.c_int),
                ("point_a", ctypes.c_double * 3), ("point_b", ctypes.c_double * 3),
                ("law", LINE_LAW), ("potential", LINE_POTENTIAL), ("user", ctypes.c_void_p),
                ("_tail", ctypes.c_char * _lib._TAIL)]


_P = ctypes.c_void_p
for _name, _res, _args in (
        ("mbs_default_frame_force_def", FrameForceDef, []),
        ("mbs_add_frame_force", ctypes.c_int, [_P, ctypes.POINTER(FrameForceDef)]),
        ("mbs_set_frame_force", ctypes.c_int, [_P, ctypes.c_int, c_double_p, c_double_p]),
        ("mbs_default_line_force_def", LineForceDef, []),
        ("mbs_add_line_force", ctypes.c_int, [_P, ctypes.POINTER(LineForceDef)])):
    getattr(lib, _name).restype = _res
    getattr(lib, _name).argtypes = _args


def _frame_trampoline(fn):
    """A C callback for fn(data, t) -> (force, torque); an exception is kept and fatal."""
    def call(dptr, t, force, torque, user):
        try:
            f, tq = fn(Data._borrowed(dptr), t)
            for i in range(3):
                force[i], torque[i] = float(f[i]), float(tq[i])
            return 0
        except Exception as e:  # must not cross the C stack: raised after the call
            _pending().append(e)
            return -1
    return FRAME_FORCE_FN(call)


def add_frame_force(self, body_b, body_a=WORLD, frame_a=None, frame_b=None, resolve="frame_b",
                    force=(0, 0, 0), torque=(0, 0, 0), fn=None, name=None):
    """Element id. force and torque act on body_b at frame_b's origin, the opposite on body_a,
    resolved in "world", "frame_a" or "frame_b"; frames as (pos, rot) pairs. Without fn the
    value is the constant (force, torque), changed later by Data.set_frame_force; fn(data, t)
    returns (force, torque) during dynamics instead."""
    d = lib.mbs_default_frame_force_def()
    d.name = name.encode() if name else None
    d.body_a, d.body_b = int(body_a), int(body_b)
    _set_frame(d.frame_a, frame_a)
    _set_frame(d.frame_b, frame_b)
    d.resolve = choice(RESOLVE, resolve, 'resolve frame')
    _set_array(d.force, force, 3, "force")
    _set_array(d.torque, torque, 3, "torque")
    if fn is not None:
        d.fn = _frame_trampoline(fn)
        self._keep.append(d.fn)
    return self._call(lib.mbs_add_frame_force(self._b, ctypes.byref(d)))


def add_line_force(self, body_a, body_b, law, point_a=(0, 0, 0), point_b=(0, 0, 0),
                   potential=None, name=None):
    """Element id. law(length, rate, t) returns the tension pulling the two points together
    (k (L - L0) + d rate is the spring-damper); potential(length), optional, is counted by
    Data.energy."""
    def call_law(L, rate, t, tension, user):
        try:
            tension[0] = float(law(L, rate, t))
            return 0
        except Exception as e:
            _pending().append(e)
            return -1

    def call_potential(L, user):
        try:
            return float(potential(L))
        except Exception as e:
            _pending().append(e)
            return float("nan")
    d = lib.mbs_default_line_force_def()
    d.name = name.encode() if name else None
    d.body_a, d.body_b = int(body_a), int(body_b)
    _set_array(d.point_a, point_a, 3, "point_a")
    _set_array(d.point_b, point_b, 3, "point_b")
    if law is not None:
        d.law = LINE_LAW(call_law)
        self._keep.append(d.law)
    if potential is not None:
        d.potential = LINE_POTENTIAL(call_potential)
        self._keep.append(d.potential)
    return self._call(lib.mbs_add_line_force(self._b, ctypes.byref(d)))


def set_frame_force(self, element, force=(0, 0, 0), torque=(0, 0, 0)):
    """Host input of a two-frame force element without callback, held until changed."""
    return self._call(lib.mbs_set_frame_force(self._d, int(element), _ptr(_vec(force, 3, "force")),
                                              _ptr(_vec(torque, 3, "torque"))))


Builder.add_frame_force = add_frame_force
Builder.add_line_force = add_line_force
Data.set_frame_force = set_frame_force
