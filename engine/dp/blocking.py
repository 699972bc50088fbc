"""Temporal blocking of a row-by-row knapsack DP: which runs of consecutive items a work-group can
apply on chip, its tile and a halo of states below it in local memory, before the tile goes back to
global memory. Item j of a run starting at item i changes state c from c - w_j, so after the run
every state of the tile is exact when the run's weights sum to at most the halo (``fits``); heavier
items keep their one-item passes."""

from __future__ import annotations

import numpy as np


def fits(weights: np.ndarray, halo: int, most: int) -> np.ndarray:
    """For each item, how many items from it on (at most ``most``, within ``weights``) weigh at most
    ``halo`` together (0 for none: an item heavier than the halo on its own)."""
    weights = np.asarray(weights, dtype=np.int64)
    if most < 1 or not weights.size:
        return np.zeros(weights.size, dtype=np.int64)
    sums = np.concatenate([[0], np.cumsum(weights, dtype=np.int64)])
    reach = np.searchsorted(sums, sums[:-1] + halo, side="right") - 1  # the last prefix within the halo
    return np.minimum(reach - np.arange(weights.size), most)


def runs(weights: np.ndarray, halo: int, most: int) -> list[tuple[int, int]]:
    """The items cut into launches, (first item, items): runs of 2 to ``most`` items that fit the halo
    (greedily, longest first from the left), each other item on its own."""
    fit = fits(weights, halo, most).tolist()
    out: list[tuple[int, int]] = []
    item = 0
    while item < len(fit):
        count = fit[item] if fit[item] >= 2 else 1
        out.append((item, count))
        item += count
    return out
