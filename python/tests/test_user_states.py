"""User state equations from Python: a DC motor (L di/dt = u - R i - k_e w, torque k_t i)
on a flywheel, its steady state against the closed form, the derivative query, start
values, the linearisation with the current in the state, and an exception inside the
function."""
import numpy as np
import pytest

import mbs

R, L, K, U, J, B = 1.0, 0.01, 0.05, 12.0, 0.01, 0.1


def motor(data, x, xdot):
    w = data.v[0]
    xdot[0] = (U - R * x[0] - K * w) / L
    data.apply_generalized_force(0, K * x[0])


def flywheel(fn=motor, start=None):
    b = mbs.Builder()
    body = b.add_body("wheel", mass=1.0, inertia=np.eye(3) * J)
    j = b.add_joint("revolute", mbs.WORLD, body, axis=(0, 0, 1))
    b.add_joint_spring_damper(j, 0, 0.0, B, 0.0)
    e = b.add_user_states(1, fn, name="motor", start=start)
    m = b.compile()
    return m, mbs.Data(m), e


def test_steady_state_closed_form():
    m, d, e = flywheel()
    assert m.nuser_states == 1 and m.user_states_adr(e) == 0
    st = mbs.Stepper(d, "rk4")
    for _ in range(4000):
        st.step(1e-3)
    den = R * B + K * K
    assert d.v[0] == pytest.approx(U * K / den, rel=1e-9)
    assert d.user_states[0] == pytest.approx(U * B / den, rel=1e-9)


def test_derivative_query_and_start_values():
    m, d, e = flywheel(start=[1.5])
    assert list(m.user_states_start()) == [1.5]
    assert d.user_states[0] == 1.5
    d.v[0] = 3.0
    d.set_user_states(e, [2.0])
    xdot = d.user_states_derivative()
    assert xdot[0] == pytest.approx((U - R * 2.0 - K * 3.0) / L, rel=1e-14)
    qacc = d.forward_dynamics()
    assert qacc[0] == pytest.approx((K * 2.0 - B * 3.0) / J, rel=1e-12)
    with pytest.raises(mbs.ArgError):
        d.set_user_states(e, [float("nan")])
    with pytest.raises(mbs.ArgError):
        d.set_user_states(0, [1.0])  # the damper is not a user-state element
    assert d.user_states[0] == 2.0


def test_linearize_includes_the_current():
    """x = (theta, w, i): A = [0 1 0; 0 -B/J K/J; 0 -K/L -R/L] (central differences of a
    linear model: 1e-8), modes 0 and the roots of s^2 + (B/J + R/L) s + (R B + K^2)/(J L)."""
    m, d, e = flywheel()
    d.v[0], d.user_states[0] = 2.0, 0.5
    A, Bm = d.linearize()
    expect = np.array([[0, 1, 0], [0, -B / J, K / J], [0, -K / L, -R / L]])
    assert A.shape == (3, 3) and Bm.shape == (3, 1)
    np.testing.assert_allclose(A, expect, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(Bm[:, 0], [0, 1 / J, 0], rtol=1e-8, atol=1e-8)
    assert d.user_states[0] == 0.5 and d.v[0] == 2.0
    lam = d.modes()
    roots = np.roots([1.0, B / J + R / L, (R * B + K * K) / (J * L)])
    np.testing.assert_allclose(np.sort(lam.real), np.sort(np.append(roots.real, 0.0)),
                               rtol=1e-6, atol=1e-9)


def test_sensitivity_of_the_steady_state():
    """d/dB of the steady state (w_ss = U K / den, i_ss = U B / den, den = R B + K^2):
    dw/dB = -U K R / den^2, di/dB = U K^2 / den^2, reached by 4 s (time constants <= 0.1 s);
    the current's sensitivity from get_user_states."""
    m, d, e = flywheel()
    s = mbs.Sensitivity(m, d, [("damping", 0)], kind="cvode_bdf", max_step=2e-3)
    s.run(4.0)
    dq, dv = s.get(0)
    di = s.get_user_states(0)
    den = R * B + K * K
    assert dv[0] == pytest.approx(-U * K * R / den ** 2, rel=1e-6)
    assert di.shape == (1,) and di[0] == pytest.approx(U * K * K / den ** 2, rel=1e-6)


def test_exception_is_fatal_and_restores():
    def broken(data, x, xdot):
        if data.time > 0.01:
            raise RuntimeError("sensor lost")
        motor(data, x, xdot)
    m, d, e = flywheel(broken)
    st = mbs.Stepper(d, "cvode_bdf")
    st.step(0.01)
    before = (d.time, d.q.copy(), d.v.copy(), d.user_states.copy())
    with pytest.raises(mbs.CallbackError) as err:
        st.step(0.01)
    assert isinstance(err.value.__cause__, RuntimeError)
    assert "motor" in str(err.value)
    assert d.time == before[0] and d.q[0] == before[1][0] and d.v[0] == before[2][0]
    assert d.user_states[0] == before[3][0]
