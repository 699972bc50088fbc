"""Solving on one device: choosing a solver, planning, solving and checking one problem, and a batch on
one device (packed when its solver works on arrays). The worker side of a spread batch
(``clsolve.scaleout.chunks``) and the public face (``clsolve.api``) both build on this module."""

# long module: solve and solve_many on one device (choice, batches, answers kept per problem) share their helpers

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import inputs
from .batch.arrays import SolutionArrays
from .batch.packed import PackedProblems, PackedSolutions
from .errors import (
    BatchError,
    ClsolveError,
    DeviceError,
    DeviceNotFoundError,
    DoesNotFitError,
    FormatError,
    InvalidOptionError,
    KernelBuildError,
    PlanError,
    SolutionCheckError,
    TimeLimitError,
    UnknownSolverError,
    UnsupportedProblemError,
    problem_label,
)
from .plan import Plan
from .plugin import checked, registry
from .plugin.contract import PackedBatchSolver, Solver
from .problems import Knapsack
from .runtime import costs, deadline, devices, failures, memory, progress
from .runtime import log as logs
from .runtime.devices import Device, get_device
from .solution import Solution, check, check_many

HOST_DEVICE_LABEL = "host CPU"
#: What solving a problem of a batch on its own costs beside its solver's estimate (planning every
#: solver for it, its own solve call and check), seconds.
ONE_BY_ONE_SECONDS = 2e-3
#: By how much one by one must beat a batch solver's estimate: ``auto`` weighs it only where the
#: batch's estimate passes ONE_BY_ONE_SECONDS per problem times this (the estimates of both sides are
#: models: with PoCL, MSB-630's batch is estimated at 3.3 s and takes 1.2 s, and one by one,
#: estimated at 2.2 s, takes 1.7 s).
ONE_BY_ONE_MARGIN = 2.0
#: Problems of a batch whose plans decide whether the rest are planned one by one.
ONE_BY_ONE_SAMPLE = 16


def _device_for(solver: Solver, device: str | Device | None) -> Device | None:
    return get_device(device) if checked.uses_device(solver) else None


Chosen = tuple[Solver, "Device | None", Plan]
#: ``auto`` gives a search it chose (an ``anytime`` solver: its tree's size is known only once walked)
#: this many times the estimate of the best solver that ends for sure (a DP), at least
#: AUTO_SEARCH_SECONDS; a search that has not proved its answer by then gives way to that solver.
AUTO_SEARCH_SHARE = 2.0
AUTO_SEARCH_SECONDS = 0.1
#: A search ``auto`` chose with an estimate of at most this runs first, under AUTO_SEARCH_SECONDS, and
#: the solver to fall back on is planned only where it has not proved its answer by then: most such
#: searches end in a millisecond, less than planning the DPs beside them takes.
AUTO_QUICK_SECONDS = 0.01
#: ``_choices``' fallback where it is to be planned once the quick search has run (``_solve_auto``).
LATER = "later"
#: What ``auto`` falls back on: a solver, LATER, or None (nothing to fall back on).
Fallback = Chosen | str | None


def choose(problem, device: str | Device | None = None) -> Chosen:
    """The installed solver that accepts ``problem``, fits, and has the smallest estimated time. Solvers
    are planned in the order of their ``least_seconds``; one whose least time is above the best
    estimate so far is not planned. Equal estimates (a problem presolve settles costs 0 for all) go to
    a solver on the host, then by name."""
    return _choices(problem, device)[0]


