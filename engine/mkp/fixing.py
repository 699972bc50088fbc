"""Variable fixing by reduced costs at the root, before the search.

With Lagrangian prices y and their bound L = y . c + sum_j max(0, d_j), where d_j = p_j - y . w_j is
item j's reduced cost, forcing item j against the sign of d_j lowers the bound by |d_j|: a solution
with x_j = 0 for d_j > 0 (or x_j = 1 for d_j < 0) is worth at most L - |d_j|. Where that cannot beat
the incumbent (a greedy solution), every better solution has x_j at its Lagrangian value, and the
search only looks at the other items, with the capacities the fixed-in items leave.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.problems import Knapsack
from clsolve.runtime import cache

from .greedy import fill, ratio_order
from .surrogate import prices

#: Relative margin on the double-precision bound (a fixing must never be wrong).
MARGIN = 1e-9


@dataclass
class Fixing:
    """The incumbent (``value``, ``chosen``: bool per item), the items fixed in, the items left free and
    the core to search over them (None: the incumbent is optimal)."""

    value: int
    chosen: np.ndarray
    fixed_in: np.ndarray
    free: np.ndarray
    profits: np.ndarray
    core: Knapsack | None = None
    #: the Lagrangian prices behind the reduced costs (one per constraint)
    prices: np.ndarray | None = None

    @property
    def profit_in(self) -> int:
        return int(self.profits[self.fixed_in].sum())

    @property
    def floor(self) -> int:
        """What a solution of the core must beat: the incumbent less the fixed-in items' profit."""
        return self.value - self.profit_in


def fix(problem: Knapsack) -> Fixing:
    """The fixing of ``problem`` against the better of two greedy solutions (items by profit over
    their weights relative to the capacities, then by the fitted prices); computed once per problem
    (the multidimensional searches and ``dp-rows``' presolve both use it). Read-only."""
    return cache.per_problem(problem, "reduced-cost fixing", lambda: _fix(problem))


def _fix(problem: Knapsack) -> Fixing:
    p, w, c = problem.profits, problem.weights, problem.capacities
    first = _chosen(p.size, fill(w, c, ratio_order(p, w, 1.0 / np.maximum(c, 1))))
    y, bound = prices(p, w, c, float(p[first].sum()))
    second = _chosen(p.size, fill(w, c, ratio_order(p, w, y)))
    chosen = second if int(p[second].sum()) > int(p[first].sum()) else first
    value = int(p[chosen].sum())
    reduced = p.astype(np.float64) - w.astype(np.float64) @ y
    # what forcing an item may lose before it cannot win; the bound's rounding is relative to its
    # terms, whose sum may cancel them (prices near p_j / w_j), hence the margin on their size too
    terms = float(p.sum(dtype=np.float64)) + float(y @ c.astype(np.float64))
    slack = bound * (1 + MARGIN) + MARGIN * terms + 1.0 - value
    fixed_in = (reduced > 0) & (reduced >= slack)
    free = ~fixed_in & ~((reduced < 0) & (-reduced >= slack))
    room = c - w[fixed_in].sum(axis=0)
    fixing = Fixing(value, chosen, fixed_in, free, p, prices=y)
    if (room < 0).any():
        return fixing  # every better solution would overfill: the incumbent is optimal
    if not free.any():
        if fixing.profit_in > value:  # the fixed-in items alone are the one better solution
            fixing.value, fixing.chosen = fixing.profit_in, fixed_in.copy()
        return fixing
    fixing.core = Knapsack.derived(p[free], w[free], room.astype(np.int64), name=problem.name)
    return fixing


def _chosen(n: int, taken: np.ndarray) -> np.ndarray:
    chosen = np.zeros(n, dtype=bool)
    chosen[taken] = True
    return chosen
