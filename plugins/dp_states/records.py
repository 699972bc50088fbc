"""The way back from a state to its items: each state carries one bit per level of its block of
BLOCK levels and the index of its ancestor in the list at the block's start (``anchor``); at each
block's end the host keeps the list's bits and anchors. A state is walked back block by block."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Levels per block: the bits of one block fill one 64-bit word per state.
BLOCK = 64
#: Host bytes kept per state of a list at a block's end (bits and anchor).
RECORD_BYTES = 12


@dataclass
class Records:
    """(bits, anchors) of the list at the end of blocks 0, 1, ... (the list after level BLOCK * (k+1))."""

    blocks: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)

    @property
    def nbytes(self) -> int:
        return sum(bits.nbytes + anchors.nbytes for bits, anchors in self.blocks)

    def add(self, bits: np.ndarray, anchors: np.ndarray) -> None:
        self.blocks.append((bits, anchors))

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
            stored_bits, stored_anchors = self.blocks[block]
            bits, anchor = int(stored_bits[anchor]), int(stored_anchors[anchor])


def is_block_end(level: int) -> bool:
    return level % BLOCK == 0


def bit(level: int) -> int:
    """The bit of ``level`` (from 1) within its block."""
    return 1 << ((level - 1) % BLOCK)
