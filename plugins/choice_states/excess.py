"""The excess bound of the multiple-choice knapsack. Every answer earns its weight plus its excess
e = p - w, and weighs at most C, so

    z  <=  C + max { sum over classes of e_k : one item a class, weights within C },

and the Lagrangian of ``lagrange.py`` over the excesses (each class's shifted up by its least, so that
they are >= 0) bounds the second term. Where every excess is a multiple of g, so is their sum, and the
term rounds down to a multiple of g. On [Pisinger95]'s strongly correlated family (the j-th item of a
class has e = 10 j) this is C + 10 N, N the most items a class's prefix steps can fit: the value of an
answer that fills the capacity with them, where the profits' own Lagrangian bound stays up to 10 above
every answer (the fraction of a step)."""

from __future__ import annotations

import math

import numpy as np

from .lagrange import lagrange

#: Relative slack on the float Lagrangian before it is rounded down (a bound may only be loosened).
SLACK = 1e-9


def excess_bound(profits: np.ndarray, weights: np.ndarray, starts: np.ndarray, capacity: int) -> int | None:
    """The bound for items end to end (``starts``: where each class begins), weights and profits int64;
    None where the excesses have no common divisor above 1: unrounded, the bound is never below the
    profits' own Lagrangian (that one is the least over every lambda >= 0, this the least over
    lambda >= 1 with lambda = 1 + the excesses' multiplier)."""
    excess = profits - weights
    step = int(np.gcd.reduce(np.abs(excess)))  # every excess, every least and every shifted sum: multiples of it
    if step <= 1:
        return None
    owner = np.repeat(np.arange(starts.size), np.diff(np.append(starts, excess.size)))
    least = np.minimum.reduceat(excess, starts)
    shifted = excess - least[owner]
    lag = lagrange(shifted, weights, starts, capacity)
    value = lag.multiplier * capacity + float(lag.best.sum())
    top = math.floor(value * (1 + SLACK) + SLACK)
    top -= top % step
    return capacity + int(least.sum()) + top
