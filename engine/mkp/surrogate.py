"""The surrogate relaxation of a multidimensional knapsack and its LP bound ([GP85]).

With multipliers u >= 0, the m constraints sum_j w_ij x_j <= c_i become the one constraint
sum_j (u . w_j) x_j <= u . c, which every feasible x still satisfies; the LP (Dantzig) bound of
that single knapsack bounds the MKP. With u the LP relaxation's dual prices the surrogate LP bound is
the LP bound itself; a subgradient descent on the Lagrangian dual (whose optimum is the LP bound,
the Lagrangian subproblem being integral) gives prices close to them. With two constraints the LP
duals themselves are found instead (``arrangement.duals``).

A node of the search with the items before k decided and residual capacities r is bounded by its
profit plus the surrogate LP bound of items k.. with capacity u . r: items in decreasing
p_j / (u . w_j), which is also the order the search branches in, so "the items k.." is a suffix and
its bound a binary search in prefix sums.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.problems import Knapsack
from clsolve.runtime import cache, deadline

from . import arrangement
from .greedy import fill, ratio_order

#: Subgradient steps at most, and the step scale (times 0.9 at each step that does not improve)
#: below which the descent has stalled.
STEPS = 300
MIN_SCALE = 1e-5
#: Subgradient steps for the multipliers of a level below the root.
LEVEL_STEPS = 60
#: Multipliers are fitted again every this many levels, and at every level first reached by a batch of
#: at least REFIT_NODES nodes (where the tree is wide, tighter bounds pay for the fit).
REFIT_LEVELS = 4
REFIT_NODES = 64
#: Relative margin added to a bound computed in double precision before it is rounded down.
BOUND_MARGIN = 1e-9
#: Sums of integers below this are exact in double precision.
EXACT_SUM = 2.0**53
#: Two constraints over at most this many items take the exact duals (each line of their walk
#: evaluates the bound at n + 2 points, n^2 products).
PLANE_ITEMS = 1024


def greedy_value(profits: np.ndarray, weights: np.ndarray, capacities: np.ndarray, order: np.ndarray) -> int:
    """The profit of the greedy completion in ``order`` (``greedy.fill``)."""
    return int(profits[fill(weights, capacities, order)].sum())


def cheap_bounds(problem: Knapsack) -> tuple[int, int, int]:
    """(upper, lower, gap) for plans, once per problem: the surrogate LP bound with the constraints
    normalised by the capacities (one sort, no fitted multipliers), the greedy value in that ratio
    order, and what lies strictly between them (0: the greedy value is optimal)."""

    def compute() -> tuple[int, int, int]:
        p, w, c = problem.profits, problem.weights, problem.capacities
        u = 1.0 / np.maximum(c, 1).astype(np.float64)
        upper = int(Suffix.of(p, w, u / u.max()).bounds(np.zeros(1, np.int64), c[None, :])[0])
        lower = greedy_value(p, w, c, ratio_order(p, w, u))
        return upper, lower, max(upper - 1 - lower, 0)

    return cache.per_problem(problem, "surrogate cheap bounds", compute)


def _lagrangian(p: np.ndarray, w: np.ndarray, c: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """The Lagrangian bound y . c + sum_j max(0, p_j - y . w_j) and its subgradient c - W x(y)."""
    reduced = p - w @ y
    x = reduced > 0
    return float(y @ c + np.maximum(reduced, 0.0).sum()), c - x @ w


def prices(
    profits: np.ndarray, weights: np.ndarray, capacities: np.ndarray, target: float, steps: int = STEPS
) -> tuple[np.ndarray, float]:
    """Lagrangian prices y >= 0 of the m constraints and their bound y . c + sum_j max(0, p_j - y . w_j)
    (an upper bound for every y): a subgradient descent with Polyak's steps toward ``target`` (a
    feasible value), which approaches the LP relaxation's duals and the LP bound. ``suffix_prices`` runs
    the same descent for many suffixes at once; one problem alone takes this loop, whose steps make
    fewer array operations (a third of the time: the root's and the host search's fits). Two
    constraints over at most PLANE_ITEMS items take the LP duals themselves (``arrangement.duals``),
    one constraint its LP dual, the break item's ratio (``_break_price``)."""
    if capacities.size == 1 and profits.size:
        return _break_price(profits, weights, capacities)
    if capacities.size == 2 and 0 < profits.size <= PLANE_ITEMS:
        return arrangement.duals(profits, weights, capacities)
    p = profits.astype(np.float64)
    w = weights.astype(np.float64)  # (n, m)
    c = np.maximum(capacities.astype(np.float64), 1.0)  # a zero capacity relaxed to 1 keeps the bound valid
    y = np.full(c.size, float(p.sum()) / max(float((w / c).sum()), 1.0)) / c  # every item about priced out
    best_y, best = y.copy(), np.inf
    scale, limit = 2.0, deadline.current()
    for _ in range(steps):
        if limit.expired():
            break  # every y gives a valid bound: a shorter descent only loosens it
        value, slack = _lagrangian(p, w, c, y)
        if value < best:
            best, best_y = value, y.copy()
        else:
            scale *= 0.9
        norm = float(slack @ slack)
        if norm == 0.0 or best <= target or scale < MIN_SCALE:
            break
        y = np.maximum(y - scale * (value - target) / norm * slack, 0.0)
    return best_y, best


