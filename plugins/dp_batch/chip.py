"""Temporal blocking in ``dp-batch``: instances whose whole state row fits in one work-group's local
memory take all their items in one launch (kernel ``dp_batch_chip`` in ``dp_batch.cl``).

The row stays on chip from the first item to the last; global memory sees only each item's decision
words (the layout of the item steps, so the same backtracking reads them) and the final row. A row
longer than one tile (32 states per work-item) or than local memory keeps the item steps: there,
a tile of the flattened states would need the halo that its items reach back, and one item of a
2-D instance already reaches w2 x (C1 + 1) states back, more than local memory holds.
"""

from __future__ import annotations

import numpy as np

from clsolve.sdk import Device

#: Local memory the kernel leaves to the OpenCL implementation (its own arguments and bookkeeping).
RESERVED_LOCAL_BYTES = 1024
#: Work-groups (instances) one launch takes at most: a batch's rows on chip go in several launches, so a
#: time limit is checked between them as between item steps.
LAUNCH_GROUPS = 8192
#: Cell updates per second on chip, for the plan: ``clsolve bench small-rows`` measures 160 to 611 G
#: on the H100 (kernels alone); PoCL on 2 cores, with on_chip=True, about 1 G.
MODEL_UPDATES_PER_SECOND = {"gpu": 2e11, "other": 1e9}


def chip_states(device: Device, itemsize: int, local_size: int) -> int:
    """The most states a row may have to stay on chip: one tile (32 per work-item) and what local
    memory holds beside the implementation's reserve."""
    return max(0, min(32 * local_size, (device.local_memory - RESERVED_LOCAL_BYTES) // itemsize))


def on_chip(states: np.ndarray, device: Device, itemsize: int, local_size: int) -> np.ndarray:
    """Which rows (by their number of states) stay on chip."""
    return np.asarray(states) <= chip_states(device, itemsize, local_size)


def row_room(states: np.ndarray, local_size: int) -> int:
    """The kernel's local row (build option CHIP_STATES): the longest row on chip rounded up to a power
    of two of at least ``local_size`` states, so a batch of short rows leaves room for more
    work-groups on each compute unit, and few distinct sizes are built."""
    longest = int(states.max(initial=1))
    return max(local_size, 1 << (longest - 1).bit_length())


def pays(device: Device) -> bool:
    """Whether rows that fit stay on chip by default: on a GPU. On a CPU (PoCL) local memory is
    ordinary cache, and a work-group's barriers per item cost more than streaming the row."""
    return device.is_gpu


def seconds(updates: float, kind: str) -> float:
    """The plan's estimate for the on-chip updates of one launch."""
    return updates / MODEL_UPDATES_PER_SECOND[kind]
