"""The root's subtour LP ([DFJ54]'s relaxation, the bound Held-Karp's ascent approaches) solved by HiGHS
(``highspy``, where it is installed): an edge variable x_e in [0, 1] per edge of the graph (required
edges fixed at 1), degree 2 at every vertex, and subtour cuts x(delta(S)) >= 2 added while the
support's global minimum cut (Stoer and Wagner's) is below 2. Its answer serves three ways:

- its value is a lower bound of every tour (``Search.floor``);
- an edge whose reduced cost d_e > 0 would raise any tour to at least LP + d_e, so where that passes
  what a better tour may cost the edge leaves the graph (LP reduced-cost fixing): with y the row
  duals, c x >= y b + d x = LP + sum_{d_e > 0} d_e x_e + sum_{d_e < 0} |d_e| (1 - x_e);
- an integral answer that is one tour is an optimal tour.

The 1-tree ascent converges slowly on some instances (TSPLIB's pr107 and p43), where this bound is
tight at once."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass

import numpy as np

from clsolve.sdk import deadline

from .device import INF
from .nodes import cycle

#: Vertices the LP takes at most (the minimum cut is O(n^3) on the host).
LP_VERTICES = 300
#: Cut rounds at most.
ROUNDS = 200
#: Tolerance of the LP's values and cuts.
EPSILON = 1e-6


#: One HiGHS instance, made once with its banner kept off standard output (HiGHS prints it as the
#: instance is made, before any option can silence it), its solves one at a time.
_SOLVER: list = []
_LOCK = threading.Lock()


def _highs():
    """The shared HiGHS instance, its model cleared (call with ``_LOCK`` held)."""
    import highspy

    if not _SOLVER:
        sys.stdout.flush()
        saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            _SOLVER.append(highspy.Highs())
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)
    h = _SOLVER[0]
    h.clearModel()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    return h


def available() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class Relaxed:
    """The LP's value (scaled costs), each graph edge's reduced cost (an n x n matrix, 0 off the
    graph) and, where its answer is one tour, that tour's vertices."""

    value: float
    reduced: np.ndarray
    tour: np.ndarray | None


def minimum_cut(weights: np.ndarray) -> tuple[float, np.ndarray]:
    """Stoer and Wagner's global minimum cut of a symmetric weight matrix (zero diagonal): its value
    and one side. Each phase adds the vertex most tightly linked to those added; the last one's link
    is a cut, and it merges into the one before."""
    n = weights.shape[0]
    w = weights.astype(np.float64).copy()
    np.fill_diagonal(w, 0.0)
    members = [[v] for v in range(n)]
    alive = np.ones(n, dtype=bool)
    best, side = np.inf, np.zeros(n, dtype=bool)
    for _ in range(n - 1):
        start = int(np.flatnonzero(alive)[0])
        added = ~alive
        added[start] = True
        link, before, last = w[start].copy(), start, start
        for _ in range(int(alive.sum()) - 1):
            nxt = int(np.argmax(np.where(added, -1.0, link)))
            added[nxt] = True
            before, last = last, nxt
            link += w[nxt]
        if link[last] < best:
            best, side = float(link[last]), np.zeros(n, dtype=bool)
            side[members[last]] = True
        w[before] += w[last]
        w[:, before] += w[:, last]
        w[before, before] = 0.0
        w[last] = 0.0
        w[:, last] = 0.0
        members[before] += members[last]
        alive[last] = False
    return best, side


def relaxed(cost: np.ndarray, required: tuple[int, ...], seconds: float) -> Relaxed | None:
    """The subtour LP of the graph ``cost`` (INF: no edge) with ``required`` edges (codes) fixed, within
    ``seconds`` of cut rounds; None where the LP cannot be had (too many vertices, or infeasible)."""
    if cost.shape[0] > LP_VERTICES:
        return None
    with _LOCK:
        return _solved(_highs(), cost, required, seconds)


def _solved(h, cost: np.ndarray, required: tuple[int, ...], seconds: float) -> Relaxed | None:
    import highspy

    n = cost.shape[0]
    a, b = np.triu_indices(n, 1)
    keep = cost[a, b] < INF
    a, b = a[keep], b[keep]
    count = a.size
    lower = np.zeros(count)
    lower[np.isin(a * n + b, np.asarray(required, dtype=np.int64))] = 1.0
    h.addVars(count, lower, np.ones(count))
    h.changeColsCost(count, np.arange(count, dtype=np.int32), cost[a, b].astype(np.float64))
    for v in range(n):
        at = np.flatnonzero((a == v) | (b == v)).astype(np.int32)
        h.addRow(2.0, 2.0, at.size, at, np.ones(at.size))
    watch = deadline.Stopwatch()
    for _ in range(ROUNDS):
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(h.getSolution().col_value)
        support = np.zeros((n, n))
        support[a, b] = support[b, a] = x
        value, side = minimum_cut(support)
        if value >= 2.0 - EPSILON or watch.seconds > seconds:
            break
        across = np.flatnonzero(side[a] != side[b]).astype(np.int32)
        h.addRow(2.0, highspy.kHighsInf, across.size, across, np.ones(across.size))
    reduced = np.zeros((n, n))
    reduced[a, b] = reduced[b, a] = np.asarray(h.getSolution().col_dual)
    objective = float(h.getInfo().objective_function_value)
    return Relaxed(objective, reduced, _tour(x, a, b, n))


def _tour(x: np.ndarray, a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray | None:
    """The vertices of the one tour an integral answer is, from vertex 0 (None otherwise)."""
    if np.any((x > EPSILON) & (x < 1 - EPSILON)):
        return None
    chosen = x > 0.5
    return cycle(a[chosen], b[chosen], n)


def forbidden(lp: Relaxed, cost: np.ndarray, upper: int, required: tuple[int, ...]) -> np.ndarray:
    """The edges no tour costing at most ``upper`` (scaled) takes: LP + d_e past it (with a margin
    for the LP's floating point); never a required edge (fixed at 1, its d_e says nothing)."""
    n = cost.shape[0]
    slack = 1e-6 * max(1.0, abs(lp.value)) + 1e-3
    mask = (lp.reduced > 0) & (lp.value + lp.reduced > upper + slack) & (cost < INF)
    np.fill_diagonal(mask, False)
    for c in required:
        u, v = divmod(c, n)
        mask[u, v] = mask[v, u] = False
    return mask
