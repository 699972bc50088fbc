"""The greedy completion every part of mkp-bnb uses: items in a given order, each taken where it still
fits every capacity. The longest prefix that fits is taken at once (prefix sums); after it, at most
GREEDY_ITEMS items are looked at one by one, so a completion stays cheap however many items are left."""

from __future__ import annotations

import numpy as np

#: Items after the first that does not fit that a completion looks at, at most.
GREEDY_ITEMS = 2048


def fill(weights: np.ndarray, room: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Indices (into ``weights``, in ``order``'s order) of the items a greedy completion takes with
    capacities ``room``."""
    if order.size == 0:
        return order.astype(np.int64)
    sums = np.cumsum(weights[order], axis=0)
    fits = (sums <= room).all(axis=1)
    prefix = int(np.argmin(fits)) if not fits.all() else order.size
    taken = order[:prefix].tolist()
    left = (room - (sums[prefix - 1] if prefix else 0)).tolist()
    rest = order[prefix + 1 : prefix + 1 + GREEDY_ITEMS]
    rows = weights[rest]
    fitting = (rows <= np.asarray(left)).all(axis=1)  # an item that does not fit now never will
    rest, rows = rest[fitting], rows[fitting]
    for j, row in zip(rest.tolist(), rows.tolist()):  # Python integers: exact, and fast per item
        if all(a <= b for a, b in zip(row, left)):
            left = [b - a for a, b in zip(row, left)]
            taken.append(j)
    return np.asarray(taken, dtype=np.int64)


def ratio_order(profits: np.ndarray, weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Items by decreasing p_j / (u . w_j) (weightless items first)."""
    scale = weights.astype(np.float64) @ u
    return np.argsort(-np.where(scale > 0, profits / np.where(scale > 0, scale, 1.0), np.inf), kind="stable")
