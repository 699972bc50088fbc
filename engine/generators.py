"""Instance generators for tests, the fuzzer and benchmarks (every generated instance is named by its
parameters and seed, so a failure can be made again).

``jooken``: the hard 0-1 knapsacks of Jooken, Leyman and De Causmaecker (EJOR 2022), as their public
generator describes them: g - 1 groups of (n - n f) / (g - 1) "large" items, group j (j = 0, 1, ...)
with weight and profit each drawn independently as floor((1/2^(j+1) + eps) c) + U[1, s]; the other
n f items have weight and profit U[1, s] each.

``pisinger``: the classic families of Pisinger, "Where are the hard knapsack problems?" (Computers &
Operations Research 32(9), 2005, [Pisinger05] in ``docs/references.md``), with data range R and the
h-th of H capacities c = h / (H + 1) * sum(w) (weights drawn in U[1, R] unless said):

=================  =======================================================================
uncorrelated       p in U[1, R]
weakly             p in U[w - R/10, w + R/10], at least 1
strongly           p = w + R/10
inverse            p in U[1, R], w = p + R/10
almost-strongly    p in U[w + R/10 - R/500, w + R/10 + R/500]
subset-sum         p = w
similar-weights    w in U[100000, 100100], p in U[1, 1000]
spanner            2 spanner items (uncorrelated), each w, p := ceil(2 w / 10), ceil(2 p / 10); every
                   item is a spanner item times a in U[1, 10]
mstr               p = w + 3R/10 where d = 6 divides w, else p = w + 2R/10
profit-ceiling     p = 3 ceil(w / 3)
circle             p = floor(2/3 sqrt(4 R^2 - (w - 2R)^2))
=================  =======================================================================

``chu_beasley``: multidimensional knapsacks as Chu and Beasley generated OR-Library's ``mknapcb``
(Journal of Heuristics 4, 1998, [CB98]): weights w_ij in U[0, 1000], capacities c_i = alpha sum_j w_ij
for a tightness alpha, profits p_j = sum_i w_ij / m + 500 q_j with q_j in U(0, 1) (rounded down), so
profits correlate with the weights.
"""

from __future__ import annotations

import math

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
    return Knapsack(
        np.concatenate(profits), np.concatenate(weights), c, name=f"jooken n={n} c={c} g={g} f={f} eps={eps} s={s} seed={seed}"
    )


PISINGER_FAMILIES = (
    "uncorrelated",
    "weakly",
    "strongly",
    "inverse",
    "almost-strongly",
    "subset-sum",
    "similar-weights",
    "spanner",
    "mstr",
    "profit-ceiling",
    "circle",
)


def pisinger(family: str, n: int, R: int, h: int = 50, H: int = 100, seed: int = 0) -> Knapsack:
    """The ``family`` instance of [Pisinger05] with n items, data range R, capacity h / (H + 1) of
    the total weight (see the module docstring)."""
    if family not in PISINGER_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(PISINGER_FAMILIES)}; got {family!r}")
    if not 1 <= h <= H:
        raise ValueError(f"h must be in 1..H = {H}, got {h}")
    rng = np.random.default_rng(seed)
    weights, profits = _family(family, n, int(R), rng)
    capacity = max(1, int(h * int(weights.sum(dtype=object)) // (H + 1)))
    return Knapsack(profits, weights, capacity, name=f"pisinger {family} n={n} R={R} h={h}/{H} seed={seed}")


def _uniform(rng: np.random.Generator, low, high, n: int) -> np.ndarray:
    return rng.integers(low, high + 1, n, dtype=np.int64)


# long: one line or two per family of the table in the module docstring
def _family(family: str, n: int, R: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    tenth = R // 10
    w = _uniform(rng, 1, R, n)
    if family == "uncorrelated":
        return w, _uniform(rng, 1, R, n)
    if family == "weakly":
        return w, np.maximum(1, w - tenth + _uniform(rng, 0, 2 * tenth, n))
    if family == "strongly":
        return w, w + tenth
    if family == "inverse":
        p = _uniform(rng, 1, R, n)
        return p + tenth, p
    if family == "almost-strongly":
        spread = max(R // 500, 1)
        return w, w + tenth - spread + _uniform(rng, 0, 2 * spread, n)
    if family == "subset-sum":
        return w, w.copy()
    if family == "similar-weights":
        return _uniform(rng, 100_000, 100_100, n), _uniform(rng, 1, 1000, n)
    if family == "spanner":
        span_w = -(-2 * _uniform(rng, 1, R, 2) // 10)
        span_p = -(-2 * _uniform(rng, 1, R, 2) // 10)
        pick, times = rng.integers(0, 2, n), _uniform(rng, 1, 10, n)
        return span_w[pick] * times, span_p[pick] * times
    if family == "mstr":
        return w, np.where(w % 6 == 0, w + 3 * tenth, w + 2 * tenth)
    if family == "profit-ceiling":
        return w, 3 * (-(-w // 3))
    radius = [math.isqrt(4 * R * R - (int(x) - 2 * R) ** 2) for x in w]  # circle
    return w, np.array([max(1, 2 * r // 3) for r in radius], dtype=np.int64)


def chu_beasley(n: int, m: int, tightness: float, seed: int = 0) -> Knapsack:
    """A Chu-Beasley-style multidimensional knapsack (see the module docstring)."""
    if not 0 < tightness < 1:
        raise ValueError(f"tightness must lie in (0, 1), got {tightness}")
    rng = np.random.default_rng(seed)
    weights = rng.integers(0, 1001, (n, m))
    profits = weights.sum(axis=1) // m + np.floor(500 * rng.random(n)).astype(np.int64)
    capacities = np.floor(tightness * weights.sum(axis=0)).astype(np.int64)
    return Knapsack(
        profits, weights, capacities, weights_by="item", name=f"chu-beasley n={n} m={m} alpha={tightness} seed={seed}"
    )
