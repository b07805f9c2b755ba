"""Derivatives, linearisation and modes through the Python binding."""
import math

import numpy as np
import pytest

import mbs

G = 9.80665


def hanging_pendulum(damping=0.0):
    """1 kg at 0.5 m on a revolute about z, gravity -y, hanging (q = -pi/2)."""
    b = mbs.Builder()
    b.set_gravity((0, -G, 0))
    body = b.add_body("body", mass=1.0, com=(0.5, 0, 0), inertia=np.eye(3) * 1e-3)
    j = b.add_joint("revolute", mbs.WORLD, body, name="rev", axis=(0, 0, 1))
    b.add_joint_spring_damper(j, 0, 0.0, damping, 0.0)
    m = b.compile()
    d = mbs.Data(m)
    d.q[0] = -math.pi / 2
    return m, d


def spatial_chain():
    """A free quaternion root with a spherical and a universal joint below, a line spring to
    the world, uniform gravity."""
    b = mbs.Builder()
    b.set_gravity((0.3, -G, 0.5))
    ids = [b.add_body(f"b{i}", mass=1.0 + i, com=(0.2, 0.1 * i, 0),
                      inertia=np.diag([0.02, 0.03, 0.04])) for i in range(3)]
    b.add_joint("free", mbs.WORLD, ids[0])
    b.add_joint("spherical", ids[0], ids[1], frame_parent=((0.4, 0, 0), np.eye(3)))
    b.add_joint("universal", ids[1], ids[2], frame_parent=((0.4, 0, 0), np.eye(3)),
                axis=(0, 0, 1), axis2=(0, 1, 0))
    b.add_spring_damper(mbs.WORLD, ids[0], point_a=(0, 1, 0), stiffness=30.0, damping=1.0,
                        rest_length=0.3)
    m = b.compile()
    d = mbs.Data(m)
    rng = np.random.default_rng(3)
    d.q[:] = m.integrate_q(m.neutral_q(), rng.uniform(-1, 1, m.nv), 1.0)
    d.v[:] = rng.uniform(-1, 1, m.nv)
    d.tau[:] = rng.uniform(-1, 1, m.nv)
    return m, d


def test_pendulum_modes_and_matrix():
    damping = 0.02
    m, d = hanging_pendulum(damping)
    J = 1e-3 + 0.25
    w2 = 1.0 * G * 0.5 / J
    A, B = d.linearize()
    assert A.shape == (2, 2) and B.shape == (2, 1)
    assert np.allclose(A, [[0, 1], [-w2, -damping / J]], rtol=1e-13, atol=1e-13)
    assert B[0, 0] == 0.0 and B[1, 0] == pytest.approx(1.0 / J, rel=1e-14)
    lam = d.modes()
    wd = math.sqrt(w2 - (damping / (2 * J)) ** 2)
    assert lam[0] == pytest.approx(complex(-damping / (2 * J), wd), rel=1e-12)
    assert lam[1] == lam[0].conjugate()
    assert list(d.linearize_coordinates()) == [0]


def test_derivatives_against_finite_differences():
    m, d = spatial_chain()
    n = m.nv
    dq, dv, Minv = d.forward_dynamics_derivatives()
    q0, v0, h = d.q.copy(), d.v.copy(), 1e-6
    fq, fv = np.zeros((n, n)), np.zeros((n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = h
        d.q[:] = m.integrate_q(q0, e, 1.0)
        ap = d.forward_dynamics()
        d.q[:] = m.integrate_q(q0, -e, 1.0)
        am = d.forward_dynamics()
        d.q[:] = q0
        fq[:, j] = (ap - am) / (2 * h)
        d.v[:] = v0 + e
        ap = d.forward_dynamics()
        d.v[:] = v0 - e
        am = d.forward_dynamics()
        d.v[:] = v0
        fv[:, j] = (ap - am) / (2 * h)
    scale = 1.0 + np.abs(fq).max()
    assert np.abs(dq - fq).max() < 1e-6 * scale
    assert np.abs(dv - fv).max() < 1e-6 * (1.0 + np.abs(fv).max())
    M = d.mass_matrix()
    assert np.allclose(Minv @ M, np.eye(n), atol=1e-11)
    qacc = d.forward_dynamics()
    tq, tv, Mr = d.inverse_dynamics_derivatives(qacc)
    assert np.abs(Mr - M).max() < 1e-12 * np.abs(M).max()
    assert np.allclose(dq, -Minv @ tq, atol=1e-10 * scale)
    A, B = d.linearize()
    assert np.allclose(A[n:, :n], dq, rtol=0, atol=1e-12 * scale)
    assert np.allclose(B[n:], Minv, atol=1e-14)


def test_floating_chain_modes_are_finite_and_paired():
    m, d = spatial_chain()
    lam = d.modes()
    assert lam.shape == (2 * m.nv,)
    assert np.all(np.isfinite(lam))
    mag = np.abs(lam)
    assert np.all(np.diff(mag) >= -1e-12 * mag.max())  # sorted by magnitude


def test_errors():
    m, d = hanging_pendulum()
    with pytest.raises(mbs.ArgError):
        d.inverse_dynamics_derivatives([1.0, 2.0])
    d.q[0] = float("nan")
    with pytest.raises(mbs.NonfiniteError, match="q\\[0\\]"):
        d.modes()
    with pytest.raises(mbs.NonfiniteError):
        d.linearize()
