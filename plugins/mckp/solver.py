"""Host side of ``mckp`` (kernels in ``mckp.cl``): the multi-class 0-1 knapsack DP of [HC22].

Items are grouped by equal value or equal weight (``groups.py``); one launch per group computes the
next DP row by Eq. 4 over all capacities, so a knapsack of N items in M groups needs M launches
instead of N. The host sorts the next chunk of groups while the device works on the current one.

Items: for each group and capacity the kernels record how many of the group's sorted items the best
value takes (the "counts", one byte per state while groups have at most 255 items). ``plan`` puts
them where they fit, and reports which with the bytes:

* ``device``: every group's counts row stays on the device; one work-item traces back;
* ``host``: rows are copied to host memory segment by segment on a second queue while the device
  goes on with the next segment; the host traces back;

(both through the engine's ``RowStore``, a segment of groups being one chunk of rows)
* ``recompute``: only a DP value row per segment is kept (in host memory); the trace-back restores
  each segment's starting row, recomputes the segment with its counts, and walks it (twice the work).
"""

# long module: the plan, the kept and recomputed counts and both trace-backs share the layout
from __future__ import annotations

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    HOST_CHUNK_BYTES,
    MAX_STATES,
    MODEL_BANDWIDTH,
    MODEL_COPY_BANDWIDTH,
    MODEL_LAUNCH_SECONDS,
    POISON_BYTE,
    RING_SLOTS,
    Device,
    DeviceSolver,
    InvalidOptionError,
    Knapsack,
    Plan,
    RowStore,
    Solution,
    StorePlan,
    Timings,
    UnsupportedProblemError,
    Workspace,
    copy_later,
    deadline,
    dp_accepts,
    host_memory_bytes,
    least,
    memory,
    opencl_type,
    plan_store,
    planned,
    presolved,
    reduction,
    value_dtype,
    work_group_size,
)

from .groups import GROUPINGS, Groups, choose_grouping
from .sweep import Layout, Sweep, sweep_buffers, sweep_kernels

#: Table 3 of [HC22]: ``full`` (local memory, no atomics), ``no-local`` ("w/o SharedMem"),
#: ``no-opt`` ("w/o Opt": scattered writes with an atomic maximum).
VARIANTS = ("full", "no-local", "no-opt")
COUNT_STORAGE = ("auto", "device", "host", "recompute")
ATOMICS = ("auto", "native", "cas")
#: Inner-loop steps (one capacity, one k) per second of the gather kernels, for ``auto``'s estimate.
MODEL_STEPS_PER_SECOND = {"gpu": 2.0e12, "other": 1.0e9}
#: Capacities per work-item of the local-memory kernel (each reads a prefix sum once for all of them).
DEFAULT_COLUMNS = 4
#: Tile of a group in local memory, in items (8 or 12 bytes each: 12 KiB at most, so local memory
#: does not limit how many work-groups of 256 share a multiprocessor).
MAX_TILE_ITEMS = 1024
#: Share of host memory the ``host`` storage may fill with counts before ``auto`` prefers recomputing
#: (the engine's host budget bounds every plan; this leaves room for the caller's own data).
COUNTS_HOST_SHARE = 0.5
#: States are indexed with 32-bit integers; a work-group's last capacity must not wrap.
MCKP_MAX_STATES = MAX_STATES - 2**16


def count_dtype(largest_group: int) -> np.dtype:
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest_group <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    raise ValueError(largest_group)  # pragma: no cover - groups have < 2^32 items


def atomic_mode(device: Device, dtype: np.dtype, requested: str) -> int | None:
    """ATOMIC of mckp.cl for the scatter kernel, or None when the device cannot do 64-bit maxima."""
    if dtype == np.int32:
        return 0
    extensions = device.cl_device.extensions.split()
    if requested in ("auto", "native") and "cl_khr_int64_extended_atomics" in extensions:
        return 1
    if requested in ("auto", "cas") and "cl_khr_int64_base_atomics" in extensions:
        return 2
    return None


