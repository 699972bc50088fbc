"""A batch cut into chunks by planned cost, shipped as NumPy arrays, solved on a worker, put back in order.

This is what ``device="all"`` (:mod:`clsolve.scaleout.multidevice`) and the Dask path (:mod:`clsolve.scaleout.cluster`)
share. The client cuts the batch into contiguous chunks of about equal planned seconds
(:func:`cut`), packs each chunk's knapsacks into a few concatenated arrays (:class:`PackedProblems`,
no pickled solver objects), a worker solves a chunk with :func:`solve_chunk` (the engine's own
``solve_many`` on the worker's device, so every solution is checked there) and packs the answers
the same way; :class:`Collector` takes each chunk's answers exactly once, checks them again on the
client and returns them in input order. A problem that fails on its own is reported with its
index (:class:`~clsolve.errors.BatchError`) without failing the rest of its chunk.
"""

# long module: cutting, the worker's side and the collecting of a spread batch use one chunk format
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .. import errors, solving
from ..batch.arrays import SolutionArrays
from ..batch.packed import PackedProblems, PackedSolutions
from ..errors import BatchError, ClsolveError, InvalidOptionError, SolutionCheckError, problem_label
from ..plugin import checked
from ..plugin.contract import PackedBatchSolver
from ..problems import Knapsack
from ..solution import Solution, check
from .gcpause import paused_gc

#: Chunks per worker when the caller does not size them: enough to balance uneven chunks and
#: overlap the client's packing with the workers' solving, few enough that each chunk stays a
#: large batch for a batching solver.
CHUNKS_PER_WORKER = 8


# ----------------------------------------------------------------------------------------- sizing


def sizes(problems: Sequence, packed: PackedProblems | None = None) -> np.ndarray:
    """A device-free size of each problem, for when no plan can be made on the client: the dense
    DP's cell updates n x prod(c + 1), or n x 2^n / n = 2^n where enumerating every subset is
    smaller (knapsacks); 1 for other kinds. ``packed``: the same problems packed, if at hand."""
    out = np.ones(len(problems), dtype=np.float64)
    if packed is None:
        knapsacks = [k for k, p in enumerate(problems) if isinstance(p, Knapsack)]
        packed = PackedProblems.pack([problems[k] for k in knapsacks], knapsacks)
    if len(packed.knapsack_positions):
        n = np.diff(packed.item_offsets).astype(np.float64)
        rows = np.searchsorted(packed.positions, packed.knapsack_positions)  # the knapsacks' places in problems
        out[rows] = n * np.minimum(packed.cells(), np.exp2(np.minimum(n, 1000.0)) / n)
    return out


def costs(problems: Sequence, solver: str, device, packed: PackedProblems | None = None) -> np.ndarray:
    """Planned seconds of each problem with ``solver`` on ``device`` (the solver's ``costs``, or
    ``costs_packed`` of ``packed``, the same problems packed, where the solver works on arrays).

    Where the client cannot plan (``solver="auto"``, no local device, or a problem the solver
    refuses, which its worker will report) the device-free :func:`sizes` stand in, scaled to the
    planned ones.
    """
    from ..plugin import registry

    planned = np.full(len(problems), np.nan)
    if solver != "auto" and device is not None:
        try:
            instance = registry.load(solver)
            if isinstance(instance, PackedBatchSolver) and packed is not None and not packed.others:
                found = instance.costs_packed(packed, device)
            else:
                found = checked.costs(instance, problems, device)
            planned = np.asarray(found, dtype=np.float64)
        except ClsolveError:
            pass
    missing = ~np.isfinite(planned) | (planned < 0)
    if missing.any():
        proxy = sizes(problems, packed)
        known = ~missing
        scale = planned[known].sum() / max(proxy[known].sum(), 1e-300) if known.any() else 1.0
        planned[missing] = proxy[missing] * scale
    return planned


