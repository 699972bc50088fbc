"""How the engine calls a plugin: ``accepts`` before ``plan``, the plan's refusal before ``solve``, errors
that name a batch member's index, and what a batch costs for a solver that solves one problem at a
time. The contract itself (``clsolve.plugin.contract``) stays four members long; everything the
engine needs beyond it is here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dp import presolve
from ..dp.reduction import Reduction
from ..errors import ClsolveError, DoesNotFitError, UnsupportedProblemError, problem_label
from ..family import splitting
from ..family.problems import BoundedKnapsack
from ..plan import Plan, combined
from ..problems import Knapsack
from ..runtime import costs as cost_model
from ..runtime import deadline, progress, spare, workspace
from ..runtime.devices import Device
from ..solution import Solution, Timings, building
from .contract import BatchSolver, DeviceSolver, PackedBatchSolver, Solver


def uses_device(solver: Solver | type[Solver]) -> bool:
    """Whether the solver runs on a device (and so gets one), by the class it subclasses."""
    cls = solver if isinstance(solver, type) else type(solver)
    return issubclass(cls, DeviceSolver)


def batches(cls: type[Solver]) -> bool:
    """Whether the solver class solves several problems in one call."""
    return issubclass(cls, BatchSolver)


def packs(cls: type[Solver]) -> bool:
    """Whether the solver class works on packed batches of knapsacks."""
    return issubclass(cls, PackedBatchSolver)


def split(solver: Solver, problem: Any) -> splitting.Split | None:
    """A bounded knapsack's 0-1 form (``clsolve.family.splitting``) for a solver that does not take
    bounded knapsacks itself (``bounded`` not among its ``problem_kinds``): every 0-1 solver so
    solves them, and its answer's pieces are mapped back to counts. None otherwise."""
    if isinstance(problem, BoundedKnapsack) and "bounded" not in solver.problem_kinds:
        return splitting.zero_one(problem)
    return None


def given(solver: Solver, problem: Any) -> Any:
    """The problem as ``solver`` takes it: its 0-1 form where ``split`` makes one, else itself."""
    form = split(solver, problem)
    return problem if form is None else form.problem


def accepts(solver: Solver, problem: Any) -> str | None:
    """``solver.accepts`` for the problem as it takes it (``given``)."""
    return solver.accepts(given(solver, problem))


def least_seconds(solver: Solver, problem: Any, device: Device | None) -> float:
    return solver.least_seconds(given(solver, problem), device)


def settled(problem: Any, solver: Solver | None = None) -> Reduction | None:
    """The reduction that decides a knapsack alone (``clsolve.dp.presolve.settled``: zero profits, no
    item fits, every item fits, ...), or None: such a problem is answered before any solver searches.
    A solver asked for ``presolve=False`` (the problem as given, to exercise its own path) gets it."""
    if not isinstance(problem, Knapsack) or getattr(solver, "presolve", True) is False:
        return None
    return presolve.settled(problem)


def planned(solver: Solver, problem: Any, device: Device | None) -> Plan:
    """``solver.plan``, or the empty plan of a problem the engine settles alone (``settled``); its
    seconds corrected by the device's calibration (``clsolve.runtime.costs``) where there is one."""
    problem = given(solver, problem)
    decided = settled(problem, solver)
    if decided is not None:
        return Plan(solver=solver.name, details={"presolve": "; ".join(decided.notes)})
    found = solver.plan(problem, device)
    correction = cost_model.correction(solver.name, device)
    if correction is not None and not found.measured:
        found.details["estimate"] = correction.words(found)
        found.seconds = correction(found)
    return found


def plan(solver: Solver, problem: Any, device: Device | None) -> Plan:
    """``planned``, after ``accepts``, raising when either says no."""
    reason = accepts(solver, problem)
    if reason is not None:
        raise UnsupportedProblemError(f"{solver.name} cannot solve {problem.describe()}: {reason}")
    found = planned(solver, problem, device)
    refusal = found.refusal(device)
    if refusal is not None:
        raise DoesNotFitError(f"{problem.describe()}: {refusal}")
    return found


