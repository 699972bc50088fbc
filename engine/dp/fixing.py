"""Variable fixing by bounds for the 0-1 knapsack (m = 1): the reduction of Dembo and Hammer as used by
Martello and Toth's MT2, evaluated for every item at once with prefix sums.

Items sorted by decreasing profit/weight; b = the break item (the first that does not fit greedily);
LB = the best feasible value known (greedy, improved by the solutions met while computing bounds).
For an item j before b, U0(j) = the Dantzig bound with x_j = 0; for j at or after b, U1(j) = the bound
with x_j = 1. If U0(j) <= LB every solution better than LB takes j; if U1(j) <= LB none takes j. What
is left (the core) goes to a solver; its answer plus the fixed items is compared with the incumbent
that gave LB, and the better is returned. Exact: only solutions no better than LB are cut off, and
one of those (the incumbent) is kept.

Every bound here looks at prefix weights between C - max w and C + max w, so only the items there are
sorted (``clsolve.dp.ratios.partial_order``); those before and after are merely split off.
"""

# long module: the stages of variable fixing (bounds, greedy, reduced costs) share their arrays
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ..problems import Knapsack, exact_sum
from ..runtime import cache
from ..runtime import log as logs
from ..solution import Solution, Timings
from . import dominance as dominated_items
from . import multiplicity
from .multiplicity import Aggregation
from .presolve import reduction
from .ratios import partial_order, sort_by_ratio
from .reduction import Reduction

#: Items after the break item the greedy lower bound visits at most (it stops earlier once nothing fits).
GREEDY_ITEMS = 4096


def greedy(weights: np.ndarray, capacity: int, breaking: int) -> np.ndarray:
    """The greedy solution of items in ratio order: items 0 .. breaking-1 (which fit), then later
    items that still fit, at most GREEDY_ITEMS of them looked at (stopping once none of the rest fits)."""
    chosen = np.zeros(weights.size, dtype=bool)
    chosen[:breaking] = True
    rest = capacity - int(weights[:breaking].sum())
    visited = weights[breaking + 1 : breaking + 1 + GREEDY_ITEMS]
    lightest_after = np.minimum.accumulate(visited[::-1])[::-1].tolist()
    for i, weight in enumerate(visited.tolist()):
        if lightest_after[i] > rest:
            break
        if weight <= rest:
            chosen[breaking + 1 + i] = True
            rest -= weight
    return chosen


@dataclass
class Fixing:
    """A knapsack, the core a solver still has to decide, and the incumbent."""

    original: Knapsack
    #: The items nobody could fix, with the capacity the fixed items leave; None: the incumbent is optimal.
    core: Knapsack | None
    core_items: np.ndarray
    fixed_in: np.ndarray
    incumbent: np.ndarray  # bool, one per original item
    incumbent_value: int
    notes: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return self.core is not self.original

    @property
    def fixed_profit(self) -> int:
        return int(self.original.profits[self.fixed_in].sum())

    def expand(self, solution: Solution) -> Solution:
        """The core's solution with the fixed items, or the incumbent where that is better."""
        if not self.changed:
            if solution.value >= self.incumbent_value:
                return solution
            return replace(
                solution,
                value=self.incumbent_value,
                selected=self.incumbent.copy(),
                optimal=solution.optimal or (solution.bound is not None and solution.bound <= self.incumbent_value),
            )
        fixed_profit = self.fixed_profit
        value = int(solution.value) + fixed_profit
        bound = None if solution.bound is None else max(int(solution.bound) + fixed_profit, self.incumbent_value)
        notes = list(solution.notes) + ["fixing: " + "; ".join(self.notes)]
        if value >= self.incumbent_value:
            selected = np.zeros(self.original.n, dtype=bool)
            selected[self.fixed_in] = True
            selected[self.core_items[np.asarray(solution.selected, dtype=bool)]] = True
        else:
            value, selected = self.incumbent_value, self.incumbent.copy()
        optimal = solution.optimal or (bound is not None and bound <= value)
        return replace(solution, value=value, selected=selected, bound=bound, optimal=optimal, notes=notes)

    def trivial(self, solver: str, device: str) -> Solution:
        """The incumbent, proven optimal (``core`` is None)."""
        return Solution(
            value=self.incumbent_value,
            selected=self.incumbent.copy(),
            optimal=True,
            solver=solver,
            device=device,
            timings=Timings(),
            notes=["fixing: " + "; ".join(self.notes)],
        )


