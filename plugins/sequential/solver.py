"""The reference DP on the host, in NumPy: ground truth for the tests and the speedup baseline.

Algorithm 1 of [LLMF]: for every item i and every state c (capacity vector),
f_i(c) = max(f_{i-1}(c), f_{i-1}(c - w_i) + p_i), keeping one decision bit per (i, c) and
recovering the items by backtracking from the full capacities. Each item is one vectorised NumPy
step over the whole state grid; values are int64 (the Knapsack type guarantees the sum fits).
"""

from __future__ import annotations

import math

import numpy as np

from clsolve.sdk import (
    LCS,
    TSP,
    ChangeMaking,
    HostSolver,
    Knapsack,
    MultipleChoice,
    Plan,
    Solution,
    Timings,
    deadline,
    dp_accepts,
)

from . import grids
from .change import change_bytes, make_change
from .choice import choice_bytes, choose

#: NumPy state updates per second on one core, for ``auto``'s estimate.
UPDATES_PER_SECOND = 3e8
#: States of one block of an item's step (the time limit is checked between blocks: one step over
#: 2^31 states takes seconds).
BLOCK_STATES = 1 << 22
#: Host bytes per state of a block's temporaries: the candidate values, the comparison and the taken bits.
BLOCK_BYTES_PER_STATE = 8 + 1 + 1


