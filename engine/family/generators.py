"""Generators of the knapsack family's classic test instances (each named by its parameters and
seed, so a failure can be made again).

``bounded``: Pisinger's families (``clsolve.generators.PISINGER_FAMILIES``: weights in U[1, R] and
profits correlated as there) with counts in U[1, b] for each item and capacity half the total weight
of every copy, c = floor(sum w_j b_j / 2), as [Pisinger00]'s bouknap tests; ``counts=None`` makes the
unbounded instance, with capacity half the weights' sum (one copy each), as MTU2's tests ([MT90]
Section 3.6).

``change``: change-making ([MT90] Chapter 5) with coin values in U[1, R] (R = 1e3 unless said),
capacity half their sum (bounded: of every coin), counts in U[1, b] or unlimited.

``subset_sum``: the subset-sum families of [Pisinger03]'s experiments (profits equal to weights):

=========  =======================================================================================
p3, p6     w in U[1, 10^E] (E = 3, 6), c = floor(n 10^E / 4)
evenodd    w even in U[2, 10^3], c = 2 floor(n 10^3 / 8) + 1 (odd: no subset reaches it)
avis       w_j = n (n + 1) + j, c = n (n + 1) floor((n - 1) / 2) + n (n - 1) / 2
todd       w_j = 2^(k + n + 1) + 2^(k + j) + 1 with k = floor(log2 n), c = floor(sum w / 2)
=========  =======================================================================================

avis and todd are built so that branch and bound and dynamic programming over the sums take
exponential time; todd's weights need n <= 48 to keep their sum below 2^62.
"""

from __future__ import annotations

import numpy as np

from ..generators import PISINGER_FAMILIES, _family
from ..problems import Knapsack
from .problems import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack


def bounded(family: str, n: int, R: int, most: int | None = 10, seed: int = 0) -> BoundedKnapsack:
    """The ``family`` instance with n item types, data range R and counts in U[1, most] (None:
    unbounded), capacity half the total weight (see the module docstring)."""
    if family not in PISINGER_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(PISINGER_FAMILIES)}; got {family!r}")
    rng = np.random.default_rng(seed)
    weights, profits = _family(family, n, int(R), rng)
    if most is None:
        capacity = int(weights.sum(dtype=object)) // 2
        label = f"unbounded {family} n={n} R={R} seed={seed}"
        return BoundedKnapsack(profits, weights, max(capacity, 1), None, name=label)
    counts = rng.integers(1, int(most) + 1, n, dtype=np.int64)
    capacity = int((weights * counts).sum(dtype=object)) // 2
    label = f"bounded {family} n={n} R={R} counts<={most} seed={seed}"
    return BoundedKnapsack(profits, weights, max(capacity, 1), counts, name=label)


def change(n: int, R: int = 1000, most: int | None = None, seed: int = 0) -> ChangeMaking:
    """Change-making with n coin values in U[1, R], counts in U[1, most] (None: unlimited), capacity
    half the sum of every coin."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, int(R) + 1, n, dtype=np.int64)
    counts = None if most is None else rng.integers(1, int(most) + 1, n, dtype=np.int64)
    capacity = int((weights * (1 if counts is None else counts)).sum(dtype=object)) // 2
    label = f"change n={n} R={R} counts<={most or 'any'} seed={seed}"
    return ChangeMaking(weights, max(capacity, 1), counts, name=label)


#: The multiple-choice families of [Pisinger95] Section 8.
CHOICE_FAMILIES = ("uncorrelated", "weakly", "strongly", "subset-sum")


def choice(family: str, classes: int, size: int, R: int = 1000, seed: int = 0) -> MultipleChoice:
    """[Pisinger95]'s multiple-choice instance with ``classes`` classes of ``size`` items, data range R:
    uncorrelated (w, p in U[1, R]), weakly correlated (p in U[w - 10, w + 10], at least 1), strongly
    correlated (items of w' in U[1, R], p' = w' + 10 sorted by weight, each item the sum of the first
    ones: w_j = w'_1 + .. + w'_j, the same for p) or subset-sum (p = w); capacity half the sum of
    each class's lightest and heaviest weight."""
    if family not in CHOICE_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(CHOICE_FAMILIES)}; got {family!r}")
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, int(R) + 1, (classes, size), dtype=np.int64)
    if family == "uncorrelated":
        profits = rng.integers(1, int(R) + 1, (classes, size), dtype=np.int64)
    elif family == "weakly":
        profits = np.maximum(1, weights - 10 + rng.integers(0, 21, (classes, size), dtype=np.int64))
    elif family == "strongly":
        weights = np.cumsum(np.sort(weights, axis=1), axis=1)
        profits = weights + 10 * np.arange(1, size + 1)
    else:
        profits = weights.copy()
    capacity = int((weights.min(axis=1) + weights.max(axis=1)).sum()) // 2
    labels = np.repeat(np.arange(classes), size)
    name = f"multiple-choice {family} k={classes} size={size} R={R} seed={seed}"
    return MultipleChoice(profits.reshape(-1), weights.reshape(-1), capacity, labels, name=name)


