"""Exceptions raised by clsolve. Every message names the field and the limit involved."""

from __future__ import annotations


class ClsolveError(Exception):
    """Base class of every error clsolve raises on purpose."""


class InvalidProblemError(ClsolveError, ValueError):
    """A problem's data is malformed: wrong shape, negative, fractional, NaN, too large."""


class UnsupportedProblemError(ClsolveError):
    """The chosen solver does not accept this problem (for example m > 3 for a DP solver)."""


class DoesNotFitError(ClsolveError, MemoryError):
    """The solver's plan needs more memory than the device (or host) has; nothing was allocated."""


class UnknownSolverError(ClsolveError, LookupError):
    """No installed solver has this name."""


class DeviceNotFoundError(ClsolveError, LookupError):
    """No OpenCL device matches the requested specification."""


class KernelBuildError(ClsolveError, RuntimeError):
    """An OpenCL program failed to build; the message holds device, options and compiler log."""


class SolutionCheckError(ClsolveError, AssertionError):
    """A solver returned a solution that is infeasible or whose value does not match its items."""


class PlanError(ClsolveError, RuntimeError):
    """A solver allocated a device buffer its plan did not count (a name the plan lacks, or more bytes
    under a name than the plan counted): the plan, by which the engine refuses what does not fit, was
    wrong. A bug in the solver; the message names the buffer and both sizes."""


class FormatError(ClsolveError, ValueError):
    """An instance file could not be read; the message names the file and the line. ``invalid``: the
    file reads as an instance of its format, but its data break a rule of the problem (a negative
    profit, a capacity missing): a folder reports such a file as an error, where it skips a file that
    is no instance at all."""

    def __init__(self, path: str, line: int | None, message: str, invalid: bool = False):
        self.path = path
        self.line = line
        self.invalid = invalid
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")


class TimeLimitError(ClsolveError, TimeoutError):
    """The time limit passed before the solver had any answer (a DP has none before its last row);
    the message says how far it got. Anytime solvers return their best answer instead."""


class DeviceError(ClsolveError, RuntimeError):
    """The OpenCL runtime failed during a solve (an allocation refused although the plan fitted, a
    lost device, a crashed kernel). ``code`` is the OpenCL error's name; ``reset`` says whether the
    device's context was lost and replaced by a fresh one (the next solve on it starts afresh)."""

    def __init__(self, message: str, code: str = "", reset: bool = False):
        self.code, self.reset = code, reset
        super().__init__(message)


class InvalidOptionError(ClsolveError, TypeError):
    """A solver option is unknown or has a bad value."""


class BatchError(ClsolveError):
    """Some problems of a batch failed on their own; the others were solved.

    ``failures`` maps a problem's index in the batch to its error (each names the index);
    ``solutions`` is the batch's result in input order with None where a problem failed.
    """

    def __init__(self, failures: dict, solutions: list):
        self.failures = dict(sorted(failures.items()))
        self.solutions = list(solutions)
        shown = "; ".join(str(e) for e in list(self.failures.values())[:5])
        more = f"; and {len(self.failures) - 5} more" if len(self.failures) > 5 else ""
        super().__init__(
            f"{len(self.failures)} of {len(self.solutions)} problems failed (indices {sorted(self.failures)[:20]}): {shown}{more}"
        )


def problem_label(index: int, problem) -> str:
    """How errors name a problem of a batch: its index and what it is."""
    return f"problem {index} ({problem.describe()})"


class DatasetError(ClsolveError, RuntimeError):
    """A public data set could not be fetched (no connection, a missing file at its origin) or a file
    fetched differs from the one clsolve knows (size or SHA-256): the message names the file and its
    address."""