def unchanged(problem: Knapsack) -> Fixing:
    return Fixing(problem, problem, np.arange(problem.n), np.zeros(0, np.int64), np.zeros(problem.n, bool), -1)


def fix(
    problem: Knapsack, seed: np.ndarray | None = None, ceiling: int | None = None, relaxation: tuple[int, int] | None = None
) -> Fixing:
    """The fixing of ``problem`` (m = 1; computed once per problem, which is immutable). ``seed``: a
    feasible solution (bool per item) to start from where it beats the greedy one; ``ceiling``: an
    upper bound of the optimum (an incumbent that reaches it is optimal: nothing is left to search);
    ``relaxation`` (shift, count): a surrogate constraint sum (w_j + shift) x_j <= c + shift count that
    every solution better than the incumbent satisfies (``clsolve.dp.bounds``' cardinality bounds),
    whose flipped bounds fix items too."""
    if seed is None and ceiling is None and relaxation is None:
        return cache.per_problem(problem, "fixing", lambda: _fix(problem))
    return _fix(problem, seed, ceiling, relaxation)


@dataclass
class _Flips:
    """MT2's bounds of a knapsack whose items are in ratio order (items 0 .. b-1 fit, b does not): for
    j < b, U0(j), Dantzig's bound without j, the feasible value met on the way (the prefix that fits
    with j left out) and where it ends; for j >= b the same with j taken (U1; -1 where j alone does
    not fit)."""

    b: int
    upper0: np.ndarray
    feasible0: np.ndarray
    end0: np.ndarray
    upper1: np.ndarray
    feasible1: np.ndarray
    end1: np.ndarray


def _flips(w: np.ndarray, p: np.ndarray, capacity: int, start: int = 0, end: int | None = None) -> _Flips | None:
    """The flipped bounds of the items ``w``, ``p`` (ratio order, weights >= 1; or a ``partial_order``
    whose window ``start:end`` holds the prefix weights from C - max w to C + max w); None where they
    all fit."""
    n = w.size
    end = n if end is None else end
    prefix_w = np.concatenate([[0], np.cumsum(w)])
    prefix_p = np.concatenate([[0], np.cumsum(p)])
    if prefix_w[-1] <= capacity:
        return None
    b = int(np.searchsorted(prefix_w, capacity, side="right")) - 1  # items 0 .. b-1 fit, b does not
    exact = int(w.max()) * int(p.max()) < 2**62

    def fraction(room: np.ndarray, at: np.ndarray) -> np.ndarray:
        """floor(room * p[at] / w[at]), or more (an upper bound, exact where int64 allows)."""
        at = np.minimum(at, n - 1)
        if exact:
            return room * p[at] // w[at]
        return np.floor(room.astype(np.float64) * p[at] / w[at] * (1 + 1e-12)).astype(np.int64) + 1

    # U0(j), j < b: without j, greedy from the start reaches i0 = the last prefix that fits C + w_j
    before = np.arange(b)
    i0 = _last_fitting(prefix_w, capacity, 1, w[before], start, end)
    feasible0 = prefix_p[i0] - p[before]
    upper0 = feasible0 + np.where(i0 < n, fraction(capacity + w[before] - prefix_w[i0], i0), 0)
    # U1(j), j >= b: with j, the others fill C - w_j greedily up to i1 (< b <= j)
    after = np.arange(b, n)
    i1 = _last_fitting(prefix_w, capacity, -1, w[after], start, end)
    fits = i1 >= 0
    i1 = np.maximum(i1, 0)
    feasible1 = np.where(fits, p[after] + prefix_p[i1], -1)
    upper1 = np.where(fits, feasible1 + fraction(capacity - w[after] - prefix_w[i1], i1), -1)
    return _Flips(b, upper0, feasible0, i0, upper1, feasible1, i1)


