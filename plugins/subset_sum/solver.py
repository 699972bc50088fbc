"""Subset sum (a 0-1 knapsack with p_j = w_j and one capacity C) as the word-parallel dynamic program
of [Pisinger03]: the set of reachable sums is a bit string of C + 1 bits on the device, one launch per
item shifts it by the item's weight and ORs it in (``subset_sum.cl``), and every sum remembers the
first item that reached it, from which one work-item walks a subset back. The step streams C / 4 bytes
twice per item, 32 times fewer than a dense DP of 32-bit values over the same capacities, and stops
as soon as C itself is reachable. Before any kernel, the host takes the items heaviest first while
they fit: where that fills C exactly the answer is optimal at once (most random instances with many
items)."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    MODEL_BANDWIDTH,
    MODEL_LAUNCH_SECONDS,
    POISON_BYTE,
    Device,
    DeviceSolver,
    Knapsack,
    Pacer,
    Plan,
    Solution,
    Timings,
    Workspace,
    cache,
    fill,
    kernels,
    options,
    planned,
    presolved,
)

SOURCE = kernels.KernelSource.resource("clsolve_plugins.subset_sum", "subset_sum.cl")
KERNELS = ("subset_sum_step", "subset_sum_trace")
#: Sums are 64-bit and item indices 32-bit in the kernels; C + 1 first-item entries of 4 bytes each.
MAX_CAPACITY = 2**40
#: Items between two looks at whether the capacity is reached (each look waits for the queue).
CHECK_ITEMS = 32


class SubsetSumSolver(DeviceSolver):
    name = "subset-sum"
    summary = "subset sum (profits equal weights, one capacity) by words of reachable sums on the device"

    def __init__(self, presolve: bool = True, poison: bool = False):
        """``presolve``: the engine's exact reductions first (items heavier than the capacity dropped);
        ``poison``: fill the buffers with a poison byte first (tests: the trace reads only written
        entries)."""
        self.presolve = options.flag("presolve", presolve)
        self.poison = options.flag("poison", poison)

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return "knapsack problems only"
        if problem.m != 1:
            return f"one capacity only (m = {problem.m})"
        if not np.array_equal(problem.profits, problem.weights[:, 0]):
            return "profits must equal weights (a subset-sum problem)"
        if int(problem.capacities[0]) > MAX_CAPACITY:
            return f"capacity {int(problem.capacities[0])} > {MAX_CAPACITY}"
        return None

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        return planned(self.name, problem, self.presolve, lambda reduced: self._plan(reduced, device))

    def _plan(self, problem: Knapsack, device: Device) -> Plan:
        capacity, n = int(problem.capacities[0]), problem.n
        if _filled(problem) is not None:  # the host fills the capacity exactly: no kernel
            return Plan(solver=self.name, cell_updates=n, seconds=1e-4, details={"greedy": "fills the capacity"})
        words = capacity // 32 + 1
        kind = "gpu" if device.is_gpu else "other"
        return Plan(
            solver=self.name,
            device_buffers={
                "reach_a": 4 * words,
                "reach_b": 4 * words,
                "first": 4 * (capacity + 1),
                "weights": 8 * n,
                "reached": 4,
                "taken": 4 * n,
                "count": 4,
            },
            host_buffers={"reach": 4 * words},
            kernels=KERNELS,
            cell_updates=n * words,
            launches=n + 1,
            # each step reads and writes the words; the first-item entries are written once each at most
            seconds=n * (MODEL_LAUNCH_SECONDS[kind] + 8 * words / MODEL_BANDWIDTH[kind]) + 4 * capacity / MODEL_BANDWIDTH[kind],
            details={"words": words, "note": "cell_updates counts 32-bit words of reachable sums"},
        )

    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        return presolved(self.name, problem, self.presolve, device.label, lambda core: self._solve(core, device))

    def _solve(self, problem: Knapsack, device: Device) -> Solution:
        timings = Timings()
        factor = _factor(problem)
        with timings.phase("host"):
            filled = _filled(problem)
        if filled is not None:
            return Solution(
                value=factor * int(problem.capacities[0]),
                selected=filled,
                optimal=True,
                solver=self.name,
                device=device.label,
                timings=timings,
                notes=["the greedy fill (heaviest first) reaches the capacity exactly: no kernel"],
                stats={"items_stepped": 0},
            )
        plan = self._plan(problem, device)
        work = Workspace(device, plan, poison=POISON_BYTE if self.poison else None)
        capacity, weights = int(problem.capacities[0]), problem.weights[:, 0]
        words = capacity // 32 + 1
        queue = device.queue
        with timings.phase("upload"):
            program = kernels.program(device, SOURCE)
            reach = [work.empty("reach_a", 4 * words), work.empty("reach_b", 4 * words)]
            fill(queue, reach[0], 0)
            cl.enqueue_copy(queue, reach[0], np.ones(1, dtype=np.uint32))  # the empty subset: sum 0
            first = work.empty("first", 4 * (capacity + 1))
            items = work.upload("weights", weights.astype(np.uint64))
            reached = work.upload("reached", np.zeros(1, dtype=np.uint32), writable=True)
        with timings.phase("kernels"):
            stepped = self._steps(problem, device, work, program, reach, first, reached)
        with timings.phase("download"):
            bits = np.empty(words, dtype=np.uint32)
            cl.enqueue_copy(queue, bits, reach[stepped % 2])
            target = _largest(bits, capacity)
        with timings.phase("kernels"):
            taken = self._trace(problem, device, work, program, first, items, target)
        selected = np.zeros(problem.n, dtype=bool)
        selected[taken] = True
        return Solution(
            value=factor * target,
            selected=selected,
            optimal=True,
            solver=self.name,
            device=device.label,
            timings=timings,
            notes=[
                f"{stepped} of {problem.n} items stepped over {words} words of reachable sums"
                + (" (the capacity was reached)" if target == capacity else "")
            ],
            stats={"items_stepped": stepped, "words": words},
        )

    def _steps(self, problem, device, work, program, reach, first, reached) -> int:
        """One launch per item until the capacity is reachable; returns how many items were stepped."""
        capacity, queue = int(problem.capacities[0]), device.queue
        words = capacity // 32 + 1
        step = work.kernel(program, "subset_sum_step")
        pacer = Pacer(queue, "subset-sum: items", problem.n)
        local = 64 if device.is_gpu else None
        size = (-(-words // 64) * 64,) if local else (words,)
        flag = np.zeros(1, dtype=np.uint32)
        for i, weight in enumerate(problem.weights[:, 0].tolist()):
            step.set(
                before=reach[i % 2],
                after=reach[(i + 1) % 2],
                first=first,
                words=words,
                weight=weight,
                capacity=capacity,
                item=i,
                reached=reached,
            ).enqueue(queue, size, (local,) if local else None)
            pacer.launch()
            if (i + 1) % CHECK_ITEMS == 0 or i + 1 == problem.n:
                cl.enqueue_copy(queue, flag, reached)
                if flag[0]:
                    pacer.close()
                    return i + 1
        pacer.close()
        return problem.n

    def _trace(self, problem, device, work, program, first, items, target) -> np.ndarray:
        taken = work.empty("taken", 4 * problem.n)
        count = work.upload("count", np.zeros(1, dtype=np.uint32), writable=True)
        work.kernel(program, "subset_sum_trace").set(
            first=first, weights=items, target=target, n=problem.n, taken=taken, count=count
        ).enqueue(device.queue, (1,), None)
        found = np.zeros(1, dtype=np.uint32)
        cl.enqueue_copy(device.queue, found, count)
        if found[0] == 0xFFFFFFFF:
            raise RuntimeError(f"{self.name}: the trace met a sum no step reached (target {target})")
        out = np.empty(int(found[0]), dtype=np.int32)
        if out.size:
            cl.enqueue_copy(device.queue, out, taken)
        return out.astype(np.int64)


def _factor(problem: Knapsack) -> int:
    """k with profits = k x weights: 1 for the problem a user gives, the weights' common divisor for
    the core a presolve made by dividing the weights alone."""
    weights, profits = problem.weights[:, 0], problem.profits
    heavy = np.flatnonzero(weights)  # items of weight 0 (and profit 0) say nothing of the factor
    factor = int(profits[heavy[0]]) // int(weights[heavy[0]]) if heavy.size else 1
    if factor < 1 or not np.array_equal(profits, weights * factor):
        raise RuntimeError(f"subset-sum: the profits are not a multiple of the weights (factor {factor})")
    return factor


def _filled(problem: Knapsack) -> np.ndarray | None:
    """``_greedy``'s answer, made once per problem (its plan and its solve both ask)."""
    return cache.per_problem(problem, "subset-sum greedy", lambda: (_greedy(problem),))[0]


