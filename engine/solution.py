"""Solutions, their timings, and the check the engine runs on every solution before returning it."""

# long module: the answer of every problem kind and the check each kind needs, side by side

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from .errors import SolutionCheckError
from .family.choice import lightest
from .family.problems import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack
from .problems import LCS, TSP, Knapsack, exact_sum


class _Building(threading.local):
    """Seconds this thread has waited for kernel builds (``clsolve.runtime.kernels.program`` adds
    them), which ``Timings.phase`` moves out of the phase they fell in."""

    seconds = 0.0

    def add(self, seconds: float) -> None:
        self.seconds += seconds


building = _Building()


@dataclass(slots=True)
class Timings:
    """Seconds spent in each phase of a solve (wall clock, device queue finished at each boundary);
    ``build``: waiting for kernel builds (a process's first solve of a kind, until its programs are
    cached), taken out of the phase that waited."""

    upload: float = 0.0
    kernels: float = 0.0
    download: float = 0.0
    host: float = 0.0
    build: float = 0.0

    @property
    def total(self) -> float:
        return self.upload + self.kernels + self.download + self.host + self.build

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the wall-clock seconds of the ``with`` block to phase ``name`` (``upload``, ``kernels``,
        ``download`` or ``host``), less the kernel builds it waited for, which go to ``build``."""
        start, built = time.perf_counter(), building.seconds
        try:
            yield
        finally:
            waited = building.seconds - built
            self.build += waited
            setattr(self, name, getattr(self, name) + time.perf_counter() - start - waited)

    def row(self) -> tuple[float, ...]:
        """The phases' seconds in field order (:data:`PHASES`): a packed batch's timings row."""
        return tuple(getattr(self, name) for name in PHASES)

    def to_dict(self) -> dict:
        return {**asdict(self), "total": self.total}


#: The phases of ``Timings``, in field order.
PHASES = ("upload", "kernels", "download", "host", "build")
assert tuple(f.name for f in fields(Timings)) == PHASES


@dataclass(slots=True)  # slots: a batch of 63,000 is built in half the time
class Solution:
    """The answer to one problem.

    For a knapsack, ``selected`` is a boolean array with one entry per item (True = packed). For an
    LCS, ``positions`` is a (length, 2) array of the subsequence's 0-based positions in ``a`` and
    ``b``; for a TSP, ``tour`` lists the cities in visiting order from city 0 (``selected`` is an
    empty array for both). ``optimal`` is True when
    the solver proved optimality. ``value`` is a Python int (exact, even beyond 2^53). ``bound`` is
    a proven bound on the optimum when the solver stopped early (``optimal`` False, for example at
    a time limit): an upper bound for a maximum (the optimum lies in [value, bound]), a lower bound
    for a TSP, whose optimum is a minimum (in [bound, value]); ``gap`` is their distance.
    """

    value: int
    selected: np.ndarray
    optimal: bool
    solver: str
    device: str
    timings: Timings = field(default_factory=Timings)
    notes: list[str] = field(default_factory=list)
    bound: int | None = None
    #: Solver-specific counters (for ``bnb``: nodes branched, host and device steps and seconds).
    stats: dict = field(default_factory=dict)
    #: LCS: (length, 2) positions in ``a`` and ``b``.
    positions: np.ndarray | None = None
    #: TSP: the cities in visiting order, starting at city 0.
    tour: np.ndarray | None = None
    #: Bounded and unbounded knapsacks, change-making: how many of each item (coin) the answer uses.
    counts: np.ndarray | None = None
    #: Multiple knapsacks: each item's knapsack (0..k-1; -1: not packed).
    assignment: np.ndarray | None = None
    #: False only where the problem has no feasible answer (change-making with no exact sum); ``value``
    #: is then 0 and ``counts`` None.
    feasible: bool = True

    @property
    def gap(self) -> int:
        """|bound - value| (0 when optimal or when no bound is known)."""
        return 0 if self.optimal or self.bound is None else abs(int(self.bound) - int(self.value))

    @property
    def items(self) -> np.ndarray:
        """Indices (0-based) of the selected items (with ``counts``: those used at least once), ascending."""
        if self.counts is not None:
            return np.flatnonzero(self.counts)
        return np.flatnonzero(self.selected)

    def to_dict(self, problem=None) -> dict:
        out = {
            "value": int(self.value),
            **self._decision(),
            "optimal": bool(self.optimal),
            **({"bound": int(self.bound), "gap": self.gap} if self.bound is not None and not self.optimal else {}),
            "solver": self.solver,
            "device": self.device,
            "timings": self.timings.to_dict(),
        }
        if problem is not None:
            out.update(_described(problem, self))
        if self.notes:
            out["notes"] = list(self.notes)
        if self.stats:
            out["stats"] = dict(self.stats)
        return out

    def _decision(self) -> dict:
        """The decision in JSON: positions, a tour, an assignment, counts or items (or no answer)."""
        if self.positions is not None:
            return {"positions": np.asarray(self.positions).tolist()}
        if self.tour is not None:
            return {"tour": [int(c) for c in self.tour]}
        if self.assignment is not None:
            return {
                "assignment": [int(a) for a in self.assignment],
                "items": [int(i) for i in np.flatnonzero(self.assignment >= 0)],
            }
        if self.counts is not None:
            return {"counts": [int(c) for c in self.counts], "items": [int(i) for i in self.items]}
        if not self.feasible:
            return {"feasible": False}
        return {"items": [int(i) for i in self.items]}


def _described(problem, solution: Solution) -> dict:
    """What ``to_dict`` says of the problem beside the answer: its name and size, and what the answer
    uses of its capacities."""
    out: dict = {"name": problem.name}
    if isinstance(problem, LCS):
        out["lengths"] = [problem.m, problem.n]
        subsequence = problem.subsequence(solution.positions if solution.positions is not None else np.zeros((0, 2), np.int64))
        out["subsequence"] = subsequence if isinstance(subsequence, str) else subsequence.tolist()
        return out
    out["n"] = problem.n
    if isinstance(problem, (BoundedKnapsack, ChangeMaking)):
        out["capacity"] = problem.capacity
        if solution.counts is not None:
            out["used"] = family_used(problem, solution.counts)
    elif isinstance(problem, MultipleKnapsack):
        out["capacities"] = [int(c) for c in problem.capacities]
        if solution.assignment is not None:
            out["used"] = loads(problem, solution.assignment)
    elif isinstance(problem, MultipleChoice):
        out["classes"] = problem.k
        out["capacity"] = problem.capacity
        if solution.feasible:
            out["used"] = _dot(problem.weights, np.asarray(solution.selected, dtype=np.int64))
    elif isinstance(problem, Knapsack):
        out["capacities"] = [int(c) for c in problem.capacities]
        out["used"] = [int(u) for u in used_capacity(problem, solution.selected)]
    return out


def used_capacity(problem: Knapsack, selected: np.ndarray) -> list[int]:
    return exact_sum(problem.weights[selected], axis=0)


def check_knapsack(problem: Knapsack, solution: Solution) -> None:
    """Raise SolutionCheckError unless the solution is feasible and its value is its items' profit."""
    selected = np.asarray(solution.selected)
    if selected.dtype != bool or selected.shape != (problem.n,):
        raise SolutionCheckError(
            f"{solution.solver}: selected must be a boolean array of shape ({problem.n},), "
            f"got dtype {selected.dtype} shape {selected.shape}"
        )
    used = used_capacity(problem, selected)
    for d, (u, c) in enumerate(zip(used, problem.capacities.tolist())):
        if u > c:
            raise SolutionCheckError(
                f"{solution.solver} on {problem.describe()}: infeasible, dimension {d} uses {u} > capacity {c}"
            )
    profit = exact_sum(problem.profits[selected])
    if profit != int(solution.value):
        raise SolutionCheckError(
            f"{solution.solver} on {problem.describe()}: reported value {solution.value} but the selected "
            f"items' profits sum to {profit}"
        )
    _known_optimum(problem, solution, profit)


