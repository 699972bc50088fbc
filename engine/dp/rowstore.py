"""The memory model of [OM] (O'Connell and Mumford, Sec. IV-A): a DP sweep keeps on the
device only what its recurrence still reads, and the finished part of the grid that the trace-back
needs ("chunks": a band of LCS bit rows, a Held-Karp level's predecessors, a knapsack's decision
row) either stays in device memory or is copied to host memory while the device goes on computing.

``plan_store`` decides which, before anything is allocated; ``RowStore`` carries it out:

* ``device`` mode: every chunk has its own place in device memory (packed into buffers no larger
  than the device's largest allocation); nothing moves until the trace-back.
* ``host`` mode: chunks are written into a ring of ``ring`` device slots; when a chunk is finished,
  a second command queue copies it to page-locked host memory (waiting on the compute event only),
  and the compute queue waits on that copy only when it is about to overwrite the slot ``ring``
  chunks later. The compute queue never blocks on the host.

``plan_rows`` cuts a table of equal rows (a knapsack's decision rows, mckp's count rows) into
chunks of whole rows: as large as one device allocation when they stay on the device, about
``HOST_CHUNK_BYTES`` when they stream (less where the ring of ``RING_SLOTS`` would not fit).

The producer calls ``slot(k)`` (where to write chunk k, and the events to wait for first) and
``finished(k, event)``; the trace-back calls ``readable(k)`` (device buffer and offset of chunk k,
copying it back up into a slot in host mode) or ``host(k)`` (a NumPy view of the chunk).
"""

# long module: the row store's device and host modes, its pinned arenas and its copies are one concept
from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyopencl as cl

from ..errors import DoesNotFitError
from ..runtime import deadline, devices, memory, spare
from ..runtime.devices import Device
from ..runtime.memory import format_bytes

#: Device slots of the host-mode ring: one being written, one being copied out, one spare.
RING_SLOTS = 3
#: Target size of one streamed chunk of rows (``plan_rows``, host mode).
HOST_CHUNK_BYTES = 64 * 2**20
#: Largest page-locked host allocation made at once.
HOST_ARENA_BYTES = 2**28
#: Host memory page-locked (allocated and mapped) per second: 2.3 GB/s measured on an H200's host
#: (0.46 s per GiB, 27 ms per 64 MiB), slower than the copies into it. An arena is made when the sweep
#: first reaches it, and only where the time limit leaves room for it.
PIN_BYTES_PER_SECOND = 2.0e9
#: Arenas smaller than this are plain host memory: page-locking them saves less than it costs.
PIN_MIN_BYTES = 16 * 2**20


def pack(chunk_bytes: list[int], limit: int, align: int = 256) -> tuple[list[tuple[int, int]], list[int]]:
    """Chunks laid out in buffers of at most ``limit`` bytes: (buffer, offset) of each chunk, and
    the buffers' sizes. Each chunk starts on an ``align``-byte boundary."""
    places: list[tuple[int, int]] = []
    sizes: list[int] = []
    for size in chunk_bytes:
        size = max(int(size), 0)
        if not sizes or sizes[-1] + size > limit:
            sizes.append(0)
        places.append((len(sizes) - 1, sizes[-1]))
        sizes[-1] += _aligned(size, align)
    return places, sizes


def _aligned(size: int, align: int) -> int:
    return (size + align - 1) // align * align


def buffer_sizes(chunk_bytes: list[int], limit: int, align: int = 256) -> list[int]:
    """The buffers' sizes of ``pack`` without the places: a closed form where every chunk but the
    last has one size (as ``plan_rows`` cuts them), so a plan of many chunks costs no loop."""
    size = max(int(chunk_bytes[0]), 0) if chunk_bytes else 0
    step = _aligned(size, align)
    if len(chunk_bytes) < 3 or step == 0 or len(set(chunk_bytes[:-1])) != 1:
        return pack(chunk_bytes, limit, align)[1]
    per_buffer = 1 if size > limit else (limit - size) // step + 1
    full, rest = divmod(len(chunk_bytes) - 1, per_buffer)
    sizes = [per_buffer * step] * full + ([rest * step] if rest else [])
    last = max(int(chunk_bytes[-1]), 0)
    if sizes[-1] + last <= limit:
        sizes[-1] += _aligned(last, align)
    else:
        sizes.append(_aligned(last, align))
    return sizes


@dataclass
class StorePlan:
    """Where the finished chunks of a sweep live: ``mode`` is ``device`` or ``host``."""

    mode: str
    chunk_bytes: list[int]
    device_bytes: int
    host_bytes: int

    @property
    def total_bytes(self) -> int:
        return sum(self.chunk_bytes)

    def device_buffers(self, name: str, device: Device) -> dict[str, int]:
        """The device buffers this store allocates, as a plan lists them (named ``name``, ``name_1``, ..)."""
        if self.mode == "host":
            return {f"{name}_ring": self.device_bytes}
        sizes = buffer_sizes(self.chunk_bytes, device.max_allocation)
        return {name if k == 0 else f"{name}_{k}": size for k, size in enumerate(sizes)}