def _last_fitting(prefix_w: np.ndarray, capacity: int, sign: int, weights: np.ndarray, start: int, end: int) -> np.ndarray:
    """For each weight w_j, the last i with prefix_w[i] <= capacity + sign * w_j, searched in
    ``start - 1 .. end`` (where the caller knows it lies); a table by weight where there are fewer
    weights than items."""
    window = prefix_w[start : end + 1]
    heaviest = int(weights.max()) if weights.size else 0
    if heaviest < weights.size:
        table = np.searchsorted(window, capacity + sign * np.arange(heaviest + 1), side="right") - 1 + start
        return table[weights]
    return np.searchsorted(window, capacity + sign * weights, side="right") - 1 + start


def fixed_by(profits: np.ndarray, weights: np.ndarray, capacity: int, value: int) -> tuple[np.ndarray, np.ndarray]:
    """Items (indices) that every solution worth more than ``value`` takes, and items none takes, where
    those solutions satisfy sum w_j x_j <= capacity (weights >= 1): MT2's bounds, Dantzig's with the
    item flipped against the break solution, at most ``value``. An item heavier than ``capacity`` is
    taken by none."""
    heavy = np.flatnonzero(weights > capacity)
    order = sort_by_ratio(profits, weights)
    flips = _flips(weights[order], profits[order], capacity)
    if flips is None:
        return np.zeros(0, np.int64), heavy
    ones = order[np.flatnonzero(flips.upper0 <= value)]
    return ones, np.union1d(order[flips.b + np.flatnonzero(flips.upper1 <= value)], heavy)