def _break_price(profits: np.ndarray, weights: np.ndarray, capacities: np.ndarray) -> tuple[np.ndarray, float]:
    """The LP dual of one constraint: p_b / w_b of Dantzig's break item (0 where every item fits), and
    its Lagrangian bound, which is Dantzig's bound."""
    p, w = profits.astype(np.float64), weights[:, 0].astype(np.float64)
    c = float(capacities[0])
    order = ratio_order(profits, weights, np.ones(1))
    fits = np.cumsum(w[order]) <= c
    whole = int(fits.sum())  # a prefix: the weights are not negative
    y = np.array([p[order[whole]] / w[order[whole]] if whole < p.size else 0.0])
    return y, float(y[0] * c + np.maximum(p - w * y[0], 0.0).sum())


def suffix_prices(
    profits: np.ndarray,
    weights: np.ndarray,
    starts: np.ndarray,
    capacities: np.ndarray,
    targets: np.ndarray,
    steps: int = LEVEL_STEPS,
) -> np.ndarray:
    """``prices`` of several suffixes at once: row k descends for the items from ``starts[k]`` on with
    capacities ``capacities[k]`` toward ``targets[k]``, every row the same steps as ``prices`` (one
    matrix product per step for all of them); the best prices of each row, (rows, m)."""
    p, w = profits.astype(np.float64), weights.astype(np.float64)
    c = np.maximum(capacities.astype(np.float64), 1.0)  # (rows, m)
    inside = np.arange(p.size)[None, :] >= starts[:, None]  # (rows, n)
    load = inside.astype(np.float64) @ w  # sum of each suffix's weights
    y = (np.where(inside, p, 0.0).sum(axis=1) / np.maximum((load / c).sum(axis=1), 1.0))[:, None] / c
    best_y, best = y.copy(), np.full(len(starts), np.inf)
    scale, active, limit = np.full(len(starts), 2.0), np.ones(len(starts), bool), deadline.current()
    for _ in range(steps):
        if limit.expired() or not active.any():
            break
        reduced = p[None, :] - y @ w.T
        x = (reduced > 0) & inside
        value = (y * c).sum(axis=1) + np.where(x, reduced, 0.0).sum(axis=1)
        slack = c - x.astype(np.float64) @ w
        better = active & (value < best)
        best, best_y[better] = np.where(better, value, best), y[better]
        scale = np.where(active & ~better, 0.9 * scale, scale)
        norm = (slack * slack).sum(axis=1)
        active &= (norm > 0) & (best > targets) & (scale >= MIN_SCALE)
        step = np.where(active, scale * (value - targets) / np.where(norm > 0, norm, 1.0), 0.0)
        y = np.maximum(y - step[:, None] * slack, 0.0)
    return best_y


