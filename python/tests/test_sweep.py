"""mbs.sweep on a Dask LocalCluster of two worker processes: the results equal the serial
runs bit for bit, and each worker loads the model file once. Skipped when Dask's distributed
is not importable (Debian: python3-distributed)."""
import os

import numpy as np
import pytest

import mbs

distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed "
                                  "(Debian: python3-distributed); mbs.sweep is not tested")

FOURBAR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models",
                       "fourbar_analytic.xml")


def _loads():
    from mbs import cluster
    return cluster._LOADS[0]


def test_sweep_local_cluster_bitwise():
    m = mbs.load_model(FOURBAR)
    b1 = m.find_body("b1")
    K = 40
    v0 = np.tile(mbs.Data(m).v, (K, 1))
    v0[:, 0] = np.linspace(2.0, 6.0, K)
    values = np.linspace(0.8, 1.2, K)[:, None] * m.get_param("mass", b1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        res = mbs.sweep(client, FOURBAR, v0=v0, params=[("mass", b1)], values=values,
                        nstep=300, chunk=7, record=100)
        loads = client.run(_loads)  # model files loaded per worker process
    ref = mbs.batch(m, v0=v0, params=[("mass", b1)], values=values, nstep=300, record=100)
    assert (res.status == 0).all() and res.errors == [""] * K
    for key in ("q", "v", "t", "traj_q", "traj_v", "traj_t"):
        assert np.array_equal(getattr(res, key), getattr(ref, key)), key
    # the serial reference is the runs stepped alone (test_batch checks batch == alone)
    d = mbs.Data(m)
    m.set_param("mass", b1, values[-1, 0])
    d.v = v0[-1]
    s = mbs.Stepper(d, "rk4")
    for _ in range(300):
        s.step(1e-3)
    assert np.array_equal(d.q, res.q[-1])
    assert len(loads) == 2 and all(n <= 1 for n in loads.values()), loads
    assert sum(loads.values()) >= 1
