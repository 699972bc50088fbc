"""Fixing by dominance between items of a 0-1 knapsack (m = 1), after [dSQS26]'s fixing by dominance.

Item j dominates item k when w_j <= w_k and p_j >= p_k, ties broken by the order of (weight
ascending, profit descending, index): j comes before k in that order and p_j >= p_k. The relation is
transitive, and some optimal solution is closed under it: where a solution takes k and leaves out a
j that dominates k, exchanging them keeps it feasible (w_j <= w_k) and no worse (p_j >= p_k), and every
exchange moves a taken item earlier in the order, so exchanges end. In that solution an item k that is
taken brings every item dominating it, so where w_k plus their weights exceeds the capacity, k is not
taken: it is fixed at 0, and the optimum of the items left is the optimum of the problem.

The weight of the items dominating each item is a two-dimensional dominance sum (earlier in the
order, profit at least as high), computed level by level of a merge sort in whole-array operations:
at the level of blocks of s items, each item of an odd block gets the weights of the items of the
even block before it whose profit is at least its own. log2(n) sorts of n keys in all.
"""

from __future__ import annotations

import numpy as np

from ..problems import Knapsack
from ..runtime import cache
from .reduction import Reduction

#: Problems (cores) with more items than this are not examined (n log^2 n work on the host).
DOMINANCE_ITEMS = 1 << 12


def dominating_weights(weights: np.ndarray, profits: np.ndarray) -> np.ndarray:
    """For each item, the total weight of the items that dominate it (float64, exact to rounding)."""
    n = weights.size
    order = np.lexsort((np.arange(n), -profits, weights))  # weight up, profit down, index up
    w, p = weights[order].astype(np.float64), profits[order]
    rank = np.unique(-p, return_inverse=True)[1].reshape(-1).astype(np.int64)  # profit down; equal profits, equal rank
    total = np.zeros(n)
    position = np.arange(n, dtype=np.int64)
    size = 1
    while size < n:
        block = position // (2 * size)
        right = (position // size) & 1
        # per pair of blocks: profit down, the left block first on ties (one key, one sort)
        by = np.argsort((block * n + rank) * 2 + right, kind="stable")
        on_right = right[by] == 1
        sums = np.cumsum(np.where(on_right, 0.0, w[by]))
        first = block[by] * (2 * size)  # a pair of blocks keeps its positions: it starts there
        inside = sums - np.where(first > 0, sums[np.maximum(first - 1, 0)], 0.0)
        total[by[on_right]] += inside[on_right]
        size *= 2
    out = np.empty(n)
    out[order] = total
    return out


def undominated(problem: Knapsack) -> np.ndarray:
    """The items no other item dominates (bool per item, m = 1): fixing by dominance keeps each of them
    (nothing adds to its weight, and presolve has dropped the items heavier than the capacity)."""
    weights, profits = problem.weights[:, 0], problem.profits
    order = np.lexsort((np.arange(problem.n), -profits, weights))
    p = profits[order]
    keep = np.ones(problem.n, dtype=bool)
    keep[order[1:]] = p[1:] > np.maximum.accumulate(p)[:-1]
    return keep


def examined(problem: Knapsack) -> bool:
    """Whether fixing by dominance has run on ``problem`` (its reduction is kept)."""
    return cache.get(problem, "dominance") is not None


def fixed_out(problem: Knapsack) -> np.ndarray:
    """The items fixed at 0 by dominance (bool per item); none for m > 1 or more than DOMINANCE_ITEMS
    items. The float sums are compared with a margin past their rounding, so no item is fixed wrongly."""
    if problem.m != 1 or problem.n < 2 or problem.n > DOMINANCE_ITEMS:
        return np.zeros(problem.n, dtype=bool)
    weights, capacity = problem.weights[:, 0], float(problem.capacities[0])
    load = weights.astype(np.float64) + dominating_weights(weights, problem.profits)
    return load > capacity * (1 + problem.n * 2.0**-50) + 1.0


def reduction(problem: Knapsack) -> Reduction | None:
    """``problem`` without the items dominance fixes at 0, and the way back; None where it fixes none
    (computed once per problem, which is immutable: a solver's plan and its solve both ask)."""
    return cache.per_problem(problem, "dominance", lambda: (_reduction(problem),))[0]


def _reduction(problem: Knapsack) -> Reduction | None:
    out = fixed_out(problem)
    if out.all():
        out[np.argmin(problem.weights[:, 0])] = False  # leave a problem to search (fixing is optional)
    count = int(out.sum())
    if not count:
        return None
    kept = np.flatnonzero(~out)
    smaller = Knapsack.derived(problem.profits[kept], problem.weights[kept], problem.capacities, name=problem.name)
    return Reduction(
        problem,
        smaller,
        kept,
        np.zeros(0, dtype=np.int64),
        (f"{count} item(s) fixed at 0 by dominance (with the items that dominate them they overfill the capacity)",),
    )
