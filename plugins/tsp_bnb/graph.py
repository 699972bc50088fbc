"""The symmetric graph the 1-trees span, as scaled integer costs.

A symmetric TSP is its own graph. An asymmetric one becomes symmetric on 2n vertices ([JV83]'s
transformation): city i is an out-vertex i and an in-vertex n + i joined by a required edge of cost 0,
and going from i to j is the edge {i, n + j} of cost d_ij; no other edge exists. A tour of the 2n
vertices alternates out- and in-vertices, and its out-vertices in the direction that leaves each
out-vertex to an in-vertex are the asymmetric tour, of the same cost.

Costs are multiplied by a scale S (the largest that keeps each below SCALED_LIMIT) so that integer
penalties move in steps of 1/S: a bound of L scaled units proves ceil(L / S)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .device import INF
from .nodes import code
from .tour import from_zero

#: Largest scaled cost (the kernel's penalties stay within 2^26 of 0, and a penalised cost within int32).
SCALED_LIMIT = 2**26
#: Largest scale.
MAX_SCALE = 2**12


@dataclass
class Graph:
    """``cost``: the symmetric scaled costs (INF: no edge); ``scale``; ``required``: edge codes every
    tour takes; ``cities``: the problem's n; ``asymmetric``: whether the graph is the transformation."""

    cost: np.ndarray
    scale: int
    required: tuple[int, ...]
    cities: int
    asymmetric: bool

    @property
    def n(self) -> int:
        return int(self.cost.shape[0])

    def tour(self, vertices: np.ndarray) -> np.ndarray:
        """The problem's tour (from city 0) that a tour of the graph's vertices is."""
        if not self.asymmetric:
            return from_zero(vertices)
        cities = self.cities
        start = vertices if vertices[0] < cities else np.roll(vertices, -1)  # from an out-vertex
        if start[1] == cities + start[0]:  # that walk goes backward: out-vertex to its own in-vertex
            start = np.roll(start[::-1], 1)
        out = [int(v) for v in start if v < cities]
        return from_zero(np.asarray(out, dtype=np.int64))


def largest_cost(distances: np.ndarray) -> int:
    off = distances.copy()
    np.fill_diagonal(off, 0)
    return int(off.max())


def graph(distances: np.ndarray) -> Graph:
    """The graph of a problem whose costs are non-negative and at most SCALED_LIMIT."""
    d = distances.astype(np.int64)
    n = d.shape[0]
    scale = max(1, min(MAX_SCALE, SCALED_LIMIT // max(largest_cost(d), 1)))
    if (d == d.T).all():
        cost = d * scale
        np.fill_diagonal(cost, INF)
        return Graph(cost, scale, (), n, False)
    cost = np.full((2 * n, 2 * n), INF, dtype=np.int64)
    cost[:n, n:] = d * scale
    cost[n:, :n] = (d * scale).T
    idx = np.arange(n)
    cost[idx, n + idx] = 0
    cost[n + idx, idx] = 0
    return Graph(cost, scale, tuple(code(i, n + i, 2 * n) for i in range(n)), n, True)
