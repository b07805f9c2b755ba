"""What a new user trips over first: assigning a state array writes into the simulation,
names that are not known are refused with the valid ones, mbs-sim's stepper names work, and
the package reports its version."""
import pathlib
import re

import numpy as np
import pytest

import mbs


def _pendulum():
    b = mbs.Builder()
    body = b.add_body("link", mass=1.0, com=(0.5, 0, 0), inertia=np.eye(3) * 1e-3)
    b.add_joint("revolute", mbs.WORLD, body, axis=(0, 1, 0))
    return b


def test_assigning_q_v_tau_writes_the_c_state():
    d = mbs.Data(_pendulum().compile())
    view = d.q
    d.q = np.array([0.3])
    d.v = [0.5]
    d.tau = (0.25,)
    assert d.q is view and d.q[0] == 0.3   # the same C array, not a new attribute
    ref = mbs.Data(d.model)
    ref.q[0], ref.v[0], ref.tau[0] = 0.3, 0.5, 0.25
    assert d.forward_dynamics()[0] == ref.forward_dynamics()[0]
    s = mbs.Stepper(d, "rk4")
    s.step(1e-3)
    assert d.q[0] != 0.3                     # the stepper moved what the name shows


def test_assigning_state_arrays_is_checked():
    d = mbs.Data(_pendulum().compile())
    with pytest.raises(mbs.ArgError, match="Data.q: expected 1 values, got 2"):
        d.q = [1.0, 2.0]
    with pytest.raises(AttributeError, match="read-only"):
        d.qacc = [0.0]
    with pytest.raises(AttributeError, match="read-only"):
        d.lam = []


def test_assigning_user_states_writes_the_c_state():
    b = _pendulum()
    e = b.add_user_states(2, lambda data, x, xdot: None, name="two")
    d = mbs.Data(b.compile())
    view = d.user_states
    d.user_states = [1.5, -2.0]
    assert d.user_states is view
    assert list(mbs.Data(d.model).user_states) == [0.0, 0.0]
    d.set_user_states(e, [1.5, -2.0])                  # the C setter agrees with the view
    assert list(d.user_states) == [1.5, -2.0]


def test_unknown_names_name_the_valid_choices():
    b = _pendulum()
    with pytest.raises(mbs.ArgError, match=r"unknown joint type 'hinge' \(one of revolute, "):
        b.add_joint("hinge", mbs.WORLD, 1)
    d = mbs.Data(b.compile())
    with pytest.raises(mbs.ArgError, match=r"unknown stepper 'rk5' \(one of euler, rk4, adams, "):
        mbs.Stepper(d, "rk5")
    with pytest.raises(mbs.ArgError, match="unknown parameter kind 'length'"):
        d.model.get_param("length", 1)


@pytest.mark.parametrize("short, long", [("adams", "cvode_adams"), ("bdf", "cvode_bdf")])
def test_mbs_sim_stepper_names(short, long):
    out = []
    for kind in (short, long):
        d = mbs.Data(_pendulum().compile())
        d.q[0] = 1.0
        mbs.Stepper(d, kind).step(0.5)
        out.append((d.time, d.q[0], d.v[0]))
    assert out[0] == out[1]


def test_version_is_the_project_version():
    meson = (pathlib.Path(__file__).resolve().parents[2] / "meson.build").read_text()
    assert mbs.__version__ == re.search(r"version : '([^']+)'", meson).group(1)


ROBOT = """<robot xmlns:drake="http://drake.mit.edu">
<link name="dummy"><inertial><mass value="1e-6"/>
  <inertia ixx="1e-6" ixy="1e-6" ixz="1e-6" iyy="1e-6" iyz="1e-6" izz="1e-6"/></inertial></link>
<link name="base"><inertial><mass value="2"/>
  <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
<joint name="weld" type="fixed"><parent link="dummy"/><child link="base"/></joint>
<drake:collision_filter_group name="g"/>
</robot>
"""


def test_load_options_and_warnings(tmp_path):
    path = tmp_path / "robot.urdf"
    path.write_text(ROBOT)
    b = mbs.Builder()
    warnings = b.load(path)
    assert len(warnings) == 2
    assert ":2: <link name=\"dummy\">: the link cannot move (welded to the world)" in warnings[0]
    assert ":7: <drake:collision_filter_group name=\"g\">: skipped" in warnings[1]
    assert b.compile().nv == 0
    with pytest.raises(mbs.ArgError, match="triangle inequality"):
        mbs.Builder().load(path, floating_base=True)     # the dummy moves: refused
    b = mbs.Builder()
    warnings = b.load(path, floating_base=True, balance_inertia=True)
    assert any("balanced to 1e-06 each" in w for w in warnings)
    m = b.compile()
    assert (m.nq, m.nv) == (7, 6) and m.find_joint("floating_base") >= 0
