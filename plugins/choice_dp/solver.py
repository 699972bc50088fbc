"""The multiple-choice knapsack (one item of each class, or at most one) by a dense DP on the device,
a class per launch (``choice_dp.cl``): every state takes the best of its class's items. Dominated
items and items that do not fit are dropped first (``clsolve.family.choice``); each state keeps its
choice's position in the class, and one work-item walks the choices back. Where the lightest items
of all classes together exceed the capacity, the answer is that none fits, without a kernel."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    MODEL_BANDWIDTH,
    MODEL_LAUNCH_SECONDS,
    POISON_BYTE,
    Device,
    DeviceSolver,
    MultipleChoice,
    Pacer,
    Plan,
    Solution,
    Timings,
    Workspace,
    kept,
    kernels,
    lightest,
    options,
)

SOURCE = kernels.KernelSource.resource("clsolve_plugins.choice_dp", "choice_dp.cl")
KERNELS = ("choice_start", "choice_step", "choice_walk")
#: States of a row at most (8-byte values).
MAX_STATES = 2**40
#: Profits an answer can earn below this (the rows' NONE is -2^62).
PROFIT_LIMIT = 2**61
NONE = -(2**62)
GROUP = 256
#: Seconds per item and state of a class step (an item's row read and compared), by device kind.
ITEM_STATE_SECONDS = {"gpu": 2e-12, "other": 1e-9}


def _kind(count: int) -> int:
    """Bits per state of a class's decision: its positions and "none" (= count)."""
    return 8 if count < 2**8 else 16 if count < 2**16 else 32


