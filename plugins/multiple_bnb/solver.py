"""The multiple knapsack by depth-first branch and bound on the host (``search``): the surrogate
relaxation's Dantzig bound cuts, the best-fit greedy starts the incumbent. It answers under any time
limit: its incumbent, and as bound the root's: the surrogate relaxation's, or the nested surrogate's
(``nested.py``) where that is lower."""

from __future__ import annotations

import sys

import numpy as np

from clsolve.sdk import HostSolver, MultipleKnapsack, Plan, Solution, Timings, deadline

from .nested import nested_bound
from .search import Search, Stopped
from .surrogate import MAX_CELLS, fill, split, surrogate

#: Items at most (the search recurses an item deep).
MAX_ITEMS = 20_000
#: Seconds per cell of the root's 0-1 knapsack tables (NumPy rows on a 2-core host).
CELL_SECONDS = 5e-9


class MultipleBranchAndBound(HostSolver):
    name = "multiple-bnb"
    summary = (
        "multiple knapsack: the surrogate bound, MTM's fill-in-turn incumbents, then depth-first branch and bound, "
        "on the host (anytime)"
    )
    problem_kinds = ("multiple",)
    anytime = True

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, MultipleKnapsack):
            return f"{self.name} solves multiple knapsacks"
        if problem.n > MAX_ITEMS:
            return f"{self.name} takes at most {MAX_ITEMS} items, got n = {problem.n}"
        return None

    def plan(self, problem: MultipleKnapsack, device=None) -> Plan:
        pooled = min(int(problem.capacities.sum()), int(problem.weights.sum()))
        cells = 4 * problem.n * pooled  # the surrogate's table, two fills' tables of the same total, the nested bound's
        return Plan(
            solver=self.name,
            host_buffers={"items": 64 * problem.n},
            cell_updates=cells,
            seconds=CELL_SECONDS * cells + 1e-6 * problem.n * problem.k + 1e-4,
            details={"note": "the root's 0-1 knapsack tables, then a search: its tree is known only once walked"},
        )

    def solve(self, problem: MultipleKnapsack, device, plan: Plan) -> Solution:
        watch = deadline.Stopwatch()
        order, free = _order(problem)
        capacities = problem.capacities.tolist()
        profits, weights = problem.profits[order], problem.weights[order]
        pooled = min(sum(capacities), int(weights.sum()))
        relaxed = surrogate(profits, weights, pooled, deadline.expired)
        upper = None if relaxed is None else relaxed[0]
        search = Search(profits.tolist(), weights.tolist(), capacities, deadline.expired, upper)
        if relaxed is not None:
            search.offer(split(weights, relaxed[1], capacities).tolist())
        for turn in _fill_orders(capacities, search, upper):
            filled = fill(profits, weights, capacities, turn, deadline.expired)
            if filled is not None:
                search.offer(filled.tolist())
        if upper is not None and search.best < upper and problem.n * (sum(capacities) + 1) <= MAX_CELLS:
            nested = nested_bound(profits, weights, capacities, deadline.expired)
            if nested is not None and nested < upper:
                upper = search.upper = nested
        depth = sys.getrecursionlimit()
        sys.setrecursionlimit(max(depth, 2 * len(order) + 200))
        try:
            search.run()
            stopped = False
        except Stopped:
            stopped = True
        finally:
            sys.setrecursionlimit(depth)
        assignment = np.full(problem.n, -1, dtype=np.int64)
        assignment[order] = search.placed
        assignment[free] = 0  # weight 0: in the first knapsack, always
        value = int(problem.profits[assignment >= 0].sum())
        notes = [f"{search.nodes} nodes"]
        stats = {"nodes": search.nodes}
        timings = Timings(host=watch.seconds)
        if not stopped:
            return Solution(value, np.zeros(0, bool), True, self.name, "", timings, notes, stats=stats, assignment=assignment)
        root = search.bound(0, sum(capacities)) if upper is None else upper
        bound = value - search.best + root
        notes.insert(0, "stopped at the time limit: the incumbent, and the surrogate relaxation's bound at the root")
        return Solution(
            value,
            np.zeros(0, bool),
            False,
            self.name,
            "",
            timings,
            notes,
            bound=max(bound, value),
            stats=stats,
            assignment=assignment,
        )


def _fill_orders(capacities: list[int], search: Search, upper: int | None):
    """The knapsacks largest first, then smallest first, for MTM's lower bound, while the incumbent
    is below the surrogate bound."""
    for order in (np.argsort(capacities)[::-1].tolist(), np.argsort(capacities).tolist()):
        if upper is not None and search.best >= upper:
            return
        yield order


def _order(problem: MultipleKnapsack) -> tuple[np.ndarray, np.ndarray]:
    """The items the search takes, by decreasing profit per weight (ties: the heavier first), and those
    of weight 0 and some profit (always packed); items heavier than every knapsack or of no profit
    are left out."""
    w, p = problem.weights, problem.profits
    free = np.flatnonzero((w == 0) & (p > 0))
    live = np.flatnonzero((w > 0) & (w <= int(problem.capacities.max())) & (p > 0))
    ratio = p[live] / w[live]
    return live[np.lexsort((-w[live], -ratio))], free
