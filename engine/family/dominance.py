"""Dominated items of an unbounded knapsack ([MT90] Section 3.6, MTU2's reduction): item j is
dominated by item i != j where floor(w_j / w_i) p_i >= p_j, for then floor(w_j / w_i) copies of i
weigh no more than one copy of j and earn no less, so some optimum uses no copy of j (of two equal
items the later is the one dropped). Only counts with no limit allow it: a bounded item's count can
run out."""

from __future__ import annotations

import numpy as np

#: Items up to this many are checked pairwise (n^2 / 2 comparisons in blocks); beyond, only by the
#: simple dominance of a lighter or equal item that earns no less.
PAIRWISE_ITEMS = 4096
BLOCK = 512


def dominated(profits: np.ndarray, weights: np.ndarray, usable: np.ndarray) -> np.ndarray:
    """A flag per item: dominated (an unbounded knapsack need not use it). Items not usable at all are
    neither dominated nor dominating. First the simple dominance (a lighter or equal item that earns no
    less), in O(n log n); then, among the items left (up to PAIRWISE_ITEMS), the full rule pairwise:
    an item the simple rule drops is dominated by one it keeps, which then dominates whatever the
    dropped one did (floor(w_j / w_i) only grows as w_i shrinks)."""
    out = np.zeros(profits.size, dtype=bool)
    live = np.flatnonzero((usable > 0) & (weights > 0))
    if live.size < 2:
        return out
    p, w = profits[live], weights[live]
    order = np.lexsort((-p, w))  # by weight, the most profitable first among equal weights (stable)
    best = np.maximum.accumulate(p[order])
    earlier = np.concatenate(([-1], best[:-1]))
    out[live[order]] = earlier >= p[order]
    kept = live[~out[live]]
    if 2 <= kept.size <= PAIRWISE_ITEMS:
        out[kept] = _pairwise(profits[kept], weights[kept])
    return out


def _pairwise(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The full rule between every two of the items (in blocks): floor(w_j / w_i) p_i >= p_j, of equal
    items the first kept. Items by weight: a block of j meets only the i no heavier than its heaviest
    (a heavier i fits no copy); where floor(w_j / w_i) p_i cannot pass 2^53, in float64 (exact there:
    a quotient of integers below 2^53 rounds to no other integer part), else in int64 through a
    ceiling division."""
    out = np.zeros(p.size, dtype=bool)
    by_weight = np.argsort(w, kind="stable")
    p, w = p[by_weight], w[by_weight]
    index = by_weight  # the items' own positions break ties between equal items
    small = (int(w.max()) // max(int(w.min()), 1) + 1) * max(int(p.max()), 1) < 2**53
    if small:  # every weight, quotient, profit and product exact in float64, and floor(w_j / w_i) too
        w, p = w.astype(np.float64), p.astype(np.float64)
    for start in range(0, p.size, BLOCK):
        j = np.arange(start, min(start + BLOCK, p.size))
        i = slice(0, int(np.searchsorted(w, w[j[-1]], side="right")))
        times = np.floor(w[j][:, None] / w[None, i]) if small else w[j][:, None] // w[None, i]  # copies of i in one j
        if small:
            beats = (times > 0) & (times * p[None, i] >= p[j][:, None])
        else:  # times >= ceil(p_j / p_i), or p_j = 0 where p_i = 0
            pi = p[None, i]
            need = np.where(pi > 0, -(-p[j][:, None] // np.maximum(pi, 1)), np.where(p[j][:, None] == 0, 0, 2**62))
            beats = (times > 0) & (times >= need)
        twin = (w[j][:, None] == w[None, i]) & (p[j][:, None] == p[None, i])
        beats &= ~twin | (index[None, i] < index[j][:, None])
        beats[np.arange(j.size), j] = False  # an item does not dominate itself
        out[by_weight[j]] = beats.any(axis=1)
    return out


def needed(problem) -> np.ndarray:
    """How many copies of each item a solver must consider: ``problem.usable``, with 0 for the items an
    unbounded knapsack's dominance drops (``dominated``); bounded knapsacks and change-making as
    they are. Made once per problem."""
    memo = problem.memo
    if "needed" not in memo:
        usable = problem.usable
        if getattr(problem, "unbounded", False) and hasattr(problem, "profits") and problem.kind == "bounded":
            usable = np.where(dominated(problem.profits, problem.weights, usable), 0, usable)
        memo["needed"] = usable
    return memo["needed"]