def solve(solver: Solver, problem: Any, device: Device | None, plan: Plan) -> Solution:
    """``solver.solve`` with ``plan``, after releasing the device's spare buffer unless it fits beside
    everything the plan needs (``clsolve.runtime.spare``); a problem the engine settles alone
    (``settled``) is answered without the solver; a bounded knapsack a 0-1 solver takes (``split``) is
    solved as its 0-1 form, and the answer's pieces are counted back."""
    form = split(solver, problem)
    if form is not None:
        solution = solve(solver, form.problem, device, plan)
        solution.counts = form.counts(np.asarray(solution.selected, dtype=bool), problem.n)
        solution.selected = np.zeros(0, dtype=bool)
        solution.notes.append(f"solved as a 0-1 knapsack of {form.problem.n} items (binary splitting of the counts)")
        return solution
    decided = settled(problem, solver)
    if decided is not None:
        return decided.trivial(solver.name, device.label if device is not None else "host CPU")
    begin(solver, plan)
    make_room(plan, device)
    built = building.seconds
    with workspace.counting() as launches:
        solution = solver.solve(problem, device, plan)
    if launches:
        solution.stats.setdefault("launches", dict(launches))
    _builds_apart(solution.timings, building.seconds - built)
    return solution


def _builds_apart(timings: Timings, waited: float) -> None:
    """The kernel builds a solve waited for (``waited`` seconds) in ``timings.build``, where its solver
    filled its timings without ``Timings.phase`` (which does this itself): taken from its kernels'
    time, else its host time, the phases a build falls in."""
    missing = waited - timings.build
    if missing <= 1e-9:
        return
    for name in ("kernels", "host", "upload"):
        taken = min(missing, getattr(timings, name))
        setattr(timings, name, getattr(timings, name) - taken)
        timings.build += taken
        missing -= taken


def begin(solver: Solver, plan: Plan) -> None:
    """Before a solve under a time limit: a solver with no answer before its end (not ``anytime``)
    raises :class:`~clsolve.errors.TimeLimitError` instead of starting when the limit has passed or
    its plan's estimate is far past the time left (``Deadline.hopeless``)."""
    limit = deadline.current()
    if not solver.anytime and limit.hopeless(plan.seconds):
        limit.stop(f"{solver.name} not started: its plan's estimate is {plan.seconds:.3g} s and no answer comes before its end")


def make_room(planned: Plan, device: Device | None) -> None:
    """Release the device's spare buffer unless it fits beside everything ``planned`` needs."""
    if isinstance(device, Device):
        spare.make_room(device, planned.device_bytes, device.memory_budget)


def start_batch(device: Device | None) -> None:
    """Before a batch solver's solve: it plans its own buffers within the whole share of device memory,
    so the device's spare buffer is released."""
    if isinstance(device, Device):
        spare.release(device)


def plan_many(solver: Solver, problems: Sequence, device: Device | None) -> Plan:
    """The plan of a batch: a batch solver's own, else one plan per problem combined (the time limit
    checked before each); errors name the problem's index."""
    if isinstance(solver, BatchSolver) and isinstance(device, Device) and not _splits(solver, problems):
        return solver.plan_many(problems, device)
    plans = []
    limit = deadline.current()
    for index, problem in enumerate(problems):
        limit.check(f"{solver.name}: {index} of {len(problems)} problems planned")
        try:
            plans.append(plan(solver, problem, device))
        except (UnsupportedProblemError, DoesNotFitError) as exc:
            raise type(exc)(f"{problem_label(index, problem)}: {exc}") from exc
    return combined(solver.name, plans)


def solve_many(solver: Solver, problems: Sequence, device: Device | None, batch: Plan) -> list[Solution]:
    """A batch solver's ``solve_many`` with the ``batch``'s plan (``plan_many``'s), after ``begin``;
    else each problem in turn, planned alone."""
    if isinstance(solver, BatchSolver) and isinstance(device, Device) and not _splits(solver, problems):
        begin(solver, batch)
        start_batch(device)
        return solver.solve_many(problems, device, batch)
    solutions = []
    for index, problem in enumerate(problems):
        solutions.append(solve(solver, problem, device, plan(solver, problem, device)))
        progress.report("problems", index + 1, len(problems))
    return solutions


def costs(solver: Solver, problems: Sequence, device: Device | None) -> np.ndarray:
    """Planned seconds of each problem (NaN where refused): a batch solver's own estimate, else one
    plan per problem."""
    if isinstance(solver, BatchSolver) and not _splits(solver, problems):
        return solver.costs(problems, device)
    out = np.full(len(problems), np.nan)
    for index, problem in enumerate(problems):
        try:
            if accepts(solver, problem) is None:
                found = planned(solver, problem, device)
                if found.refusal(device) is None:
                    out[index] = found.seconds
        except ClsolveError:
            pass
    return out


def _splits(solver: Solver, problems: Sequence) -> bool:
    """Whether any of ``problems`` reaches ``solver`` as a 0-1 form (``split``): such a batch is
    planned and solved one problem at a time."""
    return any(split(solver, problem) is not None for problem in problems)
