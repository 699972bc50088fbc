"""One level of dp-states on the host (NumPy) for short lists, the same arithmetic as
``opencl/state_lists.cl``: a short list costs less here than five launches and a read."""
from __future__ import annotations

import numpy as np

from .core import Core, Level
from .device import LevelResult

#: Lists of at most this many states are merged on the host; the device takes longer ones.
HOST_STATES = 4096


_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


def _product(x: np.ndarray, y: int) -> tuple[np.ndarray, np.ndarray]:
    """x * y as 128-bit (high, low) uint64 words, for non-negative int64 x and 0 <= y < 2^63."""
    x = x.astype(np.uint64)
    xl, xh = x & _LOW, x >> _SHIFT
    yl, yh = np.uint64(y & 0xFFFFFFFF), np.uint64(y >> 32)
    ll, lh, hl, hh = xl * yl, xl * yh, xh * yl, xh * yh
    middle = (ll >> _SHIFT) + (lh & _LOW) + (hl & _LOW)
    low = (ll & _LOW) | ((middle & _LOW) << _SHIFT)
    high = hh + (lh >> _SHIFT) + (hl >> _SHIFT) + (middle >> _SHIFT)
    return high, low


def _at_least(x: np.ndarray, y: int, u: np.ndarray, v: int) -> np.ndarray:
    """x * y >= u * v elementwise for non-negative int64 x, u and 0 <= y, v < 2^63, exactly (the
    kernel's product_at_least)."""
    if x.size == 0:
        return np.zeros(0, dtype=bool)
    if int(x.max()) <= (2**63 - 1) // max(y, 1) and int(u.max()) <= (2**63 - 1) // max(v, 1):
        return x * y >= u * v  # no product can overflow
    high1, low1 = _product(x, y)
    high2, low2 = _product(u, v)
    return (high1 > high2) | ((high1 == high2) & (low1 >= low2))


def _largest_bound(P: np.ndarray, room: np.ndarray, p: int, w: int) -> int:
    """An upper bound on max(P + room * p / w): in double precision, rounded up with a margin."""
    value = float(np.max(P + room.astype(np.float64) * (p / w)))
    return min(2**63 - 1, int(value + abs(value) * 2**-48) + 2)


class HostLists:
    """The current list in NumPy arrays (W, P, bits, anchor), and the last merged list."""

    def __init__(self, W: np.ndarray, P: np.ndarray, bits: np.ndarray, anchor: np.ndarray):
        self.W, self.P, self.bits, self.anchor = W, P, bits, anchor
        self.merged: tuple[np.ndarray, np.ndarray] = (bits, anchor)

    @property
    def count(self) -> int:
        return int(self.W.size)

    # long: the kernels' five steps in NumPy, kept side by side with them
    def level(self, core: Core, level: Level, best: int, reset: bool, bit: int) -> LevelResult:
        n = self.count
        w, p = int(core.weights[level.item]), int(core.profits[level.item])
        dw, dp = (w, p) if level.add else (-w, -p)
        bits = np.zeros(n, np.uint64) if reset else self.bits
        anchor = np.arange(n, dtype=np.uint32) if reset else self.anchor
        weight = np.concatenate([self.W, self.W + dw])
        profit = np.concatenate([self.P, self.P + dp])
        merged_bits = np.concatenate([bits, bits | np.uint64(bit)])
        merged_anchor = np.concatenate([anchor, anchor])
        order = np.lexsort((-profit, weight))  # weight ascending, the more profitable first among equal weight
        weight, profit, merged_bits, merged_anchor = weight[order], profit[order], merged_bits[order], merged_anchor[order]
        seen = np.concatenate([[-1], np.maximum.accumulate(profit)[:-1]])
        keep = profit > seen
        capacity = core.capacity
        feasible = weight <= capacity
        result_best, best_at = -1, 0
        if feasible.any():
            best_at = int(np.argmax(np.where(feasible, profit, -1)))
            result_best = int(profit[best_at])
        add, remove = core.next_items()
        promising = np.zeros(weight.size, dtype=bool)
        gap = best + 1 - profit
        if add is not None:
            pt, wt = add
            room = np.where(feasible, capacity - weight, 0)
            promising[feasible] = (gap[feasible] <= 0) | _at_least(room[feasible], pt, np.maximum(gap[feasible], 0), wt)
        else:
            promising[feasible] = gap[feasible] <= 0
        if remove is not None:
            ps, ws = remove
            over = ~feasible
            spare = profit[over] - best - 1
            ok = spare >= 0
            test = np.zeros(spare.size, dtype=bool)
            test[ok] = _at_least(spare[ok], ws, weight[over][ok] - capacity, ps)
            promising[over] = test
        keep &= promising
        top = -1
        if keep.any():
            kept_feasible = keep & feasible
            if add is not None and kept_feasible.any():
                top = _largest_bound(profit[kept_feasible], capacity - weight[kept_feasible], *add)
            elif kept_feasible.any():
                top = int(profit[kept_feasible].max())
            if (keep & ~feasible).any():
                top = max(top, int(profit[keep & ~feasible].max()))
        self.merged = (merged_bits, merged_anchor)
        self.W, self.P, self.bits, self.anchor = weight[keep], profit[keep], merged_bits[keep], merged_anchor[keep]
        return LevelResult(self.count, result_best, best_at, top)

    def merged_state(self, index: int) -> tuple[int, int]:
        return int(self.merged[0][index]), int(self.merged[1][index])

    def record(self) -> tuple[np.ndarray, np.ndarray]:
        return self.bits.copy(), self.anchor.copy()
