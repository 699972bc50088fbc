"""Device buffer helpers shared by the plugins."""
from __future__ import annotations

import numpy as np
import pyopencl as cl

#: clEnqueueFillBuffer is issued in pieces of at most this many bytes: NVIDIA's OpenCL fails on a
#: single fill of more than 2^31 bytes (seen on an H100: the queue becomes invalid).
FILL_PIECE = 2**30


def fill(queue: cl.CommandQueue, buffer: cl.Buffer, byte: int) -> None:
    """Set every byte of ``buffer`` to ``byte`` (enqueued; no wait)."""
    pattern = np.uint32(int(byte) * 0x01010101)
    size = buffer.size
    offset = 0
    while offset + 4 <= size:
        piece = min(FILL_PIECE, (size - offset) // 4 * 4)
        cl.enqueue_fill_buffer(queue, buffer, pattern, offset, piece)
        offset += piece
    if offset < size:
        cl.enqueue_fill_buffer(queue, buffer, np.uint8(byte), offset, size - offset)
