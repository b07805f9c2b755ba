"""Friction with locking, brakes and prescribed motion through the Python binding, against
the closed forms of the C tests (tests/unit/events/test_friction.c, tests/unit/events/test_motion.c)."""
import math

import numpy as np
import pytest

import mbs

G = 9.81


def incline(slope, mu, mus, mass=2.0):
    """A block on a prismatic joint down a slope (gravity turned by the slope angle), with
    friction forces mu m g cos(slope) (sliding) and mus m g cos(slope) (stiction)."""
    b = mbs.Builder()
    b.set_gravity((G * math.sin(slope), 0, -G * math.cos(slope)))
    body = b.add_body("block", mass=mass, inertia=np.eye(3) * 1e-3)
    j = b.add_joint("prismatic", mbs.WORLD, body, name="slope", axis=(1, 0, 0))
    normal = mass * G * math.cos(slope)
    b.add_joint_friction(j, coulomb=mu * normal, stiction=mus * normal, name="contact")
    return mbs.Data(b.compile()), j


@pytest.mark.parametrize("kind", ["rk4", "cvode_adams"])
def test_incline_sticks_or_slides(kind):
    mu, mus, mass = 0.3, 0.5, 2.0
    for slope in (0.4, 0.6):  # tan 0.4 < 0.5 < tan 0.6
        d, j = incline(slope, mu, mus, mass)
        st = mbs.Stepper(d, kind, rtol=1e-11, atol=1e-12)
        for _ in range(100):
            st.step(5e-3)
        t = d.time
        if slope == 0.4:  # locked: holds m g sin(slope)
            assert d.joint_is_locked(j)
            assert abs(d.q[0]) < 1e-14 and d.v[0] == 0.0
            assert d.friction_force(j) == pytest.approx(-mass * G * math.sin(slope), abs=1e-12)
        else:  # slides from rest with g (sin - mu cos)
            a = G * (math.sin(slope) - mu * math.cos(slope))
            assert not d.joint_is_locked(j)
            assert d.q[0] == pytest.approx(0.5 * a * t * t, abs=1e-9)
            assert d.friction_force(j) == pytest.approx(-mu * mass * G * math.cos(slope), abs=1e-12)


def test_driven_pendulum_torque():
    """theta(t) = 0.8 sin(3 t): the driving torque is J theta'' + m g l sin theta."""
    m, l, icm = 1.3, 0.7, 0.05
    b = mbs.Builder()
    body = b.add_body("arm", mass=m, com=(0, 0, -l), inertia=np.diag([0.03, icm, 0.03]))
    j = b.add_joint("revolute", mbs.WORLD, body, name="pivot", axis=(0, 1, 0))
    motion = lambda t: (0.8 * math.sin(3 * t), 2.4 * math.cos(3 * t), -7.2 * math.sin(3 * t))
    assert b.add_joint_motion(j, motion) == 0
    d = mbs.Data(b.compile())
    st = mbs.Stepper(d, "rk4")
    for _ in range(50):
        st.step(2e-3)
        th, thd, thdd = motion(d.time)
        assert d.q[0] == pytest.approx(th, abs=1e-15) and d.v[0] == pytest.approx(thd, abs=1e-15)
        d.forward_dynamics()
        tau = (icm + m * l * l) * thdd + m * G * l * math.sin(th)
        assert d.driving_force(j) == pytest.approx(tau, rel=1e-12, abs=1e-12)
    assert math.isnan(d.driving_force(j, dof=1)) and math.isnan(d.driving_force(7))


def test_brake_and_errors():
    b = mbs.Builder()
    b.set_no_gravity()
    body = b.add_body("wheel", mass=1.0, inertia=np.diag([0.3, 0.3, 0.5]))
    j = b.add_joint("revolute", mbs.WORLD, body, name="axle")
    brake = b.add_joint_brake(j, limit=0.0, peak=1.5, name="brake")
    with pytest.raises(mbs.Error) as e:
        b.add_joint_friction(j, coulomb=2.0, stiction=1.0)
    assert "stiction = 1 is below coulomb = 2" in str(e.value)
    b.clear_error()
    d = mbs.Data(b.compile())
    d.v[0] = 10.0
    st = mbs.Stepper(d, "rk4")
    st.step(1e-2)
    d.set_brake_limit(brake, 2.0)  # 2 N m on J = 0.5: stops after 2.5 s, then locked
    for _ in range(300):
        st.step(1e-2)
    assert d.joint_is_locked(j) and d.v[0] == 0.0
    with pytest.raises(mbs.Error):
        d.set_brake_limit(brake, -1.0)
    with pytest.raises(mbs.Error):
        d.joint_is_locked(j, dof=1)
    assert math.isnan(d.friction_force(j, dof=1))


def test_motion_exception_fails_the_step():
    b = mbs.Builder()
    body = b.add_body("arm", mass=1.0, com=(0, 0, -0.5))
    j = b.add_joint("revolute", mbs.WORLD, body, axis=(0, 1, 0))

    def broken(t):
        if t > 0.01:
            raise ValueError("no more motion")
        return (0.0, 0.0, 0.0)
    b.add_joint_motion(j, broken)
    d = mbs.Data(b.compile())
    st = mbs.Stepper(d, "rk4")
    st.step(1e-2)
    q, t = d.q.copy(), d.time
    with pytest.raises(mbs.Error) as e:
        st.step(1e-2)
    assert isinstance(e.value.__cause__, ValueError)
    assert d.time == t and np.array_equal(d.q, q)


def test_reaction_friction_block():
    """A 2 kg block on a slide pressed by gravity and a 5 N host force slides with
    (P - mu N) / m, N = m g + 5 N: the normal force the slide really carries."""
    b = mbs.Builder()
    body = b.add_body("block", mass=2.0, inertia=np.diag([0.1, 0.1, 0.1]))
    j = b.add_joint("prismatic", mbs.WORLD, body, axis=(1, 0, 0))
    b.add_reaction_friction(j, mu=0.3, mu_stick=0.45, name="slide")
    with pytest.raises(mbs.Error) as e:
        b.add_reaction_friction(j, mu=0.0)
    assert "mu must be > 0" in str(e.value)
    b.clear_error()
    d = mbs.Data(b.compile())
    d.set_body_wrench(body, force=(0.0, 0.0, -5.0))
    d.tau[0] = 4.0
    d.v[0] = 0.5
    d.forward_dynamics()
    N = 2.0 * G + 5.0
    assert d.qacc[0] == pytest.approx((4.0 - 0.3 * N) / 2.0, rel=1e-12)
    assert d.friction_force(j) == pytest.approx(-0.3 * N, rel=1e-12)
