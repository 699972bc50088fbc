"""The rounded relaxation's rows: an upper bound for every state that sees what Dantzig's bound
cannot, that the weights left may not fill the capacity left.

At a level, the items outside the core are those every state still takes (L: 0..s, weight w(L),
profit p(L)) and those none takes yet (t+1..n-1). What a state (W, P) can still become is a 0-1
knapsack over all of them with capacity C - W + w(L) and profit offset P - p(L) (removing an item of L
is not taking it). Rounding each weight down to a multiple of ``grain`` can only enlarge the feasible
set, so the optimum of that knapsack is at most F[(C - W + w(L)) // grain], where F is the dense DP row
over the rounded weights (``width`` = C // grain + 1 entries). Dantzig's bound fills the capacity left
at the next item's ratio; F knows which sums of weights exist, to within one grain per item, so on
instances whose weights cluster (Jooken et al.'s groups around C / 2^k) it is far stronger. The same
relaxation with grain 1 is the exact DP.

The rows are made once a problem, when the lists of its first search go to the device or when the
descent asks for the bound of the whole problem (``shared.Shared``): one DP over all items in reverse
order of their levels (one launch of ``relaxed_item`` per item, ``state_lists.cl``), with the
row kept every ``stride`` levels; the searches of the problem (the descent's guesses and the plain
search) share them. A level uses the row of the nearest set of items that holds its outside items (a
superset: the bound stays valid, a little weaker).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import POISON_BYTE, Device, Pacer, Plan, Program, Workspace, fill

from .core import Core

#: Default number of entries of a row (the rounded capacities 0..width-1) on a GPU and on other
#: devices. On the H100, Jooken et al.'s c = 1e10 instances with n = 600 prove in 0.7 s with 2^22
#: entries and 3.7 s with 2^20 (``clsolve bench hard-kp``); a CPU device makes rows ~100 times slower.
WIDTH = {"gpu": 2**22, "other": 2**16}
#: The most cells (items x entries) the rows' DP may update; rows narrow to fit. On the H100 2^32 cells
#: take about 0.1 s (one launch and about 64 MiB of traffic per item at 2^22 entries).
CELLS = {"gpu": 2**32, "other": 2**26}
#: Share of the device's memory budget the rows may take; the stride between kept rows grows to fit it.
MEMORY_SHARE = 1 / 16


@dataclass
class Shape:
    """Rows of ``width`` entries for weights rounded down to multiples of ``grain``, one kept every
    ``stride`` of ``levels`` levels."""

    width: int
    grain: int
    stride: int
    levels: int

    @classmethod
    def of(cls, capacity: int, levels: int, width: int, memory: int, cells: int | None = None) -> Shape:
        """At most ``width`` entries and ``cells`` cells (items x entries), rows within ``memory`` bytes."""
        if cells is not None:
            width = min(width, cells // max(levels, 1))
        width = max(1, min(width, memory // 24))  # room for one kept row and the two the DP works in
        grain = max(1, -(-(capacity + 1) // width))
        width = capacity // grain + 1
        shape = cls(width, grain, 1, levels)
        while shape.nbytes > memory and shape.stride < max(levels, 1):
            shape.stride *= 2
        return shape

    @property
    def rows(self) -> int:
        return -(-self.levels // self.stride) if self.levels else 0

    @property
    def nbytes(self) -> int:
        """Device bytes: the kept rows and the two rows the DP works in."""
        return (self.rows + 2) * self.width * 8


def memory_share(device: Device) -> int:
    """The bytes the rows may take on ``device``."""
    return int(device.memory_budget * MEMORY_SHARE)


class RelaxedRows:
    """The rows for the levels after ``core``'s current one, on ``device``; they serve every core of the
    same problem at that level or later."""

    def __init__(self, device: Device, program: Program, core: Core, width: int, memory: int, cells: int, poison: bool = False):
        """Rows of at most ``width`` entries, ``cells`` cells and ``memory`` bytes; ``poison``: the DP's
        rows start as garbage (the DP must write every entry)."""
        self.device, self.poison = device, poison
        self.first = len(core.levels)
        items = core.upcoming()
        self.shape = Shape.of(core.capacity, len(items), width, memory, cells)
        self.work = Workspace(
            device,
            Plan("dp-states", {"relaxed rows": self.shape.nbytes}, kernels=("relaxed_item",)),
            poison=POISON_BYTE if poison else None,
        )
        self.rows = self._make(program, core, items)

    def _make(self, program: Program, core: Core, items: list[int]) -> list[cl.Buffer]:
        """The DP in reverse order of the levels; the row over items[i:] is kept for every i that is a
        multiple of the stride. Its launches are paced under the time limit: where it passes first,
        :class:`TimeLimitError` (the search goes on without the rows; ``shared.Shared``)."""
        shape, queue = self.shape, self.device.queue
        size = shape.width * 8
        work = [self.work.empty("relaxed rows", size) for _ in range(2)]
        fill(queue, work[0], 0)  # F over no item: 0 everywhere
        kept: dict[int, cl.Buffer] = {}
        kernel = self.work.kernel(program, "relaxed_item").set(width=shape.width)
        grid = (-(-shape.width // 256) * 256,)
        pacer = Pacer(queue, "dp-states relaxation rows", len(items))
        try:
            for i in range(len(items) - 1, -1, -1):
                rounded = int(core.weights[items[i]]) // shape.grain
                if rounded < shape.width:
                    kernel.set(row=work[0], next=work[1], w=rounded, p=np.int64(core.profits[items[i]]))
                    kernel.enqueue(queue, grid, (256,))
                    work.reverse()
                if i % shape.stride == 0:
                    kept[i] = self.work.empty("relaxed rows", size)
                    cl.enqueue_copy(queue, kept[i], work[0], byte_count=size)
                pacer.launch()
            pacer.close()
        except BaseException:
            self.work.release("relaxed rows", *kept.values())
            raise
        finally:
            self.work.release("relaxed rows", *work)
        return [kept[i] for i in sorted(kept)]

    def arguments(self, number: int, core: Core) -> dict[str, object]:
        """The keep kernel's arguments at level ``number`` of ``core`` (counted from 1, the core already
        advanced): its outside items are those of the levels after it."""
        outside = number - self.first  # index into the items still to come when the rows were made
        index = min(outside // self.shape.stride, len(self.rows) - 1)
        wl, pl = core.taken()
        return {
            "row": self.rows[index],
            "width": np.uint32(self.shape.width),
            "grain": np.int64(self.shape.grain),
            "wl": np.int64(wl),
            "pl": np.int64(pl),
        }

    def bound(self, weight: int, profit: int, core: Core) -> int:
        """The rows' bound of the state (``weight``, ``profit``) of ``core`` at the level they were made
        for (row 0: every item still to come): profit - p(L) + F[(C - weight + w(L)) // grain]."""
        wl, pl = core.taken()
        index = min((core.capacity - weight + wl) // self.shape.grain, self.shape.width - 1)
        entry = np.zeros(1, np.int64)
        cl.enqueue_copy(self.device.queue, entry, self.rows[0], src_offset=8 * index)
        return profit - pl + int(entry[0])

    def root_bound(self, core: Core) -> int:
        """The rows' bound of the whole problem (``core`` at level 0, the rows made there)."""
        return self.bound(*core.start(), core)

    def release(self) -> None:
        self.work.release("relaxed rows", *self.rows)
        self.rows = []