def _choices(problem, device: str | Device | None, quick: bool = False) -> tuple[Chosen, Fallback]:
    """``choose``'s answer, and where it is a search (``anytime``), the best solver that is not one
    (None where none accepts and fits): what ``auto`` falls back on (``_solve_auto``). With ``quick``,
    a search estimated at most AUTO_QUICK_SECONDS leaves that solver unplanned (LATER)."""
    if device is not None and not (isinstance(device, str) and device.strip().lower() == "auto"):
        device = get_device(device)  # a device the user named must exist, whichever solver wins
    reasons: dict[str, str] = {}
    too_large: set[str] = set()
    candidates: list[tuple[float, str, Solver, Device | None]] = []
    for name in registry.names():
        try:
            candidate = registry.load(name)
            reason = checked.accepts(candidate, problem)
            if reason is None:
                dev = _device_for(candidate, device)
                least = costs.least(name, dev, checked.least_seconds(candidate, problem, dev))
                candidates.append((least, name, candidate, dev))
        except ClsolveError as exc:
            reason = str(exc)
        if reason is not None:
            reasons[name] = reason
    best: tuple[float, str, Solver, Device | None, Plan] | None = None
    bounded: tuple[float, str, Solver, Device | None, Plan] | None = None
    later = False
    for least, name, candidate, dev in sorted(candidates, key=lambda c: c[:2]):
        wanted = not candidate.anytime and (bounded is None or least <= bounded[0])
        if wanted and quick and best is not None and best[2].anytime and least > best[0] <= AUTO_QUICK_SECONDS:
            later = True  # wanted only as a quick search's fallback: planned once that search has run
            continue
        if best is not None and least > best[0] and not wanted:
            reasons[name] = f"at least {least:.3g} s, above {best[1]}'s estimate of {best[0]:.3g} s"
            continue
        try:
            plan = checked.planned(candidate, problem, dev)
            refusal = plan.refusal(dev)
        except ClsolveError as exc:
            reasons[name] = str(exc)
            continue
        if refusal is not None:
            reasons[name] = refusal
            too_large.add(name)
            continue
        key = (plan.seconds, dev is not None, name)  # on a tie, a solver on the host: no device to set up
        if best is None or key < (best[0], best[3] is not None, best[1]):
            best = (plan.seconds, name, candidate, dev, plan)
        if not candidate.anytime and (bounded is None or key < (bounded[0], bounded[3] is not None, bounded[1])):
            bounded = (plan.seconds, name, candidate, dev, plan)
    if best is None:
        detail = "; ".join(f"{k}: {v}" for k, v in sorted(reasons.items())) or "no solver is installed"
        if too_large:
            raise DoesNotFitError(f"no installed solver can solve {problem.describe()} here ({detail})")
        raise UnsupportedProblemError(f"no installed solver accepts {problem.describe()} ({detail})")
    fallback = bounded[2:] if bounded is not None and best[2].anytime else None
    return best[2:], (LATER if later and fallback is None else fallback)


def plan(
    problem, solver: str = "auto", device: str | Device | None = None, *, host_memory_limit: int | None = None, **options
) -> Plan:
    """The plan ``solve`` would follow, without solving (raises when it would refuse)."""
    inputs.problem(problem)
    inputs.solver_name(solver)
    options.pop("time_limit", None)
    with memory.limit(inputs.host_memory_limit(host_memory_limit)):
        if solver == "auto":
            return choose(problem, device)[2]
        instance = registry.load(solver, **options)
        return checked.plan(instance, problem, _device_for(instance, device))


def _finish(problem, solution: Solution, solver: Solver, device: Device | None) -> Solution:
    solution.solver = solver.name
    solution.device = device.label if device is not None else HOST_DEVICE_LABEL
    check(problem, solution)
    return solution


