"""The public entry points: ``solve``, ``solve_many``, ``plan``, ``choose``, ``solvers`` and ``devices``.
One problem and one-device batches are solved by ``clsolve.solving``; batches spread over several
devices (``clsolve.scaleout.multidevice``) or a Dask cluster (``clsolve.scaleout.cluster``) are dispatched from here."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from . import inputs, solving
from .batch.arrays import SolutionArrays
from .errors import (
    InvalidOptionError,
)
from .plugin import registry
from .plugin.contract import Solver
from .runtime import deadline, memory
from .runtime.devices import Device, DeviceInfo, list_devices, settle_left_work
from .runtime.log import Record, logging
from .scaleout import chunks, multidevice
from .scaleout.chunks import Progress
from .scaleout.gcpause import paused_gc
from .solution import Solution
from .solving import choose, plan, solve, solve_many_unchecked, solve_packed_unchecked


def solve_many(
    problems: Sequence,
    solver: str = "auto",
    device: str | Device | Sequence[str | Device] | None = None,
    *,
    client=None,
    progress: Callable[[Progress], None] | None = None,
    chunk_count: int | None = None,
    arrays: bool = False,
    time_limit: float | None = None,
    host_memory_limit: int | None = None,
    log: Callable[[Record], None] | None = None,
    **options,
) -> list[Solution] | SolutionArrays:
    """Solve several problems; one checked ``Solution`` per problem, in input order.

    A problem that fails on its own (no solver takes it, it does not fit, its time ran out) does not
    fail the others: a :class:`~clsolve.errors.BatchError` names each failed index with its error and
    holds every other answer (``solutions``, None at the failed ones). On one device the batch is
    solved as one where a batch solver takes it; where that fails as a whole (a time limit, a
    refusal), and for solvers that take one problem at a time, each problem is solved on its own,
    under an equal share of the time left (what one leaves goes to those after it; none starts past
    the limit). An error of the call itself (an unknown solver or option, no such device, a kernel
    that does not build, a device failure) is raised as it is. Spread over several devices or
    workers, the batch is cut into chunks of equal planned cost: ``device="all"`` uses every GPU of
    this host (one worker process each; with fewer than two GPUs, the ``auto`` device, with a note on
    each solution), a list of device specs uses those; ``client`` (a ``distributed.Client``) uses a
    Dask cluster's workers, each on its own device.
    ``progress`` is called with a :class:`~clsolve.scaleout.chunks.Progress` after every chunk;
    ``chunk_count`` asks for that many chunks of equal cost (default: three leading waves of one chunk
    per device, then about 8 chunks per device or 3 per Dask GPU slot by cost, smaller ones last; see
    ``clsolve.scaleout.chunks.Chunking``).
    ``arrays=True`` returns the same checked answers as a :class:`~clsolve.SolutionArrays` (values,
    optimality and item flags as NumPy arrays; a ``Solution`` is built only for a row that is read),
    which saves the client about a microsecond per problem.
    ``time_limit`` (seconds, one device only) holds for the whole batch, as for ``solve``;
    ``host_memory_limit`` (bytes) too, on this host. ``log``: as for ``solve``, each problem solved on
    its own logging its lines (a batch solver's call logs its start and end).
    """
    problems = inputs.problems(problems)
    inputs.solver_name(solver)
    if not problems:
        return SolutionArrays.of_solutions([]) if arrays else []
    if time_limit is not None and (client is not None or multidevice.is_several(device)):
        raise InvalidOptionError(
            "time_limit is kept on one device; a batch spread over several devices or "
            "a Dask cluster takes none (solve its parts with a limit each)"
        )
    budget = inputs.host_memory_limit(host_memory_limit)
    registry.solver_classes()  # a process's first call imports the plugins before its clock starts
    settle_left_work()  # and work an earlier call left running at its limit is waited for
    with paused_gc(), memory.limit(budget), deadline.limit(time_limit), logging(log):
        return _solve_many(problems, solver, device, client, progress, chunk_count, arrays, options)


__all__ = ["choose", "devices", "plan", "solve", "solve_many", "solve_many_unchecked", "solve_packed_unchecked", "solvers"]


def _solve_many(
    problems: list, solver: str, device, client, progress, chunk_count, arrays: bool, options: dict
) -> list[Solution] | SolutionArrays:
    if client is not None:
        from .scaleout import cluster

        return cluster.solve_many(problems, solver, device, options, client, progress, chunk_count, arrays)
    if multidevice.is_several(device):
        devices, note = multidevice.resolve(device)
        if len(devices) > 1:
            return multidevice.solve_many(problems, solver, devices, options, progress, chunk_count, arrays)
        start = time.perf_counter()
        solutions = solve_many(problems, solver, devices[0], arrays=arrays, **options)
        chunks.note_all(solutions, note)
        if progress is not None:
            progress(Progress(1, 1, len(problems), len(problems), time.perf_counter() - start))
        return solutions
    return solving.solve_many_one_device(problems, solver, device, arrays, options)


def load_solver(name: str, **options) -> Solver:
    """The installed solver ``name`` made with ``options`` (what ``solve(..., solver=name, **options)``
    uses): its contract's ``plan`` and ``solve`` and a plugin's own methods (the value-only sweeps that
    ``clsolve bench`` times). A solution it returns is unchecked: ``check`` it."""
    return registry.load(name, **options)


def solvers() -> list[registry.SolverInfo]:
    """The installed solver plugins: name, summary, accepted problem kinds, options (``to_dict()``
    for JSON)."""
    return registry.describe()


def devices() -> list[DeviceInfo]:
    """Every OpenCL device this process can see, with memory, compute units and local memory
    (``to_dict()`` for JSON; ``spec`` selects one again)."""
    return list_devices()
