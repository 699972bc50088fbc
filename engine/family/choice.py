"""The multiple-choice knapsack's exact reduction ([SZ79]; [Pisinger95] Section 2): in a class, an item
that weighs no less and earns no more than another (of two equal items, the later) is never needed,
and an item heavier than the capacity never fits. What is left of each class, lightest first, is what
a solver steps through (``kept``)."""

from __future__ import annotations

import numpy as np

from .problems import MultipleChoice


def undominated(profits: np.ndarray, weights: np.ndarray, capacity: int) -> np.ndarray:
    """Indices (into the arrays) of the items no other item of the same arrays dominates and that fit,
    lightest first: sorted by weight, then by profit descending, an item is kept where it earns more
    than every lighter or equally heavy item before it."""
    order = np.lexsort((-profits, weights))
    order = order[weights[order] <= capacity]
    if order.size == 0:
        return order
    p = profits[order]
    best = np.maximum.accumulate(p)
    keep = np.ones(order.size, dtype=bool)
    keep[1:] = p[1:] > best[:-1]
    return order[keep]


def kept(problem: MultipleChoice) -> list[np.ndarray]:
    """Each class's undominated items that fit (global item indices, lightest first); made once. A
    class may be left empty: no item of it fits (then only ``at_most_one`` has an answer)."""
    memo = problem.memo
    if "kept" not in memo:
        memo["kept"] = [
            members[undominated(problem.profits[members], problem.weights[members], problem.capacity)]
            for members in problem.members()
        ]
    return memo["kept"]


def lightest(problem: MultipleChoice) -> int:
    """The least weight any answer with one item of each class has (sum of each class's lightest)."""
    return sum(int(problem.weights[members].min()) for members in problem.members())
