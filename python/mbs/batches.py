"""Many runs of one model at once (mbs_batch_*): mbs.batch steps K start states, each with
its own parameter values if given, on a pool of C threads and returns their end states (and
trajectories on request). ctypes releases the GIL around every foreign call (a CDLL, not a
PyDLL), so other Python threads run while a batch steps.

    res = mbs.batch(model, q0, v0, dt=1e-3, nstep=1000, threads=2)      # q0: K x nq
    res = mbs.batch("fourbar.xml", q0, v0, params=[("mass", 2)], values=masses[:, None])
    res.q, res.v, res.status, res.errors
"""
import ctypes
import os

import numpy as np

from ._lib import lib, StepperDef, c_double_p
from .core import Builder, Model
from .data import _view, stepper_def
from .params import Param, _param

_P, _I = ctypes.c_void_p, ctypes.c_int
for _name, _res, _args in (
        ("mbs_batch_create", _P, [ctypes.POINTER(_P), _I, _I, ctypes.POINTER(StepperDef)]),
        ("mbs_batch_destroy", None, [_P]),
        ("mbs_batch_data", _P, [_P, _I]),
        ("mbs_batch_set_params", _I, [_P, ctypes.POINTER(Param), _I, c_double_p]),
        ("mbs_batch_run", _I, [_P, ctypes.c_double, ctypes.c_long]),
        ("mbs_batch_status", _I, [_P, _I])):
    getattr(lib, _name).restype = _res
    getattr(lib, _name).argtypes = _args


