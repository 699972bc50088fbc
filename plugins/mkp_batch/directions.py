"""Directions of surrogate multipliers for a batch of small multidimensional knapsacks: points d of the
simplex (d >= 0, sum d = 1), taken as u_j = d_j / C_j by ``mkp_batch.cl``, which keeps for
each problem the direction whose surrogate LP bound is least ([GP85]).

Every direction gives a valid bound; more directions come closer to the LP bound (for m = 2 the
least over all directions is the LP bound itself, the LP dual being a point of that ray) at the cost
of one O(n^2) evaluation each.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np

#: Directions per m: m = 2 gets an even grid of the segment; m >= 3 the vertices, the centre, the
#: midpoints of pairs of vertices (while they are few) and fixed pseudo-random points.
COUNT = 33
#: The seed of the pseudo-random points (the table is the same on every call).
SEED = 2024


def of(m: int) -> np.ndarray:
    """The directions for m dimensions, shape (count, m); one zero-width row for m = 0."""
    if m == 0:
        return np.zeros((1, 0))
    if m == 1:
        return np.ones((1, 1))
    if m == 2:
        t = np.linspace(0.0, 1.0, COUNT)
        return np.column_stack([t, 1.0 - t])
    rows = [np.full(m, 1.0 / m), *np.eye(m)]
    rows += [(a + b) / 2 for a, b in combinations(np.eye(m), 2)][: max(COUNT - len(rows), 0)]
    extra = COUNT - len(rows)
    if extra > 0:
        rows += list(np.random.default_rng(SEED).dirichlet(np.ones(m), size=extra))
    return np.asarray(rows[: max(COUNT, m + 1)])


@cache
def table(widths: int) -> tuple[np.ndarray, np.ndarray]:
    """The directions of every m from 0 to ``widths``, as rows of ``widths`` entries (zero past m),
    and the first row of each m (``widths + 2`` offsets): the kernel's ``directions`` and
    ``direction_rows``."""
    parts = [of(m) for m in range(widths + 1)]
    rows = np.zeros(widths + 2, dtype=np.uint32)
    np.cumsum([len(p) for p in parts], out=rows[1:])
    out = np.zeros((int(rows[-1]), max(widths, 1)))
    for m, part in enumerate(parts):
        out[rows[m] : rows[m + 1], :m] = part
    out.flags.writeable = rows.flags.writeable = False  # shared by every call (cached)
    return out, rows
