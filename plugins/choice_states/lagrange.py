"""The Lagrangian bound of the multiple-choice knapsack ([Pisinger95] Section 3: the LP relaxation's
dual). For any lambda >= 0,

    z <= lambda C + sum over classes k of max over items i of (p_i - lambda w_i),

and the LP optimum is the least of these bounds; ``multiplier`` finds that lambda by bisection on the
subgradient C - (the weight of every class's best item at lambda). Classes are then ordered by how
close their best and second-best items come at lambda: the closest are the least certain, and the
state lists decide them first."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Bisection steps for lambda (each halves its interval).
STEPS = 60


@dataclass(frozen=True)
class Lagrange:
    """lambda, each class's best reduced profit max (p - lambda w) and its item (an index into the
    flat arrays), each class's gap to its second best (inf: one item), and a good integer choice
    (``rounded``: an item per class within the capacity)."""

    multiplier: float
    best: np.ndarray
    argbest: np.ndarray
    gap: np.ndarray
    rounded: np.ndarray


def _best(profits: np.ndarray, weights: np.ndarray, starts: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Each class's max of p - lam w and the flat index of the item reaching it (the lightest of ties)."""
    reduced = profits - lam * weights
    best = np.maximum.reduceat(reduced, starts)
    owner = np.repeat(np.arange(starts.size), np.diff(np.append(starts, reduced.size)))
    hits = np.flatnonzero(reduced >= best[owner])
    _, at = np.unique(owner[hits], return_index=True)  # hits ascend: the first of each class's ties
    return best, hits[at]


def lagrange(profits: np.ndarray, weights: np.ndarray, starts: np.ndarray, capacity: int) -> Lagrange:
    """The multiplier minimizing the bound (``profits``, ``weights``: every class's items end to end,
    class k from ``starts[k]``), with the classes' best items and gaps there."""
    p, w = profits.astype(np.float64), weights.astype(np.float64)
    low, high = 0.0, float(p.max()) + 1.0  # past every slope between two items: the lightest items win
    for _ in range(STEPS):
        lam = (low + high) / 2
        _, first = _best(p, w, starts, lam)
        if w[first].sum() > capacity:
            low = lam  # the best items weigh too much: a dearer capacity
        else:
            high = lam
    lam = high
    best, first = _best(p, w, starts, lam)
    _, heavy = _best(p, w, starts, low)  # just below lambda: the choice the LP leans to, too heavy
    reduced = p - lam * w
    reduced[first] = -np.inf
    second = np.maximum.reduceat(reduced, starts)
    return Lagrange(lam, best, first, best - second, _rounded(weights, first, heavy, capacity))


def _rounded(weights: np.ndarray, light: np.ndarray, heavy: np.ndarray, capacity: int) -> np.ndarray:
    """The LP's integer rounding: every class at its choice above lambda (which fits), then the
    classes whose choice just below lambda differs switched to it while the capacity allows."""
    chosen = light.copy()
    room = capacity - int(weights[light].sum())
    for k in np.flatnonzero(light != heavy).tolist():
        extra = int(weights[heavy[k]]) - int(weights[light[k]])
        if extra <= room:
            chosen[k] = heavy[k]
            room -= extra
    return chosen
