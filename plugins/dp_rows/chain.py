"""How ``dp-rows`` groups its passes into launches: a launch per pass (two value rows), or many passes
chained in one launch (``dp_rows_chain`` in ``dp_rows.cl``: work-groups own tiles of the row
for all of them, the rows in a ring of slots, each tile waiting for the tiles to its left), so a
short row no longer costs a launch per pass."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.sdk import DecisionLayout, Device, work_group_size

#: On a GPU, rows of at most CHAIN_ROW states chain CHAIN_PASSES passes per launch by default, in a
#: ring of at most CHAIN_RING_BYTES (``choose``); MAX_CHAIN is the most one launch may chain.
CHAIN_ROW = 2**20
CHAIN_PASSES = 32
CHAIN_RING_BYTES = 2**28
MAX_CHAIN = 4096
#: Seconds a chained pass takes however short the row (a tile waits for its neighbours' progress:
#: 2.1 us for one item, 2.9 us for a pair on the H100 at 1e5 states, ``bench dp-rows``), with margin,
#: for the plan's estimate.
PASS_SECONDS = {"gpu": 4e-6, "other": 2e-4}
#: The chained kernel's tiles by default (``bench dp-rows`` on the H100): decision words per tile
#: (tiles of 32 x that many states) and work-items sharing each word (at most; it divides 32). Rows of
#: at most SHORT_ROW states take smaller tiles (more work-groups, each pass shorter); longer rows
#: fewer work-items per word (more states each).
SHORT_ROW = 2**18
CHAIN_SHAPES = {True: (16, 16), False: (32, 8)}


@dataclass(frozen=True)
class Chain:
    """How a solve's passes run: ``passes`` per launch (1: a launch per pass over two rows; more: the
    chained kernel over a ring of passes + 1 slots of ``pitch`` states), with work-groups of
    ``local_size`` (the decision layout's) x ``split`` work-items, ``split`` sharing each word."""

    passes: int
    split: int
    pitch: int
    local_size: int

    @property
    def slots(self) -> int:
        return self.passes + 1 if self.passes > 1 else 2

    def rows_bytes(self, states: int, dtype: np.dtype) -> int:
        """The value rows: two, or the ring."""
        return (2 * states if self.passes == 1 else self.slots * self.pitch) * dtype.itemsize


def choose(
    asked: int | None, local_size: int | None, states: int, dtype: np.dtype, device: Device, ring_bytes: int = CHAIN_RING_BYTES
) -> Chain:
    """``asked`` passes per launch, or by default (``bench dp-rows`` on the H100): CHAIN_PASSES on a GPU
    for rows of at most CHAIN_ROW states, as many as a ring of ``ring_bytes`` (at most
    CHAIN_RING_BYTES) holds; else 1. Chained, the decision words per tile are ``local_size`` (default
    from CHAIN_SHAPES)."""
    words, most_split = CHAIN_SHAPES[states <= SHORT_ROW]
    passes = asked
    if passes is None:
        row = (states + 32 * words) * dtype.itemsize
        fit = min(ring_bytes, CHAIN_RING_BYTES) // row - 1
        passes = min(CHAIN_PASSES, fit) if device.is_gpu and states <= CHAIN_ROW and fit > 1 else 1
    passes = max(1, passes)
    if passes > 1 and local_size is None:
        words = min(words, work_group_size(device.max_work_group_size, None))
    else:
        words = work_group_size(device.max_work_group_size, local_size)
    layout = DecisionLayout(states, words)
    split = 1
    while split < most_split and 2 * split * words <= device.max_work_group_size:
        split *= 2
    return Chain(passes, split, layout.tiles * layout.tile_states, words)


def launches(chunks: list[tuple[int, int]], per_pass: int, chain: int = 1) -> list[tuple[int, int]]:
    """(first item, items) of each launch: per_pass items inside a chunk, what is left at a chunk's end
    in pairs and a single item; chained, up to chain x per_pass items (the last pass of a chunk may
    hold fewer)."""
    out: list[tuple[int, int]] = []
    for first, count in chunks:
        if chain > 1:
            out.extend(
                (item, min(chain * per_pass, first + count - item)) for item in range(first, first + count, chain * per_pass)
            )
            continue
        item = first
        while item < first + count:
            left = first + count - item
            width = per_pass if left >= per_pass else min(2, left)
            out.append((item, width))
            item += width
    return out