def solve(
    problem,
    solver: str = "auto",
    device: str | Device | None = None,
    *,
    time_limit: float | None = None,
    host_memory_limit: int | None = None,
    log: Callable[[logs.Record], None] | None = None,
    **options,
) -> Solution:
    """Solve ``problem`` exactly with the named solver on the chosen device; the result is checked.

    ``solver`` is an installed solver's name or ``auto`` (the fastest estimate among those that
    accept the problem and fit). ``device`` is a spec for :func:`clsolve.get_device` (default: the
    ``CLSOLVE_DEVICE`` environment variable, else ``auto``), a ``Device``, or a ``pyopencl.Device``
    or single-device ``pyopencl.Context``. ``options`` go to the solver.

    ``time_limit`` (seconds) is kept within ``clsolve.runtime.deadline``'s margin (max(10 %, 50 ms)): an
    anytime solver (``bnb``) returns its best checked solution with ``optimal=False`` and a proven
    ``bound``; a solver with no answer before it ends raises :class:`~clsolve.errors.TimeLimitError`.

    ``host_memory_limit`` (bytes) is the host memory the solve may take (default: a fair share of what
    is available, ``clsolve.runtime.memory``): a plan that needs more is refused before anything is
    allocated, and solvers that grow lists on the host keep them within it.

    ``log`` is called with each line of the solve's log (a :class:`clsolve.runtime.log.Record`; ``str``
    of it is the line): the solver, device and plan at the start, then about every second the time,
    incumbent, bound, gap and the solver's work counters, each kernel build it waits for, and the
    outcome.
    """
    inputs.problem(problem)
    inputs.solver_name(solver)
    registry.solver_classes()  # a process's first call imports the plugins (0.3 s with PoCL) before its clock starts
    devices.settle_left_work()  # and work an earlier call left running at its limit is waited for
    with memory.limit(inputs.host_memory_limit(host_memory_limit)), deadline.limit(time_limit), logs.logging(log):
        return _solve(problem, solver, device, options)


def _solve(problem, solver: str, device, options: dict) -> Solution:
    if solver == "auto":
        chosen, fallback = _choices(problem, device, quick=True)
        return _solve_auto(problem, chosen, fallback, options, device)
    instance = registry.load(solver, **options)
    dev = _device_for(instance, device)
    return _solve_chosen(problem, (instance, dev, checked.plan(instance, problem, dev)), {})


def _solve_chosen(problem, chosen: tuple[Solver, Device | None, Plan], options: dict) -> Solution:
    """``problem`` solved by the chosen solver on its device with its plan (``options``: the solver
    loaded again with them)."""
    instance, dev, chosen_plan = chosen
    if options:
        instance = registry.load(instance.name, **options)
    where = dev.label if dev is not None else HOST_DEVICE_LABEL
    logs.start(instance.name, f"{problem.describe()} on {where}; plan {chosen_plan.seconds:.3g} s estimated")
    try:
        with failures.guard(instance.name, dev):
            solution = checked.solve(instance, problem, dev, chosen_plan)
        solution = _finish(problem, solution, instance, dev)
    except ClsolveError as exc:
        logs.event("end", f"{type(exc).__name__}: {exc}")
        raise
    logs.found(solution.value, solution.value if solution.optimal else solution.bound)
    logs.event("end", _outcome(solution))
    return solution


def _outcome(solution: Solution) -> str:
    """The log's last line: the value, proven optimal or with its bound, and the time."""
    proof = "optimal" if solution.optimal else f"best found, bound {solution.bound}"
    return f"{solution.value} ({proof}) in {solution.timings.total:.3f} s"


def _solve_auto(problem, chosen: Chosen, fallback: Fallback, options: dict, device=None) -> Solution:
    """``auto``'s solve: the chosen solver; a search (anytime) with a solver that ends for sure beside
    it runs for AUTO_SEARCH_SHARE times that solver's estimate (at least AUTO_SEARCH_SECONDS), and an
    answer it has not proved by then gives way to that solver (under what is left of the limit; the
    search's answer stands where that solver cannot end in time). A search's tree can be exponential
    where a DP's cells are few: ``auto`` returns either way. A quick search (fallback LATER) runs for
    AUTO_SEARCH_SECONDS before its fallback is planned; where none accepts and fits, it runs again
    without that limit."""
    if fallback is None:
        return _solve_chosen(problem, chosen, options)
    budget = (
        AUTO_SEARCH_SECONDS if isinstance(fallback, str) else max(AUTO_SEARCH_SHARE * fallback[2].seconds, AUTO_SEARCH_SECONDS)
    )
    with deadline.limit(budget):
        searched = _solve_chosen(problem, chosen, options)
    if searched.optimal:
        return searched
    if isinstance(fallback, str):
        best, beside = _choices(problem, device)
        fallback = beside if isinstance(beside, tuple) else None if best[0].anytime else best  # a DP may now be best
        if fallback is None:
            return searched if deadline.expired() else _solve_chosen(problem, chosen, options)
    try:
        solution = _solve_chosen(problem, fallback, options)
    except TimeLimitError:
        return searched
    solution.notes.append(
        f"auto: {chosen[0].name} had not proved its answer after {budget:.3g} s "
        f"({searched.value}, bound {searched.bound}); {fallback[0].name} did"
    )
    return solution


