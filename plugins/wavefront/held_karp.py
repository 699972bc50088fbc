"""Held-Karp TSP on the wavefront model (kernels in ``held_karp.cl``).

One launch (or a few, beyond 2^31 work-items) per subset size k = 2 .. n-1; two value levels live on
the device, and the predecessors of level k (C(n-1, k) x k bytes) are the chunk the tour needs:
kept on the device when all of them fit, else copied to host memory while level k + 1 computes.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    TSP,
    Device,
    DoesNotFitError,
    Pacer,
    Plan,
    RowStore,
    Solution,
    SolutionCheckError,
    Timings,
    Workspace,
    copy_later,
    deadline,
    format_bytes,
    kernels,
    plan_store,
)

#: The kernels: Held-Karp by subset size ([OM], eq. 6).
HELD_KARP_SOURCE = kernels.KernelSource.resource("clsolve_plugins.wavefront", "held_karp.cl")

#: Largest n: subsets of the n - 1 other cities are ranked in 32-bit integers (C(32, 16) < 2^32).
MAX_HELD_KARP_CITIES = 33
#: Work-items per launch at most.
LAUNCH_ITEMS = 2**30
#: Planning rates: predecessor evaluations (state x candidate) per second.
RATES = {True: 5e10, False: 3e8}


def value_type(problem: TSP) -> tuple[np.dtype, str]:
    return (np.dtype(np.int32), "int") if problem.longest_tour_bound < 2**31 else (np.dtype(np.int64), "long")


def level_sizes(n: int) -> list[int]:
    """States of level k = 1 .. n-1: C(n-1, k) subsets x k end cities."""
    members = n - 1
    return [comb(members, k) * k for k in range(1, members + 1)]


def held_karp_accepts(problem: TSP) -> str | None:
    if problem.n > MAX_HELD_KARP_CITIES:
        states = (problem.n - 1) * 2 ** (problem.n - 2)
        return (
            f"Held-Karp needs (n-1) x 2^(n-2) = {states} states for n = {problem.n}; this solver takes "
            f"n <= {MAX_HELD_KARP_CITIES}"
        )
    return None


def plan_held_karp(name: str, problem: TSP, device: Device, options) -> Plan:
    n = problem.n
    dtype, _ = value_type(problem)
    sizes = level_sizes(n)
    largest = max(sizes)
    buffers = {
        "distances": n * n * dtype.itemsize,
        "binomials": MAX_HELD_KARP_CITIES**2 * 4,  # _binomials' table
        "level_a": largest * dtype.itemsize,
        "level_b": largest * dtype.itemsize,
    }
    for key in ("level_a", "level_b"):
        if buffers[key] > device.max_allocation:
            raise DoesNotFitError(
                f"Held-Karp for n = {n}: a level of {largest} states takes {format_bytes(buffers[key])} in one buffer, "
                f"{device.label} allows {format_bytes(device.max_allocation)} per buffer"
            )
    chunks = sizes[1:]  # predecessors of levels 2 .. n-1
    store = plan_store(
        f"Held-Karp for n = {n}: predecessors (one byte per state, {sum(chunks)} states)",
        chunks,
        device,
        sum(buffers.values()),
        options.device_memory_limit,
        options.store,
    )
    other = sum(buffers.values())
    buffers.update(store.device_buffers("predecessors", device))
    evaluations = sum(comb(n - 1, k) * k * (k - 1) for k in range(2, n))
    launches = sum(-(-size // LAUNCH_ITEMS) for size in sizes[1:]) + 1
    return Plan(
        solver=name,
        device_buffers=buffers,
        host_buffers={"predecessors": store.host_bytes} if store.host_bytes else {},
        kernels=("held_karp_first", "held_karp_level"),
        cell_updates=evaluations,
        launches=launches,
        seconds=evaluations / RATES[device.is_gpu] + launches * 1.2e-5 + 0.001,
        details={
            "value_type": value_type(problem)[1],
            "store": store.mode,
            "states": sum(sizes),
            "other_device_bytes": other,
            "largest_level": largest,
        },
    )


def _binomials(members: int) -> np.ndarray:
    table = np.zeros((members + 1, members + 1), dtype=np.uint32)
    for c in range(members + 1):
        for t in range(members + 1):
            table[c, t] = comb(c, t)
    return table


# long: one sweep of the levels, the store of predecessors and the tour read back
def solve_held_karp(problem: TSP, device: Device, plan: Plan, options) -> Solution:
    timings = Timings()
    with timings.phase("upload"):
        n, members = problem.n, problem.n - 1
        dtype, type_name = value_type(problem)
        sizes = level_sizes(n)
        queue = device.queue
        program = kernels.program(device, HELD_KARP_SOURCE, {"VALUE_T": type_name, "MAX_MEMBERS": MAX_HELD_KARP_CITIES - 1})
        work = Workspace(device, plan, poison=0xA5 if options.poison else None)
        distance_buffer = work.upload("distances", problem.distances.astype(dtype))
        binom = _binomials(MAX_HELD_KARP_CITIES - 1)
        binom_buffer = work.upload("binomials", binom)
        largest = max(sizes)
        levels = [work.empty(key, largest * dtype.itemsize) for key in ("level_b", "level_a")]
        other = int(plan.details["other_device_bytes"])
        store_plan = plan_store(
            "Held-Karp predecessors", sizes[1:], device, other, options.device_memory_limit, str(plan.details["store"])
        )
        store = RowStore(device, store_plan, poison=0xA5 if options.poison else None)
        deadline.drain(queue, "wavefront Held-Karp: buffers set")
    try:
        with timings.phase("kernels"):
            work.kernel(program, "held_karp_first").set(distances=distance_buffer, level=levels[1], n=np.uint32(n)).enqueue(
                queue, (-(-members // 64) * 64,), None
            )
            kernel = work.kernel(program, "held_karp_level").set(distances=distance_buffer, binom=binom_buffer, n=np.uint32(n))
            pacer = Pacer(queue, "wavefront Held-Karp levels", members - 1)
            for k in range(2, members + 1):
                size = sizes[k - 1]
                buffer, offset, wait = store.slot(k - 2)
                event = None
                for first in range(0, size, LAUNCH_ITEMS):
                    count = min(LAUNCH_ITEMS, size - first)
                    global_size = -(-count // 256) * 256
                    kernel.set(
                        previous=levels[(k - 1) & 1],
                        level=levels[k & 1],
                        pred=buffer,
                        pred_offset=np.uint64(offset),
                        k=np.uint32(k),
                        first=np.uint64(first),
                        count=np.uint64(count),
                    )
                    event = kernel.enqueue(queue, (global_size,), None, wait_for=(wait or None) if first == 0 else None)
                store.finished(k - 2, event)
                pacer.launch()
            last = np.empty(members, dtype=dtype)
            pending: list[cl.Event] = []
            copy_later(queue, last, levels[members & 1], pending)
            deadline.drain(queue, "wavefront Held-Karp: the last level", pending)
            store.drain(exposed=True)
        with timings.phase("download"):
            closing = last.astype(object) + np.array([int(problem.distances[c + 1, 0]) for c in range(members)], dtype=object)
            end = int(np.argmin(closing))
            value = int(closing[end])
            tour = _tour(store, members, end, binom)
    finally:
        store.release()
    stats = {"store": store_plan.mode, "states": sum(sizes), "predecessor_bytes": store_plan.total_bytes, "value_type": type_name}
    if store_plan.mode == "host":
        stats.update(
            copied_bytes=store.stats.bytes,
            copy_seconds=store.stats.copy_seconds,
            copy_exposed_seconds=store.stats.exposed_seconds,
            copies_hidden_share=store.stats.hidden_share,
        )
    return Solution(value, np.zeros(0, bool), True, "", "", timings, stats=stats, tour=tour)


def _tour(store: RowStore, members: int, end: int, binom: np.ndarray) -> np.ndarray:
    """Follow the predecessors from the full set back to a single city; cities are members + 1."""
    subset = list(range(members))
    path = [end]
    current = end
    for k in range(members, 1, -1):
        rank = sum(int(binom[c, t + 1]) for t, c in enumerate(subset))
        position = subset.index(current)
        index = rank * k + position
        if store.plan.mode == "host":
            previous = int(store.host(k - 2)[index])
        else:
            buffer, offset = store.readable(k - 2)
            byte = np.empty(1, dtype=np.uint8)
            cl.enqueue_copy(store.device.queue, byte, buffer, src_offset=offset + index, is_blocking=True)
            previous = int(byte[0])
        subset.remove(current)
        if previous not in subset:
            raise SolutionCheckError(f"Held-Karp predecessor {previous} at level {k} is not in the subset")
        path.append(previous)
        current = previous
    return np.array([0] + [c + 1 for c in reversed(path)], dtype=np.int64)
