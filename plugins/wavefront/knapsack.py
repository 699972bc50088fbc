"""0-1 knapsack on the wavefront model (kernel in ``opencl/wavefront_kp.cl``): a check of the
model against ``dp-rows`` on the same problems. One launch per item; decision rows stream to host
memory when they do not all fit on the device."""
from __future__ import annotations

import time

import numpy as np
import pyopencl as cl

from clsolve.dp.rowstore import RowStore, plan_store
from clsolve.dp.table import opencl_type, value_bound, value_dtype, work_group_size
from clsolve.errors import InvalidProblemError
from clsolve.plugin.contract import Plan
from clsolve.problems import Knapsack
from clsolve.runtime import kernels
from clsolve.runtime.buffers import fill
from clsolve.runtime.deadline import Pacer
from clsolve.runtime.devices import Device
from clsolve.solution import Solution, Timings

#: The kernels: 0-1 knapsack rows on the wavefront model ([OM]).
KNAPSACK_SOURCE = kernels.builtin("wavefront_kp.cl")

#: Largest capacity: states are 32-bit indices.
MAX_CAPACITY = 2**31 - 2
RATES = {True: 2e11, False: 1e9}


def knapsack_accepts(problem: Knapsack) -> str | None:
    if problem.m != 1:
        return f"the wavefront knapsack solves KP1 (one capacity), got m = {problem.m}"
    if int(problem.capacities[0]) > MAX_CAPACITY:
        return f"capacity {int(problem.capacities[0])} exceeds the limit {MAX_CAPACITY}"
    return None


def _row_words(capacity: int) -> int:
    return capacity // 32 + 1


def least_seconds(problem: Knapsack, device: Device) -> float:
    """``plan_knapsack``'s estimate, without the plan."""
    return problem.n * (int(problem.capacities[0]) + 1) / RATES[device.is_gpu] + problem.n * 1.2e-5 + 0.001


def plan_knapsack(name: str, problem: Knapsack, device: Device, options) -> Plan:
    capacity = int(problem.capacities[0])
    dtype = value_dtype(problem, None, value_bound(problem))
    local = work_group_size(device.max_work_group_size, None)
    if local < 32:
        raise InvalidProblemError(f"{device.label}: work-groups of {local} are smaller than a 32-bit decision word")
    buffers = {"row_a": (capacity + 1) * dtype.itemsize, "row_b": (capacity + 1) * dtype.itemsize}
    chunks = [_row_words(capacity) * 4] * problem.n
    store = plan_store(f"{problem.describe()}: decision rows", chunks, device, sum(buffers.values()),
                       options.device_memory_limit, options.store)
    other = sum(buffers.values())
    buffers.update(store.device_buffers("decisions", device))
    cells = problem.n * (capacity + 1)
    return Plan(solver=name, device_buffers=buffers,
                host_buffers={"decisions": store.host_bytes} if store.host_bytes else {},
                cell_updates=cells, launches=problem.n + 1,
                seconds=least_seconds(problem, device),
                details={"value_type": opencl_type(dtype), "store": store.mode, "local_size": local,
                         "other_device_bytes": other})


def solve_knapsack(problem: Knapsack, device: Device, plan: Plan, options) -> Solution:
    timings = Timings()
    with timings.phase("upload"):
        capacity = int(problem.capacities[0])
        dtype = value_dtype(problem, None, value_bound(problem))
        local = int(plan.details["local_size"])
        program = kernels.program(device, KNAPSACK_SOURCE, {"VALUE_T": opencl_type(dtype), "LOCAL_SIZE": local})
        ctx, queue = device.context, device.queue
        rows = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, (capacity + 1) * dtype.itemsize) for _ in range(2)]
        fill(queue, rows[0], 0)
        if options.poison:
            fill(queue, rows[1], 0xA5)
        other = int(plan.details["other_device_bytes"])
        store_plan = plan_store("knapsack decision rows", [_row_words(capacity) * 4] * problem.n, device, other,
                                options.device_memory_limit, str(plan.details["store"]))
        store = RowStore(device, store_plan, poison=0xA5 if options.poison else None)
        queue.finish()
    weights = problem.weights[:, 0].tolist()
    profits = problem.profits.tolist()
    global_size = -(-(capacity + 1) // local) * local
    try:
        with timings.phase("kernels"):
            kernel = program.kernel("kp_row").set(capacity=np.uint32(capacity))
            pacer = Pacer(queue, "wavefront knapsack rows", problem.n)
            for item in range(problem.n):
                buffer, offset, wait = store.slot(item)
                weight = min(int(weights[item]), capacity + 1)  # heavier than the capacity: never taken
                kernel.set(previous=rows[item & 1], next=rows[(item + 1) & 1], decisions=buffer,
                           decision_offset=np.uint64(offset // 4), weight=np.uint32(weight), profit=dtype.type(profits[item]))
                event = kernel.enqueue(queue, (global_size,), (local,), wait_for=wait or None)
                store.finished(item, event)
                pacer.launch()
            value = np.empty(1, dtype=dtype)
            cl.enqueue_copy(queue, value, rows[problem.n & 1], src_offset=capacity * dtype.itemsize, is_blocking=True)
            store.drain(time.perf_counter())
        with timings.phase("download"):
            selected = np.zeros(problem.n, dtype=bool)
            rest = capacity
            for item in range(problem.n - 1, -1, -1):
                word = store.host(item).view(np.uint32)[rest // 32] if store_plan.mode == "host" else _word(store, item, rest)
                if (int(word) >> (rest % 32)) & 1:
                    selected[item] = True
                    rest -= int(weights[item])
    finally:
        store.release()
    stats: dict[str, object] = {"store": store_plan.mode}
    if store_plan.mode == "host":
        stats.update(copied_bytes=store.stats.bytes, copies_hidden_share=store.stats.hidden_share)
    return Solution(int(value[0]), selected, True, "", "", timings, stats=stats)


def _word(store: RowStore, item: int, capacity: int) -> int:
    buffer, offset = store.readable(item)
    word = np.empty(1, dtype=np.uint32)
    cl.enqueue_copy(store.device.queue, word, buffer, src_offset=offset + (capacity // 32) * 4, is_blocking=True)
    return int(word[0])
