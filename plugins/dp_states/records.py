"""The way back from a state to its items: each state carries one bit per level of its block of
BLOCK levels and the index of its ancestor in the list at the block's start (``anchor``); at each
block's end the list's bits and anchors are kept, on the device while its share for them lasts (a
copy within device memory) and in host memory after that. A state is walked back block by block,
reading one entry per block."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyopencl as cl

#: Levels per block: the bits of one block fill one 64-bit word per state.
BLOCK = 64
#: Host bytes kept per state of a list at a block's end (bits and anchor).
RECORD_BYTES = 12


@dataclass
class DeviceBlock:
    """A block's record kept in device buffers (``count`` states)."""

    queue: cl.CommandQueue
    bits: cl.Buffer
    anchors: cl.Buffer
    count: int
    free: Callable[[], None]  # gives both buffers back (to the workspace that made them)

    @property
    def nbytes(self) -> int:
        return RECORD_BYTES * self.count

    def entry(self, index: int) -> tuple[int, int]:
        """(bits, anchor) of state ``index``."""
        bits, anchor = np.zeros(1, np.uint64), np.zeros(1, np.uint32)
        cl.enqueue_copy(self.queue, bits, self.bits, src_offset=8 * index)
        cl.enqueue_copy(self.queue, anchor, self.anchors, src_offset=4 * index)
        return int(bits[0]), int(anchor[0])

    def release(self) -> None:
        self.free()


@dataclass
class Records:
    """(bits, anchors) of the list at the end of blocks 0, 1, ... (the list after level BLOCK * (k+1)),
    each as host arrays or a ``DeviceBlock``."""

    blocks: list[tuple[np.ndarray, np.ndarray] | DeviceBlock] = field(default_factory=list)

    @property
    def nbytes(self) -> int:
        return self.host_bytes + self.device_bytes

    @property
    def host_bytes(self) -> int:
        return sum(b[0].nbytes + b[1].nbytes for b in self.blocks if not isinstance(b, DeviceBlock))

    @property
    def device_bytes(self) -> int:
        return sum(b.nbytes for b in self.blocks if isinstance(b, DeviceBlock))

    def add(self, bits: np.ndarray, anchors: np.ndarray) -> None:
        self.blocks.append((bits, anchors))

    def add_device(self, block: DeviceBlock) -> None:
        self.blocks.append(block)

    def release(self) -> None:
        """Frees the device buffers (the host arrays stay)."""
        for block in self.blocks:
            if isinstance(block, DeviceBlock):
                block.release()
        self.blocks = [b for b in self.blocks if not isinstance(b, DeviceBlock)]

    def toggled(self, level: int, bits: int, anchor: int) -> list[int]:
        """The levels (numbered from 1) that toggled their item on the way to a state of the list
        after ``level``, given that state's ``bits`` and ``anchor``."""
        out: list[int] = []
        block = (level - 1) // BLOCK
        while True:
            out.extend(block * BLOCK + k + 1 for k in range(BLOCK) if bits >> k & 1)
            if block == 0:
                return out
            block -= 1
            stored = self.blocks[block]
            if isinstance(stored, DeviceBlock):
                bits, anchor = stored.entry(anchor)
            else:
                bits, anchor = int(stored[0][anchor]), int(stored[1][anchor])


def is_block_end(level: int) -> bool:
    return level % BLOCK == 0


def bit(level: int) -> int:
    """The bit of ``level`` (from 1) within its block."""
    return 1 << ((level - 1) % BLOCK)