def block_rows(shape: tuple[int, ...]) -> int:
    """Rows (of the first capacity) per block: about BLOCK_STATES states, and a whole number of bytes
    of decision bits below every block boundary."""
    inner = int(np.prod(shape[1:]))
    align = 8 // math.gcd(inner, 8)
    return -(-max(1, BLOCK_STATES // inner) // align) * align


def step(row: np.ndarray, lo: int, hi: int, weight: list[int], profit: np.int64) -> np.ndarray:
    """Equation (1) of [LLMF] for one item over the rows ``lo:hi`` of ``row`` (in place): the packed
    bits of the states where taking the item is better."""
    shape = row.shape
    first = max(lo, weight[0])
    taken = np.zeros((hi - lo,) + shape[1:], dtype=bool)
    if first < hi:
        target = (slice(first, hi),) + tuple(slice(w, None) for w in weight[1:])
        source = (slice(first - weight[0], hi - weight[0]),) + tuple(slice(0, s - w) for s, w in zip(shape[1:], weight[1:]))
        candidate = row[source] + profit
        kept = row[target]
        better = candidate > kept
        np.copyto(kept, candidate, where=better)
        taken[(slice(first - lo, hi - lo),) + target[1:]] = better
    return np.packbits(taken.reshape(-1))


class SequentialSolver(HostSolver):
    name = "sequential"
    summary = "reference DPs on the host CPU: knapsack m = 1..3 (NumPy), LCS (bit rows), TSP (Held-Karp)"
    problem_kinds = ("knapsack", "lcs", "tsp", "change", "multiple-choice")

    def accepts(self, problem) -> str | None:
        if isinstance(problem, LCS):
            if problem.cells() > grids.MAX_HOST_LCS_CELLS:
                return f"the host LCS takes m x n <= {grids.MAX_HOST_LCS_CELLS} cells, got {problem.cells()}"
            return None
        if isinstance(problem, TSP):
            if problem.n > grids.MAX_HOST_CITIES:
                return f"the host Held-Karp takes n <= {grids.MAX_HOST_CITIES} cities, got {problem.n}"
            return None
        if isinstance(problem, (ChangeMaking, MultipleChoice)):
            return None
        return dp_accepts(problem, self.name)

    def plan(self, problem, device=None) -> Plan:
        if isinstance(problem, LCS):
            return Plan(
                solver=self.name,
                host_buffers={"bit_rows": problem.cells() // 8 + 64 * (problem.n + 1)},
                cell_updates=problem.cells(),
                seconds=problem.cells() / 5e9 + problem.n * 1e-6 + 1e-4,
            )
        if isinstance(problem, MultipleChoice):
            return Plan(
                solver=self.name,
                host_buffers={"choice": choice_bytes(problem)},
                cell_updates=problem.n * problem.cells(),
                seconds=problem.n * problem.cells() / UPDATES_PER_SECOND + problem.k * 2e-5 + 1e-4,
            )
        if isinstance(problem, ChangeMaking):
            pieces = change_bytes(problem) // (problem.cells() // 8 + 1)
            return Plan(
                solver=self.name,
                host_buffers={"change": change_bytes(problem)},
                cell_updates=pieces * problem.cells(),
                seconds=pieces * problem.cells() / UPDATES_PER_SECOND + 1e-4,
            )
        if isinstance(problem, TSP):
            states = (problem.n - 1) * 2 ** (problem.n - 1)
            return Plan(
                solver=self.name,
                host_buffers={"table": states * 9},
                cell_updates=states * problem.n,
                seconds=states * problem.n / 5e7 + 1e-3,
            )
        states, shape = problem.cells(), tuple(int(c) + 1 for c in problem.capacities)
        return Plan(
            solver=self.name,
            host_buffers={
                "row": 8 * states,
                "decisions": problem.n * (-(-states // 8)),
                "block": BLOCK_BYTES_PER_STATE * min(states, block_rows(shape) * (states // shape[0])),
            },
            cell_updates=problem.n * states,
            seconds=problem.n * states / UPDATES_PER_SECOND + problem.n * 2e-6,
        )

    def decisions(self, problem: Knapsack) -> tuple[np.ndarray, np.ndarray]:
        """The full DP: (last row of values over all states, packed decision bits (n, states/8)).

        One row of values is updated in place, block by block from the top of the first capacity
        down: a block reads only rows below its own, which this item has not changed yet (and its
        own, read before it is written). The time limit is checked between blocks."""
        shape = tuple(int(c) + 1 for c in problem.capacities)
        states = int(np.prod(shape))
        inner, rows = states // shape[0], block_rows(shape)
        row = np.zeros(shape, dtype=np.int64)
        packed = np.zeros((problem.n, -(-states // 8)), dtype=np.uint8)
        fitting = [i for i in range(problem.n) if np.all(problem.weights[i] <= problem.capacities)]
        lowest = {i: int(problem.weights[i][0]) // rows * rows for i in fitting}
        total = sum((shape[0] - lowest[i]) * inner for i in fitting)
        watch, done = deadline.Stopwatch(), 0
        for i in fitting:
            for lo in range((shape[0] - 1) // rows * rows, lowest[i] - 1, -rows):
                where = f"{self.name}: {i} of {problem.n} items"
                deadline.check(where)
                if done and not deadline.allows(watch.seconds / done * (total - done)):
                    deadline.stop(f"{where}, the rest at their rate")  # cannot end in time
                hi = min(lo + rows, shape[0])
                taken = step(row, lo, hi, [int(w) for w in problem.weights[i]], np.int64(problem.profits[i]))
                packed[i, lo * inner // 8 : lo * inner // 8 + taken.size] = taken
                done += (hi - lo) * inner
        return row.reshape(-1), packed

    def solve(self, problem, device, plan: Plan) -> Solution:
        watch = deadline.Stopwatch()
        if isinstance(problem, LCS):
            length, positions = grids.solve_lcs(problem)
            return Solution(length, np.zeros(0, bool), True, self.name, "", Timings(host=watch.seconds), positions=positions)
        if isinstance(problem, MultipleChoice):
            chosen = choose(problem, self.name)
            if chosen is None:
                return Solution(0, np.zeros(problem.n, bool), True, self.name, "", Timings(host=watch.seconds), feasible=False)
            value = int(problem.profits[chosen].sum())
            return Solution(value, chosen, True, self.name, "", Timings(host=watch.seconds))
        if isinstance(problem, ChangeMaking):
            counts = make_change(problem, self.name)
            if counts is None:
                return Solution(0, np.zeros(0, bool), True, self.name, "", Timings(host=watch.seconds), feasible=False)
            return Solution(int(counts.sum()), np.zeros(0, bool), True, self.name, "", Timings(host=watch.seconds), counts=counts)
        if isinstance(problem, TSP):
            length, tour = grids.solve_tsp(problem)
            return Solution(length, np.zeros(0, bool), True, self.name, "", Timings(host=watch.seconds), tour=tour)
        row, packed = self.decisions(problem)
        shape = tuple(int(c) + 1 for c in problem.capacities)
        remaining = [int(c) for c in problem.capacities]
        selected = np.zeros(problem.n, dtype=bool)
        for i in range(problem.n - 1, -1, -1):
            state = int(np.ravel_multi_index(tuple(remaining), shape))
            if (packed[i, state >> 3] >> (7 - (state & 7))) & 1:
                selected[i] = True
                remaining = [r - int(w) for r, w in zip(remaining, problem.weights[i])]
        value = int(row[-1])
        return Solution(
            value=value, selected=selected, optimal=True, solver=self.name, device="", timings=Timings(host=watch.seconds)
        )
