"""The nested surrogate bound of the multiple knapsack. An item of weight w fits only the knapsacks of
capacity at least w, so for every threshold t the items heavier than t share the knapsacks larger than
t:

    sum over items with w_j > t of w_j x_j  <=  sum over knapsacks with c_i > t of c_i,

and t = 0 is the surrogate relaxation's one constraint. With the capacities c_(1) >= ... >= c_(k), the
thresholds that count are the capacities themselves. A 0-1 knapsack over the pooled capacity whose
items are taken heaviest first meets these constraints as prefixes: after the items heavier than
c_(m), no state may weigh more than c_(1) + ... + c_(m-1). Its optimum bounds the multiple knapsack's
(every assignment meets every constraint) and is never above the surrogate's; with dissimilar
capacities (many small knapsacks beside a few large ones) it is much lower, for the small knapsacks'
capacity no longer counts for the heavy items."""

from __future__ import annotations

import numpy as np

#: Marks a state no choice of items reaches within the constraints.
NONE = -(2**62)


def nested_bound(profits: np.ndarray, weights: np.ndarray, capacities: list[int], expired) -> int | None:
    """The bound (a dense DP over the pooled capacity, values only), or None where the time limit
    passes (``expired`` is asked every 64 items)."""
    order = np.argsort(-weights, kind="stable")
    profits, weights = profits[order].astype(np.int64), weights[order].astype(np.int64)
    caps = sorted((int(c) for c in capacities), reverse=True)
    total = sum(caps)
    row = np.full(total + 1, NONE, dtype=np.int64)
    row[0] = 0
    taken, pooled = 0, 0  # items stepped, and the capacity of the knapsacks larger than the next threshold
    for threshold in caps + [-1]:  # -1: the items no capacity rules out, then the whole pool
        while taken < weights.size and int(weights[taken]) > threshold:
            if taken % 64 == 0 and expired():
                return None
            w, p = int(weights[taken]), int(profits[taken])
            if w <= total:
                np.maximum(row[w:], row[: total + 1 - w] + p, out=row[w:])
            taken += 1
        row[pooled + 1 :] = NONE  # the items so far are heavier than every knapsack after these
        pooled += max(threshold, 0)
    return int(row.max())