def device_budget(device: Device, other_device_bytes: int, device_limit: int | None = None) -> int:
    """Device bytes a store may take beside ``other_device_bytes`` (under ``device_limit`` when given)."""
    budget = device.memory_budget - other_device_bytes
    if device_limit is not None:
        budget = min(budget, int(device_limit) - other_device_bytes)
    return budget


def plan_store(
    what: str,
    chunk_bytes: list[int],
    device: Device,
    other_device_bytes: int,
    device_limit: int | None = None,
    mode: str = "auto",
) -> StorePlan:
    """Keep every chunk on the device when they fit beside ``other_device_bytes`` (and under
    ``device_limit``, an option that forces streaming for tests and benchmarks), else stream them
    to host memory through a ring of slots; refuse, with the numbers, when host memory cannot hold
    them either. ``mode`` ``device`` or ``host`` forces the choice (still refused when it cannot fit)."""
    total = int(sum(chunk_bytes))
    budget = device_budget(device, other_device_bytes, device_limit)
    if budget <= 0:
        allowed = budget + other_device_bytes
        raise DoesNotFitError(
            f"{what}: the rest of the solve already needs {format_bytes(other_device_bytes)} of device "
            f"memory, more than {device.label} allows ({format_bytes(max(allowed, 0))})"
        )
    ring = RING_SLOTS * max(chunk_bytes, default=0)
    host_limit = memory.host_budget()
    fits_device = total <= budget and max(chunk_bytes, default=0) <= device.max_allocation
    if mode == "device" or (mode == "auto" and fits_device):
        if not fits_device:
            raise DoesNotFitError(
                f"{what}: keeping {format_bytes(total)} on the device does not fit beside "
                f"{format_bytes(other_device_bytes)} in {device.label} (budget {format_bytes(max(budget, 0))})"
            )
        return StorePlan("device", list(chunk_bytes), total, 0)
    if ring > budget:
        raise DoesNotFitError(
            f"{what}: even a ring of {RING_SLOTS} slots ({format_bytes(ring)}) does not fit beside "
            f"{format_bytes(other_device_bytes)} in {device.label} (budget {format_bytes(max(budget, 0))})"
        )
    if total > host_limit:
        raise DoesNotFitError(
            f"{what}: the trace-back needs {format_bytes(total)}, more than the device holds "
            f"({format_bytes(max(budget, 0))}) and more than this host allows "
            f"({format_bytes(host_limit)}: {memory.budget_words()})"
        )
    return StorePlan("host", list(chunk_bytes), ring, total)


