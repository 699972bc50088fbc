"""The command line's exit codes, the same for every subcommand.

0 done; 2 bad usage or input (a file, an option, an unknown solver or device, a missing data folder);
3 a problem does not fit or no solver accepts it; 4 the time limit passed with no answer; 1 any other
failure (a kernel that does not build, a solution that fails its check); 130 and 143 interrupted by
Ctrl-C or SIGTERM; 141 the reader of stdout went away. In a batch, the most serious failure's code.
"""

from __future__ import annotations

from ..errors import (
    BatchError,
    ClsolveError,
    DeviceNotFoundError,
    DoesNotFitError,
    FormatError,
    InvalidOptionError,
    InvalidProblemError,
    TimeLimitError,
    UnknownSolverError,
    UnsupportedProblemError,
)

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_REFUSED, EXIT_TIME_LIMIT = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE, EXIT_TERMINATED = 130, 141, 143


def exit_code(exc: ClsolveError) -> int:
    if isinstance(exc, BatchError):
        return max(exit_code(e) for e in exc.failures.values())
    if isinstance(exc, (FormatError, InvalidProblemError, UnknownSolverError, DeviceNotFoundError, InvalidOptionError)):
        return EXIT_USAGE
    if isinstance(exc, (DoesNotFitError, UnsupportedProblemError)):
        return EXIT_REFUSED
    if isinstance(exc, TimeLimitError):
        return EXIT_TIME_LIMIT
    return EXIT_FAILURE
