"""A batch of problems as a few concatenated NumPy arrays, and a batch of answers the same way.

``PackedProblems`` is how a batch travels to a worker process or a Dask worker (no pickled solver
objects) and what a batching solver works on directly (``Solver.solve_packed``): knapsack k has
items ``item_offsets[k]:item_offsets[k+1]`` of ``profits`` and of ``weights`` (rows of m entries)
and capacities ``capacities[capacity_offsets[k]:capacity_offsets[k+1]]``. ``PackedSolutions`` holds
the answers: values, concatenated item flags, and what most rows share (solver, device, notes) once.
``PackedProblems.first_wrong`` checks a whole answer against the problems in one vectorized pass.
"""

# long module: PackedProblems and PackedSolutions are one format, read and written together
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from ..errors import InvalidProblemError, SolutionCheckError
from ..problems import INT64_MAX, MAX_SCALAR, Knapsack
from ..solution import PHASES, Solution, Timings, check

# PackedSolutions.unpack fills these attributes directly: a field added to either class goes there too
assert [f.name for f in fields(Solution)] == [
    "value",
    "selected",
    "optimal",
    "solver",
    "device",
    "timings",
    "notes",
    "bound",
    "stats",
    "positions",
    "tour",
    "counts",
    "assignment",
    "feasible",
]


#: The arrays of PackedProblems narrowed for transport.
_DATA = ("profits", "weights", "capacities")


def _joined(arrays: list, total: int) -> np.ndarray:
    """A knapsack's ``arrays`` (int64 by construction) end to end as one flat, read-only int64 array
    of ``total`` entries: their bytes joined where every array is C-contiguous (about twice as fast
    as ``np.concatenate`` for tens of thousands of small arrays), else concatenated. The byte count
    is checked, so an array of another width cannot pass unnoticed."""
    try:
        joined = b"".join(arrays)
        if len(joined) == 8 * total:
            return np.frombuffer(joined, dtype=np.int64)
    except (TypeError, ValueError, BufferError):  # a strided view: no flat buffer to join
        pass
    return np.concatenate([np.asarray(a, dtype=np.int64).reshape(-1) for a in arrays])


