"""Ratio orders of 0-1 knapsack items (one capacity): items by decreasing profit/weight, exactly.

``sort_by_ratio`` sorts every item: a float sort checked, and mended where needed, with integer cross
products. ``partial_order`` sorts only the items whose places matter to bounds that look at prefix
weights between two values (Dantzig's, MT2's flipped ones: the break item's neighbourhood, as MT2 sorts
only its core): the others are split into those before and those after, by float ratios, which is exact
because a correctly rounded p/w (p, w < 2^53) never orders two items against their true ratios.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..problems import Knapsack
from ..runtime import cache

#: Float ratios closer than this (relative) may be in the wrong order; far above the error of a
#: ratio of two int64 values in double precision (about 3e-16).
RATIO_TOLERANCE = 1e-12


def sort_by_ratio(profits: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Indices by decreasing profit/weight, exact: a float sort checked with integer cross products
    (exact Python integers where int64 products could overflow), re-sorted exactly if it is wrong."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(weights == 0, np.inf, profits / np.maximum(weights, 1).astype(np.float64))
    order = np.argsort(-ratio)  # ties in any order: every order of equal ratios is a ratio order
    p, w = profits[order], weights[order]
    if p.size < 2 or (weights == 0).any():
        return order  # weightless items first (they always fit and are never the slack item)
    if int(p.max()) < 2**31 and int(w.max()) < 2**31:
        ok = bool((p[:-1] * w[1:] >= p[1:] * w[:-1]).all())
    else:
        ok = all(int(a) * int(d) >= int(b) * int(c) for a, b, c, d in zip(p[:-1], p[1:], w[:-1], w[1:]))
    if ok:
        return order
    return _exactly(profits, weights, order)


def _exactly(profits: np.ndarray, weights: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``order`` (a float sort by decreasing ratio, positive weights) made exact: the float ratios of
    two items whose true ratios differ by more than a relative RATIO_TOLERANCE are in the right order,
    so only runs of neighbours closer than that are sorted again, by integer cross products."""
    ratio = profits[order] / weights[order].astype(np.float64)
    close = ratio[:-1] - ratio[1:] <= RATIO_TOLERANCE * np.abs(ratio[:-1])
    starts = np.flatnonzero(np.r_[True, ~close])
    ends = np.r_[starts[1:], order.size]
    out = order.copy()

    def before(i: int, j: int) -> int:  # -1 where item i's ratio is larger
        return int(profits[j]) * int(weights[i]) - int(profits[i]) * int(weights[j])

    for start, end in zip(starts[ends - starts > 1], ends[ends - starts > 1]):
        out[start:end] = sorted(order[start:end].tolist(), key=functools.cmp_to_key(before))
    return out


def ratio_order(problem: Knapsack) -> np.ndarray:
    """``sort_by_ratio`` of a problem with one capacity (computed once per problem)."""
    return cache.per_problem(
        problem, "ratio order", lambda: sort_by_ratio(problem.profits.astype(np.int64), problem.weights[:, 0].astype(np.int64))
    )


#: Fewer items than this are sorted whole (the partial order's passes cost more).
PARTIAL_ITEMS = 4096
#: Items in the sample whose sorted ratios estimate where the prefix weights reach a value.
SAMPLE = 1024
#: Sample places added on each side of the estimate at first, and the factor they grow by when the
#: items outside the window turn out to weigh too much (or too little).
MARGIN, GROWTH = 32, 4


@dataclass(frozen=True)
class Partial:
    """A permutation of the items: ``order[:start]`` (any order) weigh at most the lower value and have
    ratios at least every later item's; ``order[start:end]`` in exact ratio order; ``order[end:]`` (any
    order) have ratios at most every earlier item's, and ``order[:end]`` weighs more than the upper value
    (or ``end`` is n). Every prefix weight between the two values ends inside the sorted window."""

    order: np.ndarray
    start: int
    end: int


def partial_order(profits: np.ndarray, weights: np.ndarray, low: int, high: int) -> Partial:
    """The ``Partial`` order of int64 items (weights >= 1, their sum below 2^63) for prefix weights
    from ``low`` to ``high``: the window found from a sample's sorted ratios, widened until the items
    outside it check out; all items sorted where there are few, or where p or w reach 2^53."""
    n = profits.size
    if n < PARTIAL_ITEMS or int(profits.max()) >= 2**53 or int(weights.max()) >= 2**53:
        return Partial(sort_by_ratio(profits, weights), 0, n)
    ratio = profits / weights.astype(np.float64)  # correctly rounded: monotone in the true ratio
    step = n // SAMPLE
    ranked = np.argsort(-ratio[::step])
    sample = ratio[::step][ranked]
    reached = np.cumsum(weights[::step][ranked]) * step  # about the weight of ratios >= sample[k]
    first, last = int(np.searchsorted(reached, low)), int(np.searchsorted(reached, high, side="right"))
    margin = MARGIN
    while True:
        above = ratio > (sample[first - margin] if first - margin >= 0 else np.inf)
        below = ratio < (sample[last + margin] if last + margin < sample.size else -np.inf)
        inside = ~(above | below)
        if (not above.any() or int(weights[above].sum()) <= low) and (not below.any() or int(weights[~below].sum()) > high):
            break
        margin *= GROWTH
    window = np.flatnonzero(inside)
    window = window[sort_by_ratio(profits[window], weights[window])]
    start = int(np.count_nonzero(above))
    return Partial(np.concatenate([np.flatnonzero(above), window, np.flatnonzero(below)]), start, start + window.size)
