"""Point masses, forces between two frames, user line laws, parameters of a compiled model
and CVODES sensitivities, through the Python binding (the C tests' physics, shorter)."""
import math

import numpy as np
import pytest

import mbs

G = 9.81


def point_mass_orbit():
    """A 1 kg point mass (zero inertia) in the point gravity mu = 1 of the origin."""
    b = mbs.Builder()
    b.set_point_gravity((0, 0, 0), 1.0)
    b.add_body("planet", mass=1.0, inertia=np.zeros(9))
    return b.compile()


def test_point_mass_gets_a_translational_root_and_keeps_its_orbit():
    m = point_mass_orbit()
    assert (m.nq, m.nv) == (3, 3)
    d = mbs.Data(m)
    d.q[:] = (0.6, 0, 0)
    d.v[:] = (0, 1.0, 0)
    eps = 0.5 - 1 / 0.6
    a = -1 / (2 * eps)
    period = 2 * math.pi * math.sqrt(a ** 3)
    E0 = sum(d.energy())
    mbs.Stepper(d, "cvode_adams", rtol=1e-12, atol=1e-14).step(period)
    assert np.allclose(d.q, (0.6, 0, 0), atol=1e-8)
    assert abs(sum(d.energy()) - E0) < 1e-9


def spinning_body(with_frame_force):
    """A rigid body on its free root, no gravity, spinning; a force fixed in a frame on it,
    given as a frame force or rotated by hand in a force callback."""
    b = mbs.Builder()
    b.set_no_gravity()
    body = b.add_body("body", mass=2.0, com=(0.1, 0, 0), inertia=np.diag([0.3, 0.25, 0.35]))
    c, s = math.cos(0.7), math.sin(0.7)
    rot = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    f, t, pos = np.array([1.5, -0.5, 2.0]), np.array([0.2, 0.4, -0.3]), (0.3, -0.2, 0.1)
    if with_frame_force:
        b.add_frame_force(body, frame_b=(pos, rot), force=f, torque=t, name="thruster")
    else:
        def by_hand(data):
            _, R = data.body_pose(body)
            data.apply_body_wrench(body, R @ rot @ f, R @ rot @ t, pos)
        b.add_force_callback(by_hand)
    m = b.compile()
    d = mbs.Data(m)
    d.v[:] = (0.3, 0, 0, 1.0, -2.0, 1.5)
    return m, d


def test_frame_force_resolved_in_frame_b_equals_rotated_by_hand():
    runs = []
    for with_ff in (True, False):
        m, d = spinning_body(with_ff)
        st = mbs.Stepper(d, "rk4")
        for _ in range(300):
            st.step(1e-3)
        runs.append((m, d, d.q.copy(), d.v.copy()))
    assert np.allclose(runs[0][2], runs[1][2], atol=1e-12, rtol=0)
    assert np.allclose(runs[0][3], runs[1][3], atol=1e-12, rtol=0)


def test_frame_force_host_input_and_callback():
    b = mbs.Builder()
    b.set_no_gravity()
    body = b.add_body(mass=2.0)
    b.add_joint("prismatic", mbs.WORLD, body, axis=(1, 0, 0))
    e = b.add_frame_force(body, resolve="world", force=(4, 0, 0))
    b.add_frame_force(body, resolve="world", fn=lambda data, t: ((2 * t, 0, 0), (0, 0, 0)))
    m = b.compile()
    d = mbs.Data(m)
    d.time = 0.5
    assert d.forward_dynamics()[0] == pytest.approx((4 + 1) / 2, rel=1e-15)
    d.set_frame_force(e, force=(-2, 0, 0))
    assert d.forward_dynamics()[0] == pytest.approx((-2 + 1) / 2, rel=1e-15)
    with pytest.raises(mbs.ArgError):
        d.set_frame_force(e + 1, force=(1, 0, 0))  # the callback element
    with pytest.raises(mbs.ArgError):
        d.set_frame_force(e, force=(math.nan, 0, 0))
    assert d.forward_dynamics()[0] == pytest.approx((-2 + 1) / 2, rel=1e-15)
    with pytest.raises(mbs.ArgError):
        b.add_frame_force(mbs.WORLD)


def hanging(law=None, potential=None):
    b = mbs.Builder()
    body = b.add_body(mass=1.2, com=(0.1, 0.05, -0.02), inertia=np.diag([0.3, 0.25, 0.35]))
    if law:
        b.add_line_force(mbs.WORLD, body, law, point_a=(0, 0, 1), point_b=(0.2, 0.1, 0),
                         potential=potential)
    else:
        b.add_spring_damper(mbs.WORLD, body, (0, 0, 1), (0.2, 0.1, 0), 150.0, 3.0, 0.7)
    m = b.compile()
    d = mbs.Data(m)
    d.q[:3] = (0.1, -0.2, 0.3)
    d.v[:] = (0.5, 0, 0, 1.0, -0.5, 0.8)
    return m, d


def test_line_law_equals_spring_damper_bitwise_and_conserves_energy():
    out = []
    for law in (None, lambda L, rate, t: 150.0 * (L - 0.7) + 3.0 * rate):
        m, d = hanging(law)
        st = mbs.Stepper(d, "rk4")
        for _ in range(200):
            st.step(1e-3)
        out.append(np.concatenate([d.q, d.v]))
    assert np.array_equal(out[0], out[1])
    k1, k3 = 60.0, 400.0
    m, d = hanging(lambda L, rate, t: k1 * (L - 0.7) + k3 * (L - 0.7) ** 3,
                   lambda L: 0.5 * k1 * (L - 0.7) ** 2 + 0.25 * k3 * (L - 0.7) ** 4)
    E0 = sum(d.energy())
    mbs.Stepper(d, "cvode_adams", rtol=1e-11, atol=1e-13).step(2.0)
    assert abs(sum(d.energy()) - E0) < 1e-9 * abs(E0)