def solve_many_one_device(problems: list, solver: str, device, arrays: bool, options: dict) -> list[Solution] | SolutionArrays:
    """A batch on one device, every answer checked; an error names the problem's index."""
    with failures.guard(f"solve_many with {solver}", lambda: get_device(device)):
        return _solve_many_one_device(problems, solver, device, arrays, options)


#: Errors of the call itself (its solver, options, device, input format, a kernel that does not build,
#: or a solver's plan bug): every problem would meet them, so a batch raises them as they are.
CALL_ERRORS = (UnknownSolverError, InvalidOptionError, DeviceNotFoundError, FormatError, PlanError, DeviceError, KernelBuildError)


def _solve_many_one_device(problems: list, solver: str, device, arrays: bool, options: dict) -> list[Solution] | SolutionArrays:
    """The batch as one (``_batch``); where it fails as a whole (a time limit, a refusal, a wrong
    answer), every problem on its own (``_kept``), so that each gets its answer or its own error. A
    solver that solves one problem at a time goes through ``_kept`` at once."""
    cls = registry.solver_classes().get(solver)
    if cls is not None and not checked.batches(cls):
        kept = _kept(problems, lambda p: _solve(p, solver, device, options))
        return SolutionArrays.of_solutions(kept) if arrays else kept
    try:
        return _batch(problems, solver, device, arrays, options)
    except CALL_ERRORS:
        raise
    except ClsolveError as exc:
        if len(problems) < 2 or isinstance(exc, BatchError):
            raise
    kept = _kept(problems, lambda p: _solve(p, solver, device, options))
    return SolutionArrays.of_solutions(kept) if arrays else kept


#: Share of a batch's margin past its limit in which a problem still starts (under a limit of 0: an
#: anytime solver answers from its incumbent and bound at once, any other raises ``TimeLimitError``).
KEPT_GRACE = 0.5


def _kept(problems: list, solve_one) -> list[Solution]:
    """Every problem solved by ``solve_one`` on its own, each under an equal share of the time left to
    the batch (what a problem leaves goes to those after it), its answer checked; a problem's error
    is its own. Once the limit and KEPT_GRACE of its margin have passed, no problem starts. Where any
    failed, :class:`BatchError` names each failed index and holds every other answer (None at the
    failed ones)."""
    solutions: list[Solution | None] = []
    failed: dict[int, ClsolveError] = {}
    for i, problem in enumerate(problems):
        share = max(deadline.remaining(), 0.0) / (len(problems) - i) if deadline.limited() else None
        if share is not None and deadline.remaining() + deadline.grace(KEPT_GRACE) <= 0:  # too late to start
            solutions.append(None)
            failed[i] = TimeLimitError(
                f"{problem_label(i, problem)}: not started: the batch's time limit of {deadline.seconds():g} s has passed"
            )
            continue
        try:
            with deadline.limit(share):
                solutions.append(_indexed(i, problem, lambda problem=problem: solve_one(problem)))
        except CALL_ERRORS:
            raise
        except ClsolveError as exc:
            solutions.append(None)
            failed[i] = exc
        progress.report("problems", i + 1, len(problems))
    if failed:
        raise BatchError(failed, solutions)
    return solutions  # type: ignore[return-value]  # no None: nothing failed


def _batch(problems: list, solver: str, device, arrays: bool, options: dict) -> list[Solution] | SolutionArrays:
    if _packs(solver) and all(isinstance(p, Knapsack) for p in problems):
        packed = PackedProblems.pack(problems)
        chosen = _batching_solver_packed(packed, device) if solver == "auto" else None
        choices = None if chosen is None else _one_by_one(problems, device, chosen[2].seconds)
        if choices is not None:
            return _checked(problems, _each(problems, device, options, choices), arrays)
        # auto with no batching solver for the packed batch: the object path below, not planned again here
        answer = None if solver == "auto" and chosen is None else solve_packed_unchecked(packed, solver, device, options, chosen)
        if answer is not None:
            failed = packed.first_wrong(answer)  # answer rows are the problems, in order
            if failed is not None:
                _indexed(failed, problems[failed], lambda: check(problems[failed], answer.solution(failed)))
                raise SolutionCheckError(f"{problem_label(failed, problems[failed])}: the answer does not match")
            return SolutionArrays(answer) if arrays else answer.unpack()
    return _checked(problems, solve_many_unchecked(problems, solver, device, **options), arrays)


