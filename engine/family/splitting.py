"""Binary splitting: a bounded knapsack as a 0-1 knapsack ([MT90] Section 3.2). An item usable b
times becomes items of 1, 2, 4, ..., 2^(t-1) copies and one of the rest, b - (2^t - 1) copies
(t = floor(log2(b + 1))): every count in [0, b] is the sum of exactly the pieces of one subset, and
no subset exceeds b. The 0-1 knapsack has at most n (log2(b) + 1) items; its answer maps back to
counts exactly. Every 0-1 solver so solves bounded and unbounded knapsacks (``zero_one``, ``counts``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..problems import Knapsack, exact_sum
from .dominance import needed
from .problems import BoundedKnapsack


def pieces(bound: int) -> list[int]:
    """The copies in each piece of an item usable ``bound`` times: 1, 2, 4, ... and the rest."""
    out, size, left = [], 1, bound
    while left > 0:
        take = min(size, left)
        out.append(take)
        left -= take
        size *= 2
    return out


@dataclass(frozen=True)
class Split:
    """A bounded knapsack's 0-1 form: ``problem``, and for each of its items the bounded item it is a
    piece of (``item``) and how many copies it holds (``copies``)."""

    problem: Knapsack
    item: np.ndarray
    copies: np.ndarray

    def counts(self, selected: np.ndarray, n: int) -> np.ndarray:
        """The bounded answer's counts from the 0-1 answer's ``selected`` pieces."""
        counts = np.zeros(n, dtype=np.int64)
        np.add.at(counts, self.item[selected], self.copies[selected])
        return counts


def piece_arrays(bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(item, copies) of every piece of items usable ``bounds`` times, item by item in order (``pieces``
    for each, at once): item j's full powers 1, 2, ..., 2^(t-1) with t = floor(log2(b + 1)), then
    its rest b - (2^t - 1) where not 0."""
    bounds = np.asarray(bounds, dtype=np.int64)
    powers = np.zeros(bounds.size, dtype=np.int64)
    live = bounds > 0
    powers[live] = np.floor(np.log2(bounds[live] + 1)).astype(np.int64)
    powers += (np.left_shift(1, powers + 1) - 1 <= bounds) & live  # log2's rounding, one way
    powers -= (np.left_shift(1, powers) - 1 > bounds) & live  # and the other
    rest = bounds - (np.left_shift(1, powers) - 1)
    per = powers + (rest > 0)
    item = np.repeat(np.arange(bounds.size, dtype=np.int64), per)
    starts = np.cumsum(per) - per
    rank = np.arange(item.size, dtype=np.int64) - starts[item]
    copies = np.where(rank < powers[item], np.left_shift(1, np.minimum(rank, 62)), rest[item])
    return item, copies


def split(problem: BoundedKnapsack) -> Split:
    """``problem`` as a 0-1 knapsack by binary splitting of each item's usable copies. Items usable 0
    times, and an unbounded knapsack's dominated items (``clsolve.family.dominance``), are left out;
    a 0-1 knapsack needs one item at least, so an empty split keeps one piece of no copies, weight 0
    and profit 0."""
    items, sizes = piece_arrays(needed(problem))
    if items.size == 0:
        items, sizes = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    profits = problem.profits[items] * sizes
    weights = problem.weights[items] * sizes
    label = f"{problem.name} (split into 0-1 items)" if problem.name else "split into 0-1 items"
    total = exact_sum(profits)
    knapsack = Knapsack.derived(profits, weights.reshape(-1, 1), np.array([problem.capacity]), name=label, total_profit=total)
    return Split(knapsack, items, sizes)


def zero_one(problem: BoundedKnapsack) -> Split:
    """``split``, made once per problem (plans and solves of every 0-1 solver ask)."""
    memo = problem.memo
    if "split" not in memo:
        memo["split"] = split(problem)
    return memo["split"]