def rows_per_chunk(rows: int, row_bytes: int, limit: int, multiple: int = 1) -> int:
    """Rows in one chunk of at most ``limit`` bytes (at least one row), rounded down to a multiple of
    ``multiple`` when there is more than one chunk and that leaves a row."""
    per = min(rows, max(1, limit // max(row_bytes, 1)))
    if per < rows and per >= multiple:
        per -= per % multiple
    return max(per, 1)


def chunk_rows(rows: int, per: int) -> list[tuple[int, int]]:
    """(first row, rows) of each chunk of ``per`` rows (the last one may be shorter)."""
    return [(first, min(per, rows - first)) for first in range(0, rows, max(per, 1))]


def plan_rows(
    what: str,
    rows: int,
    row_bytes: int,
    device: Device,
    other_device_bytes: int,
    device_limit: int | None = None,
    mode: str = "auto",
    multiple: int = 1,
) -> tuple[StorePlan, list[tuple[int, int]]]:
    """Where ``rows`` rows of ``row_bytes`` each live (``plan_store``), in chunks of whole rows: the
    plan and (first row, rows) of each chunk. On the device a chunk is as large as one allocation
    allows; streamed, about ``HOST_CHUNK_BYTES``. ``multiple`` keeps chunks a multiple of that many
    rows where it can (dp-rows writes two rows per launch)."""
    if mode in ("auto", "device"):
        chunks = chunk_rows(rows, rows_per_chunk(rows, row_bytes, device.max_allocation, multiple))
        try:
            return plan_store(
                what, [count * row_bytes for _, count in chunks], device, other_device_bytes, device_limit, "device"
            ), chunks
        except DoesNotFitError:
            if mode == "device":
                raise
    ring_slot = device_budget(device, other_device_bytes, device_limit) // RING_SLOTS
    chunks = chunk_rows(rows, rows_per_chunk(rows, row_bytes, min(HOST_CHUNK_BYTES, device.max_allocation, ring_slot), multiple))
    return plan_store(what, [count * row_bytes for _, count in chunks], device, other_device_bytes, device_limit, "host"), chunks


@dataclass
class CopyStats:
    """What the host-mode copies cost: bytes, the seconds the copies took on their own queue, and
    the seconds the sweep waited for them after its last kernel (the part not hidden)."""

    bytes: int = 0
    copy_seconds: float = 0.0
    exposed_seconds: float = 0.0
    events: list = field(default_factory=list)

    @property
    def hidden_share(self) -> float | None:
        """Share of the copy time that overlapped computation (None when nothing was copied)."""
        if self.copy_seconds <= 0:
            return None
        return max(0.0, 1.0 - self.exposed_seconds / self.copy_seconds)


class RowStore:
    """Chunks of a DP sweep kept for the trace-back, placed as ``plan`` says (see the module doc)."""

    def __init__(self, device: Device, plan: StorePlan, poison: int | None = None):
        self.device = device
        self.plan = plan
        self.count = len(plan.chunk_bytes)
        self.stats = CopyStats()
        self._copy_events: dict[int, cl.Event] = {}
        ctx = device.context
        if plan.mode == "device":
            self.places, sizes = pack(plan.chunk_bytes, device.max_allocation)
            self.buffers: list[cl.Buffer] = [spare.take(device, max(s, 256)) for s in sizes]
        else:
            slot = max(max(plan.chunk_bytes, default=0), 256)
            self.buffers = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, slot) for _ in range(RING_SLOTS)]
            self.copy_queue = cl.CommandQueue(ctx, device.cl_device, properties=cl.command_queue_properties.PROFILING_ENABLE)
            self._host = _PinnedArena(device, plan.chunk_bytes)
        if poison is not None:
            from ..runtime.buffers import fill

            for buffer in self.buffers:
                fill(device.queue, buffer, poison)

    # -- producing -----------------------------------------------------------------------------
    def slot(self, k: int) -> tuple[cl.Buffer, int, list[cl.Event]]:
        """Where chunk ``k`` is written: (buffer, byte offset, events the first writer waits for)."""
        if self.plan.mode == "device":
            index, offset = self.places[k]
            return self.buffers[index], offset, []
        previous = self._copy_events.get(k - RING_SLOTS)
        return self.buffers[k % RING_SLOTS], 0, [previous] if previous is not None else []

    def finished(self, k: int, event: cl.Event | None) -> None:
        """Chunk ``k`` is complete once ``event`` is; in host mode its copy starts then."""
        if self.plan.mode == "device":
            return
        size = self.plan.chunk_bytes[k]
        if size == 0:
            return
        copy = cl.enqueue_copy(
            self.copy_queue,
            self._host.view(k),
            self.buffers[k % RING_SLOTS],
            src_offset=0,
            wait_for=[event] if event is not None else None,
            is_blocking=False,
        )
        self._copy_events[k] = copy
        self.stats.bytes += size
        self.stats.events.append(copy)

    def drain(self, exposed: bool = False) -> None:
        """Wait for every copy; ``exposed``: called as the sweep's compute queue has just finished, so
        that the stats count how long the copies kept the sweep waiting."""
        if self.plan.mode == "device":
            return
        began = time.perf_counter()
        self.copy_queue.finish()
        if exposed:
            self.stats.exposed_seconds += time.perf_counter() - began
        for event in self.stats.events:
            try:
                self.stats.copy_seconds += (event.profile.end - event.profile.start) * 1e-9
            except cl.Error:  # pragma: no cover - profiling info not available
                pass
        self.stats.events.clear()

    # -- reading back --------------------------------------------------------------------------
    def readable(self, k: int, part: tuple[int, int] | None = None) -> tuple[cl.Buffer, int]:
        """Chunk ``k`` in device memory, for a trace-back kernel: (buffer, byte offset of the chunk).
        In host mode it is first copied back up into a ring slot (enqueued on the compute queue),
        only the bytes ``part`` = (offset in the chunk, size) when given, at their place in the slot."""
        if self.plan.mode == "device":
            index, offset = self.places[k]
            return self.buffers[index], offset
        buffer = self.buffers[k % RING_SLOTS]
        start, size = part if part is not None else (0, self.plan.chunk_bytes[k])
        if size:
            cl.enqueue_copy(
                self.device.queue, buffer, self._host.view(k)[start : start + size], dst_offset=start, is_blocking=False
            )
        return buffer, 0

    def host(self, k: int) -> np.ndarray:
        """Chunk ``k`` as bytes in host memory (downloaded now in device mode)."""
        size = self.plan.chunk_bytes[k]
        if self.plan.mode == "host":
            return self._host.view(k)
        out = np.empty(size, dtype=np.uint8)
        if size:
            index, offset = self.places[k]
            cl.enqueue_copy(self.device.queue, out, self.buffers[index], src_offset=offset, is_blocking=True)
        return out

    def backward(
        self, chunks: Sequence[tuple[int, int]], dtype: np.dtype | type, length: int
    ) -> Iterator[tuple[int, np.ndarray]]:
        """The rows of every chunk (``chunks[k]``: its first row's number and its row count; a row:
        ``length`` values of ``dtype``), from the last chunk's last row back to the first's first, each
        with its number: the walk of a trace-back on the host, which reads its decision at the state
        it keeps in each row and moves the state."""
        for k in reversed(range(len(chunks))):
            first, count = chunks[k]
            rows = self.host(k).view(dtype)[: count * length].reshape(count, length)
            for j in reversed(range(count)):
                yield first + j, rows[j]

    def release(self) -> None:
        """Give the buffers back: in device mode the largest may stay as the device's spare
        (``clsolve.runtime.spare``), for the next store. In host mode the copies still queued end
        first (they write into the host memory given back): where the time limit has passed (a sweep
        stopped there, its launches left running), the next call does this before its clock starts
        (``devices.left_work``), as it waits for the launches."""
        if self.plan.mode == "host" and deadline.current().expired():
            devices.left_work(self._give_back)
            return
        self._give_back()

    def _give_back(self) -> None:
        if self.plan.mode == "host":
            self.copy_queue.finish()
        for buffer in self.buffers:
            if self.plan.mode == "device":
                spare.keep(device=self.device, buffer=buffer)
            else:
                buffer.release()
        self.buffers = []
        if self.plan.mode == "host":
            self._host.release()


