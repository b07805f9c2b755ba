"""mbs.batch: K runs on C threads equal, bit for bit, the runs stepped one by one with Data
and Stepper (shared model, per-run parameters, recorded trajectories); a failing run stops
alone; the GIL is released while a batch steps."""
import os
import threading
import time

import numpy as np
import pytest

import mbs

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")
PENDULUM = os.path.join(MODELS, "double_pendulum.xml")
FOURBAR = os.path.join(MODELS, "fourbar_analytic.xml")


def serial(model, q0, v0, nstep, dt=1e-3, params=(), values=None, kind="rk4"):
    """The runs one by one: end q, v (K x n) and their q every `nstep` steps."""
    qs, vs = [], []
    for k in range(len(v0)):
        for j, (pk, pid) in enumerate(params):
            model.set_param(pk, pid, values[k, j])
        d = mbs.Data(model)
        if q0 is not None:
            d.q = q0[k]
        d.v = v0[k]
        s = mbs.Stepper(d, kind)
        for _ in range(nstep):
            s.step(dt)
        qs.append(d.q.copy())
        vs.append(d.v.copy())
    return np.array(qs), np.array(vs)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kind", ["rk4", "adams"])
def test_shared_model_bitwise(threads, kind):
    m = mbs.load_model(PENDULUM)
    rng = np.random.default_rng(3)
    q0, v0 = rng.uniform(-1, 1, (6, m.nq)), rng.uniform(-1, 1, (6, m.nv))
    res = mbs.batch(m, q0, v0, nstep=300, threads=threads, kind=kind)
    q, v = serial(m, q0, v0, 300, kind=kind)
    assert (res.status == 0).all()
    assert np.array_equal(res.q, q) and np.array_equal(res.v, v)
    assert np.allclose(res.t, 0.3)
    assert not np.array_equal(res.q[0], res.q[1])


def test_params_per_run_fourbar():
    """Per-run masses of the four-bar's crank on two threads (the file loaded per thread),
    recorded every 100 steps: equal to setting each mass and stepping alone."""
    m = mbs.load_model(FOURBAR)
    b1 = m.find_body("b1")
    mass0 = m.get_param("mass", b1)
    K = 5
    v0 = np.tile(mbs.Data(m).v, (K, 1))
    v0[:, 0] = np.linspace(3.0, 6.0, K)
    values = np.linspace(0.5, 1.5, K)[:, None] * mass0
    res = mbs.batch(FOURBAR, v0=v0, params=[("mass", b1)], values=values, nstep=400,
                    threads=2, record=100)
    q, v = serial(m, None, v0, 400, params=[("mass", b1)], values=values)
    assert (res.status == 0).all(), res.errors
    assert np.array_equal(res.q, q) and np.array_equal(res.v, v)
    assert res.traj_q.shape == (K, 5, m.nq) and np.array_equal(res.traj_q[:, -1], q)
    assert np.allclose(res.traj_t, [0, 0.1, 0.2, 0.3, 0.4])
    # a Model given with parameters gets its values back afterwards
    before = m.get_param("mass", b1)
    mbs.batch(m, v0=v0, params=[("mass", b1)], values=1.1 * values, nstep=1)
    assert m.get_param("mass", b1) == before
    with pytest.raises(ValueError, match="one model per"):
        mbs.batch(m, v0=v0, params=[("mass", b1)], values=values, threads=2)


def test_failing_run_stops_alone():
    m = mbs.load_model(PENDULUM)
    K = 4
    tau = np.zeros((K, m.nv))
    tau[1, 0] = np.nan
    v0 = np.ones((K, m.nv))
    res = mbs.batch(m, v0=v0, tau=tau, nstep=200, threads=2)
    assert res.status[1] == -8 and "tau" in res.errors[1]  # MBS_ERR_NONFINITE
    assert res.t[1] == 0.0
    ok = [0, 2, 3]
    assert (res.status[ok] == 0).all() and all(res.errors[k] == "" for k in ok)
    q, _ = serial(m, None, v0[ok], 200)
    assert np.array_equal(res.q[ok], q)


def test_gil_released():
    """Another Python thread runs while a batch steps: the main thread's loop makes progress
    strictly inside the batch call (ctypes.CDLL releases the GIL around foreign calls)."""
    m = mbs.load_model(PENDULUM)
    span = {}

    def work():
        span["start"] = time.perf_counter()
        mbs.batch(m, v0=np.ones((64, m.nv)), nstep=12000, threads=1)
        span["end"] = time.perf_counter()

    th = threading.Thread(target=work)
    th.start()
    ticks = []
    while th.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    th.join()
    # the C call dominates the batch; with the GIL held there would be no tick inside it
    inside = [t for t in ticks if span["start"] + 0.02 < t < span["end"] - 0.02]
    assert span["end"] - span["start"] > 0.1
    assert len(inside) > 5


def test_monte_carlo_example_nominal():
    """The Monte Carlo example's nominal four-bar: its assembled coupler point equals the
    closed form (the crank's circle and the rocker's circle intersected), and a few samples
    run without failure."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "monte_carlo_fourbar.py")
    spec = importlib.util.spec_from_file_location("monte_carlo_fourbar", path)
    mc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mc)
    a, b, c, d = mc.NOMINAL
    A = np.array([a * np.cos(mc.CRANK0), a * np.sin(mc.CRANK0)])
    D = np.linalg.norm([d, 0] - A)
    e = ([d, 0] - A) / D
    x = (b * b - c * c + D * D) / (2 * D)
    B = A + x * e - np.sqrt(b * b - x * x) * np.array([-e[1], e[0]])  # the lower branch
    u = (B - A) / b
    P = A + (b / 2) * u + 0.1 * np.array([-u[1], u[0]])
    p0, p1, status = mc.sample(mc.NOMINAL)
    assert status == 0 and np.abs(p0 - P).max() < 1e-9
    p0s, p1s, st = mc.run(mc.NOMINAL + 1e-4 * np.arange(12).reshape(3, 4), 2)
    assert (st == 0).all() and p1s.shape == (3, 2)
