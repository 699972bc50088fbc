"""Improving a multiple-choice answer by swaps: in one class, the item chosen exchanged for another of
the same class that still fits and earns more; each round takes the swap that gains most, until none
gains or the time is up. From the Lagrangian rounding this fills the capacity left to the unit where
many classes offer small weight steps (the subset-sum and strongly correlated families, whose profit
steps follow their weight steps), which the state lists' completions by each class's best item do
not."""

from __future__ import annotations

import numpy as np

from clsolve.sdk import deadline

#: Seconds the swaps may take at most (and a quarter of what a time limit leaves).
SWAP_SECONDS = 0.5


def improve(weights: np.ndarray, profits: np.ndarray, starts: np.ndarray, chosen: np.ndarray, capacity: int) -> np.ndarray:
    """``chosen`` (a flat item index per class, feasible) improved by swaps within classes; ``starts``:
    where each class's items begin in the flat arrays."""
    n = weights.size
    owner = np.repeat(np.arange(starts.size), np.diff(np.append(starts, n)))
    chosen = chosen.copy()
    load = int(weights[chosen].sum())
    watch = deadline.Stopwatch()
    seconds = min(SWAP_SECONDS, deadline.remaining() / 4)
    while watch.seconds < seconds:
        steps = weights - weights[chosen][owner]
        gains = np.where(steps <= capacity - load, profits - profits[chosen][owner], 0)
        j = int(np.argmax(gains))
        if gains[j] <= 0:
            break
        load += int(steps[j])
        chosen[owner[j]] = j
    return chosen


def exchange(
    weights: np.ndarray, profits: np.ndarray, starts: np.ndarray, chosen: np.ndarray, capacity: int, target: int | None = None
) -> np.ndarray:
    """``chosen`` improved by pairs of steps: one class down to its next lighter item, another up to its
    next heavier one (each class's items lightest first, undominated: profit rises with weight), the
    pair that gains most within the capacity left, until none gains, the value reaches ``target`` (a
    bound: nothing more to find) or the time is up. Where a class's
    single step up no longer fits (the capacity left is below every step), such a pair can still fill
    it: on the strongly correlated family, to the unit."""
    ends = np.append(starts[1:], weights.size)
    chosen = chosen.copy()
    load, value = int(weights[chosen].sum()), int(profits[chosen].sum())
    watch = deadline.Stopwatch()
    seconds = min(SWAP_SECONDS, deadline.remaining() / 4)
    classes = np.arange(starts.size)
    while watch.seconds < seconds and (target is None or value < target):
        can_down, can_up = chosen > starts, chosen + 1 < ends
        down, up = np.where(can_down, chosen - 1, chosen), np.where(can_up, chosen + 1, chosen)
        down_w, down_p = weights[down] - weights[chosen], np.where(can_down, profits[down] - profits[chosen], -(2**60))
        up_w, up_p = weights[up] - weights[chosen], np.where(can_up, profits[up] - profits[chosen], -(2**60))
        by = np.argsort(up_w, kind="stable")
        best = np.maximum.accumulate(up_p[by])  # the best gain up among the steps no heavier
        at = by[_last_max(up_p[by])]  # ... and the class it is in
        reach = np.searchsorted(up_w[by], capacity - load - down_w, side="right") - 1  # per class stepping down
        partner = np.where(reach >= 0, at[np.maximum(reach, 0)], -1)
        gain = np.where((reach >= 0) & (partner != classes), down_p + best[np.maximum(reach, 0)], 0)
        a = int(np.argmax(gain))
        if gain[a] <= 0:
            break
        b = int(partner[a])
        load += int(down_w[a]) + int(up_w[b])
        value += int(gain[a])
        chosen[a], chosen[b] = down[a], up[b]
    return chosen


def _last_max(values: np.ndarray) -> np.ndarray:
    """For each position, the position of the largest value up to it (the first of ties)."""
    running = np.maximum.accumulate(values)
    fresh = np.concatenate(([True], running[1:] > running[:-1]))
    return np.maximum.accumulate(np.where(fresh, np.arange(values.size), 0))
