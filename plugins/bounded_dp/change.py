"""Change-making by depth-first search before the dense DP ([MT90] Section 5.6, MTC2's enumeration):
the coin values in decreasing order, each taken as many times as it can and then fewer; a node is cut
where the coins used plus the fewest that could make the rest with the largest values left
(ceil(rest / w_j) where coins are unlimited; the largest coins within their limits until they reach
it otherwise) cannot beat the incumbent, where the rest is not a multiple of the greatest common
divisor of the values left, or where those values' coins cannot reach it. Taking fewer coins of w_j
only raises the next bound (each coin given up is replaced by at least w_j / w_(j+1) > 1 of the
smaller ones), so the counts of a value stop at the first that is cut.

The search has a node budget: it ends with the optimum (or the proof that no coins sum to the
capacity) on most random instances in a few thousand nodes, and gives way to the DP otherwise."""

from __future__ import annotations

import math
import sys
from bisect import bisect_left
from itertools import accumulate

import numpy as np

#: Nodes the search may visit before it gives way to the DP.
NODE_BUDGET = 50_000
#: Distinct coin values at most (the search recurses a value deep).
MAX_VALUES = 2_000


class _Exhausted(Exception):
    """The node budget ran out."""


class Search:
    """The search over distinct coin ``values`` (decreasing) with ``limits`` (None: unlimited)."""

    def __init__(self, values: list[int], limits: list[int] | None, capacity: int):
        self.values, self.limits, self.capacity = values, limits, capacity
        n = len(values)
        self.divisors = [0] * (n + 1)
        self.reach: list[float] = [0.0] * (n + 1)
        for j in range(n - 1, -1, -1):
            self.divisors[j] = math.gcd(values[j], self.divisors[j + 1])
            self.reach[j] = math.inf if limits is None else self.reach[j + 1] + limits[j] * values[j]
        # limited coins: the values of all coins and their number up to each value, for the bound
        self.pooled = [0, *accumulate(b * v for b, v in zip(limits, values))] if limits is not None else None
        self.coins = [0, *accumulate(limits)] if limits is not None else None
        self.best: float = math.inf
        self.taken: list[int] | None = None
        self.nodes = 0
        self.counts = [0] * n

    def run(self, budget: int) -> bool:
        """Search with at most ``budget`` nodes: True where it ended (``taken`` holds the optimum, or is
        None where no coins sum to the capacity)."""
        depth = sys.getrecursionlimit()
        sys.setrecursionlimit(max(depth, 2 * len(self.values) + 200))
        try:
            self._visit(0, self.capacity, 0, budget)
            return True
        except _Exhausted:
            return False
        finally:
            sys.setrecursionlimit(depth)

    def _fewest(self, j: int, rest: int) -> int:
        """A lower bound of the coins of values j.. that make ``rest``: ceil(rest / w_j) where coins are
        unlimited; else the largest coins left, as many as their limits allow, until they reach it."""
        if self.pooled is None or self.coins is None or self.limits is None:
            return -(-rest // self.values[j])
        target = self.pooled[j] + rest
        i = bisect_left(self.pooled, target) - 1  # values j .. i - 1 whole stay below rest; value i ends it
        return self.coins[i] - self.coins[j] + -(-(target - self.pooled[i]) // self.values[i])

    def _visit(self, j: int, rest: int, used: int, budget: int) -> None:
        self.nodes += 1
        if self.nodes > budget:
            raise _Exhausted
        if rest == 0:
            if used < self.best:
                self.best, self.taken = used, list(self.counts)
            return
        values = self.values
        if j == len(values) or rest % self.divisors[j] or self.reach[j] < rest or used + self._fewest(j, rest) >= self.best:
            return
        w = values[j]
        top = rest // w if self.limits is None else min(rest // w, self.limits[j])
        last = j + 1 == len(values)
        for k in range(top, -1, -1):
            left = rest - k * w
            if last and left:
                break  # the last value: only an exact sum counts, and fewer coins leave more
            if not last and used + k + -(-left // values[j + 1]) >= self.best:
                break  # fewer coins of w only raise the bound
            self.counts[j] = k
            self._visit(j + 1, left, used + k, budget)
        self.counts[j] = 0


def searched(weights: np.ndarray, counts: np.ndarray | None, capacity: int) -> tuple[bool, np.ndarray | None, int]:
    """(ended, counts per coin or None where no coins sum to ``capacity``, nodes) of the search over
    ``weights`` (coin values, each usable ``counts`` times; None: unlimited); ``ended`` False where the
    budget ran out or the values are too many."""
    values = sorted({int(w) for w in weights.tolist()}, reverse=True)
    if len(values) > MAX_VALUES:
        return False, None, 0
    limits = None
    if counts is not None:
        pooled: dict[int, int] = {}
        for w, b in zip(weights.tolist(), counts.tolist()):
            pooled[w] = pooled.get(w, 0) + b
        limits = [pooled[v] for v in values]
    search = Search(values, limits, capacity)
    if not search.run(NODE_BUDGET):
        return False, None, search.nodes
    if search.taken is None:
        return True, None, search.nodes
    return True, _spread(weights, counts, dict(zip(values, search.taken))), search.nodes


def _spread(weights: np.ndarray, counts: np.ndarray | None, per_value: dict[int, int]) -> np.ndarray:
    """The coins of each value spread over the items of that value, each within its count."""
    out = np.zeros(weights.size, dtype=np.int64)
    for j, w in enumerate(weights.tolist()):
        left = per_value.get(w, 0)
        take = left if counts is None else min(left, int(counts[j]))
        out[j] = take
        per_value[w] = left - take
    return out
