"""A reduction of a knapsack: the smaller problem a solver solves instead, and the way back to the
original's items (``clsolve.dp.presolve``'s rules, ``clsolve.dp.dominance``'s fixing, and fixing by
reduced costs against an incumbent, ``clsolve.mkp.fixing``, which holds only for better solutions: the
incumbent is then the reduction's ``floor``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..problems import Knapsack
from ..solution import Solution, Timings
from .pruning import Pruning


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
    #: A solution of the original, (value, selected), that is optimal wherever the reduced problem's
    #: best, expanded, does not beat it (the reduction holds for better solutions only); None: none.
    floor: tuple[int, np.ndarray] | None = None
    #: The Lagrangian prices (one per constraint of ``problem``) behind the fixing that made ``floor``
    #: a floor; with them a DP over ``problem`` may leave out states that cannot beat it (``pruning``).
    prices: np.ndarray | None = None

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
        value = int(solution.value) + self.forced_profit
        bound = None if solution.bound is None else int(solution.bound) + self.forced_profit
        notes = list(solution.notes) + ["presolve: " + "; ".join(self.notes)]
        if self.floor is not None and self.floor[0] >= value:
            value, selected = self.floor[0], self.floor[1].copy()
            bound = None if bound is None else max(bound, value)
            notes.append(f"presolve: no solution beats the incumbent of value {value}; it is the answer")
        return replace(solution, value=value, selected=selected, bound=bound, notes=notes)

    def pruning(self) -> Pruning | None:
        """The test by which a DP over ``problem`` may leave out states that cannot lead past the floor
        (``clsolve.dp.pruning``), or None where there is no floor with prices."""
        if self.problem is None or self.floor is None or self.prices is None or not np.isfinite(self.prices).all():
            return None
        return Pruning(self.problem, self.prices, self.floor[0] - self.forced_profit)

    @property
    def forced_profit(self) -> int:
        return int(self.original.profits[self.forced].sum())

    def then(self, step: Reduction) -> Reduction:
        """This reduction followed by ``step``, a reduction of this one's ``problem``; of the two
        floors, the better one."""
        forced = np.concatenate([self.forced, self.items[step.forced]]) if step.forced.size else self.forced
        floor = self.floor
        if step.floor is not None:
            selected = np.zeros(self.original.n, dtype=bool)
            selected[self.forced] = True
            selected[self.items[step.floor[1]]] = True
            value = step.floor[0] + self.forced_profit
            floor = floor if floor is not None and floor[0] >= value else (value, selected)
        prices = step.prices
        if prices is None and step.problem is not None and self.problem is not None and step.problem.m == self.problem.m:
            prices = self.prices  # any prices >= 0 bound the same constraints (rescaled or not)
        return Reduction(
            self.original,
            step.problem,
            self.items[step.items],
            forced,
            self.notes + step.notes,
            floor,
            prices if floor is not None else None,
        )

    def trivial(self, solver: str, device: str) -> Solution:
        """The solution when nothing is left to decide (``problem`` is None)."""
        assert self.problem is None
        empty = Solution(value=0, selected=np.zeros(0, dtype=bool), optimal=True, solver=solver, device=device, timings=Timings())
        return self.expand(empty)