def _checked(problems: list, solutions: list[Solution], arrays: bool) -> list[Solution] | SolutionArrays:
    failed = check_many(problems, solutions)
    if failed is not None:
        _indexed(failed, problems[failed], lambda: check(problems[failed], solutions[failed]))
    return SolutionArrays.of_solutions(solutions) if arrays else solutions


def _each(problems: list, device, options: dict, choices: list[tuple[Chosen, Fallback]] | None = None) -> list[Solution]:
    """Every problem solved on its own, by its ``choices`` entry or by ``auto`` (``_kept``)."""
    if choices is None:
        return _kept(problems, lambda p: _solve(p, "auto", device, options))
    chosen = dict(zip(map(id, problems), choices))
    return _kept(problems, lambda p: _solve_auto(p, *chosen[id(p)], options))


def _packs(solver: str) -> bool:
    """Whether ``solver`` (for ``auto``: every installed batching solver) works on packed batches."""
    classes = registry.solver_classes()
    if solver == "auto":
        batching = [cls for cls in classes.values() if checked.batches(cls)]
        return bool(batching) and all(map(checked.packs, batching))
    cls = classes.get(solver)
    return cls is not None and checked.packs(cls)


def solve_packed_unchecked(
    packed: PackedProblems, solver: str, device, options: dict, chosen: tuple[Solver, Device | None, Plan] | None = None
) -> PackedSolutions | None:
    """A packed batch of knapsacks on one device, answers packed, without the final check (the
    caller checks with ``packed.first_wrong``); None when the solver (or, for ``auto``, a batching
    solver) works on objects, which the caller then solves through ``solve_many_unchecked``.
    ``chosen``: for ``auto``, the batching solver already chosen, with its device and plan."""
    if solver == "auto":
        chosen = chosen or _batching_solver_packed(packed, device)
        if chosen is None:
            return None
        instance, dev, plan = chosen
        if options:
            instance = registry.load(instance.name, **options)
        assert isinstance(instance, PackedBatchSolver) and dev is not None  # _packs("auto") said so
        if options:
            plan = instance.plan_packed(packed, dev)
    else:
        if not _packs(solver):
            return None
        loaded = registry.load(solver, **options)
        assert isinstance(loaded, PackedBatchSolver)  # _packs said so
        instance, dev = loaded, get_device(device)
        plan = instance.plan_packed(packed, dev)
    _fits(plan, dev, len(packed))
    checked.begin(instance, plan)
    checked.start_batch(dev)
    answer = instance.solve_packed(packed, dev, plan)
    label = _answered(instance, dev, len(answer.positions), len(packed))
    answer.labels = [(instance.name, label, notes) for _, _, notes in answer.labels]
    return answer


def _fits(plan: Plan, device: Device | None, count: int) -> None:
    refusal = plan.refusal(device)
    if refusal is not None:
        raise DoesNotFitError(f"{count} problems: {refusal}")


def _answered(instance: Solver, device: Device | None, answers: int, count: int) -> str:
    """The device label for the answers, after checking there is one per problem."""
    if answers != count:
        raise SolutionCheckError(f"{instance.name} returned {answers} answers for {count} problems")
    return device.label if device is not None else HOST_DEVICE_LABEL


def _batching_solver_packed(packed: PackedProblems, device) -> tuple[Solver, Device | None, Plan] | None:
    """``_batching_solver`` for a packed batch, with the chosen solver's device and plan; None also
    when a batching solver works on objects only (the object path then weighs it)."""
    if len(packed) < 2 or not _packs("auto"):
        return None
    chosen = _cheapest_batching(device, lambda candidate, dev: candidate.plan_packed(packed, dev))
    return None if chosen is None else chosen


