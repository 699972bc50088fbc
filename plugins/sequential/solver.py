"""The reference DP on the host, in NumPy: ground truth for the tests and the speedup baseline.

Algorithm 1 of [LLMF]: for every item i and every state c (capacity vector),
f_i(c) = max(f_{i-1}(c), f_{i-1}(c - w_i) + p_i), keeping one decision bit per (i, c) and
recovering the items by backtracking from the full capacities. Each item is one vectorised NumPy
step over the whole state grid; values are int64 (the Knapsack type guarantees the sum fits).
"""
from __future__ import annotations

import time

import numpy as np

from clsolve.sdk import LCS, TSP, HostSolver, Knapsack, Plan, Solution, Timings, deadline, dp_accepts

from . import grids

#: NumPy state updates per second on one core, for ``auto``'s estimate.
UPDATES_PER_SECOND = 3e8


class SequentialSolver(HostSolver):
    name = "sequential"
    summary = "reference DPs on the host CPU: knapsack m = 1..3 (NumPy), LCS (bit rows), TSP (Held-Karp)"
    problem_kinds = ("knapsack", "lcs", "tsp")

    def accepts(self, problem) -> str | None:
        if isinstance(problem, LCS):
            if problem.cells() > grids.MAX_HOST_LCS_CELLS:
                return f"the host LCS takes m x n <= {grids.MAX_HOST_LCS_CELLS} cells, got {problem.cells()}"
            return None
        if isinstance(problem, TSP):
            if problem.n > grids.MAX_HOST_CITIES:
                return f"the host Held-Karp takes n <= {grids.MAX_HOST_CITIES} cities, got {problem.n}"
            return None
        return dp_accepts(problem, self.name)

    def plan(self, problem, device=None) -> Plan:
        if isinstance(problem, LCS):
            return Plan(solver=self.name, host_buffers={"bit_rows": problem.cells() // 8 + 64 * (problem.n + 1)},
                        cell_updates=problem.cells(), seconds=problem.cells() / 5e9 + problem.n * 1e-6 + 1e-4)
        if isinstance(problem, TSP):
            states = (problem.n - 1) * 2 ** (problem.n - 1)
            return Plan(solver=self.name, host_buffers={"table": states * 9}, cell_updates=states * problem.n,
                        seconds=states * problem.n / 5e7 + 1e-3)
        states = problem.cells()
        return Plan(
            solver=self.name,
            host_buffers={"rows": 2 * 8 * states, "decisions": problem.n * (-(-states // 8))},
            cell_updates=problem.n * states,
            seconds=problem.n * states / UPDATES_PER_SECOND + problem.n * 2e-6,
        )

    def decisions(self, problem: Knapsack) -> tuple[np.ndarray, np.ndarray]:
        """The full DP: (last row of values over all states, packed decision bits (n, states/8))."""
        shape = tuple(int(c) + 1 for c in problem.capacities)
        states = int(np.prod(shape))
        row = np.zeros(shape, dtype=np.int64)
        packed = np.empty((problem.n, -(-states // 8)), dtype=np.uint8)
        taken = np.zeros(shape, dtype=bool)
        limit, began = deadline.current(), time.perf_counter()
        for i in range(problem.n):
            limit.check(f"{self.name}: {i} of {problem.n} items")
            if i and not limit.allows((time.perf_counter() - began) / i * (problem.n - i)):
                limit.stop(f"{self.name}: {i} of {problem.n} items, the rest at their rate")  # cannot end in time
            weight = problem.weights[i]
            profit = np.int64(problem.profits[i])
            taken[...] = False
            if np.all(weight <= problem.capacities):
                target = tuple(slice(int(w), None) for w in weight)
                source = tuple(slice(0, s - int(w)) for s, w in zip(shape, weight))
                candidate = row[source] + profit
                better = candidate > row[target]
                taken[target] = better
                next_row = row.copy()
                next_row[target] = np.where(better, candidate, row[target])
                row = next_row
            packed[i] = np.packbits(taken.reshape(-1))
        return row.reshape(-1), packed

    def solve(self, problem, device, plan: Plan) -> Solution:
        start = time.perf_counter()
        if isinstance(problem, LCS):
            length, positions = grids.solve_lcs(problem)
            return Solution(length, np.zeros(0, bool), True, self.name, "", Timings(host=time.perf_counter() - start),
                            positions=positions)
        if isinstance(problem, TSP):
            length, tour = grids.solve_tsp(problem)
            return Solution(length, np.zeros(0, bool), True, self.name, "", Timings(host=time.perf_counter() - start),
                            tour=tour)
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
        return Solution(value=value, selected=selected, optimal=True, solver=self.name, device="",
                        timings=Timings(host=time.perf_counter() - start))
