"""Instance generators for tests, the fuzzer and benchmarks (every generated instance is named by its
parameters and seed, so a failure can be made again).

``jooken``: the hard 0-1 knapsacks of Jooken, Leyman and De Causmaecker (EJOR 2022), as their public
generator describes them: g - 1 groups of (n - n f) / (g - 1) "large" items, group j (j = 0, 1, ...)
with weight and profit each drawn independently as floor((1/2^(j+1) + eps) c) + U[1, s]; the other
n f items have weight and profit U[1, s] each.
"""
from __future__ import annotations

import numpy as np

from .problems import Knapsack


def jooken(n: int, c: int, g: int, f: float, eps: float, s: int, seed: int = 0) -> Knapsack:
    """A Jooken-style instance with n items and capacity c (see the module docstring)."""
    rng = np.random.default_rng(seed)
    small = int(round(n * f))
    per_group = (n - small) // (g - 1)
    small = n - per_group * (g - 1)
    weights, profits = [], []
    for j in range(g - 1):
        base = int((1.0 / 2 ** (j + 1) + eps) * c)
        weights.append(base + rng.integers(1, s + 1, per_group))
        profits.append(base + rng.integers(1, s + 1, per_group))
    weights.append(rng.integers(1, s + 1, small))
    profits.append(rng.integers(1, s + 1, small))
    return Knapsack(np.concatenate(profits), np.concatenate(weights), c,
                    name=f"jooken n={n} c={c} g={g} f={f} eps={eps} s={s} seed={seed}")
