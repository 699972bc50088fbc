"""Device buffer helpers shared by the plugins."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from . import kernels
from .devices import get_device, is_simulator

#: clEnqueueFillBuffer is issued in pieces of at most this many bytes: NVIDIA's OpenCL fails on a
#: single fill of more than 2^31 bytes (seen on an H100: the queue becomes invalid).
FILL_PIECE = 2**30
#: Buffers larger than this are filled by a kernel (``opencl/fill.cl``): NVIDIA's clEnqueueFillBuffer
#: fails from an offset of 8 GiB on, whatever the piece's size (seen on an H100).
KERNEL_FILL_BYTES = 2**32
#: Work-items of the fill kernel (each loops over its share of the words).
FILL_ITEMS = 2**20
_simulators: dict[int, bool] = {}  # per cl_device: whether it is a simulator


def fill(queue: cl.CommandQueue, buffer: cl.Buffer, byte: int, size: int | None = None) -> None:
    """Set every byte of ``buffer`` (or its first ``size`` bytes) to ``byte`` (enqueued; no wait, except
    for the last 1..3 bytes of a fill past ``KERNEL_FILL_BYTES`` whose size is not a multiple of 4)."""
    pattern = np.array([int(byte) * 0x01010101], dtype=np.uint32)
    size = buffer.size if size is None else int(size)
    if _simulated(queue):
        # Oclgrind's uninitialized-memory check does not count clEnqueueFillBuffer as a write (nor
        # every partial write): on the simulator the bytes come from the host, the whole buffer at once
        cl.enqueue_copy(queue, buffer, np.full(size, byte, dtype=np.uint8), is_blocking=True)
        return
    if size > KERNEL_FILL_BYTES:
        _fill_by_kernel(queue, buffer, pattern, byte, size)
        return
    offset = 0
    while offset + 4 <= size:
        piece = min(FILL_PIECE, (size - offset) // 4 * 4)
        cl.enqueue_fill_buffer(queue, buffer, pattern, offset, piece)
        offset += piece
    if offset < size:
        cl.enqueue_fill_buffer(queue, buffer, np.array([byte], dtype=np.uint8), offset, size - offset)


def _simulated(queue: cl.CommandQueue) -> bool:
    device = queue.device
    found = _simulators.get(device.int_ptr)
    if found is None:
        found = _simulators[device.int_ptr] = is_simulator(get_device(device))
    return found


def _fill_by_kernel(queue: cl.CommandQueue, buffer: cl.Buffer, pattern: np.ndarray, byte: int, size: int) -> None:
    program = kernels.program(get_device(queue.device), kernels.builtin("fill.cl"))  # the device's own context and queue
    words = size // 4
    program.kernel("fill_words").set(buffer=buffer, count=np.uint64(words), pattern=np.uint32(pattern[0])).enqueue(
        queue, (FILL_ITEMS,), None
    )
    tail = size - 4 * words
    if tail:
        cl.enqueue_copy(queue, buffer, np.full(tail, byte, dtype=np.uint8), dst_offset=4 * words, is_blocking=True)


def copy_later(
    queue: cl.CommandQueue, dest: np.ndarray | cl.Buffer, src: np.ndarray | cl.Buffer, pending: list[cl.Event], offset: int = 0
) -> None:
    """Copy between a host array and a device buffer (from byte ``offset`` of the buffer) without
    waiting, the copy's event appended to ``pending``. pyopencl's event for such a copy holds the
    host array and waits for the copy when it is collected: dropped at once, it would hold the host
    until the device reached the copy, and nothing enqueued after it would be queued before then (on
    the H100, a33's trace-back in ``dp-rows`` would start 0.2 ms after the passes end). Keep
    ``pending``, and the host array unchanged, until the queue has finished."""
    if isinstance(dest, np.ndarray):
        pending.append(cl.enqueue_copy(queue, dest, src, src_offset=offset, is_blocking=False))
    else:
        assert isinstance(src, np.ndarray), "a copy between a host array and a device buffer"
        pending.append(cl.enqueue_copy(queue, dest, src, dst_offset=offset, is_blocking=False))
