"""The physics of the C tests, reproduced through the Python binding."""
import math
import os
import subprocess

import numpy as np
import pytest

import mbs

G = 9.80665


def pendulum(damping=0.0, theta0=0.0):
    """1 kg at 0.5 m on a revolute about z, gravity along -y (mbs-sim's 'pendulum')."""
    b = mbs.Builder()
    b.set_gravity((0, -G, 0))
    body = b.add_body("body", mass=1.0, com=(0.5, 0, 0), inertia=np.eye(3) * 1e-3)
    j = b.add_joint("revolute", mbs.WORLD, body, name="rev", axis=(0, 0, 1))
    b.add_joint_spring_damper(j, 0, 0.0, damping, 0.0)
    m = b.compile()
    d = mbs.Data(m)
    d.q[0] = theta0
    return m, d


def agm_period(J, m, g, l, theta0):
    """Exact period 4 sqrt(J / (m g l)) K(sin(theta0 / 2)), K by the arithmetic-geometric mean."""
    a, b = 1.0, math.cos(theta0 / 2)
    for _ in range(8):  # quadratic convergence: 8 rounds are far below rounding
        a, b = (a + b) / 2, math.sqrt(a * b)
    return 4 * math.sqrt(J / (m * g * l)) * math.pi / (2 * a)


def test_pendulum_period_vs_elliptic_integral():
    m, d = pendulum(theta0=-math.pi / 2 + 1.0)  # 1 rad from the hanging position -pi/2
    st = mbs.Stepper(d, "rk4")
    dt, crossings, prev = 1e-4, [], d.q[0] + math.pi / 2
    while len(crossings) < 3:
        st.step(dt)
        x = d.q[0] + math.pi / 2
        if prev > 0 >= x or prev < 0 <= x:  # linear interpolation of the zero crossing
            crossings.append(d.time - dt * x / (x - prev))
        prev = x
    period = crossings[2] - crossings[0]
    exact = agm_period(1e-3 + 0.25, 1.0, G, 0.5, 1.0)
    assert abs(period - exact) < 1e-7 * exact


def test_energy_conserved_and_views_are_the_c_arrays():
    m, d = pendulum()
    d.q[0] = 0.3  # writes into the C array: the energy below sees it
    T0, V0 = d.energy()
    assert V0 == pytest.approx(G * 0.5 * math.sin(0.3), rel=1e-14)
    st = mbs.Stepper(d, "cvode_adams", rtol=1e-10, atol=1e-12)
    st.step(2.0)
    T1, V1 = d.energy()
    assert abs((T1 + V1) - (T0 + V0)) < 1e-7
    assert d.time == pytest.approx(2.0, abs=1e-15)
    d.forward_dynamics()
    assert not d.qacc.flags.writeable
    with pytest.raises(ValueError):
        d.qacc[0] = 1.0


def test_mass_matrix_factor_and_inverse_dynamics():
    b = mbs.Builder()
    prev = mbs.WORLD
    for i in range(5):
        body = b.add_body(f"l{i}", mass=1.0 + i, com=(0.2, 0, 0), inertia=np.diag([0.01, 0.02, 0.02]))
        b.add_joint("revolute", prev, body, axis=(0, 0, 1) if i % 2 else (0, 1, 0),
                    frame_parent=((0.4 if i else 0.0, 0, 0), None))
        prev = body
    m = b.compile()
    d = mbs.Data(m)
    rng = np.random.default_rng(3)
    d.q[:] = rng.uniform(-1, 1, m.nq)
    d.v[:] = rng.uniform(-1, 1, m.nv)
    d.tau[:] = rng.uniform(-1, 1, m.nv)
    M = d.mass_matrix()
    assert np.allclose(M, M.T, rtol=0, atol=0)
    qacc = d.forward_dynamics()
    assert np.allclose(d.inverse_dynamics(qacc), d.tau, rtol=0, atol=1e-11)
    LDL = d.mass_matrix_factor()
    x = d.mass_matrix_solve(LDL, d.tau - d.bias_forces())
    assert np.allclose(x, qacc, rtol=0, atol=1e-11)


