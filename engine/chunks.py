"""A batch cut into chunks by planned cost, shipped as NumPy arrays, solved on a worker, put back in order.

This is what ``device="all"`` (:mod:`clsolve.multidevice`) and the Dask path (:mod:`clsolve.cluster`)
share. The client cuts the batch into contiguous chunks of about equal planned seconds
(:func:`cut`), packs each chunk's knapsacks into a few concatenated arrays (:class:`PackedProblems`,
no pickled solver objects), a worker solves a chunk with :func:`solve_chunk` (the engine's own
``solve_many`` on the worker's device, so every solution is checked there) and packs the answers
the same way; :class:`Collector` takes each chunk's answers exactly once, checks them again on the
client and returns them in input order. A problem that fails on its own is reported with its
index (:class:`~clsolve.errors.BatchError`) without failing the rest of its chunk.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from . import errors
from .errors import BatchError, ClsolveError, InvalidOptionError, SolutionCheckError
from .errors import InvalidProblemError
from .gcpause import paused_gc
from .problems import INT64_MAX, MAX_SCALAR, Knapsack
from .solution import Solution, Timings, check
from .solver import problem_label

#: Chunks per worker when the caller does not size them: enough to balance uneven chunks and
#: overlap the client's packing with the workers' solving, few enough that each chunk stays a
#: large batch for a batching solver.
CHUNKS_PER_WORKER = 8


# ----------------------------------------------------------------------------------------- sizing

def default_ranges(weights: np.ndarray, workers: int, chunk_count: int | None) -> list[range]:
    """The chunks of a batch spread over ``workers``: ``chunk_count`` equal ones when asked for, else
    :func:`tapered_shares`."""
    if chunk_count is not None:
        return cut(weights, chunk_count)
    return cut(weights, 0, shares=tapered_shares(max(1, workers)))


def sizes(problems: Sequence) -> np.ndarray:
    """A device-free size of each problem, for when no plan can be made on the client: the dense
    DP's cell updates n x prod(c + 1), or n x 2^n / n = 2^n where enumerating every subset is
    smaller (knapsacks); 1 for other kinds."""
    out = np.ones(len(problems), dtype=np.float64)
    rows = [k for k, p in enumerate(problems) if isinstance(p, Knapsack)]
    if rows:
        knapsacks = [problems[k] for k in rows]
        n = np.fromiter((p.profits.size for p in knapsacks), dtype=np.float64, count=len(rows))
        m = np.fromiter((p.capacities.size for p in knapsacks), dtype=np.int64, count=len(rows))
        starts = np.zeros(len(rows), dtype=np.int64)
        np.cumsum(m[:-1], out=starts[1:])
        capacities = np.concatenate([p.capacities for p in knapsacks]).astype(np.float64) + 1.0
        cells = np.multiply.reduceat(capacities, starts)
        out[rows] = n * np.minimum(cells, np.exp2(np.minimum(n, 1000.0)) / n)
    return out


def costs(problems: Sequence, solver: str, device) -> np.ndarray:
    """Planned seconds of each problem with ``solver`` on ``device`` (the solver's ``costs``).

    Where the client cannot plan (``solver="auto"``, no local device, or a problem the solver
    refuses, which its worker will report) the device-free :func:`sizes` stand in, scaled to the
    planned ones.
    """
    from . import registry
    planned = np.full(len(problems), np.nan)
    if solver != "auto" and device is not None:
        try:
            planned = np.asarray(registry.load(solver).costs(problems, device), dtype=np.float64)
        except ClsolveError:
            pass
    missing = ~np.isfinite(planned) | (planned < 0)
    if missing.any():
        proxy = sizes(problems)
        known = ~missing
        scale = planned[known].sum() / max(proxy[known].sum(), 1e-300) if known.any() else 1.0
        planned[missing] = proxy[missing] * scale
    return planned


def tapered_shares(workers: int, per_worker: int = CHUNKS_PER_WORKER) -> np.ndarray:
    """Shares of a batch's cost for chunks handed out in order to ``workers`` workers: a quarter-size
    chunk each to start (packed and sent quickly, so no worker waits long for its first), then
    equal chunks, then a half, a quarter and an eighth each at the end, so that the workers finish
    close together and the client's last check is short. About ``per_worker`` full chunks' worth
    each."""
    full = 1.0 / (workers * per_worker)
    head, tail = [full / 4] * workers, [full / 2] * workers + [full / 4] * workers + [full / 8] * workers
    middle = 1.0 - sum(head) - sum(tail)
    count = max(1, round(middle / full))
    return np.array(head + [middle / count] * count + tail)


def cut(weights: np.ndarray, chunks: int, max_size: int | None = None, shares: np.ndarray | None = None) -> list[range]:
    """Contiguous index ranges of about equal summed weight: ``chunks`` of them at most (a range ends
    where the running sum first reaches a multiple of the share), none longer than ``max_size``
    problems, none empty. A problem heavier than a share ends its range. With ``shares`` (fractions
    of the total, summing to 1), range k ends where the running sum first reaches shares[:k + 1].sum()
    of the total instead (``chunks`` is then ``len(shares)``)."""
    count = len(weights)
    if count == 0:
        return []
    if shares is not None:
        chunks = len(shares)
    if chunks < 1:
        raise InvalidOptionError(f"chunks must be at least 1, got {chunks}")
    weights = np.maximum(np.asarray(weights, dtype=np.float64), 0.0)
    running = np.cumsum(weights)
    total = float(running[-1])
    if total > 0:
        fractions = np.cumsum(shares)[:-1] / float(np.sum(shares)) if shares is not None else np.arange(1, chunks) / chunks
        targets = total * fractions
        ends = np.searchsorted(running, targets * (1 - 1e-12), side="left") + 1
    else:
        ends = np.arange(1, chunks) * -(-count // chunks)
    bounds = sorted({0, count, *[int(e) for e in ends if 0 < e < count]})
    ranges = []
    for lo, hi in zip(bounds, bounds[1:]):
        step = hi - lo if max_size is None else max_size
        ranges.extend(range(a, min(a + step, hi)) for a in range(lo, hi, step))
    return ranges


# ---------------------------------------------------------------------------------- the transport

@dataclass
class PackedProblems:
    """A chunk's problems as concatenated arrays (knapsacks) plus any other problems as objects.

    ``positions`` are the problems' indices in the whole batch. Knapsack ``k`` has items
    ``item_offsets[k]:item_offsets[k+1]`` of ``profits`` and ``weights`` (rows) and capacities
    ``capacities[capacity_offsets[k]:capacity_offsets[k+1]]``; ``others`` maps a batch index to a
    problem of another kind.
    """

    positions: np.ndarray
    item_offsets: np.ndarray
    capacity_offsets: np.ndarray
    profits: np.ndarray
    weights: np.ndarray
    capacities: np.ndarray
    names: list[str]
    #: The known optimum of each knapsack, -1 where none is known.
    known_optima: np.ndarray
    knapsack_positions: np.ndarray
    others: dict[int, object] = field(default_factory=dict)

    @classmethod
    def pack(cls, problems: Sequence, positions: Sequence[int] | None = None) -> "PackedProblems":
        """Pack ``problems`` (batch indices ``positions``, ascending; default 0, 1, ...)."""
        positions = range(len(problems)) if positions is None else positions
        knapsacks = [(i, p) for i, p in zip(positions, problems) if isinstance(p, Knapsack)]
        others = {int(i): p for i, p in zip(positions, problems) if not isinstance(p, Knapsack)}
        shapes = np.array([p.weights.shape for _, p in knapsacks], dtype=np.int64).reshape(-1, 2)
        items = np.zeros(len(knapsacks) + 1, dtype=np.int64)
        np.cumsum(shapes[:, 0], out=items[1:])
        dims = np.zeros(len(knapsacks) + 1, dtype=np.int64)
        np.cumsum(shapes[:, 1], out=dims[1:])

        def joined(arrays):
            return np.concatenate(arrays) if arrays else np.zeros(0, np.int64)
        return cls(
            positions=np.asarray(positions, dtype=np.int64), item_offsets=items, capacity_offsets=dims,
            profits=joined([p.profits for _, p in knapsacks]),
            weights=joined([p.weights.reshape(-1) for _, p in knapsacks]),
            capacities=joined([p.capacities for _, p in knapsacks]),
            names=[p.name for _, p in knapsacks],
            known_optima=np.array([-1 if p.known_optimum is None else p.known_optimum for _, p in knapsacks],
                                  dtype=np.int64),
            knapsack_positions=np.array([i for i, _ in knapsacks], dtype=np.int64), others=others)

    def __len__(self) -> int:
        return len(self.positions)

    def _segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per knapsack: items n, dimensions m, and the start of its weights in ``weights``."""
        n = np.diff(self.item_offsets)
        m = np.diff(self.capacity_offsets)
        starts = np.zeros(len(n), dtype=np.int64)
        np.cumsum((n * m)[:-1], out=starts[1:])
        return n, m, starts

    def validate(self) -> None:
        """The checks of the ``Knapsack`` constructor, over all knapsacks at once (a worker does not
        trust what came over the network)."""
        n, m, starts = self._segments()
        arrays = {"profits": self.profits, "weights": self.weights, "capacities": self.capacities}
        for name, array in arrays.items():
            if array.dtype != np.int64 or array.ndim != 1:
                raise InvalidProblemError(f"packed {name}: expected a flat int64 array, got {array.dtype} {array.shape}")
            if array.size and (array.min() < 0 or array.max() > MAX_SCALAR):
                raise InvalidProblemError(f"packed {name}: values must lie in [0, 2^62]")
        counts = (len(self.names), len(self.known_optima), len(self.knapsack_positions))
        if (n < 1).any() or (m < 1).any() or counts != (len(n),) * 3 or \
                self.profits.size != n.sum() or self.weights.size != (n * m).sum() or self.capacities.size != m.sum():
            raise InvalidProblemError("packed problems: offsets do not match the arrays")
        if len(n):
            approximate = np.add.reduceat(self.profits.astype(np.float64), self.item_offsets[:-1])
            for k in np.flatnonzero(approximate >= 2.0**62):  # near the limit: exact sums
                if int(self.profits[self.item_offsets[k]:self.item_offsets[k + 1]].sum(dtype=object)) > INT64_MAX:
                    raise InvalidProblemError(f"packed problem {self.names[k]!r}: profits sum beyond 2^63 - 1")

    def unpack(self) -> list:
        """The problems again, in ``positions`` order (validated together, then built without
        repeating the checks per problem)."""
        self.validate()
        for array in (self.profits, self.weights, self.capacities):
            array.setflags(write=False)  # so the problems' views are read-only and not copied
        n, m, starts = self._segments()
        totals = np.add.reduceat(self.profits, self.item_offsets[:-1]).tolist() if len(n) else []
        items, dims = self.item_offsets.tolist(), self.capacity_offsets.tolist()
        known = [None if k < 0 else k for k in self.known_optima.tolist()]
        profits, weights, capacities, trusted = self.profits, self.weights, self.capacities, Knapsack.trusted
        if len(m) and (m == m[0]).all():  # one m for all: rows of one 2-D view, no reshape per problem
            rows = weights.reshape(-1, int(m[0]))
            built = [trusted(profits[a:b], rows[a:b], capacities[c:d], name, total, optimum)
                     for a, b, c, d, name, total, optimum in zip(items, items[1:], dims, dims[1:], self.names, totals,
                                                                  known)]
        else:
            built = [trusted(profits[a:b], weights[start:start + (b - a) * width].reshape(b - a, width),
                             capacities[c:d], name, total, optimum)
                     for a, b, c, d, width, start, name, total, optimum in zip(
                         items, items[1:], dims, dims[1:], m.tolist(), starts.tolist(), self.names, totals, known)]
        if not self.others:
            return built  # knapsack_positions == positions
        by_position = dict(self.others)
        by_position.update(zip(self.knapsack_positions.tolist(), built))
        return [by_position[i] for i in self.positions.tolist()]

    def first_wrong(self, answer: "PackedSolutions") -> int | None:
        """Check ``answer`` against these problems in one vectorized pass: the batch index of the first
        knapsack whose answer is infeasible, has another value than its items' profits, or misses a
        known optimum it claims; None when all pass. Other kinds (and sums near int64's limit) are
        checked one by one."""
        order = np.argsort(self.knapsack_positions, kind="stable")
        found = np.searchsorted(self.knapsack_positions, answer.positions, sorter=order)
        found = order[np.minimum(found, max(len(order) - 1, 0))] if len(order) else np.zeros(len(answer.positions), np.int64)
        keep = (self.knapsack_positions[found] == answer.positions) if len(order) else np.zeros(len(found), bool)
        n, m, starts = self._segments()
        objects = np.flatnonzero(~keep).tolist()
        rows = found[keep]
        wrong: list[int] = []
        if rows.size:
            lengths = np.diff(answer.item_offsets)[keep]
            if not (lengths == n[rows]).all():
                return int(answer.positions[keep][np.flatnonzero(lengths != n[rows])[0]])
            item_mask = np.repeat(keep, np.diff(answer.item_offsets))
            selected = answer.selected[item_mask].astype(bool)
            # the answered knapsacks' items and weights, in answer order (all of them, in order, unless some failed)
            everything = rows.size == len(n) and bool((rows == np.arange(len(n))).all())
            if everything:
                profits, weights, capacities = self.profits, self.weights, self.capacities
            else:
                profits = self.profits[np.concatenate([np.arange(self.item_offsets[k], self.item_offsets[k + 1])
                                                       for k in rows])]
                weights = self.weights[np.concatenate([np.arange(starts[k], starts[k] + n[k] * m[k]) for k in rows])]
                capacities = np.concatenate([self.capacities[self.capacity_offsets[k]:self.capacity_offsets[k + 1]]
                                             for k in rows])
            counts, widths = n[rows], m[rows]
            firsts = np.cumsum(counts) - counts
            values = np.add.reduceat(profits * selected, firsts)
            block = counts * widths  # each knapsack's weight entries, row-major (item, dimension)
            block_start = np.repeat(np.cumsum(block) - block, block)
            entry_width = np.repeat(widths, block)
            entry = np.arange(int(block.sum()), dtype=np.int64)
            dims = (entry - block_start) % entry_width
            chosen = selected[np.repeat(firsts, block) + (entry - block_start) // entry_width]
            groups = np.repeat(np.cumsum(widths) - widths, block) + dims
            if weights.size and int(weights.max()) * int(n.max()) >= 2**63:
                objects.extend(np.flatnonzero(keep).tolist())  # int64 sums could overflow: exact, one by one
            else:
                if int(weights.max(initial=0)) * int(n.max()) < 2**53:  # float sums are exact: bincount
                    used = np.bincount(groups, weights * chosen, minlength=int(widths.sum())).astype(np.int64)
                else:
                    used = np.zeros(int(widths.sum()), dtype=np.int64)
                    np.add.at(used, groups, weights * chosen)
                over = np.add.reduceat((used > capacities).astype(np.int64), np.cumsum(widths) - widths) > 0
                claimed = answer.values[keep]
                optimal = answer.optimal[keep]
                known = self.known_optima[rows]
                bad = over | (values != claimed) | (optimal & (known >= 0) & (known != values))
                wrong.extend(answer.positions[keep][bad].tolist())
        for i in objects:
            position = int(answer.positions[i])
            problem = self.unpack_one(position)
            solution = answer.solution(i)
            try:
                check(problem, solution)
            except SolutionCheckError:
                wrong.append(position)
        return min(wrong) if wrong else None

    def unpack_one(self, position: int):
        """The problem at batch index ``position``."""
        if position in self.others:
            return self.others[position]
        k = int(np.searchsorted(self.knapsack_positions, position))
        n, m, starts = self._segments()
        a, b = int(self.item_offsets[k]), int(self.item_offsets[k + 1])
        return Knapsack(self.profits[a:b], self.weights[starts[k]:starts[k] + n[k] * m[k]].reshape(n[k], m[k]),
                        self.capacities[self.capacity_offsets[k]:self.capacity_offsets[k + 1]], self.names[k],
                        None if self.known_optima[k] < 0 else int(self.known_optima[k]))


@dataclass
class PackedSolutions:
    """A chunk's answers: one row per solved problem (``positions``), items concatenated, and the
    failures of problems that could not be solved, by batch index: (error class name, message).
    What most rows share (solver, device, notes) is kept once in ``labels``; bounds and stats only
    for the rows that have them (``extras``)."""

    positions: np.ndarray
    values: np.ndarray
    item_offsets: np.ndarray
    selected: np.ndarray
    optimal: np.ndarray
    timings: np.ndarray
    labels: list[tuple[str, str, tuple[str, ...]]]
    label_index: np.ndarray
    extras: dict[int, tuple[int | None, dict]]
    failures: dict[int, tuple[str, str]]
    worker: str = ""
    seconds: float = 0.0

    @classmethod
    def pack(cls, positions: Sequence[int], solutions: Sequence[Solution], failures: dict[int, tuple[str, str]],
             worker: str, seconds: float) -> "PackedSolutions":
        count = len(solutions)
        values, sizes, optimal, timings, index = [], [], [], [], []
        labels: dict[tuple, int] = {}
        extras: dict[int, tuple[int | None, dict]] = {}
        for k, s in enumerate(solutions):
            values.append(int(s.value))
            sizes.append(s.selected.size)
            optimal.append(bool(s.optimal))
            t = s.timings
            timings.append((t.upload, t.kernels, t.download, t.host))
            label = (s.solver, s.device, tuple(s.notes))
            index.append(labels.setdefault(label, len(labels)))
            if s.bound is not None or s.stats:
                extras[k] = (None if s.bound is None else int(s.bound), dict(s.stats))
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return cls(positions=np.asarray(positions, dtype=np.int64), values=np.array(values, dtype=np.int64),
                   item_offsets=offsets,
                   selected=np.concatenate([s.selected for s in solutions]) if count else np.zeros(0, bool),
                   optimal=np.array(optimal, dtype=bool), timings=np.array(timings, dtype=np.float64).reshape(-1, 4),
                   labels=list(labels), label_index=np.array(index, dtype=np.int32), extras=extras,
                   failures=dict(failures), worker=worker, seconds=seconds)

    def solution(self, k: int) -> Solution:
        """Row ``k`` as a Solution."""
        solver, device, notes = self.labels[int(self.label_index[k])]
        bound, stats = self.extras.get(k, (None, {}))
        return Solution(int(self.values[k]), self.selected[self.item_offsets[k]:self.item_offsets[k + 1]],
                        bool(self.optimal[k]), solver, device, Timings(*self.timings[k].tolist()), list(notes),
                        bound, dict(stats))

    def unpack(self) -> list[Solution]:
        offsets, everything, labels = self.item_offsets.tolist(), self.selected, self.labels
        out = [Solution(value, everything[a:b], optimal, labels[label][0], labels[label][1], Timings(*timing),
                        list(labels[label][2]))
               for value, a, b, optimal, timing, label in zip(
                   self.values.tolist(), offsets, offsets[1:], self.optimal.tolist(), self.timings.tolist(),
                   self.label_index.tolist())]
        for k, (bound, stats) in self.extras.items():
            out[k].bound, out[k].stats = bound, dict(stats)
        return out


# ------------------------------------------------------------------------------- the worker's side

def _failure(exc: BaseException) -> tuple[str, str]:
    return type(exc).__name__, str(exc)


def solve_chunk(packed: PackedProblems, solver: str, options: dict, device, worker: str = "") -> PackedSolutions:
    """Solve one chunk on this process's device (a worker's task). The whole chunk goes through the
    engine's ``solve_many`` (its check is left to the client's ``Collector``, which checks every
    answer); when that fails, the problems that fail on their own are found one by one and reported
    by batch index, and the rest is solved without them."""
    with paused_gc():
        return _solve_chunk(packed, solver, options, device, worker)


def _solve_chunk(packed: PackedProblems, solver: str, options: dict, device, worker: str) -> PackedSolutions:
    from . import api
    start = time.perf_counter()
    positions = packed.positions.tolist()
    problems = packed.unpack()
    failures: dict[int, tuple[str, str]] = {}
    try:
        solutions = api.solve_many_unchecked(problems, solver, device, **options)
        return PackedSolutions.pack(positions, solutions, failures, worker, time.perf_counter() - start)
    except InvalidOptionError:
        raise  # the same for every problem: not one problem's fault
    except ClsolveError:
        pass
    good: list[int] = []
    for k, problem in enumerate(problems):
        try:
            api.plan(problem, solver, device, **options)
            good.append(k)
        except ClsolveError as exc:
            failures[positions[k]] = _failure(exc)
    solved: dict[int, Solution] = {}
    try:
        for k, solution in zip(good, api.solve_many_unchecked([problems[k] for k in good], solver, device, **options)):
            solved[k] = solution
    except ClsolveError:
        for k in good:  # still failing together: one at a time
            try:
                solved[k] = api.solve(problems[k], solver, device, **options)
            except ClsolveError as exc:
                failures[positions[k]] = _failure(exc)
    kept = sorted(solved)
    return PackedSolutions.pack([positions[k] for k in kept], [solved[k] for k in kept], failures, worker,
                                time.perf_counter() - start)


# ------------------------------------------------------------------------------- the client's side

@dataclass
class Progress:
    """How far a chunked batch has got; passed to the ``progress`` callback after every chunk."""

    chunks_done: int
    chunks: int
    instances_done: int
    instances: int
    seconds: float
    #: Chunks sent again because the worker holding them was lost.
    resubmitted: int = 0
    failed: int = 0
    #: Seconds the workers spent on the chunks done (unpacking, solving, checking, packing), summed.
    worker_seconds: float = 0.0
    #: Seconds this process spent planning chunk costs, packing problems and taking answers.
    client_seconds: float = 0.0

    @property
    def instances_per_second(self) -> float:
        return self.instances_done / self.seconds if self.seconds > 0 else 0.0

    def line(self) -> str:
        extra = f", {self.resubmitted} resubmitted" if self.resubmitted else ""
        extra += f", {self.failed} failed" if self.failed else ""
        return (f"chunks {self.chunks_done}/{self.chunks}, instances {self.instances_done}/{self.instances}, "
                f"{self.instances_per_second:,.0f} instances/s{extra}")


def _error_class(name: str) -> type[ClsolveError]:
    cls = getattr(errors, name, None)
    return cls if isinstance(cls, type) and issubclass(cls, ClsolveError) and cls is not BatchError else ClsolveError


class Collector:
    """Takes each chunk's answers exactly once, checks them against the client's problems, and
    builds the input-order result (or a :class:`BatchError` with the failures and the rest)."""

    def __init__(self, problems: Sequence, ranges: Sequence[range], progress: Callable[[Progress], None] | None):
        self.problems = problems
        self.ranges = list(ranges)
        self.solutions: list[Solution | None] = [None] * len(problems)
        self.failures: dict[int, ClsolveError] = {}
        self.done: set[int] = set()
        self.callback = progress
        self.start = time.perf_counter()
        self.resubmitted = 0
        self.instances_done = 0
        self.worker_seconds = 0.0
        self.client_seconds = 0.0

    def progress(self) -> Progress:
        return Progress(len(self.done), len(self.ranges), self.instances_done, len(self.problems),
                        time.perf_counter() - self.start, self.resubmitted, len(self.failures), self.worker_seconds,
                        self.client_seconds)

    def take(self, chunk: int, packed: PackedSolutions, sent: PackedProblems) -> None:
        """Record chunk ``chunk``'s answers, checked against ``sent``, the chunk's problems as packed
        (one vectorized pass)."""
        if chunk in self.done:
            return  # a chunk answered twice (re-run after a worker was lost and both finished): keep the first
        began = time.perf_counter()
        expected = set(self.ranges[chunk])
        got = set(packed.positions.tolist()) | set(packed.failures)
        if got != expected or len(packed.positions) + len(packed.failures) != len(expected):
            raise SolutionCheckError(f"chunk {chunk} came back with problems {sorted(got)[:5]}... "
                                     f"instead of {self.ranges[chunk]}")
        solutions = packed.unpack()
        positions = packed.positions.tolist()
        wrong = sent.first_wrong(packed)
        failed = None if wrong is None else positions.index(wrong)
        if failed is not None:
            problem = self.problems[positions[failed]]
            try:
                check(problem, solutions[failed])
            except SolutionCheckError as exc:
                raise SolutionCheckError(f"{problem_label(positions[failed], problem)}: {exc}") from exc
            raise SolutionCheckError(f"{problem_label(positions[failed], problem)}: its answer does not match the "
                                     "problem that was sent")
        for position, solution in zip(positions, solutions):
            self.solutions[position] = solution
        for position, (name, message) in packed.failures.items():
            self.failures[position] = _error_class(name)(f"{problem_label(position, self.problems[position])}: {message}")
        self.done.add(chunk)
        self.instances_done += len(expected)
        self.worker_seconds += packed.seconds
        self.client_seconds += time.perf_counter() - began
        if self.callback is not None:
            self.callback(self.progress())

    def fail_chunk(self, chunk: int, exc: BaseException) -> None:
        """Every problem of a chunk that could not be run at all (its worker kept dying)."""
        if chunk in self.done:
            return
        for position in self.ranges[chunk]:
            self.failures[position] = ClsolveError(f"{problem_label(position, self.problems[position])}: "
                                                   f"its chunk failed: {type(exc).__name__}: {exc}")
        self.done.add(chunk)
        self.instances_done += len(self.ranges[chunk])
        if self.callback is not None:
            self.callback(self.progress())

    def result(self) -> list[Solution]:
        missing = [c for c in range(len(self.ranges)) if c not in self.done]
        if missing:
            raise SolutionCheckError(f"chunks {missing} never came back")
        if self.failures:
            raise BatchError(self.failures, self.solutions)
        return self.solutions  # type: ignore[return-value]


def note_all(solutions: Sequence[Solution], note: str | None) -> None:
    if note:
        for solution in solutions:
            if solution is not None:
                solution.notes.append(note)