# long: the incumbent from the flipped bounds' solutions (or the seed), the items they fix, and the core
def _fix(
    problem: Knapsack, seed: np.ndarray | None = None, ceiling: int | None = None, relaxation: tuple[int, int] | None = None
) -> Fixing:
    n = problem.n
    if problem.m != 1 or n < 2:
        return unchanged(problem)
    weights, profits = problem.weights[:, 0].astype(np.int64), problem.profits.astype(np.int64)
    capacity = int(problem.capacities[0])
    if int(weights.max()) > capacity or (weights == 0).any():
        return unchanged(problem)  # presolve's business: the bounds below assume every item fits alone
    if exact_sum(weights) >= 2**62 or problem.total_profit >= 2**62:
        return unchanged(problem)
    heaviest = int(weights.max())
    partial = partial_order(profits, weights, capacity - heaviest, capacity + heaviest)
    order = partial.order
    w, p = weights[order], profits[order]
    flips = _flips(w, p, capacity, partial.start, partial.end)
    if flips is None:
        return unchanged(problem)  # everything fits: presolve's loose-dimension rule takes all
    b = flips.b
    # the incumbent: the greedy prefix, then later items that still fit, in ratio order
    chosen = greedy(w, capacity, b)
    best = int(p[chosen].sum())
    # the solutions met on the way improve the incumbent
    candidates: list[tuple[int, tuple[str, int, int] | None]] = [(best, None)]
    if b:
        j = int(np.argmax(flips.feasible0))
        candidates.append((int(flips.feasible0[j]), ("without", j, int(flips.end0[j]))))
    if b < n:
        j = int(np.argmax(flips.feasible1))
        candidates.append((int(flips.feasible1[j]), ("with", b + j, int(flips.end1[j]))))
    if seed is not None:
        candidates.append((int(profits[seed].sum()), ("seed", 0, 0)))
    value, how = max(candidates, key=lambda c: c[0])
    if how is not None:
        chosen[:] = False
        kind, j, upto = how
        if kind == "seed" and seed is not None:
            chosen[:] = seed[order]
        else:
            chosen[:upto] = True
            chosen[j] = kind == "with"
    fixed_one = np.flatnonzero(flips.upper0 <= value)
    fixed_zero = b + np.flatnonzero(flips.upper1 <= value)
    incumbent = np.zeros(n, dtype=bool)
    incumbent[order[chosen]] = True
    settled = None
    if ceiling is not None and value >= ceiling:
        settled = f"the incumbent {value} reaches the upper bound {ceiling}"
    elif relaxation is not None:
        shift, count = relaxation
        surrogate = weights + shift
        if int(surrogate.min()) >= 1 and capacity + shift * count >= 0:
            rank = np.empty(n, dtype=np.int64)
            rank[order] = np.arange(n)
            ones, zeros = fixed_by(profits, surrogate, capacity + shift * count, value)
            fixed_one, fixed_zero = np.union1d(fixed_one, rank[ones]), np.union1d(fixed_zero, rank[zeros])
            if np.intersect1d(fixed_one, fixed_zero).size:
                settled = "an item is fixed both in and out: no solution beats the incumbent"
    if settled is not None:
        return Fixing(problem, None, np.zeros(0, np.int64), np.zeros(0, np.int64), incumbent, value, (settled,))
    free = np.ones(n, dtype=bool)
    free[fixed_one] = free[fixed_zero] = False
    if fixed_one.size + fixed_zero.size == 0:
        return Fixing(problem, problem, np.arange(n), np.zeros(0, np.int64), incumbent, value)
    core_sorted = np.flatnonzero(free)
    room = capacity - int(w[fixed_one].sum())
    notes = (
        f"bounds fixed {fixed_one.size} item(s) in and {fixed_zero.size} out (incumbent {value}); "
        f"{core_sorted.size} left with capacity {room}",
    )
    fixed_in, core_items = _sorted(order[fixed_one], n), _sorted(order[core_sorted], n)
    if room < 0 or core_sorted.size == 0:
        if room >= 0 and int(problem.profits[fixed_in].sum()) > value:
            incumbent = np.zeros(n, dtype=bool)
            incumbent[fixed_in] = True
            value = int(problem.profits[fixed_in].sum())
        return Fixing(problem, None, core_items, fixed_in, incumbent, value, notes)
    core = Knapsack.derived(
        problem.profits[core_items], problem.weights[core_items], np.array([room], dtype=np.int64), name=problem.name
    )
    return Fixing(problem, core, core_items, fixed_in, incumbent, value, notes)


def _sorted(items: np.ndarray, n: int) -> np.ndarray:
    """Distinct indices below ``n`` in increasing order (a pass over n flags, no sort)."""
    flags = np.zeros(n, dtype=bool)
    flags[items] = True
    return np.flatnonzero(flags)