def multiple(family: str, n: int, k: int, R: int = 1000, similar: bool = True, seed: int = 0) -> MultipleKnapsack:
    """A multiple knapsack of [MT90] Section 6.6 and [Pisinger99]: items of Pisinger's ``family``
    (weights in U[10, R]) and k capacities, similar (each in U[0.4, 0.6] x sum(w) / k) or dissimilar
    (the i-th in U[0, 0.5 (sum(w) - the capacities before)], the last making the rest of half the
    weights' sum); every capacity at least the lightest item."""
    if family not in PISINGER_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(PISINGER_FAMILIES)}; got {family!r}")
    rng = np.random.default_rng(seed)
    weights, profits = _family(family, n, int(R), rng)
    weights = np.maximum(weights, 10)
    total = int(weights.sum())
    if similar:
        capacities = [int(rng.integers(int(0.4 * total / k), int(0.6 * total / k) + 1)) for _ in range(k)]
    else:
        capacities, left = [], total // 2
        for _ in range(k - 1):
            capacities.append(int(rng.integers(0, max(left // 2, 1) + 1)))
            left -= capacities[-1]
        capacities.append(max(left, 0))
    capacities = [max(c, int(weights.min())) for c in capacities]
    name = f"multiple {family} n={n} k={k} R={R} {'similar' if similar else 'dissimilar'} seed={seed}"
    return MultipleKnapsack(profits, weights, sorted(capacities), name=name)


SUBSET_SUM_FAMILIES = ("p3", "p6", "evenodd", "avis", "todd")


def subset_sum(family: str, n: int, seed: int = 0) -> Knapsack:
    """The ``family`` subset sum of [Pisinger03] with n items (see the module docstring)."""
    rng = np.random.default_rng(seed)
    if family in ("p3", "p6"):
        top = 10 ** int(family[1])
        weights = rng.integers(1, top + 1, n, dtype=np.int64)
        capacity = n * top // 4
    elif family == "evenodd":
        weights = 2 * rng.integers(1, 500 + 1, n, dtype=np.int64)
        capacity = 2 * (n * 1000 // 8) + 1
    elif family == "avis":
        weights = n * (n + 1) + np.arange(1, n + 1, dtype=np.int64)
        capacity = n * (n + 1) * ((n - 1) // 2) + n * (n - 1) // 2
    elif family == "todd":
        if n > 48:
            raise ValueError(f"todd: n = {n} makes weights of 2^{n + 7} and more; n <= 48 keeps their sum below 2^62")
        k = int(np.floor(np.log2(n)))
        weights = np.array([2 ** (k + n + 1) + 2 ** (k + j) + 1 for j in range(1, n + 1)], dtype=np.int64)
        capacity = int(weights.sum(dtype=object)) // 2
    else:
        raise ValueError(f"family must be one of {', '.join(SUBSET_SUM_FAMILIES)}; got {family!r}")
    capacity = max(int(capacity), int(weights.max()))
    return Knapsack(weights, weights, capacity, name=f"subset-sum {family} n={n} seed={seed}")