def chain(mass):
    b = mbs.Builder()
    l1 = b.add_body(mass=mass, com=(0.5, 0, 0), inertia=np.diag([0.01, 0.09, 0.09]))
    l2 = b.add_body(mass=0.7, com=(0.4, 0, 0), inertia=np.diag([0.01, 0.05, 0.05]))
    b.add_joint("revolute", mbs.WORLD, l1, axis=(0, 1, 0))
    b.add_joint("revolute", l1, l2, frame_parent=((1, 0, 0), None), axis=(0, 1, 0))
    b.add_spring_damper(mbs.WORLD, l2, (0, 0, 1), (0.8, 0, 0), 30.0, 0.2, 0.5)
    return b.compile()


def run(m):
    d = mbs.Data(m)
    d.q[:] = (0.4, -0.3)
    st = mbs.Stepper(d, "rk4")
    for _ in range(200):
        st.step(1e-3)
    return np.concatenate([d.q, d.v])


def test_changed_mass_equals_compiled_and_bad_values_refused():
    m = chain(1.0)
    m.set_param("mass", 1, 2.5)
    assert m.get_param("mass", 1) == 2.5
    assert np.array_equal(run(m), run(chain(2.5)))
    before = run(m)
    with pytest.raises(mbs.ArgError, match="mass is negative"):
        m.set_param("mass", 1, -1.0)
    with pytest.raises(mbs.ArgError, match="stiffness must be >= 0"):
        m.set_param("stiffness", 0, -3.0)
    with pytest.raises(mbs.ArgError):
        m.set_param("inertia", 2, 1.0, index=0)  # breaks the triangle inequality
    with pytest.raises(mbs.ArgError):
        m.set_param("size", 1, 1.0)
    assert np.array_equal(run(m), before)


def rotor_chain(J, ratio, mass):
    """The chain with a rotor on its second joint housed by the first link (native to ABA,
    moving housing) and a point mass on its spring."""
    b = mbs.Builder()
    l1 = b.add_body(mass=1.0, com=(0.5, 0, 0), inertia=np.diag([0.01, 0.09, 0.09]))
    l2 = b.add_body(mass=0.7, com=(0.4, 0, 0), inertia=np.diag([0.01, 0.05, 0.05]))
    b.add_joint("revolute", mbs.WORLD, l1, axis=(0, 1, 0))
    j = b.add_joint("revolute", l1, l2, frame_parent=((1, 0, 0), None), axis=(0, 1, 0))
    b.add_rotor(j, J, ratio=ratio, housing=l1, axis=(0.2, 1, 0))
    b.add_spring_damper(mbs.WORLD, l2, (0, 0, 1), (0.8, 0, 0), 30.0, 0.2, 0.5, mass=mass,
                        mass_fraction=0.4)
    return b.compile()


def test_rotor_and_line_mass_params_equal_compiled():
    m = rotor_chain(1e-3, 10.0, 0.3)
    m.set_param("rotor_inertia", 0, 2e-3)
    m.set_param("rotor_ratio", 0, -5.0)
    m.set_param("line_mass", 0, 0.5)
    assert m.get_param("rotor_ratio", 0) == -5.0
    assert np.array_equal(run(m), run(rotor_chain(2e-3, -5.0, 0.5)))
    before = run(m)
    with pytest.raises(mbs.ArgError, match="inertia must be > 0"):
        m.set_param("rotor_inertia", 0, 0.0)
    with pytest.raises(mbs.ArgError, match="must stay > 0"):
        m.set_param("line_mass", 0, 0.0)
    with pytest.raises(mbs.ArgError, match="mass_fraction must be in"):
        m.set_param("line_mass_place", 0, 1.5)
    with pytest.raises(mbs.ArgError, match="no friction values"):
        m.set_param("friction", 0, 1.0)
    with pytest.raises(mbs.ArgError, match="not a joint stop"):
        m.set_param("stop", 0, 1.0)
    assert np.array_equal(run(m), before)


def test_sensitivity_of_the_pendulum_period():
    """dT/dL = T / (2 L) with T = 4 sqrt(L/g) K(sin(theta0/2)), from dtheta/dL at T/4."""
    L, th0 = 0.8, 2.0
    a, b_ = 1.0, math.cos(th0 / 2)
    for _ in range(30):
        a, b_ = (a + b_) / 2, math.sqrt(a * b_)
    T = 4 * math.sqrt(L / G) * math.pi / (2 * a)
    b = mbs.Builder()
    b.set_gravity((0, 0, -G))
    bob = b.add_body(mass=1.0, com=(0, 0, -L), inertia=np.zeros(9))
    b.add_joint("revolute", mbs.WORLD, bob, axis=(1, 0, 0))
    m = b.compile()
    d = mbs.Data(m)
    d.q[0] = th0
    s = mbs.Sensitivity(m, d, [("com", bob, 2)], rtol=1e-9, atol=1e-11)
    s.run(T / 4)
    dq, dv = s.get(0)
    dTdL = 4 * dq[0] / d.v[0]
    assert dTdL == pytest.approx(T / (2 * L), rel=1e-7)
    assert m.get_param("com", bob, index=2) == -L  # the nominal value is back
    with pytest.raises(mbs.ArgError):
        mbs.Sensitivity(m, d, [("mass", bob), ("mass", bob)])
