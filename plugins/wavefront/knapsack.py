"""0-1 knapsack on the wavefront model (kernels in ``wavefront_kp.cl``): a check of the
model against ``dp-rows`` on the same problems. One launch per item, or per run of light items
applied on chip (``kp_block``, temporal blocking: ``clsolve.dp.blocking``); the decision rows of
each launch are one chunk of the store, streamed to host memory when they do not all fit on the
device."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    BACK_DEPTH,
    Device,
    InvalidProblemError,
    Knapsack,
    Pacer,
    Plan,
    RowStore,
    Solution,
    Timings,
    Workspace,
    clamped_weights,
    copy_later,
    deadline,
    fill,
    kernels,
    opencl_type,
    plan_store,
    runs,
    value_bound,
    value_dtype,
    work_group_size,
)

#: The kernels: 0-1 knapsack rows on the wavefront model ([OM]).
KNAPSACK_SOURCE = kernels.KernelSource.resource("clsolve_plugins.wavefront", "wavefront_kp.cl")

#: Largest capacity: states are 32-bit indices.
MAX_CAPACITY = 2**31 - 2
RATES = {True: 2e11, False: 1e9}
#: Rows of a block's tile (each a register and a local row of the work-group's values per work-item).
TILE_ROWS = 16
#: Items a block applies at most; halo rows at most.
MAX_BLOCK, MAX_HALO_ROWS = 16, 16
#: Local memory the block kernel leaves to its items' weights and profits and the compiler, bytes.
LOCAL_SPARE = 1024
#: By default (on a GPU) blocks are used where at least this share of the items start a run of at
#: least BLOCK_ITEMS that fits the halo (``clsolve bench wavefront``'s knapsack cases).
BLOCKED_SHARE, BLOCK_ITEMS = 0.5, 4


def knapsack_accepts(problem: Knapsack) -> str | None:
    if problem.m != 1:
        return f"the wavefront knapsack solves KP1 (one capacity), got m = {problem.m}"
    if int(problem.capacities[0]) > MAX_CAPACITY:
        return f"capacity {int(problem.capacities[0])} exceeds the limit {MAX_CAPACITY}"
    return None


def _row_words(capacity: int) -> int:
    return capacity // 32 + 1


def least_seconds(problem: Knapsack, device: Device) -> float:
    """``plan_knapsack``'s estimate with the fewest launches blocks could make, without the plan."""
    return _seconds(problem, device, -(-problem.n // MAX_BLOCK))


def _seconds(problem: Knapsack, device: Device, launches: int) -> float:
    return problem.n * (int(problem.capacities[0]) + 1) / RATES[device.is_gpu] + launches * 1.2e-5 + 0.001


def halo_rows(local: int, itemsize: int, local_memory: int) -> int:
    """The halo rows local memory holds beside a block's tile and its bytes of decisions (at most
    MAX_HALO_ROWS; 0: no block fits)."""
    rows = (local_memory - LOCAL_SPARE - TILE_ROWS * local) // (local * itemsize) - TILE_ROWS
    return max(0, min(MAX_HALO_ROWS, rows))


def _weights(problem: Knapsack) -> np.ndarray:
    """The weights the kernels read: past the capacity, capacity + 1 (never taken, never in a block)."""
    return clamped_weights(problem)[:, 0].astype(np.int64)


def launches(
    problem: Knapsack, device: Device, dtype: np.dtype, local: int, block: int | None
) -> tuple[list[tuple[int, int]], int]:
    """The launches, (first item, items), and the halo rows of the blocks: ``block`` items a block at
    most (0: none); None: MAX_BLOCK on a GPU where at least BLOCKED_SHARE of the items start a run of
    BLOCK_ITEMS or more that fits the halo, else none."""
    rows = halo_rows(local, dtype.itemsize, device.local_memory)
    most = (MAX_BLOCK if device.is_gpu else 0) if block is None else block
    single = [(item, 1) for item in range(problem.n)]
    if most < 2 or rows < 1:
        return single, 0
    weights = _weights(problem)
    planned = runs(weights, rows * local, most)
    if block is None and sum(count for _, count in planned if count >= BLOCK_ITEMS) < BLOCKED_SHARE * problem.n:
        return single, 0
    return planned, rows


def plan_knapsack(name: str, problem: Knapsack, device: Device, options) -> Plan:
    capacity = int(problem.capacities[0])
    dtype = value_dtype(problem, None, value_bound(problem))
    local = work_group_size(device.max_work_group_size, None)
    if local < 32:
        raise InvalidProblemError(f"{device.label}: work-groups of {local} are smaller than a 32-bit decision word")
    planned, rows = launches(problem, device, dtype, local, options.block)
    buffers = {
        "row_a": (capacity + 1) * dtype.itemsize,
        "row_b": (capacity + 1) * dtype.itemsize,
        "items": problem.n * (4 + dtype.itemsize),
        "trace-back": problem.n * 9 + 4,
    }
    store = plan_store(
        f"{problem.describe()}: decision rows",
        _chunks(capacity, planned),
        device,
        sum(buffers.values()),
        options.device_memory_limit,
        options.store,
    )
    other = sum(buffers.values())
    buffers.update(store.device_buffers("decisions", device))
    cells = problem.n * (capacity + 1)
    return Plan(
        solver=name,
        device_buffers=buffers,
        host_buffers={"decisions": store.host_bytes} if store.host_bytes else {},
        kernels=("kp_row", "kp_block", "kp_backtrack"),
        cell_updates=cells,
        launches=len(planned) + 1,
        seconds=_seconds(problem, device, len(planned)),
        details={
            "value_type": opencl_type(dtype),
            "store": store.mode,
            "local_size": local,
            "other_device_bytes": other,
            "block": max(count for _, count in planned) if rows else 0,
            "tile_rows": TILE_ROWS,
            "halo_rows": rows,
            "blocks": sum(count > 1 for _, count in planned),
            "blocked_items": sum(count for _, count in planned if count > 1),
        },
    )


def _chunks(capacity: int, planned: list[tuple[int, int]]) -> list[int]:
    """Bytes of each launch's decision rows: a chunk of the store per launch."""
    return [count * _row_words(capacity) * 4 for _, count in planned]


def solve_knapsack(problem: Knapsack, device: Device, plan: Plan, options) -> Solution:
    return run_knapsack(problem, device, plan, options)[0]


def run_knapsack(
    problem: Knapsack, device: Device, plan: Plan, options, table: bool = False
) -> tuple[Solution, np.ndarray | None]:
    """The DP with the plan's launches, and with ``table`` (tests) the whole decision table read back,
    shape (n, capacity + 1)."""
    timings = Timings()
    with timings.phase("upload"):
        capacity = int(problem.capacities[0])
        dtype = value_dtype(problem, None, value_bound(problem))
        local = int(plan.details["local_size"])
        planned, rows = launches(problem, device, dtype, local, options.block)
        defines: dict[str, object] = {"VALUE_T": opencl_type(dtype), "LOCAL_SIZE": local, "BACK_DEPTH": BACK_DEPTH}
        if rows:
            defines.update(TILE_ROWS=TILE_ROWS, HALO_ROWS=rows, MAX_BLOCK=MAX_BLOCK)
        program = kernels.program(device, KNAPSACK_SOURCE, defines)
        queue = device.queue
        work = Workspace(device, plan, poison=0xA5 if options.poison else None)
        values = [work.empty(key, (capacity + 1) * dtype.itemsize) for key in ("row_a", "row_b")]
        weights = _weights(problem)
        items = (work.upload("items", weights.astype(np.uint32)), work.upload("items", problem.profits.astype(dtype)))
        fill(queue, values[0], 0)
        store_plan = plan_store(
            "knapsack decision rows",
            _chunks(capacity, planned),
            device,
            int(plan.details["other_device_bytes"]),
            options.device_memory_limit,
            str(plan.details["store"]),
        )
        store = RowStore(device, store_plan, poison=0xA5 if options.poison else None)
        deadline.drain(queue, "wavefront knapsack: buffers set")
    try:
        with timings.phase("kernels"):
            last = _sweep(problem, work, program, planned, values, items, store, local, dtype, weights)
            deadline.drain(queue, "wavefront knapsack: the last rows")
            store.drain(exposed=True)
            value = np.empty(1, dtype=dtype)
            pending: list[cl.Event] = []
            if store_plan.mode == "device":  # enqueued before the value is read: the device goes on
                walked = _trace_back_on_device(problem, work, program, planned, store, items[0])
                pending.extend(walked[1])
            copy_later(queue, value, last, pending, capacity * dtype.itemsize)
            deadline.drain(queue, "wavefront knapsack: the trace-back", pending)
            if store_plan.mode == "device":
                selected = _flags(walked)
        with timings.phase("download"):
            if store_plan.mode == "host":
                selected = _trace_back(problem, planned, store, weights)
            decisions = _table(capacity, planned, store) if table else None
    finally:
        store.release()
    stats: dict[str, object] = {"store": store_plan.mode, "blocks": int(plan.details["blocks"])}
    if store_plan.mode == "host":
        stats.update(copied_bytes=store.stats.bytes, copies_hidden_share=store.stats.hidden_share)
    return Solution(int(value[0]), selected, True, "", "", timings, stats=stats), decisions


def _table(capacity: int, planned: list[tuple[int, int]], store: RowStore) -> np.ndarray:
    """Every decision row, read back and unpacked: (n, capacity + 1) booleans."""
    words = np.concatenate(
        [store.host(k).view(np.uint32).reshape(count, _row_words(capacity)) for k, (_, count) in enumerate(planned)]
    )
    bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")
    return bits[:, : capacity + 1].astype(bool)


def _sweep(
    problem: Knapsack,
    work: Workspace,
    program: kernels.Program,
    planned: list[tuple[int, int]],
    values: list[cl.Buffer],
    items: tuple[cl.Buffer, cl.Buffer],
    store: RowStore,
    local: int,
    dtype: np.dtype,
    clamped: np.ndarray,
) -> cl.Buffer:
    """Every launch of ``planned`` (enqueued), the value rows ping-ponging, each launch's decision rows
    the store's chunk of that index; returns the buffer that will hold the last row."""
    capacity = int(problem.capacities[0])
    queue = work.device.queue
    one = work.kernel(program, "kp_row").set(capacity=np.uint32(capacity))
    block = (
        work.kernel(program, "kp_block").set(
            capacity=np.uint32(capacity), weights=items[0], profits=items[1], row_words=np.uint64(_row_words(capacity))
        )
        if len(planned) < problem.n
        else None
    )
    row_size = -(-(capacity + 1) // local) * local
    block_size = -(-(capacity + 1) // (TILE_ROWS * local)) * local
    weights, profits = clamped.tolist(), problem.profits.tolist()
    pacer = Pacer(queue, "wavefront knapsack rows", len(planned))
    for k, (item, count) in enumerate(planned):
        buffer, offset, wait = store.slot(k)
        rows = {
            "previous": values[k & 1],
            "next": values[(k + 1) & 1],
            "decisions": buffer,
            "decision_offset": np.uint64(offset // 4),
        }
        if count == 1:
            event = one.set(weight=np.uint32(weights[item]), profit=dtype.type(profits[item]), **rows).enqueue(
                queue, (row_size,), (local,), wait_for=wait or None
            )
        else:
            assert block is not None
            event = block.set(item=np.uint32(item), count=np.uint32(count), **rows).enqueue(
                queue, (block_size,), (local,), wait_for=wait or None
            )
        store.finished(k, event)
        pacer.launch()
    return values[len(planned) & 1]


def _trace_back_on_device(
    problem: Knapsack,
    work: Workspace,
    program: kernels.Program,
    planned: list[tuple[int, int]],
    store: RowStore,
    weights: cl.Buffer,
) -> tuple[np.ndarray, list[cl.Event]]:
    """The items taken, walked back on the device (``kp_backtrack``): a launch per buffer of the store,
    the rows' first words in a table; only the item flags are read back (enqueued: the array and the
    read's event, see ``_flags``)."""
    queue = work.device.queue
    words = _row_words(int(problem.capacities[0]))
    rows = np.empty(problem.n, dtype=np.uint64)
    walks: list[tuple[cl.Buffer, int, int]] = []  # (buffer, first item, items), from the last items
    for k in range(len(planned) - 1, -1, -1):
        item, count = planned[k]
        buffer, offset = store.readable(k)
        rows[item : item + count] = offset // 4 + words * np.arange(count, dtype=np.uint64)
        if walks and walks[-1][0] is buffer:  # the chunks of one buffer in one launch
            walks[-1] = (buffer, item, walks[-1][2] + count)
        else:
            walks.append((buffer, item, count))
    table = work.upload("trace-back", rows)
    rest = work.upload("trace-back", np.array([problem.capacities[0]], dtype=np.uint32), writable=True)
    chosen = work.empty("trace-back", problem.n)
    walk = work.kernel(program, "kp_backtrack").set(rows=table, weights=weights, rest=rest, selected=chosen)
    group = (1 << BACK_DEPTH,)
    for buffer, first, count in walks:
        walk.set(decisions=buffer, first=np.uint32(first), count=np.uint32(count)).enqueue(queue, group, group)
    selected = np.empty(problem.n, dtype=np.uint8)
    pending: list[cl.Event] = []
    copy_later(queue, selected, chosen, pending)
    return selected, pending


def _flags(walked: tuple[np.ndarray, list[cl.Event]]) -> np.ndarray:
    """The item flags of ``_trace_back_on_device`` once its read is done."""
    selected, pending = walked
    for event in pending:
        event.wait()
    if selected.max(initial=0) > 1:
        raise RuntimeError("wavefront: the trace-back left unwritten item flags")
    return selected.astype(bool)


def _trace_back(problem: Knapsack, planned: list[tuple[int, int]], store: RowStore, weights: np.ndarray) -> np.ndarray:
    """The items taken, from the last decision row back (bit c of word c / 32: item taken at c), over
    the rows streamed to host memory."""
    selected = np.zeros(problem.n, dtype=bool)
    rest = int(problem.capacities[0])
    for item, row in store.backward(planned, np.uint32, _row_words(rest)):
        if (int(row[rest // 32]) >> (rest % 32)) & 1:
            selected[item] = True
            rest -= int(weights[item])
    return selected
