"""dp-states' lists on the device (kernels in ``state_lists.cl``): buffers grown by doubling
up to the plan's limit, one level as six launches and one small read, the block records and the
incumbent's bits read back."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import POISON_BYTE, Device, Plan, Workspace, kernels

from .core import Core, Level
from .records import DeviceBlock

SOURCE = kernels.KernelSource.resource("clsolve_plugins.dp_states", "state_lists.cl")
#: A level's kernels: partition the merge, merge, the prefix maxima, keep the undominated, offsets, compact.
KERNELS = ("states_partition", "states_merge", "states_scan_max", "states_keep", "states_offsets", "states_compact")
#: The most states a work-group takes at once (its chunk, staged in local memory).
CHUNK_STATES = 2048


def program(device: Device, local_size: int) -> kernels.Program:
    """``state_lists.cl`` built for ``device`` with work-groups of ``local_size``."""
    return kernels.program(device, SOURCE, {"LOCAL_SIZE": local_size, "PER_ITEM": per_item(local_size, device.local_memory)})


def per_item(local_size: int, local_memory: int) -> int:
    """States each work-item merges, tests and compacts: the largest chunk (a power of two, at most
    CHUNK_STATES) whose staging fits the device's local memory; ``states_keep`` needs the most, 17
    bytes a state of the chunk and 12 a work-item, with 1 KiB to spare."""
    chunk = CHUNK_STATES
    while chunk > local_size and 17 * chunk + 12 * local_size > local_memory - 1024:
        chunk //= 2
    return max(1, chunk // local_size)


#: Device bytes per slot: a slot holds one state of the merged list (with its keep flag) and of each
#: of the two lists (W, P, bits: 8 bytes, anchor: 4); a list of n states needs 2n slots.
SLOT_BYTES = 3 * 28 + 1
#: Device bytes per slot of the limit: the slot's, and at most one of its work-group's scratch (36 bytes
#: a work-group of at least 64 states). Growing holds the new list and the old one in the names of the
#: two lists (``list_buffers``), with the other buffers given back first: no more at the peak.
LIMIT_BYTES = SLOT_BYTES + 1
#: Slots of the first device lists (they grow by doubling from there).
FIRST_SLOTS = 1024
#: The buffers besides the lists and the merged list.
_SCRATCH = ("keep", "splits", "group_max", "group_count", "group_best", "group_best_at", "group_top", "result_buffer")
#: Bytes of one state's W, P, bits and anchor.
FIELDS = ((8, np.int64), (8, np.int64), (8, np.uint64), (4, np.uint32))
#: The fields' names and bytes (a plan's buffer names: ``W_a`` .. ``anchor_merged``).
_NAMES = (("W", 8), ("P", 8), ("bits", 8), ("anchor", 4))


@dataclass
class LevelResult:
    """What one level's small read says: states kept, the best feasible profit met (-1: none) and
    its index in the merged list, the largest bound of a kept state (-1: none)."""

    count: int
    best: int
    best_at: int
    top: int


class DeviceLists:
    """The current list and the merged one on the device."""

    keep: cl.Buffer
    splits: cl.Buffer
    group_max: cl.Buffer
    group_count: cl.Buffer
    group_best: cl.Buffer
    group_best_at: cl.Buffer
    group_top: cl.Buffer
    result_buffer: cl.Buffer
    merged: list[cl.Buffer]

    def __init__(self, device: Device, local_size: int, limit: int, poison: bool = False, records: int = 0):
        """``limit``: the most slots (states of a merged list) the buffers may hold; ``poison`` fills
        every fresh buffer with a garbage pattern (tests: nothing may read what was not written);
        ``records``: the most bytes of block records kept on the device (``device_record``)."""
        self.device, self.local_size, self.limit, self.poison = device, local_size, limit, poison
        self.per_item = per_item(local_size, device.local_memory)
        self.program = program(device, local_size)
        self.capacity = 0
        self.count = 0
        self.lists: list[list[cl.Buffer]] = []
        self.labels = ["a", "b"]  # the plan's names of each list's buffers (they swap at each level)
        counted = list_buffers(limit, self.groups(limit))
        self.work = Workspace(
            device,
            Plan("dp-states", {**counted, "block records": records}, kernels=KERNELS),
            poison=POISON_BYTE if poison else None,
        )
        self.results = np.zeros(4, dtype=np.int64)
        self.no_row = {
            "row": self.work.empty("results", 8),
            "width": np.uint32(0),
            "grain": np.int64(1),
            "wl": np.int64(0),
            "pl": np.int64(0),
        }
        self.no_cluster = {
            "cS": self.no_row["row"],
            "cV": self.no_row["row"],
            "ccount": np.uint32(0),
            "crate": np.int64(0),
            "cextra": np.int64(0),
            "cdenominator": np.int64(1),
            "cwl": np.int64(0),
            "cpl": np.int64(0),
        }
        self.kernel_seconds = 0.0

    @property
    def chunk(self) -> int:
        return self.local_size * self.per_item

    def groups(self, states: int) -> int:
        return max(1, -(-states // self.chunk))

    def upload(self, arrays: tuple[np.ndarray, ...]) -> None:
        """The list (W, P, bits, anchor) from host arrays."""
        count = int(arrays[0].size)
        self.count = 0  # nothing of the old list is kept
        self._grow(2 * count)
        for buffer, array, (_, dtype) in zip(self.lists[0], arrays, FIELDS):
            if count:
                cl.enqueue_copy(self.device.queue, buffer, np.ascontiguousarray(array, dtype=dtype))
        self.count = count

    def download(self) -> tuple[np.ndarray, ...]:
        """The list (W, P, bits, anchor) as host arrays."""
        out = tuple(np.empty(self.count, dtype) for _, dtype in FIELDS)
        if self.count:
            for buffer, array in zip(self.lists[0], out):
                cl.enqueue_copy(self.device.queue, array, buffer)
        return out

    def _grow(self, states: int) -> None:
        """Buffers of ``states`` slots (doubling, up to the limit), the current list kept. Every other
        buffer is released first, so that at the peak the device holds the new buffers and the old
        list only (``GROWTH_BYTES`` a slot of the limit)."""
        if states <= self.capacity:
            return
        capacity = min(self.limit, max(states, 2 * self.capacity, FIRST_SLOTS))
        queue = self.device.queue
        old, kept, fresh = (self.lists[0] if self.lists else []), self.labels[0], self.labels[1]
        self._free()  # all but the list kept; the new list is made where the other one was
        new = self._list(fresh, capacity)
        if self.count:
            for src, dst, (size, _) in zip(old, new, FIELDS):
                cl.enqueue_copy(queue, dst, src, byte_count=size * self.count)
        queue.finish()
        self._release(kept, old)
        self.lists, self.labels = [new, self._list(kept, capacity)], [fresh, kept]
        self.merged = self._list("merged", capacity)
        self.keep = self.work.empty("keep", capacity)
        groups = self.groups(capacity)
        for name, size in (
            ("splits", 4 * (groups + 1)),
            ("group_max", 8 * groups),
            ("group_count", 4 * groups),
            ("group_best", 8 * groups),
            ("group_best_at", 4 * groups),
            ("group_top", 8 * groups),
        ):
            setattr(self, name, self.work.empty("groups", size))
        self.result_buffer = self.work.empty("results", 32)
        self.capacity = capacity
        self._bind()

    def release(self) -> None:
        """Every buffer, now."""
        self._free()
        if self.lists:
            self._release(self.labels[0], self.lists[0])
        self.lists, self.capacity, self.count = [], 0, 0

    def _free(self) -> None:
        """Every buffer but the current list (``lists[0]``), now: the other list, the merged list and
        the scratch (the kernels holding them are replaced by ``_bind`` afterwards)."""
        if self.lists:
            self._release(self.labels[1], self.lists[1])
            self.lists[1] = []
        self._release("merged", getattr(self, "merged", []))
        self.merged = []
        for name in _SCRATCH:
            buffer = getattr(self, name, None)
            if buffer is not None:
                self.work.release({"keep": "keep", "result_buffer": "results"}.get(name, "groups"), buffer)
            setattr(self, name, None)

    def _list(self, label: str, capacity: int) -> list[cl.Buffer]:
        return [self.work.empty(f"{field}_{label}", size * capacity) for (field, _), (size, _) in zip(_NAMES, FIELDS)]

    def _release(self, label: str, buffers: list[cl.Buffer]) -> None:
        for (field, _), buffer in zip(_NAMES, buffers):
            self.work.release(f"{field}_{label}", buffer)

    def _bind(self) -> None:
        """Fresh kernels with the buffers that do not change between levels."""
        program = self.program
        self.partition = self.work.kernel(program, "states_partition").set(splits=self.splits)
        self.merge = self.work.kernel(program, "states_merge").set(
            MW=self.merged[0],
            MP=self.merged[1],
            Mbits=self.merged[2],
            Manchor=self.merged[3],
            splits=self.splits,
            group_max=self.group_max,
        )
        self.scan_max = self.work.kernel(program, "states_scan_max").set(values=self.group_max)
        self.keep_kernel = self.work.kernel(program, "states_keep").set(
            MW=self.merged[0],
            MP=self.merged[1],
            prefix_max=self.group_max,
            keep=self.keep,
            group_count=self.group_count,
            group_best=self.group_best,
            group_best_at=self.group_best_at,
            group_top=self.group_top,
        )
        self.offsets = self.work.kernel(program, "states_offsets").set(
            counts=self.group_count,
            group_best=self.group_best,
            group_best_at=self.group_best_at,
            group_top=self.group_top,
            results=self.result_buffer,
        )
        self.compact = self.work.kernel(program, "states_compact").set(
            MW=self.merged[0],
            MP=self.merged[1],
            Mbits=self.merged[2],
            Manchor=self.merged[3],
            keep=self.keep,
            offsets=self.group_count,
        )

    # long: one level is six launches whose arguments are named here
    def level(
        self,
        core: Core,
        level: Level,
        best: int,
        reset: bool,
        bit: int,
        relaxed: dict[str, object] | None = None,
        cluster: dict[str, object] | None = None,
    ) -> LevelResult:
        """Merge the list with its copy shifted by ``level``'s item, keep the undominated promising
        states (bounds against ``best``; ``relaxed``: the rounded relaxation's row and its arguments,
        ``RelaxedRows.arguments``; ``cluster``: the cluster bound's, ``ClusterLists.arguments``),
        compact; returns the level's small read."""
        n = self.count
        m = 2 * n
        self._grow(m)
        w, p = int(core.weights[level.item]), int(core.profits[level.item])
        shift = (w, p) if level.add else (-w, -p)
        groups = self.groups(m)
        add, remove = core.next_items()
        queue, local = self.device.queue, (self.local_size,)
        full = (groups * self.local_size,)
        src, dst = self.lists
        boundaries = -(-(groups + 1) // self.local_size) * self.local_size
        self.partition.set(
            W=src[0], P=src[1], n=np.uint32(n), dw=np.int64(shift[0]), dp=np.int64(shift[1]), groups=np.uint32(groups)
        ).enqueue(queue, (boundaries,), local)
        self.merge.set(
            W=src[0],
            P=src[1],
            bits=src[2],
            anchor=src[3],
            n=np.uint32(n),
            dw=np.int64(shift[0]),
            dp=np.int64(shift[1]),
            bit=np.uint64(bit),
            reset=np.int32(reset),
        )
        self.merge.enqueue(queue, full, local)
        self.scan_max.set(count=np.uint32(groups)).enqueue(queue, local, local)
        self.keep_kernel.set(
            m=np.uint32(m),
            capacity=np.int64(core.capacity),
            best=np.int64(best),
            has_add=np.int32(add is not None),
            pt=np.int64(add[0] if add else 0),
            wt=np.int64(add[1] if add else 1),
            has_remove=np.int32(remove is not None),
            ps=np.int64(remove[0] if remove else 0),
            ws=np.int64(remove[1] if remove else 1),
            **(relaxed or self.no_row),
            **(cluster or self.no_cluster),
        )
        self.keep_kernel.enqueue(queue, full, local)
        self.offsets.set(groups=np.uint32(groups)).enqueue(queue, local, local)
        self.compact.set(m=np.uint32(m), W=dst[0], P=dst[1], bits=dst[2], anchor=dst[3])
        self.compact.enqueue(queue, full, local)
        cl.enqueue_copy(queue, self.results, self.result_buffer)  # blocking
        self.lists, self.labels = [dst, src], self.labels[::-1]
        self.count = int(self.results[0])
        return LevelResult(*(int(x) for x in self.results))

    def merged_state(self, index: int) -> tuple[int, int]:
        """(bits, anchor) of state ``index`` of the last merged list."""
        bits, anchor = np.zeros(1, np.uint64), np.zeros(1, np.uint32)
        queue = self.device.queue
        cl.enqueue_copy(queue, bits, self.merged[2], src_offset=8 * index)
        cl.enqueue_copy(queue, anchor, self.merged[3], src_offset=4 * index)
        return int(bits[0]), int(anchor[0])

    def device_record(self) -> DeviceBlock:
        """(bits, anchors) of the current list, copied into new device buffers."""
        size = max(self.count, 1)
        queue = self.device.queue
        bits, anchors = self.work.empty("block records", 8 * size), self.work.empty("block records", 4 * size)
        if self.count:
            cl.enqueue_copy(queue, bits, self.lists[0][2], byte_count=8 * self.count)
            cl.enqueue_copy(queue, anchors, self.lists[0][3], byte_count=4 * self.count)
        return DeviceBlock(queue, bits, anchors, self.count, lambda: self.work.release("block records", bits, anchors))

    def record(self) -> tuple[np.ndarray, np.ndarray]:
        """(bits, anchors) of the current list."""
        bits, anchors = np.empty(self.count, np.uint64), np.empty(self.count, np.uint32)
        if self.count:
            cl.enqueue_copy(self.device.queue, bits, self.lists[0][2])
            cl.enqueue_copy(self.device.queue, anchors, self.lists[0][3])
        return bits, anchors


def device_groups(device: Device, local_size: int, slots: int) -> int:
    """Work-groups a level of ``slots`` merged states takes (``DeviceLists.groups``)."""
    return max(1, -(-slots // (local_size * per_item(local_size, device.local_memory))))


def list_buffers(slots: int, groups: int) -> dict[str, int]:
    """The device buffers of ``slots`` slots merged by ``groups`` work-groups: two lists and the merged
    one (a buffer per field; a list grows into the other one's names while the old one is copied),
    the keep flags, the work-groups' scratch, the level's results."""
    out = {"keep": slots, "groups": 4 * (groups + 1) + 32 * groups, "results": 32 + 8}
    for field, size in _NAMES:
        out.update({f"{field}_a": size * slots, f"{field}_b": size * slots, f"{field}_merged": size * slots})
    return out