def normalised(y: np.ndarray) -> np.ndarray:
    """Prices as surrogate multipliers: the largest 1 (the plain sum where there are none)."""
    if not np.isfinite(y).all() or y.max() <= 0:
        return np.ones(y.size)  # no weight anywhere, or no descent: the plain sum of the constraints
    return y / y.max()


def multipliers(
    profits: np.ndarray, weights: np.ndarray, capacities: np.ndarray, target: float, steps: int = STEPS
) -> np.ndarray:
    """Surrogate multipliers u >= 0 (one per constraint, the largest 1): the Lagrangian prices, which
    make the surrogate LP bound the LP bound when they are the LP's duals."""
    return normalised(prices(profits, weights, capacities, target, steps)[0])


@dataclass
class Suffix:
    """The surrogate LP bound of the items from one level on: their surrogate weights u . w_j in
    decreasing p_j / (u . w_j) order, and prefix sums of those weights and of the profits."""

    u: np.ndarray
    surrogate: np.ndarray
    profit_sums: np.ndarray
    weight_sums: np.ndarray

    @classmethod
    def of(cls, profits: np.ndarray, weights: np.ndarray, u: np.ndarray) -> Suffix:
        order = ratio_order(profits, weights, u)
        s = np.maximum(weights.astype(np.float64) @ u, 0.0)[order]
        return cls(
            u, s, np.concatenate([[0.0], np.cumsum(profits[order].astype(np.float64))]), np.concatenate([[0.0], np.cumsum(s)])
        )

    def bounds(self, profit: np.ndarray, residual: np.ndarray) -> np.ndarray:
        """profit + the LP bound with capacity u . residual, rounded down with a margin (int64)."""
        n = self.surrogate.size
        room = residual.astype(np.float64) @ self.u
        last = np.clip(np.searchsorted(self.weight_sums, room, side="right") - 1, 0, n)  # items 0..last-1 whole
        at = np.minimum(last, n - 1)
        left = room - self.weight_sums[last]
        gain = self.profit_sums[at + 1] - self.profit_sums[at]
        # the item that does not fit, in part: left < its surrogate weight, so the share is below its
        # profit (kept there under rounding); no share where it weighs nothing or every item fits
        part = np.divide(left, self.surrogate[at], out=np.zeros_like(left), where=(last < n) & (self.surrogate[at] > 0))
        total = profit.astype(np.float64) + self.profit_sums[last] + gain * np.clip(part, 0.0, 1.0)
        # no item in part (every one fits, or the first that does not has no profit, nor then has any
        # after it): the bound is a sum of integers, exact below 2^53, and needs no margin; all-zero
        # profits then bound a node by its profit and the search proves 0 at once
        exact = ((last >= n) | (gain == 0)) & (total < EXACT_SUM)
        return np.where(exact, total, np.floor(total * (1 + BOUND_MARGIN) + 1.0)).astype(np.int64)