def fourbar():
    """Planar four-bar in the x-y plane: crank 0.2, coupler 0.7, rocker 0.5, ground 0.6;
    closed by a cut revolute between coupler and rocker."""
    a, c, dd = 0.2, 0.5, 0.6
    b = mbs.Builder()
    b.set_gravity((0, -G, 0))
    bar = lambda L, mass: dict(mass=mass, com=(L / 2, 0, 0),
                               inertia=np.diag([1e-4, mass * L * L / 12, mass * L * L / 12]))
    crank = b.add_body("crank", **bar(a, 1.0))
    coupler = b.add_body("coupler", **bar(0.7, 1.5))
    rocker = b.add_body("rocker", **bar(c, 1.2))
    b.add_joint("revolute", mbs.WORLD, crank, name="O2")
    b.add_joint("revolute", crank, coupler, name="A", frame_parent=((a, 0, 0), None))
    b.add_joint("revolute", mbs.WORLD, rocker, name="O4", frame_parent=((dd, 0, 0), None))
    b.add_joint("revolute", coupler, rocker, name="B", cut=True,
                frame_parent=((0.7, 0, 0), None), frame_child=((c, 0, 0), None))
    m = b.compile()
    d = mbs.Data(m)
    d.q[m.joint_qadr(0)], d.q[m.joint_qadr(1)], d.q[m.joint_qadr(2)] = 1.0, -0.6, 1.9
    return m, d, coupler, rocker


def test_fourbar_closes_and_conserves_energy():
    m, d, coupler, rocker = fourbar()
    assert m.ncon == 5 and m.joint_is_cut(3)
    d.assemble()
    rank, active = d.constraint_info()
    assert rank == 2 and active.sum() == 2  # planar: 3 of the 5 rows are redundant
    st = mbs.Stepper(d, "cvode_adams", rtol=1e-10, atol=1e-12)
    E0 = sum(d.energy())
    for _ in range(10):
        st.step(0.1)
        pc, Rc = d.body_pose(coupler)
        pr, Rr = d.body_pose(rocker)
        B_coupler = pc + Rc @ np.array([0.7, 0, 0])
        B_rocker = pr + Rr @ np.array([0.5, 0, 0])
        assert np.linalg.norm(B_coupler - B_rocker) < 1e-10
    assert abs(sum(d.energy()) - E0) < 1e-6


def test_deterministic_bitwise():
    runs = []
    for _ in range(2):
        m, d, _, _ = fourbar()
        st = mbs.Stepper(d, "rk4")
        for _ in range(200):
            st.step(1e-3)
        runs.append((d.q.copy(), d.v.copy()))
    assert runs[0][0].tobytes() == runs[1][0].tobytes()
    assert runs[0][1].tobytes() == runs[1][1].tobytes()


def test_force_callback_equals_host_wrench():
    results = []
    for use_callback in (False, True):
        m, d = pendulum()
        if use_callback:
            b = mbs.Builder()
            b.set_gravity((0, -G, 0))
            body = b.add_body("body", mass=1.0, com=(0.5, 0, 0), inertia=np.eye(3) * 1e-3)
            b.add_joint("revolute", mbs.WORLD, body, axis=(0, 0, 1))
            b.add_force_callback(lambda data: data.apply_body_wrench(1, (0, 3.0, 0), point=(0.5, 0, 0)))
            m = b.compile()
            d = mbs.Data(m)
        else:
            d.set_body_wrench(1, (0, 3.0, 0), point=(0.5, 0, 0))
        results.append(d.forward_dynamics()[0])
    # the host-wrench pendulum runs the planar path, the callback one the 3-D path: equal to
    # rounding (the planar path takes uniform gravity as a base acceleration)
    assert results[0] == pytest.approx(results[1], rel=1e-14, abs=0)
    assert results[0] == pytest.approx(0.5 * (3.0 - G) / (0.25 + 1e-3), rel=1e-14)