def _aligned(size: int) -> int:
    return -(-size // 8) * 8


class ChoiceDPSolver(DeviceSolver):
    name = "choice-dp"
    summary = "multiple-choice knapsack: dense DP on the device, a class per launch"
    problem_kinds = ("multiple-choice",)

    def __init__(self, poison: bool = False):
        """``poison``: fill the buffers with a poison byte first (tests: the walk reads only written
        decisions)."""
        self.poison = options.flag("poison", poison)

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, MultipleChoice):
            return f"{self.name} solves multiple-choice knapsacks"
        if problem.cells() > MAX_STATES:
            return f"capacity {problem.capacity} gives {problem.cells()} states, above {MAX_STATES}"
        if problem.total_profit >= PROFIT_LIMIT:
            return f"an answer could earn {problem.total_profit}, at or above 2^61"
        return None

    def _layout(self, problem: MultipleChoice) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """Each class's kept items, and each class's decisions' bits per state and byte offset."""
        classes = kept(problem)
        kinds = np.array([_kind(c.size) for c in classes], dtype=np.int32)
        sizes = np.array([_aligned(problem.cells() * int(k) // 8) for k in kinds], dtype=np.int64)
        return classes, kinds, np.cumsum(sizes) - sizes

    def plan(self, problem: MultipleChoice, device: Device) -> Plan:
        if not problem.at_most_one and lightest(problem) > problem.capacity:
            return Plan(solver=self.name, seconds=1e-4, details={"answer": "no choice fits"})
        classes, kinds, _ = self._layout(problem)
        states, items = problem.cells(), sum(c.size for c in classes)
        kind = "gpu" if device.is_gpu else "other"
        decisions = sum(_aligned(states * int(k) // 8) for k in kinds)
        return Plan(
            solver=self.name,
            device_buffers={
                "row_a": 8 * states,
                "row_b": 8 * states,
                "decisions": max(decisions, 8),
                "items": 20 * max(items, 1),
                "classes": 24 * problem.k,
                "walk": 4 * problem.k + 8,
            },
            kernels=KERNELS,
            cell_updates=states * items,
            launches=problem.k + 2,
            seconds=problem.k * (MODEL_LAUNCH_SECONDS[kind] + 24 * states / MODEL_BANDWIDTH[kind])
            + states * items * ITEM_STATE_SECONDS[kind],
            details={"classes": problem.k, "items kept": items, "items given": problem.n},
        )

    def least_seconds(self, problem: MultipleChoice, device: Device) -> float:
        return problem.k * MODEL_LAUNCH_SECONDS["gpu" if device.is_gpu else "other"]

    def solve(self, problem: MultipleChoice, device: Device, plan: Plan) -> Solution:
        timings = Timings()
        if not problem.at_most_one and lightest(problem) > problem.capacity:
            note = f"the lightest item of every class together weighs {lightest(problem)} > {problem.capacity}"
            return Solution(0, np.zeros(problem.n, bool), True, self.name, device.label, timings, [note], feasible=False)
        classes, kinds, at = self._layout(problem)
        states, capacity, queue = problem.cells(), problem.capacity, device.queue
        work = Workspace(device, plan, poison=POISON_BYTE if self.poison else None)
        flat = np.concatenate(classes) if classes else np.zeros(0, dtype=np.int64)
        counts = np.array([c.size for c in classes], dtype=np.uint32)
        first = (np.cumsum(counts) - counts).astype(np.uint32)
        with timings.phase("upload"):
            program = kernels.program(device, SOURCE)
            row = [work.empty("row_a", 8 * states), work.empty("row_b", 8 * states)]
            decisions = work.empty("decisions", plan.device_buffers["decisions"])
            weights = work.upload("items", problem.weights[flat].astype(np.uint64))
            profits = work.upload("items", problem.profits[flat].astype(np.int64))
            items = work.upload("items", flat.astype(np.int32))
            work.kernel(program, "choice_start").set(row=row[0], capacity=capacity).enqueue(queue, _global(states), (GROUP,))
        with timings.phase("kernels"):
            step = work.kernel(program, "choice_step")
            pacer = Pacer(queue, f"{self.name}: classes", problem.k)
            for k in range(problem.k):
                step.set(before=row[k % 2], after=row[(k + 1) % 2], decisions=decisions, offset=int(at[k]), kind=int(kinds[k]))
                step.set(weights=weights, profits=profits, first=int(first[k]), count=int(counts[k]), capacity=capacity)
                step.set(at_most_one=int(problem.at_most_one)).enqueue(queue, _global(states), (GROUP,))
                pacer.launch()
            pacer.close()
        with timings.phase("download"):
            best = np.empty(1, dtype=np.int64)
            cl.enqueue_copy(queue, best, row[problem.k % 2], src_offset=8 * capacity)
        if int(best[0]) == NONE:
            raise RuntimeError(f"{self.name}: no choice fits, though the lightest items do")
        with timings.phase("kernels"):
            chosen = self._walk(problem, device, work, program, (kinds, at, first, counts), (decisions, weights, items))
        selected = np.zeros(problem.n, dtype=bool)
        selected[chosen[chosen >= 0]] = True
        return Solution(
            value=int(best[0]),
            selected=selected,
            optimal=True,
            solver=self.name,
            device=device.label,
            timings=timings,
            notes=[f"{problem.k} classes of {int(counts.sum())} undominated items (of {problem.n}) over {states} states"],
            stats={"items_kept": int(counts.sum())},
        )

    def _walk(self, problem, device, work, program, layout, buffers) -> np.ndarray:
        """Each class's chosen item (-1: none), walked back by one work-item."""
        kinds, at, first, counts = layout
        stored, weights, items = buffers
        queue = device.queue
        tables = [work.upload("classes", a) for a in (at.astype(np.uint64), kinds, first, counts)]
        chosen = work.upload("walk", np.zeros(problem.k, dtype=np.int32), writable=True)
        left = work.upload("walk", np.zeros(1, dtype=np.uint64), writable=True)
        walk = work.kernel(program, "choice_walk")
        walk.set(at=tables[0], kind=tables[1], first=tables[2], count=tables[3], weights=weights, items=items)
        walk.set(decisions=stored, classes=problem.k, start=problem.capacity, chosen=chosen, left=left)
        walk.enqueue(queue, (1,), None)
        out = np.empty(problem.k, dtype=np.int32)
        rest = np.empty(1, dtype=np.uint64)
        cl.enqueue_copy(queue, out, chosen)
        cl.enqueue_copy(queue, rest, left)
        if int(rest[0]) == 2**64 - 1:
            raise RuntimeError(f"{self.name}: the walk back met a decision no step made")
        return out.astype(np.int64)


def _global(size: int) -> tuple[int]:
    return (max(-(-size // GROUP), 1) * GROUP,)
