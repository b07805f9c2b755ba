"""The real-time options through the Python binding: the work counters and a stepper's
max_work bound (MBS_ERR_DEADLINE), against the C semantics of tests/unit/steppers/test_deadline.c."""
import math

import numpy as np
import pytest

import mbs


def pendulum():
    """1 kg at 0.5 m on a revolute about z, gravity along -y, started 1 rad off."""
    b = mbs.Builder()
    b.set_gravity((0, -9.81, 0))
    body = b.add_body("body", mass=1.0, com=(0.5, 0, 0), inertia=np.eye(3) * 1e-3)
    b.add_joint("revolute", mbs.WORLD, body, name="rev", axis=(0, 0, 1))
    d = mbs.Data(b.compile())
    d.q[0] = -math.pi / 2 + 1.0
    return d


def test_work_counts_the_evaluations_of_a_step():
    d = pendulum()
    w0 = d.work()
    mbs.Stepper(d, "rk4").step(1e-3)
    w1 = d.work()
    assert w1["evals"] - w0["evals"] == 4  # RK4: four evaluations, nothing else
    assert w1["units"] - w0["units"] == 4
    assert w1["newton"] == w1["factor"] == w1["event_iter"] == 0


@pytest.mark.parametrize("kind,units", [("rk4", 4), ("euler", 1)])
def test_max_work_bounds_a_step(kind, units):
    ok, tight = pendulum(), pendulum()
    ref = mbs.Stepper(ok, kind)
    within = mbs.Stepper(tight, kind, max_work=units)  # exactly the step's work: it runs
    for _ in range(10):
        ref.step(1e-3)
        within.step(1e-3)
    assert tight.q[0] == ok.q[0] and tight.v[0] == ok.v[0]  # bit for bit the unbounded step


def test_max_work_below_a_step_raises_with_state_kept():
    d = pendulum()
    short = mbs.Stepper(d, "rk4", max_work=3)  # RK4 needs 4 evaluations
    q, v, t = d.q.copy(), d.v.copy(), d.time
    with pytest.raises(mbs.DeadlineError) as e:
        short.step(1e-3)
    assert e.value.name == "MBS_ERR_DEADLINE"
    assert np.array_equal(d.q, q) and np.array_equal(d.v, v) and d.time == t  # restored


def test_max_work_refused_for_cvode():
    with pytest.raises(mbs.Error, match="max_work = 10 bounds fixed-step kinds only"):
        mbs.Stepper(pendulum(), "cvode_adams", max_work=10)


def test_max_work_is_a_known_option_only_by_name():
    with pytest.raises(TypeError):
        mbs.Stepper(pendulum(), "rk4", max_wrok=10)


def test_worst_work_of_a_tree_is_its_evaluations():
    d = pendulum()
    st = mbs.Stepper(d, "rk4")
    for _ in range(3):
        st.step(1e-3)
    bound, seen = st.worst_work(1e-3)
    assert bound["evals"] == 4 and bound["units"] == 4 and seen["units"] == 4
    with pytest.raises(mbs.ArgError):
        st.worst_work(-1.0)
