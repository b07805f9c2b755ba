"""Line forces with mass, rotors and nodes through the Python binding."""
import numpy as np
import pytest

import mbs


def pendulum_with(rotor=None, spring_mass=0.0):
    """1 kg at 0.5 m on a revolute about z (I_zz about the axis 0.251), no gravity."""
    b = mbs.Builder()
    b.set_gravity((0, 0, 0))
    body = b.add_body("link", mass=1.0, com=(0.5, 0, 0), inertia=np.eye(3) * 1e-3)
    j = b.add_joint("revolute", mbs.WORLD, body, name="pivot", axis=(0, 0, 1))
    if rotor:
        b.add_rotor(j, name="motor", **rotor)
    if spring_mass:
        b.add_spring_damper(mbs.WORLD, body, point_b=(1, 0, 0), stiffness=0.0,
                            mass=spring_mass, mass_fraction=1.0, name="heavy")
    return b.compile()


def test_rotor_adds_ratio_squared_inertia():
    m = pendulum_with(rotor=dict(inertia=2e-4, ratio=-30.0))
    assert m.nrotor == 1
    d = mbs.Data(m)
    d.tau[0] = 1.0
    d.forward_dynamics()
    assert d.qacc[0] == pytest.approx(1.0 / (0.251 + 900 * 2e-4), rel=1e-13)


def test_spring_mass_at_the_end_is_a_point_mass_on_the_link():
    d = mbs.Data(pendulum_with(spring_mass=0.3))
    d.tau[0] = 1.0
    d.forward_dynamics()
    assert d.qacc[0] == pytest.approx(1.0 / (0.251 + 0.3), rel=1e-13)


def test_two_masses_and_nodes():
    b = mbs.Builder()
    b.set_gravity((0, 0, 0))
    block = b.add_body("block", mass=2.0, inertia=np.eye(3) * 1e-2)
    b.add_joint("prismatic", mbs.WORLD, block, name="slide", axis=(1, 0, 0))
    node = b.add_body("knot", mass=0.0, inertia=np.zeros((3, 3)))
    b.add_spring_damper(mbs.WORLD, node, stiffness=100.0, rest_length=0.2)
    b.add_spring_damper(node, block, stiffness=300.0, rest_length=0.1)
    b.add_line_force_two_masses(mbs.WORLD, block, point_a=(0, 1, 0), mass_a=0.1,
                                distance_a=0.2, name="cylinder")
    m = b.compile()
    assert m.nnode == 1 and m.body_is_node(node) and not m.body_is_node(block)
    d = mbs.Data(m)
    d.q[0] = 0.6
    d.forward_dynamics()
    assert np.all(np.isfinite(d.qacc))


def test_bad_rotor_raises():
    b = mbs.Builder()
    body = b.add_body("link")
    j = b.add_joint("revolute", mbs.WORLD, body)
    with pytest.raises(mbs.ArgError, match="ratio must be nonzero"):
        b.add_rotor(j, inertia=1e-3, ratio=0.0)
    with pytest.raises(mbs.ArgError, match="mass_fraction"):
        b.add_spring_damper(mbs.WORLD, body, point_b=(1, 0, 0), mass=1.0, mass_fraction=2.0)