class Relaxation:
    """The branching order (decreasing p_j / (u . w_j) with the root's multipliers) and, per level,
    the surrogate bound of the items left. Every REFIT_LEVELS levels, and wherever the first batch to
    reach a level is wide, the multipliers are fitted again to the residual capacity of that batch's
    best node, so bounds deep in the tree stay close to that subproblem's LP bound."""

    def __init__(self, profits: np.ndarray, weights: np.ndarray, capacities: np.ndarray):
        first = ratio_order(profits, weights, 1.0 / np.maximum(capacities, 1))
        self.u = multipliers(profits, weights, capacities, greedy_value(profits, weights, capacities, first))
        root = Suffix.of(profits, weights, self.u)
        self.order = ratio_order(profits, weights, self.u)
        self.profits, self.weights = profits[self.order], weights[self.order]
        self.levels: dict[int, Suffix] = {0: root}
        self.fits = 1  # levels whose multipliers were fitted (the root's included)

    def bounds(self, level: int, profit: np.ndarray, residual: np.ndarray) -> np.ndarray:
        """Upper bounds (int64) of nodes with the items before ``level`` (in branching order) decided."""
        if level >= self.profits.size:
            return profit.astype(np.int64)
        suffix = self.levels.get(level)
        if suffix is None:
            refit = not level % REFIT_LEVELS or profit.size >= REFIT_NODES
            previous = self.levels[max(k for k in self.levels if k < level)]
            suffix = self._suffix(level, previous, residual[int(np.argmax(profit))] if refit else None)
        return suffix.bounds(profit, residual)

    def _suffix(self, level: int, previous: Suffix, typical: np.ndarray | None) -> Suffix:
        """The bound of the items from ``level`` on: multipliers fitted to the residual capacities
        ``typical``, or (None) ``previous``'s multipliers sorted anew."""
        p, w = self.profits[level:], self.weights[level:]
        u = previous.u
        if typical is not None:
            u = multipliers(p, w, typical, greedy_value(p, w, typical, np.arange(p.size)), LEVEL_STEPS)
            self.fits += 1
        suffix = self.levels[level] = Suffix.of(p, w, u)
        return suffix

    def tables(self, capacities: np.ndarray) -> Tables:
        """Every level's bound as flat arrays (for a search that bounds on the device): multipliers
        fitted again every REFIT_LEVELS levels to the residual capacities the greedy completion in
        branching order leaves there, sorted anew in between."""
        n = self.profits.size
        taken = np.zeros(n, dtype=bool)
        taken[fill(self.weights, capacities, np.arange(n))] = True
        residual = capacities - np.cumsum(np.where(taken[:, None], self.weights, 0), axis=0)
        refits = np.array([k for k in range(REFIT_LEVELS, n, REFIT_LEVELS) if k not in self.levels], dtype=np.int64)
        if refits.size:
            targets = np.array(
                [greedy_value(self.profits[k:], self.weights[k:], residual[k - 1], np.arange(n - k)) for k in refits],
                dtype=np.float64,
            )
            y = suffix_prices(self.profits, self.weights, refits, residual[refits - 1], targets)
            for k, row in zip(refits, y):
                self.levels[int(k)] = Suffix.of(self.profits[k:], self.weights[k:], normalised(row))
            self.fits += refits.size
        previous = self.levels[0]
        for level in range(1, n):
            previous = self.levels.get(level) or self._suffix(level, previous, None)
        return Tables.of([self.levels[level] for level in range(n)])


@dataclass
class Tables:
    """The bounds of levels 0..n-1 end to end: level k's multipliers ``u[k]`` (m), and from
    ``start[k]`` its n - k + 1 prefix sums (``weight_sums``, ``profit_sums``) and its n - k surrogate
    weights (``surrogate``, one slot left over)."""

    u: np.ndarray
    start: np.ndarray
    weight_sums: np.ndarray
    profit_sums: np.ndarray
    surrogate: np.ndarray

    @classmethod
    def of(cls, levels: list[Suffix]) -> Tables:
        sizes = np.array([s.weight_sums.size for s in levels], dtype=np.int64)
        start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int32)
        return cls(
            np.stack([s.u for s in levels]).astype(np.float64),
            start,
            np.concatenate([s.weight_sums for s in levels]),
            np.concatenate([s.profit_sums for s in levels]),
            np.concatenate([np.append(s.surrogate, 0.0) for s in levels]),
        )

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.u, self.start, self.weight_sums, self.profit_sums, self.surrogate))

    @staticmethod
    def bytes_for(n: int, m: int) -> int:
        """What ``tables`` holds for n items and m dimensions."""
        return 8 * n * m + 4 * n + 3 * 8 * (n * (n + 1) // 2 + n)
