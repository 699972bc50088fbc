"""The bounded knapsack, the unbounded knapsack and change-making by a dense dynamic program on the
device whose cost per item does not grow with the item's count: per residue class of the item's
weight, a sliding-window maximum in blocks of b + 1 ([vHGW92]; ``bounded_dp.cl``), or binary pieces
where the windows would be too few to fill the device. Each state's decision is kept, and one
work-item walks the counts of an optimum back. An unbounded knapsack's dominated items (MTU2's
reduction, ``clsolve.family.dominance``) take no step. Change-making is first searched depth-first on
the host with a node budget (``change.py``); the DP runs where the search does not end."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    MODEL_BANDWIDTH,
    MODEL_LAUNCH_SECONDS,
    POISON_BYTE,
    BoundedKnapsack,
    ChangeMaking,
    Device,
    DeviceSolver,
    Pacer,
    Plan,
    Solution,
    Timings,
    Workspace,
    kernels,
    needed,
    options,
)

from . import change
from .steps import PIECE, Schedule, schedule

SOURCE = kernels.KernelSource.resource("clsolve_plugins.bounded_dp", "bounded_dp.cl")
KERNELS = ("bounded_start", "bounded_window", "bounded_piece", "bounded_walk")
#: Profits a packing can earn below this: the windows' offsets (q - base) p stay inside 64 bits.
PROFIT_LIMIT = 2**60
#: States of a row at most: 8-byte values, 32-bit offsets within a block.
MAX_STATES = 2**40
NONE = -(2**62)
GROUP = 256


class BoundedDPSolver(DeviceSolver):
    name = "bounded-dp"
    summary = "bounded and unbounded knapsacks and change-making: dense DP by sliding windows on the device"
    problem_kinds = ("bounded", "change")

    def __init__(self, method: str = "auto", poison: bool = False, search: bool = True):
        """``method``: ``auto`` (per item, windows or binary pieces by the cost model), ``window`` (every
        item by windows) or ``pieces`` (every item by binary pieces); ``poison``: fill the buffers with
        a poison byte first (tests: the walk reads only written decisions); ``search``: change-making
        searched on the host first, the DP only where the search does not end (False: the DP always)."""
        self.method = options.choice("method", method, ("auto", "window", "pieces"))
        self.poison = options.flag("poison", poison)
        self.search = options.flag("search", search)

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, (BoundedKnapsack, ChangeMaking)):
            return f"{self.name} solves bounded and unbounded knapsacks and change-making"
        if problem.cells() > MAX_STATES:
            return f"capacity {problem.capacity} gives {problem.cells()} states, above {MAX_STATES}"
        if isinstance(problem, BoundedKnapsack) and problem.total_profit >= PROFIT_LIMIT:
            return f"a packing could earn {problem.total_profit}, at or above 2^60 (the windows' offsets need the room)"
        return None

    def _steps(self, problem, device: Device) -> Schedule:
        key = ("bounded-dp steps", self.method, device.label)
        memo = problem.memo
        if key not in memo:
            memo[key] = schedule(problem.weights, problem.profits, needed(problem), problem.capacity, device, self.method)
        return memo[key]

    def least_seconds(self, problem, device: Device) -> float:
        """A launch per item that takes a step, at least: ``auto`` plans this solver only where that
        is below the best estimate it has."""
        kind = "gpu" if device.is_gpu else "other"
        return int(np.count_nonzero((needed(problem) > 0) & (problem.weights > 0))) * MODEL_LAUNCH_SECONDS[kind]

    def _searched(self, problem) -> tuple[bool, np.ndarray | None, int] | None:
        """The change-making search's outcome (``change.py``), once a problem; None for knapsacks."""
        if not isinstance(problem, ChangeMaking) or not self.search:
            return None
        memo = problem.memo
        if "bounded-dp change search" not in memo:
            memo["bounded-dp change search"] = change.searched(problem.weights, problem.counts, problem.capacity)
        return memo["bounded-dp change search"]

    def plan(self, problem, device: Device) -> Plan:
        found = self._searched(problem)
        if found is not None and found[0]:
            return Plan(
                solver=self.name,
                seconds=1e-4,
                measured=True,
                details={"search": f"the host search settled it in {found[2]} nodes; no DP"},
            )
        steps, states = self._steps(problem, device), problem.cells()
        windows = steps.windows > 0
        decisions = steps.decision_bytes
        kind = "gpu" if device.is_gpu else "other"
        return Plan(
            solver=self.name,
            device_buffers={
                "row_a": 8 * states,
                "row_b": 8 * states,
                **({"shelf_value": 8 * states, "shelf_offset": 4 * states} if windows else {}),
                "decisions": max(decisions, 8),
                "steps": 36 * max(len(steps), 1),
                "counts": 8 * problem.n + 8,
            },
            kernels=KERNELS,
            cell_updates=states * len(steps),
            launches=len(steps) + 2,
            seconds=steps.seconds + 16 * states / MODEL_BANDWIDTH[kind],
            details={
                "steps": len(steps),
                "window steps": steps.windows,
                "piece steps": len(steps) - steps.windows,
            },
        )

    def solve(self, problem, device: Device, plan: Plan) -> Solution:
        found = self._searched(problem)
        if found is not None and found[0]:
            return _from_search(self.name, device, problem, found)
        timings = Timings()
        steps, states, capacity = self._steps(problem, device), problem.cells(), problem.capacity
        exact = isinstance(problem, ChangeMaking)
        work = Workspace(device, plan, poison=POISON_BYTE if self.poison else None)
        queue = device.queue
        with timings.phase("upload"):
            program = kernels.program(device, SOURCE, {"EXACT": 1} if exact else None)
            row = [work.empty("row_a", 8 * states), work.empty("row_b", 8 * states)]
            windows = steps.windows > 0
            shelf = (
                [work.empty("shelf_value", 8 * states), work.empty("shelf_offset", 4 * states)] if windows else [row[0], row[0]]
            )
            decisions = work.empty("decisions", max(steps.decision_bytes, 8))
            work.kernel(program, "bounded_start").set(row=row[0], capacity=capacity).enqueue(queue, _global(states), (GROUP,))
        with timings.phase("kernels"):
            self._forward(problem, device, work, program, steps, row, shelf, decisions)
        with timings.phase("download"):
            best = np.empty(1, dtype=np.int64)
            cl.enqueue_copy(queue, best, row[len(steps) % 2], src_offset=8 * capacity)
        top = int(best[0])
        if exact and top <= NONE // 2:
            return Solution(
                0,
                np.zeros(0, bool),
                True,
                self.name,
                device.label,
                timings,
                feasible=False,
                notes=[f"no choice of coins sums to {capacity}"],
                stats={"steps": len(steps)},
            )
        with timings.phase("kernels"):
            counts = self._walk(problem, device, work, program, steps, decisions)
        fixed = _weightless(problem)
        counts += fixed
        # change-making: the coins counted (the row holds minus them); a knapsack: the row's best plus
        # the items of weight 0 taken whole
        value = -top if exact else top + sum(int(p) * int(c) for p, c in zip(problem.profits.tolist(), fixed.tolist()) if c)
        return Solution(
            value=value,
            selected=np.zeros(0, dtype=bool),
            optimal=True,
            solver=self.name,
            device=device.label,
            timings=timings,
            counts=counts,
            notes=[f"{len(steps)} steps over {states} states ({plan.details['window steps']} by windows)"],
            stats={"steps": len(steps)},
        )

    def _forward(self, problem, device: Device, work: Workspace, program, steps: Schedule, row, shelf, decisions) -> None:
        """Every step, row to row (``row[s % 2]`` before step s), paced under the time limit."""
        queue, capacity, states = device.queue, problem.capacity, problem.cells()
        pacer = Pacer(queue, f"{self.name}: steps", len(steps))
        piece, window = work.kernel(program, "bounded_piece"), work.kernel(program, "bounded_window")
        rows = zip(steps.kind.tolist(), steps.at.tolist(), steps.span.tolist(), steps.profit.tolist(), steps.width.tolist())
        for s, (kind, at, span, profit, width) in enumerate(rows):
            before, after = row[s % 2], row[(s + 1) % 2]
            if kind == PIECE:
                piece.set(
                    before=before, after=after, decisions=decisions, offset=at, capacity=capacity, weight=span, profit=profit
                )
                piece.enqueue(queue, _global(states), (GROUP,))
            else:
                window.set(before=before, after=after, shelf_value=shelf[0], shelf_offset=shelf[1], decisions=decisions)
                window.set(offset=at, kind=kind, capacity=capacity, weight=span, profit=profit, width=width)
                window.enqueue(queue, _global(span * -(-(capacity // span + 1) // width)), (GROUP,))
            pacer.launch()
        pacer.close()

    def _walk(self, problem, device: Device, work: Workspace, program, steps: Schedule, decisions) -> np.ndarray:
        """The counts of an optimum, walked back through the steps' decisions by one work-item."""
        queue = device.queue
        table: dict[str, np.ndarray] = {
            "at": steps.at.astype(np.uint64),
            "kind": steps.kind.astype(np.int32),
            "item": steps.item.astype(np.int32),
            "copies": steps.copies.astype(np.uint64),
            "span": steps.span.astype(np.uint64),
        }
        buffers = {name: work.upload("steps", array) for name, array in table.items()}
        counts = work.upload("counts", np.zeros(problem.n, dtype=np.uint64), writable=True)
        left = work.upload("counts", np.zeros(1, dtype=np.uint64), writable=True)
        work.kernel(program, "bounded_walk").set(
            decisions=decisions, **buffers, steps=len(steps), start=problem.capacity, counts=counts, left=left
        ).enqueue(queue, (1,), None)
        out = np.empty(problem.n, dtype=np.uint64)
        rest = np.empty(1, dtype=np.uint64)
        cl.enqueue_copy(queue, out, counts)
        cl.enqueue_copy(queue, rest, left)
        exact = isinstance(problem, ChangeMaking)
        if int(rest[0]) == 2**64 - 1 or (exact and int(rest[0]) != 0):
            raise RuntimeError(f"{self.name}: the walk back met a decision no step made (left {int(rest[0])})")
        return out.astype(np.int64)


def _from_search(name: str, device: Device, problem: ChangeMaking, found: tuple[bool, np.ndarray | None, int]) -> Solution:
    """The answer of the change-making search that ended: the fewest coins, or none sum to the capacity."""
    _, counts, nodes = found
    note = f"host search: {nodes} nodes (no DP)"
    stats = {"steps": 0, "search_nodes": nodes}
    if counts is None:
        notes = [f"no choice of coins sums to {problem.capacity}", note]
        return Solution(0, np.zeros(0, bool), True, name, device.label, Timings(), feasible=False, notes=notes, stats=stats)
    value = int(counts.sum())
    return Solution(value, np.zeros(0, bool), True, name, device.label, Timings(), counts=counts, notes=[note], stats=stats)


def _global(size: int) -> tuple[int]:
    return (max(-(-size // GROUP), 1) * GROUP,)


def _weightless(problem) -> np.ndarray:
    """The copies of items of weight 0 an optimum takes without a step: all of a bounded knapsack's
    (they cost no capacity), none of a coin of value 0."""
    if isinstance(problem, ChangeMaking):
        return np.zeros(problem.n, dtype=np.int64)
    return np.where((problem.weights == 0) & (problem.profits > 0), problem.usable, 0).astype(np.int64)
