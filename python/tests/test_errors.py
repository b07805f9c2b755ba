"""Every failing C call becomes an mbs.Error subclass carrying the C message; wrongly shaped
arrays are refused before they reach C."""
import math

import numpy as np
import pytest

import mbs


def test_bad_body_raises_arg_error_with_message():
    b = mbs.Builder()
    with pytest.raises(mbs.ArgError) as e:
        b.add_body("arm2", mass=-1.0)
    assert e.value.status == -1 and e.value.name == "MBS_ERR_ARG"
    assert "arm2" in str(e.value)


def test_failed_call_is_sticky_until_cleared():
    b = mbs.Builder()
    b.add_body("good")
    with pytest.raises(mbs.ArgError):
        b.add_body("neg", mass=-1.0)  # the exception at the failing call
    with pytest.raises(mbs.ArgError):
        b.add_joint("revolute", mbs.WORLD, 1, axis=(0, 0, 0))  # a later failure
    with pytest.raises(mbs.ArgError) as e:
        b.compile()  # the model would lack "neg": refused, quoting the first failure
    assert str(e.value) == ('MBS_ERR_ARG: an earlier call failed: mbs_add_body: '
                            'body "neg" (id 2): mass is negative (-1)')
    b.clear_error()
    assert b.compile().nbody == 2


def test_wrong_shapes_are_refused():
    b = mbs.Builder()
    with pytest.raises(mbs.ArgError, match="com: expected 3 values"):
        b.add_body("x", com=(0, 0))
    body = b.add_body("x")
    b.add_joint("revolute", mbs.WORLD, body)
    d = mbs.Data(b.compile())
    with pytest.raises(mbs.ArgError, match="qacc: expected 1 values, got 2"):
        d.inverse_dynamics([1.0, 2.0])


def test_topology_and_nonfinite():
    b = mbs.Builder()
    body = b.add_body("x")
    with pytest.raises(mbs.ArgError):
        b.add_joint("revolute", body, 7)  # no body 7
    b.add_joint("revolute", mbs.WORLD, body)
    b.clear_error()  # handled above
    d = mbs.Data(b.compile())
    d.q[0] = math.nan
    with pytest.raises(mbs.NonfiniteError) as e:
        d.forward_dynamics()
    assert "q[0]" in str(e.value)
    d.q[0] = 0.0
    assert d.forward_dynamics().shape == (1,)


def test_failing_callback_is_callback_error():
    b = mbs.Builder()
    body = b.add_body("x")
    b.add_joint("revolute", mbs.WORLD, body)
    b.add_force_callback(lambda data: 1 / 0, name="broken")  # an exception counts as fatal
    d = mbs.Data(b.compile())
    with pytest.raises(mbs.CallbackError) as e:
        d.forward_dynamics()
    assert "broken" in str(e.value)
    assert isinstance(e.value.__cause__, ZeroDivisionError)  # the Python error, chained


def test_stepper_options_checked():
    b = mbs.Builder()
    body = b.add_body("x")
    b.add_joint("revolute", mbs.WORLD, body)
    d = mbs.Data(b.compile())
    with pytest.raises(TypeError):
        mbs.Stepper(d, "rk4", rtoll=1e-3)
    st = mbs.Stepper(d, "rk4")
    with pytest.raises(mbs.ArgError):
        st.step(-1.0)
    assert d.time == 0.0
