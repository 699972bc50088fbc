"""Improving a 0-1 knapsack solution (m = 1) by exchanges: the incumbent that variable fixing and the
searches start from.

A move takes items out of the solution and puts others in; it keeps the solution feasible and raises
its profit. The moves of a round:

1. one item in, or one item out and one in: for every item of the solution, the most profitable item
   outside it that fits in its place (the items outside sorted by weight, a running maximum of their
   profits, a binary search per item);
2. up to two items out and up to two in, among the SIZE items of the solution last in ratio order
   and the SIZE items outside it first in ratio order (64 first, more where those do not reach the
   target) (the items around the break item, where an
   optimal solution differs from the greedy one): every set of at most two on each side, the sets
   coming in sorted by weight with a running maximum of their profits, a binary search per set going
   out.

Each round takes the move that gains most. From the break solution the pairs of the second kind
reach room of any size to the unit where single swaps leave a remainder no later swap can fill.

Instances whose bounds are tight but whose greedy solution leaves room (strongly correlated, subset
sum, profit ceiling, with large weights) reach their bound this way: the room is filled to the unit.
"""

from __future__ import annotations

import numpy as np

from clsolve.sdk import deadline

#: Items on each side of the two-item moves: the fewest first, more only where those do not reach the
#: target (pairs of 64 items already fill most rooms to the unit; 2048 cost a second a round).
SIZES = (64, 512, 2048)

#: After the first move, a move that closes less than this share of the gap to the target ends the
#: exchanges.
MIN_SHARE = 0.1

Move = tuple[int, list[int], list[int]]


def improve(
    profits: np.ndarray, weights: np.ndarray, capacity: int, chosen: np.ndarray, order: np.ndarray, target: int, seconds: float
) -> tuple[np.ndarray, int]:
    """``chosen`` (bool, feasible) improved by moves until none improves it, its profit reaches
    ``target`` (a bound: nothing better exists) or ``seconds`` have passed; ``order``: the items in
    ratio order. Returns the solution and the moves made."""
    x = chosen.copy()
    room, value = capacity - int(weights[x].sum()), int(profits[x].sum())
    watch, moves = deadline.Stopwatch(), 0
    while value < target and watch.seconds < seconds:
        candidates = (_single(profits, weights, x, room), *_doubles(profits, weights, x, room, order, target - value))
        found = [move for move in candidates if move is not None]
        if not found:
            break
        gain, out, into = max(found, key=lambda move: move[0])
        if moves and gain < MIN_SHARE * (target - value):
            break  # small steps toward a bound that may be far from the optimum
        x[out], x[into] = False, True
        room += int(weights[out].sum()) - int(weights[into].sum())
        value += gain
        moves += 1
    return x, moves


def _running_max(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The running maximum of ``values`` and, for each position, an index where it is reached."""
    maxima = np.maximum.accumulate(values)
    at = np.maximum.accumulate(np.where(values == maxima, np.arange(values.size), 0))
    return maxima, at


def _single(p: np.ndarray, w: np.ndarray, x: np.ndarray, room: int) -> Move | None:
    """The best move of one item in, or one out and one in (None: no such move gains)."""
    inside, outside = np.flatnonzero(x), np.flatnonzero(~x)
    if outside.size == 0:
        return None
    by_weight = outside[np.argsort(w[outside], kind="stable")]
    best, at = _running_max(p[by_weight])
    out_weights = w[by_weight]
    move: Move | None = None
    k = int(np.searchsorted(out_weights, room, side="right")) - 1
    if k >= 0 and best[k] > 0:
        move = (int(best[k]), [], [int(by_weight[at[k]])])
    if inside.size:
        fit = np.searchsorted(out_weights, w[inside] + room, side="right") - 1
        gains = np.where(fit >= 0, best[np.maximum(fit, 0)] - p[inside], -1)
        t = int(np.argmax(gains))
        if gains[t] > (0 if move is None else move[0]):
            move = (int(gains[t]), [int(inside[t])], [int(by_weight[at[fit[t]]])])
    return move


def _sets(items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every set of at most two of ``items``: (first, second) with -1 for none, the empty set first."""
    first, second = np.triu_indices(items.size, 1)
    none = np.full(items.size + 1, -1)
    return (np.concatenate([none, items[first]]), np.concatenate([[-1], items, items[second]]))


def _doubles(p: np.ndarray, w: np.ndarray, x: np.ndarray, room: int, order: np.ndarray, gap: int) -> list[Move | None]:
    """The best moves of ``_double`` over SIZES items a side, up to the first that closes ``gap``."""
    out: list[Move | None] = []
    for size in SIZES:
        out.append(_double(p, w, x, room, order, size))
        if out[-1] is not None and out[-1][0] >= gap:
            break
    return out


def _double(p: np.ndarray, w: np.ndarray, x: np.ndarray, room: int, order: np.ndarray, size: int) -> Move | None:
    """The best move of at most two items out and two in among the ``size`` items on each side of the
    break item (None: none gains)."""
    by_ratio = x[order]
    out_first, out_second = _sets(order[by_ratio][-size:])
    in_first, in_second = _sets(order[~by_ratio][:size])
    if in_first.size < 2:
        return None
    wp, pp = np.append(w, 0), np.append(p, 0)  # index -1: no item
    in_weight = wp[in_first] + wp[in_second]
    by_weight = np.argsort(in_weight, kind="stable")
    best, at = _running_max((pp[in_first] + pp[in_second])[by_weight])
    fit = np.searchsorted(in_weight[by_weight], wp[out_first] + wp[out_second] + room, side="right") - 1
    gains = np.where(fit >= 0, best[np.maximum(fit, 0)] - pp[out_first] - pp[out_second], -1)
    t = int(np.argmax(gains))
    if gains[t] <= 0:
        return None
    k = by_weight[at[fit[t]]]
    out = [int(i) for i in (out_first[t], out_second[t]) if i >= 0]
    into = [int(i) for i in (in_first[k], in_second[k]) if i >= 0]
    return int(gains[t]), out, into