def _knapsacks_pass(problems: list[Knapsack], solutions: list[Solution]) -> bool:
    """One vectorized pass over many knapsacks of equal m: True when every solution is feasible, has
    its items' value and matches any known optimum it claims. False means: check one by one."""
    for problem, solution in zip(problems, solutions):
        selected = solution.selected
        if not isinstance(selected, np.ndarray) or selected.dtype != bool or selected.shape != (problem.n,):
            return False
    sizes = np.fromiter((p.n for p in problems), dtype=np.int64, count=len(problems))
    starts = np.zeros(len(problems), dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    weights = np.concatenate([p.weights for p in problems])
    if int(weights.max(initial=0)) * int(sizes.max()) >= 2**63:
        return False  # int64 segment sums could overflow: exact one-by-one check instead
    selected = np.concatenate([s.selected for s in solutions])
    profits = np.concatenate([p.profits for p in problems])
    used = np.add.reduceat(weights * selected[:, None], starts, axis=0)
    capacities = np.stack([p.capacities for p in problems])
    values = np.add.reduceat(profits * selected, starts)  # each <= the problem's total profit < 2^63
    claimed = np.fromiter(
        (int(s.value) if -(2**63) <= int(s.value) < 2**63 else -1 for s in solutions), dtype=np.int64, count=len(solutions)
    )
    if (used > capacities).any() or (values != claimed).any():
        return False
    return all(
        (p.known_optimum is None or not s.optimal or p.known_optimum == int(v)) and s.bound is None
        for p, s, v in zip(problems, solutions, values.tolist())
    )


def check_many(problems, solutions: list[Solution]) -> int | None:
    """Check many solutions; None when all pass, else the index of the first that fails (so the
    caller can name it; ``check`` on that one raises the reason). Knapsacks of equal m are checked
    in one vectorized pass, anything else one by one."""
    problems = list(problems)
    by_m: dict[int, list[int]] = {}
    for index, problem in enumerate(problems):
        if isinstance(problem, Knapsack):
            by_m.setdefault(problem.m, []).append(index)
    fast = set()
    for indices in by_m.values():
        if _knapsacks_pass([problems[i] for i in indices], [solutions[i] for i in indices]):
            fast.update(indices)
    for index, (problem, solution) in enumerate(zip(problems, solutions)):
        if index in fast:
            continue
        try:
            check(problem, solution)
        except SolutionCheckError:
            return index
    return None


def _known_optimum(problem, solution: Solution, value: int) -> None:
    """The value against the instance's known optimum, and an upper bound (of a maximum) against both."""
    where = f"{solution.solver} on {problem.describe()}"
    if solution.optimal and problem.known_optimum is not None and value != problem.known_optimum:
        raise SolutionCheckError(
            f"{where}: claims optimality with {value}, but the instance's known optimum is {problem.known_optimum}"
        )
    bound = solution.bound
    if bound is None or isinstance(problem, TSP):  # a TSP's bound is a lower one: check_tsp
        return
    if int(bound) < value:
        raise SolutionCheckError(f"{where}: bound {bound} is below the answer's value {value}")
    if solution.optimal and int(bound) != value:
        raise SolutionCheckError(f"{where}: claims optimality with {value} but reports the bound {bound}")
    if problem.known_optimum is not None and int(bound) < problem.known_optimum:
        raise SolutionCheckError(f"{where}: bound {bound} is below the instance's known optimum {problem.known_optimum}")


def check_lcs(problem: LCS, solution: Solution) -> None:
    """Raise SolutionCheckError unless ``positions`` is a common subsequence of length ``value``."""
    positions = solution.positions
    where = f"{solution.solver} on {problem.describe()}"
    if (
        not isinstance(positions, np.ndarray)
        or positions.ndim != 2
        or positions.shape[1] != 2
        or not np.issubdtype(positions.dtype, np.integer)
    ):
        raise SolutionCheckError(f"{where}: positions must be an integer array of shape (length, 2)")
    if positions.shape[0] != int(solution.value):
        raise SolutionCheckError(f"{where}: reported length {solution.value} but {positions.shape[0]} positions")
    if positions.size:
        i, j = positions[:, 0], positions[:, 1]
        if i.min() < 0 or j.min() < 0 or i.max() >= problem.m or j.max() >= problem.n:
            raise SolutionCheckError(f"{where}: a position lies outside the sequences")
        if (np.diff(i) <= 0).any() or (np.diff(j) <= 0).any():
            raise SolutionCheckError(f"{where}: positions are not strictly increasing in both sequences")
        unequal = np.flatnonzero(problem.a[i] != problem.b[j])
        if unequal.size:
            k = int(unequal[0])
            raise SolutionCheckError(f"{where}: a[{int(i[k])}] != b[{int(j[k])}] at subsequence position {k}")
    _known_optimum(problem, solution, int(solution.value))


def check_tsp(problem: TSP, solution: Solution) -> None:
    """Raise SolutionCheckError unless ``tour`` visits every city once from city 0 and costs ``value``."""
    tour = solution.tour
    where = f"{solution.solver} on {problem.describe()}"
    if not isinstance(tour, np.ndarray) or tour.shape != (problem.n,) or not np.issubdtype(tour.dtype, np.integer):
        raise SolutionCheckError(f"{where}: tour must be an integer array of shape ({problem.n},)")
    if tour[0] != 0 or sorted(tour.tolist()) != list(range(problem.n)):
        raise SolutionCheckError(f"{where}: tour must start at city 0 and visit every city exactly once")
    length = problem.tour_length(tour)
    if length != int(solution.value):
        raise SolutionCheckError(f"{where}: reported length {solution.value} but the tour costs {length}")
    _known_optimum(problem, solution, length)
    bound = solution.bound
    if bound is not None:  # a lower bound: the optimum is a minimum
        if int(bound) > length or (solution.optimal and int(bound) != length):
            raise SolutionCheckError(f"{where}: lower bound {bound} does not fit the tour's length {length}")
        if problem.known_optimum is not None and int(bound) > problem.known_optimum:
            raise SolutionCheckError(
                f"{where}: lower bound {bound} is above the instance's known optimum {problem.known_optimum}"
            )


def _dot(values: np.ndarray, counts: np.ndarray) -> int:
    """sum(values * counts) exactly: in int64 where no term or sum can overflow, else in Python ints."""
    counts = np.asarray(counts, dtype=np.int64)
    if values.size == 0:
        return 0
    top = int(np.abs(values).max()) * int(np.abs(counts).max()) * values.size
    if top < 2**63:
        return int(np.dot(values.astype(np.int64), counts))
    return sum(int(v) * int(c) for v, c in zip(values.tolist(), counts.tolist()))


def family_used(problem: BoundedKnapsack | ChangeMaking, counts: np.ndarray) -> int:
    """The capacity ``counts`` copies of the items use, exactly."""
    return _dot(problem.weights, counts)


def _counts_of(problem: BoundedKnapsack | ChangeMaking, solution: Solution, where: str) -> np.ndarray:
    counts = solution.counts
    if not isinstance(counts, np.ndarray) or counts.shape != (problem.n,) or not np.issubdtype(counts.dtype, np.integer):
        raise SolutionCheckError(f"{where}: counts must be an integer array of shape ({problem.n},)")
    if counts.size and int(counts.min()) < 0:
        raise SolutionCheckError(f"{where}: counts[{int(np.argmin(counts))}] is negative")
    if problem.counts is not None:
        over = np.flatnonzero(counts > problem.counts)
        if over.size:
            j = int(over[0])
            raise SolutionCheckError(f"{where}: counts[{j}] = {int(counts[j])} exceeds the item's count {int(problem.counts[j])}")
    return counts


def check_bounded(problem: BoundedKnapsack, solution: Solution) -> None:
    """Raise SolutionCheckError unless ``counts`` respects the items' counts and the capacity and
    earns ``value``."""
    where = f"{solution.solver} on {problem.describe()}"
    counts = _counts_of(problem, solution, where)
    used = family_used(problem, counts)
    if used > problem.capacity:
        raise SolutionCheckError(f"{where}: infeasible, uses {used} > capacity {problem.capacity}")
    profit = _dot(problem.profits, counts)
    if profit != int(solution.value):
        raise SolutionCheckError(f"{where}: reported value {solution.value} but the counts earn {profit}")
    _known_optimum(problem, solution, profit)


def check_change(problem: ChangeMaking, solution: Solution) -> None:
    """Raise SolutionCheckError unless ``counts`` sums exactly to the capacity with ``value`` coins (or
    the answer says there is none: ``feasible`` False, which only the solver's proof backs)."""
    where = f"{solution.solver} on {problem.describe()}"
    if solution.bound is not None:
        raise SolutionCheckError(f"{where}: change-making answers are exact (no bound), got bound {solution.bound}")
    if not solution.feasible:
        if solution.counts is not None or int(solution.value) != 0 or not solution.optimal:
            raise SolutionCheckError(f"{where}: an answer of no exact sum has value 0, no counts and is proved")
        if problem.known_optimum is not None:
            raise SolutionCheckError(
                f"{where}: says no coins sum to {problem.capacity}, but the known optimum is {problem.known_optimum}"
            )
        return
    counts = _counts_of(problem, solution, where)
    total = family_used(problem, counts)
    if total != problem.capacity:
        raise SolutionCheckError(f"{where}: the coins sum to {total}, not {problem.capacity}")
    coins = int(counts.sum())
    if coins != int(solution.value):
        raise SolutionCheckError(f"{where}: reported {solution.value} coins but counts hold {coins}")
    if solution.optimal and problem.known_optimum is not None and coins != problem.known_optimum:
        raise SolutionCheckError(f"{where}: claims optimality with {coins}, but the known optimum is {problem.known_optimum}")


def check_choice(problem: MultipleChoice, solution: Solution) -> None:
    """Raise SolutionCheckError unless ``selected`` holds one item of each class (at most one with
    ``at_most_one``) within the capacity earning ``value``; an answer of none is checked too: the
    lightest item of every class together must exceed the capacity."""
    where = f"{solution.solver} on {problem.describe()}"
    if solution.bound is not None and not solution.optimal and int(solution.bound) < int(solution.value):
        raise SolutionCheckError(f"{where}: bound {solution.bound} is below the answer's value {solution.value}")
    if not solution.feasible:
        least = lightest(problem)
        if problem.at_most_one or least <= problem.capacity or int(solution.value) != 0:
            raise SolutionCheckError(f"{where}: says no choice fits, but the lightest items weigh {least} <= {problem.capacity}")
        return
    selected = np.asarray(solution.selected)
    if selected.dtype != bool or selected.shape != (problem.n,):
        raise SolutionCheckError(f"{where}: selected must be a boolean array of shape ({problem.n},)")
    per_class = np.bincount(problem.classes[selected], minlength=problem.k)
    wrong = np.flatnonzero(per_class > 1 if problem.at_most_one else per_class != 1)
    if wrong.size:
        c = int(wrong[0])
        raise SolutionCheckError(f"{where}: class {c} has {int(per_class[c])} items chosen")
    used = _dot(problem.weights, selected.astype(np.int64))
    if used > problem.capacity:
        raise SolutionCheckError(f"{where}: infeasible, uses {used} > capacity {problem.capacity}")
    profit = _dot(problem.profits, selected.astype(np.int64))
    if profit != int(solution.value):
        raise SolutionCheckError(f"{where}: reported value {solution.value} but the chosen items earn {profit}")
    _known_optimum(problem, solution, profit)


def loads(problem: MultipleKnapsack, assignment: np.ndarray) -> list[int]:
    """The weight each knapsack holds under ``assignment``, exactly."""
    return [_dot(problem.weights, (assignment == i).astype(np.int64)) for i in range(problem.k)]


def check_multiple(problem: MultipleKnapsack, solution: Solution) -> None:
    """Raise SolutionCheckError unless ``assignment`` puts each item in one knapsack at most, every
    knapsack within its capacity, earning ``value``."""
    where = f"{solution.solver} on {problem.describe()}"
    if not solution.feasible:
        raise SolutionCheckError(f"{where}: every multiple knapsack has a feasible answer (nothing packed)")
    assignment = solution.assignment
    if (
        not isinstance(assignment, np.ndarray)
        or assignment.shape != (problem.n,)
        or not np.issubdtype(assignment.dtype, np.integer)
    ):
        raise SolutionCheckError(f"{where}: assignment must be an integer array of shape ({problem.n},)")
    if assignment.size and (int(assignment.min()) < -1 or int(assignment.max()) >= problem.k):
        raise SolutionCheckError(f"{where}: an assignment lies outside -1..{problem.k - 1}")
    for i, (load, capacity) in enumerate(zip(loads(problem, assignment), problem.capacities.tolist())):
        if load > capacity:
            raise SolutionCheckError(f"{where}: knapsack {i} holds {load} > capacity {capacity}")
    profit = _dot(problem.profits, (assignment >= 0).astype(np.int64))
    if profit != int(solution.value):
        raise SolutionCheckError(f"{where}: reported value {solution.value} but the packed items earn {profit}")
    _known_optimum(problem, solution, profit)


def check(problem, solution: Solution) -> None:
    """Check any solution against its problem (dispatch on the problem's kind)."""
    if isinstance(problem, MultipleKnapsack):
        check_multiple(problem, solution)
        return
    if isinstance(problem, MultipleChoice):
        check_choice(problem, solution)
        return
    if not solution.feasible and not isinstance(problem, ChangeMaking):
        raise SolutionCheckError(f"{solution.solver} on {problem.describe()}: every such problem has a feasible answer")
    if isinstance(problem, Knapsack):
        check_knapsack(problem, solution)
    elif isinstance(problem, BoundedKnapsack):
        check_bounded(problem, solution)
    elif isinstance(problem, ChangeMaking):
        check_change(problem, solution)
    elif isinstance(problem, LCS):
        check_lcs(problem, solution)
    elif isinstance(problem, TSP):
        check_tsp(problem, solution)
    else:  # pragma: no cover - new problem kinds must add their check here
        raise SolutionCheckError(f"no solution check exists for problems of kind {type(problem).__name__}")
