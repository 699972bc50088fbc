"""The device buffers of one ``dp-rows`` solve (``solver.py`` makes them, the sweeps use them)."""

from __future__ import annotations

from dataclasses import dataclass

import pyopencl as cl

from clsolve.sdk import RowStore, Workspace


@dataclass
class Held:
    """A solve's device buffers: items, two value rows, the store of decision rows with its chunks
    (first item, items), and the device trace-back's output and capacity left; ``work`` made them
    and makes the kernels that use them."""

    weights: cl.Buffer
    profits: cl.Buffer
    rows: list[cl.Buffer]  # two rows, the chain's ring of slots, or the pipeline's two slots in one buffer
    store: RowStore
    chunks: list[tuple[int, int]]
    selected: cl.Buffer
    remaining: cl.Buffer
    progress: cl.Buffer | None  # the chain's passes finished per tile, or the pipeline's ticket and stages
    kept: cl.Buffer | None  # with pruning: two rows of a bit per state (kept by a pass or not), then its table
    work: Workspace
    rings: cl.Buffer | None = None  # the pipeline's rings, per work-group
