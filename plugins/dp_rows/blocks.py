"""How ``dp-rows`` applies runs of light items on chip (``dp_rows_block`` in ``dp_rows.cl``, m = 1):
a work-group reads its tile of the row and a halo of ``halo_rows`` x ``local_size`` states below it into
local memory once, applies up to ``most`` items whose weights sum to at most the halo, and writes the
tile and each item's decision words once. Heavier items keep the passes of ``chain.launches``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.sdk import Knapsack, clamped_weights, fits, reachable_floors

from . import chain as chaining

#: Items one block applies at most (a decision word per item and work-item, written as it is made).
MAX_BLOCK = 16
#: Halo rows at most (each a register and a local row of ``local_size`` values per work-item).
MAX_HALO_ROWS = 16
#: Local memory the block kernel leaves to its items' weights and profits and the compiler, bytes.
LOCAL_SPARE = 1024


@dataclass(frozen=True)
class Blocks:
    """``most`` items per block at most (0: no blocks), over a halo of ``halo_rows`` x ``local_size``
    states."""

    most: int
    halo_rows: int
    local_size: int

    @property
    def halo(self) -> int:
        return self.halo_rows * self.local_size


NONE = Blocks(0, 0, 1)


#: By default (on a GPU) blocks are used where the items from which a block of BLOCK_ITEMS or more fits
#: in the halo hold at least BLOCKED_SHARE of the table's cell updates (each item's row from its
#: reachable floor on): ``clsolve bench dp-rows`` on the H100, light items in blocks of about 7 take
#: 0.57 of the time of 3 items per pass, in blocks of about 2 about the same time; light items that
#: come last, over the few states a trace-back still reaches, leave a block little to save.
BLOCKED_SHARE, BLOCK_ITEMS = 0.5, 4


def choose(asked: int | None, m: int, chained: bool, local_size: int, itemsize: int, local_memory: int) -> Blocks:
    """``asked`` items per block at most (None or 0: none), for m = 1 where passes are launched one by
    one, with as many halo rows (up to MAX_HALO_ROWS) as local memory holds beside the tile's 32 rows;
    none where not even one fits."""
    most = asked or 0
    if most < 2 or m != 1 or chained:
        return NONE
    rows = min(MAX_HALO_ROWS, (local_memory - LOCAL_SPARE) // (local_size * itemsize) - 32)
    return Blocks(most, rows, local_size) if rows >= 1 else NONE


def pays(problem: Knapsack, blocks: Blocks) -> bool:
    """Whether the items of ``problem`` (in its order) from which a block of at least BLOCK_ITEMS items
    fits hold at least BLOCKED_SHARE of its cell updates."""
    if not blocks.most or not problem.n:
        return False
    fits = _fits(_weights(problem), blocks)
    rows = (problem.cells() - reachable_floors(problem)).astype(np.float64)  # each item's states swept
    return bool(rows[fits >= BLOCK_ITEMS].sum() >= BLOCKED_SHARE * rows.sum())


def passes(problem: Knapsack, chunks: list[tuple[int, int]], per_pass: int, blocks: Blocks) -> list[tuple[int, int, bool]]:
    """(first item, items, blocked) of each pass of ``problem`` launched on its own."""
    if not blocks.most:
        return [(item, width, False) for item, width in chaining.launches(chunks, per_pass)]
    return launches(chunks, per_pass, _weights(problem), blocks)


def _weights(problem: Knapsack) -> np.ndarray:
    """The weights the kernels read (``clamped_weights``: past the capacity, capacity + 1, so never in
    a block)."""
    return clamped_weights(problem)[:, 0].astype(np.int64)


def launches(chunks: list[tuple[int, int]], per_pass: int, weights: np.ndarray, blocks: Blocks) -> list[tuple[int, int, bool]]:
    """(first item, items, blocked) of each launch: inside each chunk, runs of at least two items whose
    weights sum to at most the halo go in blocks of at most ``blocks.most``; the others as
    ``chain.launches`` groups them (per_pass items, pairs and a single item at a run's end)."""
    out: list[tuple[int, int, bool]] = []
    for first, count in chunks:
        fits = _fits(weights[first : first + count], blocks).tolist()  # a block's size from each item
        k = 0
        while k < count:
            if fits[k] >= 2:
                out.append((first + k, fits[k], True))
                k += fits[k]
                continue
            stop = k + 1
            while stop < count and fits[stop] < 2:
                stop += 1
            out.extend((item, width, False) for item, width in chaining.launches([(first + k, stop - k)], per_pass))
            k = stop
    return out


def _fits(weights: np.ndarray, blocks: Blocks) -> np.ndarray:
    """For each item, how many items from it on (at most ``blocks.most``, within ``weights``) sum to at
    most the halo (none where blocks are off)."""
    return fits(weights, blocks.halo, blocks.most if blocks.most >= 2 else 0)