def concatenated_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The indices starts[0] .. starts[0] + lengths[0] - 1, then those of the next range, ... (int64)."""
    starts, lengths = np.asarray(starts, dtype=np.int64), np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(total, dtype=np.int64)


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
    #: The data arrays as they are pickled (:meth:`narrowed`), when made already: a view made by
    #: :meth:`rows` holds slices of its batch's.
    wire: dict[str, np.ndarray] | None = field(default=None, repr=False, compare=False)
    #: :meth:`segments`, once made (the offsets are not changed after packing).
    layout: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)
    #: What is computed once per batch from its arrays (``clsolve.dp.presolve.reduce_packed``: the
    #: reduction, by its rules), shared by the solvers that plan and solve it; not pickled.
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    #: The objects packed, as given (their per-problem caches with them), where ``pack`` made this
    #: batch; not pickled.
    given: list | None = field(default=None, repr=False, compare=False)

    @classmethod
    def pack(cls, problems: Sequence, positions: Sequence[int] | None = None) -> PackedProblems:
        """Pack ``problems`` (batch indices ``positions``, ascending; default 0, 1, ...): a pass over
        the objects per attribute, then a few concatenations. The arrays are read-only."""
        at = np.arange(len(problems), dtype=np.int64) if positions is None else np.asarray(positions, dtype=np.int64)
        kinds = [type(p) is Knapsack or isinstance(p, Knapsack) for p in problems]
        if all(kinds):
            knapsacks, knapsack_positions, others = problems, at, {}
        else:
            knapsacks = [p for p, kind in zip(problems, kinds) if kind]
            knapsack_positions = at[np.asarray(kinds, dtype=bool)]
            others = {int(i): p for i, p, kind in zip(at.tolist(), problems, kinds) if not kind}
        count = len(knapsacks)
        if count == 0:
            empty = np.zeros(0, np.int64)
            return cls(
                at,
                np.zeros(1, np.int64),
                np.zeros(1, np.int64),
                empty,
                empty.copy(),
                empty.copy(),
                [],
                empty.copy(),
                knapsack_positions,
                others,
            )
        # one comprehension per attribute: much faster than transposing a tuple per object
        profits = [p.profits for p in knapsacks]
        weights = [p.weights for p in knapsacks]
        capacities = [p.capacities for p in knapsacks]
        n = np.fromiter(map(len, profits), dtype=np.int64, count=count)
        m = np.fromiter(map(len, capacities), dtype=np.int64, count=count)
        items = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(n, out=items[1:])
        dims = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(m, out=dims[1:])
        return cls(
            positions=at,
            item_offsets=items,
            capacity_offsets=dims,
            profits=_joined(profits, int(items[-1])),
            weights=_joined(weights, int((n * m).sum())),
            capacities=_joined(capacities, int(dims[-1])),
            names=[p.name for p in knapsacks],
            known_optima=np.fromiter(
                (-1 if p.known_optimum is None else p.known_optimum for p in knapsacks), dtype=np.int64, count=count
            ),
            knapsack_positions=knapsack_positions,
            others=others,
            given=list(problems),
        )

    def objects(self) -> list:
        """The problems as objects, in order: those ``pack`` packed, as given, where it made this
        batch; else unpacked anew."""
        if self.given is not None:
            return self.given
        return [self.unpack_one(int(position)) for position in self.positions]

    def narrowed(self) -> dict[str, np.ndarray]:
        """The data arrays (profits, weights, capacities) in the narrowest unsigned type that holds
        them (values are 0 .. 2^62), as they are pickled; made once per batch."""
        if self.wire is None:
            self.wire = {}
            for name in _DATA:
                array = getattr(self, name)
                top = int(array.max(initial=0))
                narrow = next((t for t in (np.uint8, np.uint16, np.uint32) if top <= np.iinfo(t).max), None)
                self.wire[name] = array.astype(narrow) if narrow is not None and array.min(initial=0) >= 0 else array
        return self.wire

    def __getstate__(self) -> dict:
        """For pickling (to a worker process or a Dask worker): the data arrays narrowed
        (:meth:`narrowed`), widened again on arrival."""
        state = dict(self.__dict__)
        state.update(self.narrowed())
        state["wire"] = state["layout"] = None
        state["memo"], state["given"] = {}, None
        return state

    def __setstate__(self, state: dict) -> None:
        for name in _DATA:
            state[name] = np.asarray(state[name]).astype(np.int64)
        self.__dict__.update(state)

    def __len__(self) -> int:
        return len(self.positions)

    def segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per knapsack: items n, dimensions m, and the start of its weights in ``weights``."""
        if self.layout is not None:
            return self.layout
        n = np.diff(self.item_offsets)
        m = np.diff(self.capacity_offsets)
        starts = np.zeros(len(n), dtype=np.int64)
        np.cumsum((n * m)[:-1], out=starts[1:])
        for array in (n, m, starts):
            array.setflags(write=False)
        self.layout = (n, m, starts)
        return self.layout

    def knapsacks_only(self) -> bool:
        """Whether every problem is a knapsack (no ``others``)."""
        return not self.others

    def cells(self) -> np.ndarray:
        """prod(capacity_d + 1) of each knapsack, as floats (exact below 2^53; for comparing and
        estimating)."""
        n, m, _ = self.segments()
        if not len(n):
            return np.zeros(0)
        return np.multiply.reduceat(self.capacities.astype(np.float64) + 1.0, self.capacity_offsets[:-1])

    def shared_width(self) -> int | None:
        """The m every knapsack has, where they all have the same (``weights`` is then (items, m)
        rows end to end); None for mixed m or no knapsacks."""
        m = np.diff(self.capacity_offsets)
        return int(m[0]) if len(m) and (m == m[0]).all() else None

    def weight_entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each entry of ``weights``: its item, its dimension, and its entry in ``capacities``."""
        n, m, _ = self.segments()
        width = self.shared_width()
        if width is not None:
            items = np.repeat(np.arange(int(n.sum()), dtype=np.int64), width)
            dims = np.tile(np.arange(width, dtype=np.int64), int(n.sum()))
        else:
            per_item = np.repeat(m, n)
            items = np.repeat(np.arange(int(n.sum()), dtype=np.int64), per_item)
            item_start = np.cumsum(per_item) - per_item
            dims = np.arange(self.weights.size, dtype=np.int64) - np.repeat(item_start, per_item)
        owner = np.repeat(np.arange(len(n), dtype=np.int64), n)
        return items, dims, self.capacity_offsets[:-1][owner][items] + dims

    def rows(self, first: int, stop: int) -> PackedProblems:
        """Knapsacks ``first`` .. ``stop - 1`` of a batch of knapsacks only, as views of its arrays."""
        a, b = int(self.item_offsets[first]), int(self.item_offsets[stop])
        c, d = int(self.capacity_offsets[first]), int(self.capacity_offsets[stop])
        n, m, starts = self.segments()
        w_start = int(starts[first]) if first < len(n) else self.weights.size
        w_stop = int(starts[stop]) if stop < len(n) else self.weights.size
        wire = self.narrowed()  # narrowed once for the batch, not once per chunk sent
        return PackedProblems(
            positions=self.knapsack_positions[first:stop],
            item_offsets=self.item_offsets[first : stop + 1] - a,
            capacity_offsets=self.capacity_offsets[first : stop + 1] - c,
            profits=self.profits[a:b],
            weights=self.weights[w_start:w_stop],
            capacities=self.capacities[c:d],
            names=self.names[first:stop],
            known_optima=self.known_optima[first:stop],
            knapsack_positions=self.knapsack_positions[first:stop],
            wire={
                "profits": wire["profits"][a:b],
                "weights": wire["weights"][w_start:w_stop],
                "capacities": wire["capacities"][c:d],
            },
        )

    def take(self, rows: np.ndarray) -> PackedProblems:
        """The knapsacks of rows ``rows`` (ascending) as their own batch (positions kept)."""
        rows = np.asarray(rows, dtype=np.int64)
        n, m, starts = self.segments()
        items = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(n[rows], out=items[1:])
        dims = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(m[rows], out=dims[1:])
        return PackedProblems(
            positions=self.knapsack_positions[rows],
            item_offsets=items,
            capacity_offsets=dims,
            profits=self.profits[concatenated_ranges(self.item_offsets[rows], n[rows])],
            weights=self.weights[concatenated_ranges(starts[rows], n[rows] * m[rows])],
            capacities=self.capacities[concatenated_ranges(self.capacity_offsets[rows], m[rows])],
            names=[self.names[r] for r in rows.tolist()],
            known_optima=self.known_optima[rows],
            knapsack_positions=self.knapsack_positions[rows],
        )

    def validate(self) -> None:
        """The checks of the ``Knapsack`` constructor, over all knapsacks at once (a worker does not
        trust what came over the network)."""
        n, m, starts = self.segments()
        arrays = {"profits": self.profits, "weights": self.weights, "capacities": self.capacities}
        for name, array in arrays.items():
            if array.dtype != np.int64 or array.ndim != 1:
                raise InvalidProblemError(f"packed {name}: expected a flat int64 array, got {array.dtype} {array.shape}")
            if array.size and (array.min() < 0 or array.max() > MAX_SCALAR):
                raise InvalidProblemError(f"packed {name}: values must lie in [0, 2^62]")
        counts = (len(self.names), len(self.known_optima), len(self.knapsack_positions))
        if (
            (n < 1).any()
            or (m < 1).any()
            or counts != (len(n),) * 3
            or self.profits.size != n.sum()
            or self.weights.size != (n * m).sum()
            or self.capacities.size != m.sum()
        ):
            raise InvalidProblemError("packed problems: offsets do not match the arrays")
        if len(n):
            approximate = np.add.reduceat(self.profits.astype(np.float64), self.item_offsets[:-1])
            for k in np.flatnonzero(approximate >= 2.0**62):  # near the limit: exact sums
                if int(self.profits[self.item_offsets[k] : self.item_offsets[k + 1]].sum(dtype=object)) > INT64_MAX:
                    raise InvalidProblemError(f"packed problem {self.names[k]!r}: profits sum beyond 2^63 - 1")

    def unpack(self) -> list:
        """The problems again, in ``positions`` order (validated together, then built without
        repeating the checks per problem)."""
        self.validate()
        for array in (self.profits, self.weights, self.capacities):
            array.setflags(write=False)  # so the problems' views are read-only and not copied
        n, m, starts = self.segments()
        totals = np.add.reduceat(self.profits, self.item_offsets[:-1]).tolist() if len(n) else []
        items, dims = self.item_offsets.tolist(), self.capacity_offsets.tolist()
        known = [None if k < 0 else k for k in self.known_optima.tolist()]
        profits, weights, capacities, trusted = self.profits, self.weights, self.capacities, Knapsack.trusted
        width = self.shared_width()
        if width is not None:  # one m for all: rows of one 2-D view, no reshape per problem
            rows = weights.reshape(-1, width)
            built = [
                trusted(profits[a:b], rows[a:b], capacities[c:d], name, total, optimum)
                for a, b, c, d, name, total, optimum in zip(items, items[1:], dims, dims[1:], self.names, totals, known)
            ]
        else:
            built = [
                trusted(
                    profits[a:b],
                    weights[start : start + (b - a) * width].reshape(b - a, width),
                    capacities[c:d],
                    name,
                    total,
                    optimum,
                )
                for a, b, c, d, width, start, name, total, optimum in zip(
                    items, items[1:], dims, dims[1:], m.tolist(), starts.tolist(), self.names, totals, known
                )
            ]
        if not self.others:
            return built  # knapsack_positions == positions
        by_position = dict(self.others)
        by_position.update(zip(self.knapsack_positions.tolist(), built))
        return [by_position[i] for i in self.positions.tolist()]

    def first_wrong(self, answer: PackedSolutions) -> int | None:
        """Check ``answer`` against these problems in one vectorized pass: the batch index of the first
        knapsack whose answer is infeasible, has another value than its items' profits, or misses a
        known optimum it claims; None when all pass. Other kinds (and sums near int64's limit) are
        checked one by one."""
        n, m, starts = self.segments()
        if (
            len(answer.positions) == len(self.knapsack_positions)
            and not self.others
            and np.array_equal(answer.positions, self.knapsack_positions)
        ):
            keep, rows = None, None  # every knapsack answered, in order (the usual case): no lookup
            objects: list[int] = []
        else:
            order = np.argsort(self.knapsack_positions, kind="stable")
            found = np.searchsorted(self.knapsack_positions, answer.positions, sorter=order)
            found = order[np.minimum(found, max(len(order) - 1, 0))] if len(order) else np.zeros(len(answer.positions), np.int64)
            keep = (self.knapsack_positions[found] == answer.positions) if len(order) else np.zeros(len(found), bool)
            objects = np.flatnonzero(~keep).tolist()
            rows = found[keep]
        wrong: list[int] = []
        if len(n) if rows is None else rows.size:
            lengths = np.diff(answer.item_offsets)
            expected = n if rows is None else n[rows]
            if keep is not None:
                lengths = lengths[keep]
            if not (lengths == expected).all():
                positions = answer.positions if keep is None else answer.positions[keep]
                return int(positions[np.flatnonzero(lengths != expected)[0]])
            if keep is None:
                selected = answer.selected[int(answer.item_offsets[0]) : int(answer.item_offsets[-1])].astype(bool)
                answered = self
            else:
                assert rows is not None
                selected = answer.selected[np.repeat(keep, np.diff(answer.item_offsets))].astype(bool)
                answered = self.take(rows)
            if answered.weights.size and int(answered.weights.max()) * int(n.max()) >= 2**63:
                # int64 sums could overflow: exact, one by one
                objects.extend(range(len(answer.positions)) if keep is None else np.flatnonzero(keep).tolist())
            else:
                values, over = answered._chosen_sums(selected)
                claimed, optimal, known = answer.values, answer.optimal, self.known_optima
                if keep is not None:
                    claimed, optimal, known = claimed[keep], optimal[keep], known[rows]
                bad = over | (values != claimed) | (optimal & (known >= 0) & (known != values))
                if bad.any():
                    wrong.append(int((answer.positions if keep is None else answer.positions[keep])[bad].min()))
        for i in objects:
            position = int(answer.positions[i])
            problem = self.unpack_one(position)
            solution = answer.solution(i)
            try:
                check(problem, solution)
            except SolutionCheckError:
                wrong.append(position)
        return min(wrong) if wrong else None

    def _chosen_sums(self, selected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per knapsack: the profit of the items flagged in ``selected`` (bool, one per item), and
        whether they weigh more than a capacity in some dimension (the caller has made sure no sum
        passes 2^63)."""
        n = np.diff(self.item_offsets)
        width = self.shared_width()
        if width is not None and (n == n[0]).all() and n[0] > 0:
            # one n and one m for all (a study's repeated instances): a batched product per knapsack
            count, length = len(n), int(n[0])
            flags = selected.reshape(count, 1, length).astype(np.int64)
            values: np.ndarray = np.matmul(flags, self.profits.reshape(count, length, 1)).reshape(count)
            used = np.matmul(flags, self.weights.reshape(count, length, width)).reshape(count, width)
            return values, np.asarray((used > self.capacities.reshape(count, width)).any(axis=1))
        values = np.add.reduceat(self.profits * selected, self.item_offsets[:-1])
        if width is not None:  # weights are (items, m) rows: one segmented sum per dimension
            rows = self.weights.reshape(-1, width)
            used = np.stack([np.add.reduceat(rows[:, d] * selected, self.item_offsets[:-1]) for d in range(width)], axis=1)
            return values, np.asarray((used > self.capacities.reshape(-1, width)).any(axis=1))
        items, _, groups = self.weight_entries()  # each weight entry's item and capacity entry
        chosen = self.weights * selected[items]
        if int(self.weights.max(initial=0)) * int(n.max()) < 2**53:  # float sums are exact: bincount
            used = np.bincount(groups, chosen, minlength=self.capacities.size).astype(np.int64)
        else:
            used = np.zeros(self.capacities.size, dtype=np.int64)
            np.add.at(used, groups, chosen)
        return values, np.add.reduceat((used > self.capacities).astype(np.int64), self.capacity_offsets[:-1]) > 0

    def unpack_one(self, position: int):
        """The problem at batch index ``position``."""
        if position in self.others:
            return self.others[position]
        k = int(np.searchsorted(self.knapsack_positions, position))
        n, m, starts = self.segments()
        a, b = int(self.item_offsets[k]), int(self.item_offsets[k + 1])
        return Knapsack(
            self.profits[a:b],
            self.weights[starts[k] : starts[k] + n[k] * m[k]].reshape(n[k], m[k]),
            self.capacities[self.capacity_offsets[k] : self.capacity_offsets[k + 1]],
            self.names[k],
            None if self.known_optima[k] < 0 else int(self.known_optima[k]),
            weights_by="item",
        )


@dataclass
class PackedSolutions:
    """A chunk's answers: one row per solved problem (``positions``), items concatenated, and the
    failures of problems that could not be solved, by batch index: (error class name, message).
    What most rows share (solver, device, notes) is kept once in ``labels``; bounds and stats only
    for the rows that have them, with an LCS's positions and a TSP's tour (``extras``)."""

    positions: np.ndarray
    values: np.ndarray
    item_offsets: np.ndarray
    selected: np.ndarray
    optimal: np.ndarray
    timings: np.ndarray
    labels: list[tuple[str, str, tuple[str, ...]]]
    label_index: np.ndarray
    extras: dict[int, tuple]
    failures: dict[int, tuple[str, str]]
    worker: str = ""
    seconds: float = 0.0

    @classmethod
    def pack(
        cls,
        positions: Sequence[int],
        solutions: Sequence[Solution],
        failures: dict[int, tuple[str, str]],
        worker: str,
        seconds: float,
    ) -> PackedSolutions:
        count = len(solutions)
        values, sizes, optimal, timings, index = [], [], [], [], []
        labels: dict[tuple, int] = {}
        extras: dict[int, tuple] = {}
        for k, s in enumerate(solutions):
            values.append(int(s.value))
            sizes.append(s.selected.size)
            optimal.append(bool(s.optimal))
            t = s.timings
            timings.append(t.row())
            label = (s.solver, s.device, tuple(s.notes))
            index.append(labels.setdefault(label, len(labels)))
            if s.bound is not None or s.stats or s.positions is not None or s.tour is not None:
                extras[k] = (None if s.bound is None else int(s.bound), dict(s.stats), s.positions, s.tour)
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return cls(
            positions=np.asarray(positions, dtype=np.int64),
            values=np.array(values, dtype=np.int64),
            item_offsets=offsets,
            selected=np.concatenate([s.selected for s in solutions]) if count else np.zeros(0, bool),
            optimal=np.array(optimal, dtype=bool),
            timings=np.array(timings, dtype=np.float64).reshape(-1, len(PHASES)),
            labels=list(labels),
            label_index=np.array(index, dtype=np.int32),
            extras=extras,
            failures=dict(failures),
            worker=worker,
            seconds=seconds,
        )

    @classmethod
    def joined(cls, parts: Sequence[PackedSolutions]) -> PackedSolutions:
        """``parts`` end to end (rows in the parts' order), labels shared again across parts."""
        if len(parts) == 1:
            return parts[0]
        labels: dict[tuple, int] = {}
        label_index, extras, failures = [], {}, {}
        offsets = [np.zeros(1, dtype=np.int64)]
        rows = items = 0
        for part in parts:
            remap = np.array([labels.setdefault(label, len(labels)) for label in part.labels] or [0], dtype=np.int32)
            label_index.append(remap[part.label_index])
            extras.update({rows + k: extra for k, extra in part.extras.items()})
            failures.update(part.failures)
            offsets.append(part.item_offsets[1:] - part.item_offsets[0] + items)
            rows += len(part.positions)
            items += int(part.item_offsets[-1] - part.item_offsets[0])
        return cls(
            positions=np.concatenate([p.positions for p in parts]),
            values=np.concatenate([p.values for p in parts]),
            item_offsets=np.concatenate(offsets),
            selected=np.concatenate([p.selected[p.item_offsets[0] : p.item_offsets[-1]] for p in parts]),
            optimal=np.concatenate([p.optimal for p in parts]),
            timings=np.concatenate([p.timings for p in parts]).reshape(-1, len(PHASES)),
            labels=list(labels),
            label_index=np.concatenate(label_index),
            extras=extras,
            failures=failures,
            worker=",".join(sorted({p.worker for p in parts if p.worker})),
            seconds=sum(p.seconds for p in parts),
        )

    def solution(self, k: int) -> Solution:
        """Row ``k`` as a Solution."""
        solver, device, notes = self.labels[int(self.label_index[k])]
        bound, stats, positions, tour = self.extras.get(k, (None, {}, None, None))
        return Solution(
            int(self.values[k]),
            self.selected[self.item_offsets[k] : self.item_offsets[k + 1]],
            bool(self.optimal[k]),
            solver,
            device,
            Timings(*self.timings[k].tolist()),
            list(notes),
            bound,
            dict(stats),
            positions,
            tour,
        )

    def unpack(self) -> list[Solution]:
        """One Solution per row. Built without the dataclass constructor (a batch of 63,000 is
        returned in a few tens of milliseconds): slots set directly, each run of rows with equal
        timings (one device batch: the batch's, divided by its size) shares one Timings, and where
        every row has as many items, their flags are the rows of one 2-D view (made in one call,
        three times as fast as a slice per row)."""
        count = len(self.values)
        lengths = np.diff(self.item_offsets)
        if count and (lengths == lengths[0]).all():
            first, width = int(self.item_offsets[0]), int(lengths[0])
            flags = list(self.selected[first : first + count * width].reshape(count, width))
        else:
            offsets, everything = self.item_offsets.tolist(), self.selected
            flags = [everything[a:b] for a, b in zip(offsets, offsets[1:])]
        rows = np.asarray(self.timings, dtype=np.float64).reshape(count, len(PHASES))
        starts = np.ones(count, dtype=bool)
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        shared = [Timings(*row) for row in rows[starts].tolist()]
        run = np.cumsum(starts) - 1
        labels = self.labels
        new_solution = Solution.__new__
        out = []
        for value, selected, optimal, k, label in zip(
            self.values.tolist(), flags, self.optimal.tolist(), run.tolist(), self.label_index.tolist()
        ):
            solver, device, notes = labels[label]
            s = new_solution(Solution)
            s.value, s.selected, s.optimal, s.solver, s.device, s.timings = value, selected, optimal, solver, device, shared[k]
            s.notes, s.bound, s.stats, s.positions, s.tour = list(notes), None, {}, None, None
            s.counts, s.assignment, s.feasible = None, None, True
            out.append(s)
        for k, (bound, stats, positions, tour) in self.extras.items():
            out[k].bound, out[k].stats, out[k].positions, out[k].tour = bound, dict(stats), positions, tour
        return out
