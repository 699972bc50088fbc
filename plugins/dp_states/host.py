"""One level of dp-states on the host (NumPy) for short lists, the same arithmetic as
``state_lists.cl``: a short list costs less here than six launches and a read."""

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


def _at_least(x: np.ndarray, y: int, u: np.ndarray, v: int, small: bool = False) -> np.ndarray:
    """x * y >= u * v elementwise for non-negative int64 x, u and 0 <= y, v < 2^63, exactly (the
    kernel's product_at_least); ``small``: the caller knows no product overflows int64."""
    if small:
        return x * y >= u * v
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
    """The current list as one int64 array of rows (W, P, bits, anchor), and the last merged list:
    one array, so that sorting and compacting a short list moves it at once."""

    def __init__(self, W: np.ndarray, P: np.ndarray, bits: np.ndarray, anchor: np.ndarray):
        self.load(W, P, bits, anchor)

    def load(self, W: np.ndarray, P: np.ndarray, bits: np.ndarray, anchor: np.ndarray) -> None:
        """The list from its fields (``DeviceLists.download``'s arrays)."""
        self.states = np.stack(
            [
                np.asarray(W, np.int64),
                np.asarray(P, np.int64),
                np.asarray(bits, np.uint64).view(np.int64),
                np.asarray(anchor, np.int64),
            ],
            axis=1,
        )
        self.merged = self.states

    def fields(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(W, P, bits, anchor) as ``DeviceLists.upload`` takes them."""
        states = self.states
        return (states[:, 0].copy(), states[:, 1].copy(), states[:, 2].view(np.uint64).copy(), states[:, 3].astype(np.uint32))

    @property
    def count(self) -> int:
        return int(self.states.shape[0])

    def level(self, core: Core, level: Level, best: int, reset: bool, bit: int) -> LevelResult:
        """The kernels' five steps in NumPy: merge, dominance, bounds, compaction, the small read."""
        states = self.states
        if reset:
            states = states.copy()
            states[:, 2], states[:, 3] = 0, np.arange(states.shape[0])
        w, p = int(core.weights[level.item]), int(core.profits[level.item])
        signed_bit = bit - 2**64 if bit >= 2**63 else bit  # the level's bit is clear in every state
        both = np.concatenate([states, states + np.array([w, p, signed_bit, 0] if level.add else [-w, -p, signed_bit, 0])])
        merged = both[np.argsort(both[:, 0], kind="stable")]  # two sorted runs: a merge
        weight, profit = merged[:, 0], merged[:, 1]
        keep = _undominated(weight, profit)
        fits = int(np.searchsorted(weight, core.capacity, side="right"))  # the feasible states come first
        result_best, best_at = -1, 0
        if fits:
            best_at = int(np.argmax(profit[:fits]))
            result_best = int(profit[best_at])
        add, remove = core.next_items()
        keep[:fits] &= _promising_fit(weight[:fits], profit[:fits], core.capacity, best, add, core.small)
        keep[fits:] &= _promising_over(weight[fits:], profit[fits:], core.capacity, best, remove, core.small)
        self.merged, self.states = merged, merged[keep]
        return LevelResult(
            self.count, result_best, best_at, _top(self.states, int(np.count_nonzero(keep[:fits])), core.capacity, add)
        )

    def merged_state(self, index: int) -> tuple[int, int]:
        return int(self.merged[index, 2].view(np.uint64)), int(self.merged[index, 3])

    def record(self) -> tuple[np.ndarray, np.ndarray]:
        return self.states[:, 2].view(np.uint64).copy(), self.states[:, 3].astype(np.uint32)


def _undominated(weight: np.ndarray, profit: np.ndarray) -> np.ndarray:
    """States (sorted by weight, each weight at most twice) that no other state dominates: more
    profit than every lighter one, and not less than an equally heavy one (of two equal, the first)."""
    keep = np.empty(weight.size, dtype=bool)
    keep[0] = True
    np.greater(profit[1:], np.maximum.accumulate(profit)[:-1], out=keep[1:])
    keep[:-1] &= ~((weight[1:] == weight[:-1]) & (profit[1:] > profit[:-1]))
    return keep


def _promising_fit(
    weight: np.ndarray, profit: np.ndarray, capacity: int, best: int, add: tuple[int, int] | None, small: bool
) -> np.ndarray:
    """Feasible states that may still beat ``best``: their profit already does, or Dantzig's bound
    with the next item to add, P + (C - W) p_t / w_t, reaches best + 1 (compared exactly)."""
    gap = best + 1 - profit
    if add is None:
        return gap <= 0
    pt, wt = add
    return (gap <= 0) | _at_least(capacity - weight, pt, np.maximum(gap, 0), wt, small)


def _promising_over(
    weight: np.ndarray, profit: np.ndarray, capacity: int, best: int, remove: tuple[int, int] | None, small: bool
) -> np.ndarray:
    """Overweight states that may still beat ``best``: removing the next item to remove at its ratio,
    P - (W - C) p_s / w_s, reaches best + 1 (compared exactly)."""
    if remove is None or weight.size == 0:
        return np.zeros(weight.size, dtype=bool)
    ps, ws = remove
    spare = profit - best - 1
    return (spare >= 0) & _at_least(np.maximum(spare, 0), ws, weight - capacity, ps, small)


def _top(kept: np.ndarray, fits: int, capacity: int, add: tuple[int, int] | None) -> int:
    """The largest bound of the kept states (the first ``fits`` feasible; profits increase along the
    list); -1 where none is kept."""
    top = -1
    if fits:
        top = _largest_bound(kept[:fits, 1], capacity - kept[:fits, 0], *add) if add else int(kept[fits - 1, 1])
    if fits < kept.shape[0]:
        top = max(top, int(kept[-1, 1]))
    return top
