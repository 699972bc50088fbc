"""A strong incumbent and a strong bound for a 0-1 knapsack (m = 1), for searches whose lists grow
long: the break solution improved by exchanges (``exchange``), and the least of Dantzig's
and the cardinality bounds, rounded by divisibility (``clsolve.dp.bounds``). Where they meet, the
incumbent is optimal; where the incumbent improved, fixing by bounds (``clsolve.dp.fixing``) decides
more items against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.sdk import Bound, Knapsack, deadline, excess_sizes, ratio_order, upper_bound

from .exchange import improve

#: Seconds the exchanges may take at most (and a quarter of what a time limit leaves).
EXCHANGE_SECONDS = 1.0


@dataclass(frozen=True)
class Strengthened:
    """An incumbent (bool per item of the problem), its value, the bound and the work done."""

    selected: np.ndarray
    value: int
    bound: Bound
    moves: int
    seconds: float

    def stats(self) -> dict[str, object]:
        """For a solution's ``stats``."""
        return {
            "strengthen_seconds": self.seconds,
            "exchange_moves": self.moves,
            "strong_bound": self.bound.value,
            "strong_bound_source": self.bound.source,
        }

    def describe(self) -> str:
        return (
            f"exchanges ({self.moves} moves) reached {self.value}; upper bound {self.bound.value} "
            f"({self.bound.source}); {self.seconds:.3f} s"
        )


def early(problem: Knapsack) -> bool:
    """Whether ``problem`` is a subset sum (bound: the capacity) or a binary split of a strongly
    correlated bounded knapsack (``excess_sizes``: the maximum-copies bound), whose bound a strengthened
    incumbent often reaches before any list grows."""
    profits, weights = problem.profits, problem.weights[:, 0]
    return bool(np.array_equal(profits, weights)) or excess_sizes(profits, weights) is not None


def _prefix(weights: np.ndarray, capacity: int, order: np.ndarray) -> np.ndarray:
    """The items of ``order`` up to the first that does not fit."""
    selected = np.zeros(weights.size, dtype=bool)
    selected[order[: int(np.searchsorted(np.cumsum(weights[order]), capacity, side="right"))]] = True
    return selected


def strengthen(problem: Knapsack) -> Strengthened:
    """The break solution of ``problem`` (one capacity, every weight between 1 and the capacity: the
    items in ratio order up to the first that does not fit) improved by exchanges until it reaches the
    bound, none improves it or the time is up."""
    watch = deadline.Stopwatch()
    profits, weights = problem.profits.astype(np.int64), problem.weights[:, 0].astype(np.int64)
    capacity = int(problem.capacities[0])
    order = ratio_order(problem)
    selected = _prefix(weights, capacity, order)  # the break solution: its room is what the pairs fill
    value = int(profits[selected].sum())
    bound = upper_bound(profits, weights, capacity, value)
    if value < bound.value and np.array_equal(profits, weights):  # every ratio is 1: the heaviest first
        heaviest = _prefix(weights, capacity, np.argsort(-weights, kind="stable"))
        if int(weights[heaviest].sum()) == bound.value:  # meets the max-cardinality bound
            selected, value = heaviest, bound.value
    moves = 0
    if value < bound.value:
        seconds = min(EXCHANGE_SECONDS, deadline.remaining() / 4)  # a quarter of what is left, if less
        selected, moves = improve(profits, weights, capacity, selected, order, bound.value, max(seconds, 0.0))
        improved = int(profits[selected].sum())
        if improved > value:  # the bound again only where the incumbent's own minimum cardinality may lower it
            value, bound = improved, bound if improved >= bound.value else upper_bound(profits, weights, capacity, improved)
    return Strengthened(selected, value, bound, moves, watch.seconds)