def _cheapest_batching(device, plan_of) -> tuple[Solver, Device | None, Plan] | None:
    """The batch solver (``BatchSolver``) whose plan (``plan_of(solver, device)``) takes and
    fits every problem with the smallest estimate, with its device and plan, or None."""
    best: tuple[float, str, Solver, Device | None, Plan] | None = None
    for name, cls in sorted(registry.solver_classes().items()):
        if not checked.batches(cls):
            continue
        try:
            candidate = registry.load(name)
            dev = _device_for(candidate, device)
            plan = plan_of(candidate, dev)
            if plan.refusal(dev) is not None:
                continue
        except ClsolveError:
            continue
        if best is None or (plan.seconds, name) < best[:2]:
            best = (plan.seconds, name, candidate, dev, plan)
    return None if best is None else best[2:]


def _one_by_one(problems: list, device, batch_seconds: float) -> list[tuple[Chosen, Fallback]] | None:
    """Each problem's own choice (``choose``) where solving them one by one is estimated faster than
    the batch solver's ``batch_seconds``, else None. One by one costs each problem's estimate plus
    ONE_BY_ONE_SECONDS (planning every solver for it, and a solve and check of its own), and must win
    by ONE_BY_ONE_MARGIN. It is weighed only where the batch's estimate leaves room for that, first
    on a sample of ONE_BY_ONE_SAMPLE problems spread over the batch (planning all of them costs
    about as much as solving them), then on all."""
    overhead = len(problems) * ONE_BY_ONE_SECONDS
    if len(problems) < 2 or batch_seconds <= overhead * ONE_BY_ONE_MARGIN:
        return None
    sample = sorted(set(np.linspace(0, len(problems) - 1, min(ONE_BY_ONE_SAMPLE, len(problems))).astype(int).tolist()))
    chosen: dict[int, tuple[Chosen, Fallback]] = {}
    for order in (sample, range(len(problems))):
        for i in order:
            if i not in chosen:
                try:
                    chosen[i] = _choices(problems[i], device)
                except ClsolveError:
                    return None
        mean = sum(c[0][2].seconds for c in chosen.values()) / len(chosen)
        if (overhead + mean * len(problems)) * ONE_BY_ONE_MARGIN >= batch_seconds:
            return None
    return [chosen[i] for i in range(len(problems))]


def solve_many_unchecked(problems: list, solver: str, device, **options) -> list[Solution]:
    """``solve_many`` on one device without the final check: for a worker whose client checks every
    answer itself (``clsolve.scaleout.chunks``), so that no solution is checked twice."""
    if solver == "auto":
        batching = _batching_solver(problems, device)
        if not isinstance(batching, str):
            return _each(problems, device, options, batching)
        solver = batching
    instance = registry.load(solver, **options)
    dev = _device_for(instance, device)
    plan = checked.plan_many(instance, problems, dev)
    _fits(plan, dev, len(problems))
    solutions = checked.solve_many(instance, problems, dev, plan)
    label = _answered(instance, dev, len(solutions), len(problems))
    for solution in solutions:
        solution.solver, solution.device = instance.name, label
    return solutions


def _batching_solver(problems: list, device) -> str | list[tuple[Chosen, Fallback]] | None:
    """For several problems: the batch solver (``BatchSolver``) that accepts and fits every one
    with the smallest summed estimate; or each problem's own choice where one by one is estimated
    faster (``_one_by_one``); or None (no batch solver: each problem with ``auto``)."""
    if len(problems) < 2:
        return None
    chosen = _cheapest_batching(device, lambda candidate, dev: checked.plan_many(candidate, problems, dev))
    if chosen is None:
        return None
    return _one_by_one(problems, device, chosen[2].seconds) or chosen[0].name


def _indexed(index: int, problem, action):
    try:
        return action()
    except ClsolveError as exc:
        if isinstance(exc, FormatError):
            raise
        raise type(exc)(f"{problem_label(index, problem)}: {exc}") from exc
