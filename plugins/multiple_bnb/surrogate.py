"""The root of [Pisinger99]'s bound-and-bound for the multiple knapsack: the surrogate relaxation
(every knapsack's capacity pooled into one) solved exactly as a 0-1 knapsack gives the upper bound;
where the items it packs can be split among the knapsacks, each filled in turn (smallest first) by the
subset of those left whose weight comes closest to its capacity, that split is optimal. MTM's lower
bound ([MT90] Section 6.4.2) fills the knapsacks in turn instead, each by the 0-1 knapsack optimum of
the items the earlier ones left (``fill``): with the knapsacks taken largest first and smallest first,
it reaches the surrogate bound on most instances of similar capacities, where the split does not. Both run on
the host over bit strings of reachable weights (Python integers): the 0-1 knapsack's dense DP with a
decision bit per item and capacity, the splits' subset sums with a bit string per item."""

from __future__ import annotations

import numpy as np

from clsolve.sdk import Knapsack, Solution, Timings, stages

#: Capacity x items of the surrogate DP at most (its decision bits on the host).
MAX_CELLS = 4 * 10**8
#: Items each side of the break item in a subset sum's window (``windowed``).
WINDOW = 32


class _TooLarge(Exception):
    """The core's table is too large, or the time limit passed."""


def surrogate(profits: np.ndarray, weights: np.ndarray, capacity: int, expired) -> tuple[int, np.ndarray] | None:
    """The 0-1 knapsack's optimum and items (a flag per item), or None where its table is too large or
    the time limit passes: presolve and fixing by bounds first (MT2's reduction, ``clsolve.sdk.stages``),
    then the dense DP of what is left (``dense``)."""
    live = weights <= capacity
    if not live.any():
        return 0, np.zeros(profits.size, dtype=bool)
    chosen = np.zeros(profits.size, dtype=bool)
    if np.array_equal(profits, weights):  # a subset sum: bounds fix nothing where every ratio is 1
        solved = dense(profits[live], weights[live], capacity, expired)
        if solved is None:
            return None
        chosen[np.flatnonzero(live)[solved[1]]] = True
        return solved[0], chosen
    problem = Knapsack(profits[live], weights[live], capacity)

    def core(searched: Knapsack) -> Solution:
        solved = dense(searched.profits, searched.weights[:, 0], int(searched.capacities[0]), expired)
        if solved is None:
            raise _TooLarge
        return Solution(solved[0], solved[1], True, "multiple-bnb", "", Timings())

    try:
        answer = stages(problem, aggregate=False).solve(core, "multiple-bnb", "")
    except _TooLarge:
        return None
    chosen[np.flatnonzero(live)[answer.selected]] = True
    return int(profits[chosen].sum()), chosen


def dense(profits: np.ndarray, weights: np.ndarray, capacity: int, expired) -> tuple[int, np.ndarray] | None:
    """The 0-1 knapsack by a dense DP with a decision bit per item and capacity: its optimum and items,
    or None where its table is too large or the time limit passes. Where every profit equals its
    weight, the subset sum closest to the capacity (``closest``) is the optimum."""
    n = profits.size
    if n * (capacity + 1) > MAX_CELLS:
        return None
    if np.array_equal(profits, weights):  # a subset sum: the reachable sums as bits, 64 to a word
        chosen = windowed(weights, capacity)
        if chosen is None:
            chosen = np.zeros(n, dtype=bool)
            chosen[closest(weights.tolist(), capacity)] = True
        return int(weights[chosen].sum()), chosen
    row = np.zeros(capacity + 1, dtype=np.int64)
    taken = np.zeros((n, capacity + 1), dtype=bool)
    for j in range(n):
        if j % 64 == 0 and expired():
            return None
        w, p = int(weights[j]), int(profits[j])
        if w > capacity:
            continue
        candidate = row[: capacity + 1 - w] + p
        better = candidate > row[w:]
        row[w:] = np.where(better, candidate, row[w:])
        taken[j, w:] = better
    chosen = np.zeros(n, dtype=bool)
    left = capacity
    for j in range(n - 1, -1, -1):
        if taken[j, left]:
            chosen[j] = True
            left -= int(weights[j])
    return int(row[-1]), chosen


def windowed(weights: np.ndarray, capacity: int, half: int = WINDOW) -> np.ndarray | None:
    """A subset of ``weights`` summing to exactly ``capacity`` (a flag per item: the optimum of the subset
    sum, whose bound is the capacity), or None where this finds none: the items in order until the
    first that does not fit (the break item b), those before b - ``half`` kept, those from b + ``half``
    on left out, and the window between them solved exactly for what the capacity leaves ([Pisinger99]'s
    balanced core for subset sums, in its simplest form)."""
    ends = np.cumsum(weights)
    b = int(np.searchsorted(ends, capacity, side="right"))
    if b >= weights.size:
        return None  # every item fits: the sum is below the capacity or meets it, and the DP says which
    low, high = max(0, b - half), min(weights.size, b + half)
    room = capacity - (int(ends[low - 1]) if low else 0)
    picked = closest(weights[low:high].tolist(), room)
    if int(weights[low:high][picked].sum()) != room:
        return None
    chosen = np.zeros(weights.size, dtype=bool)
    chosen[:low] = True
    chosen[low + np.asarray(picked, dtype=np.int64)] = True
    return chosen


def closest(weights: list[int], capacity: int) -> list[int]:
    """Indices of a subset of ``weights`` whose sum is the largest at most ``capacity``."""
    mask = (1 << (capacity + 1)) - 1
    reach, history = 1, []
    for w in weights:
        history.append(reach)
        reach = (reach | (reach << w)) & mask
    target = reach.bit_length() - 1
    out = []
    for j in range(len(weights) - 1, -1, -1):
        if not (history[j] >> target) & 1:  # the sum needs item j
            out.append(j)
            target -= weights[j]
    return out


def split(weights: np.ndarray, chosen: np.ndarray, capacities: list[int]) -> np.ndarray:
    """A knapsack for each chosen item where the knapsacks, smallest first, each take the subset of
    the chosen items left that fills it closest (-1: an item no knapsack took, or not chosen)."""
    placed = np.full(weights.size, -1, dtype=np.int64)
    left = np.flatnonzero(chosen).tolist()
    for i in np.argsort(capacities, kind="stable").tolist():
        if not left:
            break
        picked = closest([int(weights[j]) for j in left], int(capacities[i]))
        for index in picked:
            placed[left[index]] = i
        left = [j for k, j in enumerate(left) if k not in set(picked)]
    return placed


def fill(profits: np.ndarray, weights: np.ndarray, capacities: list[int], order: list[int], expired) -> np.ndarray | None:
    """MTM's lower bound: the knapsacks in ``order``, each given the 0-1 knapsack optimum of the items
    left (a knapsack per item, -1: out); None where a table is too large or the time limit passes."""
    placed = np.full(weights.size, -1, dtype=np.int64)
    for i in order:
        left = np.flatnonzero(placed < 0)
        fits = left[weights[left] <= capacities[i]]
        if fits.size == 0:
            continue
        solved = surrogate(profits[fits], weights[fits], int(capacities[i]), expired)
        if solved is None:
            return None
        placed[fits[solved[1]]] = i
    return placed
