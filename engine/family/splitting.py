"""Binary splitting: a bounded knapsack as a 0-1 knapsack ([MT90] Section 3.2). An item usable b
times becomes items of 1, 2, 4, ..., 2^(t-1) copies and one of the rest, b - (2^t - 1) copies
(t = floor(log2(b + 1))): every count in [0, b] is the sum of exactly the pieces of one subset, and
no subset exceeds b. The 0-1 knapsack has at most n (log2(b) + 1) items; its answer maps back to
counts exactly. Every 0-1 solver so solves bounded and unbounded knapsacks (``zero_one``, ``counts``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..problems import Knapsack
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


def split(problem: BoundedKnapsack) -> Split:
    """``problem`` as a 0-1 knapsack by binary splitting of each item's usable copies. Items usable 0
    times, and an unbounded knapsack's dominated items (``clsolve.family.dominance``), are left out;
    a 0-1 knapsack needs one item at least, so an empty split keeps one piece of no copies, weight 0
    and profit 0."""
    item, copies = [], []
    for j, bound in enumerate(needed(problem).tolist()):
        for size in pieces(int(bound)):
            item.append(j)
            copies.append(size)
    if not item:
        item, copies = [0], [0]
    items = np.asarray(item, dtype=np.int64)
    sizes = np.asarray(copies, dtype=np.int64)
    profits = problem.profits[items] * sizes
    weights = problem.weights[items] * sizes
    label = f"{problem.name} (split into 0-1 items)" if problem.name else "split into 0-1 items"
    total = sum(int(p) for p in profits.tolist())
    knapsack = Knapsack.derived(profits, weights.reshape(-1, 1), np.array([problem.capacity]), name=label, total_profit=total)
    return Split(knapsack, items, sizes)


def zero_one(problem: BoundedKnapsack) -> Split:
    """``split``, made once per problem (plans and solves of every 0-1 solver ask)."""
    memo = problem.memo
    if "split" not in memo:
        memo["split"] = split(problem)
    return memo["split"]