@pytest.mark.skipif(not os.environ.get("MBS_SIM"), reason="MBS_SIM (the mbs-sim program) not set")
def test_same_trajectory_as_mbs_sim(tmp_path):
    """mbs-sim's 'pendulum' run and the same model stepped from Python: equal to the CSV's
    12 printed digits."""
    out = tmp_path / "p.csv"
    subprocess.run([os.environ["MBS_SIM"], "run", "pendulum", "--t-end", "0.5", "--out", str(out)],
                   check=True, capture_output=True)
    rows = np.genfromtxt(out, delimiter=",", names=True)
    m, d = pendulum(damping=0.1)
    st = mbs.Stepper(d, "rk4")
    for row in rows[1:]:
        st.step(1e-3)
        assert d.q[0] == pytest.approx(row["qrev"], rel=1e-10, abs=1e-11)
        assert d.v[0] == pytest.approx(row["vrev"], rel=1e-10, abs=1e-11)


def test_planar_path_equals_3d_path():
    """The pendulum is planar: both paths give the same acceleration to rounding."""
    results = []
    for planar in (True, False):
        b = mbs.Builder()
        b.set_planar(planar)
        body = b.add_body("body", mass=1.0, com=(0.5, 0, 0.1), inertia=np.eye(3) * 1e-3)
        b.add_joint("revolute", mbs.WORLD, body, axis=(0, 0, 1))
        m = b.compile()
        assert m.is_planar == planar
        d = mbs.Data(m)
        d.q[0], d.v[0] = 0.3, -1.2
        results.append(d.forward_dynamics()[0])
    assert results[0] == pytest.approx(results[1], rel=1e-14)


