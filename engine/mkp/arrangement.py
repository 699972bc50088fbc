"""The LP relaxation's duals for two constraints, exactly: a walk on an arrangement of lines.

With capacities c and prices y >= 0, the Lagrangian bound g(y) = y . c + sum_j max(0, p_j - y . w_j)
is convex and piecewise linear in the plane of y, linear inside every cell of the arrangement of the
lines p_j = y . w_j (one per item) and the two axes; its least value over y >= 0 is the LP bound
(LP duality). A least point lies at a vertex of the arrangement, and a vertex from which no line
through it descends is a least point (g is linear on each sector the lines cut around it, so it rises
in every direction there, and convexity makes that global). The walk starts at y = 0, takes the
least vertex on a line through the current vertex (g is evaluated at the line's intersections with every
other line at once), and moves to the least vertex of another line through it while that is lower.
"""

from __future__ import annotations

import numpy as np

#: Lines searched at most (each one evaluation of g at up to n + 2 points).
LINES = 16
#: Relative tolerance for "the line passes through the vertex".
THROUGH = 1e-9


def duals(profits: np.ndarray, weights: np.ndarray, capacities: np.ndarray) -> tuple[np.ndarray, float]:
    """Prices y >= 0 of two constraints that minimise g (to rounding) and g(y), the LP bound."""
    p = profits.astype(np.float64)
    w = weights.astype(np.float64)  # (n, 2)
    c = capacities.astype(np.float64)
    lines = np.vstack([np.column_stack([w, p]), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])  # a y1 + b y2 = r
    best_y, best = np.zeros(2), _bound(p, w, c, np.zeros((1, 2)))[0]
    searched: set[int] = set()
    todo = _through(lines, best_y)  # the axes, and items of no profit
    while todo and len(searched) < LINES:
        line = todo.pop()
        searched.add(line)
        y, value = _least_on(p, w, c, lines, line)
        if value < best:
            best_y, best = y, value
            todo = [k for k in _through(lines, best_y) if k not in searched]
    return best_y, float(best)


def _least_on(p: np.ndarray, w: np.ndarray, c: np.ndarray, lines: np.ndarray, line: int) -> tuple[np.ndarray, float]:
    """The least value of g at the intersections of ``line`` with the others inside y >= 0."""
    a, b, r = lines[line]
    det = a * lines[:, 1] - b * lines[:, 0]
    ok = np.abs(det) > 0
    safe = np.where(ok, det, 1.0)
    y = np.column_stack([(r * lines[:, 1] - b * lines[:, 2]) / safe, (a * lines[:, 2] - r * lines[:, 0]) / safe])
    y = np.maximum(y[ok & (y >= -1e-12 * (1 + np.abs(y))).all(axis=1)], 0.0)
    if not y.size:
        return np.zeros(2), np.inf
    values = _bound(p, w, c, y)
    k = int(np.argmin(values))
    return y[k], float(values[k])


def _bound(p: np.ndarray, w: np.ndarray, c: np.ndarray, y: np.ndarray) -> np.ndarray:
    """g at each row of ``y``."""
    return y @ c + np.maximum(p[None, :] - y @ w.T, 0.0).sum(axis=1)


def _through(lines: np.ndarray, y: np.ndarray) -> list[int]:
    """The lines through the point ``y``."""
    residual = np.abs(lines[:, :2] @ y - lines[:, 2])
    scale = np.abs(lines[:, :2]) @ np.abs(y) + np.abs(lines[:, 2])
    return np.flatnonzero(residual <= THROUGH * np.maximum(scale, 1e-300)).tolist()