class _PinnedArena:
    """Host memory for streamed chunks: page-locked buffers (ALLOC_HOST_PTR, mapped once) of at most
    HOST_ARENA_BYTES each, so device-to-host copies run at full speed; plain NumPy memory where
    page-locking gains nothing (a device that works in the host's memory, such as PoCL's CPU, or an
    arena under PIN_MIN_BYTES) or the platform refuses it. An arena is made when a chunk in it is first
    written (page-locking costs about 0.5 s per GiB, work a time limit must allow), mapped on a queue
    of its own so that the host does not wait for the sweep's launches. A CPU device maps in the same
    worker threads that run the sweep's kernels, so a map there waits for a launch to end: a cost no
    byte count predicts, and one reason such a device gets plain memory."""

    def __init__(self, device: Device, chunk_bytes: list[int]):
        self.device = device
        self._buffers: list[cl.Buffer] = []
        places, sizes = pack(chunk_bytes, HOST_ARENA_BYTES, align=64)
        self._places = [(arena, offset, int(size)) for (arena, offset), size in zip(places, chunk_bytes)]
        self._sizes = [max(int(size), 64) for size in sizes]
        self._arrays: list[np.ndarray | None] = [None] * len(sizes)
        self._queue: cl.CommandQueue | None = None

    def pins(self, size: int) -> bool:
        """Whether an arena of ``size`` bytes is page-locked."""
        return size >= PIN_MIN_BYTES and not self.device.shares_host_memory

    def _pinned(self, size: int) -> np.ndarray:
        if not self.pins(size):
            return np.empty(size, dtype=np.uint8)
        limit = deadline.current()
        if not limit.allows(size / PIN_BYTES_PER_SECOND):
            limit.stop(f"page-locking {format_bytes(size)} of host memory for the rows streamed there")
        try:
            if self._queue is None:
                self._queue = cl.CommandQueue(self.device.context, self.device.cl_device)
            buffer = cl.Buffer(self.device.context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR, size)
            flags = cl.map_flags.READ | cl.map_flags.WRITE
            # the stub takes map_flags, and READ | WRITE is an int
            array, _ = cl.enqueue_map_buffer(self._queue, buffer, flags, 0, (size,), np.dtype(np.uint8), is_blocking=True)  # type: ignore[arg-type]
            self._buffers.append(buffer)
            return array
        except (cl.Error, MemoryError):
            return np.empty(size, dtype=np.uint8)

    def view(self, k: int) -> np.ndarray:
        arena, offset, size = self._places[k]
        array = self._arrays[arena]
        if array is None:
            array = self._arrays[arena] = self._pinned(self._sizes[arena])
        return array[offset : offset + size]

    def release(self) -> None:
        for array in self._arrays:
            memory_map = getattr(array, "base", None)
            if memory_map is not None and hasattr(memory_map, "release"):
                try:
                    memory_map.release(self._queue or self.device.queue)
                except cl.Error:  # pragma: no cover
                    pass
        self._arrays.clear()
        self._buffers.clear()
