"""The analyses through the Python binding: actuated inverse dynamics, static equilibrium,
position solving, each against a closed form or forward dynamics, and their errors."""
import math

import numpy as np
import pytest

import mbs

G = 9.81


def spring_pendulum(k, m=2.0, l=0.5, g=G):
    """A bar standing up (com at (0, l, 0)) on a revolute z joint with a torsion spring k,
    gravity -y: V = m g l cos q + k q^2 / 2."""
    b = mbs.Builder()
    if g:
        b.set_gravity((0, -g, 0))
    else:
        b.set_no_gravity()
    body = b.add_body("bar", mass=m, com=(0, l, 0))
    j = b.add_joint("revolute", mbs.WORLD, body, name="pivot", axis=(0, 0, 1))
    if k:
        b.add_joint_spring_damper(j, 0, k)
    model = b.compile()
    return model, mbs.Data(model)


def double_pendulum(l1=1.0, l2=0.7):
    """Two links along x on revolute z joints, in the x-y plane."""
    b = mbs.Builder()
    b1 = b.add_body("link1", com=(l1 / 2, 0, 0))
    b2 = b.add_body("link2", com=(l2 / 2, 0, 0))
    b.add_joint("revolute", mbs.WORLD, b1, name="j1")
    b.add_joint("revolute", b1, b2, name="j2", frame_parent=((l1, 0, 0), None))
    model = b.compile()
    return model, mbs.Data(model)


def fourbar():
    """Crank 0.25 (state priority) from (0, 0), coupler 0.7, rocker 0.5 from (0.6, 0), cut
    revolute 'B' coupler-rocker; gravity -y. Closed near crank 1.2."""
    b = mbs.Builder()
    b.set_gravity((0, -G, 0))
    lens, masses = (0.25, 0.7, 0.5), (1.0, 1.5, 1.2)
    bodies = [b.add_body(mass=mm, com=(ll / 2, 0, 0),
                         inertia=np.diag([1e-4, mm * ll * ll / 12, mm * ll * ll / 12]))
              for ll, mm in zip(lens, masses)]
    b.add_joint("revolute", mbs.WORLD, bodies[0], state_priority=1)
    b.add_joint("revolute", bodies[0], bodies[1], frame_parent=((0.25, 0, 0), None))
    b.add_joint("revolute", mbs.WORLD, bodies[2], frame_parent=((0.6, 0, 0), None))
    b.add_joint("revolute", bodies[1], bodies[2], name="B", cut=True,
                frame_parent=((0.7, 0, 0), None), frame_child=((0.5, 0, 0), None))
    model = b.compile()
    d = mbs.Data(model)
    d.q[:] = (1.2, -0.9, 1.9)
    d.assemble()
    return model, d


def test_equilibrium_spring_pendulum_closed_form():
    k = 0.6 * 2.0 * G * 0.5
    _, d = spring_pendulum(k)
    lo, hi = 0.5, 3.0  # k q = m g l sin q by bisection
    for _ in range(200):
        mid = (lo + hi) / 2
        if (k * lo - G * math.sin(lo)) * (k * mid - G * math.sin(mid)) <= 0:
            hi = mid
        else:
            lo = mid
    d.q[0], d.v[0] = 1.0, 0.4
    q = d.equilibrium()
    assert abs(q[0] - lo) < 1e-10
    assert d.v[0] == 0.0


def test_equilibrium_errors_leave_the_state():
    _, d = spring_pendulum(0.0)
    d.q[0], d.tau[0] = 2.0, 1.5 * 2.0 * G * 0.5  # a torque above m g l: none
    with pytest.raises(mbs.ConvergenceError, match="none found"):
        d.equilibrium()
    assert d.q[0] == 2.0
    with pytest.raises(mbs.ArgError, match="fixed"):
        d.equilibrium(fixed=[2])
    with pytest.raises(mbs.ArgError, match="expected 1 values"):
        d.equilibrium(fixed=[0, 1])
    _, d = spring_pendulum(0.0, g=0.0)  # every angle is one: not isolated
    with pytest.raises(mbs.SingularError, match="not isolated"):
        d.equilibrium()


def test_solve_positions_two_link_ik():
    l1, l2, x, y = 1.0, 0.7, 0.9, 0.8
    _, d = double_pendulum(l1, l2)
    c2 = (x * x + y * y - l1 * l1 - l2 * l2) / (2 * l1 * l2)
    for elbow, start in ((1, (0.2, 1.0)), (-1, (1.2, -1.1))):
        q2 = elbow * math.acos(c2)
        q1 = math.atan2(y, x) - math.atan2(l2 * math.sin(q2), l1 + l2 * math.cos(q2))
        d.q[:] = start
        q = d.solve_positions([(2, (l2, 0, 0), (x, y, 0))])
        assert np.allclose(q, (q1, q2), atol=1e-10, rtol=0)
    with pytest.raises(mbs.InconsistentError, match="target 0"):
        d.solve_positions([{"body": 2, "point": (l2, 0, 0), "pos": (2.0, 0.0, 0.0)}])
    with pytest.raises(mbs.ArgError, match="body"):
        d.solve_positions([(0, (0, 0, 0), (0, 0, 0))])


def test_inverse_dynamics_actuated_fourbar():
    _, d = fourbar()
    d.v[:] = 0.0
    d.assemble()
    d.tau[:] = (2.0, 0.0, 0.0)  # a crank torque: forward dynamics, then back
    qacc = d.forward_dynamics()
    tau = d.inverse_dynamics_actuated(qacc, [0])
    assert tau == pytest.approx([2.0, 0.0, 0.0], abs=1e-10)
    both = d.inverse_dynamics_actuated(qacc, [0, 2])  # over-actuated: minimum norm
    only_rocker = d.inverse_dynamics_actuated(qacc, [2])[2]
    a, b = 1 / 2.0, 1 / only_rocker
    assert both[[0, 2]] == pytest.approx([a / (a * a + b * b), b / (a * a + b * b)], rel=1e-10)
    with pytest.raises(mbs.InconsistentError, match="cut joint"):
        d.inverse_dynamics_actuated([1.0, 0.0, 0.0], [0])  # violates the loop
    with pytest.raises(mbs.ArgError, match="twice"):
        d.inverse_dynamics_actuated(qacc, [0, 0])
