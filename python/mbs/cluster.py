"""Sweeps on a cluster: mbs.sweep splits K runs into chunks and maps them over a Dask
distributed client (Debian: python3-distributed); each worker process loads the model file
once and steps its chunks with mbs.batch. The results are those of mbs.batch on one machine,
bit for bit (a run's result does not depend on where or with which others it ran).

    from dask.distributed import Client
    client = Client("tcp://scheduler:8786")          # or Client(LocalCluster(...))
    res = mbs.sweep(client, "/shared/fourbar.xml", q0, v0, params=[("mass", 2)],
                    values=masses[:, None], dt=1e-3, nstep=2000)
"""
import os

import numpy as np

from .batches import BatchResult, batch, load_model

_WORKER_MODELS = {}  # per worker process: path -> Model, loaded at the first chunk
_LOADS = [0]         # model files loaded by this process


def _worker_model(path):
    """The model of a file, loaded once per process."""
    if path not in _WORKER_MODELS:
        _WORKER_MODELS[path] = load_model(path)
        _LOADS[0] += 1
    return _WORKER_MODELS[path]


def _chunk(path, arrays, params, dt, nstep, kind, threads, record, options):
    """Run one chunk on a worker; its result fields as a dict."""
    res = batch(_worker_model(path), params=params, dt=dt, nstep=nstep, kind=kind,
                threads=threads, record=record, **arrays, **options)
    return dict(res.__dict__)


def _slice(a, lo, hi):
    return None if a is None else np.asarray(a)[lo:hi]


def sweep(client, path, q0=None, v0=None, params=None, values=None, tau=None, dt=1e-3,
          nstep=1000, kind="rk4", chunk=256, threads=1, record=0, **options):
    """mbs.batch's K runs of the model file `path` (readable at that path on every worker),
    in chunks of `chunk` runs mapped over the Dask distributed `client`; `threads` C threads
    per chunk (1 for workers with one thread each). Returns the BatchResult of all runs in
    order, equal bit for bit to mbs.batch(path, ...) on one machine."""
    path = os.path.abspath(os.fspath(path))
    K = next((len(a) for a in (q0, v0, values, tau) if a is not None), None)
    if K is None:
        raise ValueError("sweep: give q0, v0, tau or values (one row per run)")
    if params and threads > 1:
        raise ValueError("sweep: per-run parameters use one thread per chunk (threads=1)")
    futures = []
    for lo in range(0, K, int(chunk)):
        hi = min(K, lo + int(chunk))
        arrays = {"q0": _slice(q0, lo, hi), "v0": _slice(v0, lo, hi),
                  "values": _slice(values, lo, hi), "tau": _slice(tau, lo, hi)}
        futures.append(client.submit(_chunk, path, arrays, params, dt, nstep, kind, threads,
                                     record, options, pure=False))
    parts = client.gather(futures)
    merged = {}
    for key in parts[0]:
        if key == "errors":
            merged[key] = [e for p in parts for e in p[key]]
        elif key == "traj_t":
            merged[key] = parts[0][key]
        else:
            merged[key] = np.concatenate([p[key] for p in parts])
    return BatchResult(**merged)
