"""mbs: the embeddable multibody dynamics library, from Python.

    import mbs
    b = mbs.Builder()
    link = b.add_body("link", mass=1.0, com=(0.5, 0, 0), inertia=[0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01])
    b.add_joint("revolute", mbs.WORLD, link, axis=(0, 1, 0))
    model = b.compile()
    data = mbs.Data(model)
    data.q[0] = 0.3
    stepper = mbs.Stepper(data, "rk4")
    for _ in range(1000):
        stepper.step(1e-3)

Names follow the C API (mbs_add_body -> Builder.add_body, mbs_forward_dynamics ->
Data.forward_dynamics, ...); every failing call raises an mbs.Error subclass carrying the C
message. See docs/python.md.
"""
from .core import Builder, Model, WORLD, JOINT_TYPES, STEPPERS, status_name
from .data import Data, Stepper
from . import extra_forces  # Builder.add_frame_force / add_line_force, Data.set_frame_force
from . import user_states  # Builder.add_user_states, Data.user_states and the like
from .params import Sensitivity, PARAMS  # Model.set_param and the like, sensitivities
from .batches import batch, load_model, BatchResult  # many runs on a pool of C threads
from .cluster import sweep  # run chunks mapped over a Dask distributed client
from ._lib import lib as _clib
from .errors import (Error, ArgError, NoMemError, StateError, TopologyError, SingularError,
                     ConvergenceError, InconsistentError, NonfiniteError, SolverError,
                     CallbackError, DeadlineError)

__version__ = _clib.mbs_version().decode()  # the version of the libmbs that was loaded

__all__ = ["Builder", "Model", "Data", "Stepper", "Sensitivity", "PARAMS", "WORLD",
           "batch", "load_model", "BatchResult", "sweep",
           "JOINT_TYPES", "STEPPERS",
           "status_name", "Error", "ArgError", "NoMemError", "StateError", "TopologyError",
           "SingularError", "ConvergenceError", "InconsistentError", "NonfiniteError",
           "SolverError", "CallbackError", "DeadlineError"]
