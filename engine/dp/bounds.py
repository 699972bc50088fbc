"""Upper bounds of the 0-1 knapsack (m = 1) for the whole problem, tighter than Dantzig's: Martello
and Toth's, branching on the break item ([MT77]); where the instance has structure, surrogate
relaxations with a cardinality constraint and divisibility ([MPT99]).

* Maximum cardinality: no feasible solution takes more than K_max items (K_max = how many of the
  lightest items fit). For lambda >= 0 every feasible x satisfies the surrogate constraint
  sum_j (w_j + lambda) x_j <= c + lambda K_max, so the LP (Dantzig) bound of the knapsack with those
  weights and that capacity bounds the problem. With p_j = w_j + R/10 (strongly correlated) and
  lambda = R/10 it is c + K_max R/10, where Dantzig's bound is up to R/10 higher.
* Maximum copies: a bounded knapsack's binary split of a strongly correlated one has
  p_j = w_j + delta a_j (a_j the copies of piece j), so sum a_j x_j <= K (the LP maximum of copies
  that fit, rounded down) is the same surrogate with lambda a_j added to the weights; it proves
  c + K delta where each piece's own cardinality bound cannot.
* Minimum cardinality: every solution worth at least T takes at least K_min(T) items (K_min = how many
  of the largest profits reach T). For 0 <= mu <= min w_j such a solution satisfies
  sum_j (w_j - mu) x_j <= c - mu K_min; the LP bound U of that knapsack bounds every solution worth T
  or more, so max(U, T - 1) bounds the problem. With T one above the incumbent, U < T proves it.
* Divisibility: with g the greatest common divisor of the profits, every value is a multiple of g, so
  a bound rounds down to one.

The multipliers are searched with floating-point LP bounds (any multiplier gives a valid bound: the
search only makes it tighter); the bound returned is computed exactly, with an exact ratio order
(``clsolve.dp.ratios.sort_by_ratio``) and Python integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..runtime import deadline
from .ratios import sort_by_ratio

#: Shifted weights and capacities must stay below this (int64 sums, with room).
SUM_LIMIT = 2**62
#: Multipliers tried on a geometric grid before the search narrows around the best of them.
GRID = 16
#: Narrowing steps at most (golden-section search, one bound each; 96 narrow 2^62 to a unit).
REFINE_STEPS = 96
#: Multipliers next to the one found whose exact bounds are computed too.
EXACT_SPAN = 2


@dataclass(frozen=True)
class Bound:
    """An upper bound and what gave it: "dantzig", "martello-toth", "max-cardinality", "min-cardinality"
    (each possibly followed by ", divisibility")."""

    value: int
    source: str
    #: the multiplier of the cardinality constraint that gave it (0 for Dantzig's)
    multiplier: int = 0
    #: K_max or K_min
    count: int = 0

    @property
    def relaxation(self) -> tuple[int, int] | None:
        """(shift, count) of the surrogate constraint sum (w_j + shift) x_j <= c + shift count behind a
        cardinality bound (every solution better than the incumbent satisfies it), else None."""
        if self.source.startswith("max-cardinality"):
            return self.multiplier, self.count
        if self.source.startswith("min-cardinality"):
            return -self.multiplier, self.count
        return None


def dantzig(profits: np.ndarray, weights: np.ndarray, capacity: int) -> int:
    """The LP bound of max p.x subject to w.x <= capacity, x in [0, 1] (weights >= 0), exactly."""
    if capacity < 0:
        return -1
    weightless = weights == 0  # always taken (profits >= 0)
    free = int(profits[weightless].sum())
    if weightless.any():
        profits, weights = profits[~weightless], weights[~weightless]
        if weights.size == 0:
            return free
    order = sort_by_ratio(profits, weights)
    return free + _sorted_lp(profits[order], weights[order], capacity)


def _sorted_lp(p: np.ndarray, w: np.ndarray, capacity: int) -> int:
    """``dantzig`` of items already in ratio order (weights >= 1, capacity >= 0)."""
    prefix_w = np.cumsum(w)
    b = int(np.searchsorted(prefix_w, capacity, side="right"))  # items 0 .. b-1 fit, b does not
    full = int(p[:b].sum())
    if b == w.size:
        return full
    room = capacity - (int(prefix_w[b - 1]) if b else 0)
    return full + room * int(p[b]) // int(w[b])


def martello_toth(profits: np.ndarray, weights: np.ndarray, capacity: int) -> int | None:
    """[MT77]'s bound U2 with each branch bounded by its LP: the larger of Dantzig's bound without the
    break item b and p_b plus Dantzig's bound of the others in c - w_b (U2 bounds the two branches by
    the items next to b only, so this is at most U2, and at most Dantzig's bound). None where every
    item fits. Weights >= 1, each at most ``capacity``; one ratio sort (the others keep its order)."""
    order = sort_by_ratio(profits, weights)
    p, w = profits[order], weights[order]
    b = int(np.searchsorted(np.cumsum(w), capacity, side="right"))
    if b == w.size:
        return None
    others_p, others_w = np.delete(p, b), np.delete(w, b)
    return max(_sorted_lp(others_p, others_w, capacity), int(p[b]) + _sorted_lp(others_p, others_w, capacity - int(w[b])))


def _float_dantzig(profits: np.ndarray, weights: np.ndarray, capacity: float) -> float:
    """``dantzig`` in floating point (the multiplier search's cost function)."""
    if capacity < 0:
        return -1.0
    with np.errstate(divide="ignore"):
        ratio = np.where(weights > 0, profits / np.maximum(weights, 1), np.inf)
    order = np.argsort(-ratio, kind="stable")
    w, p = weights[order].astype(np.float64), profits[order].astype(np.float64)
    prefix_w = np.cumsum(w)
    b = int(np.searchsorted(prefix_w, capacity, side="right"))
    full = float(p[:b].sum())
    if b == w.size:
        return full
    return full + (capacity - (prefix_w[b - 1] if b else 0.0)) * p[b] / w[b]


def _search(cost, high: int) -> int:
    """An integer multiplier in [0, high] with a small ``cost``: the best of a geometric grid, then a
    golden-section search between its neighbours (the surrogate dual is quasi-convex in its
    multiplier)."""
    if high <= 0:
        return 0
    points = np.geomspace(1, high, GRID).astype(np.int64)  # a float's rounding can pass high
    grid = sorted({0, high, *np.unique(np.clip(points, 0, high)).tolist()})
    values = [cost(x) for x in grid]
    k = int(np.argmin(values))
    best, best_value = grid[k], values[k]
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = cost(round(a)), cost(round(b))
    limit = deadline.current()
    for _ in range(REFINE_STEPS):
        if hi - lo < 2 or limit.expired():
            break  # every multiplier gives a valid bound
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = cost(round(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = cost(round(b))
        for x, f in ((a, fa), (b, fb)):
            if f < best_value:
                best, best_value = round(x), f
    return min(max(best, 0), high)


def _exact(bound, found: int, high: int) -> tuple[int, int]:
    """(bound, multiplier): the least exact ``bound`` at ``found`` and its neighbours within EXACT_SPAN
    (the search rounds its points to integers, and floating point can hide a unit's difference)."""
    found = min(max(found, 0), high)
    return min((bound(x), x) for x in range(max(found - EXACT_SPAN, 0), min(found + EXACT_SPAN, high) + 1))


def max_cardinality(
    profits: np.ndarray, weights: np.ndarray, capacity: int, sizes: np.ndarray | None = None
) -> tuple[int, int, int] | None:
    """(bound, lambda, K_max) of the surrogate relaxation with sum a_j x_j <= K_max (a_j = ``sizes``, 1
    by default: K_max items), or None where the shifted sums would not stay below SUM_LIMIT. K_max is
    the LP optimum of max a.x subject to w.x <= c, rounded down."""
    n = weights.size
    a = np.ones(n, dtype=np.int64) if sizes is None else sizes
    if sizes is None:  # the lightest items first: no ratio sort needed
        k_max = int(np.searchsorted(np.cumsum(np.sort(weights)), capacity, side="right"))
    else:
        order = sort_by_ratio(a, weights)
        k_max = _sorted_lp(a[order], weights[order], capacity)
    if k_max >= int(a.sum()):
        return None  # every item fits: nothing to bound
    total, largest = int(weights.sum()), int(a.max())
    high = min(int(profits.max()), (SUM_LIMIT - total) // max(n * largest, 1), (SUM_LIMIT - capacity) // max(k_max, 1))
    if high <= 0:
        return None
    lam = _search(lambda x: _float_dantzig(profits, weights + x * a, float(capacity + x * k_max)), high)
    return (*_exact(lambda x: dantzig(profits, weights + x * a, capacity + x * k_max), lam, high), k_max)


def excess_sizes(profits: np.ndarray, weights: np.ndarray) -> np.ndarray | None:
    """Where every profit exceeds its weight by a multiple of the least excess delta, p_j - w_j = delta a_j
    with a_j >= 1 not all equal, the a_j (the copies of a binary-split strongly correlated item, whose
    pieces of one copy have the least excess); else None. Each solution's value is then w.x + delta a.x,
    and a.x has its own maximum cardinality bound."""
    excess = profits - weights
    if excess.size == 0 or int(excess.min()) <= 0:
        return None
    delta = int(excess.min())
    if (excess % delta).any():
        return None
    sizes = excess // delta
    return None if int(sizes.max()) == 1 else sizes


def min_cardinality(profits: np.ndarray, weights: np.ndarray, capacity: int, target: int) -> tuple[int, int, int] | None:
    """(bound, mu, K_min) of the surrogate relaxation with sum x >= K_min(target): a bound of every
    solution worth ``target`` or more (None: no mu > 0 applies)."""
    largest = np.cumsum(np.sort(profits)[::-1])
    if target > int(largest[-1]):
        return -1, 0, 0  # no solution is worth target
    k_min = int(np.searchsorted(largest, target, side="left")) + 1
    high = int(weights.min())
    if high <= 0 or k_min <= 1:
        return None
    mu = _search(lambda x: _float_dantzig(profits, weights - x, float(capacity - x * k_min)), high)
    return (*_exact(lambda x: dantzig(profits, weights - x, capacity - x * k_min), mu, high), k_min)


def upper_bound(profits: np.ndarray, weights: np.ndarray, capacity: int, incumbent: int) -> Bound:
    """The least of Dantzig's, Martello and Toth's and both cardinality bounds (the minimum one with
    T = incumbent + 1), rounded down to a multiple of the profits' greatest common divisor; never
    below ``incumbent`` (a feasible value). Weights >= 1, each at most ``capacity``, sums below SUM_LIMIT."""
    profits, weights = profits.astype(np.int64), weights.astype(np.int64)
    best = Bound(dantzig(profits, weights, capacity), "dantzig")
    if np.array_equal(profits, weights):
        return _divided(_subset_sum(weights, capacity, incumbent, best), profits, incumbent)
    branched = martello_toth(profits, weights, capacity)
    if branched is not None and branched < best.value:
        best = Bound(branched, "martello-toth")
    found = max_cardinality(profits, weights, capacity)
    if found is not None and found[0] < best.value:
        best = Bound(found[0], "max-cardinality", found[1], found[2])
    sizes = excess_sizes(profits, weights)
    found = max_cardinality(profits, weights, capacity, sizes) if sizes is not None else None
    if found is not None and found[0] < best.value:
        best = Bound(found[0], "max-copies")  # no unit-size surrogate constraint behind it for fixing
    least = min_cardinality(profits, weights, capacity, incumbent + 1)
    if least is not None and max(least[0], incumbent) < best.value:
        best = Bound(max(least[0], incumbent), "min-cardinality", least[1], least[2])
    return _divided(best, profits, incumbent)


def _subset_sum(weights: np.ndarray, capacity: int, incumbent: int, best: Bound) -> Bound:
    """The cardinality bounds of a subset sum (p = w) in closed form, the limits of their multiplier
    searches: a solution takes at most K_max items, so it sums to at most the K_max largest weights;
    a solution above the incumbent takes at least K_min items, so at least the K_min smallest weights
    (beyond c: none exists)."""
    ascending = np.sort(weights)
    smallest, largest = np.cumsum(ascending), np.cumsum(ascending[::-1])
    k_max = int(np.searchsorted(smallest, capacity, side="right"))
    if 0 < k_max < weights.size and int(largest[k_max - 1]) < best.value:
        best = Bound(int(largest[k_max - 1]), "max-cardinality", count=k_max)
    if incumbent < best.value:
        k_min = int(np.searchsorted(largest, incumbent + 1, side="left")) + 1
        if k_min > weights.size or int(smallest[k_min - 1]) > capacity:
            best = Bound(incumbent, "min-cardinality", count=min(k_min, weights.size))
    return best


def _divided(best: Bound, profits: np.ndarray, incumbent: int) -> Bound:
    """``best`` rounded down to a multiple of the profits' greatest common divisor, never below ``incumbent``."""
    divisor = math.gcd(*np.unique(profits).tolist())
    if divisor > 1 and best.value % divisor:
        best = replace(best, value=best.value // divisor * divisor, source=best.source + ", divisibility")
    return replace(best, value=max(best.value, incumbent))