def _greedy(problem: Knapsack) -> np.ndarray | None:
    """The items taken heaviest first while they fit, where they fill the capacity exactly (then
    optimal), else None. Runs of items that fit are taken at once (prefix sums, binary searches): the
    loop turns once per item that does not fit, not once per item."""
    weights, room = problem.weights[:, 0], int(problem.capacities[0])
    order = np.argsort(-weights, kind="stable")
    heaviest = weights[order]
    prefix = np.concatenate(([0], np.cumsum(heaviest)))  # p = w: their sum is below 2^63 (Knapsack)
    selected = np.zeros(problem.n, dtype=bool)
    start = 0
    while room > 0:
        first = start + int(np.searchsorted(-heaviest[start:], -room, side="left"))  # the first that fits
        if first >= problem.n:
            return None
        end = int(np.searchsorted(prefix, prefix[first] + room, side="right")) - 1  # items first .. end - 1 fit
        selected[order[first:end]] = True
        room -= int(prefix[end] - prefix[first])
        start = end
    return selected


def _largest(bits: np.ndarray, capacity: int) -> int:
    """The largest reachable sum (bit set) at most ``capacity`` in the words ``bits``."""
    nonzero = np.flatnonzero(bits)
    word = int(nonzero[-1])  # sum 0 is always reachable
    return min(capacity, 32 * word + int(bits[word]).bit_length() - 1)