def test_load_urdf_double_pendulum():
    """A URDF loaded through Builder.load: names kept, the same dynamics as built by hand."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "fmu_double_pendulum.urdf")
    b = mbs.Builder()
    b.load(path)
    m = b.compile()
    assert m.nv == 2 and m.find_joint("elbow") >= 0
    d = mbs.Data(m)
    d.q[m.joint_qadr(m.find_joint("shoulder"))] = 0.3
    qacc = d.forward_dynamics()
    assert np.all(np.isfinite(qacc)) and abs(qacc).max() > 1.0
    with pytest.raises(mbs.ArgError) as e:
        mbs.Builder().load(os.path.join(os.path.dirname(__file__), "no_such_file.urdf"))
    assert "no_such_file.urdf" in str(e.value)


def test_controller_queries():
    """A hanging pendulum carries its weight; J v is the point velocity; the COM is 0.5 m out."""
    m, d = pendulum()
    d.q[0] = -math.pi / 2
    d.forward_dynamics()
    F, T = d.joint_reaction(0)
    assert np.allclose(F, (0, G, 0), atol=1e-12)
    d.q[0], d.v[0] = 0.2, 1.5
    J = d.point_jacobian(1, (0.5, 0, 0))
    assert J.shape == (6, 1)
    assert np.allclose(J[3:, 0] * d.v[0], [-0.5 * math.sin(0.2) * 1.5, 0.5 * math.cos(0.2) * 1.5, 0], atol=1e-14)
    assert np.allclose(d.com(), [0.5 * math.cos(0.2), 0.5 * math.sin(0.2), 0], atol=1e-14)
    lin, ang = d.momentum()
    assert np.allclose(lin, J[3:, 0] * 1.5, atol=1e-13)
    with pytest.raises(mbs.ArgError):
        d.point_jacobian(5)


def test_start_values_and_held_rocker():
    """A four-bar with its rocker started at 1.5 rad and held: the data starts at the start
    values, assembly keeps the rocker and moves the crank (as tests/unit/api/test_start.c)."""
    b = mbs.Builder()
    b.set_gravity((0, -9.81, 0))
    bars = [b.add_body(mass=m, com=(l / 2, 0, 0), inertia=np.diag([1e-4, m * l * l / 12, m * l * l / 12]))
            for m, l in ((1.0, 0.2), (1.5, 0.7), (1.2, 0.5))]
    crank = b.add_joint("revolute", mbs.WORLD, bars[0], axis=(0, 0, 1), state_priority=1)
    b.add_joint("revolute", bars[0], bars[1], frame_parent=((0.2, 0, 0), None), axis=(0, 0, 1))
    rocker = b.add_joint("revolute", mbs.WORLD, bars[2], frame_parent=((0.6, 0, 0), None), axis=(0, 0, 1))
    b.add_joint("revolute", bars[1], bars[2], frame_parent=((0.7, 0, 0), None),
                frame_child=((0.5, 0, 0), None), axis=(0, 0, 1), cut=True)
    b.set_joint_start(rocker, q=[1.5], v=[0.0])
    b.set_joint_hold(rocker, [True])
    with pytest.raises(mbs.ArgError, match="start q needs 1 values"):
        b.set_joint_start(rocker, q=[1.5, 2.0])
    b.clear_error()
    m = b.compile()
    q0, v0 = m.start()
    assert q0[m.joint_qadr(rocker)] == 1.5 and not v0.any()
    assert m.hold()[m.joint_vadr(rocker)] and m.hold().sum() == 1
    d = mbs.Data(m)
    assert d.q[m.joint_qadr(rocker)] == 1.5
    d.assemble()
    assert abs(d.q[m.joint_qadr(rocker)] - 1.5) < 1e-12
    assert abs(d.q[m.joint_qadr(crank)] - 1.559161770834) < 1e-9


def test_joint_force_drives():
    """A constant joint force on a free-floating wheel: qacc = F / I."""
    b = mbs.Builder()
    b.set_no_gravity()
    wheel = b.add_body(mass=2.0, inertia=np.diag([0.2, 0.2, 0.4]))
    j = b.add_joint("revolute", mbs.WORLD, wheel, axis=(0, 0, 1))
    b.add_joint_force(j, 0, 1.2)
    d = mbs.Data(b.compile())
    d.forward_dynamics()
    assert abs(d.qacc[0] - 3.0) < 1e-14
def _fourbar(closure):
    """A planar four-bar (crank 0.2, coupler 0.7, rocker 0.5, ground 0.6), cut at the
    coupler-rocker revolute; the crank keeps its coordinate (state priority)."""
    b = mbs.Builder()
    b.set_closure(closure)
    crank = b.add_body("crank", mass=1.0, com=(0.1, 0, 0))
    coupler = b.add_body("coupler", mass=1.5, com=(0.35, 0, 0))
    rocker = b.add_body("rocker", mass=1.2, com=(0.25, 0, 0))
    b.add_joint("revolute", mbs.WORLD, crank, state_priority=1)
    b.add_joint("revolute", crank, coupler, frame_parent=((0.2, 0, 0), None))
    b.add_joint("revolute", mbs.WORLD, rocker, frame_parent=((0.6, 0, 0), None))
    cut = b.add_joint("revolute", coupler, rocker, frame_parent=((0.7, 0, 0), None),
                      frame_child=((0.5, 0, 0), None), cut=True)
    return b.compile(), cut


def test_analytic_closure_matches_newton():
    """The four-bar's loop is a JointRRR: closed in closed form, with the same closed state
    and accelerations as Newton's method, and no Newton iteration."""
    out = []
    for closure in ("analytic", "newton"):
        m, cut = _fourbar(closure)
        d = mbs.Data(m)
        d.q[:] = (0.4, 1.2, 1.9)
        d.v[0] = 2.0
        d.assemble()
        out.append((m, d, cut, d.q.copy(), d.forward_dynamics().copy()))
    (ma, da, cut, qa, aa), (mn, dn, _, qn, an) = out
    assert ma.cut_assembly(cut) == "JointRRR" and mn.cut_assembly(cut) is None
    assert da.cut_joint_closure(cut) == "analytic" and dn.cut_joint_closure(cut) == "newton"
    assert da.newton_iterations == 0 and dn.newton_iterations > 0
    assert np.allclose(qa, qn, rtol=0, atol=1e-10)
    assert np.allclose(aa, an, rtol=1e-10, atol=1e-10)
    with pytest.raises(mbs.ArgError):
        da.cut_joint_closure(0)