#: The leading waves of a batch when the caller does not size its chunks, as shares of the batch:
#: each is cut by count into one chunk per worker and packed just before it is sent, so that the
#: workers start within milliseconds and the client packs each next wave (then the rest) while they
#: solve the last. Each wave is about four times the one before: on MSB-630 with 2 x H200, packing
#: a problem costs the client about a seventh of what solving it costs a worker.
WAVES = (1 / 64, 1 / 16, 1 / 5)


class Chunking:
    """A batch's chunks as packed problems, planned in steps so that the first chunks go out before
    the rest of the batch is packed and planned.

    1. Waves (when the caller does not size the chunks): ``head``, the first, is packed on creation;
       :meth:`next_wave` packs each next one. A wave is ``waves[k]`` of the batch (default
       :data:`WAVES`), cut by count into one chunk per worker.
    2. :meth:`plan_rest`: the other problems packed together (where a wave or the rest holds
       knapsacks only, each of its chunks is then a view of those arrays; otherwise its chunks are
       packed one by one), planned
       (:func:`costs`) and cut by cost, into ``chunk_count`` equal chunks or the rest of the
       tapered shares.
    """

    def __init__(
        self,
        problems: Sequence,
        workers: int,
        chunk_count: int | None = None,
        per_worker: int = CHUNKS_PER_WORKER,
        waves: Sequence[float] | None = None,
    ):
        self.problems, self.workers, self.chunk_count, self.per_worker = problems, max(1, workers), chunk_count, per_worker
        waves = list(WAVES if waves is None else waves)
        if any(not 0 < w < 1 for w in waves) or sum(waves) >= 1:
            raise InvalidOptionError(f"waves must be shares in (0, 1) summing to less than 1, got {waves}")
        self._waves = waves if chunk_count is None else []
        #: Rows before this one are in waves already sent.
        self.split = 0
        #: Every chunk's rows, waves first; complete after plan_rest.
        self.ranges: list[range] = []
        #: (first row, the rows from there packed), for the parts of the batch that are knapsacks only
        self._parts: list[tuple[int, PackedProblems]] = []
        #: The first wave's chunks, one per worker, ready to send (none for a small batch).
        self.head = self.next_wave()

    def next_wave(self) -> list[range]:
        """Pack the next wave and return its chunks' rows (one chunk per worker, appended to
        ``ranges``); [] when no wave is left, or the batch is too small for one."""
        if not self._waves:
            return []
        size = int(len(self.problems) * self._waves.pop(0)) // self.workers
        if size == 0:
            self._waves = []
            return []
        start, stop = self.split, self.split + size * self.workers
        wave = [range(start + k * size, start + (k + 1) * size) for k in range(self.workers)]
        self._pack_part(start, stop)
        self.split = stop
        self.ranges += wave
        return wave

    def send_waves(self, send: Callable[[int, int], None], between: Callable[[], None] = lambda: None) -> int:
        """The dispatcher both spread paths use: each wave's chunks (``first``..``stop`` - 1) go out
        through ``send`` before the next wave is packed; ``between`` runs after each next wave is
        packed (to take answers already back). Returns the number of chunks sent."""
        wave = self.head
        while wave:
            send(len(self.ranges) - len(wave), len(self.ranges))
            wave = self.next_wave()
            between()
        return len(self.ranges)

    def plan_rest(self, solver: str, device) -> list[range]:
        """Pack and plan the problems after the waves with ``solver`` on ``device`` (None: the
        device-free sizes), cut them by cost; returns all the ranges."""
        rest = self.problems[self.split :]
        packed = self._pack_part(self.split, len(self.problems)) if rest else None
        weights = costs(rest, solver, device, packed)
        if self.chunk_count is not None:
            cuts = cut(weights, self.chunk_count)
        else:
            shares = tapered_shares(self.workers, self.per_worker)
            cuts = cut(weights, 0, shares=shares[self.workers :] if self.split else shares)
        self.ranges += [range(r.start + self.split, r.stop + self.split) for r in cuts]
        return self.ranges

    def _pack_part(self, start: int, stop: int) -> PackedProblems:
        """Rows start..stop-1 packed together; kept for :meth:`chunk` where they are knapsacks only
        (their chunks are then views; a part with other kinds is packed again chunk by chunk)."""
        packed = PackedProblems.pack(self.problems[start:stop], range(start, stop))
        if packed.knapsacks_only():
            self._parts.append((start, packed))
        return packed

    def chunk(self, rows: range) -> PackedProblems:
        """The problems of ``rows`` (one of ``ranges``) packed."""
        for first, packed in self._parts:
            if first <= rows.start and rows.stop <= first + len(packed):
                return packed.rows(rows.start - first, rows.stop - first)
        return PackedProblems.pack(self.problems[rows.start : rows.stop], rows)


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
    ranges: list[range] = []
    for lo, hi in zip(bounds, bounds[1:]):
        step = hi - lo if max_size is None else max_size
        ranges.extend(range(a, min(a + step, hi)) for a in range(lo, hi, step))
    return ranges


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
    start = time.perf_counter()
    if packed.knapsacks_only():
        packed.validate()  # a worker does not trust what came over the network
        try:  # the whole chunk as arrays, when the solver works on them
            answer = solving.solve_packed_unchecked(packed, solver, device, options)
            if answer is not None:
                answer.worker, answer.seconds = worker, time.perf_counter() - start
                return answer
        except InvalidOptionError:
            raise  # the same for every problem: not one problem's fault
        except ClsolveError:
            pass  # one problem or more fails on its own: found below, one by one
    positions = packed.positions.tolist()
    problems = packed.unpack()
    failures: dict[int, tuple[str, str]] = {}
    try:
        solutions = solving.solve_many_unchecked(problems, solver, device, **options)
        return PackedSolutions.pack(positions, solutions, failures, worker, time.perf_counter() - start)
    except InvalidOptionError:
        raise  # the same for every problem: not one problem's fault
    except ClsolveError:
        pass
    good: list[int] = []
    for k, problem in enumerate(problems):
        try:
            solving.plan(problem, solver, device, **options)
            good.append(k)
        except ClsolveError as exc:
            failures[positions[k]] = _failure(exc)
    solved: dict[int, Solution] = {}
    try:
        for k, solution in zip(good, solving.solve_many_unchecked([problems[k] for k in good], solver, device, **options)):
            solved[k] = solution
    except ClsolveError:
        for k in good:  # still failing together: one at a time
            try:
                solved[k] = solving.solve(problems[k], solver, device, **options)
            except ClsolveError as exc:
                failures[positions[k]] = _failure(exc)
    kept = sorted(solved)
    return PackedSolutions.pack(
        [positions[k] for k in kept], [solved[k] for k in kept], failures, worker, time.perf_counter() - start
    )


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
        return (
            f"chunks {self.chunks_done}/{self.chunks}, instances {self.instances_done}/{self.instances}, "
            f"{self.instances_per_second:,.0f} instances/s{extra}"
        )