class BatchResult:
    """End states q (K x nq), v (K x nv), time t (K), status (K: 0 or the MBS_ERR_* value that
    stopped the run), errors (K messages, "" for a run that did not fail); with record,
    traj_q (K x (n+1) x nq), traj_v and traj_t (n+1) hold the state every `record` steps
    (a failed run keeps its last state)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def load_model(path, **load_options):
    """A compiled model from a model file (Builder.load's options)."""
    b = Builder()
    b.load(os.fspath(path), **load_options)
    return b.compile()


def _models(model, n):
    """n models: the same Model n times, or n made by loading a path or calling a factory
    (one per thread, for per-run parameters)."""
    if isinstance(model, Model):
        return [model] * n
    if isinstance(model, (str, os.PathLike)):
        return [load_model(model) for _ in range(n)]
    if callable(model):
        return [model() for _ in range(n)]
    raise TypeError("model: an mbs.Model, a model file path or a callable returning a Model")


def _runs(K, n, a, what):
    """a as a C-contiguous K x n float64 array (None: None)."""
    if a is None:
        return None
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.shape != (K, n):
        raise ValueError(f"{what}: shape {a.shape}, expected ({K}, {n})")
    return a


class _Batch:
    """The C batch and numpy views of its runs' q, v, tau."""

    def __init__(self, models, K, sdef):
        self.models = models  # kept alive while the batch lives
        arr = (_P * len(models))(*[m._m for m in models])
        self.b = lib.mbs_batch_create(arr, len(models), K, ctypes.byref(sdef))
        if not self.b:
            raise MemoryError("mbs_batch_create")
        m = models[0]
        self.data = [lib.mbs_batch_data(self.b, k) for k in range(K)]
        self.q = [_view(lib.mbs_data_q(d), m.nq, True) for d in self.data]
        self.v = [_view(lib.mbs_data_v(d), m.nv, True) for d in self.data]
        self.tau = [_view(lib.mbs_data_tau(d), m.nv, True) for d in self.data]

    def __del__(self):
        if getattr(self, "b", None):
            lib.mbs_batch_destroy(self.b)
            self.b = None

    def state(self):
        return np.array(self.q), np.array(self.v)


def _param_specs(params):
    """params as (kind, id, index) tuples."""
    out = []
    for p in params or ():
        kind, id, index = (tuple(p) + (0,))[:3]
        out.append((kind, int(id), int(index)))
    return out


def _record(bt, res, j):
    res.traj_q[:, j], res.traj_v[:, j] = bt.state()


def batch(model, q0=None, v0=None, dt=1e-3, nstep=1000, params=None, values=None, tau=None,
          kind="rk4", threads=1, record=0, **options):
    """K runs of one model, stepped nstep times by dt on `threads` C threads.

    model: an mbs.Model (shared by the threads; with params, threads must be 1), or a model
    file path or a callable returning a new Model (one per thread). q0 (K x nq), v0 (K x nv),
    tau (K x nv): start states and constant joint forces (None: the model's start, zero).
    params: [(kind, id[, index]), ...] as Model.set_param; values (K x len(params)): run k's
    values, set on its thread's model before it steps (the models get their values back
    after). kind and options: as Stepper. record > 0: also the state every `record` steps.
    Every run's result is bitwise that of stepping it alone with Data and Stepper; a run
    that fails stops alone (res.status, res.errors)."""
    specs = _param_specs(params)
    K = next((len(a) for a in (q0, v0, values, tau) if a is not None), None)
    if K is None:
        raise ValueError("batch: give q0, v0, tau or values (one row per run)")
    if specs and isinstance(model, Model) and threads > 1:
        raise ValueError("batch: per-run parameters on several threads need one model per "
                         "thread: pass the model file path or a factory")
    models = _models(model, int(threads) if specs else 1) * (1 if specs else int(threads))
    m = models[0]
    q0, v0 = _runs(K, m.nq, q0, "q0"), _runs(K, m.nv, v0, "v0")
    tau, values = _runs(K, m.nv, tau, "tau"), _runs(K, len(specs), values, "values")
    if specs and values is None:
        raise ValueError("batch: params need values (K x len(params))")
    bt = _Batch(models, K, stepper_def(kind, options))
    for k in range(K):
        for src, dst in ((q0, bt.q), (v0, bt.v), (tau, bt.tau)):
            if src is not None:
                dst[k][:] = src[k]
    saved = [(mm, [mm.get_param(*s) for s in specs]) for mm in {id(x): x for x in models}.values()]
    if specs:
        carr = (Param * len(specs))(*[_param(*s) for s in specs])
        lib.mbs_batch_set_params(bt.b, carr, len(specs), values.ctypes.data_as(c_double_p))
    try:
        return _run(bt, K, m, float(dt), int(nstep), int(record))
    finally:
        for mm, vals in saved:
            for (pk, pid, pidx), val in zip(specs, vals):
                mm.set_param(pk, pid, val, index=pidx)


def _run(bt, K, m, dt, nstep, record):
    """Step the batch (in chunks of `record` steps when recording); the BatchResult."""
    res = BatchResult()
    chunks = [nstep] if record <= 0 else [record] * (nstep // record) + (
        [nstep % record] if nstep % record else [])
    if record > 0:
        res.traj_q = np.empty((K, len(chunks) + 1, m.nq))
        res.traj_v = np.empty((K, len(chunks) + 1, m.nv))
        res.traj_t = np.concatenate([[0.0], np.cumsum(chunks) * dt])
        _record(bt, res, 0)
    for j, n in enumerate(chunks):
        lib.mbs_batch_run(bt.b, dt, n)  # the GIL is released here (ctypes.CDLL)
        if record > 0:
            _record(bt, res, j + 1)
    res.q, res.v = bt.state()
    res.t = np.array([lib.mbs_data_time(d) for d in bt.data])
    res.status = np.array([lib.mbs_batch_status(bt.b, k) for k in range(K)], dtype=np.int32)
    res.errors = [_error(bt, k, res.status[k]) for k in range(K)]
    return res


def _error(bt, k, status):
    """The message of a failed run: its data's, else its thread's model's (a parameter)."""
    if status == 0:
        return ""
    msg = lib.mbs_data_error(bt.data[k]).decode()
    return msg or lib.mbs_model_error(bt.models[k % len(bt.models)]._m).decode()
