"""mckp on the device: the two value rows, the prefix sums of the groups (sorted and uploaded a
chunk ahead of the device), the per-group launches (Eq. 4) and the trace-back of the counts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import Knapsack, Pacer, Workspace, copy_later, deadline, fill, kernels, opencl_type

from .groups import Groups

#: The kernels ([HC22], Eq. 4-5: one launch per group).
SOURCE = kernels.KernelSource.resource("clsolve_plugins.mckp", "mckp.cl")
#: Items per chunk of groups sorted on the host while the device works (about 8 chunks a problem).
SORT_CHUNKS = 8
#: Each variant's group step ([HC22] Alg. 2 with its counts gathered in local or global memory, or scattered).
MAIN_KERNELS = {"full": "mckp_gather_local", "no-local": "mckp_gather_global", "no-opt": "mckp_scatter"}


_COUNT_TYPES = {np.dtype(np.uint8): "uchar", np.dtype(np.uint16): "ushort", np.dtype(np.uint32): "uint"}


@dataclass
class Layout:
    """Everything ``plan`` decides for one (reduced) problem on one device."""

    grouping: str
    groups: Groups
    dtype: np.dtype
    count_dtype: np.dtype
    states: int
    local_size: int
    columns: int
    tile_items: int
    storage: str  # device, host or recompute
    segment_groups: int  # groups whose counts rows share one device buffer
    atomic: int | None  # scatter variant only

    @property
    def row_bytes(self) -> int:
        return self.states * self.dtype.itemsize

    @property
    def counts_row_bytes(self) -> int:
        return self.states * self.count_dtype.itemsize

    @property
    def segments(self) -> list[tuple[int, int]]:
        m, s = self.groups.count, self.segment_groups
        return [(g, min(g + s, m)) for g in range(0, m, s)]


def sweep_kernels(variant: str) -> tuple[str, ...]:
    """The kernels a :class:`Sweep` of ``variant`` launches (mckp.cl): its group step and the trace-back."""
    return (MAIN_KERNELS[variant],) + (("mckp_counts",) if variant == "no-opt" else ()) + ("mckp_backtrack",)


def sweep_buffers(problem: Knapsack, lay: Layout) -> dict[str, int]:
    """The device buffers of a :class:`Sweep` (a plan's, besides a store's counts rows)."""
    m = lay.groups.count
    buffers = {
        "row_a": lay.row_bytes,
        "row_b": lay.row_bytes,
        "prefix_sums": max(4, 4 * problem.n) + max(8, problem.n * lay.dtype.itemsize),
        "group_first": 4 * (m + 1),
        "taken": 4 * m,
        "backtrack": 4 + 16,
    }
    if lay.storage == "recompute":
        buffers["counts_segment"] = max(1, lay.segment_groups) * lay.counts_row_bytes
    return buffers


class Sweep:
    """One solve's device state: two DP rows, the groups' prefix sums (sorted and uploaded chunk by
    chunk, the next chunk while the device runs the current one), and the per-group launches."""

    # long: the sweep's buffers, its first sorted chunk and its kernels by parity
    def __init__(self, problem: Knapsack, lay: Layout, work: Workspace, variant: str, record: bool):
        """Buffers from ``work`` (``sweep_buffers``), poisoned where it poisons."""
        device = work.device
        self.problem, self.lay, self.variant, self.work = problem, lay, variant, work
        self.queue = queue = device.queue
        defines = {
            "VALUE_T": opencl_type(lay.dtype),
            "LOCAL_SIZE": lay.local_size,
            "COUNT_T": _COUNT_TYPES[lay.count_dtype] if record else "uchar",
            "RECORD": int(record),
            "TILE_ITEMS": lay.tile_items,
            "COLUMNS": lay.columns,
        }
        if lay.atomic is not None:
            defines["ATOMIC"] = lay.atomic
        program = kernels.program(device, SOURCE, defines)
        n, m, states = problem.n, lay.groups.count, lay.states
        self.rows = [work.empty(key, lay.row_bytes) for key in ("row_a", "row_b")]
        self.current = 0
        self.host_w = np.empty(n, dtype=np.uint32)
        self.host_p = np.empty(n, dtype=lay.dtype)
        self.prefix_w = work.empty("prefix_sums", max(4, self.host_w.nbytes))
        self.prefix_p = work.empty("prefix_sums", max(8, self.host_p.nbytes))
        self.group_first = work.upload("group_first", lay.groups.first.astype(np.uint32))
        self.taken = work.empty("taken", 4 * lay.groups.count)
        self.remaining = work.upload("backtrack", np.array([states - 1], dtype=np.uint32), writable=True)
        self.no_counts = work.empty("backtrack", 16)
        fill(queue, self.rows[0], 0)
        # the prefix sums arrive chunk by chunk (partial writes); zeroed first so that every byte is
        # defined from the start (Oclgrind's uninitialized-memory check counts only whole-buffer writes)
        for buf in (self.prefix_w, self.prefix_p):
            fill(queue, buf, 0)
        # chunks of groups sorted together: about n / SORT_CHUNKS items each
        target = max(1, -(-n // SORT_CHUNKS))
        bounds = np.searchsorted(lay.groups.first, np.arange(target, n, target), side="left")
        self.chunk_ends = sorted(set(int(b) for b in bounds if 0 < b < m) | {m})
        self.prepared = 0
        self._prepare_next()
        self.pacer = Pacer(queue, "mckp group steps", m)
        # one kernel object per parity (prev = rows[p]): only counts, offset, group change per launch
        self.global_size = -(-states // lay.local_size) * lay.local_size
        if variant == "full":
            self.global_size = -(-states // (lay.local_size * lay.columns)) * lay.local_size
        main = MAIN_KERNELS[variant]
        self.main, self.counts_kernels = [], []
        for parity in range(2):
            rows = {
                "prev": self.rows[parity],
                "next": self.rows[1 - parity],
                "prefix_w": self.prefix_w,
                "prefix_p": self.prefix_p,
                "states": np.uint32(states),
            }
            self.main.append(work.kernel(program, main).set(**rows))
            if variant == "no-opt":
                self.counts_kernels.append(work.kernel(program, "mckp_counts").set(**rows))
        self.record = record
        self.backtrack_kernel = work.kernel(program, "mckp_backtrack").set(
            states=np.uint64(self.lay.states),
            prefix_w=self.prefix_w,
            group_first=self.group_first,
            remaining=self.remaining,
            taken=self.taken,
        )

    @property
    def row(self) -> cl.Buffer:
        """The row holding the DP values after the groups stepped so far."""
        return self.rows[self.current]

    def _prepare_next(self) -> None:
        """Sort the next chunk of groups and upload their prefix sums (non-blocking)."""
        groups, lay = self.lay.groups, self.lay
        begin = self.prepared
        end = next(e for e in self.chunk_ends if e > begin)
        groups.sort_range(self.problem, begin, end)
        lo, hi = int(groups.first[begin]), int(groups.first[end])
        w, p = groups.prefix_sums(self.problem, begin, end, lay.states, lay.dtype)
        self.host_w[lo:hi], self.host_p[lo:hi] = w, p
        if hi > lo:
            cl.enqueue_copy(self.queue, self.prefix_w, self.host_w[lo:hi], dst_offset=4 * lo, is_blocking=False)
            cl.enqueue_copy(self.queue, self.prefix_p, self.host_p[lo:hi], dst_offset=lo * lay.dtype.itemsize, is_blocking=False)
        self.prepared = end

    def counts_buffer(self, groups: int) -> cl.Buffer:
        return self.work.empty("counts_segment", max(1, groups) * self.lay.counts_row_bytes)

    def step(self, g: int, counts: cl.Buffer | None = None, offset: int = 0, wait_for=None) -> cl.Event:
        """Enqueue group g's row update (Eq. 4); the counts row goes to counts[offset:]."""
        first, size = int(self.lay.groups.first[g]), int(self.lay.groups.sizes[g])
        parity = self.current
        kernel = self.main[parity]
        group = (self.lay.local_size,)
        if self.variant == "no-opt":
            prev, nxt = self.rows[parity], self.rows[1 - parity]
            cl.enqueue_copy(self.queue, nxt, prev, wait_for=wait_for)
            event = kernel.set(first=np.uint32(first), size=np.uint32(size)).enqueue(self.queue, (self.global_size,), group)
            if self.record:
                event = (
                    self.counts_kernels[parity]
                    .set(
                        counts=counts if counts is not None else self.no_counts,
                        counts_offset=np.uint64(offset),
                        first=np.uint32(first),
                        size=np.uint32(size),
                    )
                    .enqueue(self.queue, (self.global_size,), group)
                )
        else:
            event = kernel.set(
                counts=counts if counts is not None else self.no_counts,
                counts_offset=np.uint64(offset),
                first=np.uint32(first),
                size=np.uint32(size),
            ).enqueue(self.queue, (self.global_size,), group, wait_for=wait_for)
        self.current = 1 - parity
        if g + 1 == self.prepared and self.prepared < self.lay.groups.count:
            self._prepare_next()  # the host sorts while the device runs what is queued
        self.pacer.launch()
        return event

    def restore(self, row: np.ndarray | None) -> None:
        """Make a checkpoint row (None: the all-zero first row) the current row."""
        if row is None:
            fill(self.queue, self.row, 0)
        else:
            cl.enqueue_copy(self.queue, self.row, row, is_blocking=False)

    def backtrack(self, counts: cl.Buffer, g0: int, g1: int, offset: int = 0) -> None:
        """Walk the counts rows of groups g0 .. g1 - 1 back (they start at element ``offset`` of ``counts``)."""
        self.backtrack_kernel.set(
            counts=counts, counts_offset=np.uint64(offset), group_begin=np.uint32(g0), groups=np.uint32(g1 - g0)
        ).enqueue(self.queue, (1,), (1,))

    def read_taken(self) -> np.ndarray:
        out = np.empty(self.lay.groups.count, dtype=np.uint32)
        pending: list[cl.Event] = []
        copy_later(self.queue, out, self.taken, pending)
        deadline.drain(self.queue, "mckp: the trace-back", pending)
        return out.astype(np.int64)