def _error_class(name: str) -> type[ClsolveError]:
    cls = getattr(errors, name, None)
    return cls if isinstance(cls, type) and issubclass(cls, ClsolveError) and cls is not BatchError else ClsolveError


class Collector:
    """Takes each chunk's answers exactly once, checks them against the client's problems, and
    builds the input-order result (or a :class:`BatchError` with the failures and the rest): a list
    of Solution objects, or with ``arrays`` the chunks' answers joined as a :class:`SolutionArrays`
    (no object built per problem)."""

    def __init__(
        self, problems: Sequence, ranges: list[range], progress: Callable[[Progress], None] | None, arrays: bool = False
    ):
        self.problems = problems
        self.ranges = ranges  # a list that may grow (a spread batch plans the rest after its waves)
        self.arrays = arrays
        self.solutions: list[Solution | None] = [] if arrays else [None] * len(problems)
        self.parts: dict[int, PackedSolutions] = {}  # with arrays: each chunk's answers, by chunk
        self.failures: dict[int, ClsolveError] = {}
        self.done: set[int] = set()
        self.callback = progress
        self.start = time.perf_counter()
        self.resubmitted = 0
        self.instances_done = 0
        self.worker_seconds = 0.0
        self.client_seconds = 0.0

    def progress(self) -> Progress:
        return Progress(
            len(self.done),
            len(self.ranges),
            self.instances_done,
            len(self.problems),
            time.perf_counter() - self.start,
            self.resubmitted,
            len(self.failures),
            self.worker_seconds,
            self.client_seconds,
        )

    def take(self, chunk: int, packed: PackedSolutions, sent: PackedProblems | None) -> None:
        """Record chunk ``chunk``'s answers, checked against ``sent``, the chunk's problems as packed
        (one vectorized pass; None once answered)."""
        if chunk in self.done or sent is None:
            return  # a chunk answered twice (re-run after a worker was lost and both finished): keep the first
        began = time.perf_counter()
        expected = self.ranges[chunk]
        got = np.sort(
            np.concatenate(
                [
                    np.asarray(packed.positions, dtype=np.int64),
                    np.fromiter(packed.failures, dtype=np.int64, count=len(packed.failures)),
                ]
            )
        )
        if got.size != len(expected) or (got.size and (got != np.arange(expected.start, expected.stop)).any()):
            raise SolutionCheckError(f"chunk {chunk} came back with problems {got[:5].tolist()}... instead of {expected}")
        wrong = sent.first_wrong(packed)
        if wrong is not None:
            problem = self.problems[wrong]
            try:
                check(problem, packed.solution(int(np.flatnonzero(packed.positions == wrong)[0])))
            except SolutionCheckError as exc:
                raise SolutionCheckError(f"{problem_label(wrong, problem)}: {exc}") from exc
            raise SolutionCheckError(f"{problem_label(wrong, problem)}: its answer does not match the problem that was sent")
        if self.arrays:
            self.parts[chunk] = packed
        else:
            self._place(packed)
        for position, (name, message) in packed.failures.items():
            self.failures[position] = _error_class(name)(f"{problem_label(position, self.problems[position])}: {message}")
        self.done.add(chunk)
        self.instances_done += len(expected)
        self.worker_seconds += packed.seconds
        self.client_seconds += time.perf_counter() - began
        if self.callback is not None:
            self.callback(self.progress())

    def _place(self, packed: PackedSolutions) -> None:
        """A chunk's answers as Solution objects, each at its batch index."""
        positions = packed.positions
        if len(positions) and bool((np.diff(positions) == 1).all()):
            self.solutions[int(positions[0]) : int(positions[-1]) + 1] = packed.unpack()  # a run of rows: one slice
            return
        for position, solution in zip(positions.tolist(), packed.unpack()):
            self.solutions[position] = solution

    def fail_chunk(self, chunk: int, exc: BaseException) -> None:
        """Every problem of a chunk that could not be run at all (its worker kept dying)."""
        if chunk in self.done:
            return
        for position in self.ranges[chunk]:
            self.failures[position] = ClsolveError(
                f"{problem_label(position, self.problems[position])}: its chunk failed: {type(exc).__name__}: {exc}"
            )
        self.done.add(chunk)
        self.instances_done += len(self.ranges[chunk])
        if self.callback is not None:
            self.callback(self.progress())

    def result(self) -> list[Solution] | SolutionArrays:
        missing = [c for c in range(len(self.ranges)) if c not in self.done]
        if missing:
            raise SolutionCheckError(f"chunks {missing} never came back")
        if self.failures:
            if self.arrays:  # the solved ones as objects, None where a problem failed
                self.solutions = [None] * len(self.problems)
                for part in self.parts.values():
                    self._place(part)
            raise BatchError(self.failures, self.solutions)
        if self.arrays:
            return SolutionArrays(PackedSolutions.joined([self.parts[c] for c in range(len(self.ranges))]))
        return self.solutions  # type: ignore[return-value]


def note_all(solutions: Sequence[Solution] | SolutionArrays, note: str | None) -> None:
    if isinstance(solutions, SolutionArrays):
        if note:
            solutions.add_note(note)
    elif note:
        for solution in solutions:
            if solution is not None:
                solution.notes.append(note)
