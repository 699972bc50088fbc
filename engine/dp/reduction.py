"""A reduction of a knapsack: the smaller problem a solver solves instead, and the way back to the
original's items (``clsolve.dp.presolve``'s rules, ``clsolve.dp.dominance``'s fixing)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..problems import Knapsack
from ..solution import Solution, Timings


@dataclass(slots=True)
class Reduction:
    """A problem, the smaller problem a solver solves instead, and the way back."""

    original: Knapsack
    #: What the solver solves, or None when nothing is left to decide (every item is taken or dropped).
    problem: Knapsack | None
    #: Original index of each of ``problem``'s items.
    items: np.ndarray
    #: Original indices of the items always taken.
    forced: np.ndarray
    notes: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return self.problem is not self.original

    def expand(self, solution: Solution) -> Solution:
        """The reduced problem's solution as a solution of the original problem."""
        if not self.changed:
            return solution
        selected = np.zeros(self.original.n, dtype=bool)
        selected[self.forced] = True
        if self.problem is not None:
            selected[self.items[np.asarray(solution.selected, dtype=bool)]] = True
        forced_profit = int(self.original.profits[self.forced].sum())
        bound = None if solution.bound is None else int(solution.bound) + forced_profit
        return replace(solution, value=int(solution.value) + forced_profit, selected=selected, bound=bound,
                       notes=list(solution.notes) + ["presolve: " + "; ".join(self.notes)])

    def then(self, step: Reduction) -> Reduction:
        """This reduction followed by ``step``, a reduction of this one's ``problem``."""
        forced = np.concatenate([self.forced, self.items[step.forced]]) if step.forced.size else self.forced
        return Reduction(self.original, step.problem, self.items[step.items], forced, self.notes + step.notes)

    def trivial(self, solver: str, device: str) -> Solution:
        """The solution when nothing is left to decide (``problem`` is None)."""
        assert self.problem is None
        empty = Solution(value=0, selected=np.zeros(0, dtype=bool), optimal=True, solver=solver,
                         device=device, timings=Timings())
        return self.expand(empty)
