"""Pruning a dense DP by a bound against an incumbent: states that cannot lead past it are left out
(as [Pisinger97]'s lists drop a state whose upper bound cannot beat the incumbent).

Where fixing by reduced costs reduced a problem (``clsolve.mkp.fixing``), only solutions better than
its incumbent matter (``Reduction.floor``), and the prices y >= 0 behind the fixing bound what the
items not yet applied can add: for the items k.. (in the DP's order) in a capacity r, by Lagrangian
relaxation,

    best over items k..  <=  y . r + D_k,        D_k = sum_{j >= k} max(0, p_j - y . w_j).

A state c of the DP after item k - 1 (value f(c), capacity c used by the items before k) can reach a
final value of at most f(c) + D_k + y . (C - c); where that is below floor + 1, no solution through
c beats the incumbent, and the DP need not carry c on. Its value is not kept: the next pass treats
it as unreachable, so every value the DP keeps is that of a solution its decision bits trace back.
A solution better than the incumbent passes only through states that pass the test, so the DP
finds it; where none exists, the state of the capacity C fails the test (or its value does not beat
the floor) and the incumbent is the answer.

The test is evaluated in double precision; ``margin`` widens it so that rounding never fails a
state that should pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..problems import Knapsack

#: Relative margin on the double-precision test (in units of its terms' size), plus one unit.
MARGIN = 1e-9


@dataclass(frozen=True)
class Pruning:
    """The test of a DP over ``problem``'s items in their order: ``prices`` (one per constraint, >= 0)
    and the value a solution must beat (``floor``, in the problem's own terms)."""

    problem: Knapsack
    prices: np.ndarray
    floor: int

    def __post_init__(self) -> None:
        if self.prices.shape != (self.problem.m,) or not bool((self.prices >= 0).all() & np.isfinite(self.prices).all()):
            raise ValueError(f"pruning needs {self.problem.m} finite prices >= 0, got {self.prices!r}")

    def _suffix_gains(self) -> np.ndarray:
        """D_k for k = 0..n: what items k.. can add beyond the prices of their weights."""
        gains = np.maximum(self.problem.profits.astype(np.float64) - self.problem.weights.astype(np.float64) @ self.prices, 0.0)
        return np.r_[np.cumsum(gains[::-1])[::-1], 0.0]

    def thresholds(self, ends: np.ndarray) -> np.ndarray:
        """Per pass, given the item each pass ends before (``ends``: the next pass's first item), the
        least f(c) - y . c of a state that may still lead past the floor: floor + 1 - D_end - y . C,
        less the margin."""
        suffix = self._suffix_gains()
        held = float(self.prices @ self.problem.capacities.astype(np.float64))
        scale = abs(float(self.floor)) + float(suffix[0]) + held + float(self.problem.profits.sum())
        margin = MARGIN * scale + 1.0
        return float(self.floor) + 1.0 - suffix[np.asarray(ends, dtype=np.int64)] - held - margin

    def prices3(self) -> tuple[float, float, float]:
        """The prices of the DP's (up to) three capacity dimensions, 0 for those it lacks."""
        padded = np.zeros(3)
        padded[: self.problem.m] = self.prices
        return float(padded[0]), float(padded[1]), float(padded[2])

    def kept(self, values: np.ndarray, capacities: np.ndarray, end: int) -> np.ndarray:
        """The test for states (``values``, ``capacities``: (states, m)) after the items before ``end``,
        evaluated as the kernel does (the same operations in the same order)."""
        threshold = self.thresholds(np.array([end]))[0]
        priced = np.zeros(values.shape, dtype=np.float64)
        for price, column in zip(self.prices3(), capacities.T.astype(np.float64)):
            priced = priced + price * column
        return values.astype(np.float64) - priced >= threshold