@dataclass
class Stages:
    """What a 0-1 knapsack solver searches after presolve, fixing by bounds, presolve of the core and
    the multiplicity reduction, and the way back to the original problem. ``searched`` is None when
    nothing is left to decide."""

    first: Reduction
    fixed: Fixing | None = None
    core: Reduction | None = None
    merged: Aggregation | None = None
    #: the items of the core that dominance fixes at 0 taken out (``clsolve.dp.dominance``)
    dominated: Reduction | None = None

    @property
    def searched(self) -> Knapsack | None:
        return self.merged.problem if self.merged is not None else self._unmerged

    @property
    def _unmerged(self) -> Knapsack | None:
        if self.dominated is not None:
            return self.dominated.problem
        return self._undominated

    @property
    def _undominated(self) -> Knapsack | None:
        if self.fixed is None:
            return self.first.problem
        return None if self.core is None else self.core.problem

    @property
    def floor(self) -> int:
        """A value of ``searched`` that is not worth finding: the fixing's incumbent (a full solution of
        the original problem) less the profit of the items fixed in; -1 without fixing."""
        if self.fixed is None or self.fixed.incumbent_value < 0:
            return -1
        return self.fixed.incumbent_value - int(self.fixed.original.profits[self.fixed.fixed_in].sum())

    def solve(self, search: Callable[[Knapsack], Solution], solver: str, device: str) -> Solution:
        """``search``'s solution of ``searched``, expanded to the original problem (or the trivial
        solution where a stage left nothing to decide)."""
        first, fixed, core, merged, dominated = self.first, self.fixed, self.core, self.merged, self.dominated
        taken = first.forced_profit + (fixed.fixed_profit if fixed is not None else 0)
        taken += core.forced_profit if core is not None else 0

        def logged(problem: Knapsack) -> Solution:
            with logs.offset(taken):  # the search's log in the original problem's values
                return search(problem)

        run = logged if merged is None else lambda _: merged.expand(logged(merged.problem))
        if dominated is not None:
            run = _expanding(dominated, run)
        if first.problem is None:
            return first.trivial(solver, device)
        if fixed is None:
            return first.expand(run(first.problem))
        if core is None:
            return first.expand(fixed.trivial(solver, device))
        inner = core.trivial(solver, device) if core.problem is None else core.expand(run(core.problem))
        return first.expand(fixed.expand(inner))


def _expanding(step: Reduction, run: Callable[[Knapsack], Solution]) -> Callable[[Knapsack], Solution]:
    """``run`` on ``step``'s smaller problem, its solution expanded back (every item fixed by
    dominance leaves a problem: ``step.problem`` is never None)."""
    smaller = step.problem
    assert smaller is not None
    return lambda _: step.expand(run(smaller))


def stages(
    problem: Knapsack,
    presolve: bool = True,
    fixing: bool = True,
    seed: np.ndarray | None = None,
    ceiling: int | None = None,
    relaxation: tuple[int, int] | None = None,
    aggregate: bool = True,
    dominance: bool = True,
) -> Stages:
    """Presolve, then (m = 1, ``fixing``) variable fixing by bounds, then presolve of the core, then
    (m = 1, ``fixing`` and ``dominance``) the items dominance fixes at 0 (``clsolve.dp.dominance``),
    then (``aggregate``) equal items of what is left as one bounded type (``clsolve.dp.multiplicity``).
    ``seed`` (a feasible solution of ``problem``), ``ceiling`` (an upper bound of its optimum) and
    ``relaxation`` (a surrogate constraint of ``problem``, kept where presolve changed nothing) go to
    ``fix``."""
    staged = _staged(problem, presolve, fixing, seed, ceiling, relaxation)
    searched = staged.searched
    if fixing and dominance and searched is not None and searched.m == 1:
        staged.dominated = dominated_items.reduction(searched)
        searched = staged.searched
    if aggregate and searched is not None:
        staged.merged = multiplicity.aggregate(searched)
    return staged


def _staged(
    problem: Knapsack,
    presolve: bool,
    fixing: bool,
    seed: np.ndarray | None,
    ceiling: int | None,
    relaxation: tuple[int, int] | None,
) -> Stages:
    first = reduction(problem, presolve)
    if first.problem is None or not fixing or first.problem.m != 1:
        return Stages(first)
    if seed is not None or ceiling is not None or relaxation is not None:
        forced = int(problem.profits[first.forced].sum())
        fixed = fix(
            first.problem,
            None if seed is None else np.asarray(seed, dtype=bool)[first.items],
            None if ceiling is None else ceiling - forced,
            None if first.changed else relaxation,
        )
    else:
        fixed = fix(first.problem)
    if fixed.core is None:
        return Stages(first, fixed)
    if not fixed.changed and seed is None:
        return Stages(first)
    return Stages(first, fixed, reduction(fixed.core, presolve))
