"""Every negative mbs status is a Python exception carrying the C message."""

OK = 0


class Error(Exception):
    """An mbs call failed: `status` is the C status (negative), `name` its MBS_ERR_* name."""

    def __init__(self, status, name, message):
        super().__init__(f"{name}: {message}" if message else name)
        self.status = status
        self.name = name
        self.message = message


class ArgError(Error, ValueError):
    """MBS_ERR_ARG: NULL, out of range, non-finite or non-physical argument."""


class NoMemError(Error, MemoryError):
    """MBS_ERR_NOMEM."""


class StateError(Error):
    """MBS_ERR_STATE: the call is not valid now."""


class TopologyError(Error):
    """MBS_ERR_TOPOLOGY: the graph of bodies and joints is not valid."""


class SingularError(Error):
    """MBS_ERR_SINGULAR: a singular mass or constraint matrix."""


class ConvergenceError(Error):
    """MBS_ERR_CONVERGENCE: an iteration cap was hit."""


class InconsistentError(Error):
    """MBS_ERR_INCONSISTENT: constraints that cannot all hold."""


class NonfiniteError(Error, FloatingPointError):
    """MBS_ERR_NONFINITE: NaN or Inf appeared."""


class SolverError(Error):
    """MBS_ERR_SOLVER: the integrator failed."""


class CallbackError(Error):
    """MBS_ERR_CALLBACK: a user callback failed."""


class DeadlineError(Error):
    """MBS_ERR_DEADLINE: a step would exceed its work bound (max_work)."""


BY_STATUS = {-1: ArgError, -2: NoMemError, -3: StateError, -4: TopologyError,
             -5: SingularError, -6: ConvergenceError, -7: InconsistentError,
             -8: NonfiniteError, -9: SolverError, -10: CallbackError,
             -11: DeadlineError}


def raise_status(status, name, message):
    """Raise the exception of a negative status."""
    raise BY_STATUS.get(status, Error)(status, name, message)
