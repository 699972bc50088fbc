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