class MultiClassSolver(DeviceSolver):
    name = "mckp"
    summary = "multi-class DP ([HC22]): one launch per group of equal value or weight, m = 1, items returned"

    def __init__(
        self,
        grouping: str = "auto",
        variant: str = "full",
        counts: str = "auto",
        value_bits: int | None = None,
        local_size: int | None = None,
        columns: int | None = None,
        tile_items: int | None = None,
        segment_groups: int | None = None,
        atomics: str = "auto",
        presolve: bool = True,
        poison: bool = False,
    ):
        """``grouping``: ``value``, ``weight`` or ``auto`` (the one with fewer groups). ``variant``:
        ``full``, ``no-local`` or ``no-opt`` (Table 3 of [HC22]). ``counts``: where the per-group
        counts for the items live, ``auto`` (device, else host, else recompute), ``device``, ``host``
        or ``recompute``. ``segment_groups`` caps the groups per counts segment (host and recompute
        copy or recompute a segment at a time). ``tile_items`` caps the items of a group held in
        local memory at once. ``atomics`` (``no-opt`` with 64-bit values): ``auto``, ``native``
        (atom_max) or ``cas`` (compare-and-swap loop). ``value_bits``, ``local_size``, ``presolve``
        and ``poison`` as for ``dp-rows``."""
        checks = [
            ("grouping", grouping, GROUPINGS),
            ("variant", variant, VARIANTS),
            ("counts", counts, COUNT_STORAGE),
            ("atomics", atomics, ATOMICS),
        ]
        for field_name, value, allowed in checks:
            if value not in allowed:
                raise InvalidOptionError(f"{field_name} must be one of {', '.join(allowed)}; got {value!r}")
        if value_bits not in (None, 32, 64):
            raise InvalidOptionError(f"value_bits must be 32, 64 or None, got {value_bits!r}")
        for field_name, size in (
            ("columns", columns),
            ("tile_items", tile_items),
            ("segment_groups", segment_groups),
            ("local_size", local_size),
        ):
            if size is not None and (not isinstance(size, int) or size < 1):
                raise InvalidOptionError(f"{field_name} must be a positive integer, got {size!r}")
        if columns is not None and columns > 16:
            raise InvalidOptionError(f"columns must be at most 16, got {columns}")
        self.grouping, self.variant, self.counts, self.atomics = grouping, variant, counts, atomics
        self.value_bits, self.local_size, self.columns = value_bits, local_size, columns
        self.tile_items, self.segment_groups = tile_items, segment_groups
        self.presolve, self.poison = bool(presolve), bool(poison)

    # -- planning ----------------------------------------------------------------------------
    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return f"{self.name} solves knapsack problems only"
        if problem.m != 1:
            return f"{self.name} solves one capacity dimension (m = 1); this problem has m = {problem.m}"
        reduced = reduction(problem, self.presolve).problem
        if reduced is None:
            return None
        reason = dp_accepts(reduced, self.name, problem)
        if reason is None and reduced.cells() > MCKP_MAX_STATES:
            reason = f"the DP row would have {reduced.cells()} states, above {self.name}'s limit of {MCKP_MAX_STATES}"
        return reason

    def _groups(self, problem: Knapsack) -> tuple[str, Groups]:
        """Grouping and partition of ``problem``, kept between plan and solve (the problem's memo)."""
        by = choose_grouping(problem, self.grouping)
        key = (self.name, by)
        if key not in problem.memo:
            problem.memo[key] = Groups.of(problem, by)
        return by, problem.memo[key]

    def layout(self, problem: Knapsack, device: Device) -> Layout:
        """The decisions of ``plan`` for a reduced problem (public for the benchmark)."""
        by, groups = self._groups(problem)
        dtype = value_dtype(problem, self.value_bits)
        counts_type = count_dtype(groups.largest)
        states = problem.cells()
        local_size = work_group_size(device.max_work_group_size, self.local_size)
        columns = self.columns or DEFAULT_COLUMNS
        budget = (device.local_memory - 1024) // (4 + dtype.itemsize)
        # the same tile for every problem on a device: one build serves all group sizes
        tile = min(self.tile_items or MAX_TILE_ITEMS, MAX_TILE_ITEMS, max(1, budget))
        atomic = atomic_mode(device, dtype, self.atomics) if self.variant == "no-opt" else None
        if self.variant == "no-opt" and atomic is None:
            raise UnsupportedProblemError(
                f"{self.name} variant 'no-opt' needs an atomic maximum on 64-bit values (the total profit "
                f"{problem.total_profit} passes 2^31 - 1) but {device.label} has no cl_khr_int64_base_atomics "
                f"(atomics={self.atomics!r}); use variant 'full' or 'no-local'"
            )
        storage, segment = self._storage(problem, groups, states, dtype, counts_type, device)
        return Layout(by, groups, dtype, counts_type, states, local_size, columns, tile, storage, segment, atomic)

    def _storage(self, problem, groups: Groups, states: int, dtype, counts_type, device: Device) -> tuple[str, int]:
        m = groups.count
        row = states * counts_type.itemsize
        fixed = 2 * states * dtype.itemsize + problem.n * (4 + dtype.itemsize) + 8 * m + 64
        device_room = device.memory_budget - fixed
        host_room = min(int(host_memory_bytes() * COUNTS_HOST_SHARE), memory.host_budget())
        per_buffer = max(1, device.max_allocation // row)
        cap = self.segment_groups or m
        wanted = self.counts
        if wanted == "auto":
            if m * row <= device_room:
                wanted = "device"
            elif m * row <= host_room:
                wanted = "host"
            else:
                wanted = "recompute"
        if wanted == "device":
            return wanted, max(1, min(m, per_buffer, cap))
        if wanted == "host":
            segment = max(1, min(m, per_buffer, HOST_CHUNK_BYTES // row, cap, max(1, device_room // (RING_SLOTS * row))))
            return wanted, segment
        # recompute: the largest segment that fits the device, at least one row
        segment = max(1, min(m, per_buffer, cap, max(1, device_room // row)))
        if segment == m and m > 1 and self.segment_groups is None:
            segment = -(-m // 2)  # recompute asked for on a problem that would fit: still two segments
        return wanted, segment

    @staticmethod
    def _store(problem: Knapsack, lay: Layout, device: Device) -> StorePlan:
        """Where the counts rows live (``device`` or ``host``), a segment of groups per chunk."""
        other = 2 * lay.row_bytes + problem.n * (4 + lay.dtype.itemsize) + 8 * lay.groups.count + 64
        return plan_store(
            f"{problem.describe()}: counts rows",
            [(g1 - g0) * lay.counts_row_bytes for g0, g1 in lay.segments],
            device,
            other,
            mode=lay.storage,
        )

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        return planned(self.name, problem, self.presolve, lambda reduced: self._plan(reduced, device))

    def least_seconds(self, problem: Knapsack, device: Device) -> float:
        """The plan's steps (an item for every capacity) alone, at the model's rate."""
        kind = "gpu" if device.is_gpu else "other"
        return least(problem, self.presolve, lambda reduced: reduced.n * reduced.cells() / MODEL_STEPS_PER_SECOND[kind] + 0.002)

    def _plan(self, problem: Knapsack, device: Device) -> Plan:
        lay = self.layout(problem, device)
        m, states, n = lay.groups.count, lay.states, problem.n
        segments = lay.segments
        buffers = sweep_buffers(problem, lay)
        host = {}
        if lay.storage == "recompute":
            host["checkpoints"] = (len(segments) - 1) * lay.row_bytes
        else:
            store = self._store(problem, lay, device)
            buffers.update(store.device_buffers("counts", device))
            if store.host_bytes:
                host["counts"] = store.host_bytes
        kind = "gpu" if device.is_gpu else "other"
        passes = m * (2 if lay.storage == "recompute" else 1)
        steps = n * states * (2 if lay.storage == "recompute" else 1)
        streamed = passes * 2 * lay.row_bytes + m * lay.counts_row_bytes
        copied = host.get("counts", 0) + 2 * host.get("checkpoints", 0)
        launches = passes * (3 if self.variant == "no-opt" else 1)  # no-opt: row copy, scatter, counts
        seconds = (
            steps / MODEL_STEPS_PER_SECOND[kind]
            + streamed / MODEL_BANDWIDTH[kind]
            + launches * MODEL_LAUNCH_SECONDS[kind]
            + copied / MODEL_COPY_BANDWIDTH
            + 0.002
        )
        return Plan(
            solver=self.name,
            device_buffers=buffers,
            host_buffers=host,
            kernels=sweep_kernels(self.variant),
            cell_updates=n * states,
            launches=launches + len(segments),
            seconds=seconds,
            details={
                "grouping": lay.grouping,
                "groups": m,
                "largest_group": lay.groups.largest,
                "variant": self.variant,
                "value_type": opencl_type(lay.dtype),
                "count_type": str(lay.count_dtype),
                "counts": lay.storage,
                "counts_bytes": m * lay.counts_row_bytes,
                "segment_groups": lay.segment_groups,
                "segments": len(segments),
                "local_size": lay.local_size,
                "columns": lay.columns,
                "tile_items": lay.tile_items,
                "states_per_row": states,
            },
        )

    # -- solving -----------------------------------------------------------------------------
    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        return presolved(self.name, problem, self.presolve, device.label, lambda core: self._solve(core, device))

    def _solve(self, problem: Knapsack, device: Device) -> Solution:
        lay = self.layout(problem, device)
        value, taken, timings = self._run(problem, device, lay, record=True)
        sizes = lay.groups.sizes
        if np.any(taken > sizes):
            bad = int(np.flatnonzero(taken > sizes)[0])
            raise RuntimeError(
                f"{self.name}: the trace-back read an unwritten count for group {bad} "
                f"({int(taken[bad])} > {int(sizes[bad])} items)"
            )
        selected = lay.groups.selected(problem.n, taken)
        notes = [
            f"{lay.groups.count} groups by {lay.grouping} (largest {lay.groups.largest}), variant "
            f"{self.variant}, {opencl_type(lay.dtype)} values, counts {lay.storage} "
            f"({len(lay.segments)} segment(s) of {lay.segment_groups} groups, "
            f"{lay.groups.count * lay.counts_row_bytes} bytes)"
        ]
        return Solution(
            value=value,
            selected=selected,
            optimal=True,
            solver=self.name,
            device=device.label,
            timings=timings,
            notes=notes,
            stats={"groups": lay.groups.count, "grouping": lay.grouping, "counts": lay.storage},
        )

    def value_only(self, problem: Knapsack, device: Device) -> tuple[int, Timings]:
        """The optimal value without the items (no counts recorded): the paper's own measure, for
        the benchmark. The engine's ``solve`` always returns (and checks) the items."""
        reduced = reduction(problem, self.presolve)
        forced = int(problem.profits[reduced.forced].sum())
        if reduced.problem is None:
            return forced, Timings()
        lay = self.layout(reduced.problem, device)
        value, _, timings = self._run(reduced.problem, device, lay, record=False)
        return value + forced, timings

    def _run(self, problem: Knapsack, device: Device, lay: Layout, record: bool):
        """The value and (with ``record``) the items taken of each group, with the time of each phase."""
        timings = Timings()
        with timings.phase("upload"):
            work = Workspace(
                device,
                Plan(self.name, device_buffers=sweep_buffers(problem, lay), kernels=sweep_kernels(self.variant)),
                poison=POISON_BYTE if self.poison else None,
            )
            sweep = Sweep(problem, lay, work, self.variant, record)
        with timings.phase("kernels"):
            if not record:
                for g in range(lay.groups.count):
                    sweep.step(g)
                return self._value(sweep), None, timings
            if lay.storage == "recompute":
                value = self._recomputed(sweep)
                return value, sweep.read_taken(), timings
            store = RowStore(device, self._store(problem, lay, device), poison=POISON_BYTE if self.poison else None)
        try:
            with timings.phase("kernels"):
                value = self._kept(sweep, store)
            with timings.phase("download"):
                taken = sweep.read_taken() if store.plan.mode == "device" else self._walk_on_host(sweep, store)
        finally:
            store.release()
        return value, taken, timings

    @staticmethod
    def _value(sweep: Sweep) -> int:
        """The last state's value after every group (waits for the queue)."""
        value = np.zeros(1, dtype=sweep.lay.dtype)
        pending: list[cl.Event] = []
        copy_later(sweep.queue, value, sweep.row, pending, (sweep.lay.states - 1) * sweep.lay.dtype.itemsize)
        deadline.drain(sweep.queue, "mckp: the last group", pending)
        return int(value[0])

    @staticmethod
    def _kept(sweep: Sweep, store: RowStore) -> int:
        """Every group stepped with its counts row written into the store (a segment per chunk);
        on the device, walked back there too. Returns the value."""
        lay, size = sweep.lay, sweep.lay.count_dtype.itemsize
        for k, (g0, g1) in enumerate(lay.segments):
            buffer, offset, wait = store.slot(k)
            for g in range(g0, g1):
                done = sweep.step(g, buffer, offset // size + (g - g0) * lay.states, wait_for=wait if g == g0 else None)
            store.finished(k, done)
        value = MultiClassSolver._value(sweep)
        if store.plan.mode == "device":
            for k in reversed(range(len(lay.segments))):
                buffer, offset = store.readable(k)
                sweep.backtrack(buffer, *lay.segments[k], offset=offset // size)
        store.drain()
        return value

    @staticmethod
    def _walk_on_host(sweep: Sweep, store: RowStore) -> np.ndarray:
        """Eq. 5 backwards over the streamed counts rows: the items each group takes."""
        lay = sweep.lay
        taken = np.zeros(lay.groups.count, dtype=np.int64)
        rest = lay.states - 1
        for g, row in store.backward([(g0, g1 - g0) for g0, g1 in lay.segments], lay.count_dtype, lay.states):
            taken[g] = count = int(row[rest])
            if 0 < count <= lay.groups.sizes[g]:
                rest -= int(sweep.host_w[lay.groups.first[g] + count - 1])
        return taken

    @staticmethod
    def _recomputed(sweep: Sweep) -> int:
        """The sweep keeping a value row per segment (checkpoints in host memory), then each segment,
        last first, recomputed from its checkpoint with its counts and walked back. Returns the value."""
        lay = sweep.lay
        segments = lay.segments
        checkpoints = np.empty((len(segments) - 1, lay.states), dtype=lay.dtype)
        buf = sweep.counts_buffer(lay.segment_groups)
        for index, (g0, g1) in enumerate(segments):
            if index > 0:
                cl.enqueue_copy(sweep.queue, checkpoints[index - 1], sweep.row, is_blocking=False)
            for g in range(g0, g1):
                sweep.step(g, buf, (g - g0) * lay.states)
        value = MultiClassSolver._value(sweep)
        sweep.backtrack(buf, *segments[-1])
        for index in range(len(segments) - 2, -1, -1):
            g0, g1 = segments[index]
            sweep.restore(checkpoints[index - 1] if index > 0 else None)
            for g in range(g0, g1):
                sweep.step(g, buf, (g - g0) * lay.states)
            sweep.backtrack(buf, g0, g1)
        return value
