"""Multiplicity reduction for the 0-1 knapsack: equal items (the same profit and weights) are one item
type taken 0 .. k times, and a bounded item type is a few 0-1 items ([KPP04], chapter 7: the bounded
knapsack as a 0-1 knapsack; RECORD's multiplicity reduction, [dSQS26]).

A type of k equal items (p, w) of which at most k' = min(k, floor(c_d / w_d) over d) fit (k' >= 1:
an item that never fits is left for the solver, as without the reduction) is
replaced by items of 1, 2, 4, ..., 2^(t-1) copies and one of r copies, where t = floor(log2(k' + 1))
and r = k' - (2^t - 1) (no such item where r = 0): every count 0 .. k' is the sum of a subset of
these, and no subset sums past k'. The copies past k' are never taken. So the reduced problem has
exactly the values of the original, with about log2(k) items where there were k, and a solution of
it (a count per type) is a solution of the original: the first ``count`` items of each type.
Profits and weights are multiplied by counts of at most k', so no sum grows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..problems import Knapsack
from ..runtime import cache
from ..solution import Solution


@dataclass(frozen=True)
class Aggregation:
    """A knapsack with equal items, the one with a few items per type, and the way back."""

    original: Knapsack
    problem: Knapsack
    #: the type of each original item, and its place among the items of its type
    types: np.ndarray
    rank: np.ndarray
    #: the type of each reduced item, and how many copies it stands for
    type_of: np.ndarray
    copies: np.ndarray
    note: str

    def expand(self, solution: Solution) -> Solution:
        """The reduced problem's solution as one of the original: per type, its first ``count`` items."""
        chosen = np.asarray(solution.selected, dtype=bool)
        counts = np.bincount(self.type_of[chosen], weights=self.copies[chosen], minlength=int(self.types.max()) + 1).astype(
            np.int64
        )
        selected = self.rank < counts[self.types]
        return replace(solution, selected=selected, notes=[*solution.notes, f"multiplicity: {self.note}"])


def aggregate(problem: Knapsack) -> Aggregation | None:
    """The multiplicity reduction of ``problem`` (weights >= 1 in some dimension for every item), or
    None where it would not make fewer items (no type of three or more; computed once per problem).
    The reduced items keep the order of their types' first items."""
    found: Aggregation | bool = cache.per_problem(problem, "multiplicity", lambda: _aggregate(problem) or False)
    return found if isinstance(found, Aggregation) else None


def _aggregate(problem: Knapsack) -> Aggregation | None:
    n, m = problem.n, problem.m
    if n < 2:
        return None
    columns = [problem.weights[:, d] for d in reversed(range(m))] + [problem.profits]
    order = np.lexsort(columns)  # by profit, then weights; stable: by index within a type
    rows = np.column_stack([problem.profits[order], problem.weights[order]])
    new = np.r_[True, (rows[1:] != rows[:-1]).any(axis=1)]
    if new.all():
        return None
    sorted_type = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    types = np.empty(n, dtype=np.int64)
    types[order] = sorted_type
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - first[sorted_type]
    type_of, copies = _blocks(np.diff(np.r_[first, n]), _fitting(problem, order[first]))
    if type_of.size >= n:
        return None  # pairs only (1 + 1 copies): nothing to gain
    representative = order[first][type_of]
    keep = np.lexsort((copies, representative))  # the items' own order (ties of ratio stay as given)
    type_of, copies, representative = type_of[keep], copies[keep], representative[keep]
    reduced = Knapsack.derived(
        problem.profits[representative] * copies,
        problem.weights[representative] * copies[:, None],
        problem.capacities,
        name=problem.name,
        total_profit=None,
    )
    note = f"{n} items of {first.size} types (equal profit and weights) as {reduced.n} items of 1, 2, 4, ... copies"
    return Aggregation(problem, reduced, types, rank, type_of, copies, note)


def _fitting(problem: Knapsack, representative: np.ndarray) -> np.ndarray:
    """How many copies of each type's item fit the capacities together (at most 2^62), and at least 1:
    an item that never fits stays for the solver to drop (as without the reduction: no problem is
    left without items)."""
    most = np.full(representative.size, 2**62, dtype=np.int64)
    for d in range(problem.m):
        w = problem.weights[representative, d]
        most = np.where(w > 0, np.minimum(most, int(problem.capacities[d]) // np.maximum(w, 1)), most)
    return np.maximum(most, 1)


def _blocks(counts: np.ndarray, fitting: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(type, copies) of the reduced items: per type, 1, 2, 4, ... copies and the rest, for
    min(count, fitting) copies."""
    usable = np.minimum(counts, fitting)
    powers = np.zeros(usable.size, dtype=np.int64)  # t: how many power-of-two blocks
    while True:
        more = usable >= (np.int64(2) << powers) - 1
        if not more.any():
            break
        powers += more
    rest = usable - ((np.int64(1) << powers) - 1)
    type_of = [np.repeat(np.arange(usable.size), powers)]
    starts = np.cumsum(powers) - powers
    copies = [np.int64(1) << (np.arange(int(powers.sum())) - np.repeat(starts, powers))]
    with_rest = np.flatnonzero(rest > 0)
    type_of.append(with_rest)
    copies.append(rest[with_rest])
    return np.concatenate(type_of), np.concatenate(copies).astype(np.int64)
